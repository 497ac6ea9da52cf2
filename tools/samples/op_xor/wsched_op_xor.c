// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_op_xor: a sample operation for /dev/wsched.
 *
 * Registers "sample.xor8": a node with this operation takes one range of
 * a registered buffer, (buf, off, len), and completes with the XOR of all
 * its bytes as its value.  The range is cut into chunks that the workers
 * of the pool XOR in parallel (ws_parallel_reduce()); XOR is associative
 * and commutative, so the chunks' values simply XOR together.
 *
 * User space finds the operation's number with WSCHED_IOC_OP_LOOKUP
 * ("sample.xor8") and puts it in struct wsched_sqe.op, with arg 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/align.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/wsched.h>

/* Bytes per chunk: a few microseconds of work. */
#define XOR8_GRAIN	SZ_64K

/* The XOR of the bytes [@b, @e) of @arg, a word at a time. */
static u64 xor8_chunk(unsigned long b, unsigned long e, void *arg)
{
	const u8 *p = (const u8 *)arg + b;
	size_t n = e - b, i;
	unsigned long w = 0;
	u8 x = 0;

	for (; n && !IS_ALIGNED((unsigned long)p, sizeof(w)); n--)
		x ^= *p++;
	for (; n >= sizeof(w); n -= sizeof(w), p += sizeof(w))
		w ^= *(const unsigned long *)p;
	for (; n; n--)
		x ^= *p++;
	/* The bytes of @w, in whatever order, XOR into one. */
	for (i = 0; i < sizeof(w); i++, w >>= 8)
		x ^= (u8)w;
	return x;
}

static u64 xor8_join(u64 left, u64 right, unsigned long right_begin,
		     unsigned long right_end, void *arg)
{
	return left ^ right;
}

static const struct ws_reduce_ops xor8_reduce = {
	.body = xor8_chunk,
	.combine = xor8_join,
	.identity = 0,
};

/* arg is the op's scalar, and it has none: it must be zero. */
static int xor8_check(const struct ws_op_args *args)
{
	return args->arg ? -EINVAL : 0;
}

static int xor8_run(const struct ws_op_args *args, u64 *value)
{
	if (args->len <= XOR8_GRAIN) {
		*value = xor8_chunk(0, args->len, args->data);
		return 0;
	}
	return ws_parallel_reduce(args->pool, 0, args->len, XOR8_GRAIN,
				  &xor8_reduce, args->data, value);
}

static struct ws_op xor8_op = {
	.name = "sample.xor8",
	.owner = THIS_MODULE,
	.flags = WS_OP_RANGE | WS_OP_SPLIT,
	.check = xor8_check,
	.run = xor8_run,
};

static int __init wsched_op_xor_init(void)
{
	int ret = ws_op_register(&xor8_op);

	if (ret) {
		pr_err("cannot register %s: %d\n", xor8_op.name, ret);
		return ret;
	}
	pr_info("operation %s is number %u\n", xor8_op.name, xor8_op.id);
	return 0;
}

static void __exit wsched_op_xor_exit(void)
{
	ws_op_unregister(&xor8_op);
}

module_init(wsched_op_xor_init);
module_exit(wsched_op_xor_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wsched sample: an operation for /dev/wsched, the XOR of a range");
MODULE_AUTHOR("wsched developers");
