// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched registered buffers: user memory pinned for the data
 * operations, charged to RLIMIT_MEMLOCK (per user, as io_uring, and per
 * process, shown as VmLck), mapped into the kernel with
 * vmap() so that nodes address it without touching user memory.
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/hugetlb.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sched/mm.h>
#include <linux/sched/user.h>
#include <linux/shmem_fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "wsd_ctx.h"
#include "wsd_dev.h"
#include "wsd_rbuf.h"

/* Pages pinned by the registered buffers of every context. */
atomic_long_t wsd_nr_pinned = ATOMIC_LONG_INIT(0);

/**
 * wsd_range - resolve a range of a registered buffer
 * @ctx: the context, whose lock the caller holds
 * @buf: the buffer's index
 * @off: offset of the range
 * @len: its length
 * @kaddr: set to the kernel address of the range
 *
 * Return: 0, -EINVAL (no such buffer) or -ERANGE.
 */
int wsd_range(struct wsd_ctx *ctx, u32 buf, u64 off, u64 len, void **kaddr)
{
	u64 end;

	lockdep_assert_held(&ctx->lock);
	if (buf >= ctx->nr_bufs)
		return -EINVAL;
	buf = array_index_nospec(buf, ctx->nr_bufs);
	if (check_add_overflow(off, len, &end) || end > ctx->bufs[buf].len)
		return -ERANGE;
	*kaddr = ctx->bufs[buf].kaddr + off;
	return 0;
}

/*
 * Unpin and free @nr buffers.  @written: nodes may have written them
 * (registered buffers are the targets of MEMCPY, MEMSET and registered
 * operations): the pages are marked dirty as they are unpinned, or the
 * kernel's writes through the kernel mapping, which no page table sees,
 * could be dropped with a clean page (shmem, hugetlbfs) or never written
 * back.
 */
static void wsd_bufs_free(struct wsd_ctx *ctx, struct wsd_buf *bufs, u32 nr,
			  bool written)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		if (bufs[i].map)
			vunmap(bufs[i].map);
		if (bufs[i].pages)
			unpin_user_pages_dirty_lock(bufs[i].pages,
						    bufs[i].nr_pages, written);
		kvfree(bufs[i].pages);
	}
	kvfree(bufs);
}

/*
 * Whether a pinned page may stay pinned for as long as the buffer is
 * registered: anonymous memory, shmem (memfd, tmpfs, SysV shm) and
 * hugetlbfs, as io_uring allows.  The page cache of a regular file is
 * refused: the file system may want to write it back, truncate it or
 * move it while the kernel writes into it.
 */
static bool wsd_page_long_term_ok(struct page *page)
{
	struct folio *folio = page_folio(page);
	struct address_space *mapping;

	if (folio_test_anon(folio) || folio_test_hugetlb(folio))
		return true;
	/* Pinned, so not freed; a truncated page has no mapping. */
	mapping = READ_ONCE(folio->mapping);
	return mapping && shmem_mapping(mapping);
}

/*
 * Since 6.5 GUP itself refuses a long-term writable pin of shared file
 * pages (they need dirty tracking), with -EFAULT.  Tell that apart from a
 * bad address by the VMAs of [@start, @end): the same policy as above.
 */
static bool wsd_range_has_file_pages(unsigned long start, unsigned long end)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	bool file = false;

	VMA_ITERATOR(vmi, mm, start);

	mmap_read_lock(mm);
	for_each_vma_range(vmi, vma, end) {
		if (vma->vm_file && (vma->vm_flags & VM_SHARED) &&
		    !shmem_mapping(vma->vm_file->f_mapping) &&
		    !is_vm_hugetlb_page(vma)) {
			file = true;
			break;
		}
	}
	mmap_read_unlock(mm);
	return file;
}

static int wsd_buf_pin(struct wsd_buf *buf, u64 addr, u64 len)
{
	unsigned long start = addr & PAGE_MASK;
	unsigned int nr = buf->nr_pages, i;
	int pinned, got = 0, ret = -EFAULT;

	buf->pages = kvmalloc_array(nr, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT);
	if (!buf->pages)
		return -ENOMEM;
	/*
	 * GUP returns a short count, not the error, when it stops part way
	 * (a page or page table it faults in cannot be allocated, say): go
	 * on from there, so that the error that stopped it is what the
	 * caller sees (ENOMEM, not EFAULT; the fault_test selftest's
	 * REGISTER_BUFFERS sweep found it).
	 */
	for (pinned = 0; pinned < nr; pinned += got) {
		got = pin_user_pages_fast(start + pinned * PAGE_SIZE,
					  nr - pinned,
					  FOLL_WRITE | FOLL_LONGTERM,
					  buf->pages + pinned);
		if (got <= 0)
			break;
	}
	if (got < 0 && got != -EFAULT)
		ret = got;
	else if (got == -EFAULT &&
		 wsd_range_has_file_pages(start, start + nr * PAGE_SIZE))
		ret = -EOPNOTSUPP;
	for (i = 0; pinned == nr && i < nr; i++) {
		if (!wsd_page_long_term_ok(buf->pages[i])) {
			ret = -EOPNOTSUPP;
			break;
		}
	}
	if (pinned != nr || i < nr) {
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		kvfree(buf->pages);
		buf->pages = NULL;
		return ret;
	}
	buf->map = vmap(buf->pages, nr, VM_MAP, PAGE_KERNEL);
	if (!buf->map)
		return -ENOMEM;
	buf->kaddr = buf->map + offset_in_page(addr);
	buf->len = len;
	return 0;
}

/*
 * Charge @pages to the user's locked memory, as io_uring does: without
 * CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds what one user pins across all of
 * its processes and files.  Return the user charged (a reference), NULL
 * when nothing was charged, or an ERR_PTR(-ENOMEM).
 */
static struct user_struct *wsd_user_charge(unsigned long pages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct user_struct *user;
	long cur;

	if (capable(CAP_IPC_LOCK))
		return NULL;
	user = get_current_user();
	/* Any order: only the total matters; others charge concurrently. */
	cur = atomic_long_read(&user->locked_vm);
	do {
		if (cur + pages > limit) {
			free_uid(user);
			return ERR_PTR(-ENOMEM);
		}
	} while (!atomic_long_try_cmpxchg(&user->locked_vm, &cur, cur + pages));
	return user;
}

static void wsd_user_uncharge(struct user_struct *user, unsigned long pages)
{
	if (!user)
		return;
	atomic_long_sub(pages, &user->locked_vm);
	free_uid(user);
}

/**
 * wsd_register_buffers - WSCHED_IOC_REGISTER_BUFFERS
 * @ctx: the context
 * @arg: user address of struct wsched_buf_reg
 *
 * Return: 0 or a negative errno.
 */
long wsd_register_buffers(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_buf *ubufs;
	struct wsched_buf_reg reg;
	struct user_struct *user;
	struct wsd_buf *bufs;
	unsigned long total = 0;
	u64 end;
	u32 i;
	long ret;

	if (copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	if (reg.size != sizeof(reg) || reg.flags || reg.resv0 ||
	    !wsd_zero(reg.resv, sizeof(reg.resv)) || !reg.nr ||
	    reg.nr > WSCHED_MAX_BUFS)
		return -EINVAL;
	ubufs = memdup_user(u64_to_user_ptr(reg.bufs_ptr),
			    reg.nr * sizeof(*ubufs));
	if (IS_ERR(ubufs))
		return PTR_ERR(ubufs);
	bufs = kvcalloc(reg.nr, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs) {
		kfree(ubufs);
		return -ENOMEM;
	}
	for (i = 0; i < reg.nr; i++) {
		const struct wsched_buf *ub = &ubufs[i];

		ret = -EINVAL;
		if (!ub->len || ub->len > WSCHED_BUF_MAX_LEN ||
		    check_add_overflow(ub->addr, ub->len, &end))
			goto out_free;
		/* Not user memory: as inaccessible as an unmapped range. */
		ret = -EFAULT;
		if (end > TASK_SIZE)
			goto out_free;
		bufs[i].nr_pages = (PAGE_ALIGN(end) - (ub->addr & PAGE_MASK)) >>
				   PAGE_SHIFT;
		total += bufs[i].nr_pages;
	}
	ret = -ENOMEM;
	if (total > wsd_pinned_limit() >> PAGE_SHIFT)
		goto out_free;

	/* Interruptible, as in wsd_submit(); nothing is pinned yet. */
	if (mutex_lock_interruptible(&ctx->lock)) {
		ret = -ERESTARTSYS;
		goto out_free;
	}
	ret = -EBUSY;
	if (ctx->bufs)
		goto out_unlock;
	/*
	 * ENOMEM beyond RLIMIT_MEMLOCK, unless CAP_IPC_LOCK: for the user
	 * (across its processes) and for this process (its VmLck).
	 */
	user = wsd_user_charge(total);
	ret = PTR_ERR_OR_ZERO(user);
	if (ret)
		goto out_unlock;
	ret = account_locked_vm(current->mm, total, true);
	if (ret) {
		wsd_user_uncharge(user, total);
		goto out_unlock;
	}
	for (i = 0; i < reg.nr; i++) {
		ret = wsd_buf_pin(&bufs[i], ubufs[i].addr, ubufs[i].len);
		if (ret) {
			account_locked_vm(current->mm, total, false);
			wsd_user_uncharge(user, total);
			goto out_unlock;
		}
	}
	mmgrab(current->mm);
	ctx->mm = current->mm;
	ctx->user = user;
	ctx->pinned_pages = total;
	atomic_long_add(total, &wsd_nr_pinned);
	ctx->bufs = bufs;
	ctx->nr_bufs = reg.nr;
	mutex_unlock(&ctx->lock);
	kfree(ubufs);
	return 0;

out_unlock:
	mutex_unlock(&ctx->lock);
out_free:
	/* Never registered: no node wrote them. */
	wsd_bufs_free(ctx, bufs, reg.nr, false);
	kfree(ubufs);
	return ret;
}

/**
 * wsd_bufs_release - unpin, uncharge and forget the buffers
 * @ctx: the context; no graph may use the buffers
 */
void wsd_bufs_release(struct wsd_ctx *ctx)
{
	if (!ctx->bufs)
		return;
	wsd_bufs_free(ctx, ctx->bufs, ctx->nr_bufs, true);
	account_locked_vm(ctx->mm, ctx->pinned_pages, false);
	wsd_user_uncharge(ctx->user, ctx->pinned_pages);
	atomic_long_sub(ctx->pinned_pages, &wsd_nr_pinned);
	ctx->user = NULL;
	mmdrop(ctx->mm);
	ctx->mm = NULL;
	ctx->bufs = NULL;
	ctx->nr_bufs = 0;
	ctx->pinned_pages = 0;
}

/**
 * wsd_unregister_buffers - WSCHED_IOC_UNREGISTER_BUFFERS
 * @ctx: the context
 *
 * Return: 0, -ENXIO if none is registered, -EBUSY while graphs are built
 * or running.
 */
long wsd_unregister_buffers(struct wsd_ctx *ctx)
{
	long ret = 0;

	/* Interruptible, as in wsd_submit(). */
	if (mutex_lock_interruptible(&ctx->lock))
		return -ERESTARTSYS;
	if (!ctx->bufs)
		ret = -ENXIO;
	/*
	 * nr_running: pairs with the barrier before the decrement in
	 * wsd_graph_done(), which follows the graph's last node.
	 */
	else if (ctx->build.nr || atomic_read_acquire(&ctx->nr_running))
		ret = -EBUSY;
	else
		wsd_bufs_release(ctx);
	mutex_unlock(&ctx->lock);
	return ret;
}

