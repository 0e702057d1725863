#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Garbage on the wire.  Guest a runs our stack with rxe0 and the test ULP
# (rdma_ud_ulp) echoing UD datagrams on one QP; guest b (stock stack)
# sends it UD datagrams with the ULP and, at the same time, a python
# sender (rxe_garbage.py) sends a's UDP port 4791 malformed datagrams over
# IPv4 and IPv6: every truncation 0..60 bytes, bad opcodes, bad transport
# versions, pad and lengths that disagree, bad and missing ICRCs, and with
# a valid ICRC a bad P_Key, unknown QPNs, RC/UC opcodes to the UD QP,
# wrong Q_Keys, payloads over the path MTU, an IPv4 header with options,
# oversize (fragmented) datagrams, random bytes and randomly changed
# headers.  The sender works out for each datagram the drop counter our
# rxe must count it under, independently of the kernel code.
#
# Guest a asserts: no WARN/BUG in the kernel log; the drop counters
# (ports/1/hw_counters/drop_*) went up by exactly what b sent, cause by
# cause; rcvd_pkts, rdma_recvs, sent_pkts and rdma_sends went up by
# exactly the datagrams the ULP echoed (garbage is never counted as
# received); "rdma statistic show" agrees with sysfs; ibv_devinfo's
# bad_pkey_cntr and qkey_viol_cntr are drop_pkey and drop_qkey (16-bit
# PortInfo counters, stuck at 0xffff); and the UD traffic b sends
# afterwards (IPv4, then IPv6 GIDs) is all echoed.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 400

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
GPORT=18700
QKEY=0x11111111		# rdma_ud_ulp's default Q_Key
LIVE_COUNT=1500		# datagrams b sends while the garbage flows
AFTER_COUNT=24		# datagrams of each round after it
HWC=/sys/class/infiniband/rxe0/ports/1/hw_counters

# "name value" per counter of rxe0's port 1
counters() {
	local f

	for f in "$HWC"/*; do
		echo "$(basename "$f") $(cat "$f")"
	done
}

# counter NAME FILE
counter() {
	awk -v n="$1" '$1 == n { print $2 }' "$2"
}

# drop_sum [FILE]: the drop counters added up, now or in FILE
drop_sum() {
	if [ $# -gt 0 ]; then cat "$1"; else counters; fi |
		awk '$1 ~ /^drop_/ { s += $2 } END { print s + 0 }'
}

# check_violations FILE: ibv_devinfo's P_Key and Q_Key violation counters
# are the drop_pkey and drop_qkey of FILE (all since rxe0 was added), at
# most 0xffff; both must have counted something.
check_violations() {
	local info pkey qkey want_p want_q

	info=$(ibv_devinfo -v -d rxe0 2>&1)
	pkey=$(awk '$1 == "bad_pkey_cntr:" { print $2 }' <<<"$info")
	qkey=$(awk '$1 == "qkey_viol_cntr:" { print $2 }' <<<"$info")
	want_p=$(counter drop_pkey "$1")
	want_q=$(counter drop_qkey "$1")
	want_p=$((want_p > 0xffff ? 0xffff : want_p))
	want_q=$((want_q > 0xffff ? 0xffff : want_q))
	if [[ "$pkey" =~ ^0x[0-9a-f]+$ && "$qkey" =~ ^0x[0-9a-f]+$ ]] &&
	   [ "$want_p" -gt 0 ] && [ "$want_q" -gt 0 ] &&
	   [ $((pkey)) -eq "$want_p" ] && [ $((qkey)) -eq "$want_q" ]; then
		ktap_ok "ibv_devinfo: bad_pkey_cntr $pkey, qkey_viol_cntr $qkey as drop_pkey, drop_qkey"
	else
		ktap_fail "ibv_devinfo: bad_pkey_cntr, qkey_viol_cntr as drop_pkey, drop_qkey" \
			"'$pkey' '$qkey', want $want_p $want_q: $(tail -n 2 <<<"$info")"
	fi
}

# drops_reached N: the drops since before.txt are at least N
drops_reached() {
	[ $(($(drop_sum) - $(drop_sum "$RESULTS/before.txt"))) -ge "$1" ]
}

guest_a() {
	local ko qpn want echoed out

	setup || return
	kmsg_mark "rxe_garbage start"
	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	ktap_check "insmod rdma_ud_ulp mode=echo" insmod "$ko" mode=echo || return
	qpn=$(cat /sys/module/rdma_ud_ulp/parameters/qpn)
	if ! [ -d "$HWC" ] || [ -z "$(counter drop_icrc <(counters))" ]; then
		ktap_fail "port counters in $HWC" "missing or incomplete"
		return
	fi
	counters >"$RESULTS/before.txt"
	ktap_ok "echo QP $qpn ready, counters read"

	echo "$qpn" | timeout "$(scaled 240)" busybox nc -l -p "$GPORT" >/dev/null
	# b sends what it sent, as JSON, once it is done.
	timeout "$(scaled 330)" busybox nc -l -p $((GPORT + 1)) </dev/null >"$RESULTS/expected.json"
	if ! want=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["sent"])' \
		"$RESULTS/expected.json" 2>/dev/null); then
		ktap_fail "tally of the garbage sent by b" "$(head -c 200 "$RESULTS/expected.json")"
		return
	fi
	ktap_diag "b sent $want garbage datagrams"
	# Wait until every datagram was seen (the counters are cached briefly).
	retry_until 20 drops_reached "$want"
	sleep 2
	counters >"$RESULTS/after.txt"
	rdma -j statistic show link rxe0/1 >"$RESULTS/stat.json" 2>&1
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs && check_violations "$RESULTS/after.txt"

	ktap_check "rmmod rdma_ud_ulp" rmmod rdma_ud_ulp
	echoed=$(kmsg_since "rxe_garbage start" | sed -n 's/.*echoed \([0-9]*\) datagrams.*/\1/p' | tail -n 1)
	ktap_diag "a echoed ${echoed:-?} datagrams"

	if out=$(python3 - "$RESULTS" "${echoed:-0}" <<'EOF'
import json, sys
res, echoed = sys.argv[1], int(sys.argv[2])


def load(name):
    with open("%s/%s" % (res, name)) as f:
        return {l.split()[0]: int(l.split()[1]) for l in f if l.strip()}


before, after = load("before.txt"), load("after.txt")
want = json.load(open(res + "/expected.json"))
delta = {k: after[k] - before[k] for k in after}
bad = []
for k in sorted(delta):
    if k.startswith("drop_"):
        exp = want["causes"].get(k, 0)
        print("%-16s +%d (sent %d)" % (k, delta[k], exp))
        if delta[k] != exp:
            bad.append("%s +%d, want +%d" % (k, delta[k], exp))
for k in want["causes"]:
    if k not in delta:
        bad.append("no counter %s" % k)
total = sum(v for k, v in delta.items() if k.startswith("drop_"))
print("drops total +%d, garbage sent %d" % (total, want["sent"]))
if total != want["sent"]:
    bad.append("drops +%d, want +%d" % (total, want["sent"]))
for k in ("rcvd_pkts", "rdma_recvs", "sent_pkts", "rdma_sends"):
    print("%-16s +%d (echoed %d)" % (k, delta.get(k, -1), echoed))
    if delta.get(k) != echoed:
        bad.append("%s +%s, want +%d (datagrams echoed)" % (k, delta.get(k), echoed))
stat = json.load(open(res + "/stat.json"))[0]
for k in after:
    if stat.get(k) != after[k]:
        bad.append("rdma statistic %s=%s, sysfs %d" % (k, stat.get(k), after[k]))
for b in bad:
    print("BAD " + b)
sys.exit(1 if bad else 0)
EOF
	); then
		ktap_ok "every garbage datagram counted as a drop, under its cause"
	else
		ktap_fail "every garbage datagram counted as a drop, under its cause" "see below"
	fi
	while read -r line; do ktap_diag "$line"; done <<<"$out"
	if [ "${echoed:-0}" -eq $((LIVE_COUNT + 2 * AFTER_COUNT)) ]; then
		ktap_ok "UD traffic flowed during and after the garbage: $echoed echoed"
	else
		ktap_fail "UD traffic flowed during and after the garbage" \
			"${echoed:-0} echoed, want $((LIVE_COUNT + 2 * AFTER_COUNT))"
	fi
	ktap_log_clean "kernel log clean" < <(kmsg_since "rxe_garbage start")
	check_modules_unload
}

# send_file FILE PORT: FILE to a's PORT, connection closed at the end
send_file() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	timeout "$(scaled 10)" bash -c 'cat "$1" >"/dev/tcp/$2/$3"' _ "$1" "$PEER_IP" "$2"
}

guest_b() {
	local qpn="" end=$((SECONDS + $(scaled 240))) ko pid out ll

	setup || return
	while [ -z "$qpn" ] && [ "$SECONDS" -lt "$end" ]; do
		qpn=$(timeout "$(scaled 5)" busybox nc "$PEER_IP" "$GPORT" 2>/dev/null)
		[ -n "$qpn" ] || sleep 0.5
	done
	if [ -z "$qpn" ]; then
		ktap_fail "QP number from a" "nothing on $PEER_IP:$GPORT"
		return
	fi
	ktap_ok "QP number from a: $qpn"
	retry_until 10 test -z "$(ip -6 addr show dev "$NETDEV" tentative)"
	ll=$(mac_to_ll "$MY_MAC")

	# Garbage and live traffic at the same time.
	python3 "$SELFDIR/rxe_garbage.py" --v4 "$PEER_IP" --src4 "$MY_IP" \
		--v6 "$(mac_to_ll "$PEER_MAC")%$NETDEV" --src6 "$ll" \
		--qpn "$qpn" --qkey "$QKEY" --mtu 1024 \
		"$RESULTS/sent.json" >"$RESULTS/garbage.log" 2>&1 &
	pid=$!
	ko=$(find "$(ulp_stage)/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	kmsg_mark "live round"
	ktap_check "insmod rdma_ud_ulp mode=send count=$LIVE_COUNT (during the garbage)" \
		insmod "$ko" mode=send dest="$PEER_IP" dmac="$PEER_MAC" dqpn="$qpn" \
		count="$LIVE_COUNT" size=1024
	if wait "$pid"; then
		ktap_ok "garbage sent: $(tr '\n' ' ' <"$RESULTS/garbage.log")"
	else
		ktap_fail "garbage sent" "$(tail -n 3 "$RESULTS/garbage.log")"
	fi
	retry_until 300 sh -c "dmesg | grep -q 'rdma_ud_ulp: pass:'"
	out=$(kmsg_since "live round" | grep 'rdma_ud_ulp: pass:' | tail -n 1)
	if echo "$out" | grep -q "pass:$LIVE_COUNT fail:0"; then
		ktap_ok "live round: $LIVE_COUNT datagrams echoed"
	else
		ktap_fail "live round: $LIVE_COUNT datagrams echoed" "${out:-no result}"
	fi
	ktap_check "rmmod rdma_ud_ulp" rmmod rdma_ud_ulp

	# Afterwards, over both address families.
	STAGE=$(ulp_stage) run_ktap_module rdma_ud_ulp mode=send gid=ipv4 \
		dest="$PEER_IP" dmac="$PEER_MAC" dqpn="$qpn" count="$AFTER_COUNT" size=1024
	STAGE=$(ulp_stage) run_ktap_module rdma_ud_ulp mode=send gid=ipv6 \
		dest="$(mac_to_ll "$PEER_MAC")" dmac="$PEER_MAC" dqpn="$qpn" \
		count="$AFTER_COUNT" size=1024

	[ -s "$RESULTS/sent.json" ] || echo '{}' >"$RESULTS/sent.json"
	retry_until 30 send_file "$RESULTS/sent.json" $((GPORT + 1))
	check_modules_unload
}

rdma_test_main "$@"
