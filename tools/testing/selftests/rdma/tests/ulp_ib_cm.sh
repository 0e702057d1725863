#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC connections between the InfiniBand connection managers of two guests,
# ours (ib_cm of this tree) on a and stock's on b, made with REQ, REP and
# RTU in MADs on QP 1 and ended with DREQ and DREP.  The kernel test ULP
# (ulp/rdma_ibcm_ulp.c, the same source built for either stack) connects,
# sends SENDs the server echoes, checks each echo and disconnects:
#   1  a connects to b twice over IPv4, 2  b to a
#   3  a connects to b over IPv6 (link-local GIDs), 4  b to a
#   5  a asks for a service nobody on b listens on: stock's REJ 8
#   6  b does the same to a: our REJ 8
#   7  b's server refuses: a gets REJ 28 with the server's private data
#   8  a's server refuses: b gets ours
#   9  b's CM is gone (ib_cm unloaded): a's REQ goes out 1 + 2 times,
#      unanswered, and ends with IB_CM_REQ_ERROR
# Guest a then checks its counters (sysfs cm_tx_msgs, cm_tx_retries,
# cm_rx_msgs; debugfs ib_cm/drops: nothing dropped), and the host checks
# the capture: every CM message decodes, the REJ reasons are the ones above.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

CM_CONNS=2
CM_COUNT=${ULP_COUNT:-100}
CM_PORT=19100
CM_SID_NONE=0x0000000001060999

cm_barrier() {
	rdma_barrier $((CM_PORT + $1)) "$(scaled 200)"
}

# cm_dest FAMILY: the peer's address of that family.
cm_dest() {
	if [ "$1" = ipv6 ]; then
		mac_to_ll "$PEER_MAC"
	else
		echo "$PEER_IP"
	fi
}

# cm_client NAME FAMILY EXPECT [PARAM=VALUE...]
cm_client() {
	local name=$1 fam=$2 expect=$3

	shift 3
	KTAP_MODULE_TIMEOUT=$(scaled 200) run_ktap_module rdma_ibcm_ulp \
		mode=client gid="$fam" dest="$(cm_dest "$fam")" \
		dmac="$PEER_MAC" expect="$expect" "$@"
	cp "$RESULTS/rdma_ibcm_ulp.dmesg" "$RESULTS/cm-client-$name.dmesg"
}

# cm_server NAME BARRIER [PARAM=VALUE...]: serve until the peer's client,
# started after BARRIER, is done.
cm_server() {
	local name=$1 barrier=$2

	shift 2
	KTAP_MODULE_TIMEOUT=$(scaled 200) ktap_module_begin rdma_ibcm_ulp \
		mode=server wait="$(scaled 150)" "$@" || return
	cm_barrier "$barrier"
	ktap_module_end rdma_ibcm_ulp
	cp "$RESULTS/rdma_ibcm_ulp.dmesg" "$RESULTS/cm-server-$name.dmesg"
}

cm_setup() {
	setup || return
	ktap_check "modprobe ib_cm" modprobe ib_cm
}

# cm_is WHAT GOT WANT
cm_is() {
	if [ "$2" = "$3" ]; then
		ktap_ok "$1: $2"
	else
		ktap_fail "$1" "got $2, want $3"
	fi
}

# cm_counted: what guest a's CM counted on rxe0 port 1.
cm_counted() {
	local d=/sys/class/infiniband/rxe0/ports/1 f got

	# Phase 9: the REQ and its two retransmissions.
	got=$(cat "$d/cm_tx_retries/req")
	if [ "$got" -ge 2 ]; then
		ktap_ok "cm_tx_retries/req counts the unanswered REQ's resends ($got)"
	else
		ktap_fail "cm_tx_retries/req counts the unanswered REQ's resends" "got $got"
	fi
	# Sent: a REQ per client connection of a (phases 1, 3, 5, 7, 9 with
	# its resends), a REP per connection it accepted (2, 4).
	cm_is cm_tx_msgs/req "$(cat "$d/cm_tx_msgs/req")" $((CM_CONNS + 1 + 1 + 1 + 3))
	for f in cm_tx_msgs/rep cm_rx_msgs/rtu cm_rx_msgs/dreq; do
		cm_is "$f" "$(cat "$d/$f")" $((CM_CONNS + 1))
	done
	cm_is "cm_rx_msgs/rej (phases 5 and 7)" "$(cat "$d/cm_rx_msgs/rej")" 2
	cm_is "nothing dropped" "$(grep '^rxe0 1 ' /sys/kernel/debug/ib_cm/drops)" \
		"rxe0 1 unknown=0 malformed=0 no_id=0 state=0 no_route=0 nomem=0"
}

guest_a() {
	cm_setup || return
	if [ -e /sys/module/ib_cm/version ]; then
		ktap_ok "ib_cm is this tree's ($(cat /sys/module/ib_cm/version))"
	else
		ktap_fail "ib_cm is this tree's" "no version: the inbox module"
	fi
	cm_barrier 0
	cm_barrier 1
	cm_client connect-v4 ipv4 connect conns="$CM_CONNS" count="$CM_COUNT"
	cm_server connect-v4 2 conns="$CM_CONNS"
	cm_barrier 3
	cm_client connect-v6 ipv6 connect count="$CM_COUNT"
	cm_server connect-v6 4
	cm_client noservice ipv4 noservice sid="$CM_SID_NONE"
	cm_barrier 5
	cm_barrier 6
	cm_barrier 7
	cm_client reject ipv4 reject
	cm_server reject 8 reject=1
	cm_barrier 9
	cm_client unreachable ipv4 unreachable cm_retries=2 cm_timeout=16
	cm_counted
	cm_barrier 10
	check_modules_unload
}

# Each server is up before the barrier its peer's client waits at.
guest_b() {
	cm_setup || return
	cm_barrier 0
	cm_server connect-v4 1 conns="$CM_CONNS"
	cm_barrier 2
	cm_client connect-v4 ipv4 connect conns="$CM_CONNS" count="$CM_COUNT"
	cm_server connect-v6 3
	cm_barrier 4
	cm_client connect-v6 ipv6 connect count="$CM_COUNT"
	cm_barrier 5
	cm_client noservice ipv4 noservice sid="$CM_SID_NONE"
	cm_barrier 6
	cm_server reject 7 reject=1
	cm_barrier 8
	cm_client reject ipv4 reject
	ktap_check "rmmod ib_cm" rmmod ib_cm
	cm_barrier 9
	cm_barrier 10
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
}

host_phase() {
	local pcap=$1/wire.pcap bad

	roce_count_is "$pcap" 2 "REJ 8 (invalid service ID), one each way" \
		'udp.dstport == 4791 && infiniband.cm.rej.reason == 8'
	roce_count_is "$pcap" 2 "REJ 28 (consumer defined), one each way" \
		'udp.dstport == 4791 && infiniband.cm.rej.reason == 28'
	roce_count_is "$pcap" $((2 * (CM_CONNS + 1))) "an RTU per connection" \
		'udp.dstport == 4791 && infiniband.mad.attributeid == 0x0014'
	roce_count_is "$pcap" $((2 * (CM_CONNS + 1))) "a DREP per connection" \
		'udp.dstport == 4791 && infiniband.mad.attributeid == 0x0016'
	bad=$(roce_flagged "$pcap" '!(ipv6.src == fe80::5054:ff:fe00:2 && udp.checksum == 0)')
	if [ "$bad" = 0 ]; then
		ktap_ok "no malformed or flagged RoCE packet (the stock guest's zero IPv6 checksums apart)"
	else
		ktap_fail "no malformed or flagged RoCE packet" "$bad flagged"
	fi
}

rdma_test_main "$@"
