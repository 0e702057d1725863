#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Our soft-iWARP provider (siw, iw_cm and the rest of the project's stack)
# on guest a against Linux's own siw.ko on a stock guest b (make
# stage-stock builds it), with unmodified rdma-core programs, and the
# wire checked on the host by harness/iwarp_pcap.py and tshark.  The
# machinery is harness/siw_pair.sh's (see tests/harness_selftest_siw.sh,
# its stock <-> stock self-test).
#   setup, each guest: the stack named below; siw not loaded until
#      rdma_link_add_siw adds siw0 (on a our staged siw.ko, autoloaded; on
#      b STAGE_STOCK's, with its crc32c transform); siw0/1 ACTIVE, an
#      RNIC whose GID 0 is its MAC; netem delay (stock siw's accept
#      race, see setup_siw), fd00::N/64; no PD, CQ, QP or MR on siw0.
#   runs, paired by harness/uverbs_pair.sh, each a serving then b (each
#      one result per guest; a run whose peer program hit one of its known
#      faults is run once more, see run_case):
#      - our module parameters as loaded (mpa_crc 0, mpa_rev 2): rping -V
#        over IPv4 and IPv6 (RP_COUNT pings, data verified by the client);
#        ib_send_bw, ib_write_bw, ib_read_bw -R, PT_ITERS x 64 KiB;
#      - mpa_crc=1 on a: rping and ib_write_bw;
#      - mpa_rev=1 on a, where rping cannot work either way: with a
#        serving, stock's revision 2 Request is above what our siw
#        accepts: it resets the connection without a Reply (RFC 5044
#        7.1: a receiver that cannot work with the revision closes), so
#        stock's rping -c fails with RDMA_CM_EVENT_REJECTED, our
#        mpa_bad_frame counter moves by one and our rping -s never sees a
#        connection; with b serving, our revision 1 Request is answered
#        in kind, but stock siw tells its listener IRD and ORD 0 for such
#        a connection (see cases) and rping -s cannot post its first RDMA
#        Read ("post send error"), our rping -c sees DISCONNECTED;
#        ib_read_bw -R with b serving then carries Reads over our
#        revision 1 connection;
#      - parameters as loaded again, a's TCP send buffers held to 8 KiB:
#        ib_send_bw -R, a sending 2000 Sends of 256 bytes to b, which our
#        siw sends from the process's doorbell and TCP cannot all take at
#        once.
#   after the runs: a restores mpa_crc 0 and mpa_rev 2; our counters
#      (rdma statistic show link siw0/1): rx_bad_crc, rx_bad_header,
#      rx_protection_err, terminate_sent, terminate_rcvd, mpa_rejected 0,
#      mpa_bad_frame the refused runs', connections, tx_fpdus, rx_fpdus
#      above 0, tx_direct_rest above 0 (ib_send_bw-small); each guest:
#      siw0's counts as before the runs; no process holds /dev/infiniband, every RDMA module unloads with no reference
#      left; our siw freed siw0 with nothing left; kernel log clean.
#   host: iwarp_pcap.py --selftest; iwarp_pcap.py over wire.pcap: no CRC
#      mismatch, truncated FPDU, unknown opcode, header or stream error,
#      FPDUs and CRCs checked; per run: an iWARP connection on its port
#      whose MPA Request and Reply have the revision (2 enhanced, or 1 on
#      the mpa_rev=1 runs) and C flags (the CRC runs: C in the Reply
#      always, in the Request when we asked) the parameters call for, and
#      the FPDUs its program must send; on the CRC runs' ports every FPDU
#      of both directions had its CRC checked, on the others none; RFC
#      6581 peer-to-peer: our revision 2 Requests offer it with both RTR
#      messages, stock answers with a zero-length Write, which is the one
#      Write our rping client sends; stock's Requests do not ask for it
#      and our Replies say none; our revision 1 Requests carry no block
#      and we send no Write on their connections; the refused run's port:
#      stock's revision 2 Request, no Reply, no FPDU, a reset from a;
#      rping-rev1's port: revision 1 frames, our one Send, nothing from
#      stock; our counters equal the wire's FPDUs from and to a (to a: a
#      run that failed and was run again may have left some of its own
#      unread, no more), its iWARP connections with a Reply, and the
#      Requests a left without one; tshark decodes the iWARP frames, none
#      malformed, counts the RDMAP opcodes per source as iwarp_pcap.py
#      does and finds every CRC it checked good.
# RP_COUNT and PT_ITERS can be set through RDMA_TEST_ENV.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/uverbs_pair.sh
. "$(dirname "$0")/../harness/uverbs_pair.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/siw_pair.sh
. "$(dirname "$0")/../harness/siw_pair.sh"

PARAMS=/sys/module/siw/parameters
COUNTERS=/sys/class/infiniband/$DEV/ports/1/hw_counters
SIW_RUN=interop_run
SIW_AFTER_RUNS=after_runs
# Set once set_params saw our parameters as loaded.
PARAMS_SEEN=
# ib_send_bw-small: this many Sends of this many bytes, which our siw
# sends from the doorbell (SIW_TX_DIRECT_MAX is 512), with a's TCP send
# buffers held this small: TCP cannot take them all at once, and the
# FPDUs it takes in part are finished by tx_work (tx_direct_rest).
SMALL_SIZE=256
SMALL_ITERS=2000
SMALL_WMEM=8192
# Our counters that no run may move.
ZERO_COUNTERS="rx_bad_crc rx_bad_header rx_protection_err terminate_sent terminate_rcvd mpa_rejected"
export COUNTERS

# cases: the runs, "PROG FAMILY SERVER PORT PARAMS", PARAMS our module
# parameters for the run (plain: as loaded; crc: mpa_crc=1; rev1:
# mpa_rev=1); each run on its own port.  Two rpings cannot work with
# mpa_rev=1: rping-refused, our siw serving, must refuse stock's
# revision 2 Request; rping-rev1, stock serving, gets a revision 1
# connection, for which stock siw reports IRD and ORD 0 to the listener
# (only an RFC 6581 block carries them, siw_proc_mpareq reads them there
# alone), rping -s accepts with what it was told (rdma_accept without
# parameters) and its first RDMA Read cannot be posted ("post send
# error").  ib_read_bw, whose server accepts with its own depths, carries
# Reads and Sends over our revision 1 connection instead.
cases() {
	echo "rping v4 a 7174 plain"
	echo "rping v4 b 7175 plain"
	echo "rping v6 a 7176 plain"
	echo "rping v6 b 7177 plain"
	echo "ib_send_bw v4 a 18600 plain"
	echo "ib_send_bw v4 b 18601 plain"
	echo "ib_write_bw v4 a 18602 plain"
	echo "ib_write_bw v4 b 18603 plain"
	echo "ib_read_bw v4 a 18604 plain"
	echo "ib_read_bw v4 b 18605 plain"
	echo "rping v4 a 7178 crc"
	echo "rping v4 b 7179 crc"
	echo "ib_write_bw v4 a 18606 crc"
	echo "ib_write_bw v4 b 18607 crc"
	echo "rping-refused v4 a 7180 rev1"
	echo "rping-rev1 v4 b 7181 rev1"
	echo "ib_read_bw v4 b 18608 rev1"
	echo "ib_send_bw-small v4 b 18609 plain"
}

# param_values PARAMS: "MPA_CRC MPA_REV" for our siw as the runs with
# PARAMS want them (as sysfs shows them: a bool is Y or N).
param_values() {
	case $1 in
	crc) echo "Y 2" ;;
	rev1) echo "N 1" ;;
	*) echo "N 2" ;;
	esac
}

# set_params PARAMS: on guest a, our siw's mpa_crc and mpa_rev as PARAMS
# wants them; one result the first time (the parameters as loaded must
# be the plain runs') and when they change.
set_params() {
	local crc rev now want

	read -r crc rev < <(param_values "$1")
	want="$crc $rev"
	now="$(cat "$PARAMS/mpa_crc" 2>&1) $(cat "$PARAMS/mpa_rev" 2>&1)"
	if [ -z "$PARAMS_SEEN" ]; then
		PARAMS_SEEN=1
		if [ "$1" != plain ] || [ "$now" != "$want" ]; then
			ktap_fail "our siw loaded with mpa_crc $(param_values plain | sed 's/ / and mpa_rev /')" "sysfs says '$now'"
		else
			ktap_ok "our siw loaded with mpa_crc $crc and mpa_rev $rev"
		fi
	fi
	[ "$now" = "$want" ] && return 0
	[ "$crc" = Y ] && crc=1
	[ "$crc" = N ] && crc=0
	echo "$crc" >"$PARAMS/mpa_crc" 2>/dev/null
	echo "$rev" >"$PARAMS/mpa_rev" 2>/dev/null
	now="$(cat "$PARAMS/mpa_crc" 2>&1) $(cat "$PARAMS/mpa_rev" 2>&1)"
	if [ "$now" = "$want" ]; then
		ktap_ok "our siw: mpa_crc=$crc mpa_rev=$rev ($1 runs)"
	else
		ktap_fail "our siw: mpa_crc=$crc mpa_rev=$rev ($1 runs)" "sysfs says '$now', not '$want'"
	fi
}

# interop_run N PROG FAMILY SERVER PORT PARAMS: run N, with our
# parameters set first (on a).
interop_run() {
	[ "$RDMA_ROLE" = a ] && set_params "$6"
	run_case "$@"
}

# rping_ended_side SERVER ADDR ARGS... [PEER]: rping_side for a run
# whose rping must fail: it prints rping's exit status and exits 0, for
# the run's check to judge.
rping_ended_side() {
	local srv=$1 addr=$2

	shift 2
	if [ "$RDMA_ROLE" = "$srv" ]; then
		rping -s -a "$addr" "$@"
		echo "rping -s exit status $?"
	else
		rping -c -V -a "$addr" "${@:1:$#-1}"
		echo "rping -c exit status $?"
	fi
	exit 0
}

# refused_side SERVER ADDR ARGS... [PEER]: the refused run.  Guest SERVER
# (ours) runs "rping -s -a ADDR ARGS..." until our mpa_bad_frame counter
# moves (or rping ends), then stops it and prints how it ended and the
# counters mpa_bad_frame and connections before and after; the other
# is rping_ended_side's client.
refused_side() {
	local srv=$1 addr=$2 pid bad conn rc

	[ "$RDMA_ROLE" = "$srv" ] || rping_ended_side "$@"
	shift 2
	bad=$(cat "$COUNTERS/mpa_bad_frame")
	conn=$(cat "$COUNTERS/connections")
	rping -s -a "$addr" "$@" &
	pid=$!
	while kill -0 "$pid" 2>/dev/null && [ "$(cat "$COUNTERS/mpa_bad_frame")" = "$bad" ]; do
		sleep 0.2
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill "$pid"
		wait "$pid"
		echo "rping -s stopped (status $?)"
	else
		wait "$pid"
		rc=$?
		echo "rping -s ended by itself, exit status $rc"
	fi
	echo "mpa_bad_frame $bad -> $(cat "$COUNTERS/mpa_bad_frame")"
	echo "connections $conn -> $(cat "$COUNTERS/connections")"
	exit 0
}
export -f rping_ended_side refused_side

# check_refused SERVER LOG SECS: our server: stopped by us (not ended by
# itself) once mpa_bad_frame moved by one, connections unchanged, no ping;
# stock's client: exit status not 0 after RDMA_CM_EVENT_REJECTED, no
# ping.
check_refused() {
	local log=$2 n bad conn ev st

	n=$(grep -cE '^(server )?ping data' "$log")
	if [ "$RDMA_ROLE" = "$1" ]; then
		bad=$(sed -n 's/^mpa_bad_frame \([0-9]*\) -> \([0-9]*\)$/\1 \2/p' "$log")
		conn=$(sed -n 's/^connections \([0-9]*\) -> \([0-9]*\)$/\1 \2/p' "$log")
		if ! grep -q '^rping -s stopped' "$log"; then
			echo "rping -s did not wait: $(grep '^rping -s' "$log")"
			return 1
		elif [ -z "$bad" ] || [ $((${bad#* } - ${bad% *})) -ne 1 ]; then
			echo "mpa_bad_frame '$bad', not one more"
			return 1
		elif [ -z "$conn" ] || [ "${conn#* }" != "${conn% *}" ]; then
			echo "connections '$conn' moved"
			return 1
		elif [ "$n" -ne 0 ]; then
			echo "$n ping data lines"
			return 1
		fi
		echo "mpa_bad_frame ${bad% *} -> ${bad#* }, connections ${conn% *} -> ${conn#* }, rping -s saw no connection"
		return 0
	fi
	ev=$(grep -m 1 -o 'cma event RDMA_CM_EVENT_[A-Z_]*, error -\?[0-9]*' "$log")
	st=$(sed -n 's/^rping -c exit status //p' "$log")
	if [[ "$ev" != "cma event RDMA_CM_EVENT_REJECTED, error "* ]] || [ "${st:-0}" = 0 ] || [ "$n" -ne 0 ]; then
		echo "rping -c: event '${ev:-none}', exit status '$st', $n ping data lines"
		return 1
	fi
	echo "rping -c: $ev, exit status $st"
}

# check_rev1 SERVER LOG SECS: stock's rping -s: "post send error" (its
# RDMA Read), exit status not 0; our rping -c: DISCONNECTED while it
# waited for the server's Write advertisement (its exit status then is
# 0); no ping on either.
check_rev1() {
	local log=$2 n st want

	n=$(grep -cE '^(server )?ping data' "$log")
	if [ "$RDMA_ROLE" = "$1" ]; then
		st=$(sed -n 's/^rping -s exit status //p' "$log")
		if ! grep -q '^post send error' "$log" || [ "${st:-0}" = 0 ] || [ "$n" -ne 0 ]; then
			echo "no 'post send error' line, or exit status '$st', or $n ping data lines"
			return 1
		fi
		echo "$(grep -m 1 '^post send error' "$log"), exit status $st"
		return 0
	fi
	want='^client DISCONNECT EVENT'
	if ! grep -q "$want" "$log" || ! grep -q '^wait for RDMA_WRITE_ADV state' "$log" || [ "$n" -ne 0 ]; then
		echo "no DISCONNECT while waiting for RDMA_WRITE_ADV, or $n ping data lines"
		return 1
	fi
	echo "DISCONNECTED while waiting for RDMA_WRITE_ADV, $(sed -n 's/^rping -c //p' "$log")"
}

# small_wmem on|off: on a, TCP's send buffers held to SMALL_WMEM bytes
# (net.ipv4.tcp_wmem, for the sockets made from then on), or back as
# they were.
small_wmem() {
	if [ "$1" = on ]; then
		WMEM_SAVED=$(sysctl -n net.ipv4.tcp_wmem)
		sysctl -qw net.ipv4.tcp_wmem="4096 $SMALL_WMEM $SMALL_WMEM"
	else
		sysctl -qw net.ipv4.tcp_wmem="$WMEM_SAVED"
	fi
}

# siw_other_case N PROG FAMILY SERVER PORT ADDR PEER: the two rpings that
# cannot work with mpa_rev=1 (see cases), and the small Sends of
# ib_send_bw-small.
siw_other_case() {
	local n=$1 prog=$2 fam=$3 srv=$4 port=$5 addr=$6 peer=$7

	case $prog in
	rping-refused)
		pair_run "$n" "$srv" "$port" "$prog" \
			"rping over $fam ($addr), server $srv (mpa_rev=1) client $peer (MPA rev 2): refused" \
			check_refused "$srv" -- \
			bash -c 'refused_side "$@"' refused_side "$srv" "$addr" -v -C "$RP_COUNT" -p "$port"
		;;
	ib_send_bw-small)
		[ "$RDMA_ROLE" = a ] && small_wmem on
		pt_run "$n" "$prog" ib_send_bw "$srv" "$port" "$peer" \
			"$SMALL_SIZE" "$SMALL_ITERS" \
			"a's TCP send buffers at most $SMALL_WMEM bytes"
		[ "$RDMA_ROLE" = a ] && small_wmem off
		;;
	rping-rev1)
		pair_run "$n" "$srv" "$port" "$prog" \
			"rping over $fam ($addr), server $srv client $peer (mpa_rev=1): stock's Read cannot be posted (ORD 0)" \
			check_rev1 "$srv" -- \
			bash -c 'rping_ended_side "$@"' rping_ended_side "$srv" "$addr" -v -C "$RP_COUNT" -p "$port"
		;;
	*)
		ktap_fail "run $n: $prog" "no such run"
		;;
	esac
}

# siw_other_ops PROG: what ib_send_bw-small must put on the wire (siw_ops).
siw_other_ops() {
	[ "$1" = ib_send_bw-small ] && echo "$SMALL_ITERS send"
}

# refused_runs: how many runs of `cases` our siw must refuse.
refused_runs() {
	cases | awk '$1 == "rping-refused" { n++ } END { print n + 0 }'
}

# after_runs: on a, our parameters back as loaded, then our counters
# (rdma statistic), saved for the host as $RESULTS/siw0-stats.txt.
after_runs() {
	local out c v bad='' want

	[ "$RDMA_ROLE" = a ] || return 0
	set_params plain
	save_siw_counters || return
	for c in $ZERO_COUNTERS; do
		v=$(awk -v c="$c" '$1 == c { print $2 }' "$RESULTS/$DEV-stats.txt")
		[ "$v" = 0 ] || bad+=" $c=${v:-missing}"
	done
	if [ -z "$bad" ]; then
		ktap_ok "our counters: ${ZERO_COUNTERS// /, } 0"
	else
		ktap_fail "our counters: ${ZERO_COUNTERS// /, } 0" "$bad"
	fi
	want=$(refused_runs)
	v=$(awk '$1 == "mpa_bad_frame" { print $2 }' "$RESULTS/$DEV-stats.txt")
	if [ "$v" = "$want" ]; then
		ktap_ok "our counters: mpa_bad_frame $v, the refused runs'"
	else
		ktap_fail "our counters: mpa_bad_frame $want, the refused runs'" "${v:-missing}"
	fi
	out=$(awk '$1 ~ /^(connections|tx_fpdus|rx_fpdus)$/ { printf "%s=%s ", $1, $2 }' "$RESULTS/$DEV-stats.txt")
	if [ "$(awk '$1 ~ /^(connections|tx_fpdus|rx_fpdus)$/ && $2 > 0 { n++ } END { print n + 0 }' \
		"$RESULTS/$DEV-stats.txt")" = 3 ]; then
		ktap_ok "our counters: ${out% } above 0"
	else
		ktap_fail "our counters: connections, tx_fpdus, rx_fpdus above 0" "${out:-missing}"
	fi
	v=$(awk '$1 == "tx_direct_rest" { print $2 }' "$RESULTS/$DEV-stats.txt")
	if [ "${v:-0}" -gt 0 ]; then
		ktap_ok "our counters: tx_direct_rest $v, direct sends TCP took in part and tx_work finished (ib_send_bw-small)"
	else
		ktap_fail "our counters: tx_direct_rest above 0 (ib_send_bw-small)" "${v:-missing}"
	fi
}

guest_a() {
	siw_guest project
}

guest_b() {
	siw_guest stock
}

# ---- host --------------------------------------------------------------------

A_ADDRS='["10.0.0.1", "fd00::1"]'

# mpa_want SERVER PARAMS: "REV CREQ CREP", the MPA Request's and Reply's
# revision and C flags of a run.
mpa_want() {
	case $2 in
	crc) if [ "$1" = b ]; then echo "2 1 1"; else echo "2 0 1"; fi ;;
	rev1) echo "1 0 0" ;;
	*) echo "2 0 0" ;;
	esac
}

# port_verdict JSON PORT COND SHOW: "ok N" when the N connections to PORT
# (one at least) all meet the jq condition COND, else "no connection" or
# the jq string SHOW of each, joined by "; ".
port_verdict() {
	jq -r --arg p ":$2" '[.connections[] | select(.responder | endswith($p))] as $cs
		| if ($cs | length) == 0 then "no connection"
		  elif ($cs | all('"$3"')) then "ok \($cs | length)"
		  else [$cs[] | '"$4"'] | join("; ") end' "$1"
}

# check_crc_port JSON PORT CRC: the connections to PORT (one at least):
# with CRC 1, CRCs negotiated on each and every FPDU of both directions
# checked, some each way on the port (perftest's second connection
# carries its traffic one way only); with CRC 0, none negotiated or
# checked.
check_crc_port() {
	local json=$1 port=$2 crc=$3 out sums cond='.crc and .to_responder.crc_checked == .to_responder.fpdus
		and .to_initiator.crc_checked == .to_initiator.fpdus'

	[ "$crc" = 1 ] || cond='(.crc | not) and .to_responder.crc_checked == 0 and .to_initiator.crc_checked == 0'
	out=$(port_verdict "$json" "$port" "$cond" \
		'"crc \(.crc), FPDUs \(.to_responder.fpdus)/\(.to_initiator.fpdus), checked \(.to_responder.crc_checked)/\(.to_initiator.crc_checked)"')
	sums=$(jq -r --arg p ":$port" '[.connections[] | select(.responder | endswith($p))]
		| "\(map(.to_responder.crc_checked) | add // 0) \(map(.to_initiator.crc_checked) | add // 0)"' "$json")
	if [ "$crc" = 1 ] && [[ "$out" == "ok "* ]] && [ "${sums% *}" -gt 0 ] && [ "${sums#* }" -gt 0 ]; then
		ktap_ok "port $port: CRCs in use, all FPDUs checked, ${sums% *} to the responder and ${sums#* } back"
	elif [ "$crc" = 0 ] && [[ "$out" == "ok "* ]]; then
		ktap_ok "port $port: no CRCs in use"
	else
		ktap_fail "port $port: CRCs $([ "$crc" = 1 ] && echo "in use, every FPDU checked, both ways" || echo "not in use")" \
			"$out; checked $sums"
	fi
}

# check_rtr JSON RUN...: RFC 6581's peer-to-peer model on the runs
# ("PORT INITIATOR PROG" each, INITIATOR a, b, or a1 for our revision 1
# Requests): our revision 2 Requests offer it with a zero-length Read and
# Write, stock's Replies take the Write, and on rping's connections that
# Write is the only one we send; stock's Requests do not ask for it and
# our Replies do not either; on a revision 1 connection there is no
# block, and no Write from us.
check_rtr() {
	local json=$1 port ini prog out bad=''

	shift
	while read -r port ini prog; do
		out=$(jq -r --arg p ":$port" --arg i "$ini" --arg prog "$prog" '
			[.connections[] | select(.responder | endswith($p))] as $cs
			| if ($cs | length) == 0 then "no connection" else
			[$cs[] | . as $c
			 | .mpa_request as $q | .mpa_reply as $r
			 | if $i == "a1" then
				select($q.p2p != null or $r.p2p != null or ($c.to_responder.opcodes.rdma_write // 0) != 0)
			   elif $i == "a" then
				select(($q.p2p and $q.read_rtr and $q.write_rtr and $r.p2p and $r.write_rtr
					and ($r.read_rtr | not)
					and ($prog != "rping" or $c.to_responder.opcodes.rdma_write == 1)) | not)
			   else
				select($q.p2p or $r.p2p or $r.read_rtr or $r.write_rtr)
			   end
			 | "\(.initiator)>\(.responder): request \($q.hex) reply \($r.hex) writes \(.to_responder.opcodes.rdma_write // 0)"]
			| join("; ") end' "$json")
		[ -z "$out" ] || bad+=" port $port: $out;"
	done < <(printf '%s\n' "$@")
	if [ "$#" -gt 0 ] && [ -z "$bad" ]; then
		ktap_ok "RFC 6581 peer-to-peer on $# runs: our revision 2 Requests offer Read and Write RTR, stock picks the Write (rping: our only Write); stock asks none, we grant none; revision 1: none, no Write from us"
	else
		ktap_fail "RFC 6581 peer-to-peer: offered by us, zero-length Write from stock; none asked by stock" \
			"${bad:-no runs}"
	fi
}

# check_refused_wire JSON PCAP PORT: the refused run's connection: stock's
# revision 2 enhanced Request without C, no Reply, no FPDU either way, a
# TCP reset from a.
check_refused_wire() {
	local json=$1 pcap=$2 port=$3 out rst

	out=$(port_verdict "$json" "$port" '.mpa_request.rev == 2 and .mpa_request.h == 1
		and .mpa_request.c == 0 and .mpa_reply == null
		and .to_responder.fpdus == 0 and .to_initiator.fpdus == 0' \
		'"request \(.mpa_request.hex // "-") reply \(.mpa_reply.hex // "-") FPDUs \(.to_responder.fpdus)/\(.to_initiator.fpdus)"')
	rst=$(tshark -n -r "$pcap" -Y "tcp.srcport == $port && tcp.flags.reset == 1 && (ip.src == 10.0.0.1 || ipv6.src == fd00::1)" 2>/dev/null | wc -l)
	if [[ "$out" == "ok "* ]] && [ "$rst" -ge 1 ]; then
		ktap_ok "port $port (refused): ${out#ok } revision 2 Request(s) from stock, no Reply, no FPDU, $rst reset(s) from a"
	else
		ktap_fail "port $port (refused): stock's revision 2 Request, no Reply, no FPDU, a reset from a" \
			"$out; $rst resets from a"
	fi
}

# check_rev1_wire JSON PORT: rping-rev1's connection: revision 1 Request
# and Reply (no H, no C), one Send from us (rping -c's buffer
# advertisement), nothing from stock (its Read was never posted; no
# Terminate either).
check_rev1_wire() {
	local json=$1 port=$2 out

	out=$(port_verdict "$json" "$port" '.mpa_request.rev == 1 and .mpa_reply.rev == 1
		and .mpa_request.h == 0 and .mpa_reply.h == 0 and .mpa_request.c == 0
		and .mpa_reply.c == 0 and .mpa_reply.r == 0
		and .to_responder.opcodes == {"send": 1} and .to_initiator.fpdus == 0' \
		'"request \(.mpa_request.hex // "-") reply \(.mpa_reply.hex // "-") ops \(.to_responder.opcodes | tojson)/\(.to_initiator.opcodes | tojson)"')
	if [[ "$out" == "ok "* ]]; then
		ktap_ok "port $port (rping-rev1): ${out#ok } revision 1 connection(s), our one Send, nothing from stock"
	else
		ktap_fail "port $port (rping-rev1): revision 1 connection, our one Send, nothing from stock" "$out"
	fi
}

# stat_of RES NAME: our counter NAME as guest a saved it.
stat_of() {
	awk -v c="$2" '$1 == c { print $2 }' "$1/a/$DEV-stats.txt" 2>/dev/null
}

# FPDUs sent to a on the connections of runs that were run again: those
# on a port P whose retry port P + $r (RETRY_PORTS) saw a connection too.
# shellcheck disable=SC2016 # jq variables, not the shell's
FAILED_RX_JQ='def port: sub("^.*:"; "") | tonumber;
	([.connections[] | .responder | port]) as $ports
	| [.connections[] | select(.responder | port as $p | $ports | any(.[]; . == $p + $r))
	   | .to_responder, .to_initiator
	   | select(.dst | sub(":[0-9]+$"; "") | ltrimstr("[") | rtrimstr("]") | IN($a[])) | .fpdus]
	| add // 0'

# check_counters RES JSON: our counters equal what the wire shows: FPDUs
# sent by a, FPDUs sent to a, iWARP connections with an accepting Reply,
# connections to a left without a Reply.  A program that failed (its run
# was run again) may have ended its QP with FPDUs of the peer still unread:
# those of its connections may be missing from rx_fpdus, no others.
check_counters() {
	local res=$1 json=$2 name jqx want got failed

	failed=$(jq --argjson a "$A_ADDRS" --argjson r "$RETRY_PORTS" "$FAILED_RX_JQ" "$json")
	while read -r name jqx; do
		want=$(jq --argjson a "$A_ADDRS" "$jqx" "$json")
		got=$(stat_of "$res" "$name")
		if [ -n "$got" ] && [ "$got" = "$want" ]; then
			ktap_ok "our $name ($got) is what the wire shows"
		elif [ "$name" = rx_fpdus ] && [ -n "$got" ] && [ "$failed" -gt 0 ] &&
		     [ "$got" -lt "$want" ] && [ "$got" -ge $((want - failed)) ]; then
			ktap_ok "our $name ($got) is what the wire shows but $((want - got)) of the $failed sent to failed runs"
		else
			ktap_fail "our $name is what the wire shows" "counter '${got:-missing}', wire $want ($failed to failed runs)"
		fi
	done <<'EOF'
tx_fpdus [.connections[] | .to_responder, .to_initiator | select(.src | sub(":[0-9]+$"; "") | ltrimstr("[") | rtrimstr("]") | IN($a[])) | .fpdus] | add // 0
rx_fpdus [.connections[] | .to_responder, .to_initiator | select(.dst | sub(":[0-9]+$"; "") | ltrimstr("[") | rtrimstr("]") | IN($a[])) | .fpdus] | add // 0
connections [.connections[] | select(.mpa_reply != null and (.rejected | not))] | length
mpa_bad_frame [.connections[] | select(.mpa_reply == null and (.responder | sub(":[0-9]+$"; "") | ltrimstr("[") | rtrimstr("]") | IN($a[])))] | length
EOF
}

host_phase() {
	local res=$1 json=$1/iwarp_all.json rev creq crep crc
	local -a c rtr=()

	siw_host_begin "$res" || return
	siw_pcap_clean "$res" iwarp_all "all connections"
	while read -r -a c; do
		case ${c[0]} in
		rping-refused)
			check_refused_wire "$json" "$res/wire.pcap" "${c[3]}"
			continue
			;;
		rping-rev1)
			check_rev1_wire "$json" "${c[3]}"
			rtr+=("${c[3]} a1 ${c[0]}")
			continue
			;;
		esac
		read -r rev creq crep < <(mpa_want "${c[2]}" "${c[4]}")
		check_port "$json" "${c[0]}" "${c[3]}" "$rev" "$creq" "$crep"
		crc=0
		[ "${c[4]}" = crc ] && crc=1
		check_crc_port "$json" "${c[3]}" "$crc"
		if [ "${c[2]}" = a ]; then
			rtr+=("${c[3]} b ${c[0]}")
		elif [ "$rev" = 2 ]; then
			rtr+=("${c[3]} a ${c[0]}")
		else
			rtr+=("${c[3]} a1 ${c[0]}")
		fi
	done < <(cases)
	check_rtr "$json" "${rtr[@]}"
	check_counters "$res" "$json"
	check_tshark_clean "$res/wire.pcap"
	compare_opcodes "$json" "$res/wire.pcap"
	compare_crcs "$json" "$res/wire.pcap" 0
}

rdma_test_main "$@"
