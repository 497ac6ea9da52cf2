// SPDX-License-Identifier: GPL-2.0
/*
 * wsched pools: creation with attributes, worker threads that follow CPU
 * hotplug, destruction, statistics, and the module's init and exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/freezer.h>
#include <linux/kthread.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/random.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/sched/isolation.h>
#include <linux/slab.h>
#include <linux/topology.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/* The default pool, with a worker on every online housekeeping CPU. */
struct ws_pool *ws_system_pool;
EXPORT_SYMBOL_GPL(ws_system_pool);

static enum cpuhp_state ws_cpuhp_state;

/* The freezable thread that freezes the pools; see ws_pm_init(). */
static struct task_struct *ws_pm_thread;

/* All pools, for freezing them around suspend. */
static LIST_HEAD(ws_pools);
static DEFINE_MUTEX(ws_pools_lock);

/* Set while the system suspends: workers start no new task. */
bool ws_frozen;

/**
 * ws_freeze_pools - stop or resume starting tasks in every pool
 * @freeze: true to freeze, false to thaw
 *
 * Like a freezable workqueue around suspend: while frozen, tasks already
 * running finish (with the waits they make), queued and new tasks wait,
 * and idle workers sleep.  Thawing wakes every idle worker.
 */
void ws_freeze_pools(bool freeze)
{
	struct ws_pool *pool;

	mutex_lock(&ws_pools_lock);
	list_for_each_entry(pool, &ws_pools, list) {
		struct ws_worker *worker, *tmp;

		/*
		 * Under idle_lock: a worker lists itself and then reads
		 * ws_frozen under the same lock order, so it either sees the
		 * new value or is on the list we wake.
		 */
		raw_spin_lock_irq(&pool->idle_lock);
		WRITE_ONCE(ws_frozen, freeze);
		if (!freeze)
			list_for_each_entry_safe(worker, tmp, &pool->idle_list,
						 idle_node)
				ws_wake_locked(pool, worker, 0);
		raw_spin_unlock_irq(&pool->idle_lock);
	}
	WRITE_ONCE(ws_frozen, freeze);
	mutex_unlock(&ws_pools_lock);
}
EXPORT_SYMBOL_NS_GPL(ws_freeze_pools, WSCHED_INTERNAL);

/* Whether some pool has a worker that is not asleep (running a task). */
static bool ws_pools_busy(void)
{
	struct ws_pool *pool;
	bool busy = false;

	mutex_lock(&ws_pools_lock);
	list_for_each_entry(pool, &ws_pools, list) {
		/*
		 * Lockless snapshot: frozen workers only go to sleep, so
		 * the count only grows until the thaw; a stale read costs
		 * one more poll.
		 */
		if (atomic_read(&pool->nr_idle) < READ_ONCE(pool->nr_threads)) {
			busy = true;
			break;
		}
	}
	mutex_unlock(&ws_pools_lock);
	return busy;
}

/* How long freezing waits for running tasks before it freezes anyway. */
#define WS_FREEZE_DRAIN_SECS	5

/*
 * The pools freeze when the freezer gets to kernel threads, that is once
 * every user task is frozen, as freezable workqueues do: this thread is
 * freezable, so the freezer wakes it then (and only then: user tasks are
 * frozen first, and a kthread is not "freezing" before that stage).
 * Before it enters the refrigerator it stops the pools from starting
 * tasks and gives the running ones a bounded time to finish; when it is
 * thawed, by resume or by a suspend that failed after all, it thaws the
 * pools.  Until then, work submitted by processes runs as usual, so a
 * process in a system call that waits for wsched work gets to the end of
 * its call and is frozen at its return, neither blocking the freezer nor
 * seeing its work refused.
 */
static int ws_pm_thread_fn(void *unused)
{
	unsigned int ticks;

	set_freezable();
	for (;;) {
		/*
		 * A full barrier before freezing() is read; pairs with the
		 * freezer, which sets its state before freeze_task() wakes
		 * us: either we see it freezing or we are woken.
		 */
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		if (!freezing(current)) {
			schedule();
			continue;
		}
		__set_current_state(TASK_RUNNING);
		ws_freeze_pools(true);
		for (ticks = 0; ticks < WS_FREEZE_DRAIN_SECS * HZ &&
		     ws_pools_busy(); ticks++)
			schedule_timeout_idle(1);
		if (ws_pools_busy())
			pr_warn("tasks still running after %u s; freezing anyway\n",
				WS_FREEZE_DRAIN_SECS);
		try_to_freeze();
		ws_freeze_pools(false);
	}
	__set_current_state(TASK_RUNNING);
	return 0;
}

/*
 * How near CPUs @a and @b are, for choosing victims, grouped as by
 * workqueue's affinity scopes: SMT siblings (topology_sibling_cpumask()),
 * then the last-level cache (ws_cpus_share_llc(), compat.h), then the
 * NUMA node (cpu_to_node()).  Symmetric.  With the CPU hotplug lock held, which keeps the topology
 * of online CPUs still.
 */
static enum ws_topo_level ws_topo_level(unsigned int a, unsigned int b)
{
	if (cpumask_test_cpu(b, topology_sibling_cpumask(a)))
		return WS_TOPO_SMT;
	if (ws_cpus_share_llc(a, b))
		return WS_TOPO_LLC;
	if (cpu_to_node(a) == cpu_to_node(b))
		return WS_TOPO_NODE;
	return WS_TOPO_SYSTEM;
}

/*
 * The near victims of CPU slot @cpu: the online CPUs of the pool's mask
 * other than @cpu and @gone (a CPU going offline, or nr_cpu_ids), by
 * level.  NULL when out of memory.
 */
static struct ws_victims *ws_victims_build(struct ws_pool *pool,
					   unsigned int cpu, unsigned int gone)
{
	size_t bitmap = BITS_TO_LONGS(nr_cpu_ids) * sizeof(long);
	unsigned int c, l, nr = 0, n = 0;
	struct ws_victims *v;

	for_each_cpu_and(c, pool->cpumask, cpu_online_mask)
		if (c != cpu && c != gone &&
		    ws_topo_level(cpu, c) < WS_TOPO_NR_NEAR)
			nr++;
	v = kzalloc_node(sizeof(*v) + bitmap + nr * sizeof(*v->cpu),
			 GFP_KERNEL, cpu_to_node(cpu));
	if (!v)
		return NULL;
	v->cpu = (unsigned int *)((char *)v->near + bitmap);
	for (l = 0; l < WS_TOPO_NR_NEAR; l++) {
		for_each_cpu_and(c, pool->cpumask, cpu_online_mask) {
			if (c == cpu || c == gone || n == nr ||
			    ws_topo_level(cpu, c) != l)
				continue;
			v->cpu[n++] = c;
			__set_bit(c, v->near);
		}
		v->end[l] = n;
	}
	return v;
}

/* Publish @v as @cpu's victims; the old ones are freed after readers. */
static void ws_victims_set(struct ws_pool *pool, unsigned int cpu,
			   struct ws_victims *v)
{
	struct ws_worker *worker = pool->workers[cpu];
	struct ws_victims *old;

	/* Writers hold the hotplug lock (the callbacks, or ws_topo_init()). */
	old = rcu_dereference_protected(worker->victims, 1);
	/*
	 * Release: @v's arrays are filled before a thief can see them;
	 * pairs with the rcu_dereference() in ws_steal().
	 */
	rcu_assign_pointer(worker->victims, v);
	if (old)
		kfree_rcu(old, rcu);
}

/*
 * CPU hotplug: @cpu comes online, or goes offline if @going.  Rebuild the
 * victims of the CPU slots it is near, its own included (dropped when it
 * goes).  On failure to allocate a slot keeps its old victims: a CPU
 * gone from them costs a look at an empty deque, one new to them is
 * still reached by the last level.
 */
static void ws_topo_update(struct ws_pool *pool, unsigned int cpu, bool going)
{
	unsigned int c, gone = going ? cpu : nr_cpu_ids;
	struct ws_victims *v;

	/* A dying pool's workers all stop; ws_pool_free() frees these. */
	if (!pool->topo_ready || pool->dying ||
	    !cpumask_test_cpu(cpu, pool->cpumask))
		return;
	for_each_cpu_and(c, pool->cpumask, cpu_online_mask) {
		if (c == cpu && going) {
			ws_victims_set(pool, c, NULL);
			continue;
		}
		if (c != cpu && ws_topo_level(c, cpu) == WS_TOPO_SYSTEM)
			continue;
		v = ws_victims_build(pool, c, gone);
		if (v)
			ws_victims_set(pool, c, v);
	}
}

/*
 * Build the victims of every online CPU slot of a new pool, then let the
 * hotplug callbacks keep them.  Not for user pools: their workers are not
 * bound to CPUs and steal from anyone.  A slot left without victims (out
 * of memory) steals from anyone too.
 */
static void ws_topo_init(struct ws_pool *pool)
{
	unsigned int cpu;

	if (pool->user)
		return;
	cpus_read_lock();
	for_each_cpu_and(cpu, pool->cpumask, cpu_online_mask)
		ws_victims_set(pool, cpu, ws_victims_build(pool, cpu,
							   nr_cpu_ids));
	pool->topo_ready = true;
	cpus_read_unlock();
}

/*
 * Start the worker thread of @cpu.  From the hotplug callbacks only, which
 * hold the CPU hotplug lock (lockdep_assert_cpus_held() is not exported).
 */
static int ws_start_worker(struct ws_pool *pool, unsigned int cpu)
{
	struct ws_worker *worker = pool->workers[cpu];
	struct task_struct *thread;

	thread = kthread_create_on_node(ws_worker_thread, worker,
					cpu_to_node(cpu), "ws/%u:%s", cpu,
					pool->name);
	if (IS_ERR(thread))
		return PTR_ERR(thread);
	kthread_bind(thread, cpu);
	/*
	 * For the heartbeat, which reads the thread from its interrupt
	 * (ws_latent_promote_parked()) until ws_cpu_offline() stops it.
	 */
	get_task_struct(thread);
	set_user_nice(thread, pool->nice);
	/* Read locklessly by ws_spawn_on() as a hint only. */
	WRITE_ONCE(worker->thread, thread);
	WRITE_ONCE(pool->nr_threads, pool->nr_threads + 1);
	wake_up_process(thread);
	return 0;
}

/*
 * CPU hotplug: start a worker thread when its CPU comes online, if the
 * pool's mask has the CPU and the pool is below its worker limit.
 */
static int ws_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct ws_pool *pool = hlist_entry(node, struct ws_pool, cpuhp_node);

	ws_topo_update(pool, cpu, false);
	if (!cpumask_test_cpu(cpu, pool->cpumask) ||
	    (pool->max_workers && pool->nr_threads >= pool->max_workers))
		return 0;
	return ws_start_worker(pool, cpu);
}

/*
 * A pool with a worker limit has workers on only some of its CPUs: when
 * one of them goes offline, start a worker on another online CPU of the
 * mask that has none, so that the pool keeps its number of workers while
 * it has CPUs for them.  Best effort: a failure leaves one fewer.
 */
static void ws_replace_worker(struct ws_pool *pool, unsigned int dying)
{
	unsigned int cpu;

	/* Not when the pool is being destroyed: every worker stops. */
	if (!pool->max_workers || pool->dying)
		return;
	for_each_cpu_and(cpu, pool->cpumask, cpu_online_mask) {
		if (cpu != dying && !pool->workers[cpu]->thread) {
			ws_start_worker(pool, cpu);
			return;
		}
	}
}

/*
 * CPU hotplug: stop the worker of a CPU going offline and hand the tasks
 * left on its deque and in its mailbox to the injection queue, where the
 * other workers take them.  kthread_stop() waits for the task the worker
 * is running to finish.
 */
static int ws_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct ws_pool *pool = hlist_entry(node, struct ws_pool, cpuhp_node);
	struct ws_worker *worker = pool->workers[cpu];
	struct task_struct *thread = worker->thread;
	struct llist_node *mail, *tmp;
	struct ws_task *task;

	ws_topo_update(pool, cpu, true);
	if (!thread)
		return 0;
	kthread_stop(thread);
	WRITE_ONCE(worker->thread, NULL);
	/*
	 * Before the timer would move to another CPU: the slot's next
	 * thread, on this CPU again, starts it again on its own CPU, so it
	 * never beats on a CPU other than its worker's outside hotplug.
	 */
	ws_heartbeat_stop(worker);
	/* The heartbeat no longer runs: drop ws_start_worker()'s reference. */
	put_task_struct(thread);
	WRITE_ONCE(pool->nr_threads, pool->nr_threads - 1);
	ws_replace_worker(pool, cpu);
	/* The owner is gone (kthread_stop() orders us after it). */
	while ((task = ws_deque_pop(&worker->deque))) {
		ws_task_claim(task);
		ws_inject(pool, task);
	}
	spin_lock(&worker->mailbox_lock);
	mail = llist_del_all(&worker->mailbox);
	spin_unlock(&worker->mailbox_lock);
	llist_for_each_safe(mail, tmp, mail)
		ws_inject(pool, llist_entry(mail, struct ws_task, node));
	return 0;
}

/*
 * A zeroed slot on NUMA node @node.  Its invoke slot must sit at an
 * address aligned to WS_INVOKE_SLOT_ALIGN: ws_ctx_invoke() finds a
 * slot from the address of one of its frames.  kmalloc() aligns an
 * object whose size is a power of two to that size (the guarantee in its
 * kernel-doc), so the slot is allocated with its size rounded up to one,
 * at most twice its size; the member's offset is aligned by its type.
 */
static struct ws_worker *ws_worker_alloc(int node)
{
	struct ws_worker *worker;

	BUILD_BUG_ON(offsetof(struct ws_invoke_slot, frames));
	BUILD_BUG_ON(WS_INVOKE_SLOT_ALIGN & (WS_INVOKE_SLOT_ALIGN - 1));
	BUILD_BUG_ON(sizeof_field(struct ws_invoke_slot, frames) >=
		     WS_INVOKE_SLOT_ALIGN);
	worker = kzalloc_node(roundup_pow_of_two(sizeof(*worker)), GFP_KERNEL,
			      node);
	if (worker && WARN_ON_ONCE(!IS_ALIGNED((unsigned long)&worker->inv,
					       WS_INVOKE_SLOT_ALIGN))) {
		kfree(worker);
		return NULL;
	}
	return worker;
}

static void ws_pool_free(struct ws_pool *pool)
{
	unsigned int cpu;

	for (cpu = 0; pool->workers && cpu < pool->nr_slots; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (!worker)
			continue;
		/*
		 * Every thread of the pool is gone: no reader is left, and
		 * no call arms the heartbeat again.
		 */
		ws_heartbeat_stop(worker);
		ws_heartbeat_free(worker);
		kfree(rcu_dereference_protected(worker->victims, 1));
		ws_deque_destroy(&worker->deque);
		kfree(worker);
	}
	kfree(pool->workers);
	free_percpu(pool->head.inv_slot);
	free_percpu(pool->head.stats);
	free_cpumask_var(pool->cpumask);
	kfree(pool);
}

static int ws_pool_setup(struct ws_pool *pool, const char *name,
			 const struct ws_pool_attrs *attrs)
{
	unsigned int cpu;
	int ret;

	/* <linux/wsched.h> reads it through a struct ws_pool pointer. */
	BUILD_BUG_ON(offsetof(struct ws_pool, head) != 0);

	strscpy(pool->name, name, sizeof(pool->name));
	pool->nr_cpus = nr_cpu_ids;
	pool->nr_slots = nr_cpu_ids + WS_MAX_JOINED;
	init_llist_head(&pool->inject);
	raw_spin_lock_init(&pool->fifo_lock);
	pool->fifo_tail = &pool->fifo_head;
	atomic_set(&pool->nr_idle, 0);
	atomic_set(&pool->nr_stuck, 0);
	raw_spin_lock_init(&pool->idle_lock);
	INIT_LIST_HEAD(&pool->idle_list);
	/* A user pool's attributes are its owner's, who may join it. */
	pool->joinable = pool->user || !attrs ||
			 (!attrs->cpumask && !attrs->max_workers && !attrs->nice);
	if (attrs) {
		pool->max_workers = attrs->max_workers;
		pool->nice = clamp(attrs->nice, MIN_NICE, MAX_NICE);
	}
	if (!zalloc_cpumask_var(&pool->cpumask, GFP_KERNEL))
		return -ENOMEM;
	if (attrs && attrs->cpumask)
		cpumask_and(pool->cpumask, attrs->cpumask, cpu_possible_mask);
	else
		cpumask_and(pool->cpumask, cpu_possible_mask,
			    housekeeping_cpumask(HK_TYPE_DOMAIN));
	if (cpumask_empty(pool->cpumask))
		return -EINVAL;

	pool->head.stats = alloc_percpu(struct ws_pool_stats);
	pool->workers = kcalloc(pool->nr_slots, sizeof(*pool->workers),
				GFP_KERNEL);
	pool->head.inv_slot = alloc_percpu(struct ws_invoke_slot *);
	if (!pool->head.stats || !pool->workers || !pool->head.inv_slot)
		return -ENOMEM;
	/*
	 * A worker for every CPU number below nr_cpu_ids, possible or not:
	 * victim scans and idle checks index the array without any check.
	 * Then the join slots, whose deques start small.
	 */
	for (cpu = 0; cpu < pool->nr_slots; cpu++) {
		bool join = cpu >= nr_cpu_ids;
		int node = !join && cpu_possible(cpu) ? cpu_to_node(cpu) :
							NUMA_NO_NODE;
		struct ws_worker *worker;

		worker = ws_worker_alloc(node);
		if (!worker)
			return -ENOMEM;
		pool->workers[cpu] = worker;
		worker->pool = pool;
		worker->cpu = cpu;
		if (!join && cpu_possible(cpu))
			*per_cpu_ptr(pool->head.inv_slot, cpu) = &worker->inv;
		/* First: ws_pool_free() stops every slot's heartbeat. */
		ret = ws_heartbeat_init(worker);
		if (ret)
			return ret;
		ret = ws_deque_init(&worker->deque, join ? WS_DEQUE_JOIN_SLOTS :
				    WS_DEQUE_INIT_SLOTS, GFP_KERNEL);
		if (ret)
			return ret;
		worker->rand = get_random_u32() | 1;
		INIT_LIST_HEAD(&worker->idle_node);
		init_llist_head(&worker->mailbox);
		spin_lock_init(&worker->mailbox_lock);
	}
	return 0;
}

static struct ws_pool *ws_pool_new(const char *name,
				   const struct ws_pool_attrs *attrs, bool pin,
				   bool user)
{
	struct ws_pool *pool;
	int ret;

	if (pin && !try_module_get(THIS_MODULE))
		return ERR_PTR(-ENODEV);
	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool) {
		ret = -ENOMEM;
		goto err_put;
	}
	pool->pinned = pin;
	pool->user = user;
	ret = ws_pool_setup(pool, name, attrs);
	if (!ret && user)
		ret = ws_user_init(pool);
	else if (!ret)
		ret = cpuhp_state_add_instance(ws_cpuhp_state, &pool->cpuhp_node);
	if (ret) {
		ws_pool_free(pool);
		goto err_put;
	}
	ws_topo_init(pool);
	ws_debugfs_add_pool(pool);
	mutex_lock(&ws_pools_lock);
	list_add(&pool->list, &ws_pools);
	mutex_unlock(&ws_pools_lock);
	return pool;

err_put:
	if (pin)
		module_put(THIS_MODULE);
	return ERR_PTR(ret);
}

/**
 * ws_pool_create_attrs - create a pool
 * @name: a short name for debugfs and thread names (truncated to
 *	%WS_NAME_LEN - 1 characters)
 * @attrs: CPU mask, worker limit and nice level; NULL for the defaults
 *	(every housekeeping CPU, no limit, nice 0)
 *
 * The pool has a worker kthread on each online CPU of its mask, up to
 * @attrs->max_workers; workers follow CPU hotplug.  The pool appears in
 * debugfs as wsched/<name>/stats.  It holds a reference on the wsched
 * module until ws_pool_destroy().
 *
 * Context: process context, may sleep; not from a wsched task.
 * Return: the pool, or an ERR_PTR(): -ENOMEM, or -EINVAL for a mask with
 * no possible CPU.
 */
struct ws_pool *ws_pool_create_attrs(const char *name,
				     const struct ws_pool_attrs *attrs)
{
	return ws_pool_new(name, attrs, true, false);
}
EXPORT_SYMBOL_GPL(ws_pool_create_attrs);

/**
 * ws_pool_create_user - a pool that runs the work of the calling process
 *
 * For /dev/wsched: one per process that submits.  The pool starts with no
 * thread; its owner grows it with ws_user_grow() from the process's own
 * context, and idle threads leave (uworker.c): threads of the process
 * where the kernel has user workers, else kthreads under the process's
 * resource controls.  The process's threads may join the pool
 * (ws_pool_execute()) to run its work themselves.
 *
 * Context: process context.
 * Return: the pool or an ERR_PTR().
 */
struct ws_pool *ws_pool_create_user(void)
{
	static atomic_t ws_user_pools = ATOMIC_INIT(0);
	struct ws_pool_attrs attrs = {
		.cpumask = current->cpus_ptr,
		.nice = task_nice(current),
	};
	char name[WS_NAME_LEN];

	snprintf(name, sizeof(name), "u%u",
		 (unsigned int)atomic_inc_return(&ws_user_pools));
	return ws_pool_new(name, &attrs, true, true);
}

/**
 * ws_pool_create - create a pool with the default attributes
 * @name: a short name for debugfs and thread names
 *
 * Same as ws_pool_create_attrs(@name, NULL).
 *
 * Context: process context, may sleep; not from a wsched task.
 * Return: the pool, or an ERR_PTR().
 */
struct ws_pool *ws_pool_create(const char *name)
{
	return ws_pool_new(name, NULL, true, false);
}
EXPORT_SYMBOL_GPL(ws_pool_create);

/*
 * Nothing queued, every worker asleep and no thread joined.  The queues
 * are read first: a worker takes itself off the idle list before it takes
 * a task, so one that took the last task after our read of the queues is
 * not counted idle by the read of nr_idle that follows.
 */
static bool ws_pool_quiescent(struct ws_pool *pool)
{
	bool quiet;

	cpus_read_lock();
	quiet = !ws_pool_has_work(pool);
	/*
	 * Order the reads of the queues before those of the counters;
	 * pairs with the smp_mb() of ws_worker_sleep() between its idle
	 * mark and its recheck of the queues.
	 */
	smp_rmb();
	quiet = quiet && atomic_read(&pool->nr_idle) == pool->nr_threads &&
		!READ_ONCE(pool->joined);
	cpus_read_unlock();
	return quiet;
}

/**
 * ws_pool_destroy - stop a pool's workers and free it
 * @pool: the pool, from ws_pool_create(); NULL or an error is ignored
 *
 * Drains the pool: waits until every task queued in it has run (tasks of
 * cancelled groups run their cancel hooks) and every worker is idle, then
 * stops the workers.  The caller must not spawn into the pool any more.
 *
 * Context: process context, may sleep; not from a task of @pool.
 */
void ws_pool_destroy(struct ws_pool *pool)
{
	unsigned int i;
	bool pinned;

	if (IS_ERR_OR_NULL(pool))
		return;
	if (WARN_ON_ONCE(ws_in_pool(pool)))
		return;
	while (!ws_pool_quiescent(pool))
		schedule_timeout_idle(1);
	for (i = pool->nr_cpus; i < pool->nr_slots; i++)
		ws_reap_compensator(pool->workers[i]);
	mutex_lock(&ws_pools_lock);
	list_del(&pool->list);
	mutex_unlock(&ws_pools_lock);
	ws_debugfs_remove_pool(pool);
	cpus_read_lock();
	pool->dying = true;
	cpus_read_unlock();
	if (pool->user)
		ws_user_stop_all(pool);
	else
		cpuhp_state_remove_instance(ws_cpuhp_state, &pool->cpuhp_node);
	pinned = pool->pinned;
	ws_pool_free(pool);
	if (pinned)
		module_put(THIS_MODULE);
}
EXPORT_SYMBOL_GPL(ws_pool_destroy);

/**
 * ws_pool_cpu_stats - add up one CPU's event counters of a pool
 * @pool: the pool
 * @cpu: a possible CPU
 * @stats: where to add them
 *
 * The per-CPU counters, and those the owner of @cpu's slot keeps in the
 * slot itself (its latent spawns, and the latent tasks its inline wait
 * ran: &struct ws_invoke_slot).  Read without synchronisation: a
 * snapshot, as ws_pool_read_stats() says.
 */
void ws_pool_cpu_stats(struct ws_pool *pool, unsigned int cpu,
		       struct ws_pool_stats *stats)
{
	const u64 *c = (const u64 *)per_cpu_ptr(pool->head.stats, cpu);
	const struct ws_invoke_slot *slot =
		*per_cpu_ptr(pool->head.inv_slot, cpu);
	u64 *sum = (u64 *)stats;
	unsigned int i;
	u64 ran;

	BUILD_BUG_ON(sizeof(*stats) % sizeof(u64));
	/* Racy snapshot of counters other CPUs may be bumping. */
	for (i = 0; i < sizeof(*stats) / sizeof(u64); i++)
		sum[i] += READ_ONCE(c[i]);
	/* Pairs with nothing: the owner's WRITE_ONCE() counts, a snapshot. */
	stats->spawned += READ_ONCE(slot->nr_spawned);
	ran = READ_ONCE(slot->nr_ran);
	stats->popped += ran;
	stats->executed += ran;
}

/**
 * ws_pool_read_stats - sum a pool's event counters over its CPUs
 * @pool: the pool
 * @stats: where to store the sums
 *
 * The counters are read without synchronisation: a snapshot, each value
 * exact for events that finished before the call.
 */
void ws_pool_read_stats(struct ws_pool *pool, struct ws_pool_stats *stats)
{
	unsigned int cpu;

	memset(stats, 0, sizeof(*stats));
	for_each_possible_cpu(cpu)
		ws_pool_cpu_stats(pool, cpu, stats);
}
EXPORT_SYMBOL_GPL(ws_pool_read_stats);

/**
 * ws_pool_nr_workers - number of workers with a running thread
 * @pool: the pool
 *
 * Return: how many CPUs the pool has a worker thread on; it changes with
 * CPU hotplug.
 */
unsigned int ws_pool_nr_workers(struct ws_pool *pool)
{
	return READ_ONCE(pool->nr_threads);
}
EXPORT_SYMBOL_GPL(ws_pool_nr_workers);

/**
 * ws_owner_module - the wsched module itself
 *
 * For tests that check that pools pin the module.
 *
 * Return: THIS_MODULE of wsched.
 */
struct module *ws_owner_module(void)
{
	return THIS_MODULE;
}
EXPORT_SYMBOL_NS_GPL(ws_owner_module, WSCHED_INTERNAL);

/**
 * ws_hotplug_init - set up the CPU hotplug state that pools join
 *
 * Return: 0 or a negative errno.
 */
int ws_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "wsched:online",
				      ws_cpu_online, ws_cpu_offline);
	if (ret < 0)
		return ret;
	ws_cpuhp_state = ret;
	return 0;
}

/** ws_hotplug_exit - remove the CPU hotplug state; no pool may be left */
void ws_hotplug_exit(void)
{
	cpuhp_remove_multi_state(ws_cpuhp_state);
}

/**
 * ws_system_pool_init - create ws_system_pool
 *
 * The module's own pool does not pin the module.
 *
 * Return: 0 or a negative errno.
 */
int ws_system_pool_init(void)
{
	ws_system_pool = ws_pool_new("system", NULL, false, false);
	if (IS_ERR(ws_system_pool))
		return PTR_ERR(ws_system_pool);
	return 0;
}

/** ws_system_pool_exit - drain and destroy ws_system_pool */
void ws_system_pool_exit(void)
{
	ws_pool_destroy(ws_system_pool);
}

/**
 * ws_pm_init - freeze the pools around suspend and hibernation
 *
 * Starts the freezable thread that freezes the pools once user tasks are
 * frozen and thaws them when it is thawed (ws_pm_thread_fn()).
 *
 * Return: 0 or a negative errno.
 */
int ws_pm_init(void)
{
	ws_pm_thread = kthread_create(ws_pm_thread_fn, NULL, "wsched_pm");
	if (IS_ERR(ws_pm_thread))
		return PTR_ERR(ws_pm_thread);
	wake_up_process(ws_pm_thread);
	return 0;
}

/** ws_pm_exit - stop following suspend and hibernation */
void ws_pm_exit(void)
{
	kthread_stop(ws_pm_thread);
}
