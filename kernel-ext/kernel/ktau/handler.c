// SPDX-License-Identifier: GPL-2.0
/*
 * The generic kernel profiling API of KTAU's BG/L port: other kernel code
 * registers a handler for a mask of groups and is called at every
 * instrumentation point of those groups, next to the KTAU profile.
 *
 * One handler per group.  Handlers run with interrupts disabled, which
 * is an RCU read-side section: unregistering waits for a grace period,
 * so a module may free its handler's code once the call returns.
 */
#include <linux/bits.h>
#include <linux/export.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>

#include "internal.h"

DEFINE_STATIC_KEY_FALSE(ktau_handler_key);

static ktau_handler_fn ktau_handler_of[KTAU_NR_GROUPS];
static DEFINE_MUTEX(ktau_handler_lock);

#define KTAU_ALL_GROUPS		(BIT(KTAU_NR_GROUPS) - 1)

/* Every point while a handler is registered. */
void ktau_call_handlers(unsigned int fid, unsigned int type, u64 value)
{
	int group = ktau_fid_group(fid);
	ktau_handler_fn fn;

	if (group < 0)
		return;
	fn = READ_ONCE(ktau_handler_of[group]);
	if (fn)
		fn(fid, type, ktau_fid_name(fid), &value);
}

static bool ktau_any_handler(void)
{
	unsigned int g;

	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if (ktau_handler_of[g])
			return true;
	}
	return false;
}

/*
 * The handler path is taken while a handler is registered; the fast
 * paths, which call none, are off then.  May sleep.
 */
static void ktau_handler_key_update(void)
{
	mutex_lock(&ktau_handler_lock);
	if (ktau_any_handler())
		static_branch_enable(&ktau_handler_key);
	else
		static_branch_disable(&ktau_handler_key);
	mutex_unlock(&ktau_handler_lock);
	ktau_fast_sync();
}

/**
 * ktau_register_handler() - call a handler at a set of groups' points
 * @group_mask: bit n: group n of enum ktau_group
 * @handler: called at every instrumentation point of those groups, in
 *	the context of the task the point is charged to, with interrupts
 *	disabled; it must not sleep
 *
 * The points of a group fire while the group records (see
 * /proc/ktau/control).  May sleep.
 *
 * Return: 0, -EINVAL for an empty or unknown mask or no handler, -EBUSY
 * if one of the groups has a handler already (nothing is registered then).
 */
int ktau_register_handler(unsigned int group_mask, ktau_handler_fn handler)
{
	unsigned int g;
	int ret = 0;

	if (!handler || !group_mask || (group_mask & ~KTAU_ALL_GROUPS))
		return -EINVAL;
	mutex_lock(&ktau_handler_lock);
	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if ((group_mask & BIT(g)) && ktau_handler_of[g])
			ret = -EBUSY;
	}
	if (!ret) {
		for (g = 0; g < KTAU_NR_GROUPS; g++) {
			if (group_mask & BIT(g))
				WRITE_ONCE(ktau_handler_of[g], handler);
		}
	}
	mutex_unlock(&ktau_handler_lock);
	if (!ret)
		ktau_handler_key_update();
	return ret;
}
EXPORT_SYMBOL_GPL(ktau_register_handler);

/**
 * ktau_unregister_handler() - remove the handlers of a set of groups
 * @group_mask: bit n: group n of enum ktau_group
 *
 * Waits until no CPU runs them: a module may free its handler's code once
 * this returns.  May sleep.
 *
 * Return: 0, -EINVAL for an empty or unknown mask, -ENOENT when none of
 * those groups had a handler.
 */
int ktau_unregister_handler(unsigned int group_mask)
{
	bool found = false;
	unsigned int g;

	if (!group_mask || (group_mask & ~KTAU_ALL_GROUPS))
		return -EINVAL;
	mutex_lock(&ktau_handler_lock);
	for (g = 0; g < KTAU_NR_GROUPS; g++) {
		if ((group_mask & BIT(g)) && ktau_handler_of[g]) {
			WRITE_ONCE(ktau_handler_of[g], NULL);
			found = true;
		}
	}
	mutex_unlock(&ktau_handler_lock);
	ktau_handler_key_update();
	synchronize_rcu();
	return found ? 0 : -ENOENT;
}
EXPORT_SYMBOL_GPL(ktau_unregister_handler);
