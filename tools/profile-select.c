// SPDX-License-Identifier: GPL-2.0-or-later
#include <errno.h>
#include <string.h>

#include "profile-select.h"
#include "tool.h"

/* The groups the kernel has (docs/proc-format.md): a typo is caught here
 * rather than silently selecting nothing. */
static const char *const known_groups[] = {
	"syscall", "softirq", "irq", "sched", "exception", "kernel", "event",
};

static bool known(const char *g)
{
	size_t i;

	for (i = 0; i < sizeof(known_groups) / sizeof(known_groups[0]); i++)
		if (!strcmp(g, known_groups[i]))
			return true;
	return false;
}

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
		if (!known(g)) {
			tool_usage_error("unknown group '%s' (syscall, softirq, irq, sched, "
					 "exception, kernel, event)", g);
			return -EINVAL;
		}
		if (s->nr_groups == SELECT_MAX_GROUPS) {
			tool_usage_error("too many groups in --groups '%s'", arg);
			return -EINVAL;
		}
		s->groups[s->nr_groups++] = g;
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
