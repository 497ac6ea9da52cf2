/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring helper the wsched selftests share: open /dev/wsched, set up
 * and map the rings, push entries, ENTER, reap completions, through the
 * raw uapi (uapi/linux/wsched.h).  Also the small helpers they share:
 * failure messages (why(), EXPECT_OK()), reading and writing control
 * files, a seeded random generator, VmLck.  Include after kselftest_harness.h.
 */
#ifndef WSCHED_RING_H
#define WSCHED_RING_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/wsched.h>

#ifndef DEV_PATH
#define DEV_PATH	"/dev/wsched"
#endif
#define SEC_NS		1000000000ULL
#define MS_NS		1000000ULL

/* ---------------------------------------------------------------------
 * Small helpers.
 */
static __thread char why_buf[1024];

/* Format a failure message; the checkers return it (NULL: success). */
static inline const char *why(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static inline const char *why(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why_buf, sizeof(why_buf), fmt, ap);
	va_end(ap);
	return why_buf;
}

/*
 * Expect a checker to return NULL, else log what it said; a TH_LOG() may
 * follow, as after the harness's own EXPECT_*().
 */
static inline const char *log_why(struct __test_metadata *m, const char *w)
{
	if (w)
		fprintf(stderr, "# %s: %s\n", m->name, w);
	return w;
}
#define EXPECT_OK(expr)	EXPECT_EQ(NULL, log_why(_metadata, (expr)))
#define ASSERT_OK(expr)	ASSERT_EQ(NULL, log_why(_metadata, (expr)))

/* Write a string to a sysfs, debugfs or procfs file; 0 or -errno. */
static inline int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		ret = -errno;
	close(fd);
	return ret;
}

/* Read such a file, its last newline dropped; 0 or -errno. */
static inline int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	if (n && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	return 0;
}

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * SEC_NS + ts.tv_nsec;
}

static inline int dev_open(void)
{
	return open(DEV_PATH, O_RDWR | O_CLOEXEC);
}

static inline int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static inline int do_probe(int fd, struct wsched_probe *p)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	return xioctl(fd, WSCHED_IOC_PROBE, p);
}

static inline unsigned long long nodes_run(int fd)
{
	struct wsched_probe p;

	if (do_probe(fd, &p))
		return ~0ULL;
	return p.nodes_run;
}

/* Per thread: each thread seeds its own sequence. */
static __thread __u64 rnd_state;

static inline __u32 rnd(void)
{
	/* xorshift64 */
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state >> 32;
}

static inline void rnd_seed(__u64 seed)
{
	rnd_state = seed * 0x9E3779B97F4A7C15ULL | 1;
	rnd();
}

static inline void fill_random(void *p, size_t len)
{
	unsigned char *c = p;
	size_t i;

	for (i = 0; i < len; i++)
		c[i] = rnd() >> 24;
}

/* VmLck of this process in kB, or -1. */
static inline long vmlck_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmLck: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---------------------------------------------------------------------
 * The ring helper: setup, mmap, push entries, ENTER, reap completions.
 * The SQ tail and CQ head are ours (release stores publish them), the SQ
 * head and CQ tail the kernel's (read with acquire loads).
 */
struct ring {
	int fd;
	struct wsched_setup s;
	void *sqm, *cqm;
	__u32 *sq_head, *sq_tail, sq_mask, sq_entries;
	struct wsched_sqe *sqes;
	__u32 *cq_head, *cq_tail, *cq_overflow, cq_mask, cq_entries;
	struct wsched_cqe *cqes;
	__u32 tail;		/* our SQ tail, published by ring_enter() */
};

static inline __u32 load_acq(const __u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static inline void store_rel(__u32 *p, __u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline void setup_init(struct wsched_setup *s, __u32 sq, __u32 cq, __u32 flags)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->flags = flags;
	s->sq_entries = sq;
	s->cq_entries = cq;
}

/* Map the rings of a file set up with @r->s (SETUP filled it); 0 or -errno. */
static inline int ring_map(struct ring *r)
{
	r->sqm = mmap(NULL, r->s.sq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, WSCHED_OFF_SQ_RING);
	if (r->sqm == MAP_FAILED)
		return -errno;
	r->cqm = mmap(NULL, r->s.cq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		      r->fd, WSCHED_OFF_CQ_RING);
	if (r->cqm == MAP_FAILED)
		return -errno;
	r->sq_head = (__u32 *)((char *)r->sqm + r->s.sq_off.head);
	r->sq_tail = (__u32 *)((char *)r->sqm + r->s.sq_off.tail);
	r->sq_mask = *(__u32 *)((char *)r->sqm + r->s.sq_off.ring_mask);
	r->sq_entries = *(__u32 *)((char *)r->sqm + r->s.sq_off.ring_entries);
	r->sqes = (struct wsched_sqe *)((char *)r->sqm + r->s.sq_off.entries);
	r->cq_head = (__u32 *)((char *)r->cqm + r->s.cq_off.head);
	r->cq_tail = (__u32 *)((char *)r->cqm + r->s.cq_off.tail);
	r->cq_overflow = (__u32 *)((char *)r->cqm + r->s.cq_off.overflow);
	r->cq_mask = *(__u32 *)((char *)r->cqm + r->s.cq_off.ring_mask);
	r->cq_entries = *(__u32 *)((char *)r->cqm + r->s.cq_off.ring_entries);
	r->cqes = (struct wsched_cqe *)((char *)r->cqm + r->s.cq_off.entries);
	r->tail = load_acq(r->sq_tail);
	return 0;
}

/* Start @r on the open file @fd, set up nothing, mapped nothing. */
static inline void ring_init(struct ring *r, int fd, __u32 sq, __u32 cq, __u32 flags)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->sqm = r->cqm = MAP_FAILED;
	setup_init(&r->s, sq, cq, flags);
}

/* SETUP an open file and map its rings; 0 or -errno. */
static inline int ring_setup_fd(struct ring *r, int fd, __u32 sq, __u32 cq, __u32 flags)
{
	int ret;

	ring_init(r, fd, sq, cq, flags);
	ret = xioctl(fd, WSCHED_IOC_SETUP, &r->s);
	return ret ? ret : ring_map(r);
}

static inline int ring_open(struct ring *r, __u32 sq, __u32 cq, __u32 flags)
{
	int fd = dev_open(), ret;

	if (fd < 0)
		return -errno;
	ret = ring_setup_fd(r, fd, sq, cq, flags);
	if (ret) {
		close(fd);
		r->fd = -1;
	}
	return ret;
}

static inline void ring_unmap(struct ring *r)
{
	if (r->sqm != MAP_FAILED && r->sqm)
		munmap(r->sqm, r->s.sq_size);
	if (r->cqm != MAP_FAILED && r->cqm)
		munmap(r->cqm, r->s.cq_size);
	r->sqm = r->cqm = MAP_FAILED;
}

static inline void ring_close(struct ring *r)
{
	ring_unmap(r);
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}

/* Entries the kernel has not consumed yet (published or not). */
static inline __u32 sq_pending(const struct ring *r)
{
	return r->tail - load_acq(r->sq_head);
}

static inline __u32 sq_room(const struct ring *r)
{
	return r->sq_entries - sq_pending(r);
}

/* Copy @e into the next free slot (not published yet); false if full. */
static inline bool sq_push(struct ring *r, const struct wsched_sqe *e)
{
	if (!sq_room(r))
		return false;
	r->sqes[r->tail & r->sq_mask] = *e;
	r->tail++;
	return true;
}

/* Publish our SQ tail and call ENTER; 0 or -errno, *out filled. */
static inline int ring_enter(struct ring *r, __u32 to_submit, __u32 min_complete,
		      __u32 flags, __u64 timeout_ns, struct wsched_enter *out)
{
	struct wsched_enter e;
	int ret;

	store_rel(r->sq_tail, r->tail);
	memset(&e, 0, sizeof(e));
	e.size = sizeof(e);
	e.flags = flags;
	e.to_submit = to_submit;
	e.min_complete = min_complete;
	e.timeout_ns = timeout_ns;
	e.submitted = 0xdeadbeef;
	e.sq_error = 0x5a5a5a5a;
	ret = xioctl(r->fd, WSCHED_IOC_ENTER, &e);
	if (out)
		*out = e;
	return ret;
}

/* Submit everything pending; 0 or -errno. */
static inline int ring_submit(struct ring *r, struct wsched_enter *out)
{
	return ring_enter(r, sq_pending(r), 0, 0, 0, out);
}

/* Wait until @min completions are ready (or held back), at most @ms. */
static inline int ring_wait(struct ring *r, __u32 min, unsigned int ms)
{
	return ring_enter(r, 0, min, WSCHED_ENTER_GETEVENTS, ms * MS_NS, NULL);
}

static inline __u32 cq_ready(const struct ring *r)
{
	return load_acq(r->cq_tail) - *r->cq_head;
}

/* Copy up to @max completions out and give their slots back. */
static inline unsigned int ring_reap(struct ring *r, struct wsched_cqe *out,
			      unsigned int max)
{
	__u32 head = *r->cq_head, tail = load_acq(r->cq_tail), n = 0;

	while (head != tail && n < max) {
		if (out)
			out[n] = r->cqes[head & r->cq_mask];
		head++;
		n++;
	}
	store_rel(r->cq_head, head);
	return n;
}

static inline void sqe_nop(struct wsched_sqe *e, __u64 ud)
{
	memset(e, 0, sizeof(*e));
	e->op = WSCHED_OP_NOP;
	e->user_data = ud;
}

static inline void sqe_op(struct wsched_sqe *e, __u32 op, __u64 arg, __u64 ud)
{
	memset(e, 0, sizeof(*e));
	e->op = op;
	e->arg = arg;
	e->user_data = ud;
}

static inline void sqe_range(struct wsched_sqe *e, __u32 op, __u32 buf, __u64 off,
		      __u64 len, __u32 buf2, __u64 arg, __u64 ud)
{
	memset(e, 0, sizeof(*e));
	e->op = op;
	e->buf = buf;
	e->off = off;
	e->len = len;
	e->buf2 = buf2;
	e->arg = arg;
	e->user_data = ud;
}

/* Set the predecessors of @e the way the ABI wants them. */
static inline void sqe_preds(struct wsched_sqe *e, __u32 *preds, __u32 nr)
{
	e->nr_preds = nr;
	e->pred = 0;
	e->preds_ptr = 0;
	if (nr == 1)
		e->pred = preds[0];
	else if (nr > 1)
		e->preds_ptr = (uintptr_t)preds;
}

static inline void sqe_pred1(struct wsched_sqe *e, __u32 pred)
{
	e->nr_preds = 1;
	e->pred = pred;
	e->preds_ptr = 0;
}

/* Drop CAP_IPC_LOCK, so that RLIMIT_MEMLOCK applies; 0 or -1. */
static inline int drop_cap_ipc_lock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -1;
	d[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].permitted &= ~(1U << (CAP_IPC_LOCK % 32));
	d[CAP_IPC_LOCK / 32].inheritable &= ~(1U << (CAP_IPC_LOCK % 32));
	return syscall(SYS_capset, &h, d);
}

#endif /* WSCHED_RING_H */
