#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages that building, linting and the QEMU tests need,
# only those that are missing.  Quiet unless something is installed.
set -eu

pkgs=(
	gcc make bc kmod xz-utils cpio python3
	linux-image-6.12-amd64 linux-headers-6.12-amd64 linux-source-6.12
	flex bison libelf-dev libssl-dev
	sparse dkms
	clang libclang-rt-14-dev llvm
	qemu-system-x86 busybox-static
	iproute2 rdma-core ibverbs-utils ibverbs-providers rdmacm-utils
	perftest python3-pyverbs tshark
	nvme-cli
)

missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$st" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages (need root to install): ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "deps: done"
