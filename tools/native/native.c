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

#include <linux/kthread.h>
#include "wsched_internal.h"

int native_verbose;
unsigned int nr_cpu_ids = 1;
struct cpumask native_cpu_possible_mask;
struct cpumask native_cpu_self_mask[NR_CPUS];
_Atomic long native_alloc_fail;
_Thread_local struct task_struct *native_current;
static _Thread_local struct task_struct native_self;
static bool native_pin;

/* ---- tasks ----------------------------------------------------------- */
static void native_task_init(struct task_struct *t)
{
	atomic_init(&t->__state, TASK_RUNNING);
	t->cpus_ptr = cpu_possible_mask;
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

int wake_up_process(struct task_struct *p)
{
	int was;

	pthread_mutex_lock(&p->lock);
	was = atomic_exchange(&p->__state, TASK_RUNNING) != TASK_RUNNING;
	pthread_cond_signal(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return was;
}

void schedule(void)
{
	struct task_struct *t = current;

	pthread_mutex_lock(&t->lock);
	while (atomic_load(&t->__state) != TASK_RUNNING)
		pthread_cond_wait(&t->cond, &t->lock);
	pthread_mutex_unlock(&t->lock);
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
	pthread_mutex_lock(&t->lock);
	while (atomic_load(&t->__state) != TASK_RUNNING && ret == 0)
		ret = pthread_cond_timedwait(&t->cond, &t->lock, &ts);
	pthread_mutex_unlock(&t->lock);
	atomic_store(&t->__state, TASK_RUNNING);
	return ret ? 0 : 1;
}

long schedule_timeout_idle(long timeout)
{
	set_current_state(TASK_IDLE);
	return schedule_timeout(timeout);
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
	if (atomic_load(&t->should_stop))
		t->result = -EINTR;
	else
		t->result = t->threadfn(t->data);
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
	pthread_cond_destroy(&t->cond);
	pthread_mutex_destroy(&t->lock);
	free(t);
	return ret;
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
}
