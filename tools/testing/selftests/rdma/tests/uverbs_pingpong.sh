#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User-space queue pairs through ib_uverbs: Debian's unmodified
# ibverbs-utils (rdma-core 44) ping-pong programs between guest a (the
# project's stack) and guest b (stock), an rxe0 on each.
#   runs: ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong and
#      ibv_srq_pingpong (16 QPs on one SRQ), first with a as the server
#      and b as the client, then the other way round.  With the
#      IPv4-mapped GID of rxe0: RC and UC move 1, 4096 and 65536 bytes
#      (64 packets at the 1024-byte path MTU), UD 1 and 1024 (its limit,
#      the port's active MTU), SRQ 1 and 4096, and RC runs once more
#      sleeping on completion events (-e).  With the IPv6 (link-local)
#      GID: RC 4096, UC 65536, UD 1024, SRQ 4096.  The GID indexes are read
#      from the port's sysfs GID table (types and GIDs), not assumed.
#      Every run checks its receive buffers (-c).  Each run is one result
#      on each guest: the program exits 0 within its time limit
#      (PP_TIMEOUT), reports all its iterations, no failed completion and
#      no invalid data, and both ends printed GIDs of the kind asked for
#      (::ffff:10.0.0.x, or two distinct IPv6 ones).
#      The first time a guest serves ibv_srq_pingpong, while the server
#      waits for its client, resource tracking must list its context,
#      PD, MR, CQ, SRQ and 16 QPs, all owned by its one process (so the
#      checks below look at a listing that does show user objects).
#   after the runs, on both guests: resource tracking lists no user
#      (process-owned) context, PD, MR, CQ, SRQ or QP on rxe0, and its
#      object counts are those from before the runs; rdma link delete
#      rxe0 returns (on the project's stack rdma_rxe also logs that it
#      freed rxe0 with 0 verbs objects left); no process holds
#      /dev/infiniband, every RDMA module unloads with no reference left
#      over; the kernel log since the start has no report.
# Both guests walk the same list of runs.  Per run the client says it is
# ready (a TCP connection to the server's guest), the server starts its
# program and, once that listens, says so back; only then does the
# client start, so it connects once.  When a program ends, its guest
# tells the other, whose program is stopped if it has not ended
# PEER_GRACE s later (a client that failed at once does not leave the
# server waiting); a run that hangs on both is killed at PP_TIMEOUT and
# fails alone; after MAX_HANGS such runs in a row the rest are not
# tried.  PP_ITERS and PP_TIMEOUT (seconds) can be set through
# RDMA_TEST_ENV="PP_ITERS PP_TIMEOUT".
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# The programs' TCP ports (one per run) and the guests' (three per run).
PP_PORT=18600
SYNC_PORT=19600
# Iterations per program.  The QEMU wire holds back guest a's second
# frame of a burst for about 45 ms (guest a's QEMU does not set
# TCP_NODELAY on the socket it accepted: Nagle waits for b's delayed
# ACK), and an RC exchange, or a multi-packet UC one, always has one:
# they get fewer iterations to stay in time.
declare -A ITERS=([rc]=100 [uc]=100 [ud]=200 [srq]=200)
if [ -n "${PP_ITERS:-}" ]; then
	ITERS=([rc]=$PP_ITERS [uc]=$PP_ITERS [ud]=$PP_ITERS [srq]=$PP_ITERS)
fi
# Seconds one program may run; seconds a server may take to listen;
# seconds a program may go on once its peer's has ended.
PP_TIMEOUT=${PP_TIMEOUT:-60}
LISTEN_TIMEOUT=30
PEER_GRACE=5
# After this many runs in a row end at their time limit, the rest are
# not tried.
MAX_HANGS=3
HANGS=0
PORT1=/sys/class/infiniband/rxe0/ports/1
# The GID index of each kind (v4, v6), once found.
declare -A GIDX
# Set once the guests lost step: the runs left are not tried.
LOST=

# cases: the runs, one per line, "PROG KIND SERVER OPTIONS...", in the
# same order on both guests.  The IPv4-mapped GID gets every size, the
# IPv6 one a size per program: the GID changes the addressing (path, AH,
# route, MAC), not how messages are cut into packets.
cases() {
	local srv

	for srv in a b; do
		echo "rc v4 $srv -s 1 -c"
		echo "rc v4 $srv -s 4096 -c"
		echo "rc v4 $srv -s 65536 -c"
		echo "uc v4 $srv -s 1 -c"
		echo "uc v4 $srv -s 4096 -c"
		echo "uc v4 $srv -s 65536 -c"
		echo "ud v4 $srv -s 1 -c"
		echo "ud v4 $srv -s 1024 -c"
		echo "srq v4 $srv -s 1 -c"
		echo "srq v4 $srv -s 4096 -c"
		echo "rc v4 $srv -s 4096 -e -c"
	done
	for srv in a b; do
		echo "rc v6 $srv -s 4096 -c"
		echo "uc v6 $srv -s 65536 -c"
		echo "ud v6 $srv -s 1024 -c"
		echo "srq v6 $srv -s 4096 -c"
	done
}

# find_gids: GIDX[v4] and GIDX[v6], the first RoCE v2 GID of rxe0 that
# is IPv4-mapped and the first that is not; fails while one is missing.
find_gids() {
	local i g t

	GIDX=()
	for i in $(for g in "$PORT1"/gids/*; do echo "${g##*/}"; done | sort -n); do
		read -r g <"$PORT1/gids/$i" 2>/dev/null || continue
		[ "$g" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
		read -r t <"$PORT1/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] || continue
		if [[ "$g" == 0000:0000:0000:0000:0000:ffff:* ]]; then
			[ -n "${GIDX[v4]:-}" ] || GIDX[v4]=$i
		else
			[ -n "${GIDX[v6]:-}" ] || GIDX[v6]=$i
		fi
		[ -n "${GIDX[v4]:-}" ] && [ -n "${GIDX[v6]:-}" ] && return 0
	done
	return 1
}

rxe0_port_active() {
	rdma link show rxe0/1 | grep -q 'state ACTIVE'
}

setup() {
	local o1 o2 o3 o4 want out

	ktap_check "rdma, jq, ibv_{rc,uc,ud,srq}_pingpong installed" require_cmd rdma jq \
		ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong || return 1
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs || return 1
	# The guest kernel's default qdisc, fq_codel, drops packets that sat
	# in it over 5 ms for 100 ms, as they do while a TCG guest stalls:
	# UC and UD have no recovery, a run would hang on a lost packet.
	# pfifo_fast drops only when full, and tells rxe so.
	ktap_diag "$NETDEV: $(tc qdisc show dev "$NETDEV" | head -n 1)"
	ktap_check "tc qdisc replace dev $NETDEV root pfifo_fast" \
		tc qdisc replace dev "$NETDEV" root pfifo_fast || return 1
	if [ "$RDMA_STACK" = project ]; then
		out=$(modinfo -n ib_uverbs 2>&1)
		if [[ "$out" == */updates/* ]]; then
			ktap_ok "ib_uverbs is the project's ($out)"
		else
			ktap_fail "ib_uverbs is the project's" "$out"
		fi
	fi
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	if ! retry_until 30 find_gids; then
		ktap_fail "rxe0 has an IPv4-mapped and an IPv6 RoCE v2 GID" \
			"found v4 at '${GIDX[v4]:-}', v6 at '${GIDX[v6]:-}'"
		return 1
	fi
	IFS=. read -r o1 o2 o3 o4 <<<"$MY_IP"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
	if [ "$(cat "$PORT1/gids/${GIDX[v4]}")" = "$want" ]; then
		ktap_ok "rxe0 GIDs: IPv4-mapped $MY_IP at index ${GIDX[v4]}, IPv6 $(cat "$PORT1/gids/${GIDX[v6]}") at ${GIDX[v6]}"
	else
		ktap_fail "rxe0 has the IPv4-mapped GID of $MY_IP" \
			"index ${GIDX[v4]} is $(cat "$PORT1/gids/${GIDX[v4]}")"
		return 1
	fi
	retry_until 20 rxe0_port_active
	if BASELINE=$(rdma_res_counts rxe0 ctx pd mr cq srq qp); then
		ktap_ok "rxe0 before the runs: $BASELINE"
	else
		ktap_fail "rxe0 before the runs: rdma resource show counts its objects" \
			"$(rdma -j resource show 2>&1 | head -c 300)"
	fi
}

# listening PORT: a TCP socket of this guest listens on PORT (state 0A in
# /proc/net/tcp or tcp6).
listening() {
	local want addr st

	printf -v want '%04X' "$1"
	while read -r _ addr _ st _; do
		[ "${addr##*:}" = "$want" ] && [ "$st" = 0A ] && return 0
	done < <(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null)
	return 1
}

# hear_peer PORT SECS: wait until the peer connects to our PORT.
hear_peer() {
	timeout "$(scaled "$2")" busybox nc -l -p "$1" </dev/null >/dev/null 2>&1
}

# hear_peer_bg PORT SECS: hear_peer in the background, HEARD its pid (the
# timeout's: killing it ends the listener too).
hear_peer_bg() {
	timeout "$(scaled "$2")" busybox nc -l -p "$1" </dev/null >/dev/null 2>&1 &
	HEARD=$!
}

# tell_peer PORT SECS: connect to the peer's PORT (hear_peer on its side),
# retrying while it is not listening yet, for at most SECS.
tell_peer() {
	local end=$((SECONDS + $(scaled "$2"))) fd

	while :; do
		if { exec {fd}<>"/dev/tcp/$PEER_IP/$1"; } 2>/dev/null; then
			exec {fd}>&-
			return 0
		fi
		[ "$SECONDS" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# check_run DESC LOG RC KIND ITERS SECS: the result of one program.
check_run() {
	local desc=$1 log=$2 rc=$3 kind=$4 iters=$5 secs=$6 lg rg why='' tail

	lg=$(sed -n 's/.*local address:.*GID \(.*\)$/\1/p' "$log" | head -n 1)
	rg=$(sed -n 's/.*remote address:.*GID \(.*\)$/\1/p' "$log" | head -n 1)
	if [ -n "$STOPPED" ]; then
		why="stopped $(scaled "$PEER_GRACE") s after the peer's program ended"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why="killed at its time limit of $(scaled "$PP_TIMEOUT") s"
	elif [ "$rc" -ne 0 ]; then
		why="exit $rc"
	elif grep -qE 'invalid data|Failed status|Couldn' "$log"; then
		why="it reported an error"
	elif ! grep -q "^$iters iters in " "$log"; then
		why="no '$iters iters in' line"
	elif [ "$kind" = v4 ] && { [ "$lg" != "::ffff:$MY_IP" ] || [ "$rg" != "::ffff:$PEER_IP" ]; }; then
		why="GIDs '$lg' and '$rg', not ::ffff:$MY_IP and ::ffff:$PEER_IP"
	elif [ "$kind" = v6 ] && { [[ ! "$lg" =~ ^[0-9a-f:]+$ ]] || [[ ! "$rg" =~ ^[0-9a-f:]+$ ]] ||
		[ "$lg" = "$rg" ]; }; then
		why="GIDs '$lg' and '$rg', not two IPv6 ones"
	fi
	if [ -z "$why" ]; then
		ktap_ok "$desc ($secs s; $(sed -n 's/^[0-9]* iters in \(.*\)$/\1/p' "$log"))"
	else
		tail=$(grep -v 'address:' "$log" | tail -n 2 | paste -sd ' ' -)
		ktap_fail "$desc" "$why, $secs s${tail:+: $tail}"
	fi
}

# run_case N PROG KIND SERVER OPTIONS...: this guest's side of run N.
run_case() {
	local n=$1 prog=ibv_$2_pingpong kind=$3 srv=$4 iters=${ITERS[$2]}
	local port=$((PP_PORT + n)) sp=$((SYNC_PORT + 3 * n)) side=client peer=a
	local -a cmd
	local log pid hp go rc t0 desc fd

	[ "$RDMA_ROLE" = "$srv" ] && side=server
	[ "$srv" = a ] && peer=b
	log=$RESULTS/$(printf '%02d' "$n")-$2-$kind-$side.log
	desc="$prog ${*:5} -n $iters, $kind GID ${GIDX[$kind]}, server $srv client $peer: the $side"
	if [ -n "$LOST" ]; then
		ktap_fail "$desc" "not run: $LOST"
		return
	fi
	cmd=(timeout -k 5 "$(scaled "$PP_TIMEOUT")" "$prog" -d rxe0 -g "${GIDX[$kind]}"
		-p "$port" -n "$iters" "${@:5}")
	if [ "$side" = server ]; then
		# The client is done with the run before (its limit is
		# PP_TIMEOUT) and ready for this one.
		if ! hear_peer "$sp" $((PP_TIMEOUT + 30)); then
			LOST="the client did not come to run $n"
			ktap_fail "$desc" "$LOST"
			return
		fi
		hear_peer_bg $((sp + 2)) $((PP_TIMEOUT + LISTEN_TIMEOUT + 30))
		hp=$HEARD
		t0=$EPOCHREALTIME
		"${cmd[@]}" >"$log" 2>&1 &
		pid=$!
		for _ in $(seq $(($(scaled "$LISTEN_TIMEOUT") * 10))); do
			listening "$port" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		if [ "$2" = srq ] && [ -z "${TRACKED:-}" ]; then
			TRACKED=1
			check_tracked "$prog"
		fi
		# Go ahead either way: a server that does not listen fails the
		# client at once.
		tell_peer $((sp + 1)) 10 || LOST="the client did not hear of run $n"
	else
		hear_peer_bg $((sp + 1)) $((PP_TIMEOUT + LISTEN_TIMEOUT + 40))
		go=$HEARD
		if ! tell_peer "$sp" $((PP_TIMEOUT + 30)); then
			kill "$go" 2>/dev/null
			wait "$go"
			LOST="the server did not come to run $n"
			ktap_fail "$desc" "$LOST"
			return
		fi
		if ! wait "$go"; then
			LOST="no word from the server of run $n"
			ktap_fail "$desc" "$LOST"
			return
		fi
		hear_peer_bg $((sp + 2)) $((PP_TIMEOUT + 30))
		hp=$HEARD
		t0=$EPOCHREALTIME
		"${cmd[@]}" "$PEER_IP" >"$log" 2>&1 &
		pid=$!
	fi
	wait_run "$pid" "$hp"
	rc=$?
	# Done: one try, a peer that does not listen any more is done too.
	if { exec {fd}<>"/dev/tcp/$PEER_IP/$((sp + 2))"; } 2>/dev/null; then
		exec {fd}>&-
	fi
	kill "$hp" 2>/dev/null
	wait "$hp" 2>/dev/null
	check_run "$desc" "$log" "$rc" "$kind" "$iters" \
		"$(echo "$EPOCHREALTIME $t0" | awk '{ printf "%.1f", $1 - $2 }')"
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		HANGS=$((HANGS + 1))
		[ "$HANGS" -lt "$MAX_HANGS" ] || LOST="$HANGS runs in a row hit their time limit"
	else
		HANGS=0
	fi
}

# wait_run PID HP: the status of the program PID.  Once the peer said its
# program ended (HP, our hear_peer for it, ended well), PID has
# PEER_GRACE s more, then is stopped (STOPPED says so): a peer that
# failed does not leave this one waiting until its time limit.
wait_run() {
	local pid=$1 hp=$2 end=''

	STOPPED=
	while kill -0 "$pid" 2>/dev/null; do
		if [ -z "$end" ] && ! kill -0 "$hp" 2>/dev/null; then
			if wait "$hp"; then
				end=$((SECONDS + $(scaled "$PEER_GRACE")))
			else
				end=never
			fi
		elif [ "$end" != never ] && [ -n "$end" ] && [ "$SECONDS" -ge "$end" ]; then
			STOPPED=1
			kill "$pid" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait "$pid"
}

# user_objects: the objects resource tracking lists on rxe0 with an owner
# process, one "KIND PID COMM" line each (COMM of an SRQ is what iproute2
# 6.1 prints there: its QP numbers); "KIND ? rdma failed: ..." when a
# listing cannot be had.
user_objects() {
	local kind out
	local -a filter

	for kind in ctx pd mr cq srq qp; do
		filter=(dev rxe0)
		[ "$kind" = qp ] && filter=(link rxe0/1)
		if ! out=$(rdma -j resource show "$kind" "${filter[@]}" 2>&1); then
			echo "$kind ? rdma failed: $out"
			continue
		fi
		jq -r --arg k "$kind" '.[] | select(has("pid")) | "\($k) \(.pid) \(.comm)"' <<<"$out" ||
			echo "$kind ? jq failed on: $out"
	done
}

# check_tracked PROG: while the server PROG (ibv_srq_pingpong) waits for
# its client, resource tracking lists its context, PD, MR, CQ, SRQ and
# 16 QPs, all of one process.
check_tracked() {
	local out counts pids desc="while $1 waits, rdma resource lists its ctx, PD, MR, CQ, SRQ, 16 QPs"

	out=$(user_objects)
	counts=$(awk '{ n[$1]++ } END { printf "ctx=%d pd=%d mr=%d cq=%d srq=%d qp=%d", n["ctx"], n["pd"], n["mr"], n["cq"], n["srq"], n["qp"] }' <<<"$out")
	pids=$(awk '{ print $2 }' <<<"$out" | sort -u | paste -sd ' ' -)
	if [ "$counts" = "ctx=1 pd=1 mr=1 cq=1 srq=1 qp=16" ] && [[ "$pids" =~ ^[0-9]+$ ]] &&
		[ -z "$(awk -v c="${1:0:15}" '$1 != "srq" && $3 != c' <<<"$out")" ]; then
		ktap_ok "$desc (pid $pids)"
	else
		ktap_fail "$desc" "$counts, pids '$pids': $(paste -sd ';' - <<<"$out")"
	fi
}

# The checks after the runs (see the header).
teardown() {
	local out mark

	out=$(user_objects)
	if [ -z "$out" ]; then
		ktap_ok "rxe0: no user context, PD, MR, CQ, SRQ or QP left (rdma resource show)"
	else
		ktap_fail "rxe0: no user context, PD, MR, CQ, SRQ or QP left (rdma resource show)" \
			"$(echo "$out" | paste -sd ';' -)"
	fi
	out=$(rdma_res_counts rxe0 ctx pd mr cq srq qp)
	if [ -n "$out" ] && [ "$out" = "$BASELINE" ]; then
		ktap_ok "rxe0: object counts as before the runs ($out)"
	else
		ktap_fail "rxe0: object counts as before the runs" "before '$BASELINE', now '$out'"
	fi
	mark="uverbs_pingpong delete $$"
	kmsg_mark "$mark"
	if _bg_timeout 30 rdma link delete rxe0; then
		ktap_ok "rdma link delete rxe0"
	else
		ktap_fail "rdma link delete rxe0" "failed or did not return in $(scaled 30) s"
	fi
	if [ "$RDMA_STACK" = project ]; then
		if retry_until 30 rxe_released_clean "$mark" rxe0; then
			ktap_ok "rxe0 freed with 0 verbs objects left"
		else
			ktap_fail "rxe0 freed with 0 verbs objects left" \
				"$(kmsg_since "$mark" | grep 'rdma_rxe: rxe0 released' | tail -n 1)"
		fi
	fi
	check_modules_unload
}

guest() {
	local n=0 line start mark="uverbs_pingpong $$"
	local -a c list

	kmsg_mark "$mark"
	setup || return
	mapfile -t list < <(cases)
	start=$SECONDS
	for line in "${list[@]}"; do
		read -r -a c <<<"$line"
		run_case "$n" "${c[@]}" </dev/null
		n=$((n + 1))
	done
	ktap_diag "$n runs in $((SECONDS - start)) s"
	ktap_diag "$NETDEV: $(tc -s qdisc show dev "$NETDEV" | head -n 2 | paste -sd ' ' -)"
	teardown
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
