// SPDX-License-Identifier: GPL-2.0
/*
 * The run-time half of the user-space shim (see native_kernel.h): threads
 * standing in for kthreads, sleeping and waking, wait_var_event hash
 * queues, CPU hotplug over N pretend CPUs, per-CPU areas, deferred frees.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <signal.h>
#include <linux/hrtimer.h>
#include <linux/smp.h>
#include <linux/kthread.h>
#include "wsched_internal.h"

int native_verbose;
unsigned int nr_cpu_ids = 1;
struct cpumask native_cpu_possible_mask;
struct cpumask native_cpu_self_mask[NR_CPUS];
_Atomic long native_alloc_fail;
_Thread_local struct task_struct *native_current;
_Thread_local size_t native_pcpu_off;
static _Thread_local struct task_struct native_self;
static bool native_pin;

/* ---- tasks ----------------------------------------------------------- */
static void native_task_init(struct task_struct *t)
{
	atomic_init(&t->__state, TASK_RUNNING);
	atomic_init(&t->usage, 1);
	t->cpus_ptr = cpu_possible_mask;
	spin_lock_init(&t->pi_lock);
	pthread_mutex_init(&t->lock, NULL);
	pthread_cond_init(&t->cond, NULL);
}

struct task_struct *native_get_current_slow(void)
{
	/* A thread that is not a kthread: a "user" task. */
	struct task_struct *t = &native_self;

	native_task_init(t);
	t->thread = pthread_self();
	snprintf(t->comm, sizeof(t->comm), "user");
	native_current = t;
	return t;
}

/* The task locks are irq-safe, like pi_lock: a timer callback wakes. */
int wake_up_process(struct task_struct *p)
{
	int was;

	native_irq_disable();
	pthread_mutex_lock(&p->lock);
	was = atomic_exchange(&p->__state, TASK_RUNNING) != TASK_RUNNING;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	native_irq_enable();
	return was;
}

/*
 * The sleeper's side of an interrupt that came while it sleeps (the
 * timer thread set @t->irq_kicked and woke it): take it here, with
 * interrupts on, as an idle CPU takes its interrupts, then sleep on.
 * Without this a timer fired for a sleeping thread waited until that
 * thread woke, and hrtimer_cancel() of it waited for ever when none
 * came.  Called and returns with @t->lock held and interrupts off.
 */
static void native_sleep_irqs(struct task_struct *t)
{
	while (t->irq_kicked) {
		t->irq_kicked = false;
		pthread_mutex_unlock(&t->lock);
		native_irq_off--;
		native_irq_run();
		native_irq_off++;
		pthread_mutex_lock(&t->lock);
	}
}

void schedule(void)
{
	struct task_struct *t = current;

	native_irq_disable();
	pthread_mutex_lock(&t->lock);
	for (;;) {
		native_sleep_irqs(t);
		if (atomic_load(&t->__state) == TASK_RUNNING)
			break;
		pthread_cond_wait(&t->cond, &t->lock);
	}
	pthread_mutex_unlock(&t->lock);
	native_irq_enable();
}

long schedule_timeout(long timeout)
{
	struct task_struct *t = current;
	struct timespec ts;
	int ret = 0;

	if (timeout == MAX_SCHEDULE_TIMEOUT) {
		schedule();
		return timeout;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += timeout * (1000000000L / HZ);
	ts.tv_sec += ts.tv_nsec / 1000000000L;
	ts.tv_nsec %= 1000000000L;
	native_irq_disable();
	pthread_mutex_lock(&t->lock);
	for (;;) {
		native_sleep_irqs(t);
		if (atomic_load(&t->__state) == TASK_RUNNING || ret)
			break;
		ret = pthread_cond_timedwait(&t->cond, &t->lock, &ts);
	}
	pthread_mutex_unlock(&t->lock);
	native_irq_enable();
	atomic_store(&t->__state, TASK_RUNNING);
	return ret ? 0 : 1;
}

long schedule_timeout_idle(long timeout)
{
	set_current_state(TASK_IDLE);
	return schedule_timeout(timeout);
}

/* ---- hrtimers (linux/hrtimer.h) -------------------------------------- */
enum { NATIVE_TMR_IDLE, NATIVE_TMR_QUEUED, NATIVE_TMR_FIRING };

_Thread_local int native_irq_off;
_Thread_local volatile int native_irq_deferred;
static pthread_mutex_t native_tmr_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t native_tmr_cond;
static struct hrtimer *native_tmr_queue;	/* queued timers, unsorted */
static pthread_t native_tmr_thread;
static bool native_tmr_started;
static _Atomic bool native_tmr_exit;
static struct task_struct native_tmr_task;	/* current of the timer thread */

static s64 native_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Run a fired timer's callback here; requeue it if it asks. */
static void native_hrtimer_fire(struct hrtimer *h)
{
	enum hrtimer_restart r = h->function(h);

	pthread_mutex_lock(&native_tmr_lock);
	if (h->state == NATIVE_TMR_FIRING) {
		if (r == HRTIMER_RESTART) {
			h->state = NATIVE_TMR_QUEUED;
			h->next = native_tmr_queue;
			native_tmr_queue = h;
			pthread_cond_signal(&native_tmr_cond);
		} else {
			h->state = NATIVE_TMR_IDLE;
		}
	}
	pthread_mutex_unlock(&native_tmr_lock);
}

/* The "interrupt": run the timers that fired for the current thread. */
void native_irq_run(void)
{
	struct task_struct *t = current;
	struct hrtimer *h;

	native_irq_deferred = 0;
	/* Nested interrupts wait, as in a hard interrupt. */
	native_irq_off++;
	for (;;) {
		pthread_mutex_lock(&native_tmr_lock);
		h = t->irq_pending;
		if (h)
			t->irq_pending = h->next;
		pthread_mutex_unlock(&native_tmr_lock);
		if (!h)
			break;
		native_hrtimer_fire(h);
	}
	native_irq_off--;
}

static void native_irq_handler(int sig)
{
	int saved = errno;

	(void)sig;
	if (native_irq_off)
		native_irq_deferred = 1;
	else
		native_irq_run();
	errno = saved;
}

static void *native_tmr_main(void *arg)
{
	(void)arg;
	native_task_init(&native_tmr_task);
	snprintf(native_tmr_task.comm, sizeof(native_tmr_task.comm), "timer");
	native_current = &native_tmr_task;
	pthread_mutex_lock(&native_tmr_lock);
	while (!atomic_load(&native_tmr_exit)) {
		struct hrtimer **p, *h, *orphans = NULL;
		s64 now = native_now(), next = now + 1000000000LL;
		struct timespec ts;

		for (p = &native_tmr_queue; (h = *p);) {
			if (h->expires > now) {
				next = min(next, h->expires);
				p = &h->next;
				continue;
			}
			*p = h->next;
			h->state = NATIVE_TMR_FIRING;
			if (h->target) {
				struct task_struct *t = h->target;

				/* Valid until joined: it orphans us first. */
				h->next = t->irq_pending;
				t->irq_pending = h;
				pthread_kill(t->thread, SIGURG);
				/*
				 * A sleeping target takes it in schedule():
				 * the signal only defers it there.  Under its
				 * lock, so that no sleep misses the flag.
				 */
				pthread_mutex_lock(&t->lock);
				t->irq_kicked = true;
				pthread_cond_signal(&t->cond);
				pthread_mutex_unlock(&t->lock);
			} else {
				h->next = orphans;
				orphans = h;
			}
		}
		if (orphans) {
			pthread_mutex_unlock(&native_tmr_lock);
			while ((h = orphans)) {
				orphans = h->next;
				native_hrtimer_fire(h);
			}
			pthread_mutex_lock(&native_tmr_lock);
			continue;
		}
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		pthread_cond_timedwait(&native_tmr_cond, &native_tmr_lock, &ts);
	}
	pthread_mutex_unlock(&native_tmr_lock);
	return NULL;
}

void hrtimer_init(struct hrtimer *t, int clock, enum hrtimer_mode mode)
{
	(void)clock;
	(void)mode;
	memset(t, 0, sizeof(*t));
}

/*
 * The kthread last bound to each "CPU" that has not exited: the target of
 * smp_call_function_single_async() (timer lock).
 */
static struct task_struct *native_cpu_kthread[NR_CPUS];

/* Queue @t to fire on @target after @tim ns; timer lock held. */
static void native_hrtimer_queue(struct hrtimer *t, ktime_t tim,
				 struct task_struct *target)
{
	if (!native_tmr_started) {
		struct sigaction sa = { .sa_handler = native_irq_handler,
					.sa_flags = SA_RESTART };
		pthread_condattr_t ca;

		sigemptyset(&sa.sa_mask);
		sigaction(SIGURG, &sa, NULL);
		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&native_tmr_cond, &ca);
		pthread_condattr_destroy(&ca);
		pthread_create(&native_tmr_thread, NULL, native_tmr_main, NULL);
		native_tmr_started = true;
	}
	t->target = target;
	t->expires = native_now() + tim;
	if (t->state == NATIVE_TMR_IDLE) {
		t->state = NATIVE_TMR_QUEUED;
		t->next = native_tmr_queue;
		native_tmr_queue = t;
	}
	pthread_cond_signal(&native_tmr_cond);
}

/*
 * Pinned: the timer interrupts the thread that starts it.  Started from
 * the timer thread (by an IPI whose target exited, which runs there), it
 * fires there too, as an orphan: that thread has no signal to take.
 */
void hrtimer_start(struct hrtimer *t, ktime_t tim, enum hrtimer_mode mode)
{
	struct task_struct *target = current;

	(void)mode;
	if (target == &native_tmr_task)
		target = NULL;
	native_irq_disable();
	pthread_mutex_lock(&native_tmr_lock);
	native_hrtimer_queue(t, tim, target);
	pthread_mutex_unlock(&native_tmr_lock);
	native_irq_enable();
}

static enum hrtimer_restart native_csd_fire(struct hrtimer *t)
{
	call_single_data_t *csd = container_of(t, call_single_data_t, timer);

	csd->func(csd->info);
	return HRTIMER_NORESTART;
}

/*
 * An IPI: @csd's function runs as an interrupt of the kthread bound to
 * @cpu (the last one, if several pools have one there: the function then
 * interrupts another pool's worker, as an IPI interrupts whatever runs on
 * the CPU).  -ENXIO if none is left, as for an offline CPU.  The caller
 * keeps @csd until its function has run, as the kernel's callers do.
 */
int smp_call_function_single_async(int cpu, call_single_data_t *csd)
{
	struct task_struct *target;
	int ret = -ENXIO;

	native_irq_disable();
	pthread_mutex_lock(&native_tmr_lock);
	target = cpu >= 0 && cpu < NR_CPUS ? native_cpu_kthread[cpu] : NULL;
	if (target) {
		csd->timer.function = native_csd_fire;
		native_hrtimer_queue(&csd->timer, 0, target);
		ret = 0;
	}
	pthread_mutex_unlock(&native_tmr_lock);
	native_irq_enable();
	return ret;
}

u64 hrtimer_forward_now(struct hrtimer *t, ktime_t interval)
{
	/* Called by the callback: the timer is ours until it returns. */
	t->expires = native_now() + interval;
	return 1;
}

/* Dequeue; wait for a callback that fired to finish (not from it). */
int hrtimer_cancel(struct hrtimer *t)
{
	int was = 0;

	for (;;) {
		struct hrtimer **p;

		native_irq_disable();
		pthread_mutex_lock(&native_tmr_lock);
		if (t->state == NATIVE_TMR_QUEUED) {
			for (p = &native_tmr_queue; *p != t; p = &(*p)->next)
				;
			*p = t->next;
			t->state = NATIVE_TMR_IDLE;
			was = 1;
		}
		if (t->state == NATIVE_TMR_IDLE) {
			pthread_mutex_unlock(&native_tmr_lock);
			native_irq_enable();
			return was;
		}
		pthread_mutex_unlock(&native_tmr_lock);
		native_irq_enable();
		usleep(100);
	}
}

/*
 * @t's thread is about to exit: its timers fire on the timer thread from
 * now on, and those that fired for it and did not run yet run there.
 */
static void native_hrtimer_orphan(struct task_struct *t)
{
	struct hrtimer *h;

	native_irq_disable();
	pthread_mutex_lock(&native_tmr_lock);
	if (t->cpu < NR_CPUS && native_cpu_kthread[t->cpu] == t)
		native_cpu_kthread[t->cpu] = NULL;
	for (h = native_tmr_queue; h; h = h->next)
		if (h->target == t)
			h->target = NULL;
	while ((h = t->irq_pending)) {
		t->irq_pending = h->next;
		h->target = NULL;
		h->state = NATIVE_TMR_QUEUED;
		h->next = native_tmr_queue;
		native_tmr_queue = h;
	}
	pthread_cond_signal(&native_tmr_cond);
	pthread_mutex_unlock(&native_tmr_lock);
	/* Drop a deferred interrupt: nothing is pending for us any more. */
	native_irq_deferred = 0;
	native_irq_enable();
}

/* ---- kthreads -------------------------------------------------------- */
static void *native_kthread_main(void *arg)
{
	struct task_struct *t = arg;
	pthread_attr_t attr;
	size_t size;

	native_current = t;
	pthread_getattr_np(pthread_self(), &attr);
	pthread_attr_getstack(&attr, &t->stack, &size);
	pthread_attr_destroy(&attr);
	/* A new kthread sleeps until its first wake_up_process(). */
	schedule();
	/* Bound by now, if at all (kthread_bind() precedes the wake-up). */
	native_pcpu_off = (size_t)t->cpu * NATIVE_PCPU_STRIDE;
	if (atomic_load(&t->should_stop))
		t->result = -EINTR;
	else
		t->result = t->threadfn(t->data);
	native_hrtimer_orphan(t);
	return NULL;
}

struct task_struct *kthread_create_on_node(int (*fn)(void *data), void *data,
					   int node, const char *fmt, ...)
{
	struct task_struct *t = calloc(1, sizeof(*t));
	pthread_attr_t attr;
	va_list ap;

	(void)node;
	if (!t)
		return ERR_PTR(-ENOMEM);
	native_task_init(t);
	atomic_store(&t->__state, TASK_UNINTERRUPTIBLE);
	t->flags = PF_KTHREAD;
	t->threadfn = fn;
	t->data = data;
	va_start(ap, fmt);
	vsnprintf(t->comm, sizeof(t->comm), fmt, ap);
	va_end(ap);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, THREAD_SIZE);
	if (pthread_create(&t->thread, &attr, native_kthread_main, t)) {
		pthread_attr_destroy(&attr);
		free(t);
		return ERR_PTR(-EAGAIN);
	}
	pthread_attr_destroy(&attr);
	return t;
}

void kthread_bind(struct task_struct *t, unsigned int cpu)
{
	t->cpu = cpu;
	native_irq_disable();
	pthread_mutex_lock(&native_tmr_lock);
	if (cpu < NR_CPUS)
		native_cpu_kthread[cpu] = t;
	pthread_mutex_unlock(&native_tmr_lock);
	native_irq_enable();
	if (native_pin) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu % (n > 0 ? n : 1), &set);
		pthread_setaffinity_np(t->thread, sizeof(set), &set);
	}
}

int kthread_stop(struct task_struct *t)
{
	int ret;

	atomic_store(&t->should_stop, true);
	wake_up_process(t);
	pthread_join(t->thread, NULL);
	ret = t->result;
	/* Freed now unless someone holds it, as in the kernel. */
	put_task_struct(t);
	return ret;
}

/* The last reference to a kthread's task is gone. */
void native_task_free(struct task_struct *t)
{
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
}

bool kthread_should_stop(void)
{
	return atomic_load(&current->should_stop);
}

void *kthread_func(struct task_struct *t)
{
	return (t->flags & PF_KTHREAD) ? (void *)t->threadfn : NULL;
}

void *kthread_data(struct task_struct *t)
{
	return t->data;
}

/* ---- wait_var_event queues ------------------------------------------- */
#define NATIVE_WQ_BITS	8
static struct wait_queue_head native_wq[1 << NATIVE_WQ_BITS];

struct wait_queue_head *__var_waitqueue(void *p)
{
	u64 h = ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ULL;

	return &native_wq[h >> (64 - NATIVE_WQ_BITS)];
}

void init_wait_var_entry(struct wait_bit_queue_entry *wbq, void *var, int flags)
{
	wbq->key.flags = var;
	wbq->key.bit_nr = -1;
	wbq->key.timeout = 0;
	wbq->wq_entry.flags = flags;
	wbq->wq_entry.private = current;
	wbq->wq_entry.func = NULL;
	INIT_LIST_HEAD(&wbq->wq_entry.entry);
}

long prepare_to_wait_event(struct wait_queue_head *wq, struct wait_queue_entry *e,
			   int state)
{
	spin_lock(&wq->lock);
	if (list_empty(&e->entry)) {
		list_add_tail(&e->entry, &wq->head);
		atomic_fetch_add(&wq->nr_waiters, 1);
	}
	set_current_state(state);
	spin_unlock(&wq->lock);
	return 0;
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e)
{
	__set_current_state(TASK_RUNNING);
	spin_lock(&wq->lock);
	if (!list_empty(&e->entry)) {
		list_del_init(&e->entry);
		atomic_fetch_sub(&wq->nr_waiters, 1);
	}
	spin_unlock(&wq->lock);
}

void wake_up_var(void *var)
{
	struct wait_queue_head *wq = __var_waitqueue(var);
	struct wait_queue_entry *e, *tmp;

	/*
	 * The caller's condition change comes before this check (the fence
	 * pairs with set_current_state() in prepare_to_wait_event()).
	 */
	smp_mb();
	if (!atomic_load(&wq->nr_waiters))
		return;
	spin_lock(&wq->lock);
	list_for_each_entry_safe(e, tmp, &wq->head, entry) {
		struct wait_bit_queue_entry *wbq =
			container_of(e, struct wait_bit_queue_entry, wq_entry);

		if (wbq->key.flags != var)
			continue;
		list_del_init(&e->entry);
		atomic_fetch_sub(&wq->nr_waiters, 1);
		wake_up_process(e->private);
	}
	spin_unlock(&wq->lock);
}

/* ---- memory ---------------------------------------------------------- */
void *native_kmalloc(size_t size, gfp_t gfp)
{
	long n = atomic_load_explicit(&native_alloc_fail, memory_order_relaxed);

	while (n > 0) {
		if (atomic_compare_exchange_weak(&native_alloc_fail, &n, n - 1))
			return NULL;
	}
	/* As kmalloc(): a power-of-two size is aligned to that size. */
	if (size >= 16 && !(size & (size - 1))) {
		void *p = aligned_alloc(size, size);

		if (p && (gfp & __GFP_ZERO))
			memset(p, 0, size);
		return p;
	}
	return (gfp & __GFP_ZERO) ? calloc(1, size ? size : 1) : malloc(size ? size : 1);
}

void *native_alloc_percpu(size_t size)
{
	if (size > NATIVE_PCPU_STRIDE) {
		fprintf(stderr, "# alloc_percpu: %zu bytes > stride\n", size);
		abort();
	}
	return aligned_alloc(64, (size_t)nr_cpu_ids * NATIVE_PCPU_STRIDE) ?:
	       NULL;
}

static pthread_mutex_t native_rcu_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rcu_head *native_rcu_list;

void native_defer_free(struct rcu_head *head, void *obj)
{
	head->obj = obj;
	pthread_mutex_lock(&native_rcu_lock);
	head->next = native_rcu_list;
	native_rcu_list = head;
	pthread_mutex_unlock(&native_rcu_lock);
}

void synchronize_rcu(void) { }

void rcu_barrier(void)
{
	struct rcu_head *head;

	pthread_mutex_lock(&native_rcu_lock);
	head = native_rcu_list;
	native_rcu_list = NULL;
	pthread_mutex_unlock(&native_rcu_lock);
	while (head) {
		struct rcu_head *next = head->next;

		free(head->obj);
		head = next;
	}
}

u32 get_random_u32(void)
{
	static _Atomic u64 seq = 0x243F6A8885A308D3ULL;
	u64 x = atomic_fetch_add(&seq, 0x9E3779B97F4A7C15ULL);

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (u32)x;
}

/* ---- CPU hotplug ----------------------------------------------------- */
#define NATIVE_CPUHP_STATES	(CPUHP_AP_ONLINE_DYN_END - CPUHP_AP_ONLINE_DYN)
#define NATIVE_CPUHP_INSTANCES	64
struct native_cpuhp {
	int (*startup)(unsigned int cpu, struct hlist_node *node);
	int (*teardown)(unsigned int cpu, struct hlist_node *node);
	struct hlist_node *inst[NATIVE_CPUHP_INSTANCES];
};
static struct native_cpuhp native_cpuhp[NATIVE_CPUHP_STATES];
static pthread_rwlock_t native_hotplug_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct cpumask native_online;

void cpus_read_lock(void) { pthread_rwlock_rdlock(&native_hotplug_lock); }
void cpus_read_unlock(void) { pthread_rwlock_unlock(&native_hotplug_lock); }

int cpuhp_setup_state_multi(enum cpuhp_state state, const char *name,
			    int (*startup)(unsigned int, struct hlist_node *),
			    int (*teardown)(unsigned int, struct hlist_node *))
{
	int i;

	(void)name;
	if (state != CPUHP_AP_ONLINE_DYN)
		return -EINVAL;
	pthread_rwlock_wrlock(&native_hotplug_lock);
	for (i = 0; i < NATIVE_CPUHP_STATES; i++) {
		if (!native_cpuhp[i].startup) {
			native_cpuhp[i].startup = startup;
			native_cpuhp[i].teardown = teardown;
			break;
		}
	}
	pthread_rwlock_unlock(&native_hotplug_lock);
	return i < NATIVE_CPUHP_STATES ? CPUHP_AP_ONLINE_DYN + i : -ENOSPC;
}

void cpuhp_remove_multi_state(enum cpuhp_state state)
{
	pthread_rwlock_wrlock(&native_hotplug_lock);
	memset(&native_cpuhp[state - CPUHP_AP_ONLINE_DYN], 0, sizeof(native_cpuhp[0]));
	pthread_rwlock_unlock(&native_hotplug_lock);
}

int cpuhp_state_add_instance(enum cpuhp_state state, struct hlist_node *node)
{
	struct native_cpuhp *s = &native_cpuhp[state - CPUHP_AP_ONLINE_DYN];
	unsigned int cpu;
	int i, ret = 0;

	pthread_rwlock_wrlock(&native_hotplug_lock);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (!cpumask_test_cpu(cpu, &native_online))
			continue;
		ret = s->startup(cpu, node);
		if (ret)
			break;
	}
	if (ret) {
		while (cpu-- > 0)
			if (cpumask_test_cpu(cpu, &native_online))
				s->teardown(cpu, node);
	} else {
		for (i = 0; i < NATIVE_CPUHP_INSTANCES && s->inst[i]; i++)
			;
		if (i == NATIVE_CPUHP_INSTANCES)
			abort();
		s->inst[i] = node;
	}
	pthread_rwlock_unlock(&native_hotplug_lock);
	return ret;
}

int cpuhp_state_remove_instance(enum cpuhp_state state, struct hlist_node *node)
{
	struct native_cpuhp *s = &native_cpuhp[state - CPUHP_AP_ONLINE_DYN];
	unsigned int cpu;
	int i;

	pthread_rwlock_wrlock(&native_hotplug_lock);
	for (cpu = nr_cpu_ids; cpu-- > 0;)
		if (cpumask_test_cpu(cpu, &native_online))
			s->teardown(cpu, node);
	for (i = 0; i < NATIVE_CPUHP_INSTANCES; i++)
		if (s->inst[i] == node)
			s->inst[i] = NULL;
	pthread_rwlock_unlock(&native_hotplug_lock);
	return 0;
}

static int native_cpu_change(unsigned int cpu, bool up)
{
	int i, j, ret = 0;

	if (cpu >= nr_cpu_ids)
		return -EINVAL;
	pthread_rwlock_wrlock(&native_hotplug_lock);
	if (cpumask_test_cpu(cpu, &native_online) == up)
		goto out;
	if (up)
		cpumask_set_cpu(cpu, &native_online);
	for (i = 0; i < NATIVE_CPUHP_STATES; i++) {
		struct native_cpuhp *s = &native_cpuhp[i];

		for (j = 0; s->startup && j < NATIVE_CPUHP_INSTANCES; j++) {
			if (!s->inst[j])
				continue;
			ret = up ? s->startup(cpu, s->inst[j]) :
				   s->teardown(cpu, s->inst[j]);
			if (ret)
				goto out;
		}
	}
	if (!up)
		cpumask_clear_cpu(cpu, &native_online);
out:
	pthread_rwlock_unlock(&native_hotplug_lock);
	return ret;
}

int native_cpu_down(unsigned int cpu) { return native_cpu_change(cpu, false); }
int native_cpu_up(unsigned int cpu) { return native_cpu_change(cpu, true); }

/* ---- debugfs.c is not built: its entry points do nothing --------------- */
void ws_debugfs_init(void) { }
void ws_debugfs_exit(void) { }
void ws_debugfs_add_pool(struct ws_pool *pool) { (void)pool; }
void ws_debugfs_remove_pool(struct ws_pool *pool) { (void)pool; }

/* ---- dev.c (/dev/wsched) is not built either --------------------------- */
int ws_dev_init(void);
void ws_dev_exit(void);
int ws_dev_init(void) { return 0; }
void ws_dev_exit(void) { }

/* ---- job.c (jobs and their cached worker sets) is not built ------------ */
void ws_job_exit(void) { }

/*
 * ---- uworker.c (user pools' threads) is not built: there are no user
 * pools here, so nothing calls these but paths that check pool->user.
 */
unsigned int ws_worker_idle_ms = 5000;
atomic_t ws_nr_user_workers;
unsigned long ws_user_idle_jiffies(void) { return ws_worker_idle_ms; }
bool ws_user_retire(struct ws_worker *worker) { (void)worker; return false; }
unsigned int ws_user_grow(struct ws_pool *pool, unsigned int want)
{
	(void)pool; (void)want;
	return 0;
}
void ws_user_refresh(struct ws_pool *pool) { (void)pool; }
int ws_user_init(struct ws_pool *pool) { (void)pool; return -EINVAL; }
void ws_user_stop_all(struct ws_pool *pool) { (void)pool; }
int ws_pool_adopt_thread(struct ws_pool *pool, struct task_struct *thread,
			 struct task_struct *model)
{
	(void)pool; (void)thread; (void)model;
	return -EINVAL;
}

/* ---- setup ------------------------------------------------------------- */
void native_init(void)
{
	const char *s = getenv("NATIVE_CPUS");
	long n = s ? strtol(s, NULL, 0) : sysconf(_SC_NPROCESSORS_ONLN);
	unsigned int cpu, i;

	if (n < 1)
		n = 1;
	if (n > NR_CPUS)
		n = NR_CPUS;
	nr_cpu_ids = n;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		cpumask_set_cpu(cpu, &native_cpu_possible_mask);
		cpumask_set_cpu(cpu, &native_online);
		cpumask_set_cpu(cpu, &native_cpu_self_mask[cpu]);
	}
	for (i = 0; i < ARRAY_SIZE(native_wq); i++) {
		spin_lock_init(&native_wq[i].lock);
		INIT_LIST_HEAD(&native_wq[i].head);
		atomic_init(&native_wq[i].nr_waiters, 0);
	}
	native_verbose = getenv("NATIVE_VERBOSE") != NULL;
	s = getenv("NATIVE_PIN");
	native_pin = s && *s == '1';
	(void)current;
}

void native_teardown(void)
{
	rcu_barrier();
	if (native_tmr_started) {
		atomic_store(&native_tmr_exit, true);
		pthread_mutex_lock(&native_tmr_lock);
		pthread_cond_signal(&native_tmr_cond);
		pthread_mutex_unlock(&native_tmr_lock);
		pthread_join(native_tmr_thread, NULL);
		native_tmr_started = false;
		atomic_store(&native_tmr_exit, false);
	}
}
