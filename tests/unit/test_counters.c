// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The shared counter area's user side (libktau's counters.c): the layout
 * against the kernel's uapi header, counter names against a fake /proc
 * tree, argument errors, ENODEV from this host's kernel (which has no
 * counter area), and registration, reads, threads and fork against a
 * stand-in for the kernel's prctl.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* before ktau.h, whose guarded copies of its macros it then keeps */
#include "../../kernel-ext/include/uapi/linux/ktau.h"

#include "fake_counters.h"
#include "harness.h"
#include "proc/proc.h"
#include "testutil.h"

static const char functions_text[] =
	"ktau-functions 1\ncolumns fid group name\n"
	"0 syscall read\n39 syscall getpid\n464 softirq TIMER\n"
	"470 exception page_fault\n471 sched schedule_vol\n"
	"480 event read_bytes\n600 kernel my_driver_op\nend\n";

TEST(counters_layout_is_the_kernels)
{
	ASSERT_EQ(KTAU_COUNTERS_VERSION, KTAU__COUNTERS_VERSION);
	ASSERT_EQ(sizeof(struct ktau_counters), sizeof(struct ktau__counter_area));
	ASSERT_EQ(offsetof(struct ktau_counters, nr), offsetof(struct ktau__counter_area, nr));
	ASSERT_EQ(offsetof(struct ktau_counters, ids), offsetof(struct ktau__counter_area, ids));
	ASSERT_EQ(offsetof(struct ktau_counters, seq), offsetof(struct ktau__counter_area, seq));
	ASSERT_EQ(offsetof(struct ktau_counters, val), offsetof(struct ktau__counter_area, val));
	ASSERT_EQ(sizeof(struct ktau_counter), sizeof(struct ktau__counter_value));
	ASSERT_EQ(KTAU_COUNTERS_SIZE(1), KTAU__COUNTER_AREA_SIZE(1));
	ASSERT_EQ(KTAU_COUNTERS_SIZE(16), KTAU__COUNTER_AREA_SIZE(16));
	ASSERT_EQ(0, KTAU__COUNTER_AREA_ALIGN % 8);
}

TEST(counters_names_to_ids)
{
	char *root = make_tmpdir();
	struct ktau_proc *proc;
	uint32_t id = 0;

	ASSERT_NOT_NULL(root);
	ASSERT_EQ(0, write_tree_file(root, "ktau/functions", functions_text));
	proc = open_root(root);
	ASSERT_NOT_NULL(proc);
	ASSERT_EQ(0, ktau_counter_id(proc, "getpid", &id, test_err()));
	ASSERT_EQ(39, id);
	ASSERT_NULL(last_err());
	ASSERT_EQ(0, ktau_counter_id(proc, "TIMER", &id, NULL));
	ASSERT_EQ(464, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "my_driver_op", &id, NULL));
	ASSERT_EQ(600, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "all", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_ALL, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "group:syscall", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | KTAU_COUNTER_SYSCALL, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "group:softirq", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | 1, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "group:irq", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | 2, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "group:sched", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | 3, id);
	ASSERT_EQ(0, ktau_counter_id(proc, "group:exception", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | 4, id);
	/* groups need no /proc */
	ASSERT_EQ(0, ktau_counter_id(NULL, "group:kernel", &id, NULL));
	ASSERT_EQ(KTAU_COUNTER_GROUP | KTAU_COUNTER_KERNEL, id);
	ktau_proc_close(proc);
	remove_tree(root);
	free(root);
}

TEST(counters_names_errors)
{
	char *root = make_tmpdir(), *empty = make_tmpdir();
	struct ktau_proc *proc, *no_ktau;
	uint32_t id = 12345;

	ASSERT_NOT_NULL(root);
	ASSERT_NOT_NULL(empty);
	ASSERT_EQ(0, write_tree_file(root, "ktau/functions", functions_text));
	proc = open_root(root);
	no_ktau = open_root(empty);
	ASSERT_NOT_NULL(proc);
	ASSERT_NOT_NULL(no_ktau);

	ASSERT_EQ(-ENOENT, ktau_counter_id(proc, "sys_getpid", &id, test_err()));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(-ENOENT, ktau_error_code(last_err()));
	ASSERT_CONTAINS(ktau_error_message(last_err()), "counter sys_getpid:");
	ASSERT_CONTAINS(ktau_error_message(last_err()), "ktau/functions names no such routine");
	ASSERT_EQ(-ENOENT, ktau_counter_id(proc, "group:nope", &id, test_err()));
	ASSERT_CONTAINS(ktau_error_message(last_err()), "group:nope: no such group");
	ASSERT_EQ(-EINVAL, ktau_counter_id(proc, "group:event", &id, test_err()));
	ASSERT_CONTAINS(ktau_error_message(last_err()), "atomic events");
	ASSERT_EQ(-EINVAL, ktau_counter_id(proc, "read_bytes", &id, test_err()));
	ASSERT_CONTAINS(ktau_error_message(last_err()), "counter read_bytes: an atomic event");
	ASSERT_EQ(-EINVAL, ktau_counter_id(NULL, "getpid", &id, test_err()));
	ASSERT_CONTAINS(ktau_error_message(last_err()), "needs a struct ktau_proc");
	ASSERT_EQ(-EINVAL, ktau_counter_id(proc, NULL, &id, NULL));
	ASSERT_EQ(-EINVAL, ktau_counter_id(proc, "getpid", NULL, NULL));
	ASSERT_EQ(-ENODEV, ktau_counter_id(no_ktau, "getpid", &id, test_err()));
	ASSERT_EQ(-ENODEV, ktau_error_code(last_err()));
	ASSERT_EQ(12345, id);	/* untouched by every failure */
	ktau_proc_close(proc);
	ktau_proc_close(no_ktau);
	remove_tree(root);
	remove_tree(empty);
	free(root);
	free(empty);
}

TEST(counters_register_argument_errors)
{
	uint32_t ids[KTAU_COUNTERS_MAX + 1] = { 39 };
	uint32_t event_group = KTAU_COUNTER_GROUP | 6, unknown_group = KTAU_COUNTER_GROUP | 7;

	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(NULL, 1));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(ids, 0));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(ids, KTAU_COUNTERS_MAX + 1));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(&event_group, 1));
	ASSERT_EQ(EINVAL, errno);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(&unknown_group, 1));
	ASSERT_EQ(EINVAL, errno);
	ASSERT_EQ(-EINVAL, ktau_thread_counters_unregister(NULL));
	ASSERT_EQ(-EINVAL, ktau_thread_counters_read(NULL, 0, NULL, NULL, NULL));
	ASSERT_EQ(0, ktau_thread_counters_count(NULL));
	ASSERT_EQ_U64(0, ktau_thread_counters_seq(NULL));
}

/* This host runs no kernel with a counter area: the real prctl refuses
 * the registration with EINVAL, which the library reports as ENODEV. */
TEST(counters_enodev_without_the_kernels_area)
{
	uint32_t ids[2] = { 39, KTAU_COUNTER_ALL };
	struct ktau_thread_counters *c;

	errno = 0;
	c = ktau_thread_counters_register(ids, 2);
	if (c) {
		ktau_thread_counters_unregister(c);
		SKIP("this machine runs a kernel with ktau's counter area");
	}
	ASSERT_EQ(ENODEV, errno);
}

/* An old ktau kernel: every counter prctl is an unknown option. */
static int old_kernel_prctl(int option, unsigned long arg2, unsigned long arg3)
{
	(void)option;
	(void)arg2;
	(void)arg3;
	errno = EINVAL;
	return -1;
}

/* A kernel that keeps the area when asked to drop it. */
static int refusing_unregister_prctl(int option, unsigned long arg2, unsigned long arg3)
{
	if (option == PR_KTAU_SET_COUNTERS && !arg2) {
		errno = EPERM;
		return -1;
	}
	return fake_counters_prctl(option, arg2, arg3);
}

TEST(counters_register_read_unregister)
{
	uint32_t ids[3] = { 39, KTAU_COUNTER_GROUP | KTAU_COUNTER_SYSCALL, KTAU_COUNTER_ALL };
	struct ktau_thread_counters *c, *second;
	uint64_t calls, incl, excl, faults = 99;

	ktau__counters_prctl_hook(fake_counters_prctl);
	c = ktau_thread_counters_register(ids, 3);
	ASSERT_NOT_NULL(c);
	ASSERT_EQ(0, fake_registered % KTAU__COUNTER_AREA_ALIGN);
	ASSERT_EQ(3, ktau_thread_counters_count(c));
	ASSERT_EQ_U64(1, ktau_thread_counters_seq(c));
	ASSERT_EQ(0, ktau_thread_counters_read(c, 2, &calls, &incl, &excl));
	ASSERT_EQ_U64(3, calls);
	ASSERT_EQ_U64(300, incl);
	ASSERT_EQ_U64(30, excl);
	ASSERT_EQ(0, ktau_thread_counters_read(c, 0, NULL, NULL, &excl));
	ASSERT_EQ_U64(10, excl);
	ASSERT_EQ(-ERANGE, ktau_thread_counters_read(c, 3, &calls, NULL, NULL));

	/* the kernel's next write, as at a return to user mode: read again */
	((struct ktau_counters *)fake_registered)->val[0].calls = 1001;
	((struct ktau_counters *)fake_registered)->seq++;
	ASSERT_EQ(0, ktau_thread_counters_read(c, 0, &calls, NULL, NULL));
	ASSERT_EQ_U64(1001, calls);
	ASSERT_EQ_U64(2, ktau_thread_counters_seq(c));

	fake_faults = 2;
	ASSERT_EQ(0, ktau_thread_counters_faults(c, &faults));
	ASSERT_EQ_U64(2, faults);
	ASSERT_EQ(-EINVAL, ktau_thread_counters_faults(c, NULL));

	/* one area a thread */
	errno = 0;
	second = ktau_thread_counters_register(ids, 1);
	ASSERT_NULL(second);
	ASSERT_EQ(EBUSY, errno);

	ASSERT_EQ(0, ktau_thread_counters_unregister(c));
	ASSERT_EQ(0, fake_registered);
	ktau__counters_prctl_hook(NULL);
}

TEST(counters_kernel_errors)
{
	uint32_t unknown = FAKE_UNKNOWN_FID;
	struct ktau_thread_counters *c;
	uint64_t faults;

	ktau__counters_prctl_hook(fake_counters_prctl);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register(&unknown, 1));
	ASSERT_EQ(ENOENT, errno);
	ASSERT_EQ(0, fake_registered);

	/* an area dropped behind the library's back: not this thread's any
	 * more, freed without a system call */
	c = ktau_thread_counters_register((const uint32_t[]){ 39 }, 1);
	ASSERT_NOT_NULL(c);
	fake_registered = 0;
	ASSERT_EQ(-ENOENT, ktau_thread_counters_faults(c, &faults));
	ASSERT_EQ(0, ktau_thread_counters_unregister(c));

	ktau__counters_prctl_hook(old_kernel_prctl);
	errno = 0;
	ASSERT_NULL(ktau_thread_counters_register((const uint32_t[]){ 39 }, 1));
	ASSERT_EQ(ENODEV, errno);

	/* the kernel refuses to let go: the area stays registered and
	 * allocated, to be unregistered again */
	ktau__counters_prctl_hook(fake_counters_prctl);
	c = ktau_thread_counters_register((const uint32_t[]){ 39 }, 1);
	ASSERT_NOT_NULL(c);
	ktau__counters_prctl_hook(refusing_unregister_prctl);
	ASSERT_EQ(-EPERM, ktau_thread_counters_unregister(c));
	ASSERT_TRUE(fake_registered != 0);
	/* a kernel that lost the feature meanwhile: nothing to ask, nothing
	 * registered, the handle freed */
	ktau__counters_prctl_hook(old_kernel_prctl);
	ASSERT_EQ(-ENODEV, ktau_thread_counters_faults(c, &faults));
	ASSERT_EQ(0, ktau_thread_counters_unregister(c));
	fake_registered = 0;
	ktau__counters_prctl_hook(NULL);
}

static void *unregister_elsewhere(void *arg)
{
	return (void *)(intptr_t)ktau_thread_counters_unregister(arg);
}

TEST(counters_unregister_on_another_thread_is_refused)
{
	struct ktau_thread_counters *c;
	pthread_t thread;
	void *ret;

	ktau__counters_prctl_hook(fake_counters_prctl);
	c = ktau_thread_counters_register((const uint32_t[]){ 39 }, 1);
	ASSERT_NOT_NULL(c);
	ASSERT_EQ(0, pthread_create(&thread, NULL, unregister_elsewhere, c));
	ASSERT_EQ(0, pthread_join(thread, &ret));
	ASSERT_EQ(-EBUSY, (int)(intptr_t)ret);
	ASSERT_EQ(0, ktau_thread_counters_unregister(c));
	ktau__counters_prctl_hook(NULL);
}

/* In a forked child: the forking thread's area is inherited (unregistered
 * by the child), another thread's is a copy nobody holds (freed). The
 * child's exit status: 0, or the step that failed. */
static int child_unregisters(struct ktau_thread_counters *mine,
			     struct ktau_thread_counters *others)
{
	uint64_t calls;

	if (ktau_thread_counters_read(mine, 0, &calls, NULL, NULL) || calls != 1)
		return 1;
	if (ktau_thread_counters_unregister(others))
		return 2;
	if (ktau_thread_counters_unregister(mine) || fake_registered)
		return 3;
	return 0;
}

static void *register_on_thread(void *arg)
{
	(void)arg;
	return ktau_thread_counters_register((const uint32_t[]){ 600 }, 1);
}

/* A thread that has exited holds nothing: the kernel may take a moment
 * after pthread_join() to retire it. */
static int unregister_after_exit(struct ktau_thread_counters *c)
{
	int ret, tries;

	for (tries = 0; (ret = ktau_thread_counters_unregister(c)) == -EBUSY && tries < 100;
	     tries++)
		usleep(10000);
	return ret;
}

TEST(counters_fork_child_unregisters)
{
	struct ktau_thread_counters *mine, *others;
	pthread_t thread;
	void *area;
	pid_t child;
	int status;

	ktau__counters_prctl_hook(fake_counters_prctl);
	mine = ktau_thread_counters_register((const uint32_t[]){ 39 }, 1);
	ASSERT_NOT_NULL(mine);
	ASSERT_EQ(0, pthread_create(&thread, NULL, register_on_thread, NULL));
	ASSERT_EQ(0, pthread_join(thread, &area));
	others = area;
	ASSERT_NOT_NULL(others);
	child = fork();
	ASSERT_TRUE(child >= 0);
	if (child == 0)
		_exit(child_unregisters(mine, others));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* the parent still has both: its own, and the exited thread's */
	ASSERT_EQ(0, unregister_after_exit(others));
	ASSERT_EQ(0, ktau_thread_counters_unregister(mine));
	ktau__counters_prctl_hook(NULL);
}
