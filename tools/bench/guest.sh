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
# hog pinned to CPU 0 (a static split waits for its slowest share), the
# latter in more rounds (pages_hog_runs, default 11): where the
# scheduler puts three runnable tasks on two CPUs changes from one round
# to the next, and the median needs more of them.
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
		insmod /lib/wsched/wsched_pages.ko size_mb="$pmb" reps="$(param pages_hog_runs 11)" bench=1 tag=_hog
		echo "# pages-hog-exit $?" >&3
		kill "$hog"
		rmmod wsched_pages 2>/dev/null
	fi
	dmesg | grep 'wsched_pages: \(row\|op=\)' | sed 's/^\[[^]]*\] //' >&3
	dmesg | grep 'wsched_pages:.*wrong' | sed 's/^\[[^]]*\] //' >&3
}

# Print "a.bcd" for the integer ratio $1 / $2.
ratio() {
	r=$(($1 * 1000 / $2))
	printf '%d.%03d' $((r / 1000)) $((r % 1000))
}

# The sum of the context switches of the wsched threads named ws/*:$1
# (every wake-up of a sleeping thread is one): "<threads> <switches>".
ws_switches() {
	n=0 sw=0
	for d in /proc/[0-9]*; do
		case $(cat "$d/comm" 2>/dev/null) in
		ws/*:"$1") ;;
		*) continue ;;
		esac
		for t in "$d"/task/*; do
			v=$(sed -n 's/^voluntary_ctxt_switches:[^0-9]*//p' "$t/status" 2>/dev/null)
			w=$(sed -n 's/^nonvoluntary_ctxt_switches:[^0-9]*//p' "$t/status" 2>/dev/null)
			sw=$((sw + ${v:-0} + ${w:-0}))
		done
		n=$((n + 1))
	done
	echo "$n $sw"
}

# The iterations of one nice-0 spinner pinned to each CPU, run together for
# $1 ms: the competitor keeps every vCPU busy, alone or beside a job, so that
# the host (which runs each vCPU as a thread, among other guests) gives
# the guest the same CPU time in both and only the guest's scheduling
# differs.
spin_all() {
	i=0 pids=
	while [ $i -lt "$ncpu" ]; do
		# Pinned, one per CPU: fork placement beside a job's threads
		# is not what is measured.
		taskset $((1 << i)) $hog spin "$1" >/tmp/spin.$i &
		pids="$pids $!"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086 # a list of pids
	wait $pids
	sum=0 i=0
	while [ $i -lt "$ncpu" ]; do
		sum=$((sum + $(sed 's/iters=\([0-9]*\).*/\1/' /tmp/spin.$i)))
		i=$((i + 1))
	done
	echo $sum
}

# cyclic_beside NAME [CMD...]: the SCHED_FIFO thread's lateness (wsched_hog
# cyclic, $ms ms, 1 ms period) alone or, with CMD, a second after starting
# CMD in the background, which it then waits for (an insmod of
# wsched_pages is unloaded after).  Logs the line; prints "max_ns avg_ns".
cyclic_beside() {
	name=$1
	shift
	if [ $# -gt 0 ]; then
		"$@" >/dev/null &
		job=$!
		sleep 1
	fi
	cyc=$("$hog" cyclic "$ms" 1000)
	if [ $# -gt 0 ]; then
		wait "$job"
		[ "$1" = insmod ] && rmmod wsched_pages 2>/dev/null
	fi
	echo "# cyclic $name $cyc" >&3
	echo "$(echo "$cyc" | sed 's/.*max_ns=//') $(echo "$cyc" | sed 's/.*avg_ns=\([0-9]*\).*/\1/')"
}

# rt_rows SUFFIX BASELINE BASE_MAX BASE_AVG JOB_MAX JOB_AVG: the two rows.
rt_rows() {
	echo "wsched_pages: row name=rt_latency_max$1 baseline=$2 base_ns=$3 ws_ns=$5 ratio=$(ratio "$3" "$(($5 > 0 ? $5 : 1))") interval_us=1000" >&3
	echo "wsched_pages: row name=rt_latency_avg$1 baseline=$2 base_ns=$4 ws_ns=$6 ratio=$(ratio "$4" "$(($6 > 0 ? $6 : 1))") interval_us=1000" >&3
}

# Good citizenship (BENCH_ONLY=citizen): a nice-0 CPU-bound competitor's
# (one spinner per CPU) throughput alone and beside a saturating job (wsched_pages loop_s, the
# default pool: the caller's own worker set) run at nice 19, from a
# SCHED_IDLE caller and, for reference, at nice 0; the wake-ups per second
# of the idle system pool over 10 s; and on a PREEMPT_RT kernel the
# wake-up latency of a SCHED_FIFO thread alone, beside a job, beside
# one nice-0 spinner per CPU and beside the same clearing split
# statically over system_unbound_wq (load that is not wsched's).
run_citizen() {
	only=$(param only "")
	case ",$only," in
	,,|*,citizen,*) ;;
	*) return ;;
	esac
	hog=/lib/wsched/wsched_hog
	ko=/lib/wsched/wsched_pages.ko
	if [ ! -x $hog ] || [ ! -f $ko ]; then
		echo "# citizen-exit missing" >&3
		return
	fi
	ms=$(param citizen_ms 4000)
	ncpu=$(grep -c ^processor /proc/cpuinfo)
	# Alone right before each run beside a job: the host's load drifts
	# over a minute, less over ten seconds.
	for how in nice19 idle nice0; do
		alone=$(spin_all "$ms")
		$hog sched $how insmod $ko size_mb=16 loop_s=$((ms / 1000 + 3)) &
		job=$!
		sleep 1
		beside=$(spin_all "$ms")
		wait $job
		st=$?
		rmmod wsched_pages 2>/dev/null
		[ $st -eq 0 ] || echo "# citizen-exit $how $st" >&3
		# Rows: time per 1000 iterations; ratio = beside / alone.
		echo "wsched_pages: row name=interference_$how baseline=alone base_ns=$((ms * 1000000000 / alone)) ws_ns=$((ms * 1000000000 / (beside > 0 ? beside : 1))) ratio=$(ratio "$beside" "$alone") iters_alone=$alone iters_beside=$beside spinners=$ncpu" >&3
	done
	dmesg | grep 'wsched_pages: loop' | sed 's/^\[[^]]*\] //' >&3

	# Idle wake-ups: the system pool, idle after the jobs above.
	sleep 2
	x=$(ws_switches system)
	t0=${x#* }
	sleep 10
	x=$(ws_switches system)
	wk=$((${x#* } - t0))
	echo "wsched_pages: row name=idle_wakeups baseline=- base_ns=- ws_ns=- ratio=- wakeups=$wk per_s=$(ratio "$wk" 10) threads=${x% *} seconds=10" >&3

	# Wake-up latency of a SCHED_FIFO thread (PREEMPT_RT only).
	if uname -v | grep -q PREEMPT_RT; then
		loop="size_mb=16 loop_s=$((ms / 1000 + 3))"
		r=$(cyclic_beside alone)
		ma=${r% *} va=${r#* }
		# shellcheck disable=SC2086 # module parameters
		r=$(cyclic_beside beside insmod $ko $loop)
		mb=${r% *} vb=${r#* }
		rt_rows "" alone "$ma" "$va" "$mb" "$vb"
		# The controls, load that is not wsched's.  One nice-0
		# spinner per CPU: a TCG vCPU that is busy answers its timer
		# later however busy it is, and on a loaded host waits for a
		# host core.  The same clearing of 16 MiB over and over on as
		# many threads, split statically over system_unbound_wq: the
		# job's memory traffic and one wake-up per helper per run,
		# without the job's threads.  What the job adds beyond these
		# is the job's.
		r=$(cyclic_beside spinners spin_all $((ms + 2000)))
		rt_rows _spin spinners "${r% *}" "${r#* }" "$mb" "$vb"
		# shellcheck disable=SC2086 # module parameters
		r=$(cyclic_beside static insmod $ko $loop loop_static=1)
		rt_rows _static static "${r% *}" "${r#* }" "$mb" "$vb"
		# How many runs the job and the static split made meanwhile.
		dmesg | grep 'wsched_pages: loop' | tail -n 2 | sed 's/^\[[^]]*\] //' >&3
	fi
	echo "# citizen-done" >&3
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
	# BENCH_INSNS=1: the symbols of the text, for tools/bench/insns.py
	# (while wsched_bench.ko is still loaded).
	if grep -q ' wsbench_insns=1' /proc/cmdline; then
		grep ' [tT] ' /proc/kallsyms | sed 's/^/# ksym /' >&3
	fi
	run_pages
	run_citizen
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
