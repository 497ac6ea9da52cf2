// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched submission, the one way into the graph engine.
 *
 * WSCHED_IOC_ENTER consumes submission ring entries, checks each (the
 * kernel's one copy of it), stages them into the graph being built until
 * an entry marked WSCHED_SQE_GRAPH_END, turns that graph into a graph
 * block (graph.c) and starts it; with WSCHED_ENTER_GETEVENTS the caller
 * then runs its graphs itself until enough completions are there.
 *
 * WSCHED_IOC_SUBMIT_GRAPH, the synchronous wrapper, turns each of its
 * nodes into the ring entry it stands for and stages it the same way, so
 * wsd_build_add() is the only caller of an operation's check; it then
 * launches the one graph and waits for it.
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/freezer.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

#include "ws_op.h"
#include "wsd_cq.h"
#include "wsd_ctx.h"
#include "wsd_dev.h"
#include "wsd_rbuf.h"

/* Staging arrays at most this many entries long are kept between graphs. */
#define WSD_BUILD_KEEP		256

/**
 * wsd_build_reset - forget the staged nodes
 * @build: the build
 * @keep: keep the arrays for the next graph if they are small
 *
 * Drops the operation references of the staged nodes.
 */
void wsd_build_reset(struct wsd_build *build, bool keep)
{
	u32 i;

	for (i = 0; i < build->nr; i++)
		if (build->nodes[i].op)
			wsd_op_drop(build->nodes[i].op);
	build->nr = 0;
	build->nr_preds = 0;
	if (!keep || build->cap > WSD_BUILD_KEEP) {
		kvfree(build->nodes);
		build->nodes = NULL;
		build->cap = 0;
	}
	if (!keep || build->preds_cap > 4 * WSD_BUILD_KEEP) {
		kvfree(build->preds);
		build->preds = NULL;
		build->preds_cap = 0;
	}
}

/*
 * The graph engine took the staged nodes' operation references
 * (wsd_graph_build()): forget them, keeping the arrays.
 */
static __always_inline void wsd_build_consumed(struct wsd_build *build)
{
	build->nr = 0;
	build->nr_preds = 0;
}

/* Make room for one more node and @nr_preds more predecessors. */
static int wsd_build_grow(struct wsd_build *build, u32 nr_preds)
{
	if (build->nr == build->cap) {
		u32 cap = max(16U, build->cap * 2);
		void *nodes;

		nodes = ws_kvrealloc(build->nodes,
				     build->cap * sizeof(*build->nodes),
				     cap * sizeof(*build->nodes), GFP_KERNEL_ACCOUNT);
		if (!nodes)
			return -ENOMEM;
		build->nodes = nodes;
		build->cap = cap;
	}
	if (build->nr_preds + nr_preds > build->preds_cap) {
		u32 cap = max3(64U, build->preds_cap * 2, build->nr_preds + nr_preds);
		void *preds;

		preds = ws_kvrealloc(build->preds,
				     build->preds_cap * sizeof(*build->preds),
				     cap * sizeof(*build->preds), GFP_KERNEL_ACCOUNT);
		if (!preds)
			return -ENOMEM;
		build->preds = preds;
		build->preds_cap = cap;
	}
	return 0;
}

/* wsd_stage_add(), inline on the ring path. */
static __always_inline int
__wsd_stage_add(struct wsd_build *build, const struct ws_op *op,
		const struct ws_op_args *args, u64 user_data, u32 flags,
		u32 nr_preds, const u32 *kpred, u64 preds_ptr)
{
	u32 idx = build->nr, i, *preds;
	struct wsd_stage *st;
	int ret;

	if (unlikely(build->nr == build->cap ||
		     build->nr_preds + nr_preds > build->preds_cap)) {
		ret = wsd_build_grow(build, nr_preds);
		if (ret)
			return ret;
	}
	preds = build->preds + build->nr_preds;
	if (kpred) {
		memcpy(preds, kpred, nr_preds * sizeof(*preds));
	} else if (nr_preds &&
		   copy_from_user(preds, u64_to_user_ptr(preds_ptr),
				  nr_preds * sizeof(*preds))) {
		return -EFAULT;
	}
	for (i = 0; i < nr_preds; i++) {
		/* Only lower numbers: acyclic by construction. */
		if (preds[i] >= idx)
			return -EINVAL;
		preds[i] = array_index_nospec(preds[i], idx);
	}
	st = &build->nodes[idx];
	st->op = op;
	st->op_id = op->id;
	st->args = *args;
	st->user_data = user_data;
	st->flags = flags;
	st->nr_preds = nr_preds;
	st->preds = build->nr_preds;
	build->nr_preds += nr_preds;
	build->nr++;
	return 0;
}

/*
 * Check one entry (the kernel's copy) and stage it into @build, a graph
 * of at most @limit nodes.  The only place that calls an operation's
 * check.  @kpreds: NULL, or the kernel's copy of the entry's predecessors
 * when it has several (an inline io_uring graph; @sqe->preds_ptr is 0).
 * Return 0 or the errno that refuses the graph.
 */
static __always_inline int wsd_build_add(struct wsd_ctx *ctx,
					 struct wsd_build *build,
					 const struct wsched_sqe *sqe, u32 limit,
					 const u32 *kpreds)
{
	struct ws_op_args args = {};
	const struct ws_op *op;
	u32 idx = build->nr;
	void *data;
	int ret;

	if (sqe->flags & ~WSCHED_SQE_FLAGS)
		return -EINVAL;
	if (idx + 1 > limit)
		return -E2BIG;
	if (sqe->nr_preds > WSCHED_MAX_PREDS)
		return -E2BIG;
	switch (sqe->nr_preds) {
	case 0:
		if (sqe->pred || sqe->preds_ptr)
			return -EINVAL;
		break;
	case 1:
		if (sqe->preds_ptr || sqe->pred >= idx)
			return -EINVAL;
		break;
	default:
		if (sqe->pred)
			return -EINVAL;
	}

	op = wsd_op_take(sqe->op);
	if (!op)
		return -EOPNOTSUPP;
	ret = -EINVAL;
	if (op->flags & WS_OP_RANGE) {
		if (!sqe->len)
			goto out_put;
		args.len = sqe->len;
	} else if (sqe->buf || sqe->off || sqe->len) {
		goto out_put;
	}
	/* With WS_OP_RANGE2, arg is the second range's offset. */
	if (!(op->flags & WS_OP_RANGE2) && sqe->buf2)
		goto out_put;
	args.arg = sqe->arg;
	ret = wsd_op_check(op, &args);
	if (ret)
		goto out_put;
	if (op->flags & WS_OP_RANGE) {
		ret = wsd_range(ctx, sqe->buf, sqe->off, sqe->len, &data);
		if (ret)
			goto out_put;
		args.data = data;
	}
	if (op->flags & WS_OP_RANGE2) {
		ret = wsd_range(ctx, sqe->buf2, sqe->arg,
				op->range2_len ? op->range2_len : sqe->len, &data);
		if (ret)
			goto out_put;
		args.data2 = data;
	}
	ret = __wsd_stage_add(build, op, &args, sqe->user_data, sqe->flags,
			      sqe->nr_preds, sqe->nr_preds == 1 ? &sqe->pred : kpreds,
			      sqe->preds_ptr);
	if (!ret)
		return 0;
out_put:
	wsd_op_drop(op);
	return ret;
}

/*
 * A graph whose end entry has not come yet holds no operation between
 * ENTER calls, so that ws_op_unregister() never waits for a build that
 * may never end.  Its numbers are kept; see wsd_build_unpark().
 */
static void wsd_build_park(struct wsd_build *build)
{
	u32 i;

	for (i = 0; i < build->nr; i++) {
		const struct ws_op *op = build->nodes[i].op;

		/* Built-in operations hold nothing. */
		if (!op || op->id <= WSCHED_OP_LAST)
			continue;
		wsd_op_drop(op);
		build->nodes[i].op = NULL;
	}
}

/*
 * Take the operations of a parked build again.  Return 0, or -EOPNOTSUPP
 * when one was unregistered meanwhile (its number names nothing now).
 */
static int wsd_build_unpark(struct wsd_build *build)
{
	u32 i;

	for (i = 0; i < build->nr; i++) {
		struct wsd_stage *st = &build->nodes[i];

		if (st->op)
			continue;
		st->op = wsd_op_take(st->op_id);
		if (!st->op)
			return -EOPNOTSUPP;
	}
	return 0;
}

/* What consuming one entry did. */
enum wsd_consumed {
	WSD_TAKEN,		/* consumed; go on */
	WSD_LATER,		/* not consumed: too many nodes in flight */
	WSD_REFUSED,		/* consumed; its graph was refused */
	WSD_DROPPED,		/* consumed; the refused graph ended here */
};

/**
 * struct wsd_submission - what one ENTER call consumed
 * @pool: the submitting process's pool
 * @graphs: graphs built, newest first, not yet launched
 * @error: errno of the refused graph, or 0
 * @serial: serial graphs that ran, their completions not posted yet
 * @posted: serial graphs posted completions without a wake-up
 */
struct wsd_submission {
	struct ws_pool *pool;
	struct wsd_graph *graphs;
	int error;
	struct wsd_serial serial;
	bool posted;
};

static __always_inline enum wsd_consumed
wsd_consume(struct wsd_ctx *ctx, const struct wsched_sqe *sqe,
	    struct wsd_submission *sub)
{
	struct wsd_build *build = &ctx->build;
	bool end = sqe->flags & WSCHED_SQE_GRAPH_END;
	int ret;

	if (build->skipping) {
		if (end)
			build->skipping = false;
		return end ? WSD_DROPPED : WSD_TAKEN;
	}
	/*
	 * Lockless: pairs with the atomic_sub() in wsd_graph_done(); a stale
	 * value only makes us refuse (retry later) or admit one graph early.
	 * A graph over the limit on its own is refused by wsd_build_add().
	 */
	if (end && atomic_read(&ctx->inflight) + build->nr + 1 >
		   wsd_inflight_limit() &&
	    build->nr + 1 <= wsd_inflight_limit())
		return WSD_LATER;

	/* wsd_inflight_limit(): lockless, see there. */
	ret = wsd_build_add(ctx, build, sqe,
			    min(wsd_nodes_limit(), wsd_inflight_limit()), NULL);
	if (!ret && end)
		ret = wsd_build_unpark(build);
	if (!ret && end) {
		ret = wsd_graph_start(ctx, build, sqe->user_data,
				      &sub->serial, &sub->graphs);
		if (!ret)
			wsd_build_consumed(build);
	}
	if (ret) {
		wsd_build_reset(build, true);
		build->skipping = !end;
		sub->error = ret;
		return WSD_REFUSED;
	}
	return WSD_TAKEN;
}

/* Copy the entry at the kernel's SQ head: the one read of it. */
static __always_inline void wsd_sqe_copy(struct wsd_ctx *ctx,
					 struct wsched_sqe *sqe)
{
	memcpy(sqe, &ctx->sqes[ctx->sq_khead & (ctx->sq_entries - 1)],
	       sizeof(*sqe));
}

static long wsd_submit(struct wsd_ctx *ctx, u32 to_submit, u32 *submitted,
		       struct wsd_submission *sub)
{
	u32 tail, avail, n, i;
	long ret = 0;

	*submitted = 0;
	if (wsd_cq_flush(ctx))
		return to_submit ? -EBUSY : 0;
	if (!to_submit)
		return 0;

	/*
	 * Interruptible: the holder may be another thread of a process
	 * that shares the file, blocked for as long as it likes in a fault
	 * on a predecessor list (userfaultfd), which wsd_build_add() reads
	 * under the lock.  Nothing is consumed yet: the call can restart.
	 */
	if (mutex_lock_interruptible(&ctx->lock))
		return -ERESTARTSYS;
	/* The graphs built under the lock run in the submitter's pool. */
	ctx->pool = sub->pool;
	/*
	 * Pairs with the application's release store of the tail after it
	 * wrote the entries: we see them.
	 */
	tail = smp_load_acquire(ctx->sq_tail);
	avail = tail - ctx->sq_khead;
	if (avail > ctx->sq_entries) {
		ret = -EINVAL;
		goto out;
	}
	n = min(to_submit, avail);
	for (i = 0; i < n; i++) {
		struct wsched_sqe sqe;
		enum wsd_consumed what;

		wsd_sqe_copy(ctx, &sqe);
		what = wsd_consume(ctx, &sqe, sub);
		if (what == WSD_LATER) {
			ret = -EAGAIN;
			break;
		}
		ctx->sq_khead++;
		(*submitted)++;
		if (what == WSD_REFUSED) {
			ret = sub->error;
			/* Drop the rest of the refused graph that is here. */
			while (ctx->build.skipping && ++i < n) {
				wsd_sqe_copy(ctx, &sqe);
				wsd_consume(ctx, &sqe, sub);
				ctx->sq_khead++;
				(*submitted)++;
			}
			break;
		}
	}
	if (wsd_serial_flush(ctx, &sub->serial))
		sub->posted = true;
	wsd_build_park(&ctx->build);
	/*
	 * Pairs with the application's acquire load of the head before it
	 * reuses slots: we are done reading them.
	 */
	smp_store_release(ctx->sq_head, ctx->sq_khead);
out:
	mutex_unlock(&ctx->lock);
	return ret;
}

/*
 * Stage the graph at the head of the SQ without consuming it: each entry
 * is read once and checked by wsd_build_add(), as ENTER does.  Under
 * ctx->lock, with ctx->pool set.  Return 0 or the errno that refuses the
 * graph (see wsd_sq_submit()).
 */
static int wsd_sq_stage(struct wsd_ctx *ctx, struct wsd_build *build, u32 nr)
{
	u32 limit = min(wsd_nodes_limit(), wsd_inflight_limit());
	u32 tail, avail, i;
	int ret;

	lockdep_assert_held(&ctx->lock);
	if (ctx->build.nr || ctx->build.skipping)
		return -EBUSY;
	if (!nr)
		return -EINVAL;
	if (nr > limit || nr > ctx->sq_entries)
		return -E2BIG;
	/*
	 * Pairs with the application's release store of the tail after it
	 * wrote the entries: we see them.
	 */
	tail = smp_load_acquire(ctx->sq_tail);
	avail = tail - ctx->sq_khead;
	if (avail > ctx->sq_entries)
		return -EINVAL;
	if (nr > avail)
		return -ENODATA;
	/* Lockless, as in wsd_consume(): a hint either way. */
	if (atomic_read(&ctx->inflight) + nr > wsd_inflight_limit())
		return -EAGAIN;
	for (i = 0; i < nr; i++) {
		u32 slot = (ctx->sq_khead + i) & (ctx->sq_entries - 1);
		struct wsched_sqe sqe;

		/* The one read of the entry. */
		memcpy(&sqe, &ctx->sqes[slot], sizeof(sqe));
		if (!!(sqe.flags & WSCHED_SQE_GRAPH_END) != (i + 1 == nr))
			return -EINVAL;
		ret = wsd_build_add(ctx, build, &sqe, limit, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The io_uring command's hold on @ctx->lock: given up at once (@nowait, in
 * io_uring's issue) or abandoned on a signal, never an uninterruptible
 * sleep; then @pool is the one the staged graph runs in.
 */
static int wsd_cmd_lock(struct wsd_ctx *ctx, struct ws_pool *pool, bool nowait)
{
	if (nowait) {
		if (!mutex_trylock(&ctx->lock))
			return -EAGAIN;
	} else if (mutex_lock_interruptible(&ctx->lock)) {
		return -EINTR;
	}
	ctx->pool = pool;
	return 0;
}

/* Build the staged @build into *@graph for a command; 0 or -ENOMEM. */
static int wsd_cmd_build(struct wsd_ctx *ctx, struct wsd_build *build,
			 void (*notify)(struct wsd_graph *graph), void *owner,
			 struct wsd_graph **graph)
{
	*graph = wsd_graph_build_notify(ctx, build, notify, owner);
	if (!*graph)
		return -ENOMEM;
	wsd_build_consumed(build);
	return 0;
}

/**
 * wsd_sq_submit - build the graph at the head of the SQ for its owner
 * @ctx: the context; the caller saw @ctx->rings_ready
 * @pool: the submitting process's pool (wsd_ctx_pool())
 * @nr: entries that make the graph: the last one, and only it, flagged
 *	WSCHED_SQE_GRAPH_END
 * @nowait: do not wait for @ctx->lock: fail with EAGAIN
 * @notify: told where the graph completes (wsd_graph_build_notify())
 * @owner: for @notify
 *
 * The io_uring command's way into the engine (uring_cmd.c): the entries
 * are checked and staged as ENTER stages them, built into one graph and
 * consumed; the caller launches the graph (wsd_graph_launch()) and drops
 * its reference once it has read the result.  On failure nothing is
 * consumed and nothing runs.
 *
 * Return: the graph, or an ERR_PTR(): EAGAIN (@nowait and the lock is
 * taken, or too many nodes in flight), EINTR (a signal while waiting for
 * the lock), EBUSY (an ENTER graph is half staged), ENODATA (fewer than
 * @nr entries in the SQ), E2BIG (more than the limits), EINVAL (no
 * entry, a misplaced end flag, or corrupt SQ indices), ENOMEM, or the
 * errno of a refused entry.
 */
struct wsd_graph *wsd_sq_submit(struct wsd_ctx *ctx, struct ws_pool *pool,
				u32 nr, bool nowait,
				void (*notify)(struct wsd_graph *graph),
				void *owner)
{
	struct wsd_build build = {};
	struct wsd_graph *graph = NULL;
	int ret;

	ret = wsd_cmd_lock(ctx, pool, nowait);
	if (ret)
		return ERR_PTR(ret);
	ret = wsd_sq_stage(ctx, &build, nr);
	if (!ret)
		ret = wsd_cmd_build(ctx, &build, notify, owner, &graph);
	if (!ret) {
		ctx->sq_khead += nr;
		/*
		 * Pairs with the application's acquire load of the head
		 * before it reuses slots: we are done reading them.
		 */
		smp_store_release(ctx->sq_head, ctx->sq_khead);
	}
	mutex_unlock(&ctx->lock);
	wsd_build_reset(&build, false);
	return ret ? ERR_PTR(ret) : graph;
}

/**
 * wsd_inline_submit - build an inline graph for its owner
 * @ctx: the context; the caller saw @ctx->rings_ready
 * @pool: the submitting process's pool (wsd_ctx_pool())
 * @in: the graph, the kernel's copy (read once and checked for what only
 *	an inline node has)
 * @nowait: do not wait for @ctx->lock: fail with EAGAIN
 * @notify: told where the graph completes (wsd_graph_build_notify())
 * @owner: for @notify
 *
 * The way of an io_uring command's inline graph (uring_cmd.c) into the
 * engine: every entry is checked and staged by wsd_build_add(), as ENTER
 * stages the SQ's, and built into one graph; the caller launches it and
 * drops its reference as after wsd_sq_submit().  The SQ is not touched,
 * nor a graph ENTER has half staged.  On failure nothing runs.
 *
 * Return: the graph, or an ERR_PTR(): EAGAIN (@nowait and the lock is
 * taken, or too many nodes in flight), EINTR (a signal while waiting for
 * the lock), E2BIG (more nodes than the limits), ENOMEM, or the errno of
 * a refused entry.
 */
struct wsd_graph *wsd_inline_submit(struct wsd_ctx *ctx, struct ws_pool *pool,
				    const struct wsd_inline_graph *in,
				    bool nowait,
				    void (*notify)(struct wsd_graph *graph),
				    void *owner)
{
	u32 limit = min(wsd_nodes_limit(), wsd_inflight_limit());
	struct wsd_build build = {};
	struct wsd_graph *graph = NULL;
	int ret = 0;
	u32 i;

	if (in->nr > limit)
		return ERR_PTR(-E2BIG);
	/* Lockless, as in wsd_consume(): a hint either way. */
	if (atomic_read(&ctx->inflight) + in->nr > wsd_inflight_limit())
		return ERR_PTR(-EAGAIN);
	ret = wsd_cmd_lock(ctx, pool, nowait);
	if (ret)
		return ERR_PTR(ret);
	for (i = 0; i < in->nr && !ret; i++)
		ret = wsd_build_add(ctx, &build, &in->sqes[i], limit,
				    in->preds[i]);
	if (!ret)
		ret = wsd_cmd_build(ctx, &build, notify, owner, &graph);
	mutex_unlock(&ctx->lock);
	wsd_build_reset(&build, false);
	return ret ? ERR_PTR(ret) : graph;
}

/**
 * struct wsd_wait - a submitter's wait for completions
 * @ctx: the context
 * @min_complete: completions it waits for
 */
struct wsd_wait {
	struct wsd_ctx *ctx;
	u32 min_complete;
};

static bool wsd_enough(void *arg)
{
	struct wsd_wait *w = arg;

	return wsd_cq_events_hint(w->ctx) >= w->min_complete;
}

/**
 * wsd_enter - WSCHED_IOC_ENTER: consume SQ entries, wait for completions
 * @ctx: the context
 * @arg: user address of struct wsched_enter
 *
 * Return: 0 or a negative errno; struct wsched_enter says what was
 * consumed in every case.
 */
long wsd_enter(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsd_submission sub = {};
	struct wsched_enter e;
	struct ws_pool *pool;
	struct wsd_wait w;
	bool wait;
	long ret;

	if (copy_from_user(&e, arg, sizeof(e)))
		return -EFAULT;
	if (e.size != sizeof(e) || (e.flags & ~WSCHED_ENTER_FLAGS) ||
	    !wsd_zero(e.resv, sizeof(e.resv)))
		return -EINVAL;
	if (!(e.flags & WSCHED_ENTER_GETEVENTS) &&
	    (e.min_complete || e.timeout_ns))
		return -EINVAL;
	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return -EINVAL;
	/*
	 * The answer must be writable before anything is consumed: a caller
	 * is never told that a call failed after it ran the work.  It says
	 * nothing was consumed until the end of the call.
	 */
	e.submitted = 0;
	e.sq_error = 0;
	if (copy_to_user(arg, &e, sizeof(e)))
		return -EFAULT;
	wait = (e.flags & WSCHED_ENTER_GETEVENTS) && e.min_complete;
	if (e.to_submit) {
		pool = wsd_ctx_pool(ctx);
		if (IS_ERR(pool))
			return PTR_ERR(pool);
		sub.pool = pool;
	}

	ret = wsd_submit(ctx, e.to_submit, &e.submitted, &sub);
	/* One wake-up for what the serial graphs posted. */
	if (sub.posted)
		wsd_wake(ctx);
	e.sq_error = sub.error;
	w.ctx = ctx;
	w.min_complete = e.min_complete;
	if (sub.graphs)
		wsd_graph_launch(sub.graphs, wait && !ret, wsd_enough, &w);
	/* Serial graphs may have posted enough already: then nothing to run. */
	else if (!ret && wait && !wsd_enough(&w))
		wsd_ctx_help(ctx, wsd_enough, &w);
	if (!ret && wait)
		ret = wsd_getevents(ctx, e.min_complete, e.timeout_ns);
	if (copy_to_user(arg, &e, sizeof(e)))
		return -EFAULT;
	return ret;
}

/* ---- WSCHED_IOC_SUBMIT_GRAPH ---- */

/* WSCHED_IOC_SUBMIT_GRAPH runs only these operations. */
#define WSD_SYNC_OP_LAST	WSCHED_OP_FAIL

/*
 * A node of WSCHED_IOC_SUBMIT_GRAPH as the ring entry it stands for
 * (@un is the kernel's copy).  Only what SUBMIT_GRAPH itself restricts is
 * checked here (its flags and operations, its reserved field); the rest,
 * the operation's operands among it, is checked by the rings' staging,
 * wsd_build_add(): operands the operation does not take go where an
 * entry carries none for it (off, len), and are refused there.
 */
static int wsd_node_to_sqe(const struct wsched_node *un,
			   struct wsched_sqe *sqe)
{
	if (un->resv || (un->flags & ~WSCHED_NODE_FLAGS))
		return -EINVAL;
	if (un->op > WSD_SYNC_OP_LAST)
		return -EOPNOTSUPP;
	if (un->nr_preds > WSCHED_MAX_PREDS)
		return -E2BIG;
	*sqe = (struct wsched_sqe){
		.op = un->op,
		.flags = un->flags,
		.user_data = un->user_data,
		.arg = un->arg[0],
		.off = un->arg[1],
		.len = un->arg[2],
		.nr_preds = un->nr_preds,
	};
	if (!un->nr_preds) {
		if (un->preds_ptr)
			return -EINVAL;
	} else if (un->nr_preds == 1) {
		/* An entry carries its one predecessor inline. */
		if (get_user(sqe->pred, (u32 __user *)u64_to_user_ptr(un->preds_ptr)))
			return -EFAULT;
	} else {
		sqe->preds_ptr = un->preds_ptr;
	}
	return 0;
}

/*
 * Stage a graph: every node becomes an entry, checked and staged as the
 * rings' are; every user byte is read once, and the whole graph is
 * staged before anything runs.  The build is the caller's.
 */
static int wsd_sync_stage(struct wsd_ctx *ctx, struct wsd_build *build,
			  const struct wsched_node *unodes, u32 nr)
{
	struct wsched_sqe sqe;
	u32 i;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = wsd_node_to_sqe(&unodes[i], &sqe);
		if (!ret)
			ret = wsd_build_add(ctx, build, &sqe, wsd_nodes_limit(),
					    NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static bool wsd_sync_finished(void *arg)
{
	struct wsd_graph *graph = arg;

	/* Pairs with the release in wsd_graph_done(). */
	return smp_load_acquire(&graph->finished);
}

/*
 * Wait for a synchronous graph.  A signal cancels what has not started
 * (the graph still finishes: running nodes complete, the others post
 * -ECANCELED) and gives -EINTR; the freezer's wake-up at suspend is not a
 * signal: the caller freezes and goes on waiting.  Return 0 once the
 * graph has finished, or -EINTR: then the graph has finished too, unless
 * a fatal signal came (wsd_sync_finished() tells).
 */
static int wsd_sync_wait(struct wsd_graph *graph)
{
	for (;;) {
		/*
		 * Pairs with wake_up_var() after the release in
		 * wsd_graph_done().  TASK_FREEZABLE: the freezer may freeze
		 * us in this sleep; we hold no lock.
		 */
		if (!___wait_var_event(&graph->finished,
				       wsd_sync_finished(graph),
				       (TASK_INTERRUPTIBLE | TASK_FREEZABLE), 0, 0,
				       schedule()))
			return 0;
		if (!try_to_freeze())
			break;
	}
	/* Read by nodes as they start. */
	WRITE_ONCE(graph->aborted, true);
	/*
	 * Run what is left: cancelled now, so it ends soon, and the pool
	 * may have no thread (none can be made while our signal is
	 * pending).  Between rounds sleep killable, never uninterruptibly.
	 * A fatal signal ends the wait before the graph has finished: the
	 * caller then writes no results (the process is going away) and
	 * drops its reference; the graph's running reference keeps the
	 * block until it completes, and the file's release runs the rest.
	 */
	while (!wsd_sync_finished(graph) && !fatal_signal_pending(current)) {
		wsd_help(graph->group.pool, wsd_sync_finished, graph, true);
		if (!wsd_sync_finished(graph))
			schedule_timeout_killable(1);
	}
	return -EINTR;
}

/*
 * Copy the results out through @res, a buffer of graph->nr results that
 * the caller allocated before the graph ran: once it has run, nothing
 * may fail for lack of memory, or the caller would be told the graph was
 * refused after its nodes ran.
 */
static int wsd_copy_results(const struct wsd_graph *graph,
			    struct wsched_result *res, u64 uptr)
{
	u32 i, nr = graph->nr;

	memset(res, 0, array_size(nr, sizeof(*res)));
	for (i = 0; i < nr; i++) {
		const struct wsched_cqe *cqe = &graph->nodes[i].slot.cqe;

		res[i].user_data = cqe->user_data;
		res[i].res = cqe->res;
		res[i].flags = cqe->flags;
		res[i].seq = cqe->seq;
	}
	if (copy_to_user(u64_to_user_ptr(uptr), res,
			 array_size(nr, sizeof(*res))))
		return -EFAULT;
	return 0;
}

/**
 * wsd_submit_graph - WSCHED_IOC_SUBMIT_GRAPH: run a graph and wait for it
 * @ctx: the context
 * @arg: user address of struct wsched_graph
 *
 * A thin wrapper over the graph engine: the graph is staged like ring
 * entries, built into one graph block, run by the caller in the
 * context's pool (with help from its workers), and its results copied
 * out.  A signal cancels the nodes that have not started.
 *
 * Return: 0, -EINTR (the results say what ran), or the errno that refused
 * the graph (nothing ran).
 */
long wsd_submit_graph(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsd_build build = {};
	struct wsched_result *res = NULL;
	struct wsched_node *unodes;
	struct wsched_graph ug;
	struct wsd_graph *graph;
	struct ws_pool *pool;
	int ret, ret2;

	if (copy_from_user(&ug, arg, sizeof(ug)))
		return -EFAULT;
	if (ug.size != sizeof(ug) ||
	    ug.node_size != sizeof(struct wsched_node) ||
	    ug.result_size != sizeof(struct wsched_result) ||
	    (ug.flags & ~WSCHED_GRAPH_FLAGS) || !wsd_zero(ug.resv, sizeof(ug.resv)))
		return -EINVAL;
	if (!ug.nr_nodes)
		return -EINVAL;
	if (ug.nr_nodes > wsd_nodes_limit())
		return -E2BIG;
	pool = wsd_ctx_pool(ctx);
	if (IS_ERR(pool))
		return PTR_ERR(pool);

	unodes = kvmalloc_array(ug.nr_nodes, sizeof(*unodes), GFP_KERNEL_ACCOUNT);
	if (!unodes)
		return -ENOMEM;
	if (copy_from_user(unodes, u64_to_user_ptr(ug.nodes_ptr),
			   array_size(ug.nr_nodes, sizeof(*unodes)))) {
		ret = -EFAULT;
		goto out;
	}
	ret = wsd_sync_stage(ctx, &build, unodes, ug.nr_nodes);
	if (ret)
		goto out;
	/* The last check before anything runs: the results must be writable. */
	if (clear_user(u64_to_user_ptr(ug.results_ptr),
		       array_size(ug.nr_nodes, sizeof(struct wsched_result)))) {
		ret = -EFAULT;
		goto out;
	}
	/*
	 * Before the graph is built: failing to allocate the results after
	 * it ran would refuse a graph that ran (the fault_test selftest's
	 * SUBMIT_GRAPH sweep found it).
	 */
	res = kvmalloc_array(ug.nr_nodes, sizeof(*res), GFP_KERNEL_ACCOUNT);
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * The block cache has one taker at a time: under ctx->lock, taken
	 * interruptibly as in wsd_submit().  Nothing ran yet, and zeroing
	 * the results again does no harm: the call can restart.
	 */
	if (mutex_lock_interruptible(&ctx->lock)) {
		ret = -ERESTARTSYS;
		goto out;
	}
	ctx->pool = pool;
	graph = wsd_graph_build(ctx, &build, 0, true);
	mutex_unlock(&ctx->lock);
	if (!graph) {
		ret = -ENOMEM;
		goto out;
	}
	wsd_build_consumed(&build);

	wsd_graph_launch(graph, true, wsd_sync_finished, graph);
	ret = wsd_sync_wait(graph);
	/*
	 * Results are written even when interrupted, once the graph has
	 * finished: not after a fatal signal that ended the wait before.
	 * wsd_sync_finished()'s acquire makes the nodes' results visible.
	 */
	if (wsd_sync_finished(graph)) {
		ret2 = wsd_copy_results(graph, res, ug.results_ptr);
		if (!ret)
			ret = ret2;
	}
	wsd_graph_put(graph);
out:
	wsd_build_reset(&build, false);
	kvfree(res);
	kvfree(unodes);
	return ret;
}
