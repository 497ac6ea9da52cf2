// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of latent spawns (Documentation/design.rst, "Latent
 * spawns"): a ready task that a group's owner spawns into the group stays
 * private to the owner until it waits for it, or until a promotion
 * publishes it.  Each trigger is pinned with the others out of the way:
 * the heartbeat off (heartbeat_us 0) where it would promote too, and a
 * first task that spins without calling where a call would answer a
 * request.  Every case also checks that each task ran exactly once.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/wsched.h>

#include "ws_test.h"

#include "wsched_internal.h"
#include "wsched_trace.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

/* How long a promotion may take before a case gives up (and fails). */
#define LT_PATIENCE		(5 * HZ)
/* No-ops spawned by lt_watch() between its waits: well below WS_LATENT_SLOTS. */
#define LT_NOP_BATCH		16
/* How long a task that must stay latent is watched (no promotion due). */
#define LT_WATCH_MS		20

/**
 * struct lt_child - a task whose run the cases watch
 * @task: the task
 * @runs: how many times it ran
 * @thread: the thread that ran it (last)
 * @started: set once it runs (release)
 * @spawns_pred: as it runs, the child spawns the case's @p (into its
 *	@pred_group), unless the test thread did first (lt_release_pred())
 * @lt: the case's state
 */
struct lt_child {
	struct ws_task task;
	atomic_t runs;
	struct task_struct *thread;
	int started;
	bool spawns_pred;
	struct lt_state *lt;
};

/**
 * struct lt_state - one case's state
 * @pool: the pool: two workers, with attributes (the test thread sleeps),
 *	or one per CPU without (the test thread joins it and steals)
 * @owner: the thread of the owner's task
 * @owner_latent: the owner's task ran on a slot that keeps spawns latent
 * @unbound: the owner's task ran off its slot's CPU, allowed on another
 * @group: the group the owner's task owns
 * @c1: spawned by the owner into @group first
 * @c2: the second child, where a case needs one: spawned first, as a
 *	decoy for the offer to an idle worker as the heartbeat starts, or
 *	after the group became shared
 * @met: @c1 (or @c2) started while the owner's task was still watching
 * @spawned: completed by the owner once @c1 is spawned
 * @c1_ran: completed by @c1 as it runs
 * @released: @p was spawned (by @c1, or by the test thread)
 * @by_test: the test thread spawned @p: nothing promoted @c1 in time
 * @pred_group: @p's group, set up by the test thread (no owner)
 * @p: the predecessor of @t
 * @t: spawned inside the owner's isolated region, ready once @p ran
 * @ret: what the owner's wait for @group returned
 * @spin: a task that keeps the other worker busy, where a case needs it
 * @dozed: the owner saw its heartbeat doze (armed, timer stopped)
 * @held: how many latent tasks the owner held then
 * @why: what the owner saw, for the report of a case that failed
 */
struct lt_state {
	struct ws_pool *pool;
	struct task_struct *owner;
	bool owner_latent;
	bool unbound;
	struct ws_group group;
	struct lt_child c1;
	struct lt_child c2;
	bool met;
	struct completion spawned;
	struct completion c1_ran;
	atomic_t released;
	bool by_test;
	struct ws_group pred_group;
	struct ws_task p;
	struct ws_task t;
	int ret;
	struct ws_test_hold spin;
	bool dozed;
	unsigned int held;
	char why[128];
};

static struct ws_task *lt_nop_fn(struct ws_task *task)
{
	return NULL;
}

/* Spawn @p, whose end lets @t run; once, by @c1 or by the test thread. */
static void lt_release_pred(struct lt_state *lt, bool by_test)
{
	if (atomic_cmpxchg(&lt->released, 0, 1))
		return;
	lt->by_test = by_test;
	ws_spawn(&lt->pred_group, &lt->p);
}

static struct ws_task *lt_child_fn(struct ws_task *task)
{
	struct lt_child *c = container_of(task, struct lt_child, task);

	c->thread = current;
	atomic_inc(&c->runs);
	/* Pairs with smp_load_acquire() in lt_watch(). */
	smp_store_release(&c->started, 1);
	if (c->spawns_pred)
		lt_release_pred(c->lt, false);
	if (c == &c->lt->c1)
		complete(&c->lt->c1_ran);
	return NULL;
}

static void lt_child_init(struct lt_state *lt, struct lt_child *c)
{
	ws_task_init(&c->task, lt_child_fn);
	atomic_set(&c->runs, 0);
	c->thread = NULL;
	c->started = 0;
	c->lt = lt;
}

/*
 * Spin without calling into wsched for at most @ms milliseconds (0: the
 * patience) until @c starts; if @spawn, spawn a no-op task every 50 us
 * meanwhile (each latent spawn answers a pending thief's request).  The
 * no-ops go to a group of their own, which we wait for every
 * %LT_NOP_BATCH spawns: the wait runs them (the youngest latent tasks)
 * and leaves @c, so the latent stack never fills.  A spawn onto a full
 * stack would go to the deque, where thieves take it instead of asking.
 * Return whether @c started meanwhile.
 */
static bool lt_watch(struct lt_state *lt, struct lt_child *c,
		     unsigned int ms, bool spawn, struct ws_task *nops,
		     unsigned int nr_nops)
{
	unsigned long deadline = jiffies + (ms ? msecs_to_jiffies(ms) :
					    LT_PATIENCE);
	struct ws_group nop_group;
	unsigned int i = 0;

	ws_group_init(&nop_group, lt->pool);
	/* Pairs with smp_store_release() in lt_child_fn(). */
	while (!smp_load_acquire(&c->started) &&
	       time_before(jiffies, deadline)) {
		if (spawn && i < nr_nops) {
			u64 next = ktime_get_ns() + 50 * NSEC_PER_USEC;

			ws_spawn(&nop_group, &nops[i++]);
			if (!(i % LT_NOP_BATCH) && ws_group_wait(&nop_group))
				lt->ret = -EIO;
			/* Spin, not sleep: a request is all that may promote. */
			while (ktime_get_ns() < next)
				cpu_relax();
		}
		cpu_relax();
	}
	if (spawn && ws_group_wait(&nop_group))
		lt->ret = -EIO;
	/* As above. */
	return smp_load_acquire(&c->started);
}

/* Test pools. */
static struct ws_pool *lt_pool2(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	struct ws_pool *pool = ws_test_pool(test, "ws_latent", &attrs);

	if (ws_pool_nr_workers(pool) < 2)
		kunit_skip(test, "needs two workers");
	return pool;
}

static unsigned int lt_hb_set(unsigned int us)
{
	unsigned int old = READ_ONCE(ws_heartbeat_us);

	WRITE_ONCE(ws_heartbeat_us, us);
	return old;
}

/* The owner's task of a case, and the case it runs. */
struct lt_root {
	struct ws_task task;
	struct lt_state *lt;
	void (*body)(struct lt_state *lt);
};

static struct ws_task *lt_root_fn(struct ws_task *task)
{
	struct lt_root *r = container_of(task, struct lt_root, task);

	struct ws_worker *slot = ws_pool_current(r->lt->pool);

	r->lt->owner = current;
	r->lt->owner_latent = slot && slot->latent;
	r->body(r->lt);
	return NULL;
}

/* Run @body as a task of @lt->pool and wait for it from the test thread. */
static void lt_run(struct kunit *test, struct lt_state *lt,
		   void (*body)(struct lt_state *lt))
{
	struct lt_root root = { .lt = lt, .body = body };
	struct ws_group group;

	ws_task_init(&root.task, lt_root_fn);
	ws_group_init(&group, lt->pool);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
}

static struct lt_state *lt_alloc(struct kunit *test, struct ws_pool *pool)
{
	struct lt_state *lt = kunit_kzalloc(test, sizeof(*lt), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, lt);
	lt->pool = pool;
	lt_child_init(lt, &lt->c1);
	lt_child_init(lt, &lt->c2);
	init_completion(&lt->spawned);
	init_completion(&lt->c1_ran);
	atomic_set(&lt->released, 0);
	ws_task_init(&lt->p, lt_nop_fn);
	ws_task_init(&lt->t, lt_nop_fn);
	return lt;
}

/*
 * Run @body on a worker of a two-worker pool, the heartbeat at @hb_us,
 * and check what every such case expects: the owner's slot is latent,
 * its wait succeeded, both children ran once, and the watched one (@c1)
 * ran on the other worker within the watch if and only if @promoted.
 * The caller destroys the pool after its own checks.
 */
static struct lt_state *lt_case(struct kunit *test,
				void (*body)(struct lt_state *lt),
				unsigned int hb_us, bool promoted)
{
	struct lt_state *lt = lt_alloc(test, lt_pool2(test));
	unsigned int old = lt_hb_set(hb_us);

	lt_run(test, lt, body);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, lt->owner_latent);
	KUNIT_EXPECT_EQ(test, lt->ret, 0);
	KUNIT_EXPECT_EQ(test, lt->met, promoted);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c1.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c2.runs), 1);
	if (promoted)
		KUNIT_EXPECT_PTR_NE(test, lt->c1.thread, lt->owner);
	else
		KUNIT_EXPECT_PTR_EQ(test, lt->c1.thread, lt->owner);
	return lt;
}

/* ---- the control: nothing promotes a latent task ---- */

/*
 * The decoy @c2 first: the spawn that starts the heartbeat hands the
 * oldest latent task to an idle worker at once; @c1 is the one watched.
 */
static void lt_spawn_pair(struct lt_state *lt)
{
	ws_group_init(&lt->group, lt->pool);
	ws_spawn(&lt->group, &lt->c2.task);
	ws_spawn(&lt->group, &lt->c1.task);
}

static void lt_stays_body(struct lt_state *lt)
{
	lt_spawn_pair(lt);
	lt->met = lt_watch(lt, &lt->c1, LT_WATCH_MS, false, NULL, 0);
	lt->ret = ws_group_wait(&lt->group);
}

/*
 * Without the heartbeat, and with no call that could answer a thief's
 * request, a spawned task stays with its owner, which runs it in its
 * wait; an eager spawn would wake the idle worker, which would take it.
 */
static void latent_stays_private(struct kunit *test)
{
	struct lt_state *lt = lt_case(test, lt_stays_body, 0, false);

	ws_test_pool_destroy(test, lt->pool);
}

/* ---- trigger 1: the heartbeat ---- */

static void lt_heartbeat_body(struct lt_state *lt)
{
	lt_spawn_pair(lt);
	lt->met = lt_watch(lt, &lt->c1, 0, false, NULL, 0);
	lt->ret = ws_group_wait(&lt->group);
}

/*
 * The owner spins without calling: only its heartbeat can promote the
 * task, which the other worker then takes while the owner still spins.
 */
static void latent_heartbeat_promotes(struct kunit *test)
{
	struct lt_state *lt = lt_case(test, lt_heartbeat_body, 100, true);

	ws_test_pool_destroy(test, lt->pool);
}

/* ---- trigger 1, the owner blocked: the heartbeat of a parked owner ---- */

static void lt_parked_body(struct lt_state *lt)
{
	lt_spawn_pair(lt);
	/*
	 * Blocked outside any wait on what @c1 does: only a heartbeat that
	 * promotes while we are off the CPU lets it run.
	 */
	lt->met = wait_for_completion_timeout(&lt->c1_ran, LT_PATIENCE);
	lt->ret = ws_group_wait(&lt->group);
}

/*
 * The owner sleeps on a completion that its own latent task signals (the
 * failure issue 10 removed for tasks on the deque): the heartbeat, which
 * then interrupts another thread on the owner's CPU, promotes the task.
 */
static void latent_parked_promotes(struct kunit *test)
{
	struct lt_state *lt = lt_case(test, lt_parked_body, 100, true);

	ws_test_pool_destroy(test, lt->pool);
}

/*
 * The same, from a CPU other than the slot's: CPU hotplug leaves a worker
 * so when it wakes the worker while the slot's CPU goes offline (the
 * scheduler's fallback allows it every CPU), and the worker may run a
 * task, spawn and block there before the offline callback stops it.  We
 * move ourselves, so our heartbeat starts (and fires) on the other CPU.
 */
static void lt_unbound_body(struct lt_state *lt)
{
	struct ws_worker *slot = ws_pool_current(lt->pool);
	unsigned int cpu, other;

	if (!slot || !lt->owner_latent) {
		lt_parked_body(lt);
		return;
	}
	cpu = slot->cpu;
	other = cpumask_any_but(cpu_online_mask, cpu);
	if (other < nr_cpu_ids &&
	    !set_cpus_allowed_ptr(current, cpumask_of(other)))
		lt->unbound = raw_smp_processor_id() != cpu;
	lt_parked_body(lt);
	/* Bound again, for the pool's next tasks (and its destruction). */
	set_cpus_allowed_ptr(current, cpumask_of(cpu));
}

static void latent_unbound_parked_promotes(struct kunit *test)
{
	struct lt_state *lt = lt_case(test, lt_unbound_body, 100, true);

	/* The owner did run on another CPU than its slot's. */
	KUNIT_EXPECT_TRUE(test, lt->unbound);
	ws_test_pool_destroy(test, lt->pool);
}

/* ---- trigger 2: a thief's request ---- */

#define LT_NOPS		2048

static struct ws_task *lt_nops;

static void lt_request_body(struct lt_state *lt)
{
	struct ws_worker *w = ws_pool_current(lt->pool);
	int ret;

	ws_group_init(&lt->group, lt->pool);
	ws_spawn(&lt->group, &lt->c1.task);
	complete(&lt->spawned);
	/* Our spawns answer the requests of the test thread, which steals. */
	lt->met = lt_watch(lt, &lt->c1, 0, true, lt_nops, LT_NOPS);
	if (!lt->met && w)
		/* Where @c1 stayed, for the failure's report. */
		snprintf(lt->why, sizeof(lt->why),
			 "latent %u..%u lat_req %u deque %ld idle %d",
			 READ_ONCE(w->inv.lat_bot), READ_ONCE(w->inv.lat_top),
			 READ_ONCE(w->inv.lat_req), ws_deque_size(&w->deque),
			 atomic_read(&lt->pool->nr_idle));
	ret = ws_group_wait(&lt->group);
	/* Without losing an -EIO from lt_watch()'s waits for its no-ops. */
	if (ret)
		lt->ret = ret;
}

/*
 * Without the heartbeat: the test thread waits for the owner's task and
 * joins the pool (no attributes) to steal; it finds nothing and asks the
 * owner, whose next spawn publishes its oldest latent task, the first.
 */
static void latent_request_promotes(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_latent_req", NULL);
	struct lt_root root = { .body = lt_request_body };
	struct ws_group group;
	struct lt_state *lt;
	unsigned int i, old;

	if (ws_pool_nr_workers(pool) < 2)
		kunit_skip(test, "needs two workers");
	lt = lt_alloc(test, pool);
	root.lt = lt;
	lt_nops = kunit_kcalloc(test, LT_NOPS, sizeof(*lt_nops), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, lt_nops);
	for (i = 0; i < LT_NOPS; i++)
		ws_task_init(&lt_nops[i], lt_nop_fn);
	old = lt_hb_set(0);
	ws_task_init(&root.task, lt_root_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	/* A worker runs the owner's task, not us: we only steal. */
	wait_for_completion(&lt->spawned);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, lt->owner_latent);
	KUNIT_EXPECT_EQ(test, lt->ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, lt->met, "%s", lt->why);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c1.runs), 1);
	KUNIT_EXPECT_PTR_NE(test, lt->c1.thread, lt->owner);
	ws_test_pool_destroy(test, lt->pool);
}

/* ---- trigger 3: the owner stops with latent tasks it may not run ---- */

static int lt_isolated(void *arg)
{
	struct lt_state *lt = arg;
	struct ws_group inner;

	/* Inside the region: @t is eager, and waits for @p. */
	ws_group_init(&inner, lt->pool);
	ws_spawn(&inner, &lt->t);
	return ws_group_wait(&inner);
}

static void lt_stop_body(struct lt_state *lt)
{
	int ret;

	ws_group_init(&lt->group, lt->pool);
	ws_spawn(&lt->group, &lt->c1.task);
	complete(&lt->spawned);
	/*
	 * The region's wait may not run @c1: it can only publish it as it
	 * stops spinning.  @c1 spawns @p, which lets @t run.
	 */
	ret = ws_isolate(lt->pool, lt_isolated, lt);
	lt->ret = ws_group_wait(&lt->group);
	if (!lt->ret)
		lt->ret = ret;
}

static void latent_wait_promotes(struct kunit *test)
{
	struct lt_state *lt = lt_alloc(test, lt_pool2(test));
	struct lt_root root = { .lt = lt, .body = lt_stop_body };
	struct ws_group group;
	unsigned int old = lt_hb_set(0);

	lt->c1.spawns_pred = true;
	ws_group_init(&lt->pred_group, lt->pool);
	KUNIT_ASSERT_EQ(test, ws_task_precede(&lt->p, &lt->t, GFP_KERNEL), 0);
	ws_task_init(&root.task, lt_root_fn);
	ws_group_init(&group, lt->pool);
	ws_spawn(&group, &root.task);
	/* Nothing promoted @c1: end the region's wait ourselves, and fail. */
	if (!wait_for_completion_timeout(&lt->c1_ran, LT_PATIENCE))
		lt_release_pred(lt, true);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&lt->pred_group), 0);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, lt->owner_latent);
	KUNIT_EXPECT_EQ(test, lt->ret, 0);
	KUNIT_EXPECT_FALSE(test, lt->by_test);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c1.runs), 1);
	KUNIT_EXPECT_PTR_NE(test, lt->c1.thread, lt->owner);
	ws_test_pool_destroy(test, lt->pool);
}

/* ---- a wait from another thread ---- */

static void lt_shared_body(struct lt_state *lt)
{
	ws_group_init(&lt->group, lt->pool);
	ws_spawn(&lt->group, &lt->c1.task);
	complete(&lt->spawned);
	/* Until the test thread waits for our group (it marks it shared). */
	while (!test_bit(WS_GROUP_SHARED_BIT, &lt->group.flags))
		cpu_relax();
	/* Eager now: the other worker takes it while we spin. */
	ws_spawn(&lt->group, &lt->c2.task);
	lt->met = lt_watch(lt, &lt->c2, 0, false, NULL, 0);
	/* Return without waiting: our dispatch loop runs @c1 next. */
}

/*
 * The test thread waits for a group that a worker's task owns (and
 * leaves behind): later spawns into it are eager, and the latent one runs
 * once the owner's task returns.
 */
static void latent_shared_wait(struct kunit *test)
{
	struct lt_state *lt = lt_alloc(test, lt_pool2(test));
	struct lt_root root = { .lt = lt, .body = lt_shared_body };
	struct ws_group group;
	unsigned int old = lt_hb_set(0);

	ws_task_init(&root.task, lt_root_fn);
	ws_group_init(&group, lt->pool);
	ws_spawn(&group, &root.task);
	wait_for_completion(&lt->spawned);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&lt->group), 0);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, lt->owner_latent);
	KUNIT_EXPECT_TRUE(test, lt->met);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c1.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c2.runs), 1);
	KUNIT_EXPECT_PTR_NE(test, lt->c2.thread, lt->owner);
	KUNIT_EXPECT_PTR_EQ(test, lt->c1.thread, lt->owner);
	ws_test_pool_destroy(test, lt->pool);
}

/* ---- nothing lost or run twice under a fast heartbeat ---- */

struct lt_fib {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int n;
	unsigned long result;
};

static struct ws_task *lt_fib_fn(struct ws_task *task)
{
	struct lt_fib *f = container_of(task, struct lt_fib, task);
	struct lt_fib kid[2];
	struct ws_group group;
	unsigned int i;

	if (f->n < 2) {
		f->result = f->n;
		return NULL;
	}
	ws_group_init(&group, f->pool);
	for (i = 0; i < 2; i++) {
		kid[i].pool = f->pool;
		kid[i].n = f->n - 1 - i;
		ws_task_init(&kid[i].task, lt_fib_fn);
		ws_spawn(&group, &kid[i].task);
	}
	ws_group_wait(&group);
	f->result = kid[0].result + kid[1].result;
	return NULL;
}

static unsigned long lt_fib_calls(unsigned int n)
{
	return n < 2 ? 1 : 1 + lt_fib_calls(n - 1) + lt_fib_calls(n - 2);
}

/*
 * fib with a spawn at every call and a 2 us heartbeat, so that the
 * heartbeat interrupts owners inside their latent pushes and pops while
 * the other workers take promoted tasks: every call runs once.
 */
static void latent_fib_fast_heartbeat(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_latent_fib", NULL);
	struct ws_pool_stats before, after;
	unsigned int old = lt_hb_set(2), round;

	for (round = 0; round < 5; round++) {
		struct lt_fib root = { .pool = pool, .n = 18 };
		struct ws_group group;

		ws_pool_read_stats(pool, &before);
		ws_task_init(&root.task, lt_fib_fn);
		ws_group_init(&group, pool);
		ws_spawn(&group, &root.task);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
		ws_pool_read_stats(pool, &after);
		KUNIT_EXPECT_EQ(test, root.result, 2584UL);
		KUNIT_EXPECT_EQ(test, after.executed - before.executed,
				(u64)lt_fib_calls(18));
		KUNIT_EXPECT_EQ(test, (after.popped - before.popped) +
				(after.stolen - before.stolen),
				after.spawned - before.spawned);
	}
	lt_hb_set(old);
	ws_test_pool_destroy(test, pool);
}

/* ---- a latent task never waits without a heartbeat ---- */

/*
 * How long the case below spawns: two seconds, so that a kernel without
 * high-resolution timers (the debug stages'), whose 2 us heartbeat beats
 * at each tick, still sees a few hundred beats.
 */
#define LT_ARM_MS		2000

/**
 * struct lt_arm - the state of latent_spawn_keeps_heartbeat()
 * @pool: the pool
 * @root: the owner's task, which runs the rounds
 * @task: the task spawned in every round
 * @runs: how many times it ran, in all rounds
 * @rounds: rounds done
 * @restarts: rounds that found the heartbeat stopped before the spawn
 * @stranded: rounds that left a latent task with the heartbeat stopped
 * @owner: the thread of @root
 * @handed: rounds whose task ran on another thread (promoted, or offered
 *	to the idle worker as the heartbeat started)
 * @ret: the first nonzero wait result, or 0
 * @latent: the owner's slot keeps spawns latent
 */
struct lt_arm {
	struct ws_pool *pool;
	struct ws_task root;
	struct ws_task task;
	atomic_t runs;
	unsigned int rounds;
	unsigned int restarts;
	unsigned int stranded;
	struct task_struct *owner;
	atomic_t handed;
	int ret;
	bool latent;
};

static struct ws_task *lt_arm_fn(struct ws_task *task)
{
	struct lt_arm *la = container_of(task, struct lt_arm, task);

	atomic_inc(&la->runs);
	if (current != la->owner)
		atomic_inc(&la->handed);
	return NULL;
}

static struct ws_task *lt_arm_root_fn(struct ws_task *task)
{
	struct lt_arm *la = container_of(task, struct lt_arm, root);
	struct ws_worker *slot = ws_pool_current(la->pool);
	unsigned long deadline = jiffies + msecs_to_jiffies(LT_ARM_MS);
	bool latent, armed;
	int ret;

	la->owner = current;
	la->latent = slot && slot->latent;
	if (!la->latent)
		return NULL;
	while (time_before(jiffies, deadline)) {
		struct ws_group group;

		/* Ours and our heartbeat's: a snapshot, as the spawn reads it. */
		if (!READ_ONCE(slot->inv.hb_armed))
			la->restarts++;
		ws_group_init(&group, la->pool);
		ws_task_init(&la->task, lt_arm_fn);
		ws_spawn(&group, &la->task);
		/*
		 * The flag, then the task.  Not with interrupts off, which
		 * would hold the beats back to the end of that window, when
		 * the task is latent, and then none would stop.  A task seen
		 * latent now was latent since the spawn (only our pop or a
		 * promotion ends it), so with the flag clear before, both
		 * held at once: a latent task with no heartbeat.
		 */
		armed = READ_ONCE(slot->inv.hb_armed);
		latent = READ_ONCE(slot->inv.lat_bot) <
			 READ_ONCE(slot->inv.lat_top);
		if (latent && !armed)
			la->stranded++;
		ret = ws_group_wait(&group);
		if (ret && !la->ret)
			la->ret = ret;
		la->rounds++;
	}
	return NULL;
}

/*
 * Against a heartbeat that stops between a spawn's look at it and its
 * push (the order 99f4a54 fixed): with the heartbeat at 2 us, the owner
 * spawns one task per round and waits for it, so that a beat mostly
 * finds nothing latent and stops, and the next spawn starts it again.
 * Right after each spawn the owner checks that a task it keeps latent
 * has its heartbeat armed.  Beats land anywhere in the short rounds, and
 * each stop may fall in the spawn's window: a matter of chance, with 70
 * to 110 stops a second on the debug kernel (a beat per tick), where the
 * order of 99f4a54's parent left a task stranded at 5 of 110.  Every
 * task runs once, on the owner or on the other worker, which a beat that
 * finds the task promotes it to.
 */
static void latent_spawn_keeps_heartbeat(struct kunit *test)
{
	struct lt_arm *la = kunit_kzalloc(test, sizeof(*la), GFP_KERNEL);
	struct ws_group group;
	unsigned int old;

	KUNIT_ASSERT_NOT_NULL(test, la);
	la->pool = lt_pool2(test);
	atomic_set(&la->runs, 0);
	atomic_set(&la->handed, 0);
	old = lt_hb_set(2);
	ws_task_init(&la->root, lt_arm_root_fn);
	ws_group_init(&group, la->pool);
	ws_spawn(&group, &la->root);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, la->latent);
	KUNIT_EXPECT_EQ(test, la->ret, 0);
	KUNIT_EXPECT_EQ(test, la->stranded, 0U);
	KUNIT_EXPECT_EQ(test, (unsigned int)atomic_read(&la->runs), la->rounds);
	/* The heartbeat did stop and start again. */
	KUNIT_EXPECT_GE(test, la->restarts, 10U);
	kunit_info(test, "%u rounds, %u restarts of the heartbeat, %d tasks run elsewhere\n",
		   la->rounds, la->restarts, atomic_read(&la->handed));
	ws_test_pool_destroy(test, la->pool);
}

/* ---- the heartbeat dozes for want of thieves; a thief's kick wakes it ---- */

static void lt_doze_body(struct lt_state *lt)
{
	/* Our CPU slot: we are its bound worker (checked by the case). */
	struct ws_worker *w = ws_pool_current(lt->pool);
	unsigned long settle = jiffies + LT_PATIENCE;
	unsigned long switches;

	if (!w || !w->latent) {
		/* Not the case (it fails): release the spinner as below. */
		ws_test_hold_release(&lt->spin);
		lt_spawn_pair(lt);
		lt->ret = ws_group_wait(&lt->group);
		return;
	}
	switches = current->nvcsw + current->nivcsw;
	lt_spawn_pair(lt);
	/* Nobody idles or asks: the beats find no taker and doze. */
	while (!READ_ONCE(w->hb_dozing) && time_before(jiffies, settle))
		cpu_relax();
	lt->dozed = READ_ONCE(w->hb_dozing) && READ_ONCE(w->inv.hb_armed);
	lt->held = READ_ONCE(w->inv.lat_top) - READ_ONCE(w->inv.lat_bot);
	if (!lt->dozed)
		/* What kept the heartbeat awake, for the failure's report. */
		snprintf(lt->why, sizeof(lt->why),
			 "dozing %d armed %d held %u request %u lat_req %u idle %d switches %lu",
			 READ_ONCE(w->hb_dozing), READ_ONCE(w->inv.hb_armed),
			 lt->held, READ_ONCE(w->inv.request),
			 READ_ONCE(w->inv.lat_req),
			 atomic_read(&lt->pool->nr_idle),
			 current->nvcsw + current->nivcsw - switches);
	ws_test_hold_release(&lt->spin);
	lt->met = lt_watch(lt, &lt->c1, 0, false, NULL, 0);
	lt->ret = ws_group_wait(&lt->group);
}

/*
 * On a pool of two workers: one spins in a task; the other runs the
 * owner's task, which spawns two latent tasks and spins without calling.
 * With no idle worker and no thief, the owner's heartbeat dozes: it
 * stops, still armed, so that spawns would not start it again.  Released,
 * the spinning worker looks for work, finds the latent tasks and kicks
 * the owner's CPU: the heartbeat beats again and promotes both, which the
 * other worker runs while the owner still spins.  Without the kick
 * nothing would promote them until the owner gave up.
 */
static void latent_doze_kicked(struct kunit *test)
{
	struct lt_state *lt = lt_alloc(test, lt_pool2(test));
	unsigned int old = lt_hb_set(100);
	struct ws_group spin_group;

	ws_test_hold_init(&lt->spin, false, LT_PATIENCE);
	ws_group_init(&spin_group, lt->pool);
	/* One worker spins first, so that the owner's task goes to the other. */
	ws_spawn(&spin_group, &lt->spin.task);
	KUNIT_EXPECT_TRUE(test, ws_test_hold_wait(&lt->spin, LT_PATIENCE));
	lt_run(test, lt, lt_doze_body);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&spin_group), 0);
	lt_hb_set(old);
	KUNIT_EXPECT_TRUE(test, lt->owner_latent);
	KUNIT_EXPECT_EQ(test, lt->ret, 0);
	KUNIT_EXPECT_TRUE_MSG(test, lt->dozed, "%s", lt->why);
	KUNIT_EXPECT_EQ(test, lt->held, 2U);
	KUNIT_EXPECT_TRUE(test, lt->met);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c1.runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&lt->c2.runs), 1);
	KUNIT_EXPECT_PTR_NE(test, lt->c1.thread, lt->owner);
	ws_test_pool_destroy(test, lt->pool);
}

/* ---- the inline wait: its out-of-line exits ---- */

/**
 * struct lt_inline - the tasks of the inline-wait cases
 * @pool: a pool of one worker, with attributes: the test thread sleeps,
 *	and only the owner runs anything
 * @owner_latent: the owner's task ran on a slot that keeps spawns latent
 * @seq: where each task below takes its turn number as it runs
 * @bypass: returns @bypassed, which runs in its place
 * @bypassed: never spawned: runs because @bypass returns it
 * @pred: precedes @succ
 * @succ: spawned ready for nothing until @pred has run
 * @plain: a task with neither
 * @cancelled: spawned into @cgroup, which is cancelled before its wait
 * @order: the turn number each of the five took (0: it did not run)
 * @runs: how many times each ran
 * @cancels: how many times the cancel hook of @cancelled ran
 * @cret: what the wait for @cgroup returned
 * @ret: what the wait for the other group returned
 * @fifo: enqueued (FIFO) by the owner before its spawns
 * @fifo_ran: set once @fifo has run (release)
 * @fifo_seen: the leaves that ran after @fifo had run
 * @leaves: the leaves run
 * @traced: the FIFO case's rounds run with a probe on wsched_execute
 * @executes: the tasks that probe saw
 */
struct lt_inline {
	struct ws_pool *pool;
	bool owner_latent;
	atomic_t seq;
	struct ws_task bypass, bypassed, pred, succ, plain, cancelled;
	int order[5];
	atomic_t runs[5];
	atomic_t cancels;
	int cret;
	int ret;
	struct ws_task fifo;
	int fifo_ran;
	atomic_t fifo_seen;
	atomic_t leaves;
	bool traced;
	atomic_t executes;
};

static struct lt_inline *lt_inline_of;

static void lt_inline_mark(struct ws_task *task)
{
	struct lt_inline *li = lt_inline_of;
	struct ws_task *tasks[] = { &li->bypass, &li->bypassed, &li->pred,
				    &li->succ, &li->plain };
	int i;

	for (i = 0; i < ARRAY_SIZE(tasks); i++) {
		if (tasks[i] != task)
			continue;
		atomic_inc(&li->runs[i]);
		li->order[i] = atomic_inc_return(&li->seq);
	}
}

static struct ws_task *lt_inline_fn(struct ws_task *task)
{
	lt_inline_mark(task);
	if (task == &lt_inline_of->bypass)
		return &lt_inline_of->bypassed;
	return NULL;
}

static void lt_inline_cancel(struct ws_task *task)
{
	atomic_inc(&lt_inline_of->cancels);
}

static struct ws_task *lt_inline_root_fn(struct ws_task *task)
{
	struct lt_inline *li = lt_inline_of;
	struct ws_worker *slot = ws_pool_current(li->pool);
	struct ws_group group, cgroup;

	li->owner_latent = slot && slot->latent;
	ws_group_init(&group, li->pool);
	ws_task_init(&li->bypass, lt_inline_fn);
	ws_task_init(&li->bypassed, lt_inline_fn);
	ws_task_init(&li->pred, lt_inline_fn);
	ws_task_init(&li->succ, lt_inline_fn);
	ws_task_init(&li->plain, lt_inline_fn);
	if (ws_task_precede(&li->pred, &li->succ, GFP_KERNEL)) {
		li->ret = -ENOMEM;
		return NULL;
	}
	/* Youngest first: @plain, @bypass, then @pred releases @succ. */
	ws_spawn(&group, &li->succ);
	ws_spawn(&group, &li->pred);
	ws_spawn(&group, &li->bypass);
	ws_spawn(&group, &li->plain);
	li->ret = ws_group_wait(&group);

	ws_group_init(&cgroup, li->pool);
	ws_task_init(&li->cancelled, lt_inline_fn);
	ws_task_set_cancel(&li->cancelled, lt_inline_cancel);
	ws_spawn(&cgroup, &li->cancelled);
	ws_group_cancel(&cgroup);
	li->cret = ws_group_wait(&cgroup);
	return NULL;
}

static void lt_inline_run(struct kunit *test, struct lt_inline *li,
			  ws_task_fn fn)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_group group;
	struct ws_task root;

	li->pool = ws_test_pool(test, "ws_latent_inline", &attrs);
	lt_inline_of = li;
	ws_task_init(&root, fn);
	ws_group_init(&group, li->pool);
	ws_spawn(&group, &root);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_test_pool_destroy(test, li->pool);
	lt_inline_of = NULL;
}

/*
 * The owner's wait runs its latent tasks inline, and leaves that path for
 * what it does not handle: a task that returns one (the returned one runs
 * next), a task with a successor (released once it has run, after it),
 * and a cancelled group (the cancel hook runs instead).  Every task runs
 * once, in the order the rules give on a single worker.
 */
static void latent_inline_wait_exits(struct kunit *test)
{
	struct lt_inline *li = kunit_kzalloc(test, sizeof(*li), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, li);
	lt_inline_run(test, li, lt_inline_root_fn);
	KUNIT_EXPECT_TRUE(test, li->owner_latent);
	KUNIT_EXPECT_EQ(test, li->ret, 0);
	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&li->runs[i]), 1);
	/* LIFO: @plain, @bypass and at once @bypassed, @pred, then @succ. */
	KUNIT_EXPECT_EQ(test, li->order[4], 1);
	KUNIT_EXPECT_EQ(test, li->order[0], 2);
	KUNIT_EXPECT_EQ(test, li->order[1], 3);
	KUNIT_EXPECT_EQ(test, li->order[2], 4);
	KUNIT_EXPECT_EQ(test, li->order[3], 5);
	KUNIT_EXPECT_EQ(test, li->cret, -ECANCELED);
	KUNIT_EXPECT_EQ(test, atomic_read(&li->cancels), 1);
}

static struct ws_task *lt_fifo_fn(struct ws_task *task)
{
	/* Pairs with smp_load_acquire() in lt_leaf_fn(). */
	smp_store_release(&lt_inline_of->fifo_ran, 1);
	return NULL;
}

static struct ws_task *lt_leaf_fn(struct ws_task *task)
{
	/* Pairs with smp_store_release() in lt_fifo_fn(). */
	if (smp_load_acquire(&lt_inline_of->fifo_ran))
		atomic_inc(&lt_inline_of->fifo_seen);
	atomic_inc(&lt_inline_of->leaves);
	return NULL;
}

#define LT_LEAVES	48
#define LT_ROUNDS	8

static void lt_probe_execute(void *data, const struct ws_pool *pool,
			     const struct ws_task *task)
{
	struct lt_inline *li = data;

	if (pool == li->pool)
		atomic_inc(&li->executes);
}

/* Spawn @nr leaves into a group and wait for them: 0, or -EIO. */
static int lt_leaf_round(struct ws_pool *pool, struct ws_task *leaves, int nr)
{
	struct ws_group group;
	int i;

	ws_group_init(&group, pool);
	for (i = 0; i < nr; i++) {
		ws_task_init(&leaves[i], lt_leaf_fn);
		ws_spawn(&group, &leaves[i]);
	}
	return ws_group_wait(&group) ? -EIO : 0;
}

#define LT_WARMUP	5

static struct ws_task *lt_fifo_root_fn(struct ws_task *task)
{
	struct lt_inline *li = lt_inline_of;
	struct ws_worker *slot = ws_pool_current(li->pool);
	struct ws_task *leaves;
	struct ws_group fgroup;
	int r;

	li->owner_latent = slot && slot->latent;
	leaves = kcalloc(LT_LEAVES, sizeof(*leaves), GFP_KERNEL);
	if (!leaves) {
		li->ret = -ENOMEM;
		return NULL;
	}
	/*
	 * Untraced, before anything is enqueued: the inline wait runs these
	 * itself, so the slot's count of them is no longer a multiple of
	 * WS_FIFO_TURN when the rounds below begin.
	 */
	if (lt_leaf_round(li->pool, leaves, LT_WARMUP))
		li->ret = -EIO;
	if (li->traced &&
	    register_trace_wsched_execute(lt_probe_execute, li)) {
		li->ret = -EINVAL;
		li->traced = false;
	}
	ws_group_init(&fgroup, li->pool);
	ws_task_init(&li->fifo, lt_fifo_fn);
	ws_enqueue(&fgroup, &li->fifo);
	for (r = 0; r < LT_ROUNDS; r++)
		if (lt_leaf_round(li->pool, leaves, LT_LEAVES))
			li->ret = -EIO;
	if (li->traced)
		unregister_trace_wsched_execute(lt_probe_execute, li);
	if (ws_group_wait(&fgroup))
		li->ret = -EIO;
	kfree(leaves);
	return NULL;
}

/*
 * A worker that only spawns and waits still serves the FIFO queue: on a
 * pool of one worker, whose waits run the latent leaves inline, a task
 * enqueued before 8 rounds of 48 leaves runs among them, at a FIFO turn
 * of the inline wait (one per 32 tasks taken), not after them all.
 */
static void latent_inline_fifo_turn(struct kunit *test)
{
	struct lt_inline *li = kunit_kzalloc(test, sizeof(*li), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, li);
	lt_inline_run(test, li, lt_fifo_root_fn);
	KUNIT_EXPECT_TRUE(test, li->owner_latent);
	KUNIT_EXPECT_EQ(test, li->ret, 0);
	KUNIT_EXPECT_EQ(test, li->fifo_ran, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&li->leaves),
			LT_WARMUP + LT_LEAVES * LT_ROUNDS);
	KUNIT_EXPECT_GT(test, atomic_read(&li->fifo_seen), 0);
}

/*
 * As above, with the wsched_execute tracepoint on for the rounds: the
 * inline wait then hands every leaf to __ws_latent_run(), which runs it
 * out of line and must still give the FIFO queue its turns, although the
 * inline wait's own count of the tasks it ran no longer moves.
 */
static void latent_inline_fifo_turn_traced(struct kunit *test)
{
	struct lt_inline *li = kunit_kzalloc(test, sizeof(*li), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, li);
	li->traced = true;
	lt_inline_run(test, li, lt_fifo_root_fn);
	/* Our probe may run on until every CPU has left it. */
	tracepoint_synchronize_unregister();
	KUNIT_EXPECT_TRUE(test, li->traced);
	KUNIT_EXPECT_TRUE(test, li->owner_latent);
	KUNIT_EXPECT_EQ(test, li->ret, 0);
	KUNIT_EXPECT_EQ(test, li->fifo_ran, 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&li->leaves),
			LT_WARMUP + LT_LEAVES * LT_ROUNDS);
	/* Every leaf of the rounds ran traced (and @fifo, if among them). */
	KUNIT_EXPECT_GE(test, atomic_read(&li->executes), LT_LEAVES * LT_ROUNDS);
	KUNIT_EXPECT_GT(test, atomic_read(&li->fifo_seen), 0);
}

static struct kunit_case latent_cases[] = {
	KUNIT_CASE(latent_stays_private),
	KUNIT_CASE(latent_heartbeat_promotes),
	KUNIT_CASE(latent_parked_promotes),
	KUNIT_CASE(latent_unbound_parked_promotes),
	KUNIT_CASE(latent_request_promotes),
	KUNIT_CASE(latent_wait_promotes),
	KUNIT_CASE(latent_shared_wait),
	KUNIT_CASE(latent_fib_fast_heartbeat),
	KUNIT_CASE(latent_spawn_keeps_heartbeat),
	KUNIT_CASE(latent_doze_kicked),
	KUNIT_CASE(latent_inline_wait_exits),
	KUNIT_CASE(latent_inline_fifo_turn),
	KUNIT_CASE(latent_inline_fifo_turn_traced),
	{}
};

static struct kunit_suite latent_suite = {
	.name = "wsched_latent",
	.test_cases = latent_cases,
};

kunit_test_suite(latent_suite);
