// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched: user space submits task graphs to ws_system_pool.
 *
 * Each open file is a context (struct wsd_ctx).  Two ways in:
 *
 * - WSCHED_IOC_SUBMIT_GRAPH (this file) copies a whole graph into kernel
 *   memory (every user byte is read exactly once), validates all of it
 *   before anything runs, turns each node into a ws_task linked with
 *   ws_task_precede(), runs the graph, waits for it and copies the results
 *   out.
 * - The rings (ring.c): WSCHED_IOC_SETUP, mmap(2), WSCHED_IOC_ENTER,
 *   poll(2), registered buffers and the operations of ops.c.
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/nospec.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "ws_dev.h"
#include "ws_ring.h"

/* Largest errno a WSCHED_OP_FAIL node may return. */
#define WSD_MAX_ERRNO		4095

/* WSCHED_IOC_SUBMIT_GRAPH runs only these operations. */
#define WSD_SYNC_OP_LAST	WSCHED_OP_FAIL

/*
 * The parameters are read without a lock (READ_ONCE in the helpers
 * below), pairing with the plain store of param_set_uint() when root
 * writes one: an aligned load sees the old or the new value.
 */
unsigned int wsd_max_nodes = 10000;
module_param_named(max_nodes, wsd_max_nodes, uint, 0644);
MODULE_PARM_DESC(max_nodes, "most nodes of one graph submitted to /dev/wsched (1..1048576)");

unsigned int wsd_max_inflight = 65536;
module_param_named(max_inflight, wsd_max_inflight, uint, 0644);
MODULE_PARM_DESC(max_inflight, "most ring-submitted nodes in flight per open file of /dev/wsched");

unsigned int wsd_max_pinned_mb = 256;
module_param_named(max_pinned_mb, wsd_max_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_pinned_mb, "most MiB of registered buffers per open file of /dev/wsched (RLIMIT_MEMLOCK applies too)");

unsigned int wsd_max_sq_entries = 4096;
module_param_named(max_sq_entries, wsd_max_sq_entries, uint, 0644);
MODULE_PARM_DESC(max_sq_entries, "largest submission ring (1..32768)");

unsigned int wsd_max_cq_entries = 8192;
module_param_named(max_cq_entries, wsd_max_cq_entries, uint, 0644);
MODULE_PARM_DESC(max_cq_entries, "largest completion ring (1..65536)");

/**
 * wsd_nodes_limit - most nodes of one graph
 *
 * Return: the max_nodes parameter, within 1..WSD_NODES_LIMIT.
 */
u32 wsd_nodes_limit(void)
{
	return clamp(READ_ONCE(wsd_max_nodes), 1U, WSD_NODES_LIMIT);
}

/**
 * wsd_inflight_limit - most ring-submitted nodes in flight per context
 *
 * Return: the max_inflight parameter, at least 1.
 */
u32 wsd_inflight_limit(void)
{
	return max(READ_ONCE(wsd_max_inflight), 1U);
}

/**
 * wsd_sq_limit - largest SQ
 *
 * Return: the max_sq_entries parameter, within 1..WSD_SQ_LIMIT.
 */
u32 wsd_sq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_sq_entries), 1U, WSD_SQ_LIMIT);
}

/**
 * wsd_cq_limit - largest CQ
 *
 * Return: the max_cq_entries parameter, within 1..WSD_CQ_LIMIT.
 */
u32 wsd_cq_limit(void)
{
	return clamp(READ_ONCE(wsd_max_cq_entries), 1U, WSD_CQ_LIMIT);
}

/**
 * wsd_pinned_limit - most bytes of registered buffers per context
 *
 * Return: the max_pinned_mb parameter in bytes.
 */
u64 wsd_pinned_limit(void)
{
	return (u64)READ_ONCE(wsd_max_pinned_mb) << 20;
}

struct wsd_graph;

/**
 * struct wsd_node - kernel copy of a node, and its task
 * @task: the task that runs the node
 * @graph: the graph the node belongs to
 * @op: WSCHED_OP_*
 * @flags: WSCHED_NODE_*
 * @arg0: first operand
 * @user_data: returned in the result
 * @preds: indices of the predecessors (into the graph's pred array)
 * @nr_preds: number of predecessors
 * @res: result
 * @rflags: WSCHED_RES_*
 * @seq: completion order, from 1
 * @blocks: the node failed and its dependents must not run
 *
 * @res, @rflags, @seq and @blocks are written by the node's task before it
 * finishes and read by its successors and by the submitter after the
 * graph's wait; see wsd_run().
 */
struct wsd_node {
	struct ws_task task;
	struct wsd_graph *graph;
	u32 op;
	u32 flags;
	u64 arg0;
	u64 user_data;
	const u32 *preds;
	u32 nr_preds;
	s32 res;
	u32 rflags;
	u32 seq;
	bool blocks;
};

/**
 * struct wsd_graph - a graph being run
 * @group: the group of all the graph's tasks
 * @ctx: the context it was submitted through
 * @nodes: the nodes
 * @preds: all predecessor indices, node after node
 * @seq: last completion sequence number handed out
 */
struct wsd_graph {
	struct ws_group group;
	struct wsd_ctx *ctx;
	struct wsd_node *nodes;
	u32 *preds;
	atomic_t seq;
};

static void wsd_finish(struct wsd_node *node)
{
	/*
	 * Fully ordered, but only the value matters: a successor starts
	 * after this task's completion, so its seq is higher.
	 */
	node->seq = atomic_inc_return(&node->graph->seq);
}

static void wsd_spin(struct wsd_node *node)
{
	u64 i;

	for (i = 0; i < node->arg0; i++) {
		if (!(i & 1023)) {
			/*
			 * Stop early once the submitter gave up; pairs with
			 * the set_bit() of ws_group_cancel() in
			 * wsd_graph_run(), any later iteration sees it.
			 */
			if (ws_group_cancelled(&node->graph->group))
				break;
			cond_resched();
		}
		cpu_relax();
	}
}

/*
 * The task of a node.  Its predecessors have finished: the fully ordered
 * decrement of our dependency count by the last of them (in
 * ws_release_successors()) comes after their writes to @blocks, so the
 * plain reads below see them.  Our own writes reach successors the same
 * way, and the submitter through ws_group_wait()'s acquire.
 */
static struct ws_task *wsd_run(struct ws_task *task)
{
	struct wsd_node *node = container_of(task, struct wsd_node, task);
	struct wsd_graph *graph = node->graph;
	u32 i;

	for (i = 0; i < node->nr_preds; i++) {
		if (graph->nodes[node->preds[i]].blocks) {
			node->res = -ECANCELED;
			node->rflags = WSCHED_RES_DEP_FAILED;
			node->blocks = true;
			wsd_finish(node);
			return NULL;
		}
	}
	switch (node->op) {
	case WSCHED_OP_SPIN:
		wsd_spin(node);
		node->res = 0;
		break;
	case WSCHED_OP_FAIL:
		node->res = -(s32)node->arg0;
		break;
	default:
		node->res = 0;
		break;
	}
	node->rflags = WSCHED_RES_RAN;
	node->blocks = node->res < 0 && !(node->flags & WSCHED_NODE_SOFT_FAIL);
	atomic64_inc(&graph->ctx->nodes_run);
	wsd_finish(node);
	return NULL;
}

/* Runs instead of wsd_run() once the group is cancelled. */
static void wsd_cancel(struct ws_task *task)
{
	struct wsd_node *node = container_of(task, struct wsd_node, task);

	node->res = -ECANCELED;
	node->rflags = WSCHED_RES_ABORTED;
	node->blocks = true;
	wsd_finish(node);
}

static bool wsd_zero(const void *p, size_t len)
{
	return !memchr_inv(p, 0, len);
}

/* Check one node as the user gave it; the kernel copy is @un. */
static int wsd_check_node(const struct wsched_node *un)
{
	if (un->resv || (un->flags & ~WSCHED_NODE_FLAGS))
		return -EINVAL;
	if (un->op > WSD_SYNC_OP_LAST)
		return -EOPNOTSUPP;
	if (un->nr_preds > WSCHED_MAX_PREDS)
		return -E2BIG;
	if (!un->nr_preds && un->preds_ptr)
		return -EINVAL;
	switch (un->op) {
	case WSCHED_OP_NOP:
		if (!wsd_zero(un->arg, sizeof(un->arg)))
			return -EINVAL;
		break;
	case WSCHED_OP_SPIN:
		if (un->arg[0] > WSCHED_SPIN_MAX || un->arg[1] || un->arg[2])
			return -EINVAL;
		break;
	case WSCHED_OP_FAIL:
		if (!un->arg[0] || un->arg[0] > WSD_MAX_ERRNO ||
		    un->arg[1] || un->arg[2])
			return -EINVAL;
		break;
	}
	return 0;
}

static void wsd_graph_free(struct wsd_graph *graph)
{
	kvfree(graph->preds);
	kvfree(graph->nodes);
	kfree(graph);
}

/*
 * Copy in and check a graph.  Every field is read once, from the kernel
 * copy.  Return the graph ready to run, or an ERR_PTR().
 */
static struct wsd_graph *wsd_graph_load(struct wsd_ctx *ctx,
					const struct wsched_graph *ug)
{
	struct wsched_node *unodes;
	struct wsd_graph *graph;
	u32 nr = ug->nr_nodes;
	u64 total = 0;
	u32 i, j;
	int ret;

	if (!nr)
		return ERR_PTR(-EINVAL);
	if (nr > wsd_nodes_limit())
		return ERR_PTR(-E2BIG);

	unodes = kvmalloc_array(nr, sizeof(*unodes), GFP_KERNEL_ACCOUNT);
	if (!unodes)
		return ERR_PTR(-ENOMEM);
	if (copy_from_user(unodes, u64_to_user_ptr(ug->nodes_ptr),
			   array_size(nr, sizeof(*unodes)))) {
		ret = -EFAULT;
		goto out_unodes;
	}
	for (i = 0; i < nr; i++) {
		ret = wsd_check_node(&unodes[i]);
		if (ret)
			goto out_unodes;
		total += unodes[i].nr_preds;
	}

	ret = -ENOMEM;
	graph = kzalloc(sizeof(*graph), GFP_KERNEL_ACCOUNT);
	if (!graph)
		goto out_unodes;
	graph->ctx = ctx;
	graph->nodes = kvcalloc(nr, sizeof(*graph->nodes), GFP_KERNEL_ACCOUNT);
	if (!graph->nodes)
		goto out_graph;
	if (total) {
		graph->preds = kvmalloc_array(total, sizeof(*graph->preds),
					      GFP_KERNEL_ACCOUNT);
		if (!graph->preds)
			goto out_graph;
	}

	total = 0;
	for (i = 0; i < nr; i++) {
		struct wsd_node *node = &graph->nodes[i];
		const struct wsched_node *un = &unodes[i];
		u32 *preds = graph->preds + total;

		if (un->nr_preds &&
		    copy_from_user(preds, u64_to_user_ptr(un->preds_ptr),
				   array_size(un->nr_preds, sizeof(*preds)))) {
			ret = -EFAULT;
			goto out_graph;
		}
		for (j = 0; j < un->nr_preds; j++) {
			/* Only lower indices: acyclic by construction. */
			if (preds[j] >= i) {
				ret = -EINVAL;
				goto out_graph;
			}
			preds[j] = array_index_nospec(preds[j], i);
		}
		node->graph = graph;
		node->op = array_index_nospec(un->op, WSD_SYNC_OP_LAST + 1);
		node->flags = un->flags;
		node->arg0 = un->arg[0];
		node->user_data = un->user_data;
		node->preds = preds;
		node->nr_preds = un->nr_preds;
		total += un->nr_preds;
	}
	kvfree(unodes);
	return graph;

out_graph:
	wsd_graph_free(graph);
out_unodes:
	kvfree(unodes);
	return ERR_PTR(ret);
}

/*
 * Link and run a loaded graph and wait for it.  Return 0, -EINTR if a
 * signal interrupted the wait (the rest of the graph was cancelled), or
 * -ENOMEM if the edges could not be allocated (nothing ran).
 */
static int wsd_graph_run(struct wsd_graph *graph, u32 nr)
{
	struct ws_group *group = &graph->group;
	int ret = 0;
	u32 i, j;

	ws_group_init(group, NULL);
	for (i = 0; i < nr; i++) {
		ws_task_init(&graph->nodes[i].task, wsd_run);
		ws_task_set_cancel(&graph->nodes[i].task, wsd_cancel);
	}
	for (i = 0; i < nr && !ret; i++) {
		struct wsd_node *node = &graph->nodes[i];

		for (j = 0; j < node->nr_preds && !ret; j++)
			ret = ws_task_precede(&graph->nodes[node->preds[j]].task,
					      &node->task, GFP_KERNEL_ACCOUNT);
	}
	/*
	 * Out of memory: cancel first, so that every task runs only its
	 * cancel hook; running them frees the edges already linked.
	 */
	if (ret)
		ws_group_cancel(group);
	for (i = 0; i < nr; i++)
		ws_spawn(group, &graph->nodes[i].task);

	/*
	 * Pairs with atomic_dec_and_test() + wake_up_var(&group->pending) in
	 * ws_group_complete(); ws_group_done() is an acquire load.
	 */
	if (!ret && wait_var_event_interruptible(&group->pending,
						 ws_group_done(group))) {
		ws_group_cancel(group);
		ret = -EINTR;
	}
	/* Nodes still running must finish before the graph is freed. */
	ws_group_wait(group);
	return ret;
}

static int wsd_copy_results(const struct wsd_graph *graph, u32 nr,
			    u64 uptr)
{
	struct wsched_result *res;
	u32 i;
	int ret = 0;

	res = kvcalloc(nr, sizeof(*res), GFP_KERNEL_ACCOUNT);
	if (!res)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		const struct wsd_node *node = &graph->nodes[i];

		res[i].user_data = node->user_data;
		res[i].res = node->res;
		res[i].flags = node->rflags;
		res[i].seq = node->seq;
	}
	if (copy_to_user(u64_to_user_ptr(uptr), res,
			 array_size(nr, sizeof(*res))))
		ret = -EFAULT;
	kvfree(res);
	return ret;
}

static long wsd_submit_graph(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_graph ug;
	struct wsd_graph *graph;
	void __user *results;
	int ret, ret2;

	if (copy_from_user(&ug, arg, sizeof(ug)))
		return -EFAULT;
	if (ug.size != sizeof(ug) ||
	    ug.node_size != sizeof(struct wsched_node) ||
	    ug.result_size != sizeof(struct wsched_result) ||
	    (ug.flags & ~WSCHED_GRAPH_FLAGS) || !wsd_zero(ug.resv, sizeof(ug.resv)))
		return -EINVAL;

	graph = wsd_graph_load(ctx, &ug);
	if (IS_ERR(graph))
		return PTR_ERR(graph);

	/* The last check before anything runs: the results must be writable. */
	results = u64_to_user_ptr(ug.results_ptr);
	if (clear_user(results, array_size(ug.nr_nodes,
					   sizeof(struct wsched_result)))) {
		ret = -EFAULT;
		goto out;
	}

	ret = wsd_graph_run(graph, ug.nr_nodes);
	if (ret == -ENOMEM)
		goto out;
	atomic64_inc(&ctx->graphs_run);
	/* Results are written even when interrupted. */
	ret2 = wsd_copy_results(graph, ug.nr_nodes, ug.results_ptr);
	if (!ret)
		ret = ret2;
out:
	wsd_graph_free(graph);
	return ret;
}

static long wsd_probe(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsched_probe p;

	if (copy_from_user(&p, arg, sizeof(p)))
		return -EFAULT;
	if (p.size != sizeof(p))
		return -EINVAL;
	/* Everything but size is output: it must come in as zero. */
	if (!wsd_zero((u8 *)&p + sizeof(p.size), sizeof(p) - sizeof(p.size)))
		return -EINVAL;

	p.version = WSCHED_ABI_VERSION;
	p.ops = wsd_builtin_ops_mask();
	p.features = WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS |
		     WSCHED_FEAT_BUFFERS | WSCHED_FEAT_OP_NAMES;
	p.node_flags = WSCHED_NODE_FLAGS;
	p.graph_flags = WSCHED_GRAPH_FLAGS;
	p.max_nodes = wsd_nodes_limit();
	p.max_preds = WSCHED_MAX_PREDS;
	p.max_spin = WSCHED_SPIN_MAX;
	p.nr_workers = ws_pool_nr_workers(ws_system_pool);
	/* Snapshots: relaxed, as are the increments in wsd_run() and below. */
	p.nodes_run = atomic64_read(&ctx->nodes_run);
	p.graphs_run = atomic64_read(&ctx->graphs_run);
	p.sqe_flags = WSCHED_SQE_FLAGS;
	p.max_inflight = wsd_inflight_limit();
	p.max_pinned = wsd_pinned_limit();
	p.max_sq_entries = wsd_sq_limit();
	p.max_cq_entries = wsd_cq_limit();
	if (copy_to_user(arg, &p, sizeof(p)))
		return -EFAULT;
	return 0;
}

static long wsd_op_lookup_ioctl(void __user *arg)
{
	struct wsched_op_lookup l;
	int ret;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (l.size != sizeof(l) || l.resv0 || l.info.op || l.info.flags ||
	    l.info.resv || !memchr(l.info.name, 0, sizeof(l.info.name)))
		return -EINVAL;
	ret = wsd_op_lookup(l.info.name, &l.info);
	if (ret)
		return ret;
	if (copy_to_user(arg, &l, sizeof(l)))
		return -EFAULT;
	return 0;
}

static long wsd_op_list_ioctl(void __user *arg)
{
	struct wsched_op_info *infos = NULL;
	struct wsched_op_list l;
	u32 room, total;
	long ret = 0;

	if (copy_from_user(&l, arg, sizeof(l)))
		return -EFAULT;
	if (l.size != sizeof(l) || !wsd_zero(l.resv, sizeof(l.resv)))
		return -EINVAL;
	room = min_t(u32, l.nr, WSCHED_OP_LAST + 1 + WSCHED_OP_DYNAMIC_MAX);
	if (room) {
		infos = kcalloc(room, sizeof(*infos), GFP_KERNEL_ACCOUNT);
		if (!infos)
			return -ENOMEM;
	}
	total = wsd_op_list(infos, room);
	if (room && copy_to_user(u64_to_user_ptr(l.ops_ptr), infos,
				 min(room, total) * sizeof(*infos)))
		ret = -EFAULT;
	l.nr = total;
	if (!ret && copy_to_user(arg, &l, sizeof(l)))
		ret = -EFAULT;
	kfree(infos);
	return ret;
}

static long wsd_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct wsd_ctx *ctx = file->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case WSCHED_IOC_PROBE:
		return wsd_probe(ctx, uarg);
	case WSCHED_IOC_SUBMIT_GRAPH:
		return wsd_submit_graph(ctx, uarg);
	case WSCHED_IOC_SETUP:
		return wsd_setup(ctx, uarg);
	case WSCHED_IOC_ENTER:
		return wsd_enter(ctx, uarg);
	case WSCHED_IOC_REGISTER_BUFFERS:
		return wsd_register_buffers(ctx, uarg);
	case WSCHED_IOC_UNREGISTER_BUFFERS:
		return wsd_unregister_buffers(ctx);
	case WSCHED_IOC_OP_LOOKUP:
		return wsd_op_lookup_ioctl(uarg);
	case WSCHED_IOC_OP_LIST:
		return wsd_op_list_ioctl(uarg);
	default:
		return -ENOTTY;
	}
}

static int wsd_open(struct inode *inode, struct file *file)
{
	struct wsd_ctx *ctx;

	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL_ACCOUNT);
	if (!ctx)
		return -ENOMEM;
	atomic64_set(&ctx->nodes_run, 0);
	atomic64_set(&ctx->graphs_run, 0);
	wsd_ring_ctx_init(ctx);
	file->private_data = ctx;
	return nonseekable_open(inode, file);
}

static int wsd_release(struct inode *inode, struct file *file)
{
	struct wsd_ctx *ctx = file->private_data;

	wsd_ring_ctx_release(ctx);
	kfree(ctx);
	return 0;
}

static int wsd_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	return wsd_mmap(file->private_data, vma);
}

static __poll_t wsd_poll(struct file *file, struct poll_table_struct *wait)
{
	struct wsd_ctx *ctx = file->private_data;

	poll_wait(file, &ctx->cq_wait, wait);
	return wsd_poll_events(ctx);
}

/* .owner pins the module while a file is open: no unload under an fd. */
static const struct file_operations wsd_fops = {
	.owner		= THIS_MODULE,
	.open		= wsd_open,
	.release	= wsd_release,
	.unlocked_ioctl	= wsd_ioctl,
	.mmap		= wsd_file_mmap,
	.poll		= wsd_poll,
	.compat_ioctl	= compat_ptr_ioctl,
	.llseek		= no_llseek,
};

/*
 * 0600: a graph makes every CPU busy-loop in kernel threads and allocates
 * kernel memory, so the device is root's by default; an administrator can
 * open it to a group with a udev rule (GROUP="wsched", MODE="0660").
 */
static struct miscdevice wsd_misc = {
	.minor	= MISC_DYNAMIC_MINOR,
	.name	= "wsched",
	.fops	= &wsd_fops,
	.mode	= 0600,
};

static void __init wsd_check_layout(void)
{
	BUILD_BUG_ON(sizeof(struct wsched_node) != 56);
	BUILD_BUG_ON(offsetof(struct wsched_node, arg) != 8);
	BUILD_BUG_ON(offsetof(struct wsched_node, user_data) != 32);
	BUILD_BUG_ON(offsetof(struct wsched_node, nr_preds) != 40);
	BUILD_BUG_ON(offsetof(struct wsched_node, preds_ptr) != 48);
	BUILD_BUG_ON(sizeof(struct wsched_result) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_result, res) != 8);
	BUILD_BUG_ON(offsetof(struct wsched_result, seq) != 16);
	BUILD_BUG_ON(sizeof(struct wsched_graph) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_graph, results_ptr) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_graph, size) != 24);
	BUILD_BUG_ON(offsetof(struct wsched_graph, resv) != 36);
	BUILD_BUG_ON(sizeof(struct wsched_probe) != 96);
	BUILD_BUG_ON(offsetof(struct wsched_probe, ops) != 8);
	BUILD_BUG_ON(offsetof(struct wsched_probe, max_nodes) != 32);
	BUILD_BUG_ON(offsetof(struct wsched_probe, nodes_run) != 48);
	BUILD_BUG_ON(offsetof(struct wsched_probe, sqe_flags) != 64);
	BUILD_BUG_ON(offsetof(struct wsched_probe, resv) != 88);
	BUILD_BUG_ON(WSCHED_OP_LAST >= 64);
	wsd_check_ring_layout();
}

/**
 * ws_dev_init - register /dev/wsched
 *
 * Called from the module's init once ws_system_pool exists.
 *
 * Return: 0 or a negative errno.
 */
int __init ws_dev_init(void)
{
	int ret;

	wsd_check_layout();
	ret = wsd_ops_init();
	if (ret)
		return ret;
	ret = misc_register(&wsd_misc);
	if (ret) {
		pr_err("cannot register /dev/wsched: %d\n", ret);
		wsd_ops_exit();
	}
	return ret;
}

/**
 * ws_dev_exit - unregister /dev/wsched
 *
 * Called from the module's exit before ws_system_pool goes away.  No file
 * can be open: each open file holds a reference to the module.
 */
void ws_dev_exit(void)
{
	misc_deregister(&wsd_misc);
	wsd_ops_exit();
}
