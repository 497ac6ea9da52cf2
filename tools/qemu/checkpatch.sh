#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run the kernel's checkpatch.pl --strict on the project's C sources.
# Fails on any ERROR or WARNING (CHECKs are printed but do not fail).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

cp_dir=
for d in "$WSCHED_CACHE/kernel-current/src/linux" "$WSCHED_CACHE/checkpatch/$LINUX_SOURCE_PKG"; do
	if [[ -x $d/scripts/checkpatch.pl ]]; then
		cp_dir=$d
		break
	fi
done
if [[ -z $cp_dir ]]; then
	"$RIG_DIR/deps.sh" debug
	cp_dir=$WSCHED_CACHE/checkpatch/$LINUX_SOURCE_PKG
	log "extracting checkpatch.pl from $LINUX_SOURCE_TAR"
	mkdir -p "$WSCHED_CACHE/checkpatch"
	tar -xf "$LINUX_SOURCE_TAR" -C "$WSCHED_CACHE/checkpatch" \
		"$LINUX_SOURCE_PKG/scripts/checkpatch.pl" \
		"$LINUX_SOURCE_PKG/scripts/spelling.txt" \
		"$LINUX_SOURCE_PKG/scripts/const_structs.checkpatch" \
		"$LINUX_SOURCE_PKG/scripts/kernel-doc"
fi

cd "$REPO_DIR"
shopt -s nullglob
files=()
for f in kmod/*.c kmod/*.h kmod/tests/*.c kmod/tests/*.h kmod/include/linux/*.h tools/smoke/*.c tools/samples/*/*.c tools/bench/*.c; do
	[[ $f == *.mod.c || $f == kmod/compat.h ]] || files+=("$f")	# skip Kbuild-generated files
done
((${#files[@]})) || die "no source files to check"

out=$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	-f "${files[@]}" 2>&1) || true
# kmod/compat.h is the one file that compares kernel versions.
out+=$'\n'$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore LINUX_VERSION_CODE -f kmod/compat.h 2>&1) || true
files+=(kmod/compat.h)
printf '%s\n' "$out"
nbad=$(printf '%s\n' "$out" | grep -cE '^[^ ]+:[0-9]+: (ERROR|WARNING):' || true)
if ((nbad)); then
	echo "checkpatch: $nbad ERROR/WARNING(s) in ${#files[@]} files" >&2
	exit 1
fi
echo "checkpatch: ${#files[@]} files clean (no ERROR/WARNING)"

# The API reference comes from kernel-doc: it must parse without warnings.
if [[ -x $cp_dir/scripts/kernel-doc ]]; then
	kd=$(perl "$cp_dir/scripts/kernel-doc" -none "${files[@]}" 2>&1) || true
	if [[ -n $kd ]]; then
		printf '%s\n' "$kd" >&2
		exit 1
	fi
	echo "kernel-doc: ${#files[@]} files clean"
fi
