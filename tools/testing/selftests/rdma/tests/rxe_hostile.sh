#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile host on the wire (rxe_hostile.py) against RC connections of
# the kernel test ULP (ulp/rdma_rc_ulp.c).  Guest a runs our stack, guest b
# Debian's stock one.
#
#   1  third host, our stack the victim: a runs the ULP's cases (every
#      message compared) against b's passive end, b drops the first two
#      copies of a's first four request packets, and while a waits for
#      each the tool on b forges from 10.0.0.3 (its own MAC) ACKs and NAKs
#      (sequence, remote access, invalid request) for the waiting PSN, and
#      a READ, a duplicate READ, a WRITE FIRST without LAST and READs of
#      2^31+1 and 0xffffffff bytes at the PSN a expects from b.  The cases
#      must all pass, no probe may get an answer or move a's requester,
#      drop_path must have counted at least every packet the tool forged
#      (sysfs and "rdma statistic show" agree), rcvd_seq_err must not
#      move, and the kernel log must stay clean.
#   2  the same with stock the victim: b runs the cases, the tool on a
#      forges at b.  Only reported: what stock accepted shows up as
#      "ACCEPTED" diagnostics and in its ULP results; the tool itself
#      must have seen the connection and forged inside the window.
#   3-6  the tool is a's peer, at b's own address: it hands a's passive
#      ULP a QPN and PSN of its own and sends a WRITE, a READ of the whole
#      MR, duplicate READs (answered only when asking for exactly the
#      rest of a READ a remembers, the others dropped and counted in
#      drop_seq) and a READ past the MR (NAK remote access, QP in error);
#      a WRITE FIRST without LAST, after which unloading the ULP must
#      finish at once; READs of 2^31+1 and 0xffffffff bytes (NAK invalid
#      request, QP in error).  The ULP is loaded again for each.
# The host checks that every packet on the wire, forged ones included,
# has a valid ICRC and that the forged ones crossed it.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export RC_INTEROP_LIB=1
# shellcheck source-path=SCRIPTDIR source=rc_interop.sh
. "$(dirname "$0")/rc_interop.sh"
# Its guest_a and guest_b would run its own rounds: guest() runs ours.
unset -f guest_a guest_b

HOSTILE=$RC_HARNESS/../rxe_hostile.py
PORT=19300
HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters
FORGE_IP=10.0.0.3
FORGE_MAC=52:54:00:00:00:03
# First PSNs of the active (victim) and passive end in the third-host
# rounds; the tool's triggers are the victim's first four PSNs
# (rxe_hostile.py TRIGGERS), whose first two copies (DROPS) the peer
# drops.
VICTIM_PSN=$((0x123400))
PEER_PSN=$((0x654300))
NTRIGGERS=4
SCENARIOS="reads write-first read-huge read-max"
# The ULP's cases end well before this, failing ones too (each of its
# waits gives up after 20 s).
export KTAP_MODULE_TIMEOUT=120

# Every counter of rxe0's port ("name value"): what delta compares with.
counters_snapshot() {
	grep -H . "$HWC"/* 2>/dev/null | sed 's|^.*/||; s/:/ /'
}

# swap R WHAT [LINE]: exchange R [LINE], the peer's line into $GOT.
# Without one, WHAT fails and our ULP, if loaded, is unloaded.
swap() {
	GOT=$(exchange "$1" "${3:-}")
	[ -n "$GOT" ] && return 0
	ktap_fail "round $1: $2" "nothing from $PEER_IP"
	! module_loaded "$MOD" || rmmod "$MOD"
	return 1
}

# tool_sent FILE: the packets rxe_hostile.py sent, from its OUT.json
tool_sent() {
	sed -n 's/^ *"sent": \([0-9]*\).*/\1/p' "$1" 2>/dev/null
}

# The victim of a third-host round: runs the ULP's cases against the peer.
third_victim() {
	local r=$1 p=$((PORT + 10 * $1)) peer sent n v

	SNAP=$(counters_snapshot)
	dmesg -C
	STAGE=$(rc_stage) ktap_module_begin "$MOD" role=active \
		dest="$PEER_IP" dmac="$PEER_MAC" psn="$VICTIM_PSN" || return 1
	swap "$r" "the peer's QPN PSN RKEY ADDR" || return 1
	peer=$GOT
	rdma_barrier $((p + 2))
	echo "$peer" >"$PARAMS/peer"
	if [ "$RDMA_STACK" = project ]; then
		ktap_module_end "$MOD"
	else
		ulp_report "$r"
	fi
	rdma_barrier $((p + 3)) 120
	sent=$(exchange $((r + 100)) -)
	ktap_diag "round $r: the tool forged ${sent:-?} packets at us"
	if [ "$RDMA_STACK" != project ]; then
		ktap_diag "round $r: stock counters moved by: $(for c in rcvd_seq_err completer_retry_err retry_exceeded_err duplicate_request out_of_seq_request; do printf '%s %s ' "$c" "$(delta "$c")"; done)"
		return 0
	fi
	if ! [ -r "$HWC/drop_path" ]; then
		ktap_fail "round $r: drop_path counted the forged packets" "no $HWC/drop_path"
	elif [[ "$sent" =~ ^[1-9][0-9]*$ ]] && n=$(delta drop_path) && [ "$n" -ge "$sent" ]; then
		ktap_ok "round $r: drop_path counted the forged packets (+$n, forged $sent)"
	else
		ktap_fail "round $r: drop_path counted the forged packets" "+${n:-?}, forged '${sent}'"
	fi
	v=$(rdma -j statistic show link rxe0/1 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["drop_path"])' 2>/dev/null)
	if [ -n "$v" ] && [ "$v" = "$(cat "$HWC/drop_path" 2>/dev/null)" ]; then
		ktap_ok "round $r: rdma statistic show: drop_path $v, as sysfs"
	else
		ktap_fail "round $r: rdma statistic show: drop_path as sysfs" "'$v'"
	fi
	n=$(delta rcvd_seq_err)
	if [ "$n" = 0 ]; then
		ktap_ok "round $r: no sequence NAK taken (rcvd_seq_err +0)"
	else
		ktap_fail "round $r: no sequence NAK taken" "rcvd_seq_err +$n"
	fi
}

# ulp_report R: the stock victim's ULP: its results only reported.
ulp_report() {
	local out end=$((SECONDS + $(scaled 90)))

	while ! kmsg_since "$_KTAP_MOD_MARK" | grep -q "$MOD: pass:" &&
		[ "$SECONDS" -lt "$end" ]; do
		sleep 0.5
	done
	ktap_check "round $1: rmmod $MOD" rmmod "$MOD"
	out=$(kmsg_since "$_KTAP_MOD_MARK" | grep -E '^(not ok|# rdma_rc_ulp: pass:)')
	ktap_diag "round $1: stock victim: ${out:-no result}"
	kmsg_since "$_KTAP_MOD_MARK" >"$RESULTS/round$1-victim.dmesg"
}

# The peer of a third-host round: passive end of the connection, drops
# the triggers' first two copies, runs the tool.
third_attacker() {
	local r=$1 p=$((PORT + 10 * $1)) peer vpsn i counts out pid sent expect=drop
	local log=$RESULTS/round$1-hostile.txt json=$RESULTS/round$1-hostile.json
	local ready=/run/hostile-ready stop=/run/hostile-stop

	[ "$VICTIM_STACK" = project ] || expect=report
	load_passive "$r" psn="$PEER_PSN" || return 1
	swap "$r" "the victim's QPN PSN RKEY ADDR" || return 1
	peer=$GOT
	drop_setup
	read -r _ vpsn _ <<<"$peer"
	for i in $(seq 0 $((NTRIGGERS - 1))); do
		drop_add $((i + 1)) "drop random determ pass 3" \
			match u32 $(((0x$vpsn + i) & 0xffffff)) 0x00ffffff at 36
	done
	rm -f "$ready" "$stop"
	python3 "$HOSTILE" third-host --ifname "$NETDEV" \
		--victim "$PEER_IP,$PEER_MAC" --peer "$MY_IP" \
		--forge "$FORGE_IP,$FORGE_MAC" --victim-line "$peer" \
		--peer-line "$(cat "$PARAMS/local")" --expect "$expect" \
		--ready "$ready" --stop "$stop" "$json" >"$log" 2>&1 &
	pid=$!
	retry_until 30 test -e "$ready" ||
		ktap_fail "round $r: rxe_hostile.py capturing" "$(tail -n 3 "$log")"
	echo "$peer" >"$PARAMS/peer"
	retry_until 20 passive_connected ||
		ktap_fail "round $r: passive end connected" "$(dmesg | grep "$MOD" | tail -n 2)"
	rdma_barrier $((p + 2))
	rdma_barrier $((p + 3)) 120
	touch "$stop"
	wait "$pid"
	ktap_relay "round $r: " <"$log"
	sent=$(tool_sent "$json")
	exchange $((r + 100)) "${sent:-0}" >/dev/null
	counts=$(drop_counts)
	tc qdisc del dev "$NETDEV" ingress
	# A victim that took a forged packet may have stopped before the
	# next trigger: when only reporting, the first one is enough.
	if [[ "$counts" =~ ^([1-9][0-9]*\ ){3}[1-9][0-9]*$ ]] ||
		[[ "$expect" = report && "$counts" =~ ^[1-9] ]]; then
		ktap_ok "round $r: triggers dropped at the peer ($counts)"
	else
		ktap_fail "round $r: triggers dropped at the peer" "'$counts'"
	fi
	ktap_check "round $r: rmmod $MOD" rmmod "$MOD"
	out=$(dmesg | grep "echoed .* messages")
	if [ "$expect" = report ]; then
		ktap_diag "round $r: our passive end: ${out:-no summary}"
	elif [[ "$out" =~ echoed\ ([0-9]+)\ messages,\ 0\ errors ]] &&
		[ "${BASH_REMATCH[1]}" -ge 32 ]; then
		ktap_ok "round $r: passive end answered ${BASH_REMATCH[1]} messages, no error"
	else
		ktap_fail "round $r: passive end answered without error" "${out:-no summary}"
	fi
	log_clean "$r"
}

# log_clean R: no warning in the kernel log since the round began
log_clean() {
	ktap_log_clean "round $1: kernel log clean" < <(dmesg)
	dmesg >"$RESULTS/round$1.dmesg"
}

# qp_state QPN: the state "rdma res show qp" gives our QP QPN
qp_state() {
	rdma -j res show qp lqpn "$1" 2>/dev/null |
		sed -n 's/.*"state":"\([A-Z_]*\)".*/\1/p'
}

# The victim of a hostile-peer round: our passive ULP.
peer_victim() {
	local r=$1 s=$2 p=$((PORT + 10 * $1)) line qpn st n t0 rc

	load_passive "$r" || return 1
	swap "$r" "the tool's line ($s)" || return 1
	line=$GOT
	echo "$line" >"$PARAMS/peer"
	retry_until 20 passive_connected ||
		ktap_fail "round $r ($s): connected to '$line'" "$(dmesg | grep "$MOD" | tail -n 2)"
	rdma_barrier $((p + 2))
	rdma_barrier $((p + 3)) 120
	read -r qpn _ <"$PARAMS/local"
	st=$(qp_state $((0x$qpn)))
	case $s in
	read-huge | read-max | reads)
		if [ "$st" = ERR ]; then
			ktap_ok "round $r ($s): our QP is in the error state"
		else
			ktap_fail "round $r ($s): our QP is in the error state" "state '$st'"
		fi
		;;
	esac
	if [ "$s" = reads ]; then
		n=$(delta drop_seq)
		if [ "$n" -ge 2 ] && [ "$(delta duplicate_request)" -ge 1 ]; then
			ktap_ok "round $r ($s): drop_seq +$n, duplicate_request +$(delta duplicate_request)"
		else
			ktap_fail "round $r ($s): two duplicates dropped, one answered" \
				"drop_seq +$n, duplicate_request +$(delta duplicate_request)"
		fi
	fi
	t0=$SECONDS
	_bg_timeout 20 rmmod "$MOD"
	rc=$?
	if [ "$rc" = 0 ]; then
		ktap_ok "round $r ($s): rmmod $MOD returned ($((SECONDS - t0)) s)"
	else
		ktap_fail "round $r ($s): rmmod $MOD returned" "status $rc after $((SECONDS - t0)) s"
	fi
	log_clean "$r"
}

# The tool as the peer of our passive ULP, at our own address: it hands
# out its line, gets the victim's once the victim is connected.
peer_attacker() {
	local r=$1 s=$2 p=$((PORT + 10 * $1)) pid rc
	local log=$RESULTS/round$1-$2.txt line=/run/hostile-line go=/run/hostile-go

	rm -f "$line" "$go"
	python3 "$HOSTILE" peer "$s" --ifname "$NETDEV" \
		--victim "$PEER_IP,$PEER_MAC" --me "$MY_IP,$MY_MAC" \
		--line "$line" --go "$go" "$RESULTS/round$r-$s.json" >"$log" 2>&1 &
	pid=$!
	retry_until 30 test -e "$line"
	if ! swap "$r" "the victim's QPN PSN RKEY ADDR ($s)" "$(cat "$line" 2>/dev/null)"; then
		kill "$pid"
		return 1
	fi
	rdma_barrier $((p + 2))
	echo "$GOT" >"$go.tmp" && mv "$go.tmp" "$go"
	wait "$pid"
	rc=$?
	ktap_relay "round $r ($s): " <"$log"
	[ "$rc" = 0 ] || grep -q '^not ok' "$log" ||
		ktap_fail "round $r ($s): rxe_hostile.py peer" "exit $rc: $(tail -n 3 "$log")"
	rdma_barrier $((p + 3)) 120
}

# third_host R VICTIM STACK: the third-host round, guest VICTIM (running
# STACK) the victim
third_host() {
	ktap_diag "round $1: third host, victim $2 ($3 stack)"
	VICTIM_STACK=$3
	if [ "$RDMA_ROLE" = "$2" ]; then
		third_victim "$1"
	else
		third_attacker "$1"
	fi
}

# The rounds, from the point of view of guest $RDMA_ROLE: a READ of 2^31
# bytes or more kept a driver without a length check busy for minutes,
# hence those come last.
rounds() {
	local r=3 s

	third_host 1 a project
	third_host 2 b stock
	for s in $SCENARIOS; do
		if [ "$RDMA_ROLE" = a ]; then
			ktap_diag "round $r: hostile peer, $s"
			peer_victim "$r" "$s"
		else
			peer_attacker "$r" "$s"
		fi
		r=$((r + 1))
	done
}

guest() {
	setup || return
	rounds
	check_modules_unload
}

host_phase() {
	local res=$1 out want n f

	out=$(python3 "$RC_HARNESS/roce_pcap.py" "$res/wire.pcap")
	printf '%s\n' "$out" >"$res/roce_pcap.txt"
	if [ "$(echo "$out" | awk '$1 == "icrc_bad" { print $2 }')" = 0 ]; then
		ktap_ok "every RoCE packet on the wire has a valid ICRC (forged ones too)"
	else
		ktap_fail "every RoCE packet on the wire has a valid ICRC" \
			"$(echo "$out" | grep -E '^(icrc|bad)' | tr '\n' ' ')"
	fi
	want=0
	for f in "$res"/b/round1-hostile.json "$res"/a/round2-hostile.json; do
		n=$(tool_sent "$f")
		want=$((want + ${n:-0}))
	done
	n=$(echo "$out" | awk -v ip="$FORGE_IP" '$1 == "from" && $2 == ip { print $3 }')
	if [ "$want" -gt 0 ] && [ "${n:-0}" -ge "$want" ]; then
		ktap_ok "the forged packets crossed the wire ($n from $FORGE_IP)"
	else
		ktap_fail "the forged packets crossed the wire" "${n:-0} from $FORGE_IP, the tools forged $want"
	fi
}

rdma_test_main "$@"
