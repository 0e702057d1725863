#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Management datagrams between the MAD layers of two guests, ours on a and
# stock's on b, on the wire as RoCE v2 from QP 1 to QP 1.  The kernel test
# ULP (ulp/rdma_mad_ulp.c, the same source built for either stack)
# registers a MAD agent and sends or answers, over IPv4 and then IPv6
# (link-local) GIDs where a asks, over IPv6 where b does (see below):
#   1  a sends GETs of a class nothing on b takes: stock's MAD layer
#      answers each itself (GET_RESP, status 0x000C), and our MAD layer
#      must match every answer to its send by TID and source GID
#   2  the same from b to a: our MAD layer answers the unclaimed GETs
#   3  b serves the class (an agent answers with the data inverted), a
#      asks: stock dispatches our requests, we match its answers
#   4  a serves, b asks: our dispatch by class, version and method, our
#      AH from the receive completion, stock's matching of our answers
#   5  a sends SENDs nobody answers, 200 ms timeout, 2 retries each: each
#      ends with a response timeout after exactly 3 copies on the wire
# Stock's MAD layer cannot match a response that comes over RoCE v2 on
# IPv4: it compares its source GID with the destination GID field of the
# 40-byte area in front of the MAD, which holds an IPv4 header then (rxe
# puts it in the last 20 bytes), so every such answer, its own included,
# is dropped and the request times out.  Ours reads the address from the
# header the completion says is there; b therefore asks over IPv6 only.
# Guest a then checks what its MAD layer counted (debugfs ib_mad/rxe0/1).
# The host checks the capture: exactly those packets, each a UD SEND from
# QP 1 to QP 1 with the GSI Q_Key and P_Key 0xFFFF, none malformed, every
# ICRC right.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 420

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

MAD_COUNT=${ULP_COUNT:-16}
MAD_SILENT=4
MAD_RETRIES=2
MAD_PORT=19000

# mad_dest FAMILY: the peer's address of that family.
mad_dest() {
	if [ "$1" = ipv6 ]; then
		mac_to_ll "$PEER_MAC"
	else
		echo "$PEER_IP"
	fi
}

# mad_get EXPECT FAMILY...: MAD_COUNT GETs to the peer's QP 1 per family.
mad_get() {
	local expect=$1 fam

	shift
	for fam in "$@"; do
		run_ktap_module rdma_mad_ulp mode=get gid="$fam" expect="$expect" \
			dest="$(mad_dest "$fam")" dmac="$PEER_MAC" \
			count="$MAD_COUNT"
		cp "$RESULTS/rdma_mad_ulp.dmesg" "$RESULTS/mad-get-$expect-$fam.dmesg"
	done
}

# mad_serve BARRIER N: answer the peer's N GETs, telling it through
# BARRIER when the agent is up.
mad_serve() {
	KTAP_MODULE_TIMEOUT=150 ktap_module_begin rdma_mad_ulp mode=serve \
		count="$2" wait="$(scaled 120)" || return
	mad_barrier "$1"
	ktap_module_end rdma_mad_ulp
	cp "$RESULTS/rdma_mad_ulp.dmesg" "$RESULTS/mad-serve.dmesg"
}

# mad_counted: guest a's MAD layer counted every MAD of the phases, the
# unclaimed GETs of phase 2 and the timeouts of phase 5, and dropped none.
mad_counted() {
	local got want

	got=$(tr '\n' ' ' </sys/kernel/debug/ib_mad/rxe0/1)
	want="rx $((6 * MAD_COUNT)) rx_bad 0 rx_unclaimed $MAD_COUNT rx_unmatched 0 rx_nomem 0"
	want+=" tx $((6 * MAD_COUNT + (MAD_RETRIES + 1) * MAD_SILENT)) tx_timeouts $MAD_SILENT "
	if [ "$got" = "$want" ]; then
		ktap_ok "MAD layer counters: $got"
	else
		ktap_fail "MAD layer counters" "got '$got', want '$want'"
	fi
}

mad_barrier() {
	rdma_barrier $((MAD_PORT + $1)) "$(scaled 150)"
}

guest_a() {
	setup || return
	mad_barrier 0
	mad_get unsupported ipv4 ipv6
	mad_barrier 1
	# phase 2: b asks, our MAD layer answers
	mad_barrier 2
	mad_barrier 3
	mad_get answer ipv4 ipv6
	mad_serve 4 "$MAD_COUNT"
	run_ktap_module rdma_mad_ulp mode=silent dest="$PEER_IP" \
		dmac="$PEER_MAC" count="$MAD_SILENT" retries="$MAD_RETRIES" \
		timeout_ms=200
	cp "$RESULTS/rdma_mad_ulp.dmesg" "$RESULTS/mad-silent.dmesg"
	mad_counted
	mad_barrier 5
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
	check_modules_unload
}

guest_b() {
	setup || return
	mad_barrier 0
	# phase 1: a asks, stock's MAD layer answers
	mad_barrier 1
	mad_get unsupported ipv6
	mad_barrier 2
	mad_serve 3 $((2 * MAD_COUNT))
	mad_barrier 4
	mad_get answer ipv6
	mad_barrier 5
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
}

host_phase() {
	local pcap=$1/wire.pcap bad
	local want=$((12 * MAD_COUNT + (MAD_RETRIES + 1) * MAD_SILENT))

	roce_count_is "$pcap" "$want" \
		"RoCE packets: a request and an answer per GET, 3 per unanswered SEND" \
		'udp.dstport == 4791'
	roce_count_is "$pcap" "$want" \
		"each a UD SEND from QP 1 to QP 1 with the GSI Q_Key and the default P_Key" \
		'udp.dstport == 4791 && infiniband.bth.opcode == 100 &&
		 infiniband.bth.destqp == 1 && infiniband.deth.srcqp == 1 &&
		 infiniband.deth.q_key == 0x80010000 && infiniband.bth.p_key == 0xffff'
	roce_count_is "$pcap" $((8 * MAD_COUNT)) "the GETs and answers over IPv6" \
		'udp.dstport == 4791 && ipv6'
	roce_count_is "$pcap" $((3 * MAD_COUNT)) \
		"stock's own answers (status 0x000C) and ours, one per unclaimed GET" \
		'udp.dstport == 4791 && infiniband.mad.method == 0x81 &&
		 infiniband.mad.status == 0x000c'
	roce_count_is "$pcap" $(((MAD_RETRIES + 1) * MAD_SILENT)) \
		"the unanswered SENDs, each sent 3 times, from a" \
		'udp.dstport == 4791 && infiniband.mad.method == 0x03'
	bad=$(roce_flagged "$pcap" '!(ipv6.src == fe80::5054:ff:fe00:2 && udp.checksum == 0)')
	if [ "$bad" = 0 ]; then
		ktap_ok "no malformed or flagged RoCE packet (the stock guest's zero IPv6 checksums apart)"
	else
		ktap_fail "no malformed or flagged RoCE packet" "$bad flagged"
	fi
	ulp_icrc_check "$1" "$want"
}

rdma_test_main "$@"
