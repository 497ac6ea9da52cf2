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
#define WSCHED_ABI_VERSION	1

/* Node operations (struct wsched_node.op). */
#define WSCHED_OP_NOP		0	/* do nothing; res 0 */
#define WSCHED_OP_SPIN		1	/* busy-loop arg[0] iterations; res 0 */
#define WSCHED_OP_FAIL		2	/* fail with res -arg[0] (1..4095) */
#define WSCHED_OP_LAST		WSCHED_OP_FAIL

/* Most iterations of one WSCHED_OP_SPIN node. */
#define WSCHED_SPIN_MAX		0x100000U

/* Most predecessors of one node. */
#define WSCHED_MAX_PREDS	64

/* Node flags (struct wsched_node.flags). */
/* A failure of this node does not cancel its dependents. */
#define WSCHED_NODE_SOFT_FAIL	_BITUL(0)
#define WSCHED_NODE_FLAGS	WSCHED_NODE_SOFT_FAIL

/* Graph flags (struct wsched_graph.flags): none defined yet. */
#define WSCHED_GRAPH_FLAGS	0U

/* Result flags (struct wsched_result.flags). */
#define WSCHED_RES_RAN		_BITUL(0)	/* the op ran */
#define WSCHED_RES_DEP_FAILED	_BITUL(1)	/* a predecessor failed */
#define WSCHED_RES_ABORTED	_BITUL(2)	/* the submitter was interrupted */

/* Features (struct wsched_probe.features). */
#define WSCHED_FEAT_GRAPH	_BITULL(0)	/* WSCHED_IOC_SUBMIT_GRAPH */

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
 * @ops: bit (1 << op) set for every supported WSCHED_OP_*
 * @features: WSCHED_FEAT_*
 * @node_flags: supported WSCHED_NODE_* flags
 * @graph_flags: supported WSCHED_GRAPH_* flags
 * @max_nodes: most nodes of one graph (the module parameter max_nodes)
 * @max_preds: WSCHED_MAX_PREDS
 * @max_spin: WSCHED_SPIN_MAX
 * @nr_workers: worker threads of the pool that runs the graphs
 * @nodes_run: nodes whose op ran, submitted through this open file
 * @graphs_run: graphs completed through this open file
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
	__u64 resv[4];
};

#define WSCHED_IOC_MAGIC	0xE7
#define WSCHED_IOC_PROBE	_IOWR(WSCHED_IOC_MAGIC, 0x00, struct wsched_probe)
#define WSCHED_IOC_SUBMIT_GRAPH	_IOWR(WSCHED_IOC_MAGIC, 0x01, struct wsched_graph)

#endif /* _UAPI_LINUX_WSCHED_H */
