#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma_cm between two guests, guest a's kernel (the test ULP
# ulp/rdma_rping_ulp.c on the rdma_cm kernel API) against Debian's
# unmodified rping and udaddy (rdmacm-utils) on the stock guest b:
#   0  guest a's rdma_cm is this tree's (it has a version in sysfs)
#   1  a's ULP client against "rping -s" on b: 100 iterations of 64
#      bytes, the data the server wrote back checked, over IPv4, IPv6
#      (fd00::/64) and IPv6 link-local (fe80::...%eth0); then 10 of
#      65535 bytes over IPv4
#   2  "rping -c -C 100 -V -v" on b against a's ULP server (which checks
#      the data it reads): exit status 0 and 100 verified pings, the same
#      four runs
#   3  UD through SIDR: a's ULP client against "udaddy" (server) on b,
#      then "udaddy -s" (client) on b against a's ULP server, 10
#      datagrams of 100 bytes each way
#   4  refusals: a's client to a port nobody listens on (REJECTED, status
#      8) and its UD client to a service nobody offers (UNREACHABLE, SIDR
#      status 1); a's server refusing b's ULP client, then b's server
#      refusing a's client (REJECTED, status 28, with the server's private
#      data through rdma_consumer_reject_data)
#   5  200 connect/disconnect cycles (one iteration each) of a's client
#      against "rping -s -P" (persistent) on b
#   6  b deletes its rxe0: a's client gets UNREACHABLE once its REQ went
#      unanswered 16 times (about 74 s); b adds it back
#   7  a deletes its rxe0 under live connections (count=0: rping until the
#      connection ends), each time bounded to 60 s and followed by a check
#      that the device went with no verbs object left, then adds it back:
#      a) a's ULP client against "rping -s" on b: DEVICE_REMOVAL, its QP,
#         MR, CQ, PD and ID freed
#      b) "rping -c -C 100000000" on b against a's ULP server, listening
#         on a's IPv4 address (so on rxe0): the connection's ID and the
#         listener's get DEVICE_REMOVAL, the listener is destroyed; b's
#         rping ends (with an error)
#   8  lost DREQ: a tc filter at a's egress drops the first CM DREQ; a's
#      ULP client against "rping -s" still gets DISCONNECTED (status 0)
#      from the resent DREQ, cm_tx_retries/dreq grew, tc dropped exactly
#      one packet
# Then every RDMA module unloads on both guests.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 1500

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/prog.sh
. "$(dirname "$0")/../harness/prog.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/rping_ulp.sh
. "$(dirname "$0")/../harness/rping_ulp.sh"

RP_SYNC=19300		# barriers: RP_SYNC + N
RP_PORT=7174		# rping's default; each run below gets its own
RP_COUNT=${ULP_COUNT:-100}
RP_CYCLES=${RP_CYCLES:-200}
UD_COUNT=10
UD_SIZE=100
RP_CM=/sys/class/infiniband/rxe0/ports/1	# ib_cm's counters
RP_REMOVE_SECS=60	# rdma link delete under live connections
RP_HUGE=100000000	# rping -C: more than a phase lasts
RP_DEV=rxe0		# what rp_remove_dev deletes, checks and adds back
RP_DEV_RELEASED=rxe_released_clean
RP_DEV_BACK=rp_rxe_back

rp_setup() {
	setup || return
	ktap_check "tc qdisc replace dev $NETDEV root pfifo_fast" \
		tc qdisc replace dev "$NETDEV" root pfifo_fast
	ktap_check "ip -6 addr add $(rp_my v6)/64 dev $NETDEV" \
		ip -6 addr add "$(rp_my v6)/64" dev "$NETDEV" nodad || return
	if retry_until 20 grep -q '^fd00:' /sys/class/infiniband/rxe0/ports/1/gids/*; then
		ktap_ok "rxe0 has a GID for $(rp_my v6)"
	else
		ktap_fail "rxe0 has a GID for $(rp_my v6)" "$(cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000' | tr '\n' ' ')"
	fi
	# The ULP is insmod'ed on a stock guest: its dependencies first.
	ktap_check "modprobe rdma_cm" modprobe rdma_cm || return
	if [ "$RDMA_ROLE" = b ]; then
		ktap_check "modprobe ib_uverbs rdma_ucm" modprobe -a ib_uverbs rdma_ucm || return
		require_cmd rping udaddy || ktap_fail "rping and udaddy installed" "not found"
	fi
}

# The RC runs of phases 1 and 2: address family, size, iterations.
rc_runs() {
	echo "v4 64 $RP_COUNT"
	echo "v6 64 $RP_COUNT"
	echo "ll 64 $RP_COUNT"
	echo "v4 65535 10"
}

# rp_rxe_back: rxe0 on $NETDEV again, with its IPv4 GID.
rp_rxe_back() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV (again)" \
		rdma_link_add_rxe rxe0 || return
	if retry_until 20 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*; then
		ktap_ok "rxe0 has its IPv4 GID again"
	else
		ktap_fail "rxe0 has its IPv4 GID again" "$(cat /sys/class/infiniband/rxe0/ports/1/gids/* | grep -v '^0000:0000:0000:0000:0000:0000:0000:0000' | tr '\n' ' ')"
	fi
}

# rp_drop_dreq: a's first CM DREQ is dropped at $NETDEV's egress: UDP
# port 4791, the MAD (after IPv4 20 + UDP 8 + BTH 12 + DETH 8 bytes) of
# class 7 (CM, MAD byte 1) and attribute ID 0x0015 (DREQ, MAD bytes 16-17).
# gact drops every odd match and passes every even one: the first DREQ is
# lost, its resend goes out.
rp_drop_dreq() {
	tc qdisc add dev "$NETDEV" clsact &&
		tc filter add dev "$NETDEV" egress protocol ip prio 1 u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			match u8 0x07 0xff at 49 match u16 0x0015 0xffff at 64 \
			action gact drop random determ ok 2
}

# The packets rp_drop_dreq's filter dropped and those it saw: "DROPPED SEEN".
rp_dreq_drops() {
	tc -s filter show dev "$NETDEV" egress |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt (dropped \([0-9]*\).*/\2 \1/p' |
		head -n 1
}

# ---- guest a: the ULP -----------------------------------------------------

guest_a() {
	local f p sz cnt n=0 retries drops ms

	rp_setup || return
	# 0: the stack under test.
	if [ -e /sys/module/rdma_cm/version ]; then
		ktap_ok "rdma_cm is this tree's ($(cat /sys/module/rdma_cm/version))"
	else
		ktap_fail "rdma_cm is this tree's" "no version: the inbox module"
	fi
	rp_barrier 0
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
	# 3: UD (udaddy's port is always 7174, in the UDP port space).
	rp_barrier 40			# b's udaddy listens
	rp_client ud mode=udclient dest="$PEER_IP" port=7174 count="$UD_COUNT" size="$UD_SIZE"
	rp_barrier 41
	rp_server_begin mode=udserver port=7174 count="$UD_COUNT" size="$UD_SIZE"
	rp_barrier 42			# b starts udaddy -s
	rp_barrier 43
	rp_server_end ud
	# 4: refusals.
	rp_client noservice mode=client dest="$PEER_IP" port=7999 expect=noservice
	rp_client ud-noservice mode=udclient dest="$PEER_IP" port=7999 expect=noservice size="$UD_SIZE"
	rp_server_begin mode=server port=7998 reject=1
	rp_barrier 50			# b's ULP client tries
	rp_barrier 51
	rp_server_end reject
	rp_barrier 52			# b's ULP server refuses
	rp_client reject mode=client dest="$PEER_IP" port=7997 expect=reject
	rp_barrier 53
	# 5: connect/disconnect cycles.
	rp_barrier 60			# b's rping -s -P listens
	RP_TIMEOUT=$(scaled 900) rp_client cycles mode=client dest="$PEER_IP" \
		port=7996 count=1 conns="$RP_CYCLES"
	rp_barrier 61 1000
	# 6: b's RDMA device is gone: the REQ is never answered.
	rp_barrier 70
	RP_TIMEOUT=$(scaled 300) rp_client unreachable mode=client \
		dest="$PEER_IP" port=7995 expect=unreachable wait="$(scaled 240)"
	rp_barrier 71
	# 7a: our rxe0 goes under our client.
	rp_barrier 80			# b's rxe0 is back, its rping -s listens
	KTAP_MODULE_TIMEOUT=$(scaled 300) ktap_module_begin rdma_rping_ulp \
		mode=client dest="$PEER_IP" port=7993 count=0 expect=removal &&
		rp_remove_dev client-removal
	rp_barrier 81
	# 7b: and under our server and its listener.
	rp_server_begin mode=server src="$MY_IP" port=7994 count=0 expect=removal
	rp_barrier 82			# b starts rping -c
	rp_remove_dev server-removal
	rp_barrier 83
	# 8: the first DREQ is lost, its resend is answered.
	rp_barrier 90			# b's rping -s listens
	retries=$(cat "$RP_CM/cm_tx_retries/dreq")
	ktap_check "tc: drop the first CM DREQ leaving $NETDEV" rp_drop_dreq
	rp_client lost-dreq mode=client dest="$PEER_IP" port=7992 count=10
	drops=$(rp_dreq_drops)
	if [ "${drops% *}" = 1 ]; then
		ktap_ok "tc dropped one DREQ (dropped, seen: $drops)"
	else
		ktap_fail "tc dropped one DREQ" "dropped, seen: '$drops'"
	fi
	retries=$(($(cat "$RP_CM/cm_tx_retries/dreq") - retries))
	if [ "$retries" -ge 1 ]; then
		ktap_ok "cm_tx_retries/dreq grew by $retries"
	else
		ktap_fail "cm_tx_retries/dreq grew" "by $retries"
	fi
	# The DREQ is resent after the CM response timeout (about 4.3 s).
	ms=$(sed -n 's/.*DISCONNECTED \([0-9]*\) ms after rdma_disconnect.*/\1/p' \
		"$RESULTS/ulp-client-lost-dreq.dmesg")
	if [ "${ms:-0}" -ge 3000 ]; then
		ktap_ok "DISCONNECTED came with the resent DREQ's DREP, $ms ms after rdma_disconnect"
	else
		ktap_fail "DISCONNECTED came with the resent DREQ's DREP" \
			"${ms:-no} ms after rdma_disconnect"
	fi
	ktap_check "tc qdisc del dev $NETDEV clsact" tc qdisc del dev "$NETDEV" clsact
	rp_barrier 91
	check_modules_unload
}

# ---- guest b: Debian's rping and udaddy ------------------------------------

guest_b() {
	local f p sz cnt n=0 pid rc

	rp_setup || return
	rp_barrier 0
	# 1: rping -s, a's client.
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
	# 3: udaddy server, then udaddy client.
	prog_start udaddy-server udaddy -b "$MY_IP" -C "$UD_COUNT" -S "$UD_SIZE"
	pid=$PROG_PID
	prog_listens udaddy-server 7174
	rp_barrier 40
	prog_check udaddy-server "$pid" 120 '^data transfers complete' 1
	rp_barrier 41
	rp_barrier 42
	prog_start udaddy-client udaddy -s "$PEER_IP" -C "$UD_COUNT" -S "$UD_SIZE"
	prog_check udaddy-client "$PROG_PID" 120 '^data transfers complete' 1
	rp_barrier 43
	# 4: a's server refuses our ULP client, ours refuses a's.
	rp_barrier 50
	rp_client reject mode=client dest="$PEER_IP" port=7998 expect=reject
	rp_barrier 51
	rp_server_begin mode=server port=7997 reject=1
	rp_barrier 52
	rp_barrier 53
	rp_server_end reject
	# 5: a persistent rping server for a's cycles.
	prog_start rping-s-persistent rping -s -a "$MY_IP" -p 7996 -P
	pid=$PROG_PID
	prog_listens rping-s-persistent 7996
	rp_barrier 60
	rp_barrier 61 1000
	if kill -0 "$pid" 2>/dev/null; then
		ktap_ok "rping -s -P still serving after the cycles"
		kill "$pid"
		prog_wait "$pid" 30
	else
		wait "$pid"
		ktap_fail "rping -s -P still serving after the cycles" \
			"exited with $?: $(tail -n 3 "$RESULTS/rping-s-persistent.log" | tr '\n' ' ')"
	fi
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
	rp_barrier 70
	rp_barrier 71 400
	rp_rxe_back
	# 7a: rping -s for a's client, whose device goes.
	prog_start rping-s-removal rping -s -a "$MY_IP" -p 7993
	pid=$PROG_PID
	prog_listens rping-s-removal 7993
	rp_barrier 80
	rp_barrier 81
	prog_wait "$pid" 30
	ktap_diag "rping -s after a's rxe0 went: status $? (124: killed): $(tail -n 3 "$RESULTS/rping-s-removal.log" | tr '\n' ' ')"
	# 7b: rping -c against a's server, whose device goes.
	rp_barrier 82
	prog_start rping-c-removal rping -c -a "$PEER_IP" -p 7994 -C "$RP_HUGE"
	pid=$PROG_PID
	rp_barrier 83
	prog_wait "$pid" 120
	rc=$?
	if [ "$rc" -ne 124 ]; then
		ktap_ok "rping -c ended after a's rxe0 went (status $rc)"
	else
		ktap_fail "rping -c ended after a's rxe0 went" "killed after $(scaled 120) s"
	fi
	ktap_diag "rping -c: $(tail -n 3 "$RESULTS/rping-c-removal.log" | tr '\n' ' ')"
	# 8: rping -s for a's client, whose first DREQ is lost.
	prog_start rping-s-lost-dreq rping -s -a "$MY_IP" -p 7992 -v
	pid=$PROG_PID
	prog_listens rping-s-lost-dreq 7992
	rp_barrier 90
	rp_barrier 91
	prog_check rping-s-lost-dreq "$pid" 60 '^server ping data: rdma-ping-' 10
	check_modules_unload
}

rdma_test_main "$@"
