// SPDX-License-Identifier: GPL-2.0
/*
 * wsched_pm_test: what callers of wsched see across suspend.
 *
 * Two submitters use one pool created with attributes (so a waiting
 * thread sleeps instead of running the pool's tasks itself):
 *
 * - a process, through debugfs: each write() to wsched_pm_test/submit
 *   runs one batch of tasks on the pool and waits for it inside the
 *   system call, as any driver that uses wsched on behalf of a process
 *   does.  Suspend must neither fail because of it nor make the batch
 *   fail: the pools keep running until every process is frozen.
 * - a kernel thread that is not freezable, submitting a batch every few
 *   milliseconds: its longest wait shows that the pools did stop for the
 *   time the system was frozen, and it checks every batch too.
 *
 * wsched_pm_test/stats reads "batches=N tasks=N failures=N
 * kthread_batches=N max_wait_ms=N".  The rig (tools/qemu/guest-init.sh)
 * drives it with /sys/power/pm_test set to "freezer".
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/wsched.h>

#define PM_BATCH	32

static struct ws_pool *pm_pool;
static struct dentry *pm_dir;
static struct task_struct *pm_thread;

static atomic_long_t pm_batches;	/* batches submitted by processes */
static atomic_long_t pm_tasks;		/* tasks run, all submitters */
static atomic_long_t pm_kbatches;	/* batches of the kernel thread */
static atomic_t pm_failures;
static unsigned long pm_max_wait;	/* jiffies; the kernel thread's */

struct pm_task {
	struct ws_task task;
	atomic_t runs;
};

static struct ws_task *pm_task_fn(struct ws_task *task)
{
	struct pm_task *t = container_of(task, struct pm_task, task);

	atomic_inc(&t->runs);
	return NULL;
}

/* One batch: spawn, wait, check that every task ran exactly once. */
static int pm_run_batch(void)
{
	struct pm_task *tasks;
	struct ws_group group;
	int i, ret;

	tasks = kcalloc(PM_BATCH, sizeof(*tasks), GFP_KERNEL);
	if (!tasks)
		return -ENOMEM;
	ws_group_init(&group, pm_pool);
	for (i = 0; i < PM_BATCH; i++) {
		ws_task_init(&tasks[i].task, pm_task_fn);
		ws_spawn(&group, &tasks[i].task);
	}
	ret = ws_group_wait(&group);
	for (i = 0; i < PM_BATCH; i++) {
		if (atomic_read(&tasks[i].runs) != 1) {
			pr_err("task %d ran %d times\n", i,
			       atomic_read(&tasks[i].runs));
			ret = ret ?: -EIO;
		}
	}
	kfree(tasks);
	if (ret) {
		atomic_inc(&pm_failures);
		return ret;
	}
	atomic_long_add(PM_BATCH, &pm_tasks);
	return 0;
}

static ssize_t pm_submit_write(struct file *file, const char __user *buf,
			       size_t len, loff_t *pos)
{
	int ret = pm_run_batch();

	if (ret)
		return ret;
	atomic_long_inc(&pm_batches);
	return len;
}

static const struct file_operations pm_submit_fops = {
	.owner = THIS_MODULE,
	.write = pm_submit_write,
	.llseek = noop_llseek,
};

static int pm_stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "batches=%ld tasks=%ld failures=%d kthread_batches=%ld max_wait_ms=%u\n",
		   atomic_long_read(&pm_batches), atomic_long_read(&pm_tasks),
		   atomic_read(&pm_failures), atomic_long_read(&pm_kbatches),
		   jiffies_to_msecs(READ_ONCE(pm_max_wait)));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(pm_stats);

/* Not freezable: it keeps submitting while the system is frozen. */
static int pm_thread_fn(void *arg)
{
	while (!kthread_should_stop()) {
		unsigned long start = jiffies;

		if (!pm_run_batch())
			atomic_long_inc(&pm_kbatches);
		/* Only this thread writes it; stats reads it. */
		if (jiffies - start > pm_max_wait)
			WRITE_ONCE(pm_max_wait, jiffies - start);
		usleep_range(5000, 10000);
	}
	return 0;
}

static int __init pm_init(void)
{
	struct ws_pool_attrs attrs = { .max_workers = 2 };
	int ret;

	pm_pool = ws_pool_create_attrs("pm_test", &attrs);
	if (IS_ERR(pm_pool))
		return PTR_ERR(pm_pool);
	pm_dir = debugfs_create_dir("wsched_pm_test", NULL);
	debugfs_create_file("submit", 0200, pm_dir, NULL, &pm_submit_fops);
	debugfs_create_file("stats", 0444, pm_dir, NULL, &pm_stats_fops);
	pm_thread = kthread_run(pm_thread_fn, NULL, "wsched_pm_test");
	if (IS_ERR(pm_thread)) {
		ret = PTR_ERR(pm_thread);
		debugfs_remove_recursive(pm_dir);
		ws_pool_destroy(pm_pool);
		return ret;
	}
	return 0;
}

static void __exit pm_exit(void)
{
	kthread_stop(pm_thread);
	debugfs_remove_recursive(pm_dir);
	ws_pool_destroy(pm_pool);
}

module_init(pm_init);
module_exit(pm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("wsched test: submitting work across suspend");
MODULE_AUTHOR("wsched developers");
