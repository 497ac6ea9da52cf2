// SPDX-License-Identifier: GPL-2.0
/*
 * topo_test: the victims each CPU's worker of the system pool tries first
 * (debugfs wsched/system/topology, read from the very arrays ws_steal()
 * walks) are, for every online CPU, exactly the other online CPUs that
 * are its SMT siblings, then those sharing its last-level cache, then
 * those of its NUMA node, each at its level, as sysfs describes the
 * machine; CPUs farther away are not listed (they are tried last).  On
 * the rig's NUMA guest (stage stock: 2 nodes of 2 CPUs) it also checks
 * that the nodes are seen.
 */
#include <dirent.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wsched_stats.h"

#define TOPO_PATH	"/sys/kernel/debug/wsched/system/topology"
#define CPU_SYS		"/sys/devices/system/cpu"

enum { SMT, LLC, NODE, SYSTEM, NR_NEAR = SYSTEM };
static const char *const level_names[] = { "smt", "llc", "node", "system" };

/* The machine as sysfs describes it, per online CPU. */
struct machine {
	unsigned char online[WS_STATS_MAXCPU];
	unsigned char smt[WS_STATS_MAXCPU][WS_STATS_MAXCPU];
	unsigned char llc[WS_STATS_MAXCPU][WS_STATS_MAXCPU];
	int has_llc[WS_STATS_MAXCPU];
	int node[WS_STATS_MAXCPU];
	int nr_nodes;
};

/* What the debugfs file says: per CPU and level, the victims in order. */
struct victims {
	int listed[WS_STATS_MAXCPU];
	int nr[WS_STATS_MAXCPU][NR_NEAR];
	int cpu[WS_STATS_MAXCPU][NR_NEAR][WS_STATS_MAXCPU];
};

static struct machine mach;
static struct victims vic;
static struct ws_stats stats;

static int read_int(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* The shared_cpu_list of the highest-level cache of @cpu, if sysfs has it. */
static int read_llc(int cpu, unsigned char *map)
{
	char path[256];
	int i, level, best = -1, best_index = -1;

	for (i = 0; i < 16; i++) {
		snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cache/index%d/level", cpu, i);
		level = read_int(path);
		if (level < 0)
			break;
		if (level > best) {
			best = level;
			best_index = i;
		}
	}
	if (best_index < 0)
		return -1;
	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cache/index%d/shared_cpu_list",
		 cpu, best_index);
	return ws_cpulist(path, map) > 0 ? 0 : -1;
}

/* @cpu's NUMA node: its nodeN link in sysfs, 0 without CONFIG_NUMA. */
static int read_node(int cpu)
{
	char path[256];
	struct dirent *d;
	int node = 0;
	DIR *dir;

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d", cpu);
	dir = opendir(path);
	if (!dir)
		return -1;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "node", 4) && isdigit((unsigned char)d->d_name[4]))
			node = atoi(d->d_name + 4);
	closedir(dir);
	return node;
}

static int read_machine(struct machine *m, char *err, size_t len)
{
	char path[256];
	int cpu, n;

	memset(m, 0, sizeof(*m));
	if (ws_cpulist(CPU_SYS "/online", m->online) <= 0) {
		snprintf(err, len, "cannot read %s/online", CPU_SYS);
		return -1;
	}
	for (cpu = 0; cpu < WS_STATS_MAXCPU; cpu++) {
		if (!m->online[cpu])
			continue;
		snprintf(path, sizeof(path), CPU_SYS "/cpu%d/topology/thread_siblings_list", cpu);
		if (ws_cpulist(path, m->smt[cpu]) <= 0) {
			snprintf(err, len, "cannot read %s", path);
			return -1;
		}
		m->has_llc[cpu] = !read_llc(cpu, m->llc[cpu]);
		m->node[cpu] = read_node(cpu);
		if (m->node[cpu] < 0) {
			snprintf(err, len, "cpu%d: no sysfs directory", cpu);
			return -1;
		}
	}
	for (n = 0; n < 64; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", n);
		if (!access(path, F_OK))
			m->nr_nodes++;
	}
	return 0;
}

/*
 * How near @x is to @cpu for sysfs.  Without cache information in sysfs
 * the LLC level cannot be told from the node level: -1 means either.
 */
static int sysfs_level(const struct machine *m, int cpu, int x)
{
	if (m->smt[cpu][x])
		return SMT;
	if (m->node[cpu] != m->node[x] && !(m->has_llc[cpu] && m->llc[cpu][x]))
		return SYSTEM;
	if (!m->has_llc[cpu])
		return -1;
	return m->llc[cpu][x] ? LLC : NODE;
}

static int read_victims(struct victims *v, char *err, size_t len)
{
	char line[8192], *w[8], *tok, *save;
	int n, l, cpu, lineno = 0;
	FILE *f = fopen(TOPO_PATH, "r");

	memset(v, 0, sizeof(*v));
	if (!f) {
		snprintf(err, len, "%s: %s", TOPO_PATH, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		n = ws_split(line, w, 8);
		if (!lineno++) {
			if (n != 4 || strcmp(w[0], "cpu") || strcmp(w[1], "smt") ||
			    strcmp(w[2], "llc") || strcmp(w[3], "node"))
				goto bad;
			continue;
		}
		if (n != 1 + NR_NEAR)
			goto bad;
		cpu = atoi(w[0]);
		if (cpu < 0 || cpu >= WS_STATS_MAXCPU || v->listed[cpu])
			goto bad;
		v->listed[cpu] = 1;
		for (l = 0; l < NR_NEAR; l++) {
			if (!strcmp(w[1 + l], "-"))
				continue;
			for (tok = strtok_r(w[1 + l], ",", &save); tok;
			     tok = strtok_r(NULL, ",", &save)) {
				int x = atoi(tok);

				if (x < 0 || x >= WS_STATS_MAXCPU)
					goto bad;
				v->cpu[cpu][l][v->nr[cpu][l]++] = x;
			}
		}
	}
	fclose(f);
	if (lineno < 1) {
		snprintf(err, len, "%s: empty", TOPO_PATH);
		return -1;
	}
	return 0;
bad:
	fclose(f);
	snprintf(err, len, "%s: line %d malformed", TOPO_PATH, lineno);
	return -1;
}

/* Also logs the file, with the nodes sysfs gives, for the record. */
TEST(topology_file_parses)
{
	char err[512], line[1024];
	FILE *f;

	ASSERT_EQ(0, read_victims(&vic, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, read_machine(&mach, err, sizeof(err))) TH_LOG("%s", err);
	f = fopen(TOPO_PATH, "r");
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = 0;
		if (isdigit((unsigned char)line[0]))
			TH_LOG("%s (node %d)", line, mach.node[atoi(line)]);
		else
			TH_LOG("%s", line);
	}
	fclose(f);
	/* What the system pool's steals were so far (smoke_test ran fib). */
	if (!ws_stats_read("system", &stats)) {
		int c, local = -1, remote = -1;

		for (c = 0; c < stats.nr_cols; c++) {
			if (!strcmp(stats.names[c], "stolen_local"))
				local = c;
			if (!strcmp(stats.names[c], "stolen_remote"))
				remote = c;
		}
		if (local >= 0 && remote >= 0)
			TH_LOG("system pool: stolen %llu, local %llu, remote %llu",
			       stats.total[WS_STOLEN], stats.total[local],
			       stats.total[remote]);
	}
}

/* The system pool's mask is every housekeeping CPU: in the rig, all. */
TEST(every_online_cpu_listed)
{
	char err[512];
	int cpu;

	ASSERT_EQ(0, read_machine(&mach, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, read_victims(&vic, err, sizeof(err))) TH_LOG("%s", err);
	for (cpu = 0; cpu < WS_STATS_MAXCPU; cpu++) {
		if (mach.online[cpu]) {
			EXPECT_TRUE(vic.listed[cpu]) TH_LOG("cpu %d has no victims", cpu);
		} else {
			EXPECT_FALSE(vic.listed[cpu]) TH_LOG("offline cpu %d listed", cpu);
		}
	}
}

/*
 * Each listed victim is at the level sysfs gives it, and every online CPU
 * of a near level is listed exactly once: a victim order that did not go
 * near first (a random one, or one level merged into the next) fails.
 */
TEST(victims_near_first)
{
	char err[512];
	int cpu, x, l, i, lvl, bad = 0;

	ASSERT_EQ(0, read_machine(&mach, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, read_victims(&vic, err, sizeof(err))) TH_LOG("%s", err);
	for (cpu = 0; cpu < WS_STATS_MAXCPU; cpu++) {
		int seen[WS_STATS_MAXCPU] = { 0 };

		if (!vic.listed[cpu])
			continue;
		for (l = 0; l < NR_NEAR; l++) {
			for (i = 0; i < vic.nr[cpu][l]; i++) {
				x = vic.cpu[cpu][l][i];
				lvl = sysfs_level(&mach, cpu, x);
				if (x == cpu || !mach.online[x] || seen[x]++ ||
				    (lvl != l && !(lvl == -1 && (l == LLC || l == NODE)))) {
					TH_LOG("cpu %d: victim %d listed at %s, sysfs says %s",
					       cpu, x, level_names[l],
					       lvl < 0 ? "llc or node" : level_names[lvl]);
					bad++;
				}
			}
		}
		for (x = 0; x < WS_STATS_MAXCPU; x++) {
			if (x == cpu || !mach.online[x] || seen[x] ||
			    sysfs_level(&mach, cpu, x) == SYSTEM)
				continue;
			TH_LOG("cpu %d: near cpu %d (%s) not listed", cpu, x,
			       level_names[sysfs_level(&mach, cpu, x) < 0 ? NODE :
					   sysfs_level(&mach, cpu, x)]);
			bad++;
		}
	}
	EXPECT_EQ(0, bad);
}

/* The number of nodes the rig booted the guest with (wsched.numa=N), or 0. */
static int rig_numa_nodes(void)
{
	char buf[4096], *p;
	FILE *f = fopen("/proc/cmdline", "r");
	int n = 0;

	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strstr(buf, "wsched.numa=");
		if (p)
			n = atoi(p + strlen("wsched.numa="));
	}
	fclose(f);
	return n;
}

/*
 * On a machine with several NUMA nodes (the rig's stock stage boots 2
 * nodes of 2 CPUs and says so with wsched.numa=2), every CPU lists the
 * other CPUs of its node and none of another node's (unless they share
 * its LLC), so its worker tries its own node's CPUs before the others.
 */
TEST(numa_nodes_seen)
{
	char err[512];
	int cpu, x, l, i, in_node, listed, remote = 0, want = rig_numa_nodes();

	ASSERT_EQ(0, read_machine(&mach, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(0, read_victims(&vic, err, sizeof(err))) TH_LOG("%s", err);
	if (want)
		ASSERT_EQ(want, mach.nr_nodes) TH_LOG("the rig booted %d nodes", want);
	if (mach.nr_nodes < 2)
		SKIP(return, "one NUMA node");
	for (cpu = 0; cpu < WS_STATS_MAXCPU; cpu++) {
		if (!vic.listed[cpu])
			continue;
		for (x = 0; x < WS_STATS_MAXCPU; x++) {
			if (!mach.online[x] || x == cpu)
				continue;
			in_node = mach.node[x] == mach.node[cpu];
			for (listed = 0, l = 0; l < NR_NEAR; l++)
				for (i = 0; i < vic.nr[cpu][l]; i++)
					listed |= vic.cpu[cpu][l][i] == x;
			remote += !in_node;
			if (in_node == listed ||
			    (!in_node && mach.has_llc[cpu] && mach.llc[cpu][x]))
				continue;
			TH_LOG("cpu %d (node %d): cpu %d (node %d) %s", cpu,
			       mach.node[cpu], x, mach.node[x],
			       listed ? "listed" : "not listed");
			EXPECT_EQ(in_node, listed);
		}
	}
	EXPECT_GT(remote, 0) TH_LOG("%d nodes but no CPU on another node", mach.nr_nodes);
}

TEST_HARNESS_MAIN
