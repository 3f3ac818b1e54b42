// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The TAU-instrumented program of `make check-tau` (tests/tau/check-tau.sh)
 * and of the guest run (tests/tau/run-in-guest.sh): TAU timers around
 * 1000 getpid() and 500 read()s of 16 bytes from /dev/zero.
 *
 *   getpids   1000 getpid() system calls
 *   io        500 read() system calls
 *
 * With KTAU_TAU_READ_DELTA set (the guest run), the program also writes
 * there what its thread's own profile, /proc/self/task/<tid>/ktau, records
 * for read() across io: `read CALLS INCL_CYCLES TSC_KHZ`, the func lines
 * of read(), after minus before, and the clock rate of the cycles (TAU
 * reports the counter in microseconds: cycles over its own MHz).  The two reads of the file use pread(), so
 * that they are not read() calls themselves; nothing runs between them
 * and io's timer but the timer's own start and stop, which the check
 * compares with what TAU's KTAU_INCL_sys_read says of io.
 *
 * On the host there is no ktau kernel: with KTAU_TAU_FAKE_PID_FILE set, the
 * program writes its pid and thread id there before its timers start and
 * waits for KTAU_TAU_FAKE_GO to exist (the check puts into its fake /proc
 * what a ktau kernel would record for those calls), so that TAU's kernel
 * profile of it can be checked exactly.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* read()'s calls and inclusive cycles in the thread's profile. */
struct read_sum {
	uint64_t calls, incl, tsc_khz;
};

static char proc_text[1 << 20];

static int read_sum_now(int fd, struct read_sum *out)
{
	ssize_t n = pread(fd, proc_text, sizeof(proc_text) - 1, 0);
	char *line, *save = NULL;
	uint64_t calls, incl, excl;
	char name[64], group[64];
	unsigned long long ctx, fid;

	if (n <= 0)
		return -1;
	proc_text[n] = 0;
	out->calls = out->incl = 0;
	for (line = strtok_r(proc_text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "tsc_khz %" SCNu64, &out->tsc_khz) == 1)
			continue;
		if (sscanf(line, "func %llu %llu %63s %63s %" SCNu64 " %" SCNu64 " %" SCNu64,
			   &ctx, &fid, name, group, &calls, &incl, &excl) == 7 &&
		    !strcmp(name, "read")) {
			out->calls += calls;
			out->incl += incl;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *delta_path = getenv("KTAU_TAU_READ_DELTA");
	struct read_sum before = { 0, 0, 0 }, after = { 0, 0, 0 };
	int proc_fd = -1;
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

	if (delta_path) {
		char path[64];

		snprintf(path, sizeof(path), "/proc/self/task/%ld/ktau", (long)syscall(SYS_gettid));
		proc_fd = open(path, O_RDONLY);
		memset(proc_text, 0, sizeof(proc_text));	/* no fault inside */
		if (proc_fd < 0 || read_sum_now(proc_fd, &before)) {
			perror(path);
			return 1;
		}
	}
	TAU_PROFILE_START(tio);
	for (i = 0; i < 500; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("read /dev/zero");
			return 1;
		}
	TAU_PROFILE_STOP(tio);
	if (delta_path) {
		FILE *f;

		if (read_sum_now(proc_fd, &after))
			return 1;
		f = fopen(delta_path, "w");
		if (!f) {
			perror(delta_path);
			return 1;
		}
		fprintf(f, "read %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", after.calls - before.calls,
			after.incl - before.incl, after.tsc_khz);
		fclose(f);
		close(proc_fd);
	}

	TAU_PROFILE_STOP(tmain);
	close(fd);
	return 0;
}
