# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Soft-iWARP runs between the two guests of a test: a siw0 on each
# guest's NIC (Linux's own siw.ko on a stock guest, ours on the project's
# stack), unmodified rdma-core programs paired by uverbs_pair.sh, and the
# host's checks of the wire capture with iwarp_pcap.py and tshark.
# Sourced after lib.sh and uverbs_pair.sh by tests/harness_selftest_siw.sh
# (stock <-> stock) and tests/siw_interop.sh (ours <-> stock).
#
# A test defines `cases`, which prints its runs, one "PROG FAMILY SERVER
# PORT [MORE...]" line each, the same on both guests and the host phase:
# PROG rping, ib_send_bw, ib_write_bw or ib_read_bw (or one of the test's
# own, see run_case), FAMILY v4 or v6, SERVER a or b, PORT the run's own
# TCP port; the library ignores MORE.
#
# Guests:
#   siw_guest STACK    the whole side of a guest: setup_siw STACK, the
#                      runs (SIW_RUN, default run_case, for each case),
#                      siw0's counts as before, SIW_AFTER_RUNS (when set),
#                      check_modules_unload, siw0 freed empty (our
#                      siw), the kernel log clean
#   setup_siw STACK, run_case N PROG FAMILY SERVER PORT,
#   rping_side, check_rping, check_bw, siw_counts_as_before, addr_of,
#   v6_of, mac_gid, build_id_of_note     its parts
# Host:
#   siw_host_begin RES, siw_pcap RES NAME ARGS..., siw_pcap_clean RES
#   NAME WHAT ARGS..., check_port JSON PROG PORT REV CREQ CREP,
#   check_tshark_clean PCAP, compare_opcodes JSON PCAP,
#   compare_crcs JSON PCAP NBAD, port_ops JSON PORT OPCODE

RP_COUNT=${RP_COUNT:-20}
PT_ITERS=${PT_ITERS:-20}
# Seconds a program may run (each takes a few).
# shellcheck disable=SC2034 # uverbs_pair.sh reads it
PAIR_TIMEOUT=30
PT_SIZE=65536
DEV=siw0
# pair_cases' diagnostics show this device's counters.
# shellcheck disable=SC2034 # uverbs_pair.sh reads it
PAIR_DEV=$DEV
# A run that hit a known fault of the peer's programs (see run_case) is
# run again, on its port plus this.
RETRY_PORTS=100
# The known faults of perftest's programs (see run_case).
PT_RETRY_IF='^Correlation coefficient r\^2|^Failed to connect through RDMA CM|RDMA_CM_EVENT_REJECTED; error: -111'
# One-way delay (ms) netem adds on each guest's NIC: see setup_siw.
WIRE_DELAY=25
# The function each run of `cases` is given to, and one siw_guest calls
# after the runs (empty: none).
SIW_RUN=${SIW_RUN:-run_case}
SIW_AFTER_RUNS=${SIW_AFTER_RUNS:-}
# siw0's object counts before the runs (setup_siw).
BASELINE=

# ---- guests ------------------------------------------------------------------

# The guests' addresses on the wire: 10.0.0.N and fd00::N.
v6_of() {
	echo "fd00::${1##*.}"
}

# addr_of FAMILY ROLE: guest ROLE's address of FAMILY.
addr_of() {
	local ip=$MY_IP

	[ "$2" = "$RDMA_ROLE" ] || ip=$PEER_IP
	if [ "$1" = v6 ]; then v6_of "$ip"; else echo "$ip"; fi
}

# rping_side SERVER ADDR ARGS... [PEER]: what pair_run runs on both
# guests of an rping run (through bash -c: exported): guest SERVER runs
# "rping -s -a ADDR ARGS...", the other "rping -c -V -a ADDR ARGS...";
# both name the server by ADDR, so the client drops the peer address
# pair_run appends to its command.
rping_side() {
	local srv=$1 addr=$2

	shift 2
	[ "$RDMA_ROLE" = "$srv" ] && exec rping -s -a "$addr" "$@"
	exec rping -c -V -a "$addr" "${@:1:$#-1}"
}
export -f rping_side

# check_rping LOG SECS: RP_COUNT "ping data" lines ("server ping data" on
# the server), no error line.
check_rping() {
	local n err

	n=$(grep -cE '^(server )?ping data: rdma-ping-' "$1")
	err=$(grep -m 1 -iE 'error|fail|mismatch' "$1")
	if [ -n "$err" ]; then
		echo "it reported: $err"
		return 1
	elif [ "$n" -ne "$RP_COUNT" ]; then
		echo "$n ping data lines, not $RP_COUNT"
		return 1
	fi
	echo "$n pings"
}

# check_bw SIZE ITERS LOG SECS: a perftest results row of SIZE bytes and
# ITERS iterations with an average bandwidth above 0, no error line.
check_bw() {
	local err row

	err=$(grep -m 1 -iE "couldn't|failed|error" "$3")
	row=$(awk 'f { print; exit } /#bytes/ { f = 1 }' "$3")
	if [ -n "$err" ]; then
		echo "it reported: $err"
		return 1
	fi
	awk -v size="$1" -v iters="$2" '
	NF != 5 || $1 != size || $2 != iters || !($4 > 0) {
		print "results row \"" $0 "\", not " size " bytes, " iters " iterations, BW > 0"
		exit 1
	}
	{ printf "BW average %s MB/s, peak %s\n", $4, $3 }' <<<"${row:-none}"
}

# pt_run N NAME PROG SERVER PORT PEER SIZE ITERS [NOTE]: run N, perftest's
# PROG (-R) with SIZE-byte messages, ITERS of them, its output as NAME's;
# a known fault of perftest's (PT_RETRY_IF) has the first try run again.
# shellcheck disable=SC2034 # pair_run reads PAIR_RETRY_IF
pt_run() {
	[ "$1" -ge 100 ] || PAIR_RETRY_IF=$PT_RETRY_IF
	pair_run "$1" "$4" "$5" "$2" \
		"$3 -R -s $7 -n $8, server $4 client $6${9:+, $9}" \
		check_bw "$7" "$8" -- \
		"$3" -R -d "$DEV" -p "$5" -s "$7" -n "$8"
}

# run_case N PROG FAMILY SERVER PORT [MORE...]: this guest's side of run
# N.  PROG rping or ib_{send,write,read}_bw; any other is the test's:
# run_case calls its siw_other_case N PROG FAMILY SERVER PORT ADDR PEER
# (ADDR the server's address, PEER the client's role), which makes the
# pair_run.  A run in which a peer program hit one of its known faults is
# run once more, as run N + 100 on port PORT + RETRY_PORTS: rping
# (rdma-core 44) can exit 255 after all its pings, "rdma_get_cm_event:
# Bad file descriptor" (its CM event thread reads the event channel the
# main thread is closing; fixed in rdma-core by pull request 1622);
# perftest sizes the CPU clock by timing busy waits and, when the host
# preempted a guest meanwhile, gives up after the traffic ("Correlation
# coefficient r^2 ... Can't produce a report"); perftest's -R (4.5+0.17)
# makes two rdma_cm connections on PORT, the first to exchange its
# parameters; the server listens for the second only after a handshake
# over the first, from which the client goes straight to its connect, so
# on a slow guest the connect finds the port closed (TCP refused:
# "Failed to connect through RDMA CM" from Linux's siw, which connects in
# rdma_connect(), "RDMA_CM_EVENT_REJECTED; error: -111" from ours, which
# connects from its work); perftest then retries the connect itself, up
# to ten times, each after tearing its rdma_cm state down, and the first
# retry crashes (exit 139).
# shellcheck disable=SC2034 # pair_run reads PAIR_RETRY_IF
run_case() {
	local n=$1 prog=$2 fam=$3 srv=$4 port=$5 addr peer=a

	[ "$srv" = a ] && peer=b
	addr=$(addr_of "$fam" "$srv")
	PAIR_RETRY_IF=
	case $prog in
	rping)
		[ "$n" -ge 100 ] || PAIR_RETRY_IF='^rdma_get_cm_event: Bad file descriptor'
		pair_run "$n" "$srv" "$port" "rping-$fam" \
			"rping -C $RP_COUNT over $fam ($addr), server $srv client $peer" check_rping -- \
			bash -c 'rping_side "$@"' rping_side "$srv" "$addr" -v -C "$RP_COUNT" -p "$port"
		;;
	ib_send_bw | ib_write_bw | ib_read_bw)
		pt_run "$n" "$prog" "$prog" "$srv" "$port" "$peer" "$PT_SIZE" "$PT_ITERS"
		;;
	*)
		if ! declare -F siw_other_case >/dev/null; then
			ktap_fail "run $n: $prog" "no such program in run_case and no siw_other_case"
			return
		fi
		siw_other_case "$n" "$prog" "$fam" "$srv" "$port" "$addr" "$peer"
		;;
	esac
	[ -z "$PAIR_RETRY" ] ||
		run_case $((n + 100)) "$prog" "$fam" "$srv" $((port + RETRY_PORTS))
}

# The GID sysfs shows for a siw device on a NIC with MAC: the MAC, then
# zeros.
mac_gid() {
	local IFS=: b

	read -ra b <<<"$1"
	printf '%s%s:%s%s:%s%s:0000:0000:0000:0000:0000' "${b[@]}"
}

# build_id_of_note FILE: the ID in a GNU build ID note as the kernel shows
# it (/sys/module/M/notes/.note.gnu.build-id: name size, ID size, type,
# "GNU\0", then the ID).
build_id_of_note() {
	od -An -v -tx1 -j16 "$1" | tr -d ' \n'
}

siw_no_dev_objects() {
	rdma_res_counts "$DEV" pd cq qp mr
}

# setup_siw STACK: this guest runs STACK (project or stock); siw is not
# loaded until rdma_link_add_siw adds siw0 on the NIC; the siw loaded is
# STACK's (its build ID is that of STAGE_STOCK's siw.ko on a stock guest,
# of the staged one under updates/ on ours); stock siw got its crc32c
# transform; siw0/1 ACTIVE on $NETDEV, an RNIC whose GID 0 is its MAC;
# netem delay, fd00::N/64 on the NIC; BASELINE siw0's counts, all 0.
# Fails when the runs cannot be done.
setup_siw() {
	local stack=$1 ko id want got mark="siw load $$"

	ktap_check "stack is $stack" test "$RDMA_STACK" = "$stack"
	ktap_check "rdma, rping, ib_{send,write,read}_bw, python3, jq installed" \
		require_cmd rdma rping ib_send_bw ib_write_bw ib_read_bw python3 jq || return 1
	if module_loaded siw; then
		ktap_fail "siw not loaded before rdma_link_add_siw" "it already is"
	else
		ktap_ok "siw not loaded before rdma_link_add_siw"
	fi
	kmsg_mark "$mark"
	ktap_check "rdma_link_add_siw $DEV (netdev $NETDEV)" rdma_link_add_siw "$DEV" || return 1
	ko=$(_find_module siw)
	id=$(build_id_of_note /sys/module/siw/notes/.note.gnu.build-id 2>&1)
	want=$(readelf -n "$ko" 2>&1 | sed -n 's/^ *Build ID: //p')
	if [ "$RDMA_STACK" = stock ]; then
		got="STAGE_STOCK's siw.ko"
		[[ "$ko" == "$STAGE_STOCK"/* ]] || ko="$ko (not under $STAGE_STOCK)"
	else
		got="the staged siw.ko under updates/"
		[[ "$ko" == /lib/modules/"$KVER"/updates/* ]] || ko="$ko (not under updates/)"
	fi
	if [[ "$ko" != *"(not under"* ]] && [ -n "$want" ] && [ "$id" = "$want" ]; then
		ktap_ok "the loaded siw is $ko (build ID $id)"
	else
		ktap_fail "the loaded siw is $got" "file '$ko' (build ID '$want'), loaded: '$id'"
	fi
	if [ "$RDMA_STACK" = stock ]; then
		got=$(kmsg_since "$mark" | grep -E 'SoftiWARP|CRC32c' | paste -sd ';' -)
		if [[ "$got" == *"SoftiWARP attached"* ]] && [[ "$got" != *"CRC32c failed"* ]]; then
			ktap_ok "siw attached with its crc32c transform"
		else
			ktap_fail "siw attached with its crc32c transform" "kernel log: '$got'"
		fi
	fi
	ktap_check "rdma link: $DEV/1 ACTIVE on $NETDEV" \
		grep -qE "^link $DEV/1 state ACTIVE .*netdev $NETDEV( |$)" <(rdma link show "$DEV/1")
	ktap_check "$DEV is an RNIC" grep -qx '4: RNIC' "/sys/class/infiniband/$DEV/node_type"
	want=$(mac_gid "$MY_MAC")
	got=$(cat "/sys/class/infiniband/$DEV/ports/1/gids/0" 2>&1)
	if [ "$got" = "$want" ]; then
		ktap_ok "GID 0 of $DEV is its MAC $MY_MAC"
	else
		ktap_fail "GID 0 of $DEV is its MAC $MY_MAC" "'$got', want '$want'"
	fi
	# Linux 6.12's siw, accepting a connection, sets it up for RDMA
	# traffic (siw_accept: the CM's state RDMA mode, the QP in RTS) and
	# sends the MPA Reply before it gives the socket's data-ready
	# callback to the QP; an FPDU that arrives in between wakes only the
	# CM's callback, which ignores data in RDMA mode, and waits in the
	# socket until more data comes.  A client whose first message waits
	# for an answer (perftest's exchange of parameters) then hangs: seen
	# on TCG in one run in three or so of each, the server's socket
	# holding the client's 40 bytes (ss: Recv-Q 40).  A one-way delay on
	# each NIC, longer than the accepting guest takes from sending the
	# Reply to handing over the socket, keeps the first FPDU out of that
	# window (none hung in 14 runs with 25 ms).
	ktap_check "tc qdisc replace dev $NETDEV root netem delay ${WIRE_DELAY}ms" \
		tc qdisc replace dev "$NETDEV" root netem delay "${WIRE_DELAY}ms" || return 1
	ktap_check "ip -6 addr add $(v6_of "$MY_IP")/64 dev $NETDEV" \
		ip -6 addr add "$(v6_of "$MY_IP")/64" dev "$NETDEV" nodad || return 1
	if BASELINE=$(siw_no_dev_objects) && [ "$BASELINE" = "pd=0 cq=0 qp=0 mr=0" ]; then
		ktap_ok "$DEV before the runs: $BASELINE"
	else
		ktap_fail "$DEV before the runs: no PD, CQ, QP or MR" "'$BASELINE'"
	fi
}

# siw_counts_as_before: siw0's counts are BASELINE's.
siw_counts_as_before() {
	local out

	out=$(siw_no_dev_objects)
	if [ -n "$out" ] && [ "$out" = "$BASELINE" ]; then
		ktap_ok "$DEV after the runs: $out, as before"
	else
		ktap_fail "$DEV after the runs: as before" "before '$BASELINE', now '$out'"
	fi
}

# check_siw_released MARK: since the kernel log marker MARK, our siw freed
# $DEV with no QP, CQ, MR or PD of it left (lib.sh's siw_released_clean).
check_siw_released() {
	if siw_released_clean "$1" "$DEV"; then
		ktap_ok "$DEV freed with 0 QPs, CQs, MRs and PDs left"
	else
		ktap_fail "$DEV freed with 0 QPs, CQs, MRs and PDs left" \
			"$(kmsg_since "$1" | grep "siw: $DEV released" | tail -n 1)"
	fi
}

# save_siw_counters: $DEV's counters (rdma statistic) into
# $RESULTS/$DEV-stats.txt, one "NAME VALUE" a line, for the host and the
# caller; 1 (and a failed subtest) when rdma cannot show them.
save_siw_counters() {
	local out

	if ! out=$(rdma statistic show link "$DEV/1" 2>&1); then
		ktap_fail "rdma statistic show link $DEV/1" "$out"
		return 1
	fi
	awk '{ for (i = 3; i < NF; i += 2) print $i, $(i + 1) }' <<<"$out" >"$RESULTS/$DEV-stats.txt"
	ktap_diag "$DEV counters: $(paste -sd ' ' "$RESULTS/$DEV-stats.txt")"
}

# siw_guest STACK: a guest's whole side (see the top).
siw_guest() {
	local mark="$RDMA_TEST_NAME $$"

	kmsg_mark "$mark"
	setup_siw "$1" || return
	pair_cases cases "$SIW_RUN"
	siw_counts_as_before
	[ -z "$SIW_AFTER_RUNS" ] || "$SIW_AFTER_RUNS"
	check_modules_unload
	[ "$RDMA_STACK" != project ] || check_siw_released "$mark"
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

# ---- host --------------------------------------------------------------------

SIW_HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# siw_host_begin RES: iwarp_pcap.py's self-test (relayed), tshark and jq
# there, RES/wire.pcap there; fails when the checks cannot go on.
siw_host_begin() {
	# Not in a pipeline: the relayed results must count in this shell.
	ktap_relay "iwarp_pcap selftest: " < <(python3 "$SIW_HARNESS/iwarp_pcap.py" --selftest)
	require_cmd tshark jq || { ktap_fail "tshark and jq available" "install them"; return 1; }
	if [ ! -s "$1/wire.pcap" ]; then
		ktap_fail "wire capture present" "no $1/wire.pcap"
		return 1
	fi
	ktap_ok "wire capture present"
}

# siw_pcap RES NAME [--port N]...: iwarp_pcap.py over RES/wire.pcap into
# RES/NAME.json (its errors appended to RES/iwarp_pcap.err); its status.
siw_pcap() {
	local res=$1 name=$2

	shift 2
	python3 "$SIW_HARNESS/iwarp_pcap.py" "$@" "$res/wire.pcap" >"$res/$name.json" 2>>"$res/iwarp_pcap.err"
}

# siw_pcap_clean RES NAME WHAT [--port N]...: siw_pcap, and one result:
# no CRC mismatch, truncated FPDU, unknown opcode, header or stream error
# in the connections WHAT names, FPDUs and CRCs checked; the first MPA
# frames as diagnostics.
siw_pcap_clean() {
	local res=$1 name=$2 what=$3 rc=0 out json=$1/$2.json

	shift 3
	siw_pcap "$res" "$name" "$@" || rc=$?
	out=$(jq -r '"\(.iwarp_connections) iWARP connections, \(.fpdus) FPDUs, \(.crc_checked) CRCs checked, crc_bad \(.crc_bad), truncated \(.truncated), unknown_opcode \(.unknown_opcode), header_errors \(.header_errors), stream_errors \(.stream_errors)"' \
		"$json" 2>/dev/null)
	ktap_diag "iwarp_pcap.py, $what: ${out:-no report: $(head -c 300 "$res/iwarp_pcap.err")}"
	if [ "$rc" -eq 0 ] && [ "$(jq '.ok and .fpdus > 0 and .crc_checked > 0' "$json")" = true ]; then
		ktap_ok "iwarp_pcap.py: no CRC mismatch or other error, FPDUs and CRCs checked"
	else
		ktap_fail "iwarp_pcap.py: no CRC mismatch or other error, FPDUs and CRCs checked" \
			"exit $rc: $out: $(jq -c '.errors[:3]' "$json" 2>/dev/null)"
	fi
	jq -r '.connections[] | "\(.initiator) > \(.responder): request \(.mpa_request.hex // "-") reply \(.mpa_reply.hex // "-")"' \
		"$json" 2>/dev/null | head -n 3 | while IFS= read -r out; do ktap_diag "MPA: $out"; done
}

# port_ops JSON PORT OPCODE: FPDUs of OPCODE on the connections to PORT.
port_ops() {
	jq --arg p ":$2" --arg o "$3" '[.connections[] | select(.responder | endswith($p))
		| .to_responder.opcodes[$o], .to_initiator.opcodes[$o] | values] | add // 0' "$1"
}

# siw_ops PROG: "WANT OPCODE..." that a run of PROG must put on the wire
# at least WANT FPDUs of each OPCODE: rping a Read and a Write per
# iteration (the server reads the client's ping buffer, then writes it
# back), ib_send_bw, ib_write_bw, ib_read_bw a Send, Write or Read Request
# per message; for another PROG the test's siw_other_ops PROG.
siw_ops() {
	case $1 in
	rping) echo "$RP_COUNT rdma_read_request rdma_write" ;;
	ib_send_bw) echo "$PT_ITERS send" ;;
	ib_write_bw) echo "$PT_ITERS rdma_write" ;;
	ib_read_bw) echo "$PT_ITERS rdma_read_request" ;;
	*) declare -F siw_other_ops >/dev/null && siw_other_ops "$1" ;;
	esac
}

# check_port JSON PROG PORT REV CREQ CREP: the run on PORT had an iWARP
# connection whose MPA Request and Reply have revision REV (enhanced, H,
# exactly when REV is 2), no markers, no R, C CREQ in the Request and
# CREP in the Reply, and whose FPDUs hold what PROG must send (siw_ops);
# a run done again (run_case) is checked on its second port.
check_port() {
	local json=$1 prog=$2 port=$3 rev=$4 creq=$5 crep=$6 conns mpa ops o want got h=0 desc

	desc="MPA rev $rev, C $creq in the Request, $crep in the Reply"
	if [ "$rev" = 2 ]; then
		h=1
		desc="MPA rev 2 enhanced, C $creq in the Request, $crep in the Reply"
	fi
	# A run that hit a known fault of a peer program ran again on
	# PORT + RETRY_PORTS (run_case): its traffic is there.
	if [ "$(jq --arg p ":$((port + RETRY_PORTS))" \
		'[.connections[] | select(.responder | endswith($p))] | length' "$json")" -gt 0 ]; then
		port=$((port + RETRY_PORTS))
		desc+=" (run again on port $port)"
	fi
	conns=$(jq --arg p ":$port" '[.connections[] | select(.responder | endswith($p))] | length' "$json")
	mpa=$(jq -r --arg p ":$port" --argjson r "$rev" --argjson h "$h" --argjson cq "$creq" --argjson cp "$crep" '
		[.connections[] | select(.responder | endswith($p))
		| (.mpa_request | select(. == null or .c != $cq) | .hex // "no request"),
		  (.mpa_reply | select(. == null or .c != $cp) | .hex // "no reply"),
		  (.mpa_request, .mpa_reply | select(. != null)
		   | select(.rev != $r or .h != $h or .m != 0 or .r != 0) | .hex)] | join(" ")' "$json")
	read -r want ops < <(siw_ops "$prog")
	got=
	for o in $ops; do
		[ "$(port_ops "$json" "$port" "$o")" -ge "$want" ] || got+=" $o: $(port_ops "$json" "$port" "$o")"
	done
	if [ -n "$ops" ] && [ "$conns" -ge 1 ] && [ -z "$mpa" ] && [ -z "$got" ]; then
		ktap_ok "port $port ($prog): $conns iWARP connection(s), $desc, at least $want ${ops// /, } FPDUs"
	else
		ktap_fail "port $port ($prog): iWARP connection, $desc, at least ${want:-?} ${ops// /, } FPDUs" \
			"$conns connections; MPA frames otherwise: '$mpa';$got"
	fi
}

# check_tshark_clean PCAP: tshark decodes iWARP frames in PCAP and flags
# none malformed or with an error.
check_tshark_clean() {
	local pcap=$1 n m bad='iwarp_mpa && (_ws.malformed || _ws.expert.severity >= error)'

	n=$(iwarp_tshark "$pcap" -Y iwarp_mpa 2>/dev/null | wc -l)
	m=$(iwarp_tshark "$pcap" -Y "$bad" 2>/dev/null | wc -l)
	if [ "$n" -gt 0 ] && [ "$m" -eq 0 ]; then
		ktap_ok "tshark: $n iWARP frames, none malformed or with an error"
	else
		ktap_fail "tshark: iWARP frames, none malformed or with an error" \
			"$n frames, $m flagged: $(iwarp_tshark "$pcap" -Y "$bad" 2>/dev/null | head -n 1)"
	fi
}

# compare_opcodes JSON PCAP: tshark's RDMAP opcodes per source address are
# those of iwarp_pcap.py's report JSON.
compare_opcodes() {
	local json=$1 pcap=$2 ours theirs

	ours=$(jq -r '.opcodes_by_source | to_entries[] | .key as $s | .value | to_entries[]
		| "\($s | ltrimstr("[") | rtrimstr("]")) \(.key) \(.value)"' "$json" | sort)
	theirs=$(iwarp_tshark "$pcap" -Y iwarp_rdma -T fields -e ip.src -e ipv6.src -e iwarp_rdma.opcode 2>/dev/null |
		awk -F'\t' 'BEGIN {
			n = split("rdma_write rdma_read_request rdma_read_response send send_invalidate send_se send_se_invalidate terminate", v, " ")
			for (i = 1; i <= n; i++)
				name[sprintf("0x%02x", i - 1)] = v[i]
		}
		{ src = $1 $2; n = split($3, op, ","); for (i = 1; i <= n; i++) c[src " " (op[i] in name ? name[op[i]] : op[i])]++ }
		END { for (k in c) print k, c[k] }' | sort)
	if [ -n "$ours" ] && [ "$ours" = "$theirs" ]; then
		ktap_ok "tshark counts the RDMAP opcodes per source as iwarp_pcap.py does ($(echo "$ours" | paste -sd ',' -))"
	else
		ktap_fail "tshark counts the RDMAP opcodes per source as iwarp_pcap.py does" \
			"iwarp_pcap.py: $(echo "$ours" | paste -sd ',' -); tshark: $(echo "$theirs" | paste -sd ',' -)"
	fi
}

# compare_crcs JSON PCAP NBAD: tshark finds good every CRC iwarp_pcap.py
# checked (its report JSON) but the NBAD it found bad, and those NBAD bad.
compare_crcs() {
	local json=$1 pcap=$2 nbad=$3 good bad checked

	checked=$(jq '.crc_checked' "$json")
	good=$(iwarp_tshark "$pcap" -Y iwarp_mpa -O iwarp_mpa -V 2>/dev/null | grep -c '(Good CRC32)')
	bad=$(iwarp_tshark "$pcap" -Y iwarp_mpa -O iwarp_mpa -V 2>/dev/null | grep -c '(Bad CRC32')
	if [ "$bad" = "$nbad" ] && [ "$good" = $((checked - nbad)) ]; then
		ktap_ok "tshark: $good good CRCs and $bad bad, as iwarp_pcap.py found"
	else
		ktap_fail "tshark: the good and bad CRCs iwarp_pcap.py found" \
			"tshark $good good, $bad bad; iwarp_pcap.py checked $checked, $nbad bad"
	fi
}
