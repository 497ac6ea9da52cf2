/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched internals shared by the module's files and the KUnit tests.
 */
#ifndef _WSCHED_INTERNAL_H
#define _WSCHED_INTERNAL_H

#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/spinlock.h>
#include <linux/wsched.h>

#include "ws_deque.h"
#include "ws_invoke.h"
#include "wsched_trace.h"

/* Initial slots of a join slot's deque (it grows like any other). */
#define WS_DEQUE_JOIN_SLOTS	32

/* Empty rounds a worker spins through before it goes to sleep. */
#define WS_SPIN_ROUNDS		64

/*
 * Ownership of the fields below, as in kernel/workqueue.c:
 *
 * I: set when the pool is created, read-only afterwards.
 * O: the thread that owns the slot (the one in @thread); nobody else
 *    reads or writes it.
 * L: pool->idle_lock.
 * H: written by the CPU hotplug callbacks (serialised by the hotplug
 *    lock); read locklessly with READ_ONCE() where marked.
 * A: atomic or lock-free; each access says what it pairs with.
 * U: the user pool's thread management lock (struct ws_uworkers, in
 *    uworker.c).
 */

/*
 * How near a victim is to a thief, as workqueue's affinity scopes see CPUs
 * (WQ_AFFN_SMT, _CACHE, _NUMA, _SYSTEM): a thief tries every victim of a
 * level before the next one.
 */
enum ws_topo_level {
	WS_TOPO_SMT,		/* an SMT sibling */
	WS_TOPO_LLC,		/* shares the last-level cache */
	WS_TOPO_NODE,		/* on the same NUMA node */
	WS_TOPO_NR_NEAR,	/* levels kept in struct ws_victims */
	WS_TOPO_SYSTEM = WS_TOPO_NR_NEAR,	/* anyone else */
};

/**
 * struct ws_victims - the near victims of a CPU slot, nearest first
 * @rcu: frees it a grace period after it was replaced
 * @end: @cpu[@end[l - 1] (0 for l = 0) .. @end[l] - 1] are the CPUs of
 *	level l (enum ws_topo_level)
 * @cpu: the CPU slots of the pool's online CPUs near this one, by level;
 *	points into the same allocation, after @near
 * @near: bitmap of the CPUs in @cpu (nr_cpu_ids bits), which the last
 *	level, every slot of the pool, skips
 *
 * Built when a pool is created and rebuilt by the CPU hotplug callbacks
 * (pool.c), never changed in place: readers see a whole old or a whole
 * new one.
 */
struct ws_victims {
	struct rcu_head rcu;
	unsigned int end[WS_TOPO_NR_NEAR];
	unsigned int *cpu;
	unsigned long near[];
};

struct ws_uworkers;
struct vhost_task;

/**
 * struct ws_invoke - the second call of a ws_parallel_invoke() or
 *	ws_ctx_invoke() call, as a task
 * @task: the task thieves run, once armed
 * @group: the group of one task the caller waits on if it was taken
 * @fn: the second function of a ws_parallel_invoke() call
 * @ctx_fn: the second function of a ws_ctx_invoke() call
 * @arg: its argument
 *
 * A promoted frame is armed in its slot's &ws_worker.inv_tasks entry of
 * the frame's index; a slot that publishes at once (not latent) keeps it
 * on the caller's stack.  Armed as a lazily spawned task of @group, which
 * the caller's slot owns (kmod/invoke.c).
 */
struct ws_invoke {
	struct ws_task task;
	struct ws_group group;
	union {
		ws_invoke_fn fn;
		ws_ctx_fn ctx_fn;
	};
	void *arg;
};

/**
 * struct ws_worker - a slot of a pool: a deque and the thread that owns it
 * @deque: tasks the owner spawned; the owner pops them, others steal (A)
 * @pool: the pool (I)
 * @thread: the owner.  A CPU slot's is its bound kthread (H); a join
 *	slot's is the thread that joined, set by it after claiming the slot
 *	and cleared before releasing it.  Compared with current locklessly
 *	(READ_ONCE()): only the owner ever stores its own task pointer.
 * @idle_node: link in the pool's idle list while asleep (L); CPU slots only
 * @mailbox: tasks spawned with this CPU as a hint (A); CPU slots only
 * @mailbox_lock: serialises takers of @mailbox (llist_del_first())
 * @cpu: the CPU of a CPU slot; nr_cpu_ids + index for a join slot (I)
 * @rand: state of the victim-choosing xorshift generator (O)
 * @victims: where a CPU slot's worker steals first, or NULL: join slots
 *	and the slots of user pools (not bound to CPUs) steal from anyone
 *	(H: replaced with rcu_assign_pointer() under the hotplug lock, read
 *	by the owner under rcu_read_lock())
 * @inv: what the inline ws_parallel_invoke() reads and writes: the
 *	frames, @inv.isolation (the tag of the isolated region the owner is
 *	in, or 0: O) and @inv.owner (see struct ws_invoke_slot, in
 *	<linux/wsched.h>); a CPU slot's is its CPU's entry of the pool's
 *	&ws_pool_head.inv_slot.  Aligned to %WS_INVOKE_SLOT_ALIGN, as
 *	ws_ctx_invoke() needs (its frames come first): the slot is allocated
 *	with a power-of-two size, which kmalloc() aligns to that size
 *	(ws_worker_alloc())
 * @inv_iso_from: the lowest index of @inv.frames whose frame has the
 *	current isolation, @inv.isolation; each older one has its own in
 *	@inv_iso (O, read by its heartbeat interrupt: see
 *	ws_isolation_enter())
 * @inv_iso: the isolation tag of each frame below @inv_iso_from (O, the
 *	same)
 * @inv_tasks: where a promoted frame of @inv.frames is armed as a task,
 *	at the same index; %WS_INVOKE_FRAMES entries, allocated for a slot
 *	that is @latent, else NULL (I)
 * @napping: the owner sleeps in wsched, on the idle list or napping in a
 *	wait, not in a task it runs (O: WRITE_ONCE(); READ_ONCE() by stuck
 *	waits counting the threads blocked in their tasks, a hint)
 * @compensator: the last compensation thread started in this join slot,
 *	with a task reference, until it is reaped (by whoever claims the
 *	slot to start the next one, or by ws_pool_destroy())
 * @latent: a CPU slot of a kernel pool, whose thread is bound to the
 *	CPU: its ws_parallel_invoke() frames stay private until promoted
 *	(by @hb_timer, a thief's request or a wait).  Other slots push
 *	every second call onto @deque at once (I)
 * @hb_dozing: @hb_timer stopped for want of thieves while the owner held
 *	latent tasks, with @inv.hb_armed left set so that the owner's spawns do
 *	not start it again; a kick does (ws_heartbeat_unwanted(); written
 *	by the heartbeat and the kick's callback, both interrupts of the
 *	owner's CPU, and ws_heartbeat_stop(); read locklessly by thieves:
 *	WRITE_ONCE() and READ_ONCE())
 * @inv_cell: the promoted frame's task that no thief took yet, or NULL
 *	(A: stored non-NULL only by the owner with interrupts off or by its
 *	heartbeat interrupt, with release; emptied with cmpxchg() by a
 *	thief or by the owner taking its frame back)
 * @hb_timer: the heartbeat: while the owner runs ws_parallel_invoke()
 *	calls or holds latent tasks, it interrupts the owner every
 *	ws_heartbeat_us and promotes the oldest private frame, else the
 *	oldest latent task, to @inv_cell (see ws_heartbeat()); it stops
 *	while nobody looks for work (dozes, if latent tasks are left)
 * @hb_kick: the call a thief sends to the owner's CPU to start a
 *	heartbeat that stopped or dozes for want of thieves
 *	(ws_heartbeat_kick())
 * @hb_kicking: @hb_kick is in flight (A: set with xchg() by the thief
 *	that sends it; cleared with release by its callback after its last
 *	access to the slot, or by the thief if it could not be sent)
 * @lat_cell: the latent task last promoted to @inv_cell, so that the
 *	owner can take it back if no thief did (as @inv.lat_bot)
 * @vtsk: the user worker thread of a CPU slot of a user pool, from its
 *	creation until it is stopped (U)
 * @ustate: whether a CPU slot of a user pool has a thread (U; its own
 *	thread also reads it locklessly: only it or U writers after it
 *	stopped change what it reads)
 * @uid: the user a kthread of a user pool is counted against (U)
 *
 * A pool has one slot per CPU number, owned by that CPU's worker kthread,
 * and %WS_MAX_JOINED join slots for threads that join it for a while:
 * external threads waiting for a group (ws_group_wait(),
 * ws_pool_execute()) and compensation threads (see ws_compensate()).
 */
struct ws_worker {
	struct ws_deque deque;
	struct ws_pool *pool;
	struct task_struct *thread;
	struct list_head idle_node;
	struct llist_head mailbox ____cacheline_aligned_in_smp;
	spinlock_t mailbox_lock;	/* guards taking from mailbox */
	unsigned int cpu;
	u32 rand;
	struct ws_victims __rcu *victims;
	bool napping;
	struct task_struct *compensator;
	bool latent;
	bool hb_dozing;
	struct ws_task *inv_cell;
	struct hrtimer hb_timer;
	call_single_data_t hb_kick;
	unsigned int hb_kicking;
	struct ws_task *lat_cell;
	struct ws_invoke_slot inv __aligned(WS_INVOKE_SLOT_ALIGN);
	unsigned int inv_iso_from;
	unsigned long inv_iso[WS_INVOKE_FRAMES];
	struct ws_invoke *inv_tasks;
	struct vhost_task *vtsk;
	u8 ustate;
	unsigned int uid;
};

/**
 * struct ws_pool - a work-stealing thread pool
 * @head: what the inline ws_parallel_invoke() reads (I); first, so that
 *	<linux/wsched.h> reaches it from a &struct ws_pool pointer
 * @name: the name, shown in debugfs and in worker thread names (I)
 * @workers: the slots: @nr_cpus CPU slots indexed by CPU number, then
 *	%WS_MAX_JOINED join slots (I)
 * @nr_cpus: number of CPU slots (nr_cpu_ids) (I)
 * @nr_slots: number of entries of @workers (I)
 * @joined: bitmap of the join slots in use (A: claimed with
 *	test_and_set_bit_lock(), released with clear_bit_unlock())
 * @inject: tasks submitted from outside the pool's threads (A)
 * @fifo_lock: guards the FIFO queue (raw: ws_enqueue() is callable from
 *	hard interrupts, also on PREEMPT_RT; a few stores under it)
 * @fifo_head: oldest task queued by ws_enqueue(), or NULL (fifo_lock;
 *	read locklessly with READ_ONCE())
 * @fifo_tail: where the next enqueued task is linked (fifo_lock)
 * @nr_idle: number of workers on @idle_list (L for writes; read
 *	locklessly)
 * @idle_lock: protects @idle_list and the wake-up of its workers (raw:
 *	wakers run in any context; held for list updates and wake-ups)
 * @idle_list: workers that are asleep or about to sleep (L)
 * @nr_stuck: threads napping in a wait that may not run what is queued (A)
 * @nr_threads: workers with a running thread (H, or U in a user pool;
 *	read with READ_ONCE())
 * @cpumask: CPUs the pool may have workers on (I)
 * @max_workers: most worker threads, 0 for no limit (I)
 * @nice: nice level of the worker threads (I)
 * @pinned: the pool holds a reference on the module (I)
 * @joinable: created without attributes: threads that wait join it (I)
 * @user: runs the work of one process, under its resource controls; its
 *	workers are not bound to CPUs and not managed by CPU hotplug, and
 *	come and go with its work (I)
 * @uw: a user pool's thread management (uworker.c) (I)
 * @dying: ws_pool_destroy() is stopping the workers (H)
 * @topo_ready: the CPU slots' victims were built; from then on the CPU
 *	hotplug callbacks keep them up to date (H)
 * @list: link in the list of all pools (ws_pools_lock)
 * @cpuhp_node: instance of the pool in the CPU hotplug state
 * @debugfs_dir: the pool's debugfs directory (I)
 */
struct ws_pool {
	struct ws_pool_head head;
	char name[WS_NAME_LEN];
	struct ws_worker **workers;
	unsigned int nr_cpus;
	unsigned int nr_slots;
	unsigned long joined;
	struct llist_head inject ____cacheline_aligned_in_smp;
	raw_spinlock_t fifo_lock ____cacheline_aligned_in_smp;	/* guards fifo */
	struct llist_node *fifo_head;
	struct llist_node **fifo_tail;
	atomic_t nr_idle ____cacheline_aligned_in_smp;
	raw_spinlock_t idle_lock;	/* guards idle_list */
	struct list_head idle_list;
	atomic_t nr_stuck;
	unsigned int nr_threads;
	cpumask_var_t cpumask;
	unsigned int max_workers;
	int nice;
	bool pinned;
	bool joinable;
	bool user;
	bool dying;
	bool topo_ready;
	struct ws_uworkers *uw;
	struct list_head list;
	struct hlist_node cpuhp_node;
	struct dentry *debugfs_dir;
};

#define ws_stat_inc(pool, field) this_cpu_inc((*(pool)->head.stats).field)

extern bool ws_frozen;

int ws_worker_thread(void *arg);
void ws_worker_run(struct ws_worker *worker, bool once);
struct ws_worker *ws_current_worker_slow(struct ws_pool *pool);

/*
 * The slot of @pool that the current thread owns, or NULL.  Only a thread
 * running in process context can own one: an interrupt on a worker's CPU
 * must never touch the worker's deque.  Inline: a call costs a
 * translation-block lookup under QEMU TCG.
 */
static __always_inline struct ws_worker *ws_current_worker(struct ws_pool *pool)
{
	struct ws_worker *worker;

	if (!in_task())
		return NULL;
	/*
	 * This CPU's slot, pool->workers[raw_smp_processor_id()], in one
	 * load rather than three (see struct ws_pool_head).
	 */
	worker = container_of(this_cpu_read(*pool->head.inv_slot),
			      struct ws_worker, inv);
	/* Only the owner stores its own task pointer here. */
	if (likely(READ_ONCE(worker->thread) == current))
		return worker;
	return ws_current_worker_slow(pool);
}

/**
 * ws_isolation_enter - run in isolation @tag on @worker from here on
 * @worker: the caller's own slot
 * @tag: the isolated region's tag (0: none)
 *
 * The private frames of @worker keep the isolation they were made in
 * without a store per call: the frames at or above
 * &ws_worker.inv_iso_from have the current one, and a change records the
 * old one for the frames below the depth it happens at
 * (ws_isolation_switch(), out of line; only when the tag changes, which
 * a task of the same region or an unisolated one does not).  Pair with
 * ws_isolation_leave(), with the old tag and what this returned, once the
 * frames made since are gone again.
 *
 * Return: what ws_isolation_leave() restores.
 */
static __always_inline unsigned int
ws_isolation_enter(struct ws_worker *worker, unsigned long tag)
{
	unsigned int from = worker->inv_iso_from;

	if (unlikely(tag != worker->inv.isolation))
		ws_isolation_switch(worker, tag);
	return from;
}

/**
 * ws_isolation_leave - return to the isolation ws_isolation_enter() left
 * @worker: the caller's own slot
 * @outer: the tag before ws_isolation_enter()
 * @from: what it returned
 *
 * The tag first, then the index: a heartbeat in between finds the frames
 * from @from up to the current depth recorded with @outer, which is what
 * they have.  Both read by our heartbeat interrupt (ws_invoke_promote()),
 * on this CPU: program order, WRITE_ONCE() for KCSAN.
 */
static __always_inline void ws_isolation_leave(struct ws_worker *worker,
					       unsigned long outer,
					       unsigned int from)
{
	WRITE_ONCE(worker->inv.isolation, outer);
	barrier();
	WRITE_ONCE(worker->inv_iso_from, from);
}

void __ws_wake_one(struct ws_pool *pool, int wake_flags);

/*
 * Wake one sleeping worker, if any.  Callers that must not lose the
 * wake-up (injection) issue a full barrier between publishing the work and
 * calling this; see ws_worker_sleep() for the pairing.  Inline: every
 * spawn calls it, and there is rarely anyone to wake.
 */
static __always_inline void ws_wake_one(struct ws_pool *pool)
{
	/* Pairs with atomic_inc() in ws_worker_sleep() (see its barrier). */
	if (atomic_read(&pool->nr_idle))
		__ws_wake_one(pool, 0);
}

int ws_worker_wait(struct ws_worker *worker, struct ws_group *group,
		   bool killable);
struct ws_worker *ws_join(struct ws_pool *pool);
void ws_release_slot(struct ws_worker *slot);

/*
 * Workers of user pools (uworker.c).  With WS_USER_WORKERS (compat.h) they
 * are threads of the submitting process, found through worker_private,
 * which only io-wq (PF_IO_WORKER) uses among PF_USER_WORKER threads.
 */
#ifndef WS_USER_WORKERS
#define WS_USER_WORKERS 0
#endif

static __always_inline struct ws_worker *
ws_user_worker_of(struct task_struct *task)
{
#if WS_USER_WORKERS
	if ((task->flags & (PF_USER_WORKER | PF_IO_WORKER)) == PF_USER_WORKER)
		return task->worker_private;
#endif
	return NULL;
}

/* Whether @worker's thread (the caller) is told to stop. */
static __always_inline bool ws_worker_should_stop(struct ws_worker *worker)
{
	/* A user worker is stopped by its caller, vhost_task_fn(). */
	return !ws_user_worker_of(current) && kthread_should_stop();
}

extern unsigned int ws_worker_idle_ms;
extern atomic_t ws_nr_user_workers;
unsigned long ws_user_idle_jiffies(void);
bool ws_user_retire(struct ws_worker *worker);
unsigned int ws_user_grow(struct ws_pool *pool, unsigned int want);
void ws_user_refresh(struct ws_pool *pool);
int ws_user_init(struct ws_pool *pool);
void ws_user_stop_all(struct ws_pool *pool);
void ws_wake_locked(struct ws_pool *pool, struct ws_worker *worker,
		    int wake_flags);
void ws_freeze_pools(bool freeze);
void ws_reap_compensator(struct ws_worker *slot);
bool ws_pool_has_work(struct ws_pool *pool);
void ws_pool_cpu_stats(struct ws_pool *pool, unsigned int cpu,
		       struct ws_pool_stats *stats);
void ws_inject(struct ws_pool *pool, struct ws_task *task);
void ws_task_claim(struct ws_task *task);
bool ws_in_pool(struct ws_pool *pool);
struct module *ws_owner_module(void);
bool ws_should_split(struct ws_pool *pool);

/*
 * Shared by dispatch.c (running tasks), group.c (groups, dependencies,
 * spawning, waits) and join.c (join slots, compensation).
 */

/* How a wait sleeps: out of the load average, and killable if asked. */
#define WS_NAP_STATE		TASK_IDLE
#define WS_NAP_KILLABLE		(TASK_IDLE | TASK_WAKEKILL)

struct ws_dep;

struct ws_task *ws_release_deps(struct ws_worker *worker,
				struct ws_task *task);
void ws_nap_on_group(struct ws_group *group, bool forever, unsigned int state);
void ws_nap_stuck(struct ws_worker *worker, struct ws_group *group,
		  unsigned int state);
int ws_compensator_thread(void *arg);

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

/*
 * Latent spawns (Documentation/design.rst, "Latent spawns").  The owner of
 * a CPU slot keeps the ready tasks it spawns into its own groups in
 * @inv.lat, with plain stores.  Its heartbeat, which interrupts it on its own
 * CPU, may promote the oldest one (@inv.lat[@inv.lat_bot]) at any instruction
 * boundary of the owner: so the owner orders its stores for an interrupt
 * of its own CPU only, program order as the compiler emits it (barrier(),
 * WRITE_ONCE()), and needs no fence, no atomic operation.  While the owner
 * is off every CPU (blocked, or preempted on its own CPU), the heartbeat
 * promotes from wherever it fires, under the owner's pi_lock, which holds
 * off the wake-up (ws_latent_promote_parked()); the scheduler's ordering
 * of a switch and a wake-up stands in for the fence.
 */
void ws_latent_slow(struct ws_worker *worker);
bool ws_latent_promote(struct ws_worker *worker);
bool ws_latent_promote_parked(struct ws_worker *worker, unsigned int us);
void ws_latent_stop(struct ws_worker *worker);
void ws_latent_flush(struct ws_worker *worker);
struct ws_task *__ws_latent_take_cell(struct ws_worker *worker);

/*
 * Whether a heartbeat stops rather than beats on: it is turned off (@us
 * is 0), or @worker's owner, which the caller interrupted or holds off
 * every CPU, has left its calls: no invoke frame and no latent task.  Its
 * next outermost call or latent spawn arms it again.
 */
static inline bool ws_heartbeat_may_stop(const struct ws_worker *worker,
					 unsigned int us)
{
	return !us || (!READ_ONCE(worker->inv.depth) &&
		       READ_ONCE(worker->inv.lat_bot) >= READ_ONCE(worker->inv.lat_top));
}

/*
 * Keep @task, armed as a lazily spawned task of a group we own, latent.
 * Return false if @inv.lat is full (the caller queues it as before).
 */
static __always_inline bool ws_latent_push(struct ws_worker *worker,
					   struct ws_task *task)
{
	/* Ours: only we store it. */
	if (unlikely(worker->inv.lat_top >= WS_LATENT_SLOTS))
		return false;
	__ws_latent_push(&worker->inv, task);
	trace_wsched_spawn(worker->pool, task);
	if (unlikely(__ws_latent_wants_slow(&worker->inv)))
		ws_latent_slow(worker);
	return true;
}

/* Take our youngest latent task, or NULL (see __ws_latent_pop()). */
static __always_inline struct ws_task *ws_latent_pop(struct ws_worker *worker)
{
	struct ws_task *task = __ws_latent_pop(&worker->inv);

	if (task)
		ws_stat_inc(worker->pool, popped);
	return task;
}

/* Take back the latent task we promoted to our cell, if no thief did. */
static __always_inline struct ws_task *
ws_latent_take_cell(struct ws_worker *worker)
{
	/* Ours and our heartbeat's: a hint, rechecked with interrupts off. */
	if (likely(!READ_ONCE(worker->lat_cell)))
		return NULL;
	return __ws_latent_take_cell(worker);
}

/* Queue a ready task: our own deque on a worker, else the injection queue. */
static inline void ws_queue_ready(struct ws_pool *pool, struct ws_worker *worker,
				  struct ws_task *task)
{
	if (likely(worker) && ws_push_own(pool, worker, task))
		return;
	ws_inject(pool, task);
}

/*
 * Drop @task's spawn reference.  Return true if it is ready to run, false
 * if predecessors still hold it back (the last one to finish queues it).
 *
 * A task that runs always has deps == 1, whichever way it became ready:
 * ws_task_precede() on a running task (one that then returns itself to
 * run again after the new predecessor) counts from 1 like on a fresh one.
 */
static inline bool ws_task_release_spawn_ref(struct ws_pool *pool,
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

/*
 * ws_group_init() + ws_group_set_done() without looking for the current
 * thread's slot (the owner of a group with a done callback is NULL).
 */
static inline void ws_group_init_done(struct ws_group *group,
				      struct ws_pool *pool,
				      void (*done)(struct ws_group *group))
{
	atomic_set(&group->pending, 0);
	group->error = 0;
	group->flags = 0;
	group->pool = pool;
	group->done = done;
	group->owner = NULL;
	group->lazy = 0;
	atomic_set(&group->stolen, 0);
}

/* For the /dev/wsched graph engine: its submitter runs its own graphs. */
struct ws_worker *ws_pool_current(struct ws_pool *pool);
void ws_spawn_local(struct ws_worker *worker, struct ws_group *group,
		    struct ws_task *task);
void ws_wake_idle(struct ws_pool *pool);
bool ws_help_until(struct ws_worker *worker, bool (*cond)(void *arg),
		   void *arg);
bool ws_help_drain(struct ws_worker *worker, bool (*cond)(void *arg),
		   void *arg);
struct ws_pool *ws_pool_create_user(void);

/* ws_job_run() in a user pool made for it that gets no thread (tests). */
int ws_job_run_threadless(const struct ws_job *job);
void ws_job_exit(void);

/*
 * Queue a ready task that its group already counts (the caller added it
 * to @group->pending when it set the group up): onto the caller's own
 * deque, without waking anybody, or, when that cannot grow, to the
 * injection queue.  Inline: the graph engine queues every ready node of
 * a graph this way, and a call costs a translation block lookup under
 * QEMU TCG, where the benchmarks run.
 */
static __always_inline void ws_push_counted(struct ws_worker *worker,
					    struct ws_group *group,
					    struct ws_task *task)
{
	task->group = group;
	task->flags = 0;
	task->isolation = worker->inv.isolation;
	if (likely(ws_deque_push(&worker->deque, task, GFP_NOWAIT))) {
		ws_stat_inc(worker->pool, spawned);
		return;
	}
	ws_inject(worker->pool, task);
}

int ws_pool_adopt_thread(struct ws_pool *pool, struct task_struct *thread,
			 struct task_struct *model);

int ws_hotplug_init(void);
void ws_hotplug_exit(void);
int ws_system_pool_init(void);
void ws_system_pool_exit(void);
int ws_pm_init(void);
void ws_pm_exit(void);

void ws_debugfs_init(void);
void ws_debugfs_exit(void);
void ws_debugfs_add_pool(struct ws_pool *pool);
void ws_debugfs_remove_pool(struct ws_pool *pool);

#endif /* _WSCHED_INTERNAL_H */
