// SPDX-License-Identifier: GPL-2.0
/*
 * The processes that submit to /dev/wsched, each with its worker set.
 *
 * Work a process submits runs in that process's own pool, shared by every
 * file the process uses, the way io_uring keeps one io-wq per submitting
 * task rather than one per ring: a process with many files has at most
 * one worker per CPU it may use, and a file that another process
 * inherited or received runs that process's graphs in that process's
 * workers.  A pool is made on a process's first submission, with no
 * thread (ws_pool_create_user()); the graph engine grows it when a graph
 * has parallel work (wsd_graph_launch()), idle threads leave by
 * themselves, and the pool goes when the last file that the process
 * submitted on is released.
 *
 * Each file keeps the processes it ran graphs for (struct wsd_ctx_proc),
 * since their graphs may still be running; its release waits for them
 * and drops the references.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include "wsched_internal.h"
#include "wsd_ctx.h"

/**
 * struct wsd_proc - a process that submits, and its worker pool
 * @node: in wsd_procs, under wsd_procs_lock
 * @tgid: the process (its thread-group pid; a reference)
 * @refs: one per file that ran graphs for the process (wsd_procs_lock)
 * @pool: its pool (I)
 */
struct wsd_proc {
	struct hlist_node node;
	struct pid *tgid;
	unsigned int refs;
	struct ws_pool *pool;
};

static DEFINE_HASHTABLE(wsd_procs, 8);
/* Guards wsd_procs and the processes' @refs; outside every other lock. */
static DEFINE_MUTEX(wsd_procs_lock);

/* Processes with a pool now, for debugfs (wsched/dev). */
atomic_t wsd_nr_procs = ATOMIC_INIT(0);

/* The calling process's entry, with a reference: found or made. */
static struct wsd_proc *wsd_proc_get(void)
{
	struct pid *tgid = task_tgid(current);
	struct wsd_proc *proc;
	struct ws_pool *pool;

	mutex_lock(&wsd_procs_lock);
	hash_for_each_possible(wsd_procs, proc, node, (unsigned long)tgid) {
		if (proc->tgid == tgid) {
			proc->refs++;
			goto out;
		}
	}
	proc = kzalloc(sizeof(*proc), GFP_KERNEL_ACCOUNT);
	if (!proc) {
		proc = ERR_PTR(-ENOMEM);
		goto out;
	}
	pool = ws_pool_create_user();
	if (IS_ERR(pool)) {
		kfree(proc);
		proc = ERR_CAST(pool);
		goto out;
	}
	proc->pool = pool;
	proc->tgid = get_pid(tgid);
	proc->refs = 1;
	hash_add(wsd_procs, &proc->node, (unsigned long)tgid);
	atomic_inc(&wsd_nr_procs);
out:
	mutex_unlock(&wsd_procs_lock);
	return proc;
}

/* Drop a file's reference; the last one stops the process's workers. */
static void wsd_proc_put(struct wsd_proc *proc)
{
	mutex_lock(&wsd_procs_lock);
	if (--proc->refs) {
		mutex_unlock(&wsd_procs_lock);
		return;
	}
	hash_del(&proc->node);
	mutex_unlock(&wsd_procs_lock);
	ws_pool_destroy(proc->pool);
	put_pid(proc->tgid);
	kfree(proc);
	atomic_dec(&wsd_nr_procs);
}

/**
 * wsd_ctx_pool - the pool that runs the calling process's graphs
 * @ctx: the context it submits to
 *
 * The first submission of a process to @ctx adds the process to the
 * context's list (making its pool if it has none yet); later ones find
 * it in @ctx->last_proc.  Kthread workers are moved to the submitter's
 * cgroups and scheduling attributes here when they changed
 * (ws_user_refresh()).
 *
 * Context: process context, not under @ctx->lock.
 * Return: the pool, or an ERR_PTR(): -ENOMEM, -ERESTARTSYS.
 */
struct ws_pool *wsd_ctx_pool(struct wsd_ctx *ctx)
{
	/* Pairs with the release below: the entry is set up. */
	struct wsd_ctx_proc *cp = smp_load_acquire(&ctx->last_proc);
	struct pid *tgid = task_tgid(current);
	struct wsd_ctx_proc *fresh;
	struct wsd_proc *proc;

	if (likely(cp && cp->proc->tgid == tgid))
		goto found;
	/* Interruptible, as in wsd_submit(): nothing is done yet. */
	if (mutex_lock_interruptible(&ctx->lock))
		return ERR_PTR(-ERESTARTSYS);
	list_for_each_entry(cp, &ctx->procs, link)
		if (cp->proc->tgid == tgid)
			goto publish;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh) {
		mutex_unlock(&ctx->lock);
		return ERR_PTR(-ENOMEM);
	}
	proc = wsd_proc_get();
	if (IS_ERR(proc)) {
		mutex_unlock(&ctx->lock);
		kfree(fresh);
		return ERR_CAST(proc);
	}
	cp = fresh;
	cp->proc = proc;
	cp->pool = proc->pool;
	list_add_tail(&cp->link, &ctx->procs);
publish:
	/* Pairs with the acquire above and in wsd_nr_workers(). */
	smp_store_release(&ctx->last_proc, cp);
	mutex_unlock(&ctx->lock);
found:
	ws_user_refresh(cp->pool);
	return cp->pool;
}

/**
 * wsd_ctx_procs_release - drop a released context's processes
 * @ctx: the context; no graph of it is left
 *
 * The last file of a process stops the process's workers here.
 */
void wsd_ctx_procs_release(struct wsd_ctx *ctx)
{
	struct wsd_ctx_proc *cp, *tmp;

	list_for_each_entry_safe(cp, tmp, &ctx->procs, link) {
		list_del(&cp->link);
		wsd_proc_put(cp->proc);
		kfree(cp);
	}
	ctx->last_proc = NULL;
}
