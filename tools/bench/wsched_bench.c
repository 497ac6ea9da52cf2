// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_bench: benchmarks of the public wsched API against baselines
 * measured in the same run.
 *
 * On load it runs each selected benchmark @runs times and prints one
 * line per result on the kernel log:
 *
 *   wsched_bench: row name=<bench> baseline=<what> base_ns=<median>
 *     ws_ns=<median> ratio=<base/ws> min=<ws min> max=<ws max> ...
 *
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
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>

#define BENCH_MAX_RUNS	31
#define FIB_MAX		32
#define NQ_MAX		11
#define UTS_MAX_KIDS	8
#define UTS_ROOT_KIDS	64
#define WAVE_MAX	512
#define CRC_GRAIN	SZ_64K

static char *only = "";
module_param(only, charp, 0444);
MODULE_PARM_DESC(only, "Comma list of benchmarks (fib,nqueens,uts,crc32c,wavefront); empty for all");

static unsigned int runs = 5;
module_param(runs, uint, 0444);
MODULE_PARM_DESC(runs, "Runs of each variant (1 to 31, default 5)");

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

/* Median, min and max of one variant's run times. */
struct bench_stat {
	u64 med;
	u64 min;
	u64 max;
};

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Time @fn(@arg) @runs times; the result of each run goes to @res. */
static void bench_time(u64 (*fn)(void *arg), void *arg, u64 *res,
		       struct bench_stat *st)
{
	u64 t[BENCH_MAX_RUNS];
	unsigned int i;

	for (i = 0; i < runs; i++) {
		u64 t0 = ktime_get_ns();

		*res = fn(arg);
		t[i] = ktime_get_ns() - t0;
		cond_resched();
	}
	sort(t, runs, sizeof(t[0]), cmp_u64, NULL);
	st->med = t[runs / 2];
	st->min = t[0];
	st->max = t[runs - 1];
}

static void bench_check(const char *name, u64 got, u64 want)
{
	if (got == want)
		return;
	pr_err("%s: result %llu, expected %llu MISMATCH\n", name, got, want);
	bench_err = -EIO;
}

static void bench_row(const char *name, const char *baseline,
		      const struct bench_stat *base,
		      const struct bench_stat *ws, const char *extra)
{
	u64 milli = ws->med ? div64_u64(base->med * 1000, ws->med) : 0;

	pr_info("row name=%s baseline=%s base_ns=%llu ws_ns=%llu ratio=%llu.%03llu min=%llu max=%llu base_min=%llu base_max=%llu%s%s\n",
		name, baseline, base->med, ws->med, milli / 1000, milli % 1000,
		ws->min, ws->max, base->min, base->max, extra[0] ? " " : "",
		extra);
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

/* ---- fib: one task per call, no cutoff ---------------------------- */

struct fib_frame {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int n;
	u64 result;
};

static void fib_call(struct fib_frame *f);

static struct ws_task *fib_task_fn(struct ws_task *task)
{
	fib_call(container_of(task, struct fib_frame, task));
	return NULL;
}

static void fib_call(struct fib_frame *f)
{
	struct fib_frame kid[2];
	struct ws_group group;
	int i;

	if (f->n < 2) {
		f->result = f->n;
		return;
	}
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

static noinline u64 fib_rec(unsigned int n)
{
	return n < 2 ? n : fib_rec(n - 1) + fib_rec(n - 2);
}

static u64 fib_serial_run(void *arg)
{
	return fib_rec(*(unsigned int *)arg);
}

static u64 fib_ws_run(void *arg)
{
	struct fib_frame root = { .pool = arg, .n = fib_n };

	fib_call(&root);
	return root.result;
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
	return root->result;
}

/* Scale a time for fib(fib_wq_n) to fib(fib_n) by calls. */
static void fib_scale(struct bench_stat *st)
{
	u64 big = fib_calls(fib_n), small = fib_calls(fib_wq_n);

	st->med = div64_u64(st->med * big, small);
	st->min = div64_u64(st->min * big, small);
	st->max = div64_u64(st->max * big, small);
}

static void bench_fib(void)
{
	struct bench_stat ser, one, all, wq = { 0 };
	struct ws_pool_stats s0, s1;
	u64 want = fib_rec(fib_n), res, tasks = fib_calls(fib_n);
	char extra[160];
	bool have_wq = false;

	bench_time(fib_serial_run, &fib_n, &res, &ser);
	bench_check("fib serial", res, want);
	bench_time(fib_ws_run, pool_one, &res, &one);
	bench_check("fib 1 worker", res, want);
	ws_pool_read_stats(pool_all, &s0);
	bench_time(fib_ws_run, pool_all, &res, &all);
	bench_check("fib all cpus", res, want);
	ws_pool_read_stats(pool_all, &s1);
	pr_info("stats fib all cpus, %u runs: executed=%llu spawned=%llu injected=%llu bypassed=%llu popped=%llu stolen=%llu steal_failed=%llu sleeps=%llu wakeups=%llu\n",
		runs, s1.executed - s0.executed, s1.spawned - s0.spawned,
		s1.injected - s0.injected, s1.bypassed - s0.bypassed,
		s1.popped - s0.popped, s1.stolen - s0.stolen,
		s1.steal_failed - s0.steal_failed, s1.sleeps - s0.sleeps,
		s1.wakeups - s0.wakeups);

	fib_wq = kzalloc(sizeof(*fib_wq), GFP_KERNEL);
	if (fib_wq) {
		fib_wq->nr = fib_calls(fib_wq_n);
		fib_wq->nodes = kvcalloc(fib_wq->nr, sizeof(*fib_wq->nodes),
					 GFP_KERNEL);
	}
	if (fib_wq && fib_wq->nodes) {
		bench_time(fib_wq_run, NULL, &res, &wq);
		bench_check("fib workqueue", res, fib_rec(fib_wq_n));
		bench_check("fib workqueue nodes",
			    atomic_read(&fib_wq->next), fib_wq->nr);
		fib_scale(&wq);
		have_wq = true;
	} else {
		pr_err("fib: no memory for the workqueue variant\n");
		bench_err = -ENOMEM;
	}
	if (fib_wq)
		kvfree(fib_wq->nodes);
	kfree(fib_wq);
	fib_wq = NULL;

	snprintf(extra, sizeof(extra), "n=%u tasks=%llu ns_per_task=%llu",
		 fib_n, tasks, div64_u64(one.med, tasks));
	bench_row("fib_t1", "serial", &ser, &one, extra);
	snprintf(extra, sizeof(extra),
		 "n=%u tasks=%llu ns_per_task=%llu workers=%u", fib_n, tasks,
		 div64_u64(all.med * ws_pool_nr_workers(pool_all), tasks),
		 ws_pool_nr_workers(pool_all));
	bench_row("fib_tp", "serial", &ser, &all, extra);
	bench_row("fib_speedup", "ws_1worker", &one, &all, extra);
	if (have_wq) {
		snprintf(extra, sizeof(extra),
			 "n=%u wq_n=%u scaled=1 wq_ns_per_task=%llu", fib_n,
			 fib_wq_n, div64_u64(wq.med, tasks));
		bench_row("fib_wq", "workqueue", &wq, &all, extra);
	}
}

/* ---- nqueens: one task per placement ----------------------------- */

struct nq_frame {
	struct ws_task task;
	u32 cols, d1, d2;
	u32 row;
	u64 count;
};

static u64 nq_rec(unsigned int n, u32 row, u32 cols, u32 d1, u32 d2)
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

static void nq_call(struct nq_frame *f);

static struct ws_task *nq_task_fn(struct ws_task *task)
{
	nq_call(container_of(task, struct nq_frame, task));
	return NULL;
}

static void nq_call(struct nq_frame *f)
{
	struct nq_frame kid[NQ_MAX];
	u32 all = (1U << nq_n) - 1, avail, bit;
	struct ws_group group;
	int i, nr = 0;

	f->count = 0;
	if (f->row == nq_n) {
		f->count = 1;
		return;
	}
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

static void bench_nqueens(void)
{
	struct bench_stat ser, ws;
	u64 want, res;
	char extra[32];

	bench_time(nq_serial_run, NULL, &want, &ser);
	bench_time(nq_ws_run, NULL, &res, &ws);
	bench_check("nqueens", res, want);
	snprintf(extra, sizeof(extra), "n=%u solutions=%llu", nq_n, want);
	bench_row("nqueens", "serial", &ser, &ws, extra);
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

static u64 uts_rec(u32 h, u32 depth)
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

static void uts_call(struct uts_frame *f);

static struct ws_task *uts_task_fn(struct ws_task *task)
{
	uts_call(container_of(task, struct uts_frame, task));
	return NULL;
}

static void uts_call(struct uts_frame *f)
{
	struct uts_frame kid[UTS_MAX_KIDS];
	u32 i, j, k = uts_kids(f->hash, f->depth), nr;
	struct ws_group group;

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

static void bench_uts(void)
{
	struct bench_stat ser, ws;
	u64 want, res;
	char extra[48];

	bench_time(uts_serial_run, NULL, &want, &ser);
	bench_time(uts_ws_run, NULL, &res, &ws);
	bench_check("uts", res, want);
	snprintf(extra, sizeof(extra), "depth=%u nodes=%llu", uts_depth, want);
	bench_row("uts", "serial", &ser, &ws, extra);
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
	struct bench_stat ser, ws, wq;
	u64 want, res;
	struct crc_work *w;
	char extra[48];

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
	bench_time(crc_serial_run, NULL, &want, &ser);
	bench_time(crc_ws_run, NULL, &res, &ws);
	bench_check("crc32c ws_parallel_reduce", res, want);
	bench_time(crc_wq_run, w, &res, &wq);
	bench_check("crc32c workqueue", res, want);
	snprintf(extra, sizeof(extra), "mb=%u crc=0x%08llx", crc_mb, want);
	bench_row("crc32c", "serial", &ser, &ws, extra);
	bench_row("crc32c_wq", "wq_static", &wq, &ws, extra);
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
	struct bench_stat ser, ws;
	u64 want, res;
	u32 *g;
	char extra[32];

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
	bench_time(wave_serial_run, g, &want, &ser);
	bench_time(wave_ws_run, NULL, &res, &ws);
	bench_check("wavefront", res, want);
	snprintf(extra, sizeof(extra), "w=%u cells=%u", wave, wave * wave);
	bench_row("wavefront", "serial", &ser, &ws, extra);
out:
	vfree(wave_cells);
	vfree(wave_grid);
	vfree(g);
	wave_cells = NULL;
	wave_grid = NULL;
}

static int __init wsched_bench_init(void)
{
	struct ws_pool_attrs one = { .max_workers = 1 };

	if (!runs || runs > BENCH_MAX_RUNS || fib_n > FIB_MAX ||
	    fib_wq_n > fib_n || nq_n < 1 || nq_n > NQ_MAX) {
		pr_err("bad parameters\n");
		return -EINVAL;
	}
	pool_all = ws_pool_create("bench");
	if (IS_ERR_OR_NULL(pool_all))
		return pool_all ? PTR_ERR(pool_all) : -ENOMEM;
	pool_one = ws_pool_create_attrs("bench1", &one);
	if (IS_ERR_OR_NULL(pool_one)) {
		ws_pool_destroy(pool_all);
		return pool_one ? PTR_ERR(pool_one) : -ENOMEM;
	}
	bench_wq = alloc_workqueue("wsched_bench", WQ_UNBOUND, 0);
	if (!bench_wq) {
		ws_pool_destroy(pool_one);
		ws_pool_destroy(pool_all);
		return -ENOMEM;
	}
	pr_info("start cpus=%u workers=%u runs=%u\n", num_online_cpus(),
		ws_pool_nr_workers(pool_all), runs);

	if (bench_selected("fib"))
		bench_fib();
	if (bench_selected("nqueens"))
		bench_nqueens();
	if (bench_selected("uts"))
		bench_uts();
	if (bench_selected("crc32c"))
		bench_crc32c();
	if (bench_selected("wavefront"))
		bench_wavefront();

	destroy_workqueue(bench_wq);
	ws_pool_destroy(pool_one);
	ws_pool_destroy(pool_all);
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
