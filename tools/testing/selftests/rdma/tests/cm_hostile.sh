#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A connection-manager peer written by hand.  Guest a runs our stack and
# the test ULP's server (rdma_ibcm_ulp mode=server) on rxe0; guest b has
# no RDMA device: cm_hostile.py sends raw RoCE v2 to a's QP 1 and takes
# the answers on UDP 4791 itself.  It makes one real connection (REQ, our
# REP, its RTU), then replays the REQ, sends truncated MADs, a CM MAD of
# class version 1, unknown attributes and a LAP, malformed REQs and REJs,
# messages naming IDs nobody has, a DREQ naming another QP; then ends the
# connection with a DREQ our CM must answer with a DREP.
#
# Guest a asserts that the server saw one connection made and ended, that
# the kernel log stays clean and that every module unloads; it writes what
# its CM and MAD layer counted, and the host compares that with what the
# sender says each cause must add: drops by reason (debugfs ib_cm/drops),
# REQ duplicates (cm_rx_duplicates/req), MADs the MAD layer dropped as
# malformed and left unclaimed.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
SID=0x0000000001060777
PORT=19200
D=/sys/class/infiniband/rxe0/ports/1

# counts: what a's CM and MAD layer counted, one "name value" per line.
counts() {
	local r

	for r in unknown malformed no_id state; do
		echo "drop_$r $(grep -o "^rxe0 1 .*" /sys/kernel/debug/ib_cm/drops |
			grep -o "$r=[0-9]*" | cut -d= -f2)"
	done
	echo "duplicates $(cat "$D/cm_rx_duplicates/req")"
	awk '$1 == "rx_bad" { print "mad_bad", $2 } $1 == "rx_unclaimed" { print "mad_unclaimed", $2 }' \
		/sys/kernel/debug/ib_mad/rxe0/1
}

guest_a() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	ktap_check "rxe0 has its IPv4 GID" \
		retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
	ktap_check "modprobe ib_cm" modprobe ib_cm || return
	counts >"$RESULTS/counts-before"
	KTAP_MODULE_TIMEOUT=$(scaled 150) ktap_module_begin rdma_ibcm_ulp \
		mode=server sid="$SID" wait="$(scaled 100)" || return
	rdma_barrier "$PORT" "$(scaled 60)"
	rdma_barrier $((PORT + 1)) "$(scaled 120)"
	ktap_module_end rdma_ibcm_ulp
	counts >"$RESULTS/counts-after"
	check_modules_unload
}

guest_b() {
	rdma_barrier "$PORT" "$(scaled 60)"
	ktap_check "cm_hostile.py: a connection made and ended around the garbage" \
		python3 "$SELFDIR/cm_hostile.py" --src "$MY_IP" --dst "$PEER_IP" \
		--sid "$SID" --out "$RESULTS/cm_hostile.json"
	rdma_barrier $((PORT + 1)) "$(scaled 120)"
}

# delta NAME: how much a's counter NAME moved.
delta() {
	echo $(($(awk -v n="$1" '$1 == n { print $2 }' "$A/counts-after") -
		$(awk -v n="$1" '$1 == n { print $2 }' "$A/counts-before")))
}

host_phase() {
	local A=$1/a J=$1/b/cm_hostile.json name want got

	if [ ! -s "$J" ] || [ ! -s "$A/counts-after" ]; then
		ktap_fail "the sender's tally and a's counters" "missing: $J or $A/counts-after"
		return
	fi
	for name in unknown malformed no_id state; do
		want=$(python3 -c "import json; print(json.load(open('$J'))['drops']['$name'])")
		got=$(delta "drop_$name")
		if [ "$got" = "$want" ]; then
			ktap_ok "ib_cm drops, $name: $got"
		else
			ktap_fail "ib_cm drops, $name" "counted $got, sent $want"
		fi
	done
	for name in duplicates mad_bad mad_unclaimed; do
		want=$(python3 -c "import json; print(json.load(open('$J'))['$name'])")
		got=$(delta "$name")
		if [ "$got" = "$want" ]; then
			ktap_ok "$name: $got"
		else
			ktap_fail "$name" "counted $got, sent $want"
		fi
	done
}

rdma_test_main "$@"
