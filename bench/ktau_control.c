// SPDX-License-Identifier: GPL-2.0
/*
 * Lines of /proc/ktau/control for the benchmarks: `memory tasks=N
 * bytes=M` and `contexts N`.  The bench reads the file with one read()
 * into a fixed buffer so that its own profile gains no entries between
 * two readings (see task_memory.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktau_control.h"

/* The control file, NUL-terminated, in buf[len]; -1 on error. */
static int control_read(char *buf, size_t len)
{
	ssize_t n;
	int fd = open("/proc/ktau/control", O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return 0;
}

int ktau_memory(unsigned long *tasks, unsigned long *bytes)
{
	char buf[4096];
	const char *line;

	if (control_read(buf, sizeof(buf)))
		return -1;
	line = strstr(buf, "\nmemory ");
	if (!line || sscanf(line, "\nmemory tasks=%lu bytes=%lu", tasks, bytes) != 2)
		return -1;
	return 0;
}

long ktau_contexts(void)
{
	char buf[4096];
	const char *line;
	long n;

	if (control_read(buf, sizeof(buf)))
		return -1;
	line = strstr(buf, "\ncontexts ");
	if (!line || sscanf(line, "\ncontexts %ld", &n) != 1)
		return -1;
	return n;
}
