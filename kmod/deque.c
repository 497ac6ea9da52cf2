// SPDX-License-Identifier: GPL-2.0
/*
 * Slow paths of the Chase-Lev deque: creation, growth, shrinking and
 * teardown.  The fast paths are inline in ws_deque.h.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ws_deque.h"

/*
 * No __GFP_ACCOUNT, on purpose.  A deque belongs to a pool worker, and
 * pools are created by kernel code (the module's system pool, other
 * modules), never on behalf of one user: ws_deque_init() runs in whatever
 * task created the pool (insmod, say), so charging it would bill that
 * task's cgroup for memory every user of the pool shares.  The arrays get
 * big only by growing, which happens under GFP_NOWAIT in the worker
 * kthread that owns the deque; there the flag would be a no-op anyway, as
 * memcg_kmem_bypass() skips charging for PF_KTHREAD tasks without an
 * active memcg: nothing would be charged, not even to the root.  Charging
 * the right cgroup would need the pool to remember whose tasks it queues
 * and the worker to set_active_memcg() around each push.  The tasks
 * themselves live in their submitters' memory (/dev/wsched charges its
 * graph nodes with GFP_KERNEL_ACCOUNT), and a slot costs a pointer per
 * queued task; ws_deque_shrink() gives the memory back once the tasks are
 * gone.
 */
static struct ws_deque_array *ws_deque_array_alloc(unsigned long slots,
						   gfp_t gfp)
{
	struct ws_deque_array *array;

	array = kvmalloc(struct_size(array, slots, slots), gfp | __GFP_NOWARN);
	if (array)
		array->mask = slots - 1;
	return array;
}

/*
 * Make @array the deque's array in place of @old (owner only).  @array
 * holds a copy of [@top, @bottom) of @old.  See ws_deque_shrink() for why
 * thieves still reading @old are fine.
 */
static void ws_deque_replace(struct ws_deque *dq, struct ws_deque_array *old,
			     struct ws_deque_array *array,
			     unsigned long top, unsigned long bottom)
{
	unsigned long i;

	/*
	 * Plain stores into @array: nobody can see it before the
	 * rcu_assign_pointer() below.  READ_ONCE() of @old is not needed for
	 * ordering (only we write slots) but keeps the access marked, as
	 * thieves may read these slots at the same time.
	 */
	for (i = top; i != bottom; i++)
		array->slots[i & array->mask] = READ_ONCE(old->slots[i & old->mask]);
	/*
	 * Publish the filled array.  The release pairs with rcu_dereference()
	 * in ws_deque_steal(): a thief that reads the new pointer sees the
	 * copied slots.  A thief that reads a bottom published after this
	 * (release in ws_deque_push(), which comes later in our program
	 * order) reads this array or a newer one.
	 */
	rcu_assign_pointer(dq->array, array);
	/* Thieves may still read @old inside rcu_read_lock(). */
	kvfree_rcu(old, rcu);
	dq->shrink_wait = array->mask + 1;
}

/**
 * ws_deque_init - set up an empty deque
 * @dq: the deque
 * @slots: initial number of slots, rounded up to a power of two
 * @gfp: allocation flags
 *
 * Return: 0 or -ENOMEM.
 */
int ws_deque_init(struct ws_deque *dq, unsigned long slots, gfp_t gfp)
{
	struct ws_deque_array *array;

	/* ws_deque_shrink() halves down to it, one power of two at a time. */
	BUILD_BUG_ON(WS_DEQUE_INIT_SLOTS & (WS_DEQUE_INIT_SLOTS - 1));
	array = ws_deque_array_alloc(roundup_pow_of_two(max(slots, 2UL)), gfp);
	if (!array)
		return -ENOMEM;
	atomic_long_set(&dq->top, 0);
	atomic_long_set(&dq->bottom, 0);
	RCU_INIT_POINTER(dq->array, array);
	dq->shrink_wait = array->mask + 1;
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ws_deque_init, WSCHED_INTERNAL);

/**
 * ws_deque_destroy - free a deque's array
 * @dq: the deque, which no thread may use any more
 *
 * Tasks still queued are not touched.  Arrays retired by growth or
 * shrinking are freed by RCU on their own.
 */
void ws_deque_destroy(struct ws_deque *dq)
{
	kvfree(rcu_dereference_protected(dq->array, 1));
	RCU_INIT_POINTER(dq->array, NULL);
}
EXPORT_SYMBOL_NS_GPL(ws_deque_destroy, WSCHED_INTERNAL);

/**
 * ws_deque_grow - replace a full array by one twice its size (owner only)
 * @dq: the deque
 * @old: its current array
 * @top: top as the owner last read it
 * @bottom: the owner's bottom
 * @gfp: allocation flags
 *
 * Copies the tasks in [@top, @bottom).  Thieves may advance top meanwhile;
 * they only ever read slots at or above the top they saw, which are in
 * both arrays with the same contents (see ws_deque_shrink()).
 *
 * Return: the new array, or NULL if it could not be allocated (the deque
 * is unchanged).
 */
struct ws_deque_array *ws_deque_grow(struct ws_deque *dq,
				     struct ws_deque_array *old,
				     unsigned long top, unsigned long bottom,
				     gfp_t gfp)
{
	struct ws_deque_array *array;

	array = ws_deque_array_alloc((old->mask + 1) * 2, gfp);
	if (!array)
		return NULL;
	ws_deque_replace(dq, old, array, top, bottom);
	return array;
}
EXPORT_SYMBOL_NS_GPL(ws_deque_grow, WSCHED_INTERNAL);

/**
 * ws_deque_shrink - replace a sparse array by one half its size (owner only)
 * @dq: the deque
 * @old: its current array, larger than WS_DEQUE_INIT_SLOTS
 * @top: top as the owner last read it, after lowering bottom in a pop
 * @bottom: the owner's bottom, at most a quarter of @old's slots above @top
 *
 * Called by ws_deque_pop() once the array has been at most a quarter full
 * for as many pops as it has slots.  Never sleeps (GFP_NOWAIT); if the
 * allocation fails the deque keeps @old and tries again after as many
 * sparse pops again.
 *
 * Why a thief racing with the shrink still gets the right task.  A thief
 * reads top (t), then bottom, then the array pointer, then slot t, and
 * keeps what it read only if its cmpxchg then moves top from t to t + 1;
 * if that fails, whatever it read (a stale slot, an uninitialized slot of
 * a new array) is dropped.  So take a thief whose cmpxchg succeeds: index
 * t was live, holding the task of the last push of t before that cmpxchg.
 *
 * - That push came before the shrink.  Then t was live at the copy:
 *   @top <= t (top only moves forward, one task at a time, and it would
 *   take 2^BITS_PER_LONG tasks to come back to t) and t < @bottom (t was
 *   not popped).  The copy holds the same task as @old for every index
 *   in [@top, @bottom); both arrays have room for all of them (at most a
 *   quarter of @old's slots, half of the new one's), so no two share a
 *   slot.  Thieves never write slots, and the owner writes only the
 *   current array: once the new one is published, @old is never written
 *   again.  Every later resize copies t too, while it is live.  So
 *   whichever array the thief read, slot t holds that task.
 * - That push came after the shrink, into the new array or a later one.
 *   The bottom above t that the thief read is that push's release, or a
 *   later store of the owner (the Chase-Lev argument, which resizing does
 *   not change: the smp_mb() pair in pop and steal keeps a thief from
 *   seeing a top that passed a pop together with a bottom from before
 *   it).  Our rcu_assign_pointer() precedes that push in program order,
 *   so after its acquire of bottom the thief reads the new array or a
 *   later one, never @old, and sees the pushed slot.
 *
 * The new array is read through rcu_dereference(), dependency ordered
 * after rcu_assign_pointer(), so its copied slots are visible.  @old is
 * freed by kvfree_rcu() only once every thief that may still read it has
 * left its rcu_read_lock() section.  Growth is the same argument with a
 * larger new array.
 */
void ws_deque_shrink(struct ws_deque *dq, struct ws_deque_array *old,
		     unsigned long top, unsigned long bottom)
{
	unsigned long slots = (old->mask + 1) / 2;
	struct ws_deque_array *array;

	/* If we keep @old, try again after as many sparse pops. */
	dq->shrink_wait = old->mask + 1;
	if (WARN_ON_ONCE(slots < WS_DEQUE_INIT_SLOTS ||
			 ws_deque_span(top, bottom) < 0 ||
			 ws_deque_span(top, bottom) > (long)slots / 2))
		return;
	array = ws_deque_array_alloc(slots, GFP_NOWAIT);
	if (array)
		ws_deque_replace(dq, old, array, top, bottom);
}
EXPORT_SYMBOL_NS_GPL(ws_deque_shrink, WSCHED_INTERNAL);
