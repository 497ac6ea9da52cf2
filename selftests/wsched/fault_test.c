// SPDX-License-Identifier: GPL-2.0
/*
 * fault_test: /dev/wsched under injected failures (issue 12).
 *
 * Every entry point is swept with the fault injector's fail-nth count
 * (/proc/thread-self/fail-nth, as syzkaller does): for n = 1, 2, ... the
 * n-th fault point the call passes fails, until the call passes fewer
 * than n.  Failures are confined to this thread.  The fault points are
 * slab allocations (failslab), page allocations (fail_page_alloc, order 0
 * and highmem included here, e.g. the pages that pinning faults in) and,
 * in the *_usercopy sweeps, user copies too (fail_usercopy, which the
 * rig's /init leaves out of fail-nth unless a test opts in).
 *
 * After each call: the errno is a clean one (ENOMEM, EAGAIN, EINTR, and
 * EFAULT where user copies fail), a refused graph ran no node (nodes_run
 * and its buffer unchanged, no completion), an accepted one completes
 * exactly once (one completion per node and one for the graph, the data
 * right), and the file closes cleanly.  At the end no user pool is left,
 * VmLck is back, and (in a child without CAP_IPC_LOCK) the user's pinned
 * memory charge is back: the whole RLIMIT_MEMLOCK can be pinned again.
 * kmemleak's scan at the end of the run checks for leaks.
 *
 * Each sweep logs its fault points, failures injected and outcomes
 * (figures for Documentation/testing.rst).  Skipped on kernels without
 * fault injection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wsched_ring.h"
#include "wsched_stats.h"

#define PAGE		4096UL
#define DBG		"/sys/kernel/debug"
#define NTH		"/proc/thread-self/fail-nth"
/* Bound of every sweep: far above what any call here makes. */
#define MAX_NTH		600
#define BUF_PAGES	16
#define SLOT		64	/* bytes of the buffer each memset node owns */

/* ---- the fault injector ----------------------------------------------- */

/* An attribute we change, and what it was. */
struct fi_attr {
	const char *path;
	const char *value;
	char saved[32];
};

static struct fi_attr fi_alloc_attrs[] = {
	{ .path = DBG "/failslab/ignore-gfp-wait", .value = "N" },
	{ .path = DBG "/failslab/verbose", .value = "1" },
	{ .path = DBG "/fail_page_alloc/ignore-gfp-wait", .value = "N" },
	{ .path = DBG "/fail_page_alloc/ignore-gfp-highmem", .value = "N" },
	{ .path = DBG "/fail_page_alloc/min-order", .value = "0" },
	{ .path = DBG "/fail_page_alloc/verbose", .value = "1" },
};

/* fail_usercopy's opt-in (tools/qemu/README.md): a reject range of none. */
static struct fi_attr fi_copy_attrs[] = {
	{ .path = DBG "/fail_usercopy/reject-end", .value = "0" },
	{ .path = DBG "/fail_usercopy/verbose", .value = "1" },
};

static const char *fi_set(struct fi_attr *a, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (read_file(a[i].path, a[i].saved, sizeof(a[i].saved)))
			return why("read %s: %s", a[i].path, strerror(errno));
		if (write_file(a[i].path, a[i].value))
			return why("write %s", a[i].path);
	}
	return NULL;
}

static void fi_restore(struct fi_attr *a, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++)
		if (a[i].saved[0])
			write_file(a[i].path, a[i].saved);
}

/* Why fault injection cannot run here, or NULL. */
static const char *fi_missing(bool usercopy)
{
	if (access(NTH, W_OK))
		return "no " NTH " (CONFIG_FAULT_INJECTION)";
	if (access(DBG "/failslab/ignore-gfp-wait", W_OK))
		return "no failslab (CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)";
	if (access(DBG "/fail_page_alloc/min-order", W_OK))
		return "no fail_page_alloc (CONFIG_FAIL_PAGE_ALLOC)";
	if (usercopy && access(DBG "/fail_usercopy/reject-end", W_OK))
		return "no fail_usercopy with a stack filter";
	return NULL;
}

/*
 * The sweep state: fail-nth of this thread, opened once (opening it
 * while armed would allocate), and what the sweep saw.
 */
struct sweep {
	const char *name;
	int nth;
	unsigned int points;	/* fault points the call passes, unarmed */
	unsigned int injected;	/* calls in which the armed failure happened */
	unsigned int refused;	/* ... that returned an error */
	unsigned int errs[5];	/* ENOMEM EAGAIN EINTR EFAULT other */
	unsigned int late;	/* EFAULT writing the answer back, work done */
	bool usercopy;
};

static const char *sweep_begin(struct sweep *s, const char *name,
			       bool usercopy)
{
	const char *w;

	memset(s, 0, sizeof(*s));
	s->name = name;
	s->usercopy = usercopy;
	w = fi_set(fi_alloc_attrs, ARRAY_SIZE(fi_alloc_attrs));
	if (!w && usercopy)
		w = fi_set(fi_copy_attrs, ARRAY_SIZE(fi_copy_attrs));
	s->nth = open(NTH, O_RDWR | O_CLOEXEC);
	if (!w && s->nth < 0)
		w = why("open %s: %s", NTH, strerror(errno));
	return w;
}

static void sweep_end(struct sweep *s)
{
	if (s->nth >= 0)
		close(s->nth);
	if (s->usercopy)
		fi_restore(fi_copy_attrs, ARRAY_SIZE(fi_copy_attrs));
	fi_restore(fi_alloc_attrs, ARRAY_SIZE(fi_alloc_attrs));
}

static void arm(struct sweep *s, unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(s->nth, buf, len, 0) != len)
		abort();
}

/*
 * Disarm; whether the armed failure happened.  Reading fail-nth copies to
 * user space: in a usercopy sweep that copy is itself a fault point, and
 * fails (EFAULT) exactly when one point was left.
 */
static bool disarm(struct sweep *s)
{
	char buf[16] = "";
	ssize_t r = pread(s->nth, buf, sizeof(buf) - 1, 0);
	bool hit;

	if (r < 0 && errno == EFAULT)
		hit = false;
	else if (r <= 0)
		abort();
	else
		hit = atoi(buf) == 0;
	/*
	 * Writing copies from user space too: in a usercopy sweep with two
	 * points left, it fails (EFAULT) and leaves none; then it works.
	 */
	while (pwrite(s->nth, "0", 1, 0) != 1)
		if (errno != EFAULT)
			abort();
	return hit;
}

/* Count an error of a call; false if it is not a clean one. */
static bool sweep_err(struct sweep *s, int err)
{
	s->refused++;
	switch (err) {
	case -ENOMEM:
		s->errs[0]++;
		return true;
	case -EAGAIN:
		s->errs[1]++;
		return true;
	case -EINTR:
		s->errs[2]++;
		return true;
	case -EFAULT:
		s->errs[3]++;
		return s->usercopy;
	default:
		s->errs[4]++;
		return false;
	}
}

#define SWEEP_LOG(s)							\
	TH_LOG("%s: %u fault points, each failed in turn: %u failures injected, %u calls refused (ENOMEM %u, EAGAIN %u, EINTR %u, EFAULT %u, other %u), %u late EFAULT",	\
	       (s)->name, (s)->points, (s)->injected, (s)->refused,	\
	       (s)->errs[0], (s)->errs[1], (s)->errs[2], (s)->errs[3],	\
	       (s)->errs[4], (s)->late)

/* ---- graphs ------------------------------------------------------------ */

enum shape { SINGLE, CHAIN, DIAMOND, FANOUT, RANDOM, BUFOPS, BIG, NR_SHAPES };

static const char *const shape_names[] = {
	"single", "chain", "diamond", "fanout", "random", "bufops", "big",
};

static const unsigned int shape_nodes[] = { 1, 8, 4, 66, 24, 3, 200 };

/* Predecessor lists of more than one node, which live in user memory. */
static __u32 preds_mem[256][WSCHED_MAX_PREDS];

/*
 * Queue graph @shape, with byte @v: memset nodes write @v to their own
 * slot of buffer 0 (node i: bytes [i * SLOT, (i + 1) * SLOT)), BUFOPS
 * copies slot 0 to slot 1 and compares them.  User data: node index.
 */
static void push_shape(struct ring *r, enum shape shape, __u8 v)
{
	unsigned int i, k, n = shape_nodes[shape];

	rnd_seed(0xfa17);
	for (i = 0; i < n; i++) {
		struct wsched_sqe e;
		__u32 *p = preds_mem[i], np = 0;

		sqe_range(&e, WSCHED_OP_MEMSET, 0, i * SLOT, SLOT, 0, v, i);
		switch (shape) {
		case SINGLE:
			break;
		case CHAIN:
			if (i)
				p[np++] = i - 1;
			break;
		case DIAMOND:
			if (i == 1 || i == 2)
				p[np++] = 0;
			else if (i == 3) {
				p[np++] = 1;
				p[np++] = 2;
			}
			break;
		case FANOUT:
			/* One root, 64 children, one node after all of them. */
			if (i && i < n - 1)
				p[np++] = 0;
			else if (i)
				for (k = 1; k < n - 1 && np < WSCHED_MAX_PREDS; k++)
					p[np++] = k;
			break;
		case RANDOM:
		case BIG:
			if (i)
				for (k = rnd() % 4; k; k--) {
					__u32 pr = rnd() % i;
					unsigned int j;

					for (j = 0; j < np && p[j] != pr; j++)
						;
					if (j == np)
						p[np++] = pr;
				}
			break;
		case BUFOPS:
			if (i == 1) {
				sqe_range(&e, WSCHED_OP_MEMCPY, 0, SLOT, SLOT, 0,
					  0, i);
				p[np++] = 0;
			} else if (i == 2) {
				sqe_range(&e, WSCHED_OP_MEMCMP, 0, 0, SLOT, 0,
					  SLOT, i);
				p[np++] = 1;
			}
			break;
		default:
			break;
		}
		sqe_preds(&e, p, np);
		if (i == n - 1)
			e.flags |= WSCHED_SQE_GRAPH_END;
		if (!sq_push(r, &e))
			abort();
	}
}

/* The bytes the graph writes, and the value they must hold once it ran. */
static size_t shape_bytes(enum shape shape)
{
	return (shape == BUFOPS ? 2 : shape_nodes[shape]) * SLOT;
}

static bool all_bytes(const unsigned char *m, size_t len, __u8 v)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (m[i] != v)
			return false;
	return true;
}

/*
 * Reap the completions of one graph of @nodes nodes: each node's exactly
 * once, then the graph's.  NULL, or what was wrong.
 */
static const char *reap_exactly_once(struct ring *r, unsigned int nodes)
{
	static unsigned char seen[256];
	struct wsched_cqe c;
	unsigned int got = 0;
	bool graph = false;

	memset(seen, 0, sizeof(seen));
	while (!graph) {
		if (!ring_reap(r, &c, 1)) {
			if (ring_wait(r, 1, 60000))
				return why("no graph completion in 60 s (%u of %u nodes)",
					   got, nodes);
			continue;
		}
		if (c.flags & WSCHED_CQE_GRAPH) {
			if (c.res)
				return why("graph completed with %d", c.res);
			graph = true;
			continue;
		}
		if (c.user_data >= nodes || seen[c.user_data]++)
			return why("node %llu completed twice or unknown",
				   (unsigned long long)c.user_data);
		if (c.res)
			return why("node %llu: res %d", (unsigned long long)c.user_data,
				   c.res);
		got++;
	}
	if (got != nodes)
		return why("%u node completions for %u nodes", got, nodes);
	usleep(1000);
	if (cq_ready(r))
		return why("completions after the graph's");
	return NULL;
}

/* A context with a registered buffer and its pool already created. */
struct ctx {
	struct ring r;
	unsigned char *mem;
};

static const char *ctx_open(struct ctx *c, unsigned char *mem)
{
	struct wsched_buf b = { (uintptr_t)mem, BUF_PAGES * PAGE };
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
	};
	struct wsched_sqe e;
	int ret;

	c->mem = mem;
	ret = ring_open(&c->r, 256, 1024, 0);
	if (ret)
		return why("ring_open: %s", strerror(-ret));
	ret = xioctl(c->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
	if (ret)
		return why("register: %s", strerror(-ret));
	/* The pool: created by the first submission. */
	sqe_op(&e, WSCHED_OP_NOP, 0, 0);
	e.flags = WSCHED_SQE_GRAPH_END;
	sq_push(&c->r, &e);
	ret = ring_enter(&c->r, 1, 1, WSCHED_ENTER_GETEVENTS, 60 * SEC_NS, NULL);
	if (ret)
		return why("first graph: %s", strerror(-ret));
	return reap_exactly_once(&c->r, 1);
}

/*
 * Check the outcome of ENTER of a graph of @shape with byte @v: @ret the
 * call's, @waited whether it waited for completions.  NULL, or what was
 * wrong.  Sets *@accepted.
 */
static const char *check_graph(struct sweep *s, struct ctx *c, enum shape shape,
			       __u8 v, int ret, const struct wsched_enter *e,
			       unsigned long long run0, bool *accepted)
{
	unsigned int nodes = shape_nodes[shape];
	const char *w;

	/* Entries consumed whole: the graph was taken (and ran or not). */
	/*
	 * Accepted, or (usercopy) EFAULT from ENTER's final write-back of its
	 * answer: then the entries are consumed and the answer is what the
	 * call's first write left (nothing submitted, no error), whereas a
	 * graph refused for a failed copy of its predecessors says so.
	 */
	*accepted = ret == 0 || (ret == -EFAULT && s->usercopy &&
				 !sq_pending(&c->r) && !e->submitted &&
				 !e->sq_error);
	if (ret && !*accepted) {
		if (!sweep_err(s, ret))
			return why("%s: %s", shape_names[shape], strerror(-ret));
		/* A refused graph ran nothing, and completes nothing. */
		usleep(20000);
		if (nodes_run(c->r.fd) != run0)
			return why("%s refused (%s), but %llu nodes ran",
				   shape_names[shape], strerror(-ret),
				   nodes_run(c->r.fd) - run0);
		if (!all_bytes(c->mem, shape_bytes(shape), 0))
			return why("%s refused (%s), but its buffer changed",
				   shape_names[shape], strerror(-ret));
		if (cq_ready(&c->r))
			return why("%s refused (%s), but completions came",
				   shape_names[shape], strerror(-ret));
		return NULL;
	}
	if (ret) {
		/* ENTER's answer could not be written back: work went on. */
		s->late++;
		s->refused++;
		s->errs[3]++;
	}
	w = reap_exactly_once(&c->r, nodes);
	if (w)
		return why("%s: %s", shape_names[shape], w);
	if (!all_bytes(c->mem, shape_bytes(shape), v))
		return why("%s: wrong data", shape_names[shape]);
	if (nodes_run(c->r.fd) != run0 + nodes)
		return why("%s: %llu nodes ran, not %u", shape_names[shape],
			   nodes_run(c->r.fd) - run0, nodes);
	return NULL;
}

/* ---- the fixture ------------------------------------------------------- */

FIXTURE(fault) {
	int pools0;
	long lck0;
	unsigned char *mem;
};

/*
 * Out of fail-nth, as /init leaves it (reject every stack), whatever a
 * test that stopped half way left.
 */
static void usercopy_opt_out(void)
{
	write_file(DBG "/fail_usercopy/reject-start", "0");
	write_file(DBG "/fail_usercopy/reject-end", "18446744073709551615");
}

/* And when the harness ends, whichever test ran last and how. */
static void __attribute__((destructor)) usercopy_opt_out_at_exit(void)
{
	if (!access(DBG "/fail_usercopy/reject-end", W_OK))
		usercopy_opt_out();
}

FIXTURE_SETUP(fault)
{
	const char *w = fi_missing(false);

	self->mem = MAP_FAILED;
	usercopy_opt_out();
	if (w) {
		SKIP(return, "%s", w);
	}
	self->pools0 = ws_user_pools(NULL);
	ASSERT_LE(0, self->pools0);
	self->lck0 = vmlck_kb();
	self->mem = mmap(NULL, BUF_PAGES * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->mem);
	memset(self->mem, 0, BUF_PAGES * PAGE);
}

FIXTURE_TEARDOWN(fault)
{
	usercopy_opt_out();
	if (self->mem == MAP_FAILED)
		return;
	munmap(self->mem, BUF_PAGES * PAGE);
	/* Every context's pool went with its file, and every pin. */
	EXPECT_EQ(self->pools0, ws_wait_user_pools(self->pools0));
	EXPECT_EQ(self->lck0, vmlck_kb());
}

/* ---- open, SETUP and mmap ---------------------------------------------- */

static void setup_sweep(struct __test_metadata *_metadata, bool usercopy)
{
	struct sweep s;
	unsigned int n;

	ASSERT_OK(sweep_begin(&s, usercopy ? "SETUP arguments (usercopy)" :
				 "open + SETUP + mmap", usercopy));
	for (n = 1; n < MAX_NTH; n++) {
		struct wsched_sqe e;
		struct ring r;
		int fd = -1, ret;
		bool hit, set_up = false;

		if (usercopy) {
			/* Only the SETUP call: its argument in and out. */
			fd = dev_open();
			ASSERT_LE(0, fd);
			ring_init(&r, fd, 64, 0, 0);
			arm(&s, n);
			ret = xioctl(fd, WSCHED_IOC_SETUP, &r.s);
			hit = disarm(&s);
			set_up = !ret;
			if (!ret)
				ret = ring_map(&r);
		} else {
			arm(&s, n);
			fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
			ret = fd < 0 ? -errno : 0;
			if (!ret) {
				ring_init(&r, fd, 64, 0, 0);
				ret = xioctl(fd, WSCHED_IOC_SETUP, &r.s);
				set_up = !ret;
			}
			if (!ret)
				ret = ring_map(&r);
			hit = disarm(&s);
		}
		s.injected += hit;
		if (ret) {
			EXPECT_TRUE(sweep_err(&s, ret))
				TH_LOG("n=%u: %s", n, strerror(-ret));
			EXPECT_TRUE(hit) TH_LOG("n=%u: failed with nothing injected", n);
		}
		if (fd >= 0 && ret) {
			/*
			 * A refused SETUP left nothing behind: it works now.
			 * After a refused mmap, mapping works now.
			 */
			ring_unmap(&r);
			if (!set_up) {
				ring_init(&r, fd, 64, 0, 0);
				ret = xioctl(fd, WSCHED_IOC_SETUP, &r.s);
				EXPECT_EQ(0, ret) TH_LOG("n=%u: SETUP again: %s",
							 n, strerror(-ret));
			} else {
				ret = 0;
			}
			if (!ret)
				ret = ring_map(&r);
			EXPECT_EQ(0, ret);
		}
		if (fd >= 0 && !ret) {
			sqe_op(&e, WSCHED_OP_NOP, 0, 0);
			e.flags = WSCHED_SQE_GRAPH_END;
			EXPECT_TRUE(sq_push(&r, &e));
			EXPECT_EQ(0, ring_enter(&r, 1, 1, WSCHED_ENTER_GETEVENTS,
						60 * SEC_NS, NULL));
			EXPECT_OK(reap_exactly_once(&r, 1));
		}
		if (fd >= 0)
			ring_close(&r);
		if (!hit)
			break;
	}
	s.points = n - 1;
	SWEEP_LOG(&s);
	EXPECT_LT(0, s.refused);
	sweep_end(&s);
}

TEST_F_TIMEOUT(fault, open_setup, 300)
{
	setup_sweep(_metadata, false);
}

TEST_F_TIMEOUT(fault, setup_usercopy, 300)
{
	const char *w = fi_missing(true);

	if (w) {
		SKIP(return, "%s", w);
	}
	setup_sweep(_metadata, true);
}

/* ---- REGISTER_BUFFERS ---------------------------------------------------- */

/*
 * The sweep, in a child that lacks CAP_IPC_LOCK under an RLIMIT_MEMLOCK
 * of exactly the buffer, so that the user's charge is exercised: a
 * charge left behind makes the last registration fail.  Buffers are
 * mapped fresh and not touched, so pinning faults their pages in.
 * Returns NULL or what went wrong; @s gets the figures.
 */
static const char *register_sweep(struct sweep *s)
{
	struct rlimit rl = { BUF_PAGES * PAGE, BUF_PAGES * PAGE };
	long lck0 = vmlck_kb();
	unsigned int n;
	struct ring r;
	int ret;

	if (setrlimit(RLIMIT_MEMLOCK, &rl) || drop_cap_ipc_lock())
		return "cannot drop CAP_IPC_LOCK";
	/* The parent's descriptor names the parent's thread. */
	close(s->nth);
	s->nth = open(NTH, O_RDWR | O_CLOEXEC);
	if (s->nth < 0)
		return why("open %s: %s", NTH, strerror(errno));
	ret = ring_open(&r, 64, 0, 0);
	if (ret)
		return why("ring_open: %s", strerror(-ret));
	for (n = 1; n < MAX_NTH; n++) {
		unsigned char *mem = mmap(NULL, BUF_PAGES * PAGE,
					  PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct wsched_buf b = { (uintptr_t)mem, BUF_PAGES * PAGE };
		struct wsched_buf_reg reg = {
			.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
		};
		struct wsched_sqe e;
		bool hit;

		if (mem == MAP_FAILED)
			return "mmap";
		arm(s, n);
		ret = xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
		hit = disarm(s);
		s->injected += hit;
		if (ret) {
			if (!sweep_err(s, ret))
				return why("n=%u: %s", n, strerror(-ret));
			if (!hit)
				return why("n=%u: %s with nothing injected", n,
					   strerror(-ret));
			if (vmlck_kb() != lck0)
				return why("n=%u: refused, VmLck %ld kB, not %ld",
					   n, vmlck_kb(), lck0);
			ret = xioctl(r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL);
			if (ret != -ENXIO)
				return why("n=%u: refused, but something is registered (%s)",
					   n, strerror(-ret));
			/* The whole limit can be pinned: nothing charged. */
			ret = xioctl(r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
			if (ret)
				return why("n=%u: registering again: %s", n,
					   strerror(-ret));
		}
		if (vmlck_kb() != lck0 + (long)(BUF_PAGES * PAGE / 1024))
			return why("n=%u: VmLck %ld kB", n, vmlck_kb());
		/* The pinned pages are the mapping's: a graph writes them. */
		sqe_range(&e, WSCHED_OP_MEMSET, 0, 0, BUF_PAGES * PAGE, 0, 0x3c,
			  0);
		e.flags = WSCHED_SQE_GRAPH_END;
		sq_push(&r, &e);
		ret = ring_enter(&r, 1, 1, WSCHED_ENTER_GETEVENTS, 60 * SEC_NS,
				 NULL);
		if (ret)
			return why("n=%u: graph: %s", n, strerror(-ret));
		if (reap_exactly_once(&r, 1))
			return why("n=%u: %s", n, why_buf);
		if (!all_bytes(mem, BUF_PAGES * PAGE, 0x3c))
			return why("n=%u: the graph did not write the buffer", n);
		ret = xioctl(r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL);
		if (ret)
			return why("n=%u: unregister: %s", n, strerror(-ret));
		munmap(mem, BUF_PAGES * PAGE);
		if (vmlck_kb() != lck0)
			return why("n=%u: VmLck %ld kB after unregistering", n,
				   vmlck_kb());
		if (!hit)
			break;
	}
	s->points = n - 1;
	ring_close(&r);
	return NULL;
}

static void register_test(struct __test_metadata *_metadata, bool usercopy)
{
	struct sweep s, *out;
	const char *w;
	int st;
	pid_t pid;

	/* Shared with the child, which sweeps (it drops CAP_IPC_LOCK). */
	out = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, out);
	ASSERT_OK(sweep_begin(&s, usercopy ? "REGISTER_BUFFERS arguments (usercopy)" :
				 "REGISTER_BUFFERS", usercopy));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		w = register_sweep(&s);
		*out = s;
		if (w) {
			snprintf((char *)(out + 1), PAGE - sizeof(*out), "%s", w);
			_exit(1);
		}
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && !WEXITSTATUS(st))
		TH_LOG("%s", (char *)(out + 1));
	s = *out;
	SWEEP_LOG(&s);
	EXPECT_LT(0, s.refused);
	sweep_end(&s);
	munmap(out, PAGE);
}

TEST_F_TIMEOUT(fault, register_buffers, 300)
{
	register_test(_metadata, false);
}

TEST_F_TIMEOUT(fault, register_usercopy, 300)
{
	const char *w = fi_missing(true);

	if (w) {
		SKIP(return, "%s", w);
	}
	register_test(_metadata, true);
}

/* ---- ENTER of each graph shape ----------------------------------------- */

static void enter_sweep(struct __test_metadata *_metadata,
			unsigned char *mem, bool usercopy)
{
	static const char *const names[2][2] = {
		{ "ENTER", "ENTER + GETEVENTS" },
		{ "ENTER (usercopy)", "ENTER + GETEVENTS (usercopy)" },
	};
	unsigned int shape, wait, total_inj = 0, total_pts = 0, total_ref = 0;

	for (wait = 0; wait < 2; wait++) {
		for (shape = 0; shape < NR_SHAPES; shape++) {
			char name[64];
			struct sweep s;
			struct ctx c;
			unsigned int n;

			snprintf(name, sizeof(name), "%s, %s",
				 names[usercopy][wait], shape_names[shape]);
			ASSERT_OK(sweep_begin(&s, name, usercopy));
			for (n = 1; n < MAX_NTH; n++) {
				unsigned long long run0;
				struct wsched_enter e;
				__u8 v = (n % 254) + 1;
				bool hit, accepted;
				int ret;

				/*
				 * A fresh context (its pool made by a first
				 * graph of one node) for every step: a warm one
				 * would serve the graph from its caches.
				 */
				ASSERT_OK(ctx_open(&c, mem));
				memset(mem, 0, BUF_PAGES * PAGE);
				run0 = nodes_run(c.r.fd);
				push_shape(&c.r, shape, v);
				arm(&s, n);
				ret = ring_enter(&c.r, shape_nodes[shape],
						 wait, wait ? WSCHED_ENTER_GETEVENTS : 0,
						 wait ? 60 * SEC_NS : 0, &e);
				hit = disarm(&s);
				s.injected += hit;
				EXPECT_OK(check_graph(&s, &c, shape, v, ret, &e,
						      run0, &accepted))
					TH_LOG("%s, n=%u", name, n);
				if (ret && !accepted)
					EXPECT_TRUE(hit) TH_LOG("%s, n=%u: %s with nothing injected",
								name, n, strerror(-ret));
				ring_close(&c.r);
				if (!hit)
					break;
			}
			s.points = n - 1;
			SWEEP_LOG(&s);
			total_ref += s.refused;
			total_inj += s.injected;
			total_pts += s.points;
			sweep_end(&s);
		}
	}
	TH_LOG("%s: %u fault points over %u sweeps, %u failures injected, %u calls refused",
	       usercopy ? "ENTER (usercopy)" : "ENTER", total_pts,
	       2 * NR_SHAPES, total_inj, total_ref);
	/* Some graph is refused (not every allocation has a fallback). */
	EXPECT_LT(0, total_ref);
}

TEST_F_TIMEOUT(fault, enter, 600)
{
	enter_sweep(_metadata, self->mem, false);
}

TEST_F_TIMEOUT(fault, enter_usercopy, 600)
{
	const char *w = fi_missing(true);

	if (w) {
		SKIP(return, "%s", w);
	}
	enter_sweep(_metadata, self->mem, true);
}

/* ---- the first submission creates the context's pool --------------------- */

TEST_F_TIMEOUT(fault, first_submission, 300)
{
	struct sweep s;
	unsigned int n;

	ASSERT_OK(sweep_begin(&s, "first ENTER (pool creation)", false));
	for (n = 1; n < MAX_NTH; n++) {
		unsigned long long run0;
		struct wsched_enter e;
		struct wsched_sqe sqe;
		struct ring r;
		bool hit;
		int ret, pools;

		pools = ws_user_pools(NULL);
		ASSERT_EQ(0, ring_open(&r, 8, 0, 0));
		run0 = nodes_run(r.fd);
		sqe_op(&sqe, WSCHED_OP_NOP, 0, 0);
		sqe.flags = WSCHED_SQE_GRAPH_END;
		sq_push(&r, &sqe);
		arm(&s, n);
		ret = ring_enter(&r, 1, 0, 0, 0, &e);
		hit = disarm(&s);
		s.injected += hit;
		if (ret) {
			EXPECT_TRUE(sweep_err(&s, ret))
				TH_LOG("n=%u: %s", n, strerror(-ret));
			EXPECT_TRUE(hit);
			usleep(20000);
			EXPECT_EQ(run0, nodes_run(r.fd)) TH_LOG("n=%u", n);
			EXPECT_EQ(0, cq_ready(&r));
		}
		if (ret && sq_pending(&r)) {
			/* Refused before the entry was consumed: it runs now. */
			EXPECT_EQ(0, ring_enter(&r, 1, 0, 0, 0, NULL));
			ret = 0;
		}
		if (!ret) {
			EXPECT_OK(reap_exactly_once(&r, 1)) TH_LOG("n=%u", n);
			EXPECT_EQ(run0 + 1, nodes_run(r.fd));
		}
		ring_close(&r);
		/* No pool is left, made whole or not. */
		EXPECT_EQ(pools, ws_wait_user_pools(pools)) TH_LOG("n=%u", n);
		if (!hit)
			break;
	}
	s.points = n - 1;
	SWEEP_LOG(&s);
	EXPECT_LT(0, s.refused);
	sweep_end(&s);
}

/* ---- the synchronous SUBMIT_GRAPH ---------------------------------------- */

static void submit_graph_sweep(struct __test_metadata *_metadata,
			       bool usercopy)
{
	enum { NR = 16 };
	struct wsched_node nodes[NR];
	struct wsched_result res[NR];
	__u32 preds[NR][2];
	struct sweep s;
	unsigned int n, i;
	int fd;

	ASSERT_OK(sweep_begin(&s, usercopy ? "SUBMIT_GRAPH (usercopy)" :
				 "SUBMIT_GRAPH", usercopy));
	fd = dev_open();
	ASSERT_LE(0, fd);
	/* node i after i - 1 and i - 2; SPIN and NOP. */
	memset(nodes, 0, sizeof(nodes));
	for (i = 0; i < NR; i++) {
		nodes[i].op = i % 2 ? WSCHED_OP_SPIN : WSCHED_OP_NOP;
		nodes[i].arg[0] = i % 2 ? 100 : 0;
		nodes[i].user_data = 1000 + i;
		if (i >= 2) {
			preds[i][0] = i - 1;
			preds[i][1] = i - 2;
			nodes[i].nr_preds = 2;
			nodes[i].preds_ptr = (uintptr_t)preds[i];
		} else if (i == 1) {
			preds[i][0] = 0;
			nodes[i].nr_preds = 1;
			nodes[i].preds_ptr = (uintptr_t)preds[i];
		}
	}
	for (n = 1; n < MAX_NTH; n++) {
		struct wsched_graph g = {
			.nodes_ptr = (uintptr_t)nodes, .nr_nodes = NR,
			.results_ptr = (uintptr_t)res, .size = sizeof(g),
			.node_size = sizeof(nodes[0]),
			.result_size = sizeof(res[0]),
		};
		unsigned long long run0 = nodes_run(fd), ran;
		bool hit;
		int ret;

		memset(res, 0xff, sizeof(res));
		arm(&s, n);
		ret = xioctl(fd, WSCHED_IOC_SUBMIT_GRAPH, &g);
		hit = disarm(&s);
		s.injected += hit;
		ran = nodes_run(fd) - run0;
		if (ret) {
			EXPECT_TRUE(sweep_err(&s, ret))
				TH_LOG("n=%u: %s", n, strerror(-ret));
			EXPECT_TRUE(hit);
			/*
			 * The results could not be written back after the
			 * graph ran: only a failed user copy can do that.
			 */
			if (ran && ret == -EFAULT && usercopy) {
				s.late++;
				EXPECT_EQ(NR, ran);
			} else {
				EXPECT_EQ(0, ran)
					TH_LOG("n=%u: refused with %s after %llu nodes ran",
					       n, strerror(-ret), ran);
			}
		} else {
			EXPECT_EQ(NR, ran) TH_LOG("n=%u", n);
			for (i = 0; i < NR; i++) {
				EXPECT_EQ(1000 + i, res[i].user_data);
				EXPECT_EQ(0, res[i].res);
				EXPECT_EQ(WSCHED_RES_RAN, res[i].flags);
				if (i >= 1)
					EXPECT_LT(res[i - 1].seq, res[i].seq);
			}
		}
		if (!hit)
			break;
	}
	close(fd);
	s.points = n - 1;
	SWEEP_LOG(&s);
	EXPECT_LT(0, s.refused);
	sweep_end(&s);
}

TEST_F_TIMEOUT(fault, submit_graph, 300)
{
	submit_graph_sweep(_metadata, false);
}

TEST_F_TIMEOUT(fault, submit_graph_usercopy, 300)
{
	const char *w = fi_missing(true);

	if (w) {
		SKIP(return, "%s", w);
	}
	submit_graph_sweep(_metadata, true);
}

TEST_HARNESS_MAIN
