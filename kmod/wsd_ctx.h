/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched contexts: an open file, its rings, its registered buffers
 * and the graphs it runs.  Shared by dev.c (file operations), rings.c
 * (setup and mapping), submit.c (entries, ENTER), graph.c (the graph
 * engine), cq.c (completions) and rbuf.c (registered buffers).
 */
#ifndef _WSD_CTX_H
#define _WSD_CTX_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

struct mm_struct;
struct user_struct;
struct page;
struct vm_area_struct;
struct wsd_graph;

/**
 * struct wsd_region - kernel memory that user space maps (one ring)
 * @pages: the pages, charged to the opener's memory cgroup
 * @nr_pages: number of @pages
 * @vaddr: kernel mapping of @pages
 */
struct wsd_region {
	struct page **pages;
	unsigned int nr_pages;
	void *vaddr;
};

/**
 * struct wsd_buf - a registered buffer
 * @pages: the pinned user pages
 * @nr_pages: number of @pages
 * @map: kernel mapping of @pages (vmap())
 * @kaddr: kernel address of the buffer's first byte (in @map)
 * @len: length in bytes
 */
struct wsd_buf {
	struct page **pages;
	unsigned int nr_pages;
	void *map;
	void *kaddr;
	u64 len;
};

/**
 * struct wsd_slot - a completion, with what it takes to hold it back
 * @link: in ctx->held while the CQ is full
 * @graph: the graph it belongs to (kept alive while the slot is held)
 * @cqe: the completion
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
 * The arrays are kept from graph to graph while they are small, so that
 * staging a graph allocates nothing.
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
 * struct wsd_node - a node of a running graph
 * @task: the task that runs it
 * @graph: its graph
 * @op: its operation (a reference from wsd_op_get(), dropped when the
 *	graph completes: every node has finished)
 * @args: the operation's operands
 * @flags: WSCHED_SQE_* and WSCHED_NODE_* flags of its entry
 * @pending: predecessors that have not finished; set when the graph is
 *	built, the last predecessor to finish makes the node ready
 * @succ: index of its first successor in the graph's successor array
 * @nr_succ: number of successors
 * @root: it has no predecessor: ready when the graph starts
 * @cheap: it costs less than a wake-up (wsd_op_cheap()): nobody is woken
 *	to steal it
 * @blocks: it failed or did not run, and its dependents must not run
 * @dep_failed: a predecessor blocks: written by predecessors before
 *	their decrement of @pending, read by the node after the last one
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
 * @group: the group of its nodes' tasks; its done callback completes the
 *	graph where its last node finished
 * @ctx: the context that submitted it
 * @nr: number of @nodes
 * @cap_nodes: room for nodes in this block (blocks are reused)
 * @cap_edges: room for edges in this block
 * @seq: completions handed out
 * @ran: nodes whose op ran
 * @error: error of the first node that failed, or 0
 * @refs: one while it runs, one per held-back completion, and one for the
 *	waiter of a synchronous graph
 * @sync: submitted by WSCHED_IOC_SUBMIT_GRAPH: posts no completion, its
 *	waiter reads the nodes' results
 * @serial: every node is cheap: the submitter runs the graph at once, on
 *	its own thread (wsd_graph_run_serial())
 * @node_cqes: a serial graph has node completions to post
 * @aborted: its waiter gave up: nodes that have not started are cancelled
 * @finished: every node has finished (release; read by a sync waiter)
 * @next: in the list of graphs an ENTER call started
 * @cache_node: in ctx->cache while the block waits for reuse
 * @slot: the graph's own completion
 * @width: how many of its nodes may run at once, as far as the build can
 *	tell cheaply: its roots, or the successors of one node, whichever
 *	is more (at least 1); the workers wsd_graph_launch() asks for
 * @cred: the submitter's credentials, which its nodes run with (a
 *	reference; parallel graphs only, dropped when the graph completes)
 * @succs: successors of all nodes, node after node (compressed rows)
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
	bool node_cqes;
	bool aborted;
	bool finished;
	struct wsd_graph *next;
	struct llist_node cache_node;
	struct wsd_slot slot;
	u32 width;
	const struct cred *cred;
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

/**
 * struct wsd_ctx - an open file of /dev/wsched
 * @nodes_run: nodes whose op ran
 * @graphs_run: graphs completed
 * @lock: serialises setup, submission, the graph being built, the pool's
 *	creation and buffer registration.  Taken outside mmap_lock (pinning
 *	and copy_from_user run under it), so never taken from ->mmap.
 * @pool: the pool of the process that holds @lock to submit: the graphs
 *	it builds run there (@lock)
 * @procs: the processes that ran graphs here (struct wsd_ctx_proc), with
 *	a reference on each one's worker set (proc.c); added under @lock,
 *	dropped at release
 * @last_proc: the entry of @procs that submitted last (release store
 *	under @lock, acquire loads elsewhere)
 * @max_workers: WSCHED_IOC_MAX_WORKERS: most threads this file's graphs
 *	grow their process's pool to; 0 for the CPUs the process may use
 *	(plain stores by the ioctl, READ_ONCE() by launches)
 * @closing: the file is being released: nodes that start are cancelled
 * @rings_ready: set (release) once the rings exist; they never change
 *	after that until the file is released
 * @sq: the submission ring's memory
 * @cq: the completion ring's memory
 * @sq_head: the SQ head in shared memory (kernel writes)
 * @sq_tail: the SQ tail in shared memory (user writes)
 * @sqes: the SQ entries in shared memory
 * @sq_entries: SQ size, a power of two
 * @sq_khead: the kernel's own SQ head; under @lock
 * @cq_head: the CQ head in shared memory (user writes)
 * @cq_tail: the CQ tail in shared memory (kernel writes)
 * @cq_overflow: the overflow counter in shared memory (kernel writes)
 * @cqes: the CQ entries in shared memory
 * @cq_entries: CQ size, a power of two
 * @cq_lock: serialises posting completions; protects the fields below it
 * @cq_ktail: the kernel's own CQ tail
 * @overflow_total: completions ever held back
 * @held: held-back completions (struct wsd_slot), oldest first
 * @nr_held: number of entries on @held
 * @cq_wait: ENTER waiters and pollers wait here for completions
 * @nr_graphs: graphs that exist (running, or holding back a completion);
 *	the file's release waits for zero
 * @nr_running: graphs whose nodes have not all finished
 * @inflight: nodes of running ring graphs
 * @cache: free graph blocks for reuse (any thread adds, the submitter
 *	takes under @lock)
 * @nr_cached: number of blocks on @cache
 * @spares: more free blocks, for serial graphs; under @lock
 * @nr_spares: number of @spares
 * @build: the graph being built; under @lock
 * @bufs: registered buffers; set and cleared under @lock, only while no
 *	graph is built or running, so graphs read them without a lock
 * @nr_bufs: number of @bufs
 * @pinned_pages: pages of @bufs charged to @mm's locked_vm
 * @mm: the mm that @pinned_pages are charged to (mmgrab() held)
 * @user: the user @pinned_pages are charged to (a reference), or NULL
 *	when the registering process had CAP_IPC_LOCK
 */
struct wsd_ctx {
	atomic64_t nodes_run;
	atomic64_t graphs_run;
	struct mutex lock;	/* see @lock above */
	struct ws_pool *pool;
	struct list_head procs;
	struct wsd_ctx_proc *last_proc;
	u32 max_workers;
	bool closing;
	bool rings_ready;
	struct wsd_region sq;
	struct wsd_region cq;
	u32 *sq_head;
	u32 *sq_tail;
	struct wsched_sqe *sqes;
	u32 sq_entries;
	u32 sq_khead;
	u32 *cq_head;
	u32 *cq_tail;
	u32 *cq_overflow;
	struct wsched_cqe *cqes;
	u32 cq_entries;

	spinlock_t cq_lock;	/* completion side, see above */
	u32 cq_ktail;
	u32 overflow_total;
	struct list_head held;
	u32 nr_held;
	wait_queue_head_t cq_wait;

	atomic_t nr_graphs;
	atomic_t nr_running;
	atomic_t inflight;
	struct llist_head cache;
	atomic_t nr_cached;
	struct wsd_graph *spares[WSD_SERIAL_BATCH];
	u32 nr_spares;

	struct wsd_build build;
	struct wsd_buf *bufs;
	u32 nr_bufs;
	unsigned long pinned_pages;
	struct mm_struct *mm;
	struct user_struct *user;
};

struct wsd_proc;

/**
 * struct wsd_ctx_proc - a process that ran graphs in a context
 * @link: in ctx->procs
 * @proc: the process's entry (proc.c; a reference)
 * @pool: its pool
 */
struct wsd_ctx_proc {
	struct list_head link;
	struct wsd_proc *proc;
	struct ws_pool *pool;
};

/* Module parameters (dev.c). */
extern unsigned int wsd_max_nodes;
extern unsigned int wsd_max_inflight;
extern unsigned int wsd_max_pinned_mb;
extern unsigned int wsd_max_sq_entries;
extern unsigned int wsd_max_cq_entries;

/* Hard bounds of the parameters. */
#define WSD_NODES_LIMIT		(1024U * 1024)
#define WSD_SQ_LIMIT		32768U
#define WSD_CQ_LIMIT		65536U
#define WSD_INFLIGHT_LIMIT	(16U * 1024 * 1024)
#define WSD_PINNED_MB_LIMIT	(1024U * 1024)

/*
 * The limits in force.  The parameters are read without a lock, pairing
 * with the plain store of param_set_uint_minmax() (dev.c) when root
 * writes one: an aligned load sees the old or the new value, both in
 * range; the clamps only restate the ranges.
 */
static inline u32 wsd_nodes_limit(void)
{
	return clamp(READ_ONCE(wsd_max_nodes), 1U, WSD_NODES_LIMIT);
}

static inline u32 wsd_inflight_limit(void)
{
	return clamp(READ_ONCE(wsd_max_inflight), 1U, WSD_INFLIGHT_LIMIT);
}

static inline u32 wsd_sq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_sq_entries), 1U, WSD_SQ_LIMIT);
}

static inline u32 wsd_cq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_cq_entries), 1U, WSD_CQ_LIMIT);
}

/* Bytes of registered buffers per context. */
static inline u64 wsd_pinned_limit(void)
{
	return (u64)READ_ONCE(wsd_max_pinned_mb) << 20;
}

static inline bool wsd_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/*
 * Totals over all contexts, for debugfs (wsched/dev) so that tests can
 * tell that nothing outlived its file: open files (dev.c) and pages
 * pinned by registered buffers (rbuf.c).
 */
extern atomic_t wsd_nr_files;
extern atomic_long_t wsd_nr_pinned;

/* dev.c */
long wsd_submit_graph(struct wsd_ctx *ctx, void __user *arg);

/* rings.c */
long wsd_setup(struct wsd_ctx *ctx, void __user *arg);
int wsd_mmap(struct wsd_ctx *ctx, struct vm_area_struct *vma);
void wsd_rings_free(struct wsd_ctx *ctx);
void wsd_check_ring_layout(void);

/* submit.c */
long wsd_enter(struct wsd_ctx *ctx, void __user *arg);
int wsd_stage_sqe(struct wsd_ctx *ctx, struct wsd_build *build,
		  const struct wsched_sqe *sqe, u32 limit);
void wsd_build_reset(struct wsd_build *build, bool keep);

/* proc.c */
extern atomic_t wsd_nr_procs;
struct ws_pool *wsd_ctx_pool(struct wsd_ctx *ctx);
void wsd_ctx_procs_release(struct wsd_ctx *ctx);

/* graph.c */
struct wsd_graph *wsd_graph_build(struct wsd_ctx *ctx,
				  struct wsd_build *build, u64 user_data,
				  bool sync);
int wsd_graph_start(struct wsd_ctx *ctx, struct wsd_build *build,
		    u64 user_data, struct wsd_serial *serial,
		    struct wsd_graph **graphs);
bool wsd_serial_flush(struct wsd_ctx *ctx, struct wsd_serial *serial);
void wsd_graph_launch(struct wsd_graph *graphs, bool wait,
		      bool (*cond)(void *arg), void *arg);
void wsd_help(struct ws_pool *pool, bool (*cond)(void *arg), void *arg,
	      bool drain);
void wsd_graph_help(struct wsd_ctx *ctx, bool (*cond)(void *arg), void *arg);
void wsd_graph_put(struct wsd_graph *graph);
void wsd_ctx_init(struct wsd_ctx *ctx);
void wsd_ctx_release(struct wsd_ctx *ctx);

/* cq.c */
u32 wsd_cq_events(struct wsd_ctx *ctx);
int wsd_cq_flush(struct wsd_ctx *ctx);
void wsd_cq_drop_held(struct wsd_ctx *ctx);
long wsd_getevents(struct wsd_ctx *ctx, u32 min_complete, u64 timeout_ns);
__poll_t wsd_poll_events(struct wsd_ctx *ctx);

/* rbuf.c */
long wsd_register_buffers(struct wsd_ctx *ctx, void __user *arg);
long wsd_unregister_buffers(struct wsd_ctx *ctx);
void wsd_bufs_release(struct wsd_ctx *ctx);
int wsd_range(struct wsd_ctx *ctx, u32 buf, u64 off, u64 len, void **kaddr);

#endif /* _WSD_CTX_H */
