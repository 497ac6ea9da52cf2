/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * /dev/wsched: submit task graphs to the wsched work-stealing pool.
 *
 * Every structure here uses only fixed-size types, has explicit padding,
 * and has the same layout on 32-bit and 64-bit user space.  Reserved
 * fields and unknown flags must be zero; the kernel refuses the call
 * otherwise, so that they can be given a meaning later.
 * Documentation/uapi.rst describes the ABI.
 */
#ifndef _UAPI_LINUX_WSCHED_H
#define _UAPI_LINUX_WSCHED_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

/* Version of this ABI, reported by WSCHED_IOC_PROBE. */
#define WSCHED_ABI_VERSION	2

/*
 * Node operations (struct wsched_node.op, struct wsched_sqe.op).  Ranges
 * are (buffer, offset, length) triples in buffers registered with
 * WSCHED_IOC_REGISTER_BUFFERS; see struct wsched_sqe for the fields.
 */
#define WSCHED_OP_NOP		0	/* do nothing; res 0 */
#define WSCHED_OP_SPIN		1	/* busy-loop arg iterations; res 0 */
#define WSCHED_OP_FAIL		2	/* fail with res -arg (1..4095) */
#define WSCHED_OP_MEMCPY	3	/* copy (buf2, arg, len) to (buf, off, len) */
#define WSCHED_OP_MEMSET	4	/* fill (buf, off, len) with byte arg */
#define WSCHED_OP_MEMCMP	5	/* value: memcmp() sign of (buf,off) vs (buf2,arg) */
#define WSCHED_OP_CRC32C	6	/* value: crc32c of (buf, off, len), seed arg */
#define WSCHED_OP_XXHASH64	7	/* value: xxh64 of (buf, off, len), seed arg */
#define WSCHED_OP_SHA256	8	/* 32-byte digest of (buf, off, len) to (buf2, arg) */
#define WSCHED_OP_LAST		WSCHED_OP_SHA256

/*
 * Operations that other kernel modules register get numbers from
 * WSCHED_OP_DYNAMIC up; look them up by name with WSCHED_IOC_OP_LOOKUP.
 */
#define WSCHED_OP_DYNAMIC	256
#define WSCHED_OP_DYNAMIC_MAX	64	/* most registered operations */
#define WSCHED_OP_NAME_MAX	32	/* name size, NUL included */

/* Most iterations of one WSCHED_OP_SPIN node. */
#define WSCHED_SPIN_MAX		0x100000U

/* Most predecessors of one node. */
#define WSCHED_MAX_PREDS	64

/*
 * Node flags (struct wsched_node.flags, struct wsched_sqe.flags).
 * WSCHED_IOC_SUBMIT_GRAPH takes only WSCHED_NODE_SOFT_FAIL.
 */
/* A failure of this node does not cancel its dependents. */
#define WSCHED_NODE_SOFT_FAIL	_BITUL(0)
#define WSCHED_NODE_FLAGS	WSCHED_NODE_SOFT_FAIL
/* Post no completion for this node (the graph's own is still posted). */
#define WSCHED_SQE_NO_CQE	_BITUL(1)
/* Last entry of a graph: the graph is checked as a whole and starts. */
#define WSCHED_SQE_GRAPH_END	_BITUL(2)
#define WSCHED_SQE_FLAGS	(WSCHED_NODE_SOFT_FAIL | WSCHED_SQE_NO_CQE | \
				 WSCHED_SQE_GRAPH_END)

/* Graph flags (struct wsched_graph.flags): none defined yet. */
#define WSCHED_GRAPH_FLAGS	0U

/* Result flags (struct wsched_result.flags, struct wsched_cqe.flags). */
#define WSCHED_RES_RAN		_BITUL(0)	/* the op ran */
#define WSCHED_RES_DEP_FAILED	_BITUL(1)	/* a predecessor failed */
#define WSCHED_RES_ABORTED	_BITUL(2)	/* cancelled: interrupted or closed */
#define WSCHED_CQE_GRAPH	_BITUL(3)	/* the completion of a whole graph */

/* Features (struct wsched_probe.features, struct wsched_setup.features). */
#define WSCHED_FEAT_GRAPH	_BITULL(0)	/* WSCHED_IOC_SUBMIT_GRAPH */
#define WSCHED_FEAT_RINGS	_BITULL(1)	/* SETUP, ENTER, mmap, poll */
#define WSCHED_FEAT_BUFFERS	_BITULL(2)	/* registered buffers, data ops */
#define WSCHED_FEAT_OP_NAMES	_BITULL(3)	/* OP_LOOKUP, OP_LIST */
#define WSCHED_FEAT_URING_CMD	_BITULL(4)	/* IORING_OP_URING_CMD */
#define WSCHED_FEAT_URING_INLINE _BITULL(5)	/* WSCHED_URING_CMD_INLINE */

/**
 * struct wsched_node - one node of a task graph
 * @op: WSCHED_OP_*
 * @flags: WSCHED_NODE_*
 * @arg: operands of @op; those @op does not use must be zero
 * @user_data: copied to the node's result untouched
 * @nr_preds: number of predecessors, 0..WSCHED_MAX_PREDS
 * @resv: must be zero
 * @preds_ptr: user address of @nr_preds __u32 indices of nodes of the same
 *	graph that must finish first; each must be lower than this node's
 *	own index, so every graph is acyclic.  Must be 0 if @nr_preds is 0.
 *
 * WSCHED_IOC_SUBMIT_GRAPH runs only NOP, SPIN and FAIL nodes.
 */
struct wsched_node {
	__u32 op;
	__u32 flags;
	__u64 arg[3];
	__u64 user_data;
	__u32 nr_preds;
	__u32 resv;
	__u64 preds_ptr;
};

/**
 * struct wsched_result - what became of one node
 * @user_data: the node's user_data
 * @res: 0, a negative errno the op returned, or -ECANCELED if the node did
 *	not run (a predecessor failed, or the submitter was interrupted)
 * @flags: WSCHED_RES_*
 * @seq: completion order of the node within its graph, from 1; a node's
 *	seq is above those of all its predecessors
 * @resv: zero
 */
struct wsched_result {
	__u64 user_data;
	__s32 res;
	__u32 flags;
	__u32 seq;
	__u32 resv;
};

/**
 * struct wsched_graph - argument of WSCHED_IOC_SUBMIT_GRAPH
 * @nodes_ptr: user address of @nr_nodes struct wsched_node
 * @nr_nodes: 1..the module parameter max_nodes (default 10000)
 * @flags: WSCHED_GRAPH_*; must be zero for now
 * @results_ptr: user address of @nr_nodes struct wsched_result, written
 *	by the kernel (result i belongs to node i)
 * @size: sizeof(struct wsched_graph)
 * @node_size: sizeof(struct wsched_node)
 * @result_size: sizeof(struct wsched_result)
 * @resv: must be zero
 */
struct wsched_graph {
	__u64 nodes_ptr;
	__u32 nr_nodes;
	__u32 flags;
	__u64 results_ptr;
	__u32 size;
	__u32 node_size;
	__u32 result_size;
	__u32 resv[3];
};

/**
 * struct wsched_probe - argument of WSCHED_IOC_PROBE
 * @size: in: sizeof(struct wsched_probe); every other field must be zero
 *	on input
 * @version: WSCHED_ABI_VERSION
 * @ops: bit (1 << op) set for every supported built-in WSCHED_OP_*
 * @features: WSCHED_FEAT_*
 * @node_flags: supported WSCHED_NODE_* flags of WSCHED_IOC_SUBMIT_GRAPH
 * @graph_flags: supported WSCHED_GRAPH_* flags
 * @max_nodes: most nodes of one graph (the module parameter max_nodes)
 * @max_preds: WSCHED_MAX_PREDS
 * @max_spin: WSCHED_SPIN_MAX
 * @nr_workers: threads that may run the caller's graphs: the CPUs it may
 *	use, or the file's WSCHED_IOC_MAX_WORKERS cap when lower
 * @nodes_run: nodes whose op ran, submitted through this open file
 * @graphs_run: graphs completed through this open file
 * @sqe_flags: supported WSCHED_SQE_* (and WSCHED_NODE_*) flags of ring
 *	entries
 * @max_inflight: most nodes in flight per open file (module parameter)
 * @max_pinned: most bytes of registered buffers per open file: the module
 *	parameter max_pinned_mb, or the caller's RLIMIT_MEMLOCK (in whole
 *	pages) if lower and it lacks CAP_IPC_LOCK
 * @max_sq_entries: largest submission ring
 * @max_cq_entries: largest completion ring
 * @resv: zero
 */
struct wsched_probe {
	__u32 size;
	__u32 version;
	__u64 ops;
	__u64 features;
	__u32 node_flags;
	__u32 graph_flags;
	__u32 max_nodes;
	__u32 max_preds;
	__u32 max_spin;
	__u32 nr_workers;
	__u64 nodes_run;
	__u64 graphs_run;
	__u32 sqe_flags;
	__u32 max_inflight;
	__u64 max_pinned;
	__u32 max_sq_entries;
	__u32 max_cq_entries;
	__u64 resv;
};

/*
 * The rings.
 *
 * WSCHED_IOC_SETUP creates a submission ring (SQ) and a completion ring
 * (CQ) for the open file; map each with mmap(2) at WSCHED_OFF_SQ_RING and
 * WSCHED_OFF_CQ_RING, of the sizes the setup reports.  Head and tail are
 * free-running __u32 counters; an entry's slot is counter & ring_mask.
 *
 * SQ: the application writes entries at its tail, then publishes them
 * with a release store of the tail (pairs with the kernel's acquire load
 * in WSCHED_IOC_ENTER).  The kernel copies each entry once, then moves the
 * head with a release store: read the head with an acquire load before
 * reusing the slots below it.
 *
 * CQ: the kernel writes entries at its tail and publishes them with a
 * release store of the tail: read it with an acquire load, then the
 * entries.  After reading them, give the slots back with a release store
 * of the head (pairs with the kernel's acquire load before it writes).
 *
 * The kernel keeps its own copies of the SQ head and CQ tail and never
 * reads them back; it reads the SQ tail and the CQ head once per use.
 */

/**
 * struct wsched_sqe - a submission ring entry: one node of a graph
 * @op: WSCHED_OP_* or a registered operation (WSCHED_IOC_OP_LOOKUP)
 * @flags: WSCHED_NODE_SOFT_FAIL, WSCHED_SQE_NO_CQE, WSCHED_SQE_GRAPH_END
 * @user_data: copied to the node's completion (and, on the end entry, to
 *	the graph's completion)
 * @buf: registered buffer of the op's first range
 * @buf2: registered buffer of the op's second range
 * @off: offset of the first range in @buf
 * @len: length of the first range (and of the second, for MEMCPY/MEMCMP)
 * @arg: offset of the second range in @buf2 (MEMCPY source, MEMCMP second
 *	operand, SHA256 digest); otherwise the op's scalar: SPIN iterations,
 *	FAIL errno, MEMSET byte, CRC32C and XXHASH64 seed
 * @nr_preds: number of predecessors, 0..WSCHED_MAX_PREDS
 * @pred: the predecessor if @nr_preds is 1; else 0
 * @preds_ptr: if @nr_preds > 1, user address of @nr_preds __u32; else 0
 *
 * A graph is a run of entries ending with one that has
 * WSCHED_SQE_GRAPH_END; it may span several WSCHED_IOC_ENTER calls.  Nodes
 * are numbered from 0 within their graph, and a predecessor must have a
 * lower number, so every graph is acyclic.  Fields an op does not use
 * must be zero.
 */
struct wsched_sqe {
	__u32 op;
	__u32 flags;
	__u64 user_data;
	__u32 buf;
	__u32 buf2;
	__u64 off;
	__u64 len;
	__u64 arg;
	__u32 nr_preds;
	__u32 pred;
	__u64 preds_ptr;
};

/**
 * struct wsched_cqe - a completion ring entry
 * @user_data: the entry's user_data
 * @res: 0 or a negative errno.  A node: the op's error, or -ECANCELED if
 *	it did not run.  A graph (WSCHED_CQE_GRAPH): the error of the first
 *	node that failed, or 0
 * @flags: WSCHED_RES_* and WSCHED_CQE_GRAPH
 * @value: a node: the op's value (CRC32C, XXHASH64: the checksum; MEMCMP:
 *	-1, 0 or 1 as __s64); a graph: the number of nodes whose op ran
 * @seq: a node: its completion order within its graph, from 1, above
 *	those of its predecessors; a graph: its number of nodes
 * @resv: zero
 */
struct wsched_cqe {
	__u64 user_data;
	__s32 res;
	__u32 flags;
	__u64 value;
	__u32 seq;
	__u32 resv;
};

/**
 * struct wsched_sq_offsets - where the SQ's fields are in its mapping
 * @head: __u32 written by the kernel
 * @tail: __u32 written by the application
 * @ring_mask: __u32, ring_entries - 1
 * @ring_entries: __u32, a power of two
 * @entries: the array of struct wsched_sqe
 * @resv: zero
 */
struct wsched_sq_offsets {
	__u32 head;
	__u32 tail;
	__u32 ring_mask;
	__u32 ring_entries;
	__u32 entries;
	__u32 resv[3];
};

/**
 * struct wsched_cq_offsets - where the CQ's fields are in its mapping
 * @head: __u32 written by the application
 * @tail: __u32 written by the kernel
 * @ring_mask: __u32, ring_entries - 1
 * @ring_entries: __u32, a power of two
 * @overflow: __u32 written by the kernel: completions ever held back
 *	because the CQ was full (none is lost; they are posted once there
 *	is room)
 * @entries: the array of struct wsched_cqe
 * @resv: zero
 */
struct wsched_cq_offsets {
	__u32 head;
	__u32 tail;
	__u32 ring_mask;
	__u32 ring_entries;
	__u32 overflow;
	__u32 entries;
	__u32 resv[2];
};

/* Setup flags (struct wsched_setup.flags). */
/* Clamp ring sizes above the limits instead of failing with -EINVAL. */
#define WSCHED_SETUP_CLAMP	_BITUL(0)
#define WSCHED_SETUP_FLAGS	WSCHED_SETUP_CLAMP

/* mmap(2) offsets of the rings. */
#define WSCHED_OFF_SQ_RING	0ULL
#define WSCHED_OFF_CQ_RING	0x8000000ULL

/**
 * struct wsched_setup - argument of WSCHED_IOC_SETUP
 * @size: sizeof(struct wsched_setup)
 * @flags: WSCHED_SETUP_*
 * @sq_entries: in: 1..max_sq_entries; out: rounded up to a power of two
 * @cq_entries: in: 0 for twice @sq_entries, else at least @sq_entries;
 *	out: rounded up to a power of two
 * @features: out: WSCHED_FEAT_*
 * @resv0: zero
 * @sq_off: out: the SQ's layout
 * @cq_off: out: the CQ's layout
 * @sq_size: out: bytes to map at WSCHED_OFF_SQ_RING
 * @cq_size: out: bytes to map at WSCHED_OFF_CQ_RING
 * @resv: zero
 *
 * Every output field must be zero on input.  One setup per open file.
 */
struct wsched_setup {
	__u32 size;
	__u32 flags;
	__u32 sq_entries;
	__u32 cq_entries;
	__u64 features;
	struct wsched_sq_offsets sq_off;
	struct wsched_cq_offsets cq_off;
	__u64 sq_size;
	__u64 cq_size;
	__u64 resv[2];
};

/* Enter flags (struct wsched_enter.flags). */
/* Wait until min_complete completions are in the CQ. */
#define WSCHED_ENTER_GETEVENTS	_BITUL(0)
#define WSCHED_ENTER_FLAGS	WSCHED_ENTER_GETEVENTS

/**
 * struct wsched_enter - argument of WSCHED_IOC_ENTER
 * @size: sizeof(struct wsched_enter)
 * @flags: WSCHED_ENTER_*
 * @to_submit: SQ entries to consume, at most what the SQ holds
 * @min_complete: with WSCHED_ENTER_GETEVENTS, completions to wait for
 * @timeout_ns: with WSCHED_ENTER_GETEVENTS, most time to wait; 0: no limit
 * @submitted: out: entries consumed (those of a refused graph included)
 * @sq_error: out: 0, or the negative errno of a refused graph
 * @resv: zero
 *
 * Return: 0; or -1 with errno: the error of a refused graph (also in
 * @sq_error; the refused graph's entries are consumed and none of its
 * nodes runs), EBUSY (completions are held back: reap the CQ first),
 * EAGAIN (too many nodes in flight), EINTR, ETIME.  @submitted and
 * @sq_error are written in every case but EFAULT and the EINVAL of a bad
 * argument or a file without rings.
 */
struct wsched_enter {
	__u32 size;
	__u32 flags;
	__u32 to_submit;
	__u32 min_complete;
	__u64 timeout_ns;
	__u32 submitted;
	__s32 sq_error;
	__u64 resv[2];
};

/* Most registered buffers, and the most bytes of one. */
#define WSCHED_MAX_BUFS		256
#define WSCHED_BUF_MAX_LEN	_BITULL(30)

/**
 * struct wsched_buf - one buffer to register
 * @addr: user address, any alignment; the memory must be writable
 * @len: 1..WSCHED_BUF_MAX_LEN
 */
struct wsched_buf {
	__u64 addr;
	__u64 len;
};

/**
 * struct wsched_buf_reg - argument of WSCHED_IOC_REGISTER_BUFFERS
 * @size: sizeof(struct wsched_buf_reg)
 * @nr: 1..WSCHED_MAX_BUFS; buffer i is index i of struct wsched_sqe.buf
 * @bufs_ptr: user address of @nr struct wsched_buf
 * @flags: zero
 * @resv0: zero
 * @resv: zero
 *
 * The pages are pinned and charged to RLIMIT_MEMLOCK (ENOMEM beyond it,
 * unless CAP_IPC_LOCK) until WSCHED_IOC_UNREGISTER_BUFFERS or close.
 */
struct wsched_buf_reg {
	__u32 size;
	__u32 nr;
	__u64 bufs_ptr;
	__u32 flags;
	__u32 resv0;
	__u64 resv[2];
};

/**
 * struct wsched_op_info - a named operation
 * @op: WSCHED_OP_* or a registered operation's number
 * @flags: WSCHED_OPINFO_*
 * @name: NUL-terminated name ("nop", "crc32c", or a registered name)
 * @resv: zero
 */
struct wsched_op_info {
	__u32 op;
	__u32 flags;
	char name[WSCHED_OP_NAME_MAX];
	__u64 resv;
};

/* Operation info flags (struct wsched_op_info.flags). */
#define WSCHED_OPINFO_RANGE	_BITUL(0)	/* uses (buf, off, len) */
#define WSCHED_OPINFO_RANGE2	_BITUL(1)	/* uses (buf2, arg) */
#define WSCHED_OPINFO_BUILTIN	_BITUL(2)	/* part of wsched itself */

/**
 * struct wsched_op_lookup - argument of WSCHED_IOC_OP_LOOKUP
 * @size: sizeof(struct wsched_op_lookup)
 * @resv0: zero
 * @info: in: @info.name, the rest zero; out: the operation
 */
struct wsched_op_lookup {
	__u32 size;
	__u32 resv0;
	struct wsched_op_info info;
};

/**
 * struct wsched_op_list - argument of WSCHED_IOC_OP_LIST
 * @size: sizeof(struct wsched_op_list)
 * @nr: in: room at @ops_ptr; out: number of operations (may be more)
 * @ops_ptr: user address of @nr struct wsched_op_info to fill
 * @resv: zero
 */
struct wsched_op_list {
	__u32 size;
	__u32 nr;
	__u64 ops_ptr;
	__u64 resv[2];
};

#define WSCHED_IOC_MAGIC	0xE7
#define WSCHED_IOC_PROBE	_IOWR(WSCHED_IOC_MAGIC, 0x00, struct wsched_probe)
#define WSCHED_IOC_SUBMIT_GRAPH	_IOWR(WSCHED_IOC_MAGIC, 0x01, struct wsched_graph)
#define WSCHED_IOC_SETUP	_IOWR(WSCHED_IOC_MAGIC, 0x02, struct wsched_setup)
#define WSCHED_IOC_ENTER	_IOWR(WSCHED_IOC_MAGIC, 0x03, struct wsched_enter)
#define WSCHED_IOC_REGISTER_BUFFERS	_IOW(WSCHED_IOC_MAGIC, 0x04, struct wsched_buf_reg)
#define WSCHED_IOC_UNREGISTER_BUFFERS	_IO(WSCHED_IOC_MAGIC, 0x05)
#define WSCHED_IOC_OP_LOOKUP	_IOWR(WSCHED_IOC_MAGIC, 0x06, struct wsched_op_lookup)
#define WSCHED_IOC_OP_LIST	_IOWR(WSCHED_IOC_MAGIC, 0x07, struct wsched_op_list)
/*
 * The most worker threads this file's graphs may grow the submitting
 * process's worker set to: in, the new cap (0: leave it, just read); out,
 * the previous one (0: no cap of the file's own, the CPUs the process may
 * use).  See Documentation/uapi.rst, "Who runs the graphs".
 */
#define WSCHED_IOC_MAX_WORKERS	_IOWR(WSCHED_IOC_MAGIC, 0x08, __u32)

/*
 * io_uring commands: an io_uring SQE of op IORING_OP_URING_CMD whose fd is
 * a /dev/wsched file carries one of these in its cmd_op and its payload in
 * the first bytes of its cmd area (16 bytes in a 64-byte SQE).
 */
#define WSCHED_URING_CMD_SUBMIT	_IOW(WSCHED_IOC_MAGIC, 0x20, struct wsched_uring_submit)

/**
 * struct wsched_uring_submit - payload of WSCHED_URING_CMD_SUBMIT
 * @nr: entries of the file's SQ, from its head, that make one graph: the
 *	last of them, and only it, flagged WSCHED_SQE_GRAPH_END
 * @flags: zero
 * @resv: zero
 *
 * The io_uring completion carries the graph's result: the error of the
 * first node that failed, -ECANCELED if nodes did not run, else the
 * number of nodes (Documentation/uapi.rst, "io_uring commands").
 */
struct wsched_uring_submit {
	__u32 nr;
	__u32 flags;
	__u64 resv;
};

/*
 * WSCHED_URING_CMD_INLINE: the graph is in the command itself, the 80-byte
 * cmd area of an SQE of a ring set up with IORING_SETUP_SQE128 (refused
 * with EINVAL on a ring of 64-byte SQEs).  It needs the file's rings (its
 * nodes post their completions to the wsched CQ) but not its SQ.
 */
#define WSCHED_URING_CMD_INLINE	_IOW(WSCHED_IOC_MAGIC, 0x21, struct wsched_uring_inline)

#define WSCHED_URING_INLINE_V1	1	/* struct wsched_uring_inline.version */
#define WSCHED_URING_INLINE_MAX	3	/* most nodes of an inline graph */
/* Flags an inline node may carry. */
#define WSCHED_URING_INODE_FLAGS (WSCHED_NODE_SOFT_FAIL | WSCHED_SQE_NO_CQE)

/**
 * struct wsched_uring_inode - one node of an inline graph
 * @op: WSCHED_OP_* or a registered operation (WSCHED_IOC_OP_LOOKUP)
 * @flags: WSCHED_URING_INODE_FLAGS
 * @preds: its predecessors: bit i set for node i, only bits below the
 *	node's own index (so the graph is acyclic)
 * @buf: as struct wsched_sqe.buf
 * @buf2: as struct wsched_sqe.buf2
 * @resv: zero
 * @off: as struct wsched_sqe.off
 * @len: as struct wsched_sqe.len
 * @arg: as struct wsched_sqe.arg
 */
struct wsched_uring_inode {
	__u16 op;
	__u8 flags;
	__u8 preds;
	__u8 buf;
	__u8 buf2;
	__u16 resv;
	__u32 off;
	__u32 len;
	__u64 arg;
};

/**
 * struct wsched_uring_inline - payload of WSCHED_URING_CMD_INLINE
 * @version: WSCHED_URING_INLINE_V1
 * @nr: nodes in @nodes, 1..WSCHED_URING_INLINE_MAX
 * @flags: zero
 * @tag: node i's completion in the wsched CQ carries user_data
 *	((__u64)@tag << 32 | i)
 * @nodes: the graph; those from @nr on must be all zero
 *
 * The io_uring completion carries the graph's result, as for
 * WSCHED_URING_CMD_SUBMIT.
 */
struct wsched_uring_inline {
	__u8 version;
	__u8 nr;
	__u16 flags;
	__u32 tag;
	struct wsched_uring_inode nodes[WSCHED_URING_INLINE_MAX];
};

#endif /* _UAPI_LINUX_WSCHED_H */
