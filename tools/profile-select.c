// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "profile-select.h"
#include "tool.h"

int select_parse_groups(struct selection *s, const char *arg)
{
	char *save = NULL, *g;

	if (strlen(arg) >= sizeof(s->group_buf)) {
		tool_usage_error("--groups list too long: '%s'", arg);
		return -EINVAL;
	}
	strcpy(s->group_buf, arg);
	s->nr_groups = 0;
	if (!*arg || arg[strlen(arg) - 1] == ',' || *arg == ',' || strstr(arg, ",,")) {
		tool_usage_error("empty group name in --groups '%s'", arg);
		return -EINVAL;
	}
	for (g = strtok_r(s->group_buf, ",", &save); g; g = strtok_r(NULL, ",", &save)) {
		if (s->nr_groups == SELECT_MAX_GROUPS) {
			tool_usage_error("too many groups in --groups '%s'", arg);
			return -EINVAL;
		}
		s->groups[s->nr_groups++] = g;
	}
	return 0;
}

/* ---- the groups there are ---- */

static bool group_known(const struct group_set *g, const char *name)
{
	size_t i;

	for (i = 0; i < g->count; i++)
		if (!strcmp(g->names[i], name))
			return true;
	return false;
}

int group_set_add(struct group_set *g, const char *name)
{
	char **grown;

	/* a set holds a handful of groups: a scan is cheaper than a hash */
	if (group_known(g, name))
		return 0;
	if (g->count == g->cap) {
		size_t cap = g->cap ? 2 * g->cap : 16;

		grown = realloc(g->names, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		g->names = grown;
		g->cap = cap;
	}
	g->names[g->count] = strdup(name);
	if (!g->names[g->count])
		return -ENOMEM;
	g->count++;
	return 0;
}

void group_set_free(struct group_set *g)
{
	size_t i;

	for (i = 0; i < g->count; i++)
		free(g->names[i]);
	free(g->names);
	memset(g, 0, sizeof(*g));
}

int group_set_add_functions(struct group_set *g, const struct ktau_functions *map)
{
	size_t i;
	int ret = 0;

	for (i = 0; !ret && i < ktau_functions_count(map); i++)
		ret = group_set_add(g, ktau_functions_get(map, i)->group);
	return ret;
}

int group_set_add_profile(struct group_set *g, const struct ktau_profile *p)
{
	size_t i, j;
	int ret = 0;

	for (i = 0; !ret && i < ktau_profile_block_count(p); i++) {
		const struct ktau_block *b = ktau_profile_block(p, i);

		for (j = 0; !ret && j < ktau_block_func_count(b); j++)
			ret = group_set_add(g, ktau_block_func(b, j)->group);
		for (j = 0; !ret && j < ktau_block_open_count(b); j++)
			ret = group_set_add(g, ktau_block_open(b, j)->group);
		/* event records carry no group: "event" is what selects them */
		if (!ret && ktau_block_event_count(b))
			ret = group_set_add(g, "event");
	}
	return ret;
}

int group_set_add_kernel(struct group_set *g)
{
	struct ktau_proc *proc = ktau_proc_open(NULL, NULL);
	struct ktau_control_status *status;
	struct ktau_functions *map;
	size_t i;
	int ret = 0;

	if (!proc)
		return -errno;
	/* the control file is root-only: the function map is the list
	 * everyone may read (each function names its group) */
	status = ktau_proc_read_control(proc, NULL);
	if (status) {
		for (i = 0; !ret && i < ktau_control_status_group_count(status); i++)
			ret = group_set_add(g, ktau_control_status_group(status, i));
		ktau_control_status_free(status);
		ktau_proc_close(proc);
		return ret;
	}
	map = ktau_proc_read_functions(proc, NULL);
	ret = map ? group_set_add_functions(g, map) : -errno;
	ktau_functions_free(map);
	ktau_proc_close(proc);
	return ret;
}

/* vsnprintf at the end of buf: a long list is cut, never overrun. */
static void append(char *buf, size_t size, const char *fmt, ...)
{
	size_t len = strlen(buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf + len, size - len, fmt, ap);
	va_end(ap);
}

int select_check_groups(const struct selection *s, const struct group_set *g,
			const char *where)
{
	char msg[8192] = "";
	size_t i, k;

	for (i = 0; i < s->nr_groups; i++) {
		if (group_known(g, s->groups[i]))
			continue;
		append(msg, sizeof(msg), "unknown group '%s' (%s: ", s->groups[i], where);
		for (k = 0; k < g->count; k++)
			append(msg, sizeof(msg), "%s%s", k ? ", " : "", g->names[k]);
		append(msg, sizeof(msg), "%s)", g->count ? "" : "none");
		tool_usage_error("%s", msg);
		return -EINVAL;
	}
	return 0;
}

int select_parse_top(struct selection *s, const char *arg)
{
	long v;

	if (tool_parse_uint(arg, 1, &v)) {
		tool_usage_error("invalid --top count '%s' (a number from 1)", arg);
		return -EINVAL;
	}
	s->top = (size_t)v;
	return 0;
}

int select_apply(const struct selection *s, const struct ktau_profile *p,
		 struct ktau_profile **grouped, struct ktau_profile **rows)
{
	*grouped = (struct ktau_profile *)p;
	*rows = (struct ktau_profile *)p;
	if (s->nr_groups) {
		*grouped = ktau_profile_filter_groups(p, s->groups, s->nr_groups);
		if (!*grouped)
			return -errno;
		*rows = *grouped;
	}
	if (s->top) {
		*rows = ktau_profile_top(*grouped, s->top);
		if (!*rows) {
			int ret = -errno;

			select_release(p, *grouped, NULL);
			return ret;
		}
	}
	return 0;
}

void select_release(const struct ktau_profile *p, struct ktau_profile *grouped,
		    struct ktau_profile *rows)
{
	if (rows && rows != grouped && rows != p)
		ktau_profile_free(rows);
	if (grouped && grouped != p)
		ktau_profile_free(grouped);
}

int json_add_blocks(struct ktau_model *m, const struct ktau_profile *p,
		    unsigned int node, bool (*keep)(const struct ktau_block *b,
						    const void *arg),
		    const void *arg)
{
	unsigned int thread = 0;
	size_t i;

	for (i = 0; i < ktau_profile_block_count(p); i++) {
		if (!keep(ktau_profile_block(p, i), arg))
			continue;
		if (!ktau_model_add_block(m, p, i, node, 0, thread++))
			return -errno;
	}
	return 0;
}
