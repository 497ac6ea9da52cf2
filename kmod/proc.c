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
 * Each file keeps the processes it ran graphs for (struct wsd_ctx_proc,
 * ctx.c), since their graphs may still be running; its release waits for
 * them and drops the references.
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
#include "wsd_proc.h"

static DEFINE_HASHTABLE(wsd_procs, 8);
/* Guards wsd_procs and the processes' @refs; outside every other lock. */
static DEFINE_MUTEX(wsd_procs_lock);

/* Processes with a pool now, for debugfs (wsched/dev). */
atomic_t wsd_nr_procs = ATOMIC_INIT(0);

/**
 * wsd_proc_get - the calling process's entry, with a reference
 *
 * Found, or made with a pool of no threads (ws_pool_create_user()).
 *
 * Context: process context, may sleep.
 * Return: the entry, or an ERR_PTR() (-ENOMEM).
 */
struct wsd_proc *wsd_proc_get(void)
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

/**
 * wsd_proc_put - drop a file's reference to a process's entry
 * @proc: the entry
 *
 * The last one stops the process's workers and frees its pool.
 *
 * Context: process context, sleeps.
 */
void wsd_proc_put(struct wsd_proc *proc)
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
