/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hrtimers and interrupt masking for the user-space shim.  A timer only
 * records that it was started: nothing fires it here (no interrupt
 * context), so the heartbeat of kmod/core.c never beats natively and
 * frames are promoted on request and in waits only.
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
	_Atomic int queued;
};

static inline void hrtimer_init(struct hrtimer *t, int clock,
				enum hrtimer_mode mode)
{
	(void)clock;
	(void)mode;
	t->function = NULL;
	atomic_init(&t->queued, 0);
}

static inline void hrtimer_start(struct hrtimer *t, ktime_t tim,
				 enum hrtimer_mode mode)
{
	(void)tim;
	(void)mode;
	atomic_store(&t->queued, 1);
}

static inline int hrtimer_cancel(struct hrtimer *t)
{
	return atomic_exchange(&t->queued, 0);
}

static inline u64 hrtimer_forward_now(struct hrtimer *t, ktime_t interval)
{
	(void)t;
	(void)interval;
	return 1;
}

/* No interrupts here: masking them is a compiler barrier. */
#define local_irq_save(f)	do { (f) = 0; barrier(); } while (0)
#define local_irq_restore(f)	do { (void)(f); barrier(); } while (0)

#endif
