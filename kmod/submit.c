// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched submission: WSCHED_IOC_ENTER consumes submission ring
 * entries, checks each (the kernel's one copy of it), stages them into
 * the graph being built until an entry marked WSCHED_SQE_GRAPH_END, turns
 * that graph into a graph block (graph.c) and starts it; with
 * WSCHED_ENTER_GETEVENTS the caller then runs its graphs itself until
 * enough completions are there.
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "ws_op.h"
#include "wsd_ctx.h"
#include "wsd_cq.h"

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
		preds[0] = *kpred;
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
 * check.  Return 0 or the errno that refuses the graph.
 */
static __always_inline int wsd_build_add(struct wsd_ctx *ctx,
					 struct wsd_build *build,
					 const struct wsched_sqe *sqe, u32 limit)
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
			      sqe->nr_preds, sqe->nr_preds == 1 ? &sqe->pred : NULL,
			      sqe->preds_ptr);
	if (!ret)
		return 0;
out_put:
	wsd_op_drop(op);
	return ret;
}

/**
 * wsd_stage_sqe - check one entry and stage it into a build
 * @ctx: the context
 * @build: the build
 * @sqe: the entry, in kernel memory (read once from user space)
 * @limit: the most nodes the graph may have
 *
 * For WSCHED_IOC_SUBMIT_GRAPH, whose nodes become entries: the same
 * checks as the rings' (the operation's own check among them), so every
 * operation has one checker.
 *
 * Return: 0 or the errno that refuses the graph.
 */
int wsd_stage_sqe(struct wsd_ctx *ctx, struct wsd_build *build,
		  const struct wsched_sqe *sqe, u32 limit)
{
	return wsd_build_add(ctx, build, sqe, limit);
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
			    min(wsd_nodes_limit(), wsd_inflight_limit()));
	if (!ret && end)
		ret = wsd_build_unpark(build);
	if (!ret && end) {
		ret = wsd_graph_start(ctx, build, sqe->user_data,
				      &sub->serial, &sub->graphs);
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
	else if (!ret && wait)
		wsd_graph_help(ctx, wsd_enough, &w);
	if (!ret && wait)
		ret = wsd_getevents(ctx, e.min_complete, e.timeout_ns);
	if (copy_to_user(arg, &e, sizeof(e)))
		return -EFAULT;
	return ret;
}
