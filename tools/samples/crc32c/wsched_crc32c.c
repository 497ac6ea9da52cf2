// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_crc32c: a sample client of wsched's public API.
 *
 * At load, fills a buffer with a deterministic pseudo-random pattern and
 * computes its crc32c twice: serially, and with ws_parallel_reduce() on
 * ws_system_pool, each chunk's crc computed from 0 and the chunks joined
 * in index order with __crc32c_le_shift() (crc32c is linear, not
 * commutative).  Loading fails with -EIO if the two differ.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/crc32.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sizes.h>
#include <linux/vmalloc.h>
#include <linux/wsched.h>

static unsigned int size_mb = 16;
module_param(size_mb, uint, 0444);
MODULE_PARM_DESC(size_mb, "Size of the buffer in MiB (1 to 1024, default 16)");

/* Bytes per chunk: big enough that a chunk costs tens of microseconds. */
#define CRC_GRAIN	SZ_64K

/* The raw crc32c (seed 0, no inversion) of the chunk [begin, end). */
static u64 crc_chunk(unsigned long begin, unsigned long end, void *arg)
{
	const u8 *buf = arg;

	return __crc32c_le(0, buf + begin, end - begin);
}

/*
 * The raw crc32c of two adjacent parts: the left one's crc pushed past
 * the right one's length, then the right one's crc xored in.
 */
static u64 crc_join(u64 left, u64 right, unsigned long right_begin,
		    unsigned long right_end, void *arg)
{
	return __crc32c_le_shift(left, right_end - right_begin) ^ (u32)right;
}

static const struct ws_reduce_ops crc_ops = {
	.body = crc_chunk,
	.combine = crc_join,
	.identity = 0,
};

/* xorshift32 (Marsaglia 2003): the same bytes on every load. */
static void fill_pattern(u8 *buf, size_t size)
{
	u32 x = 0x9e3779b9;
	size_t i;

	for (i = 0; i < size; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = x >> 24;
	}
}

static int __init wsched_crc32c_init(void)
{
	size_t size;
	u64 raw = 0;
	u32 serial, parallel;
	ktime_t t0, t1, t2;
	u8 *buf;
	int ret;

	if (!size_mb || size_mb > 1024)
		return -EINVAL;
	size = (size_t)size_mb * SZ_1M;
	buf = vmalloc(size);
	if (!buf)
		return -ENOMEM;
	fill_pattern(buf, size);

	t0 = ktime_get();
	/* The standard crc32c: seed ~0, result inverted. */
	serial = ~__crc32c_le(~0U, buf, size);
	t1 = ktime_get();
	ret = ws_parallel_reduce(ws_system_pool, 0, size, CRC_GRAIN, &crc_ops,
				 buf, &raw);
	/* Put the seed back in: crc(~0, x) = crc(0, x) ^ shift(~0, |x|). */
	parallel = ~((u32)raw ^ __crc32c_le_shift(~0U, size));
	t2 = ktime_get();
	vfree(buf);

	if (ret) {
		pr_err("ws_parallel_reduce failed: %d\n", ret);
		return ret;
	}
	if (parallel != serial) {
		pr_err("%zu bytes crc32c 0x%08x serial 0x%08x MISMATCH\n",
		       size, parallel, serial);
		return -EIO;
	}
	pr_info("%zu bytes crc32c 0x%08x serial 0x%08x ok (parallel %lld us, serial %lld us)\n",
		size, parallel, serial, ktime_us_delta(t2, t1),
		ktime_us_delta(t1, t0));
	return 0;
}

static void __exit wsched_crc32c_exit(void)
{
}

module_init(wsched_crc32c_init);
module_exit(wsched_crc32c_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wsched sample: crc32c with ws_parallel_reduce()");
MODULE_AUTHOR("wsched developers");
