// SPDX-License-Identifier: GPL-2.0
/*
 * bench_native: the wsched core (kmod sources unchanged, -O2, user space)
 * against oneTBB's task_group and serial code on fib(32) with a spawn at
 * every call and nqueens(12) with a task per board node.
 *
 *   NATIVE_CPUS=n   workers for both wsched and oneTBB (default: all CPUs)
 *   BENCH_REPS=r    best of r runs (default 3)
 *   BENCH_FIB=n, BENCH_QUEENS=n   problem sizes (32, 12)
 */
#include <time.h>
#include <linux/wsched.h>
#include "wsched_internal.h"

void tbb_bench_threads(int n);
long tbb_fib(int n);
long tbb_nqueens(int n);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- fib ---------------------------------------------------------------- */
struct fib {
	struct ws_task task;
	int n;
	long result;
};

/* The asm keeps GCC from treating it as a pure function and reusing results. */
static noinline long fib_serial(int n)
{
	__asm__ __volatile__("" : "+r"(n));
	return n < 2 ? n : fib_serial(n - 1) + fib_serial(n - 2);
}
static long fib_calls(int n) { return n < 2 ? 1 : 1 + fib_calls(n - 1) + fib_calls(n - 2); }

static struct ws_task *fib_fn(struct ws_task *t)
{
	struct fib *f = container_of(t, struct fib, task);
	struct fib a, b;
	struct ws_group g;

	if (f->n < 2) {
		f->result = f->n;
		return NULL;
	}
	a.n = f->n - 1;
	b.n = f->n - 2;
	ws_group_init(&g, NULL);
	ws_task_init(&a.task, fib_fn);
	ws_task_init(&b.task, fib_fn);
	ws_spawn(&g, &a.task);
	ws_spawn(&g, &b.task);
	ws_group_wait(&g);
	f->result = a.result + b.result;
	return NULL;
}

static long ws_fib(int n)
{
	struct fib f = { .n = n };
	struct ws_group g;

	ws_group_init(&g, NULL);
	ws_task_init(&f.task, fib_fn);
	ws_spawn(&g, &f.task);
	ws_group_wait(&g);
	return f.result;
}

/* ---- nqueens -------------------------------------------------------------- */
struct queen {
	struct ws_task task;
	int n, row;
	unsigned int cols, d1, d2;
	long result;
};

static long queens_serial(int n, int row, unsigned cols, unsigned d1, unsigned d2, long *nodes)
{
	long s = 0;
	int c;

	++*nodes;
	if (row == n)
		return 1;
	for (c = 0; c < n; c++) {
		unsigned bc = 1u << c, b1 = 1u << (row + c), b2 = 1u << (row - c + n);

		if ((cols & bc) || (d1 & b1) || (d2 & b2))
			continue;
		s += queens_serial(n, row + 1, cols | bc, d1 | b1, d2 | b2, nodes);
	}
	return s;
}

static struct ws_task *queen_fn(struct ws_task *t)
{
	struct queen *q = container_of(t, struct queen, task);
	struct queen kids[32];
	struct ws_group g;
	int c, nk = 0;
	long s = 0;

	if (q->row == q->n) {
		q->result = 1;
		return NULL;
	}
	ws_group_init(&g, NULL);
	for (c = 0; c < q->n; c++) {
		unsigned bc = 1u << c, b1 = 1u << (q->row + c), b2 = 1u << (q->row - c + q->n);
		struct queen *k = &kids[nk];

		if ((q->cols & bc) || (q->d1 & b1) || (q->d2 & b2))
			continue;
		k->n = q->n;
		k->row = q->row + 1;
		k->cols = q->cols | bc;
		k->d1 = q->d1 | b1;
		k->d2 = q->d2 | b2;
		ws_task_init(&k->task, queen_fn);
		ws_spawn(&g, &k->task);
		nk++;
	}
	ws_group_wait(&g);
	for (c = 0; c < nk; c++)
		s += kids[c].result;
	q->result = s;
	return NULL;
}

static long ws_nqueens(int n)
{
	struct queen q = { .n = n };
	struct ws_group g;

	ws_group_init(&g, NULL);
	ws_task_init(&q.task, queen_fn);
	ws_spawn(&g, &q.task);
	ws_group_wait(&g);
	return q.result;
}

/* ---- harness ---------------------------------------------------------------- */
static int reps = 3;

#define BEST(expr, want, out_ns) do {					\
	double __best = 1e300;						\
	for (int __r = 0; __r < reps; __r++) {				\
		double __t = now_ns();					\
		long __v = (expr);					\
		__t = now_ns() - __t;					\
		if (__v != (want)) {					\
			fprintf(stderr, "wrong result %ld != %ld: %s\n", __v, (long)(want), #expr); \
			exit(1);					\
		}							\
		if (__t < __best)					\
			__best = __t;					\
	}								\
	out_ns = __best;						\
} while (0)

static void row(const char *name, long tasks, double serial, double tbb, double ws)
{
	printf("%-12s %10ld %9.1f %9.1f %9.1f %7.2f\n", name, tasks,
	       serial / tasks, tbb / tasks, ws / tasks, ws / tbb);
}

int main(void)
{
	const char *s;
	int nfib = 32, nq = 12;
	double t_ser, t_tbb, t_ws;
	long want, nodes = 0;

	native_init();
	if ((s = getenv("BENCH_REPS")))
		reps = atoi(s) > 0 ? atoi(s) : 1;
	if ((s = getenv("BENCH_FIB")))
		nfib = atoi(s);
	if ((s = getenv("BENCH_QUEENS")))
		nq = atoi(s);
	if (native_module_init()) {
		fprintf(stderr, "module init failed\n");
		return 1;
	}
	tbb_bench_threads(nr_cpu_ids);
	printf("# workers: %u (NATIVE_CPUS), best of %d\n", nr_cpu_ids, reps);
	printf("%-12s %10s %9s %9s %9s %7s\n", "benchmark", "tasks", "serial",
	       "oneTBB", "wsched", "ws/tbb");
	printf("%-12s %10s %9s %9s %9s %7s\n", "", "", "ns/task", "ns/task",
	       "ns/task", "ratio");

	want = fib_serial(nfib);
	BEST(fib_serial(nfib), want, t_ser);
	BEST(tbb_fib(nfib), want, t_tbb);
	BEST(ws_fib(nfib), want, t_ws);
	{
		char name[32];

		snprintf(name, sizeof(name), "fib(%d)", nfib);
		row(name, fib_calls(nfib), t_ser, t_tbb, t_ws);
	}

	want = queens_serial(nq, 0, 0, 0, 0, &nodes);
	BEST(({ long __n = 0; queens_serial(nq, 0, 0, 0, 0, &__n); }), want, t_ser);
	BEST(tbb_nqueens(nq), want, t_tbb);
	BEST(ws_nqueens(nq), want, t_ws);
	{
		char name[32];

		snprintf(name, sizeof(name), "nqueens(%d)", nq);
		row(name, nodes, t_ser, t_tbb, t_ws);
	}
	native_module_exit();
	native_teardown();
	return 0;
}
