// SPDX-License-Identifier: GPL-2.0
/*
 * uring_test: wsched graphs as io_uring commands (IORING_OP_URING_CMD on
 * a /dev/wsched file, WSCHED_URING_CMD_SUBMIT; issue 22).
 *
 * - chain: READ_FIXED -> graph -> WRITE_FIXED linked in one io_uring
 *   submission.  The graph hashes (SHA-256 and CRC-32C) what the read put
 *   into a buffer registered with both io_uring and wsched, and the write
 *   writes the digest the graph produced: a right digest in the output
 *   file shows that the graph started after the read and the write after
 *   the graph.  The command's CQE carries the number of nodes, the nodes'
 *   completions are in the wsched CQ, and no graph completion is.
 * - cheap_inline: a graph of cheap nodes (NOPs) completes inline, with
 *   the number of its nodes.
 * - cheap_linked: such a graph, from the SQ and inline, does not break
 *   its link chain (6.1 took a positive return for a failure).
 * - failing_graph: a FAIL node fails the command with its errno and the
 *   linked write completes with -ECANCELED.
 * - cancel: a long graph (a chain of SPIN nodes) is cancelled when its
 *   ring is torn down, on kernels with io_uring_cmd_mark_cancelable()
 *   (6.7+); IORING_OP_ASYNC_CANCEL does not reach driver commands on any
 *   kernel wsched supports, and 6.1 cannot cancel them at all (skip).
 * - inline_chain, inline_deps, inline_failing, inline_bad, inline_lib,
 *   inline_half_staged: WSCHED_URING_CMD_INLINE, a graph carried in the
 *   80-byte command area of an SQE128 ring's entry: in a READ_FIXED ->
 *   graph -> WRITE_FIXED chain; with predecessors inside the graph (their
 *   order checked by the data the nodes see and by seq); a failing node;
 *   every malformed payload (and a 64-byte-SQE ring, a file without
 *   rings), each refused with its errno with nothing run; libwsched's
 *   own checks; and an inline graph beside an ENTER graph half staged.
 * - cancel_exec: a child issues the long graph on its parent's ring and
 *   execs: exec() cancels the task's commands (6.7+) though the ring
 *   lives on; 6.1 waits for the graph (skip).
 * - bad_commands: unknown cmd_op, nonzero flags or reserved field, no
 *   entry, more entries than the SQ holds or than the limits, a misplaced
 *   end flag, a graph half staged by ENTER, and a file without rings: each
 *   fails with its errno, nothing runs and nothing is consumed.
 *
 * Links with liburing (static) and libwsched's sources.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <liburing.h>

#include "kselftest_harness.h"
#include "../../tools/libwsched/wsched.h"

#define DATA_LEN	(64 * 1024)	/* bytes read and hashed */
#define DIGEST_OFF	DATA_LEN	/* where the graph writes its digest */
#define BUF_LEN		(DATA_LEN + 4096)

#define UD_READ		1
#define UD_CMD		2
#define UD_WRITE	3
#define UD_CANCEL	4

/* The next wsched SQ entry; the ring is large enough for every test. */
#define GET_SQE(w) ({						\
	struct wsched_sqe *sqe_ = wsched_get_sqe(w);		\
	ASSERT_NE(NULL, sqe_);					\
	sqe_;							\
})

/* Kernel at least @major.@minor. */
static int kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return 0;
	return ma > major || (ma == major && mi >= minor);
}

/* A raw command SQE for @fd: cmd_op @op, payload (@nr, @flags, @resv). */
static void prep_cmd(struct io_uring_sqe *sqe, int fd, __u32 op, __u32 nr,
		     __u32 flags, __u64 resv)
{
	struct wsched_uring_submit *uc = (void *)sqe->cmd;

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = op;
	uc->nr = nr;
	uc->flags = flags;
	uc->resv = resv;
}

/* Submit what is prepared and reap @nr CQEs into res[user_data]. */
static int reap(struct io_uring *ring, unsigned int nr, int *res, int nres)
{
	struct io_uring_cqe *cqe;
	unsigned int i;
	int ret;

	ret = io_uring_submit(ring);
	if (ret < 0)
		return ret;
	for (i = 0; i < nr; i++) {
		do
			ret = io_uring_wait_cqe(ring, &cqe);
		while (ret == -EINTR);
		if (ret)
			return ret;
		if (cqe->user_data < (__u64)nres)
			res[cqe->user_data] = cqe->res;
		io_uring_cqe_seen(ring, cqe);
	}
	return 0;
}

static __u64 nodes_run(struct wsched_ring *w)
{
	struct wsched_probe p;

	memset(&p, 0, sizeof(p));
	if (wsched_probe(w, &p))
		return ~0ULL;
	return p.nodes_run;
}

FIXTURE(uring) {
	struct io_uring ring;
	struct io_uring ring128;	/* IORING_SETUP_SQE128 */
	struct wsched_ring w;
	unsigned char *buf;
	int in_fd, out_fd;
	unsigned char data[DATA_LEN];
};

FIXTURE_SETUP(uring)
{
	struct wsched_probe p;
	struct iovec iov;
	char in[] = "/tmp/uring_test.in.XXXXXX";
	char out[] = "/tmp/uring_test.out.XXXXXX";
	int ret;
	size_t i;

	self->in_fd = self->out_fd = -1;
	ret = wsched_queue_init(256, &self->w, 0);
	if (ret == -ENOENT)
		SKIP(return, "no /dev/wsched (module not loaded)");
	ASSERT_EQ(0, ret);
	memset(&p, 0, sizeof(p));
	ASSERT_EQ(0, wsched_probe(&self->w, &p));
	ASSERT_TRUE(p.features & WSCHED_FEAT_URING_CMD);

	ret = io_uring_queue_init(16, &self->ring, 0);
	if (ret == -ENOSYS || ret == -EPERM)
		SKIP(return, "io_uring not available: %s", strerror(-ret));
	ASSERT_EQ(0, ret);

	self->buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->buf);
	memset(self->buf, 0, BUF_LEN);
	iov.iov_base = self->buf;
	iov.iov_len = BUF_LEN;
	/* The same memory: io_uring reads into it, wsched hashes it. */
	ASSERT_EQ(0, io_uring_register_buffers(&self->ring, &iov, 1));
	ASSERT_EQ(0, io_uring_queue_init(16, &self->ring128,
					 IORING_SETUP_SQE128));
	ASSERT_EQ(0, io_uring_register_buffers(&self->ring128, &iov, 1));
	ASSERT_EQ(0, wsched_register_buffers(&self->w, &iov, 1));

	srand(getpid());
	for (i = 0; i < DATA_LEN; i++)
		self->data[i] = rand();
	self->in_fd = mkstemp(in);
	ASSERT_LE(0, self->in_fd);
	unlink(in);
	ASSERT_EQ(DATA_LEN, pwrite(self->in_fd, self->data, DATA_LEN, 0));
	self->out_fd = mkstemp(out);
	ASSERT_LE(0, self->out_fd);
	unlink(out);
}

FIXTURE_TEARDOWN(uring)
{
	if (self->in_fd >= 0)
		close(self->in_fd);
	if (self->out_fd >= 0)
		close(self->out_fd);
	if (self->ring.ring_fd > 0)
		io_uring_queue_exit(&self->ring);
	if (self->ring128.ring_fd > 0)
		io_uring_queue_exit(&self->ring128);
	wsched_queue_exit(&self->w);
}

/* An inline command on @fd with the payload @uc (a 128-byte SQE). */
static void prep_inline(struct io_uring_sqe *sqe, int fd,
			const struct wsched_uring_inline *uc)
{
	/* io_uring_get_sqe() returns NULL when the SQ is full. */
	if (!sqe)
		abort();
	memset(sqe, 0, 128);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = WSCHED_URING_CMD_INLINE;
	memcpy(sqe->cmd, uc, sizeof(*uc));
}

/*
 * Prepare READ_FIXED (the input) -> the command -> WRITE_FIXED (the
 * digest), linked, on @ring: the command runs the graph prepared on the
 * wsched ring, or @uc inline (@ring then has 128-byte SQEs).  Returns the
 * graph's node count, or wsched_prep_uring_cmd()'s error.
 */
static int prep_chain(FIXTURE_DATA(uring) *self, struct io_uring *ring,
		      const struct wsched_uring_inline *uc)
{
	struct io_uring_sqe *sqe;
	int nr;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_read_fixed(sqe, self->in_fd, self->buf, DATA_LEN, 0, 0);
	sqe->user_data = UD_READ;
	sqe->flags |= IOSQE_IO_LINK;

	sqe = io_uring_get_sqe(ring);
	if (uc) {
		prep_inline(sqe, wsched_ring_fd(&self->w), uc);
		nr = uc->nr;
	} else {
		nr = wsched_prep_uring_cmd(sqe, &self->w);
		if (nr < 0)
			return nr;
	}
	sqe->user_data = UD_CMD;
	sqe->flags |= IOSQE_IO_LINK;

	sqe = io_uring_get_sqe(ring);
	io_uring_prep_write_fixed(sqe, self->out_fd, self->buf + DIGEST_OFF,
				  32, 0, 0);
	sqe->user_data = UD_WRITE;
	return nr;
}

/*
 * Submit the chain prep_chain() prepared on @ring and check that all
 * three steps completed, the graph with its 2 nodes, and that the digest
 * written is the input's SHA-256.  Returns what reaping returned: not 0
 * means the wsched completions cannot be waited for either.
 */
static int expect_chain_digest(struct __test_metadata *_metadata,
				FIXTURE_DATA(uring) *self,
				struct io_uring *ring)
{
	unsigned char want[32], got[32];
	int res[8] = {}, ret;

	ret = reap(ring, 3, res, 8);
	if (ret)
		return ret;
	EXPECT_EQ(DATA_LEN, res[UD_READ]);
	EXPECT_EQ(2, res[UD_CMD]);
	EXPECT_EQ(32, res[UD_WRITE]);

	wsched_sha256_sw(self->data, DATA_LEN, want);
	EXPECT_EQ(32, pread(self->out_fd, got, 32, 0));
	EXPECT_EQ(0, memcmp(want, got, 32));
	return 0;
}

TEST_F(uring, chain)
{
	struct wsched_cqe *cqe;
	struct wsched_sqe *sqe;
	int i, nodes = 0;
	__u32 crc = 0;

	/* Garbage where the read goes: hashing it gives another digest. */
	memset(self->buf, 0xa5, DATA_LEN);
	sqe = GET_SQE(&self->w);
	wsched_prep_sha256(sqe, 0, 0, DATA_LEN, 0, DIGEST_OFF);
	wsched_sqe_set_data64(sqe, 10);
	sqe = GET_SQE(&self->w);
	wsched_prep_crc32c(sqe, 0, 0, DATA_LEN, 0);
	wsched_sqe_set_data64(sqe, 11);
	wsched_sqe_set_graph_end(sqe);
	ASSERT_EQ(2, prep_chain(self, &self->ring, NULL));
	ASSERT_EQ(0, expect_chain_digest(_metadata, self, &self->ring));

	/* The nodes' completions, and no graph completion. */
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
		EXPECT_EQ(0, cqe->res);
		EXPECT_FALSE(wsched_cqe_is_graph(cqe));
		if (wsched_cqe_get_data64(cqe) == 11)
			crc = cqe->value;
		nodes++;
		wsched_cqe_seen(&self->w, cqe);
	}
	EXPECT_EQ(2, nodes);
	EXPECT_EQ(wsched_crc32c_sw(0, self->data, DATA_LEN), crc);
	EXPECT_EQ(0, wsched_cq_ready(&self->w));
	EXPECT_EQ(2, nodes_run(&self->w));
}

/*
 * Stage a graph of three NOP nodes without CQEs: cheap enough to finish
 * while io_uring issues the command.
 */
static void stage_cheap_graph(struct __test_metadata *_metadata,
			      struct wsched_ring *w)
{
	struct wsched_sqe *sqe;
	int i;

	for (i = 0; i < 3; i++) {
		sqe = GET_SQE(w);
		wsched_prep_nop(sqe);
		wsched_sqe_set_no_cqe(sqe);
	}
	wsched_sqe_set_graph_end(sqe);
}

TEST_F(uring, cheap_inline)
{
	struct io_uring_sqe *usqe;
	int res[8] = {};

	stage_cheap_graph(_metadata, &self->w);
	usqe = io_uring_get_sqe(&self->ring);
	ASSERT_EQ(3, wsched_prep_uring_cmd(usqe, &self->w));
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(3, res[UD_CMD]);
	/* WSCHED_SQE_NO_CQE: nothing in the wsched CQ. */
	EXPECT_EQ(0, wsched_cq_ready(&self->w));
	EXPECT_EQ(3, nodes_run(&self->w));
}

TEST_F(uring, failing_graph)
{
	struct wsched_cqe *cqe;
	struct wsched_sqe *sqe;
	int res[8] = {};
	unsigned char got[32];

	sqe = GET_SQE(&self->w);
	wsched_prep_fail(sqe, EIO);
	wsched_sqe_set_data64(sqe, 20);
	sqe = GET_SQE(&self->w);
	wsched_prep_sha256(sqe, 0, 0, DATA_LEN, 0, DIGEST_OFF);
	wsched_sqe_set_pred(sqe, 0);
	wsched_sqe_set_data64(sqe, 21);
	wsched_sqe_set_graph_end(sqe);
	ASSERT_EQ(2, prep_chain(self, &self->ring, NULL));
	ASSERT_EQ(0, reap(&self->ring, 3, res, 8));
	EXPECT_EQ(DATA_LEN, res[UD_READ]);
	EXPECT_EQ(-EIO, res[UD_CMD]);
	EXPECT_EQ(-ECANCELED, res[UD_WRITE]);
	/* The write did not run. */
	EXPECT_EQ(0, pread(self->out_fd, got, 32, 0));

	ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
	EXPECT_EQ(20, wsched_cqe_get_data64(cqe));
	EXPECT_EQ(-EIO, cqe->res);
	wsched_cqe_seen(&self->w, cqe);
	ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
	EXPECT_EQ(21, wsched_cqe_get_data64(cqe));
	EXPECT_EQ(-ECANCELED, cqe->res);
	EXPECT_TRUE(cqe->flags & WSCHED_RES_DEP_FAILED);
	wsched_cqe_seen(&self->w, cqe);
}

/*
 * Long enough to be running when the ring is torn down, short enough to
 * finish well within the timeout where it cannot be cancelled (6.1 under
 * QEMU TCG on a loaded host).
 */
#define CHAIN_NODES	128
#define CHAIN_SPIN	(WSCHED_SPIN_MAX / 16)

/* Stage a graph of CHAIN_NODES spinning nodes, each after the previous. */
static void stage_spin_chain(struct __test_metadata *_metadata,
			     struct wsched_ring *w)
{
	struct wsched_sqe *sqe;
	int i;

	for (i = 0; i < CHAIN_NODES; i++) {
		sqe = GET_SQE(w);
		wsched_prep_spin(sqe, CHAIN_SPIN);
		if (i)
			wsched_sqe_set_pred(sqe, i - 1);
	}
	wsched_sqe_set_graph_end(sqe);
}

/*
 * Reap the spinning chain's CHAIN_NODES completions and count the nodes
 * that ran and those cancelled (or behind a cancelled node); every node
 * must be one or the other.
 */
static void reap_spin_chain(struct __test_metadata *_metadata,
			    struct wsched_ring *w, int *aborted)
{
	struct wsched_cqe *cqe;
	int i, ret, ran = 0;

	*aborted = 0;
	for (i = 0; i < CHAIN_NODES; i++) {
		do
			ret = wsched_wait_cqe(w, &cqe);
		while (ret == -EINTR);
		ASSERT_EQ(0, ret);
		if (cqe->flags & (WSCHED_RES_ABORTED | WSCHED_RES_DEP_FAILED))
			(*aborted)++;
		if (cqe->flags & WSCHED_RES_RAN)
			ran++;
		wsched_cqe_seen(w, cqe);
	}
	TH_LOG("%d nodes ran, %d cancelled", ran, *aborted);
	EXPECT_EQ(CHAIN_NODES, ran + *aborted);
}

TEST_F_TIMEOUT(uring, cancel, 180)
{
	struct io_uring_sqe *usqe;
	struct io_uring_cqe *ucqe;
	int ret, aborted = 0, cancel_res = 1, cmd_res = 1;
	bool can_cancel = kernel_at_least(6, 7);

	stage_spin_chain(_metadata, &self->w);
	usqe = io_uring_get_sqe(&self->ring);
	ASSERT_EQ(CHAIN_NODES, wsched_prep_uring_cmd(usqe, &self->w));
	usqe->user_data = UD_CMD;
	ASSERT_EQ(1, io_uring_submit(&self->ring));

	/* IORING_OP_ASYNC_CANCEL: io_uring does not hand it to drivers. */
	usqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_cancel64(usqe, UD_CMD, 0);
	usqe->user_data = UD_CANCEL;
	ASSERT_EQ(1, io_uring_submit(&self->ring));
	for (;;) {
		ret = io_uring_wait_cqe(&self->ring, &ucqe);
		if (ret == -EINTR)
			continue;
		ASSERT_EQ(0, ret);
		if (ucqe->user_data == UD_CANCEL) {
			cancel_res = ucqe->res;
			io_uring_cqe_seen(&self->ring, ucqe);
			break;
		}
		/* The graph may have finished first (slow machine). */
		cmd_res = ucqe->res;
		io_uring_cqe_seen(&self->ring, ucqe);
	}
	TH_LOG("IORING_OP_ASYNC_CANCEL of the command: %d (%s)", cancel_res,
	       strerror(-cancel_res));

	if (can_cancel) {
		/* Tearing the ring down cancels the command's graph. */
		io_uring_queue_exit(&self->ring);
		self->ring.ring_fd = 0;
	}
	reap_spin_chain(_metadata, &self->w, &aborted);
	if (!can_cancel) {
		while (cmd_res == 1) {
			ret = io_uring_wait_cqe(&self->ring, &ucqe);
			if (ret == -EINTR)
				continue;
			ASSERT_EQ(0, ret);
			cmd_res = ucqe->res;
			io_uring_cqe_seen(&self->ring, ucqe);
		}
		EXPECT_EQ(CHAIN_NODES, cmd_res);
		SKIP(return, "io_uring cannot cancel a driver's command before 6.7 (no io_uring_cmd_mark_cancelable())");
	}
	EXPECT_LT(0, aborted);
}

/*
 * exec() cancels the commands of the task's rings (6.7+:
 * io_uring_task_cancel() hands each cancelable command back with
 * IO_URING_F_CANCEL), even when the ring lives on: a child submits the
 * long graph on a ring its parent keeps, then execs.  On 6.1 the exec
 * waits for the graph instead (skip).
 */
TEST_F_TIMEOUT(uring, cancel_exec, 180)
{
	struct io_uring_cqe *ucqe;
	int ret, status, aborted = 0, cmd_res = 1;
	bool can_cancel = kernel_at_least(6, 7);
	pid_t pid;

	stage_spin_chain(_metadata, &self->w);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct io_uring_sqe *usqe = io_uring_get_sqe(&self->ring);

		/* The child issues the command: its task owns it. */
		if (wsched_prep_uring_cmd(usqe, &self->w) != CHAIN_NODES)
			_exit(2);
		usqe->user_data = UD_CMD;
		if (io_uring_submit(&self->ring) != 1)
			_exit(3);
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));

	/* The parent's ring holds the command's CQE. */
	do
		ret = io_uring_wait_cqe(&self->ring, &ucqe);
	while (ret == -EINTR);
	ASSERT_EQ(0, ret);
	ASSERT_EQ(UD_CMD, ucqe->user_data);
	cmd_res = ucqe->res;
	io_uring_cqe_seen(&self->ring, ucqe);
	TH_LOG("command %d", cmd_res);
	reap_spin_chain(_metadata, &self->w, &aborted);
	if (!can_cancel) {
		EXPECT_EQ(CHAIN_NODES, cmd_res);
		SKIP(return, "io_uring cannot cancel a driver's command before 6.7");
	}
	EXPECT_EQ(-ECANCELED, cmd_res);
	EXPECT_LT(0, aborted);
}

TEST_F(uring, bad_commands)
{
	static const struct {
		const char *what;
		__u32 op, nr, flags;
		__u64 resv;
		int err;
	} bad[] = {
		{ "unknown cmd_op", 0x1234, 2, 0, 0, -ENOTTY },
		{ "nonzero flags", WSCHED_URING_CMD_SUBMIT, 2, 1, 0, -EINVAL },
		{ "nonzero resv", WSCHED_URING_CMD_SUBMIT, 2, 0, 1, -EINVAL },
		{ "no entry", WSCHED_URING_CMD_SUBMIT, 0, 0, 0, -EINVAL },
		{ "more than the SQ holds", WSCHED_URING_CMD_SUBMIT, 3, 0, 0, -ENODATA },
		{ "more than the limits", WSCHED_URING_CMD_SUBMIT, 1U << 30, 0, 0, -E2BIG },
		{ "end flag not last", WSCHED_URING_CMD_SUBMIT, 1, 0, 0, -EINVAL },
	};
	struct io_uring_sqe *usqe, tmp;
	struct wsched_sqe *sqe;
	int res[8], i, fd;

	/* A staged graph of two NOPs, published but not consumed. */
	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	wsched_sqe_set_graph_end(sqe);
	/* Publishes the entries; the command itself is made below. */
	ASSERT_EQ(2, wsched_prep_uring_cmd(&tmp, &self->w));

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		usqe = io_uring_get_sqe(&self->ring);
		prep_cmd(usqe, wsched_ring_fd(&self->w), bad[i].op, bad[i].nr,
			 bad[i].flags, bad[i].resv);
		usqe->user_data = UD_CMD;
		res[UD_CMD] = 1;
		ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
		EXPECT_EQ(bad[i].err, res[UD_CMD]) {
			TH_LOG("%s: %d, want %d", bad[i].what, res[UD_CMD],
			       bad[i].err);
		}
		EXPECT_EQ(0, nodes_run(&self->w));
		EXPECT_EQ(0, wsched_cq_ready(&self->w));
	}

	/* A file without rings. */
	fd = open("/dev/wsched", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	usqe = io_uring_get_sqe(&self->ring);
	prep_cmd(usqe, fd, WSCHED_URING_CMD_SUBMIT, 1, 0, 0);
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(-EBADFD, res[UD_CMD]);
	close(fd);

	/* Nothing was consumed: the graph still runs, once. */
	usqe = io_uring_get_sqe(&self->ring);
	prep_cmd(usqe, wsched_ring_fd(&self->w), WSCHED_URING_CMD_SUBMIT, 2,
		 0, 0);
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(2, res[UD_CMD]);
	EXPECT_EQ(2, nodes_run(&self->w));
	usqe = io_uring_get_sqe(&self->ring);
	prep_cmd(usqe, wsched_ring_fd(&self->w), WSCHED_URING_CMD_SUBMIT, 2,
		 0, 0);
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(-ENODATA, res[UD_CMD]);
}

TEST_F(uring, enter_half_staged)
{
	struct io_uring_sqe *usqe, tmp;
	struct wsched_sqe *sqe;
	int res[8];

	/* ENTER consumes a graph's first entry, its end not yet there. */
	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	ASSERT_EQ(1, wsched_submit(&self->w));
	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	wsched_sqe_set_graph_end(sqe);
	ASSERT_EQ(1, wsched_prep_uring_cmd(&tmp, &self->w));
	usqe = io_uring_get_sqe(&self->ring);
	prep_cmd(usqe, wsched_ring_fd(&self->w), WSCHED_URING_CMD_SUBMIT, 1,
		 0, 0);
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(-EBUSY, res[UD_CMD]);
	EXPECT_EQ(0, nodes_run(&self->w));
}

/* An inline node: @op over (@buf, @off, @len), @arg, predecessor mask. */
static struct wsched_uring_inode inode(__u16 op, __u32 off, __u32 len,
				       __u64 arg, __u8 preds)
{
	struct wsched_uring_inode n;

	memset(&n, 0, sizeof(n));
	n.op = op;
	n.off = off;
	n.len = len;
	n.arg = arg;
	n.preds = preds;
	return n;
}

#define TAG	0x5eedU
#define UD_NODE(i)	((__u64)TAG << 32 | (i))

TEST_F(uring, inline_chain)
{
	struct wsched_uring_inline uc;
	struct wsched_cqe *cqe;
	__u32 crc = 0;
	int i;

	ASSERT_EQ(80, sizeof(uc));
	/* Garbage where the read goes: hashing it gives another digest. */
	memset(self->buf, 0xa5, DATA_LEN);
	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = 2;
	uc.tag = TAG;
	uc.nodes[0] = inode(WSCHED_OP_SHA256, 0, DATA_LEN, DIGEST_OFF, 0);
	uc.nodes[1] = inode(WSCHED_OP_CRC32C, 0, DATA_LEN, 0, 0);

	ASSERT_EQ(2, prep_chain(self, &self->ring128, &uc));
	ASSERT_EQ(0, expect_chain_digest(_metadata, self, &self->ring128));
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
		EXPECT_EQ(0, cqe->res);
		EXPECT_FALSE(wsched_cqe_is_graph(cqe));
		EXPECT_EQ(TAG, wsched_cqe_get_data64(cqe) >> 32);
		if (wsched_cqe_get_data64(cqe) == UD_NODE(1))
			crc = cqe->value;
		wsched_cqe_seen(&self->w, cqe);
	}
	EXPECT_EQ(wsched_crc32c_sw(0, self->data, DATA_LEN), crc);
	EXPECT_EQ(0, wsched_cq_ready(&self->w));
	EXPECT_EQ(2, nodes_run(&self->w));
	/* The SQ was not touched. */
	EXPECT_EQ(0, wsched_sq_ready(&self->w));
}

/*
 * Predecessors inside the graph: 0 fills a range, 1 (after 0) hashes it,
 * 2 (after 0 and 1) copies it.  The hash is the filled range's only if 1
 * ran after 0; seq orders each node after its predecessors.
 */
TEST_F(uring, inline_deps)
{
	unsigned char want[256];
	struct wsched_uring_inline uc;
	struct io_uring_sqe *usqe;
	struct wsched_cqe *cqe;
	__u32 seq[3] = {}, crc = 0;
	int res[8] = {}, i;

	memset(self->buf, 0, 2 * 256);
	memset(want, 0x3c, sizeof(want));
	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = 3;
	uc.tag = TAG;
	uc.nodes[0] = inode(WSCHED_OP_MEMSET, 0, 256, 0x3c, 0);
	uc.nodes[1] = inode(WSCHED_OP_CRC32C, 0, 256, 0, 1 << 0);
	uc.nodes[2] = inode(WSCHED_OP_MEMCPY, 256, 256, 0, 1 << 0 | 1 << 1);
	usqe = io_uring_get_sqe(&self->ring128);
	prep_inline(usqe, wsched_ring_fd(&self->w), &uc);
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring128, 1, res, 8));
	EXPECT_EQ(3, res[UD_CMD]);
	for (i = 0; i < 3; i++) {
		__u64 ud;

		ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
		EXPECT_EQ(0, cqe->res);
		ud = wsched_cqe_get_data64(cqe);
		ASSERT_EQ(TAG, ud >> 32);
		ASSERT_GT(3, (__u32)ud);
		seq[(__u32)ud] = cqe->seq;
		if (ud == UD_NODE(1))
			crc = cqe->value;
		wsched_cqe_seen(&self->w, cqe);
	}
	EXPECT_EQ(wsched_crc32c_sw(0, want, sizeof(want)), crc);
	EXPECT_EQ(0, memcmp(self->buf + 256, want, sizeof(want)));
	EXPECT_LT(seq[0], seq[1]);
	EXPECT_LT(seq[1], seq[2]);
	EXPECT_EQ(3, nodes_run(&self->w));
}

/* A failing node fails the command, cancels its successor, breaks links. */
TEST_F(uring, inline_failing)
{
	struct wsched_uring_inline uc;
	struct io_uring_sqe *usqe;
	struct wsched_cqe *cqe;
	int res[8] = {}, i, failed = 0, cancelled = 0;

	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = 2;
	uc.tag = TAG;
	uc.nodes[0] = inode(WSCHED_OP_FAIL, 0, 0, EIO, 0);
	uc.nodes[1] = inode(WSCHED_OP_NOP, 0, 0, 0, 1 << 0);
	usqe = io_uring_get_sqe(&self->ring128);
	prep_inline(usqe, wsched_ring_fd(&self->w), &uc);
	usqe->user_data = UD_CMD;
	usqe->flags |= IOSQE_IO_LINK;
	usqe = io_uring_get_sqe(&self->ring128);
	io_uring_prep_write_fixed(usqe, self->out_fd, self->buf, 32, 0, 0);
	usqe->user_data = UD_WRITE;
	ASSERT_EQ(0, reap(&self->ring128, 2, res, 8));
	EXPECT_EQ(-EIO, res[UD_CMD]);
	EXPECT_EQ(-ECANCELED, res[UD_WRITE]);
	for (i = 0; i < 2; i++) {
		ASSERT_EQ(0, wsched_wait_cqe(&self->w, &cqe));
		if (wsched_cqe_get_data64(cqe) == UD_NODE(0) && cqe->res == -EIO)
			failed++;
		if (wsched_cqe_get_data64(cqe) == UD_NODE(1) &&
		    cqe->res == -ECANCELED &&
		    (cqe->flags & WSCHED_RES_DEP_FAILED))
			cancelled++;
		wsched_cqe_seen(&self->w, cqe);
	}
	EXPECT_EQ(1, failed);
	EXPECT_EQ(1, cancelled);
}

/*
 * A cheap graph completes while io_uring issues the command; its positive
 * result must not break the chain (6.1's io_uring_cmd() takes a positive
 * return for a failure): cmd -> NOP, linked, from the SQ and inline.
 */
TEST_F(uring, cheap_linked)
{
	struct wsched_uring_inline uc;
	struct io_uring_sqe *usqe;
	int res[8];

	stage_cheap_graph(_metadata, &self->w);
	usqe = io_uring_get_sqe(&self->ring);
	ASSERT_EQ(3, wsched_prep_uring_cmd(usqe, &self->w));
	usqe->user_data = UD_CMD;
	usqe->flags |= IOSQE_IO_LINK;
	usqe = io_uring_get_sqe(&self->ring);
	io_uring_prep_nop(usqe);
	usqe->user_data = UD_WRITE;
	res[UD_CMD] = res[UD_WRITE] = 1;
	ASSERT_EQ(0, reap(&self->ring, 2, res, 8));
	EXPECT_EQ(3, res[UD_CMD]);
	EXPECT_EQ(0, res[UD_WRITE]);

	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = 2;
	uc.nodes[0] = inode(WSCHED_OP_NOP, 0, 0, 0, 0);
	uc.nodes[0].flags = WSCHED_SQE_NO_CQE;
	uc.nodes[1] = inode(WSCHED_OP_NOP, 0, 0, 0, 1 << 0);
	uc.nodes[1].flags = WSCHED_SQE_NO_CQE;
	usqe = io_uring_get_sqe(&self->ring128);
	prep_inline(usqe, wsched_ring_fd(&self->w), &uc);
	usqe->user_data = UD_CMD;
	usqe->flags |= IOSQE_IO_LINK;
	usqe = io_uring_get_sqe(&self->ring128);
	io_uring_prep_nop(usqe);
	usqe->user_data = UD_WRITE;
	res[UD_CMD] = res[UD_WRITE] = 1;
	ASSERT_EQ(0, reap(&self->ring128, 2, res, 8));
	EXPECT_EQ(2, res[UD_CMD]);
	EXPECT_EQ(0, res[UD_WRITE]);
	EXPECT_EQ(5, nodes_run(&self->w));
	EXPECT_EQ(0, wsched_cq_ready(&self->w));
}

/* Submit one inline command on @r and return its res. */
static int inline_res(struct io_uring *r, int fd,
		      const struct wsched_uring_inline *uc)
{
	struct io_uring_sqe *usqe = io_uring_get_sqe(r);
	int res[8], ret;

	prep_inline(usqe, fd, uc);
	usqe->user_data = UD_CMD;
	res[UD_CMD] = 1;
	ret = reap(r, 1, res, 8);
	return ret ? ret : res[UD_CMD];
}

TEST_F(uring, inline_bad)
{
	struct wsched_uring_inline good, uc;
	struct io_uring_sqe *usqe;
	int i, fd, res[8];
	struct {
		const char *what;
		int err;
	} bad[] = {
		{ "version 0", -EINVAL },
		{ "version 2", -EINVAL },
		{ "nr 0", -EINVAL },
		{ "nr above WSCHED_URING_INLINE_MAX", -E2BIG },
		{ "nonzero flags", -EINVAL },
		{ "nonzero node resv", -EINVAL },
		{ "unknown node flag", -EINVAL },
		{ "WSCHED_SQE_GRAPH_END on a node", -EINVAL },
		{ "node 0 with a predecessor", -EINVAL },
		{ "predecessor not below the node", -EINVAL },
		{ "a node beyond nr not zero", -EINVAL },
		{ "an arg beyond nr not zero", -EINVAL },
		{ "unknown op", -EOPNOTSUPP },
		{ "unknown buffer", -EINVAL },
		{ "range beyond the buffer", -ERANGE },
		{ "an operand the op does not take", -EINVAL },
		{ "FAIL errno out of range", -EINVAL },
		{ "bad last node after good ones", -ERANGE },
	};

	/* A good graph of two nodes; each case spoils one field of it. */
	memset(&good, 0, sizeof(good));
	good.version = WSCHED_URING_INLINE_V1;
	good.nr = 2;
	good.tag = TAG;
	good.nodes[0] = inode(WSCHED_OP_CRC32C, 0, 64, 0, 0);
	good.nodes[1] = inode(WSCHED_OP_CRC32C, 64, 64, 0, 1 << 0);

	for (i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
		uc = good;
		switch (i) {
		case 0: uc.version = 0; break;
		case 1: uc.version = 2; break;
		case 2: uc.nr = 0; break;
		case 3: uc.nr = WSCHED_URING_INLINE_MAX + 1; break;
		case 4: uc.flags = 1; break;
		case 5: uc.nodes[1].resv = 1; break;
		case 6: uc.nodes[0].flags = 1 << 7; break;
		case 7: uc.nodes[1].flags = WSCHED_SQE_GRAPH_END; break;
		case 8: uc.nodes[0].preds = 1 << 0; break;
		case 9: uc.nodes[1].preds = 1 << 1; break;
		case 10: uc.nodes[2].op = WSCHED_OP_NOP + 1; break;
		case 11: uc.nodes[2].arg = 1; break;
		case 12: uc.nodes[1].op = WSCHED_OP_LAST + 1; break;
		case 13: uc.nodes[1].buf = 1; break;
		case 14: uc.nodes[1].off = BUF_LEN; break;
		case 15: uc.nodes[1] = inode(WSCHED_OP_NOP, 0, 64, 0, 0); break;
		case 16: uc.nodes[1] = inode(WSCHED_OP_FAIL, 0, 0, 4096, 0); break;
		case 17:
			uc.nr = 3;
			uc.nodes[2] = inode(WSCHED_OP_CRC32C, BUF_LEN - 1, 64, 0, 3);
			break;
		}
		EXPECT_EQ(bad[i].err, inline_res(&self->ring128,
						 wsched_ring_fd(&self->w), &uc)) {
			TH_LOG("%s", bad[i].what);
		}
		EXPECT_EQ(0, nodes_run(&self->w));
		EXPECT_EQ(0, wsched_cq_ready(&self->w));
	}

	/* A ring of 64-byte SQEs: the payload does not fit. */
	usqe = io_uring_get_sqe(&self->ring);
	memset(usqe, 0, sizeof(*usqe));
	usqe->opcode = IORING_OP_URING_CMD;
	usqe->fd = wsched_ring_fd(&self->w);
	usqe->cmd_op = WSCHED_URING_CMD_INLINE;
	memcpy(usqe->cmd, &good, 16);
	usqe->user_data = UD_CMD;
	res[UD_CMD] = 1;
	ASSERT_EQ(0, reap(&self->ring, 1, res, 8));
	EXPECT_EQ(-EINVAL, res[UD_CMD]);
	EXPECT_EQ(0, nodes_run(&self->w));

	/* A file without rings. */
	fd = open("/dev/wsched", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EBADFD, inline_res(&self->ring128, fd, &good));
	close(fd);
	EXPECT_EQ(0, nodes_run(&self->w));
	EXPECT_EQ(0, wsched_cq_ready(&self->w));

	/* The good graph itself runs. */
	EXPECT_EQ(2, inline_res(&self->ring128, wsched_ring_fd(&self->w),
				&good));
	EXPECT_EQ(2, nodes_run(&self->w));
}

/* libwsched's wsched_prep_uring_inline(): what it builds, what it refuses. */
TEST_F(uring, inline_lib)
{
	struct wsched_uring_inline uc;
	struct wsched_sqe nodes[4];
	struct io_uring_sqe *usqe;
	unsigned char sqe128[128];
	__u32 preds[2] = { 0, 1 };
	int res[8] = {};

	wsched_prep_memset(&nodes[0], 0, 0, 128, 0x11);
	wsched_prep_crc32c(&nodes[1], 0, 0, 128, 7);
	wsched_sqe_set_pred(&nodes[1], 0);
	wsched_prep_nop(&nodes[2]);
	wsched_sqe_set_preds(&nodes[2], preds, 2);
	wsched_sqe_set_graph_end(&nodes[2]);
	memset(sqe128, 0xff, sizeof(sqe128));
	ASSERT_EQ(3, wsched_prep_uring_inline((void *)sqe128, &self->w, nodes,
					      3, TAG));
	memcpy(&uc, sqe128 + 48, sizeof(uc));
	EXPECT_EQ(WSCHED_URING_INLINE_V1, uc.version);
	EXPECT_EQ(3, uc.nr);
	EXPECT_EQ(TAG, uc.tag);
	EXPECT_EQ(WSCHED_OP_MEMSET, uc.nodes[0].op);
	EXPECT_EQ(0x11, uc.nodes[0].arg);
	EXPECT_EQ(1 << 0, uc.nodes[1].preds);
	EXPECT_EQ(7, uc.nodes[1].arg);
	EXPECT_EQ(3, uc.nodes[2].preds);
	EXPECT_EQ(0, uc.nodes[2].flags);

	/* Refused, the SQE left alone. */
	EXPECT_EQ(-EINVAL, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    nodes, 0, TAG));
	EXPECT_EQ(-EINVAL, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    nodes, 4, TAG));
	nodes[3] = nodes[0];
	wsched_sqe_set_data64(&nodes[3], 1);
	EXPECT_EQ(-EINVAL, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    &nodes[3], 1, TAG));
	wsched_prep_nop(&nodes[3]);
	wsched_sqe_set_pred(&nodes[3], 0);
	EXPECT_EQ(-EINVAL, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    &nodes[3], 1, TAG));
	wsched_prep_crc32c(&nodes[3], 256, 0, 64, 0);
	EXPECT_EQ(-ERANGE, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    &nodes[3], 1, TAG));
	wsched_prep_crc32c(&nodes[3], 0, 1ULL << 32, 64, 0);
	EXPECT_EQ(-ERANGE, wsched_prep_uring_inline((void *)sqe128, &self->w,
						    &nodes[3], 1, TAG));
	EXPECT_EQ(0, memcmp(&uc, sqe128 + 48, sizeof(uc)));

	/* And the kernel runs what it built. */
	usqe = io_uring_get_sqe(&self->ring128);
	ASSERT_EQ(3, wsched_prep_uring_inline(usqe, &self->w, nodes, 3, TAG));
	usqe->user_data = UD_CMD;
	ASSERT_EQ(0, reap(&self->ring128, 1, res, 8));
	EXPECT_EQ(3, res[UD_CMD]);
	EXPECT_EQ(3, nodes_run(&self->w));
}

/* An inline graph does not wait for, nor disturb, a graph ENTER staged. */
TEST_F(uring, inline_half_staged)
{
	struct wsched_uring_inline uc;
	struct wsched_cqe *cqe;
	struct wsched_sqe *sqe;
	int seen = 0;

	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	wsched_sqe_set_data64(sqe, 30);
	ASSERT_EQ(1, wsched_submit(&self->w));

	memset(&uc, 0, sizeof(uc));
	uc.version = WSCHED_URING_INLINE_V1;
	uc.nr = 1;
	uc.tag = TAG;
	uc.nodes[0] = inode(WSCHED_OP_NOP, 0, 0, 0, 0);
	uc.nodes[0].flags = WSCHED_SQE_NO_CQE;
	EXPECT_EQ(1, inline_res(&self->ring128, wsched_ring_fd(&self->w), &uc));
	EXPECT_EQ(1, nodes_run(&self->w));
	EXPECT_EQ(0, wsched_cq_ready(&self->w));

	/* The half-staged graph ends and runs as it would have. */
	sqe = GET_SQE(&self->w);
	wsched_prep_nop(sqe);
	wsched_sqe_set_data64(sqe, 31);
	wsched_sqe_set_graph_end(sqe);
	ASSERT_EQ(1, wsched_submit_and_wait(&self->w, 2));
	EXPECT_EQ(3, nodes_run(&self->w));
	while (wsched_peek_cqe(&self->w, &cqe) == 0) {
		__u64 ud = wsched_cqe_get_data64(cqe);

		if (!wsched_cqe_is_graph(cqe) && (ud == 30 || ud == 31))
			seen |= 1 << (ud - 30);
		wsched_cqe_seen(&self->w, cqe);
	}
	EXPECT_EQ(3, seen);
}

TEST_HARNESS_MAIN
