// SPDX-License-Identifier: GPL-2.0
/*
 * The /dev/wsched graph engine.
 *
 * A graph is one block: its header, its nodes and its edges, stored as
 * compressed rows of successors (each node's successors are a run of
 * @succs).  Each node counts its unfinished predecessors in @pending, set
 * when the graph is built; a node whose count is zero is ready.  A node
 * that finishes posts its completion, then decrements the counts of its
 * successors: the first that becomes ready runs next on the same thread
 * (bypass, returned from the node's task), the others are spawned where
 * idle workers can steal them.  Blocks come from a per-context cache and
 * go back to it where the graph completes, so a graph in a steady stream
 * allocates nothing.
 *
 * The graph's tasks form one ws_group whose done callback completes the
 * graph on the thread that finished its last node: it posts the graph's
 * completion and frees the block, with no work item.  The group counts
 * the graph's ready nodes from the start, so that it cannot complete
 * half-queued.
 *
 * A graph runs in the pool of the process that submits it (proc.c),
 * whose threads are the process's own (uworker.c), and the submitter
 * joins that pool to run its graphs itself when it waits for them: a
 * one-node graph runs in the submitter's context with no hand-off, no
 * wake-up and no context switch.  wsd_graph_launch() grows the pool when
 * a graph has more parallel work than the pool has threads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/overflow.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>

#include "wsched_internal.h"
#include "ws_op.h"
#include "wsd_cq.h"
#include "wsd_ctx.h"
#include "wsd_graph.h"

/* Blocks kept for reuse per context, and the largest block kept. */
#define WSD_CACHE_MAX		64
#define WSD_CACHE_MAX_BYTES	(64 * 1024)

/* Smallest room of a new block, so that small graphs share blocks. */
#define WSD_MIN_NODES		4
#define WSD_MIN_EDGES		8

static size_t wsd_block_size(u32 nodes, u32 edges)
{
	return size_add(struct_size_t(struct wsd_graph, nodes, nodes),
			array_size(edges, sizeof(u32)));
}

/* A block with room for @nr nodes and @edges edges: cached or new. */
static __always_inline struct wsd_graph *wsd_block_get(struct wsd_ctx *ctx, u32 nr, u32 edges)
{
	struct wsd_graph *graph = NULL;
	struct llist_node *node;
	u32 cap_nodes, cap_edges;

	lockdep_assert_held(&ctx->lock);
	if (ctx->nr_spares) {
		graph = ctx->spares[--ctx->nr_spares];
		if (graph->cap_nodes >= nr && graph->cap_edges >= edges)
			return graph;
		kvfree(graph);
		graph = NULL;
	}
	/* The only taker: the submitter, under ctx->lock. */
	node = llist_del_first(&ctx->cache);
	if (node) {
		atomic_dec(&ctx->nr_cached);
		graph = llist_entry(node, struct wsd_graph, cache_node);
		if (graph->cap_nodes >= nr && graph->cap_edges >= edges)
			return graph;
		kvfree(graph);
	}
	cap_nodes = max(nr, WSD_MIN_NODES);
	cap_edges = max(edges, WSD_MIN_EDGES);
	/* Round small blocks up so that they fit the next graph too. */
	if (wsd_block_size(cap_nodes, cap_edges) <= WSD_CACHE_MAX_BYTES / 2) {
		cap_nodes = roundup_pow_of_two(cap_nodes);
		cap_edges = roundup_pow_of_two(cap_edges);
	}
	graph = kvmalloc(wsd_block_size(cap_nodes, cap_edges),
			 GFP_KERNEL_ACCOUNT);
	if (!graph)
		return NULL;
	graph->cap_nodes = cap_nodes;
	graph->cap_edges = cap_edges;
	return graph;
}

/* Give a block back: to the cache while it is small and not full. */
static __always_inline void wsd_block_put(struct wsd_ctx *ctx,
					  struct wsd_graph *graph)
{
	if (wsd_block_size(graph->cap_nodes, graph->cap_edges) <=
	    WSD_CACHE_MAX_BYTES &&
	    atomic_inc_return(&ctx->nr_cached) <= WSD_CACHE_MAX) {
		llist_add(&graph->cache_node, &ctx->cache);
		return;
	}
	atomic_dec(&ctx->nr_cached);
	kvfree(graph);
}

/*
 * The @nr nodes of @graph (its @wsd_graph.nr, or a constant the caller
 * knows it equals) have finished: drop their operation references, so
 * that what outlives that point (held-back completions, a synchronous
 * waiter reading the results) needs nothing but the block.  Otherwise a
 * completion held back in a full CQ would keep a registered operation,
 * and the module that owns it, for as long as the file stays open:
 * rmmod fails and ws_op_unregister() waits.  Must come before the
 * graph's completion is posted (or its waiter woken), so that whoever
 * sees that the graph completed can remove the module.
 */
static __always_inline void wsd_graph_drop_ops(struct wsd_graph *graph,
					       u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++)
		wsd_op_drop(graph->nodes[i].op);
}

/*
 * wsd_graph_put() for a serial graph, by its submitter under ctx->lock.
 * While the call runs the file is open, so the graph need not count in
 * ctx->nr_graphs, unless it outlives the call: only a completion held
 * back in a full CQ takes another reference (wsd_post_locked(), from
 * wsd_serial_flush() on this thread), and then the graph is counted
 * before our reference goes, so that the count never drops below zero,
 * and lives on like any other.  Otherwise ours is the only reference,
 * and a small block goes to ctx->spares, for the next graphs, with no
 * atomic operation at all.  Its operations were dropped when it ran
 * (wsd_graph_run_serial()).
 */
static __always_inline void wsd_graph_put_serial(struct wsd_graph *graph)
{
	struct wsd_ctx *ctx = graph->ctx;

	lockdep_assert_held(&ctx->lock);
	if (refcount_read(&graph->refs) > 1) {
		atomic_inc(&ctx->nr_graphs);
		wsd_graph_put(graph);
		return;
	}
	/*
	 * A flusher that posted a held completion of ours and dropped its
	 * reference read the slot before that release: order our reuse of
	 * the block after it.
	 */
	smp_acquire__after_ctrl_dep();
	if (ctx->nr_spares < WSD_SERIAL_BATCH &&
	    wsd_block_size(graph->cap_nodes, graph->cap_edges) <=
	    WSD_CACHE_MAX_BYTES)
		ctx->spares[ctx->nr_spares++] = graph;
	else
		wsd_block_put(ctx, graph);
}

/**
 * wsd_graph_put - drop a reference to a graph
 * @graph: the graph
 *
 * The last one gives its block back; the graph's operations went when it
 * completed (wsd_graph_drop_ops()).  Must not be called under a spinlock
 * (the block may be vfree()d).
 */
void wsd_graph_put(struct wsd_graph *graph)
{
	struct wsd_ctx *ctx = graph->ctx;

	if (!refcount_dec_and_test(&graph->refs))
		return;
	wsd_block_put(ctx, graph);
	/*
	 * Our last access to the context.  Fully ordered: the block is
	 * back before the count can be seen at zero by wsd_ctx_destroy()
	 * (its wait_var_event() pairs with this wake_up_var(), which only
	 * hashes the address).
	 */
	if (atomic_dec_and_test(&ctx->nr_graphs))
		wake_up_var(&ctx->nr_graphs);
}

/*
 * Every node of @graph has finished: count it, drop its operations, post
 * its completion (or wake its synchronous waiter) and drop the running
 * reference.
 */
static __always_inline void wsd_graph_complete(struct wsd_graph *graph)
{
	struct wsd_ctx *ctx = graph->ctx;
	struct wsched_cqe *cqe = &graph->slot.cqe;
	u32 ran;

	/*
	 * The counters were last changed by node tasks that finished before
	 * the group's count reached zero (a fully ordered decrement that
	 * the done callback follows).
	 */
	/* Every node has run: none needs the submitter's credentials now. */
	put_cred(graph->cred);
	graph->cred = NULL;
	ran = atomic_read(&graph->ran);
	atomic64_add(ran, &ctx->nodes_run);
	atomic64_inc(&ctx->graphs_run);
	/*
	 * No node uses its operation any more: every node task returned
	 * before the group's fully ordered decrement that this callback
	 * follows.  wsd_op_put()'s own fully ordered decrement orders that
	 * before ws_op_unregister() sees the users gone.
	 */
	wsd_graph_drop_ops(graph, graph->nr);
	/*
	 * Before the completion is posted: whoever sees it may unregister
	 * the buffers at once.  Every node is done before the count drops;
	 * pairs with the acquire in wsd_unregister_buffers().
	 */
	smp_mb__before_atomic();
	atomic_dec(&ctx->nr_running);
	if (graph->sync) {
		/*
		 * Pairs with the acquire of the waiter: it sees every
		 * node's result.  Our running reference, dropped below,
		 * keeps the graph past the wake-up, also when a waiter that
		 * was killed has dropped its own already.
		 */
		smp_store_release(&graph->finished, true);
		wake_up_var(&graph->finished);
	} else {
		cqe->res = atomic_read(&graph->error);
		cqe->flags = WSCHED_CQE_GRAPH;
		cqe->value = ran;
		cqe->seq = graph->nr;
		/*
		 * The owner's reference keeps the block past our put below;
		 * @notify orders its reads of @slot after the writes above.
		 */
		if (graph->notify)
			graph->notify(graph);
		else
			wsd_post(ctx, &graph->slot);
		atomic_sub(graph->nr, &ctx->inflight);
	}
	wsd_graph_put(graph);
}

/*
 * Every node of @group's graph has finished.  Runs on the thread that
 * finished the last one (or on the submitter, if that was before it let
 * go of the group); wsched no longer touches the group.
 */
static void wsd_graph_done(struct ws_group *group)
{
	wsd_graph_complete(container_of(group, struct wsd_graph, group));
}

/*
 * Queue a ready node: a node that costs less than a wake-up stays on this
 * thread's deque (others may still steal it), any other wakes an idle
 * worker (ws_spawn()).
 */
static void wsd_node_spawn(struct wsd_node *node)
{
	struct ws_group *group = &node->graph->group;
	struct ws_worker *worker;

	if (node->cheap) {
		worker = ws_pool_current(group->pool);
		if (likely(worker)) {
			ws_spawn_local(worker, group, &node->task);
			return;
		}
	}
	ws_spawn(group, &node->task);
}

/*
 * @node has finished: pass its outcome to its successors.  Return the
 * first that became ready, to run next on this thread; spawn the others.
 */
static __always_inline struct ws_task *wsd_node_release(struct wsd_node *node)
{
	struct wsd_graph *graph = node->graph;
	const u32 *succ = graph->succs + node->succ;
	struct ws_task *next = NULL;
	u32 i;

	for (i = 0; i < node->nr_succ; i++) {
		struct wsd_node *s = &graph->nodes[succ[i]];

		/* Read by @s once it is ready; ordered by the decrement. */
		if (node->blocks)
			WRITE_ONCE(s->dep_failed, true);
		/*
		 * Fully ordered: our completion, our op's writes and the
		 * store above happen before @s runs, wherever it runs.
		 */
		if (!atomic_dec_and_test(&s->pending))
			continue;
		if (!next)
			next = &s->task;
		else
			wsd_node_spawn(s);
	}
	/*
	 * A thread with a signal pending is a submitter that must get back
	 * to user space: queue the successor for the pool's workers rather
	 * than run it here (pool workers take no signals).
	 */
	if (next && unlikely(signal_pending(current))) {
		ws_spawn(&graph->group, next);
		next = NULL;
	}
	return next;
}

/*
 * Count one event of a graph: an atomic increment when nodes of the graph
 * run on several threads, a plain one for a serial graph, which only its
 * submitter touches (the counter is still read atomically).
 */
static __always_inline u32 wsd_graph_count(atomic_t *v, bool serial)
{
	u32 n;

	if (!serial)
		return atomic_inc_return(v);
	n = atomic_read(v) + 1;
	atomic_set(v, n);
	return n;
}

/*
 * Run @node's operation, or cancel it when a predecessor blocks or the
 * graph was given up; post its completion, unless @serial: then
 * wsd_serial_flush() posts it.
 */
static __always_inline void wsd_node_exec(struct wsd_node *node, bool serial)
{
	struct wsd_graph *graph = node->graph;
	struct wsd_ctx *ctx = graph->ctx;
	struct wsched_cqe *cqe = &node->slot.cqe;
	u64 value = 0;
	int ret;

	/*
	 * Written by a predecessor before its fully ordered decrement, or
	 * earlier on this thread (serial).
	 */
	if (unlikely(READ_ONCE(node->dep_failed))) {
		cqe->res = -ECANCELED;
		cqe->flags = WSCHED_RES_DEP_FAILED;
		node->blocks = true;
	/* Set by a waiter that gave up, or by release; a hint either way. */
	} else if (unlikely(READ_ONCE(graph->aborted) ||
			    READ_ONCE(ctx->closing))) {
		cqe->res = -ECANCELED;
		cqe->flags = WSCHED_RES_ABORTED;
		node->blocks = true;
	} else {
		ret = wsd_op_run(node->op, &node->args, &value);
		if (WARN_ON_ONCE(ret > 0 || ret < -MAX_ERRNO))
			ret = -EIO;
		cqe->res = ret;
		cqe->flags = WSCHED_RES_RAN;
		cqe->value = value;
		if (ret < 0) {
			/* Any order among failing nodes: the first one wins. */
			if (serial) {
				if (!atomic_read(&graph->error))
					atomic_set(&graph->error, ret);
			} else {
				atomic_cmpxchg(&graph->error, 0, ret);
			}
			node->blocks = !(node->flags & WSCHED_NODE_SOFT_FAIL);
		}
		wsd_graph_count(&graph->ran, serial);
	}
	/* Fully ordered when not serial, but only the value matters. */
	cqe->seq = wsd_graph_count(&graph->seq, serial);
	if (graph->sync || (node->flags & WSCHED_SQE_NO_CQE))
		return;
	if (serial)
		graph->node_cqes = true;
	else
		wsd_post(ctx, &node->slot);
}

/* The task of a node: its predecessors have all finished. */
static struct ws_task *wsd_node_run(struct ws_task *task)
{
	struct wsd_node *node = container_of(task, struct wsd_node, task);
	const struct cred *cred = node->graph->cred, *saved = NULL;

	/*
	 * The op runs with its submitter's credentials, whatever thread
	 * runs it: a kthread worker has kthreadd's (root's), and a thread of
	 * the process may have others since (setuid() in another thread).
	 */
	if (unlikely(cred != current_cred()))
		saved = override_creds(cred);
	wsd_node_exec(node, false);
	if (unlikely(saved))
		revert_creds(saved);
	return wsd_node_release(node);
}

/**
 * wsd_serial_flush - post the completions of serial graphs that ran
 * @ctx: the context
 * @serial: the graphs; empty on return
 *
 * Counts them, posts their completions (each graph's nodes in the order
 * they ran, then the graph's own) under one acquisition of the completion
 * lock, and gives their blocks back.  Under ctx->lock; the caller wakes
 * waiters (wsd_wake()) after it.
 *
 * Return: true if anything was posted.
 */
bool wsd_serial_flush(struct wsd_ctx *ctx, struct wsd_serial *serial)
{
	u32 i, j;

	lockdep_assert_held(&ctx->lock);
	if (!serial->nr)
		return false;
	/* Counted before the completions are seen, as wsd_graph_complete(). */
	atomic64_add(serial->nodes_run, &ctx->nodes_run);
	atomic64_add(serial->nr, &ctx->graphs_run);
	spin_lock(&ctx->cq_lock);
	for (i = 0; i < serial->nr; i++) {
		struct wsd_graph *graph = serial->graphs[i];

		for (j = 0; graph->node_cqes && j < graph->nr; j++)
			if (!(graph->nodes[j].flags & WSCHED_SQE_NO_CQE))
				wsd_post_locked(ctx, &graph->nodes[j].slot);
		wsd_post_locked(ctx, &graph->slot);
	}
	spin_unlock(&ctx->cq_lock);
	for (i = 0; i < serial->nr; i++)
		wsd_graph_put_serial(serial->graphs[i]);
	serial->nr = 0;
	serial->nodes_run = 0;
	return true;
}

/*
 * Run a serial graph (@wsd_graph.serial) on the submitting thread, under
 * ctx->lock.  Every node of it costs less than a wake-up (wsd_op_cheap()),
 * so no worker would be woken to share it: it runs here and now, node
 * after node in submission order (a node's predecessors have lower
 * numbers, so that order is topological), with no task, no group and no
 * pool, as io_uring completes a NOP inline in io_uring_enter().  Its
 * completions wait in @serial for wsd_serial_flush().
 */
static __always_inline void wsd_graph_run_serial(struct wsd_graph *graph,
						 u32 nr,
						 struct wsd_serial *serial)
{
	struct wsched_cqe *cqe = &graph->slot.cqe;
	u32 i, j;

	graph->node_cqes = false;
	for (i = 0; i < nr; i++) {
		struct wsd_node *node = &graph->nodes[i];

		/* A graph may have a million nodes: let others run meanwhile. */
		if ((i & 1023) == 1023)
			cond_resched();
		wsd_node_exec(node, true);
		if (!node->blocks)
			continue;
		for (j = 0; j < node->nr_succ; j++) {
			u32 s = graph->succs[node->succ + j];

			/* Read by that node, later on this thread. */
			WRITE_ONCE(graph->nodes[s].dep_failed, true);
		}
	}
	/* Every node ran on this thread: the operations are done with. */
	wsd_graph_drop_ops(graph, nr);
	/* Plain counters of this thread (wsd_graph_count()). */
	cqe->res = atomic_read(&graph->error);
	cqe->flags = WSCHED_CQE_GRAPH;
	cqe->value = atomic_read(&graph->ran);
	cqe->seq = nr;
	serial->nodes_run += cqe->value;
	serial->graphs[serial->nr++] = graph;
	if (serial->nr == WSD_SERIAL_BATCH)
		wsd_serial_flush(graph->ctx, serial);
}

/*
 * wsd_graph_build(), inline in wsd_graph_start().  @nr is @build->nr,
 * passed apart so that wsd_graph_start() can make it a constant 1 for the
 * one-node graphs that most ENTER calls carry: the loops then fold away.
 * The fields a serial graph never reads (its nodes' tasks, its group,
 * notify, owner, width) are set only for a graph that goes to the pool.
 */
static __always_inline struct wsd_graph *
__wsd_graph_build(struct wsd_ctx *ctx, const struct wsd_build *build,
		  u32 nr, u64 user_data, bool sync,
		  void (*notify)(struct wsd_graph *graph), void *owner)
{
	struct ws_pool *pool = ctx->pool;
	/* A node's predecessors come before it (wsd_build_add()). */
	u32 edges = nr == 1 ? 0 : build->nr_preds, i, j, at, roots = 0;
	u32 heavy_roots = 0, most_succ = 0;
	struct wsd_graph *graph;
	bool cheap = true;

	graph = wsd_block_get(ctx, nr, edges);
	if (!graph)
		return NULL;
	graph->ctx = ctx;
	graph->nr = nr;
	atomic_set(&graph->seq, 0);
	atomic_set(&graph->ran, 0);
	atomic_set(&graph->error, 0);
	refcount_set(&graph->refs, sync || notify ? 2 : 1);
	graph->sync = sync;
	graph->aborted = false;
	graph->cred = NULL;
	graph->slot.graph = graph;
	graph->slot.cqe = (struct wsched_cqe){ .user_data = user_data };
	graph->succs = (u32 *)&graph->nodes[graph->cap_nodes];

	/* Count each node's successors, then lay the rows out. */
	for (i = 0; i < nr; i++) {
		const struct wsd_stage *st = &build->nodes[i];
		struct wsd_node *node = &graph->nodes[i];

		node->graph = graph;
		node->op = st->op;
		node->args = st->args;
		node->args.pool = pool;
		node->flags = st->flags;
		atomic_set(&node->pending, st->nr_preds);
		node->succ = 0;
		node->nr_succ = 0;
		node->root = !st->nr_preds;
		roots += node->root;
		node->cheap = wsd_op_cheap(st->op, &st->args);
		cheap &= node->cheap;
		/* Saturates at the CPUs: the most threads a pool has. */
		if (node->root && !node->cheap)
			heavy_roots = min(heavy_roots +
					  wsd_op_width(st->op, &st->args),
					  nr_cpu_ids);
		node->blocks = false;
		node->dep_failed = false;
		node->slot.graph = graph;
		node->slot.cqe = (struct wsched_cqe){ .user_data = st->user_data };
	}
	for (i = 0; i < edges; i++)
		graph->nodes[build->preds[i]].nr_succ++;
	for (i = 0, at = 0; edges && i < nr; i++) {
		graph->nodes[i].succ = at;
		at += graph->nodes[i].nr_succ;
		most_succ = max(most_succ, graph->nodes[i].nr_succ);
		graph->nodes[i].nr_succ = 0;
	}
	for (i = 0; edges && i < nr; i++) {
		const struct wsd_stage *st = &build->nodes[i];

		for (j = 0; j < st->nr_preds; j++) {
			struct wsd_node *pred =
				&graph->nodes[build->preds[st->preds + j]];

			graph->succs[pred->succ + pred->nr_succ++] = i;
		}
	}
	/*
	 * See wsd_graph_run_serial(); it does not count what follows
	 * (wsd_graph_put_serial() says why not nr_graphs).
	 */
	graph->serial = !sync && !notify && cheap;
	if (graph->serial)
		return graph;
	graph->cheap = cheap;
	graph->notify = notify;
	graph->owner = owner;
	graph->finished = false;
	graph->next = NULL;
	ws_group_init_done(&graph->group, pool, wsd_graph_done);
	for (i = 0; i < nr; i++)
		ws_task_init(&graph->nodes[i].task, wsd_node_run);
	graph->width = max3(heavy_roots, most_succ, 1U);
	graph->cred = get_current_cred();
	atomic_inc(&ctx->nr_graphs);
	/*
	 * The ready nodes are counted in the group now, before any is
	 * queued: the group cannot empty while wsd_graph_launch() queues
	 * them one by one.  Unordered: queueing a node publishes it.
	 */
	atomic_set(&graph->group.pending, roots);
	atomic_inc(&ctx->nr_running);
	if (!sync)
		atomic_add(nr, &ctx->inflight);
	return graph;
}

/**
 * wsd_graph_build - turn a staged graph into a graph block
 * @ctx: the context
 * @build: the staged nodes, only read: on success their operation
 *	references belong to the graph, and the caller forgets them
 *	(wsd_build_consumed()); on failure they stay the build's
 * @user_data: the graph completion's user_data
 * @sync: a WSCHED_IOC_SUBMIT_GRAPH graph (no completions posted; the
 *	caller holds a second reference and reads the results)
 *
 * Nothing runs yet: wsd_graph_launch() queues the ready nodes, which the
 * graph's group already counts, or, when every node is cheap and the
 * graph is not @sync, wsd_graph_start() runs it (@wsd_graph.serial).
 * Called under ctx->lock.
 *
 * Return: the graph, or NULL when out of memory.
 */
struct wsd_graph *wsd_graph_build(struct wsd_ctx *ctx,
				  const struct wsd_build *build, u64 user_data,
				  bool sync)
{
	return __wsd_graph_build(ctx, build, build->nr, user_data, sync,
				 NULL, NULL);
}

/**
 * wsd_graph_build_notify - build a graph whose owner is told it completed
 * @ctx: the context
 * @build: the staged nodes, taken over on success as by wsd_graph_build()
 * @notify: called where the graph completes (any thread, in task context,
 *	possibly under the caller's wsd_graph_launch()) in place of posting
 *	the graph's completion, which is in @wsd_graph.slot.cqe; nodes post
 *	theirs as in a ring graph
 * @owner: stored in @wsd_graph.owner for @notify
 *
 * Never a serial graph: it runs through wsd_graph_launch().  It returns
 * with two references, the running one and the owner's, which the owner
 * drops with wsd_graph_put() once it has read the result.  Under ctx->lock.
 *
 * Return: the graph, or NULL when out of memory.
 */
struct wsd_graph *wsd_graph_build_notify(struct wsd_ctx *ctx,
					 const struct wsd_build *build,
					 void (*notify)(struct wsd_graph *graph),
					 void *owner)
{
	return __wsd_graph_build(ctx, build, build->nr, 0, false, notify,
				 owner);
}

/* wsd_graph_start() for a graph of @nr nodes (build->nr). */
static __always_inline int
__wsd_graph_start(struct wsd_ctx *ctx, const struct wsd_build *build, u32 nr,
		  u64 user_data, struct wsd_serial *serial,
		  struct wsd_graph **graphs)
{
	struct wsd_graph *graph;

	graph = __wsd_graph_build(ctx, build, nr, user_data, false, NULL,
				  NULL);
	if (!graph)
		return -ENOMEM;
	if (graph->serial) {
		wsd_graph_run_serial(graph, nr, serial);
		return 0;
	}
	graph->next = *graphs;
	*graphs = graph;
	return 0;
}

/**
 * wsd_graph_start - build a ring graph and start it
 * @ctx: the context
 * @build: the staged nodes, taken over on success as by wsd_graph_build()
 * @user_data: the graph completion's user_data
 * @serial: where a serial graph's completions wait for wsd_serial_flush()
 * @graphs: where a graph for the pool is linked (newest first), for
 *	wsd_graph_launch()
 *
 * A graph of cheap nodes runs now (@wsd_graph.serial); any other is built
 * and left for wsd_graph_launch().  Under ctx->lock.
 *
 * Return: 0, or -ENOMEM when the block cannot be had (nothing ran).
 */
int wsd_graph_start(struct wsd_ctx *ctx, const struct wsd_build *build,
		    u64 user_data, struct wsd_serial *serial,
		    struct wsd_graph **graphs)
{
	/* Most ENTER calls carry one-node graphs: fold their loops away. */
	if (likely(build->nr == 1))
		return __wsd_graph_start(ctx, build, 1, user_data, serial,
					 graphs);
	return __wsd_graph_start(ctx, build, build->nr, user_data, serial,
				 graphs);
}

/**
 * struct wsd_launch - what wsd_graph_launch() hands to the pool
 * @graphs: graphs built and held, linked by @wsd_graph.next
 * @wait: run tasks until @cond holds
 * @cond: the wait's condition
 * @arg: its argument
 * @pool: the pool (wsd_help() only)
 */
struct wsd_launch {
	struct ws_pool *pool;
	struct wsd_graph *graphs;
	bool wait;
	bool (*cond)(void *arg);
	void *arg;
};

/* Runs as a thread of the context's pool (joined, when a slot is free). */
static int wsd_launch_in_pool(void *arg)
{
	struct wsd_launch *l = arg;
	struct wsd_graph *graph = l->graphs, *next;
	struct ws_pool *pool = graph->group.pool;
	struct ws_worker *worker = ws_pool_current(pool);
	u32 i, ready = 0, heavy = 0;

	/*
	 * The list is newest first and each graph's ready nodes go on in
	 * reverse: the LIFO deque hands out the oldest graph's first node
	 * first.
	 */
	for (; graph; graph = next) {
		next = graph->next;
		for (i = graph->nr; i-- > 0;) {
			struct wsd_node *node = &graph->nodes[i];

			/* Not @pending: thieves may be running the graph. */
			if (!node->root)
				continue;
			ready++;
			heavy += !node->cheap;
			/* Counted in the group by wsd_graph_build(). */
			if (worker) {
				ws_push_counted(worker, &graph->group,
						&node->task);
			} else {
				node->task.group = &graph->group;
				ws_inject(pool, &node->task);
			}
		}
	}
	/* Leaving the pool hands what is left to it, with one wake-up. */
	if (!worker || !l->wait)
		return 0;
	/*
	 * Parallel work worth a wake-up: one idle worker steals, and wakes
	 * the next.  Nodes cheaper than the wake-up run here.
	 */
	if (ready > 1 && heavy)
		ws_wake_idle(pool);
	ws_help_until(worker, l->cond, l->arg);
	return 0;
}

/**
 * wsd_graph_launch - start graphs, and run them while waiting
 * @graphs: graphs from wsd_graph_build(), linked newest first by
 *	@wsd_graph.next; all of one context
 * @wait: the caller waits: it runs ready nodes itself, LIFO, until @cond
 * @cond: the wait's condition (cheap; called between tasks)
 * @arg: its argument
 *
 * The caller joins the context's pool and spawns every ready node onto
 * its own deque.  Without @wait it leaves at once, handing the nodes to
 * the pool's workers with one wake-up.  With @wait it runs them, bypassing
 * to successors, until @cond holds or nothing is left to run here (the
 * pool's workers finish the rest); an idle worker is woken only when
 * more than one node is ready and one of them is not cheap
 * (wsd_op_cheap()).
 */
void wsd_graph_launch(struct wsd_graph *graphs, bool wait,
		      bool (*cond)(void *arg), void *arg)
{
	struct wsd_launch l = {
		.graphs = graphs, .wait = wait, .cond = cond, .arg = arg,
	};
	struct ws_pool *pool = graphs->group.pool;
	u32 cap = READ_ONCE(graphs->ctx->max_workers);
	struct wsd_graph *graph;
	u32 want = 0;

	/*
	 * One more thread per node that may run beside another, the
	 * submitter being one when it waits; at most the file's cap
	 * (ws_user_grow() also stops at the CPUs the process may use).
	 */
	for (graph = graphs; graph; graph = graph->next)
		want += graph->width;
	want -= wait;
	if (cap)
		want = min(want, cap);
	ws_user_grow(pool, want);
	ws_pool_execute(pool, wsd_launch_in_pool, &l);
	/*
	 * The submitter left work in the pool and the pool has no thread
	 * (none could be made, or the cap is 0 workers of its own): one
	 * must run it.  If none can be made, the submitter's next wait
	 * runs it (wsd_getevents()).
	 */
	if (!READ_ONCE(pool->nr_threads) && ws_pool_has_work(pool))
		ws_user_grow(pool, 1);
}

static int wsd_help_in_pool(void *arg)
{
	struct wsd_launch *l = arg;
	struct ws_worker *worker = ws_pool_current(l->pool);

	if (!worker)
		return 0;
	if (l->wait)
		ws_help_until(worker, l->cond, l->arg);
	else
		ws_help_drain(worker, l->cond, l->arg);
	return 0;
}

/**
 * wsd_help - run tasks of a pool until a condition holds
 * @pool: the pool, the caller's process's
 * @cond: the condition (cheap; called between tasks)
 * @arg: its argument
 * @drain: go on while a signal is pending (for work that must end now,
 *	and is cancelled: a graph given up, a file released)
 *
 * Joins @pool and runs its tasks until @cond(@arg) holds or none turns up
 * for a while (its threads run the rest, if it has any).
 */
void wsd_help(struct ws_pool *pool, bool (*cond)(void *arg), void *arg,
	      bool drain)
{
	struct wsd_launch l = {
		.pool = pool, .wait = !drain, .cond = cond, .arg = arg,
	};

	ws_pool_execute(pool, wsd_help_in_pool, &l);
}

/**
 * wsd_graph_cache_free - free the blocks a released context kept for reuse
 * @ctx: the context; no graph of it is left
 */
void wsd_graph_cache_free(struct wsd_ctx *ctx)
{
	struct llist_node *node, *tmp;

	node = llist_del_all(&ctx->cache);
	llist_for_each_safe(node, tmp, node)
		kvfree(llist_entry(node, struct wsd_graph, cache_node));
	while (ctx->nr_spares)
		kvfree(ctx->spares[--ctx->nr_spares]);
}
