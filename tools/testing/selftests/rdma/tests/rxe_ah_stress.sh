#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No deadlock between AH creation and the send path: on guest a, the KTAP
# module rdma_rxe_ah_stress_test churns AHs on rxe0 from several threads
# (sleepable, bottom halves off, interrupts off) for a few seconds while
# its sender threads send UD datagrams, each through an AH made just
# before, to the kernel test ULP in echo mode on guest b (which itself
# makes a reply AH per datagram with ib_create_ah_from_wc) and check
# every echo.  A hang shows as the module's timeout; the module checks
# created == destroyed, every datagram echoed intact, PD usecnt restored;
# the test checks that rxe0 holds no object afterwards
# (check_rxe_no_objects), the harness the kernel logs and that every
# module unloads.  The
# host checks that b echoed exactly the datagrams a sent.
#
# vms: 2
# stack-a: project
# stack-b: project
# timeout: 150

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

PORT=18700
SECS=${RXE_AH_STRESS_SECONDS:-8}

setup() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	ktap_check "rxe0 has its IPv4 GID" \
		retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
}

# rxe_counter NAME: port 1's counter NAME, as the core shows it
rxe_counter() {
	cat "/sys/class/infiniband/rxe0/ports/1/hw_counters/$1"
}

guest_a() {
	local qpn='' end=$((SECONDS + $(scaled 60))) r0 r1 s0 s1

	setup || return
	while [ -z "$qpn" ] && [ "$SECONDS" -lt "$end" ]; do
		qpn=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$PORT" 2>/dev/null)
		[ -n "$qpn" ] || sleep 0.5
	done
	if [ -z "$qpn" ]; then
		ktap_fail "echo QP number from b" "nothing on $PEER_IP:$PORT"
		return
	fi
	ktap_ok "echo QP number from b: $qpn"
	r0=$(rxe_counter rcvd_pkts)
	s0=$(rxe_counter sent_pkts)
	run_ktap_module rdma_rxe_ah_stress_test ibdev=rxe0 dest="$PEER_IP" \
		dmac="$PEER_MAC" dqpn="$qpn" seconds="$SECS"
	r1=$(rxe_counter rcvd_pkts)
	s1=$(rxe_counter sent_pkts)
	ktap_diag "rxe0 during the run: sent_pkts +$((s1 - s0)), rcvd_pkts +$((r1 - r0))"
	if [ $((r1 - r0)) -gt 0 ] && [ $((s1 - s0)) -gt 0 ]; then
		ktap_ok "UD traffic through rxe0 during the churn"
	else
		ktap_fail "UD traffic through rxe0 during the churn" "sent +$((s1 - s0)) rcvd +$((r1 - r0))"
	fi
	# Tell b that the run is over.
	wait_for_peer_tcp "$PEER_IP" $((PORT + 1)) 30
	check_rxe_no_objects rxe0
	check_modules_unload
}

guest_b() {
	local ko qpn mark="rxe_ah_stress echo $$"

	setup || return
	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	kmsg_mark "$mark"
	ktap_check "insmod rdma_ud_ulp mode=echo" insmod "$ko" mode=echo ibdev=rxe0 || return
	qpn=$(cat /sys/module/rdma_ud_ulp/parameters/qpn)
	if [ "${qpn:-0}" -gt 0 ]; then
		ktap_ok "echo QP ready ($qpn)"
	else
		ktap_fail "echo QP ready" "qpn '$qpn'"
	fi
	echo "$qpn" | timeout "$(scaled 60)" busybox nc -l -p "$PORT" >/dev/null
	timeout "$(scaled 120)" busybox nc -l -p $((PORT + 1)) </dev/null >/dev/null
	ktap_check "rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	kmsg_since "$mark" >"$RESULTS/echo.dmesg"
	ktap_diag "$(grep 'rdma_ud_ulp.*echoed' "$RESULTS/echo.dmesg")"
	if grep -qE 'WARNING:|BUG:|Oops|Call Trace:|receive status|no AH' "$RESULTS/echo.dmesg"; then
		ktap_fail "echo side: kernel log clean" "$(grep -E 'WARNING:|BUG:|Oops|receive status|no AH' "$RESULTS/echo.dmesg" | head -n 2)"
	else
		ktap_ok "echo side: kernel log clean"
	fi
	check_modules_unload
}

host_phase() {
	local sent echoed

	sent=$(sed -n 's/.*datagrams sent \([0-9]*\) echoed.*/\1/p' \
		"$1/a/rdma_rxe_ah_stress_test.dmesg" 2>/dev/null | tail -n 1)
	echoed=$(sed -n 's/.*echoed \([0-9]*\) datagrams.*/\1/p' "$1/b/echo.dmesg" 2>/dev/null | tail -n 1)
	ktap_diag "a sent ${sent:-?} datagrams, b echoed ${echoed:-?}"
	if [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" = "$echoed" ]; then
		ktap_ok "b echoed exactly the datagrams a sent ($sent)"
	else
		ktap_fail "b echoed exactly the datagrams a sent" "sent ${sent:-?}, echoed ${echoed:-?}"
	fi
}

rdma_test_main "$@"
