// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched rings: WSCHED_IOC_SETUP creates the submission and
 * completion rings, mmap(2) maps them.
 *
 * The rings are pages this module allocates (charged to the opener's
 * memory cgroup), mapped into user space with vm_map_pages_zero() and
 * into the kernel with vmap().  User space may write anything there at
 * any time, so the kernel copies each SQ entry once and checks only the
 * copy, keeps its own SQ head and CQ tail, and reads the SQ tail and CQ
 * head once per use (submit.c, cq.c).
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "wsd_ctx.h"
#include "wsd_dev.h"

/* Layout of a ring's mapping: head and tail on their own cache lines. */
#define WSD_OFF_HEAD		0
#define WSD_OFF_TAIL		64
#define WSD_OFF_MASK		128
#define WSD_OFF_ENTRIES_NR	132
#define WSD_OFF_OVERFLOW	136
#define WSD_OFF_ARRAY		256

static int wsd_region_alloc(struct wsd_region *region, size_t size)
{
	unsigned int i, nr = PAGE_ALIGN(size) >> PAGE_SHIFT;

	region->pages = kvcalloc(nr, sizeof(*region->pages), GFP_KERNEL_ACCOUNT);
	if (!region->pages)
		return -ENOMEM;
	region->nr_pages = nr;
	for (i = 0; i < nr; i++) {
		region->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!region->pages[i])
			return -ENOMEM;
	}
	region->vaddr = vmap(region->pages, nr, VM_MAP, PAGE_KERNEL);
	return region->vaddr ? 0 : -ENOMEM;
}

static void wsd_region_free(struct wsd_region *region)
{
	unsigned int i;

	if (region->vaddr)
		vunmap(region->vaddr);
	for (i = 0; region->pages && i < region->nr_pages; i++)
		if (region->pages[i])
			__free_page(region->pages[i]);
	kvfree(region->pages);
	memset(region, 0, sizeof(*region));
}

/**
 * wsd_setup - WSCHED_IOC_SETUP: create the rings
 * @ctx: the context
 * @arg: user address of struct wsched_setup
 *
 * Return: 0 or a negative errno.
 */
long wsd_setup(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_setup p;
	u32 sq, cq;
	size_t sq_size, cq_size;
	long ret;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.size != sizeof(p) || (p.flags & ~WSCHED_SETUP_FLAGS) ||
	    p.features || !wsd_zero(&p.sq_off, sizeof(p.sq_off)) ||
	    !wsd_zero(&p.cq_off, sizeof(p.cq_off)) || p.sq_size || p.cq_size ||
	    !wsd_zero(p.resv, sizeof(p.resv)))
		return -EINVAL;
	sq = p.sq_entries;
	cq = p.cq_entries;
	if (!sq)
		return -EINVAL;
	if (sq > wsd_sq_limit()) {
		if (!(p.flags & WSCHED_SETUP_CLAMP))
			return -EINVAL;
		sq = wsd_sq_limit();
	}
	/*
	 * A CQ smaller than the SQ is refused: compare with the SQ size in
	 * force, clamped but not rounded yet (as asked for), not with what
	 * was asked for before WSCHED_SETUP_CLAMP clamped it.
	 */
	if (cq && cq < sq)
		return -EINVAL;
	sq = roundup_pow_of_two(sq);
	if (!cq) {
		cq = min(2 * sq, wsd_cq_limit());
	} else {
		if (cq > wsd_cq_limit()) {
			if (!(p.flags & WSCHED_SETUP_CLAMP))
				return -EINVAL;
			cq = wsd_cq_limit();
		}
	}
	cq = max(roundup_pow_of_two(cq), sq);

	sq_size = WSD_OFF_ARRAY + (size_t)sq * sizeof(struct wsched_sqe);
	cq_size = WSD_OFF_ARRAY + (size_t)cq * sizeof(struct wsched_cqe);

	/* Interruptible, as in wsd_submit(); nothing is done yet. */
	if (mutex_lock_interruptible(&ctx->lock))
		return -ERESTARTSYS;
	ret = -EBUSY;
	if (ctx->rings_ready)
		goto out;
	ret = wsd_region_alloc(&ctx->sq, sq_size);
	if (!ret)
		ret = wsd_region_alloc(&ctx->cq, cq_size);
	if (ret) {
		wsd_region_free(&ctx->sq);
		wsd_region_free(&ctx->cq);
		goto out;
	}
	ctx->sq_head = ctx->sq.vaddr + WSD_OFF_HEAD;
	ctx->sq_tail = ctx->sq.vaddr + WSD_OFF_TAIL;
	ctx->sqes = ctx->sq.vaddr + WSD_OFF_ARRAY;
	ctx->sq_entries = sq;
	*(u32 *)(ctx->sq.vaddr + WSD_OFF_MASK) = sq - 1;
	*(u32 *)(ctx->sq.vaddr + WSD_OFF_ENTRIES_NR) = sq;
	ctx->cq_head = ctx->cq.vaddr + WSD_OFF_HEAD;
	ctx->cq_tail = ctx->cq.vaddr + WSD_OFF_TAIL;
	ctx->cq_overflow = ctx->cq.vaddr + WSD_OFF_OVERFLOW;
	ctx->cqes = ctx->cq.vaddr + WSD_OFF_ARRAY;
	ctx->cq_entries = cq;
	*(u32 *)(ctx->cq.vaddr + WSD_OFF_MASK) = cq - 1;
	*(u32 *)(ctx->cq.vaddr + WSD_OFF_ENTRIES_NR) = cq;

	p.sq_entries = sq;
	p.cq_entries = cq;
	p.features = WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS |
		     WSCHED_FEAT_BUFFERS | WSCHED_FEAT_OP_NAMES |
		     WSCHED_FEAT_URING_CMD |
		     WSCHED_FEAT_URING_INLINE;
	p.sq_off.head = WSD_OFF_HEAD;
	p.sq_off.tail = WSD_OFF_TAIL;
	p.sq_off.ring_mask = WSD_OFF_MASK;
	p.sq_off.ring_entries = WSD_OFF_ENTRIES_NR;
	p.sq_off.entries = WSD_OFF_ARRAY;
	p.cq_off.head = WSD_OFF_HEAD;
	p.cq_off.tail = WSD_OFF_TAIL;
	p.cq_off.ring_mask = WSD_OFF_MASK;
	p.cq_off.ring_entries = WSD_OFF_ENTRIES_NR;
	p.cq_off.overflow = WSD_OFF_OVERFLOW;
	p.cq_off.entries = WSD_OFF_ARRAY;
	p.sq_size = sq_size;
	p.cq_size = cq_size;
	if (copy_to_user(arg, &p, sizeof(p))) {
		wsd_region_free(&ctx->sq);
		wsd_region_free(&ctx->cq);
		ret = -EFAULT;
		goto out;
	}
	/*
	 * Pairs with the acquire loads in wsd_mmap(), wsd_enter() and
	 * wsd_poll_events(): they see the rings set up above.
	 */
	smp_store_release(&ctx->rings_ready, true);
	ret = 0;
out:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * wsd_mmap - map a ring
 * @ctx: the context
 * @vma: the mapping; its offset selects the ring
 *
 * Return: 0 or a negative errno.
 */
int wsd_mmap(struct wsd_ctx *ctx, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct wsd_region *region;

	/* Pairs with the release in wsd_setup(); no ctx->lock under mmap_lock. */
	if (!smp_load_acquire(&ctx->rings_ready))
		return -EINVAL;
	if (off == WSCHED_OFF_SQ_RING)
		region = &ctx->sq;
	else if (off == WSCHED_OFF_CQ_RING)
		region = &ctx->cq;
	else
		return -EINVAL;
	if (vma_pages(vma) > region->nr_pages || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return vm_map_pages_zero(vma, region->pages, vma_pages(vma));
}

/**
 * wsd_rings_free - free the rings of a context being released
 * @ctx: the context
 */
void wsd_rings_free(struct wsd_ctx *ctx)
{
	wsd_region_free(&ctx->sq);
	wsd_region_free(&ctx->cq);
}

/**
 * wsd_check_ring_layout - compile-time checks of the ring ABI
 */
void __init wsd_check_ring_layout(void)
{
	BUILD_BUG_ON(sizeof(struct wsched_sqe) != 64);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, buf) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, off) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, arg) != 40);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, nr_preds) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, preds_ptr) != 56);
	BUILD_BUG_ON(sizeof(struct wsched_cqe) != 32);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, res) != 8);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, value) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, seq) != 24);
	BUILD_BUG_ON(sizeof(struct wsched_sq_offsets) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_cq_offsets) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_setup) != 120);
	BUILD_BUG_ON(offsetof(struct wsched_setup, sq_off) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_setup, cq_off) != 56);
	BUILD_BUG_ON(offsetof(struct wsched_setup, sq_size) != 88);
	BUILD_BUG_ON(sizeof(struct wsched_enter) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_enter, timeout_ns) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_enter, submitted) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_enter, resv) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_buf) != 16);
	BUILD_BUG_ON(sizeof(struct wsched_buf_reg) != 40);
	BUILD_BUG_ON(sizeof(struct wsched_op_info) != 48);
	BUILD_BUG_ON(sizeof(struct wsched_op_lookup) != 56);
	BUILD_BUG_ON(sizeof(struct wsched_op_list) != 32);
	BUILD_BUG_ON(WSD_OFF_ARRAY % 64);
}
