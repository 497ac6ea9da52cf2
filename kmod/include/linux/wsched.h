/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched: work-stealing thread pools for kernel callers.
 *
 * A pool has one worker kthread per online CPU, each owning a lock-free
 * Chase-Lev deque.  A worker takes its next task by three rules, in order:
 * bypass (run the task the previous task returned), pop the youngest task
 * of its own deque, steal the oldest task of a random victim.
 *
 * Tasks live in caller-owned memory, like work_struct, so fork-join needs
 * no allocation.  See Documentation/design.rst for the protocol.
 */
#ifndef _LINUX_WSCHED_H
#define _LINUX_WSCHED_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/types.h>

struct ws_pool;
struct ws_group;
struct ws_task;

/**
 * typedef ws_task_fn - body of a task
 * @task: the task being run; embed it in a larger structure and use
 *	container_of() to reach the task's data.
 *
 * Return: the next task to run on this worker at once (bypass), or NULL.
 * A returned task must have been set up with ws_task_init() and not
 * spawned; it joins the group of @task and counts as spawned into it.
 * After a task function returns, wsched no longer touches @task, so the
 * function may reuse or free it, unless it returned @task itself.
 */
typedef struct ws_task *(*ws_task_fn)(struct ws_task *task);

/**
 * struct ws_task - a unit of work, embedded in caller-owned memory
 * @fn: the function to run
 * @group: the group the task belongs to once spawned
 * @inject_node: link in a pool's injection queue
 *
 * Initialise with ws_task_init().  The fields are private to wsched.
 */
struct ws_task {
	ws_task_fn fn;
	struct ws_group *group;
	struct llist_node inject_node;
};

/**
 * struct ws_group - a set of tasks that can be waited for together
 * @pending: tasks spawned into the group that have not yet finished
 * @pool: the pool the group's tasks run in
 *
 * Initialise with ws_group_init().  The fields are private to wsched.
 * A group may live on the stack of the thread that waits for it.
 */
struct ws_group {
	atomic_t pending;
	struct ws_pool *pool;
};

/**
 * struct ws_pool_stats - event counters of a pool, summed over all CPUs
 * @spawned: tasks spawned from a worker onto its own deque
 * @executed: task functions run
 * @bypassed: tasks run through bypass, without deque traffic
 * @popped: tasks taken from the bottom of a worker's own deque
 * @stolen: tasks taken from the top of another worker's deque
 * @steal_failed: steal attempts that found nothing or lost a race
 * @injected: tasks submitted from outside the pool's workers
 * @sleeps: times a worker went to sleep for lack of work
 * @wakeups: times a sleeping worker was woken for new work
 */
struct ws_pool_stats {
	u64 spawned;
	u64 executed;
	u64 bypassed;
	u64 popped;
	u64 stolen;
	u64 steal_failed;
	u64 injected;
	u64 sleeps;
	u64 wakeups;
};

/**
 * WS_NAME_LEN - size of a pool name buffer, terminating NUL included
 */
#define WS_NAME_LEN 24

/**
 * WS_MAX_STEAL_DEPTH - how many nested waits may steal on one worker
 *
 * A worker waiting for a group runs other tasks meanwhile, on its own
 * stack.  Tasks from its own deque nest no deeper than the program's own
 * recursion; stolen and injected tasks are unrelated work and could nest
 * without bound, so a wait steals only while fewer than this many waits
 * are nested on the worker and more than half of its stack is free.
 */
#define WS_MAX_STEAL_DEPTH 8

/**
 * WS_MAX_WAIT_DEPTH - how many nested waits may run tasks on one worker
 *
 * A wait nested this deep, or with less than a quarter of the kernel stack
 * left, runs no task at all: it sleeps until its group completes while
 * other workers steal the tasks it queued.  A spawn tree deeper than this
 * bound therefore needs other workers with room to run it; if every worker
 * of a pool is at the bound at once, the pool stops making progress.
 */
#define WS_MAX_WAIT_DEPTH 32

extern struct ws_pool *ws_system_pool;

struct ws_pool *ws_pool_create(const char *name);
void ws_pool_destroy(struct ws_pool *pool);
void ws_pool_read_stats(struct ws_pool *pool, struct ws_pool_stats *stats);
unsigned int ws_pool_nr_workers(struct ws_pool *pool);

void ws_group_init(struct ws_group *group, struct ws_pool *pool);
void ws_spawn(struct ws_group *group, struct ws_task *task);
int ws_group_wait(struct ws_group *group);

/**
 * ws_task_init - prepare a task before it is spawned or returned
 * @task: the task
 * @fn: the function the task runs
 *
 * A task may be initialised again once its function has returned.
 */
static inline void ws_task_init(struct ws_task *task, ws_task_fn fn)
{
	task->fn = fn;
	task->group = NULL;
}

/**
 * ws_group_done - whether every task spawned into a group has finished
 * @group: the group
 *
 * Return: true when the group has no pending task.  The load has acquire
 * semantics, so the results the finished tasks wrote are visible.
 */
static inline bool ws_group_done(struct ws_group *group)
{
	/* Pairs with the release in atomic_dec_return_release() on completion. */
	return atomic_read_acquire(&group->pending) == 0;
}

#endif /* _LINUX_WSCHED_H */
