/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched, the user-space interface (dev.c), and its table of
 * operations (ops.c).
 */
#ifndef _WS_DEV_H
#define _WS_DEV_H

#include <linux/types.h>

struct ws_op;
struct wsched_op_info;

int ws_dev_init(void);
void ws_dev_exit(void);

const struct ws_op *wsd_op_get(u32 id);
void wsd_op_put(const struct ws_op *op);
int wsd_op_lookup(const char *name, struct wsched_op_info *info);
u32 wsd_op_list(struct wsched_op_info *infos, u32 room);
u64 wsd_builtin_ops_mask(void);
int wsd_ops_init(void);
void wsd_ops_exit(void);

#endif /* _WS_DEV_H */
