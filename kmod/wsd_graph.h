/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The /dev/wsched graph engine (graph.c): build a graph from a staged
 * build, launch it in the submitter's pool, run its nodes, complete it.
 *
 * Fields are tagged with who may touch them; the legend is in wsd_ctx.h.
 */
#ifndef _WSD_GRAPH_H
#define _WSD_GRAPH_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

struct cred;
struct ws_op;
struct wsd_build;
struct wsd_ctx;
struct wsd_graph;

/**
 * struct wsd_slot - a completion, with what it takes to hold it back
 * @link: in ctx->held while the CQ is full (Q)
 * @graph: the graph it belongs to, kept alive while the slot is held (I)
 * @cqe: the completion: written by whoever finishes its node (N) or
 *	graph (D), then read under ctx->cq_lock when posted (Q)
 *
 * A held slot needs nothing but memory: the graph's operations are
 * dropped when its last node finishes, held-back completions or not.
 */
struct wsd_slot {
	struct list_head link;
	struct wsd_graph *graph;
	struct wsched_cqe cqe;
};

/**
 * struct wsd_node - a node of a running graph
 * @task: the task that runs it (the core's: wsched_internal.h)
 * @graph: its graph (I)
 * @op: its operation, a reference from wsd_op_get() (I; dropped by D
 *	once every node has finished)
 * @args: the operation's operands (I)
 * @flags: WSCHED_SQE_* and WSCHED_NODE_* flags of its entry (I)
 * @pending: predecessors that have not finished (A: set by the build,
 *	then only fully ordered decrements by its predecessors; the last
 *	one makes the node ready)
 * @succ: index of its first successor in the graph's successor array (I)
 * @nr_succ: number of successors (I)
 * @root: it has no predecessor: ready when the graph starts (I)
 * @cheap: it costs less than a wake-up (wsd_op_cheap()): nobody is woken
 *	to steal it (I)
 * @blocks: it failed or did not run, and its dependents must not run (N)
 * @dep_failed: a predecessor blocks (A: WRITE_ONCE() by predecessors
 *	before their fully ordered decrement of @pending, READ_ONCE() by
 *	the node once the last one made it ready)
 * @slot: its completion
 */
struct wsd_node {
	struct ws_task task;
	struct wsd_graph *graph;
	const struct ws_op *op;
	struct ws_op_args args;
	u32 flags;
	atomic_t pending;
	u32 succ;
	u32 nr_succ;
	bool root;
	bool cheap;
	bool blocks;
	bool dep_failed;
	struct wsd_slot slot;
};

/**
 * struct wsd_graph - a graph: one block with its nodes and edges
 * @group: the group of its nodes' tasks (the core's); its done callback
 *	completes the graph where its last node finished
 * @ctx: the context that submitted it (I)
 * @nr: number of @nodes (I)
 * @cap_nodes: room for nodes in this block (I: set when the block is
 *	allocated, kept while it is reused)
 * @cap_edges: room for edges in this block (I, as @cap_nodes)
 * @seq: completions handed out (A; plain for a serial graph, S)
 * @ran: nodes whose op ran (A; plain for a serial graph, S)
 * @error: error of the first node that failed, or 0 (A: cmpxchg; plain
 *	for a serial graph, S)
 * @refs: one while it runs, one per held-back completion, and one for the
 *	waiter of a synchronous graph (A)
 * @sync: submitted by WSCHED_IOC_SUBMIT_GRAPH: posts no completion, its
 *	waiter reads the nodes' results (I)
 * @serial: every node is cheap: the submitter runs the graph at once, on
 *	its own thread (wsd_graph_run_serial()) (I)
 * @cheap: every node is cheap (wsd_op_cheap()) (I)
 * @node_cqes: a serial graph has node completions to post (S)
 * @aborted: its waiter gave up: nodes that have not started are cancelled
 *	(A: WRITE_ONCE() by the waiter, a hint READ_ONCE() by nodes)
 * @finished: every node has finished (A: release store by D, acquire
 *	load by the synchronous waiter)
 * @next: in the list of graphs one submission built (L, then owned by the
 *	launching thread)
 * @cache_node: in ctx->cache while the block waits for reuse (A: llist;
 *	any thread adds, the submitter takes under L)
 * @slot: the graph's own completion (D, then Q)
 * @width: how many of its nodes may run at once, as far as the build can
 *	tell cheaply: its roots (a root whose op splits its range counting
 *	one per piece), or the successors of one node, whichever is more
 *	(at least 1); the threads wsd_graph_launch() asks for (I)
 * @cred: the submitter's credentials, which its nodes run with (I: a
 *	reference, parallel graphs only, dropped by D)
 * @notify: called by D in place of posting the graph's completion, which
 *	it finds in @slot, or NULL; the graph's owner (an io_uring command,
 *	uring_cmd.c) holds the second reference (I)
 * @owner: for @notify (I)
 * @succs: successors of all nodes, node after node (compressed rows) (I)
 * @nodes: the nodes
 */
struct wsd_graph {
	struct ws_group group;
	struct wsd_ctx *ctx;
	u32 nr;
	u32 cap_nodes;
	u32 cap_edges;
	atomic_t seq;
	atomic_t ran;
	atomic_t error;
	refcount_t refs;
	bool sync;
	bool serial;
	bool cheap;
	bool node_cqes;
	bool aborted;
	bool finished;
	struct wsd_graph *next;
	struct llist_node cache_node;
	struct wsd_slot slot;
	u32 width;
	const struct cred *cred;
	void (*notify)(struct wsd_graph *graph);
	void *owner;
	u32 *succs;
	struct wsd_node nodes[];
};

/* Serial graphs whose completions are posted together. */
#define WSD_SERIAL_BATCH	16

/**
 * struct wsd_serial - serial graphs that ran, their completions not posted
 * @graphs: the graphs, oldest first
 * @nr: number of @graphs
 * @nodes_run: nodes of @graphs whose op ran
 *
 * Kept by one ENTER call, under ctx->lock: wsd_serial_flush() posts the
 * completions of up to WSD_SERIAL_BATCH graphs with one acquisition of the
 * completion lock, and gives their blocks back.
 */
struct wsd_serial {
	struct wsd_graph *graphs[WSD_SERIAL_BATCH];
	u32 nr;
	u32 nodes_run;
};

struct wsd_graph *wsd_graph_build(struct wsd_ctx *ctx,
				  const struct wsd_build *build, u64 user_data,
				  bool sync);
struct wsd_graph *wsd_graph_build_notify(struct wsd_ctx *ctx,
					 const struct wsd_build *build,
					 void (*notify)(struct wsd_graph *graph),
					 void *owner);
int wsd_graph_start(struct wsd_ctx *ctx, const struct wsd_build *build,
		    u64 user_data, struct wsd_serial *serial,
		    struct wsd_graph **graphs);
bool wsd_serial_flush(struct wsd_ctx *ctx, struct wsd_serial *serial);
void wsd_graph_launch(struct wsd_graph *graphs, bool wait,
		      bool (*cond)(void *arg), void *arg);
void wsd_help(struct ws_pool *pool, bool (*cond)(void *arg), void *arg,
	      bool drain);
void wsd_graph_put(struct wsd_graph *graph);
void wsd_graph_cache_free(struct wsd_ctx *ctx);

#endif /* _WSD_GRAPH_H */
