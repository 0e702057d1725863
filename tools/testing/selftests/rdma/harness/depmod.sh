# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The module index of a project-stack guest, made on the host: depmod over
# all of Debian's ~4000 .ko.xz takes over a minute under TCG, ten seconds
# here.  The tree it indexes is the guest's: KROOT/lib/modules/$KVER without
# kernel/drivers/infiniband, plus the staged modules under updates/ (a
# symlink farm; depmod follows the links).  The paths in modules.dep are
# relative, so the files fit the guest's tree as they are.  Sourced after
# common.sh.
#
# rdma_project_depmod   prints the folder holding modules.dep and friends,
#                       rebuilt only when the staged modules or the kernel's
#                       module tree changed.

RDMA_DEPMOD_FILES="modules.dep modules.dep.bin modules.alias modules.alias.bin
modules.symbols modules.symbols.bin modules.softdep modules.devname
modules.builtin.bin modules.builtin.alias.bin"

rdma_project_depmod() {
	local want farm kdir f ko out old

	want=$( {
		echo "$KVER"
		sha256sum "${BASH_SOURCE[0]}"
		stat -c '%n %s %Y' "$KROOT/lib/modules/$KVER/modules.dep" "$KROOT/lib/modules/$KVER/modules.order"
		rdma_staged_modules | while read -r ko; do
			echo "${ko#"$STAGE"} $(sha256sum <"$ko")"
		done
	} | sha256sum | cut -d' ' -f1)
	# One folder per input set, so that a guest still booting from an older
	# one is not pulled from under it; those unused for a day go.
	out=$BUILD/harness/depmod-$KVER-${want:0:16}
	if [ -s "$out/modules.dep" ] && [ "$(cat "$out/inputs" 2>/dev/null)" = "$want" ]; then
		touch "$out/inputs"
		echo "$out"
		return 0
	fi
	for old in "$BUILD/harness/depmod-$KVER"-*; do
		[ -e "$old/inputs" ] && [ -z "$(find "$old/inputs" -mmin -1440)" ] && rm -rf "$old"
	done
	mkdir -p "$BUILD/harness"
	farm=$(mktemp -d "$BUILD/harness/depmod-farm.XXXXXX") || return 1
	kdir=$farm/lib/modules/$KVER
	mkdir -p "$kdir/updates"
	cp -rs "$KROOT/lib/modules/$KVER/kernel" "$kdir/kernel" || { rm -rf "$farm"; return 1; }
	rm -rf "$kdir/kernel/drivers/infiniband"
	for f in modules.order modules.builtin modules.builtin.modinfo; do
		[ -e "$KROOT/lib/modules/$KVER/$f" ] && cp "$KROOT/lib/modules/$KVER/$f" "$kdir/"
	done
	if [ -d "$STAGE/lib/modules/$KVER/updates" ]; then
		cp -a "$STAGE/lib/modules/$KVER/updates/." "$kdir/updates/"
	fi
	if ! depmod -b "$farm" "$KVER" 2>"$BUILD/harness/depmod-$KVER.log"; then
		echo "depmod failed: $(tail -n 3 "$BUILD/harness/depmod-$KVER.log")" >&2
		rm -rf "$farm"
		return 1
	fi
	rm -rf "$out"
	mkdir -p "$out"
	for f in $RDMA_DEPMOD_FILES; do
		[ -e "$kdir/$f" ] && cp "$kdir/$f" "$out/"
	done
	rm -rf "$farm"
	echo "$want" >"$out/inputs"
	echo "$out"
}
