// SPDX-License-Identifier: GPL-2.0
/*
 * utorture_test: the user-side torture of /dev/wsched (issue 12).
 *
 * For WSCHED_UTORTURE_SECONDS (default 20) several worker processes keep
 * graphs in flight through the rings: chains, diamonds and random DAGs
 * of nop, spin, fail, memset, memcpy, crc32c and memcmp nodes on
 * registered buffers, submitted whole or in parts, waited for in ENTER,
 * with poll() or not at all.  At random they register and unregister
 * their buffers, unmap and map their rings again, close their files with
 * graphs in flight (rings mapped or not, buffers unmapped or not) and
 * exit with files open.  Meanwhile the parent SIGKILLs workers and
 * starts new ones, a helper takes CPUs offline and online, and the
 * parent tries to unload the module, which must fail while its own file
 * is open.
 *
 * Every graph of a context that was not given up must complete exactly
 * once: each node completion once, after those of its predecessors and
 * before its graph's, with the result the graph's shape implies (a
 * failed node cancels its dependents), and every node's data (the bytes
 * memset and memcpy wrote, the checksums and comparisons) right; a
 * completion that was not expected, or a second one, is a failure even
 * in a context given up.  At the end nothing may be left: no open file
 * and no pinned page (debugfs wsched/dev), no context pool, no VmLck,
 * the user's locked memory back to zero, no new kmemleak report naming
 * wsched, every CPU online.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wsched_stats.h"
/* The reference CRC-32C (tools/libwsched/checksum.c, built in). */
#include "../../tools/libwsched/wsched.h"
#include "wsched_ring.h"

#define PAGE		4096UL
#define DBG_DEV		"/sys/kernel/debug/wsched/dev"
#define KMEMLEAK	"/sys/kernel/debug/kmemleak"
#define CPU_ONLINE	"/sys/devices/system/cpu/cpu%d/online"

#define NR_WORKERS	4
#define MAXN		16		/* nodes of a graph */
#define MAXG		2048		/* graphs of a context */
#define CELL		64		/* bytes node i of a graph owns */
#define SLOT		(MAXN * CELL)	/* a graph's part of a buffer */
#define NSLOTS		32
#define AREA		(NSLOTS * SLOT)	/* one registered buffer */
#define NAREAS		3
#define POISON		0xa5
#define MAX_SQ		64

/* user_data: magic, context, graph, node. */
#define UD_MAGIC	0x7574ULL
#define UD(gen, g, i)	(UD_MAGIC << 48 | (__u64)((gen) & 0xffff) << 32 | \
			 (__u64)(g) << 8 | (i))
#define UD_OK(ud, gen)	((ud) >> 32 == (UD_MAGIC << 16 | ((gen) & 0xffff)))
#define UD_G(ud)	((__u32)((ud) >> 8) & 0xffffff)
#define UD_I(ud)	((__u32)(ud) & 0xff)

/* ---- what every process shares -------------------------------------- */

struct ut_counts {
	unsigned long long contexts;
	unsigned long long graphs_submitted;	/* whose end entry was consumed */
	unsigned long long graphs_verified;	/* completed once, all checked */
	unsigned long long graphs_given_up;	/* in flight when given up */
	unsigned long long nodes_verified;
	unsigned long long data_checks;
	unsigned long long enters;
	unsigned long long partial_enters;	/* a graph left half consumed */
	unsigned long long enter_held;		/* EBUSY: completions held back */
	unsigned long long held_back;		/* the CQs' overflow counters */
	unsigned long long bufs_registered;
	unsigned long long bufs_unregistered;
	unsigned long long unregister_busy;
	unsigned long long ring_remaps;
	unsigned long long early_closes;
	unsigned long long early_exits;
	unsigned long long clean_closes;
};

struct ut_shared {
	int stop;
	int failed;
	char msg[1024];
	struct ut_counts c;
	unsigned long long cpu_off, cpu_on, cpu_busy;
	int hotplug_cpus;
};

static struct ut_shared *sh;

#define CNT(f, n)	__atomic_fetch_add(&sh->c.f, (n), __ATOMIC_RELAXED)

/* Older kselftest.h lack them. */
#ifndef __printf
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#endif
#ifndef __noreturn
#define __noreturn	__attribute__((__noreturn__))
#endif
static void ut_fail(const char *fmt, ...) __printf(1, 2) __noreturn;

/* A worker's failure: the first one is kept for the parent to report. */
static void ut_fail(const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!__atomic_exchange_n(&sh->failed, 1, __ATOMIC_SEQ_CST)) {
		n = snprintf(sh->msg, sizeof(sh->msg), "pid %d: ", getpid());
		va_start(ap, fmt);
		vsnprintf(sh->msg + n, sizeof(sh->msg) - n, fmt, ap);
		va_end(ap);
	}
	_exit(1);
}

static bool stopping(void)
{
	return __atomic_load_n(&sh->stop, __ATOMIC_RELAXED);
}

/* ---- a worker's contexts ----------------------------------------------- */

enum { OP_NONE = 0xff };
enum { G_FREE, G_PUSHED, G_STARTED, G_DONE, G_REFUSED };

/*
 * A graph as generated, and what it must come to.  Node i of a graph
 * with a slot owns the cell at SLOT * slot + CELL * i of buffer @buf.
 */
struct ut_graph {
	__u8 state;
	__u8 nr;
	__u8 buf;		/* OP_NONE: no data */
	__u8 slot;
	__u16 nocqe;		/* nodes that post no completion */
	__u16 soft;		/* WSCHED_NODE_SOFT_FAIL nodes */
	__u16 seen;		/* node completions seen */
	__u32 seqs;		/* seq numbers seen (bit seq) */
	__u32 start, end;	/* SQ indices of its first entry, after its last */
	__u16 preds[MAXN];	/* bit p: node p is a predecessor */
	__u8 op[MAXN];
	__u8 src[MAXN], src2[MAXN];	/* cells read by data ops */
	__s16 byte[MAXN];	/* a writer's byte; -1 for other ops */
	__u8 seq[MAXN];
	__u8 ran[MAXN];		/* expected: the op runs */
	__s32 res[MAXN];	/* expected res */
	__u32 arg[MAXN];	/* spin count, errno, crc seed */
	__s32 gres;		/* expected graph res */
	__u32 granu;		/* expected nodes run */
};

struct ut_ctx {
	struct ring r;
	bool open;
	unsigned int gen;
	unsigned char *area[NAREAS];	/* mappings (a page more than AREA) */
	unsigned char *buf[NAREAS];	/* what is registered, misaligned */
	unsigned int nr_bufs;		/* registered now */
	bool slot_used[NAREAS][NSLOTS];
	unsigned int next;		/* graphs generated */
	unsigned int consumed;		/* graphs whose entries were all consumed */
	unsigned int open_graphs;	/* started, graph completion not seen */
	__u32 overflow;
	bool capless;
};

static struct ut_graph tab[MAXG];
static __u32 predbuf[MAX_SQ][MAXN];
static unsigned int ctx_gen;

static unsigned char *cell(struct ut_ctx *c, struct ut_graph *g, unsigned int i)
{
	return c->buf[g->buf] + g->slot * SLOT + i * CELL;
}

static __u64 cell_off(struct ut_graph *g, unsigned int i)
{
	return g->slot * SLOT + i * CELL;
}

static bool is_writer(__u8 op)
{
	return op == WSCHED_OP_MEMSET || op == WSCHED_OP_MEMCPY;
}

static int ctx_register(struct ut_ctx *c, unsigned int nr)
{
	struct wsched_buf b[NAREAS];
	struct wsched_buf_reg reg = {
		.size = sizeof(reg), .nr = nr, .bufs_ptr = (uintptr_t)b,
	};
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		b[i].addr = (uintptr_t)c->buf[i];
		b[i].len = AREA;
	}
	ret = xioctl(c->r.fd, WSCHED_IOC_REGISTER_BUFFERS, &reg);
	if (ret)
		ut_fail("ctx %u: register %u buffers: %s%s", c->gen, nr,
			strerror(-ret), ret == -ENOMEM && c->capless ?
			" (the user's locked memory leaked?)" : "");
	c->nr_bufs = nr;
	CNT(bufs_registered, 1);
	return 0;
}

static void ctx_open(struct ut_ctx *c)
{
	static const unsigned int sq[] = { 16, 32, 64 };
	unsigned int i, s = sq[rnd() % 3];
	int ret;

	memset(c, 0, sizeof(*c));
	memset(tab, 0, sizeof(tab));
	c->gen = ++ctx_gen;
	/* A CQ as small as the SQ now and then: completions are held back. */
	ret = ring_open(&c->r, s, rnd() % 2 ? s : 0, 0);
	if (ret)
		ut_fail("open and set up a ring of %u: %s", s, strerror(-ret));
	c->open = true;
	for (i = 0; i < NAREAS; i++) {
		c->area[i] = mmap(NULL, AREA + PAGE, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (c->area[i] == MAP_FAILED)
			ut_fail("mmap: %s", strerror(errno));
		c->buf[i] = c->area[i] + rnd() % 64;
		memset(c->buf[i], POISON, AREA);
	}
	CNT(contexts, 1);
	if (rnd() % 4)
		ctx_register(c, 1 + rnd() % NAREAS);
}

static void ctx_unmap_areas(struct ut_ctx *c)
{
	unsigned int i;

	for (i = 0; i < NAREAS; i++)
		if (c->area[i])
			munmap(c->area[i], AREA + PAGE);
	memset(c->area, 0, sizeof(c->area));
}

/* ---- generating graphs ------------------------------------------------- */

static void pick_preds(struct ut_graph *g, unsigned int i, unsigned int shape)
{
	unsigned int p, w;

	g->preds[i] = 0;
	if (!i)
		return;
	switch (shape) {
	case 0:		/* chain */
		g->preds[i] = 1 << (i - 1);
		break;
	case 1:		/* diamonds: 0 -> 1..w -> w+1 -> ... */
		w = 2 + g->nr % 3;
		if ((i - 1) % (w + 1) < w)
			g->preds[i] = 1 << ((i - 1) / (w + 1) * (w + 1));
		else
			g->preds[i] = ((1 << w) - 1) << (i - w);
		break;
	default:	/* random DAG */
		for (p = 0; p < i; p++)
			if (rnd() % 4 == 0)
				g->preds[i] |= 1 << p;
		break;
	}
}

/* A data predecessor of node i, at random: a writer; or -1. */
static int data_pred(struct ut_graph *g, unsigned int i)
{
	unsigned int p, n = 0, pick;

	for (p = 0; p < i; p++)
		if ((g->preds[i] & (1 << p)) && is_writer(g->op[p]))
			n++;
	if (!n)
		return -1;
	pick = rnd() % n;
	for (p = 0; p < i; p++)
		if ((g->preds[i] & (1 << p)) && is_writer(g->op[p]) && !pick--)
			return p;
	return -1;
}

/* A free slot of a registered buffer, taken; false if none. */
static bool take_slot(struct ut_ctx *c, struct ut_graph *g)
{
	unsigned int k, b, s;

	if (!c->nr_bufs)
		return false;
	for (k = 0; k < 8; k++) {
		b = rnd() % c->nr_bufs;
		s = rnd() % NSLOTS;
		if (!c->slot_used[b][s]) {
			c->slot_used[b][s] = true;
			g->buf = b;
			g->slot = s;
			memset(cell(c, g, 0), POISON, SLOT);
			return true;
		}
	}
	return false;
}

static void gen_graph(struct ut_ctx *c, struct ut_graph *g)
{
	static const __u8 sizes[] = { 1, 1, 2, 3, 4, 5, 8, 12, 16 };
	unsigned int shape = rnd() % 3, i;
	int fail = -1, d, d2;
	__u16 blocks = 0;
	bool data;

	memset(g, 0, sizeof(*g));
	g->nr = sizes[rnd() % sizeof(sizes)];
	g->buf = OP_NONE;
	data = rnd() % 4 && take_slot(c, g);
	/* One graph in six has a failing node, hard or soft. */
	if (rnd() % 6 == 0)
		fail = rnd() % g->nr;
	for (i = 0; i < g->nr; i++) {
		pick_preds(g, i, shape);
		g->byte[i] = -1;
		if ((int)i == fail) {
			g->op[i] = WSCHED_OP_FAIL;
			g->arg[i] = 1 + rnd() % 200;
		} else if (!data || rnd() % 5 == 0) {
			g->op[i] = rnd() % 2 ? WSCHED_OP_NOP : WSCHED_OP_SPIN;
			if (g->op[i] == WSCHED_OP_SPIN)
				g->arg[i] = rnd() % 4000;
		} else {
			d = data_pred(g, i);
			d2 = data_pred(g, i);
			switch (d < 0 ? 0 : rnd() % 4) {
			case 0:
				g->op[i] = WSCHED_OP_MEMSET;
				g->byte[i] = 1 + rnd() % 254;
				if (g->byte[i] == POISON)
					g->byte[i]++;
				break;
			case 1:
				g->op[i] = WSCHED_OP_MEMCPY;
				g->src[i] = d;
				g->byte[i] = g->byte[d];
				break;
			case 2:
				g->op[i] = WSCHED_OP_CRC32C;
				g->src[i] = d;
				g->arg[i] = rnd();
				break;
			default:
				g->op[i] = WSCHED_OP_MEMCMP;
				g->src[i] = d;
				g->src2[i] = d2;
				break;
			}
		}
		if (rnd() % 4 == 0)
			g->nocqe |= 1 << i;
		/* What it must come to: a blocking predecessor cancels it. */
		g->ran[i] = !(g->preds[i] & blocks);
		if (!g->ran[i]) {
			g->res[i] = -ECANCELED;
			blocks |= 1 << i;
		} else if (g->op[i] == WSCHED_OP_FAIL) {
			g->res[i] = -(int)g->arg[i];
			g->gres = g->res[i];
			if (rnd() % 2)
				blocks |= 1 << i;
			else
				g->soft |= 1 << i;	/* dependents run anyway */
		}
		g->granu += g->ran[i];
	}
}

/* Queue graph @gid's entries; false if the SQ has no room. */
static bool push_graph(struct ut_ctx *c, unsigned int gid)
{
	struct ut_graph *g = &tab[gid];
	struct wsched_sqe e;
	unsigned int i, p, n;

	if (sq_room(&c->r) < g->nr)
		return false;
	g->start = c->r.tail;
	for (i = 0; i < g->nr; i++) {
		__u32 *preds = predbuf[c->r.tail & c->r.sq_mask];
		__u64 ud = UD(c->gen, gid, i);

		switch (g->op[i]) {
		case WSCHED_OP_NOP:
			sqe_nop(&e, ud);
			break;
		case WSCHED_OP_SPIN:
			sqe_op(&e, WSCHED_OP_SPIN, g->arg[i], ud);
			break;
		case WSCHED_OP_FAIL:
			sqe_op(&e, WSCHED_OP_FAIL, g->arg[i], ud);
			if (g->soft & (1 << i))
				e.flags |= WSCHED_NODE_SOFT_FAIL;
			break;
		case WSCHED_OP_MEMSET:
			sqe_range(&e, WSCHED_OP_MEMSET, g->buf, cell_off(g, i),
				  CELL, 0, g->byte[i], ud);
			break;
		case WSCHED_OP_MEMCPY:
			sqe_range(&e, WSCHED_OP_MEMCPY, g->buf, cell_off(g, i),
				  CELL, g->buf, cell_off(g, g->src[i]), ud);
			break;
		case WSCHED_OP_CRC32C:
			sqe_range(&e, WSCHED_OP_CRC32C, g->buf,
				  cell_off(g, g->src[i]), CELL, 0, g->arg[i], ud);
			break;
		default:
			sqe_range(&e, WSCHED_OP_MEMCMP, g->buf,
				  cell_off(g, g->src[i]), CELL, g->buf,
				  cell_off(g, g->src2[i]), ud);
			break;
		}
		for (p = 0, n = 0; p < i; p++)
			if (g->preds[i] & (1 << p))
				preds[n++] = p;
		sqe_preds(&e, preds, n);
		if (g->nocqe & (1 << i))
			e.flags |= WSCHED_SQE_NO_CQE;
		if (i == g->nr - 1U)
			e.flags |= WSCHED_SQE_GRAPH_END;
		sq_push(&c->r, &e);
	}
	g->end = c->r.tail;
	g->state = G_PUSHED;
	return true;
}

/* ---- completions --------------------------------------------------------- */

static void free_slot(struct ut_ctx *c, struct ut_graph *g)
{
	if (g->buf != OP_NONE)
		c->slot_used[g->buf][g->slot] = false;
}

static void check_node(struct ut_ctx *c, unsigned int gid, struct ut_graph *g,
		       const struct wsched_cqe *q)
{
	unsigned int i = UD_I(q->user_data), p;
	__u32 want_flags;
	__s64 want_value = 0;

	if (i >= g->nr)
		ut_fail("ctx %u graph %u: completion of node %u of %u", c->gen,
			gid, i, g->nr);
	if (g->nocqe & (1 << i))
		ut_fail("ctx %u graph %u node %u: a completion with NO_CQE",
			c->gen, gid, i);
	if (g->seen & (1 << i))
		ut_fail("ctx %u graph %u node %u: completed twice", c->gen, gid, i);
	g->seen |= 1 << i;
	if (!q->seq || q->seq > g->nr || (g->seqs & (1U << q->seq)))
		ut_fail("ctx %u graph %u node %u: seq %u (seen %#x, %u nodes)",
			c->gen, gid, i, q->seq, g->seqs, g->nr);
	g->seqs |= 1U << q->seq;
	g->seq[i] = q->seq;
	for (p = 0; p < i; p++) {
		if (!(g->preds[i] & (1 << p)) || (g->nocqe & (1 << p)))
			continue;
		if (!(g->seen & (1 << p)) || g->seq[p] >= q->seq)
			ut_fail("ctx %u graph %u: node %u (seq %u) completed before its predecessor %u (%s, seq %u)",
				c->gen, gid, i, q->seq, p,
				g->seen & (1 << p) ? "seen" : "not seen yet",
				g->seq[p]);
	}
	want_flags = g->ran[i] ? WSCHED_RES_RAN : WSCHED_RES_DEP_FAILED;
	if (g->ran[i] && g->op[i] == WSCHED_OP_CRC32C) {
		unsigned char ref[CELL];

		memset(ref, g->byte[g->src[i]], CELL);
		want_value = wsched_crc32c_sw(g->arg[i], ref, CELL);
		CNT(data_checks, 1);
	} else if (g->ran[i] && g->op[i] == WSCHED_OP_MEMCMP) {
		int a = g->byte[g->src[i]], b = g->byte[g->src2[i]];

		want_value = a < b ? -1 : a > b;
		CNT(data_checks, 1);
	}
	if (q->res != g->res[i] || q->flags != want_flags ||
	    (__s64)q->value != want_value)
		ut_fail("ctx %u graph %u node %u (op %u): res %d flags %#x value %#llx, want %d %#x %#llx",
			c->gen, gid, i, g->op[i], q->res, q->flags,
			(unsigned long long)q->value, g->res[i], want_flags,
			(unsigned long long)want_value);
	CNT(nodes_verified, 1);
}

static void check_data(struct ut_ctx *c, unsigned int gid, struct ut_graph *g)
{
	unsigned int i, k;

	if (g->buf == OP_NONE)
		return;
	for (i = 0; i < g->nr; i++) {
		const unsigned char *p = cell(c, g, i);
		int want = g->ran[i] && is_writer(g->op[i]) ? g->byte[i] : POISON;

		for (k = 0; k < CELL; k++)
			if (p[k] != want)
				ut_fail("ctx %u graph %u node %u (op %u, %s): byte %u is %#x, want %#x",
					c->gen, gid, i, g->op[i],
					g->ran[i] ? "ran" : "cancelled", k,
					p[k], want);
	}
	CNT(data_checks, 1);
}

static void check_graph(struct ut_ctx *c, unsigned int gid, struct ut_graph *g,
			const struct wsched_cqe *q)
{
	__u16 all = (1U << g->nr) - 1;

	if (UD_I(q->user_data) != g->nr - 1U)
		ut_fail("ctx %u graph %u: graph completion with node %u's user_data",
			c->gen, gid, UD_I(q->user_data));
	if (g->seen != (all & ~g->nocqe))
		ut_fail("ctx %u graph %u: graph completed before its nodes (seen %#x, want %#x)",
			c->gen, gid, g->seen, all & ~g->nocqe);
	if (q->res != g->gres || q->flags != WSCHED_CQE_GRAPH ||
	    q->value != g->granu || q->seq != g->nr)
		ut_fail("ctx %u graph %u: res %d flags %#x value %llu seq %u, want %d %#x %u %u",
			c->gen, gid, q->res, q->flags,
			(unsigned long long)q->value, q->seq, g->gres,
			(unsigned int)WSCHED_CQE_GRAPH, g->granu, g->nr);
	check_data(c, gid, g);
	g->state = G_DONE;
	c->open_graphs--;
	free_slot(c, g);
	CNT(graphs_verified, 1);
}

static void check_cqe(struct ut_ctx *c, const struct wsched_cqe *q)
{
	unsigned int gid = UD_G(q->user_data);
	struct ut_graph *g;

	if (!UD_OK(q->user_data, c->gen) || gid >= c->next)
		ut_fail("ctx %u: completion of nothing submitted: user_data %#llx flags %#x",
			c->gen, (unsigned long long)q->user_data, q->flags);
	g = &tab[gid];
	if (g->state != G_STARTED)
		ut_fail("ctx %u graph %u: a completion (flags %#x, node %u) of a graph %s",
			c->gen, gid, q->flags, UD_I(q->user_data),
			g->state == G_DONE ? "already complete" :
			g->state == G_REFUSED ? "refused" : "not consumed");
	if (q->flags & WSCHED_CQE_GRAPH)
		check_graph(c, gid, g, q);
	else
		check_node(c, gid, g, q);
}

static unsigned int reap(struct ut_ctx *c)
{
	struct wsched_cqe q[64];
	unsigned int n, i, total = 0;
	__u32 ov;

	do {
		n = ring_reap(&c->r, q, 64);
		for (i = 0; i < n; i++)
			check_cqe(c, &q[i]);
		total += n;
	} while (n);
	ov = *c->r.cq_overflow;
	if (ov != c->overflow) {
		CNT(held_back, ov - c->overflow);
		c->overflow = ov;
	}
	return total;
}

/* ---- submitting ---------------------------------------------------------- */

/*
 * Mark the graphs whose entries the kernel consumed: those whose end
 * entry is below its SQ head.  Every graph is valid, so ENTER may only
 * fail with nothing refused: EAGAIN, EBUSY, ETIME or EINTR.
 */
static void consumed(struct ut_ctx *c, int ret, const struct wsched_enter *e)
{
	__u32 head = load_acq(c->r.sq_head);

	while (c->consumed < c->next &&
	       (__s32)(head - tab[c->consumed].end) >= 0) {
		tab[c->consumed].state = G_STARTED;
		c->open_graphs++;
		CNT(graphs_submitted, 1);
		c->consumed++;
	}
	if (c->consumed < c->next && head != tab[c->consumed].start)
		CNT(partial_enters, 1);
	if (ret && ret != -EAGAIN && ret != -EBUSY && ret != -ETIME &&
	    ret != -EINTR)
		ut_fail("ctx %u: ENTER: %s (%u entries taken, sq_error %d; graph %u is the last taken)",
			c->gen, strerror(-ret), e->submitted, e->sq_error,
			c->consumed - 1);
}

static void enter(struct ut_ctx *c, unsigned int how)
{
	__u32 pending = c->r.tail - load_acq(c->r.sq_head);
	struct wsched_enter e;
	int ret;

	if (how == 2 && pending > 1)
		pending = 1 + rnd() % pending;
	if (how == 1)
		ret = ring_enter(&c->r, pending, 1, WSCHED_ENTER_GETEVENTS,
				 200 * MS_NS, &e);
	else
		ret = ring_enter(&c->r, pending, 0, 0, 0, &e);
	CNT(enters, 1);
	if (ret == -EBUSY)
		CNT(enter_held, 1);
	consumed(c, ret, &e);
	reap(c);
}

static void submit_some(struct ut_ctx *c)
{
	unsigned int k, n = 1 + rnd() % 4;

	for (k = 0; k < n && c->next < MAXG; k++) {
		struct ut_graph *g = &tab[c->next];

		gen_graph(c, g);
		if (!push_graph(c, c->next)) {
			free_slot(c, g);
			memset(g, 0, sizeof(*g));
			break;
		}
		c->next++;
	}
	enter(c, rnd() % 3);
}

/*
 * Unregister the buffers: refused (EBUSY) while a graph is half
 * consumed; refused or not while graphs run; never refused when nothing
 * is in flight.  Only tried when no queued entry uses them unconsumed.
 */
static void try_unregister(struct ut_ctx *c)
{
	__u32 head = load_acq(c->r.sq_head);
	bool partial = c->consumed < c->next && head != tab[c->consumed].start;
	int ret;

	if (!c->nr_bufs)
		return;
	if (c->r.tail != head && !partial)
		return;
	ret = xioctl(c->r.fd, WSCHED_IOC_UNREGISTER_BUFFERS, NULL);
	if (!ret) {
		if (partial)
			ut_fail("ctx %u: unregistered with graph %u half consumed",
				c->gen, c->consumed);
		c->nr_bufs = 0;
		CNT(bufs_unregistered, 1);
	} else if (ret == -EBUSY) {
		if (!partial && !c->open_graphs)
			ut_fail("ctx %u: unregister EBUSY with nothing in flight",
				c->gen);
		CNT(unregister_busy, 1);
	} else {
		ut_fail("ctx %u: unregister: %s", c->gen, strerror(-ret));
	}
}

/* Unmap the rings and map them again: nothing is lost. */
static void remap(struct ut_ctx *c)
{
	__u32 tail = c->r.tail;
	int ret;

	ring_unmap(&c->r);
	ret = ring_map(&c->r);
	if (ret)
		ut_fail("ctx %u: mmap the rings again: %s", c->gen, strerror(-ret));
	c->r.tail = tail;
	CNT(ring_remaps, 1);
}

/* Wait for every graph of the context, at most 60 s; all must complete. */
static void drain(struct ut_ctx *c)
{
	__u64 deadline = now_ns() + 60 * SEC_NS;
	unsigned int gid;

	while (c->consumed < c->next || c->open_graphs) {
		if (now_ns() > deadline)
			ut_fail("ctx %u: %u graphs not complete after 60 s (%u consumed of %u, CQ overflow %u)",
				c->gen, c->open_graphs, c->consumed, c->next,
				*c->r.cq_overflow);
		if (c->consumed < c->next) {
			enter(c, 0);
			continue;
		}
		ring_wait(&c->r, 1, 500);
		reap(c);
	}
	for (gid = 0; gid < c->next; gid++)
		if (tab[gid].state != G_DONE)
			ut_fail("ctx %u graph %u: state %u after waiting for all",
				c->gen, gid, tab[gid].state);
}

static void ctx_close_clean(struct ut_ctx *c)
{
	drain(c);
	if (c->nr_bufs && rnd() % 2) {
		try_unregister(c);
		if (c->nr_bufs)
			ut_fail("ctx %u: unregister refused with nothing in flight",
				c->gen);
	}
	ring_close(&c->r);
	ctx_unmap_areas(c);
	c->open = false;
	CNT(clean_closes, 1);
}

/*
 * Give the context up with graphs in flight: close the file with the
 * rings mapped (completions still come, and are checked) or unmapped,
 * with the buffers' memory unmapped first or not.
 */
static void ctx_give_up(struct ut_ctx *c)
{
	unsigned int how = rnd() % 4;
	__u64 until;

	if (how == 3)
		ctx_unmap_areas(c);
	CNT(graphs_given_up, c->open_graphs + (c->next - c->consumed));
	if (how == 0) {
		/* The mapping keeps the file: graphs finish and post. */
		close(c->r.fd);
		c->r.fd = -1;
		until = now_ns() + 20 * MS_NS;
		while (now_ns() < until)
			reap(c);
	}
	ring_close(&c->r);
	ctx_unmap_areas(c);
	c->open = false;
	CNT(early_closes, 1);
}

static void worker(unsigned int id, __u64 seed)
{
	struct ut_ctx c = { .open = false };
	struct rlimit rl = { 16 << 20, 16 << 20 };
	struct pollfd pfd;
	unsigned int a;

	rnd_seed(seed);
	/* Half the workers are charged to the user's locked memory. */
	if (rnd() % 2 && !setrlimit(RLIMIT_MEMLOCK, &rl) && !drop_cap_ipc_lock())
		c.capless = true;
	for (;;) {
		if (!c.open) {
			bool capless = c.capless;

			ctx_open(&c);
			c.capless = capless;
		}
		if (stopping()) {
			ctx_close_clean(&c);
			_exit(0);
		}
		if (c.next >= MAXG) {
			ctx_close_clean(&c);
			continue;
		}
		a = rnd() % 1000;
		if (a < 550) {
			submit_some(&c);
		} else if (a < 700) {
			reap(&c);
			if (c.open_graphs)
				ring_wait(&c.r, 1, 100);
			reap(&c);
		} else if (a < 760) {
			pfd.fd = c.r.fd;
			pfd.events = POLLIN;
			if (poll(&pfd, 1, 50) < 0)
				ut_fail("poll: %s", strerror(errno));
			reap(&c);
		} else if (a < 820) {
			try_unregister(&c);
		} else if (a < 850) {
			if (!c.nr_bufs)
				ctx_register(&c, 1 + rnd() % NAREAS);
		} else if (a < 900) {
			remap(&c);
		} else if (a < 930) {
			ctx_close_clean(&c);
		} else if (a < 960) {
			ctx_give_up(&c);
		} else if (a < 963) {
			/* Die with the context open, graphs in flight. */
			CNT(graphs_given_up, c.open_graphs + (c.next - c.consumed));
			CNT(early_exits, 1);
			_exit(3);
		} else {
			usleep(rnd() % 2000);
		}
	}
	(void)id;
}

/* ---- the parent's helpers ------------------------------------------------ */

static int read_dev_stats(long *files, long *pinned)
{
	FILE *f = fopen(DBG_DEV, "r");
	int n;

	if (!f)
		return -1;
	n = fscanf(f, "files %ld pinned_pages %ld", files, pinned);
	fclose(f);
	return n == 2 ? 0 : -1;
}

static int cpu_online_fd(int cpu, int flags)
{
	char path[64];

	snprintf(path, sizeof(path), CPU_ONLINE, cpu);
	return open(path, flags | O_CLOEXEC);
}

/* 1 online, 0 offline, -1 no such file. */
static int cpu_online(int cpu)
{
	int fd = cpu_online_fd(cpu, O_RDONLY);
	char c = '1';

	if (fd < 0)
		return -1;
	if (read(fd, &c, 1) != 1)
		c = '1';
	close(fd);
	return c == '1';
}

static int cpu_set_online(int cpu, int on)
{
	int fd = cpu_online_fd(cpu, O_WRONLY), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, on ? "1" : "0", 1) != 1)
		ret = -errno;
	close(fd);
	return ret;
}

static int nr_cpus(void)
{
	unsigned char map[WS_STATS_MAXCPU];
	int n = ws_cpulist("/sys/devices/system/cpu/possible", map);

	return n > 0 ? n : 1;
}

/* The hotplug helper: a random CPU but 0 offline or online, until told. */
static void hotplug_actor(__u64 seed)
{
	int cpus = nr_cpus(), cpu, on, ret;

	rnd_seed(seed);
	while (!stopping()) {
		usleep(50000 + rnd() % 200000);
		cpu = 1 + rnd() % (cpus - 1);
		on = cpu_online(cpu);
		if (on < 0)
			continue;
		ret = cpu_set_online(cpu, !on);
		if (!ret)
			__atomic_fetch_add(on ? &sh->cpu_off : &sh->cpu_on, 1,
					   __ATOMIC_RELAXED);
		else
			__atomic_fetch_add(&sh->cpu_busy, 1, __ATOMIC_RELAXED);
	}
	for (cpu = 1; cpu < cpus; cpu++)
		if (cpu_online(cpu) == 0 && !cpu_set_online(cpu, 1))
			__atomic_fetch_add(&sh->cpu_on, 1, __ATOMIC_RELAXED);
	_exit(0);
}

/* A CPU but 0 that can go offline, or 0. */
static int hotplug_possible(void)
{
	int cpus = nr_cpus(), cpu;
	char path[64];

	for (cpu = 1; cpu < cpus; cpu++) {
		snprintf(path, sizeof(path), CPU_ONLINE, cpu);
		if (!access(path, W_OK))
			return cpu;
	}
	return 0;
}

/*
 * The user's locked memory is back to zero: a process without
 * CAP_IPC_LOCK whose RLIMIT_MEMLOCK is 16 pages can register 16 pages,
 * which it could not if the user were still charged for any.
 */
static int user_charge_clean(void)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		struct rlimit rl = { 16 * PAGE, 16 * PAGE };
		struct wsched_buf b;
		struct wsched_buf_reg reg = {
			.size = sizeof(reg), .nr = 1, .bufs_ptr = (uintptr_t)&b,
		};
		void *mem = mmap(NULL, 16 * PAGE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int fd = dev_open();

		if (mem == MAP_FAILED || fd < 0 || setrlimit(RLIMIT_MEMLOCK, &rl) ||
		    drop_cap_ipc_lock())
			_exit(2);
		b.addr = (uintptr_t)mem;
		b.len = 16 * PAGE;
		_exit(xioctl(fd, WSCHED_IOC_REGISTER_BUFFERS, &reg) ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* kmemleak's reports that name wsched, as a count; -1 without kmemleak. */
static int kmemleak_wsched(bool scan)
{
	char line[512];
	int n = 0, fd;
	FILE *f;

	if (access(KMEMLEAK, W_OK))
		return -1;
	if (scan) {
		fd = open(KMEMLEAK, O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (write(fd, "scan", 4) != 4)
				n = 0;
			close(fd);
		}
	}
	f = fopen(KMEMLEAK, "r");
	if (!f)
		return -1;
	/* One report per object; count the objects whose trace names us. */
	{
		bool in = false, named = false;

		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "unreferenced object", 19)) {
				n += in && named;
				in = true;
				named = false;
			} else if (strstr(line, "wsched") || strstr(line, "wsd_")) {
				named = true;
			}
		}
		n += in && named;
	}
	fclose(f);
	return n;
}

static unsigned int env_uint(const char *name, unsigned int def)
{
	const char *s = getenv(name);

	return s && *s ? strtoul(s, NULL, 0) : def;
}

/* ---- the test ---------------------------------------------------------- */

FIXTURE(utorture) {
	int fd;
};

FIXTURE_SETUP(utorture)
{
	self->fd = dev_open();
}

FIXTURE_TEARDOWN(utorture)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F_TIMEOUT(utorture, processes_killed_cpus_unplugged, 600)
{
	unsigned int secs = env_uint("WSCHED_UTORTURE_SECONDS", 20);
	unsigned int nw = env_uint("WSCHED_UTORTURE_WORKERS", NR_WORKERS);
	unsigned long long kills = 0, spawns = 0, rmmod_refused = 0;
	long files0, pinned0, files, pinned, lck0;
	pid_t pids[16], hp = 0;
	int leaks0, leaks, pools0, i, status, cpus, bad_exit = 0;
	__u64 t0, deadline, next_kill, next_rmmod, seed = 0x75746f72ULL;
	bool rmmod = true;
	char rmmod_why[64] = "";

	if (self->fd < 0) {
		SKIP(return, "no %s: %s", DEV_PATH, strerror(errno));
	}
	ASSERT_EQ(0, read_dev_stats(&files0, &pinned0))
		TH_LOG("no %s (debugfs not mounted, or an old wsched.ko)", DBG_DEV);
	if (nw > 16)
		nw = 16;
	pools0 = ws_user_pools(NULL);
	lck0 = vmlck_kb();
	leaks0 = kmemleak_wsched(false);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	rnd_seed(seed ^ getpid());

	sh->hotplug_cpus = hotplug_possible();
	if (sh->hotplug_cpus) {
		hp = fork();
		ASSERT_LE(0, hp);
		if (!hp)
			hotplug_actor(rnd());
	}
	t0 = now_ns();
	deadline = t0 + secs * SEC_NS;
	for (i = 0; i < (int)nw; i++) {
		__u64 s = rnd();

		pids[i] = fork();
		ASSERT_LE(0, pids[i]);
		if (!pids[i])
			worker(i, s);
		spawns++;
	}
	next_kill = t0 + (300 + rnd() % 700) * MS_NS;
	next_rmmod = t0 + 100 * MS_NS;
	while (now_ns() < deadline && !sh->failed) {
		__u64 now = now_ns();

		usleep(20000);
		for (i = 0; i < (int)nw; i++) {
			pid_t p = waitpid(pids[i], &status, WNOHANG);
			__u64 s = rnd();

			if (p != pids[i])
				continue;
			/* 0: stopped; 3: died on purpose; SIGKILL: ours. */
			if (!(WIFEXITED(status) && WEXITSTATUS(status) == 3) &&
			    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)) {
				bad_exit = status;
				break;
			}
			pids[i] = fork();
			ASSERT_LE(0, pids[i]);
			if (!pids[i])
				worker(i, s);
			spawns++;
		}
		if (bad_exit)
			break;
		if (now >= next_kill) {
			kill(pids[rnd() % nw], SIGKILL);
			kills++;
			next_kill = now + (100 + rnd() % 600) * MS_NS;
		}
		if (rmmod && now >= next_rmmod) {
			/* Our file is open: the module must stay. */
			if (!syscall(SYS_delete_module, "wsched", O_NONBLOCK)) {
				snprintf(rmmod_why, sizeof(rmmod_why),
					 "delete_module(wsched) succeeded with a file open");
				break;
			}
			if (errno == EAGAIN || errno == EBUSY) {
				rmmod_refused++;
			} else {
				snprintf(rmmod_why, sizeof(rmmod_why), "%s",
					 strerror(errno));
				rmmod = false;
			}
			next_rmmod = now + (50 + rnd() % 200) * MS_NS;
		}
	}
	/* Stop: every worker drains its context and exits. */
	__atomic_store_n(&sh->stop, 1, __ATOMIC_SEQ_CST);
	for (i = 0; i < (int)nw; i++) {
		__u64 until = now_ns() + 120 * SEC_NS;
		pid_t p;

		while ((p = waitpid(pids[i], &status, WNOHANG)) == 0 &&
		       now_ns() < until)
			usleep(10000);
		if (p == 0) {
			kill(pids[i], SIGKILL);
			waitpid(pids[i], &status, 0);
			EXPECT_EQ(0, 1) TH_LOG("worker %d did not stop in 120 s", pids[i]);
			continue;
		}
		if (!(WIFEXITED(status) && (WEXITSTATUS(status) == 0 ||
					    WEXITSTATUS(status) == 3)) &&
		    !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL))
			bad_exit = status;
	}
	if (hp) {
		ASSERT_EQ(hp, waitpid(hp, &status, 0));
		EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	}

	TH_LOG("%.1f s, %u workers: %llu contexts, %llu graphs submitted, %llu completed exactly once and verified (%llu nodes, %llu data checks), %llu given up in flight",
	       (now_ns() - t0) / 1e9, nw, sh->c.contexts, sh->c.graphs_submitted,
	       sh->c.graphs_verified, sh->c.nodes_verified, sh->c.data_checks,
	       sh->c.graphs_given_up);
	TH_LOG("%llu processes killed, %llu exited with files open, %llu spawned; %llu closes with graphs in flight, %llu clean; %llu ring remaps; %llu ENTERs (%llu left a graph half consumed, %llu EBUSY), %llu completions held back",
	       kills, sh->c.early_exits, spawns, sh->c.early_closes,
	       sh->c.clean_closes, sh->c.ring_remaps, sh->c.enters,
	       sh->c.partial_enters, sh->c.enter_held, sh->c.held_back);
	TH_LOG("buffers registered %llu, unregistered %llu (%llu refused busy); CPU offline %llu, online %llu (%llu refused); rmmod refused %llu%s%s",
	       sh->c.bufs_registered, sh->c.bufs_unregistered,
	       sh->c.unregister_busy, sh->cpu_off, sh->cpu_on, sh->cpu_busy,
	       rmmod_refused, rmmod_why[0] ? ", " : "", rmmod_why);
	if (!sh->hotplug_cpus)
		TH_LOG("no CPU hotplug: no writable %s", "cpu1/online");

	EXPECT_EQ(0, sh->failed) TH_LOG("%s", sh->msg);
	EXPECT_EQ(0, bad_exit) TH_LOG("a worker ended with status %#x", bad_exit);
	EXPECT_EQ(NULL, strstr(rmmod_why, "succeeded"));
	EXPECT_LT(0, sh->c.graphs_verified);

	/* Every CPU is back. */
	cpus = nr_cpus();
	for (i = 1; i < cpus; i++)
		EXPECT_NE(0, cpu_online(i)) TH_LOG("CPU %d is offline", i);

	/* Nothing outlived its process: only our own file is open. */
	for (i = 0; i < 2000; i++) {
		if (!read_dev_stats(&files, &pinned) && files == files0 &&
		    pinned == pinned0)
			break;
		usleep(10000);
	}
	EXPECT_EQ(files0, files) TH_LOG("open files of /dev/wsched");
	EXPECT_EQ(pinned0, pinned) TH_LOG("pages still pinned");
	EXPECT_EQ(pools0, ws_wait_user_pools(pools0));
	EXPECT_EQ(lck0, vmlck_kb());
	close(self->fd);
	self->fd = -1;
	ASSERT_EQ(0, read_dev_stats(&files, &pinned));
	EXPECT_EQ(files0 - 1, files);
	EXPECT_EQ(0, user_charge_clean())
		TH_LOG("the user's locked memory was not given back");
	leaks = kmemleak_wsched(true);
	if (leaks >= 0) {
		EXPECT_EQ(leaks0, leaks) TH_LOG("kmemleak reports naming wsched");
		TH_LOG("kmemleak: %d reports naming wsched before, %d after",
		       leaks0, leaks);
	}
	munmap(sh, sizeof(*sh));
}

TEST_HARNESS_MAIN
