// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_smoke: a client of the public wsched API, used as a smoke test.
 *
 * On load it computes fib(fib_n) with one task spawned per call and no
 * serial cutoff, first on ws_system_pool and then on a private pool, and
 * compares both results with a serial computation.  The load fails with
 * -EIO on a mismatch.
 *
 * It also registers "smoke_whoami", an operation for /dev/wsched that
 * tells who ran its node (selftests/wsched/workers_test.c): it takes no
 * operand (arg 0), spins for about a millisecond, so that two nodes of a
 * graph overlap, and completes with a value made of
 *
 *   bits  0-31  from_kuid(&init_user_ns, current_uid())
 *   bits 32-39  current->policy
 *   bit  40     PF_KTHREAD set in current->flags
 *   bits 41-63  task_tgid_nr(current) & 0x7fffff
 *
 * It is not cheap (registered operations never are): a graph of two such
 * nodes is a parallel graph.  Unregistered when the module unloads.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bits.h>
#include <linux/cred.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/pid.h>
#include <linux/uidgid.h>
#include <linux/user_namespace.h>
#include <linux/wsched.h>

#define SMOKE_FIB_MAX 32

static unsigned int fib_n = 22;
module_param(fib_n, uint, 0444);
MODULE_PARM_DESC(fib_n, "argument of the fib() workload (default 22, at most 32)");

/**
 * struct fib_frame - one call of the parallel fib()
 * @task: the task running this call
 * @pool: the pool the call spawns its children into
 * @n: the argument
 * @result: fib(@n), valid once @task has finished
 * @err: nonzero if a wait in this call or below it failed
 */
struct fib_frame {
	struct ws_task task;
	struct ws_pool *pool;
	unsigned int n;
	u64 result;
	int err;
};

static void fib_call(struct fib_frame *f);

static struct ws_task *fib_task_fn(struct ws_task *task)
{
	fib_call(container_of(task, struct fib_frame, task));
	return NULL;
}

/*
 * fib_call - compute fib(f->n): spawn both children into a group on the
 * stack, wait for the group, add.  Children live in this call's frame.
 */
static void fib_call(struct fib_frame *f)
{
	struct fib_frame child[2];
	struct ws_group group;
	int i;

	f->err = 0;
	if (f->n < 2) {
		f->result = f->n;
		return;
	}

	ws_group_init(&group, f->pool);
	for (i = 0; i < 2; i++) {
		child[i].pool = f->pool;
		child[i].n = f->n - 1 - i;
		child[i].result = 0;
		child[i].err = -EINPROGRESS;
		ws_task_init(&child[i].task, fib_task_fn);
		ws_spawn(&group, &child[i].task);
	}
	f->err = ws_group_wait(&group);
	if (!f->err)
		f->err = child[0].err ? child[0].err : child[1].err;
	f->result = child[0].result + child[1].result;
}

static u64 fib_serial(unsigned int n)
{
	u64 a = 0, b = 1, t;

	while (n--) {
		t = a + b;
		a = b;
		b = t;
	}
	return a;
}

/**
 * smoke_run - compute fib(fib_n) on @pool and check the result
 * @pool: the pool to run on
 * @name: the pool's name, for messages
 * @result: where to store the parallel result
 *
 * Runs from the insmod thread, which is not a worker of @pool, so the
 * root call's children are injected into the pool.
 *
 * Return: 0 if the parallel result equals the serial one, else -EIO.
 */
static int smoke_run(struct ws_pool *pool, const char *name, u64 *result)
{
	struct fib_frame root = { .pool = pool, .n = fib_n };
	u64 serial = fib_serial(fib_n);
	ktime_t start = ktime_get();

	fib_call(&root);
	*result = root.result;
	pr_info("pool %s: fib(%u) = %llu in %lld us, wait status %d\n", name,
		fib_n, root.result, ktime_us_delta(ktime_get(), start), root.err);
	if (root.err || root.result != serial) {
		pr_err("pool %s: fib(%u) = %llu (serial %llu) MISMATCH\n", name,
		       fib_n, root.result, serial);
		return -EIO;
	}
	return 0;
}

/* How long a smoke_whoami node spins: long enough for two to overlap. */
#define WHOAMI_SPIN_NS		NSEC_PER_MSEC

#define WHOAMI_POLICY_SHIFT	32
#define WHOAMI_KTHREAD		BIT_ULL(40)
#define WHOAMI_TGID_SHIFT	41
#define WHOAMI_TGID_MASK	0x7fffff

/* No operand: arg must be zero (wsched checks the unused range fields). */
static int whoami_check(const struct ws_op_args *args)
{
	return args->arg ? -EINVAL : 0;
}

static int whoami_run(const struct ws_op_args *args, u64 *value)
{
	u64 end = ktime_get_ns() + WHOAMI_SPIN_NS;
	u64 v;

	while (ktime_get_ns() < end)
		cpu_relax();
	v = (u32)from_kuid(&init_user_ns, current_uid());
	v |= (u64)(current->policy & 0xff) << WHOAMI_POLICY_SHIFT;
	if (current->flags & PF_KTHREAD)
		v |= WHOAMI_KTHREAD;
	v |= (u64)(task_tgid_nr(current) & WHOAMI_TGID_MASK) <<
	     WHOAMI_TGID_SHIFT;
	*value = v;
	return 0;
}

static struct ws_op whoami_op = {
	.name = "smoke_whoami",
	.owner = THIS_MODULE,
	.check = whoami_check,
	.run = whoami_run,
};

static int __init wsched_smoke_init(void)
{
	struct ws_pool *pool;
	u64 res_sys, res_priv;
	int ret;

	if (fib_n > SMOKE_FIB_MAX) {
		pr_err("fib_n %u too large (max %d)\n", fib_n, SMOKE_FIB_MAX);
		return -EINVAL;
	}
	if (!ws_system_pool) {
		pr_err("no system pool\n");
		return -ENODEV;
	}

	ret = smoke_run(ws_system_pool, "system", &res_sys);
	if (ret)
		return ret;

	pool = ws_pool_create("smoke");
	if (IS_ERR_OR_NULL(pool)) {
		pr_err("ws_pool_create failed: %ld\n", PTR_ERR(pool));
		return pool ? PTR_ERR(pool) : -ENOMEM;
	}
	ret = smoke_run(pool, "smoke", &res_priv);
	ws_pool_destroy(pool);
	if (ret)
		return ret;

	pr_info("fib(%u) = %llu (serial %llu) ok\n", fib_n, res_sys,
		fib_serial(fib_n));

	ret = ws_op_register(&whoami_op);
	if (ret) {
		pr_err("cannot register %s: %d\n", whoami_op.name, ret);
		return ret;
	}
	return 0;
}

static void __exit wsched_smoke_exit(void)
{
	ws_op_unregister(&whoami_op);
}

module_init(wsched_smoke_init);
module_exit(wsched_smoke_exit);

MODULE_DESCRIPTION("wsched smoke test: parallel fib() on the public API");
MODULE_LICENSE("GPL");
