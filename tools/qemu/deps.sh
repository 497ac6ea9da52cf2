#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the rig needs, if any is missing.
# Usage: deps.sh [all|debug|stock|stock-6.12|stock-6.12-rt|dkms|man]
#        (default all; several may be given)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=" ${*:-all} "
has() { [[ $what == *" all "* || $what == *" $1 "* ]]; }
pkgs=(build-essential gcc make libc6-dev python3 bc bison flex libelf-dev
      libssl-dev cpio xz-utils gzip kmod qemu-system-x86 busybox-static
      util-linux coreutils perl)
# liburing.a: the io_uring baselines of make bench (tools/bench/wsched_ubench.c),
# selftests/wsched/uring_test and libwsched's uring_chain example
pkgs+=(liburing-dev)
# Debian 12's kernels: 6.1 (linux-*-amd64), and from bookworm-security the
# 6.12 LTS and its PREEMPT_RT flavour (the headers pull in the image).
# sparse: the debug kernel's stages build the modules with C=1.
has debug && pkgs+=("$LINUX_SOURCE_PKG" sparse)
for s in stock stock-6.12 stock-6.12-rt; do
	has "$s" && pkgs+=("$(stock_image_pkg "$s")" "$(stock_headers_pkg "$s")")
done
# dkms builds wsched for every header set (a host step of the rig); udev's
# udevadm checks the rule file.
has dkms && pkgs+=(dkms udev)
# The packaging stage lints and renders the installed manual pages
# (mandoc -T lint, man --warnings -l with groff) and links example.c
# through pkg-config.
has man && pkgs+=(man-db mandoc groff-base pkg-config)

sudo=
[[ $(id -u) -eq 0 ]] || sudo=sudo

missing=()
for p in "${pkgs[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed'; then
		missing+=("$p")
	fi
done

if ((${#missing[@]})); then
	log "installing missing packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends "${missing[@]}"
fi

# A stock stage needs headers of exactly the installed image's version.
for s in stock stock-6.12 stock-6.12-rt; do
	has "$s" || continue
	stock_kver "$s" >/dev/null && continue
	v=$(stock_images "$s" | head -1)
	[[ -n $v ]] || die "$s: no /boot/vmlinuz-* after installing $(stock_image_pkg "$s")"
	log "installing linux-headers-$v to match /boot/vmlinuz-$v"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends "linux-headers-$v"
done
