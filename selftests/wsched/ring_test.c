// SPDX-License-Identifier: GPL-2.0
/*
 * ring_test: the /dev/wsched rings, registered buffers and named ops
 * (uapi/linux/wsched.h, semantics in the ring spec), through the raw uapi.
 *
 * Every validation path is tested: the expected errno, nothing run (the
 * context's nodes_run counter does not move, no completion appears, and a
 * marker graph submitted afterwards is the only thing that runs).  The
 * refusals that differ only in the field broken are FIXTURE_VARIANT tables
 * (setup_bad, enter_bad, sqe, reg_bad: fixture.variant.refused).
 * Then correctness: random DAGs of 1..10000 nodes, graphs spanning several
 * ENTER calls, many graphs in flight, NO_CQE, failure propagation, CQ
 * overflow, poll/epoll, GETEVENTS timeouts and signals, close and kill with
 * work in flight, the data ops checked against user-space reference
 * implementations (libwsched's CRC-32C, XXH64, SHA-256), pinned-memory
 * accounting and RLIMIT_MEMLOCK, and ops by name (with the sample module's
 * "sample.xor8" when the rig sets WSCHED_OP_XOR=1).
 *
 * A missing /dev/wsched is a failure, not a skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/wsched.h>

#include "kselftest_harness.h"
#include "wsched_stats.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define POISON		0xa5
#define PAGE		4096UL

/* user_data of a node: graph id in the high half, node number in the low. */
#define UD(g, i)	((__u64)(g) << 32 | (__u32)(i))
#define UD_G(ud)	((__u32)((ud) >> 32))
#define UD_I(ud)	((__u32)(ud))
#define MARK_GID	0xfeed

/*
 * Reference values of the data ops: libwsched's software CRC-32C, XXH64
 * and SHA-256 (tools/libwsched/checksum.c, built into this test), the one
 * copy the library and the tests share.
 */
#include "../../tools/libwsched/wsched.h"
#include "wsched_ring.h"

/*
 * Run one graph of @n entries (already prepared) to completion on a ring
 * with room for all of them, and collect the completions into @out
 * (at most @max).  Returns the number reaped, or -errno of ENTER.
 */
static int run_small(struct ring *r, const struct wsched_sqe *e, unsigned int n,
		     unsigned int want, struct wsched_cqe *out, unsigned int max)
{
	struct wsched_enter ent;
	unsigned int i, got = 0;
	__u64 deadline = now_ns() + 60 * SEC_NS;
	int ret;

	for (i = 0; i < n; i++)
		if (!sq_push(r, &e[i]))
			return -ENOSPC;
	ret = ring_submit(r, &ent);
	if (ret)
		return ret;
	while (got < want && now_ns() < deadline) {
		ret = ring_wait(r, 1, 1000);
		if (ret && ret != -ETIME)
			return ret;
		got += ring_reap(r, out + got, max - got);
	}
	/* Anything beyond @want (there should be nothing) comes along. */
	usleep(1000);
	got += ring_reap(r, out + got, max - got);
	return got;
}

/* ---------------------------------------------------------------------
 * Tracked graphs: prepared entries, and what their completions said.
 */
struct tg {
	__u32 gid, n;
	struct wsched_sqe *e;
	__u32 *predbuf;
	__u32 *seq;		/* per node: seq of its CQE, 0 if none yet */
	__s32 *res;
	__u32 *flags;
	__u64 *value;
	unsigned char *seen;	/* seq numbers seen, 1..n */
	unsigned int got, want;	/* node CQEs received, expected */
	bool done;		/* graph CQE received */
	struct wsched_cqe g;	/* the graph CQE */
};

static struct tg *tg_alloc(__u32 gid, __u32 n)
{
	struct tg *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->gid = gid;
	t->n = n;
	t->e = calloc(n, sizeof(*t->e));
	t->predbuf = calloc((size_t)n * WSCHED_MAX_PREDS, sizeof(__u32));
	t->seq = calloc(n, sizeof(*t->seq));
	t->res = calloc(n, sizeof(*t->res));
	t->flags = calloc(n, sizeof(*t->flags));
	t->value = calloc(n, sizeof(*t->value));
	t->seen = calloc(n + 1, 1);
	if (!t->e || !t->predbuf || !t->seq || !t->res || !t->flags ||
	    !t->value || !t->seen)
		return NULL;
	return t;
}

static void tg_free(struct tg *t)
{
	if (!t)
		return;
	free(t->e);
	free(t->predbuf);
	free(t->seq);
	free(t->res);
	free(t->flags);
	free(t->value);
	free(t->seen);
	free(t);
}

/* Count the node CQEs to expect and mark the end entry. */
static void tg_finish(struct tg *t)
{
	__u32 i;

	t->want = 0;
	for (i = 0; i < t->n; i++) {
		t->e[i].flags &= ~WSCHED_SQE_GRAPH_END;
		if (!(t->e[i].flags & WSCHED_SQE_NO_CQE))
			t->want++;
	}
	t->e[t->n - 1].flags |= WSCHED_SQE_GRAPH_END;
}

/* The predecessors of node @i (pointer into the entry or predbuf). */
static const __u32 *tg_preds(const struct tg *t, __u32 i)
{
	const struct wsched_sqe *e = &t->e[i];

	if (e->nr_preds == 1)
		return &e->pred;
	return (const __u32 *)(uintptr_t)e->preds_ptr;
}

/*
 * A random DAG: NOPs and short SPINs, 0..64 distinct predecessors each,
 * mostly close ones, some far, some from a few hubs (large fan-out).
 * @no_cqe_pct of the nodes get WSCHED_SQE_NO_CQE.
 */
static struct tg *tg_random(__u32 gid, __u32 n, __u64 seed, unsigned int no_cqe_pct)
{
	struct tg *t = tg_alloc(gid, n);
	__u32 i, j, k, np;

	if (!t)
		return NULL;
	rnd_seed(seed);
	for (i = 0; i < n; i++) {
		struct wsched_sqe *e = &t->e[i];
		__u32 *p = &t->predbuf[(size_t)i * WSCHED_MAX_PREDS];
		unsigned int kind = rnd() % 16;

		if (rnd() % 4)
			sqe_nop(e, UD(gid, i));
		else
			sqe_op(e, WSCHED_OP_SPIN, rnd() % 300, UD(gid, i));
		if (rnd() % 100 < no_cqe_pct)
			e->flags |= WSCHED_SQE_NO_CQE;
		if (!i || kind < 3)
			np = 0;
		else if (kind < 9)
			np = 1;
		else if (kind < 15)
			np = 2 + rnd() % 6;
		else
			np = 2 + rnd() % (WSCHED_MAX_PREDS - 1);
		if (np > i)
			np = i;
		for (j = 0; j < np; j++) {
			__u32 c, r = rnd() % 8;
			bool dup;

			do {
				if (r < 5)
					c = i - 1 - rnd() % (i < 16 ? i : 16);
				else if (r < 7)
					c = rnd() % i;
				else
					c = rnd() % (i < 4 ? i : 4);
				for (dup = false, k = 0; k < j; k++)
					dup |= p[k] == c;
				r = rnd() % 8;
			} while (dup);
			p[j] = c;
		}
		sqe_preds(e, p, np);
	}
	tg_finish(t);
	return t;
}

/* Record one completion of @t; NULL or what was wrong with it. */
static const char *tg_cqe(struct tg *t, const struct wsched_cqe *c)
{
	__u32 i = UD_I(c->user_data);

	if (c->resv)
		return why("graph %u: CQE resv %u", t->gid, c->resv);
	if (c->flags & WSCHED_CQE_GRAPH) {
		if (t->done)
			return why("graph %u: second graph CQE", t->gid);
		if (t->got != t->want)
			return why("graph %u: graph CQE after %u of %u node CQEs",
				   t->gid, t->got, t->want);
		if (c->user_data != t->e[t->n - 1].user_data)
			return why("graph %u: graph CQE user_data %llx, end entry's %llx",
				   t->gid, (unsigned long long)c->user_data,
				   (unsigned long long)t->e[t->n - 1].user_data);
		t->g = *c;
		t->done = true;
		return NULL;
	}
	if (i >= t->n)
		return why("graph %u: CQE for node %u of %u", t->gid, i, t->n);
	if (t->done)
		return why("graph %u: node %u CQE after the graph CQE", t->gid, i);
	if (t->e[i].flags & WSCHED_SQE_NO_CQE)
		return why("graph %u: CQE for NO_CQE node %u", t->gid, i);
	if (t->seq[i])
		return why("graph %u: second CQE for node %u", t->gid, i);
	if (!c->seq || c->seq > t->n)
		return why("graph %u: node %u seq %u out of 1..%u", t->gid, i,
			   c->seq, t->n);
	if (t->seen[c->seq]++)
		return why("graph %u: node %u repeats seq %u", t->gid, i, c->seq);
	t->seq[i] = c->seq;
	t->res[i] = c->res;
	t->flags[i] = c->flags;
	t->value[i] = c->value;
	t->got++;
	return NULL;
}

/* Every node's seq is above its predecessors' (where both have CQEs). */
static const char *tg_check_order(const struct tg *t)
{
	__u32 i, j;

	for (i = 0; i < t->n; i++) {
		const __u32 *p = tg_preds(t, i);

		if (!t->seq[i])
			continue;
		for (j = 0; j < t->e[i].nr_preds; j++)
			if (t->seq[p[j]] && t->seq[p[j]] >= t->seq[i])
				return why("graph %u: node %u seq %u not above pred %u seq %u",
					   t->gid, i, t->seq[i], p[j], t->seq[p[j]]);
	}
	return NULL;
}

/* A graph whose nodes all succeed (NOP, SPIN). */
static const char *tg_check_ok(const struct tg *t)
{
	__u32 i;

	if (!t->done)
		return why("graph %u: no graph CQE (%u of %u node CQEs)",
			   t->gid, t->got, t->want);
	for (i = 0; i < t->n; i++) {
		if (t->e[i].flags & WSCHED_SQE_NO_CQE)
			continue;
		if (t->res[i] || t->flags[i] != WSCHED_RES_RAN || t->value[i])
			return why("graph %u node %u: res %d flags %#x value %llu",
				   t->gid, i, t->res[i], t->flags[i],
				   (unsigned long long)t->value[i]);
	}
	if (t->g.res || (t->g.flags & ~WSCHED_RES_RAN) != WSCHED_CQE_GRAPH ||
	    t->g.value != t->n || t->g.seq != t->n)
		return why("graph %u: graph CQE res %d flags %#x value %llu seq %u, want 0 GRAPH %u %u",
			   t->gid, t->g.res, t->g.flags,
			   (unsigned long long)t->g.value, t->g.seq, t->n, t->n);
	return tg_check_order(t);
}

/* What drive() spent its time on (printed by the heavier tests). */
static struct {
	unsigned long enters, waits, timeouts, lost_wakeups, ebusy, eagain;
	__u64 wait_ns;
} ds;

/*
 * Push all entries of @gs (graph gid == index), submit them as the SQ
 * allows (EBUSY: reap first; EAGAIN: wait for completions), reap and
 * record every completion until every graph has its graph CQE.
 */
static const char *drive(struct ring *r, struct tg **gs, unsigned int ng,
			 unsigned int secs)
{
	unsigned int gi = 0, ei = 0, left = ng, i, n;
	__u64 deadline = now_ns() + secs * SEC_NS, expect = 0, recv = 0;
	static struct wsched_cqe c[512];
	struct wsched_enter ent;
	const char *w;
	int ret;

	while (left) {
		__u32 pend, head0;

		while (gi < ng && sq_room(r)) {
			sq_push(r, &gs[gi]->e[ei]);
			if (++ei == gs[gi]->n) {
				expect += gs[gi]->want + 1;
				gi++;
				ei = 0;
			}
		}
		pend = sq_pending(r);
		head0 = load_acq(r->sq_head);
		if (pend) {
			ds.enters++;
			ret = ring_enter(r, pend, 0, 0, 0, &ent);
			ds.ebusy += ret == -EBUSY;
			ds.eagain += ret == -EAGAIN;
			if (!ret && ent.submitted != pend)
				return why("ENTER consumed %u of %u", ent.submitted, pend);
			if (ret == -EBUSY && ent.submitted)
				return why("EBUSY with %u consumed", ent.submitted);
			if (ret && ret != -EBUSY && ret != -EAGAIN)
				return why("ENTER(%u): %s", pend, strerror(-ret));
			if (load_acq(r->sq_head) - head0 != ent.submitted)
				return why("SQ head moved %u, submitted %u",
					   load_acq(r->sq_head) - head0, ent.submitted);
			if (ret == -EAGAIN)
				ring_wait(r, 1, 100);
		} else {
			__u64 t0 = now_ns(), min = expect - recv;

			/* a batch at a time: fewer wake-ups */
			if (min > r->cq_entries / 2)
				min = r->cq_entries / 2;
			ret = ring_wait(r, min ? min : 1, 1000);
			ds.waits++;
			ds.wait_ns += now_ns() - t0;
			if (ret == -ETIME) {
				ds.timeouts++;
				/* timed out although enough completions were there */
				ds.lost_wakeups += cq_ready(r) >= (min ? min : 1);
			}
			if (ret && ret != -ETIME)
				return why("wait: %s", strerror(-ret));
		}
		while ((n = ring_reap(r, c, ARRAY_SIZE(c)))) {
			recv += n;
			for (i = 0; i < n; i++) {
				__u32 g = UD_G(c[i].user_data);

				if (g >= ng)
					return why("CQE with user_data %llx",
						   (unsigned long long)c[i].user_data);
				w = tg_cqe(gs[g], &c[i]);
				if (w)
					return w;
				if (gs[g]->done)
					left--;
			}
		}
		if (now_ns() > deadline)
			return why("timeout: %u of %u graphs not complete, %u entries not pushed",
				   left, ng, gi < ng ? 1 : 0);
	}
	usleep(2000);
	if (ring_reap(r, c, 1))
		return why("extra CQE user_data %llx flags %#x",
			   (unsigned long long)c[0].user_data, c[0].flags);
	return NULL;
}

/* Run @t alone through drive() and check it all succeeded. */
static const char *run_ok(struct ring *r, struct tg *t, unsigned int secs)
{
	const char *w = drive(r, &t, 1, secs);

	return w ? w : tg_check_ok(t);
}

/* ---------------------------------------------------------------------
 * Refusals: expect @err, @consumed entries taken, nothing run, no CQE.
 */

/* A one-NOP graph; it and its graph CQE must be all that completes. */
static const char *marker(struct ring *r, unsigned long long want_run)
{
	struct wsched_sqe e;
	struct wsched_cqe c[8];
	int n;

	sqe_nop(&e, UD(MARK_GID, 0));
	e.flags = WSCHED_SQE_GRAPH_END;
	n = run_small(r, &e, 1, 2, c, ARRAY_SIZE(c));
	if (n < 0)
		return why("marker graph: %s", strerror(-n));
	if (n != 2)
		return why("marker graph: %d completions, want 2 (first ud %llx flags %#x)",
			   n, n ? (unsigned long long)c[0].user_data : 0ULL,
			   n ? c[0].flags : 0);
	if (c[0].user_data != UD(MARK_GID, 0) || c[0].flags != WSCHED_RES_RAN ||
	    c[0].res || c[0].seq != 1)
		return why("marker node CQE: ud %llx res %d flags %#x seq %u",
			   (unsigned long long)c[0].user_data, c[0].res,
			   c[0].flags, c[0].seq);
	if (c[1].user_data != UD(MARK_GID, 0) || !(c[1].flags & WSCHED_CQE_GRAPH) ||
	    c[1].res || c[1].value != 1 || c[1].seq != 1)
		return why("marker graph CQE: ud %llx res %d flags %#x value %llu seq %u",
			   (unsigned long long)c[1].user_data, c[1].res,
			   c[1].flags, (unsigned long long)c[1].value, c[1].seq);
	if (nodes_run(r->fd) != want_run)
		return why("nodes_run %llu after the marker, want %llu",
			   nodes_run(r->fd), want_run);
	return NULL;
}

/* Nothing ran and nothing completed since @run0/@cqt0/@ovf0. */
static const char *quiet_since(struct ring *r, unsigned long long run0,
			       __u32 cqt0, __u32 ovf0)
{
	usleep(10000);
	if (nodes_run(r->fd) != run0)
		return why("%llu nodes ran", nodes_run(r->fd) - run0);
	if (load_acq(r->cq_tail) != cqt0 || *r->cq_overflow != ovf0)
		return why("completions posted (CQ tail +%u, overflow +%u)",
			   load_acq(r->cq_tail) - cqt0, *r->cq_overflow - ovf0);
	return NULL;
}

static const char *refused(struct ring *r, const struct wsched_sqe *e,
			   unsigned int n, unsigned int consumed, int err)
{
	unsigned long long run0 = nodes_run(r->fd);
	__u32 cqt0 = load_acq(r->cq_tail), ovf0 = *r->cq_overflow;
	__u32 head0 = load_acq(r->sq_head);
	struct wsched_enter ent;
	const char *w;
	unsigned int i;
	int ret;

	if (run0 == ~0ULL)
		return why("probe failed");
	for (i = 0; i < n; i++)
		if (!sq_push(r, &e[i]))
			return why("SQ full");
	ret = ring_enter(r, n, 0, 0, 0, &ent);
	if (ret != -err)
		return why("ENTER returned %s, want %s (submitted %u sq_error %d)",
			   ret ? strerror(-ret) : "success", strerror(err),
			   ent.submitted, ent.sq_error);
	if (ent.sq_error != -err)
		return why("sq_error %d, want %d", ent.sq_error, -err);
	if (ent.submitted != consumed)
		return why("submitted %u, want %u", ent.submitted, consumed);
	if (load_acq(r->sq_head) - head0 != consumed)
		return why("SQ head moved by %u, want %u",
			   load_acq(r->sq_head) - head0, consumed);
	w = quiet_since(r, run0, cqt0, ovf0);
	if (w)
		return w;
	if (consumed != n)
		return NULL;
	return marker(r, run0 + 1);
}

/* [NOP, bad, NOP(pred 1) END] refused at the bad one, all 3 consumed. */
static const char *refused_mid(struct ring *r, const struct wsched_sqe *bad, int err)
{
	struct wsched_sqe e[3];

	sqe_nop(&e[0], UD(7, 0));
	e[1] = *bad;
	e[1].flags &= ~WSCHED_SQE_GRAPH_END;
	e[1].user_data = UD(7, 1);
	sqe_nop(&e[2], UD(7, 2));
	sqe_pred1(&e[2], 1);
	e[2].flags = WSCHED_SQE_GRAPH_END;
	return refused(r, e, 3, 3, err);
}

/* [bad END]: a one-entry refused graph. */
static const char *refused_alone(struct ring *r, const struct wsched_sqe *bad, int err)
{
	struct wsched_sqe e = *bad;

	e.flags |= WSCHED_SQE_GRAPH_END;
	return refused(r, &e, 1, 1, err);
}

/* Both placements, for checks that do not depend on the node number. */
static const char *refused_both(struct ring *r, const struct wsched_sqe *bad, int err)
{
	const char *w = refused_mid(r, bad, err);

	if (w)
		return w;
	if (bad->nr_preds)
		return NULL;
	w = refused_alone(r, bad, err);
	return w ? why("as a one-entry graph: %s", w) : NULL;
}

/* ---------------------------------------------------------------------
 * Fixtures.  ctx: a context with rings (SQ 64, CQ 128), no buffers.
 * ring: the same with three registered buffers:
 *   0: 64 KiB, page aligned; 1: 4096 + 100 bytes; 2: 1 byte, unaligned.
 */
#define B0_LEN	65536UL
#define B1_LEN	(PAGE + 100)
#define B2_LEN	1UL
#define BUFMEM	(B0_LEN + 4 * PAGE)

static int reg_bufs(int fd, const struct wsched_buf *b, __u32 nr)
{
	struct wsched_buf_reg reg;

	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.nr = nr;
	reg.bufs_ptr = (uintptr_t)b;
	return xioctl(fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
}

static int unreg_bufs(int fd)
{
	return ioctl(fd, WSCHED_IOC_UNREGISTER_BUFFERS) ? -errno : 0;
}

FIXTURE(ctx) {
	struct ring r;
	struct wsched_probe p;
	__u32 preds[WSCHED_MAX_PREDS + 8];
};

FIXTURE_SETUP(ctx)
{
	int ret = ring_open(&self->r, 64, 0, 0);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	ASSERT_EQ(0, do_probe(self->r.fd, &self->p));
	memset(self->preds, 0, sizeof(self->preds));
}

FIXTURE_TEARDOWN(ctx)
{
	ring_close(&self->r);
}

FIXTURE(ring) {
	struct ring r;
	struct wsched_probe p;
	__u32 preds[WSCHED_MAX_PREDS + 8];
	unsigned char *mem;
	struct wsched_buf bufs[3];
};

/* The ring fixture: rings, and the three buffers registered if @reg. */
static void ring_fixture(struct __test_metadata *_metadata,
			 FIXTURE_DATA(ring) *self, bool reg)
{
	int ret = ring_open(&self->r, 64, 0, 0);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	ASSERT_EQ(0, do_probe(self->r.fd, &self->p));
	memset(self->preds, 0, sizeof(self->preds));
	self->mem = mmap(NULL, BUFMEM, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	memset(self->mem, 0, BUFMEM);
	self->bufs[0].addr = (uintptr_t)self->mem;
	self->bufs[0].len = B0_LEN;
	self->bufs[1].addr = (uintptr_t)self->mem + B0_LEN;
	self->bufs[1].len = B1_LEN;
	self->bufs[2].addr = (uintptr_t)self->mem + B0_LEN + 3 * PAGE + 7;
	self->bufs[2].len = B2_LEN;
	if (!reg)
		return;
	ret = reg_bufs(self->r.fd, self->bufs, 3);
	ASSERT_EQ(0, ret) TH_LOG("register: %s", strerror(-ret));
}

FIXTURE_SETUP(ring)
{
	ring_fixture(_metadata, self, true);
}

FIXTURE_TEARDOWN(ring)
{
	ring_close(&self->r);
	munmap(self->mem, BUFMEM);
}

/* A valid entry of each op on the ring fixture's buffers. */
static void sqe_valid(struct wsched_sqe *e, __u32 op)
{
	switch (op) {
	case WSCHED_OP_NOP:
		sqe_nop(e, 0);
		break;
	case WSCHED_OP_SPIN:
		sqe_op(e, op, 10, 0);
		break;
	case WSCHED_OP_FAIL:
		sqe_op(e, op, 5, 0);
		break;
	case WSCHED_OP_MEMSET:
		sqe_range(e, op, 0, 3, 100, 0, 0x5a, 0);
		break;
	case WSCHED_OP_CRC32C:
	case WSCHED_OP_XXHASH64:
		sqe_range(e, op, 0, 3, 100, 0, 12345, 0);
		break;
	case WSCHED_OP_MEMCPY:
	case WSCHED_OP_MEMCMP:
		sqe_range(e, op, 0, 3, 100, 1, 17, 0);
		break;
	case WSCHED_OP_SHA256:
		sqe_range(e, op, 0, 3, 100, 1, 64, 0);
		break;
	}
}

/* Which of buf, buf2, off, len, arg an op uses. */
#define F_BUF	1
#define F_BUF2	2
#define F_OFF	4
#define F_LEN	8
#define F_ARG	16
static const unsigned int op_fields[] = {
	[WSCHED_OP_NOP] = 0,
	[WSCHED_OP_SPIN] = F_ARG,
	[WSCHED_OP_FAIL] = F_ARG,
	[WSCHED_OP_MEMCPY] = F_BUF | F_BUF2 | F_OFF | F_LEN | F_ARG,
	[WSCHED_OP_MEMSET] = F_BUF | F_OFF | F_LEN | F_ARG,
	[WSCHED_OP_MEMCMP] = F_BUF | F_BUF2 | F_OFF | F_LEN | F_ARG,
	[WSCHED_OP_CRC32C] = F_BUF | F_OFF | F_LEN | F_ARG,
	[WSCHED_OP_XXHASH64] = F_BUF | F_OFF | F_LEN | F_ARG,
	[WSCHED_OP_SHA256] = F_BUF | F_BUF2 | F_OFF | F_LEN | F_ARG,
};
static const char *const op_names[] = {
	"nop", "spin", "fail", "memcpy", "memset", "memcmp", "crc32c",
	"xxhash64", "sha256",
};

/* ---------------------------------------------------------------------
 * Probe and reference implementations.
 */
TEST(probe_v2)
{
	struct wsched_probe p;
	int fd = dev_open();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	ASSERT_EQ(0, do_probe(fd, &p));
	EXPECT_EQ(WSCHED_ABI_VERSION, p.version);
	EXPECT_EQ((1ULL << (WSCHED_OP_LAST + 1)) - 1, p.ops);
	EXPECT_EQ(WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS | WSCHED_FEAT_BUFFERS |
		  WSCHED_FEAT_OP_NAMES | WSCHED_FEAT_URING_CMD |
		  WSCHED_FEAT_URING_INLINE, p.features);
	EXPECT_EQ(WSCHED_SQE_FLAGS, p.sqe_flags);
	EXPECT_EQ(WSCHED_MAX_PREDS, p.max_preds);
	EXPECT_EQ(WSCHED_SPIN_MAX, p.max_spin);
	EXPECT_LE(1, p.max_inflight);
	EXPECT_LE(1, p.max_sq_entries);
	EXPECT_GE(32768, p.max_sq_entries);
	EXPECT_LE(p.max_sq_entries, p.max_cq_entries);
	EXPECT_GE(65536, p.max_cq_entries);
	EXPECT_LE(1, p.max_pinned);
	EXPECT_EQ(0, p.resv);
	TH_LOG("max_nodes %u max_inflight %u max_sq %u max_cq %u max_pinned %llu workers %u",
	       p.max_nodes, p.max_inflight, p.max_sq_entries, p.max_cq_entries,
	       (unsigned long long)p.max_pinned, p.nr_workers);
	close(fd);
}

TEST(reference_implementations)
{
	static const unsigned char sha_abc[32] = {
		0xba, 0x78, 0x16, 0xbf, 0x8f, 0x01, 0xcf, 0xea, 0x41, 0x41, 0x40,
		0xde, 0x5d, 0xae, 0x22, 0x23, 0xb0, 0x03, 0x61, 0xa3, 0x96, 0x17,
		0x7a, 0x9c, 0xb4, 0x10, 0xff, 0x61, 0xf2, 0x00, 0x15, 0xad,
	};
	static const unsigned char sha_empty[32] = {
		0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
		0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
		0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55,
	};
	static const char q[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const unsigned char sha_q[32] = {
		0x24, 0x8d, 0x6a, 0x61, 0xd2, 0x06, 0x38, 0xb8, 0xe5, 0xc0, 0x26,
		0x93, 0x0c, 0x3e, 0x60, 0x39, 0xa3, 0x3c, 0xe4, 0x59, 0x64, 0xff,
		0x21, 0x67, 0xf6, 0xec, 0xed, 0xd4, 0x19, 0xdb, 0x06, 0xc1,
	};
	unsigned char d[32];

	/* Standard CRC-32C check value: ~crc32c(~0, "123456789"). */
	EXPECT_EQ(0xE3069283U, ~wsched_crc32c_sw(~0U, "123456789", 9));
	EXPECT_EQ(0U, wsched_crc32c_sw(0, "", 0));
	EXPECT_EQ(0xEF46DB3751D8E999ULL, wsched_xxhash64_sw("", 0, 0));
	EXPECT_EQ(0x44BC2CF5AD770999ULL, wsched_xxhash64_sw("abc", 3, 0));
	wsched_sha256_sw("abc", 3, d);
	EXPECT_EQ(0, memcmp(d, sha_abc, 32));
	wsched_sha256_sw("", 0, d);
	EXPECT_EQ(0, memcmp(d, sha_empty, 32));
	wsched_sha256_sw(q, strlen(q), d);
	EXPECT_EQ(0, memcmp(d, sha_q, 32));
}

/* ---------------------------------------------------------------------
 * WSCHED_IOC_SETUP.
 */

/* The file is not set up: ENTER and mmap refuse with EINVAL. */
static const char *not_set_up(int fd)
{
	struct wsched_enter e = { .size = sizeof(e) };
	void *m;

	if (!ioctl(fd, WSCHED_IOC_ENTER, &e) || errno != EINVAL)
		return why("ENTER on a file not set up: %s", strerror(errno));
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSCHED_OFF_SQ_RING);
	if (m != MAP_FAILED) {
		munmap(m, PAGE);
		return why("mmap of a file not set up succeeded");
	}
	if (errno != EINVAL)
		return why("mmap of a file not set up: %s", strerror(errno));
	return NULL;
}

/* SETUP @s on @fd, expect @err, and that the file stayed unset. */
static const char *setup_refused(int fd, struct wsched_setup *s, int err)
{
	int ret = xioctl(fd, WSCHED_IOC_SETUP, s);

	if (ret != -err)
		return why("SETUP returned %s, want %s",
			   ret ? strerror(-ret) : "success", strerror(err));
	return not_set_up(fd);
}

/* After refusals, a valid setup still works on the same file. */
static const char *setup_works(int fd)
{
	struct ring r;
	int ret = ring_setup_fd(&r, fd, 8, 0, 0);

	if (ret)
		return why("valid SETUP after refusals: %s", strerror(-ret));
	ring_unmap(&r);
	return NULL;
}

/*
 * Refused SETUPs, one table: each case sets fields of a valid SETUP (SQ 8,
 * CQ 0); setup_refused() checks the errno and that the file stayed
 * without rings (ENTER and mmap refuse); then a valid SETUP works.
 */
enum setup_field { S_SIZE = 1, S_FLAGS, S_SQ, S_CQ };

struct setup_set {
	enum setup_field f;
	__u64 v;
};

FIXTURE(setup_bad) {
	int fd;
};

FIXTURE_VARIANT(setup_bad) {
	struct setup_set c[5][2];	/* cases; .f 0 ends a case and the list */
	bool each_bit;			/* c[0][0].f = each bit outside its .v */
};

#define SETUP_BAD(name, ...)						\
	FIXTURE_VARIANT_ADD(setup_bad, name) {				\
		.c = { __VA_ARGS__ },					\
	}

SETUP_BAD(size, { { S_SIZE, 0 } }, { { S_SIZE, 4 } },
	  { { S_SIZE, sizeof(struct wsched_setup) - 8 } },
	  { { S_SIZE, sizeof(struct wsched_setup) + 8 } }, { { S_SIZE, ~0U } });
FIXTURE_VARIANT_ADD(setup_bad, unknown_flags) {
	.c = { { { S_FLAGS, WSCHED_SETUP_FLAGS } } }, .each_bit = true,
};
SETUP_BAD(sq_zero, { { S_SQ, 0 } }, { { S_SQ, 0 }, { S_CQ, 16 } },
	  { { S_SQ, 0 }, { S_FLAGS, WSCHED_SETUP_CLAMP } });
SETUP_BAD(cq_smaller_than_sq, { { S_CQ, 4 } }, { { S_CQ, 7 } },
	  { { S_CQ, 1 }, { S_FLAGS, WSCHED_SETUP_CLAMP } });

FIXTURE_SETUP(setup_bad)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
}

FIXTURE_TEARDOWN(setup_bad)
{
	close(self->fd);
}

static void setup_set(struct wsched_setup *s, const struct setup_set *c, __u64 v)
{
	switch (c->f) {
	case S_SIZE:
		s->size = v;
		break;
	case S_FLAGS:
		s->flags = v;
		break;
	case S_SQ:
		s->sq_entries = v;
		break;
	case S_CQ:
		s->cq_entries = v;
		break;
	}
}

TEST_F(setup_bad, refused)
{
	const struct setup_set *c;
	struct wsched_setup s;
	unsigned int i, j, bit;

	for (bit = 0; variant->each_bit && bit < 32; bit++) {
		c = &variant->c[0][0];
		if ((1ULL << bit) & c->v)
			continue;
		setup_init(&s, 8, 0, 0);
		setup_set(&s, c, 1ULL << bit);
		EXPECT_OK(setup_refused(self->fd, &s, EINVAL)) TH_LOG("bit %u", bit);
	}
	for (i = 0; !variant->each_bit && i < ARRAY_SIZE(variant->c); i++) {
		c = variant->c[i];
		if (!c[0].f)
			break;
		setup_init(&s, 8, 0, 0);
		for (j = 0; j < ARRAY_SIZE(variant->c[i]) && c[j].f; j++)
			setup_set(&s, &c[j], c[j].v);
		EXPECT_OK(setup_refused(self->fd, &s, EINVAL)) TH_LOG("case %u", i);
	}
	EXPECT_OK(setup_works(self->fd));
}

/* Every output and reserved field (features onwards) must be zero. */
TEST(setup_output_fields_nonzero)
{
	struct wsched_setup s;
	size_t off;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	for (off = offsetof(struct wsched_setup, features); off < sizeof(s); off += 4) {
		setup_init(&s, 8, 0, 0);
		*(__u32 *)((char *)&s + off) = 1;
		EXPECT_OK(setup_refused(fd, &s, EINVAL)) TH_LOG("byte offset %zu", off);
		setup_init(&s, 8, 0, 0);
		*(__u32 *)((char *)&s + off) = 0x80000000U;
		EXPECT_OK(setup_refused(fd, &s, EINVAL)) TH_LOG("byte offset %zu", off);
	}
	EXPECT_OK(setup_works(fd));
	close(fd);
}

static __u32 roundup_pow2(__u32 x)
{
	__u32 p = 1;

	while (p < x)
		p <<= 1;
	return p;
}

TEST(setup_sq_too_big)
{
	struct wsched_probe p;
	struct wsched_setup s;
	struct ring r;
	int fd = dev_open(), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, do_probe(fd, &p));
	setup_init(&s, p.max_sq_entries + 1, 0, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	setup_init(&s, ~0U, 0, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	setup_init(&s, 0x80000000U, 0, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	/* With CLAMP the SQ is clamped (and a CQ of 0 is twice that). */
	ret = ring_setup_fd(&r, fd, ~0U, 0, WSCHED_SETUP_CLAMP);
	ASSERT_EQ(0, ret) TH_LOG("SETUP with CLAMP: %s", strerror(-ret));
	EXPECT_EQ(roundup_pow2(p.max_sq_entries), r.s.sq_entries);
	EXPECT_EQ(r.s.sq_entries, r.sq_entries);
	EXPECT_LE(r.s.sq_entries, r.s.cq_entries);
	EXPECT_GE(roundup_pow2(p.max_cq_entries), r.s.cq_entries);
	ring_unmap(&r);
	close(fd);
}

TEST(setup_cq_too_big)
{
	struct wsched_probe p;
	struct wsched_setup s;
	struct ring r;
	int fd = dev_open(), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, do_probe(fd, &p));
	setup_init(&s, 8, p.max_cq_entries + 1, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	setup_init(&s, 8, ~0U, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	ret = ring_setup_fd(&r, fd, 8, ~0U, WSCHED_SETUP_CLAMP);
	ASSERT_EQ(0, ret) TH_LOG("SETUP with CLAMP: %s", strerror(-ret));
	EXPECT_EQ(8, r.s.sq_entries);
	EXPECT_EQ(roundup_pow2(p.max_cq_entries), r.s.cq_entries);
	EXPECT_EQ(r.s.cq_entries, r.cq_entries);
	ring_unmap(&r);
	close(fd);
}

/*
 * With CLAMP a CQ is compared with the SQ as clamped: a CQ as large as
 * the clamped SQ is fine, a smaller one refused.  Before, the CQ was
 * compared with the SQ size asked for, so any CQ below an SQ request
 * above max_sq_entries was refused, although the SQ it got was smaller.
 */
TEST(setup_clamp_cq_against_clamped_sq)
{
	struct wsched_probe p;
	struct wsched_setup s;
	struct ring r;
	__u32 sq, cq;
	int fd = dev_open(), ret;

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, do_probe(fd, &p));
	if (p.max_sq_entries > p.max_cq_entries || p.max_sq_entries < 2)
		SKIP(close(fd); return,
		     "max_sq_entries %u, max_cq_entries %u: no room for the case",
		     p.max_sq_entries, p.max_cq_entries);
	sq = roundup_pow2(p.max_sq_entries);
	cq = roundup_pow2(p.max_sq_entries);
	/* Below the clamped SQ: refused, clamped or not. */
	setup_init(&s, p.max_sq_entries + 1, p.max_sq_entries - 1,
		   WSCHED_SETUP_CLAMP);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	/* Without CLAMP the SQ request itself is refused. */
	setup_init(&s, p.max_sq_entries + 1, p.max_sq_entries, 0);
	EXPECT_OK(setup_refused(fd, &s, EINVAL));
	/* As large as the clamped SQ, below the SQ asked for: fine. */
	ret = ring_setup_fd(&r, fd, 2 * p.max_sq_entries, p.max_sq_entries,
			    WSCHED_SETUP_CLAMP);
	ASSERT_EQ(0, ret) TH_LOG("SETUP sq %u cq %u with CLAMP: %s",
				 2 * p.max_sq_entries, p.max_sq_entries,
				 strerror(-ret));
	EXPECT_EQ(sq, r.s.sq_entries);
	EXPECT_EQ(cq, r.s.cq_entries);
	EXPECT_EQ(r.s.sq_entries, r.sq_entries);
	EXPECT_EQ(r.s.cq_entries, r.cq_entries);
	EXPECT_OK(marker(&r, nodes_run(fd) + 1));
	ring_unmap(&r);
	close(fd);
}

TEST(setup_fault)
{
	int fd = dev_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-EFAULT, xioctl(fd, WSCHED_IOC_SETUP, (void *)8));
	EXPECT_OK(not_set_up(fd));
	EXPECT_OK(setup_works(fd));
	close(fd);
}

TEST(setup_twice)
{
	struct wsched_setup s;
	struct ring r;
	int fd = dev_open(), ret;

	ASSERT_LE(0, fd);
	ret = ring_setup_fd(&r, fd, 8, 0, 0);
	ASSERT_EQ(0, ret) TH_LOG("SETUP: %s", strerror(-ret));
	setup_init(&s, 8, 0, 0);
	EXPECT_EQ(-EBUSY, xioctl(fd, WSCHED_IOC_SETUP, &s));
	EXPECT_EQ(0, s.sq_size);
	setup_init(&s, 16, 64, 0);
	EXPECT_EQ(-EBUSY, xioctl(fd, WSCHED_IOC_SETUP, &s));
	/* The first rings are unchanged and work. */
	EXPECT_EQ(8, r.sq_entries);
	EXPECT_EQ(16, r.cq_entries);
	EXPECT_OK(marker(&r, nodes_run(fd) + 1));
	ring_unmap(&r);
	close(fd);
}

/* Sizes are rounded up to powers of two, CQ 0 is twice the SQ; layout. */
TEST(setup_rounding_and_layout)
{
	static const struct { __u32 sq, cq, want_sq, want_cq; } c[] = {
		{ 1, 0, 1, 2 }, { 1, 1, 1, 1 }, { 5, 0, 8, 16 }, { 3, 5, 4, 8 },
		{ 8, 8, 8, 8 }, { 9, 0, 16, 32 }, { 100, 1000, 128, 1024 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		struct ring r;
		int ret = ring_open(&r, c[i].sq, c[i].cq, 0);

		ASSERT_EQ(0, ret) TH_LOG("sq %u cq %u: %s", c[i].sq, c[i].cq,
					 strerror(-ret));
		EXPECT_EQ(c[i].want_sq, r.s.sq_entries) TH_LOG("case %u", i);
		EXPECT_EQ(c[i].want_cq, r.s.cq_entries) TH_LOG("case %u", i);
		EXPECT_EQ(c[i].want_sq, r.sq_entries);
		EXPECT_EQ(c[i].want_sq - 1, r.sq_mask);
		EXPECT_EQ(c[i].want_cq, r.cq_entries);
		EXPECT_EQ(c[i].want_cq - 1, r.cq_mask);
		EXPECT_EQ(WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS |
			  WSCHED_FEAT_BUFFERS | WSCHED_FEAT_OP_NAMES |
			  WSCHED_FEAT_URING_CMD | WSCHED_FEAT_URING_INLINE,
			  r.s.features);
		EXPECT_EQ(0, r.s.sq_off.resv[0] | r.s.sq_off.resv[1] |
			     r.s.sq_off.resv[2]);
		EXPECT_EQ(0, r.s.cq_off.resv[0] | r.s.cq_off.resv[1]);
		EXPECT_EQ(0, r.s.resv[0] | r.s.resv[1]);
		EXPECT_LE(r.s.sq_off.entries + (__u64)r.sq_entries *
			  sizeof(struct wsched_sqe), r.s.sq_size);
		EXPECT_LE(r.s.cq_off.entries + (__u64)r.cq_entries *
			  sizeof(struct wsched_cqe), r.s.cq_size);
		EXPECT_EQ(0, r.s.sq_off.entries % 8);
		EXPECT_EQ(0, r.s.cq_off.entries % 8);
		EXPECT_EQ(0, *r.sq_head);
		EXPECT_EQ(0, *r.sq_tail);
		EXPECT_EQ(0, *r.cq_head);
		EXPECT_EQ(0, *r.cq_tail);
		EXPECT_EQ(0, *r.cq_overflow);
		ring_close(&r);
	}
}

/* ---------------------------------------------------------------------
 * mmap.
 */
TEST(mmap_before_setup)
{
	int fd = dev_open();
	void *m;

	ASSERT_LE(0, fd);
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSCHED_OFF_SQ_RING);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 WSCHED_OFF_CQ_RING);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

TEST_F(ctx, mmap_bad_offset)
{
	static const off_t offs[] = {
		PAGE, 2 * PAGE, WSCHED_OFF_CQ_RING - PAGE,
		WSCHED_OFF_CQ_RING + PAGE, 2 * WSCHED_OFF_CQ_RING,
		0x10000000, 0x7ffff000, 0x100000000LL,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		void *m = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
			       self->r.fd, offs[i]);

		EXPECT_EQ(MAP_FAILED, m) TH_LOG("offset %#llx", (long long)offs[i]);
		if (m == MAP_FAILED) {
			EXPECT_EQ(EINVAL, errno) TH_LOG("offset %#llx", (long long)offs[i]);
		} else {
			munmap(m, PAGE);
		}
	}
}

TEST_F(ctx, mmap_too_large)
{
	size_t sq = (self->r.s.sq_size + PAGE - 1) & ~(PAGE - 1);
	size_t cq = (self->r.s.cq_size + PAGE - 1) & ~(PAGE - 1);
	void *m;

	m = mmap(NULL, sq + PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->r.fd, WSCHED_OFF_SQ_RING);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, cq + PAGE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->r.fd, WSCHED_OFF_CQ_RING);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	m = mmap(NULL, 1UL << 30, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->r.fd, WSCHED_OFF_CQ_RING);
	EXPECT_EQ(MAP_FAILED, m);
	EXPECT_EQ(EINVAL, errno);
	/* The exact (page-rounded) size works, as does a second mapping. */
	m = mmap(NULL, sq, PROT_READ | PROT_WRITE, MAP_SHARED, self->r.fd,
		 WSCHED_OFF_SQ_RING);
	ASSERT_NE(MAP_FAILED, m) TH_LOG("mmap: %s", strerror(errno));
	EXPECT_EQ(0, *(__u32 *)((char *)m + self->r.s.sq_off.head));
	munmap(m, sq);
}

TEST_F(ctx, mremap_larger_fails)
{
	void *m = mremap(self->r.sqm, self->r.s.sq_size,
			 self->r.s.sq_size + 16 * PAGE, MREMAP_MAYMOVE);

	EXPECT_EQ(MAP_FAILED, m) TH_LOG("mremap grew the SQ mapping");
	if (m != MAP_FAILED)
		self->r.sqm = m;
	/* The ring is still usable. */
	EXPECT_OK(marker(&self->r, nodes_run(self->r.fd) + 1));
}

/* ---------------------------------------------------------------------
 * WSCHED_IOC_ENTER.
 */
TEST(enter_before_setup)
{
	struct wsched_enter e;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_ENTER, &e));
	e.to_submit = 1;
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_ENTER, &e));
	e.flags = WSCHED_ENTER_GETEVENTS;
	e.min_complete = 1;
	e.timeout_ns = MS_NS;
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_ENTER, &e));
	close(fd);
}

/* ENTER with @e (on a ring holding one pending NOP graph) fails @err. */
static const char *enter_refused(struct ring *r, struct wsched_enter *e, int err)
{
	unsigned long long run0 = nodes_run(r->fd);
	__u32 head0 = load_acq(r->sq_head), cqt0 = load_acq(r->cq_tail);
	int ret;

	store_rel(r->sq_tail, r->tail);
	ret = xioctl(r->fd, WSCHED_IOC_ENTER, e);
	if (ret != -err)
		return why("ENTER returned %s, want %s",
			   ret ? strerror(-ret) : "success", strerror(err));
	if (load_acq(r->sq_head) != head0)
		return why("SQ head moved by %u", load_acq(r->sq_head) - head0);
	return quiet_since(r, run0, cqt0, *r->cq_overflow);
}

static void enter_init(struct wsched_enter *e, __u32 to_submit)
{
	memset(e, 0, sizeof(*e));
	e->size = sizeof(*e);
	e->to_submit = to_submit;
}

/* Push a one-NOP graph that the tests leave pending. */
static void push_pending_nop(struct ring *r)
{
	struct wsched_sqe e;

	sqe_nop(&e, UD(MARK_GID, 1));
	e.flags = WSCHED_SQE_GRAPH_END;
	sq_push(r, &e);
}

/* The pending NOP graph and a marker run: the context works. */
static const char *pending_then_marker(struct ring *r)
{
	struct wsched_cqe c[4];
	unsigned long long run0 = nodes_run(r->fd);
	struct wsched_enter e;
	int ret = ring_submit(r, &e);

	if (ret || e.submitted != 1)
		return why("submitting the pending entry: %s, %u",
			   strerror(-ret), e.submitted);
	if (ring_wait(r, 2, 10000))
		return why("pending graph did not complete");
	if (ring_reap(r, c, 4) != 2)
		return why("pending graph: not 2 completions");
	return marker(r, run0 + 2);
}

/*
 * Refused ENTER arguments, one table: each case sets a field of a valid
 * ENTER (to_submit 1, a one-NOP graph pending); enter_refused() checks
 * the errno, that the SQ head did not move and that nothing ran or
 * completed; then the pending graph and a marker run.
 */
enum enter_field { E_SIZE = 1, E_FLAGS, E_RESV0, E_RESV1 };

struct enter_set {
	enum enter_field f;
	__u64 v;
};

FIXTURE(enter_bad) {
	struct ring r;
};

FIXTURE_VARIANT(enter_bad) {
	struct enter_set c[6];		/* cases; .f 0 ends the list */
	bool each_bit;			/* c[0].f = each bit outside c[0].v */
};

FIXTURE_SETUP(enter_bad)
{
	int ret = ring_open(&self->r, 64, 0, 0);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
}

FIXTURE_TEARDOWN(enter_bad)
{
	ring_close(&self->r);
}

FIXTURE_VARIANT_ADD(enter_bad, bad_size) {
	.c = { { E_SIZE, 0 }, { E_SIZE, 8 },
	       { E_SIZE, sizeof(struct wsched_enter) - 8 },
	       { E_SIZE, sizeof(struct wsched_enter) + 8 }, { E_SIZE, ~0U } },
};
FIXTURE_VARIANT_ADD(enter_bad, unknown_flags) {
	.c = { { E_FLAGS, WSCHED_ENTER_FLAGS } }, .each_bit = true,
};
FIXTURE_VARIANT_ADD(enter_bad, resv_nonzero) {
	.c = { { E_RESV0, 1 }, { E_RESV0, 1ULL << 63 },
	       { E_RESV1, 1 }, { E_RESV1, 1ULL << 63 } },
};

static void enter_set(struct wsched_enter *e, const struct enter_set *c, __u64 v)
{
	enter_init(e, 1);
	switch (c->f) {
	case E_SIZE:
		e->size = v;
		break;
	case E_FLAGS:
		e->flags = v;
		break;
	case E_RESV0:
	case E_RESV1:
		e->resv[c->f - E_RESV0] = v;
		break;
	}
}

TEST_F(enter_bad, refused)
{
	const struct enter_set *c = variant->c;
	struct wsched_enter e;
	unsigned int i, bit;

	push_pending_nop(&self->r);
	for (bit = 0; variant->each_bit && bit < 32; bit++) {
		if ((1ULL << bit) & c[0].v)
			continue;
		enter_set(&e, &c[0], 1ULL << bit);
		EXPECT_OK(enter_refused(&self->r, &e, EINVAL)) TH_LOG("bit %u", bit);
	}
	for (i = 0; !variant->each_bit && i < ARRAY_SIZE(variant->c) && c[i].f; i++) {
		enter_set(&e, &c[i], c[i].v);
		EXPECT_OK(enter_refused(&self->r, &e, EINVAL))
			TH_LOG("case %u: field %u value %#llx", i, c[i].f,
			       (unsigned long long)c[i].v);
	}
	EXPECT_OK(pending_then_marker(&self->r));
}

TEST_F(ctx, enter_fault)
{
	push_pending_nop(&self->r);
	store_rel(self->r.sq_tail, self->r.tail);
	EXPECT_EQ(-EFAULT, xioctl(self->r.fd, WSCHED_IOC_ENTER, (void *)8));
	EXPECT_EQ(0, load_acq(self->r.sq_head));
	EXPECT_OK(pending_then_marker(&self->r));
}

/* An SQ tail more than ring_entries ahead of the head: EINVAL. */
TEST_F(ctx, enter_sq_tail_too_far)
{
	struct ring *r = &self->r;
	struct wsched_enter e;
	__u32 head = load_acq(r->sq_head);
	static const int deltas[] = { 1, 2, 1000, -1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(deltas); i++) {
		__u32 bad = head + r->sq_entries + deltas[i];

		if (deltas[i] < 0)
			bad = head - 1;		/* behind the head */
		enter_init(&e, 1);
		e.submitted = 77;
		store_rel(r->sq_tail, bad);
		EXPECT_EQ(-EINVAL, xioctl(r->fd, WSCHED_IOC_ENTER, &e))
			TH_LOG("tail %u head %u", bad, head);
		EXPECT_EQ(head, load_acq(r->sq_head));
		EXPECT_EQ(0, e.submitted);
	}
	/* A full ring (exactly ring_entries ahead) is fine. */
	r->tail = head;
	store_rel(r->sq_tail, head);
	for (i = 0; i < r->sq_entries; i++) {
		struct wsched_sqe s;

		sqe_nop(&s, UD(MARK_GID, 1));
		s.flags = WSCHED_SQE_GRAPH_END | WSCHED_SQE_NO_CQE;
		ASSERT_TRUE(sq_push(r, &s));
	}
	EXPECT_EQ(0, ring_submit(r, &e));
	EXPECT_EQ(r->sq_entries, e.submitted);
	EXPECT_EQ(0, ring_wait(r, r->sq_entries, 10000));
	EXPECT_EQ(r->sq_entries, ring_reap(r, NULL, ~0U));
	EXPECT_OK(marker(r, r->sq_entries + 1));
}

TEST_F(ctx, enter_to_submit_clamped)
{
	struct ring *r = &self->r;
	struct wsched_sqe e[2];
	struct wsched_enter ent;

	sqe_nop(&e[0], UD(1, 0));
	sqe_nop(&e[1], UD(1, 1));
	e[1].flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(r, &e[0]) && sq_push(r, &e[1]));
	EXPECT_EQ(0, ring_enter(r, 1000, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	EXPECT_EQ(0, ent.sq_error);
	EXPECT_EQ(2, load_acq(r->sq_head));
	EXPECT_EQ(0, ring_enter(r, ~0U, 3, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent));
	EXPECT_EQ(0, ent.submitted);
	EXPECT_EQ(3, ring_reap(r, NULL, ~0U));
	/* Nothing to submit is fine too. */
	EXPECT_EQ(0, ring_enter(r, 0, 0, 0, 0, &ent));
	EXPECT_EQ(0, ent.submitted);
	EXPECT_EQ(0, ent.sq_error);
}

/* ---------------------------------------------------------------------
 * Per-entry checks.  Each refused graph: errno, all its entries
 * consumed, nothing run, no completion, and the context works after.
 */
TEST_F(ring, valid_entries_run)
{
	struct wsched_sqe e;
	struct wsched_cqe c[4];
	unsigned int op;

	/* The entries the refusal tests break are valid as they are. */
	for (op = 0; op <= WSCHED_OP_LAST; op++) {
		sqe_valid(&e, op);
		e.user_data = UD(3, op);
		e.flags = WSCHED_SQE_GRAPH_END;
		ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4)) TH_LOG("op %u", op);
		EXPECT_EQ(op == WSCHED_OP_FAIL ? -5 : 0, c[0].res) TH_LOG("op %u", op);
		EXPECT_EQ(WSCHED_RES_RAN, c[0].flags) TH_LOG("op %u", op);
		EXPECT_TRUE(c[1].flags & WSCHED_CQE_GRAPH);
	}
	/* Boundaries that are still valid. */
	sqe_op(&e, WSCHED_OP_FAIL, 4095, UD(4, 0));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(-4095, c[0].res);
	EXPECT_EQ(-4095, c[1].res);
	sqe_op(&e, WSCHED_OP_FAIL, 1, UD(4, 0));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(-1, c[0].res);
	sqe_range(&e, WSCHED_OP_MEMSET, 0, B0_LEN - 1, 1, 0, 255, UD(4, 1));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(0, c[0].res);
	EXPECT_EQ(255, self->mem[B0_LEN - 1]);
	sqe_range(&e, WSCHED_OP_MEMSET, 2, 0, 1, 0, 0x11, UD(4, 2));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(0, c[0].res);
	EXPECT_EQ(0x11, self->mem[B0_LEN + 3 * PAGE + 7]);
	sqe_range(&e, WSCHED_OP_SHA256, 0, 0, B0_LEN, 1, B1_LEN - 32, UD(4, 3));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(0, c[0].res);
	sqe_range(&e, WSCHED_OP_MEMCPY, 1, 0, B1_LEN, 0, B0_LEN - B1_LEN, UD(4, 4));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, c, 4));
	EXPECT_EQ(0, c[0].res);
}

static int op_list(int fd, struct wsched_op_info *infos, __u32 *nr)
{
	struct wsched_op_list l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.nr = *nr;
	l.ops_ptr = (uintptr_t)infos;
	ret = xioctl(fd, WSCHED_IOC_OP_LIST, &l);
	*nr = l.nr;
	return ret;
}

TEST_F(ring, sqe_unknown_op)
{
	struct wsched_op_info infos[WSCHED_OP_DYNAMIC_MAX + 16];
	__u32 nr = ARRAY_SIZE(infos), i, unused = 0, op;
	/*
	 * Registered numbers carry a generation from 1 up (DYNAMIC + slot +
	 * DYNAMIC_MAX * generation): DYNAMIC + DYNAMIC_MAX - 1 is generation
	 * 0, which no registration gets.
	 */
	__u32 ops[] = { WSCHED_OP_LAST + 1, 100, 255, 0, WSCHED_OP_DYNAMIC +
			WSCHED_OP_DYNAMIC_MAX - 1, 0x10000, 0x80000000U, ~0U };
	struct wsched_sqe bad;

	ASSERT_EQ(0, op_list(self->r.fd, infos, &nr));
	ASSERT_GE(ARRAY_SIZE(infos), nr);
	/* A dynamic number that no module registered. */
	for (op = WSCHED_OP_DYNAMIC; op < WSCHED_OP_DYNAMIC + WSCHED_OP_DYNAMIC_MAX && !unused; op++) {
		for (i = 0; i < nr && infos[i].op != op; i++)
			;
		if (i == nr)
			unused = op;
	}
	ops[3] = unused ? unused : WSCHED_OP_LAST + 2;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		sqe_nop(&bad, 0);
		bad.op = ops[i];
		EXPECT_OK(refused_both(&self->r, &bad, EOPNOTSUPP)) TH_LOG("op %#x", ops[i]);
	}
}

/* Exactly WSCHED_MAX_PREDS is fine (node 1 of the graph below). */
TEST_F(ring, sqe_max_preds)
{
	struct wsched_sqe e[2];
	struct wsched_cqe c[4];

	sqe_nop(&e[0], UD(1, 0));
	sqe_nop(&e[1], UD(1, 1));
	e[1].nr_preds = WSCHED_MAX_PREDS;
	e[1].preds_ptr = (uintptr_t)self->preds;
	e[1].flags = WSCHED_SQE_GRAPH_END;
	EXPECT_EQ(3, run_small(&self->r, e, 2, 3, c, 4));
}

/* [NOP, NOP, bad END]: the bad entry is node 2, preds 0 and 1 exist. */
static const char *refused_at2(struct ring *r, const struct wsched_sqe *bad, int err)
{
	struct wsched_sqe e[3];

	sqe_nop(&e[0], UD(7, 0));
	sqe_nop(&e[1], UD(7, 1));
	e[2] = *bad;
	e[2].flags |= WSCHED_SQE_GRAPH_END;
	return refused(r, e, 3, 3, err);
}

/* Forward predecessors across entries of one call (the rest: sqe.*). */
TEST_F(ring, sqe_forward_preds_in_graph)
{
	struct wsched_sqe e[3];
	unsigned int i;

	/* node 1 waiting for node 2, which exists later in the same graph */
	sqe_nop(&e[0], UD(7, 0));
	sqe_nop(&e[1], UD(7, 1));
	sqe_pred1(&e[1], 2);
	sqe_nop(&e[2], UD(7, 2));
	e[2].flags = WSCHED_SQE_GRAPH_END;
	EXPECT_OK(refused(&self->r, e, 3, 3, EINVAL)) TH_LOG("node 1 pred 2");
	/* numbers restart at 0 in every graph: pred 1 in a second graph's node 0 */
	sqe_nop(&e[0], UD(7, 0));
	sqe_nop(&e[1], UD(7, 1));
	e[1].flags = WSCHED_SQE_GRAPH_END;
	sqe_nop(&e[2], UD(8, 0));
	sqe_pred1(&e[2], 1);
	e[2].flags = WSCHED_SQE_GRAPH_END;
	{
		unsigned long long run0 = nodes_run(self->r.fd);
		struct wsched_enter ent;
		struct wsched_cqe c[8];

		for (i = 0; i < 3; i++)
			ASSERT_TRUE(sq_push(&self->r, &e[i]));
		EXPECT_EQ(-EINVAL, ring_enter(&self->r, 3, 0, 0, 0, &ent));
		EXPECT_EQ(3, ent.submitted);
		EXPECT_EQ(-EINVAL, ent.sq_error);
		/* the first graph did start */
		EXPECT_EQ(0, ring_wait(&self->r, 3, 10000));
		EXPECT_EQ(3, ring_reap(&self->r, c, 8));
		EXPECT_EQ(run0 + 2, nodes_run(self->r.fd));
	}
}

TEST_F(ring, sqe_preds_fault)
{
	long pg = PAGE;
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wsched_sqe bad;
	__u32 *p;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, munmap(m + pg, pg));
	sqe_nop(&bad, 0);
	bad.nr_preds = 2;
	bad.preds_ptr = 8;
	EXPECT_OK(refused_at2(&self->r, &bad, EFAULT)) TH_LOG("preds_ptr 8");
	bad.preds_ptr = 0xffff888000000000ULL;
	EXPECT_OK(refused_at2(&self->r, &bad, EFAULT)) TH_LOG("kernel address");
	bad.preds_ptr = (uintptr_t)(m + pg);
	EXPECT_OK(refused_at2(&self->r, &bad, EFAULT)) TH_LOG("unmapped page");
	/* The first pred readable, the second past the end of the mapping. */
	p = (__u32 *)(m + pg - 4);
	p[0] = 0;
	bad.preds_ptr = (uintptr_t)p;
	EXPECT_OK(refused_at2(&self->r, &bad, EFAULT)) TH_LOG("straddling");
	munmap(m, pg);
}

/*
 * Refused entries, one table: each variant breaks the valid entry
 * (sqe_valid()) of each op it names, in one or more cases, each case a
 * few fields set; refused() checks the errno, that the whole graph was
 * consumed, that nothing ran or completed, and that a marker graph runs
 * after it.  Where the bad entry stands: PLACE_BOTH (node 1 of three, and
 * alone), PLACE_MID (node 1 of three), PLACE_AT2 (node 2 of three: preds
 * 0 and 1 exist), PLACE_ALONE (node 0 of one).
 */
enum place { PLACE_BOTH, PLACE_MID, PLACE_AT2, PLACE_ALONE };

/* More fields a case sets, beyond F_BUF..F_ARG. */
#define F_FLAGS		0x20
#define F_OP		0x40
#define F_NR_PREDS	0x80
#define F_PRED		0x100
#define F_PREDS_ZERO	0x200	/* preds_ptr to the fixture's preds, all 0 */
#define F_PREDS_01	0x400	/* preds_ptr to { 0, 1 } */
#define F_PREDS_0_V	0x800	/* nr_preds 2, preds { 0, v } */
#define F_VALID		0x1000	/* nothing: the valid entry as it is */

#define BIT_OP(op)	(1U << (op))
#define OPS_DATA	(BIT_OP(WSCHED_OP_MEMCPY) | BIT_OP(WSCHED_OP_MEMSET) | \
			 BIT_OP(WSCHED_OP_MEMCMP) | BIT_OP(WSCHED_OP_CRC32C) | \
			 BIT_OP(WSCHED_OP_XXHASH64) | BIT_OP(WSCHED_OP_SHA256))
#define OPS_COPY	(BIT_OP(WSCHED_OP_MEMCPY) | BIT_OP(WSCHED_OP_MEMCMP))
/* One range of len (sha256: the second holds the digest) */
#define OPS_ONE_RANGE	(OPS_DATA & ~OPS_COPY)
#define OPS_ALL		((1U << (WSCHED_OP_LAST + 1)) - 1)

enum bufs { BUFS_REGISTERED, BUFS_NEVER, BUFS_UNREGISTERED };

struct sqe_set {
	unsigned int f;
	__u64 v;
};

FIXTURE(sqe) {
	FIXTURE_DATA(ring) d;
};

FIXTURE_VARIANT(sqe) {
	__u32 ops;			/* BIT_OP() of each op broken */
	unsigned int unused;		/* only ops that do not use this F_* */
	struct sqe_set c[8][5];		/* cases; .f 0 ends a case and the list */
	bool each_bit;			/* c[0][0].f = each bit outside its .v */
	enum bufs bufs;
	enum place place;
	int err;
};

#define SQE(name, o, pl, e, ...)					\
	FIXTURE_VARIANT_ADD(sqe, name) {				\
		.ops = (o), .place = (pl), .err = (e),			\
		.c = { __VA_ARGS__ },					\
	}

FIXTURE_VARIANT_ADD(sqe, unknown_flags) {
	.ops = BIT_OP(WSCHED_OP_NOP), .place = PLACE_BOTH, .err = EINVAL,
	.each_bit = true, .c = { { { F_FLAGS, WSCHED_SQE_FLAGS } } },
};

#define SQE_UNUSED(name, field)						\
	FIXTURE_VARIANT_ADD(sqe, name) {				\
		.ops = OPS_ALL, .unused = (field), .place = PLACE_BOTH,	\
		.err = EINVAL, .c = { { { field, 1 } } },		\
	}

SQE_UNUSED(unused_buf_nonzero, F_BUF);
SQE_UNUSED(unused_buf2_nonzero, F_BUF2);
SQE_UNUSED(unused_off_nonzero, F_OFF);
SQE_UNUSED(unused_len_nonzero, F_LEN);
SQE_UNUSED(unused_arg_nonzero, F_ARG);

/* preds all 0: valid numbers, only the count is wrong */
SQE(too_many_preds, BIT_OP(WSCHED_OP_NOP), PLACE_MID, E2BIG,
	{ { F_PREDS_ZERO }, { F_NR_PREDS, WSCHED_MAX_PREDS + 1 } },
	{ { F_PREDS_ZERO }, { F_NR_PREDS, 1000 } },
	{ { F_PREDS_ZERO }, { F_NR_PREDS, ~0U } });
SQE(preds_inconsistent, BIT_OP(WSCHED_OP_NOP), PLACE_AT2, EINVAL,
	/* nr_preds 1 with a preds_ptr (pred itself valid) */
	{ { F_NR_PREDS, 1 }, { F_PRED, 1 }, { F_PREDS_01 } },
	{ { F_NR_PREDS, 1 }, { F_PRED, 0 }, { F_PREDS_01 } },
	/* nr_preds > 1 with a pred */
	{ { F_NR_PREDS, 2 }, { F_PRED, 1 }, { F_PREDS_01 } },
	/* nr_preds 0 with a pred or a preds_ptr */
	{ { F_PRED, 1 } },
	{ { F_PREDS_01 } });
/* nr_preds > 1 without a preds_ptr */
SQE(preds_ptr_missing, BIT_OP(WSCHED_OP_NOP), PLACE_AT2, EFAULT,
	{ { F_NR_PREDS, 2 } });
/* node 2: pred 2 (itself), or later ones */
SQE(pred_self_or_forward, BIT_OP(WSCHED_OP_NOP), PLACE_AT2, EINVAL,
	{ { F_NR_PREDS, 1 }, { F_PRED, 2 } },
	{ { F_NR_PREDS, 1 }, { F_PRED, 3 } },
	{ { F_NR_PREDS, 1 }, { F_PRED, 1000 } },
	{ { F_NR_PREDS, 1 }, { F_PRED, 0x7fffffff } },
	{ { F_NR_PREDS, 1 }, { F_PRED, ~0U } });
SQE(preds_forward, BIT_OP(WSCHED_OP_NOP), PLACE_AT2, EINVAL,
	{ { F_PREDS_0_V, 2 } }, { { F_PREDS_0_V, 3 } }, { { F_PREDS_0_V, 1000 } },
	{ { F_PREDS_0_V, 0x7fffffff } }, { { F_PREDS_0_V, ~0U } });
/* node 0 waiting for itself */
SQE(first_node_pred_self, BIT_OP(WSCHED_OP_NOP), PLACE_ALONE, EINVAL,
	{ { F_NR_PREDS, 1 }, { F_PRED, 0 } });

FIXTURE_VARIANT_ADD(sqe, data_op_without_buffers) {
	.ops = OPS_DATA, .bufs = BUFS_NEVER, .place = PLACE_BOTH,
	.err = EINVAL, .c = { { { F_VALID } } },
};
FIXTURE_VARIANT_ADD(sqe, data_op_after_unregister) {
	.ops = BIT_OP(WSCHED_OP_MEMSET), .bufs = BUFS_UNREGISTERED,
	.place = PLACE_BOTH, .err = EINVAL, .c = { { { F_VALID } } },
};

SQE(bad_buffer_index, OPS_DATA, PLACE_BOTH, EINVAL,
	{ { F_BUF, 3 } }, { { F_BUF, 4 } }, { { F_BUF, WSCHED_MAX_BUFS - 1 } },
	{ { F_BUF, WSCHED_MAX_BUFS } }, { { F_BUF, 0x10000 } }, { { F_BUF, ~0U } });
SQE(bad_buffer2_index, OPS_COPY | BIT_OP(WSCHED_OP_SHA256), PLACE_BOTH, EINVAL,
	{ { F_BUF2, 3 } }, { { F_BUF2, 4 } }, { { F_BUF2, WSCHED_MAX_BUFS - 1 } },
	{ { F_BUF2, WSCHED_MAX_BUFS } }, { { F_BUF2, 0x10000 } }, { { F_BUF2, ~0U } });

/* first range: one byte too long, or starting at the end */
SQE(range_too_long, OPS_ONE_RANGE, PLACE_BOTH, ERANGE,
	{ { F_OFF, 0 }, { F_LEN, B0_LEN + 1 } });
SQE(range_too_long_copy, OPS_COPY, PLACE_BOTH, ERANGE,
	{ { F_OFF, 0 }, { F_LEN, B0_LEN + 1 }, { F_BUF2, 0 }, { F_ARG, 0 } });
SQE(range_at_end, OPS_DATA, PLACE_BOTH, ERANGE,
	{ { F_OFF, B0_LEN }, { F_LEN, 1 } });
/* two bytes of the one-byte buffer */
SQE(range_one_byte_buffer, OPS_ONE_RANGE, PLACE_BOTH, ERANGE,
	{ { F_BUF, 2 }, { F_OFF, 0 }, { F_LEN, 2 } });
SQE(range_one_byte_buffer_copy, OPS_COPY, PLACE_BOTH, ERANGE,
	{ { F_BUF, 2 }, { F_OFF, 0 }, { F_LEN, 2 }, { F_BUF2, 0 }, { F_ARG, 0 } });
/* second range (sqe_valid(): len 100 in buffer 1 of B1_LEN) */
SQE(range2_too_far, OPS_COPY, PLACE_BOTH, ERANGE,
	{ { F_ARG, B1_LEN - 100 + 1 } });
SQE(range2_too_long, OPS_COPY, PLACE_BOTH, ERANGE,
	{ { F_LEN, B1_LEN + 1 }, { F_BUF, 0 }, { F_ARG, 0 } });
SQE(sha256_digest_outside, BIT_OP(WSCHED_OP_SHA256), PLACE_BOTH, ERANGE,
	{ { F_ARG, B1_LEN - 31 } },			/* the digest does not fit */
	{ { F_BUF2, 2 }, { F_ARG, 0 } });		/* into 1 byte */

SQE(range_overflow, OPS_DATA, PLACE_BOTH, ERANGE,
	{ { F_OFF, ~0ULL }, { F_LEN, 1 } },
	{ { F_OFF, ~0ULL - 1 }, { F_LEN, 2 } },
	{ { F_OFF, 1 }, { F_LEN, ~0ULL } },
	{ { F_OFF, ~0ULL }, { F_LEN, ~0ULL } },
	{ { F_OFF, 1ULL << 63 }, { F_LEN, 1ULL << 63 } },
	{ { F_OFF, (1ULL << 63) + 16 }, { F_LEN, (1ULL << 63) - 8 } },
	{ { F_OFF, 0x100000000ULL }, { F_LEN, 16 } });
/* second range: arg + len overflows */
SQE(range2_overflow, OPS_COPY, PLACE_BOTH, ERANGE,
	{ { F_LEN, 16 }, { F_ARG, ~0ULL - 8 } });
SQE(sha256_digest_overflow, BIT_OP(WSCHED_OP_SHA256), PLACE_BOTH, ERANGE,
	{ { F_ARG, ~0ULL - 8 } });
SQE(data_len_zero, OPS_DATA, PLACE_BOTH, EINVAL, { { F_LEN, 0 } });

SQE(spin_arg, BIT_OP(WSCHED_OP_SPIN), PLACE_BOTH, EINVAL,
	{ { F_ARG, WSCHED_SPIN_MAX + 1ULL } }, { { F_ARG, 1ULL << 32 } },
	{ { F_ARG, ~0ULL } });
SQE(fail_arg, BIT_OP(WSCHED_OP_FAIL), PLACE_BOTH, EINVAL,
	{ { F_ARG, 0 } }, { { F_ARG, 4096 } }, { { F_ARG, 65536 } },
	{ { F_ARG, 1ULL << 32 | 5 } }, { { F_ARG, ~0ULL } });
SQE(memset_arg, BIT_OP(WSCHED_OP_MEMSET), PLACE_BOTH, EINVAL,
	{ { F_ARG, 256 } }, { { F_ARG, 0x1ff } }, { { F_ARG, 1ULL << 32 } },
	{ { F_ARG, ~0ULL } });

FIXTURE_SETUP(sqe)
{
	ring_fixture(_metadata, &self->d, variant->bufs != BUFS_NEVER);
	if (variant->bufs == BUFS_UNREGISTERED)
		ASSERT_EQ(0, unreg_bufs(self->d.r.fd));
}

FIXTURE_TEARDOWN(sqe)
{
	ring_close(&self->d.r);
	munmap(self->d.mem, BUFMEM);
}

static void sqe_set(struct wsched_sqe *e, __u32 *preds, unsigned int f, __u64 v)
{
	switch (f) {
	case F_BUF:
		e->buf = v;
		break;
	case F_BUF2:
		e->buf2 = v;
		break;
	case F_OFF:
		e->off = v;
		break;
	case F_LEN:
		e->len = v;
		break;
	case F_ARG:
		e->arg = v;
		break;
	case F_FLAGS:
		e->flags = v;
		break;
	case F_OP:
		e->op = v;
		break;
	case F_NR_PREDS:
		e->nr_preds = v;
		break;
	case F_PRED:
		e->pred = v;
		break;
	case F_PREDS_ZERO:
		memset(preds, 0, (WSCHED_MAX_PREDS + 1) * sizeof(*preds));
		e->preds_ptr = (uintptr_t)preds;
		break;
	case F_PREDS_01:
		preds[0] = 0;
		preds[1] = 1;
		e->preds_ptr = (uintptr_t)preds;
		break;
	case F_PREDS_0_V:
		preds[0] = 0;
		preds[1] = v;
		sqe_preds(e, preds, 2);
		break;
	}
}

static const char *refused_at(struct ring *r, const struct wsched_sqe *bad,
			      enum place place, int err)
{
	switch (place) {
	case PLACE_MID:
		return refused_mid(r, bad, err);
	case PLACE_AT2:
		return refused_at2(r, bad, err);
	case PLACE_ALONE:
		return refused_alone(r, bad, err);
	default:
		return refused_both(r, bad, err);
	}
}

TEST_F(sqe, refused)
{
	const struct sqe_set *c;
	struct wsched_sqe bad;
	unsigned int op, i, j, bit, tried = 0;

	for (op = 0; op <= WSCHED_OP_LAST; op++) {
		if (!(variant->ops & BIT_OP(op)) || op_fields[op] & variant->unused)
			continue;
		for (bit = 0; variant->each_bit && bit < 32; bit++) {
			c = &variant->c[0][0];
			if ((1ULL << bit) & c->v)
				continue;
			sqe_valid(&bad, op);
			sqe_set(&bad, self->d.preds, c->f, 1ULL << bit);
			EXPECT_OK(refused_at(&self->d.r, &bad, variant->place, variant->err))
				TH_LOG("op %s bit %u", op_names[op], bit);
			tried++;
		}
		for (i = 0; !variant->each_bit && i < ARRAY_SIZE(variant->c); i++) {
			c = variant->c[i];
			if (!c[0].f)
				break;
			sqe_valid(&bad, op);
			for (j = 0; j < ARRAY_SIZE(variant->c[i]) && c[j].f; j++)
				sqe_set(&bad, self->d.preds, c[j].f, c[j].v);
			EXPECT_OK(refused_at(&self->d.r, &bad, variant->place, variant->err))
				TH_LOG("op %s case %u", op_names[op], i);
			tried++;
		}
	}
	EXPECT_LT(0, tried);
}

/* A graph of @limit + 70 entries is refused, one of @limit runs. */
static void graph_too_big(struct __test_metadata *_metadata, struct ring *r,
			  __u32 limit)
{
	unsigned long long run0 = nodes_run(r->fd);
	__u32 cqt0 = load_acq(r->cq_tail), i = 0, extra;
	struct wsched_enter ent;
	struct wsched_sqe e;
	bool refused_seen = false;
	struct tg *t;
	int ret;

	/*
	 * limit + 70 entries, the end on the last, 64 per ENTER: the one
	 * numbered limit is refused (E2BIG) in the ENTER that consumes it,
	 * the rest up to the end entry is dropped by later ENTERs.
	 */
	extra = 70;
	while (i < limit + extra) {
		__u32 pushed = 0, head0 = load_acq(r->sq_head);

		/* 64 at a time: the end entry comes in a later call */
		while (i + pushed < limit + extra && sq_room(r) && pushed < 64) {
			sqe_nop(&e, UD(9, i + pushed));
			e.flags = WSCHED_SQE_NO_CQE;
			if (i + pushed == limit + extra - 1)
				e.flags |= WSCHED_SQE_GRAPH_END;
			sq_push(r, &e);
			pushed++;
		}
		ret = ring_enter(r, pushed, 0, 0, 0, &ent);
		if (!refused_seen && i + pushed > limit) {
			/* this call holds node number @limit */
			EXPECT_EQ(-E2BIG, ret) TH_LOG("entries %u..%u", i, i + pushed - 1);
			EXPECT_EQ(-E2BIG, ent.sq_error);
			refused_seen = true;
		} else {
			EXPECT_EQ(0, ret) TH_LOG("entries %u..%u: %s", i,
						 i + pushed - 1, strerror(-ret));
		}
		EXPECT_EQ(pushed, ent.submitted);
		EXPECT_EQ(pushed, load_acq(r->sq_head) - head0);
		if (ent.submitted != pushed)
			break;
		i += pushed;
	}
	EXPECT_OK(quiet_since(r, run0, cqt0, 0));
	EXPECT_OK(marker(r, run0 + 1));
	/* A graph of exactly @limit nodes runs. */
	t = tg_alloc(0, limit);
	ASSERT_NE(NULL, t);
	for (i = 0; i < limit; i++) {
		sqe_nop(&t->e[i], UD(0, i));
		t->e[i].flags = WSCHED_SQE_NO_CQE;
	}
	tg_finish(t);
	EXPECT_OK(run_ok(r, t, 240));
	tg_free(t);
}

/* ---------------------------------------------------------------------
 * How refused graphs are consumed.
 */

/* The bad entry in the first ENTER, the end entry in a later one. */
TEST_F(ring, refused_end_in_later_enter)
{
	struct ring *r = &self->r;
	unsigned long long run0 = nodes_run(r->fd);
	__u32 cqt0 = load_acq(r->cq_tail);
	struct wsched_sqe e[5];
	struct wsched_enter ent;
	struct wsched_cqe c[8];
	unsigned int i;

	sqe_nop(&e[0], UD(7, 0));
	sqe_op(&e[1], WSCHED_OP_FAIL, 0, UD(7, 1));	/* FAIL 0: EINVAL */
	sqe_nop(&e[2], UD(7, 2));
	sqe_nop(&e[3], UD(7, 3));
	e[3].flags = WSCHED_SQE_GRAPH_END;
	sqe_nop(&e[4], UD(MARK_GID, 0));
	e[4].flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(r, &e[0]) && sq_push(r, &e[1]));
	EXPECT_EQ(-EINVAL, ring_enter(r, 2, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	EXPECT_EQ(-EINVAL, ent.sq_error);
	EXPECT_OK(quiet_since(r, run0, cqt0, 0));
	/* The rest of the refused graph, then a valid one, in one call. */
	for (i = 2; i < 5; i++)
		ASSERT_TRUE(sq_push(r, &e[i]));
	EXPECT_EQ(0, ring_enter(r, 3, 2, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent))
		TH_LOG("%s", strerror(errno));
	EXPECT_EQ(3, ent.submitted);
	EXPECT_EQ(0, ent.sq_error);
	EXPECT_EQ(5, load_acq(r->sq_head));
	EXPECT_EQ(2, ring_reap(r, c, 8));
	EXPECT_EQ(UD(MARK_GID, 0), c[0].user_data);
	EXPECT_EQ(UD(MARK_GID, 0), c[1].user_data);
	EXPECT_EQ(run0 + 1, nodes_run(r->fd));
	/* Dropped one entry at a time. */
	sqe_op(&e[1], WSCHED_OP_SPIN, WSCHED_SPIN_MAX + 1ULL, UD(7, 1));
	for (i = 0; i < 4; i++) {
		ASSERT_TRUE(sq_push(r, &e[i]));
		EXPECT_EQ(i == 1 ? -EINVAL : 0, ring_enter(r, 1, 0, 0, 0, &ent))
			TH_LOG("entry %u", i);
		EXPECT_EQ(1, ent.submitted);
	}
	EXPECT_OK(quiet_since(r, run0 + 1, cqt0 + 2, 0));
	EXPECT_OK(marker(r, run0 + 2));
}

/* The graph's first entries in an earlier ENTER, the bad one later. */
TEST_F(ring, refused_started_in_earlier_enter)
{
	struct ring *r = &self->r;
	unsigned long long run0 = nodes_run(r->fd);
	__u32 cqt0 = load_acq(r->cq_tail);
	struct wsched_sqe e[4];
	struct wsched_enter ent;

	sqe_nop(&e[0], UD(7, 0));
	sqe_nop(&e[1], UD(7, 1));
	sqe_op(&e[2], WSCHED_OP_FAIL, 4096, UD(7, 2));
	sqe_nop(&e[3], UD(7, 3));
	e[3].flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(r, &e[0]) && sq_push(r, &e[1]));
	EXPECT_EQ(0, ring_enter(r, 2, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	ASSERT_TRUE(sq_push(r, &e[2]) && sq_push(r, &e[3]));
	EXPECT_EQ(-EINVAL, ring_enter(r, 2, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	EXPECT_EQ(-EINVAL, ent.sq_error);
	EXPECT_OK(quiet_since(r, run0, cqt0, 0));
	EXPECT_OK(marker(r, run0 + 1));
}

/* to_submit stops inside the refused graph: the rest is dropped later. */
TEST_F(ring, refused_partial_to_submit)
{
	struct ring *r = &self->r;
	unsigned long long run0 = nodes_run(r->fd);
	__u32 cqt0 = load_acq(r->cq_tail);
	struct wsched_sqe e[5];
	struct wsched_enter ent;
	unsigned int i;

	for (i = 0; i < 5; i++)
		sqe_nop(&e[i], UD(7, i));
	e[1].op = 0x7777;
	e[4].flags = WSCHED_SQE_GRAPH_END;
	for (i = 0; i < 5; i++)
		ASSERT_TRUE(sq_push(r, &e[i]));
	EXPECT_EQ(-EOPNOTSUPP, ring_enter(r, 3, 0, 0, 0, &ent));
	EXPECT_EQ(3, ent.submitted);
	EXPECT_EQ(-EOPNOTSUPP, ent.sq_error);
	EXPECT_EQ(3, load_acq(r->sq_head));
	EXPECT_EQ(0, ring_enter(r, 2, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	EXPECT_EQ(5, load_acq(r->sq_head));
	EXPECT_OK(quiet_since(r, run0, cqt0, 0));
	EXPECT_OK(marker(r, run0 + 1));
}

/* A bad entry that is itself the end entry: consumption stops there. */
TEST_F(ring, refused_bad_end_entry)
{
	struct ring *r = &self->r;
	unsigned long long run0 = nodes_run(r->fd);
	struct wsched_sqe e[3];
	struct wsched_enter ent;
	struct wsched_cqe c[4];

	sqe_nop(&e[0], UD(7, 0));
	sqe_nop(&e[1], UD(7, 1));
	e[1].flags = WSCHED_SQE_GRAPH_END | (1U << 7);
	sqe_nop(&e[2], UD(MARK_GID, 0));
	e[2].flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(r, &e[0]) && sq_push(r, &e[1]) && sq_push(r, &e[2]));
	EXPECT_EQ(-EINVAL, ring_enter(r, 3, 0, 0, 0, &ent));
	EXPECT_EQ(2, ent.submitted);
	EXPECT_EQ(2, load_acq(r->sq_head));
	EXPECT_OK(quiet_since(r, run0, 0, 0));
	/* The next graph was left in the SQ, intact. */
	EXPECT_EQ(0, ring_enter(r, 1, 2, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent));
	EXPECT_EQ(1, ent.submitted);
	EXPECT_EQ(2, ring_reap(r, c, 4));
	EXPECT_EQ(UD(MARK_GID, 0), c[0].user_data);
	EXPECT_EQ(run0 + 1, nodes_run(r->fd));
}

/* Graphs before the refused one in the same call start; later ones wait. */
TEST_F(ring, graphs_before_refused_run)
{
	struct ring *r = &self->r;
	unsigned long long run0 = nodes_run(r->fd);
	struct wsched_sqe e[6];
	struct wsched_enter ent;
	struct wsched_cqe c[8];
	unsigned int i, n;

	sqe_nop(&e[0], UD(1, 0));			/* graph A: 2 nodes */
	sqe_nop(&e[1], UD(1, 1));
	sqe_pred1(&e[1], 0);
	e[1].flags = WSCHED_SQE_GRAPH_END;
	sqe_nop(&e[2], UD(2, 0));			/* graph B: refused */
	sqe_op(&e[3], WSCHED_OP_MEMSET, 256, UD(2, 1));
	e[3].len = 1;
	sqe_nop(&e[4], UD(2, 2));
	e[4].flags = WSCHED_SQE_GRAPH_END;
	sqe_nop(&e[5], UD(3, 0));			/* graph C */
	e[5].flags = WSCHED_SQE_GRAPH_END;
	for (i = 0; i < 6; i++)
		ASSERT_TRUE(sq_push(r, &e[i]));
	EXPECT_EQ(-EINVAL, ring_enter(r, 6, 0, 0, 0, &ent));
	EXPECT_EQ(5, ent.submitted);
	EXPECT_EQ(-EINVAL, ent.sq_error);
	EXPECT_EQ(5, load_acq(r->sq_head));
	/* A completes: 2 node CQEs and its graph CQE. */
	EXPECT_EQ(0, ring_wait(r, 3, 10000));
	usleep(10000);
	n = ring_reap(r, c, 8);
	EXPECT_EQ(3, n);
	for (i = 0; i < n; i++)
		EXPECT_EQ(1, UD_G(c[i].user_data)) TH_LOG("CQE %u ud %llx", i,
				(unsigned long long)c[i].user_data);
	EXPECT_EQ(run0 + 2, nodes_run(r->fd));
	/* C is still in the SQ and runs now. */
	EXPECT_EQ(0, ring_enter(r, 1, 2, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent));
	EXPECT_EQ(1, ent.submitted);
	n = ring_reap(r, c, 8);
	EXPECT_EQ(2, n);
	EXPECT_EQ(3, UD_G(c[0].user_data));
	EXPECT_EQ(run0 + 3, nodes_run(r->fd));
}

/* ---------------------------------------------------------------------
 * Buffer registration.
 */

/* Register @nr buffers with @reg's fields; expect @err and no pinning. */
static const char *reg_refused(int fd, struct wsched_buf_reg *reg, int err)
{
	long lck0 = vmlck_kb();
	int ret = xioctl(fd, WSCHED_IOC_REGISTER_BUFFERS, reg);

	if (ret != -err)
		return why("REGISTER returned %s, want %s",
			   ret ? strerror(-ret) : "success", strerror(err));
	if (vmlck_kb() != lck0)
		return why("VmLck %ld kB -> %ld kB", lck0, vmlck_kb());
	/* Nothing is registered. */
	if (unreg_bufs(fd) != -ENXIO)
		return why("UNREGISTER after a refused REGISTER: not ENXIO");
	return NULL;
}

static void reg_init(struct wsched_buf_reg *reg, const struct wsched_buf *b, __u32 nr)
{
	memset(reg, 0, sizeof(*reg));
	reg->size = sizeof(*reg);
	reg->nr = nr;
	reg->bufs_ptr = (uintptr_t)b;
}

FIXTURE(reg) {
	struct ring r;
	unsigned char *mem;
	size_t len;
	struct wsched_buf b[WSCHED_MAX_BUFS + 1];
};

/* Buffer i: 64 bytes at mem + i % 4096. */
static void reg_bufs_init(FIXTURE_DATA(reg) *self)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(self->b); i++) {
		self->b[i].addr = (uintptr_t)self->mem + i % 4096;
		self->b[i].len = 64;
	}
}

static void reg_fixture(struct __test_metadata *_metadata, FIXTURE_DATA(reg) *self)
{
	int ret = ring_open(&self->r, 16, 0, 0);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	self->len = 4 * PAGE;
	self->mem = mmap(NULL, self->len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	memset(self->mem, 1, self->len);
	reg_bufs_init(self);
}

FIXTURE_SETUP(reg)
{
	reg_fixture(_metadata, self);
}

FIXTURE_TEARDOWN(reg)
{
	ring_close(&self->r);
	munmap(self->mem, self->len);
}

TEST_F(reg, struct_fault)
{
	struct wsched_buf_reg reg;

	EXPECT_EQ(-EFAULT, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, (void *)8));
	/* Then a valid one works. */
	reg_init(&reg, self->b, 1);
	EXPECT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
}

/* WSCHED_MAX_BUFS buffers are fine. */
TEST_F(reg, max_nr)
{
	struct wsched_buf_reg reg;

	reg_init(&reg, self->b, WSCHED_MAX_BUFS);
	EXPECT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	EXPECT_EQ(0, unreg_bufs(self->r.fd));
}

/*
 * Refused registrations, one table: each case sets fields of a valid
 * REGISTER_BUFFERS (.nr buffers of 64 bytes); reg_refused() checks the
 * errno, that VmLck did not move and that nothing is registered.
 */
enum reg_field { R_SIZE = 1, R_FLAGS, R_RESV0, R_RESV, R_NR, R_LEN, R_ADDR };

struct reg_set {
	enum reg_field f;
	unsigned int i;		/* R_RESV: which; R_LEN, R_ADDR: which buffer */
	__u64 v;
};

FIXTURE(reg_bad) {
	FIXTURE_DATA(reg) d;
};

FIXTURE_VARIANT(reg_bad) {
	__u32 nr;			/* buffers in a valid registration */
	struct reg_set c[4][2];		/* cases; .f 0 ends a case and the list */
	bool each_bit;			/* c[0][0].f = each bit outside its .v */
	int err;
};

#define REG_BAD(name, n, e, ...)					\
	FIXTURE_VARIANT_ADD(reg_bad, name) {				\
		.nr = (n), .err = (e), .c = { __VA_ARGS__ },		\
	}

REG_BAD(size, 1, EINVAL, { { R_SIZE, 0, sizeof(struct wsched_buf_reg) - 8 } },
	{ { R_SIZE, 0, sizeof(struct wsched_buf_reg) + 8 } }, { { R_SIZE, 0, 0 } });
FIXTURE_VARIANT_ADD(reg_bad, flags) {
	.nr = 1, .err = EINVAL, .c = { { { R_FLAGS, 0, 0 } } }, .each_bit = true,
};
REG_BAD(resv_nonzero, 1, EINVAL, { { R_RESV0, 0, 1 } }, { { R_RESV, 0, 1 } },
	{ { R_RESV, 1, 1 } });
REG_BAD(nr, 1, EINVAL, { { R_NR, 0, 0 } }, { { R_NR, 0, WSCHED_MAX_BUFS + 1 } },
	{ { R_NR, 0, ~0U } });
/* the bad buffer first, in the middle, last */
REG_BAD(len_zero, 5, EINVAL, { { R_LEN, 0, 0 } }, { { R_LEN, 2, 0 } },
	{ { R_LEN, 4, 0 } });
REG_BAD(len_too_big, 5, EINVAL, { { R_LEN, 0, WSCHED_BUF_MAX_LEN + 1 } },
	{ { R_LEN, 2, WSCHED_BUF_MAX_LEN + 1 } },
	{ { R_LEN, 4, WSCHED_BUF_MAX_LEN + 1 } });
REG_BAD(len_all_ones, 5, EINVAL, { { R_LEN, 0, ~0ULL } }, { { R_LEN, 2, ~0ULL } },
	{ { R_LEN, 4, ~0ULL } });
REG_BAD(addr_overflow, 2, EINVAL,
	{ { R_ADDR, 1, ~0ULL - 100 }, { R_LEN, 1, 4096 } },
	{ { R_ADDR, 1, ~0ULL }, { R_LEN, 1, 2 } });

FIXTURE_SETUP(reg_bad)
{
	reg_fixture(_metadata, &self->d);
}

FIXTURE_TEARDOWN(reg_bad)
{
	ring_close(&self->d.r);
	munmap(self->d.mem, self->d.len);
}

static void reg_set(FIXTURE_DATA(reg) *d, struct wsched_buf_reg *reg,
		    const struct reg_set *c, __u64 v)
{
	switch (c->f) {
	case R_SIZE:
		reg->size = v;
		break;
	case R_FLAGS:
		reg->flags = v;
		break;
	case R_RESV0:
		reg->resv0 = v;
		break;
	case R_RESV:
		reg->resv[c->i] = v;
		break;
	case R_NR:
		reg->nr = v;
		break;
	case R_LEN:
		d->b[c->i].len = v;
		break;
	case R_ADDR:
		d->b[c->i].addr = v;
		break;
	}
}

TEST_F(reg_bad, refused)
{
	const struct reg_set *c;
	struct wsched_buf_reg reg;
	unsigned int i, j, bit;

	for (bit = 0; variant->each_bit && bit < 32; bit++) {
		c = &variant->c[0][0];
		if ((1ULL << bit) & c->v)
			continue;
		reg_bufs_init(&self->d);
		reg_init(&reg, self->d.b, variant->nr);
		reg_set(&self->d, &reg, c, 1ULL << bit);
		EXPECT_OK(reg_refused(self->d.r.fd, &reg, variant->err)) TH_LOG("bit %u", bit);
	}
	for (i = 0; !variant->each_bit && i < ARRAY_SIZE(variant->c); i++) {
		c = variant->c[i];
		if (!c[0].f)
			break;
		reg_bufs_init(&self->d);
		reg_init(&reg, self->d.b, variant->nr);
		for (j = 0; j < ARRAY_SIZE(variant->c[i]) && c[j].f; j++)
			reg_set(&self->d, &reg, &c[j], c[j].v);
		EXPECT_OK(reg_refused(self->d.r.fd, &reg, variant->err)) TH_LOG("case %u", i);
	}
}

TEST_F(reg, bad_addr)
{
	struct wsched_buf_reg reg;
	char *m = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, munmap(m + PAGE, PAGE));
	reg_init(&reg, self->b, 2);
	self->b[1].addr = 0;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("NULL");
	self->b[1].addr = 4096;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("4096");
	self->b[1].addr = 0xffff888000000000ULL;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("kernel address");
	self->b[1].addr = (uintptr_t)m + PAGE;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("unmapped");
	/* Straddling into the unmapped page. */
	self->b[1].addr = (uintptr_t)m + PAGE - 10;
	self->b[1].len = 20;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("straddling");
	/* The array of buffers unreadable. */
	reg_init(&reg, (void *)(m + PAGE), 2);
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("bufs_ptr unmapped");
	reg_init(&reg, (void *)(m + PAGE - sizeof(struct wsched_buf)), 2);
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("bufs_ptr straddling");
	munmap(m, PAGE);
}

TEST_F(reg, read_only_memory)
{
	struct wsched_buf_reg reg;
	char *m = mmap(NULL, 2 * PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int fd;
	char path[] = "/tmp/ring_test_ro_XXXXXX";

	ASSERT_NE(MAP_FAILED, m);
	reg_init(&reg, self->b, 2);
	self->b[1].addr = (uintptr_t)m;
	self->b[1].len = 100;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("PROT_READ anon");
	munmap(m, 2 * PAGE);
	/* A read-only shared file mapping. */
	fd = mkstemp(path);
	ASSERT_LE(0, fd);
	unlink(path);
	ASSERT_EQ(0, ftruncate(fd, PAGE));
	m = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	ASSERT_NE(MAP_FAILED, m);
	self->b[1].addr = (uintptr_t)m;
	EXPECT_OK(reg_refused(self->r.fd, &reg, EFAULT)) TH_LOG("PROT_READ file");
	munmap(m, PAGE);
	close(fd);
}

TEST_F(reg, twice)
{
	struct wsched_buf_reg reg;
	long lck0;

	reg_init(&reg, self->b, 2);
	ASSERT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	lck0 = vmlck_kb();
	EXPECT_EQ(-EBUSY, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	reg_init(&reg, self->b, 1);
	EXPECT_EQ(-EBUSY, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	EXPECT_EQ(lck0, vmlck_kb());
	EXPECT_EQ(0, unreg_bufs(self->r.fd));
	EXPECT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
}

TEST_F(reg, unregister_none)
{
	int fd;

	EXPECT_EQ(-ENXIO, unreg_bufs(self->r.fd));
	EXPECT_EQ(0, reg_bufs(self->r.fd, self->b, 1));
	EXPECT_EQ(0, unreg_bufs(self->r.fd));
	EXPECT_EQ(-ENXIO, unreg_bufs(self->r.fd));
	/* Also without any setup. */
	fd = dev_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENXIO, unreg_bufs(fd));
	close(fd);
}

TEST_F(reg, over_max_pinned)
{
	struct wsched_probe p;
	struct wsched_buf_reg reg;
	struct wsched_buf b[2];
	size_t half;
	void *m;

	ASSERT_EQ(0, do_probe(self->r.fd, &p));
	if (p.max_pinned >= WSCHED_BUF_MAX_LEN)
		SKIP(return, "max_pinned %llu too large to exceed with 2 buffers",
		     (unsigned long long)p.max_pinned);
	/* Two buffers of just over half max_pinned each (the same memory). */
	half = p.max_pinned / 2 + PAGE;
	m = mmap(NULL, half, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	b[0].addr = b[1].addr = (uintptr_t)m;
	b[0].len = b[1].len = half;
	reg_init(&reg, b, 2);
	EXPECT_OK(reg_refused(self->r.fd, &reg, ENOMEM));
	/* One of them alone fits. */
	reg_init(&reg, b, 1);
	b[0].len = PAGE;
	EXPECT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	munmap(m, half);
}

/* Unregister while a graph that uses buffers runs, or is being built. */
TEST_F(ring, unregister_busy)
{
	struct ring *r = &self->r;
	struct wsched_sqe e[12];
	struct wsched_enter ent;
	unsigned int i, n = 10;
	int ret;

	/* A chain of long SPINs, then a MEMSET on buffer 0. */
	for (i = 0; i < n; i++) {
		sqe_op(&e[i], WSCHED_OP_SPIN, WSCHED_SPIN_MAX, UD(1, i));
		if (i)
			sqe_pred1(&e[i], i - 1);
	}
	sqe_range(&e[n], WSCHED_OP_MEMSET, 0, 0, 16, 0, 0x42, UD(1, n));
	sqe_pred1(&e[n], n - 1);
	e[n].flags = WSCHED_SQE_GRAPH_END;
	for (i = 0; i <= n; i++)
		ASSERT_TRUE(sq_push(r, &e[i]));
	ASSERT_EQ(0, ring_submit(r, &ent));
	ret = unreg_bufs(r->fd);
	/* (if the whole chain already finished, the test proves nothing) */
	if (cq_ready(r) < n + 2)
		EXPECT_EQ(-EBUSY, ret);
	EXPECT_EQ(0, ring_wait(r, n + 2, 60000));
	EXPECT_EQ(n + 2, ring_reap(r, NULL, ~0U));
	if (ret)
		EXPECT_EQ(0x42, self->mem[0]);
	/* A graph being built that uses a buffer. */
	if (ret) {
		sqe_range(&e[0], WSCHED_OP_MEMSET, 1, 0, 16, 0, 0x43, UD(2, 0));
		sqe_nop(&e[1], UD(2, 1));
		e[1].flags = WSCHED_SQE_GRAPH_END;
		ASSERT_TRUE(sq_push(r, &e[0]));
		ASSERT_EQ(0, ring_submit(r, &ent));
		EXPECT_EQ(-EBUSY, unreg_bufs(r->fd));
		ASSERT_TRUE(sq_push(r, &e[1]));
		ASSERT_EQ(0, ring_submit(r, &ent));
		EXPECT_EQ(0, ring_wait(r, 3, 10000));
		EXPECT_EQ(3, ring_reap(r, NULL, ~0U));
		EXPECT_EQ(0x43, self->mem[B0_LEN]);
		/* Everything done: now it works. */
		EXPECT_EQ(0, unreg_bufs(r->fd));
	}
}

/* ---------------------------------------------------------------------
 * Named ops.
 */
static int op_lookup(int fd, const char *name, struct wsched_op_info *out)
{
	struct wsched_op_lookup l;
	int ret;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	strncpy(l.info.name, name, sizeof(l.info.name) - 1);
	ret = xioctl(fd, WSCHED_IOC_OP_LOOKUP, &l);
	if (out)
		*out = l.info;
	return ret;
}

static __u32 op_range_flags(__u32 op)
{
	__u32 f = 0;

	if (op_fields[op] & F_BUF)
		f |= WSCHED_OPINFO_RANGE;
	if (op_fields[op] & F_BUF2)
		f |= WSCHED_OPINFO_RANGE2;
	return f;
}

TEST(op_lookup_builtins)
{
	struct wsched_op_info info;
	unsigned int op;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	for (op = 0; op <= WSCHED_OP_LAST; op++) {
		ASSERT_EQ(0, op_lookup(fd, op_names[op], &info)) TH_LOG("%s", op_names[op]);
		EXPECT_EQ(op, info.op) TH_LOG("%s", op_names[op]);
		EXPECT_EQ(WSCHED_OPINFO_BUILTIN | op_range_flags(op), info.flags)
			TH_LOG("%s flags %#x", op_names[op], info.flags);
		EXPECT_STREQ(op_names[op], info.name);
		EXPECT_EQ(0, info.resv);
	}
	close(fd);
}

TEST(op_lookup_errors)
{
	struct wsched_op_lookup l;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, op_lookup(fd, "no.such.op", NULL));
	EXPECT_EQ(-ENOENT, op_lookup(fd, "NOP", NULL));
	EXPECT_EQ(-ENOENT, op_lookup(fd, "nop ", NULL));
	EXPECT_EQ(-ENOENT, op_lookup(fd, "crc32", NULL));
	/* name not NUL-terminated within 32 bytes */
	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	memset(l.info.name, 'a', sizeof(l.info.name));
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_OP_LOOKUP, &l));
	memcpy(l.info.name, "nop", 3);
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_OP_LOOKUP, &l));
	/* the other fields must be zero */
#define LOOKUP_BAD(field, val) do {					\
	memset(&l, 0, sizeof(l));					\
	l.size = sizeof(l);						\
	strcpy(l.info.name, "nop");					\
	field = val;							\
	EXPECT_EQ(-EINVAL, xioctl(fd, WSCHED_IOC_OP_LOOKUP, &l)) TH_LOG(#field); \
} while (0)
	LOOKUP_BAD(l.size, sizeof(l) - 8);
	LOOKUP_BAD(l.size, sizeof(l) + 8);
	LOOKUP_BAD(l.size, 0);
	LOOKUP_BAD(l.resv0, 1);
	LOOKUP_BAD(l.info.op, 1);
	LOOKUP_BAD(l.info.flags, 1);
	LOOKUP_BAD(l.info.resv, 1);
#undef LOOKUP_BAD
	EXPECT_EQ(-EFAULT, xioctl(fd, WSCHED_IOC_OP_LOOKUP, (void *)8));
	/* A valid lookup still works and nothing of the refusals stuck. */
	EXPECT_EQ(0, op_lookup(fd, "sha256", NULL));
	close(fd);
}

TEST(op_list_errors)
{
	struct wsched_op_list l;
	struct wsched_op_info infos[4];
	int fd = dev_open();

	ASSERT_LE(0, fd);
#define LIST_BAD(field, val, err) do {					\
	memset(&l, 0, sizeof(l));					\
	l.size = sizeof(l);						\
	l.nr = 4;							\
	l.ops_ptr = (uintptr_t)infos;					\
	memset(infos, POISON, sizeof(infos));				\
	field = val;							\
	EXPECT_EQ(-(err), xioctl(fd, WSCHED_IOC_OP_LIST, &l)) TH_LOG(#field); \
} while (0)
	LIST_BAD(l.size, sizeof(l) - 8, EINVAL);
	LIST_BAD(l.size, sizeof(l) + 8, EINVAL);
	LIST_BAD(l.resv[0], 1, EINVAL);
	LIST_BAD(l.resv[1], 1, EINVAL);
	LIST_BAD(l.ops_ptr, 8, EFAULT);
	LIST_BAD(l.ops_ptr, 0xffff888000000000ULL, EFAULT);
#undef LIST_BAD
	EXPECT_EQ(-EFAULT, xioctl(fd, WSCHED_IOC_OP_LIST, (void *)8));
	close(fd);
}

TEST(op_list_contents)
{
	struct wsched_op_info infos[WSCHED_OP_DYNAMIC_MAX + 16], small[3];
	__u32 nr = 0, total, i, j, op;
	int fd = dev_open();

	ASSERT_LE(0, fd);
	/* nr 0: only the count, nothing written (ops_ptr may be 0) */
	ASSERT_EQ(0, op_list(fd, NULL, &nr));
	total = nr;
	EXPECT_LE(WSCHED_OP_LAST + 1, total);
	EXPECT_GE(WSCHED_OP_LAST + 1 + WSCHED_OP_DYNAMIC_MAX, total);
	/* less room than ops: fills that many, nr = total, the rest untouched */
	memset(small, POISON, sizeof(small));
	nr = 2;
	ASSERT_EQ(0, op_list(fd, small, &nr));
	EXPECT_EQ(total, nr);
	EXPECT_NE(0, small[0].name[0]);
	for (i = 0; i < sizeof(small[2]); i++)
		if (((unsigned char *)&small[2])[i] != POISON)
			break;
	EXPECT_EQ(sizeof(small[2]), i) TH_LOG("entry beyond nr written");
	/* all of them */
	memset(infos, POISON, sizeof(infos));
	nr = ARRAY_SIZE(infos);
	ASSERT_EQ(0, op_list(fd, infos, &nr));
	EXPECT_EQ(total, nr);
	for (i = 0; i < nr && i < ARRAY_SIZE(infos); i++) {
		EXPECT_NE(NULL, memchr(infos[i].name, 0, sizeof(infos[i].name)))
			TH_LOG("entry %u name not terminated", i);
		EXPECT_EQ(0, infos[i].resv);
		for (j = 0; j < i; j++) {
			EXPECT_NE(infos[j].op, infos[i].op) TH_LOG("op %u twice", infos[i].op);
			EXPECT_NE(0, strcmp(infos[j].name, infos[i].name));
		}
		if (infos[i].op <= WSCHED_OP_LAST) {
			EXPECT_STREQ(op_names[infos[i].op], infos[i].name);
			EXPECT_EQ(WSCHED_OPINFO_BUILTIN | op_range_flags(infos[i].op),
				  infos[i].flags);
		} else {
			EXPECT_LE(WSCHED_OP_DYNAMIC + WSCHED_OP_DYNAMIC_MAX,
				  infos[i].op);
			EXPECT_EQ(0, infos[i].flags & WSCHED_OPINFO_BUILTIN);
		}
	}
	for (i = nr; i < ARRAY_SIZE(infos); i++)
		EXPECT_EQ(POISON, (unsigned char)infos[i].name[0]);
	for (op = 0; op <= WSCHED_OP_LAST; op++) {
		for (i = 0; i < nr && infos[i].op != op; i++)
			;
		EXPECT_GT(nr, i) TH_LOG("built-in op %s not listed", op_names[op]);
	}
	close(fd);
}

/* The sample module's op: value = XOR of the bytes of (buf, off, len). */
TEST_F(ring, op_sample_xor8)
{
	const char *env = getenv("WSCHED_OP_XOR");
	struct wsched_op_info info, infos[WSCHED_OP_DYNAMIC_MAX + 16];
	__u32 nr = ARRAY_SIZE(infos), i, k;
	static const struct { __u64 off, len; } c[] = {
		{ 0, 1 }, { 1, 2 }, { 3, 7 }, { 0, 4096 }, { 4095, 3 },
		{ 17, 30000 }, { 0, B0_LEN },
	};
	struct wsched_sqe e;
	struct wsched_cqe cq[4];

	if (!env || strcmp(env, "1"))
		SKIP(return, "WSCHED_OP_XOR=1 not set: the sample module wsched_op_xor.ko is not loaded");
	ASSERT_EQ(0, op_lookup(self->r.fd, "sample.xor8", &info));
	EXPECT_LE(WSCHED_OP_DYNAMIC + WSCHED_OP_DYNAMIC_MAX, info.op);
	EXPECT_TRUE(info.flags & WSCHED_OPINFO_RANGE);
	EXPECT_FALSE(info.flags & WSCHED_OPINFO_BUILTIN);
	ASSERT_EQ(0, op_list(self->r.fd, infos, &nr));
	for (i = 0; i < nr && strcmp(infos[i].name, "sample.xor8"); i++)
		;
	EXPECT_GT(nr, i) TH_LOG("sample.xor8 not in OP_LIST");
	if (i < nr)
		EXPECT_EQ(info.op, infos[i].op);
	rnd_seed(0x8);
	fill_random(self->mem, B0_LEN);
	for (k = 0; k < ARRAY_SIZE(c); k++) {
		unsigned char x = 0;

		for (i = 0; i < c[k].len; i++)
			x ^= self->mem[c[k].off + i];
		sqe_range(&e, info.op, 0, c[k].off, c[k].len, 0, 0, UD(1, k));
		e.flags = WSCHED_SQE_GRAPH_END;
		ASSERT_EQ(2, run_small(&self->r, &e, 1, 2, cq, 4));
		EXPECT_EQ(0, cq[0].res);
		EXPECT_EQ(WSCHED_RES_RAN, cq[0].flags);
		EXPECT_EQ(x, cq[0].value) TH_LOG("off %llu len %llu",
				(unsigned long long)c[k].off, (unsigned long long)c[k].len);
	}
	/* Its range is checked like a built-in one's. */
	sqe_range(&e, info.op, 0, B0_LEN, 1, 0, 0, 0);
	EXPECT_OK(refused_both(&self->r, &e, ERANGE));
	sqe_range(&e, info.op, 0, 0, 0, 0, 0, 0);
	EXPECT_OK(refused_both(&self->r, &e, EINVAL));
	sqe_range(&e, info.op, 9, 0, 1, 0, 0, 0);
	EXPECT_OK(refused_both(&self->r, &e, EINVAL));
}

/* ---------------------------------------------------------------------
 * Graphs: ordering, completions, failures.
 */

/* A ring big enough for the largest graphs (SQ clamped to the maximum). */
FIXTURE(big) {
	struct ring r;
	struct wsched_probe p;
};

FIXTURE_SETUP(big)
{
	int ret = ring_open(&self->r, 4096, 0, WSCHED_SETUP_CLAMP);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	ASSERT_EQ(0, do_probe(self->r.fd, &self->p));
}

FIXTURE_TEARDOWN(big)
{
	ring_close(&self->r);
}

TEST_F(ctx, diamond)
{
	/* 0 -> {1, 2} -> 3 */
	struct tg *t = tg_alloc(0, 4);
	__u32 p3[] = { 1, 2 };

	ASSERT_NE(NULL, t);
	sqe_op(&t->e[0], WSCHED_OP_SPIN, 1000, UD(0, 0));
	sqe_op(&t->e[1], WSCHED_OP_SPIN, 1000, UD(0, 1));
	sqe_pred1(&t->e[1], 0);
	sqe_op(&t->e[2], WSCHED_OP_SPIN, 1000, UD(0, 2));
	sqe_pred1(&t->e[2], 0);
	sqe_nop(&t->e[3], UD(0, 3));
	sqe_preds(&t->e[3], p3, 2);
	tg_finish(t);
	EXPECT_OK(run_ok(&self->r, t, 60));
	EXPECT_EQ(1, t->seq[0]);
	EXPECT_EQ(4, t->seq[3]);
	EXPECT_EQ(4, nodes_run(self->r.fd));
	tg_free(t);
}

TEST_F_TIMEOUT(big, random_dags, 400)
{
	static const __u32 sizes[] = {
		1, 2, 3, 10, 64, 100, 500, 1000, 2500, 5000, 9999, 10000,
	};
	unsigned long long run0 = nodes_run(self->r.fd), total = 0;
	unsigned int s, rep, reps;
	__u64 t0 = now_ns();
	bool slow;
	struct tg *t;

	/*
	 * Calibrate: on a slow kernel (KASAN and lockdep under emulation,
	 * hundreds of times slower than native) fewer seeds per size and only
	 * 10000 above 1000.
	 */
	t = tg_random(0, 200, 0x5eedca1, 0);
	ASSERT_NE(NULL, t);
	EXPECT_OK(run_ok(&self->r, t, 120));
	tg_free(t);
	total += 200;
	slow = now_ns() - t0 > 200 * MS_NS;
	TH_LOG("200 nodes in %.3f s: %s", (now_ns() - t0) / 1e9,
	       slow ? "slow kernel, fewer graphs" : "all sizes");
	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		if (sizes[s] > self->p.max_nodes)
			continue;
		if (slow && sizes[s] > 1000 && sizes[s] < 10000)
			continue;
		reps = sizes[s] >= 1000 ? 1 : slow ? 2 : 4;
		for (rep = 0; rep < reps; rep++) {
			__u64 seed = 0x5eed0000u + s * 16 + rep;
			__u64 t1 = now_ns();

			t = tg_random(0, sizes[s], seed, 0);
			ASSERT_NE(NULL, t);
			EXPECT_OK(run_ok(&self->r, t, 200))
				TH_LOG("size %u seed %#llx", sizes[s],
				       (unsigned long long)seed);
			if (sizes[s] >= 1000)
				TH_LOG("size %u: %.2f s", sizes[s], (now_ns() - t1) / 1e9);
			total += sizes[s];
			tg_free(t);
		}
	}
	EXPECT_EQ(run0 + total, nodes_run(self->r.fd));
	TH_LOG("%llu nodes in %.1f s: %lu ENTERs (%lu EBUSY, %lu EAGAIN), %lu waits (%.1f s, %lu timed out, %lu of them with enough completions ready)",
	       total, (now_ns() - t0) / 1e9, ds.enters, ds.ebusy, ds.eagain,
	       ds.waits, ds.wait_ns / 1e9, ds.timeouts, ds.lost_wakeups);
}

/* A graph does not start before its end entry, across ENTER calls. */
TEST_F(ctx, graph_waits_for_end)
{
	struct ring *r = &self->r;
	struct tg *t = tg_random(0, 40, 0xe0d, 0);
	struct wsched_enter ent;
	struct wsched_cqe c[64];
	unsigned int i, n;

	ASSERT_NE(NULL, t);
	for (i = 0; i < 39; i++) {
		ASSERT_TRUE(sq_push(r, &t->e[i]));
		if (i % 10 == 9) {
			ASSERT_EQ(0, ring_submit(r, &ent));
			EXPECT_EQ(10, ent.submitted);
		}
	}
	ASSERT_EQ(0, ring_submit(r, &ent));
	EXPECT_EQ(9, ent.submitted);
	EXPECT_EQ(-ETIME, ring_wait(r, 1, 100));
	EXPECT_OK(quiet_since(r, 0, 0, 0));
	/* The end entry starts it. */
	ASSERT_TRUE(sq_push(r, &t->e[39]));
	ASSERT_EQ(0, ring_submit(r, &ent));
	EXPECT_EQ(1, ent.submitted);
	EXPECT_EQ(0, ring_wait(r, 41, 30000));
	n = ring_reap(r, c, 64);
	EXPECT_EQ(41, n);
	for (i = 0; i < n; i++)
		EXPECT_OK(tg_cqe(t, &c[i]));
	EXPECT_OK(tg_check_ok(t));
	tg_free(t);
}

/* Graphs larger than the SQ span many ENTER calls. */
TEST_F_TIMEOUT(ctx, graph_spans_enters, 120)
{
	struct ring small;
	struct tg *t;
	unsigned int n;
	int ret = ring_open(&small, 8, 16, 0);

	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	for (n = 9; n <= 2000; n *= 3) {
		t = tg_random(0, n, 0x5a0 + n, 10);
		ASSERT_NE(NULL, t);
		EXPECT_OK(run_ok(&small, t, 100)) TH_LOG("n %u", n);
		tg_free(t);
	}
	ring_close(&small);
}

TEST_F_TIMEOUT(ctx, many_graphs_in_flight, 200)
{
	unsigned int ng = 300, i, nodes = 0;
	struct tg **gs = calloc(ng, sizeof(*gs));

	ASSERT_NE(NULL, gs);
	for (i = 0; i < ng; i++) {
		gs[i] = tg_random(i, 1 + (i * 37) % 30, 0x3000 + i, i % 3 ? 0 : 30);
		ASSERT_NE(NULL, gs[i]);
		nodes += gs[i]->n;
	}
	EXPECT_OK(drive(&self->r, gs, ng, 180));
	for (i = 0; i < ng; i++) {
		EXPECT_OK(tg_check_ok(gs[i]));
		tg_free(gs[i]);
	}
	EXPECT_EQ(nodes, nodes_run(self->r.fd));
	free(gs);
}

TEST_F(ctx, no_cqe)
{
	struct tg *t = tg_random(0, 200, 0x40c, 50);
	struct wsched_probe p;

	ASSERT_NE(NULL, t);
	/* the end entry without its own CQE; the graph CQE still comes */
	t->e[t->n - 1].flags |= WSCHED_SQE_NO_CQE;
	tg_finish(t);
	EXPECT_OK(run_ok(&self->r, t, 60));
	EXPECT_GT(t->n, t->want);
	tg_free(t);
	/* every node NO_CQE: only the graph CQE */
	t = tg_random(0, 50, 0x40d, 100);
	ASSERT_NE(NULL, t);
	EXPECT_EQ(0, t->want);
	EXPECT_OK(run_ok(&self->r, t, 60));
	EXPECT_EQ(50, t->g.value);
	EXPECT_EQ(50, t->g.seq);
	tg_free(t);
	ASSERT_EQ(0, do_probe(self->r.fd, &p));
	EXPECT_EQ(250, p.nodes_run);
	EXPECT_EQ(2, p.graphs_run);
}

TEST_F(ctx, failure_propagation)
{
	/*
	 * 0 FAIL(5) soft   -> 1 NOP            (runs)
	 * 2 FAIL(7) hard   -> 3 NOP            (-ECANCELED)
	 *                     3 -> 4 NOP soft  (-ECANCELED, not run)
	 *                     4 -> 5 NOP       (-ECANCELED: 4 did not run)
	 * {1, 2}           -> 6 NOP            (-ECANCELED)
	 * 7 NOP independent                    (runs)
	 * {0}              -> 8 FAIL(9) soft   (runs, fails)
	 * {8}              -> 9 NOP            (runs)
	 * {5, 7}           -> 10 NOP NO_CQE    (cancelled, no CQE)
	 * {10}             -> 11 NOP           (-ECANCELED)
	 */
	struct tg *t = tg_alloc(0, 12);
	__u32 p12[] = { 1, 2 }, p57[] = { 5, 7 };
	unsigned int i, first = 0, ran = 0;

	ASSERT_NE(NULL, t);
	for (i = 0; i < 12; i++)
		sqe_nop(&t->e[i], UD(0, i));
	sqe_op(&t->e[0], WSCHED_OP_FAIL, 5, UD(0, 0));
	t->e[0].flags = WSCHED_NODE_SOFT_FAIL;
	sqe_op(&t->e[2], WSCHED_OP_FAIL, 7, UD(0, 2));
	sqe_op(&t->e[8], WSCHED_OP_FAIL, 9, UD(0, 8));
	t->e[8].flags = WSCHED_NODE_SOFT_FAIL;
	t->e[4].flags = WSCHED_NODE_SOFT_FAIL;
	t->e[10].flags = WSCHED_SQE_NO_CQE;
	sqe_pred1(&t->e[1], 0);
	sqe_pred1(&t->e[3], 2);
	sqe_pred1(&t->e[4], 3);
	sqe_pred1(&t->e[5], 4);
	sqe_preds(&t->e[6], p12, 2);
	sqe_pred1(&t->e[8], 0);
	sqe_pred1(&t->e[9], 8);
	sqe_preds(&t->e[10], p57, 2);
	sqe_pred1(&t->e[11], 10);
	tg_finish(t);
	ASSERT_OK(drive(&self->r, &t, 1, 60));
	ASSERT_TRUE(t->done);
	EXPECT_OK(tg_check_order(t));
	EXPECT_EQ(-5, t->res[0]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[0]);
	EXPECT_EQ(0, t->res[1]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[1]);
	EXPECT_EQ(-7, t->res[2]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[2]);
	for (i = 3; i <= 11; i++) {
		if (i == 7 || i == 8 || i == 9 || i == 10)
			continue;
		EXPECT_EQ(-ECANCELED, t->res[i]) TH_LOG("node %u", i);
		EXPECT_EQ(WSCHED_RES_DEP_FAILED, t->flags[i]) TH_LOG("node %u", i);
		EXPECT_EQ(0, t->value[i]) TH_LOG("node %u", i);
	}
	EXPECT_EQ(0, t->res[7]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[7]);
	EXPECT_EQ(-9, t->res[8]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[8]);
	EXPECT_EQ(0, t->res[9]);
	EXPECT_EQ(WSCHED_RES_RAN, t->flags[9]);
	EXPECT_EQ(0, t->seq[10]);
	/* graph CQE: error of the first failure in completion order */
	for (i = 0; i < 12; i++) {
		if (t->flags[i] == WSCHED_RES_RAN)
			ran++;
		if (t->flags[i] == WSCHED_RES_RAN && t->res[i] < 0 &&
		    (!first || t->seq[i] < t->seq[first - 1]))
			first = i + 1;
	}
	ASSERT_NE(0, first);
	EXPECT_EQ(t->res[first - 1], t->g.res) TH_LOG("first failure: node %u", first - 1);
	EXPECT_EQ(ran, t->g.value);
	EXPECT_EQ(6, ran);
	EXPECT_EQ(12, t->g.seq);
	EXPECT_EQ(WSCHED_CQE_GRAPH, t->g.flags & ~WSCHED_RES_RAN);
	EXPECT_EQ(6, nodes_run(self->r.fd));
	tg_free(t);
}

/* A long hard-failing chain cancels everything after it, transitively. */
TEST_F(ctx, failure_cancels_transitively)
{
	struct tg *t = tg_random(0, 500, 0xfa11, 0);
	unsigned int i, ran = 0, first;
	unsigned char *dead;

	ASSERT_NE(NULL, t);
	dead = calloc(t->n, 1);
	ASSERT_NE(NULL, dead);
	/* every 50th node fails; SOFT_FAIL on every other one of those */
	for (i = 10; i < t->n; i += 50) {
		t->e[i].op = WSCHED_OP_FAIL;
		t->e[i].arg = 1 + i % 4000;
		if (i % 100 == 60)
			t->e[i].flags |= WSCHED_NODE_SOFT_FAIL;
	}
	tg_finish(t);
	ASSERT_OK(drive(&self->r, &t, 1, 60));
	EXPECT_OK(tg_check_order(t));
	/* expected: a node is cancelled iff a predecessor failed hard or was cancelled */
	for (i = 0; i < t->n; i++) {
		const __u32 *p = tg_preds(t, i);
		bool cancel = false;
		unsigned int j;

		for (j = 0; j < t->e[i].nr_preds; j++)
			cancel |= dead[p[j]];
		if (cancel) {
			EXPECT_EQ(-ECANCELED, t->res[i]) TH_LOG("node %u", i);
			EXPECT_EQ(WSCHED_RES_DEP_FAILED, t->flags[i]) TH_LOG("node %u", i);
			dead[i] = 1;
		} else if (t->e[i].op == WSCHED_OP_FAIL) {
			EXPECT_EQ(-(int)t->e[i].arg, t->res[i]) TH_LOG("node %u", i);
			EXPECT_EQ(WSCHED_RES_RAN, t->flags[i]) TH_LOG("node %u", i);
			dead[i] = !(t->e[i].flags & WSCHED_NODE_SOFT_FAIL);
			ran++;
		} else {
			EXPECT_EQ(0, t->res[i]) TH_LOG("node %u", i);
			EXPECT_EQ(WSCHED_RES_RAN, t->flags[i]) TH_LOG("node %u", i);
			ran++;
		}
	}
	EXPECT_EQ(ran, t->g.value);
	EXPECT_EQ(ran, nodes_run(self->r.fd));
	EXPECT_EQ(t->n, t->g.seq);
	/* the graph's res: the failure with the lowest seq */
	for (i = 0, first = 0; i < t->n; i++)
		if (t->flags[i] == WSCHED_RES_RAN && t->res[i] < 0 &&
		    (!first || t->seq[i] < t->seq[first - 1]))
			first = i + 1;
	ASSERT_NE(0, first);
	EXPECT_EQ(t->res[first - 1], t->g.res);
	free(dead);
	tg_free(t);
}

/* ---------------------------------------------------------------------
 * CQ overflow, poll, waiting.
 */
static int poll_now(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLRDNORM };
	int n = poll(&p, 1, ms);

	return n < 0 ? -errno : n ? p.revents : 0;
}

TEST_F_TIMEOUT(ctx, cq_overflow, 120)
{
	struct ring r;
	struct tg *t;
	struct wsched_enter ent;
	struct wsched_sqe m;
	struct wsched_cqe c[8];
	unsigned int i, n, got = 0, n_nodes = 40, total = n_nodes + 1;
	int ret = ring_open(&r, 4, 4, 0);
	__u64 deadline;

	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_EQ(4, r.cq_entries);
	/* A chain of 40 nodes, pushed 4 at a time; it starts at the end. */
	t = tg_alloc(0, n_nodes);
	ASSERT_NE(NULL, t);
	for (i = 0; i < n_nodes; i++) {
		sqe_op(&t->e[i], WSCHED_OP_SPIN, 100, UD(0, i));
		if (i)
			sqe_pred1(&t->e[i], i - 1);
	}
	tg_finish(t);
	for (i = 0; i < n_nodes; i++) {
		ASSERT_TRUE(sq_push(&r, &t->e[i]));
		if (sq_room(&r) == 0 || i == n_nodes - 1) {
			ASSERT_EQ(0, ring_submit(&r, &ent)) TH_LOG("entry %u", i);
		}
	}
	/* min_complete above the CQ size: held-back completions count. */
	ret = ring_enter(&r, 0, total, WSCHED_ENTER_GETEVENTS, 60 * SEC_NS, &ent);
	ASSERT_EQ(0, ret) TH_LOG("wait for %u: %s", total, strerror(-ret));
	EXPECT_EQ(4, cq_ready(&r));
	EXPECT_EQ(total - 4, *r.cq_overflow);
	/* While some are held back, submitting is refused. */
	sqe_nop(&m, UD(MARK_GID, 0));
	m.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(&r, &m));
	EXPECT_EQ(-EBUSY, ring_enter(&r, 1, 0, 0, 0, &ent));
	EXPECT_EQ(0, ent.submitted);
	EXPECT_EQ(n_nodes, load_acq(r.sq_head));
	EXPECT_EQ(POLLIN | POLLRDNORM, poll_now(r.fd, 0));
	/* Reaping and poll() move held-back ones into the CQ. */
	n = ring_reap(&r, c, 8);
	EXPECT_EQ(4, n);
	for (i = 0; i < n; i++)
		EXPECT_OK(tg_cqe(t, &c[i]));
	got += n;
	EXPECT_EQ(POLLIN | POLLRDNORM, poll_now(r.fd, 0));
	EXPECT_EQ(4, cq_ready(&r)) TH_LOG("poll did not post held-back completions");
	n = ring_reap(&r, c, 8);
	for (i = 0; i < n; i++)
		EXPECT_OK(tg_cqe(t, &c[i]));
	got += n;
	/* ENTER flushes first, then still refuses to submit. */
	EXPECT_EQ(-EBUSY, ring_enter(&r, 1, 0, 0, 0, &ent));
	EXPECT_EQ(0, ent.submitted);
	EXPECT_EQ(4, cq_ready(&r));
	deadline = now_ns() + 30 * SEC_NS;
	while (got < total && now_ns() < deadline) {
		n = ring_reap(&r, c, 8);
		for (i = 0; i < n; i++)
			EXPECT_OK(tg_cqe(t, &c[i]));
		got += n;
		ret = ring_enter(&r, 0, 1, WSCHED_ENTER_GETEVENTS, 100 * MS_NS, &ent);
		if (got < total)
			EXPECT_EQ(0, ret);
	}
	EXPECT_EQ(total, got);
	EXPECT_OK(tg_check_ok(t));
	EXPECT_EQ(total - 4, *r.cq_overflow) TH_LOG("overflow counted twice?");
	EXPECT_EQ(0, poll_now(r.fd, 0));
	/* Nothing held back: the waiting entry goes in. */
	EXPECT_EQ(0, ring_enter(&r, 1, 2, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent));
	EXPECT_EQ(1, ent.submitted);
	EXPECT_EQ(2, ring_reap(&r, c, 8));
	EXPECT_EQ(UD(MARK_GID, 0), c[0].user_data);
	tg_free(t);
	ring_close(&r);
}

/* Many graphs through a small CQ: each completion exactly once. */
TEST_F_TIMEOUT(ctx, cq_overflow_many_graphs, 200)
{
	struct ring r;
	unsigned int ng = 100, i;
	struct tg **gs = calloc(ng, sizeof(*gs));
	int ret = ring_open(&r, 16, 16, 0);

	ASSERT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
	ASSERT_NE(NULL, gs);
	for (i = 0; i < ng; i++) {
		gs[i] = tg_random(i, 1 + (i * 13) % 40, 0x0f0 + i, 0);
		ASSERT_NE(NULL, gs[i]);
	}
	EXPECT_OK(drive(&r, gs, ng, 180));
	for (i = 0; i < ng; i++) {
		EXPECT_OK(tg_check_ok(gs[i]));
		tg_free(gs[i]);
	}
	EXPECT_LT(0, *r.cq_overflow);
	TH_LOG("overflow counter %u", *r.cq_overflow);
	free(gs);
	ring_close(&r);
}

/* A chain of @n SPIN nodes of @iters each, submitted; returns 0/-errno. */
static int submit_spin_chain(struct ring *r, __u32 gid, unsigned int n,
			     __u64 iters, __u32 flags)
{
	struct wsched_sqe e;
	struct wsched_enter ent;
	unsigned int i;
	int ret;

	for (i = 0; i < n; i++) {
		sqe_op(&e, WSCHED_OP_SPIN, iters, UD(gid, i));
		e.flags = flags;
		if (i)
			sqe_pred1(&e, i - 1);
		if (i == n - 1)
			e.flags |= WSCHED_SQE_GRAPH_END;
		if (!sq_push(r, &e)) {
			ret = ring_submit(r, &ent);
			if (ret)
				return ret;
			if (!sq_push(r, &e))
				return -ENOSPC;
		}
	}
	return ring_submit(r, &ent);
}

TEST_F_TIMEOUT(ctx, poll_and_epoll, 120)
{
	struct ring *r = &self->r;
	struct epoll_event ev = { .events = EPOLLIN }, out;
	int ep = epoll_create1(EPOLL_CLOEXEC);
	__u32 total;

	ASSERT_LE(0, ep);
	ASSERT_EQ(0, epoll_ctl(ep, EPOLL_CTL_ADD, r->fd, &ev));
	EXPECT_EQ(0, poll_now(r->fd, 0));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	EXPECT_EQ(0, poll_now(r->fd, 50));
	/* poll() wakes when the graph completes */
	ASSERT_EQ(0, submit_spin_chain(r, 1, 8, WSCHED_SPIN_MAX / 8, 0));
	EXPECT_EQ(POLLIN | POLLRDNORM, poll_now(r->fd, 60000));
	EXPECT_EQ(0, ring_wait(r, 9, 60000));
	EXPECT_EQ(9, ring_reap(r, NULL, ~0U));
	EXPECT_EQ(0, poll_now(r->fd, 0));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	/* epoll too, with NO_CQE nodes: only the graph CQE */
	ASSERT_EQ(0, submit_spin_chain(r, 2, 8, WSCHED_SPIN_MAX / 8, WSCHED_SQE_NO_CQE));
	ASSERT_EQ(1, epoll_wait(ep, &out, 1, 60000));
	EXPECT_TRUE(out.events & EPOLLIN);
	EXPECT_EQ(1, ring_reap(r, NULL, ~0U));
	EXPECT_EQ(0, epoll_wait(ep, &out, 1, 0));
	total = load_acq(r->cq_tail);
	EXPECT_EQ(10, total);
	close(ep);
}

TEST_F(ctx, getevents_timeout)
{
	struct ring *r = &self->r;
	__u64 t0 = now_ns(), dt;
	struct wsched_sqe e;
	struct wsched_enter ent;
	int ret;

	/* Nothing in flight. */
	ret = ring_enter(r, 0, 1, WSCHED_ENTER_GETEVENTS, 50 * MS_NS, NULL);
	dt = now_ns() - t0;
	EXPECT_EQ(-ETIME, ret);
	EXPECT_LE(45 * MS_NS, dt);
	EXPECT_GT(10 * SEC_NS, dt);
	/* Submit and wait in one call. */
	ASSERT_EQ(0, submit_spin_chain(r, 1, 3, 1000, 0) ? 1 : 0);
	ASSERT_EQ(0, ring_enter(r, 0, 4, WSCHED_ENTER_GETEVENTS, 30 * SEC_NS, NULL));
	EXPECT_EQ(4, cq_ready(r));
	/* Asking for more than will ever come times out... */
	t0 = now_ns();
	EXPECT_EQ(-ETIME, ring_enter(r, 0, 5, WSCHED_ENTER_GETEVENTS, 100 * MS_NS, NULL));
	EXPECT_LE(95 * MS_NS, now_ns() - t0);
	/* ...asking for what is there does not wait. */
	t0 = now_ns();
	EXPECT_EQ(0, ring_enter(r, 0, 4, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, NULL));
	EXPECT_GT(5 * SEC_NS, now_ns() - t0);
	EXPECT_EQ(4, ring_reap(r, NULL, ~0U));
	/* to_submit and GETEVENTS in one call */
	sqe_nop(&e, UD(2, 0));
	e.flags = WSCHED_SQE_GRAPH_END;
	ASSERT_TRUE(sq_push(r, &e));
	EXPECT_EQ(0, ring_enter(r, 1, 2, WSCHED_ENTER_GETEVENTS, 10 * SEC_NS, &ent));
	EXPECT_EQ(1, ent.submitted);
	EXPECT_EQ(2, cq_ready(r));
}

static void on_alarm(int sig)
{
}

TEST_F_TIMEOUT(ctx, getevents_signal, 120)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_usec = 200000 } };
	struct ring *r = &self->r;
	struct wsched_cqe c[64];
	unsigned int n;
	__u64 t0, dt;
	int ret;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	/* No limit, nothing in flight. */
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	t0 = now_ns();
	ret = ring_enter(r, 0, 1, WSCHED_ENTER_GETEVENTS, 0, NULL);
	dt = now_ns() - t0;
	EXPECT_EQ(-EINTR, ret);
	EXPECT_LE(150 * MS_NS, dt);
	EXPECT_GT(20 * SEC_NS, dt);
	/* A long limit, work in flight that takes longer than the timer. */
	ASSERT_EQ(0, submit_spin_chain(r, 1, 12, WSCHED_SPIN_MAX, 0));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	ret = ring_enter(r, 0, 13, WSCHED_ENTER_GETEVENTS, 100 * SEC_NS, NULL);
	if (cq_ready(r) < 13)
		EXPECT_EQ(-EINTR, ret);
	/* The graph goes on and completes: a wait is not a cancel. */
	EXPECT_EQ(0, ring_wait(r, 13, 100000));
	n = ring_reap(r, c, 64);
	EXPECT_EQ(13, n);
	if (n == 13) {
		EXPECT_TRUE(c[12].flags & WSCHED_CQE_GRAPH);
		EXPECT_EQ(0, c[12].res);
		EXPECT_EQ(12, c[12].value);
	}
}

/* ---------------------------------------------------------------------
 * The in-flight limit.
 */

/* Time one SPIN of WSCHED_SPIN_MAX iterations takes here, in ns. */
static __u64 spin_max_ns(struct ring *r)
{
	__u64 t0 = now_ns();

	if (submit_spin_chain(r, MARK_GID, 4, WSCHED_SPIN_MAX, WSCHED_SQE_NO_CQE) ||
	    ring_wait(r, 1, 120000))
		return 0;
	ring_reap(r, NULL, ~0U);
	return (now_ns() - t0) / 4;
}

/*
 * k graphs of G = min(max_nodes, max_inflight) nodes each, k * G above
 * max_inflight, each held in flight by a chain of SPINs at its start: the
 * end entry of the last one gets EAGAIN (not consumed) until one finishes.
 */
static void inflight_limit(struct __test_metadata *_metadata, struct ring *r,
			   __u32 max_nodes, __u32 max_inflight)
{
	__u32 G = max_nodes < max_inflight ? max_nodes : max_inflight;
	__u32 k = max_inflight / G + 1, gate, g, i, attempt;
	__u64 spin = spin_max_ns(r);
	struct wsched_enter ent;
	struct wsched_sqe e;
	struct wsched_cqe c[64];
	bool proved = false;
	unsigned int n;

	ASSERT_NE(0, spin);
	if (k > 16)
		SKIP(return, "max_inflight %u needs %u graphs of %u", max_inflight, k, G);
	/* A gate chain of SPINs holding each graph in flight for ~2 s. */
	gate = 2 * SEC_NS / spin + 1;
	for (attempt = 0; attempt < 3 && !proved; attempt++, gate *= 3) {
		__u32 graph_cqes = 0;
		int ret;

		if (gate > G / 2)
			gate = G / 2;
		TH_LOG("attempt %u: %u graphs of %u nodes, gate of %u SPINs (%llu us each)",
		       attempt, k, G, gate, (unsigned long long)spin / 1000);
		for (g = 0; g < k; g++) {
			for (i = 0; i < G; i++) {
				if (i < gate)
					sqe_op(&e, WSCHED_OP_SPIN, WSCHED_SPIN_MAX, UD(g, i));
				else
					sqe_nop(&e, UD(g, i));
				e.flags = WSCHED_SQE_NO_CQE;
				if (i)
					sqe_pred1(&e, i < gate ? i - 1 : gate - 1);
				if (i == G - 1) {
					e.flags |= WSCHED_SQE_GRAPH_END;
					break;		/* the last graph's end waits */
				}
				if (!sq_push(r, &e)) {
					ASSERT_EQ(0, ring_submit(r, &ent))
						TH_LOG("graph %u entry %u", g, i);
					ASSERT_TRUE(sq_push(r, &e));
				}
			}
			if (g < k - 1) {
				if (!sq_push(r, &e)) {
					ASSERT_EQ(0, ring_submit(r, &ent));
					ASSERT_TRUE(sq_push(r, &e));
				}
			}
		}
		ASSERT_EQ(0, ring_submit(r, &ent));
		/* Now the end of the last graph: too many nodes in flight. */
		ASSERT_TRUE(sq_push(r, &e));
		ret = ring_enter(r, 1, 0, 0, 0, &ent);
		graph_cqes = cq_ready(r);
		if (!graph_cqes) {
			/* all k - 1 graphs were in flight during the call */
			EXPECT_EQ(-EAGAIN, ret);
			EXPECT_EQ(0, ent.submitted);
			EXPECT_EQ(0, sq_pending(r) - 1);
			proved = true;
		}
		/* Retry until it goes in, then wait for all k graphs. */
		while (ret == -EAGAIN) {
			EXPECT_EQ(0, ent.submitted);
			ring_wait(r, graph_cqes + 1, 1000);
			graph_cqes = cq_ready(r);
			ret = ring_enter(r, 1, 0, 0, 0, &ent);
		}
		EXPECT_EQ(0, ret) TH_LOG("%s", strerror(-ret));
		EXPECT_EQ(1, ent.submitted);
		ASSERT_EQ(0, ring_wait(r, k, 300000));
		n = ring_reap(r, c, 64);
		EXPECT_EQ(k, n);
		for (i = 0; i < n; i++) {
			EXPECT_TRUE(c[i].flags & WSCHED_CQE_GRAPH);
			EXPECT_EQ(0, c[i].res);
			EXPECT_EQ(G, c[i].value);
		}
	}
	EXPECT_TRUE(proved) TH_LOG("graphs finished before the limit could be reached");
}

/*
 * The limits with the module parameters lowered (they are 0644), so that
 * they are reached with a few hundred entries instead of tens of
 * thousands; the old values come back in the teardown.  Without a
 * writable parameter, the default limits are used.
 */
#define PARAM_DIR	"/sys/module/wsched/parameters/"

static long param_get(const char *name)
{
	char path[128], buf[32];
	long v = -1;
	int fd, n;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	if (n > 0) {
		buf[n] = 0;
		v = strtol(buf, NULL, 10);
	}
	close(fd);
	return v;
}

static bool param_set(const char *name, long v)
{
	char path[128], buf[32];
	int fd, n;
	bool ok;

	snprintf(path, sizeof(path), PARAM_DIR "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return false;
	n = snprintf(buf, sizeof(buf), "%ld\n", v);
	ok = write(fd, buf, n) == n;
	close(fd);
	return ok && param_get(name) == v;
}

FIXTURE(lim) {
	struct ring r;
	struct wsched_probe p;
	long max_nodes, max_inflight;
};

FIXTURE_SETUP(lim)
{
	int ret = ring_open(&self->r, 4096, 0, WSCHED_SETUP_CLAMP);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	ASSERT_EQ(0, do_probe(self->r.fd, &self->p));
	self->max_nodes = param_get("max_nodes");
	self->max_inflight = param_get("max_inflight");
}

/*
 * In the parent (self is shared), so that a failed ASSERT, after which
 * 6.12's harness skips a FIXTURE_TEARDOWN() in the test's process, does
 * not leave the limits changed for the tests after it.  The ring was the
 * test's process's and closed when it exited, before this runs.
 */
FIXTURE_TEARDOWN_PARENT(lim)
{
	if (self->max_nodes > 0)
		param_set("max_nodes", self->max_nodes);
	if (self->max_inflight > 0)
		param_set("max_inflight", self->max_inflight);
}

TEST_F_TIMEOUT(lim, sqe_graph_too_big, 300)
{
	struct wsched_probe p;

	if (!param_set("max_nodes", 300)) {
		TH_LOG("parameters not writable: the default limits");
		graph_too_big(_metadata, &self->r,
			      self->p.max_nodes < self->p.max_inflight ?
			      self->p.max_nodes : self->p.max_inflight);
		return;
	}
	ASSERT_EQ(0, do_probe(self->r.fd, &p));
	ASSERT_EQ(300, p.max_nodes);
	graph_too_big(_metadata, &self->r, 300);
	/* max_inflight below max_nodes bounds a graph too */
	ASSERT_TRUE(param_set("max_nodes", self->max_nodes));
	ASSERT_TRUE(param_set("max_inflight", 250));
	ASSERT_EQ(0, do_probe(self->r.fd, &p));
	ASSERT_EQ(250, p.max_inflight);
	graph_too_big(_metadata, &self->r, 250);
}

TEST_F_TIMEOUT(lim, inflight_limit, 400)
{
	struct wsched_probe p;

	if (!param_set("max_inflight", 400)) {
		TH_LOG("parameters not writable: the default limits");
		inflight_limit(_metadata, &self->r, self->p.max_nodes,
			       self->p.max_inflight);
		return;
	}
	ASSERT_EQ(0, do_probe(self->r.fd, &p));
	inflight_limit(_metadata, &self->r, p.max_nodes, p.max_inflight);
}

/* ---------------------------------------------------------------------
 * Close and exit with work in flight.
 */
static struct ws_stats stats;

/* The pool's executed-task total, or ~0ULL. */
static unsigned long long pool_executed(void)
{
	if (ws_stats_read("system", &stats))
		return ~0ULL;
	return stats.total[WS_EXECUTED];
}

/*
 * After a close: the context's pool is gone (@pools0 user pools are left,
 * as before the context was opened), and the system pool executes nothing
 * for 300 ms.
 */
static const char *pool_quiet(int pools0)
{
	unsigned long long a = pool_executed(), b;
	int pools = ws_user_pools(NULL);

	if (a == ~0ULL)
		return why("stats: %s", stats.err);
	if (pools != pools0)
		return why("%d pools of /dev/wsched contexts left after close, not %d",
			   pools, pools0);
	usleep(300000);
	b = pool_executed();
	if (a != b)
		return why("the pool executed %llu tasks in 300 ms after close",
			   b - a);
	return NULL;
}

/* Fill a ring with @ng graphs of @n chained SPIN_MAX nodes. */
static const char *load_spins(struct ring *r, unsigned int ng, unsigned int n)
{
	unsigned int g;
	int ret;

	for (g = 0; g < ng; g++) {
		ret = submit_spin_chain(r, g, n, WSCHED_SPIN_MAX, 0);
		if (ret)
			return why("submitting graph %u: %s", g, strerror(-ret));
	}
	return NULL;
}

TEST_F_TIMEOUT(big, close_with_work_in_flight, 300)
{
	__u64 spin = spin_max_ns(&self->r), work, t0, dt;
	unsigned int ng = 32, n = 128, round;
	long lck0 = vmlck_kb();
	unsigned char *mem = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wsched_buf b = { (uintptr_t)mem, 16 * PAGE };

	ASSERT_NE(0, spin);
	ASSERT_NE(MAP_FAILED, mem);
	/* Serial work in flight, spread over the workers. */
	work = spin * ng * n / (self->p.nr_workers ? self->p.nr_workers : 1);
	TH_LOG("SPIN_MAX %llu us, %u workers, %.1f s of work in flight",
	       (unsigned long long)spin / 1000, self->p.nr_workers, work / 1e9);
	for (round = 0; round < 2; round++) {
		struct ring r;
		int pools0 = ws_user_pools(NULL);
		int ret = ring_open(&r, 4096, 0, WSCHED_SETUP_CLAMP);

		ASSERT_EQ(0, ret);
		ASSERT_EQ(0, reg_bufs(r.fd, &b, 1));
		EXPECT_EQ(lck0 + 64, vmlck_kb());
		ASSERT_OK(load_spins(&r, ng, n));
		usleep(20000);
		t0 = now_ns();
		if (round == 0) {
			/* unmapped first: the close releases the context */
			ring_unmap(&r);
			close(r.fd);
		} else {
			/* still mapped: the munmap drops the last reference */
			close(r.fd);
			ring_unmap(&r);
		}
		dt = now_ns() - t0;
		TH_LOG("round %u: release took %.3f s", round, dt / 1e9);
		/* queued nodes were cancelled, not run */
		EXPECT_GT(work / 4, dt);
		EXPECT_OK(pool_quiet(pools0));
		EXPECT_EQ(lck0, vmlck_kb());
	}
	/* A fresh context works. */
	{
		struct ring r;

		ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
		EXPECT_OK(marker(&r, 1));
		ring_close(&r);
	}
	munmap(mem, 16 * PAGE);
}

TEST_F_TIMEOUT(big, killed_with_work_in_flight, 300)
{
	__u64 spin = spin_max_ns(&self->r), work, t0, dt;
	unsigned int ng = 32, n = 128;
	int pipefd[2], status, pools0 = ws_user_pools(NULL);
	pid_t pid;
	char c;

	ASSERT_NE(0, spin);
	work = spin * ng * n / (self->p.nr_workers ? self->p.nr_workers : 1);
	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct ring r;
		static unsigned char mem[8 * PAGE];
		struct wsched_buf b = { (uintptr_t)mem, sizeof(mem) };

		close(pipefd[0]);
		if (ring_open(&r, 4096, 0, WSCHED_SETUP_CLAMP))
			c = '1';
		else if (reg_bufs(r.fd, &b, 1))
			c = '2';
		else if (load_spins(&r, ng, n))
			c = '3';
		else if (reg_bufs(dev_open(), &b, 1))	/* a context without rings */
			c = '4';
		else
			c = 'x';
		if (write(pipefd[1], &c, 1) != 1 || c != 'x')
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	c = 0;
	ASSERT_EQ(1, read(pipefd[0], &c, 1));
	EXPECT_EQ('x', c) TH_LOG("the child failed at step %c (1 setup, 2 register, 3 submit, 4 register without setup)", c);
	usleep(50000);
	t0 = now_ns();
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	dt = now_ns() - t0;
	EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	TH_LOG("exit took %.3f s (%.1f s of work was in flight)", dt / 1e9, work / 1e9);
	EXPECT_GT(work / 4, dt);
	EXPECT_OK(pool_quiet(pools0));
	close(pipefd[0]);
	{
		struct ring r;

		ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
		EXPECT_OK(marker(&r, 1));
		ring_close(&r);
	}
}

/* ---------------------------------------------------------------------
 * Data ops against the reference implementations.
 */
#define DATA_LEN	(4UL << 20)
#define DATA_MAP	(DATA_LEN + 4 * PAGE)
#define DIG_LEN		4096UL

static int sign(int x)
{
	return x < 0 ? -1 : x > 0;
}

/* memcmp() of @a with a buffer of @len bytes @b: sign, as the kernel's. */
static int ref_memcmp_byte(unsigned char b, const unsigned char *a, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (a[i] != b)
			return b < a[i] ? -1 : 1;
	return 0;
}

FIXTURE(data) {
	struct ring r;
	unsigned char *smap, *dmap, *src, *dst, *dig;
};

FIXTURE_SETUP(data)
{
	struct wsched_buf b[3];
	int ret = ring_open(&self->r, 64, 0, 0);

	ASSERT_EQ(0, ret) TH_LOG("open+setup %s: %s", DEV_PATH, strerror(-ret));
	self->smap = mmap(NULL, DATA_MAP, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	self->dmap = mmap(NULL, DATA_MAP, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->smap);
	ASSERT_NE(MAP_FAILED, self->dmap);
	/* unaligned buffers */
	self->src = self->smap + 3;
	self->dst = self->dmap + 5;
	self->dig = self->smap + DATA_LEN + 2 * PAGE + 1;
	rnd_seed(0xda7a);
	fill_random(self->src, DATA_LEN);
	memset(self->dst, 0, DATA_LEN);
	memset(self->dig, 0, DIG_LEN);
	b[0].addr = (uintptr_t)self->src;
	b[0].len = DATA_LEN;
	b[1].addr = (uintptr_t)self->dst;
	b[1].len = DATA_LEN;
	b[2].addr = (uintptr_t)self->dig;
	b[2].len = DIG_LEN;
	ret = reg_bufs(self->r.fd, b, 3);
	ASSERT_EQ(0, ret) TH_LOG("register: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(data)
{
	ring_close(&self->r);
	munmap(self->smap, DATA_MAP);
	munmap(self->dmap, DATA_MAP);
}

TEST_F_TIMEOUT(data, data_ops, 300)
{
	static const __u64 lens[] = {
		1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 55, 56, 63, 64, 65, 127,
		255, 511, 1000, 4095, 4096, 4097, 8191, 65535, 65537, 300001,
		(1 << 20) - 1, (1 << 20) + 7, (3 << 20) + 3, DATA_LEN - 4097,
		DATA_LEN,
	};
	static const __u64 offs[] = { 0, 1, 3, 7, 4093, 12345, 4096, 65 };
	struct ring *r = &self->r;
	unsigned int k;
	__u64 t0 = now_ns();

	for (k = 0; k < ARRAY_SIZE(lens); k++) {
		__u64 len = lens[k];
		__u64 soff = offs[k % ARRAY_SIZE(offs)];
		__u64 doff = offs[(k * 3 + 1) % ARRAY_SIZE(offs)];
		__u64 goff = (k * 37) % (DIG_LEN - 32);
		__u64 seed = (__u64)rnd() << 32 | rnd();
		unsigned char b = rnd() >> 24, guard_lo, guard_hi, d[32];
		__u32 crc_seed = rnd();
		struct tg *t = tg_alloc(0, 9);

		if (soff + len > DATA_LEN)
			soff = DATA_LEN - len;
		if (doff + len > DATA_LEN)
			doff = DATA_LEN - len;
		ASSERT_NE(NULL, t);
		guard_lo = doff ? self->dst[doff - 1] : 0;
		guard_hi = doff + len < DATA_LEN ? self->dst[doff + len] : 0;
		/*
		 * 0 memset dst; 1 memcmp dst/src; 2 memcpy src to dst; 3 memcmp;
		 * 4 crc32c src; 5 xxhash64 src; 6 sha256 src; 7 crc32c dst;
		 * 8 a nop joining 3, 6 and 7
		 */
		sqe_range(&t->e[0], WSCHED_OP_MEMSET, 1, doff, len, 0, b, UD(0, 0));
		sqe_range(&t->e[1], WSCHED_OP_MEMCMP, 1, doff, len, 0, soff, UD(0, 1));
		sqe_pred1(&t->e[1], 0);
		sqe_range(&t->e[2], WSCHED_OP_MEMCPY, 1, doff, len, 0, soff, UD(0, 2));
		sqe_pred1(&t->e[2], 1);
		sqe_range(&t->e[3], WSCHED_OP_MEMCMP, 1, doff, len, 0, soff, UD(0, 3));
		sqe_pred1(&t->e[3], 2);
		sqe_range(&t->e[4], WSCHED_OP_CRC32C, 0, soff, len, 0, crc_seed, UD(0, 4));
		sqe_range(&t->e[5], WSCHED_OP_XXHASH64, 0, soff, len, 0, seed, UD(0, 5));
		sqe_range(&t->e[6], WSCHED_OP_SHA256, 0, soff, len, 2, goff, UD(0, 6));
		sqe_range(&t->e[7], WSCHED_OP_CRC32C, 1, doff, len, 0, ~0U, UD(0, 7));
		sqe_pred1(&t->e[7], 2);
		sqe_nop(&t->e[8], UD(0, 8));
		{
			static __u32 p[3] = { 3, 6, 7 };

			sqe_preds(&t->e[8], p, 3);
		}
		tg_finish(t);
		ASSERT_OK(drive(r, &t, 1, 120));
		ASSERT_TRUE(t->done);
		for (unsigned int i = 0; i < 9; i++) {
			EXPECT_EQ(0, t->res[i]) TH_LOG("len %llu node %u", (unsigned long long)len, i);
			EXPECT_EQ(WSCHED_RES_RAN, t->flags[i]);
		}
		EXPECT_EQ(ref_memcmp_byte(b, self->src + soff, len), (__s64)t->value[1])
			TH_LOG("memcmp after memset, len %llu", (unsigned long long)len);
		EXPECT_EQ(0, (__s64)t->value[3]) TH_LOG("memcmp after memcpy, len %llu",
							(unsigned long long)len);
		EXPECT_EQ(0, memcmp(self->dst + doff, self->src + soff, len))
			TH_LOG("memcpy, len %llu doff %llu soff %llu", (unsigned long long)len,
			       (unsigned long long)doff, (unsigned long long)soff);
		EXPECT_EQ(wsched_crc32c_sw(crc_seed, self->src + soff, len), t->value[4])
			TH_LOG("crc32c len %llu seed %#x", (unsigned long long)len, crc_seed);
		EXPECT_EQ(wsched_crc32c_sw(~0U, self->src + soff, len), t->value[7])
			TH_LOG("crc32c of the copy, len %llu", (unsigned long long)len);
		EXPECT_EQ(wsched_xxhash64_sw(self->src + soff, len, seed), t->value[5])
			TH_LOG("xxhash64 len %llu seed %#llx", (unsigned long long)len,
			       (unsigned long long)seed);
		wsched_sha256_sw(self->src + soff, len, d);
		EXPECT_EQ(0, memcmp(d, self->dig + goff, 32))
			TH_LOG("sha256 len %llu", (unsigned long long)len);
		if (doff)
			EXPECT_EQ(guard_lo, self->dst[doff - 1]) TH_LOG("byte before the range");
		if (doff + len < DATA_LEN)
			EXPECT_EQ(guard_hi, self->dst[doff + len]) TH_LOG("byte after the range");
		tg_free(t);
		/* memset alone, checked byte by byte */
		{
			struct wsched_sqe e;
			struct wsched_cqe c[4];
			__u64 i, bad = ~0ULL;

			b ^= 0x5a;
			guard_lo = doff ? self->dst[doff - 1] : 0;
			guard_hi = doff + len < DATA_LEN ? self->dst[doff + len] : 0;
			sqe_range(&e, WSCHED_OP_MEMSET, 1, doff, len, 0, b, UD(1, 0));
			e.flags = WSCHED_SQE_GRAPH_END;
			ASSERT_EQ(2, run_small(r, &e, 1, 2, c, 4));
			EXPECT_EQ(0, c[0].res);
			for (i = 0; i < len && bad == ~0ULL; i++)
				if (self->dst[doff + i] != b)
					bad = i;
			EXPECT_EQ(~0ULL, bad) TH_LOG("memset len %llu: byte %llu",
						      (unsigned long long)len,
						      (unsigned long long)bad);
			if (doff)
				EXPECT_EQ(guard_lo, self->dst[doff - 1]);
			if (doff + len < DATA_LEN)
				EXPECT_EQ(guard_hi, self->dst[doff + len]);
		}
	}
	TH_LOG("%zu cases in %.1f s", ARRAY_SIZE(lens), (now_ns() - t0) / 1e9);
}

/* memcmp: sign of the first differing byte, as unsigned; -1/0/1. */
TEST_F(data, memcmp_sign)
{
	static const struct { __u64 len, at; unsigned char a, b; int want; } c[] = {
		{ 1, 0, 1, 2, -1 }, { 1, 0, 2, 1, 1 }, { 1, 0, 7, 7, 0 },
		{ 100, 99, 0x10, 0x11, -1 }, { 100, 99, 0x11, 0x10, 1 },
		{ 100, 0, 0x80, 0x7f, 1 }, { 100, 0, 0x00, 0xff, -1 },
		{ 70000, 69999, 0xfe, 0xff, -1 }, { 70000, 40000, 0x90, 0x10, 1 },
		{ 70000, 0, 0, 0, 0 },
	};
	struct ring *r = &self->r;
	struct wsched_sqe e;
	struct wsched_cqe cq[4];
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(c); k++) {
		memset(self->src + 10, 0x33, c[k].len);
		memset(self->dst + 20, 0x33, c[k].len);
		self->dst[20 + c[k].at] = c[k].a;
		self->src[10 + c[k].at] = c[k].b;
		/* (buf, off) is the first operand, (buf2, arg) the second */
		sqe_range(&e, WSCHED_OP_MEMCMP, 1, 20, c[k].len, 0, 10, UD(0, k));
		e.flags = WSCHED_SQE_GRAPH_END;
		ASSERT_EQ(2, run_small(r, &e, 1, 2, cq, 4));
		EXPECT_EQ(0, cq[0].res);
		EXPECT_EQ(c[k].want, (__s64)cq[0].value) TH_LOG("case %u", k);
		EXPECT_EQ(c[k].want, sign(memcmp(self->dst + 20, self->src + 10, c[k].len)));
	}
}

/* ---------------------------------------------------------------------
 * Pinned memory: VmLck and RLIMIT_MEMLOCK.
 */
TEST(pinned_accounting)
{
	unsigned char *m = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	/* page-aligned buffers: 10000 bytes (3 pages), 1 byte (1), 5 pages */
	struct wsched_buf b[3] = {
		{ (uintptr_t)m, 10000 },
		{ (uintptr_t)m + 4 * PAGE, 1 },
		{ (uintptr_t)m + 8 * PAGE, 5 * PAGE },
	};
	long lck0 = vmlck_kb(), want = 9 * PAGE / 1024;
	struct ring r;
	int fd;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_LE(0, lck0);
	ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
	ASSERT_EQ(0, reg_bufs(r.fd, b, 3));
	EXPECT_EQ(lck0 + want, vmlck_kb());
	ASSERT_EQ(0, unreg_bufs(r.fd));
	EXPECT_EQ(lck0, vmlck_kb());
	ASSERT_EQ(0, reg_bufs(r.fd, b, 3));
	EXPECT_EQ(lck0 + want, vmlck_kb());
	/* the pinned pages stay valid after munmap until unregister */
	ring_close(&r);
	EXPECT_EQ(lck0, vmlck_kb()) TH_LOG("after close");
	/* without rings, closed right away */
	fd = dev_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, reg_bufs(fd, b, 2));
	EXPECT_EQ(lck0 + 4 * PAGE / 1024, vmlck_kb());
	close(fd);
	EXPECT_EQ(lck0, vmlck_kb()) TH_LOG("after close without rings");
	/* an unaligned buffer spanning two pages: log what is charged */
	fd = dev_open();
	ASSERT_LE(0, fd);
	b[0].addr = (uintptr_t)m + PAGE - 100;
	b[0].len = 200;
	ASSERT_EQ(0, reg_bufs(fd, b, 1));
	TH_LOG("200 bytes across a page boundary: VmLck +%ld kB", vmlck_kb() - lck0);
	EXPECT_LT(lck0, vmlck_kb());
	close(fd);
	EXPECT_EQ(lck0, vmlck_kb());
	munmap(m, 16 * PAGE);
}

/* In a child: a 64 KiB RLIMIT_MEMLOCK, with or without CAP_IPC_LOCK. */
static int memlock_child(bool drop)
{
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	unsigned char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wsched_buf big = { (uintptr_t)m, 1 << 20 };
	struct wsched_buf two[2] = {
		{ (uintptr_t)m, 36 * 1024 }, { (uintptr_t)m + 64 * 1024, 32 * 1024 },
	};
	struct wsched_buf small = { (uintptr_t)m, 32 * 1024 };
	int fd, ret;

	if (m == MAP_FAILED)
		return 10;
	if (drop && drop_cap_ipc_lock())
		return 11;
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return 12;
	if (vmlck_kb() != 0)
		return 13;
	fd = dev_open();
	if (fd < 0)
		return 14;
	ret = reg_bufs(fd, &big, 1);
	if (!drop)
		return ret ? 20 : 0;	/* CAP_IPC_LOCK: the limit does not apply */
	if (ret != -ENOMEM)
		return 21;
	if (vmlck_kb() != 0)
		return 22;
	if (reg_bufs(fd, two, 2) != -ENOMEM)
		return 23;
	if (reg_bufs(fd, &small, 1))
		return 24;
	if (vmlck_kb() != 32)
		return 25;
	if (unreg_bufs(fd))
		return 26;
	if (vmlck_kb() != 0)
		return 27;
	close(fd);
	return 0;
}

TEST(memlock_rlimit)
{
	int status, i;

	for (i = 0; i < 2; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (!pid)
			_exit(memlock_child(i == 0));
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("%s CAP_IPC_LOCK: step %d failed (see memlock_child)",
			       i == 0 ? "without" : "with", WEXITSTATUS(status));
	}
}

TEST_HARNESS_MAIN
