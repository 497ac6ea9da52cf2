// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched: user space submits task graphs, run by the graph engine
 * (graph.c) in the worker set of the submitting process (proc.c).
 *
 * This file has the device: its file operations, the module parameters,
 * WSCHED_IOC_PROBE and the operation lookups.  Each open file is a
 * context (ctx.c); the rest is rings.c (setup, mmap), submit.c (ENTER and
 * WSCHED_IOC_SUBMIT_GRAPH), cq.c (completions, poll), rbuf.c (registered
 * buffers) and opdef.c (the operations).
 *
 * Documentation/uapi.rst describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/capability.h>
#include <linux/compat.h>
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
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "ws_op.h"
#include "wsd_cq.h"
#include "wsd_ctx.h"
#include "wsd_dev.h"
#include "wsd_rbuf.h"
#include "wsd_uring.h"

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
		     WSCHED_FEAT_BUFFERS | WSCHED_FEAT_OP_NAMES |
		     WSCHED_FEAT_URING_CMD |
		     WSCHED_FEAT_URING_INLINE;
	p.node_flags = WSCHED_NODE_FLAGS;
	p.graph_flags = WSCHED_GRAPH_FLAGS;
	p.max_nodes = wsd_nodes_limit();
	p.max_preds = WSCHED_MAX_PREDS;
	p.max_spin = WSCHED_SPIN_MAX;
	p.nr_workers = wsd_ctx_nr_workers(ctx);
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
		return wsd_ctx_max_workers(ctx, uarg);
	default:
		return -ENOTTY;
	}
}

static int wsd_open(struct inode *inode, struct file *file)
{
	struct wsd_ctx *ctx;

	ctx = wsd_ctx_create();
	if (!ctx)
		return -ENOMEM;
	file->private_data = ctx;
	/* nonseekable_open() cannot fail. */
	atomic_inc(&wsd_nr_files);
	return nonseekable_open(inode, file);
}

static int wsd_release(struct inode *inode, struct file *file)
{
	struct wsd_ctx *ctx = file->private_data;

	wsd_ctx_destroy(ctx);
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
	.uring_cmd	= wsd_uring_cmd,
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
	/* The payload of an io_uring command fits a 64-byte SQE's cmd area. */
	BUILD_BUG_ON(sizeof(struct wsched_uring_submit) != 16);
	BUILD_BUG_ON(offsetof(struct wsched_uring_submit, flags) != 4);
	BUILD_BUG_ON(offsetof(struct wsched_uring_submit, resv) != 8);
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
