// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched checksums and hashes: crc32c (split with
 * ws_parallel_reduce(), since it combines), xxhash64 and sha256 (one piece,
 * yielding the CPU between slices of WSD_OP_SLICE bytes).
 *
 * Listed in the operation table of opdef.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/wsched.h>
#include <linux/xxhash.h>
#include <crypto/sha2.h>

#include "ws_op.h"
#include "op_hash.h"

/* The seed is 32 bits wide: the upper half of arg must be zero. */
int wsd_crc32c_check(const struct ws_op_args *args)
{
	return args->arg > U32_MAX ? -EINVAL : 0;
}

/*
 * The raw crc32c of [@b, @e): from the seed for the first chunk, from 0
 * for the others, which wsd_crc32c_join() shifts into place.
 */
static u64 wsd_crc32c_chunk(unsigned long b, unsigned long e, void *arg)
{
	const struct ws_op_args *args = arg;

	return __crc32c_le(b ? 0 : (u32)args->arg, args->data + b, e - b);
}

/*
 * crc32c without final inversion is linear: for any seed s,
 * crc_s(A || B) = shift(crc_s(A), |B|) ^ crc_0(B).
 */
static u64 wsd_crc32c_join(u64 left, u64 right, unsigned long rb,
			   unsigned long re, void *arg)
{
	return __crc32c_le_shift((u32)left, re - rb) ^ (u32)right;
}

static const struct ws_reduce_ops wsd_crc32c_ops = {
	.body = wsd_crc32c_chunk,
	.combine = wsd_crc32c_join,
	.identity = 0,
};

int wsd_crc32c_run(const struct ws_op_args *args, u64 *value)
{
	if (args->len <= WSD_OP_GRAIN) {
		*value = wsd_crc32c_chunk(0, args->len, (void *)args);
		return 0;
	}
	return ws_parallel_reduce(args->pool, 0, args->len, WSD_OP_GRAIN,
				  &wsd_crc32c_ops, (void *)args, value);
}

int wsd_xxhash64_run(const struct ws_op_args *args, u64 *value)
{
	struct xxh64_state state;
	size_t done, n;

	xxh64_reset(&state, args->arg);
	for (done = 0; done < args->len; done += n) {
		n = min_t(size_t, args->len - done, WSD_OP_SLICE);
		xxh64_update(&state, args->data + done, n);
		cond_resched();
	}
	*value = xxh64_digest(&state);
	return 0;
}

/* Slices also keep each sha256_update() within its unsigned int length. */
int wsd_sha256_run(const struct ws_op_args *args, u64 *value)
{
	struct sha256_state state;
	size_t done, n;

	sha256_init(&state);
	for (done = 0; done < args->len; done += n) {
		n = min_t(size_t, args->len - done, WSD_OP_SLICE);
		sha256_update(&state, args->data + done, n);
		cond_resched();
	}
	sha256_final(&state, args->data2);
	return 0;
}
