#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile TCP peer against our soft-iWARP provider (issue 18).  Guest a
# runs our stack with siw0 on its NIC, and siw_hostile.py's agent: it
# starts Debian's rping on a's siw0 and reads its counters when guest b
# asks.  Guest b runs no RDMA at all: siw_hostile.py speaks TCP, MPA
# (RFC 5044, revision 2 with RFC 6581's block), DDP (RFC 5041) and RDMAP
# (RFC 5040) by hand, as an rping server for our "rping -c" (whose first
# Send advertises its buffer: the attacker aims at a real STag) and as a
# client of our "rping -s".
#   setup (a): the project's stack, siw not loaded until rdma_link_add_siw
#      adds siw0 (our staged siw.ko, autoloaded), siw0/1 ACTIVE, mpa_crc 0
#      and mpa_rev 2 as loaded, no PD, CQ, QP or MR on siw0.
#   cases (b, 47 run back to back; siw_hostile.py attack --list says
#      each):
#      - MPA Requests to our rping -s: the Reply's key, revision 0,
#        markers asked (Reply with R), 513 bytes of private data, 300
#        (refused with R: more than iw_cm carries), peer-to-peer without
#        an RTR message (R); then the same rping -s serves a client done
#        right (READ answered, WRITE back checked, CRCs);
#      - our rping -c against a server done right (READ, go-ahead,
#        WRITE, go-ahead; rping -V checks the data), with CRCs; again
#        with the attacker silent after our FIN (reset after 2 s);
#      - FPDUs to our rping -c, each answered by a Terminate: a wrong CRC
#        (mpa_crc=1), DDP version untagged and tagged, RDMAP version, an
#        opcode RDMAP lacks, a tagged Send, queue 3, MSN 5, MO 8, a READ
#        response nobody asked for, WRITEs to an unknown STag, a wrong
#        key, past the end, below the start, wrapping the TO; READ
#        requests past the end, from an unknown STag, wrapping (refused
#        when answered: the request's header rebuilt, R set), a second
#        READ request while the answer to the first is stuck (IRD 1), two
#        Sends against the one receive of a stopped rping (SIGSTOP, then
#        killed), a Send too long, a Send with Invalidate of rping's user
#        MR;
#      - a zero-length READ of an unknown STag (answered, no check), a
#        Terminate from the attacker (none back), a truncated Send then
#        FIN (no Terminate, our FIN), a bad FPDU with 64 KiB of junk and
#        FIN (the close does not wait 2 s for the QP to drain), a bad
#        FPDU and FIN in one segment (the Terminate still goes first),
#        half an FPDU then silence and rping killed, the attacker not
#        reading a 64 KiB READ response (tcp_wmem 4 KiB: our send queue
#        stuck) and rping killed: gone at once, connection reset;
#      - MPA Replies to our rping -c: the Request's key, revision 3,
#        peer-to-peer without RTR, 600 bytes of private data (each a
#        reset, REJECTED -104), R with private data (REJECTED -111, our
#        FIN);
#      - FPDUs to our rping -s: a READ response longer than the READ, a
#        Send too long;
#      - our rping -s accepts a Request, 15 more come at once (listen
#        backlog 3; rping takes one connection): the backlog's held, the
#        others reset at once; rping -s gone (it gives up at the second
#        request, or is killed): the held Requests refused (R then FIN)
#        by iw_cm's destroy, every connection ended at once;
#      - 24 connections with half a Request to rping -s (backlog 3): 3
#        held, the rest and a whole Request reset at once, the 3 reset
#        after SIW_CM_TIMEOUT_MS (10 s) as is our rping -c's Request that
#        gets no Reply (UNREACHABLE -110); then rping -s serves a client.
#      Each case checks what came back (for an FPDU the Terminate on
#      queue 2: layer, error type and code of RFC 5040 7 / RFC 5041 7 /
#      RFC 5044 8, M D R and the offending FPDU's length field and DDP
#      header copied back, 14 bytes tagged or 18 untagged, with the 28
#      bytes of a READ request; its CRC), how the connection ended (a FIN
#      next, or a reset, and how soon), how rping ended (by itself, what
#      it said, no ping data) and how siw0's counters moved (rx_bad_crc,
#      rx_bad_header, rx_protection_err, terminate_sent, terminate_rcvd,
#      mpa_bad_frame, mpa_rejected, connections, tx_fpdus, rx_fpdus: the
#      case's, the others unchanged).
#   after the cases (a): the agent ended by the attacker's "done" with no
#      rping left; rdma statistic show link siw0/1 says what sysfs says;
#      no PD, CQ, QP or MR left on siw0; no process holds /dev/infiniband,
#      every RDMA module unloads with no reference left; our siw freed
#      siw0 with nothing left; kernel log clean.
#   host: iwarp_pcap.py --selftest; over wire.pcap: no error in what our
#      siw sent (but the READ response the stalled case's reset cut); the
#      Terminates our siw put on the wire are those the attacker read, as
#      many as our terminate_sent says.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/uverbs_pair.sh
. "$(dirname "$0")/../harness/uverbs_pair.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/siw_pair.sh
. "$(dirname "$0")/../harness/siw_pair.sh"

HOSTILE=$(cd "$(dirname "$0")/.." && pwd)/siw_hostile.py
AGENT_PORT=18650
# The barrier of the end (see guest_b).
END_PORT=18651
PARAMS=/sys/module/siw/parameters
COUNTER_NAMES="tx_fpdus rx_fpdus rx_bad_crc rx_bad_header rx_protection_err terminate_sent terminate_rcvd mpa_bad_frame mpa_rejected connections"
# The attacker's responder port of the stalled-reader case (siw_hostile.py
# PORT_STALL): the reset there cuts our READ response.
STALL_PORT=7401

# stats_agree: rdma statistic show link siw0/1 has each counter with the
# value sysfs has (nothing moves any more); the counters go to
# $RESULTS/siw0-stats.txt for the host.
stats_agree() {
	local c v s bad=''

	save_siw_counters || return
	for c in $COUNTER_NAMES; do
		v=$(awk -v c="$c" '$1 == c { print $2 }' "$RESULTS/$DEV-stats.txt")
		s=$(cat "/sys/class/infiniband/$DEV/ports/1/hw_counters/$c" 2>&1)
		[ -n "$v" ] && [ "$v" = "$s" ] || bad+=" $c: rdma '${v:-missing}', sysfs '$s';"
	done
	if [ -z "$bad" ]; then
		ktap_ok "rdma statistic show link $DEV/1: the 10 counters sysfs has, same values"
	else
		ktap_fail "rdma statistic show link $DEV/1: the counters sysfs has" "$bad"
	fi
}

guest_a() {
	local mark="$RDMA_TEST_NAME $$" ko out rc pid

	kmsg_mark "$mark"
	ktap_check "stack is project" test "$RDMA_STACK" = project
	ktap_check "rdma, rping, python3 installed" require_cmd rdma rping python3 || return
	if module_loaded siw; then
		ktap_fail "siw not loaded before rdma_link_add_siw" "it already is"
	else
		ktap_ok "siw not loaded before rdma_link_add_siw"
	fi
	ktap_check "rdma_link_add_siw $DEV (netdev $NETDEV)" rdma_link_add_siw "$DEV" || return
	ko=$(modinfo -n siw 2>&1)
	if [[ "$ko" == /lib/modules/"$KVER"/updates/* ]]; then
		ktap_ok "the loaded siw is the staged one ($ko)"
	else
		ktap_fail "the loaded siw is the staged one under updates/" "$ko"
	fi
	out="$(cat "$PARAMS/mpa_crc" 2>&1) $(cat "$PARAMS/mpa_rev" 2>&1)"
	ktap_check "our siw loaded with mpa_crc N and mpa_rev 2" test "$out" = "N 2"
	out=$(rdma_res_counts "$DEV" pd cq qp mr)
	ktap_check "$DEV before the attacks: no PD, CQ, QP or MR ($out)" \
		test "$out" = "pd=0 cq=0 qp=0 mr=0"
	python3 "$HOSTILE" agent --addr "$MY_IP" --port "$AGENT_PORT" --dev "$DEV" \
		--logs "$RESULTS" --deadline "$(scaled 240)" >"$RESULTS/agent.log" 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	if [ "$rc" = 0 ]; then
		ktap_ok "the agent served the attacker to its 'done', no rping left running"
	else
		ktap_fail "the agent served the attacker to its 'done', no rping left running" \
			"exit $rc: $(tail -n 2 "$RESULTS/agent.log")"
	fi
	stats_agree
	out=$(rdma_res_counts "$DEV" pd cq qp mr)
	ktap_check "$DEV after the attacks: no PD, CQ, QP or MR left ($out)" \
		test "$out" = "pd=0 cq=0 qp=0 mr=0"
	check_modules_unload
	check_siw_released "$mark"
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	ktap_check "guest b told the checks are done" rdma_barrier "$END_PORT" "$(scaled 60)"
}

guest_b() {
	local rc

	ktap_check "python3 installed" require_cmd python3 || return
	# Its KTAP goes to a file (on the results share as it is written),
	# then becomes this guest's (ktap_relay, not in a subshell).
	python3 "$HOSTILE" attack --agent "$PEER_IP:$AGENT_PORT" --me "$MY_IP" --peer "$PEER_IP" \
		--scale "${RDMA_TIMEOUT_SCALE:-1}" --out "$RESULTS/siw_hostile.json" \
		>"$RESULTS/attack.log" 2>"$RESULTS/attack.err"
	rc=$?
	ktap_relay "" <"$RESULTS/attack.log"
	# 0: all passed, 1: some failed (said above); else it broke off.
	if [ "$rc" -le 1 ] && tail -n 1 "$RESULTS/attack.log" | grep -qE '^1\.\.[0-9]+$' &&
		[ ! -s "$RESULTS/attack.err" ]; then
		ktap_ok "siw_hostile.py ran every case to its end"
	else
		ktap_fail "siw_hostile.py ran every case to its end" \
			"exit $rc: $(tail -n 3 "$RESULTS/attack.err")"
	fi
	# Guest a's checks after the attacks take longer than the grace a
	# guest gets once its peer failed: wait for them.
	ktap_check "guest a's checks done" rdma_barrier "$END_PORT" "$(scaled 120)"
}

# ---- host --------------------------------------------------------------------

host_phase() {
	local res=$1 json=$1/iwarp_all.json ours wire sent out

	siw_host_begin "$res" || return
	siw_pcap "$res" iwarp_all
	if ! jq -e '.iwarp_connections > 0' "$json" >/dev/null 2>&1; then
		ktap_fail "iwarp_pcap.py read the capture" "$(head -c 300 "$res/iwarp_pcap.err")"
		return
	fi
	ktap_diag "iwarp_pcap.py: $(jq -r '"\(.iwarp_connections) iWARP connections, \(.fpdus) FPDUs, \(.crc_checked) CRCs checked"' "$json")"
	# The errors in what a sent, the stalled reader's READ response cut
	# by the reset left out.
	out=$(jq -r --arg p ":$STALL_PORT" '.connections[] | .to_responder, .to_initiator
		| select((.src | startswith("10.0.0.1:")) and .errors > 0)
		| select((.dst | endswith($p)) and .errors == 1 | not)
		| "\(.src)>\(.dst): \(.errors)"' "$json")
	if [ -z "$out" ]; then
		ktap_ok "iwarp_pcap.py: no error in the FPDUs our siw sent"
	else
		ktap_fail "iwarp_pcap.py: no error in the FPDUs our siw sent" \
			"$(echo "$out" | paste -sd ';' -); $(jq -c '[.errors[] | select(startswith("10.0.0.1:"))][:3]' "$json")"
	fi
	ours=$(jq -r '.connections[] | .to_responder, .to_initiator | select(.src | startswith("10.0.0.1:"))
		| .terminates[] | "\(.[0]) \(.[1]) \(.[2])"' "$json" | sort | uniq -c)
	if [ ! -s "$res/b/siw_hostile.json" ]; then
		ktap_fail "the Terminates on the wire are those the attacker read" "no $res/b/siw_hostile.json"
		return
	fi
	wire=$(jq -r '.terminates[] | "\(.layer) \(.etype) \(.ecode)"' "$res/b/siw_hostile.json" | sort | uniq -c)
	if [ -n "$ours" ] && [ "$ours" = "$wire" ]; then
		ktap_ok "the Terminates our siw put on the wire are those the attacker read ($(echo "$ours" | wc -l) kinds)"
	else
		ktap_fail "the Terminates our siw put on the wire are those the attacker read" \
			"wire: $(echo "$ours" | paste -sd ';' -); attacker: $(echo "$wire" | paste -sd ';' -)"
	fi
	sent=$(awk '$1 == "terminate_sent" { print $2 }' "$res/a/$DEV-stats.txt" 2>/dev/null)
	out=$(jq '[.connections[] | .to_responder, .to_initiator | select(.src | startswith("10.0.0.1:"))
		| .terminates | length] | add // 0' "$json")
	if [ -n "$sent" ] && [ "$sent" = "$out" ]; then
		ktap_ok "our terminate_sent ($sent) is the Terminates from a on the wire"
	else
		ktap_fail "our terminate_sent is the Terminates from a on the wire" \
			"counter '${sent:-missing}', wire $out"
	fi
}

rdma_test_main "$@"
