// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched: user space submits task graphs, run by the graph engine
 * (graph.c) in a pool of the opener's own (see ws_pool_create_user()).
 *
 * Each open file is a context (struct wsd_ctx, wsd_ctx.h).  This file has
 * the file operations, the module parameters, WSCHED_IOC_PROBE, the
 * operation lookups and WSCHED_IOC_SUBMIT_GRAPH, a synchronous wrapper
 * over the engine.  The rest: rings.c (setup, mmap), submit.c (ENTER),
 * cq.c (completions, poll), rbuf.c (registered buffers), opdef.c (the
 * operations).
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/compat.h>
#include <linux/freezer.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/poll.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/user_namespace.h>
#include <linux/wait_bit.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "ws_op.h"
#include "wsd_ctx.h"

/* WSCHED_IOC_SUBMIT_GRAPH runs only these operations. */
#define WSD_SYNC_OP_LAST	WSCHED_OP_FAIL

/*
 * The parameters are read without a lock (READ_ONCE in the helpers
 * below), pairing with the plain store of param_set_uint_minmax() when
 * root writes one: an aligned load sees the old or the new value.  A
 * value out of range is refused (EINVAL), so what reads back is in force.
 */
#define WSD_PARAM(name, var, min, max, desc)				\
static int wsd_set_##name(const char *val, const struct kernel_param *kp) \
{									\
	return param_set_uint_minmax(val, kp, min, max) ? -EINVAL : 0;	\
}									\
static const struct kernel_param_ops wsd_param_##name = {		\
	.set = wsd_set_##name,						\
	.get = param_get_uint,						\
};									\
module_param_cb(name, &wsd_param_##name, &var, 0644);			\
MODULE_PARM_DESC(name, desc)

unsigned int wsd_max_nodes = 10000;
WSD_PARAM(max_nodes, wsd_max_nodes, 1, WSD_NODES_LIMIT,
	  "most nodes of one graph submitted to /dev/wsched (1..1048576)");

unsigned int wsd_max_inflight = 65536;
WSD_PARAM(max_inflight, wsd_max_inflight, 1, WSD_INFLIGHT_LIMIT,
	  "most ring-submitted nodes in flight per open file of /dev/wsched (1..16777216)");

unsigned int wsd_max_pinned_mb = 256;
WSD_PARAM(max_pinned_mb, wsd_max_pinned_mb, 0, WSD_PINNED_MB_LIMIT,
	  "most MiB of registered buffers per open file of /dev/wsched, 0 for none (0..1048576; RLIMIT_MEMLOCK applies too)");

unsigned int wsd_max_sq_entries = 4096;
WSD_PARAM(max_sq_entries, wsd_max_sq_entries, 1, WSD_SQ_LIMIT,
	  "largest submission ring (1..32768)");

unsigned int wsd_max_cq_entries = 8192;
WSD_PARAM(max_cq_entries, wsd_max_cq_entries, 1, WSD_CQ_LIMIT,
	  "largest completion ring (1..65536)");

/* Open files of /dev/wsched: up at open, down once the release is done. */
atomic_t wsd_nr_files = ATOMIC_INIT(0);

/*
 * A node of WSCHED_IOC_SUBMIT_GRAPH as the ring entry it stands for
 * (@un is the kernel's copy).  Only what SUBMIT_GRAPH itself restricts is
 * checked here (its flags and operations, its reserved field); the rest,
 * the operation's operands among it, is checked by the rings' staging,
 * wsd_stage_sqe(): operands the operation does not take go where an
 * entry carries none for it (off, len), and are refused there.
 */
static int wsd_node_to_sqe(const struct wsched_node *un,
			   struct wsched_sqe *sqe)
{
	if (un->resv || (un->flags & ~WSCHED_NODE_FLAGS))
		return -EINVAL;
	if (un->op > WSD_SYNC_OP_LAST)
		return -EOPNOTSUPP;
	if (un->nr_preds > WSCHED_MAX_PREDS)
		return -E2BIG;
	*sqe = (struct wsched_sqe){
		.op = un->op,
		.flags = un->flags,
		.user_data = un->user_data,
		.arg = un->arg[0],
		.off = un->arg[1],
		.len = un->arg[2],
		.nr_preds = un->nr_preds,
	};
	if (!un->nr_preds) {
		if (un->preds_ptr)
			return -EINVAL;
	} else if (un->nr_preds == 1) {
		/* An entry carries its one predecessor inline. */
		if (get_user(sqe->pred, (u32 __user *)u64_to_user_ptr(un->preds_ptr)))
			return -EFAULT;
	} else {
		sqe->preds_ptr = un->preds_ptr;
	}
	return 0;
}

/*
 * Stage a graph: every node becomes an entry, checked and staged as the
 * rings' are; every user byte is read once, and the whole graph is
 * staged before anything runs.  The build is the caller's.
 */
static int wsd_sync_stage(struct wsd_ctx *ctx, struct wsd_build *build,
			  const struct wsched_node *unodes, u32 nr)
{
	struct wsched_sqe sqe;
	u32 i;
	int ret;

	for (i = 0; i < nr; i++) {
		ret = wsd_node_to_sqe(&unodes[i], &sqe);
		if (!ret)
			ret = wsd_stage_sqe(ctx, build, &sqe, wsd_nodes_limit());
		if (ret)
			return ret;
	}
	return 0;
}

static bool wsd_sync_finished(void *arg)
{
	struct wsd_graph *graph = arg;

	/* Pairs with the release in wsd_graph_done(). */
	return smp_load_acquire(&graph->finished);
}

/*
 * Wait for a synchronous graph.  A signal cancels what has not started
 * (the graph still finishes: running nodes complete, the others post
 * -ECANCELED) and gives -EINTR; the freezer's wake-up at suspend is not a
 * signal: the caller freezes and goes on waiting.  Return 0 once the
 * graph has finished, or -EINTR: then the graph has finished too, unless
 * a fatal signal came (wsd_sync_finished() tells).
 */
static int wsd_sync_wait(struct wsd_graph *graph)
{
	for (;;) {
		/*
		 * Pairs with wake_up_var() after the release in
		 * wsd_graph_done().  TASK_FREEZABLE: the freezer may freeze
		 * us in this sleep; we hold no lock.
		 */
		if (!___wait_var_event(&graph->finished,
				       wsd_sync_finished(graph),
				       (TASK_INTERRUPTIBLE | TASK_FREEZABLE), 0, 0,
				       schedule()))
			return 0;
		if (!try_to_freeze())
			break;
	}
	/* Read by nodes as they start. */
	WRITE_ONCE(graph->aborted, true);
	/*
	 * Run what is left: cancelled now, so it ends soon, and the pool
	 * may have no thread (none can be made while our signal is
	 * pending).  Between rounds sleep killable, never uninterruptibly.
	 * A fatal signal ends the wait before the graph has finished: the
	 * caller then writes no results (the process is going away) and
	 * drops its reference; the graph's running reference keeps the
	 * block until it completes, and the file's release runs the rest.
	 */
	while (!wsd_sync_finished(graph) && !fatal_signal_pending(current)) {
		wsd_help(graph->group.pool, wsd_sync_finished, graph, true);
		if (!wsd_sync_finished(graph))
			schedule_timeout_killable(1);
	}
	return -EINTR;
}

/*
 * Copy the results out through @res, a buffer of graph->nr results that
 * the caller allocated before the graph ran: once it has run, nothing
 * may fail for lack of memory, or the caller would be told the graph was
 * refused after its nodes ran.
 */
static int wsd_copy_results(const struct wsd_graph *graph,
			    struct wsched_result *res, u64 uptr)
{
	u32 i, nr = graph->nr;

	memset(res, 0, array_size(nr, sizeof(*res)));
	for (i = 0; i < nr; i++) {
		const struct wsched_cqe *cqe = &graph->nodes[i].slot.cqe;

		res[i].user_data = cqe->user_data;
		res[i].res = cqe->res;
		res[i].flags = cqe->flags;
		res[i].seq = cqe->seq;
	}
	if (copy_to_user(u64_to_user_ptr(uptr), res,
			 array_size(nr, sizeof(*res))))
		return -EFAULT;
	return 0;
}

/**
 * wsd_submit_graph - WSCHED_IOC_SUBMIT_GRAPH: run a graph and wait for it
 * @ctx: the context
 * @arg: user address of struct wsched_graph
 *
 * A thin wrapper over the graph engine: the graph is staged like ring
 * entries, built into one graph block, run by the caller in the
 * context's pool (with help from its workers), and its results copied
 * out.  A signal cancels the nodes that have not started.
 *
 * Return: 0, -EINTR (the results say what ran), or the errno that refused
 * the graph (nothing ran).
 */
long wsd_submit_graph(struct wsd_ctx *ctx, void __user *arg)
{
	struct wsd_build build = {};
	struct wsched_result *res = NULL;
	struct wsched_node *unodes;
	struct wsched_graph ug;
	struct wsd_graph *graph;
	struct ws_pool *pool;
	int ret, ret2;

	if (copy_from_user(&ug, arg, sizeof(ug)))
		return -EFAULT;
	if (ug.size != sizeof(ug) ||
	    ug.node_size != sizeof(struct wsched_node) ||
	    ug.result_size != sizeof(struct wsched_result) ||
	    (ug.flags & ~WSCHED_GRAPH_FLAGS) || !wsd_zero(ug.resv, sizeof(ug.resv)))
		return -EINVAL;
	if (!ug.nr_nodes)
		return -EINVAL;
	if (ug.nr_nodes > wsd_nodes_limit())
		return -E2BIG;
	pool = wsd_ctx_pool(ctx);
	if (IS_ERR(pool))
		return PTR_ERR(pool);

	unodes = kvmalloc_array(ug.nr_nodes, sizeof(*unodes), GFP_KERNEL_ACCOUNT);
	if (!unodes)
		return -ENOMEM;
	if (copy_from_user(unodes, u64_to_user_ptr(ug.nodes_ptr),
			   array_size(ug.nr_nodes, sizeof(*unodes)))) {
		ret = -EFAULT;
		goto out;
	}
	ret = wsd_sync_stage(ctx, &build, unodes, ug.nr_nodes);
	if (ret)
		goto out;
	/* The last check before anything runs: the results must be writable. */
	if (clear_user(u64_to_user_ptr(ug.results_ptr),
		       array_size(ug.nr_nodes, sizeof(struct wsched_result)))) {
		ret = -EFAULT;
		goto out;
	}
	/*
	 * Before the graph is built: failing to allocate the results after
	 * it ran would refuse a graph that ran (the fault_test selftest's
	 * SUBMIT_GRAPH sweep found it).
	 */
	res = kvmalloc_array(ug.nr_nodes, sizeof(*res), GFP_KERNEL_ACCOUNT);
	if (!res) {
		ret = -ENOMEM;
		goto out;
	}
	/*
	 * The block cache has one taker at a time: under ctx->lock, taken
	 * interruptibly as in wsd_submit().  Nothing ran yet, and zeroing
	 * the results again does no harm: the call can restart.
	 */
	if (mutex_lock_interruptible(&ctx->lock)) {
		ret = -ERESTARTSYS;
		goto out;
	}
	ctx->pool = pool;
	graph = wsd_graph_build(ctx, &build, 0, true);
	mutex_unlock(&ctx->lock);
	if (!graph) {
		ret = -ENOMEM;
		goto out;
	}

	wsd_graph_launch(graph, true, wsd_sync_finished, graph);
	ret = wsd_sync_wait(graph);
	/*
	 * Results are written even when interrupted, once the graph has
	 * finished: not after a fatal signal that ended the wait before.
	 * wsd_sync_finished()'s acquire makes the nodes' results visible.
	 */
	if (wsd_sync_finished(graph)) {
		ret2 = wsd_copy_results(graph, res, ug.results_ptr);
		if (!ret)
			ret = ret2;
	}
	wsd_graph_put(graph);
out:
	wsd_build_reset(&build, false);
	kvfree(res);
	kvfree(unodes);
	return ret;
}

/*
 * Threads that may run the caller's graphs: the CPUs it may use, or the
 * file's cap when lower (its pool makes them as its graphs need them).
 */
static u32 wsd_nr_workers(struct wsd_ctx *ctx)
{
	u32 cpus = cpumask_weight_and(current->cpus_ptr, cpu_online_mask);
	u32 cap = READ_ONCE(ctx->max_workers);

	return cap ? min(cap, cpus) : cpus;
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
	p.nr_workers = wsd_nr_workers(ctx);
	/* Snapshots: relaxed, as are the additions in wsd_graph_done(). */
	p.nodes_run = atomic64_read(&ctx->nodes_run);
	p.graphs_run = atomic64_read(&ctx->graphs_run);
	p.sqe_flags = WSCHED_SQE_FLAGS;
	p.max_inflight = wsd_inflight_limit();
	p.max_pinned = wsd_pinned_limit();
	/*
	 * What the caller may pin: RLIMIT_MEMLOCK binds too (rbuf.c).  The
	 * same check as the registration's capable(), without its audit
	 * record: asking what one may pin uses no privilege, and a probe
	 * per context would flood the audit log.
	 */
	if (!ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK))
		p.max_pinned = min_t(u64, p.max_pinned,
				     rlimit(RLIMIT_MEMLOCK) & PAGE_MASK);
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

/*
 * WSCHED_IOC_MAX_WORKERS: set (non-zero) or read (zero) the most threads
 * this file's graphs grow their process's pool to; answers the previous
 * value, as IORING_REGISTER_IOWQ_MAX_WORKERS does.
 */
static long wsd_max_workers(struct wsd_ctx *ctx, u32 __user *arg)
{
	u32 cap, old;

	if (get_user(cap, arg))
		return -EFAULT;
	if (mutex_lock_interruptible(&ctx->lock))
		return -ERESTARTSYS;
	old = ctx->max_workers;
	if (put_user(old, arg)) {
		mutex_unlock(&ctx->lock);
		return -EFAULT;
	}
	/* Read with READ_ONCE() by launches; a plain aligned store. */
	if (cap)
		WRITE_ONCE(ctx->max_workers, cap);
	mutex_unlock(&ctx->lock);
	return 0;
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
	case WSCHED_IOC_MAX_WORKERS:
		return wsd_max_workers(ctx, uarg);
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
	wsd_ctx_init(ctx);
	file->private_data = ctx;
	/* nonseekable_open() cannot fail. */
	atomic_inc(&wsd_nr_files);
	return nonseekable_open(inode, file);
}

static int wsd_release(struct inode *inode, struct file *file)
{
	struct wsd_ctx *ctx = file->private_data;

	wsd_ctx_release(ctx);
	kfree(ctx);
	atomic_dec(&wsd_nr_files);
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
