#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# wsched benchmarks: build wsched.ko and wsched_bench.ko against Debian's
# stock kernel headers and the static user-space wsched_ubench (/dev/wsched
# against io_uring and user-space crc32c), boot the stock kernel in QEMU
# (TCG), collect the benchmark rows and print one table; write
# results/bench-<date>.txt and results/bench.png.
#
# Environment:
#   BENCH_CPUS   guest CPUs (default: nproc)
#   BENCH_ONLY   comma list of fib,nqueens,uts,crc32c,wavefront (module;
#                fib, nqueens and uts each with their ws_spawn() and
#                ws_parallel_invoke() rows),
#                nop_ring,diamond_latency,one_graph_wait,random_dag,crc32c_user,
#                uring_chain (wsched_ubench) and pages (tools/samples/pages: page
#                clear and copy, idle and beside a CPU hog), citizen (a nice-0
#                task beside a nice-19 / SCHED_IDLE / nice-0 job, the idle
#                system pool's wake-ups, and on PREEMPT_RT a SCHED_FIFO
#                thread's wake-up latency beside a job, spinners and a
#                static split of the same clearing); default all
#   BENCH_RUNS   rounds, each running every variant once (default 5; the
#                module's fib takes at least 5)
#   BENCH_ARGS   more parameters of the module and wsched_ubench (each takes
#                its own), e.g. "fib_n=25 crc_mb=32 ubench_ms=100"; pages_mb=N
#                sizes the pages rows (default 64), pages_hog_runs=N sets
#                the rounds of the rows beside the hog (default 11)
#   BENCH_TIMEOUT  seconds for the guest (default 540)
#   BENCH_PROFILE=N  also trace N ENTER calls of 64 one-node graphs with
#                the function_graph tracer and print where the time goes
#                (tools/bench/profile.py); use with BENCH_ONLY=nop_ring
#   BENCH_LIBURING=0  build wsched_ubench without liburing (io_uring rows
#                skipped), as on a host without liburing-dev
#   BENCH_KERNEL the kernel to boot: a stock stage name (stock = 6.1,
#                stock-6.12, stock-6.12-rt) or an installed kernel version
#                (/boot/vmlinuz-<ver> with /usr/src/linux-headers-<ver>);
#                default stock
#   BENCH_INSNS=1  count the guest's instructions with a QEMU TCG plugin
#                (tools/bench/tcg_insns.c) and print them per function
#                (tools/bench/insns.py), in results/insns-<date>.txt;
#                BENCH_INSNS_BLOCKS=F also lists function F's blocks, with
#                their counts per entry of F.  The count slows the guest:
#                the timed rows of such a run are not comparable.
#   WSCHED_OUT   build outputs (default <repo>/.build); this uses bench/
set -euo pipefail
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tools/qemu/lib.sh
. "$BENCH_DIR/../qemu/lib.sh"

cpus=${BENCH_CPUS:-$(nproc)}
out=$WSCHED_OUT/bench
results=$REPO_DIR/results
m=$out/mod

bench_kernel=${BENCH_KERNEL:-stock}
case " $STOCK_STAGES " in
*" $bench_kernel "*)
	"$RIG_DIR/deps.sh" "$bench_kernel"
	kver=$(stock_kver "$bench_kernel") ||
		die "no /boot/vmlinuz-<ver> with matching /usr/src/linux-headers-<ver> for $bench_kernel"
	;;
*)
	"$RIG_DIR/deps.sh" debug	# the build tools
	kver=$bench_kernel
	;;
esac
kdir=/usr/src/linux-headers-$kver
[[ -r /boot/vmlinuz-$kver && -f $kdir/Makefile ]] ||
	die "BENCH_KERNEL=$bench_kernel: need /boot/vmlinuz-$kver and $kdir"
log "bench: kernel $kver"

rm -rf "$out"
mkdir -p "$m/tools" "$results"
log "bench: building modules against $kdir"
cp -a "$REPO_DIR/Kbuild" "$m/"
copy_src "$REPO_DIR/kmod" "$m/kmod"
copy_src "$REPO_DIR/tools/smoke" "$m/tools/smoke"
copy_src "$BENCH_DIR" "$m/tools/bench"
copy_src "$REPO_DIR/tools/samples/pages" "$m/tools/samples/pages"
if ! make -C "$kdir" M="$m" -j"$NPROC" modules >"$out/modules.log" 2>&1 ||
   ! make -C "$kdir" M="$m/tools/bench" KBUILD_EXTRA_SYMBOLS="$m/Module.symvers" \
	-j"$NPROC" modules >>"$out/modules.log" 2>&1 ||
   ! make -C "$kdir" M="$m/tools/samples/pages" KBUILD_EXTRA_SYMBOLS="$m/Module.symvers" \
	-j"$NPROC" modules >>"$out/modules.log" 2>&1; then
	grep -E 'error|Error' "$out/modules.log" | head -20 >&2
	die "module build failed, see $out/modules.log"
fi

# The user-space benchmark of /dev/wsched: static, with libwsched compiled
# in, and with liburing.a (Debian's liburing-dev) for the io_uring
# baselines if it is there; without it the io_uring rows say skipped.
ub=$out/wsched_ubench
ub_cc=(gcc -O2 -static -Wall -I"$REPO_DIR/tools/libwsched" -I"$REPO_DIR/kmod/include/uapi")
ub_src=("$BENCH_DIR/wsched_ubench.c" "$REPO_DIR/tools/libwsched/libwsched.c"
	"$REPO_DIR/tools/libwsched/checksum.c")
ub_libs=(-lpthread)
if [[ ${BENCH_LIBURING:-1} != 0 && -f $(gcc -print-file-name=liburing.a) ]] &&
   echo '#include <liburing.h>' | gcc -E -x c - >/dev/null 2>&1; then
	ub_cc+=(-DHAVE_LIBURING)
	ub_libs=(-l:liburing.a "${ub_libs[@]}")
else
	log "bench: no liburing.a (apt-get install liburing-dev): io_uring rows skipped"
fi
if ! "${ub_cc[@]}" -o "$ub" "${ub_src[@]}" "${ub_libs[@]}" >"$out/ubench.log" 2>&1; then
	grep -E 'error' "$out/ubench.log" | head -20 >&2
	log "bench: wsched_ubench build failed, see $out/ubench.log; no /dev/wsched rows"
	rm -f "$ub"
fi

# The competitor, nice/chrt and cyclictest of the citizen rows.
if ! gcc -O2 -static -Wall -o "$out/wsched_hog" "$BENCH_DIR/wsched_hog.c" >"$out/hog.log" 2>&1; then
	log "bench: wsched_hog build failed, see $out/hog.log; no citizen rows"
	rm -f "$out/wsched_hog"
fi

r=$out/initramfs
mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,tmp,lib/wsched}
cp /bin/busybox "$r/bin/busybox"
for app in $("$r/bin/busybox" --list); do
	[[ $app == busybox ]] || ln -s busybox "$r/bin/$app"
done
cp "$BENCH_DIR/guest.sh" "$r/init"
chmod 755 "$r/init"
cp "$m/kmod/wsched.ko" "$m/tools/bench/wsched_bench.ko" \
	"$m/tools/samples/pages/wsched_pages.ko" "$r/lib/wsched/"
[[ -f $ub ]] && cp "$ub" "$r/lib/wsched/"
[[ -f $out/wsched_hog ]] && cp "$out/wsched_hog" "$r/lib/wsched/"
(cd "$r" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 >"$out/initramfs.cpio.gz"

append="console=ttyS0 panic=-1 oops=panic softlockup_panic=1 mitigations=off"
[[ -n ${BENCH_ONLY:-} ]] && append+=" wsbench.only=$BENCH_ONLY"
[[ -n ${BENCH_RUNS:-} ]] && append+=" wsbench.runs=$BENCH_RUNS"
[[ -n ${BENCH_PROFILE:-} ]] && append+=" wsbench.profile=$BENCH_PROFILE"
for a in ${BENCH_ARGS:-}; do
	append+=" wsbench.$a"
done

plugin=()
if [[ -n ${BENCH_INSNS:-} ]]; then
	gcc -O2 -shared -fPIC -fvisibility=hidden -Wall -o "$out/tcg_insns.so" \
		"$BENCH_DIR/tcg_insns.c" || die "bench: tcg_insns.so build failed"
	rm -f "$out/insns.txt"
	plugin=(-plugin "$out/tcg_insns.so,out=$out/insns.txt")
	append+=" wsbench_insns=1"
fi

log "bench: booting $kver with $cpus CPUs (console: $out/console.log)"
start=$(date +%s)
rc=0
timeout --foreground -k 10 "${BENCH_TIMEOUT:-540}" qemu-system-x86_64 \
	-accel tcg,thread=multi -cpu max -smp "$cpus" -m 2G \
	-nographic -nodefaults -no-reboot -monitor none \
	-kernel "/boot/vmlinuz-$kver" -initrd "$out/initramfs.cpio.gz" \
	-chardev file,id=con,path="$out/console.log" -serial chardev:con \
	-chardev file,id=res,path="$out/results.log" -serial chardev:res \
	"${plugin[@]}" -append "$append" </dev/null || rc=$?
log "bench: QEMU exited with $rc after $(($(date +%s) - start)) s"
grep -q '^# bench-done' "$out/results.log" ||
	die "no results (timeout or crash); see $out/console.log"

stamp=$(date +%Y%m%d-%H%M%S)
txt=$results/bench-$stamp.txt
{
	echo "# wsched bench $stamp: kernel $kver, QEMU TCG -smp $cpus on $(nproc) host CPUs"
	echo "# host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
	python3 "$BENCH_DIR/table.py" "$out/results.log" "$out/chart.dat"
	echo
	echo "# raw rows"
	grep -v '^# ksym ' "$out/results.log"
} >"$txt"
sed -n '/^# raw rows/q;p' "$txt"
log "bench: wrote $txt"
if [[ -n ${BENCH_INSNS:-} ]]; then
	ins=$results/insns-$stamp.txt
	blocks=()
	[[ -n ${BENCH_INSNS_BLOCKS:-} ]] && blocks=("blocks=$BENCH_INSNS_BLOCKS")
	python3 "$BENCH_DIR/insns.py" "$out/results.log" "$out/insns.txt" 40 "${blocks[@]}" | tee "$ins"
	log "bench: wrote $ins"
fi
if [[ -n ${BENCH_PROFILE:-} ]]; then
	prof=$results/profile-$stamp.txt
	python3 "$BENCH_DIR/profile.py" "$out/results.log" 30 | tee "$prof"
	log "bench: wrote $prof (the trace itself: $out/results.log)"
fi

if ! command -v gnuplot >/dev/null; then
	sudo=
	[[ $(id -u) -eq 0 ]] || sudo=sudo
	log "bench: installing gnuplot-nox"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null 2>&1 ||
		{ $sudo apt-get update >/dev/null 2>&1 &&
		  $sudo apt-get install -y --no-install-recommends gnuplot-nox >/dev/null 2>&1; } || true
fi
if command -v gnuplot >/dev/null; then
	gnuplot -e "datafile='$out/chart.dat'; outfile='$results/bench.png'; title='wsched vs baseline, QEMU TCG -smp $cpus ($stamp)'" \
		"$BENCH_DIR/chart.gp" && log "bench: wrote $results/bench.png"
else
	log "bench: gnuplot missing (apt-get install gnuplot-nox); no chart"
fi
grep -q '^# bench-exit 0$' "$out/results.log" || die "wsched_bench.ko failed: $(grep '^# bench-exit' "$out/results.log")"
grep -q '^# ubench-exit 0$' "$out/results.log" || die "wsched_ubench failed: $(grep '^# ubench-exit' "$out/results.log")"
if grep -q '^# pages-\(hog-\)\?exit [^0]' "$out/results.log"; then
	die "wsched_pages.ko failed: $(grep '^# pages-' "$out/results.log" | tr '\n' ' ')"
fi
