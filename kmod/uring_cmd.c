// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring commands on /dev/wsched: file_operations.uring_cmd.
 *
 * An io_uring SQE of op IORING_OP_URING_CMD aimed at a /dev/wsched file,
 * cmd_op WSCHED_URING_CMD_SUBMIT, names the graph at the head of that
 * file's wsched SQ (struct wsched_uring_submit.nr entries).  The entries
 * go the one way into the engine that ENTER's go (wsd_sq_submit(): staged
 * and checked by wsd_build_add(), built by the graph engine), and the
 * graph runs in the submitting process's pool.  Its nodes post their
 * completions to the wsched CQ as in any ring graph; the graph's own
 * completion becomes the command's io_uring CQE, so that the graph sits
 * in an io_uring link chain: its result is negative when a node failed or
 * did not run, which breaks the chain.
 *
 * A graph of cheap nodes (wsd_op_cheap()) is run by the issuer, which
 * then returns its result at once; any other is handed to the pool and
 * the command completes through io_uring_cmd_complete_in_task() from the
 * thread that finishes the graph.  From 6.7 such a command is cancelable:
 * tearing its ring down, or an execve() of a task that used the ring,
 * cancels the nodes that have not started.
 *
 * cmd_op WSCHED_URING_CMD_INLINE carries the graph itself, a few nodes
 * (struct wsched_uring_inline) in the 80-byte command area of an SQE of a
 * ring set up with IORING_SETUP_SQE128.  Its fields are read once and
 * checked, and its nodes, as the ring entries they stand for, go the same
 * way into the engine (wsd_inline_submit(): wsd_build_add(), then the
 * graph engine); the SQ is not touched.
 *
 * The command's state (struct wsd_uring_pdu) lives in the pdu io_uring
 * keeps for it.  The graph holds a reference for the command from its
 * build until the command is completed.
 *
 * Documentation/uapi.rst, "io_uring commands", describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include WS_IO_URING_CMD_H
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "wsd_ctx.h"
#include "wsd_graph.h"
#include "wsd_submit.h"
#include "wsd_uring.h"

/* Where a command is between its issue and its completion. */
enum {
	WSD_UC_ISSUING,		/* the issuer has not returned */
	WSD_UC_QUEUED,		/* the issuer returned -EIOCBQUEUED */
	WSD_UC_DONE,		/* the graph completed */
};

/**
 * struct wsd_uring_pdu - a command's state, in struct io_uring_cmd.pdu
 * @graph: its graph; the command holds a reference to it (set by the
 *	issuer before the graph is launched)
 * @state: WSD_UC_*: the issuer and the graph's completion each exchange
 *	it once (fully ordered); whoever comes second completes the command
 * @cancelable: marked with io_uring_cmd_mark_cancelable(): completed only
 *	through io_uring_cmd_done(), which takes it off io_uring's list
 */
struct wsd_uring_pdu {
	struct wsd_graph *graph;
	atomic_t state;
	bool cancelable;
};

static struct wsd_uring_pdu *wsd_uring_pdu(struct io_uring_cmd *ioucmd)
{
	BUILD_BUG_ON(sizeof(struct wsd_uring_pdu) > sizeof(ioucmd->pdu));
	return (struct wsd_uring_pdu *)ioucmd->pdu;
}

/*
 * The command's result, from the graph's completion (written before the
 * exchange of @state that let us here): the first failure, -ECANCELED if
 * nodes did not run (cancelled, or the file is being released), else the
 * number of nodes.
 */
static int wsd_uring_result(const struct wsd_graph *graph)
{
	const struct wsched_cqe *cqe = &graph->slot.cqe;

	if (cqe->res)
		return cqe->res;
	if (cqe->value < graph->nr)
		return -ECANCELED;
	return cqe->value;
}

/* Task work of the submitting task: complete the command. */
static void wsd_uring_complete(struct io_uring_cmd *ioucmd,
			       unsigned int issue_flags)
{
	struct wsd_graph *graph = wsd_uring_pdu(ioucmd)->graph;
	int res = wsd_uring_result(graph);

	/* The command's reference: before io_uring drops the file's. */
	wsd_graph_put(graph);
	ws_uring_cmd_done(ioucmd, res, issue_flags);
}

/* The graph completed (struct wsd_graph.notify), on any thread. */
static void wsd_uring_notify(struct wsd_graph *graph)
{
	struct io_uring_cmd *ioucmd = graph->owner;
	struct wsd_uring_pdu *pdu = wsd_uring_pdu(ioucmd);

	/*
	 * Fully ordered, pairs with the issuer's exchange: the one that
	 * comes second completes the command, and sees the graph's result
	 * written before the first.  While the issuer runs, it completes.
	 */
	if (atomic_xchg(&pdu->state, WSD_UC_DONE) == WSD_UC_ISSUING)
		return;
	io_uring_cmd_complete_in_task(ioucmd, wsd_uring_complete);
}

static bool wsd_uring_done(void *arg)
{
	struct wsd_uring_pdu *pdu = arg;

	/* A hint for helping: the exchanges decide who completes. */
	return atomic_read(&pdu->state) == WSD_UC_DONE;
}

/*
 * The command's ring is going away, or a task that used it execs (6.7+:
 * IO_URING_F_CANCEL, from the ring's exit work or the exec'ing task's
 * io_uring_task_cancel()): cancel the nodes that have not started, and
 * run what is queued meanwhile, as the file's release does (the pool's
 * threads may be gone with a process being killed).  io_uring calls
 * this only while the command is not completed: its reference keeps the
 * graph.
 */
static int wsd_uring_cancel(struct io_uring_cmd *ioucmd)
{
	struct wsd_uring_pdu *pdu = wsd_uring_pdu(ioucmd);
	struct wsd_graph *graph = pdu->graph;

	/* Read by nodes as they start; a hint, as for a waiter's abort. */
	WRITE_ONCE(graph->aborted, true);
	if (!wsd_uring_done(pdu))
		wsd_help(graph->group.pool, wsd_uring_done, pdu, true);
	return 0;
}

/*
 * Run @graph, which wsd_sq_submit() or wsd_inline_submit() built for the
 * command, and complete the command or leave it to the graph's end.
 */
static int wsd_uring_launch(struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags, struct wsd_graph *graph)
{
	struct wsd_uring_pdu *pdu = wsd_uring_pdu(ioucmd);
	int res;

	pdu->graph = graph;
	atomic_set(&pdu->state, WSD_UC_ISSUING);
	/*
	 * Before the graph can complete: once marked, the command must be
	 * completed by io_uring_cmd_done(), which unmarks it.  A graph of
	 * cheap nodes is over too soon to be worth cancelling.
	 */
	pdu->cancelable = WS_URING_CMD_CANCEL && !graph->cheap;
	if (pdu->cancelable)
		ws_uring_cmd_mark_cancelable(ioucmd, issue_flags);
	/*
	 * Cheap nodes run here; the others go to the pool's workers, unless
	 * this is one of io_uring's threads (io-wq, which issues a command
	 * linked after a request it ran, or SQPOLL): those may block, and
	 * may not make the pool's threads (ws_user_grow()), so they run the
	 * graph themselves, helped by the threads the pool has.
	 */
	wsd_graph_launch(graph, graph->cheap || (current->flags & PF_IO_WORKER),
			 wsd_uring_done, pdu);
	/* Fully ordered, pairs with the exchange in wsd_uring_notify(). */
	if (atomic_xchg(&pdu->state, WSD_UC_QUEUED) != WSD_UC_DONE)
		return -EIOCBQUEUED;
	if (pdu->cancelable) {
		io_uring_cmd_complete_in_task(ioucmd, wsd_uring_complete);
		return -EIOCBQUEUED;
	}
	res = wsd_uring_result(graph);
	wsd_graph_put(graph);
	/*
	 * 6.1's io_uring_cmd() takes any return but 0 and -EIOCBQUEUED for
	 * a failure: a positive result would complete the command as
	 * failed and cancel the requests linked after it.  Complete it
	 * through io_uring_cmd_done() instead, as ublk does, on every
	 * kernel.  An error is returned: it breaks the links as it should.
	 */
	if (res > 0) {
		ws_uring_cmd_done(ioucmd, res, issue_flags);
		return -EIOCBQUEUED;
	}
	return res;
}

/* The file's rings and the submitter's pool, or an errno. */
static struct ws_pool *wsd_uring_pool(struct wsd_ctx *ctx)
{
	struct ws_pool *pool;

	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return ERR_PTR(-EBADFD);
	pool = wsd_ctx_pool(ctx);
	if (PTR_ERR_OR_ZERO(pool) == -ERESTARTSYS)
		return ERR_PTR(-EINTR);
	return pool;
}

static int wsd_uring_submit(struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags)
{
	struct wsd_ctx *ctx = ioucmd->file->private_data;
	const struct wsched_uring_submit *uc;
	struct wsd_graph *graph;
	struct ws_pool *pool;
	u32 nr, flags;
	u64 resv;

	/*
	 * The payload may still be in the SQ ring, which user space writes
	 * (6.1 copies it only when the command goes async): each field is
	 * read once.
	 */
	uc = ws_uring_cmd_payload(ioucmd);
	nr = READ_ONCE(uc->nr);
	flags = READ_ONCE(uc->flags);
	resv = READ_ONCE(uc->resv);
	if (flags || resv)
		return -EINVAL;
	pool = wsd_uring_pool(ctx);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	graph = wsd_sq_submit(ctx, pool, nr, issue_flags & IO_URING_F_NONBLOCK,
			      wsd_uring_notify, ioucmd);
	if (IS_ERR(graph))
		return PTR_ERR(graph);
	return wsd_uring_launch(ioucmd, issue_flags, graph);
}

/*
 * Read node @i of the payload once into @in and check what only an
 * inline node has (its reserved field, flags, predecessor mask); the rest
 * is the ring entry's, checked by wsd_build_add().  A node from @nr on
 * must be all zero.  Return 0 or -EINVAL.
 */
static int wsd_uring_inode(const struct wsched_uring_inode *un, u32 i,
			   u32 nr, u32 tag, struct wsd_inline_graph *in)
{
	struct wsched_sqe *sqe = &in->sqes[i];
	u32 op, flags, preds, buf, buf2, resv, off, len, npreds, p;
	u64 arg;

	op = READ_ONCE(un->op);
	flags = READ_ONCE(un->flags);
	preds = READ_ONCE(un->preds);
	buf = READ_ONCE(un->buf);
	buf2 = READ_ONCE(un->buf2);
	resv = READ_ONCE(un->resv);
	off = READ_ONCE(un->off);
	len = READ_ONCE(un->len);
	arg = READ_ONCE(un->arg);
	if (i >= nr) {
		if (op || flags || preds || buf || buf2 || resv || off ||
		    len || arg)
			return -EINVAL;
		return 0;
	}
	/* Only lower nodes precede: acyclic by construction. */
	if (resv || (flags & ~WSCHED_URING_INODE_FLAGS) || preds >> i)
		return -EINVAL;
	npreds = 0;
	for (p = 0; p < i; p++)
		if (preds & BIT(p))
			in->preds[i][npreds++] = p;
	*sqe = (struct wsched_sqe){
		.op = op,
		.flags = flags,
		.user_data = (u64)tag << 32 | i,
		.buf = buf,
		.buf2 = buf2,
		.off = off,
		.len = len,
		.arg = arg,
		.nr_preds = npreds,
		.pred = npreds == 1 ? in->preds[i][0] : 0,
	};
	/* As the end entry of a graph in the SQ. */
	if (i + 1 == nr)
		sqe->flags |= WSCHED_SQE_GRAPH_END;
	return 0;
}

/*
 * WSCHED_URING_CMD_INLINE: the graph is in the command's 80-byte area.
 * Everything is read once and checked before anything is staged.
 */
static int wsd_uring_inline(struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags)
{
	struct wsd_ctx *ctx = ioucmd->file->private_data;
	const struct wsched_uring_inline *uc;
	struct wsd_inline_graph in;
	struct wsd_graph *graph;
	struct ws_pool *pool;
	u32 version, nr, flags, tag, i;
	int ret;

	BUILD_BUG_ON(sizeof(*uc) != 80);
	/*
	 * A 64-byte SQE has 16 bytes of command: the payload would run into
	 * the next SQE (or past io_uring's copy of the command).
	 */
	if (!(issue_flags & IO_URING_F_SQE128))
		return -EINVAL;
	/* In the SQ ring, which user space writes: each field read once. */
	uc = ws_uring_cmd_payload(ioucmd);
	version = READ_ONCE(uc->version);
	nr = READ_ONCE(uc->nr);
	flags = READ_ONCE(uc->flags);
	tag = READ_ONCE(uc->tag);
	if (version != WSCHED_URING_INLINE_V1 || flags || !nr)
		return -EINVAL;
	if (nr > WSCHED_URING_INLINE_MAX)
		return -E2BIG;
	in.nr = nr;
	for (i = 0; i < WSCHED_URING_INLINE_MAX; i++) {
		ret = wsd_uring_inode(&uc->nodes[i], i, nr, tag, &in);
		if (ret)
			return ret;
	}
	pool = wsd_uring_pool(ctx);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	graph = wsd_inline_submit(ctx, pool, &in,
				  issue_flags & IO_URING_F_NONBLOCK,
				  wsd_uring_notify, ioucmd);
	if (IS_ERR(graph))
		return PTR_ERR(graph);
	return wsd_uring_launch(ioucmd, issue_flags, graph);
}

/**
 * wsd_uring_cmd - file_operations.uring_cmd of /dev/wsched
 * @ioucmd: the command
 * @issue_flags: io_uring's IO_URING_F_* flags for this issue
 *
 * Context: task context of the submitter, an io-wq worker or an SQPOLL
 * thread (all threads of the submitting process); with IO_URING_F_CANCEL,
 * whoever tears the ring down.
 * Return: the command's result when it completed inline, -EIOCBQUEUED
 * when it completes later, -EAGAIN to be issued again from io-wq, or a
 * negative errno that refused it (nothing ran).
 */
int wsd_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags)
{
	if (issue_flags & WS_IO_URING_F_CANCEL)
		return wsd_uring_cancel(ioucmd);
	/* Fixed buffers (IORING_URING_CMD_FIXED) mean nothing here yet. */
	if (ioucmd->flags)
		return -EINVAL;
	switch (ioucmd->cmd_op) {
	case WSCHED_URING_CMD_SUBMIT:
		return wsd_uring_submit(ioucmd, issue_flags);
	case WSCHED_URING_CMD_INLINE:
		return wsd_uring_inline(ioucmd, issue_flags);
	default:
		return -ENOTTY;
	}
}
