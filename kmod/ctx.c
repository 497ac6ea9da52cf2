// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a /dev/wsched context: made at open, torn down at release,
 * and the processes whose workers run its graphs.
 *
 * Work a process submits runs in that process's own pool (proc.c), shared
 * by every file the process uses.  A context keeps the processes that ran
 * graphs on it (struct wsd_ctx_proc), each with a reference on that
 * process's worker set, since their graphs may still be running after the
 * process moved on; its release cancels what has not started, waits for
 * the rest while helping to run it, and drops the references.
 *
 * The rings (rings.c), buffers (rbuf.c), submission (submit.c), graphs
 * (graph.c) and completions (cq.c) have files of their own; wsd_ctx.h
 * tags who may touch each field.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

#include "wsched_internal.h"
#include "wsd_cq.h"
#include "wsd_ctx.h"
#include "wsd_proc.h"
#include "wsd_rbuf.h"

/**
 * wsd_ctx_create - a context for a file being opened
 *
 * Context: process context, may sleep.
 * Return: the context, or NULL when out of memory.
 */
struct wsd_ctx *wsd_ctx_create(void)
{
	struct wsd_ctx *ctx;

	/* Charged to the opener: a process may open many files. */
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return NULL;
	atomic64_set(&ctx->nodes_run, 0);
	atomic64_set(&ctx->graphs_run, 0);
	mutex_init(&ctx->lock);
	spin_lock_init(&ctx->cq_lock);
	INIT_LIST_HEAD(&ctx->held);
	init_waitqueue_head(&ctx->cq_wait);
	INIT_LIST_HEAD(&ctx->procs);
	atomic_set(&ctx->nr_graphs, 0);
	atomic_set(&ctx->nr_running, 0);
	atomic_set(&ctx->inflight, 0);
	init_llist_head(&ctx->cache);
	atomic_set(&ctx->nr_cached, 0);
	return ctx;
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
	/* Pairs with the acquire above and in wsd_ctx_help(). */
	smp_store_release(&ctx->last_proc, cp);
	mutex_unlock(&ctx->lock);
found:
	ws_user_refresh(cp->pool);
	return cp->pool;
}

/**
 * wsd_ctx_help - run the caller's queued nodes before it waits
 * @ctx: the context it waits on
 * @cond: the wait's condition
 * @arg: its argument
 *
 * A submitter that launched graphs without waiting and waits now: if its
 * process's pool has work and no thread (none could be made: pids.max,
 * RLIMIT_NPROC), it runs the work itself, as it would have at launch.
 */
void wsd_ctx_help(struct wsd_ctx *ctx, bool (*cond)(void *arg), void *arg)
{
	/* Pairs with the release in wsd_ctx_pool(). */
	struct wsd_ctx_proc *cp = smp_load_acquire(&ctx->last_proc);

	if (!cp || READ_ONCE(cp->pool->nr_threads) ||
	    !ws_pool_has_work(cp->pool))
		return;
	wsd_help(cp->pool, cond, arg, false);
}

/**
 * wsd_ctx_nr_workers - threads that may run the caller's graphs
 * @ctx: the context
 *
 * Return: the CPUs the caller may use, or the file's cap when lower (its
 * pool makes the threads as its graphs need them).
 */
u32 wsd_ctx_nr_workers(struct wsd_ctx *ctx)
{
	u32 cpus = cpumask_weight_and(current->cpus_ptr, cpu_online_mask);
	u32 cap = READ_ONCE(ctx->max_workers);

	return cap ? min(cap, cpus) : cpus;
}

/**
 * wsd_ctx_max_workers - WSCHED_IOC_MAX_WORKERS
 * @ctx: the context
 * @arg: user address of the new cap (non-zero) or 0 to read it
 *
 * Sets or reads the most threads this file's graphs grow their process's
 * pool to, and answers the previous value, as
 * IORING_REGISTER_IOWQ_MAX_WORKERS does.
 *
 * Return: 0, -EFAULT or -ERESTARTSYS.
 */
long wsd_ctx_max_workers(struct wsd_ctx *ctx, u32 __user *arg)
{
	u32 cap, old;

	if (get_user(cap, arg))
		return -EFAULT;
	if (mutex_lock_interruptible(&ctx->lock))
		return -ERESTARTSYS;
	old = ctx->max_workers;
	if (put_user(old, arg)) {
		mutex_unlock(&ctx->lock);
		return -EFAULT;
	}
	/* Pairs with the READ_ONCE() of launches: a plain aligned store. */
	if (cap)
		WRITE_ONCE(ctx->max_workers, cap);
	mutex_unlock(&ctx->lock);
	return 0;
}

static bool wsd_no_graphs(void *arg)
{
	struct wsd_ctx *ctx = arg;

	/*
	 * Pairs with the decrement in wsd_graph_put(), each graph's last
	 * access to the context.
	 */
	return !atomic_read(&ctx->nr_graphs);
}

/*
 * Wait until no graph of @ctx is left, running what is queued in the
 * processes' pools meanwhile: their threads may be gone (SIGKILL of the
 * process ends them, and the release may run on its last thread) or may
 * not be made, and nodes that start now are cancelled, so this ends.
 */
static void wsd_ctx_drain(struct wsd_ctx *ctx)
{
	struct wsd_ctx_proc *cp;

	while (!wsd_no_graphs(ctx)) {
		list_for_each_entry(cp, &ctx->procs, link)
			wsd_help(cp->pool, wsd_no_graphs, ctx, true);
		/* A tick at most: the work may be on threads of its own. */
		wait_var_event_timeout(&ctx->nr_graphs, wsd_no_graphs(ctx), 1);
	}
}

/* Drop the processes; the last file of a process stops its workers. */
static void wsd_ctx_procs_release(struct wsd_ctx *ctx)
{
	struct wsd_ctx_proc *cp, *tmp;

	list_for_each_entry_safe(cp, tmp, &ctx->procs, link) {
		list_del(&cp->link);
		wsd_proc_put(cp->proc);
		kfree(cp);
	}
	ctx->last_proc = NULL;
}

/**
 * wsd_ctx_destroy - tear down the context of a file being released
 * @ctx: the context
 *
 * Nodes that have not started are cancelled (they post -ECANCELED with
 * WSCHED_RES_ABORTED to a CQ nobody reads), running ones finish, held-back
 * completions are dropped at once.  Then the references on the
 * processes' pools (the last one stops a pool's threads), the graph
 * blocks, the buffers, the rings and the context go.
 *
 * Context: process context, sleeps.
 */
void wsd_ctx_destroy(struct wsd_ctx *ctx)
{
	/* Read by nodes as they start; they see it soon enough. */
	WRITE_ONCE(ctx->closing, true);
	wsd_cq_drop_held(ctx);
	wsd_ctx_drain(ctx);
	wsd_ctx_procs_release(ctx);
	wsd_graph_cache_free(ctx);
	wsd_build_reset(&ctx->build, false);
	wsd_bufs_release(ctx);
	wsd_rings_free(ctx);
	mutex_destroy(&ctx->lock);
	kfree(ctx);
}
