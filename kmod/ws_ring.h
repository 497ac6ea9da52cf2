/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/wsched contexts: what dev.c (file operations, synchronous graphs)
 * and ring.c (rings, registered buffers, graphs submitted through the
 * rings) share.
 */
#ifndef _WS_RING_H
#define _WS_RING_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

struct mm_struct;
struct page;
struct poll_table_struct;
struct vm_area_struct;
struct wsd_rnode;

/**
 * struct wsd_region - kernel memory that user space maps (one ring)
 * @pages: the pages, charged to the opener's memory cgroup
 * @nr_pages: number of @pages
 * @vaddr: kernel mapping of @pages
 */
struct wsd_region {
	struct page **pages;
	unsigned int nr_pages;
	void *vaddr;
};

/**
 * struct wsd_buf - a registered buffer
 * @pages: the pinned user pages
 * @nr_pages: number of @pages
 * @map: kernel mapping of @pages (vmap())
 * @kaddr: kernel address of the buffer's first byte (in @map)
 * @len: length in bytes
 */
struct wsd_buf {
	struct page **pages;
	unsigned int nr_pages;
	void *map;
	void *kaddr;
	u64 len;
};

/**
 * struct wsd_build - the graph being put together from SQ entries
 * @nodes: nodes consumed so far
 * @nr: number of @nodes
 * @cap: room in @nodes
 * @preds: predecessor numbers of all @nodes, node after node
 * @nr_preds: number of @preds
 * @preds_cap: room in @preds
 * @skipping: a graph was refused before its end entry: drop entries up to
 *	and including that end entry
 */
struct wsd_build {
	struct wsd_rnode *nodes;
	u32 nr;
	u32 cap;
	u32 *preds;
	u32 nr_preds;
	u32 preds_cap;
	bool skipping;
};

/**
 * struct wsd_ctx - an open file of /dev/wsched
 * @nodes_run: nodes whose op ran
 * @graphs_run: graphs completed
 * @lock: serialises setup, submission, the graph being built and buffer
 *	registration.  Taken outside mmap_lock (pinning and copy_from_user
 *	run under it), so never taken from ->mmap.
 * @rings_ready: set (release) once the rings exist; they never change
 *	after that until the file is released
 * @sq: the submission ring's memory
 * @cq: the completion ring's memory
 * @sq_head: the SQ head in shared memory (kernel writes)
 * @sq_tail: the SQ tail in shared memory (user writes)
 * @sqes: the SQ entries in shared memory
 * @sq_entries: SQ size, a power of two
 * @sq_khead: the kernel's own SQ head; under @lock
 * @cq_head: the CQ head in shared memory (user writes)
 * @cq_tail: the CQ tail in shared memory (kernel writes)
 * @cq_overflow: the overflow counter in shared memory (kernel writes)
 * @cqes: the CQ entries in shared memory
 * @cq_entries: CQ size, a power of two
 * @cq_lock: serialises posting completions; protects the fields below it
 * @cq_ktail: the kernel's own CQ tail
 * @overflow_total: completions ever held back
 * @held: held-back completions (struct wsd_slot), oldest first
 * @nr_held: number of entries on @held
 * @cq_wait: ENTER waiters and pollers wait here for completions
 * @graphs_lock: protects @graphs
 * @graphs: graphs started and not yet freed
 * @nr_graphs: graphs started and not yet freed
 * @nr_running: graphs started whose tasks have not all finished
 * @inflight: nodes of the graphs counted by @nr_running
 * @reap: graphs ready to be freed
 * @reap_work: frees the graphs on @reap
 * @build: the graph being built; under @lock
 * @bufs: registered buffers; set and cleared under @lock, only while no
 *	graph is built or running, so graphs read them without a lock
 * @nr_bufs: number of @bufs
 * @pinned_pages: pages of @bufs charged to @mm's locked_vm
 * @mm: the mm that @pinned_pages are charged to (mmgrab() held)
 */
struct wsd_ctx {
	atomic64_t nodes_run;
	atomic64_t graphs_run;
	struct mutex lock;	/* see @lock above */
	bool rings_ready;
	struct wsd_region sq;
	struct wsd_region cq;
	u32 *sq_head;
	u32 *sq_tail;
	struct wsched_sqe *sqes;
	u32 sq_entries;
	u32 sq_khead;
	u32 *cq_head;
	u32 *cq_tail;
	u32 *cq_overflow;
	struct wsched_cqe *cqes;
	u32 cq_entries;

	spinlock_t cq_lock;	/* completion side, see above */
	u32 cq_ktail;
	u32 overflow_total;
	struct list_head held;
	u32 nr_held;
	wait_queue_head_t cq_wait;

	spinlock_t graphs_lock;	/* protects @graphs */
	struct list_head graphs;
	atomic_t nr_graphs;
	atomic_t nr_running;
	atomic_t inflight;
	struct llist_head reap;
	struct work_struct reap_work;

	struct wsd_build build;
	struct wsd_buf *bufs;
	u32 nr_bufs;
	unsigned long pinned_pages;
	struct mm_struct *mm;
};

/* Module parameters (dev.c). */
extern unsigned int wsd_max_nodes;
extern unsigned int wsd_max_inflight;
extern unsigned int wsd_max_pinned_mb;
extern unsigned int wsd_max_sq_entries;
extern unsigned int wsd_max_cq_entries;

/* Hard bounds of the parameters. */
#define WSD_NODES_LIMIT		(1024U * 1024)
#define WSD_SQ_LIMIT		32768U
#define WSD_CQ_LIMIT		65536U

u32 wsd_nodes_limit(void);
u32 wsd_inflight_limit(void);
u32 wsd_sq_limit(void);
u32 wsd_cq_limit(void);
u64 wsd_pinned_limit(void);

void wsd_ring_ctx_init(struct wsd_ctx *ctx);
void wsd_ring_ctx_release(struct wsd_ctx *ctx);
long wsd_setup(struct wsd_ctx *ctx, void __user *arg);
long wsd_enter(struct wsd_ctx *ctx, void __user *arg);
long wsd_register_buffers(struct wsd_ctx *ctx, void __user *arg);
long wsd_unregister_buffers(struct wsd_ctx *ctx);
int wsd_mmap(struct wsd_ctx *ctx, struct vm_area_struct *vma);
__poll_t wsd_poll_events(struct wsd_ctx *ctx);
void wsd_check_ring_layout(void);

#endif /* _WS_RING_H */
