#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel test ULP (ulp/rdma_ud_ulp.c) moving UD datagrams between two
# guests: a echoes every datagram back through an AH made from the receive
# completion (ib_create_ah_from_wc), b sends datagrams of every size from 0
# to the path MTU through an AH from rdma_create_ah (atomic context) and
# checks each echo.  Both guests run the stock stack for now, which proves
# the ULP itself; the rxe issue runs it with our stack on a.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 120

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

QPN_PORT=18600
COUNT=${ULP_COUNT:-24}
# Stock guests load the ULP built against the stock kernel.
ulp_stage() {
	if [ "$RDMA_STACK" = stock ]; then
		echo "$REPO/build/stage-stock"
	else
		echo "$STAGE"
	fi
}

setup() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	retry_until 10 test -e /sys/class/infiniband/rxe0/ports/1/gids/1
}

guest_a() {
	local ko qpn

	setup || return
	ko=$(find "$(ulp_stage)/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	if [ -z "$ko" ]; then
		ktap_fail "rdma_ud_ulp.ko staged" "not under $(ulp_stage)"
		return
	fi
	ktap_check "insmod rdma_ud_ulp mode=echo" insmod "$ko" mode=echo || return
	qpn=$(cat /sys/module/rdma_ud_ulp/parameters/qpn)
	if [ "${qpn:-0}" -gt 0 ]; then
		ktap_ok "echo QP is ready (qpn $qpn)"
	else
		ktap_fail "echo QP is ready" "qpn '$qpn'"
		return
	fi
	# Hand the QP number to b, then wait until b says it is done.
	echo "$qpn" | timeout 60 busybox nc -l -p "$QPN_PORT" >/dev/null
	timeout 90 busybox nc -l -p $((QPN_PORT + 1)) </dev/null >/dev/null
	ktap_check "rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	if grep -q "echoed $COUNT datagrams" <(dmesg); then
		ktap_ok "a echoed all $COUNT datagrams"
	else
		ktap_fail "a echoed all $COUNT datagrams" "$(dmesg | grep 'rdma_ud_ulp.*echoed' | tail -n 1)"
	fi
	check_modules_unload
}

guest_b() {
	local qpn='' end=$((SECONDS + 60))

	setup || return
	while [ -z "$qpn" ] && [ "$SECONDS" -lt "$end" ]; do
		qpn=$(timeout 5 busybox nc "$PEER_IP" "$QPN_PORT" 2>/dev/null)
		[ -n "$qpn" ] || sleep 0.5
	done
	if [ -z "$qpn" ]; then
		ktap_fail "QP number from a" "nothing on $PEER_IP:$QPN_PORT"
		return
	fi
	ktap_ok "QP number from a: $qpn"
	STAGE=$(ulp_stage) run_ktap_module rdma_ud_ulp mode=send dest="$PEER_IP" \
		dmac="$PEER_MAC" dqpn="$qpn" count="$COUNT" size=1024
	wait_for_peer_tcp "$PEER_IP" $((QPN_PORT + 1)) 30
	check_modules_unload
}

host_phase() {
	local pcap=$1/wire.pcap n bad
	local -a tsh=(tshark -n -r "$pcap")

	n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && infiniband.bth.opcode == 100' 2>/dev/null | wc -l)
	if [ "$n" -ge $((2 * COUNT)) ]; then
		ktap_ok "UD SEND-only packets both ways ($n)"
	else
		ktap_fail "UD SEND-only packets both ways" "$n, want $((2 * COUNT))"
	fi
	# tshark's InfiniBand dissector flags every UD SEND without payload
	# (UDP length 32: BTH + DETH + ICRC) as malformed, stock rxe's included;
	# those are counted apart and must be exactly the zero-size datagrams.
	bad=$("${tsh[@]}" -Y '(_ws.malformed || (udp.port == 4791 && _ws.expert)) && !(udp.length == 32)' 2>/dev/null | wc -l)
	if [ "$bad" -eq 0 ]; then
		ktap_ok "no malformed RoCE packet with a payload"
	else
		ktap_fail "no malformed RoCE packet with a payload" "$bad flagged"
	fi
	n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && udp.length == 32' 2>/dev/null | wc -l)
	if [ "$n" -eq 2 ]; then
		ktap_ok "zero-size datagram and its echo: 2 header-only packets"
	else
		ktap_fail "zero-size datagram and its echo: 2 header-only packets" "$n"
	fi
}

rdma_test_main "$@"
