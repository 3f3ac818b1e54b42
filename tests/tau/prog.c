// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TAU-instrumented program of `make check-tau` (tests/tau/check-tau.sh)
 * and of the guest run (tests/tau/run-in-guest.sh): TAU timers around
 * 1000 getpid() and 500 read()s of 16 bytes from /dev/zero.
 *
 *   getpids   1000 getpid() system calls
 *   io        500 read() system calls
 *
 * On the host there is no ktau kernel: with KTAU_TAU_FAKE_PID_FILE set, the
 * program writes its pid and thread id there before its timers start and
 * waits for KTAU_TAU_FAKE_GO to exist (the check puts into its fake /proc
 * what a ktau kernel would record for those calls), so that TAU's kernel
 * profile of it can be checked exactly.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <TAU.h>

static void fake_kernel_handshake(void)
{
	const char *pidfile = getenv("KTAU_TAU_FAKE_PID_FILE");
	const char *go = getenv("KTAU_TAU_FAKE_GO");
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct stat st;
	FILE *f;
	int i;

	if (!pidfile || !go)
		return;
	f = fopen(pidfile, "w");
	if (!f)
		return;
	fprintf(f, "%d %ld\n", (int)getpid(), (long)syscall(SYS_gettid));
	fclose(f);
	for (i = 0; i < 3000 && stat(go, &st); i++)
		nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
	char buf[16];
	int fd, i;

	TAU_PROFILE_TIMER(tmain, "main()", "", TAU_DEFAULT);
	TAU_PROFILE_TIMER(tgetpid, "getpids", "", TAU_USER);
	TAU_PROFILE_TIMER(tio, "io", "", TAU_USER);
	TAU_PROFILE_INIT(argc, argv);
	TAU_PROFILE_SET_NODE(0);
	fd = open("/dev/zero", O_RDONLY);
	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	TAU_PROFILE_START(tmain);

	fake_kernel_handshake();

	TAU_PROFILE_START(tgetpid);
	for (i = 0; i < 1000; i++)
		syscall(SYS_getpid);
	TAU_PROFILE_STOP(tgetpid);

	TAU_PROFILE_START(tio);
	for (i = 0; i < 500; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("read /dev/zero");
			return 1;
		}
	TAU_PROFILE_STOP(tio);

	TAU_PROFILE_STOP(tmain);
	close(fd);
	return 0;
}
