/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rings of a /dev/wsched context (rings.c): WSCHED_IOC_SETUP and the
 * mapping of the submission and completion rings.
 */
#ifndef _WSD_RINGS_H
#define _WSD_RINGS_H

#include <linux/types.h>

struct page;
struct vm_area_struct;
struct wsd_ctx;

/**
 * struct wsd_region - kernel memory that user space maps (one ring)
 * @pages: the pages, charged to the opener's memory cgroup
 * @nr_pages: number of @pages
 * @vaddr: kernel mapping of @pages
 */
struct wsd_region {
	struct page **pages;
	unsigned int nr_pages;
	void *vaddr;
};

long wsd_setup(struct wsd_ctx *ctx, void __user *arg);
int wsd_mmap(struct wsd_ctx *ctx, struct vm_area_struct *vma);
void wsd_rings_free(struct wsd_ctx *ctx);
void wsd_check_ring_layout(void);

#endif /* _WSD_RINGS_H */
