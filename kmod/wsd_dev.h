/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched itself (dev.c): the device, its module parameters and the
 * limits they set, and the totals debugfs shows.
 */
#ifndef _WSD_DEV_H
#define _WSD_DEV_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>

/* Module parameters (dev.c). */
extern unsigned int wsd_max_nodes;
extern unsigned int wsd_max_inflight;
extern unsigned int wsd_max_pinned_mb;
extern unsigned int wsd_max_sq_entries;
extern unsigned int wsd_max_cq_entries;

/* Hard bounds of the parameters. */
#define WSD_NODES_LIMIT		(1024U * 1024)
#define WSD_SQ_LIMIT		32768U
#define WSD_CQ_LIMIT		65536U
#define WSD_INFLIGHT_LIMIT	(16U * 1024 * 1024)
#define WSD_PINNED_MB_LIMIT	(1024U * 1024)

/*
 * The limits in force.  The parameters are read without a lock, pairing
 * with the plain store of param_set_uint_minmax() (dev.c) when root
 * writes one: an aligned load sees the old or the new value, both in
 * range; the clamps only restate the ranges.
 */
static inline u32 wsd_nodes_limit(void)
{
	return clamp(READ_ONCE(wsd_max_nodes), 1U, WSD_NODES_LIMIT);
}

static inline u32 wsd_inflight_limit(void)
{
	return clamp(READ_ONCE(wsd_max_inflight), 1U, WSD_INFLIGHT_LIMIT);
}

static inline u32 wsd_sq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_sq_entries), 1U, WSD_SQ_LIMIT);
}

static inline u32 wsd_cq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_cq_entries), 1U, WSD_CQ_LIMIT);
}

/* Bytes of registered buffers per context. */
static inline u64 wsd_pinned_limit(void)
{
	return (u64)READ_ONCE(wsd_max_pinned_mb) << 20;
}

/* Whether a reserved field from user space is all zero. */
static inline bool wsd_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* Open files of /dev/wsched, for debugfs (wsched/dev). */
extern atomic_t wsd_nr_files;

int ws_dev_init(void);
void ws_dev_exit(void);

#endif /* _WSD_DEV_H */
