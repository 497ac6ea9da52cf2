// SPDX-License-Identifier: GPL-2.0
/*
 * dev_test: the /dev/wsched ABI (uapi/linux/wsched.h).
 *
 * Every validation path of WSCHED_IOC_SUBMIT_GRAPH and WSCHED_IOC_PROBE is
 * checked for its errno and for running nothing (the context's nodes_run
 * counter does not move and the results buffer is not written).  Then:
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

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define DEV_PATH	"/dev/wsched"
#define POISON		0xa5

static int dev_open(void)
{
	return open(DEV_PATH, O_RDWR | O_CLOEXEC);
}

static int do_probe(int fd, struct wsched_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	return ioctl(fd, WSCHED_IOC_PROBE, p) ? -errno : 0;
}

static unsigned long long nodes_run(int fd)
{
	struct wsched_probe p;

	if (do_probe(fd, &p))
		return ~0ULL;
	return p.nodes_run;
}

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
	return ioctl(fd, WSCHED_IOC_SUBMIT_GRAPH, g) ? -errno : 0;
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

FIXTURE_SETUP(dev)
{
	unsigned int i;

	self->fd = dev_open();
	ASSERT_LE(0, self->fd) TH_LOG("open %s: %s", DEV_PATH, strerror(errno));
	/* A chain of SPINs: node i waits for node i - 1. */
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

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

/* Submit the fixture's graph, expect @err, and check that nothing ran. */
#define EXPECT_REFUSED(err) do {					\
	unsigned long long before = nodes_run(self->fd);		\
	ASSERT_NE(~0ULL, before);					\
	EXPECT_EQ(-(err), submit(self->fd, &self->g));			\
	EXPECT_EQ(before, nodes_run(self->fd)) TH_LOG("nodes ran");	\
	EXPECT_TRUE(poisoned(self->res, sizeof(self->res)))		\
		TH_LOG("results written");				\
} while (0)

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

TEST_F(dev, bad_graph_size)
{
	self->g.size = sizeof(self->g) - 8;
	EXPECT_REFUSED(EINVAL);
	self->g.size = sizeof(self->g) + 8;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, bad_node_size)
{
	self->g.node_size = sizeof(struct wsched_node) + 8;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, bad_result_size)
{
	self->g.result_size = sizeof(struct wsched_result) - 8;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, bad_graph_flags)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		self->g.flags = 1U << bit;
		EXPECT_REFUSED(EINVAL);
	}
}

TEST_F(dev, graph_resv_nonzero)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		self->g.resv[i] = 1;
		EXPECT_REFUSED(EINVAL);
		self->g.resv[i] = 0;
	}
}

TEST_F(dev, zero_nodes)
{
	self->g.nr_nodes = 0;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, too_many_nodes)
{
	struct wsched_probe p;

	ASSERT_EQ(0, do_probe(self->fd, &p));
	self->g.nr_nodes = p.max_nodes + 1;
	EXPECT_REFUSED(E2BIG);
	self->g.nr_nodes = ~0U;
	EXPECT_REFUSED(E2BIG);
}

TEST_F(dev, graph_arg_fault)
{
	EXPECT_EQ(-EFAULT, ioctl(self->fd, WSCHED_IOC_SUBMIT_GRAPH, (void *)8) ? -errno : 0);
}

TEST_F(dev, nodes_fault)
{
	self->g.nodes_ptr = 8;
	EXPECT_REFUSED(EFAULT);
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
	EXPECT_REFUSED(EFAULT);
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

TEST_F(dev, preds_fault)
{
	self->nodes[NR - 1].preds_ptr = 8;
	EXPECT_REFUSED(EFAULT);
}

TEST_F(dev, unknown_op)
{
	self->nodes[NR - 1].op = WSCHED_OP_LAST + 1;
	EXPECT_REFUSED(EOPNOTSUPP);
	/* Data ops need registered buffers: rings only. */
	self->nodes[NR - 1].op = WSCHED_OP_MEMCPY;
	EXPECT_REFUSED(EOPNOTSUPP);
	self->nodes[NR - 1].op = ~0U;
	EXPECT_REFUSED(EOPNOTSUPP);
}

TEST_F(dev, unknown_node_flags)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit++) {
		if ((1U << bit) & WSCHED_NODE_FLAGS)
			continue;
		self->nodes[NR - 1].flags = 1U << bit;
		EXPECT_REFUSED(EINVAL);
	}
}

TEST_F(dev, node_resv_nonzero)
{
	self->nodes[NR - 1].resv = 1;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, nop_args_nonzero)
{
	unsigned int i;

	for (i = 0; i < 3; i++) {
		node_set(&self->nodes[0], WSCHED_OP_NOP, 0, 0);
		self->nodes[0].arg[i] = 1;
		EXPECT_REFUSED(EINVAL);
	}
}

TEST_F(dev, spin_args)
{
	self->nodes[NR - 1].arg[0] = WSCHED_SPIN_MAX + 1ULL;
	EXPECT_REFUSED(EINVAL);
	self->nodes[NR - 1].arg[0] = 1;
	self->nodes[NR - 1].arg[1] = 1;
	EXPECT_REFUSED(EINVAL);
	self->nodes[NR - 1].arg[1] = 0;
	self->nodes[NR - 1].arg[2] = 1;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, fail_args)
{
	self->nodes[NR - 1].op = WSCHED_OP_FAIL;
	self->nodes[NR - 1].arg[0] = 0;
	EXPECT_REFUSED(EINVAL);
	self->nodes[NR - 1].arg[0] = 4096;
	EXPECT_REFUSED(EINVAL);
	self->nodes[NR - 1].arg[0] = 1ULL << 32 | 5;
	EXPECT_REFUSED(EINVAL);
	self->nodes[NR - 1].arg[0] = 5;
	self->nodes[NR - 1].arg[2] = 5;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, too_many_preds)
{
	unsigned int i;

	for (i = 0; i <= WSCHED_MAX_PREDS; i++)
		self->preds[i] = 0;
	self->nodes[NR - 1].preds_ptr = (uintptr_t)self->preds;
	self->nodes[NR - 1].nr_preds = WSCHED_MAX_PREDS + 1;
	EXPECT_REFUSED(E2BIG);
	self->nodes[NR - 1].nr_preds = ~0U;
	EXPECT_REFUSED(E2BIG);
}

TEST_F(dev, preds_ptr_without_preds)
{
	self->nodes[NR - 1].nr_preds = 0;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, forward_pred)
{
	self->preds[NR - 2] = NR - 1;	/* node NR-2 waits for NR-1 */
	EXPECT_REFUSED(EINVAL);
	self->preds[NR - 2] = 1000000;
	EXPECT_REFUSED(EINVAL);
	self->preds[NR - 2] = ~0U;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, self_pred)
{
	self->preds[NR - 1] = NR - 1;
	EXPECT_REFUSED(EINVAL);
}

TEST_F(dev, pred_on_first_node)
{
	/* Node 0 has no lower index to wait for. */
	self->preds[0] = 0;
	self->nodes[0].nr_preds = 1;
	self->nodes[0].preds_ptr = (uintptr_t)&self->preds[0];
	EXPECT_REFUSED(EINVAL);
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
		  WSCHED_FEAT_OP_NAMES, p.features);
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

static __thread __u64 rnd_state;

static __u32 rnd(void)
{
	/* xorshift64 */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state >> 32;
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

	rnd_state = seed | 1;
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
	static __thread char why[128];
	unsigned char *seen = calloc(rg->nr + 1, 1);
	unsigned int i, j;
	const char *ret = NULL;

	for (i = 0; i < rg->nr && !ret; i++) {
		const struct wsched_result *r = &rg->res[i];
		const struct wsched_node *n = &rg->nodes[i];
		const __u32 *p = (const __u32 *)(uintptr_t)n->preds_ptr;

		if (r->user_data != (((__u64)seed << 32) | i) || r->res ||
		    r->flags != WSCHED_RES_RAN || r->resv ||
		    !r->seq || r->seq > rg->nr || seen[r->seq]++) {
			snprintf(why, sizeof(why),
				 "node %u: user_data %llx res %d flags %x seq %u",
				 i, (unsigned long long)r->user_data, r->res,
				 r->flags, r->seq);
			ret = why;
		}
		for (j = 0; j < n->nr_preds && !ret; j++) {
			if (rg->res[p[j]].seq >= r->seq) {
				snprintf(why, sizeof(why),
					 "node %u seq %u before pred %u seq %u",
					 i, r->seq, p[j], rg->res[p[j]].seq);
				ret = why;
			}
		}
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
			const char *why;

			rgraph_build(&rg, sizes[s], seed);
			ASSERT_EQ(0, submit(self->fd, &rg.g))
				TH_LOG("size %u seed %llx", sizes[s],
				       (unsigned long long)seed);
			why = rgraph_check(&rg, seed);
			EXPECT_EQ(NULL, why) TH_LOG("size %u seed %llx: %s",
						    sizes[s],
						    (unsigned long long)seed,
						    why);
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
		const char *why;

		rgraph_build(&rg, 20 + (id * 37 + k * 101) % 180, seed);
		if (submit(fd, &rg.g)) {
			rgraph_free(&rg);
			return "submit failed";
		}
		why = rgraph_check(&rg, seed);
		rgraph_free(&rg);
		if (why)
			return (void *)why;
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
