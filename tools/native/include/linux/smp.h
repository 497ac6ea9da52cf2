/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _NATIVE_SMP_H
#define _NATIVE_SMP_H
#include "../native_kernel.h"
#include "hrtimer.h"

/*
 * A call on another "CPU" (native.c): a timer that fires at once on the
 * kthread bound to that CPU, whose callback runs @func as an interrupt.
 */
typedef struct {
	struct hrtimer timer;
	void (*func)(void *info);
	void *info;
} call_single_data_t;

#define INIT_CSD(csd, f, i) do {			\
	hrtimer_init(&(csd)->timer, 0, 0);		\
	(csd)->func = (f);				\
	(csd)->info = (i);				\
} while (0)

int smp_call_function_single_async(int cpu, call_single_data_t *csd);

#endif
