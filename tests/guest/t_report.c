// SPDX-License-Identifier: GPL-2.0
/*
 * report — ktau-dump --json, ktau-archive and ktau-report on a known
 * workload: a child makes exactly 1000 getpid() and 250 getppid() calls
 * (raw syscalls) and waits; the tools must show exactly those counts.
 * The JSON is checked by a small extractor here, the archive by busybox
 * tar and ktr (readers written without libktau), the report by its line.
 * With a 9p share at /mnt/host the archive is copied there
 * (guest-report.ktar) for the host to read.
 */
#define _GNU_SOURCE
#include "ktr.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NGETPID 1000
#define NGETPPID 250
#define ARCHIVE "/tmp/t_report.ktar"
#define OUT_MAX (1 << 20)

/* Runs argv (PATH searched), stdout into a malloc()ed string; the exit
 * status (or 128 + signal) in *status. NULL if it could not run. */
static char *run(char *const argv[], int *status)
{
	int fds[2], st;
	size_t len = 0;
	char *out = malloc(OUT_MAX + 1);
	pid_t pid;
	ssize_t n;

	if (!out || pipe(fds)) {
		free(out);
		return NULL;
	}
	pid = fork();
	if (pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fds[1]);
	while (pid > 0 && (n = read(fds[0], out + len, OUT_MAX - len)) > 0)
		len += (size_t)n;
	close(fds[0]);
	out[len] = '\0';
	if (pid < 0 || waitpid(pid, &st, 0) < 0) {
		free(out);
		return NULL;
	}
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return out;
}

/* The workload: NGETPID getpid(), NGETPPID getppid(), then a byte to the
 * parent and wait to be killed. */
static pid_t start_child(void)
{
	int ready[2];
	pid_t pid;
	char c = 'r';

	if (pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(ready[0]);
		for (int i = 0; i < NGETPID; i++)
			syscall(SYS_getpid);
		for (int i = 0; i < NGETPPID; i++)
			syscall(SYS_getppid);
		if (write(ready[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	if (pid > 0 && read(ready[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(ready[0]);
	return pid;
}

/* "calls" of the routine named name in the JSON text, or -1: the text
 * after "name": "<name>" up to the closing brace of that object. */
static long long json_calls(const char *json, const char *name)
{
	char key[128];
	const char *p, *end, *c;

	snprintf(key, sizeof(key), "\"name\": \"%s\"", name);
	p = strstr(json, key);
	end = p ? strchr(p, '}') : NULL;
	c = p ? strstr(p, "\"calls\": ") : NULL;
	if (!c || c > end)
		return -1;
	return strtoll(c + 9, NULL, 10);
}

static void check_json(pid_t pid)
{
	char spid[16], *argv[] = { "ktau-dump", "--json", spid, NULL };
	int status = -1;
	char *out;

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	out = run(argv, &status);
	if (!ktr_check(out && status == 0, "dump-json-runs", "ktau-dump --json %s: status %d",
		       spid, status)) {
		free(out);
		return;
	}
	ktr_check(!strncmp(out, "{\"format\": \"ktau-model\"", 23) &&
		  strstr(out, "]}\n") == out + strlen(out) - 3, "dump-json-shape",
		  "not a whole ktau-model document: %.80s", out);
	ktr_check(json_calls(out, "sys_getpid()") == NGETPID, "dump-json-getpid",
		  "sys_getpid() calls %lld, expected %d", json_calls(out, "sys_getpid()"),
		  NGETPID);
	ktr_check(json_calls(out, "sys_getppid()") == NGETPPID, "dump-json-getppid",
		  "sys_getppid() calls %lld, expected %d", json_calls(out, "sys_getppid()"),
		  NGETPPID);
	free(out);
}

/* The archive's proc/PID/ktau, extracted by busybox tar, parsed by ktr. */
static void check_archive_member(pid_t pid)
{
	char member[64], *argv[] = { "tar", "-xOf", ARCHIVE, member, NULL };
	struct ktr_profile p;
	struct ktr_block *b;
	char err[256];
	uint64_t g = 0, pp = 0;
	int status = -1;
	char *out;

	snprintf(member, sizeof(member), "proc/%d/ktau", (int)pid);
	out = run(argv, &status);
	if (!ktr_check(out && status == 0 && *out, "archive-tar-extract",
		       "tar -xOf %s %s: status %d", ARCHIVE, member, status)) {
		free(out);
		return;
	}
	if (ktr_parse(out, strlen(out), &p, err, sizeof(err))) {
		ktr_fail("archive-member-parses", "%s: %s", member, err);
		free(out);
		return;
	}
	b = ktr_block_kind(&p, "process", 0);
	ktr_func(b, "getpid", &g, NULL, NULL);
	ktr_func(b, "getppid", &pp, NULL, NULL);
	ktr_check(b && b->pid == pid && g == NGETPID && pp == NGETPPID, "archive-counts",
		  "%s: pid %ld getpid %" PRIu64 " getppid %" PRIu64 ", expected %d %d %d",
		  member, b ? b->pid : -1L, g, pp, (int)pid, NGETPID, NGETPPID);
	ktr_free(&p);
	free(out);
	argv[1] = "-tf";
	argv[3] = NULL;
	out = run(argv, &status);
	ktr_check(out && status == 0 && !strncmp(out, "ktau-archive\n", 13) &&
		  strstr(out, "\nproc/ktau/functions\n"), "archive-members",
		  "tar -tf: status %d, members:\n%s", status, out ? out : "");
	free(out);
}

static void check_report(pid_t pid)
{
	char *argv[] = { "ktau-report", "--groups", "syscall", ARCHIVE, NULL };
	char want[64], line[256];
	const char *at;
	int status = -1;
	char *out = run(argv, &status);

	if (!ktr_check(out && status == 0, "report-runs", "ktau-report %s: status %d",
		       ARCHIVE, status)) {
		free(out);
		return;
	}
	/* "getpid  syscall  1000 ...": the row's first three columns */
	at = strstr(out, "\ngetpid ");
	if (at)
		sscanf(at + 1, "%255[^\n]", line);
	snprintf(want, sizeof(want), "# process pid=%d ", (int)pid);
	ktr_check(strstr(out, want) != NULL, "report-process", "no '%s' line in:\n%s",
		  want, out);
	{
		char name[32] = "", group[32] = "";
		long long calls = -1;

		if (at)
			sscanf(line, "%31s %31s %lld", name, group, &calls);
		ktr_check(calls == NGETPID && !strcmp(group, "syscall"), "report-getpid",
			  "getpid row '%s', expected %d calls", at ? line : "(none)", NGETPID);
	}
	free(out);
}

static void copy_to_share(void)
{
	char *argv[] = { "cp", ARCHIVE, "/mnt/host/guest-report.ktar", NULL };
	struct stat share, mnt;
	int status = -1;
	char *out;

	/* a mount point (another device than /mnt): init mounted the share */
	if (stat("/mnt/host", &share) || stat("/mnt", &mnt) || share.st_dev == mnt.st_dev)
		return;
	out = run(argv, &status);
	ktr_info("share", "archive copied to the host share: status %d", status);
	free(out);
}

int main(void)
{
	char spid[16], *argv[] = { "ktau-archive", "-o", ARCHIVE, spid, NULL };
	int status = -1;
	pid_t pid;
	char *out;

	ktr_init("report");
	pid = start_child();
	if (pid < 0) {
		ktr_fail("workload", "cannot start the child: %s", strerror(errno));
		return ktr_exit();
	}
	check_json(pid);
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	unlink(ARCHIVE);
	out = run(argv, &status);
	if (ktr_check(out && status == 0 && access(ARCHIVE, R_OK) == 0, "archive-written",
		      "ktau-archive -o %s %s: status %d, output %s", ARCHIVE, spid, status,
		      out ? out : "")) {
		check_archive_member(pid);
		check_report(pid);
		copy_to_share();
	}
	free(out);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	return ktr_exit();
}
