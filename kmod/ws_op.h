/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations /dev/wsched runs: the table and registry (opdef.c) and
 * the built-in families (op_basic.c, op_mem.c, op_hash.c).
 */
#ifndef _WS_OP_H
#define _WS_OP_H

#include <linux/compiler.h>
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

/* op_basic.c */
int wsd_nop_check(const struct ws_op_args *args);
int wsd_nop_run(const struct ws_op_args *args, u64 *value);
int wsd_spin_check(const struct ws_op_args *args);
int wsd_spin_run(const struct ws_op_args *args, u64 *value);
int wsd_fail_check(const struct ws_op_args *args);
int wsd_fail_run(const struct ws_op_args *args, u64 *value);

/* op_mem.c */
int wsd_memcpy_run(const struct ws_op_args *args, u64 *value);
int wsd_memset_check(const struct ws_op_args *args);
int wsd_memset_run(const struct ws_op_args *args, u64 *value);
int wsd_memcmp_run(const struct ws_op_args *args, u64 *value);

/* op_hash.c */
int wsd_crc32c_check(const struct ws_op_args *args);
int wsd_crc32c_run(const struct ws_op_args *args, u64 *value);
int wsd_xxhash64_run(const struct ws_op_args *args, u64 *value);
int wsd_sha256_run(const struct ws_op_args *args, u64 *value);

/* /dev/wsched itself (dev.c). */
int ws_dev_init(void);
void ws_dev_exit(void);

#endif /* _WS_OP_H */
