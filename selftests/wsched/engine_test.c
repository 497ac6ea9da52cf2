// SPDX-License-Identifier: GPL-2.0
/*
 * engine_test: the /dev/wsched graph engine's lifetimes and resource
 * controls.
 *
 * - close_complete_race: contexts closed (and unmapped) while their
 *   graphs complete and their completions are held back, many times; any
 *   use-after-free shows as a KASAN report on the console, and every
 *   context's pool must be gone afterwards.
 * - mid_build_fault: a graph whose sixth entry faults while the graph is
 *   built is refused with EFAULT, and none of its memset nodes touched
 *   the buffer; with the kernel's failslab, every allocation of a
 *   submission fails in turn, and each refused graph ran nothing.
 * - params_out_of_range: the limits refuse values they would not apply.
 * - register_file_backed: page cache of a regular file is not pinned.
 * - writes_reach_shared_file: what MEMSET nodes write into a registered
 *   MAP_SHARED memfd reads back from the file after unregistering.
 * - unregister_during_build: a half-built graph holds no operation.
 * - held_completions_hold_no_op: completions held back in a full CQ hold
 *   no operation: the module of the op their graphs used can be removed
 *   while the file is open, and after it is closed.
 * - lock_wait_interruptible: while a thread's ENTER holds the file's lock
 *   in a userfaultfd fault on a predecessor list, the ioctls of other
 *   threads on the file wait for the lock interruptibly and give EINTR on
 *   a signal, with nothing done (skipped without userfaultfd).
 * - memlock_per_user: RLIMIT_MEMLOCK bounds a user across its processes,
 *   and the probe's max_pinned says so.
 * - enter_readonly_arg: ENTER with a read-only argument consumes nothing.
 * - submitter_runs_its_graph: one-node graphs waited for in ENTER run on
 *   the submitter (no worker of the context's pool woken).
 * - cheap_graphs_run_serially: graphs of nodes cheaper than a wake-up
 *   complete inside ENTER, without the pool, in a topological order, with
 *   the failure rules of any other graph.
 * - cpu_max, cpuset: a context's graphs run under the submitter's cgroup
 *   limits: CPU time is charged to its cgroup and held to cpu.max, and no
 *   node runs outside its cpuset.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "wsched_ring.h"
#include "wsched_stats.h"

#define PAGE		4096UL
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define DBG_DIR		"/sys/kernel/debug/wsched"
#define CG_ROOT		"/sys/fs/cgroup"
#define UD(g, i)	((__u64)(g) << 32 | (__u32)(i))

/* ---- helpers ---------------------------------------------------------- */

/* A graph of one node, ending the graph. */
static void sqe_one(struct wsched_sqe *e, __u32 op, __u64 arg, __u64 ud)
{
	sqe_op(e, op, arg, ud);
	e->flags = WSCHED_SQE_GRAPH_END;
}

/* Submit what is queued and wait for @min completions, at most 60 s. */
static int submit_wait(struct ring *r, __u32 min)
{
	return ring_enter(r, sq_pending(r), min, WSCHED_ENTER_GETEVENTS,
			  60 * SEC_NS, NULL);
}

/* Reap completions until a graph completion; its res, or -ETIME. */
static int reap_graph(struct ring *r)
{
	struct wsched_cqe c;

	for (;;) {
		if (!ring_reap(r, &c, 1)) {
			if (ring_wait(r, 1, 60000))
				return -ETIME;
			continue;
		}
		if (c.flags & WSCHED_CQE_GRAPH)
			return c.res;
	}
}

/* ---- close against completion -------------------------------------- */

FIXTURE(ctx_unused) {
	int pools0;
	long lck0;
};

FIXTURE_SETUP(ctx_unused)
{
	self->pools0 = ws_user_pools(NULL);
	ASSERT_LE(0, self->pools0) TH_LOG("no %s", DBG_DIR);
	self->lck0 = vmlck_kb();
}

FIXTURE_TEARDOWN(ctx_unused)
{
}

TEST_F_TIMEOUT(ctx_unused, close_complete_race, 600)
{
	unsigned int iters = 1000, i, g, k;
	const char *env = getenv("WSCHED_RACE_ITERS");
	static unsigned char mem[4 * PAGE];
	struct wsched_buf b = { (uintptr_t)mem, sizeof(mem) };
	__u64 t0 = now_ns();

	if (env)
		iters = strtoul(env, NULL, 0);
	rnd_seed(0x5eed);
	for (i = 0; i < iters; i++) {
		struct wsched_buf_reg reg = {
			.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
		};
		struct ring r;
		unsigned int how = rnd() % 4;

		/* 20 completions for a CQ of 16: some are held back. */
		ASSERT_EQ(0, ring_open(&r, 16, 16, 0));
		if (how == 3)
			ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
		for (g = 0; g < 4; g++) {
			for (k = 0; k < 4; k++) {
				struct wsched_sqe e;

				if (how == 3)
					sqe_range(&e, WSCHED_OP_MEMSET, 0,
						  (g * 4 + k) * 64, 64, 0, g,
						  UD(g, k));
				else
					sqe_op(&e, WSCHED_OP_SPIN, rnd() % 2000,
					       ((__u64)g << 32) | k);
				if (k)
					sqe_pred1(&e, rnd() % k);
				if (k == 3)
					e.flags |= WSCHED_SQE_GRAPH_END;
				ASSERT_TRUE(sq_push(&r, &e));
			}
		}
		ASSERT_EQ(0, ring_submit(&r, NULL));
		if (how == 1)
			usleep(rnd() % 200);
		if (how == 2) {
			/* The mapping outlives the file: munmap releases it. */
			close(r.fd);
			r.fd = -1;
		}
		ring_close(&r);
	}
	TH_LOG("%u contexts closed with work in flight in %.1f s", iters,
	       (now_ns() - t0) / 1e9);
	/* Every context's pool went with its file. */
	EXPECT_EQ(self->pools0, ws_wait_user_pools(self->pools0));
	EXPECT_EQ(self->lck0, vmlck_kb());
}

/* ---- failures in the middle of building a graph ------------------------- */

FIXTURE(build) {
	struct ring r;
	unsigned char *mem;
};

FIXTURE_SETUP(build)
{
	struct wsched_buf b;
	struct wsched_buf_reg reg = { .size = sizeof(reg), .nr = 1 };

	self->mem = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	memset(self->mem, 0, 4 * PAGE);
	b.addr = (uintptr_t)self->mem;
	b.len = 4 * PAGE;
	reg.bufs_ptr = (uintptr_t)&b;
	ASSERT_EQ(0, ring_open(&self->r, 64, 0, 0));
	ASSERT_EQ(0, xioctl(self->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
}

FIXTURE_TEARDOWN(build)
{
	ring_close(&self->r);
	munmap(self->mem, 4 * PAGE);
}

/*
 * Queue a graph of @n memset nodes writing byte @v to their own 64 bytes
 * of the buffer, node i after node i - 1 and i - 2 (two predecessors from
 * user memory at @preds, or @bad for node @bad_at).
 */
static void push_memset_graph(struct ring *r, unsigned int n, __u8 v,
			      __u32 (*preds)[2], unsigned int bad_at, void *bad)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct wsched_sqe e;

		sqe_range(&e, WSCHED_OP_MEMSET, 0, i * 64, 64, 0, v, i);
		if (i >= 2) {
			preds[i][0] = i - 1;
			preds[i][1] = i - 2;
			e.nr_preds = 2;
			e.preds_ptr = (uintptr_t)(i == bad_at ? bad : preds[i]);
		} else if (i == 1) {
			sqe_pred1(&e, 0);
		}
		if (i == n - 1)
			e.flags |= WSCHED_SQE_GRAPH_END;
		sq_push(r, &e);
	}
}

static bool untouched(const unsigned char *mem, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mem[i])
			return false;
	return true;
}

TEST_F(build, mid_build_fault)
{
	__u32 preds[16][2];
	void *bad = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	unsigned long long run0 = nodes_run(self->r.fd);
	struct wsched_enter e;

	ASSERT_NE(MAP_FAILED, bad);
	push_memset_graph(&self->r, 16, 0x5a, preds, 5, bad);
	EXPECT_EQ(-EFAULT, ring_enter(&self->r, 16, 0, 0, 0, &e));
	EXPECT_EQ(16, e.submitted);
	EXPECT_EQ(-EFAULT, e.sq_error);
	usleep(100000);
	EXPECT_TRUE(untouched(self->mem, 16 * 64)) TH_LOG("a refused graph ran");
	EXPECT_EQ(run0, nodes_run(self->r.fd));
	EXPECT_EQ(0, cq_ready(&self->r));
	/* The same graph, readable, runs whole. */
	push_memset_graph(&self->r, 16, 0x5a, preds, ~0U, NULL);
	ASSERT_EQ(0, submit_wait(&self->r, 1));
	EXPECT_EQ(0, reap_graph(&self->r));
	EXPECT_EQ(0x5a, self->mem[15 * 64]);
	EXPECT_EQ(run0 + 16, nodes_run(self->r.fd));
	munmap(bad, PAGE);
}

#define FAILSLAB	"/sys/kernel/debug/failslab"

static int failslab_set(const char *attr, const char *v)
{
	char path[128];

	snprintf(path, sizeof(path), FAILSLAB "/%s", attr);
	return write_file(path, v);
}

/*
 * Fail allocation n of one ENTER, for n = 1, 2, ... until the call makes
 * fewer than n (fail-nth, as syzkaller does), each on a fresh context: the
 * call creates the context's pool and its first graph block.  A refused
 * call must have run nothing; the context must close cleanly either way
 * (kmemleak checks the rest at the end of the run).
 */
TEST_F_TIMEOUT(build, mid_build_failslab, 600)
{
	unsigned int n, refused = 0;
	__u32 preds[16][2];
	int pools0 = ws_user_pools(NULL), nth;
	char buf[16];

	if (access(FAILSLAB "/ignore-gfp-wait", W_OK) ||
	    access("/proc/thread-self/fail-nth", W_OK)) {
		SKIP(return, "no failslab in this kernel (CONFIG_FAILSLAB)");
	}
	ASSERT_EQ(0, failslab_set("ignore-gfp-wait", "N"));
	ASSERT_EQ(0, failslab_set("verbose", "0"));
	nth = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, nth);
	for (n = 1; n < 10000; n++) {
		struct wsched_buf b = { (uintptr_t)self->mem, 4 * PAGE };
		struct wsched_buf_reg reg = {
			.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
		};
		unsigned long long run0;
		struct ring r;
		int ret, left;

		memset(self->mem, 0, 16 * 64);
		ASSERT_EQ(0, ring_open(&r, 64, 0, 0));
		ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
		run0 = nodes_run(r.fd);
		push_memset_graph(&r, 16, 0x77, preds, ~0U, NULL);
		/*
		 * Through one descriptor opened beforehand: opening the file
		 * again while the count is armed would allocate, and fail
		 * there instead.
		 */
		snprintf(buf, sizeof(buf), "%u", n);
		ASSERT_EQ((ssize_t)strlen(buf), pwrite(nth, buf, strlen(buf), 0));
		ret = ring_enter(&r, 16, 0, 0, 0, NULL);
		memset(buf, 0, sizeof(buf));
		ASSERT_LT(0, pread(nth, buf, sizeof(buf) - 1, 0));
		left = atoi(buf);
		ASSERT_EQ(1, pwrite(nth, "0", 1, 0));
		if (ret) {
			EXPECT_TRUE(ret == -ENOMEM || ret == -EAGAIN ||
				    ret == -EINTR)
				TH_LOG("n=%u: %s", n, strerror(-ret));
			refused++;
			usleep(20000);
			EXPECT_TRUE(untouched(self->mem, 16 * 64))
				TH_LOG("n=%u: a refused graph ran", n);
			EXPECT_EQ(run0, nodes_run(r.fd));
			EXPECT_EQ(0, cq_ready(&r));
		} else {
			EXPECT_EQ(0, ring_wait(&r, 1, 60000));
			EXPECT_EQ(0, reap_graph(&r));
			EXPECT_EQ(0x77, self->mem[15 * 64]);
		}
		ring_close(&r);
		/* The call made fewer than n allocations: all were tried. */
		if (left)
			break;
	}
	close(nth);
	TH_LOG("allocations 1..%u of a first submission failed in turn: %u calls refused, the others ran whole",
	       n - 1, refused);
	EXPECT_LT(0, refused);
	EXPECT_EQ(pools0, ws_wait_user_pools(pools0));
}

/*
 * ENTER whose argument cannot be written back is refused before it
 * consumes anything: the caller is never told that a call failed after
 * the work ran.
 */
TEST(enter_readonly_arg)
{
	struct wsched_enter *e;
	struct wsched_sqe sqe;
	unsigned long long run0;
	struct ring r;

	ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
	run0 = nodes_run(r.fd);
	e = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	ASSERT_NE(MAP_FAILED, e);
	e->size = sizeof(*e);
	e->to_submit = 1;
	ASSERT_EQ(0, mprotect(e, PAGE, PROT_READ));
	sqe_one(&sqe, WSCHED_OP_NOP, 0, 1);
	ASSERT_TRUE(sq_push(&r, &sqe));
	store_rel(r.sq_tail, r.tail);
	EXPECT_EQ(-EFAULT, xioctl(r.fd, WSCHED_IOC_ENTER, e));
	usleep(50000);
	EXPECT_EQ(0, load_acq(r.sq_head)) TH_LOG("the entry was consumed");
	EXPECT_EQ(run0, nodes_run(r.fd));
	EXPECT_EQ(0, cq_ready(&r));
	/* The entry is still there, and runs once ENTER can answer. */
	EXPECT_EQ(0, submit_wait(&r, 1));
	EXPECT_EQ(0, reap_graph(&r));
	EXPECT_EQ(run0 + 1, nodes_run(r.fd));
	munmap(e, PAGE);
	ring_close(&r);
}

/* Limits out of range are refused, so that what reads back is in force. */
TEST(params_out_of_range)
{
	static const struct {
		const char *name;
		const char *bad[3];
	} params[] = {
		{ "max_nodes", { "0", "1048577", "4294967295" } },
		{ "max_inflight", { "0", "16777217", "-1" } },
		{ "max_pinned_mb", { "1048577", "-1", "x" } },
		{ "max_sq_entries", { "0", "32769", "4294967295" } },
		{ "max_cq_entries", { "0", "65537", "4294967296" } },
	};
	unsigned int i, k;

	for (i = 0; i < ARRAY_SIZE(params); i++) {
		char path[128], before[32], after[32];

		snprintf(path, sizeof(path), "/sys/module/wsched/parameters/%s",
			 params[i].name);
		ASSERT_EQ(0, read_file(path, before, sizeof(before)));
		for (k = 0; k < 3; k++) {
			EXPECT_EQ(-EINVAL, write_file(path, params[i].bad[k]))
				TH_LOG("%s=%s", params[i].name, params[i].bad[k]);
			ASSERT_EQ(0, read_file(path, after, sizeof(after)));
			EXPECT_STREQ(before, after);
		}
		/* The value in force may be written back. */
		EXPECT_EQ(0, write_file(path, before));
	}
}

/*
 * Buffers in the page cache of a regular file (ramfs here: neither shmem
 * nor hugetlbfs) are refused for long-term pinning, as io_uring refuses
 * them; shmem and a private (copied on write) mapping of the same file
 * are fine.
 */
TEST(register_file_backed)
{
	const char *dir = "/tmp/wsched_ramfs";
	struct wsched_buf_reg reg = { .size = sizeof(reg), .nr = 1 };
	long lck0 = vmlck_kb();
	struct wsched_buf b;
	char *shared, *priv, *shm;
	int fd, ctx, mfd;

	mkdir(dir, 0755);
	if (mount("none", dir, "ramfs", 0, NULL) && errno != EBUSY) {
		SKIP(return, "cannot mount ramfs: %s", strerror(errno));
	}
	fd = open("/tmp/wsched_ramfs/buf", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 2 * PAGE));
	shared = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	priv = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, shared);
	ASSERT_NE(MAP_FAILED, priv);
	memset(shared, 1, 2 * PAGE);
	ctx = dev_open();
	ASSERT_LE(0, ctx);
	b.addr = (uintptr_t)shared;
	b.len = 2 * PAGE;
	reg.bufs_ptr = (uintptr_t)&b;
	EXPECT_EQ(-EOPNOTSUPP, xioctl(ctx, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	EXPECT_EQ(lck0, vmlck_kb());
	/* Nothing stayed registered. */
	EXPECT_EQ(-ENXIO, xioctl(ctx, WSCHED_IOC_UNREGISTER_BUFFERS, NULL));
	/* A private mapping is copied on write: anonymous pages. */
	b.addr = (uintptr_t)priv;
	EXPECT_EQ(0, xioctl(ctx, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	EXPECT_EQ(lck0 + 8, vmlck_kb());
	EXPECT_EQ(0, xioctl(ctx, WSCHED_IOC_UNREGISTER_BUFFERS, NULL));
	/* shmem (memfd) is fine, shared or not. */
	mfd = memfd_create("wsched", 0);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, 2 * PAGE));
	shm = mmap(NULL, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, shm);
	b.addr = (uintptr_t)shm;
	EXPECT_EQ(0, xioctl(ctx, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	EXPECT_EQ(0, xioctl(ctx, WSCHED_IOC_UNREGISTER_BUFFERS, NULL));
	EXPECT_EQ(lck0, vmlck_kb());
	close(ctx);
	munmap(shm, 2 * PAGE);
	munmap(priv, 2 * PAGE);
	munmap(shared, 2 * PAGE);
	close(mfd);
	close(fd);
	unlink("/tmp/wsched_ramfs/buf");
	umount(dir);
}

/*
 * What nodes write into a registered MAP_SHARED shmem page reaches the
 * file: unregistered, synced and unmapped, the file reads back what the
 * MEMSET nodes wrote, page by page.  The kernel writes through its own
 * mapping, which no page table sees, so unpinning must mark the pages
 * dirty (unpin_user_pages_dirty_lock()); a page left clean could be
 * dropped instead of written out (to swap, for shmem: the guest has none,
 * so this mostly checks the data path, and KASAN and the page checks of
 * the debug kernel the unpinning).
 */
TEST(writes_reach_shared_file)
{
	unsigned char page[PAGE];
	struct wsched_buf b;
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	struct wsched_sqe sqe;
	struct ring r;
	unsigned int i, k, bad;
	unsigned char *shm;
	int mfd, ret;

	mfd = memfd_create("wsched_dirty", MFD_CLOEXEC);
	ASSERT_LE(0, mfd);
	ASSERT_EQ(0, ftruncate(mfd, 4 * PAGE));
	shm = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	ASSERT_NE(MAP_FAILED, shm);
	/* Not touched before: pinning faults the pages in. */
	ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
	b.addr = (uintptr_t)shm;
	b.len = 4 * PAGE;
	ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	/* One graph: a MEMSET node per page, each its own value. */
	for (i = 0; i < 4; i++) {
		sqe_range(&sqe, WSCHED_OP_MEMSET, 0, i * PAGE, PAGE, 0,
			  0x51 + i, i);
		if (i == 3)
			sqe.flags = WSCHED_SQE_GRAPH_END;
		ASSERT_TRUE(sq_push(&r, &sqe));
	}
	ASSERT_EQ(0, submit_wait(&r, 5));
	ret = reap_graph(&r);
	EXPECT_EQ(0, ret) TH_LOG("MEMSET graph: %s", strerror(-ret));
	EXPECT_EQ(0, xioctl(r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL));
	EXPECT_EQ(0, msync(shm, 4 * PAGE, MS_SYNC));
	EXPECT_EQ(0, munmap(shm, 4 * PAGE));
	ring_close(&r);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(PAGE, pread(mfd, page, PAGE, i * PAGE));
		for (k = 0, bad = 0; k < PAGE; k++)
			bad += page[k] != 0x51 + i;
		EXPECT_EQ(0, bad) TH_LOG("page %u: %u bytes are not %#x",
					 i, bad, 0x51 + i);
	}
	close(mfd);
}

/*
 * A graph whose end entry has not come yet holds no operation between
 * ENTER calls: the module of a registered operation it uses can go away
 * (before, rmmod failed with EBUSY, and ws_op_unregister() outside a
 * module's exit waited for the build forever).  The graph is then
 * refused at its end entry, and the stale number names nothing.
 */
#define XOR_KO	"/lib/wsched/wsched_op_xor.ko"

TEST(unregister_during_build)
{
	static unsigned char mem[PAGE];
	struct wsched_buf b = { (uintptr_t)mem, sizeof(mem) };
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	struct wsched_op_lookup l = { .size = sizeof(l) };
	struct wsched_enter e;
	struct wsched_sqe sqe;
	unsigned long long run0;
	struct ring r;
	int fd, ret;

	if (!getenv("WSCHED_OP_XOR") || access(XOR_KO, R_OK)) {
		SKIP(return, "the sample module wsched_op_xor.ko is not loaded");
	}
	ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
	ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg));
	snprintf(l.info.name, sizeof(l.info.name), "sample.xor8");
	ASSERT_EQ(0, xioctl(r.fd, WSCHED_IOC_OP_LOOKUP, &l));
	run0 = nodes_run(r.fd);
	/* First half of a graph: an xor8 node, no end entry. */
	sqe_range(&sqe, l.info.op, 0, 0, 64, 0, 0, 1);
	ASSERT_TRUE(sq_push(&r, &sqe));
	ASSERT_EQ(0, ring_submit(&r, NULL));
	/* The module can go while the graph is half built. */
	ret = syscall(SYS_delete_module, "wsched_op_xor", O_NONBLOCK);
	EXPECT_EQ(0, ret) TH_LOG("rmmod wsched_op_xor: %s", strerror(errno));
	/* The end entry comes: the graph is refused, nothing runs. */
	sqe_one(&sqe, WSCHED_OP_NOP, 0, 2);
	sqe_pred1(&sqe, 0);
	ASSERT_TRUE(sq_push(&r, &sqe));
	if (!ret) {
		EXPECT_EQ(-EOPNOTSUPP, ring_enter(&r, 1, 0, 0, 0, &e));
		EXPECT_EQ(-EOPNOTSUPP, e.sq_error);
	} else {
		EXPECT_EQ(0, ring_enter(&r, 1, 0, 0, 0, &e));
	}
	usleep(50000);
	if (!ret) {
		EXPECT_EQ(run0, nodes_run(r.fd));
		/* The stale number names nothing now. */
		sqe_range(&sqe, l.info.op, 0, 0, 64, 0, 0, 3);
		sqe.flags = WSCHED_SQE_GRAPH_END;
		ASSERT_TRUE(sq_push(&r, &sqe));
		EXPECT_EQ(-EOPNOTSUPP, ring_enter(&r, 1, 0, 0, 0, NULL));
		/* Back for the tests that follow. */
		fd = open(XOR_KO, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, syscall(SYS_finit_module, fd, "", 0));
		close(fd);
	}
	ring_close(&r);
}

/* Load the sample module again, for the tests that follow; 0 or -errno. */
static int xor_load(void)
{
	int fd = open(XOR_KO, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0))
		ret = -errno;
	close(fd);
	return ret;
}

/* rmmod wsched_op_xor without waiting; 0 or -errno. */
static int xor_unload(void)
{
	return syscall(SYS_delete_module, "wsched_op_xor", O_NONBLOCK) ? -errno : 0;
}

#define HELD_GRAPHS	4

/*
 * Open a ring of 4 SQ and 4 CQ entries on @mem, and run HELD_GRAPHS
 * one-node graphs of sample.xor8 on it: 8 completions for a CQ of 4, so
 * that 4 are held back once every graph has completed.  NULL or why not.
 */
static const char *held_xor_graphs(struct ring *r, struct wsched_buf *b)
{
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)b,
	};
	struct wsched_op_lookup l = { .size = sizeof(l) };
	struct wsched_enter e;
	struct wsched_sqe sqe;
	unsigned long long run0;
	unsigned int g;
	int ret;

	ret = ring_open(r, 4, 4, 0);
	if (ret)
		return why("ring_open: %s", strerror(-ret));
	ret = xioctl(r->fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
	if (ret)
		return why("REGISTER_BUFFERS: %s", strerror(-ret));
	snprintf(l.info.name, sizeof(l.info.name), "sample.xor8");
	ret = xioctl(r->fd, WSCHED_IOC_OP_LOOKUP, &l);
	if (ret)
		return why("OP_LOOKUP sample.xor8: %s", strerror(-ret));
	run0 = nodes_run(r->fd);
	for (g = 0; g < HELD_GRAPHS; g++) {
		sqe_range(&sqe, l.info.op, 0, 0, 64, 0, 0, UD(g, 0));
		sqe.flags = WSCHED_SQE_GRAPH_END;
		if (!sq_push(r, &sqe))
			return why("SQ full at graph %u", g);
	}
	ret = ring_submit(r, &e);
	if (ret || e.submitted != HELD_GRAPHS)
		return why("ENTER: %s, %u submitted", strerror(-ret), e.submitted);
	/* Held-back completions count: this returns once every graph completed. */
	ret = ring_wait(r, 2 * HELD_GRAPHS, 60000);
	if (ret)
		return why("wait for %u completions: %s", 2 * HELD_GRAPHS,
			   strerror(-ret));
	if (load_acq(r->cq_overflow) != HELD_GRAPHS)
		return why("%u completions held back, not %u",
			   load_acq(r->cq_overflow), HELD_GRAPHS);
	if (nodes_run(r->fd) != run0 + HELD_GRAPHS)
		return why("%llu nodes ran, not %u", nodes_run(r->fd) - run0,
			   HELD_GRAPHS);
	return NULL;
}

/* Reap the 8 completions of held_xor_graphs() and check them. */
static const char *held_xor_reap(struct ring *r, unsigned char want)
{
	struct wsched_cqe c[2 * HELD_GRAPHS];
	unsigned int n = 0, i, nodes = 0, graphs = 0;

	while (n < 2 * HELD_GRAPHS) {
		unsigned int got = ring_reap(r, c + n, 2 * HELD_GRAPHS - n);

		n += got;
		/* ENTER posts the held-back ones where there is room now. */
		if (!got && ring_wait(r, 1, 10000))
			return why("only %u completions", n);
	}
	if (ring_wait(r, 1, 1) != -ETIME)
		return why("more than %u completions", n);
	for (i = 0; i < n; i++) {
		if (c[i].res)
			return why("completion %u: res %d", i, c[i].res);
		if (c[i].flags & WSCHED_CQE_GRAPH) {
			graphs++;
			if (c[i].value != 1 || c[i].seq != 1)
				return why("graph: %llu ran, %u nodes",
					   (unsigned long long)c[i].value, c[i].seq);
		} else {
			nodes++;
			if (c[i].flags != WSCHED_RES_RAN || c[i].value != want)
				return why("node: flags %#x value %#llx, want %#x",
					   c[i].flags,
					   (unsigned long long)c[i].value, want);
		}
	}
	if (nodes != HELD_GRAPHS || graphs != HELD_GRAPHS)
		return why("%u node and %u graph completions", nodes, graphs);
	return NULL;
}

/*
 * A completion held back in a full CQ needs nothing but memory: the
 * graph's operation references go when its last node finishes.  Before,
 * they went when the completion was reaped, so rmmod of the module of an
 * operation the graphs used failed with EBUSY for as long as the file
 * stayed open with a full CQ, and ws_op_unregister() outside a module's
 * exit slept uninterruptibly that long.  Three rounds: the module goes
 * while the file is open, then the completions are reaped; it goes while
 * the file is open, then the file is closed with the completions still
 * held back (which must not touch the operation, now gone: KASAN would
 * tell); the file is closed first, then the module goes.
 */
TEST(held_completions_hold_no_op)
{
	static unsigned char mem[PAGE];
	struct wsched_buf b = { (uintptr_t)mem, sizeof(mem) };
	unsigned char want = 0;
	struct ring r;
	unsigned int i;
	int ret;

	if (!getenv("WSCHED_OP_XOR") || access(XOR_KO, R_OK)) {
		SKIP(return, "the sample module wsched_op_xor.ko is not loaded");
	}
	for (i = 0; i < sizeof(mem); i++)
		mem[i] = i * 7 + 1;
	for (i = 0; i < 64; i++)
		want ^= mem[i];

	/* 1: rmmod while the completions are held back, then reap them. */
	ASSERT_OK(held_xor_graphs(&r, &b));
	ret = xor_unload();
	EXPECT_EQ(0, ret) TH_LOG("rmmod with completions held back: %s",
				 strerror(-ret));
	EXPECT_OK(held_xor_reap(&r, want));
	ring_close(&r);
	if (ret) {
		/* Closing the file drops what the completions held. */
		ret = xor_unload();
		ASSERT_EQ(0, ret) TH_LOG("rmmod after close: %s", strerror(-ret));
	}
	ret = xor_load();
	ASSERT_EQ(0, ret) TH_LOG("insmod %s: %s", XOR_KO, strerror(-ret));

	/* 2: rmmod while they are held back, then close without reaping. */
	ASSERT_OK(held_xor_graphs(&r, &b));
	ret = xor_unload();
	EXPECT_EQ(0, ret) TH_LOG("rmmod with completions held back: %s",
				 strerror(-ret));
	ring_close(&r);
	if (ret) {
		ret = xor_unload();
		ASSERT_EQ(0, ret) TH_LOG("rmmod after close: %s", strerror(-ret));
	}
	ret = xor_load();
	ASSERT_EQ(0, ret) TH_LOG("insmod %s: %s", XOR_KO, strerror(-ret));

	/* 3: close with them held back, then rmmod. */
	ASSERT_OK(held_xor_graphs(&r, &b));
	ring_close(&r);
	ret = xor_unload();
	EXPECT_EQ(0, ret) TH_LOG("rmmod after close: %s", strerror(-ret));
	/* Back for the tests that follow. */
	if (!ret) {
		ret = xor_load();
		ASSERT_EQ(0, ret) TH_LOG("insmod %s: %s", XOR_KO, strerror(-ret));
	}
}

/* ---- waits for ctx->lock ------------------------------------------- */

/* A thread whose ENTER faults on a predecessor list, holding ctx->lock. */
struct lock_holder {
	struct ring *r;
	struct wsched_enter e;
	int ret;
};

static void *lock_holder_fn(void *arg)
{
	struct lock_holder *h = arg;

	h->ret = ring_enter(h->r, 3, 0, 0, 0, &h->e);
	return NULL;
}

/* A thread whose ioctl on the same file waits for ctx->lock. */
struct lock_waiter {
	const char *name;
	int fd;
	unsigned long cmd;
	void *arg;
	pthread_t thread;
	int tid;	/* atomic: set by the thread */
	int done;	/* atomic: set by the thread once the ioctl returned */
	int ret;
};

static void *lock_waiter_fn(void *arg)
{
	struct lock_waiter *w = arg;

	__atomic_store_n(&w->tid, (int)syscall(SYS_gettid), __ATOMIC_RELEASE);
	w->ret = xioctl(w->fd, w->cmd, w->arg);
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* The state letter of a thread of ours (R, S, D, ...), or '?'. */
static char thread_state(int tid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	if (read_file(path, buf, sizeof(buf)))
		return '?';
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : '?';
}

/*
 * Wait until @w's thread sleeps in its ioctl (S or D, three looks in a
 * row 10 ms apart), at most 3 s; its state, or what it was last.
 */
static char waiter_asleep(struct lock_waiter *w)
{
	unsigned int i, asleep = 0;
	char st = '?';
	int tid;

	for (i = 0; i < 300 && asleep < 3; i++) {
		usleep(10000);
		tid = __atomic_load_n(&w->tid, __ATOMIC_ACQUIRE);
		if (!tid || __atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
			continue;
		st = thread_state(tid);
		asleep = st == 'S' || st == 'D' ? asleep + 1 : 0;
	}
	return st;
}

static void on_sigusr1(int sig)
{
}

/*
 * A thread that holds ctx->lock can be stalled for as long as its process
 * likes: ENTER reads predecessor lists with copy_from_user() under it, and
 * a userfaultfd page never comes in until the process says so.  Every
 * other ioctl that takes the lock must then wait interruptibly (S, not
 * D), and give EINTR on a signal with nothing done; before, they slept in
 * mutex_lock(), unkillable, as long as the fault lasted.  Needs
 * userfaultfd with kernel faults (root, CONFIG_USERFAULTFD).
 */
TEST(lock_wait_interruptible)
{
	static __u32 src[PAGE / sizeof(__u32)] __attribute__((aligned(4096)));
	static unsigned char mem[PAGE];
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register ureg = {
		.mode = UFFDIO_REGISTER_MODE_MISSING,
	};
	struct uffdio_copy copy = { .len = PAGE };
	struct wsched_buf b = { (uintptr_t)mem, sizeof(mem) };
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	struct wsched_enter e = {
		.size = sizeof(e), .to_submit = 1,
	};
	struct wsched_node node = { .op = WSCHED_OP_NOP };
	struct wsched_result res;
	struct wsched_graph g = {
		.nodes_ptr = (uintptr_t)&node, .nr_nodes = 1,
		.results_ptr = (uintptr_t)&res, .size = sizeof(g),
		.node_size = sizeof(node), .result_size = sizeof(res),
	};
	struct sigaction sa = { .sa_handler = on_sigusr1 };
	struct wsched_setup s;
	struct lock_waiter w[] = {
		{ .name = "ENTER", .cmd = WSCHED_IOC_ENTER, .arg = &e },
		{ .name = "SUBMIT_GRAPH", .cmd = WSCHED_IOC_SUBMIT_GRAPH,
		  .arg = &g },
		{ .name = "SETUP", .cmd = WSCHED_IOC_SETUP, .arg = &s },
		{ .name = "REGISTER_BUFFERS",
		  .cmd = WSCHED_IOC_REGISTER_BUFFERS, .arg = &reg },
		{ .name = "UNREGISTER_BUFFERS",
		  .cmd = WSCHED_IOC_UNREGISTER_BUFFERS },
	};
	struct wsched_cqe c[8];
	struct lock_holder h;
	struct wsched_sqe sqe;
	struct uffd_msg msg;
	struct pollfd pfd;
	pthread_t holder;
	unsigned int i, k, n, graphs = 0;
	struct ring r;
	void *page;
	int uffd;
	char st;

	/* Not UFFD_USER_MODE_ONLY: the fault to catch is the kernel's. */
	uffd = syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0 && errno == ENOSYS)
		SKIP(return, "no userfaultfd in this kernel (CONFIG_USERFAULTFD is not set)");
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_API, &api))
		TH_LOG("UFFDIO_API: %s", strerror(errno));
	page = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, page);
	ureg.range.start = (uintptr_t)page;
	ureg.range.len = PAGE;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_REGISTER, &ureg))
		TH_LOG("UFFDIO_REGISTER: %s", strerror(errno));
	/* No SA_RESTART: a call interrupted in its wait fails with EINTR. */
	ASSERT_EQ(0, sigaction(SIGUSR1, &sa, NULL));

	ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
	setup_init(&s, 8, 0, 0);
	for (i = 0; i < ARRAY_SIZE(w); i++)
		w[i].fd = r.fd;
	/* Two NOPs, then one after both whose predecessor list faults. */
	sqe_nop(&sqe, 1);
	ASSERT_TRUE(sq_push(&r, &sqe));
	sqe_nop(&sqe, 2);
	ASSERT_TRUE(sq_push(&r, &sqe));
	sqe_nop(&sqe, 3);
	sqe.flags = WSCHED_SQE_GRAPH_END;
	sqe.nr_preds = 2;
	sqe.preds_ptr = (uintptr_t)page;
	ASSERT_TRUE(sq_push(&r, &sqe));
	memset(&h, 0, sizeof(h));
	h.r = &r;
	ASSERT_EQ(0, pthread_create(&holder, NULL, lock_holder_fn, &h));
	pfd.fd = uffd;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 5000))
		TH_LOG("ENTER did not fault on the predecessor list");
	ASSERT_EQ(sizeof(msg), read(uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);
	/* The holder now sleeps in copy_from_user() with ctx->lock held. */

	for (i = 0; i < ARRAY_SIZE(w); i++)
		ASSERT_EQ(0, pthread_create(&w[i].thread, NULL, lock_waiter_fn,
					    &w[i]));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		st = waiter_asleep(&w[i]);
		EXPECT_NE('D', st)
			TH_LOG("%s waits for the file's lock in D state", w[i].name);
		EXPECT_EQ(0, __atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
			TH_LOG("%s did not wait for the file's lock: %s",
			       w[i].name, strerror(-w[i].ret));
	}
	for (i = 0; i < ARRAY_SIZE(w); i++)
		EXPECT_EQ(0, pthread_kill(w[i].thread, SIGUSR1));
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		for (k = 0; k < 300; k++) {
			if (__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
				break;
			usleep(10000);
		}
		EXPECT_TRUE(__atomic_load_n(&w[i].done, __ATOMIC_ACQUIRE))
			TH_LOG("%s not interrupted by a signal in 3 s", w[i].name);
	}

	/* Let the holder go: its graph is consumed and runs. */
	src[0] = 0;
	src[1] = 1;
	copy.dst = (uintptr_t)page;
	copy.src = (uintptr_t)src;
	ASSERT_EQ(0, ioctl(uffd, UFFDIO_COPY, &copy))
		TH_LOG("UFFDIO_COPY: %s", strerror(errno));
	ASSERT_EQ(0, pthread_join(holder, NULL));
	EXPECT_EQ(0, h.ret) TH_LOG("the holder's ENTER: %s", strerror(-h.ret));
	EXPECT_EQ(3, h.e.submitted);
	for (i = 0; i < ARRAY_SIZE(w); i++) {
		ASSERT_EQ(0, pthread_join(w[i].thread, NULL));
		EXPECT_EQ(-EINTR, w[i].ret)
			TH_LOG("%s: %s", w[i].name, strerror(-w[i].ret));
	}
	/* The interrupted calls did nothing. */
	EXPECT_EQ(0, e.submitted);
	EXPECT_EQ(0, e.sq_error);
	EXPECT_EQ(-ENXIO, xioctl(r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL));
	/* The holder's serial graph completed inside its ENTER. */
	n = ring_reap(&r, c, ARRAY_SIZE(c));
	EXPECT_EQ(4, n);
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, c[i].res);
		if (c[i].flags & WSCHED_CQE_GRAPH) {
			graphs++;
			EXPECT_EQ(3, c[i].value);
		}
	}
	EXPECT_EQ(1, graphs);
	ring_close(&r);
	munmap(page, PAGE);
	close(uffd);
}

/*
 * RLIMIT_MEMLOCK bounds what one user pins across its processes, as
 * io_uring does: two processes of one user without CAP_IPC_LOCK cannot
 * each pin most of the limit.
 */
static int memlock_holder(int cmd_fd, int ack_fd, unsigned int pages)
{
	struct rlimit rl = { 64 * 1024, 64 * 1024 };
	struct wsched_buf b;
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	char c = 0, res;
	void *mem;
	int ctx;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || drop_cap_ipc_lock())
		return 2;
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ctx = dev_open();
	if (mem == MAP_FAILED || ctx < 0)
		return 3;
	b.addr = (uintptr_t)mem;
	b.len = pages * PAGE;
	/* Register when told; answer with the errno; let go when told. */
	while (read(cmd_fd, &c, 1) == 1 && c != 'q') {
		if (c == 'r') {
			res = -xioctl(ctx, WSCHED_IOC_REGISTER_BUFFERS, &reg);
		} else if (c == 'p') {
			struct wsched_probe p;

			/* The probe tells what RLIMIT_MEMLOCK allows. */
			res = do_probe(ctx, &p) ? 1 :
			      p.max_pinned == 64 * 1024 ? 0 : 2;
		} else
			res = -xioctl(ctx, WSCHED_IOC_UNREGISTER_BUFFERS, NULL);
		if (write(ack_fd, &res, 1) != 1)
			return 4;
	}
	return 0;
}

static pid_t memlock_child(int *cmd, int *ack, unsigned int pages)
{
	int c[2], a[2];
	pid_t pid;

	if (pipe(c) || pipe(a))
		return -1;
	pid = fork();
	if (!pid) {
		close(c[1]);
		close(a[0]);
		_exit(memlock_holder(c[0], a[1], pages));
	}
	close(c[0]);
	close(a[1]);
	*cmd = c[1];
	*ack = a[0];
	return pid;
}

static int memlock_ask(int cmd, int ack, char what)
{
	char res = -1;

	if (write(cmd, &what, 1) != 1 || read(ack, &res, 1) != 1)
		return -1;
	return res;
}

TEST(memlock_per_user)
{
	int cmd_a, ack_a, cmd_b, ack_b, st;
	pid_t a = memlock_child(&cmd_a, &ack_a, 10);
	pid_t b = memlock_child(&cmd_b, &ack_b, 10);

	ASSERT_LT(0, a);
	ASSERT_LT(0, b);
	EXPECT_EQ(0, memlock_ask(cmd_a, ack_a, 'p'));
	/* 40 KiB each against a 64 KiB limit: one at a time only. */
	EXPECT_EQ(0, memlock_ask(cmd_a, ack_a, 'r'));
	EXPECT_EQ(ENOMEM, memlock_ask(cmd_b, ack_b, 'r'));
	EXPECT_EQ(0, memlock_ask(cmd_a, ack_a, 'u'));
	EXPECT_EQ(0, memlock_ask(cmd_b, ack_b, 'r'));
	EXPECT_EQ(ENOMEM, memlock_ask(cmd_a, ack_a, 'r'));
	EXPECT_EQ(0, memlock_ask(cmd_b, ack_b, 'u'));
	EXPECT_EQ(1, write(cmd_a, "q", 1));
	EXPECT_EQ(1, write(cmd_b, "q", 1));
	ASSERT_EQ(a, waitpid(a, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
	ASSERT_EQ(b, waitpid(b, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st));
}

/* ---- the submitter runs its own graph -------------------------------- */

/* SPIN iterations above the kernel's WSD_SPIN_CHEAP: a node worth a wake-up. */
#define SPIN_NOT_CHEAP	4096

/*
 * Open a context and run one graph, which creates the context's pool;
 * @name gets the pool's name in debugfs.  NULL, or what failed.
 */
static const char *ring_with_pool(struct ring *r, __u32 entries, char name[16])
{
	struct wsched_sqe e;
	unsigned int pool;
	int ret;

	ret = ring_open(r, entries, 0, 0);
	if (ret)
		return why("ring_open: %s", strerror(-ret));
	sqe_one(&e, WSCHED_OP_NOP, 0, 0);
	if (!sq_push(r, &e))
		return why("SQ full");
	ret = submit_wait(r, 1);
	if (!ret)
		ret = reap_graph(r);
	if (ret)
		return why("first graph: %s", strerror(-ret));
	if (ws_user_pools(&pool) <= 0)
		return why("no pool of a /dev/wsched context in debugfs");
	snprintf(name, 16, "u%u", pool);
	return NULL;
}

TEST(submitter_runs_its_graph)
{
	unsigned int i, n = 200;
	struct ws_stats s0, s1;
	char name[16];
	struct ring r;

	ASSERT_OK(ring_with_pool(&r, 8, name));
	/* Let its workers go to sleep. */
	usleep(200000);
	ASSERT_EQ(0, ws_stats_read(name, &s0)) TH_LOG("%s", s0.err);
	for (i = 0; i < n; i++) {
		struct wsched_sqe e;

		/*
		 * Not cheap (wsd_op_cheap()): a cheap node would not go
		 * through the pool at all (cheap_graphs_run_serially).
		 */
		sqe_one(&e, WSCHED_OP_SPIN, SPIN_NOT_CHEAP, i);
		ASSERT_TRUE(sq_push(&r, &e));
		ASSERT_EQ(0, submit_wait(&r, 1));
		ASSERT_EQ(0, reap_graph(&r));
	}
	ASSERT_EQ(0, ws_stats_read(name, &s1)) TH_LOG("%s", s1.err);
	TH_LOG("%u one-node graphs: %llu executed, %llu wakeups, %llu injected",
	       n, s1.total[WS_EXECUTED] - s0.total[WS_EXECUTED],
	       s1.total[WS_WAKEUPS] - s0.total[WS_WAKEUPS],
	       s1.total[WS_INJECTED] - s0.total[WS_INJECTED]);
	EXPECT_EQ(n, s1.total[WS_EXECUTED] - s0.total[WS_EXECUTED]);
	EXPECT_EQ(0, s1.total[WS_WAKEUPS] - s0.total[WS_WAKEUPS]);
	EXPECT_EQ(0, s1.total[WS_INJECTED] - s0.total[WS_INJECTED]);
	ring_close(&r);
}

/*
 * Graphs whose nodes are all cheaper than a wake-up (NOP, FAIL, short
 * SPIN) run inside ENTER on the submitter, node after node, without the
 * pool: their completions are in the CQ when ENTER returns, even without
 * GETEVENTS, and the pool runs no task.  They follow the rules of every
 * graph: a failure blocks its successors (DEP_FAILED, not run) unless it
 * is a soft one, and completions are numbered in an order that respects
 * the edges.
 *
 *   0 NOP -> 1 FAIL(5) -> 2 NOP -> 3 NOP(preds 0, 2)
 *   0 -> 4 FAIL(7, soft) -> 5 SPIN(short)
 */
TEST(cheap_graphs_run_serially)
{
	static const struct {
		__u32 op;
		__u64 arg;
		__u32 flags;
		__u32 nr_preds;
		__u32 preds[2];
		int res;
		__u32 res_flags;
	} nodes[] = {
		{ WSCHED_OP_NOP, 0, 0, 0, { 0 }, 0, WSCHED_RES_RAN },
		{ WSCHED_OP_FAIL, 5, 0, 1, { 0 }, -5, WSCHED_RES_RAN },
		{ WSCHED_OP_NOP, 0, 0, 1, { 1 }, -ECANCELED, WSCHED_RES_DEP_FAILED },
		{ WSCHED_OP_NOP, 0, 0, 2, { 0, 2 }, -ECANCELED,
		  WSCHED_RES_DEP_FAILED },
		{ WSCHED_OP_FAIL, 7, WSCHED_NODE_SOFT_FAIL, 1, { 0 }, -7,
		  WSCHED_RES_RAN },
		{ WSCHED_OP_SPIN, 16, 0, 1, { 4 }, 0, WSCHED_RES_RAN },
	};
	const unsigned int nr = ARRAY_SIZE(nodes), rounds = 50;
	unsigned int round, i, k, seen;
	__u32 preds[ARRAY_SIZE(nodes)][2], seq[ARRAY_SIZE(nodes)];
	struct ws_stats s0, s1;
	struct wsched_cqe c[16];
	char name[16];
	struct ring r;

	ASSERT_OK(ring_with_pool(&r, 64, name));
	ASSERT_EQ(0, ws_stats_read(name, &s0)) TH_LOG("%s", s0.err);
	for (round = 0; round < rounds; round++) {
		/* A one-node graph and the graph above, in one call. */
		struct wsched_sqe e;

		sqe_one(&e, WSCHED_OP_NOP, 0, UD(round, 99));
		ASSERT_TRUE(sq_push(&r, &e));
		for (i = 0; i < nr; i++) {
			sqe_op(&e, nodes[i].op, nodes[i].arg, UD(round, i));
			e.flags = nodes[i].flags |
				  (i == nr - 1 ? WSCHED_SQE_GRAPH_END : 0);
			memcpy(preds[i], nodes[i].preds, sizeof(preds[i]));
			if (nodes[i].nr_preds == 1)
				sqe_pred1(&e, nodes[i].preds[0]);
			else if (nodes[i].nr_preds)
				sqe_preds(&e, preds[i], nodes[i].nr_preds);
			ASSERT_TRUE(sq_push(&r, &e));
		}
		/* No GETEVENTS: everything is done when the call returns. */
		ASSERT_EQ(0, ring_enter(&r, nr + 1, 0, 0, 0, NULL));
		ASSERT_EQ(3 + nr, cq_ready(&r));
		ASSERT_EQ(3 + nr, ring_reap(&r, c, 3 + nr));
		memset(seq, 0, sizeof(seq));
		seen = 0;
		for (k = 0; k < 3 + nr; k++) {
			__u64 ud = c[k].user_data;

			if (c[k].flags & WSCHED_CQE_GRAPH) {
				if (ud == UD(round, 99)) {
					EXPECT_EQ(0, c[k].res);
					EXPECT_EQ(1, c[k].value);
				} else {
					/* The first failure; 4 of 6 ran. */
					EXPECT_EQ(UD(round, nr - 1), ud);
					EXPECT_EQ(-5, c[k].res);
					EXPECT_EQ(4, c[k].value);
					EXPECT_EQ(nr, seen) TH_LOG("graph completion before its nodes'");
				}
				continue;
			}
			if (ud == UD(round, 99))
				continue;	/* the one-node graph's node */
			i = (__u32)ud;
			ASSERT_GT(nr, i);
			ASSERT_EQ(0, seq[i]) TH_LOG("node %u completed twice", i);
			EXPECT_EQ(nodes[i].res, c[k].res) TH_LOG("node %u", i);
			EXPECT_EQ(nodes[i].res_flags, c[k].flags) TH_LOG("node %u", i);
			seq[i] = c[k].seq;
			seen++;
		}
		EXPECT_EQ(nr, seen);
		for (i = 0; i < nr; i++) {
			for (k = 0; k < 2 && k < nodes[i].nr_preds; k++) {
				__u32 p = preds[i][k];

				EXPECT_LT(seq[p], seq[i])
					TH_LOG("node %u numbered before its predecessor %u",
					       i, p);
			}
		}
	}
	ASSERT_EQ(0, ws_stats_read(name, &s1)) TH_LOG("%s", s1.err);
	EXPECT_EQ(0, s1.total[WS_EXECUTED] - s0.total[WS_EXECUTED]);
	EXPECT_EQ(0, s1.total[WS_WAKEUPS] - s0.total[WS_WAKEUPS]);
	EXPECT_EQ(0, s1.total[WS_INJECTED] - s0.total[WS_INJECTED]);
	ring_close(&r);
}

/* ---- resource controls ------------------------------------------------ */

/* A cgroup v2 hierarchy: the mounted one, or one we mount. */
static const char *cg_root(void)
{
	static char root[64];
	char buf[64];

	if (root[0])
		return root;
	if (!read_file(CG_ROOT "/cgroup.controllers", buf, sizeof(buf)) ||
	    !mount("none", CG_ROOT, "cgroup2", 0, NULL)) {
		snprintf(root, sizeof(root), CG_ROOT);
		return root;
	}
	mkdir("/tmp/cgroup2", 0755);
	if (!read_file("/tmp/cgroup2/cgroup.controllers", buf, sizeof(buf)) ||
	    !mount("none", "/tmp/cgroup2", "cgroup2", 0, NULL)) {
		snprintf(root, sizeof(root), "/tmp/cgroup2");
		return root;
	}
	return NULL;
}

/* Make cgroup @name with controller @ctl enabled; 0, or why not. */
static const char *cg_make(const char *name, const char *ctl, char *path,
			   size_t len)
{
	const char *root = cg_root();
	char buf[256], sub[64];

	if (!root)
		return "no cgroup2";
	snprintf(buf, sizeof(buf), "%s/cgroup.controllers", root);
	if (read_file(buf, sub, sizeof(sub)) || !strstr(sub, ctl))
		return "controller not in this kernel";
	snprintf(buf, sizeof(buf), "%s/cgroup.subtree_control", root);
	snprintf(sub, sizeof(sub), "+%s", ctl);
	if (write_file(buf, sub))
		return "cannot enable the controller";
	snprintf(path, len, "%s/%s", root, name);
	rmdir(path);
	if (mkdir(path, 0755))
		return "mkdir failed";
	return NULL;
}

static int cg_write(const char *cg, const char *file, const char *v)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", cg, file);
	return write_file(path, v);
}

static long long cg_usage_us(const char *cg)
{
	char path[256], buf[1024], *p;

	snprintf(path, sizeof(path), "%s/cpu.stat", cg);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "usage_usec ");
	return p ? atoll(p + 11) : -1;
}

/* Run one SPIN_MAX graph in a fresh context; its wall time in ns. */
static __u64 spin_graph_ns(unsigned int nodes)
{
	struct ring r;
	unsigned int i;
	__u64 t0;

	if (ring_open(&r, 256, 0, WSCHED_SETUP_CLAMP))
		return 0;
	for (i = 0; i < nodes; i++) {
		struct wsched_sqe e;

		sqe_op(&e, WSCHED_OP_SPIN, WSCHED_SPIN_MAX, i);
		e.flags = WSCHED_SQE_NO_CQE |
			  (i == nodes - 1 ? WSCHED_SQE_GRAPH_END : 0);
		sq_push(&r, &e);
	}
	t0 = now_ns();
	if (submit_wait(&r, 1) || reap_graph(&r)) {
		ring_close(&r);
		return 0;
	}
	t0 = now_ns() - t0;
	ring_close(&r);
	return t0;
}

/* In a child moved into @cg: run @nodes SPIN_MAX nodes; exit status. */
static pid_t child_in_cgroup(const char *cg, unsigned int nodes, int out_fd)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	{
		char me[32];
		__u64 ns;

		snprintf(me, sizeof(me), "%d", getpid());
		if (cg_write(cg, "cgroup.procs", me))
			_exit(2);
		ns = spin_graph_ns(nodes);
		if (write(out_fd, &ns, sizeof(ns)) != sizeof(ns))
			_exit(3);
		_exit(ns ? 0 : 4);
	}
}

TEST_F_TIMEOUT(ctx_unused, cpu_max, 300)
{
	char cg[256];
	const char *w = cg_make("wsched_cpu_max", "cpu", cg, sizeof(cg));
	unsigned int nodes;
	__u64 one, ns;
	long long use0, use;
	int fds[2], status;
	pid_t pid;

	if (w) {
		SKIP(return, "%s", w);
	}
	/* What one node costs at full speed, then enough for ~1 s of CPU. */
	one = spin_graph_ns(1);
	ASSERT_NE(0, one);
	nodes = 1000000000ULL / one + 1;
	if (nodes > 200)
		nodes = 200;
	ASSERT_EQ(0, cg_write(cg, "cpu.max", "20000 100000"));
	use0 = cg_usage_us(cg);
	ASSERT_LE(0, use0);
	ASSERT_EQ(0, pipe(fds));
	pid = child_in_cgroup(cg, nodes, fds[1]);
	ASSERT_LT(0, pid);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
	ASSERT_EQ(sizeof(ns), read(fds[0], &ns, sizeof(ns)));
	use = cg_usage_us(cg) - use0;
	TH_LOG("%u nodes of %.1f ms: %.2f s of CPU charged to the cgroup in %.2f s (%.0f%% of one CPU; limit 20%%)",
	       nodes, one / 1e6, use / 1e6, ns / 1e9, 100.0 * use * 1000 / ns);
	/* The work was charged to the submitter's cgroup ... */
	EXPECT_LT(nodes * one / 1000 / 2, use);
	/* ... and held to its limit (with slack for the period's edges). */
	EXPECT_GT(0.35, (double)use * 1000 / ns);
	close(fds[0]);
	close(fds[1]);
	rmdir(cg);
}

/* The last online CPU, or -1. */
static int last_cpu(void)
{
	cpu_set_t set;
	int cpu, last = -1;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			last = cpu;
	return last;
}

TEST_F_TIMEOUT(ctx_unused, cpuset, 300)
{
	char cg[256], v[16];
	const char *w = cg_make("wsched_cpuset", "cpuset", cg, sizeof(cg));
	unsigned int pool0, pool, i;
	int up[2], down[2], status, cpu = last_cpu(), count0;
	struct ws_stats s;
	pid_t pid;

	if (w) {
		SKIP(return, "%s", w);
	}
	if (cpu < 1) {
		SKIP(return, "needs two CPUs");
	}
	snprintf(v, sizeof(v), "%d", cpu);
	ASSERT_EQ(0, cg_write(cg, "cpuset.cpus", v));
	ASSERT_EQ(0, cg_write(cg, "cpuset.mems", "0"));
	count0 = ws_user_pools(&pool0);
	ASSERT_LE(0, count0);
	/* Two pipes: the child reports up, and waits to be told down. */
	ASSERT_EQ(0, pipe(up));
	ASSERT_EQ(0, pipe(down));
	/* A child that keeps its context open until told. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		char me[32], c;
		struct ring r;
		unsigned int k;

		close(up[0]);
		close(down[1]);
		snprintf(me, sizeof(me), "%d", getpid());
		c = 'm';
		if (cg_write(cg, "cgroup.procs", me) ||
		    (c = 'o', ring_open(&r, 64, 0, 0)))
			goto fail;
		for (k = 0; k < 32; k++) {
			struct wsched_sqe e;

			sqe_op(&e, WSCHED_OP_SPIN, WSCHED_SPIN_MAX / 8, k);
			e.flags = WSCHED_SQE_NO_CQE |
				  (k == 31 ? WSCHED_SQE_GRAPH_END : 0);
			sq_push(&r, &e);
		}
		c = 's';
		if (submit_wait(&r, 1) || reap_graph(&r))
			goto fail;
		c = 'x';
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
			_exit(4);
		ring_close(&r);
		_exit(0);
fail:
		/* m: moving into the cgroup, o: open, s: submit failed */
		if (write(up[1], &c, 1) != 1)
			_exit(5);
		_exit(3);
	}
	close(up[1]);
	close(down[0]);
	{
		char c = 0;

		ASSERT_EQ(1, read(up[0], &c, 1));
		ASSERT_EQ('x', c) TH_LOG("the child failed at step %c", c);
	}
	ASSERT_LT(0, ws_user_pools(&pool));
	ASSERT_LT(pool0, pool);
	snprintf(v, sizeof(v), "u%u", pool);
	ASSERT_EQ(0, ws_stats_read(v, &s)) TH_LOG("%s", s.err);
	EXPECT_LE(32, s.total[WS_EXECUTED]);
	for (i = 0; i < (unsigned int)s.nr_rows; i++)
		EXPECT_EQ(0, s.cpu[i] != cpu ? s.row[i][WS_EXECUTED] : 0)
			TH_LOG("CPU %d ran %llu tasks of a context confined to CPU %d",
			       s.cpu[i], s.row[i][WS_EXECUTED], cpu);
	ASSERT_EQ(1, write(down[1], "q", 1));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status))
		TH_LOG("child status %#x", status);
	close(up[0]);
	close(down[1]);
	EXPECT_EQ(count0, ws_wait_user_pools(count0));
	rmdir(cg);
}

TEST_HARNESS_MAIN
