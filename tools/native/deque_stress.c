// SPDX-License-Identifier: GPL-2.0
/*
 * deque_stress: kmod/ws_deque.h and kmod/deque.c, unchanged, under
 * ThreadSanitizer.  One owner pushes bursts and pops; three thieves steal.
 * Each phase starts from a 2-slot deque so that it grows (and retires
 * arrays through kvfree_rcu) while thieves read it.  Every item must be
 * taken exactly once, and its payload (written plainly before the push)
 * must be seen by whoever takes it.
 */
#include <linux/wsched.h>
#include "ws_deque.h"

#define NR_THIEVES	3
#define NR_PHASES	20
#define PER_PHASE	50000
#define NR_ITEMS	(NR_PHASES * PER_PHASE)

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

int main(void)
{
	pthread_t th[NR_THIEVES];
	unsigned int seed = 12345;
	long bad = 0, i;
	int p;

	printf("1..1\n");
	pthread_barrier_init(&start_bar, NULL, NR_THIEVES + 1);
	pthread_barrier_init(&end_bar, NULL, NR_THIEVES + 1);
	for (i = 0; i < NR_THIEVES; i++)
		pthread_create(&th[i], NULL, thief, NULL);
	for (p = 0; p < NR_PHASES; p++) {
		long next = (long)p * PER_PHASE, end = next + PER_PHASE;

		if (ws_deque_init(&dq, 2, GFP_KERNEL))
			return 2;
		atomic_store(&taken, 0);
		atomic_store(&phase_done, false);
		pthread_barrier_wait(&start_bar);
		while (next < end) {
			int burst = 1 + rand_r(&seed) % (p & 1 ? 4096 : 64);
			int pops = rand_r(&seed) % (burst + 1);

			for (; burst-- && next < end; next++) {
				items[next].payload = next * 7 + 1;
				if (!ws_deque_push(&dq, &items[next].task, GFP_KERNEL)) {
					fprintf(stderr, "# push failed\n");
					return 2;
				}
			}
			while (pops--) {
				struct ws_task *t = ws_deque_pop(&dq);

				if (t)
					take(t, false);
			}
		}
		/* Drain: pop until every item of the phase is taken. */
		while (atomic_load(&taken) < PER_PHASE) {
			struct ws_task *t = ws_deque_pop(&dq);

			if (t)
				take(t, false);
		}
		atomic_store(&phase_done, true);
		pthread_barrier_wait(&end_bar);
		ws_deque_destroy(&dq);
	}
	atomic_store(&all_done, true);
	pthread_barrier_wait(&start_bar);
	for (i = 0; i < NR_THIEVES; i++)
		pthread_join(th[i], NULL);
	rcu_barrier();
	for (i = 0; i < NR_ITEMS; i++)
		if (atomic_load(&hits[i]) != 1)
			bad++;
	printf("# %d items: %ld popped, %ld stolen, %ld taken not exactly once\n",
	       NR_ITEMS, atomic_load(&popped_total), atomic_load(&stolen_total), bad);
	printf("%sok 1 deque_stress_tsan\n", bad ? "not " : "");
	return bad ? 1 : 0;
}
