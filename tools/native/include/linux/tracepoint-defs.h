/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints are never enabled here (see tracepoint.h): the inline fast
 * paths of <linux/wsched.h> that test them always take the untraced way.
 */
#ifndef _NATIVE_TRACEPOINT_DEFS_H
#define _NATIVE_TRACEPOINT_DEFS_H
#define DECLARE_TRACEPOINT(tp)	struct native_unused_tracepoint_##tp
#define tracepoint_enabled(tp)	false
#endif
