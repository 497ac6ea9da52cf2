/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Posting /dev/wsched completions: inline, since every node and graph
 * posts one (a call costs a translation block lookup under QEMU TCG,
 * where the benchmarks run).  The rest of the completion side is cq.c.
 */
#ifndef _WSD_CQ_H
#define _WSD_CQ_H

#include <linux/lockdep.h>
#include <linux/spinlock.h>
#include <linux/wait.h>

#include "wsd_ctx.h"

/* Room in the CQ; under ctx->cq_lock. */
static __always_inline bool wsd_cq_room(struct wsd_ctx *ctx)
{
	u32 head;

	lockdep_assert_held(&ctx->cq_lock);
	/*
	 * Pairs with the application's release store of the head after it
	 * read the entries below it: our writes to those slots come after.
	 */
	head = smp_load_acquire(ctx->cq_head);
	return ctx->cq_ktail - head < ctx->cq_entries;
}

/* Write one completion to the CQ and publish it; under ctx->cq_lock. */
static __always_inline void wsd_cq_write(struct wsd_ctx *ctx,
					 const struct wsched_cqe *cqe)
{
	lockdep_assert_held(&ctx->cq_lock);
	ctx->cqes[ctx->cq_ktail & (ctx->cq_entries - 1)] = *cqe;
	/* Also read without the lock by wsd_cq_events_hint(). */
	WRITE_ONCE(ctx->cq_ktail, ctx->cq_ktail + 1);
	/*
	 * Pairs with the application's acquire load of the tail: it sees
	 * the entry written above once it sees the new tail.
	 */
	smp_store_release(ctx->cq_tail, ctx->cq_ktail);
}

static __always_inline void wsd_wake(struct wsd_ctx *ctx)
{
	/* wq_has_sleeper()'s barrier pairs with the one in prepare_to_wait. */
	if (wq_has_sleeper(&ctx->cq_wait))
		wake_up_all(&ctx->cq_wait);
}

/**
 * wsd_post_locked - post a completion, under ctx->cq_lock
 * @ctx: the context
 * @slot: the completion, in a node or graph that stays valid meanwhile
 *
 * Holds it back behind earlier held-back ones when the CQ is full; the
 * slot's graph then stays allocated until it is posted, but keeps no
 * operation once it has completed (wsd_graph_drop_ops()).  The caller wakes
 * waiters (wsd_wake()) once it has dropped the lock.
 */
static __always_inline void wsd_post_locked(struct wsd_ctx *ctx,
					    struct wsd_slot *slot)
{
	lockdep_assert_held(&ctx->cq_lock);
	if (likely(list_empty(&ctx->held) && wsd_cq_room(ctx))) {
		wsd_cq_write(ctx, &slot->cqe);
	} else if (READ_ONCE(ctx->closing)) {
		/*
		 * Released: nobody reads the CQ again, and wsd_ctx_destroy()
		 * has dropped the held list under this lock after it set
		 * closing, so a slot held now would keep its graph forever.
		 */
	} else {
		refcount_inc(&slot->graph->refs);
		list_add_tail(&slot->link, &ctx->held);
		WRITE_ONCE(ctx->nr_held, ctx->nr_held + 1);
		ctx->overflow_total++;
		/* Read by the application at any time; a single aligned store. */
		WRITE_ONCE(*ctx->cq_overflow, ctx->overflow_total);
	}
}

/**
 * wsd_post - post a completion and wake whoever waits for it
 * @ctx: the context
 * @slot: the completion, as for wsd_post_locked()
 *
 * Called by node tasks and graph done callbacks; does not sleep.
 */
static __always_inline void wsd_post(struct wsd_ctx *ctx,
				     struct wsd_slot *slot)
{
	spin_lock(&ctx->cq_lock);
	wsd_post_locked(ctx, slot);
	spin_unlock(&ctx->cq_lock);
	wsd_wake(ctx);
}

/**
 * wsd_cq_events_hint - completions ready, without the lock
 * @ctx: the context
 *
 * Only a hint, for deciding whom to wake and when a submitter may stop
 * running tasks: the loads pair with the WRITE_ONCE() stores under
 * ctx->cq_lock and the application's store of the head; a waiter
 * rechecks with wsd_cq_events().
 *
 * Return: completions in the CQ plus those held back.
 */
static __always_inline u32 wsd_cq_events_hint(struct wsd_ctx *ctx)
{
	u32 n = READ_ONCE(ctx->cq_ktail) - READ_ONCE(*ctx->cq_head);

	return min(n, ctx->cq_entries) + READ_ONCE(ctx->nr_held);
}

u32 wsd_cq_events(struct wsd_ctx *ctx);
int wsd_cq_flush(struct wsd_ctx *ctx);
void wsd_cq_drop_held(struct wsd_ctx *ctx);
long wsd_getevents(struct wsd_ctx *ctx, u32 min_complete, u64 timeout_ns);
__poll_t wsd_poll_events(struct wsd_ctx *ctx);

#endif /* _WSD_CQ_H */
