// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched rings: graphs submitted through a shared submission ring,
 * completions posted to a shared completion ring, data in registered
 * (pinned) buffers.
 *
 * The rings are pages this module allocates (charged to the opener's
 * memory cgroup), mapped into user space with vm_map_pages_zero() and
 * into the kernel with vmap().  User space may write anything there at
 * any time, so the kernel copies each SQ entry once and checks only the
 * copy, keeps its own SQ head and CQ tail, and reads the SQ tail and CQ
 * head once per use.
 *
 * Entries are consumed into the graph being built (ctx->build) until an
 * entry marked WSCHED_SQE_GRAPH_END; then the graph becomes a group of
 * tasks, one per node, linked with ws_task_precede(), all behind a gate
 * task spawned last so that nothing finishes before everything is
 * spawned.  The group's done callback posts the graph's completion and
 * hands the graph to ctx->reap_work to be freed.  Completions that find
 * the CQ full are held back on ctx->held, in order, and posted once the
 * application makes room; the graph stays allocated while one of its
 * completions is held back.
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/compiler.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>
#include <linux/nospec.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/refcount.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include <linux/wait_bit.h>

#include "ws_dev.h"
#include "ws_ring.h"

/* Layout of a ring's mapping: head and tail on their own cache lines. */
#define WSD_OFF_HEAD		0
#define WSD_OFF_TAIL		64
#define WSD_OFF_MASK		128
#define WSD_OFF_ENTRIES_NR	132
#define WSD_OFF_OVERFLOW	136
#define WSD_OFF_ARRAY		256

/**
 * struct wsd_slot - a completion, with what it takes to hold it back
 * @link: in ctx->held while held back
 * @graph: the graph it belongs to
 * @cqe: the completion
 */
struct wsd_slot {
	struct list_head link;
	struct wsd_rgraph *graph;
	struct wsched_cqe cqe;
};

/**
 * struct wsd_rnode - a node submitted through the SQ
 * @task: the task that runs it
 * @graph: its graph, once started
 * @op: its operation (a reference from wsd_op_get())
 * @args: the operation's arguments, data ranges resolved to kernel addresses
 * @flags: WSCHED_SQE_* flags of its entry
 * @nr_preds: number of predecessors
 * @preds: index of its first predecessor in the graph's pred array
 * @blocks: it failed or did not run, and its dependents must not run
 * @slot: its completion
 *
 * @blocks and @slot are written by the node's task before it finishes
 * and read by its successors, which start after that (the fully ordered
 * dependency count decrement in wsched's core orders them).
 */
struct wsd_rnode {
	struct ws_task task;
	struct wsd_rgraph *graph;
	const struct ws_op *op;
	struct ws_op_args args;
	u32 flags;
	u32 nr_preds;
	u32 preds;
	bool blocks;
	struct wsd_slot slot;
};

/**
 * struct wsd_rgraph - a graph started from the SQ
 * @group: the group of its tasks; its done callback is wsd_graph_done()
 * @gate: precedes every node without predecessors; spawned last
 * @ctx: the context it runs for
 * @nodes: the nodes
 * @nr: number of @nodes
 * @preds: predecessor numbers, node after node
 * @seq: completions handed out
 * @ran: nodes whose op ran
 * @error: error of the first node that failed, or 0
 * @refs: one while running, plus one per held-back completion
 * @silent: refused after linking failed: post nothing
 * @link: in ctx->graphs
 * @reap_node: in ctx->reap
 * @slot: the graph's own completion
 */
struct wsd_rgraph {
	struct ws_group group;
	struct ws_task gate;
	struct wsd_ctx *ctx;
	struct wsd_rnode *nodes;
	u32 nr;
	u32 *preds;
	atomic_t seq;
	atomic_t ran;
	atomic_t error;
	refcount_t refs;
	bool silent;
	struct list_head link;
	struct llist_node reap_node;
	struct wsd_slot slot;
};

/* ---- completion ring -------------------------------------------------- */

/* Room in the CQ; under ctx->cq_lock. */
static bool wsd_cq_room(struct wsd_ctx *ctx)
{
	lockdep_assert_held(&ctx->cq_lock);
	/*
	 * Pairs with the application's release store of the head after it
	 * read the entries below it: our writes to those slots come after.
	 */
	u32 head = smp_load_acquire(ctx->cq_head);

	return ctx->cq_ktail - head < ctx->cq_entries;
}

/* Write one completion to the CQ and publish it; under ctx->cq_lock. */
static void wsd_cq_write(struct wsd_ctx *ctx, const struct wsched_cqe *cqe)
{
	lockdep_assert_held(&ctx->cq_lock);
	ctx->cqes[ctx->cq_ktail & (ctx->cq_entries - 1)] = *cqe;
	/* Also read without the lock by wsd_cq_events_hint(). */
	WRITE_ONCE(ctx->cq_ktail, ctx->cq_ktail + 1);
	/*
	 * Pairs with the application's acquire load of the tail: it sees
	 * the entry written above once it sees the new tail.
	 */
	smp_store_release(ctx->cq_tail, ctx->cq_ktail);
}

static void wsd_graph_put(struct wsd_rgraph *graph);

/*
 * Move held-back completions into the CQ while there is room; under
 * ctx->cq_lock.  Return whether any moved.
 */
static bool wsd_flush_held(struct wsd_ctx *ctx)
{
	struct wsd_slot *slot, *tmp;
	bool moved = false;

	list_for_each_entry_safe(slot, tmp, &ctx->held, link) {
		if (!wsd_cq_room(ctx))
			break;
		wsd_cq_write(ctx, &slot->cqe);
		list_del(&slot->link);
		WRITE_ONCE(ctx->nr_held, ctx->nr_held - 1);
		wsd_graph_put(slot->graph);
		moved = true;
	}
	return moved;
}

static void wsd_wake(struct wsd_ctx *ctx)
{
	/* wq_has_sleeper()'s barrier pairs with the one in prepare_to_wait. */
	if (wq_has_sleeper(&ctx->cq_wait))
		wake_up_all(&ctx->cq_wait);
}

/*
 * Post a completion, or hold it back behind earlier held-back ones when
 * the CQ is full.  Called by node tasks and the group's done callback:
 * must not sleep.
 */
static void wsd_post(struct wsd_ctx *ctx, struct wsd_slot *slot)
{
	spin_lock(&ctx->cq_lock);
	if (list_empty(&ctx->held) && wsd_cq_room(ctx)) {
		wsd_cq_write(ctx, &slot->cqe);
	} else {
		refcount_inc(&slot->graph->refs);
		list_add_tail(&slot->link, &ctx->held);
		WRITE_ONCE(ctx->nr_held, ctx->nr_held + 1);
		ctx->overflow_total++;
		/* Read by the application at any time; a single aligned store. */
		WRITE_ONCE(*ctx->cq_overflow, ctx->overflow_total);
	}
	spin_unlock(&ctx->cq_lock);
	wsd_wake(ctx);
}

/* Completions ready for the application, held-back ones included. */
static u32 wsd_cq_events(struct wsd_ctx *ctx)
{
	u32 n;

	spin_lock(&ctx->cq_lock);
	wsd_flush_held(ctx);
	/* As in wsd_cq_room(). */
	n = ctx->cq_ktail - smp_load_acquire(ctx->cq_head);
	/* A head moved past the tail is the application's bug: say "many". */
	if (n > ctx->cq_entries)
		n = ctx->cq_entries;
	n += ctx->nr_held;
	spin_unlock(&ctx->cq_lock);
	return n;
}

/*
 * Completions ready, without the lock and without posting held-back ones:
 * only a hint, for deciding whom to wake.  The loads pair with the
 * WRITE_ONCE() stores under ctx->cq_lock and the application's store of
 * the head; a woken waiter rechecks with wsd_cq_events().
 */
static u32 wsd_cq_events_hint(struct wsd_ctx *ctx)
{
	u32 n = READ_ONCE(ctx->cq_ktail) - READ_ONCE(*ctx->cq_head);

	return min(n, ctx->cq_entries) + READ_ONCE(ctx->nr_held);
}

/**
 * wsd_poll_events - poll(2) events of a context
 * @ctx: the context
 *
 * Return: EPOLLIN | EPOLLRDNORM when completions are ready (or held back).
 */
__poll_t wsd_poll_events(struct wsd_ctx *ctx)
{
	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return 0;
	return wsd_cq_events(ctx) ? EPOLLIN | EPOLLRDNORM : 0;
}

/* ---- graphs ----------------------------------------------------------- */

static void wsd_graph_free(struct wsd_rgraph *graph)
{
	u32 i;

	for (i = 0; i < graph->nr; i++)
		wsd_op_put(graph->nodes[i].op);
	kvfree(graph->preds);
	kvfree(graph->nodes);
	kfree(graph);
}

static void wsd_reap_work(struct work_struct *work)
{
	struct wsd_ctx *ctx = container_of(work, struct wsd_ctx, reap_work);
	struct wsd_rgraph *graph, *tmp;
	struct llist_node *list;

	list = llist_del_all(&ctx->reap);
	llist_for_each_entry_safe(graph, tmp, list, reap_node) {
		spin_lock(&ctx->graphs_lock);
		list_del(&graph->link);
		spin_unlock(&ctx->graphs_lock);
		wsd_graph_free(graph);
		/*
		 * Fully ordered: the graph is freed before the count can be
		 * seen at zero by wsd_ring_ctx_release() (its wait_var_event
		 * pairs with this wake_up_var); it then flushes this work.
		 */
		if (atomic_dec_and_test(&ctx->nr_graphs))
			wake_up_var(&ctx->nr_graphs);
	}
}

/* Drop a reference; the last one hands the graph to the reap work. */
static void wsd_graph_put(struct wsd_rgraph *graph)
{
	struct wsd_ctx *ctx = graph->ctx;

	if (refcount_dec_and_test(&graph->refs)) {
		llist_add(&graph->reap_node, &ctx->reap);
		queue_work(system_wq, &ctx->reap_work);
	}
}

/*
 * The group of a graph emptied: every node has posted its completion.
 * Runs on the thread that finished the last task; must not sleep.
 */
static void wsd_graph_done(struct ws_group *group)
{
	struct wsd_rgraph *graph = container_of(group, struct wsd_rgraph, group);
	struct wsd_ctx *ctx = graph->ctx;
	struct wsched_cqe *cqe = &graph->slot.cqe;

	if (!graph->silent) {
		/*
		 * The counters were last changed by node tasks that finished
		 * before the group's count reached zero (a fully ordered
		 * decrement that this callback follows).
		 */
		cqe->res = atomic_read(&graph->error);
		cqe->flags = WSCHED_CQE_GRAPH;
		cqe->value = atomic_read(&graph->ran);
		cqe->seq = graph->nr;
		wsd_post(ctx, &graph->slot);
		atomic64_inc(&ctx->graphs_run);
	}
	atomic_sub(graph->nr, &ctx->inflight);
	/*
	 * Fully ordered: our completions are posted before the count can be
	 * seen at zero by wsd_ring_ctx_release() or an unregister.
	 */
	if (atomic_dec_and_test(&ctx->nr_running))
		wake_up_var(&ctx->nr_running);
	wsd_graph_put(graph);
}

/* Record a node's outcome and post its completion. */
static void wsd_node_finish(struct wsd_rnode *node)
{
	struct wsd_rgraph *graph = node->graph;

	/* Fully ordered, but only the value matters, as in dev.c. */
	node->slot.cqe.seq = atomic_inc_return(&graph->seq);
	if (!(node->flags & WSCHED_SQE_NO_CQE) && !graph->silent)
		wsd_post(graph->ctx, &node->slot);
}

/*
 * The task of a node.  Its predecessors have finished: the last one's
 * fully ordered decrement of our dependency count (in wsched's core)
 * comes after their writes to @blocks.
 */
static struct ws_task *wsd_rnode_run(struct ws_task *task)
{
	struct wsd_rnode *node = container_of(task, struct wsd_rnode, task);
	struct wsd_rgraph *graph = node->graph;
	const u32 *preds = graph->preds + node->preds;
	struct wsched_cqe *cqe = &node->slot.cqe;
	u64 value = 0;
	int ret;
	u32 i;

	for (i = 0; i < node->nr_preds; i++) {
		if (graph->nodes[preds[i]].blocks) {
			cqe->res = -ECANCELED;
			cqe->flags = WSCHED_RES_DEP_FAILED;
			node->blocks = true;
			wsd_node_finish(node);
			return NULL;
		}
	}
	ret = node->op->run(&node->args, &value);
	if (WARN_ON_ONCE(ret > 0 || ret < -MAX_ERRNO))
		ret = -EIO;
	cqe->res = ret;
	cqe->flags = WSCHED_RES_RAN;
	cqe->value = value;
	if (ret < 0) {
		/* Any order among failing nodes will do: first one wins. */
		atomic_cmpxchg(&graph->error, 0, ret);
		node->blocks = !(node->flags & WSCHED_NODE_SOFT_FAIL);
	}
	atomic_inc(&graph->ran);
	atomic64_inc(&graph->ctx->nodes_run);
	wsd_node_finish(node);
	return NULL;
}

/* Runs instead of wsd_rnode_run() once the graph is cancelled. */
static void wsd_rnode_cancel(struct ws_task *task)
{
	struct wsd_rnode *node = container_of(task, struct wsd_rnode, task);

	node->slot.cqe.res = -ECANCELED;
	node->slot.cqe.flags = WSCHED_RES_ABORTED;
	node->blocks = true;
	wsd_node_finish(node);
}

static struct ws_task *wsd_gate_run(struct ws_task *task)
{
	return NULL;
}

/* ---- building graphs from SQ entries ------------------------------------ */

static void wsd_build_reset(struct wsd_build *build, bool free_nodes)
{
	u32 i;

	if (free_nodes) {
		for (i = 0; i < build->nr; i++)
			wsd_op_put(build->nodes[i].op);
		kvfree(build->nodes);
	}
	kvfree(build->preds);
	build->nodes = NULL;
	build->preds = NULL;
	build->nr = 0;
	build->cap = 0;
	build->nr_preds = 0;
	build->preds_cap = 0;
}

/* Make room for one more node and @nr_preds more predecessors. */
static int wsd_build_grow(struct wsd_build *build, u32 nr_preds)
{
	if (build->nr == build->cap) {
		u32 cap = max(16U, build->cap * 2);
		void *nodes;

		nodes = kvrealloc(build->nodes, build->cap * sizeof(*build->nodes),
				  cap * sizeof(*build->nodes), GFP_KERNEL_ACCOUNT);
		if (!nodes)
			return -ENOMEM;
		build->nodes = nodes;
		build->cap = cap;
	}
	if (build->nr_preds + nr_preds > build->preds_cap) {
		u32 cap = max3(64U, build->preds_cap * 2, build->nr_preds + nr_preds);
		void *preds;

		preds = kvrealloc(build->preds,
				  build->preds_cap * sizeof(*build->preds),
				  cap * sizeof(*build->preds), GFP_KERNEL_ACCOUNT);
		if (!preds)
			return -ENOMEM;
		build->preds = preds;
		build->preds_cap = cap;
	}
	return 0;
}

/* Resolve (buf, off, len) to a kernel address; under ctx->lock. */
static int wsd_range(struct wsd_ctx *ctx, u32 buf, u64 off, u64 len,
		     void **kaddr)
{
	u64 end;

	lockdep_assert_held(&ctx->lock);
	if (buf >= ctx->nr_bufs)
		return -EINVAL;
	buf = array_index_nospec(buf, ctx->nr_bufs);
	if (check_add_overflow(off, len, &end) || end > ctx->bufs[buf].len)
		return -ERANGE;
	*kaddr = ctx->bufs[buf].kaddr + off;
	return 0;
}

/*
 * Check one entry (the kernel's copy) and append it to the graph being
 * built.  Return 0 or the errno that refuses the graph.
 */
static int wsd_build_add(struct wsd_ctx *ctx, const struct wsched_sqe *sqe)
{
	struct wsd_build *build = &ctx->build;
	u32 idx = build->nr, i, *preds;
	struct ws_op_args args = {};
	const struct ws_op *op;
	struct wsd_rnode *node;
	void *data;
	int ret;

	if (sqe->flags & ~WSCHED_SQE_FLAGS)
		return -EINVAL;
	/* wsd_inflight_limit(): lockless, see there. */
	if (idx + 1 > min(wsd_nodes_limit(), wsd_inflight_limit()))
		return -E2BIG;
	if (sqe->nr_preds > WSCHED_MAX_PREDS)
		return -E2BIG;
	switch (sqe->nr_preds) {
	case 0:
		if (sqe->pred || sqe->preds_ptr)
			return -EINVAL;
		break;
	case 1:
		if (sqe->preds_ptr || sqe->pred >= idx)
			return -EINVAL;
		break;
	default:
		if (sqe->pred)
			return -EINVAL;
	}

	op = wsd_op_get(sqe->op);
	if (!op)
		return -EOPNOTSUPP;
	ret = -EINVAL;
	args.pool = NULL;
	if (op->flags & WS_OP_RANGE) {
		if (!sqe->len)
			goto out_put;
		args.len = sqe->len;
	} else if (sqe->buf || sqe->off || sqe->len) {
		goto out_put;
	}
	if (op->flags & WS_OP_RANGE2) {
		args.arg = 0;
	} else {
		if (sqe->buf2)
			goto out_put;
		args.arg = sqe->arg;
	}
	if (op->check) {
		ret = op->check(&args);
		if (ret)
			goto out_put;
	}
	if (op->flags & WS_OP_RANGE) {
		ret = wsd_range(ctx, sqe->buf, sqe->off, sqe->len, &data);
		if (ret)
			goto out_put;
		args.data = data;
	}
	if (op->flags & WS_OP_RANGE2) {
		ret = wsd_range(ctx, sqe->buf2, sqe->arg,
				op->range2_len ? op->range2_len : sqe->len, &data);
		if (ret)
			goto out_put;
		args.data2 = data;
	}

	ret = wsd_build_grow(build, sqe->nr_preds);
	if (ret)
		goto out_put;
	preds = build->preds + build->nr_preds;
	if (sqe->nr_preds == 1) {
		preds[0] = sqe->pred;
	} else if (sqe->nr_preds > 1) {
		if (copy_from_user(preds, u64_to_user_ptr(sqe->preds_ptr),
				   sqe->nr_preds * sizeof(*preds))) {
			ret = -EFAULT;
			goto out_put;
		}
		for (i = 0; i < sqe->nr_preds; i++) {
			/* Only lower numbers: acyclic by construction. */
			if (preds[i] >= idx) {
				ret = -EINVAL;
				goto out_put;
			}
		}
	}
	for (i = 0; i < sqe->nr_preds; i++)
		preds[i] = array_index_nospec(preds[i], idx);

	node = &build->nodes[idx];
	memset(node, 0, sizeof(*node));
	node->op = op;
	node->args = args;
	node->flags = sqe->flags;
	node->nr_preds = sqe->nr_preds;
	node->preds = build->nr_preds;
	node->slot.cqe.user_data = sqe->user_data;
	build->nr_preds += sqe->nr_preds;
	build->nr++;
	return 0;

out_put:
	wsd_op_put(op);
	return ret;
}

/*
 * Turn the built graph into tasks and start it; @user_data is the end
 * entry's.  The build is consumed whatever happens.  Return 0 or -ENOMEM
 * (then nothing ran and nothing is posted).
 */
static int wsd_graph_start(struct wsd_ctx *ctx, u64 user_data)
{
	struct wsd_build *build = &ctx->build;
	struct wsd_rgraph *graph;
	u32 i, j;
	int ret = 0;

	graph = kzalloc(sizeof(*graph), GFP_KERNEL_ACCOUNT);
	if (!graph) {
		wsd_build_reset(build, true);
		return -ENOMEM;
	}
	graph->ctx = ctx;
	graph->nodes = build->nodes;
	graph->nr = build->nr;
	graph->preds = build->preds;
	build->nodes = NULL;
	build->preds = NULL;
	wsd_build_reset(build, false);

	atomic_set(&graph->seq, 0);
	atomic_set(&graph->ran, 0);
	atomic_set(&graph->error, 0);
	refcount_set(&graph->refs, 1);
	graph->slot.graph = graph;
	graph->slot.cqe.user_data = user_data;
	ws_group_init(&graph->group, NULL);
	ws_group_set_done(&graph->group, wsd_graph_done);
	ws_task_init(&graph->gate, wsd_gate_run);

	for (i = 0; i < graph->nr; i++) {
		struct wsd_rnode *node = &graph->nodes[i];

		node->graph = graph;
		node->slot.graph = graph;
		ws_task_init(&node->task, wsd_rnode_run);
		ws_task_set_cancel(&node->task, wsd_rnode_cancel);
	}
	for (i = 0; i < graph->nr && !ret; i++) {
		struct wsd_rnode *node = &graph->nodes[i];
		const u32 *preds = graph->preds + node->preds;

		if (!node->nr_preds)
			ret = ws_task_precede(&graph->gate, &node->task,
					      GFP_KERNEL_ACCOUNT);
		for (j = 0; j < node->nr_preds && !ret; j++)
			ret = ws_task_precede(&graph->nodes[preds[j]].task,
					      &node->task, GFP_KERNEL_ACCOUNT);
	}
	if (ret) {
		/*
		 * Out of memory: run every task's cancel hook only (that frees
		 * the edges already linked) and post nothing.
		 */
		graph->silent = true;
		ws_group_cancel(&graph->group);
	}

	atomic_add(graph->nr, &ctx->inflight);
	atomic_inc(&ctx->nr_running);
	atomic_inc(&ctx->nr_graphs);
	spin_lock(&ctx->graphs_lock);
	list_add_tail(&graph->link, &ctx->graphs);
	spin_unlock(&ctx->graphs_lock);

	/* Every node waits for the gate: nothing runs before it is spawned. */
	for (i = 0; i < graph->nr; i++)
		ws_spawn(&graph->group, &graph->nodes[i].task);
	ws_spawn(&graph->group, &graph->gate);
	return ret;
}

/* What consuming one entry did. */
enum wsd_consumed {
	WSD_TAKEN,		/* consumed; go on */
	WSD_LATER,		/* not consumed: too many nodes in flight */
	WSD_REFUSED,		/* consumed; its graph was refused */
	WSD_DROPPED,		/* consumed; the refused graph ended here */
};

static enum wsd_consumed wsd_consume(struct wsd_ctx *ctx,
				     const struct wsched_sqe *sqe, int *err)
{
	struct wsd_build *build = &ctx->build;
	bool end = sqe->flags & WSCHED_SQE_GRAPH_END;
	int ret;

	if (build->skipping) {
		if (end)
			build->skipping = false;
		return end ? WSD_DROPPED : WSD_TAKEN;
	}
	/*
	 * Lockless: pairs with the atomic_sub() in wsd_graph_done(); a stale
	 * value only makes us refuse (retry later) or admit one graph early.
	 * A graph over the limit on its own is refused by wsd_build_add().
	 */
	if (end && atomic_read(&ctx->inflight) + build->nr + 1 >
		   wsd_inflight_limit() &&
	    build->nr + 1 <= wsd_inflight_limit())
		return WSD_LATER;

	ret = wsd_build_add(ctx, sqe);
	if (!ret && end)
		ret = wsd_graph_start(ctx, sqe->user_data);
	if (ret) {
		wsd_build_reset(build, true);
		build->skipping = !end;
		*err = ret;
		return WSD_REFUSED;
	}
	return WSD_TAKEN;
}

/* ---- ioctls ------------------------------------------------------------ */

static bool wsd_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

static long wsd_submit(struct wsd_ctx *ctx, u32 to_submit, u32 *submitted,
		       int *sq_error)
{
	u32 tail, avail, n, i;
	long ret = 0;

	*submitted = 0;
	*sq_error = 0;
	spin_lock(&ctx->cq_lock);
	wsd_flush_held(ctx);
	i = ctx->nr_held;
	spin_unlock(&ctx->cq_lock);
	if (!to_submit)
		return 0;
	if (i)
		return -EBUSY;

	mutex_lock(&ctx->lock);
	/*
	 * Pairs with the application's release store of the tail after it
	 * wrote the entries: we see them.
	 */
	tail = smp_load_acquire(ctx->sq_tail);
	avail = tail - ctx->sq_khead;
	if (avail > ctx->sq_entries) {
		ret = -EINVAL;
		goto out;
	}
	n = min(to_submit, avail);
	for (i = 0; i < n; i++) {
		struct wsched_sqe sqe;
		enum wsd_consumed what;
		int err = 0;

		/* The one read of this entry; only the copy is used. */
		memcpy(&sqe, &ctx->sqes[ctx->sq_khead & (ctx->sq_entries - 1)],
		       sizeof(sqe));
		what = wsd_consume(ctx, &sqe, &err);
		if (what == WSD_LATER) {
			ret = -EAGAIN;
			break;
		}
		ctx->sq_khead++;
		(*submitted)++;
		if (what == WSD_REFUSED) {
			*sq_error = err;
			ret = err;
			/* Drop the rest of the refused graph that is here. */
			while (ctx->build.skipping && ++i < n) {
				memcpy(&sqe, &ctx->sqes[ctx->sq_khead &
							(ctx->sq_entries - 1)],
				       sizeof(sqe));
				wsd_consume(ctx, &sqe, &err);
				ctx->sq_khead++;
				(*submitted)++;
			}
			break;
		}
	}
	/*
	 * Pairs with the application's acquire load of the head before it
	 * reuses slots: we are done reading them.
	 */
	smp_store_release(ctx->sq_head, ctx->sq_khead);
out:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * struct wsd_waiter - a thread waiting in WSCHED_IOC_ENTER
 * @wqe: its entry in ctx->cq_wait
 * @ctx: the context
 * @min_complete: completions it waits for
 */
struct wsd_waiter {
	struct wait_queue_entry wqe;
	struct wsd_ctx *ctx;
	u32 min_complete;
};

/*
 * Wake a waiter only once enough completions are there, not for each
 * one: a batch of n completions then costs one wakeup, not n.  Pollers
 * on the same queue are woken for each.
 */
static int wsd_waiter_wake(struct wait_queue_entry *wqe, unsigned int mode,
			   int sync, void *key)
{
	struct wsd_waiter *w = container_of(wqe, struct wsd_waiter, wqe);

	if (wsd_cq_events_hint(w->ctx) < w->min_complete)
		return 0;
	return autoremove_wake_function(wqe, mode, sync, key);
}

static long wsd_getevents(struct wsd_ctx *ctx, u32 min_complete,
			  u64 timeout_ns)
{
	struct wsd_waiter w = { .ctx = ctx, .min_complete = min_complete };
	ktime_t expires = 0;
	long ret = 0;

	if (timeout_ns)
		expires = ktime_add_safe(ktime_get(),
					 ns_to_ktime(min_t(u64, timeout_ns,
							   KTIME_MAX)));
	init_wait_entry(&w.wqe, 0);
	w.wqe.func = wsd_waiter_wake;
	for (;;) {
		/*
		 * The barrier in prepare_to_wait() pairs with the one of
		 * wq_has_sleeper() in wsd_wake(): either the poster sees us
		 * queued, or we see its completion below.
		 */
		prepare_to_wait(&ctx->cq_wait, &w.wqe, TASK_INTERRUPTIBLE);
		if (wsd_cq_events(ctx) >= min_complete)
			break;
		/* Entries were consumed already: do not restart the call. */
		if (signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (!timeout_ns) {
			schedule();
		} else if (!schedule_hrtimeout(&expires, HRTIMER_MODE_ABS)) {
			/* Timed out: one last look. */
			if (wsd_cq_events(ctx) < min_complete)
				ret = -ETIME;
			break;
		}
	}
	finish_wait(&ctx->cq_wait, &w.wqe);
	return ret;
}

/**
 * wsd_enter - WSCHED_IOC_ENTER: consume SQ entries, wait for completions
 * @ctx: the context
 * @arg: user address of struct wsched_enter
 *
 * Return: 0 or a negative errno; struct wsched_enter says what was
 * consumed in every case.
 */
long wsd_enter(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_enter e;
	int sq_error;
	long ret;

	if (copy_from_user(&e, arg, sizeof(e)))
		return -EFAULT;
	if (e.size != sizeof(e) || (e.flags & ~WSCHED_ENTER_FLAGS) ||
	    !wsd_zero(e.resv, sizeof(e.resv)))
		return -EINVAL;
	if (!(e.flags & WSCHED_ENTER_GETEVENTS) &&
	    (e.min_complete || e.timeout_ns))
		return -EINVAL;
	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return -EINVAL;

	ret = wsd_submit(ctx, e.to_submit, &e.submitted, &sq_error);
	e.sq_error = sq_error;
	if (!ret && (e.flags & WSCHED_ENTER_GETEVENTS) && e.min_complete)
		ret = wsd_getevents(ctx, e.min_complete, e.timeout_ns);
	if (copy_to_user(arg, &e, sizeof(e)))
		return -EFAULT;
	return ret;
}

/* ---- setup and mapping ---------------------------------------------------- */

static int wsd_region_alloc(struct wsd_region *region, size_t size)
{
	unsigned int i, nr = PAGE_ALIGN(size) >> PAGE_SHIFT;

	region->pages = kvcalloc(nr, sizeof(*region->pages), GFP_KERNEL_ACCOUNT);
	if (!region->pages)
		return -ENOMEM;
	region->nr_pages = nr;
	for (i = 0; i < nr; i++) {
		region->pages[i] = alloc_page(GFP_KERNEL_ACCOUNT | __GFP_ZERO);
		if (!region->pages[i])
			return -ENOMEM;
	}
	region->vaddr = vmap(region->pages, nr, VM_MAP, PAGE_KERNEL);
	return region->vaddr ? 0 : -ENOMEM;
}

static void wsd_region_free(struct wsd_region *region)
{
	unsigned int i;

	if (region->vaddr)
		vunmap(region->vaddr);
	for (i = 0; region->pages && i < region->nr_pages; i++)
		if (region->pages[i])
			__free_page(region->pages[i]);
	kvfree(region->pages);
	memset(region, 0, sizeof(*region));
}

/**
 * wsd_setup - WSCHED_IOC_SETUP: create the rings
 * @ctx: the context
 * @arg: user address of struct wsched_setup
 *
 * Return: 0 or a negative errno.
 */
long wsd_setup(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_setup p;
	u32 sq, cq;
	size_t sq_size, cq_size;
	long ret;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.size != sizeof(p) || (p.flags & ~WSCHED_SETUP_FLAGS) ||
	    p.features || !wsd_zero(&p.sq_off, sizeof(p.sq_off)) ||
	    !wsd_zero(&p.cq_off, sizeof(p.cq_off)) || p.sq_size || p.cq_size ||
	    !wsd_zero(p.resv, sizeof(p.resv)))
		return -EINVAL;
	sq = p.sq_entries;
	cq = p.cq_entries;
	if (!sq)
		return -EINVAL;
	if (sq > wsd_sq_limit()) {
		if (!(p.flags & WSCHED_SETUP_CLAMP))
			return -EINVAL;
		sq = wsd_sq_limit();
	}
	sq = roundup_pow_of_two(sq);
	if (!cq) {
		cq = min(2 * sq, wsd_cq_limit());
	} else {
		if (cq < p.sq_entries)
			return -EINVAL;
		if (cq > wsd_cq_limit()) {
			if (!(p.flags & WSCHED_SETUP_CLAMP))
				return -EINVAL;
			cq = wsd_cq_limit();
		}
	}
	cq = max(roundup_pow_of_two(cq), sq);

	sq_size = WSD_OFF_ARRAY + (size_t)sq * sizeof(struct wsched_sqe);
	cq_size = WSD_OFF_ARRAY + (size_t)cq * sizeof(struct wsched_cqe);

	mutex_lock(&ctx->lock);
	ret = -EBUSY;
	if (ctx->rings_ready)
		goto out;
	ret = wsd_region_alloc(&ctx->sq, sq_size);
	if (!ret)
		ret = wsd_region_alloc(&ctx->cq, cq_size);
	if (ret) {
		wsd_region_free(&ctx->sq);
		wsd_region_free(&ctx->cq);
		goto out;
	}
	ctx->sq_head = ctx->sq.vaddr + WSD_OFF_HEAD;
	ctx->sq_tail = ctx->sq.vaddr + WSD_OFF_TAIL;
	ctx->sqes = ctx->sq.vaddr + WSD_OFF_ARRAY;
	ctx->sq_entries = sq;
	*(u32 *)(ctx->sq.vaddr + WSD_OFF_MASK) = sq - 1;
	*(u32 *)(ctx->sq.vaddr + WSD_OFF_ENTRIES_NR) = sq;
	ctx->cq_head = ctx->cq.vaddr + WSD_OFF_HEAD;
	ctx->cq_tail = ctx->cq.vaddr + WSD_OFF_TAIL;
	ctx->cq_overflow = ctx->cq.vaddr + WSD_OFF_OVERFLOW;
	ctx->cqes = ctx->cq.vaddr + WSD_OFF_ARRAY;
	ctx->cq_entries = cq;
	*(u32 *)(ctx->cq.vaddr + WSD_OFF_MASK) = cq - 1;
	*(u32 *)(ctx->cq.vaddr + WSD_OFF_ENTRIES_NR) = cq;

	p.sq_entries = sq;
	p.cq_entries = cq;
	p.features = WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS |
		     WSCHED_FEAT_BUFFERS | WSCHED_FEAT_OP_NAMES;
	p.sq_off.head = WSD_OFF_HEAD;
	p.sq_off.tail = WSD_OFF_TAIL;
	p.sq_off.ring_mask = WSD_OFF_MASK;
	p.sq_off.ring_entries = WSD_OFF_ENTRIES_NR;
	p.sq_off.entries = WSD_OFF_ARRAY;
	p.cq_off.head = WSD_OFF_HEAD;
	p.cq_off.tail = WSD_OFF_TAIL;
	p.cq_off.ring_mask = WSD_OFF_MASK;
	p.cq_off.ring_entries = WSD_OFF_ENTRIES_NR;
	p.cq_off.overflow = WSD_OFF_OVERFLOW;
	p.cq_off.entries = WSD_OFF_ARRAY;
	p.sq_size = sq_size;
	p.cq_size = cq_size;
	if (copy_to_user(arg, &p, sizeof(p))) {
		wsd_region_free(&ctx->sq);
		wsd_region_free(&ctx->cq);
		ret = -EFAULT;
		goto out;
	}
	/*
	 * Pairs with the acquire loads in wsd_mmap(), wsd_enter() and
	 * wsd_poll_events(): they see the rings set up above.
	 */
	smp_store_release(&ctx->rings_ready, true);
	ret = 0;
out:
	mutex_unlock(&ctx->lock);
	return ret;
}

/**
 * wsd_mmap - map a ring
 * @ctx: the context
 * @vma: the mapping; its offset selects the ring
 *
 * Return: 0 or a negative errno.
 */
int wsd_mmap(struct wsd_ctx *ctx, struct vm_area_struct *vma)
{
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	struct wsd_region *region;

	/* Pairs with the release in wsd_setup(); no ctx->lock under mmap_lock. */
	if (!smp_load_acquire(&ctx->rings_ready))
		return -EINVAL;
	if (off == WSCHED_OFF_SQ_RING)
		region = &ctx->sq;
	else if (off == WSCHED_OFF_CQ_RING)
		region = &ctx->cq;
	else
		return -EINVAL;
	if (vma_pages(vma) > region->nr_pages || !(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	vma->vm_flags |= VM_DONTEXPAND | VM_DONTDUMP;
	return vm_map_pages_zero(vma, region->pages, vma_pages(vma));
}

/* ---- registered buffers ------------------------------------------------- */

static void wsd_bufs_free(struct wsd_ctx *ctx, struct wsd_buf *bufs, u32 nr)
{
	u32 i;

	for (i = 0; i < nr; i++) {
		if (bufs[i].map)
			vunmap(bufs[i].map);
		if (bufs[i].pages)
			unpin_user_pages(bufs[i].pages, bufs[i].nr_pages);
		kvfree(bufs[i].pages);
	}
	kvfree(bufs);
}

static int wsd_buf_pin(struct wsd_buf *buf, u64 addr, u64 len)
{
	unsigned long start = addr & PAGE_MASK;
	unsigned int nr = buf->nr_pages;
	int pinned;

	buf->pages = kvmalloc_array(nr, sizeof(*buf->pages), GFP_KERNEL_ACCOUNT);
	if (!buf->pages)
		return -ENOMEM;
	pinned = pin_user_pages_fast(start, nr, FOLL_WRITE | FOLL_LONGTERM,
				     buf->pages);
	if (pinned != nr) {
		if (pinned > 0)
			unpin_user_pages(buf->pages, pinned);
		kvfree(buf->pages);
		buf->pages = NULL;
		return pinned < 0 && pinned != -EFAULT ? pinned : -EFAULT;
	}
	buf->map = vmap(buf->pages, nr, VM_MAP, PAGE_KERNEL);
	if (!buf->map)
		return -ENOMEM;
	buf->kaddr = buf->map + offset_in_page(addr);
	buf->len = len;
	return 0;
}

/**
 * wsd_register_buffers - WSCHED_IOC_REGISTER_BUFFERS
 * @ctx: the context
 * @arg: user address of struct wsched_buf_reg
 *
 * Return: 0 or a negative errno.
 */
long wsd_register_buffers(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_buf *ubufs;
	struct wsched_buf_reg reg;
	struct wsd_buf *bufs;
	unsigned long total = 0;
	u64 end;
	u32 i;
	long ret;

	if (copy_from_user(&reg, arg, sizeof(reg)))
		return -EFAULT;
	if (reg.size != sizeof(reg) || reg.flags || reg.resv0 ||
	    !wsd_zero(reg.resv, sizeof(reg.resv)) || !reg.nr ||
	    reg.nr > WSCHED_MAX_BUFS)
		return -EINVAL;
	ubufs = memdup_user(u64_to_user_ptr(reg.bufs_ptr),
			    reg.nr * sizeof(*ubufs));
	if (IS_ERR(ubufs))
		return PTR_ERR(ubufs);
	bufs = kvcalloc(reg.nr, sizeof(*bufs), GFP_KERNEL_ACCOUNT);
	if (!bufs) {
		kfree(ubufs);
		return -ENOMEM;
	}
	for (i = 0; i < reg.nr; i++) {
		const struct wsched_buf *ub = &ubufs[i];

		ret = -EINVAL;
		if (!ub->len || ub->len > WSCHED_BUF_MAX_LEN ||
		    check_add_overflow(ub->addr, ub->len, &end))
			goto out_free;
		/* Not user memory: as inaccessible as an unmapped range. */
		ret = -EFAULT;
		if (end > TASK_SIZE)
			goto out_free;
		bufs[i].nr_pages = (PAGE_ALIGN(end) - (ub->addr & PAGE_MASK)) >>
				   PAGE_SHIFT;
		total += bufs[i].nr_pages;
	}
	ret = -ENOMEM;
	if (total > wsd_pinned_limit() >> PAGE_SHIFT)
		goto out_free;

	mutex_lock(&ctx->lock);
	ret = -EBUSY;
	if (ctx->bufs)
		goto out_unlock;
	/* ENOMEM beyond RLIMIT_MEMLOCK, unless CAP_IPC_LOCK. */
	ret = account_locked_vm(current->mm, total, true);
	if (ret)
		goto out_unlock;
	for (i = 0; i < reg.nr; i++) {
		ret = wsd_buf_pin(&bufs[i], ubufs[i].addr, ubufs[i].len);
		if (ret) {
			account_locked_vm(current->mm, total, false);
			goto out_unlock;
		}
	}
	mmgrab(current->mm);
	ctx->mm = current->mm;
	ctx->pinned_pages = total;
	ctx->bufs = bufs;
	ctx->nr_bufs = reg.nr;
	mutex_unlock(&ctx->lock);
	kfree(ubufs);
	return 0;

out_unlock:
	mutex_unlock(&ctx->lock);
out_free:
	wsd_bufs_free(ctx, bufs, reg.nr);
	kfree(ubufs);
	return ret;
}

/* Unpin, uncharge and forget the buffers; none may be in use. */
static void wsd_bufs_release(struct wsd_ctx *ctx)
{
	if (!ctx->bufs)
		return;
	wsd_bufs_free(ctx, ctx->bufs, ctx->nr_bufs);
	account_locked_vm(ctx->mm, ctx->pinned_pages, false);
	mmdrop(ctx->mm);
	ctx->mm = NULL;
	ctx->bufs = NULL;
	ctx->nr_bufs = 0;
	ctx->pinned_pages = 0;
}

/**
 * wsd_unregister_buffers - WSCHED_IOC_UNREGISTER_BUFFERS
 * @ctx: the context
 *
 * Return: 0, -ENXIO if none is registered, -EBUSY while graphs are built
 * or running.
 */
long wsd_unregister_buffers(struct wsd_ctx *ctx)
{
	long ret = 0;

	mutex_lock(&ctx->lock);
	if (!ctx->bufs)
		ret = -ENXIO;
	/*
	 * nr_running: pairs with the fully ordered decrement in
	 * wsd_graph_done(), which follows the last use of the buffers.
	 */
	else if (ctx->build.nr || atomic_read(&ctx->nr_running))
		ret = -EBUSY;
	else
		wsd_bufs_release(ctx);
	mutex_unlock(&ctx->lock);
	return ret;
}

/* ---- context ------------------------------------------------------------ */

/**
 * wsd_ring_ctx_init - set up the ring side of a new context
 * @ctx: the context, zeroed
 */
void wsd_ring_ctx_init(struct wsd_ctx *ctx)
{
	mutex_init(&ctx->lock);
	spin_lock_init(&ctx->cq_lock);
	INIT_LIST_HEAD(&ctx->held);
	init_waitqueue_head(&ctx->cq_wait);
	spin_lock_init(&ctx->graphs_lock);
	INIT_LIST_HEAD(&ctx->graphs);
	atomic_set(&ctx->nr_graphs, 0);
	atomic_set(&ctx->nr_running, 0);
	atomic_set(&ctx->inflight, 0);
	init_llist_head(&ctx->reap);
	INIT_WORK(&ctx->reap_work, wsd_reap_work);
}

/**
 * wsd_ring_ctx_release - tear down the ring side of a context
 * @ctx: the context, whose file is being released
 *
 * Cancels the graphs in flight (queued nodes run their cancel hooks,
 * running ones finish), waits for them, drops held-back completions,
 * frees everything and returns the pinned pages and their charge.
 */
void wsd_ring_ctx_release(struct wsd_ctx *ctx)
{
	struct wsd_slot *slot, *tmp;
	struct wsd_rgraph *graph;
	LIST_HEAD(dropped);

	spin_lock(&ctx->graphs_lock);
	list_for_each_entry(graph, &ctx->graphs, link)
		ws_group_cancel(&graph->group);
	spin_unlock(&ctx->graphs_lock);
	/* Pairs with the decrement in wsd_graph_done(). */
	wait_var_event(&ctx->nr_running, !atomic_read(&ctx->nr_running));

	spin_lock(&ctx->cq_lock);
	list_splice_init(&ctx->held, &dropped);
	ctx->nr_held = 0;
	spin_unlock(&ctx->cq_lock);
	list_for_each_entry_safe(slot, tmp, &dropped, link)
		wsd_graph_put(slot->graph);

	/* Pairs with the decrement in wsd_reap_work(). */
	wait_var_event(&ctx->nr_graphs, !atomic_read(&ctx->nr_graphs));
	flush_work(&ctx->reap_work);

	wsd_build_reset(&ctx->build, true);
	wsd_bufs_release(ctx);
	wsd_region_free(&ctx->sq);
	wsd_region_free(&ctx->cq);
	mutex_destroy(&ctx->lock);
}

/**
 * wsd_check_ring_layout - compile-time checks of the ring ABI
 */
void __init wsd_check_ring_layout(void)
{
	BUILD_BUG_ON(sizeof(struct wsched_sqe) != 64);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, buf) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, off) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, arg) != 40);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, nr_preds) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_sqe, preds_ptr) != 56);
	BUILD_BUG_ON(sizeof(struct wsched_cqe) != 32);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, res) != 8);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, value) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_cqe, seq) != 24);
	BUILD_BUG_ON(sizeof(struct wsched_sq_offsets) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_cq_offsets) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_setup) != 120);
	BUILD_BUG_ON(offsetof(struct wsched_setup, sq_off) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_setup, cq_off) != 56);
	BUILD_BUG_ON(offsetof(struct wsched_setup, sq_size) != 88);
	BUILD_BUG_ON(sizeof(struct wsched_enter) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_enter, timeout_ns) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_enter, submitted) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_enter, resv) != 32);
	BUILD_BUG_ON(sizeof(struct wsched_buf) != 16);
	BUILD_BUG_ON(sizeof(struct wsched_buf_reg) != 40);
	BUILD_BUG_ON(sizeof(struct wsched_op_info) != 48);
	BUILD_BUG_ON(sizeof(struct wsched_op_lookup) != 56);
	BUILD_BUG_ON(sizeof(struct wsched_op_list) != 32);
	BUILD_BUG_ON(WSD_OFF_ARRAY % 64);
}
