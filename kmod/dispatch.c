// SPDX-License-Identifier: GPL-2.0
/*
 * wsched dispatch: which slot the current thread owns, idle and wake-up,
 * the three rules that pick the next task (bypass, pop, steal), running a
 * task, and the one dispatch loop (ws_dispatch()) that workers, waits,
 * helpers and compensation threads share.  Groups, dependencies and
 * spawning are in group.c, join slots and compensation in join.c, pools
 * and CPU hotplug in pool.c, ws_parallel_invoke() and the heartbeat in
 * invoke.c.  Documentation/design.rst explains the design.
 */
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/wait_bit.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

#define CREATE_TRACE_POINTS
#include "wsched_trace.h"

/* For probes in other modules (the KUnit tests count the events). */
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_spawn);
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_execute);
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_bypass);
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_steal);
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_sleep);
EXPORT_TRACEPOINT_SYMBOL_GPL(wsched_wake);

/* The join slot of @pool that the current thread owns, or NULL. */
static struct ws_worker *ws_current_joined(struct ws_pool *pool)
{
	/* A snapshot: only we can set or clear the bit of our own slot. */
	unsigned long joined = READ_ONCE(pool->joined);
	unsigned int i;

	for_each_set_bit(i, &joined, WS_MAX_JOINED) {
		struct ws_worker *slot = pool->workers[pool->nr_cpus + i];

		/* Only the owner stores its own task pointer here. */
		if (READ_ONCE(slot->thread) == current)
			return slot;
	}
	return NULL;
}

/*
 * The slot of @pool that the current thread owns, or NULL.  Only a thread
 * running in process context can own one: an interrupt on a worker's CPU
 * must never touch the worker's deque.
 *
 * O(1) for the pool's workers: a worker kthread is bound to its CPU, so
 * if we are the worker of this CPU the CPU number cannot change under us,
 * and any other thread fails the compare whatever CPU it reads.  A worker
 * that CPU hotplug has already pushed off its CPU (before its offline
 * callback stops it) is found through its kthread data; threads that
 * joined the pool are found in the few join slots.
 */
noinline struct ws_worker *ws_current_worker_slow(struct ws_pool *pool)
{
	struct ws_worker *worker;

	if ((current->flags & PF_KTHREAD) &&
	    kthread_func(current) == ws_worker_thread) {
		worker = kthread_data(current);
		return worker->pool == pool ? worker : NULL;
	}
	worker = ws_user_worker_of(current);
	if (worker)
		return worker->pool == pool ? worker : NULL;
	/* Unordered: a thread that joined set the bit itself, earlier. */
	if (likely(!READ_ONCE(pool->joined)))
		return NULL;
	return ws_current_joined(pool);
}

/**
 * ws_in_pool - whether the caller is a worker of a pool
 * @pool: the pool
 *
 * Return: true in a task running on one of @pool's workers.
 */
bool ws_in_pool(struct ws_pool *pool)
{
	return ws_current_worker(pool);
}

/**
 * ws_should_split - whether a divisible piece of work should be split now
 * @pool: the pool the work runs in
 *
 * Lazy splitting: split when nothing on our deque is left for thieves or
 * when a worker is idle; always outside the pool.
 *
 * Return: true if the caller should split off work for others.
 */
bool ws_should_split(struct ws_pool *pool)
{
	struct ws_worker *worker = ws_current_worker(pool);

	/* Unordered reads: a stale answer costs balance, not correctness. */
	return !worker || !ws_deque_size(&worker->deque) ||
	       atomic_read(&pool->nr_idle);
}

/**
 * ws_pool_current - the slot of a pool that the current thread owns
 * @pool: the pool
 *
 * Return: the worker or join slot, or NULL outside the pool.
 */
struct ws_worker *ws_pool_current(struct ws_pool *pool)
{
	return ws_current_worker(pool);
}
EXPORT_SYMBOL_NS_GPL(ws_pool_current, WSCHED_INTERNAL);

/* xorshift32 (Marsaglia 2003): cheap, per-worker, good enough for victims. */
static u32 ws_next_rand(struct ws_worker *worker)
{
	u32 x = worker->rand;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	worker->rand = x;
	return x;
}

/**
 * ws_pool_has_work - whether anything is queued in a pool
 * @pool: the pool
 *
 * A snapshot; callers order it against publication with barriers.
 *
 * Return: true if a deque, mailbox, the FIFO or the injection queue holds
 * a task.
 */
bool ws_pool_has_work(struct ws_pool *pool)
{
	unsigned int cpu;

	/* Unordered: ws_worker_sleep() issues smp_mb() before calling. */
	if (!llist_empty(&pool->inject) || READ_ONCE(pool->fifo_head))
		return true;
	for (cpu = 0; cpu < pool->nr_slots; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		/*
		 * Join slots: deques only (their mailboxes stay empty, and
		 * their cells: they promote no frame).
		 */
		if (ws_deque_size(&worker->deque) ||
		    !llist_empty(&worker->mailbox) ||
		    READ_ONCE(worker->inv_cell))
			return true;
	}
	return false;
}

/**
 * ws_wake_locked - wake an idle worker
 * @pool: its pool, whose idle_lock the caller holds
 * @worker: a worker on the pool's idle list; it is taken off the list
 * @wake_flags: 0, or WS_WF_SYNC from a waker that is about to sleep (so
 *	that the scheduler puts the worker on the waker's CPU)
 */
void ws_wake_locked(struct ws_pool *pool, struct ws_worker *worker,
		    int wake_flags)
{
	lockdep_assert_held(&pool->idle_lock);
	list_del_init(&worker->idle_node);
	atomic_dec(&pool->nr_idle);
	/*
	 * Under idle_lock: the worker takes the lock before it can return
	 * from its sleep and exit, so the thread is alive.  With flags,
	 * what wake_up_process() does with them passed on (the only
	 * exported way to pass them); without, the plain call.
	 */
	if (wake_flags) {
		struct wait_queue_entry wqe;

		init_waitqueue_entry(&wqe, worker->thread);
		default_wake_function(&wqe, TASK_NORMAL, wake_flags, NULL);
	} else {
		wake_up_process(worker->thread);
	}
	ws_stat_inc(pool, wakeups);
	trace_wsched_wake(pool, worker->cpu);
}

/*
 * ws_wake_one() saw an idle worker: wake the first on the idle list, with
 * @wake_flags (ws_wake_locked()).
 */
void __ws_wake_one(struct ws_pool *pool, int wake_flags)
{
	struct ws_worker *worker;
	unsigned long flags;

	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	worker = list_first_entry_or_null(&pool->idle_list, struct ws_worker,
					  idle_node);
	if (worker)
		ws_wake_locked(pool, worker, wake_flags);
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
}

/**
 * ws_wake_idle - wake one idle worker of a pool, if any
 * @pool: the pool
 *
 * After ws_push_counted() or ws_spawn_local(): the full barrier orders
 * the pushes before the read of the idle count (pairs with the smp_mb() in ws_worker_sleep()).
 */
void ws_wake_idle(struct ws_pool *pool)
{
	/* Pushes before nr_idle; pairs with smp_mb() in ws_worker_sleep(). */
	smp_mb();
	ws_wake_one(pool);
}

/**
 * ws_inject - queue a ready task from outside the pool's workers
 * @pool: the pool
 * @task: the task, already counted in its group
 */
void ws_inject(struct ws_pool *pool, struct ws_task *task)
{
	llist_add(&task->node, &pool->inject);
	ws_stat_inc(pool, injected);
	/*
	 * Publish the task before looking for sleepers; pairs with the
	 * smp_mb() in ws_worker_sleep(), so either we see the sleeper or it
	 * sees the task.
	 */
	smp_mb();
	ws_wake_one(pool);
}

/* Mark one task of @group finished. */
static __always_inline void ws_group_complete(struct ws_group *group)
{
	/*
	 * Read the callback while our task still counts in the group: once
	 * the count reaches zero the waiter may free or reuse the group.
	 */
	void (*done)(struct ws_group *group) = group->done;

	/*
	 * Fully ordered: the task's writes come before the count reaches
	 * zero (pairs with the acquire in ws_group_done()), and the count
	 * comes before wake_up_var()'s check for waiters (pairs with the
	 * barrier in prepare_to_wait_event()).  The callback comes after
	 * the decrement too, so it sees every task's writes.
	 */
	if (atomic_dec_and_test(&group->pending)) {
		if (done)
			done(group);
		else
			wake_up_var(&group->pending);
	}
}

/* Inline: the common case, no successor, costs only the cmpxchg. */
static __always_inline struct ws_task *
ws_release_successors(struct ws_worker *worker, struct ws_task *task)
{
	/*
	 * Fully ordered; close the list against late edges.  Pairs with
	 * try_cmpxchg() in ws_task_precede(): an edge is either linked
	 * before this and released, or sees the list closed.
	 */
	if (likely(!cmpxchg(&task->successors, NULL, WS_DEPS_CLOSED)))
		return NULL;
	return ws_release_deps(worker, task);
}

static struct ws_task *ws_take_fifo(struct ws_pool *pool)
{
	struct llist_node *node;
	unsigned long flags;

	/* Unlocked peek; the lock orders the real take. */
	if (!READ_ONCE(pool->fifo_head))
		return NULL;
	raw_spin_lock_irqsave(&pool->fifo_lock, flags);
	node = pool->fifo_head;
	if (node) {
		/* Pairs with the lockless READ_ONCE() readers of fifo_head. */
		WRITE_ONCE(pool->fifo_head, node->next);
		if (!node->next)
			pool->fifo_tail = &pool->fifo_head;
	}
	raw_spin_unlock_irqrestore(&pool->fifo_lock, flags);
	return node ? llist_entry(node, struct ws_task, node) : NULL;
}

static struct ws_task *ws_take_mail(struct ws_worker *worker)
{
	struct llist_node *node;

	if (llist_empty(&worker->mailbox))
		return NULL;
	/* llist_del_first() allows one taker at a time. */
	spin_lock(&worker->mailbox_lock);
	node = llist_del_first(&worker->mailbox);
	spin_unlock(&worker->mailbox_lock);
	return node ? llist_entry(node, struct ws_task, node) : NULL;
}

/*
 * A lazily spawned task of ours has finished (or handed its place to a
 * bypassed task that is counted): one fewer to wait for.
 */
static void ws_lazy_done(struct ws_group *group)
{
	/*
	 * Release pairs with the acquire of lazy in ws_group_done(): a
	 * waiter that sees the count drop sees the task's writes.
	 */
	smp_store_release(&group->lazy, group->lazy - 1);
}

/*
 * Run @task, or its cancel hook if its group was cancelled.  Return the
 * task to run next on this worker (bypass), or NULL.  A returned task
 * takes the place of @task in its group, so the count is untouched:
 * bypass costs no atomic operation.  A successor that @task made ready
 * runs next unless @task returned a task, which then wins (the oneTBB
 * task_group rule) and the successor is queued.
 *
 * A lazily spawned task runs only on its group's owner (thieves count the
 * tasks they take, see ws_task_claim()), which counts it done in its own
 * counter: no atomic operation either.
 */
static __always_inline struct ws_task *
ws_execute_finish(struct ws_worker *worker, struct ws_task *task,
		  struct ws_group *group, bool lazy, struct ws_task *next);

/* Inline in the dispatch loops: a call costs a TB lookup under TCG. */
static __always_inline struct ws_task *
ws_execute(struct ws_worker *worker, struct ws_task *task)
{
	struct ws_group *group = task->group;
	struct ws_pool *pool = worker->pool;
	unsigned long outer = worker->inv.isolation;
	unsigned int from;
	bool lazy = task->flags & WS_TASK_LAZY;
	struct ws_task *next = NULL;

	/* test_bit() inline: ws_group_cancelled() is an exported call. */
	if (unlikely(test_bit(WS_GROUP_CANCELLED_BIT, &group->flags))) {
		ws_stat_inc(pool, cancelled);
		if (task->cancel)
			task->cancel(task);
	} else {
		trace_wsched_execute(pool, task);
		/* Isolation follows the task into its nested waits. */
		from = ws_isolation_enter(worker, task->isolation);
		next = task->fn(task);
		ws_isolation_leave(worker, outer, from);
		ws_stat_inc(pool, executed);
	}
	return ws_execute_finish(worker, task, group, lazy, next);
}

/*
 * The end of ws_execute(), once @task of @group (lazily spawned if @lazy)
 * has run and returned @next: release its successors, count it done
 * unless @next takes its place.  Return the task to run next, or NULL.
 */
static __always_inline struct ws_task *
ws_execute_finish(struct ws_worker *worker, struct ws_task *task,
		  struct ws_group *group, bool lazy, struct ws_task *next)
{
	struct ws_pool *pool = worker->pool;
	struct ws_task *ready;

	ready = next == task ? NULL : ws_release_successors(worker, task);
	if (next) {
		next->group = group;
		next->isolation = task->isolation;
		next->flags = lazy ? WS_TASK_LAZY : 0;
		/*
		 * A lazy place may only pass to a task that runs here now:
		 * one with predecessors left may be released and run
		 * anywhere, so count it in the group first.
		 */
		if (lazy && atomic_read(&next->deps) != 1) {
			next->flags = 0;
			atomic_inc(&group->pending);
			ws_lazy_done(group);
		}
		/* Never bypass a task that still waits for predecessors. */
		if (ws_task_release_spawn_ref(pool, next)) {
			if (ready)
				ws_queue_ready(pool, worker, ready);
			ws_stat_inc(pool, bypassed);
			trace_wsched_bypass(pool, next);
			return next;
		}
		/* Deferred: it keeps @task's count in the group. */
	} else if (lazy) {
		ws_lazy_done(group);
	} else {
		ws_group_complete(group);
	}
	if (ready) {
		ws_stat_inc(pool, bypassed);
		trace_wsched_bypass(pool, ready);
	}
	return ready;
}

/**
 * ws_task_claim - count a task taken from another thread's deque
 * @task: the task, now owned by the caller
 *
 * A lazily spawned task is counted only by its group's owner.  Whoever
 * takes one from the owner's deque (a thief, or the hotplug and slot
 * release paths that empty a deque) counts it in the group's pending
 * count before it can run elsewhere.
 */
void ws_task_claim(struct ws_task *task)
{
	struct ws_group *group;

	if (likely(!(task->flags & WS_TASK_LAZY)))
		return;
	group = task->group;
	task->flags = 0;
	atomic_inc(&group->pending);
	/*
	 * Release: the count above comes before the steal is seen; pairs
	 * with the acquire of stolen in ws_group_done().
	 */
	atomic_inc_return_release(&group->stolen);
}

/*
 * Take a batch from the injection queue: run the oldest, queue the rest on
 * our deque where others can steal them.
 */
static struct ws_task *ws_take_injected(struct ws_worker *worker)
{
	struct ws_pool *pool = worker->pool;
	struct ws_task *first, *task, *tmp;
	struct llist_node *batch;

	if (llist_empty(&pool->inject))
		return NULL;
	batch = llist_del_all(&pool->inject);
	if (!batch)
		return NULL;
	batch = llist_reverse_order(batch);
	first = llist_entry(batch, struct ws_task, node);
	if (!batch->next)
		return first;
	/* _safe: once pushed, a task may be stolen, run and freed. */
	llist_for_each_entry_safe(task, tmp, batch->next, node) {
		if (!ws_deque_push(&worker->deque, task, GFP_NOWAIT))
			llist_add(&task->node, &pool->inject);
	}
	ws_wake_one(pool);
	return first;
}

/*
 * Take a task mailed to any worker, its own thread or not.  A thread
 * whose wait is restricted (too deep, or isolated) never reads its
 * mailbox, nor does a worker whose CPU is going offline before its
 * offline callback drains it; so mail must be reachable by every thread
 * that may run anything: CPU workers in their last resort of a steal,
 * threads that joined once their spin found nothing else (before they
 * nap), and compensation threads.  Otherwise mail to the workers of a
 * pool whose workers are all in restricted waits would wait forever
 * (a compensation thread started for it found nothing to run).
 */
static struct ws_task *ws_take_any_mail(struct ws_pool *pool)
{
	unsigned int i;

	for (i = 0; i < pool->nr_cpus; i++) {
		struct ws_task *task = ws_take_mail(pool->workers[i]);

		if (task) {
			ws_stat_inc(pool, stolen);
			return task;
		}
	}
	return NULL;
}

/*
 * Steal the oldest task of slot @slot's deque, trying again while other
 * thieves win the races for it.
 */
static struct ws_task *ws_steal_from(struct ws_worker *thief, unsigned int slot)
{
	struct ws_pool *pool = thief->pool;
	struct ws_worker *victim = pool->workers[slot];
	struct ws_task *task;
	bool lost_race;

	do {
		lost_race = false;
		task = ws_deque_steal(&victim->deque, &lost_race);
	} while (!task && lost_race);
	if (!task && victim->latent)
		task = ws_take_promoted(victim);
	if (!task) {
		ws_invoke_request(victim);
		ws_latent_request(victim);
		ws_heartbeat_kick(victim);
		return NULL;
	}
	ws_task_claim(task);
	ws_stat_inc(pool, stolen);
	trace_wsched_steal(pool, task, slot);
	/* Cascade: more left there, so wake a helper. */
	if (ws_deque_size(&victim->deque))
		ws_wake_one(pool);
	return task;
}

/*
 * Rule 3: steal the oldest task of a victim, near ones first.  A CPU slot
 * tries its SMT siblings, then the CPUs sharing its LLC, then those of its
 * NUMA node (@thief->victims, built by pool.c), each level from a random
 * start; then every other slot, from a random start.  Slots without
 * victims (join slots, user pools) only do the last.
 */
static struct ws_task *ws_steal(struct ws_worker *thief)
{
	struct ws_pool *pool = thief->pool;
	unsigned int nr = pool->nr_slots;
	/* A hint: a join slot's deque is empty before its bit is cleared. */
	unsigned long joined = READ_ONCE(pool->joined);
	const struct ws_victims *v;
	struct ws_task *task = NULL;
	unsigned int l, i, n, lo = 0, start;

	rcu_read_lock();
	/*
	 * Pairs with the rcu_assign_pointer() of ws_victims_set(): the
	 * arrays are seen as they were built; the grace period before the
	 * old ones are freed outlasts this read-side section.
	 */
	v = rcu_dereference(thief->victims);
	for (l = 0; v && l < WS_TOPO_NR_NEAR; lo = v->end[l++]) {
		n = v->end[l] - lo;
		if (!n)
			continue;
		start = reciprocal_scale(ws_next_rand(thief), n);
		for (i = 0; i < n; i++) {
			task = ws_steal_from(thief, v->cpu[lo + (start + i < n ?
						start + i : start + i - n)]);
			if (!task)
				continue;
			if (l <= WS_TOPO_LLC)
				ws_stat_inc(pool, stolen_local);
			else
				ws_stat_inc(pool, stolen_remote);
			goto out;
		}
	}
	start = reciprocal_scale(ws_next_rand(thief), nr);
	for (i = 0; i < nr; i++) {
		unsigned int slot = start + i < nr ? start + i : start + i - nr;

		if (pool->workers[slot] == thief ||
		    (slot >= pool->nr_cpus &&
		     !test_bit(slot - pool->nr_cpus, &joined)) ||
		    (v && slot < pool->nr_cpus && test_bit(slot, v->near)))
			continue;
		task = ws_steal_from(thief, slot);
		if (!task)
			continue;
		if (v && slot < pool->nr_cpus)
			ws_stat_inc(pool, stolen_remote);
		goto out;
	}
out:
	rcu_read_unlock();
	if (task)
		return task;
	/*
	 * Last resort: tasks mailed to busy workers.  Not here for threads
	 * that joined: they spin while they wait and would take mail from
	 * under an idle target that was just woken for it.  They take it
	 * later, see ws_take_any_mail().
	 */
	if (thief->cpu < pool->nr_cpus) {
		struct ws_task *task = ws_take_any_mail(pool);

		if (task)
			return task;
	}
	ws_stat_inc(pool, steal_failed);
	return NULL;
}

/* What a worker may run while it waits: bounds its stack use. */
enum ws_scope {
	WS_RUN_NOTHING,		/* too deep: only sleep */
	WS_RUN_OWN,		/* pop our own deque */
	WS_RUN_ANY,		/* also mailed, queued and stolen tasks */
};

static enum ws_scope ws_wait_scope(struct ws_worker *worker)
{
	unsigned long left = __ws_stack_left();

	if (!__ws_wait_may_run(worker->inv.wait_depth, left))
		return WS_RUN_NOTHING;
	if (worker->inv.wait_depth >= WS_MAX_STEAL_DEPTH || left < THREAD_SIZE / 2)
		return WS_RUN_OWN;
	return WS_RUN_ANY;
}

/*
 * Pop our own deque.  Inside an isolated region only the region's tasks
 * may run; they sit above older outside tasks, so a foreign task at the
 * bottom means none of the region's is left: put it back.
 */
static __always_inline struct ws_task *ws_pop_own(struct ws_worker *worker)
{
	struct ws_task *task = ws_deque_pop(&worker->deque);

	if (task && unlikely(task->isolation != worker->inv.isolation) &&
	    worker->inv.isolation) {
		/* Cannot fail: the slot we just emptied is free. */
		ws_deque_push(&worker->deque, task, GFP_NOWAIT);
		return NULL;
	}
	if (task)
		ws_stat_inc(worker->pool, popped);
	return task;
}

/*
 * The three rules, in order.  @bypass is what the task just run returned.
 * @scope limits what a nested wait may take.
 */
static __always_inline struct ws_task *
ws_next_task(struct ws_worker *worker, struct ws_task *bypass,
	     enum ws_scope scope)
{
	struct ws_pool *pool = worker->pool;
	bool open = scope == WS_RUN_ANY && !worker->inv.isolation;
	struct ws_task *task;

	/* 1. Bypass: run the returned task at once, no deque traffic. */
	if (bypass)
		return bypass;
	if (scope == WS_RUN_NOTHING)
		return NULL;

	/* FIFO tasks get a regular turn, so spawns cannot starve them. */
	if (open && !(++worker->inv.ticks % WS_FIFO_TURN)) {
		task = ws_take_fifo(pool);
		if (task)
			return task;
	}

	/*
	 * 2. Pop the youngest task of our own (LIFO): latent ones first,
	 * then the deque, then a latent one we promoted and nobody took.
	 * Latent tasks were spawned outside any isolated region, so none
	 * runs inside one.
	 */
	task = NULL;
	if (!worker->inv.isolation)
		task = ws_latent_pop(worker);
	if (!task)
		task = ws_pop_own(worker);
	if (!task && !worker->inv.isolation)
		task = ws_latent_take_cell(worker);
	if (task || !open)
		return task;

	/* Then what was mailed to us, queued FIFO, or injected from outside. */
	task = ws_take_mail(worker);
	if (!task)
		task = ws_take_fifo(pool);
	if (!task)
		task = ws_take_injected(worker);
	if (task)
		return task;

	/* 3. Steal the oldest task of a random victim (FIFO). */
	return ws_steal(worker);
}

/*
 * Sleep until there is work: prepare (list ourselves as idle), recheck
 * the queues, then commit to sleeping.  A waker that published work after
 * our recheck sees us on the idle list and wakes us.
 *
 * A worker of a user pool sleeps for at most ws_user_idle_jiffies(), and
 * interruptibly when it is a thread of the user's process (a signal must
 * reach it: SIGKILL, the freezer).  Return: true if it slept that long
 * without being woken, so that it may leave (ws_user_retire()).
 */
static bool ws_worker_sleep(struct ws_worker *worker)
{
	struct ws_pool *pool = worker->pool;
	bool timed_out = false;

	WRITE_ONCE(worker->napping, true);
	raw_spin_lock_irq(&pool->idle_lock);
	list_add(&worker->idle_node, &pool->idle_list);
	atomic_inc(&pool->nr_idle);
	set_current_state(ws_user_worker_of(current) ? TASK_INTERRUPTIBLE :
						      TASK_IDLE);
	raw_spin_unlock_irq(&pool->idle_lock);
	/*
	 * Order our idle mark before the recheck of the queues; pairs with
	 * the smp_mb() in ws_inject(), ws_enqueue() and ws_spawn_on()
	 * between publishing a task and reading nr_idle.
	 */
	smp_mb();
	/*
	 * Also orders our idle mark before the reads of the heartbeats'
	 * flags; pairs with the smp_mb() in ws_heartbeat_unwanted().
	 */
	ws_heartbeat_kick_idle(pool);
	/* ws_frozen: written under idle_lock by ws_freeze_pools(). */
	if ((READ_ONCE(ws_frozen) || !ws_pool_has_work(pool)) &&
	    !ws_worker_should_stop(worker)) {
		ws_stat_inc(pool, sleeps);
		trace_wsched_sleep(pool, worker->cpu);
		if (pool->user)
			timed_out = !schedule_timeout(ws_user_idle_jiffies());
		else
			schedule();
	}
	__set_current_state(TASK_RUNNING);

	raw_spin_lock_irq(&pool->idle_lock);
	if (!list_empty(&worker->idle_node)) {
		list_del_init(&worker->idle_node);
		atomic_dec(&pool->nr_idle);
	} else {
		/* A waker took us off the list: it has work for us. */
		timed_out = false;
	}
	raw_spin_unlock_irq(&pool->idle_lock);
	WRITE_ONCE(worker->napping, false);
	return timed_out;
}

/*
 * Sleep until @group completes, or for at most a tick if !@forever, in
 * @state (WS_NAP_STATE or WS_NAP_KILLABLE; the latter returns at once
 * when a fatal signal is pending).  A worker whose group's tasks run
 * elsewhere naps here and wakes each tick to look for new work.
 */
void ws_nap_on_group(struct ws_group *group, bool forever, unsigned int state)
{
	struct wait_queue_head *wq = __var_waitqueue(&group->pending);
	struct wait_bit_queue_entry wbq;

	init_wait_var_entry(&wbq, &group->pending, 0);
	for (;;) {
		/*
		 * prepare_to_wait_event() queues us, then sets the task state
		 * with a full barrier; pairs with atomic_dec_and_test() before
		 * wake_up_var() in ws_group_complete().  It refuses (and does
		 * not queue us) when a signal the state allows is pending.
		 */
		if (prepare_to_wait_event(wq, &wbq.wq_entry, state))
			break;
		if (ws_group_done(group))
			break;
		if (!forever) {
			schedule_timeout(1);
			break;
		}
		schedule();
	}
	finish_wait(wq, &wbq.wq_entry);
}

/*
 * What the dispatch loop does when a thread found nothing to run for
 * %WS_SPIN_ROUNDS rounds in a row.
 */
enum ws_idle_action {
	WS_IDLE_SLEEP,		/* a worker: sleep on the idle list */
	WS_IDLE_NAP,		/* a wait: nap on its group */
	WS_IDLE_RETURN,		/* a helper or a compensation thread: return */
};

/* Pending signals that stop the loop between two tasks. */
enum ws_stop_on {
	WS_STOP_NONE,
	WS_STOP_SIGNAL,		/* any signal */
	WS_STOP_FATAL,		/* a fatal signal; the nap is killable too */
};

/*
 * How a caller of ws_dispatch() runs it, passed by value so that the
 * compiler specialises the loop for each caller: the fields a caller knows
 * at compile time cost nothing (a caller whose flag is known only at run
 * time tests it in the loop rather than keep two copies of it).
 * @idle: enum ws_idle_action
 * @stop: enum ws_stop_on
 * @once: WS_IDLE_SLEEP: return after the first sleep
 * @any_mail: take mail of any worker whenever nothing else turns up (a
 *	compensation thread: the targets may be the stuck threads)
 */
struct ws_dispatch_policy {
	u8 idle;
	u8 stop;
	bool once;
	bool any_mail;
};

/* Why ws_dispatch() returned. */
enum ws_dispatch_end {
	WS_END_DONE,		/* the exit condition holds */
	WS_END_SIGNAL,		/* a signal the policy stops on is pending */
	WS_END_IDLE,		/* nothing to run (WS_IDLE_RETURN), or slept once */
	WS_END_RETIRED,		/* a user pool's worker left the pool */
};

/* Exit conditions of ws_dispatch(), inlined into it by its callers. */
static bool ws_worker_stopping(void *worker)
{
	return ws_worker_should_stop(worker);
}

static bool ws_group_done_arg(void *group)
{
	return ws_group_done(group);
}

static bool ws_frozen_now(void *unused)
{
	/* Unordered: written under idle_lock by ws_freeze_pools(). */
	return READ_ONCE(ws_frozen);
}

/*
 * The one dispatch loop of every thread that runs tasks: workers, waits
 * (of workers and of threads that joined), helpers and compensation
 * threads.  Take tasks by the three rules within @scope and run them until
 * @done(@arg) holds; a task returned for bypass runs even when it holds,
 * or when a stop is requested.  With nothing to run, spin for
 * %WS_SPIN_ROUNDS rounds, then act as @policy says: a worker sleeps, a
 * wait naps on its group (@arg), a helper returns.  Before it stops
 * spinning, a thread promotes a private ws_parallel_invoke() frame of
 * the calls it runs in, one per stop: its heartbeat promotes only while
 * it interrupts the thread, not while the thread sleeps.
 *
 * Return: why it returned (enum ws_dispatch_end).
 */
static __always_inline enum ws_dispatch_end
ws_dispatch(struct ws_worker *worker, enum ws_scope scope,
	    bool (*done)(void *arg), void *arg,
	    const struct ws_dispatch_policy policy)
{
	struct ws_pool *pool = worker->pool;
	unsigned int state = policy.stop == WS_STOP_FATAL ? WS_NAP_KILLABLE :
							     WS_NAP_STATE;
	bool restricted = scope != WS_RUN_ANY || worker->inv.isolation;
	unsigned int empty_rounds = 0;
	struct ws_task *task = NULL;

	/* A task returned for bypass must run even if we are done. */
	while (task || !done(arg)) {
		if (!task && policy.stop == WS_STOP_SIGNAL &&
		    signal_pending(current))
			return WS_END_SIGNAL;
		if (!task && policy.stop == WS_STOP_FATAL &&
		    fatal_signal_pending(current))
			return WS_END_SIGNAL;
		/* Frozen for suspend: a worker starts nothing new until thawed. */
		if (policy.idle == WS_IDLE_SLEEP && !task &&
		    unlikely(READ_ONCE(ws_frozen))) {
			ws_worker_sleep(worker);
			if (policy.once)
				return WS_END_IDLE;
			continue;
		}
		task = ws_next_task(worker, task, scope);
		if (policy.any_mail && !task)
			task = ws_take_any_mail(pool);
		if (task) {
			task = ws_execute(worker, task);
			empty_rounds = 0;
			cond_resched();
			continue;
		}
		if (++empty_rounds < WS_SPIN_ROUNDS) {
			cpu_relax();
			continue;
		}
		empty_rounds = 0;
		/*
		 * About to stop spinning, when our heartbeat cannot promote
		 * (it only does while it interrupts us): promote a private
		 * frame of the calls we run in, one per stop, for the idle.
		 */
		if (READ_ONCE(worker->inv.published) < worker->inv.depth)
			ws_invoke_offer(worker);
		/*
		 * Latent tasks we may not run here (isolated, or too deep):
		 * publish them, as our heartbeat cannot while we sleep.
		 */
		if (READ_ONCE(worker->inv.lat_bot) < worker->inv.lat_top)
			ws_latent_stop(worker);
		switch (policy.idle) {
		case WS_IDLE_SLEEP:
			if (ws_worker_sleep(worker) && pool->user &&
			    ws_user_retire(worker))
				return WS_END_RETIRED;
			if (policy.once)
				return WS_END_IDLE;
			break;
		case WS_IDLE_NAP:
			WRITE_ONCE(worker->napping, true);
			if (restricted) {
				ws_nap_stuck(worker, arg, state);
				WRITE_ONCE(worker->napping, false);
				break;
			}
			/*
			 * A thread that joined does not count as stuck, so no
			 * compensation thread comes for mail while it waits:
			 * take mail if a thread is stuck (its own mail is then
			 * what it may not read), so as not to take it from a
			 * target that was woken for it (a CPU slot's steal
			 * already looked).  Unordered: a stuck thread naps a
			 * tick at a time and is counted while it naps, so a
			 * later round sees it.
			 */
			if (worker->cpu >= pool->nr_cpus &&
			    atomic_read(&pool->nr_stuck)) {
				task = ws_take_any_mail(pool);
				if (task) {
					WRITE_ONCE(worker->napping, false);
					break;
				}
			}
			ws_nap_on_group(arg, false, state);
			WRITE_ONCE(worker->napping, false);
			break;
		default:
			return WS_END_IDLE;
		}
	}
	return WS_END_DONE;
}

/**
 * ws_worker_run - the dispatch loop of a pool's worker
 * @worker: the worker; the caller is its thread
 * @once: return after the first sleep, or when a signal is pending (a
 *	thread of a user's process: its caller handles signals and stop
 *	requests between calls)
 *
 * Takes tasks by the three rules, spins a while when there are none,
 * then sleeps until woken.  A worker of a user pool that slept its idle
 * time out leaves the pool (ws_user_retire()).  Returns when the worker
 * must stop (told to, or it left its user pool) and, with @once, also
 * after its first sleep or at a pending signal: its caller tells these
 * apart by the thread's own state.
 */
void ws_worker_run(struct ws_worker *worker, bool once)
{
	/*
	 * One copy of the loop, @once tested at run time: a second copy
	 * made the function span more pages, which costs translation-block
	 * chaining under QEMU TCG, where the benchmarks run.
	 */
	ws_dispatch(worker, WS_RUN_ANY, ws_worker_stopping, worker,
		    (struct ws_dispatch_policy){
			.idle = WS_IDLE_SLEEP,
			.stop = once ? WS_STOP_SIGNAL : WS_STOP_NONE,
			.once = once,
		    });
}

/**
 * ws_worker_thread - main function of a worker kthread
 * @arg: the worker
 *
 * Return: 0 when stopped, or when it left its user pool.
 */
int ws_worker_thread(void *arg)
{
	struct ws_worker *worker = arg;

	/*
	 * The owner of a latent slot stores its own pointer, and clears it
	 * before it exits: read by the inline ws_parallel_invoke(), which
	 * compares it with current (struct ws_invoke_slot).
	 */
	if (worker->latent)
		WRITE_ONCE(worker->inv.owner, current);
	ws_worker_run(worker, false);
	/* Told to stop with tasks latent: for hotplug to hand on. */
	ws_latent_flush(worker);
	if (worker->latent)
		WRITE_ONCE(worker->inv.owner, NULL);
	return 0;
}

/*
 * A compensation thread (ws_compensate(), join.c): runs whatever @arg's
 * pool has queued, from a fresh stack, until it finds nothing for a
 * while; then it leaves.
 */
int ws_compensator_thread(void *arg)
{
	struct ws_worker *slot = arg;

	/* Mail too: its targets may be the stuck threads. */
	ws_dispatch(slot, WS_RUN_ANY, ws_frozen_now, NULL,
		    (struct ws_dispatch_policy){
			.idle = WS_IDLE_RETURN,
			.any_mail = true,
		    });
	/* Our last access to the pool: it may be destroyed once released. */
	ws_release_slot(slot);
	return 0;
}

/*
 * A pool thread waits by running tasks until the group completes.  A
 * killable wait also stops, between tasks, once a fatal signal is pending.
 * Return: 0, or -EINTR if it stopped before the group completed.
 */
int ws_worker_wait(struct ws_worker *worker, struct ws_group *group,
		   bool killable)
{
	enum ws_scope scope = ws_wait_scope(worker);
	enum ws_dispatch_end end;

	worker->inv.wait_depth++;
	/* One copy of the loop, as in ws_worker_run(). */
	end = ws_dispatch(worker, scope, ws_group_done_arg, group,
			  (struct ws_dispatch_policy){
				.idle = WS_IDLE_NAP,
				.stop = killable ? WS_STOP_FATAL : WS_STOP_NONE,
			  });
	worker->inv.wait_depth--;
	return end == WS_END_SIGNAL ? -EINTR : 0;
}

/*
 * Run @task, then whatever it returns, one wait deeper on @worker: what a
 * wait's dispatch loop does with a task it took (a returned task runs
 * next, by rule 1).
 */
static void ws_run_chain(struct ws_worker *worker, struct ws_task *task)
{
	worker->inv.wait_depth++;
	while (task) {
		task = ws_execute(worker, task);
		cond_resched();
	}
	worker->inv.wait_depth--;
}

/**
 * __ws_latent_run - run a latent task the inline wait popped, out of line
 * @slot: the caller's slot
 * @task: the task: its group is cancelled, or its execution is traced
 *
 * For the inline ws_group_wait() (__ws_wait_latent()).
 */
void __ws_latent_run(struct ws_invoke_slot *slot, struct ws_task *task)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	/*
	 * The inline wait counts only what it runs itself (@nr_ran): a task
	 * that runs here counts as popped per CPU, and in @ticks towards the
	 * FIFO queue's turns, so that a wait whose tasks all come here (the
	 * execute tracepoint on, a cancelled group) still gives the queue
	 * one every WS_FIFO_TURN tasks.
	 */
	ws_stat_inc(worker->pool, popped);
	if (!(++worker->inv.ticks % WS_FIFO_TURN))
		__ws_latent_fifo_turn(slot);
	ws_run_chain(worker, task);
}
EXPORT_SYMBOL_GPL(__ws_latent_run);

/**
 * __ws_latent_finish - finish a latent task the inline wait ran
 * @slot: the caller's slot
 * @task: the task, which ran
 * @group: its group
 * @next: what it returned
 *
 * For the inline ws_group_wait() (__ws_wait_latent()), when @task
 * returned a task or has successors: the rest of ws_execute(), then the
 * task to run next, as ws_run_chain().
 */
void __ws_latent_finish(struct ws_invoke_slot *slot, struct ws_task *task,
			struct ws_group *group, struct ws_task *next)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	ws_run_chain(worker, ws_execute_finish(worker, task, group, true, next));
}
EXPORT_SYMBOL_GPL(__ws_latent_finish);

/**
 * __ws_latent_fifo_turn - the FIFO queue's turn in an inline wait
 * @slot: the caller's slot
 *
 * For the inline ws_group_wait() (__ws_wait_latent()), every
 * %WS_FIFO_TURN tasks it runs: run the oldest FIFO task, if the wait
 * may run any task of the pool (as ws_next_task()); then cond_resched().
 */
void __ws_latent_fifo_turn(struct ws_invoke_slot *slot)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	if (ws_wait_scope(worker) == WS_RUN_ANY && !worker->inv.isolation)
		ws_run_chain(worker, ws_take_fifo(worker->pool));
	/* The inline wait only checks need_resched(): see there. */
	cond_resched();
}
EXPORT_SYMBOL_GPL(__ws_latent_fifo_turn);

static __always_inline bool __ws_help(struct ws_worker *worker,
				      bool (*cond)(void *arg), void *arg,
				      bool stop_on_signal)
{
	enum ws_scope scope = ws_wait_scope(worker);

	worker->inv.wait_depth++;
	if (stop_on_signal)
		ws_dispatch(worker, scope, cond, arg,
			    (struct ws_dispatch_policy){
				.idle = WS_IDLE_RETURN,
				.stop = WS_STOP_SIGNAL,
			    });
	else
		ws_dispatch(worker, scope, cond, arg,
			    (struct ws_dispatch_policy){
				.idle = WS_IDLE_RETURN,
			    });
	worker->inv.wait_depth--;
	return cond(arg);
}

/**
 * ws_help_until - run tasks of the pool until a condition holds
 * @worker: the caller's slot (ws_pool_current())
 * @cond: the condition; called between tasks, must be cheap
 * @arg: its argument
 *
 * Runs tasks by the three rules, like a wait, until @cond(@arg) is true,
 * a signal is pending, or no task turns up for %WS_SPIN_ROUNDS rounds.
 *
 * Return: @cond(@arg) at the end.
 */
bool ws_help_until(struct ws_worker *worker, bool (*cond)(void *arg),
		   void *arg)
{
	return __ws_help(worker, cond, arg, true);
}

/**
 * ws_help_drain - ws_help_until(), whatever signals are pending
 * @worker: the caller's slot (ws_pool_current())
 * @cond: the condition; called between tasks, must be cheap
 * @arg: its argument
 *
 * For a thread that must see work end even while it is being killed:
 * the release of a file, which cancels what has not started.
 *
 * Return: @cond(@arg) at the end.
 */
bool ws_help_drain(struct ws_worker *worker, bool (*cond)(void *arg),
		   void *arg)
{
	return __ws_help(worker, cond, arg, false);
}
