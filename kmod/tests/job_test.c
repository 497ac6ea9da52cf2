// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of ws_job_run(): every index of the job run exactly once
 * (a counter per index, checked after the job), every chunk within the
 * job and on the alignment's boundaries, at most max_threads threads
 * running chunks (distinct threads and chunks in flight are counted),
 * bad arguments refused with nothing run, jobs in a given pool running
 * only on its threads and the caller, jobs from a task of a pool, and a
 * job whose process may have no helper thread completing on its caller.
 */
#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wsched.h>

#include "ws_test.h"

#include "wsched_internal.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

/* Distinct threads a job may record. */
#define JOB_MAX_SEEN	64

/**
 * struct job_check - what a checking job body records
 * @start: first index of the job
 * @end: one past its last index
 * @align: the job's alignment
 * @counts: visits of each index, from @start
 * @calls: body calls
 * @bad: calls with a chunk outside the job, empty or off the alignment
 * @misplaced: calls on a thread that is neither @caller nor named
 *	@pool_tag
 * @in_flight: calls running now
 * @peak: most calls that ran at once
 * @delay_us: how long each call spins, to make calls overlap
 * @caller: the thread that ran the job
 * @pool_tag: a substring of the names of the threads allowed besides
 *	@caller, or NULL for any thread
 * @lock: guards @seen and @nr_seen
 * @seen: the threads that ran calls
 * @nr_seen: entries of @seen
 */
struct job_check {
	unsigned long start;
	unsigned long end;
	unsigned long align;
	atomic_t *counts;
	atomic_t calls;
	atomic_t bad;
	atomic_t misplaced;
	atomic_t in_flight;
	atomic_t peak;
	unsigned int delay_us;
	struct task_struct *caller;
	const char *pool_tag;
	spinlock_t lock;	/* guards seen */
	struct task_struct *seen[JOB_MAX_SEEN];
	unsigned int nr_seen;
};

static void job_seen(struct job_check *c)
{
	unsigned int i;

	spin_lock(&c->lock);
	for (i = 0; i < c->nr_seen; i++)
		if (c->seen[i] == current)
			break;
	if (i == c->nr_seen && i < JOB_MAX_SEEN)
		c->seen[c->nr_seen++] = current;
	spin_unlock(&c->lock);
}

static void job_body(unsigned long b, unsigned long e, void *arg)
{
	struct job_check *c = arg;
	int now = atomic_inc_return(&c->in_flight);
	int peak = atomic_read(&c->peak);
	unsigned long i;

	while (now > peak && !atomic_try_cmpxchg(&c->peak, &peak, now))
		;
	atomic_inc(&c->calls);
	job_seen(c);
	if (current != c->caller && c->pool_tag &&
	    !strstr(current->comm, c->pool_tag))
		atomic_inc(&c->misplaced);
	if (b < c->start || e > c->end || b >= e ||
	    (b != c->start && b % c->align) || (e != c->end && e % c->align)) {
		atomic_inc(&c->bad);
	} else {
		for (i = b; i < e; i++)
			atomic_inc(&c->counts[i - c->start]);
	}
	if (c->delay_us)
		udelay(c->delay_us);
	atomic_dec(&c->in_flight);
}

static int job_vmem_init(struct kunit_resource *res, void *bytes)
{
	res->data = vzalloc(*(size_t *)bytes);
	return res->data ? 0 : -ENOMEM;
}

static void job_vmem_free(struct kunit_resource *res)
{
	vfree(res->data);
}

/* A checker for [@start, @start + @size); KUnit frees it. */
static struct job_check *job_check_new(struct kunit *test,
				       unsigned long start,
				       unsigned long size,
				       unsigned long align)
{
	struct job_check *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	size_t bytes = array_size(size, sizeof(*c->counts));

	KUNIT_ASSERT_NOT_NULL(test, c);
	c->counts = kunit_alloc_resource(test, job_vmem_init, job_vmem_free,
					 GFP_KERNEL, &bytes);
	KUNIT_ASSERT_NOT_NULL(test, c->counts);
	c->start = start;
	c->end = start + size;
	c->align = align;
	c->caller = current;
	spin_lock_init(&c->lock);
	return c;
}

static void job_init(struct ws_job *job, struct job_check *c,
		     unsigned long min_chunk, int max_threads)
{
	memset(job, 0, sizeof(*job));
	job->thread_fn = job_body;
	job->fn_arg = c;
	job->start = c->start;
	job->size = c->end - c->start;
	job->align = c->align;
	job->min_chunk = min_chunk;
	job->max_threads = max_threads;
}

/* Every index exactly once, no bad chunk, no thread out of place. */
static void job_expect_once(struct kunit *test, struct job_check *c)
{
	unsigned long i, n = c->end - c->start, wrong = 0;

	for (i = 0; i < n; i++)
		if (atomic_read(&c->counts[i]) != 1)
			wrong++;
	KUNIT_EXPECT_EQ_MSG(test, wrong, 0UL,
			    "indices not run exactly once in [%lu, %lu)",
			    c->start, c->end);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->bad), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->misplaced), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->in_flight), 0);
	KUNIT_EXPECT_GE(test, atomic_read(&c->calls), 1);
}

/* Run a job of these shapes in @pool and check it. */
static void job_run_shapes(struct kunit *test, struct ws_pool *pool,
			   const char *tag, bool numa)
{
	static const struct {
		unsigned long start, size, align, min_chunk;
		int max_threads;
	} shapes[] = {
		{ 0, 100000, 1, 1, 4 },
		{ 12345, 100000, 64, 100, 3 },
		{ 7, 4096 * 33 + 5, 4096, 4096, 8 },
		{ 1000, 999, 16, 0, 2 },	/* min_chunk 0 means 1 */
		{ 3, 10, 1, 1, 100 },		/* more threads than indices */
		{ 1, 50000, 8, 50000, 4 },	/* one chunk: one call */
		{ ULONG_MAX - 30000, 30000, 32, 10, 4 },	/* at the top */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(shapes); i++) {
		struct job_check *c = job_check_new(test, shapes[i].start,
						    shapes[i].size,
						    shapes[i].align);
		struct ws_job job;

		c->pool_tag = tag;
		job_init(&job, c, shapes[i].min_chunk, shapes[i].max_threads);
		job.numa_aware = numa;
		job.pool = pool;
		KUNIT_EXPECT_EQ(test, ws_job_run(&job), 0);
		job_expect_once(test, c);
		KUNIT_EXPECT_LE(test, atomic_read(&c->peak),
				shapes[i].max_threads);
		KUNIT_EXPECT_LE(test, c->nr_seen,
				(unsigned int)shapes[i].max_threads);
		if (shapes[i].min_chunk == shapes[i].size) {
			/* Sized to one thread: one call, on the caller. */
			KUNIT_EXPECT_EQ(test, atomic_read(&c->calls), 1);
			KUNIT_EXPECT_PTR_EQ(test, c->seen[0], current);
		}
	}
}

/* The default pool of a kthread: ws_system_pool. */
static void job_default_pool(struct kunit *test)
{
	job_run_shapes(test, NULL, ":system", false);
}

static void job_system_pool(struct kunit *test)
{
	job_run_shapes(test, ws_system_pool, ":system", false);
}

/*
 * NUMA-aware jobs: split per node on a NUMA machine, one part on any
 * other; the chunks must be the same set either way.
 */
static void job_numa_aware(struct kunit *test)
{
	job_run_shapes(test, NULL, ":system", true);
	job_run_shapes(test, ws_system_pool, ":system", true);
}

/* A job in a pool of its own runs on its threads and the caller only. */
static void job_given_pool(struct kunit *test)
{
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	struct ws_pool *pool = ws_test_pool(test, "jobp", &attrs);
	struct ws_pool *open = ws_test_pool(test, "jobq", NULL);

	job_run_shapes(test, pool, ":jobp", false);
	job_run_shapes(test, pool, ":jobp", true);
	job_run_shapes(test, open, ":jobq", false);
}

/*
 * max_threads: chunks that spin long enough to overlap; count the
 * distinct threads and the chunks in flight, for 1 to 4 threads in a
 * pool with more workers than that.
 */
static void job_max_threads(struct kunit *test)
{
	struct ws_pool *pool = ws_test_pool(test, "jobm", NULL);
	int max;

	for (max = 1; max <= 4; max++) {
		struct job_check *c = job_check_new(test, 0, 4096, 1);
		struct ws_job job;

		c->pool_tag = ":jobm";
		c->delay_us = 50;
		job_init(&job, c, 16, max);
		job.pool = pool;
		KUNIT_EXPECT_EQ(test, ws_job_run(&job), 0);
		job_expect_once(test, c);
		KUNIT_EXPECT_LE(test, atomic_read(&c->peak), max);
		KUNIT_EXPECT_LE(test, c->nr_seen, (unsigned int)max);
		if (max == 1) {
			/* One thread: the caller, in one call. */
			KUNIT_EXPECT_EQ(test, c->nr_seen, 1U);
			KUNIT_EXPECT_PTR_EQ(test, c->seen[0], current);
			KUNIT_EXPECT_EQ(test, atomic_read(&c->calls), 1);
		}
	}
}

/* Bad arguments: -EINVAL, and the body is never called. */
static void job_einval(struct kunit *test)
{
	struct job_check *c = job_check_new(test, 0, 64, 1);
	struct ws_job good, job;

	job_init(&good, c, 1, 4);
	KUNIT_EXPECT_EQ(test, ws_job_run(NULL), -EINVAL);
	job = good;
	job.thread_fn = NULL;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.size = 0;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.align = 0;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.align = 3;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.align = 48;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.min_chunk = 65;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.max_threads = 0;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.max_threads = -1;
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.start = ULONG_MAX - 10;	/* wraps around */
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.start = ULONG_MAX - 63;	/* the end would be 2^BITS_PER_LONG */
	KUNIT_EXPECT_EQ(test, ws_job_run(&job), -EINVAL);
	job = good;
	job.max_threads = 0;
	KUNIT_EXPECT_EQ(test, ws_job_run_threadless(&job), -EINVAL);
	KUNIT_EXPECT_EQ(test, atomic_read(&c->calls), 0);

	/* The good one runs, so the checks above could have seen calls. */
	KUNIT_EXPECT_EQ(test, ws_job_run(&good), 0);
	job_expect_once(test, c);
}

/* A task of a pool runs a job in its own pool (job.pool NULL). */
struct job_in_task {
	struct ws_task task;
	struct job_check *c;
	int ret;
};

static struct ws_task *job_task_fn(struct ws_task *task)
{
	struct job_in_task *t = container_of(task, struct job_in_task, task);
	struct ws_job job;

	t->c->caller = current;
	job_init(&job, t->c, 8, 3);
	t->ret = ws_job_run(&job);
	return NULL;
}

static void job_from_task(struct kunit *test)
{
	/*
	 * With attributes, so that the waiter below does not join the pool
	 * and run the task itself: only a worker may run it.
	 */
	struct ws_pool_attrs attrs = { .max_workers = 64 };
	struct ws_pool *pool = ws_test_pool(test, "jobt", &attrs);
	struct job_in_task t = { };
	struct ws_group group;

	t.c = job_check_new(test, 100, 20000, 4);
	t.c->pool_tag = ":jobt";
	t.ret = -1;
	ws_group_init(&group, pool);
	ws_task_init(&t.task, job_task_fn);
	ws_spawn(&group, &t.task);
	KUNIT_EXPECT_EQ(test, ws_group_wait(&group), 0);
	KUNIT_EXPECT_EQ(test, t.ret, 0);
	job_expect_once(test, t.c);
	KUNIT_EXPECT_LE(test, atomic_read(&t.c->peak), 3);
}

/*
 * A kthread whose job gets no helper thread: a user pool made for it
 * of a process that may not have one more thread.  Everything runs on
 * the kthread.  Then the default path of a kthread (ws_system_pool).
 */
struct job_thread {
	struct completion done;
	struct job_check *c;
	struct job_check *d;
	int ret;
	int ret_default;
};

static int job_thread_fn(void *arg)
{
	struct job_thread *jt = arg;
	struct ws_job job;

	jt->c->caller = current;
	job_init(&job, jt->c, 4, 4);
	jt->ret = ws_job_run_threadless(&job);
	jt->d->caller = current;
	job_init(&job, jt->d, 4, 4);
	job.numa_aware = true;
	jt->ret_default = ws_job_run(&job);
	/* Returns nothing into this module once the waiter may go on. */
	kthread_complete_and_exit(&jt->done, 0);
}

static void job_kthread_no_workers(struct kunit *test)
{
	struct job_thread jt = { .ret = -1, .ret_default = -1 };
	struct task_struct *thread;

	init_completion(&jt.done);
	jt.c = job_check_new(test, 5, 30000, 16);
	jt.c->pool_tag = "no helper";	/* matches no thread name */
	jt.d = job_check_new(test, 5, 30000, 16);
	jt.d->pool_tag = ":system";
	thread = kthread_run(job_thread_fn, &jt, "ws_job_test");
	KUNIT_ASSERT_FALSE(test, IS_ERR(thread));
	wait_for_completion(&jt.done);
	KUNIT_EXPECT_EQ(test, jt.ret, 0);
	job_expect_once(test, jt.c);
	KUNIT_EXPECT_EQ(test, jt.c->nr_seen, 1U);
	KUNIT_EXPECT_EQ(test, atomic_read(&jt.c->peak), 1);
	KUNIT_EXPECT_EQ(test, jt.ret_default, 0);
	job_expect_once(test, jt.d);
	KUNIT_EXPECT_LE(test, atomic_read(&jt.d->peak), 4);
}

static struct kunit_case job_cases[] = {
	KUNIT_CASE(job_einval),
	KUNIT_CASE(job_default_pool),
	KUNIT_CASE(job_system_pool),
	KUNIT_CASE(job_numa_aware),
	KUNIT_CASE(job_given_pool),
	KUNIT_CASE(job_max_threads),
	KUNIT_CASE(job_from_task),
	KUNIT_CASE(job_kthread_no_workers),
	{}
};

static struct kunit_suite job_suite = {
	.name = "wsched_job",
	.test_cases = job_cases,
};

kunit_test_suite(job_suite);
