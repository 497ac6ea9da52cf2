/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched contexts (ctx.c): an open file with its rings, its
 * registered buffers, the graphs it runs and the processes whose workers
 * run them.
 *
 * Ownership of the fields of struct wsd_ctx here and of struct wsd_graph
 * and struct wsd_node (wsd_graph.h), as in kernel/workqueue.c:
 *
 * I: set before the object is shared (a context at open, a graph and its
 *    nodes by wsd_graph_build() under ctx->lock), read-only afterwards
 *    until it is freed.
 * R: set by WSCHED_IOC_SETUP under ctx->lock before the release store of
 *    @rings_ready, read-only afterwards until release; readers acquire
 *    @rings_ready or hold ctx->lock.
 * L: ctx->lock.
 * Q: ctx->cq_lock.
 * S: a serial graph's submitter, which runs it under ctx->lock.
 * N: the thread that runs the node: from the fully ordered decrement
 *    that made it ready to its own decrements of its successors' counts.
 * D: the thread that completes the graph (wsd_graph_complete(), after the
 *    group's fully ordered last decrement); for a serial graph, S.
 * X: the file's release (wsd_ctx_destroy()), once no graph is left.
 * A: atomic or lock-free; each access says what it pairs with.
 *
 * The lock order (Documentation/design.rst, Locking): ctx->lock, then
 * wsd_procs_lock (proc.c), then a user pool's thread lock (uworker.c) and
 * the core's locks; wsd_ops_lock (opdef.c) alone or under ctx->lock;
 * ctx->cq_lock is a leaf.
 */
#ifndef _WSD_CTX_H
#define _WSD_CTX_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "wsd_graph.h"
#include "wsd_rings.h"
#include "wsd_submit.h"

struct mm_struct;
struct user_struct;
struct wsd_buf;
struct wsd_proc;

/**
 * struct wsd_ctx - an open file of /dev/wsched
 * @nodes_run: nodes whose op ran (A: relaxed counters)
 * @graphs_run: graphs completed (A: relaxed counters)
 * @lock: serialises setup, submission, the graph being built, the
 *	processes' list and buffer registration.  Taken outside mmap_lock
 *	(pinning and copy_from_user run under it), so never taken from
 *	->mmap.
 * @pool: the pool of the process that holds @lock to submit: the graphs
 *	it builds run there (L)
 * @procs: the processes that ran graphs here (struct wsd_ctx_proc), with
 *	a reference on each one's worker set (L to add, X to drop)
 * @last_proc: the entry of @procs that submitted last (A: release store
 *	under L, acquire loads elsewhere)
 * @max_workers: WSCHED_IOC_MAX_WORKERS: most threads this file's graphs
 *	grow their process's pool to; 0 for the CPUs the process may use
 *	(A: WRITE_ONCE() under L, READ_ONCE() by launches)
 * @closing: the file is being released: nodes that start are cancelled
 *	(A: WRITE_ONCE() by X, a hint READ_ONCE() by nodes)
 * @rings_ready: the rings exist (A: release store by SETUP, acquire
 *	loads by ENTER and poll)
 * @sq: the submission ring's memory (R)
 * @cq: the completion ring's memory (R)
 * @sq_head: the SQ head in shared memory, kernel writes (R; L to write)
 * @sq_tail: the SQ tail in shared memory, user writes (R)
 * @sqes: the SQ entries in shared memory (R)
 * @sq_entries: SQ size, a power of two (R)
 * @sq_khead: the kernel's own SQ head (L)
 * @cq_head: the CQ head in shared memory, user writes (R)
 * @cq_tail: the CQ tail in shared memory, kernel writes (R; Q to write)
 * @cq_overflow: the overflow counter in shared memory, kernel writes
 *	(R; Q to write)
 * @cqes: the CQ entries in shared memory (R; Q to write)
 * @cq_entries: CQ size, a power of two (R)
 * @cq_lock: serialises posting completions; protects the fields below it
 * @cq_ktail: the kernel's own CQ tail (Q; READ_ONCE() hints elsewhere)
 * @overflow_total: completions ever held back (Q)
 * @held: held-back completions (struct wsd_slot), oldest first (Q)
 * @nr_held: number of entries on @held (Q)
 * @cq_wait: ENTER waiters and pollers wait here for completions
 * @nr_graphs: graphs that exist, running or holding back a completion;
 *	the file's release waits for zero (A)
 * @nr_running: graphs whose nodes have not all finished (A)
 * @inflight: nodes of running ring graphs (A)
 * @cache: free graph blocks for reuse (A: llist; any thread adds, the
 *	submitter takes under L)
 * @nr_cached: number of blocks on @cache (A)
 * @spares: more free blocks, for serial graphs (L)
 * @nr_spares: number of @spares (L)
 * @build: the ring's graph being built (L)
 * @bufs: registered buffers; set and cleared under L, only while no
 *	graph is built or running, so graphs read them without a lock
 * @nr_bufs: number of @bufs (as @bufs)
 * @pinned_pages: pages of @bufs charged to @mm's locked_vm (L)
 * @mm: the mm that @pinned_pages are charged to (mmgrab() held) (L)
 * @user: the user @pinned_pages are charged to (a reference), or NULL
 *	when the registering process had CAP_IPC_LOCK (L)
 */
struct wsd_ctx {
	atomic64_t nodes_run;
	atomic64_t graphs_run;
	struct mutex lock;	/* see @lock above */
	struct ws_pool *pool;
	struct list_head procs;
	struct wsd_ctx_proc *last_proc;
	u32 max_workers;
	bool closing;
	bool rings_ready;
	struct wsd_region sq;
	struct wsd_region cq;
	u32 *sq_head;
	u32 *sq_tail;
	struct wsched_sqe *sqes;
	u32 sq_entries;
	u32 sq_khead;
	u32 *cq_head;
	u32 *cq_tail;
	u32 *cq_overflow;
	struct wsched_cqe *cqes;
	u32 cq_entries;

	spinlock_t cq_lock;	/* completion side, see above */
	u32 cq_ktail;
	u32 overflow_total;
	struct list_head held;
	u32 nr_held;
	wait_queue_head_t cq_wait;

	atomic_t nr_graphs;
	atomic_t nr_running;
	atomic_t inflight;
	struct llist_head cache;
	atomic_t nr_cached;
	struct wsd_graph *spares[WSD_SERIAL_BATCH];
	u32 nr_spares;

	struct wsd_build build;
	struct wsd_buf *bufs;
	u32 nr_bufs;
	unsigned long pinned_pages;
	struct mm_struct *mm;
	struct user_struct *user;
};

/**
 * struct wsd_ctx_proc - a process that ran graphs in a context
 * @link: in ctx->procs
 * @proc: the process's entry (proc.c; a reference) (I)
 * @pool: its pool (I)
 */
struct wsd_ctx_proc {
	struct list_head link;
	struct wsd_proc *proc;
	struct ws_pool *pool;
};

struct wsd_ctx *wsd_ctx_create(void);
void wsd_ctx_destroy(struct wsd_ctx *ctx);
struct ws_pool *wsd_ctx_pool(struct wsd_ctx *ctx);
void wsd_ctx_help(struct wsd_ctx *ctx, bool (*cond)(void *arg), void *arg);
u32 wsd_ctx_nr_workers(struct wsd_ctx *ctx);
long wsd_ctx_max_workers(struct wsd_ctx *ctx, u32 __user *arg);

#endif /* _WSD_CTX_H */
