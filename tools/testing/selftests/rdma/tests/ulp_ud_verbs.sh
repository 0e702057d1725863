#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# UD between the kernel test ULP (ulp/rdma_ud_ulp.c) on our stack and a
# user-space program on the stock guest: ud_verbs_peer.py, written against
# libibverbs through pyverbs (rdma-core's librxe and ib_uverbs underneath).
#   1  IPv4 GIDs, 3 QPs each: the program sends (ibv_create_ah), our ULP
#      echoes through ib_create_ah_from_wc()
#   2  IPv4 GIDs, 3 QPs each: our ULP sends (rdma_create_ah() in atomic
#      context), the program echoes through ibv_create_ah_from_wc()
#   3  IPv6 (link-local) GIDs, 2 QPs: the program sends, our ULP echoes
#   4  IPv6 (link-local) GIDs, 2 QPs: our ULP sends, the program echoes
# Payloads of 0..1024 bytes across the pad lengths, each echo compared.
# The host checks the capture as ulp_ud_echo does: no malformed packet,
# every ICRC recomputed, UDP source ports in 0xC000-0xFFFF and varying.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1 ULP_B_STOCK=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

PORT=18900
PEER_PY=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/ud_verbs_peer.py

verbs_setup() {
	setup || return 1
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs &&
		ktap_check "pyverbs opens rxe0" /usr/bin/python3 -c \
			'from pyverbs.device import Context; Context(name="rxe0")'
}

# verbs_send_round ROUND GID NQP: the peer's QP numbers, then the program
# sends COUNT datagrams and checks the echoes.
verbs_send_round() {
	local r=$1 fam=$2 n=$3 qpns dest=$PEER_IP p=$((PORT + 2 * $1)) out rc

	peer_qpns "$r" || return 1
	qpns=$PEER_QPNS
	[ "$fam" = ipv6 ] && dest=$(mac_to_ll "$PEER_MAC")
	out=$(timeout "$(scaled 120)" /usr/bin/python3 "$PEER_PY" send --gid "$fam" \
		--nqp "$n" --dest "$dest" --dqpns "$qpns" --count "$COUNT" \
		--size 1024 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$RESULTS/send-round$r.txt"
	ktap_relay "round $r: ud_verbs_peer: " <<<"$out"
	if [ "$rc" -eq 0 ] && grep -q "pass:$COUNT fail:0" <<<"$out"; then
		ktap_ok "round $r: the program got all $COUNT echoes"
	else
		ktap_fail "round $r: the program got all $COUNT echoes" "exit $rc: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
	fi
	wait_for_peer_tcp "$PEER_IP" $((p + 1)) 30
}

# verbs_echo_round ROUND NQP: the program echoes COUNT datagrams; its QP
# numbers go to the peer on PORT+2*ROUND.
verbs_echo_round() {
	local r=$1 n=$2 p=$((PORT + 2 * $1)) log=$RESULTS/echo-round$1.txt pid qpns=''

	/usr/bin/python3 "$PEER_PY" echo --nqp "$n" --count "$COUNT" \
		--timeout "$(scaled 120)" >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		qpns=$(sed -n 's/^qpns=//p' "$log")
		[ -n "$qpns" ] && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -n "$qpns" ]; then
		ktap_ok "round $r: ud_verbs_peer echo ready, $n QPs ($qpns)"
	else
		ktap_fail "round $r: ud_verbs_peer echo ready" "$(tail -n 3 "$log" | tr '\n' ' ')"
		kill "$pid" 2>/dev/null
		return 1
	fi
	echo "$qpns" | timeout "$(scaled 60)" busybox nc -l -p "$p" >/dev/null
	timeout "$(scaled 120)" busybox nc -l -p $((p + 1)) </dev/null >/dev/null
	for _ in $(seq 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if wait "$pid" && grep -q "echoed $COUNT datagrams, 0 errors" "$log"; then
		ktap_ok "round $r: the program echoed all $COUNT datagrams (ibv_create_ah_from_wc)"
	else
		ktap_fail "round $r: the program echoed all $COUNT datagrams" "$(tail -n 2 "$log" | tr '\n' ' ')"
		kill "$pid" 2>/dev/null
	fi
}

# guest_a is ulp_ud_echo's: our kernel ULP echoes, sends, echoes, sends.

guest_b() {
	verbs_setup || return
	verbs_send_round 1 ipv4 3
	verbs_echo_round 2 3
	verbs_send_round 3 ipv6 2
	verbs_echo_round 4 2
}

host_phase() { ulp_host_checks "$@"; }

rdma_test_main "$@"
