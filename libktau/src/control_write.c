// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Commands to /proc/ktau/control.  The kernel parses each write() as one
 * whole command, so the command goes out in exactly one write().
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

int ktau_control_write(const char *command)
{
	char path[4096];
	size_t len;
	ssize_t n;
	int fd, error;

	if (!command || !*command)
		return -EINVAL;
	if (ktau__proc_path(path, sizeof(path), "ktau/control"))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -ktau__proc_errno(errno, 0, 0);
	len = strlen(command);
	do
		n = write(fd, command, len);
	while (n < 0 && errno == EINTR);
	error = n < 0 ? ktau__proc_errno(errno, 0, 0) : (size_t)n != len ? EIO : 0;
	close(fd);
	return -error;
}
