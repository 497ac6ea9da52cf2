#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the wsched benchmark initramfs (busybox sh).
#
# Loads wsched.ko, then wsched_bench.ko with the module parameters given
# on the kernel command line as wsbench.<param>=<value>, then runs
# wsched_ubench (user space, /dev/wsched) with the same words.  The
# benchmark rows of the kernel log and of wsched_ubench go to the second
# serial port (/dev/ttyS1).

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null

params=
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
	case $arg in
	wsbench.*=*) params="$params ${arg#wsbench.}" ;;
	esac
done

# The value of word <key>= of $params, or $2.
param() {
	v=$(echo " $params " | sed -n "s/.* $1=\([^ ]*\) .*/\1/p")
	echo "${v:-$2}"
}

# tools/samples/pages: page clear and copy by one thread, a static split
# over an unbound workqueue and ws_job_run(), idle and then beside a CPU
# hog pinned to CPU 0 (a static split waits for its slowest share).
run_pages() {
	only=$(param only "")
	case ",$only," in
	,,|*,pages,*) ;;
	*) return ;;
	esac
	[ -f /lib/wsched/wsched_pages.ko ] || { echo "# pages-exit missing" >&3; return; }
	pmb=$(param pages_mb 64)
	pruns=$(param runs 5)
	echo "[wsched-bench] insmod wsched_pages.ko size_mb=$pmb reps=$pruns bench=1"
	insmod /lib/wsched/wsched_pages.ko size_mb="$pmb" reps="$pruns" bench=1
	echo "# pages-exit $?" >&3
	rmmod wsched_pages 2>/dev/null
	if command -v taskset >/dev/null; then
		taskset 1 sh -c 'while :; do :; done' &
		hog=$!
		insmod /lib/wsched/wsched_pages.ko size_mb="$pmb" reps="$pruns" bench=1 tag=_hog
		echo "# pages-hog-exit $?" >&3
		kill "$hog"
		rmmod wsched_pages 2>/dev/null
	fi
	dmesg | grep 'wsched_pages: \(row\|op=\)' | sed 's/^\[[^]]*\] //' >&3
	dmesg | grep 'wsched_pages:.*wrong' | sed 's/^\[[^]]*\] //' >&3
}

stty -F /dev/ttyS1 raw -echo 2>/dev/null
exec 3>/dev/ttyS1
echo "# bench cpus=$(grep -c ^processor /proc/cpuinfo) kernel=$(uname -r)" >&3

echo "[wsched-bench] insmod wsched.ko"
if insmod /lib/wsched/wsched.ko; then
	echo "[wsched-bench] insmod wsched_bench.ko$params"
	# shellcheck disable=SC2086
	insmod /lib/wsched/wsched_bench.ko $params
	echo "# bench-exit $?" >&3
	# Unbound kworkers now (idle ones linger for minutes): the speed of
	# the workqueue baselines differs between boots, and this may be why
	# (Documentation/performance.rst).
	echo "# kworkers_unbound=$(cat /proc/[0-9]*/comm 2>/dev/null | grep -c '^kworker/u')" >&3
	dmesg | grep 'wsched_bench: \(row\|runs\|start\|stats\|done\)' | sed 's/^\[[^]]*\] //' >&3
	dmesg | grep 'wsched_bench:.*MISMATCH' | sed 's/^\[[^]]*\] //' >&3
	run_pages
	# /dev/wsched from user space; it takes the same key=value words
	# and ignores those it does not know.
	# wsbench.profile=N: a function_graph trace of N ENTER calls of 64
	# one-node graphs each (wsd_enter() and everything under it).
	if [ -x /lib/wsched/wsched_ubench ] && echo "$params" | grep -q ' profile='; then
		mount -t tracefs tracefs /sys/kernel/tracing
		t=/sys/kernel/tracing
		echo 0 >$t/tracing_on
		echo 8192 >$t/buffer_size_kb
		echo wsd_enter >$t/set_graph_function
		echo function_graph >$t/current_tracer
		echo funcgraph-abstime >$t/trace_options 2>/dev/null
		# shellcheck disable=SC2086
		/lib/wsched/wsched_ubench $params >&3 2>&1
		echo "# profile-begin" >&3
		cat $t/trace >&3
		echo "# profile-end" >&3
		echo nop >$t/current_tracer
	elif [ -x /lib/wsched/wsched_ubench ]; then
		echo "[wsched-bench] wsched_ubench$params"
		# shellcheck disable=SC2086
		/lib/wsched/wsched_ubench $params >&3 2>&1
		echo "# ubench-exit $?" >&3
	else
		echo "# ubench-exit missing" >&3
	fi
else
	echo "# bench-exit insmod-wsched-failed" >&3
fi
echo "# bench-done" >&3
sync
poweroff -f
