// SPDX-License-Identifier: GPL-2.0
// oneTBB side of bench_native: the same fib and nqueens with tbb::task_group,
// and fib with tbb::parallel_invoke.
#include <memory>
#include <oneapi/tbb/global_control.h>
#include <oneapi/tbb/parallel_invoke.h>
#include <oneapi/tbb/task_group.h>

static std::unique_ptr<tbb::global_control> tbb_gc;

extern "C" void tbb_bench_threads(int n)
{
	tbb_gc.reset(new tbb::global_control(
		tbb::global_control::max_allowed_parallelism, n));
}

static long fib(int n)
{
	if (n < 2)
		return n;
	long a, b;
	tbb::task_group g;
	g.run([&] { a = fib(n - 1); });
	g.run([&] { b = fib(n - 2); });
	g.wait();
	return a + b;
}

extern "C" long tbb_fib(int n)
{
	return fib(n);
}

static long fib_invoke(int n)
{
	if (n < 2)
		return n;
	long a, b;
	tbb::parallel_invoke([&] { a = fib_invoke(n - 1); },
			     [&] { b = fib_invoke(n - 2); });
	return a + b;
}

extern "C" long tbb_fib_invoke(int n)
{
	return fib_invoke(n);
}

static long queens(int n, int row, unsigned cols, unsigned d1, unsigned d2)
{
	if (row == n)
		return 1;
	long res[32] = { 0 };
	tbb::task_group g;
	for (int c = 0; c < n; c++) {
		unsigned bc = 1u << c, b1 = 1u << (row + c), b2 = 1u << (row - c + n);
		if ((cols & bc) || (d1 & b1) || (d2 & b2))
			continue;
		g.run([=, &res] { res[c] = queens(n, row + 1, cols | bc, d1 | b1, d2 | b2); });
	}
	g.wait();
	long s = 0;
	for (int c = 0; c < n; c++)
		s += res[c];
	return s;
}

extern "C" long tbb_nqueens(int n)
{
	// Run inside an arena task so the root counts as a task like the rest.
	return queens(n, 0, 0, 0, 0);
}
