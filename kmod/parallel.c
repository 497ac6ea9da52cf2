// SPDX-License-Identifier: GPL-2.0
/*
 * wsched parallel loops: ws_parallel_for() and ws_parallel_reduce().
 *
 * The range is cut by an automatic partitioner that splits lazily, as in
 * "Lazy Binary Splitting: A Run-Time Adaptive Work-Stealing Scheduler"
 * (Tzannes, Caragea, Barua and Vishkin, PPoPP 2010) and in the spirit of
 * oneTBB's auto_partitioner: a range task halves its range only while the
 * pool could use the other half (its worker's deque is empty or a worker
 * is idle, see ws_should_split()); otherwise it runs the body one grain
 * at a time and asks again.  A loaded pool thus runs long serial stretches
 * with no task overhead, and an idle worker gets work at the next chunk.
 *
 * Every cut lies a whole number of grains after the start of the range,
 * so the body always sees the same chunks, [begin + k * grain, begin +
 * (k + 1) * grain) clipped to the end, whatever the schedule.
 */
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/sched.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/*
 * Most right halves one range task splits off.  The child tasks live in
 * the task's stack frame, so this bounds the frame (about 90 bytes each);
 * each split halves the range, so eight splits cut a frame's range to
 * 1/256 and the children split further where there is demand.
 */
#define WS_PAR_MAX_SPLITS	8

/**
 * struct ws_par_loop - what every range task of one loop shares
 * @pool: the pool the loop runs in (never NULL)
 * @grain: the smallest chunk the body is given (at least 1)
 * @body: the body of ws_parallel_for(), or NULL for a reduction
 * @ops: the operations of ws_parallel_reduce(), or NULL for a loop
 * @arg: the caller's argument
 * @error: the first error a wait of the loop reported, or 0
 *
 * Lives on the stack of the caller of ws_parallel_for() or
 * ws_parallel_reduce(), which returns only once every task has finished.
 */
struct ws_par_loop {
	struct ws_pool *pool;
	unsigned long grain;
	ws_range_fn body;
	const struct ws_reduce_ops *ops;
	void *arg;
	int error;
};

/**
 * struct ws_par_range - a range task: a part of the loop
 * @task: the task, spawned into the group of the task that split it off
 * @loop: the loop
 * @begin: first index of the part
 * @end: one past its last index
 * @value: for a reduction, the value of [@begin, @end) once finished
 */
struct ws_par_range {
	struct ws_task task;
	struct ws_par_loop *loop;
	unsigned long begin;
	unsigned long end;
	u64 value;
};

/* Remember the first error of the loop; later ones are dropped. */
static void ws_par_fail(struct ws_par_loop *loop, int error)
{
	/*
	 * Fully ordered; pairs with the READ_ONCE() in ws_par_run(), which
	 * only uses the value to stop early, and with the plain read after
	 * the root's wait, ordered by the group's completion.
	 */
	cmpxchg(&loop->error, 0, error);
}

/*
 * Where to cut [@begin, @end), which holds more than one grain: after
 * half of its grains, rounded down, so both parts keep at least a grain
 * and every cut stays on the grain boundaries of the loop.
 */
static unsigned long ws_par_mid(unsigned long begin, unsigned long end,
				unsigned long grain)
{
	unsigned long chunks = (end - begin - 1) / grain + 1;

	return begin + chunks / 2 * grain;
}

static struct ws_task *ws_par_task(struct ws_task *task);

/* The task's group was cancelled before it ran: its value is missing. */
static void ws_par_cancel(struct ws_task *task)
{
	struct ws_par_range *r = container_of(task, struct ws_par_range, task);

	ws_par_fail(r->loop, -ECANCELED);
}

static void ws_par_range_init(struct ws_par_range *r,
			      struct ws_par_loop *loop, unsigned long begin,
			      unsigned long end)
{
	ws_task_init(&r->task, ws_par_task);
	ws_task_set_cancel(&r->task, ws_par_cancel);
	r->loop = loop;
	r->begin = begin;
	r->end = end;
	r->value = 0;
}

/* @acc, valid if @have, followed by @v, the value of [@b, @e). */
static u64 ws_par_combine(const struct ws_par_loop *loop, bool have, u64 acc,
			  u64 v, unsigned long b, unsigned long e)
{
	return have ? loop->ops->combine(acc, v, b, e, loop->arg) : v;
}

/*
 * Run the range task @r: run its range from the left, splitting off right
 * halves while the pool asks for work, then wait for them and, for a
 * reduction, fold their values in after its own, leftmost first.
 *
 * noinline keeps the children array out of ws_par_task()'s callers.
 */
static noinline void ws_par_run(struct ws_par_range *r)
{
	struct ws_par_range kids[WS_PAR_MAX_SPLITS];
	struct ws_par_loop *loop = r->loop;
	unsigned long grain = loop->grain;
	unsigned long b = r->begin, e = r->end;
	struct ws_group group;
	unsigned int nr = 0;
	bool have = false;
	u64 acc = 0;
	int err;

	ws_group_init(&group, loop->pool);
	while (b < e) {
		/* Pairs with cmpxchg() in ws_par_fail(); only a hint. */
		if (READ_ONCE(loop->error))
			break;
		if (e - b > grain && nr < WS_PAR_MAX_SPLITS &&
		    ws_should_split(loop->pool)) {
			struct ws_par_range *kid = &kids[nr++];
			unsigned long mid = ws_par_mid(b, e, grain);

			ws_par_range_init(kid, loop, mid, e);
			ws_spawn(&group, &kid->task);
			e = mid;
			continue;
		}
		/* One grain at the left, then ask again. */
		e = e - b > grain ? b + grain : e;
		if (loop->body) {
			loop->body(b, e, loop->arg);
		} else {
			u64 v = loop->ops->body(b, e, loop->arg);

			acc = ws_par_combine(loop, have, acc, v, b, e);
			have = true;
		}
		b = e;
		e = nr ? kids[nr - 1].begin : r->end;
		cond_resched();
	}
	if (nr) {
		err = ws_group_wait(&group);
		if (err)
			ws_par_fail(loop, err);
	}
	if (loop->body)
		return;
	/*
	 * The last child split off is the leftmost of the right halves.
	 * After an error some values are missing; the caller ignores them.
	 */
	while (nr--) {
		struct ws_par_range *kid = &kids[nr];

		acc = ws_par_combine(loop, have, acc, kid->value, kid->begin,
				     kid->end);
		have = true;
	}
	r->value = have ? acc : loop->ops->identity;
}

static struct ws_task *ws_par_task(struct ws_task *task)
{
	ws_par_run(container_of(task, struct ws_par_range, task));
	return NULL;
}

/*
 * Run @loop over [@begin, @end): inline on a worker of the pool, so that
 * a task may run a loop and join it, or as a task the caller waits for.
 */
static int ws_par_start(struct ws_par_loop *loop, unsigned long begin,
			unsigned long end, u64 *value)
{
	struct ws_par_range root;
	struct ws_group group;
	int err = 0;

	ws_par_range_init(&root, loop, begin, end);
	if (ws_in_pool(loop->pool)) {
		ws_par_run(&root);
	} else {
		ws_group_init(&group, loop->pool);
		ws_spawn(&group, &root.task);
		err = ws_group_wait(&group);
	}
	if (!err)
		err = loop->error;
	if (!err && value)
		*value = root.value;
	return err;
}

/**
 * ws_parallel_for - run a loop body over a range of indices in parallel
 * @pool: the pool to run in; NULL for ws_system_pool
 * @begin: first index
 * @end: one past the last index; an empty range (@end <= @begin) does
 *	nothing
 * @grain: the size of the chunks @body is given (the last may be shorter);
 *	0 means 1.  Pick it so that a chunk costs a few microseconds at
 *	least: a chunk is the unit of load balancing.
 * @body: called for the chunks [b, e) that together cover the range,
 *	each index exactly once, concurrently on the pool's workers and in
 *	no particular order.  Every chunk starts a multiple of @grain after
 *	@begin and holds @grain indices, except the last.  It may sleep.
 * @arg: passed to @body
 *
 * The range is split on demand (lazy binary splitting): a chunk is split
 * off as a task only while some worker of the pool can take it, so a busy
 * pool runs the loop almost serially, at the cost of one check per chunk.
 *
 * Called from a task of @pool, the loop runs on the calling worker, which
 * shares it with the others and takes part in the wait; called from
 * elsewhere, the caller sleeps until the loop is done.
 *
 * Context: process context, may sleep.
 * Return: 0 once every chunk has run, or the error a wait for the loop's
 * tasks reported (such as -ECANCELED); then some chunks may not have run.
 */
int ws_parallel_for(struct ws_pool *pool, unsigned long begin,
		    unsigned long end, unsigned long grain, ws_range_fn body,
		    void *arg)
{
	struct ws_par_loop loop = {
		.pool = pool ? pool : ws_system_pool,
		.grain = grain ? grain : 1,
		.body = body,
		.arg = arg,
	};

	if (end <= begin)
		return 0;
	return ws_par_start(&loop, begin, end, NULL);
}
EXPORT_SYMBOL_GPL(ws_parallel_for);

/**
 * ws_parallel_reduce - compute a value over a range of indices in parallel
 * @pool: the pool to run in; NULL for ws_system_pool
 * @begin: first index
 * @end: one past the last index
 * @grain: the size of the chunks @ops->body is given (the last may be
 *	shorter); 0 means 1
 * @ops: @ops->body computes the value of a chunk, @ops->combine the value
 *	of two adjacent parts; @ops->identity is the value of an empty range
 * @arg: passed to @ops->body and @ops->combine
 * @result: where to store the value of [@begin, @end)
 *
 * Chunks are cut as by ws_parallel_for() and may be computed in any order
 * on any worker, but their values are combined in index order: the left
 * operand of @ops->combine always covers the indices just before its
 * right one.  So @ops->combine must be associative but need not be
 * commutative.  Each part of the range is combined exactly once; how the
 * parts are grouped depends on the schedule.  An empty range stores
 * @ops->identity without calling anything.
 *
 * Context: process context, may sleep.
 * Return: 0 and the value in @result, or the error a wait for the loop's
 * tasks reported (such as -ECANCELED), leaving @result untouched.
 */
int ws_parallel_reduce(struct ws_pool *pool, unsigned long begin,
		       unsigned long end, unsigned long grain,
		       const struct ws_reduce_ops *ops, void *arg, u64 *result)
{
	struct ws_par_loop loop = {
		.pool = pool ? pool : ws_system_pool,
		.grain = grain ? grain : 1,
		.ops = ops,
		.arg = arg,
	};

	if (end <= begin) {
		*result = ops->identity;
		return 0;
	}
	return ws_par_start(&loop, begin, end, result);
}
EXPORT_SYMBOL_GPL(ws_parallel_reduce);
