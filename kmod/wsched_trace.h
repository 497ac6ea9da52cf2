/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tracepoints of the wsched scheduler: spawn, execute, bypass, steal,
 * sleep and wake.  Visible in tracefs as events/wsched/ and to perf.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM wsched

#if !defined(_WSCHED_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _WSCHED_TRACE_H

#include <linux/tracepoint.h>

struct ws_pool;
struct ws_task;

DECLARE_EVENT_CLASS(wsched_task_event,
	TP_PROTO(const struct ws_pool *pool, const struct ws_task *task),
	TP_ARGS(pool, task),
	TP_STRUCT__entry(
		__field(const void *, pool)
		__field(const void *, task)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->task = task;
	),
	TP_printk("pool=%p task=%p", __entry->pool, __entry->task)
);

DEFINE_EVENT(wsched_task_event, wsched_spawn,
	TP_PROTO(const struct ws_pool *pool, const struct ws_task *task),
	TP_ARGS(pool, task));

DEFINE_EVENT(wsched_task_event, wsched_execute,
	TP_PROTO(const struct ws_pool *pool, const struct ws_task *task),
	TP_ARGS(pool, task));

DEFINE_EVENT(wsched_task_event, wsched_bypass,
	TP_PROTO(const struct ws_pool *pool, const struct ws_task *task),
	TP_ARGS(pool, task));

TRACE_EVENT(wsched_steal,
	TP_PROTO(const struct ws_pool *pool, const struct ws_task *task,
		 unsigned int victim),
	TP_ARGS(pool, task, victim),
	TP_STRUCT__entry(
		__field(const void *, pool)
		__field(const void *, task)
		__field(unsigned int, victim)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->task = task;
		__entry->victim = victim;
	),
	TP_printk("pool=%p task=%p victim=%u", __entry->pool, __entry->task,
		  __entry->victim)
);

DECLARE_EVENT_CLASS(wsched_worker_event,
	TP_PROTO(const struct ws_pool *pool, unsigned int cpu),
	TP_ARGS(pool, cpu),
	TP_STRUCT__entry(
		__field(const void *, pool)
		__field(unsigned int, cpu)
	),
	TP_fast_assign(
		__entry->pool = pool;
		__entry->cpu = cpu;
	),
	TP_printk("pool=%p worker=%u", __entry->pool, __entry->cpu)
);

DEFINE_EVENT(wsched_worker_event, wsched_sleep,
	TP_PROTO(const struct ws_pool *pool, unsigned int cpu),
	TP_ARGS(pool, cpu));

DEFINE_EVENT(wsched_worker_event, wsched_wake,
	TP_PROTO(const struct ws_pool *pool, unsigned int cpu),
	TP_ARGS(pool, cpu));

#endif /* _WSCHED_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE wsched_trace
#include <trace/define_trace.h>
