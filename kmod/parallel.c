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
 *
 * The tasks never wait for each other (continuation passing, as oneTBB's
 * parallel_for and parallel_reduce do).  To split, a range task allocates
 * a join node, spawns the right half as a new task that reports to the
 * node, and goes on with the left half itself, now reporting to the node;
 * the node reports to where the task reported before.  The tasks thus
 * form a binary tree of join nodes, rooted in the loop.  A task that has
 * run its range stores its value in its node and counts down the node's
 * two pending halves; the half that arrives last combines the two values,
 * left then right, and reports the node's value to the node's parent,
 * and so on up the tree.  Nothing blocks inside the tree, so the stack
 * depth of a loop does not grow with the number of splits: one wait, at
 * the root, waits for the whole loop, whose tasks all belong to one group
 * owned by the caller's frame.
 *
 * The core touches a task after its function has returned, so neither a
 * task nor the node it lives in can be freed from inside the loop: every
 * node goes on a list of the loop when allocated, and the list is freed
 * once the root's wait has returned.
 */
#include <linux/atomic.h>
#include <linux/compiler.h>
#include <linux/export.h>
#include <linux/llist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/wsched.h>

#include "wsched_internal.h"

/* The two halves of a join node, in index order. */
#define WS_PAR_LEFT	0
#define WS_PAR_RIGHT	1

struct ws_par_node;

/**
 * struct ws_par_loop - what every range task of one loop shares
 * @pool: the pool the loop runs in (never NULL)
 * @grain: the smallest chunk the body is given (at least 1)
 * @body: the body of ws_parallel_for(), or NULL for a reduction
 * @ops: the operations of ws_parallel_reduce(), or NULL for a loop
 * @arg: the caller's argument
 * @group: the group of every task of the loop; the root waits for it
 * @nodes: every join node of the loop, freed after the root's wait
 * @value: for a reduction, the value of the whole range once finished
 * @error: the first error of the loop, or 0
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
	struct ws_group group;
	struct llist_head nodes;
	u64 value;
	int error;
};

/**
 * struct ws_par_range - a range task: a part of the loop
 * @task: the task, in the loop's group
 * @loop: the loop
 * @parent: the join node the task reports its value to; NULL for the
 *	root, which reports to @loop
 * @slot: which half of @parent it is: %WS_PAR_LEFT or %WS_PAR_RIGHT
 * @begin: first index of the part
 * @end: one past its last index
 *
 * @begin and @end stay as the task was set up: a join node reads them
 * as the bounds of its right half.  @parent and @slot change at every
 * split, when the task continues as the left half of a new node.
 */
struct ws_par_range {
	struct ws_task task;
	struct ws_par_loop *loop;
	struct ws_par_node *parent;
	unsigned int slot;
	unsigned long begin;
	unsigned long end;
};

/**
 * struct ws_par_node - where the two halves of a split meet
 * @right: the task of the right half
 * @link: link in the loop's list of nodes
 * @parent: the node the joined value goes to; NULL for the root
 * @slot: which half of @parent this node is
 * @pending: halves that have not reported yet
 * @value: the values of the left and right halves, for a reduction
 *
 * Allocated by the split; freed with the loop, after the root's wait.
 */
struct ws_par_node {
	struct ws_par_range right;
	struct llist_node link;
	struct ws_par_node *parent;
	unsigned int slot;
	atomic_t pending;
	u64 value[2];
};

/* Remember the first error of the loop; later ones are dropped. */
static void ws_par_fail(struct ws_par_loop *loop, int error)
{
	/*
	 * Fully ordered; pairs with the READ_ONCE() in ws_par_run(), which
	 * only uses the value to stop early, with the READ_ONCE() in
	 * ws_par_report() (a value that follows an error is incomplete),
	 * and with the plain read after the root's wait, ordered by the
	 * group's completion.
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

/*
 * The part that reported to half @slot of @node has the value @value:
 * store it, and if the other half is in too, join them and go on with
 * the node's own parent; the root's value goes to the loop.  A loop, not
 * recursion: one report may climb the whole depth of the tree.
 */
static void ws_par_report(struct ws_par_loop *loop, struct ws_par_node *node,
			  unsigned int slot, u64 value)
{
	while (node) {
		node->value[slot] = value;
		/*
		 * Fully ordered: our value and everything our half of the
		 * range wrote come before the count drops, and the half that
		 * comes last reads the other's value after its own drop.
		 * Pairs with this same decrement by the other half.
		 */
		if (!atomic_dec_and_test(&node->pending))
			return;
		/*
		 * Both halves are in.  After an error a half may have
		 * stopped early, so combine nothing: the result is dropped.
		 * Pairs with cmpxchg() in ws_par_fail(): a half that stopped
		 * early saw the error before its decrement above.
		 */
		if (loop->ops && !READ_ONCE(loop->error))
			value = loop->ops->combine(node->value[WS_PAR_LEFT],
						   node->value[WS_PAR_RIGHT],
						   node->right.begin,
						   node->right.end, loop->arg);
		slot = node->slot;
		node = node->parent;
	}
	/* Read after the root's wait, ordered by the group's completion. */
	loop->value = value;
}

static struct ws_task *ws_par_task(struct ws_task *task);

/*
 * The loop's group was cancelled before the task ran: its part is
 * missing.  It still reports, so that the counts of the tree finish.
 */
static void ws_par_cancel(struct ws_task *task)
{
	struct ws_par_range *r = container_of(task, struct ws_par_range, task);

	ws_par_fail(r->loop, -ECANCELED);
	ws_par_report(r->loop, r->parent, r->slot, 0);
}

static void ws_par_range_init(struct ws_par_range *r,
			      struct ws_par_loop *loop,
			      struct ws_par_node *parent, unsigned int slot,
			      unsigned long begin, unsigned long end)
{
	ws_task_init(&r->task, ws_par_task);
	ws_task_set_cancel(&r->task, ws_par_cancel);
	r->loop = loop;
	r->parent = parent;
	r->slot = slot;
	r->begin = begin;
	r->end = end;
}

/*
 * Split the part of @r that is left, at @mid before @end: spawn
 * [@mid, @end) as the right half of a new join node and make @r its left
 * half.  Return false, changing nothing, if no node could be allocated.
 */
static bool ws_par_split(struct ws_par_range *r, unsigned long mid,
			 unsigned long end)
{
	struct ws_par_loop *loop = r->loop;
	struct ws_par_node *node;

	/* Never wait for memory: without a node the task just goes on. */
	node = kmalloc(sizeof(*node), GFP_NOWAIT | __GFP_NOWARN);
	if (!node)
		return false;
	/*
	 * Fully ordered (cmpxchg), against the other tasks that add nodes;
	 * pairs with llist_del_all() in ws_par_start(), which the root's
	 * wait orders after every task of the loop anyway.
	 */
	llist_add(&node->link, &loop->nodes);
	node->parent = r->parent;
	node->slot = r->slot;
	/*
	 * Plain: the spawn below publishes the node to the right half (the
	 * release of the deque push or the fully ordered queue insertion,
	 * paired with the take of whoever runs it); the left half is us.
	 */
	atomic_set(&node->pending, 2);
	ws_par_range_init(&node->right, loop, node, WS_PAR_RIGHT, mid, end);
	r->parent = node;
	r->slot = WS_PAR_LEFT;
	ws_spawn(&loop->group, &node->right.task);
	return true;
}

/* @acc, valid if @have, followed by @v, the value of [@b, @e). */
static u64 ws_par_combine(const struct ws_par_loop *loop, bool have, u64 acc,
			  u64 v, unsigned long b, unsigned long e)
{
	return have ? loop->ops->combine(acc, v, b, e, loop->arg) : v;
}

/*
 * Run the range task @r: run its range from the left, one grain at a
 * time, splitting off the right half of what is left whenever the pool
 * asks for work, then report the value of the part it ran.  Never waits.
 */
static void ws_par_run(struct ws_par_range *r)
{
	struct ws_par_loop *loop = r->loop;
	unsigned long grain = loop->grain;
	unsigned long b = r->begin, e = r->end;
	bool have = false;
	u64 acc = 0;

	while (b < e) {
		unsigned long c;

		/* Pairs with cmpxchg() in ws_par_fail(); only a hint. */
		if (READ_ONCE(loop->error))
			break;
		if (e - b > grain && ws_should_split(loop->pool)) {
			unsigned long mid = ws_par_mid(b, e, grain);

			if (ws_par_split(r, mid, e)) {
				e = mid;
				continue;
			}
		}
		/* One grain at the left, then ask again. */
		c = e - b > grain ? b + grain : e;
		if (loop->body) {
			loop->body(b, c, loop->arg);
		} else {
			u64 v = loop->ops->body(b, c, loop->arg);

			acc = ws_par_combine(loop, have, acc, v, b, c);
			have = true;
		}
		b = c;
		cond_resched();
	}
	/*
	 * The value of what the task ran: everything from @r->begin to its
	 * last cut (all of it if it never split), unless an error stopped
	 * it early.  @r->parent is the node of that last cut, of which @r
	 * is now the left half.
	 */
	if (!have && loop->ops)
		acc = loop->ops->identity;
	ws_par_report(loop, r->parent, r->slot, acc);
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
	struct ws_par_node *node, *tmp;
	struct ws_par_range root;
	struct llist_node *list;
	int err;

	ws_group_init(&loop->group, loop->pool);
	init_llist_head(&loop->nodes);
	ws_par_range_init(&root, loop, NULL, WS_PAR_LEFT, begin, end);
	if (ws_in_pool(loop->pool))
		ws_par_run(&root);
	else
		ws_spawn(&loop->group, &root.task);
	/* Every task of the loop, wherever it was spawned, is in the group. */
	err = ws_group_wait(&loop->group);
	if (err)
		ws_par_fail(loop, err);

	/* No task of the loop runs any more: free the nodes. */
	list = llist_del_all(&loop->nodes);
	llist_for_each_entry_safe(node, tmp, list, link)
		kfree(node);

	/* Ordered after the tasks by the group's wait. */
	err = loop->error;
	if (!err && value)
		*value = loop->value;
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
 * A split allocates a small join node (GFP_NOWAIT); if that fails the
 * range just runs on serially.  The loop's tasks never wait for each
 * other, so its stack use does not grow with the size of the range.
 *
 * Called from a task of @pool, the loop runs on the calling worker, which
 * shares it with the others and takes part in the wait; called from
 * elsewhere, the caller waits until the loop is done.
 *
 * Context: process context, may sleep.
 * Return: 0 once every chunk has run, or the error the wait for the
 * loop's tasks reported (such as -ECANCELED); then some chunks may not
 * have run.
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
 * Return: 0 and the value in @result, or the error the wait for the
 * loop's tasks reported (such as -ECANCELED), leaving @result untouched.
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
