/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libwsched: submit task graphs to /dev/wsched through its mmap'ed rings.
 *
 * The ABI is <linux/wsched.h> (kmod/include/uapi/linux/wsched.h in the
 * wsched tree); the ring semantics are in Documentation/uapi.rst.
 *
 * Conventions (those of liburing):
 * - functions that can fail return a negative errno value (-EINVAL ...),
 *   never -1 with errno;
 * - a struct wsched_ring is not thread-safe: use one per thread, or lock;
 * - prep helpers clear the whole entry first, so set user_data, flags and
 *   predecessors after the prep call.
 *
 * Nodes are numbered from 0 within their graph, in submission order; a
 * graph ends with the entry marked by wsched_sqe_set_graph_end().
 * wsched_graph_node() hands out an entry together with its node number.
 */
#ifndef LIBWSCHED_H
#define LIBWSCHED_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <linux/wsched.h>

#ifdef __cplusplus
extern "C" {
#endif

#define LIBWSCHED_VERSION_MAJOR	1
#define LIBWSCHED_VERSION_MINOR	0

/* The device wsched_queue_init() opens. */
#define WSCHED_DEVICE		"/dev/wsched"

/* Submission ring, as mapped, plus the library's own state. */
struct wsched_sq {
	unsigned int *khead;		/* written by the kernel */
	unsigned int *ktail;		/* written by us */
	unsigned int ring_mask;
	unsigned int ring_entries;
	struct wsched_sqe *sqes;
	unsigned int sqe_tail;		/* next entry to hand out */
	unsigned int sqe_head;		/* first entry not yet published */
	unsigned int graph_nodes;	/* entries handed out in the open graph */
	struct wsched_sqe *last;	/* entry handed out last, or NULL */
	void *ring_ptr;
	size_t ring_sz;
};

/* Completion ring, as mapped. */
struct wsched_cq {
	unsigned int *khead;		/* written by us */
	unsigned int *ktail;		/* written by the kernel */
	unsigned int *koverflow;	/* written by the kernel */
	unsigned int ring_mask;
	unsigned int ring_entries;
	struct wsched_cqe *cqes;
	void *ring_ptr;
	size_t ring_sz;
};

struct wsched_ring {
	int fd;
	unsigned int setup_flags;
	__u64 features;			/* WSCHED_FEAT_* */
	struct wsched_sq sq;
	struct wsched_cq cq;
	unsigned int last_submitted;	/* entries the last ENTER consumed */
};

/* Setup and teardown ----------------------------------------------------- */

/*
 * Open /dev/wsched, create an SQ of @entries (rounded up to a power of two)
 * and a CQ twice as large, and map both.  @flags: WSCHED_SETUP_CLAMP or 0.
 * Returns 0 or a negative errno (-ENOENT: no /dev/wsched, module not
 * loaded; -EACCES: not allowed; -EINVAL: bad size).
 */
int wsched_queue_init(unsigned int entries, struct wsched_ring *ring,
		      unsigned int flags);

/*
 * The same, with the whole setup argument: @p->flags and @p->cq_entries
 * (0: twice @entries) are read; on success the kernel's answer (ring sizes,
 * features, layout) is written back to @p.
 */
int wsched_queue_init_params(unsigned int entries, struct wsched_ring *ring,
			     struct wsched_setup *p);

/* Unmap the rings and close the file (in-flight graphs are cancelled). */
void wsched_queue_exit(struct wsched_ring *ring);

/* The ring's file descriptor, for poll(2)/epoll (EPOLLIN: CQ not empty). */
static inline int wsched_ring_fd(const struct wsched_ring *ring)
{
	return ring->fd;
}

/* Submission -------------------------------------------------------------- */

/* SQ slots free for wsched_get_sqe(). */
static inline unsigned int wsched_sq_space_left(const struct wsched_ring *ring)
{
	/* Acquire: pairs with the kernel's release store of the SQ head after
	 * it has copied the entries below it; only then may they be reused.
	 */
	unsigned int head = __atomic_load_n(ring->sq.khead, __ATOMIC_ACQUIRE);

	return ring->sq.ring_entries - (ring->sq.sqe_tail - head);
}

/* Entries prepared but not yet published by wsched_submit*(). */
static inline unsigned int wsched_sq_ready(const struct wsched_ring *ring)
{
	return ring->sq.sqe_tail - ring->sq.sqe_head;
}

/*
 * The next free SQ entry, or NULL if the SQ is full (submit, then try
 * again).  The entry holds stale data: prepare it with a wsched_prep_*()
 * helper.  It is published by the next wsched_submit*().
 */
static inline struct wsched_sqe *wsched_get_sqe(struct wsched_ring *ring)
{
	struct wsched_sq *sq = &ring->sq;
	unsigned int head = __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
	struct wsched_sqe *sqe;

	/* The acquire load above pairs with the kernel's release store of
	 * the SQ head: slots below it have been copied and may be reused.
	 */
	if (sq->sqe_tail - head >= sq->ring_entries)
		return NULL;
	/* Node numbering: a new graph starts after an end entry.  The flags
	 * of the previous entry are final once the caller asks for the next.
	 */
	if (sq->last && (sq->last->flags & WSCHED_SQE_GRAPH_END))
		sq->graph_nodes = 0;
	sqe = &sq->sqes[sq->sqe_tail & sq->ring_mask];
	sq->sqe_tail++;
	sq->graph_nodes++;
	sq->last = sqe;
	return sqe;
}

/*
 * Node number, within its graph, of the entry wsched_get_sqe() returned
 * last (valid while its GRAPH_END flag is not changed).
 */
static inline __u32 wsched_last_node(const struct wsched_ring *ring)
{
	return ring->sq.graph_nodes - 1;
}

/*
 * wsched_get_sqe() that also stores the entry's node number in @node (if
 * not NULL), for use as a predecessor of later nodes of the same graph.
 */
static inline struct wsched_sqe *wsched_graph_node(struct wsched_ring *ring,
						   __u32 *node)
{
	struct wsched_sqe *sqe = wsched_get_sqe(ring);

	if (sqe && node)
		*node = wsched_last_node(ring);
	return sqe;
}

/*
 * Publish the prepared entries and hand them to the kernel (no wait).
 * Entries a previous call left in the SQ (-EAGAIN, -EBUSY) go too.
 * Returns the number of entries the kernel consumed, or a negative errno:
 *   the error of a graph the kernel refused (-EINVAL, -E2BIG, -ERANGE,
 *	-EOPNOTSUPP, ...): its entries were consumed and none of its nodes
 *	runs; graphs before it started; wsched_last_submitted() counts them;
 *   -EBUSY: completions are held back (CQ was full): reap the CQ, retry;
 *   -EAGAIN: too many nodes in flight: reap completions, retry;
 *   -EINTR.
 */
int wsched_submit(struct wsched_ring *ring);

/*
 * wsched_submit() that then waits until at least @wait_nr completions are
 * ready (held-back ones count).  Same returns, plus -ETIME never (no
 * timeout) and -EINTR on a signal.
 */
int wsched_submit_and_wait(struct wsched_ring *ring, unsigned int wait_nr);

/*
 * io_uring ----------------------------------------------------------------
 *
 * Prepare @sqe, an io_uring SQE (liburing's io_uring_get_sqe() gives one;
 * its struct is the kernel's, <linux/io_uring.h>), as an
 * IORING_OP_URING_CMD that runs the graph prepared on @ring since the last
 * submit: publishes those entries (without ENTER) and returns their
 * number, or -EINVAL if there are none or the last one does not end a
 * graph (wsched_sqe_set_graph_end()).  The io_uring CQE's res is the
 * graph's: the first failure, -ECANCELED if nodes did not run, else the
 * number of nodes.  Set the SQE's flags (IOSQE_IO_LINK ...) and user_data
 * after this call.  Commands take their graphs from the SQ's head in the
 * order io_uring issues them: link them, or have one in flight at a time.
 * Needs WSCHED_FEAT_URING_CMD (wsched_probe()).
 */
struct io_uring_sqe;
int wsched_prep_uring_cmd(struct io_uring_sqe *sqe, struct wsched_ring *ring);

/*
 * Prepare @sqe, an SQE of an io_uring set up with IORING_SETUP_SQE128
 * (128 bytes: the payload fills its 80-byte cmd area), as an
 * IORING_OP_URING_CMD that carries a graph of @nr (1..
 * WSCHED_URING_INLINE_MAX) nodes itself: @nodes, prepared with the
 * wsched_prep_*() and wsched_sqe_set_*() helpers on the caller's own array
 * (not the ring's SQ; WSCHED_SQE_GRAPH_END is implied).  Node i's wsched
 * completion carries user_data ((__u64)@tag << 32 | i): the nodes' own
 * user_data cannot be carried.  Returns @nr, or -EINVAL (bad @nr, a flag
 * other than SOFT_FAIL, NO_CQE or GRAPH_END, a user_data set, a
 * predecessor not below its node), -ERANGE (a buffer index above 255 or
 * an offset or length above 32 bits, which the payload cannot carry); the
 * kernel checks the rest.  Needs WSCHED_FEAT_URING_INLINE.
 */
int wsched_prep_uring_inline(struct io_uring_sqe *sqe, struct wsched_ring *ring,
			     const struct wsched_sqe *nodes, unsigned int nr,
			     __u32 tag);

/* Entries the last submit call consumed (also after an error). */
static inline unsigned int wsched_last_submitted(const struct wsched_ring *ring)
{
	return ring->last_submitted;
}

/* Preparing entries ------------------------------------------------------- */

static inline void wsched_prep_rw(struct wsched_sqe *sqe, __u32 op,
				  __u32 buf, __u64 off, __u64 len,
				  __u32 buf2, __u64 arg)
{
	memset(sqe, 0, sizeof(*sqe));
	sqe->op = op;
	sqe->buf = buf;
	sqe->off = off;
	sqe->len = len;
	sqe->buf2 = buf2;
	sqe->arg = arg;
}

/* Any operation, e.g. one a module registered (see wsched_op_lookup()). */
static inline void wsched_prep_op(struct wsched_sqe *sqe, __u32 op,
				  __u32 buf, __u64 off, __u64 len,
				  __u32 buf2, __u64 arg)
{
	wsched_prep_rw(sqe, op, buf, off, len, buf2, arg);
}

static inline void wsched_prep_nop(struct wsched_sqe *sqe)
{
	wsched_prep_rw(sqe, WSCHED_OP_NOP, 0, 0, 0, 0, 0);
}

/* Busy-loop @iterations (at most WSCHED_SPIN_MAX). */
static inline void wsched_prep_spin(struct wsched_sqe *sqe, __u32 iterations)
{
	wsched_prep_rw(sqe, WSCHED_OP_SPIN, 0, 0, 0, 0, iterations);
}

/* Fail with res -@err (@err: a positive errno, 1..4095). */
static inline void wsched_prep_fail(struct wsched_sqe *sqe, int err)
{
	wsched_prep_rw(sqe, WSCHED_OP_FAIL, 0, 0, 0, 0, (__u64)err);
}

/* Copy (@sbuf, @soff, @len) to (@dbuf, @doff, @len). */
static inline void wsched_prep_memcpy(struct wsched_sqe *sqe,
				      __u32 dbuf, __u64 doff,
				      __u32 sbuf, __u64 soff, __u64 len)
{
	wsched_prep_rw(sqe, WSCHED_OP_MEMCPY, dbuf, doff, len, sbuf, soff);
}

/* Fill (@buf, @off, @len) with @byte. */
static inline void wsched_prep_memset(struct wsched_sqe *sqe, __u32 buf,
				      __u64 off, __u64 len, __u8 byte)
{
	wsched_prep_rw(sqe, WSCHED_OP_MEMSET, buf, off, len, 0, byte);
}

/* value: -1, 0 or 1 (as __s64): memcmp() of (@buf, @off) and (@buf2, @off2). */
static inline void wsched_prep_memcmp(struct wsched_sqe *sqe,
				      __u32 buf, __u64 off,
				      __u32 buf2, __u64 off2, __u64 len)
{
	wsched_prep_rw(sqe, WSCHED_OP_MEMCMP, buf, off, len, buf2, off2);
}

/*
 * value: the raw CRC-32C of (@buf, @off, @len) starting from @seed, no final
 * inversion.  The standard CRC-32C is ~value with @seed 0xFFFFFFFF; see
 * wsched_crc32c_sw().
 */
static inline void wsched_prep_crc32c(struct wsched_sqe *sqe, __u32 buf,
				      __u64 off, __u64 len, __u32 seed)
{
	wsched_prep_rw(sqe, WSCHED_OP_CRC32C, buf, off, len, 0, seed);
}

/* value: XXH64 of (@buf, @off, @len) with @seed. */
static inline void wsched_prep_xxhash64(struct wsched_sqe *sqe, __u32 buf,
					__u64 off, __u64 len, __u64 seed)
{
	wsched_prep_rw(sqe, WSCHED_OP_XXHASH64, buf, off, len, 0, seed);
}

/* Write the 32-byte SHA-256 digest of (@buf, @off, @len) to (@dbuf, @doff). */
static inline void wsched_prep_sha256(struct wsched_sqe *sqe, __u32 buf,
				      __u64 off, __u64 len,
				      __u32 dbuf, __u64 doff)
{
	wsched_prep_rw(sqe, WSCHED_OP_SHA256, buf, off, len, dbuf, doff);
}

static inline void wsched_sqe_set_data64(struct wsched_sqe *sqe, __u64 data)
{
	sqe->user_data = data;
}

static inline void wsched_sqe_set_data(struct wsched_sqe *sqe, void *data)
{
	sqe->user_data = (__u64)(uintptr_t)data;
}

/* Add WSCHED_NODE_SOFT_FAIL, WSCHED_SQE_NO_CQE and/or WSCHED_SQE_GRAPH_END. */
static inline void wsched_sqe_set_flags(struct wsched_sqe *sqe, __u32 flags)
{
	sqe->flags |= flags;
}

/* A failure of this node does not cancel its dependents. */
static inline void wsched_sqe_set_soft_fail(struct wsched_sqe *sqe)
{
	sqe->flags |= WSCHED_NODE_SOFT_FAIL;
}

/* Post no completion for this node (its graph's completion still comes). */
static inline void wsched_sqe_set_no_cqe(struct wsched_sqe *sqe)
{
	sqe->flags |= WSCHED_SQE_NO_CQE;
}

/* Last node of its graph: at submission the graph is checked and started. */
static inline void wsched_sqe_set_graph_end(struct wsched_sqe *sqe)
{
	sqe->flags |= WSCHED_SQE_GRAPH_END;
}

/*
 * The node's predecessors: @n node numbers of the same graph, each lower
 * than the node's own.  One is stored inline; for more, the entry points
 * at @preds, which must stay valid (and unchanged) until the entry has
 * been submitted.  Returns 0, or -E2BIG above WSCHED_MAX_PREDS.
 */
static inline int wsched_sqe_set_preds(struct wsched_sqe *sqe,
				       const __u32 *preds, unsigned int n)
{
	if (n > WSCHED_MAX_PREDS)
		return -E2BIG;
	sqe->nr_preds = n;
	sqe->pred = n == 1 ? preds[0] : 0;
	sqe->preds_ptr = n > 1 ? (__u64)(uintptr_t)preds : 0;
	return 0;
}

/* One predecessor. */
static inline void wsched_sqe_set_pred(struct wsched_sqe *sqe, __u32 pred)
{
	sqe->nr_preds = 1;
	sqe->pred = pred;
	sqe->preds_ptr = 0;
}

/* Completion -------------------------------------------------------------- */

/* Completions ready in the CQ. */
static inline unsigned int wsched_cq_ready(const struct wsched_ring *ring)
{
	/* Acquire: pairs with the kernel's release store of the CQ tail
	 * after it has written the entries below it.
	 */
	return __atomic_load_n(ring->cq.ktail, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(ring->cq.khead, __ATOMIC_RELAXED);
}

/* Completions ever held back because the CQ was full (none is lost). */
static inline unsigned int wsched_cq_overflow(const struct wsched_ring *ring)
{
	return __atomic_load_n(ring->cq.koverflow, __ATOMIC_RELAXED);
}

/*
 * The oldest completion, without waiting; 0 and *@cqe_ptr, or -EAGAIN if
 * the CQ is empty.  Completions held back while the CQ was full reach it
 * at the next wsched_submit*() or wsched_wait_cqe*().
 */
static inline int wsched_peek_cqe(struct wsched_ring *ring,
				  struct wsched_cqe **cqe_ptr)
{
	struct wsched_cq *cq = &ring->cq;
	unsigned int head = __atomic_load_n(cq->khead, __ATOMIC_RELAXED);
	/* Acquire: pairs with the kernel's release store of the CQ tail, so
	 * the entry below it is fully written before we read it.
	 */
	unsigned int tail = __atomic_load_n(cq->ktail, __ATOMIC_ACQUIRE);

	if (head == tail) {
		*cqe_ptr = NULL;
		return -EAGAIN;
	}
	*cqe_ptr = &cq->cqes[head & cq->ring_mask];
	return 0;
}

/* Give @nr read completions back to the kernel. */
static inline void wsched_cq_advance(struct wsched_ring *ring, unsigned int nr)
{
	if (nr) {
		unsigned int head = __atomic_load_n(ring->cq.khead, __ATOMIC_RELAXED);

		/* Release: our reads of the entries happen before the kernel
		 * sees the slots free (it loads the head with acquire before
		 * writing them).
		 */
		__atomic_store_n(ring->cq.khead, head + nr, __ATOMIC_RELEASE);
	}
}

/* Done with @cqe (from wsched_peek_cqe() or wsched_wait_cqe*()). */
static inline void wsched_cqe_seen(struct wsched_ring *ring,
				   struct wsched_cqe *cqe)
{
	if (cqe)
		wsched_cq_advance(ring, 1);
}

static inline void *wsched_cqe_get_data(const struct wsched_cqe *cqe)
{
	return (void *)(uintptr_t)cqe->user_data;
}

static inline __u64 wsched_cqe_get_data64(const struct wsched_cqe *cqe)
{
	return cqe->user_data;
}

/* Is this the completion of a whole graph (rather than of one node)? */
static inline int wsched_cqe_is_graph(const struct wsched_cqe *cqe)
{
	return !!(cqe->flags & WSCHED_CQE_GRAPH);
}

/* Acquire load of the CQ tail, for wsched_for_each_cqe(). */
static inline unsigned int wsched_cq_tail(const struct wsched_ring *ring)
{
	/* Pairs with the kernel's release store of the CQ tail. */
	return __atomic_load_n(ring->cq.ktail, __ATOMIC_ACQUIRE);
}

/*
 * Visit the ready completions without consuming them; then call
 * wsched_cq_advance(ring, count).  @head: an unsigned int.
 *
 *	unsigned int head, n = 0;
 *	struct wsched_cqe *cqe;
 *
 *	wsched_for_each_cqe(ring, head, cqe) {
 *		handle(cqe);
 *		n++;
 *	}
 *	wsched_cq_advance(ring, n);
 */
#define wsched_for_each_cqe(ring, head, cqe)				\
	for ((head) = __atomic_load_n((ring)->cq.khead, __ATOMIC_RELAXED); \
	     ((cqe) = ((head) != wsched_cq_tail(ring) ?			\
		&(ring)->cq.cqes[(head) & (ring)->cq.ring_mask] : NULL)); \
	     (head)++)

/* Wait for one completion; 0 and *@cqe_ptr, or -EINTR. */
int wsched_wait_cqe(struct wsched_ring *ring, struct wsched_cqe **cqe_ptr);

/* Wait until @wait_nr completions are ready; *@cqe_ptr: the oldest. */
int wsched_wait_cqe_nr(struct wsched_ring *ring, struct wsched_cqe **cqe_ptr,
		       unsigned int wait_nr);

/*
 * Wait at most @timeout_ns for one completion: 0 and *@cqe_ptr, -ETIME,
 * or -EINTR.  @timeout_ns 0 does not wait (but unlike wsched_peek_cqe()
 * it lets held-back completions into the CQ first).
 */
int wsched_wait_cqe_timeout(struct wsched_ring *ring,
			    struct wsched_cqe **cqe_ptr, __u64 timeout_ns);

/* Buffers ----------------------------------------------------------------- */

/*
 * Register @nr (1..WSCHED_MAX_BUFS) buffers; buffer i is index i of the
 * buf/buf2 fields.  The memory must be writable; it is pinned and charged
 * to RLIMIT_MEMLOCK until wsched_unregister_buffers() or exit.
 * Returns 0, -EBUSY (already registered), -ENOMEM (over max_pinned_mb or
 * RLIMIT_MEMLOCK), -EFAULT, -EINVAL.
 */
int wsched_register_buffers(struct wsched_ring *ring,
			    const struct iovec *iovecs, unsigned int nr);

/* Returns 0, -ENXIO (none registered), -EBUSY (graphs use them). */
int wsched_unregister_buffers(struct wsched_ring *ring);

/* Operations and limits --------------------------------------------------- */

/*
 * Number of the operation called @name ("crc32c", or one a module
 * registered), or a negative errno (-ENOENT: no such operation).  If
 * @info is not NULL the operation's description is copied there.
 */
int wsched_op_lookup(struct wsched_ring *ring, const char *name,
		     struct wsched_op_info *info);

/*
 * Copy up to @room operation descriptions to @infos; returns the number of
 * operations there are (which may exceed @room), or a negative errno.
 */
int wsched_op_list(struct wsched_ring *ring, struct wsched_op_info *infos,
		   unsigned int room);

/*
 * WSCHED_IOC_PROBE on the ring's file (@ring not NULL: its counters) or on
 * a fresh open of /dev/wsched (@ring NULL).  Returns 0 or a negative errno.
 */
int wsched_probe(struct wsched_ring *ring, struct wsched_probe *p);

/* Name of a built-in operation ("crc32c"), or NULL. */
const char *wsched_op_name(__u32 op);

/* Software checksums, for comparison with the kernel's -------------------- */

/*
 * Raw CRC-32C (Castagnoli, reflected, polynomial 0x82F63B78) of @len bytes
 * at @buf, starting from @seed, without final inversion: the convention of
 * the kernel's crc32c() and WSCHED_OP_CRC32C.  Chain pieces by passing one
 * result as the next seed.  The standard CRC-32C (iSCSI, ext4 ...) is
 *	~wsched_crc32c_sw(~0U, buf, len)
 * e.g. 0xE3069283 for "123456789".
 */
__u32 wsched_crc32c_sw(__u32 seed, const void *buf, size_t len);

/* XXH64 of @len bytes at @buf with @seed, as WSCHED_OP_XXHASH64. */
__u64 wsched_xxhash64_sw(const void *buf, size_t len, __u64 seed);

/* SHA-256 of @len bytes at @buf into @digest, as WSCHED_OP_SHA256. */
void wsched_sha256_sw(const void *buf, size_t len, __u8 digest[32]);

#ifdef __cplusplus
}
#endif

#endif /* LIBWSCHED_H */
