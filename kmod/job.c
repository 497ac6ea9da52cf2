// SPDX-License-Identifier: GPL-2.0
/*
 * wsched jobs: ws_job_run(), a multithreaded job over an index range for
 * run time, with what padata_do_multithreaded() takes at boot.
 *
 * A job is cut into chunks whose inner boundaries are multiples of one
 * chunk size, itself a multiple of the job's alignment; only the first
 * chunk may start, and only the last may end, off such a boundary.  The
 * chunks are claimed one at a time from a shared counter (per NUMA node
 * for a NUMA-aware job) by the caller and by at most max_threads - 1
 * helper tasks spawned into a pool, so a thread that is slowed down (a
 * CPU hog beside it, an interrupt storm, a slower core) simply claims
 * fewer chunks: nobody waits for the slowest static share.  A helper that
 * has run out of chunks of its own node moves on to the other nodes'.
 *
 * The pool is the one the job names or, by default, one that charges the
 * work to the caller: the caller's own pool if it is a wsched worker, the
 * system pool for a kthread (which belongs to no process) or an exiting
 * process, and for a thread of a user process that process's own worker
 * set, the pool /dev/wsched runs its graphs in (proc.c), grown by as many
 * threads as the job can use.  The process's entry is kept in a small
 * cache after the job, so that the next job finds the pool and its idle
 * threads; an entry unused for as long as an idle worker stays
 * (ws_worker_idle_ms) is dropped by a delayed work that runs only while
 * the cache holds entries.  Where no helper can be had the caller runs
 * every chunk itself.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/overflow.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/topology.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>

#include "wsched_internal.h"
#include "wsched_trace.h"
#include "wsd_proc.h"

/*
 * Chunks per thread: enough that a thread slowed to half speed leaves
 * the others little to wait for, few enough that claiming a chunk (one
 * atomic increment on a shared line) stays negligible.  The others wait
 * for at most the last chunk of the slowest thread: at half speed that
 * is 2 / (threads * %WS_JOB_CHUNKS_PER_THREAD) of the job's work, 3 % of
 * it for two threads (with 8, as padata's 4, it was 12.5 %: beside a
 * hog, a bound helper on the hog's CPU kept its caller waiting for 1 to
 * 12 ms of jobs of 29 to 129 ms).  @job->min_chunk bounds the count
 * for jobs whose calls are dear.
 */
#define WS_JOB_CHUNKS_PER_THREAD	32

/**
 * struct ws_job_part - the chunks of one NUMA node (or of the whole job)
 * @next: index of the next chunk to claim; may run past @end by at most
 *	one per thread that found the part empty (A)
 * @end: one past the index of the part's last chunk (I)
 * @node: the node the part is meant to run on, or %NUMA_NO_NODE (I)
 * @threads: threads whose first part this is, to spread their CPUs (I)
 */
struct ws_job_part {
	atomic_long_t next;
	unsigned long end;
	int node;
	unsigned int threads;
};

/**
 * struct ws_job_state - one run of a job, on its caller's stack
 * @job: the caller's description
 * @base: @job->start rounded down to a multiple of @chunk
 * @chunk: the chunk size, a multiple of @job->align
 * @end: one past the job's last index
 * @nr_chunks: chunks of the job
 * @threads: most threads that may run chunks, the caller included
 * @nr_parts: entries of @parts
 * @parts: the parts, one per node for a NUMA-aware job, else @one
 * @one: the only part of a job that is not split by node
 * @group: the helper tasks; the caller waits for it
 */
struct ws_job_state {
	const struct ws_job *job;
	unsigned long base;
	unsigned long chunk;
	unsigned long end;
	unsigned long nr_chunks;
	unsigned int threads;
	unsigned int nr_parts;
	struct ws_job_part *parts;
	struct ws_job_part one;
	struct ws_group group;
};

/**
 * struct ws_job_helper - a helper task: claims and runs chunks
 * @task: the task, in the job's group
 * @st: the job
 * @home: the part it claims from first
 */
struct ws_job_helper {
	struct ws_task task;
	struct ws_job_state *st;
	unsigned int home;
};

/* Run chunk @k of the job: its indices within [start, end). */
static void ws_job_chunk(struct ws_job_state *st, unsigned long k)
{
	const struct ws_job *job = st->job;
	/* No overflow: chunk @k < nr_chunks begins before @st->end. */
	unsigned long lo = st->base + k * st->chunk;
	unsigned long hi = st->end - lo > st->chunk ? lo + st->chunk : st->end;

	job->thread_fn(max(lo, job->start), hi, job->fn_arg);
}

/*
 * Claim and run chunks until none is left: first those of part @home,
 * then those of the other parts in turn.
 */
static void ws_job_work(struct ws_job_state *st, unsigned int home)
{
	unsigned int i;

	for (i = 0; i < st->nr_parts; i++) {
		struct ws_job_part *part = &st->parts[(home + i) % st->nr_parts];

		for (;;) {
			/*
			 * Relaxed: the increment only has to hand each
			 * index to one thread.  The chunks' writes reach the
			 * caller through the group's completion (the helper
			 * task's fully ordered completion, paired with the
			 * acquire of ws_group_wait()), not through @next.
			 */
			unsigned long k = atomic_long_fetch_inc_relaxed(&part->next);

			if (k >= part->end)
				break;
			ws_job_chunk(st, k);
			cond_resched();
		}
	}
}

static struct ws_task *ws_job_helper_fn(struct ws_task *task)
{
	struct ws_job_helper *h = container_of(task, struct ws_job_helper,
					       task);

	ws_job_work(h->st, h->home);
	return NULL;
}

/*
 * Size the job as padata does: one thread per minimum chunk (or alignment
 * unit) of work up to @job->max_threads (and nr_cpu_ids), each with about
 * %WS_JOB_CHUNKS_PER_THREAD chunks of at least @job->min_chunk indices,
 * rounded up to the alignment.
 */
static void ws_job_plan(struct ws_job_state *st, const struct ws_job *job)
{
	unsigned long unit = max3(job->min_chunk, job->align, 1UL);
	unsigned long threads = max(job->size / unit, 1UL);
	unsigned long chunk, rounded;

	/* More threads than CPU numbers would never run at once. */
	threads = min3(threads, (unsigned long)job->max_threads,
		       (unsigned long)nr_cpu_ids);

	chunk = job->size / (threads * WS_JOB_CHUNKS_PER_THREAD);
	chunk = max3(chunk, job->min_chunk, 1UL);
	/* The alignment is a power of two; a chunk that would wrap is all. */
	if (check_add_overflow(chunk, job->align - 1, &rounded))
		rounded = ULONG_MAX;
	chunk = rounded & ~(job->align - 1);

	st->job = job;
	st->chunk = chunk;
	st->end = job->start + job->size;
	st->base = job->start - job->start % chunk;
	st->nr_chunks = (st->end - 1 - st->base) / chunk + 1;
	st->threads = min(threads, st->nr_chunks);
}

/*
 * The @n-th CPU after @self (in CPU number order, wrapping around) that
 * is online, in @mask and on @node (any node for %NUMA_NO_NODE), other
 * than @self; or @self if it is the only one on @node; or -1.
 */
static int ws_job_helper_cpu(int node, const struct cpumask *mask,
			     unsigned int n, int self)
{
	const struct cpumask *span = node == NUMA_NO_NODE ? cpu_online_mask :
				     cpumask_of_node(node);
	unsigned int weight = 0;
	int cpu;

	for_each_cpu_and(cpu, span, mask)
		if (cpu_online(cpu) && cpu != self)
			weight++;
	if (!weight)
		return cpumask_test_cpu(self, span) ? self : -1;
	n %= weight;
	/* From @self + 1 on, so that jobs from other CPUs spread too. */
	for_each_cpu_wrap(cpu, span, (self + 1) % nr_cpu_ids)
		if (cpumask_test_cpu(cpu, mask) && cpu_online(cpu) &&
		    cpu != self && !n--)
			return cpu;
	return -1;
}

/*
 * Split the chunks into one part per NUMA node that has CPUs the job may
 * run on (@mask), in equal shares in node order.  Return the part the
 * caller starts with: the one of its own node, else the first.  Without
 * two such nodes, or without memory for the parts, the job has one part.
 */
static unsigned int ws_job_split(struct ws_job_state *st,
				 const struct cpumask *mask)
{
	nodemask_t nodes = NODE_MASK_NONE;
	unsigned int nr = 0, p = 0, home = 0;
	int cpu, node;

	st->parts = &st->one;
	st->nr_parts = 1;
	atomic_long_set(&st->one.next, 0);
	st->one.end = st->nr_chunks;
	st->one.node = NUMA_NO_NODE;
	st->one.threads = 0;
	if (!st->job->numa_aware)
		return 0;
	for_each_cpu_and(cpu, mask, cpu_online_mask)
		node_set(cpu_to_node(cpu), nodes);
	nr = min_t(unsigned long, nodes_weight(nodes), st->nr_chunks);
	if (nr < 2)
		return 0;
	st->parts = kcalloc(nr, sizeof(*st->parts), GFP_KERNEL);
	if (!st->parts) {
		st->parts = &st->one;
		return 0;
	}
	st->nr_parts = nr;
	for_each_node_mask(node, nodes) {
		struct ws_job_part *part;

		if (p == nr)
			break;
		part = &st->parts[p];
		/*
		 * No overflow: a chunk holds at least size / (threads *
		 * %WS_JOB_CHUNKS_PER_THREAD) indices rounded down, or 1,
		 * so nr_chunks is below 2 * nr_cpu_ids *
		 * %WS_JOB_CHUNKS_PER_THREAD + 2, and @nr is at most
		 * MAX_NUMNODES.
		 */
		atomic_long_set(&part->next, st->nr_chunks * p / nr);
		part->end = st->nr_chunks * (p + 1) / nr;
		part->node = node;
		if (node == numa_node_id())
			home = p;
		p++;
	}
	return home;
}

/*
 * The IPI handler of ws_job_wake_on(), on the CPU meant for a helper:
 * wake one idle worker of user pool @arg as ws_wake_one() does, but with
 * the flag of a waker that is about to sleep (WS_WF_SYNC, what
 * __wake_up_sync_key() passes), so that the scheduler puts the worker on
 * this CPU rather than on its previous one.
 */
static void ws_job_wake_here(void *arg)
{
	struct ws_pool *pool = arg;

	/*
	 * The caller pushed the helper task before it queued this call
	 * (fully ordered: llist_add() onto the target's call queue), and we
	 * took the call after that.  Order that push, seen through the call,
	 * before the read of nr_idle; pairs with the smp_mb() in
	 * ws_worker_sleep(), as in ws_wake_idle().
	 */
	smp_mb();
	if (atomic_read(&pool->nr_idle))
		__ws_wake_one(pool, WS_WF_SYNC);
}

/*
 * Wake a worker of user pool @pool for a helper task that the caller
 * queued on its own slot (ws_spawn_local(), which wakes nobody): from
 * @cpu, the CPU the helper should run on, with the flag of a waker that
 * is about to sleep; from here, without it, if @cpu is -1, ours or
 * offline.
 *
 * Where the scheduler puts a woken thread (select_task_rq_fair(), 6.1
 * and 6.12): on the waker's CPU or the thread's previous one, whichever
 * wake_affine() picks, unless an idle CPU sharing the chosen one's cache
 * is found (select_idle_sibling()).  With no CPU idle, wake_affine()
 * weighs the two CPUs' loads (wake_affine_weight()) and, loads equal,
 * favours the waker's.  Woken from the caller's CPU, the helper landed
 * there (Documentation/performance.rst: 12 to 17 of 22 wake-ups beside
 * a hog; the others where it ran last).  Woken from @cpu without a flag,
 * it still went back to the caller's CPU in 17 of 21: it had run there
 * last (the caller's CPU pulls it when the caller waits at the end of a
 * job), and @cpu, with the hog and what else ran there, weighed more.  A
 * waker about to sleep changes that: wake_affine_idle() takes the
 * waker's CPU when it runs one task, and wake_affine_weight() leaves the
 * waker's own load out; 60 of 63 landed on @cpu.  The flag is true of
 * the CPU, not of the interrupted task: this CPU is meant to take the
 * helper.  It stays a hint: a CPU the thread may not use is not taken
 * (want_affine), an idle CPU is still preferred, and the load balancer
 * moves the thread as any other.
 *
 * The call waits for the handler (smp_call_function_single() with
 * @wait): nothing of the job is reached from the interrupt once it
 * returns, and the pool, held by our caller for the whole job, outlives
 * it.  A target going offline meanwhile runs the handler as it leaves
 * (smpcfd_dying_cpu()); one that is offline already gets -ENXIO, and the
 * wake is made here.  A lost wake-up would cost only parallelism: the
 * task stays on our slot, where our ws_group_wait() runs it.
 */
static void ws_job_wake_on(struct ws_pool *pool, int cpu)
{
	if (cpu >= 0 && cpu != raw_smp_processor_id() &&
	    !smp_call_function_single(cpu, ws_job_wake_here, pool, 1))
		return;
	ws_wake_idle(pool);
}

/*
 * Run the planned job in @pool (NULL: on the caller alone) with at most
 * @helpers helper tasks besides the caller.
 */
static void ws_job_exec(struct ws_job_state *st, struct ws_pool *pool,
			unsigned int helpers)
{
	const struct cpumask *mask = pool && !pool->user ? pool->cpumask :
				     current->cpus_ptr;
	struct ws_worker *slot = NULL, *joined = NULL;
	struct ws_job_helper *h = NULL;
	unsigned int home, i;
	int self;

	home = ws_job_split(st, mask);
	if (pool && helpers) {
		h = kcalloc(helpers, sizeof(*h), GFP_KERNEL);
		if (!h)
			helpers = 0;
	} else {
		helpers = 0;
	}
	/*
	 * In a user pool the helpers go to a slot of the caller's (its own
	 * if it is a worker of the pool, else a join slot, which its
	 * ws_group_wait() would take anyway) without a wake-up, so that
	 * the wake-up can come from the CPU each helper should run on
	 * (ws_job_wake_on()).  No lazy spawns, so no owner: the helpers
	 * are counted in the group.  With every join slot taken, the
	 * helpers are spawned as anywhere else.
	 */
	if (helpers && pool->user) {
		slot = ws_pool_current(pool);
		if (!slot) {
			joined = ws_join(pool);
			slot = joined;
		}
	}
	if (slot)
		ws_group_init_done(&st->group, pool, NULL);
	else if (helpers)
		ws_group_init(&st->group, pool);
	/* A hint: which CPU the caller is on now only steers placement. */
	self = raw_smp_processor_id();
	for (i = 0; i < helpers; i++) {
		unsigned int p = (home + 1 + i) % st->nr_parts;
		struct ws_job_part *part = &st->parts[p];
		int cpu;

		ws_task_init(&h[i].task, ws_job_helper_fn);
		h[i].st = st;
		h[i].home = p;
		/*
		 * Every helper is meant for a CPU of its part's node (of any
		 * node in a job of one part) other than the caller's, which
		 * the caller keeps busy.  Woken from the caller alone, the
		 * helper may start on the caller's CPU: in a pool whose
		 * workers are bound to CPUs, the first idle worker may be the
		 * caller's CPU's, and in a user pool the scheduler puts the
		 * thread woken from there beside the caller.  The two then
		 * share that CPU while another has a CPU-bound task alone (a
		 * hog beside the job), which the load balancer, with two
		 * tasks on one CPU against one on the other either way, does
		 * not fix (Documentation/performance.rst).  So a bound pool's
		 * helper is mailed to that CPU's worker, and a user pool's
		 * (whose threads are not bound to CPUs and whose slots take
		 * no mail) is woken from that CPU.
		 */
		cpu = ws_job_helper_cpu(part->node, mask, part->threads, self);
		part->threads++;
		if (slot) {
			ws_spawn_local(slot, &st->group, &h[i].task);
			ws_job_wake_on(pool, cpu);
		} else if (cpu >= 0 && !pool->user) {
			ws_spawn_on(&st->group, &h[i].task, cpu);
		} else {
			ws_spawn(&st->group, &h[i].task);
		}
	}
	ws_job_work(st, home);
	/*
	 * Neither fails nor is cancelled (the group is ours): it returns
	 * once every helper has finished, and their chunks' writes are then
	 * visible here.
	 */
	if (helpers)
		ws_group_wait(&st->group);
	/* Our deque is empty: the wait ran or saw run every helper. */
	if (joined)
		ws_release_slot(joined);
	kfree(h);
	if (st->parts != &st->one)
		kfree(st->parts);
}

/* Helpers a pool can run besides the caller, for @threads in all. */
static unsigned int ws_job_helpers(struct ws_pool *pool, unsigned int threads)
{
	unsigned int nr = ws_pool_nr_workers(pool);

	/* A worker of @pool that calls is one of them, and busy. */
	if (nr && ws_in_pool(pool))
		nr--;
	return min(threads - 1, nr);
}

/* The pool of the current thread if it is a worker of a pool, or NULL. */
static struct ws_pool *ws_job_own_pool(void)
{
	struct ws_worker *worker = ws_user_worker_of(current);

	if (worker)
		return worker->pool;
	if ((current->flags & PF_KTHREAD) &&
	    kthread_func(current) == ws_worker_thread) {
		worker = kthread_data(current);
		return worker->pool;
	}
	return NULL;
}

/*
 * For the tests: the job in a user pool of the calling process made for
 * it and never grown, as a process that may not have another thread
 * (pids.max, RLIMIT_NPROC) gets none, then destroyed.
 */
static void ws_job_threadless(struct ws_job_state *st)
{
	unsigned int want = min(st->threads,
				cpumask_weight(current->cpus_ptr)) - 1;
	struct ws_pool *pool;

	if (!want) {
		ws_job_exec(st, NULL, 0);
		return;
	}
	pool = ws_pool_create_user();
	if (IS_ERR(pool)) {
		ws_job_exec(st, NULL, 0);
		return;
	}
	ws_job_exec(st, pool, min(want, ws_pool_nr_workers(pool)));
	ws_pool_destroy(pool);
}

/* ---- the worker sets of user processes, kept between jobs ---- */

/**
 * struct ws_job_proc - a process whose worker set ran jobs
 * @link: in ws_job_procs
 * @proc: the process's entry (proc.c), with a reference of the cache
 * @users: jobs of the process running now
 * @last: jiffies when the last of them finished
 *
 * All fields are under ws_job_procs_lock.
 */
struct ws_job_proc {
	struct list_head link;
	struct wsd_proc *proc;
	unsigned int users;
	unsigned long last;
};

static LIST_HEAD(ws_job_procs);
/* Guards ws_job_procs and its entries; taken outside wsd_procs_lock. */
static DEFINE_MUTEX(ws_job_procs_lock);

static void ws_job_reap(struct work_struct *work);
static DECLARE_DELAYED_WORK(ws_job_reaper, ws_job_reap);

/*
 * Drop the entries unused for ws_user_idle_jiffies(): by then their
 * threads have left.  Comes back while entries remain, never otherwise.
 */
static void ws_job_reap(struct work_struct *work)
{
	unsigned long idle = ws_user_idle_jiffies(), next = jiffies + idle;
	struct ws_job_proc *jp, *tmp;
	bool again = false;
	LIST_HEAD(dead);

	mutex_lock(&ws_job_procs_lock);
	list_for_each_entry_safe(jp, tmp, &ws_job_procs, link) {
		if (jp->users)
			continue;
		if (time_after_eq(jiffies, jp->last + idle)) {
			list_move(&jp->link, &dead);
			continue;
		}
		if (time_before(jp->last + idle, next))
			next = jp->last + idle;
		again = true;
	}
	/* Entries in use are seen again when their job finishes. */
	if (again)
		mod_delayed_work(system_wq, &ws_job_reaper,
				 max_t(long, next - jiffies, 1));
	mutex_unlock(&ws_job_procs_lock);
	list_for_each_entry_safe(jp, tmp, &dead, link) {
		/* The last reference stops the threads and frees the pool. */
		wsd_proc_put(jp->proc);
		kfree(jp);
	}
}

/*
 * The calling process's entry, found or made (with its pool, proc.c),
 * in use until ws_job_proc_put(); NULL without memory.
 */
static struct ws_job_proc *ws_job_proc_get(void)
{
	struct pid *tgid = task_tgid(current);
	struct ws_job_proc *jp;
	struct wsd_proc *proc;

	mutex_lock(&ws_job_procs_lock);
	list_for_each_entry(jp, &ws_job_procs, link)
		if (jp->proc->tgid == tgid)
			goto found;
	jp = kzalloc(sizeof(*jp), GFP_KERNEL_ACCOUNT);
	if (!jp)
		goto out;
	proc = wsd_proc_get();
	if (IS_ERR(proc)) {
		kfree(jp);
		jp = NULL;
		goto out;
	}
	jp->proc = proc;
	list_add(&jp->link, &ws_job_procs);
found:
	jp->users++;
out:
	mutex_unlock(&ws_job_procs_lock);
	return jp;
}

static void ws_job_proc_put(struct ws_job_proc *jp)
{
	mutex_lock(&ws_job_procs_lock);
	jp->last = jiffies;
	if (!--jp->users && !delayed_work_pending(&ws_job_reaper))
		queue_delayed_work(system_wq, &ws_job_reaper,
				   ws_user_idle_jiffies());
	mutex_unlock(&ws_job_procs_lock);
}

/**
 * ws_job_exit - drop the cached worker sets, at module exit
 *
 * No job can be running: a caller's module holds a reference to wsched.
 *
 * Context: process context, sleeps.
 */
void ws_job_exit(void)
{
	struct ws_job_proc *jp, *tmp;

	cancel_delayed_work_sync(&ws_job_reaper);
	list_for_each_entry_safe(jp, tmp, &ws_job_procs, link) {
		list_del(&jp->link);
		wsd_proc_put(jp->proc);
		kfree(jp);
	}
}

/*
 * The job in the calling process's own worker set, grown to the threads
 * the job can use, the caller's scheduling attributes and cgroups given
 * to kthread workers first (ws_user_refresh()).
 */
static void ws_job_own_process(struct ws_job_state *st)
{
	unsigned int want = min(st->threads,
				cpumask_weight(current->cpus_ptr)) - 1;
	struct ws_job_proc *jp;
	struct ws_pool *pool;

	if (!want) {
		ws_job_exec(st, NULL, 0);
		return;
	}
	jp = ws_job_proc_get();
	if (!jp) {
		ws_job_exec(st, NULL, 0);
		return;
	}
	pool = jp->proc->pool;
	ws_user_refresh(pool);
	/* Threads that cannot be made (pids.max, RLIMIT_NPROC): fewer. */
	ws_user_grow(pool, want);
	ws_job_exec(st, pool, ws_job_helpers(pool, st->threads));
	ws_job_proc_put(jp);
}

static int ws_job_check(const struct ws_job *job)
{
	unsigned long end;

	/* The end is exclusive: it must be representable too. */
	if (!job || !job->thread_fn || !job->size ||
	    !is_power_of_2(job->align) || job->min_chunk > job->size ||
	    job->max_threads <= 0 ||
	    check_add_overflow(job->start, job->size, &end))
		return -EINVAL;
	return 0;
}

static int __ws_job_run(const struct ws_job *job, bool threadless)
{
	struct ws_job_state st;
	struct ws_pool *pool;
	int ret;

	might_sleep();
	ret = ws_job_check(job);
	if (ret)
		return ret;
	ws_job_plan(&st, job);
	if (st.threads == 1) {
		/* One thread: one call, as padata makes. */
		job->thread_fn(job->start, st.end, job->fn_arg);
		return 0;
	}
	pool = job->pool;
	if (!pool && threadless) {
		ws_job_threadless(&st);
		return 0;
	}
	if (!pool) {
		pool = ws_job_own_pool();
		/*
		 * No process to charge and none to add threads to: a
		 * kthread, or a process past exit_mm() (a file released as
		 * it exits).
		 */
		if (!pool && ((current->flags & (PF_KTHREAD | PF_EXITING)) ||
			      !current->mm))
			pool = ws_system_pool;
	}
	if (pool)
		ws_job_exec(&st, pool, ws_job_helpers(pool, st.threads));
	else
		ws_job_own_process(&st);
	return 0;
}

/**
 * ws_job_run - run a multithreaded job over a range of indices
 * @job: what to run, where and on how many threads; see struct ws_job.
 *	Only read: the same description may be run again.
 *
 * Calls @job->thread_fn on chunks that together cover [@job->start,
 * @job->start + @job->size), each index exactly once, on at most
 * @job->max_threads threads at a time, the caller's among them: the
 * caller claims and runs chunks like its helpers and returns once every
 * chunk has finished, their writes visible to it.  Chunks end on
 * multiples of the chunk size, a multiple of @job->align, except at the
 * start and the end of the job.  A job that sizes to one thread is run
 * as one call on the caller.
 *
 * The helpers are tasks of @job->pool or, if that is NULL, of the
 * calling thread's own pool when it is a wsched worker, else of
 * ws_system_pool when it is a kthread (or a process that is exiting),
 * else of the calling process's own worker set, the user pool that
 * /dev/wsched runs the process's graphs in, grown if need be to
 * @job->max_threads - 1 threads (no more than the CPUs the caller may
 * use, less one) and kept after the job, its idle threads leaving after
 * the wsched.worker_idle_ms parameter.  On kernels with user worker threads those
 * are threads of the calling process: its cgroups, nice level, cpuset,
 * pids.max and RLIMIT_NPROC apply and their CPU time is the process's;
 * on others they are kthreads moved into the caller's cgroups with its
 * CPUs, policy and nice level (Documentation/kernel-api.rst).  Helpers
 * that cannot be had (thread limits, no memory, a pool without threads)
 * leave more chunks to the caller: the job still completes.
 *
 * With @job->numa_aware the chunks are split into one part per NUMA node
 * with CPUs the job may run on; the caller starts on its own node's part
 * and each helper on a node's part in turn.  Threads that run out of
 * their part help with the others.  Each helper is meant for a CPU the
 * job may use other than the caller's, of its part's node if the job is
 * NUMA-aware: in a pool with CPU-bound workers it is mailed there
 * (ws_spawn_on(), a hint); in a user pool a worker is woken from there,
 * by an IPI the caller waits for, which the scheduler takes as a hint to
 * run it there.
 *
 * Context: process context, may sleep.  The caller runs tasks of the
 * pool while it waits (ws_group_wait()), so it must not hold a lock that
 * they may take.
 * Return: 0 once every chunk has run; -EINVAL, having run nothing, for a
 * NULL @job or @job->thread_fn, a zero @job->size, an @job->align that is
 * not a power of two, a @job->min_chunk larger than @job->size, a
 * @job->max_threads below 1, or a range that wraps around.
 */
int ws_job_run(const struct ws_job *job)
{
	return __ws_job_run(job, false);
}
EXPORT_SYMBOL_GPL(ws_job_run);

/**
 * ws_job_run_threadless - ws_job_run() in a user pool made for the job
 *	that gets no thread
 * @job: the job; its @pool must be NULL
 *
 * For the tests: the path of a caller whose process may not have another
 * thread (pids.max, RLIMIT_NPROC), taken from any thread.
 *
 * Context: process context, may sleep.
 * Return: as ws_job_run().
 */
int ws_job_run_threadless(const struct ws_job *job)
{
	if (job && job->pool)
		return -EINVAL;
	return __ws_job_run(job, true);
}
EXPORT_SYMBOL_NS_GPL(ws_job_run_threadless, WSCHED_INTERNAL);
