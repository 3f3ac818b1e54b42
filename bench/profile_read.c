// SPDX-License-Identifier: GPL-2.0
/*
 * profile_read — instructions to read /proc/ktau/profile whole (open,
 * read to EOF, close) with N tasks alive, for `make bench` (issue 7).
 * Run under `qemu -icount shift=0` (see icount.h).
 *
 *   profile_read N...      N ascending, e.g. 1000 10000
 *
 * For each N it parks threads (blocked in read() on a pipe) until the
 * `memory tasks=` count of /proc/ktau/control reaches N, then prints
 *   BENCH profile_read.N INSTRUCTIONS     the least of three reads
 *   BENCH profile_read.N.bytes BYTES      the profile's size
 *   BENCH profile_read.N.tasks TASKS      the tasks with a profile
 * Exit status: 0 done, 1 a thread or the read failed, 2 bad usage.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "icount.h"
#include "ktau_control.h"

#define READS	3

static int park_fd;

static void *parked(void *arg)
{
	char c;

	(void)arg;
	return read(park_fd, &c, 1) < 0 ? arg : NULL;
}

static int park_threads(long count)
{
	pthread_attr_t attr;
	pthread_t t;
	int err = 0;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, PTHREAD_STACK_MIN);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (long i = 0; i < count && !err; i++)
		err = pthread_create(&t, &attr, parked, NULL);
	pthread_attr_destroy(&attr);
	return err;
}

/* Instructions of one whole read; -1 on error. */
static long long read_profile(char *buf, size_t len, size_t *size)
{
	uint64_t t0 = icount_now(), t1;
	int fd = open("/proc/ktau/profile", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	*size = 0;
	while ((n = read(fd, buf, len)) > 0)
		*size += (size_t)n;
	close(fd);
	t1 = icount_now();
	return n < 0 ? -1 : (long long)(t1 - t0);
}

int main(int argc, char **argv)
{
	const size_t len = 1 << 20;
	char *buf = malloc(len);
	int fds[2];

	if (argc < 2) {
		fprintf(stderr, "usage: profile_read N...\n");
		return 2;
	}
	if (!buf || pipe(fds)) {
		perror("profile_read");
		return 1;
	}
	park_fd = fds[0];
	for (int a = 1; a < argc; a++) {
		long want = strtol(argv[a], NULL, 10);
		unsigned long tasks = 0, bytes;
		long long best = -1;
		size_t size = 0;

		/* threads start asynchronously: count again until it is reached */
		for (;;) {
			if (ktau_memory(&tasks, &bytes)) {
				fprintf(stderr, "profile_read: no memory line in /proc/ktau/control\n");
				return 1;
			}
			if ((long)tasks >= want)
				break;
			if (park_threads(want - (long)tasks)) {
				fprintf(stderr, "profile_read: cannot start %ld threads\n",
					want - (long)tasks);
				return 1;
			}
			usleep(100000);
		}
		for (int r = 0; r < READS; r++) {
			long long t = read_profile(buf, len, &size);

			if (t < 0) {
				perror("profile_read: /proc/ktau/profile");
				return 1;
			}
			if (best < 0 || t < best)
				best = t;
		}
		printf("BENCH profile_read.%ld %lld\n", want, best);
		printf("BENCH profile_read.%ld.bytes %zu\n", want, size);
		printf("BENCH profile_read.%ld.tasks %lu\n", want, tasks);
		fflush(stdout);
	}
	return 0;
}
