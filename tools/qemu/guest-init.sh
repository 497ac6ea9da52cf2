#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# /init of the wsched test initramfs (busybox sh).
#
# Kernel command line: wsched.stage=<name> wsched.mode=<test|demo|torture>,
# wsched.torture=<seconds> (how long the torture module runs).
# Test results go to the second serial port (/dev/ttyS1) in sections the
# host parser (tools/qemu/parse-results.py) understands; the console
# (ttyS0) only carries the kernel log and progress messages.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mkdir -p /proc /sys /dev /tmp /run
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
# The CFS bandwidth static key (__cfs_bandwidth_used), on from boot: the
# cpu.max tests (engine_test, workers_test) would otherwise flip it, and
# each flip is a live text patch through int3, which under TCG a vCPU can
# hit after the patch is over ("Oops: int3" in set_next_task_fair(), the
# QEMU race tools/qemu/README.md describes for sched_clock).  A cgroup
# that holds a quota keeps the key on, so the tests' own quotas patch
# nothing; its quota (ten CPUs' worth) limits nobody, and nothing runs
# in it.  Where the kernel lacks cgroup2 or CFS bandwidth, nothing here.
bw_cg=/sys/fs/cgroup
if grep -q " $bw_cg cgroup2 " /proc/mounts || mount -t cgroup2 none $bw_cg 2>/dev/null; then
	echo +cpu >$bw_cg/cgroup.subtree_control 2>/dev/null &&
		mkdir -p $bw_cg/wsched_bw_key &&
		echo "1000000 100000" >$bw_cg/wsched_bw_key/cpu.max 2>/dev/null
fi
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /run

stage=unknown
mode="test"
for arg in $(cat /proc/cmdline); do
	case $arg in
	wsched.stage=*) stage=${arg#wsched.stage=} ;;
	wsched.mode=*) mode=${arg#wsched.mode=} ;;
	wsched.torture=*) torture_secs=${arg#wsched.torture=} ;;
	wsched.torture_args=*) torture_args=$(echo "${arg#wsched.torture_args=}" | tr , ' ') ;;
	esac
done
# The torture module runs 60 s on the debug kernels, 30 s elsewhere, in
# make check; make torture sets its own duration.
[ -n "$torture_secs" ] || case $stage in
	debug|kcsan) torture_secs=60 ;;
	*) torture_secs=30 ;;
esac

RES=/dev/ttyS1
[ "$mode" = demo ] && RES=/dev/null
stty -F "$RES" raw -echo 2>/dev/null
exec 3>"$RES"

say() { echo "[wsched-guest] $*"; }
res() { echo "$*" >&3; }

shutdown_now() {
	sync
	# Without ACPI (the debug kernel) poweroff cannot turn QEMU off, but a
	# reboot does: QEMU runs with -no-reboot.
	if [ -d /sys/firmware/acpi ]; then
		poweroff -f
	fi
	reboot -f
	sleep 30
}

ncheck=0
check() {	# check <name> <status> [message]
	ncheck=$((ncheck + 1))
	if [ "$2" -eq 0 ]; then
		checks="$checks
ok $ncheck $1"
	else
		checks="$checks
not ok $ncheck $1${3:+ # $3}"
	fi
}

skip() {	# skip <name> <reason>
	ncheck=$((ncheck + 1))
	checks="$checks
ok $ncheck $1 # SKIP $2"
}

# Suspend while a process submits work (wsched_pm_test.ko): with
# /sys/power/pm_test at "freezer" the kernel freezes every task, waits
# 5 s and thaws, so QEMU needs no wake-up source.  The process's batches
# must all complete and suspend must succeed (the pools keep running
# until processes are frozen); a non-freezable kernel thread's batch
# must have waited out the freeze (the pools do stop).  Needs
# CONFIG_PM_DEBUG for pm_test.
run_suspend_test() {
	if [ ! -f /lib/wsched/wsched_pm_test.ko ]; then
		check suspend_module 1 "wsched_pm_test.ko missing"
		return
	fi
	if [ ! -w /sys/power/pm_test ]; then
		skip suspend_submit "no /sys/power/pm_test (CONFIG_PM_DEBUG)"
		return
	fi
	insmod /lib/wsched/wsched_pm_test.ko
	r=$?
	check insmod_pm_test $r "insmod wsched_pm_test.ko failed"
	[ $r -eq 0 ] || return
	d=/sys/kernel/debug/wsched_pm_test
	rm -f /tmp/pm_stop /tmp/pm_err
	(
		while [ ! -e /tmp/pm_stop ]; do
			echo 1 >$d/submit || echo "submit: $?" >>/tmp/pm_err
		done
	) &
	pid=$!
	sleep 1
	state=freeze
	grep -qw mem /sys/power/state && state=mem
	echo freezer >/sys/power/pm_test
	ok=0
	held=0
	for i in 1 2 3; do
		say "suspend $i ($state, pm_test freezer) while submitting"
		t0=$(date +%s)
		echo $state >/sys/power/state || ok=1
		t=$(($(date +%s) - t0))
		[ $t -gt $held ] && held=$t
		sleep 1
	done
	echo none >/sys/power/pm_test
	check suspend_while_submitting $ok "echo $state >/sys/power/state failed"
	dmesg | grep -q 'Freezing of tasks failed'
	[ $? -ne 0 ]
	check suspend_freezes_tasks $? "the freezer could not freeze every task"
	touch /tmp/pm_stop
	wait $pid
	[ ! -s /tmp/pm_err ]
	check suspend_submits_succeed $? "$(head -3 /tmp/pm_err 2>/dev/null)"
	stats=$(cat $d/stats)
	say "wsched_pm_test: $stats"
	echo "$stats" | grep -q 'failures=0 '
	check suspend_no_lost_task $? "$stats"
	wait_ms=$(echo "$stats" | sed -n 's/.*max_wait_ms=\([0-9]*\).*/\1/p')
	# pm_test holds the frozen state with mdelay(5000), which a badly
	# calibrated delay loop under TCG can make much shorter (3.2 s in two
	# of three suspends on the debug kernel): judge when one suspend
	# lasted long enough to tell.  The kthread submits all along, so one
	# of its batches spans that suspend and must have waited it out.
	if [ $held -ge 4 ]; then
		[ "${wait_ms:-0}" -ge 3000 ]
		check suspend_pools_frozen $? "no batch waited out the freeze: $stats"
	else
		skip suspend_pools_frozen "no suspend held tasks frozen over ${held} s (delay loop under TCG): $stats"
	fi
	rmmod wsched_pm_test
	check rmmod_pm_test $? "rmmod wsched_pm_test failed"
}

# Unload check, kmemleak scan, the rig checks, the final marker, power off.
finish() {
	grep -q '^wsched' /proc/modules
	[ $? -ne 0 ]
	check modules_unloaded $? "wsched modules still loaded: $(grep '^wsched' /proc/modules | cut -d' ' -f1)"

	if [ -w /sys/kernel/debug/kmemleak ]; then
		say "kmemleak scan"
		echo scan >/sys/kernel/debug/kmemleak
		sleep 5
		echo scan >/sys/kernel/debug/kmemleak
		sleep 1
		cat /sys/kernel/debug/kmemleak >/tmp/kmemleak
		if [ -s /tmp/kmemleak ]; then
			check kmemleak 1 "kmemleak reports leaks"
			res "# wsched-begin kmemleak"
			cat /tmp/kmemleak >&3
			res "# wsched-end"
		else
			check kmemleak 0
		fi
	fi

	# KCSAN's counters, for Documentation/testing.rst (reports themselves
	# are splats on the console).
	if [ -r /sys/kernel/debug/kcsan ]; then
		say "kcsan: $(grep -E '^(enabled|setup_watchpoints|data_races|assert_failures|unencodable_accesses|encoding_false_positives|races_unknown_origin)' \
			/sys/kernel/debug/kcsan | tr -s ' \n' ' ')"
	fi

	res "# wsched-begin rig checks"
	res "TAP version 13"
	res "1..$ncheck"
	echo "$checks" | sed '/^$/d' >&3
	res "# wsched-end"
	res "# wsched-done"
	say "all done"
	shutdown_now
}

# wsched_torture.ko (Documentation/testing.rst): random use of the kernel
# API while CPUs go offline and online, for torture_secs seconds; its log
# lines go to the results for the parser, which wants "end of test: SUCCESS".
run_torture() {
	if [ ! -f /lib/wsched/wsched_torture.ko ]; then
		check torture_module 1 "wsched_torture.ko missing"
		return
	fi
	say "wsched_torture.ko: duration=$torture_secs s, CPU hotplug every ~100 ms"
	insmod /lib/wsched/wsched_torture.ko duration="$torture_secs" \
		hotplug_interval=100 stat_interval=10 $torture_args
	check insmod_torture $? "insmod wsched_torture.ko failed"
	# The module ends on its own; allow slow operations to finish.
	waited=0
	limit=$((torture_secs + 300))
	while ! dmesg | grep -q 'wsched-torture: end of test'; do
		[ $waited -ge $limit ] && break
		sleep 2
		waited=$((waited + 2))
	done
	res "# wsched-begin torture wsched_torture"
	dmesg | grep 'wsched-torture:' | sed 's/^\[[^]]*\] //' >&3
	res "# wsched-end"
	if grep -q '^wsched_torture ' /proc/modules; then
		rmmod wsched_torture
		check rmmod_torture $? "rmmod wsched_torture failed"
	fi
}

say "stage $stage mode $mode, kernel $(uname -r), $(grep -c ^processor /proc/cpuinfo) cpus"
res "# wsched-stage $stage $(uname -r)"

[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak

# The KCSAN kernel boots with KCSAN off (CONFIG_KCSAN_EARLY_ENABLE is not
# set): it watches from here on, while wsched and its tests run, not
# during the boot.
if [ -w /sys/kernel/debug/kcsan ]; then
	echo on >/sys/kernel/debug/kcsan
	check kcsan_enabled $? "could not turn KCSAN on"
fi

# Later hotplug tests offline CPUs through sysfs.
[ -w /sys/devices/system/cpu/cpu1/online ]
check cpu_hotplug_available $? "no writable /sys/devices/system/cpu/cpu1/online"

# Kernel log level: keep test chatter on the console but not debug noise.
echo 7 >/proc/sys/kernel/printk 2>/dev/null

insmod /lib/wsched/wsched.ko
rc=$?
check insmod_wsched $rc "insmod wsched.ko failed: $rc"
# Where the kernel's and wsched's text are, to place the instruction
# pointers that run.sh records from QEMU's monitor if the guest stops.
say "text: kernel $(grep -m1 ' _text$' /proc/kallsyms | cut -d' ' -f1)" \
	"wsched $(cat /sys/module/wsched/sections/.text 2>/dev/null)"

if [ "$mode" = demo ]; then
	if [ $rc -eq 0 ]; then
		say "loading wsched_smoke.ko"
		insmod /lib/wsched/wsched_smoke.ko
		say "insmod wsched_smoke.ko: exit $?"
		for f in /sys/kernel/debug/wsched/*/stats; do
			say "$f:"
			cat "$f"
		done
		rmmod wsched_smoke
		say "loading wsched_crc32c.ko (parallel crc32c, checked against serial)"
		insmod /lib/wsched/wsched_crc32c.ko size_mb=64
		say "insmod wsched_crc32c.ko: exit $?"
		rmmod wsched_crc32c
		if [ -x /bin/wsctl ]; then
			say "user space: wsctl (tools/wsctl) through /dev/wsched's rings"
			wsctl info
			say "a 32 MiB test file from /dev/urandom"
			dd if=/dev/urandom of=/tmp/random.bin bs=1M count=32 2>/dev/null
			say "wsctl crc32c /tmp/random.bin"
			wsctl crc32c /tmp/random.bin
			say "wsctl crc32c: exit $?"
			rm -f /tmp/random.bin
			say "wsctl run /lib/wsched/examples/pipeline.wsg"
			wsctl run /lib/wsched/examples/pipeline.wsg
			say "wsctl run: exit $?"
			say "wsctl stats"
			wsctl stats
		fi
		if [ -x /bin/uring_chain ]; then
			say "io_uring: read -> wsched graph -> write, one link chain"
			dd if=/dev/urandom of=/tmp/uring.in bs=64k count=16 2>/dev/null
			uring_chain /tmp/uring.in /tmp/uring.out
			say "uring_chain: exit $?"
			say "the same with the graph inline in a 128-byte SQE"
			uring_chain -i /tmp/uring.in /tmp/uring.out
			say "uring_chain -i: exit $?"
			rm -f /tmp/uring.in /tmp/uring.out
		fi
		rmmod wsched
		say "rmmod: exit $?"
	fi
	say "demo done, powering off"
	shutdown_now
fi

if [ "${mode%%:*}" = torture ]; then
	[ $rc -eq 0 ] && run_torture
	if grep -q '^wsched ' /proc/modules; then
		rmmod wsched
		check rmmod_wsched $? "rmmod wsched failed"
	fi
	finish
fi

# Fault injection (the debug kernel): failslab skips allocations that may
# sleep unless ignore-gfp-wait is off, and the sweeps of fail-nth (the
# KUnit suite wsched_fault, selftests fault_test and engine_test) need
# GFP_KERNEL ones to fail.  Nothing fails without a fail-nth count or a
# probability, so this changes nothing else.  One line per injected
# failure (verbose 1) rather than a stack trace.
fs=/sys/kernel/debug/failslab
if [ -w $fs/ignore-gfp-wait ]; then
	echo N >$fs/ignore-gfp-wait && echo 1 >$fs/verbose
	check failslab_gfp_wait $? "could not set $fs/ignore-gfp-wait"
fi
if [ -f /lib/wsched/wsched_test.ko ]; then
	if [ $rc -eq 0 ]; then
		say "loading wsched_test.ko (KUnit suites run now)"
		insmod /lib/wsched/wsched_test.ko
		check insmod_wsched_test $? "insmod wsched_test.ko failed"
	fi
	# The debugfs results keep only 512 bytes of log per test case in 6.1
	# and only the last parameter of a parameterised case, so send the
	# full KTAP printed to the kernel log as well; the parser counts
	# leaves from it and cross-checks the suite status from debugfs.
	dmesg | sed 's/^\[[^]]*\] //' >/tmp/kunit.log
	nsuites=0
	for d in /sys/kernel/debug/kunit/*/; do
		[ -f "$d/results" ] || continue
		suite=$(basename "$d")
		nsuites=$((nsuites + 1))
		res "# wsched-begin kunit $suite"
		awk -v s="$suite" '
			!done && $0 ~ ("# Subtest: " s "$") { on = 1 }
			on { print }
			on && $0 ~ ("^(not )?ok [0-9]+ " s "( |$)") { on = 0; done = 1 }
		' /tmp/kunit.log >&3
		res "# wsched-end"
		res "# wsched-begin kunit-debugfs $suite"
		cat "$d/results" >&3
		res "# wsched-end"
	done
	[ $nsuites -gt 0 ]
	check kunit_suites_found $? "no KUnit suite in /sys/kernel/debug/kunit"
fi

export WSCHED_SMOKE_KO=/lib/wsched/wsched_smoke.ko
# The sample operation "sample.xor8" for /dev/wsched; the selftests run
# nodes of it when WSCHED_OP_XOR=1.
op_xor=0
if [ $rc -eq 0 ] && [ -f /lib/wsched/wsched_op_xor.ko ]; then
	insmod /lib/wsched/wsched_op_xor.ko
	op_xor=$?
	check insmod_op_xor $op_xor "insmod wsched_op_xor.ko failed"
	[ $op_xor -eq 0 ] && export WSCHED_OP_XOR=1
else
	check insmod_op_xor 1 "wsched_op_xor.ko missing or wsched.ko not loaded"
fi
# No udevd in this initramfs: for perm_test only, do what
# udev/60-wsched.rules does when the device appears (its GROUP and MODE,
# with the group in /etc/group), so that it can check that a member may
# use the device and others may not; then give the device back the mode
# the module creates it with, which dev_test checks.  The rule's syntax is
# checked on the host (udevadm test).
rule=/lib/udev/rules.d/60-wsched.rules
udev_rule_apply() {
	grp=$(sed -n '/^[^#]/s/.*GROUP="\([^"]*\)".*/\1/p' $rule)
	mode=$(sed -n '/^[^#]/s/.*MODE="\([0-7]*\)".*/\1/p' $rule)
	mkdir -p /etc
	[ -f /etc/group ] || echo "root:x:0:" >/etc/group
	grep -q "^$grp:" /etc/group || echo "$grp:x:4242:" >>/etc/group
	[ -f $rule ] && [ -n "$grp" ] && [ -n "$mode" ] && [ -c /dev/wsched ] &&
		chgrp 4242 /dev/wsched && chmod "$mode" /dev/wsched
	check udev_rule_applied $? "could not apply GROUP='$grp' MODE='$mode' of $rule to /dev/wsched"
	[ -x /bin/wsctl ] &&
		export WSCHED_PERM_CMD="wsctl run /lib/wsched/examples/diamond.wsg"
}
udev_rule_undo() {
	unset WSCHED_PERM_CMD
	[ -c /dev/wsched ] && chgrp 0 /dev/wsched && chmod 0600 /dev/wsched
}
# With CONFIG_FAULT_INJECTION_USERCOPY, /proc/<pid>/fail-nth counts every
# copy_{from,to}_user() too, so "fail the Nth allocation" sweeps (failslab)
# would fail user copies instead.  Leave fail_usercopy out of fail-nth and
# of random failures unless a test opts in (reject-end 0): a stack-trace
# filter that rejects every address.
fu=/sys/kernel/debug/fail_usercopy
if [ -w $fu/reject-end ]; then
	echo 0 >$fu/reject-start && echo 18446744073709551615 >$fu/reject-end
	check fail_usercopy_opt_in $? "could not set $fu/reject-{start,end}"
fi
# A stall watchdog: if a selftest outlives its time, dump the blocked
# tasks, every CPU's backtrace and every task's stack to the console
# before its timeout kills it (or the rig kills the guest), so that a hang
# seen once in CI leaves the stacks that explain it.  A stall is a FAIL
# anyway; the dump's stack traces only say where.
watchdog_start() {	# watchdog_start <what> <seconds>
	(
		sleep "$2"
		say "WATCHDOG: $1 still running after $2 s; stacks follow"
		echo w >/proc/sysrq-trigger
		echo l >/proc/sysrq-trigger
		echo t >/proc/sysrq-trigger
		say "WATCHDOG: end of stacks"
	) &
	watchdog_pid=$!
}
watchdog_stop() {
	kill $watchdog_pid 2>/dev/null
	wait $watchdog_pid 2>/dev/null
}
for t in /lib/wsched/selftests/*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	[ "$name" = perm_test ] && [ $rc -eq 0 ] && udev_rule_apply
	say "running selftest $name"
	res "# wsched-begin selftest $name"
	watchdog_start "selftest $name" 540
	(cd /tmp && timeout 600 "$t") >&3 2>&1
	res "# wsched-exit $?"
	watchdog_stop
	res "# wsched-end"
	[ "$name" = perm_test ] && udev_rule_undo
done
unset WSCHED_OP_XOR
if grep -q '^wsched_op_xor ' /proc/modules; then
	rmmod wsched_op_xor
	check rmmod_op_xor $? "rmmod wsched_op_xor failed"
fi

# wsctl (tools/wsctl, on libwsched) through the rings: a file's checksums
# in the kernel against user space's, and the example graphs, each of
# which states the outcome it expects of every node.
if [ -x /bin/wsctl ] && [ $rc -eq 0 ]; then
	dd if=/dev/urandom of=/tmp/wsctl.bin bs=1M count=8 2>/dev/null
	say "wsctl crc32c /tmp/wsctl.bin"
	timeout 300 wsctl crc32c /tmp/wsctl.bin
	check wsctl_crc32c $? "wsctl crc32c: kernel and user-space checksums differ, or error"
	rm -f /tmp/wsctl.bin
	for ex in /lib/wsched/examples/*.wsg; do
		name=$(basename "$ex" .wsg)
		say "wsctl run $ex"
		timeout 300 wsctl run "$ex"
		check "wsctl_run_$name" $? "wsctl run $ex: unexpected results or error"
	done
	wsctl stats >/dev/null
	check wsctl_stats $? "wsctl stats failed"
else
	check wsctl 1 "no /bin/wsctl, or wsched.ko not loaded"
fi

# libwsched's io_uring example: read -> wsched graph -> write in one
# io_uring link chain, checked against the software checksums; the graph
# staged in the wsched SQ, then (-i) carried inline in a 128-byte SQE.
if [ -x /bin/uring_chain ] && [ $rc -eq 0 ]; then
	dd if=/dev/urandom of=/tmp/uring_chain.in bs=64k count=16 2>/dev/null
	say "uring_chain /tmp/uring_chain.in /tmp/uring_chain.out"
	timeout 120 uring_chain /tmp/uring_chain.in /tmp/uring_chain.out
	check uring_chain $? "uring_chain: the chain failed or its checksums differ"
	say "uring_chain -i /tmp/uring_chain.in /tmp/uring_chain.out"
	timeout 120 uring_chain -i /tmp/uring_chain.in /tmp/uring_chain.out
	check uring_chain_inline $? "uring_chain -i: the inline chain failed or its checksums differ"
	rm -f /tmp/uring_chain.in /tmp/uring_chain.out
else
	skip uring_chain "no /bin/uring_chain, or wsched.ko not loaded"
	skip uring_chain_inline "no /bin/uring_chain, or wsched.ko not loaded"
fi

# The sample client: parallel crc32c checked against the serial one.
if [ -f /lib/wsched/wsched_crc32c.ko ]; then
	insmod /lib/wsched/wsched_crc32c.ko size_mb=16
	check sample_crc32c $? "wsched_crc32c.ko failed (parallel crc32c differs or error)"
	rmmod wsched_crc32c
	check rmmod_sample_crc32c $? "rmmod wsched_crc32c failed"
else
	check sample_crc32c 1 "wsched_crc32c.ko missing"
fi

# The job sample: pages cleared and copied by one thread, a static split
# over an unbound workqueue and ws_job_run(), each checked.
if [ -f /lib/wsched/wsched_pages.ko ]; then
	insmod /lib/wsched/wsched_pages.ko size_mb=16
	check sample_pages $? "wsched_pages.ko failed (a clear or copy left wrong pages, or error)"
	rmmod wsched_pages
	check rmmod_sample_pages $? "rmmod wsched_pages failed"
	# NUMA placement: the chunks of a NUMA-aware job in ws_system_pool
	# start on the node of their memory (pages allocated per node);
	# skipped where the guest has one node (every stage but stock).
	insmod /lib/wsched/wsched_pages.ko size_mb=16 reps=3 numa_check=1
	st=$?
	if [ $st -eq 0 ] && dmesg | grep -q 'wsched_pages: numa: check skipped'; then
		skip sample_pages_numa "fewer than two NUMA nodes with CPUs"
	else
		check sample_pages_numa $st "wsched_pages.ko numa_check=1 failed (fewer than 2/3 of the chunks started on their memory's node, or wrong pages)"
	fi
	dmesg | grep 'wsched_pages: numa' | sed 's/^\[[^]]*\] //'
	rmmod wsched_pages
	# The same, every page checked, while the CPUs but CPU 0 go offline
	# and online: the default job wakes its helpers' workers from the
	# CPUs it chose for them (an IPI), which may be offline by then.
	insmod /lib/wsched/wsched_pages.ko size_mb=8 reps=3 &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
			[ -w "$c" ] || continue
			echo 0 >"$c" 2>/dev/null
			echo 1 >"$c" 2>/dev/null
		done
	done
	wait $pid
	check sample_pages_hotplug $? "wsched_pages.ko failed while CPUs went offline and online (wrong pages, or error)"
	for c in /sys/devices/system/cpu/cpu[1-9]*/online; do
		[ -w "$c" ] && echo 1 >"$c" 2>/dev/null
	done
	rmmod wsched_pages
else
	check sample_pages 1 "wsched_pages.ko missing"
fi

[ $rc -eq 0 ] && run_torture
[ $rc -eq 0 ] && run_suspend_test

if grep -q '^wsched_test ' /proc/modules; then
	rmmod wsched_test
	check rmmod_wsched_test $? "rmmod wsched_test failed"
fi
if grep -q '^wsched ' /proc/modules; then
	rmmod wsched
	check rmmod_wsched $? "rmmod wsched failed"
fi
finish
