# SPDX-License-Identifier: GPL-2.0
# Common settings for the wsched QEMU rig; sourced by the other scripts.

RIG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$RIG_DIR/../.." && pwd)
WSCHED_CACHE=${WSCHED_CACHE:-/var/cache/wsched}
# Per-checkout build outputs (gitignored).
WSCHED_OUT=${WSCHED_OUT:-$REPO_DIR/.build}
LINUX_SOURCE_PKG=${LINUX_SOURCE_PKG:-linux-source-6.1}
LINUX_SOURCE_TAR=/usr/src/$LINUX_SOURCE_PKG.tar.xz
NPROC=$(nproc)

log() { printf '[wsched-rig] %s\n' "$*" >&2; }
die() { printf '[wsched-rig] ERROR: %s\n' "$*" >&2; exit 1; }

# Version of Debian's stock kernel to test against: newest installed
# linux-image of the WSCHED_STOCK_SERIES (default 6.1.) whose matching
# headers are installed too, unless WSCHED_STOCK_KVER overrides it.
stock_kver() {
	local v
	if [[ -n ${WSCHED_STOCK_KVER:-} ]]; then
		echo "$WSCHED_STOCK_KVER"
		return
	fi
	# The series the module is tested on (other kernels may be installed
	# on the host: Debian 12 also ships 6.12).
	for v in $(ls -1 /boot/vmlinuz-"${WSCHED_STOCK_SERIES:-6.1.}"* 2>/dev/null |
		   sed 's|/boot/vmlinuz-||' | sort -rV); do
		if [[ -d /usr/src/linux-headers-$v && -r /boot/vmlinuz-$v ]]; then
			echo "$v"
			return
		fi
	done
	return 1
}

# Directory of the cached debug kernel for the current key.
kernel_key() {
	local ver
	ver=$(dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG" 2>/dev/null || echo none)
	{
		echo "$ver"
		cat "$RIG_DIR/kernel.config" "$RIG_DIR/build-kernel.sh"
	} | sha256sum | cut -c1-16
}

# Copy a module source directory without in-tree build outputs.
copy_src() {	# copy_src <from> <to>
	mkdir -p "$2"
	tar -C "$1" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude='.*.cmd' --exclude='*.a' \
		--exclude=Module.symvers --exclude=modules.order --exclude='.tmp_*' . |
		tar -C "$2" -xf -
}
