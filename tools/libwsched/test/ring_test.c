// SPDX-License-Identifier: GPL-2.0
/*
 * libwsched against the real /dev/wsched: setup, entries and node
 * numbering, graphs across submissions, refused graphs, failures, CQ
 * overflow and -EBUSY, timeouts, for-each, poll, buffers and every data
 * op against the software checksums, op lookup/list, probe.
 *
 * Needs wsched.ko loaded and root.  TAP output; exit 0 if every test
 * passed, 1 otherwise, 4 (kselftest "skip") without /dev/wsched.
 */
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "wsched.h"

static int ntest, nfail;
static char why[256];

#define FAILIF(cond, ...) do {						\
	if (cond) {							\
		snprintf(why, sizeof(why), __VA_ARGS__);		\
		goto fail;						\
	}								\
} while (0)

#define CHECK(call) do {						\
	int r_ = (call);						\
	FAILIF(r_ < 0, "%s: %s (line %d)", #call, strerror(-r_), __LINE__); \
} while (0)

static void report(const char *name, int ok)
{
	ntest++;
	if (ok) {
		printf("ok %d %s\n", ntest, name);
	} else {
		nfail++;
		printf("not ok %d %s # %s\n", ntest, name, why);
	}
	fflush(stdout);
}

/* Collect completions until the graph's own; returns it, or -1. */
struct outcome {
	struct wsched_cqe node[64];
	int seen[64];
	int nr;				/* node completions */
	struct wsched_cqe graph;
	int order_ok;			/* graph completion came last */
};

static int reap_graph(struct wsched_ring *ring, struct outcome *o)
{
	struct wsched_cqe *cqe;
	int ret;

	memset(o, 0, sizeof(*o));
	o->order_ok = 1;
	for (;;) {
		ret = wsched_wait_cqe_timeout(ring, &cqe, 10ULL * 1000000000);
		if (ret)
			return ret;
		if (wsched_cqe_is_graph(cqe)) {
			o->graph = *cqe;
			wsched_cqe_seen(ring, cqe);
			return 0;
		}
		if (cqe->user_data < 64) {
			if (o->seen[cqe->user_data]++)
				o->order_ok = 0;
			o->node[cqe->user_data] = *cqe;
		}
		o->nr++;
		wsched_cqe_seen(ring, cqe);
	}
}

static struct wsched_sqe *nop(struct wsched_ring *ring, __u64 data, __u32 flags)
{
	struct wsched_sqe *sqe = wsched_get_sqe(ring);

	if (sqe) {
		wsched_prep_nop(sqe);
		wsched_sqe_set_data64(sqe, data);
		wsched_sqe_set_flags(sqe, flags);
	}
	return sqe;
}

static void test_setup(void)
{
	struct wsched_ring ring;
	struct wsched_setup p;
	struct wsched_probe pr;
	int ret;

	ring.fd = -1;
	ret = wsched_queue_init(0, &ring, 0);
	FAILIF(ret != -EINVAL, "0 entries: %d, want -EINVAL", ret);
	CHECK(wsched_probe(NULL, &pr));
	ret = wsched_queue_init(pr.max_sq_entries + 1, &ring, 0);
	FAILIF(ret != -EINVAL, "too many entries: %d, want -EINVAL", ret);
	CHECK(wsched_queue_init(pr.max_sq_entries + 1, &ring, WSCHED_SETUP_CLAMP));
	FAILIF(ring.sq.ring_entries > pr.max_sq_entries, "CLAMP gave %u", ring.sq.ring_entries);
	wsched_queue_exit(&ring);

	memset(&p, 0, sizeof(p));
	p.cq_entries = 20;
	CHECK(wsched_queue_init_params(5, &ring, &p));
	FAILIF(ring.sq.ring_entries != 8 || ring.cq.ring_entries != 32,
	       "5/20 entries gave %u/%u, want 8/32", ring.sq.ring_entries, ring.cq.ring_entries);
	FAILIF(p.sq_entries != 8 || p.cq_entries != 32, "params not written back");
	FAILIF(!(ring.features & WSCHED_FEAT_RINGS) || !(ring.features & WSCHED_FEAT_BUFFERS),
	       "features 0x%llx", (unsigned long long)ring.features);
	FAILIF(wsched_sq_space_left(&ring) != 8 || wsched_cq_ready(&ring), "not empty");
	wsched_queue_exit(&ring);
	FAILIF(ring.fd != -1, "fd not reset");
	report("setup", 1);
	return;
fail:
	report("setup", 0);
}

static void test_one_nop(void)
{
	struct wsched_ring ring;
	struct outcome o;
	int ret;

	CHECK(wsched_queue_init(4, &ring, 0));
	nop(&ring, 42, WSCHED_SQE_GRAPH_END);
	ret = wsched_submit(&ring);
	FAILIF(ret != 1, "submit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.nr != 1 || !o.seen[42] || o.node[42].res || o.node[42].seq != 1 ||
	       !(o.node[42].flags & WSCHED_RES_RAN), "node completion (%d completions)", o.nr);
	FAILIF(o.graph.user_data != 42 || o.graph.res || o.graph.value != 1 || o.graph.seq != 1,
	       "graph cqe: data %llu res %d value %llu seq %u",
	       (unsigned long long)o.graph.user_data, o.graph.res,
	       (unsigned long long)o.graph.value, o.graph.seq);
	wsched_queue_exit(&ring);
	report("one_nop", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("one_nop", 0);
}

static void test_sq_full_and_numbering(void)
{
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct outcome o;
	__u32 node, i;
	int ret;

	CHECK(wsched_queue_init(4, &ring, 0));
	/* A chain of 10 nodes through a 4-entry SQ. */
	for (i = 0; i < 10; i++) {
		while (!(sqe = wsched_graph_node(&ring, &node))) {
			FAILIF(wsched_sq_space_left(&ring), "NULL with room");
			ret = wsched_submit(&ring);
			FAILIF(ret != 4, "submit of a full SQ: %d", ret);
		}
		FAILIF(node != i, "node number %u, want %u", node, i);
		wsched_prep_spin(sqe, 100);
		wsched_sqe_set_data64(sqe, i);
		if (i)
			wsched_sqe_set_pred(sqe, i - 1);
		if (i == 9)
			wsched_sqe_set_graph_end(sqe);
	}
	ret = wsched_submit(&ring);
	FAILIF(ret != 2, "last submit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.nr != 10 || !o.order_ok, "%d completions", o.nr);
	for (i = 0; i < 10; i++)
		FAILIF(o.node[i].seq != i + 1 || !(o.node[i].flags & WSCHED_RES_RAN),
		       "node %u seq %u flags 0x%x", i, o.node[i].seq, o.node[i].flags);
	FAILIF(o.graph.value != 10 || o.graph.seq != 10, "graph value %llu seq %u",
	       (unsigned long long)o.graph.value, o.graph.seq);

	/* Two graphs in one submission: numbering restarts after an end. */
	nop(&ring, 0, 0);
	sqe = nop(&ring, 1, WSCHED_SQE_GRAPH_END);
	wsched_sqe_set_pred(sqe, 0);
	FAILIF(wsched_last_node(&ring) != 1, "last node %u", wsched_last_node(&ring));
	sqe = wsched_graph_node(&ring, &node);
	FAILIF(!sqe || node != 0, "new graph starts at %u", node);
	wsched_prep_nop(sqe);
	sqe->user_data = 10;
	sqe = wsched_graph_node(&ring, &node);
	FAILIF(!sqe || node != 1, "second node %u", node);
	wsched_prep_nop(sqe);
	sqe->user_data = 11;
	wsched_sqe_set_pred(sqe, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != 4, "submit of two graphs: %d", ret);
	CHECK(reap_graph(&ring, &o));
	{
		struct outcome o2;

		CHECK(reap_graph(&ring, &o2));
		FAILIF(o.graph.value + o2.graph.value != 4, "graphs ran %llu + %llu nodes",
		       (unsigned long long)o.graph.value, (unsigned long long)o2.graph.value);
	}
	wsched_queue_exit(&ring);
	report("sq_full_and_numbering", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("sq_full_and_numbering", 0);
}

static void test_preds(void)
{
	static __u32 preds[WSCHED_MAX_PREDS + 1];
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct outcome o;
	__u32 i;
	int ret;

	CHECK(wsched_queue_init(128, &ring, 0));
	for (i = 0; i < WSCHED_MAX_PREDS; i++) {
		nop(&ring, i, 0);
		preds[i] = i;
	}
	sqe = nop(&ring, WSCHED_MAX_PREDS, WSCHED_SQE_GRAPH_END);
	ret = wsched_sqe_set_preds(sqe, preds, WSCHED_MAX_PREDS + 1);
	FAILIF(ret != -E2BIG, "65 preds: %d", ret);
	CHECK(wsched_sqe_set_preds(sqe, preds, 1));
	FAILIF(sqe->nr_preds != 1 || sqe->pred != 0 || sqe->preds_ptr, "inline pred");
	CHECK(wsched_sqe_set_preds(sqe, preds, WSCHED_MAX_PREDS));
	FAILIF(sqe->pred || sqe->preds_ptr != (__u64)(uintptr_t)preds, "pred array");
	ret = wsched_submit(&ring);
	FAILIF(ret != WSCHED_MAX_PREDS + 1, "submit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.nr != WSCHED_MAX_PREDS + 1 || o.graph.value != WSCHED_MAX_PREDS + 1,
	       "%d completions, %llu ran", o.nr, (unsigned long long)o.graph.value);
	/* user_data 64 is beyond struct outcome: the join's seq is the last. */
	for (i = 0; i < WSCHED_MAX_PREDS; i++)
		FAILIF(!o.seen[i] || o.node[i].seq >= WSCHED_MAX_PREDS + 1,
		       "node %u seq %u", i, o.node[i].seq);
	wsched_queue_exit(&ring);
	report("preds", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("preds", 0);
}

static void test_refused(void)
{
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct wsched_cqe *cqe;
	struct outcome o;
	int ret;

	CHECK(wsched_queue_init(8, &ring, 0));
	/* FAIL with errno 0 is invalid: the whole graph is refused. */
	nop(&ring, 0, 0);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_fail(sqe, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EINVAL, "bad FAIL arg: %d, want -EINVAL", ret);
	FAILIF(wsched_last_submitted(&ring) != 2, "consumed %u, want 2",
	       wsched_last_submitted(&ring));
	ret = wsched_wait_cqe_timeout(&ring, &cqe, 0);
	FAILIF(ret != -ETIME, "a refused graph posted a completion (%d)", ret);
	/* Unknown op. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_op(sqe, 9999, 0, 0, 0, 0, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EOPNOTSUPP, "unknown op: %d", ret);
	/* Forward predecessor. */
	sqe = nop(&ring, 0, WSCHED_SQE_GRAPH_END);
	wsched_sqe_set_pred(sqe, 0);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EINVAL, "self predecessor: %d", ret);
	/* Data op without buffers. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 0, 0, 1, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EINVAL, "data op without buffers: %d", ret);
	/* The context still works. */
	nop(&ring, 7, WSCHED_SQE_GRAPH_END);
	ret = wsched_submit(&ring);
	FAILIF(ret != 1, "good graph after refused ones: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.graph.user_data != 7 || o.graph.res, "graph after refused ones");
	wsched_queue_exit(&ring);
	report("refused_graphs", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("refused_graphs", 0);
}

static void test_failures(void)
{
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct outcome o;
	int ret;

	CHECK(wsched_queue_init(8, &ring, 0));
	nop(&ring, 0, 0);					/* 0 */
	sqe = wsched_get_sqe(&ring);				/* 1: fails */
	wsched_prep_fail(sqe, EIO);
	sqe->user_data = 1;
	wsched_sqe_set_pred(sqe, 0);
	sqe = nop(&ring, 2, 0);					/* 2: cancelled */
	wsched_sqe_set_pred(sqe, 1);
	sqe = wsched_get_sqe(&ring);				/* 3: soft */
	wsched_prep_fail(sqe, ENOSPC);
	sqe->user_data = 3;
	wsched_sqe_set_soft_fail(sqe);
	sqe = nop(&ring, 4, WSCHED_SQE_NO_CQE);			/* 4: runs */
	wsched_sqe_set_pred(sqe, 3);
	sqe = nop(&ring, 5, WSCHED_SQE_GRAPH_END);		/* 5 */
	wsched_sqe_set_pred(sqe, 4);
	ret = wsched_submit(&ring);
	FAILIF(ret != 6, "submit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.nr != 5 || o.seen[4], "%d completions (node 4 has none)", o.nr);
	FAILIF(o.node[1].res != -EIO || !(o.node[1].flags & WSCHED_RES_RAN), "node 1");
	FAILIF(o.node[2].res != -ECANCELED || !(o.node[2].flags & WSCHED_RES_DEP_FAILED) ||
	       (o.node[2].flags & WSCHED_RES_RAN), "node 2: res %d flags 0x%x",
	       o.node[2].res, o.node[2].flags);
	FAILIF(o.node[3].res != -ENOSPC, "node 3");
	FAILIF(o.node[5].res || !(o.node[5].flags & WSCHED_RES_RAN), "node 5 after soft failure");
	FAILIF(o.graph.res != -EIO && o.graph.res != -ENOSPC, "graph res %d", o.graph.res);
	FAILIF(o.graph.value != 5 || o.graph.seq != 6, "graph value %llu seq %u",
	       (unsigned long long)o.graph.value, o.graph.seq);
	wsched_queue_exit(&ring);
	report("failures", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("failures", 0);
}

static void test_overflow(void)
{
	struct wsched_ring ring;
	struct wsched_setup p;
	struct wsched_sqe *sqe;
	struct wsched_cqe *cqe;
	struct outcome o;
	int ret, i, n = 0, graphs = 0;
	unsigned int ov0;

	memset(&p, 0, sizeof(p));
	p.cq_entries = 8;
	CHECK(wsched_queue_init_params(8, &ring, &p));
	ov0 = wsched_cq_overflow(&ring);
	/* 20 nodes + the graph: 21 completions for an 8-entry CQ. */
	for (i = 0; i < 20; i++) {
		while (!(sqe = nop(&ring, i, i == 19 ? WSCHED_SQE_GRAPH_END : 0)))
			FAILIF(wsched_submit(&ring) <= 0, "submit");
	}
	ret = wsched_submit_and_wait(&ring, 21);
	FAILIF(ret != 4, "submit_and_wait: %d", ret);
	FAILIF(wsched_cq_ready(&ring) != 8, "CQ holds %u", wsched_cq_ready(&ring));
	FAILIF(wsched_cq_overflow(&ring) - ov0 != 13, "overflow %u, want 13",
	       wsched_cq_overflow(&ring) - ov0);
	/* Held back completions: new entries are refused with -EBUSY. */
	nop(&ring, 100, WSCHED_SQE_GRAPH_END);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EBUSY, "submit while held back: %d, want -EBUSY", ret);
	FAILIF(wsched_last_submitted(&ring) != 0, "consumed %u", wsched_last_submitted(&ring));
	/* Reap all 21; none lost, the graph's last. */
	memset(&o, 0, sizeof(o));
	while (!graphs) {
		CHECK(wsched_wait_cqe_timeout(&ring, &cqe, 10ULL * 1000000000));
		if (wsched_cqe_is_graph(cqe))
			graphs++;
		else if (cqe->user_data < 20)
			o.seen[cqe->user_data]++;
		n++;
		wsched_cqe_seen(&ring, cqe);
	}
	FAILIF(n != 21, "%d completions, want 21", n);
	for (i = 0; i < 20; i++)
		FAILIF(o.seen[i] != 1, "node %d completed %d times", i, o.seen[i]);
	/* The entry left in the SQ goes with the next submit. */
	ret = wsched_submit(&ring);
	FAILIF(ret != 1, "resubmit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.graph.user_data != 100, "graph %llu", (unsigned long long)o.graph.user_data);
	wsched_queue_exit(&ring);
	report("cq_overflow_and_ebusy", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("cq_overflow_and_ebusy", 0);
}

static void test_wait_poll_foreach(void)
{
	struct wsched_ring ring;
	struct wsched_cqe *cqe;
	struct pollfd pfd;
	unsigned int head, n = 0;
	int ret;

	CHECK(wsched_queue_init(8, &ring, 0));
	ret = wsched_peek_cqe(&ring, &cqe);
	FAILIF(ret != -EAGAIN || cqe, "peek on empty: %d", ret);
	ret = wsched_wait_cqe_timeout(&ring, &cqe, 0);
	FAILIF(ret != -ETIME, "timeout 0 on empty: %d", ret);
	ret = wsched_wait_cqe_timeout(&ring, &cqe, 20 * 1000000);
	FAILIF(ret != -ETIME, "20 ms timeout on empty: %d", ret);
	pfd.fd = wsched_ring_fd(&ring);
	pfd.events = POLLIN;
	FAILIF(poll(&pfd, 1, 0) != 0, "poll on empty CQ: 0x%x", pfd.revents);

	nop(&ring, 0, 0);
	nop(&ring, 1, 0);
	nop(&ring, 2, WSCHED_SQE_GRAPH_END);
	ret = wsched_submit_and_wait(&ring, 4);
	FAILIF(ret != 3, "submit_and_wait: %d", ret);
	FAILIF(wsched_cq_ready(&ring) != 4, "ready %u", wsched_cq_ready(&ring));
	FAILIF(poll(&pfd, 1, 0) != 1 || !(pfd.revents & POLLIN), "poll: 0x%x", pfd.revents);
	wsched_for_each_cqe(&ring, head, cqe) {
		FAILIF(n < 3 && wsched_cqe_is_graph(cqe), "graph before its nodes");
		n++;
	}
	FAILIF(n != 4, "for_each saw %u", n);
	FAILIF(wsched_cq_ready(&ring) != 4, "for_each consumed");
	wsched_cq_advance(&ring, n);
	FAILIF(wsched_cq_ready(&ring), "advance left %u", wsched_cq_ready(&ring));
	FAILIF(poll(&pfd, 1, 0) != 0, "poll after reaping: 0x%x", pfd.revents);
	wsched_queue_exit(&ring);
	report("wait_poll_for_each", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("wait_poll_for_each", 0);
}

static void fill_random(unsigned char *p, size_t n, unsigned int seed)
{
	size_t i;

	for (i = 0; i < n; i++) {
		seed = seed * 1103515245U + 12345U;
		p[i] = (unsigned char)(seed >> 16);
	}
}

static void test_buffers_and_data_ops(void)
{
	const size_t len = 3 * 1024 * 1024 + 77;
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct iovec iov[2];
	struct outcome o;
	unsigned char *a, *b, d[32];
	int ret;

	a = malloc(len);
	b = malloc(len + 64);
	if (!a || !b)
		abort();
	fill_random(a, len, 1);
	memset(b, 0, len + 64);
	iov[0].iov_base = a;
	iov[0].iov_len = len;
	iov[1].iov_base = b;
	iov[1].iov_len = len + 64;
	CHECK(wsched_queue_init(16, &ring, 0));
	ret = wsched_unregister_buffers(&ring);
	FAILIF(ret != -ENXIO, "unregister with none: %d", ret);
	ret = wsched_register_buffers(&ring, iov, 0);
	FAILIF(ret != -EINVAL, "0 buffers: %d", ret);
	CHECK(wsched_register_buffers(&ring, iov, 2));
	ret = wsched_register_buffers(&ring, iov, 2);
	FAILIF(ret != -EBUSY, "second registration: %d", ret);

	/* 0: copy a (offset 1) to b; 1: compare; 2-4: checksums of b; 5: digest of a into b's tail;
	 * 6: memset b[0..9]; 7: compare again (after 6, and after 1-5 which read b). */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_memcpy(sqe, 1, 0, 0, 1, len - 1);
	sqe->user_data = 0;
	sqe = wsched_get_sqe(&ring);
	wsched_prep_memcmp(sqe, 1, 0, 0, 1, len - 1);
	sqe->user_data = 1;
	wsched_sqe_set_pred(sqe, 0);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 1, 0, len - 1, ~0U);
	sqe->user_data = 2;
	wsched_sqe_set_pred(sqe, 0);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_xxhash64(sqe, 1, 0, len - 1, 99);
	sqe->user_data = 3;
	wsched_sqe_set_pred(sqe, 0);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_sha256(sqe, 0, 0, len, 1, len + 16);
	sqe->user_data = 4;
	sqe = wsched_get_sqe(&ring);
	wsched_prep_memset(sqe, 1, 5, 10, 0xff);
	sqe->user_data = 5;
	{
		static const __u32 after[] = { 1, 2, 3 };

		wsched_sqe_set_preds(sqe, after, 3);
	}
	sqe = wsched_get_sqe(&ring);
	wsched_prep_memcmp(sqe, 1, 0, 0, 1, len - 1);
	sqe->user_data = 6;
	wsched_sqe_set_pred(sqe, 5);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != 7, "submit: %d", ret);
	CHECK(reap_graph(&ring, &o));
	FAILIF(o.graph.res, "graph res %d (node results %d %d %d %d %d %d %d)", o.graph.res,
	       o.node[0].res, o.node[1].res, o.node[2].res, o.node[3].res,
	       o.node[4].res, o.node[5].res, o.node[6].res);
	FAILIF(o.node[1].value != 0, "memcmp after memcpy: %lld", (long long)o.node[1].value);
	FAILIF((__u32)o.node[2].value != wsched_crc32c_sw(~0U, a + 1, len - 1),
	       "crc32c 0x%llx", (unsigned long long)o.node[2].value);
	FAILIF(o.node[3].value != wsched_xxhash64_sw(a + 1, len - 1, 99), "xxhash64");
	wsched_sha256_sw(a, len, d);
	FAILIF(memcmp(d, b + len + 16, 32), "sha256 digest");
	FAILIF(b[4] != a[5] || b[5] != 0xff || b[14] != 0xff || b[15] != a[16], "memset range");
	ret = memcmp(b, a + 1, len - 1);
	FAILIF((__s64)o.node[6].value != (ret < 0 ? -1 : ret > 0),
	       "memcmp after memset: %lld, user space %d", (long long)o.node[6].value, ret);
	/* A range past the end is refused with ERANGE. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 0, len - 10, 11, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != -ERANGE, "range past the end: %d", ret);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 2, 0, 1, 0);
	wsched_sqe_set_graph_end(sqe);
	ret = wsched_submit(&ring);
	FAILIF(ret != -EINVAL, "buffer index 2 of 2: %d", ret);
	/* A graph being built that uses the buffers pins the registration. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 0, 0, 1, 0);
	ret = wsched_submit(&ring);
	FAILIF(ret != 1, "submit of an open graph: %d", ret);
	ret = wsched_unregister_buffers(&ring);
	FAILIF(ret != -EBUSY, "unregister while a graph is built on them: %d", ret);
	nop(&ring, 9, WSCHED_SQE_GRAPH_END);
	FAILIF(wsched_submit(&ring) != 1, "end of the open graph");
	CHECK(reap_graph(&ring, &o));
	CHECK(wsched_unregister_buffers(&ring));
	ret = wsched_unregister_buffers(&ring);
	FAILIF(ret != -ENXIO, "second unregister: %d", ret);
	wsched_queue_exit(&ring);
	free(a);
	free(b);
	report("buffers_and_data_ops", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	free(a);
	free(b);
	report("buffers_and_data_ops", 0);
}

static void test_ops_and_probe(void)
{
	struct wsched_op_info info, infos[WSCHED_OP_LAST + 1 + WSCHED_OP_DYNAMIC_MAX];
	struct wsched_ring ring;
	struct wsched_probe p;
	struct outcome o;
	int ret, n, i, found = 0;

	CHECK(wsched_queue_init(4, &ring, 0));
	ret = wsched_op_lookup(&ring, "crc32c", &info);
	FAILIF(ret != WSCHED_OP_CRC32C || info.op != WSCHED_OP_CRC32C ||
	       !(info.flags & WSCHED_OPINFO_RANGE) || !(info.flags & WSCHED_OPINFO_BUILTIN),
	       "crc32c: %d flags 0x%x", ret, info.flags);
	ret = wsched_op_lookup(&ring, "sha256", NULL);
	FAILIF(ret != WSCHED_OP_SHA256, "sha256: %d", ret);
	ret = wsched_op_lookup(&ring, "no-such-op", NULL);
	FAILIF(ret != -ENOENT, "unknown name: %d", ret);
	ret = wsched_op_lookup(&ring, "an-operation-name-of-more-than-31", NULL);
	FAILIF(ret != -EINVAL, "long name: %d", ret);
	n = wsched_op_list(&ring, NULL, 0);
	FAILIF(n < WSCHED_OP_LAST + 1, "op list count %d", n);
	ret = wsched_op_list(&ring, infos, 3);
	FAILIF(ret != n, "list with room 3 returned %d, want %d", ret, n);
	ret = wsched_op_list(&ring, infos, sizeof(infos) / sizeof(infos[0]));
	FAILIF(ret != n, "list returned %d", ret);
	for (i = 0; i < n; i++) {
		const char *name = wsched_op_name(infos[i].op);

		if (infos[i].flags & WSCHED_OPINFO_BUILTIN) {
			FAILIF(!name || strcmp(name, infos[i].name), "op %u is '%s'",
			       infos[i].op, infos[i].name);
			found++;
		}
	}
	FAILIF(found != WSCHED_OP_LAST + 1, "%d built-ins listed", found);

	CHECK(wsched_probe(&ring, &p));
	FAILIF(p.version != WSCHED_ABI_VERSION, "version %u", p.version);
	FAILIF(p.nodes_run || p.graphs_run, "fresh context ran something");
	nop(&ring, 0, 0);
	nop(&ring, 1, WSCHED_SQE_GRAPH_END);
	FAILIF(wsched_submit(&ring) != 2, "submit");
	CHECK(reap_graph(&ring, &o));
	CHECK(wsched_probe(&ring, &p));
	FAILIF(p.nodes_run != 2 || p.graphs_run != 1, "probe counts %llu nodes, %llu graphs",
	       (unsigned long long)p.nodes_run, (unsigned long long)p.graphs_run);
	wsched_queue_exit(&ring);
	report("ops_and_probe", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("ops_and_probe", 0);
}

/* Close with a graph in flight: the release waits for it; nothing leaks. */
static void test_exit_in_flight(void)
{
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	int i, ret;

	CHECK(wsched_queue_init(64, &ring, 0));
	for (i = 0; i < 40; i++) {
		sqe = wsched_get_sqe(&ring);
		FAILIF(!sqe, "no SQE %d", i);
		wsched_prep_spin(sqe, WSCHED_SPIN_MAX);
		if (i)
			wsched_sqe_set_pred(sqe, i - 1);
		if (i == 39)
			wsched_sqe_set_graph_end(sqe);
	}
	ret = wsched_submit(&ring);
	FAILIF(ret != 40, "submit: %d", ret);
	wsched_queue_exit(&ring);
	report("exit_with_graph_in_flight", 1);
	return;
fail:
	wsched_queue_exit(&ring);
	report("exit_with_graph_in_flight", 0);
}

int main(void)
{
	struct wsched_probe p;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("TAP version 13\n");
	ret = wsched_probe(NULL, &p);
	if (ret) {
		printf("1..0 # SKIP %s: %s\n", WSCHED_DEVICE, strerror(-ret));
		return 4;
	}
	printf("1..11\n");
	test_setup();
	test_one_nop();
	test_sq_full_and_numbering();
	test_preds();
	test_refused();
	test_failures();
	test_overflow();
	test_wait_poll_foreach();
	test_buffers_and_data_ops();
	test_ops_and_probe();
	test_exit_in_flight();
	return nfail ? 1 : 0;
}
