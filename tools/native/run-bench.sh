#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build bench_native (wsched core from kmod sources, -O2, user space) and
# compare it with oneTBB's task_group and serial code.
#
#   run-bench.sh              NATIVE_CPUS (default: all CPUs)
#   run-bench.sh 1 2 4 8      one table per worker count: a scaling curve
#   BENCH_REPS, BENCH_FIB, BENCH_QUEENS: see bench_native.c
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
