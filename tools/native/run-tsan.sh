#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the wsched core in user space (kmod sources unchanged, shim headers
# in tools/native/include) with ThreadSanitizer and run its tests.  Prints
# one TAP stream; the binaries' own output is shown as "#" comments.
# Exits non-zero if anything fails to build, fails, or TSan reports a race.
#
#   NATIVE_CPUS   pretend CPUs (workers) for fib_tsan (default 4)
#   O             build directory (default .build/native)
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-$top/.build/native}
export O

missing=()
command -v gcc >/dev/null || missing+=(gcc)
command -v g++ >/dev/null || missing+=(g++)
command -v make >/dev/null || missing+=(make)
# libtsan comes with gcc on Debian; check that -fsanitize=thread links.
if [ ${#missing[@]} -eq 0 ] &&
   ! echo 'int main(void){return 0;}' | gcc -fsanitize=thread -x c - -o /dev/null 2>/dev/null; then
	missing+=(libtsan2)
fi
if [ ${#missing[@]} -gt 0 ]; then
	echo "# installing: ${missing[*]}"
	if [ "$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get install -y "${missing[@]}" >/dev/null 2>&1 ||
		{ $SUDO apt-get update >/dev/null 2>&1 &&
		  $SUDO apt-get install -y "${missing[@]}" >/dev/null 2>&1; }
fi

tests=(deque_stress_tsan fib_tsan)
echo "1..$((2 + ${#tests[@]}))"
n=0 fail=0

ok() { # status name
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n $2"; else echo "not ok $n $2"; fail=1; fi
}

log=$(make -s -C "$here" tsan 2>&1)
rc=$?
[ -n "$log" ] && sed 's/^/# /' <<<"$log"
ok $rc native_tsan_build
if [ $rc != 0 ]; then
	for t in "${tests[@]}"; do ok 1 "$t # build failed"; done
	exit 1
fi

export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 ${TSAN_OPTIONS:-}"
export NATIVE_CPUS=${NATIVE_CPUS:-4}
for t in "${tests[@]}"; do
	out=$(timeout 120 "$O/$t" 2>&1)
	rc=$?
	sed 's/^/# /' <<<"$out"
	if grep -q 'WARNING: ThreadSanitizer' <<<"$out"; then
		rc=${rc/#0/66}
	fi
	[ $rc = 124 ] && echo "# $t: timed out"
	[ $rc = 66 ] && echo "# $t: ThreadSanitizer report"
	ok $rc "$t"
done

# The paths TSan once caught racing (fifo_head) must stay race-free.
out=$(timeout 120 "$O/fib_tsan" --known-races 2>&1)
rc=$?
sed 's/^/# /' <<<"$out"
grep -q 'WARNING: ThreadSanitizer' <<<"$out" && rc=66
ok $rc fib_tsan_fifo_paths
exit $fail
