// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of ws_parallel_for() and ws_parallel_reduce(): every index
 * visited exactly once, chunks cut on grain boundaries, nested loops in
 * tasks and loops from outside the pool, and reductions combined in index
 * order (checked with crc32c, which is not commutative, and with interval
 * concatenation, which fails on any gap, overlap or swap).  Large ranges
 * cut to single indices and loops nested eight deep check that the loops
 * need no stack per split: their tasks never wait for each other.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wsched.h>

#include "ws_test.h"

/* Chunks of @grain in @n indices; no overflow for any @grain >= 1. */
static unsigned long nr_chunks(unsigned long n, unsigned long grain)
{
	return n ? (n - 1) / grain + 1 : 0;
}

/* A pool KUnit destroys when the case ends.  @max_workers 0: no limit. */
static struct ws_pool *par_pool_max(struct kunit *test, const char *name,
				    unsigned int max_workers)
{
	struct ws_pool_attrs attrs = { .max_workers = max_workers };

	return ws_test_pool(test, name, &attrs);
}

static struct ws_pool *par_pool(struct kunit *test, const char *name)
{
	return par_pool_max(test, name, 0);
}

/* ---- parallel_for: a counter per index and a check of each chunk ---- */

/**
 * struct pf_check - what a checking loop body records
 * @begin: first index of the loop
 * @end: one past its last index
 * @grain: the grain the loop was given (0 taken as 1)
 * @counts: visits of each index, from @begin
 * @calls: body calls
 * @bad: body calls with a chunk not on the loop's grain boundaries
 * @first: the thread that ran the chunk at @begin
 */
struct pf_check {
	unsigned long begin;
	unsigned long end;
	unsigned long grain;
	atomic_t *counts;
	atomic_t calls;
	atomic_t bad;
	struct task_struct *first;
};

static void pf_body(unsigned long b, unsigned long e, void *arg)
{
	struct pf_check *c = arg;
	unsigned long i;

	atomic_inc(&c->calls);
	if (b < c->begin || e > c->end || b >= e ||
	    (b - c->begin) % c->grain ||
	    (e - b != c->grain && e != c->end) || e - b > c->grain) {
		atomic_inc(&c->bad);
		return;
	}
	if (b == c->begin)
		WRITE_ONCE(c->first, current);	/* read after the join */
	for (i = b; i < e; i++)
		atomic_inc(&c->counts[i - c->begin]);
}

static int pf_check_init(struct pf_check *c, unsigned long begin,
			 unsigned long end, unsigned long grain)
{
	c->begin = begin;
	c->end = end;
	c->grain = grain ? grain : 1;
	atomic_set(&c->calls, 0);
	atomic_set(&c->bad, 0);
	c->first = NULL;
	c->counts = vzalloc(array_size(end > begin ? end - begin : 1,
				       sizeof(*c->counts)));
	return c->counts ? 0 : -ENOMEM;
}

/* Every index exactly once, in the number of chunks the grain gives. */
static void pf_check_expect(struct kunit *test, struct pf_check *c)
{
	unsigned long n = c->end > c->begin ? c->end - c->begin : 0;
	unsigned long i, once = 0;

	for (i = 0; i < n; i++)
		once += atomic_read(&c->counts[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, n);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->bad), 0);
	KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&c->calls),
			nr_chunks(n, c->grain));
}

/* @t is the current thread or a pool's worker kthread ("ws/<cpu>:<pool>"). */
static bool pf_caller_or_worker(struct task_struct *t)
{
	return t && (t == current ||
		     ((t->flags & PF_KTHREAD) && !strncmp(t->comm, "ws/", 3)));
}

static void pf_run(struct kunit *test, struct ws_pool *pool,
		   unsigned long begin, unsigned long end, unsigned long grain)
{
	struct pf_check c;

	KUNIT_ASSERT_EQ(test, pf_check_init(&c, begin, end, grain), 0);
	KUNIT_EXPECT_EQ(test, ws_parallel_for(pool, begin, end, grain,
					      pf_body, &c), 0);
	pf_check_expect(test, &c);
	/*
	 * A thread from outside the pool that waits may run the pool's
	 * tasks itself meanwhile, so the chunk at @begin may have run on
	 * the caller; otherwise a worker of the pool ran it.
	 */
	if (end > begin)
		KUNIT_EXPECT_TRUE(test, pf_caller_or_worker(READ_ONCE(c.first)));
	vfree(c.counts);
}

static void par_for_empty(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_empty");
	struct pf_check c;

	KUNIT_ASSERT_EQ(test, pf_check_init(&c, 5, 5, 1), 0);
	KUNIT_EXPECT_EQ(test, ws_parallel_for(pool, 5, 5, 1, pf_body, &c), 0);
	KUNIT_EXPECT_EQ(test, ws_parallel_for(pool, 9, 3, 1, pf_body, &c), 0);
	KUNIT_EXPECT_EQ(test, ws_parallel_for(NULL, 0, 0, 0, pf_body, &c), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c.calls), 0);
	vfree(c.counts);
}

static void par_for_one(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_one");

	pf_run(test, pool, 7, 8, 16);
	pf_run(test, pool, 0, 1, 1);
	pf_run(test, pool, ULONG_MAX - 1, ULONG_MAX, 0);
}

static void par_for_uneven(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_uneven");

	pf_run(test, pool, 0, 100003, 64);
	pf_run(test, pool, 1000, 1000 + 100003, 64);
	pf_run(test, pool, 3, 3 + 4097, 2);
	/* Near the top of the index space: no overflow in the cuts. */
	pf_run(test, pool, ULONG_MAX - 50000, ULONG_MAX, 7);
}

static void par_for_big_grain(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_big");

	pf_run(test, pool, 0, 1000, 1000000);
	pf_run(test, pool, 10, 1010, 1000);
	pf_run(test, pool, 0, 1001, 1000);
	pf_run(test, pool, 0, 1000, ULONG_MAX);
}

static void par_for_grain0(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_grain0");

	pf_run(test, pool, 0, 5000, 0);
	pf_run(test, pool, 0, 2, 0);
}

/* From outside the pool: the caller sleeps, the workers run every chunk. */
static void par_for_outside(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_outside");
	struct ws_pool_stats before, after;

	ws_pool_read_stats(pool, &before);
	pf_run(test, pool, 0, 65536, 16);
	ws_pool_read_stats(pool, &after);
	/* Only the root task came from outside; the rest were spawned. */
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, 1ULL);
	KUNIT_EXPECT_EQ(test, after.spawned - before.spawned,
			after.executed - before.executed - 1);

	pf_run(test, NULL, 0, 65536, 16);
	pf_run(test, ws_system_pool, 17, 17 + 12345, 10);
}

/* ---- splitting really happens: sleeping chunks spread over workers ---- */

#define SLOW_CHUNKS	128

struct pf_slow {
	struct task_struct *thread[SLOW_CHUNKS];
	atomic_t runs[SLOW_CHUNKS];
};

static void pf_slow_body(unsigned long b, unsigned long e, void *arg)
{
	struct pf_slow *s = arg;

	for (; b < e; b++) {
		usleep_range(200, 400);		/* the body may sleep */
		s->thread[b] = current;
		atomic_inc(&s->runs[b]);
	}
}

static void par_for_balance(struct kunit *test)
{
	struct ws_pool_stats before, after;
	unsigned int i, once = 0, others = 0;
	struct ws_pool *pool;
	struct pf_slow *s;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	pool = par_pool(test, "t_pf_balance");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	ws_pool_read_stats(pool, &before);
	KUNIT_EXPECT_EQ(test, ws_parallel_for(pool, 0, SLOW_CHUNKS, 1,
					      pf_slow_body, s), 0);
	ws_pool_read_stats(pool, &after);
	for (i = 0; i < SLOW_CHUNKS; i++) {
		once += atomic_read(&s->runs[i]) == 1;
		others += s->thread[i] != s->thread[0];
	}
	KUNIT_EXPECT_EQ(test, once, SLOW_CHUNKS);
	/* Idle workers asked for work: halves were split off and stolen. */
	KUNIT_EXPECT_GT(test, after.spawned - before.spawned, 0ULL);
	KUNIT_EXPECT_GT(test, after.stolen - before.stolen, 0ULL);
	KUNIT_EXPECT_GT(test, others, 0U);
}

/* ---- a loop run by a task of the same pool ---- */

struct pf_nest {
	struct ws_task task;
	struct ws_pool *pool;
	struct pf_check *check;
	struct task_struct *thread;
	int ret;
};

static struct ws_task *pf_nest_fn(struct ws_task *task)
{
	struct pf_nest *n = container_of(task, struct pf_nest, task);
	struct pf_check *c = n->check;

	n->thread = current;
	n->ret = ws_parallel_for(n->pool, c->begin, c->end, c->grain,
				 pf_body, c);
	return NULL;
}

static void par_for_nested_task(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_nest");
	struct ws_pool_stats before, after;
	struct ws_group group;
	struct pf_check c;
	struct pf_nest n;

	KUNIT_ASSERT_EQ(test, pf_check_init(&c, 0, 200000, 32), 0);
	ws_task_init(&n.task, pf_nest_fn);
	n.pool = pool;
	n.check = &c;
	n.thread = NULL;
	n.ret = -1;
	ws_group_init(&group, pool);
	ws_pool_read_stats(pool, &before);
	ws_spawn(&group, &n.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	ws_pool_read_stats(pool, &after);

	KUNIT_EXPECT_EQ(test, n.ret, 0);
	pf_check_expect(test, &c);
	/* The loop ran inline: the task's worker ran the leftmost chunk. */
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(c.first), n.thread);
	KUNIT_EXPECT_EQ(test, after.injected - before.injected, 1ULL);
	vfree(c.counts);
}

/* ---- loops nested in loops: a row loop per index of an outer loop ---- */

#define NEST_ROWS	48
#define NEST_COLS	3001

struct pf_grid {
	struct ws_pool *pool;
	struct pf_check rows[NEST_ROWS];
	atomic_t errors;
};

static void pf_grid_body(unsigned long b, unsigned long e, void *arg)
{
	struct pf_grid *g = arg;
	unsigned long i;

	for (i = b; i < e; i++) {
		struct pf_check *c = &g->rows[i];

		if (ws_parallel_for(g->pool, c->begin, c->end, c->grain,
				    pf_body, c))
			atomic_inc(&g->errors);
	}
}

static void par_for_nested_loops(struct kunit *test)
{
	struct ws_pool *pool = par_pool(test, "t_pf_grid");
	struct pf_grid *g;
	unsigned int i, ok = 0;

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	g->pool = pool;
	for (i = 0; i < NEST_ROWS; i++)
		ok += !pf_check_init(&g->rows[i], 0, NEST_COLS, 1 + i % 5);
	if (ok == NEST_ROWS) {
		KUNIT_EXPECT_EQ(test, ws_parallel_for(pool, 0, NEST_ROWS, 1,
						      pf_grid_body, g), 0);
		KUNIT_EXPECT_EQ(test, atomic_read(&g->errors), 0);
		for (i = 0; i < NEST_ROWS; i++)
			pf_check_expect(test, &g->rows[i]);
	}
	KUNIT_EXPECT_EQ(test, ok, NEST_ROWS);
	for (i = 0; i < NEST_ROWS; i++)
		vfree(g->rows[i].counts);
}

/* ---- loops nested eight deep: a loop per index at every level ---- */

#define DEEP_LEVELS	8

/* 3 or 4 indices at level @k: 3 * 4 * 3 * 4 ... = 20736 leaves. */
static unsigned long deep_size(unsigned int k)
{
	return 3 + (k & 1);
}

/**
 * struct pf_deep - what the levels of a deep nest share
 * @pool: the pool every level runs in
 * @leaves: visits of each leaf, numbered by its indices at each level
 *	(mixed radix, level 0 most significant)
 * @nr_leaves: entries of @leaves
 * @errors: loops that returned an error
 */
struct pf_deep {
	struct ws_pool *pool;
	atomic_t *leaves;
	unsigned long nr_leaves;
	atomic_t errors;
};

/**
 * struct pf_deep_level - the argument of one loop of a deep nest
 * @deep: the shared state
 * @level: the loop's level, from 0
 * @prefix: the number of the path of indices that led to the loop
 */
struct pf_deep_level {
	struct pf_deep *deep;
	unsigned int level;
	unsigned long prefix;
};

static void pf_deep_body(unsigned long b, unsigned long e, void *arg)
{
	const struct pf_deep_level *l = arg;
	struct pf_deep *d = l->deep;

	for (; b < e; b++) {
		unsigned long path = l->prefix * deep_size(l->level) + b;
		struct pf_deep_level inner = {
			.deep = d,
			.level = l->level + 1,
			.prefix = path,
		};

		if (l->level == DEEP_LEVELS - 1) {
			if (path < d->nr_leaves)
				atomic_inc(&d->leaves[path]);
			continue;
		}
		if (ws_parallel_for(d->pool, 0, deep_size(inner.level), 1,
				    pf_deep_body, &inner))
			atomic_inc(&d->errors);
	}
}

static int pf_deep_start(struct pf_deep *d)
{
	struct pf_deep_level top = { .deep = d };

	return ws_parallel_for(d->pool, 0, deep_size(0), 1, pf_deep_body,
			       &top);
}

struct pf_deep_task {
	struct ws_task task;
	struct pf_deep *deep;
	int ret;
};

static struct ws_task *pf_deep_fn(struct ws_task *task)
{
	struct pf_deep_task *t = container_of(task, struct pf_deep_task,
					      task);

	t->ret = pf_deep_start(t->deep);
	return NULL;
}

/* Every leaf once; from a task of the pool if @in_task, else from here. */
static void pf_deep_run(struct kunit *test, struct pf_deep *d, bool in_task)
{
	unsigned long i, once = 0;

	for (i = 0; i < d->nr_leaves; i++)
		atomic_set(&d->leaves[i], 0);
	atomic_set(&d->errors, 0);
	if (in_task) {
		struct pf_deep_task t = { .deep = d, .ret = -1 };
		struct ws_group group;

		ws_task_init(&t.task, pf_deep_fn);
		ws_group_init(&group, d->pool);
		ws_spawn(&group, &t.task);
		KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
		KUNIT_EXPECT_EQ(test, t.ret, 0);
	} else {
		KUNIT_EXPECT_EQ(test, pf_deep_start(d), 0);
	}
	for (i = 0; i < d->nr_leaves; i++)
		once += atomic_read(&d->leaves[i]) == 1;
	KUNIT_EXPECT_EQ_MSG(test, once, d->nr_leaves, "in task: %d", in_task);
	KUNIT_EXPECT_EQ(test, atomic_read(&d->errors), 0);
}

static void par_for_nested_deep(struct kunit *test)
{
	struct pf_deep *d;
	unsigned int k;

	d = kunit_kzalloc(test, sizeof(*d), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d);
	d->nr_leaves = 1;
	for (k = 0; k < DEEP_LEVELS; k++)
		d->nr_leaves *= deep_size(k);
	d->leaves = kunit_kcalloc(test, d->nr_leaves, sizeof(*d->leaves),
				  GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, d->leaves);
	d->pool = par_pool_max(test, "t_pf_deep", 2);
	pf_deep_run(test, d, false);
	pf_deep_run(test, d, true);
}

/* ---- parallel_reduce ---- */

/**
 * struct pr_count - counts of the calls of a checking reduction
 * @bodies: body calls
 * @combines: combine calls
 * @bad: calls that saw something they should not
 */
struct pr_count {
	atomic_t bodies;
	atomic_t combines;
	atomic_t bad;
};

static u64 sum_body(unsigned long b, unsigned long e, void *arg)
{
	struct pr_count *pc = arg;
	u64 sum = 0;

	atomic_inc(&pc->bodies);
	for (; b < e; b++)
		sum += b;
	return sum;
}

static u64 sum_combine(u64 left, u64 right, unsigned long rb,
		       unsigned long re, void *arg)
{
	struct pr_count *pc = arg;

	atomic_inc(&pc->combines);
	return left + right;
}

static const struct ws_reduce_ops sum_ops = {
	.body = sum_body,
	.combine = sum_combine,
	.identity = 0,
};

static void par_reduce_sum(struct kunit *test)
{
	static const unsigned long sizes[] = { 1, 2, 63, 64, 65, 100003,
					       1000000 };
	static const unsigned long grains[] = { 0, 1, 64, 1000 };
	struct ws_pool *pool = par_pool(test, "t_pr_sum");
	unsigned int s, g;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (g = 0; g < ARRAY_SIZE(grains); g++) {
			unsigned long n = sizes[s];
			unsigned long grain = grains[g] ? grains[g] : 1;
			struct pr_count pc = {};
			u64 sum = ~0ULL;

			if (n / grain > 100000)
				continue;	/* keep the emulated run short */
			KUNIT_EXPECT_EQ(test,
					ws_parallel_reduce(pool, 0, n,
							   grains[g], &sum_ops,
							   &pc, &sum), 0);
			KUNIT_EXPECT_EQ_MSG(test, sum, (u64)n * (n - 1) / 2,
					    "n %lu grain %lu", n, grain);
			/* Each chunk once, each part combined once. */
			KUNIT_EXPECT_EQ(test,
					(unsigned long)atomic_read(&pc.bodies),
					nr_chunks(n, grain));
			KUNIT_EXPECT_EQ(test,
					(unsigned long)atomic_read(&pc.combines),
					nr_chunks(n, grain) - 1);
		}
	}
}

/* An empty range yields the identity without calling anything. */
static void par_reduce_empty(struct kunit *test)
{
	static const struct ws_reduce_ops ops = {
		.body = sum_body,
		.combine = sum_combine,
		.identity = 0xdeadbeefcafeULL,
	};
	struct pr_count pc = {};
	u64 v = 1;

	KUNIT_EXPECT_EQ(test, ws_parallel_reduce(NULL, 4, 4, 8, &ops, &pc, &v),
			0);
	KUNIT_EXPECT_EQ(test, v, 0xdeadbeefcafeULL);
	v = 1;
	KUNIT_EXPECT_EQ(test, ws_parallel_reduce(NULL, 9, 2, 0, &ops, &pc, &v),
			0);
	KUNIT_EXPECT_EQ(test, v, 0xdeadbeefcafeULL);
	KUNIT_EXPECT_EQ(test, atomic_read(&pc.bodies), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&pc.combines), 0);
}

/*
 * Interval concatenation: a value is [lo, hi) packed in 32 bits each, and
 * combining demands that the left interval end where the right begins.
 * Any lost, duplicated or swapped chunk breaks the chain.
 */
#define IV(lo, hi)	(((u64)(lo) << 32) | (u32)(hi))
#define IV_LO(v)	((unsigned long)((v) >> 32))
#define IV_HI(v)	((unsigned long)(u32)(v))

static u64 iv_body(unsigned long b, unsigned long e, void *arg)
{
	struct pr_count *pc = arg;

	atomic_inc(&pc->bodies);
	return IV(b, e);
}

static u64 iv_combine(u64 left, u64 right, unsigned long rb,
		      unsigned long re, void *arg)
{
	struct pr_count *pc = arg;

	atomic_inc(&pc->combines);
	if (IV_HI(left) != rb || IV_LO(right) != rb || IV_HI(right) != re ||
	    IV_LO(left) >= rb || rb >= re)
		atomic_inc(&pc->bad);
	return IV(IV_LO(left), re);
}

static const struct ws_reduce_ops iv_ops = {
	.body = iv_body,
	.combine = iv_combine,
	.identity = IV(0, 0),
};

static void par_reduce_order(struct kunit *test)
{
	static const unsigned long ranges[][3] = {
		{ 0, 1, 1 }, { 5, 6, 0 }, { 0, 2, 1 }, { 3, 4099, 1 },
		{ 100, 100103, 10 }, { 0, 1048589, 64 }, { 7, 70007, 0 },
	};
	struct ws_pool *pool = par_pool(test, "t_pr_order");
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ranges); i++) {
		unsigned long b = ranges[i][0], e = ranges[i][1];
		unsigned long grain = ranges[i][2] ? ranges[i][2] : 1;
		struct pr_count pc = {};
		u64 v = 0;

		KUNIT_EXPECT_EQ(test, ws_parallel_reduce(pool, b, e,
							 ranges[i][2], &iv_ops,
							 &pc, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v, IV(b, e), "range %u", i);
		KUNIT_EXPECT_EQ(test, atomic_read(&pc.bad), 0);
		KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&pc.bodies),
				nr_chunks(e - b, grain));
		KUNIT_EXPECT_EQ(test,
				(unsigned long)atomic_read(&pc.combines),
				nr_chunks(e - b, grain) - 1);
	}
}

/* crc32c by chunks: the crc of each chunk from 0, shifted and xored in. */
static u64 crc_body(unsigned long b, unsigned long e, void *arg)
{
	const u8 *buf = arg;

	return __crc32c_le(0, buf + b, e - b);
}

static u64 crc_combine(u64 left, u64 right, unsigned long rb,
		       unsigned long re, void *arg)
{
	return __crc32c_le_shift(left, re - rb) ^ (u32)right;
}

static const struct ws_reduce_ops crc_ops = {
	.body = crc_body,
	.combine = crc_combine,
	.identity = 0,
};

#define CRC_MAX_LEN	(SZ_1M + 13)

static void par_reduce_crc32c(struct kunit *test)
{
	static const unsigned long sizes[] = { 0, 1, 4095, CRC_MAX_LEN };
	static const unsigned long grains[] = { 1, 64, 4096, 65536 };
	struct ws_pool *pool = par_pool(test, "t_pr_crc");
	unsigned int s, g;
	u32 x = 0x2545f491;
	u8 *buf;
	size_t i;

	buf = vmalloc(CRC_MAX_LEN);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < CRC_MAX_LEN; i++) {
		/* xorshift32 (Marsaglia 2003) */
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[i] = x >> 24;
	}
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		u32 serial = __crc32c_le(0, buf, sizes[s]);

		for (g = 0; g < ARRAY_SIZE(grains); g++) {
			u64 v = ~0ULL;

			if (sizes[s] / grains[g] > 20000)
				continue;	/* keep the emulated run short */
			KUNIT_EXPECT_EQ(test,
					ws_parallel_reduce(pool, 0, sizes[s],
							   grains[g], &crc_ops,
							   buf, &v), 0);
			KUNIT_EXPECT_EQ_MSG(test, v, (u64)serial,
					    "size %lu grain %lu", sizes[s],
					    grains[g]);
		}
	}
	/* Not commutative: the crc of the halves swapped differs. */
	KUNIT_EXPECT_NE(test, crc_combine(crc_body(0, 2048, buf),
					  crc_body(2048, 4095, buf), 2048,
					  4095, buf),
			crc_combine(crc_body(2048, 4095, buf),
				    crc_body(0, 2048, buf), 2048, 4095, buf));
	vfree(buf);
}

/* ---- a million indices cut down to single ones ---- */

#define BIG_N	1000003UL

/*
 * ws_parallel_for() and ws_parallel_reduce() over [0, BIG_N) with grain
 * 0 and 1: a split at every index would nest a wait per split level if
 * the range tasks waited for their halves.  The bodies are trivial: the
 * emulated debug kernel runs millions of them.
 */
static void par_big(struct kunit *test, unsigned int max_workers)
{
	static const unsigned long grains[] = { 0, 1 };
	struct ws_pool *pool;
	char name[WS_NAME_LEN];
	unsigned int g;

	snprintf(name, sizeof(name), "t_big%u", max_workers);
	pool = par_pool_max(test, name, max_workers);
	for (g = 0; g < ARRAY_SIZE(grains); g++) {
		struct pr_count pc = {};
		u64 v = ~0ULL;

		pf_run(test, pool, 0, BIG_N, grains[g]);

		KUNIT_EXPECT_EQ(test, ws_parallel_reduce(pool, 0, BIG_N,
							 grains[g], &sum_ops,
							 &pc, &v), 0);
		KUNIT_EXPECT_EQ(test, v, (u64)BIG_N * (BIG_N - 1) / 2);
		KUNIT_EXPECT_EQ(test, (unsigned long)atomic_read(&pc.bodies),
				BIG_N);
		KUNIT_EXPECT_EQ(test,
				(unsigned long)atomic_read(&pc.combines),
				BIG_N - 1);

		/* Order-sensitive: any swapped or lost index shows. */
		memset(&pc, 0, sizeof(pc));
		v = 0;
		KUNIT_EXPECT_EQ(test, ws_parallel_reduce(pool, 0, BIG_N,
							 grains[g], &iv_ops,
							 &pc, &v), 0);
		KUNIT_EXPECT_EQ(test, v, IV(0, BIG_N));
		KUNIT_EXPECT_EQ(test, atomic_read(&pc.bad), 0);
		KUNIT_EXPECT_EQ(test,
				(unsigned long)atomic_read(&pc.combines),
				BIG_N - 1);
	}
}

static void par_big_1worker(struct kunit *test)
{
	par_big(test, 1);
}

static void par_big_2workers(struct kunit *test)
{
	par_big(test, 2);
}

static void par_big_4workers(struct kunit *test)
{
	par_big(test, 4);
}

static struct kunit_case parallel_cases[] = {
	KUNIT_CASE(par_for_empty),
	KUNIT_CASE(par_for_one),
	KUNIT_CASE(par_for_uneven),
	KUNIT_CASE(par_for_big_grain),
	KUNIT_CASE(par_for_grain0),
	KUNIT_CASE(par_for_outside),
	KUNIT_CASE(par_for_balance),
	KUNIT_CASE(par_for_nested_task),
	KUNIT_CASE(par_for_nested_loops),
	KUNIT_CASE(par_for_nested_deep),
	KUNIT_CASE(par_reduce_empty),
	KUNIT_CASE(par_reduce_sum),
	KUNIT_CASE(par_reduce_order),
	KUNIT_CASE(par_reduce_crc32c),
	KUNIT_CASE(par_big_1worker),
	KUNIT_CASE(par_big_2workers),
	KUNIT_CASE(par_big_4workers),
	{}
};

static struct kunit_suite parallel_suite = {
	.name = "wsched_parallel",
	.test_cases = parallel_cases,
};

kunit_test_suite(parallel_suite);
