/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hrtimers and interrupt masking for the user-space shim (native.c).
 *
 * A timer "interrupts" the thread that started it: a timer thread sends
 * that thread SIGURG when the timer expires, and the signal handler runs
 * the callback on it, between two of its instructions, with current
 * still the interrupted task: what an hrtimer pinned to a worker's CPU
 * does to the worker.  Masking interrupts (local_irq_save(), the _irq
 * and _irqsave locks, and every shim lock: a callback may take the
 * locks a kernel hrtimer may take, which are irq-safe there) makes the
 * handler note the interrupt and run it when the last mask is lifted.
 * A timer whose thread has exited fires on the timer thread.
 */
#ifndef _NATIVE_HRTIMER_H
#define _NATIVE_HRTIMER_H
#include "../native_kernel.h"

typedef s64 ktime_t;
#define NSEC_PER_USEC	1000L
static inline ktime_t ns_to_ktime(u64 ns) { return (ktime_t)ns; }

enum hrtimer_restart { HRTIMER_NORESTART, HRTIMER_RESTART };
enum hrtimer_mode { HRTIMER_MODE_REL_PINNED_HARD = 0x0b };

struct hrtimer {
	enum hrtimer_restart (*function)(struct hrtimer *timer);
	/* The rest: native.c, under its timer lock. */
	struct task_struct *target;
	struct hrtimer *next;
	s64 expires;		/* CLOCK_MONOTONIC ns */
	int state;		/* NATIVE_TMR_* */
};

void hrtimer_init(struct hrtimer *t, int clock, enum hrtimer_mode mode);
void hrtimer_start(struct hrtimer *t, ktime_t tim, enum hrtimer_mode mode);
int hrtimer_cancel(struct hrtimer *t);
u64 hrtimer_forward_now(struct hrtimer *t, ktime_t interval);

#define local_irq_save(f)	do { (f) = 0; native_irq_disable(); } while (0)
#define local_irq_restore(f)	do { (void)(f); native_irq_enable(); } while (0)

#endif
