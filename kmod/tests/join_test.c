// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of waits that never stall and of threads that join a pool:
 * an external waiter runs its group's tasks itself (even when every worker
 * is busy), what it spawns is stealable, isolation holds for it; mail to a
 * busy worker is taken by another; a task that returns
 * itself after gaining a predecessor waits for it; lazily spawned tasks
 * (a group's owner does not count its spawns unless they are stolen) are
 * waited for correctly by the owner and by others; a pool with a worker
 * limit replaces a worker whose CPU goes offline; a killable wait
 * returns when its thread is killed; a compensation thread blocked in a
 * task on a child it spawned gets another to run the child.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/wsched.h>

#include "ws_test.h"

/* Longest a test waits for something before it gives up and fails. */
#define JT_TIMEOUT	(20 * HZ)

static struct ws_pool *jt_pool(struct kunit *test, const char *name,
			       const struct ws_pool_attrs *attrs)
{
	return ws_test_pool(test, name, attrs);
}

/* A kthread of the pool: a worker or a compensation thread. */
static bool jt_pool_thread(struct task_struct *t)
{
	return t && (t->flags & PF_KTHREAD) && !strncmp(t->comm, "ws/", 3);
}

/* ---- blockers: keep every worker of a pool busy ---- */

/**
 * struct jt_blockers - tasks that hold every worker until released
 * @tasks: one per worker
 * @group: their group
 * @started: how many are running
 * @release: set to let them finish
 * @timed_out: a blocker gave up waiting for @release
 */
struct jt_blockers {
	struct ws_task *tasks;
	struct ws_group group;
	atomic_t started;
	int release;
	atomic_t timed_out;
};

static struct jt_blockers *jt_blockers_of;

static struct ws_task *jt_blocker_fn(struct ws_task *task)
{
	struct jt_blockers *b = jt_blockers_of;
	unsigned long deadline = jiffies + JT_TIMEOUT;

	atomic_inc(&b->started);
	/* Pairs with smp_store_release() in jt_blockers_release(). */
	while (!smp_load_acquire(&b->release)) {
		if (time_after(jiffies, deadline)) {
			atomic_inc(&b->timed_out);
			break;
		}
		cond_resched();
	}
	return NULL;
}

/* Occupy all @n workers of @pool; true once every one runs a blocker. */
static bool jt_blockers_start(struct kunit *test, struct jt_blockers *b,
			      struct ws_pool *pool, unsigned int n)
{
	unsigned long deadline = jiffies + JT_TIMEOUT;
	unsigned int i;

	b->tasks = kunit_kcalloc(test, n, sizeof(*b->tasks), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->tasks);
	atomic_set(&b->started, 0);
	atomic_set(&b->timed_out, 0);
	b->release = 0;
	jt_blockers_of = b;
	ws_group_init(&b->group, pool);
	for (i = 0; i < n; i++) {
		ws_task_init(&b->tasks[i], jt_blocker_fn);
		ws_spawn(&b->group, &b->tasks[i]);
	}
	while (atomic_read(&b->started) < n) {
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(1000, 2000);
	}
	return true;
}

static void jt_blockers_release(struct kunit *test, struct jt_blockers *b)
{
	/* Pairs with smp_load_acquire() in jt_blocker_fn(). */
	smp_store_release(&b->release, 1);
	ws_group_wait(&b->group);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->timed_out), 0);
}

/* ---- recorded tasks ---- */

/**
 * struct jt_node - a task that records who ran it
 * @task: the task
 * @runs: times it ran
 * @thread: the thread that ran it last
 * @cpu: the CPU it ran on last
 * @sleep_us: how long it sleeps
 */
struct jt_node {
	struct ws_task task;
	atomic_t runs;
	struct task_struct *thread;
	unsigned int cpu;
	unsigned int sleep_us;
};

static struct ws_task *jt_node_fn(struct ws_task *task)
{
	struct jt_node *n = container_of(task, struct jt_node, task);

	n->thread = current;
	n->cpu = raw_smp_processor_id();
	atomic_inc(&n->runs);
	if (n->sleep_us)
		usleep_range(n->sleep_us, n->sleep_us + 100);
	return NULL;
}

static struct jt_node *jt_nodes(struct kunit *test, unsigned int n,
				unsigned int sleep_us)
{
	struct jt_node *nodes;
	unsigned int i;

	nodes = kunit_kcalloc(test, n, sizeof(*nodes), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, nodes);
	for (i = 0; i < n; i++) {
		ws_task_init(&nodes[i].task, jt_node_fn);
		nodes[i].sleep_us = sleep_us;
	}
	return nodes;
}

static unsigned int jt_ran_once(struct jt_node *nodes, unsigned int n)
{
	unsigned int i, once = 0;

	for (i = 0; i < n; i++)
		once += atomic_read(&nodes[i].runs) == 1;
	return once;
}

/*
 * Every worker is busy until the group is done: the thread that waits
 * from outside must run the whole group itself.
 */
static void join_busy_pool(struct kunit *test)
{
	struct ws_pool *pool = jt_pool(test, "t_jbusy", NULL);
	unsigned int workers = ws_pool_nr_workers(pool);
	const unsigned int n = 200;
	struct ws_pool_stats before, after;
	struct jt_blockers blockers;
	struct jt_node *nodes = jt_nodes(test, n, 0);
	struct ws_group group;
	unsigned int i, mine = 0;

	KUNIT_ASSERT_TRUE(test, jt_blockers_start(test, &blockers, pool,
						  workers));
	ws_pool_read_stats(pool, &before);
	ws_group_init(&group, pool);
	for (i = 0; i < n; i++)
		ws_spawn(&group, &nodes[i].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_EQ(test, jt_ran_once(nodes, n), n);
	for (i = 0; i < n; i++)
		mine += nodes[i].thread == current;
	KUNIT_EXPECT_EQ(test, mine, n);
	KUNIT_EXPECT_GE(test, after.joined - before.joined, 1ULL);
	jt_blockers_release(test, &blockers);
	ws_test_pool_destroy(test, pool);
}

/**
 * struct jt_exec - what a function run by ws_pool_execute() spawns
 * @pool: the pool
 * @nodes: the tasks
 * @n: how many
 * @self: the thread that ran the function
 * @err: what the wait returned
 */
struct jt_exec {
	struct ws_pool *pool;
	struct jt_node *nodes;
	unsigned int n;
	struct task_struct *self;
	int err;
};

static int jt_exec_fn(void *arg)
{
	struct jt_exec *e = arg;
	struct ws_group group;
	unsigned int i;

	e->self = current;
	ws_group_init(&group, e->pool);
	for (i = 0; i < e->n; i++)
		ws_spawn(&group, &e->nodes[i].task);
	e->err = ws_group_wait(&group);
	return 42;
}

/*
 * A thread that joins with ws_pool_execute() spawns onto its own deque:
 * it runs some of the tasks itself and idle workers steal the others.
 */
static void join_execute_stealable(struct kunit *test)
{
	struct ws_pool *pool = jt_pool(test, "t_jexec", NULL);
	struct ws_pool_stats before, after;
	struct jt_exec e = { .pool = pool, .n = 64 };
	unsigned int i, mine = 0, workers = 0;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	e.nodes = jt_nodes(test, e.n, 2000);
	ws_pool_read_stats(pool, &before);
	KUNIT_EXPECT_EQ(test, ws_pool_execute(pool, jt_exec_fn, &e), 42);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_EQ(test, e.err, 0);
	KUNIT_EXPECT_PTR_EQ(test, e.self, current);
	KUNIT_EXPECT_EQ(test, jt_ran_once(e.nodes, e.n), e.n);
	for (i = 0; i < e.n; i++) {
		mine += e.nodes[i].thread == current;
		workers += jt_pool_thread(e.nodes[i].thread);
	}
	KUNIT_EXPECT_GT(test, mine, 0U);
	KUNIT_EXPECT_GT(test, workers, 0U);
	KUNIT_EXPECT_EQ(test, mine + workers, e.n);
	/* Spawned onto the joined thread's deque, not injected. */
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, 0ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned, (u64)e.n);
	KUNIT_EXPECT_EQ(test, after.joined - before.joined, 1ULL);
	ws_test_pool_destroy(test, pool);
}

/* ---- isolation of a joined thread ---- */

/**
 * struct jt_iso - an isolated region entered by a joined thread
 * @pool: the pool
 * @outer: tasks spawned before the region, below its tasks on the deque
 * @inner: the region's tasks, mailed to a worker
 * @nr_outer: number of @outer
 * @nr_inner: number of @inner
 * @in_region: the thread inside the region, or NULL
 * @outer_inside: outer tasks that ran on that thread inside the region
 * @isolate: whether the region is isolated
 */
struct jt_iso {
	struct ws_pool *pool;
	struct jt_node *outer, *inner;
	unsigned int nr_outer, nr_inner;
	struct task_struct *in_region;
	atomic_t outer_inside;
	bool isolate;
};

static struct jt_iso *jt_iso_of;

static struct ws_task *jt_outer_fn(struct ws_task *task)
{
	struct jt_iso *ic = jt_iso_of;

	/* Pairs with WRITE_ONCE() of in_region: a racy flag is enough. */
	if (READ_ONCE(ic->in_region) == current)
		atomic_inc(&ic->outer_inside);
	return jt_node_fn(task);
}

static int jt_iso_region(void *arg)
{
	struct jt_iso *ic = arg;
	struct ws_group group;
	unsigned int i;

	WRITE_ONCE(ic->in_region, current);
	ws_group_init(&group, ic->pool);
	/* Mailed to CPU 0's worker: our deque keeps only outer tasks. */
	for (i = 0; i < ic->nr_inner; i++)
		ws_spawn_on(&group, &ic->inner[i].task, 0);
	ws_group_wait(&group);
	WRITE_ONCE(ic->in_region, NULL);
	return 0;
}

static int jt_iso_root(void *arg)
{
	struct jt_iso *ic = arg;
	struct ws_group outer;
	unsigned int i;

	ws_group_init(&outer, ic->pool);
	for (i = 0; i < ic->nr_outer; i++)
		ws_spawn(&outer, &ic->outer[i].task);
	if (ic->isolate)
		ws_isolate(ic->pool, jt_iso_region, ic);
	else
		jt_iso_region(ic);
	return ws_group_wait(&outer);
}

static unsigned int jt_iso_run(struct kunit *test, struct ws_pool *pool,
			       bool isolate)
{
	struct jt_iso *ic = kunit_kzalloc(test, sizeof(*ic), GFP_KERNEL);
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, ic);
	ic->pool = pool;
	ic->isolate = isolate;
	ic->nr_outer = 64;
	ic->nr_inner = 2;
	ic->outer = jt_nodes(test, ic->nr_outer, 2000);
	ic->inner = jt_nodes(test, ic->nr_inner, 30000);
	for (i = 0; i < ic->nr_outer; i++)
		ws_task_init(&ic->outer[i].task, jt_outer_fn);
	jt_iso_of = ic;
	KUNIT_EXPECT_EQ(test, ws_pool_execute(pool, jt_iso_root, ic), 0);
	KUNIT_EXPECT_EQ(test, jt_ran_once(ic->outer, ic->nr_outer),
			ic->nr_outer);
	KUNIT_EXPECT_EQ(test, jt_ran_once(ic->inner, ic->nr_inner),
			ic->nr_inner);
	return atomic_read(&ic->outer_inside);
}

/*
 * A joined thread waiting inside an isolated region must not run the
 * outer tasks below the region's on its deque; without isolation it does
 * (so the test can fail).
 */
static void join_isolation(struct kunit *test)
{
	struct ws_pool *pool;

	if (!cpu_online(0))
		kunit_skip(test, "needs CPU 0");
	pool = jt_pool(test, "t_jiso", NULL);
	KUNIT_EXPECT_EQ(test, jt_iso_run(test, pool, true), 0U);
	KUNIT_EXPECT_GT(test, jt_iso_run(test, pool, false), 0U);
	ws_test_pool_destroy(test, pool);
}

/* ---- mail to a worker that will not read it ---- */

/**
 * struct jt_mail - a task that holds its worker until its mail has run
 * @task: the holder, run on the worker the mail is sent to
 * @mail: the mailed task
 * @group: the mail's group
 * @pool: the pool
 * @ran_mail: set by the mail
 * @timed_out: the holder gave up
 */
struct jt_mail {
	struct ws_task task;
	struct ws_task mail;
	struct ws_group group;
	struct ws_pool *pool;
	int ran_mail;
	int timed_out;
};

static struct ws_task *jt_mail_fn(struct ws_task *task)
{
	struct jt_mail *m = container_of(task, struct jt_mail, mail);

	/* Pairs with smp_load_acquire() in jt_holder_fn(). */
	smp_store_release(&m->ran_mail, 1);
	return NULL;
}

static struct ws_task *jt_holder_fn(struct ws_task *task)
{
	struct jt_mail *m = container_of(task, struct jt_mail, task);
	unsigned long deadline = jiffies + JT_TIMEOUT;

	ws_group_init(&m->group, m->pool);
	ws_task_init(&m->mail, jt_mail_fn);
	/* To ourselves: we are busy and will not look. */
	ws_spawn_on(&m->group, &m->mail, raw_smp_processor_id());
	/* Pairs with smp_store_release() in jt_mail_fn(). */
	while (!smp_load_acquire(&m->ran_mail)) {
		if (time_after(jiffies, deadline)) {
			m->timed_out = 1;
			break;
		}
		cond_resched();
	}
	ws_group_wait(&m->group);
	return NULL;
}

/*
 * ws_spawn_on() to a worker that is busy must not leave the task there
 * until that worker is free: an idle worker is woken and takes it.
 */
static void join_mail_busy(struct kunit *test)
{
	/* A worker limit: we do not join, the holder runs on a worker. */
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	struct ws_pool *pool;
	struct ws_group group;
	struct jt_mail m = {};

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	pool = jt_pool(test, "t_jmail", &attrs);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 2U);
	m.pool = pool;
	/* Let both workers go to sleep first. */
	msleep(50);
	ws_task_init(&m.task, jt_holder_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &m.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, m.timed_out, 0);
	/* Ordered by the wait; the acquire documents the pairing. */
	KUNIT_EXPECT_EQ(test, smp_load_acquire(&m.ran_mail), 1);
	ws_test_pool_destroy(test, pool);
}

/* ---- mail to workers that all wait in isolated regions ---- */

/**
 * struct jt_iso_mail - a worker held in an isolated wait for its own mail
 * @task: the holder, one per worker
 * @mail: the task it mails to its own CPU and waits for
 * @group: @mail's group
 * @s: the test's state
 * @ran: times @mail ran
 * @ret: what the holder's wait returned
 */
struct jt_iso_mail {
	struct ws_task task;
	struct ws_task mail;
	struct ws_group group;
	struct jt_stuck *s;
	atomic_t ran;
	int ret;
};

/**
 * struct jt_stuck - state of join_mail_isolated_*()
 * @pool: the pool
 * @holders: one per worker
 * @outer: the holders' group
 * @started: holders running
 * @n: how many holders
 * @go: set once the waiter is in place; the holders then mail and wait
 * @timed_out: a holder gave up waiting for the others or for @go
 * @done: the waiter's wait returned
 * @cpu: the CPU taken offline, brought back by the rescue
 * @rescued: the rescue had to bring @cpu online for the mail to run
 * @ret: what the waiter's wait returned
 */
struct jt_stuck {
	struct ws_pool *pool;
	struct jt_iso_mail *holders;
	struct ws_group outer;
	atomic_t started;
	unsigned int n;
	int go;
	atomic_t timed_out;
	int done;
	unsigned int cpu;
	int rescued;
	int ret;
};

static struct ws_task *jt_iso_mail_fn(struct ws_task *task)
{
	struct jt_iso_mail *h = container_of(task, struct jt_iso_mail, mail);

	atomic_inc(&h->ran);
	return NULL;
}

/* Inside the region: mail to our own CPU, then wait for it (isolated). */
static int jt_iso_region_fn(void *arg)
{
	struct jt_iso_mail *h = arg;

	ws_group_init(&h->group, h->s->pool);
	ws_task_init(&h->mail, jt_iso_mail_fn);
	ws_spawn_on(&h->group, &h->mail, raw_smp_processor_id());
	h->ret = ws_group_wait(&h->group);
	return 0;
}

static struct ws_task *jt_iso_holder_fn(struct ws_task *task)
{
	struct jt_iso_mail *h = container_of(task, struct jt_iso_mail, task);
	struct jt_stuck *s = h->s;
	unsigned long deadline = jiffies + JT_TIMEOUT;

	/* Hold this worker until every worker holds one and the waiter is in. */
	atomic_inc(&s->started);
	while (atomic_read(&s->started) < s->n ||
	       /* Pairs with smp_store_release() in jt_stuck_wait(). */
	       !smp_load_acquire(&s->go)) {
		if (time_after(jiffies, deadline)) {
			atomic_inc(&s->timed_out);
			break;
		}
		cond_resched();
	}
	ws_isolate(s->pool, jt_iso_region_fn, h);
	return NULL;
}

/* The waiter: let the holders go, then wait for them. */
static int jt_stuck_wait(void *arg)
{
	struct jt_stuck *s = arg;

	/* Pairs with smp_load_acquire() in jt_iso_holder_fn(). */
	smp_store_release(&s->go, 1);
	s->ret = ws_group_wait(&s->outer);
	/* Pairs with smp_load_acquire() in jt_stuck_rescue(). */
	smp_store_release(&s->done, 1);
	return 0;
}

/*
 * If the mail has not run after a while, bring the offline CPU back: its
 * new worker takes the mail, so that a failing test still ends.
 */
static int jt_stuck_rescue(void *arg)
{
	struct jt_stuck *s = arg;
	unsigned long deadline = jiffies + JT_TIMEOUT / 2;

	/* Pairs with smp_store_release() in jt_stuck_wait(). */
	while (!smp_load_acquire(&s->done) && !kthread_should_stop()) {
		if (time_after(jiffies, deadline)) {
			WRITE_ONCE(s->rescued, 1);
			add_cpu(s->cpu);
			break;
		}
		schedule_timeout_idle(HZ / 10);
	}
	while (!kthread_should_stop())
		schedule_timeout_idle(HZ / 10);
	return 0;
}

/*
 * Every worker of a pool waits, in an isolated region, for a task it
 * mailed to its own CPU.  An isolated wait never reads its mailbox and
 * every worker is busy, so only the waiter that joined (@joinable) or a
 * compensation thread (the waiter of a pool with attributes sleeps) can
 * run the mail.  Neither took mail: the pool stalled, and so did CPU
 * hotplug, which waits for a worker's running task (the torture module
 * found it).  One CPU is offline during the test so that, if the mail is
 * not run in time, bringing it online (a new worker, which takes mail)
 * lets the test end.
 */
static void jt_mail_isolated(struct kunit *test, bool joinable)
{
	struct ws_pool_attrs attrs = {};
	struct task_struct *rescue;
	struct jt_stuck *s;
	cpumask_var_t mask;
	unsigned int i, cpu, other = nr_cpu_ids;

	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->cpu = nr_cpu_ids;
	for_each_online_cpu(cpu) {
		if (cpu_is_hotpluggable(cpu))
			s->cpu = cpu;
		else
			other = cpu;
	}
	if (s->cpu >= nr_cpu_ids || num_online_cpus() < 2)
		kunit_skip(test, "needs two CPUs, one that can go offline");
	if (remove_cpu(s->cpu))
		kunit_skip(test, "cannot take CPU %u offline", s->cpu);
	if (other >= nr_cpu_ids)
		other = cpumask_first(cpu_online_mask);
	if (!zalloc_cpumask_var(&mask, GFP_KERNEL)) {
		add_cpu(s->cpu);
		KUNIT_FAIL(test, "no memory for a CPU mask");
		return;
	}
	/* One worker, and a CPU for another when s->cpu comes back. */
	cpumask_set_cpu(other, mask);
	cpumask_set_cpu(s->cpu, mask);
	attrs.cpumask = mask;
	s->pool = jt_pool(test, joinable ? "t_jisom" : "t_jisoa",
			  joinable ? NULL : &attrs);
	free_cpumask_var(mask);
	s->n = ws_pool_nr_workers(s->pool);
	if (!joinable)
		KUNIT_EXPECT_EQ(test, s->n, 1U);
	s->holders = kunit_kcalloc(test, s->n, sizeof(*s->holders),
				   GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s->holders);
	ws_group_init(&s->outer, s->pool);
	for (i = 0; i < s->n; i++) {
		s->holders[i].s = s;
		ws_task_init(&s->holders[i].task, jt_iso_holder_fn);
		ws_spawn(&s->outer, &s->holders[i].task);
	}
	rescue = kthread_run(jt_stuck_rescue, s, "jt_rescue");
	KUNIT_EXPECT_FALSE(test, IS_ERR(rescue));
	/* Every worker holds one before we join: none is left idle. */
	for (i = 0; atomic_read(&s->started) < s->n && i < 2000; i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->started), (int)s->n);
	/* Joined for the wait (a pool with attributes: we sleep). */
	ws_pool_execute(s->pool, jt_stuck_wait, s);
	if (!IS_ERR(rescue))
		kthread_stop(rescue);
	KUNIT_EXPECT_EQ_MSG(test, READ_ONCE(s->rescued), 0,
			    "mail of workers in isolated waits ran only once CPU %u came back",
			    s->cpu);
	KUNIT_EXPECT_EQ(test, s->ret, 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->timed_out), 0);
	for (i = 0; i < s->n; i++) {
		KUNIT_EXPECT_EQ(test, atomic_read(&s->holders[i].ran), 1);
		KUNIT_EXPECT_EQ(test, s->holders[i].ret, 0);
	}
	if (!cpu_online(s->cpu))
		KUNIT_EXPECT_EQ(test, add_cpu(s->cpu), 0);
	ws_test_pool_destroy(test, s->pool);
}

/* The waiter joined the pool (not stuck): it must take the mail. */
static void join_mail_isolated_joined(struct kunit *test)
{
	jt_mail_isolated(test, true);
}

/* Nobody joined: the compensation thread must take the mail. */
static void join_mail_isolated_compensated(struct kunit *test)
{
	jt_mail_isolated(test, false);
}

/* ---- a task that returns itself after gaining a predecessor ---- */

/**
 * struct jt_again - a task that runs twice, the second time after @gate
 * @task: the task
 * @gate: a task that must finish before the second run
 * @pred: a predecessor of the first run
 * @runs: runs of @task
 * @precede_err: what ws_task_precede() returned in the first run
 * @gate_done: @gate has finished
 * @early: the second run started before @gate finished
 * @release_gate: lets @gate finish
 */
struct jt_again {
	struct ws_task task;
	struct ws_task gate;
	struct ws_task pred;
	atomic_t runs;
	int precede_err;
	int gate_done;
	int early;
	int release_gate;
};

static struct ws_task *jt_gate_fn(struct ws_task *task)
{
	struct jt_again *a = container_of(task, struct jt_again, gate);
	unsigned long deadline = jiffies + JT_TIMEOUT;

	/* Pairs with smp_store_release() in jt_again_fn(). */
	while (!smp_load_acquire(&a->release_gate) &&
	       time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	msleep(20);
	/* Pairs with smp_load_acquire() in jt_again_fn(). */
	smp_store_release(&a->gate_done, 1);
	return NULL;
}

static struct ws_task *jt_pred_fn(struct ws_task *task)
{
	return NULL;
}

static struct ws_task *jt_again_fn(struct ws_task *task)
{
	struct jt_again *a = container_of(task, struct jt_again, task);

	if (atomic_inc_return(&a->runs) == 1) {
		/* The gate is spawned and held: the edge must count. */
		a->precede_err = ws_task_precede(&a->gate, task, GFP_KERNEL);
		/* Pairs with smp_load_acquire() in jt_gate_fn(). */
		smp_store_release(&a->release_gate, 1);
		return task;
	}
	/* Pairs with smp_store_release() in jt_gate_fn(). */
	if (!smp_load_acquire(&a->gate_done))
		a->early = 1;
	return NULL;
}

/*
 * The task became ready through a predecessor (the path that used to
 * leave its count at zero), gains a new predecessor while it runs and
 * returns itself: its second run must wait for the new predecessor.
 */
static void join_again_after_pred(struct kunit *test)
{
	struct ws_pool *pool = jt_pool(test, "t_jagain", NULL);
	struct ws_group group;
	struct jt_again *a;
	unsigned int round;

	a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	for (round = 0; round < 4; round++) {
		memset(a, 0, sizeof(*a));
		ws_task_init(&a->task, jt_again_fn);
		ws_task_init(&a->gate, jt_gate_fn);
		ws_task_init(&a->pred, jt_pred_fn);
		ws_group_init(&group, pool);
		KUNIT_ASSERT_EQ(test, ws_task_precede(&a->pred, &a->task,
						      GFP_KERNEL), 0);
		ws_spawn(&group, &a->task);
		ws_spawn(&group, &a->gate);
		ws_spawn(&group, &a->pred);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&a->runs), 2);
		KUNIT_EXPECT_EQ(test, a->early, 0);
		KUNIT_EXPECT_EQ(test, a->precede_err, 0);
		/* Pairs with smp_store_release() in jt_gate_fn(). */
		KUNIT_EXPECT_EQ(test, smp_load_acquire(&a->gate_done), 1);
	}
	ws_test_pool_destroy(test, pool);
}

/* ---- lazy join: a group's owner spawns without counting ---- */

/**
 * struct jt_lazy - a group set up by a task, waited for by two threads
 * @task: the owner's task
 * @pool: the pool
 * @group: the group, owned by the thread that runs @task
 * @nodes: the group's tasks
 * @n: how many
 * @spawned: set once @task has spawned them all
 * @outside_saw: tasks finished when the outside waiter's wait returned
 */
struct jt_lazy {
	struct ws_task task;
	struct ws_pool *pool;
	struct ws_group group;
	struct jt_node *nodes;
	unsigned int n;
	int spawned;
	unsigned int outside_saw;
};

static struct ws_task *jt_lazy_owner_fn(struct ws_task *task)
{
	struct jt_lazy *l = container_of(task, struct jt_lazy, task);
	unsigned int i;

	ws_group_init(&l->group, l->pool);
	for (i = 0; i < l->n; i++)
		ws_spawn(&l->group, &l->nodes[i].task);
	/* Pairs with smp_load_acquire() in join_lazy_foreign_wait(). */
	smp_store_release(&l->spawned, 1);
	ws_group_wait(&l->group);
	return NULL;
}

/*
 * A task spawns into a group it set up (lazily, uncounted unless stolen)
 * while a thread outside the pool waits for the same group: that wait
 * too must return only once every task has run, whether the owner ran it
 * or a thief did.
 */
static void join_lazy_foreign_wait(struct kunit *test)
{
	struct ws_pool *pool = jt_pool(test, "t_jlazy", NULL);
	unsigned long deadline = jiffies + JT_TIMEOUT;
	struct ws_pool_stats before, after;
	struct ws_group outer;
	struct jt_lazy *l;
	unsigned int i, round;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	ws_pool_read_stats(pool, &before);
	for (round = 0; round < 8; round++) {
		l->pool = pool;
		l->n = 48;
		l->spawned = 0;
		l->nodes = jt_nodes(test, l->n, 1000);
		ws_task_init(&l->task, jt_lazy_owner_fn);
		ws_group_init(&outer, pool);
		ws_spawn(&outer, &l->task);
		/* Pairs with smp_store_release() in jt_lazy_owner_fn(). */
		while (!smp_load_acquire(&l->spawned) &&
		       time_before(jiffies, deadline))
			cpu_relax();
		/* Pairs with smp_store_release() in jt_lazy_owner_fn(). */
		KUNIT_ASSERT_EQ(test, smp_load_acquire(&l->spawned), 1);
		/* Not our group: we are not its owner. */
		ws_group_wait(&l->group);
		for (i = 0; i < l->n; i++)
			l->outside_saw += atomic_read(&l->nodes[i].runs) == 1;
		KUNIT_EXPECT_EQ(test, l->outside_saw, l->n);
		l->outside_saw = 0;
		ws_group_wait(&outer);
		KUNIT_EXPECT_EQ(test, jt_ran_once(l->nodes, l->n), l->n);
	}
	ws_pool_read_stats(pool, &after);
	/* Some were stolen from the owner, the lazy path's other half. */
	KUNIT_EXPECT_GT(test, after.stolen - before.stolen, 0ULL);
	ws_test_pool_destroy(test, pool);
}

/**
 * struct jt_defer - a lazily spawned task that returns a task with a
 *	predecessor left
 * @first: spawned lazily by the group's owner
 * @next: returned by @first; waits for @gate
 * @gate: held until @first has run
 * @group: the group, owned by the thread that joined for the test
 * @release: lets @gate finish
 * @gate_done: @gate has finished
 * @next_runs: runs of @next
 * @next_early: @next ran before @gate finished
 * @precede_err: what ws_task_precede() returned
 */
struct jt_defer {
	struct ws_task first, next, gate;
	struct ws_group group;
	int release;
	int gate_done;
	atomic_t next_runs;
	int next_early;
	int precede_err;
};

static struct ws_task *jt_defer_gate_fn(struct ws_task *task)
{
	struct jt_defer *d = container_of(task, struct jt_defer, gate);
	unsigned long deadline = jiffies + JT_TIMEOUT;

	/* Pairs with smp_store_release() in jt_defer_first_fn(). */
	while (!smp_load_acquire(&d->release) &&
	       time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	usleep_range(20000, 21000);
	/* Pairs with smp_load_acquire() in jt_defer_next_fn(). */
	smp_store_release(&d->gate_done, 1);
	return NULL;
}

static struct ws_task *jt_defer_next_fn(struct ws_task *task)
{
	struct jt_defer *d = container_of(task, struct jt_defer, next);

	atomic_inc(&d->next_runs);
	/* Pairs with smp_store_release() in jt_defer_gate_fn(). */
	if (!smp_load_acquire(&d->gate_done))
		d->next_early = 1;
	return NULL;
}

static struct ws_task *jt_defer_first_fn(struct ws_task *task)
{
	struct jt_defer *d = container_of(task, struct jt_defer, first);

	ws_task_init(&d->next, jt_defer_next_fn);
	d->precede_err = ws_task_precede(&d->gate, &d->next, GFP_KERNEL);
	/* Pairs with smp_load_acquire() in jt_defer_gate_fn(). */
	smp_store_release(&d->release, 1);
	return &d->next;
}

static int jt_defer_run(void *arg)
{
	struct jt_defer *d = arg;

	ws_group_init(&d->group, NULL);
	ws_task_init(&d->first, jt_defer_first_fn);
	ws_task_init(&d->gate, jt_defer_gate_fn);
	/* The gate first: it sits below @first on our deque. */
	ws_spawn(&d->group, &d->gate);
	ws_spawn(&d->group, &d->first);
	return ws_group_wait(&d->group);
}

/*
 * A lazily spawned task hands its place to a task that must wait for a
 * predecessor: that task may then run anywhere, so it must be counted in
 * the group, and the wait must not return before it has run.
 */
static void join_lazy_deferred_bypass(struct kunit *test)
{
	struct jt_defer *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	unsigned int round;

	KUNIT_ASSERT_NOT_NULL(test, d);
	for (round = 0; round < 4; round++) {
		memset(d, 0, sizeof(*d));
		KUNIT_EXPECT_EQ(test, ws_pool_execute(NULL, jt_defer_run, d),
				0);
		KUNIT_EXPECT_EQ(test, d->precede_err, 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&d->next_runs), 1);
		KUNIT_EXPECT_EQ(test, d->next_early, 0);
		KUNIT_EXPECT_TRUE(test, ws_group_done(&d->group));
	}
}

/* ---- a killable wait ---- */

/**
 * struct jt_kill - a thread killed while it waits for a group
 * @pool: the pool
 * @group: the group, with one task held until the test releases it
 * @held: the task (it naps while it waits)
 * @waiting: the thread has spawned @held and is about to wait
 * @returned: the killable wait returned
 * @wait_ret: what it returned
 * @done_at_return: whether the group was done when it returned
 */
struct jt_kill {
	struct ws_pool *pool;
	struct ws_group group;
	struct ws_test_hold held;
	struct completion waiting;
	struct completion returned;
	int wait_ret;
	bool done_at_return;
};

static int jt_kill_thread(void *arg)
{
	struct jt_kill *k = arg;

	allow_signal(SIGKILL);
	ws_group_init(&k->group, k->pool);
	ws_test_hold_init(&k->held, true, JT_TIMEOUT);
	ws_spawn(&k->group, &k->held.task);
	/*
	 * A worker runs it: once we join the pool for the wait we could
	 * take it ourselves, and then never nap.
	 */
	while (!ws_test_hold_running(&k->held))
		schedule_timeout_idle(1);
	complete(&k->waiting);
	k->wait_ret = ws_group_wait_killable(&k->group);
	k->done_at_return = ws_group_done(&k->group);
	complete(&k->returned);
	/* The task still uses the group: wait for it, unkillably. */
	ws_group_wait(&k->group);
	while (!kthread_should_stop())
		schedule_timeout_idle(1);
	return 0;
}

/*
 * ws_group_wait_killable() from a thread that joins the pool returns
 * -EINTR once the thread is killed, while the group's task still runs;
 * ws_group_wait() then waits for it.
 */
static void join_killable_wait(struct kunit *test)
{
	struct jt_kill *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	struct task_struct *thread;

	KUNIT_ASSERT_NOT_NULL(test, k);
	k->pool = jt_pool(test, "t_jkill", NULL);
	init_completion(&k->waiting);
	init_completion(&k->returned);
	thread = kthread_run(jt_kill_thread, k, "jt_kill");
	KUNIT_ASSERT_FALSE(test, IS_ERR(thread));
	get_task_struct(thread);
	wait_for_completion(&k->waiting);
	/* Let it join the pool and nap in its wait. */
	msleep(50);
	KUNIT_EXPECT_FALSE(test, completion_done(&k->returned));
	send_sig(SIGKILL, thread, 1);
	KUNIT_EXPECT_GT(test, wait_for_completion_timeout(&k->returned,
							  JT_TIMEOUT), 0UL);
	KUNIT_EXPECT_EQ(test, k->wait_ret, -EINTR);
	KUNIT_EXPECT_FALSE(test, k->done_at_return);
	ws_test_hold_release(&k->held);
	kthread_stop(thread);
	put_task_struct(thread);
	KUNIT_EXPECT_TRUE(test, ws_group_done(&k->group));
}

/* ---- a worker limit across CPU hotplug ---- */

/*
 * A pool limited to one worker loses it when its CPU goes offline: it
 * must start one on another CPU and keep running tasks.
 */
static void join_limit_hotplug(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool;
	const unsigned int n = 100;
	struct ws_group group;
	struct jt_node *nodes;
	cpumask_var_t mask;
	unsigned int i, cpu, worker_cpu;

	/* The CPUs that can go offline: the worker must be on one of them. */
	KUNIT_ASSERT_TRUE(test, zalloc_cpumask_var(&mask, GFP_KERNEL));
	for_each_online_cpu(cpu)
		if (cpu_is_hotpluggable(cpu))
			cpumask_set_cpu(cpu, mask);
	if (cpumask_weight(mask) < 2) {
		free_cpumask_var(mask);
		kunit_skip(test, "needs two CPUs that can go offline");
	}
	attrs.cpumask = mask;
	pool = jt_pool(test, "t_jlimit", &attrs);
	free_cpumask_var(mask);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 1U);
	/* Find the worker's CPU: it is bound there. */
	nodes = jt_nodes(test, 1, 0);
	ws_group_init(&group, pool);
	ws_spawn(&group, &nodes[0].task);
	ws_group_wait(&group);
	KUNIT_EXPECT_TRUE(test, jt_pool_thread(nodes[0].thread));
	worker_cpu = nodes[0].cpu;
	if (remove_cpu(worker_cpu)) {
		ws_test_pool_destroy(test, pool);
		kunit_skip(test, "cannot take CPU %u offline", worker_cpu);
	}
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 1U);
	nodes = jt_nodes(test, n, 0);
	ws_group_init(&group, pool);
	for (i = 0; i < n; i++)
		ws_spawn(&group, &nodes[i].task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, jt_ran_once(nodes, n), n);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_NE(test, nodes[i].cpu, worker_cpu);
	KUNIT_EXPECT_EQ(test, add_cpu(worker_cpu), 0);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(pool), 1U);
	ws_test_pool_destroy(test, pool);
}

/* ---- a compensation thread blocked in a task ---- */

/* How long the blocking level waits for its child before it gives up. */
#define JT_BLOCK_PATIENCE	(10 * HZ)

/**
 * struct jt_blk_level - one level of a chain run by jt_blk_fn()
 * @task: the level
 * @b: the chain's shared state
 * @depth: levels left below this one
 */
struct jt_blk_level {
	struct ws_task task;
	struct jt_blk *b;
	unsigned int depth;
};

/**
 * struct jt_blk - a chain deeper than a thread may nest, whose first
 *	level run by a compensation thread blocks on a child
 * @pool: the pool
 * @levels: runs of each level (indexed by depth)
 * @child: spawned by the blocking level, which sleeps until it ran
 * @ran: completed by @child
 * @child_runs: runs of @child
 * @blocked: a level blocked (the first one run by a compensation thread)
 * @late: the blocking level's sleep timed out
 */
struct jt_blk {
	struct ws_pool *pool;
	atomic_t *levels;
	struct ws_task child;
	struct completion ran;
	atomic_t child_runs;
	atomic_t blocked;
	bool late;
};

static struct ws_task *jt_blk_child(struct ws_task *task)
{
	struct jt_blk *b = container_of(task, struct jt_blk, child);

	atomic_inc(&b->child_runs);
	complete(&b->ran);
	return NULL;
}

/*
 * Each level spawns the next and waits for it, until the worker is at its
 * nesting bound and a compensation thread takes the rest.  That thread's
 * first level spawns a child, onto its own deque (a join slot spawns
 * eagerly), and sleeps on it outside any wait, as kernel code may.  The
 * worker, at its bound, may not take the child: only another compensation
 * thread can, which comes only if the stuck worker counts the sleeper as
 * blocked.  Before it did, the child ran only when the sleep timed out
 * and the sleeper's own wait ran it.
 */
static struct ws_task *jt_blk_fn(struct ws_task *task)
{
	struct jt_blk_level *l = container_of(task, struct jt_blk_level, task);
	struct jt_blk *b = l->b;
	struct jt_blk_level next;
	struct ws_group group;

	atomic_inc(&b->levels[l->depth]);
	ws_group_init(&group, b->pool);
	if (!strncmp(current->comm, "ws/c", 4) &&
	    atomic_inc_return(&b->blocked) == 1) {
		ws_task_init(&b->child, jt_blk_child);
		ws_spawn(&group, &b->child);
		b->late = !wait_for_completion_timeout(&b->ran,
						       JT_BLOCK_PATIENCE);
		ws_group_wait(&group);
		return NULL;
	}
	if (!l->depth)
		return NULL;
	next.b = b;
	next.depth = l->depth - 1;
	ws_task_init(&next.task, jt_blk_fn);
	ws_spawn(&group, &next.task);
	ws_group_wait(&group);
	return NULL;
}

/*
 * A pool of one worker whose waiter sleeps (a pool with attributes): the
 * worker, stuck at its nesting bound, and a compensation thread that
 * blocks in a task on a child it spawned.  The child must run while its
 * spawner sleeps, on a second compensation thread.
 */
static void join_blocked_compensated(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	const unsigned int depth = 2 * WS_MAX_WAIT_DEPTH;
	struct ws_pool_stats before, after;
	struct jt_blk_level root;
	struct ws_group group;
	struct jt_blk *b;
	unsigned int i, once = 0, ran = 0;

	b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->levels = kunit_kcalloc(test, depth + 1, sizeof(*b->levels),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->levels);
	init_completion(&b->ran);
	b->pool = jt_pool(test, "t_jblk", &attrs);
	KUNIT_EXPECT_EQ(test, ws_pool_nr_workers(b->pool), 1U);
	ws_pool_read_stats(b->pool, &before);
	root.b = b;
	root.depth = depth;
	ws_task_init(&root.task, jt_blk_fn);
	ws_group_init(&group, b->pool);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(b->pool, &after);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->blocked), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&b->child_runs), 1);
	KUNIT_EXPECT_FALSE_MSG(test, b->late,
			       "the child of a compensation thread blocked in a task ran only after %d s",
			       JT_BLOCK_PATIENCE / HZ);
	KUNIT_EXPECT_GE(test, after.compensated - before.compensated, 2ULL);
	/* The levels from the root down to the one that blocked, once each. */
	for (i = 0; i <= depth; i++) {
		ran += atomic_read(&b->levels[i]) != 0;
		once += atomic_read(&b->levels[i]) == 1;
	}
	KUNIT_EXPECT_EQ(test, once, ran);
	KUNIT_EXPECT_GE(test, ran, 2U);
	ws_test_pool_destroy(test, b->pool);
}

static struct kunit_case join_cases[] = {
	KUNIT_CASE(join_busy_pool),
	KUNIT_CASE(join_execute_stealable),
	KUNIT_CASE(join_isolation),
	KUNIT_CASE(join_mail_busy),
	KUNIT_CASE(join_mail_isolated_joined),
	KUNIT_CASE(join_mail_isolated_compensated),
	KUNIT_CASE(join_blocked_compensated),
	KUNIT_CASE(join_again_after_pred),
	KUNIT_CASE(join_lazy_foreign_wait),
	KUNIT_CASE(join_lazy_deferred_bypass),
	KUNIT_CASE(join_killable_wait),
	KUNIT_CASE(join_limit_hotplug),
	{}
};

static struct kunit_suite join_suite = {
	.name = "wsched_join",
	.test_cases = join_cases,
};

kunit_test_suite(join_suite);
