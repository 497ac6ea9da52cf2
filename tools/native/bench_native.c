// SPDX-License-Identifier: GPL-2.0
/*
 * bench_native: the wsched core (kmod sources unchanged, -O2, user space)
 * against oneTBB's task_group and serial code on fib(32) with a spawn at
 * every call and nqueens(12) with a task per board node; and fib(32) with
 * ws_parallel_invoke() against tbb::parallel_invoke() at every call.
 *
 *   NATIVE_CPUS=n   CPUs: oneTBB runs n threads, wsched n workers (default:
 *                   all CPUs)
 *   BENCH_REPS=r    rounds; each round runs every variant once, and the
 *                   best round of each variant counts (default 3)
 *   BENCH_FIB=n, BENCH_QUEENS=n   problem sizes (32, 12)
 *   BENCH_ONLY=invoke  only the parallel_invoke() table (for profiles),
 *                   which also runs fib with ws_ctx_invoke()
 *
 * oneTBB's main thread runs tasks in task_group::wait(), beside n - 1
 * workers (global_control::max_allowed_parallelism = n counts it).  A
 * thread that calls ws_group_wait() joins a wsched pool too, but beside
 * all n workers of the default pool.  So wsched runs three ways, printed
 * side by side:
 *
 *   ws_pool   the n workers run everything; main spawns the root task and
 *             sleeps until the group's done callback: n threads.
 *   ws_join   main joins the pool (ws_pool_execute()) and runs the root
 *             itself beside n - 1 workers (CPU 0 is taken offline for
 *             the run, see cpu0_down()): n threads, oneTBB's arrangement.
 *   ws_join+  main joins beside all n workers: n + 1 threads, what a
 *             plain ws_group_wait() from main gets.
 *
 * The parallel_invoke() table runs both libraries as oneTBB runs: main
 * beside n - 1 workers (ws_join's arrangement).
 */
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#include <linux/wsched.h>
#include "wsched_internal.h"

void tbb_bench_threads(int n);
long tbb_fib(int n);
long tbb_fib_invoke(int n);
long tbb_nqueens(int n);

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* ---- running a root task three ways -------------------------------------- */

/* A group whose done callback wakes main, which never joins the pool. */
struct root_wait {
	struct ws_group group;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
};

static void root_done(struct ws_group *group)
{
	struct root_wait *w = container_of(group, struct root_wait, group);

	/* Our last access to *w is the unlock: main may return after it. */
	pthread_mutex_lock(&w->lock);
	w->done = true;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
}

/* ws_pool: the pool's workers run @root; main sleeps meanwhile. */
static void run_pool(struct ws_task *root)
{
	struct root_wait w = { .done = false };

	pthread_mutex_init(&w.lock, NULL);
	pthread_cond_init(&w.cond, NULL);
	ws_group_init(&w.group, NULL);
	ws_group_set_done(&w.group, root_done);
	ws_spawn(&w.group, root);
	pthread_mutex_lock(&w.lock);
	while (!w.done)
		pthread_cond_wait(&w.cond, &w.lock);
	pthread_mutex_unlock(&w.lock);
	pthread_cond_destroy(&w.cond);
	pthread_mutex_destroy(&w.lock);
}

/* ws_join, ws_join+: main joins the pool and runs @root's function itself. */
static int run_root_fn(void *arg)
{
	struct ws_task *root = arg;

	root->fn(root);
	return 0;
}

static void run_joined(struct ws_task *root)
{
	ws_pool_execute(NULL, run_root_fn, root);
}

/*
 * ws_join: the default pool without the worker of CPU 0.  The shim counts
 * every thread that is not a kthread as running on CPU 0: its per-CPU
 * counters, and the worker slot ws_current_worker() checks first.  With
 * CPU 0's worker gone, main takes that CPU's place, as a joined thread in
 * the kernel uses the CPU it runs on.  With CPU 0's worker running, main
 * and that worker would share those cache lines from two host CPUs (and
 * do in ws_join+), which costs several times the task itself.
 */
static void cpu0_down(void)
{
	if (native_cpu_down(0)) {
		fprintf(stderr, "native_cpu_down(0) failed\n");
		exit(1);
	}
}

static void cpu0_up(void)
{
	if (native_cpu_up(0)) {
		fprintf(stderr, "native_cpu_up(0) failed\n");
		exit(1);
	}
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

static long ws_fib(int n, void (*run)(struct ws_task *root))
{
	struct fib f = { .n = n };

	ws_task_init(&f.task, fib_fn);
	run(&f.task);
	return f.result;
}

/* fib with ws_parallel_invoke(): fib(n - 1) here, fib(n - 2) offered. */
struct fib_inv {
	int n;
	long result;
};

static void fib_inv_node(struct fib_inv *f);

/*
 * The leaf test, inlined where the call is direct, then the node with the
 * frame: as wsched_bench.c's fib_inv_call(), so that a leaf (half of all
 * calls) pays no frame of the node's, which GCC sets up before the test
 * when both are one function.
 */
static void fib_inv_fn(void *arg)
{
	struct fib_inv *f = arg;

	if (f->n < 2)
		f->result = f->n;
	else
		fib_inv_node(f);
}

static noinline void fib_inv_node(struct fib_inv *f)
{
	struct fib_inv a, b;

	a.n = f->n - 1;
	b.n = f->n - 2;
	ws_parallel_invoke(NULL, fib_inv_fn, &a, fib_inv_fn, &b);
	f->result = a.result + b.result;
}

struct fib_inv_root {
	struct ws_task task;
	struct fib_inv f;
};

static struct ws_task *fib_inv_task(struct ws_task *task)
{
	fib_inv_fn(&container_of(task, struct fib_inv_root, task)->f);
	return NULL;
}

/* fib(@n) by the root task @fn, started by @run. */
static long ws_fib_root(int n, ws_task_fn fn, void (*run)(struct ws_task *root))
{
	struct fib_inv_root root = { .f = { .n = n } };

	ws_task_init(&root.task, fn);
	run(&root.task);
	return root.f.result;
}

static long ws_fib_invoke_pool(int n) { return ws_fib_root(n, fib_inv_task, run_pool); }
static long ws_fib_invoke_join(int n) { return ws_fib_root(n, fib_inv_task, run_joined); }

/* The same with ws_ctx_invoke(): the context passed down, no lookup. */
static void fib_ctx_node(struct ws_ctx *ctx, struct fib_inv *f);

/* The leaf test, then the node, as fib_inv_fn(). */
static void fib_ctx_fn(struct ws_ctx *ctx, void *arg)
{
	struct fib_inv *f = arg;

	if (f->n < 2)
		f->result = f->n;
	else
		fib_ctx_node(ctx, f);
}

static noinline void fib_ctx_node(struct ws_ctx *ctx, struct fib_inv *f)
{
	struct fib_inv a, b;

	a.n = f->n - 1;
	b.n = f->n - 2;
	ws_ctx_invoke(ctx, fib_ctx_fn, &a, fib_ctx_fn, &b);
	f->result = a.result + b.result;
}

static struct ws_task *fib_ctx_task(struct ws_task *task)
{
	ws_ctx_run(NULL, fib_ctx_fn,
		   &container_of(task, struct fib_inv_root, task)->f);
	return NULL;
}

static long ws_fib_ctx_pool(int n) { return ws_fib_root(n, fib_ctx_task, run_pool); }
static long ws_fib_ctx_join(int n) { return ws_fib_root(n, fib_ctx_task, run_joined); }

static long ws_fib_pool(int n) { return ws_fib(n, run_pool); }
static long ws_fib_join(int n) { return ws_fib(n, run_joined); }

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

static long queens_serial_run(int n)
{
	long nodes = 0;

	return queens_serial(n, 0, 0, 0, 0, &nodes);
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

static long ws_nqueens(int n, void (*run)(struct ws_task *root))
{
	struct queen q = { .n = n };

	ws_task_init(&q.task, queen_fn);
	run(&q.task);
	return q.result;
}

static long ws_nqueens_pool(int n) { return ws_nqueens(n, run_pool); }
static long ws_nqueens_join(int n) { return ws_nqueens(n, run_joined); }

/* ---- harness ---------------------------------------------------------------- */
static int reps = 3;

enum { V_SERIAL, V_TBB, V_POOL, V_JOIN, V_JOIN_PLUS, V_NR };

struct variant {
	long (*run)(int n);
	void (*setup)(void);		/* before a timed run, untimed */
	void (*teardown)(void);		/* after it, untimed */
	double best;
};

/*
 * Time every variant @reps times, interleaved: round r runs them all,
 * starting with a different one each round, so that a change of load on
 * the host hits them alike.  The best time of each counts.
 */
static void measure(const char *name, struct variant *v, int nr, int n,
		    long want)
{
	int r, k;

	for (k = 0; k < nr; k++)
		v[k].best = 1e300;
	for (r = 0; r < reps; r++) {
		for (k = 0; k < nr; k++) {
			struct variant *x = &v[(r + k) % nr];
			double t;
			long got;

			if (x->setup)
				x->setup();
			t = now_ns();
			got = x->run(n);
			t = now_ns() - t;
			if (x->teardown)
				x->teardown();
			if (got != want) {
				fprintf(stderr, "%s: variant %d: wrong result %ld != %ld\n",
					name, (int)(x - v), got, want);
				exit(1);
			}
			if (t < x->best)
				x->best = t;
		}
	}
}

static const char *plural(unsigned int n)
{
	return n == 1 ? "" : "s";
}

static void row(const char *name, long tasks, const struct variant *v)
{
	printf("%-12s %9ld %8.1f %8.1f %8.1f %8.1f %8.1f %8.2f %8.2f\n", name,
	       tasks, v[V_SERIAL].best / tasks, v[V_TBB].best / tasks,
	       v[V_POOL].best / tasks, v[V_JOIN].best / tasks,
	       v[V_JOIN_PLUS].best / tasks, v[V_POOL].best / v[V_TBB].best,
	       v[V_JOIN].best / v[V_TBB].best);
}

int main(void)
{
	struct variant fib[V_NR] = {
		[V_SERIAL] = { .run = fib_serial },
		[V_TBB] = { .run = tbb_fib },
		[V_POOL] = { .run = ws_fib_pool },
		[V_JOIN] = { .run = ws_fib_join, .setup = cpu0_down,
			     .teardown = cpu0_up },
		[V_JOIN_PLUS] = { .run = ws_fib_join },
	};
	struct variant invoke[6] = {
		{ .run = fib_serial },
		{ .run = tbb_fib_invoke },
		{ .run = ws_fib_invoke_pool },
		{ .run = ws_fib_invoke_join, .setup = cpu0_down,
		  .teardown = cpu0_up },
		{ .run = ws_fib_ctx_pool },
		{ .run = ws_fib_ctx_join, .setup = cpu0_down,
		  .teardown = cpu0_up },
	};
	struct variant queens[V_NR] = {
		[V_SERIAL] = { .run = queens_serial_run },
		[V_TBB] = { .run = tbb_nqueens },
		[V_POOL] = { .run = ws_nqueens_pool },
		[V_JOIN] = { .run = ws_nqueens_join, .setup = cpu0_down,
			     .teardown = cpu0_up },
		[V_JOIN_PLUS] = { .run = ws_nqueens_join },
	};
	const char *s;
	int nfib = 32, nq = 12;
	long nodes = 0, want;
	char name[32];
	unsigned int n;

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
	n = nr_cpu_ids;
	tbb_bench_threads(n);
	printf("# NATIVE_CPUS=%u on %ld host CPUs, best of %d interleaved rounds\n",
	       n, sysconf(_SC_NPROCESSORS_ONLN), reps);
	printf("# columns 3-7: best wall time / tasks, in ns (not multiplied by threads)\n");
	printf("#   serial    plain recursion, no tasks (same task count)\n");
	printf("#   oneTBB    tbb::task_group: main + %u worker%s; %u thread%s\n",
	       n - 1, plural(n - 1), n, plural(n));
	printf("#   ws_pool   wsched: %u worker%s, main hands over the root and sleeps; %u thread%s\n",
	       n, plural(n), n, plural(n));
	printf("#   ws_join   wsched: main joins + %u worker%s (as oneTBB); %u thread%s\n",
	       n - 1, plural(n - 1), n, plural(n));
	printf("#   ws_join+  wsched: main joins + %u worker%s; %u threads for %u CPU%s (slowed by\n"
	       "#             the shim: main and CPU 0's worker share per-CPU data, see README.md)\n",
	       n, plural(n), n + 1, n, plural(n));
	printf("# pool/tbb = ws_pool / oneTBB, join/tbb = ws_join / oneTBB: time ratios, < 1: wsched faster\n");
	printf("%-12s %9s %8s %8s %8s %8s %8s %8s %8s\n", "benchmark", "tasks",
	       "serial", "oneTBB", "ws_pool", "ws_join", "ws_join+", "pool/tbb",
	       "join/tbb");

	s = getenv("BENCH_ONLY");
	if (!s || strcmp(s, "invoke")) {
		want = fib_serial(nfib);
		measure("fib", fib, V_NR, nfib, want);
		snprintf(name, sizeof(name), "fib(%d)", nfib);
		row(name, fib_calls(nfib), fib);

		want = queens_serial(nq, 0, 0, 0, 0, &nodes);
		measure("nqueens", queens, V_NR, nq, want);
		snprintf(name, sizeof(name), "nqueens(%d)", nq);
		row(name, nodes, queens);
	}

	want = fib_serial(nfib);
	measure("fib invoke", invoke, 6, nfib, want);
	printf("# parallel_invoke at every fib call, ns per call; threads as above\n");
	printf("#   ctx_pool, ctx_join: ws_pool, ws_join with ws_ctx_invoke() (context passed down)\n");
	printf("#   ctx/inv = ctx_pool / ws_pool, ctx/ser = ctx_pool / serial: time ratios\n");
	printf("%-12s %9s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s\n",
	       "benchmark", "calls", "serial", "oneTBB", "ws_pool", "ws_join",
	       "ctx_pool", "ctx_join", "pool/tbb", "join/tbb", "ctx/inv",
	       "ctx/ser");
	snprintf(name, sizeof(name), "fib(%d)", nfib);
	printf("%-12s %9ld %8.1f %8.1f %8.1f %8.1f %8.1f %8.1f %8.2f %8.2f %8.2f %8.2f\n",
	       name, fib_calls(nfib), invoke[0].best / fib_calls(nfib),
	       invoke[1].best / fib_calls(nfib),
	       invoke[2].best / fib_calls(nfib),
	       invoke[3].best / fib_calls(nfib),
	       invoke[4].best / fib_calls(nfib),
	       invoke[5].best / fib_calls(nfib),
	       invoke[2].best / invoke[1].best,
	       invoke[3].best / invoke[1].best,
	       invoke[4].best / invoke[2].best,
	       invoke[4].best / invoke[0].best);

	native_module_exit();
	native_teardown();
	return 0;
}
