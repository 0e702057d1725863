# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Builds (and caches) the guest initramfs: static busybox, harness/init and
# the decompressed .ko files that init loads before it can reach the host's
# root over 9p.  Sourced after common.sh.
#
# rdma_initramfs       prints the path of an up-to-date initramfs for $KVER,
#                      rebuilding it only when one of its inputs changed.

# Modules init needs, in the order modprobe would load them.
RDMA_INITRAMFS_MODULES="virtio_net 9pnet_virtio 9p overlay"

# The .ko(.xz) files for RDMA_INITRAMFS_MODULES with their dependencies.
_rdma_initramfs_kos() {
	local m

	for m in $RDMA_INITRAMFS_MODULES; do
		modprobe -S "$KVER" -d "${KROOT:-/}" --show-depends "$m" || return 1
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

rdma_initramfs() {
	local dir="$BUILD/harness" out stamp want kos ko tmp n name busybox

	busybox=$(command -v busybox) || { echo "no busybox" >&2; return 1; }
	kos=$(_rdma_initramfs_kos) || { echo "modprobe cannot resolve: $RDMA_INITRAMFS_MODULES" >&2; return 1; }
	out="$dir/initramfs-$KVER.cpio.gz"
	stamp="$out.inputs"
	# Everything the image is made of: the recipe, init, busybox, the modules.
	want=$( {
		sha256sum "$RDMA_HARNESS_DIR/init" "${BASH_SOURCE[0]}" "$busybox"
		for ko in $kos; do stat -c '%n %s %Y' "$ko"; done
	} | sha256sum | cut -d' ' -f1)
	if [ -s "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
		echo "$out"
		return 0
	fi

	mkdir -p "$dir"
	tmp=$(mktemp -d "$dir/initramfs.XXXXXX")
	mkdir -p "$tmp"/{bin,dev,proc,sys,lower,rw,newroot,out,modules}
	cp "$busybox" "$tmp/bin/busybox"
	for name in $("$busybox" --list); do
		[ "$name" = busybox ] || ln -s busybox "$tmp/bin/$name"
	done
	cp "$RDMA_HARNESS_DIR/init" "$tmp/init"
	chmod 755 "$tmp/init"
	n=0
	# Empty when the kernel has them all built in.
	: >"$tmp/modules/load.order"
	for ko in $kos; do
		n=$((n + 1))
		name=$(printf '%02d-%s' "$n" "$(basename "${ko%.xz}")")
		case "$ko" in
		*.xz) xz -dc "$ko" >"$tmp/modules/$name" ;;
		*.zst) zstd -qdc "$ko" >"$tmp/modules/$name" ;;
		*) cp "$ko" "$tmp/modules/$name" ;;
		esac || { rm -rf "$tmp"; return 1; }
		echo "$name" >>"$tmp/modules/load.order"
	done
	(cd "$tmp" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0) |
		gzip -1 >"$out.new" || { rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	mv "$out.new" "$out"
	echo "$want" >"$stamp"
	echo "$out"
}
