// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_ubench: user-space benchmarks of /dev/wsched (through libwsched)
 * against baselines measured in the same run: io_uring NOPs through
 * liburing, crc32c computed in user space, and a read -> crc32c -> write
 * chain of io_uring READ_FIXED/WRITE_FIXED with the crc32c in user space
 * against the same chain with the crc32c a wsched graph in the io_uring
 * link chain (uring_chain).
 *
 * Run by tools/bench/guest.sh in the bench guest after wsched.ko is
 * loaded; it prints the same rows as wsched_bench.ko, with its own prefix:
 *
 *   wsched_ubench: row name=<bench> baseline=<what> base_ns=<median>
 *     ws_ns=<median> ratio=<base/ws> min=<ws min> max=<ws max>
 *     base_min=<..> base_max=<..> <notes>
 *
 * Times are per operation (per NOP, per graph round trip, per 64 MiB
 * checksum).  A baseline that cannot run (no liburing at build time, no
 * io_uring or SSE4.2 in the guest) gives a row with base_ns=- ratio=- and
 * a skipped=<why> note.  A checksum that differs between the kernel and
 * user space prints a MISMATCH line and the exit status is 1.
 *
 * Arguments are key=value words; unknown keys are ignored, so the guest
 * can pass the wsbench.* parameters of the kernel command line as they
 * are:
 *   runs=N        runs of each variant, median reported (default 5, <= 31)
 *   only=a,b      nop_ring, diamond_latency, one_graph_wait, random_dag,
 *                 crc32c_user, uring_chain (default all)
 *   crc_mb=N      crc32c buffer in MiB (default 64)
 *   ubench_ms=N   aimed-at length of one timed run of the NOP and diamond
 *                 variants, in ms (default 150)
 *   nop_batch=N   entries per submission of the NOP rows (default 64)
 *   chain_kb=N    bytes read, hashed and written per uring_chain, in KiB
 *                 (default 64)
 *   profile=N     instead of the rows: warm up, then run N batches of the
 *                 nop_ring_graphs variant between two writes of
 *                 /sys/kernel/tracing/tracing_on (guest.sh traces them)
 *
 * tools/bench/run.sh builds it with gcc -O2 -static, together with
 * libwsched.c and checksum.c of tools/libwsched, and with -DHAVE_LIBURING
 * and liburing.a when Debian's liburing-dev is installed.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>
#include <nmmintrin.h>

#include "wsched.h"

#ifdef HAVE_LIBURING
#include <liburing.h>
#endif

#define PFX		"wsched_ubench: "
#define MAX_RUNS	31
#define MAX_BATCH	1024
#define MAX_THREADS	256
#define MIN_ITERS	50
#define MAX_ITERS	200000

static unsigned int runs = 5;
static const char *only = "";
static unsigned int crc_mb = 64;
static unsigned int target_ms = 150;
static unsigned int nop_batch = 64;
static unsigned int chain_kb = 64;
static unsigned int profile;
static int failed;

static void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf(PFX "error: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	fflush(stdout);
	failed = 1;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int selected(const char *name)
{
	size_t len = strlen(name);
	const char *p = only;

	if (!*p)
		return 1;
	while (p) {
		if (!strncmp(p, name, len) && (p[len] == ',' || !p[len]))
			return 1;
		p = strchr(p, ',');
		if (p)
			p++;
	}
	return 0;
}

/* ---- statistics and rows -------------------------------------------- */

/* Per-operation times (ns) of the runs of one variant. */
struct bstat {
	double t[MAX_RUNS];
	unsigned int n;
	int skipped;
	const char *why;
};

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void stat_add(struct bstat *s, double ns)
{
	if (s->n < MAX_RUNS)
		s->t[s->n++] = ns;
}

static double stat_med(struct bstat *s)
{
	qsort(s->t, s->n, sizeof(s->t[0]), cmp_double);
	return s->n ? s->t[s->n / 2] : 0;
}

static void print_ns(const char *key, double ns)
{
	printf(" %s=%.0f", key, ns);
}

/*
 * One row.  @base may be skipped (no baseline in this guest); the wsched
 * side must not be.
 */
static void print_row(const char *name, const char *baseline,
		      struct bstat *base, struct bstat *ws, const char *fmt, ...)
{
	double wm = stat_med(ws), bm = 0;
	int have_base = !base->skipped && base->n;
	va_list ap;

	if (have_base)
		bm = stat_med(base);
	printf(PFX "row name=%s baseline=%s", name, baseline);
	if (have_base)
		print_ns("base_ns", bm);
	else
		printf(" base_ns=-");
	print_ns("ws_ns", wm);
	if (have_base && wm > 0)
		printf(" ratio=%.3f", bm / wm);
	else
		printf(" ratio=-");
	print_ns("min", ws->t[0]);
	print_ns("max", ws->t[ws->n - 1]);
	if (have_base) {
		print_ns("base_min", base->t[0]);
		print_ns("base_max", base->t[base->n - 1]);
	} else {
		printf(" base_min=- base_max=- skipped=%s",
		       base->why ? base->why : "unavailable");
	}
	if (fmt) {
		va_start(ap, fmt);
		printf(" ");
		vprintf(fmt, ap);
		va_end(ap);
	}
	printf("\n");
	fflush(stdout);
}

/* ---- wsched ring helpers ---------------------------------------------- */

/*
 * Reap @n completions, waiting as needed; each must have res 0.  Graph
 * completions must say that @graph_nodes nodes ran (if non-zero).
 * Returns the value of the last node (non-graph) completion seen.
 */
static int reap(struct wsched_ring *ring, unsigned int n,
		unsigned int graph_nodes, __u64 *node_value)
{
	while (n) {
		struct wsched_cqe *cqe;
		unsigned int head, got = 0;
		int ret;

		if (!wsched_cq_ready(ring)) {
			ret = wsched_wait_cqe_nr(ring, &cqe, n);
			if (ret < 0) {
				fail("wsched_wait_cqe_nr: %s", strerror(-ret));
				return ret;
			}
		}
		wsched_for_each_cqe(ring, head, cqe) {
			if (cqe->res) {
				fail("cqe user_data %llu res %d flags %#x",
				     (unsigned long long)cqe->user_data,
				     cqe->res, cqe->flags);
				wsched_cq_advance(ring, got + 1);
				return -EIO;
			}
			if (wsched_cqe_is_graph(cqe)) {
				if (graph_nodes && cqe->value != graph_nodes) {
					fail("graph ran %llu of %u nodes",
					     (unsigned long long)cqe->value,
					     graph_nodes);
					wsched_cq_advance(ring, got + 1);
					return -EIO;
				}
			} else if (node_value) {
				*node_value = cqe->value;
			}
			if (++got == n)
				break;
		}
		wsched_cq_advance(ring, got);
		n -= got;
	}
	return 0;
}

/* Submit what is prepared and wait for @wait completions. */
static int submit_wait(struct wsched_ring *ring, unsigned int entries,
		       unsigned int wait)
{
	int ret = wsched_submit_and_wait(ring, wait);

	if (ret < 0) {
		fail("wsched_submit_and_wait: %s", strerror(-ret));
		return ret;
	}
	if ((unsigned int)ret != entries) {
		fail("submitted %d of %u entries", ret, entries);
		return -EIO;
	}
	return 0;
}

static struct wsched_sqe *get_sqe(struct wsched_ring *ring)
{
	struct wsched_sqe *sqe = wsched_get_sqe(ring);

	if (!sqe)
		fail("SQ full");
	return sqe;
}

/* ---- variants: each runs @iters times, returns 0 or a negative errno -- */

typedef int (*variant_fn)(void *ctx, unsigned int iters);

/* @batch independent one-node graphs (NO_CQE: one graph CQE each). */
static int ws_nop_graphs(void *ctx, unsigned int iters)
{
	struct wsched_ring *ring = ctx;
	unsigned int i, j;

	for (i = 0; i < iters; i++) {
		for (j = 0; j < nop_batch; j++) {
			struct wsched_sqe *sqe = get_sqe(ring);

			if (!sqe)
				return -ENOSPC;
			wsched_prep_nop(sqe);
			wsched_sqe_set_flags(sqe, WSCHED_SQE_NO_CQE |
					     WSCHED_SQE_GRAPH_END);
			wsched_sqe_set_data64(sqe, j);
		}
		if (submit_wait(ring, nop_batch, nop_batch) ||
		    reap(ring, nop_batch, 1, NULL))
			return -EIO;
	}
	return 0;
}

/* One graph of @batch independent NOP nodes (NO_CQE), one graph CQE. */
static int ws_nop_graph(void *ctx, unsigned int iters)
{
	struct wsched_ring *ring = ctx;
	unsigned int i, j;

	for (i = 0; i < iters; i++) {
		struct wsched_sqe *sqe = NULL;

		for (j = 0; j < nop_batch; j++) {
			sqe = get_sqe(ring);
			if (!sqe)
				return -ENOSPC;
			wsched_prep_nop(sqe);
			wsched_sqe_set_no_cqe(sqe);
			wsched_sqe_set_data64(sqe, j);
		}
		wsched_sqe_set_graph_end(sqe);
		if (submit_wait(ring, nop_batch, 1) ||
		    reap(ring, 1, nop_batch, NULL))
			return -EIO;
	}
	return 0;
}

/* Diamond a -> (b, c) -> d, node CQEs off, wait for the graph CQE. */
static int ws_diamond(void *ctx, unsigned int iters)
{
	static const __u32 bc[2] = { 1, 2 };
	struct wsched_ring *ring = ctx;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		struct wsched_sqe *sqe;
		__u32 a;

		sqe = wsched_graph_node(ring, &a);
		if (!sqe)
			return -ENOSPC;
		wsched_prep_nop(sqe);
		wsched_sqe_set_no_cqe(sqe);
		sqe = get_sqe(ring);
		if (!sqe)
			return -ENOSPC;
		wsched_prep_nop(sqe);
		wsched_sqe_set_pred(sqe, a);
		wsched_sqe_set_no_cqe(sqe);
		sqe = get_sqe(ring);
		if (!sqe)
			return -ENOSPC;
		wsched_prep_nop(sqe);
		wsched_sqe_set_pred(sqe, a);
		wsched_sqe_set_no_cqe(sqe);
		sqe = get_sqe(ring);
		if (!sqe)
			return -ENOSPC;
		wsched_prep_nop(sqe);
		/* b and c are nodes 1 and 2 when a is node 0. */
		wsched_sqe_set_preds(sqe, bc, 2);
		wsched_sqe_set_flags(sqe, WSCHED_SQE_NO_CQE | WSCHED_SQE_GRAPH_END);
		wsched_sqe_set_data64(sqe, i);
		if (a != 0) {
			fail("diamond does not start a graph (node %u)", a);
			return -EINVAL;
		}
		if (submit_wait(ring, 4, 1) || reap(ring, 1, 4, NULL))
			return -EIO;
	}
	return 0;
}

/* One one-node graph, submitted and waited for on its own: a round trip. */
static int ws_one_wait(void *ctx, unsigned int iters)
{
	struct wsched_ring *ring = ctx;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		struct wsched_sqe *sqe = get_sqe(ring);

		if (!sqe)
			return -ENOSPC;
		wsched_prep_nop(sqe);
		wsched_sqe_set_flags(sqe, WSCHED_SQE_NO_CQE |
				     WSCHED_SQE_GRAPH_END);
		wsched_sqe_set_data64(sqe, i);
		if (submit_wait(ring, 1, 1) || reap(ring, 1, 1, NULL))
			return -EIO;
	}
	return 0;
}

/*
 * A random DAG of DAG_NODES NOP nodes (NO_CQE), each with 0..3
 * predecessors among the DAG_WINDOW nodes before it, fixed by a seed; one
 * graph CQE.  The graph spans several ENTER calls (the SQ is smaller).
 */
#define DAG_NODES	10000
#define DAG_WINDOW	64
static __u32 dag_preds[DAG_NODES][3];
static unsigned char dag_nr[DAG_NODES];

static void dag_init(void)
{
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	unsigned int i, k;

	for (i = 0; i < DAG_NODES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		dag_nr[i] = i ? (x >> 60) % 4 : 0;
		if (dag_nr[i] > i)
			dag_nr[i] = i;
		for (k = 0; k < dag_nr[i]; k++) {
			unsigned int w = i < DAG_WINDOW ? i : DAG_WINDOW;

			/* Distinct enough; a repeated edge is still legal. */
			dag_preds[i][k] = i - 1 - (unsigned int)((x >> (8 * k)) % w);
		}
	}
}

static int ws_dag(void *ctx, unsigned int iters)
{
	struct wsched_ring *ring = ctx;
	unsigned int it, i;

	for (it = 0; it < iters; it++) {
		for (i = 0; i < DAG_NODES; i++) {
			struct wsched_sqe *sqe = wsched_get_sqe(ring);

			if (!sqe) {
				int ret = wsched_submit(ring);

				if (ret < 0) {
					fail("wsched_submit: %s", strerror(-ret));
					return ret;
				}
				sqe = get_sqe(ring);
				if (!sqe)
					return -ENOSPC;
			}
			wsched_prep_nop(sqe);
			wsched_sqe_set_preds(sqe, dag_preds[i], dag_nr[i]);
			wsched_sqe_set_flags(sqe, WSCHED_SQE_NO_CQE |
					     (i == DAG_NODES - 1 ?
					      WSCHED_SQE_GRAPH_END : 0));
			wsched_sqe_set_data64(sqe, i);
		}
		if (wsched_submit_and_wait(ring, 1) < 0 ||
		    reap(ring, 1, DAG_NODES, NULL))
			return -EIO;
	}
	return 0;
}

#ifdef HAVE_LIBURING
static int uring_reap(struct io_uring *ring, unsigned int n)
{
	struct io_uring_cqe *cqe;
	unsigned int head, got = 0;

	io_uring_for_each_cqe(ring, head, cqe) {
		if (cqe->res < 0) {
			fail("io_uring cqe res %d", cqe->res);
			return -EIO;
		}
		got++;
	}
	io_uring_cq_advance(ring, got);
	if (got != n) {
		fail("io_uring: %u completions, expected %u", got, n);
		return -EIO;
	}
	return 0;
}

/* @batch NOPs per io_uring_submit_and_wait(), one CQE each. */
static int uring_nops(void *ctx, unsigned int iters)
{
	struct io_uring *ring = ctx;
	unsigned int i, j;

	for (i = 0; i < iters; i++) {
		int ret;

		for (j = 0; j < nop_batch; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (!sqe) {
				fail("io_uring SQ full");
				return -ENOSPC;
			}
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, j);
		}
		ret = io_uring_submit_and_wait(ring, nop_batch);
		if (ret != (int)nop_batch) {
			fail("io_uring_submit_and_wait: %d", ret);
			return -EIO;
		}
		if (uring_reap(ring, nop_batch))
			return -EIO;
	}
	return 0;
}

/* One NOP, submitted and waited for on its own. */
static int uring_one_wait(void *ctx, unsigned int iters)
{
	struct io_uring *ring = ctx;
	unsigned int i;

	for (i = 0; i < iters; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

		if (!sqe) {
			fail("io_uring SQ full");
			return -ENOSPC;
		}
		io_uring_prep_nop(sqe);
		io_uring_sqe_set_data64(sqe, i);
		if (io_uring_submit_and_wait(ring, 1) != 1) {
			fail("io_uring_submit_and_wait failed");
			return -EIO;
		}
		if (uring_reap(ring, 1))
			return -EIO;
	}
	return 0;
}

/* A chain of 4 NOPs (IOSQE_IO_LINK on the first three), submit + wait. */
static int uring_link4(void *ctx, unsigned int iters)
{
	struct io_uring *ring = ctx;
	unsigned int i, j;

	for (i = 0; i < iters; i++) {
		int ret;

		for (j = 0; j < 4; j++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

			if (!sqe) {
				fail("io_uring SQ full");
				return -ENOSPC;
			}
			io_uring_prep_nop(sqe);
			io_uring_sqe_set_data64(sqe, j);
			if (j < 3)
				io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
		}
		ret = io_uring_submit_and_wait(ring, 4);
		if (ret != 4) {
			fail("io_uring_submit_and_wait: %d", ret);
			return -EIO;
		}
		if (uring_reap(ring, 4))
			return -EIO;
	}
	return 0;
}
#endif

/* ---- timing loop -------------------------------------------------------- */

struct variant {
	variant_fn fn;
	void *ctx;
	unsigned int ops_per_iter;	/* time is reported per op */
	unsigned int iters;		/* calibrated */
	struct bstat st;		/* per run: median iteration, per op */
	struct bstat mean;		/* per run: mean iteration, per op */
};

/* Warm up and choose iterations so that one run lasts about target_ms. */
static int calibrate(struct variant *v)
{
	unsigned int iters = 4;
	uint64_t t;

	for (;;) {
		t = now_ns();
		if (v->fn(v->ctx, iters))
			return -EIO;
		t = now_ns() - t;
		if (t >= 20000000ULL || iters >= 1u << 20)
			break;
		iters *= 4;
	}
	v->iters = (unsigned int)((double)iters * target_ms * 1e6 / (t ? t : 1));
	if (v->iters < MIN_ITERS)
		v->iters = MIN_ITERS;
	if (v->iters > MAX_ITERS)
		v->iters = MAX_ITERS;
	return 0;
}

/*
 * Run the variants in turn @runs times (interleaved, to share the noise).
 * Every iteration (one batch, one round trip) is timed on its own; a run
 * gives the median iteration, which a vCPU preempted on the shared host
 * does not move much, and the mean, which it does.
 */
static int measure(struct variant *v, unsigned int nv)
{
	static double samples[MAX_ITERS];
	unsigned int i, r, k;

	for (i = 0; i < nv; i++)
		if (!v[i].st.skipped && calibrate(&v[i]))
			return -EIO;
	for (r = 0; r < runs; r++) {
		for (i = 0; i < nv; i++) {
			double sum = 0, per = v[i].ops_per_iter;

			if (v[i].st.skipped)
				continue;
			for (k = 0; k < v[i].iters; k++) {
				uint64_t t = now_ns();

				if (v[i].fn(v[i].ctx, 1))
					return -EIO;
				samples[k] = (double)(now_ns() - t) / per;
				sum += samples[k];
			}
			qsort(samples, v[i].iters, sizeof(samples[0]),
			      cmp_double);
			stat_add(&v[i].st, samples[v[i].iters / 2]);
			stat_add(&v[i].mean, sum / v[i].iters);
		}
	}
	return 0;
}

/*
 * " ws_mean=.. base_mean=.. base_iters=..": medians over the runs of the
 * mean iteration (per op), next to the medians of the median iteration
 * that the row reports.  Valid until the next call.
 */
static const char *means(struct variant *ws, struct variant *base)
{
	static char buf[128];
	int n;

	n = snprintf(buf, sizeof(buf), " ws_mean=%.0f", stat_med(&ws->mean));
	if (!base->st.skipped)
		snprintf(buf + n, sizeof(buf) - n, " base_mean=%.0f base_iters=%u",
			 stat_med(&base->mean), base->iters);
	return buf;
}

static unsigned int nr_workers(struct wsched_ring *ring)
{
	struct wsched_probe p;

	return wsched_probe(ring, &p) ? 0 : p.nr_workers;
}

#ifdef HAVE_LIBURING
/* 0, or a reason why io_uring cannot run here. */
static const char *uring_open(struct io_uring *ring)
{
	int ret = io_uring_queue_init(2 * MAX_BATCH, ring, 0);

	if (ret < 0) {
		printf(PFX "io_uring_queue_init: %s\n", strerror(-ret));
		return "io_uring_setup_failed";
	}
	return NULL;
}
#endif

/* ---- nop_ring and diamond_latency --------------------------------------- */

/* Append a variant; without @fn it is skipped, @why says why. */
static unsigned int add_variant(struct variant *v, unsigned int *nv,
				variant_fn fn, void *ctx, unsigned int ops,
				const char *why)
{
	struct variant *n = &v[*nv];

	memset(n, 0, sizeof(*n));
	n->fn = fn;
	n->ctx = ctx;
	n->ops_per_iter = ops;
	if (!fn) {
		n->st.skipped = 1;
		n->st.why = why;
	}
	return (*nv)++;
}

#ifdef HAVE_LIBURING
#define uring_fn(f)	(have_uring ? (f) : NULL)
#define uring_ctx	(have_uring ? (void *)&uring : NULL)
#else
/* Without liburing the io_uring variants do not exist. */
#define uring_nops	NULL
#define uring_link4	NULL
#define uring_one_wait	NULL
#define uring_fn(f)	(f)
#define uring_ctx	NULL
#endif

static void bench_rings(int do_nop, int do_diamond, int do_one, int do_dag)
{
	struct wsched_ring ring;
	struct variant v[8];
	const char *why = "no_liburing";
	unsigned int nv = 0, iw_graphs = 0, iw_graph = 0, iu_nop = 0;
	unsigned int iw_dia = 0, iu_link = 0, iw_one = 0, iu_one = 0, iw_dag = 0;
#ifdef HAVE_LIBURING
	struct io_uring uring;
	int have_uring = 0;
#endif
	int ret;

	ret = wsched_queue_init(2 * MAX_BATCH, &ring, 0);
	if (ret) {
		fail("wsched_queue_init: %s", strerror(-ret));
		return;
	}
#ifdef HAVE_LIBURING
	why = uring_open(&uring);
	have_uring = !why;
#endif
	memset(v, 0, sizeof(v));
	if (do_nop) {
		iw_graphs = add_variant(v, &nv, ws_nop_graphs, &ring, nop_batch, NULL);
		iw_graph = add_variant(v, &nv, ws_nop_graph, &ring, nop_batch, NULL);
		iu_nop = add_variant(v, &nv, uring_fn(uring_nops), uring_ctx,
				     nop_batch, why);
	}
	if (do_diamond) {
		iw_dia = add_variant(v, &nv, ws_diamond, &ring, 1, NULL);
		iu_link = add_variant(v, &nv, uring_fn(uring_link4), uring_ctx, 1,
				      why);
	}
	if (do_one) {
		iw_one = add_variant(v, &nv, ws_one_wait, &ring, 1, NULL);
		iu_one = add_variant(v, &nv, uring_fn(uring_one_wait), uring_ctx,
				     1, why);
	}
	if (do_dag) {
		dag_init();
		iw_dag = add_variant(v, &nv, ws_dag, &ring, DAG_NODES, NULL);
		if (!do_nop)
			iu_nop = add_variant(v, &nv, uring_fn(uring_nops),
					     uring_ctx, nop_batch, why);
	}

	if (!measure(v, nv)) {
		unsigned int w = nr_workers(&ring);

		if (do_nop) {
			print_row("nop_ring_graphs", "io_uring_nop",
				  &v[iu_nop].st, &v[iw_graphs].st,
				  "per=nop batch=%u shape=%u_one-node_graphs iters=%u%s workers=%u",
				  nop_batch, nop_batch, v[iw_graphs].iters,
				  means(&v[iw_graphs], &v[iu_nop]), w);
			print_row("nop_ring_graph", "io_uring_nop",
				  &v[iu_nop].st, &v[iw_graph].st,
				  "per=nop batch=%u shape=one_%u-node_graph iters=%u%s workers=%u",
				  nop_batch, nop_batch, v[iw_graph].iters,
				  means(&v[iw_graph], &v[iu_nop]), w);
		}
		if (do_diamond)
			print_row("diamond_latency", "io_uring_link4",
				  &v[iu_link].st, &v[iw_dia].st,
				  "per=round_trip nodes=4 iters=%u%s workers=%u",
				  v[iw_dia].iters,
				  means(&v[iw_dia], &v[iu_link]), w);
		if (do_one)
			print_row("one_graph_wait", "io_uring_nop_wait",
				  &v[iu_one].st, &v[iw_one].st,
				  "per=round_trip shape=one-node_graph_one_waiter iters=%u%s workers=%u",
				  v[iw_one].iters,
				  means(&v[iw_one], &v[iu_one]), w);
		if (do_dag)
			print_row("random_dag", "io_uring_nop",
				  &v[iu_nop].st, &v[iw_dag].st,
				  "per=node nodes=%u max_preds=3 window=%u iters=%u%s workers=%u",
				  DAG_NODES, DAG_WINDOW, v[iw_dag].iters,
				  means(&v[iw_dag], &v[iu_nop]), w);
	}
#ifdef HAVE_LIBURING
	if (have_uring)
		io_uring_queue_exit(&uring);
#endif
	wsched_queue_exit(&ring);
}

/* ---- crc32c ------------------------------------------------------------- */

#define CRC32C_POLY	0x82F63B78U	/* reflected Castagnoli polynomial */

static uint32_t sb8[8][256];

/* Slicing-by-8 tables: sb8[k][b] is the CRC of byte b then k zero bytes. */
static void sb8_init(void)
{
	unsigned int i, k;

	for (i = 0; i < 256; i++) {
		uint32_t c = i;

		for (k = 0; k < 8; k++)
			c = (c >> 1) ^ (CRC32C_POLY & -(c & 1));
		sb8[0][i] = c;
	}
	for (k = 1; k < 8; k++)
		for (i = 0; i < 256; i++)
			sb8[k][i] = (sb8[k - 1][i] >> 8) ^ sb8[0][sb8[k - 1][i] & 0xff];
}

/*
 * Raw CRC-32C (no inversion), slicing-by-8: eight table lookups per 8
 * bytes, as in the kernel's generic __crc32c_le (lib/crc32.c,
 * CONFIG_CRC32_SLICEBY8, which Debian's kernel uses).
 */
static uint32_t crc_sb8(uint32_t c, const unsigned char *p, size_t len)
{
	while (len && ((uintptr_t)p & 7)) {
		c = (c >> 8) ^ sb8[0][(c ^ *p++) & 0xff];
		len--;
	}
	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo, hi;

		/* Only the low word meets the CRC; the lookups of the high
		 * four bytes do not wait for it.
		 */
		hi = sb8[3][p[4]] ^ sb8[2][p[5]] ^ sb8[1][p[6]] ^ sb8[0][p[7]];
		memcpy(&lo, p, 4);
		lo ^= c;
		c = hi ^ (sb8[7][lo & 0xff] ^ sb8[6][(lo >> 8) & 0xff]) ^
		    (sb8[5][(lo >> 16) & 0xff] ^ sb8[4][lo >> 24]);
	}
	while (len--)
		c = (c >> 8) ^ sb8[0][(c ^ *p++) & 0xff];
	return c;
}

/* The SSE4.2 crc32 instruction: raw CRC-32C, no inversion either. */
__attribute__((target("sse4.2")))
static uint32_t crc_sse42(uint32_t c, const unsigned char *p, size_t len)
{
	uint64_t c64;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8(c, *p++);
		len--;
	}
	c64 = c;
	for (; len >= 8; len -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c64 = _mm_crc32_u64(c64, w);
	}
	c = (uint32_t)c64;
	while (len--)
		c = _mm_crc32_u8(c, *p++);
	return c;
}

static int have_sse42(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSE4_2);
}

/* The hypervisor's CPUID signature ("TCGTCGTCGTCG", "KVMKVMKVM"), or "". */
static const char *hv_vendor(void)
{
	static char v[13];
	unsigned int a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1U << 31)))
		return "";
	__cpuid(0x40000000, a, b, c, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &c, 4);
	memcpy(v + 8, &d, 4);
	v[12] = 0;
	for (a = 0; a < 12; a++)
		if (v[a] && (v[a] <= ' ' || v[a] > '~'))
			v[a] = '?';
	return v;
}

/*
 * GF(2) product of two polynomials modulo the CRC polynomial, in the
 * reflected representation (bit 31 is x^0, bit 0 is x^31).
 */
static uint32_t gf2_mulmod(uint32_t a, uint32_t b)
{
	uint32_t prod = 0;
	unsigned int i;

	for (i = 0; i < 32; i++) {
		if (a & (0x80000000U >> i))
			prod ^= b;
		b = (b >> 1) ^ (CRC32C_POLY & -(b & 1));	/* b *= x */
	}
	return prod;
}

/*
 * The raw CRC state after @len more zero bytes: crc * x^(8 len) mod P.
 * Since the raw CRC is linear, crc(s, A || B) = shift(crc(s, A), |B|) ^
 * crc(0, B).
 */
static uint32_t crc_shift(uint32_t crc, uint64_t len)
{
	uint32_t pow = 0x80000000U;	/* x^0 */
	uint32_t sq = 0x00800000U;	/* x^8 */

	for (; len; len >>= 1) {
		if (len & 1)
			pow = gf2_mulmod(pow, sq);
		sq = gf2_mulmod(sq, sq);
	}
	return gf2_mulmod(pow, crc);
}

typedef uint32_t (*crc_fn)(uint32_t c, const unsigned char *p, size_t len);

struct crc_piece {
	pthread_t tid;
	crc_fn fn;
	const unsigned char *p;
	size_t len;
	uint32_t seed;
	uint32_t crc;
};

static void *crc_thread(void *arg)
{
	struct crc_piece *pc = arg;

	pc->crc = pc->fn(pc->seed, pc->p, pc->len);
	return NULL;
}

/* One pthread per piece (the caller's thread takes the first). */
static int crc_threads(crc_fn fn, const unsigned char *buf, size_t len,
		       unsigned int nt, uint32_t seed, uint32_t *out)
{
	struct crc_piece pc[MAX_THREADS];
	size_t piece = (len / nt + 4095) & ~(size_t)4095, off = 0;
	unsigned int i, n = 0;
	uint32_t crc;

	for (i = 0; i < nt && off < len; i++, n++) {
		pc[i].fn = fn;
		pc[i].p = buf + off;
		pc[i].len = len - off < piece ? len - off : piece;
		pc[i].seed = i ? 0 : seed;
		off += pc[i].len;
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&pc[i].tid, NULL, crc_thread, &pc[i])) {
			fail("pthread_create");
			return -EAGAIN;
		}
	crc_thread(&pc[0]);
	crc = pc[0].crc;
	for (i = 1; i < n; i++) {
		pthread_join(pc[i].tid, NULL);
		crc = crc_shift(crc, pc[i].len) ^ pc[i].crc;
	}
	*out = crc;
	return 0;
}

static void crc_check(const char *what, uint32_t got, uint32_t want)
{
	if (got == want)
		return;
	printf(PFX "crc32c_user: %s 0x%08x, expected 0x%08x MISMATCH\n",
	       what, got, want);
	fflush(stdout);
	failed = 1;
}

static int ws_crc(struct wsched_ring *ring, size_t len, uint32_t seed,
		  uint32_t *out)
{
	struct wsched_sqe *sqe = get_sqe(ring);
	__u64 value = 0;

	if (!sqe)
		return -ENOSPC;
	wsched_prep_crc32c(sqe, 0, 0, len, seed);
	wsched_sqe_set_graph_end(sqe);
	wsched_sqe_set_data64(sqe, 1);
	/* The node's CQE (with the value) and the graph's. */
	if (submit_wait(ring, 1, 2) || reap(ring, 2, 1, &value))
		return -EIO;
	*out = (uint32_t)value;
	return 0;
}

static void bench_crc32c(void)
{
	const uint32_t seed = 0xFFFFFFFFU;
	size_t len = (size_t)crc_mb << 20;
	unsigned int ncpu = sysconf(_SC_NPROCESSORS_ONLN), r, i;
	struct bstat st_ws = {}, st_1t = {}, st_nt = {}, st_hw1 = {}, st_hwn = {};
	uint32_t want, got, c_ws = 0;
	struct wsched_ring ring;
	unsigned char *buf;
	uint64_t t, x = 0x9E3779B97F4A7C15ULL, t_reg;
	struct iovec iov;
	int hw = have_sse42(), ret;

	if (ncpu < 1)
		ncpu = 1;
	if (ncpu > MAX_THREADS)
		ncpu = MAX_THREADS;
	sb8_init();
	if (posix_memalign((void **)&buf, 1 << 21, len)) {
		fail("crc32c_user: no memory for %u MiB", crc_mb);
		return;
	}
	/* xorshift64: the same bytes on every boot. */
	for (i = 0; i < len / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + 8 * (size_t)i, &x, 8);
	}
	ret = wsched_queue_init(8, &ring, 0);
	if (ret) {
		fail("wsched_queue_init: %s", strerror(-ret));
		free(buf);
		return;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	t_reg = now_ns();
	ret = wsched_register_buffers(&ring, &iov, 1);
	t_reg = now_ns() - t_reg;
	if (ret) {
		fail("wsched_register_buffers %u MiB: %s", crc_mb, strerror(-ret));
		goto out;
	}

	/* Reference: the whole buffer in one piece, then cross-checks. */
	want = crc_sb8(seed, buf, len);
	crc_check("libwsched wsched_crc32c_sw", wsched_crc32c_sw(seed, buf, len), want);
	crc_check("crc32c(\"123456789\")",
		  ~crc_sb8(~0U, (const unsigned char *)"123456789", 9),
		  0xE3069283U);
	/* An odd split, to exercise the combination. */
	crc_check("split", crc_shift(crc_sb8(seed, buf, 12345), len - 12345) ^
		  crc_sb8(0, buf + 12345, len - 12345), want);
	if (!hw) {
		st_hw1.skipped = 1;
		st_hw1.why = "no_sse4.2";
		st_hwn.skipped = 1;
		st_hwn.why = "no_sse4.2";
	}

	for (r = 0; r < runs && !failed; r++) {
		t = now_ns();
		if (ws_crc(&ring, len, seed, &c_ws))
			goto out;
		stat_add(&st_ws, now_ns() - t);
		crc_check("wsched WSCHED_OP_CRC32C", c_ws, want);

		t = now_ns();
		got = crc_sb8(seed, buf, len);
		stat_add(&st_1t, now_ns() - t);
		crc_check("slicing-by-8, 1 thread", got, want);

		t = now_ns();
		if (crc_threads(crc_sb8, buf, len, ncpu, seed, &got))
			goto out;
		stat_add(&st_nt, now_ns() - t);
		crc_check("slicing-by-8, threads", got, want);

		if (hw) {
			t = now_ns();
			got = crc_sse42(seed, buf, len);
			stat_add(&st_hw1, now_ns() - t);
			crc_check("sse4.2, 1 thread", got, want);

			t = now_ns();
			if (crc_threads(crc_sse42, buf, len, ncpu, seed, &got))
				goto out;
			stat_add(&st_hwn, now_ns() - t);
			crc_check("sse4.2, threads", got, want);
		}
	}
	if (!failed) {
		/* QEMU's TCG runs the crc32 instruction one bit at a time. */
		const char *emu = strncmp(hv_vendor(), "TCG", 3) ? "" :
				  " emulated=tcg_bitwise";
		char b1[32], bn[32], h1[32], hn[32];

		snprintf(b1, sizeof(b1), "user_sb8_1t");
		snprintf(bn, sizeof(bn), "user_sb8_%ut", ncpu);
		snprintf(h1, sizeof(h1), "user_sse42_1t");
		snprintf(hn, sizeof(hn), "user_sse42_%ut", ncpu);
		print_row("crc32c_user", b1, &st_1t, &st_ws,
			  "mb=%u crc=0x%08x impl=slicing-by-8 reg_ms=%.1f",
			  crc_mb, c_ws, t_reg / 1e6);
		print_row("crc32c_user_mt", bn, &st_nt, &st_ws,
			  "mb=%u crc=0x%08x impl=slicing-by-8 threads=%u",
			  crc_mb, c_ws, ncpu);
		print_row("crc32c_user_sse42", h1, &st_hw1, &st_ws,
			  "mb=%u crc=0x%08x impl=sse4.2_crc32q threads=1%s",
			  crc_mb, c_ws, emu);
		print_row("crc32c_user_sse42_mt", hn, &st_hwn, &st_ws,
			  "mb=%u crc=0x%08x impl=sse4.2_crc32q threads=%u%s",
			  crc_mb, c_ws, ncpu, emu);
	}
out:
	wsched_queue_exit(&ring);
	free(buf);
}

/* ---- main ----------------------------------------------------------------- */

/* Is the key of "key=value" @arg (@klen bytes) @key? */
/* ---- uring_chain: read -> crc32c -> write -------------------------------- */

#ifdef HAVE_LIBURING
#define CHAIN_TAG	0xc4a1U

/*
 * One variant of the chain: read @len bytes of @in_fd into @buf
 * (READ_FIXED), take their CRC-32C, write them to @out_fd (WRITE_FIXED).
 */
struct chain {
	struct io_uring *uring;
	struct wsched_ring *w;
	unsigned char *buf;
	size_t len;
	int in_fd, out_fd;
	uint32_t want;		/* crc32c(0, data): the kernel's convention */
};

/*
 * Reap @n io_uring completions; user_data 0/1/2 want @res0, @res1, @res2
 * (a short read or write, a failed graph is an error: all are reported).
 */
static int chain_reap(struct io_uring *u, unsigned int n, int res0,
		      int res1, int res2)
{
	int want[3] = { res0, res1, res2 }, got[3] = { 1, 1, 1 };
	unsigned int i;
	int bad = 0;

	for (i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;
		int ret = io_uring_wait_cqe(u, &cqe);

		if (ret) {
			fail("uring_chain: io_uring_wait_cqe: %s", strerror(-ret));
			return -EIO;
		}
		if (cqe->user_data > 2)
			bad = 1;
		else
			got[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(u, cqe);
	}
	for (i = 0; i < 3; i++)
		if (got[i] != 1 && got[i] != want[i])
			bad = 1;
	if (bad)
		fail("uring_chain: read %d, graph %d, write %d (want %d %d %d)",
		     got[0], got[1], got[2], want[0], want[1], want[2]);
	return bad ? -EIO : 0;
}

static struct io_uring_sqe *chain_sqe(struct io_uring *u, __u64 ud)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(u);

	if (!sqe)
		fail("uring_chain: io_uring SQ full");
	else
		io_uring_sqe_set_data64(sqe, ud);
	return sqe;
}

/*
 * Baseline: READ_FIXED, wait; crc32c in user space; WRITE_FIXED, wait.
 * The crc32c is slicing-by-8, the kernel op's algorithm (__crc32c_le):
 * under TCG the SSE4.2 instruction is emulated bit by bit (see
 * Documentation/performance.rst), so it would make a slow baseline.
 */
static int chain_user(void *ctx, unsigned int iters)
{
	struct chain *c = ctx;
	struct io_uring_sqe *sqe;
	unsigned int i;
	uint32_t crc;

	for (i = 0; i < iters; i++) {
		sqe = chain_sqe(c->uring, 0);
		if (!sqe)
			return -ENOSPC;
		io_uring_prep_read_fixed(sqe, c->in_fd, c->buf, c->len, 0, 0);
		if (io_uring_submit(c->uring) != 1 ||
		    chain_reap(c->uring, 1, c->len, 0, 0))
			return -EIO;
		crc = crc_sb8(0, c->buf, c->len);
		if (crc != c->want) {
			fail("uring_chain: user crc32c %08x, want %08x", crc,
			     c->want);
			return -EIO;
		}
		sqe = chain_sqe(c->uring, 2);
		if (!sqe)
			return -ENOSPC;
		io_uring_prep_write_fixed(sqe, c->out_fd, c->buf, c->len, 0, 0);
		if (io_uring_submit(c->uring) != 1 ||
		    chain_reap(c->uring, 1, 0, 0, c->len))
			return -EIO;
	}
	return 0;
}

/*
 * wsched: READ_FIXED -> a one-node CRC32C graph (@inline_graph: carried in
 * an SQE128 command; else staged in the wsched SQ) -> WRITE_FIXED, linked,
 * one submission; the CRC is the node's value in the wsched CQ.
 */
static int chain_ws(struct chain *c, unsigned int iters, int inline_graph)
{
	struct io_uring_sqe *sqe;
	struct wsched_sqe node;
	unsigned int i;
	__u64 crc = 0;
	int ret;

	for (i = 0; i < iters; i++) {
		sqe = chain_sqe(c->uring, 0);
		if (!sqe)
			return -ENOSPC;
		io_uring_prep_read_fixed(sqe, c->in_fd, c->buf, c->len, 0, 0);
		io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
		sqe = io_uring_get_sqe(c->uring);
		if (!sqe) {
			fail("uring_chain: io_uring SQ full");
			return -ENOSPC;
		}
		if (inline_graph) {
			wsched_prep_crc32c(&node, 0, 0, c->len, 0);
			ret = wsched_prep_uring_inline(sqe, c->w, &node, 1,
						       CHAIN_TAG);
		} else {
			struct wsched_sqe *w = get_sqe(c->w);

			if (!w)
				return -ENOSPC;
			wsched_prep_crc32c(w, 0, 0, c->len, 0);
			wsched_sqe_set_graph_end(w);
			ret = wsched_prep_uring_cmd(sqe, c->w);
		}
		if (ret != 1) {
			fail("uring_chain: prep: %d", ret);
			return -EIO;
		}
		io_uring_sqe_set_data64(sqe, 1);
		io_uring_sqe_set_flags(sqe, IOSQE_IO_LINK);
		sqe = chain_sqe(c->uring, 2);
		if (!sqe)
			return -ENOSPC;
		io_uring_prep_write_fixed(sqe, c->out_fd, c->buf, c->len, 0, 0);
		ret = io_uring_submit(c->uring);
		if (ret != 3) {
			fail("uring_chain: io_uring_submit: %d", ret);
			return -EIO;
		}
		if (chain_reap(c->uring, 3, c->len, 1, c->len) ||
		    reap(c->w, 1, 0, &crc))
			return -EIO;
		if ((uint32_t)crc != c->want) {
			fail("uring_chain: wsched crc32c %08x, want %08x",
			     (uint32_t)crc, c->want);
			return -EIO;
		}
	}
	return 0;
}

static int chain_ws_sq(void *ctx, unsigned int iters)
{
	return chain_ws(ctx, iters, 0);
}

static int chain_ws_inline(void *ctx, unsigned int iters)
{
	return chain_ws(ctx, iters, 1);
}

static void bench_uring_chain(void)
{
	struct io_uring u64, u128;
	struct wsched_ring w;
	struct chain c[3];
	struct variant v[3];
	unsigned char *buf;
	char in[] = "/tmp/uring_chain.in.XXXXXX";
	char out[] = "/tmp/uring_chain.out.XXXXXX";
	size_t len = (size_t)chain_kb << 10, i;
	uint64_t x = 0x9E3779B97F4A7C15ULL;
	struct iovec iov;
	unsigned int nv = 0, ib, is, ii;
	int in_fd = -1, out_fd = -1, ret, have64 = 0, have128 = 0;

	sb8_init();
	if (posix_memalign((void **)&buf, 4096, len)) {
		fail("uring_chain: no memory for %u KiB", chain_kb);
		return;
	}
	for (i = 0; i < len / 8; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		memcpy(buf + 8 * i, &x, 8);
	}
	in_fd = mkstemp(in);
	out_fd = mkstemp(out);
	if (in_fd < 0 || out_fd < 0 || pwrite(in_fd, buf, len, 0) != (ssize_t)len) {
		fail("uring_chain: files in /tmp: %s", strerror(errno));
		goto out_files;
	}
	ret = wsched_queue_init(8, &w, 0);
	if (ret) {
		fail("wsched_queue_init: %s", strerror(-ret));
		goto out_files;
	}
	iov.iov_base = buf;
	iov.iov_len = len;
	ret = wsched_register_buffers(&w, &iov, 1);
	if (ret) {
		fail("uring_chain: wsched_register_buffers: %s", strerror(-ret));
		goto out_w;
	}
	ret = io_uring_queue_init(8, &u64, 0);
	if (ret) {
		printf(PFX "uring_chain: skipped: io_uring_queue_init: %s\n",
		       strerror(-ret));
		goto out_w;
	}
	have64 = 1;
	ret = io_uring_queue_init(8, &u128, IORING_SETUP_SQE128);
	if (ret) {
		fail("uring_chain: io_uring_queue_init(SQE128): %s",
		     strerror(-ret));
		goto out_u;
	}
	have128 = 1;
	if (io_uring_register_buffers(&u64, &iov, 1) ||
	    io_uring_register_buffers(&u128, &iov, 1)) {
		fail("uring_chain: io_uring_register_buffers failed");
		goto out_u;
	}
	for (i = 0; i < 3; i++) {
		c[i] = (struct chain){
			.uring = i == 2 ? &u128 : &u64,
			.w = &w,
			.buf = buf,
			.len = len,
			.in_fd = in_fd,
			.out_fd = out_fd,
			.want = crc_sb8(0, buf, len),
		};
	}
	memset(v, 0, sizeof(v));
	ib = add_variant(v, &nv, chain_user, &c[0], 1, NULL);
	is = add_variant(v, &nv, chain_ws_sq, &c[1], 1, NULL);
	ii = add_variant(v, &nv, chain_ws_inline, &c[2], 1, NULL);
	if (!measure(v, nv)) {
		unsigned int nw = nr_workers(&w);

		print_row("uring_chain", "uring_rw_sb8_crc32c", &v[ib].st,
			  &v[is].st,
			  "per=chain len=%zu graph=sq_entries iters=%u%s workers=%u",
			  len, v[is].iters, means(&v[is], &v[ib]), nw);
		print_row("uring_chain_inline", "uring_rw_sb8_crc32c", &v[ib].st,
			  &v[ii].st,
			  "per=chain len=%zu graph=inline_sqe128 iters=%u%s workers=%u",
			  len, v[ii].iters, means(&v[ii], &v[ib]), nw);
	}
out_u:
	if (have128)
		io_uring_queue_exit(&u128);
	if (have64)
		io_uring_queue_exit(&u64);
out_w:
	wsched_queue_exit(&w);
out_files:
	if (in_fd >= 0) {
		close(in_fd);
		unlink(in);
	}
	if (out_fd >= 0) {
		close(out_fd);
		unlink(out);
	}
	free(buf);
}
#else
static void bench_uring_chain(void)
{
	printf(PFX "uring_chain: skipped: built without liburing\n");
}
#endif

static int key_is(const char *arg, size_t klen, const char *key)
{
	return klen == strlen(key) && !strncmp(arg, key, klen);
}

static void parse(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *val;
		size_t klen;

		if (!eq)
			continue;
		klen = eq - argv[i];
		val = eq + 1;
		if (key_is(argv[i], klen, "runs"))
			runs = strtoul(val, NULL, 0);
		else if (key_is(argv[i], klen, "only"))
			only = val;
		else if (key_is(argv[i], klen, "crc_mb"))
			crc_mb = strtoul(val, NULL, 0);
		else if (key_is(argv[i], klen, "ubench_ms"))
			target_ms = strtoul(val, NULL, 0);
		else if (key_is(argv[i], klen, "nop_batch"))
			nop_batch = strtoul(val, NULL, 0);
		else if (key_is(argv[i], klen, "chain_kb"))
			chain_kb = strtoul(val, NULL, 0);
		else if (key_is(argv[i], klen, "profile"))
			profile = strtoul(val, NULL, 0);
	}
	if (!runs || runs > MAX_RUNS)
		runs = 5;
	if (!crc_mb || crc_mb > 1024)
		crc_mb = 64;
	if (!target_ms)
		target_ms = 150;
	if (!nop_batch || nop_batch > MAX_BATCH)
		nop_batch = 64;
	if (!chain_kb || chain_kb > 16384)
		chain_kb = 64;
}

static int trace_on(const char *v)
{
	FILE *f = fopen("/sys/kernel/tracing/tracing_on", "w");

	if (!f)
		return -1;
	fputs(v, f);
	return fclose(f);
}

/* profile=N: N batches of one-node graphs with the tracer on. */
static int run_profile(void)
{
	struct wsched_ring ring;
	int ret;

	ret = wsched_queue_init(2 * MAX_BATCH, &ring, 0);
	if (ret) {
		fail("wsched_queue_init: %s", strerror(-ret));
		return 1;
	}
	/* Warm: the context's pool and its block cache exist. */
	if (ws_nop_graphs(&ring, 16) || trace_on("1") ||
	    ws_nop_graphs(&ring, profile) || trace_on("0"))
		fail("profile run failed");
	wsched_queue_exit(&ring);
	printf(PFX "profile batches=%u batch=%u\n", profile, nop_batch);
	return failed;
}

int main(int argc, char **argv)
{
	struct wsched_probe p;
	uint64_t t0 = now_ns();
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse(argc, argv);
	if (profile)
		return run_profile();
	ret = wsched_probe(NULL, &p);
	if (ret) {
		fail("probe /dev/wsched: %s", strerror(-ret));
		return 1;
	}
	printf(PFX "start cpus=%ld workers=%u runs=%u liburing=%s sse4.2=%s abi=%u hv=%s\n",
	       sysconf(_SC_NPROCESSORS_ONLN), p.nr_workers, runs,
#ifdef HAVE_LIBURING
	       "yes",
#else
	       "no",
#endif
	       have_sse42() ? "yes" : "no", p.version,
	       *hv_vendor() ? hv_vendor() : "none");
	if (selected("nop_ring") || selected("diamond_latency") ||
	    selected("one_graph_wait") || selected("random_dag"))
		bench_rings(selected("nop_ring"), selected("diamond_latency"),
			    selected("one_graph_wait"), selected("random_dag"));
	if (selected("crc32c_user"))
		bench_crc32c();
	if (selected("uring_chain"))
		bench_uring_chain();
	printf(PFX "done status=%d seconds=%.1f\n", failed ? -EIO : 0,
	       (now_ns() - t0) / 1e9);
	return failed;
}
