// SPDX-License-Identifier: GPL-2.0
/*
 * debugfs: wsched/<pool>/stats shows a pool's per-CPU event counters;
 * wsched/<pool>/topology the victims each CPU's worker tries first;
 * wsched/dev the /dev/wsched totals: open files, pinned pages, worker
 *            sets and their threads.
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "wsched_internal.h"
#include "wsd_dev.h"
#include "wsd_proc.h"
#include "wsd_rbuf.h"

static struct dentry *ws_debugfs_root;

/* Column names, in the order of the fields of struct ws_pool_stats. */
static const char *const ws_stat_names[] = {
	"spawned", "executed", "bypassed", "popped", "stolen", "steal_failed",
	"injected", "sleeps", "wakeups", "enqueued", "mailed", "cancelled",
	"deferred", "released", "joined", "compensated", "stolen_local",
	"stolen_remote",
};

static void ws_stats_row(struct seq_file *m, const struct ws_pool_stats *s)
{
	const u64 *c = (const u64 *)s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ws_stat_names); i++)
		seq_printf(m, " %llu", c[i]);
	seq_putc(m, '\n');
}

static int ws_stats_show(struct seq_file *m, void *unused)
{
	struct ws_pool *pool = m->private;
	struct ws_pool_stats total;
	unsigned int cpu, i;

	BUILD_BUG_ON(ARRAY_SIZE(ws_stat_names) * sizeof(u64) !=
		     sizeof(struct ws_pool_stats));
	seq_puts(m, "cpu");
	for (i = 0; i < ARRAY_SIZE(ws_stat_names); i++)
		seq_printf(m, " %s", ws_stat_names[i]);
	seq_putc(m, '\n');
	for_each_possible_cpu(cpu) {
		/* A racy copy: counters are bumped without locks. */
		struct ws_pool_stats snap = {};

		ws_pool_cpu_stats(pool, cpu, &snap);
		seq_printf(m, "%u", cpu);
		ws_stats_row(m, &snap);
	}
	ws_pool_read_stats(pool, &total);
	seq_puts(m, "total");
	ws_stats_row(m, &total);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ws_stats);

/* One level of a slot's victims: "-" when it has none. */
static void ws_topo_level_show(struct seq_file *m, const struct ws_victims *v,
			       unsigned int l)
{
	unsigned int i = l ? v->end[l - 1] : 0;

	if (i == v->end[l])
		seq_puts(m, " -");
	for (; i < v->end[l]; i++)
		seq_printf(m, "%c%u", i == (l ? v->end[l - 1] : 0) ? ' ' : ',',
			   v->cpu[i]);
}

/*
 * "cpu smt llc node", then one line per CPU slot with victims: the CPU
 * and, per level, its victims in the order ws_steal() keeps them (each
 * level is then tried from a random start), comma-separated, or "-".
 * CPUs not listed (other nodes, join slots) are tried last.  A user
 * pool's workers are not bound to CPUs: it shows only the header.
 */
static int ws_topology_show(struct seq_file *m, void *unused)
{
	struct ws_pool *pool = m->private;
	const struct ws_victims *v;
	unsigned int cpu, l;

	seq_puts(m, "cpu smt llc node\n");
	rcu_read_lock();
	for (cpu = 0; cpu < pool->nr_cpus; cpu++) {
		/* Pairs with rcu_assign_pointer() in ws_victims_set(). */
		v = rcu_dereference(pool->workers[cpu]->victims);
		if (!v)
			continue;
		seq_printf(m, "%u", cpu);
		for (l = 0; l < WS_TOPO_NR_NEAR; l++)
			ws_topo_level_show(m, v, l);
		seq_putc(m, '\n');
	}
	rcu_read_unlock();
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ws_topology);

/*
 * "files N" (open files of /dev/wsched, released ones not counted),
 * "pinned_pages N" (pages of registered buffers, all files),
 * "worker_sets N" (processes with a worker pool, proc.c) and
 * "user_workers N" (threads of those pools): all 0 once every file is
 * closed, whatever the processes did.
 */
static int ws_dev_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "files %d\n", atomic_read(&wsd_nr_files));
	seq_printf(m, "pinned_pages %ld\n", atomic_long_read(&wsd_nr_pinned));
	seq_printf(m, "worker_sets %d\n", atomic_read(&wsd_nr_procs));
	seq_printf(m, "user_workers %d\n", atomic_read(&ws_nr_user_workers));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(ws_dev);

void ws_debugfs_add_pool(struct ws_pool *pool)
{
	pool->debugfs_dir = debugfs_create_dir(pool->name, ws_debugfs_root);
	debugfs_create_file("stats", 0444, pool->debugfs_dir, pool,
			    &ws_stats_fops);
	debugfs_create_file("topology", 0444, pool->debugfs_dir, pool,
			    &ws_topology_fops);
}

void ws_debugfs_remove_pool(struct ws_pool *pool)
{
	debugfs_remove_recursive(pool->debugfs_dir);
	pool->debugfs_dir = NULL;
}

void ws_debugfs_init(void)
{
	ws_debugfs_root = debugfs_create_dir("wsched", NULL);
	debugfs_create_file("dev", 0444, ws_debugfs_root, NULL, &ws_dev_fops);
}

void ws_debugfs_exit(void)
{
	debugfs_remove_recursive(ws_debugfs_root);
	ws_debugfs_root = NULL;
}
