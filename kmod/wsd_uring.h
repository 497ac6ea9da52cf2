/* SPDX-License-Identifier: GPL-2.0 */
/*
 * io_uring commands on /dev/wsched (uring_cmd.c): IORING_OP_URING_CMD
 * runs a graph staged in the file's SQ and completes as one io_uring CQE.
 */
#ifndef _WSD_URING_H
#define _WSD_URING_H

struct io_uring_cmd;

int wsd_uring_cmd(struct io_uring_cmd *ioucmd, unsigned int issue_flags);

#endif /* _WSD_URING_H */
