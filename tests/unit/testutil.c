// SPDX-License-Identifier: GPL-2.0-or-later
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <ftw.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "testutil.h"

static struct ktau_error *last_error;

struct ktau_error **test_err(void)
{
	ktau_error_free(last_error);
	last_error = NULL;
	return &last_error;
}

const struct ktau_error *last_err(void)
{
	return last_error;
}

struct ktau_proc *open_root(const char *root)
{
	KTAU_OPTS(ktau_proc_opts, opts, .root = root);

	return ktau_proc_open(&opts, NULL);
}

struct ktau_profile *read_task(struct ktau_proc *proc, pid_t pid, pid_t tid,
			       struct ktau_error **err)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = pid, .tid = tid);

	return ktau_proc_read_profile(proc, &opts, err);
}

char *read_task_raw(struct ktau_proc *proc, pid_t pid, pid_t tid, size_t *len,
		    struct ktau_error **err)
{
	KTAU_OPTS(ktau_read_opts, opts, .pid = pid, .tid = tid);

	return ktau_proc_read_raw(proc, &opts, len, err);
}

struct ktau_profile *load_profile(const char *path, struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, opts, .path = path);

	return ktau_profile_load(&opts, err);
}

struct ktau_functions *load_functions(const char *path, struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, opts, .path = path);

	return ktau_functions_load(&opts, err);
}

struct ktau_archive *load_archive(const char *path, struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, opts, .path = path);

	return ktau_archive_load(&opts, err);
}

struct ktau_stacks *load_stacks(const char *path, enum ktau_stacks_format format,
				struct ktau_error **err)
{
	KTAU_OPTS(ktau_load_opts, opts, .path = path);

	return ktau_stacks_load(&opts, format, err);
}

struct ktau_profile *parse_str(const char *text, struct ktau_error **err)
{
	return ktau_profile_parse(text, strlen(text), err);
}

struct ktau_functions *parse_functions_str(const char *text, struct ktau_error **err)
{
	return ktau_functions_parse(text, strlen(text), err);
}

char *model_text(const struct ktau_model *m, enum ktau_model_format format, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int ret;

	if (!f)
		return NULL;
	ret = ktau_model_write_stream(m, format, f);
	fclose(f);
	if (ret) {
		free(buf);
		return NULL;
	}
	if (len)
		*len = size;
	return buf;
}

struct ktau_model *stacks_model(const char *text, enum ktau_stacks_format format,
				struct ktau_error **err)
{
	struct ktau_stacks *s = ktau_stacks_parse(text, strlen(text), format, err);
	struct ktau_model *m = s ? ktau_model_new() : NULL;

	if (m && !ktau_model_add_stacks(m, s, 0, 0, 0, NULL)) {
		ktau_model_free(m);
		m = NULL;
	}
	ktau_stacks_free(s);
	return m;
}

const struct ktau_model_routine *stacks_routine(const struct ktau_model *m, const char *name)
{
	const struct ktau_model_thread *t = ktau_model_thread(m, 0);

	return t ? ktau_model_find_routine(t, name) : NULL;
}

const struct ktau_model_callpath *stacks_callpath(const struct ktau_model *m, const char *name)
{
	const struct ktau_model_thread *t = ktau_model_thread(m, 0);
	size_t i;

	for (i = 0; t && i < ktau_model_callpath_count(t); i++)
		if (!strcmp(ktau_model_callpath(t, i)->name, name))
			return ktau_model_callpath(t, i);
	return NULL;
}

char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t cap = 0, used = 0;

	if (!f)
		return NULL;
	for (;;) {
		if (cap - used < 4096) {
			char *p = realloc(buf, cap + 65536);

			if (!p) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
			cap += 65536;
		}
		size_t n = fread(buf + used, 1, cap - used - 1, f);

		used += n;
		if (!n)
			break;
	}
	fclose(f);
	buf[used] = '\0';
	if (len)
		*len = used;
	return buf;
}

char *read_rel(const char *dir, const char *rel)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return slurp(path, NULL);
}

uint64_t model_excl_total(const struct ktau_model *m)
{
	uint64_t sum = 0;
	size_t i, j;

	for (i = 0; i < ktau_model_thread_count(m); i++) {
		const struct ktau_model_thread *t = ktau_model_thread(m, i);

		for (j = 0; j < ktau_model_routine_count(t); j++)
			sum += ktau_model_routine(t, j)->excl_ns;
	}
	return sum;
}

char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/ktau-unit-XXXXXX", base && *base ? base : "/tmp") < 0)
		return NULL;
	if (!mkdtemp(path)) {
		free(path);
		return NULL;
	}
	/* other users (the EACCES test drops to nobody) must reach into it */
	chmod(path, 0755);
	return path;
}

static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST) {
			*p = '/';
			return -errno;
		}
		*p = '/';
	}
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
}

int make_tree_dir(const char *dir, const char *rel)
{
	char *path;
	int ret;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return -ENOMEM;
	ret = mkdirs(path);
	free(path);
	return ret;
}

int write_tree_file(const char *dir, const char *rel, const char *text)
{
	char *path, *slash;
	FILE *f;
	int ret = 0;

	if (asprintf(&path, "%s/%s", dir, rel) < 0)
		return -ENOMEM;
	slash = strrchr(path, '/');
	*slash = '\0';
	ret = mkdirs(path);
	*slash = '/';
	if (!ret) {
		f = fopen(path, "w");
		if (!f)
			ret = -errno;
		else if (fputs(text, f) < 0 || fclose(f))
			ret = -EIO;
	}
	free(path);
	return ret;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void remove_tree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static int append(char **buf, size_t *len, const char *data, size_t n)
{
	char *p = realloc(*buf, *len + n + 1);

	if (!p)
		return -ENOMEM;
	memcpy(p + *len, data, n);
	*len += n;
	p[*len] = '\0';
	*buf = p;
	return 0;
}

int run_program(char *const argv[], char *const env_add[], struct run_result *r)
{
	int out_pipe[2], err_pipe[2], status;
	size_t out_len = 0, err_len = 0;
	struct pollfd fds[2];
	int open_fds = 2;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->out = calloc(1, 1);
	r->err = calloc(1, 1);
	if (!r->out || !r->err || pipe(out_pipe) || pipe(err_pipe))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out_pipe[1], 1);
		dup2(err_pipe[1], 2);
		close(out_pipe[0]);
		close(err_pipe[0]);
		for (; env_add && *env_add; env_add++)
			putenv(*env_add);
		execv(argv[0], argv);
		_exit(127);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	fds[0] = (struct pollfd){ .fd = out_pipe[0], .events = POLLIN };
	fds[1] = (struct pollfd){ .fd = err_pipe[0], .events = POLLIN };
	while (open_fds) {
		int i;

		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (i = 0; i < 2; i++) {
			char buf[4096];
			ssize_t n;

			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 0)
				append(&r->out, &out_len, buf, (size_t)n);
			else
				append(&r->err, &err_len, buf, (size_t)n);
		}
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

void run_result_free(struct run_result *r)
{
	free(r->out);
	free(r->err);
	r->out = r->err = NULL;
}

/* Copies line [start, end) into buf with runs of blanks squeezed to one. */
static void squeeze(const char *start, const char *end, char *buf, size_t size)
{
	char *w = buf;

	for (; start < end && (size_t)(w - buf) < size - 1; start++) {
		if (*start == ' ' && (w == buf || w[-1] == ' '))
			continue;
		*w++ = *start;
	}
	if (w > buf && w[-1] == ' ')
		w--;
	*w = '\0';
}

const char *line_starting(const char *text, const char *prefix, char *buf, size_t size)
{
	size_t n = strlen(prefix);

	while (*text) {
		const char *end = strchr(text, '\n');

		if (!end)
			end = text + strlen(text);
		squeeze(text, end, buf, size);
		if (!strncmp(buf, prefix, n))
			return buf;
		text = *end ? end + 1 : end;
	}
	return NULL;
}

/* Copy file src to dst with mode; 0 or -1. */
static int copy_file(const char *src, const char *dst, mode_t mode)
{
	char buf[65536];
	int in = open(src, O_RDONLY), out;
	ssize_t n = 0;

	if (in < 0)
		return -1;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC, mode);
	while (out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	if (out < 0 || close(out) || n < 0)
		return -1;
	return chmod(dst, mode);
}

/*
 * The tools under test live in the build tree, which user nobody may not
 * be able to reach (a checkout in a 0700 directory): in the child, still
 * as root, every KTAU_* variable naming an executable file is pointed at
 * a copy in dir, which nobody can read.
 */
static void tools_for_nobody(const char *dir)
{
	extern char **environ;
	char **names = NULL;
	size_t n = 0;

	for (char **e = environ; *e; e++) {
		const char *eq = strchr(*e, '=');
		struct stat st;
		char **grown;

		if (strncmp(*e, "KTAU_", 5) || !eq || stat(eq + 1, &st) ||
		    !S_ISREG(st.st_mode) || !(st.st_mode & S_IXUSR))
			continue;
		grown = realloc(names, (n + 1) * sizeof(*names));
		if (!grown)
			break;
		names = grown;
		names[n++] = strndup(*e, (size_t)(eq - *e));
	}
	for (size_t i = 0; i < n; i++) {
		const char *src = names[i] ? getenv(names[i]) : NULL;
		char dst[4200];

		if (!src)
			continue;
		snprintf(dst, sizeof(dst), "%s/%s", dir, strrchr(src, '/') ? strrchr(src, '/') + 1 : src);
		if (!copy_file(src, dst, 0755))
			setenv(names[i], dst, 1);
		free(names[i]);
	}
	free(names);
}

int run_as_nobody(int (*fn)(void))
{
	char dir[] = "/tmp/ktau-nobody-XXXXXX";
	int status, ret;
	pid_t pid;

	if (!mkdtemp(dir) || chmod(dir, 0755))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		remove_tree(dir);
		return -1;
	}
	if (pid == 0) {
		tools_for_nobody(dir);
		if (geteuid() == 0 && setresuid(65534, 65534, 65534))
			_exit(255);
		_exit(fn());
	}
	ret = waitpid(pid, &status, 0);
	remove_tree(dir);
	if (ret < 0 || !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return -1;
	return WEXITSTATUS(status);
}

int run_tool(const char *var, char *const env_add[], struct run_result *r, ...)
{
	char *argv[32] = { getenv(var) };
	size_t n = 1;
	va_list ap;

	if (!argv[0]) {
		memset(r, 0, sizeof(*r));
		return -ENOENT;
	}
	va_start(ap, r);
	while (n < 31 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, env_add, r);
}

int have_program(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/usr/bin/%s", name);
	return !access(path, X_OK);
}

int protoc_decode(const char *path, struct run_result *r)
{
	char *cmd, *argv[4];
	int ret;

	/* protoc wants the .proto relative to a --proto_path */
	if (asprintf(&cmd, "protoc --decode perftools.profiles.Profile "
		     "--proto_path=\"$(dirname '%s')\" profile.proto < '%s'",
		     test_fixture("profile.proto"), path) < 0)
		return -ENOMEM;
	argv[0] = "/bin/sh";
	argv[1] = "-c";
	argv[2] = cmd;
	argv[3] = NULL;
	ret = run_program(argv, NULL, r);
	free(cmd);
	return ret;
}

uint64_t protoc_value_total(const char *text, size_t index, size_t *samples)
{
	const char *p = text;
	uint64_t sum = 0;

	*samples = 0;
	while ((p = strstr(p, "\nsample {\n"))) {
		const char *end = strstr(p + 1, "\n}"), *v = p;
		size_t i;

		(*samples)++;
		for (i = 0; i <= index && v; i++)
			v = strstr(v + 1, "  value: ");
		if (!v || (end && v > end))
			return 0;
		sum += strtoull(v + 9, NULL, 10);
		p = v;
	}
	return sum;
}

int callgrind_annotate(const char *path, struct run_result *r)
{
	char *argv[] = { "/usr/bin/callgrind_annotate", (char *)path, NULL };

	return run_program(argv, NULL, r);
}

uint64_t callgrind_program_total(const char *out)
{
	const char *tot = strstr(out, "PROGRAM TOTALS");
	uint64_t v = 0;

	if (!tot)
		return 0;
	while (tot > out && tot[-1] != '\n')
		tot--;
	for (; *tot && *tot != ' ' && *tot != '('; tot++)
		if (*tot >= '0' && *tot <= '9')
			v = v * 10 + (uint64_t)(*tot - '0');
	return v;
}

char *listing(const char *dir)
{
	struct dirent **names;
	char *out = calloc(1, 1), *more;
	int n = scandir(dir, &names, NULL, alphasort), i;

	for (i = 0; i < n; i++) {
		if (out && names[i]->d_name[0] != '.' &&
		    asprintf(&more, "%s%s%s", out, *out ? " " : "", names[i]->d_name) > 0) {
			free(out);
			out = more;
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return out;
}
