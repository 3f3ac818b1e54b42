/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A full-screen terminal view without curses: the alternate screen, a
 * hidden cursor and single-key input (termios), all undone on every way
 * out — normal exit, q, SIGINT/SIGTERM/SIGHUP — and around a Ctrl-Z.
 */
#ifndef KTAU_TOOLS_TERM_H
#define KTAU_TOOLS_TERM_H

#include <stdbool.h>
#include <termios.h>

struct term {
	int in_fd;		/* keys; -1 when stdin is not a terminal */
	bool in_gone;		/* in_fd hung up: no more keys */
	int out_fd;
	bool keys_raw;		/* in_fd's settings are changed */
	bool screen;		/* the alternate screen is on */
	struct termios saved;
};

/* Catches SIGINT, SIGTERM, SIGHUP (quit), SIGTSTP (suspend), SIGWINCH. */
int term_catch_signals(void);
/* Set by the signal handlers; the main loop polls them. */
bool term_quit_requested(void);

/* Takes over the terminal on stdout (and stdin for keys). 0 or -errno. */
int term_enter(struct term *t);
/* Gives it back as it was. Safe to call twice. */
void term_leave(struct term *t);

/*
 * Waits up to timeout_ms for a key (returned, 0..255), a signal (0 when
 * the screen must be redrawn: resized or back from a suspension; the
 * caller checks term_quit_requested()), or the timeout (-1). Handles a
 * pending Ctrl-Z: gives the terminal back, stops, takes it again.
 */
int term_wait(struct term *t, int timeout_ms);

/* Rows and columns of the terminal (24x80 when unknown). */
void term_size(const struct term *t, int *rows, int *cols);

/* Escape sequences for a frame: cursor home; clear to end of line;
 * clear to end of screen. */
#define TERM_HOME "\033[H"
#define TERM_CLEAR_EOL "\033[K"
#define TERM_CLEAR_EOS "\033[J"

#endif
