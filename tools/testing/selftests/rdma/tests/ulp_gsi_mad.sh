#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Management datagrams between our GSI QP (QP 1) and the MAD layer of a
# stock guest, on the wire as RoCE v2: the kernel test ULP
# (ulp/rdma_ud_ulp.c, mode=mad) on guest a, our stack, makes the GSI QP
# and sends GET requests of a management class nothing on guest b claims
# to b's QP 1, over IPv4 and then IPv6 (link-local) GIDs.  Stock's MAD
# layer answers each unclaimed GET itself: the request back, method
# GET_RESP, status 0x000C.  Every request must get that answer, from QP 1,
# on our QP 1: our QP 1 sends what stock's accepts (its Q_Key, P_Key,
# source QP) and takes in what stock's sends.  Guest b only adds rxe0.
# The host checks the capture: every request and answer is a UD SEND-only
# packet from QP 1 to QP 1 with the GSI Q_Key 0x80010000, none malformed,
# every ICRC right.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

MAD_COUNT=${ULP_COUNT:-16}
MAD_PORT=19000

# mad_round FAMILY: COUNT GETs to the peer's QP 1 and their answers.
mad_round() {
	local fam=$1 dest=$PEER_IP

	[ "$fam" = ipv6 ] && dest=$(mac_to_ll "$PEER_MAC")
	run_ktap_module rdma_ud_ulp mode=mad gid="$fam" dest="$dest" \
		dmac="$PEER_MAC" count="$MAD_COUNT"
	cp "$RESULTS/rdma_ud_ulp.dmesg" "$RESULTS/mad-$fam.dmesg"
	dmesg -C
}

guest_a() {
	setup || return
	wait_for_peer_tcp "$PEER_IP" "$MAD_PORT" 60 ||
		ktap_fail "guest b has rxe0" "no word on $PEER_IP:$MAD_PORT"
	mad_round ipv4
	mad_round ipv6
	# Done: b may go.
	wait_for_peer_tcp "$PEER_IP" $((MAD_PORT + 1)) 30
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
	check_modules_unload
}

guest_b() {
	setup || return
	timeout "$(scaled 60)" busybox nc -l -p "$MAD_PORT" </dev/null >/dev/null
	timeout "$(scaled 180)" busybox nc -l -p $((MAD_PORT + 1)) </dev/null >/dev/null
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
}

host_phase() {
	local pcap=$1/wire.pcap want=$((4 * MAD_COUNT)) bad

	roce_count_is "$pcap" "$want" "RoCE packets: a request and an answer per GET" \
		'udp.dstport == 4791'
	roce_count_is "$pcap" "$want" \
		"each a UD SEND from QP 1 to QP 1 with the GSI Q_Key and the default P_Key" \
		'udp.dstport == 4791 && infiniband.bth.opcode == 100 &&
		 infiniband.bth.destqp == 1 && infiniband.deth.srcqp == 1 &&
		 infiniband.deth.q_key == 0x80010000 && infiniband.bth.p_key == 0xffff'
	roce_count_is "$pcap" $((2 * MAD_COUNT)) "half of them over IPv6" \
		'udp.dstport == 4791 && ipv6'
	bad=$(roce_flagged "$pcap" '!(ipv6.src == fe80::5054:ff:fe00:2 && udp.checksum == 0)')
	if [ "$bad" = 0 ]; then
		ktap_ok "no malformed or flagged RoCE packet (the stock guest's zero IPv6 checksums apart)"
	else
		ktap_fail "no malformed or flagged RoCE packet" "$bad flagged"
	fi
	ulp_icrc_check "$1" "$want"
}

rdma_test_main "$@"
