/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Submission to /dev/wsched (submit.c): WSCHED_IOC_ENTER and
 * WSCHED_IOC_SUBMIT_GRAPH read entries once, check them (the only caller
 * of an operation's check) and stage them into a build, which the graph
 * engine (graph.c) turns into a graph.
 */
#ifndef _WSD_SUBMIT_H
#define _WSD_SUBMIT_H

#include <linux/types.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

struct ws_op;
struct ws_pool;
struct wsd_ctx;
struct wsd_graph;

/**
 * struct wsd_stage - one node of a graph being put together
 * @op: its operation (a reference from wsd_op_get()), or NULL between
 *	two ENTER calls: a build holds no operation across calls
 * @op_id: the operation's number, to take it again
 * @args: the operation's operands, ranges resolved
 * @user_data: copied to its completion
 * @flags: WSCHED_SQE_* and WSCHED_NODE_* flags
 * @nr_preds: number of predecessors
 * @preds: index of its first predecessor in the build's pred array
 */
struct wsd_stage {
	const struct ws_op *op;
	u32 op_id;
	struct ws_op_args args;
	u64 user_data;
	u32 flags;
	u32 nr_preds;
	u32 preds;
};

/**
 * struct wsd_build - the graph being put together
 * @nodes: nodes staged so far
 * @nr: number of @nodes
 * @cap: room in @nodes
 * @preds: predecessor numbers of all @nodes, node after node
 * @nr_preds: number of @preds
 * @preds_cap: room in @preds
 * @skipping: a graph was refused before its end entry: drop entries up to
 *	and including that end entry
 *
 * The ring's build (ctx->build) is under ctx->lock; SUBMIT_GRAPH's is on
 * its caller's stack.  The arrays are kept from graph to graph while they
 * are small, so that staging a graph allocates nothing.  The graph engine
 * only reads a build: wsd_graph_build() takes over its operation
 * references, and submit.c then forgets them (wsd_build_consumed()).
 */
struct wsd_build {
	struct wsd_stage *nodes;
	u32 nr;
	u32 cap;
	u32 *preds;
	u32 nr_preds;
	u32 preds_cap;
	bool skipping;
};

/**
 * struct wsd_inline_graph - the kernel's copy of an inline io_uring graph
 * @sqes: its nodes as the ring entries they stand for; an entry with
 *	several predecessors has @preds_ptr 0
 * @preds: @preds[i], the predecessors of @sqes[i] when it has several
 * @nr: number of @sqes, 1..WSCHED_URING_INLINE_MAX
 */
struct wsd_inline_graph {
	struct wsched_sqe sqes[WSCHED_URING_INLINE_MAX];
	u32 preds[WSCHED_URING_INLINE_MAX][WSCHED_URING_INLINE_MAX];
	u32 nr;
};

long wsd_enter(struct wsd_ctx *ctx, void __user *arg);
long wsd_submit_graph(struct wsd_ctx *ctx, void __user *arg);
void wsd_build_reset(struct wsd_build *build, bool keep);
struct wsd_graph *wsd_sq_submit(struct wsd_ctx *ctx, struct ws_pool *pool,
				u32 nr, bool nowait,
				void (*notify)(struct wsd_graph *graph),
				void *owner);
struct wsd_graph *wsd_inline_submit(struct wsd_ctx *ctx, struct ws_pool *pool,
				    const struct wsd_inline_graph *in,
				    bool nowait,
				    void (*notify)(struct wsd_graph *graph),
				    void *owner);

#endif /* _WSD_SUBMIT_H */
