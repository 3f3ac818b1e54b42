/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Synthetic trace streams for the tests, written byte by byte from
 * docs/trace-format.md without libktau, so that the library's reader is
 * checked against a second reading of the format, not against itself.
 */
#ifndef KTAU_TEST_TRACE_GEN_H
#define KTAU_TEST_TRACE_GEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct tgen {
	unsigned char *buf;
	size_t len, cap;
	int failed;		/* out of memory: every later call does nothing */
};

/* Event types and chunk kinds as the format numbers them. */
enum { TG_ENTRY = 1, TG_EXIT, TG_TASK, TG_EXEC, TG_TASK_EXIT, TG_CONTEXT, TG_ATOMIC };
enum { TG_KERNEL = 1, TG_USER = 2, TG_NAMES = 3 };

/* The 64-byte stream header: magic KTAUTRC1, header_size 64, the anchor
 * tsc 1000, realtime 2000, monotonic 3000. */
void tg_header(struct tgen *g, uint32_t version, uint32_t unit_size, uint32_t nr_cpus,
	       uint64_t tsc_khz);
/* A chunk header; its count is the number of units given. */
void tg_chunk(struct tgen *g, unsigned int kind, unsigned int cpu, unsigned int source,
	      uint32_t count, uint32_t lost);
/* One event unit. */
void tg_event(struct tgen *g, unsigned int type, uint64_t tsc, uint32_t tid, uint32_t data);
/* The comm unit of a TASK or EXEC. */
void tg_comm(struct tgen *g, const char *comm);
/* The second unit of an ATOMIC: the value, then the reserved word. */
void tg_value(struct tgen *g, uint64_t value, uint64_t reserved);
/* A whole ATOMIC (version 2): the event unit and its value unit. */
void tg_atomic(struct tgen *g, uint64_t tsc, uint32_t tid, uint32_t id, uint64_t value);
/* A whole names chunk holding text, NUL-padded. */
void tg_names(struct tgen *g, unsigned int cpu, unsigned int source, const char *text);
/* Raw bytes, for the malformed cases. */
void tg_bytes(struct tgen *g, const void *p, size_t n);
/* Writes the stream to path; 0 or -errno. */
int tg_write(const struct tgen *g, const char *path);
/* A read-only stream over the buffer (not seekable to a file: no pre-scan). */
FILE *tg_stream(const struct tgen *g);
void tg_free(struct tgen *g);

#endif

/*
 * The sample trace most tests read (tsc_khz 1000: a cycle is 1 us), two
 * CPUs, its chunks out of TSC order as drains leave them:
 *   tid 100 (pid 100, "app"): user main [10,70] > io [15,55] > read [20,50]
 *     > schedule_vol [30,40] (entered on CPU 0, left on CPU 1); under main
 *     also irq [60,65] and schedule_invol [66,68] > irq [67,67].
 *   tid 200 (pid 100, "worker", from tsc 90): read's EXIT at 100 without
 *     its ENTRY (so read [90,100] begin_unknown) closing page_fault [92,100]
 *     end_unknown; read [110,120] closing schedule_invol [115,120] > irq
 *     [116,120] end_unknown; NET_RX [130,140] still open at the end; a
 *     CONTEXT at 140.
 * Lost: CPU 0 3, CPU 1 2 + 5 (a losses-only chunk), user 4. A chunk of
 * unknown kind 9 sits in the middle. 24 events, 7 + 6 slices.
 * Kernel names at the end (cpu 0), user names of source 1 ("1 main",
 * "2 io") after the user chunk.
 */
#define TG_SAMPLE_FUNCTIONS \
	"ktau-functions 1\ncolumns fid group name\n0 syscall read\n300 irq irq\n" \
	"301 softirq NET_RX\n470 exception page_fault\n471 sched schedule_vol\n" \
	"472 sched schedule_invol\n"
void tg_sample(struct tgen *g);

/*
 * A version 2 sample with atomic events (tsc_khz 1000), two CPUs, CPU 1
 * drained first:
 *   tid 100 (pid 100, "app"): read [20,30] holding read_bytes 4096 at 25
 *     and read_bytes 100 at 30 (the EXIT's stamp: still inside); write
 *     [40,50] with write_bytes 512 at 40 (the ENTRY's stamp: inside);
 *     read_bytes 0 at 60 and read_bytes 2^64-1 at 60, in that (stream)
 *     order, outside any slice.
 *   tid 200 (pid 100, no TASK): fid 999 (unnamed) value 7 at 80.
 * 11 kernel events, 6 of them ATOMIC; 2 slices; CPU 0 lost 1.
 */
#define TG_ATOMIC_FUNCTIONS \
	"ktau-functions 1\ncolumns fid group name\n0 syscall read\n1 syscall write\n" \
	"480 event read_bytes\n481 event write_bytes\n"
void tg_sample_atomic(struct tgen *g);
