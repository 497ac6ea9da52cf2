#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build bench_native (wsched core from kmod sources, -O2, user space) and
# compare it with oneTBB's task_group and serial code.
#
#   run-bench.sh              NATIVE_CPUS (default: all CPUs)
#   run-bench.sh 1 2 4 8      one table per CPU count: a scaling curve
#   BENCH_REPS, BENCH_FIB, BENCH_QUEENS: see bench_native.c
#
# Each table's header says what its columns are.  With n = NATIVE_CPUS:
#   tasks     tasks (fib calls, nqueens board nodes) per run
#   serial    plain recursion without tasks, ns per task
#   oneTBB    tbb::task_group, ns per task; its main thread runs tasks
#             beside n - 1 workers (n threads)
#   ws_pool   wsched, ns per task; n workers, main sleeps (n threads)
#   ws_join   wsched, ns per task; main joins the pool beside n - 1
#             workers, as oneTBB's does (n threads)
#   ws_join+  wsched, ns per task; main joins beside n workers (n + 1
#             threads), what ws_group_wait() from main gets by default
#   pool/tbb, join/tbb   ws_pool and ws_join time / oneTBB time (< 1:
#             wsched faster)
# ns per task is the best wall time over BENCH_REPS interleaved rounds
# divided by the task count, not multiplied by the number of threads.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-$top/.build/native}
export O

if ! command -v g++ >/dev/null || [ ! -e /usr/include/oneapi/tbb/task_group.h ]; then
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y g++ libtbb-dev >/dev/null 2>&1 ||
		{ $SUDO apt-get update >/dev/null 2>&1 &&
		  $SUDO apt-get install -y g++ libtbb-dev >/dev/null; }
fi
make -s -C "$here" bench

if [ $# -eq 0 ]; then
	set -- "${NATIVE_CPUS:-$(nproc)}"
fi
for cpus in "$@"; do
	NATIVE_CPUS=$cpus "$O/bench_native"
done
