// SPDX-License-Identifier: GPL-2.0
/*
 * wsched core: workers, the dispatch rules, idle and wake-up, groups,
 * dependencies, cancellation, isolation, FIFO and mailbox submission.
 * Pools and CPU hotplug are in pool.c; ws_parallel_invoke() and the
 * heartbeat in invoke.c.  Documentation/design.rst explains
 * the design.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
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

/* Private group state, above the caller's flags. */
#define WS_GROUP_CANCELLED_BIT	8

/* Marks a finished task's successor list: no edge may be added any more. */
#define WS_DEPS_CLOSED		((struct ws_dep *)1UL)

/* Every this many tasks a worker serves the FIFO queue before its deque. */
#define WS_FIFO_PERIOD		64

/**
 * struct ws_dep - an edge from a task to one of its successors
 * @next: the predecessor's next edge
 * @succ: the successor
 */
struct ws_dep {
	struct ws_dep *next;
	struct ws_task *succ;
};

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
 */
void ws_wake_locked(struct ws_pool *pool, struct ws_worker *worker)
{
	lockdep_assert_held(&pool->idle_lock);
	list_del_init(&worker->idle_node);
	atomic_dec(&pool->nr_idle);
	/*
	 * Under idle_lock: the worker takes the lock before it can return
	 * from its sleep and exit, so the thread is alive.
	 */
	wake_up_process(worker->thread);
	ws_stat_inc(pool, wakeups);
	trace_wsched_wake(pool, worker->cpu);
}

/*
 * Wake one sleeping worker, if any.  Callers that must not lose the
 * wake-up (injection) issue a full barrier between publishing the work and
 * calling this; see ws_worker_sleep() for the pairing.
 */
void ws_wake_one(struct ws_pool *pool)
{
	struct ws_worker *worker;
	unsigned long flags;

	/* Pairs with atomic_inc() in ws_worker_sleep() (see its barrier). */
	if (!atomic_read(&pool->nr_idle))
		return;
	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	worker = list_first_entry_or_null(&pool->idle_list, struct ws_worker,
					  idle_node);
	if (worker)
		ws_wake_locked(pool, worker);
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
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

/*
 * Push a ready task onto our own deque.  Return false if the deque was
 * full and could not grow (the task was not queued).
 */
static __always_inline bool ws_push_own(struct ws_pool *pool,
					struct ws_worker *worker,
					struct ws_task *task)
{
	if (unlikely(!ws_deque_push(&worker->deque, task, GFP_NOWAIT)))
		return false;
	ws_stat_inc(pool, spawned);
	trace_wsched_spawn(pool, task);
	/*
	 * Deliberately no barrier: a missed wake-up here costs parallelism,
	 * never progress, as this worker runs its own deque (or rechecks
	 * with a barrier before it naps, see ws_nap_stuck()).  Later spawns
	 * see the sleepers.
	 */
	ws_wake_one(pool);
	return true;
}

/* Queue a ready task: our own deque on a worker, else the injection queue. */
static void ws_queue_ready(struct ws_pool *pool, struct ws_worker *worker,
			   struct ws_task *task)
{
	if (likely(worker) && ws_push_own(pool, worker, task))
		return;
	ws_inject(pool, task);
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

/**
 * ws_group_init_flags - prepare an empty task group
 * @group: the group
 * @pool: the pool its tasks run in; NULL for ws_system_pool
 * @flags: 0 or %WS_GROUP_CANCEL_ON_ERROR
 */
void ws_group_init_flags(struct ws_group *group, struct ws_pool *pool,
			 unsigned long flags)
{
	atomic_set(&group->pending, 0);
	group->error = 0;
	group->flags = flags & WS_GROUP_CANCEL_ON_ERROR;
	group->pool = pool ? pool : ws_system_pool;
	group->done = NULL;
	/* Set up on a thread of the pool: that thread's spawns are lazy. */
	group->owner = ws_current_worker(group->pool);
	group->lazy = 0;
	atomic_set(&group->stolen, 0);
}
EXPORT_SYMBOL_GPL(ws_group_init_flags);

/**
 * ws_group_cancel - cancel the tasks of a group that have not started
 * @group: the group
 *
 * Tasks of the group that start after this run their cancel hook (if any)
 * instead of their function.  Running tasks finish; they can poll
 * ws_group_cancelled().  ws_group_wait() then returns -ECANCELED unless a
 * task reported an error first.  Callable from any context.
 */
void ws_group_cancel(struct ws_group *group)
{
	set_bit(WS_GROUP_CANCELLED_BIT, &group->flags);
}
EXPORT_SYMBOL_GPL(ws_group_cancel);

/**
 * ws_group_cancelled - whether a group was cancelled
 * @group: the group
 *
 * Return: true once ws_group_cancel() was called on @group, or a task
 * failed in a group set up with %WS_GROUP_CANCEL_ON_ERROR.
 */
bool ws_group_cancelled(struct ws_group *group)
{
	return test_bit(WS_GROUP_CANCELLED_BIT, &group->flags);
}
EXPORT_SYMBOL_GPL(ws_group_cancelled);

/**
 * ws_task_fail - report that a running task failed
 * @task: the task, from inside its own function
 * @error: a negative errno
 *
 * The group keeps the first error reported, and ws_group_wait() returns
 * it.  In a group set up with %WS_GROUP_CANCEL_ON_ERROR the failure also
 * cancels the group's tasks that have not started.
 */
void ws_task_fail(struct ws_task *task, int error)
{
	struct ws_group *group = task->group;

	if (WARN_ON_ONCE(error >= 0))
		error = -EINVAL;
	/* Fully ordered; the first error wins. Read after the group's wait. */
	cmpxchg(&group->error, 0, error);
	/* READ_ONCE(): ws_group_cancel() may set_bit() the same word. */
	if (READ_ONCE(group->flags) & WS_GROUP_CANCEL_ON_ERROR)
		ws_group_cancel(group);
}
EXPORT_SYMBOL_GPL(ws_task_fail);

/**
 * ws_task_precede - make a task wait for another
 * @pred: the predecessor: set up, and spawned, running or finished
 * @succ: the successor: set up with ws_task_init() and not yet spawned
 * @gfp: allocation flags for the edge
 *
 * @succ will not start before @pred has finished (run, failed or been
 * cancelled).  If @pred has already finished, nothing changes.  Builds
 * arbitrary DAGs, before or during their execution.
 *
 * Return: 0, or -ENOMEM.
 */
int ws_task_precede(struct ws_task *pred, struct ws_task *succ, gfp_t gfp)
{
	struct ws_dep *dep, *head;

	dep = kmalloc(sizeof(*dep), gfp);
	if (!dep)
		return -ENOMEM;
	dep->succ = succ;
	/* Not yet spawned, so deps >= 1 and cannot reach zero here. */
	atomic_inc(&succ->deps);
	head = READ_ONCE(pred->successors);
	do {
		if (head == WS_DEPS_CLOSED) {
			/* @pred already finished: no edge needed. */
			atomic_dec(&succ->deps);
			kfree(dep);
			return 0;
		}
		dep->next = head;
		/*
		 * Fully ordered on success; pairs with the cmpxchg() and
		 * xchg() that close the list in ws_release_successors() and
		 * ws_release_deps(): either we link before the close and are
		 * released, or we see it closed.
		 */
	} while (!try_cmpxchg(&pred->successors, &head, dep));
	return 0;
}
EXPORT_SYMBOL_GPL(ws_task_precede);

/*
 * @task has finished: release its successors.  Return the first one that
 * became ready and may run here (for bypass), queue the others.  Inside
 * an isolated region, a successor from outside it goes to the injection
 * queue so that the region's waits never see it.
 */
static noinline struct ws_task *ws_release_deps(struct ws_worker *worker,
						struct ws_task *task)
{
	struct ws_task *first = NULL;
	struct ws_dep *dep, *next;

	/* Fully ordered; pairs with try_cmpxchg() in ws_task_precede(). */
	dep = xchg(&task->successors, WS_DEPS_CLOSED);
	/* Already closed: a finished task spawned again without init. */
	if (dep == WS_DEPS_CLOSED)
		return NULL;
	for (; dep; dep = next) {
		struct ws_task *succ = dep->succ;
		struct ws_pool *pool;

		next = dep->next;
		kfree(dep);
		/*
		 * Fully ordered: our writes happen before the successor
		 * runs, wherever it runs.  Only a spawned successor (which
		 * has its group set) can reach zero.
		 */
		if (!atomic_dec_and_test(&succ->deps))
			continue;
		/*
		 * Ours alone now: set the running state (see
		 * ws_task_release_spawn_ref()) before publishing the task.
		 */
		atomic_set(&succ->deps, 1);
		pool = succ->group->pool;
		ws_stat_inc(pool, released);
		if (pool != worker->pool ||
		    (worker->inv.isolation &&
		     succ->isolation != worker->inv.isolation))
			ws_inject(pool, succ);
		else if (!first)
			first = succ;
		else
			ws_queue_ready(pool, worker, succ);
	}
	return first;
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

/*
 * Drop @task's spawn reference.  Return true if it is ready to run, false
 * if predecessors still hold it back (the last one to finish queues it).
 *
 * A task that runs always has deps == 1, whichever way it became ready:
 * ws_task_precede() on a running task (one that then returns itself to
 * run again after the new predecessor) counts from 1 like on a fresh one.
 */
static bool ws_task_release_spawn_ref(struct ws_pool *pool,
				      struct ws_task *task)
{
	/*
	 * deps == 1: only the spawn reference, no predecessor left.  Acquire
	 * pairs with the fully ordered decrement of the last predecessor to
	 * finish (ws_release_successors()): its writes happen before the
	 * task runs here.
	 */
	if (likely(atomic_read_acquire(&task->deps) == 1))
		return true;
	/* Fully ordered; pairs with the decrements of finishing predecessors. */
	if (atomic_dec_and_test(&task->deps)) {
		/* Back to the running state; nobody else holds a reference. */
		atomic_set(&task->deps, 1);
		return true;
	}
	ws_stat_inc(pool, deferred);
	return false;
}

/* Account @task in @group; return true if it is ready to run. */
static bool ws_task_arm(struct ws_group *group, struct ws_task *task)
{
	task->group = group;
	task->flags = 0;
	/*
	 * Unordered: publishing the task (release of bottom, or a fully
	 * ordered queue insertion) orders this before any decrement of it.
	 */
	atomic_inc(&group->pending);
	return ws_task_release_spawn_ref(group->pool, task);
}

/**
 * ws_spawn - queue a task for execution in a group
 * @group: the group, set up with ws_group_init()
 * @task: the task, set up with ws_task_init(), not queued elsewhere
 *
 * From a worker of the group's pool the task goes to the bottom of the
 * worker's own deque, where the worker pops it or another worker steals
 * it.  From any other context (another thread, an interrupt) it goes to
 * the pool's injection queue.  A task with unfinished predecessors is
 * queued by the last of them to finish.  Never sleeps, never fails.
 */
void ws_spawn(struct ws_group *group, struct ws_task *task)
{
	struct ws_pool *pool = group->pool;
	struct ws_worker *worker = ws_current_worker(pool);

	if (worker) {
		task->isolation = worker->inv.isolation;
		/*
		 * The group's owner spawning a ready task: lazy join, as in
		 * libfork.  The task is counted only in the owner's own
		 * counter, with no atomic operation; a thief that takes it
		 * counts it in the group (ws_task_claim()).  Acquire as in
		 * ws_task_release_spawn_ref().
		 */
		if (group->owner == worker &&
		    likely(atomic_read_acquire(&task->deps) == 1)) {
			task->group = group;
			task->flags = WS_TASK_LAZY;
			/* Owner only; ws_group_done() reads it locklessly. */
			WRITE_ONCE(group->lazy, group->lazy + 1);
			if (likely(ws_push_own(pool, worker, task)))
				return;
			/* The deque could not grow: count it after all. */
			task->flags = 0;
			atomic_inc(&group->pending);
			WRITE_ONCE(group->lazy, group->lazy - 1);
			ws_inject(pool, task);
			return;
		}
	}
	if (ws_task_arm(group, task))
		ws_queue_ready(pool, worker, task);
}
EXPORT_SYMBOL_GPL(ws_spawn);

/**
 * ws_enqueue - queue a task in the pool's FIFO queue
 * @group: the group
 * @task: the task, set up with ws_task_init(), not queued elsewhere
 *
 * Enqueued tasks start in the order they were enqueued, and a stream of
 * spawns cannot starve them: every worker serves the FIFO queue at least
 * once per %WS_FIFO_PERIOD tasks it takes, and idle workers serve it
 * before they steal.  Costs a spinlock per call.  Callable from any
 * context.
 */
void ws_enqueue(struct ws_group *group, struct ws_task *task)
{
	struct ws_pool *pool = group->pool;
	unsigned long flags;

	if (!ws_task_arm(group, task))
		return;
	task->node.next = NULL;
	raw_spin_lock_irqsave(&pool->fifo_lock, flags);
	/*
	 * fifo_tail points at fifo_head when the queue is empty.  Stores to
	 * fifo_head are WRITE_ONCE(): ws_pool_has_work() and the peek in
	 * ws_take_fifo() read it without the lock.
	 */
	if (pool->fifo_tail == &pool->fifo_head)
		WRITE_ONCE(pool->fifo_head, &task->node);
	else
		*pool->fifo_tail = &task->node;
	pool->fifo_tail = &task->node.next;
	raw_spin_unlock_irqrestore(&pool->fifo_lock, flags);
	ws_stat_inc(pool, enqueued);
	/* Publish before looking for sleepers; as in ws_inject(). */
	smp_mb();
	ws_wake_one(pool);
}
EXPORT_SYMBOL_GPL(ws_enqueue);

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

/**
 * ws_spawn_on - queue a task with a hint to run it on a given CPU
 * @group: the group
 * @task: the task, set up with ws_task_init(), not queued elsewhere
 * @cpu: the CPU whose worker should run it
 *
 * The task goes to the mailbox of @cpu's worker, which takes it when it
 * has nothing of its own to run; a worker that is out of work may still
 * steal it from there: if @cpu's worker is busy when the task is mailed,
 * an idle worker is woken to do so.  If @cpu has no worker, this is
 * ws_spawn().
 * Callable from any context.
 */
void ws_spawn_on(struct ws_group *group, struct ws_task *task, int cpu)
{
	struct ws_pool *pool = group->pool;
	struct ws_worker *self, *target;
	unsigned long flags;

	/* A hint only: the check races with hotplug, handled below. */
	if (cpu < 0 || cpu >= pool->nr_cpus ||
	    !READ_ONCE(pool->workers[cpu]->thread)) {
		ws_spawn(group, task);
		return;
	}
	self = ws_current_worker(pool);
	if (self)
		task->isolation = self->inv.isolation;
	if (!ws_task_arm(group, task))
		return;
	target = pool->workers[cpu];
	llist_add(&task->node, &target->mailbox);
	ws_stat_inc(pool, mailed);
	/*
	 * Publish before checking whether the target sleeps; pairs with
	 * the smp_mb() in ws_worker_sleep().
	 */
	smp_mb();
	/*
	 * The target's CPU went offline after our check and its mailbox was
	 * already drained: wake anyone, who will steal from the mailbox.
	 * Pairs with WRITE_ONCE() of thread before the drain in
	 * ws_cpu_offline().
	 */
	if (unlikely(!READ_ONCE(target->thread))) {
		ws_wake_one(pool);
		return;
	}
	if (!atomic_read(&pool->nr_idle))
		return;
	/*
	 * Wake the target if it sleeps.  If it is busy it may not read its
	 * mailbox for a long time (a long task, an isolated region, a wait
	 * too deep to take other work): wake another worker, which takes
	 * the task from the mailbox once it finds nothing else to run.
	 */
	raw_spin_lock_irqsave(&pool->idle_lock, flags);
	if (!list_empty(&target->idle_node))
		ws_wake_locked(pool, target);
	else if (!list_empty(&pool->idle_list))
		ws_wake_locked(pool, list_first_entry(&pool->idle_list,
						      struct ws_worker,
						      idle_node));
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
}
EXPORT_SYMBOL_GPL(ws_spawn_on);

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
/* Inline in the dispatch loops: a call costs a TB lookup under TCG. */
static __always_inline struct ws_task *
ws_execute(struct ws_worker *worker, struct ws_task *task)
{
	struct ws_group *group = task->group;
	struct ws_pool *pool = worker->pool;
	unsigned long outer = worker->inv.isolation;
	bool lazy = task->flags & WS_TASK_LAZY;
	struct ws_task *next = NULL, *ready;

	/* test_bit() inline: ws_group_cancelled() is an exported call. */
	if (unlikely(test_bit(WS_GROUP_CANCELLED_BIT, &group->flags))) {
		ws_stat_inc(pool, cancelled);
		if (task->cancel)
			task->cancel(task);
	} else {
		trace_wsched_execute(pool, task);
		/* Isolation follows the task into its nested waits. */
		worker->inv.isolation = task->isolation;
		next = task->fn(task);
		worker->inv.isolation = outer;
		ws_stat_inc(pool, executed);
	}

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

/* Bytes of kernel stack left below the caller's frame. */
static unsigned long ws_stack_left(void)
{
#ifdef CONFIG_STACK_GROWSUP
	return THREAD_SIZE;
#else
	return (unsigned long)__builtin_frame_address(0) -
	       (unsigned long)task_stack_page(current);
#endif
}

static enum ws_scope ws_wait_scope(struct ws_worker *worker)
{
	unsigned long left = ws_stack_left();

	if (worker->wait_depth >= WS_MAX_WAIT_DEPTH || left < THREAD_SIZE / 4)
		return WS_RUN_NOTHING;
	if (worker->wait_depth >= WS_MAX_STEAL_DEPTH || left < THREAD_SIZE / 2)
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
	if (open && !(++worker->ticks % WS_FIFO_PERIOD)) {
		task = ws_take_fifo(pool);
		if (task)
			return task;
	}

	/* 2. Pop the youngest task of our own deque (LIFO). */
	task = ws_pop_own(worker);
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
	return timed_out;
}

/* How a wait sleeps: out of the load average, and killable if asked. */
#define WS_NAP_STATE		TASK_IDLE
#define WS_NAP_KILLABLE		(TASK_IDLE | TASK_WAKEKILL)

static void ws_nap_on_group(struct ws_group *group, bool forever,
			    unsigned int state);
static void ws_nap_stuck(struct ws_worker *worker, struct ws_group *group,
			 unsigned int state);

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
 * How a caller of ws_dispatch() runs it.  Each caller passes a constant
 * policy, by value, so that the compiler specialises the loop for it.
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
		switch (policy.idle) {
		case WS_IDLE_SLEEP:
			if (ws_worker_sleep(worker) && pool->user &&
			    ws_user_retire(worker))
				return WS_END_RETIRED;
			if (policy.once)
				return WS_END_IDLE;
			break;
		case WS_IDLE_NAP:
			if (restricted) {
				ws_nap_stuck(worker, arg, state);
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
				if (task)
					break;
			}
			ws_nap_on_group(arg, false, state);
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
 * time out leaves the pool (ws_user_retire()).
 *
 * Return: false when the worker must exit (stopped, or it left the pool).
 */
bool ws_worker_run(struct ws_worker *worker, bool once)
{
	enum ws_dispatch_end end;

	if (once)
		end = ws_dispatch(worker, WS_RUN_ANY, ws_worker_stopping, worker,
				  (struct ws_dispatch_policy){
					.idle = WS_IDLE_SLEEP,
					.stop = WS_STOP_SIGNAL,
					.once = true,
				  });
	else
		end = ws_dispatch(worker, WS_RUN_ANY, ws_worker_stopping, worker,
				  (struct ws_dispatch_policy){
					.idle = WS_IDLE_SLEEP,
				  });
	return end == WS_END_IDLE || end == WS_END_SIGNAL;
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
	if (worker->latent)
		WRITE_ONCE(worker->inv.owner, NULL);
	return 0;
}

/*
 * Sleep until @group completes, or for at most a tick if !@forever, in
 * @state (WS_NAP_STATE or WS_NAP_KILLABLE; the latter returns at once
 * when a fatal signal is pending).  A worker whose group's tasks run
 * elsewhere naps here and wakes each tick to look for new work.
 */
static void ws_nap_on_group(struct ws_group *group, bool forever,
			    unsigned int state)
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
	slot->wait_depth = 0;
	slot->inv.isolation = 0;
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

/*
 * A compensation thread: runs whatever @arg's pool has queued, from a
 * fresh stack, until it finds nothing for a while; then it leaves.
 */
static int ws_compensator_thread(void *arg)
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
 * A wait that may not take everything (@scope, or an isolated region)
 * found nothing it may run.  Before napping a tick, make sure that what
 * is queued in the pool has a thread that can run it: wake an idle
 * worker, or, if every thread of the pool is stuck like us, start a
 * compensation thread.
 */
static void ws_nap_stuck(struct ws_worker *worker, struct ws_group *group,
			 unsigned int state)
{
	struct ws_pool *pool = worker->pool;

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
		if (atomic_read(&pool->nr_idle))
			ws_wake_one(pool);
		else if (atomic_read(&pool->nr_stuck) >=
			 READ_ONCE(pool->nr_threads) +
			 hweight_long(READ_ONCE(pool->joined)))
			ws_compensate(pool);
	}
	ws_nap_on_group(group, false, state);
	atomic_dec(&pool->nr_stuck);
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

	worker->wait_depth++;
	if (killable)
		end = ws_dispatch(worker, scope, ws_group_done_arg, group,
				  (struct ws_dispatch_policy){
					.idle = WS_IDLE_NAP,
					.stop = WS_STOP_FATAL,
				  });
	else
		end = ws_dispatch(worker, scope, ws_group_done_arg, group,
				  (struct ws_dispatch_policy){
					.idle = WS_IDLE_NAP,
				  });
	worker->wait_depth--;
	return end == WS_END_SIGNAL ? -EINTR : 0;
}

/*
 * ws_group_wait() from a thread that is not one of the pool's: join the
 * pool in a slot of our own and run tasks like a worker until the group
 * is done; with every join slot taken, just sleep.
 */
static int ws_external_wait(struct ws_pool *pool, struct ws_group *group,
			    bool killable)
{
	unsigned int state = killable ? WS_NAP_KILLABLE : WS_NAP_STATE;
	struct ws_worker *slot = ws_join(pool);
	int ret;

	if (!slot) {
		/*
		 * The owner of a group finishes its lazy tasks without a
		 * wake-up: poll every tick for those.
		 */
		while (!ws_group_done(group)) {
			if (killable && fatal_signal_pending(current))
				return -EINTR;
			ws_nap_on_group(group, !group->owner, state);
		}
		return 0;
	}
	ret = ws_worker_wait(slot, group, killable);
	ws_release_slot(slot);
	return ret;
}

static __always_inline int ws_wait(struct ws_group *group, bool killable)
{
	struct ws_pool *pool = group->pool;
	struct ws_worker *worker = ws_current_worker(pool);
	int error = 0;

	if (worker)
		error = ws_worker_wait(worker, group, killable);
	else if (!ws_group_done(group))
		error = ws_external_wait(pool, group, killable);
	if (error)
		return error;
	/* Ordered after the tasks by the acquire in ws_group_done(). */
	error = READ_ONCE(group->error);
	if (error)
		return error;
	return ws_group_cancelled(group) ? -ECANCELED : 0;
}

/**
 * ws_group_wait - wait until every task of a group has finished
 * @group: the group
 *
 * The caller runs tasks of the group's pool while it waits (its own deque
 * first, then mailed, queued, injected and stolen ones) until the group is
 * complete.  A thread that is not one of the pool's workers joins the
 * pool for the wait, in one of its %WS_MAX_JOINED join slots: tasks it
 * spawns meanwhile go to its own deque, where workers may steal them, and
 * the CPU time of the tasks it runs is its own.  With every join slot
 * taken, or in a pool created with attributes (a CPU mask, a worker limit
 * or a nice level, which only the pool's own workers keep), it sleeps
 * (TASK_IDLE) instead.  Nested waits stay within the
 * bounds of %WS_MAX_STEAL_DEPTH and %WS_MAX_WAIT_DEPTH, which keep them
 * within the kernel stack.
 *
 * The caller may run any task of the pool, so it must not hold a lock
 * that a task of the pool may take (or should wait inside ws_isolate()).
 *
 * When it returns, the group is empty and may be reused or freed, and the
 * writes of its tasks are visible to the caller.
 *
 * Context: process context, may sleep.
 * Return: 0; the first error a task reported with ws_task_fail(); or
 * -ECANCELED if the group was cancelled and no task reported an error.
 */
int ws_group_wait(struct ws_group *group)
{
	return ws_wait(group, false);
}
EXPORT_SYMBOL_GPL(ws_group_wait);

/**
 * ws_group_wait_killable - wait for a group unless the caller is killed
 * @group: the group
 *
 * Like ws_group_wait(), but stops, between two tasks or in its sleep, once
 * a fatal signal is pending for the caller, and then returns -EINTR while
 * tasks of the group may still be queued or running.  The caller must
 * then keep the group and its tasks valid until the group completes: for
 * example cancel it (ws_group_cancel()) and wait with ws_group_wait(),
 * which only waits for the tasks that already run, or have the group's
 * done callback free them.
 *
 * Context: process context, may sleep.
 * Return: as ws_group_wait(), or -EINTR.
 */
int ws_group_wait_killable(struct ws_group *group)
{
	return ws_wait(group, true);
}
EXPORT_SYMBOL_GPL(ws_group_wait_killable);

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
	if (isolate)
		worker->inv.isolation = (unsigned long)&region;
	ret = fn(arg);
	worker->inv.isolation = outer;
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

/**
 * ws_spawn_local - spawn onto the caller's own deque without a wake-up
 * @worker: the caller's slot (ws_pool_current())
 * @group: the group, whose owner is not @worker (no lazy spawn)
 * @task: a ready task, set up with ws_task_init()
 *
 * For a task cheaper than a wake-up (the graph engine's cheap nodes): it
 * runs here, or is stolen by a worker that is awake anyway; the caller
 * may wake one with ws_wake_idle() when there is work worth it.
 */
void ws_spawn_local(struct ws_worker *worker, struct ws_group *group,
		    struct ws_task *task)
{
	struct ws_pool *pool = worker->pool;

	task->isolation = worker->inv.isolation;
	if (!ws_task_arm(group, task))
		return;
	if (likely(ws_deque_push(&worker->deque, task, GFP_NOWAIT))) {
		ws_stat_inc(pool, spawned);
		trace_wsched_spawn(pool, task);
		return;
	}
	ws_inject(pool, task);
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

static __always_inline bool __ws_help(struct ws_worker *worker,
				      bool (*cond)(void *arg), void *arg,
				      bool stop_on_signal)
{
	enum ws_scope scope = ws_wait_scope(worker);

	worker->wait_depth++;
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
	worker->wait_depth--;
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
