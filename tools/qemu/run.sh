#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wsched QEMU test rig.
#
# Usage: tools/qemu/run.sh [--stage STAGE[,STAGE...]|all] [--demo] [--no-parse]
#                          [--torture SECONDS]
#
#   native     the core in user space under ThreadSanitizer (host)
#   debug      build (or reuse) the 6.12 debug kernel (KASAN, lockdep,
#              kmemleak, KUnit, fault injection), build wsched.ko,
#              wsched_test.ko, wsched_smoke.ko and the selftests against
#              it, boot it and run everything.
#   kcsan      the same on the KCSAN flavour of the debug kernel (KASAN
#              swapped for KCSAN; make check-kcsan, not part of "all").
#   stock      the same on Debian's stock 6.1 kernel (no KUnit).
#   stock-6.12, stock-6.12-rt
#              the same on Debian's 6.12 LTS kernel and its PREEMPT_RT
#              flavour (bookworm-security).
#   packaging  host: dkms build for every stock kernel's headers, make
#              install into a DESTDIR, the installed manual pages linted
#              and rendered, the udev rule checked by udevadm.
#   --demo boot the stock kernel, load wsched.ko and the smoke module,
#          print the result and the debugfs stats, run wsctl (crc32c of
#          a 32 MiB file, an example graph), power off.
#   --torture SECONDS  only wsched_torture.ko, for that long (make
#          torture): on the debug kernel, or on the QEMU stages given with
#          --stage (e.g. --stage stock-6.12-rt); the stages of make check
#          run it briefly.  WSCHED_TORTURE_ARGS adds module parameters
#          (comma-separated, e.g. ops=131072,threads=4).
#
# Environment: WSCHED_CACHE (kernel cache, default /var/cache/wsched),
# WSCHED_OUT (build outputs, default <repo>/.build), WSCHED_KMOD_SRC (the
# core's source directory, default <repo>/kmod), WSCHED_STOCK_KVER,
# WSCHED_STOCK_6_12_KVER, WSCHED_STOCK_6_12_RT_KVER,
# WSCHED_DEBUG_TIMEOUT / WSCHED_STOCK_TIMEOUT (seconds), WSCHED_BOOT_GRACE
# (seconds for /init's first line, default 300, else one more boot: see
# boot_watch()), WSCHED_NUMA (NUMA nodes of the guest, see lib.sh; stock
# boots 2), WSCHED_VERBOSE=1 (show the guest console while it runs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

stages=all
demo=0
parse=1
torture=
while (($#)); do
	case $1 in
	--stage) stages=$2; shift ;;
	--stage=*) stages=${1#--stage=} ;;
	--demo) demo=1 ;;
	--no-parse) parse=0 ;;
	--torture) torture=$2; shift ;;
	-h|--help) sed -n '3,37p' "$0"; exit 0 ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done
[[ -n $torture && $stages == all ]] && stages=debug
[[ $stages == all ]] && stages="native debug $STOCK_STAGES packaging"
stages=${stages//,/ }

KMOD_SRC=${WSCHED_KMOD_SRC:-$REPO_DIR/kmod}
mkdir -p "$WSCHED_OUT"

# Host-side check results of a stage, as TAP, read by the parser.
host_check() {	# host_check <stage> <status> <name> [message]
	local f=$WSCHED_OUT/$1/host.tap
	if [[ $2 -eq 0 ]]; then
		echo "ok - $3" >>"$f"
	else
		echo "not ok - $3${4:+ # $4}" >>"$f"
		log "FAILED: $1: $3${4:+: $4}"
	fi
}

# Build wsched.ko (+ wsched_test.ko if KUnit) and wsched_smoke.ko against
# KDIR, in a copy of the sources so stages do not clobber each other.
# With "sparse", every file also goes through sparse (C=1: the copy is
# new, so all of them are compiled), and a warning of sparse or of the
# compiler in a wsched file fails the stage's compile_warnings check.
build_modules() {	# build_modules <stage> <kdir> [sparse]
	local stage=$1 kdir=$2 m=$WSCHED_OUT/$1/mod check=()
	[[ ${3:-} == sparse ]] && check=(C=1)
	rm -rf "$m"
	mkdir -p "$m/tools"
	cp -a "$REPO_DIR/Kbuild" "$m/"
	[[ -d $KMOD_SRC ]] || { host_check "$stage" 1 build_modules "no $KMOD_SRC"; return 1; }
	copy_src "$KMOD_SRC" "$m/kmod"
	copy_src "$REPO_DIR/tools/smoke" "$m/tools/smoke"
	log "$stage: building modules against $kdir"
	if ! make -C "$kdir" M="$m" -j"$NPROC" "${check[@]}" modules >"$WSCHED_OUT/$stage/modules.log" 2>&1; then
		grep -E 'error|Error' "$WSCHED_OUT/$stage/modules.log" | head -20 >&2
		host_check "$stage" 1 build_modules "see $WSCHED_OUT/$stage/modules.log"
		return 1
	fi
	host_check "$stage" 0 build_modules
	if ((${#check[@]})); then
		local warn
		warn=$(grep -E "^$m/[^:]+:[0-9]+:([0-9]+:)? (warning|error):" \
			"$WSCHED_OUT/$stage/modules.log" || true)
		if [[ -n $warn ]]; then
			echo "$warn" | head -20 >&2
			host_check "$stage" 1 compile_warnings "$(echo "$warn" | wc -l) sparse or compiler warnings, see $WSCHED_OUT/$stage/modules.log"
		else
			host_check "$stage" 0 compile_warnings
		fi
	fi
	# The samples (a client, an operation for /dev/wsched) build on
	# their own, out of tree, against the symbols wsched exports.
	local sample
	for sample in crc32c op_xor pages; do
		copy_src "$REPO_DIR/tools/samples/$sample" "$m/tools/samples/$sample"
		if ! make -C "$kdir" M="$m/tools/samples/$sample" \
			KBUILD_EXTRA_SYMBOLS="$m/Module.symvers" modules \
			>>"$WSCHED_OUT/$stage/modules.log" 2>&1; then
			grep -E 'error|Error' "$WSCHED_OUT/$stage/modules.log" | head -20 >&2
			host_check "$stage" 1 "build_sample_$sample" "see $WSCHED_OUT/$stage/modules.log"
		else
			host_check "$stage" 0 "build_sample_$sample"
		fi
	done
	local want=(kmod/wsched.ko tools/smoke/wsched_smoke.ko
		    tools/samples/crc32c/wsched_crc32c.ko
		    tools/samples/op_xor/wsched_op_xor.ko
		    tools/samples/pages/wsched_pages.ko) ko ok=0
	grep -q '^CONFIG_KUNIT=y' "$kdir/.config" && want+=(kmod/wsched_test.ko)
	for ko in "${want[@]}"; do
		[[ -f $m/$ko ]] && continue
		host_check "$stage" 1 "module_built_${ko##*/}" "missing"
		[[ $ko == kmod/wsched.ko ]] && ok=1	# nothing to boot for
	done
	return $ok
}

# libwsched (its software checksums tested here), its API test and wsctl,
# static, for the initramfs: $WSCHED_OUT/<stage>/user/wsctl.
build_wsctl() {	# build_wsctl <stage>
	local o=$WSCHED_OUT/$1/user
	log "$1: building libwsched and wsctl"
	if make -C "$REPO_DIR/tools/libwsched" O="$o/libwsched" test >"$o.log" 2>&1; then
		host_check "$1" 0 libwsched_checksum_test
	else
		host_check "$1" 1 libwsched_checksum_test "see $o.log"
	fi
	if make -C "$REPO_DIR/tools/wsctl" O="$o" >>"$o.log" 2>&1 && [[ -x $o/wsctl ]]; then
		host_check "$1" 0 build_wsctl
	else
		grep -E 'error|Error' "$o.log" | head -20 >&2
		host_check "$1" 1 build_wsctl "see $o.log"
	fi
}

build_selftests() {	# build_selftests <ksrc> -> $WSCHED_OUT/selftests
	log "building selftests"
	make -s -C "$REPO_DIR/selftests/wsched" KSFT_DIR="$1/tools/testing/selftests" \
		OUTPUT="$WSCHED_OUT/selftests" >"$WSCHED_OUT/selftests.log" 2>&1 ||
		{ cat "$WSCHED_OUT/selftests.log" >&2; return 1; }
}

# kselftest headers: from the debug kernel's source if built, else extracted
# alone from the linux-source tarball.
ksft_src() {
	if [[ -f $WSCHED_CACHE/kernel-current/src/linux/tools/testing/selftests/kselftest_harness.h ]]; then
		echo "$WSCHED_CACHE/kernel-current/src/linux"
		return
	fi
	local d=$WSCHED_CACHE/kselftest-headers
	if [[ ! -f $d/$LINUX_SOURCE_PKG/tools/testing/selftests/kselftest_harness.h ]]; then
		[[ -r $LINUX_SOURCE_TAR ]] || "$RIG_DIR/deps.sh" debug >&2
		log "extracting kselftest headers from $LINUX_SOURCE_TAR"
		mkdir -p "$d"
		tar -xf "$LINUX_SOURCE_TAR" -C "$d" --wildcards \
			"$LINUX_SOURCE_PKG/tools/testing/selftests/kselftest*.h" >&2
	fi
	echo "$d/$LINUX_SOURCE_PKG"
}

make_initramfs() {	# make_initramfs <stage>
	local stage=$1 r=$WSCHED_OUT/$1/initramfs ko app
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,run,lib/wsched/selftests}
	cp /bin/busybox "$r/bin/busybox"
	for app in $("$r/bin/busybox" --list); do
		[[ $app == busybox ]] || ln -s busybox "$r/bin/$app"
	done
	cp "$RIG_DIR/guest-init.sh" "$r/init"
	chmod 755 "$r/init"
	# No udevd in the guest: /init applies the rule's GROUP and MODE.
	mkdir -p "$r/lib/udev/rules.d"
	cp "$REPO_DIR/udev/60-wsched.rules" "$r/lib/udev/rules.d/"
	for ko in "$WSCHED_OUT/$stage"/mod/kmod/*.ko "$WSCHED_OUT/$stage"/mod/tools/smoke/*.ko \
		  "$WSCHED_OUT/$stage"/mod/tools/samples/crc32c/*.ko \
		  "$WSCHED_OUT/$stage"/mod/tools/samples/op_xor/*.ko \
		  "$WSCHED_OUT/$stage"/mod/tools/samples/pages/*.ko; do
		[[ -f $ko ]] && cp "$ko" "$r/lib/wsched/"
	done
	# libwsched's io_uring chain example (guest-init.sh runs it).
	if [[ -x $WSCHED_OUT/$stage/user/libwsched/uring_chain ]]; then
		cp "$WSCHED_OUT/$stage/user/libwsched/uring_chain" "$r/bin/uring_chain"
	fi
	if [[ -x $WSCHED_OUT/$stage/user/wsctl ]]; then
		cp "$WSCHED_OUT/$stage/user/wsctl" "$r/bin/wsctl"
		mkdir -p "$r/lib/wsched/examples"
		cp "$REPO_DIR"/tools/wsctl/examples/*.wsg "$r/lib/wsched/examples/"
	fi
	if [[ $stage != demo && -d $WSCHED_OUT/selftests ]]; then
		cp "$WSCHED_OUT"/selftests/*_test "$r/lib/wsched/selftests/" 2>/dev/null || true
	fi
	# libwsched's API test runs with the selftests (TAP, exit 4: skip).
	if [[ $stage != demo && -x $WSCHED_OUT/$stage/user/libwsched/ring_test ]]; then
		cp "$WSCHED_OUT/$stage/user/libwsched/ring_test" "$r/lib/wsched/selftests/libwsched_test"
	fi
	(cd "$r" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$WSCHED_OUT/$stage/initramfs.cpio.gz"
}

# Boot a stage's guest; once more if it hung before its /init printed its
# first line (see boot_once()).
boot() {	# boot <stage> <bzImage> <mem> <timeout> <mode>
	local dir=$WSCHED_OUT/$1
	rm -f "$dir/console-boot-hang.log" "$dir/cpus-boot-hang.txt"
	boot_once "$@"
	[[ -e $dir/boot-hang ]] || return 0
	mv "$dir/console.log" "$dir/console-boot-hang.log"
	log "$1: no output of /init within ${WSCHED_BOOT_GRACE:-300} s: the kernel or QEMU hung before any wsched code ran (console-boot-hang.log, cpus-boot-hang.txt); booting once more"
	boot_once "$@"
	if [[ -e $dir/boot-hang ]]; then
		host_check "$1" 1 boot "hung again before /init's first line"
	fi
}

# A guest whose /init has not printed its first line ("[wsched-guest]
# stage ...", after the mounts and the cgroup set-up, before any module is
# loaded) within WSCHED_BOOT_GRACE seconds has hung in the kernel or in
# QEMU with nothing of ours loaded (seen once, under TCG: two vCPUs
# stopped at an address a third was apparently patching; README.md).
# Record the vCPUs, stop QEMU and leave the boot-hang mark for boot().
boot_watch() {	# boot_watch <dir> <monitor socket> <qemu pid>
	local waited=0 grace=${WSCHED_BOOT_GRACE:-300}
	while ((waited < grace)); do
		sleep 5
		waited=$((waited + 5))
		kill -0 "$3" 2>/dev/null || return 0
		grep -q '^\[wsched-guest\] stage ' "$1/console.log" 2>/dev/null && return 0
	done
	: >"$1/boot-hang"
	"$RIG_DIR/monitor-dump.py" "$2" "$1/cpus-boot-hang.txt" 0 quit
	# Without a monitor to quit through: timeout passes SIGTERM on.
	sleep 5
	kill "$3" 2>/dev/null || true
}

boot_once() {	# boot_once <stage> <bzImage> <mem> <timeout> <mode>
	local stage=$1 dir=$WSCHED_OUT/$1 con
	rm -f "$dir/console.log" "$dir/results.log" "$dir/boot-hang"
	: >"$dir/results.log"
	if [[ $5 == demo || ${WSCHED_VERBOSE:-0} == 1 ]]; then
		con="-chardev stdio,id=con,signal=off,logfile=$dir/console.log"
	else
		con="-chardev file,id=con,path=$dir/console.log"
	fi
	log "$stage: booting $2 (timeout $4 s; console: $dir/console.log)"
	local start rc=0 dumper qemu watcher mon=$dir/monitor.sock nodes machine numa_arg=
	# The topology: 4 vCPUs, on NUMA nodes for some stages (lib.sh).
	nodes=$(numa_nodes "$stage")
	machine=$(qemu_numa_args "$nodes" "$3")
	if ((nodes)); then
		log "$stage: $nodes NUMA nodes ($machine)"
		numa_arg=" wsched.numa=$nodes"
	fi
	echo "$nodes" >"$dir/numa-nodes"
	rm -f "$mon" "$dir/cpus.txt"
	# 20 s before the timeout, record where the vCPUs are (cpus.txt,
	# printed by the parser if the final marker is then missing).  One
	# process, killed below if QEMU exits first; it holds no output open.
	"$RIG_DIR/monitor-dump.py" "$mon" "$dir/cpus.txt" $(($4 > 60 ? $4 - 20 : $4 / 2)) \
		</dev/null >/dev/null 2>&1 &
	dumper=$!
	start=$(date +%s)
	# shellcheck disable=SC2086
	timeout --foreground -k 10 "$4" qemu-system-x86_64 \
		-accel tcg,thread=multi -cpu max $machine -m "$3" \
		-nographic -nodefaults -no-reboot \
		-monitor "unix:$mon,server=on,wait=off" \
		-kernel "$2" -initrd "$dir/initramfs.cpio.gz" \
		$con -serial chardev:con \
		-chardev file,id=res,path="$dir/results.log" -serial chardev:res \
		-append "console=ttyS0 panic=-1 oops=panic hung_task_panic=1 softlockup_panic=1 mitigations=off tsc=unstable printk.time=1 wsched.stage=$stage wsched.mode=$5$numa_arg${torture:+ wsched.torture=$torture}${WSCHED_TORTURE_ARGS:+ wsched.torture_args=$WSCHED_TORTURE_ARGS}" \
		</dev/null &
	qemu=$!
	boot_watch "$dir" "$mon" "$qemu" </dev/null >/dev/null 2>&1 &
	watcher=$!
	wait "$qemu" || rc=$?
	kill "$dumper" "$watcher" 2>/dev/null || true
	wait "$dumper" 2>/dev/null || true
	wait "$watcher" 2>/dev/null || true
	rm -f "$mon"
	echo "$(($(date +%s) - start))" >"$dir/boot-seconds"
	log "$stage: QEMU exited with $rc after $(cat "$dir/boot-seconds") s"
	if ((rc == 124 || rc == 137)); then
		host_check "$stage" 1 qemu_exit "timed out after $4 s"
	else
		host_check "$stage" "$rc" qemu_exit "qemu exit status $rc"
	fi
}

# The debug kernel (stage debug) or its KCSAN flavour (stage kcsan): the
# same modules, KUnit suites, selftests and torture, another sanitizer.
stage_debug() {	# stage_debug <debug|kcsan>
	local st=$1 tree
	"$RIG_DIR/deps.sh" debug
	if ! tree=$("$RIG_DIR/build-kernel.sh" "$st"); then
		host_check "$st" 1 build_kernel "see $WSCHED_CACHE/kernel-*/build.log"
		return 0
	fi
	host_check "$st" 0 build_kernel
	log "$st kernel tree: $tree (also $WSCHED_CACHE/$(kernel_current_link "$st"))"
	echo "$(cat "$tree/obj/include/config/kernel.release" 2>/dev/null) ($st)" >"$WSCHED_OUT/$st/kernel"
	# For the parser, to place instruction pointers if the guest stops.
	ln -sf "$tree/obj/System.map" "$WSCHED_OUT/$st/System.map"
	if ((selftests_built)); then
		:
	elif build_selftests "$tree/src/linux"; then
		selftests_built=1
	else
		host_check "$st" 1 build_selftests
	fi
	build_modules "$st" "$tree/obj" sparse || return 0
	build_wsctl "$st"
	make_initramfs "$st"
	if [[ -n $torture ]]; then
		boot "$st" "$tree/obj/arch/x86/boot/bzImage" 2G \
			"${WSCHED_DEBUG_TIMEOUT:-$((torture + 900))}" torture
	else
		boot "$st" "$tree/obj/arch/x86/boot/bzImage" 2G "${WSCHED_DEBUG_TIMEOUT:-1800}" test
	fi
}

selftests_built=0
stage_stock() {	# stage_stock <stage> <test|demo>
	local kver kdir name=$1
	[[ $2 == demo ]] && name=demo
	"$RIG_DIR/deps.sh" "$1"
	if ! kver=$(stock_kver "$1"); then
		host_check "$name" 1 stock_kernel "no /boot/vmlinuz-<ver> with matching /usr/src/linux-headers-<ver> for $1"
		return 0
	fi
	kdir=/usr/src/linux-headers-$kver
	echo "$kver" >"$WSCHED_OUT/$name/kernel"
	log "$name: stock kernel $kver"
	if [[ $2 == test ]] && ((!selftests_built)); then
		if build_selftests "$(ksft_src)"; then
			selftests_built=1
		else
			host_check "$name" 1 build_selftests
		fi
	fi
	build_modules "$name" "$kdir" || return 0
	local vm vm_ok=0
	vm=$(/sbin/modinfo -F vermagic "$WSCHED_OUT/$name/mod/kmod/wsched.ko")
	[[ $vm == "$kver "* ]] || vm_ok=1
	host_check "$name" $vm_ok vermagic "wsched.ko vermagic '$vm' does not match $kver"
	build_wsctl "$name"
	make_initramfs "$name"
	if [[ $2 == test && -n $torture ]]; then
		boot "$name" "/boot/vmlinuz-$kver" 1G \
			"${WSCHED_STOCK_TIMEOUT:-$((torture + 900))}" torture
	else
		boot "$name" "/boot/vmlinuz-$kver" 1G "${WSCHED_STOCK_TIMEOUT:-1200}" "$2"
	fi
}

# Host stage: packaging.  dkms builds wsched for the headers of every stock
# kernel, in a private DKMS tree (nothing is installed on the host); make
# install runs into a DESTDIR and must put every file in place; udevadm
# applies the udev rule to a stand-in device in a private mount namespace
# (udev cannot see /dev/wsched here: the module is not loaded on the host).
stage_packaging() {
	local st=packaging t=$WSCHED_OUT/packaging s kver ver dest f
	touch "$t/host-only"
	"$RIG_DIR/deps.sh" dkms man $STOCK_STAGES
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$REPO_DIR/dkms.conf")
	mkdir -p "$t/dkms/src/wsched-$ver" "$t/dkms/tree"
	tar -C "$REPO_DIR" -cf - dkms.conf Kbuild kmod uapi | tar -C "$t/dkms/src/wsched-$ver" -xf -
	if dkms add --sourcetree "$t/dkms/src" --dkmstree "$t/dkms/tree" \
		-m wsched -v "$ver" >"$t/dkms.log" 2>&1; then
		host_check $st 0 dkms_add
	else
		host_check $st 1 dkms_add "see $t/dkms.log"
	fi
	for s in $STOCK_STAGES; do
		if ! kver=$(stock_kver "$s"); then
			host_check $st 1 "dkms_build_$s" "no headers for $s"
			continue
		fi
		log "packaging: dkms build for $kver"
		if dkms build --sourcetree "$t/dkms/src" --dkmstree "$t/dkms/tree" \
			-m wsched -v "$ver" -k "$kver" >>"$t/dkms.log" 2>&1 &&
		   compgen -G "$t/dkms/tree/wsched/$ver/$kver/*/module/wsched.ko*" >/dev/null; then
			host_check $st 0 "dkms_build_$kver"
		else
			host_check $st 1 "dkms_build_$kver" "see $t/dkms.log"
		fi
	done

	# make install, as a package build would run it.
	kver=$(stock_kver stock-6.12 || stock_kver stock) || true
	dest=$t/destdir
	log "packaging: make install DESTDIR=$dest KDIR=/usr/src/linux-headers-$kver"
	mkdir -p "$t/src"
	tar -C "$REPO_DIR" --exclude=./.build --exclude=./.git --exclude=./results \
		-cf - . | tar -C "$t/src" -xf -
	if make -C "$t/src" install DESTDIR="$dest" PREFIX=/usr \
		KDIR="/usr/src/linux-headers-$kver" >"$t/install.log" 2>&1; then
		host_check $st 0 make_install
	else
		host_check $st 1 make_install "see $t/install.log"
	fi
	for f in "lib/modules/$kver/updates/wsched.ko" usr/include/linux/wsched.h \
		 usr/include/wsched.h usr/lib/libwsched.a usr/lib/pkgconfig/libwsched.pc \
		 usr/bin/wsctl etc/udev/rules.d/60-wsched.rules; do
		compgen -G "$dest/$f*" >/dev/null
		host_check $st $? "installed_${f##*/}" "$f missing from DESTDIR"
	done
	# The installed library and header are usable through pkg-config.
	if PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig \
		gcc -o "$t/example" "$REPO_DIR/tools/libwsched/test/example.c" \
		$(PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_LIBDIR=$dest/usr/lib/pkgconfig \
		  pkg-config --cflags --libs --static libwsched 2>>"$t/install.log") \
		-static >>"$t/install.log" 2>&1; then
		host_check $st 0 pkg_config_link
	else
		host_check $st 1 pkg_config_link "see $t/install.log"
	fi
	man_check "$t" "$dest/usr/share/man" "$dest/usr/include/wsched.h"
	udev_rule_check "$t"
}

# The manual pages of the DESTDIR install: every page of the source tree
# is installed; each installed page lints clean (mandoc -T lint, warnings
# and worse; a link page must be a single .so of an installed real page)
# and renders with man -l without a warning of man or groff (both run
# from the man root, where .so links resolve); every global symbol of
# libwsched.map and every inline helper or macro of the installed
# wsched.h has a page in man3 whose NAME names it.
man_check() {	# man_check <dir> <mandir> <installed wsched.h>
	local d=$1/man m=$2 hdr=$3 st=packaging f page out missing= sym target first
	local -a syms
	mkdir -p "$d"
	for f in "$REPO_DIR"/tools/libwsched/man/*.[37] "$REPO_DIR"/tools/wsctl/*.1; do
		cmp -s "$f" "$m/man${f##*.}/${f##*/}" || missing+=" ${f##*/}"
	done
	host_check $st "$([[ -z $missing ]]; echo $?)" installed_man_pages \
		"missing from or different in $m:$missing"
	for f in "$m"/man[137]/*; do
		page=${f##*/}
		# A family's link page is one line, ".so man3/<page>", naming
		# a real page that is installed; mandoc warns about every .so
		# ("fragile"), which is the one warning let through for them.
		read -r target <"$f" || true
		if [[ $target == .so* ]]; then
			target=${target#.so }
			first=.so
			[[ -f $m/$target ]] && { read -r first <"$m/$target" || true; }
			if [[ $(wc -l <"$f") -ne 1 || $first == .so* ]]; then
				out="$f: not one .so line naming an installed page: $target"
			else
				out=$(cd "$m" && mandoc -T lint -W warning "${f#"$m"/}" 2>&1 |
				      grep -v ': WARNING: \.so is fragile, better use ln(1): ') || true
			fi
		else
			out=$(cd "$m" && mandoc -T lint -W warning "${f#"$m"/}" 2>&1) ||
				out=${out:-mandoc failed}
		fi
		if [[ -z $out ]]; then
			host_check $st 0 "man_lint_$page"
		else
			printf '%s\n' "$out" >"$d/lint-$page.log"
			host_check $st 1 "man_lint_$page" "see $d/lint-$page.log"
		fi
		# All of groff's warnings (-ww), and man's own (a failed .so).
		if out=$(cd "$m" && LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat \
			 man --warnings=w -l "${f#"$m"/}" 2>&1 >/dev/null) &&
		   [[ -z $out ]]; then
			host_check $st 0 "man_render_$page"
		else
			printf '%s\n' "$out" >"$d/render-$page.log"
			host_check $st 1 "man_render_$page" "see $d/render-$page.log"
		fi
	done
	mapfile -t syms < <(
		sed -n '/global:/,/local:/s/^[[:space:]]*\([A-Za-z_][A-Za-z0-9_]*\);$/\1/p' \
			"$REPO_DIR/tools/libwsched/libwsched.map"
		sed -nE -e 's/^static inline [^(]*[ *](wsched_[a-z0-9_]+)\(.*/\1/p' \
			-e 's/^#define (wsched_[a-z0-9_]+)\(.*/\1/p' "$hdr")
	if ((${#syms[@]} < 17)); then
		host_check $st 1 man_api_symbols "found ${#syms[@]} symbols in libwsched.map and wsched.h"
	fi
	for sym in "${syms[@]}"; do
		f=$m/man3/$sym.3
		target=$f
		[[ -f $f ]] && read -r out <"$f" && [[ $out == ".so "* ]] && target=$m/${out#.so }
		out=
		[[ -f $target ]] && out=$(sed -n '/^\.SH NAME/,/^\.SH/p' "$target")
		if grep -qw -- "$sym" <<<"$out"; then
			host_check $st 0 "man_api_$sym"
		else
			host_check $st 1 "man_api_$sym" "no man3/$sym.3 whose NAME names $sym"
		fi
	done
}

# udevadm test of udev/60-wsched.rules: the rule, with its KERNEL match
# pointed at a misc device the host has, must set GROUP wsched and MODE
# 0660.  In a private mount namespace with its own rules directory,
# /etc/group and an empty /dev, so that nothing on the host changes.
udev_rule_check() {	# udev_rule_check <dir>
	local d=$1/udev out stand=cpu_dma_latency
	if ! command -v udevadm >/dev/null || ! command -v unshare >/dev/null ||
	   [[ ! -e /sys/class/misc/$stand ]]; then
		host_check packaging 0 "udev_rule # SKIP no udevadm, unshare or /sys/class/misc/$stand"
		return
	fi
	mkdir -p "$d/rules" "$d/dev"
	sed "s/KERNEL==\"wsched\"/KERNEL==\"$stand\"/" "$REPO_DIR/udev/60-wsched.rules" \
		>"$d/rules/60-wsched.rules"
	{ grep -v '^wsched:' /etc/group; echo 'wsched:x:4242:'; } >"$d/group"
	# Everything the check mounts over is made inside the namespace, on
	# tmpfs: a machine where udevd never ran has no /run/udev, and one
	# without rules of its own may have no /etc/udev/rules.d.  The rule
	# goes to /run/udev/rules.d (a directory udev reads); /etc/udev is
	# hidden so that rules left on the host take no part.
	out=$(unshare -m --propagation private sh -c "mount -t tmpfs none /dev &&
		mount -t tmpfs none /run &&
		mkdir -p /run/udev/rules.d &&
		cp '$d/rules/60-wsched.rules' /run/udev/rules.d/ &&
		mount -t tmpfs none /etc/udev &&
		mount --bind '$d/group' /etc/group &&
		udevadm test --action=add /sys/class/misc/$stand" 2>&1) || true
	printf '%s\n' "$out" >"$d/udevadm-test.log"
	if grep -q '60-wsched.rules.*GROUP 4242' <<<"$out" &&
	   grep -q '60-wsched.rules.*MODE 0660' <<<"$out" &&
	   ! grep -qiE '60-wsched.rules.*(invalid|error|unknown|ignoring)' <<<"$out"; then
		host_check packaging 0 udev_rule
	else
		host_check packaging 1 udev_rule "see $d/udevadm-test.log"
	fi
}

# Host stage: the scheduler core built in user space from the same
# sources, under ThreadSanitizer (tools/native/).
stage_native() {
	local line rc=0
	log "native: deque stress and fib under ThreadSanitizer"
	"$REPO_DIR/tools/native/run-tsan.sh" >"$WSCHED_OUT/native/tsan.log" 2>&1 || rc=$?
	while read -r line; do
		case $line in
		"ok "*) host_check native 0 "$(sed -E 's/^ok [0-9]+ //' <<<"$line")" ;;
		"not ok "*) host_check native 1 "$(sed -E 's/^not ok [0-9]+ //' <<<"$line")" ;;
		esac
	done <"$WSCHED_OUT/native/tsan.log"
	grep -qE '^(not )?ok ' "$WSCHED_OUT/native/tsan.log" ||
		host_check native 1 tsan "run-tsan.sh printed no result (exit $rc)"
	((rc == 0)) || log "native: see $WSCHED_OUT/native/tsan.log"
}

if ((demo)); then
	rm -rf "${WSCHED_OUT:?}/demo"
	mkdir -p "$WSCHED_OUT/demo"
	stage_stock stock demo
	grep -q 'wsched_smoke: fib(.*) ok' "$WSCHED_OUT/demo/console.log" ||
		die "demo: the smoke module did not report success"
	grep -q 'RESULT: all match' "$WSCHED_OUT/demo/console.log" ||
		die "demo: wsctl crc32c did not report matching checksums"
	exit 0
fi

results=()
for s in $stages; do
	rm -rf "${WSCHED_OUT:?}/$s"
	mkdir -p "$WSCHED_OUT/$s"
	start=$(date +%s)
	case $s in
	native) stage_native ;;
	debug|kcsan) stage_debug "$s" ;;
	stock|stock-6.12|stock-6.12-rt) stage_stock "$s" test ;;
	packaging) stage_packaging ;;
	*) die "unknown stage $s" ;;
	esac
	echo "$(($(date +%s) - start))" >"$WSCHED_OUT/$s/stage-seconds"
	results+=("$s=$WSCHED_OUT/$s")
done

((parse)) || exit 0
# Every test's line goes to results.txt; stdout gets failures, skips, one
# line per stage and the total.
exec python3 "$RIG_DIR/parse-results.py" --all "$WSCHED_OUT/results.txt" "${results[@]}"
