/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints compile to empty inline functions: kmod/wsched_trace.h is
 * included unchanged (with CREATE_TRACE_POINTS) and defines trace_*().
 */
#ifndef _NATIVE_TRACEPOINT_H
#define _NATIVE_TRACEPOINT_H
#include "../native_kernel.h"
#define TP_PROTO(args...)	args
#define TP_ARGS(args...)	args
#define DECLARE_EVENT_CLASS(name, proto, args, tstruct, assign, print)
#define DEFINE_EVENT(template, name, proto, args) \
	static inline void trace_##name(proto) { }
#define TRACE_EVENT(name, proto, args, tstruct, assign, print) \
	static inline void trace_##name(proto) { }
#endif
