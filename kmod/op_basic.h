/* SPDX-License-Identifier: GPL-2.0 */
/* NOP, SPIN and FAIL (op_basic.c), listed in the table of opdef.c. */
#ifndef _WSD_OP_BASIC_H
#define _WSD_OP_BASIC_H

#include <linux/types.h>

struct ws_op_args;

int wsd_nop_check(const struct ws_op_args *args);
int wsd_nop_run(const struct ws_op_args *args, u64 *value);
int wsd_spin_check(const struct ws_op_args *args);
int wsd_spin_run(const struct ws_op_args *args, u64 *value);
int wsd_fail_check(const struct ws_op_args *args);
int wsd_fail_run(const struct ws_op_args *args, u64 *value);

#endif /* _WSD_OP_BASIC_H */
