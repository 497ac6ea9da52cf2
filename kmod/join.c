// SPDX-License-Identifier: GPL-2.0
/*
 * wsched join slots: threads that are not a pool's workers join it for a
 * while (a wait, ws_pool_execute(), ws_isolate()), and compensation
 * threads come into a slot when every thread of a pool is stuck in a
 * wait that may not run what is queued.  Documentation/design.rst
 * explains the design.
 */
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/*
 * Join slots that threads joining for a wait may not take: kept for
 * compensation threads, so that waiters that are stuck in every other
 * slot cannot leave the pool without a way to run what they wait for.
 */
#define WS_COMPENSATION_SLOTS	4

/*
 * Claim a free join slot of @pool, among its first @limit, for a thread
 * that is not one of its workers.  The caller sets the slot's thread.
 * Return NULL if they are all taken.
 */
static struct ws_worker *ws_claim_slot(struct ws_pool *pool,
				       unsigned int limit)
{
	struct ws_worker *slot;
	unsigned int i;

	do {
		i = ffz(READ_ONCE(pool->joined));
		if (i >= limit)
			return NULL;
		/*
		 * Acquire: the previous owner's deque operations happen
		 * before ours; pairs with clear_bit_unlock() in
		 * ws_release_slot().
		 */
	} while (test_and_set_bit_lock(i, &pool->joined));
	slot = pool->workers[pool->nr_cpus + i];
	slot->inv.wait_depth = 0;
	slot->inv.isolation = 0;
	slot->inv_iso_from = 0;
	/* Released with none: every invoke that used them has returned. */
	WRITE_ONCE(slot->inv.depth, 0);
	WRITE_ONCE(slot->inv.published, 0);
	WRITE_ONCE(slot->inv.request, 0);
	return slot;
}

/*
 * Give up a join slot.  Tasks still on its deque (spawned by tasks the
 * owner ran and left for others) go to the injection queue first: a join
 * slot holds tasks only while it is claimed.
 */
void ws_release_slot(struct ws_worker *slot)
{
	struct ws_pool *pool = slot->pool;
	struct llist_node *first = NULL, *last = NULL;
	struct ws_task *task;

	/*
	 * One batch and one wake-up: the worker that takes the batch queues
	 * the rest on its deque and wakes the next (ws_take_injected()).
	 * The queue is a stack that the taker reverses, so link the batch
	 * youngest first, as ws_deque_pop() hands the tasks out.
	 */
	while ((task = ws_deque_pop(&slot->deque))) {
		ws_task_claim(task);
		task->node.next = NULL;
		if (last)
			last->next = &task->node;
		else
			first = &task->node;
		last = &task->node;
		ws_stat_inc(pool, injected);
	}
	if (first) {
		llist_add_batch(first, last, &pool->inject);
		/* As in ws_inject(): publish, then look for sleepers. */
		smp_mb();
		ws_wake_one(pool);
	}
	WRITE_ONCE(slot->thread, NULL);
	/* Release; pairs with test_and_set_bit_lock() in ws_claim_slot(). */
	clear_bit_unlock(slot->cpu - pool->nr_cpus, &pool->joined);
}

/*
 * The current thread joins @pool in a slot of its own, if one is free.
 * Only pools without attributes take threads that join: the attributes
 * bound where, how many at once and at what priority the pool's tasks
 * run, and a thread that joins brings its own CPU and nice level.
 */
struct ws_worker *ws_join(struct ws_pool *pool)
{
	struct ws_worker *slot;

	if (!pool->joinable)
		return NULL;
	slot = ws_claim_slot(pool, WS_MAX_JOINED - WS_COMPENSATION_SLOTS);
	if (slot) {
		WRITE_ONCE(slot->thread, current);
		ws_stat_inc(pool, joined);
	}
	return slot;
}

/**
 * ws_reap_compensator - wait for a join slot's last compensation thread
 * @slot: a join slot, claimed by the caller or in a pool being destroyed
 *
 * The thread released the slot as its last access to the pool; it may
 * still be on its way out, in kthread code.
 */
void ws_reap_compensator(struct ws_worker *slot)
{
	if (!slot->compensator)
		return;
	kthread_stop(slot->compensator);
	put_task_struct(slot->compensator);
	slot->compensator = NULL;
}

/*
 * Start a compensation thread in a join slot: every thread of @pool is
 * in a wait that may not run what is queued (too deep in nested waits or
 * inside an isolated region), so without a thread from a fresh stack
 * nothing would run it.  Like ForkJoinPool's compensation for managed
 * blocking; the thread leaves once the work is gone.  A stuck wait
 * retries every tick, so a failure here only delays.
 */
static void ws_compensate(struct ws_pool *pool)
{
	struct task_struct *thread;
	struct ws_worker *slot;

	if (READ_ONCE(ws_frozen))
		return;
	/*
	 * A user pool first grows a worker of its own, a thread of its
	 * process where the kernel has them, if the process may use another
	 * CPU; compensation threads are for a pool whose CPUs all have one.
	 */
	if (pool->user && ws_user_grow(pool, READ_ONCE(pool->nr_threads) + 1))
		return;
	slot = ws_claim_slot(pool, WS_MAX_JOINED);
	if (!slot)
		return;
	ws_reap_compensator(slot);
	thread = kthread_create(ws_compensator_thread, slot, "ws/c%u:%s",
				slot->cpu - pool->nr_cpus, pool->name);
	if (IS_ERR(thread)) {
		ws_release_slot(slot);
		return;
	}
	/* A user pool's threads stay under its owner's controls; we are one. */
	if (pool->user && ws_pool_adopt_thread(pool, thread, current)) {
		kthread_stop(thread);
		ws_release_slot(slot);
		return;
	}
	/* Reaped with kthread_stop(), which needs the task to stay. */
	get_task_struct(thread);
	slot->compensator = thread;
	/*
	 * Best effort: with no active CPU in the mask it runs anywhere.  A
	 * user pool's thread got the CPUs its model may use now, within the
	 * cpuset it was attached to, not the pool's creation-time mask.
	 */
	if (!pool->user) {
		set_cpus_allowed_ptr(thread, pool->cpumask);
		set_user_nice(thread, pool->nice);
	}
	WRITE_ONCE(slot->thread, thread);
	ws_stat_inc(pool, compensated);
	wake_up_process(thread);
}

/*
 * The threads of @pool other than ours that are blocked in a task they
 * run: off every CPU, and not asleep in wsched (idle, or napping in a
 * wait: @napping).  Such a thread is neither idle nor stuck, yet runs
 * nothing until what it blocks on happens, which may be a task queued
 * behind it on its own deque (design.rst, "Waiting and nesting").
 *
 * A lockless look at other threads' scheduler state, the two fields
 * try_to_wake_up() tests first (__state, then on_rq): a thread caught
 * between the two counts wrongly for a tick.  Too many starts a
 * compensation thread early, which leaves once the work is gone; too
 * few delays it by the tick after which the stuck wait looks again.  A
 * slot's thread stays readable: kthread workers and compensation
 * threads are held by a reference, and a user worker or a thread that
 * joined leaves its slot before it exits, while an exited task is freed
 * only after an RCU grace period (hence rcu_read_lock()).  The pool is
 * not being destroyed: we are one of its threads.
 */
static unsigned int ws_nr_blocked(struct ws_pool *pool)
{
	unsigned long joined = READ_ONCE(pool->joined);
	unsigned int i, n = 0;

	rcu_read_lock();
	for (i = 0; i < pool->nr_slots; i++) {
		struct ws_worker *slot = pool->workers[i];
		struct task_struct *thread;

		if (i >= pool->nr_cpus && !test_bit(i - pool->nr_cpus, &joined))
			continue;
		thread = READ_ONCE(slot->thread);
		if (!thread || thread == current || READ_ONCE(slot->napping))
			continue;
		if (READ_ONCE(thread->__state) != TASK_RUNNING &&
		    !READ_ONCE(thread->on_rq))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/*
 * A wait that may not take everything (@scope, or an isolated region)
 * found nothing it may run.  Before napping a tick, make sure that what
 * is queued in the pool has a thread that can run it: wake an idle
 * worker, or, if every other thread of the pool is stuck like us or
 * blocked in a task, start a compensation thread.
 */
void ws_nap_stuck(struct ws_worker *worker, struct ws_group *group,
		  unsigned int state)
{
	struct ws_pool *pool = worker->pool;
	unsigned int threads, stuck;

	atomic_inc(&pool->nr_stuck);
	/*
	 * Order our stuck mark and our own pushes before reading the
	 * queues and counters.  Pairs with the smp_mb() in
	 * ws_worker_sleep(): a worker going to sleep either sees our tasks
	 * or we see it idle; and with this barrier in other stuck threads,
	 * so that the last of them to get stuck sees all the others.
	 */
	smp_mb__after_atomic();
	if (ws_pool_has_work(pool)) {
		threads = READ_ONCE(pool->nr_threads) +
			  hweight_long(READ_ONCE(pool->joined));
		stuck = atomic_read(&pool->nr_stuck);
		if (atomic_read(&pool->nr_idle))
			ws_wake_one(pool);
		else if (stuck >= threads ||
			 stuck + ws_nr_blocked(pool) >= threads)
			ws_compensate(pool);
	}
	ws_nap_on_group(group, false, state);
	atomic_dec(&pool->nr_stuck);
}

/*
 * Run @fn(@arg) as a thread of @pool, in an isolated region if @isolate.
 * A thread that is not one of the pool's joins it for the call.
 */
static int ws_run_in_pool(struct ws_pool *pool, bool isolate,
			  int (*fn)(void *arg), void *arg)
{
	struct ws_worker *worker = ws_current_worker(pool);
	struct ws_worker *joined = NULL;
	unsigned long outer;
	unsigned int from;
	u8 region;
	int ret;

	if (!worker) {
		joined = ws_join(pool);
		if (!joined)
			return fn(arg);
		worker = joined;
	}
	/* The address of a frame variable is unique while the region runs. */
	outer = worker->inv.isolation;
	from = ws_isolation_enter(worker, isolate ? (unsigned long)&region :
					  outer);
	ret = fn(arg);
	ws_isolation_leave(worker, outer, from);
	if (joined)
		ws_release_slot(joined);
	return ret;
}

/**
 * ws_pool_execute - run a function as a thread of a pool
 * @pool: the pool; NULL for ws_system_pool
 * @fn: the function
 * @arg: its argument
 *
 * Like oneTBB's task_arena::execute(): a thread that is not one of
 * @pool's workers joins the pool in a join slot for the duration of
 * @fn, so the tasks @fn spawns go to the caller's own deque (others steal
 * them from there) and its waits run tasks on the caller's own CPU time,
 * with no hand-off to a worker.  On a worker of @pool, when every join
 * slot is taken, or in a pool created with attributes, this just calls
 * @fn.
 *
 * Context: process context, may sleep.
 * Return: what @fn returned.
 */
int ws_pool_execute(struct ws_pool *pool, int (*fn)(void *arg), void *arg)
{
	return ws_run_in_pool(pool ? pool : ws_system_pool, false, fn, arg);
}
EXPORT_SYMBOL_GPL(ws_pool_execute);

/**
 * ws_isolate - run a function in an isolated region of a pool
 * @pool: the pool; NULL for ws_system_pool
 * @fn: the function
 * @arg: its argument
 *
 * While @fn runs, the waits it makes (and those of the tasks it spawns,
 * wherever they run) take only tasks spawned inside the region: a lock
 * held around a nested parallel call cannot be entered again by an
 * unrelated task that the waiting thread picked up.  A thread that is not
 * one of @pool's workers joins the pool for the call, as with
 * ws_pool_execute(); with every join slot taken its waits sleep, which
 * isolates trivially.  Regions nest.  Isolated waits neither steal nor
 * take queued work; other workers still steal the region's tasks.
 *
 * Context: process context, may sleep.
 * Return: what @fn returned.
 */
int ws_isolate(struct ws_pool *pool, int (*fn)(void *arg), void *arg)
{
	return ws_run_in_pool(pool ? pool : ws_system_pool, true, fn, arg);
}
EXPORT_SYMBOL_GPL(ws_isolate);
