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
 * Indices grow without bound (a long does not wrap in practice), so a slot
 * is index & mask and there is no ABA on top.  A thief may still read an
 * array the owner has replaced, so retired arrays are freed after an RCU
 * grace period and thieves read the array inside rcu_read_lock().
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

/* Slots of a new deque; it doubles when full. */
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
 *
 * @top sits on its own cache line: thieves write it, the owner writes
 * @bottom and @array.
 */
struct ws_deque {
	atomic_long_t top ____cacheline_aligned_in_smp;
	atomic_long_t bottom ____cacheline_aligned_in_smp;
	struct ws_deque_array __rcu *array;
};

int ws_deque_init(struct ws_deque *dq, unsigned long slots, gfp_t gfp);
void ws_deque_destroy(struct ws_deque *dq);
struct ws_deque_array *ws_deque_grow(struct ws_deque *dq,
				     struct ws_deque_array *old,
				     long top, long bottom, gfp_t gfp);

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
	long bottom = atomic_long_read(&dq->bottom);
	/*
	 * Acquire pairs with the fully ordered cmpxchg of top in
	 * ws_deque_steal(): a thief read the slot at old top before it
	 * advanced top, so the slot we may now overwrite is no longer read.
	 */
	long top = atomic_long_read_acquire(&dq->top);
	struct ws_deque_array *array = ws_deque_owner_array(dq);

	if (unlikely(bottom - top > (long)array->mask)) {
		array = ws_deque_grow(dq, array, top, bottom, gfp);
		if (!array)
			return false;
	}
	WRITE_ONCE(array->slots[bottom & array->mask], task);
	/*
	 * Release orders the slot store (and the task's contents) before the
	 * new bottom; pairs with the acquire of bottom in ws_deque_steal().
	 */
	atomic_long_set_release(&dq->bottom, bottom + 1);
	return true;
}

/**
 * ws_deque_pop - take the youngest task from the bottom (owner only)
 * @dq: the deque
 *
 * Return: the task, or NULL if the deque is empty or a thief took the
 * last task first.
 */
static inline struct ws_task *ws_deque_pop(struct ws_deque *dq)
{
	long bottom = atomic_long_read(&dq->bottom) - 1;
	struct ws_deque_array *array = ws_deque_owner_array(dq);
	struct ws_task *task;
	long top;

	atomic_long_set(&dq->bottom, bottom);
	/*
	 * Store-load ordering: the lowered bottom must be visible before we
	 * read top.  Pairs with the smp_mb() in ws_deque_steal(): either the
	 * thief sees the lowered bottom, or we see its advanced top.
	 */
	smp_mb();
	top = atomic_long_read(&dq->top);

	if (top > bottom) {
		/* Empty: restore bottom (plain store, as the C11 original). */
		atomic_long_set(&dq->bottom, bottom + 1);
		return NULL;
	}
	task = READ_ONCE(array->slots[bottom & array->mask]);
	if (top == bottom) {
		/*
		 * The last task: race thieves for it on top.  The cmpxchg is
		 * fully ordered and pairs with the thieves' cmpxchg.
		 */
		if (atomic_long_cmpxchg(&dq->top, top, top + 1) != top)
			task = NULL;
		atomic_long_set(&dq->bottom, bottom + 1);
	}
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
	struct ws_task *task;
	long top, bottom;

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
	if (top >= bottom)
		return NULL;

	rcu_read_lock();
	/*
	 * Read after bottom: a push that published bottom after a grow also
	 * published the new array (rcu_assign_pointer in ws_deque_grow()).
	 * An older array still holds this task: growth copies, and the owner
	 * never writes a retired array again.  RCU keeps it alive here.
	 */
	array = rcu_dereference(dq->array);
	/* Read the slot before the cmpxchg: once top moves it may be reused. */
	task = READ_ONCE(array->slots[top & array->mask]);
	rcu_read_unlock();

	/* Fully ordered; pairs with the owner's cmpxchg in ws_deque_pop(). */
	if (atomic_long_cmpxchg(&dq->top, top, top + 1) != top) {
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
 */
static inline long ws_deque_size(struct ws_deque *dq)
{
	/* Unordered reads: callers recheck under their own barriers. */
	long size = atomic_long_read(&dq->bottom) - atomic_long_read(&dq->top);

	return size > 0 ? size : 0;
}

#endif /* _WS_DEQUE_H */
