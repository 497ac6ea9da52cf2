// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the kernel API under injected allocation failures (issue 12).
 *
 * Each case sweeps the fault injector's fail-nth count of the test
 * thread (current->fail_nth, what /proc/<pid>/fail-nth sets): for n = 1,
 * 2, ... the n-th allocation the operation makes in this thread fails,
 * until it makes fewer than n (or a bound is reached).  Failures stay
 * confined to the test thread; pool workers allocate normally.  After
 * each step the operation must have failed cleanly (an error, nothing
 * leaked, no thread left) or done all of its work exactly once.
 *
 * - fault_pool_create: ws_pool_create(), every allocation in turn.
 * - fault_spawn_growth: tasks spawned onto a joined thread's deque
 *   (ws_pool_execute()) while its growth (GFP_NOWAIT) fails, lazily (the
 *   group's owner) and counted; tasks live in the caller's memory, so the
 *   deque is ws_spawn()'s only allocation.
 * - fault_parallel_for, fault_parallel_reduce: splits whose join node
 *   cannot be allocated, from outside the pool and from a joined thread.
 * - fault_task_precede: edges that cannot be allocated are refused with
 *   -ENOMEM and the graph without them still runs each task once, in the
 *   order of the edges that were made.
 *
 * GFP_KERNEL allocations fail only with failslab's ignore-gfp-wait off
 * (the rig's /init turns it off); the cases probe for it and skip
 * otherwise, and on kernels without CONFIG_FAULT_INJECTION/FAILSLAB.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wsched.h>

#include "ws_test.h"

/* Most allocations a sweep fails in turn (each step creates a pool). */
#define FT_MAX_NTH		400
/* Steps of the sweeps whose allocations depend on the schedule. */
#define FT_SCHED_STEPS		48
#define FT_TASKS		1024
#define FT_RANGE		4096

#if IS_ENABLED(CONFIG_FAULT_INJECTION) && IS_ENABLED(CONFIG_FAILSLAB)
#define FT_ENABLED	1
/*
 * Fail the @n-th fault point this thread passes from now on.
 * current->fail_nth is read and decremented by this thread only
 * (should_fail_ex(), READ_ONCE()/WRITE_ONCE()), and otherwise written
 * only through /proc/<pid>/fail-nth, which nothing opens for a KUnit
 * thread: marked accesses, no ordering needed.
 */
static void ft_arm(unsigned int n)
{
	WRITE_ONCE(current->fail_nth, n);
}

/* Disarm; whether the armed failure happened (the count ran out). */
static bool ft_disarm(void)
{
	unsigned int left = READ_ONCE(current->fail_nth);

	WRITE_ONCE(current->fail_nth, 0);
	return !left;
}
#else
#define FT_ENABLED	0
static void ft_arm(unsigned int n)
{
}

static bool ft_disarm(void)
{
	return false;
}
#endif

/* Skip unless an allocation with @gfp of this thread can be made to fail. */
static void ft_require(struct kunit *test, gfp_t gfp, const char *what)
{
	void *p;

	if (!FT_ENABLED)
		kunit_skip(test, "needs CONFIG_FAULT_INJECTION and CONFIG_FAILSLAB");
	ft_arm(1);
	p = kmalloc(32, gfp | __GFP_NOWARN);
	ft_disarm();
	kfree(p);
	if (p)
		kunit_skip(test, "failslab does not fail %s allocations (ignore-gfp-wait)",
			   what);
}

/* Kthreads of the pool named @name: "ws/<cpu>:<name>" or "ws/c<n>:<name>". */
static unsigned int ft_pool_threads(const char *name)
{
	struct task_struct *p, *t;
	unsigned int n = 0;
	const char *colon;

	rcu_read_lock();
	for_each_process_thread(p, t) {
		/* A stopped worker may linger a moment in do_exit(). */
		if (!(t->flags & PF_KTHREAD) || (t->flags & PF_EXITING) ||
		    strncmp(t->comm, "ws/", 3))
			continue;
		colon = strchr(t->comm, ':');
		if (colon && !strcmp(colon + 1, name))
			n++;
	}
	rcu_read_unlock();
	return n;
}

/* Wait up to 5 s for the pool named @name to have no thread; how many. */
static unsigned int ft_wait_no_threads(const char *name)
{
	unsigned int i, n = 0;

	for (i = 0; i < 500; i++) {
		n = ft_pool_threads(name);
		if (!n)
			break;
		usleep_range(10000, 20000);
	}
	return n;
}

/* ---- ws_pool_create ---------------------------------------------------- */

static void fault_pool_create(struct kunit *test)
{
	unsigned int n, refused = 0, ok_anyway = 0, injected = 0;
	struct ws_pool *pool;

	ft_require(test, GFP_KERNEL, "GFP_KERNEL");
	KUNIT_ASSERT_EQ(test, ft_pool_threads("ft-pool"), 0U);
	for (n = 1; n <= FT_MAX_NTH; n++) {
		bool hit;

		ft_arm(n);
		pool = ws_pool_create("ft-pool");
		hit = ft_disarm();
		injected += hit;
		if (IS_ERR(pool)) {
			refused++;
			KUNIT_EXPECT_EQ_MSG(test, PTR_ERR(pool), -ENOMEM,
					    "allocation %u", n);
			KUNIT_EXPECT_TRUE_MSG(test, hit,
					      "allocation %u: failed with no failure injected",
					      n);
		} else {
			KUNIT_EXPECT_NOT_NULL(test, pool);
			if (!pool)
				break;
			if (hit)
				ok_anyway++;
			KUNIT_EXPECT_EQ_MSG(test, ws_pool_nr_workers(pool),
					    num_online_cpus(), "allocation %u", n);
			ws_pool_destroy(pool);
		}
		/* Whatever happened, no thread of the pool is left. */
		KUNIT_EXPECT_EQ_MSG(test, ft_wait_no_threads("ft-pool"), 0U,
				    "allocation %u", n);
		if (!hit)
			break;
	}
	kunit_info(test, "ws_pool_create: fault points 1..%u failed in turn%s: %u injected, %u refused with -ENOMEM, %u created anyway\n",
		   n - 1, n > FT_MAX_NTH ? " (the bound)" : "", injected,
		   refused, ok_anyway);
	KUNIT_EXPECT_LT(test, 0U, refused);
}

/* ---- ws_spawn onto a deque that cannot grow ----------------------------- */

/*
 * Blockers: one task per worker that holds it until released, so that
 * nobody steals from the joined thread's deque and it has to grow.
 */
struct ft_blockers {
	struct ws_task tasks[NR_CPUS > 64 ? 64 : NR_CPUS];
	struct ws_group group;
	unsigned int nr;
	atomic_t started;
	int release;
};

/*
 * The blockers of the running case: set before they are spawned, which
 * publishes it to the workers that run them (the release of the queue
 * insertion, paired with the worker's take).
 */
static struct ft_blockers *ft_blockers_of;

static struct ws_task *ft_blocker_fn(struct ws_task *task)
{
	struct ft_blockers *b = ft_blockers_of;
	unsigned long deadline = jiffies + 20 * HZ;

	atomic_inc(&b->started);
	/* Pairs with smp_store_release() in ft_blockers_release(). */
	while (!smp_load_acquire(&b->release) && time_before(jiffies, deadline))
		cond_resched();
	return NULL;
}

/* Occupy every worker of @pool; false if they did not all start. */
static bool ft_blockers_start(struct ft_blockers *b, struct ws_pool *pool)
{
	unsigned long deadline = jiffies + 20 * HZ;
	unsigned int i;

	b->nr = min_t(unsigned int, ws_pool_nr_workers(pool),
		      ARRAY_SIZE(b->tasks));
	atomic_set(&b->started, 0);
	b->release = 0;
	ft_blockers_of = b;
	ws_group_init(&b->group, pool);
	for (i = 0; i < b->nr; i++) {
		ws_task_init(&b->tasks[i], ft_blocker_fn);
		ws_spawn(&b->group, &b->tasks[i]);
	}
	while (atomic_read(&b->started) < b->nr) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static void ft_blockers_release(struct ft_blockers *b)
{
	/* Pairs with smp_load_acquire() in ft_blocker_fn(). */
	smp_store_release(&b->release, 1);
}

struct ft_task {
	struct ws_task task;
	atomic_t *runs;
};

struct ft_spawn {
	struct ws_pool *pool;
	struct ft_task *tasks;
	atomic_t *runs;
	struct ws_group *outer;	/* NULL: the function's own (lazy) group */
	struct ft_blockers *blockers;
};

static struct ws_task *ft_task_fn(struct ws_task *task)
{
	atomic_inc(container_of(task, struct ft_task, task)->runs);
	return NULL;
}

/* Run as a thread of the pool: spawn every task onto our deque, wait. */
static int ft_spawn_fn(void *arg)
{
	struct ft_spawn *s = arg;
	struct ws_group own, *group = s->outer;
	unsigned int i;

	if (!group) {
		/* Set up here, on the joined thread: spawns are lazy. */
		ws_group_init(&own, s->pool);
		group = &own;
	}
	for (i = 0; i < FT_TASKS; i++) {
		ws_task_init(&s->tasks[i].task, ft_task_fn);
		s->tasks[i].runs = &s->runs[i];
		ws_spawn(group, &s->tasks[i].task);
	}
	/* Every task is queued (or injected): let the workers go. */
	ft_blockers_release(s->blockers);
	return ws_group_wait(group);
}

/* How many of @nr counters are not exactly 1 (and reset them). */
static unsigned int ft_not_once(atomic_t *runs, unsigned int nr)
{
	unsigned int i, bad = 0;

	for (i = 0; i < nr; i++) {
		bad += atomic_read(&runs[i]) != 1;
		atomic_set(&runs[i], 0);
	}
	return bad;
}

static void fault_spawn_growth(struct kunit *test)
{
	struct ws_pool *pool;
	struct ft_spawn s;
	struct ws_group outer;
	unsigned int n, lazy, injected[2] = {}, points[2];

	ft_require(test, GFP_NOWAIT, "GFP_NOWAIT");
	s.blockers = kunit_kzalloc(test, sizeof(*s.blockers), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s.blockers);
	s.tasks = kunit_kcalloc(test, FT_TASKS, sizeof(*s.tasks), GFP_KERNEL);
	s.runs = kunit_kcalloc(test, FT_TASKS, sizeof(*s.runs), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s.tasks);
	KUNIT_ASSERT_NOT_NULL(test, s.runs);
	for (lazy = 0; lazy < 2; lazy++) {
		for (n = 1; n <= FT_SCHED_STEPS; n++) {
			int ret;

			bool hit;

			/*
			 * A fresh pool for every step: a deque keeps the size
			 * it grew to (until sparse pops shrink it).
			 */
			pool = ws_test_pool(test, "ft-spawn", NULL);
			s.pool = pool;
			/* Counted spawns: a group set up outside the pool. */
			ws_group_init(&outer, pool);
			s.outer = lazy ? NULL : &outer;
			KUNIT_ASSERT_TRUE(test, ft_blockers_start(s.blockers,
								  pool));
			ft_arm(n);
			ret = ws_pool_execute(pool, ft_spawn_fn, &s);
			hit = ft_disarm();
			injected[lazy] += hit;
			KUNIT_EXPECT_EQ(test, ws_group_wait(&s.blockers->group),
					0);
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "%s, allocation %u",
					    lazy ? "lazy" : "counted", n);
			KUNIT_EXPECT_EQ_MSG(test, ft_not_once(s.runs, FT_TASKS),
					    0U,
					    "%s, allocation %u: tasks not run exactly once",
					    lazy ? "lazy" : "counted", n);
			ws_test_pool_destroy(test, pool);
			if (!hit)
				break;
		}
		points[lazy] = n - 1;
	}
	kunit_info(test, "%u tasks spawned from a joined thread while every worker is busy, fault points failed in turn: 1..%u (counted spawns, %u injected), 1..%u (lazy spawns, %u injected); every task ran once\n",
		   FT_TASKS, points[0], injected[0], points[1], injected[1]);
	/* The deque of a join slot starts small: it had to grow. */
	KUNIT_EXPECT_LT(test, 0U, injected[0]);
	KUNIT_EXPECT_LT(test, 0U, injected[1]);
}

/* ---- ws_parallel_for and ws_parallel_reduce ----------------------------- */

struct ft_loop {
	struct ws_pool *pool;
	atomic_t *hits;
	bool reduce;
	u64 sum;
};

static void ft_for_body(unsigned long b, unsigned long e, void *arg)
{
	struct ft_loop *l = arg;

	for (; b < e; b++)
		atomic_inc(&l->hits[b]);
}

static u64 ft_reduce_body(unsigned long b, unsigned long e, void *arg)
{
	u64 sum = 0;

	ft_for_body(b, e, arg);
	for (; b < e; b++)
		sum += b;
	return sum;
}

static u64 ft_combine(u64 left, u64 right, unsigned long rb,
		      unsigned long re, void *arg)
{
	return left + right;
}

static const struct ws_reduce_ops ft_reduce_ops = {
	.body = ft_reduce_body,
	.combine = ft_combine,
	.identity = 0,
};

static int ft_loop_run(void *arg)
{
	struct ft_loop *l = arg;

	if (l->reduce)
		return ws_parallel_reduce(l->pool, 0, FT_RANGE, 1,
					  &ft_reduce_ops, l, &l->sum);
	return ws_parallel_for(l->pool, 0, FT_RANGE, 1, ft_for_body, l);
}

static void ft_loop_sweep(struct kunit *test, bool reduce)
{
	unsigned int n, joined, injected[2] = {};
	struct ft_loop l = { .reduce = reduce };

	ft_require(test, GFP_NOWAIT, "GFP_NOWAIT");
	l.pool = ws_test_pool(test, reduce ? "ft-reduce" : "ft-for", NULL);
	l.hits = kunit_kcalloc(test, FT_RANGE, sizeof(*l.hits), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l.hits);
	for (joined = 0; joined < 2; joined++) {
		for (n = 1; n <= FT_SCHED_STEPS; n++) {
			int ret;

			l.sum = 0;
			ft_arm(n);
			/* From outside the pool, or on a thread joined to it. */
			ret = joined ? ws_pool_execute(l.pool, ft_loop_run, &l) :
				       ft_loop_run(&l);
			injected[joined] += ft_disarm();
			KUNIT_EXPECT_EQ_MSG(test, ret, 0, "allocation %u", n);
			KUNIT_EXPECT_EQ_MSG(test, ft_not_once(l.hits, FT_RANGE),
					    0U,
					    "allocation %u: indices not run exactly once",
					    n);
			if (reduce)
				KUNIT_EXPECT_EQ_MSG(test, l.sum,
						    (u64)FT_RANGE * (FT_RANGE - 1) / 2,
						    "allocation %u", n);
		}
	}
	kunit_info(test, "%s over %u indices, allocations 1..%u failed in turn: %u failures injected (caller outside the pool), %u (joined); every index ran once\n",
		   reduce ? "ws_parallel_reduce" : "ws_parallel_for", FT_RANGE,
		   FT_SCHED_STEPS, injected[0], injected[1]);
	/* A joined caller runs the loop and splits it itself. */
	KUNIT_EXPECT_LT(test, 0U, injected[1]);
}

static void fault_parallel_for(struct kunit *test)
{
	ft_loop_sweep(test, false);
}

static void fault_parallel_reduce(struct kunit *test)
{
	ft_loop_sweep(test, true);
}

/* ---- ws_task_precede ------------------------------------------------------ */

#define FT_CHAIN	32

struct ft_chain_task {
	struct ws_task task;
	atomic_t *clock;
	unsigned int ran;	/* the clock when it ran, from 1 */
};

static struct ws_task *ft_chain_fn(struct ws_task *task)
{
	struct ft_chain_task *t = container_of(task, struct ft_chain_task, task);

	/* Read after the group's wait, which orders it. */
	t->ran = atomic_inc_return(t->clock);
	return NULL;
}

static void fault_task_precede(struct kunit *test)
{
	struct ft_chain_task *t;
	unsigned int n, i, failed, refused = 0;
	struct ws_group group;
	struct ws_pool *pool;
	atomic_t clock;
	int err[FT_CHAIN];

	ft_require(test, GFP_KERNEL, "GFP_KERNEL");
	pool = ws_test_pool(test, "ft-dag", NULL);
	t = kunit_kcalloc(test, FT_CHAIN, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (n = 1; n <= 4 * FT_CHAIN; n++) {
		bool hit;

		atomic_set(&clock, 0);
		for (i = 0; i < FT_CHAIN; i++) {
			ws_task_init(&t[i].task, ft_chain_fn);
			t[i].clock = &clock;
			t[i].ran = 0;
		}
		/* A chain: edge i makes task i + 1 wait for task i. */
		ft_arm(n);
		for (i = 0; i + 1 < FT_CHAIN; i++)
			err[i] = ws_task_precede(&t[i].task, &t[i + 1].task,
						 GFP_KERNEL);
		hit = ft_disarm();
		ws_group_init(&group, pool);
		for (i = 0; i < FT_CHAIN; i++)
			ws_spawn(&group, &t[i].task);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
		failed = 0;
		for (i = 0; i < FT_CHAIN; i++) {
			KUNIT_EXPECT_NE_MSG(test, t[i].ran, 0U,
					    "allocation %u: task %u never ran", n, i);
			if (i + 1 == FT_CHAIN)
				continue;
			/*
			 * At most the one edge whose allocation failed is
			 * refused, cleanly.  (An injected failure may instead
			 * hit kmemleak's own allocation for the edge, which
			 * falls back to its reserve pool.)
			 */
			KUNIT_EXPECT_TRUE_MSG(test, !err[i] || err[i] == -ENOMEM,
					      "allocation %u, edge %u: %d", n,
					      i, err[i]);
			if (!err[i])
				KUNIT_EXPECT_LT_MSG(test, t[i].ran, t[i + 1].ran,
						    "allocation %u, edge %u", n, i);
			failed += !!err[i];
		}
		KUNIT_EXPECT_LE_MSG(test, failed, hit ? 1U : 0U,
				    "allocation %u", n);
		refused += failed;
		KUNIT_EXPECT_EQ(test, atomic_read(&clock), FT_CHAIN);
		if (!hit)
			break;
	}
	kunit_info(test, "ws_task_precede: a chain of %u edges, fault points 1..%u failed in turn: %u edges refused with -ENOMEM, every task ran once after its other predecessors\n",
		   FT_CHAIN - 1, n - 1, refused);
	KUNIT_EXPECT_LT(test, 0U, refused);
}

static struct kunit_case fault_cases[] = {
	KUNIT_CASE_SLOW(fault_pool_create),
	KUNIT_CASE_SLOW(fault_spawn_growth),
	KUNIT_CASE_SLOW(fault_parallel_for),
	KUNIT_CASE_SLOW(fault_parallel_reduce),
	KUNIT_CASE(fault_task_precede),
	{}
};

static struct kunit_suite fault_suite = {
	.name = "wsched_fault",
	.test_cases = fault_cases,
};

kunit_test_suite(fault_suite);
