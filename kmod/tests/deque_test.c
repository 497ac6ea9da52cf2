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

/* The owner's array, for the tests: only the owner replaces it. */
static unsigned long deque_slots(struct ws_deque *dq)
{
	return ws_deque_owner_array(dq)->mask + 1;
}

/*
 * Grow to 8192 slots, pop down to a few tasks, and keep popping at that
 * level: the array shrinks back to WS_DEQUE_INIT_SLOTS one half at a time,
 * only after as many sparse pops as it has slots, and the tasks stay.
 */
static void deque_shrink(struct kunit *test)
{
	const unsigned long n = 20 * WS_DEQUE_INIT_SLOTS + 3, keep = 50;
	unsigned long i, slots, steps = 0, sparse;
	struct ws_deque dq;
	bool lost = false;

	deque_setup(test, &dq);
	for (i = 0; i < n; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	KUNIT_ASSERT_EQ(test, deque_slots(&dq), 8192UL);

	/* Popping down does not shrink yet: too few sparse pops so far. */
	for (i = n; i-- > keep; )
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
	KUNIT_EXPECT_EQ(test, deque_slots(&dq), 8192UL);
	sparse = 8192 / 4 - keep + 1;	/* the pops that left <= 2048 tasks */

	/* Churn at that level: one push and its pop per step. */
	for (slots = 8192; slots > WS_DEQUE_INIT_SLOTS; slots /= 2) {
		unsigned long before = steps;

		while (deque_slots(&dq) == slots && steps < 20000) {
			KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(n + steps),
							      GFP_KERNEL));
			KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq),
					    item(n + steps));
			steps++;
		}
		/* Halved, after exactly one array's worth of sparse pops. */
		KUNIT_ASSERT_EQ(test, deque_slots(&dq), slots / 2);
		KUNIT_EXPECT_EQ(test, sparse + steps - before, slots);
		sparse = 0;
	}
	/* Never below the initial size. */
	for (i = 0; i < 4 * WS_DEQUE_INIT_SLOTS; i++) {
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
	}
	KUNIT_EXPECT_EQ(test, deque_slots(&dq), (unsigned long)WS_DEQUE_INIT_SLOTS);

	/* The kept tasks survived every copy, in order at both ends. */
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), (long)keep);
	KUNIT_EXPECT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(0));
	for (i = keep; i-- > 1; )
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&dq));
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));
	KUNIT_EXPECT_FALSE(test, lost);
	ws_deque_destroy(&dq);
}

/*
 * Hysteresis: a deque that fills up and drains again keeps its grown
 * array instead of freeing it on every drain and growing it back; a
 * deque drained by thieves shrinks through the owner's empty pops.
 */
static void deque_no_thrash(struct kunit *test)
{
	struct ws_deque_array *array;
	unsigned long i, round;
	struct ws_deque dq;
	bool lost = false;

	deque_setup(test, &dq);
	for (i = 0; i < 2 * WS_DEQUE_INIT_SLOTS + 1; i++)
		KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i), GFP_KERNEL));
	array = ws_deque_owner_array(&dq);
	KUNIT_ASSERT_EQ(test, deque_slots(&dq), 4UL * WS_DEQUE_INIT_SLOTS);
	for (round = 0; round < 3; round++) {
		for (i = 2 * WS_DEQUE_INIT_SLOTS + 1; i-- > 0; )
			KUNIT_ASSERT_PTR_EQ(test, ws_deque_pop(&dq), item(i));
		KUNIT_ASSERT_NULL(test, ws_deque_pop(&dq));
		for (i = 0; i < 2 * WS_DEQUE_INIT_SLOTS + 1; i++)
			KUNIT_ASSERT_TRUE(test, ws_deque_push(&dq, item(i),
							      GFP_KERNEL));
		KUNIT_EXPECT_PTR_EQ(test, ws_deque_owner_array(&dq), array);
	}

	/* Thieves drain it; then the owner finds it empty until it shrinks. */
	for (i = 0; i < 2 * WS_DEQUE_INIT_SLOTS + 1; i++)
		KUNIT_ASSERT_PTR_EQ(test, ws_deque_steal(&dq, &lost), item(i));
	for (i = 0; i < 8 * WS_DEQUE_INIT_SLOTS &&
	     deque_slots(&dq) > WS_DEQUE_INIT_SLOTS; i++)
		KUNIT_ASSERT_NULL(test, ws_deque_pop(&dq));
	KUNIT_EXPECT_EQ(test, deque_slots(&dq), (unsigned long)WS_DEQUE_INIT_SLOTS);
	KUNIT_EXPECT_NULL(test, ws_deque_steal(&dq, &lost));
	KUNIT_EXPECT_EQ(test, ws_deque_size(&dq), 0);
	ws_deque_destroy(&dq);
}

/*
 * Index wrap-around.  A model of the deque's contents (item numbers in
 * order, oldest first) checks every pop and steal; every item is pushed
 * once, so matching the model and ending empty means each was taken
 * exactly once, LIFO at the bottom and FIFO at the top.
 */
#define WRAP_MODEL	4096

/* Where a case starts, and how many resizes at least copy across a wrap. */
struct wrap_start {
	unsigned long start;
	unsigned int crossed;
};

struct wrap_model {
	struct ws_deque dq;
	unsigned long start;		/* initial top and bottom */
	unsigned long q[WRAP_MODEL];	/* q[head..tail) mod WRAP_MODEL */
	unsigned long head, tail, next;
	unsigned int resizes, wrapped_resizes;
};

/* Does [top, bottom) contain the wrap point just above m->start? */
static bool wm_straddles(struct wrap_model *m)
{
	unsigned long top = atomic_long_read(&m->dq.top);
	unsigned long bottom = atomic_long_read(&m->dq.bottom);
	unsigned long wrap = m->start > LONG_MAX ? 0 : (unsigned long)LONG_MIN;

	/* Some index i in it has i + 1 == wrap, also in it. */
	return wrap - top - 1 < bottom - top - 1;
}

static void wm_note_resize(struct wrap_model *m, unsigned long mask)
{
	if (ws_deque_owner_array(&m->dq)->mask == mask)
		return;
	m->resizes++;
	if (wm_straddles(m))
		m->wrapped_resizes++;
}

static void wm_push(struct kunit *test, struct wrap_model *m)
{
	unsigned long mask = ws_deque_owner_array(&m->dq)->mask;

	KUNIT_ASSERT_LT(test, m->tail - m->head, (unsigned long)WRAP_MODEL);
	KUNIT_ASSERT_TRUE(test, ws_deque_push(&m->dq, item(m->next),
					      GFP_KERNEL));
	m->q[m->tail++ % WRAP_MODEL] = m->next++;
	/* A grow copies the tasks that were there before this push. */
	wm_note_resize(m, mask);
}

static void wm_pop(struct kunit *test, struct wrap_model *m)
{
	unsigned long mask = ws_deque_owner_array(&m->dq)->mask;
	struct ws_task *task = ws_deque_pop(&m->dq);

	if (m->head == m->tail) {
		KUNIT_ASSERT_NULL(test, task);
		return;
	}
	KUNIT_ASSERT_PTR_EQ(test, task, item(m->q[--m->tail % WRAP_MODEL]));
	wm_note_resize(m, mask);
}

static void wm_steal(struct kunit *test, struct wrap_model *m)
{
	bool lost = false;
	struct ws_task *task = ws_deque_steal(&m->dq, &lost);

	KUNIT_ASSERT_FALSE(test, lost);
	if (m->head == m->tail) {
		KUNIT_ASSERT_NULL(test, task);
		return;
	}
	KUNIT_ASSERT_PTR_EQ(test, task, item(m->q[m->head++ % WRAP_MODEL]));
}

static void wm_check_size(struct kunit *test, struct wrap_model *m)
{
	KUNIT_ASSERT_EQ(test, ws_deque_size(&m->dq), (long)(m->tail - m->head));
}

static void deque_wrap(struct kunit *test)
{
	const struct wrap_start *w = test->param_value;
	struct wrap_model *m;
	unsigned long i;

	m = kunit_kzalloc(test, sizeof(*m), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, m);
	deque_setup(test, &m->dq);
	m->start = w->start;
	atomic_long_set(&m->dq.top, m->start);
	atomic_long_set(&m->dq.bottom, m->start);

	/* A few tasks across the wrap, both ends; empty and last-task races. */
	for (i = 0; i < 40; i++) {
		wm_push(test, m);
		if (i % 3 == 2)
			wm_steal(test, m);
		if (i % 5 == 4)
			wm_pop(test, m);
		wm_check_size(test, m);
	}
	while (m->head != m->tail) {
		wm_steal(test, m);
		wm_pop(test, m);
	}
	wm_pop(test, m);
	wm_steal(test, m);
	wm_push(test, m);
	wm_pop(test, m);
	wm_push(test, m);
	wm_steal(test, m);
	wm_check_size(test, m);

	/* Grow to 1024 slots, then take from both ends down to 100 tasks. */
	for (i = 0; i < 1000; i++)
		wm_push(test, m);
	KUNIT_EXPECT_EQ(test, deque_slots(&m->dq), 1024UL);
	for (i = 0; i < 600; i++)
		wm_steal(test, m);
	for (i = 0; i < 300; i++)
		wm_pop(test, m);
	wm_check_size(test, m);

	/* Slide a window of 100 tasks forward until the array is back down. */
	for (i = 0; i < 2000; i++) {
		wm_push(test, m);
		wm_push(test, m);
		wm_pop(test, m);
		wm_steal(test, m);
	}
	KUNIT_EXPECT_EQ(test, deque_slots(&m->dq),
			(unsigned long)WS_DEQUE_INIT_SLOTS);
	wm_check_size(test, m);

	while (m->head != m->tail) {
		wm_pop(test, m);
		wm_steal(test, m);
	}
	KUNIT_EXPECT_NULL(test, ws_deque_pop(&m->dq));
	KUNIT_EXPECT_EQ(test, ws_deque_size(&m->dq), 0);
	/* 2 grows, 2 shrinks, and the starts are picked to wrap in some. */
	KUNIT_EXPECT_EQ(test, m->resizes, 4U);
	KUNIT_EXPECT_GE(test, m->wrapped_resizes, w->crossed);
	kunit_info(test, "%lu tasks, %u resizes, %u across the wrap\n",
		   m->next, m->resizes, m->wrapped_resizes);
	ws_deque_destroy(&m->dq);
}

/*
 * Where indices start: at 0, and just below the unsigned (ULONG_MAX) and
 * signed (LONG_MAX) wrap points, so that plain ops, growth (copies from 40
 * tasks in to 552) and the shrinks (a window of 100 tasks sliding past
 * 1500 and 2000 tasks in) each happen across a wrap.
 */
static const struct wrap_start wrap_starts[] = {
	{ 0, 0 },
	{ ULONG_MAX - 20, 0 }, { ULONG_MAX - 100, 2 },
	{ ULONG_MAX - 1550, 1 }, { ULONG_MAX - 2070, 1 },
	{ LONG_MAX - 20, 0 }, { LONG_MAX - 100, 2 },
	{ LONG_MAX - 1550, 1 }, { LONG_MAX - 2070, 1 },
};

static void wrap_desc(const struct wrap_start *w, char *desc)
{
	if (w->start > LONG_MAX)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "ULONG_MAX - %lu",
			 ULONG_MAX - w->start);
	else if (w->start)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "LONG_MAX - %lu",
			 LONG_MAX - w->start);
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "0");
}

KUNIT_ARRAY_PARAM(wrap, wrap_starts, wrap_desc);

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

/* The owner's side of a stress: push, pop, count its resizes. */
struct stress_owner {
	struct stress *s;
	unsigned long pushed, popped, grows, shrinks;
};

static bool stress_push(struct stress_owner *o, unsigned long i)
{
	unsigned long mask = ws_deque_owner_array(&o->s->dq)->mask;

	/* No assertion here: the thieves still use the deque. */
	if (!ws_deque_push(&o->s->dq, item(i), GFP_KERNEL))
		return false;
	o->pushed++;
	o->grows += ws_deque_owner_array(&o->s->dq)->mask > mask;
	return true;
}

static struct ws_task *stress_pop(struct stress_owner *o)
{
	unsigned long mask = ws_deque_owner_array(&o->s->dq)->mask;
	struct ws_task *task = ws_deque_pop(&o->s->dq);

	if (task) {
		stress_take(o->s, task);
		o->popped++;
	}
	o->shrinks += ws_deque_owner_array(&o->s->dq)->mask < mask;
	return task;
}

/*
 * Pushes 1.5 million items, pops one in eight, and every 4096 pushes lets
 * the thieves drain the deque and then races them for the last few items.
 */
static void stress_steal_owner(struct stress_owner *o)
{
	unsigned long i;

	for (i = 0; i < STRESS_ITEMS; i++) {
		while (ws_deque_size(&o->s->dq) >= STRESS_MAX_QUEUED)
			cpu_relax();
		if (!stress_push(o, i))
			break;
		if (!(i & 7))
			stress_pop(o);
		if (!(i & 4095)) {
			/* Race the thieves for the last items. */
			while (ws_deque_size(&o->s->dq) > 2)
				cpu_relax();
			while (stress_pop(o))
				;
			cond_resched();
		}
	}
}

/*
 * Grows the array with a burst of 1024 to 4095 items, then churns at a
 * low level (one to three pushes and one to three pops a step, at most 64
 * queued) for long enough that it shrinks back, while the thieves steal;
 * and again.
 */
static void stress_shrink_owner(struct stress_owner *o)
{
	unsigned long i = 0, k, n;
	u32 rnd = 1;

	while (i < STRESS_ITEMS) {
		rnd = rnd * 1103515245 + 12345;
		for (n = 1024 + (rnd >> 8) % 3072; n-- && i < STRESS_ITEMS; i++)
			if (!stress_push(o, i))
				return;
		for (k = 0; k < STRESS_MAX_QUEUED; k++) {
			rnd = rnd * 1103515245 + 12345;
			for (n = 1 + (rnd >> 8) % 3; n-- && i < STRESS_ITEMS; i++)
				if (!stress_push(o, i))
					return;
			for (n = 1 + (rnd >> 16) % 3; n--; )
				stress_pop(o);
			/* Stay low even if the thieves are not running. */
			while (ws_deque_size(&o->s->dq) > 64)
				stress_pop(o);
		}
		cond_resched();
	}
}

/*
 * Thieves on every other online CPU steal while the owner runs @owner.
 * Every item must be taken exactly once.  Returns the owner's shrinks.
 */
static unsigned long stress_run(struct kunit *test,
				void (*owner)(struct stress_owner *o),
				unsigned long min_stolen)
{
	unsigned int cpu, nr_thieves = 0, self;
	struct stress_owner o = {};
	struct task_struct **thieves;
	unsigned long i, once = 0;
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
	o.s = s;

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

	if (nr_thieves)
		owner(&o);
	/* Pairs with smp_load_acquire() of done in stress_thief(). */
	smp_store_release(&s->done, true);
	for (i = 0; i < nr_thieves; i++)
		kthread_stop(thieves[i]);
	KUNIT_EXPECT_GT(test, nr_thieves, 0U);
	KUNIT_EXPECT_EQ(test, o.pushed, STRESS_ITEMS);

	for (i = 0; i < STRESS_ITEMS; i++)
		once += atomic_read(&s->taken[i]) == 1;
	KUNIT_EXPECT_EQ(test, once, STRESS_ITEMS);
	KUNIT_EXPECT_EQ(test, o.popped + atomic_long_read(&s->stolen),
			STRESS_ITEMS);
	KUNIT_EXPECT_GE(test, atomic_long_read(&s->stolen), min_stolen);
	kunit_info(test, "%u thieves stole %ld, owner popped %lu; %lu grows, %lu shrinks\n",
		   nr_thieves, atomic_long_read(&s->stolen), o.popped,
		   o.grows, o.shrinks);
	ws_deque_destroy(&s->dq);
	vfree(s->taken);
	return o.shrinks;
}

static void deque_stress(struct kunit *test)
{
	stress_run(test, stress_steal_owner, STRESS_MIN_STOLEN);
}

/* Shrinks under steals; KASAN checks that retired arrays outlive readers. */
static void deque_stress_shrink(struct kunit *test)
{
	KUNIT_EXPECT_GT(test, stress_run(test, stress_shrink_owner, 0), 0UL);
}

static struct kunit_case deque_cases[] = {
	KUNIT_CASE(deque_empty),
	KUNIT_CASE(deque_owner_lifo),
	KUNIT_CASE(deque_thief_fifo),
	KUNIT_CASE(deque_both_ends),
	KUNIT_CASE(deque_growth),
	KUNIT_CASE(deque_shrink),
	KUNIT_CASE(deque_no_thrash),
	KUNIT_CASE_PARAM(deque_wrap, wrap_gen_params),
	KUNIT_CASE(deque_stress),
	KUNIT_CASE(deque_stress_shrink),
	{}
};

static struct kunit_suite deque_suite = {
	.name = "wsched_deque",
	.test_cases = deque_cases,
};

kunit_test_suite(deque_suite);
