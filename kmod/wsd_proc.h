/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes that submit to /dev/wsched, each with its worker set
 * (proc.c).
 */
#ifndef _WSD_PROC_H
#define _WSD_PROC_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/types.h>

struct pid;
struct ws_pool;

/**
 * struct wsd_proc - a process that submits, and its worker pool
 * @node: in proc.c's table, under wsd_procs_lock
 * @tgid: the process (its thread-group pid; a reference) (I)
 * @refs: one per file that ran graphs for the process (wsd_procs_lock)
 * @pool: its pool (I)
 */
struct wsd_proc {
	struct hlist_node node;
	struct pid *tgid;
	unsigned int refs;
	struct ws_pool *pool;
};

/* Processes with a pool now, for debugfs (wsched/dev). */
extern atomic_t wsd_nr_procs;

struct wsd_proc *wsd_proc_get(void);
void wsd_proc_put(struct wsd_proc *proc);

#endif /* _WSD_PROC_H */
