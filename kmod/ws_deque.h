/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Chase-Lev work-stealing deque of task pointers.
 *
 * The algorithm is the corrected C11 version of Lê, Pop, Cohen and
 * Zappa Nardelli, "Correct and Efficient Work-Stealing for Weak Memory
 * Models" (PPoPP 2013), mapped onto the Linux kernel memory model:
 *
 *   C11                          here
 *   fence(seq_cst)               smp_mb()
 *   load(acquire)                atomic_long_read_acquire()
 *   fence(release); store(rlx)   atomic_long_set_release()
 *   CAS(seq_cst)                 atomic_long_cmpxchg() (fully ordered)
 *
 * The owner pushes and pops at the bottom; thieves take from the top.
 * Indices are free-running unsigned longs: a slot is index & mask, and an
 * index wraps from ULONG_MAX to 0 (on 32-bit after 2^32 tasks).  Like
 * jiffies with time_after(), indices are compared only through their
 * difference read as signed (ws_deque_span()), which is right as long as
 * top and bottom are less than LONG_MAX apart; they are at most the array
 * size apart.  The arithmetic is unsigned, so it never overflows; storing
 * it in an atomic_long_t converts modulo 2^BITS_PER_LONG, as everywhere in
 * the kernel.  Top only moves forward, so a thief's cmpxchg from a stale
 * top fails; it could wrongly succeed only if top went all the way round
 * (2^BITS_PER_LONG steals and pops) between the thief's read of top and
 * its cmpxchg.
 *
 * A thief may read an array the owner has replaced (grown or shrunk), so
 * retired arrays are freed after an RCU grace period and thieves read the
 * array inside rcu_read_lock().
 *
 * Only the owner may call ws_deque_push() and ws_deque_pop(); anyone may
 * call ws_deque_steal().  See Documentation/design.rst.
 */
#ifndef _WS_DEQUE_H
#define _WS_DEQUE_H

#include <linux/atomic.h>
#include <linux/cache.h>
#include <linux/compiler.h>
#include <linux/gfp.h>
#include <linux/rcupdate.h>

struct ws_task;

/*
 * Slots of a new deque (a power of two); it doubles when full, and halves
 * while mostly empty, but not below this size.
 */
#define WS_DEQUE_INIT_SLOTS	256

/**
 * struct ws_deque_array - the circular buffer behind a deque
 * @rcu: frees a retired array once no thief can still read it
 * @mask: number of slots minus one (a power of two minus one)
 * @slots: the task pointers, indexed by position & @mask
 */
struct ws_deque_array {
	struct rcu_head rcu;
	unsigned long mask;
	struct ws_task *slots[];
};

/**
 * struct ws_deque - a Chase-Lev deque
 * @top: index of the oldest task; advanced by thieves (and by the owner
 *	for the last task) with a compare-and-exchange
 * @bottom: index one past the youngest task; written only by the owner
 * @array: the current buffer; replaced only by the owner
 * @shrink_wait: sparse pops still needed before the array may shrink
 *	(owner only; see ws_deque_pop())
 *
 * @top sits on its own cache line: thieves write it, the owner writes
 * @bottom, @array and @shrink_wait.  @top and @bottom hold unsigned long
 * indices (see the top of this file).
 */
struct ws_deque {
	atomic_long_t top ____cacheline_aligned_in_smp;
	atomic_long_t bottom ____cacheline_aligned_in_smp;
	struct ws_deque_array __rcu *array;
	unsigned long shrink_wait;
};

int ws_deque_init(struct ws_deque *dq, unsigned long slots, gfp_t gfp);
void ws_deque_destroy(struct ws_deque *dq);
struct ws_deque_array *ws_deque_grow(struct ws_deque *dq,
				     struct ws_deque_array *old,
				     unsigned long top, unsigned long bottom,
				     gfp_t gfp);
void ws_deque_shrink(struct ws_deque *dq, struct ws_deque_array *old,
		     unsigned long top, unsigned long bottom);

/*
 * Tasks in [@top, @bottom): wrap-safe, like time_after().  Negative (-1)
 * only in the owner's transient view while it pops an empty deque.
 */
static inline long ws_deque_span(unsigned long top, unsigned long bottom)
{
	return (long)(bottom - top);
}

/* The owner's view of the array: only the owner replaces it. */
static inline struct ws_deque_array *ws_deque_owner_array(struct ws_deque *dq)
{
	return rcu_dereference_protected(dq->array, 1);
}

/**
 * ws_deque_push - add a task at the bottom (owner only)
 * @dq: the deque
 * @task: the task
 * @gfp: allocation flags for growing the array when it is full
 *
 * Return: true if the task was queued, false if the deque was full and
 * could not grow (the task was not queued).
 */
static inline bool ws_deque_push(struct ws_deque *dq, struct ws_task *task,
				 gfp_t gfp)
{
	/* Only the owner writes bottom: no ordering needed to read it. */
	unsigned long bottom = atomic_long_read(&dq->bottom);
	/*
	 * Acquire pairs with the fully ordered cmpxchg of top in
	 * ws_deque_steal(): a thief read the slot at old top before it
	 * advanced top, so the slot we may now overwrite is no longer read.
	 */
	unsigned long top = atomic_long_read_acquire(&dq->top);
	struct ws_deque_array *array = ws_deque_owner_array(dq);

	if (unlikely(ws_deque_span(top, bottom) > (long)array->mask)) {
		array = ws_deque_grow(dq, array, top, bottom, gfp);
		if (!array)
			return false;
	}
	/*
	 * WRITE_ONCE: a thief holding a stale top may read this slot with
	 * READ_ONCE() in ws_deque_steal() at the same time; its cmpxchg of
	 * top then fails and it drops what it read.
	 */
	WRITE_ONCE(array->slots[bottom & array->mask], task);
	/*
	 * Release orders the slot store (and the task's contents, and a new
	 * array published by ws_deque_grow() or ws_deque_shrink()) before the
	 * new bottom; pairs with the acquire of bottom in ws_deque_steal().
	 */
	atomic_long_set_release(&dq->bottom, bottom + 1);
	return true;
}

/**
 * ws_deque_pop - take the youngest task from the bottom (owner only)
 * @dq: the deque
 *
 * An array larger than WS_DEQUE_INIT_SLOTS that holds at most a quarter of
 * its slots after a pop counts a sparse pop; once there have been as many
 * sparse pops since the last resize as the array has slots, it is halved
 * (ws_deque_shrink(), out of line, GFP_NOWAIT).  So a pop may allocate and
 * must not be called where GFP_NOWAIT cannot be used.
 *
 * Return: the task, or NULL if the deque is empty or a thief took the
 * last task first.
 */
static inline struct ws_task *ws_deque_pop(struct ws_deque *dq)
{
	/*
	 * Only the owner writes bottom: no ordering needed to read it.  The
	 * cast first: the decrement must be unsigned, it may wrap.
	 */
	unsigned long bottom = (unsigned long)atomic_long_read(&dq->bottom) - 1;
	struct ws_deque_array *array = ws_deque_owner_array(dq);
	struct ws_task *task = NULL;
	unsigned long top;
	long left;

	/* Relaxed: the smp_mb() below orders it before the read of top. */
	atomic_long_set(&dq->bottom, bottom);
	/*
	 * Store-load ordering: the lowered bottom must be visible before we
	 * read top.  Pairs with the smp_mb() in ws_deque_steal(): either the
	 * thief sees the lowered bottom, or we see its advanced top.
	 */
	smp_mb();
	top = atomic_long_read(&dq->top);
	/* Tasks left below ours: -1 if there was none, 0 if ours is the last. */
	left = ws_deque_span(top, bottom);

	if (likely(left > 0)) {
		/*
		 * More than one task: thieves stop below the lowered bottom,
		 * so this slot is ours without an atomic.  Only we write
		 * slots, so READ_ONCE() pairs with nothing.
		 */
		task = READ_ONCE(array->slots[bottom & array->mask]);
	} else {
		if (left == 0) {
			task = READ_ONCE(array->slots[bottom & array->mask]);
			/*
			 * The last task: race thieves for it on top.  Fully
			 * ordered; pairs with the thieves' cmpxchg.
			 */
			if (atomic_long_cmpxchg(&dq->top, top, top + 1) != (long)top)
				task = NULL;
		}
		/*
		 * Empty now: restore bottom, which top has reached.  A plain
		 * (relaxed) store as in the C11 original: thieves that read
		 * it find the deque empty and touch no slot.
		 */
		bottom++;
		atomic_long_set(&dq->bottom, bottom);
		top = bottom;
		left = 0;
	}

	/*
	 * The cheap check first: arrays at the initial size never shrink.
	 * Hysteresis: at most a quarter full, so a shrink leaves the array at
	 * most half full (a grow leaves it exactly half full), and only after
	 * as many sparse pops since the last resize as there are slots, so an
	 * array refilled every few drains is kept instead of reallocated.
	 */
	if (unlikely(array->mask >= WS_DEQUE_INIT_SLOTS) &&
	    left <= (long)((array->mask + 1) / 4) && !--dq->shrink_wait)
		ws_deque_shrink(dq, array, top, bottom);
	return task;
}

/**
 * ws_deque_steal - take the oldest task from the top (any thread)
 * @dq: the deque
 * @lost_race: set to true when a task was there but another thread took
 *	it first, so trying again may succeed
 *
 * Return: the task, or NULL.
 */
static inline struct ws_task *ws_deque_steal(struct ws_deque *dq,
					     bool *lost_race)
{
	struct ws_deque_array *array;
	unsigned long top, bottom;
	struct ws_task *task;

	/* Pairs with the fully ordered cmpxchg of other thieves on top. */
	top = atomic_long_read_acquire(&dq->top);
	/*
	 * Store-load ordering against the owner: pairs with the smp_mb() in
	 * ws_deque_pop() so that the owner and we cannot both take the last
	 * task.
	 */
	smp_mb();
	/* Pairs with the release of bottom in ws_deque_push(). */
	bottom = atomic_long_read_acquire(&dq->bottom);
	if (ws_deque_span(top, bottom) <= 0)
		return NULL;

	rcu_read_lock();
	/*
	 * Read after bottom: a push that published bottom after a resize
	 * also published the new array (rcu_assign_pointer() in deque.c,
	 * before the release of bottom).  An older array, grown from or
	 * shrunk into, still holds this task if top is still ours: a resize
	 * copies every index from the top the owner read, and the owner never
	 * writes a retired array again.  If top moved on, what we read may be
	 * anything, and the cmpxchg below fails.  RCU keeps the array alive.
	 * rcu_dereference() pairs with that rcu_assign_pointer(): the copied
	 * slots are visible through the new pointer.
	 */
	array = rcu_dereference(dq->array);
	/*
	 * Read the slot before the cmpxchg: once top moves it may be reused.
	 * READ_ONCE: the owner may be overwriting it if our top is stale.
	 */
	task = READ_ONCE(array->slots[top & array->mask]);
	rcu_read_unlock();

	/*
	 * Fully ordered; pairs with the owner's cmpxchg in ws_deque_pop()
	 * and with other thieves', and with the acquire of top in
	 * ws_deque_push() (our slot read is done before top moves).
	 */
	if (atomic_long_cmpxchg(&dq->top, top, top + 1) != (long)top) {
		*lost_race = true;
		return NULL;
	}
	return task;
}

/**
 * ws_deque_size - a snapshot of how many tasks a deque holds
 * @dq: the deque
 *
 * Racy by nature; for idle checks and statistics only.
 *
 * Return: the number of tasks, never negative.
 */
static inline long ws_deque_size(struct ws_deque *dq)
{
	/*
	 * Unordered reads: callers recheck under their own barriers.  Top
	 * first, then bottom, in this order on purpose: their difference is
	 * off by what happened in between, never by a wrap; it is -1 while
	 * the owner pops an empty deque.
	 */
	unsigned long top = atomic_long_read(&dq->top);
	long size = ws_deque_span(top, atomic_long_read(&dq->bottom));

	return size > 0 ? size : 0;
}

#endif /* _WS_DEQUE_H */
