// SPDX-License-Identifier: GPL-2.0
/*
 * wsched core: pools, workers, the dispatch rules, idle and wake-up,
 * groups and CPU hotplug.  Documentation/design.rst explains the design.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/**
 * ws_system_pool - the default pool, with a worker on every online CPU
 */
struct ws_pool *ws_system_pool;
EXPORT_SYMBOL_GPL(ws_system_pool);

static enum cpuhp_state ws_cpuhp_state;

static int ws_worker_thread(void *arg);

/*
 * The worker of @pool that the current thread is, or NULL.  Only a task
 * running in process context on one of the pool's kthreads is a worker:
 * an interrupt on a worker's CPU must never touch the worker's deque.
 */
static struct ws_worker *ws_current_worker(struct ws_pool *pool)
{
	struct ws_worker *worker;

	if (!in_task() || !(current->flags & PF_KTHREAD) ||
	    kthread_func(current) != ws_worker_thread)
		return NULL;
	worker = kthread_data(current);
	return worker->pool == pool ? worker : NULL;
}

/* xorshift32 (Marsaglia 2003): cheap, per-worker, good enough for victims. */
static u32 ws_next_rand(struct ws_worker *worker)
{
	u32 x = worker->rand;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	worker->rand = x;
	return x;
}

/* Is there anything to run in @pool?  A snapshot; callers order it. */
static bool ws_pool_has_work(struct ws_pool *pool)
{
	unsigned int cpu;

	if (!llist_empty(&pool->inject))
		return true;
	for (cpu = 0; cpu < pool->nr_slots; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (worker && ws_deque_size(&worker->deque))
			return true;
	}
	return false;
}

/*
 * Wake one sleeping worker, if any.  Callers that must not lose the
 * wake-up (injection) issue a full barrier between publishing the work and
 * calling this; see ws_worker_sleep() for the pairing.
 */
static void ws_wake_one(struct ws_pool *pool)
{
	struct ws_worker *worker;

	/* Pairs with atomic_inc() in ws_worker_sleep() (see its barrier). */
	if (!atomic_read(&pool->nr_idle))
		return;
	spin_lock(&pool->idle_lock);
	worker = list_first_entry_or_null(&pool->idle_list, struct ws_worker,
					  idle_node);
	if (worker) {
		list_del_init(&worker->idle_node);
		atomic_dec(&pool->nr_idle);
		/*
		 * Under idle_lock: the worker takes the lock before it can
		 * return from its sleep and exit, so the thread is alive.
		 */
		wake_up_process(worker->thread);
		ws_stat_inc(pool, wakeups);
	}
	spin_unlock(&pool->idle_lock);
}

/* Queue a task from outside the pool's workers. */
static void ws_inject(struct ws_pool *pool, struct ws_task *task)
{
	llist_add(&task->inject_node, &pool->inject);
	ws_stat_inc(pool, injected);
	/*
	 * Publish the task before looking for sleepers; pairs with the
	 * smp_mb() in ws_worker_sleep(), so either we see the sleeper or it
	 * sees the task.
	 */
	smp_mb();
	ws_wake_one(pool);
}

/* Mark one task of @group finished. */
static void ws_group_complete(struct ws_group *group)
{
	/*
	 * Fully ordered: the task's writes come before the count reaches
	 * zero (pairs with the acquire in ws_group_done()), and the count
	 * comes before wake_up_var()'s check for waiters (pairs with the
	 * barrier in prepare_to_wait_event()).
	 */
	if (atomic_dec_and_test(&group->pending))
		wake_up_var(&group->pending);
}

/**
 * ws_group_init - prepare an empty task group
 * @group: the group
 * @pool: the pool its tasks run in; NULL for ws_system_pool
 */
void ws_group_init(struct ws_group *group, struct ws_pool *pool)
{
	atomic_set(&group->pending, 0);
	group->pool = pool ? pool : ws_system_pool;
}
EXPORT_SYMBOL_GPL(ws_group_init);

/**
 * ws_spawn - queue a task for execution in a group
 * @group: the group, set up with ws_group_init()
 * @task: the task, set up with ws_task_init(), not queued elsewhere
 *
 * From a worker of the group's pool the task goes to the bottom of the
 * worker's own deque, where the worker pops it or another worker steals
 * it.  From any other context (another thread, an interrupt) it goes to
 * the pool's injection queue.  Never sleeps, never fails.
 */
void ws_spawn(struct ws_group *group, struct ws_task *task)
{
	struct ws_pool *pool = group->pool;
	struct ws_worker *worker = ws_current_worker(pool);

	task->group = group;
	/*
	 * Unordered: publishing the task (release of bottom, or the fully
	 * ordered llist_add()) orders this before any decrement of it.
	 */
	atomic_inc(&group->pending);
	if (likely(worker) && ws_deque_push(&worker->deque, task, GFP_NOWAIT)) {
		ws_stat_inc(pool, spawned);
		/*
		 * Deliberately no barrier: a missed wake-up here costs
		 * parallelism, never progress, as this worker runs its own
		 * deque.  Later spawns see the sleepers.
		 */
		if (atomic_read(&pool->nr_idle))
			ws_wake_one(pool);
		return;
	}
	ws_inject(pool, task);
}
EXPORT_SYMBOL_GPL(ws_spawn);

/*
 * Run @task.  Return the task it handed back for bypass, or NULL.  The
 * returned task joins the group in place of @task, so the group's count is
 * untouched: bypass costs no atomic operation.
 */
static struct ws_task *ws_execute(struct ws_worker *worker,
				  struct ws_task *task)
{
	struct ws_group *group = task->group;
	struct ws_pool *pool = worker->pool;
	struct ws_task *next;

	next = task->fn(task);
	ws_stat_inc(pool, executed);
	if (next) {
		next->group = group;
		ws_stat_inc(pool, bypassed);
		return next;
	}
	ws_group_complete(group);
	return NULL;
}

/*
 * Take a batch from the injection queue: run the oldest, queue the rest on
 * our deque where others can steal them.
 */
static struct ws_task *ws_take_injected(struct ws_worker *worker)
{
	struct ws_pool *pool = worker->pool;
	struct ws_task *first, *task, *tmp;
	struct llist_node *batch;

	if (llist_empty(&pool->inject))
		return NULL;
	batch = llist_del_all(&pool->inject);
	if (!batch)
		return NULL;
	batch = llist_reverse_order(batch);
	first = llist_entry(batch, struct ws_task, inject_node);
	if (!batch->next)
		return first;
	/* _safe: once pushed, a task may be stolen, run and freed. */
	llist_for_each_entry_safe(task, tmp, batch->next, inject_node) {
		if (!ws_deque_push(&worker->deque, task, GFP_NOWAIT))
			llist_add(&task->inject_node, &pool->inject);
	}
	ws_wake_one(pool);
	return first;
}

/* Rule 3: steal the oldest task of a random victim, trying every worker. */
static struct ws_task *ws_steal(struct ws_worker *thief)
{
	struct ws_pool *pool = thief->pool;
	unsigned int nr = pool->nr_slots;
	unsigned int start = reciprocal_scale(ws_next_rand(thief), nr);
	unsigned int i;

	for (i = 0; i < nr; i++) {
		unsigned int cpu = start + i < nr ? start + i : start + i - nr;
		struct ws_worker *victim = pool->workers[cpu];
		struct ws_task *task;
		bool lost_race;

		if (!victim || victim == thief)
			continue;
		do {
			lost_race = false;
			task = ws_deque_steal(&victim->deque, &lost_race);
		} while (!task && lost_race);
		if (task) {
			ws_stat_inc(pool, stolen);
			/* Cascade: more left there, so wake a helper. */
			if (ws_deque_size(&victim->deque))
				ws_wake_one(pool);
			return task;
		}
	}
	ws_stat_inc(pool, steal_failed);
	return NULL;
}

/* What a worker may run while it waits: bounds its stack use. */
enum ws_scope {
	WS_RUN_NOTHING,		/* too deep: only sleep */
	WS_RUN_OWN,		/* pop our own deque */
	WS_RUN_ANY,		/* also injected and stolen tasks */
};

/* Bytes of kernel stack left below the caller's frame. */
static unsigned long ws_stack_left(void)
{
#ifdef CONFIG_STACK_GROWSUP
	return THREAD_SIZE;
#else
	return (unsigned long)__builtin_frame_address(0) -
	       (unsigned long)task_stack_page(current);
#endif
}

static enum ws_scope ws_wait_scope(struct ws_worker *worker)
{
	unsigned long left = ws_stack_left();

	if (worker->wait_depth >= WS_MAX_WAIT_DEPTH || left < THREAD_SIZE / 4)
		return WS_RUN_NOTHING;
	if (worker->wait_depth >= WS_MAX_STEAL_DEPTH || left < THREAD_SIZE / 2)
		return WS_RUN_OWN;
	return WS_RUN_ANY;
}

/*
 * The three rules, in order.  @bypass is what the task just run returned.
 * @scope limits what a nested wait may take.
 */
static struct ws_task *ws_next_task(struct ws_worker *worker,
				    struct ws_task *bypass,
				    enum ws_scope scope)
{
	struct ws_task *task;

	/* 1. Bypass: run the returned task at once, no deque traffic. */
	if (bypass)
		return bypass;
	if (scope == WS_RUN_NOTHING)
		return NULL;

	/* 2. Pop the youngest task of our own deque (LIFO). */
	task = ws_deque_pop(&worker->deque);
	if (task) {
		ws_stat_inc(worker->pool, popped);
		return task;
	}
	if (scope == WS_RUN_OWN)
		return NULL;

	/* Work from outside the pool comes before other workers' tasks. */
	task = ws_take_injected(worker);
	if (task)
		return task;

	/* 3. Steal the oldest task of a random victim (FIFO). */
	return ws_steal(worker);
}

/*
 * Sleep until there is work: prepare (list ourselves as idle), recheck
 * the queues, then commit to sleeping.  A waker that published work after
 * our recheck sees us on the idle list and wakes us.
 */
static void ws_worker_sleep(struct ws_worker *worker)
{
	struct ws_pool *pool = worker->pool;

	spin_lock(&pool->idle_lock);
	list_add(&worker->idle_node, &pool->idle_list);
	atomic_inc(&pool->nr_idle);
	set_current_state(TASK_IDLE);
	spin_unlock(&pool->idle_lock);
	/*
	 * Order our idle mark before the recheck of the queues; pairs with
	 * the smp_mb() in ws_inject() between publishing a task and reading
	 * nr_idle.
	 */
	smp_mb();
	if (!ws_pool_has_work(pool) && !kthread_should_stop()) {
		ws_stat_inc(pool, sleeps);
		schedule();
	}
	__set_current_state(TASK_RUNNING);

	spin_lock(&pool->idle_lock);
	if (!list_empty(&worker->idle_node)) {
		list_del_init(&worker->idle_node);
		atomic_dec(&pool->nr_idle);
	}
	spin_unlock(&pool->idle_lock);
}

static int ws_worker_thread(void *arg)
{
	struct ws_worker *worker = arg;
	struct ws_task *task = NULL;
	unsigned int empty_rounds = 0;

	/* A task returned for bypass must run even if we are told to stop. */
	while (task || !kthread_should_stop()) {
		task = ws_next_task(worker, task, WS_RUN_ANY);
		if (task) {
			task = ws_execute(worker, task);
			empty_rounds = 0;
			cond_resched();
			continue;
		}
		if (++empty_rounds < WS_SPIN_ROUNDS) {
			cpu_relax();
			continue;
		}
		empty_rounds = 0;
		ws_worker_sleep(worker);
	}
	return 0;
}

/*
 * Nap for up to a tick or until @group completes, whichever is first.
 * A worker whose group's tasks run elsewhere waits here; it wakes each
 * tick to look for new work to help with.
 */
static void ws_nap_on_group(struct ws_group *group, bool forever)
{
	struct wait_queue_head *wq = __var_waitqueue(&group->pending);
	struct wait_bit_queue_entry wbq;

	init_wait_var_entry(&wbq, &group->pending, 0);
	for (;;) {
		/*
		 * prepare_to_wait_event() queues us, then sets the task state
		 * with a full barrier; pairs with atomic_dec_and_test() before
		 * wake_up_var() in ws_group_complete().
		 */
		prepare_to_wait_event(wq, &wbq.wq_entry, TASK_IDLE);
		if (ws_group_done(group))
			break;
		if (!forever) {
			schedule_timeout(1);
			break;
		}
		schedule();
	}
	finish_wait(wq, &wbq.wq_entry);
}

/* A worker waits by running tasks until the group completes. */
static void ws_worker_wait(struct ws_worker *worker, struct ws_group *group)
{
	enum ws_scope scope = ws_wait_scope(worker);
	unsigned int empty_rounds = 0;
	struct ws_task *task = NULL;

	worker->wait_depth++;
	/* A task returned for bypass must run even if the group is done. */
	while (task || !ws_group_done(group)) {
		task = ws_next_task(worker, task, scope);
		if (task) {
			task = ws_execute(worker, task);
			empty_rounds = 0;
			cond_resched();
			continue;
		}
		if (++empty_rounds < WS_SPIN_ROUNDS) {
			cpu_relax();
			continue;
		}
		empty_rounds = 0;
		/* Too deep to run anything: sleep until the group is done. */
		ws_nap_on_group(group, scope == WS_RUN_NOTHING);
	}
	worker->wait_depth--;
}

/**
 * ws_group_wait - wait until every task of a group has finished
 * @group: the group
 *
 * On a worker of the group's pool, the caller keeps running tasks (its
 * own deque first, then injected and stolen ones) until the group is
 * complete, within the bounds of %WS_MAX_STEAL_DEPTH and
 * %WS_MAX_WAIT_DEPTH, which keep nested waits within the kernel stack.
 * Any other caller sleeps (TASK_IDLE) and must be allowed to sleep.
 *
 * When it returns, the group is empty and may be reused or freed, and the
 * writes of its tasks are visible to the caller.
 *
 * Return: 0.  Later versions report cancellation and task errors here.
 */
int ws_group_wait(struct ws_group *group)
{
	struct ws_worker *worker = ws_current_worker(group->pool);

	if (worker)
		ws_worker_wait(worker, group);
	else if (!ws_group_done(group))
		ws_nap_on_group(group, true);
	return 0;
}
EXPORT_SYMBOL_GPL(ws_group_wait);

/* CPU hotplug: start a worker thread when its CPU comes online. */
static int ws_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct ws_pool *pool = hlist_entry(node, struct ws_pool, cpuhp_node);
	struct ws_worker *worker = pool->workers[cpu];
	struct task_struct *thread;

	thread = kthread_create_on_node(ws_worker_thread, worker,
					cpu_to_node(cpu), "ws/%u:%s", cpu,
					pool->name);
	if (IS_ERR(thread))
		return PTR_ERR(thread);
	kthread_bind(thread, cpu);
	worker->thread = thread;
	pool->nr_threads++;
	wake_up_process(thread);
	return 0;
}

/*
 * CPU hotplug: stop the worker of a CPU going offline and hand the tasks
 * left on its deque to the injection queue, where the other workers take
 * them.  kthread_stop() waits for the task the worker is running.
 */
static int ws_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct ws_pool *pool = hlist_entry(node, struct ws_pool, cpuhp_node);
	struct ws_worker *worker = pool->workers[cpu];
	struct ws_task *task;

	kthread_stop(worker->thread);
	worker->thread = NULL;
	pool->nr_threads--;
	/* The owner is gone; we are the deque's owner now. */
	while ((task = ws_deque_pop(&worker->deque)))
		ws_inject(pool, task);
	return 0;
}

static void ws_pool_free(struct ws_pool *pool)
{
	unsigned int cpu;

	for (cpu = 0; cpu < pool->nr_slots; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (!worker)
			continue;
		ws_deque_destroy(&worker->deque);
		kfree(worker);
	}
	kfree(pool->workers);
	free_percpu(pool->stats);
	kfree(pool);
}

/**
 * ws_pool_create - create a pool with a worker on every online CPU
 * @name: a short name for debugfs and thread names (truncated to
 *	%WS_NAME_LEN - 1 characters)
 *
 * Workers follow CPU hotplug.  The pool appears in debugfs as
 * wsched/<name>/stats.
 *
 * Context: process context, may sleep; not from a wsched task.
 * Return: the pool, or an ERR_PTR() on failure.
 */
struct ws_pool *ws_pool_create(const char *name)
{
	struct ws_pool *pool;
	unsigned int cpu;
	int ret = -ENOMEM;

	pool = kzalloc(sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return ERR_PTR(-ENOMEM);
	strscpy(pool->name, name, sizeof(pool->name));
	pool->nr_slots = nr_cpu_ids;
	init_llist_head(&pool->inject);
	atomic_set(&pool->nr_idle, 0);
	spin_lock_init(&pool->idle_lock);
	INIT_LIST_HEAD(&pool->idle_list);
	pool->stats = alloc_percpu(struct ws_cpu_stats);
	pool->workers = kcalloc(nr_cpu_ids, sizeof(*pool->workers), GFP_KERNEL);
	if (!pool->stats || !pool->workers)
		goto err_free;

	for_each_possible_cpu(cpu) {
		struct ws_worker *worker;

		worker = kzalloc_node(sizeof(*worker), GFP_KERNEL,
				      cpu_to_node(cpu));
		if (!worker)
			goto err_free;
		pool->workers[cpu] = worker;
		ret = ws_deque_init(&worker->deque, WS_DEQUE_INIT_SLOTS,
				    GFP_KERNEL);
		if (ret)
			goto err_free;
		worker->pool = pool;
		worker->cpu = cpu;
		worker->rand = get_random_u32() | 1;
		INIT_LIST_HEAD(&worker->idle_node);
	}

	ret = cpuhp_state_add_instance(ws_cpuhp_state, &pool->cpuhp_node);
	if (ret)
		goto err_free;
	ws_debugfs_add_pool(pool);
	return pool;

err_free:
	ws_pool_free(pool);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(ws_pool_create);

/* Every thread of the pool asleep and nothing queued. */
static bool ws_pool_quiescent(struct ws_pool *pool)
{
	bool quiet;

	cpus_read_lock();
	quiet = atomic_read(&pool->nr_idle) == pool->nr_threads &&
		!ws_pool_has_work(pool);
	cpus_read_unlock();
	return quiet;
}

/**
 * ws_pool_destroy - stop a pool's workers and free it
 * @pool: the pool, from ws_pool_create(); NULL is ignored
 *
 * Waits until every task queued in the pool has run and every worker is
 * idle, then stops the workers.  The caller must not spawn into the pool
 * any more; it should have waited for its groups.
 *
 * Context: process context, may sleep; not from a task of @pool.
 */
void ws_pool_destroy(struct ws_pool *pool)
{
	if (IS_ERR_OR_NULL(pool))
		return;
	if (WARN_ON_ONCE(ws_current_worker(pool)))
		return;
	while (!ws_pool_quiescent(pool))
		schedule_timeout_idle(1);
	ws_debugfs_remove_pool(pool);
	cpuhp_state_remove_instance(ws_cpuhp_state, &pool->cpuhp_node);
	ws_pool_free(pool);
}
EXPORT_SYMBOL_GPL(ws_pool_destroy);

/**
 * ws_pool_read_stats - sum a pool's per-CPU event counters
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
	for_each_possible_cpu(cpu) {
		const struct ws_pool_stats *c = &per_cpu_ptr(pool->stats, cpu)->c;

		stats->spawned += READ_ONCE(c->spawned);
		stats->executed += READ_ONCE(c->executed);
		stats->bypassed += READ_ONCE(c->bypassed);
		stats->popped += READ_ONCE(c->popped);
		stats->stolen += READ_ONCE(c->stolen);
		stats->steal_failed += READ_ONCE(c->steal_failed);
		stats->injected += READ_ONCE(c->injected);
		stats->sleeps += READ_ONCE(c->sleeps);
		stats->wakeups += READ_ONCE(c->wakeups);
	}
}
EXPORT_SYMBOL_GPL(ws_pool_read_stats);

/**
 * ws_pool_nr_workers - number of workers with a running thread
 * @pool: the pool
 *
 * Return: the number of online CPUs the pool has a worker on; it changes
 * with CPU hotplug.
 */
unsigned int ws_pool_nr_workers(struct ws_pool *pool)
{
	return READ_ONCE(pool->nr_threads);
}
EXPORT_SYMBOL_GPL(ws_pool_nr_workers);

static int __init ws_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "wsched:online",
				      ws_cpu_online, ws_cpu_offline);
	if (ret < 0)
		return ret;
	ws_cpuhp_state = ret;
	ws_debugfs_init();
	ws_system_pool = ws_pool_create("system");
	if (IS_ERR(ws_system_pool)) {
		ret = PTR_ERR(ws_system_pool);
		ws_debugfs_exit();
		cpuhp_remove_multi_state(ws_cpuhp_state);
		return ret;
	}
	pr_info("%u workers\n", ws_pool_nr_workers(ws_system_pool));
	return 0;
}

static void __exit ws_exit(void)
{
	ws_pool_destroy(ws_system_pool);
	ws_debugfs_exit();
	cpuhp_remove_multi_state(ws_cpuhp_state);
}

module_init(ws_init);
module_exit(ws_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Work-stealing thread pools");
MODULE_AUTHOR("wsched developers");
