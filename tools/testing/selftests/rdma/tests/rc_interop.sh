#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RC queue pairs between the kernel test ULP (ulp/rdma_rc_ulp.c) on two
# guests.  The active end runs the ULP's cases (SEND across the path MTU,
# SEND with immediate, RDMA WRITE (+immediate) read back with multi-packet
# RDMA READs, FETCH_AND_ADD and CMP_AND_SWP, ATOMIC_WRITE read back (only
# from the project's stack: stock rxe 6.12 cannot post a kernel
# ATOMIC_WRITE, it refuses inline data for it and takes the 8 bytes from
# nowhere else), an RNR NAK and its retry, SEND with invalidate and
# re-registration, local REG_MR/LOCAL_INV, a round-trip time and a WRITE
# stream); the passive end echoes and answers.
# The two ends exchange "QPN PSN RKEY ADDR" over TCP (busybox nc).
#
# Guest a runs the project's stack, guest b Debian's stock one; rounds:
#   1  a active (our requester, stock responder)
#   2  b active (stock requester, our responder)
#   3  a active; b drops, once each, two request packets picked by PSN
#      (a middle one of a 17-packet SEND and the last one of a 64-packet
#      SEND), with the PSNs wrapping through 0: our requester must resend
#      (sequence NAK, then local ACK timeout) and its retry counter moves
#   4  a active; a drops, once each, a middle response of a 32-packet
#      RDMA READ, the ACK ending a 17-packet SEND and the ATOMIC ACK of
#      a FETCH_AND_ADD (found by PSN): our completer asks again, and the
#      resent FETCH_AND_ADD must not add twice
#   5  b active; a drops two request packets by PSN: our responder sends a
#      sequence NAK and the stock requester resends; b drops our READ
#      response, ACK and ATOMIC ACK as a did in round 4: our responder
#      answers the duplicates (the ATOMIC from its saved result)
#   6  ibv_rc_pingpong (stock rdma-core) on b against our passive ULP
#   7  rc_verbs_peer.py (our own libibverbs requester, through pyverbs) on
#      b against our passive ULP: SENDs echoed, RDMA WRITE, RDMA READ back;
#      a middle WRITE packet and a middle READ response dropped once each
# Our rxe's counters (/sys/class/infiniband/rxe0/ports/1/hw_counters) are checked
# per round: RNR NAKs sent or received in every round, retries and
# sequence NAKs in the rounds with drops.  The host checks the capture:
# no malformed packet (tshark), every ICRC recomputed independently
# (harness/roce_pcap.py), UDP source ports in 0xC000-0xFFFF.
# rc_interop_project.sh runs the same with the project's stack on both.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 900
# alone: yes

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

RC_HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")/../harness" && pwd)
PORT=18700
MOD=rdma_rc_ulp
PARAMS=/sys/module/$MOD/parameters
RC_B_STOCK=${RC_B_STOCK:-1}
ROUNDS=5
PP_ITERS=${PP_ITERS:-200}
# PSNs of the active end in the rounds with PSN-targeted drops: close
# enough to 2^24 that the dropped packets are past the wrap.
PSN_DROP_A=$((0xffffe0))
PSN_DROP_B=$((0xfffff8))
PSN_DROP_R=$((0xffff00))
export KTAP_MODULE_TIMEOUT=400

rc_stage() {
	if [ "$RDMA_STACK" = stock ]; then
		echo "$STAGE_STOCK"
	else
		echo "$STAGE"
	fi
}

setup() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
}

# counter NAME: our rxe's counter NAME (0 on the stock stack)
counter() {
	local f=/sys/class/infiniband/rxe0/ports/1/hw_counters/$1

	if [ -r "$f" ]; then cat "$f"; else echo 0; fi
}

counters_snapshot() {
	local c

	for c in completer_retry_err send_rnr_err rcvd_rnr_err out_of_seq_request \
		duplicate_request drop_seq retry_exceeded_err; do
		echo "$c $(counter "$c")"
	done
}

# delta NAME: counter NAME now minus in the snapshot $SNAP
delta() {
	local before

	before=$(echo "$SNAP" | awk -v n="$1" '$1 == n { print $2 }')
	echo $(($(counter "$1") - ${before:-0}))
}

# A tc ingress filter on UDP port 4791 with MATCH..., whose action is ACT.
drop_add() {
	local prio=$1 act=$2

	shift 2
	tc filter add dev "$NETDEV" parent ffff: protocol ip prio "$prio" u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff "$@" \
		action gact $act
}

drop_setup() {
	tc qdisc del dev "$NETDEV" ingress 2>/dev/null
	tc qdisc add dev "$NETDEV" ingress
}

# The packets each filter dropped, in filter order: "N N".
drop_counts() {
	tc -s filter show dev "$NETDEV" parent ffff: | grep -o 'dropped [0-9]*' |
		awk '{ print $2 }' | tr '\n' ' ' | sed 's/ $//'
}

passive_connected() {
	dmesg | grep -q "$MOD: connect to .*: 0\$"
}

# exchange R [LINE]: send our "local" line (or LINE) to the peer over the
# ports of round R, print the peer's.
exchange() {
	local p=$((PORT + 10 * $1)) mine=${2:-} peer='' lp cp end=$((SECONDS + $(scaled 60)))

	[ -n "$mine" ] || mine=$(cat "$PARAMS/local")
	if [ "$RDMA_ROLE" = a ]; then lp=$p cp=$((p + 1)); else lp=$((p + 1)) cp=$p; fi
	echo "$mine" | timeout "$(scaled 60)" busybox nc -l -p "$lp" >/dev/null &
	while [ -z "$peer" ] && [ "$SECONDS" -lt "$end" ]; do
		peer=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$cp" 2>/dev/null </dev/null)
		[ -n "$peer" ] || sleep 0.5
	done
	wait
	echo "$peer"
}

# round R ACTIVE DROP: ACTIVE is the guest (a or b) that runs the cases;
# DROP is "" or the kind of drop this guest installs (req-psn PSN,
# resp-psn).
round() {
	local r=$1 act=$2 drop=$3 dpsn=$4 p=$((PORT + 10 * $1)) peer
	local mine_role=passive mod_args=() c n counts

	[ "$RDMA_ROLE" = "$act" ] && mine_role=active
	[ "$mine_role" = active ] && [ -n "$dpsn" ] && mod_args=(psn="$dpsn")
	# stock rxe cannot send a kernel ATOMIC_WRITE (see the ULP's parameter)
	[ "$mine_role" = active ] && [ "$RDMA_STACK" = project ] &&
		mod_args+=(atomic_write=1)
	ktap_diag "round $r: $mine_role${drop:+, dropping ($drop)}"
	dmesg -C
	SNAP=$(counters_snapshot)
	if [ "$mine_role" = active ]; then
		STAGE=$(rc_stage) ktap_module_begin "$MOD" role=active \
			dest="$PEER_IP" dmac="$PEER_MAC" "${mod_args[@]}" || return 1
	else
		load_passive "$r" || return 1
	fi
	peer=$(exchange "$r")
	if [ -z "$peer" ]; then
		ktap_fail "round $r: the peer's QPN PSN RKEY ADDR" "nothing from $PEER_IP"
		rmmod "$MOD"
		return 1
	fi
	ktap_ok "round $r: mine '$(cat "$PARAMS/local")', the peer's '$peer'"
	case $drop in
	req-psn)
		# the peer's first PSN: drop PSN+20 (middle of the 17-packet
		# SEND) and PSN+94 (last of the 64-packet SEND), first copy only
		drop_setup
		read -r _ n _ <<<"$peer"
		drop_add 1 "drop random determ pass 2" \
			match u32 $(((0x$n + 20) & 0xffffff)) 0x00ffffff at 36
		drop_add 2 "drop random determ pass 2" \
			match u32 $(((0x$n + 94) & 0xffffff)) 0x00ffffff at 36
		;;
	resp-psn)
		# our own first PSN: drop the first copy of a middle response
		# of the 32-packet RDMA READ (PSN+160), of the ACK that ends
		# the 17-packet SEND (PSN+30) and of the ATOMIC ACK of the
		# FETCH_AND_ADD (PSN+318): the last one is resent and must be
		# answered from the responder's saved result, not added twice
		drop_setup
		read -r _ n _ <"$PARAMS/local"
		drop_add 1 "drop random determ pass 2" match u8 0x0e 0xff at 28 \
			match u32 $(((0x$n + 160) & 0xffffff)) 0x00ffffff at 36
		drop_add 2 "drop random determ pass 2" match u8 0x11 0xff at 28 \
			match u32 $(((0x$n + 30) & 0xffffff)) 0x00ffffff at 36
		drop_add 3 "drop random determ pass 2" match u8 0x12 0xff at 28 \
			match u32 $(((0x$n + 318) & 0xffffff)) 0x00ffffff at 36
		;;
	esac
	if [ "$mine_role" = passive ]; then
		echo "$peer" >"$PARAMS/peer"
		retry_until 20 passive_connected ||
			ktap_fail "round $r: passive end connected" "$(dmesg | grep "$MOD" | tail -n 2)"
		rdma_barrier $((p + 2))
		rdma_barrier $((p + 3)) 600
		ktap_check "round $r: rmmod $MOD" rmmod "$MOD"
		c=$(dmesg | grep "echoed .* messages")
		if [[ "$c" =~ echoed\ ([0-9]+)\ messages,\ 0\ errors,\ 0\ registration ]] &&
			[ "${BASH_REMATCH[1]}" -ge 32 ]; then
			ktap_ok "round $r: passive end answered ${BASH_REMATCH[1]} messages, no error"
		else
			ktap_fail "round $r: passive end answered without error" "${c:-no summary}"
		fi
		ktap_log_clean "round $r: kernel log clean" < <(dmesg)
		cp /dev/null "$RESULTS/round$r-passive.dmesg"
		dmesg >"$RESULTS/round$r-passive.dmesg"
	else
		rdma_barrier $((p + 2))
		echo "$peer" >"$PARAMS/peer"
		ktap_module_end "$MOD"
		cp "$RESULTS/$MOD.dmesg" "$RESULTS/round$r-active.dmesg"
		rdma_barrier $((p + 3)) 600
	fi
	if [ -n "$drop" ]; then
		counts=$(drop_counts)
		tc qdisc del dev "$NETDEV" ingress
		# Each filter drops the first copy and every other one after
		# (a go-back-N resend or a re-ACK may carry the PSN again).
		if [ "$drop" = req-psn ] && [[ "$counts" =~ ^[1-9][0-9]*\ [1-9][0-9]*$ ]]; then
			ktap_ok "round $r: each picked request dropped ($counts)"
		elif [ "$drop" = resp-psn ] && [[ "$counts" =~ ^[1-9][0-9]*\ [1-9][0-9]*\ [1-9][0-9]*$ ]]; then
			ktap_ok "round $r: each picked response dropped ($counts)"
		else
			ktap_fail "round $r: packets dropped as planned" "'$counts'"
		fi
	fi
	[ "$RDMA_STACK" = project ] || return 0
	ktap_diag "round $r: our counters moved by: $(for c in completer_retry_err send_rnr_err rcvd_rnr_err out_of_seq_request duplicate_request drop_seq retry_exceeded_err; do printf '%s %s ' "$c" "$(delta "$c")"; done)"
	if [ "$mine_role" = active ]; then
		c=send_rnr_err
	else
		c=rcvd_rnr_err
	fi
	n=$(delta "$c")
	if [ "$n" -ge 1 ]; then
		ktap_ok "round $r: our $c counter moved ($n)"
	else
		ktap_fail "round $r: our $c counter moved" "$n"
	fi
	if [ "$(delta retry_exceeded_err)" -eq 0 ]; then
		ktap_ok "round $r: no retry exceeded"
	else
		ktap_fail "round $r: no retry exceeded" "$(delta retry_exceeded_err)"
	fi
	case "$mine_role:${5:-}" in
	active:completer_retry_err)
		n=$(delta completer_retry_err)
		if [ "$n" -ge "$6" ]; then
			ktap_ok "round $r: our completer_retry_err counter moved ($n)"
		else
			ktap_fail "round $r: our completer_retry_err counter moved" "$n, want >= $6"
		fi
		;;
	passive:seq_nak)
		n=$(delta out_of_seq_request)
		if [ "$n" -ge 1 ]; then
			ktap_ok "round $r: our responder sent sequence NAKs ($n)"
		else
			ktap_fail "round $r: our responder sent sequence NAKs" "$n"
		fi
		n=$(delta duplicate_request)
		if [ "$n" -ge 3 ]; then
			ktap_ok "round $r: our responder answered duplicates ($n)"
		else
			ktap_fail "round $r: our responder answered duplicates" "$n"
		fi
		;;
	esac
}

# pp_server: the TCP side of ibv_rc_pingpong's address exchange, for our
# passive ULP: reads the client's "LID:QPN:PSN:GID", hands QPN and PSN to
# the ULP, waits until it is connected, answers with the ULP's own line.
pp_server() {
	python3 - "$PP_PORT" "$PARAMS" "$1" <<'PY'
import socket, subprocess, sys, time
port, params, gid = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', port))
s.listen(1)
s.settimeout(120)
c, _ = s.accept()
c.settimeout(120)
m = b''
while len(m) < 52:
    d = c.recv(52 - len(m))
    if not d:
        sys.exit('short message')
    m += d
_, qpn, psn, _ = m[:51].decode().split(':')
with open(params + '/peer', 'w') as f:
    f.write('%s %s 0 0' % (qpn, psn))
end = time.time() + 30
while b'rdma_rc_ulp: connect to' not in subprocess.run(
        ['dmesg'], capture_output=True).stdout:
    if time.time() > end:
        sys.exit('the ULP did not connect')
    time.sleep(0.2)
mq, mp = open(params + '/local').read().split()[:2]
c.sendall(('0000:%06x:%06x:%s' % (int(mq, 16), int(mp, 16), gid)).encode() + b'\0')
c.recv(16)
print('client %s' % m[:51].decode())
PY
}

# Round 6: ibv_rc_pingpong (stock rdma-core, guest b) sends SENDs that our
# passive ULP (guest a) echoes; the exchange is pingpong's own TCP one.
# load_passive R [PARAM=VALUE...]: load our ULP as the passive end of
# round R, counters snapshotted and the kernel log cleared first.
load_passive() {
	local ko

	dmesg -C
	SNAP=$(counters_snapshot)
	ko=$(find "$(rc_stage)/lib/modules/$KVER" -name "$MOD.ko" | head -n 1)
	ktap_check "round $1: insmod $MOD role=passive" insmod "$ko" \
		role=passive dest="$PEER_IP" dmac="$PEER_MAC" "${@:2}"
}

pp_round() {
	local r=6 p=$((PORT + 60)) out n gid

	PP_PORT=$((p + 5))
	if [ "$RDMA_ROLE" = a ]; then
		load_passive "$r" || return 1
		gid=$(printf '00000000000000000000ffff%02x%02x%02x%02x' ${MY_IP//./ })
		rdma_barrier $((p + 1))
		out=$(pp_server "$gid" 2>&1)
		ktap_diag "round $r: pingpong server side: $out"
		rdma_barrier $((p + 2)) 300
		ktap_check "round $r: rmmod $MOD" rmmod "$MOD"
		out=$(dmesg | grep "echoed .* messages")
		if [[ "$out" =~ echoed\ ${PP_ITERS}\ messages,\ 0\ errors ]]; then
			ktap_ok "round $r: our ULP echoed all $PP_ITERS pingpong messages"
		else
			ktap_fail "round $r: our ULP echoed all $PP_ITERS pingpong messages" "${out:-no summary}"
		fi
		dmesg >"$RESULTS/round$r-passive.dmesg"
	else
		rdma_barrier $((p + 1))
		# until the server side listens (pingpong does not retry)
		for _ in $(seq 30); do
			out=$(timeout "$(scaled 200)" ibv_rc_pingpong -d rxe0 -g 1 -p "$PP_PORT" \
				-s 4096 -n "$PP_ITERS" -c "$PEER_IP" 2>&1)
			n=$?
			[[ "$out" == *"Couldn't connect"* ]] || break
			sleep 1
		done
		printf '%s\n' "$out" >"$RESULTS/round$r-pingpong.txt"
		if [ "$n" -eq 0 ] && echo "$out" | grep -q "$PP_ITERS iters in"; then
			ktap_ok "round $r: ibv_rc_pingpong -s 4096 -n $PP_ITERS against our ULP ($(echo "$out" | grep iters | tr -s ' '))"
		else
			ktap_fail "round $r: ibv_rc_pingpong against our ULP" "$(echo "$out" | tail -n 3 | tr '\n' ' ')"
		fi
		rdma_barrier $((p + 2)) 300
	fi
}

# Round 7: rc_verbs_peer.py, a user-space RC requester written against
# libibverbs (pyverbs) on the stock guest b, against our passive ULP on a:
# SENDs echoed, an RDMA WRITE and an RDMA READ of it back.  a drops the
# first copy of a middle WRITE packet (our responder sends a sequence
# NAK, the stock requester resends), b drops the first copy of a middle
# READ response (the stock requester asks again, our responder answers
# the duplicate READ from inside its stream).
VERBS_PSN=$((0xabc000))
VERBS_PY=$RC_HARNESS/../rc_verbs_peer.py

verbs_round() {
	local r=7 p=$((PORT + 70)) peer='' counts out rc pid n
	local lf=$RESULTS/round7-line go=$RESULTS/round7-go log=$RESULTS/round7-verbs.txt

	drop_setup
	if [ "$RDMA_ROLE" = a ]; then
		load_passive "$r" || return 1
		drop_add 1 "drop random determ pass 2" \
			match u32 $((VERBS_PSN + 9)) 0x00ffffff at 36
		timeout "$(scaled 60)" busybox nc -l -p "$p" <"$PARAMS/local" >/dev/null
		peer=$(timeout "$(scaled 60)" busybox nc -l -p $((p + 1)) </dev/null)
		echo "$peer" >"$PARAMS/peer"
		retry_until 20 passive_connected ||
			ktap_fail "round $r: our ULP connected to the program's QP" "'$peer'"
		rdma_barrier $((p + 2))
		rdma_barrier $((p + 3)) 300
		counts=$(drop_counts)
		ktap_check "round $r: rmmod $MOD" rmmod "$MOD"
		out=$(dmesg | grep "echoed .* messages")
		if [[ "$out" =~ echoed\ 3\ messages,\ 0\ errors ]]; then
			ktap_ok "round $r: our ULP echoed the program's 3 SENDs"
		else
			ktap_fail "round $r: our ULP echoed the program's 3 SENDs" "${out:-no summary}"
		fi
		for c in out_of_seq_request duplicate_request; do
			n=$(delta "$c")
			if [ "$n" -ge 1 ]; then
				ktap_ok "round $r: our $c counter moved ($n)"
			else
				ktap_fail "round $r: our $c counter moved" "$n"
			fi
		done
		dmesg >"$RESULTS/round$r-passive.dmesg"
	else
		drop_add 1 "drop random determ pass 2" match u8 0x0e 0xff at 28 \
			match u32 $((VERBS_PSN + 15)) 0x00ffffff at 36
		for _ in $(seq 120); do
			peer=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$p" </dev/null 2>/dev/null)
			[ -n "$peer" ] && break
			sleep 0.5
		done
		rm -f "$lf" "$go"
		/usr/bin/python3 "$VERBS_PY" --peer "$peer" --dest "$PEER_IP" \
			--psn "$VERBS_PSN" --line "$lf" --go "$go" >"$log" 2>&1 &
		pid=$!
		for _ in $(seq 100); do
			[ -s "$lf" ] && break
			sleep 0.1
		done
		for _ in $(seq 60); do
			timeout "$(scaled 5)" busybox nc "$PEER_IP" $((p + 1)) <"$lf" >/dev/null 2>&1 && break
			sleep 0.5
		done
		rdma_barrier $((p + 2))
		touch "$go"
		wait "$pid"
		rc=$?
		ktap_relay "round $r: rc_verbs_peer: " <"$log"
		if [ "$rc" -eq 0 ] && grep -q "pass:5 fail:0" "$log"; then
			ktap_ok "round $r: the libibverbs requester passed against our ULP"
		else
			ktap_fail "round $r: the libibverbs requester passed against our ULP" "exit $rc: $(tail -n 2 "$log" | tr '\n' ' ')"
		fi
		rdma_barrier $((p + 3)) 300
		counts=$(drop_counts)
	fi
	tc qdisc del dev "$NETDEV" ingress
	if [[ "$counts" =~ ^[1-9][0-9]*$ ]]; then
		ktap_ok "round $r: the picked packet was dropped ($counts)"
	else
		ktap_fail "round $r: the picked packet was dropped" "'$counts'"
	fi
}

# The rounds, from the point of view of guest $RDMA_ROLE:
# round R ACTIVE DROP PSN CHECK MIN
rounds() {
	round 1 a ""
	round 2 b ""
	if [ "$RDMA_ROLE" = a ]; then
		round 3 a "" "$PSN_DROP_A" completer_retry_err 2
		round 4 a resp-psn "$PSN_DROP_R" completer_retry_err 3
		round 5 b req-psn "$PSN_DROP_B" seq_nak
	else
		round 3 a req-psn "$PSN_DROP_A" seq_nak
		round 4 a "" "$PSN_DROP_R"
		round 5 b resp-psn "$PSN_DROP_B" completer_retry_err 5
	fi
	[ "$RC_B_STOCK" = 1 ] && pp_round
	[ "$RC_B_STOCK" = 1 ] && verbs_round
	return 0
}

guest_a() {
	setup || return
	rounds
	check_modules_unload
}

guest_b() {
	setup || return
	rounds
	check_modules_unload
}

rc_host_checks() {
	local res=$1 pcap=$1/wire.pcap n bad r side us out
	local -a tsh=(roce_tshark "$pcap")

	# tcount FILTER: packets matching FILTER, "error" if tshark fails
	tcount() {
		local o

		o=$("${tsh[@]}" -Y "$1" 2>/dev/null) || { echo error; return; }
		printf '%s' "$o" | grep -c .
	}

	n=$(tcount 'udp.dstport == 4791')
	ktap_diag "RoCE packets on the wire: $n"
	for op in $(seq 0 20) 22 23; do
		printf '%s ' "$op:$(tcount "udp.dstport == 4791 && infiniband.bth.opcode == $op")"
	done >"$res/opcodes.txt"
	ktap_diag "RC opcodes seen (opcode:packets): $(cat "$res/opcodes.txt")"
	for op in 0 1 2 3 4 5 6 7 8 9 10 12 13 14 15 16 17 18 19 20 23; do
		n=$(tr ' ' '\n' <"$res/opcodes.txt" | awk -F: -v o="$op" '$1 == o { print $2 }')
		if [ "${n:-0}" -lt 1 ]; then
			ktap_fail "every RC opcode the cases use is on the wire" "opcode $op: none"
			bad=1
		fi
	done
	[ -n "${bad:-}" ] || ktap_ok "every RC opcode the cases use is on the wire"
	# Short SENDs included: roce_tshark keeps tshark's RPC-over-RDMA
	# heuristic from claiming (and flagging) them.
	bad=$(roce_flagged "$pcap")
	if [ "$bad" = 0 ]; then
		ktap_ok "no malformed or flagged RoCE packet"
	else
		"${tsh[@]}" -Y "$ROCE_FLAGGED" 2>/dev/null | head -n 5 >"$res/flagged.txt"
		ktap_fail "no malformed or flagged RoCE packet" "$bad flagged: $(head -n 2 "$res/flagged.txt" | tr '\n' ' ')"
	fi
	out=$(python3 "$RC_HARNESS/roce_pcap.py" "$pcap")
	printf '%s\n' "$out" >"$res/roce_pcap.txt"
	ktap_diag "roce_pcap: $(echo "$out" | grep -v '^bad' | tr '\n' ' ')"
	if [ "$(echo "$out" | awk '$1 == "icrc_bad" { print $2 }')" = 0 ] &&
		[ "$(echo "$out" | awk '$1 == "icrc_ok" { print $2 }')" -ge 1000 ]; then
		ktap_ok "independent ICRC check agrees with every RoCE packet"
	else
		ktap_fail "independent ICRC check agrees with every RoCE packet" \
			"$(echo "$out" | grep -E '^(icrc|bad)' | tr '\n' ' ')"
	fi
	if [ "$(echo "$out" | awk '$1 == "sport_out" { print $2 }')" = 0 ]; then
		ktap_ok "UDP source ports within 0xC000-0xFFFF"
	else
		ktap_fail "UDP source ports within 0xC000-0xFFFF" "$(echo "$out" | grep sport_out)"
	fi
	for r in $(seq "$ROUNDS"); do
		for side in a b; do
			f=$res/$side/round$r-active.dmesg
			[ -e "$f" ] || continue
			us=$(sed -n 's/.*rdma_rc_ulp: \([0-9]*\) us per 64-byte.*/\1/p' "$f" | tail -n 1)
			bw=$(sed -n 's/.*RDMA WRITE stream \([0-9]*\) KB\/s.*/\1/p' "$f" | tail -n 1)
			ktap_diag "round $r: $side active: ${us:-?} us per SEND round trip, WRITE stream ${bw:-?} KB/s"
		done
	done
}

host_phase() { rc_host_checks "$@"; }

[ -n "${RC_INTEROP_LIB:-}" ] || rdma_test_main "$@"
