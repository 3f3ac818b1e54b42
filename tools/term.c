// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE	/* SIGWINCH, TIOCGWINSZ */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "term.h"

#define ALT_SCREEN_ON "\033[?1049h\033[?25l"
#define ALT_SCREEN_OFF "\033[?25h\033[?1049l"

/* Signal handlers can only leave word for the main loop: these flags are
 * that word, hence global. */
static volatile sig_atomic_t quit_requested;
static volatile sig_atomic_t suspend_requested;
static volatile sig_atomic_t redraw_requested;

static void on_signal(int sig)
{
	if (sig == SIGTSTP)
		suspend_requested = 1;
	else if (sig == SIGWINCH)
		redraw_requested = 1;
	else
		quit_requested = 1;
}

int term_catch_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGTSTP, SIGWINCH };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: a signal ends poll() */
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (sigaction(sigs[i], &sa, NULL))
			return -errno;
	return 0;
}

bool term_quit_requested(void)
{
	return quit_requested;
}

static void put(int fd, const char *s)
{
	size_t len = strlen(s);

	while (len) {
		ssize_t n = write(fd, s, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		s += n;
		len -= (size_t)n;
	}
}

int term_enter(struct term *t)
{
	struct termios raw;

	if (t->in_fd >= 0 && !t->keys_raw) {
		if (tcgetattr(t->in_fd, &t->saved))
			return -errno;
		raw = t->saved;
		/* keys one at a time, unechoed; ISIG stays: Ctrl-C still quits */
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		if (tcsetattr(t->in_fd, TCSAFLUSH, &raw))
			return -errno;
		t->keys_raw = true;
	}
	if (!t->screen) {
		put(t->out_fd, ALT_SCREEN_ON);
		t->screen = true;
	}
	return 0;
}

void term_leave(struct term *t)
{
	if (t->screen) {
		put(t->out_fd, ALT_SCREEN_OFF);
		t->screen = false;
	}
	if (t->keys_raw) {
		tcsetattr(t->in_fd, TCSAFLUSH, &t->saved);
		t->keys_raw = false;
	}
}

/* Ctrl-Z: the shell gets its terminal back while we are stopped. */
static void suspend(struct term *t)
{
	bool was_on = t->screen || t->keys_raw;

	suspend_requested = 0;
	term_leave(t);
	signal(SIGTSTP, SIG_DFL);
	raise(SIGTSTP);
	/* continued */
	term_catch_signals();
	if (was_on)
		term_enter(t);
	redraw_requested = 1;
}

int term_wait(struct term *t, int timeout_ms)
{
	struct pollfd pfd = { .fd = t->in_fd, .events = POLLIN };
	unsigned char key;
	int n;

	if (suspend_requested)
		suspend(t);
	if (quit_requested || redraw_requested) {
		redraw_requested = 0;
		return 0;
	}
	n = poll(&pfd, t->in_fd >= 0 && !t->in_gone ? 1 : 0, timeout_ms);
	if (n < 0)
		return 0;	/* a signal: the caller looks at the flags */
	if (n == 0)
		return -1;
	if (pfd.revents & (POLLHUP | POLLERR)) {
		/* the terminal went away: nothing more to read, stop polling it */
		t->in_gone = true;
		return 0;
	}
	if (read(t->in_fd, &key, 1) == 1)
		return key;
	return 0;
}

void term_size(const struct term *t, int *rows, int *cols)
{
	struct winsize ws;

	*rows = 24;
	*cols = 80;
	if (ioctl(t->out_fd, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}
