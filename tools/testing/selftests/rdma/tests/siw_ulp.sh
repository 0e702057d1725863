#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The rping-protocol kernel ULP (ulp/rdma_rping_ulp.c) on rdma_cm over
# iWARP: guest a runs this tree's siw (siw0 on its NIC) under its iw_cm
# and rdma_cm, guest b Linux's own siw (built from Debian's
# linux-source-6.12, loaded by rdma_link_add_siw) under Debian's stack,
# with Debian's rping:
#   0  a's siw and rdma_cm are this tree's (they have a version in sysfs)
#   1  a's ULP client against "rping -s" on b: RP_COUNT iterations of 64
#      bytes over IPv4 and over IPv6 (fd00::/64), then RP_BIG of 65535
#      bytes over IPv4, the data the server wrote back checked; rping -s
#      printed each ping
#   2  "rping -c -V -v" on b against a's ULP server (which checks the data
#      it reads): exit status 0 and every ping verified, the same runs
#   3  refusals: a's ULP server (reject=1) refuses the ULP client on b
#      (built for the stock kernel, from STAGE_STOCK): REJECTED with the
#      server's private data, status -ECONNRESET (stock siw reports an
#      MPA reject so, and rdma_consumer_reject_data() then has no data:
#      the ULP reads it from the event); b's ULP server, listening on
#      b's IPv4 address, refuses a's client: REJECTED, -ECONNREFUSED,
#      the private data through rdma_consumer_reject_data()
#   4  a's client to a port of b nobody listens on: TCP reset, iw_cm's
#      CONNECT_REPLY -ECONNREFUSED, rdma_cm's REJECTED (-ECONNREFUSED)
#      without private data
#   5  loopback on a alone, both ends on siw0 (its "connections" counter
#      grows by 2 a run): a's ULP server against "rping -c -V" on a, then
#      "rping -s" on a against a's ULP client, over IPv4 and IPv6
#   6  a's devices go under live connections (count=0), each removal
#      bounded to RP_REMOVE_SECS and followed by siw's release line of
#      each device saying no QP, CQ, MR or PD was left, and resource
#      tracking listing nothing of it:
#      a) rdma link delete siw0 under a's ULP client, connected to
#         "rping -s" on b: DEVICE_REMOVAL, QP, MR, CQ, PD and ID freed;
#         no TCP connection of a's left on the port; b's rping -s hears
#         of it (rping_heard); siw0 is added back
#      b) a veth pair on a, veth0 in init_net (siw1, VETH_IP0) and veth1
#         in namespace VETH_NS (siw2, VETH_IP1): a's ULP server on siw1,
#         "rping -c" in the namespace (on siw2); ip link del veth0: the
#         ULP's connection and listener get DEVICE_REMOVAL, rping hears
#         of it, siw1 and siw2 go; the namespace is deleted
#      c) "rping -c" on b against a's ULP server listening on a's IPv4
#         address (so on siw0): rdma link delete siw0; the connection
#         and the listener get DEVICE_REMOVAL, no TCP connection of a's
#         left on the port, b's rping hears of it; siw0 back
# Then every RDMA module unloads on both guests, the kernel logs are
# clean.  The host reads the capture with harness/iwarp_pcap.py: the
# connections of phases 1 to 4 are clean iWARP (every FPDU and stream in
# order, nothing after a refusal); those of phases 1 and 2 have MPA
# revision 2 enhanced frames and a READ Request and a WRITE per ping;
# each refusal of phase 3 is an MPA Reply with R set holding the
# server's private data; phase 4's SYN got a reset, no MPA Request.
# While b's stock siw accepts (phases 1 and 6a) its NIC delays what it
# sends by WIRE_DELAY ms: see harness_selftest_siw.sh for the race in
# stock siw's accept that this keeps clear of.  RP_COUNT and RP_BIG can
# be set through RDMA_TEST_ENV.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 700

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/prog.sh
. "$(dirname "$0")/../harness/prog.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/rping_ulp.sh
. "$(dirname "$0")/../harness/rping_ulp.sh"

RP_SYNC=19400		# barriers: RP_SYNC + N
RP_PORT=7174		# phases 1 and 2: RP_PORT + run
RP_LOOP_PORT=7180	# phase 5: RP_LOOP_PORT + run
RP_COUNT=${RP_COUNT:-50}
RP_BIG=${RP_BIG:-10}	# iterations of 65535 bytes
RP_REMOVE_SECS=60	# a device's removal under live connections
RP_HUGE=100000000	# rping -C: more than a phase lasts
RP_DEV=siw0		# what rp_remove_dev deletes, checks and adds back
RP_DEV_RELEASED=siw_released_clean
RP_DEV_BACK=rp_siw_back
WIRE_DELAY=25		# ms, b's NIC while stock siw accepts
REJECT_PORTS="7998 7997"	# a refuses b, b refuses a
NOSERVICE_PORT=7999
VETH_NS=siwns
VETH_IP0=10.9.0.1
VETH_IP1=10.9.0.2
VETH_PORT=7995
# The ULP's private data of a refusal (RP_REJECT_DATA).
REJECT_DATA="rdma_rping_ulp: connection refused by the test server"

# The runs of phases 1 and 2: address family, size, iterations.
rc_runs() {
	echo "v4 64 $RP_COUNT"
	echo "v6 64 $RP_COUNT"
	echo "v4 65535 $RP_BIG"
}

# The runs of phase 5: which end the ULP is, address family.
loop_runs() {
	echo "server v4"
	echo "server v6"
	echo "client v4"
	echo "client v6"
}

# wire_delay on|off (guest b): netem's delay on the NIC, or none.
wire_delay() {
	if [ "$1" = on ]; then
		ktap_check "tc qdisc replace dev $NETDEV root netem delay ${WIRE_DELAY}ms" \
			tc qdisc replace dev "$NETDEV" root netem delay "${WIRE_DELAY}ms"
	else
		# fq_codel drops packets a stalled TCG guest held.
		ktap_check "tc qdisc replace dev $NETDEV root pfifo_fast" \
			tc qdisc replace dev "$NETDEV" root pfifo_fast
	fi
}

siw_setup() {
	wire_delay off
	# Before any listener: siw's wildcard listeners take the addresses
	# the netdev has when they start.
	ktap_check "ip -6 addr add $(rp_my v6)/64 dev $NETDEV" \
		ip -6 addr add "$(rp_my v6)/64" dev "$NETDEV" nodad || return
	ktap_check "rdma_link_add_siw siw0 (netdev $NETDEV)" rdma_link_add_siw siw0 || return
	# The ULP is insmod'ed on the stock guest: its dependencies first.
	ktap_check "modprobe rdma_cm ib_uverbs rdma_ucm" modprobe -a rdma_cm ib_uverbs rdma_ucm || return
	ktap_check "rping installed" require_cmd rping || return
	[ "$RDMA_ROLE" = a ] || return 0
	if [ -e /sys/module/siw/version ] && [ -e /sys/module/rdma_cm/version ]; then
		ktap_ok "siw and rdma_cm are this tree's ($(cat /sys/module/siw/version))"
	else
		ktap_fail "siw and rdma_cm are this tree's" "no version: an inbox module"
	fi
}

# lap WHAT: a diagnostic line, the seconds WHAT took since the last lap.
LAP=$SECONDS
lap() {
	ktap_diag "$1: $((SECONDS - LAP)) s"
	LAP=$SECONDS
}

# rp_siw_back: siw0 on $NETDEV again.
rp_siw_back() {
	ktap_check "rdma link add siw0 type siw netdev $NETDEV (again)" rdma_link_add_siw siw0
}

# siw0's established connections, both ends counted.
siw_conns() {
	cat /sys/class/infiniband/siw0/ports/1/hw_counters/connections
}

# loop_run N END FAM: loopback run N on a: the ULP is END (server or
# client), user rping the other one, both on FAM's address of siw0.
loop_run() {
	local n=$1 end=$2 f=$3 p=$((RP_LOOP_PORT + $1)) addr before after pid

	addr=$(rp_my "$f")
	before=$(siw_conns)
	if [ "$end" = server ]; then
		rp_server_begin mode=server port="$p" count="$RP_COUNT"
		prog_start "loop-rping-c-$f" rping -c -a "$addr" -p "$p" -C "$RP_COUNT" -V -v
		prog_check "loop-rping-c-$f" "$PROG_PID" 120 '^ping data: rdma-ping-' "$RP_COUNT"
		rp_server_end "loop-$f"
	else
		prog_start "loop-rping-s-$f" rping -s -a "$addr" -p "$p" -v
		pid=$PROG_PID
		prog_listens "loop-rping-s-$f" "$p"
		rp_client "loop-$f" mode=client dest="$addr" port="$p" count="$RP_COUNT"
		prog_check "loop-rping-s-$f" "$pid" 30 '^server ping data: rdma-ping-' "$RP_COUNT"
	fi
	after=$(siw_conns)
	if [ $((after - before)) -eq 2 ]; then
		ktap_ok "loopback $n ($end, $f): siw0 made both ends (connections $before -> $after)"
	else
		ktap_fail "loopback $n ($end, $f): siw0 made both ends" \
			"connections $before -> $after, want 2 more"
	fi
}

# veth_siw IBDEV NETDEV [NS]: a siw device on NETDEV (of namespace NS),
# its port ACTIVE.
veth_siw() {
	local -a run=()

	[ -n "${3:-}" ] && run=(ip netns exec "$3")
	"${run[@]}" rdma link add "$1" type siw netdev "$2" &&
		retry_until 20 _port_active "$1"
}

# rping_heard DESC PID NAME: one result, the rping of PID (output in
# $RESULTS/NAME.log) heard that its connection ended: it exited within 60 s
# (scaled), or it printed rdma_cm's DISCONNECTED or DEVICE_REMOVAL event
# and is stuck after it.  rping's completion thread ends only on a flushed
# or failed completion and rping waits for it in pthread_join(); when the
# connection goes while its only receive is being posted again and its send
# queue is empty, the provider (Linux's siw as ours: neither hears of a
# receive a process posts) has nothing to flush, and rping never exits.
rping_heard() {
	local log=$RESULTS/$3.log rc

	prog_wait "$2" 60
	rc=$?
	if [ "$rc" -ne 124 ]; then
		ktap_ok "$1 (exited, status $rc)"
	elif grep -qE 'DISCONNECT EVENT|detected device removal' "$log"; then
		ktap_ok "$1 (rdma_cm told it; stuck after, killed after $(scaled 60) s)"
	else
		ktap_fail "$1" "not told, killed after $(scaled 60) s"
	fi
	ktap_diag "$3: $(tail -n 3 "$log" | tr '\n' ' ')"
}

# tcp_open PORT: our TCP connections to or from PORT, but those in
# TIME-WAIT (ended in order).
tcp_open() {
	ss -Htn "( sport = :$1 or dport = :$1 )" | grep -v '^TIME-WAIT'
}

tcp_none() {
	[ -z "$(tcp_open "$1")" ]
}

# tcp_ended NAME PORT: one result, the removal ended our connection on
# PORT (reset, or closed in order), so the peer has heard of it.
tcp_ended() {
	if retry_until 10 tcp_none "$2"; then
		ktap_ok "$1: no TCP connection on port $2 left open"
	else
		ktap_fail "$1: no TCP connection on port $2 left open" \
			"$(tcp_open "$2" | paste -sd ' ' -)"
	fi
}

veth_setup() {
	ktap_check "ip netns add $VETH_NS" ip netns add "$VETH_NS" || return
	ktap_check "veth0 ($VETH_IP0) <-> veth1 in $VETH_NS ($VETH_IP1)" sh -c "
		ip link add veth0 type veth peer name veth1 &&
		ip link set veth1 netns $VETH_NS &&
		ip addr add $VETH_IP0/24 dev veth0 && ip link set veth0 up &&
		ip netns exec $VETH_NS ip addr add $VETH_IP1/24 dev veth1 &&
		ip netns exec $VETH_NS ip link set veth1 up &&
		ip netns exec $VETH_NS ip link set lo up" || return
	ktap_check "siw1 on veth0" veth_siw siw1 veth0 || return
	ktap_check "siw2 on veth1 (in $VETH_NS)" veth_siw siw2 veth1 "$VETH_NS"
}

# Phase 6b: the veth pair goes under a connection between its two siw
# devices, a's ULP server on siw1 and rping's client on siw2.
veth_removal() {
	local mark t pid d

	if ! veth_setup; then
		ip link del veth0 2>/dev/null
		ip netns del "$VETH_NS" 2>/dev/null
		return 1
	fi
	rp_server_begin mode=server src="$VETH_IP0" port="$VETH_PORT" count=0 expect=removal
	prog_start veth-rping-c ip netns exec "$VETH_NS" \
		rping -c -a "$VETH_IP0" -p "$VETH_PORT" -C "$RP_HUGE"
	pid=$PROG_PID
	rp_wait_live veth
	mark="veth removal $$.$RANDOM"
	kmsg_mark "$mark"
	t=$SECONDS
	if _bg_timeout "$RP_REMOVE_SECS" ip link del veth0; then
		ktap_ok "veth: ip link del veth0 returned in $((SECONDS - t)) s"
	else
		ktap_fail "veth: ip link del veth0 returned in $(scaled "$RP_REMOVE_SECS") s" \
			"$(kmsg_since "$mark" | tail -n 3 | tr '\n' ' ')"
	fi
	rp_server_end veth-removal
	rping_heard "veth: rping -c in $VETH_NS heard veth0 go" "$pid" veth-rping-c
	for d in siw1 siw2; do
		if retry_until 30 siw_released_clean "$mark" "$d"; then
			ktap_ok "veth: $d freed with 0 verbs objects left"
		else
			ktap_fail "veth: $d freed with 0 verbs objects left" \
				"$(kmsg_since "$mark" | grep "$d released" | tail -n 1)"
		fi
		rp_dev_gone veth "$d"
	done
	ktap_check "ip netns del $VETH_NS" ip netns del "$VETH_NS"
}

# ---- guest a: our siw and the ULP -------------------------------------------

guest_a() {
	local mark="siw_ulp a $$" f p sz cnt n=0 end

	kmsg_mark "$mark"
	siw_setup || return
	rp_barrier 0
	lap "set-up"
	# 1: our client, stock rping server.
	while read -r f sz cnt; do
		p=$((RP_PORT + n))
		rp_barrier $((10 + n))		# b's rping -s listens
		rp_client "rc-$f-$sz" mode=client dest="$(rp_peer "$f")" port="$p" \
			size="$sz" count="$cnt"
		rp_barrier $((20 + n))
		n=$((n + 1))
	done < <(rc_runs)
	# 2: stock rping client, our server.
	while read -r f sz cnt; do
		p=$((RP_PORT + n))
		rp_server_begin mode=server port="$p" size="$sz" count="$cnt"
		rp_barrier $((10 + n))		# b starts rping -c
		rp_barrier $((20 + n))		# b's rping -c is done
		rp_server_end "rc-$f-$sz"
		n=$((n + 1))
	done < <(rc_runs)
	lap "phases 1 and 2"
	# 3: refusals with private data, ours then b's.
	rp_server_begin mode=server port="${REJECT_PORTS% *}" reject=1
	rp_barrier 50			# b's ULP client tries
	rp_barrier 51
	rp_server_end reject
	rp_barrier 52			# b's ULP server refuses
	rp_client reject mode=client dest="$PEER_IP" port="${REJECT_PORTS#* }" expect=reject
	rp_barrier 53
	# 4: nobody listens.
	rp_client noservice mode=client dest="$PEER_IP" port="$NOSERVICE_PORT" expect=noservice
	lap "phases 3 and 4"
	# 5: loopback, both ends on siw0.
	n=0
	while read -r end f; do
		loop_run "$n" "$end" "$f"
		n=$((n + 1))
	done < <(loop_runs)
	lap "phase 5"
	# 6a: rdma link delete siw0 under our client.
	rp_barrier 60			# b's rping -s listens
	KTAP_MODULE_TIMEOUT=$(scaled 300) ktap_module_begin rdma_rping_ulp \
		mode=client dest="$PEER_IP" port=7993 count=0 expect=removal &&
		rp_remove_dev client-removal
	tcp_ended client-removal 7993
	rp_barrier 61
	# 6b: the netdevs of two siw devices go.
	veth_removal
	# 6c: rdma link delete siw0 under our server and its listener.
	rp_server_begin mode=server src="$MY_IP" port=7994 count=0 expect=removal
	rp_barrier 70			# b starts rping -c
	rp_remove_dev server-removal
	tcp_ended server-removal 7994
	rp_barrier 71
	lap "phase 6"
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

# ---- guest b: stock siw, rping and the ULP built for it ----------------------

guest_b() {
	local mark="siw_ulp b $$" f p sz cnt n=0 pid

	kmsg_mark "$mark"
	siw_setup || return
	rp_barrier 0
	# 1: rping -s, a's client.
	wire_delay on
	while read -r f sz cnt; do
		p=$((RP_PORT + n))
		prog_start "rping-s-$f-$sz" rping -s -a "$(rp_my "$f")" -p "$p" -S "$sz" -v
		pid=$PROG_PID
		prog_listens "rping-s-$f-$sz" "$p"
		rp_barrier $((10 + n))
		rp_barrier $((20 + n))
		prog_check "rping-s-$f-$sz" "$pid" 30 '^server ping data: rdma-ping-' "$cnt"
		n=$((n + 1))
	done < <(rc_runs)
	wire_delay off
	# 2: rping -c against a's server.
	while read -r f sz cnt; do
		p=$((RP_PORT + n))
		rp_barrier $((10 + n))
		prog_start "rping-c-$f-$sz" rping -c -a "$(rp_peer "$f")" -p "$p" \
			-S "$sz" -C "$cnt" -V -v
		prog_check "rping-c-$f-$sz" "$PROG_PID" 300 '^ping data: rdma-ping-' "$cnt"
		rp_barrier $((20 + n))
		n=$((n + 1))
	done < <(rc_runs)
	# 3: a's server refuses our client, ours refuses a's.  Stock siw
	# reports an MPA reject as -ECONNRESET (siw_proc_mpareply).
	rp_barrier 50
	rp_client reject mode=client dest="$PEER_IP" port="${REJECT_PORTS% *}" \
		expect=reject rej_status=-104
	rp_barrier 51
	# On its IPv4 address: stock siw's wildcard listener takes IPv4
	# connections on a dual-stack socket, and rdma_cm cannot find a
	# device for their v4-mapped address (it refuses the request, the
	# ULP never sees it).
	rp_server_begin mode=server src="$MY_IP" port="${REJECT_PORTS#* }" reject=1
	rp_barrier 52
	rp_barrier 53
	rp_server_end reject
	# 6a: rping -s for a's client, whose siw0 goes.
	wire_delay on
	prog_start rping-s-removal rping -s -a "$MY_IP" -p 7993 -v
	pid=$PROG_PID
	prog_listens rping-s-removal 7993
	rp_barrier 60
	rp_barrier 61
	rping_heard "rping -s heard a's siw0 go" "$pid" rping-s-removal
	wire_delay off
	# 6c: rping -c against a's server, whose siw0 goes.
	rp_barrier 70
	prog_start rping-c-removal rping -c -a "$PEER_IP" -p 7994 -C "$RP_HUGE"
	pid=$PROG_PID
	rp_barrier 71
	rping_heard "rping -c heard a's siw0 go" "$pid" rping-c-removal
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

# ---- host: the capture ---------------------------------------------------------

# port_conns JSON PORT: the iWARP connections to PORT, as JSON lines.
port_conns() {
	jq -c --arg p ":$2" '.connections[] | select(.responder | endswith($p))' "$1"
}

# check_rc_port JSON PORT COUNT: the run on PORT had an iWARP connection
# whose MPA frames are revision 2, enhanced, no markers, no reject, and
# whose FPDUs hold COUNT READ Requests and WRITEs at least.
check_rc_port() {
	local conns bad reads writes

	conns=$(port_conns "$1" "$2" | grep -c .)
	bad=$(port_conns "$1" "$2" | jq -r '.mpa_request, .mpa_reply |
		select(. == null or .rev != 2 or .h != 1 or .m != 0 or .r != 0) | .hex // "none"' | paste -sd ' ' -)
	reads=$(port_conns "$1" "$2" | jq -s '[.[] | .to_responder.opcodes.rdma_read_request // 0,
		.to_initiator.opcodes.rdma_read_request // 0] | add // 0')
	writes=$(port_conns "$1" "$2" | jq -s '[.[] | .to_responder.opcodes.rdma_write // 0,
		.to_initiator.opcodes.rdma_write // 0] | add // 0')
	if [ "$conns" -ge 1 ] && [ -z "$bad" ] && [ "$reads" -ge "$3" ] && [ "$writes" -ge "$3" ]; then
		ktap_ok "port $2: $conns iWARP connection(s), MPA revision 2 enhanced, $reads READ Requests, $writes WRITE FPDUs"
	else
		ktap_fail "port $2: iWARP connection, MPA revision 2 enhanced, $3 READ Requests and WRITEs" \
			"$conns connections, MPA frames otherwise: '$bad', $reads READ Requests, $writes WRITE FPDUs"
	fi
}

# check_reject_port JSON PORT: the connection to PORT was refused by an
# MPA Reply with R set that holds the ULP's private data.
check_reject_port() {
	local want got

	want=$(printf '%s' "$REJECT_DATA" | od -An -v -tx1 | tr -d ' \n')
	got=$(port_conns "$1" "$2" | jq -r 'select(.rejected) | .mpa_reply.hex')
	if [ -n "$got" ] && [[ "$got" == *"$want"* ]]; then
		ktap_ok "port $2: an MPA Reply with R set and the server's private data"
	else
		ktap_fail "port $2: an MPA Reply with R set and the server's private data" \
			"rejected replies: '${got:-none}'"
	fi
}

host_phase() {
	local res=$1 pcap=$1/wire.pcap json=$1/iwarp.json here n=0 f sz cnt rc out p
	local -a ports=()

	here=$(dirname "$0")/../harness
	require_cmd tshark jq || { ktap_fail "tshark and jq available" "install them"; return; }
	if [ ! -s "$pcap" ]; then
		ktap_fail "wire capture present" "no $pcap"
		return
	fi
	ktap_ok "wire capture present"
	while read -r f sz cnt; do
		ports+=(--port $((RP_PORT + n)) --port $((RP_PORT + n + 3)))
		n=$((n + 1))
	done < <(rc_runs)
	for p in $REJECT_PORTS $NOSERVICE_PORT; do
		ports+=(--port "$p")
	done
	rc=0
	python3 "$here/iwarp_pcap.py" "${ports[@]}" "$pcap" >"$json" 2>"$res/iwarp_pcap.err" || rc=$?
	out=$(jq -r '"\(.iwarp_connections) iWARP connections, \(.fpdus) FPDUs, crc_bad \(.crc_bad), truncated \(.truncated), unknown_opcode \(.unknown_opcode), header_errors \(.header_errors), stream_errors \(.stream_errors)"' \
		"$json" 2>/dev/null)
	if [ "$rc" -eq 0 ] && [ "$(jq '.ok and .fpdus > 0' "$json")" = true ]; then
		ktap_ok "iwarp_pcap.py, phases 1 to 4: clean ($out)"
	else
		ktap_fail "iwarp_pcap.py, phases 1 to 4: clean" \
			"exit $rc: ${out:-$(head -c 300 "$res/iwarp_pcap.err")}: $(jq -c '.errors[:3]' "$json" 2>/dev/null)"
	fi
	n=0
	while read -r f sz cnt; do
		check_rc_port "$json" $((RP_PORT + n)) "$cnt"
		check_rc_port "$json" $((RP_PORT + n + 3)) "$cnt"
		n=$((n + 1))
	done < <(rc_runs)
	for p in $REJECT_PORTS; do
		check_reject_port "$json" "$p"
	done
	n=$(tshark -n -r "$pcap" -Y "tcp.srcport == $NOSERVICE_PORT && tcp.flags.reset == 1" 2>/dev/null | wc -l)
	if [ "$n" -ge 1 ] && [ "$(port_conns "$json" "$NOSERVICE_PORT" | grep -c .)" = 0 ]; then
		ktap_ok "port $NOSERVICE_PORT: b reset the connection ($n RST), no MPA"
	else
		ktap_fail "port $NOSERVICE_PORT: b reset the connection, no MPA" "$n RST segments"
	fi
}

rdma_test_main "$@"
