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
