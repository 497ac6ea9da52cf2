// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the Chase-Lev deque: single-thread semantics, growth, and
 * a concurrent stress with thieves on other CPUs.
 */
#include <kunit/test.h>
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/vmalloc.h>

#include "ws_deque.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

/* The deque never dereferences its tasks: encode numbers as pointers. */
static struct ws_task *item(unsigned long n)
{
	return (struct ws_task *)(n + 1);
}

static unsigned long item_nr(struct ws_task *task)
{
	return (unsigned long)task - 1;
}

static void deque_setup(struct kunit *test, struct ws_deque *dq)
{
	KUNIT_ASSERT_EQ(test, ws_deque_init(dq, WS_DEQUE_INIT_SLOTS,
					    GFP_KERNEL), 0);
}

static void deque_empty(struct kunit *test)
{
	struct ws_deque dq;
	bool lost = false;

	deque_setup(test, &dq);
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));
	KUNIT_EXPECT_FALSE(test, lost);
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), 0);

	/* One task, taken by the owner, leaves it empty for both sides. */
	KUNIT_EXPECT_TRUE(test, ws_deque_push(&dq, item(7), GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), 1);
	KUNIT_EXPECT_PTR_EQ(test, ws_deque_pop(&dq), item(7));
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));

	/* One task, taken by a thief, leaves it empty for both sides. */
	KUNIT_EXPECT_TRUE(test, ws_deque_push(&dq, item(8), GFP_KERNEL));
	KUNIT_EXPECT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(8));
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	KUNIT_EXPECT_FALSE(test, lost);
	ws_deque_destroy(&dq);
}

static void deque_owner_lifo(struct kunit *test)
{
	struct ws_deque dq;
	unsigned long i;

	deque_setup(test, &dq);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	for (i = 100; i-- > 0; )
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	ws_deque_destroy(&dq);
}

static void deque_thief_fifo(struct kunit *test)
{
	struct ws_deque dq;
	bool lost = false;
	unsigned long i;

	deque_setup(test, &dq);
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	for (i = 0; i < 100; i++)
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(i));
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));
	KUNIT_EXPECT_FALSE(test, lost);
	ws_deque_destroy(&dq);
}

/* Owner and thief alternate: each end keeps its own order. */
static void deque_both_ends(struct kunit *test)
{
	unsigned long low = 0, high = 9;
	struct ws_deque dq;
	bool lost = false;
	unsigned long i;

	deque_setup(test, &dq);
	for (i = 0; i < 10; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	while (low <= high) {
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(low));
		low++;
		if (low > high)
			break;
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(high));
		high--;
	}
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), 0);
	ws_deque_destroy(&dq);
}

/* Grow several times, with the live window wrapped around the array. */
static void deque_growth(struct kunit *test)
{
	const unsigned long n = 20 * WS_DEQUE_INIT_SLOTS + 3;
	struct ws_deque dq;
	bool lost = false;
	unsigned long i;

	deque_setup(test, &dq);
	/* Move top and bottom away from zero first. */
	for (i = 0; i < WS_DEQUE_INIT_SLOTS / 2 + 5; i++) {
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(0), GFP_KERNEL));
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(0));
	}
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), (long)n);
	KUNIT_EXPECT_GE(test, ws_deque_owner_array(&dq)->mask + 1, n);
	/* Thieves see the oldest half in order, the owner the rest reversed. */
	for (i = 0; i < n / 2; i++)
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(i));
	for (i = n; i-- > n / 2; )
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	ws_deque_destroy(&dq);
}

#define STRESS_ITEMS		1500000UL
#define STRESS_MIN_STOLEN	1000000UL
#define STRESS_MAX_QUEUED	4096

struct stress {
	struct ws_deque dq;
	atomic_t *taken;		/* times each item was taken */
	atomic_long_t stolen;
	bool done;			/* the owner has pushed everything */
};

static void stress_take(struct stress *s, struct ws_task *task)
{
	atomic_inc(&s->taken[item_nr(task)]);
}

static int stress_thief(void *arg)
{
	struct stress *s = arg;
	unsigned long mine = 0;

	/*
	 * Leave only once the owner is done and the deque is empty: the
	 * owner calls kthread_stop() right after it is done, while tasks
	 * may remain.
	 */
	for (;;) {
		bool lost = false;
		struct ws_task *task = ws_deque_steal(&s->dq, &lost);

		if (task) {
			stress_take(s, task);
			mine++;
		} else if (!lost) {
			/* Pairs with smp_store_release() of done by the owner. */
			if (smp_load_acquire(&s->done) && !ws_deque_size(&s->dq))
				break;
			cpu_relax();
		}
		if (!(mine & 1023))
			cond_resched();
	}
	atomic_long_add(mine, &s->stolen);
	/* Stay until stopped: kthread_stop() needs a live thread. */
	while (!kthread_should_stop())
		schedule_timeout_idle(1);
	return 0;
}

/*
 * The owner pushes 1.5 million items, pops one in eight, and every 4096
 * pushes lets the thieves drain it and then races them for the last few
 * items.  Every item must be taken exactly once.
 */
static void deque_stress(struct kunit *test)
{
	unsigned long i, popped = 0, once = 0, pushed = 0;
	unsigned int cpu, nr_thieves = 0, self;
	struct task_struct **thieves;
	struct ws_task *task;
	struct stress *s;

	if (num_online_cpus() < 2)
		kunit_skip(test, "needs at least two CPUs");
	s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	s->taken = vzalloc(array_size(STRESS_ITEMS, sizeof(*s->taken)));
	KUNIT_ASSERT_NOT_NULL(test, s->taken);
	thieves = kunit_kcalloc(test, nr_cpu_ids, sizeof(*thieves), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, thieves);
	deque_setup(test, &s->dq);

	self = raw_smp_processor_id();
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (cpu == self)
			continue;
		t = kthread_create_on_cpu(stress_thief, s, cpu, "ws_thief/%u");
		if (IS_ERR(t))
			break;
		thieves[nr_thieves++] = t;
		wake_up_process(t);
	}

	for (i = 0; nr_thieves && i < STRESS_ITEMS; i++) {
		while (ws_deque_size(&s->dq) >= STRESS_MAX_QUEUED)
			cpu_relax();
		/* No assertion here: the thieves still use the deque. */
		if (!ws_deque_push(&s->dq, item(i), GFP_KERNEL))
			break;
		pushed++;
		if (!(i & 7)) {
			task = ws_deque_pop(&s->dq);
			if (task) {
				stress_take(s, task);
				popped++;
			}
		}
		if (!(i & 4095)) {
			/* Race the thieves for the last items. */
			while (ws_deque_size(&s->dq) > 2)
				cpu_relax();
			while ((task = ws_deque_pop(&s->dq))) {
				stress_take(s, task);
				popped++;
			}
			cond_resched();
		}
	}
	/* Pairs with smp_load_acquire() of done in stress_thief(). */
	smp_store_release(&s->done, true);
	for (i = 0; i < nr_thieves; i++)
		kthread_stop(thieves[i]);
	KUNIT_EXPECT_GT(test, nr_thieves, 0U);
	KUNIT_EXPECT_EQ(test, pushed, STRESS_ITEMS);

	for (i = 0; i < STRESS_ITEMS; i++)
		once += atomic_read(&s->taken[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, STRESS_ITEMS);
	KUNIT_EXPECT_EQ(test, popped + atomic_long_read(&s->stolen),
			STRESS_ITEMS);
	KUNIT_EXPECT_GE(test, atomic_long_read(&s->stolen), STRESS_MIN_STOLEN);
	kunit_info(test, "%u thieves stole %ld, owner popped %lu\n",
		   nr_thieves, atomic_long_read(&s->stolen), popped);
	ws_deque_destroy(&s->dq);
	vfree(s->taken);
}

static struct kunit_case deque_cases[] = {
	KUNIT_CASE(deque_empty),
	KUNIT_CASE(deque_owner_lifo),
	KUNIT_CASE(deque_thief_fifo),
	KUNIT_CASE(deque_both_ends),
	KUNIT_CASE(deque_growth),
	KUNIT_CASE(deque_stress),
	{}
};

static struct kunit_suite deque_suite = {
	.name = "wsched_deque",
	.test_cases = deque_cases,
};

kunit_test_suite(deque_suite);
