// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_bench: benchmarks of the public wsched API against baselines
 * measured in the same run.
 *
 * On load it times the variants of each selected benchmark (the serial
 * baseline, wsched, a workqueue...) in @runs rounds, each round running
 * every variant once (fib: at least 5 rounds), and prints one line per
 * result on the kernel log:
 *
 *   wsched_bench: row name=<bench> baseline=<what> base_ns=<median>
 *     ws_ns=<median> ratio=<median of base/ws per round>
 *     ratio_min=<..> ratio_max=<..> min=<ws min> max=<ws max> ...
 *
 * and one "runs" line per variant with its times in round order.
 * tools/bench/run.sh collects these lines.  The load fails with -EIO if
 * a parallel result differs from the serial one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/completion.h>
#include <linux/crc32.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>

/* Only for ws_heartbeat_us, the interval the promotion row compares. */
#include "wsched_internal.h"

MODULE_IMPORT_NS(WSCHED_INTERNAL);

#define BENCH_MAX_RUNS	31
#define FIB_MAX		32
#define NQ_MAX		11
#define UTS_MAX_KIDS	8
#define UTS_ROOT_KIDS	64
#define WAVE_MAX	512
#define CRC_GRAIN	SZ_64K

static char *only = "";
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Comma list of benchmarks (fib,heartbeat,nqueens,uts,crc32c,wavefront); empty for all");

static unsigned int runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "Rounds, each running every variant once (1 to 31, default 5; fib at least 5)");

static unsigned int fib_n = 27;
module_param(fib_n, uint, 0444);
MODULE_PARM_DESC(fib_n, "fib() argument (default 27, at most 32)");

static unsigned int fib_wq_n = 22;
module_param(fib_wq_n, uint, 0444);
MODULE_PARM_DESC(fib_wq_n, "fib() argument of the workqueue variant, scaled per task to fib_n (default 22)");

static unsigned int nq_n = 11;
module_param(nq_n, uint, 0444);
MODULE_PARM_DESC(nq_n, "nqueens board size (default 11, at most 11)");

static unsigned int uts_depth = 10;
module_param(uts_depth, uint, 0444);
MODULE_PARM_DESC(uts_depth, "depth limit of the UTS tree (default 10: 816171 nodes)");

static unsigned int crc_mb = 64;
module_param(crc_mb, uint, 0444);
MODULE_PARM_DESC(crc_mb, "crc32c buffer size in MiB (default 64)");

static unsigned int wave = 96;
module_param(wave, uint, 0444);
MODULE_PARM_DESC(wave, "side of the wavefront grid (default 96, at most 512)");

static struct ws_pool *pool_all;
static struct ws_pool *pool_one;
static struct workqueue_struct *bench_wq;
static int bench_err;

/*
 * The caller's CPU while it waits for a pool's workers (bench_home) and
 * the CPU of the 1-worker pool (bench_t1_cpu): the first and the last
 * online CPU, the same one on a 1-CPU guest.  bench_mask is the caller's
 * own affinity, restored after each pinned run.
 */
static int bench_home;
static int bench_t1_cpu;
static cpumask_var_t bench_mask;

/* Median, min and max of one variant's run times. */
struct bench_stat {
	u64 med;
	u64 min;
	u64 max;
};

/*
 * One variant of a benchmark.  @fn(@arg) must return @want.  With @cpu
 * >= 0 the calling thread is bound to that CPU for the run; with @pool
 * the pool's counters are summed over the timed runs into @stats.
 */
struct bench_var {
	const char *what;
	u64 (*fn)(void *arg);
	void *arg;
	u64 want;
	int cpu;
	struct ws_pool *pool;
	bool heartbeat_off;
	u64 t[BENCH_MAX_RUNS];
	struct bench_stat st;
	struct ws_pool_stats stats;
};

/* The variants of the benchmark being run: too big for the stack. */
#define BENCH_MAX_VARS	9
static struct bench_var bench_vars[BENCH_MAX_VARS];

/*
 * Set up bench_vars[@i], run from any CPU (cpu -1) and without pool
 * counters; the caller sets those where it wants them.
 */
static struct bench_var *bench_var(unsigned int i, const char *what,
				   u64 (*fn)(void *arg), void *arg, u64 want)
{
	struct bench_var *v = &bench_vars[i];

	memset(v, 0, sizeof(*v));
	v->what = what;
	v->fn = fn;
	v->arg = arg;
	v->want = want;
	v->cpu = -1;
	return v;
}

/* Quantiles of per-round ratios, in thousandths. */
struct bench_ratio {
	u64 med;
	u64 min;
	u64 max;
	u64 q1;
	u64 q3;
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void bench_check(const char *name, u64 got, u64 want)
{
	if (got == want)
		return;
	pr_err("%s: result %llu, expected %llu MISMATCH\n", name, got, want);
	bench_err = -EIO;
}

static void bench_stats_add(struct ws_pool_stats *sum,
			    const struct ws_pool_stats *a,
			    const struct ws_pool_stats *b)
{
	const unsigned int nr = sizeof(*sum) / sizeof(u64);
	const u64 *x = (const u64 *)a, *y = (const u64 *)b;
	u64 *s = (u64 *)sum;
	unsigned int i;

	for (i = 0; i < nr; i++)
		s[i] += y[i] - x[i];
}

/* Run @v once; its time goes to @v->t[@round] unless @round < 0. */
static void bench_run(struct bench_var *v, int round)
{
	unsigned int heartbeat_us = READ_ONCE(ws_heartbeat_us);
	struct ws_pool_stats s0, s1;
	u64 t0, t, res;

	if (v->cpu >= 0)
		set_cpus_allowed_ptr(current, cpumask_of(v->cpu));
	if (v->pool)
		ws_pool_read_stats(v->pool, &s0);
	/*
	 * The module parameter, as a write to it from user space would set
	 * it: read at every beat and when a worker's outermost call arms it.
	 */
	if (v->heartbeat_off)
		WRITE_ONCE(ws_heartbeat_us, 0);
	t0 = ktime_get_ns();
	res = v->fn(v->arg);
	t = ktime_get_ns() - t0;
	if (v->heartbeat_off)
		WRITE_ONCE(ws_heartbeat_us, heartbeat_us);
	if (v->pool && round >= 0) {
		ws_pool_read_stats(v->pool, &s1);
		bench_stats_add(&v->stats, &s0, &s1);
	}
	if (v->cpu >= 0)
		set_cpus_allowed_ptr(current, bench_mask);
	if (round >= 0)
		v->t[round] = t;
	bench_check(v->what, res, v->want);
	cond_resched();
}

static void bench_summary(const u64 *t, unsigned int n, struct bench_stat *st)
{
	u64 s[BENCH_MAX_RUNS];

	memcpy(s, t, n * sizeof(*s));
	sort(s, n, sizeof(s[0]), cmp_u64, NULL);
	st->med = s[n / 2];
	st->min = s[0];
	st->max = s[n - 1];
}

/* The times of @v's runs in round order, for the raw log. */
static void bench_print_runs(const struct bench_var *v, unsigned int rounds)
{
	char buf[BENCH_MAX_RUNS * 12];
	unsigned int i;
	int len = 0;

	for (i = 0; i < rounds; i++)
		len += scnprintf(buf + len, sizeof(buf) - len, "%s%llu",
				 i ? "," : "", div64_u64(v->t[i], 1000));
	pr_info("runs %s us=%s\n", v->what, buf);
}

/*
 * Time the @nr variants of @v in @rounds rounds after one untimed warm-up
 * round.  Each round runs every variant once, starting with a different
 * one each round, so that a change of the host's load (other QEMU guests
 * on the same cores) hits all variants of a round alike; ratios are taken
 * within a round (bench_ratio()).
 */
static void bench_rounds(struct bench_var *v, unsigned int nr,
			 unsigned int rounds)
{
	unsigned int r, k;

	for (k = 0; k < nr; k++)
		bench_run(&v[k], -1);
	for (r = 0; r < rounds; r++)
		for (k = 0; k < nr; k++)
			bench_run(&v[(r + k) % nr], r);
	for (k = 0; k < nr; k++) {
		bench_summary(v[k].t, rounds, &v[k].st);
		bench_print_runs(&v[k], rounds);
	}
}

/* Quantiles over the rounds of @a's time / @b's time. */
static void bench_ratio(const struct bench_var *a, const struct bench_var *b,
			unsigned int rounds, struct bench_ratio *q)
{
	u64 r[BENCH_MAX_RUNS];
	unsigned int i;

	for (i = 0; i < rounds; i++)
		r[i] = b->t[i] ? div64_u64(a->t[i] * 1000, b->t[i]) : 0;
	sort(r, rounds, sizeof(r[0]), cmp_u64, NULL);
	q->med = r[rounds / 2];
	q->min = r[0];
	q->max = r[rounds - 1];
	q->q1 = r[rounds / 4];
	q->q3 = r[(3 * rounds) / 4];
}

/* A ratio in thousandths, printed as a decimal. */
struct bench_milli {
	char s[24];
};

static const char *bench_milli(struct bench_milli *m, u64 x)
{
	u32 frac;
	u64 whole = div_u64_rem(x, 1000, &frac);

	snprintf(m->s, sizeof(m->s), "%llu.%03u", whole, frac);
	return m->s;
}

/*
 * One result: @base's and @ws's median times and, as the ratio, the
 * median over the rounds of @base's time / @ws's time, with its min and
 * max.
 */
static void bench_row(const char *name, const char *baseline,
		      const struct bench_var *base, const struct bench_var *ws,
		      unsigned int rounds, const char *extra)
{
	struct bench_milli m[3];
	struct bench_ratio q;

	bench_ratio(base, ws, rounds, &q);
	pr_info("row name=%s baseline=%s base_ns=%llu ws_ns=%llu ratio=%s ratio_min=%s ratio_max=%s min=%llu max=%llu base_min=%llu base_max=%llu%s%s\n",
		name, baseline, base->st.med, ws->st.med,
		bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		bench_milli(&m[2], q.max), ws->st.min, ws->st.max,
		base->st.min, base->st.max, extra[0] ? " " : "", extra);
}

static void bench_print_stats(const char *name, const struct bench_var *v,
			      unsigned int rounds)
{
	const struct ws_pool_stats *s = &v->stats;

	pr_info("stats %s, %u runs: executed=%llu spawned=%llu injected=%llu bypassed=%llu popped=%llu stolen=%llu steal_failed=%llu sleeps=%llu wakeups=%llu joined=%llu compensated=%llu\n",
		name, rounds, s->executed, s->spawned, s->injected,
		s->bypassed, s->popped, s->stolen, s->steal_failed, s->sleeps,
		s->wakeups, s->joined, s->compensated);
}

static bool bench_selected(const char *name)
{
	size_t len = strlen(name);
	const char *p = only;

	if (!*p)
		return true;
	while (*p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return true;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return false;
}

/*
 * Each recursion's functions go to a section of their own that starts on
 * a page (BENCH_HOT() on each function, BENCH_PAGE_SECTION() once; GCC
 * emits top-level asm before the functions, so the alignment comes first
 * and pads nothing).  Under QEMU TCG, jumps within a page chain from one
 * translated block to the next, while a function that straddles a page
 * boundary, or a call to another page, goes through a lookup: where the
 * compiler happened to place a recursion moved its time by a third
 * (uts_ctx_t1 44 ms with uts_ctx_call() and uts_ctx_node() on one page,
 * 51 on two, 58 with uts_ctx_node() across a boundary, for the same
 * wsched), so that a change elsewhere in the file could move a row.
 */
#define BENCH_HOT(name)		__section(".text.wsbench_" #name)
#define BENCH_PAGE_SECTION(name)					\
	asm(".pushsection .text.wsbench_" #name ",\"ax\",@progbits\n\t" \
	    ".p2align 12\n\t.popsection")

/* ---- fib: one task per call, no cutoff ---------------------------- */

struct fib_frame {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int n;
	u64 result;
};

static void fib_node(struct fib_frame *f);

/*
 * A leaf returns before the node's own function is called.  The array of
 * children on a node's stack costs every call of that function a stack
 * canary (CONFIG_STACKPROTECTOR_STRONG) and the saved registers, set up
 * before any test: the serial recursion, with no array, pays none of it,
 * and half the calls are leaves.  So every fork-join variant below
 * splits into a small function with the leaf test (inlined where it is
 * called directly) and a noinline one for the node with children.
 */
BENCH_PAGE_SECTION(fib);

static BENCH_HOT(fib) void fib_call(struct fib_frame *f)
{
	if (f->n < 2)
		f->result = f->n;
	else
		fib_node(f);
}

static BENCH_HOT(fib) struct ws_task *fib_task_fn(struct ws_task *task)
{
	fib_call(container_of(task, struct fib_frame, task));
	return NULL;
}

static BENCH_HOT(fib) noinline void fib_node(struct fib_frame *f)
{
	/*
	 * Not zeroed by CONFIG_INIT_STACK_ALL_ZERO, which Debian's kernels
	 * set: a rep stos of the whole array at every call that the serial
	 * recursion does not pay and that is slow under TCG.  Every field is
	 * set before it is read: by ws_group_init() and ws_task_init() (the
	 * queue link when a task is queued), here, or by the child
	 * (@result).  The same in every fork-join variant below.
	 */
	struct fib_frame kid[2] __uninitialized;
	struct ws_group group __uninitialized;
	int i;

	ws_group_init(&group, f->pool);
	for (i = 0; i < 2; i++) {
		kid[i].pool = f->pool;
		kid[i].n = f->n - 1 - i;
		ws_task_init(&kid[i].task, fib_task_fn);
		ws_spawn(&group, &kid[i].task);
	}
	if (ws_group_wait(&group))
		bench_err = -EIO;
	f->result = kid[0].result + kid[1].result;
}

BENCH_PAGE_SECTION(fib_serial);

static BENCH_HOT(fib_serial) noinline u64 fib_rec(unsigned int n)
{
	return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2);
}

static u64 fib_serial_run(void *arg)
{
	return fib_rec(*(unsigned int *)arg);
}

/*
 * The caller computes fib(n) itself: its ws_group_wait() joins a pool
 * without attributes and runs tasks beside the workers; a pool with
 * attributes takes no joiner, and the caller sleeps in it.
 */
static u64 fib_caller_run(void *arg)
{
	struct fib_frame root = { .pool = arg, .n = fib_n };

	fib_call(&root);
	return root.result;
}

/* The root of fib(n) as a task of a pool; the caller sleeps. */
struct fib_root {
	struct fib_frame frame;
	struct ws_group group;
	struct completion done;
};

static void fib_root_done(struct ws_group *group)
{
	complete(&container_of(group, struct fib_root, group)->done);
}

/*
 * The pool's workers compute fib(n) and nobody else: the caller spawns
 * the root task into a group with a done callback and sleeps on a
 * completion instead of joining the pool in ws_group_wait().
 */
static u64 fib_pool_run(void *arg)
{
	struct fib_root root = { .frame = { .pool = arg, .n = fib_n } };

	init_completion(&root.done);
	ws_group_init(&root.group, arg);
	ws_group_set_done(&root.group, fib_root_done);
	ws_task_init(&root.frame.task, fib_task_fn);
	ws_spawn(&root.group, &root.frame.task);
	wait_for_completion(&root.done);
	return root.frame.result;
}

/*
 * fib with ws_parallel_invoke() at every call: fib(n - 1) on the caller,
 * fib(n - 2) offered to thieves and, unless stolen, called next.
 */
struct fib_inv {
	struct ws_pool *pool;
	unsigned int n;
	u64 result;
};

static void fib_inv_node(struct fib_inv *f);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(fib_inv);

static BENCH_HOT(fib_inv) void fib_inv_call(void *arg)
{
	struct fib_inv *f = arg;

	if (f->n < 2)
		f->result = f->n;
	else
		fib_inv_node(f);
}

static BENCH_HOT(fib_inv) noinline void fib_inv_node(struct fib_inv *f)
{
	/* Not zeroed, as in fib_node(). */
	struct fib_inv kid[2] __uninitialized;

	kid[0].pool = f->pool;
	kid[0].n = f->n - 1;
	kid[1].pool = f->pool;
	kid[1].n = f->n - 2;
	ws_parallel_invoke(f->pool, fib_inv_call, &kid[0], fib_inv_call,
			   &kid[1]);
	f->result = kid[0].result + kid[1].result;
}

/* The root as a task of the pool, as in fib_pool_run(); the caller sleeps. */
struct fib_inv_root {
	struct ws_task task;
	struct ws_group group;
	struct completion done;
	struct fib_inv f;
};

static BENCH_HOT(fib_inv) struct ws_task *fib_inv_task_fn(struct ws_task *task)
{
	fib_inv_call(&container_of(task, struct fib_inv_root, task)->f);
	return NULL;
}

static void fib_inv_root_done(struct ws_group *group)
{
	complete(&container_of(group, struct fib_inv_root, group)->done);
}

static u64 fib_inv_root_run(struct ws_pool *pool, ws_task_fn fn)
{
	struct fib_inv_root root = { .f = { .pool = pool, .n = fib_n } };

	init_completion(&root.done);
	ws_group_init(&root.group, pool);
	ws_group_set_done(&root.group, fib_inv_root_done);
	ws_task_init(&root.task, fn);
	ws_spawn(&root.group, &root.task);
	wait_for_completion(&root.done);
	return root.f.result;
}

static u64 fib_inv_pool_run(void *arg)
{
	return fib_inv_root_run(arg, fib_inv_task_fn);
}

/*
 * The same with the explicit context: ws_ctx_run() once at the root, the
 * context passed down, ws_ctx_invoke() at every call.
 */
static void fib_ctx_node(struct ws_ctx *ctx, struct fib_inv *f);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(fib_ctx);

static BENCH_HOT(fib_ctx) void fib_ctx_call(struct ws_ctx *ctx, void *arg)
{
	struct fib_inv *f = arg;

	if (f->n < 2)
		f->result = f->n;
	else
		fib_ctx_node(ctx, f);
}

static BENCH_HOT(fib_ctx) noinline void fib_ctx_node(struct ws_ctx *ctx,
						 struct fib_inv *f)
{
	/* Not zeroed, as in fib_node(). */
	struct fib_inv kid[2] __uninitialized;

	kid[0].n = f->n - 1;
	kid[1].n = f->n - 2;
	ws_ctx_invoke(ctx, fib_ctx_call, &kid[0], fib_ctx_call, &kid[1]);
	f->result = kid[0].result + kid[1].result;
}

static BENCH_HOT(fib_ctx) struct ws_task *fib_ctx_task_fn(struct ws_task *task)
{
	struct fib_inv *f = &container_of(task, struct fib_inv_root, task)->f;

	ws_ctx_run(f->pool, fib_ctx_call, f);
	return NULL;
}

static u64 fib_ctx_pool_run(void *arg)
{
	return fib_inv_root_run(arg, fib_ctx_task_fn);
}

/* Calls (= tasks) of the recursive fib(n): 2 * fib(n + 1) - 1. */
static u64 fib_calls(unsigned int n)
{
	u64 a = 0, b = 1, t;

	n++;
	while (n--) {
		t = a + b;
		a = b;
		b = t;
	}
	return 2 * a - 1;
}

/*
 * The workqueue variant.  Blocking joins inside work items would need one
 * kworker per waiting call (and deadlock at max_active), so a join is an
 * atomic counter: the last child to finish sums and finishes its parent;
 * the root's completion wakes the caller.  Nodes come from an array.
 */
struct fib_wq_node {
	struct work_struct work;
	struct fib_wq_node *parent;
	struct fib_wq_node *kid[2];
	atomic_t pending;
	unsigned int n;
	u64 result;
};

struct fib_wq_ctx {
	struct fib_wq_node *nodes;
	atomic_t next;
	u64 nr;
	struct completion done;
};

static struct fib_wq_ctx *fib_wq;

static void fib_wq_finish(struct fib_wq_node *node)
{
	struct fib_wq_node *p;

	while ((p = node->parent)) {
		if (!atomic_dec_and_test(&p->pending))
			return;
		p->result = p->kid[0]->result + p->kid[1]->result;
		node = p;
	}
	complete(&fib_wq->done);
}

static void fib_wq_fn(struct work_struct *work)
{
	struct fib_wq_node *node = container_of(work, struct fib_wq_node, work);
	int i;

	if (node->n < 2) {
		node->result = node->n;
		fib_wq_finish(node);
		return;
	}
	atomic_set(&node->pending, 2);
	for (i = 0; i < 2; i++) {
		struct fib_wq_node *k;

		k = &fib_wq->nodes[atomic_inc_return(&fib_wq->next) - 1];
		k->parent = node;
		k->n = node->n - 1 - i;
		node->kid[i] = k;
		INIT_WORK(&k->work, fib_wq_fn);
		queue_work(bench_wq, &k->work);
	}
}

static u64 fib_wq_run(void *arg)
{
	struct fib_wq_node *root = &fib_wq->nodes[0];

	atomic_set(&fib_wq->next, 1);
	init_completion(&fib_wq->done);
	root->parent = NULL;
	root->n = fib_wq_n;
	INIT_WORK(&root->work, fib_wq_fn);
	queue_work(bench_wq, &root->work);
	wait_for_completion(&fib_wq->done);
	bench_check("fib_wq nodes", atomic_read(&fib_wq->next), fib_wq->nr);
	return root->result;
}

static void fib_wq_free(void)
{
	if (fib_wq)
		kvfree(fib_wq->nodes);
	kfree(fib_wq);
	fib_wq = NULL;
}

static int fib_wq_alloc(void)
{
	fib_wq = kzalloc(sizeof(*fib_wq), GFP_KERNEL);
	if (!fib_wq)
		return -ENOMEM;
	fib_wq->nr = fib_calls(fib_wq_n);
	fib_wq->nodes = kvcalloc(fib_wq->nr, sizeof(*fib_wq->nodes),
				 GFP_KERNEL);
	if (!fib_wq->nodes) {
		fib_wq_free();
		return -ENOMEM;
	}
	return 0;
}

/*
 * Promotion latency: a first call that spins without calling, nested
 * under an outermost call (whose second call goes to an idle worker at
 * once), so that only the heartbeat can offer the second call to the
 * idle workers of the pool.  Returns how long the second call waited,
 * in ns, or 0 if it never started on another thread within a second.
 */
struct promote_root {
	struct ws_task task;
	struct ws_group group;
	struct completion done;
	struct task_struct *owner;
	struct task_struct *right_thread;
	u64 t0;
	u64 t1;
	int started;
};

static void promote_nop(void *arg)
{
}

static void promote_right(void *arg)
{
	struct promote_root *r = arg;

	r->t1 = ktime_get_ns();
	r->right_thread = current;
	/* Pairs with smp_load_acquire() in promote_left(). */
	smp_store_release(&r->started, 1);
}

static void promote_left(void *arg)
{
	struct promote_root *r = arg;
	u64 end;

	r->owner = current;
	r->t0 = ktime_get_ns();
	end = r->t0 + NSEC_PER_SEC;
	/* Pairs with smp_store_release() in promote_right(). */
	while (!smp_load_acquire(&r->started) && ktime_get_ns() < end)
		cpu_relax();
}

static void promote_outer(void *arg)
{
	ws_parallel_invoke(pool_all, promote_left, arg, promote_right, arg);
}

static struct ws_task *promote_task_fn(struct ws_task *task)
{
	ws_parallel_invoke(pool_all, promote_outer,
			   container_of(task, struct promote_root, task),
			   promote_nop, NULL);
	return NULL;
}

static void promote_root_done(struct ws_group *group)
{
	complete(&container_of(group, struct promote_root, group)->done);
}

static u64 promote_once(void)
{
	struct promote_root r = { .started = 0 };

	init_completion(&r.done);
	ws_group_init(&r.group, pool_all);
	ws_group_set_done(&r.group, promote_root_done);
	ws_task_init(&r.task, promote_task_fn);
	ws_spawn(&r.group, &r.task);
	wait_for_completion(&r.done);
	if (r.right_thread == r.owner || r.t1 < r.t0)
		return 0;
	return r.t1 - r.t0;
}

/*
 * Row invoke_promote: base_ns is the heartbeat interval, ws_ns how long
 * the second call waited (median over the rounds); latency_beats is
 * their ratio: about 1 (the outermost call starts the heartbeat just
 * before the first call) plus the wake-up of an idle worker.
 */
static void bench_promote(void)
{
	unsigned int rounds = max(runs, 9U), i, missed = 0;
	struct bench_var *hb = &bench_vars[0], *lat = &bench_vars[1];
	u64 interval = (u64)READ_ONCE(ws_heartbeat_us) * NSEC_PER_USEC;
	struct bench_milli m[3];
	struct bench_ratio q;
	char extra[160];

	if (!interval || ws_pool_nr_workers(pool_all) < 2) {
		pr_info("skip invoke_promote: heartbeat off or one worker\n");
		return;
	}
	bench_var(0, "heartbeat", NULL, NULL, 0);
	bench_var(1, "invoke_promote", NULL, NULL, 0);
	rounds = min_t(unsigned int, rounds, BENCH_MAX_RUNS);
	promote_once();
	for (i = 0; i < rounds; i++) {
		hb->t[i] = interval;
		lat->t[i] = promote_once();
		if (!lat->t[i]) {
			missed++;
			lat->t[i] = NSEC_PER_SEC;
		}
	}
	bench_summary(hb->t, rounds, &hb->st);
	bench_summary(lat->t, rounds, &lat->st);
	/* latency / interval, in thousandths, per round */
	bench_ratio(lat, hb, rounds, &q);
	snprintf(extra, sizeof(extra),
		 "latency_beats=%s latency_beats_range=%s-%s heartbeat_us=%llu missed=%u rounds=%u",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), div64_u64(interval, NSEC_PER_USEC),
		 missed, rounds);
	bench_row("invoke_promote", "heartbeat", hb, lat, rounds, extra);
	if (missed)
		bench_err = -EIO;
}

enum {
	FIB_SERIAL, FIB_T1, FIB_TP, FIB_TP_JOIN, FIB_INV_T1, FIB_INV_TP,
	FIB_CTX_T1, FIB_CTX_TP, FIB_WQ, FIB_NR
};

/*
 * T1 is the 1-worker pool on bench_t1_cpu while the caller sleeps on
 * bench_home; Tp is the default pool, whose workers alone run the tasks
 * while the caller sleeps, so that T1 and Tp differ only in the number of
 * workers.  Tp_join is the default pool with the caller joining it in
 * ws_group_wait(): workers + 1 threads.  The serial run is on the T1 CPU.
 * The invoke variants are T1 and Tp with ws_parallel_invoke() in place of
 * ws_spawn() and ws_group_wait(); the ctx variants the same with
 * ws_ctx_invoke() (the context passed down from one ws_ctx_run()).
 */
static void bench_fib(void)
{
	u64 want = fib_rec(fib_n), tasks = fib_calls(fib_n);
	unsigned int rounds = max(runs, 5U), workers, i, nr = FIB_NR;
	struct bench_var *v = bench_vars;
	struct bench_milli m[3];
	struct bench_ratio q;
	char extra[200];

	BUILD_BUG_ON(FIB_NR > BENCH_MAX_VARS);
	bench_var(FIB_SERIAL, "fib_serial", fib_serial_run, &fib_n,
		  want)->cpu = bench_t1_cpu;
	bench_var(FIB_T1, "fib_t1", fib_pool_run, pool_one, want);
	v[FIB_T1].cpu = bench_home;
	v[FIB_T1].pool = pool_one;
	bench_var(FIB_TP, "fib_tp", fib_pool_run, pool_all, want);
	v[FIB_TP].cpu = bench_home;
	v[FIB_TP].pool = pool_all;
	bench_var(FIB_TP_JOIN, "fib_tp_join", fib_caller_run, pool_all,
		  want)->pool = pool_all;
	bench_var(FIB_INV_T1, "fib_invoke_t1", fib_inv_pool_run, pool_one,
		  want);
	v[FIB_INV_T1].cpu = bench_home;
	v[FIB_INV_T1].pool = pool_one;
	bench_var(FIB_INV_TP, "fib_invoke_tp", fib_inv_pool_run, pool_all,
		  want);
	v[FIB_INV_TP].cpu = bench_home;
	v[FIB_INV_TP].pool = pool_all;
	bench_var(FIB_CTX_T1, "fib_ctx_t1", fib_ctx_pool_run, pool_one, want);
	v[FIB_CTX_T1].cpu = bench_home;
	v[FIB_CTX_T1].pool = pool_one;
	bench_var(FIB_CTX_TP, "fib_ctx_tp", fib_ctx_pool_run, pool_all, want);
	v[FIB_CTX_TP].cpu = bench_home;
	v[FIB_CTX_TP].pool = pool_all;
	bench_var(FIB_WQ, "fib_wq", fib_wq_run, NULL, fib_rec(fib_wq_n));
	if (fib_wq_alloc()) {
		pr_err("fib: no memory for the workqueue variant\n");
		bench_err = -ENOMEM;
		nr = FIB_WQ;
	}
	bench_rounds(v, nr, rounds);
	fib_wq_free();
	workers = ws_pool_nr_workers(pool_all);
	bench_print_stats("fib_t1", &v[FIB_T1], rounds);
	bench_print_stats("fib_tp", &v[FIB_TP], rounds);
	bench_print_stats("fib_tp_join", &v[FIB_TP_JOIN], rounds);
	bench_print_stats("fib_invoke_t1", &v[FIB_INV_T1], rounds);
	bench_print_stats("fib_invoke_tp", &v[FIB_INV_TP], rounds);
	bench_print_stats("fib_ctx_t1", &v[FIB_CTX_T1], rounds);
	bench_print_stats("fib_ctx_tp", &v[FIB_CTX_TP], rounds);

	bench_ratio(&v[FIB_T1], &v[FIB_SERIAL], rounds, &q);
	snprintf(extra, sizeof(extra),
		 "t1/tserial=%s t1/tserial_range=%s-%s n=%u tasks=%llu ns_per_task=%llu cpu=%d",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), fib_n, tasks,
		 div64_u64(v[FIB_T1].st.med, tasks), bench_t1_cpu);
	bench_row("fib_t1", "serial", &v[FIB_SERIAL], &v[FIB_T1], rounds,
		  extra);

	snprintf(extra, sizeof(extra),
		 "n=%u tasks=%llu ns_per_task=%llu workers=%u", fib_n, tasks,
		 div64_u64(v[FIB_TP].st.med * workers, tasks), workers);
	bench_row("fib_tp", "serial", &v[FIB_SERIAL], &v[FIB_TP], rounds,
		  extra);

	bench_ratio(&v[FIB_T1], &v[FIB_TP], rounds, &q);
	snprintf(extra, sizeof(extra), "iqr=%s-%s rounds=%u workers=%u",
		 bench_milli(&m[0], q.q1), bench_milli(&m[1], q.q3), rounds,
		 workers);
	bench_row("fib_speedup", "ws_1worker", &v[FIB_T1], &v[FIB_TP],
		  rounds, extra);

	bench_ratio(&v[FIB_T1], &v[FIB_TP_JOIN], rounds, &q);
	snprintf(extra, sizeof(extra),
		 "iqr=%s-%s threads=%u compensated=%llu",
		 bench_milli(&m[0], q.q1), bench_milli(&m[1], q.q3),
		 workers + 1, v[FIB_TP_JOIN].stats.compensated);
	bench_row("fib_speedup_join", "ws_1worker", &v[FIB_T1],
		  &v[FIB_TP_JOIN], rounds, extra);

	bench_ratio(&v[FIB_INV_T1], &v[FIB_SERIAL], rounds, &q);
	snprintf(extra, sizeof(extra),
		 "t1/tserial=%s t1/tserial_range=%s-%s n=%u calls=%llu ns_per_call=%llu",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), fib_n, tasks,
		 div64_u64(v[FIB_INV_T1].st.med, tasks));
	bench_row("fib_invoke_t1", "serial", &v[FIB_SERIAL], &v[FIB_INV_T1],
		  rounds, extra);

	bench_ratio(&v[FIB_INV_T1], &v[FIB_INV_TP], rounds, &q);
	snprintf(extra, sizeof(extra), "iqr=%s-%s rounds=%u workers=%u",
		 bench_milli(&m[0], q.q1), bench_milli(&m[1], q.q3), rounds,
		 workers);
	bench_row("fib_invoke_speedup", "ws_1worker", &v[FIB_INV_T1],
		  &v[FIB_INV_TP], rounds, extra);

	bench_ratio(&v[FIB_CTX_T1], &v[FIB_SERIAL], rounds, &q);
	snprintf(extra, sizeof(extra),
		 "t1/tserial=%s t1/tserial_range=%s-%s n=%u calls=%llu ns_per_call=%llu",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), fib_n, tasks,
		 div64_u64(v[FIB_CTX_T1].st.med, tasks));
	bench_row("fib_ctx_t1", "serial", &v[FIB_SERIAL], &v[FIB_CTX_T1],
		  rounds, extra);

	/* The same calls, one API against the other, in the same rounds. */
	snprintf(extra, sizeof(extra),
		 "ctx_ns_per_call=%llu invoke_ns_per_call=%llu",
		 div64_u64(v[FIB_CTX_T1].st.med, tasks),
		 div64_u64(v[FIB_INV_T1].st.med, tasks));
	bench_row("fib_ctx_vs_invoke", "invoke_t1", &v[FIB_INV_T1],
		  &v[FIB_CTX_T1], rounds, extra);

	bench_ratio(&v[FIB_CTX_T1], &v[FIB_CTX_TP], rounds, &q);
	snprintf(extra, sizeof(extra), "iqr=%s-%s rounds=%u workers=%u",
		 bench_milli(&m[0], q.q1), bench_milli(&m[1], q.q3), rounds,
		 workers);
	bench_row("fib_ctx_speedup", "ws_1worker", &v[FIB_CTX_T1],
		  &v[FIB_CTX_TP], rounds, extra);

	if (nr > FIB_WQ) {
		u64 big = fib_calls(fib_n), small = fib_calls(fib_wq_n);

		/* Scale fib(fib_wq_n) to fib(fib_n) by the number of calls. */
		for (i = 0; i < rounds; i++)
			v[FIB_WQ].t[i] = div64_u64(v[FIB_WQ].t[i] * big, small);
		bench_summary(v[FIB_WQ].t, rounds, &v[FIB_WQ].st);
		snprintf(extra, sizeof(extra),
			 "n=%u wq_n=%u scaled=1 wq_ns_per_task=%llu", fib_n,
			 fib_wq_n, div64_u64(v[FIB_WQ].st.med, tasks));
		bench_row("fib_wq", "workqueue", &v[FIB_WQ], &v[FIB_TP],
			  rounds, extra);
		bench_row("fib_invoke_wq", "workqueue", &v[FIB_WQ],
			  &v[FIB_INV_TP], rounds, extra);
	}
}

/*
 * The root call of an invoke row as a task of @pool, as in
 * fib_inv_pool_run(): the caller sleeps on a completion, so that the T1
 * and Tp variants differ only in the number of workers, and every call
 * runs on a worker of the pool (a thread that joins for the call would
 * push every second call, design.rst "Parallel invoke").
 */
struct inv_root {
	struct ws_task task;
	struct ws_group group;
	struct completion done;
	ws_invoke_fn fn;
	void *arg;
};

static struct ws_task *inv_root_task_fn(struct ws_task *task)
{
	struct inv_root *r = container_of(task, struct inv_root, task);

	r->fn(r->arg);
	return NULL;
}

static void inv_root_done(struct ws_group *group)
{
	complete(&container_of(group, struct inv_root, group)->done);
}

static void inv_root_run(struct ws_pool *pool, ws_invoke_fn fn, void *arg)
{
	struct inv_root root = { .fn = fn, .arg = arg };

	init_completion(&root.done);
	ws_group_init(&root.group, pool);
	ws_group_set_done(&root.group, inv_root_done);
	ws_task_init(&root.task, inv_root_task_fn);
	ws_spawn(&root.group, &root.task);
	wait_for_completion(&root.done);
}

/* ---- nqueens: one task per placement ----------------------------- */

struct nq_frame {
	struct ws_task task;
	u32 cols, d1, d2;
	u32 row;
	u64 count;
};

BENCH_PAGE_SECTION(nq_serial);

static BENCH_HOT(nq_serial) u64 nq_rec(unsigned int n, u32 row, u32 cols,
				       u32 d1, u32 d2)
{
	u32 all = (1U << n) - 1, avail, bit;
	u64 count = 0;

	if (row == n)
		return 1;
	avail = all & ~(cols | d1 | d2);
	while (avail) {
		bit = avail & -avail;
		avail &= avail - 1;
		count += nq_rec(n, row + 1, cols | bit, (d1 | bit) << 1,
				(d2 | bit) >> 1);
	}
	return count;
}

static void nq_node(struct nq_frame *f);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(nq);

static BENCH_HOT(nq) void nq_call(struct nq_frame *f)
{
	if (f->row == nq_n)
		f->count = 1;
	else
		nq_node(f);
}

static BENCH_HOT(nq) struct ws_task *nq_task_fn(struct ws_task *task)
{
	nq_call(container_of(task, struct nq_frame, task));
	return NULL;
}

static BENCH_HOT(nq) noinline void nq_node(struct nq_frame *f)
{
	/* Not zeroed, as in fib_node(). */
	struct nq_frame kid[NQ_MAX] __uninitialized;
	u32 all = (1U << nq_n) - 1, avail, bit;
	struct ws_group group __uninitialized;
	int i, nr = 0;

	f->count = 0;
	ws_group_init(&group, pool_all);
	avail = all & ~(f->cols | f->d1 | f->d2);
	while (avail) {
		bit = avail & -avail;
		avail &= avail - 1;
		kid[nr].row = f->row + 1;
		kid[nr].cols = f->cols | bit;
		kid[nr].d1 = (f->d1 | bit) << 1;
		kid[nr].d2 = (f->d2 | bit) >> 1;
		ws_task_init(&kid[nr].task, nq_task_fn);
		ws_spawn(&group, &kid[nr].task);
		nr++;
	}
	if (ws_group_wait(&group))
		bench_err = -EIO;
	for (i = 0; i < nr; i++)
		f->count += kid[i].count;
}

static u64 nq_serial_run(void *arg)
{
	return nq_rec(nq_n, 0, 0, 0, 0);
}

static u64 nq_ws_run(void *arg)
{
	struct nq_frame root = { .row = 0 };

	nq_call(&root);
	return root.count;
}

/*
 * nqueens with ws_parallel_invoke(), as a Cilk or Rayon user writes a
 * node with a variable number of children: @set holds some of the free
 * columns of row @row (each one a child of the node), more than one are
 * split into two halves by count and forked, and a single column is
 * placed, its node's free columns becoming the set.  A node with k
 * children forks k - 1 times; there is no cutoff.
 */
struct nq_inv {
	struct ws_pool *pool;
	u32 row, cols, d1, d2;
	u32 set;
	u64 count;
};

/*
 * The node's work before its fork: the columns it forks over, two or
 * more, or 0 if it has none (@f->count is set then).
 */
static __always_inline u32 nq_descend(struct nq_inv *f)
{
	u32 all = (1U << nq_n) - 1, set = f->set;

	/* One child: descend into it, without a fork. */
	while (set && !(set & (set - 1))) {
		if (++f->row == nq_n) {
			f->count = 1;
			return 0;
		}
		f->cols |= set;
		f->d1 = (f->d1 | set) << 1;
		f->d2 = (f->d2 | set) >> 1;
		set = all & ~(f->cols | f->d1 | f->d2);
	}
	if (!set)
		f->count = 0;
	return set;
}

/*
 * Halve @set by count: the lower half stays in @f, for the node's own
 * first call, the upper half goes to @kid, a copy of @f, for the second.
 * The first call's count then lands in @f->count.
 */
static __always_inline void nq_halves(struct nq_inv *f, u32 set,
				      struct nq_inv *kid)
{
	u32 rest = set, lo = 0;
	unsigned int i;

	for (i = hweight32(set) / 2; i; i--) {
		lo |= rest & -rest;
		rest &= rest - 1;
	}
	*kid = *f;
	kid->set = rest;
	f->set = lo;
}

static void nq_inv_node(struct nq_inv *f, u32 set);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(nq_inv);

static BENCH_HOT(nq_inv) void nq_inv_call(void *arg)
{
	struct nq_inv *f = arg;
	u32 set = nq_descend(f);

	if (set)
		nq_inv_node(f, set);
}

static BENCH_HOT(nq_inv) noinline void nq_inv_node(struct nq_inv *f, u32 set)
{
	/*
	 * Not zeroed by CONFIG_INIT_STACK_ALL_ZERO (a rep stos at every call,
	 * slow under TCG): copied whole from *f before any use.
	 */
	struct nq_inv kid __uninitialized;

	nq_halves(f, set, &kid);
	ws_parallel_invoke(f->pool, nq_inv_call, f, nq_inv_call, &kid);
	f->count += kid.count;
}

/* The same with the explicit context. */
static void nq_ctx_node(struct ws_ctx *ctx, struct nq_inv *f, u32 set);

BENCH_PAGE_SECTION(nq_ctx);

static BENCH_HOT(nq_ctx) void nq_ctx_call(struct ws_ctx *ctx, void *arg)
{
	struct nq_inv *f = arg;
	u32 set = nq_descend(f);

	if (set)
		nq_ctx_node(ctx, f, set);
}

static BENCH_HOT(nq_ctx) noinline void nq_ctx_node(struct ws_ctx *ctx,
						   struct nq_inv *f, u32 set)
{
	/* As in nq_inv_node(). */
	struct nq_inv kid __uninitialized;

	nq_halves(f, set, &kid);
	ws_ctx_invoke(ctx, nq_ctx_call, f, nq_ctx_call, &kid);
	f->count += kid.count;
}

static u64 nq_inv_run(void *arg)
{
	struct nq_inv root = {
		.pool = arg,
		.set = (1U << nq_n) - 1,
	};

	inv_root_run(arg, nq_inv_call, &root);
	return root.count;
}

static void nq_ctx_root(void *arg)
{
	struct nq_inv *f = arg;

	ws_ctx_run(f->pool, nq_ctx_call, f);
}

static u64 nq_ctx_run(void *arg)
{
	struct nq_inv root = {
		.pool = arg,
		.set = (1U << nq_n) - 1,
	};

	inv_root_run(arg, nq_ctx_root, &root);
	return root.count;
}

/* Forks of nq_inv_call() under a node: k - 1 for its k children, and theirs. */
static u64 nq_forks(unsigned int n, u32 row, u32 cols, u32 d1, u32 d2)
{
	u32 all = (1U << n) - 1, avail, bit;
	u64 forks = 0;

	if (row == n)
		return 0;
	avail = all & ~(cols | d1 | d2);
	if (avail)
		forks = hweight32(avail) - 1;
	while (avail) {
		bit = avail & -avail;
		avail &= avail - 1;
		forks += nq_forks(n, row + 1, cols | bit, (d1 | bit) << 1,
				  (d2 | bit) >> 1);
	}
	return forks;
}

enum { FJ_SERIAL, FJ_WS, FJ_INV_T1, FJ_INV_TP, FJ_CTX_T1, FJ_CTX_TP, FJ_NR };

/*
 * The rows of one fork-join API (@api: "invoke" or "ctx") of a benchmark
 * whose variants are bench_vars[@t1] and bench_vars[@tp]:
 * @name_@api_t1 (serial against the 1-worker pool, with t1/tserial and
 * the cost of a fork over the serial code), @name_@api_tp (serial
 * against all workers) and @name_@api_speedup (T1 / Tp).
 */
static void bench_fj_api_rows(const char *name, const char *api,
			      unsigned int t1, unsigned int tp,
			      const char *what, u64 forks)
{
	struct bench_var *v = bench_vars;
	unsigned int workers = ws_pool_nr_workers(pool_all);
	char row[32], extra[200];
	struct bench_milli m[3];
	struct bench_ratio q;
	u64 over;

	bench_print_stats(v[t1].what, &v[t1], runs);
	bench_print_stats(v[tp].what, &v[tp], runs);

	bench_ratio(&v[t1], &v[FJ_SERIAL], runs, &q);
	over = v[t1].st.med > v[FJ_SERIAL].st.med ?
	       v[t1].st.med - v[FJ_SERIAL].st.med : 0;
	snprintf(extra, sizeof(extra),
		 "t1/tserial=%s t1/tserial_range=%s-%s %s forks=%llu extra_ns_per_fork=%llu cpu=%d",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), what, forks,
		 forks ? div64_u64(over, forks) : 0, bench_t1_cpu);
	snprintf(row, sizeof(row), "%s_%s_t1", name, api);
	bench_row(row, "serial", &v[FJ_SERIAL], &v[t1], runs, extra);

	snprintf(extra, sizeof(extra), "%s forks=%llu workers=%u", what, forks,
		 workers);
	snprintf(row, sizeof(row), "%s_%s_tp", name, api);
	bench_row(row, "serial", &v[FJ_SERIAL], &v[tp], runs, extra);

	bench_ratio(&v[t1], &v[tp], runs, &q);
	snprintf(extra, sizeof(extra), "iqr=%s-%s rounds=%u workers=%u",
		 bench_milli(&m[0], q.q1), bench_milli(&m[1], q.q3), runs,
		 workers);
	snprintf(row, sizeof(row), "%s_%s_speedup", name, api);
	bench_row(row, "ws_1worker", &v[t1], &v[tp], runs, extra);
}

/*
 * The rows of a fork-join benchmark (nqueens, uts) whose variants are
 * set up in bench_vars[FJ_*]: @name against serial (the ws_spawn()
 * variant, unchanged), then the rows of the ws_parallel_invoke()
 * variants (@name_invoke_*) and of the explicit-context ones
 * (@name_ctx_*).  @what describes the problem and its checked result.
 */
static void bench_fj_rows(const char *name, const char *what, u64 forks)
{
	bench_row(name, "serial", &bench_vars[FJ_SERIAL], &bench_vars[FJ_WS],
		  runs, what);
	bench_fj_api_rows(name, "invoke", FJ_INV_T1, FJ_INV_TP, what, forks);
	bench_fj_api_rows(name, "ctx", FJ_CTX_T1, FJ_CTX_TP, what, forks);
}

/*
 * The invoke (or ctx, from @i) variants of a fork-join benchmark: the
 * root as a task of the 1-worker pool (T1, bench_vars[@i]) and of the
 * default pool (Tp, bench_vars[@i + 1]), the caller asleep on
 * bench_home, as for fib_invoke_t1 and fib_invoke_tp.
 */
static void bench_fj_invoke_vars(unsigned int i, const char *t1,
				 const char *tp, u64 (*fn)(void *arg),
				 u64 want)
{
	struct bench_var *v;

	v = bench_var(i, t1, fn, pool_one, want);
	v->cpu = bench_home;
	v->pool = pool_one;
	v = bench_var(i + 1, tp, fn, pool_all, want);
	v->cpu = bench_home;
	v->pool = pool_all;
}

static void bench_nqueens(void)
{
	u64 want = nq_rec(nq_n, 0, 0, 0, 0);
	char what[48];

	BUILD_BUG_ON(FJ_NR > BENCH_MAX_VARS);
	bench_var(FJ_SERIAL, "nqueens_serial", nq_serial_run, NULL, want);
	bench_var(FJ_WS, "nqueens_ws", nq_ws_run, NULL, want);
	bench_fj_invoke_vars(FJ_INV_T1, "nqueens_invoke_t1",
			     "nqueens_invoke_tp", nq_inv_run, want);
	bench_fj_invoke_vars(FJ_CTX_T1, "nqueens_ctx_t1", "nqueens_ctx_tp",
			     nq_ctx_run, want);
	bench_rounds(bench_vars, FJ_NR, runs);
	snprintf(what, sizeof(what), "n=%u solutions=%llu", nq_n, want);
	bench_fj_rows("nqueens", what, nq_forks(nq_n, 0, 0, 0, 0));
}

/* ---- heartbeat: what the promotions cost a worker alone ----------- */

enum {
	HB_FIB_ON, HB_FIB_OFF, HB_NQ_ON, HB_NQ_OFF, HB_SPAWN_ON, HB_SPAWN_OFF,
	HB_NR
};

/*
 * Rows heartbeat_cost_fib and heartbeat_cost_nqueens: fib_ctx_t1's and
 * nqueens_ctx_t1's calls on the 1-worker pool with the heartbeat at its
 * interval (ws_ns) and off (base_ns, heartbeat_us 0 for the run), in the
 * same rounds; heartbeat_cost_spawn the same for fib_t1's ws_spawn()
 * tasks, kept latent.  The worker has nobody to hand a promoted frame
 * or task to, so the difference is what the beats cost: the timer
 * interrupt, and any promotion and the owner taking it back.  on/off
 * above 1 is that cost as a share of T1 (the heartbeat's "work bound").
 */
static void bench_heartbeat_row(const char *row, struct bench_var *on,
				struct bench_var *off, unsigned int rounds)
{
	struct bench_milli m[3];
	struct bench_ratio q;
	char extra[160];

	bench_ratio(on, off, rounds, &q);
	snprintf(extra, sizeof(extra),
		 "on/off=%s on/off_range=%s-%s heartbeat_us=%u cpu=%d",
		 bench_milli(&m[0], q.med), bench_milli(&m[1], q.min),
		 bench_milli(&m[2], q.max), READ_ONCE(ws_heartbeat_us),
		 bench_t1_cpu);
	bench_row(row, "hb_off", off, on, rounds, extra);
}

static void bench_heartbeat(void)
{
	u64 fib_want = fib_rec(fib_n), nq_want = nq_rec(nq_n, 0, 0, 0, 0);
	unsigned int rounds = max(runs, 5U), i;
	struct bench_var *v = bench_vars;

	if (!READ_ONCE(ws_heartbeat_us)) {
		pr_info("skip heartbeat_cost: heartbeat off\n");
		return;
	}
	BUILD_BUG_ON(HB_NR > BENCH_MAX_VARS);
	bench_var(HB_FIB_ON, "fib_ctx_t1_hb", fib_ctx_pool_run, pool_one,
		  fib_want);
	bench_var(HB_FIB_OFF, "fib_ctx_t1_nohb", fib_ctx_pool_run, pool_one,
		  fib_want)->heartbeat_off = true;
	bench_var(HB_NQ_ON, "nqueens_ctx_t1_hb", nq_ctx_run, pool_one,
		  nq_want);
	bench_var(HB_NQ_OFF, "nqueens_ctx_t1_nohb", nq_ctx_run, pool_one,
		  nq_want)->heartbeat_off = true;
	bench_var(HB_SPAWN_ON, "fib_t1_hb", fib_pool_run, pool_one, fib_want);
	bench_var(HB_SPAWN_OFF, "fib_t1_nohb", fib_pool_run, pool_one,
		  fib_want)->heartbeat_off = true;
	for (i = 0; i < HB_NR; i++) {
		v[i].cpu = bench_home;
		v[i].pool = pool_one;
	}
	bench_rounds(v, HB_NR, rounds);
	bench_heartbeat_row("heartbeat_cost_fib", &v[HB_FIB_ON],
			    &v[HB_FIB_OFF], rounds);
	bench_heartbeat_row("heartbeat_cost_nqueens", &v[HB_NQ_ON],
			    &v[HB_NQ_OFF], rounds);
	bench_heartbeat_row("heartbeat_cost_spawn", &v[HB_SPAWN_ON],
			    &v[HB_SPAWN_OFF], rounds);
}

/* ---- UTS-style unbalanced tree ----------------------------------- */

/* Hash of a node's child @i: the tree is the same on every run. */
static u32 uts_mix(u32 h, u32 i)
{
	u32 x = h ^ (i * 0x9e3779b9U);

	x ^= x >> 16;
	x *= 0x7feb352dU;
	x ^= x >> 15;
	x *= 0x846ca68bU;
	x ^= x >> 16;
	return x;
}

/*
 * Children of a node: the root has UTS_ROOT_KIDS, below it a geometric
 * count (each 2-bit digit of the hash nonzero continues, p = 3/4, capped
 * at UTS_MAX_KIDS), none at the depth limit.
 */
static u32 uts_kids(u32 h, u32 depth)
{
	u32 k = 0;

	if (!depth)
		return UTS_ROOT_KIDS;
	if (depth >= uts_depth)
		return 0;
	while (k < UTS_MAX_KIDS && ((h >> (2 * k)) & 3))
		k++;
	return k;
}

BENCH_PAGE_SECTION(uts_serial);

static BENCH_HOT(uts_serial) u64 uts_rec(u32 h, u32 depth)
{
	u32 i, k = uts_kids(h, depth);
	u64 nodes = 1;

	for (i = 0; i < k; i++)
		nodes += uts_rec(uts_mix(h, i), depth + 1);
	return nodes;
}

struct uts_frame {
	struct ws_task task;
	u32 hash;
	u32 depth;
	u64 nodes;
};

static void uts_node(struct uts_frame *f, u32 k);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(uts);

static BENCH_HOT(uts) void uts_call(struct uts_frame *f)
{
	u32 k = uts_kids(f->hash, f->depth);

	if (k)
		uts_node(f, k);
	else
		f->nodes = 1;
}

static BENCH_HOT(uts) struct ws_task *uts_task_fn(struct ws_task *task)
{
	uts_call(container_of(task, struct uts_frame, task));
	return NULL;
}

/* The node @f, with @k children. */
static BENCH_HOT(uts) noinline void uts_node(struct uts_frame *f, u32 k)
{
	/* Not zeroed, as in fib_node(). */
	struct uts_frame kid[UTS_MAX_KIDS] __uninitialized;
	struct ws_group group __uninitialized;
	u32 i, j, nr;

	f->nodes = 1;
	/* The root's wide fan-out goes in batches to bound the frame. */
	for (i = 0; i < k; i += nr) {
		nr = min_t(u32, k - i, UTS_MAX_KIDS);
		ws_group_init(&group, pool_all);
		for (j = 0; j < nr; j++) {
			kid[j].hash = uts_mix(f->hash, i + j);
			kid[j].depth = f->depth + 1;
			ws_task_init(&kid[j].task, uts_task_fn);
			ws_spawn(&group, &kid[j].task);
		}
		if (ws_group_wait(&group))
			bench_err = -EIO;
		for (j = 0; j < nr; j++)
			f->nodes += kid[j].nodes;
	}
}

#define UTS_SEED 0x12345U

static u64 uts_serial_run(void *arg)
{
	return uts_rec(UTS_SEED, 0);
}

static u64 uts_ws_run(void *arg)
{
	struct uts_frame root = { .hash = UTS_SEED, .depth = 0 };

	uts_call(&root);
	return root.nodes;
}

/*
 * UTS with ws_parallel_invoke(): the children [@lo, @hi) of the node
 * (@hash, @depth), more than one split into two halves and forked, a
 * single one visited, its own children becoming the range.  @nodes counts
 * the nodes of the range's subtrees.  No cutoff, as in nq_inv_call().
 */
struct uts_inv {
	struct ws_pool *pool;
	u32 hash, depth;
	u32 lo, hi;
	u64 nodes;
};

/*
 * The range's work before its fork: descend through single children,
 * and return the nodes visited on the way.  The range left in @f then
 * has two or more children to fork over, or none.
 */
static __always_inline u64 uts_descend(struct uts_inv *f)
{
	u64 nodes = 0;

	/* One child: descend into it, without a fork. */
	while (f->hi - f->lo == 1) {
		f->hash = uts_mix(f->hash, f->lo);
		f->depth++;
		f->lo = 0;
		f->hi = uts_kids(f->hash, f->depth);
		nodes++;
	}
	return nodes;
}

/*
 * Halve the range: the lower half stays in @f, for the node's own first
 * call, the upper half goes to @kid, a copy of @f, for the second.  The
 * first call's count then lands in @f->nodes.
 */
static __always_inline void uts_halves(struct uts_inv *f, struct uts_inv *kid)
{
	u32 mid = f->lo + (f->hi - f->lo) / 2;

	*kid = *f;
	kid->lo = mid;
	f->hi = mid;
}

static void uts_inv_node(struct uts_inv *f, u64 nodes);

/* The leaf test, then the node, as in fib_call(). */
BENCH_PAGE_SECTION(uts_inv);

static BENCH_HOT(uts_inv) void uts_inv_call(void *arg)
{
	struct uts_inv *f = arg;
	u64 nodes = uts_descend(f);

	if (f->hi == f->lo)
		f->nodes = nodes;
	else
		uts_inv_node(f, nodes);
}

static BENCH_HOT(uts_inv) noinline void uts_inv_node(struct uts_inv *f,
						    u64 nodes)
{
	/*
	 * Not zeroed by CONFIG_INIT_STACK_ALL_ZERO (a rep stos at every call,
	 * slow under TCG): copied whole from *f before any use.
	 */
	struct uts_inv kid __uninitialized;

	uts_halves(f, &kid);
	ws_parallel_invoke(f->pool, uts_inv_call, f, uts_inv_call, &kid);
	f->nodes += nodes + kid.nodes;
}

/* The same with the explicit context. */
static void uts_ctx_node(struct ws_ctx *ctx, struct uts_inv *f, u64 nodes);

BENCH_PAGE_SECTION(uts_ctx);

static BENCH_HOT(uts_ctx) void uts_ctx_call(struct ws_ctx *ctx, void *arg)
{
	struct uts_inv *f = arg;
	u64 nodes = uts_descend(f);

	if (f->hi == f->lo)
		f->nodes = nodes;
	else
		uts_ctx_node(ctx, f, nodes);
}

static BENCH_HOT(uts_ctx) noinline void uts_ctx_node(struct ws_ctx *ctx,
						    struct uts_inv *f,
						    u64 nodes)
{
	/* As in uts_inv_node(). */
	struct uts_inv kid __uninitialized;

	uts_halves(f, &kid);
	ws_ctx_invoke(ctx, uts_ctx_call, f, uts_ctx_call, &kid);
	f->nodes += nodes + kid.nodes;
}

static u64 uts_inv_run(void *arg)
{
	struct uts_inv root = {
		.pool = arg,
		.hash = UTS_SEED,
		.hi = uts_kids(UTS_SEED, 0),
	};

	inv_root_run(arg, uts_inv_call, &root);
	return root.nodes + 1;
}

static void uts_ctx_root(void *arg)
{
	struct uts_inv *f = arg;

	ws_ctx_run(f->pool, uts_ctx_call, f);
}

static u64 uts_ctx_run(void *arg)
{
	struct uts_inv root = {
		.pool = arg,
		.hash = UTS_SEED,
		.hi = uts_kids(UTS_SEED, 0),
	};

	inv_root_run(arg, uts_ctx_root, &root);
	return root.nodes + 1;
}

/* Forks of uts_inv_call() under a node: k - 1 for its k children, and theirs. */
static u64 uts_forks(u32 h, u32 depth)
{
	u32 i, k = uts_kids(h, depth);
	u64 forks = k ? k - 1 : 0;

	for (i = 0; i < k; i++)
		forks += uts_forks(uts_mix(h, i), depth + 1);
	return forks;
}

static void bench_uts(void)
{
	u64 want = uts_rec(UTS_SEED, 0);
	char what[48];

	bench_var(FJ_SERIAL, "uts_serial", uts_serial_run, NULL, want);
	bench_var(FJ_WS, "uts_ws", uts_ws_run, NULL, want);
	bench_fj_invoke_vars(FJ_INV_T1, "uts_invoke_t1", "uts_invoke_tp",
			     uts_inv_run, want);
	bench_fj_invoke_vars(FJ_CTX_T1, "uts_ctx_t1", "uts_ctx_tp",
			     uts_ctx_run, want);
	bench_rounds(bench_vars, FJ_NR, runs);
	snprintf(what, sizeof(what), "depth=%u nodes=%llu", uts_depth, want);
	bench_fj_rows("uts", what, uts_forks(UTS_SEED, 0));
}

/* ---- crc32c over a vmalloc buffer -------------------------------- */

static u8 *crc_buf;
static size_t crc_size;

static u64 crc_chunk(unsigned long begin, unsigned long end, void *arg)
{
	return __crc32c_le(0, crc_buf + begin, end - begin);
}

static u64 crc_join(u64 left, u64 right, unsigned long right_begin,
		    unsigned long right_end, void *arg)
{
	return __crc32c_le_shift(left, right_end - right_begin) ^ (u32)right;
}

static const struct ws_reduce_ops crc_ops = {
	.body = crc_chunk,
	.combine = crc_join,
	.identity = 0,
};

static u64 crc_serial_run(void *arg)
{
	return __crc32c_le(0, crc_buf, crc_size);
}

static u64 crc_ws_run(void *arg)
{
	u64 raw = 0;

	if (ws_parallel_reduce(pool_all, 0, crc_size, CRC_GRAIN, &crc_ops,
			       NULL, &raw))
		bench_err = -EIO;
	return raw;
}

struct crc_work {
	struct work_struct work;
	size_t begin, end;
	u32 crc;
};

static void crc_work_fn(struct work_struct *work)
{
	struct crc_work *w = container_of(work, struct crc_work, work);

	w->crc = __crc32c_le(0, crc_buf + w->begin, w->end - w->begin);
}

/* One work item per online CPU on the unbound queue, combined in order. */
static u64 crc_wq_run(void *arg)
{
	struct crc_work *w = arg;
	unsigned int i, nr = num_online_cpus();
	u32 crc = 0;

	for (i = 0; i < nr; i++) {
		w[i].begin = crc_size * i / nr;
		w[i].end = crc_size * (i + 1) / nr;
		INIT_WORK(&w[i].work, crc_work_fn);
		queue_work(bench_wq, &w[i].work);
	}
	for (i = 0; i < nr; i++) {
		flush_work(&w[i].work);
		crc = __crc32c_le_shift(crc, w[i].end - w[i].begin) ^ w[i].crc;
	}
	return crc;
}

static void crc_fill(void)
{
	u32 x = 0x9e3779b9, *p = (u32 *)crc_buf;
	size_t i;

	for (i = 0; i < crc_size / 4; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = x;
	}
}

static void bench_crc32c(void)
{
	struct bench_var *v = bench_vars;
	struct crc_work *w;
	char extra[48];
	u64 want;

	if (!crc_mb || crc_mb > 1024) {
		pr_err("crc_mb %u out of range\n", crc_mb);
		bench_err = -EINVAL;
		return;
	}
	crc_size = (size_t)crc_mb * SZ_1M;
	crc_buf = vmalloc(crc_size);
	w = kcalloc(num_online_cpus(), sizeof(*w), GFP_KERNEL);
	if (!crc_buf || !w) {
		bench_err = -ENOMEM;
		goto out;
	}
	crc_fill();
	want = crc_serial_run(NULL);
	bench_var(0, "crc32c_serial", crc_serial_run, NULL, want);
	bench_var(1, "crc32c_ws", crc_ws_run, NULL, want);
	bench_var(2, "crc32c_wq", crc_wq_run, w, want);
	bench_rounds(v, 3, runs);
	snprintf(extra, sizeof(extra), "mb=%u crc=0x%08llx", crc_mb, want);
	bench_row("crc32c", "serial", &v[0], &v[1], runs, extra);
	bench_row("crc32c_wq", "wq_static", &v[2], &v[1], runs, extra);
out:
	kfree(w);
	vfree(crc_buf);
	crc_buf = NULL;
}

/* ---- wavefront DAG ----------------------------------------------- */

struct wave_cell {
	struct ws_task task;
	u32 *grid;
	u32 x, y;
};

static struct wave_cell *wave_cells;
static u32 *wave_grid;

/* A tiny body: mix the left and upper neighbours' values. */
static u32 wave_body(const u32 *g, u32 x, u32 y)
{
	u32 left = x ? g[y * wave + x - 1] : y;
	u32 up = y ? g[(y - 1) * wave + x] : x;

	return uts_mix(left ^ (up << 1), x + y);
}

static struct ws_task *wave_task_fn(struct ws_task *task)
{
	struct wave_cell *c = container_of(task, struct wave_cell, task);

	c->grid[c->y * wave + c->x] = wave_body(c->grid, c->x, c->y);
	return NULL;
}

static u64 wave_sum(const u32 *g)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < wave * wave; i++)
		sum = sum * 31 + g[i];
	return sum;
}

static u64 wave_serial_run(void *arg)
{
	u32 *g = arg, x, y;

	for (y = 0; y < wave; y++)
		for (x = 0; x < wave; x++)
			g[y * wave + x] = wave_body(g, x, y);
	return wave_sum(g);
}

/* Build the graph (edges allocated here, freed as tasks finish), run it. */
static u64 wave_ws_run(void *arg)
{
	struct ws_group group;
	struct wave_cell *c;
	u32 x, y;

	memset(wave_grid, 0, wave * wave * sizeof(*wave_grid));
	for (y = 0; y < wave; y++) {
		for (x = 0; x < wave; x++) {
			c = &wave_cells[y * wave + x];
			c->grid = wave_grid;
			c->x = x;
			c->y = y;
			ws_task_init(&c->task, wave_task_fn);
			if ((x && ws_task_precede(&(c - 1)->task, &c->task,
						  GFP_KERNEL)) ||
			    (y && ws_task_precede(&(c - wave)->task, &c->task,
						  GFP_KERNEL)))
				bench_err = -ENOMEM;
		}
	}
	ws_group_init(&group, pool_all);
	for (x = 0; x < wave * wave; x++)
		ws_spawn(&group, &wave_cells[x].task);
	if (ws_group_wait(&group))
		bench_err = -EIO;
	return wave_sum(wave_grid);
}

static void bench_wavefront(void)
{
	struct bench_var *v = bench_vars;
	char extra[32];
	u64 want;
	u32 *g;

	if (!wave || wave > WAVE_MAX) {
		pr_err("wave %u out of range\n", wave);
		bench_err = -EINVAL;
		return;
	}
	g = vmalloc(array_size(wave * wave, sizeof(*g)));
	wave_grid = vmalloc(array_size(wave * wave, sizeof(*wave_grid)));
	wave_cells = vmalloc(array_size(wave * wave, sizeof(*wave_cells)));
	if (!g || !wave_grid || !wave_cells) {
		bench_err = -ENOMEM;
		goto out;
	}
	want = wave_serial_run(g);
	bench_var(0, "wavefront_serial", wave_serial_run, g, want);
	bench_var(1, "wavefront_ws", wave_ws_run, NULL, want);
	bench_rounds(v, 2, runs);
	snprintf(extra, sizeof(extra), "w=%u cells=%u", wave, wave * wave);
	bench_row("wavefront", "serial", &v[0], &v[1], runs, extra);
out:
	vfree(wave_cells);
	vfree(wave_grid);
	vfree(g);
	wave_cells = NULL;
	wave_grid = NULL;
}

static void bench_destroy(void)
{
	if (bench_wq)
		destroy_workqueue(bench_wq);
	ws_pool_destroy(pool_one);
	ws_pool_destroy(pool_all);
	free_cpumask_var(bench_mask);
}

static int __init wsched_bench_init(void)
{
	struct ws_pool_attrs one = { .max_workers = 1 };
	int ret;

	if (!runs || runs > BENCH_MAX_RUNS || fib_n > FIB_MAX ||
	    fib_wq_n > fib_n || nq_n < 1 || nq_n > NQ_MAX) {
		pr_err("bad parameters\n");
		return -EINVAL;
	}
	if (!alloc_cpumask_var(&bench_mask, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(bench_mask, current->cpus_ptr);
	bench_home = cpumask_first(cpu_online_mask);
	bench_t1_cpu = cpumask_last(cpu_online_mask);

	pool_all = ws_pool_create("bench");
	/* One worker, on a CPU of its own while the caller waits. */
	one.cpumask = cpumask_of(bench_t1_cpu);
	pool_one = ws_pool_create_attrs("bench1", &one);
	bench_wq = alloc_workqueue("wsched_bench", WQ_UNBOUND, 0);
	ret = IS_ERR(pool_all) ? PTR_ERR(pool_all) :
	      IS_ERR(pool_one) ? PTR_ERR(pool_one) : bench_wq ? 0 : -ENOMEM;
	if (ret) {
		bench_destroy();
		return ret;
	}
	pr_info("start cpus=%u workers=%u runs=%u home_cpu=%d t1_cpu=%d\n",
		num_online_cpus(), ws_pool_nr_workers(pool_all), runs,
		bench_home, bench_t1_cpu);

	if (bench_selected("fib")) {
		bench_fib();
		bench_promote();
	}
	if (bench_selected("heartbeat"))
		bench_heartbeat();
	if (bench_selected("nqueens"))
		bench_nqueens();
	if (bench_selected("uts"))
		bench_uts();
	if (bench_selected("crc32c"))
		bench_crc32c();
	if (bench_selected("wavefront"))
		bench_wavefront();

	bench_destroy();
	pr_info("done status=%d\n", bench_err);
	return bench_err;
}

static void __exit wsched_bench_exit(void)
{
}

module_init(wsched_bench_init);
module_exit(wsched_bench_exit);

MODULE_DESCRIPTION("wsched benchmarks against same-run baselines");
MODULE_LICENSE("GPL");
