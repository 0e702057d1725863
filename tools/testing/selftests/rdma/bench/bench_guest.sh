#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of make bench (run_bench.sh boots two guests of one stack
# and runs this in each through the harness).  Guest a drives: AH loops,
# sends, pings; guest b receives, counts and echoes.  Both walk through
# the same sequence of sync points (TCP on the QEMU wire, one port pair
# each), whatever fails, so a measure that cannot run on a stack costs a
# few seconds and never the measures after it.
#
# Each guest appends its numbers to $RESULTS/bench.txt, one line each:
#   NAME rep=N value=V [key=value...]     one repetition's result
#   NAME na reason=TEXT...                the measure could not run (TEXT
#                                         is the rest of the line)
#   NAME.failed rep=N TEXT...             repetition N gave no sample, why
#   NAME.sender, NAME.counters ...        what the sender saw, what the
#                                         counters moved (see the README)
# run_bench.sh merges both guests' files.  KTAP goes to the console.
#
# vms: 2
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# run_bench.sh writes the settings of the run next to the guests' result
# folders (the host's file system is the guest's, read-only).
# shellcheck disable=SC1091
[ -n "${RESULTS:-}" ] && [ -r "$RESULTS/../run.env" ] && . "$RESULTS/../run.env"
REPEATS=${BENCH_REPEATS:-2}
SECS=${BENCH_SECS:-3}
PING_ITERS=${BENCH_PING_ITERS:-200}
MEASURES=${BENCH_MEASURES:-ah ah_atomic udp ud lat rc uv cm siw}
UD_SIZE=1024
RC_SIZE=${BENCH_RC_SIZE:-65536}
# Sends in flight (0: rdma_bench's defaults, 32 UD and 8 RC); for
# exploring where a stack's time goes, not for the reported lines.
UD_WINDOW=${BENCH_UD_WINDOW:-0}
RC_WINDOW=${BENCH_RC_WINDOW:-0}
# 1: each guest samples its kernel with perf during every stream and keeps
# the report as RESULTS/perf-NAME-REP.txt (for finding where time goes;
# sampling costs a little of the measured rate).
PROFILE=${BENCH_PROFILE:-0}
LAT_SIZE=64
UDP_PORT=4792

PARAMS=/sys/module/rdma_bench/parameters
OUT=$RESULTS/bench.txt
SYNC_PORT=20000
# Seconds a perftest client may run (pt_reps), then it is killed: uv_*
# (rxe), siw_* (a stock run that hit Linux's siw accept race hangs).
UV_LIMIT=120
SIW_LIMIT=${BENCH_SIW_LIMIT:-30}
# Messages of the siw bandwidth run.
SIW_BW_ITERS=${BENCH_SIW_BW_ITERS:-200}
# A guest waits this long at a sync point for its peer: long enough for
# the other guest's longest stretch alone (the AH loops, a perftest
# client).
SYNC_WAIT=$((60 + 2 * REPEATS * (SECS + 5)))
for _l in "$UV_LIMIT" "$SIW_LIMIT"; do
	[ "$SYNC_WAIT" -ge $((_l + 30)) ] || SYNC_WAIT=$((_l + 30))
done

# ------------------------------------------------------------------ sync --

_serve() {	# _serve PORT VALUE: hand VALUE to the peer's _fetch
	echo "$2" | timeout "$SYNC_WAIT" busybox nc -l -p "$1" >/dev/null 2>&1
}

_fetch() {	# _fetch PORT: the value the peer serves on PORT
	local v end=$((SECONDS + SYNC_WAIT))

	while [ "$SECONDS" -lt "$end" ]; do
		v=$(timeout 5 busybox nc "$PEER_IP" "$1" </dev/null 2>/dev/null)
		[ -n "$v" ] && { echo "$v"; return 0; }
		sleep 0.2
	done
	return 1
}

# swap VALUE: both guests call it at the same point; prints the peer's
# VALUE (empty if the peer never came).  It is also the barrier.  Both
# must call it alike: in a command substitution its move of SYNC_PORT is
# lost, and the next swap uses the same ports.
swap() {
	local port=$SYNC_PORT v

	SYNC_PORT=$((SYNC_PORT + 2))
	if [ "$RDMA_ROLE" = a ]; then
		_serve "$port" "$1"
		_fetch $((port + 1))
	else
		v=$(_fetch "$port")
		_serve $((port + 1)) "$1"
		echo "$v"
	fi
}

sync_point() {
	swap x >/dev/null
}

# ------------------------------------------------------------ commands --

# bench WORDS...: run one rdma_bench command; prints its result line and
# returns its status.
bench() {
	local err

	if [ ! -w "$PARAMS/ctl" ]; then
		echo "rdma_bench is not loaded"
		return 1
	fi
	if err=$( (echo "$*" >"$PARAMS/ctl") 2>&1); then
		cat "$PARAMS/result"
		return 0
	fi
	echo "$(cat "$PARAMS/result" 2>/dev/null) ${err##*: }"
	return 1
}

# field KEY LINE: the value of KEY=... in LINE
field() {
	local w

	for w in $2; do
		[ "${w%%=*}" = "$1" ] && { echo "${w#*=}"; return 0; }
	done
	return 1
}

# calib: nanoseconds the guest takes for rdma_bench's fixed CPU work now
# (empty if it cannot tell).
calib() {
	local out

	out=$(bench calib) && field ns "$out"
}

# gmean N...: geometric mean of the positive numbers among N... (empty if
# none), the calibration of a repetition from its several readings.
gmean() {
	echo "$@" | awk '{ for (i = 1; i <= NF; i++) if ($i > 0) { s += log($i); n++ } }
		END { if (n) printf "%d", exp(s / n) }'
}

wanted() {
	[[ " $MEASURES " == *" $1 "* ]]
}

# NA[measure] holds why a measure could not run on this guest, FAILED
# why its last failed repetition failed.
declare -A NA FAILED

# A reason on one line for bench.txt (it ends the line there).
na_word() {
	local w=${1//$'\n'/; }

	echo "${w:-unknown}"
}

record() {	# record NAME REP VALUE EXTRA...
	local name=$1 rep=$2 value=$3

	shift 3
	echo "$name rep=$rep value=$value $*" >>"$OUT"
}

fail_measure() {	# fail_measure NAME REASON
	[ -n "${NA[$1]:-}" ] && return
	NA[$1]=$2
	echo "$1 na reason=$(na_word "$2")" >>"$OUT"
	ktap_skip "$1" "n/a: ${2//$'\n'/; }"
}

# done_measure NAME: ok with its number of samples, n/a if it has none.
done_measure() {
	local n

	[ -n "${NA[$1]:-}" ] && return
	n=$(grep -c "^$1 rep=" "$OUT")
	if [ "$n" -eq 0 ]; then
		fail_measure "$1" "every repetition failed, the last: ${FAILED[$1]:-?}"
	else
		ktap_ok "$1 ($n of $REPEATS repetitions)"
	fi
}

# try NAME WORDS...: a bench command for measure NAME; on failure the
# measure is marked n/a with the command's result as the reason.
try() {
	local name=$1 out

	shift
	[ -n "${NA[$name]:-}" ] && return 1
	if out=$(bench "$@"); then
		echo "$out"
		return 0
	fi
	fail_measure "$name" "$1: $out"
	return 1
}

# --------------------------------------------------------------- setup --

bench_ko() {
	if [ "$RDMA_STACK" = stock ]; then
		find "$STAGE_STOCK/lib/modules/$KVER" -name rdma_bench.ko | head -n 1
	else
		find "$STAGE/lib/modules/$KVER" -name rdma_bench.ko | head -n 1
	fi
}

RDMA_MEASURES=(ah_pairs_per_s ah_atomic_pairs_per_s ud_msg_per_s ud_lat_us rc_mb_per_s)
# The user-space ones (perftest through ib_uverbs), "NAME PROG SIZE ITERS
# COLUMN": COLUMN msg is the message rate, mib the average bandwidth in
# MiB/s, lat the typical latency in us.
UV_MEASURES=("uv_send_1k_msg_per_s ib_send_bw 1024 20000 msg"
	"uv_write_1k_msg_per_s ib_write_bw 1024 20000 msg"
	"uv_send_64k_mib_per_s ib_send_bw 65536 400 mib"
	"uv_write_64k_mib_per_s ib_write_bw 65536 400 mib"
	"uv_send_lat_us ib_send_lat 64 $PING_ITERS lat")
# perftest's ports, one per repetition.
PT_PORT=18900
# Seconds a perftest server may go on once its client has ended.
PT_GRACE=5

# na_all REASON MEASURE...: mark measures n/a before they run
na_all() {
	local why=$1 m

	shift
	for m in "$@"; do
		NA[$m]=$why
		echo "$m na reason=$(na_word "$why")" >>"$OUT"
	done
}

# The load generator first (the UDP limit needs nothing else), then rxe0.
setup() {
	local ko gid out

	modprobe udp_tunnel 2>/dev/null
	modprobe ib_core 2>/dev/null
	ko=$(bench_ko)
	if [ -z "$ko" ]; then
		out="rdma_bench.ko is not staged for the $RDMA_STACK stack"
	elif ! out=$(insmod "$ko" 2>&1); then
		out="insmod $ko: ${out//$'\n'/; }"
	else
		out=
	fi
	if [ -n "$out" ]; then
		ktap_skip "setup: rdma_bench" "$out"
		na_all "$out" udp_limit_msg_per_s "${RDMA_MEASURES[@]}"
		return
	fi
	ktap_ok "setup: rdma_bench"
	if ! out=$(rdma_link_add_rxe rxe0 2>&1); then
		out="rdma link add rxe0 type rxe: ${out//$'\n'/; }"
	else
		for _ in $(seq 100); do
			gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null)
			[[ "$gid" == *:ffff:* ]] && break
			sleep 0.2
		done
		if out=$(retry_until 20 bench info); then
			ktap_diag "rdma_bench: ${out##*$'\n'} ($(modinfo -n ib_core 2>/dev/null))"
			out=
		else
			out="rdma_bench has no RoCE v2 IPv4 GID on rxe0: ${out##*$'\n'}"
		fi
	fi
	if [ -n "$out" ]; then
		ktap_skip "setup: rxe0" "$out"
		na_all "$out" "${RDMA_MEASURES[@]}"
	else
		ktap_ok "setup: rxe0"
	fi
}

# ------------------------------------------------------------ measures --

# AH create/destroy pairs, guest a alone; b waits at the sync point.
measure_ah() {
	local name=$1 atomic=$2 r out c1

	sync_point
	if [ "$RDMA_ROLE" = a ]; then
		for r in $(seq "$REPEATS"); do
			c1=$(calib)
			out=$(try "$name" ah secs="$SECS" atomic="$atomic" \
				dest="$PEER_IP" dmac="$PEER_MAC") || break
			record "$name" "$r" "$(field rate "$out")" \
				"calib_ns=$(gmean "$c1" "$(calib)")" "$out"
		done
		done_measure "$name"
	fi
	sync_point
}

# profile_start / profile_stop NAME REP: perf samples of the whole guest
# (software clock, call graphs) while a stream runs.
profile_start() {
	perf record -q -a -g -e cpu-clock -o /tmp/perf.data -- \
		sleep $((SECS + 1)) >/dev/null 2>&1 &
	PROFILE_PID=$!
}

profile_stop() {
	wait "$PROFILE_PID" 2>/dev/null
	perf report -q -i /tmp/perf.data --stdio --no-children --sort sym \
		-g none --percent-limit 0.5 >"$RESULTS/perf-$1-$2.txt" 2>&1
}

# One timed stream, a -> b: b clears its counters, a sends, b reads them.
# stream_rep NAME REP SEND-WORDS...: b records its rate (a records what it
# sent).  A repetition whose sender failed or saw a failed completion
# (an RC QP that broke) is not a sample: b notes it as NAME.failed.
stream_rep() {
	local name=$1 rep=$2 out sender c1 peer_calib

	shift 2
	[ "$RDMA_ROLE" = b ] && try "$name" clear >/dev/null
	c1=$(calib)
	sync_point
	[ "$PROFILE" = 1 ] && profile_start
	if [ "$RDMA_ROLE" = a ]; then
		sender=skipped
		if [ -z "${NA[$name]:-}" ]; then
			sender=$(bench "$@") || sender="failed: $sender"
			record "$name.sender" "$rep" "$(field rate "$sender")" "$sender"
		fi
		sender="calib=$c1,$(calib) $sender"
	fi
	[ "$PROFILE" = 1 ] && profile_stop "$name" "$rep"
	sender=$(swap "${sender:-x}")
	[ "$RDMA_ROLE" = b ] || return 0
	peer_calib=$(field calib "$sender")
	sender=${sender#calib=* }
	out=$(try "$name" stats) || return
	# A UDP send that failed (-ENOBUFS: the NIC queue was full) is part
	# of the limit; a failed RDMA send completion is not.
	if [ "${sender:0:7}" = failed: ] || { [ "$name" != udp_limit_msg_per_s ] &&
		[ "$(field errors "$sender" || echo 1)" != 0 ]; }; then
		echo "$name.failed rep=$rep sender: $sender; receiver: $out" >>"$OUT"
		ktap_diag "$name: repetition $rep failed: sender: $sender"
		FAILED[$name]="sender: $sender"
		return
	fi
	if [ "$(field msgs "$out" || echo 0)" -lt 2 ]; then
		echo "$name.failed rep=$rep receiver: $out" >>"$OUT"
		FAILED[$name]="receiver counted $(field msgs "$out") messages"
		return
	fi
	c1="calib_ns=$(gmean "$c1" "$(calib)" "${peer_calib%,*}" "${peer_calib#*,}")"
	case $name in
	rc_mb_per_s)
		record "$name" "$rep" "$(awk -v b="$(field bps "$out")" 'BEGIN { printf "%.3f", b / 1e6 }')" "$c1" "$out" ;;
	*)
		record "$name" "$rep" "$(field rate "$out")" "$c1" "$out" ;;
	esac
}

# connect_qp NAME QP-WORDS...: "qp" on both guests, swap QP number and
# PSN, "connect" towards the peer.
connect_qp() {
	local name=$1 out mine peer

	shift
	out=$(try "$name" qp "$@") && mine="$(field qpn "$out"):$(field psn "$out")"
	peer=$(swap "${mine:-none}")
	case $peer in
	[0-9]*:[0-9]*) ;;
	*) fail_measure "$name" "no QP number from the peer (${peer:-nothing})" ;;
	esac
	try "$name" connect dest="$PEER_IP" dmac="$PEER_MAC" \
		dqpn="${peer%%:*}" dpsn="${peer##*:}" >/dev/null
	sync_point
}

# The raw UDP limit and the UD rate, one repetition of each in turn, so
# that rxe_vs_udp_limit compares numbers taken moments apart (the host's
# load drifts over minutes).  Either may be left out (BENCH_MEASURES).
measure_ud_udp() {
	local udp=udp_limit_msg_per_s ud=ud_msg_per_s r

	if wanted udp && [ "$RDMA_ROLE" = b ]; then
		try "$udp" udp_listen port="$UDP_PORT" >/dev/null
	fi
	wanted ud && connect_qp "$ud" type=ud size="$UD_SIZE"
	for r in $(seq "$REPEATS"); do
		wanted udp && stream_rep "$udp" "$r" udp_send dest="$PEER_IP" \
			port="$UDP_PORT" secs="$SECS" size="$UD_SIZE"
		wanted ud && stream_rep "$ud" "$r" send secs="$SECS" size="$UD_SIZE" \
			window="$UD_WINDOW"
	done
	bench udp_close >/dev/null
	bench close >/dev/null
	if [ "$RDMA_ROLE" = b ]; then
		wanted udp && done_measure "$udp"
		wanted ud && done_measure "$ud"
	fi
	sync_point
}

# RC: a fresh pair of QPs for every repetition, so that one that broke
# (retry counter exceeded on a stalled host) costs one sample, not all.
measure_rc() {
	local name=rc_mb_per_s r

	for r in $(seq "$REPEATS"); do
		connect_qp "$name" type=rc size="$RC_SIZE"
		stream_rep "$name" "$r" send secs="$SECS" size="$RC_SIZE" \
			window="$RC_WINDOW"
		bench close >/dev/null
	done
	[ "$RDMA_ROLE" = b ] && done_measure "$name"
	sync_point
}

measure_lat() {
	local name=ud_lat_us r out c1 peer

	if [ "$RDMA_ROLE" = a ]; then
		connect_qp "$name" type=ud size="$LAT_SIZE"
	else
		connect_qp "$name" type=ud size="$LAT_SIZE" echo=1
	fi
	# Both guests take part in a round trip: both are timed around it.
	for r in $(seq "$REPEATS"); do
		c1=$(calib)
		sync_point
		out=
		[ "$RDMA_ROLE" = a ] && { out=$(try "$name" ping iters="$PING_ITERS" size="$LAT_SIZE") || out=; }
		sync_point
		peer=$(swap "$c1,$(calib)")
		if [ "$RDMA_ROLE" != a ] || [ -z "$out" ]; then
			continue
		fi
		record "$name" "$r" "$(awk -v n="$(field lat_med_ns "$out")" 'BEGIN { printf "%.1f", n / 1000 }')" \
			"calib_ns=$(gmean "${c1}" "${peer%,*}" "${peer#*,}")" "$out"
	done
	[ "$RDMA_ROLE" = a ] && done_measure "$name"
	sync_point
	bench close >/dev/null
	sync_point
}

# ------------------------------------------------------------ perftest --

uv_listening() {
	[ -n "$(ss -Htln "sport = :$1")" ]
}

# uv_row PROG_OUTPUT COLUMN: the figure COLUMN names from perftest's
# results row (#bytes #iterations BW_peak BW_average[MiB/s] MsgRate[Mpps]
# for the bandwidth programs; #bytes #iterations t_min t_max t_typical ...
# for the latency ones), as a number or nothing.  perftest writes "inf"
# in every column when it could not size the CPU clock ("Correlation
# coefficient"); only a decimal figure is a sample.
uv_row() {
	awk -v col="$2" '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ {
		if (col == "msg" && NF == 5) f = 5
		else if (col == "mib" && NF == 5) f = 4
		else if (col == "lat" && NF >= 7) f = 5
		else next
		v = ($f ~ /^[0-9]+(\.[0-9]+)?$/) ? $f : ""
		if (v != "" && col == "msg") v = sprintf("%.0f", v * 1000000)
	} END { if (v != "" && v + 0 > 0) print v }' <<<"$1"
}

# rep_failed NAME REP WHY: repetition REP of NAME gave no sample; bench.txt
# says why (NAME.failed), and so does the measure's n/a if none did.
rep_failed() {
	FAILED[$1]=$3
	echo "$1.failed rep=$2 $(na_word "$3")" >>"$OUT"
	ktap_diag "$1: repetition $2 failed: $3"
}

# pt_conns PORT: this guest's TCP connections on local port PORT, as
# "STATE Recv-Q N Send-Q N" each (a server's side; siw's connections are
# the kernel's own sockets, ss lists them too).
pt_conns() {
	ss -Htn "sport = :$1" 2>/dev/null |
		awk '{ printf "%s%s Recv-Q %s Send-Q %s", (NR > 1 ? ", " : ""), $1, $2, $3 }'
}

# pt_status RC: how a perftest program ended, from its exit status.
pt_status() {
	if [ "$1" -gt 128 ]; then
		echo "killed by signal $(($1 - 128)) ($(kill -l "$1" 2>/dev/null))"
	else
		echo "exit status $1"
	fi
}

# pt_error OUTPUT: the first two lines of a perftest program's output that
# say what failed (its RDMA CM event errors take two), else its last line.
pt_error() {
	local e

	e=$(grep -m 2 -iE "fail|error|couldn|^event:|^correlation" <<<"$1" | paste -sd ' ' -)
	echo "${e:-$(tail -n 1 <<<"$1")}"
}

# pt_server NAME REP LIMIT PORT CMD...: guest b's side of one perftest
# repetition: CMD serving on PORT until a's client ended, then
# PT_GRACE s more before it is stopped (or, should a never say, 60 s
# after the client's LIMIT).  What the server's connections held at two
# thirds of LIMIT is kept as RESULTS/NAME-REP.conns (the state of a run
# that hung; later, a's limit may already have ended it).  Tells a how its
# server ended.
pt_server() {
	local name=$1 r=$2 limit=$3 port=$4 pid='' wpid='' end how='no server ran'
	local conns=$RESULTS/$1-$2.conns snap=$(($3 * 2 / 3))

	shift 4
	if [ -z "${NA[$name]:-}" ]; then
		timeout -k 5 $((limit + 60)) stdbuf -oL "$@" >"$RESULTS/$name-$r.log" 2>&1 &
		pid=$!
		retry_until 10 uv_listening "$port"
	fi
	sync_point
	if [ -n "$pid" ]; then
		(
			trap 'kill "$s" 2>/dev/null; exit 0' TERM
			sleep "$snap" &
			s=$!
			wait "$s"
			c=$(pt_conns "$port")
			echo "${c:-none}" >"$conns"
		) &
		wpid=$!
	fi
	sync_point
	if [ -n "$pid" ]; then
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
		end=$((SECONDS + PT_GRACE))
		while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$end" ]; do
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			kill "$pid" 2>/dev/null
			wait "$pid" 2>/dev/null
			how="the server was stopped ${PT_GRACE} s after the client ended"
		else
			wait "$pid"
			how="the server exited with status $?"
		fi
		[ -s "$conns" ] && how+="; its connections $snap s in: $(cat "$conns")"
	fi
	# In a subshell, like a's: SYNC_PORT must move alike on both.
	: "$(swap "$how")"
}

# pt_reps NAME COLUMN LIMIT CMD...: REPEATS runs of the perftest command
# CMD between the guests, b the server and a the client (CMD PEER_IP), a
# fresh pair of processes each on a port of its own (-p); the client's
# figure COLUMN (see uv_row) is the sample.  A client that has no result
# after LIMIT s is killed: that repetition, like one whose client failed,
# is no sample but a NAME.failed line saying why, with how b's server
# ended.  The measure is n/a when no repetition gave a sample.
pt_reps() {
	local name=$1 col=$2 limit=$3 prog=$4 r port out rc c1 v why peer
	local -a cmd

	shift 3
	for r in $(seq "$REPEATS"); do
		port=$PT_PORT
		PT_PORT=$((PT_PORT + 1))
		cmd=("$@" -p "$port")
		if [ "$RDMA_ROLE" = b ]; then
			pt_server "$name" "$r" "$limit" "$port" "${cmd[@]}"
			continue
		fi
		sync_point
		v=
		if [ -z "${NA[$name]:-}" ]; then
			c1=$(calib)
			out=$(timeout -k 5 "$limit" stdbuf -oL "${cmd[@]}" "$PEER_IP" 2>&1)
			rc=$?
			printf '%s\n' "$out" >"$RESULTS/$name-$r.log"
			v=$(uv_row "$out" "$col")
			if [ -n "$v" ]; then
				c1="calib_ns=$(gmean "$c1" "$(calib)")"
			elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
				why="$prog hung: no result after $limit s, killed"
			else
				why="$prog $(pt_status "$rc"): $(pt_error "$out")"
			fi
		fi
		sync_point
		peer=$(swap x)
		[ -z "${NA[$name]:-}" ] || continue
		if [ -n "$v" ]; then
			record "$name" "$r" "$v" "$c1"
		else
			rep_failed "$name" "$r" "$why; b: ${peer:-no word from b}"
		fi
	done
	[ "$RDMA_ROLE" = a ] && done_measure "$name"
	sync_point
}

# measure_uv NAME PROG SIZE ITERS COLUMN: Debian's perftest PROG through
# ib_uverbs, RC on the IPv4-mapped GID (index 1) of rxe0 (pt_reps).  -u 18
# (a 1 s local ACK timeout) as in uverbs_perftest: a slow round trip is
# not a lost packet.
measure_uv() {
	local name=$1 prog=$2 size=$3 iters=$4 col=$5

	if ! modprobe ib_uverbs 2>/dev/null; then
		fail_measure "$name" "modprobe ib_uverbs failed"
	elif ! command -v "$prog" >/dev/null; then
		fail_measure "$name" "$prog is not installed (perftest)"
	fi
	pt_reps "$name" "$col" "$UV_LIMIT" "$prog" -d rxe0 -x 1 -s "$size" -n "$iters" -u 18
}

measure_uv_all() {
	local m

	for m in "${UV_MEASURES[@]}"; do
		# shellcheck disable=SC2086 # the fields of one measure
		counted "${m%% *}" measure_uv $m
	done
}

# ------------------------------------------------------------ rdma_cm --

# Connections cmtime makes per repetition, and its ports.
CM_CONNS=${BENCH_CM_CONNS:-100}
CM_PORT=18950

cm_listening() {
	rdma res show cm_id 2>/dev/null | grep LISTEN | grep -qE ":$1( |$)"
}

# cm_connect_ms CMTIME_OUTPUT: the "connect" step's total in ms.
cm_connect_ms() {
	awk -F: '$1 ~ /^connect +$/ { split($2, f, " "); v = f[1] }
		END { if (v != "" && v + 0 > 0) print v }' <<<"$1"
}

# measure_cm: librdmacm's cmtime (rdmacm-utils) between the guests, b the
# server and a the client making CM_CONNS RC connections at once, through
# rdma_ucm on each stack; the sample is connections per second of its
# "connect" step (REQ to ESTABLISHED for all of them).
measure_cm() {
	local name=cm_connects_per_s r port pid out ms c1
	local -a cmd

	if ! modprobe -a ib_uverbs rdma_ucm 2>/dev/null; then
		fail_measure "$name" "modprobe rdma_ucm failed"
	elif ! command -v cmtime >/dev/null; then
		fail_measure "$name" "cmtime is not installed (rdmacm-utils)"
	fi
	for r in $(seq "$REPEATS"); do
		port=$CM_PORT
		CM_PORT=$((CM_PORT + 1))
		cmd=(cmtime -p "$port" -c "$CM_CONNS")
		if [ "$RDMA_ROLE" = b ]; then
			pid=
			if [ -z "${NA[$name]:-}" ]; then
				timeout 120 "${cmd[@]}" -b "$MY_IP" >"$RESULTS/$name-$r.log" 2>&1 &
				pid=$!
				retry_until 10 cm_listening "$port"
			fi
			sync_point
			sync_point
			# The server has no end of its own.
			[ -n "$pid" ] && { kill "$pid"; wait "$pid"; } 2>/dev/null
			continue
		fi
		sync_point
		if [ -z "${NA[$name]:-}" ]; then
			c1=$(calib)
			out=$(timeout 120 "${cmd[@]}" -s "$PEER_IP" 2>&1)
			printf '%s\n' "$out" >"$RESULTS/$name-$r.log"
			ms=$(cm_connect_ms "$out")
			if [ -n "$ms" ]; then
				record "$name" "$r" "$(awk -v n="$CM_CONNS" -v ms="$ms" 'BEGIN { printf "%.1f", n * 1000 / ms }')" \
					"calib_ns=$(gmean "$c1" "$(calib)")"
			else
				FAILED[$name]="cmtime: $(grep -m 1 -iE "fail|error" <<<"$out" || tail -n 1 <<<"$out")"
			fi
		fi
		sync_point
	done
	[ "$RDMA_ROLE" = a ] && done_measure "$name"
	sync_point
}

# ----------------------------------------------------------------- siw --

# The soft-iWARP ones, "NAME PROG SIZE ITERS COLUMN" as UV_MEASURES: the
# same programs through rdma_cm (-R) on siw0.
SIW_MEASURES=("siw_send_64k_mib_per_s ib_send_bw 65536 $SIW_BW_ITERS mib"
	"siw_send_lat_us ib_send_lat 64 $PING_ITERS lat")

# siw_setup: soft-iWARP in place of soft-RoCE on the NIC: rxe0 goes (for
# the guests' addresses rdma_cm would pick it), siw0 comes: on the
# project stack our siw (autoloaded), on stock Linux's own siw.ko, which
# make stage-stock builds from Debian's linux-source into STAGE_STOCK
# (rdma_link_add_siw loads it).  No netem delay, unlike the siw tests (see
# siw_pair.sh's setup_siw): it would be part of every latency sample.
# When either guest cannot, the siw measures are n/a on both.
siw_setup() {
	local out m peer
	local -a names=()

	for m in "${SIW_MEASURES[@]}"; do
		names+=("${m%% *}")
	done
	if ! modprobe -a ib_uverbs rdma_ucm 2>/dev/null; then
		out="modprobe ib_uverbs rdma_ucm failed"
	elif ! out=$(require_cmd ib_send_bw ib_send_lat 2>&1); then
		out="perftest: $out"
	elif [ -e /sys/class/infiniband/rxe0 ] && ! out=$(rdma link delete rxe0 2>&1); then
		out="rdma link delete rxe0: ${out//$'\n'/; }"
	elif ! out=$(rdma_link_add_siw siw0 2>&1); then
		out="rdma_link_add_siw siw0: ${out//$'\n'/; }"
	else
		out=
	fi
	peer=$(swap "${out:-ok}")
	if [ -z "$out" ] && [ "$peer" != ok ]; then
		out="guest $([ "$RDMA_ROLE" = a ] && echo b || echo a): ${peer:-no answer}"
	fi
	if [ -n "$out" ]; then
		ktap_skip "setup: siw0" "$out"
		na_all "$out" "${names[@]}"
		return
	fi
	ktap_ok "setup: siw0 ($(_find_module siw))"
}

# measure_siw NAME PROG SIZE ITERS COLUMN: perftest PROG -R on siw0
# (pt_reps).  Two known faults make a repetition fail, on either stack:
# Linux's siw can leave the first message of a connection it accepted
# unread (siw_pair.sh's setup_siw): the run hangs and is killed after
# SIW_LIMIT s.  And perftest's -R client connects its test QP right after
# the hand shake on its first connection, while the server is still
# setting up the listener for it (create_rdma_cm_connection): when it is
# not up yet, TCP refuses (REJECTED, or a failed rdma_connect where the
# provider connects in the call, as Linux's siw does), and the client's
# retry, which uses the IDs it has just destroyed, crashes in librdmacm.
measure_siw() {
	local name=$1 prog=$2 size=$3 iters=$4 col=$5

	pt_reps "$name" "$col" "$SIW_LIMIT" "$prog" -R -d siw0 -s "$size" -n "$iters"
}

measure_siw_all() {
	local m

	# siw's connections are TCP: its counters (the project's siw has
	# some, Linux's none) and the TCP ones; its own range of ports.
	SNAP_DEV=siw0
	SNAP_PROTO=Tcp
	PT_PORT=19000
	siw_setup
	for m in "${SIW_MEASURES[@]}"; do
		# shellcheck disable=SC2086 # the fields of one measure
		counted "${m%% *}" measure_siw $m
	done
}

# ------------------------------------------------------------ counters --

# The device whose hw_counters snapshot reads and the protocol of
# /proc/net/snmp it reads (siw: siw0 and Tcp).
SNAP_DEV=rxe0
SNAP_PROTO=Udp

# What the stacks count, for reading the numbers: the port's hw_counters
# (both stacks: stock rdma_rxe's names, retries, duplicates, RNR...; the
# project's rxe adds sent_bytes, rcvd_bytes and one drop_<cause> each),
# UDP (TCP for siw) and NIC counters.
snapshot() {
	local f

	for f in /sys/class/infiniband/"$SNAP_DEV"/ports/1/hw_counters/*; do
		[ -r "$f" ] && echo "hw.${f##*/} $(cat "$f" 2>/dev/null)"
	done
	awk -v p="$SNAP_PROTO:" '$1 == p { if (!h) { for (i = 2; i <= NF; i++) k[i] = $i; h = 1 }
		else for (i = 2; i <= NF; i++) print tolower(substr(p, 1, length(p) - 1)) "." k[i], $i }' \
		/proc/net/snmp
	for f in rx_packets tx_packets rx_dropped tx_dropped; do
		echo "net.$f $(cat "/sys/class/net/$NETDEV/statistics/$f")"
	done
}

# counted NAME FUNCTION ARGS...: run a measure; append what changed in the
# counters meanwhile to bench.txt as "NAME.counters key=delta...".
counted() {
	local name=$1 before

	shift
	before=$(snapshot)
	"$@"
	echo "$name.counters$(snapshot | awk 'NR == FNR { a[$1] = $2; next }
		$2 ~ /^[0-9]+$/ && $2 != a[$1] { printf " %s=%d", $1, $2 - a[$1] }' \
		<(echo "$before") -)" >>"$OUT"
}

# --------------------------------------------------------------- main --

guest() {
	local mod

	# BENCH_TRACE=1: where the script spends its time, for debugging.
	if [ "${BENCH_TRACE:-}" = 1 ]; then
		exec 19>"$RESULTS/trace.log"
		BASH_XTRACEFD=19
		PS4='+ ${EPOCHREALTIME} '
		set -x
	fi
	: >"$OUT"
	ktap_diag "bench: $RDMA_STACK stack, $REPEATS repeats of ${SECS}s, measures: $MEASURES"
	setup
	sync_point
	wanted ah && counted ah_pairs_per_s measure_ah ah_pairs_per_s 0
	wanted ah_atomic && counted ah_atomic_pairs_per_s measure_ah ah_atomic_pairs_per_s 1
	if wanted udp || wanted ud; then
		counted ud_msg_per_s+udp_limit_msg_per_s measure_ud_udp
	fi
	wanted lat && counted ud_lat_us measure_lat
	wanted rc && counted rc_mb_per_s measure_rc
	wanted uv && measure_uv_all
	wanted cm && counted cm_connects_per_s measure_cm
	wanted siw && measure_siw_all

	if module_loaded rdma_bench; then
		ktap_check "rmmod rdma_bench" rmmod rdma_bench
	fi
	# A user-space program's crash (perftest's -R client, retrying a
	# refused connection with IDs it destroyed, crashes in librdmacm) is
	# its repetition's failure (pt_reps), not the kernel's: a diagnostic
	# (_kernel_trouble leaves it out).
	mod=$(dmesg | grep -E '\] traps: [^ ]+\[[0-9]+\] ')
	[ -z "$mod" ] || ktap_diag "user space crashed: $mod"
	mod=$(dmesg | _kernel_trouble)
	if [ -n "$mod" ]; then
		ktap_fail "kernel log clean" "$mod"
	else
		ktap_ok "kernel log clean"
	fi
	check_modules_unload
	sync_point
}

rdma_test_main "$@"
