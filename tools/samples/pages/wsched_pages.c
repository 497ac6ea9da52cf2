// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_pages: a sample client of ws_job_run(), the job hugetlb's page
 * init and migration's folio copy do: clear a large set of order-0 pages
 * with clear_page(), then copy them to another set with copy_page().
 *
 * Each is done these ways and timed:
 *
 *   serial  one thread, the loading one;
 *   static  the pages cut into one equal share per thread, every share
 *           but the caller's queued as a work item on system_unbound_wq
 *           (queue_work(), as padata_do_multithreaded() queues its
 *           helpers), the caller running its own share and then waiting
 *           for the others (flush_work());
 *   job     ws_job_run() with the default pool: the loading process's
 *           own worker set, the caller taking part; its threads are made
 *           by the first job and kept (while they are used) by the next;
 *   job_system  ws_job_run() in ws_system_pool, kthreads of no process.
 *
 * The default job must be charged to the loading process: every chunk
 * that a helper runs must run on a thread of the process (a user worker,
 * where the kernel has them) or, elsewhere, on a kthread worker of a
 * wsched pool (ws/<cpu>:u<n>, moved into the process's cgroups);
 * loading fails with -EIO otherwise.
 *
 * After each run every page is checked: all zero after a clear, and
 * after a copy the pattern of its source page, which depends on the
 * page's index and the word's offset, so a page lost, done twice or
 * copied to the wrong place is caught.  Loading fails with -EIO on a
 * mismatch.  Each variant prints one line,
 *
 *   wsched_pages: op=clear variant=job pages=16384 threads=2 us=1234
 *
 * With @numa_check, on a machine with two or more nodes with CPUs, the
 * pages are allocated in equal shares per such node, in node order (the
 * shares ws_job_run() splits a NUMA-aware job into), and after each run
 * of job_system (ws_system_pool, whose workers are bound to CPUs, so the
 * helpers can be mailed to a node) the node each chunk started on is
 * compared with the node of its memory: at least two thirds of the
 * chunks of all runs must have started on their memory's node, or
 * loading fails with -EIO.  Without two such nodes it prints that the
 * check was skipped.
 *
 * With @loop_s it only runs the default job's clear over and over for
 * that many seconds (the saturating job of the bench's interference and
 * latency rows) and prints how many jobs ran; with @loop_static as well,
 * the static split's clear instead: the same memory traffic on the same
 * number of threads without wsched, the control of the latency rows.
 *
 * Each line is for the fastest of @reps rounds, each round running every variant once.
 * With @bench it also prints rows for tools/bench/run.sh (the format of
 * wsched_bench's): the job against one thread and against the static
 * split, and job_system against the static split (rows *_syspool), with
 * the medians over the rounds:
 *
 *   wsched_pages: row name=pages_copy baseline=static base_ns=... ws_ns=...
 *     ratio=<median of static/job per round> ratio_min=.. ratio_max=.. ...
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>

static unsigned int size_mb = 64;
module_param(size_mb, uint, 0444);
MODULE_PARM_DESC(size_mb, "MiB of pages in each of the two sets (1 to 1024, default 64)");

static unsigned int threads;
module_param(threads, uint, 0444);
MODULE_PARM_DESC(threads, "threads of the static split and the job's max_threads (0: online CPUs)");

/* Most rounds: the times of every round are kept. */
#define PAGES_MAX_REPS	31

static unsigned int reps = 1;
module_param(reps, uint, 0444);
MODULE_PARM_DESC(reps, "rounds, each running every variant once (1 to 31, default 1)");

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "also print rows for tools/bench: the job against one thread and the static split");

static char *tag = "";
module_param(tag, charp, 0444);
MODULE_PARM_DESC(tag, "appended to the rows' names, e.g. \"_hog\" for a run beside a CPU hog");

static unsigned int loop_s;
module_param(loop_s, uint, 0444);
MODULE_PARM_DESC(loop_s, "only clear the pages with ws_job_run() over and over for this many seconds (1 to 600), a saturating job for tools/bench");

static bool loop_static;
module_param(loop_static, bool, 0444);
MODULE_PARM_DESC(loop_static, "with loop_s, loop the static split over system_unbound_wq instead of the job (no wsched)");

static bool numa_check;
module_param(numa_check, bool, 0444);
MODULE_PARM_DESC(numa_check, "check that the chunks of a NUMA-aware job start on the node of their memory");

/* Pages per chunk of the job: 64 KiB, tens of microseconds of work. */
#define PAGES_MIN_CHUNK	16

enum pages_op { PAGES_CLEAR, PAGES_COPY };

/**
 * struct pages_set - the pages a run works on
 * @dst: the pages cleared, or copied to
 * @src: the pages copied from
 * @nr: pages in each of @dst and @src
 * @op: what a run does to pages [begin, end)
 * @caller: the loading thread
 * @helped: chunks of the default job run by a thread other than @caller
 * @foreign: of those, chunks run on a thread not charged to the caller
 * @check_owner: a default job is running: count @helped and @foreign
 * @start_node: while a checked job runs, the node each chunk started
 *	on, at the index of its first page; %NUMA_NO_NODE elsewhere
 * @nodes: @start_node's array (with @numa_check on two or more nodes)
 */
struct pages_set {
	struct page **dst;
	struct page **src;
	unsigned long nr;
	enum pages_op op;
	struct task_struct *caller;
	atomic_t helped;
	atomic_t foreign;
	bool check_owner;
	int *start_node;
	int *nodes;
};

static const char *pages_op_name(const struct pages_set *set)
{
	return set->op == PAGES_CLEAR ? "clear" : "copy";
}

/* Whether the current thread's time is charged to @set->caller's process. */
static bool pages_charged(const struct pages_set *set)
{
	/* A user worker thread of the process (6.11 and later)... */
	if (same_thread_group(current, set->caller))
		return true;
	/* ...or, on kernels without them, a kthread worker "ws/<cpu>:u<n>". */
	return (current->flags & PF_KTHREAD) &&
	       !strncmp(current->comm, "ws/", 3) &&
	       strstr(current->comm, ":u");
}

/*
 * Clear or copy pages [@begin, @end) of @set, with a cond_resched()
 * after every page as folio_copy() and process_huge_page() (the clearing
 * of a huge page) have: a range is up to a gigabyte, and without it, on a
 * kernel without full preemption (Debian's 6.1 and 6.12 default to
 * voluntary), the thread that runs it keeps its CPU for as long, however
 * many other tasks wait there (a static share took 133 of 145 ms of the
 * CPU of a hog beside it, Documentation/performance.rst).
 */
static void pages_range(unsigned long begin, unsigned long end, void *arg)
{
	struct pages_set *set = arg;
	unsigned long i;

	/* Written before the job, read after it: ordered by ws_job_run(). */
	if (set->check_owner && current != set->caller) {
		atomic_inc(&set->helped);
		if (!pages_charged(set))
			atomic_inc(&set->foreign);
	}
	if (set->start_node)
		set->start_node[begin] = cpu_to_node(raw_smp_processor_id());
	for (i = begin; i < end; i++) {
		if (set->op == PAGES_CLEAR)
			clear_page(page_address(set->dst[i]));
		else
			copy_page(page_address(set->dst[i]),
				  page_address(set->src[i]));
		cond_resched();
	}
}

/* The word at @word of source page @index. */
static u64 pages_pattern(unsigned long index, unsigned int word)
{
	return ((u64)index << 32 | word) * 0x9e3779b97f4a7c15ULL + 1;
}

static void pages_fill(struct page **pages, unsigned long nr, bool pattern)
{
	const unsigned int words = PAGE_SIZE / sizeof(u64);
	unsigned long i;
	unsigned int w;

	for (i = 0; i < nr; i++) {
		u64 *p = page_address(pages[i]);

		for (w = 0; w < words; w++)
			p[w] = pattern ? pages_pattern(i, w) : ~0ULL;
		cond_resched();
	}
}

/* Pages of @set->dst that do not hold what @set->op should have left. */
static unsigned long pages_check(struct pages_set *set)
{
	const unsigned int words = PAGE_SIZE / sizeof(u64);
	unsigned long i, bad = 0;
	unsigned int w;

	for (i = 0; i < set->nr; i++) {
		const u64 *p = page_address(set->dst[i]);

		for (w = 0; w < words; w++) {
			u64 want = set->op == PAGES_CLEAR ? 0 :
				   pages_pattern(i, w);

			if (p[w] != want) {
				bad++;
				break;
			}
		}
		cond_resched();
	}
	return bad;
}

/* ---- NUMA placement ---- */

/* Nodes with CPUs, all with memory, for @numa_check; 0 to skip. */
static unsigned int pages_numa_nodes(void)
{
	unsigned int nr = 0;
	int node;

	for_each_node_state(node, N_CPU) {
		if (!node_state(node, N_MEMORY))
			return 0;
		nr++;
	}
	return nr >= 2 ? nr : 0;
}

/* The node whose share holds page @i, and the share's first page. */
static int pages_share(unsigned long nr, unsigned long i, unsigned long *first)
{
	unsigned int nodes = pages_numa_nodes(), k = 0;
	int node;

	for_each_node_state(node, N_CPU) {
		unsigned long lo = nr * k / nodes, hi = nr * (k + 1) / nodes;

		if (i >= lo && i < hi) {
			*first = lo;
			return node;
		}
		k++;
	}
	*first = 0;
	return NUMA_NO_NODE;
}

/* Chunks of the checked jobs, and those that started on their node. */
static unsigned long pages_numa_chunks, pages_numa_local;

/*
 * After a NUMA-aware job: count the chunks that started on the node of
 * their first page, and say where the chunk holding the first page of
 * each node's share started (the first chunk a node's helpers claim,
 * unless the other nodes' threads got there first: timing, not checked).
 */
static void pages_numa_count(struct pages_set *set, const char *variant)
{
	unsigned long i, chunks = 0, local = 0, first;

	for (i = 0; i < set->nr; i++) {
		int node = set->nodes[i];

		if (node == NUMA_NO_NODE)
			continue;
		chunks++;
		local += node == page_to_nid(set->dst[i]);
	}
	for (i = 0; i < set->nr; i++) {
		int want = pages_share(set->nr, i, &first);
		unsigned long b = i;

		if (first != i)
			continue;
		/* The chunk that holds page @i began at or before it. */
		while (b && set->nodes[b] == NUMA_NO_NODE)
			b--;
		pr_info("numa: op=%s variant=%s: the share of node %d (page %lu) started on node %d\n",
			pages_op_name(set), variant, want, i, set->nodes[b]);
	}
	pr_info("numa: op=%s variant=%s: %lu of %lu chunks started on the node of their memory\n",
		pages_op_name(set), variant, local, chunks);
	pages_numa_chunks += chunks;
	pages_numa_local += local;
	for (i = 0; i < set->nr; i++)
		set->nodes[i] = NUMA_NO_NODE;
}

/*
 * At least two thirds of all checked chunks must have started on the
 * node of their memory (placement that ignored nodes would give about
 * one in as many as there are nodes).  -EIO if not.
 */
static int pages_numa_verify(void)
{
	bool ok = pages_numa_local * 3 >= pages_numa_chunks * 2 &&
		  pages_numa_chunks;

	pr_info("numa: %s: %lu of %lu chunks started on the node of their memory (at least 2/3 wanted)\n",
		ok ? "ok" : "FAILED", pages_numa_local, pages_numa_chunks);
	return ok ? 0 : -EIO;
}

/* ---- static split over an unbound workqueue, as padata does ---- */

/**
 * struct pages_work - one thread's share of a static split
 * @work: queued on system_unbound_wq
 * @set: the pages
 * @begin: first page of the share
 * @end: one past its last page
 */
struct pages_work {
	struct work_struct work;
	struct pages_set *set;
	unsigned long begin;
	unsigned long end;
};

static void pages_work_fn(struct work_struct *work)
{
	struct pages_work *pw = container_of(work, struct pages_work, work);

	pages_range(pw->begin, pw->end, pw->set);
}

/* @nr_threads equal shares; the caller runs share 0.  -ENOMEM. */
static int pages_static(struct pages_set *set, unsigned int nr_threads)
{
	struct pages_work *pw;
	unsigned int t;

	pw = kcalloc(nr_threads, sizeof(*pw), GFP_KERNEL);
	if (!pw)
		return -ENOMEM;
	for (t = 0; t < nr_threads; t++) {
		pw[t].set = set;
		pw[t].begin = set->nr * t / nr_threads;
		pw[t].end = set->nr * (t + 1) / nr_threads;
		INIT_WORK(&pw[t].work, pages_work_fn);
		if (t)
			queue_work(system_unbound_wq, &pw[t].work);
	}
	pages_range(pw[0].begin, pw[0].end, set);
	/* flush_work() orders the helpers' writes before our checks. */
	for (t = 1; t < nr_threads; t++)
		flush_work(&pw[t].work);
	kfree(pw);
	return 0;
}

/* ---- the job ---- */

/* @pool NULL: the caller's own worker set (for insmod, a user pool). */
static int pages_job(struct pages_set *set, unsigned int nr_threads,
		     struct ws_pool *pool)
{
	struct ws_job job = {
		.thread_fn = pages_range,
		.fn_arg = set,
		.start = 0,
		.size = set->nr,
		.align = 1,
		.min_chunk = min_t(unsigned long, PAGES_MIN_CHUNK, set->nr),
		.max_threads = nr_threads,
		.numa_aware = true,
		.pool = pool,
	};

	return ws_job_run(&job);
}

enum pages_variant {
	PAGES_SERIAL, PAGES_STATIC, PAGES_JOB, PAGES_JOB_SYSTEM, PAGES_VARIANTS
};

static const char *const pages_variant_name[] = {
	[PAGES_SERIAL] = "serial",
	[PAGES_STATIC] = "static",
	[PAGES_JOB] = "job",
	[PAGES_JOB_SYSTEM] = "job_system",
};

/* Times of each variant in each round, in ns. */
static u64 pages_ns[PAGES_VARIANTS][PAGES_MAX_REPS];

/* Run @variant of @set->op once, time it into *@ns and check it. */
static int pages_once(struct pages_set *set, enum pages_variant variant,
		      unsigned int nr_threads, u64 *ns)
{
	unsigned long bad;
	ktime_t t0;
	int ret = 0;

	/* Something other than the result, so a skipped page shows. */
	pages_fill(set->dst, set->nr, false);
	t0 = ktime_get();
	switch (variant) {
	case PAGES_SERIAL:
		pages_range(0, set->nr, set);
		break;
	case PAGES_STATIC:
		ret = pages_static(set, nr_threads);
		break;
	case PAGES_JOB:
		set->check_owner = true;
		ret = pages_job(set, nr_threads, NULL);
		set->check_owner = false;
		break;
	default:
		set->start_node = set->nodes;
		ret = pages_job(set, nr_threads, ws_system_pool);
		set->start_node = NULL;
		break;
	}
	*ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	if (ret) {
		pr_err("op=%s variant=%s failed: %d\n", pages_op_name(set),
		       pages_variant_name[variant], ret);
		return ret;
	}
	bad = pages_check(set);
	if (bad) {
		pr_err("op=%s variant=%s: %lu of %lu pages wrong\n",
		       pages_op_name(set), pages_variant_name[variant], bad,
		       set->nr);
		return -EIO;
	}
	if (set->nodes && variant == PAGES_JOB_SYSTEM)
		pages_numa_count(set, pages_variant_name[variant]);
	if (atomic_read(&set->foreign)) {
		pr_err("op=%s variant=%s: %d chunks ran on threads not charged to the caller\n",
		       pages_op_name(set), pages_variant_name[variant],
		       atomic_read(&set->foreign));
		return -EIO;
	}
	return 0;
}

static int pages_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The median, minimum and maximum of @n values (sorted in place). */
static void pages_stats(u64 *v, unsigned int n, u64 *med, u64 *lo, u64 *hi)
{
	sort(v, n, sizeof(*v), pages_cmp, NULL);
	*med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	*lo = v[0];
	*hi = v[n - 1];
}

/*
 * A row for tools/bench: job variant @ws against @base, with the median,
 * min and max over the rounds of base / ws (in thousandths).
 */
static void pages_row(const struct pages_set *set, enum pages_variant base,
		      enum pages_variant ws, unsigned int nr_threads)
{
	u64 ratio[PAGES_MAX_REPS], b[PAGES_MAX_REPS], w[PAGES_MAX_REPS];
	u64 rmed, rmin, rmax, bmed, bmin, bmax, wmed, wmin, wmax;
	unsigned int r;

	for (r = 0; r < reps; r++) {
		b[r] = pages_ns[base][r];
		w[r] = pages_ns[ws][r];
		ratio[r] = div64_u64(b[r] * 1000, max(w[r], 1ULL));
	}
	pages_stats(ratio, reps, &rmed, &rmin, &rmax);
	pages_stats(b, reps, &bmed, &bmin, &bmax);
	pages_stats(w, reps, &wmed, &wmin, &wmax);
	pr_info("row name=pages_%s%s%s baseline=%s base_ns=%llu ws_ns=%llu ratio=%llu.%03llu ratio_min=%llu.%03llu ratio_max=%llu.%03llu min=%llu max=%llu base_min=%llu base_max=%llu pages=%lu threads=%u\n",
		pages_op_name(set), ws == PAGES_JOB ? "" : "_syspool", tag,
		pages_variant_name[base], bmed, wmed,
		rmed / 1000, rmed % 1000, rmin / 1000, rmin % 1000,
		rmax / 1000, rmax % 1000, wmin, wmax, bmin, bmax, set->nr,
		nr_threads);
}

/*
 * Run every variant of @set->op in @reps rounds, one run of each per
 * round; print each variant's fastest run and, with @bench, the rows.
 */
static int pages_op(struct pages_set *set, unsigned int nr_threads)
{
	enum pages_variant v;
	unsigned int r;
	int ret;

	for (r = 0; r < reps; r++) {
		for (v = 0; v < PAGES_VARIANTS; v++) {
			ret = pages_once(set, v, nr_threads, &pages_ns[v][r]);
			if (ret)
				return ret;
		}
	}
	for (v = 0; v < PAGES_VARIANTS; v++) {
		u64 best = pages_ns[v][0];

		for (r = 1; r < reps; r++)
			best = min(best, pages_ns[v][r]);
		pr_info("op=%s variant=%s pages=%lu threads=%u us=%llu\n",
			pages_op_name(set), pages_variant_name[v], set->nr,
			v == PAGES_SERIAL ? 1 : nr_threads,
			div_u64(best, NSEC_PER_USEC));
	}
	if (bench) {
		pages_row(set, PAGES_SERIAL, PAGES_JOB, nr_threads);
		pages_row(set, PAGES_STATIC, PAGES_JOB, nr_threads);
		pages_row(set, PAGES_STATIC, PAGES_JOB_SYSTEM, nr_threads);
	}
	return 0;
}

static void pages_free(struct page **pages, unsigned long nr)
{
	unsigned long i;

	for (i = 0; pages && i < nr; i++)
		if (pages[i])
			__free_page(pages[i]);
	kvfree(pages);
}

/* @nr pages; with @per_node, in equal shares on the nodes with CPUs. */
static struct page **pages_alloc(unsigned long nr, bool per_node)
{
	struct page **pages = kvcalloc(nr, sizeof(*pages), GFP_KERNEL);
	unsigned long i, first;

	if (!pages)
		return NULL;
	for (i = 0; i < nr; i++) {
		/* Order 0 and mapped (no highmem), as clear_page() needs. */
		if (per_node)
			pages[i] = alloc_pages_node(pages_share(nr, i, &first),
						    GFP_KERNEL | __GFP_THISNODE |
						    __GFP_NOWARN, 0);
		else
			pages[i] = alloc_page(GFP_KERNEL | __GFP_NOWARN);
		if (!pages[i]) {
			pages_free(pages, nr);
			return NULL;
		}
		cond_resched();
	}
	return pages;
}

/*
 * The saturating job: clear @set with the default job (or, with
 * @loop_static, the static split) for @loop_s s.
 */
static int pages_loop(struct pages_set *set, unsigned int nr_threads)
{
	u64 end = ktime_get_ns() + (u64)loop_s * NSEC_PER_SEC;
	unsigned long jobs = 0;
	int ret;

	set->op = PAGES_CLEAR;
	do {
		if (loop_static)
			ret = pages_static(set, nr_threads);
		else
			ret = pages_job(set, nr_threads, NULL);
		if (ret)
			return ret;
		jobs++;
	} while (ktime_get_ns() < end);
	pr_info("loop: %lu %s of %lu pages in %u s\n", jobs,
		loop_static ? "static splits" : "jobs", set->nr, loop_s);
	return 0;
}

static int __init wsched_pages_init(void)
{
	unsigned int nr_threads = threads ? threads : num_online_cpus();
	struct pages_set set = { };
	int ret = -ENOMEM;

	if (!size_mb || size_mb > 1024 || !reps || reps > PAGES_MAX_REPS ||
	    nr_threads > 1024 || loop_s > 600)
		return -EINVAL;
	set.nr = (unsigned long)size_mb * (SZ_1M / PAGE_SIZE);
	if (numa_check && !pages_numa_nodes())
		pr_info("numa: check skipped: fewer than two nodes with CPUs (and memory)\n");
	if (numa_check && pages_numa_nodes()) {
		unsigned long i;

		set.nodes = kvmalloc_array(set.nr, sizeof(*set.nodes),
					   GFP_KERNEL);
		if (!set.nodes)
			goto out;
		for (i = 0; i < set.nr; i++)
			set.nodes[i] = NUMA_NO_NODE;
	}
	set.dst = pages_alloc(set.nr, !!set.nodes);
	set.src = pages_alloc(set.nr, !!set.nodes);
	if (!set.dst || !set.src)
		goto out;
	set.caller = current;
	if (loop_s) {
		ret = pages_loop(&set, nr_threads);
		goto out;
	}
	pages_fill(set.src, set.nr, true);

	set.op = PAGES_CLEAR;
	ret = pages_op(&set, nr_threads);
	if (ret)
		goto out;
	set.op = PAGES_COPY;
	ret = pages_op(&set, nr_threads);
	if (ret)
		goto out;
	if (set.nodes) {
		ret = pages_numa_verify();
		if (ret)
			goto out;
	}
	pr_info("%lu pages cleared and copied four ways, all checked ok; %d chunks of the default job on the caller's helpers\n",
		set.nr, atomic_read(&set.helped));
out:
	pages_free(set.dst, set.nr);
	pages_free(set.src, set.nr);
	kvfree(set.nodes);
	return ret;
}

static void __exit wsched_pages_exit(void)
{
}

module_init(wsched_pages_init);
module_exit(wsched_pages_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wsched sample: clearing and copying pages with ws_job_run()");
MODULE_AUTHOR("wsched developers");
