// SPDX-License-Identifier: GPL-2.0
/*
 * Slow paths of the Chase-Lev deque: creation, growth and teardown.
 * The fast paths are inline in ws_deque.h.
 */
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/slab.h>

#include "ws_deque.h"

static struct ws_deque_array *ws_deque_array_alloc(unsigned long slots,
						   gfp_t gfp)
{
	struct ws_deque_array *array;

	array = kvmalloc(struct_size(array, slots, slots), gfp | __GFP_NOWARN);
	if (array)
		array->mask = slots - 1;
	return array;
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

	array = ws_deque_array_alloc(roundup_pow_of_two(max(slots, 2UL)), gfp);
	if (!array)
		return -ENOMEM;
	atomic_long_set(&dq->top, 0);
	atomic_long_set(&dq->bottom, 0);
	RCU_INIT_POINTER(dq->array, array);
	return 0;
}
EXPORT_SYMBOL_NS_GPL(ws_deque_init, WSCHED_INTERNAL);

/**
 * ws_deque_destroy - free a deque's array
 * @dq: the deque, which no thread may use any more
 *
 * Tasks still queued are not touched.  Arrays retired by growth are
 * freed by RCU on their own.
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
 * both arrays with the same contents.
 *
 * Return: the new array, or NULL if it could not be allocated (the deque
 * is unchanged).
 */
struct ws_deque_array *ws_deque_grow(struct ws_deque *dq,
				     struct ws_deque_array *old,
				     long top, long bottom, gfp_t gfp)
{
	unsigned long slots = (old->mask + 1) * 2;
	struct ws_deque_array *array;
	long i;

	array = ws_deque_array_alloc(slots, gfp);
	if (!array)
		return NULL;
	for (i = top; i < bottom; i++)
		array->slots[i & array->mask] = READ_ONCE(old->slots[i & old->mask]);
	/*
	 * Publish the filled array; the release pairs with rcu_dereference()
	 * in ws_deque_steal(), which runs after the thief's acquire of a
	 * bottom that the caller publishes only after this store.
	 */
	rcu_assign_pointer(dq->array, array);
	kvfree_rcu(old, rcu);
	return array;
}
EXPORT_SYMBOL_NS_GPL(ws_deque_grow, WSCHED_INTERNAL);
