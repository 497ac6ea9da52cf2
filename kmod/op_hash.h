/* SPDX-License-Identifier: GPL-2.0 */
/* crc32c, xxhash64 and sha256 (op_hash.c), listed in the table of opdef.c. */
#ifndef _WSD_OP_HASH_H
#define _WSD_OP_HASH_H

#include <linux/types.h>

struct ws_op_args;

int wsd_crc32c_check(const struct ws_op_args *args);
int wsd_crc32c_run(const struct ws_op_args *args, u64 *value);
int wsd_xxhash64_run(const struct ws_op_args *args, u64 *value);
int wsd_sha256_run(const struct ws_op_args *args, u64 *value);

#endif /* _WSD_OP_HASH_H */
