/* SPDX-License-Identifier: GPL-2.0 */
/* memcpy, memset and memcmp (op_mem.c), listed in the table of opdef.c. */
#ifndef _WSD_OP_MEM_H
#define _WSD_OP_MEM_H

#include <linux/types.h>

struct ws_op_args;

int wsd_memcpy_run(const struct ws_op_args *args, u64 *value);
int wsd_memset_check(const struct ws_op_args *args);
int wsd_memset_run(const struct ws_op_args *args, u64 *value);
int wsd_memcmp_run(const struct ws_op_args *args, u64 *value);

#endif /* _WSD_OP_MEM_H */
