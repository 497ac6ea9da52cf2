// SPDX-License-Identifier: GPL-2.0
/*
 * The README's libwsched example: crc32c and xxhash64 of a buffer in
 * parallel in the kernel, joined by a nop; compared with the software ones.
 *
 *	cc -o example example.c $(pkg-config --cflags --libs libwsched)
 */
#include <stdio.h>
#include <string.h>
#include <wsched.h>

int main(void)
{
	static char data[1 << 20];
	struct iovec iov = { data, sizeof(data) };
	struct wsched_ring ring;
	struct wsched_sqe *sqe;
	struct wsched_cqe *cqe;
	__u32 crc = 0, preds[2] = { 0, 1 };
	__u64 xxh = 0;
	int ret, done = 0;

	memset(data, 'x', sizeof(data));
	ret = wsched_queue_init(8, &ring, 0);
	if (ret < 0) {
		fprintf(stderr, "wsched_queue_init: %s\n", strerror(-ret));
		return 1;
	}
	ret = wsched_register_buffers(&ring, &iov, 1);
	if (ret < 0) {
		fprintf(stderr, "wsched_register_buffers: %s\n", strerror(-ret));
		return 1;
	}

	/* Nodes 0 and 1: checksums of buffer 0, from offset 0. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_crc32c(sqe, 0, 0, sizeof(data), ~0U);
	wsched_sqe_set_data64(sqe, 0);
	sqe = wsched_get_sqe(&ring);
	wsched_prep_xxhash64(sqe, 0, 0, sizeof(data), 0);
	wsched_sqe_set_data64(sqe, 1);
	/* Node 2 waits for both and ends the graph. */
	sqe = wsched_get_sqe(&ring);
	wsched_prep_nop(sqe);
	wsched_sqe_set_preds(sqe, preds, 2);
	wsched_sqe_set_graph_end(sqe);
	wsched_sqe_set_data64(sqe, 2);

	ret = wsched_submit(&ring);
	if (ret < 0) {
		fprintf(stderr, "wsched_submit: %s\n", strerror(-ret));
		return 1;
	}
	while (!done) {			/* 3 node completions, then the graph's */
		ret = wsched_wait_cqe(&ring, &cqe);
		if (ret < 0)
			return 1;
		if (wsched_cqe_is_graph(cqe))
			done = 1;
		else if (cqe->user_data == 0)
			crc = ~(__u32)cqe->value;	/* standard CRC-32C */
		else if (cqe->user_data == 1)
			xxh = cqe->value;
		if (cqe->res < 0)
			fprintf(stderr, "node %llu: %s\n",
				(unsigned long long)cqe->user_data, strerror(-cqe->res));
		wsched_cqe_seen(&ring, cqe);
	}
	wsched_queue_exit(&ring);
	printf("crc32c %08x (software %08x), xxhash64 %016llx (software %016llx)\n",
	       crc, ~wsched_crc32c_sw(~0U, data, sizeof(data)), (unsigned long long)xxh,
	       (unsigned long long)wsched_xxhash64_sw(data, sizeof(data), 0));
	return crc == ~wsched_crc32c_sw(~0U, data, sizeof(data)) &&
	       xxh == wsched_xxhash64_sw(data, sizeof(data), 0) ? 0 : 1;
}
