// SPDX-License-Identifier: GPL-2.0
/*
 * The workers of user pools: threads that run the work of one process
 * under that process's resource controls.
 *
 * A user pool (ws_pool_create_user()) starts with no thread.  Its owner,
 * the /dev/wsched engine, grows it from the submitting process's own
 * context (ws_user_grow()) when a graph has work for more threads than
 * the pool has, up to the CPUs the process may use; a worker that slept
 * ws_worker_idle_ms without being woken leaves (ws_user_retire()).
 *
 * Where the kernel has user workers (vhost_task_create(), 6.11's
 * interface, with CONFIG_VHOST_TASK built in: Debian's 6.12), a worker is
 * a thread of the submitting process (CLONE_THREAD, PF_USER_WORKER), made
 * by copy_process() like any other thread: RLIMIT_NPROC and pids.max are
 * checked when it is made, it lives in the process's cgroups and follows
 * them when the process moves, it has the process's credentials,
 * scheduling policy and nice level, its CPU time is the process's
 * (getrusage(), RLIMIT_CPU, cpu.max), the freezer and cgroup.kill reach
 * it, and SIGKILL of the process ends it.  A worker that cannot be made
 * (-EAGAIN from those limits) is not an error: the graph runs on the
 * submitter and the workers that exist.
 *
 * Elsewhere (6.1) a worker is a kthread moved into the submitter's
 * cgroups (cgroup_attach_task_all(), as vhost did before user workers)
 * with the submitter's CPUs, policy and nice level, and counted against
 * a per-user bound checked with the submitter's RLIMIT_NPROC.
 * ws_user_refresh() moves the workers again when the submitter's cgroups
 * or scheduling attributes changed, and the graph engine runs each node
 * with its submitter's credentials (override_creds()).  What 6.1 cannot
 * give is in Documentation/design.rst.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/hashtable.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pid.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <uapi/linux/sched/types.h>
#if WS_USER_WORKERS
#include <linux/sched/vhost_task.h>
#endif

#include "wsched_internal.h"

unsigned int ws_worker_idle_ms = 5000;
module_param_named(worker_idle_ms, ws_worker_idle_ms, uint, 0644);
MODULE_PARM_DESC(worker_idle_ms,
		 "how long an idle worker of a process stays, in ms (default 5000)");

/* Threads of all user pools that exist now (debugfs wsched/dev). */
atomic_t ws_nr_user_workers = ATOMIC_INIT(0);

/**
 * ws_user_idle_jiffies - how long an idle user-pool worker sleeps
 *
 * Return: ws_worker_idle_ms in jiffies, at least one.  Read without a
 * lock: the parameter is a plain aligned store.
 */
unsigned long ws_user_idle_jiffies(void)
{
	return max(msecs_to_jiffies(READ_ONCE(ws_worker_idle_ms)), 1UL);
}

/* The states of a CPU slot of a user pool (ws_worker.ustate). */
enum {
	WS_USLOT_FREE,		/* no thread */
	WS_USLOT_LIVE,		/* a thread owns the slot */
	WS_USLOT_GONE,		/* its thread left; not reaped yet */
};

/**
 * struct ws_uworkers - the thread management of a user pool
 * @pool: the pool
 * @lock: serialises growing, leaving, being killed and stopping; guards
 *	the slots' @ustate, @vtsk and @uid, @dying, and the pool's
 *	nr_threads (written under it, read locklessly elsewhere)
 * @dying: the pool is being destroyed: no thread leaves by itself
 * @reap: stops the threads that left (user workers cannot exit alone)
 * @owner: the process (thread-group pid, a reference) whose threads
 *	may grow the pool
 * @cgroups: the css_set the threads were last moved into (kthreads); a
 *	cookie compared with the submitter's, never dereferenced
 * @policy: the scheduling policy the kthreads were given
 * @nice: the nice level the kthreads were given
 */
struct ws_uworkers {
	struct ws_pool *pool;
	struct mutex lock;	/* see above */
	bool dying;
	struct work_struct reap;
	struct pid *owner;
	const void *cgroups;
	int policy;
	int nice;
};

/* ---- the per-user bound of kthread workers (6.1) ---------------------- */
#if !WS_USER_WORKERS

/* Kthread workers per user, bounded by the submitter's RLIMIT_NPROC. */
struct ws_uid_count {
	struct hlist_node node;
	uid_t uid;
	unsigned int count;
};

static DEFINE_HASHTABLE(ws_uid_counts, 6);
static DEFINE_SPINLOCK(ws_uid_lock);

/* Count one more kthread worker for @uid if under @limit. */
static int ws_uid_charge(uid_t uid, unsigned long limit)
{
	struct ws_uid_count *c, *fresh;
	int ret = 0;

	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	spin_lock(&ws_uid_lock);
	hash_for_each_possible(ws_uid_counts, c, node, uid)
		if (c->uid == uid)
			goto found;
	if (!fresh) {
		ret = -ENOMEM;
		goto out;
	}
	c = fresh;
	fresh = NULL;
	c->uid = uid;
	hash_add(ws_uid_counts, &c->node, uid);
found:
	if (c->count >= limit)
		ret = -EAGAIN;
	else
		c->count++;
out:
	spin_unlock(&ws_uid_lock);
	kfree(fresh);
	return ret;
}

static void ws_uid_uncharge(uid_t uid)
{
	struct ws_uid_count *c;

	spin_lock(&ws_uid_lock);
	hash_for_each_possible(ws_uid_counts, c, node, uid) {
		if (c->uid != uid)
			continue;
		if (!--c->count) {
			hash_del(&c->node);
			kfree(c);
		}
		break;
	}
	spin_unlock(&ws_uid_lock);
}
#endif

/* ---- scheduling attributes and cgroups -------------------------------- */

/* The policy a worker gets: the model's, if it is a fair-class one. */
static int ws_fair_policy(const struct task_struct *model)
{
	switch (model->policy) {
	case SCHED_BATCH:
	case SCHED_IDLE:
		return model->policy;
	default:
		return SCHED_NORMAL;
	}
}

static void ws_copy_sched(struct task_struct *thread, int policy, int nice)
{
	struct sched_attr attr = {
		.size = sizeof(attr),
		.sched_policy = policy,
		.sched_nice = nice,
	};

	/* Best effort: the values are the model's own, so they are valid. */
	sched_setattr_nocheck(thread, &attr);
}

/*
 * A cookie for the css_set of @task; compared, never dereferenced, so
 * rcu_access_pointer() needs no read-side section (a call each on a
 * preemptible-RCU kernel, and this runs at every submission on 6.1).  A
 * stale value only makes the next submission compare again.
 */
static const void *ws_cgroups_cookie(struct task_struct *task)
{
	return rcu_access_pointer(task->cgroups);
}

/**
 * ws_pool_adopt_thread - put a new kthread of a user pool under its
 *	owner's resource controls
 * @pool: a pool from ws_pool_create_user()
 * @thread: a kthread of @pool, created and not yet woken
 * @model: a thread already under them: the submitter or a worker of @pool
 *
 * The thread joins every cgroup of @model (cpu.max, cpuset, memory, as
 * vhost did for its owner's workers before user workers), takes the CPUs
 * @model may use now (within its cpuset, which the attach applied) and
 * its scheduling policy and nice level.  It is not bound to one CPU: a
 * cpuset must be able to move it.
 *
 * Context: process context, not under the CPU hotplug lock.
 * Return: 0 or the errno of the cgroup attach.
 */
int ws_pool_adopt_thread(struct ws_pool *pool, struct task_struct *thread,
			 struct task_struct *model)
{
	int ret;

	ret = cgroup_attach_task_all(model, thread);
	if (ret)
		return ret;
	/* Best effort: fails only for a mask the cpuset has since left. */
	set_cpus_allowed_ptr(thread, model->cpus_ptr);
	ws_copy_sched(thread, ws_fair_policy(model), task_nice(model));
	return 0;
}

/* ---- threads ----------------------------------------------------------- */

#if WS_USER_WORKERS
/*
 * The function of a user worker thread, called in a loop by
 * vhost_task_fn(), which handles signals and stop requests between calls
 * and sleeps (TASK_INTERRUPTIBLE, set before each call) when it returns
 * false.
 */
static bool ws_user_worker_fn(void *arg)
{
	struct ws_worker *worker = arg;

	/*
	 * Left the pool: sleep until ws_user_reap() stops us.  Set by this
	 * thread itself, earlier (ws_user_retire() or the kill handler).
	 */
	if (worker->ustate != WS_USLOT_LIVE)
		return false;
	__set_current_state(TASK_RUNNING);
	/*
	 * Found by ws_current_worker() through worker_private, which no
	 * other user of PF_USER_WORKER threads without PF_IO_WORKER sets.
	 * Set only while we run tasks: between calls vhost_task_stop() may
	 * end the loop, and the thread then exits without the kill handler,
	 * after the pool's destroyer freed @worker.  Its exit can still
	 * release a /dev/wsched file (as the last user of the mm, it unmaps
	 * the rings), whose teardown asks ws_current_worker() about other
	 * pools: a stale pointer there is a use after free, and it matched
	 * a newer pool allocated at the same address.
	 */
	current->worker_private = worker;
	if (unlikely(!worker->thread))
		/* Only the owner stores its own pointer. */
		WRITE_ONCE(worker->thread, current);
	ws_worker_run(worker, true);
	current->worker_private = NULL;
	/*
	 * Asleep until woken, or left the pool: then the state read above
	 * keeps us asleep until ws_user_reap() stops us.
	 */
	return true;
}

/*
 * SIGKILL of the process (or an exec, or a group exit): the thread is
 * leaving and runs nothing more.  Hand what its deque and mailbox hold to
 * the injection queue, where the submitter (or the release of the file,
 * which cancels it) finds it, and give the slot up.
 */
static void ws_user_worker_killed(void *arg)
{
	struct ws_worker *worker = arg;
	struct ws_pool *pool = worker->pool;
	struct ws_uworkers *uw = pool->uw;
	struct llist_node *mail, *tmp;
	struct ws_task *task;

	mutex_lock(&uw->lock);
	if (worker->ustate == WS_USLOT_LIVE) {
		/* We are the owner, or it never ran and holds nothing. */
		while ((task = ws_deque_pop(&worker->deque))) {
			ws_task_claim(task);
			ws_inject(pool, task);
		}
		spin_lock(&worker->mailbox_lock);
		mail = llist_del_all(&worker->mailbox);
		spin_unlock(&worker->mailbox_lock);
		llist_for_each_safe(mail, tmp, mail)
			ws_inject(pool, llist_entry(mail, struct ws_task, node));
		current->worker_private = NULL;
		WRITE_ONCE(worker->thread, NULL);
		worker->ustate = WS_USLOT_GONE;
		WRITE_ONCE(pool->nr_threads, pool->nr_threads - 1);
		atomic_dec(&ws_nr_user_workers);
		if (!uw->dying)
			queue_work(system_unbound_wq, &uw->reap);
	}
	mutex_unlock(&uw->lock);
}
#endif

/* Start a thread in the free CPU slot @worker.  Under uw->lock. */
#if WS_USER_WORKERS
static int ws_user_start(struct ws_pool *pool, struct ws_worker *worker)
{
	char name[TASK_COMM_LEN];
	struct vhost_task *vtsk;

	lockdep_assert_held(&pool->uw->lock);
	snprintf(name, sizeof(name), "ws/%u:%s", worker->cpu, pool->name);
	vtsk = vhost_task_create(ws_user_worker_fn, ws_user_worker_killed,
				 worker, name);
	if (IS_ERR(vtsk))
		return PTR_ERR(vtsk);
	worker->vtsk = vtsk;
	worker->ustate = WS_USLOT_LIVE;
	WRITE_ONCE(pool->nr_threads, pool->nr_threads + 1);
	atomic_inc(&ws_nr_user_workers);
	/* The thread stores its own pointer in @worker->thread. */
	vhost_task_start(vtsk);
	return 0;
}
#else
static int ws_user_start(struct ws_pool *pool, struct ws_worker *worker)
{
	uid_t uid = from_kuid(&init_user_ns, current_uid());
	struct task_struct *thread;
	int ret;

	lockdep_assert_held(&pool->uw->lock);
	ret = ws_uid_charge(uid, rlimit(RLIMIT_NPROC));
	if (ret)
		return ret;
	thread = kthread_create(ws_worker_thread, worker, "ws/%u:%s",
				worker->cpu, pool->name);
	if (IS_ERR(thread)) {
		ws_uid_uncharge(uid);
		return PTR_ERR(thread);
	}
	ret = ws_pool_adopt_thread(pool, thread, current);
	if (ret) {
		kthread_stop(thread);
		ws_uid_uncharge(uid);
		return ret;
	}
	/* Held so that kthread_stop() is safe until the thread leaves. */
	get_task_struct(thread);
	worker->uid = uid;
	worker->ustate = WS_USLOT_LIVE;
	WRITE_ONCE(worker->thread, thread);
	WRITE_ONCE(pool->nr_threads, pool->nr_threads + 1);
	atomic_inc(&ws_nr_user_workers);
	wake_up_process(thread);
	return 0;
}
#endif

/* Stop the thread of a slot whose thread is live or gone. */
static void ws_user_stop(struct ws_pool *pool, struct ws_worker *worker)
{
#if WS_USER_WORKERS
	struct vhost_task *vtsk = worker->vtsk;

	worker->vtsk = NULL;
	if (vtsk)
		vhost_task_stop(vtsk);
	if (worker->ustate == WS_USLOT_LIVE)
		atomic_dec(&ws_nr_user_workers);
#else
	struct task_struct *thread = worker->thread;

	if (thread) {
		kthread_stop(thread);
		put_task_struct(thread);
		ws_uid_uncharge(worker->uid);
		atomic_dec(&ws_nr_user_workers);
	}
#endif
	WRITE_ONCE(worker->thread, NULL);
	worker->ustate = WS_USLOT_FREE;
}

#if WS_USER_WORKERS
/*
 * Stop the user worker threads that left their slots, freeing the slots.
 * Not under uw->lock while it waits: a thread killed before it saw the
 * stop request runs ws_user_worker_killed(), which takes the lock.
 */
static void ws_user_reap(struct work_struct *work)
{
	struct ws_uworkers *uw = container_of(work, struct ws_uworkers, reap);
	struct ws_pool *pool = uw->pool;
	unsigned int cpu;

	for (cpu = 0; cpu < pool->nr_cpus; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];
		struct vhost_task *vtsk;

		mutex_lock(&uw->lock);
		vtsk = NULL;
		if (worker->ustate == WS_USLOT_GONE) {
			vtsk = worker->vtsk;
			worker->vtsk = NULL;
		}
		mutex_unlock(&uw->lock);
		if (!vtsk)
			continue;
		/* It sleeps in vhost_task_fn() until told to stop. */
		vhost_task_stop(vtsk);
		mutex_lock(&uw->lock);
		worker->ustate = WS_USLOT_FREE;
		mutex_unlock(&uw->lock);
	}
}
#endif

/**
 * ws_user_retire - let an idle worker of a user pool leave
 * @worker: the caller's slot; it slept ws_worker_idle_ms without work
 *
 * Return: true if it left: a kthread returns from its function, a user
 * worker sleeps until ws_user_reap() stops it.  False if the pool is
 * being destroyed (its destroyer stops the thread) or has work again.
 */
bool ws_user_retire(struct ws_worker *worker)
{
	struct ws_pool *pool = worker->pool;
	struct ws_uworkers *uw = pool->uw;
	bool left = false;

	mutex_lock(&uw->lock);
	/*
	 * Our deque is empty (we found nothing to run) and only we push to
	 * it; the slot's mailbox takes no mail in a user pool.
	 */
	if (uw->dying || ws_pool_has_work(pool))
		goto out;
	WRITE_ONCE(worker->thread, NULL);
	WRITE_ONCE(pool->nr_threads, pool->nr_threads - 1);
	atomic_dec(&ws_nr_user_workers);
	left = true;
#if WS_USER_WORKERS
	worker->ustate = WS_USLOT_GONE;
	queue_work(system_unbound_wq, &uw->reap);
#else
	/* We return from our function: nobody may stop us any more. */
	worker->ustate = WS_USLOT_FREE;
	ws_uid_uncharge(worker->uid);
	put_task_struct(current);
#endif
out:
	mutex_unlock(&uw->lock);
	return left;
}

/**
 * ws_user_grow - give a user pool more threads
 * @pool: a pool from ws_pool_create_user()
 * @want: the number of threads the caller has work for
 *
 * Starts threads in free slots until the pool has @want threads or as
 * many as the CPUs the calling process may use.  They are made from the
 * caller's own context: the caller must be a thread of the pool's
 * process (the submitter, or one of the pool's threads).  A thread that
 * cannot be made stops the growth and is not an error.
 *
 * A thread that left for being idle (ws_user_retire()) is no longer
 * counted, but with user workers its slot stays taken until ws_user_reap()
 * has stopped it.  If such slots are all that keep the pool below @want,
 * the caller waits for that reaping once and then uses them: otherwise a
 * graph submitted just after the last worker left would find no slot,
 * and no thread would run it while its submitter does not wait in the
 * ring.
 *
 * Context: process context, may sleep; not under a spinlock, nor a lock
 * that an exiting thread of the process takes.
 * Return: the number of threads started.
 */
unsigned int ws_user_grow(struct ws_pool *pool, unsigned int want)
{
	struct ws_uworkers *uw = pool->uw;
	unsigned int cpu, made = 0;
	bool reaped = false, gone, failed;

	/* Only a thread of the pool's process makes its threads. */
	if (task_tgid(current) != uw->owner)
		return 0;
	/*
	 * Nor one of io_uring's (an io-wq worker or an SQPOLL thread, which
	 * issue io_uring commands, uring_cmd.c): a task made from it
	 * inherits PF_IO_WORKER and its worker_private, and the scheduler
	 * would then call io-wq's hooks on the new thread with our worker
	 * as io-wq's.  Its caller runs the work itself (wsd_uring_submit()).
	 */
	if (WS_USER_WORKERS && (current->flags & PF_IO_WORKER))
		return 0;
	want = min3(want, cpumask_weight(current->cpus_ptr), pool->nr_cpus);
	/* Unordered: a stale count makes one more round under the lock. */
	if (READ_ONCE(pool->nr_threads) >= want)
		return 0;
again:
	gone = false;
	failed = false;
	mutex_lock(&uw->lock);
	for (cpu = 0; cpu < pool->nr_cpus && !uw->dying &&
	     pool->nr_threads < want; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (worker->ustate == WS_USLOT_GONE)
			gone = true;
		if (worker->ustate != WS_USLOT_FREE)
			continue;
		if (ws_user_start(pool, worker)) {
			failed = true;
			break;
		}
		made++;
	}
	gone = gone && !failed && !uw->dying && pool->nr_threads < want;
	mutex_unlock(&uw->lock);
	/*
	 * Slots still GONE (user workers only: a kthread frees its slot as
	 * it leaves).  Whoever made them so queued uw->reap under uw->lock,
	 * before we read the state under it, so the flush waits until they
	 * are free.
	 */
	if (WS_USER_WORKERS && gone && !reaped) {
		reaped = true;
		flush_work(&uw->reap);
		goto again;
	}
	return made;
}

/**
 * ws_user_refresh - move a user pool's kthreads to the submitter's
 *	cgroups and scheduling attributes, if they changed
 * @pool: a pool from ws_pool_create_user()
 *
 * For kthread workers only (user workers follow their process by
 * construction).  Called by the submitter at each submission: the cost
 * is a few loads when nothing changed.
 *
 * Context: process context, may sleep.
 */
void ws_user_refresh(struct ws_pool *pool)
{
#if !WS_USER_WORKERS
	struct ws_uworkers *uw = pool->uw;
	const void *cgroups = ws_cgroups_cookie(current);
	int policy = ws_fair_policy(current), nice = task_nice(current);
	unsigned int cpu;

	/* Unordered: written under uw->lock by this function only. */
	if (READ_ONCE(uw->cgroups) == cgroups &&
	    READ_ONCE(uw->policy) == policy && READ_ONCE(uw->nice) == nice)
		return;
	mutex_lock(&uw->lock);
	for (cpu = 0; cpu < pool->nr_cpus; cpu++) {
		struct task_struct *thread = pool->workers[cpu]->thread;

		if (pool->workers[cpu]->ustate != WS_USLOT_LIVE || !thread)
			continue;
		if (cgroup_attach_task_all(current, thread))
			continue;
		set_cpus_allowed_ptr(thread, current->cpus_ptr);
		ws_copy_sched(thread, policy, nice);
	}
	WRITE_ONCE(uw->cgroups, cgroups);
	WRITE_ONCE(uw->policy, policy);
	WRITE_ONCE(uw->nice, nice);
	mutex_unlock(&uw->lock);
#endif
}

/**
 * ws_user_init - set up the thread management of a new user pool
 * @pool: the pool, with its slots
 *
 * Return: 0 or -ENOMEM.
 */
int ws_user_init(struct ws_pool *pool)
{
	struct ws_uworkers *uw;

	uw = kzalloc(sizeof(*uw), GFP_KERNEL_ACCOUNT);
	if (!uw)
		return -ENOMEM;
	mutex_init(&uw->lock);
	uw->pool = pool;
	uw->owner = get_pid(task_tgid(current));
#if WS_USER_WORKERS
	INIT_WORK(&uw->reap, ws_user_reap);
#endif
	uw->cgroups = ws_cgroups_cookie(current);
	uw->policy = ws_fair_policy(current);
	uw->nice = task_nice(current);
	pool->uw = uw;
	return 0;
}

/**
 * ws_user_stop_all - stop every thread of a user pool and free its
 *	thread management
 * @pool: a pool from ws_pool_create_user(), quiescent
 *
 * Context: process context; not a thread of @pool.
 */
void ws_user_stop_all(struct ws_pool *pool)
{
	struct ws_uworkers *uw = pool->uw;
	unsigned int cpu;

	if (!uw)
		return;
	mutex_lock(&uw->lock);
	uw->dying = true;
	mutex_unlock(&uw->lock);
	/* No thread leaves by itself now, and no reap is queued again. */
#if WS_USER_WORKERS
	cancel_work_sync(&uw->reap);
#endif
	for (cpu = 0; cpu < pool->nr_cpus; cpu++) {
		struct ws_worker *worker = pool->workers[cpu];

		if (worker->ustate != WS_USLOT_FREE)
			ws_user_stop(pool, worker);
	}
	WRITE_ONCE(pool->nr_threads, 0);
	put_pid(uw->owner);
	mutex_destroy(&uw->lock);
	kfree(uw);
	pool->uw = NULL;
}
