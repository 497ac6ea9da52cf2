#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the rig needs, if any is missing.
# Usage: deps.sh [all|debug|stock]   (default all)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
pkgs=(build-essential gcc make libc6-dev python3 bc bison flex libelf-dev
      libssl-dev cpio xz-utils gzip kmod qemu-system-x86 busybox-static
      util-linux coreutils perl)
# liburing.a: the io_uring baselines of make bench (tools/bench/wsched_ubench.c)
pkgs+=(liburing-dev)
case $what in
all|debug) pkgs+=("$LINUX_SOURCE_PKG") ;;&
all|stock) pkgs+=(linux-image-amd64 linux-headers-amd64) ;;
esac

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

# The stock stage needs headers of exactly the installed image's version.
if [[ $what != debug ]] && ! stock_kver >/dev/null; then
	v=$(ls -1 /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||' | sort -V | tail -1)
	[[ -n $v ]] || die "no /boot/vmlinuz-* after installing linux-image-amd64"
	log "installing linux-headers-$v to match /boot/vmlinuz-$v"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update
	$sudo apt-get install -y --no-install-recommends "linux-headers-$v"
fi
