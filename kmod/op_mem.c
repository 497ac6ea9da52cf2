// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched memory operations: memcpy, memset and memcmp, split with
 * ws_parallel_for() or ws_parallel_reduce() in chunks of WSD_OP_GRAIN bytes
 * (a range of one chunk or less runs inline).
 *
 * Listed in the operation table of opdef.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/limits.h>
#include <linux/string.h>
#include <linux/wsched.h>

#include "ws_op.h"
#include "op_mem.h"

static void wsd_memcpy_chunk(unsigned long b, unsigned long e, void *arg)
{
	const struct ws_op_args *args = arg;

	memcpy(args->data + b, args->data2 + b, e - b);
}

/*
 * Overlapping ranges (the same buffer) leave unspecified bytes in the
 * overlap, as memcpy() does, but stay inside both ranges.
 */
int wsd_memcpy_run(const struct ws_op_args *args, u64 *value)
{
	if (args->len <= WSD_OP_GRAIN) {
		wsd_memcpy_chunk(0, args->len, (void *)args);
		return 0;
	}
	return ws_parallel_for(args->pool, 0, args->len, WSD_OP_GRAIN,
			       wsd_memcpy_chunk, (void *)args);
}

int wsd_memset_check(const struct ws_op_args *args)
{
	return args->arg > U8_MAX ? -EINVAL : 0;
}

static void wsd_memset_chunk(unsigned long b, unsigned long e, void *arg)
{
	const struct ws_op_args *args = arg;

	memset(args->data + b, (u8)args->arg, e - b);
}

int wsd_memset_run(const struct ws_op_args *args, u64 *value)
{
	if (args->len <= WSD_OP_GRAIN) {
		wsd_memset_chunk(0, args->len, (void *)args);
		return 0;
	}
	return ws_parallel_for(args->pool, 0, args->len, WSD_OP_GRAIN,
			       wsd_memset_chunk, (void *)args);
}

/* The sign of memcmp() over [@b, @e) as -1, 0 or 1 in a u64. */
static u64 wsd_memcmp_chunk(unsigned long b, unsigned long e, void *arg)
{
	const struct ws_op_args *args = arg;
	int r = memcmp(args->data + b, args->data2 + b, e - b);

	return r < 0 ? (u64)-1LL : r > 0;
}

/* The first chunk that differs decides. */
static u64 wsd_memcmp_join(u64 left, u64 right, unsigned long rb,
			   unsigned long re, void *arg)
{
	return left ? left : right;
}

static const struct ws_reduce_ops wsd_memcmp_ops = {
	.body = wsd_memcmp_chunk,
	.combine = wsd_memcmp_join,
	.identity = 0,
};

int wsd_memcmp_run(const struct ws_op_args *args, u64 *value)
{
	if (args->len <= WSD_OP_GRAIN) {
		*value = wsd_memcmp_chunk(0, args->len, (void *)args);
		return 0;
	}
	return ws_parallel_reduce(args->pool, 0, args->len, WSD_OP_GRAIN,
				  &wsd_memcmp_ops, (void *)args, value);
}
