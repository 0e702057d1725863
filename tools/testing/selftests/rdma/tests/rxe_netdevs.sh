#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rxe on every kind of netdev stock rxe takes, on the project's stack, one
# guest.  For veth, dummy, tun (L3, no MAC, carrier from a process holding
# it), macvlan and bond:
#   - "rdma link add" on it; the GID of its IPv4 address shows up
#   - Debian's rping to that address (loopback: both ends on the device),
#     5 verified iterations
#   - the PMA counters (ports/1/counters): the 21 files of a port with
#     extended counters; port_xmit_data = port_rcv_data > 0 and
#     port_xmit_packets = port_rcv_packets after the loopback traffic;
#     port_xmit_data is hw_counters/sent_bytes / 4; the multicast
#     counters stay 0 and every packet counts as unicast
#   - "rdma link delete" removes the device and leaves the netdev; added
#     again, the device goes when the netdev goes
# VLAN: "rdma link add" on a VLAN is refused with EPERM, as stock rxe
# refuses it; the VLAN's address is a GID of the rxe device of the netdev
# below (its ndev the VLAN), rping over it works, and deleting the VLAN
# takes the GID away and leaves the device.
# Then every RDMA module unloads and the kernel log is clean.
#
# vms: 1
# stack-a: project
# timeout: 420

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/prog.sh
. "$(dirname "$0")/../harness/prog.sh"

# The files of ports/<p>/counters when the PMA offers 64-bit counters.
PMA_FILES=(VL15_dropped excessive_buffer_overrun_errors link_downed
link_error_recovery local_link_integrity_errors multicast_rcv_packets
multicast_xmit_packets port_rcv_constraint_errors port_rcv_data
port_rcv_errors port_rcv_packets port_rcv_remote_physical_errors
port_rcv_switch_relay_errors port_xmit_constraint_errors port_xmit_data
port_xmit_discards port_xmit_packets port_xmit_wait symbol_error
unicast_rcv_packets unicast_xmit_packets)
TUN_PID=

# v4_gid ADDR: the IPv4-mapped GID of ADDR as sysfs prints it.
v4_gid() {
	local a b c d

	IFS=. read -r a b c d <<<"$1"
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$a" "$b" "$c" "$d"
}

# has_gid DEV ADDR: DEV's GID table holds ADDR's GID.
has_gid() {
	grep -qx "$(v4_gid "$2")" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}

# gid_ndev DEV ADDR: the netdev of DEV's GID entry for ADDR.
gid_ndev() {
	local f want

	want=$(v4_gid "$2")
	for f in /sys/class/infiniband/"$1"/ports/1/gids/*; do
		if [ "$(cat "$f" 2>/dev/null)" = "$want" ]; then
			cat "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/${f##*/}" 2>/dev/null
			return
		fi
	done
}

dev_exists() {
	rdma dev show "$1" >/dev/null 2>&1
}

dev_gone() {
	! dev_exists "$1"
}

no_gid() {
	! has_gid "$@"
}

# loop_rping NAME ADDR PORT: rping's server and client on ADDR, 5
# verified iterations.
loop_rping() {
	local name=$1 pid

	prog_start "$name-server" rping -s -a "$2" -p "$3" -v
	pid=$PROG_PID
	retry_until 30 cm_listening "$3" || ktap_diag "$name: the server does not listen after 30 s"
	prog_start "$name-client" rping -c -a "$2" -p "$3" -C 5 -V -v
	prog_check "$name-client" "$PROG_PID" 60 '^ping data: rdma-ping-' 5
	prog_check "$name-server" "$pid" 30 '^server ping data: rdma-ping-' 5
}

pma() {
	cat "/sys/class/infiniband/$1/ports/1/counters/$2"
}

# pma_balanced DEV: after loopback traffic, what DEV sent it received.
pma_balanced() {
	local xd rd xp rp

	xd=$(pma "$1" port_xmit_data) && rd=$(pma "$1" port_rcv_data) &&
		xp=$(pma "$1" port_xmit_packets) && rp=$(pma "$1" port_rcv_packets) &&
		[ "$xd" -gt 0 ] && [ "$xd" = "$rd" ] && [ "$xp" = "$rp" ]
}

# check_pma NAME DEV: the counters files and what they say.
check_pma() {
	local dir=/sys/class/infiniband/$2/ports/1/counters got sent xd xp u mx mr

	got=$(find "$dir" -mindepth 1 -printf '%f\n' 2>&1 | sort | tr '\n' ' ')
	if [ "$got" = "$(printf '%s\n' "${PMA_FILES[@]}" | sort | tr '\n' ' ')" ]; then
		ktap_ok "$1: ports/1/counters has the 21 files of extended counters"
	else
		ktap_fail "$1: ports/1/counters has the 21 files of extended counters" "$got"
	fi
	if retry_until 10 pma_balanced "$2"; then
		ktap_ok "$1: port_xmit_data = port_rcv_data ($(pma "$2" port_rcv_data)), port_xmit_packets = port_rcv_packets ($(pma "$2" port_rcv_packets))"
	else
		ktap_fail "$1: port_xmit_data = port_rcv_data, xmit = rcv packets" \
			"$(grep -H . "$dir"/port_*_data "$dir"/port_*_packets 2>&1 | tr '\n' ' ')"
	fi
	sent=$(cat "/sys/class/infiniband/$2/ports/1/hw_counters/sent_bytes")
	xd=$(pma "$2" port_xmit_data)
	xp=$(pma "$2" port_xmit_packets)
	u=$(pma "$2" unicast_xmit_packets)
	mx=$(pma "$2" multicast_xmit_packets)
	mr=$(pma "$2" multicast_rcv_packets)
	# rping is unicast only: every packet must count as unicast
	if [ "$xd" = $((sent / 4)) ] && [ "$mx" = 0 ] && [ "$mr" = 0 ] &&
		[ "$u" = "$xp" ]; then
		ktap_ok "$1: port_xmit_data = sent_bytes / 4 ($xd); no multicast, all $xp packets unicast"
	else
		ktap_fail "$1: port_xmit_data = sent_bytes / 4; no multicast, all packets unicast" \
			"xmit_data $xd sent_bytes $sent packets $xp unicast $u multicast xmit $mx rcv $mr"
	fi
}

# tun_hold NAME: an L3 tun device NAME, held open (so it has carrier) by a
# background process, TUN_PID; it goes away with that process.
tun_hold() {
	modprobe tun 2>/dev/null
	python3 -c '
import fcntl, os, struct, sys, time
fd = os.open("/dev/net/tun", os.O_RDWR)
# TUNSETIFF with IFF_TUN | IFF_NO_PI
fcntl.ioctl(fd, 0x400454ca, struct.pack("16sH", sys.argv[1].encode(), 0x1001))
print("held", flush=True)
time.sleep(3600)' "$1" >"$RESULTS/tun-$1.log" 2>&1 &
	TUN_PID=$!
	retry_until 10 grep -q held "$RESULTS/tun-$1.log"
}

# make_netdev KIND NAME: create NAME of KIND, up (and what it needs).
make_netdev() {
	case "$1" in
	veth)
		ip link add "$2" type veth peer name "$2p" && ip link set "$2p" up ;;
	dummy)
		ip link add "$2" type dummy ;;
	tun)
		tun_hold "$2" ;;
	macvlan)
		ip link add "$2l" type dummy && ip link set "$2l" up &&
			ip link add "$2" link "$2l" type macvlan mode bridge ;;
	bond)
		modprobe bonding max_bonds=0 &&
			ip link add "$2" type bond mode active-backup &&
			ip link add "$2s" type dummy &&
			ip link set "$2s" master "$2" ;;
	esac || return 1
	ip link set "$2" up
}

# drop_netdev KIND NAME: make NAME go away.
drop_netdev() {
	case "$1" in
	tun)
		kill "$TUN_PID" && wait "$TUN_PID" 2>/dev/null
		TUN_PID= ;;
	macvlan)
		ip link del "$2" && ip link del "$2l" ;;
	bond)
		ip link del "$2" && ip link del "$2s" ;;
	*)
		ip link del "$2" ;;
	esac
}

# one_kind KIND N: the whole round on a netdev of KIND, 10.30.N.1/24.
one_kind() {
	local kind=$1 nd=rn$2 dev=rxe$2 addr=10.30.$2.1

	# not through ktap_check: tun_hold's TUN_PID must reach this shell
	if make_netdev "$kind" "$nd" >"$RESULTS/make-$nd.log" 2>&1 &&
		ip addr add "$addr/24" dev "$nd" >>"$RESULTS/make-$nd.log" 2>&1; then
		ktap_ok "$kind: $nd made, up, $addr"
	else
		ktap_fail "$kind: $nd made, up, $addr" "$(tail -n 3 "$RESULTS/make-$nd.log")"
		return
	fi
	ktap_check "$kind: rdma link add $dev type rxe netdev $nd" \
		rdma link add "$dev" type rxe netdev "$nd" || return
	if retry_until 20 has_gid "$dev" "$addr"; then
		ktap_ok "$kind: $dev has the GID of $addr"
	else
		ktap_fail "$kind: $dev has the GID of $addr" "$(cat /sys/class/infiniband/"$dev"/ports/1/gids/* 2>&1 | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000' | tr '\n' ' ')"
	fi
	loop_rping "$kind-rping" "$addr" $((7500 + $2))
	check_pma "$kind" "$dev"
	ktap_check "$kind: rdma link delete $dev" rdma link delete "$dev"
	if ! dev_exists "$dev" && ip link show "$nd" >/dev/null 2>&1; then
		ktap_ok "$kind: $dev gone, $nd still there"
	else
		ktap_fail "$kind: $dev gone, $nd still there" "$(rdma dev show 2>&1 | tr '\n' ' ')"
	fi
	ktap_check "$kind: rdma link add $dev again" rdma link add "$dev" type rxe netdev "$nd" || return
	ktap_check "$kind: $nd deleted" drop_netdev "$kind" "$nd"
	if retry_until 20 dev_gone "$dev"; then
		ktap_ok "$kind: $dev went with $nd"
	else
		ktap_fail "$kind: $dev went with $nd" "$(rdma link show 2>&1 | tr '\n' ' ')"
	fi
}

# The VLAN round: rxe9 on a dummy, a VLAN on top of it.
vlan_round() {
	local addr=10.30.9.1 out

	ktap_check "vlan: rn9 (dummy) and rn9.7 (VLAN 7 on it), $addr on the VLAN" sh -c "
		ip link add rn9 type dummy && ip link set rn9 up &&
		ip link add link rn9 name rn9.7 type vlan id 7 &&
		ip link set rn9.7 up && ip addr add $addr/24 dev rn9.7" || return
	if out=$(rdma link add rxev type rxe netdev rn9.7 2>&1); then
		ktap_fail "vlan: rdma link add on rn9.7 refused with EPERM" "it was accepted"
		rdma link delete rxev
	elif grep -q "Operation not permitted" <<<"$out"; then
		ktap_ok "vlan: rdma link add on rn9.7 refused with EPERM"
	else
		ktap_fail "vlan: rdma link add on rn9.7 refused with EPERM" "$out"
	fi
	ktap_check "vlan: rdma link add rxe9 type rxe netdev rn9" \
		rdma link add rxe9 type rxe netdev rn9 || return
	if retry_until 20 has_gid rxe9 "$addr" && [ "$(gid_ndev rxe9 "$addr")" = rn9.7 ]; then
		ktap_ok "vlan: rxe9 has the GID of $addr, on rn9.7"
	else
		ktap_fail "vlan: rxe9 has the GID of $addr, on rn9.7" "ndev '$(gid_ndev rxe9 "$addr")'"
	fi
	loop_rping vlan-rping "$addr" 7509
	ktap_check "vlan: rn9.7 deleted" ip link del rn9.7
	if retry_until 20 no_gid rxe9 "$addr" && dev_exists rxe9; then
		ktap_ok "vlan: the GID went with rn9.7, rxe9 stays"
	else
		ktap_fail "vlan: the GID went with rn9.7, rxe9 stays" "$(rdma dev show 2>&1 | tr '\n' ' ')"
	fi
	ktap_check "vlan: rdma link delete rxe9" rdma link delete rxe9
	ip link del rn9
}

guest() {
	local mark="rxe_netdevs $$" kind n=0

	kmsg_mark "$mark"
	if ktap_check "modprobe rdma_rxe ib_uverbs rdma_ucm" modprobe -a rdma_rxe ib_uverbs rdma_ucm; then
		for kind in veth dummy tun macvlan bond; do
			n=$((n + 1))
			one_kind "$kind" "$n"
		done
		vlan_round
	fi
	[ -n "$TUN_PID" ] && kill "$TUN_PID" 2>/dev/null
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
