/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by wsched's KUnit suites: pools that KUnit destroys when
 * a test case ends, however it ends (a failed assertion or a skip
 * included), so that no case leaves a pool, its threads and a reference
 * on the module behind; and a task that holds a worker until released.
 */
#ifndef _WS_TEST_H
#define _WS_TEST_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/jiffies.h>
#include <linux/wsched.h>

static inline int ws_test_pool_init(struct kunit_resource *res, void *pool)
{
	res->data = pool;
	return 0;
}

static inline void ws_test_pool_free(struct kunit_resource *res)
{
	ws_pool_destroy(res->data);
}

static inline bool ws_test_pool_match(struct kunit *test,
				      struct kunit_resource *res, void *pool)
{
	return res->data == pool;
}

/* A pool (ws_pool_create_attrs()) that KUnit destroys at the case's end. */
static inline struct ws_pool *ws_test_pool(struct kunit *test,
					   const char *name,
					   const struct ws_pool_attrs *attrs)
{
	struct ws_pool *pool = ws_pool_create_attrs(name, attrs);
	void *tracked;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pool);
	tracked = kunit_alloc_resource(test, ws_test_pool_init,
				       ws_test_pool_free, GFP_KERNEL, pool);
	if (!tracked)
		ws_pool_destroy(pool);
	KUNIT_ASSERT_NOT_NULL(test, tracked);
	return pool;
}

/* Destroy a pool from ws_test_pool() before the case ends. */
static inline void ws_test_pool_destroy(struct kunit *test,
					struct ws_pool *pool)
{
	KUNIT_EXPECT_EQ(test, kunit_destroy_resource(test, ws_test_pool_match,
						     pool), 0);
}

/**
 * struct ws_test_hold - a task that keeps the worker that runs it busy
 *	until the test releases it
 * @task: the task, set up by ws_test_hold_init()
 * @running: set once it runs (ws_test_hold_running())
 * @release: set by ws_test_hold_release() to let it return
 * @nap: it naps between looks at @release, else it spins (its CPU then
 *	never idles)
 * @patience: the jiffies it waits for @release at most
 */
struct ws_test_hold {
	struct ws_task task;
	int running;
	int release;
	bool nap;
	unsigned long patience;
};

static inline struct ws_task *ws_test_hold_fn(struct ws_task *task)
{
	struct ws_test_hold *h = container_of(task, struct ws_test_hold, task);
	unsigned long deadline = jiffies + h->patience;

	/* Pairs with the smp_load_acquire() in ws_test_hold_running(). */
	smp_store_release(&h->running, 1);
	/* Pairs with the smp_store_release() in ws_test_hold_release(). */
	while (!smp_load_acquire(&h->release) &&
	       time_before(jiffies, deadline)) {
		if (h->nap)
			usleep_range(1000, 2000);
		else
			cpu_relax();
	}
	return NULL;
}

static inline void ws_test_hold_init(struct ws_test_hold *h, bool nap,
				     unsigned long patience)
{
	ws_task_init(&h->task, ws_test_hold_fn);
	h->running = 0;
	h->release = 0;
	h->nap = nap;
	h->patience = patience;
}

/* Whether @h runs; what it did before, the caller sees. */
static inline bool ws_test_hold_running(struct ws_test_hold *h)
{
	/* Pairs with the smp_store_release() in ws_test_hold_fn(). */
	return smp_load_acquire(&h->running);
}

/* Wait, napping, until @h runs or @patience jiffies passed. */
static inline bool ws_test_hold_wait(struct ws_test_hold *h,
				     unsigned long patience)
{
	unsigned long deadline = jiffies + patience;

	while (!ws_test_hold_running(h) && time_before(jiffies, deadline))
		usleep_range(1000, 2000);
	return ws_test_hold_running(h);
}

/* Let @h return; what the caller did before, it sees. */
static inline void ws_test_hold_release(struct ws_test_hold *h)
{
	/* Pairs with the smp_load_acquire() in ws_test_hold_fn(). */
	smp_store_release(&h->release, 1);
}

#endif /* _WS_TEST_H */
