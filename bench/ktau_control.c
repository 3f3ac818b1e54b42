// SPDX-License-Identifier: GPL-2.0
/*
 * The `memory tasks=N bytes=M` line of /proc/ktau/control.  The bench
 * reads it with one read() into a fixed buffer so that its own profile
 * gains no entries between two readings (see task_memory.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "ktau_control.h"

int ktau_memory(unsigned long *tasks, unsigned long *bytes)
{
	char buf[4096];
	const char *line;
	ssize_t len;
	int fd = open("/proc/ktau/control", O_RDONLY);

	if (fd < 0)
		return -1;
	len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = '\0';
	line = strstr(buf, "\nmemory ");
	if (!line || sscanf(line, "\nmemory tasks=%lu bytes=%lu", tasks, bytes) != 2)
		return -1;
	return 0;
}
