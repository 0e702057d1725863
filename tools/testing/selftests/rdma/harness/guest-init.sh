#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of a harness guest once the initramfs has chrooted into the host's
# root (9p, read-only, tmpfs overlay).  The variables of guest.env arrive in
# the environment.  It mounts the usual pseudo file systems, brings the NIC
# up, prepares the RDMA stack (project or stock), runs
#     bash TEST guest ROLE
# with the test's environment, stores its output and exit code in $RESULTS
# (the writable 9p share) and powers the guest off.

set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LC_ALL=C.UTF-8 SHELL=/bin/bash

T0=$(cut -d' ' -f1 /proc/uptime)

log() { echo "# guest-init: $*"; }

finish() {
	local rc=$1

	# Let tee write out the last lines before the exit code marks the end.
	exec >/dev/console 2>&1
	wait "$TEE_PID" 2>/dev/null
	# A kernel with kmemleak (make debug-kernel) scans once the test is
	# over: run_tests.sh fails the test on a leak of an RDMA module.
	if [ -e /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak
		cat /sys/kernel/debug/kmemleak >"$RESULTS/kmemleak.txt" 2>&1
	fi
	dmesg >"$RESULTS/dmesg.txt" 2>&1
	echo "$rc" >"$RESULTS/exit_code"
	sync
	/bin/busybox poweroff -f
	sleep 5
	echo o >/proc/sysrq-trigger
	sleep 60
}

[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
# The output of setup and test goes to the console and to output.log.
exec > >(tee -a "$RESULTS/output.log") 2>&1
TEE_PID=$!

mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /run/lock
# /tmp stays the host's, seen through the overlay, so a STAGE under /tmp works.
mkdir -p /dev/pts /dev/shm
mount -t devpts -o gid=5,mode=620 devpts /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
# debugfs: kmemleak and the fault-injection knobs of the debug kernel.
mount -t debugfs debugfs /sys/kernel/debug
hostname "vm-$RDMA_ROLE"

if [ "$(uname -r)" != "$KVER" ]; then
	log "booted kernel $(uname -r) is not KVER=$KVER"
	finish 1
fi

# A kernel built by make debug-kernel keeps its modules in the build cache
# (KROOT), not in the host's /lib/modules: show them at the usual place.
# The root is an overlay on a read-only share, so nothing done to them
# here reaches the host.
if [ -n "${KROOT:-}" ]; then
	mkdir -p "/lib/modules/$KVER"
	mount --bind "$KROOT/lib/modules/$KVER" "/lib/modules/$KVER" || {
		log "cannot bind $KROOT/lib/modules/$KVER"
		finish 1
	}
fi

# The NIC: the first virtio-net interface.
NETDEV=
for _ in $(seq 50); do
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] || continue
		NETDEV=${d##*/}
		break 2
	done
	sleep 0.1
done
ip link set lo up
if [ -z "$NETDEV" ]; then
	log "no virtio-net interface"
	finish 1
fi
ip link set "$NETDEV" up
ip addr add "$MY_IP/24" dev "$NETDEV"
MY_MAC=$(cat "/sys/class/net/$NETDEV/address")
export NETDEV MY_MAC

setup_project() {
	local kdir=/lib/modules/$KVER staged=$STAGE/lib/modules/$KVER/updates t

	# Debian's inbox RDMA stack must not be loadable: drop it from the overlay.
	rm -rf "$kdir/kernel/drivers/infiniband"
	mkdir -p "$kdir/updates"
	if [ -n "$(find "$staged" -name '*.ko' 2>/dev/null | head -n 1)" ]; then
		cp -a "$staged/." "$kdir/updates/"
		log "project stack: $(find "$kdir/updates" -name '*.ko' | wc -l) staged modules from $staged"
	else
		log "project stack: no staged modules under $staged (run make stage)"
	fi
	if [ -n "${DEPMOD_DIR:-}" ] && [ -s "$DEPMOD_DIR/modules.dep" ]; then
		# The index the host made for exactly this tree (harness/depmod.sh).
		cp "$DEPMOD_DIR"/modules.* "$kdir/"
	else
		# Slow under TCG: over a minute for Debian's ~4000 modules.
		t=$(cut -d' ' -f1 /proc/uptime)
		if ! depmod -a "$KVER" 2>"$RESULTS/depmod.log"; then
			log "depmod failed: $(head -n 3 "$RESULTS/depmod.log")"
			return 1
		fi
		log "depmod took $(echo "$(cut -d' ' -f1 /proc/uptime) $t" | awk '{printf "%.1f", $1 - $2}') s"
	fi
}

setup_stock() {
	# Stock rdma_rxe fails with "failed to init crc32 algorithm" without it.
	modprobe crc32_generic
}

case "$RDMA_STACK" in
project) setup_project ;;
stock) setup_stock ;;
*) log "unknown RDMA_STACK '$RDMA_STACK'"; false ;;
esac || {
	log "stack setup failed"
	finish 1
}

log "role $RDMA_ROLE stack $RDMA_STACK netdev $NETDEV $MY_IP ($MY_MAC), ready after $(echo "$(cut -d' ' -f1 /proc/uptime) $T0" | awk '{printf "%.1f s (+%.1f s in chroot)", $1, $1 - $2}')"

cd "$REPO" || finish 1
bash "$RDMA_TEST_SCRIPT" guest "$RDMA_ROLE" </dev/null
rc=$?
log "test exited with $rc"
finish "$rc"
