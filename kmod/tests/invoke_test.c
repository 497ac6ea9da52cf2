// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of ws_parallel_invoke(): every call of a recursion runs
 * exactly once with the right result, from a worker, from a thread that
 * joins and from one that cannot; the second call is stolen and runs in
 * parallel with the first; a second call kept private is promoted when a
 * thief asks and runs on the thief; a task the first call leaves on the
 * deque runs after the unstolen second call, both once; calls inside an
 * isolated region finish.  On each worker the inline call's slot lookup
 * finds that worker's own slot and passes its owner check.  Each
 * promotion trigger alone hands a private second call to another worker
 * while the first call runs: the heartbeat (and, as the control, nothing
 * without it), a thief's request, a wait about to nap; and a heartbeat
 * that stopped while nobody looked for work is started again by a
 * thief's kick.
 *
 * The explicit-context API (ws_ctx_run(), ws_ctx_invoke()) gets the same
 * cases, and: each function runs with the context of the thread that
 * runs it (a thief's own), calls nest with ws_parallel_invoke() both
 * ways, a run from a thread that cannot join runs on a worker, and calls
 * nested deeper than WS_INVOKE_FRAMES all run once.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/wsched.h>

#include "ws_test.h"

#include "wsched_internal.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

/* Longest a test waits for something before it gives up and fails. */
#define IT_TIMEOUT	(20 * HZ)

/* ---- fib: a call counter that catches lost and repeated calls ---- */

#define IT_FIB_N	18
#define IT_FIB_MAX	(IT_FIB_N + 1)

/**
 * struct it_fib_ctx - one fib run
 * @pool: the pool of the calls
 * @use_ctx: the run forks with ws_ctx_invoke() (it_ctx_fib_call()), not
 *	with ws_parallel_invoke() alone (it_fib_call())
 * @calls: calls made, per argument
 * @threads: bit 0: a call ran on the thread that started the run; bit 1:
 *	a call ran on another thread
 * @origin: the thread that started the run
 * @bad_ctx: ws_ctx_invoke() calls that got a context other than the slot
 *	of the thread that ran them
 */
struct it_fib_ctx {
	struct ws_pool *pool;
	bool use_ctx;
	atomic_t calls[IT_FIB_MAX];
	atomic_t threads;
	struct task_struct *origin;
	atomic_t bad_ctx;
};

struct it_fib {
	struct it_fib_ctx *ctx;
	unsigned int n;
	u64 result;
};

static void it_fib_call(void *arg)
{
	struct it_fib *f = arg;
	struct it_fib kid[2];

	atomic_inc(&f->ctx->calls[f->n]);
	atomic_or(current == f->ctx->origin ? 1 : 2, &f->ctx->threads);
	if (f->n < 2) {
		f->result = f->n;
		return;
	}
	kid[0] = (struct it_fib){ .ctx = f->ctx, .n = f->n - 1 };
	kid[1] = (struct it_fib){ .ctx = f->ctx, .n = f->n - 2 };
	ws_parallel_invoke(f->ctx->pool, it_fib_call, &kid[0], it_fib_call,
			   &kid[1]);
	f->result = kid[0].result + kid[1].result;
}

/*
 * Whether @ctx is the context of the current thread's slot of @pool: a
 * frame of that slot, at the slot's depth (the last frame's for deeper
 * calls).
 */
static bool it_ctx_is_own(struct ws_pool *pool, struct ws_ctx *ctx)
{
	struct ws_worker *self = ws_pool_current(pool);

	return self && __ws_ctx_slot(ctx) == &self->inv &&
	       ctx == __ws_ctx_at(&self->inv, READ_ONCE(self->inv.depth));
}

static void it_ctx_fib_call(struct ws_ctx *ctx, void *arg);

/* A ws_parallel_invoke() function that starts a nested context run. */
static void it_ctx_fib_plain(void *arg)
{
	struct it_fib *f = arg;

	ws_ctx_run(f->ctx->pool, it_ctx_fib_call, f);
}

/*
 * it_fib_call() with ws_ctx_invoke(); every third level forks with
 * ws_parallel_invoke() instead, whose functions start nested runs.
 */
static void it_ctx_fib_call(struct ws_ctx *ctx, void *arg)
{
	struct it_fib *f = arg;
	struct it_fib kid[2];

	atomic_inc(&f->ctx->calls[f->n]);
	atomic_or(current == f->ctx->origin ? 1 : 2, &f->ctx->threads);
	if (!it_ctx_is_own(f->ctx->pool, ctx))
		atomic_inc(&f->ctx->bad_ctx);
	if (f->n < 2) {
		f->result = f->n;
		return;
	}
	kid[0] = (struct it_fib){ .ctx = f->ctx, .n = f->n - 1 };
	kid[1] = (struct it_fib){ .ctx = f->ctx, .n = f->n - 2 };
	if (f->n % 3)
		ws_ctx_invoke(ctx, it_ctx_fib_call, &kid[0], it_ctx_fib_call,
			      &kid[1]);
	else
		ws_parallel_invoke(f->ctx->pool, it_ctx_fib_plain, &kid[0],
				   it_ctx_fib_plain, &kid[1]);
	f->result = kid[0].result + kid[1].result;
}

/* Run fib(@f->n) from the calling thread, with the run's API. */
static void it_fib_start(struct it_fib *f)
{
	if (f->ctx->use_ctx)
		ws_ctx_run(f->ctx->pool, it_ctx_fib_call, f);
	else
		it_fib_call(f);
}

/*
 * Check the calls of a run of fib(IT_FIB_N) against the recursion's own
 * count, @result against fib(IT_FIB_N) computed by iteration, and that
 * every context call got its own thread's context.
 */
static void it_fib_expect(struct kunit *test, struct it_fib_ctx *ctx,
			  u64 result)
{
	u64 want_calls[IT_FIB_MAX] = { 0 };
	unsigned int k, n = IT_FIB_N;
	u64 a = 0, b = 1, t;

	want_calls[n] = 1;
	for (k = n; k >= 2; k--) {
		want_calls[k - 1] += want_calls[k];
		want_calls[k - 2] += want_calls[k];
	}
	for (k = 0; k <= n; k++)
		KUNIT_EXPECT_EQ_MSG(test, (u64)atomic_read(&ctx->calls[k]),
				    want_calls[k], "calls of fib(%u)", k);
	for (k = 0; k < n; k++) {
		t = a + b;
		a = b;
		b = t;
	}
	KUNIT_EXPECT_EQ(test, result, a);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->bad_ctx), 0);
}

/* A zeroed run (every counter at 0) of fib(IT_FIB_N) in @pool. */
static struct it_fib_ctx *it_fib_ctx_new(struct kunit *test,
					 struct ws_pool *pool, bool use_ctx)
{
	struct it_fib_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->pool = pool;
	ctx->use_ctx = use_ctx;
	ctx->origin = current;
	return ctx;
}

/* The recursion started on a worker, as a task the test thread waits for. */
struct it_root {
	struct ws_task task;
	struct it_fib f;
};

static struct ws_task *it_root_fn(struct ws_task *task)
{
	struct it_root *root = container_of(task, struct it_root, task);

	root->f.ctx->origin = current;
	it_fib_start(&root->f);
	return NULL;
}

/* From a worker of the default pool: every call once, the right sum. */
static void it_fib_worker(struct kunit *test, bool use_ctx)
{
	struct it_root root;
	struct ws_group group;

	root.f = (struct it_fib){
		.ctx = it_fib_ctx_new(test, ws_system_pool, use_ctx),
		.n = IT_FIB_N,
	};
	ws_task_init(&root.task, it_root_fn);
	ws_group_init(&group, NULL);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	it_fib_expect(test, root.f.ctx, root.f.result);
}

static void invoke_fib_worker(struct kunit *test)
{
	it_fib_worker(test, false);
}

/*
 * fib(IT_FIB_N) started on the test thread, checked; returns which
 * threads ran calls (it_fib_ctx.threads).
 */
static int it_fib_here(struct kunit *test, struct ws_pool *pool,
		       bool use_ctx)
{
	struct it_fib f = {
		.ctx = it_fib_ctx_new(test, pool, use_ctx),
		.n = IT_FIB_N,
	};

	it_fib_start(&f);
	it_fib_expect(test, f.ctx, f.result);
	return atomic_read(&f.ctx->threads);
}

/* From the test thread, which joins the pool for each call. */
static void invoke_fib_joined(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_it_join", NULL);

	/* The caller ran the calls it did not offer: fib(n - 1) at least. */
	KUNIT_EXPECT_TRUE(test, it_fib_here(test, pool, false) & 1);
	ws_test_pool_destroy(test, pool);
}

/*
 * From a thread that cannot join (a pool with attributes takes no
 * joiners): the second calls are spawned to the workers.
 */
static void invoke_fib_outside(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = ws_test_pool(test, "ws_it_out", &attrs);

	/* Each first call ran here, each offered one on the worker. */
	KUNIT_EXPECT_EQ(test, it_fib_here(test, pool, false), 3);
	ws_test_pool_destroy(test, pool);
}

static int it_fib_isolated(void *arg)
{
	it_fib_start(arg);
	return 0;
}

/* Inside an isolated region, on the default pool. */
static void it_fib_in_region(struct kunit *test, bool use_ctx)
{
	struct it_fib f = {
		.ctx = it_fib_ctx_new(test, ws_system_pool, use_ctx),
		.n = IT_FIB_N,
	};

	KUNIT_EXPECT_EQ(test, ws_isolate(NULL, it_fib_isolated, &f), 0);
	it_fib_expect(test, f.ctx, f.result);
}

static void invoke_fib_isolated(struct kunit *test)
{
	it_fib_in_region(test, false);
}

/* ---- the slot lookup of the inline fast path ---- */

/**
 * struct it_lookup - one task that checks the lookups of its own worker
 * @task: the task, spawned towards one CPU
 * @pool: the pool it runs in; NULL for ws_system_pool
 * @ran: it ran
 * @on_cpu_slot: it ran on a CPU slot's worker kthread
 * @invoke_slot: on a CPU slot, ws_parallel_invoke()'s lookup found that
 *	slot's &ws_worker.inv (elsewhere: true)
 * @owns: on a CPU slot, that slot's owner check passed; elsewhere, the
 *	check of whatever slot the lookup found failed
 * @current_worker: on a CPU slot, ws_pool_current() found that slot, and
 *	its fast path could (the thread of the slot found is current;
 *	elsewhere: true)
 */
struct it_lookup {
	struct ws_task task;
	struct ws_pool *pool;
	bool ran;
	bool on_cpu_slot;
	bool invoke_slot;
	bool owns;
	bool current_worker;
};

static struct ws_task *it_lookup_fn(struct ws_task *task)
{
	struct it_lookup *l = container_of(task, struct it_lookup, task);
	struct ws_pool *pool = l->pool ? l->pool : ws_system_pool;
	struct ws_invoke_slot *slot = __ws_invoke_slot(l->pool);
	struct ws_worker *self = ws_pool_current(pool);

	l->ran = true;
	l->on_cpu_slot = self && self->cpu < nr_cpu_ids;
	if (l->on_cpu_slot) {
		/*
		 * A CPU slot's kthread is bound to its CPU: the index below
		 * is ours, and what each lookup must have found by itself.
		 */
		struct ws_worker *mine = pool->workers[raw_smp_processor_id()];

		l->invoke_slot = slot == &mine->inv;
		l->owns = __ws_invoke_owns(slot);
		l->current_worker = self == mine &&
				    READ_ONCE(container_of(slot, struct ws_worker,
							   inv)->thread) ==
				    current;
	} else {
		/* A joined thread owns no CPU slot: the slow paths. */
		l->invoke_slot = true;
		l->owns = !__ws_invoke_owns(slot);
		l->current_worker = true;
	}
	return NULL;
}

/*
 * One task towards each online CPU of @pool: the lookups of the inline
 * ws_parallel_invoke() and of ws_pool_current() find the slot of the CPU
 * slot that runs them, and its owner check passes there (so a wrong
 * per-CPU entry, which would only send every call out of line, fails
 * here).  Return how many tasks ran on a CPU slot.
 */
static unsigned int it_lookup_run(struct kunit *test, struct ws_pool *pool)
{
	struct ws_pool *p = pool ? pool : ws_system_pool;
	struct it_lookup *l;
	struct ws_group group;
	unsigned int cpu, on_cpu = 0;

	l = kunit_kcalloc(test, nr_cpu_ids, sizeof(*l), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	/* The table itself: every possible CPU's entry is its CPU slot. */
	for_each_possible_cpu(cpu)
		KUNIT_EXPECT_PTR_EQ(test, *per_cpu_ptr(p->head.inv_slot, cpu),
				    &p->workers[cpu]->inv);
	/* The test thread is no worker: it owns no slot. */
	KUNIT_EXPECT_FALSE(test, __ws_invoke_owns(__ws_invoke_slot(pool)));
	ws_group_init(&group, pool);
	for_each_online_cpu(cpu) {
		l[cpu].pool = pool;
		ws_task_init(&l[cpu].task, it_lookup_fn);
		ws_spawn_on(&group, &l[cpu].task, cpu);
	}
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_TRUE(test, l[cpu].ran);
		KUNIT_EXPECT_TRUE(test, l[cpu].invoke_slot);
		KUNIT_EXPECT_TRUE(test, l[cpu].owns);
		KUNIT_EXPECT_TRUE(test, l[cpu].current_worker);
		on_cpu += l[cpu].on_cpu_slot;
	}
	return on_cpu;
}

/* In a pool of its own and in ws_system_pool (the NULL pool). */
static void invoke_finds_own_slot(struct kunit *test)
{
	/* Attributes: the test thread sleeps rather than joins. */
	struct ws_pool_attrs attrs = { .max_workers = num_online_cpus() };
	struct ws_pool *pool = ws_test_pool(test, "ws_it_slot", &attrs);

	KUNIT_EXPECT_EQ(test, it_lookup_run(test, pool), num_online_cpus());
	ws_test_pool_destroy(test, pool);
	/* The test thread may join the system pool and run some itself. */
	KUNIT_EXPECT_GT(test, it_lookup_run(test, NULL), 0U);
}

/* ---- the same with an explicit context ---- */

static void ctx_fib_worker(struct kunit *test)
{
	it_fib_worker(test, true);
}

/* From the test thread, which joins the pool for the run. */
static void ctx_fib_joined(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_ic_join", NULL);

	KUNIT_EXPECT_TRUE(test, it_fib_here(test, pool, true) & 1);
	ws_test_pool_destroy(test, pool);
}

/*
 * From a thread that cannot join: the run is handed to the worker, so
 * every call runs there, none on the test thread.
 */
static void ctx_fib_outside(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = ws_test_pool(test, "ws_ic_out", &attrs);

	KUNIT_EXPECT_EQ(test, it_fib_here(test, pool, true), 2);
	ws_test_pool_destroy(test, pool);
}

static void ctx_fib_isolated(struct kunit *test)
{
	it_fib_in_region(test, true);
}

/* ---- nested deeper than the frames ---- */

#define IT_DEEP		(WS_INVOKE_FRAMES + 4)

/**
 * struct it_deep - a chain of nested calls
 * @pool: the pool
 * @left: runs of the first call at each level
 * @right: runs of the second call at each level
 * @max_depth: the deepest frame index the slot reached
 * @bad_ctx: calls that got another thread's context
 */
struct it_deep {
	struct ws_pool *pool;
	atomic_t left[IT_DEEP + 1];
	atomic_t right[IT_DEEP + 1];
	unsigned int max_depth;
	atomic_t bad_ctx;
};

struct it_deep_arg {
	struct it_deep *d;
	unsigned int level;
};

static void it_deep_right(struct ws_ctx *ctx, void *arg)
{
	struct it_deep_arg *a = arg;

	if (!it_ctx_is_own(a->d->pool, ctx))
		atomic_inc(&a->d->bad_ctx);
	atomic_inc(&a->d->right[a->level]);
}

static void it_deep_left(struct ws_ctx *ctx, void *arg)
{
	struct it_deep_arg *a = arg;
	struct it_deep_arg kid = { .d = a->d, .level = a->level + 1 };
	struct it_deep_arg sib = kid;
	unsigned int depth = READ_ONCE(__ws_ctx_slot(ctx)->depth);

	if (!it_ctx_is_own(a->d->pool, ctx))
		atomic_inc(&a->d->bad_ctx);
	atomic_inc(&a->d->left[a->level]);
	/* Only the owner writes its depth: racy maxima are not expected. */
	if (depth > a->d->max_depth)
		a->d->max_depth = depth;
	if (a->level < IT_DEEP)
		ws_ctx_invoke(ctx, it_deep_left, &kid, it_deep_right, &sib);
}

struct it_deep_root {
	struct ws_task task;
	struct it_deep_arg a;
};

static struct ws_task *it_deep_root_fn(struct ws_task *task)
{
	struct it_deep_root *root = container_of(task, struct it_deep_root,
						 task);

	ws_ctx_run(root->a.d->pool, it_deep_left, &root->a);
	return NULL;
}

/*
 * On the worker of a one-worker pool: the slot keeps WS_INVOKE_FRAMES
 * frames and no more, deeper calls call both functions in turn, and
 * every function at every level runs once.
 */
static void ctx_deeper_than_frames(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = ws_test_pool(test, "ws_ic_deep", &attrs);
	struct it_deep *d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	struct it_deep_root root;
	struct ws_group group;
	unsigned int k;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_EQ(test, ws_pool_nr_workers(pool), 1U);
	d->pool = pool;
	root.a = (struct it_deep_arg){ .d = d, .level = 0 };
	ws_task_init(&root.task, it_deep_root_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	for (k = 0; k <= IT_DEEP; k++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&d->left[k]), 1,
				    "first call at level %u", k);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&d->right[k]), k ? 1 : 0,
				    "second call at level %u", k);
	}
	KUNIT_EXPECT_EQ(test, d->max_depth, (unsigned int)WS_INVOKE_FRAMES);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->bad_ctx), 0);
	ws_test_pool_destroy(test, pool);
}

/* ---- the second call is stolen while the first runs ---- */

/**
 * struct it_steal - two calls that meet
 * @started: set by the second call once it runs
 * @left_thread: the thread that ran the first call
 * @right_thread: the thread that ran the second call
 * @left_runs: runs of the first call
 * @right_runs: runs of the second call
 * @met: the first call saw the second one running before it returned
 * @pool: the pool (for the explicit-context variant)
 * @right_ctx_own: the second call got its own thread's context
 */
struct it_steal {
	struct ws_pool *pool;
	bool right_ctx_own;
	int started;
	struct task_struct *left_thread;
	struct task_struct *right_thread;
	atomic_t left_runs;
	atomic_t right_runs;
	bool met;
};

static void it_steal_left(void *arg)
{
	struct it_steal *s = arg;
	unsigned long deadline = jiffies + IT_TIMEOUT;

	s->left_thread = current;
	atomic_inc(&s->left_runs);
	/* Pairs with smp_store_release() in it_steal_right(). */
	while (!smp_load_acquire(&s->started) &&
	       time_before(jiffies, deadline))
		schedule_timeout_uninterruptible(1);
	/* As above. */
	s->met = smp_load_acquire(&s->started);
}

static void it_steal_right(void *arg)
{
	struct it_steal *s = arg;

	s->right_thread = current;
	atomic_inc(&s->right_runs);
	/* Pairs with smp_load_acquire() in it_steal_left(). */
	smp_store_release(&s->started, 1);
}

/*
 * The first call waits until the second has started: only a thief can
 * have started it.  The caller then finds its deque empty and waits.
 */
static void invoke_stolen(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_it_steal", NULL);
	struct it_steal s = { .started = 0 };
	struct ws_pool_stats before, after;

	if (ws_pool_nr_workers(pool) < 1)
		kunit_skip(test, "no worker");
	atomic_set(&s.left_runs, 0);
	atomic_set(&s.right_runs, 0);
	ws_pool_read_stats(pool, &before);
	ws_parallel_invoke(pool, it_steal_left, &s, it_steal_right, &s);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_TRUE(test, s.met);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.left_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.right_runs), 1);
	KUNIT_EXPECT_PTR_EQ(test, s.left_thread, current);
	KUNIT_EXPECT_PTR_NE(test, s.right_thread, current);
	KUNIT_EXPECT_GE(test, after.stolen - before.stolen, 1ULL);
	ws_test_pool_destroy(test, pool);
}

static void it_ctx_steal_left(struct ws_ctx *ctx, void *arg)
{
	it_steal_left(arg);
}

static void it_ctx_steal_right(struct ws_ctx *ctx, void *arg)
{
	struct it_steal *s = arg;

	s->right_ctx_own = it_ctx_is_own(s->pool, ctx);
	it_steal_right(arg);
}

static void it_ctx_steal_run(struct ws_ctx *ctx, void *arg)
{
	ws_ctx_invoke(ctx, it_ctx_steal_left, arg, it_ctx_steal_right, arg);
}

/*
 * invoke_stolen() with the explicit context: the test thread joins for
 * the run, its second call is stolen and runs with the thief's context.
 */
static void ctx_stolen(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "ws_ic_steal", NULL);
	struct it_steal s = { .pool = pool, .started = 0 };
	struct ws_pool_stats before, after;

	if (ws_pool_nr_workers(pool) < 1)
		kunit_skip(test, "no worker");
	atomic_set(&s.left_runs, 0);
	atomic_set(&s.right_runs, 0);
	ws_pool_read_stats(pool, &before);
	ws_ctx_run(pool, it_ctx_steal_run, &s);
	ws_pool_read_stats(pool, &after);
	KUNIT_EXPECT_TRUE(test, s.met);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.left_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&s.right_runs), 1);
	KUNIT_EXPECT_PTR_EQ(test, s.left_thread, current);
	KUNIT_EXPECT_PTR_NE(test, s.right_thread, current);
	KUNIT_EXPECT_TRUE(test, s.right_ctx_own);
	KUNIT_EXPECT_GE(test, after.stolen - before.stolen, 1ULL);
	ws_test_pool_destroy(test, pool);
}

/* ---- a private second call is published when a thief asks ---- */

/**
 * struct it_pub - a private second call that another thread must run
 * @pool: the pool
 * @started: set by the second call once it runs
 * @owner: the thread that made the calls
 * @right_thread: the thread that ran the second call
 * @right_runs: runs of the second call
 * @was_private: the second call was in a private frame while the first ran
 * @met: the first call saw the second one running before it returned
 * @kick_group: the group of @kick
 * @kick: a task the first call spawns to wake the other worker
 * @use_ctx: make the calls with ws_ctx_invoke()
 * @ctx: the owner's context, in that case
 * @right_ctx_own: the second call got its own thread's context
 */
struct it_pub {
	struct ws_pool *pool;
	bool use_ctx;
	struct ws_ctx *ctx;
	bool right_ctx_own;
	struct ws_group kick_group;
	struct ws_task kick;
	int started;
	struct task_struct *owner;
	struct task_struct *right_thread;
	atomic_t right_runs;
	bool was_private;
	bool met;
};

static void it_pub_nop(void *arg)
{
}

static void it_ctx_nop(struct ws_ctx *ctx, void *arg)
{
}

static struct ws_task *it_trig_nop_task(struct ws_task *task)
{
	return NULL;
}

static void it_pub_right(void *arg)
{
	struct it_pub *p = arg;

	p->right_thread = current;
	atomic_inc(&p->right_runs);
	/* Pairs with smp_load_acquire() in it_pub_left(). */
	smp_store_release(&p->started, 1);
}

/*
 * Runs while the second call waits in a private frame (the outer call's
 * task was on the deque when it was pushed, unless a thief had already
 * taken it).  Each ws_parallel_invoke() below is a point where the owner
 * answers a thief's request by publishing its oldest private frame.
 */
static void it_pub_left(void *arg)
{
	struct it_pub *p = arg;
	unsigned long deadline = jiffies + IT_TIMEOUT;
	struct ws_worker *self = ws_pool_current(p->pool);

	/* Owner-side fields, read on the owner. */
	p->was_private = self && self->inv.depth > self->inv.published;
	/*
	 * A sleeping worker asks for nothing: wake the other one with a
	 * task in the pool's FIFO queue, which wakes an idle worker at
	 * once; then it finds nothing more, and asks.  (A spawn of ours
	 * would stay latent, and with the heartbeat off nothing would
	 * offer it to the sleeper.)
	 */
	ws_group_init(&p->kick_group, p->pool);
	ws_task_init(&p->kick, it_trig_nop_task);
	ws_enqueue(&p->kick_group, &p->kick);
	/* Pairs with smp_store_release() in it_pub_right(). */
	while (!smp_load_acquire(&p->started) &&
	       time_before(jiffies, deadline)) {
		if (p->use_ctx)
			ws_ctx_invoke(p->ctx, it_ctx_nop, NULL, it_ctx_nop,
				      NULL);
		else
			ws_parallel_invoke(p->pool, it_pub_nop, NULL,
					   it_pub_nop, NULL);
		schedule_timeout_uninterruptible(1);
	}
	/* As above. */
	p->met = smp_load_acquire(&p->started);
	ws_group_wait(&p->kick_group);
}

/* The outer call: its second call goes onto the empty deque. */
static void it_pub_outer(void *arg)
{
	struct it_pub *p = arg;

	ws_parallel_invoke(p->pool, it_pub_left, p, it_pub_right, p);
}

struct it_pub_root {
	struct ws_task task;
	struct it_pub *p;
};

static void it_pub_ctx_left(struct ws_ctx *ctx, void *arg)
{
	struct it_pub *p = arg;

	p->ctx = ctx;
	it_pub_left(arg);
}

static void it_pub_ctx_right(struct ws_ctx *ctx, void *arg)
{
	struct it_pub *p = arg;

	p->right_ctx_own = it_ctx_is_own(p->pool, ctx);
	it_pub_right(arg);
}

static void it_pub_ctx_outer(struct ws_ctx *ctx, void *arg)
{
	ws_ctx_invoke(ctx, it_pub_ctx_left, arg, it_pub_ctx_right, arg);
}

static void it_pub_ctx_root(struct ws_ctx *ctx, void *arg)
{
	ws_ctx_invoke(ctx, it_pub_ctx_outer, arg, it_ctx_nop, NULL);
}

static struct ws_task *it_pub_root_fn(struct ws_task *task)
{
	struct it_pub *p = container_of(task, struct it_pub_root, task)->p;

	p->owner = current;
	if (p->use_ctx)
		ws_ctx_run(p->pool, it_pub_ctx_root, p);
	else
		ws_parallel_invoke(p->pool, it_pub_outer, p, it_pub_nop, NULL);
	return NULL;
}

/*
 * A pool of two workers, with attributes so that the test thread sleeps
 * in its waits instead of joining; the case is skipped with fewer.
 */
static struct ws_pool *it_pool_of_two(struct kunit *test, const char *name)
{
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	struct ws_pool *pool = ws_test_pool(test, name, &attrs);

	if (ws_pool_nr_workers(pool) < 2)
		kunit_skip(test, "needs two workers");
	return pool;
}

/*
 * On a pool of two workers (with attributes, so the test thread sleeps
 * instead of joining): one runs the root, the other takes the root's
 * promoted second call, finds nothing more, and asks; the root's worker
 * promotes the private frame at its next call (or its heartbeat does,
 * when it beats), and the thief runs it.  A thief fast enough to take
 * the root's call late makes the nested one promoted before the first
 * call ran; such rounds are retried.
 */
static void it_pub_rounds(struct kunit *test, bool use_ctx)
{
	struct ws_pool *pool = it_pool_of_two(test, "ws_it_pub");
	struct ws_pool_stats before, after;
	unsigned int round, private_rounds = 0;

	for (round = 0; round < 20 && private_rounds < 3; round++) {
		struct it_pub p = { .pool = pool, .use_ctx = use_ctx };
		struct it_pub_root root = { .p = &p };
		struct ws_group group;

		atomic_set(&p.right_runs, 0);
		ws_task_init(&root.task, it_pub_root_fn);
		ws_group_init(&group, pool);
		ws_pool_read_stats(pool, &before);
		ws_spawn(&group, &root.task);
		KUNIT_ASSERT_EQ(test, ws_group_wait(&group), 0);
		ws_pool_read_stats(pool, &after);
		KUNIT_EXPECT_EQ(test, atomic_read(&p.right_runs), 1);
		if (!p.was_private)
			continue;
		private_rounds++;
		KUNIT_EXPECT_TRUE(test, p.met);
		KUNIT_EXPECT_PTR_NE(test, p.right_thread, p.owner);
		if (use_ctx)
			KUNIT_EXPECT_TRUE(test, p.right_ctx_own);
		KUNIT_EXPECT_GE(test, after.stolen - before.stolen, 2ULL);
	}
	KUNIT_EXPECT_GT(test, private_rounds, 0U);
	ws_test_pool_destroy(test, pool);
}

/* Set the heartbeat interval for a test; returns the one to restore. */
static unsigned int it_hb_set(unsigned int us)
{
	unsigned int old = READ_ONCE(ws_heartbeat_us);

	WRITE_ONCE(ws_heartbeat_us, us);
	return old;
}

/* With the default heartbeat: whichever trigger comes first. */
static void invoke_private_published(struct kunit *test)
{
	unsigned int old = it_hb_set(100);

	it_pub_rounds(test, false);
	it_hb_set(old);
}

/* Without the heartbeat: only the thief's request promotes. */
static void invoke_request_promotes(struct kunit *test)
{
	unsigned int old = it_hb_set(0);

	it_pub_rounds(test, false);
	it_hb_set(old);
}

/* The explicit context, with the default heartbeat. */
static void ctx_private_published(struct kunit *test)
{
	unsigned int old = it_hb_set(100);

	it_pub_rounds(test, true);
	it_hb_set(old);
}

/* The explicit context, without the heartbeat: the thief's request. */
static void ctx_request_promotes(struct kunit *test)
{
	unsigned int old = it_hb_set(0);

	it_pub_rounds(test, true);
	it_hb_set(old);
}

/* ---- promotion while the first call neither calls nor returns ---- */

/* How long the first call spins, or the test waits, before giving up. */
#define IT_TRIG_PATIENCE	(5 * HZ)

/**
 * struct it_trig - a second call that only a promotion can start while
 *	the first call runs
 * @pool: two workers, with attributes (the test thread sleeps)
 * @wait: the first call waits on @group, else it spins
 * @owner: the worker that made the calls
 * @right_thread: the thread that ran the second call
 * @right_runs: runs of the second call
 * @started: set by the second call once it runs
 * @left_done: set by the first call as it returns
 * @met: the second call started before the first call returned
 * @released: @p was spawned (by the second call, or by the test thread
 *	when nothing promoted the second call in time)
 * @by_test: the test thread spawned @p
 * @wait_ret: what the first call's ws_group_wait() returned
 * @ran: completed by the second call, for the test thread
 * @group: the group the first call waits on: @t, which waits for @p
 * @p: spawned by the second call
 * @t: spawned by the first call, ready once @p ran
 * @use_ctx: make the calls with ws_ctx_invoke()
 * @right_ctx_own: the second call got its own thread's context
 */
struct it_trig {
	struct ws_pool *pool;
	bool use_ctx;
	bool right_ctx_own;
	bool wait;
	struct task_struct *owner;
	struct task_struct *right_thread;
	atomic_t right_runs;
	int started;
	int left_done;
	bool met;
	atomic_t released;
	bool by_test;
	int wait_ret;
	struct completion ran;
	struct ws_group group;
	struct ws_task p;
	struct ws_task t;
};

static void it_trig_release(struct it_trig *tr, bool by_test)
{
	if (atomic_cmpxchg(&tr->released, 0, 1))
		return;
	tr->by_test = by_test;
	ws_spawn(&tr->group, &tr->p);
}

static void it_trig_right(void *arg)
{
	struct it_trig *tr = arg;

	tr->right_thread = current;
	atomic_inc(&tr->right_runs);
	/* Pairs with smp_store_release() in it_trig_left(). */
	tr->met = !smp_load_acquire(&tr->left_done);
	/* Pairs with smp_load_acquire() in it_trig_left(). */
	smp_store_release(&tr->started, 1);
	if (tr->wait)
		it_trig_release(tr, false);
	complete(&tr->ran);
}

/*
 * No ws_parallel_invoke() in here, so no request is answered: only the
 * heartbeat (spinning) or the wait (waiting) can promote the second call.
 */
static void it_trig_left(void *arg)
{
	struct it_trig *tr = arg;
	unsigned long deadline = jiffies + IT_TRIG_PATIENCE;

	tr->owner = current;
	if (tr->wait) {
		/* @t waits for @p, which only the second call spawns. */
		ws_spawn(&tr->group, &tr->t);
		tr->wait_ret = ws_group_wait(&tr->group);
	} else {
		/* Pairs with smp_store_release() in it_trig_right(). */
		while (!smp_load_acquire(&tr->started) &&
		       time_before(jiffies, deadline))
			cpu_relax();
	}
	/* Pairs with smp_load_acquire() in it_trig_right(). */
	smp_store_release(&tr->left_done, 1);
}

static void it_trig_outer(void *arg)
{
	struct it_trig *tr = arg;

	ws_parallel_invoke(tr->pool, it_trig_left, tr, it_trig_right, tr);
}

struct it_trig_root {
	struct ws_task task;
	struct it_trig *tr;
};

/*
 * The outermost call's second call is promoted at once when the other
 * worker idles; the nested one, the one under test, stays private.
 */
static void it_trig_ctx_left(struct ws_ctx *ctx, void *arg)
{
	it_trig_left(arg);
}

static void it_trig_ctx_right(struct ws_ctx *ctx, void *arg)
{
	struct it_trig *tr = arg;

	tr->right_ctx_own = it_ctx_is_own(tr->pool, ctx);
	it_trig_right(arg);
}

static void it_trig_ctx_outer(struct ws_ctx *ctx, void *arg)
{
	ws_ctx_invoke(ctx, it_trig_ctx_left, arg, it_trig_ctx_right, arg);
}

static void it_trig_ctx_root(struct ws_ctx *ctx, void *arg)
{
	ws_ctx_invoke(ctx, it_trig_ctx_outer, arg, it_ctx_nop, NULL);
}

static struct ws_task *it_trig_root_fn(struct ws_task *task)
{
	struct it_trig *tr = container_of(task, struct it_trig_root,
					  task)->tr;

	ws_group_init(&tr->group, tr->pool);
	if (tr->use_ctx)
		ws_ctx_run(tr->pool, it_trig_ctx_root, tr);
	else
		ws_parallel_invoke(tr->pool, it_trig_outer, tr, it_pub_nop,
				   NULL);
	return NULL;
}

static void it_trig_run(struct kunit *test, struct it_trig *tr, bool wait,
			unsigned int hb_us)
{
	struct ws_pool *pool = it_pool_of_two(test, "ws_it_trig");
	struct it_trig_root root = { .tr = tr };
	struct ws_group group;
	unsigned int old;

	tr->pool = pool;
	tr->wait = wait;
	atomic_set(&tr->right_runs, 0);
	atomic_set(&tr->released, 0);
	init_completion(&tr->ran);
	ws_task_init(&tr->p, it_trig_nop_task);
	ws_task_init(&tr->t, it_trig_nop_task);
	/* Only a waiting first call spawns them (an unspawned edge leaks). */
	if (wait)
		KUNIT_ASSERT_EQ(test, ws_task_precede(&tr->p, &tr->t, GFP_KERNEL),
				0);
	old = it_hb_set(hb_us);
	ws_task_init(&root.task, it_trig_root_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	/*
	 * Waiting, the first call would wait forever if nothing promoted
	 * the second: end its wait ourselves, and fail below.
	 */
	if (wait && !wait_for_completion_timeout(&tr->ran, IT_TRIG_PATIENCE))
		it_trig_release(tr, true);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	it_hb_set(old);
	KUNIT_EXPECT_EQ(test, atomic_read(&tr->right_runs), 1);
	ws_test_pool_destroy(test, pool);
}

/*
 * The first call spins without calling: the heartbeat promotes the
 * second, which the other worker starts while the first still spins.
 */
static void invoke_heartbeat_promotes(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	it_trig_run(test, tr, false, 100);
	KUNIT_EXPECT_TRUE(test, tr->met);
	KUNIT_EXPECT_PTR_NE(test, tr->right_thread, tr->owner);
}

/*
 * The control: without the heartbeat nothing promotes the second call
 * while the first spins; the caller runs it after the first returns.
 */
static void invoke_no_heartbeat_stays(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	it_trig_run(test, tr, false, 0);
	KUNIT_EXPECT_FALSE(test, tr->met);
	KUNIT_EXPECT_PTR_EQ(test, tr->right_thread, tr->owner);
}

/*
 * The first call waits for a task that needs a task the second call
 * spawns; without the heartbeat, the wait promotes the second call
 * before it naps, and the other worker runs it.
 */
static void invoke_wait_promotes(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	it_trig_run(test, tr, true, 0);
	KUNIT_EXPECT_FALSE(test, tr->by_test);
	KUNIT_EXPECT_TRUE(test, tr->met);
	KUNIT_EXPECT_PTR_NE(test, tr->right_thread, tr->owner);
	KUNIT_EXPECT_EQ(test, tr->wait_ret, 0);
}

/* The three triggers and the control with the explicit context. */
static void ctx_heartbeat_promotes(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->use_ctx = true;
	it_trig_run(test, tr, false, 100);
	KUNIT_EXPECT_TRUE(test, tr->met);
	KUNIT_EXPECT_PTR_NE(test, tr->right_thread, tr->owner);
	KUNIT_EXPECT_TRUE(test, tr->right_ctx_own);
}

static void ctx_no_heartbeat_stays(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->use_ctx = true;
	it_trig_run(test, tr, false, 0);
	KUNIT_EXPECT_FALSE(test, tr->met);
	KUNIT_EXPECT_PTR_EQ(test, tr->right_thread, tr->owner);
	KUNIT_EXPECT_TRUE(test, tr->right_ctx_own);
}

static void ctx_wait_promotes(struct kunit *test)
{
	struct it_trig *tr = kunit_kzalloc(test, sizeof(*tr), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, tr);
	tr->use_ctx = true;
	it_trig_run(test, tr, true, 0);
	KUNIT_EXPECT_FALSE(test, tr->by_test);
	KUNIT_EXPECT_TRUE(test, tr->met);
	KUNIT_EXPECT_PTR_NE(test, tr->right_thread, tr->owner);
	KUNIT_EXPECT_TRUE(test, tr->right_ctx_own);
	KUNIT_EXPECT_EQ(test, tr->wait_ret, 0);
}

/* ---- a promoted frame keeps the isolation it was made in ---- */

/**
 * struct it_iso - a frame promoted by the heartbeat while its owner is in
 *	another isolated region than the one the frame was made in
 * @pool: two workers, with attributes (the test thread sleeps)
 * @inner: the frame is made inside the isolated region (else outside it,
 *	with the region entered by the first call)
 * @owner: the worker that made the call
 * @region_tag: the owner's isolation tag inside the region
 * @right_thread: the thread that ran the second call
 * @right_tag: its isolation tag while it ran the second call
 * @right_runs: runs of the second call
 * @in_region: set by the first call once it spins in the region
 * @started: set by the second call once it runs
 * @met: the second call started while the first spun in the region
 */
struct it_iso {
	struct ws_pool *pool;
	bool inner;
	struct task_struct *owner;
	unsigned long region_tag;
	int in_region;
	struct task_struct *right_thread;
	unsigned long right_tag;
	atomic_t right_runs;
	int started;
	bool met;
};

/* The isolation tag of the current thread's slot of @pool. */
static unsigned long it_iso_tag(struct ws_pool *pool)
{
	struct ws_worker *self = ws_pool_current(pool);

	return self ? self->inv.isolation : ~0UL;
}

static void it_iso_right(void *arg)
{
	struct it_iso *st = arg;

	st->right_thread = current;
	st->right_tag = it_iso_tag(st->pool);
	atomic_inc(&st->right_runs);
	/* Pairs with smp_load_acquire() in it_iso_spin(). */
	smp_store_release(&st->started, 1);
}

/* No call in here: only the heartbeat can promote the frame. */
static void it_iso_spin(void *arg)
{
	struct it_iso *st = arg;
	unsigned long deadline = jiffies + IT_TRIG_PATIENCE;

	st->owner = current;
	st->region_tag = it_iso_tag(st->pool);
	/* Pairs with smp_load_acquire() in it_iso_blocker(). */
	smp_store_release(&st->in_region, 1);
	/* Pairs with smp_store_release() in it_iso_right(). */
	while (!smp_load_acquire(&st->started) &&
	       time_before(jiffies, deadline))
		cpu_relax();
	/* Pairs with smp_store_release() in it_iso_right(). */
	st->met = smp_load_acquire(&st->started);
}

static int it_iso_region(void *arg)
{
	struct it_iso *st = arg;

	if (st->inner)
		ws_parallel_invoke(st->pool, it_iso_spin, st, it_iso_right,
				   st);
	else
		it_iso_spin(st);
	return 0;
}

static void it_iso_left(void *arg)
{
	struct it_iso *st = arg;

	ws_isolate(st->pool, it_iso_region, st);
}

/*
 * The outermost call's second call, which the other worker takes first
 * (promoted at once while it idles, else by the heartbeat): it keeps
 * that worker busy until the first call spins in the region, so that no
 * thief's request has the frame under test promoted (at its caller's
 * next call) before the region: only the heartbeat promotes it, while
 * its owner is in the region.
 */
static void it_iso_blocker(void *arg)
{
	struct it_iso *st = arg;
	unsigned long deadline = jiffies + IT_TRIG_PATIENCE;

	/* Pairs with smp_store_release() in it_iso_spin(). */
	while (!smp_load_acquire(&st->in_region) &&
	       time_before(jiffies, deadline))
		cpu_relax();
}

/* The nested frame is the one under test. */
static void it_iso_outer(void *arg)
{
	struct it_iso *st = arg;

	if (st->inner)
		it_iso_left(st);
	else
		ws_parallel_invoke(st->pool, it_iso_left, st, it_iso_right,
				   st);
}

struct it_iso_root {
	struct ws_task task;
	struct it_iso *st;
};

static struct ws_task *it_iso_root_fn(struct ws_task *task)
{
	struct it_iso *st = container_of(task, struct it_iso_root, task)->st;

	ws_parallel_invoke(st->pool, it_iso_outer, st, it_iso_blocker, st);
	return NULL;
}

static void it_iso_run(struct kunit *test, struct it_iso *st)
{
	struct ws_pool *pool = it_pool_of_two(test, "ws_it_iso");
	struct it_iso_root root = { .st = st };
	struct ws_group group;
	unsigned int old;

	st->pool = pool;
	atomic_set(&st->right_runs, 0);
	old = it_hb_set(100);
	ws_task_init(&root.task, it_iso_root_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	it_hb_set(old);
	KUNIT_EXPECT_EQ(test, atomic_read(&st->right_runs), 1);
	KUNIT_EXPECT_TRUE(test, st->met);
	KUNIT_EXPECT_PTR_NE(test, st->right_thread, st->owner);
	/* The first call did run in a region of its own. */
	KUNIT_EXPECT_NE(test, st->region_tag, 0UL);
	KUNIT_EXPECT_NE(test, st->region_tag, ~0UL);
	ws_test_pool_destroy(test, pool);
}

/*
 * The frame was made outside the region its owner is in when the
 * heartbeat promotes it: the thief runs it unisolated, as it was made,
 * not in the owner's current region (the region's entry recorded the
 * older frames' tag: ws_isolation_enter()).
 */
static void invoke_isolation_of_older_frame(struct kunit *test)
{
	struct it_iso *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	it_iso_run(test, st);
	KUNIT_EXPECT_EQ(test, st->right_tag, 0UL);
}

/* The control: a frame made inside the region runs in the region. */
static void invoke_isolation_of_region_frame(struct kunit *test)
{
	struct it_iso *st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, st);
	st->inner = true;
	it_iso_run(test, st);
	KUNIT_EXPECT_EQ(test, st->right_tag, st->region_tag);
}

/* ---- the first call leaves a task above the second ---- */

/**
 * struct it_left - the first call spawns a task and returns at once
 * @group: the task's group, waited for after the invoke
 * @task: the task left on the deque
 * @seq: order counter
 * @task_order: value of @seq when the task ran (0: never)
 * @right_order: value of @seq when the second call ran
 * @task_runs: runs of the task
 * @right_runs: runs of the second call
 * @ran: the first call ran
 */
struct it_left {
	struct ws_group group;
	struct ws_task task;
	atomic_t seq;
	int task_order;
	int right_order;
	atomic_t task_runs;
	atomic_t right_runs;
	bool ran;
};

static struct ws_task *it_left_task_fn(struct ws_task *task)
{
	struct it_left *l = container_of(task, struct it_left, task);

	atomic_inc(&l->task_runs);
	l->task_order = atomic_inc_return(&l->seq);
	return NULL;
}

static void it_left_left(void *arg)
{
	struct it_left *l = arg;

	l->ran = true;
	ws_spawn(&l->group, &l->task);
}

static void it_left_right(void *arg)
{
	struct it_left *l = arg;

	atomic_inc(&l->right_runs);
	l->right_order = atomic_inc_return(&l->seq);
}

struct it_left_root {
	struct ws_task task;
	struct it_left *l;
	struct ws_pool *pool;
	int wait;
};

static struct ws_task *it_left_root_fn(struct ws_task *task)
{
	struct it_left_root *root = container_of(task, struct it_left_root,
						 task);

	ws_group_init(&root->l->group, root->pool);
	ws_parallel_invoke(root->pool, it_left_left, root->l, it_left_right,
			   root->l);
	root->wait = ws_group_wait(&root->l->group);
	return NULL;
}

/*
 * On a pool of one worker (with attributes, so the test thread sleeps
 * rather than joining) nobody steals.  The second call waits in a
 * private frame, or in the promotion cell if the heartbeat promoted it,
 * never on the deque: the worker calls it as soon as the first call
 * returns, like a plain call, and the task the first call left on the
 * deque runs in the wait that follows; each exactly once.  (Before the
 * heartbeat the second call went onto the then empty deque, below the
 * task, which therefore ran first.)
 */
static void invoke_left_behind(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 1 };
	struct ws_pool *pool = ws_test_pool(test, "ws_it_left", &attrs);
	struct it_left *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	struct it_left_root root = { .pool = pool, .wait = -1 };
	struct ws_group group;

	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_ASSERT_EQ(test, ws_pool_nr_workers(pool), 1U);
	root.l = l;
	ws_task_init(&l->task, it_left_task_fn);
	ws_task_init(&root.task, it_left_root_fn);
	ws_group_init(&group, pool);
	ws_spawn(&group, &root.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, root.wait, 0);
	KUNIT_EXPECT_TRUE(test, l->ran);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->task_runs), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&l->right_runs), 1);
	KUNIT_EXPECT_EQ(test, l->right_order, 1);
	KUNIT_EXPECT_EQ(test, l->task_order, 2);
	ws_test_pool_destroy(test, pool);
}

/*
 * ---- the heartbeat stops for want of thieves; a thief's kick starts it
 *
 * On a pool of two workers: one spins in a task of its own; the other
 * then runs the root, whose first call spins without calling while its
 * second call stays private.  With no idle worker and no thief, the
 * owner's heartbeat stops (it would promote for nobody).  Released, the
 * spinning worker looks for work, finds the frame private and kicks the
 * owner's CPU: the heartbeat starts again and promotes the frame, which
 * the thief runs while the first call still spins.  Without the kick
 * nothing would promote it until the first call gave up.
 */
struct it_kick {
	struct ws_pool *pool;
	struct task_struct *owner;
	struct task_struct *right_thread;
	atomic_t right_runs;
	int started;
	bool stopped;
	bool still_private;
	bool met;
	struct ws_test_hold spin;
	struct ws_task root_task;
};

static void it_kick_right(void *arg)
{
	struct it_kick *k = arg;

	k->right_thread = current;
	atomic_inc(&k->right_runs);
	/* Pairs with smp_load_acquire() in it_kick_left(). */
	smp_store_release(&k->started, 1);
}

static void it_kick_left(void *arg)
{
	struct it_kick *k = arg;
	/* Our CPU slot: we are its bound worker. */
	struct ws_worker *w = container_of(__ws_invoke_slot(k->pool),
					   struct ws_worker, inv);
	unsigned long deadline = jiffies + IT_TRIG_PATIENCE;
	unsigned long settle = jiffies + msecs_to_jiffies(200);

	k->owner = current;
	/* Nobody idles or asks: the beats find no taker and stop. */
	while (READ_ONCE(w->inv.hb_armed) && time_before(jiffies, settle))
		cpu_relax();
	k->stopped = !READ_ONCE(w->inv.hb_armed);
	/* Our frame, the only one, is the oldest: private unless promoted. */
	k->still_private = !READ_ONCE(w->inv.published);
	ws_test_hold_release(&k->spin);
	/* Pairs with smp_store_release() in it_kick_right(). */
	while (!smp_load_acquire(&k->started) && time_before(jiffies, deadline))
		cpu_relax();
	/* As above. */
	k->met = smp_load_acquire(&k->started);
}

static struct ws_task *it_kick_root_fn(struct ws_task *task)
{
	struct it_kick *k = container_of(task, struct it_kick, root_task);

	ws_parallel_invoke(k->pool, it_kick_left, k, it_kick_right, k);
	return NULL;
}

static void invoke_kick_restarts_heartbeat(struct kunit *test)
{
	struct it_kick *k = kunit_kzalloc(test, sizeof(*k), GFP_KERNEL);
	unsigned int old = it_hb_set(100);
	struct ws_pool *pool;
	struct ws_group group;

	KUNIT_ASSERT_NOT_NULL(test, k);
	pool = it_pool_of_two(test, "ws_it_kick");
	k->pool = pool;
	atomic_set(&k->right_runs, 0);
	ws_group_init(&group, pool);
	ws_test_hold_init(&k->spin, false, IT_TRIG_PATIENCE);
	ws_task_init(&k->root_task, it_kick_root_fn);
	/* One worker spins first, so that the root goes to the other. */
	ws_spawn(&group, &k->spin.task);
	KUNIT_EXPECT_TRUE(test, ws_test_hold_wait(&k->spin, IT_TRIG_PATIENCE));
	ws_spawn(&group, &k->root_task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	it_hb_set(old);
	KUNIT_EXPECT_EQ(test, atomic_read(&k->right_runs), 1);
	KUNIT_EXPECT_TRUE(test, k->stopped);
	KUNIT_EXPECT_TRUE(test, k->still_private);
	KUNIT_EXPECT_TRUE(test, k->met);
	KUNIT_EXPECT_PTR_NE(test, k->right_thread, k->owner);
	ws_test_pool_destroy(test, pool);
}

static struct kunit_case invoke_cases[] = {
	KUNIT_CASE(invoke_fib_worker),
	KUNIT_CASE(invoke_fib_joined),
	KUNIT_CASE(invoke_fib_outside),
	KUNIT_CASE(invoke_fib_isolated),
	KUNIT_CASE(invoke_finds_own_slot),
	KUNIT_CASE(invoke_stolen),
	KUNIT_CASE(invoke_private_published),
	KUNIT_CASE(invoke_request_promotes),
	KUNIT_CASE(invoke_heartbeat_promotes),
	KUNIT_CASE(invoke_no_heartbeat_stays),
	KUNIT_CASE(invoke_kick_restarts_heartbeat),
	KUNIT_CASE(invoke_wait_promotes),
	KUNIT_CASE(invoke_left_behind),
	KUNIT_CASE(invoke_isolation_of_older_frame),
	KUNIT_CASE(invoke_isolation_of_region_frame),
	KUNIT_CASE(ctx_fib_worker),
	KUNIT_CASE(ctx_fib_joined),
	KUNIT_CASE(ctx_fib_outside),
	KUNIT_CASE(ctx_fib_isolated),
	KUNIT_CASE(ctx_deeper_than_frames),
	KUNIT_CASE(ctx_stolen),
	KUNIT_CASE(ctx_private_published),
	KUNIT_CASE(ctx_request_promotes),
	KUNIT_CASE(ctx_heartbeat_promotes),
	KUNIT_CASE(ctx_no_heartbeat_stays),
	KUNIT_CASE(ctx_wait_promotes),
	{}
};

static struct kunit_suite invoke_suite = {
	.name = "wsched_invoke",
	.test_cases = invoke_cases,
};

kunit_test_suite(invoke_suite);
