// SPDX-License-Identifier: GPL-2.0
/*
 * smoke_test: load wsched_smoke.ko (path from $WSCHED_SMOKE_KO) with
 * finit_module(2), unload it, and check that the system pool's counters
 * account for the fib() workload it ran.
 */
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "wsched_stats.h"

#define SMOKE_DEFAULT_KO	"/lib/wsched/wsched_smoke.ko"
#define SMOKE_FIB_N		22

/* Number of calls of the recursive fib(n): 2 * fib(n + 1) - 1. */
static unsigned long long fib_calls(unsigned int n)
{
	unsigned long long a = 0, b = 1, t;

	for (n++; n; n--) {
		t = a + b;
		a = b;
		b = t;
	}
	return 2 * a - 1;
}

TEST(smoke_load_counts)
{
	const char *ko = getenv("WSCHED_SMOKE_KO") ?: SMOKE_DEFAULT_KO;
	static struct ws_stats before, after;
	unsigned long long calls = fib_calls(SMOKE_FIB_N);
	char params[32];
	int fd, ret;

	ASSERT_EQ(57313ULL, fib_calls(22));
	ASSERT_EQ(0, ws_stats_read("system", &before)) TH_LOG("%s", before.err);

	fd = open(ko, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", ko, strerror(errno));
	snprintf(params, sizeof(params), "fib_n=%d", SMOKE_FIB_N);
	ret = syscall(SYS_finit_module, fd, params, 0);
	close(fd);
	ASSERT_EQ(0, ret) TH_LOG("finit_module %s: %s", ko, strerror(errno));

	ret = syscall(SYS_delete_module, "wsched_smoke", O_NONBLOCK);
	EXPECT_EQ(0, ret) TH_LOG("delete_module: %s", strerror(errno));

	ASSERT_EQ(0, ws_stats_read("system", &after)) TH_LOG("%s", after.err);
	/* Every call but the root one runs as a task. */
	EXPECT_LE(before.total[WS_EXECUTED] + calls - 1, after.total[WS_EXECUTED])
		TH_LOG("executed %llu -> %llu, expected >= +%llu",
		       before.total[WS_EXECUTED], after.total[WS_EXECUTED], calls - 1);
	/* The root's children come from insmod, outside the pool. */
	EXPECT_LT(before.total[WS_INJECTED], after.total[WS_INJECTED])
		TH_LOG("injected did not grow: %llu", after.total[WS_INJECTED]);
}

TEST_HARNESS_MAIN
