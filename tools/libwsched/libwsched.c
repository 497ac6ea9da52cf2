// SPDX-License-Identifier: GPL-2.0
/*
 * libwsched: setup, submission, waiting, buffers and operations of
 * /dev/wsched (the inline ring helpers are in wsched.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/io_uring.h>

#include "wsched.h"

#define WSCHED_EXPORT __attribute__((visibility("default")))

static void ring_unmap(struct wsched_ring *ring)
{
	if (ring->sq.ring_ptr)
		munmap(ring->sq.ring_ptr, ring->sq.ring_sz);
	if (ring->cq.ring_ptr)
		munmap(ring->cq.ring_ptr, ring->cq.ring_sz);
	ring->sq.ring_ptr = NULL;
	ring->cq.ring_ptr = NULL;
}

/* Does [off, off + len) lie within a mapping of @size bytes? */
static int in_map(__u64 off, __u64 len, __u64 size)
{
	return off <= size && len <= size - off;
}

static void *map_ring(int fd, __u64 size, __u64 offset, int *err)
{
	void *p;

	if (!size || size > SIZE_MAX) {
		*err = -EOVERFLOW;
		return NULL;
	}
	p = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_POPULATE, fd, (off_t)offset);
	if (p == MAP_FAILED) {
		*err = -errno;
		return NULL;
	}
	return p;
}

/* Point the ring at its mappings; refuse a layout we cannot trust. */
static int ring_layout(struct wsched_ring *ring, const struct wsched_setup *s)
{
	const struct wsched_sq_offsets *so = &s->sq_off;
	const struct wsched_cq_offsets *co = &s->cq_off;
	struct wsched_sq *sq = &ring->sq;
	struct wsched_cq *cq = &ring->cq;
	char *sp = sq->ring_ptr, *cp = cq->ring_ptr;
	unsigned int n;

	if (!in_map(so->head, 4, s->sq_size) || !in_map(so->tail, 4, s->sq_size) ||
	    !in_map(so->ring_mask, 4, s->sq_size) ||
	    !in_map(so->ring_entries, 4, s->sq_size) ||
	    !in_map(co->head, 4, s->cq_size) || !in_map(co->tail, 4, s->cq_size) ||
	    !in_map(co->ring_mask, 4, s->cq_size) ||
	    !in_map(co->ring_entries, 4, s->cq_size) ||
	    !in_map(co->overflow, 4, s->cq_size))
		return -EPROTO;

	sq->khead = (unsigned int *)(sp + so->head);
	sq->ktail = (unsigned int *)(sp + so->tail);
	sq->ring_mask = *(unsigned int *)(sp + so->ring_mask);
	sq->ring_entries = *(unsigned int *)(sp + so->ring_entries);
	sq->sqes = (struct wsched_sqe *)(sp + so->entries);
	n = sq->ring_entries;
	if (!n || (n & (n - 1)) || sq->ring_mask != n - 1 || n != s->sq_entries ||
	    !in_map(so->entries, (__u64)n * sizeof(struct wsched_sqe), s->sq_size))
		return -EPROTO;

	cq->khead = (unsigned int *)(cp + co->head);
	cq->ktail = (unsigned int *)(cp + co->tail);
	cq->koverflow = (unsigned int *)(cp + co->overflow);
	cq->ring_mask = *(unsigned int *)(cp + co->ring_mask);
	cq->ring_entries = *(unsigned int *)(cp + co->ring_entries);
	cq->cqes = (struct wsched_cqe *)(cp + co->entries);
	n = cq->ring_entries;
	if (!n || (n & (n - 1)) || cq->ring_mask != n - 1 || n != s->cq_entries ||
	    !in_map(co->entries, (__u64)n * sizeof(struct wsched_cqe), s->cq_size))
		return -EPROTO;

	/* The SQ starts empty: our tail follows the kernel's head. */
	sq->sqe_head = sq->sqe_tail = __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
	__atomic_store_n(sq->ktail, sq->sqe_tail, __ATOMIC_RELEASE);
	return 0;
}

WSCHED_EXPORT int wsched_queue_init_params(unsigned int entries,
					   struct wsched_ring *ring,
					   struct wsched_setup *p)
{
	struct wsched_setup s;
	int ret = 0;

	memset(ring, 0, sizeof(*ring));
	ring->fd = -1;
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.flags = p->flags;
	s.sq_entries = entries;
	s.cq_entries = p->cq_entries;

	ring->fd = open(WSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	if (ring->fd < 0)
		return -errno;
	if (ioctl(ring->fd, WSCHED_IOC_SETUP, &s) < 0) {
		ret = -errno;
		goto fail;
	}
	ring->sq.ring_ptr = map_ring(ring->fd, s.sq_size, WSCHED_OFF_SQ_RING, &ret);
	if (!ring->sq.ring_ptr)
		goto fail;
	ring->sq.ring_sz = (size_t)s.sq_size;
	ring->cq.ring_ptr = map_ring(ring->fd, s.cq_size, WSCHED_OFF_CQ_RING, &ret);
	if (!ring->cq.ring_ptr)
		goto fail;
	ring->cq.ring_sz = (size_t)s.cq_size;
	ret = ring_layout(ring, &s);
	if (ret)
		goto fail;
	ring->setup_flags = s.flags;
	ring->features = s.features;
	*p = s;
	return 0;
fail:
	ring_unmap(ring);
	close(ring->fd);
	ring->fd = -1;
	return ret;
}

WSCHED_EXPORT int wsched_queue_init(unsigned int entries, struct wsched_ring *ring,
				    unsigned int flags)
{
	struct wsched_setup p;

	memset(&p, 0, sizeof(p));
	p.flags = flags;
	return wsched_queue_init_params(entries, ring, &p);
}

WSCHED_EXPORT void wsched_queue_exit(struct wsched_ring *ring)
{
	ring_unmap(ring);
	if (ring->fd >= 0)
		close(ring->fd);
	ring->fd = -1;
}

/*
 * Publish the entries prepared since the last flush; return how many the
 * SQ holds that the kernel has not consumed (ours and earlier leftovers).
 */
static unsigned int flush_sq(struct wsched_ring *ring)
{
	struct wsched_sq *sq = &ring->sq;

	if (sq->sqe_tail != sq->sqe_head) {
		/* Release: the entries' contents before the tail that
		 * publishes them; pairs with the kernel's acquire load of the
		 * SQ tail in WSCHED_IOC_ENTER.
		 */
		__atomic_store_n(sq->ktail, sq->sqe_tail, __ATOMIC_RELEASE);
		sq->sqe_head = sq->sqe_tail;
	}
	/* Pairs with the kernel's release store of the SQ head. */
	return sq->sqe_tail - __atomic_load_n(sq->khead, __ATOMIC_ACQUIRE);
}

static int enter(struct wsched_ring *ring, unsigned int to_submit,
		 unsigned int min_complete, unsigned int flags, __u64 timeout_ns)
{
	struct wsched_enter e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.flags = flags;
	e.to_submit = to_submit;
	e.min_complete = min_complete;
	e.timeout_ns = timeout_ns;
	if (ioctl(ring->fd, WSCHED_IOC_ENTER, &e) < 0) {
		int err = -errno;

		ring->last_submitted = e.submitted;
		return err;
	}
	ring->last_submitted = e.submitted;
	return (int)e.submitted;
}

WSCHED_EXPORT int wsched_submit(struct wsched_ring *ring)
{
	unsigned int n = flush_sq(ring);

	if (!n) {
		ring->last_submitted = 0;
		return 0;
	}
	return enter(ring, n, 0, 0, 0);
}

WSCHED_EXPORT int wsched_submit_and_wait(struct wsched_ring *ring,
					 unsigned int wait_nr)
{
	unsigned int n = flush_sq(ring);

	if (!wait_nr && !n) {
		ring->last_submitted = 0;
		return 0;
	}
	return enter(ring, n, wait_nr, wait_nr ? WSCHED_ENTER_GETEVENTS : 0, 0);
}

WSCHED_EXPORT int wsched_prep_uring_cmd(struct io_uring_sqe *sqe,
					struct wsched_ring *ring)
{
	struct wsched_sq *sq = &ring->sq;
	unsigned int nr = wsched_sq_ready(ring);

	/* One whole graph: its last entry ends it. */
	if (!nr || !sq->last || !(sq->last->flags & WSCHED_SQE_GRAPH_END))
		return -EINVAL;
	flush_sq(ring);
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ring->fd;
	sqe->cmd_op = WSCHED_URING_CMD_SUBMIT;
	/* The payload: the first 16 bytes of the cmd area (offset 48). */
	memset(sqe->cmd, 0, sizeof(struct wsched_uring_submit));
	((struct wsched_uring_submit *)sqe->cmd)->nr = nr;
	return (int)nr;
}

/* Node @i of an inline graph from the ring entry @w stands for. */
static int inline_node(struct wsched_uring_inode *n, const struct wsched_sqe *w,
		       unsigned int i)
{
	const __u32 *preds = w->nr_preds == 1 ? &w->pred :
			     (const __u32 *)(uintptr_t)w->preds_ptr;
	unsigned int p;

	if ((w->flags & ~(WSCHED_URING_INODE_FLAGS | WSCHED_SQE_GRAPH_END)) ||
	    w->user_data || w->nr_preds > i || (w->nr_preds > 1 && !preds))
		return -EINVAL;
	if (w->buf > 0xff || w->buf2 > 0xff || w->off > 0xffffffffULL ||
	    w->len > 0xffffffffULL)
		return -ERANGE;
	n->op = (__u16)w->op;
	if (n->op != w->op)
		return -EINVAL;
	n->flags = w->flags & WSCHED_URING_INODE_FLAGS;
	for (p = 0; p < w->nr_preds; p++) {
		if (preds[p] >= i)
			return -EINVAL;
		n->preds |= 1U << preds[p];
	}
	n->buf = (__u8)w->buf;
	n->buf2 = (__u8)w->buf2;
	n->off = (__u32)w->off;
	n->len = (__u32)w->len;
	n->arg = w->arg;
	return 0;
}

WSCHED_EXPORT int wsched_prep_uring_inline(struct io_uring_sqe *sqe,
					   struct wsched_ring *ring,
					   const struct wsched_sqe *nodes,
					   unsigned int nr, __u32 tag)
{
	struct wsched_uring_inline uc;
	unsigned int i;
	int ret;

	if (!nr || nr > WSCHED_URING_INLINE_MAX || !nodes)
		return -EINVAL;
	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = (__u8)nr;
	uc.tag = tag;
	for (i = 0; i < nr; i++) {
		ret = inline_node(&uc.nodes[i], &nodes[i], i);
		if (ret)
			return ret;
	}
	/* A 128-byte SQE: the cmd area (offset 48) holds the 80 bytes. */
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = ring->fd;
	sqe->cmd_op = WSCHED_URING_CMD_INLINE;
	memcpy(sqe->cmd, &uc, sizeof(uc));
	return (int)nr;
}

static int get_cqe(struct wsched_ring *ring, struct wsched_cqe **cqe_ptr,
		   unsigned int wait_nr, __u64 timeout_ns)
{
	int ret;

	if (!wait_nr)
		wait_nr = 1;
	if (wsched_cq_ready(ring) >= wait_nr)
		return wsched_peek_cqe(ring, cqe_ptr);
	for (;;) {
		ret = enter(ring, 0, wait_nr, WSCHED_ENTER_GETEVENTS, timeout_ns);
		if (ret < 0) {
			*cqe_ptr = NULL;
			return ret;
		}
		/*
		 * The kernel counts held-back completions too, so fewer than
		 * @wait_nr may be in the CQ (it may be smaller than @wait_nr):
		 * hand out what is there.
		 */
		if (!wsched_peek_cqe(ring, cqe_ptr))
			return 0;
	}
}

WSCHED_EXPORT int wsched_wait_cqe(struct wsched_ring *ring,
				  struct wsched_cqe **cqe_ptr)
{
	return get_cqe(ring, cqe_ptr, 1, 0);
}

WSCHED_EXPORT int wsched_wait_cqe_nr(struct wsched_ring *ring,
				     struct wsched_cqe **cqe_ptr,
				     unsigned int wait_nr)
{
	return get_cqe(ring, cqe_ptr, wait_nr, 0);
}

WSCHED_EXPORT int wsched_wait_cqe_timeout(struct wsched_ring *ring,
					  struct wsched_cqe **cqe_ptr,
					  __u64 timeout_ns)
{
	int ret;

	if (timeout_ns)
		return get_cqe(ring, cqe_ptr, 1, timeout_ns);
	if (!wsched_peek_cqe(ring, cqe_ptr))
		return 0;
	/* Let held-back completions in, without waiting. */
	ret = enter(ring, 0, 0, 0, 0);
	if (ret < 0)
		return ret;
	return wsched_peek_cqe(ring, cqe_ptr) ? -ETIME : 0;
}

WSCHED_EXPORT int wsched_register_buffers(struct wsched_ring *ring,
					  const struct iovec *iovecs,
					  unsigned int nr)
{
	struct wsched_buf bufs[WSCHED_MAX_BUFS];
	struct wsched_buf_reg reg;
	unsigned int i;

	if (!nr || nr > WSCHED_MAX_BUFS)
		return -EINVAL;
	for (i = 0; i < nr; i++) {
		bufs[i].addr = (__u64)(uintptr_t)iovecs[i].iov_base;
		bufs[i].len = iovecs[i].iov_len;
	}
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.nr = nr;
	reg.bufs_ptr = (__u64)(uintptr_t)bufs;
	if (ioctl(ring->fd, WSCHED_IOC_REGISTER_BUFFERS, &reg) < 0)
		return -errno;
	return 0;
}

WSCHED_EXPORT int wsched_unregister_buffers(struct wsched_ring *ring)
{
	if (ioctl(ring->fd, WSCHED_IOC_UNREGISTER_BUFFERS, 0) < 0)
		return -errno;
	return 0;
}

WSCHED_EXPORT int wsched_op_lookup(struct wsched_ring *ring, const char *name,
				   struct wsched_op_info *info)
{
	struct wsched_op_lookup l;
	size_t len = strlen(name);

	if (!len || len >= WSCHED_OP_NAME_MAX)
		return -EINVAL;
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	memcpy(l.info.name, name, len);
	if (ioctl(ring->fd, WSCHED_IOC_OP_LOOKUP, &l) < 0)
		return -errno;
	if (info)
		*info = l.info;
	return (int)l.info.op;
}

WSCHED_EXPORT int wsched_op_list(struct wsched_ring *ring,
				 struct wsched_op_info *infos, unsigned int room)
{
	struct wsched_op_list l;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.nr = infos ? room : 0;
	l.ops_ptr = (__u64)(uintptr_t)infos;
	if (ioctl(ring->fd, WSCHED_IOC_OP_LIST, &l) < 0)
		return -errno;
	return (int)l.nr;
}

WSCHED_EXPORT int wsched_probe(struct wsched_ring *ring, struct wsched_probe *p)
{
	int fd = ring ? ring->fd : open(WSCHED_DEVICE, O_RDWR | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	if (ioctl(fd, WSCHED_IOC_PROBE, p) < 0)
		ret = -errno;
	if (!ring)
		close(fd);
	return ret;
}

WSCHED_EXPORT const char *wsched_op_name(__u32 op)
{
	static const char *const names[] = {
		[WSCHED_OP_NOP] = "nop",
		[WSCHED_OP_SPIN] = "spin",
		[WSCHED_OP_FAIL] = "fail",
		[WSCHED_OP_MEMCPY] = "memcpy",
		[WSCHED_OP_MEMSET] = "memset",
		[WSCHED_OP_MEMCMP] = "memcmp",
		[WSCHED_OP_CRC32C] = "crc32c",
		[WSCHED_OP_XXHASH64] = "xxhash64",
		[WSCHED_OP_SHA256] = "sha256",
	};

	return op <= WSCHED_OP_LAST ? names[op] : NULL;
}
