/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations /dev/wsched runs: the table and registry (opdef.c), and
 * what the engine inlines of them.  Each built-in family declares its own
 * functions (op_basic.h, op_mem.h, op_hash.h).
 */
#ifndef _WS_OP_H
#define _WS_OP_H

#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/nospec.h>
#include <linux/sizes.h>
#include <linux/types.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

struct wsched_op_info;

/* Bytes per chunk of a parallel data operation. */
#define WSD_OP_GRAIN		SZ_64K

/* Bytes a sequential hash takes between two chances to reschedule. */
#define WSD_OP_SLICE		SZ_256K

/* Largest errno a WSCHED_OP_FAIL node may return. */
#define WSD_OP_MAX_ERRNO	4095

/* The registry (opdef.c); the built-in table, indexed by WSCHED_OP_*. */
extern const struct ws_op wsd_builtin_ops[WSCHED_OP_LAST + 1];

const struct ws_op *wsd_op_get(u32 id);
void wsd_op_put(const struct ws_op *op);
int wsd_op_lookup(const char *name, struct wsched_op_info *info);
u32 wsd_op_list(struct wsched_op_info *infos, u32 room);
u64 wsd_builtin_ops_mask(void);

/*
 * wsd_op_get() and wsd_op_put() for the engine's hot path: a built-in
 * operation needs no reference and no call (a call costs a translation
 * block lookup under QEMU TCG, where the benchmarks run).
 */
static __always_inline const struct ws_op *wsd_op_take(u32 id)
{
	/* @id comes from user space: no speculation past the bounds. */
	if (likely(id <= WSCHED_OP_LAST))
		return &wsd_builtin_ops[array_index_nospec(id,
							   WSCHED_OP_LAST + 1)];
	return wsd_op_get(id);
}

static __always_inline void wsd_op_drop(const struct ws_op *op)
{
	if (op < wsd_builtin_ops || op > &wsd_builtin_ops[WSCHED_OP_LAST])
		wsd_op_put(op);
}

/* SPIN nodes up to this many iterations count as cheap (a few us). */
#define WSD_SPIN_CHEAP		1024

/*
 * Whether a node costs less than waking a worker for it: NOP, FAIL and
 * short SPIN nodes take less time than a cross-CPU wake-up, so the engine
 * runs them where they become ready instead of waking an idle worker to
 * steal them (as io_uring completes a NOP inline).  Data operations and
 * registered operations may take long: never cheap.
 */
static __always_inline bool wsd_op_cheap(const struct ws_op *op,
					 const struct ws_op_args *args)
{
	if (op == &wsd_builtin_ops[WSCHED_OP_NOP] ||
	    op == &wsd_builtin_ops[WSCHED_OP_FAIL])
		return true;
	return op == &wsd_builtin_ops[WSCHED_OP_SPIN] &&
	       args->arg <= WSD_SPIN_CHEAP;
}

/*
 * Threads a ready node of @op can keep busy: one, or for an op that
 * splits its range (WS_OP_SPLIT) one per WSD_OP_GRAIN bytes of it, at
 * most the CPUs.  wsd_graph_launch() asks the submitter's pool for that
 * many, so that a one-node graph over a large buffer runs in parallel.
 */
static __always_inline u32 wsd_op_width(const struct ws_op *op,
					const struct ws_op_args *args)
{
	if (!(op->flags & WS_OP_SPLIT))
		return 1;
	return min_t(u64, DIV_ROUND_UP_ULL(args->len, WSD_OP_GRAIN),
		     nr_cpu_ids);
}

/* A NOP takes no argument. */
static __always_inline int __wsd_nop_check(const struct ws_op_args *args)
{
	return args->arg ? -EINVAL : 0;
}

/*
 * Check and run a node's operation.  The NOP, the most frequent and the
 * cheapest, is decided inline: under QEMU TCG, where the benchmarks run,
 * an indirect call costs more than the NOP itself.  The table entry of
 * the NOP points at the same functions (op_basic.c).
 */
static __always_inline int wsd_op_check(const struct ws_op *op,
					const struct ws_op_args *args)
{
	if (op == &wsd_builtin_ops[WSCHED_OP_NOP])
		return __wsd_nop_check(args);
	return op->check ? op->check(args) : 0;
}

static __always_inline int wsd_op_run(const struct ws_op *op,
				      const struct ws_op_args *args, u64 *value)
{
	if (op == &wsd_builtin_ops[WSCHED_OP_NOP])
		return 0;
	return op->run(args, value);
}

int wsd_ops_init(void);
void wsd_ops_exit(void);

#endif /* _WS_OP_H */
