#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User-space verbs at load through ib_uverbs: Debian's unmodified perftest
# (4.5-0.17) between guest a (the project's stack) and guest b (stock),
# an rxe0 on each.
#   runs: ib_send_bw (RC, and UD with -c UD), ib_write_bw, ib_read_bw,
#      ib_atomic_bw (fetch-and-add), ib_send_lat and ib_write_lat, all RC
#      but the UD one, first with a as the server and b as the client,
#      then the other way round; each with -d rxe0 -x GID -p PORT -n
#      ITERS, and the RC ones with -u 18 (a 1 s local ACK timeout, see
#      run_case).  With the IPv4-mapped GID of rxe0: ib_send_bw, ib_write_bw
#      and ib_read_bw move 1024 and 65536-byte messages (1 and 64 packets
#      at the 1024-byte path MTU), ib_send_bw -c UD 1024 (its limit, the
#      port's active MTU), ib_atomic_bw 8 bytes, the two latency tests 64.
#      With the IPv6 (link-local) GID: ib_send_bw and ib_read_bw 65536.
#      The GID indexes are read from the port's sysfs GID table (types
#      and GIDs), not assumed.  Each run is one result on each guest: the
#      program exits 0 within its time limit (PT_TIMEOUT), prints no
#      "Couldn't", "Failed" or error line, both ends printed GIDs of the
#      kind asked for (this guest's and the peer's IPv4-mapped ones, or two
#      distinct IPv6 ones), and its results table has one row with the
#      message size and the iteration count asked for and figures that
#      can be true: a bandwidth test's average BW and message rate are
#      above 0 and the average BW is at least what moving all its bytes
#      in the program's whole run time would take; a latency test's
#      t_min is above 0, t_typical and t_avg lie between t_min and t_max,
#      and t_avg times the iterations fits in the run time (its t_stdev
#      and percentiles are not checked).
#      perftest 4.5 has no option to check the data it moves (its data
#      validation came later): ib_write_lat waits for the last byte of
#      each message it is written to change to that message's sequence
#      number, so a write that lands wrong or not at all stops it (the
#      run then fails at its time limit); ib_send_bw, ib_write_bw,
#      ib_read_bw, ib_atomic_bw and ib_send_lat check no data, only their
#      completions' status.
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
# that hangs on both is killed at PT_TIMEOUT and fails alone; after 3 such
# runs in a row the rest are not tried; a run in which perftest could not
# size the CPU clock on either guest (see run_case) is run once more.
# PT_ITERS (every program) and
# PT_TIMEOUT (seconds) can be set through RDMA_TEST_ENV="PT_ITERS
# PT_TIMEOUT".
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
PT_PORT=18700
# Iterations per program.
ITERS=${PT_ITERS:-200}
# Seconds one program may run.
PAIR_TIMEOUT=${PT_TIMEOUT:-60}

# cases: the runs, one per line, "PROG KIND SERVER SIZE OPTIONS...", in
# the same order on both guests.  The IPv4-mapped GID gets every size,
# the IPv6 one the largest of two programs: the GID changes the addressing
# (path, route, MAC), not how messages are cut into packets.
cases() {
	local srv

	for srv in a b; do
		echo "ib_send_bw v4 $srv 1024"
		echo "ib_send_bw v4 $srv 65536"
		echo "ib_send_bw v4 $srv 1024 -c UD"
		echo "ib_write_bw v4 $srv 1024"
		echo "ib_write_bw v4 $srv 65536"
		echo "ib_read_bw v4 $srv 1024"
		echo "ib_read_bw v4 $srv 65536"
		echo "ib_atomic_bw v4 $srv 8"
		echo "ib_send_lat v4 $srv 64"
		echo "ib_write_lat v4 $srv 64"
	done
	for srv in a b; do
		echo "ib_send_bw v6 $srv 65536"
		echo "ib_read_bw v6 $srv 65536"
	done
}

# perftest_gid IP: how perftest prints the IPv4-mapped GID of IP (each
# byte in decimal, at least two digits).
perftest_gid() {
	local o1 o2 o3 o4

	IFS=. read -r o1 o2 o3 o4 <<<"$1"
	printf '00:00:00:00:00:00:00:00:00:00:255:255:%02d:%02d:%02d:%02d' "$o1" "$o2" "$o3" "$o4"
}

# check_run KIND SIZE ITERS LOG SECS: the output of one perftest program
# (pair_run has seen it exit 0 in time), see the header.
check_run() {
	local kind=$1 size=$2 iters=$3 log=$4 secs=$5 lg rg err row

	err=$(grep -m 1 -iE "couldn't|failed|error" "$log")
	lg=$(awk '/local address:/ { f = 1; next } f && /GID:/ { print $2; exit }' "$log")
	rg=$(awk '/remote address:/ { f = 1; next } f && /GID:/ { print $2; exit }' "$log")
	# The row under the table's header, the first line with #bytes.
	row=$(awk 'f { print; exit } /#bytes/ { f = 1 }' "$log")
	if [ -n "$err" ]; then
		echo "it reported an error: $err"
		return 1
	elif [ "$kind" = v4 ] &&
		{ [ "$lg" != "$(perftest_gid "$MY_IP")" ] || [ "$rg" != "$(perftest_gid "$PEER_IP")" ]; }; then
		echo "GIDs '$lg' and '$rg', not those of ::ffff:$MY_IP and ::ffff:$PEER_IP"
		return 1
	elif [ "$kind" = v6 ] && { [[ ! "$lg" =~ ^[0-9:]+$ ]] || [[ ! "$rg" =~ ^[0-9:]+$ ]] ||
		[[ "$lg" == *:255:255:* ]] || [ "$lg" = "$rg" ]; }; then
		echo "GIDs '$lg' and '$rg', not two IPv6 ones"
		return 1
	elif [ -z "$row" ]; then
		echo "no results table"
		return 1
	fi
	awk -v size="$size" -v iters="$iters" -v secs="$secs" '
	function num(s) { return s ~ /^[0-9]+(\.[0-9]+)?$/ }
	{
		# The figures checked below (not t_stdev and the percentiles
		# of a latency test: perftest prints -nan for a t_stdev whose
		# float rounding went below 0).
		for (i = 1; i <= (NF == 9 ? 6 : NF); i++)
			if (!num($i)) {
				print "result row \"" $0 "\": field " i " is not a number"
				exit 1
			}
		if ($1 != size || $2 != iters) {
			print "result row \"" $0 "\": not " size " bytes, " iters " iterations"
			exit 1
		}
		# Run time as measured, rounded to 0.1 s: up to 0.1 s more.
		wall = secs + 0.1
		if (NF == 5) {
			# #bytes #iterations BW-peak BW-average[MiB/s] MsgRate[Mpps]
			least = size * iters / wall / 1048576
			# perftest prints 2 decimals: 8-byte atomics at a few
			# hundred per second (the debug kernel) show 0.00 MB/s.
			if (!($5 > 0)) {
				print "BW average " $4 " MB/s, " $5 " Mpps: no messages"
				exit 1
			}
			if ($4 + 0.005 < least) {
				print "BW average " $4 " MB/s, below " size * iters " bytes in " secs " s"
				exit 1
			}
			printf "BW average %s MB/s, %s Mpps, peak %s MB/s\n", $4, $5, $3
		} else if (NF == 9) {
			# #bytes #iterations t_min t_max t_typical t_avg t_stdev
			# 99% 99.9% (usec)
			if (!($3 > 0 && $3 <= $5 && $5 <= $4 && $3 <= $6 && $6 <= $4)) {
				print "t_min " $3 ", t_max " $4 ", t_typical " $5 ", t_avg " $6 " usec do not add up"
				exit 1
			}
			if ($6 * iters > wall * 1000000) {
				print "t_avg " $6 " usec times " iters " is more than " secs " s"
				exit 1
			}
			printf "t_typical %s usec, t_avg %s, t_min %s, t_max %s\n", $5, $6, $3, $4
		} else {
			print "result row \"" $0 "\": " NF " fields, not 5 or 9"
			exit 1
		}
	}' <<<"$row"
}

# run_case N PROG KIND SERVER SIZE OPTIONS...: this guest's side of run N.
run_case() {
	local n=$1 prog=$2 kind=$3 srv=$4 size=$5 iters=$ITERS
	local port=$((PT_PORT + n)) peer=a name
	local -a opts=("${@:6}")

	[ "$srv" = a ] && peer=b
	# ib_atomic_bw's size is that of its operand.
	[ "$prog" = ib_atomic_bw ] || opts=(-s "$size" "${opts[@]}")
	# RC: a local ACK timeout of about 1 s (-u 18) instead of perftest's
	# 67 ms (14), which a round trip through two TCG guests (a debug
	# kernel's above all) can exceed.  The
	# spurious resends that short timer causes can make the stock
	# requester renumber a message (a SEND_ONLY of 0 bytes for a resent
	# 64 KiB SEND) and our responder then rightly refuses the stream.
	# rc_interop drops packets on purpose to test resends.
	[[ " ${opts[*]} " == *" -c UD "* ]] || opts+=(-u 18)
	name=$prog-$kind-$size
	[ $# -gt 5 ] && name+=$(printf '%s' "${@:6}" | tr -c 'a-zA-Z0-9' _)
	# perftest sizes the CPU clock by timing 200 busy waits of 0.1 to 2 ms
	# against gettimeofday; when the host preempts a guest's vCPU during
	# them, the fit is poor and perftest gives up after the traffic
	# ("Correlation coefficient r^2: 0.88 < 0.9", "Can't produce a
	# report").  Such a run is run once more, as run N + 100 (other ports).
	PAIR_RETRY_IF=
	[ "$n" -lt 100 ] && PAIR_RETRY_IF='^Correlation coefficient r\^2'
	pair_run "$n" "$srv" "$port" "$name" \
		"$prog${opts[*]:+ ${opts[*]}} -n $iters, $kind GID ${GIDX[$kind]}, server $srv client $peer" \
		check_run "$kind" "$size" "$iters" -- \
		"$prog" -d rxe0 -x "${GIDX[$kind]}" -p "$port" -n "$iters" "${opts[@]}"
	[ -z "$PAIR_RETRY" ] || run_case $((n + 100)) "${@:2}"
}

guest() {
	local mark="uverbs_perftest $$"

	kmsg_mark "$mark"
	ktap_check "rdma, jq, ib_{send,write,read,atomic}_bw, ib_{send,write}_lat installed" \
		require_cmd rdma jq ib_send_bw ib_write_bw ib_read_bw ib_atomic_bw \
		ib_send_lat ib_write_lat || return 1
	pair_setup || return
	pair_cases cases run_case
	pair_teardown
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
