// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The model as an interactive flame graph, one self-contained SVG file in
 * the manner of Brendan Gregg's flamegraph.pl: inline style and script,
 * no reference outside the file but the SVG namespace.
 *
 * The frames are the stacks of ktau__model_stacks(), as in the folded
 * format: "all" at the bottom, each thread's label on it, then the stack,
 * root first. A frame's width is its inclusive value, the exclusive values
 * of the stacks through it, so children never outgrow their parent; its
 * own (exclusive) part is the gap right of its children. Frames are
 * placed on integer hundredths of a pixel, each edge rounded from the
 * value before it, so widths add up exactly; a frame narrower than 0.01 px
 * is left out. Siblings are in name order. A frame's tooltip (<title>) is
 * its name, its kind and calls, and its inclusive value with its share of
 * the whole. Kernel frames are coloured by their routine's group (system
 * call, softirq, irq, exception, schedule, other kernel), user routines
 * in warm colours; the legend says which is which.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "export/export.h"

/* The geometry, in pixels. */
enum {
	IMAGE_WIDTH = 1200,
	XPAD = 10,		/* left and right of the frames */
	FRAME_HEIGHT = 16,
	TOP = 60,		/* the title and the legend */
	BOTTOM = 30,		/* the details line */
	CHAR_WIDTH100 = 730,	/* a character of 12 px monospace, in 1/100 px */
	LABEL_PAD100 = 600,	/* room left and right of a frame's label */
};
#define SPAN100 ((uint64_t)(IMAGE_WIDTH - 2 * XPAD) * 100)

/* What a frame is, for its colour and its tooltip. */
enum frame_kind {
	KIND_ALL,
	KIND_THREAD,
	KIND_USER,
	KIND_SYSCALL,
	KIND_SOFTIRQ,
	KIND_IRQ,
	KIND_EXCEPTION,
	KIND_SCHEDULE,
	KIND_KERNEL,
	NR_KINDS
};

/* Colour = base + range * (a hash byte of the name) / 255, per channel. */
static const struct kind_info {
	const char *css;	/* the frame's class */
	const char *text;	/* in the tooltip and the legend */
	unsigned char base[3], range[3];
} kinds[NR_KINDS] = {
	[KIND_ALL] = { "all", "every thread", { 200, 200, 190 }, { 20, 20, 20 } },
	[KIND_THREAD] = { "thread", "thread", { 200, 200, 190 }, { 20, 20, 20 } },
	[KIND_USER] = { "user", "user routine", { 205, 0, 0 }, { 50, 230, 55 } },
	[KIND_SYSCALL] = { "syscall", "system call", { 80, 130, 220 }, { 40, 50, 35 } },
	[KIND_SOFTIRQ] = { "softirq", "softirq", { 70, 180, 70 }, { 40, 40, 40 } },
	[KIND_IRQ] = { "irq", "interrupt", { 40, 190, 190 }, { 30, 40, 40 } },
	[KIND_EXCEPTION] = { "exception", "page fault, exception", { 160, 110, 220 },
			     { 40, 40, 35 } },
	[KIND_SCHEDULE] = { "schedule", "schedule", { 150, 150, 160 }, { 30, 30, 30 } },
	[KIND_KERNEL] = { "kernel", "other kernel", { 150, 160, 50 }, { 30, 30, 30 } },
};

/* The kernel groups of ktau_model_add_block(), in the order they are
 * looked for; any other KTAU_ group, TAU_KERNEL_MERGE, or the group
 * "kernel" (ktau-stacks' kernel frames) is other kernel. */
static const struct {
	const char *group;
	enum frame_kind kind;
} kernel_groups[] = {
	{ "KTAU_SYSCALL", KIND_SYSCALL },
	{ "KTAU_BH", KIND_SOFTIRQ },
	{ "KTAU_IRQ", KIND_IRQ },
	{ "KTAU_EXCEPTION", KIND_EXCEPTION },
	{ "KTAU_SCHEDULE", KIND_SCHEDULE },
};

/* Whether `groups` ("A | B") has a group equal to g, or starting with g
 * when prefix. */
static bool has_group(const char *groups, const char *g, bool prefix)
{
	size_t len = strlen(g);

	while (*groups) {
		size_t n = strcspn(groups, " |");

		if (n >= len && !strncmp(groups, g, len) && (prefix || n == len))
			return true;
		groups += n;
		groups += strspn(groups, " |");
	}
	return false;
}

static enum frame_kind routine_kind(const struct ktau_model_thread *t, const char *name)
{
	const struct ktau_model_routine *r = ktau_model_find_routine(t, name);
	size_t i;

	if (!r)		/* every stack element is a routine; never reached */
		return KIND_USER;
	for (i = 0; i < KTAU_ARRAY_SIZE(kernel_groups); i++)
		if (has_group(r->group, kernel_groups[i].group, false))
			return kernel_groups[i].kind;
	if (has_group(r->group, "KTAU_", true) || has_group(r->group, "TAU_KERNEL_MERGE", false) ||
	    has_group(r->group, "kernel", false))
		return KIND_KERNEL;
	return KIND_USER;
}

/* ---- collecting the stacks ---- */

struct svg_stack {
	const char *const *path;	/* into the model */
	size_t depth;
	uint64_t calls, excl;
};

struct svg_thread {
	const struct ktau_model_thread *t;
	struct svg_stack *stacks;
	size_t nr, cap;
	size_t deepest;		/* of its stacks */
	uint64_t total;
	uint64_t tsc_khz;	/* "KTAU tsc_khz", 0 when unknown */
};

struct svg_graph {
	FILE *out;
	bool samples;		/* a sample model: counts, not nanoseconds */
	struct svg_thread *threads;
	size_t nr_threads;
	uint64_t total;
	size_t levels;		/* of frames that have a width: "all", thread, stack */
	uint64_t tsc_khz;	/* the threads' common tsc_khz, else 0 */
};

static int add_stack(void *arg, const char *const *path, size_t depth,
		     uint64_t calls, uint64_t excl)
{
	struct svg_thread *st = arg;

	if (!calls && !excl)
		return 0;
	if (__builtin_add_overflow(st->total, excl, &st->total))
		return -EOVERFLOW;
	if (ktau__grow((void **)&st->stacks, &st->cap, st->nr, sizeof(*st->stacks)))
		return -ENOMEM;
	st->stacks[st->nr++] = (struct svg_stack){ path, depth, calls, excl };
	if (depth > st->deepest)
		st->deepest = depth;
	return 0;
}

/* Element by element; a stack after those it is a prefix of, so that a
 * frame's own part comes right of its children. */
static int stack_order(const void *a, const void *b)
{
	const struct svg_stack *x = a, *y = b;
	size_t i, n = x->depth < y->depth ? x->depth : y->depth;

	for (i = 0; i < n; i++) {
		int c = strcmp(x->path[i], y->path[i]);

		if (c)
			return c;
	}
	return (x->depth < y->depth) - (x->depth > y->depth);
}

static uint64_t thread_tsc_khz(const struct ktau_model_thread *t)
{
	size_t i;

	for (i = 0; i < t->nr_meta; i++)
		if (!strcmp(t->meta[i].name, "KTAU tsc_khz"))
			return strtoull(t->meta[i].value, NULL, 10);
	return 0;
}

static int collect(struct svg_graph *g, const struct ktau_model *m)
{
	size_t i, j;
	int ret = 0;

	g->threads = calloc(m->nr_threads ? m->nr_threads : 1, sizeof(*g->threads));
	if (!g->threads)
		return -ENOMEM;
	g->nr_threads = m->nr_threads;
	g->samples = m->metric == KTAU_METRIC_SAMPLES;
	for (i = 0; i < m->nr_threads && !ret; i++) {
		struct svg_thread *st = &g->threads[i];

		st->t = m->threads[i];
		st->tsc_khz = g->samples ? 0 : thread_tsc_khz(st->t);
		ret = ktau__model_stacks(st->t, add_stack, st);
		if (!ret && __builtin_add_overflow(g->total, st->total, &g->total))
			ret = -EOVERFLOW;
		if (st->nr)
			qsort(st->stacks, st->nr, sizeof(*st->stacks), stack_order);
		for (j = 0; j < st->nr; j++)
			if (st->stacks[j].excl && st->stacks[j].depth + 2 > g->levels)
				g->levels = st->stacks[j].depth + 2;
		g->tsc_khz = !i || g->tsc_khz == st->tsc_khz ? st->tsc_khz : 0;
	}
	return ret;
}

static void graph_free(struct svg_graph *g)
{
	size_t i;

	for (i = 0; i < g->nr_threads; i++)
		free(g->threads[i].stacks);
	free(g->threads);
}

/* ---- drawing ---- */

/* 1/100 px from the left edge of the image to value v's place. */
static uint64_t edge100(const struct svg_graph *g, uint64_t v)
{
	return XPAD * 100 + (uint64_t)(((unsigned __int128)v * SPAN100 + g->total / 2) / g->total);
}

static void put_hundredths(FILE *out, uint64_t v)
{
	fprintf(out, "%" PRIu64 ".%02u", v / 100, (unsigned int)(v % 100));
}

/* v as a share of the whole, "12.34 %". */
static void put_share(FILE *out, const struct svg_graph *g, uint64_t v)
{
	put_hundredths(out, (uint64_t)(((unsigned __int128)v * 10000 + g->total / 2) / g->total));
	fputs(" %", out);
}

/* A value: "345.678 µs" or "17 samples". */
static void put_value(FILE *out, const struct svg_graph *g, uint64_t v)
{
	if (g->samples)
		fprintf(out, "%" PRIu64 " sample%s", v, v == 1 ? "" : "s");
	else
		fprintf(out, "%" PRIu64 ".%03u \xc2\xb5s", v / 1000, (unsigned int)(v % 1000));
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* kind's colour, varied by the bytes of h (a name's hash) */
static void put_colour(FILE *out, enum frame_kind kind, uint32_t h)
{
	const struct kind_info *k = &kinds[kind];
	unsigned int c[3];
	int i;

	for (i = 0; i < 3; i++)
		c[i] = k->base[i] + k->range[i] * ((h >> (8 * i)) & 0xff) / 255;
	fprintf(out, "rgb(%u,%u,%u)", c[0], c[1], c[2]);
}

/* The label a frame w100 wide has room for: the name, cut with ".." when
 * it is too long, nothing under 3 characters. Names are ASCII (the
 * model's normal form). */
static void put_label(FILE *out, const char *name, uint64_t w100)
{
	uint64_t fit = w100 > LABEL_PAD100 ? (w100 - LABEL_PAD100) / CHAR_WIDTH100 : 0;
	size_t len = strlen(name);

	if (fit < 3)
		return;
	if (len <= fit) {
		ktau__put_xml_n(out, name, len);
		return;
	}
	ktau__put_xml_n(out, name, (size_t)fit - 2);
	fputs("..", out);
}

/* One frame as it closes: level 0 is "all", 1 a thread. */
struct frame {
	const char *name;
	enum frame_kind kind;
	size_t level;
	uint64_t start, end;	/* values: where it begins and ends */
	uint64_t calls;
	bool has_calls;		/* a stack ends exactly here */
	uint64_t tsc_khz;
};

static void put_frame(const struct svg_graph *g, const struct frame *f)
{
	uint64_t x100 = edge100(g, f->start), w100 = edge100(g, f->end) - x100;
	FILE *out = g->out;
	unsigned int y;

	if (!w100)
		return;
	y = TOP + (unsigned int)(g->levels - 1 - f->level) * FRAME_HEIGHT;
	fprintf(out, "<g class=\"f %s\"><title>", kinds[f->kind].css);
	ktau__put_xml(out, f->name);
	fprintf(out, "\n%s", kinds[f->kind].text);
	if (f->kind == KIND_ALL)
		fprintf(out, ": %zu thread%s", g->nr_threads, g->nr_threads == 1 ? "" : "s");
	else if (f->has_calls && !g->samples)
		fprintf(out, ": %" PRIu64 " call%s", f->calls, f->calls == 1 ? "" : "s");
	fputc('\n', out);
	put_value(out, g, f->end - f->start);
	fputs(" inclusive", out);
	if (f->tsc_khz && !g->samples)	/* from ns, which were truncated from cycles */
		fprintf(out, " (\xe2\x89\x88 %" PRIu64 " cycles)",
			(uint64_t)((unsigned __int128)(f->end - f->start) * f->tsc_khz / 1000000));
	fputs(", ", out);
	put_share(out, g, f->end - f->start);
	fputs(" of all</title><rect x=\"", out);
	put_hundredths(out, x100);
	fprintf(out, "\" y=\"%u\" width=\"", y);
	put_hundredths(out, w100);
	fprintf(out, "\" height=\"%u\" fill=\"", FRAME_HEIGHT - 1);
	put_colour(out, f->kind, name_hash(f->name));
	fputs("\"/><text x=\"", out);
	put_hundredths(out, x100 + 300);
	fprintf(out, "\" y=\"%u\">", y + FRAME_HEIGHT - 4);
	put_label(out, f->name, w100);
	fputs("</text></g>\n", out);
}

/*
 * A thread's frames, from its sorted stacks: a frame opens where the
 * first stack through it starts and closes (is drawn) once the stacks
 * leave it; *pos is where the next stack starts. open[0] is the thread,
 * open[d + 1] the stacks' element d.
 */
static int put_thread(const struct svg_graph *g, const struct svg_thread *st, uint64_t *pos)
{
	struct frame *open = calloc(st->deepest + 1, sizeof(*open));
	size_t nr = 1, i, d;

	if (!open)
		return -ENOMEM;
	open[0] = (struct frame){ .name = st->t->label, .kind = KIND_THREAD, .level = 1,
				  .start = *pos, .tsc_khz = st->tsc_khz };
	for (i = 0; i < st->nr; i++) {
		const struct svg_stack *s = &st->stacks[i];

		for (d = 0; d < s->depth && d + 1 < nr && !strcmp(open[d + 1].name, s->path[d]); d++)
			;
		while (nr > d + 1) {	/* leave the frames this stack is not in */
			open[--nr].end = *pos;
			put_frame(g, &open[nr]);
		}
		for (; d < s->depth; d++)
			open[nr++] = (struct frame){ .name = s->path[d],
						     .kind = routine_kind(st->t, s->path[d]),
						     .level = d + 2, .start = *pos,
						     .tsc_khz = st->tsc_khz };
		open[nr - 1].calls += s->calls;
		open[nr - 1].has_calls = true;
		*pos += s->excl;
	}
	while (nr > 0) {
		open[--nr].end = *pos;
		put_frame(g, &open[nr]);
	}
	free(open);
	return 0;
}

static void put_legend(FILE *out)
{
	enum frame_kind k;
	unsigned int x = XPAD;

	fputs("<g id=\"legend\">", out);
	for (k = KIND_USER; k < NR_KINDS; k++) {
		fprintf(out, "<rect x=\"%u\" y=\"35\" width=\"12\" height=\"12\" fill=\"", x);
		put_colour(out, k, 0x808080);	/* the middle of its range */
		fprintf(out, "\"/><text x=\"%u\" y=\"45\">%s</text>", x + 16, kinds[k].text);
		x += 16 + 8 * (unsigned int)strlen(kinds[k].text) + 24;
	}
	fputs("</g>\n", out);
}

/* The script: zoom on click, search, details on hover. Small on purpose. */
static const char script[] =
	"\"use strict\";\n"
	"var frames = [], details, matched, unzoomButton, searchButton, searching = false;\n"
	"function init() {\n"
	"\tdetails = document.getElementById(\"details\");\n"
	"\tmatched = document.getElementById(\"matched\");\n"
	"\tunzoomButton = document.getElementById(\"unzoom\");\n"
	"\tsearchButton = document.getElementById(\"search\");\n"
	"\tvar groups = document.querySelectorAll(\"g.f\");\n"
	"\tfor (var i = 0; i < groups.length; i++) {\n"
	"\t\tvar g = groups[i], r = g.querySelector(\"rect\");\n"
	"\t\tg.x0 = +r.getAttribute(\"x\");\n"
	"\t\tg.w0 = +r.getAttribute(\"width\");\n"
	"\t\tg.y0 = +r.getAttribute(\"y\");\n"
	"\t\tg.info = g.querySelector(\"title\").textContent.split(\"\\n\");\n"
	"\t\tg.addEventListener(\"click\", function (e) { zoom(e.currentTarget); });\n"
	"\t\tg.addEventListener(\"mouseover\", function (e) {\n"
	"\t\t\tdetails.textContent = e.currentTarget.info.join(\"  |  \");\n"
	"\t\t});\n"
	"\t\tg.addEventListener(\"mouseout\", function () { details.textContent = \" \"; });\n"
	"\t\tframes.push(g);\n"
	"\t}\n"
	"\tunzoomButton.addEventListener(\"click\", unzoom);\n"
	"\tsearchButton.addEventListener(\"click\", search);\n"
	"\twindow.addEventListener(\"keydown\", function (e) {\n"
	"\t\tif ((e.ctrlKey || e.metaKey) && e.key === \"f\") {\n"
	"\t\t\te.preventDefault();\n"
	"\t\t\tsearch();\n"
	"\t\t}\n"
	"\t});\n"
	"}\n"
	"// a frame at x, w wide, its label cut to fit as the writer cuts it\n"
	"function place(g, x, w) {\n"
	"\tvar r = g.querySelector(\"rect\"), t = g.querySelector(\"text\");\n"
	"\tvar name = g.info[0], fit = Math.floor((w - LABEL_PAD) / CHAR_WIDTH);\n"
	"\tr.setAttribute(\"x\", x.toFixed(2));\n"
	"\tr.setAttribute(\"width\", w.toFixed(2));\n"
	"\tt.setAttribute(\"x\", (x + 3).toFixed(2));\n"
	"\tt.textContent = fit < 3 ? \"\" : name.length <= fit ? name : name.slice(0, fit - 2) + \"..\";\n"
	"}\n"
	"// z fills the width; its ancestors are faded, all that is not above it hidden\n"
	"function zoom(z) {\n"
	"\tvar scale = (WIDTH - 2 * XPAD) / z.w0, end = z.x0 + z.w0, eps = 0.001;\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tvar below = g.y0 > z.y0, gend = g.x0 + g.w0;\n"
	"\t\tg.classList.remove(\"hide\", \"parent\");\n"
	"\t\tif (below && g.x0 <= z.x0 + eps && gend >= end - eps) {\n"
	"\t\t\tg.classList.add(\"parent\");\n"
	"\t\t\tplace(g, XPAD, WIDTH - 2 * XPAD);\n"
	"\t\t} else if (!below && g.x0 >= z.x0 - eps && gend <= end + eps) {\n"
	"\t\t\tplace(g, XPAD + (g.x0 - z.x0) * scale, g.w0 * scale);\n"
	"\t\t} else {\n"
	"\t\t\tg.classList.add(\"hide\");\n"
	"\t\t}\n"
	"\t});\n"
	"\tunzoomButton.classList.remove(\"off\");\n"
	"}\n"
	"function unzoom() {\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tg.classList.remove(\"hide\", \"parent\");\n"
	"\t\tplace(g, g.x0, g.w0);\n"
	"\t});\n"
	"\tunzoomButton.classList.add(\"off\");\n"
	"}\n"
	"// highlights the frames whose name matches (a regular expression, else\n"
	"// plain text) and says how much of the whole they cover, each part once\n"
	"function search() {\n"
	"\tframes.forEach(function (g) { g.classList.remove(\"match\"); });\n"
	"\tmatched.textContent = \" \";\n"
	"\tsearchButton.textContent = \"Search\";\n"
	"\tif (searching) {\n"
	"\t\tsearching = false;\n"
	"\t\treturn;\n"
	"\t}\n"
	"\tvar term = window.prompt(\"Search for frames (a regular expression):\", \"\");\n"
	"\tif (!term)\n"
	"\t\treturn;\n"
	"\tvar re = null, spans = [], covered = 0, end = -1;\n"
	"\ttry { re = new RegExp(term); } catch (err) { re = null; }\n"
	"\tframes.forEach(function (g) {\n"
	"\t\tvar name = g.info[0];\n"
	"\t\tif (re ? re.test(name) : name.indexOf(term) >= 0) {\n"
	"\t\t\tg.classList.add(\"match\");\n"
	"\t\t\tspans.push([g.x0, g.x0 + g.w0]);\n"
	"\t\t}\n"
	"\t});\n"
	"\tspans.sort(function (a, b) { return a[0] - b[0]; });\n"
	"\tspans.forEach(function (s) {\n"
	"\t\tcovered += Math.max(0, s[1] - Math.max(s[0], end));\n"
	"\t\tend = Math.max(end, s[1]);\n"
	"\t});\n"
	"\tmatched.textContent = \"Matched: \" + (100 * covered / (WIDTH - 2 * XPAD)).toFixed(2) +\n"
	"\t\t\" % (\" + spans.length + \" frames)\";\n"
	"\tsearchButton.textContent = \"Reset search\";\n"
	"\tsearching = true;\n"
	"}\n";

static const char style[] =
	"text { font-family: monospace; font-size: 12px; fill: #000; }\n"
	"#title { font-size: 16px; text-anchor: middle; }\n"
	"#search, #unzoom { cursor: pointer; fill: #1a55a8; }\n"
	"#search, #matched { text-anchor: end; }\n"
	"#unzoom.off, .hide { display: none; }\n"
	".f { cursor: pointer; }\n"
	".f:hover rect { stroke: #000; stroke-width: 0.5; }\n"
	".parent { opacity: 0.5; }\n"
	".match rect { fill: rgb(230,0,230); }\n";

static void put_head(const struct svg_graph *g, unsigned int height)
{
	FILE *out = g->out;

	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", out);
	fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" "
		"height=\"%u\" viewBox=\"0 0 %u %u\" onload=\"init()\">\n",
		IMAGE_WIDTH, height, IMAGE_WIDTH, height);
	fprintf(out, "<!-- ktau flame graph (libktau %s): click a frame to zoom, "
		"Search or Ctrl-F to highlight -->\n", ktau_version());
	fprintf(out, "<style>\n%s</style>\n", style);
	fprintf(out, "<script><![CDATA[\nvar WIDTH = %u, XPAD = %u, CHAR_WIDTH = %u.%02u, "
		"LABEL_PAD = %u;\n%s]]></script>\n", IMAGE_WIDTH, XPAD, CHAR_WIDTH100 / 100,
		CHAR_WIDTH100 % 100, LABEL_PAD100 / 100, script);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%u\" fill=\"#fbfbf6\"/>\n",
		IMAGE_WIDTH, height);
	fprintf(out, "<text id=\"title\" x=\"%u\" y=\"24\">ktau flame graph: %zu thread%s, ",
		IMAGE_WIDTH / 2, g->nr_threads, g->nr_threads == 1 ? "" : "s");
	put_value(out, g, g->total);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"unzoom\" class=\"off\" x=\"%u\" y=\"24\">Reset zoom</text>\n", XPAD);
	fprintf(out, "<text id=\"search\" x=\"%u\" y=\"24\">Search</text>\n", IMAGE_WIDTH - XPAD);
	put_legend(out);
	fprintf(out, "<text id=\"details\" x=\"%u\" y=\"%u\"> </text>\n", XPAD, height - 10);
	fprintf(out, "<text id=\"matched\" x=\"%u\" y=\"%u\"> </text>\n", IMAGE_WIDTH - XPAD,
		height - 10);
}

int ktau__emit_svg(const struct ktau_model *m, FILE *out)
{
	struct svg_graph g = { .out = out };
	uint64_t pos = 0;
	size_t i;
	int ret = collect(&g, m);

	if (ret)
		goto out;
	if (!g.total) {
		put_head(&g, TOP + 2 * FRAME_HEIGHT + BOTTOM);
		fprintf(out, "<text id=\"empty\" x=\"%u\" y=\"%u\" text-anchor=\"middle\">No samples: "
			"the profile has no %s to draw</text>\n", IMAGE_WIDTH / 2,
			TOP + FRAME_HEIGHT, g.samples ? "samples" : "time");
	} else {
		put_head(&g, TOP + (unsigned int)g.levels * FRAME_HEIGHT + BOTTOM);
		fputs("<g id=\"frames\">\n", out);
		for (i = 0; i < g.nr_threads && !ret; i++)
			ret = put_thread(&g, &g.threads[i], &pos);
		if (!ret) {
			struct frame all = { .name = "all", .kind = KIND_ALL, .end = g.total,
					     .tsc_khz = g.tsc_khz };

			put_frame(&g, &all);
		}
		fputs("</g>\n", out);
	}
	fputs("</svg>\n", out);
out:
	graph_free(&g);
	return ret;
}
