/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Registered buffers of a /dev/wsched context (rbuf.c): user pages
 * pinned and mapped for the data operations.
 */
#ifndef _WSD_RBUF_H
#define _WSD_RBUF_H

#include <linux/atomic.h>
#include <linux/types.h>

struct page;
struct wsd_ctx;

/**
 * struct wsd_buf - a registered buffer
 * @pages: the pinned user pages
 * @nr_pages: number of @pages
 * @map: kernel mapping of @pages (vmap())
 * @kaddr: kernel address of the buffer's first byte (in @map)
 * @len: length in bytes
 */
struct wsd_buf {
	struct page **pages;
	unsigned int nr_pages;
	void *map;
	void *kaddr;
	u64 len;
};

/* Pages pinned by all contexts, for debugfs (wsched/dev). */
extern atomic_long_t wsd_nr_pinned;

long wsd_register_buffers(struct wsd_ctx *ctx, void __user *arg);
long wsd_unregister_buffers(struct wsd_ctx *ctx);
void wsd_bufs_release(struct wsd_ctx *ctx);
int wsd_range(struct wsd_ctx *ctx, u32 buf, u64 off, u64 len, void **kaddr);

#endif /* _WSD_RBUF_H */
