// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The exporters, read back by readers that are not ours where Debian has
 * them (callgrind_annotate, protoc --decode), and otherwise by an
 * independent minimal reader written here from DESIGN.md's description of
 * the TAU profile format.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "tau_reader.h"
#include "testutil.h"

/* system.ktau's blocks but the children, plus a hand-built thread with
 * awkward names, a three-deep callpath, events and XML-hostile metadata. */
static struct ktau_model *mixed_model(void)
{
	struct ktau_profile *p = load_profile(test_fixture("system.ktau"), NULL);
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	const char *path[] = { "main", "solve \"it\"  now", "sys_read()" };
	unsigned int n = 0;
	size_t i;
	int ret = 0;

	for (i = 0; p && m && i < ktau_profile_block_count(p); i++)
		if (ktau_block_kind(ktau_profile_block(p, i)) != KTAU_BLOCK_CHILDREN &&
		    !ktau_model_add_block(m, p, i, 0, 0, n++))
			ret = -1;
	ktau_profile_free(p);
	t = m ? ktau_model_add_thread(m, 0, 0, n, "user <&> \"thread\"") : NULL;
	if (!t || ret)
		goto fail;
	ret = ktau_model_add_routine(t, "main", "USER", 1, 1, 9000, 1000);
	ret = ret ?: ktau_model_add_routine(t, "solve \"it\" now", "USER", 1, 1, 8000, 3000);
	ret = ret ?: ktau_model_add_routine(t, "sys_read()", "TAU_KERNEL_MERGE | KTAU_SYSCALL",
					    5, 0, 5000, 5000);
	ret = ret ?: ktau_model_add_callpath(t, path, 2, 1, 1, 8000, 3000);
	ret = ret ?: ktau_model_add_callpath(t, path, 3, 5, 0, 5000, 5000);
	ret = ret ?: ktau_model_add_event(t, "bytes; read", 2, 1, 3, 4, 10);
	ret = ret ?: ktau_model_add_event(t, "never", 0, 0, 0, 0, 0);
	ret = ret ?: ktau_model_add_metadata(t, "cmd", "a < b && c > 'd'\nnext");
	if (!ret)
		return m;
fail:
	ktau_model_free(m);
	return NULL;
}

/* ---- an independent reader of TAU profile files (DESIGN.md) ---- */

struct tau_file {
	size_t functions, callpaths, events;
	double flat_excl_us;
	char names[64][512];	/* the flat names */
	size_t nr_names;
};

static bool has_flat(const struct tau_file *f, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < f->nr_names; i++)
		if (strlen(f->names[i]) == len && !strncmp(f->names[i], name, len))
			return true;
	return false;
}

/* Checks every callpath element has a flat entry; 0 or -1 (why in err). */
static int check_callpath(const struct tau_file *f, const char *name, char *err, size_t sz)
{
	const char *p = name;

	for (;;) {
		const char *sep = strstr(p, " => ");
		size_t len = sep ? (size_t)(sep - p) : strlen(p);

		if (!has_flat(f, p, len)) {
			snprintf(err, sz, "callpath element '%.*s' has no flat entry", (int)len, p);
			return -1;
		}
		if (!sep)
			return 0;
		p = sep + 4;
	}
}

/* Parses one profile.N.C.T text; 0 or -1 with the reason in err. */
static int read_tau(const char *text, struct tau_file *f, char *err, size_t sz)
{
	char *copy = strdup(text), *save = NULL, *line;
	char callpaths[64][512];
	size_t n = 0, i, m = 0;
	int ret = -1;

	memset(f, 0, sizeof(*f));
	line = strtok_r(copy, "\n", &save);
	if (!line || sscanf(line, "%zu templated_functions_MULTI_TIME", &n) != 1 ||
	    strcmp(strchr(line, ' '), " templated_functions_MULTI_TIME")) {
		snprintf(err, sz, "bad first line");
		goto out;
	}
	line = strtok_r(NULL, "\n", &save);
	if (!line || strncmp(line, "# Name Calls Subrs Excl Incl ProfileCalls # <metadata>", 54) ||
	    !strstr(line, "</metadata>")) {
		snprintf(err, sz, "bad header line");
		goto out;
	}
	for (const char *c = strstr(line, "<metadata>"); *c; c++) {
		if ((*c == '&' && !strchr(c, ';')) || (unsigned char)*c >= 0x80) {
			snprintf(err, sz, "unescaped metadata: %s", c);
			goto out;
		}
	}
	for (i = 0; i < n; i++) {
		char name[512], group[256];
		unsigned long long calls, subrs;
		double excl, incl;
		int pcalls, used = 0;
		const char *q;

		line = strtok_r(NULL, "\n", &save);
		q = line && line[0] == '"' ? strchr(line + 1, '"') : NULL;
		if (!q || (size_t)(q - line) > sizeof(name)) {
			snprintf(err, sz, "bad function line %zu", i);
			goto out;
		}
		snprintf(name, (size_t)(q - line), "%s", line + 1);
		if (sscanf(q + 1, " %llu %llu %lf %lf %d GROUP=\"%255[^\"]\"%n", &calls, &subrs,
			   &excl, &incl, &pcalls, group, &used) != 6 || q[1 + used] ||
		    pcalls || excl < 0 || incl < 0 || strstr(name, "  ")) {
			snprintf(err, sz, "bad function line: %s", line);
			goto out;
		}
		if (strstr(name, "=>")) {
			if (strncmp(group, "TAU_CALLPATH | ", 15) || m >= 64) {
				snprintf(err, sz, "callpath group: %s", line);
				goto out;
			}
			snprintf(callpaths[m++], sizeof(callpaths[0]), "%s", name);
			f->callpaths++;
		} else if (f->nr_names < 64) {
			snprintf(f->names[f->nr_names++], sizeof(f->names[0]), "%s", name);
			f->flat_excl_us += excl;
		}
		f->functions++;
	}
	line = strtok_r(NULL, "\n", &save);
	if (!line || strcmp(line, "0 aggregates")) {
		snprintf(err, sz, "no '0 aggregates' after %zu functions", n);
		goto out;
	}
	line = strtok_r(NULL, "\n", &save);
	if (line) {
		if (sscanf(line, "%zu userevents", &f->events) != 1 || !f->events) {
			snprintf(err, sz, "bad userevents line: %s", line);
			goto out;
		}
		line = strtok_r(NULL, "\n", &save);
		if (!line || strcmp(line, "# eventname numevents max min mean sumsqr"))
			goto out;
		for (i = 0; i < f->events; i++) {
			line = strtok_r(NULL, "\n", &save);
			if (!line || line[0] != '"' || !strchr(line + 1, '"') ||
			    strstr(line, "nan") || strstr(line, "inf"))
				goto out;
		}
		if (strtok_r(NULL, "\n", &save))
			goto out;
	}
	for (i = 0; i < m; i++)
		if (check_callpath(f, callpaths[i], err, sz))
			goto out;
	ret = 0;
out:
	free(copy);
	return ret;
}

static size_t count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

TEST(export_tau_directory_reads_back)
{
	struct ktau_model *m = mixed_model();
	char *dir = make_tmpdir(), *sub, *text, err[512] = "";
	struct tau_file f;
	double total_us = 0;
	size_t i;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&sub, "%s/prof", dir) > 0);
	ASSERT_EQ(0, ktau_model_write_tau(m, sub));
	ASSERT_EQ(6, count_entries(sub));	/* no temporary files left */
	for (i = 0; i < 6; i++) {
		char rel[64];

		snprintf(rel, sizeof(rel), "profile.0.0.%zu", i);
		text = read_rel(sub, rel);
		ASSERT_NOT_NULL(text);
		if (read_tau(text, &f, err, sizeof(err)))
			FAIL("%s: %s", rel, err);
		total_us += f.flat_excl_us;
		if (i == 1) {
			ASSERT_EQ(4, f.functions);
			ASSERT_EQ(1, f.callpaths);
			ASSERT_EQ(1, f.events);
			ASSERT_CONTAINS(text, "\"sys_write()\" 10 3 40 50 0 "
				       "GROUP=\"TAU_KERNEL_MERGE | KTAU_SYSCALL\"\n");
			ASSERT_CONTAINS(text, "\"read_bytes\" 2 300 5 152.5 90025\n");
		}
		if (i == 4) {	/* the empty exited block */
			ASSERT_STREQ("0 templated_functions_MULTI_TIME", strtok(text, "\n"));
			ASSERT_EQ(0, f.events);
		}
		if (i == 5) {
			ASSERT_EQ(5, f.functions);
			ASSERT_EQ(1, f.events);	/* "never" has no samples */
			ASSERT_CONTAINS(text, "\"main => solve 'it' now => sys_read()\" 5 0 5 5 0 "
				       "GROUP=\"TAU_CALLPATH | TAU_KERNEL_MERGE\"\n");
			ASSERT_CONTAINS(text, "<value>user &lt;&amp;&gt; &apos;thread&apos;</value>");
			ASSERT_CONTAINS(text, "<value>a &lt; b &amp;&amp; c &gt; &apos;d&apos; next</value>");
		}
		free(text);
	}
	ASSERT_NEAR((double)model_excl_total(m) / 1000.0, total_us, 1e-6);
	/* writing again replaces the files */
	ASSERT_EQ(0, ktau_model_write_tau(m, sub));
	ASSERT_EQ(6, count_entries(sub));
	remove_tree(dir);
	free(dir);
	free(sub);
	ktau_model_free(m);
}

/* Sums the last number of each "stack value" line. */
static uint64_t folded_total(const char *text, size_t *lines)
{
	uint64_t sum = 0;
	const char *p;

	*lines = 0;
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		const char *nl = strchr(p, '\n'), *sp = memrchr(p, ' ', (size_t)(nl - p));

		sum += strtoull(sp + 1, NULL, 10);
		(*lines)++;
	}
	return sum;
}

TEST(export_folded_stacks)
{
	struct ktau_model *m = mixed_model();
	char *text;
	size_t lines;

	ASSERT_NOT_NULL(m);
	text = model_text(m, KTAU_FORMAT_FOLDED, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "thread pid 500 tid 501 worker;sys_write();NET_RX() 10000\n");
	ASSERT_CONTAINS(text, "thread pid 500 tid 501 worker;sys_write() 40000\n");
	ASSERT_CONTAINS(text, "user <&> 'thread';main;solve 'it' now;sys_read() 5000\n");
	ASSERT_CONTAINS(text, "user <&> 'thread';main 1000\n");
	ASSERT_NOT_CONTAINS(text, " 0\n");
	ASSERT_EQ_U64(model_excl_total(m), folded_total(text, &lines));
	ASSERT_EQ(12, lines);
	free(text);
	ktau_model_free(m);
}

#define JSON_HEAD "{\"format\": \"ktau-model\", \"version\": 1, \"time_unit\": \"ns\",\n"

TEST(export_json)
{
	struct ktau_model *m = mixed_model();
	char *text = m ? model_text(m, KTAU_FORMAT_JSON, NULL) : NULL;

	ASSERT_NOT_NULL(text);
	ASSERT_TRUE(!strncmp(text, JSON_HEAD, strlen(JSON_HEAD)));
	ASSERT_CONTAINS(text, "{\"name\": \"sys_write()\", \"group\": \"TAU_KERNEL_MERGE | "
			"KTAU_SYSCALL\", \"calls\": 10, \"subrs\": 3, \"inclusive_ns\": 50000, "
			"\"exclusive_ns\": 40000}");
	ASSERT_CONTAINS(text, "{\"path\": [\"main\", \"solve 'it' now\", \"sys_read()\"], "
			"\"calls\": 5, \"subrs\": 0, \"inclusive_ns\": 5000, \"exclusive_ns\": 5000}");
	ASSERT_CONTAINS(text, "{\"name\": \"bytes; read\", \"count\": 2, \"min\": 1, \"max\": 3, "
			"\"sum\": 4, \"sumsq\": 10}");
	ASSERT_CONTAINS(text, "\"label\": \"user <&> 'thread'\"");
	ASSERT_NOT_CONTAINS(text, "never");
	ASSERT_CONTAINS(text, "]}\n");
	free(text);
	ktau_model_free(m);
}

/* The sum of callgrind self-cost lines (cost lines not right after calls=). */
static uint64_t callgrind_self_total(const char *text)
{
	uint64_t sum = 0;
	bool after_calls = false;
	const char *p;

	for (p = text; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, "0 ", 2) && !after_calls)
			sum += strtoull(p + 2, NULL, 10);
		after_calls = !strncmp(p, "calls=", 6);
	}
	return sum;
}

TEST(export_callgrind_read_by_callgrind_annotate)
{
	struct ktau_model *m = mixed_model();
	char *dir = make_tmpdir(), *path, *text;
	struct run_result r;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&path, "%s/callgrind.out", dir) > 0);
	ASSERT_EQ(0, ktau_model_write_callgrind(m, path));
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_TRUE(!strncmp(text, "# callgrind format\nversion: 1\ncreator: libktau ", 47));
	ASSERT_CONTAINS(text, "\nevents: ns\n");
	ASSERT_CONTAINS(text, "cfn=(4) NET_RX()\ncalls=3 0\n0 10000\n");
	ASSERT_EQ_U64(model_excl_total(m), callgrind_self_total(text));
	if (!have_program("callgrind_annotate")) {
		SKIP_PART("callgrind_annotate is not installed (Debian package valgrind)");
	} else {
		ASSERT_EQ(0, callgrind_annotate(path, &r));
		ASSERT_EQ(0, r.status);
		ASSERT_NOT_CONTAINS(r.err, "WARNING");
		ASSERT_EQ_U64(model_excl_total(m), callgrind_program_total(r.out));
		ASSERT_CONTAINS(r.out, "40,000 ");
		ASSERT_CONTAINS(r.out, "thread pid 500 tid 501 worker:sys_write()");
		run_result_free(&r);
	}
	free(text);
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

TEST(export_pprof_read_by_protoc)
{
	struct ktau_model *m = mixed_model();
	char *dir = make_tmpdir(), *path, *text;
	struct run_result r;
	size_t samples, len;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&path, "%s/profile.pb", dir) > 0);
	ASSERT_EQ(0, ktau_model_write_pprof(m, path));
	text = slurp(path, &len);
	ASSERT_NOT_NULL(text);
	/* field 1 (sample_type), length-delimited */
	ASSERT_EQ(0x0a, (unsigned char)text[0]);
	free(text);
	if (!have_program("protoc")) {
		SKIP_PART("protoc is not installed (Debian package protobuf-compiler)");
		goto out;
	}
	ASSERT_EQ(0, protoc_decode(path, &r));
	ASSERT_STREQ("", r.err);
	ASSERT_EQ(0, r.status);
	/* values: [calls, time, event count, event sum] */
	ASSERT_EQ_U64(model_excl_total(m), protoc_value_total(r.out, 1, &samples));
	/* 12 stacks, 3 events with samples (2 read_bytes, "bytes; read") */
	ASSERT_EQ(15, samples);
	ASSERT_CONTAINS(r.out, "string_table: \"\"\n");
	ASSERT_CONTAINS(r.out, "string_table: \"nanoseconds\"\n");
	ASSERT_CONTAINS(r.out, "string_table: \"solve \\'it\\' now\"\n");
	ASSERT_CONTAINS(r.out, "string_table: \"thread pid 500 tid 501 worker\"\n");
	ASSERT_CONTAINS(r.out, "period: 1\n");
	run_result_free(&r);
out:
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

TEST(export_writer_errors)
{
	struct ktau_model *m = mixed_model();
	char *dir = make_tmpdir(), *path;
	FILE *full = fopen("/dev/full", "w");

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&path, "%s/no/such/dir", dir) > 0);
	ASSERT_EQ(-ENOENT, ktau_model_write_tau(m, path));
	ASSERT_EQ(-ENOENT, ktau_model_write_pprof(m, path));
	ASSERT_EQ(-ENOENT, ktau_model_write_callgrind(m, path));
	ASSERT_EQ(-ENOENT, ktau_model_write_folded(m, path));
	ASSERT_EQ(-ENOENT, ktau_model_write_json(m, path));
	ASSERT_EQ(-EINVAL, ktau_model_write_json(m, ""));
	ASSERT_EQ(-EINVAL, ktau_model_write_json(NULL, dir));
	ASSERT_EQ(-EINVAL, ktau_model_write_tau(m, NULL));
	ASSERT_EQ(-EINVAL, ktau_model_write(m, (enum ktau_model_format)99, dir));
	ASSERT_EQ(-EINVAL, ktau_model_write_stream(m, KTAU_FORMAT_TAU, stdout));
	ASSERT_EQ(-EINVAL, ktau_model_write_stream(m, KTAU_FORMAT_JSON, NULL));
	/* a directory where the file should be: the rename fails */
	ASSERT_EQ(-EISDIR, ktau_model_write(m, KTAU_FORMAT_JSON, dir));
	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		ASSERT_EQ(-ENOSPC, ktau_model_write_stream(m, KTAU_FORMAT_FOLDED, full));
		fclose(full);
	}
	ASSERT_EQ(KTAU_FORMAT_CALLGRIND, ktau_model_format_from_name("callgrind"));
	ASSERT_EQ(-EINVAL, ktau_model_format_from_name("perf"));
	ASSERT_EQ(-EINVAL, ktau_model_format_from_name(NULL));
	ASSERT_STREQ("pprof", ktau_model_format_name(KTAU_FORMAT_PPROF));
	ASSERT_NULL(ktau_model_format_name((enum ktau_model_format)0));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(0, count_entries(dir));	/* nothing half-written left */
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

TEST(export_pprof_refuses_values_beyond_int64)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, NULL) : NULL;
	char *dir = make_tmpdir(), *path;

	ASSERT_NOT_NULL(t);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_model_add_routine(t, "a", NULL, 1, 0, UINT64_MAX, UINT64_MAX));
	ASSERT_TRUE(asprintf(&path, "%s/p.pb", dir) > 0);
	ASSERT_EQ(-EOVERFLOW, ktau_model_write_pprof(m, path));
	ASSERT_EQ(0, count_entries(dir));
	ktau_model_free(m);
	/* atomic events: a count, or a sum once rounded, beyond int64 */
	m = ktau_model_new();
	t = m ? ktau_model_add_thread(m, 0, 0, 0, NULL) : NULL;
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, ktau_model_add_event(t, "big", 1, 1, 1, 0x1p62, 1));
	ASSERT_EQ(0, ktau_model_add_event(t, "negative", 1, -1, -1, -0x1p63, 1));
	ASSERT_EQ(0, ktau_model_write_pprof(m, path));	/* the largest that fit */
	ASSERT_EQ(0, ktau_model_add_event(t, "big", 1, 1, 1, 0x1p62, 1));	/* sum 2^63 */
	ASSERT_EQ(-EOVERFLOW, ktau_model_write_pprof(m, path));
	ktau_model_free(m);
	m = ktau_model_new();
	t = m ? ktau_model_add_thread(m, 0, 0, 0, NULL) : NULL;
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, ktau_model_add_event(t, "many", (uint64_t)INT64_MAX + 1, 1, 1, 1, 1));
	ASSERT_EQ(-EOVERFLOW, ktau_model_write_pprof(m, path));
	ASSERT_EQ(1, count_entries(dir));	/* the file that was written; nothing else */
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

/* ---- the ktau-export tool ---- */

static char *export_path(void)
{
	const char *p = getenv("KTAU_EXPORT");

	return (char *)(p ? p : "ktau-export");
}

static int run_export(struct run_result *r, char *const env[], ...)
{
	char *argv[16] = { export_path() };
	size_t n = 1;
	va_list ap;

	va_start(ap, env);
	while (n < 15 && (argv[n] = va_arg(ap, char *)))
		n++;
	va_end(ap);
	argv[n] = NULL;
	return run_program(argv, env, r);
}

#define EXPORT(r, ...) run_export(r, NULL, __VA_ARGS__, (char *)NULL)

TEST(ktau_export_formats_from_a_file)
{
	char *dir = make_tmpdir(), *out, *text;
	struct run_result r;
	struct tau_file f;
	char err[256];

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, EXPORT(&r, "--format", "folded", test_fixture("doc-example.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_CONTAINS(r.out, "process pid 412 tid 412 getpid_test;sys_getpid() 79655\n");
	ASSERT_NOT_CONTAINS(r.out, "children");
	run_result_free(&r);
	ASSERT_TRUE(asprintf(&out, "%s/tau", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "tau", "-o", out, "--children", "--node", "3",
			    test_fixture("process-valid.ktau")));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	text = read_rel(out, "profile.3.0.0");
	ASSERT_NOT_NULL(text);
	if (read_tau(text, &f, err, sizeof(err)))
		FAIL("%s", err);
	ASSERT_CONTAINS(text, "\"sys_read() => page_fault()\" 2 0 2.931 2.931 0 "
			"GROUP=\"TAU_CALLPATH | TAU_KERNEL_MERGE\"\n");
	free(text);
	text = read_rel(out, "profile.3.0.1");	/* the children block */
	ASSERT_NOT_NULL(text);
	free(text);
	free(out);
	ASSERT_TRUE(asprintf(&out, "%s/p.json", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "--format=json", "--output", out, test_fixture("thread.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);
	text = slurp(out, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "\"label\": \"thread pid 500 tid 501 worker\"");
	free(text);
	free(out);
	remove_tree(dir);
	free(dir);
}

TEST(ktau_export_live_pid_from_fake_proc)
{
	char *dir = make_tmpdir(), *text = slurp(test_fixture("thread.ktau"), NULL);
	char *env[2] = { NULL, NULL };
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_NOT_NULL(text);
	ASSERT_EQ(0, make_tree_dir(dir, "ktau"));
	ASSERT_EQ(0, write_tree_file(dir, "500/task/501/ktau", text));
	ASSERT_TRUE(asprintf(&env[0], "KTAU_PROCFS=%s", dir) > 0);
	ASSERT_EQ(0, run_export(&r, env, "-f", "callgrind", "--pid", "500", "--tid", "501",
				(char *)NULL));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "fn=(1) sys_write()\n0 40000\n");
	run_result_free(&r);
	ASSERT_EQ(0, run_export(&r, env, "-f", "json", "--pid", "999", (char *)NULL));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-export: ");
	ASSERT_CONTAINS(r.err, "/proc/999/ktau");
	run_result_free(&r);
	free(env[0]);
	free(text);
	remove_tree(dir);
	free(dir);
}

TEST(ktau_export_usage_and_runtime_errors)
{
	char *dir = make_tmpdir(), *bad;
	struct run_result r;
	char doc[4096];

	ASSERT_NOT_NULL(dir);
	/* test_fixture() reuses its buffer */
	snprintf(doc, sizeof(doc), "%s", test_fixture("doc-example.ktau"));
	ASSERT_EQ(0, EXPORT(&r, "--help"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "Usage: ktau-export");
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-V"));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "ktau-export (ktau) ");
	run_result_free(&r);
#define USAGE_CASE(msg, ...)						\
	do {								\
		ASSERT_EQ(0, EXPORT(&r, __VA_ARGS__));			\
		ASSERT_EQ(2, r.status);					\
		ASSERT_CONTAINS(r.err, msg);				\
		ASSERT_CONTAINS(r.err, "Try 'ktau-export --help'");	\
		run_result_free(&r);					\
	} while (0)
	USAGE_CASE("missing --format", doc);
	USAGE_CASE("unknown format 'perf'", "-f", "perf", doc);
	USAGE_CASE("missing INPUT", "-f", "json");
	USAGE_CASE("not both", "-f", "json", "--pid", "1", doc);
	USAGE_CASE("invalid process id 'x'", "-f", "json", "--pid", "x");
	USAGE_CASE("invalid thread id '0'", "-f", "json", "--pid", "1", "-t", "0");
	USAGE_CASE("--tid needs --pid", "-f", "json", "-t", "1", doc);
	USAGE_CASE("invalid node number '-1'", "-f", "json", "--node", "-1", doc);
	USAGE_CASE("unexpected argument 'b'", "-f", "json", "a", "b");
	USAGE_CASE("unknown option '--nope'", "--nope");
	USAGE_CASE("needs an argument", "-f");
	/* runtime errors */
	ASSERT_EQ(0, EXPORT(&r, "-f", "json", "/nonexistent/x.ktau"));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-export: cannot read /nonexistent/x.ktau: ");
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "json", test_fixture("malformed.ktau")));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "malformed.ktau:6: ");
	run_result_free(&r);
	ASSERT_TRUE(asprintf(&bad, "%s/missing/out.pb", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "pprof", "-o", bad, doc));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-export: cannot write ");
	run_result_free(&r);
	ASSERT_EQ(0, write_tree_file(dir, "empty.ktau", "ktau-profile 1\ntsc_khz 1\n"
				     "scope system\nend\n"));
	free(bad);
	ASSERT_TRUE(asprintf(&bad, "%s/empty.ktau", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "folded", bad));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "has no profile data to export");
	run_result_free(&r);
	free(bad);
	remove_tree(dir);
	free(dir);
}

/* ---- kernel callpaths of profile version 2 ---- */

/* read => page_fault => irq, and a page fault straight from user mode;
 * 1 cycle = 1 ns. The path lines' excl add up to 1000. */
static const char three_deep[] =
	"ktau-profile 2\ntsc_khz 1000000\nscope thread\n"
	"task kind=thread pid=7 tid=7 comm=t dropped=0\n"
	"func 0 0 read syscall 2 1000 400\n"
	"func 0 470 page_fault exception 2 600 400\n"
	"func 0 469 irq irq 1 200 200\n"
	"path 0 0 read syscall 2 1000 400\n"
	"path 0 0,470 page_fault exception 1 500 300\n"
	"path 0 0,470,469 irq irq 1 200 200\n"
	"path 0 470 page_fault exception 1 100 100\n"
	"end\n";

static struct ktau_model *three_deep_model(void)
{
	struct ktau_profile *p = parse_str(three_deep, NULL);
	struct ktau_model *m = ktau_model_new();

	if (!p || !m || !ktau_model_add_block(m, p, 0, 0, 0, 0)) {
		ktau_model_free(m);
		m = NULL;
	}
	ktau_profile_free(p);
	return m;
}

TEST(export_v2_paths_as_full_stacks)
{
	struct ktau_model *m = three_deep_model();
	const struct ktau_model_thread *t;
	const struct ktau_model_callpath *c;
	char *text;
	size_t lines;

	ASSERT_NOT_NULL(m);
	t = ktau_model_thread(m, 0);
	ASSERT_EQ(2, ktau_model_callpath_count(t));
	c = ktau_model_callpath(t, 1);
	ASSERT_STREQ("sys_read() => page_fault() => irq()", c->name);
	ASSERT_EQ_U64(200, c->excl_ns);
	ASSERT_EQ_U64(1, ktau_model_find_routine(t, "page_fault()")->subrs);
	ASSERT_EQ_U64(1000, model_excl_total(m));

	text = model_text(m, KTAU_FORMAT_FOLDED, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "thread pid 7 tid 7 t;sys_read();page_fault();irq() 200\n");
	ASSERT_CONTAINS(text, "thread pid 7 tid 7 t;sys_read();page_fault() 300\n");
	ASSERT_CONTAINS(text, "thread pid 7 tid 7 t;sys_read() 400\n");
	ASSERT_CONTAINS(text, "thread pid 7 tid 7 t;page_fault() 100\n");
	ASSERT_NOT_CONTAINS(text, "t;page_fault();irq()");
	ASSERT_EQ_U64(1000, folded_total(text, &lines));
	ASSERT_EQ(4, lines);
	free(text);
	text = model_text(m, KTAU_FORMAT_CALLGRIND, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_EQ_U64(1000, callgrind_self_total(text));
	free(text);
	ktau_model_free(m);
}

/* What a TAU reader makes of the stacks: each callpath's exclusive time
 * under its path, and each flat routine's rest at the root. */
static double tau_stacks_excl(const struct tau_profile *tp)
{
	double total = 0;
	size_t i, j;

	for (i = 0; i < tp->nr_entries; i++) {
		const struct tau_entry *f = &tp->entries[i];
		double rest = f->excl;

		if (strstr(f->name, " => ")) {
			total += f->excl;
			continue;
		}
		for (j = 0; j < tp->nr_entries; j++) {
			const char *n = tp->entries[j].name;
			size_t len = strlen(n), flen = strlen(f->name);

			if (len > flen + 4 && !strcmp(n + len - flen, f->name) &&
			    !memcmp(n + len - flen - 4, " => ", 4))
				rest -= tp->entries[j].excl;
		}
		total += rest > 0 ? rest : 0;
	}
	return total;
}

TEST(export_v2_stacks_add_up_in_tau_and_pprof)
{
	struct ktau_model *m = three_deep_model();
	char *dir = make_tmpdir(), *path = NULL;
	struct tau_profile tp;
	struct run_result r;
	char err[256];
	size_t samples;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, ktau_model_write_tau(m, dir));
	ASSERT_EQ(0, tau_parse_file(dir, "profile.0.0.0", &tp, err, sizeof(err)));
	ASSERT_NOT_NULL(tau_find(&tp, "sys_read() => page_fault() => irq()"));
	ASSERT_NULL(tau_find(&tp, "page_fault() => irq()"));
	ASSERT_NEAR(0.2, tau_find(&tp, "sys_read() => page_fault() => irq()")->excl, 1e-9);
	ASSERT_NEAR(1.0, tau_stacks_excl(&tp), 1e-9);
	tau_free(&tp);

	ASSERT_TRUE(asprintf(&path, "%s/profile.pb", dir) > 0);
	ASSERT_EQ(0, ktau_model_write_pprof(m, path));
	if (have_program("protoc")) {
		ASSERT_EQ(0, protoc_decode(path, &r));
		ASSERT_EQ(0, r.status);
		ASSERT_EQ_U64(1000, protoc_value_total(r.out, 1, &samples));
		run_result_free(&r);
	} else {
		SKIP_PART("protoc is not installed (Debian package protobuf-compiler)");
	}
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}
