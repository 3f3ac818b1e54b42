/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * ktau's compatibility layer for TAU: the request types of the original
 * KTAU /proc interface.  ktau's layer reads /proc/<pid>/task/<tid>/ktau and
 * /proc/ktau/profile (profile format 2) instead of KTAU's binary /proc
 * protocol; these are the names TAU's code passes.
 */
#ifndef _KTAU_COMPAT_PROC_EXTERNAL_H
#define _KTAU_COMPAT_PROC_EXTERNAL_H

#include <linux/ktau/ktau_datatype.h>

/* what read_size()/read_data()/unpack_bindata() deal in */
#define KTAU_TYPE_PROFILE	0
#define KTAU_TYPE_TRACE		1

/* the paths the layer reads, under the /proc root ($KTAU_PROCFS or /proc) */
#define KTAU_PROC_PROFILE_PATH	"ktau/profile"
#define KTAU_PROC_CONTROL_PATH	"ktau/control"

#endif
