#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel test ULP (ulp/rdma_ud_ulp.c) moving UD datagrams between two
# guests: the echo side sends every datagram back through an AH made from
# the receive completion (ib_create_ah_from_wc); the send side sends
# datagrams of every size from 0 to the path MTU (all pad lengths) through
# an AH from rdma_create_ah (atomic context) and checks each echo.
#
# Guest a runs the project's stack (ib_core + rdma_rxe), guest b Debian's
# stock one, and the rounds go both ways:
#   1  IPv4 GIDs, 3 QPs on each side: b sends, a echoes
#   2  IPv4 GIDs, 3 QPs on each side: a sends, b echoes
#   3  IPv6 (link-local) GIDs, 2 QPs: b sends, a echoes
#   4  IPv6 (link-local) GIDs, 2 QPs: a sends, b echoes
# The host checks the capture: no malformed packet (tshark), every ICRC
# recomputed independently (harness/roce_pcap.py), UDP source ports in
# 0xC000-0xFFFF and different across QP pairs.
# ulp_ud_echo_project.sh runs the same with the project's stack on both.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

ULP_HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../harness" && pwd)
PORT=18600
COUNT=${ULP_COUNT:-24}
ROUNDS=4
# Guest b runs the stock stack (ulp_ud_echo_project.sh says otherwise).
ULP_B_STOCK=${ULP_B_STOCK:-1}

# Stock guests load the ULP built against the stock kernel.
ulp_stage() {
	if [ "$RDMA_STACK" = stock ]; then
		echo "$STAGE_STOCK"
	else
		echo "$STAGE"
	fi
}

# fe80::/64 address from a MAC (modified EUI-64)
mac_to_ll() {
	local IFS=: b
	read -ra b <<<"$1"
	printf 'fe80::%x:%x:%x:%x' $(((0x${b[0]} ^ 2) << 8 | 0x${b[1]})) \
		$((0x${b[2]} << 8 | 0xff)) $((0xfe << 8 | 0x${b[3]})) \
		$((0x${b[4]} << 8 | 0x${b[5]}))
}

setup() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/* &&
		retry_until 10 grep -q '^fe80' /sys/class/infiniband/rxe0/ports/1/gids/*
}

# echo_round ROUND GID NQP: load the ULP in echo mode, hand the QP numbers
# to the peer on PORT+2*ROUND, wait until it says it is done.
echo_round() {
	local r=$1 fam=$2 n=$3 ko qpns p=$((PORT + 2 * $1))

	ko=$(find "$(ulp_stage)/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	if [ -z "$ko" ]; then
		ktap_fail "round $r: rdma_ud_ulp.ko staged" "not under $(ulp_stage)"
		return 1
	fi
	ktap_check "round $r: insmod rdma_ud_ulp mode=echo gid=$fam nqp=$n" \
		insmod "$ko" mode=echo gid="$fam" nqp="$n" || return 1
	qpns=$(cat /sys/module/rdma_ud_ulp/parameters/qpns)
	if [ "$(echo "$qpns" | tr ',' '\n' | grep -c '^[1-9]')" -eq "$n" ]; then
		ktap_ok "round $r: $n echo QPs ready ($qpns)"
	else
		ktap_fail "round $r: $n echo QPs ready" "qpns '$qpns'"
		rmmod rdma_ud_ulp
		return 1
	fi
	echo "$qpns" | timeout "$(scaled 60)" busybox nc -l -p "$p" >/dev/null
	timeout "$(scaled 120)" busybox nc -l -p $((p + 1)) </dev/null >/dev/null
	ktap_check "round $r: rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	if dmesg | grep -q "echoed $COUNT datagrams"; then
		ktap_ok "round $r: echoed all $COUNT datagrams"
	else
		ktap_fail "round $r: echoed all $COUNT datagrams" \
			"$(dmesg | grep 'rdma_ud_ulp.*echoed' | tail -n 1)"
	fi
	dmesg -C
}

# peer_qpns ROUND: sets PEER_QPNS to the QP numbers the peer's echo side
# hands out on PORT+2*ROUND, waiting up to a minute; reports either way.
peer_qpns() {
	local r=$1 p=$((PORT + 2 * $1)) end=$((SECONDS + $(scaled 60)))

	PEER_QPNS=
	while [ -z "$PEER_QPNS" ] && [ "$SECONDS" -lt "$end" ]; do
		PEER_QPNS=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$p" 2>/dev/null)
		[ -n "$PEER_QPNS" ] || sleep 0.5
	done
	if [ -z "$PEER_QPNS" ]; then
		ktap_fail "round $r: QP numbers from the peer" "nothing on $PEER_IP:$p"
		return 1
	fi
	ktap_ok "round $r: QP numbers from the peer: $PEER_QPNS"
}

# send_round ROUND GID NQP: get the peer's QP numbers, send COUNT datagrams.
send_round() {
	local r=$1 fam=$2 n=$3 qpns dest p=$((PORT + 2 * $1))

	peer_qpns "$r" || return 1
	qpns=$PEER_QPNS
	dest=$PEER_IP
	[ "$fam" = ipv6 ] && dest=$(mac_to_ll "$PEER_MAC")
	STAGE=$(ulp_stage) run_ktap_module rdma_ud_ulp mode=send gid="$fam" \
		nqp="$n" dest="$dest" dmac="$PEER_MAC" dqpns="$qpns" \
		count="$COUNT" size=1024
	cp "$RESULTS/rdma_ud_ulp.dmesg" "$RESULTS/send-round$r.dmesg"
	wait_for_peer_tcp "$PEER_IP" $((p + 1)) 30
	dmesg -C
}

guest_a() {
	setup || return
	echo_round 1 ipv4 3
	send_round 2 ipv4 3
	echo_round 3 ipv6 2
	send_round 4 ipv6 2
	check_modules_unload
}

guest_b() {
	setup || return
	send_round 1 ipv4 3
	echo_round 2 ipv4 3
	send_round 3 ipv6 2
	echo_round 4 ipv6 2
	check_modules_unload
}

# ulp_icrc_check RES LEAST: one result, ok when harness/roce_pcap.py
# recomputes the ICRC of at least LEAST packets of RES/wire.pcap and finds
# none wrong; ROCE_PCAP is what roce_pcap.py said (also in
# RES/roce_pcap.txt).
ulp_icrc_check() {
	ROCE_PCAP=$(python3 "$ULP_HARNESS/roce_pcap.py" "$1/wire.pcap")
	printf '%s\n' "$ROCE_PCAP" >"$1/roce_pcap.txt"
	ktap_diag "roce_pcap: $(echo "$ROCE_PCAP" | grep -v '^bad' | tr '\n' ' ')"
	if [ "$(echo "$ROCE_PCAP" | awk '$1 == "icrc_bad" { print $2 }')" = 0 ] &&
		[ "$(echo "$ROCE_PCAP" | awk '$1 == "icrc_ok" { print $2 }')" -ge "$2" ]; then
		ktap_ok "independent ICRC check agrees with every RoCE packet"
	else
		ktap_fail "independent ICRC check agrees with every RoCE packet" \
			"$(echo "$ROCE_PCAP" | grep -E '^(icrc|bad)' | tr '\n' ' ')"
	fi
}

ulp_host_checks() {
	local res=$1 pcap=$1/wire.pcap n bad r us out quirk='' desc
	local -a tsh=(roce_tshark "$pcap")

	n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && infiniband.bth.opcode == 100' 2>/dev/null | wc -l)
	if [ "$n" -ge $((2 * COUNT * ROUNDS)) ]; then
		ktap_ok "UD SEND-only packets both ways ($n)"
	else
		ktap_fail "UD SEND-only packets both ways" "$n, want $((2 * COUNT * ROUNDS))"
	fi
	# Stock rxe sends RoCE over IPv6 with a zero UDP checksum, which
	# tshark flags as illegal: counted apart for the stock guest (b) only.
	# (roce_tshark keeps tshark's payload heuristics from flagging the
	# zero-size datagrams.)
	if [ "$ULP_B_STOCK" = 1 ]; then
		quirk='ipv6.src == fe80::5054:ff:fe00:2 && udp.checksum == 0'
		n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && ipv6 && udp.checksum == 0' 2>/dev/null | wc -l)
		ktap_diag "stock guest b: $n IPv6 RoCE packets with a zero UDP checksum"
	fi
	desc="no malformed or flagged RoCE packet"
	[ -z "$quirk" ] || desc+=" (the stock guest's zero IPv6 checksums apart)"
	bad=$(roce_flagged "$pcap" "${quirk:+!($quirk)}")
	if [ "$bad" = 0 ]; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$bad flagged: $("${tsh[@]}" -Y "($ROCE_FLAGGED)${quirk:+ && !($quirk)}" 2>/dev/null | head -n 2 | tr '\n' ' ')"
	fi
	# UDP length 32: BTH + DETH + ICRC, a datagram without payload.
	n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && udp.length == 32' 2>/dev/null | wc -l)
	if [ "$n" -eq $((2 * ROUNDS)) ]; then
		ktap_ok "zero-size datagrams and their echoes: $n header-only packets"
	else
		ktap_fail "zero-size datagrams and their echoes: header-only packets" "$n, want $((2 * ROUNDS))"
	fi
	n=$("${tsh[@]}" -Y 'udp.dstport == 4791 && ipv6' 2>/dev/null | wc -l)
	if [ "$n" -ge $((2 * COUNT)) ]; then
		ktap_ok "RoCE v2 over IPv6: $n packets"
	else
		ktap_fail "RoCE v2 over IPv6" "$n packets"
	fi

	ulp_icrc_check "$res" $((2 * COUNT * ROUNDS))
	out=$ROCE_PCAP
	if [ "$(echo "$out" | awk '$1 == "sport_out" { print $2 }')" = 0 ]; then
		ktap_ok "UDP source ports within 0xC000-0xFFFF"
	else
		ktap_fail "UDP source ports within 0xC000-0xFFFF" "$(echo "$out" | grep sport_out)"
	fi
	n=$(echo "$out" | awk '$1 == "sports" { print $2 }')
	if [ "${n:-0}" -ge 6 ]; then
		ktap_ok "UDP source ports vary across QP pairs ($n ports)"
	else
		ktap_fail "UDP source ports vary across QP pairs" "${n:-0} distinct ports"
	fi
	for r in $(seq "$ROUNDS"); do
		for side in a b; do
			us=$(sed -n 's/.* \([0-9]*\) us per round trip.*/\1/p' \
				"$res/$side/send-round$r.dmesg" 2>/dev/null | tail -n 1)
			[ -n "$us" ] && ktap_diag "round $r: $side sent, $us us per round trip"
		done
	done
}

host_phase() { ulp_host_checks "$@"; }

[ -n "${ULP_UD_ECHO_LIB:-}" ] || rdma_test_main "$@"
