# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Programs of rdmacm-utils (rping, udaddy, ucmatose...) run in the
# background of a guest test, each a KTAP result: its exit status, how
# many lines of its output match a pattern, whether its RDMA CM ID
# listens.  Sourced after lib.sh; RESULTS holds the programs' output.
#
#   cm_listening PORT     an rdma_cm listener on PORT (rdma resource)
#   prog_start NAME CMD   CMD in the background (PROG_PID)
#   prog_wait PID SECS    its exit status, 124 if it had to be killed
#   prog_listens NAME PORT    one result: it listens on PORT
#   prog_check NAME PID SECS [PATTERN COUNT]    one result: exit 0, and
#                         COUNT lines matching PATTERN

# cm_listening PORT: a user-space rdma_cm listener on PORT (rdma resource
# tracking lists its CM ID in state LISTEN).
cm_listening() {
	rdma res show cm_id 2>/dev/null | grep 'LISTEN' | grep -qE ":$1( |$)"
}

# prog_start NAME CMD...: CMD in the background, its output in
# $RESULTS/NAME.log, its pid in PROG_PID.
prog_start() {
	local name=$1

	shift
	ktap_diag "start: $*"
	"$@" >"$RESULTS/$name.log" 2>&1 &
	# shellcheck disable=SC2034 # for the caller
	PROG_PID=$!
}

# prog_stuck PID: diagnostics of a program that did not end: where each of
# its threads waits in the kernel, the TCP connections and the QPs.
prog_stuck() {
	local t

	for t in /proc/"$1"/task/*; do
		[ -r "$t/stack" ] || continue
		ktap_diag "thread ${t##*/}: $(head -n 3 "$t/stack" | sed 's/+0x.*//' | paste -sd ' ' -)"
	done
	ktap_diag "tcp: $(ss -tnoi 2>&1 | paste -sd ' ' -)"
	ktap_diag "qps: $(rdma res show qp 2>&1 | paste -sd ' ' -)"
}

# prog_wait PID SECS: its exit status; 124 if it was still running after
# SECS (scaled) and had to be killed (prog_stuck tells where it was).
prog_wait() {
	local pid=$1 end

	end=$((SECONDS + $(scaled "$2")))
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$SECONDS" -ge "$end" ]; then
			prog_stuck "$pid"
			kill "$pid" 2>/dev/null
			sleep 2
			kill -9 "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.2
	done
	wait "$pid"
}

# prog_listens NAME PORT: one result, the program listens on PORT.
prog_listens() {
	if retry_until 30 cm_listening "$2"; then
		ktap_ok "$1: listening on port $2"
	else
		ktap_fail "$1: listening on port $2" \
			"$(rdma res show cm_id 2>&1 | tr '\n' ' ') $(tail -n 3 "$RESULTS/$1.log" | tr '\n' ' ')"
	fi
}

# prog_check NAME PID SECS [PATTERN COUNT]: one result, the program exited
# 0 within SECS and printed COUNT lines matching PATTERN.
prog_check() {
	local name=$1 pid=$2 rc n

	prog_wait "$pid" "$3"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		ktap_fail "$name: exit status 0" "status $rc: $(tail -n 5 "$RESULTS/$name.log" | tr '\n' ' ')"
		return 1
	fi
	if [ -n "${4:-}" ]; then
		n=$(grep -c -- "$4" "$RESULTS/$name.log")
		if [ "$n" != "$5" ]; then
			ktap_fail "$name: exit status 0, $5 lines '$4'" "$n lines: $(tail -n 3 "$RESULTS/$name.log" | tr '\n' ' ')"
			return 1
		fi
		ktap_ok "$name: exit status 0, $5 lines '$4'"
	else
		ktap_ok "$name: exit status 0"
	fi
}
