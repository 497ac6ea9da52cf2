// SPDX-License-Identifier: GPL-2.0
/*
 * A wsched graph in an io_uring link chain: read a file with io_uring,
 * hash what was read with a wsched graph (CRC-32C and SHA-256), write the
 * SHA-256 digest with a linked write, all in one io_uring submission;
 * then check both against libwsched's software checksums.
 *
 *	uring_chain [-i] <input file> <digest output file>
 *
 *	cc -o uring_chain uring_chain.c \
 *		$(pkg-config --cflags --libs libwsched) -luring
 *
 * The buffer is registered with both rings: io_uring reads into it
 * (READ_FIXED), wsched's nodes hash it in place.  The CRC-32C is a
 * node's value, in the wsched CQ; the SHA-256 node writes its digest into
 * the buffer, where the linked WRITE_FIXED takes it from.
 *
 * The graph is staged in the wsched SQ and named by the command
 * (wsched_prep_uring_cmd()), or, with -i, carried in the command itself:
 * an io_uring with 128-byte SQEs (IORING_SETUP_SQE128) and
 * wsched_prep_uring_inline(), with no wsched SQ entry at all.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>
#include <wsched.h>

#define MAX_LEN		(16 << 20)
/* The inline graph's tag: its nodes complete with user_data tag << 32 | i. */
#define INLINE_TAG	7

static int fail(const char *what, int err)
{
	fprintf(stderr, "uring_chain: %s: %s\n", what, strerror(err < 0 ? -err : err));
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char *buf, want[32], got[32];
	struct io_uring_sqe *usqe;
	struct io_uring_cqe *ucqe;
	struct wsched_sqe *sqe, nodes[2];
	struct wsched_cqe *cqe;
	struct wsched_ring w;
	struct io_uring ring;
	struct iovec iov;
	struct stat st;
	__u32 crc = 0;
	size_t len, buf_len;
	int in, out, ret, i, res[3] = { 1, 1, 1 };
	bool inline_graph = argc == 4 && !strcmp(argv[1], "-i");
	__u64 crc_data = 1;

	if (inline_graph) {
		argc--;
		argv++;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: uring_chain [-i] <input> <digest output>\n");
		return 2;
	}
	in = open(argv[1], O_RDONLY);
	if (in < 0 || fstat(in, &st))
		return fail(argv[1], errno);
	if (!st.st_size || st.st_size > MAX_LEN)
		return fail("input size (1 byte to 16 MiB)", EINVAL);
	len = st.st_size;
	out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0)
		return fail(argv[2], errno);

	/* The data, then 32 bytes for the digest. */
	buf_len = len + 32;
	buf = mmap(NULL, buf_len, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return fail("mmap", errno);
	iov.iov_base = buf;
	iov.iov_len = buf_len;

	ret = wsched_queue_init(8, &w, 0);
	if (ret < 0)
		return fail("wsched_queue_init", ret);
	if (!(w.features & WSCHED_FEAT_URING_CMD))
		return fail("/dev/wsched without io_uring commands", EOPNOTSUPP);
	if (inline_graph && !(w.features & WSCHED_FEAT_URING_INLINE))
		return fail("/dev/wsched without inline graphs", EOPNOTSUPP);
	ret = wsched_register_buffers(&w, &iov, 1);
	if (ret < 0)
		return fail("wsched_register_buffers", ret);
	ret = io_uring_queue_init(8, &ring,
				  inline_graph ? IORING_SETUP_SQE128 : 0);
	if (ret < 0)
		return fail("io_uring_queue_init", ret);
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret < 0)
		return fail("io_uring_register_buffers", ret);

	/*
	 * The graph: CRC-32C and SHA-256 of the data, side by side; in the
	 * wsched SQ, or in the caller's array for the inline command.
	 */
	if (inline_graph) {
		memset(nodes, 0, sizeof(nodes));
		wsched_prep_crc32c(&nodes[0], 0, 0, len, 0);
		wsched_prep_sha256(&nodes[1], 0, 0, len, 0, len);
		crc_data = (__u64)INLINE_TAG << 32;
	} else {
		sqe = wsched_get_sqe(&w);
		wsched_prep_crc32c(sqe, 0, 0, len, 0);
		wsched_sqe_set_data64(sqe, 1);
		sqe = wsched_get_sqe(&w);
		wsched_prep_sha256(sqe, 0, 0, len, 0, len);
		wsched_sqe_set_data64(sqe, 2);
		wsched_sqe_set_graph_end(sqe);
	}

	/* read -> graph -> write, linked. */
	usqe = io_uring_get_sqe(&ring);
	io_uring_prep_read_fixed(usqe, in, buf, len, 0, 0);
	usqe->flags |= IOSQE_IO_LINK;
	usqe->user_data = 0;
	usqe = io_uring_get_sqe(&ring);
	if (inline_graph)
		ret = wsched_prep_uring_inline(usqe, &w, nodes, 2, INLINE_TAG);
	else
		ret = wsched_prep_uring_cmd(usqe, &w);
	if (ret < 0)
		return fail("wsched_prep_uring_cmd/inline", ret);
	usqe->flags |= IOSQE_IO_LINK;
	usqe->user_data = 1;
	usqe = io_uring_get_sqe(&ring);
	io_uring_prep_write_fixed(usqe, out, buf + len, 32, 0, 0);
	usqe->user_data = 2;
	ret = io_uring_submit(&ring);
	if (ret != 3)
		return fail("io_uring_submit", ret < 0 ? ret : -EIO);
	for (i = 0; i < 3; i++) {
		ret = io_uring_wait_cqe(&ring, &ucqe);
		if (ret == -EINTR) {
			i--;
			continue;
		}
		if (ret)
			return fail("io_uring_wait_cqe", ret);
		if (ucqe->user_data < 3)
			res[ucqe->user_data] = ucqe->res;
		io_uring_cqe_seen(&ring, ucqe);
	}
	printf("read %d, graph %d, write %d\n", res[0], res[1], res[2]);
	if (res[0] != (int)len || res[1] != 2 || res[2] != 32)
		return fail("the chain", EIO);

	/* The nodes' completions: the CRC-32C is the first node's value. */
	for (i = 0; i < 2; i++) {
		ret = wsched_wait_cqe(&w, &cqe);
		if (ret)
			return fail("wsched_wait_cqe", ret);
		if (wsched_cqe_get_data64(cqe) == crc_data)
			crc = cqe->value;
		wsched_cqe_seen(&w, cqe);
	}
	if (pread(in, buf, len, 0) != (ssize_t)len)
		return fail("pread", errno);
	if (crc != wsched_crc32c_sw(0, buf, len))
		return fail("crc32c differs from wsched_crc32c_sw()", EIO);
	wsched_sha256_sw(buf, len, want);
	close(out);
	out = open(argv[2], O_RDONLY);
	if (out < 0 || pread(out, got, 32, 0) != 32 || memcmp(want, got, 32))
		return fail("digest written differs from wsched_sha256_sw()", EIO);
	printf("crc32c %08x and sha256 match the software ones\n", crc);
	io_uring_queue_exit(&ring);
	wsched_queue_exit(&w);
	return 0;
}
