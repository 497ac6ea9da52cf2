// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/wsched operations without data: nop, spin and fail.
 *
 * Listed in the operation table of opdef.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wsched.h>
#include <uapi/linux/wsched.h>

#include "ws_op.h"
#include "op_basic.h"

int wsd_nop_check(const struct ws_op_args *args)
{
	return __wsd_nop_check(args);
}

int wsd_nop_run(const struct ws_op_args *args, u64 *value)
{
	return 0;
}

int wsd_spin_check(const struct ws_op_args *args)
{
	return args->arg > WSCHED_SPIN_MAX ? -EINVAL : 0;
}

int wsd_spin_run(const struct ws_op_args *args, u64 *value)
{
	u64 i;

	for (i = 0; i < args->arg; i++) {
		if ((i & 1023) == 1023) {
			/* A worker of a process being killed: stop early. */
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
		cpu_relax();
	}
	return 0;
}

int wsd_fail_check(const struct ws_op_args *args)
{
	return !args->arg || args->arg > WSD_OP_MAX_ERRNO ? -EINVAL : 0;
}

int wsd_fail_run(const struct ws_op_args *args, u64 *value)
{
	return -(s32)args->arg;
}
