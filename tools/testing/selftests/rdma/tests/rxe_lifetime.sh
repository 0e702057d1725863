#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Object lifetimes of our rdma_rxe when its device goes away under users.
# Guest a runs our stack, guest b the stock one with the test ULP
# (rdma_ud_ulp) echoing UD datagrams.
#
#  1. rxe0 on eth0; kernel ULPs hold objects on it: rdma_obj_ulp a PD, CQ,
#     QP (with receives posted) and MR, rdma_ud_ulp (send mode) a PD, two
#     CQs, a QP and an AH it is sending through, to b.  While datagrams
#     flow, "rdma link delete rxe0".
#  2. rxe1 on a macvlan over eth0 (the guest keeps its link), the same
#     ULPs, datagrams flowing through it; then "ip link del" of the macvlan.
#  3. rxe2 on eth0, the same again; then "rmmod rdma_rxe".
#
# Each time: the deletion (or unload) returns, the ULPs let go of everything (their
# remove callbacks), rdma_rxe reports 0 verbs objects left when it frees
# the device, "rdma res show" had the objects before and lists nothing
# after, the netdev is not left waiting for references; in the end the
# modules unload (check_modules_unload) and the kernel log is clean.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 400

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

LPORT=18800
MV=mv0
MV_IP=10.0.0.11
MV_MAC=52:54:00:00:01:01

# rcvd DEV: its rcvd_pkts counter
rcvd() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/rcvd_pkts" 2>/dev/null || echo 0
}

rcvd_above() {
	[ "$(rcvd "$1")" -gt "$2" ]
}

# hold DEV DEST DMAC DQPN: load both ULPs on DEV, sending to DQPN at DEST
hold() {
	local dev=$1 dest=$2 dmac=$3 dqpn=$4 ko counts

	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_obj_ulp.ko | head -n 1)
	ktap_check "$dev: rdma_obj_ulp holds a PD, CQ, QP and MR" \
		insmod "$ko" ibdev="$dev" recvs=8 || return 1
	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	ktap_check "$dev: rdma_ud_ulp sends to $dest through an AH" \
		insmod "$ko" mode=send ibdev="$dev" dest="$dest" dmac="$dmac" \
		dqpn="$dqpn" count=100000 size=256 || return 1
	if retry_until 30 rcvd_above "$dev" 20; then
		ktap_ok "$dev: UD traffic flows ($(rcvd "$dev") packets received)"
	else
		ktap_fail "$dev: UD traffic flows" "rcvd_pkts $(rcvd "$dev")"
	fi
	rdma res show >"$RESULTS/res-$dev.txt" 2>&1
	counts=$(rdma_res_counts "$dev" pd cq qp mr)
	if [[ "$counts" =~ ^pd=([0-9]+)\ cq=([0-9]+)\ qp=([0-9]+)\ mr=([0-9]+)$ ]] &&
		[ "${BASH_REMATCH[1]}" -ge 2 ] && [ "${BASH_REMATCH[2]}" -ge 3 ] &&
		[ "${BASH_REMATCH[3]}" -ge 2 ] && [ "${BASH_REMATCH[4]}" -ge 1 ]; then
		ktap_ok "$dev: objects live: $(tr '\n' ' ' <"$RESULTS/res-$dev.txt")"
	else
		ktap_fail "$dev: objects live" "$(tr '\n' ' ' <"$RESULTS/res-$dev.txt")"
	fi
}

# gone DEV MARK: after the device was deleted
gone() {
	local dev=$1 mark=$2 out

	if retry_until 60 rxe_released_clean "$mark" "$dev"; then
		ktap_ok "$dev: freed with 0 verbs objects left"
	else
		ktap_fail "$dev: freed with 0 verbs objects left" \
			"$(kmsg_since "$mark" | grep 'rdma_rxe:.*released' | tail -n 1)"
	fi
	if [ -e "/sys/class/infiniband/$dev" ] || rdma res show 2>/dev/null | grep -q "$dev"; then
		ktap_fail "$dev: gone from sysfs and rdma res show" "$(rdma res show 2>&1)"
	else
		ktap_ok "$dev: gone from sysfs and rdma res show"
	fi
	out=$(kmsg_since "$mark" | grep 'rdma_ud_ulp: pass:' | tail -n 1)
	ktap_diag "$dev: the sender ended with: ${out:-nothing}"
	ktap_check "$dev: rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	ktap_check "$dev: rmmod rdma_obj_ulp" rmmod rdma_obj_ulp
	out=$(kmsg_since "$mark" | grep -E 'waiting for .* to become free|unregister_netdevice' | head -n 2)
	if [ -z "$out" ]; then
		ktap_ok "$dev: no netdev left waiting for references"
	else
		ktap_fail "$dev: no netdev left waiting for references" "$out"
	fi
}

guest_a() {
	local qpn="" end=$((SECONDS + $(scaled 240))) t

	setup || return
	while [ -z "$qpn" ] && [ "$SECONDS" -lt "$end" ]; do
		qpn=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$LPORT" 2>/dev/null)
		[ -n "$qpn" ] || sleep 0.5
	done
	if [ -z "$qpn" ]; then
		ktap_fail "echo QP number from b" "nothing on $PEER_IP:$LPORT"
		return
	fi
	kmsg_mark "lifetime start"

	# 1. rdma link delete under live objects and traffic
	hold rxe0 "$PEER_IP" "$PEER_MAC" "$qpn" || return
	kmsg_mark "link del rxe0"
	t=$SECONDS
	ktap_check "rdma link delete rxe0 with live objects and traffic" \
		timeout "$(scaled 60)" rdma link delete rxe0
	ktap_diag "rdma link delete took $((SECONDS - t)) s"
	gone rxe0 "link del rxe0"

	# 2. ip link del of the netdev under traffic.  Only the macvlan may
	# answer ARP for its address, or b's replies would reach eth0.
	sysctl -qw net.ipv4.conf.all.arp_ignore=1 net.ipv4.conf."$NETDEV".arp_ignore=1
	ktap_check "macvlan $MV over $NETDEV" ip link add "$MV" link "$NETDEV" \
		address "$MV_MAC" type macvlan mode bridge || return
	ip addr add "$MV_IP/24" dev "$MV"
	ip link set "$MV" up
	ktap_check "rdma link add rxe1 type rxe netdev $MV" \
		rdma link add rxe1 type rxe netdev "$MV" || return
	retry_until 10 grep -q ffff /sys/class/infiniband/rxe1/ports/1/gids/*
	hold rxe1 "$PEER_IP" "$PEER_MAC" "$qpn" || return
	kmsg_mark "ip link del $MV"
	t=$SECONDS
	ktap_check "ip link del $MV with live objects and traffic" \
		timeout "$(scaled 60)" ip link del "$MV"
	ktap_diag "ip link del took $((SECONDS - t)) s"
	gone rxe1 "ip link del $MV"

	# 3. module unload under live objects and traffic
	ktap_check "rdma link add rxe2 type rxe netdev $NETDEV" \
		rdma link add rxe2 type rxe netdev "$NETDEV" || return
	retry_until 10 grep -q ffff /sys/class/infiniband/rxe2/ports/1/gids/*
	hold rxe2 "$PEER_IP" "$PEER_MAC" "$qpn" || return
	kmsg_mark "rmmod rdma_rxe"
	t=$SECONDS
	ktap_check "rmmod rdma_rxe with live objects and traffic" \
		timeout "$(scaled 60)" rmmod rdma_rxe
	ktap_diag "rmmod rdma_rxe took $((SECONDS - t)) s"
	gone rxe2 "rmmod rdma_rxe"

	# b may stop now.
	timeout "$(scaled 60)" busybox nc -l -p $((LPORT + 1)) </dev/null >/dev/null

	ktap_log_clean "kernel log clean" < <(kmsg_since "lifetime start")
	check_modules_unload
}

guest_b() {
	local ko qpn

	setup || return
	ko=$(find "$(ulp_stage)/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	ktap_check "insmod rdma_ud_ulp mode=echo" insmod "$ko" mode=echo || return
	qpn=$(cat /sys/module/rdma_ud_ulp/parameters/qpn)
	echo "$qpn" | timeout "$(scaled 240)" busybox nc -l -p "$LPORT" >/dev/null
	# until a is done with both deletions
	retry_until 300 wait_for_peer_tcp "$PEER_IP" $((LPORT + 1)) 5
	ktap_check "rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	ktap_diag "$(dmesg | grep 'rdma_ud_ulp.*echoed' | tail -n 1)"
	check_modules_unload
}

rdma_test_main "$@"
