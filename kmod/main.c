// SPDX-License-Identifier: GPL-2.0
/*
 * wsched module init and exit: the parts come up in order and go down in
 * the reverse order, and a failure unwinds exactly what came up.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/printk.h>
#include <linux/wsched.h>

#include "wsched_internal.h"
#include "wsd_dev.h"

static int __init ws_init(void)
{
	int ret;

	ret = ws_hotplug_init();
	if (ret)
		return ret;
	ws_debugfs_init();
	ret = ws_system_pool_init();
	if (ret)
		goto err_debugfs;
	ret = ws_pm_init();
	if (ret)
		goto err_system_pool;
	ret = ws_dev_init();
	if (ret)
		goto err_pm;
	pr_info("%u workers\n", ws_pool_nr_workers(ws_system_pool));
	return 0;

err_pm:
	ws_pm_exit();
err_system_pool:
	ws_system_pool_exit();
err_debugfs:
	ws_debugfs_exit();
	ws_hotplug_exit();
	return ret;
}

static void __exit ws_exit(void)
{
	/* The worker sets that jobs kept, before the processes' table. */
	ws_job_exit();
	ws_dev_exit();
	ws_pm_exit();
	ws_system_pool_exit();
	ws_debugfs_exit();
	ws_hotplug_exit();
}

module_init(ws_init);
module_exit(ws_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Work-stealing thread pools");
MODULE_AUTHOR("wsched developers");
