// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include "kmodctl.h"
#include "ktr.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char kmod_result[512];

int kmod_load(const char *check)
{
	struct stat st;
	int rc;

	if (!stat(KMOD_FILE, &st))
		return 0;
	if (stat(KMOD_PATH, &st)) {
		ktr_fail(check, "%s: %s (the kernel build makes it when CONFIG_MODULES=y)",
			 KMOD_PATH, strerror(errno));
		return -1;
	}
	rc = system("insmod " KMOD_PATH);
	if (rc || stat(KMOD_FILE, &st)) {
		ktr_fail(check, "insmod %s: status %d", KMOD_PATH, rc);
		return -1;
	}
	return 1;
}

void kmod_unload(int loaded)
{
	if (loaded == 1 && system("rmmod ktau_test"))
		ktr_fail("rmmod", "rmmod ktau_test failed");
}

int kmod_cmd(const char *fmt, ...)
{
	char buf[128];
	va_list ap;
	int fd, n;
	ssize_t r;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	kmod_result[0] = '\0';
	fd = open(KMOD_FILE, O_WRONLY);
	if (fd < 0)
		return errno;
	if (write(fd, buf, n) != n) {
		n = errno ? errno : EIO;
		close(fd);
		return n;
	}
	close(fd);
	fd = open(KMOD_FILE, O_RDONLY);
	if (fd < 0)
		return errno;
	r = read(fd, kmod_result, sizeof(kmod_result) - 1);
	close(fd);
	if (r < 0)
		return errno;
	kmod_result[r] = '\0';
	kmod_result[strcspn(kmod_result, "\n")] = '\0';
	return 0;
}

long long kmod_field(const char *key, long long def)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(kmod_result, pat);
	return p ? strtoll(p + strlen(pat), NULL, 10) : def;
}
