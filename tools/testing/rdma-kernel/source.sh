#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack Debian's linux-source-6.12 once into the tree's cache and print the
# path of the pristine source.  The unpacked tree is keyed by the tarball's
# size and mtime, so a new linux-source package unpacks again and an
# unchanged one costs nothing.  Callers must never write into the pristine
# tree: make hard-linked copies (cp -al) and replace files there with rm + cp,
# never by writing through a link.
#
# Usage: source.sh [CACHE_DIR]
# CACHE_DIR defaults to $RDMA_KERNEL_CACHE, then to TOP/.cache/kernel (several
# work trees of one machine can share one cache through the variable).
set -eu

top=$(cd "$(dirname "$0")/../../.." && pwd -P)
cache=${1:-${RDMA_KERNEL_CACHE:-$top/.cache/kernel}}
tarball=$(ls /usr/src/linux-source-6.12*.tar.xz 2>/dev/null | sort -V | tail -n 1 || true)
if [ -z "$tarball" ]; then
	echo "source.sh: no /usr/src/linux-source-6.12*.tar.xz (make deps installs linux-source-6.12)" >&2
	exit 1
fi

key=$(stat -c '%s-%Y' "$tarball")
dest=$cache/src-$key
if [ -f "$dest/.unpacked" ]; then
	echo "$dest/linux"
	exit 0
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
if [ ! -f "$dest/.unpacked" ]; then
	rm -rf "$dest" "$cache"/src-*
	mkdir -p "$dest"
	echo "source.sh: unpacking ${tarball##*/} into $dest" >&2
	tar -C "$dest" -xJf "$tarball"
	mv "$dest"/linux-source-* "$dest/linux"
	touch "$dest/.unpacked"
fi
echo "$dest/linux"
