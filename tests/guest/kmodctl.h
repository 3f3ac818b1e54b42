/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmodctl — the guest tests' access to tests/kmod/ktau_test.ko: load it
 * (if no test did yet), write a command to /proc/ktau_test, read the
 * result line back, unload it again if this test loaded it.
 */
#ifndef KMODCTL_H
#define KMODCTL_H

#define KMOD_PATH	"/guest/ktau_test.ko"
#define KMOD_FILE	"/proc/ktau_test"

/* Loads the module unless it is loaded: 1 loaded here, 0 was there, -1
 * failed (a FAIL line names why). */
int kmod_load(const char *check);
/* Unloads it if kmod_load() returned 1. */
void kmod_unload(int loaded);
/* Writes cmd (one write()); 0 or an errno.  The result line (without its
 * newline) is then in kmod_result. */
int kmod_cmd(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern char kmod_result[512];
/* The number after " key=" in kmod_result, or def. */
long long kmod_field(const char *key, long long def);

#endif
