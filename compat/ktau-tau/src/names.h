/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The names and keys TAU sees of ktau's routines: one address per function
 * id (the System.map that `ktau-ctl --system-map` writes, TAU's -ktausym=),
 * the o_ent index, and the symbol name that TAU's grouping by substring
 * (TauKtau.cpp) puts in the routine's group.  Shared by the compat library
 * and ktau-ctl, so that the map and the keys agree.
 */
#ifndef KTAU_TAU_NAMES_H
#define KTAU_TAU_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ktau.h>

/* fid's address: BASE + STEP * fid, for fid < MAX_FIDS (the kernel allows
 * at most 8000 ids, CONFIG_KTAU_MAX_FIDS); _etext ends the range. */
#define KTAU_TAU_ADDR_BASE	0xc1000000UL
#define KTAU_TAU_ADDR_STEP	0x10UL
#define KTAU_TAU_MAX_FIDS	8192U
#define KTAU_TAU_ADDR_ETEXT	(KTAU_TAU_ADDR_BASE + KTAU_TAU_ADDR_STEP * KTAU_TAU_MAX_FIDS)

/* the longest symbol name written (TAU's line buffer is 1024 bytes) */
#define KTAU_TAU_NAME_MAX	256

unsigned long ktau_tau_fid_addr(uint32_t fid);
/* 0 and *fid, or -EINVAL: not an address of the map. */
int ktau_tau_addr_fid(unsigned long addr, uint32_t *fid);
/* The o_ent index of a routine (event false) or an atomic event. */
unsigned int ktau_tau_fid_index(uint32_t fid, bool event);
bool ktau_tau_group_is_event(const char *group);
/*
 * The symbol name of routine name in ktau group group, into buf: what TAU
 * groups right (docs/tau.md has the table).  0, or -ENAMETOOLONG.
 */
int ktau_tau_symbol_name(const char *group, const char *name, char *buf, size_t size);
/* The name written for an id not registered when the map was made. */
int ktau_tau_unregistered_name(uint32_t fid, char *buf, size_t size);
/*
 * The System.map: a `T` line per function id of map (and an unregistered
 * name for every other id below KTAU_TAU_MAX_FIDS), sorted by address, then
 * `A _etext`.  0, or a negative errno value (-EIO: a write failed, -ERANGE:
 * a fid beyond the range).
 */
int ktau_tau_write_system_map(FILE *out, const struct ktau_functions *map);

#endif
