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

static int write_control(const char *root, const char *command,
			 struct ktau_parse_error *err)
{
	char path[4096];
	size_t len;
	ssize_t n;
	int fd, error;

	if (!command || !*command)
		return ktau__fail(err, EINVAL, 0, "empty control command");
	if (ktau__proc_path(root, path, sizeof(path), "ktau/control"))
		return ktau__fail(err, ENAMETOOLONG, 0, "%s/ktau/control: %s", root,
				  ktau_strerror(ENAMETOOLONG));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		error = ktau__proc_errno(root, errno, 0, 0);
		return ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
	}
	len = strlen(command);
	do
		n = write(fd, command, len);
	while (n < 0 && errno == EINTR);
	error = n < 0 ? ktau__proc_errno(root, errno, 0, 0) : (size_t)n != len ? EIO : 0;
	close(fd);
	if (error == EINVAL)	/* what the kernel says of a command it refused */
		return ktau__fail(err, EINVAL, 0, "%s: the kernel refused \"%.*s\"",
				  path, 64, command);
	if (error)
		return ktau__fail(err, error, 0, "%s: %s", path, ktau_strerror(error));
	return 0;
}

int ktau_proc_write_control(struct ktau_proc *proc, const char *command,
			    struct ktau_error **err)
{
	struct ktau_parse_error pe;

	ktau__clear_error(&pe);
	if (!proc)
		return ktau__ret_int(ktau__fail(&pe, EINVAL, 0, "NULL struct ktau_proc"),
				     &pe, err);
	return ktau__ret_int(write_control(proc->root, command, &pe), &pe, err);
}
