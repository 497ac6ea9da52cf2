// SPDX-License-Identifier: GPL-2.0
/*
 * dev_test: the /dev/wsched ABI (uapi/linux/wsched.h).
 *
 * Every validation path of WSCHED_IOC_SUBMIT_GRAPH and WSCHED_IOC_PROBE is
 * checked for its errno and for running nothing (the context's nodes_run
 * counter does not move and the results buffer is not written); the
 * SUBMIT_GRAPH refusals are one table of variants (refused.*).  Then:
 * a diamond, random DAGs of 1..10000 nodes (each node ran exactly once,
 * after all its predecessors), failure propagation, interruption by a
 * signal, threads submitting concurrently, the device's mode, and that
 * the module cannot be unloaded while the device is open.
 *
 * A missing /dev/wsched is a failure, not a skip.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/wsched.h>

#include "kselftest_harness.h"
#include "wsched_ring.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define POISON		0xa5

static void graph_init(struct wsched_graph *g, struct wsched_node *nodes,
		       unsigned int nr, struct wsched_result *res)
{
	memset(g, 0, sizeof(*g));
	g->nodes_ptr = (uintptr_t)nodes;
	g->nr_nodes = nr;
	g->results_ptr = (uintptr_t)res;
	g->size = sizeof(*g);
	g->node_size = sizeof(struct wsched_node);
	g->result_size = sizeof(struct wsched_result);
}

static int submit(int fd, struct wsched_graph *g)
{
	return xioctl(fd, WSCHED_IOC_SUBMIT_GRAPH, g);
}

static void node_set(struct wsched_node *n, unsigned int op, __u64 arg0,
		     __u64 user_data)
{
	memset(n, 0, sizeof(*n));
	n->op = op;
	n->arg[0] = arg0;
	n->user_data = user_data;
}

static bool poisoned(const void *p, size_t len)
{
	const unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		if (c[i] != POISON)
			return false;
	return true;
}

FIXTURE(dev) {
	int fd;
	/* A valid graph of NR nodes that the tests then break. */
	struct wsched_node nodes[8];
	struct wsched_result res[8];
	__u32 preds[WSCHED_MAX_PREDS + 1];
	struct wsched_graph g;
};

#define NR 8

/* A chain of SPINs, node i waiting for node i - 1; results poisoned. */
static void chain_init(FIXTURE_DATA(dev) *self)
{
	unsigned int i;

	for (i = 0; i < NR; i++) {
		node_set(&self->nodes[i], WSCHED_OP_SPIN, 100, 1000 + i);
		if (i) {
			self->preds[i] = i - 1;
			self->nodes[i].nr_preds = 1;
			self->nodes[i].preds_ptr = (uintptr_t)&self->preds[i];
		}
	}
	memset(self->res, POISON, sizeof(self->res));
	graph_init(&self->g, self->nodes, NR, self->res);
}

FIXTURE_SETUP(dev)
{
	self->fd = dev_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	chain_init(self);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Submit @d's graph, expect @err, and that nothing ran or was written. */
static const char *submit_refused(FIXTURE_DATA(dev) *d, int err)
{
	unsigned long long before = nodes_run(d->fd);
	int ret;

	if (before == ~0ULL)
		return why("probe failed");
	ret = submit(d->fd, &d->g);
	if (ret != -err)
		return why("SUBMIT_GRAPH returned %s, want %s",
			   ret ? strerror(-ret) : "success", strerror(err));
	if (nodes_run(d->fd) != before)
		return why("%llu nodes ran", nodes_run(d->fd) - before);
	if (!poisoned(d->res, sizeof(d->res)))
		return why("results written");
	return NULL;
}

TEST_F(dev, valid_chain_runs)
{
	unsigned long long before = nodes_run(self->fd);
	unsigned int i;

	ASSERT_EQ(0, submit(self->fd, &self->g));
	EXPECT_EQ(before + NR, nodes_run(self->fd));
	for (i = 0; i < NR; i++) {
		EXPECT_EQ(1000 + i, self->res[i].user_data);
		EXPECT_EQ(0, self->res[i].res);
		EXPECT_EQ(WSCHED_RES_RAN, self->res[i].flags);
		EXPECT_EQ(i + 1, self->res[i].seq);
		EXPECT_EQ(0, self->res[i].resv);
	}
}

/*
 * SUBMIT_GRAPH refusals: the fixture's valid chain with one thing broken,
 * the errno expected, and nothing run or written (submit_refused()).
 */
enum dev_field {
	G_SIZE = 1, G_NODE_SIZE, G_RESULT_SIZE, G_FLAGS, G_RESV0, G_RESV1,
	G_RESV2, G_NR_NODES, G_NODES_PTR,
	N_OP, N_FLAGS, N_RESV, N_ARG0, N_ARG1, N_ARG2, N_NR_PREDS, N_PREDS_PTR,
	N_PRED,		/* node waits for val: preds[node] = val, nr_preds 1 */
	N_PREDS_ZERO,	/* preds_ptr to the fixture's preds[], all 0 */
};

struct dev_set {
	enum dev_field field;
	unsigned int node;
	__u64 val;
};

FIXTURE(refused) {
	FIXTURE_DATA(dev) d;
};

FIXTURE_VARIANT(refused) {
	struct dev_set set[3];	/* applied in order; field 0 ends */
	bool each_bit;		/* set[0].field = each bit outside set[0].val */
	int err;
};

#define LAST	(NR - 1)
#define REFUSED(name, e, ...)						\
	FIXTURE_VARIANT_ADD(refused, name) {				\
		.set = { __VA_ARGS__ }, .err = (e),			\
	}
#define REFUSED_BITS(name, f, node, valid, e)				\
	FIXTURE_VARIANT_ADD(refused, name) {				\
		.set = { { f, node, valid } }, .each_bit = true, .err = (e), \
	}

REFUSED(graph_size_short, EINVAL, { G_SIZE, 0, sizeof(struct wsched_graph) - 8 });
REFUSED(graph_size_long, EINVAL, { G_SIZE, 0, sizeof(struct wsched_graph) + 8 });
REFUSED(node_size, EINVAL, { G_NODE_SIZE, 0, sizeof(struct wsched_node) + 8 });
REFUSED(result_size, EINVAL, { G_RESULT_SIZE, 0, sizeof(struct wsched_result) - 8 });
REFUSED_BITS(graph_flags, G_FLAGS, 0, WSCHED_GRAPH_FLAGS, EINVAL);
REFUSED(graph_resv0, EINVAL, { G_RESV0, 0, 1 });
REFUSED(graph_resv1, EINVAL, { G_RESV1, 0, 1 });
REFUSED(graph_resv2, EINVAL, { G_RESV2, 0, 1 });
REFUSED(zero_nodes, EINVAL, { G_NR_NODES, 0, 0 });
REFUSED(nodes_fault, EFAULT, { G_NODES_PTR, 0, 8 });
REFUSED(preds_fault, EFAULT, { N_PREDS_PTR, LAST, 8 });
REFUSED(op_past_last, EOPNOTSUPP, { N_OP, LAST, WSCHED_OP_LAST + 1 });
/* Data ops need registered buffers: rings only. */
REFUSED(op_memcpy, EOPNOTSUPP, { N_OP, LAST, WSCHED_OP_MEMCPY });
REFUSED(op_all_ones, EOPNOTSUPP, { N_OP, LAST, ~0U });
REFUSED_BITS(node_flags, N_FLAGS, LAST, WSCHED_NODE_FLAGS, EINVAL);
REFUSED(node_resv, EINVAL, { N_RESV, LAST, 1 });
REFUSED(nop_arg0, EINVAL, { N_OP, 0, WSCHED_OP_NOP }, { N_ARG0, 0, 1 });
REFUSED(nop_arg1, EINVAL, { N_OP, 0, WSCHED_OP_NOP }, { N_ARG0, 0, 0 }, { N_ARG1, 0, 1 });
REFUSED(nop_arg2, EINVAL, { N_OP, 0, WSCHED_OP_NOP }, { N_ARG0, 0, 0 }, { N_ARG2, 0, 1 });
REFUSED(spin_too_long, EINVAL, { N_ARG0, LAST, WSCHED_SPIN_MAX + 1ULL });
REFUSED(spin_arg1, EINVAL, { N_ARG0, LAST, 1 }, { N_ARG1, LAST, 1 });
REFUSED(spin_arg2, EINVAL, { N_ARG0, LAST, 1 }, { N_ARG2, LAST, 1 });
REFUSED(fail_0, EINVAL, { N_OP, LAST, WSCHED_OP_FAIL }, { N_ARG0, LAST, 0 });
REFUSED(fail_4096, EINVAL, { N_OP, LAST, WSCHED_OP_FAIL }, { N_ARG0, LAST, 4096 });
REFUSED(fail_high_bits, EINVAL, { N_OP, LAST, WSCHED_OP_FAIL },
	{ N_ARG0, LAST, 1ULL << 32 | 5 });
REFUSED(fail_arg2, EINVAL, { N_OP, LAST, WSCHED_OP_FAIL }, { N_ARG0, LAST, 5 },
	{ N_ARG2, LAST, 5 });
REFUSED(preds_max_plus_1, E2BIG, { N_PREDS_ZERO, LAST, 0 },
	{ N_NR_PREDS, LAST, WSCHED_MAX_PREDS + 1 });
REFUSED(preds_all_ones, E2BIG, { N_PREDS_ZERO, LAST, 0 }, { N_NR_PREDS, LAST, ~0U });
REFUSED(preds_ptr_without_preds, EINVAL, { N_NR_PREDS, LAST, 0 });
REFUSED(forward_pred, EINVAL, { N_PRED, NR - 2, NR - 1 });
REFUSED(forward_pred_far, EINVAL, { N_PRED, NR - 2, 1000000 });
REFUSED(forward_pred_all_ones, EINVAL, { N_PRED, NR - 2, ~0U });
REFUSED(self_pred, EINVAL, { N_PRED, LAST, LAST });
/* Node 0 has no lower index to wait for. */
REFUSED(pred_on_first_node, EINVAL, { N_PRED, 0, 0 });

static void dev_set(FIXTURE_DATA(dev) *d, const struct dev_set *set, __u64 val)
{
	struct wsched_node *n = &d->nodes[set->node];

	switch (set->field) {
	case G_SIZE:
		d->g.size = val;
		break;
	case G_NODE_SIZE:
		d->g.node_size = val;
		break;
	case G_RESULT_SIZE:
		d->g.result_size = val;
		break;
	case G_FLAGS:
		d->g.flags = val;
		break;
	case G_RESV0:
	case G_RESV1:
	case G_RESV2:
		d->g.resv[set->field - G_RESV0] = val;
		break;
	case G_NR_NODES:
		d->g.nr_nodes = val;
		break;
	case G_NODES_PTR:
		d->g.nodes_ptr = val;
		break;
	case N_OP:
		n->op = val;
		break;
	case N_FLAGS:
		n->flags = val;
		break;
	case N_RESV:
		n->resv = val;
		break;
	case N_ARG0:
	case N_ARG1:
	case N_ARG2:
		n->arg[set->field - N_ARG0] = val;
		break;
	case N_NR_PREDS:
		n->nr_preds = val;
		break;
	case N_PREDS_PTR:
		n->preds_ptr = val;
		break;
	case N_PRED:
		d->preds[set->node] = val;
		n->nr_preds = 1;
		n->preds_ptr = (uintptr_t)&d->preds[set->node];
		break;
	case N_PREDS_ZERO:
		memset(d->preds, 0, sizeof(d->preds));
		n->preds_ptr = (uintptr_t)d->preds;
		break;
	}
}

FIXTURE_SETUP(refused)
{
	self->d.fd = dev_open();
	ASSERT_LE(0, self->d.fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
}

FIXTURE_TEARDOWN(refused)
{
	close(self->d.fd);
}

TEST_F(refused, submit_graph)
{
	const struct dev_set *set = variant->set;
	unsigned int bit, i;

	if (!variant->each_bit) {
		chain_init(&self->d);
		for (i = 0; i < ARRAY_SIZE(variant->set) && set[i].field; i++)
			dev_set(&self->d, &set[i], set[i].val);
		EXPECT_OK(submit_refused(&self->d, variant->err));
		return;
	}
	for (bit = 0; bit < 32; bit++) {
		if ((1ULL << bit) & set->val)
			continue;
		chain_init(&self->d);
		dev_set(&self->d, set, 1ULL << bit);
		EXPECT_OK(submit_refused(&self->d, variant->err)) TH_LOG("bit %u", bit);
	}
}

TEST_F(dev, too_many_nodes)
{
	struct wsched_probe p;

	ASSERT_EQ(0, do_probe(self->fd, &p));
	self->g.nr_nodes = p.max_nodes + 1;
	EXPECT_OK(submit_refused(self, E2BIG));
	self->g.nr_nodes = ~0U;
	EXPECT_OK(submit_refused(self, E2BIG));
}

TEST_F(dev, graph_arg_fault)
{
	EXPECT_EQ(-EFAULT, ioctl(self->fd, WSCHED_IOC_SUBMIT_GRAPH, (void *)8) ? -errno : 0);
}

TEST_F(dev, nodes_partly_unmapped)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct wsched_node *n;

	ASSERT_NE(MAP_FAILED, m);
	ASSERT_EQ(0, munmap(m + pg, pg));
	/* Two nodes, the second across the end of the mapping. */
	n = (struct wsched_node *)(m + pg - sizeof(*n) - 8);
	node_set(&n[0], WSCHED_OP_SPIN, 10, 0);
	self->g.nodes_ptr = (uintptr_t)n;
	self->g.nr_nodes = 2;
	EXPECT_OK(submit_refused(self, EFAULT));
	munmap(m, pg);
}

TEST_F(dev, results_fault)
{
	unsigned long long before = nodes_run(self->fd);
	void *ro;

	self->g.results_ptr = 8;
	EXPECT_EQ(-EFAULT, submit(self->fd, &self->g));
	EXPECT_EQ(before, nodes_run(self->fd));
	/* Read-only results are not writable either. */
	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, ro);
	self->g.results_ptr = (uintptr_t)ro;
	EXPECT_EQ(-EFAULT, submit(self->fd, &self->g));
	EXPECT_EQ(before, nodes_run(self->fd));
	munmap(ro, 4096);
}

TEST_F(dev, unknown_ioctl)
{
	unsigned long bad_nr = _IOWR(WSCHED_IOC_MAGIC, 0x7f, struct wsched_graph);
	unsigned long bad_size = _IOWR(WSCHED_IOC_MAGIC, 0x01, struct wsched_probe);

	EXPECT_EQ(-1, ioctl(self->fd, bad_nr, &self->g));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, bad_size, &self->g));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_TRUE(poisoned(self->res, sizeof(self->res)));
}

TEST_F(dev, probe)
{
	struct wsched_probe p;

	ASSERT_EQ(0, do_probe(self->fd, &p));
	EXPECT_EQ(sizeof(p), p.size);
	EXPECT_EQ(WSCHED_ABI_VERSION, p.version);
	/* Every built-in op, 0..WSCHED_OP_LAST. */
	EXPECT_EQ((2ULL << WSCHED_OP_LAST) - 1, p.ops);
	EXPECT_EQ(WSCHED_FEAT_GRAPH | WSCHED_FEAT_RINGS | WSCHED_FEAT_BUFFERS |
		  WSCHED_FEAT_OP_NAMES | WSCHED_FEAT_URING_CMD |
		  WSCHED_FEAT_URING_INLINE, p.features);
	EXPECT_EQ(WSCHED_NODE_FLAGS, p.node_flags);
	EXPECT_EQ(WSCHED_GRAPH_FLAGS, p.graph_flags);
	EXPECT_EQ(10000, p.max_nodes);
	EXPECT_EQ(WSCHED_MAX_PREDS, p.max_preds);
	EXPECT_EQ(WSCHED_SPIN_MAX, p.max_spin);
	EXPECT_LE(1, p.nr_workers);
	EXPECT_EQ(0, p.nodes_run);
	EXPECT_EQ(0, p.graphs_run);
	EXPECT_EQ(WSCHED_SQE_FLAGS, p.sqe_flags);
	EXPECT_LE(1, p.max_inflight);
	EXPECT_LE(1, p.max_sq_entries);
	EXPECT_LE(p.max_sq_entries, p.max_cq_entries);
	EXPECT_EQ(0, p.resv);

	/* Size mismatch and non-zero input are refused. */
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p) - 8;
	EXPECT_EQ(-1, ioctl(self->fd, WSCHED_IOC_PROBE, &p));
	EXPECT_EQ(EINVAL, errno);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.resv = 1;
	EXPECT_EQ(-1, ioctl(self->fd, WSCHED_IOC_PROBE, &p));
	EXPECT_EQ(EINVAL, errno);
	memset(&p, 0, sizeof(p));
	p.size = sizeof(p);
	p.ops = 1;
	EXPECT_EQ(-1, ioctl(self->fd, WSCHED_IOC_PROBE, &p));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, WSCHED_IOC_PROBE, (void *)8));
	EXPECT_EQ(EFAULT, errno);

	/* The counters are per open file. */
	ASSERT_EQ(0, submit(self->fd, &self->g));
	ASSERT_EQ(0, do_probe(self->fd, &p));
	EXPECT_EQ(NR, p.nodes_run);
	EXPECT_EQ(1, p.graphs_run);
}

TEST(device_node)
{
	struct stat st;

	ASSERT_EQ(0, stat(DEV_PATH, &st)) TH_LOG("%s: %s", DEV_PATH, strerror(errno));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0600, st.st_mode & 07777);
}

TEST(unload_while_open)
{
	int fd = dev_open();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	EXPECT_EQ(-1, syscall(SYS_delete_module, "wsched", O_NONBLOCK));
	EXPECT_TRUE(errno == EAGAIN || errno == EBUSY) TH_LOG("errno %d", errno);
	close(fd);
}

TEST(diamond)
{
	/* 0 -> {1, 2} -> 3 */
	struct wsched_node n[4];
	struct wsched_result r[4];
	__u32 p1[] = { 0 }, p3[] = { 1, 2 };
	struct wsched_graph g;
	unsigned int i;
	int fd = dev_open();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	for (i = 0; i < 4; i++)
		node_set(&n[i], i == 3 ? WSCHED_OP_NOP : WSCHED_OP_SPIN,
			 i == 3 ? 0 : 1000, 0xdead0000 + i);
	n[1].nr_preds = 1;
	n[1].preds_ptr = (uintptr_t)p1;
	n[2].nr_preds = 1;
	n[2].preds_ptr = (uintptr_t)p1;
	n[3].nr_preds = 2;
	n[3].preds_ptr = (uintptr_t)p3;
	memset(r, POISON, sizeof(r));
	graph_init(&g, n, 4, r);
	ASSERT_EQ(0, submit(fd, &g));
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(0xdead0000 + i, r[i].user_data);
		EXPECT_EQ(0, r[i].res);
		EXPECT_EQ(WSCHED_RES_RAN, r[i].flags);
	}
	EXPECT_EQ(1, r[0].seq);
	EXPECT_LT(r[0].seq, r[1].seq);
	EXPECT_LT(r[0].seq, r[2].seq);
	EXPECT_EQ(4, r[3].seq);
	close(fd);
}

struct rgraph {
	unsigned int nr;
	struct wsched_node *nodes;
	struct wsched_result *res;
	__u32 *preds;
	struct wsched_graph g;
};

static void rgraph_build(struct rgraph *rg, unsigned int nr, __u64 seed)
{
	unsigned int i, j, k = 0;

	rnd_seed(seed);
	rg->nr = nr;
	rg->nodes = calloc(nr, sizeof(*rg->nodes));
	rg->res = malloc(nr * sizeof(*rg->res));
	rg->preds = calloc((size_t)nr * 8, sizeof(*rg->preds));
	memset(rg->res, POISON, nr * sizeof(*rg->res));
	for (i = 0; i < nr; i++) {
		struct wsched_node *n = &rg->nodes[i];
		unsigned int np = i ? rnd() % 9 : 0;

		node_set(n, rnd() % 4 ? WSCHED_OP_NOP : WSCHED_OP_SPIN, 0,
			 ((__u64)seed << 32) | i);
		if (n->op == WSCHED_OP_SPIN)
			n->arg[0] = rnd() % 200;
		if (!np)
			continue;
		n->nr_preds = np;
		n->preds_ptr = (uintptr_t)&rg->preds[k];
		for (j = 0; j < np; j++) {
			/* Mostly close predecessors, some far ones. */
			unsigned int d = rnd() % 4 ? 1 + rnd() % 16 : 1 + rnd() % i;

			rg->preds[k++] = d > i ? 0 : i - d;
		}
	}
	graph_init(&rg->g, rg->nodes, nr, rg->res);
}

static void rgraph_free(struct rgraph *rg)
{
	free(rg->nodes);
	free(rg->res);
	free(rg->preds);
}

/* Return NULL if every node ran once, after its predecessors; else why. */
static const char *rgraph_check(const struct rgraph *rg, __u64 seed)
{
	unsigned char *seen = calloc(rg->nr + 1, 1);
	unsigned int i, j;
	const char *ret = NULL;

	for (i = 0; i < rg->nr && !ret; i++) {
		const struct wsched_result *r = &rg->res[i];
		const struct wsched_node *n = &rg->nodes[i];
		const __u32 *p = (const __u32 *)(uintptr_t)n->preds_ptr;

		if (r->user_data != (((__u64)seed << 32) | i) || r->res ||
		    r->flags != WSCHED_RES_RAN || r->resv ||
		    !r->seq || r->seq > rg->nr || seen[r->seq]++)
			ret = why("node %u: user_data %llx res %d flags %x seq %u",
				  i, (unsigned long long)r->user_data, r->res,
				  r->flags, r->seq);
		for (j = 0; j < n->nr_preds && !ret; j++)
			if (rg->res[p[j]].seq >= r->seq)
				ret = why("node %u seq %u before pred %u seq %u",
					  i, r->seq, p[j], rg->res[p[j]].seq);
	}
	free(seen);
	return ret;
}

TEST_F_TIMEOUT(dev, random_dags, 240)
{
	static const unsigned int sizes[] = {
		1, 2, 3, 10, 64, 100, 500, 1000, 2500, 5000, 9999, 10000,
	};
	unsigned long long before = nodes_run(self->fd), total = 0;
	unsigned int s, rep;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		for (rep = 0; rep < (sizes[s] < 1000 ? 5 : 1); rep++) {
			__u64 seed = 0x5eed0000u + s * 16 + rep;
			struct rgraph rg;

			rgraph_build(&rg, sizes[s], seed);
			ASSERT_EQ(0, submit(self->fd, &rg.g))
				TH_LOG("size %u seed %llx", sizes[s],
				       (unsigned long long)seed);
			EXPECT_OK(rgraph_check(&rg, seed))
				TH_LOG("size %u seed %llx", sizes[s],
				       (unsigned long long)seed);
			total += sizes[s];
			rgraph_free(&rg);
		}
	}
	EXPECT_EQ(before + total, nodes_run(self->fd));
}

static void set_preds(struct wsched_node *n, __u32 *preds, unsigned int nr)
{
	n->nr_preds = nr;
	n->preds_ptr = (uintptr_t)preds;
}

TEST(failure_propagation)
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
	 */
	struct wsched_node n[10];
	struct wsched_result r[10];
	__u32 p0[] = { 0 }, p2[] = { 2 }, p3[] = { 3 }, p4[] = { 4 };
	__u32 p12[] = { 1, 2 }, p8[] = { 8 };
	struct wsched_graph g;
	unsigned int i;
	int fd = dev_open();

	ASSERT_LE(0, fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	for (i = 0; i < 10; i++)
		node_set(&n[i], WSCHED_OP_NOP, 0, i);
	node_set(&n[0], WSCHED_OP_FAIL, 5, 0);
	n[0].flags = WSCHED_NODE_SOFT_FAIL;
	node_set(&n[2], WSCHED_OP_FAIL, 7, 2);
	node_set(&n[8], WSCHED_OP_FAIL, 9, 8);
	n[8].flags = WSCHED_NODE_SOFT_FAIL;
	n[4].flags = WSCHED_NODE_SOFT_FAIL;
	set_preds(&n[1], p0, ARRAY_SIZE(p0));
	set_preds(&n[3], p2, ARRAY_SIZE(p2));
	set_preds(&n[4], p3, ARRAY_SIZE(p3));
	set_preds(&n[5], p4, ARRAY_SIZE(p4));
	set_preds(&n[6], p12, ARRAY_SIZE(p12));
	set_preds(&n[8], p0, ARRAY_SIZE(p0));
	set_preds(&n[9], p8, ARRAY_SIZE(p8));
	memset(r, POISON, sizeof(r));
	graph_init(&g, n, 10, r);
	ASSERT_EQ(0, submit(fd, &g));

	EXPECT_EQ(-5, r[0].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[0].flags);
	EXPECT_EQ(0, r[1].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[1].flags);
	EXPECT_EQ(-7, r[2].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[2].flags);
	for (i = 3; i <= 6; i++) {
		EXPECT_EQ(-ECANCELED, r[i].res) TH_LOG("node %u", i);
		EXPECT_EQ(WSCHED_RES_DEP_FAILED, r[i].flags) TH_LOG("node %u", i);
	}
	EXPECT_EQ(0, r[7].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[7].flags);
	EXPECT_EQ(-9, r[8].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[8].flags);
	EXPECT_EQ(0, r[9].res);
	EXPECT_EQ(WSCHED_RES_RAN, r[9].flags);
	for (i = 0; i < 10; i++) {
		EXPECT_EQ(i, r[i].user_data);
		EXPECT_NE(0, r[i].seq);
	}
	EXPECT_LT(r[2].seq, r[3].seq);
	EXPECT_LT(r[3].seq, r[4].seq);
	EXPECT_LT(r[4].seq, r[5].seq);
	close(fd);
}

static void on_alarm(int sig)
{
}

TEST_F_TIMEOUT(dev, interrupted_by_signal, 120)
{
	struct sigaction sa = { .sa_handler = on_alarm };	/* no SA_RESTART */
	struct itimerval it = { .it_value = { .tv_sec = 2 } };
	unsigned int nr = 10000, i, ran = 0, aborted = 0;
	struct wsched_node *n = calloc(nr, sizeof(*n));
	struct wsched_result *r = calloc(nr, sizeof(*r));
	__u32 *p = calloc(nr, sizeof(*p));
	struct wsched_graph g;

	ASSERT_TRUE(n && r && p);
	/*
	 * A chain of maximal SPINs: far longer than the timer, which fires
	 * after the graph has started.
	 */
	for (i = 0; i < nr; i++) {
		node_set(&n[i], WSCHED_OP_SPIN, WSCHED_SPIN_MAX, i);
		if (i) {
			p[i] = i - 1;
			n[i].nr_preds = 1;
			n[i].preds_ptr = (uintptr_t)&p[i];
		}
	}
	graph_init(&g, n, nr, r);
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	ASSERT_EQ(0, setitimer(ITIMER_REAL, &it, NULL));
	EXPECT_EQ(-EINTR, submit(self->fd, &g));
	for (i = 0; i < nr; i++) {
		EXPECT_EQ(i, r[i].user_data);
		EXPECT_NE(0, r[i].seq) TH_LOG("node %u never finished", i);
		if (r[i].flags == WSCHED_RES_RAN) {
			ran++;
			EXPECT_EQ(0, r[i].res);
		} else {
			aborted++;
			EXPECT_EQ(-ECANCELED, r[i].res);
			EXPECT_TRUE(r[i].flags == WSCHED_RES_ABORTED ||
				    r[i].flags == WSCHED_RES_DEP_FAILED)
				TH_LOG("node %u flags %x", i, r[i].flags);
		}
	}
	/* Some nodes ran before the signal, the rest was cancelled. */
	EXPECT_LT(0, ran);
	EXPECT_LT(0, aborted);
	TH_LOG("%u ran, %u aborted", ran, aborted);
	/* The context still works. */
	EXPECT_EQ(0, submit(self->fd, &self->g));
	free(n);
	free(r);
	free(p);
}

#define THREADS		8
#define PER_THREAD	3

static int shared_fd = -1;

static void *submitter(void *arg)
{
	uintptr_t id = (uintptr_t)arg;
	unsigned int k;
	int fd = id & 1 ? shared_fd : dev_open();

	if (fd < 0)
		return "open failed";
	for (k = 0; k < PER_THREAD; k++) {
		__u64 seed = (id << 8) | k | 0x1000;
		struct rgraph rg;
		const char *w;

		rgraph_build(&rg, 20 + (id * 37 + k * 101) % 180, seed);
		if (submit(fd, &rg.g)) {
			rgraph_free(&rg);
			return "submit failed";
		}
		w = rgraph_check(&rg, seed);
		rgraph_free(&rg);
		if (w)
			return strdup(w);	/* why()'s buffer is this thread's */
	}
	if (fd != shared_fd)
		close(fd);
	return NULL;
}

TEST_F_TIMEOUT(dev, concurrent_submitters, 240)
{
	pthread_t t[THREADS];
	uintptr_t i;

	/* Odd threads share the fixture's file, even ones open their own. */
	shared_fd = self->fd;
	for (i = 0; i < THREADS; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, submitter, (void *)i));
	for (i = 0; i < THREADS; i++) {
		void *ret;

		ASSERT_EQ(0, pthread_join(t[i], &ret));
		EXPECT_EQ(NULL, ret) TH_LOG("thread %lu: %s",
					    (unsigned long)i, (char *)ret);
	}
}

TEST_HARNESS_MAIN
