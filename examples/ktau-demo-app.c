// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-demo-app: the workload of `make demo`, and an example of libktau's
 * user-level profiler. Each phase is a user routine (KTAU_SCOPE); the
 * kernel time each one causes shows under it in the TAU profile the
 * program writes at exit (KTAU_PROFILE_DIR): main => io => sys_write().
 *
 *   compute  pure CPU: only interrupts and preemption under it
 *   io       writes and reads back a 1 MiB file in 4 KiB blocks
 *   net      200 UDP datagrams to itself over loopback (NET_RX softirqs)
 *   nap      sleeps 100 ms (schedule_vol)
 *   spawn    fork + exec of /bin/true, and waits for it
 *
 * Build: gcc -O2 ktau-demo-app.c $(pkg-config --static --cflags --libs ktau-prof)
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ktau-prof.h>

#define BLOCK		4096
#define BLOCKS		256
#define DATAGRAMS	200

static volatile double sink;

static void compute(void)
{
	KTAU_SCOPE("compute");
	for (long i = 0; i < 3000000; i++)
		sink += i * 0.5;
}

static int io(const char *path)
{
	KTAU_SCOPE("io");
	static char block[BLOCK];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), ok = fd >= 0;

	for (int i = 0; ok && i < BLOCKS; i++)
		ok = write(fd, block, BLOCK) == BLOCK;
	ok = ok && lseek(fd, 0, SEEK_SET) == 0;
	for (int i = 0; ok && i < BLOCKS; i++)
		ok = read(fd, block, BLOCK) == BLOCK;
	if (fd >= 0)
		close(fd);
	unlink(path);
	return ok ? 0 : -1;
}

static int net(void)
{
	KTAU_SCOPE("net");
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof(addr);
	char buf[512] = "ktau";
	int s = socket(AF_INET, SOCK_DGRAM, 0), got = 0;

	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (s < 0 || bind(s, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(s, (struct sockaddr *)&addr, &len))
		return -1;
	for (int i = 0; i < DATAGRAMS; i++) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&addr, len) < 0)
			break;
		got += recv(s, buf, sizeof(buf), 0) == (ssize_t)sizeof(buf);
	}
	close(s);
	return got == DATAGRAMS ? 0 : -1;
}

static void nap(void)
{
	KTAU_SCOPE("nap");
	struct timespec ts = { .tv_nsec = 100 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static int spawn(void)
{
	KTAU_SCOPE("spawn");
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       !WEXITSTATUS(status) ? 0 : -1;
}

int main(void)
{
	KTAU_SCOPE("main");
	int failed = 0;

	compute();
	failed |= io("/tmp/ktau-demo-app.dat");
	failed |= net();
	nap();
	failed |= spawn();
	if (failed)
		fprintf(stderr, "ktau-demo-app: a phase of the workload failed\n");
	return failed ? 1 : 0;
}
