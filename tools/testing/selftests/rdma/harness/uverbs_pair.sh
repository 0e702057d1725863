# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Paired user-space runs between the two guests of a test: one program
# serves on one guest, its client runs on the other, over an rxe0 on each
# guest's NIC.  Sourced by tests/uverbs_pingpong.sh and
# tests/uverbs_perftest.sh after lib.sh.
#
# A test lists its runs, the same list in the same order on both guests,
# and walks it with pair_cases; for each run its own function calls
# pair_run, which does the handshake below, runs this guest's side and
# reports it.  Per run the client says it is ready (a TCP connection to
# the server's guest), the server starts its program and, once that
# listens, says so back; only then does the client start, so it connects
# once.  When a program ends, its guest tells the other, whose program is
# stopped if it has not ended PAIR_PEER_GRACE s later (a client that
# failed at once does not leave the server waiting); a run that hangs on
# both is killed at PAIR_TIMEOUT and fails alone; after PAIR_MAX_HANGS
# such runs in a row the rest are not tried.
#
#   pair_setup            modprobe ib_uverbs, pfifo_fast on $NETDEV, rxe0,
#                         its GIDs (GIDX[v4], GIDX[v6]), BASELINE counts
#   pair_cases LIST RUN   RUN N FIELDS... for each line of LIST's output
#   pair_run ...          one paired program (see there)
#   pair_teardown         no user objects left, counts back to BASELINE,
#                         rdma link delete rxe0, modules unload
#   find_gids, rxe0_port_active, user_objects, listening PORT,
#   hear_peer PORT SECS, hear_peer_bg PORT SECS, tell_peer PORT SECS,
#   wait_run PID HP, pair_either PORT SERVER BIT
#                         the parts, for a test that needs one alone

# Seconds one program may run (a test may change it per run); seconds a
# server may take to listen; seconds a program may go on once its peer's
# has ended.
PAIR_TIMEOUT=${PAIR_TIMEOUT:-60}
PAIR_LISTEN_TIMEOUT=30
PAIR_PEER_GRACE=5
# The guests' own TCP ports: three per run, from this one on.
PAIR_SYNC_PORT=19600
# After this many runs in a row end at their time limit, the rest are not
# tried.
PAIR_MAX_HANGS=3
PAIR_HANGS=0
# Set once the guests lost step: the runs left are not tried.
PAIR_LOST=
# A command the server side of the next pair_run runs once its program
# listens, before the client is told to start (empty: none).
PAIR_ON_LISTEN=
# An extended regular expression (empty: none): when the program of the
# next pair_run prints a line it matches on either guest, that run is not
# reported and PAIR_RETRY is set, for the caller to try it once more.
PAIR_RETRY_IF=
PAIR_RETRY=
PORT1=/sys/class/infiniband/rxe0/ports/1
# The device whose counters pair_cases shows.
PAIR_DEV=${PAIR_DEV:-rxe0}
# The GID index of each kind (v4, v6), once found.
declare -A GIDX
# rxe0's object counts before the runs (pair_setup).
BASELINE=

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

# pair_setup: ib_uverbs loaded (the project's, on that stack), pfifo_fast
# on $NETDEV, rxe0 added, its IPv4-mapped GID (that of $MY_IP) and an IPv6
# one found, its port active, BASELINE its object counts.  Fails when the
# runs cannot be done.
pair_setup() {
	local o1 o2 o3 o4 want out

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

# wait_run PID HP: the status of the program PID.  Once the peer said its
# program ended (HP, our hear_peer for it, ended well), PID has
# PAIR_PEER_GRACE s more, then is stopped (PAIR_STOPPED says so): a peer
# that failed does not leave this one waiting until its time limit.
wait_run() {
	local pid=$1 hp=$2 end=''

	PAIR_STOPPED=
	while kill -0 "$pid" 2>/dev/null; do
		if [ -z "$end" ] && ! kill -0 "$hp" 2>/dev/null; then
			if wait "$hp"; then
				end=$((SECONDS + $(scaled "$PAIR_PEER_GRACE")))
			else
				end=never
			fi
		elif [ "$end" != never ] && [ -n "$end" ] && [ "$SECONDS" -ge "$end" ]; then
			PAIR_STOPPED=1
			kill "$pid" 2>/dev/null
			break
		fi
		sleep 0.2
	done
	wait "$pid"
}

# pair_either PORT SERVER BIT: swaps BIT (0 or 1) with the peer, whose
# pair_either runs with the same PORT and SERVER (a or b: that guest
# listens on PORT, the other on PORT + 1); true when either bit is 1, false
# when both are 0 or the swap failed (PAIR_LOST then says so).
pair_either() {
	local lport=$1 port=$(($1 + 1)) bit=$3 file theirs fd lp end

	[ "$RDMA_ROLE" = "$2" ] || { lport=$port; port=$1; }
	file=$(mktemp)
	timeout "$(scaled 60)" busybox nc -l -p "$lport" </dev/null >"$file" 2>/dev/null &
	lp=$!
	end=$((SECONDS + $(scaled 60)))
	while ! { exec {fd}<>"/dev/tcp/$PEER_IP/$port"; } 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			fd=
			break
		fi
		sleep 0.1
	done
	if [ -n "$fd" ]; then
		echo "$bit" >&"$fd"
		exec {fd}>&-
	fi
	wait "$lp"
	theirs=$(head -c 2 "$file")
	rm -f "$file"
	case "$theirs" in
	[01]) [ "$bit" = 1 ] || [ "$theirs" = 1 ] ;;
	*) PAIR_LOST="no answer from the peer after a run"; return 1 ;;
	esac
}

# pair_run N SERVER PORT NAME DESC CHECK [ARG...] -- CMD...
# This guest's side of run N, one KTAP result: guest SERVER (a or b) runs
# CMD, a server listening on TCP PORT, the other guest runs CMD $PEER_IP,
# its client, each under timeout PAIR_TIMEOUT, output in
# $RESULTS/NN-NAME-SIDE.log.  The result is "DESC: the server" (or
# client); it fails when the program was stopped after its peer's ended,
# hit its time limit or exited non-zero, else when CHECK ARG... LOG SECS
# fails (SECS: the program's run time).  CHECK prints what the result says:
# a summary of the run when it returns 0, why it failed when not.  A
# failed result also quotes the program's first error lines (else its
# last lines).  With PAIR_RETRY_IF set, the guests first tell each other
# whether their program printed a line it matches; if either did, there is
# no result and PAIR_RETRY is set.
pair_run() {
	local n=$1 srv=$2 port=$3 name=$4 desc=$5 check=$6
	local sp=$((PAIR_SYNC_PORT + 3 * n)) side=client
	local -a cargs=() cmd
	local log pid hp go rc t0 secs why fd tail mine ok=

	shift 6
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		cargs+=("$1")
		shift
	done
	shift
	[ "$RDMA_ROLE" = "$srv" ] && side=server
	log=$RESULTS/$(printf '%02d' "$n")-$name-$side.log
	desc+=": the $side"
	if [ -n "$PAIR_LOST" ]; then
		ktap_fail "$desc" "not run: $PAIR_LOST"
		return
	fi
	cmd=(timeout -k 5 "$(scaled "$PAIR_TIMEOUT")" "$@")
	if [ "$side" = server ]; then
		# The client is done with the run before (its limit is
		# PAIR_TIMEOUT) and ready for this one.
		if ! hear_peer "$sp" $((PAIR_TIMEOUT + 30)); then
			PAIR_LOST="the client did not come to run $n"
			ktap_fail "$desc" "$PAIR_LOST"
			return
		fi
		hear_peer_bg $((sp + 2)) $((PAIR_TIMEOUT + PAIR_LISTEN_TIMEOUT + 30))
		hp=$HEARD
		t0=$EPOCHREALTIME
		"${cmd[@]}" >"$log" 2>&1 &
		pid=$!
		for _ in $(seq $(($(scaled "$PAIR_LISTEN_TIMEOUT") * 10))); do
			listening "$port" && break
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
		[ -z "$PAIR_ON_LISTEN" ] || "$PAIR_ON_LISTEN"
		# Go ahead either way: a server that does not listen fails the
		# client at once.
		tell_peer $((sp + 1)) 10 || PAIR_LOST="the client did not hear of run $n"
	else
		hear_peer_bg $((sp + 1)) $((PAIR_TIMEOUT + PAIR_LISTEN_TIMEOUT + 40))
		go=$HEARD
		if ! tell_peer "$sp" $((PAIR_TIMEOUT + 30)); then
			kill "$go" 2>/dev/null
			wait "$go"
			PAIR_LOST="the server did not come to run $n"
			ktap_fail "$desc" "$PAIR_LOST"
			return
		fi
		if ! wait "$go"; then
			PAIR_LOST="no word from the server of run $n"
			ktap_fail "$desc" "$PAIR_LOST"
			return
		fi
		hear_peer_bg $((sp + 2)) $((PAIR_TIMEOUT + 30))
		hp=$HEARD
		t0=$EPOCHREALTIME
		"${cmd[@]}" "$PEER_IP" >"$log" 2>&1 &
		pid=$!
	fi
	wait_run "$pid" "$hp"
	rc=$?
	secs=$(echo "$EPOCHREALTIME $t0" | awk '{ printf "%.1f", $1 - $2 }')
	# Done: one try, a peer that does not listen any more is done too.
	if { exec {fd}<>"/dev/tcp/$PEER_IP/$((sp + 2))"; } 2>/dev/null; then
		exec {fd}>&-
	fi
	kill "$hp" 2>/dev/null
	wait "$hp" 2>/dev/null
	PAIR_RETRY=
	if [ -n "$PAIR_RETRY_IF" ]; then
		mine=$(grep -m 1 -E "$PAIR_RETRY_IF" "$log")
		if pair_either "$sp" "$srv" $((${#mine} > 0)); then
			[ -n "$mine" ] || mine="so did the program on $PEER_IP"
			ktap_diag "$desc: to be run again ($secs s, exit $rc): $mine"
			# shellcheck disable=SC2034 # for the caller
			PAIR_RETRY=1
			return
		fi
		if [ -n "$PAIR_LOST" ]; then
			ktap_fail "$desc" "$PAIR_LOST"
			return
		fi
	fi
	if [ -n "$PAIR_STOPPED" ]; then
		why="stopped $(scaled "$PAIR_PEER_GRACE") s after the peer's program ended"
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		why="killed at its time limit of $(scaled "$PAIR_TIMEOUT") s"
	elif [ "$rc" -ne 0 ]; then
		why="exit $rc"
	elif why=$("$check" "${cargs[@]}" "$log" "$secs"); then
		ktap_ok "$desc ($secs s; $why)"
		ok=1
	fi
	if [ -z "$ok" ]; then
		# What the program said about it: its error lines, else its
		# last lines.
		tail=$(grep -iE "couldn|fail|error|invalid" "$log" | head -n 3 | paste -sd ' ' -)
		[ -n "$tail" ] ||
			tail=$(grep -vE 'address:|^[[:space:]-]*$' "$log" | tail -n 2 | paste -sd ' ' -)
		ktap_fail "$desc" "${why:-$check failed}, $secs s${tail:+: $tail}"
	fi
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		PAIR_HANGS=$((PAIR_HANGS + 1))
		[ "$PAIR_HANGS" -lt "$PAIR_MAX_HANGS" ] ||
			PAIR_LOST="$PAIR_HANGS runs in a row hit their time limit"
	else
		PAIR_HANGS=0
	fi
}

# pair_cases LIST RUN: RUN N FIELDS... for each line LIST prints (its
# fields, N counting from 0), with no standard input; then how long that
# took, what the qdisc of $NETDEV saw and PAIR_DEV's (rxe0's) counters
# (rdma statistic) that are not 0, as diagnostics.
pair_cases() {
	local n=0 line start
	local -a c list

	mapfile -t list < <("$1")
	start=$SECONDS
	for line in "${list[@]}"; do
		read -r -a c <<<"$line"
		"$2" "$n" "${c[@]}" </dev/null
		n=$((n + 1))
	done
	ktap_diag "$n runs in $((SECONDS - start)) s"
	ktap_diag "$NETDEV: $(tc -s qdisc show dev "$NETDEV" | head -n 2 | paste -sd ' ' -)"
	ktap_diag "$PAIR_DEV counters not 0: $(rdma statistic show link "$PAIR_DEV/1" 2>&1 |
		awk '{ for (i = 3; i < NF; i += 2) if ($(i + 1) != "0") printf "%s=%s ", $i, $(i + 1) }')"
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

# pair_teardown: after the runs, resource tracking lists no user
# (process-owned) context, PD, MR, CQ, SRQ or QP on rxe0 and its counts
# are BASELINE's; rdma link delete rxe0 returns (on the project's stack
# rdma_rxe logs that it freed rxe0 with 0 verbs objects left); then
# check_modules_unload.
pair_teardown() {
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
	mark="$RDMA_TEST_NAME delete $$"
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
