// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test: the system pool's debugfs stats file exists, parses (the nine
 * contract columns first, see wsched_stats.h), has one row per possible CPU
 * and a total row equal to the column sums, and splits steals into local
 * and remote ones that add up to no more than all steals.
 */
#include <unistd.h>

#include "kselftest_harness.h"
#include "wsched_stats.h"

static struct ws_stats st;

TEST(stats_exists)
{
	char path[256];

	ws_stats_path("system", path, sizeof(path));
	ASSERT_EQ(0, access(path, R_OK)) {
		TH_LOG("%s: %s (is wsched.ko loaded, debugfs mounted?)", path,
		       strerror(errno));
	}
}

TEST(stats_parses)
{
	ASSERT_EQ(0, ws_stats_read("system", &st)) TH_LOG("%s", st.err);
	ASSERT_GT(st.nr_rows, 0);
}

TEST(stats_row_per_possible_cpu)
{
	unsigned char possible[WS_STATS_MAXCPU], seen[WS_STATS_MAXCPU] = { 0 };
	int nr_possible, i;

	nr_possible = ws_cpulist("/sys/devices/system/cpu/possible", possible);
	ASSERT_GT(nr_possible, 0);
	ASSERT_EQ(0, ws_stats_read("system", &st)) TH_LOG("%s", st.err);
	EXPECT_EQ(nr_possible, st.nr_rows);
	for (i = 0; i < st.nr_rows; i++) {
		int cpu = st.cpu[i];

		EXPECT_TRUE(possible[cpu]) TH_LOG("row for impossible cpu %d", cpu);
		EXPECT_FALSE(seen[cpu]) TH_LOG("duplicate row for cpu %d", cpu);
		seen[cpu] = 1;
	}
	for (i = 0; i < WS_STATS_MAXCPU; i++)
		if (possible[i])
			EXPECT_TRUE(seen[i]) TH_LOG("no row for possible cpu %d", i);
}

/*
 * Counters move without locks while the file is read, so a busy pool can
 * show a total that disagrees with the rows read a moment earlier.  The
 * pool is idle here; retry a few times before calling it a failure.
 */
TEST(stats_total_is_sum)
{
	unsigned long long sum;
	int i, c, bad = -1, try;

	for (try = 0; try < 10 && bad; try++) {
		if (try)
			usleep(200 * 1000);
		ASSERT_EQ(0, ws_stats_read("system", &st)) TH_LOG("%s", st.err);
		for (bad = 0, c = 0; c < st.nr_cols; c++) {
			for (sum = 0, i = 0; i < st.nr_rows; i++)
				sum += st.row[i][c];
			if (sum != st.total[c])
				bad++;
		}
	}
	for (c = 0; c < st.nr_cols; c++) {
		for (sum = 0, i = 0; i < st.nr_rows; i++)
			sum += st.row[i][c];
		EXPECT_EQ(sum, st.total[c]) TH_LOG("column %s", st.names[c]);
	}
}

static int column(const struct ws_stats *s, const char *name)
{
	int c;

	for (c = 0; c < s->nr_cols; c++)
		if (!strcmp(s->names[c], name))
			return c;
	return -1;
}

/*
 * stolen_local and stolen_remote count steals by CPU workers from near
 * and from farther CPUs; steals by threads that joined count in neither.
 * Counters are bumped per CPU without locks, and a steal bumps stolen
 * before its kind, and a row is read field by field: on a busy pool a
 * row may be read while both move, so the check is retried like the sums
 * above.
 */
TEST(stats_local_remote)
{
	int local, remote, stolen, i, try, ok = 0;

	ASSERT_EQ(0, ws_stats_read("system", &st)) TH_LOG("%s", st.err);
	local = column(&st, "stolen_local");
	remote = column(&st, "stolen_remote");
	stolen = column(&st, "stolen");
	ASSERT_GE(local, 0) TH_LOG("no stolen_local column");
	ASSERT_GE(remote, 0) TH_LOG("no stolen_remote column");
	ASSERT_EQ(WS_STOLEN, stolen);
	for (try = 0; try < 10 && !ok; try++) {
		if (try) {
			usleep(200 * 1000);
			ASSERT_EQ(0, ws_stats_read("system", &st)) TH_LOG("%s", st.err);
		}
		ok = st.total[local] + st.total[remote] <= st.total[stolen];
		for (i = 0; i < st.nr_rows; i++)
			ok &= st.row[i][local] + st.row[i][remote] <= st.row[i][stolen];
	}
	EXPECT_LE(st.total[local] + st.total[remote], st.total[stolen]);
	for (i = 0; i < st.nr_rows; i++)
		EXPECT_LE(st.row[i][local] + st.row[i][remote], st.row[i][stolen])
			TH_LOG("cpu %d", st.cpu[i]);
}

TEST_HARNESS_MAIN
