/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wsched: differences between the kernels wsched supports.
 *
 * Supported: Debian 12's 6.1 and 6.12 (also its PREEMPT_RT flavour).
 *
 * kmod/Kbuild includes this file ahead of every source file (-include),
 * so it includes nothing but linux/version.h (a source file's pr_fmt must
 * come before the kernel headers) and its shims are macros.  Each shim
 * names the version that changed the interface; call sites use one
 * spelling for all kernels.  This is the only file that tests
 * LINUX_VERSION_CODE (tools/qemu/checkpatch.sh lets it).
 */
#ifndef _WS_COMPAT_H
#define _WS_COMPAT_H

#include <linux/version.h>

/* True when building for a kernel older than @major.@minor. */
#define WS_KERNEL_BEFORE(major, minor) \
	(KERNEL_VERSION(major, minor, 0) > LINUX_VERSION_CODE)

/*
 * The wake flag of a waker that is about to sleep, WF_SYNC (private to
 * kernel/sched/sched.h), which wait-queue wakers pass to
 * default_wake_function() (__wake_up_sync_key()): 0x10 on 6.1 and 6.12
 * (since the wake flags were renumbered around WF_TTWU).  There
 * default_wake_function() warns (CONFIG_SCHED_DEBUG) about any flag but
 * WF_SYNC (and 6.12's WF_CURRENT_CPU).  Only the kernels it was read
 * from (5.8's numbering, checked on 6.1 and 6.12) get it.
 */
#if WS_KERNEL_BEFORE(6, 13)
#define WS_WF_SYNC	0x10
#else
/* Not checked against this kernel's sched.h: a plain wake-up. */
#define WS_WF_SYNC	0
#endif

/*
 * 6.3 made vma->vm_flags read-only: vm_flags_set() changes them (and
 * asserts that the mmap lock is held for writing).
 */
#if WS_KERNEL_BEFORE(6, 3)
#define vm_flags_set(vma, flags)	((vma)->vm_flags |= (flags))
#endif

/*
 * 6.12 dropped kvrealloc()'s old-size argument (the allocator knows it);
 * ws_kvrealloc() takes both sizes and passes what the kernel wants (on
 * 6.12 @oldsize is evaluated and discarded).
 */
#if WS_KERNEL_BEFORE(6, 12)
#define ws_kvrealloc(p, oldsize, newsize, gfp) \
	kvrealloc(p, oldsize, newsize, gfp)
#else
#define ws_kvrealloc(p, oldsize, newsize, gfp) \
	kvrealloc(p, ((void)(oldsize), (newsize)), gfp)
#endif

/*
 * 6.12 removed no_llseek(): a NULL .llseek now means the file cannot seek,
 * which is what no_llseek() did before.
 */
#if !WS_KERNEL_BEFORE(6, 12)
#define no_llseek	NULL
#endif

/*
 * User worker threads: vhost_task_create() (6.4) took its SIGKILL handler
 * in 6.11; it is built when CONFIG_VHOST_TASK=y (VHOST selects it, as
 * Debian's 6.12 does).  With it, a user pool's workers are threads of the
 * submitting process (uworker.c); without it, adopted kthreads.
 */
#if !WS_KERNEL_BEFORE(6, 11) && defined(CONFIG_VHOST_TASK)
#define WS_USER_WORKERS	1
#else
#define WS_USER_WORKERS	0
#endif

/*
 * io_uring commands (uring_cmd.c), file_operations.uring_cmd.
 *
 * - 6.1 declares struct io_uring_cmd and its functions in
 *   <linux/io_uring.h>; 6.8 moved them to <linux/io_uring/cmd.h>
 *   (WS_IO_URING_CMD_H names the one to include; a string, since "linux"
 *   is a predefined macro that <linux/...> would expand).
 * - Before 6.6 the command points at its payload (@cmd, the SQE's cmd
 *   area); from 6.6 at the whole SQE (@sqe), whose cmd area
 *   io_uring_sqe_cmd() gives: ws_uring_cmd_payload().
 * - io_uring_cmd_done()'s res2 was an ssize_t and is a u64 on 6.12; wsched
 *   passes 0, which both take: ws_uring_cmd_done() hides the argument.
 * - 6.1's io_uring_cmd() passes the driver's return on as the issue's:
 *   a positive result (a graph's node count) is taken for a failure and
 *   cancels the linked requests; 6.12 sets it as the result.  uring_cmd.c
 *   completes a positive result through io_uring_cmd_done() and returns
 *   -EIOCBQUEUED on both, as ublk does.
 * - io_uring_cmd_complete_in_task() is a function on 6.1 and an inline
 *   wrapper of __io_uring_cmd_do_in_task() on 6.12, with the same
 *   arguments: called by that name on both.
 * - 6.7 added io_uring_cmd_mark_cancelable() and IO_URING_F_CANCEL: a
 *   command so marked is handed back to ->uring_cmd() with
 *   IO_URING_F_CANCEL when its ring is torn down or a task that used the
 *   ring calls execve() (io_uring_try_cancel_uring_cmd()).  Before,
 *   nothing cancels a command: WS_URING_CMD_CANCEL is 0 and the shims do
 *   nothing.  IORING_OP_ASYNC_CANCEL reaches driver commands on neither.
 */
#if WS_KERNEL_BEFORE(6, 8)
#define WS_IO_URING_CMD_H	"linux/io_uring.h"
#else
#define WS_IO_URING_CMD_H	"linux/io_uring/cmd.h"
#endif

#if WS_KERNEL_BEFORE(6, 6)
#define ws_uring_cmd_payload(ioucmd)	((ioucmd)->cmd)
#else
#define ws_uring_cmd_payload(ioucmd)	io_uring_sqe_cmd((ioucmd)->sqe)
#endif

#define ws_uring_cmd_done(ioucmd, res, issue_flags) \
	io_uring_cmd_done(ioucmd, res, 0, issue_flags)

#if WS_KERNEL_BEFORE(6, 7)
#define WS_URING_CMD_CANCEL	0
#define WS_IO_URING_F_CANCEL	0
#define ws_uring_cmd_mark_cancelable(ioucmd, issue_flags) \
	do { (void)(ioucmd); (void)(issue_flags); } while (0)
#else
#define WS_URING_CMD_CANCEL	1
#define WS_IO_URING_F_CANCEL	IO_URING_F_CANCEL
#define ws_uring_cmd_mark_cancelable(ioucmd, issue_flags) \
	io_uring_cmd_mark_cancelable(ioucmd, issue_flags)
#endif

/*
 * Whether two CPUs share their last-level cache, for choosing victims.
 * cpus_share_cache() and the scheduler's sd_llc_id are not exported, and
 * they follow sched domain rebuilds, which trail CPU hotplug.  x86 keeps
 * each CPU's LLC ID in cpu_data() (the exported cpu_info), set when the
 * CPU is brought up; 6.7 moved it into cpuinfo_x86.topo.  Where it is
 * unknown (BAD_APICID), on older kernels (6.1 keeps it in a per-CPU
 * variable that is not exported) and elsewhere, the CPUs of one die are
 * taken to share it, as they do on most Intel parts (not on AMD's, whose
 * LLC is per core complex).
 */
#if defined(CONFIG_X86) && !WS_KERNEL_BEFORE(6, 7)
/* BAD_APICID: not reached through the other headers on every config. */
#include <asm/apicdef.h>
#define ws_cpus_share_llc(a, b) ({					\
	unsigned int __ws_a = (a), __ws_b = (b);			\
	cpu_data(__ws_a).topo.llc_id != BAD_APICID ?			\
		cpu_data(__ws_a).topo.llc_id ==				\
		cpu_data(__ws_b).topo.llc_id :				\
		cpumask_test_cpu(__ws_b, topology_die_cpumask(__ws_a));	\
})
#else
#define ws_cpus_share_llc(a, b)	cpumask_test_cpu((b), topology_die_cpumask(a))
#endif

#endif /* _WS_COMPAT_H */
