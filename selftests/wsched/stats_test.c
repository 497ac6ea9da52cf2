// SPDX-License-Identifier: GPL-2.0
/*
 * stats_test: the system pool's debugfs stats file exists, parses (the nine
 * contract columns first, see wsched_stats.h), has one row per possible CPU
 * and a total row equal to the column sums.
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

TEST_HARNESS_MAIN
