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
 * tearing its ring down cancels the nodes that have not started.
 *
 * The command's state (struct wsd_uring_pdu) lives in the pdu io_uring
 * keeps for it.  The graph holds a reference for the command from its
 * build until the command is completed.
 *
 * Documentation/uapi.rst, "io_uring commands", describes the ABI.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
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
 * The command's ring is going away (6.7+: IO_URING_F_CANCEL): cancel the
 * nodes that have not started, and run what is queued meanwhile, as the
 * file's release does (the pool's threads may be gone with a process
 * being killed).  io_uring calls this only while the command is not
 * completed: its reference keeps the graph.
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

static int wsd_uring_submit(struct io_uring_cmd *ioucmd,
			    unsigned int issue_flags)
{
	struct wsd_ctx *ctx = ioucmd->file->private_data;
	struct wsd_uring_pdu *pdu = wsd_uring_pdu(ioucmd);
	const struct wsched_uring_submit *uc;
	struct wsd_graph *graph;
	struct ws_pool *pool;
	u32 nr, flags;
	u64 resv;
	int res;

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
	/* Pairs with the release in wsd_setup(). */
	if (!smp_load_acquire(&ctx->rings_ready))
		return -EBADFD;
	pool = wsd_ctx_pool(ctx);
	if (IS_ERR(pool))
		return PTR_ERR(pool) == -ERESTARTSYS ? -EINTR : PTR_ERR(pool);
	graph = wsd_sq_submit(ctx, pool, nr, issue_flags & IO_URING_F_NONBLOCK,
			      wsd_uring_notify, ioucmd);
	if (IS_ERR(graph))
		return PTR_ERR(graph);

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
	return res;
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
	default:
		return -ENOTTY;
	}
}
