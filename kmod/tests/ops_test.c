// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the operations of /dev/wsched (opdef.c, op_*.c): every
 * built-in operation against a serial reference on odd sizes and offsets,
 * from outside and inside a pool, the scalar checks, and the table of
 * registered operations: register, lookup, list, duplicates, bad names,
 * a full table, and an unregister that waits for a user.
 */
#include <kunit/test.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>
#include <linux/xxhash.h>
#include <crypto/sha2.h>
#include <uapi/linux/wsched.h>

#include "ws_op.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

/* Larger than many grains, and not a multiple of any. */
#define OT_BIG		(SZ_1M + 3)

static const char * const ot_names[] = {
	[WSCHED_OP_NOP] = "nop",
	[WSCHED_OP_SPIN] = "spin",
	[WSCHED_OP_FAIL] = "fail",
	[WSCHED_OP_MEMCPY] = "memcpy",
	[WSCHED_OP_MEMSET] = "memset",
	[WSCHED_OP_MEMCMP] = "memcmp",
	[WSCHED_OP_CRC32C] = "crc32c",
	[WSCHED_OP_XXHASH64] = "xxhash64",
	[WSCHED_OP_SHA256] = "sha256",
};

static const unsigned int ot_flags[] = {
	[WSCHED_OP_MEMCPY] = WS_OP_RANGE | WS_OP_RANGE2 | WS_OP_SPLIT,
	[WSCHED_OP_MEMSET] = WS_OP_RANGE | WS_OP_SPLIT,
	[WSCHED_OP_MEMCMP] = WS_OP_RANGE | WS_OP_RANGE2 | WS_OP_SPLIT,
	[WSCHED_OP_CRC32C] = WS_OP_RANGE | WS_OP_SPLIT,
	[WSCHED_OP_XXHASH64] = WS_OP_RANGE,
	[WSCHED_OP_SHA256] = WS_OP_RANGE | WS_OP_RANGE2,
};

/**
 * struct ot_ctx - per-case state
 * @pool: a pool of the case's own, for ops run with an explicit pool
 * @ops: operations the case registered and has not unregistered yet
 * @nr: entries of @ops in use
 *
 * The exit hook unregisters what a failed case left behind, so that the
 * table never points into freed memory.
 */
struct ot_ctx {
	struct ws_pool *pool;
	struct ws_op *ops[WSCHED_OP_DYNAMIC_MAX + 1];
	unsigned int nr;
};

static int ot_init(struct kunit *test)
{
	struct ot_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	return 0;
}

static void ot_exit(struct kunit *test)
{
	struct ot_ctx *ctx = test->priv;

	while (ctx->nr)
		ws_op_unregister(ctx->ops[--ctx->nr]);
	if (ctx->pool)
		ws_pool_destroy(ctx->pool);
}

static struct ws_pool *ot_pool(struct kunit *test)
{
	struct ot_ctx *ctx = test->priv;

	if (!ctx->pool) {
		ctx->pool = ws_pool_create("t_ops");
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ctx->pool);
	}
	return ctx->pool;
}

static int ot_register(struct kunit *test, struct ws_op *op)
{
	struct ot_ctx *ctx = test->priv;
	int ret = ws_op_register(op);

	if (!ret)
		ctx->ops[ctx->nr++] = op;
	return ret;
}

static void ot_unregister(struct kunit *test, struct ws_op *op)
{
	struct ot_ctx *ctx = test->priv;
	unsigned int i;

	for (i = 0; i < ctx->nr; i++) {
		if (ctx->ops[i] == op) {
			ctx->ops[i] = ctx->ops[--ctx->nr];
			ws_op_unregister(op);
			return;
		}
	}
	KUNIT_FAIL(test, "unregistering %s, which is not registered",
		   op->name);
}

/* Run @id as /dev/wsched does: check (no data), then run. */
static int ot_op(struct kunit *test, u32 id, void *data, size_t len,
		 void *data2, u64 arg, struct ws_pool *pool, u64 *value)
{
	struct ws_op_args args = { .len = len, .arg = arg, .pool = pool };
	const struct ws_op *op = wsd_op_get(id);
	int ret = 0;

	KUNIT_ASSERT_NOT_NULL(test, op);
	*value = 0;
	if (op->check)
		ret = op->check(&args);
	if (!ret) {
		args.data = data;
		args.data2 = data2;
		ret = op->run(&args, value);
	}
	wsd_op_put(op);
	return ret;
}

/* Only the check hook of @id; 0 if it has none. */
static int ot_check(struct kunit *test, u32 id, size_t len, u64 arg)
{
	struct ws_op_args args = { .len = len, .arg = arg };
	const struct ws_op *op = wsd_op_get(id);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, op);
	ret = op->check ? op->check(&args) : 0;
	wsd_op_put(op);
	return ret;
}

/* xorshift32: a deterministic pattern. */
static void ot_fill(u8 *p, size_t len, u32 x)
{
	size_t i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x >> 24;
	}
}

static u8 *ot_buf(struct kunit *test, size_t len)
{
	u8 *p = vmalloc(len);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* ---- the built-in table ---- */

static void ops_builtin_table(struct kunit *test)
{
	struct wsched_op_info info;
	u32 id;

	KUNIT_EXPECT_EQ(test, wsd_builtin_ops_mask(),
			GENMASK_ULL(WSCHED_OP_LAST, 0));
	for (id = 0; id <= WSCHED_OP_LAST; id++) {
		const struct ws_op *op = wsd_op_get(id);

		KUNIT_ASSERT_NOT_NULL(test, op);
		KUNIT_EXPECT_EQ(test, op->id, id);
		KUNIT_EXPECT_STREQ(test, op->name, ot_names[id]);
		KUNIT_EXPECT_EQ(test, op->flags, ot_flags[id]);
		KUNIT_EXPECT_EQ(test, op->range2_len,
				id == WSCHED_OP_SHA256 ? 32 : 0);
		KUNIT_EXPECT_NOT_NULL(test, op->run);
		wsd_op_put(op);

		memset(&info, 0xff, sizeof(info));
		KUNIT_ASSERT_EQ(test, wsd_op_lookup(ot_names[id], &info), 0);
		KUNIT_EXPECT_EQ(test, info.op, id);
		KUNIT_EXPECT_STREQ(test, info.name, ot_names[id]);
		KUNIT_EXPECT_EQ(test, info.resv, 0);
		KUNIT_EXPECT_EQ(test, info.flags,
				(u32)(WSCHED_OPINFO_BUILTIN |
				      (ot_flags[id] & WS_OP_RANGE ?
				       WSCHED_OPINFO_RANGE : 0) |
				      (ot_flags[id] & WS_OP_RANGE2 ?
				       WSCHED_OPINFO_RANGE2 : 0)));
	}
	KUNIT_EXPECT_NULL(test, wsd_op_get(WSCHED_OP_LAST + 1));
	KUNIT_EXPECT_NULL(test, wsd_op_get(WSCHED_OP_DYNAMIC - 1));
	KUNIT_EXPECT_NULL(test, wsd_op_get(WSCHED_OP_DYNAMIC +
					   WSCHED_OP_DYNAMIC_MAX));
	KUNIT_EXPECT_NULL(test, wsd_op_get(U32_MAX));
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("nope", &info), -ENOENT);
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("", &info), -ENOENT);
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("crc32", &info), -ENOENT);
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("CRC32C", &info), -ENOENT);
}

/* ---- scalar operations and the checks ---- */

static void ops_scalar(struct kunit *test)
{
	u64 v;

	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_NOP, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_NOP, 0, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_NOP, NULL, 0, NULL, 0,
				    NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0);

	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_SPIN, 0,
				       WSCHED_SPIN_MAX), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_SPIN, 0,
				       WSCHED_SPIN_MAX + 1ULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_SPIN, 0, U64_MAX),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_SPIN, NULL, 0, NULL, 0,
				    NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_SPIN, NULL, 0, NULL, 5000,
				    NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0);

	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_FAIL, 0, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_FAIL, 0, 4096),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_FAIL, 0, 1ULL << 32),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_FAIL, NULL, 0, NULL, 1,
				    NULL, &v), -1);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_FAIL, NULL, 0, NULL,
				    EINVAL, NULL, &v), -EINVAL);
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_FAIL, NULL, 0, NULL, 4095,
				    NULL, &v), -4095);

	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_MEMSET, 1, 255), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_MEMSET, 1, 256),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_CRC32C, 1, U32_MAX), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_CRC32C, 1,
				       U32_MAX + 1ULL), -EINVAL);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_XXHASH64, 1, U64_MAX),
			0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_MEMCPY, 1, U64_MAX),
			0);
	/* Lengths are the range check's business, not the ops'. */
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_SHA256, SIZE_MAX, 0), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_MEMSET, SIZE_MAX, 0), 0);
	KUNIT_EXPECT_EQ(test, ot_check(test, WSCHED_OP_CRC32C, SIZE_MAX, 0), 0);
}

/* ---- data operations against serial references ---- */

static const size_t ot_sizes[] = {
	1, 3, 4095, SZ_64K - 1, SZ_64K, SZ_64K + 1, 3 * SZ_64K + 5, OT_BIG,
};

static const size_t ot_offs[] = { 0, 1, 3 };

static void ops_crc32c(struct kunit *test)
{
	static const u32 seeds[] = { 0, ~0U, 0x12345678 };
	static const u8 digits[] = "123456789";
	struct ws_pool *pools[] = { NULL, ot_pool(test) };
	u8 *buf = ot_buf(test, OT_BIG + 8);
	unsigned int s, o, k, p;
	u64 v;

	ot_fill(buf, OT_BIG + 8, 0x9e3779b9);
	/* The standard check value of CRC-32C. */
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_CRC32C, (void *)digits, 9,
				    NULL, ~0U, NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, ~(u32)v, 0xe3069283U);
	KUNIT_EXPECT_EQ(test, v >> 32, 0);

	for (k = 0; k < ARRAY_SIZE(ot_sizes); k++) {
		for (o = 0; o < ARRAY_SIZE(ot_offs); o++) {
			for (s = 0; s < ARRAY_SIZE(seeds); s++) {
				const u8 *d = buf + ot_offs[o];
				size_t len = ot_sizes[k];
				u32 want = __crc32c_le(seeds[s], d, len);

				p = (k + o + s) % ARRAY_SIZE(pools);
				KUNIT_ASSERT_EQ(test,
						ot_op(test, WSCHED_OP_CRC32C,
						      (void *)d, len, NULL,
						      seeds[s], pools[p], &v),
						0);
				KUNIT_EXPECT_EQ_MSG(test, v, (u64)want,
						    "len %zu off %zu seed %#x",
						    len, ot_offs[o], seeds[s]);
			}
		}
	}
	vfree(buf);
}

/* The sign of memcmp() as the op's value. */
static u64 ot_sign(const void *a, const void *b, size_t len)
{
	int r = memcmp(a, b, len);

	return r < 0 ? (u64)-1LL : r > 0;
}

static void ops_memcmp(struct kunit *test)
{
	struct ws_pool *pools[] = { NULL, ot_pool(test) };
	u8 *a = ot_buf(test, OT_BIG + 8);
	u8 *b = ot_buf(test, OT_BIG + 8);
	unsigned int k, p, w, d;
	u64 v;

	for (k = 0; k < ARRAY_SIZE(ot_sizes); k++) {
		size_t len = ot_sizes[k];
		size_t where[] = { 0, len / 2, len - 1 };
		/* Offsets 1 and 3: neither range is aligned. */
		u8 *x = a + 1, *y = b + 3;

		p = k % ARRAY_SIZE(pools);
		ot_fill(x, len, 0xdeadbeef);
		memcpy(y, x, len);
		KUNIT_ASSERT_EQ(test, ot_op(test, WSCHED_OP_MEMCMP, x, len, y,
					    3, pools[p], &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, 0, "len %zu equal", len);
		for (w = 0; w < ARRAY_SIZE(where); w++) {
			for (d = 0; d < 2; d++) {
				size_t i = where[w];
				u8 old = y[i];

				/* d == 0: x is below y there, else above. */
				x[i] = d ? 0x80 : 0x10;
				y[i] = d ? 0x10 : 0x80;
				KUNIT_ASSERT_EQ(test,
						ot_op(test, WSCHED_OP_MEMCMP,
						      x, len, y, 3, pools[p],
						      &v), 0);
				KUNIT_EXPECT_EQ_MSG(test, v, ot_sign(x, y, len),
						    "len %zu diff at %zu",
						    len, i);
				KUNIT_EXPECT_EQ(test, v,
						d ? 1ULL : (u64)-1LL);
				x[i] = old;
				y[i] = old;
			}
		}
		if (len < 3)
			continue;
		/* Two differences: the first one decides. */
		x[len / 2] = 0x80;
		y[len / 2] = 0x10;
		x[len - 1] = 0x10;
		y[len - 1] = 0x80;
		KUNIT_ASSERT_EQ(test, ot_op(test, WSCHED_OP_MEMCMP, x, len, y,
					    3, pools[p], &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, 1, "len %zu two diffs", len);
	}
	vfree(a);
	vfree(b);
}

/* Bytes around the target range that must stay untouched. */
#define OT_GUARD	16

static void ops_memcpy(struct kunit *test)
{
	struct ws_pool *pools[] = { NULL, ot_pool(test) };
	u8 *src = ot_buf(test, OT_BIG + 8);
	u8 *dst = ot_buf(test, OT_BIG + 2 * OT_GUARD + 8);
	unsigned int k, o, p;
	u64 v;

	ot_fill(src, OT_BIG + 8, 0x2545f491);
	for (k = 0; k < ARRAY_SIZE(ot_sizes); k++) {
		for (o = 0; o < ARRAY_SIZE(ot_offs); o++) {
			size_t len = ot_sizes[k], off = ot_offs[o];
			u8 *to = dst + OT_GUARD + off;
			const u8 *from = src + 3 - off;

			p = (k + o) % ARRAY_SIZE(pools);
			memset(dst, 0xee, OT_BIG + 2 * OT_GUARD + 8);
			KUNIT_ASSERT_EQ(test,
					ot_op(test, WSCHED_OP_MEMCPY, to, len,
					      (void *)from, 3 - off, pools[p],
					      &v), 0);
			KUNIT_EXPECT_EQ(test, v, 0);
			KUNIT_EXPECT_TRUE_MSG(test, !memcmp(to, from, len),
					      "len %zu off %zu", len, off);
			KUNIT_EXPECT_NULL(test, memchr_inv(dst, 0xee,
							   OT_GUARD + off));
			KUNIT_EXPECT_NULL(test, memchr_inv(to + len, 0xee,
							   OT_GUARD));
		}
	}
	vfree(src);
	vfree(dst);
}

static void ops_memset(struct kunit *test)
{
	static const u8 bytes[] = { 0, 0xa5, 0xff };
	struct ws_pool *pools[] = { NULL, ot_pool(test) };
	u8 *dst = ot_buf(test, OT_BIG + 2 * OT_GUARD + 8);
	unsigned int k, o, c;
	u64 v;

	for (k = 0; k < ARRAY_SIZE(ot_sizes); k++) {
		for (o = 0; o < ARRAY_SIZE(ot_offs); o++) {
			size_t len = ot_sizes[k], off = ot_offs[o];
			u8 *to = dst + OT_GUARD + off;

			c = (k + o) % ARRAY_SIZE(bytes);
			memset(dst, 0xee, OT_BIG + 2 * OT_GUARD + 8);
			KUNIT_ASSERT_EQ(test,
					ot_op(test, WSCHED_OP_MEMSET, to, len,
					      NULL, bytes[c],
					      pools[o % ARRAY_SIZE(pools)],
					      &v), 0);
			KUNIT_EXPECT_NULL_MSG(test, memchr_inv(to, bytes[c],
							       len),
					      "len %zu off %zu", len, off);
			KUNIT_EXPECT_NULL(test, memchr_inv(dst, 0xee,
							   OT_GUARD + off));
			KUNIT_EXPECT_NULL(test, memchr_inv(to + len, 0xee,
							   OT_GUARD));
		}
	}
	vfree(dst);
}

static void ops_xxhash64(struct kunit *test)
{
	static const u64 seeds[] = { 0, 1, U64_MAX, 0x0123456789abcdefULL };
	static const size_t sizes[] = { 1, 31, 32, 4095, SZ_256K - 1, SZ_256K,
					SZ_256K + 1, OT_BIG };
	u8 *buf = ot_buf(test, OT_BIG + 8);
	unsigned int k, s;
	u64 v;

	/* XXH64("abc", 0) from the reference implementation. */
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_XXHASH64, (void *)"abc", 3,
				    NULL, 0, NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0x44bc2cf5ad770999ULL);
	ot_fill(buf, OT_BIG + 8, 0x1234567);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		for (s = 0; s < ARRAY_SIZE(seeds); s++) {
			const u8 *d = buf + (k & 3);

			KUNIT_ASSERT_EQ(test,
					ot_op(test, WSCHED_OP_XXHASH64,
					      (void *)d, sizes[k], NULL,
					      seeds[s], NULL, &v), 0);
			KUNIT_EXPECT_EQ_MSG(test, v,
					    xxh64(d, sizes[k], seeds[s]),
					    "len %zu seed %llx", sizes[k],
					    seeds[s]);
		}
	}
	vfree(buf);
}

static void ops_sha256(struct kunit *test)
{
	static const u8 abc_digest[SHA256_DIGEST_SIZE] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea,
		0x41, 0x41, 0x40, 0xde, 0x5d, 0xae, 0x22, 0x23,
		0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17, 0x7a, 0x9c,
		0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	static const size_t sizes[] = { 1, 55, 56, 64, SZ_256K, SZ_256K + 1,
					OT_BIG };
	u8 out[SHA256_DIGEST_SIZE + 2 * OT_GUARD];
	u8 want[SHA256_DIGEST_SIZE];
	u8 *buf = ot_buf(test, OT_BIG + 8);
	u8 abc[3] = { 'a', 'b', 'c' };
	unsigned int k;
	u64 v;

	memset(out, 0xee, sizeof(out));
	KUNIT_EXPECT_EQ(test, ot_op(test, WSCHED_OP_SHA256, abc, 3,
				    out + OT_GUARD, 0, NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0);
	KUNIT_EXPECT_TRUE(test, !memcmp(out + OT_GUARD, abc_digest,
					SHA256_DIGEST_SIZE));
	KUNIT_EXPECT_NULL(test, memchr_inv(out, 0xee, OT_GUARD));
	KUNIT_EXPECT_NULL(test, memchr_inv(out + OT_GUARD + SHA256_DIGEST_SIZE,
					   0xee, OT_GUARD));

	ot_fill(buf, OT_BIG + 8, 0x7f4a7c15);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		const u8 *d = buf + (k & 3);

		sha256(d, sizes[k], want);
		memset(out, 0xee, sizeof(out));
		KUNIT_ASSERT_EQ(test, ot_op(test, WSCHED_OP_SHA256, (void *)d,
					    sizes[k], out + OT_GUARD, 0, NULL,
					    &v), 0);
		KUNIT_EXPECT_TRUE_MSG(test, !memcmp(out + OT_GUARD, want,
						    SHA256_DIGEST_SIZE),
				      "len %zu", sizes[k]);
		KUNIT_EXPECT_NULL(test,
				  memchr_inv(out + OT_GUARD + SHA256_DIGEST_SIZE,
					     0xee, OT_GUARD));
	}
	vfree(buf);
}

/* ---- data operations run by a task of the pool, as /dev/wsched does ---- */

/**
 * struct ot_task - an operation run from a task
 * @task: the task
 * @id: the operation
 * @args: its operands
 * @ret: what the run hook returned
 * @value: the value it stored
 */
struct ot_task {
	struct ws_task task;
	u32 id;
	struct ws_op_args args;
	int ret;
	u64 value;
};

static struct ws_task *ot_task_fn(struct ws_task *task)
{
	struct ot_task *t = container_of(task, struct ot_task, task);
	const struct ws_op *op = wsd_op_get(t->id);

	if (!op) {
		t->ret = -EOPNOTSUPP;
		return NULL;
	}
	t->ret = op->run(&t->args, &t->value);
	wsd_op_put(op);
	return NULL;
}

static void ops_in_pool(struct kunit *test)
{
	struct ws_pool *pool = ot_pool(test);
	u8 *a = ot_buf(test, OT_BIG + 8);
	u8 *b = ot_buf(test, OT_BIG + 8);
	struct ot_task t[3] = {};
	struct ws_group group;
	unsigned int i;

	ot_fill(a, OT_BIG + 8, 0xcafef00d);
	memcpy(b, a, OT_BIG + 8);
	b[OT_BIG - 2] ^= 1;
	/* crc32c and memcmp in the pool's tasks, memset into another range. */
	t[0].id = WSCHED_OP_CRC32C;
	t[0].args = (struct ws_op_args){ .data = a + 1, .len = OT_BIG,
					 .arg = ~0U, .pool = pool };
	t[1].id = WSCHED_OP_MEMCMP;
	t[1].args = (struct ws_op_args){ .data = a + 1, .len = OT_BIG,
					 .data2 = b + 1, .pool = pool };
	t[2].id = WSCHED_OP_CRC32C;
	t[2].args = (struct ws_op_args){ .data = b + 5, .len = OT_BIG - 7,
					 .arg = 7, .pool = pool };
	ws_group_init(&group, pool);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		ws_task_init(&t[i].task, ot_task_fn);
		ws_spawn(&group, &t[i].task);
	}
	KUNIT_ASSERT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, t[0].ret, 0);
	KUNIT_EXPECT_EQ(test, t[0].value, (u64)__crc32c_le(~0U, a + 1, OT_BIG));
	KUNIT_EXPECT_EQ(test, t[1].ret, 0);
	KUNIT_EXPECT_EQ(test, t[1].value, ot_sign(a + 1, b + 1, OT_BIG));
	KUNIT_EXPECT_NE(test, t[1].value, 0);
	KUNIT_EXPECT_EQ(test, t[2].ret, 0);
	KUNIT_EXPECT_EQ(test, t[2].value,
			(u64)__crc32c_le(7, b + 5, OT_BIG - 7));
	vfree(a);
	vfree(b);
}

/* ---- registered operations ---- */

/* A test operation: the XOR of the bytes of the range, serially. */
static int ot_xor_check(const struct ws_op_args *args)
{
	return args->arg ? -EINVAL : 0;
}

static int ot_xor_run(const struct ws_op_args *args, u64 *value)
{
	const u8 *p = args->data;
	u8 x = 0;
	size_t i;

	for (i = 0; i < args->len; i++)
		x ^= p[i];
	*value = x;
	return 0;
}

static void ot_op_init(struct ws_op *op, const char *name)
{
	memset(op, 0, sizeof(*op));
	op->name = name;
	op->owner = THIS_MODULE;
	op->flags = WS_OP_RANGE;
	op->check = ot_xor_check;
	op->run = ot_xor_run;
}

/* Whether @infos[0..@n) holds @op as registered. */
static bool ot_listed(const struct wsched_op_info *infos, u32 n,
		      const struct ws_op *op)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (infos[i].op == op->id && !strcmp(infos[i].name, op->name))
			return infos[i].flags == WSCHED_OPINFO_RANGE &&
			       !infos[i].resv;
	return false;
}

static void ops_register(struct kunit *test)
{
	struct wsched_op_info *infos;
	struct wsched_op_info info;
	struct ws_op *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	const struct ws_op *got;
	u8 data[] = { 0x01, 0x02, 0x04, 0x80, 0xff };
	u32 before, n, i, stale;
	int refs;
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, op);
	infos = kunit_kcalloc(test, WSCHED_OP_LAST + 1 + WSCHED_OP_DYNAMIC_MAX,
			      sizeof(*infos), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, infos);
	before = wsd_op_list(NULL, 0);
	KUNIT_ASSERT_GE(test, before, WSCHED_OP_LAST + 1);

	ot_op_init(op, "test.xor8");
	KUNIT_ASSERT_EQ(test, ot_register(test, op), 0);
	KUNIT_EXPECT_GE(test, op->id, WSCHED_OP_DYNAMIC);

	memset(&info, 0xff, sizeof(info));
	KUNIT_ASSERT_EQ(test, wsd_op_lookup("test.xor8", &info), 0);
	KUNIT_EXPECT_EQ(test, info.op, op->id);
	KUNIT_EXPECT_EQ(test, info.flags, (u32)WSCHED_OPINFO_RANGE);
	KUNIT_EXPECT_STREQ(test, info.name, "test.xor8");
	KUNIT_EXPECT_EQ(test, info.resv, 0);

	n = wsd_op_list(infos, before + 1);
	KUNIT_EXPECT_EQ(test, n, before + 1);
	KUNIT_EXPECT_TRUE(test, ot_listed(infos, n, op));
	for (i = 0; i <= WSCHED_OP_LAST; i++) {
		KUNIT_EXPECT_EQ(test, infos[i].op, i);
		KUNIT_EXPECT_STREQ(test, infos[i].name, ot_names[i]);
	}
	/* Too little room: as many as fit, and the total. */
	memset(infos, 0xa5, sizeof(*infos) * (before + 1));
	KUNIT_EXPECT_EQ(test, wsd_op_list(infos, 2), before + 1);
	KUNIT_EXPECT_STREQ(test, infos[1].name, "spin");
	KUNIT_EXPECT_EQ(test, infos[2].op, 0xa5a5a5a5U);

	/* Through the table, as /dev/wsched runs it. */
	refs = module_refcount(THIS_MODULE);
	got = wsd_op_get(op->id);
	KUNIT_ASSERT_PTR_EQ(test, got, (const struct ws_op *)op);
	KUNIT_EXPECT_EQ(test, atomic_read(&op->users), 1);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs + 1);
	wsd_op_put(got);
	KUNIT_EXPECT_EQ(test, atomic_read(&op->users), 0);
	KUNIT_EXPECT_EQ(test, module_refcount(THIS_MODULE), refs);
	KUNIT_EXPECT_EQ(test, ot_op(test, op->id, data, sizeof(data), NULL, 0,
				    NULL, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 0x01 ^ 0x02 ^ 0x04 ^ 0x80 ^ 0xff);
	KUNIT_EXPECT_EQ(test, ot_op(test, op->id, data, sizeof(data), NULL, 1,
				    NULL, &v), -EINVAL);

	ot_unregister(test, op);
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("test.xor8", &info), -ENOENT);
	KUNIT_EXPECT_NULL(test, wsd_op_get(op->id));
	n = wsd_op_list(infos, before + 1);
	KUNIT_EXPECT_EQ(test, n, before);
	KUNIT_EXPECT_FALSE(test, ot_listed(infos, n, op));

	/*
	 * The name is free again, and the new registration has a number
	 * of its own: the stale one names nothing.
	 */
	stale = op->id;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), 0);
	KUNIT_EXPECT_EQ(test, wsd_op_lookup("test.xor8", &info), 0);
	KUNIT_EXPECT_NE(test, op->id, stale);
	KUNIT_EXPECT_EQ(test, info.op, op->id);
	KUNIT_EXPECT_NULL(test, wsd_op_get(stale));
	got = wsd_op_get(op->id);
	KUNIT_EXPECT_PTR_EQ(test, got, (const struct ws_op *)op);
	if (got)
		wsd_op_put(got);
	ot_unregister(test, op);
}

static void ops_register_bad(struct kunit *test)
{
	static const char * const bad[] = {
		"", "Abc", "a b", "a/b", "a\tb", "caf\xc3\xa9", "a+b", "a:b",
		/* 32 characters: one too many. */
		"abcdefghijklmnopqrstuvwxyz012345",
	};
	static const char good[] = "abcdefghijklmnopqrstuvwxyz.-_01";
	struct ws_op *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	struct ws_op *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ot_op_init(op, bad[i]);
		KUNIT_EXPECT_EQ_MSG(test, ot_register(test, op), -EINVAL,
				    "name \"%s\"", bad[i]);
	}
	ot_op_init(op, NULL);
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	ot_op_init(op, "test.norun");
	op->run = NULL;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	ot_op_init(op, "test.flags");
	/* The lowest bit that names no flag. */
	op->flags = WS_OP_SPLIT << 1;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	op->flags = WS_OP_RANGE2;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	op->flags = WS_OP_SPLIT;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	op->flags = WS_OP_RANGE;
	op->range2_len = 8;
	KUNIT_EXPECT_EQ(test, ot_register(test, op), -EINVAL);
	for (i = 0; i <= WSCHED_OP_LAST; i++) {
		ot_op_init(op, ot_names[i]);
		KUNIT_EXPECT_EQ_MSG(test, ot_register(test, op), -EEXIST,
				    "built-in name %s", ot_names[i]);
	}

	ot_op_init(op, good);
	op->flags = WS_OP_RANGE | WS_OP_SPLIT;
	KUNIT_ASSERT_EQ(test, ot_register(test, op), 0);
	ot_unregister(test, op);
	ot_op_init(op, good);
	op->flags = WS_OP_RANGE | WS_OP_RANGE2;
	op->range2_len = 8;
	KUNIT_ASSERT_EQ(test, ot_register(test, op), 0);
	ot_op_init(dup, good);
	KUNIT_EXPECT_EQ(test, ot_register(test, dup), -EEXIST);
	ot_unregister(test, op);
}

static void ops_table_full(struct kunit *test)
{
	struct ws_op *ops = kunit_kcalloc(test, WSCHED_OP_DYNAMIC_MAX + 1,
					  sizeof(*ops), GFP_KERNEL);
	struct ws_op *dup = kunit_kzalloc(test, sizeof(*dup), GFP_KERNEL);
	char (*names)[WSCHED_OP_NAME_MAX];
	u32 others = wsd_op_list(NULL, 0) - (WSCHED_OP_LAST + 1);
	DECLARE_BITMAP(ids, WSCHED_OP_DYNAMIC_MAX) = {};
	struct ot_ctx *ctx = test->priv;
	unsigned int i, nr = 0;
	int ret = 0;

	KUNIT_ASSERT_NOT_NULL(test, ops);
	KUNIT_ASSERT_NOT_NULL(test, dup);
	names = kunit_kcalloc(test, WSCHED_OP_DYNAMIC_MAX + 1,
			      sizeof(*names), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, names);
	KUNIT_ASSERT_LE(test, others, WSCHED_OP_DYNAMIC_MAX);

	for (i = 0; i <= WSCHED_OP_DYNAMIC_MAX; i++) {
		snprintf(names[i], sizeof(names[i]), "test.full-%u", i);
		ot_op_init(&ops[i], names[i]);
		ret = ot_register(test, &ops[i]);
		if (ret)
			break;
		nr++;
		/* Distinct slots (the number modulo the table size). */
		KUNIT_EXPECT_FALSE(test, test_and_set_bit((ops[i].id -
							   WSCHED_OP_DYNAMIC) %
							  WSCHED_OP_DYNAMIC_MAX,
							  ids));
	}
	KUNIT_EXPECT_EQ(test, ret, -ENOSPC);
	KUNIT_EXPECT_EQ(test, nr, WSCHED_OP_DYNAMIC_MAX - others);
	KUNIT_EXPECT_EQ(test, wsd_op_list(NULL, 0),
			WSCHED_OP_LAST + 1 + WSCHED_OP_DYNAMIC_MAX);
	/* A duplicate is still a duplicate in a full table. */
	if (nr) {
		ot_op_init(dup, names[0]);
		KUNIT_EXPECT_EQ(test, ot_register(test, dup), -EEXIST);
	}

	/*
	 * Free one slot: the next registration takes it, with a number of
	 * its own (a new generation of the slot).
	 */
	if (nr) {
		u32 id = ops[nr / 2].id;

		ot_unregister(test, &ops[nr / 2]);
		KUNIT_EXPECT_EQ(test, ot_register(test, &ops[nr]), 0);
		KUNIT_EXPECT_EQ(test, (ops[nr].id - WSCHED_OP_DYNAMIC) %
				WSCHED_OP_DYNAMIC_MAX,
				(id - WSCHED_OP_DYNAMIC) % WSCHED_OP_DYNAMIC_MAX);
		KUNIT_EXPECT_NE(test, ops[nr].id, id);
		KUNIT_EXPECT_NULL(test, wsd_op_get(id));
	}
	while (ctx->nr)
		ot_unregister(test, ctx->ops[ctx->nr - 1]);
	KUNIT_EXPECT_EQ(test, wsd_op_list(NULL, 0), WSCHED_OP_LAST + 1 + others);
}

/**
 * struct ot_holder - a user of an operation that lets go late
 * @work: runs the user
 * @op: the operation, taken with wsd_op_get() before @work is queued
 * @gone: the user saw the operation vanish from lookups first
 * @released: set just before the user drops its reference
 */
struct ot_holder {
	struct work_struct work;
	const struct ws_op *op;
	bool gone;
	int released;
};

static void ot_holder_fn(struct work_struct *work)
{
	struct ot_holder *h = container_of(work, struct ot_holder, work);
	struct wsched_op_info info;
	unsigned long end = jiffies + 20 * HZ;
	const struct ws_op *again;

	/* Wait until ws_op_unregister() has taken the op out of the table. */
	while (wsd_op_lookup(h->op->name, &info) != -ENOENT &&
	       time_before(jiffies, end))
		msleep(20);
	again = wsd_op_get(h->op->id);
	h->gone = wsd_op_lookup(h->op->name, &info) == -ENOENT && !again;
	if (again)
		wsd_op_put(again);
	/* Now ws_op_unregister() waits: keep it waiting a while. */
	msleep(200);
	/* Pairs with smp_load_acquire() after ws_op_unregister() returns. */
	smp_store_release(&h->released, 1);
	wsd_op_put(h->op);
}

static void ops_unregister_waits(struct kunit *test)
{
	struct ws_op *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	struct ot_holder *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	struct ot_ctx *ctx = test->priv;
	int released;

	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_ASSERT_NOT_NULL(test, h);
	ot_op_init(op, "test.held");
	KUNIT_ASSERT_EQ(test, ot_register(test, op), 0);
	h->op = wsd_op_get(op->id);
	KUNIT_ASSERT_PTR_EQ(test, h->op, (const struct ws_op *)op);
	INIT_WORK(&h->work, ot_holder_fn);
	schedule_work(&h->work);

	/* Not through ot_unregister(): the holder drops its reference. */
	ctx->nr--;
	ws_op_unregister(op);
	/* Pairs with smp_store_release() in ot_holder_fn(). */
	released = smp_load_acquire(&h->released);
	flush_work(&h->work);
	KUNIT_EXPECT_TRUE(test, h->gone);
	KUNIT_EXPECT_EQ_MSG(test, released, 1,
			    "ws_op_unregister() returned while a user held the op");
	KUNIT_EXPECT_EQ(test, atomic_read(&op->users), 0);
}

static struct kunit_case ops_cases[] = {
	KUNIT_CASE(ops_builtin_table),
	KUNIT_CASE(ops_scalar),
	KUNIT_CASE(ops_crc32c),
	KUNIT_CASE(ops_memcmp),
	KUNIT_CASE(ops_memcpy),
	KUNIT_CASE(ops_memset),
	KUNIT_CASE(ops_xxhash64),
	KUNIT_CASE(ops_sha256),
	KUNIT_CASE(ops_in_pool),
	KUNIT_CASE(ops_register),
	KUNIT_CASE(ops_register_bad),
	KUNIT_CASE(ops_table_full),
	KUNIT_CASE(ops_unregister_waits),
	{}
};

static struct kunit_suite ops_suite = {
	.name = "wsched_ops",
	.init = ot_init,
	.exit = ot_exit,
	.test_cases = ops_cases,
};

kunit_test_suite(ops_suite);
