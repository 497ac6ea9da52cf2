// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the task model: dependencies, the bypass rules with
 * successors, cancellation, errors, isolation, FIFO enqueue, affinity,
 * pool attributes, CPU hotplug under load and module pinning.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/wsched.h>

#include "ws_test.h"

#include "wsched_internal.h"
#include "wsched_trace.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

static struct ws_pool *api_pool(struct kunit *test, const char *name,
				const struct ws_pool_attrs *attrs)
{
	return ws_test_pool(test, name, attrs);
}

/* ---- a generic recorded node ---- */

#define MAX_PREDS 4

struct rnode {
	struct ws_task task;
	struct rnode *nodes;		/* the whole array */
	unsigned int nr_preds;
	unsigned int preds[MAX_PREDS];
	atomic_t *seq;			/* global order counter */
	atomic_t *violations;
	atomic_t runs;
	atomic_t cancels;
	int order;			/* value of *seq when it ran */
	int done;			/* set when the function finished */
	struct task_struct *thread;
	int fail;			/* errno to report, or 0 */
	unsigned int sleep_ms;
	struct ws_task *ret;		/* returned for bypass */
};

static struct ws_task *rnode_fn(struct ws_task *task)
{
	struct rnode *n = container_of(task, struct rnode, task);
	unsigned int i;

	for (i = 0; i < n->nr_preds; i++)
		/* Pairs with smp_store_release() of done below. */
		if (!smp_load_acquire(&n->nodes[n->preds[i]].done))
			atomic_inc(n->violations);
	n->thread = current;
	n->order = atomic_inc_return(n->seq);
	atomic_inc(&n->runs);
	if (n->sleep_ms)
		usleep_range(n->sleep_ms * 1000, n->sleep_ms * 1000 + 500);
	if (n->fail)
		ws_task_fail(task, n->fail);
	/* Pairs with smp_load_acquire() of done by successors. */
	smp_store_release(&n->done, 1);
	return n->ret;
}

static void rnode_cancel(struct ws_task *task)
{
	struct rnode *n = container_of(task, struct rnode, task);

	atomic_inc(&n->cancels);
	/* Pairs with smp_load_acquire() of done by successors. */
	smp_store_release(&n->done, 1);
}

struct node_set {
	struct rnode *nodes;
	atomic_t seq;
	atomic_t violations;
	unsigned int nr;
};

static void nodes_init(struct kunit *test, struct node_set *set,
		       unsigned int nr)
{
	unsigned int i;

	set->nodes = vzalloc(array_size(nr, sizeof(*set->nodes)));
	KUNIT_ASSERT_NOT_NULL(test, set->nodes);
	set->nr = nr;
	atomic_set(&set->seq, 0);
	atomic_set(&set->violations, 0);
	for (i = 0; i < nr; i++) {
		struct rnode *n = &set->nodes[i];

		ws_task_init(&n->task, rnode_fn);
		ws_task_set_cancel(&n->task, rnode_cancel);
		n->nodes = set->nodes;
		n->seq = &set->seq;
		n->violations = &set->violations;
	}
}

static void node_edge(struct kunit *test, struct node_set *set,
		      unsigned int pred, unsigned int succ)
{
	struct rnode *s = &set->nodes[succ];

	KUNIT_ASSERT_LT(test, s->nr_preds, (unsigned int)MAX_PREDS);
	s->preds[s->nr_preds++] = pred;
	KUNIT_ASSERT_EQ(test, ws_task_precede(&set->nodes[pred].task, &s->task,
					      GFP_KERNEL), 0);
}

static unsigned int nodes_run_once(struct node_set *set)
{
	unsigned int i, once = 0;

	for (i = 0; i < set->nr; i++)
		once += atomic_read(&set->nodes[i].runs) == 1;
	return once;
}

/* ---- dependencies ---- */

/* A before B and C, both before D; 50 rounds from outside the pool. */
static void api_diamond(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_diamond", NULL);
	unsigned int round;

	for (round = 0; round < 50; round++) {
		struct node_set set;
		struct ws_group group;
		struct rnode *n;
		unsigned int i;

		nodes_init(test, &set, 4);
		n = set.nodes;
		node_edge(test, &set, 0, 1);
		node_edge(test, &set, 0, 2);
		node_edge(test, &set, 1, 3);
		node_edge(test, &set, 2, 3);
		ws_group_init(&group, pool);
		/* Spawn in reverse: readiness, not spawn order, decides. */
		for (i = 4; i-- > 0; )
			ws_spawn(&group, &n[i].task);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
		KUNIT_EXPECT_EQ(test, nodes_run_once(&set), 4U);
		KUNIT_EXPECT_EQ(test, atomic_read(&set.violations), 0);
		KUNIT_EXPECT_LT(test, n[0].order, n[1].order);
		KUNIT_EXPECT_LT(test, n[0].order, n[2].order);
		KUNIT_EXPECT_LT(test, n[1].order, n[3].order);
		KUNIT_EXPECT_LT(test, n[2].order, n[3].order);
		vfree(set.nodes);
	}
	ws_test_pool_destroy(test, pool);
}

/*
 * 3000 nodes, each with up to four random earlier predecessors.  The
 * edges of a node are added just before it is spawned, while its
 * predecessors already run or have finished: a DAG built during its
 * execution.
 */
static void api_random_dag(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_dag", NULL);
	struct ws_pool_stats before, after;
	const unsigned int nr = 3000;
	struct ws_group group;
	struct node_set set;
	unsigned int i, j;

	nodes_init(test, &set, nr);
	ws_group_init(&group, pool);
	ws_pool_read_stats(pool, &before);
	for (i = 0; i < nr; i++) {
		unsigned int preds = i ? get_random_u32_below(MAX_PREDS + 1) : 0;

		for (j = 0; j < preds; j++) {
			/* Mostly near neighbours, so many edges are live. */
			unsigned int span = min(i, 20U);
			unsigned int p = i - 1 - get_random_u32_below(span);

			node_edge(test, &set, p, i);
		}
		if (!(i % 7))
			set.nodes[i].sleep_ms = 1;
		ws_spawn(&group, &set.nodes[i].task);
	}
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), nr);
	KUNIT_EXPECT_EQ(test, atomic_read(&set.violations), 0);
	for (i = 0; i < nr; i++)
		for (j = 0; j < set.nodes[i].nr_preds; j++)
			KUNIT_EXPECT_LT(test,
					set.nodes[set.nodes[i].preds[j]].order,
					set.nodes[i].order);
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, (u64)nr);
	KUNIT_EXPECT_GT(test, after.released - before.released, 0ULL);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/*
 * A successor made ready by a finishing task runs next on the same worker
 * through bypass, without deque traffic.  If the task also returns a
 * task, the returned one is bypassed and the successor is spawned.
 */
static void api_bypass_successor(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_succ", NULL);
	struct ws_pool_stats before, after;
	struct ws_group group;
	struct node_set set;
	struct rnode *n;

	/* Case 1: A readies S and returns nothing: S is bypassed. */
	nodes_init(test, &set, 2);
	n = set.nodes;
	node_edge(test, &set, 0, 1);
	ws_group_init(&group, pool);
	ws_spawn(&group, &n[1].task);	/* deferred: waits for A */
	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &n[0].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), 2U);
	KUNIT_EXPECT_PTR_EQ(test, n[1].thread, n[0].thread);
	KUNIT_EXPECT_EQ(test, n[1].order, n[0].order + 1);
	KUNIT_EXPECT_EQ(test, after.bypassed - before.bypassed, 1ULL);
	KUNIT_EXPECT_EQ(test, after.released - before.released, 1ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, 0ULL);
	KUNIT_EXPECT_EQ(test, after.popped - before.popped, 0ULL);
	KUNIT_EXPECT_EQ(test, after.stolen - before.stolen, 0ULL);
	vfree(set.nodes);

	/* Case 2: A readies S and returns B: B is bypassed, S spawned. */
	nodes_init(test, &set, 3);
	n = set.nodes;
	node_edge(test, &set, 0, 1);
	n[0].ret = &n[2].task;
	n[1].sleep_ms = 0;
	ws_group_init(&group, pool);
	ws_spawn(&group, &n[1].task);
	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &n[0].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), 3U);
	KUNIT_EXPECT_PTR_EQ(test, n[2].thread, n[0].thread);
	KUNIT_EXPECT_EQ(test, after.bypassed - before.bypassed, 1ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, 1ULL);
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, 3ULL);
	vfree(set.nodes);

	/*
	 * Case 3: A returns C, which still waits for P (sleeping): C is not
	 * bypassed; it runs only after P.
	 */
	nodes_init(test, &set, 3);
	n = set.nodes;
	n[0].ret = &n[2].task;
	n[1].sleep_ms = 50;		/* P */
	node_edge(test, &set, 1, 2);	/* P before C */
	ws_group_init(&group, pool);
	ws_spawn(&group, &n[1].task);
	ws_spawn(&group, &n[0].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), 3U);
	KUNIT_EXPECT_EQ(test, atomic_read(&set.violations), 0);
	KUNIT_EXPECT_LT(test, n[1].order, n[2].order);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/* ---- cancellation and errors ---- */

static void api_cancel_before(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_cancel", NULL);
	struct ws_pool_stats before, after;
	const unsigned int nr = 100;
	struct ws_group group;
	struct node_set set;
	unsigned int i, cancels = 0;

	nodes_init(test, &set, nr);
	ws_group_init(&group, pool);
	ws_group_cancel(&group);
	KUNIT_EXPECT_TRUE(test, ws_group_cancelled(&group));
	ws_pool_read_stats(pool, &before);
	for (i = 0; i < nr; i++)
		ws_spawn(&group, &set.nodes[i].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), -ECANCELED);
	ws_pool_read_stats(pool, &after);
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&set.nodes[i].runs), 0);
		cancels += atomic_read(&set.nodes[i].cancels);
	}
	KUNIT_EXPECT_EQ(test, cancels, nr);
	KUNIT_EXPECT_EQ(test, after.cancelled - before.cancelled, (u64)nr);
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, 0ULL);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

struct poller {
	struct ws_task task;
	struct ws_group *group;
	atomic_t started;
	bool saw_cancel;
};

static struct ws_task *poller_fn(struct ws_task *task)
{
	struct poller *p = container_of(task, struct poller, task);
	unsigned int i;

	atomic_set(&p->started, 1);
	for (i = 0; i < 5000 && !ws_group_cancelled(p->group); i++)
		usleep_range(1000, 2000);
	p->saw_cancel = ws_group_cancelled(p->group);
	return NULL;
}

/* Cancel while tasks run: each runs or is cancelled, exactly once. */
static void api_cancel_during(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_cancel2", NULL);
	const unsigned int nr = 400;
	struct ws_group group;
	struct node_set set;
	struct poller p = {};
	unsigned int i, ran = 0, cancelled = 0, once = 0;

	nodes_init(test, &set, nr);
	ws_group_init(&group, pool);
	ws_task_init(&p.task, poller_fn);
	p.group = &group;
	ws_spawn(&group, &p.task);
	for (i = 0; i < nr; i++) {
		set.nodes[i].sleep_ms = 5;
		ws_spawn(&group, &set.nodes[i].task);
	}
	while (!atomic_read(&p.started) || atomic_read(&set.seq) < 10)
		usleep_range(1000, 2000);
	ws_group_cancel(&group);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), -ECANCELED);
	KUNIT_EXPECT_TRUE(test, p.saw_cancel);
	for (i = 0; i < nr; i++) {
		int r = atomic_read(&set.nodes[i].runs);
		int c = atomic_read(&set.nodes[i].cancels);

		ran += r;
		cancelled += c;
		once += r + c == 1;
	}
	KUNIT_EXPECT_EQ(test, once, nr);
	KUNIT_EXPECT_GE(test, ran, 10U);
	KUNIT_EXPECT_GT(test, cancelled, 0U);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/*
 * One worker and FIFO order make "first" deterministic: the first error
 * wins; without CANCEL_ON_ERROR everything still runs, with it the rest
 * is cancelled.
 */
static void api_first_error(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = api_pool(test, "t_error", &attrs);
	unsigned long flags;

	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 1U);
	for (flags = 0; flags <= WS_GROUP_CANCEL_ON_ERROR; flags++) {
		struct ws_group group;
		struct node_set set;
		unsigned int i, ran = 0, cancels = 0;

		nodes_init(test, &set, 10);
		set.nodes[3].fail = -EIO;
		set.nodes[7].fail = -ENOMEM;
		ws_group_init_flags(&group, pool, flags);
		for (i = 0; i < 10; i++)
			ws_enqueue(&group, &set.nodes[i].task);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), -EIO);
		for (i = 0; i < 10; i++) {
			ran += atomic_read(&set.nodes[i].runs);
			cancels += atomic_read(&set.nodes[i].cancels);
			if (i < 4)
				KUNIT_EXPECT_EQ(test,
						atomic_read(&set.nodes[i].runs),
						1);
		}
		if (flags) {
			KUNIT_EXPECT_EQ(test, ran, 4U);
			KUNIT_EXPECT_EQ(test, cancels, 6U);
		} else {
			KUNIT_EXPECT_EQ(test, ran, 10U);
			KUNIT_EXPECT_EQ(test, cancels, 0U);
		}
		vfree(set.nodes);
	}
	ws_test_pool_destroy(test, pool);
}

/* ---- isolation ---- */

struct isolation_case {
	struct ws_task task;
	struct ws_pool *pool;
	struct node_set outer, inner;
	struct task_struct *in_region;	/* the thread inside the region */
	atomic_t outer_inside;		/* outer tasks run inside it */
	bool isolate;
};

static struct ws_task *outer_fn(struct ws_task *task)
{
	struct rnode *n = container_of(task, struct rnode, task);
	struct isolation_case *ic = (struct isolation_case *)n->ret;

	/* Pairs with WRITE_ONCE() of in_region: a racy flag is enough. */
	if (READ_ONCE(ic->in_region) == current)
		atomic_inc(&ic->outer_inside);
	atomic_inc(&n->runs);
	usleep_range(n->sleep_ms * 1000, n->sleep_ms * 1000 + 500);
	return NULL;
}

static int isolation_region(void *arg)
{
	struct isolation_case *ic = arg;
	/* The pool's two workers sit on CPUs 0 and 1: mail to the other. */
	int other = raw_smp_processor_id() ? 0 : 1;
	struct ws_group group;
	unsigned int i;

	WRITE_ONCE(ic->in_region, current);
	ws_group_init(&group, ic->pool);
	for (i = 0; i < ic->inner.nr; i++)
		ws_spawn_on(&group, &ic->inner.nodes[i].task, other);
	/* Our deque holds only outer tasks while the inner ones run there. */
	ws_group_wait(&group);
	WRITE_ONCE(ic->in_region, NULL);
	return 0;
}

static struct ws_task *isolation_root(struct ws_task *task)
{
	struct isolation_case *ic = container_of(task, struct isolation_case,
						 task);
	struct ws_group outer;
	unsigned int i;

	ws_group_init(&outer, ic->pool);
	/* Outer tasks first: they sit below the region's on our deque. */
	for (i = 0; i < ic->outer.nr; i++)
		ws_spawn(&outer, &ic->outer.nodes[i].task);
	if (ic->isolate)
		ws_isolate(ic->pool, isolation_region, ic);
	else
		isolation_region(ic);
	ws_group_wait(&outer);
	return NULL;
}

static unsigned int isolation_run(struct kunit *test, struct ws_pool *pool,
				  bool isolate)
{
	struct isolation_case *ic;
	struct ws_group group;
	unsigned int i, inside;

	ic = kunit_kzalloc(test, sizeof(*ic), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ic);
	ic->pool = pool;
	ic->isolate = isolate;
	nodes_init(test, &ic->outer, 64);
	nodes_init(test, &ic->inner, 2);
	for (i = 0; i < ic->outer.nr; i++) {
		ws_task_init(&ic->outer.nodes[i].task, outer_fn);
		ic->outer.nodes[i].ret = (struct ws_task *)ic;
		ic->outer.nodes[i].sleep_ms = 2;
	}
	for (i = 0; i < ic->inner.nr; i++)
		ic->inner.nodes[i].sleep_ms = 30;
	ws_task_init(&ic->task, isolation_root);
	ws_group_init(&group, pool);
	ws_spawn(&group, &ic->task);
	ws_group_wait(&group);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&ic->outer), ic->outer.nr);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&ic->inner), ic->inner.nr);
	inside = atomic_read(&ic->outer_inside);
	vfree(ic->outer.nodes);
	vfree(ic->inner.nodes);
	return inside;
}

/*
 * A worker waiting inside an isolated region must not run the outer
 * tasks queued below the region's on its own deque.  The same run without
 * isolation shows that it otherwise would (so the test can fail).
 */
static void api_isolation(struct kunit *test)
{
	struct ws_pool_attrs attrs = {};
	struct ws_pool *pool;
	cpumask_var_t mask;

	if (!cpu_online(0) || !cpu_online(1))
		kunit_skip(test, "needs CPUs 0 and 1");
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&mask, GFP_KERNEL));
	cpumask_set_cpu(0, mask);
	cpumask_set_cpu(1, mask);
	attrs.cpumask = mask;
	pool = api_pool(test, "t_isolate", &attrs);
	free_cpumask_var(mask);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 2U);
	KUNIT_EXPECT_EQ(test, isolation_run(test, pool, true), 0U);
	KUNIT_EXPECT_GT(test, isolation_run(test, pool, false), 0U);
	ws_test_pool_destroy(test, pool);
}

/* ---- FIFO enqueue ---- */

static void api_enqueue_order(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = api_pool(test, "t_fifo", &attrs);
	struct ws_group group;
	struct node_set set;
	unsigned int i;

	nodes_init(test, &set, 200);
	ws_group_init(&group, pool);
	for (i = 0; i < set.nr; i++)
		ws_enqueue(&group, &set.nodes[i].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), set.nr);
	for (i = 0; i < set.nr; i++)
		KUNIT_EXPECT_EQ(test, set.nodes[i].order, (int)i + 1);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

struct storm {
	struct ws_task task;
	struct ws_pool *pool;
	bool *stop;
	unsigned int depth;
};

static struct ws_task *storm_fn(struct ws_task *task)
{
	struct storm *s = container_of(task, struct storm, task);
	struct storm a, b;
	struct ws_group group;

	do {
		if (!s->depth)
			return NULL;
		a = *s;
		b = *s;
		a.depth--;
		b.depth--;
		ws_task_init(&a.task, storm_fn);
		ws_task_init(&b.task, storm_fn);
		ws_group_init(&group, s->pool);
		ws_spawn(&group, &a.task);
		ws_spawn(&group, &b.task);
		ws_group_wait(&group);
		/* Only the roots loop; pairs with WRITE_ONCE() of stop. */
	} while (s->depth == 12 && !READ_ONCE(*s->stop));
	return NULL;
}

/* Enqueued tasks complete while every worker runs a spawn storm. */
static void api_enqueue_storm(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_storm", NULL);
	struct ws_group storm_group, fifo_group;
	unsigned int i, nr_roots = ws_pool_nr_workers(pool), waited = 0;
	struct node_set set;
	struct storm *roots;
	bool stop = false;

	roots = kunit_kcalloc(test, nr_roots, sizeof(*roots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, roots);
	ws_group_init(&storm_group, pool);
	for (i = 0; i < nr_roots; i++) {
		ws_task_init(&roots[i].task, storm_fn);
		roots[i].pool = pool;
		roots[i].stop = &stop;
		roots[i].depth = 12;
		ws_spawn(&storm_group, &roots[i].task);
	}
	msleep(100);
	nodes_init(test, &set, 50);
	ws_group_init(&fifo_group, pool);
	for (i = 0; i < set.nr; i++)
		ws_enqueue(&fifo_group, &set.nodes[i].task);
	while (!ws_group_done(&fifo_group) && waited++ < 60000)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_TRUE(test, ws_group_done(&fifo_group));
	/* The storm still ran while the FIFO tasks completed. */
	KUNIT_EXPECT_FALSE(test, ws_group_done(&storm_group));
	WRITE_ONCE(stop, true);
	ws_group_wait(&storm_group);
	ws_group_wait(&fifo_group);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), set.nr);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/* ---- affinity and attributes ---- */

struct where {
	struct ws_task task;
	int cpu;
	int nice;
};

static struct ws_task *where_fn(struct ws_task *task)
{
	struct where *w = container_of(task, struct where, task);

	w->cpu = raw_smp_processor_id();
	w->nice = task_nice(current);
	return NULL;
}

/* A task mailed to an idle worker runs on that worker's CPU. */
static void api_affinity(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_affinity", NULL);
	unsigned int cpu, round;

	for (round = 0; round < 5; round++) {
		for_each_online_cpu(cpu) {
			struct ws_group group;
			struct where w;

			ws_task_init(&w.task, where_fn);
			w.cpu = -1;
			msleep(20);	/* let the workers go idle */
			ws_group_init(&group, pool);
			ws_spawn_on(&group, &w.task, cpu);
			ws_group_wait(&group);
			KUNIT_EXPECT_EQ(test, w.cpu, (int)cpu);
		}
	}
	ws_test_pool_destroy(test, pool);
}

static void api_attrs(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .nice = 5 };
	cpumask_var_t mask;
	struct ws_pool *pool;
	struct ws_group group;
	struct where *w;
	unsigned int i, first = cpumask_first(cpu_online_mask);

	w = kunit_kcalloc(test, 100, sizeof(*w), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&mask, GFP_KERNEL));
	cpumask_set_cpu(first, mask);
	attrs.cpumask = mask;
	pool = api_pool(test, "t_attrs", &attrs);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 1U);
	ws_group_init(&group, pool);
	for (i = 0; i < 100; i++) {
		ws_task_init(&w[i].task, where_fn);
		ws_spawn(&group, &w[i].task);
	}
	ws_group_wait(&group);
	for (i = 0; i < 100; i++) {
		KUNIT_EXPECT_EQ(test, w[i].cpu, (int)first);
		KUNIT_EXPECT_EQ(test, w[i].nice, 5);
	}
	ws_test_pool_destroy(test, pool);

	/* A worker limit, and a mask without any CPU. */
	attrs.cpumask = NULL;
	attrs.max_workers = 2;
	pool = api_pool(test, "t_attrs", &attrs);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool),
			min(2U, num_online_cpus()));
	ws_test_pool_destroy(test, pool);
	cpumask_clear(mask);
	attrs.cpumask = mask;
	KUNIT_EXPECT_EQ(test, PTR_ERR(ws_pool_create_attrs("t_attrs", &attrs)),
			-EINVAL);
	free_cpumask_var(mask);
}

/* ---- CPU hotplug under load ---- */

static void api_hotplug(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_hotplug", NULL);
	unsigned int online = num_online_cpus();
	const unsigned int nr = 3000;
	struct ws_group group;
	struct node_set set;
	unsigned int i, cpu, cycles = 0;

	if (online < 2)
		kunit_skip(test, "needs at least two CPUs");
	nodes_init(test, &set, nr);
	ws_group_init(&group, pool);
	for (i = 0; i < nr; i++) {
		if (!(i % 3))
			set.nodes[i].sleep_ms = 1;
		if (i % 5 == 1)
			ws_spawn_on(&group, &set.nodes[i].task,
				    1 + i % (online - 1));
		else
			ws_spawn(&group, &set.nodes[i].task);
	}
	for_each_online_cpu(cpu) {
		if (!cpu || !cpu_is_hotpluggable(cpu))
			continue;
		if (remove_cpu(cpu))
			continue;
		KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), online - 1);
		msleep(20);
		KUNIT_EXPECT_EQ(test, add_cpu(cpu), 0);
		KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), online);
		cycles++;
	}
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), nr);
	KUNIT_EXPECT_GT(test, cycles, 0U);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/* ---- lifetime ---- */

/* A pool holds a reference on wsched, so it cannot be unloaded. */
static void api_module_pin(struct kunit *test)
{
	struct module *mod = ws_owner_module();
	int refs = module_refcount(mod);
	struct ws_pool *pool = api_pool(test, "t_pin", NULL);

	KUNIT_EXPECT_EQ(test, module_refcount(mod), refs + 1);
	ws_test_pool_destroy(test, pool);
	KUNIT_EXPECT_EQ(test, module_refcount(mod), refs);
}

/* ---- a sleeping task holds up only its own worker ---- */

static void api_long_task(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_long", NULL);
	struct ws_group slow_group, fast_group;
	struct node_set slow, fast;
	unsigned int i;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	nodes_init(test, &slow, 1);
	nodes_init(test, &fast, 300);
	slow.nodes[0].sleep_ms = 1000;
	ws_group_init(&slow_group, pool);
	ws_group_init(&fast_group, pool);
	ws_spawn(&slow_group, &slow.nodes[0].task);
	while (!atomic_read(&slow.seq))
		usleep_range(1000, 2000);
	for (i = 0; i < fast.nr; i++)
		ws_spawn(&fast_group, &fast.nodes[i].task);
	ws_group_wait(&fast_group);
	/* All 300 finished while the sleeper still slept. */
	KUNIT_EXPECT_FALSE(test, ws_group_done(&slow_group));
	KUNIT_EXPECT_EQ(test, nodes_run_once(&fast), fast.nr);
	ws_group_wait(&slow_group);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&slow), 1U);
	vfree(slow.nodes);
	vfree(fast.nodes);
	ws_test_pool_destroy(test, pool);
}

/* ---- tracepoints ---- */

struct trace_counts {
	struct ws_pool *pool;
	atomic_t spawn, execute, bypass, steal, sleep, wake;
};

static void probe_spawn(void *data, const struct ws_pool *pool,
			const struct ws_task *task)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->spawn);
}

static void probe_execute(void *data, const struct ws_pool *pool,
			  const struct ws_task *task)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->execute);
}

static void probe_bypass(void *data, const struct ws_pool *pool,
			 const struct ws_task *task)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->bypass);
}

static void probe_steal(void *data, const struct ws_pool *pool,
			const struct ws_task *task, unsigned int victim)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->steal);
}

static void probe_sleep(void *data, const struct ws_pool *pool,
			unsigned int cpu)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->sleep);
}

static void probe_wake(void *data, const struct ws_pool *pool,
		       unsigned int cpu)
{
	struct trace_counts *c = data;

	if (pool == c->pool)
		atomic_inc(&c->wake);
}

/* Every spawn, execution, bypass and steal shows up as a trace event. */
static void api_tracepoints(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_trace", NULL);
	struct ws_pool_stats before, after;
	struct trace_counts *c;
	struct ws_group group;
	struct node_set set;
	unsigned int i;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->pool = pool;
	KUNIT_ASSERT_EQ(test, register_trace_wsched_spawn(probe_spawn, c), 0);
	KUNIT_ASSERT_EQ(test, register_trace_wsched_execute(probe_execute, c), 0);
	KUNIT_ASSERT_EQ(test, register_trace_wsched_bypass(probe_bypass, c), 0);
	KUNIT_ASSERT_EQ(test, register_trace_wsched_steal(probe_steal, c), 0);
	KUNIT_ASSERT_EQ(test, register_trace_wsched_sleep(probe_sleep, c), 0);
	KUNIT_ASSERT_EQ(test, register_trace_wsched_wake(probe_wake, c), 0);

	/* A chain (bypass) followed by a fan-out from a task (spawns). */
	nodes_init(test, &set, 200);
	for (i = 0; i + 1 < 100; i++)
		set.nodes[i].ret = &set.nodes[i + 1].task;
	ws_group_init(&group, pool);
	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &set.nodes[0].task);
	for (i = 100; i < set.nr; i++)
		ws_spawn(&group, &set.nodes[i].task);
	ws_group_wait(&group);
	msleep(50);		/* let the workers go to sleep */
	ws_pool_read_stats(pool, &after);

	unregister_trace_wsched_spawn(probe_spawn, c);
	unregister_trace_wsched_execute(probe_execute, c);
	unregister_trace_wsched_bypass(probe_bypass, c);
	unregister_trace_wsched_steal(probe_steal, c);
	unregister_trace_wsched_sleep(probe_sleep, c);
	unregister_trace_wsched_wake(probe_wake, c);
	tracepoint_synchronize_unregister();

	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), set.nr);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->execute),
			after.executed - before.executed);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->execute), (int)set.nr);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->bypass),
			after.bypassed - before.bypassed);
	KUNIT_EXPECT_GE(test, atomic_read(&c->bypass), 99);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->spawn),
			after.spawned - before.spawned);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->steal),
			after.stolen - before.stolen);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->sleep),
			after.sleeps - before.sleeps);
	KUNIT_EXPECT_EQ(test, (u64)atomic_read(&c->wake),
			after.wakeups - before.wakeups);
	KUNIT_EXPECT_GT(test, atomic_read(&c->sleep), 0);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

/* ---- suspend ---- */

/* While frozen no task starts; after the thaw every one runs once. */
static void api_freeze(struct kunit *test)
{
	struct ws_pool *pool = api_pool(test, "t_freeze", NULL);
	struct ws_group group;
	struct node_set set;
	unsigned int i;

	nodes_init(test, &set, 100);
	ws_group_init(&group, pool);
	ws_freeze_pools(true);
	for (i = 0; i < set.nr; i++)
		ws_spawn(&group, &set.nodes[i].task);
	msleep(100);
	KUNIT_EXPECT_EQ(test, atomic_read(&set.seq), 0);
	KUNIT_EXPECT_FALSE(test, ws_group_done(&group));
	ws_freeze_pools(false);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, nodes_run_once(&set), set.nr);
	vfree(set.nodes);
	ws_test_pool_destroy(test, pool);
}

static struct kunit_case api_cases[] = {
	KUNIT_CASE(api_diamond),
	KUNIT_CASE(api_random_dag),
	KUNIT_CASE(api_bypass_successor),
	KUNIT_CASE(api_cancel_before),
	KUNIT_CASE(api_cancel_during),
	KUNIT_CASE(api_first_error),
	KUNIT_CASE(api_isolation),
	KUNIT_CASE(api_enqueue_order),
	KUNIT_CASE(api_enqueue_storm),
	KUNIT_CASE(api_affinity),
	KUNIT_CASE(api_attrs),
	KUNIT_CASE(api_hotplug),
	KUNIT_CASE(api_module_pin),
	KUNIT_CASE(api_long_task),
	KUNIT_CASE(api_freeze),
	KUNIT_CASE(api_tracepoints),
	{}
};

static struct kunit_suite api_suite = {
	.name = "wsched_api",
	.test_cases = api_cases,
};

kunit_test_suite(api_suite);
