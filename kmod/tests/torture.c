// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_torture: a random mix of the wsched kernel API against random
 * CPU hotplug, every task accounted for.
 *
 * Modelled on kernel/locking/locktorture.c (writer threads, a statistics
 * thread, an onoff thread, a final "End of test" line), but standalone:
 * stock kernels may not build kernel/torture.c (CONFIG_TORTURE_TEST), so
 * the few pieces needed (random CPU offline/online with remove_cpu() and
 * add_cpu(), periodic statistics, the end of test) are written here.
 *
 * Every task the module spawns has a state word, moved by cmpxchg from
 * SPAWNED to RAN (its function started) or CANCELLED (its cancel hook
 * ran); any other move is a task run twice, or run and cancelled, and a
 * failure.  After each wait every task of the operation must have moved
 * and finished, and at the end spawned = executed + cancelled exactly.
 * Dependencies are checked by each task against its predecessors, FIFO
 * order and parallel-loop coverage (each index exactly once, chunk
 * boundaries, combine order) by the operations that use them, and every
 * node of a ws_parallel_invoke() or ws_ctx_invoke() tree runs exactly
 * once, finished when its parent's call returns.
 *
 * Parameters: duration (s, 0 runs until rmmod), threads (0: one per
 * online CPU), hotplug_interval (ms, 0 disables), seed (0: random),
 * stat_interval (s), stall_timeout (s).  Documentation/testing.rst.
 */
#define pr_fmt(fmt) "wsched-torture: " fmt

#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/prandom.h>
#include <linux/rwsem.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/wsched.h>

/* Only for ws_heartbeat_us, to report promotion latency in heartbeats. */
#include "wsched_internal.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

static int duration = 60;
module_param(duration, int, 0444);
MODULE_PARM_DESC(duration, "seconds to run; 0 runs until the module is removed");

static int threads;
module_param(threads, int, 0444);
MODULE_PARM_DESC(threads, "torture threads; 0 for one per online CPU");

static int hotplug_interval = 200;
module_param(hotplug_interval, int, 0444);
MODULE_PARM_DESC(hotplug_interval, "mean ms between CPU offline/online; 0 disables");

static ulong seed;
module_param(seed, ulong, 0444);
MODULE_PARM_DESC(seed, "random seed; 0 for a random one (printed)");

static int stat_interval = 10;
module_param(stat_interval, int, 0444);
MODULE_PARM_DESC(stat_interval, "seconds between statistics lines");

static ulong ops = ~0UL;
module_param(ops, ulong, 0444);
MODULE_PARM_DESC(ops, "bit mask of the operations to run (bit n: enum tt_op n)");

static int stall_timeout = 300;
module_param(stall_timeout, int, 0444);
MODULE_PARM_DESC(stall_timeout, "seconds one operation may take before it counts as stalled");

/* The operations a torture thread picks from. */
enum tt_op {
	TT_SPAWN,	/* a batch of ws_spawn(), one wait */
	TT_NESTED,	/* a tree of tasks, each spawning and waiting */
	TT_DAG,		/* a random DAG, sometimes with a failing task */
	TT_CANCEL,	/* ws_group_cancel() while tasks are queued */
	TT_FAIL,	/* ws_task_fail(), with and without cancel-on-error */
	TT_BYPASS,	/* a chain of tasks each returning the next */
	TT_ENQUEUE,	/* ws_enqueue() */
	TT_FIFO,	/* ws_enqueue() on a one-worker pool: order checked */
	TT_SPAWN_ON,	/* ws_spawn_on() any CPU number, online or not */
	TT_PFOR,	/* ws_parallel_for(), sometimes nested */
	TT_REDUCE,	/* ws_parallel_reduce() */
	TT_ISOLATE,	/* another operation inside ws_isolate() */
	TT_EXECUTE,	/* another operation inside ws_pool_execute() */
	TT_POOL,	/* create a pool, use it, destroy it */
	TT_INVOKE,	/* a tree of ws_parallel_invoke() calls */
	TT_PROMOTE,	/* a first call that spins, the others idle */
	TT_CTX_INVOKE,	/* a tree of ws_ctx_invoke() calls */
	TT_BLOCK,	/* a task sleeps on what its latent child does */
	TT_NR_OPS
};

static const char * const tt_op_name[TT_NR_OPS] = {
	[TT_SPAWN] = "spawn",		[TT_NESTED] = "nested",
	[TT_DAG] = "dag",		[TT_CANCEL] = "cancel",
	[TT_FAIL] = "fail",		[TT_BYPASS] = "bypass",
	[TT_ENQUEUE] = "enqueue",	[TT_FIFO] = "fifo",
	[TT_SPAWN_ON] = "spawn_on",	[TT_PFOR] = "pfor",
	[TT_REDUCE] = "reduce",		[TT_ISOLATE] = "isolate",
	[TT_EXECUTE] = "execute",	[TT_POOL] = "pool",
	[TT_INVOKE] = "invoke",		[TT_PROMOTE] = "promote",
	[TT_CTX_INVOKE] = "ctx_invoke",	[TT_BLOCK] = "block",
};

/* Statistics, read by the statistics thread and at the end. */
static atomic_long_t tt_ops[TT_NR_OPS];
static atomic_long_t tt_spawned;	/* tasks armed and handed to wsched */
static atomic_long_t tt_executed;	/* task functions started */
static atomic_long_t tt_cancelled;	/* cancel hooks run */
static atomic_long_t tt_indices;	/* loop indices run */
static atomic_long_t tt_invoked;	/* ws_parallel_invoke(), ws_ctx_invoke() calls run */
static atomic_long_t tt_offline, tt_offline_err;
static atomic_long_t tt_online, tt_online_err;
static atomic_long_t tt_pools;		/* pools created and destroyed */
static atomic_long_t tt_nomem;		/* refused allocations (tolerated) */
static atomic_long_t tt_mail_hits;	/* ws_spawn_on() tasks run on the CPU */
static atomic_long_t tt_promoted;	/* TT_PROMOTE: second calls started */
static atomic_long_t tt_promote_ns;	/* their total latency */
static atomic_long_t tt_promote_max_ns;	/* the largest one */
static atomic_long_t tt_promote_skipped;	/* hotplug, heartbeat off */
static atomic_long_t tt_hp_seq;		/* odd during a CPU hotplug change */
static atomic_t tt_failures;

/* How many failures are described in the log; all are counted. */
#define TT_MAX_REPORTS	20

#define tt_fail(fmt, ...)						\
	do {								\
		if (atomic_inc_return(&tt_failures) <= TT_MAX_REPORTS)	\
			pr_err("FAILURE: " fmt "\n", ##__VA_ARGS__);	\
	} while (0)

/* Task states, moved only by cmpxchg (tt_mark()). */
enum {
	TT_FREE,	/* set up, not (yet) spawned */
	TT_SPAWNED,	/* handed to wsched */
	TT_RAN,		/* its function started */
	TT_CANCELLED,	/* its cancel hook ran */
};

#define TT_MAX_PREDS	3

struct tt_run;

/**
 * struct tt_task - a task with its own identity and state
 * @task: the wsched task
 * @run: the operation it belongs to
 * @state: TT_FREE, TT_SPAWNED, TT_RAN or TT_CANCELLED
 * @idx: its index in @run
 * @seq: when it started within @run (1 for the first), written by itself
 * @done: set by the task as the last thing it does; a wait that returns
 *	before it is set returned too early
 * @hint: the CPU of ws_spawn_on(), or -1
 * @nr_preds: number of predecessors in @preds
 * @preds: indices of its predecessors in @run
 */
struct tt_task {
	struct ws_task task;
	struct tt_run *run;
	atomic_t state;
	unsigned int idx;
	unsigned int seq;
	int done;
	int hint;
	unsigned int nr_preds;
	unsigned int preds[TT_MAX_PREDS];
};

/**
 * struct tt_run - one operation's tasks and parameters
 * @op: the operation
 * @pool: the pool its groups use
 * @group: its top-level group
 * @tasks: its tasks
 * @nr: number of @tasks
 * @seq: start counter of @tasks
 * @fanout: children per task (TT_NESTED)
 * @fail_idx: the task that fails (TT_FAIL, TT_DAG), or @nr for none
 * @cancel_from: tasks from this index on are spawned after the group is
 *	cancelled (TT_CANCEL), or @nr
 * @delay_us: how long each task busy-waits, to keep work in flight
 * @cancel_on_error: @group has %WS_GROUP_CANCEL_ON_ERROR
 */
struct tt_run {
	enum tt_op op;
	struct ws_pool *pool;
	struct ws_group group;
	struct tt_task *tasks;
	unsigned int nr;
	atomic_t seq;
	unsigned int fanout;
	unsigned int fail_idx;
	unsigned int cancel_from;
	unsigned int delay_us;
	bool cancel_on_error;
};

/**
 * struct tt_thread - a torture thread
 * @task: its kthread
 * @id: its number
 * @rnd: its random state
 * @op: the operation it is in (for stall reports)
 * @since: jiffies when it started that operation
 * @stalled: a stall was reported for the current operation
 */
struct tt_thread {
	struct task_struct *task;
	unsigned int id;
	struct rnd_state rnd;
	int op;
	unsigned long since;
	bool stalled;
};

static struct tt_thread *tt_threads;
static int tt_nr_threads;
static struct task_struct *tt_stats_task;
static struct task_struct *tt_hotplug_task;

/* Long-lived pools besides ws_system_pool. */
static struct ws_pool *tt_pool;		/* joinable, like the system pool */
static struct ws_pool *tt_attrs_pool;	/* two workers, nice 5 */
static struct ws_pool *tt_promote_pool;	/* two workers, for TT_PROMOTE */
/* TT_PROMOTE holds it for writing, every other operation for reading. */
static DECLARE_RWSEM(tt_excl);
static struct ws_pool *tt_fifo_pool;	/* one worker: FIFO order visible */

/* Set when the torture threads are to finish their operation and stop. */
static bool tt_stopping;
static atomic_t tt_running;		/* torture threads still running */
static DECLARE_WAIT_QUEUE_HEAD(tt_end_wq);
static bool tt_hotplug_done;
static atomic_t tt_reported;		/* the end line was printed */
static unsigned long tt_start;

/* CPUs the hotplug thread may take down (online at start, not CPU 0). */
static cpumask_var_t tt_hp_mask;
/* CPUs it took down and has not brought back. */
static cpumask_var_t tt_hp_down;

static bool tt_should_stop(void)
{
	/* Set once by the end of test or module exit; a stale read costs a round. */
	return READ_ONCE(tt_stopping) || kthread_should_stop();
}

static u32 tt_rand(struct rnd_state *rnd, u32 n)
{
	return n ? prandom_u32_state(rnd) % n : 0;
}

/* ---- task accounting ---- */

static const char *tt_state_name(int state)
{
	switch (state) {
	case TT_FREE: return "never spawned";
	case TT_SPAWNED: return "spawned";
	case TT_RAN: return "already run";
	case TT_CANCELLED: return "already cancelled";
	}
	return "corrupt";
}

/* Hand @t to wsched: from here on exactly one of its fn or hook runs. */
static void tt_arm(struct tt_task *t)
{
	/*
	 * Plain store: the spawn that follows publishes it to whichever
	 * thread takes the task (that publication is what is under test).
	 */
	atomic_set(&t->state, TT_SPAWNED);
	atomic_long_inc(&tt_spawned);
}

/* A task starts (@to TT_RAN) or is cancelled (TT_CANCELLED). */
static void tt_mark(struct tt_task *t, int to)
{
	int old = atomic_cmpxchg(&t->state, TT_SPAWNED, to);

	if (old != TT_SPAWNED) {
		tt_fail("%s task %u: %s but %s", tt_op_name[t->run->op], t->idx,
			to == TT_RAN ? "runs" : "is cancelled",
			tt_state_name(old));
		return;
	}
	atomic_long_inc(to == TT_RAN ? &tt_executed : &tt_cancelled);
	t->seq = atomic_inc_return(&t->run->seq);
}

/* Every predecessor of @t has finished (run or cancelled). */
static void tt_check_preds(struct tt_task *t)
{
	unsigned int i;

	for (i = 0; i < t->nr_preds; i++) {
		struct tt_task *p = &t->run->tasks[t->preds[i]];
		int state = atomic_read(&p->state);

		/*
		 * No barrier of our own: wsched orders a predecessor's
		 * completion before its successor starts, and that is what
		 * is being checked.
		 */
		if ((state != TT_RAN && state != TT_CANCELLED) ||
		    !READ_ONCE(p->done) || p->seq >= t->seq)
			tt_fail("dag task %u before pred %u ended (%s, done %d, seq %u >= %u)",
				t->idx, p->idx, tt_state_name(state),
				READ_ONCE(p->done), p->seq, t->seq);
	}
}

static void tt_finish(struct tt_task *t)
{
	/* Read by tt_check_preds() and tt_check_run(), ordered by wsched. */
	WRITE_ONCE(t->done, 1);
}

static void tt_cancel_fn(struct ws_task *task)
{
	struct tt_task *t = container_of(task, struct tt_task, task);

	tt_mark(t, TT_CANCELLED);
	tt_check_preds(t);
	tt_finish(t);
}

static void tt_spawn_children(struct tt_task *t);

static struct ws_task *tt_task_fn(struct ws_task *task)
{
	struct tt_task *t = container_of(task, struct tt_task, task);
	struct tt_run *run = t->run;
	struct ws_task *next = NULL;

	tt_mark(t, TT_RAN);
	tt_check_preds(t);
	if (run->delay_us)
		udelay(run->delay_us);
	switch (run->op) {
	case TT_NESTED:
		tt_spawn_children(t);
		break;
	case TT_DAG:
	case TT_FAIL:
		if (t->idx == run->fail_idx)
			ws_task_fail(task, -EIO);
		break;
	case TT_BYPASS:
		/* The returned task joins our group, counted as spawned. */
		if (t->idx + 1 < run->nr) {
			tt_arm(&run->tasks[t->idx + 1]);
			next = &run->tasks[t->idx + 1].task;
		}
		break;
	case TT_FIFO:
		/* One worker, no waits: start order is enqueue order. */
		if (t->seq != t->idx + 1)
			tt_fail("fifo task %u started %u-th", t->idx, t->seq);
		break;
	case TT_SPAWN_ON:
		if (t->hint == (int)raw_smp_processor_id())
			atomic_long_inc(&tt_mail_hits);
		break;
	default:
		break;
	}
	tt_finish(t);
	return next;
}

static struct tt_run *tt_run_alloc(enum tt_op op, struct ws_pool *pool,
				   unsigned int nr)
{
	struct tt_run *run;
	unsigned int i;

	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		goto nomem;
	run->tasks = kvcalloc(max(nr, 1U), sizeof(*run->tasks), GFP_KERNEL);
	if (!run->tasks) {
		kfree(run);
		goto nomem;
	}
	run->op = op;
	run->pool = pool;
	run->nr = nr;
	run->fail_idx = nr;
	run->cancel_from = nr;
	atomic_set(&run->seq, 0);
	for (i = 0; i < nr; i++) {
		struct tt_task *t = &run->tasks[i];

		ws_task_init(&t->task, tt_task_fn);
		ws_task_set_cancel(&t->task, tt_cancel_fn);
		t->run = run;
		t->idx = i;
		t->hint = -1;
		atomic_set(&t->state, TT_FREE);
	}
	return run;
nomem:
	atomic_long_inc(&tt_nomem);
	return NULL;
}

static void tt_run_free(struct tt_run *run)
{
	kvfree(run->tasks);
	kfree(run);
}

/*
 * After the wait: every spawned task ran or was cancelled, exactly once,
 * and finished.  Returns how many were cancelled.
 */
static unsigned int tt_check_run(struct tt_run *run, bool all_spawned)
{
	unsigned int i, cancelled = 0;

	for (i = 0; i < run->nr; i++) {
		struct tt_task *t = &run->tasks[i];
		int state = atomic_read(&t->state);

		if (state == TT_CANCELLED)
			cancelled++;
		if (state == TT_FREE && !all_spawned)
			continue;
		if ((state != TT_RAN && state != TT_CANCELLED) ||
		    !READ_ONCE(t->done))
			tt_fail("%s task %u of %u lost: %s, done %d after the wait",
				tt_op_name[run->op], i, run->nr,
				tt_state_name(state), READ_ONCE(t->done));
	}
	return cancelled;
}

static void tt_check_ret(struct tt_run *run, int ret, int want)
{
	if (ret != want)
		tt_fail("%s: the wait returned %d, expected %d",
			tt_op_name[run->op], ret, want);
}

/* Spawn @t into @group by one of the three ways of queueing a task. */
static void tt_submit(struct ws_group *group, struct tt_task *t, u32 how)
{
	tt_arm(t);
	switch (how % 4) {
	case 0:
		ws_enqueue(group, &t->task);
		break;
	case 1:
		t->hint = (how >> 2) % nr_cpu_ids;
		ws_spawn_on(group, &t->task, t->hint);
		break;
	default:
		ws_spawn(group, &t->task);
		break;
	}
}

/* TT_NESTED: the tasks form a tree, task i's children are i*f+1.. i*f+f. */
static void tt_spawn_children(struct tt_task *t)
{
	struct tt_run *run = t->run;
	unsigned int first = t->idx * run->fanout + 1, i;
	struct ws_group group;
	int ret;

	if (first >= run->nr)
		return;
	ws_group_init(&group, run->pool);
	for (i = first; i < first + run->fanout && i < run->nr; i++)
		tt_submit(&group, &run->tasks[i], i * 2654435761U);
	ret = (t->idx & 1) ? ws_group_wait_killable(&group) :
			     ws_group_wait(&group);
	if (ret)
		tt_fail("nested task %u: its wait returned %d", t->idx, ret);
	for (i = first; i < first + run->fanout && i < run->nr; i++)
		if (!READ_ONCE(run->tasks[i].done))
			tt_fail("nested task %u: child %u not finished after the wait",
				t->idx, i);
}

/* ---- operations ---- */

struct tt_ctx {
	struct tt_thread *thr;
	struct ws_pool *pool;
	enum tt_op op;
};

static void tt_do(struct tt_thread *thr, enum tt_op op, struct ws_pool *pool);

/* A batch spawned one way or a mix of ways, one wait. */
static void tt_batch(struct tt_thread *thr, enum tt_op op,
		     struct ws_pool *pool)
{
	struct rnd_state *rnd = &thr->rnd;
	struct tt_run *run = tt_run_alloc(op, pool, 1 + tt_rand(rnd, 96));
	unsigned int i;
	int want = 0;

	if (!run)
		return;
	run->delay_us = tt_rand(rnd, 4) ? 0 : tt_rand(rnd, 20);
	switch (op) {
	case TT_FAIL:
		run->fail_idx = tt_rand(rnd, run->nr);
		want = -EIO;
		run->cancel_on_error = tt_rand(rnd, 2);
		ws_group_init_flags(&run->group, pool, run->cancel_on_error ?
				    WS_GROUP_CANCEL_ON_ERROR : 0);
		break;
	case TT_CANCEL:
		run->cancel_from = tt_rand(rnd, run->nr + 1);
		want = -ECANCELED;
		ws_group_init(&run->group, pool);
		break;
	default:
		ws_group_init(&run->group, pool);
		break;
	}
	for (i = 0; i < run->nr; i++) {
		struct tt_task *t = &run->tasks[i];
		u32 how = prandom_u32_state(rnd);

		if (i == run->cancel_from)
			ws_group_cancel(&run->group);
		switch (op) {
		case TT_SPAWN:
			tt_arm(t);
			ws_spawn(&run->group, &t->task);
			break;
		case TT_ENQUEUE:
		case TT_FIFO:
			tt_arm(t);
			ws_enqueue(&run->group, &t->task);
			break;
		case TT_SPAWN_ON:
			tt_arm(t);
			/* Any CPU number: offline, not possible, negative. */
			t->hint = (int)tt_rand(rnd, nr_cpu_ids + 2) - 1;
			ws_spawn_on(&run->group, &t->task, t->hint);
			break;
		default:
			tt_submit(&run->group, t, how);
			break;
		}
	}
	if (op == TT_CANCEL && run->cancel_from == run->nr)
		ws_group_cancel(&run->group);
	tt_check_ret(run, ws_group_wait(&run->group), want);
	tt_check_run(run, true);
	/* Spawned after the cancel: none may run. */
	for (i = run->cancel_from; i < run->nr; i++)
		if (atomic_read(&run->tasks[i].state) != TT_CANCELLED)
			tt_fail("cancel: task %u spawned after ws_group_cancel() ran",
				i);
	/* Without cancel-on-error, a failure cancels nothing. */
	if (op == TT_FAIL && !run->cancel_on_error)
		for (i = 0; i < run->nr; i++)
			if (atomic_read(&run->tasks[i].state) != TT_RAN)
				tt_fail("fail: task %u not run in a group without cancel-on-error",
					i);
	tt_run_free(run);
}

static void tt_nested(struct tt_thread *thr, struct ws_pool *pool)
{
	struct rnd_state *rnd = &thr->rnd;
	unsigned int fanout = 2 + tt_rand(rnd, 3);
	unsigned int depth = 1 + tt_rand(rnd, 4), nr = 1, level = 1, i;
	struct tt_run *run;

	for (i = 0; i < depth; i++) {
		level *= fanout;
		nr += level;
	}
	nr = min(nr, 200U);
	run = tt_run_alloc(TT_NESTED, pool, nr);
	if (!run)
		return;
	run->fanout = fanout;
	ws_group_init(&run->group, pool);
	tt_submit(&run->group, &run->tasks[0], prandom_u32_state(rnd));
	tt_check_ret(run, ws_group_wait(&run->group), 0);
	if (tt_check_run(run, true))
		tt_fail("nested: tasks cancelled in a group never cancelled");
	tt_run_free(run);
}

static void tt_dag(struct tt_thread *thr, struct ws_pool *pool)
{
	struct rnd_state *rnd = &thr->rnd;
	struct tt_run *run = tt_run_alloc(TT_DAG, pool, 2 + tt_rand(rnd, 63));
	unsigned int *order, i, j;
	int want = 0;

	if (!run)
		return;
	order = kmalloc_array(run->nr, sizeof(*order), GFP_KERNEL);
	if (!order) {
		atomic_long_inc(&tt_nomem);
		tt_run_free(run);
		return;
	}
	if (tt_rand(rnd, 3) == 0) {
		run->fail_idx = tt_rand(rnd, run->nr);
		want = -EIO;
	}
	ws_group_init_flags(&run->group, pool, WS_GROUP_CANCEL_ON_ERROR);
	for (i = 1; i < run->nr; i++) {
		struct tt_task *t = &run->tasks[i];
		unsigned int want_preds = tt_rand(rnd, TT_MAX_PREDS + 1);

		for (j = 0; j < want_preds; j++) {
			unsigned int p = tt_rand(rnd, i);

			if (ws_task_precede(&run->tasks[p].task, &t->task,
					    GFP_KERNEL)) {
				atomic_long_inc(&tt_nomem);
				continue;
			}
			t->preds[t->nr_preds++] = p;
		}
	}
	/* Spawn in a random order: successors may be queued first. */
	for (i = 0; i < run->nr; i++)
		order[i] = i;
	for (i = run->nr - 1; i > 0; i--) {
		/* swap() evaluates its arguments twice: pick j once. */
		j = tt_rand(rnd, i + 1);
		swap(order[i], order[j]);
	}
	for (i = 0; i < run->nr; i++)
		tt_submit(&run->group, &run->tasks[order[i]],
			  prandom_u32_state(rnd));
	tt_check_ret(run, ws_group_wait(&run->group), want);
	if (tt_check_run(run, true) && want == 0)
		tt_fail("dag: tasks cancelled in a group where none failed");
	kfree(order);
	tt_run_free(run);
}

static void tt_bypass(struct tt_thread *thr, struct ws_pool *pool)
{
	struct tt_run *run = tt_run_alloc(TT_BYPASS, pool,
					  1 + tt_rand(&thr->rnd, 64));
	unsigned int i;

	if (!run)
		return;
	ws_group_init(&run->group, pool);
	tt_arm(&run->tasks[0]);
	ws_spawn(&run->group, &run->tasks[0].task);
	tt_check_ret(run, ws_group_wait(&run->group), 0);
	tt_check_run(run, true);
	/* A chain: each task started after the one that returned it. */
	for (i = 0; i < run->nr; i++)
		if (run->tasks[i].seq != i + 1)
			tt_fail("bypass: task %u started %u-th", i,
				run->tasks[i].seq);
	tt_run_free(run);
}

/* ---- parallel loops ---- */

struct tt_loop {
	unsigned long begin, end, grain;
	atomic_t *hits;
	struct ws_pool *pool;
	bool nest;
};

static void tt_inner_body(unsigned long b, unsigned long e, void *arg)
{
	atomic_t *hits = arg;

	for (; b < e; b++)
		atomic_inc(&hits[b]);
}

/*
 * The body sees whole grains from the start of the range; count the
 * chunk's indices if it is one.
 */
static void tt_count(struct tt_loop *l, unsigned long b, unsigned long e)
{
	if (b < l->begin || e > l->end || b >= e ||
	    (b - l->begin) % l->grain || e != min(b + l->grain, l->end)) {
		tt_fail("loop [%lu, %lu) grain %lu: chunk [%lu, %lu)",
			l->begin, l->end, l->grain, b, e);
		return;
	}
	atomic_long_add(e - b, &tt_indices);
	for (; b < e; b++)
		atomic_inc(&l->hits[b - l->begin]);
}

/* A loop inside a loop body: its own eight indices, each once. */
static void tt_nest(struct tt_loop *l)
{
	atomic_t hits[8];
	int i, ret;

	for (i = 0; i < ARRAY_SIZE(hits); i++)
		atomic_set(&hits[i], 0);
	ret = ws_parallel_for(l->pool, 0, ARRAY_SIZE(hits), 1,
			      tt_inner_body, hits);
	if (ret)
		tt_fail("nested loop returned %d", ret);
	for (i = 0; i < ARRAY_SIZE(hits); i++)
		if (atomic_read(&hits[i]) != 1)
			tt_fail("nested loop: index %d run %d times", i,
				atomic_read(&hits[i]));
}

static void tt_pfor_body(unsigned long b, unsigned long e, void *arg)
{
	struct tt_loop *l = arg;

	tt_count(l, b, e);
	if (l->nest && b == l->begin)
		tt_nest(l);
}

/* A reduction's value: the range it covers, begin << 32 | end. */
#define TT_RANGE(b, e)	((u64)(b) << 32 | (u32)(e))
#define TT_EMPTY	U64_MAX

static u64 tt_reduce_body(unsigned long b, unsigned long e, void *arg)
{
	struct tt_loop *l = arg;

	tt_count(l, b, e);
	return TT_RANGE(b, e);
}

static u64 tt_reduce_combine(u64 left, u64 right, unsigned long rb,
			     unsigned long re, void *arg)
{
	/* Index order: left ends where right begins. */
	if ((u32)left != rb || right != TT_RANGE(rb, re))
		tt_fail("combine of %#llx and %#llx for [%lu, %lu)",
			left, right, rb, re);
	return TT_RANGE(left >> 32, re);
}

static const struct ws_reduce_ops tt_reduce_ops = {
	.body = tt_reduce_body,
	.combine = tt_reduce_combine,
	.identity = TT_EMPTY,
};

static void tt_loop(struct tt_thread *thr, enum tt_op op,
		    struct ws_pool *pool)
{
	struct rnd_state *rnd = &thr->rnd;
	struct tt_loop l = { .pool = pool };
	unsigned long len, i;
	u64 value = 0;
	int ret;

	l.begin = tt_rand(rnd, 1000);
	len = tt_rand(rnd, 8) ? tt_rand(rnd, 4096) : tt_rand(rnd, 3);
	l.end = l.begin + len;
	l.grain = tt_rand(rnd, 4) ? 1 + tt_rand(rnd, 128) : 1;
	l.nest = op == TT_PFOR && !tt_rand(rnd, 4);
	l.hits = kvcalloc(max(len, 1UL), sizeof(*l.hits), GFP_KERNEL);
	if (!l.hits) {
		atomic_long_inc(&tt_nomem);
		return;
	}
	/* Grain 0 means 1; pass 0 now and then. */
	if (op == TT_PFOR) {
		ret = ws_parallel_for(pool, l.begin, l.end,
				      l.grain == 1 && tt_rand(rnd, 2) ? 0 : l.grain,
				      tt_pfor_body, &l);
	} else {
		ret = ws_parallel_reduce(pool, l.begin, l.end, l.grain,
					 &tt_reduce_ops, &l, &value);
		if (!ret && value != (len ? TT_RANGE(l.begin, l.end) : TT_EMPTY))
			tt_fail("reduce [%lu, %lu) grain %lu: value %#llx",
				l.begin, l.end, l.grain, value);
	}
	if (ret)
		tt_fail("%s [%lu, %lu) grain %lu returned %d", tt_op_name[op],
			l.begin, l.end, l.grain, ret);
	for (i = 0; i < len; i++)
		if (atomic_read(&l.hits[i]) != 1) {
			tt_fail("%s [%lu, %lu) grain %lu: index %lu run %d times",
				tt_op_name[op], l.begin, l.end, l.grain,
				l.begin + i, atomic_read(&l.hits[i]));
			break;
		}
	kvfree(l.hits);
}

/* ---- a tree of ws_parallel_invoke() calls ---- */

#define TT_INVOKE_MAX_DEPTH	9

struct tt_inv;

/**
 * struct tt_inv_node - a node of a complete binary tree of calls
 * @tree: the tree
 * @runs: how many times the node's function started
 * @done: set by the node as the last thing it does
 */
struct tt_inv_node {
	struct tt_inv *tree;
	atomic_t runs;
	int done;
};

/**
 * struct tt_inv - one TT_INVOKE operation
 * @pool: the pool of its calls
 * @nodes: the nodes, in heap order (the children of k are 2k+1, 2k+2)
 * @nr: number of @nodes
 * @delay_us: how long a leaf busy-waits, to keep calls in flight
 */
struct tt_inv {
	struct ws_pool *pool;
	struct tt_inv_node *nodes;
	unsigned int nr;
	unsigned int delay_us;
};

static void tt_inv_fn(void *arg)
{
	struct tt_inv_node *node = arg;
	struct tt_inv *tree = node->tree;
	unsigned int k = node - tree->nodes, a = 2 * k + 1, b = a + 1;

	if (atomic_inc_return(&node->runs) != 1)
		tt_fail("invoke: node %u run twice", k);
	atomic_long_inc(&tt_invoked);
	if (b < tree->nr) {
		bool left_done, right_done;

		ws_parallel_invoke(tree->pool, tt_inv_fn, &tree->nodes[a],
				   tt_inv_fn, &tree->nodes[b]);
		/* Pairs with smp_store_release() of done by the child. */
		left_done = smp_load_acquire(&tree->nodes[a].done);
		/* As above. */
		right_done = smp_load_acquire(&tree->nodes[b].done);
		if (!left_done || !right_done)
			tt_fail("invoke: node %u returned before its calls finished",
				k);
	} else if (tree->delay_us) {
		udelay(tree->delay_us);
	}
	/* Pairs with smp_load_acquire() in the parent and tt_invoke(). */
	smp_store_release(&node->done, 1);
}

/* tt_inv_fn() with the explicit context (TT_CTX_INVOKE). */
static void tt_ctx_fn(struct ws_ctx *ctx, void *arg)
{
	struct tt_inv_node *node = arg;
	struct tt_inv *tree = node->tree;
	unsigned int k = node - tree->nodes, a = 2 * k + 1, b = a + 1;

	if (atomic_inc_return(&node->runs) != 1)
		tt_fail("ctx_invoke: node %u run twice", k);
	atomic_long_inc(&tt_invoked);
	if (b < tree->nr) {
		bool left_done, right_done;

		ws_ctx_invoke(ctx, tt_ctx_fn, &tree->nodes[a], tt_ctx_fn,
			      &tree->nodes[b]);
		/* Pairs with smp_store_release() of done by the child. */
		left_done = smp_load_acquire(&tree->nodes[a].done);
		/* As above. */
		right_done = smp_load_acquire(&tree->nodes[b].done);
		if (!left_done || !right_done)
			tt_fail("ctx_invoke: node %u returned before its calls finished",
				k);
	} else if (tree->delay_us) {
		udelay(tree->delay_us);
	}
	/* Pairs with smp_load_acquire() in the parent and tt_invoke(). */
	smp_store_release(&node->done, 1);
}

/*
 * A tree of ws_parallel_invoke() calls, or with @ctx of ws_ctx_invoke()
 * calls under one ws_ctx_run(); every node must run once.
 */
static void tt_invoke(struct tt_thread *thr, struct ws_pool *pool, bool ctx)
{
	struct rnd_state *rnd = &thr->rnd;
	unsigned int depth = 1 + tt_rand(rnd, TT_INVOKE_MAX_DEPTH), i;
	struct tt_inv tree = {
		.pool = pool,
		.nr = (2U << depth) - 1,
		.delay_us = tt_rand(rnd, 3) ? 0 : 1 + tt_rand(rnd, 20),
	};

	tree.nodes = kvcalloc(tree.nr, sizeof(*tree.nodes), GFP_KERNEL);
	if (!tree.nodes) {
		atomic_long_inc(&tt_nomem);
		return;
	}
	for (i = 0; i < tree.nr; i++) {
		tree.nodes[i].tree = &tree;
		atomic_set(&tree.nodes[i].runs, 0);
	}
	if (ctx)
		ws_ctx_run(pool, tt_ctx_fn, &tree.nodes[0]);
	else
		tt_inv_fn(&tree.nodes[0]);
	for (i = 0; i < tree.nr; i++) {
		/* Pairs with smp_store_release() in tt_inv_fn(). */
		if (!smp_load_acquire(&tree.nodes[i].done) ||
		    atomic_read(&tree.nodes[i].runs) != 1)
			tt_fail("invoke: node %u of %u run %d times", i,
				tree.nr, atomic_read(&tree.nodes[i].runs));
	}
	kvfree(tree.nodes);
}

/* ---- a first call that neither calls nor returns, the others idle ---- */

/* How long the first call spins at most, waiting for the second. */
#define TT_PROMOTE_SPIN_MS	5000

/**
 * struct tt_promote - one TT_PROMOTE operation
 * @task: the root, run by a worker of tt_promote_pool
 * @owner: the worker that made the calls
 * @right_thread: the thread that ran the second call
 * @t0: when the first call started (ktime_get_ns())
 * @t1: when the second call started
 * @started: set by the second call
 * @left_done: set by the first call as it returns
 * @met: the second call started before the first returned
 */
struct tt_promote {
	struct ws_task task;
	struct task_struct *owner;
	struct task_struct *right_thread;
	u64 t0;
	u64 t1;
	int started;
	int left_done;
	bool met;
};

static void tt_promote_nop(void *arg)
{
}

static void tt_promote_right(void *arg)
{
	struct tt_promote *pr = arg;

	pr->t1 = ktime_get_ns();
	pr->right_thread = current;
	/* Pairs with smp_store_release() in tt_promote_left(). */
	pr->met = !smp_load_acquire(&pr->left_done);
	/* Pairs with smp_load_acquire() in tt_promote_left(). */
	smp_store_release(&pr->started, 1);
}

/* No call in here: only the heartbeat can promote the second call. */
static void tt_promote_left(void *arg)
{
	struct tt_promote *pr = arg;
	u64 end;

	pr->owner = current;
	pr->t0 = ktime_get_ns();
	end = pr->t0 + TT_PROMOTE_SPIN_MS * NSEC_PER_MSEC;
	/* Pairs with smp_store_release() in tt_promote_right(). */
	while (!smp_load_acquire(&pr->started) && ktime_get_ns() < end)
		cpu_relax();
	/* Pairs with smp_load_acquire() in tt_promote_right(). */
	smp_store_release(&pr->left_done, 1);
}

static void tt_promote_outer(void *arg)
{
	ws_parallel_invoke(tt_promote_pool, tt_promote_left, arg,
			   tt_promote_right, arg);
}

/* The outermost second call may go at once to the idle worker. */
static struct ws_task *tt_promote_fn(struct ws_task *task)
{
	struct tt_promote *pr = container_of(task, struct tt_promote, task);

	ws_parallel_invoke(tt_promote_pool, tt_promote_outer, pr,
			   tt_promote_nop, NULL);
	return NULL;
}

static void tt_promote_max(u64 ns)
{
	long old = atomic_long_read(&tt_promote_max_ns);

	while ((long)ns > old &&
	       !atomic_long_try_cmpxchg(&tt_promote_max_ns, &old, ns))
		;
}

/*
 * Every other torture thread is out of its operation (tt_excl), so the
 * second worker of tt_promote_pool idles: the second call must start on
 * it while the first call spins, within about a heartbeat plus the
 * wake-up.  Not judged across CPU hotplug (the pool's CPUs may go) or
 * with the heartbeat off.
 */
static void tt_promote(struct tt_thread *thr)
{
	struct tt_promote pr = {};
	/*
	 * Not judged if a CPU change was under way or made meanwhile: a
	 * worker of the pool may be stopped, not yet replaced.
	 */
	long hp = atomic_long_read(&tt_hp_seq);
	unsigned int hb = READ_ONCE(ws_heartbeat_us);
	struct ws_group group;
	int ret;

	ws_task_init(&pr.task, tt_promote_fn);
	ws_group_init(&group, tt_promote_pool);
	ws_spawn(&group, &pr.task);
	ret = ws_group_wait(&group);
	if (ret)
		tt_fail("promote: wait returned %d", ret);
	if (ws_pool_nr_workers(tt_promote_pool) < 2 || !hb ||
	    (hp & 1) || hp != atomic_long_read(&tt_hp_seq)) {
		atomic_long_inc(&tt_promote_skipped);
		return;
	}
	if (!pr.met || pr.right_thread == pr.owner) {
		tt_fail("promote: not taken during a %u ms spin (heartbeat %u us)",
			TT_PROMOTE_SPIN_MS, hb);
		return;
	}
	atomic_long_inc(&tt_promoted);
	atomic_long_add(pr.t1 - pr.t0, &tt_promote_ns);
	tt_promote_max(pr.t1 - pr.t0);
}

/* How long a TT_BLOCK spawner sleeps at most on its child. */
#define TT_BLOCK_PATIENCE	(60 * HZ)

/**
 * struct tt_block - one TT_BLOCK operation
 * @task: the spawner, run by a worker
 * @child: spawned by @task into a group it owns, so latent on a CPU
 *	slot; it completes @ran
 * @pool: the pool
 * @ran: what the spawner sleeps on, outside any wait
 * @runs: runs of @child
 * @late: the spawner's sleep timed out
 * @ret: what the spawner's wait for its group returned
 */
struct tt_block {
	struct ws_task task;
	struct ws_task child;
	struct ws_pool *pool;
	struct completion ran;
	atomic_t runs;
	bool late;
	int ret;
};

static struct ws_task *tt_block_child(struct ws_task *task)
{
	struct tt_block *b = container_of(task, struct tt_block, child);

	atomic_inc(&b->runs);
	complete(&b->ran);
	return NULL;
}

/*
 * Spawn a child and sleep, outside any wait, until it has run: only a
 * heartbeat that promotes while the spawner is off its CPU lets it run
 * elsewhere.  That is what this operation judges, so only a spawner in a
 * CPU slot, whose spawn is latent, sleeps.  One in a join slot (the
 * waiting thread, or a compensation thread) spawned eagerly and waits for
 * the child instead, so that a thread that runs tasks always exists: if
 * every thread of the pool slept in this operation, none would be left
 * to run the children, whatever the pool counted.  (A join-slot sleeper
 * beside threads stuck in deep waits gets a compensation thread; KUnit's
 * join_blocked_compensated pins that.)
 */
static struct ws_task *tt_block_fn(struct ws_task *task)
{
	struct tt_block *b = container_of(task, struct tt_block, task);
	struct ws_worker *self = ws_pool_current(b->pool);
	struct ws_group group;

	ws_group_init(&group, b->pool);
	ws_task_init(&b->child, tt_block_child);
	ws_spawn(&group, &b->child);
	if (self && self->latent)
		b->late = !wait_for_completion_timeout(&b->ran,
						       TT_BLOCK_PATIENCE);
	b->ret = ws_group_wait(&group);
	return NULL;
}

/*
 * Pools whose waiting threads join (the system pool, tt_pool): we wait
 * for the spawner in a join slot and steal, so a free thread exists even
 * when every worker sleeps in this operation.  With the heartbeat off
 * nothing promotes a sleeping spawner's child: not run then.
 */
static void tt_block(struct tt_thread *thr, struct ws_pool *pool)
{
	struct tt_block b = {};
	struct ws_group group;
	int ret;

	if (pool == tt_attrs_pool)
		pool = tt_pool;
	b.pool = pool;
	if (!READ_ONCE(ws_heartbeat_us))
		return;
	init_completion(&b.ran);
	atomic_set(&b.runs, 0);
	ws_task_init(&b.task, tt_block_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &b.task);
	ret = ws_group_wait(&group);
	if (ret || b.ret)
		tt_fail("block: waits returned %d, %d", ret, b.ret);
	if (b.late)
		tt_fail("block: child not run while its spawner slept %d s",
			TT_BLOCK_PATIENCE / HZ);
	if (atomic_read(&b.runs) != 1)
		tt_fail("block: child ran %d times", atomic_read(&b.runs));
}

/* ---- operations inside a region ---- */

#define TT_REGION_MAGIC	0x5a17

/* Operations that may run inside ws_isolate() or ws_pool_execute(). */
static const enum tt_op tt_inner_ops[] = {
	TT_SPAWN, TT_NESTED, TT_DAG, TT_CANCEL, TT_FAIL, TT_BYPASS,
	TT_ENQUEUE, TT_SPAWN_ON, TT_PFOR, TT_REDUCE, TT_INVOKE, TT_CTX_INVOKE,
};

static int tt_region_fn(void *arg)
{
	struct tt_ctx *ctx = arg;

	tt_do(ctx->thr, ctx->op, ctx->pool);
	return TT_REGION_MAGIC;
}

static void tt_region(struct tt_thread *thr, enum tt_op op,
		      struct ws_pool *pool)
{
	struct tt_ctx ctx = {
		.thr = thr,
		.pool = pool,
		.op = tt_inner_ops[tt_rand(&thr->rnd, ARRAY_SIZE(tt_inner_ops))],
	};
	int ret;

	if (op == TT_ISOLATE)
		ret = ws_isolate(pool, tt_region_fn, &ctx);
	else
		ret = ws_pool_execute(pool, tt_region_fn, &ctx);
	if (ret != TT_REGION_MAGIC)
		tt_fail("%s returned %d, not the function's %d", tt_op_name[op],
			ret, TT_REGION_MAGIC);
}

/* Create a pool, run a few operations in it, destroy it. */
static void tt_pool_cycle(struct tt_thread *thr)
{
	struct rnd_state *rnd = &thr->rnd;
	struct ws_pool_attrs attrs = {};
	cpumask_var_t mask;
	struct ws_pool *pool;
	char name[16];
	int i, n;

	/*
	 * One temporary pool per thread at a time: the thread's number keeps
	 * the names, and so the debugfs directories, distinct.
	 */
	snprintf(name, sizeof(name), "tt-tmp%u", thr->id);
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		atomic_long_inc(&tt_nomem);
		return;
	}
	switch (tt_rand(rnd, 3)) {
	case 0:
		pool = ws_pool_create(name);
		break;
	case 1:
		attrs.max_workers = 1 + tt_rand(rnd, 3);
		attrs.nice = (int)tt_rand(rnd, 11) - 5;
		pool = ws_pool_create_attrs(name, &attrs);
		break;
	default:
		/* CPU 0 is never taken offline: the pool always has a CPU. */
		cpumask_set_cpu(0, mask);
		cpumask_set_cpu(tt_rand(rnd, nr_cpu_ids), mask);
		attrs.cpumask = mask;
		pool = ws_pool_create_attrs(name, &attrs);
		break;
	}
	if (IS_ERR(pool)) {
		if (PTR_ERR(pool) == -ENOMEM)
			atomic_long_inc(&tt_nomem);
		else
			tt_fail("ws_pool_create: %ld", PTR_ERR(pool));
		free_cpumask_var(mask);
		return;
	}
	n = 1 + tt_rand(rnd, 3);
	for (i = 0; i < n && !tt_should_stop(); i++)
		tt_do(thr, tt_inner_ops[tt_rand(rnd, ARRAY_SIZE(tt_inner_ops))],
		      pool);
	ws_pool_destroy(pool);
	free_cpumask_var(mask);
	atomic_long_inc(&tt_pools);
}

static void tt_do(struct tt_thread *thr, enum tt_op op, struct ws_pool *pool)
{
	switch (op) {
	case TT_NESTED:
		tt_nested(thr, pool);
		break;
	case TT_DAG:
		tt_dag(thr, pool);
		break;
	case TT_BYPASS:
		tt_bypass(thr, pool);
		break;
	case TT_FIFO:
		tt_batch(thr, op, tt_fifo_pool);
		break;
	case TT_PFOR:
	case TT_REDUCE:
		tt_loop(thr, op, pool);
		break;
	case TT_ISOLATE:
	case TT_EXECUTE:
		tt_region(thr, op, pool);
		break;
	case TT_POOL:
		tt_pool_cycle(thr);
		break;
	case TT_INVOKE:
	case TT_CTX_INVOKE:
		tt_invoke(thr, pool, op == TT_CTX_INVOKE);
		break;
	case TT_PROMOTE:
		tt_promote(thr);
		break;
	case TT_BLOCK:
		tt_block(thr, pool);
		break;
	default:
		tt_batch(thr, op, pool);
		break;
	}
	atomic_long_inc(&tt_ops[op]);
}

static int tt_torture_thread(void *arg)
{
	struct tt_thread *thr = arg;
	struct ws_pool *pools[] = { ws_system_pool, tt_pool, tt_attrs_pool };

	while (!tt_should_stop()) {
		enum tt_op op = tt_rand(&thr->rnd, TT_NR_OPS);

		if (!(ops & BIT(op)))
			continue;
		/* Read by the statistics thread to report stalls. */
		WRITE_ONCE(thr->since, jiffies);
		WRITE_ONCE(thr->op, op);
		if (op == TT_PROMOTE)
			down_write(&tt_excl);
		else
			down_read(&tt_excl);
		tt_do(thr, op, pools[tt_rand(&thr->rnd, ARRAY_SIZE(pools))]);
		if (op == TT_PROMOTE)
			up_write(&tt_excl);
		else
			up_read(&tt_excl);
		WRITE_ONCE(thr->op, -1);
		cond_resched();
	}
	if (atomic_dec_and_test(&tt_running))
		wake_up(&tt_end_wq);
	/* Wait for kthread_stop() from module exit. */
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ);
	return 0;
}

/* ---- CPU hotplug ---- */

static void tt_hotplug_restore(void)
{
	unsigned int cpu, tries;
	int ret;

	for_each_cpu(cpu, tt_hp_down) {
		for (tries = 0; tries < 10; tries++) {
			ret = add_cpu(cpu);
			if (!ret || cpu_online(cpu))
				break;
			msleep(100);
		}
		if (cpu_online(cpu)) {
			cpumask_clear_cpu(cpu, tt_hp_down);
			atomic_long_inc(&tt_online);
		} else {
			tt_fail("CPU %u cannot be brought back online: %d", cpu,
				ret);
		}
	}
}

static int tt_hotplug_thread(void *arg)
{
	struct rnd_state rnd;
	unsigned int nr = cpumask_weight(tt_hp_mask);

	prandom_seed_state(&rnd, seed ^ 0x484f54504c5547ULL);
	while (!tt_should_stop()) {
		unsigned int cpu;
		int ret;

		/* Between half and one and a half times the interval. */
		schedule_timeout_idle(msecs_to_jiffies(hotplug_interval / 2 +
						       tt_rand(&rnd, hotplug_interval + 1)));
		if (tt_should_stop())
			break;
		cpu = cpumask_nth(tt_rand(&rnd, nr), tt_hp_mask);
		if (cpu >= nr_cpu_ids)
			continue;
		/* Odd while a change is under way (TT_PROMOTE reads it). */
		atomic_long_inc(&tt_hp_seq);
		if (cpu_online(cpu)) {
			ret = remove_cpu(cpu);
			if (!ret) {
				cpumask_set_cpu(cpu, tt_hp_down);
				atomic_long_inc(&tt_offline);
			} else {
				atomic_long_inc(&tt_offline_err);
			}
		} else {
			ret = add_cpu(cpu);
			if (!ret) {
				cpumask_clear_cpu(cpu, tt_hp_down);
				atomic_long_inc(&tt_online);
			} else {
				atomic_long_inc(&tt_online_err);
			}
		}
		atomic_long_inc(&tt_hp_seq);
	}
	tt_hotplug_restore();
	/* Read by the end of test after the wake-up. */
	WRITE_ONCE(tt_hotplug_done, true);
	wake_up(&tt_end_wq);
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ);
	return 0;
}

/* ---- statistics and the end of test ---- */

static void tt_print_stats(const char *what)
{
	char buf[320];
	int len = 0, i;
	long n;

	for (i = 0; i < TT_NR_OPS; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, " %s=%ld",
				 tt_op_name[i], atomic_long_read(&tt_ops[i]));
	pr_info("%s: ops:%s\n", what, buf);
	pr_info("%s: spawned=%ld executed=%ld cancelled=%ld indices=%ld invoked=%ld pools=%ld mail_hits=%ld nomem=%ld hotplug: offline=%ld/%ld online=%ld/%ld failures=%d\n",
		what, atomic_long_read(&tt_spawned),
		atomic_long_read(&tt_executed), atomic_long_read(&tt_cancelled),
		atomic_long_read(&tt_indices), atomic_long_read(&tt_invoked),
		atomic_long_read(&tt_pools),
		atomic_long_read(&tt_mail_hits), atomic_long_read(&tt_nomem),
		atomic_long_read(&tt_offline),
		atomic_long_read(&tt_offline) + atomic_long_read(&tt_offline_err),
		atomic_long_read(&tt_online),
		atomic_long_read(&tt_online) + atomic_long_read(&tt_online_err),
		atomic_read(&tt_failures));
	n = atomic_long_read(&tt_promoted);
	pr_info("%s: promote: n=%ld mean_us=%lld max_us=%lld skipped=%ld heartbeat_us=%u\n",
		what, n,
		n ? div64_s64(atomic_long_read(&tt_promote_ns), n * 1000) : 0,
		div64_s64(atomic_long_read(&tt_promote_max_ns), 1000),
		atomic_long_read(&tt_promote_skipped),
		READ_ONCE(ws_heartbeat_us));
}

static void tt_check_stalls(void)
{
	unsigned long now = jiffies;
	int i;

	for (i = 0; i < tt_nr_threads; i++) {
		struct tt_thread *thr = &tt_threads[i];
		int op = READ_ONCE(thr->op);

		if (op < 0 || thr->stalled ||
		    time_before(now, READ_ONCE(thr->since) +
				(unsigned long)stall_timeout * HZ))
			continue;
		thr->stalled = true;
		tt_fail("thread %d stalled in %s for more than %d s", i,
			tt_op_name[op], stall_timeout);
	}
}

/* Threads that have been in one operation for two intervals or more. */
static void tt_print_busy(void)
{
	unsigned long now = jiffies;
	int i;

	for (i = 0; i < tt_nr_threads; i++) {
		struct tt_thread *thr = &tt_threads[i];
		int op = READ_ONCE(thr->op);
		unsigned long since = READ_ONCE(thr->since);

		if (op >= 0 && time_after(now, since + 2UL * stat_interval * HZ))
			pr_info("stats: thread %d in %s for %u s\n", i,
				tt_op_name[op], jiffies_to_msecs(now - since) / 1000);
	}
}

/* The last word: counts and SUCCESS or FAILURE, printed once. */
static void tt_report_end(bool early)
{
	long spawned = atomic_long_read(&tt_spawned);
	long executed = atomic_long_read(&tt_executed);
	long cancelled = atomic_long_read(&tt_cancelled);
	long ops = 0;
	int i;

	if (atomic_xchg(&tt_reported, 1))
		return;
	if (spawned != executed + cancelled)
		tt_fail("spawned %ld != executed %ld + cancelled %ld",
			spawned, executed, cancelled);
	if (!tt_hotplug_task && hotplug_interval)
		tt_fail("no hotplug thread");
	for (i = 0; i < TT_NR_OPS; i++)
		ops += atomic_long_read(&tt_ops[i]);
	tt_print_stats("final");
	pr_info("end of test: %s: duration=%u s%s threads=%d hotplug_interval=%d seed=%lu ops=%ld spawned=%ld executed=%ld cancelled=%ld indices=%ld hotplug=%ld offline/%ld online failures=%d\n",
		atomic_read(&tt_failures) ? "FAILURE" : "SUCCESS",
		jiffies_to_msecs(jiffies - tt_start) / 1000,
		early ? " (stopped early)" : "", tt_nr_threads,
		hotplug_interval, seed, ops, spawned, executed, cancelled,
		atomic_long_read(&tt_indices), atomic_long_read(&tt_offline),
		atomic_long_read(&tt_online), atomic_read(&tt_failures));
}

/* Stop the torture and hotplug threads' loops and wait for them. */
static bool tt_wind_down(long timeout)
{
	WRITE_ONCE(tt_stopping, true);
	if (tt_hotplug_task)
		wake_up_process(tt_hotplug_task);
	return wait_event_timeout(tt_end_wq, !atomic_read(&tt_running) &&
				  (!tt_hotplug_task ||
				   READ_ONCE(tt_hotplug_done)), timeout);
}

static int tt_stats_thread(void *arg)
{
	unsigned long end = tt_start + (unsigned long)duration * HZ;
	unsigned long next = jiffies + (unsigned long)stat_interval * HZ;

	while (!kthread_should_stop()) {
		schedule_timeout_idle(HZ);
		tt_check_stalls();
		if (stat_interval > 0 && time_after_eq(jiffies, next)) {
			tt_print_stats("stats");
			tt_print_busy();
			next = jiffies + (unsigned long)stat_interval * HZ;
		}
		if (duration > 0 && time_after_eq(jiffies, end))
			break;
	}
	if (!kthread_should_stop()) {
		/* Operations finish what they started: give them time. */
		while (!tt_wind_down(HZ) && !kthread_should_stop())
			tt_check_stalls();
		if (!kthread_should_stop())
			tt_report_end(false);
	}
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ);
	return 0;
}

static void tt_stop_all(void)
{
	int i;

	WRITE_ONCE(tt_stopping, true);
	if (tt_stats_task)
		kthread_stop(tt_stats_task);
	for (i = 0; tt_threads && i < tt_nr_threads; i++)
		if (tt_threads[i].task)
			kthread_stop(tt_threads[i].task);
	if (tt_hotplug_task)
		kthread_stop(tt_hotplug_task);
}

static void tt_destroy_pools(void)
{
	ws_pool_destroy(tt_promote_pool);
	ws_pool_destroy(tt_fifo_pool);
	ws_pool_destroy(tt_attrs_pool);
	ws_pool_destroy(tt_pool);
}

static int __init tt_create_pools(void)
{
	struct ws_pool_attrs attrs = { .max_workers = 2, .nice = 5 };

	tt_pool = ws_pool_create("tt");
	if (IS_ERR(tt_pool))
		return PTR_ERR(tt_pool);
	tt_attrs_pool = ws_pool_create_attrs("tt-attrs", &attrs);
	if (IS_ERR(tt_attrs_pool))
		return PTR_ERR(tt_attrs_pool);
	attrs.max_workers = 1;
	attrs.nice = 0;
	tt_fifo_pool = ws_pool_create_attrs("tt-fifo", &attrs);
	if (IS_ERR(tt_fifo_pool))
		return PTR_ERR(tt_fifo_pool);
	attrs.max_workers = 2;
	tt_promote_pool = ws_pool_create_attrs("tt-promote", &attrs);
	return PTR_ERR_OR_ZERO(tt_promote_pool);
}

static int __init tt_init(void)
{
	unsigned int cpu;
	int i, ret;

	if (duration < 0 || threads < 0 || hotplug_interval < 0 ||
	    stall_timeout <= 0 || !(ops & (BIT(TT_NR_OPS) - 1)))
		return -EINVAL;
	if (!seed)
		seed = get_random_u32() | 1;
	tt_nr_threads = threads ? threads : num_online_cpus();
	tt_start = jiffies;
	if (!zalloc_cpumask_var(&tt_hp_mask, GFP_KERNEL) ||
	    !zalloc_cpumask_var(&tt_hp_down, GFP_KERNEL)) {
		ret = -ENOMEM;
		goto err_mask;
	}
	ret = tt_create_pools();
	if (ret)
		goto err_pools;
	tt_threads = kcalloc(tt_nr_threads, sizeof(*tt_threads), GFP_KERNEL);
	if (!tt_threads) {
		ret = -ENOMEM;
		goto err_pools;
	}
	pr_info("start: duration=%d s threads=%d hotplug_interval=%d ms seed=%lu stat_interval=%d s, %u CPUs online\n",
		duration, tt_nr_threads, hotplug_interval, seed, stat_interval,
		num_online_cpus());

	cpus_read_lock();
	for_each_online_cpu(cpu)
		if (cpu)
			cpumask_set_cpu(cpu, tt_hp_mask);
	cpus_read_unlock();
	if (hotplug_interval && cpumask_empty(tt_hp_mask))
		pr_info("no CPU to take offline: hotplug disabled\n");
	if (hotplug_interval && !cpumask_empty(tt_hp_mask)) {
		tt_hotplug_task = kthread_run(tt_hotplug_thread, NULL,
					      "wsched_torture_hp");
		if (IS_ERR(tt_hotplug_task)) {
			ret = PTR_ERR(tt_hotplug_task);
			tt_hotplug_task = NULL;
			goto err_threads;
		}
	}
	atomic_set(&tt_running, tt_nr_threads);
	for (i = 0; i < tt_nr_threads; i++) {
		struct tt_thread *thr = &tt_threads[i];

		thr->id = i;
		thr->op = -1;
		prandom_seed_state(&thr->rnd, seed + i);
		thr->task = kthread_run(tt_torture_thread, thr,
					"wsched_torture/%d", i);
		if (IS_ERR(thr->task)) {
			ret = PTR_ERR(thr->task);
			thr->task = NULL;
			/* The ones not started never decrement it. */
			atomic_sub(tt_nr_threads - i, &tt_running);
			goto err_threads;
		}
	}
	tt_stats_task = kthread_run(tt_stats_thread, NULL, "wsched_torture_st");
	if (IS_ERR(tt_stats_task)) {
		ret = PTR_ERR(tt_stats_task);
		tt_stats_task = NULL;
		goto err_threads;
	}
	return 0;

err_threads:
	tt_stop_all();
	/* The hotplug thread brought its CPUs back before it stopped. */
	kfree(tt_threads);
err_pools:
	tt_destroy_pools();
err_mask:
	free_cpumask_var(tt_hp_down);
	free_cpumask_var(tt_hp_mask);
	return ret;
}

static void __exit tt_exit(void)
{
	bool early = !atomic_read(&tt_reported);

	tt_stop_all();
	if (early)
		tt_report_end(true);
	kfree(tt_threads);
	tt_destroy_pools();
	free_cpumask_var(tt_hp_down);
	free_cpumask_var(tt_hp_mask);
}

module_init(tt_init);
module_exit(tt_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wsched torture test: random API use under CPU hotplug");
MODULE_AUTHOR("wsched developers");
