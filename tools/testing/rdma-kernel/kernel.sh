#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the guests' own Linux 6.12 kernel from Debian's linux-source-6.12:
# x86_64_defconfig, trimmed to what the guests use (guest.config), and for
# the debug flavour the checkers of debug.config on top.  The source's own
# drivers/infiniband is built as modules: that is the stock RDMA stack of
# this kernel, and our modules are built against its build tree the way
# they are built against Debian's headers (make KDIR=...).
#
# The result is cached under a key made of the source, the config
# fragments and RECIPE below; a second call with the same inputs prints the
# same paths at once.  Bump RECIPE when a change here changes what is built.
#
# Usage: kernel.sh debug|plain
# Prints, on its last line: KDIR=... KROOT=... KVER=...
#   KDIR   the build tree (make -C KDIR M=...)
#   KROOT  a root holding boot/vmlinuz-KVER and lib/modules/KVER
set -eu

flavour=${1:-}
case "$flavour" in
debug | plain) ;;
*) echo "usage: $0 debug|plain" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd -P)
top=$(cd "$here/../../.." && pwd -P)
cache=${RDMA_KERNEL_CACHE:-$top/.cache/kernel}
jobs=${JOBS:-$(nproc)}
RECIPE=1

for c in flex bison bc gcc make perl; do
	command -v "$c" >/dev/null || { echo "kernel.sh: missing $c (make deps)" >&2; exit 1; }
done
for h in /usr/include/libelf.h /usr/include/openssl/ssl.h; do
	[ -r "$h" ] || { echo "kernel.sh: missing $h (make deps: libelf-dev, libssl-dev)" >&2; exit 1; }
done

src=$("$here/source.sh" "$cache")
frags=("$here/guest.config")
[ "$flavour" = debug ] && frags+=("$here/debug.config")
key=$( {
	echo "${src%/linux} recipe $RECIPE"
	cat "${frags[@]}"
} | sha256sum | cut -c1-16)
dir=$cache/kernel-$flavour-$key
obj=$dir/obj
root=$dir/root

print_result() {
	local kver

	kver=$(cat "$dir/kver")
	echo "KDIR=$obj KROOT=$root KVER=$kver"
}

if [ -f "$dir/.done" ]; then
	echo "kernel.sh: $flavour kernel $(cat "$dir/kver"): cached in $dir" >&2
	print_result
	exit 0
fi

mkdir -p "$cache"
exec 8>"$cache/.kernel-$flavour.lock"
flock 8
if [ ! -f "$dir/.done" ]; then
	start=$SECONDS
	rm -rf "$dir"
	mkdir -p "$obj" "$root/boot"
	log=$dir/build.log
	echo "kernel.sh: building the $flavour kernel in $dir (log: $log)" >&2

	# Every option a fragment asks for must survive olddefconfig: a checker
	# that silently fell out would make a clean run mean nothing.
	{
		make -C "$src" O="$obj" x86_64_defconfig
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}"
		make -C "$src" O="$obj" LOCALVERSION="-rdma-$flavour" olddefconfig
	} >"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
	bad=$(grep -hE '^CONFIG_[A-Z0-9_]+=' "${frags[@]}" | while IFS='=' read -r sym val; do
		case "$val" in
		n) grep -qx "# $sym is not set" "$obj/.config" || ! grep -q "^$sym=" "$obj/.config" || echo "$sym=n" ;;
		*) grep -qxF "$sym=$val" "$obj/.config" || echo "$sym=$val (got: $(grep "^$sym=" "$obj/.config" || echo unset))" ;;
		esac
	done)
	if [ -n "$bad" ]; then
		echo "kernel.sh: options the configuration did not keep:" >&2
		sed 's/^/  /' <<<"$bad" >&2
		exit 1
	fi

	if ! make -C "$src" O="$obj" LOCALVERSION="-rdma-$flavour" -j"$jobs" bzImage modules >>"$log" 2>&1; then
		grep -m 5 -E 'error:|Error [0-9]' "$log" >&2 || tail -n 20 "$log" >&2
		exit 1
	fi
	kver=$(make -s -C "$src" O="$obj" LOCALVERSION="-rdma-$flavour" kernelrelease)
	make -C "$src" O="$obj" LOCALVERSION="-rdma-$flavour" INSTALL_MOD_PATH="$root" \
		modules_install >>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
	cp "$obj/arch/x86/boot/bzImage" "$root/boot/vmlinuz-$kver"
	echo "$kver" >"$dir/kver"
	echo "$((SECONDS - start))" >"$dir/build-seconds"
	touch "$dir/.done"
	# Older builds of this flavour are of no use any more.
	for old in "$cache/kernel-$flavour"-*; do
		[ "$old" = "$dir" ] || rm -rf "$old"
	done
	echo "kernel.sh: $flavour kernel $kver built in $((SECONDS - start)) s" >&2
fi
print_result
