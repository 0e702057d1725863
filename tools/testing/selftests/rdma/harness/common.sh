# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Host-side settings shared by run_tests.sh, run_demo.sh and the harness
# scripts: where the repository, the build folder, the staged modules and the
# guest kernel are.  Sourced, never run.
#
# Environment (all optional):
#   KVER     guest kernel release (default: newest KROOT/lib/modules/6.12* with build/)
#   KROOT    the root the guest kernel comes from: KROOT/boot/vmlinuz-KVER and
#            KROOT/lib/modules/KVER (default: /, Debian's installed kernel;
#            make check RDMA_KERNEL=debug points it at the debug kernel)
#   STAGE    staged modules root (default: REPO/build/stage), holding
#            lib/modules/$KVER/updates/**/*.ko
#   STAGE_STOCK  the same for stock guests: the test ULP and bench module
#            built against the stock headers (default: REPO/build/stage-stock)
#   STOCK_KVER, STOCK_KROOT  the kernel stock guests boot (default: KVER and
#            KROOT); STAGE_STOCK must be built for it.  make check
#            RDMA_KERNEL=debug sets them to Debian's kernel.
#   BUILD    build folder (default: REPO/build)
#   QEMU     QEMU binary (default: qemu-system-x86_64)
#   VM_MEM   guest memory in MiB (default: 1024)
#   RDMA_GUEST_DEBUG   memory debugging on the guest kernel command line
#            (default: "page_poison=1 slub_debug=FZ"; make bench sets "")
#   RDMA_TEST_ENV  names of more variables to pass to the guests' tests
#            (e.g. RDMA_TEST_ENV=KSFT_PROGS KSFT_PROGS=tests/nldev_netns.sh)
#   RDMA_GUEST_APPEND  more guest kernel command line, for debugging runs
#            (e.g. "slub_debug=FZPU" to also get the allocation tracks)

RDMA_HARNESS_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
RDMA_SELFTEST_DIR=$(cd "$RDMA_HARNESS_DIR/.." && pwd -P)
REPO_ROOT=$(cd "$RDMA_SELFTEST_DIR/../../../.." && pwd -P)
BUILD=${BUILD:-$REPO_ROOT/build}
STAGE=${STAGE:-$REPO_ROOT/build/stage}
STAGE_STOCK=${STAGE_STOCK:-$REPO_ROOT/build/stage-stock}
QEMU=${QEMU:-qemu-system-x86_64}
VM_MEM=${VM_MEM:-1024}
KROOT=${KROOT:-/}
KROOT=${KROOT%/}
RDMA_GUEST_DEBUG=${RDMA_GUEST_DEBUG-page_poison=1 slub_debug=FZ}

# The newest 6.12 kernel that has its headers (a build dir) installed.
rdma_detect_kver() {
	local d best=

	if [ -n "${KVER:-}" ]; then
		echo "$KVER"
		return 0
	fi
	for d in "$KROOT"/lib/modules/6.12*; do
		[ -d "$d/build" ] || continue
		best+="${d##*/}"$'\n'
	done
	best=$(printf '%s' "$best" | sort -V | tail -n 1)
	[ -n "$best" ] || return 1
	echo "$best"
}

KVER=$(rdma_detect_kver) || KVER=
STOCK_KVER=${STOCK_KVER:-$KVER}
STOCK_KROOT=${STOCK_KROOT:-$KROOT}
STOCK_KROOT=${STOCK_KROOT%/}
export KVER KROOT STAGE STAGE_STOCK STOCK_KVER STOCK_KROOT REPO_ROOT BUILD

# Prints why the host cannot boot guests, or nothing when it can.
rdma_host_problems() {
	local c

	[ -n "$KVER" ] || echo "no /lib/modules/6.12* with a build dir (install linux-headers-6.12-amd64, or set KVER)"
	[ -z "$KVER" ] || [ -r "$KROOT/boot/vmlinuz-$KVER" ] || echo "no kernel image $KROOT/boot/vmlinuz-$KVER (install linux-image-6.12-amd64)"
	[ -z "$KVER" ] || [ -d "$KROOT/lib/modules/$KVER/kernel" ] || echo "no $KROOT/lib/modules/$KVER/kernel"
	if [ "$STOCK_KVER" != "$KVER" ] || [ "$STOCK_KROOT" != "$KROOT" ]; then
		[ -r "$STOCK_KROOT/boot/vmlinuz-$STOCK_KVER" ] || echo "no stock guest kernel image $STOCK_KROOT/boot/vmlinuz-$STOCK_KVER"
		[ -d "$STOCK_KROOT/lib/modules/$STOCK_KVER/kernel" ] || echo "no $STOCK_KROOT/lib/modules/$STOCK_KVER/kernel"
	fi
	for c in "$QEMU" busybox cpio xz gzip modprobe depmod ss flock sha256sum; do
		command -v "$c" >/dev/null 2>&1 || echo "missing host command: $c"
	done
	if command -v busybox >/dev/null 2>&1 && ldd "$(command -v busybox)" >/dev/null 2>&1; then
		echo "busybox is dynamically linked: install busybox-static"
	fi
}

# The staged .ko files, one path a line (none when nothing is staged).
rdma_staged_modules() {
	local dir="$STAGE/lib/modules/$KVER/updates"

	[ -d "$dir" ] || return 0
	find "$dir" -name '*.ko' -type f | sort
}

# Quote a value for a KEY='value' line that both busybox sh and bash read.
rdma_shquote() {
	local s=$1

	printf "'%s'" "${s//\'/\'\\\'\'}"
}
