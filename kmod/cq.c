// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched completions: posted to the shared completion ring by
 * whichever thread finishes a node or a graph, held back in order while
 * the ring is full (none is lost), and waited for in WSCHED_IOC_ENTER or
 * with poll(2).
 *
 * The kernel keeps its own CQ tail and reads the application's head once
 * per use; a waiter is woken only once enough completions are there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/freezer.h>
#include <linux/hrtimer.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>

#include "wsd_ctx.h"
#include "wsd_cq.h"

/*
 * Move held-back completions into the CQ while there is room; under
 * ctx->cq_lock.  The slots' graph references move to @done, to be dropped
 * once the lock is released (dropping one may free a block).
 */
static bool wsd_flush_held(struct wsd_ctx *ctx, struct list_head *done)
{
	struct wsd_slot *slot, *tmp;
	bool moved = false;

	lockdep_assert_held(&ctx->cq_lock);
	list_for_each_entry_safe(slot, tmp, &ctx->held, link) {
		if (!wsd_cq_room(ctx))
			break;
		wsd_cq_write(ctx, &slot->cqe);
		list_move_tail(&slot->link, done);
		WRITE_ONCE(ctx->nr_held, ctx->nr_held - 1);
		moved = true;
	}
	return moved;
}

/* Drop the graph references of slots taken off the held list. */
static void wsd_put_slots(struct list_head *done)
{
	struct wsd_slot *slot, *tmp;

	list_for_each_entry_safe(slot, tmp, done, link)
		wsd_graph_put(slot->graph);
}

/**
 * wsd_cq_events - completions ready for the application
 * @ctx: the context
 *
 * Posts held-back completions first, where there is room.
 *
 * Return: completions in the CQ plus those still held back.
 */
u32 wsd_cq_events(struct wsd_ctx *ctx)
{
	LIST_HEAD(done);
	u32 n;

	spin_lock(&ctx->cq_lock);
	wsd_flush_held(ctx, &done);
	/* As in wsd_cq_room(). */
	n = ctx->cq_ktail - smp_load_acquire(ctx->cq_head);
	/* A head moved past the tail is the application's bug: say "many". */
	if (n > ctx->cq_entries)
		n = ctx->cq_entries;
	n += ctx->nr_held;
	spin_unlock(&ctx->cq_lock);
	wsd_put_slots(&done);
	return n;
}

/**
 * wsd_cq_flush - post held-back completions where there is room
 * @ctx: the context
 *
 * Return: the number of completions still held back.
 */
int wsd_cq_flush(struct wsd_ctx *ctx)
{
	LIST_HEAD(done);
	u32 held;

	/*
	 * Nothing held back: no need for the lock.  Pairs with the
	 * WRITE_ONCE() stores under ctx->cq_lock; one held back meanwhile
	 * goes out with the next call (later posts queue behind it).
	 */
	if (!READ_ONCE(ctx->nr_held))
		return 0;
	spin_lock(&ctx->cq_lock);
	wsd_flush_held(ctx, &done);
	held = ctx->nr_held;
	spin_unlock(&ctx->cq_lock);
	wsd_put_slots(&done);
	return held;
}

/**
 * wsd_cq_drop_held - forget held-back completions (the file is released)
 * @ctx: the context
 */
void wsd_cq_drop_held(struct wsd_ctx *ctx)
{
	LIST_HEAD(done);

	spin_lock(&ctx->cq_lock);
	list_splice_init(&ctx->held, &done);
	ctx->nr_held = 0;
	spin_unlock(&ctx->cq_lock);
	wsd_put_slots(&done);
}

/**
 * wsd_poll_events - poll(2) events of a context
 * @ctx: the context
 *
 * Return: EPOLLIN | EPOLLRDNORM when completions are ready (or held back).
 */
__poll_t wsd_poll_events(struct wsd_ctx *ctx)
{
	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return 0;
	return wsd_cq_events(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

/**
 * struct wsd_waiter - a thread waiting in WSCHED_IOC_ENTER
 * @wqe: its entry in ctx->cq_wait
 * @ctx: the context
 * @min_complete: completions it waits for
 */
struct wsd_waiter {
	struct wait_queue_entry wqe;
	struct wsd_ctx *ctx;
	u32 min_complete;
};

/*
 * Wake a waiter only once enough completions are there, not for each
 * one: a batch of n completions then costs one wakeup, not n.  Pollers
 * on the same queue are woken for each.
 */
static int wsd_waiter_wake(struct wait_queue_entry *wqe, unsigned int mode,
			   int sync, void *key)
{
	struct wsd_waiter *w = container_of(wqe, struct wsd_waiter, wqe);

	if (wsd_cq_events_hint(w->ctx) < w->min_complete)
		return 0;
	return autoremove_wake_function(wqe, mode, sync, key);
}

/**
 * wsd_getevents - sleep until enough completions are ready
 * @ctx: the context
 * @min_complete: completions to wait for
 * @timeout_ns: most time to wait; 0 for no limit
 *
 * Return: 0, -EINTR or -ETIME.
 */
long wsd_getevents(struct wsd_ctx *ctx, u32 min_complete, u64 timeout_ns)
{
	struct wsd_waiter w = { .ctx = ctx, .min_complete = min_complete };
	ktime_t expires = 0;
	long ret = 0;

	/*
	 * Enough completions already, none held back (which only
	 * wsd_cq_events() posts): no lock.  Both loads pair as in
	 * wsd_cq_events_hint().
	 */
	if (!READ_ONCE(ctx->nr_held) &&
	    wsd_cq_events_hint(ctx) >= min_complete)
		return 0;
	if (timeout_ns)
		expires = ktime_add_safe(ktime_get(),
					 ns_to_ktime(min_t(u64, timeout_ns,
							   KTIME_MAX)));
	init_wait_entry(&w.wqe, 0);
	w.wqe.func = wsd_waiter_wake;
	for (;;) {
		/* Posting held-back ones may free a block: not while queued. */
		if (wsd_cq_events(ctx) >= min_complete)
			break;
		/*
		 * The barrier in prepare_to_wait() pairs with the one of
		 * wq_has_sleeper() in wsd_wake(): either the poster sees us
		 * queued, or we see its completion below.
		 */
		/* TASK_FREEZABLE: frozen in this sleep at suspend; no lock held. */
		prepare_to_wait(&ctx->cq_wait, &w.wqe,
				TASK_INTERRUPTIBLE | TASK_FREEZABLE);
		if (wsd_cq_events_hint(ctx) >= min_complete) {
			finish_wait(&ctx->cq_wait, &w.wqe);
			continue;
		}
		if (signal_pending(current)) {
			finish_wait(&ctx->cq_wait, &w.wqe);
			/* The freezer's wake-up is not a signal: freeze, go on. */
			if (try_to_freeze())
				continue;
			/* Entries were consumed already: do not restart. */
			ret = -EINTR;
			break;
		}
		if (!timeout_ns) {
			schedule();
		} else if (!schedule_hrtimeout(&expires, HRTIMER_MODE_ABS)) {
			/* Timed out: one last look, below. */
			ret = -ETIME;
			break;
		}
		finish_wait(&ctx->cq_wait, &w.wqe);
	}
	finish_wait(&ctx->cq_wait, &w.wqe);
	if (ret == -ETIME && wsd_cq_events(ctx) >= min_complete)
		ret = 0;
	return ret;
}
