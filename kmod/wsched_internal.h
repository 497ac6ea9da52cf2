/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched internals shared by the core, debugfs and the KUnit tests.
 */
#ifndef _WSCHED_INTERNAL_H
#define _WSCHED_INTERNAL_H

#include <linux/cpuhotplug.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/wsched.h>

#include "ws_deque.h"

/* Empty rounds a worker spins through before it goes to sleep. */
#define WS_SPIN_ROUNDS		64

/**
 * struct ws_cpu_stats - per-CPU event counters of a pool
 * @c: the counters, named as in struct ws_pool_stats
 *
 * Incremented with this_cpu_inc() by whatever thread causes the event;
 * read without synchronisation (a snapshot).
 */
struct ws_cpu_stats {
	struct ws_pool_stats c;
};

/**
 * struct ws_worker - one worker of a pool, bound to one CPU
 * @deque: tasks this worker spawned; it pops them, others steal them
 * @pool: the pool
 * @thread: the kthread, or NULL while the CPU is offline or not used
 * @idle_node: link in the pool's idle list while asleep or about to be
 * @mailbox: tasks spawned with this worker's CPU as a hint
 * @mailbox_lock: serialises takers of @mailbox (llist_del_first())
 * @cpu: the CPU the worker is bound to
 * @rand: state of the victim-choosing xorshift generator
 * @wait_depth: how many ws_group_wait() calls are nested on this worker
 * @ticks: tasks taken, to give the FIFO queue a regular turn
 * @isolation: tag of the isolated region the worker is in, or 0
 */
struct ws_worker {
	struct ws_deque deque;
	struct ws_pool *pool;
	struct task_struct *thread;
	struct list_head idle_node;
	struct llist_head mailbox ____cacheline_aligned_in_smp;
	spinlock_t mailbox_lock;	/* guards taking from mailbox */
	unsigned int cpu;
	u32 rand;
	unsigned int wait_depth;
	unsigned int ticks;
	unsigned long isolation;
};

/**
 * struct ws_pool - a work-stealing thread pool
 * @name: the name, shown in debugfs and in worker thread names
 * @workers: one worker per possible CPU, indexed by CPU number
 * @nr_slots: number of entries of @workers (nr_cpu_ids)
 * @inject: tasks submitted from outside the pool's workers
 * @fifo_lock: guards the FIFO queue
 * @fifo_head: oldest task queued by ws_enqueue(), or NULL
 * @fifo_tail: where the next enqueued task is linked
 * @nr_idle: number of workers on @idle_list
 * @idle_lock: protects @idle_list and the wake-up of its workers
 * @idle_list: workers that are asleep or about to sleep
 * @nr_threads: workers with a running thread (changed under hotplug lock)
 * @cpumask: CPUs the pool may have workers on
 * @max_workers: most worker threads, 0 for no limit
 * @nice: nice level of the worker threads
 * @pinned: the pool holds a reference on the module
 * @list: link in the list of all pools
 * @stats: per-CPU event counters
 * @cpuhp_node: instance of the pool in the CPU hotplug state
 * @debugfs_dir: the pool's debugfs directory
 */
struct ws_pool {
	char name[WS_NAME_LEN];
	struct ws_worker **workers;
	unsigned int nr_slots;
	struct llist_head inject ____cacheline_aligned_in_smp;
	spinlock_t fifo_lock ____cacheline_aligned_in_smp;	/* guards fifo */
	struct llist_node *fifo_head;
	struct llist_node **fifo_tail;
	atomic_t nr_idle ____cacheline_aligned_in_smp;
	spinlock_t idle_lock;		/* guards idle_list */
	struct list_head idle_list;
	unsigned int nr_threads;
	cpumask_var_t cpumask;
	unsigned int max_workers;
	int nice;
	bool pinned;
	struct list_head list;
	struct ws_cpu_stats __percpu *stats;
	struct hlist_node cpuhp_node;
	struct dentry *debugfs_dir;
};

#define ws_stat_inc(pool, field) this_cpu_inc((pool)->stats->c.field)

extern bool ws_frozen;

int ws_worker_thread(void *arg);
void ws_wake_locked(struct ws_pool *pool, struct ws_worker *worker);
void ws_freeze_pools(bool freeze);
bool ws_pool_has_work(struct ws_pool *pool);
void ws_inject(struct ws_pool *pool, struct ws_task *task);
bool ws_in_pool(struct ws_pool *pool);
struct module *ws_owner_module(void);
bool ws_should_split(struct ws_pool *pool);

void ws_debugfs_init(void);
void ws_debugfs_exit(void);
void ws_debugfs_add_pool(struct ws_pool *pool);
void ws_debugfs_remove_pool(struct ws_pool *pool);

#endif /* _WSCHED_INTERNAL_H */
