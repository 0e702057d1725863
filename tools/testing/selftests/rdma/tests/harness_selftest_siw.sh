#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test of the soft-iWARP peer, stock <-> stock: Linux's own
# siw.ko (make stage-stock builds it from Debian's linux-source-6.12,
# Debian's kernel has none) on both guests, unmodified rdma-core user
# space, and the host's two independent readers of the wire capture.
#   setup, each guest: siw is not loaded until rdma_link_add_siw loads the
#      staged siw.ko (its build ID is that of STAGE_STOCK's file) and
#      adds siw0 on the NIC; siw got a crc32c transform (its load message
#      did not say it failed); rdma link shows siw0/1 ACTIVE on $NETDEV;
#      siw0 is an RNIC whose one GID is its MAC; a netem delay of
#      WIRE_DELAY ms on the NIC (it keeps clear of a race in stock siw's
#      accept, see setup_siw); fd00::N/64 on the NIC; resource tracking
#      lists no PD, CQ, QP or MR on siw0.
#   runs, paired by harness/uverbs_pair.sh (each is one result per guest:
#      exit 0 in time plus the check named; a run whose peer program hit
#      one of its known faults is run once more, see run_case):
#      - rping over IPv4 and IPv6, a serving then b: "rping -s -v" and
#        "rping -c -v -V" (the client checks the data it reads back),
#        RP_COUNT iterations, both print RP_COUNT "ping data" lines.
#      - ib_send_bw, ib_write_bw, ib_read_bw -R (connected through the RDMA
#        CM), a serving then b, PT_ITERS messages of 64 KiB: a results row
#        of that size and count, bandwidth above 0.  (ibv_rc_pingpong
#        cannot run on iWARP: a siw QP gets to RTS only through the iWARP
#        CM, which connects the TCP stream under it; the program's own
#        modify to RTS fails.)
#      - mpa_crc_probe.py on b against "rping -s" on a, twice: an MPA v2
#        Request with C from user space; the Reply must set C; a Send with
#        a right CRC32c must get a Read Request (with a right CRC32c) for
#        the buffer it advertised, and rping must have issued that read;
#        one with a flipped CRC bit must get a Terminate (CRC error) and
#        rping must never see the advertisement.
#   after the runs, each guest: siw0's counts are those from before; no
#      process holds /dev/infiniband and every RDMA module (siw, iw_cm,
#      rdma_cm...) unloads with no reference left over; the kernel log has
#      no report.
#   host: harness/iwarp_pcap.py --selftest (CRC32c vectors, made-up
#      streams with each kind of fault); iwarp_pcap.py over wire.pcap:
#      every connection but the corrupting probe's is clean (no CRC
#      mismatch, no truncated FPDU, no unknown opcode, no header or stream
#      error), with CRCs checked (the good probe's connection) and FPDUs;
#      each run's port had an iWARP connection whose MPA frames are those
#      stock siw sends (revision 2, enhanced, no markers; C only where the
#      probe asked for it) and whose FPDUs hold what the run must have
#      sent; the corrupting probe's connection has exactly one CRC
#      mismatch, on its Send, whose wire and right CRCs are the two values
#      siw logged for it on guest a; tshark decodes the iWARP frames
#      (TCP heuristic iwarp_mpa_tcp), reports none malformed or with an
#      error, counts the same RDMAP opcodes per source as iwarp_pcap.py
#      and judges the same CRCs good and bad.
# RP_COUNT and PT_ITERS can be set through RDMA_TEST_ENV.
#
# vms: 2
# stack-a: stock
# stack-b: stock
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/uverbs_pair.sh
. "$(dirname "$0")/../harness/uverbs_pair.sh"

# shellcheck source-path=SCRIPTDIR source=../harness/siw_pair.sh
. "$(dirname "$0")/../harness/siw_pair.sh"

PROBE=tools/testing/selftests/rdma/mpa_crc_probe.py

# cases: the runs, "PROG FAMILY SERVER PORT", the same on both guests and
# the host phase; each run on its own port.
cases() {
	echo "rping v4 a 7174"
	echo "rping v4 b 7175"
	echo "rping v6 a 7176"
	echo "rping v6 b 7177"
	echo "ib_send_bw v4 a 18600"
	echo "ib_send_bw v4 b 18601"
	echo "ib_write_bw v4 a 18602"
	echo "ib_write_bw v4 b 18603"
	echo "ib_read_bw v4 a 18604"
	echo "ib_read_bw v4 b 18605"
	echo "probe v4 a 7180"
	echo "probe-bad v4 a 7181"
}

# probe_side SERVER ADDR PORT SECS [--corrupt] [PEER]: the probe's run:
# guest SERVER runs "rping -s -v -C 1" on ADDR:PORT and says how it ended
# (its exit status after a connection it could not use varies: what
# counts is where it stopped, see check_probe), the other
# mpa_crc_probe.py, waiting SECS for each answer (without the peer address
# pair_run appends).
probe_side() {
	local srv=$1 addr=$2 port=$3 secs=$4 pid

	shift 4
	if [ "$RDMA_ROLE" = "$srv" ]; then
		rping -s -v -C 1 -a "$addr" -p "$port" &
		pid=$!
		trap 'kill "$pid"' TERM
		wait "$pid"
		echo "rping -s exit status $?"
		exit 0
	fi
	exec python3 "$PROBE" --timeout "$secs" "${@:1:$#-1}" "$addr" "$port"
}
export -f probe_side
export PROBE

# check_probe SERVER CORRUPT LOG SECS: the probe (client): all its checks
# passed; its rping server: the connection ended with the RDMA Read issued
# (a right CRC) or before the advertisement arrived (a flipped one), as
# rping -v says when it ends in those states.
check_probe() {
	local bad want

	if [ "$RDMA_ROLE" != "$1" ]; then
		bad=$(grep '^not ok' "$3")
		if [ -n "$bad" ] || ! grep -q '^ok' "$3"; then
			echo "probe: ${bad:-no result}"
			return 1
		fi
		echo "$(grep -c '^ok' "$3") probe checks passed"
		return 0
	fi
	want=RDMA_READ_COMPLETE
	[ "$2" = 1 ] && want=RDMA_READ_ADV
	if ! grep -q "wait for $want state" "$3"; then
		echo "rping -s did not end waiting for $want: $(tail -n 2 "$3" | paste -sd ' ' -)"
		return 1
	fi
	echo "rping -s ended waiting for $want"
}

# siw_other_case N PROG FAMILY SERVER PORT ADDR PEER: the probe's runs
# (run_case does the rest).
siw_other_case() {
	local n=$1 prog=$2 srv=$4 port=$5 addr=$6 corrupt=0
	local -a opt=()

	[ "$prog" = probe-bad ] && corrupt=1 opt=(--corrupt)
	pair_run "$n" "$srv" "$port" "$prog" \
		"mpa_crc_probe.py${opt[*]:+ ${opt[*]}} against rping -s on $srv" \
		check_probe "$srv" "$corrupt" -- \
		bash -c 'probe_side "$@"' probe_side "$srv" "$addr" "$port" "$(scaled 30)" "${opt[@]}"
}

# siw_other_ops PROG: the probe's FPDUs (see siw_ops): a Read Request;
# the corrupting one's, a Terminate.
siw_other_ops() {
	case $1 in
	probe) echo "1 rdma_read_request" ;;
	probe-bad) echo "1 terminate" ;;
	esac
}

guest() {
	siw_guest stock
}

# ---- host --------------------------------------------------------------------

# The MPA frames are those of stock siw: revision 2, enhanced, no markers;
# C only where the probe asked for it.
host_phase() {
	local res=$1 ports=() bad_port rc crc
	local -a c

	siw_host_begin "$res" || return
	while read -r -a c; do
		if [ "${c[0]}" = probe-bad ]; then
			bad_port=${c[3]}
		else
			ports+=(--port "${c[3]}" --port $((c[3] + RETRY_PORTS)))
		fi
	done < <(cases)

	# Every connection but the corrupting probe's.
	siw_pcap_clean "$res" iwarp_clean "all but port $bad_port" "${ports[@]}"

	# The whole capture, for the corrupting probe and for tshark.
	rc=0
	siw_pcap "$res" iwarp_all || rc=$?
	while read -r -a c; do
		crc=0
		[[ "${c[0]}" == probe* ]] && crc=1
		check_port "$res/iwarp_all.json" "${c[0]}" "${c[3]}" 2 "$crc" "$crc"
	done < <(cases)
	check_bad_crc "$res" "$rc" "$bad_port"
	check_tshark_clean "$res/wire.pcap"
	compare_opcodes "$res/iwarp_all.json" "$res/wire.pcap"
	compare_crcs "$res/iwarp_all.json" "$res/wire.pcap" 1
}

# le_hex HEX: 4 bytes (8 hex digits) read as a little-endian number.
le_hex() {
	echo "${1:6:2}${1:4:2}${1:2:2}${1:0:2}"
}

# check_bad_crc RES RC PORT: the connection to PORT (the corrupting probe)
# has one CRC mismatch, on the Send right after its MPA Request, and siw
# on guest a logged the same two CRCs for it ("crc error. in: WIRE, own
# RIGHT", each the CRC field read as a little-endian number).
check_bad_crc() {
	local res=$1 rc=$2 port=$3 err wire right in own
	local re="^[^;]*:$port @24: CRC field ([0-9a-f]{8}), CRC32c ([0-9a-f]{8})\$"

	err=$(jq -r --arg a ":$port @" --arg b ":$port>" \
		'[.errors[] | select(contains($a) or contains($b))] | join(";")' "$res/iwarp_all.json")
	if [ "$rc" -eq 1 ] && [ "$(jq '.crc_bad' "$res/iwarp_all.json")" = 1 ] && [[ "$err" =~ $re ]]; then
		wire=${BASH_REMATCH[1]} right=${BASH_REMATCH[2]}
		ktap_ok "iwarp_pcap.py: the one CRC mismatch is the probe's Send to port $port (field $wire, CRC32c $right)"
	else
		ktap_fail "iwarp_pcap.py: the one CRC mismatch is the probe's Send to port $port" \
			"exit $rc, crc_bad $(jq '.crc_bad' "$res/iwarp_all.json" 2>/dev/null), errors: ${err:-none}"
		return
	fi
	read -r in own < <(sed -n 's/.*siw: crc error\. in: \([0-9a-f]*\), own \([0-9a-f]*\),.*/\1 \2/p' "$res/a/dmesg.txt")
	if [ "$in" = "$(le_hex "$wire")" ] && [ "$own" = "$(le_hex "$right")" ] &&
		[ "$(grep -c 'siw: crc error' "$res/a/dmesg.txt")" = 1 ]; then
		ktap_ok "siw on a logged one CRC error with the same CRCs (in $in, own $own)"
	else
		ktap_fail "siw on a logged one CRC error with the same CRCs" \
			"$(grep 'siw: crc error' "$res/a/dmesg.txt" | head -n 2 | paste -sd ';' -), want in $(le_hex "$wire") own $(le_hex "$right")"
	fi
}

rdma_test_main "$@"
