// SPDX-License-Identifier: GPL-2.0
/*
 * deque_stress: kmod/ws_deque.h and kmod/deque.c, unchanged, under
 * ThreadSanitizer.  One owner pushes bursts and pops; three thieves steal.
 * Each phase starts from a 2-slot deque so that it grows (and retires
 * arrays through kvfree_rcu) while thieves read it; half the phases then
 * churn at a low level long enough for the array to shrink back, still
 * under steals.  Phases start with top == bottom at 0, just below
 * ULONG_MAX or just below LONG_MAX, so the indices wrap during the phase.
 * Every item must be taken exactly once, and its payload (written plainly
 * before the push) must be seen by whoever takes it.
 *
 * A second, single-threaded test makes a shrink fail to allocate: the deque
 * must keep its array and its contents, and shrink later.
 */
#include <linux/wsched.h>
#include "ws_deque.h"

#define NR_THIEVES	3
#define NR_PHASES	20
#define PER_PHASE	50000
#define NR_ITEMS	(NR_PHASES * PER_PHASE)
#define CHURN_STEPS	4096
#define CHURN_LEVEL	64

struct item {
	struct ws_task task;
	long payload;
};

static struct item items[NR_ITEMS];
static _Atomic int hits[NR_ITEMS];
static _Atomic long taken;		/* items taken in this phase */
static _Atomic long stolen_total, popped_total;
static _Atomic bool phase_done, all_done;
static struct ws_deque dq;
static pthread_barrier_t start_bar, end_bar;
static long grows, shrinks;		/* owner only */

static void take(struct ws_task *t, bool thief)
{
	struct item *it = container_of(t, struct item, task);
	long i = it - items;

	if (it->payload != i * 7 + 1)
		fprintf(stderr, "# bad payload at %ld\n", i);
	atomic_fetch_add(&hits[i], 1);
	atomic_fetch_add(&taken, 1);
	atomic_fetch_add(thief ? &stolen_total : &popped_total, 1);
}

static void *thief(void *arg)
{
	(void)arg;
	for (;;) {
		pthread_barrier_wait(&start_bar);
		if (atomic_load(&all_done))
			return NULL;
		while (!atomic_load(&phase_done)) {
			bool lost = false;
			struct ws_task *t = ws_deque_steal(&dq, &lost);

			if (t)
				take(t, true);
		}
		pthread_barrier_wait(&end_bar);
	}
}

/* Count resizes as the owner sees them. */
static void note_resize(unsigned long mask_before)
{
	unsigned long mask = ws_deque_owner_array(&dq)->mask;

	if (mask > mask_before)
		grows++;
	else if (mask < mask_before)
		shrinks++;
}

static int push(long i)
{
	unsigned long mask = ws_deque_owner_array(&dq)->mask;

	items[i].payload = i * 7 + 1;
	if (!ws_deque_push(&dq, &items[i].task, GFP_KERNEL)) {
		fprintf(stderr, "# ws_deque_push() failed\n");
		return -1;
	}
	note_resize(mask);
	return 0;
}

static void pop(void)
{
	unsigned long mask = ws_deque_owner_array(&dq)->mask;
	struct ws_task *t = ws_deque_pop(&dq);

	if (t)
		take(t, false);
	note_resize(mask);
}

/* One phase: @kind 0 small bursts, 1 big bursts, 2 and 3 grow and shrink. */
static int owner_phase(int p, int kind, unsigned int *seed)
{
	long next = (long)p * PER_PHASE, end = next + PER_PHASE;

	while (next < end) {
		int burst, pops, k;

		if (kind < 2) {
			burst = 1 + rand_r(seed) % (kind ? 4096 : 64);
			pops = rand_r(seed) % (burst + 1);
			for (; burst-- && next < end; next++)
				if (push(next))
					return -1;
			while (pops--)
				pop();
			continue;
		}
		/*
		 * Grow to 2048 or 4096 slots, then churn at a low level for
		 * long enough to shrink back to WS_DEQUE_INIT_SLOTS.
		 */
		burst = 1024 + rand_r(seed) % 3072;
		for (; burst-- && next < end; next++)
			if (push(next))
				return -1;
		for (k = 0; k < CHURN_STEPS; k++) {
			pops = 1 + rand_r(seed) % 3;
			for (burst = 1 + rand_r(seed) % 3; burst-- && next < end;
			     next++)
				if (push(next))
					return -1;
			while (pops--)
				pop();
			/* Stay low even if the thieves are not running. */
			while (ws_deque_size(&dq) > CHURN_LEVEL)
				pop();
		}
	}
	/*
	 * Drain: pop until every item of the phase is taken.  If a long run
	 * of empty pops makes no progress, items were lost: say so and stop.
	 */
	for (long seen = 0, idle = 0; atomic_load(&taken) < PER_PHASE; idle++) {
		if (atomic_load(&taken) != seen) {
			seen = atomic_load(&taken);
			idle = 0;
		} else if (idle > 2000000) {
			fprintf(stderr, "# phase %d: %ld items lost\n", p,
				PER_PHASE - seen);
			return 1;
		}
		pop();
	}
	return 0;
}

static int stress(void)
{
	const unsigned long starts[] = { 0, ULONG_MAX - 3000, LONG_MAX - 3000 };
	pthread_t th[NR_THIEVES];
	unsigned int seed = 12345;
	long bad = 0, i;
	int p;

	pthread_barrier_init(&start_bar, NULL, NR_THIEVES + 1);
	pthread_barrier_init(&end_bar, NULL, NR_THIEVES + 1);
	for (i = 0; i < NR_THIEVES; i++)
		pthread_create(&th[i], NULL, thief, NULL);
	for (p = 0; p < NR_PHASES; p++) {
		unsigned long start = starts[p % 3];

		if (ws_deque_init(&dq, 2, GFP_KERNEL))
			return 2;
		/* The barrier below publishes these to the thieves. */
		atomic_long_set(&dq.top, start);
		atomic_long_set(&dq.bottom, start);
		atomic_store(&taken, 0);
		atomic_store(&phase_done, false);
		pthread_barrier_wait(&start_bar);
		if (owner_phase(p, p % 4, &seed))
			bad++;
		atomic_store(&phase_done, true);
		pthread_barrier_wait(&end_bar);
		ws_deque_destroy(&dq);
		/* The thieves wait at start_bar: nobody reads retired arrays. */
		rcu_barrier();
	}
	atomic_store(&all_done, true);
	pthread_barrier_wait(&start_bar);
	for (i = 0; i < NR_THIEVES; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < NR_ITEMS; i++)
		if (atomic_load(&hits[i]) != 1)
			bad++;
	printf("# %d items: %ld popped, %ld stolen, %ld taken not exactly once\n",
	       NR_ITEMS, atomic_load(&popped_total), atomic_load(&stolen_total), bad);
	printf("# %ld grows, %ld shrinks under steals\n", grows, shrinks);
	if (!shrinks)
		printf("# the array never shrank\n");
	return bad || !shrinks;
}

/*
 * A shrink that cannot allocate keeps the old array and its contents, and
 * a later one succeeds.  Single-threaded, starting near the wrap.
 */
static int shrink_nomem(void)
{
	const long n = 1000, keep = 10;
	unsigned long mask;
	long i, j, lo = 0;
	int bad = 0;

	if (ws_deque_init(&dq, WS_DEQUE_INIT_SLOTS, GFP_KERNEL))
		return 2;
	atomic_long_set(&dq.top, ULONG_MAX - 100);
	atomic_long_set(&dq.bottom, ULONG_MAX - 100);
	for (i = 0; i < n; i++)
		if (push(i))
			return 2;
	mask = ws_deque_owner_array(&dq)->mask;
	if (mask + 1 != 1024)
		bad |= 1;
	/* Thieves' end: FIFO. */
	for (; lo < n - keep; lo++)
		if (ws_deque_steal(&dq, &(bool){ false }) != &items[lo].task)
			bad |= 2;
	/* Owner churn at a low level: one failed shrink, then one that works. */
	atomic_store(&native_alloc_fail, 1);
	for (j = 0; j < 2 * 1024 && ws_deque_owner_array(&dq)->mask == mask; j++) {
		if (push(n + j))
			return 2;
		if (ws_deque_pop(&dq) != &items[n + j].task)
			bad |= 4;
		if (j == 1024 && atomic_load(&native_alloc_fail))
			bad |= 8;	/* the shrink was not even tried */
	}
	if (j != 1024 + 1024 || ws_deque_owner_array(&dq)->mask != mask / 2)
		bad |= 16;
	/* The kept tasks are all there, LIFO at the owner's end. */
	for (i = n; i-- > lo; )
		if (ws_deque_pop(&dq) != &items[i].task)
			bad |= 32;
	if (ws_deque_pop(&dq) || ws_deque_size(&dq))
		bad |= 64;
	ws_deque_destroy(&dq);
	rcu_barrier();
	if (bad)
		printf("# deque_shrink_nomem: failures %#x\n", bad);
	return bad;
}

/*
 * Index wrap-around, single-threaded, as wsched_deque.deque_wrap in KUnit:
 * a model of the contents (oldest first) checks every pop and steal.
 */
#define WRAP_MODEL	4096

static long wq[WRAP_MODEL];
static unsigned long wq_head, wq_tail;
static long wq_next;
static int wrap_bad, wrap_resizes, wrap_crossed;
static unsigned long wrap_point;

static void wrap_note(unsigned long mask, unsigned long top,
		      unsigned long bottom)
{
	if (ws_deque_owner_array(&dq)->mask == mask)
		return;
	wrap_resizes++;
	/* The copy ran over [top, bottom): did it cross the wrap point? */
	if (wrap_point - top - 1 < bottom - top - 1)
		wrap_crossed++;
}

static void wrap_push(void)
{
	unsigned long mask = ws_deque_owner_array(&dq)->mask;
	unsigned long top = atomic_long_read(&dq.top);
	unsigned long bottom = atomic_long_read(&dq.bottom);

	if (push(wq_next))
		wrap_bad |= 1;
	wq[wq_tail++ % WRAP_MODEL] = wq_next++;
	wrap_note(mask, top, bottom);
}

static void wrap_pop(void)
{
	unsigned long mask = ws_deque_owner_array(&dq)->mask;
	struct ws_task *t = ws_deque_pop(&dq);

	if (wq_head == wq_tail) {
		if (t)
			wrap_bad |= 2;
		return;
	}
	if (t != &items[wq[--wq_tail % WRAP_MODEL]].task)
		wrap_bad |= 4;
	wrap_note(mask, atomic_long_read(&dq.top), atomic_long_read(&dq.bottom));
}

static void wrap_steal(void)
{
	bool lost = false;
	struct ws_task *t = ws_deque_steal(&dq, &lost);

	if (lost)
		wrap_bad |= 8;
	if (wq_head == wq_tail) {
		if (t)
			wrap_bad |= 16;
		return;
	}
	if (t != &items[wq[wq_head++ % WRAP_MODEL]].task)
		wrap_bad |= 32;
}

static void wrap_size(void)
{
	if (ws_deque_size(&dq) != (long)(wq_tail - wq_head))
		wrap_bad |= 64;
}

static int wrap_one(unsigned long start)
{
	int i;

	if (ws_deque_init(&dq, WS_DEQUE_INIT_SLOTS, GFP_KERNEL))
		return 2;
	atomic_long_set(&dq.top, start);
	atomic_long_set(&dq.bottom, start);
	wrap_point = start > LONG_MAX ? 0 : (unsigned long)LONG_MIN;
	wq_head = 0;
	wq_tail = 0;
	wq_next = 0;
	wrap_bad = 0;
	wrap_resizes = 0;
	wrap_crossed = 0;

	for (i = 0; i < 40; i++) {
		wrap_push();
		if (i % 3 == 2)
			wrap_steal();
		if (i % 5 == 4)
			wrap_pop();
		wrap_size();
	}
	while (wq_head != wq_tail) {
		wrap_steal();
		wrap_pop();
	}
	wrap_pop();
	wrap_steal();
	wrap_push();
	wrap_pop();
	wrap_push();
	wrap_steal();
	wrap_size();
	for (i = 0; i < 1000; i++)
		wrap_push();
	if (ws_deque_owner_array(&dq)->mask != 1023)
		wrap_bad |= 128;
	for (i = 0; i < 600; i++)
		wrap_steal();
	for (i = 0; i < 300; i++)
		wrap_pop();
	wrap_size();
	for (i = 0; i < 2000; i++) {
		wrap_push();
		wrap_push();
		wrap_pop();
		wrap_steal();
	}
	if (ws_deque_owner_array(&dq)->mask != WS_DEQUE_INIT_SLOTS - 1)
		wrap_bad |= 256;
	wrap_size();
	while (wq_head != wq_tail) {
		wrap_pop();
		wrap_steal();
	}
	if (ws_deque_pop(&dq) || ws_deque_size(&dq) || wrap_resizes != 4)
		wrap_bad |= 512;
	ws_deque_destroy(&dq);
	rcu_barrier();
	printf("# wrap from %#lx: %d resizes, %d across the wrap%s\n", start,
	       wrap_resizes, wrap_crossed, wrap_bad ? ", FAILED" : "");
	if (wrap_bad)
		printf("# failures %#x\n", wrap_bad);
	return wrap_bad;
}

static int wrap(void)
{
	const unsigned long starts[] = {
		0,
		ULONG_MAX - 20, ULONG_MAX - 100, ULONG_MAX - 1550, ULONG_MAX - 2070,
		LONG_MAX - 20, LONG_MAX - 100, LONG_MAX - 1550, LONG_MAX - 2070,
	};
	unsigned int i;
	int bad = 0;

	for (i = 0; i < ARRAY_SIZE(starts); i++)
		bad |= wrap_one(starts[i]);
	return bad;
}

int main(void)
{
	int ret;

	printf("1..3\n");
	ret = stress();
	printf("%sok 1 deque_stress_tsan\n", ret ? "not " : "");
	if (ret == 2)
		return 2;
	memset(hits, 0, sizeof(hits));
	if (shrink_nomem()) {
		printf("not ok 2 deque_shrink_nomem\n");
		return 1;
	}
	printf("ok 2 deque_shrink_nomem\n");
	if (wrap()) {
		printf("not ok 3 deque_wrap\n");
		return 1;
	}
	printf("ok 3 deque_wrap\n");
	return ret;
}
