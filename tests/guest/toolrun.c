// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "toolrun.h"
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int tool_drop_root(void)
{
	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		return -1;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

static int temp_file(void)
{
	char path[] = "/tmp/toolrun.XXXXXX";
	int fd = mkstemp(path);

	if (fd >= 0)
		unlink(path);
	return fd;
}

static char *read_back(int fd)
{
	off_t len = lseek(fd, 0, SEEK_END);
	char *buf = malloc(len > 0 ? (size_t)len + 1 : 1);

	if (!buf)
		return NULL;
	if (len <= 0 || pread(fd, buf, (size_t)len, 0) != len)
		len = 0;
	buf[len] = '\0';
	return buf;
}

int tool_run(const char *check, char *const argv[], char *const env_add[], int as_nobody,
	     struct tool_result *r)
{
	int out = temp_file(), err = temp_file(), st;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (out < 0 || err < 0) {
		ktr_fail(check, "temporary file: %s", strerror(errno));
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		dup2(null, 0);
		dup2(out, 1);
		dup2(err, 2);
		for (; env_add && *env_add; env_add++)
			putenv(*env_add);
		if (as_nobody && tool_drop_root())
			_exit(200);
		execv(argv[0], argv);
		_exit(201);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		ktr_fail(check, "fork/wait for %s: %s", argv[0], strerror(errno));
		close(out);
		close(err);
		return -1;
	}
	r->status = WIFSIGNALED(st) ? 128 + WTERMSIG(st) : WEXITSTATUS(st);
	r->out = read_back(out);
	r->err = read_back(err);
	close(out);
	close(err);
	if (!r->out || !r->err || r->status == 200 || r->status == 201) {
		ktr_fail(check, "could not run %s (status %d: %s)", argv[0], r->status,
			 r->status == 200 ? "cannot drop to nobody" : "exec failed");
		tool_result_free(r);
		return -1;
	}
	return 0;
}

void tool_result_free(struct tool_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

const char *tool_line(const char *text, const char *prefix, char *buf, size_t size)
{
	size_t plen = strlen(prefix);

	while (text && *text) {
		const char *end = strchr(text, '\n');
		size_t n = 0;

		if (!end)
			end = text + strlen(text);
		for (const char *c = text; c < end && n + 1 < size; c++) {
			if (*c == ' ' && (n == 0 || buf[n - 1] == ' '))
				continue;
			buf[n++] = *c;
		}
		while (n && buf[n - 1] == ' ')
			n--;
		buf[n] = '\0';
		if (!strncmp(buf, prefix, plen))
			return buf;
		text = *end ? end + 1 : end;
	}
	return NULL;
}

long long tool_table_calls(const char *text, const char *routine)
{
	char line[512], prefix[128], group[64];
	long long calls;

	snprintf(prefix, sizeof(prefix), "%s ", routine);
	if (!tool_line(text, prefix, line, sizeof(line)))
		return -1;
	if (sscanf(line + strlen(prefix), "%63s %lld", group, &calls) != 2)
		return -1;
	return calls;
}

const char *tool_self_path(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}
