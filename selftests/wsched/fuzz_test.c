// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_test: a bounded random fuzzer of /dev/wsched's ioctls, rings and
 * mappings.
 *
 *   WSCHED_FUZZ_SEED   seed (default: from the clock; always printed)
 *   WSCHED_FUZZ_SECS   seconds for the whole run (default 40), shared out
 *                      among the tests below
 *   WSCHED_FUZZ_ITERS  most iterations of each test's loop (default 10^7)
 *
 * Garbage ioctl structures for every WSCHED_IOC_* and random ioctl
 * numbers; garbage ring entries (random ops, flags, fields,
 * predecessors); bogus mmap offsets, sizes and protections, mremap;
 * threads racing a submitter against one that scribbles over the rings'
 * heads, tails and entries, one that registers and unregisters buffers
 * (some of them the rings' own pages, some unmapped under it), one that
 * swaps the file under the others (dup2) and one issuing random ioctls;
 * and contexts closed, unmapped or killed with work in flight.
 *
 * It passes if nothing crashes, every call returns success or an errno
 * the ABI documents for it, the device still works at the end of each
 * test, and the process exits normally.  The rig fails the run on any
 * kernel splat (KASAN, lockdep, WARN, BUG) or kmemleak report.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/wsched.h>

#include "kselftest_harness.h"
#include "wsched_ring.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif
#define PAGE		4096UL
#define POOL_LEN	(2UL << 20)

/* ---------------------------------------------------------------------
 * Randomness, time, and the run's budget.
 */
static __u64 base_seed;
static double total_secs = 40;
static unsigned long max_iters = 10000000;

static void seed_thread(__u64 salt)
{
	rnd_seed(base_seed ^ salt);
}

static __u64 rnd64(void)
{
	return (__u64)rnd() << 32 | rnd();
}

static bool chance(unsigned int pct)
{
	return rnd() % 100 < pct;
}

static const __u64 interesting[] = {
	0, 1, 2, 3, 7, 8, 31, 32, 63, 64, 65, 255, 256, 4095, 4096, 4097,
	0x7fff, 0x8000, 0xffff, 0x10000, WSCHED_SPIN_MAX, WSCHED_SPIN_MAX + 1ULL,
	WSCHED_MAX_BUFS, WSCHED_OP_DYNAMIC, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000ULL, WSCHED_BUF_MAX_LEN, 1ULL << 40, 0x7fffffffffffffffULL,
	0x8000000000000000ULL, ~0ULL - 1, ~0ULL, 0xffff888000000000ULL,
	WSCHED_OFF_CQ_RING,
};

static __u64 rnd_val(void)
{
	switch (rnd() % 5) {
	case 0:
	case 1:
		return interesting[rnd() % ARRAY_SIZE(interesting)];
	case 2:
		return rnd() % 16;
	case 3:
		return interesting[rnd() % ARRAY_SIZE(interesting)] + rnd() % 3 - 1;
	default:
		return rnd64();
	}
}

/* Deadline for a test that gets @share of the run. */
static __u64 deadline_for(double share)
{
	return now_ns() + (__u64)(total_secs * share * 1e9);
}

/* ---------------------------------------------------------------------
 * What the ABI allows each call to fail with.
 */
static atomic_uint violations;
static atomic_ulong calls, fails, cqes_seen;
static atomic_ulong errnos[160];	/* how often each errno came back */

/* "EINVAL 123, EBUSY 45, ..." */
static const char *errno_summary(void)
{
	static char buf[512];
	size_t n = 0;
	unsigned int e;

	buf[0] = 0;
	for (e = 1; e < ARRAY_SIZE(errnos) && n < sizeof(buf) - 40; e++)
		if (atomic_load(&errnos[e]))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s %lu",
				      n ? ", " : "", strerrorname_np(e) ?: "?",
				      atomic_load(&errnos[e]));
	return buf;
}

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...)
{
	unsigned int v = atomic_fetch_add(&violations, 1);
	va_list ap;

	if (v >= 30)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "# VIOLATION: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (seed %llu)\n", (unsigned long long)base_seed);
	va_end(ap);
}

static const struct {
	unsigned long cmd;
	const char *name;
	int errs[12];
} allowed[] = {
	{ WSCHED_IOC_PROBE, "PROBE", { EINVAL, EFAULT } },
	{ WSCHED_IOC_SUBMIT_GRAPH, "SUBMIT_GRAPH",
	  { EINVAL, E2BIG, EFAULT, EOPNOTSUPP, EINTR, ENOMEM } },
	{ WSCHED_IOC_SETUP, "SETUP", { EINVAL, EBUSY, EFAULT, ENOMEM } },
	{ WSCHED_IOC_ENTER, "ENTER",
	  { EINVAL, EOPNOTSUPP, E2BIG, EFAULT, ERANGE, EBUSY, EAGAIN, EINTR,
	    ETIME, ENOMEM } },
	{ WSCHED_IOC_REGISTER_BUFFERS, "REGISTER_BUFFERS",
	  { EINVAL, EBUSY, ENOMEM, EFAULT, EOPNOTSUPP } },
	{ WSCHED_IOC_UNREGISTER_BUFFERS, "UNREGISTER_BUFFERS", { ENXIO, EBUSY } },
	{ WSCHED_IOC_OP_LOOKUP, "OP_LOOKUP", { EINVAL, ENOENT, EFAULT } },
	{ WSCHED_IOC_OP_LIST, "OP_LIST", { EINVAL, EFAULT } },
	{ WSCHED_IOC_MAX_WORKERS, "MAX_WORKERS", { EFAULT, EINTR } },
};

static const char *cmd_name(unsigned long cmd)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(allowed); i++)
		if (allowed[i].cmd == cmd)
			return allowed[i].name;
	return NULL;
}

/* ioctl() and check its outcome; returns 0 or -errno. */
static int fz_ioctl(int fd, unsigned long cmd, void *arg)
{
	int ret = ioctl(fd, cmd, arg), err = errno;
	unsigned int i, j;

	atomic_fetch_add(&calls, 1);
	if (!ret)
		return 0;
	atomic_fetch_add(&fails, 1);
	if (err > 0 && err < (int)ARRAY_SIZE(errnos))
		atomic_fetch_add(&errnos[err], 1);
	if (ret != -1) {
		violation("ioctl %#lx returned %d", cmd, ret);
		return 0;
	}
	if (err == EBADF)	/* a racing thread had the fd closed: ours */
		return -err;
	for (i = 0; i < ARRAY_SIZE(allowed); i++) {
		if (allowed[i].cmd != cmd)
			continue;
		for (j = 0; j < ARRAY_SIZE(allowed[i].errs) && allowed[i].errs[j]; j++)
			if (allowed[i].errs[j] == err)
				return -err;
		violation("%s: errno %d (%s)", allowed[i].name, err, strerror(err));
		return -err;
	}
	if (err != ENOTTY)
		violation("unknown ioctl %#lx: errno %d (%s), want ENOTTY", cmd,
			  err, strerror(err));
	return -err;
}

static void check_mmap_errno(const char *what, int err)
{
	if (err != EINVAL && err != ENOMEM && err != EOVERFLOW &&
	    err != EACCES && err != EPERM)
		violation("%s: errno %d (%s)", what, err, strerror(err));
}

/* ---------------------------------------------------------------------
 * Memory to point at: a pool between two inaccessible guard pages, a
 * read-only page.
 */
static unsigned char *pool_map, *pool, *ro_page;

static void mem_init(void)
{
	pool_map = mmap(NULL, POOL_LEN + 2 * PAGE, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pool_map == MAP_FAILED)
		abort();
	pool = pool_map + PAGE;
	if (mprotect(pool, POOL_LEN, PROT_READ | PROT_WRITE))
		abort();
	memset(pool, 0x5a, POOL_LEN);
	ro_page = mmap(NULL, PAGE, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro_page == MAP_FAILED)
		abort();
}

static void mem_fini(void)
{
	munmap(pool_map, POOL_LEN + 2 * PAGE);
	munmap(ro_page, PAGE);
}

/* Room for @len bytes somewhere in the pool. */
static void *pool_at(size_t len)
{
	size_t room = len < POOL_LEN ? POOL_LEN - len : 0;

	return pool + (room ? rnd() % room : 0);
}

/* Usually @good, sometimes a bad address of some kind. */
static __u64 rnd_ptr(void *good, size_t len)
{
	switch (rnd() % 20) {
	case 0:
		return 0;
	case 1:
		return 8;
	case 2:
		return 0xffff888000000000ULL + (rnd() % 64) * PAGE;
	case 3:		/* running into the guard page after the pool */
		return (uintptr_t)pool + POOL_LEN - (len ? rnd() % len : 0);
	case 4:
		return (uintptr_t)ro_page;
	case 5:
		return rnd64();
	default:
		return (uintptr_t)good;
	}
}

/*
 * A pointer the kernel may write through (or, for the array of buffers,
 * read write targets from): kept if it lies in the pool and its guard
 * pages, is the read-only page, or cannot be ours (below mmap_min_addr,
 * not canonical user space); else the guard page before the pool.  A
 * mutated pointer must not land in this process's heap or stacks.
 */
static __u64 tame(__u64 p, __u64 len)
{
	__u64 lo = (uintptr_t)pool_map, hi = lo + POOL_LEN + 2 * PAGE;

	if (p >= lo && p < hi && len <= hi - p)
		return p;
	if (p == (uintptr_t)ro_page && len <= PAGE)
		return p;
	if (p < 65536 || p >= 0x0000800000000000ULL)
		return p;
	return lo;
}

/* Flip, zero or randomize a few fields (u32/u64 words) of @p. */
static void mutate(void *p, size_t len)
{
	unsigned int n = 1 + rnd() % 3;

	if (len < 4)
		return;
	while (n--) {
		size_t off = (rnd() % (len / 4)) * 4;

		if (off + 8 <= len && chance(50)) {
			__u64 v = rnd_val();

			memcpy((char *)p + off, &v, 8);
		} else {
			__u32 v = rnd_val();

			memcpy((char *)p + off, &v, 4);
		}
	}
}

/* ---------------------------------------------------------------------
 * Rings: the shared helper's, and what the fuzzer knows of their buffers.
 */
struct fz_ring {
	struct ring r;
	__u32 nbufs;
	__u64 buflen[8];
	__u32 in_graph;		/* entries pushed since the last end entry */
};

/* Open, set up and map; fd -1 on failure (counted as a violation). */
static void fz_open(struct fz_ring *f, __u32 sq, __u32 cq, __u32 flags)
{
	struct ring *r = &f->r;
	int fd = dev_open(), ret;

	memset(f, 0, sizeof(*f));
	ring_init(r, fd, sq, cq, flags);
	if (fd < 0) {
		violation("open %s: %s", DEV_PATH, strerror(errno));
		return;
	}
	if (fz_ioctl(fd, WSCHED_IOC_SETUP, &r->s)) {
		ring_close(r);
		return;
	}
	ret = ring_map(r);
	if (ret) {
		violation("mapping the rings: %s", strerror(-ret));
		ring_close(r);
	}
}

/* Close with whatever is in flight, in a random order. */
static void fz_close(struct fz_ring *f)
{
	struct ring *r = &f->r;

	if (r->fd < 0)
		return;
	if (chance(50)) {
		ring_close(r);
	} else {
		close(r->fd);
		r->fd = -1;
		ring_unmap(r);
	}
}

/* Register 1..4 buffers in the pool (sometimes bad ones). */
static void fz_register(struct fz_ring *f)
{
	struct wsched_buf b[8];
	struct wsched_buf_reg reg;
	__u32 i, nr = 1 + rnd() % 4;

	for (i = 0; i < nr; i++) {
		b[i].len = 1 + (chance(70) ? rnd() % 65536 : rnd() % (POOL_LEN / 2));
		b[i].addr = (uintptr_t)pool_at(b[i].len);
		f->buflen[i] = b[i].len;
	}
	if (chance(10)) {
		mutate(b, nr * sizeof(b[0]));
		for (i = 0; i < nr; i++)
			b[i].addr = tame(b[i].addr, b[i].len);
	}
	memset(&reg, 0, sizeof(reg));
	reg.size = sizeof(reg);
	reg.nr = nr;
	reg.bufs_ptr = (uintptr_t)b;
	if (chance(5))
		mutate(&reg, sizeof(reg));
	if (!fz_ioctl(f->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg))
		f->nbufs = reg.nr <= 8 ? reg.nr : 0;
}

static void fz_unregister(struct fz_ring *f)
{
	if (!fz_ioctl(f->r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL))
		f->nbufs = 0;
}

/* A range of @len in a random registered buffer (or a bad one). */
static void pick_range(struct fz_ring *f, __u32 *buf, __u64 *off, __u64 *len,
		       __u64 maxlen)
{
	__u32 b = f->nbufs ? rnd() % f->nbufs : 0;
	__u64 bl = f->nbufs ? f->buflen[b] : 64;

	*buf = b;
	*len = 1 + rnd() % (maxlen < bl ? maxlen : bl);
	*off = rnd() % (bl - *len + 1);
}

static __u32 preds_scratch[4096 + 128];

/* A random entry: mostly sensible, sometimes mutated, sometimes noise. */
static void gen_sqe(struct fz_ring *f, struct wsched_sqe *e, __u32 idx)
{
	static const __u32 flagsets[] = {
		0, WSCHED_NODE_SOFT_FAIL, WSCHED_SQE_NO_CQE,
		WSCHED_NODE_SOFT_FAIL | WSCHED_SQE_NO_CQE,
	};
	__u32 kind = rnd() % 100, np, i;

	memset(e, 0, sizeof(*e));
	if (kind >= 96) {
		fill_random(e, sizeof(*e));
		if (chance(50))
			e->flags &= WSCHED_SQE_FLAGS;
		return;
	}
	e->user_data = rnd64();
	e->flags = flagsets[rnd() % 4];
	switch (rnd() % 10) {
	case 0:
	case 1:
	case 2:
		e->op = WSCHED_OP_NOP;
		break;
	case 3:
	case 4:
		e->op = WSCHED_OP_SPIN;
		e->arg = chance(98) ? rnd() % 3000 : rnd() % (WSCHED_SPIN_MAX / 8);
		break;
	case 5:
		e->op = WSCHED_OP_FAIL;
		e->arg = 1 + rnd() % 4095;
		break;
	default:
		e->op = WSCHED_OP_MEMCPY + rnd() % (WSCHED_OP_LAST - WSCHED_OP_MEMCPY + 1);
		pick_range(f, &e->buf, &e->off, &e->len, 65536);
		switch (e->op) {
		case WSCHED_OP_MEMCPY:
		case WSCHED_OP_MEMCMP: {
			__u64 o2, l2;

			pick_range(f, &e->buf2, &o2, &l2, e->len);
			e->len = l2;
			e->arg = o2;
			if (e->off + e->len > (f->nbufs ? f->buflen[e->buf] : 64))
				e->off = 0;
			break;
		}
		case WSCHED_OP_SHA256: {
			__u64 o2, l2;

			pick_range(f, &e->buf2, &o2, &l2, 32);
			e->arg = o2;
			break;
		}
		case WSCHED_OP_MEMSET:
			e->arg = rnd() % 256;
			break;
		default:
			e->arg = rnd64() & (chance(50) ? 0xffffffffULL : ~0ULL);
			break;
		}
	}
	np = idx ? rnd() % (idx < 5 ? idx + 1 : 5) : 0;
	if (chance(3))
		np = rnd() % (WSCHED_MAX_PREDS + 3);
	if (np == 1) {
		e->nr_preds = 1;
		e->pred = idx ? rnd() % idx : 0;
	} else if (np > 1) {
		__u32 *p = &preds_scratch[(rnd() % 64) * 64];

		for (i = 0; i < np && i < 64; i++)
			p[i] = idx ? rnd() % idx : rnd_val();
		e->nr_preds = np;
		e->preds_ptr = rnd_ptr(p, np * 4);
	}
	if (chance(12))
		e->flags |= WSCHED_SQE_GRAPH_END;
	if (kind >= 88)
		mutate(e, sizeof(*e));
}

/* Push up to @n generated entries; returns how many. */
static __u32 push_random(struct fz_ring *f, __u32 n)
{
	struct ring *r = &f->r;
	__u32 head = load_acq(r->sq_head), pushed = 0;

	while (pushed < n && r->tail - head < r->sq_entries) {
		struct wsched_sqe e;

		/* built in private: other threads scribble over the ring */
		gen_sqe(f, &e, f->in_graph);
		f->in_graph = e.flags & WSCHED_SQE_GRAPH_END ? 0 : f->in_graph + 1;
		/* now and then end a graph that has grown large */
		if (f->in_graph > 200 && chance(20)) {
			e.flags |= WSCHED_SQE_GRAPH_END;
			f->in_graph = 0;
		}
		memcpy(&r->sqes[r->tail & r->sq_mask], &e, sizeof(e));
		r->tail++;
		pushed++;
	}
	return pushed;
}

/* ENTER with sensible or random arguments. */
static int fz_enter(struct ring *r, __u32 to_submit, bool wait)
{
	struct wsched_enter e;

	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.to_submit = to_submit;
	if (wait) {
		e.flags = WSCHED_ENTER_GETEVENTS;
		e.min_complete = rnd() % 8;
		e.timeout_ns = (1 + rnd() % 3) * MS_NS;
	}
	if (chance(5)) {
		mutate(&e, sizeof(e));
		/* never a wait without a short limit */
		if (e.flags & WSCHED_ENTER_GETEVENTS)
			e.timeout_ns = 1 + rnd() % (3 * MS_NS);
	}
	store_rel(r->sq_tail, r->tail);
	return fz_ioctl(r->fd, WSCHED_IOC_ENTER, &e);
}

/* Reap everything; check what the kernel wrote looks like a CQE. */
static unsigned int fz_reap(struct ring *r, bool check)
{
	__u32 head = *r->cq_head, tail = load_acq(r->cq_tail), n = 0;
	const __u32 known = WSCHED_RES_RAN | WSCHED_RES_DEP_FAILED |
			    WSCHED_RES_ABORTED | WSCHED_CQE_GRAPH;

	if (tail - head > r->cq_entries) {
		if (check)
			violation("CQ tail %u is %u past head %u", tail,
				  tail - head, head);
		head = tail;
	}
	while (head != tail) {
		const struct wsched_cqe *c = &r->cqes[head & r->cq_mask];

		if (check && ((c->flags & ~known) || c->resv || c->res > 0 ||
			      c->res < -4095 ||
			      (!(c->flags & WSCHED_CQE_GRAPH) && !c->seq) ||
			      ((c->flags & WSCHED_CQE_GRAPH) && c->value > c->seq)))
			violation("odd CQE: res %d flags %#x value %llu seq %u resv %u",
				  c->res, c->flags, (unsigned long long)c->value,
				  c->seq, c->resv);
		head++;
		n++;
	}
	store_rel(r->cq_head, head);
	atomic_fetch_add(&cqes_seen, n);
	return n;
}

/* The device works: a one-NOP graph completes through fresh rings. */
static bool device_works(void)
{
	struct wsched_enter en;
	struct wsched_sqe e;
	struct ring r;
	bool ok;

	if (ring_open(&r, 4, 0, 0))
		return false;
	sqe_nop(&e, 0);
	e.flags = WSCHED_SQE_GRAPH_END;
	ok = sq_push(&r, &e) &&
	     !ring_enter(&r, 1, 2, WSCHED_ENTER_GETEVENTS, 20000 * MS_NS, &en) &&
	     en.submitted == 1 && load_acq(r.cq_tail) == 2;
	ring_close(&r);
	return ok;
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	const char *s = getenv("WSCHED_FUZZ_SEED");

	base_seed = s ? strtoull(s, NULL, 0) : (now_ns() ^ (__u64)getpid() << 32);
	s = getenv("WSCHED_FUZZ_SECS");
	if (s && atof(s) > 0)
		total_secs = atof(s);
	s = getenv("WSCHED_FUZZ_ITERS");
	if (s && strtoul(s, NULL, 0))
		max_iters = strtoul(s, NULL, 0);
	TH_LOG("seed %llu (WSCHED_FUZZ_SEED=%llu repeats it), %.0f s in all, at most %lu iterations",
	       (unsigned long long)base_seed, (unsigned long long)base_seed,
	       total_secs, max_iters);
	mem_init();
	atomic_store(&violations, 0);
	atomic_store(&calls, 0);
	atomic_store(&fails, 0);
	atomic_store(&cqes_seen, 0);
	memset(errnos, 0, sizeof(errnos));
}

FIXTURE_TEARDOWN(fuzz)
{
	mem_fini();
}

#define FUZZ_END() do {							\
	TH_LOG("%lu calls (%lu failed as allowed), %lu CQEs, %u violations", \
	       atomic_load(&calls), atomic_load(&fails),		\
	       atomic_load(&cqes_seen), atomic_load(&violations));	\
	TH_LOG("errnos: %s", errno_summary());			\
	EXPECT_EQ(0, atomic_load(&violations));				\
	EXPECT_TRUE(device_works()) TH_LOG("/dev/wsched no longer runs a graph"); \
} while (0)

/* ---------------------------------------------------------------------
 * Garbage ioctl structures for every command, random ioctl numbers.
 */
static const char *const op_names[] = {
	"nop", "spin", "fail", "memcpy", "memset", "memcmp", "crc32c",
	"xxhash64", "sha256", "sample.xor8", "", "x", "nop ", "NOP",
};

/* A random node of WSCHED_IOC_SUBMIT_GRAPH (NOP, short SPIN, FAIL). */
static void gen_node(struct wsched_node *n, __u32 idx, __u32 *preds)
{
	__u32 i;

	memset(n, 0, sizeof(*n));
	n->op = rnd() % 3;
	if (n->op == WSCHED_OP_SPIN)
		n->arg[0] = rnd() % 2000;
	else if (n->op == WSCHED_OP_FAIL)
		n->arg[0] = 1 + rnd() % 4095;
	n->flags = chance(20) ? WSCHED_NODE_SOFT_FAIL : 0;
	n->user_data = rnd64();
	if (idx && chance(60)) {
		n->nr_preds = 1 + rnd() % (idx < 4 ? idx : 4);
		for (i = 0; i < n->nr_preds; i++)
			preds[i] = rnd() % idx;
		n->preds_ptr = (uintptr_t)preds;
	}
	if (chance(10)) {
		mutate(n, sizeof(*n));
		/* a mutated SPIN stays short: SUBMIT_GRAPH waits for it */
		if (n->op == WSCHED_OP_SPIN && n->arg[0] > 100000)
			n->arg[0] = WSCHED_SPIN_MAX + 1ULL;
	}
}

/* Fill @buf (@len bytes) as a plausible argument of @cmd, then spoil it. */
static void gen_arg(unsigned long cmd, void *buf, size_t len, struct ring *r)
{
	memset(buf, 0, len);
	if (chance(8)) {
		fill_random(buf, len);
		return;
	}
	switch (cmd) {
	case WSCHED_IOC_PROBE: {
		struct wsched_probe *p = buf;

		p->size = sizeof(*p);
		break;
	}
	case WSCHED_IOC_SUBMIT_GRAPH: {
		struct wsched_graph *g = buf;
		__u32 nr = 1 + rnd() % 16, i;
		struct wsched_node *nodes = pool_at(64 * sizeof(*nodes) + 64 * 64 * 4);
		__u32 *preds = (__u32 *)(nodes + 64);
		struct wsched_result *res = pool_at(64 * sizeof(*res));

		for (i = 0; i < nr; i++)
			gen_node(&nodes[i], i, preds + i * 64);
		g->nodes_ptr = rnd_ptr(nodes, nr * sizeof(*nodes));
		g->nr_nodes = chance(95) ? nr : rnd_val();
		g->results_ptr = rnd_ptr(res, nr * sizeof(*res));
		g->size = sizeof(*g);
		g->node_size = sizeof(struct wsched_node);
		g->result_size = sizeof(struct wsched_result);
		/* never more nodes than there is room for in the pool */
		if (g->nr_nodes > 64 && g->nodes_ptr == (uintptr_t)nodes)
			g->nodes_ptr = rnd_ptr(NULL, 0);
		break;
	}
	case WSCHED_IOC_SETUP: {
		struct wsched_setup *s = buf;

		s->size = sizeof(*s);
		s->sq_entries = chance(80) ? 1 + rnd() % 128 : rnd_val();
		s->cq_entries = chance(50) ? 0 : rnd_val();
		s->flags = chance(30) ? WSCHED_SETUP_CLAMP : 0;
		break;
	}
	case WSCHED_IOC_ENTER: {
		struct wsched_enter *e = buf;

		e->size = sizeof(*e);
		e->to_submit = chance(50) ? rnd() % 8 : rnd_val();
		if (chance(30)) {
			e->flags = WSCHED_ENTER_GETEVENTS;
			e->min_complete = rnd() % 4;
		}
		break;
	}
	case WSCHED_IOC_REGISTER_BUFFERS: {
		struct wsched_buf_reg *reg = buf;
		struct wsched_buf *b = pool_at(8 * sizeof(*b));
		__u32 i, nr = 1 + rnd() % 4;

		for (i = 0; i < 8; i++) {
			b[i].len = 1 + rnd() % 8192;
			b[i].addr = rnd_ptr(pool_at(b[i].len), b[i].len);
			if (r && r->sqm != MAP_FAILED && chance(5)) {
				b[i].addr = (uintptr_t)r->sqm;
				b[i].len = PAGE;
			}
		}
		reg->size = sizeof(*reg);
		reg->nr = chance(95) ? nr : rnd_val();
		reg->bufs_ptr = rnd_ptr(b, nr * sizeof(*b));
		if (reg->nr > 8 && reg->bufs_ptr == (uintptr_t)b)
			reg->bufs_ptr = rnd_ptr(NULL, 0);
		break;
	}
	case WSCHED_IOC_OP_LOOKUP: {
		struct wsched_op_lookup *l = buf;

		l->size = sizeof(*l);
		strcpy(l->info.name, op_names[rnd() % ARRAY_SIZE(op_names)]);
		if (chance(10))
			memset(l->info.name, 'a' + rnd() % 26, sizeof(l->info.name));
		break;
	}
	case WSCHED_IOC_MAX_WORKERS: {
		__u32 *cap = buf;

		/* Mostly a read (0) or a small cap; sometimes any value. */
		if (chance(50))
			*cap = chance(90) ? 1 + rnd() % 8 : (__u32)rnd_val();
		break;
	}
	case WSCHED_IOC_OP_LIST: {
		struct wsched_op_list *l = buf;

		l->size = sizeof(*l);
		l->nr = rnd() % 80;
		l->ops_ptr = rnd_ptr(pool_at(80 * sizeof(struct wsched_op_info)),
				     l->nr * sizeof(struct wsched_op_info));
		break;
	}
	}
	if (chance(30))
		mutate(buf, len);
	if (cmd == WSCHED_IOC_ENTER) {
		struct wsched_enter *e = buf;

		/* no wait without a short limit */
		if (e->flags & WSCHED_ENTER_GETEVENTS)
			e->timeout_ns = 1 + rnd() % (2 * MS_NS);
	}
	/* what the kernel writes through stays in the pool */
	if (cmd == WSCHED_IOC_OP_LIST) {
		struct wsched_op_list *l = buf;

		/* at most the total is written: 9 built-in, 64 registered */
		l->ops_ptr = tame(l->ops_ptr, 80 * sizeof(struct wsched_op_info));
	}
	if (cmd == WSCHED_IOC_SUBMIT_GRAPH) {
		struct wsched_graph *g = buf;

		g->results_ptr = tame(g->results_ptr,
				      (__u64)g->nr_nodes * sizeof(struct wsched_result));
	}
	if (cmd == WSCHED_IOC_REGISTER_BUFFERS) {
		struct wsched_buf_reg *reg = buf;
		__u64 end = (uintptr_t)pool + POOL_LEN, size;
		struct wsched_buf *b;
		__u32 i;

		size = (__u64)reg->nr * sizeof(*b);
		reg->bufs_ptr = tame(reg->bufs_ptr, size);
		b = (struct wsched_buf *)(uintptr_t)reg->bufs_ptr;
		/* the buffers data ops will write to, if it is our array */
		if (reg->bufs_ptr >= (uintptr_t)pool && reg->bufs_ptr < end &&
		    size <= end - reg->bufs_ptr)
			for (i = 0; i < reg->nr; i++)
				b[i].addr = b[i].addr == (uintptr_t)(r ? r->sqm : NULL) ?
					    b[i].addr : tame(b[i].addr, b[i].len);
	}
}

/* A random ioctl number: ours with a wrong size or number, or another. */
static unsigned long rnd_cmd(void)
{
	static const unsigned int dirs[] = { _IOC_NONE, _IOC_READ, _IOC_WRITE,
					     _IOC_READ | _IOC_WRITE };
	unsigned int type = chance(70) ? WSCHED_IOC_MAGIC : rnd() % 256;

	/* types the VFS answers itself for any file (FIONBIO, FIFREEZE, ...) */
	while (type == 0 || type == 'T' || type == 'X' || type == 'f' || type == 0x94)
		type = rnd() % 256;
	if (chance(50))
		return _IOC(dirs[rnd() % 4], type, rnd() % 16, rnd() % 1024);
	return _IOC(dirs[rnd() % 4], type, rnd() % 256, rnd() % (1 << 14));
}

TEST_F_TIMEOUT(fuzz, ioctls, 300)
{
	static const unsigned long cmds[] = {
		WSCHED_IOC_PROBE, WSCHED_IOC_SUBMIT_GRAPH, WSCHED_IOC_SETUP,
		WSCHED_IOC_ENTER, WSCHED_IOC_REGISTER_BUFFERS,
		WSCHED_IOC_UNREGISTER_BUFFERS, WSCHED_IOC_OP_LOOKUP,
		WSCHED_IOC_OP_LIST, WSCHED_IOC_MAX_WORKERS,
	};
	__u64 end = deadline_for(0.2);
	struct fz_ring rings[3];
	int fds[3];
	unsigned long it;
	unsigned int i;

	seed_thread(1);
	for (i = 0; i < 3; i++) {
		fds[i] = dev_open();
		ASSERT_LE(0, fds[i]);
		rings[i].r.fd = -1;
	}
	for (it = 0; it < max_iters && now_ns() < end; it++) {
		unsigned int k = rnd() % 5;
		unsigned long cmd;
		unsigned char *arg;
		__u64 argp;
		int fd;

		if (k < 3) {
			fd = fds[k];
		} else {
			/* a context with rings, possibly with buffers */
			struct fz_ring *f = &rings[k - 3];

			if (f->r.fd < 0 || chance(2)) {
				fz_close(f);
				fz_open(f, 1 + rnd() % 64, 0, 0);
				if (f->r.fd < 0)
					continue;
				if (chance(50))
					fz_register(f);
			}
			fd = f->r.fd;
			if (chance(20)) {
				push_random(f, rnd() % 16);
				fz_enter(&f->r, rnd() % 20, chance(30));
				fz_reap(&f->r, true);
			}
		}
		if (chance(1)) {
			close(fds[k % 3]);
			fds[k % 3] = dev_open();
			ASSERT_LE(0, fds[k % 3]);
			continue;
		}
		cmd = chance(85) ? cmds[rnd() % ARRAY_SIZE(cmds)] : rnd_cmd();
		arg = pool_at(1024);
		gen_arg(cmd, arg, _IOC_SIZE(cmd) < 1024 ? _IOC_SIZE(cmd) : 1024,
			k >= 3 ? &rings[k - 3].r : NULL);
		argp = chance(90) ? (uintptr_t)arg : tame(rnd_ptr(arg, _IOC_SIZE(cmd)),
							  _IOC_SIZE(cmd));
		/* a struct running into the guard page after the pool */
		if (chance(3))
			argp = (uintptr_t)pool + POOL_LEN - rnd() % (_IOC_SIZE(cmd) + 1);
		if (cmd == WSCHED_IOC_PROBE || cmd == WSCHED_IOC_OP_LIST ||
		    cmd == WSCHED_IOC_OP_LOOKUP || cmd == WSCHED_IOC_SETUP ||
		    cmd == WSCHED_IOC_ENTER || cmd == WSCHED_IOC_SUBMIT_GRAPH ||
		    cmd == WSCHED_IOC_MAX_WORKERS) {
			/* these write back: never into the read-only page */
			if (argp == (uintptr_t)ro_page)
				argp = 8;
		}
		fz_ioctl(fd, cmd, (void *)(uintptr_t)argp);
		if (!cmd_name(cmd) && chance(10))
			fz_ioctl(fd, cmd, NULL);
	}
	TH_LOG("%lu iterations", it);
	for (i = 0; i < 3; i++) {
		close(fds[i]);
		fz_close(&rings[i]);
	}
	FUZZ_END();
}

/* ---------------------------------------------------------------------
 * Garbage entries through a ring.
 */
TEST_F_TIMEOUT(fuzz, sqes, 300)
{
	__u64 end = deadline_for(0.25);
	unsigned long it, reopen = 0;
	struct fz_ring f;
	struct ring *r = &f.r;

	seed_thread(2);
	r->fd = -1;
	for (it = 0; it < max_iters && now_ns() < end; it++) {
		unsigned int a = rnd() % 100;

		if (r->fd < 0) {
			__u32 sq = 1 + rnd() % 256;

			fz_open(&f, sq, chance(50) ? 0 : sq + rnd() % (3 * sq),
				chance(10) ? WSCHED_SETUP_CLAMP : 0);
			ASSERT_LE(0, r->fd);
			if (chance(80))
				fz_register(&f);
			reopen++;
		}
		if (a < 55) {
			__u32 n, pend, to;

			if (chance(50))
				fz_reap(r, true);
			n = push_random(&f, 1 + rnd() % 32);
			pend = sq_pending(r);
			to = chance(80) ? pend : chance(50) ? rnd() % (n + 1) :
			     pend + rnd() % 100;

			fz_enter(r, to, chance(30));
		} else if (a < 75) {
			fz_reap(r, true);
			fz_enter(r, 0, true);
		} else if (a < 80) {
			/* a bad SQ tail; then back to where the kernel is */
			__u32 head = load_acq(r->sq_head);

			r->tail = chance(50) ? head + r->sq_entries + 1 + rnd() % 1000 :
				 head - 1 - rnd() % 10;
			fz_enter(r, rnd() % 8, false);
			r->tail = head;
			store_rel(r->sq_tail, head);
		} else if (a < 85) {
			if (chance(50))
				fz_unregister(&f);
			else
				fz_register(&f);
		} else if (a < 87) {
			/* close with whatever is in flight */
			fz_close(&f);
		} else if (a < 92) {
			struct wsched_enter e;

			memset(&e, 0, sizeof(e));
			e.size = sizeof(e);
			e.flags = WSCHED_ENTER_GETEVENTS;
			e.min_complete = chance(50) ? rnd() % 100000 : rnd();
			e.timeout_ns = 1 + rnd() % (3 * MS_NS);
			store_rel(r->sq_tail, r->tail);
			fz_ioctl(r->fd, WSCHED_IOC_ENTER, &e);
		} else {
			/* garbage in the SQ slots the kernel may read next */
			__u32 i, n = 1 + rnd() % 8, head = load_acq(r->sq_head);

			for (i = 0; i < n && r->tail - head < r->sq_entries; i++) {
				fill_random(&r->sqes[r->tail & r->sq_mask], sizeof(struct wsched_sqe));
				r->tail++;
			}
			fz_enter(r, n, false);
		}
	}
	TH_LOG("%lu iterations, %lu contexts", it, reopen);
	fz_close(&f);
	FUZZ_END();
}

/* ---------------------------------------------------------------------
 * mmap, mremap, mprotect of the rings.
 */
TEST_F_TIMEOUT(fuzz, mmaps, 300)
{
	__u64 end = deadline_for(0.1);
	unsigned long it, mapped = 0;
	struct fz_ring f;
	struct ring *r = &f.r;
	int fresh;

	seed_thread(3);
	fz_open(&f, 1 + rnd() % 512, 0, 0);
	ASSERT_LE(0, r->fd);
	fresh = dev_open();
	ASSERT_LE(0, fresh);
	for (it = 0; it < max_iters && now_ns() < end; it++) {
		static const int prots[] = {
			PROT_READ | PROT_WRITE, PROT_READ, PROT_WRITE, PROT_NONE,
			PROT_READ | PROT_EXEC, PROT_READ | PROT_WRITE | PROT_EXEC,
		};
		off_t offs[] = {
			WSCHED_OFF_SQ_RING, WSCHED_OFF_CQ_RING, PAGE,
			WSCHED_OFF_CQ_RING + PAGE, WSCHED_OFF_CQ_RING - PAGE,
			(off_t)(rnd() % 0x10000) * PAGE, 1LL << 40, -(off_t)PAGE,
		};
		bool sq = chance(50);
		size_t full = sq ? r->s.sq_size : r->s.cq_size;
		size_t lens[] = {
			0, 1, PAGE, full, full + 1, full + PAGE, (full + PAGE) * 2,
			1UL << 30, rnd() % (1 << 20),
		};
		off_t off = chance(60) ? (sq ? WSCHED_OFF_SQ_RING : WSCHED_OFF_CQ_RING) :
			    offs[rnd() % ARRAY_SIZE(offs)];
		size_t len = chance(50) ? full : lens[rnd() % ARRAY_SIZE(lens)];
		int prot = prots[rnd() % ARRAY_SIZE(prots)];
		int flags = chance(80) ? MAP_SHARED : MAP_PRIVATE;
		int fd = chance(85) ? r->fd : fresh;
		volatile unsigned char *m;
		size_t i;

		if (chance(20))
			flags |= MAP_POPULATE;
		m = mmap(NULL, len, prot, flags, fd, off);
		atomic_fetch_add(&calls, 1);
		if (m == MAP_FAILED) {
			check_mmap_errno("mmap", errno);
			continue;
		}
		mapped++;
		if (fd == fresh)
			violation("mmap of a file without rings succeeded");
		else if (off != WSCHED_OFF_SQ_RING && off != WSCHED_OFF_CQ_RING)
			violation("mmap at offset %#llx succeeded", (long long)off);
		else if (((len + PAGE - 1) & ~(PAGE - 1)) >
			 (((off == WSCHED_OFF_SQ_RING ? r->s.sq_size : r->s.cq_size) +
			   PAGE - 1) & ~(PAGE - 1)))
			violation("mmap of %zu bytes of a %llu-byte ring succeeded", len,
				  (unsigned long long)(off == WSCHED_OFF_SQ_RING ?
						       r->s.sq_size : r->s.cq_size));
		/* every page of a mapping that succeeded is there */
		if (prot & PROT_READ)
			for (i = 0; i < len; i += PAGE)
				(void)m[i];
		if ((prot & PROT_WRITE) && (flags & MAP_SHARED) && chance(30)) {
			/* scribble over a few words, then see the ring cope */
			for (i = 0; i < 8; i++)
				((volatile __u32 *)m)[rnd() % (len / 4 ? len / 4 : 1)] = rnd_val();
			fz_enter(r, rnd() % 4, chance(50));
			r->tail = load_acq(r->sq_head);
			store_rel(r->sq_tail, r->tail);
			*r->cq_head = load_acq(r->cq_tail);
		}
		if (chance(30)) {
			void *n = mremap((void *)m, len, len + PAGE * (1 + rnd() % 4), MREMAP_MAYMOVE);

			atomic_fetch_add(&calls, 1);
			if (n != MAP_FAILED) {
				violation("mremap grew a ring mapping");
				m = n;
				len += PAGE;
			} else if (errno != EFAULT && errno != ENOMEM && errno != EINVAL) {
				violation("mremap: errno %d (%s)", errno, strerror(errno));
			}
		}
		if (chance(20) && len > PAGE) {
			void *n = mremap((void *)m, len, PAGE, MREMAP_MAYMOVE);

			if (n != MAP_FAILED) {
				m = n;
				len = PAGE;
			}
		}
		if (chance(10))
			mprotect((void *)m, len, prots[rnd() % ARRAY_SIZE(prots)]);
		munmap((void *)m, len);
		if (chance(2)) {
			fz_close(&f);
			fz_open(&f, 1 + rnd() % 512, 0, chance(10) ? WSCHED_SETUP_CLAMP : 0);
			ASSERT_LE(0, r->fd);
		}
	}
	TH_LOG("%lu iterations, %lu mappings", it, mapped);
	fz_close(&f);
	close(fresh);
	FUZZ_END();
}

/* ---------------------------------------------------------------------
 * Threads racing over one file descriptor number.
 */
static int race_fd = -1;			/* always a /dev/wsched file */
static struct fz_ring *_Atomic race_ring;	/* its current mapping */
static pthread_rwlock_t race_lock = PTHREAD_RWLOCK_INITIALIZER;
static atomic_bool race_stop;
static __u64 race_end;

static bool race_done(void)
{
	return atomic_load(&race_stop) || now_ns() > race_end;
}

/* Submit and reap through whatever ring is current. */
static void *race_submitter(void *arg)
{
	seed_thread(10 + (uintptr_t)arg);
	while (!race_done()) {
		struct fz_ring *f;
		struct ring *r;

		pthread_rwlock_rdlock(&race_lock);
		f = atomic_load(&race_ring);
		r = &f->r;
		/* the file under race_fd may already be a newer one */
		r->fd = race_fd;
		push_random(f, 1 + rnd() % 16);
		fz_enter(r, r->tail - load_acq(r->sq_head) + rnd() % 3, chance(20));
		fz_reap(r, false);
		if (r->tail - load_acq(r->sq_head) > r->sq_entries)
			r->tail = load_acq(r->sq_head);	/* scribbled over */
		pthread_rwlock_unlock(&race_lock);
	}
	return NULL;
}

/* Write garbage over the rings' heads, tails and entries. */
static void *race_scribbler(void *arg)
{
	seed_thread(20);
	while (!race_done()) {
		struct ring *r;
		unsigned int i;

		pthread_rwlock_rdlock(&race_lock);
		r = &atomic_load(&race_ring)->r;
		for (i = 0; i < 16; i++) {
			switch (rnd() % 7) {
			case 0:
				store_rel(r->sq_tail, load_acq(r->sq_head) + rnd() % (2 * r->sq_entries));
				break;
			case 1:
				store_rel(r->sq_head, rnd_val());
				break;
			case 2:
				store_rel(r->cq_head, load_acq(r->cq_tail) - rnd() % (2 * r->cq_entries));
				break;
			case 3:
				store_rel(r->cq_tail, rnd_val());
				break;
			case 4:
				fill_random(&r->sqes[rnd() % r->sq_entries], sizeof(struct wsched_sqe));
				break;
			case 5:
				fill_random(&r->cqes[rnd() % r->cq_entries], sizeof(struct wsched_cqe));
				break;
			default:
				mutate(&r->sqes[rnd() % r->sq_entries], sizeof(struct wsched_sqe));
				break;
			}
		}
		pthread_rwlock_unlock(&race_lock);
		sched_yield();
	}
	return NULL;
}

/* Register and unregister buffers, some of them unmapped under it. */
static void *race_registrar(void *arg)
{
	seed_thread(30);
	while (!race_done()) {
		struct wsched_buf b[4];
		struct wsched_buf_reg reg;
		unsigned char *m = NULL;
		struct ring *r;
		__u32 i, nr = 1 + rnd() % 4;

		pthread_rwlock_rdlock(&race_lock);
		r = &atomic_load(&race_ring)->r;
		for (i = 0; i < nr; i++) {
			b[i].len = 1 + rnd() % 65536;
			b[i].addr = (uintptr_t)pool_at(b[i].len);
		}
		switch (rnd() % 4) {
		case 0:		/* the rings' own pages */
			b[0].addr = (uintptr_t)r->sqm;
			b[0].len = PAGE;
			break;
		case 1:		/* memory that goes away right after */
			m = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (m != MAP_FAILED) {
				b[0].addr = (uintptr_t)m;
				b[0].len = 4 * PAGE;
			} else {
				m = NULL;
			}
			break;
		}
		memset(&reg, 0, sizeof(reg));
		reg.size = sizeof(reg);
		reg.nr = nr;
		reg.bufs_ptr = (uintptr_t)b;
		fz_ioctl(race_fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
		if (m)
			munmap(m, 4 * PAGE);
		pthread_rwlock_unlock(&race_lock);
		usleep(rnd() % 500);
		fz_ioctl(race_fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL);
	}
	return NULL;
}

/* Random ioctls on the shared file. */
static void *race_ioctler(void *arg)
{
	static const unsigned long cmds[] = {
		WSCHED_IOC_PROBE, WSCHED_IOC_SETUP, WSCHED_IOC_OP_LOOKUP,
		WSCHED_IOC_OP_LIST, WSCHED_IOC_SUBMIT_GRAPH, WSCHED_IOC_ENTER,
		WSCHED_IOC_MAX_WORKERS,
	};
	static __thread unsigned char buf[1024];

	seed_thread(40);
	while (!race_done()) {
		unsigned long cmd = chance(90) ? cmds[rnd() % ARRAY_SIZE(cmds)] : rnd_cmd();

		gen_arg(cmd, buf, _IOC_SIZE(cmd) < sizeof(buf) ? _IOC_SIZE(cmd) : sizeof(buf), NULL);
		fz_ioctl(race_fd, cmd, buf);
	}
	return NULL;
}

/* Swap a new context in under race_fd; the old one is released later. */
static void *race_swapper(void *arg)
{
	struct fz_ring *old[64];
	unsigned int n = 0, i;

	seed_thread(50);
	while (!race_done() && n < ARRAY_SIZE(old)) {
		struct fz_ring *f = malloc(sizeof(*f)), *prev;

		usleep(20000 + rnd() % 100000);
		if (!f)
			break;
		fz_open(f, 1 + rnd() % 64, 0, 0);
		if (f->r.fd < 0) {
			free(f);
			break;
		}
		if (chance(50))
			fz_register(f);
		/* races with ioctls in flight on the old file */
		if (dup2(f->r.fd, race_fd) < 0)
			violation("dup2: %s", strerror(errno));
		close(f->r.fd);
		f->r.fd = race_fd;
		pthread_rwlock_wrlock(&race_lock);
		prev = atomic_exchange(&race_ring, f);
		pthread_rwlock_unlock(&race_lock);
		/* nobody uses the old mapping now: drop it (maybe the last ref) */
		ring_unmap(&prev->r);
		old[n++] = prev;
	}
	for (i = 0; i < n; i++)
		free(old[i]);
	return NULL;
}

TEST_F_TIMEOUT(fuzz, races, 300)
{
	void *(*fns[])(void *) = {
		race_submitter, race_submitter, race_scribbler, race_registrar,
		race_ioctler, race_swapper,
	};
	pthread_t t[ARRAY_SIZE(fns)];
	struct fz_ring *f = malloc(sizeof(*f));
	unsigned int i;

	seed_thread(5);
	ASSERT_NE(NULL, f);
	fz_open(f, 64, 0, 0);
	ASSERT_LE(0, f->r.fd);
	race_fd = f->r.fd;
	atomic_store(&race_ring, f);
	race_end = deadline_for(0.3);
	atomic_store(&race_stop, false);
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, fns[i], (void *)(uintptr_t)i));
	for (i = 0; i < ARRAY_SIZE(fns); i++)
		pthread_join(t[i], NULL);
	f = atomic_load(&race_ring);
	ring_unmap(&f->r);
	close(race_fd);
	free(f);
	FUZZ_END();
}

/* ---------------------------------------------------------------------
 * Contexts closed, unmapped or killed with work in flight.
 */
static void load_work(struct fz_ring *f)
{
	unsigned int i, n = 1 + rnd() % 8;

	if (chance(70))
		fz_register(f);
	for (i = 0; i < n; i++) {
		push_random(f, f->r.sq_entries);
		fz_enter(&f->r, sq_pending(&f->r), false);
	}
}

static struct ring *closer_ring;

static void *close_under_wait(void *arg)
{
	usleep(rnd() % 3000);
	close(closer_ring->fd);
	return NULL;
}

TEST_F_TIMEOUT(fuzz, close_in_flight, 300)
{
	__u64 end = deadline_for(0.15);
	unsigned long it;

	seed_thread(6);
	for (it = 0; it < max_iters && now_ns() < end; it++) {
		struct fz_ring f;
		unsigned int how = rnd() % 4;

		if (how == 3) {
			/* a child loads work and is killed */
			int status;
			pid_t pid = fork();

			ASSERT_LE(0, pid);
			if (!pid) {
				seed_thread(1000 + it);
				fz_open(&f, 1 + rnd() % 1024, 0, WSCHED_SETUP_CLAMP);
				if (f.r.fd >= 0)
					load_work(&f);
				for (;;)
					load_work(&f);
			}
			usleep(1000 + rnd() % 20000);
			kill(pid, SIGKILL);
			ASSERT_EQ(pid, waitpid(pid, &status, 0));
			EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
				TH_LOG("child status %#x", status);
			continue;
		}
		fz_open(&f, 1 + rnd() % 1024, 0, WSCHED_SETUP_CLAMP);
		ASSERT_LE(0, f.r.fd);
		load_work(&f);
		usleep(rnd() % 2000);
		if (how == 2) {
			/* closed by another thread while this one waits in ENTER */
			pthread_t t;
			struct wsched_enter e;

			closer_ring = &f.r;
			ASSERT_EQ(0, pthread_create(&t, NULL, close_under_wait, NULL));
			memset(&e, 0, sizeof(e));
			e.size = sizeof(e);
			e.flags = WSCHED_ENTER_GETEVENTS;
			e.min_complete = ~0U;
			e.timeout_ns = 20 * MS_NS;
			fz_ioctl(f.r.fd, WSCHED_IOC_ENTER, &e);
			pthread_join(t, NULL);
			ring_unmap(&f.r);
		} else {
			fz_close(&f);
		}
	}
	TH_LOG("%lu contexts", it);
	FUZZ_END();
}

TEST_HARNESS_MAIN
