// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The SVG flame graph (-f svg): exact frames of a small known profile, the
 * frames of a real one against the folded stacks of the same model (widths
 * proportional to inclusive time, children within their parent),
 * well-formed XML read back by an independent reader (xmllint, Debian's
 * libxml2-utils), nothing outside the file, the empty profile, the errors;
 * and ktau-export -f svg, of a ktau profile and of a TAU directory (the
 * merged profile a program linked with libktau-prof writes, as in the demo).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "harness.h"
#include "testutil.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- reading the frames back ---- */

struct svg_frame {
	char kind[32];		/* the class after "f " */
	char title[1024];	/* unescaped */
	char name[512];		/* the title's first line */
	char label[512];	/* unescaped */
	long x100, y, w100;	/* x and width in 1/100 px */
	unsigned int rgb[3];	/* the fill */
	int parent;		/* index, -1 for the root */
};

enum { MAX_FRAMES = 256 };

/* Between after and the next `until` from *p, unescaped into out; moves *p
 * past until. -1 when absent. */
static int take(const char **p, const char *after, const char *until, char *out, size_t size)
{
	const char *s = strstr(*p, after), *e;
	size_t n = 0;

	if (!s)
		return -1;
	s += strlen(after);
	e = strstr(s, until);
	if (!e)
		return -1;
	while (s < e && n + 1 < size) {
		static const char *const ent[][2] = {
			{ "&lt;", "<" }, { "&gt;", ">" }, { "&amp;", "&" },
			{ "&quot;", "\"" }, { "&apos;", "'" },
		};
		size_t i;

		for (i = 0; i < 5 && strncmp(s, ent[i][0], strlen(ent[i][0])); i++)
			;
		if (i < 5) {
			out[n++] = ent[i][1][0];
			s += strlen(ent[i][0]);
		} else {
			out[n++] = *s++;
		}
	}
	out[n] = '\0';
	*p = e + strlen(until);
	return 0;
}

/* "410.07" as 41007. */
static long hundredths(const char *s)
{
	char *end;
	long whole = strtol(s, &end, 10);

	return *end == '.' ? whole * 100 + strtol(end + 1, NULL, 10) : -1;
}

/* Every <g class="f ..."> frame, with its parent by position (the frame one
 * row lower whose extent holds it); the count, or -1 when one is not as the
 * writer draws frames. */
static int read_frames(const char *svg, struct svg_frame *f, int max)
{
	const char *p = svg;
	int n = 0, i, j;

	while ((p = strstr(p, "<g class=\"f ")) && n < max) {
		char x[32], y[32], w[32], h[32], tx[32], rgb[32];

		p += 3;
		if (take(&p, "class=\"f ", "\"><title>", f[n].kind, sizeof(f[n].kind)) ||
		    take(&p, "", "</title><rect x=\"", f[n].title, sizeof(f[n].title)) ||
		    take(&p, "", "\" y=\"", x, sizeof(x)) || take(&p, "", "\" width=\"", y, sizeof(y)) ||
		    take(&p, "", "\" height=\"", w, sizeof(w)) ||
		    take(&p, "", "\" fill=\"rgb(", h, sizeof(h)) || strcmp(h, "15") ||
		    take(&p, "", ")\"/><text x=\"", rgb, sizeof(rgb)) ||
		    sscanf(rgb, "%u,%u,%u", &f[n].rgb[0], &f[n].rgb[1], &f[n].rgb[2]) != 3 ||
		    take(&p, "", "\" y=\"", tx, sizeof(tx)) ||
		    take(&p, "\">", "</text></g>\n", f[n].label, sizeof(f[n].label)))
			return -1;
		f[n].x100 = hundredths(x);
		f[n].w100 = hundredths(w);
		f[n].y = strtol(y, NULL, 10);
		if (f[n].x100 < 0 || f[n].w100 <= 0 || hundredths(tx) != f[n].x100 + 300)
			return -1;
		snprintf(f[n].name, sizeof(f[n].name), "%.*s", (int)strcspn(f[n].title, "\n"),
			 f[n].title);
		n++;
	}
	for (i = 0; i < n; i++) {
		f[i].parent = -1;
		for (j = 0; j < n; j++)
			if (f[j].y == f[i].y + 16 && f[j].x100 <= f[i].x100 &&
			    f[j].x100 + f[j].w100 >= f[i].x100 + f[i].w100)
				f[i].parent = j;
	}
	return n;
}

static const struct svg_frame *frame_named(const struct svg_frame *f, int n, const char *name)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(f[i].name, name))
			return &f[i];
	return NULL;
}

/* The inclusive nanoseconds of the title's third line, "1.234 µs inclusive". */
static uint64_t title_ns(const char *title)
{
	const char *l = strchr(title, '\n');
	unsigned long long us;
	unsigned int frac;

	l = l ? strchr(l + 1, '\n') : NULL;
	if (!l || sscanf(l + 1, "%llu.%3u \xc2\xb5s inclusive", &us, &frac) != 2)
		return UINT64_MAX;
	return us * 1000 + frac;
}

/* ---- the known profile ---- */

/*
 * One thread "t0", 1180 ns in all (the graph is 1180 px wide: 1 px per
 * ns), 2 GHz: main (80 ns of its own) calls a<b>&"c" (100), compute (400)
 * and io (100 of its own), which calls sys_write() (300) and that irq()
 * (200).
 */
static struct ktau_model *known_model(void)
{
	const char *io[] = { "main", "io", "sys_write()", "irq()" };
	const char *c[] = { "main", "compute" }, *h[] = { "main", "a<b>&\"c\"" };
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, "t0") : NULL;
	int ret;

	if (!t)
		goto fail;
	ret = ktau_model_add_metadata(t, "KTAU tsc_khz", "2000000");
	ret = ret ?: ktau_model_add_routine(t, "main", "TAU_DEFAULT", 1, 3, 1180, 80);
	ret = ret ?: ktau_model_add_routine(t, "sys_write()", "TAU_KERNEL_MERGE | KTAU_SYSCALL",
					    5, 1, 500, 300);
	ret = ret ?: ktau_model_add_routine(t, "irq()", "TAU_KERNEL_MERGE | KTAU_IRQ", 1, 0, 200, 200);
	ret = ret ?: ktau_model_add_callpath(t, h, 2, 1, 0, 100, 100);
	ret = ret ?: ktau_model_add_callpath(t, c, 2, 2, 0, 400, 400);
	ret = ret ?: ktau_model_add_callpath(t, io, 2, 1, 5, 600, 100);
	ret = ret ?: ktau_model_add_callpath(t, io, 3, 5, 1, 500, 300);
	ret = ret ?: ktau_model_add_callpath(t, io, 4, 1, 0, 200, 200);
	ret = ret ?: ktau_model_add_routine(t, "a<b>&\"c\"", NULL, 1, 0, 100, 100);
	ret = ret ?: ktau_model_add_routine(t, "compute", NULL, 2, 0, 400, 400);
	ret = ret ?: ktau_model_add_routine(t, "io", NULL, 1, 5, 600, 100);
	if (!ret)
		return m;
fail:
	ktau_model_free(m);
	return NULL;
}

TEST(export_svg_frames_of_a_known_profile)
{
	static const struct {
		const char *name, *kind, *label;
		long x100, y, w100;
	} want[] = {	/* rows from y 60 (irq) down to 140 (all) */
		{ "all", "all", "all", 1000, 140, 118000 },
		{ "t0", "thread", "t0", 1000, 124, 118000 },
		{ "main", "user", "main", 1000, 108, 118000 },
		{ "a<b>&'c'", "user", "a<b>&'c'", 1000, 92, 10000 },
		{ "compute", "user", "compute", 11000, 92, 40000 },
		{ "io", "user", "io", 51000, 92, 60000 },
		{ "sys_write()", "syscall", "sys_write()", 51000, 76, 50000 },
		{ "irq()", "irq", "irq()", 51000, 60, 20000 },
	};
	struct ktau_model *m = known_model();
	struct svg_frame f[MAX_FRAMES];
	const struct svg_frame *g;
	char *text;
	size_t i;

	ASSERT_NOT_NULL(m);
	text = model_text(m, KTAU_FORMAT_SVG, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_TRUE(!strncmp(text, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg ", 44));
	ASSERT_CONTAINS(text, " width=\"1200\" height=\"186\" viewBox=\"0 0 1200 186\"");
	ASSERT_CONTAINS(text, "<text id=\"title\" x=\"600\" y=\"24\">ktau flame graph: 1 thread, "
			"1.180 \xc2\xb5s</text>");
	ASSERT_EQ(8, read_frames(text, f, MAX_FRAMES));	/* one <g> and <rect> per frame */
	for (i = 0; i < ARRAY_SIZE(want); i++) {
		g = frame_named(f, 8, want[i].name);
		if (!g)
			FAIL("no frame %s", want[i].name);
		ASSERT_STREQ(want[i].kind, g->kind);
		ASSERT_STREQ(want[i].label, g->label);
		ASSERT_EQ(want[i].x100, g->x100);
		ASSERT_EQ(want[i].y, g->y);
		ASSERT_EQ(want[i].w100, g->w100);
	}
	g = frame_named(f, 8, "sys_write()");
	ASSERT_STREQ("sys_write()\nsystem call: 5 calls\n0.500 \xc2\xb5s inclusive "
		     "(\xe2\x89\x88 1000 cycles), 42.37 % of all", g->title);
	ASSERT_STREQ("io", f[g->parent].name);
	g = frame_named(f, 8, "all");
	ASSERT_STREQ("all\nevery thread: 1 thread\n1.180 \xc2\xb5s inclusive "
		     "(\xe2\x89\x88 2360 cycles), 100.00 % of all", g->title);
	ASSERT_EQ(-1, g->parent);
	g = frame_named(f, 8, "t0");
	ASSERT_STREQ("t0\nthread\n1.180 \xc2\xb5s inclusive (\xe2\x89\x88 2360 cycles), "
		     "100.00 % of all", g->title);
	/* calls are the stack's own: main's routine, compute's callpath */
	ASSERT_CONTAINS(frame_named(f, 8, "main")->title, "\nuser routine: 1 call\n");
	ASSERT_CONTAINS(frame_named(f, 8, "compute")->title, "\nuser routine: 2 calls\n");
	/* the hostile name is escaped in the file */
	ASSERT_CONTAINS(text, "<title>a&lt;b&gt;&amp;&apos;c&apos;\n");
	ASSERT_NOT_CONTAINS(text, "a<b");
	free(text);
	ktau_model_free(m);
}

/* A name too long for its frame is cut with "..", one under 3 characters
 * has no label. */
TEST(export_svg_labels_fit_their_frames)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, "t") : NULL;
	struct svg_frame f[MAX_FRAMES];
	char *text;
	int n;

	ASSERT_NOT_NULL(t);
	/* 1180 ns: 10 ns are 10 px, room for (1000 - 600) / 730 = 0 characters;
	 * 100 ns are 100 px: 12 characters */
	ASSERT_EQ(0, ktau_model_add_routine(t, "a_rather_long_routine_name", NULL, 1, 0, 100, 100));
	ASSERT_EQ(0, ktau_model_add_routine(t, "tiny", NULL, 1, 0, 10, 10));
	ASSERT_EQ(0, ktau_model_add_routine(t, "wide", NULL, 1, 0, 1070, 1070));
	text = model_text(m, KTAU_FORMAT_SVG, NULL);
	ASSERT_NOT_NULL(text);
	n = read_frames(text, f, MAX_FRAMES);
	ASSERT_EQ(5, n);
	ASSERT_STREQ("a_rather_l..", frame_named(f, n, "a_rather_long_routine_name")->label);
	ASSERT_STREQ("", frame_named(f, n, "tiny")->label);
	ASSERT_EQ(1000, frame_named(f, n, "tiny")->w100);
	ASSERT_STREQ("wide", frame_named(f, n, "wide")->label);
	free(text);
	ktau_model_free(m);
}

/* ---- a real profile against its folded stacks ---- */

/* The sum of the folded lines whose stack is path (frames joined by ';')
 * or starts with it. */
static uint64_t folded_sum(const char *folded, const char *path)
{
	size_t len = strlen(path);
	uint64_t sum = 0;
	const char *p;

	for (p = folded; *p; p = strchr(p, '\n') + 1) {
		const char *sp = memrchr(p, ' ', strcspn(p, "\n"));

		if (!strncmp(p, path, len) && (p[len] == ';' || p[len] == ' '))
			sum += strtoull(sp + 1, NULL, 10);
	}
	return sum;
}

/* The frames of f[i] from the thread up, joined by ';' as folded writes them. */
static void frame_path(const struct svg_frame *f, int i, char *out, size_t size)
{
	int chain[64], n = 0;
	size_t len = 0;

	for (; f[i].parent >= 0 && n < 64; i = f[i].parent)	/* not "all" */
		chain[n++] = i;
	out[0] = '\0';
	while (n-- > 0 && len < size)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? ";" : "",
					f[chain[n]].name);
}

/* The number of distinct prefixes of the folded stacks, label included. */
static size_t folded_prefixes(const char *folded)
{
	static char seen[512][512];
	size_t n = 0, i, len;
	const char *p;

	for (p = folded; *p; p = strchr(p, '\n') + 1) {
		size_t stack = (size_t)((const char *)memrchr(p, ' ', strcspn(p, "\n")) - p);

		for (len = 1; len <= stack; len++) {
			char pre[512];

			if (len < stack && p[len] != ';')
				continue;
			snprintf(pre, sizeof(pre), "%.*s", (int)len, p);
			for (i = 0; i < n && strcmp(seen[i], pre); i++)
				;
			if (i == n && n < 512)
				snprintf(seen[n++], sizeof(seen[0]), "%s", pre);
		}
	}
	return n;
}

/* Every block of a fixture, children too, as threads 0, 1, ... */
static struct ktau_model *fixture_model(const char *name)
{
	struct ktau_profile *p = load_profile(test_fixture(name), NULL);
	struct ktau_model *m = p ? ktau_model_new() : NULL;
	size_t i;

	for (i = 0; m && i < ktau_profile_block_count(p); i++)
		if (!ktau_model_add_block(m, p, i, 0, 0, (unsigned int)i)) {
			ktau_model_free(m);
			m = NULL;
		}
	ktau_profile_free(p);
	return m;
}

/* system.ktau (version 1: edges) and doc-example-v2.ktau (kernel paths up
 * to 3 deep): widths are inclusive time, each frame's value is the folded
 * stacks' sum under its path, and children fit in their parent. */
TEST(export_svg_widths_follow_the_folded_stacks)
{
	static const char *const fixtures[] = { "system.ktau", "doc-example-v2.ktau" };
	struct svg_frame f[MAX_FRAMES];
	char *svg, *folded, path[4096];
	uint64_t total, kids[MAX_FRAMES];
	struct ktau_model *m;
	size_t i;
	int n, j;

	for (i = 0; i < ARRAY_SIZE(fixtures); i++) {
		m = fixture_model(fixtures[i]);
		ASSERT_NOT_NULL(m);
		svg = model_text(m, KTAU_FORMAT_SVG, NULL);
		folded = model_text(m, KTAU_FORMAT_FOLDED, NULL);
		ASSERT_NOT_NULL(svg);
		ASSERT_NOT_NULL(folded);
		total = model_excl_total(m);
		n = read_frames(svg, f, MAX_FRAMES);
		ASSERT_TRUE(n > 5);
		ASSERT_EQ(folded_prefixes(folded) + 1, n);	/* and "all" */
		memset(kids, 0, sizeof(kids));
		for (j = 0; j < n; j++) {
			uint64_t ns = title_ns(f[j].title);
			/* the exact width, 1/100 px either way for its edges' rounding */
			long w = (long)((ns * 118000 + total / 2) / total);

			if (f[j].w100 < w - 1 || f[j].w100 > w + 1)
				FAIL("%s: %s: %" PRIu64 " ns, %ld/100 px wide, not %ld", fixtures[i],
				     f[j].name, ns, f[j].w100, w);
			if (f[j].parent < 0) {
				ASSERT_STREQ("all", f[j].name);
				ASSERT_EQ_U64(total, ns);
				continue;
			}
			kids[f[j].parent] += (uint64_t)f[j].w100;
			frame_path(f, j, path, sizeof(path));
			if (folded_sum(folded, path) != ns)
				FAIL("%s: %s: %" PRIu64 " ns, the folded stacks say %" PRIu64,
				     fixtures[i], path, ns, folded_sum(folded, path));
		}
		for (j = 0; j < n; j++)
			if (kids[j] > (uint64_t)f[j].w100)
				FAIL("%s: %s: children %" PRIu64 "/100 px in %ld", fixtures[i],
				     f[j].name, kids[j], f[j].w100);
		free(svg);
		free(folded);
		ktau_model_free(m);
	}
}

/* ---- XML and what the file refers to ---- */

/* Every "http" in text is the SVG namespace; no href, url() or import. */
static const char *outside_reference(const char *text)
{
	static const char ns[] = "http://www.w3.org/2000/svg\"";
	const char *p;

	for (p = text; (p = strstr(p, "http")); p++)
		if (strncmp(p, ns, strlen(ns)) || strncmp(p - 7, "xmlns=\"", 7))
			return p;
	if ((p = strstr(text, "href")) || (p = strstr(text, "url(")) ||
	    (p = strstr(text, "@import")) || (p = strstr(text, "<image")))
		return p;
	return NULL;
}

static int xmllint(char *const args[], struct run_result *r)
{
	char *argv[8] = { "/usr/bin/xmllint" };
	size_t i;

	for (i = 0; args[i] && i < 6; i++)
		argv[i + 1] = args[i];
	return run_program(argv, NULL, r);
}

TEST(export_svg_is_well_formed_and_self_contained)
{
	struct ktau_model *m = known_model();
	char *dir = make_tmpdir(), *path, *text;
	struct run_result r;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&path, "%s/k.svg", dir) > 0);
	ASSERT_EQ(0, ktau_model_write(m, KTAU_FORMAT_SVG, path));
	text = slurp(path, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_NULL(outside_reference(text));
	/* one inline script, its CDATA closed once */
	ASSERT_CONTAINS(text, "<script><![CDATA[\n");
	ASSERT_NULL(strstr(strstr(text, "<script") + 1, "<script"));
	ASSERT_NULL(strstr(strstr(text, "]]>") + 1, "]]>"));
	ASSERT_CONTAINS(text, "function zoom(z)");
	ASSERT_CONTAINS(text, "function search()");
	free(text);
	if (!have_program("xmllint")) {
		remove_tree(dir);
		free(dir);
		free(path);
		ktau_model_free(m);
		SKIP("xmllint is not installed (apt-get install libxml2-utils)");
	}
	ASSERT_EQ(0, xmllint((char *[]){ "--noout", path, NULL }, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	run_result_free(&r);
	/* an independent reader unescapes the name to what the model holds */
	ASSERT_EQ(0, xmllint((char *[]){ "--xpath", "string(//*[local-name()='rect']"
				 "[@width='100.00']/../*[local-name()='title'])", path, NULL }, &r));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("a<b>&'c'\nuser routine: 1 call\n0.100 \xc2\xb5s inclusive "
		     "(\xe2\x89\x88 200 cycles), 8.47 % of all\n", r.out);
	run_result_free(&r);
	ASSERT_EQ(0, xmllint((char *[]){ "--xpath", "string(//*[local-name()='rect']"
				 "[@width='100.00']/../*[local-name()='text'])", path, NULL }, &r));
	ASSERT_STREQ("a<b>&'c'\n", r.out);
	run_result_free(&r);
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

/* No threads, or threads without time: a valid picture that says so. */
TEST(export_svg_empty_profile)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t;
	char *dir = make_tmpdir(), *path, *text;
	struct run_result r;
	int round;

	ASSERT_NOT_NULL(m);
	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&path, "%s/e.svg", dir) > 0);
	for (round = 0; round < 2; round++) {
		ASSERT_EQ(0, ktau_model_write(m, KTAU_FORMAT_SVG, path));
		text = slurp(path, NULL);
		ASSERT_NOT_NULL(text);
		ASSERT_CONTAINS(text, ">No samples: the profile has no time to draw</text>");
		ASSERT_CONTAINS(text, " height=\"122\" ");
		ASSERT_NOT_CONTAINS(text, "<g class=\"f ");
		ASSERT_NOT_CONTAINS(text, "<g id=\"frames\">");
		ASSERT_CONTAINS(text, "ktau flame graph: ");
		ASSERT_TRUE(strstr(text, "</svg>\n") && !strcmp(strstr(text, "</svg>\n"), "</svg>\n"));
		free(text);
		if (have_program("xmllint")) {
			ASSERT_EQ(0, xmllint((char *[]){ "--noout", path, NULL }, &r));
			ASSERT_EQ(0, r.status);
			run_result_free(&r);
		}
		/* then a thread with routines but no time */
		t = ktau_model_add_thread(m, 0, 0, (unsigned int)round, NULL);
		ASSERT_NOT_NULL(t);
		ASSERT_EQ(0, ktau_model_add_routine(t, "idle", NULL, 3, 0, 0, 0));
	}
	remove_tree(dir);
	free(dir);
	free(path);
	ktau_model_free(m);
}

/* ---- colours: kernel frames by kind ---- */

TEST(export_svg_kernel_frames_by_kind)
{
	static const char *const groups[][2] = {
		{ "TAU_KERNEL_MERGE | KTAU_SYSCALL", "syscall" },
		{ "TAU_KERNEL_MERGE | KTAU_BH", "softirq" },
		{ "TAU_KERNEL_MERGE | KTAU_IRQ", "irq" },
		{ "TAU_KERNEL_MERGE | KTAU_EXCEPTION", "exception" },
		{ "TAU_KERNEL_MERGE | KTAU_SCHEDULE", "schedule" },
		{ "TAU_KERNEL_MERGE | KTAU_KERNEL", "kernel" },
		{ "KTAU_NEWGROUP", "kernel" },
		{ "TAU_KERNEL_MERGE", "kernel" },
		{ "kernel", "kernel" },
		{ "TAU_USER | APP", "user" },
		{ "KTAU", "user" },
		{ "kernelish", "user" },
	};
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, "t") : NULL;
	struct svg_frame f[MAX_FRAMES];
	char *text, name[32];
	size_t i;
	int n;

	ASSERT_NOT_NULL(t);
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		snprintf(name, sizeof(name), "r%zu", i);
		ASSERT_EQ(0, ktau_model_add_routine(t, name, groups[i][0], 1, 0, 100, 100));
	}
	text = model_text(m, KTAU_FORMAT_SVG, NULL);
	ASSERT_NOT_NULL(text);
	n = read_frames(text, f, MAX_FRAMES);
	ASSERT_EQ(ARRAY_SIZE(groups) + 2, n);
	for (i = 0; i < ARRAY_SIZE(groups); i++) {
		snprintf(name, sizeof(name), "r%zu", i);
		if (!frame_named(f, n, name) || strcmp(frame_named(f, n, name)->kind, groups[i][1]))
			FAIL("group %s: kind %s, not %s", groups[i][0],
			     frame_named(f, n, name) ? frame_named(f, n, name)->kind : "(none)",
			     groups[i][1]);
	}
	/* the legend names every kind */
	ASSERT_CONTAINS(text, ">user routine</text>");
	ASSERT_CONTAINS(text, ">system call</text>");
	ASSERT_CONTAINS(text, ">page fault, exception</text>");
	/* a kind keeps its hue: system calls blue, user routines red to yellow */
	for (i = 0; i < (size_t)n; i++) {
		const unsigned int *c = f[i].rgb;

		if (!strcmp(f[i].kind, "syscall") && !(c[2] > c[0] && c[2] > c[1]))
			FAIL("%s: not blue: %u,%u,%u", f[i].name, c[0], c[1], c[2]);
		if (!strcmp(f[i].kind, "user") && !(c[0] >= 205 && c[2] <= 55))
			FAIL("%s: not warm: %u,%u,%u", f[i].name, c[0], c[1], c[2]);
	}
	free(text);
	ktau_model_free(m);
}

/* ktau-stacks' models count samples: tooltips say samples, not time. */
TEST(export_svg_of_a_sample_model)
{
	static const char perf[] =
		"prog 10 1.0: 1 cycles:\n"
		"\tffffffff81000001 do_syscall_64+0x1 ([kernel.kallsyms])\n"
		"\t401000 main+0x10 (/usr/bin/prog)\n"
		"\n"
		"prog 10 1.1: 1 cycles:\n"
		"\t401000 main+0x10 (/usr/bin/prog)\n"
		"\n"
		"prog 10 1.2: 1 cycles:\n"
		"\t401000 main+0x10 (/usr/bin/prog)\n"
		"\n";
	struct ktau_model *m = stacks_model(perf, KTAU_STACKS_PERF, NULL);
	struct svg_frame f[MAX_FRAMES];
	const struct svg_frame *k;
	char *text;
	int n;

	ASSERT_NOT_NULL(m);
	text = model_text(m, KTAU_FORMAT_SVG, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_CONTAINS(text, "ktau flame graph: 1 thread, 3 samples</text>");
	ASSERT_NOT_CONTAINS(text, "\xc2\xb5s");
	n = read_frames(text, f, MAX_FRAMES);
	ASSERT_EQ(4, n);
	k = frame_named(f, n, "do_syscall_64");
	ASSERT_NOT_NULL(k);
	ASSERT_STREQ("kernel", k->kind);
	ASSERT_STREQ("do_syscall_64\nother kernel\n1 sample inclusive, 33.33 % of all", k->title);
	ASSERT_EQ(39333, k->w100);
	ASSERT_STREQ("user", frame_named(f, n, "main")->kind);
	ASSERT_STREQ("main\nuser routine\n3 samples inclusive, 100.00 % of all",
		     frame_named(f, n, "main")->title);
	free(text);
	ktau_model_free(m);
}

TEST(export_svg_errors)
{
	struct ktau_model *m = ktau_model_new();
	struct ktau_model_thread *t = m ? ktau_model_add_thread(m, 0, 0, 0, NULL) : NULL;
	char *dir = make_tmpdir(), *path;
	FILE *full = fopen("/dev/full", "w");

	ASSERT_NOT_NULL(t);
	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(KTAU_FORMAT_SVG, ktau_model_format_from_name("svg"));
	ASSERT_STREQ("svg", ktau_model_format_name(KTAU_FORMAT_SVG));
	ASSERT_TRUE(asprintf(&path, "%s/no/such/dir", dir) > 0);
	ASSERT_EQ(-ENOENT, ktau_model_write(m, KTAU_FORMAT_SVG, path));
	ASSERT_EQ(-EINVAL, ktau_model_write_stream(NULL, KTAU_FORMAT_SVG, stdout));
	if (full) {
		setvbuf(full, NULL, _IONBF, 0);
		ASSERT_EQ(-ENOSPC, ktau_model_write_stream(m, KTAU_FORMAT_SVG, full));
		fclose(full);
	}
	free(path);
	ASSERT_TRUE(asprintf(&path, "%s/big.svg", dir) > 0);
	/* widths are shares of a 64-bit total: a thread beyond it */
	ASSERT_EQ(0, ktau_model_add_routine(t, "a", NULL, 1, 0, UINT64_MAX, UINT64_MAX / 2 + 1));
	ASSERT_EQ(0, ktau_model_write(m, KTAU_FORMAT_SVG, path));
	ASSERT_EQ(0, ktau_model_add_routine(t, "b", NULL, 1, 0, UINT64_MAX, UINT64_MAX / 2 + 1));
	ASSERT_EQ(-EOVERFLOW, ktau_model_write(m, KTAU_FORMAT_SVG, path));
	ktau_model_free(m);
	/* and threads beyond it together */
	m = ktau_model_new();
	ASSERT_NOT_NULL(m);
	t = ktau_model_add_thread(m, 0, 0, 0, NULL);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, ktau_model_add_routine(t, "a", NULL, 1, 0, UINT64_MAX, UINT64_MAX / 2 + 1));
	t = ktau_model_add_thread(m, 0, 0, 1, NULL);
	ASSERT_NOT_NULL(t);
	ASSERT_EQ(0, ktau_model_add_routine(t, "a", NULL, 1, 0, UINT64_MAX, UINT64_MAX / 2 + 1));
	ASSERT_EQ(-EOVERFLOW, ktau_model_write(m, KTAU_FORMAT_SVG, path));
	free(path);
	path = listing(dir);
	ASSERT_STREQ("big.svg", path);	/* no temporary file left */
	free(path);
	remove_tree(dir);
	free(dir);
	ktau_model_free(m);
}

/* ---- ktau-export -f svg ---- */

#define EXPORT(r, ...) run_tool("KTAU_EXPORT", NULL, r, __VA_ARGS__, (char *)NULL)

TEST(ktau_export_svg)
{
	char *dir = make_tmpdir(), *svg, *text, *out;
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	ASSERT_TRUE(!strncmp(r.out, "<?xml ", 6));
	ASSERT_CONTAINS(r.out, "<title>thread pid 500 tid 501 worker\nthread\n");
	out = strdup(r.out);
	ASSERT_NOT_NULL(out);
	run_result_free(&r);
	/* -o: the same to a file */
	ASSERT_TRUE(asprintf(&svg, "%s/k.svg", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", "-o", svg, test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.out);
	run_result_free(&r);
	text = slurp(svg, NULL);
	ASSERT_NOT_NULL(text);
	ASSERT_STREQ(out, text);
	free(text);
	free(out);
	/* the usage error and the help name the format */
	ASSERT_EQ(0, EXPORT(&r, "-f", "png", svg));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "unknown format 'png' (tau, pprof, callgrind, folded, json, svg, ");
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "--help"));
	ASSERT_CONTAINS(r.out, "  svg        an interactive flame graph");
	run_result_free(&r);
	free(svg);
	remove_tree(dir);
	free(dir);
}

/* A thread with no records: the picture says so. */
TEST(ktau_export_svg_of_an_empty_thread)
{
	char *dir = make_tmpdir(), *path;
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, write_tree_file(dir, "empty.ktau", "ktau-profile 2\ntsc_khz 1000000\n"
				     "scope thread\ntask kind=thread pid=7 tid=7 comm=t dropped=0\n"
				     "end\n"));
	ASSERT_TRUE(asprintf(&path, "%s/empty.ktau", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", path));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "No samples");
	ASSERT_CONTAINS(r.out, "</svg>\n");
	run_result_free(&r);
	free(path);
	remove_tree(dir);
	free(dir);
}

TEST(ktau_export_svg_of_a_profile_and_of_its_tau_directory)
{
	char *dir = make_tmpdir(), *tau, *svg, *a, *b;
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	a = strdup(r.out);
	run_result_free(&r);
	ASSERT_NOT_NULL(a);
	/* the same profile through a TAU directory draws the same picture */
	ASSERT_TRUE(asprintf(&tau, "%s/tau", dir) > 0);
	ASSERT_TRUE(asprintf(&svg, "%s/k.svg", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "tau", "-o", tau, test_fixture("system.ktau")));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", "-o", svg, tau));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.out);
	ASSERT_STREQ("", r.err);
	run_result_free(&r);
	b = slurp(svg, NULL);
	ASSERT_NOT_NULL(b);
	ASSERT_STREQ(a, b);
	free(b);
	/* and the other formats too: folded */
	ASSERT_EQ(0, EXPORT(&r, "-f", "folded", test_fixture("system.ktau")));
	b = strdup(r.out);
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "folded", tau));
	ASSERT_STREQ(b, r.out);
	run_result_free(&r);
	free(b);
	free(a);
	free(svg);
	free(tau);
	remove_tree(dir);
	free(dir);
}

/* A merged profile as libktau-prof writes it: user callpaths with kernel
 * paths under them, the label in the metadata. */
static const char merged_profile[] =
	"5 templated_functions_MULTI_TIME\n"
	"# Name Calls Subrs Excl Incl ProfileCalls # <metadata><attribute><name>Thread Label"
	"</name><value>app pid 42 tid 42</value></attribute><attribute><name>KTAU tsc_khz"
	"</name><value>1000000</value></attribute></metadata>\n"
	"\"main\" 1 1 0.5 2 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"sys_read()\" 3 0 1.5 1.5 0 GROUP=\"TAU_KERNEL_MERGE | KTAU_SYSCALL\"\n"
	"\"main => sys_read()\" 3 0 1.5 1.5 0 GROUP=\"TAU_CALLPATH | TAU_KERNEL_MERGE\"\n"
	"\"a<b>&'c'\" 1 0 0 0 0 GROUP=\"TAU_DEFAULT\"\n"
	"\"main => a<b>&'c'\" 1 0 0 0 0 GROUP=\"TAU_CALLPATH | TAU_DEFAULT\"\n"
	"0 aggregates\n"
	"1 userevents\n"
	"# eventname numevents max min mean sumsqr\n"
	"\"read_bytes\" 2 300 100 200 100000\n";

TEST(ktau_export_svg_of_a_merged_profile)
{
	char *dir = make_tmpdir(), *tau;
	struct run_result r;

	ASSERT_NOT_NULL(dir);
	ASSERT_EQ(0, write_tree_file(dir, "tau/profile.0.0.0", merged_profile));
	ASSERT_TRUE(asprintf(&tau, "%s/tau", dir) > 0);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", tau));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "<g class=\"f syscall\"><title>sys_read()\nsystem call: 3 calls\n"
			"1.500 \xc2\xb5s inclusive (\xe2\x89\x88 1500 cycles), 75.00 % of all</title>"
			"<rect x=\"10.00\" y=\"60\" width=\"885.00\" ");
	ASSERT_CONTAINS(r.out, "<title>app pid 42 tid 42\nthread\n");
	ASSERT_NOT_CONTAINS(r.out, "a&lt;b");	/* no time, no frame */
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "json", tau));
	ASSERT_EQ(0, r.status);
	ASSERT_CONTAINS(r.out, "{\"name\": \"read_bytes\", \"count\": 2, \"min\": 100, "
			"\"max\": 300, \"sum\": 400, \"sumsq\": 100000}");
	ASSERT_CONTAINS(r.out, "\"label\": \"app pid 42 tid 42\"");
	ASSERT_NOT_CONTAINS(r.out, "Thread Label");
	run_result_free(&r);
	free(tau);
	remove_tree(dir);
	free(dir);
}

TEST(ktau_export_svg_tau_directory_errors)
{
	static const char head[] =
		"1 templated_functions_MULTI_TIME\n"
		"# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>\n";
	static const struct {
		const char *file;	/* after head, or whole when it starts with a digit */
		const char *message;
	} cases[] = {
		{ "\"x\" 1 0 1 1 0 GROUP=\"A\"\n0 aggregates\n", NULL },
		{ "\"main => => b\" 1 0 1 1 0 GROUP=\"A\"\n0 aggregates\n",
		  "/profile.0.0.0: function 'main => => b': Invalid argument" },
		{ "\"x\" 1 0 1e17 1e17 0 GROUP=\"A\"\n0 aggregates\n",
		  "/profile.0.0.0: function 'x': sum does not fit in 64 bits" },
		{ "\"x\" 1 0 1 1 0 GROUP=\"A\"\n", "profile.0.0.0:" },
		{ "\"x\" 1 0 1 1 0 GROUP=\"A\"\n0 aggregates\n1 userevents\n"
		  "# eventname numevents max min mean sumsqr\n\"ev\" 10000000000 1e300 1 1e300 1\n",
		  "/profile.0.0.0: event 'ev': Invalid argument" },	/* its sum is inf */
		{ "1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls # "
		  "<metadata><attribute><name> </name><value>v</value></attribute></metadata>\n"
		  "\"x\" 1 0 1 1 0 GROUP=\"A\"\n0 aggregates\n",
		  "/profile.0.0.0: metadata ' ': Invalid argument" },	/* a blank name */
		{ "1 templated_functions_MULTI_PAPI_TOT_CYC\n"
		  "# Name Calls Subrs Excl Incl ProfileCalls # <metadata></metadata>\n"
		  "\"x\" 1 0 1 1 0 GROUP=\"A\"\n0 aggregates\n",
		  ": metric PAPI_TOT_CYC: only TIME (microseconds) and SAMPLES profiles" },
	};
	char *dir = make_tmpdir(), *tau, text[1024];
	struct run_result r;
	size_t i;

	ASSERT_NOT_NULL(dir);
	ASSERT_TRUE(asprintf(&tau, "%s/tau", dir) > 0);
	ASSERT_EQ(0, make_tree_dir(dir, "tau"));
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", tau));	/* no profile in it */
	ASSERT_EQ(1, r.status);
	ASSERT_CONTAINS(r.err, "ktau-export: ");
	ASSERT_CONTAINS(r.err, "/tau: no TAU profile (profile.N.N.N) in it\n");
	run_result_free(&r);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(text, sizeof(text), "%s%s", cases[i].file[0] == '1' ? "" : head,
			 cases[i].file);
		ASSERT_EQ(0, write_tree_file(dir, "tau/profile.0.0.0", text));
		ASSERT_EQ(0, EXPORT(&r, "-f", "svg", tau));
		if (!cases[i].message) {
			ASSERT_EQ(0, r.status);
		} else {
			if (r.status != 1 || !strstr(r.err, cases[i].message))
				FAIL("case %zu: status %d, %s", i, r.status, r.err);
			ASSERT_STREQ("", r.out);
		}
		run_result_free(&r);
	}
	/* --children and --node are a ktau profile's */
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", "--node", "2", tau));
	ASSERT_EQ(2, r.status);
	ASSERT_CONTAINS(r.err, "--children and --node are for a ktau profile, not a TAU directory");
	ASSERT_CONTAINS(r.err, "Try 'ktau-export --help'");
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", "--children", tau));
	ASSERT_EQ(2, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "--help"));
	ASSERT_CONTAINS(r.out, "INPUT may also be a TAU profile directory");
	run_result_free(&r);
	free(tau);
	remove_tree(dir);
	free(dir);
}

/* What the demo does in the guest, on the host (no kernel merge here): a
 * program linked with libktau-prof writes its TAU directory, and
 * ktau-export -f svg DIR -o kernel.svg draws it. */
TEST(ktau_export_svg_as_the_demo_draws_a_program)
{
	const char *progs = getenv("USERPROF_PROGS"), *libdir = getenv("LIBKTAU_LIBDIR");
	char *dir = make_tmpdir(), prog[4200], env_dir[4300], env_lib[4300], out[4200], tau[4200];
	char *argv[] = { prog, NULL }, *env[] = { env_dir, env_lib, "KTAU_KERNEL_MERGE=0", NULL };
	struct svg_frame f[MAX_FRAMES];
	const struct svg_frame *work;
	struct run_result r;
	char *text;
	int n;

	ASSERT_NOT_NULL(dir);
	snprintf(prog, sizeof(prog), "%s/prog-instrumented", progs ? progs : ".");
	snprintf(tau, sizeof(tau), "%s/tau", dir);
	snprintf(out, sizeof(out), "%s/kernel.svg", dir);
	snprintf(env_dir, sizeof(env_dir), "KTAU_PROFILE_DIR=%s", tau);
	snprintf(env_lib, sizeof(env_lib), "LD_LIBRARY_PATH=%s", libdir ? libdir : "");
	ASSERT_EQ(0, run_program(argv, env, &r));
	ASSERT_EQ(0, r.status);
	run_result_free(&r);
	ASSERT_EQ(0, EXPORT(&r, "-f", "svg", tau, "-o", out));
	ASSERT_EQ(0, r.status);
	ASSERT_STREQ("", r.err);
	run_result_free(&r);
	text = slurp(out, NULL);
	ASSERT_NOT_NULL(text);
	n = read_frames(text, f, MAX_FRAMES);
	ASSERT_TRUE(n >= 6);
	ASSERT_STREQ("user", frame_named(f, n, "main")->kind);
	work = frame_named(f, n, "work");
	ASSERT_NOT_NULL(work);
	ASSERT_TRUE(work->parent >= 0);
	ASSERT_STREQ("main", f[work->parent].name);
	ASSERT_NOT_NULL(frame_named(f, n, "leaf"));
	ASSERT_NULL(outside_reference(text));
	free(text);
	if (have_program("xmllint")) {
		ASSERT_EQ(0, xmllint((char *[]){ "--noout", out, NULL }, &r));
		ASSERT_EQ(0, r.status);
		run_result_free(&r);
	}
	remove_tree(dir);
	free(dir);
}
