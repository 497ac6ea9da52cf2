// SPDX-License-Identifier: GPL-2.0
/*
 * wsched groups: setting them up, cancellation and errors, dependencies
 * between tasks, the ways to spawn a task into a group (own deque, FIFO
 * queue, a CPU's mailbox) and waiting for a group.  What runs the tasks
 * is in dispatch.c.  Documentation/design.rst explains the design.
 */
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/**
 * struct ws_dep - an edge from a task to one of its successors
 * @next: the predecessor's next edge
 * @succ: the successor
 */
struct ws_dep {
	struct ws_dep *next;
	struct ws_task *succ;
};

/**
 * __ws_group_owner - the slot of @pool the current thread owns, if any
 * @pool: the pool
 *
 * For the inline ws_group_init_flags(), when the caller is not the owner
 * of this CPU's slot: a thread that joined, a user pool's worker, or a
 * thread that is not one of @pool's.
 *
 * Return: the slot's &ws_worker.inv, or NULL.
 */
struct ws_invoke_slot *__ws_group_owner(struct ws_pool *pool)
{
	struct ws_worker *worker = ws_current_worker(pool);

	return worker ? &worker->inv : NULL;
}
EXPORT_SYMBOL_GPL(__ws_group_owner);

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
noinline struct ws_task *ws_release_deps(struct ws_worker *worker,
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

/* Account @task in @group; return true if it is ready to run. */
static __always_inline bool ws_task_arm(struct ws_group *group,
					struct ws_task *task)
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
 * __ws_spawn - ws_spawn() out of line
 * @group: the group
 * @task: the task
 *
 * Every case the inline ws_spawn() does not handle: see there.
 */
void __ws_spawn(struct ws_group *group, struct ws_task *task)
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
		if (group->owner == &worker->inv &&
		    likely(atomic_read_acquire(&task->deps) == 1)) {
			task->group = group;
			task->flags = WS_TASK_LAZY;
			/* Owner only; ws_group_done() reads it locklessly. */
			WRITE_ONCE(group->lazy, group->lazy + 1);
			/*
			 * Latent on a CPU slot, outside isolated regions,
			 * unless another thread waits for the group (see
			 * ws_latent_shared()): plain stores, no deque.
			 */
			if (likely(worker->latent && !task->isolation &&
				   !test_bit(WS_GROUP_SHARED_BIT,
					     &group->flags)) &&
			    likely(ws_latent_push(worker, task)))
				return;
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
EXPORT_SYMBOL_GPL(__ws_spawn);

/*
 * Put @task, a latent task of ours taken from @inv.lat, on our deque, or, if
 * the deque cannot grow, in the injection queue, counted in its group as
 * a thief counts what it takes.  Return whether it went to the deque,
 * for which the caller wakes a sleeper when it should (ws_inject() wakes
 * one itself).
 */
static bool ws_latent_to_deque(struct ws_worker *worker, struct ws_task *task)
{
	if (likely(ws_deque_push(&worker->deque, task, GFP_NOWAIT)))
		return true;
	ws_task_claim(task);
	ws_inject(worker->pool, task);
	return false;
}

/*
 * Publish @task, a latent task of ours taken from @inv.lat: onto our deque
 * (then wake a sleeper, with the barrier that ws_push_own() omits), or,
 * inside an isolated region, where our deque may only show the region's
 * tasks above older ones (see ws_pop_own()), into our promotion cell if
 * it is empty.  Return false if it stayed ours: the caller puts it back.
 */
static bool ws_latent_publish(struct ws_worker *worker, struct ws_task *task)
{
	if (worker->inv.isolation)
		return false;
	/*
	 * Unlike ws_push_own(), whose missed wake-up a later spawn makes
	 * good, we answer a thief that found nothing and may be on its way
	 * to sleep, and nothing else may publish this task (the heartbeat
	 * may be off): the task before looking for sleepers; pairs with the
	 * smp_mb() in ws_worker_sleep(), whose recheck reads our deque.
	 */
	if (ws_latent_to_deque(worker, task))
		ws_wake_idle(worker->pool);
	return true;
}

/*
 * Take our oldest latent task, or NULL.  With interrupts off: our
 * heartbeat takes the same entry.
 */
static struct ws_task *ws_latent_take_oldest(struct ws_worker *worker)
{
	struct ws_task *task = NULL;
	unsigned long flags;
	unsigned int b;

	local_irq_save(flags);
	b = worker->inv.lat_bot;
	if (b < worker->inv.lat_top) {
		task = worker->inv.lat[b];
		WRITE_ONCE(worker->inv.lat_bot, b + 1);
	}
	local_irq_restore(flags);
	return task;
}

/* Put back the oldest latent task that ws_latent_take_oldest() took. */
static void ws_latent_untake(struct ws_worker *worker)
{
	unsigned long flags;

	/* Nothing moved the bottom since: only we and our heartbeat do. */
	local_irq_save(flags);
	WRITE_ONCE(worker->inv.lat_bot, worker->inv.lat_bot - 1);
	local_irq_restore(flags);
}

/* What ws_latent_to_cell() did. */
enum ws_latent_move {
	WS_LATENT_NONE,		/* no latent task */
	WS_LATENT_FULL,		/* the cell holds a task already */
	WS_LATENT_MOVED,	/* the oldest latent task is in the cell */
};

/*
 * Move the oldest latent task of @worker into its empty promotion cell.
 * By the owner with interrupts off, by its heartbeat while it interrupts
 * the owner, or by its heartbeat while the owner is off its CPU (see
 * ws_latent_promote_parked()).
 */
static enum ws_latent_move ws_latent_to_cell(struct ws_worker *worker)
{
	/* Ours: program order against the owner (see ws_latent_pop()). */
	unsigned int b = READ_ONCE(worker->inv.lat_bot);
	struct ws_task *task;

	if (b >= READ_ONCE(worker->inv.lat_top))
		return WS_LATENT_NONE;
	/*
	 * Only the owner and its heartbeat store a task here (an invoke
	 * frame or a latent task); a thief or the owner may empty it at any
	 * time, which only makes us wait for the next beat.
	 */
	if (READ_ONCE(worker->inv_cell))
		return WS_LATENT_FULL;
	task = READ_ONCE(worker->inv.lat[b]);
	WRITE_ONCE(worker->inv.lat_bot, b + 1);
	WRITE_ONCE(worker->lat_cell, task);
	/*
	 * Release: the armed task (spawned by the owner, program order on
	 * this CPU) before the pointer; pairs with the fully ordered
	 * cmpxchg() of a thief in ws_take_promoted(), which then reads it.
	 */
	smp_store_release(&worker->inv_cell, task);
	return WS_LATENT_MOVED;
}

/* Wake a sleeper for what ws_latent_to_cell() did. */
static void ws_latent_wake(struct ws_worker *worker, enum ws_latent_move move)
{
	if (move == WS_LATENT_MOVED) {
		/*
		 * The cell before looking for sleepers; pairs with the
		 * smp_mb() in ws_worker_sleep(), whose recheck reads the
		 * cells.
		 */
		smp_mb();
		ws_wake_one(worker->pool);
	} else if (move == WS_LATENT_FULL &&
		   atomic_read(&worker->pool->nr_idle)) {
		ws_wake_one(worker->pool);
	}
}

/**
 * ws_latent_promote - promote the oldest latent task into the cell
 * @worker: the slot
 *
 * By the slot's heartbeat while it interrupts the owner, or by the owner
 * with interrupts off.  A promoted task is counted like a task on the
 * deque: a thief counts it in its group as it takes it (ws_task_claim()).
 *
 * Return: false if @worker holds no latent task.
 */
bool ws_latent_promote(struct ws_worker *worker)
{
	enum ws_latent_move move = ws_latent_to_cell(worker);

	ws_latent_wake(worker, move);
	return move != WS_LATENT_NONE;
}

/*
 * Whether @owner, the thread of @worker, whose pi_lock the caller holds,
 * runs nowhere until that lock is free again, with its last stores seen.
 * Two ways:
 *
 * - Bound to the slot's CPU, the one this interrupt runs on, and not
 *   current here: runnable here, where only this CPU's scheduler (which
 *   this interrupt holds off) could run it, or asleep, and a wake-up that
 *   would place it (anywhere, if CPU hotplug broke its binding) takes its
 *   pi_lock.  Its last stores are in memory in program order, as at an
 *   interrupt of the owner itself.  No other CPU's balancer moves a task
 *   allowed on this CPU alone (its mask is checked too: an affinity
 *   change under way may have set another CPU before moving it).
 *
 * - Blocked, wherever it last ran and whatever its binding: what
 *   try_to_wake_up() checks under the same lock before it may place a
 *   task, in the same order.  A sleeping state that is not TASK_WAKING,
 *   then (smp_rmb(), pairing with the smp_mb__after_spinlock() of
 *   __schedule(), as in try_to_wake_up()) off the runqueue, then, after
 *   that control dependency, off its CPU: the acquire load pairs with the
 *   release store of on_cpu in finish_task() as its CPU switched away
 *   from it, so its stores before it slept are seen.  Only a wake-up,
 *   which needs the lock, lets it run again; the wake-up's ordering then
 *   shows it our stores.  Not held: a task whose dequeue the fair class
 *   delays (on the runqueue, asleep); a later beat finds it off.
 *
 * CPU hotplug breaks the binding of a bound thread that is not a per-CPU
 * kthread as soon as the CPU starts going offline (a wake-up then places
 * it elsewhere and allows it every CPU), before wsched's offline callback
 * stops it: the second way covers that thread once it blocks.
 */
static bool ws_owner_held(struct ws_worker *worker, struct task_struct *owner)
{
	unsigned int state;

	/* Its runqueue is this CPU's before we read its mask. */
	if (raw_smp_processor_id() == worker->cpu &&
	    task_cpu(owner) == worker->cpu && owner->nr_cpus_allowed == 1 &&
	    cpumask_test_cpu(worker->cpu, owner->cpus_ptr))
		return true;
	state = READ_ONCE(owner->__state);
	if (state == TASK_RUNNING || state == TASK_WAKING)
		return false;
	/* Pairs with __schedule(), see above and try_to_wake_up(). */
	smp_rmb();
	if (READ_ONCE(owner->on_rq))
		return false;
#ifdef CONFIG_SMP
	/* Off the runqueue before we look at on_cpu; as try_to_wake_up(). */
	smp_acquire__after_ctrl_dep();
	/* Pairs with smp_store_release() of on_cpu in finish_task(). */
	return !smp_load_acquire(&owner->on_cpu);
#else
	/* One CPU, this interrupt's: the owner, not current, is off it. */
	return true;
#endif
}

/**
 * ws_latent_promote_parked - the heartbeat of an owner it does not interrupt
 * @worker: a CPU slot, whose heartbeat interrupts another thread
 * @us: the heartbeat's interval in microseconds (0: stop)
 *
 * The owner may be blocked, outside any wait, on what one of its latent
 * tasks would do (a completion it signals, a lock it releases), or just
 * preempted: its latent tasks must not stay private then.  While the
 * owner is held (ws_owner_held()), promote its oldest latent task; while
 * it is held with nothing to promote and no invoke frame, stop the
 * heartbeat: the owner sees @inv.hb_armed cleared when it runs again (it
 * needs a wake-up or this CPU, both after us) and starts it at its next
 * latent spawn or outermost call.  An owner that is not held may be
 * running on another CPU (CPU hotplug moved it): its state is not ours to
 * read, so keep beating until it is held or the heartbeat interrupts it.
 *
 * Context: hard interrupt (the heartbeat); the slot holds a reference on
 * its thread until its heartbeat is stopped (pool.c).
 *
 * Return: whether the heartbeat beats on.
 */
bool ws_latent_promote_parked(struct ws_worker *worker, unsigned int us)
{
	struct task_struct *owner = READ_ONCE(worker->thread);
	enum ws_latent_move move = WS_LATENT_NONE;
	bool beat = true;

	/* No thread: hotplug stopped it and flushed its tasks. */
	if (!owner) {
		WRITE_ONCE(worker->inv.hb_armed, false);
		return false;
	}
	raw_spin_lock(&owner->pi_lock);
	if (ws_owner_held(worker, owner)) {
		/* Held: its fields are stable and ours to read. */
		if (ws_heartbeat_may_stop(worker, us))
			beat = false;
		else
			move = ws_latent_to_cell(worker);
	} else if (!us) {
		/* Turned off: promised nothing, only requests promote. */
		beat = false;
	}
	if (!beat)
		WRITE_ONCE(worker->inv.hb_armed, false);
	raw_spin_unlock(&owner->pi_lock);
	/* After the unlock: a wake-up takes the woken thread's pi_lock. */
	ws_latent_wake(worker, move);
	return beat;
}

/*
 * Take back the latent task we promoted to our cell, if it is still
 * there.  With interrupts off: our heartbeat stores @lat_cell.
 */
struct ws_task *__ws_latent_take_cell(struct ws_worker *worker)
{
	struct ws_task *task;
	unsigned long flags;

	local_irq_save(flags);
	task = worker->lat_cell;
	WRITE_ONCE(worker->lat_cell, NULL);
	/*
	 * Fully ordered; pairs with the cmpxchg() of a thief in
	 * ws_take_promoted(): exactly one of us takes it.  The same address
	 * back in the cell is the same task or a new latent task of ours,
	 * ours either way.
	 */
	if (task && cmpxchg(&worker->inv_cell, task, NULL) != task)
		task = NULL;
	local_irq_restore(flags);
	if (task)
		ws_stat_inc(worker->pool, popped);
	return task;
}

/**
 * ws_latent_slow - the rare work of a latent spawn
 * @worker: the caller's slot, which just kept a task latent
 *
 * Starts the heartbeat if it does not beat, and then hands the oldest
 * latent task to an idle worker at once rather than at the first beat;
 * answers a thief's request by publishing the oldest latent task.
 */
noinline void ws_latent_slow(struct ws_worker *worker)
{
	bool offer = READ_ONCE(worker->inv.lat_req);
	struct ws_task *task;

	if (!READ_ONCE(worker->inv.hb_armed) && ws_heartbeat_start(worker))
		offer |= atomic_read(&worker->pool->nr_idle);
	if (!offer)
		return;
	/* A hint; a thief sets it again if it still finds nothing. */
	WRITE_ONCE(worker->inv.lat_req, 0);
	task = ws_latent_take_oldest(worker);
	if (task && !ws_latent_publish(worker, task)) {
		unsigned long flags;

		ws_latent_untake(worker);
		/* Isolated: the cell instead, which our thieves read. */
		local_irq_save(flags);
		ws_latent_promote(worker);
		local_irq_restore(flags);
	}
}

/**
 * __ws_latent_slow - ws_latent_slow() for the inline ws_spawn()
 * @slot: the caller's slot, which just kept a task latent inline
 */
void __ws_latent_slow(struct ws_invoke_slot *slot)
{
	ws_latent_slow(container_of(slot, struct ws_worker, inv));
}
EXPORT_SYMBOL_GPL(__ws_latent_slow);

/**
 * ws_latent_stop - the owner stops running tasks with latent ones left
 * @worker: the caller's slot
 *
 * The dispatch loop runs our latent tasks before anything else, so some
 * are left only where it may not run them (an isolated region, a wait
 * too deep to run anything), or as a worker is told to stop.  Publish
 * them all, oldest first, for the others; inside an isolated region only
 * the oldest, into the cell.  The heartbeat does not promote while we
 * sleep: it promotes only while it interrupts us.
 */
void ws_latent_stop(struct ws_worker *worker)
{
	struct ws_task *task;

	if (worker->inv.isolation) {
		unsigned long flags;

		local_irq_save(flags);
		ws_latent_promote(worker);
		local_irq_restore(flags);
		return;
	}
	while ((task = ws_latent_take_oldest(worker)))
		ws_latent_to_deque(worker, task);
	/*
	 * The tasks before looking for sleepers: we may nap next; pairs with
	 * the smp_mb() in ws_worker_sleep().
	 */
	smp_mb();
	ws_wake_one(worker->pool);
}

/**
 * ws_latent_flush - publish every latent task as the owner's thread exits
 * @worker: the caller's slot
 *
 * Called by a worker thread told to stop: its latent tasks and a
 * promoted one still in its cell go to its deque, which CPU hotplug then
 * hands to the other workers.
 */
void ws_latent_flush(struct ws_worker *worker)
{
	struct ws_task *task = ws_latent_take_cell(worker);

	if (task)
		ws_latent_to_deque(worker, task);
	ws_latent_stop(worker);
}

/*
 * The caller waits for @group, which it does not own: it must not wait
 * for tasks that stay latent on the owner.  Later spawns of the owner
 * into @group are eager, and the owner is asked to publish the latent
 * ones it holds, as a thief asks; its heartbeat publishes them while it
 * runs.
 */
static void ws_latent_shared(struct ws_group *group)
{
	struct ws_worker *owner = container_of(group->owner, struct ws_worker,
					      inv);

	if (!owner->latent || test_bit(WS_GROUP_SHARED_BIT, &group->flags))
		return;
	/* Atomic: ws_group_cancel() may set a bit of the same word. */
	set_bit(WS_GROUP_SHARED_BIT, &group->flags);
	/* A hint, as a thief's (see ws_latent_request()). */
	WRITE_ONCE(owner->inv.lat_req, 1);
}

/**
 * ws_latent_request - a thief found nothing to take from a slot
 * @victim: the slot
 *
 * If its owner holds latent tasks, ask it to publish the oldest at its
 * next spawn (its heartbeat promotes one anyway).  Unordered snapshots of
 * the owner's stores: a lost or late request only leaves the task to its
 * owner, which runs it anyway, and a needless one costs the owner a
 * check.
 */
void ws_latent_request(struct ws_worker *victim)
{
	if (READ_ONCE(victim->inv.lat_bot) < READ_ONCE(victim->inv.lat_top) &&
	    !READ_ONCE(victim->inv.lat_req))
		WRITE_ONCE(victim->inv.lat_req, 1);
}

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
		ws_wake_locked(pool, target, 0);
	else if (!list_empty(&pool->idle_list))
		ws_wake_locked(pool, list_first_entry(&pool->idle_list,
						      struct ws_worker,
						      idle_node), 0);
	raw_spin_unlock_irqrestore(&pool->idle_lock, flags);
}
EXPORT_SYMBOL_GPL(ws_spawn_on);

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

	/* Not the owner: none of its tasks may stay latent (see above). */
	if (group->owner && (!worker || group->owner != &worker->inv))
		ws_latent_shared(group);
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
 * __ws_group_wait - ws_group_wait() out of line
 * @group: the group
 *
 * Every wait the inline ws_group_wait() does not finish: see there.
 *
 * Context: process context, may sleep.
 * Return: as ws_group_wait().
 */
int __ws_group_wait(struct ws_group *group)
{
	return ws_wait(group, false);
}
EXPORT_SYMBOL_GPL(__ws_group_wait);

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
