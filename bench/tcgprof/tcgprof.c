// SPDX-License-Identifier: GPL-2.0
/*
 * tcgprof: a QEMU TCG plugin that counts the instructions a guest runs,
 * per translated block, for finding where a whole-program row of
 * `make bench` spends them (docs/benchmark.md, "Where the instructions
 * go").  Under -icount shift=0 the bench counts instructions; this says
 * which ones: scripts/tcgprof-report.sh names each block's kernel
 * function from System.map and sums them.
 *
 *   qemu-system-x86_64 ... -plugin bench/tcgprof/tcgprof.so,out=FILE[,mark=ADDR]
 *
 * At QEMU's exit FILE gets a line "VADDR INSNS COUNT" (hex, decimal,
 * decimal) per block that ran: its guest virtual address, its
 * instructions, how many times it ran.  Blocks of user space are counted
 * too (their addresses are below the kernel's half).  With mark=ADDR (a
 * kernel function's address, hex, e.g. __x64_sys_sync's), each run of
 * the block at ADDR also writes the counts so far to FILE.snapN (N =
 * 0, 1, ...): a guest that calls sync(1) between its runs gets one
 * snapshot per run, and the differences of consecutive snapshots are
 * the runs'.
 *
 * A rep-prefixed instruction counts once per iteration, as -icount does:
 * a rep stosb of 1 KiB is 1 024 instructions here and in the bench.
 * Time the guest spends idle (a sleep, a wait for an RCU grace period)
 * advances the bench's clock but runs no instruction: a row that reads
 * more than its blocks add up to waited.
 *
 * QEMU 7.2 has the plugin API (version 1) but Debian ships no header for
 * it: the few declarations used are here, with the ABI of that version.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- QEMU's plugin API, version 1 (include/qemu/qemu-plugin.h) ---- */
typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index,
					    void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb,
					      enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags,
					  void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
__attribute__((visibility("default"))) extern int qemu_plugin_version;
__attribute__((visibility("default")))
int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv);
/* ---- end of the API ---- */

int qemu_plugin_version = 1;

/*
 * One translation of a block; a block translated again (its page
 * flushed) gets another, and the report adds them up by address.
 */
struct tcgprof_block {
	uint64_t vaddr;
	uint64_t insns;
	uint64_t count;		/* added to by the translated code itself */
	struct tcgprof_block *next;
};

/*
 * The plugin's state: QEMU's callbacks take no context of ours but a
 * pointer we register, and the translation callback not even that.
 */
static struct {
	struct tcgprof_block *blocks;
	char *out;
	uint64_t mark;
	unsigned int snapshots;
	bool failed;
} prof;

static void tcgprof_write(const char *path)
{
	FILE *f = fopen(path, "w");
	const struct tcgprof_block *b;

	if (!f) {
		if (!prof.failed)
			fprintf(stderr, "tcgprof: cannot write %s\n", path);
		prof.failed = true;
		return;
	}
	for (b = prof.blocks; b; b = b->next)
		if (b->count)
			fprintf(f, "%" PRIx64 " %" PRIu64 " %" PRIu64 "\n",
				b->vaddr, b->insns, b->count);
	if (fclose(f) && !prof.failed) {
		fprintf(stderr, "tcgprof: writing %s failed\n", path);
		prof.failed = true;
	}
}

static void tcgprof_snapshot(unsigned int vcpu, void *unused)
{
	size_t len = strlen(prof.out) + 32;
	char *path = malloc(len);

	(void)vcpu;
	(void)unused;
	if (!path)
		return;
	snprintf(path, len, "%s.snap%u", prof.out, prof.snapshots++);
	tcgprof_write(path);
	free(path);
}

static void tcgprof_translated(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	struct tcgprof_block *b = calloc(1, sizeof(*b));

	(void)id;
	if (!b) {
		prof.failed = true;
		return;
	}
	b->vaddr = qemu_plugin_tb_vaddr(tb);
	b->insns = qemu_plugin_tb_n_insns(tb);
	b->next = prof.blocks;
	prof.blocks = b;
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &b->count, 1);
	if (prof.mark && b->vaddr == prof.mark)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, tcgprof_snapshot,
						     QEMU_PLUGIN_CB_NO_REGS, NULL);
}

static void tcgprof_exit(qemu_plugin_id_t id, void *unused)
{
	(void)id;
	(void)unused;
	tcgprof_write(prof.out);
	if (prof.failed)
		fprintf(stderr, "tcgprof: the counts are incomplete (out of memory or a write failed)\n");
}

int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			int argc, char **argv)
{
	int i;

	(void)info;
	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			prof.out = argv[i] + 4;
		} else if (!strncmp(argv[i], "mark=", 5)) {
			char *end;

			prof.mark = strtoull(argv[i] + 5, &end, 16);
			if (end == argv[i] + 5 || *end || !prof.mark) {
				fprintf(stderr, "tcgprof: mark=%s: not a hex address\n",
					argv[i] + 5);
				return -1;
			}
		} else {
			fprintf(stderr, "tcgprof: unknown argument '%s' (out=FILE, mark=ADDR)\n",
				argv[i]);
			return -1;
		}
	}
	if (!prof.out) {
		fprintf(stderr, "tcgprof: out=FILE is required\n");
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, tcgprof_translated);
	qemu_plugin_register_atexit_cb(id, tcgprof_exit, NULL);
	return 0;
}
