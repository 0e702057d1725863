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
# Both guests walk the same list of runs, paired by
# harness/uverbs_pair.sh: the server's program listens before the client
# starts; a program whose peer's has ended is stopped 5 s later; a run
# that hangs on both is killed at PP_TIMEOUT and fails alone; after 3 such
# runs in a row the rest are not tried.  PP_ITERS and PP_TIMEOUT (seconds)
# can be set through RDMA_TEST_ENV="PP_ITERS PP_TIMEOUT".
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 900
# alone: yes

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/uverbs_pair.sh
. "$(dirname "$0")/../harness/uverbs_pair.sh"

# The programs' TCP ports (one per run); the guests' own are the harness's.
PP_PORT=18600
# Iterations per program.
ITERS=${PP_ITERS:-200}
# Seconds one program may run.
PAIR_TIMEOUT=${PP_TIMEOUT:-60}

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

# check_run KIND ITERS LOG SECS: the output of one program (pair_run has
# seen it exit 0 in time): all its iterations, no error, GIDs of KIND.
check_run() {
	local kind=$1 iters=$2 log=$3 lg rg

	lg=$(sed -n 's/.*local address:.*GID \(.*\)$/\1/p' "$log" | head -n 1)
	rg=$(sed -n 's/.*remote address:.*GID \(.*\)$/\1/p' "$log" | head -n 1)
	if grep -qE 'invalid data|Failed status|Couldn' "$log"; then
		echo "it reported an error"
	elif ! grep -q "^$iters iters in " "$log"; then
		echo "no '$iters iters in' line"
	elif [ "$kind" = v4 ] && { [ "$lg" != "::ffff:$MY_IP" ] || [ "$rg" != "::ffff:$PEER_IP" ]; }; then
		echo "GIDs '$lg' and '$rg', not ::ffff:$MY_IP and ::ffff:$PEER_IP"
	elif [ "$kind" = v6 ] && { [[ ! "$lg" =~ ^[0-9a-f:]+$ ]] || [[ ! "$rg" =~ ^[0-9a-f:]+$ ]] ||
		[ "$lg" = "$rg" ]; }; then
		echo "GIDs '$lg' and '$rg', not two IPv6 ones"
	else
		sed -n 's/^[0-9]* iters in \(.*\)$/\1/p' "$log"
		return 0
	fi
	return 1
}

# run_case N PROG KIND SERVER OPTIONS...: this guest's side of run N.
run_case() {
	local n=$1 prog=ibv_$2_pingpong kind=$3 srv=$4 iters=$ITERS
	local port=$((PP_PORT + n)) peer=a

	[ "$srv" = a ] && peer=b
	PAIR_ON_LISTEN=
	[ "$2" = srq ] && PAIR_ON_LISTEN=track_once
	pair_run "$n" "$srv" "$port" "$2-$kind" \
		"$prog ${*:5} -n $iters, $kind GID ${GIDX[$kind]}, server $srv client $peer" \
		check_run "$kind" "$iters" -- \
		"$prog" -d rxe0 -g "${GIDX[$kind]}" -p "$port" -n "$iters" "${@:5}"
}

# track_once: check_tracked, the first time this guest serves
# ibv_srq_pingpong.
track_once() {
	[ -z "${TRACKED:-}" ] || return 0
	TRACKED=1
	check_tracked ibv_srq_pingpong
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

guest() {
	local mark="uverbs_pingpong $$"

	kmsg_mark "$mark"
	ktap_check "rdma, jq, ibv_{rc,uc,ud,srq}_pingpong installed" require_cmd rdma jq \
		ibv_rc_pingpong ibv_uc_pingpong ibv_ud_pingpong ibv_srq_pingpong || return 1
	pair_setup || return
	pair_cases cases run_case
	pair_teardown
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
