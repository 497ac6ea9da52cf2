// SPDX-License-Identifier: GPL-2.0
/*
 * wsched: the out-of-line paths of ws_parallel_invoke() and of the
 * explicit-context API (ws_ctx_run(), ws_ctx_invoke()), and heartbeat
 * promotion.  The unstolen paths are inline in <linux/wsched.h>
 * (__ws_invoke_private(), __ws_ctx_frame()); Documentation/design.rst
 * ("Parallel invoke", "An explicit context") explains the protocol.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wsched.h>

#include "wsched_internal.h"
#include "wsched_trace.h"

static struct ws_task *ws_invoke_task_fn(struct ws_task *task)
{
	struct ws_invoke *inv = container_of(task, struct ws_invoke, task);

	inv->fn(inv->arg);
	return NULL;
}

/*
 * A ws_ctx_invoke() frame's second call, run by whoever took it: with the
 * context of the thread that runs it (a thief's own slot), found once.
 */
static struct ws_task *ws_ctx_task_fn(struct ws_task *task)
{
	struct ws_invoke *inv = container_of(task, struct ws_invoke, task);

	ws_ctx_run(inv->group.pool, inv->ctx_fn, inv->arg);
	return NULL;
}

/*
 * Make @inv (its second call and argument set) a lazily spawned task of a
 * group of its own that @worker owns (see ws_spawn()): counted only in
 * the group's @lazy, and in @pending by whoever takes it
 * (ws_task_claim()).  @ctx: a ws_ctx_invoke() frame; @isolation: the
 * caller's isolation tag when it made the call.  What publishes it (a
 * push, or the release store into the promotion cell) orders these
 * stores before it.
 */
static __always_inline void ws_invoke_arm(struct ws_worker *worker,
					  struct ws_invoke *inv, bool ctx,
					  unsigned long isolation)
{
	ws_task_init(&inv->task, ctx ? ws_ctx_task_fn : ws_invoke_task_fn);
	inv->task.isolation = isolation;
	inv->task.group = &inv->group;
	inv->task.flags = WS_TASK_LAZY;
	ws_group_init_done(&inv->group, worker->pool, NULL);
	inv->group.owner = &worker->inv;
	inv->group.lazy = 1;
}

/*
 * Heartbeat promotion (Documentation/design.rst, "Parallel invoke").
 * While the worker of a CPU slot runs ws_parallel_invoke() calls, a timer
 * of its own interrupts it every ws_heartbeat_us microseconds and promotes
 * its oldest private frame into the slot's promotion cell, where thieves
 * take it.  The frames, @inv.depth and @inv.published are written only by
 * the owner in process context and by that interrupt while it interrupts
 * the owner itself (it checks that current is the owner): so they need
 * only what any per-CPU data needs against an interrupt of its own CPU,
 * program order as the compiler emits it (barrier(), WRITE_ONCE()), and
 * no fence against another CPU.  The owner itself promotes with
 * interrupts off, which keeps its heartbeat out.
 */
unsigned int ws_heartbeat_us = 100;
module_param_named(heartbeat_us, ws_heartbeat_us, uint, 0644);
/*
 * The inline ws_spawn() reads it (__ws_latent_wants_slow()); the tests
 * turn it off to pin the other promotion triggers.
 */
EXPORT_SYMBOL_GPL(ws_heartbeat_us);
MODULE_PARM_DESC(heartbeat_us,
		 "Microseconds between promotions of a busy worker's oldest private ws_parallel_invoke() frame (0: only on request)");

static ktime_t ws_heartbeat_interval(unsigned int us)
{
	return ns_to_ktime((u64)us * NSEC_PER_USEC);
}

/*
 * Promote @worker's oldest private frame into its empty promotion cell
 * and wake a sleeper.  Called with interrupts off, by the owner or by its
 * heartbeat while it interrupts the owner.
 */
static void ws_invoke_promote(struct ws_worker *worker)
{
	/* Ours (see above): plain program order against the owner. */
	unsigned int i = READ_ONCE(worker->inv.published);
	unsigned int depth = READ_ONCE(worker->inv.depth);
	struct ws_invoke *inv;
	unsigned long isolation;
	bool ctx;

	/* No private frame: a latent spawned task, if any. */
	if (i >= min_t(unsigned int, depth, WS_INVOKE_FRAMES)) {
		ws_latent_promote(worker);
		return;
	}
	/*
	 * Only the owner and its heartbeat store a frame here; a thief or
	 * the owner may empty it at any time, which only makes us wait for
	 * the next beat.
	 */
	if (READ_ONCE(worker->inv_cell)) {
		if (atomic_read(&worker->pool->nr_idle))
			ws_wake_one(worker->pool);
		return;
	}
	/*
	 * Marked for KCSAN: our interrupt against the owner's stores.  The
	 * frame is ours until it is taken back (the owner lowers its depth
	 * first), its task storage at the same index too.
	 */
	inv = &worker->inv_tasks[i];
	ctx = READ_ONCE(worker->inv.is_ctx[i]);
	inv->fn = READ_ONCE(worker->inv.frames[i].fn);
	inv->arg = READ_ONCE(worker->inv.frames[i].arg);
	/* The tag of the frame's region (ws_isolation_enter()). */
	if (i >= READ_ONCE(worker->inv_iso_from))
		isolation = READ_ONCE(worker->inv.isolation);
	else
		isolation = READ_ONCE(worker->inv_iso[i]);
	ws_invoke_arm(worker, inv, ctx, isolation);
	/* Read locklessly by thieves in ws_invoke_request(): a hint. */
	WRITE_ONCE(worker->inv.published, i + 1);
	WRITE_ONCE(worker->inv.request, 0);
	/*
	 * Release: the armed task and group before the pointer; pairs with
	 * the fully ordered cmpxchg() of a thief in ws_take_promoted(),
	 * which then reads them.
	 */
	smp_store_release(&worker->inv_cell, &inv->task);
	trace_wsched_spawn(worker->pool, &inv->task);
	/*
	 * The cell before looking for sleepers; pairs with the smp_mb() in
	 * ws_worker_sleep(), whose recheck reads the cells
	 * (ws_pool_has_work()).
	 */
	smp_mb();
	ws_wake_one(worker->pool);
}

/* ws_invoke_promote() from the owner, in process context. */
noinline void ws_invoke_offer(struct ws_worker *worker)
{
	unsigned long flags;

	/* Keeps our heartbeat (a hard interrupt, also on PREEMPT_RT) out. */
	local_irq_save(flags);
	ws_invoke_promote(worker);
	local_irq_restore(flags);
}

/*
 * Whether a promotion now could reach another thread: a worker of the
 * pool sleeps idle, or a thread looking for work (a worker, a thread that
 * joined, a wait on one of our groups) found nothing here and asked.
 * Unordered hints, the thieves' WRITE_ONCE() flags and nr_idle, as the
 * requests themselves are.
 */
static bool ws_heartbeat_wanted(struct ws_worker *worker)
{
	return READ_ONCE(worker->inv.request) || READ_ONCE(worker->inv.lat_req) ||
	       atomic_read(&worker->pool->nr_idle);
}

/*
 * A beat that interrupts the owner, which holds frames or latent tasks:
 * stop (return true) if no thread wants work, so that a busy pool takes
 * no interrupt.  With frames only, clear hb_armed: the owner's next
 * outermost call starts us again.  With latent tasks, doze instead: set
 * hb_dozing and leave hb_armed set, so that the owner's spawns, which
 * start a heartbeat that is not armed (ws_latent_push()), leave us
 * stopped.  Either way a kick starts us again on this CPU: from a thread
 * that looks for work and finds our frames or latent tasks
 * (ws_heartbeat_kick(), from ws_steal_from()), and from every worker
 * about to sleep (ws_heartbeat_kick_idle()): that worker may have tried
 * us before we stopped, and neither our owner's spawns during a doze
 * nor its nested calls look for sleepers.
 */
static bool ws_heartbeat_unwanted(struct ws_worker *worker)
{
	bool latent;

	if (ws_heartbeat_wanted(worker))
		return false;
	latent = READ_ONCE(worker->inv.lat_bot) < READ_ONCE(worker->inv.lat_top);
	if (latent)
		WRITE_ONCE(worker->hb_dozing, true);
	else
		/*
		 * Release: our owner's depth (stored before this interrupt
		 * of its CPU) before the flag; pairs with the acquire in
		 * ws_heartbeat_kick_idle(), which then reads the depth.
		 */
		smp_store_release(&worker->inv.hb_armed, false);
	/*
	 * The flag before the second look at the requests and nr_idle;
	 * pairs with the smp_mb() in ws_heartbeat_kick() between a thief's
	 * request and its read of the flags, and with the one in
	 * ws_worker_sleep() between a worker's idle mark and its read of
	 * the flags (ws_heartbeat_kick_idle()): it sees us stopped and
	 * kicks, or we see it and beat on.
	 */
	smp_mb();
	if (!ws_heartbeat_wanted(worker))
		return true;
	if (latent)
		WRITE_ONCE(worker->hb_dozing, false);
	else
		WRITE_ONCE(worker->inv.hb_armed, true);
	return false;
}

/*
 * The heartbeat.  HRTIMER_MODE_*_HARD: it runs in hard interrupt context
 * on PREEMPT_RT too, so it interrupts the owner at an instruction boundary
 * and the owner's local_irq_save() keeps it out.  It touches no deque
 * (ws_deque_push() and ws_deque_pop() are not reentrant): only the cell.
 * It may fire on a CPU other than its owner's (CPU hotplug moved the
 * owner, or the timer), where it finds its owner or not.
 */
static enum hrtimer_restart ws_heartbeat(struct hrtimer *timer)
{
	struct ws_worker *worker = container_of(timer, struct ws_worker,
						hb_timer);
	unsigned int us = READ_ONCE(ws_heartbeat_us);

	/*
	 * Only the owner stores its own task pointer (or hotplug, while it
	 * does not run).  If we interrupted it, it runs nowhere else, and
	 * its fields are ours in program order.  If not (preempted, napping
	 * in a wait, or moved by hotplug), invoke frames wait for a beat
	 * that interrupts it (their owner runs them anyway), but latent
	 * spawned tasks, which the owner may block on, are promoted while
	 * the owner provably runs nowhere (ws_latent_promote_parked(),
	 * which also decides whether to stop then).
	 */
	if (current == READ_ONCE(worker->thread)) {
		if (ws_heartbeat_may_stop(worker, us)) {
			/*
			 * Nothing to promote: stop until the owner arms us
			 * again (it reads the flag on this CPU, after us).
			 */
			WRITE_ONCE(worker->inv.hb_armed, false);
			return HRTIMER_NORESTART;
		}
		/* Stopped or dozing, the flags set: see there. */
		if (ws_heartbeat_unwanted(worker))
			return HRTIMER_NORESTART;
		ws_invoke_promote(worker);
	} else if (!ws_latent_promote_parked(worker, us)) {
		return HRTIMER_NORESTART;
	}
	hrtimer_forward_now(timer, ws_heartbeat_interval(us));
	return HRTIMER_RESTART;
}

/*
 * A kick, on the owner's CPU in an interrupt (an IPI, a hard interrupt on
 * PREEMPT_RT too): start the heartbeat there unless it beats, as the
 * owner itself does, or wake it from a doze, where it is armed but not
 * queued.  The timer's own callback, in a hard interrupt of this CPU,
 * cannot run meanwhile; ws_heartbeat_start() has the rest.
 */
static void ws_heartbeat_kicked(void *info)
{
	struct ws_worker *worker = info;
	unsigned int us = READ_ONCE(ws_heartbeat_us);

	if (READ_ONCE(worker->hb_dozing)) {
		/* Only the heartbeat and we write it, on this CPU. */
		WRITE_ONCE(worker->hb_dozing, false);
		/*
		 * A beat at once, not a beat from now: a thread waits, and
		 * the owner, if it does not run (preempted, or blocked on a
		 * latent task), cannot answer its request; the beat's parked
		 * promotion can (ws_latent_promote_parked()).
		 */
		if (us)
			hrtimer_start(&worker->hb_timer, 0,
				      HRTIMER_MODE_REL_PINNED_HARD);
		else
			WRITE_ONCE(worker->inv.hb_armed, false);
	} else {
		ws_heartbeat_start(worker);
	}
	/* Our last access to the slot; pairs with ws_heartbeat_stop(). */
	smp_store_release(&worker->hb_kicking, 0);
}

/*
 * Send @victim's kick unless one is in flight; for a doze (@doze) only if
 * it still dozes once the kick is ours.
 */
static void ws_heartbeat_send_kick(struct ws_worker *victim, bool doze)
{
	/*
	 * Fully ordered: one kick in flight, whose csd is ours until sent.
	 * Before the second read of hb_dozing: pairs with the smp_mb() in
	 * ws_heartbeat_stop() between clearing it and waiting for a kick in
	 * flight, so that a stopped slot gets no kick for a doze.
	 */
	if (xchg(&victim->hb_kicking, 1))
		return;
	if (doze && !READ_ONCE(victim->hb_dozing)) {
		/* As below. */
		smp_store_release(&victim->hb_kicking, 0);
		return;
	}
	/* Fails only for a CPU going offline, whose slot loses its thread. */
	if (smp_call_function_single_async(victim->cpu, &victim->hb_kick)) {
		/* Release, as the callback's: pairs with ws_heartbeat_stop(). */
		smp_store_release(&victim->hb_kicking, 0);
	}
}

/**
 * ws_heartbeat_kick - a thief found nothing to take from a slot
 * @victim: the slot
 *
 * If its owner runs ws_parallel_invoke() calls or holds latent tasks and
 * its heartbeat stopped or dozes for want of thieves
 * (ws_heartbeat_unwanted()), start it again with an interrupt of the
 * owner's CPU, so that a frame or task the owner keeps private reaches us
 * within a beat whatever the owner's code does meanwhile.  At most one
 * kick is in flight per slot, and none while the heartbeat beats.  Called
 * after ws_invoke_request() and ws_latent_request(), on the path where a
 * thief has nothing to do.
 */
void ws_heartbeat_kick(struct ws_worker *victim)
{
	if (!victim->latent ||
	    (!READ_ONCE(victim->inv.depth) &&
	     READ_ONCE(victim->inv.lat_bot) >= READ_ONCE(victim->inv.lat_top)))
		return;
	/*
	 * Our request (ws_invoke_request(), ws_latent_request()) before the
	 * read of the flags; pairs with the smp_mb() in
	 * ws_heartbeat_unwanted().
	 */
	smp_mb();
	if ((READ_ONCE(victim->inv.hb_armed) && !READ_ONCE(victim->hb_dozing)) ||
	    !READ_ONCE(ws_heartbeat_us))
		return;
	ws_heartbeat_send_kick(victim, false);
}

/**
 * ws_heartbeat_kick_idle - a worker of @pool is about to sleep
 * @pool: the pool
 *
 * Kick every CPU slot whose heartbeat dozes, or stopped while its owner
 * is in a call.  The first held latent tasks when it stopped, and its
 * spawns since then did not look for sleepers; the second may make
 * frames in nested calls, which do not look for sleepers either.  Either
 * could keep work private while we sleep.  (We tried every slot before,
 * in ws_steal(), but a beat may have stopped since: it looked for idle
 * workers before we were one.)  Called by ws_worker_sleep() after our
 * idle mark and its smp_mb(), which pairs with the one in
 * ws_heartbeat_unwanted(): either the beat saw us idle and beat on, or
 * we see it stopped here.
 */
void ws_heartbeat_kick_idle(struct ws_pool *pool)
{
	unsigned int cpu;

	if (!READ_ONCE(ws_heartbeat_us))
		return;
	for (cpu = 0; cpu < pool->nr_cpus; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (!worker->latent)
			continue;
		if (READ_ONCE(worker->hb_dozing)) {
			ws_heartbeat_send_kick(worker, true);
			continue;
		}
		/*
		 * Pairs with the release in ws_heartbeat_unwanted(): a stop
		 * seen, the owner's depth at that stop is seen too.  A slot
		 * out of its calls starts its heartbeat at its next one.
		 */
		if (!smp_load_acquire(&worker->inv.hb_armed) &&
		    READ_ONCE(worker->inv.depth))
			ws_heartbeat_send_kick(worker, false);
	}
}

/**
 * ws_heartbeat_init - prepare the heartbeat of a slot
 * @worker: the slot, zeroed, with its pool and CPU set
 *
 * Called by the pool's creation for every slot (pool.c); a latent slot
 * gets the storage its promoted frames are armed in.
 *
 * Return: 0, or -ENOMEM; ws_heartbeat_free() undoes it either way.
 */
int ws_heartbeat_init(struct ws_worker *worker)
{
	int node = cpu_possible(worker->cpu) ? cpu_to_node(worker->cpu) :
					       NUMA_NO_NODE;

	hrtimer_init(&worker->hb_timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	worker->hb_timer.function = ws_heartbeat;
	INIT_CSD(&worker->hb_kick, ws_heartbeat_kicked, worker);
	worker->latent = worker->cpu < worker->pool->nr_cpus &&
			 !worker->pool->user;
	if (!worker->latent)
		return 0;
	worker->inv_tasks = kcalloc_node(WS_INVOKE_FRAMES,
					 sizeof(*worker->inv_tasks),
					 GFP_KERNEL, node);
	return worker->inv_tasks ? 0 : -ENOMEM;
}

/**
 * ws_heartbeat_free - free what ws_heartbeat_init() allocated
 * @worker: the slot; its heartbeat is stopped (ws_heartbeat_stop())
 */
void ws_heartbeat_free(struct ws_worker *worker)
{
	kfree(worker->inv_tasks);
	worker->inv_tasks = NULL;
}

/**
 * ws_heartbeat_stop - stop the heartbeat of a slot whose thread is gone
 * @worker: the slot; its thread has exited (CPU offline, pool freed)
 *
 * Its next thread, if any, starts it again at its first outermost call.
 */
void ws_heartbeat_stop(struct ws_worker *worker)
{
	/* No thread: nothing to wake from a doze (the thread's tasks left). */
	WRITE_ONCE(worker->hb_dozing, false);
	/*
	 * Cleared before we look for a kick in flight; pairs with the xchg()
	 * in ws_heartbeat_send_kick(): a sleeper that saw the doze either
	 * sees it over once its kick is claimed, or we see the kick.
	 */
	smp_mb();
	/*
	 * A kick in flight would start the timer again: let it finish.
	 * Pairs with the smp_store_release() in ws_heartbeat_kicked(), its
	 * last access to the slot.  No thief sends another: the slot has no
	 * frames and no latent tasks without a thread.
	 */
	while (smp_load_acquire(&worker->hb_kicking))
		cpu_relax();
	hrtimer_cancel(&worker->hb_timer);
	/* No thread: nobody reads it until the next one starts. */
	WRITE_ONCE(worker->inv.hb_armed, false);
}

/**
 * ws_heartbeat_start - start the heartbeat of the caller's slot
 * @worker: the caller's slot
 *
 * Unless it beats already, or heartbeat_us is 0.  By the owner, as it
 * enters its outermost ws_parallel_invoke() call or keeps a task latent,
 * or by a thief's kick in an interrupt of the owner's CPU.
 *
 * Return: true if it started it.
 */
bool ws_heartbeat_start(struct ws_worker *worker)
{
	unsigned int us = READ_ONCE(ws_heartbeat_us);

	/*
	 * Not armed means not queued, and not running past its last look at
	 * us: its callback cleared the flag as it stopped, either in an
	 * interrupt of our CPU or while we were held off every CPU
	 * (ws_latent_promote_parked()), and we read it after that.  If the
	 * callback has not returned yet, hrtimer_start() queues the timer
	 * on the callback's CPU, and its HRTIMER_NORESTART leaves it queued.
	 */
	if (!us || READ_ONCE(worker->inv.hb_armed))
		return false;
	WRITE_ONCE(worker->inv.hb_armed, true);
	hrtimer_start(&worker->hb_timer, ws_heartbeat_interval(us),
		      HRTIMER_MODE_REL_PINNED_HARD);
	return true;
}

/*
 * The owner entered its outermost ws_parallel_invoke() call: start the
 * heartbeat unless it beats already, and hand the frame to an idle worker
 * at once rather than at the first beat.
 */
static noinline void ws_heartbeat_enter(struct ws_worker *worker)
{
	ws_heartbeat_start(worker);
	if (atomic_read(&worker->pool->nr_idle))
		ws_invoke_offer(worker);
}

/*
 * Take @victim's promoted frame, if any.  The task is read only after the
 * cmpxchg() won: the same address may come back as another frame (the
 * owner took its frame back and promoted a new one there), which is then
 * just as armed and as ours.
 */
struct ws_task *ws_take_promoted(struct ws_worker *victim)
{
	/* A hint; the cmpxchg() decides. */
	struct ws_task *task = READ_ONCE(victim->inv_cell);

	/*
	 * Fully ordered; pairs with the release store of the cell in
	 * ws_invoke_promote() (the armed frame is visible) and with the
	 * owner's cmpxchg() in __ws_invoke_reclaim(): one of us wins.
	 */
	if (!task || cmpxchg(&victim->inv_cell, task, NULL) != task)
		return NULL;
	return task;
}

/*
 * A thief found @victim's deque and promotion cell empty: if its owner
 * holds private invoke frames, ask it to promote one at its next call
 * (its heartbeat does anyway).  Unordered, a snapshot of the owner's
 * WRITE_ONCE() stores: a lost or late request only leaves the frame to
 * its owner, which runs it anyway, and a needless one costs the owner a
 * check.
 */
void ws_invoke_request(struct ws_worker *victim)
{
	if (READ_ONCE(victim->inv.depth) > READ_ONCE(victim->inv.published) &&
	    !READ_ONCE(victim->inv.request))
		WRITE_ONCE(victim->inv.request, 1);
}

/*
 * No join slot for a thread outside @pool: spawn @right into a group of
 * its own (to the injection queue), run @left, sleep until @right is done.
 */
static noinline void ws_invoke_outside(struct ws_pool *pool,
				       ws_invoke_fn left, void *left_arg,
				       ws_invoke_fn right, void *right_arg)
{
	struct ws_invoke inv = { .fn = right, .arg = right_arg };

	ws_group_init(&inv.group, pool);
	ws_task_init(&inv.task, ws_invoke_task_fn);
	ws_spawn(&inv.group, &inv.task);
	left(left_arg);
	/* Cannot fail: nothing cancels or fails this private group. */
	ws_group_wait(&inv.group);
}

/*
 * @inv, armed, is on @worker's deque (pushed by us): take it back, and
 * return true for the caller to run the second call; or wait until
 * whoever took it has run it, and return false.
 */
static bool ws_invoke_join(struct ws_worker *worker, struct ws_invoke *inv)
{
	/*
	 * The first call's own pushes and pops are balanced above ours
	 * unless it left tasks behind, so our task is at the bottom unless
	 * it was taken.  The pop makes it ours alone (see ws_deque_pop()).
	 */
	struct ws_task *task = ws_deque_pop(&worker->deque);

	if (likely(task == &inv->task))
		return true;
	/*
	 * A task the first call left behind (put back where it was; the slot
	 * it emptied is free, so this cannot fail), or nothing: ours was
	 * taken.  Either way, wait like ws_group_wait(): run what is ours,
	 * ours included, and help until the thief is done.
	 */
	if (task)
		ws_deque_push(&worker->deque, task, GFP_NOWAIT);
	ws_worker_wait(worker, &inv->group, false);
	return false;
}

/*
 * Arm @inv (its second call and argument set; @ctx: a ws_ctx_invoke()
 * frame) in the caller's isolation and push it onto @worker's deque;
 * false if the deque could not grow, and the caller then makes both calls
 * itself.
 */
static bool ws_invoke_push(struct ws_worker *worker, struct ws_invoke *inv,
			   bool ctx)
{
	ws_invoke_arm(worker, inv, ctx, worker->inv.isolation);
	if (unlikely(!ws_deque_push(&worker->deque, &inv->task, GFP_NOWAIT)))
		return false;
	/*
	 * As ws_push_own() but counted in no statistic: a call that is not
	 * stolen is no task.  No barrier before the wake-up, for the reason
	 * given there.
	 */
	trace_wsched_spawn(worker->pool, &inv->task);
	ws_wake_one(worker->pool);
	return true;
}

/*
 * A slot whose thread is not bound to a CPU (a join slot, a user pool's
 * worker) has no heartbeat that could interrupt it wherever it runs: it
 * publishes the second call at once, on its deque.
 */
static noinline void ws_invoke_eager(struct ws_worker *worker,
				     ws_invoke_fn left, void *left_arg,
				     ws_invoke_fn right, void *right_arg)
{
	/*
	 * Not zeroed by CONFIG_INIT_STACK_ALL_ZERO: every field a thief or
	 * the wait reads is set before it is published.
	 */
	struct ws_invoke inv __uninitialized;

	inv.fn = right;
	inv.arg = right_arg;
	if (unlikely(!ws_invoke_push(worker, &inv, false))) {
		/* The deque could not grow: one after the other, here. */
		left(left_arg);
		right(right_arg);
		return;
	}
	left(left_arg);
	if (ws_invoke_join(worker, &inv))
		right(right_arg);
}

/* ws_invoke_eager() for ws_ctx_invoke(), with the slot's context. */
static noinline void ws_ctx_eager(struct ws_worker *worker, ws_ctx_fn left,
				  void *left_arg, ws_ctx_fn right,
				  void *right_arg)
{
	/* Its depth stays 0: the slot keeps no frame private. */
	struct ws_ctx *ctx = __ws_ctx_at(&worker->inv, 0);
	/* Not zeroed, as in ws_invoke_eager(). */
	struct ws_invoke inv __uninitialized;

	inv.ctx_fn = right;
	inv.arg = right_arg;
	if (unlikely(!ws_invoke_push(worker, &inv, true))) {
		left(ctx, left_arg);
		right(ctx, right_arg);
		return;
	}
	left(ctx, left_arg);
	if (ws_invoke_join(worker, &inv))
		right(ctx, right_arg);
}

/**
 * __ws_invoke_enter - the rare entry work of the inline ws_parallel_invoke()
 * @slot: the caller's own invoke slot
 * @depth: the index of the frame the caller just made private
 *
 * Called by ws_parallel_invoke() (__ws_invoke_frame()) once the frame is
 * in place: at the outermost call (@depth 0) it starts the heartbeat and
 * hands the frame to an idle worker at once, if there is one; in a nested
 * call it answers a thief's request by promoting the oldest private frame
 * (this one if none is older).  Not for other callers.
 *
 * Context: the owner of @slot, in process context.
 */
void __ws_invoke_enter(struct ws_invoke_slot *slot, unsigned int depth)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	if (!depth)
		ws_heartbeat_enter(worker);
	else
		ws_invoke_offer(worker);
}
EXPORT_SYMBOL_GPL(__ws_invoke_enter);

/**
 * __ws_invoke_outer - ws_parallel_invoke() on its owner's slot, with no
 *	frame of the slot in use or every frame in use
 * @slot: the caller's own invoke slot
 * @left: the first function; the caller runs it
 * @left_arg: its argument
 * @right: the second function
 * @right_arg: its argument
 *
 * The outermost call keeps @right in the slot's first frame and starts
 * the heartbeat (__ws_invoke_enter()); a call nested %WS_INVOKE_FRAMES
 * deep calls both functions, one after the other: the frames below it
 * hold the larger parts of the work.  Out of line: once per outermost
 * call, and rare deeper down.  Called by ws_parallel_invoke()
 * (__ws_invoke_private()); not for other callers.
 *
 * Context: the owner of @slot, in process context; may sleep.
 */
void __ws_invoke_outer(struct ws_invoke_slot *slot, ws_invoke_fn left,
		       void *left_arg, ws_invoke_fn right, void *right_arg)
{
	if (slot->depth) {
		left(left_arg);
		right(right_arg);
		return;
	}
	__ws_invoke_frame(slot, 0, true, left, left_arg, right, right_arg);
}
EXPORT_SYMBOL_GPL(__ws_invoke_outer);

/*
 * The frame at index @depth of @slot was promoted (armed as @inv, the
 * slot's task storage at that index): take it back from the promotion
 * cell and return true for the caller to run its second call, or wait
 * until the thief that took it has run it and return false.
 */
static bool ws_invoke_take_back(struct ws_invoke_slot *slot,
				struct ws_invoke *inv, unsigned int depth)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	/*
	 * No longer counted as promoted.  Our heartbeat now sees no frame
	 * to promote at or above @depth (inv.depth is @depth already), and
	 * the cell holds ours or nothing: it is emptied before any other
	 * frame goes in, and every frame promoted after ours is younger.
	 */
	WRITE_ONCE(slot->published, depth);
	/*
	 * Fully ordered; pairs with the cmpxchg() of a thief in
	 * ws_take_promoted(): exactly one of us takes the frame.
	 */
	if (cmpxchg(&worker->inv_cell, &inv->task, NULL) == &inv->task)
		return true;
	/*
	 * A thief runs it, from @inv.  Keep index @depth out of reach of
	 * the calls of the tasks we run while we wait: they make their
	 * frames from @depth + 1 up.  Counted as promoted first, so that our
	 * heartbeat finds no private frame at any point (published, then
	 * depth up; depth, then published down: program order against an
	 * interrupt of this CPU).
	 */
	WRITE_ONCE(slot->published, depth + 1);
	barrier();
	WRITE_ONCE(slot->depth, depth + 1);
	ws_worker_wait(worker, &inv->group, false);
	WRITE_ONCE(slot->depth, depth);
	barrier();
	WRITE_ONCE(slot->published, depth);
	return false;
}

/**
 * __ws_invoke_reclaim - finish a ws_parallel_invoke() whose frame was promoted
 * @slot: the caller's own invoke slot
 * @depth: the index of the frame in @slot's frames, promoted while the
 *	first call ran (every younger frame has returned since)
 *
 * Called by ws_parallel_invoke() (__ws_invoke_frame()) after the first
 * call, when the frame is no longer private: takes it back from the
 * promotion cell and calls the second function, or waits, running tasks
 * of the pool, until the thief that took it has run it.  Not for other
 * callers.
 *
 * Context: the owner of @slot, in process context; may sleep.
 */
void __ws_invoke_reclaim(struct ws_invoke_slot *slot, unsigned int depth)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);
	struct ws_invoke *inv = &worker->inv_tasks[depth];

	/* Armed from the frame: the same function and argument. */
	if (ws_invoke_take_back(slot, inv, depth))
		inv->fn(inv->arg);
}
EXPORT_SYMBOL_GPL(__ws_invoke_reclaim);

/**
 * __ws_parallel_invoke - ws_parallel_invoke() for a caller without a
 *	latent slot on its CPU
 * @pool: the pool; NULL for ws_system_pool
 * @left: the first function; the caller runs it
 * @left_arg: its argument
 * @right: the second function
 * @right_arg: its argument
 *
 * The out-of-line part of ws_parallel_invoke(), with the same contract:
 * for a thread that joined the pool or joins it for the call (its frame
 * goes onto its deque at once), a worker of a user pool (the same), a
 * thread that finds no join slot (it spawns @right and sleeps after
 * @left), and a CPU slot's worker that runs off its CPU (CPU hotplug
 * pushed it away before stopping it), which keeps its frame private.
 * Call ws_parallel_invoke() instead.
 *
 * Context: process context, may sleep.
 */
void __ws_parallel_invoke(struct ws_pool *pool, ws_invoke_fn left,
			  void *left_arg, ws_invoke_fn right, void *right_arg)
{
	struct ws_worker *worker, *joined;

	pool = pool ? pool : ws_system_pool;
	worker = ws_current_worker(pool);
	if (worker && worker->latent) {
		__ws_invoke_private(&worker->inv, left, left_arg, right,
				    right_arg);
		return;
	}
	joined = worker ? NULL : ws_join(pool);
	if (joined)
		worker = joined;
	if (worker)
		ws_invoke_eager(worker, left, left_arg, right, right_arg);
	else
		ws_invoke_outside(pool, left, left_arg, right, right_arg);
	if (joined)
		ws_release_slot(joined);
}
EXPORT_SYMBOL_GPL(__ws_parallel_invoke);

/**
 * __ws_ctx_reclaim - finish a ws_ctx_invoke() whose frame was promoted
 * @slot: the caller's own invoke slot (its context)
 * @depth: the index of the frame in @slot's frames, promoted while the
 *	first call ran (every younger frame has returned since)
 *
 * __ws_invoke_reclaim() for ws_ctx_invoke() (__ws_ctx_frame()): takes the
 * frame back and calls the second function with the caller's context, or
 * waits until the thief that took it has run it.  Not for other callers.
 *
 * Context: the owner of @slot, in process context; may sleep.
 */
void __ws_ctx_reclaim(struct ws_invoke_slot *slot, unsigned int depth)
{
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);
	struct ws_invoke *inv = &worker->inv_tasks[depth];

	/* Armed from the frame: the same function and argument. */
	if (ws_invoke_take_back(slot, inv, depth))
		inv->ctx_fn(__ws_ctx_at(slot, depth), inv->arg);
}
EXPORT_SYMBOL_GPL(__ws_ctx_reclaim);

/**
 * __ws_ctx_invoke - ws_ctx_invoke() off its inline path
 * @ctx: the caller's context
 * @left: the first function; the caller runs it
 * @left_arg: its argument
 * @right: the second function
 * @right_arg: its argument
 *
 * For a context whose slot keeps no private frame at this depth: on a
 * CPU slot's worker, the outermost call (which keeps @right in the
 * slot's first frame and starts the heartbeat, as __ws_invoke_outer()
 * does) and calls nested %WS_INVOKE_FRAMES deep (both functions in
 * turn, with the caller's context); on any other slot (a thread that
 * joined, a user pool's worker, whose depth stays 0), every call: @right
 * goes onto the slot's deque at once.  Called by ws_ctx_invoke(); not
 * for other callers.
 *
 * Context: the thread @ctx was given to, in process context; may sleep.
 */
void __ws_ctx_invoke(struct ws_ctx *ctx, ws_ctx_fn left, void *left_arg,
		     ws_ctx_fn right, void *right_arg)
{
	struct ws_invoke_slot *slot = __ws_ctx_slot(ctx);
	struct ws_worker *worker = container_of(slot, struct ws_worker, inv);

	if (!worker->latent) {
		ws_ctx_eager(worker, left, left_arg, right, right_arg);
	} else if (__ws_ctx_depth(ctx)) {
		left(ctx, left_arg);
		right(ctx, right_arg);
	} else {
		__ws_ctx_frame(slot, 0, true, left, left_arg, right,
			       right_arg);
	}
}
EXPORT_SYMBOL_GPL(__ws_ctx_invoke);

/*
 * No join slot for a thread outside @pool: run @fn as a task of the pool,
 * with the context of the thread that takes it, and sleep until it has
 * finished.
 */
static noinline void ws_ctx_outside(struct ws_pool *pool, ws_ctx_fn fn,
				    void *arg)
{
	struct ws_invoke inv = { .ctx_fn = fn, .arg = arg };

	ws_group_init(&inv.group, pool);
	ws_task_init(&inv.task, ws_ctx_task_fn);
	ws_spawn(&inv.group, &inv.task);
	/* Cannot fail: nothing cancels or fails this private group. */
	ws_group_wait(&inv.group);
}

/**
 * ws_ctx_run - call a function with the caller's fork-join context
 * @pool: the pool; NULL for ws_system_pool
 * @fn: the function; it gets the context and @arg
 * @arg: its argument
 *
 * Finds the caller's slot of @pool once and calls @fn with it as the
 * context that ws_ctx_invoke() takes, so that the calls @fn makes (and
 * passes the context down to) need no lookup.  On a thread of @pool that
 * is the thread's own slot (nested calls share it, with each other and
 * with ws_parallel_invoke()); a thread that is not one of @pool's joins
 * it for the call, as with ws_pool_execute().  With every join slot
 * taken, or in a pool created with attributes, @fn runs as a task of
 * @pool on one of its threads, with that thread's context, and the
 * caller sleeps until it has finished.  Its writes are visible to the
 * caller when this returns.
 *
 * Context: process context, may sleep.
 */
void ws_ctx_run(struct ws_pool *pool, ws_ctx_fn fn, void *arg)
{
	struct ws_worker *worker;

	might_sleep();
	pool = pool ? pool : ws_system_pool;
	worker = ws_current_worker(pool);
	if (likely(worker)) {
		/* Only we write our depth. */
		fn(__ws_ctx_at(&worker->inv, worker->inv.depth), arg);
		return;
	}
	worker = ws_join(pool);
	if (!worker) {
		ws_ctx_outside(pool, fn, arg);
		return;
	}
	/* A join slot starts at depth 0. */
	fn(__ws_ctx_at(&worker->inv, 0), arg);
	ws_release_slot(worker);
}
EXPORT_SYMBOL_GPL(ws_ctx_run);

/**
 * ws_isolation_switch - ws_isolation_enter() with a new tag
 * @worker: the caller's own slot
 * @tag: the new tag, not the current one
 *
 * Records the current tag for the private frames made since the last
 * switch (from &ws_worker.inv_iso_from up to the current depth), which
 * then belong to an older region, and starts the new region at the
 * current depth.  Each step is in program order against our heartbeat
 * interrupt, which reads them in ws_invoke_promote(): the entries, then
 * the index that covers them, then the tag, so it finds every frame's
 * own tag between any two stores.
 */
void ws_isolation_switch(struct ws_worker *worker, unsigned long tag)
{
	unsigned int depth = min_t(unsigned int, worker->inv.depth,
				   WS_INVOKE_FRAMES);
	unsigned long outer = worker->inv.isolation;
	unsigned int i;

	for (i = worker->inv_iso_from; i < depth; i++)
		WRITE_ONCE(worker->inv_iso[i], outer);
	/* Lower only if no frame is left above @depth: then none is lost. */
	barrier();
	WRITE_ONCE(worker->inv_iso_from, depth);
	barrier();
	WRITE_ONCE(worker->inv.isolation, tag);
}
