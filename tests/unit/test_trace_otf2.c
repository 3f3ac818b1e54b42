// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ktau-export -f otf2: a synthetic trace written as an OTF2 archive and
 * read back by the real reader, otf2-print (Debian's otf2-tools), whose
 * text is parsed here. Built with -DKTAU_HAVE_OTF2 when tools/otf2.mk
 * found libotf2, as ktau-export's writer is; without it the tests check
 * ktau-export's message and skip the round trip.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "testutil.h"
#include "trace_gen.h"

/*
 * Two processes, tsc_khz 1000:
 *   app (pid 100), tid 100: user main [10,70] > read [20,50] > page_fault
 *     [30,35];
 *   app's thread "worker", tid 101: an EXIT of read at 40 without its
 *     ENTRY (read [6,40] begin_unknown, from its TASK), irq [60,62];
 *   db (pid 300), tid 300 on CPU 1: read [25,45] > schedule_vol [27,33],
 *     NET_RX from 80 never left (end_unknown, ends at its CONTEXT, 90).
 * Lost: 3 on CPU 0, 2 user.
 */
struct otf2_event {
	unsigned int type;
	uint64_t tsc;
	uint32_t tid, data;
};

/* A kernel chunk of cpu: first the TASK events of tasks[] (tid, pid,
 * comm), at tsc 5, 6, ...; then events. */
static void otf2_chunk(struct tgen *g, unsigned int cpu, uint32_t lost,
		       const struct otf2_event *tasks, const char *const *comms, size_t ntasks,
		       const struct otf2_event *ev, size_t n)
{
	size_t i;

	tg_chunk(g, TG_KERNEL, cpu, 0, (uint32_t)(2 * ntasks + n), lost);
	for (i = 0; i < ntasks; i++) {
		tg_event(g, TG_TASK, tasks[i].tsc, tasks[i].tid, tasks[i].data);
		tg_comm(g, comms[i]);
	}
	for (i = 0; i < n; i++)
		tg_event(g, ev[i].type, ev[i].tsc, ev[i].tid, ev[i].data);
}

static int otf2_sample(const char *path)
{
	static const struct otf2_event tasks0[] = {
		{ TG_TASK, 5, 100, 100 }, { TG_TASK, 6, 101, 100 },
	}, cpu0[] = {
		{ TG_ENTRY, 20, 100, 0 }, { TG_ENTRY, 30, 100, 470 }, { TG_EXIT, 35, 100, 470 },
		{ TG_EXIT, 40, 101, 0 }, { TG_EXIT, 50, 100, 0 },
		{ TG_ENTRY, 60, 101, 300 }, { TG_EXIT, 62, 101, 300 },
	}, tasks1[] = {
		{ TG_TASK, 7, 300, 300 },
	}, cpu1[] = {
		{ TG_ENTRY, 25, 300, 0 }, { TG_ENTRY, 27, 300, 471 }, { TG_EXIT, 33, 300, 471 },
		{ TG_EXIT, 45, 300, 0 }, { TG_ENTRY, 80, 300, 301 }, { TG_CONTEXT, 90, 300, 1 },
	};
	static const char *const comms0[] = { "app", "worker" }, *const comms1[] = { "db" };
	struct tgen g = { 0 };
	int ret;

	tg_header(&g, 1, 16, 2, 1000);
	otf2_chunk(&g, 0, 3, tasks0, comms0, 2, cpu0, sizeof(cpu0) / sizeof(cpu0[0]));
	otf2_chunk(&g, 1, 0, tasks1, comms1, 1, cpu1, sizeof(cpu1) / sizeof(cpu1[0]));
	tg_names(&g, 0, 0, TG_SAMPLE_FUNCTIONS);
	tg_chunk(&g, TG_USER, 0xffff, 1, 2, 2);
	tg_event(&g, TG_ENTRY, 10, 100, 1);
	tg_event(&g, TG_EXIT, 70, 100, 1);
	tg_names(&g, 1, 1, "1 main\n");
	ret = tg_write(&g, path);
	tg_free(&g);
	return ret;
}

/* A temporary directory holding the sample trace as t.ktt. */
struct otf2_case {
	char *root;
	char trace[4200], dir[4200];
};

static int otf2_case_init(struct otf2_case *c)
{
	c->root = make_tmpdir();
	if (!c->root)
		return -1;
	snprintf(c->trace, sizeof(c->trace), "%s/t.ktt", c->root);
	snprintf(c->dir, sizeof(c->dir), "%s/archive", c->root);
	return otf2_sample(c->trace);
}

/* ktau-export -f otf2 TRACE -o DIR (no -o when dir is NULL); as run_tool(). */
static int export_otf2(const char *trace, const char *dir, struct run_result *r)
{
	if (!dir)
		return run_tool("KTAU_EXPORT", NULL, r, "-f", "otf2", trace, (char *)NULL);
	return run_tool("KTAU_EXPORT", NULL, r, "-f", "otf2", trace, "-o", dir, (char *)NULL);
}

static void otf2_case_free(struct otf2_case *c)
{
	if (c->root)
		remove_tree(c->root);
	free(c->root);
}

#ifdef KTAU_HAVE_OTF2

/* ktau-export -f otf2 c's trace into c's directory, with success and no
 * message; the anchor file's path into anchor. 0 or -1. */
static int otf2_export_ok(const struct otf2_case *c, char *anchor, size_t size)
{
	struct run_result r;
	int ok;

	if (export_otf2(c->trace, c->dir, &r))
		return -1;
	ok = r.status == 0 && !strcmp(r.err, "");
	if (!ok)
		fprintf(stderr, "ktau-export: status %d: %s\n", r.status, r.err);
	run_result_free(&r);
	snprintf(anchor, size, "%s/traces.otf2", c->dir);
	return ok ? 0 : -1;
}

/* What otf2-print says of one location's events. */
struct otf2_location {
	unsigned int enter, leave;
	uint64_t last;
	int out_of_order;	/* a stamp before the previous one */
	int unnested;		/* a LEAVE of another region than the innermost */
	char stack[8][32];	/* the open regions */
	unsigned int depth;
	char seq[512];		/* "+main +read -read ...", for one check */
};

/* Parses otf2-print's event lines ("ENTER  LOC  TIME  Region: "NAME" <ID>")
 * into loc[]; the number of lines parsed, or -1 for a line it cannot. */
static int otf2_events(const char *text, struct otf2_location *loc, size_t nloc)
{
	const char *line;
	int n = 0;

	for (line = text; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		char event[16], name[32];
		unsigned int l;
		uint64_t ts;
		struct otf2_location *o;

		if (strncmp(line, "ENTER ", 6) && strncmp(line, "LEAVE ", 6))
			continue;
		if (sscanf(line, "%15s %u %" SCNu64 " Region: \"%31[^\"]\"", event, &l, &ts,
			   name) != 4 || l >= nloc)
			return -1;
		o = &loc[l];
		o->out_of_order |= ts < o->last;
		o->last = ts;
		snprintf(o->seq + strlen(o->seq), sizeof(o->seq) - strlen(o->seq), "%s%c%s",
			 o->seq[0] ? " " : "", event[0] == 'E' ? '+' : '-', name);
		if (event[0] == 'E') {
			o->enter++;
			if (o->depth < 8)
				snprintf(o->stack[o->depth], sizeof(o->stack[0]), "%s", name);
			o->depth++;
		} else {
			o->leave++;
			o->unnested |= !o->depth || strcmp(o->stack[--o->depth], name);
		}
		n++;
	}
	return n;
}

TEST(export_otf2_read_back_by_otf2_print)
{
	struct otf2_location loc[3];
	struct otf2_case c;
	struct run_result r;
	char anchor[4300], line[256];
	char *argv[] = { "/usr/bin/otf2-print", "-G", anchor, NULL };
	size_t i;

	if (!have_program("otf2-print"))
		SKIP("otf2-print is not installed (Debian package otf2-tools)");
	ASSERT_EQ(0, otf2_case_init(&c));
	ASSERT_EQ(0, otf2_export_ok(&c, anchor, sizeof(anchor)));

	/* the definitions */
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_NOT_NULL(line_starting(r.out, "CLOCK_PROPERTIES Ticks per Seconds: 1000000, "
				      "Global Offset: 5, Length: 85,", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "SYSTEM_TREE_NODE 0 Name: \"node\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION_GROUP 0 Name: \"app (pid 100)\" <1>, "
				      "Type: PROCESS", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION_GROUP 1 Name: \"db (pid 300)\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION 0 Name: \"app (tid 100)\" <3>, Type: "
				      "CPU_THREAD, # Events: 6, Group: \"app (pid 100)\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION 1 Name: \"worker (tid 101)\" <4>, Type: "
				      "CPU_THREAD, # Events: 4, Group: \"app (pid 100)\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION 2 Name: \"db (tid 300)\" <5>, Type: "
				      "CPU_THREAD, # Events: 6, Group: \"db (pid 300)\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 0 Name: \"main\"", line, sizeof(line)));
	ASSERT_CONTAINS(line, "Descr.: \"user\" <8>, Role: FUNCTION, Paradigm: USER");
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 1 Name: \"read\"", line, sizeof(line)));
	ASSERT_CONTAINS(line, "Descr.: \"kernel syscall\"");
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 2 Name: \"page_fault\"", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 3 Name: \"irq\"", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 4 Name: \"schedule_vol\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "REGION 5 Name: \"NET_RX\"", line, sizeof(line)));
	ASSERT_NULL(line_starting(r.out, "REGION 6 ", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "GROUP 1 Name: \"kernel syscall\"", line,
				      sizeof(line)));
	ASSERT_CONTAINS(line, "Type: REGIONS");
	ASSERT_CONTAINS(line, "1 Member: \"read\" <1>");
	run_result_free(&r);

	/* the events, per location: counts, order, nesting */
	argv[1] = anchor;
	argv[2] = NULL;
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	memset(loc, 0, sizeof(loc));
	ASSERT_EQ(16, otf2_events(r.out, loc, 3));
	run_result_free(&r);
	ASSERT_EQ(3, loc[0].enter);
	ASSERT_EQ(3, loc[0].leave);
	ASSERT_EQ(2, loc[1].enter);
	ASSERT_EQ(2, loc[1].leave);
	ASSERT_EQ(3, loc[2].enter);
	ASSERT_EQ(3, loc[2].leave);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, loc[i].out_of_order);
		ASSERT_EQ(0, loc[i].unnested);
		ASSERT_EQ(0, loc[i].depth);
	}
	ASSERT_STREQ("+main +read +page_fault -page_fault -read -main", loc[0].seq);
	/* the unmatched EXIT: read from the thread's first event (its TASK) */
	ASSERT_STREQ("+read -read +irq -irq", loc[1].seq);
	ASSERT_EQ_U64(62, loc[1].last);
	/* NET_RX never left: it ends at the thread's last event */
	ASSERT_STREQ("+read +schedule_vol -schedule_vol -read +NET_RX -NET_RX", loc[2].seq);
	ASSERT_EQ_U64(90, loc[2].last);
	otf2_case_free(&c);
}

/* otf2-print's event lines (ENTER, LEAVE, METRIC) with blanks squeezed,
 * one per line, into buf. */
static void otf2_event_lines(const char *text, char *buf, size_t size)
{
	const char *p;
	size_t n = 0;
	int blank = 0, keep = 0, bol = 1;

	for (p = text; *p && n + 1 < size; p++) {
		if (bol)
			keep = !strncmp(p, "ENTER ", 6) || !strncmp(p, "LEAVE ", 6) ||
			       !strncmp(p, "METRIC ", 7);
		bol = *p == '\n';
		if (!keep)
			continue;
		if (*p == ' ') {
			blank = 1;
			continue;
		}
		if (blank && *p != '\n')
			buf[n++] = ' ';
		blank = 0;
		if (n + 1 < size)
			buf[n++] = *p;
	}
	buf[n] = '\0';
}

TEST(export_otf2_atomic_events_as_metrics)
{
	struct otf2_case c;
	struct run_result r;
	struct tgen g = { 0 };
	char anchor[4300], line[512], events[2048];
	char *argv[] = { "/usr/bin/otf2-print", "-G", anchor, NULL };

	if (!have_program("otf2-print"))
		SKIP("otf2-print is not installed (Debian package otf2-tools)");
	ASSERT_EQ(0, otf2_case_init(&c));
	tg_sample_atomic(&g);
	ASSERT_EQ(0, tg_write(&g, c.trace));
	tg_free(&g);
	ASSERT_EQ(0, otf2_export_ok(&c, anchor, sizeof(anchor)));

	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	/* the metric events count among a location's events */
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION 0 Name: \"app (tid 100)\" <3>, Type: "
				      "CPU_THREAD, # Events: 9,", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "LOCATION 1 Name: \"tid 200\" <4>, Type: "
				      "CPU_THREAD, # Events: 1,", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "METRIC_MEMBER 0 Name: \"read_bytes\"", line,
				      sizeof(line)));
	ASSERT_CONTAINS(line, "Descr.: \"kernel event\"");
	ASSERT_CONTAINS(line, "Type: OTHER, Mode: ABSOLUTE_POINT, Value Type: UINT64, Base: "
			"DECIMAL, Exponent: 0, Unit: \"\"");
	ASSERT_NOT_NULL(line_starting(r.out, "METRIC_CLASS 0 Occurrence: ASYNCHRONOUS, Kind: CPU, "
				      "1 Member: \"read_bytes\" <0>", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "METRIC_MEMBER 1 Name: \"write_bytes\"", line,
				      sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "METRIC_CLASS 1 Occurrence: ASYNCHRONOUS, Kind: CPU, "
				      "1 Member: \"write_bytes\" <1>", line, sizeof(line)));
	ASSERT_NOT_NULL(line_starting(r.out, "METRIC_MEMBER 2 Name: \"fid_999\"", line,
				      sizeof(line)));
	ASSERT_CONTAINS(line, "Descr.: \"kernel unknown\"");
	ASSERT_NULL(line_starting(r.out, "METRIC_MEMBER 3 ", line, sizeof(line)));
	run_result_free(&r);

	/* the events: each metric inside the slices open at its stamp */
	argv[1] = anchor;
	argv[2] = NULL;
	ASSERT_EQ(0, run_program(argv, NULL, &r));
	ASSERT_EQ(0, r.status);
	otf2_event_lines(r.out, events, sizeof(events));
	run_result_free(&r);
	ASSERT_STREQ("ENTER 0 20 Region: \"read\" <0>\n"
		     "METRIC 0 25 Metric: 0, 1 Value: (\"read_bytes\" <0>; UINT64; 4096)\n"
		     "METRIC 0 30 Metric: 0, 1 Value: (\"read_bytes\" <0>; UINT64; 100)\n"
		     "LEAVE 0 30 Region: \"read\" <0>\n"
		     "ENTER 0 40 Region: \"write\" <1>\n"
		     "METRIC 0 40 Metric: 1, 1 Value: (\"write_bytes\" <1>; UINT64; 512)\n"
		     "LEAVE 0 50 Region: \"write\" <1>\n"
		     "METRIC 0 60 Metric: 0, 1 Value: (\"read_bytes\" <0>; UINT64; 0)\n"
		     "METRIC 0 60 Metric: 0, 1 Value: (\"read_bytes\" <0>; UINT64; "
		     "18446744073709551615)\n"
		     "METRIC 1 80 Metric: 2, 1 Value: (\"fid_999\" <2>; UINT64; 7)\n", events);
	otf2_case_free(&c);
}

TEST(export_otf2_errors)
{
	struct otf2_case c;
	struct run_result r;
	char bad[4300];

	ASSERT_EQ(0, otf2_case_init(&c));
	/* a directory is needed */
	ASSERT_EQ(0, export_otf2(c.trace, NULL, &r));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "give -o DIR");
	run_result_free(&r);
	/* an unwritable place (a directory under a regular file, even for root) */
	snprintf(bad, sizeof(bad), "%s/archive", c.trace);
	ASSERT_EQ(0, export_otf2(c.trace, bad, &r));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-export: cannot write ");
	ASSERT_CONTAINS(r.err, "Not a directory");
	run_result_free(&r);
	/* an archive is never overwritten */
	ASSERT_EQ(0, export_otf2(c.trace, c.dir, &r));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, export_otf2(c.trace, c.dir, &r));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "already holds an OTF2 archive");
	run_result_free(&r);
	otf2_case_free(&c);
}

#else

TEST(export_otf2_read_back_by_otf2_print)
{
	SKIP("ktau-export was built without libotf2 (Debian package libotf2-trace-dev)");
}

TEST(export_otf2_says_it_was_built_without_otf2)
{
	struct otf2_case c;
	struct run_result r;

	ASSERT_EQ(0, otf2_case_init(&c));
	ASSERT_EQ(0, export_otf2(c.trace, c.dir, &r));
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "built without OTF2 support");
	run_result_free(&r);
	otf2_case_free(&c);
}

#endif
