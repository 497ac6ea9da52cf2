/* SPDX-License-Identifier: GPL-2.0 */
/*
 * native_kernel.h - the kernel primitives wsched's core uses, mapped onto
 * user space (C11 atomics, pthreads), so that kmod/deque.c, kmod/dispatch.c,
 * kmod/group.c, kmod/join.c, kmod/invoke.c, kmod/pool.c and kmod/parallel.c
 * compile unchanged as a native library.
 * Every shim header under tools/native/include/linux/ includes this file.
 *
 * Memory model: the kernel's atomic_t/atomic_long_t are structs around a C11
 * _Atomic object and use <stdatomic.h>; the kernel's generic operations on
 * plain objects (READ_ONCE, WRITE_ONCE, cmpxchg, xchg, try_cmpxchg, set_bit,
 * llist, rcu_dereference...) use the __atomic builtins, which are the same
 * C11 operations for objects that are not _Atomic-qualified (stdatomic.h's
 * generic functions reject those).  No __sync builtin is used.  Barriers are
 * C11 fences.  ThreadSanitizer instruments all of them.
 */
#ifndef _NATIVE_KERNEL_H
#define _NATIVE_KERNEL_H

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- types and compiler ---------------------------------------------- */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef uint32_t __u32;
typedef uint64_t __u64;
typedef int32_t __s32;
typedef int64_t __s64;
typedef int8_t s8;
typedef int32_t s32;
typedef int64_t s64;
typedef unsigned int gfp_t;

#define __rcu
#define __percpu
#define __init
#define __exit
#define __must_check
#undef __always_inline
#define __always_inline inline __attribute__((always_inline))
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define SMP_CACHE_BYTES	64
#define ____cacheline_aligned_in_smp __attribute__((aligned(SMP_CACHE_BYTES)))
#define ____cacheline_aligned ____cacheline_aligned_in_smp
#define BITS_PER_LONG	(8 * (int)sizeof(long))
#define KBUILD_MODNAME	"wsched"

#ifndef container_of
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))
#endif
#define BUILD_BUG_ON(c)	_Static_assert(!(c), #c)
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define min(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a < _b ? _a : _b; })
#define max(a, b)	({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); _a > _b ? _a : _b; })
#define clamp(v, lo, hi) min(max(v, lo), hi)
#define min_t(T, a, b)	min((T)(a), (T)(b))

/* lib/string.c's memchr_inv(): the first byte of @p that is not @c. */
static inline void *memchr_inv(const void *p, int c, size_t n)
{
	const unsigned char *s = p;

	for (; n; n--, s++)
		if (*s != (unsigned char)c)
			return (void *)s;
	return NULL;
}

#define noinline	__attribute__((noinline))
/* User space has no stack auto-initialisation to opt out of. */
#define __uninitialized
#define barrier()	__asm__ __volatile__("" ::: "memory")
#define OPTIMIZER_HIDE_VAR(var)	__asm__ ("" : "=r" (var) : "0" (var))
#define __aligned(x)	__attribute__((__aligned__(x)))
#define sizeof_field(t, m)	sizeof(((t *)0)->m)
#define IS_ALIGNED(x, a)	(((x) & ((typeof(x))(a) - 1)) == 0)

/* READ_ONCE/WRITE_ONCE: relaxed atomic accesses on the object itself. */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* ---- barriers ----------------------------------------------------------- */
#define smp_mb()	atomic_thread_fence(memory_order_seq_cst)
#define smp_rmb()	atomic_thread_fence(memory_order_acquire)
#define smp_wmb()	atomic_thread_fence(memory_order_release)
#define smp_mb__before_atomic()	smp_mb()
#define smp_mb__after_atomic()	smp_mb()

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax()	__builtin_ia32_pause()
#elif defined(__aarch64__)
#define cpu_relax()	__asm__ __volatile__("yield" ::: "memory")
#else
#define cpu_relax()	barrier()
#endif

/* ---- errors, printing, warnings --------------------------------------- */
#define MAX_ERRNO	4095
#define IS_ERR_VALUE(x)	unlikely((unsigned long)(void *)(x) >= (unsigned long)-MAX_ERRNO)
static inline void *ERR_PTR(long error) { return (void *)error; }
static inline long PTR_ERR(const void *ptr) { return (long)ptr; }
static inline bool IS_ERR(const void *ptr) { return IS_ERR_VALUE((unsigned long)ptr); }
static inline bool IS_ERR_OR_NULL(const void *ptr) { return !ptr || IS_ERR(ptr); }

extern int native_verbose;
#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif
#define pr_info(fmt, ...) \
	do { if (native_verbose) fprintf(stderr, "# " pr_fmt(fmt), ##__VA_ARGS__); } while (0)
#define pr_warn(fmt, ...) fprintf(stderr, "# " pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) fprintf(stderr, "# " pr_fmt(fmt), ##__VA_ARGS__)
#define WARN_ON(c) ({ bool __c = !!(c); \
	if (unlikely(__c)) fprintf(stderr, "# WARNING at %s:%d: %s\n", __FILE__, __LINE__, #c); \
	__c; })
#define WARN_ON_ONCE(c) ({ static bool __warned; bool __c = !!(c); \
	if (unlikely(__c) && !__atomic_exchange_n(&__warned, true, __ATOMIC_RELAXED)) \
		fprintf(stderr, "# WARNING at %s:%d: %s\n", __FILE__, __LINE__, #c); \
	__c; })
#define BUG_ON(c) do { if (unlikely(c)) { fprintf(stderr, "# BUG at %s:%d\n", __FILE__, __LINE__); abort(); } } while (0)

/* ---- module ------------------------------------------------------------ */
struct module;
#define THIS_MODULE	((struct module *)0)
#define EXPORT_SYMBOL(s)
#define EXPORT_SYMBOL_GPL(s)
#define EXPORT_SYMBOL_NS_GPL(s, ns)
#define EXPORT_SYMBOL_NS(s, ns)
#define EXPORT_TRACEPOINT_SYMBOL_GPL(s)
#define MODULE_LICENSE(s)
#define MODULE_DESCRIPTION(s)
#define MODULE_AUTHOR(s)
#define MODULE_IMPORT_NS(s)
#define MODULE_PARM_DESC(name, desc)
/* Parameters keep their built-in defaults here. */
#define module_param_named(name, var, type, perm)
/* The module's init and exit become native_module_init()/_exit(). */
#define module_init(fn)	int native_module_init(void) { return fn(); }
#define module_exit(fn)	void native_module_exit(void) { fn(); }
static inline bool try_module_get(struct module *m) { (void)m; return true; }
static inline void module_put(struct module *m) { (void)m; }

/* ---- atomics ------------------------------------------------------------ */
typedef struct { _Atomic int counter; } atomic_t;
typedef struct { _Atomic long counter; } atomic_long_t;
#define ATOMIC_INIT(i)	{ (i) }

#define rlx memory_order_relaxed
#define NATIVE_ATOMIC_OPS(pfx, T, V)						\
static inline V pfx##_read(const T *v)						\
{ return atomic_load_explicit((_Atomic V *)&v->counter, rlx); }			\
static inline V pfx##_read_acquire(const T *v)					\
{ return atomic_load_explicit((_Atomic V *)&v->counter, memory_order_acquire); } \
static inline void pfx##_set(T *v, V i)						\
{ atomic_store_explicit(&v->counter, i, rlx); }					\
static inline void pfx##_set_release(T *v, V i)					\
{ atomic_store_explicit(&v->counter, i, memory_order_release); }		\
static inline void pfx##_inc(T *v) { atomic_fetch_add_explicit(&v->counter, 1, rlx); } \
static inline void pfx##_dec(T *v) { atomic_fetch_sub_explicit(&v->counter, 1, rlx); } \
static inline void pfx##_add(V i, T *v) { atomic_fetch_add_explicit(&v->counter, i, rlx); } \
static inline void pfx##_sub(V i, T *v) { atomic_fetch_sub_explicit(&v->counter, i, rlx); } \
static inline V pfx##_add_return(V i, T *v) { return atomic_fetch_add(&v->counter, i) + i; } \
static inline V pfx##_sub_return(V i, T *v) { return atomic_fetch_sub(&v->counter, i) - i; } \
static inline V pfx##_inc_return(T *v) { return pfx##_add_return(1, v); }	\
static inline V pfx##_inc_return_release(T *v)					\
{ return atomic_fetch_add_explicit(&v->counter, 1, memory_order_release) + 1; } \
static inline V pfx##_dec_return(T *v) { return pfx##_sub_return(1, v); }	\
static inline bool pfx##_dec_and_test(T *v) { return atomic_fetch_sub(&v->counter, 1) == 1; } \
static inline bool pfx##_inc_and_test(T *v) { return atomic_fetch_add(&v->counter, 1) == -1; } \
static inline bool pfx##_sub_and_test(V i, T *v) { return atomic_fetch_sub(&v->counter, i) == i; } \
static inline V pfx##_xchg(T *v, V n) { return atomic_exchange(&v->counter, n); } \
static inline V pfx##_cmpxchg(T *v, V o, V n)					\
{ atomic_compare_exchange_strong(&v->counter, &o, n); return o; }		\
static inline V pfx##_cmpxchg_relaxed(T *v, V o, V n)				\
{ atomic_compare_exchange_strong_explicit(&v->counter, &o, n, rlx, rlx); return o; } \
static inline V pfx##_cmpxchg_acquire(T *v, V o, V n)				\
{ atomic_compare_exchange_strong_explicit(&v->counter, &o, n,			\
	memory_order_acquire, memory_order_acquire); return o; }		\
static inline V pfx##_cmpxchg_release(T *v, V o, V n)				\
{ atomic_compare_exchange_strong_explicit(&v->counter, &o, n,			\
	memory_order_release, rlx); return o; }					\
static inline bool pfx##_try_cmpxchg(T *v, V *o, V n)				\
{ return atomic_compare_exchange_strong(&v->counter, o, n); }
NATIVE_ATOMIC_OPS(atomic, atomic_t, int)
NATIVE_ATOMIC_OPS(atomic_long, atomic_long_t, long)
#undef NATIVE_ATOMIC_OPS
#undef rlx

/*
 * Not provided: the kernel's atomic_fetch_add()/atomic_fetch_or() etc. have
 * the names of C11 <stdatomic.h> generic macros; the core does not use them.
 */

/* Generic fully ordered operations on plain objects (see the top). */
#define cmpxchg(ptr, o, n) ({ __typeof__(*(ptr)) __o = (o);			\
	__atomic_compare_exchange_n((ptr), &__o, (n), false,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);	\
	__o; })
#define try_cmpxchg(ptr, po, n)							\
	__atomic_compare_exchange_n((ptr), (po), (n), false,			\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)
#define xchg(ptr, v)	__atomic_exchange_n((ptr), (v), __ATOMIC_SEQ_CST)
#define smp_load_acquire(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define smp_store_release(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* Bit operations: atomic and unordered, as in the kernel. */
#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define BIT_WORD(nr)	((nr) / BITS_PER_LONG)
#define BIT_MASK(nr)	(1UL << ((nr) % BITS_PER_LONG))
static inline void set_bit(long nr, volatile unsigned long *addr)
{ __atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_RELAXED); }
static inline void __set_bit(long nr, volatile unsigned long *addr)
{ ((unsigned long *)addr)[BIT_WORD(nr)] |= BIT_MASK(nr); }
static inline void clear_bit(long nr, volatile unsigned long *addr)
{ __atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELAXED); }
static inline bool test_bit(long nr, const volatile unsigned long *addr)
{ return __atomic_load_n((const unsigned long *)addr + BIT_WORD(nr), __ATOMIC_RELAXED) & BIT_MASK(nr); }
static inline bool test_and_set_bit(long nr, volatile unsigned long *addr)
{ return __atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_SEQ_CST) & BIT_MASK(nr); }
static inline bool test_and_set_bit_lock(long nr, volatile unsigned long *addr)
{ return __atomic_fetch_or((unsigned long *)addr + BIT_WORD(nr), BIT_MASK(nr), __ATOMIC_ACQUIRE) & BIT_MASK(nr); }
static inline void clear_bit_unlock(long nr, volatile unsigned long *addr)
{ __atomic_fetch_and((unsigned long *)addr + BIT_WORD(nr), ~BIT_MASK(nr), __ATOMIC_RELEASE); }
/* First zero bit of a word; BITS_PER_LONG if there is none. */
static inline unsigned long ffz(unsigned long word)
{ return ~word ? (unsigned long)__builtin_ctzl(~word) : BITS_PER_LONG; }
static inline unsigned long hweight_long(unsigned long w) { return (unsigned long)__builtin_popcountl(w); }
static inline unsigned long native_next_bit(const unsigned long *w, unsigned long size,
					    unsigned long from)
{
	for (; from < size; from++)
		if (w[BIT_WORD(from)] & BIT_MASK(from))
			return from;
	return size;
}
#define for_each_set_bit(bit, addr, size)					\
	for ((bit) = native_next_bit((addr), (size), 0); (bit) < (size);	\
	     (bit) = native_next_bit((addr), (size), (bit) + 1))

/* ---- math ----------------------------------------------------------------- */
static inline unsigned long roundup_pow_of_two(unsigned long n)
{ return n <= 1 ? 1 : 1UL << (BITS_PER_LONG - __builtin_clzl(n - 1)); }
static inline bool is_power_of_2(unsigned long n) { return n && !(n & (n - 1)); }
static inline u32 reciprocal_scale(u32 val, u32 ep_ro) { return (u32)(((u64)val * ep_ro) >> 32); }
#define struct_size(p, member, count) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(count))
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

/* ---- memory ----------------------------------------------------------- */
#define GFP_KERNEL	0x1u
#define GFP_NOWAIT	0x2u
#define GFP_ATOMIC	0x4u
#define __GFP_NOWARN	0x100u
#define __GFP_ZERO	0x200u
#define NUMA_NO_NODE	(-1)
extern _Atomic long native_alloc_fail;	/* > 0: fail that many allocations */
void *native_kmalloc(size_t size, gfp_t gfp);
static inline void *kmalloc(size_t s, gfp_t g) { return native_kmalloc(s, g); }
static inline void *kzalloc(size_t s, gfp_t g) { return native_kmalloc(s, g | __GFP_ZERO); }
static inline void *kzalloc_node(size_t s, gfp_t g, int node) { (void)node; return kzalloc(s, g); }
static inline void *kcalloc(size_t n, size_t s, gfp_t g) { return kzalloc(n * s, g); }
static inline void *kcalloc_node(size_t n, size_t s, gfp_t g, int node) { (void)node; return kcalloc(n, s, g); }
static inline void *kvmalloc(size_t s, gfp_t g) { return native_kmalloc(s, g); }
static inline void kfree(const void *p) { free((void *)p); }
static inline void kvfree(const void *p) { free((void *)p); }

/* ---- RCU: no reader tracking; retired objects are freed at teardown ---- */
struct rcu_head { struct rcu_head *next; void *obj; };
static inline void rcu_read_lock(void) { }
static inline void rcu_read_unlock(void) { }
#define rcu_dereference(p)		__atomic_load_n(&(p), __ATOMIC_ACQUIRE)
#define rcu_dereference_protected(p, c)	__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_access_pointer(p)		__atomic_load_n(&(p), __ATOMIC_RELAXED)
#define rcu_assign_pointer(p, v)	__atomic_store_n(&(p), (v), __ATOMIC_RELEASE)
#define RCU_INIT_POINTER(p, v)		__atomic_store_n(&(p), (v), __ATOMIC_RELAXED)
void native_defer_free(struct rcu_head *head, void *obj);
#define kvfree_rcu(ptr, field)	native_defer_free(&(ptr)->field, (ptr))
#define kfree_rcu(ptr, field)	native_defer_free(&(ptr)->field, (ptr))
void synchronize_rcu(void);
void rcu_barrier(void);	/* frees everything retired so far: teardown only */

/* ---- lists -------------------------------------------------------------- */
struct list_head { struct list_head *next, *prev; };
struct hlist_node { struct hlist_node *next, **pprev; };
#define LIST_HEAD_INIT(n) { &(n), &(n) }
#define LIST_HEAD(n) struct list_head n = LIST_HEAD_INIT(n)
static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *prev, struct list_head *next)
{ next->prev = n; n->next = next; n->prev = prev; prev->next = n; }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void list_del_init(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; INIT_LIST_HEAD(e); }
static inline void list_del(struct list_head *e)
{ e->next->prev = e->prev; e->prev->next = e->next; e->next = e->prev = NULL; }
static inline bool list_empty(const struct list_head *h) { return h->next == h; }
#define list_entry(p, t, m)	container_of(p, t, m)
#define list_first_entry(h, t, m) list_entry((h)->next, t, m)
#define list_first_entry_or_null(h, t, m) \
	(!list_empty(h) ? list_first_entry(h, t, m) : NULL)
#define list_for_each_entry(pos, h, m)						\
	for (pos = list_entry((h)->next, __typeof__(*pos), m); &pos->m != (h);	\
	     pos = list_entry(pos->m.next, __typeof__(*pos), m))
#define list_for_each_entry_safe(pos, n, h, m)					\
	for (pos = list_entry((h)->next, __typeof__(*pos), m),			\
	     n = list_entry(pos->m.next, __typeof__(*pos), m); &pos->m != (h);	\
	     pos = n, n = list_entry(n->m.next, __typeof__(*n), m))
#define hlist_entry(p, t, m)	container_of(p, t, m)

/* ---- llist: lock-free singly linked list, as lib/llist.c ---------------- */
struct llist_node { struct llist_node *next; };
struct llist_head { struct llist_node *first; };
#define LLIST_HEAD_INIT(n) { NULL }
static inline void init_llist_head(struct llist_head *l) { WRITE_ONCE(l->first, NULL); }
static inline bool llist_empty(const struct llist_head *h) { return READ_ONCE(h->first) == NULL; }
#define llist_entry(p, t, m)	container_of(p, t, m)
/* Fully ordered on success, as the kernel's try_cmpxchg(). */
static inline bool llist_add_batch(struct llist_node *nf, struct llist_node *nl,
				   struct llist_head *h)
{
	struct llist_node *first = READ_ONCE(h->first);

	do {
		nl->next = first;
	} while (!try_cmpxchg(&h->first, &first, nf));
	return !first;
}
static inline bool llist_add(struct llist_node *n, struct llist_head *h)
{ return llist_add_batch(n, n, h); }
static inline struct llist_node *llist_del_all(struct llist_head *h)
{ return xchg(&h->first, NULL); }
static inline struct llist_node *llist_del_first(struct llist_head *h)
{
	struct llist_node *entry = READ_ONCE(h->first), *next;

	do {
		if (!entry)
			return NULL;
		next = READ_ONCE(entry->next);
	} while (!try_cmpxchg(&h->first, &entry, next));
	return entry;
}
static inline struct llist_node *llist_reverse_order(struct llist_node *head)
{
	struct llist_node *new_head = NULL;

	while (head) {
		struct llist_node *tmp = head;

		head = head->next;
		tmp->next = new_head;
		new_head = tmp;
	}
	return new_head;
}
#define llist_for_each_safe(pos, n, node)				\
	for ((pos) = (node); (pos) && ((n) = (pos)->next, true); (pos) = (n))
#define llist_for_each_entry_safe(pos, n, node, member)			\
	for (pos = llist_entry((node), __typeof__(*pos), member);	\
	     ((uintptr_t)pos + offsetof(__typeof__(*pos), member)) != 0 && \
	     (n = llist_entry(pos->member.next, __typeof__(*n), member), true); \
	     pos = n)

/*
 * ---- interrupts (see linux/hrtimer.h): masked while > 0; a timer that
 * fired meanwhile runs when the last mask is lifted.
 */
extern _Thread_local int native_irq_off;
extern _Thread_local volatile int native_irq_deferred;
void native_irq_run(void);
static inline void native_irq_disable(void)
{
	native_irq_off++;
	__asm__ __volatile__("" ::: "memory");
}

static inline void native_irq_enable(void)
{
	__asm__ __volatile__("" ::: "memory");
	if (!--native_irq_off && __builtin_expect(native_irq_deferred, 0))
		native_irq_run();
}

/* ---- spinlocks: pthread mutexes (they may sleep; nothing here cares) --- */
typedef struct { pthread_mutex_t m; } spinlock_t;
typedef spinlock_t raw_spinlock_t;
#define DEFINE_SPINLOCK(x) spinlock_t x = { PTHREAD_MUTEX_INITIALIZER }
static inline void spin_lock_init(spinlock_t *l) { pthread_mutex_init(&l->m, NULL); }
/* Interrupts masked while held: a timer callback may take any of them. */
static inline void spin_lock(spinlock_t *l)
{
	native_irq_disable();
	pthread_mutex_lock(&l->m);
}

static inline void spin_unlock(spinlock_t *l)
{
	pthread_mutex_unlock(&l->m);
	native_irq_enable();
}
#define spin_lock_irq(l)		spin_lock(l)
#define spin_unlock_irq(l)		spin_unlock(l)
#define spin_lock_bh(l)			spin_lock(l)
#define spin_unlock_bh(l)		spin_unlock(l)
#define spin_lock_irqsave(l, f)		do { (f) = 0; spin_lock(l); } while (0)
#define spin_unlock_irqrestore(l, f)	do { (void)(f); spin_unlock(l); } while (0)
#define lockdep_assert_held(l)		do { } while (0)
#define raw_spin_lock_init(l)		spin_lock_init(l)
#define raw_spin_lock(l)		spin_lock(l)
#define raw_spin_unlock(l)		spin_unlock(l)
#define raw_spin_lock_irq(l)		spin_lock(l)
#define raw_spin_unlock_irq(l)		spin_unlock(l)
#define raw_spin_lock_irqsave(l, f)	spin_lock_irqsave(l, f)
#define raw_spin_unlock_irqrestore(l, f) spin_unlock_irqrestore(l, f)

/* ---- mutexes ------------------------------------------------------------ */
struct mutex { pthread_mutex_t m; };
#define DEFINE_MUTEX(x) struct mutex x = { PTHREAD_MUTEX_INITIALIZER }
static inline void mutex_init(struct mutex *l) { pthread_mutex_init(&l->m, NULL); }
static inline void mutex_lock(struct mutex *l) { pthread_mutex_lock(&l->m); }
static inline void mutex_unlock(struct mutex *l) { pthread_mutex_unlock(&l->m); }

/* ---- power management notifiers: never called (no suspend here) --------- */
struct notifier_block {
	int (*notifier_call)(struct notifier_block *nb, unsigned long action, void *data);
	struct notifier_block *next;
	int priority;
};
#define NOTIFY_DONE		0x0000
#define NOTIFY_OK		0x0001
#define PM_HIBERNATION_PREPARE	0x0001
#define PM_POST_HIBERNATION	0x0002
#define PM_SUSPEND_PREPARE	0x0003
#define PM_POST_SUSPEND		0x0004
#define PM_RESTORE_PREPARE	0x0005
#define PM_POST_RESTORE		0x0006
static inline int register_pm_notifier(struct notifier_block *nb) { (void)nb; return 0; }
static inline int unregister_pm_notifier(struct notifier_block *nb) { (void)nb; return 0; }

/* ---- CPUs, masks, per-CPU data ------------------------------------------ */
#define NR_CPUS		256
extern unsigned int nr_cpu_ids;		/* NATIVE_CPUS, default: online CPUs */
struct cpumask { unsigned long bits[NR_CPUS / (8 * sizeof(long))]; };
typedef struct cpumask cpumask_var_t[1];
extern struct cpumask native_cpu_possible_mask;
#define cpu_possible_mask	((const struct cpumask *)&native_cpu_possible_mask)
#define cpu_online_mask		cpu_possible_mask
#define cpu_present_mask	cpu_possible_mask
#define cpumask_bits(m)		((m)->bits)
static inline bool zalloc_cpumask_var(cpumask_var_t *m, gfp_t g)
{ (void)g; memset(*m, 0, sizeof(**m)); return true; }
static inline bool alloc_cpumask_var(cpumask_var_t *m, gfp_t g) { return zalloc_cpumask_var(m, g); }
static inline void free_cpumask_var(cpumask_var_t m) { (void)m; }
static inline bool cpumask_test_cpu(int cpu, const struct cpumask *m)
{ return cpu >= 0 && (unsigned int)cpu < nr_cpu_ids && test_bit(cpu, m->bits); }
static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m) { set_bit(cpu, m->bits); }
static inline void cpumask_clear_cpu(int cpu, struct cpumask *m) { clear_bit(cpu, m->bits); }
static inline void cpumask_clear(struct cpumask *m) { memset(m, 0, sizeof(*m)); }
static inline bool cpumask_and(struct cpumask *d, const struct cpumask *a, const struct cpumask *b)
{
	unsigned long any = 0;
	for (size_t i = 0; i < ARRAY_SIZE(d->bits); i++)
		any |= d->bits[i] = a->bits[i] & b->bits[i];
	return any;
}
static inline void cpumask_copy(struct cpumask *d, const struct cpumask *s) { *d = *s; }
static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	unsigned int n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(m->bits); i++)
		n += __builtin_popcountl(m->bits[i]);
	return n;
}
static inline bool cpumask_empty(const struct cpumask *m) { return !cpumask_weight(m); }
#define for_each_cpu_and(cpu, a, b)						\
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)				\
		if (cpumask_test_cpu((cpu), (a)) && cpumask_test_cpu((cpu), (b)))
#define for_each_cpu(cpu, m) \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++) if (!cpumask_test_cpu((cpu), (m))) {} else
#define for_each_possible_cpu(cpu)	for_each_cpu(cpu, cpu_possible_mask)
#define cpu_possible(cpu)		cpumask_test_cpu((cpu), cpu_possible_mask)
#define for_each_online_cpu(cpu)	for_each_cpu(cpu, cpu_online_mask)
/*
 * A made-up topology, so that every level of victims is exercised: no SMT
 * (a CPU is its own only sibling), the last-level cache shared by pairs
 * of CPUs, NUMA nodes of four.
 */
#define NATIVE_LLC_SHIFT	1
#define NATIVE_NODE_SHIFT	2
static inline int cpu_to_node(int cpu) { return cpu >> NATIVE_NODE_SHIFT; }
extern struct cpumask native_cpu_self_mask[NR_CPUS];
#define topology_sibling_cpumask(cpu)	(&native_cpu_self_mask[(cpu)])
#define ws_cpus_share_llc(a, b) \
	((a) >> NATIVE_LLC_SHIFT == (b) >> NATIVE_LLC_SHIFT)
static inline unsigned int num_online_cpus(void) { return nr_cpu_ids; }
enum hk_type { HK_TYPE_DOMAIN, HK_TYPE_KTHREAD };
static inline const struct cpumask *housekeeping_cpumask(enum hk_type t)
{ (void)t; return cpu_possible_mask; }

/*
 * Per-CPU data: every alloc_percpu() area has a slot per CPU at the same
 * stride, so this_cpu_*() can offset any member's address by the current
 * "CPU" (a worker's bound CPU; other threads share slot 0).  Increments are
 * a relaxed load and store, not a locked RMW: the kernel's this_cpu_inc()
 * is one unlocked instruction, and a locked add per event made the native
 * benchmark pay several atomics per task that the module does not.  Threads
 * that share slot 0 may lose an increment: the counters are statistics.
 */
#define NATIVE_PCPU_STRIDE	1024
void *native_alloc_percpu(size_t size);
#define alloc_percpu(type)	((type *)native_alloc_percpu(sizeof(type)))
static inline void free_percpu(void *p) { free(p); }
#define per_cpu_ptr(p, cpu) \
	((__typeof__(p))((char *)(p) + (size_t)(cpu) * NATIVE_PCPU_STRIDE))
/* Inline, as the kernel's per-CPU read is: defined after task_struct. */
static inline unsigned int native_smp_processor_id(void);
#define smp_processor_id()	native_smp_processor_id()
#define raw_smp_processor_id()	native_smp_processor_id()
/*
 * The calling thread's per-CPU offset, kept in a thread-local variable
 * (native.c) as the kernel keeps it in a segment register: the "CPU" of a
 * kthread is fixed before it first runs (kthread_bind()), and every other
 * thread uses slot 0, as smp_processor_id() says.
 */
extern _Thread_local size_t native_pcpu_off;
#define this_cpu_ptr(p)		((__typeof__(p))((char *)(p) + native_pcpu_off))
#define this_cpu_add(x, v) do {						\
	__typeof__(&(x)) __p = this_cpu_ptr(&(x));				\
	__atomic_store_n(__p, __atomic_load_n(__p, __ATOMIC_RELAXED) + (v),	\
			 __ATOMIC_RELAXED);					\
} while (0)
#define this_cpu_inc(x)		this_cpu_add(x, 1)
#define this_cpu_dec(x)		this_cpu_add(x, -1)
#define this_cpu_read(x)	__atomic_load_n(this_cpu_ptr(&(x)), __ATOMIC_RELAXED)

/* ---- CPU hotplug: N "CPUs" that are all online ------------------------- */
enum cpuhp_state { CPUHP_INVALID = -1, CPUHP_OFFLINE = 0, CPUHP_AP_ONLINE_DYN = 100,
		   CPUHP_AP_ONLINE_DYN_END = 130 };
int cpuhp_setup_state_multi(enum cpuhp_state state, const char *name,
			    int (*startup)(unsigned int cpu, struct hlist_node *node),
			    int (*teardown)(unsigned int cpu, struct hlist_node *node));
int cpuhp_state_add_instance(enum cpuhp_state state, struct hlist_node *node);
int cpuhp_state_remove_instance(enum cpuhp_state state, struct hlist_node *node);
void cpuhp_remove_multi_state(enum cpuhp_state state);
void cpus_read_lock(void);
void cpus_read_unlock(void);
/* Test hooks: take a "CPU" offline or online again for every instance. */
int native_cpu_down(unsigned int cpu);
int native_cpu_up(unsigned int cpu);

/* ---- tasks, kthreads, sleeping ------------------------------------------ */
#define TASK_RUNNING		0x0000
#define TASK_INTERRUPTIBLE	0x0001
#define TASK_UNINTERRUPTIBLE	0x0002
#define TASK_WAKING		0x0200
#define TASK_NOLOAD		0x0400
#define TASK_FREEZABLE		0x2000
#define TASK_IDLE		(TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_WAKEKILL		0x0100
#define PF_KTHREAD		0x00200000
#define MAX_SCHEDULE_TIMEOUT	LONG_MAX
#define HZ			1000	/* a jiffy is a millisecond here */
#define MIN_NICE		(-20)
#define MAX_NICE		19
#define TASK_COMM_LEN		32
/* Kernel stack of a worker; __ws_stack_left() measures the pthread stack. */
#define THREAD_SIZE		(8UL << 20)

struct hrtimer;
struct task_struct {
	_Atomic unsigned int __state;
	unsigned int flags;
	unsigned int cpu;
	int (*threadfn)(void *data);
	void *data;
	_Atomic bool should_stop;
	int result;
	void *stack;		/* lowest address of the thread's stack */
	const struct cpumask *cpus_ptr;	/* always every CPU here */
	pthread_t thread;
	pthread_mutex_t lock;	/* guards the sleep on @cond */
	pthread_cond_t cond;
	struct hrtimer *irq_pending;	/* fired timers to run (timer lock) */
	bool irq_kicked;	/* irq_pending grew while we may sleep (@lock) */
	_Atomic int usage;	/* references; a kthread's is freed at 0 */
	char comm[TASK_COMM_LEN];
	/*
	 * Never 1: a timer here always interrupts the thread that started
	 * it, so no owner is ever off its CPU under its heartbeat (the
	 * kernel's ws_latent_promote_parked() path is not taken).
	 */
	int nr_cpus_allowed;
	int on_rq;		/* read there only; never stored */
	raw_spinlock_t pi_lock;
};
static inline unsigned int task_cpu(const struct task_struct *p)
{
	return p->cpu;
}
extern _Thread_local struct task_struct *native_current;
struct task_struct *native_get_current_slow(void);
/* Inline, as the kernel's current is (a per-CPU read). */
static inline struct task_struct *native_get_current(void)
{
	struct task_struct *t = native_current;

	return likely(t) ? t : native_get_current_slow();
}
#define current	native_get_current()

/* Threads that are not kthreads count as CPU 0. */
static inline unsigned int native_smp_processor_id(void)
{
	struct task_struct *t = current;

	return (t->flags & PF_KTHREAD) ? t->cpu : 0;
}
static inline void *task_stack_page(const struct task_struct *t) { return t->stack; }
static inline bool in_task(void) { return true; }
/* Threads here are never killed. */
static inline bool fatal_signal_pending(struct task_struct *t) { (void)t; return false; }
static inline bool signal_pending(struct task_struct *t) { (void)t; return false; }
static inline long task_nice(const struct task_struct *t) { (void)t; return 0; }
/* No cgroups here: user pools run like the others. */
static inline int cgroup_attach_task_all(struct task_struct *from,
					 struct task_struct *t)
{
	(void)from; (void)t;
	return 0;
}
/* No speculation to bound in user space. */
#define array_index_nospec(index, size)	(index)
#define SZ_64K		0x00010000
#define SZ_256K		0x00040000
static inline bool in_interrupt(void) { return false; }
#define might_sleep()	do { } while (0)
static inline void __might_sleep(const char *file, int line) { (void)file; (void)line; }

/* set_current_state() is a seq_cst store followed by a full fence. */
#define set_current_state(s) do {						\
	atomic_store(&current->__state, (s)); smp_mb(); } while (0)
#define __set_current_state(s) atomic_store(&current->__state, (s))
void schedule(void);
long schedule_timeout(long timeout);
long schedule_timeout_idle(long timeout);
int wake_up_process(struct task_struct *p);
static inline void cond_resched(void) { }
/* Threads here are preempted by the host: nothing ever waits for a resched. */
static inline bool need_resched(void) { return false; }
static inline void set_freezable(void) { }
static inline bool try_to_freeze(void) { return false; }
static inline bool freezing(struct task_struct *p) { (void)p; return false; }
static inline void set_user_nice(struct task_struct *p, long nice) { (void)p; (void)nice; }

struct task_struct *kthread_create_on_node(int (*fn)(void *data), void *data,
					   int node, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
#define kthread_create(fn, data, fmt, ...) \
	kthread_create_on_node(fn, data, NUMA_NO_NODE, fmt, ##__VA_ARGS__)
void kthread_bind(struct task_struct *t, unsigned int cpu);
/* Unbound threads run anywhere here. */
static inline int set_cpus_allowed_ptr(struct task_struct *p, const struct cpumask *m)
{ (void)p; (void)m; return 0; }
/* As the kernel's: kthread_stop() drops the thread's own reference. */
static inline void get_task_struct(struct task_struct *t)
{
	atomic_fetch_add_explicit(&t->usage, 1, memory_order_relaxed);
}

void native_task_free(struct task_struct *t);

static inline void put_task_struct(struct task_struct *t)
{
	/* Release, then acquire at zero: what the last user did is seen. */
	if (atomic_fetch_sub_explicit(&t->usage, 1, memory_order_acq_rel) == 1)
		native_task_free(t);
}
int kthread_stop(struct task_struct *t);
bool kthread_should_stop(void);
void *kthread_func(struct task_struct *t);
void *kthread_data(struct task_struct *t);

/* ---- wait queues, wait_var_event ------------------------------------------ */
struct wait_queue_entry;
typedef int (*wait_queue_func_t)(struct wait_queue_entry *e, unsigned int mode, int flags, void *key);
struct wait_queue_entry {
	unsigned int flags;
	void *private;
	wait_queue_func_t func;
	struct list_head entry;
};
#define TASK_NORMAL		(TASK_INTERRUPTIBLE | TASK_UNINTERRUPTIBLE)
static inline void init_waitqueue_entry(struct wait_queue_entry *e,
					struct task_struct *p)
{
	e->flags = 0;
	e->private = p;
	e->func = NULL;
}

/* The wake flags are placement hints, which native threads do not take. */
static inline int default_wake_function(struct wait_queue_entry *e,
					unsigned int mode, int flags, void *key)
{
	(void)mode;
	(void)flags;
	(void)key;
	return wake_up_process(e->private);
}

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
	_Atomic long nr_waiters;	/* entries on @head: the waker's fast path */
};
typedef struct wait_queue_head wait_queue_head_t;
struct wait_bit_key { void *flags; int bit_nr; unsigned long timeout; };
struct wait_bit_queue_entry { struct wait_bit_key key; struct wait_queue_entry wq_entry; };
struct wait_queue_head *__var_waitqueue(void *p);
void init_wait_var_entry(struct wait_bit_queue_entry *wbq, void *var, int flags);
long prepare_to_wait_event(struct wait_queue_head *wq, struct wait_queue_entry *e, int state);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *e);
void wake_up_var(void *var);
#define wait_var_event(var, cond) do {						\
	struct wait_queue_head *__wq = __var_waitqueue(var);			\
	struct wait_bit_queue_entry __wbq;					\
	if (cond)								\
		break;								\
	init_wait_var_entry(&__wbq, var, 0);					\
	for (;;) {								\
		prepare_to_wait_event(__wq, &__wbq.wq_entry, TASK_UNINTERRUPTIBLE); \
		if (cond)							\
			break;							\
		schedule();							\
	}									\
	finish_wait(__wq, &__wbq.wq_entry);					\
} while (0)

/* ---- misc ------------------------------------------------------------------ */
u32 get_random_u32(void);
static inline size_t strscpy(char *d, const char *s, size_t n)
{
	size_t len = strnlen(s, n);

	if (!n)
		return -E2BIG;
	if (len == n) {
		memcpy(d, s, n - 1);
		d[n - 1] = 0;
		return -E2BIG;
	}
	memcpy(d, s, len + 1);
	return len;
}
struct dentry;

/* ---- native runtime entry points (tools/native/native.c) ---------------- */
int native_module_init(void);		/* the module's module_init() */
void native_module_exit(void);
void native_init(void);			/* reads NATIVE_CPUS; call first */
void native_teardown(void);		/* frees deferred (RCU) objects */

#endif /* _NATIVE_KERNEL_H */
