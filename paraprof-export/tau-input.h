/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A TAU profile directory (TAU's own, or the merged user/kernel profile
 * libktau-prof writes) as a profile model, so that ktau-export writes it
 * in its other formats: a flame graph of a merged profile, say.
 */
#ifndef KTAU_TAU_INPUT_H
#define KTAU_TAU_INPUT_H

#include <stddef.h>

struct ktau_model;

/* The model of every profile in dir (ktau_tau_dir_read()); NULL with what
 * went wrong in msg (size bytes), naming dir or the file. */
struct ktau_model *tau_dir_model(const char *dir, char *msg, size_t size);

#endif /* KTAU_TAU_INPUT_H */
