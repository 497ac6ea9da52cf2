// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the scheduler: fork-join, bypass, stealing, the victims
 * tried first, waiting from outside the pool, nesting bounds and pool
 * lifetime.  Each test uses a
 * private pool, so its counters move only for the test's own tasks.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/topology.h>
#include <linux/wsched.h>

#include "ws_test.h"
#include "wsched_internal.h"

static struct ws_pool *test_pool(struct kunit *test, const char *name)
{
	struct ws_pool *pool = ws_test_pool(test, name, NULL);

	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), num_online_cpus());
	return pool;
}

/* ---- fork-join fib, a task spawned at every call ---- */

struct fib_frame {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int n;
	unsigned long result;
};

static struct ws_task *fib_fn(struct ws_task *task);

static void fib_frame_init(struct fib_frame *f, struct ws_pool *pool,
			   unsigned int n)
{
	ws_task_init(&f->task, fib_fn);
	f->pool = pool;
	f->n = n;
	f->result = 0;
}

static struct ws_task *fib_fn(struct ws_task *task)
{
	struct fib_frame *f = container_of(task, struct fib_frame, task);
	struct fib_frame a, b;
	struct ws_group group;

	if (f->n < 2) {
		f->result = f->n;
		return NULL;
	}
	ws_group_init(&group, f->pool);
	fib_frame_init(&a, f->pool, f->n - 1);
	fib_frame_init(&b, f->pool, f->n - 2);
	ws_spawn(&group, &a.task);
	ws_spawn(&group, &b.task);
	ws_group_wait(&group);
	f->result = a.result + b.result;
	return NULL;
}

static unsigned long fib_serial(unsigned int n)
{
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}

/* Calls of the recursion: calls(n) = 2 * fib(n + 1) - 1. */
static unsigned long fib_calls(unsigned int n)
{
	return 2 * fib_serial(n + 1) - 1;
}

static unsigned long fib_parallel(struct ws_pool *pool, unsigned int n)
{
	struct fib_frame root;
	struct ws_group group;

	ws_group_init(&group, pool);
	fib_frame_init(&root, pool, n);
	ws_spawn(&group, &root.task);
	ws_group_wait(&group);
	return root.result;
}

static void sched_fib25(struct kunit *test)
{
	struct ws_pool *pool = test_pool(test, "t_fib");
	struct ws_pool_stats before, after;
	unsigned long result;

	ws_pool_read_stats(pool, &before);
	result = fib_parallel(pool, 25);
	ws_pool_read_stats(pool, &after);

	KUNIT_EXPECT_EQ(test, result, fib_serial(25));
	KUNIT_EXPECT_EQ(test, result, 75025UL);
	/* Every call ran exactly once: one injected root, the rest spawned. */
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, fib_calls(25));
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, 1ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, fib_calls(25) - 1);
	KUNIT_EXPECT_EQ(test, (after.popped - before.popped) +
			(after.stolen - before.stolen), fib_calls(25) - 1);
	ws_test_pool_destroy(test, pool);
}

static void sched_system_pool(struct kunit *test)
{
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ws_system_pool);
	KUNIT_EXPECT_EQ(test, fib_parallel(ws_system_pool, 18), fib_serial(18));
	KUNIT_EXPECT_EQ(test, fib_parallel(NULL, 12), fib_serial(12));
}

/* ---- bypass ---- */

#define CHAIN_LEN 1000

struct chain_link {
	struct ws_task task;
	unsigned int pos;
	struct chain *chain;
};

struct chain {
	struct chain_link links[CHAIN_LEN];
	struct task_struct *thread[CHAIN_LEN];
	unsigned int order[CHAIN_LEN];
	atomic_t next_seq;
};

static struct ws_task *chain_fn(struct ws_task *task)
{
	struct chain_link *link = container_of(task, struct chain_link, task);
	struct chain *chain = link->chain;
	unsigned int pos = link->pos;

	chain->thread[pos] = current;
	chain->order[pos] = atomic_inc_return(&chain->next_seq);
	if (pos + 1 == CHAIN_LEN)
		return NULL;
	return &chain->links[pos + 1].task;
}

/*
 * A chain of tasks, each returning the next: all run on the worker that
 * took the first, in order, with no deque traffic at all.
 */
static void sched_bypass(struct kunit *test)
{
	struct ws_pool *pool = test_pool(test, "t_bypass");
	struct ws_pool_stats before, after;
	struct ws_group group;
	struct chain *chain;
	unsigned int i;

	chain = kunit_kzalloc(test, sizeof(*chain), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, chain);
	for (i = 0; i < CHAIN_LEN; i++) {
		ws_task_init(&chain->links[i].task, chain_fn);
		chain->links[i].pos = i;
		chain->links[i].chain = chain;
	}
	ws_group_init(&group, pool);
	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &chain->links[0].task);
	ws_group_wait(&group);
	ws_pool_read_stats(pool, &after);

	for (i = 0; i < CHAIN_LEN; i++) {
		KUNIT_EXPECT_EQ(test, chain->order[i], i + 1);
		KUNIT_EXPECT_PTR_EQ(test, chain->thread[i], chain->thread[0]);
	}
	/*
	 * Run by a worker, or by us: a waiter that is not a worker joins
	 * the pool and may take the injected chain itself.
	 */
	KUNIT_EXPECT_TRUE(test, chain->thread[0] == current ||
			  ((chain->thread[0]->flags & PF_KTHREAD) &&
			   !strncmp(chain->thread[0]->comm, "ws/", 3)));
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, (u64)CHAIN_LEN);
	KUNIT_EXPECT_EQ(test, after.bypassed - before.bypassed,
			(u64)CHAIN_LEN - 1);
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, 1ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, 0ULL);
	KUNIT_EXPECT_EQ(test, after.popped - before.popped, 0ULL);
	KUNIT_EXPECT_EQ(test, after.stolen - before.stolen, 0ULL);
	ws_test_pool_destroy(test, pool);
}

/* ---- many tasks, counted one by one ---- */

struct counted {
	struct ws_task task;
	atomic_t runs;
	int cpu;
	unsigned int delay_us;
	atomic_t *finished;
};

static struct ws_task *counted_fn(struct ws_task *task)
{
	struct counted *c = container_of(task, struct counted, task);

	if (c->delay_us > 100)
		usleep_range(c->delay_us, c->delay_us * 2);
	else if (c->delay_us)
		udelay(c->delay_us);
	c->cpu = raw_smp_processor_id();
	atomic_inc(&c->runs);
	atomic_inc(c->finished);
	return NULL;
}

static struct counted *counted_alloc(struct kunit *test, unsigned int n,
				     unsigned int delay_us, atomic_t *finished)
{
	struct counted *c = kunit_kcalloc(test, n, sizeof(*c), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, c);
	for (i = 0; i < n; i++) {
		ws_task_init(&c[i].task, counted_fn);
		c[i].delay_us = delay_us;
		c[i].cpu = -1;
		c[i].finished = finished;
	}
	return c;
}

static void expect_each_once(struct kunit *test, struct counted *c,
			     unsigned int n)
{
	unsigned int i, once = 0;

	for (i = 0; i < n; i++)
		once += atomic_read(&c[i].runs) == 1;
	KUNIT_EXPECT_EQ(test, once, n);
}

struct fan_out {
	struct ws_task task;
	struct ws_pool *pool;
	struct counted *children;
	unsigned int nr;
};

/* A task on a worker spawns all children onto its own deque and waits. */
static struct ws_task *fan_out_fn(struct ws_task *task)
{
	struct fan_out *f = container_of(task, struct fan_out, task);
	struct ws_group group;
	unsigned int i;

	ws_group_init(&group, f->pool);
	for (i = 0; i < f->nr; i++)
		ws_spawn(&group, &f->children[i].task);
	ws_group_wait(&group);
	return NULL;
}

#define STEAL_TASKS 256

static void sched_steal(struct kunit *test)
{
	struct ws_pool_stats before, after;
	struct ws_pool *pool;
	struct ws_group group;
	struct fan_out root;
	atomic_t finished = ATOMIC_INIT(0);
	unsigned int i, nr_cpus = 0;
	cpumask_var_t cpus;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	pool = test_pool(test, "t_steal");
	root.children = counted_alloc(test, STEAL_TASKS, 300, &finished);
	root.nr = STEAL_TASKS;
	root.pool = pool;
	ws_task_init(&root.task, fan_out_fn);
	ws_group_init(&group, pool);

	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &root.task);
	ws_group_wait(&group);
	ws_pool_read_stats(pool, &after);

	expect_each_once(test, root.children, STEAL_TASKS);
	KUNIT_EXPECT_EQ(test, atomic_read(&finished), STEAL_TASKS);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, (u64)STEAL_TASKS);
	KUNIT_EXPECT_GT(test, after.stolen - before.stolen, 0ULL);
	KUNIT_EXPECT_EQ(test, (after.popped - before.popped) +
			(after.stolen - before.stolen), (u64)STEAL_TASKS);
	/* Some steals (from threads that joined) count in neither. */
	KUNIT_EXPECT_LE(test, (after.stolen_local - before.stolen_local) +
			(after.stolen_remote - before.stolen_remote),
			after.stolen - before.stolen);
	ws_test_pool_destroy(test, pool);
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&cpus, GFP_KERNEL));
	for (i = 0; i < STEAL_TASKS; i++)
		if (root.children[i].cpu >= 0)
			cpumask_set_cpu(root.children[i].cpu, cpus);
	nr_cpus = cpumask_weight(cpus);
	free_cpumask_var(cpus);
	KUNIT_EXPECT_GE(test, nr_cpus, 2U);
}

/*
 * A thread outside the pool spawns sleeping tasks and waits: the wait
 * returns only once all of them have run, each exactly once.
 */
static void sched_outside_wait(struct kunit *test)
{
	const unsigned int n = 1000;
	struct ws_pool_stats before, after;
	atomic_t finished = ATOMIC_INIT(0);
	struct ws_pool *pool;
	struct ws_group group;
	struct counted *c;
	unsigned int i;

	pool = test_pool(test, "t_outside");
	c = counted_alloc(test, n, 0, &finished);
	for (i = 0; i < n; i += 50)
		c[i].delay_us = 2000;	/* some tasks sleep */
	ws_group_init(&group, pool);
	ws_pool_read_stats(pool, &before);
	for (i = 0; i < n; i++)
		ws_spawn(&group, &c[i].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&finished), n);
	KUNIT_EXPECT_TRUE(test, ws_group_done(&group));
	ws_pool_read_stats(pool, &after);
	expect_each_once(test, c, n);
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, (u64)n);
	KUNIT_EXPECT_EQ(test, after.executed - before.executed, (u64)n);

	/* The group can be used again once empty. */
	atomic_set(&finished, 0);
	for (i = 0; i < n; i++)
		ws_spawn(&group, &c[i].task);
	ws_group_wait(&group);
	KUNIT_EXPECT_EQ(test, atomic_read(&finished), n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&c[i].runs), 2);
	ws_test_pool_destroy(test, pool);
}

/* ---- nesting deeper than a single worker may go ---- */

/**
 * struct chain_frame - a level of a chain of nested waits
 * @task: the level's task
 * @pool: the pool
 * @depth: levels below this one
 * @levels: per level, how many times it ran
 * @deepest: the largest wait depth a level ran at, on its thread's slot
 *	(one wait deeper than the wait that ran it)
 */
struct chain_frame {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int depth;
	atomic_t *levels;
	atomic_t *deepest;
};

/* Raise @max to @val if it is larger. */
static void chain_note_max(atomic_t *max, int val)
{
	int old = atomic_read(max);

	while (val > old && !atomic_try_cmpxchg(max, &old, val))
		;
}

static struct ws_task *deep_fn(struct ws_task *task)
{
	struct chain_frame *f = container_of(task, struct chain_frame, task);
	struct ws_worker *slot = ws_pool_current(f->pool);
	struct chain_frame child;
	struct ws_group group;

	atomic_inc(&f->levels[f->depth]);
	/* Our own slot's: no other thread writes it. */
	if (slot)
		chain_note_max(f->deepest, slot->inv.wait_depth);
	if (!f->depth)
		return NULL;
	child = *f;
	ws_task_init(&child.task, deep_fn);
	child.depth--;
	ws_group_init(&group, f->pool);
	ws_spawn(&group, &child.task);
	ws_group_wait(&group);
	return NULL;
}

/*
 * Each level spawns one child and waits for it, 1.5 times deeper than
 * one worker may nest: the worker at the bound sleeps and another worker
 * steals the rest of the chain.  The spawns are latent and the waits
 * run them inline (__ws_wait_latent()), which must keep to the same
 * bound: no level runs more than WS_MAX_WAIT_DEPTH waits deep.
 */
static void sched_deep_nesting(struct kunit *test)
{
	const unsigned int depth = WS_MAX_WAIT_DEPTH * 3 / 2;
	atomic_t deepest = ATOMIC_INIT(0);
	struct chain_frame root;
	struct ws_pool *pool;
	struct ws_group group;
	unsigned int i, once = 0;
	atomic_t *levels;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	pool = test_pool(test, "t_deep");
	levels = kunit_kcalloc(test, depth + 1, sizeof(*levels), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, levels);
	ws_task_init(&root.task, deep_fn);
	root.pool = pool;
	root.depth = depth;
	root.levels = levels;
	root.deepest = &deepest;
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	ws_group_wait(&group);
	for (i = 0; i <= depth; i++)
		once += atomic_read(&levels[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, depth + 1);
	KUNIT_EXPECT_LE(test, atomic_read(&deepest), WS_MAX_WAIT_DEPTH);
	ws_test_pool_destroy(test, pool);
}

/*
 * Two chains, each four times deeper than one thread may nest, on a pool
 * of two workers: both workers end up at the bound with the rest of a
 * chain left on their deques, and before compensation threads the pool
 * stalled there.  Every level must run exactly once.
 */
static void sched_stall_depth(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	const unsigned int depth = 4 * WS_MAX_WAIT_DEPTH;
	atomic_t deepest = ATOMIC_INIT(0);
	struct ws_pool_stats before, after;
	struct chain_frame roots[2];
	struct ws_pool *pool;
	struct ws_group group;
	unsigned int c, i, once = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	pool = ws_test_pool(test, "t_stall", &attrs);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 2U);
	ws_pool_read_stats(pool, &before);
	ws_group_init(&group, pool);
	for (c = 0; c < 2; c++) {
		roots[c].levels = kunit_kcalloc(test, depth + 1,
						sizeof(atomic_t), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, roots[c].levels);
		ws_task_init(&roots[c].task, deep_fn);
		roots[c].pool = pool;
		roots[c].depth = depth;
		roots[c].deepest = &deepest;
	}
	for (c = 0; c < 2; c++)
		ws_spawn(&group, &roots[c].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);
	for (c = 0; c < 2; c++)
		for (i = 0; i <= depth; i++)
			once += atomic_read(&roots[c].levels[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, 2 * (depth + 1));
	KUNIT_EXPECT_LE(test, atomic_read(&deepest), WS_MAX_WAIT_DEPTH);
	KUNIT_EXPECT_GT(test, after.compensated - before.compensated, 0ULL);
	ws_test_pool_destroy(test, pool);
}

/* ---- pool lifetime ---- */

static void sched_pool_lifecycle(struct kunit *test)
{
	atomic_t finished = ATOMIC_INIT(0);
	unsigned int round, i;
	struct counted *c;

	c = counted_alloc(test, 64, 0, &finished);
	for (round = 0; round < 20; round++) {
		struct ws_pool *pool = test_pool(test, "t_life");
		struct ws_group group;

		ws_group_init(&group, pool);
		for (i = 0; i < 64; i++)
			ws_spawn(&group, &c[i].task);
		ws_group_wait(&group);
		ws_test_pool_destroy(test, pool);
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&finished), 20 * 64);
	for (i = 0; i < 64; i++)
		KUNIT_EXPECT_EQ(test, atomic_read(&c[i].runs), 20);

	/* An idle pool destroyed at once, and an unused one. */
	ws_test_pool_destroy(test, test_pool(test, "t_life"));
	ws_pool_destroy(NULL);
}

/* ---- the victims a CPU's worker tries first ---- */

/* The level ws_steal() must put @b at for thief @a, from the topology. */
static unsigned int victim_level(unsigned int a, unsigned int b)
{
	if (cpumask_test_cpu(b, topology_sibling_cpumask(a)))
		return WS_TOPO_SMT;
	if (ws_cpus_share_llc(a, b))
		return WS_TOPO_LLC;
	if (cpu_to_node(a) == cpu_to_node(b))
		return WS_TOPO_NODE;
	return WS_TOPO_SYSTEM;
}

/*
 * Every online CPU slot of a new pool lists each other online CPU of its
 * SMT siblings, LLC and NUMA node exactly once, at its level, levels in
 * order, and nothing farther (tried last, with every slot); join slots
 * have no list (they steal from anyone).
 */
static void sched_victims_near_first(struct kunit *test)
{
	struct ws_pool *pool = test_pool(test, "t_victims");
	unsigned int cpu, x, i, l, want, bad = 0, seen = 0;

	cpus_read_lock();
	rcu_read_lock();
	for_each_online_cpu(cpu) {
		/* Pairs with rcu_assign_pointer() in ws_victims_set(). */
		const struct ws_victims *v =
			rcu_dereference(pool->workers[cpu]->victims);

		if (!v) {
			bad++;
			continue;
		}
		seen++;
		want = 0;
		for_each_online_cpu(x)
			want += x != cpu && victim_level(cpu, x) < WS_TOPO_NR_NEAR;
		bad += v->end[WS_TOPO_NR_NEAR - 1] != want;
		bad += bitmap_weight(v->near, nr_cpu_ids) != want;
		for (l = 0, i = 0; l < WS_TOPO_NR_NEAR; l++) {
			bad += l && v->end[l] < v->end[l - 1];
			for (; i < v->end[l] && i < want; i++) {
				x = v->cpu[i];
				bad += x == cpu || !cpu_online(x) ||
				       !test_bit(x, v->near) ||
				       victim_level(cpu, x) != l;
			}
		}
	}
	for (i = pool->nr_cpus; i < pool->nr_slots; i++)
		bad += !!rcu_access_pointer(pool->workers[i]->victims);
	rcu_read_unlock();
	cpus_read_unlock();
	KUNIT_EXPECT_EQ(test, seen, num_online_cpus());
	KUNIT_EXPECT_EQ(test, bad, 0U);
}

static struct kunit_case sched_cases[] = {
	KUNIT_CASE(sched_fib25),
	KUNIT_CASE(sched_system_pool),
	KUNIT_CASE(sched_bypass),
	KUNIT_CASE(sched_steal),
	KUNIT_CASE(sched_victims_near_first),
	KUNIT_CASE(sched_outside_wait),
	KUNIT_CASE(sched_deep_nesting),
	KUNIT_CASE(sched_stall_depth),
	KUNIT_CASE(sched_pool_lifecycle),
	{}
};

static struct kunit_suite sched_suite = {
	.name = "wsched_sched",
	.test_cases = sched_cases,
};

kunit_test_suite(sched_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for wsched");
