/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations /dev/wsched runs: the table and registry (opdef.c) and
 * the built-in families (op_basic.c, op_mem.c, op_hash.c).
 */
#ifndef _WS_OP_H
#define _WS_OP_H

#include <linux/sizes.h>
#include <linux/types.h>

struct ws_op;
struct ws_op_args;
struct wsched_op_info;

/* Bytes per chunk of a parallel data operation. */
#define WSD_OP_GRAIN		SZ_64K

/* Bytes a sequential hash takes between two chances to reschedule. */
#define WSD_OP_SLICE		SZ_256K

/* Largest errno a WSCHED_OP_FAIL node may return. */
#define WSD_OP_MAX_ERRNO	4095

/* The registry (opdef.c). */
const struct ws_op *wsd_op_get(u32 id);
void wsd_op_put(const struct ws_op *op);
int wsd_op_lookup(const char *name, struct wsched_op_info *info);
u32 wsd_op_list(struct wsched_op_info *infos, u32 room);
u64 wsd_builtin_ops_mask(void);
int wsd_ops_init(void);
void wsd_ops_exit(void);

/* op_basic.c */
int wsd_nop_check(const struct ws_op_args *args);
int wsd_nop_run(const struct ws_op_args *args, u64 *value);
int wsd_spin_check(const struct ws_op_args *args);
int wsd_spin_run(const struct ws_op_args *args, u64 *value);
int wsd_fail_check(const struct ws_op_args *args);
int wsd_fail_run(const struct ws_op_args *args, u64 *value);

/* op_mem.c */
int wsd_memcpy_run(const struct ws_op_args *args, u64 *value);
int wsd_memset_check(const struct ws_op_args *args);
int wsd_memset_run(const struct ws_op_args *args, u64 *value);
int wsd_memcmp_run(const struct ws_op_args *args, u64 *value);

/* op_hash.c */
int wsd_crc32c_check(const struct ws_op_args *args);
int wsd_crc32c_run(const struct ws_op_args *args, u64 *value);
int wsd_xxhash64_run(const struct ws_op_args *args, u64 *value);
int wsd_sha256_run(const struct ws_op_args *args, u64 *value);

/* /dev/wsched itself (dev.c). */
int ws_dev_init(void);
void ws_dev_exit(void);

#endif /* _WS_OP_H */
