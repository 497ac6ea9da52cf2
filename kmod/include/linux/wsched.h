/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched: work-stealing thread pools for kernel callers.
 *
 * A pool has one worker kthread per online CPU, each owning a lock-free
 * Chase-Lev deque.  A worker takes its next task by three rules, in order:
 * bypass (run the task the previous task returned), pop the youngest task
 * of its own deque, steal the oldest task of a random victim.
 *
 * Tasks live in caller-owned memory, like work_struct, so fork-join needs
 * no allocation.  See Documentation/design.rst for the protocol and
 * Documentation/kernel-api.rst for how to use it.
 */
#ifndef _LINUX_WSCHED_H
#define _LINUX_WSCHED_H

#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/gfp.h>
#include <linux/kernel.h>
#include <linux/llist.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/smp.h>
#include <linux/tracepoint-defs.h>
#include <linux/types.h>

struct ws_pool;
struct ws_group;
struct ws_task;
struct ws_dep;
struct ws_worker;
struct ws_invoke_slot;

/*
 * ws_task_fn - body of a task (kernel-doc cannot parse this typedef).
 * @task: the task being run; embed it in a larger structure and use
 *	container_of() to reach the task's data.
 *
 * Return: the next task to run on this worker at once (bypass), or NULL.
 * A returned task must have been set up with ws_task_init() and not
 * spawned; it joins the group of @task and counts as spawned into it.  If
 * it still waits for predecessors it is not bypassed: the last of them
 * queues it.  wsched touches @task until the task's completion is counted
 * in its group, so its memory must stay valid until ws_group_wait() on
 * that group returns, as a work_struct's must until flush_work().
 */
typedef struct ws_task *(*ws_task_fn)(struct ws_task *task);

/**
 * typedef ws_cancel_fn - runs instead of a task's function when the task's
 * group was cancelled before the task started
 * @task: the task
 *
 * Lets the task's owner release what the task would have consumed.
 */
typedef void (*ws_cancel_fn)(struct ws_task *task);

/**
 * struct ws_task - a unit of work, embedded in caller-owned memory
 * @fn: the function to run
 * @cancel: run instead of @fn if the group is cancelled first; may be NULL
 * @group: the group the task belongs to once spawned
 * @node: link in a pool's injection or FIFO queue, or a worker's mailbox
 * @successors: edges to the tasks that wait for this one
 * @deps: unfinished predecessors, plus one until the task is spawned
 * @isolation: tag of the isolated region the task was spawned in, or 0
 * @flags: wsched's private state bits
 *
 * Initialise with ws_task_init().  The fields are private to wsched.
 */
struct ws_task {
	ws_task_fn fn;
	ws_cancel_fn cancel;
	struct ws_group *group;
	struct llist_node node;
	struct ws_dep *successors;
	atomic_t deps;
	unsigned int flags;
	unsigned long isolation;
};

/**
 * struct ws_group - a set of tasks that can be waited for together
 * @pending: tasks spawned into the group that have not yet finished
 * @error: the first error a task of the group reported, or 0
 * @flags: %WS_GROUP_CANCEL_ON_ERROR and wsched's private state bits
 * @pool: the pool the group's tasks run in
 * @done: called when the last pending task finishes, or NULL
 * @owner: the slot of the pool thread that set the group up, or NULL;
 *	that thread's spawns are lazy: counted in @lazy, not in @pending,
 *	unless they are stolen
 * @lazy: tasks @owner spawned lazily and has not run itself; written by
 *	@owner only
 * @stolen: lazily spawned tasks that other threads took (and counted in
 *	@pending)
 *
 * Initialise with ws_group_init().  The fields are private to wsched.
 * A group may live on the stack of the thread that waits for it.
 */
struct ws_group {
	atomic_t pending;
	int error;
	unsigned long flags;
	struct ws_pool *pool;
	void (*done)(struct ws_group *group);
	struct ws_invoke_slot *owner;
	unsigned int lazy;
	atomic_t stolen;
};

/* A task failure (ws_task_fail()) cancels the rest of the group. */
#define WS_GROUP_CANCEL_ON_ERROR	0x1UL

/**
 * struct ws_pool_attrs - how a pool is set up
 * @cpumask: CPUs the pool may run on; NULL for every housekeeping CPU
 *	(CPUs that isolcpus= takes out of the scheduler domains are left
 *	alone; nohz_full= alone does not)
 * @max_workers: most workers (so most tasks run at once); 0 for no limit
 * @nice: nice level of the worker threads
 *
 * A pool created with any attribute set runs its tasks on its own threads
 * only: a thread that waits for one of its groups sleeps instead of
 * joining it (see ws_group_wait()), since it would bring its own CPU and
 * nice level and add to the number of tasks running at once.
 */
struct ws_pool_attrs {
	const struct cpumask *cpumask;
	unsigned int max_workers;
	int nice;
};

/**
 * struct ws_pool_stats - event counters of a pool, summed over all CPUs
 * @spawned: tasks spawned from a worker onto its own deque
 * @executed: task functions run
 * @bypassed: tasks run through bypass, without deque traffic
 * @popped: tasks taken from the bottom of a worker's own deque
 * @stolen: tasks taken from the top of another worker's deque
 * @steal_failed: steal rounds (every victim tried once) that found nothing
 * @injected: tasks submitted from outside the pool's workers
 * @sleeps: times a worker went to sleep for lack of work
 * @wakeups: times a sleeping worker was woken for new work
 * @enqueued: tasks submitted to the FIFO queue with ws_enqueue()
 * @mailed: tasks submitted with a CPU hint by ws_spawn_on()
 * @cancelled: tasks whose group was cancelled before they started
 * @deferred: tasks spawned with unfinished predecessors
 * @released: tasks made ready by their last predecessor
 * @joined: times a thread that is not a worker joined the pool to wait
 *	(ws_group_wait(), ws_pool_execute(), ws_isolate())
 * @compensated: compensation threads started because every thread of the
 *	pool was in a wait that could not run what was queued
 * @stolen_local: of @stolen, tasks a CPU's worker took from an SMT sibling
 *	or a CPU sharing its last-level cache
 * @stolen_remote: of @stolen, tasks a CPU's worker took from another CPU's
 *	deque further away (same NUMA node but another LLC, or another
 *	node).  Steals by threads not bound to a CPU (threads that joined
 *	the pool, compensation threads, the workers of a process's pool)
 *	and steals from threads that joined count in neither.
 */
struct ws_pool_stats {
	u64 spawned;
	u64 executed;
	u64 bypassed;
	u64 popped;
	u64 stolen;
	u64 steal_failed;
	u64 injected;
	u64 sleeps;
	u64 wakeups;
	u64 enqueued;
	u64 mailed;
	u64 cancelled;
	u64 deferred;
	u64 released;
	u64 joined;
	u64 compensated;
	u64 stolen_local;
	u64 stolen_remote;
};

/**
 * WS_NAME_LEN - size of a pool name buffer, terminating NUL included
 */
#define WS_NAME_LEN 24

/**
 * WS_MAX_STEAL_DEPTH - how many nested waits may steal on one worker
 *
 * A worker waiting for a group runs other tasks meanwhile, on its own
 * stack.  Tasks from its own deque nest no deeper than the program's own
 * recursion; stolen and injected tasks are unrelated work and could nest
 * without bound, so a wait steals only while fewer than this many waits
 * are nested on the worker and more than half of its stack is free.
 */
#define WS_MAX_STEAL_DEPTH 8

/**
 * WS_MAX_WAIT_DEPTH - how many nested waits may run tasks on one worker
 *
 * A wait nested this deep, or with less than a quarter of the kernel stack
 * left, runs no task at all: it naps until its group completes while
 * other threads steal the tasks it queued.  If every thread of the pool is
 * in such a wait (or in an isolated wait) while tasks are queued, the pool
 * starts a compensation thread, which runs them from a fresh stack and
 * leaves once they are done; see Documentation/design.rst.
 */
#define WS_MAX_WAIT_DEPTH 32

/**
 * WS_MAX_JOINED - how many threads may join a pool at once
 *
 * Threads that are not workers of a pool join it while they wait for one
 * of its groups (ws_group_wait()) or run a function in it
 * (ws_pool_execute(), ws_isolate()), each in a join slot with a deque of
 * its own; compensation threads use the same slots.  With every slot
 * taken, an external waiter sleeps instead of running tasks.
 */
#define WS_MAX_JOINED 16

extern struct ws_pool *ws_system_pool;
/* Private: the module parameter heartbeat_us, for the inline ws_spawn(). */
extern unsigned int ws_heartbeat_us;

struct ws_pool *ws_pool_create(const char *name);
struct ws_pool *ws_pool_create_attrs(const char *name,
				     const struct ws_pool_attrs *attrs);
void ws_pool_destroy(struct ws_pool *pool);
void ws_pool_read_stats(struct ws_pool *pool, struct ws_pool_stats *stats);
unsigned int ws_pool_nr_workers(struct ws_pool *pool);

/* Inline, defined below with the state they need. */
static inline void ws_group_init_flags(struct ws_group *group,
				       struct ws_pool *pool,
				       unsigned long flags);
static inline void ws_spawn(struct ws_group *group, struct ws_task *task);
static inline int ws_group_wait(struct ws_group *group);
void ws_spawn_on(struct ws_group *group, struct ws_task *task, int cpu);
void ws_enqueue(struct ws_group *group, struct ws_task *task);
int ws_group_wait_killable(struct ws_group *group);
void ws_group_cancel(struct ws_group *group);
bool ws_group_cancelled(struct ws_group *group);
void ws_task_fail(struct ws_task *task, int error);
int ws_task_precede(struct ws_task *pred, struct ws_task *succ, gfp_t gfp);
int ws_isolate(struct ws_pool *pool, int (*fn)(void *arg), void *arg);
int ws_pool_execute(struct ws_pool *pool, int (*fn)(void *arg), void *arg);

/**
 * typedef ws_invoke_fn - a function for ws_parallel_invoke()
 * @arg: the caller's argument
 */
typedef void (*ws_invoke_fn)(void *arg);

struct ws_ctx;

/**
 * typedef ws_ctx_fn - a function for ws_ctx_run() and ws_ctx_invoke()
 * @ctx: the context of the thread that runs it, for its own calls of
 *	ws_ctx_invoke() (and of functions it calls directly)
 * @arg: the caller's argument
 */
typedef void (*ws_ctx_fn)(struct ws_ctx *ctx, void *arg);

/**
 * typedef ws_range_fn - body of a parallel loop over [@begin, @end)
 * @begin: first index of the chunk
 * @end: one past its last index
 * @arg: the caller's argument
 */
typedef void (*ws_range_fn)(unsigned long begin, unsigned long end,
			    void *arg);

/**
 * struct ws_reduce_ops - how ws_parallel_reduce() computes and combines
 * @body: the value of the chunk [begin, end)
 * @combine: the value of two adjacent chunks, @left before @right; the
 *	right chunk is [@right_begin, @right_end).  Called in index order, so
 *	it need not be commutative (crc32c is not), only associative.
 * @identity: the value of an empty range
 */
struct ws_reduce_ops {
	u64 (*body)(unsigned long begin, unsigned long end, void *arg);
	u64 (*combine)(u64 left, u64 right, unsigned long right_begin,
		       unsigned long right_end, void *arg);
	u64 identity;
};

int ws_parallel_for(struct ws_pool *pool, unsigned long begin,
		    unsigned long end, unsigned long grain, ws_range_fn body,
		    void *arg);
int ws_parallel_reduce(struct ws_pool *pool, unsigned long begin,
		       unsigned long end, unsigned long grain,
		       const struct ws_reduce_ops *ops, void *arg, u64 *result);

/**
 * struct ws_job - a multithreaded job for ws_job_run()
 * @thread_fn: called on each chunk [start, end) of the job, concurrently
 *	on up to @max_threads threads; it may sleep
 * @fn_arg: passed to @thread_fn
 * @start: first index of the job (units are the caller's)
 * @size: number of indices; at least 1
 * @align: a power of two: every chunk boundary other than the job's
 *	start and end is a multiple of it
 * @min_chunk: fewest indices worth a chunk, at most @size; 0 means 1
 * @max_threads: most threads running chunks at once, the caller's
 *	included; at least 1
 * @numa_aware: split the chunks by NUMA node and start each node's
 *	part on a thread of that node
 * @pool: the pool whose threads help; NULL for the caller's own
 *	(see ws_job_run())
 *
 * The fields up to @numa_aware are those of padata's struct padata_mt_job
 * (see Documentation/kernel-api.rst for the differences).
 */
struct ws_job {
	ws_range_fn thread_fn;
	void *fn_arg;
	unsigned long start;
	unsigned long size;
	unsigned long align;
	unsigned long min_chunk;
	int max_threads;
	bool numa_aware;
	struct ws_pool *pool;
};

int ws_job_run(const struct ws_job *job);

/**
 * ws_task_init - prepare a task before it is spawned or returned
 * @task: the task
 * @fn: the function the task runs
 *
 * A task may be initialised again once it has finished.
 */
static inline void ws_task_init(struct ws_task *task, ws_task_fn fn)
{
	task->fn = fn;
	task->cancel = NULL;
	task->group = NULL;
	task->successors = NULL;
	atomic_set(&task->deps, 1);
	task->flags = 0;
	task->isolation = 0;
}

/**
 * ws_task_set_cancel - give a task a hook to run if it is cancelled
 * @task: the task, initialised and not yet spawned
 * @cancel: runs instead of the task's function if the task's group is
 *	cancelled before the task starts
 */
static inline void ws_task_set_cancel(struct ws_task *task,
				      ws_cancel_fn cancel)
{
	task->cancel = cancel;
}

/**
 * ws_group_init - prepare an empty task group
 * @group: the group
 * @pool: the pool its tasks run in; NULL for ws_system_pool
 */
static inline void ws_group_init(struct ws_group *group, struct ws_pool *pool)
{
	ws_group_init_flags(group, pool, 0);
}

/**
 * ws_group_set_done - have a group call back when it empties
 * @group: the group, initialised, with no task spawned yet
 * @done: called once the last pending task of @group has finished, on the
 *	thread that finished it; it must not sleep, and wsched no longer
 *	touches @group once it is called, so it may hand @group to be freed.
 *
 * For groups nobody waits for.  The count of pending tasks may fall to
 * zero while tasks are still being spawned; to get one call for a whole
 * batch, spawn it so that nothing can finish before the last spawn (for
 * example, behind a gate task spawned last that precedes the others).
 */
static inline void ws_group_set_done(struct ws_group *group,
				     void (*done)(struct ws_group *group))
{
	group->done = done;
	/* Every task must count in @pending for the callback to fire. */
	group->owner = NULL;
}

/**
 * ws_group_done - whether every task spawned into a group has finished
 * @group: the group
 *
 * Return: true when the group has no pending task.  The load has acquire
 * semantics, so the results the finished tasks wrote are visible.
 */
static inline bool ws_group_done(struct ws_group *group)
{
	/*
	 * Pairs with the release by a thief that took a lazily spawned task
	 * (ws_task_claim()): it counted the task in @pending first.
	 */
	unsigned int stolen = atomic_read_acquire(&group->stolen);

	/*
	 * Pairs with the release of @lazy by the owner once it has run a
	 * lazily spawned task: the task's writes are visible.  Every lazy
	 * task not run by the owner was stolen and is counted in @pending.
	 */
	if (smp_load_acquire(&group->lazy) != stolen)
		return false;
	/* Pairs with the fully ordered decrement on task completion. */
	return atomic_read_acquire(&group->pending) == 0;
}

/*
 * ws_parallel_invoke() is inline, so that a call with constant functions
 * compiles to direct calls; what follows up to it is the state it needs,
 * private to wsched.  Documentation/design.rst ("Parallel invoke") has the
 * protocol.
 */

/**
 * WS_INVOKE_FRAMES - nested ws_parallel_invoke() calls a slot keeps private
 *
 * Deeper calls call both functions one after the other: the frames below
 * them hold the larger parts of the work.
 */
#define WS_INVOKE_FRAMES	32

/**
 * struct ws_invoke_frame - the second call of a nested ws_parallel_invoke()
 *	or ws_ctx_invoke() call, while it is private
 * @fn: the second function of a ws_parallel_invoke() call
 * @ctx_fn: the second function of a ws_ctx_invoke() call
 * @arg: its argument
 *
 * An entry of a slot's frame array, indexed by nesting depth: the caller
 * keeps nothing of the call on its own stack.  Private to wsched.
 */
struct ws_invoke_frame {
	union {
		ws_invoke_fn fn;
		ws_ctx_fn ctx_fn;
	};
	void *arg;
};

/*
 * WS_INVOKE_SLOT_ALIGN - the alignment of a slot: a power of two above
 * its frames' bytes, so that the address of a frame or of the end of the
 * frames (a context is one, see __ws_ctx_slot()) is the slot's address
 * plus 16 times an index from 0 to WS_INVOKE_FRAMES, and gives both
 * with no load (__ws_frame_slot(), __ws_frame_index()).
 */
#define WS_INVOKE_SLOT_ALIGN	(2 * WS_INVOKE_FRAMES * \
				 sizeof(struct ws_invoke_frame))

/*
 * WS_LATENT_SLOTS - tasks a CPU slot keeps latent (ws_spawn() by a
 * group's owner): fib keeps about one per level of its recursion.
 */
#define WS_LATENT_SLOTS		64

/* Private task state: spawned lazily, not counted in group->pending. */
#define WS_TASK_LAZY		0x1U

/* Private group state, above the caller's flags. */
#define WS_GROUP_CANCELLED_BIT	8
/* A thread other than the owner waits for the group: no latent spawns. */
#define WS_GROUP_SHARED_BIT	9

/* Marks a finished task's successor list: no edge may be added any more. */
#define WS_DEPS_CLOSED		((struct ws_dep *)1UL)

/*
 * Every this many tasks a worker takes, at most, it serves the FIFO queue
 * before its deque.  Its two loops count apart (the inline wait the latent
 * tasks it ran, @nr_ran; the dispatch loop its own @ticks) and each gives
 * the queue a turn every WS_FIFO_TURN tasks, so that together they never
 * take WS_FIFO_PERIOD without one.
 */
#define WS_FIFO_PERIOD		64
#define WS_FIFO_TURN		(WS_FIFO_PERIOD / 2)

/**
 * struct ws_invoke_slot - the part of a pool's slot that the inline
 *	ws_parallel_invoke(), ws_spawn() and ws_group_wait() use
 * @frames: the second calls of the nested calls, oldest first (written by
 *	the owner; read by its heartbeat interrupt); first, at an address
 *	aligned to %WS_INVOKE_SLOT_ALIGN (the slot's container sees to it)
 * @owner: the slot's worker kthread while it runs, on a CPU slot of a
 *	kernel pool (whose frames stay private until promoted), else NULL.
 *	Stored only by that thread itself (WRITE_ONCE()), so a lockless
 *	compare with current is exact for the caller.
 * @depth: entries of @frames in use (written by the owner in process
 *	context with WRITE_ONCE(); read by its heartbeat interrupt, and by
 *	thieves as a hint)
 * @published: how many of them, the oldest, were promoted since (written
 *	by the owner and its heartbeat interrupt; read as @depth)
 * @request: set by a thief that found nothing to take while frames were
 *	private (WRITE_ONCE() and READ_ONCE(): a hint with no ordering);
 *	cleared when a frame is promoted
 * @isolation: the tag of the isolated region the slot's thread is in, or 0
 *	(its own thread only; see ws_isolation_enter() for how a promotion
 *	finds the tag of an older frame)
 * @is_ctx: for each entry of @frames, whether it is a ws_ctx_invoke() call
 *	(its @ctx_fn is set) rather than a ws_parallel_invoke() one (@fn)
 * @lat_top: latent tasks are @lat[@lat_bot .. @lat_top - 1], the oldest
 *	first (the owner's; stored with WRITE_ONCE() for the heartbeat,
 *	which reads it while it interrupts the owner)
 * @lat_bot: the oldest latent task not yet promoted (the owner with
 *	interrupts off, or its heartbeat while it interrupts the owner or
 *	holds it off every CPU; WRITE_ONCE() and READ_ONCE())
 * @lat_req: a thief found nothing here while latent tasks were left: the
 *	owner promotes the oldest at its next spawn (set by thieves, cleared
 *	by the owner, unordered: a hint)
 * @wait_depth: how many ws_group_wait() calls are nested on the owner
 *	(the owner's only)
 * @ticks: tasks the dispatch loop took, and latent ones the inline wait
 *	ran out of line, to give the FIFO queue a regular turn (the owner's
 *	only; the inline wait counts those it runs itself in @nr_ran)
 * @nr_spawned: tasks the owner kept latent: the slot's share of its
 *	pool's &ws_pool_stats.spawned, counted here, next to the entries,
 *	rather than per CPU (stored by the owner only, with WRITE_ONCE();
 *	summed with the per-CPU counters by ws_pool_read_stats())
 * @nr_ran: latent tasks the owner's inline wait took and ran: its share
 *	of both &ws_pool_stats.popped and .executed, counted once (as
 *	@nr_spawned)
 * @hb_armed: the slot's heartbeat timer is queued or running, or dozes
 *	(the owner and its heartbeat interrupt, on the same CPU or while
 *	the owner is held off every CPU: WRITE_ONCE() and READ_ONCE())
 * @lat: the latent tasks: spawned by the owner into groups it owns,
 *	ready, counted only in the group's @lazy, run by the owner LIFO or
 *	promoted oldest first (see Documentation/design.rst, "Latent
 *	spawns")
 *
 * Embedded in every slot (struct ws_worker, kmod/wsched_internal.h);
 * private to wsched.  A promoted frame is armed as a task in storage of
 * the slot's own, at the same index (kmod/invoke.c).
 */
struct ws_invoke_slot {
	struct ws_invoke_frame frames[WS_INVOKE_FRAMES];
	struct task_struct *owner;
	unsigned int depth;
	unsigned int published;
	unsigned int request;
	unsigned long isolation;
	u8 is_ctx[WS_INVOKE_FRAMES];
	unsigned int lat_top;
	unsigned int lat_bot;
	unsigned int lat_req;
	unsigned int wait_depth;
	unsigned int ticks;
	u64 nr_spawned;
	u64 nr_ran;
	bool hb_armed;
	struct ws_task *lat[WS_LATENT_SLOTS];
};

/**
 * struct ws_pool_head - the first member of every struct ws_pool
 * @inv_slot: per CPU, the &struct ws_invoke_slot of the pool's slot for
 *	that CPU; set when the pool is created, then read-only.  Per-CPU
 *	data rather than an array indexed by CPU number, so that a call
 *	finds its slot with one load of this CPU's entry, not three (the
 *	array, the CPU number, the entry).
 * @stats: per-CPU event counters (this_cpu_inc() by whoever counts; read
 *	without synchronisation, a snapshot)
 *
 * Private to wsched: what the inline ws_parallel_invoke(), ws_spawn()
 * and ws_group_wait() read of a pool.
 */
struct ws_pool_head {
	struct ws_invoke_slot *__percpu *inv_slot;
	struct ws_pool_stats __percpu *stats;
};

void __ws_parallel_invoke(struct ws_pool *pool, ws_invoke_fn left,
			  void *left_arg, ws_invoke_fn right, void *right_arg);
void __ws_invoke_outer(struct ws_invoke_slot *slot, ws_invoke_fn left,
		       void *left_arg, ws_invoke_fn right, void *right_arg);
void __ws_invoke_enter(struct ws_invoke_slot *slot, unsigned int depth);
void __ws_invoke_reclaim(struct ws_invoke_slot *slot, unsigned int depth);

/*
 * The slot of a frame, and the frame's index in it, from the frame's
 * address alone, with no load: the frames come first in the slot, which
 * is aligned to WS_INVOKE_SLOT_ALIGN.  @frame may also be the end of the
 * frames (index WS_INVOKE_FRAMES).
 */
static __always_inline struct ws_invoke_slot *
__ws_frame_slot(const struct ws_invoke_frame *frame)
{
	return (struct ws_invoke_slot *)((unsigned long)frame &
					 ~(WS_INVOKE_SLOT_ALIGN - 1));
}

static __always_inline unsigned int
__ws_frame_index(const struct ws_invoke_frame *frame)
{
	return ((unsigned long)frame & (WS_INVOKE_SLOT_ALIGN - 1)) /
	       sizeof(*frame);
}

/*
 * The invoke slot of @pool's CPU slot for the CPU we run on (read once:
 * a thread that migrates after the read fails the owner check of
 * __ws_invoke_owns()).  @pool NULL is ws_system_pool, read only then: a
 * branch, where "pool ? pool : ws_system_pool" became a conditional move
 * that loads ws_system_pool at every call (READ_ONCE() keeps the compiler
 * from loading it before the test; it is set before any caller can run).
 */
static __always_inline struct ws_invoke_slot *
__ws_invoke_slot(struct ws_pool *pool)
{
	const struct ws_pool_head *head;

	if (unlikely(!pool))
		pool = READ_ONCE(ws_system_pool);
	head = (const struct ws_pool_head *)pool;
	return this_cpu_read(*head->inv_slot);
}

/*
 * Whether the current thread owns @slot and keeps its frames private in
 * it.  Never in an interrupt, which must not touch the frames of the
 * thread it interrupts.  A CPU slot's owner is bound to its CPU, so if we
 * own this CPU's slot the CPU cannot change under us; any other thread
 * fails the compare whatever CPU it read.  An owner that CPU hotplug
 * pushed off its CPU finds its slot out of line.
 */
static __always_inline bool __ws_invoke_owns(struct ws_invoke_slot *slot)
{
	/* Only the owner stores its own task pointer here. */
	bool owner = READ_ONCE(slot->owner) == current;
	bool task = in_task();

	return owner & task;
}

/*
 * Run @left with @right in the private frame at index @depth of @slot
 * (the caller's own, with @depth below WS_INVOKE_FRAMES), then @right
 * unless it was promoted meanwhile.  @outer: the outermost call, which
 * starts the heartbeat (out of line, in __ws_invoke_outer()).  The frame
 * is an entry of the slot, not of the caller's stack, so the caller's own
 * frame stays as small as its other locals make it.  The frame, its
 * index and the reads after the first call pair with the owner's
 * heartbeat, an interrupt of its own CPU (ws_heartbeat(), kmod/invoke.c),
 * so program order is all they need: no atomic operation and no barrier
 * but the compiler's.
 */
static __always_inline void __ws_invoke_frame(struct ws_invoke_slot *slot,
					      unsigned int depth, bool outer,
					      ws_invoke_fn left,
					      void *left_arg,
					      ws_invoke_fn right,
					      void *right_arg)
{
	struct ws_invoke_frame *frame = &slot->frames[depth];

	/* Marked: our heartbeat interrupt reads them (KCSAN sees both). */
	WRITE_ONCE(frame->fn, right);
	WRITE_ONCE(frame->arg, right_arg);
	WRITE_ONCE(slot->is_ctx[depth], 0);
	/*
	 * The frame, then its index: pairs with our heartbeat interrupt,
	 * which reads the index, then the frame (ws_invoke_promote()), on
	 * this CPU.  WRITE_ONCE(): thieves read it as a hint.
	 */
	barrier();
	WRITE_ONCE(slot->depth, depth + 1);
	/*
	 * The outermost call starts the heartbeat.  A thief's request is a
	 * plain read of its WRITE_ONCE() flag, with no ordering: a late
	 * answer only delays a promotion.
	 */
	if (outer || unlikely(READ_ONCE(slot->request)))
		__ws_invoke_enter(slot, depth);
	left(left_arg);
	/*
	 * Only the frame's address is kept across the call, in place of the
	 * slot's: the slot and our depth are computed from it, not loaded
	 * (OPTIMIZER_HIDE_VAR() keeps the compiler from holding them in two
	 * more callee-saved registers), and the second argument is read back
	 * from the frame, which only we write.
	 */
	OPTIMIZER_HIDE_VAR(frame);
	slot = __ws_frame_slot(frame);
	depth = __ws_frame_index(frame);
	/*
	 * Take the frame back; from here our heartbeat cannot promote it.
	 * It may have before: the read of published below comes after this
	 * store in program order (both volatile), which is the order our
	 * interrupt sees them in.
	 */
	WRITE_ONCE(slot->depth, depth);
	if (likely(depth >= READ_ONCE(slot->published)))
		right(frame->arg);
	else
		__ws_invoke_reclaim(slot, depth);
}

/*
 * ws_parallel_invoke() on the owner of @slot: keep the second call in a
 * private frame while the first runs.  The outermost call (depth 0), and
 * calls nested too deep to keep a frame, go out of line: one unsigned
 * compare finds both.
 */
static __always_inline void __ws_invoke_private(struct ws_invoke_slot *slot,
						ws_invoke_fn left,
						void *left_arg,
						ws_invoke_fn right,
						void *right_arg)
{
	unsigned int depth = slot->depth;

	if (unlikely(depth - 1 >= WS_INVOKE_FRAMES - 1))
		__ws_invoke_outer(slot, left, left_arg, right, right_arg);
	else
		__ws_invoke_frame(slot, depth, false, left, left_arg, right,
				  right_arg);
}

/**
 * ws_parallel_invoke - call two functions, possibly in parallel
 * @pool: the pool; NULL for ws_system_pool
 * @left: the first function; the caller runs it
 * @left_arg: its argument
 * @right: the second function
 * @right_arg: its argument
 *
 * Like oneTBB's parallel_invoke() of two functions, or Rayon's join():
 * the caller runs @left while @right waits where other threads of @pool
 * may take it; if none did, the caller then calls @right itself, like any
 * function, with no task run and no group counted; if a thread took it,
 * the caller runs tasks of the pool, as in ws_group_wait(), until @right
 * has finished.
 *
 * Where @right waits (heartbeat scheduling): on a worker of the pool, in
 * a private frame of the caller's slot, with no deque traffic, no atomic
 * operation and no barrier, until it is promoted to the slot's promotion
 * cell, where other threads take it: by the worker's heartbeat, a timer
 * that interrupts it every heartbeat_us microseconds (module parameter,
 * default 100) while it runs calls and another thread looks for work (a
 * thief starts it again if it stopped); at its next call after a thief
 * found nothing and asked; at its outermost call when a worker is idle;
 * and before it naps in a wait.  So an idle worker waits about one heartbeat
 * at most for work, whatever @left does between calls.  A thread that
 * is not a worker bound to a CPU (one that joined, a user pool's worker)
 * puts @right on its deque at once instead.
 *
 * Inline: on a worker, a call with constant functions compiles to direct
 * calls of them; everything but the private frame is out of line.
 *
 * It does not reschedule between the calls: long-running bodies call
 * cond_resched().  The second call counts in the pool's statistics only
 * if another thread takes it (as stolen and executed there).
 *
 * A thread that is not one of @pool's joins it for the call, as with
 * ws_pool_execute().  With every join slot taken, or in a pool created
 * with attributes, @right is spawned into the pool and the caller sleeps,
 * after @left, until it has finished.  The two functions may run on
 * different threads at the same time, in either order, so they must not
 * wait for each other; both have finished, and their writes are visible
 * to the caller, when this returns.  Calls nest, and run in the caller's
 * isolated region, if any.
 *
 * Context: process context, may sleep.
 */
static __always_inline void ws_parallel_invoke(struct ws_pool *pool,
					       ws_invoke_fn left,
					       void *left_arg,
					       ws_invoke_fn right,
					       void *right_arg)
{
	struct ws_invoke_slot *slot;

	/*
	 * The check of might_sleep(), without its voluntary preemption
	 * point: the calls are a function call's worth of work.
	 */
	__might_sleep(__FILE__, __LINE__);
	slot = __ws_invoke_slot(pool);
	if (likely(__ws_invoke_owns(slot)))
		__ws_invoke_private(slot, left, left_arg, right, right_arg);
	else
		__ws_parallel_invoke(pool, left, left_arg, right, right_arg);
}

/*
 * ws_group_init_flags(), ws_spawn() and ws_group_wait() are inline too:
 * on a worker that owns the group, a spawn keeps the task latent in the
 * worker's slot with plain stores, and a wait runs the youngest latent
 * tasks itself, with no call into wsched and no deque traffic (see
 * Documentation/design.rst, "Latent spawns").  Everything else, and every
 * case that needs more (a traced event, a cancelled group, a task that
 * returns one, successors, a FIFO turn), goes out of line.
 */
DECLARE_TRACEPOINT(wsched_spawn);
DECLARE_TRACEPOINT(wsched_execute);

struct ws_invoke_slot *__ws_group_owner(struct ws_pool *pool);
void __ws_spawn(struct ws_group *group, struct ws_task *task);
void __ws_latent_slow(struct ws_invoke_slot *slot);
int __ws_group_wait(struct ws_group *group);
void __ws_latent_finish(struct ws_invoke_slot *slot, struct ws_task *task,
			struct ws_group *group, struct ws_task *next);
void __ws_latent_run(struct ws_invoke_slot *slot, struct ws_task *task);
void __ws_latent_fifo_turn(struct ws_invoke_slot *slot);

/**
 * ws_group_init_flags - prepare an empty task group
 * @group: the group
 * @pool: the pool its tasks run in; NULL for ws_system_pool
 * @flags: 0 or %WS_GROUP_CANCEL_ON_ERROR
 *
 * The thread that sets a group up owns it if it is a thread of @pool:
 * its spawns into the group are lazy (see ws_spawn()).
 */
static __always_inline void ws_group_init_flags(struct ws_group *group,
						struct ws_pool *pool,
						unsigned long flags)
{
	struct ws_invoke_slot *slot;

	if (!pool)
		pool = READ_ONCE(ws_system_pool);
	atomic_set(&group->pending, 0);
	group->error = 0;
	group->flags = flags & WS_GROUP_CANCEL_ON_ERROR;
	group->pool = pool;
	group->done = NULL;
	group->lazy = 0;
	atomic_set(&group->stolen, 0);
	/* A CPU slot's owner inline; any other thread of the pool out of line. */
	slot = __ws_invoke_slot(pool);
	group->owner = __ws_invoke_owns(slot) ? slot : __ws_group_owner(pool);
}

/*
 * Whether the owner of @slot, which owns @group, may keep @task latent
 * inline: room left, no isolated region, nobody else waiting for the
 * group, no tracing, and the task ready.  Acquire as in
 * ws_task_release_spawn_ref() (kmod/group.c): pairs with the release of
 * the last predecessor.
 */
static __always_inline bool __ws_latent_may_push(struct ws_invoke_slot *slot,
						 struct ws_group *group,
						 struct ws_task *task)
{
	return slot->lat_top < WS_LATENT_SLOTS && !slot->isolation &&
	       !test_bit(WS_GROUP_SHARED_BIT, &group->flags) &&
	       !tracepoint_enabled(wsched_spawn) &&
	       atomic_read_acquire(&task->deps) == 1;
}

/*
 * Keep @task latent on the owner of @slot, which checked for room: its
 * entry, then the top, then the count.  Shared by the inline ws_spawn()
 * and the one out of line (ws_latent_push(), kmod/wsched_internal.h).
 */
static __always_inline void __ws_latent_push(struct ws_invoke_slot *slot,
					     struct ws_task *task)
{
	/* Ours: only we store it. */
	unsigned int top = slot->lat_top;

	/* Read by our heartbeat only below @lat_top, so not yet. */
	WRITE_ONCE(slot->lat[top], task);
	/*
	 * The task and its entry before the top: pairs with our heartbeat
	 * interrupt, on this CPU, which reads the top, then the entry
	 * (ws_latent_to_cell(), kmod/group.c).
	 */
	barrier();
	WRITE_ONCE(slot->lat_top, top + 1);
	/*
	 * Ours: a plain add to a line we just wrote, where a per-CPU
	 * counter cost a load of the pool's pointer and an add to memory
	 * of its own.  WRITE_ONCE(): ws_pool_read_stats() reads it.
	 */
	WRITE_ONCE(slot->nr_spawned, slot->nr_spawned + 1);
}

/*
 * After a latent push on the owner of @slot: whether a heartbeat is to
 * start or a thief's request to answer (rare; ws_latent_slow() does
 * both).  Read after the push, in program order (both volatile), as our
 * heartbeat interrupt sees them: a beat that came before the push and
 * stopped for want of latent tasks has cleared @hb_armed by now
 * (ws_heartbeat_may_stop(), kmod/wsched_internal.h); one that comes
 * later finds the task.  Unordered hints otherwise (a dozing heartbeat
 * stays armed, see ws_heartbeat_unwanted()).  With the heartbeat off
 * (heartbeat_us 0) there is none to start, so only a request calls out:
 * @ws_heartbeat_us is read only when @hb_armed is clear, which with the
 * heartbeat on is a spawn that starts it.
 */
static __always_inline bool __ws_latent_wants_slow(struct ws_invoke_slot *slot)
{
	return (!READ_ONCE(slot->hb_armed) && READ_ONCE(ws_heartbeat_us)) ||
	       READ_ONCE(slot->lat_req);
}

/**
 * ws_spawn - queue a task for execution in a group
 * @group: the group, set up with ws_group_init()
 * @task: the task, set up with ws_task_init(), not queued elsewhere
 *
 * From a worker of the group's pool the task goes to the bottom of the
 * worker's own deque, where the worker pops it or another worker steals
 * it; a ready task that the group's owner spawns on a CPU worker stays
 * private to it instead (latent) until its wait runs it or a promotion
 * (the heartbeat, a thief's request) publishes it (see
 * Documentation/design.rst, "Latent spawns").  From any other context
 * (another thread, an interrupt) it goes to the pool's injection queue.
 * A task with unfinished predecessors is queued by the last of them to
 * finish.  Never sleeps, never fails.
 *
 * Inline: a latent spawn is a few plain stores into the caller's slot;
 * every other case is out of line.
 */
static __always_inline void ws_spawn(struct ws_group *group,
				     struct ws_task *task)
{
	const struct ws_pool_head *head =
		(const struct ws_pool_head *)group->pool;
	struct ws_invoke_slot *slot = this_cpu_read(*head->inv_slot);

	if (likely(group->owner == slot && __ws_invoke_owns(slot) &&
		   __ws_latent_may_push(slot, group, task))) {
		task->group = group;
		task->flags = WS_TASK_LAZY;
		task->isolation = 0;
		/* Ours only; ws_group_done() reads it locklessly. */
		WRITE_ONCE(group->lazy, group->lazy + 1);
		__ws_latent_push(slot, task);
		if (unlikely(__ws_latent_wants_slow(slot)))
			__ws_latent_slow(slot);
		return;
	}
	__ws_spawn(group, task);
}

/*
 * Take our youngest latent task, or NULL.  Against our heartbeat, which
 * takes the oldest, as the THE protocol against a thief, but on our own
 * CPU: a compiler barrier orders the store of the top before the load of
 * the bottom.  The caller counts the pop: the inline wait in @nr_ran once
 * the task ran, the wait out of line per CPU (ws_latent_pop()).
 */
static __always_inline struct ws_task *
__ws_latent_pop(struct ws_invoke_slot *slot)
{
	unsigned int t = slot->lat_top;

	if (likely(t <= READ_ONCE(slot->lat_bot))) {
		/*
		 * Empty: start again from the first entry.  The top first,
		 * so that the heartbeat never sees an entry between.
		 */
		if (t) {
			WRITE_ONCE(slot->lat_top, 0);
			barrier();
			WRITE_ONCE(slot->lat_bot, 0);
		}
		return NULL;
	}
	WRITE_ONCE(slot->lat_top, --t);
	/* The top before the bottom; pairs with ws_latent_to_cell(). */
	barrier();
	if (unlikely(READ_ONCE(slot->lat_bot) > t)) {
		/* The heartbeat promoted it meanwhile: now empty. */
		WRITE_ONCE(slot->lat_top, 0);
		barrier();
		WRITE_ONCE(slot->lat_bot, 0);
		return NULL;
	}
	return slot->lat[t];
}

/*
 * Bytes of kernel stack left below the caller's frame (current is a
 * per-CPU read the compiler may share with the owner test before it).
 */
static __always_inline unsigned long __ws_stack_left(void)
{
#ifdef CONFIG_STACK_GROWSUP
	return THREAD_SIZE;
#else
	return (unsigned long)__builtin_frame_address(0) -
	       (unsigned long)task_stack_page(current);
#endif
}

/*
 * Whether a wait, @wait_depth waits deep with @stack_left bytes of stack
 * below it, may run tasks at all; one that may runs each one wait deeper.
 * The inline wait and ws_wait_scope() (kmod/dispatch.c) share it.
 */
static __always_inline bool __ws_wait_may_run(unsigned int wait_depth,
					      unsigned long stack_left)
{
	return wait_depth < WS_MAX_WAIT_DEPTH && stack_left >= THREAD_SIZE / 4;
}

/*
 * The part of a wait that runs inline, on the owner of @slot and of
 * @group: take latent tasks, youngest first, and run them until @group
 * is complete or none is left.  As a task that a wait runs out of line,
 * each runs one wait deeper, and only while a nested wait may run tasks
 * at all: fewer than %WS_MAX_WAIT_DEPTH waits deep, with a quarter of the
 * stack left, outside isolated regions (a latent task is never isolated).
 * Every %WS_FIFO_TURN tasks it ran, the FIFO queue gets its turn out of
 * line.  Return whether @group is complete (if so, with the acquire of
 * ws_group_done(): its tasks' writes are visible); if not, the caller
 * waits out of line.
 */
static __always_inline bool __ws_wait_latent(struct ws_invoke_slot *slot,
					     struct ws_group *group)
{
	struct ws_task *task, *next;
	struct ws_group *tg;

	/* The stack left is constant across the loop: tasks return here. */
	if (!__ws_wait_may_run(slot->wait_depth, __ws_stack_left()) ||
	    slot->isolation)
		return ws_group_done(group);
	for (;;) {
		if (ws_group_done(group))
			return true;
		/* The tasks run here pace the FIFO queue's turns here. */
		if (unlikely(!(slot->nr_ran % WS_FIFO_TURN)))
			__ws_latent_fifo_turn(slot);
		task = __ws_latent_pop(slot);
		if (!task)
			return ws_group_done(group);
		tg = task->group;
		if (unlikely(test_bit(WS_GROUP_CANCELLED_BIT, &tg->flags) ||
			     tracepoint_enabled(wsched_execute))) {
			__ws_latent_run(slot, task);
			continue;
		}
		slot->wait_depth++;
		next = task->fn(task);
		slot->wait_depth--;
		/* Popped and executed; ours, read as in __ws_latent_push(). */
		WRITE_ONCE(slot->nr_ran, slot->nr_ran + 1);
		/*
		 * Close the successor list: fully ordered, pairs with
		 * try_cmpxchg() in ws_task_precede(), as out of line.  A
		 * returned task, or edges to release, go out of line.
		 */
		if (unlikely(next) ||
		    unlikely(cmpxchg(&task->successors, NULL, WS_DEPS_CLOSED)))
			__ws_latent_finish(slot, task, tg, next);
		else
			/*
			 * Release pairs with the acquire of @lazy in
			 * ws_group_done(): a waiter that sees the count
			 * drop sees the task's writes.
			 */
			smp_store_release(&tg->lazy, tg->lazy - 1);
		/*
		 * As a wait's loop out of line, where cond_resched() runs
		 * after each task: its check inline, and the whole of it at
		 * each FIFO turn (what it does beyond rescheduling, such as
		 * reporting to RCU, can wait that long).
		 */
		if (unlikely(need_resched()))
			cond_resched();
	}
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
 * Inline: the group's owner on a CPU worker runs its latent tasks itself
 * and returns without a call into wsched if that completes the group.
 *
 * Context: process context, may sleep.
 * Return: 0; the first error a task reported with ws_task_fail(); or
 * -ECANCELED if the group was cancelled and no task reported an error.
 */
static __always_inline int ws_group_wait(struct ws_group *group)
{
	const struct ws_pool_head *head =
		(const struct ws_pool_head *)group->pool;
	struct ws_invoke_slot *slot = this_cpu_read(*head->inv_slot);
	int error;

	if (likely(group->owner == slot && __ws_invoke_owns(slot))) {
		/* Acquire: the tasks' writes are visible (ws_group_done()). */
		if (likely(__ws_wait_latent(slot, group))) {
			error = READ_ONCE(group->error);
			if (unlikely(error))
				return error;
			return test_bit(WS_GROUP_CANCELLED_BIT, &group->flags) ?
			       -ECANCELED : 0;
		}
	}
	return __ws_group_wait(group);
}

/*
 * The explicit-context fork-join API: ws_ctx_run() finds (or joins) the
 * caller's slot once and passes it down as a struct ws_ctx; each
 * ws_ctx_invoke() then uses it with no lookup.  Documentation/design.rst
 * ("An explicit context") has the design.
 */

void ws_ctx_run(struct ws_pool *pool, ws_ctx_fn fn, void *arg);
void __ws_ctx_invoke(struct ws_ctx *ctx, ws_ctx_fn left, void *left_arg,
		     ws_ctx_fn right, void *right_arg);
void __ws_ctx_reclaim(struct ws_invoke_slot *slot, unsigned int depth);

/*
 * A context is the address of the frame that its holder's next call of
 * ws_ctx_invoke() uses, in the slot of the thread it was given to (the
 * end of the frames for a holder WS_INVOKE_FRAMES deep or deeper): its
 * index is the holder's nesting depth, and the slot starts at the
 * context rounded down to WS_INVOKE_SLOT_ALIGN (the frames come first in
 * the slot, which is aligned to that).  So a call finds its slot, its
 * frame and its depth from the context alone, with no load: its depth
 * is not read back from the slot after the first call, and consecutive
 * calls do not wait on each other's store of it.  The type only keeps
 * callers from touching it.
 */
static __always_inline struct ws_invoke_slot *__ws_ctx_slot(struct ws_ctx *ctx)
{
	return __ws_frame_slot((const struct ws_invoke_frame *)ctx);
}

/* The depth of the holder of @ctx: the index of its frame. */
static __always_inline unsigned int __ws_ctx_depth(struct ws_ctx *ctx)
{
	return __ws_frame_index((const struct ws_invoke_frame *)ctx);
}

/*
 * The context of @slot's holder at @depth: the frame at that index, or
 * the end of the frames for WS_INVOKE_FRAMES and deeper.
 */
static __always_inline struct ws_ctx *__ws_ctx_at(struct ws_invoke_slot *slot,
						  unsigned int depth)
{
	if (depth > WS_INVOKE_FRAMES)
		depth = WS_INVOKE_FRAMES;
	return (struct ws_ctx *)&slot->frames[depth];
}

/*
 * __ws_invoke_frame() for ws_ctx_invoke(): the same protocol, the frame
 * marked in @is_ctx, whose second call a thief runs with a context of its
 * own.  The first call's context is the next frame's address (or the
 * end of the frames, whose calls go out of line).  Across the first call
 * the caller keeps only the frame's address, the second call's context:
 * the slot and the depth are computed from it again, not loaded.
 */
static __always_inline void __ws_ctx_frame(struct ws_invoke_slot *slot,
					   unsigned int depth, bool outer,
					   ws_ctx_fn left, void *left_arg,
					   ws_ctx_fn right, void *right_arg)
{
	struct ws_invoke_frame *frame = &slot->frames[depth];

	/* Marked: our heartbeat interrupt reads them (KCSAN sees both). */
	WRITE_ONCE(frame->ctx_fn, right);
	WRITE_ONCE(frame->arg, right_arg);
	WRITE_ONCE(slot->is_ctx[depth], 1);
	/*
	 * The frame, then its index: pairs with our heartbeat interrupt, on
	 * this CPU, as in __ws_invoke_frame().
	 */
	barrier();
	WRITE_ONCE(slot->depth, depth + 1);
	/* As in __ws_invoke_frame(): a hint, with no ordering. */
	if (outer || unlikely(READ_ONCE(slot->request)))
		__ws_invoke_enter(slot, depth);
	left((struct ws_ctx *)(frame + 1), left_arg);
	/*
	 * Only the frame's address is live across the call: the compiler
	 * is not to keep the slot and the depth in two more callee-saved
	 * registers, but to compute them from it.
	 */
	OPTIMIZER_HIDE_VAR(frame);
	slot = __ws_frame_slot(frame);
	depth = __ws_frame_index(frame);
	/*
	 * Take the frame back; the read of published comes after this store
	 * in program order, as in __ws_invoke_frame().
	 */
	WRITE_ONCE(slot->depth, depth);
	if (likely(depth >= READ_ONCE(slot->published)))
		right((struct ws_ctx *)frame, frame->arg);
	else
		__ws_ctx_reclaim(slot, depth);
}

/**
 * ws_ctx_invoke - call two functions, possibly in parallel, in a context
 * @ctx: the caller's context: the one ws_ctx_run() or ws_ctx_invoke()
 *	passed to the calling function
 * @left: the first function; the caller runs it
 * @left_arg: its argument
 * @right: the second function
 * @right_arg: its argument
 *
 * ws_parallel_invoke() with the caller's slot passed down instead of
 * found: the same contract and the same promotion of @right (heartbeat,
 * a thief's request, a wait), but no lookup of the current thread's slot
 * and no test of its ownership at each call.  Each function gets the
 * context of the thread that runs it: @ctx, or, when a thread took
 * @right, that thread's own.
 *
 * On a CPU-bound worker of a kernel pool the unstolen path is a few
 * stores into the slot's frame array (nothing on the caller's stack),
 * the call of @left, a store and a compare, then the call of @right: no
 * atomic operation, no barrier, and with constant functions direct
 * calls.  The outermost call of the worker (which starts its heartbeat),
 * calls nested deeper than %WS_INVOKE_FRAMES (which call both functions
 * in turn) and every call of a thread that is not bound to a CPU (a
 * thread that joined, a user pool's worker: @right goes onto its deque at
 * once) go out of line.
 *
 * A context is valid only on the thread it was given to, until the
 * function it was given to returns, and only for that function and the
 * functions it calls directly: it must not be stored, passed to another
 * thread, a task, a callback of ws_spawn() or an interrupt, or passed
 * through its argument to a function of ws_parallel_invoke(), which runs
 * a level deeper (a context records its holder's depth; such a function
 * calls ws_ctx_run() for its own).  Calls nest,
 * with each other and with ws_parallel_invoke(), and run in the caller's
 * isolated region, if any.
 *
 * Context: process context, may sleep.
 */
static __always_inline void ws_ctx_invoke(struct ws_ctx *ctx, ws_ctx_fn left,
					  void *left_arg, ws_ctx_fn right,
					  void *right_arg)
{
	unsigned int depth = __ws_ctx_depth(ctx);

	/* As in ws_parallel_invoke(). */
	__might_sleep(__FILE__, __LINE__);
	/*
	 * One compare: the outermost call (@depth 0), a slot whose frames
	 * never become private (its contexts stay at depth 0) and calls
	 * nested too deep to keep a frame go out of line.
	 */
	if (unlikely(depth - 1 >= WS_INVOKE_FRAMES - 1))
		__ws_ctx_invoke(ctx, left, left_arg, right, right_arg);
	else
		__ws_ctx_frame(__ws_ctx_slot(ctx), depth, false, left,
			       left_arg, right, right_arg);
}

/*
 * Operations for /dev/wsched.
 *
 * A module can add an operation that user space runs as a node of a task
 * graph submitted through /dev/wsched: it registers a struct ws_op, user
 * space finds its number by name with WSCHED_IOC_OP_LOOKUP and puts that
 * number in struct wsched_sqe.op.  See Documentation/kernel-api.rst.
 */

struct module;

/**
 * struct ws_op_args - the operands of one run of an operation
 * @data: the first range, (buf, off, len) of the ring entry, mapped into
 *	the kernel; NULL when the op has no %WS_OP_RANGE, and in the check
 *	hook
 * @len: its length in bytes; 0 without %WS_OP_RANGE
 * @data2: the second range, (buf2, arg) of the entry, @ws_op.range2_len
 *	bytes (or @len); NULL without %WS_OP_RANGE2, and in the check hook
 * @arg: the entry's arg: the op's scalar operand without %WS_OP_RANGE2,
 *	the offset of the second range in its buffer with it
 * @pool: the pool the node runs in, for parallel loops inside the op;
 *	NULL means ws_system_pool (both ws_parallel_for() and
 *	ws_parallel_reduce() take NULL)
 *
 * @data and @data2 are kernel addresses of pinned user pages: the hooks
 * never touch user memory themselves.  Other nodes may read or write the
 * same memory at the same time unless the graph orders them.
 */
struct ws_op_args {
	void *data;
	size_t len;
	void *data2;
	u64 arg;
	struct ws_pool *pool;
};

/* The op uses the entry's (buf, off, len) as its first range. */
#define WS_OP_RANGE		0x1U
/* The op uses (buf2, arg) as a second range; needs WS_OP_RANGE too. */
#define WS_OP_RANGE2		0x2U
/*
 * The op's run splits its first range into pieces of at least 64 KiB with
 * ws_parallel_for() or ws_parallel_reduce() on ws_op_args.pool; needs
 * WS_OP_RANGE.  The engine then asks the submitter's pool for one thread
 * per 64 KiB of the range (at most the CPUs the process may use), so that
 * even a graph of one such node runs in parallel.
 */
#define WS_OP_SPLIT		0x4U

/**
 * struct ws_op - an operation /dev/wsched can run
 * @name: 1 to WSCHED_OP_NAME_MAX - 1 characters out of [a-z0-9._-],
 *	unique among all operations; user space looks the op up by it.
 *	Prefix it with the module's name, such as "mymod.frob".
 * @owner: the module that implements the op (THIS_MODULE); /dev/wsched
 *	holds a reference on it while a submitted node uses the op
 * @flags: %WS_OP_RANGE, %WS_OP_RANGE2, %WS_OP_SPLIT.  Ring entry fields the op does
 *	not use must be zero: (buf, off, len) without %WS_OP_RANGE, buf2
 *	without %WS_OP_RANGE2.  A range is never empty.
 * @range2_len: length of the second range; 0 for the same as the first
 * @check: called when the entry is submitted, with @ws_op_args.data and
 *	@ws_op_args.data2 NULL and the other operands set; returns 0 or a
 *	negative errno that refuses the whole graph.  May be NULL; must not
 *	sleep.
 * @run: runs the op once the node's predecessors have finished, in
 *	process context on a worker of the pool (it may sleep, and may run
 *	ws_parallel_for() or ws_parallel_reduce() on @ws_op_args.pool).
 *	*@value is 0 on entry; what the op stores there becomes the value
 *	of the node's completion.  Returns 0 or a negative errno, the
 *	completion's result; an error cancels the node's dependents.
 *
 * The structure is the caller's, usually static; it must stay valid
 * until ws_op_unregister() returns.
 */
struct ws_op {
	const char *name;
	struct module *owner;
	unsigned int flags;
	size_t range2_len;
	int (*check)(const struct ws_op_args *args);
	int (*run)(const struct ws_op_args *args, u64 *value);
	/* private: set and used by wsched */
	u32 id;
	atomic_t users;
};

int ws_op_register(struct ws_op *op);
void ws_op_unregister(struct ws_op *op);

#endif /* _LINUX_WSCHED_H */
