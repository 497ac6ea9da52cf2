#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Build (or reuse) a wsched test kernel.
#
# Usage: build-kernel.sh [--cached] [debug|kcsan]
#
# Flavours (kernel_fragment in lib.sh):
#   debug  kernel.config: KASAN, lockdep, kmemleak, KUnit, fault injection
#   kcsan  the same with KASAN swapped for KCSAN (kernel-kcsan.config);
#          the two sanitizers cannot share a kernel
#
# The tree lives in $WSCHED_CACHE/kernel-<key>, where <key> hashes the
# linux-source package version, the flavour's fragments and this script.
# A finished tree holds src/ (the extracted source), obj/ (the O= build:
# bzImage and everything needed for `make -C obj M=...`) and a .done stamp.
# $WSCHED_CACHE/kernel-current points at the latest finished debug tree,
# $WSCHED_CACHE/kernel-kcsan-current at the latest KCSAN tree.
#
# --cached builds nothing: it prints the tree and succeeds only if the
# flavour's tree is already built (CI runs the KCSAN stage only then).
#
# Several checkouts share the cache and may name different trees (another
# branch's kernel.config, another linux-source): each key has its own lock,
# so building one tree never blocks reusing another, and every use stamps
# the tree (.used).  Old trees are pruned by prune_kernel_trees (lib.sh,
# outside the key), which keeps every tree used in the last days.
#
# Prints the path of the finished tree on stdout.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cached_only=0
if [[ ${1:-} == --cached ]]; then
	cached_only=1
	shift
fi
flavour=${1:-debug}
current=$(kernel_current_link "$flavour")
key=$(kernel_key "$flavour")
tree=$WSCHED_CACHE/kernel-$key
obj=$tree/obj

if ((cached_only)); then
	[[ -f $tree/.done ]] || exit 1
	echo "$tree"
	exit 0
fi

mkdir -p "$WSCHED_CACHE"
exec 9>"$WSCHED_CACHE/kernel-$key.lock"
if ! flock -n 9; then
	log "another run is building this kernel; waiting for $WSCHED_CACHE/kernel-$key.lock"
	flock 9
fi

if [[ -f $tree/.done ]]; then
	log "reusing cached kernel $tree"
	touch "$tree/.used"
	ln -sfn "kernel-$key" "$WSCHED_CACHE/$current"
	echo "$tree"
	exit 0
fi

[[ -r $LINUX_SOURCE_TAR ]] || die "$LINUX_SOURCE_TAR missing (run tools/qemu/deps.sh)"
start=$(date +%s)
rm -rf "$tree"
mkdir -p "$tree/src" "$obj"
log "extracting $LINUX_SOURCE_TAR into $tree/src"
tar -xf "$LINUX_SOURCE_TAR" -C "$tree/src"
src=$tree/src/$LINUX_SOURCE_PKG
[[ -f $src/Makefile ]] || die "unexpected layout of $LINUX_SOURCE_TAR"
ln -sfn "$LINUX_SOURCE_PKG" "$tree/src/linux"
frag=$tree/fragment.config
kernel_fragment "$flavour" >"$frag"

kmake() { make -C "$src" O="$obj" ARCH=x86_64 "$@"; }

log "configuring $flavour kernel: allnoconfig + $frag"
# merge_config.sh -n runs allnoconfig with the fragment as KCONFIG_ALLCONFIG,
# so dependencies and choices are resolved by Kconfig itself.
(cd "$src" && ARCH=x86_64 scripts/kconfig/merge_config.sh -n -O "$obj" "$frag") \
	>"$tree/config.log" 2>&1 || { cat "$tree/config.log" >&2; die "merge_config failed"; }
kmake olddefconfig >>"$tree/config.log" 2>&1

# Every option of the fragment must have landed.
missing=()
while IFS= read -r line; do
	case $line in
	CONFIG_*=*)
		grep -qxF -- "$line" "$obj/.config" || missing+=("$line (got: $(grep -E "^(# )?${line%%=*}[= ]" "$obj/.config" || echo absent))")
		;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$obj/.config" && missing+=("$line (got: $(grep "^$opt=" "$obj/.config"))")
		;;
	esac
done <"$frag"
if ((${#missing[@]})); then
	printf '[wsched-rig] config option missing from .config: %s\n' "${missing[@]}" >&2
	die "kernel.config fragment did not apply (${#missing[@]} options); see $obj/.config"
fi
cp "$obj/.config" "$tree/config.final"

log "building kernel in $obj with -j$((NPROC + 1)) (log: $tree/build.log)"
if ! kmake -j"$((NPROC + 1))" bzImage modules >"$tree/build.log" 2>&1; then
	tail -50 "$tree/build.log" >&2
	die "kernel build failed; see $tree/build.log"
fi
[[ -f $obj/arch/x86/boot/bzImage && -f $obj/Module.symvers ]] ||
	die "kernel build produced no bzImage/Module.symvers"

end=$(date +%s)
echo "$((end - start))" >"$tree/build-seconds"
echo "$LINUX_SOURCE_PKG" >"$tree/source"
echo "$flavour" >"$tree/flavour"
touch "$tree/.done" "$tree/.used"
ln -sfn "kernel-$key" "$WSCHED_CACHE/$current"
log "kernel built in $((end - start)) s: $tree (bzImage: $obj/arch/x86/boot/bzImage)"

exec 9>&-
prune_kernel_trees "$tree"
echo "$tree"
