/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Private to libktau: the writers of the profile model, one format each. */
#ifndef KTAU_EXPORT_EXPORT_H
#define KTAU_EXPORT_EXPORT_H

#include "model/model.h"

/* ---- writers: each emits one format to a stream ---- */

KTAU_HIDDEN int ktau__emit_tau_thread(const struct ktau_model_thread *t, FILE *out);
KTAU_HIDDEN int ktau__emit_pprof(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_callgrind(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_folded(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_json(const struct ktau_model *m, FILE *out);
KTAU_HIDDEN int ktau__emit_svg(const struct ktau_model *m, FILE *out);

/* XML character data or attribute value: & < > " ' escaped; of the
 * first n bytes of s for _n. */
KTAU_HIDDEN void ktau__put_xml(FILE *out, const char *s);
KTAU_HIDDEN void ktau__put_xml_n(FILE *out, const char *s, size_t n);

/* Runs emit(arg, stream) into path atomically (temporary file + rename),
 * in the C locale. 0 or -errno. */
typedef int (*ktau_emit_fn)(const void *arg, FILE *out);
KTAU_HIDDEN int ktau__write_file_atomic(const char *path, ktau_emit_fn emit,
					const void *arg);

#endif /* KTAU_EXPORT_EXPORT_H */
