#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soft-RoCE talking to itself: rxe0 on eth0, then the KTAP module
# rdma_rxe_loop_test, whose QPs reach each other through rxe0's own GIDs
# over the loopback device (UD over IPv4 and IPv6 with reply AHs; RC
# SEND, WRITE, READ, ATOMICs, RNR retry and a remote access error; UC
# SEND and WRITE and its refusal of READ and ATOMIC; the SRQ limit event
# and Last WQE Reached; the flush of a QP in the error state; UC under
# packet loss, the packets being dropped here by tc at lo's ingress) and
# what the device must refuse (rdma_rxe_guard.c: packets from another
# address than a connection's path, MRs invalidated, re-registered or
# deregistered under an RDMA WRITE, registration rules, READ/ATOMIC without
# responder resources, a 1 MiB READ, an AH of another PD) and the limits
# query_device() reports (rdma_rxe_limits.c: AHs, QP and SRQ depths, SRQ
# scatter entries, READs outstanding, responder resources, multicast
# groups and their QPs, MR page sizes; each reached, one past refused)
# and QP operations and events (rdma_rxe_qp_events.c: ATOMIC_WRITE, the SQ
# drained in SQD and IB_EVENT_SQ_DRAINED, IB_EVENT_COMM_EST in RTR) and
# the GSI QP and the MAD layer on it (rdma_rxe_mad.c), rdma_resolve_ip()
# (rdma_rxe_addr.c), paths (rdma_rxe_path.c) and the InfiniBand connection
# manager with both ends here (rdma_rxe_cm.c: a connection made, used and
# ended through time wait; REJ with ARI and private data, no listener, a
# failing handler, a requester that gives up; MRA and IB_EVENT_COMM_EST;
# listener rules and calls in the wrong state; SIDR), so ib_cm is loaded
# first.
# The port counters must have moved by at least the traffic the module
# reports (drop_path by the packets it forged); then rxe0 must hold no
# object (check_rxe_no_objects) and every module must unload.
#
# vms: 1
# stack-a: project
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters
COUNTERS="rdma_sends rdma_recvs sent_pkts rcvd_pkts drop_seq drop_path"
# uc_packet_loss's first PSN (LT_UC_LOSS_PSN in the module): the packets
# at +1, +6 and +10 are lost on the way, every time they are sent.
UC_LOSS_PSN=$((0x5a5a00))

# uc_loss_filters: drop UDP 4791 packets of those PSNs entering on lo
# (IPv4: UDP destination port at 22, the BTH's PSN at 36).
uc_loss_filters() {
	local d

	tc qdisc add dev lo ingress || return 1
	for d in 1 6 10; do
		tc filter add dev lo parent ffff: protocol ip prio "$d" u32 \
			match u16 4791 0xffff at 22 \
			match u32 $((UC_LOSS_PSN + d)) 0x00ffffff at 36 \
			action drop || return 1
	done
}

# counters_snapshot: "name=value" for each of $COUNTERS
counters_snapshot() {
	local c

	for c in $COUNTERS; do
		echo "$c=$(cat "$HWC/$c" 2>/dev/null || echo missing)"
	done
}

# counter_of SNAPSHOT NAME
counter_of() {
	sed -n "s/^$2=//p" <<<"$1"
}

# check_counter NAME BEFORE AFTER MIN: the counter moved by at least MIN.
check_counter() {
	local name=$1 before=$2 after=$3 min=$4

	if ! [[ "$before" =~ ^[0-9]+$ && "$after" =~ ^[0-9]+$ ]]; then
		ktap_fail "hw_counters: $name moved" "unreadable: '$before' -> '$after'"
	elif [ $((after - before)) -ge "$min" ]; then
		ktap_ok "hw_counters: $name moved"
		ktap_diag "$name: +$((after - before)) (at least $min)"
	else
		ktap_fail "hw_counters: $name moved" "+$((after - before)), expected at least $min"
	fi
}

# The MAD layer's counters of rxe0's port 1, as "name=value" lines.
mad_counters() {
	tr ' ' '=' </sys/kernel/debug/ib_mad/rxe0/1 2>/dev/null
}

# mad_drops_check BEFORE AFTER: the MAD layer dropped exactly the malformed
# and unmatched MADs the module says it sent (its "MAD drops" line).
mad_drops_check() {
	local want bad unmatched d

	want=$(grep -o 'MAD drops bad=[0-9]* unmatched=[0-9]*' \
		"${RESULTS:-/tmp}/rdma_rxe_loop_test.dmesg" 2>/dev/null | tail -n 1)
	if ! [[ "$want" =~ bad=([0-9]+)\ unmatched=([0-9]+) ]] || [ -z "$2" ]; then
		ktap_fail "MAD layer: counted drops" "no 'MAD drops' line or no ib_mad/rxe0/1 in debugfs"
		return
	fi
	bad=${BASH_REMATCH[1]} unmatched=${BASH_REMATCH[2]}
	d=$(($(counter_of "$2" rx_bad) - $(counter_of "$1" rx_bad)))
	if [ "$d" -eq "$bad" ] && [ "$bad" -gt 0 ]; then
		ktap_ok "MAD layer: $d malformed MADs dropped and counted (rx_bad)"
	else
		ktap_fail "MAD layer: malformed MADs dropped and counted" "rx_bad +$d, want +$bad"
	fi
	d=$(($(counter_of "$2" rx_unmatched) - $(counter_of "$1" rx_unmatched)))
	if [ "$d" -eq "$unmatched" ] && [ "$unmatched" -gt 0 ]; then
		ktap_ok "MAD layer: $d unmatched responses dropped and counted (rx_unmatched)"
	else
		ktap_fail "MAD layer: unmatched responses dropped and counted" \
			"rx_unmatched +$d, want +$unmatched"
	fi
}

guest() {
	local before after traffic sends recvs pkts drops mad_before

	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	ktap_check "rxe0 has its IPv4 GID" \
		retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
	ktap_check "tc: drop PSNs $(printf '%#x' $((UC_LOSS_PSN + 1))), +6 and +10 at lo's ingress" \
		uc_loss_filters
	before=$(counters_snapshot)
	mad_before=$(mad_counters)
	ktap_check "modprobe ib_cm" modprobe ib_cm
	run_ktap_module rdma_rxe_loop_test ibdev=rxe0
	after=$(counters_snapshot)
	drops=$(tc -s filter show dev lo parent ffff: | grep -o 'dropped [0-9]*' | awk '{ print $2 }' | paste -sd ' ' -)
	if [ "$drops" = "1 1 1" ]; then
		ktap_ok "tc dropped each picked UC packet once ($drops)"
	else
		ktap_fail "tc dropped each picked UC packet once" "'$drops'"
	fi
	tc qdisc del dev lo ingress

	traffic=$(grep -o 'traffic sends=[0-9]* recvs=[0-9]* pkts=[0-9]* forged=[0-9]*' \
		"${RESULTS:-/tmp}/rdma_rxe_loop_test.dmesg" 2>/dev/null | tail -n 1)
	if [[ "$traffic" =~ sends=([0-9]+)\ recvs=([0-9]+)\ pkts=([0-9]+)\ forged=([0-9]+) ]]; then
		sends=${BASH_REMATCH[1]} recvs=${BASH_REMATCH[2]} pkts=${BASH_REMATCH[3]}
		forged=${BASH_REMATCH[4]}
		if [ "$sends" -gt 0 ] && [ "$recvs" -gt 0 ] && [ "$pkts" -gt 0 ]; then
			ktap_ok "rdma_rxe_loop_test: traffic report"
		else
			ktap_fail "rdma_rxe_loop_test: traffic report" "no traffic: $traffic"
		fi
		check_counter rdma_sends "$(counter_of "$before" rdma_sends)" \
			"$(counter_of "$after" rdma_sends)" "$sends"
		check_counter rdma_recvs "$(counter_of "$before" rdma_recvs)" \
			"$(counter_of "$after" rdma_recvs)" "$recvs"
		check_counter sent_pkts "$(counter_of "$before" sent_pkts)" \
			"$(counter_of "$after" sent_pkts)" "$pkts"
		check_counter rcvd_pkts "$(counter_of "$before" rcvd_pkts)" \
			"$(counter_of "$after" rcvd_pkts)" "$pkts"
		# the rest of each broken UC message: its LAST packet
		check_counter drop_seq "$(counter_of "$before" drop_seq)" \
			"$(counter_of "$after" drop_seq)" 2
		# packets from an address that is not their QP's path
		if [ "$forged" -gt 0 ]; then
			check_counter drop_path "$(counter_of "$before" drop_path)" \
				"$(counter_of "$after" drop_path)" "$forged"
		else
			ktap_fail "hw_counters: drop_path moved" "the module forged no packet"
		fi
	else
		ktap_fail "rdma_rxe_loop_test: traffic report" "no 'traffic sends=' line in its kernel log"
	fi

	mad_drops_check "$mad_before" "$(mad_counters)"
	check_rxe_no_objects rxe0
	check_modules_unload
}

rdma_test_main "$@"
