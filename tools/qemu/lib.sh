# SPDX-License-Identifier: GPL-2.0
# Common settings for the wsched QEMU rig; sourced by the other scripts.

RIG_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$RIG_DIR/../.." && pwd)
WSCHED_CACHE=${WSCHED_CACHE:-/var/cache/wsched}
# Per-checkout build outputs (gitignored).
WSCHED_OUT=${WSCHED_OUT:-$REPO_DIR/.build}
# The debug kernel tracks the newest LTS Debian ships (bookworm-security).
LINUX_SOURCE_PKG=${LINUX_SOURCE_PKG:-linux-source-6.12}
LINUX_SOURCE_TAR=/usr/src/$LINUX_SOURCE_PKG.tar.xz
NPROC=$(nproc)

log() { printf '[wsched-rig] %s\n' "$*" >&2; }
die() { printf '[wsched-rig] ERROR: %s\n' "$*" >&2; exit 1; }

# Debian's stock kernels, one rig stage each:
#   stock          6.1 (bookworm's linux-image-amd64), e.g. 6.1.0-57-amd64
#   stock-6.12     6.12 LTS (bookworm-security), e.g. 6.12.118+deb12-amd64
#   stock-6.12-rt  its PREEMPT_RT flavour, e.g. 6.12.118+deb12-rt-amd64
STOCK_STAGES="stock stock-6.12 stock-6.12-rt"

# NUMA nodes a stage's guest boots with (0: none, the QEMU default):
# stock (6.1, CONFIG_NUMA=y like every Debian kernel) boots 2 nodes of 2
# CPUs so that topology-aware stealing runs on a NUMA machine; the debug
# kernel has no CONFIG_NUMA.  WSCHED_NUMA=N overrides it for every stage
# (0, or 2 or 4: nodes that split the 4 vCPUs evenly).
numa_nodes() {	# numa_nodes <stage>
	if [[ -n ${WSCHED_NUMA:-} ]]; then
		echo "$WSCHED_NUMA"
		return
	fi
	case $1 in
	stock) echo 2 ;;
	*) echo 0 ;;
	esac
}

# QEMU arguments for <nodes> NUMA nodes over 4 vCPUs and <mem> of RAM
# ("1G", "2G" or MiB): one socket and one RAM backend per node, the RAM
# split evenly; just "-smp 4" for 0 nodes.
qemu_numa_args() {	# qemu_numa_args <nodes> <mem>
	local nodes=$1 mib=$2 n per
	if ((nodes == 0)); then
		echo "-smp 4"
		return
	fi
	((nodes == 2 || nodes == 4)) || die "WSCHED_NUMA=$nodes: use 0, 2 or 4"
	[[ $mib == *G ]] && mib=$((${mib%G} * 1024))
	mib=${mib%M}
	per=$((4 / nodes))
	printf -- '-smp 4,sockets=%d,cores=%d,threads=1' "$nodes" "$per"
	for ((n = 0; n < nodes; n++)); do
		printf -- ' -object memory-backend-ram,id=numa%d,size=%dM' "$n" $((mib / nodes))
		printf -- ' -numa node,nodeid=%d,cpus=%d-%d,memdev=numa%d' \
			"$n" $((n * per)) $((n * per + per - 1)) "$n"
	done
	echo
}

stock_image_pkg() {	# stock_image_pkg <stage>: the meta-package apt installs
	case $1 in
	stock) echo linux-image-amd64 ;;
	stock-6.12) echo linux-image-6.12-amd64 ;;
	stock-6.12-rt) echo linux-image-6.12-rt-amd64 ;;
	*) die "unknown stock stage $1" ;;
	esac
}

stock_headers_pkg() {	# stock_headers_pkg <stage>
	local p
	p=$(stock_image_pkg "$1")
	echo "linux-headers-${p#linux-image-}"
}

# The stage a kernel version belongs to (nothing for other flavours).
stock_stage_of() {	# stock_stage_of <kernel version>
	case $1 in
	*-cloud-*) ;;
	6.1.*-rt-amd64) ;;
	6.1.*-amd64) echo stock ;;
	6.12.*-rt-amd64) echo stock-6.12-rt ;;
	6.12.*-amd64) echo stock-6.12 ;;
	esac
}

# Installed images of a stage's series, newest first.
stock_images() {	# stock_images <stage>
	local v
	for v in $(ls -1 /boot/vmlinuz-* 2>/dev/null | sed 's|/boot/vmlinuz-||'); do
		[[ $(stock_stage_of "$v") == "$1" ]] && echo "$v"
	done | sort -rV
}

# Version of a stage's stock kernel: the newest installed image of its
# series whose matching headers are installed too, unless overridden by
# WSCHED_STOCK_KVER (stock), WSCHED_STOCK_6_12_KVER or
# WSCHED_STOCK_6_12_RT_KVER.
stock_kver() {	# stock_kver [stage]
	local v stage=${1:-stock} var
	var=WSCHED_${stage//[.-]/_}_KVER
	var=${var^^}
	if [[ -n ${!var:-} ]]; then
		echo "${!var}"
		return
	fi
	for v in $(stock_images "$stage"); do
		if [[ -d /usr/src/linux-headers-$v && -r /boot/vmlinuz-$v ]]; then
			echo "$v"
			return
		fi
	done
	return 1
}

# The config fragment of a test kernel flavour, merged onto allnoconfig.
# kcsan: KCSAN and KASAN exclude each other (lib/Kconfig.kcsan), so the
# KASAN lines of kernel.config give way to kernel-kcsan.config.
kernel_fragment() {	# kernel_fragment <debug|kcsan>
	case $1 in
	debug) cat "$RIG_DIR/kernel.config" ;;
	kcsan)
		grep -v '^CONFIG_KASAN' "$RIG_DIR/kernel.config"
		cat "$RIG_DIR/kernel-kcsan.config"
		;;
	*) die "unknown kernel flavour $1" ;;
	esac
}

# The link in $WSCHED_CACHE to a flavour's latest tree.
kernel_current_link() {	# kernel_current_link <debug|kcsan>
	case $1 in
	debug) echo kernel-current ;;
	*) echo "kernel-$1-current" ;;
	esac
}

# Key of a flavour's cached tree: the linux-source version, the fragment
# and the build script (for debug: the version, kernel.config and the
# script, as before flavours existed).
kernel_key() {	# kernel_key <debug|kcsan>
	local ver
	ver=$(dpkg-query -W -f='${Version}' "$LINUX_SOURCE_PKG" 2>/dev/null || echo none)
	{
		echo "$ver"
		kernel_fragment "$1"
		cat "$RIG_DIR/build-kernel.sh"
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

# Remove old debug kernel trees, never one that a checkout may still use.
# Kept: the tree just built, the targets of kernel-current and
# kernel-kcsan-current, the newest two finished trees of each linux-source
# package and flavour, every tree used (built or
# reused, the .used stamp) in the last WSCHED_CACHE_KEEP_DAYS days (default
# 3), and every tree whose build is in progress (its key's lock is held).
# This lives outside build-kernel.sh so that changing it does not change
# the cache key.
prune_kernel_trees() {	# prune_kernel_trees <tree just built>
	local days=${WSCHED_CACHE_KEEP_DAYS:-3} cur kcsan d src
	local -A seen=()
	cur=$(readlink -f "$WSCHED_CACHE/kernel-current" 2>/dev/null || true)
	kcsan=$(readlink -f "$WSCHED_CACHE/kernel-kcsan-current" 2>/dev/null || true)
	# Newest first, by the time each tree was finished.
	for d in $(ls -1dt "$WSCHED_CACHE"/kernel-*/.done 2>/dev/null); do
		d=${d%/.done}
		[[ -L $d ]] && continue	# kernel-current, kernel-kcsan-current
		src=$(cat "$d/source" 2>/dev/null ||
		      readlink "$d/src/linux" 2>/dev/null || echo unknown)
		src=$src/$(cat "$d/flavour" 2>/dev/null || echo debug)
		seen[$src]=$((${seen[$src]:-0} + 1))
		[[ $d == "$1" || $d == "$cur" || $d == "$kcsan" ]] && continue
		((${seen[$src]} <= 2)) && continue
		[[ -n $(find "$d" -maxdepth 1 -name .used -mtime "-$days") ]] && continue
		# A tree rebuilt right now by another run: its lock is held.
		flock -n "$d.lock" true 2>/dev/null || continue
		log "removing kernel tree $d (unused for $days days, not among the newest two of $src)"
		rm -rf "$d"
	done
}
