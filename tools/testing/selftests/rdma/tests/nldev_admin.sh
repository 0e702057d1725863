#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# An administrator's session with iproute2's unmodified "rdma" on the
# project's stack, on devices of the "mock" link type (rdma_nl_mock):
# link add, dev show (text and JSON, checked against sysfs), link show,
# resource show before and after a ULP made a PD, CQ, QP and MR, the port
# counters (they follow the device's verb calls; the optional one is
# switched on and off), monitor events (nldev_monitor.py, since iproute2
# 6.1 has no "rdma monitor") for add, rename, netdev rename, link delete
# and module unload, rename with sysfs following, the refused requests
# (netns move, adaptive moderation, a name in use), link delete under a ULP
# holding objects, a clean unload and a clean kernel log.
#
# vms: 1
# stack-a: project
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
MON_PID=

# jcheck DESC JSON PYCODE: PYCODE runs with d = the parsed JSON (and the
# helpers below) and must not raise; what it prints becomes diagnostics.
jcheck() {
	local desc=$1 json=$2 code=$3 out

	if out=$(python3 - "$json" 2>&1 <<EOF
import json, sys
d = json.loads(sys.argv[1])
def one(rows, **kw):
    hit = [r for r in rows if all(r.get(k) == v for k, v in kw.items())]
    assert len(hit) == 1, "%d rows match %s in %s" % (len(hit), kw, rows)
    return hit[0]
def comm(r):
    return r.get("comm", "").strip("[]")
$code
EOF
	); then
		ktap_ok "$desc"
		[ -n "$out" ] && ktap_diag "$out"
	else
		ktap_fail "$desc" "$(tail -n 3 <<<"$out" | tr '\n' ' ')"
		ktap_diag "$json"
	fi
	return 0
}

# counter JSON NAME: the value of counter NAME in "rdma -j statistic show".
counter() {
	python3 -c 'import json, sys
rows = json.loads(sys.argv[1])
print(rows[0].get(sys.argv[2], "absent"))' "$1" "$2"
}

monitor_start() {
	rm -f "$RESULTS/monitor.ready"
	python3 "$SELFDIR/nldev_monitor.py" --timeout "$(scaled 280)" \
		--ready "$RESULTS/monitor.ready" >"$RESULTS/monitor.txt" 2>&1 &
	MON_PID=$!
	retry_until 20 test -e "$RESULTS/monitor.ready"
}

# monitor_saw DESC REGEX [N]: the monitor printed N (default 1) lines
# matching REGEX.
monitor_saw() {
	if retry_until 10 test "$(grep -cE "$2" "$RESULTS/monitor.txt")" -ge "${3:-1}"; then
		ktap_ok "monitor: $1"
	else
		ktap_fail "monitor: $1" "no '$2' in: $(tr '\n' ';' <"$RESULTS/monitor.txt")"
	fi
}

# result DESC DETAIL CMD...: ok if CMD succeeds, else not ok with DETAIL.
result() {
	local desc=$1 detail=$2

	shift 2
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$detail"
	fi
}

guest() {
	local mark out json before after qpn lkey ifindex base

	mark="nldev_admin $$"
	kmsg_mark "$mark"
	ktap_check "modprobe ib_core" modprobe ib_core
	if monitor_start; then
		ktap_ok "monitor listening on RDMA_NL_GROUP_NOTIFY"
	else
		ktap_fail "monitor listening on RDMA_NL_GROUP_NOTIFY" "$(cat "$RESULTS/monitor.txt")"
	fi

	# ---- link add, dev show, link show ----------------------------------
	ktap_check "rdma link add mk0 type mock netdev $NETDEV" \
		rdma link add mk0 type mock netdev "$NETDEV"
	monitor_saw "REGISTER on link add" '^REGISTER dev mk0 index [0-9]+$'

	out=$(rdma dev show 2>&1)
	ktap_diag "$out"
	if grep -qE "^[0-9]+: mk0: node_type ca fw 1\.2\.0 node_guid $(cat /sys/class/infiniband/mk0/node_guid) sys_image_guid [0-9a-f:]{19}" <<<"$out"; then
		ktap_ok "rdma dev show: mk0, node_type ca, fw, node_guid as in sysfs"
	else
		ktap_fail "rdma dev show: mk0, node_type ca, fw, node_guid as in sysfs" "$out"
	fi
	json=$(rdma -j dev show 2>&1)
	jcheck "rdma -j dev show: fields and values" "$json" "
r = one(d, ifname='mk0')
assert isinstance(r['ifindex'], int), r
assert r['node_type'] == 'ca', r
assert r['fw'] == '1.2.0', r
assert r['node_guid'] == open('/sys/class/infiniband/mk0/node_guid').read().strip(), r
assert r['sys_image_guid'] == open('/sys/class/infiniband/mk0/sys_image_guid').read().strip(), r
print(sorted(r))"

	out=$(rdma link show 2>&1)
	ktap_diag "$out"
	if grep -qE "^link mk0/1 state ACTIVE physical_state LINK_UP netdev $NETDEV ?\$" <<<"$out"; then
		ktap_ok "rdma link show: mk0/1 ACTIVE LINK_UP on $NETDEV"
	else
		ktap_fail "rdma link show: mk0/1 ACTIVE LINK_UP on $NETDEV" "$out"
	fi
	ifindex=$(cat "/sys/class/net/$NETDEV/ifindex")
	json=$(rdma -j link show mk0/1 2>&1)
	jcheck "rdma -j link show: state, netdev and its index as sysfs says" "$json" "
r = one(d, ifname='mk0', port=1)
assert r['state'] == 'ACTIVE' and r['physical_state'] == 'LINK_UP', r
assert r['netdev'] == '$NETDEV' and r['netdev_index'] == $ifindex, r
assert open('/sys/class/infiniband/mk0/ports/1/state').read().split()[1] == r['state']"

	# ---- resources ------------------------------------------------------
	out=$(rdma res show 2>&1)
	ktap_diag "$out"
	base=$(rdma -j res show mk0 2>&1)
	jcheck "rdma -j res show mk0: a count of every kind" "$base" "
r = one(d, ifname='mk0')
for k in ('pd', 'cq', 'qp', 'cm_id', 'mr', 'ctx', 'srq'):
    assert isinstance(r[k], int) and r[k] >= 0, (k, r)"
	before=$(rdma -j statistic show link mk0/1 2>&1)
	ktap_diag "counters before: $before"

	ktap_check "insmod rdma_obj_ulp ibdev=mk0 recvs=4" \
		insmod "$STAGE/lib/modules/$KVER/updates/selftests/rdma_obj_ulp.ko" ibdev=mk0 recvs=4
	qpn=$(cat /sys/module/rdma_obj_ulp/parameters/qpn 2>/dev/null)
	lkey=$(cat /sys/module/rdma_obj_ulp/parameters/lkey 2>/dev/null)
	ktap_diag "rdma_obj_ulp: qpn $qpn lkey $lkey"

	json=$(rdma -j res show mk0 2>&1)
	jcheck "rdma res show: pd, cq, qp, mr each one more" "$json" "
b = one(json.loads('''$base'''), ifname='mk0')
r = one(d, ifname='mk0')
for k in ('pd', 'cq', 'qp', 'mr'):
    assert r[k] == b[k] + 1, (k, b, r)
for k in ('cm_id', 'ctx', 'srq'):
    assert r[k] == b[k], (k, b, r)"
	out=$(rdma res show pd dev mk0 2>&1; rdma res show cq dev mk0 2>&1;
	      rdma res show qp link mk0 2>&1; rdma res show mr dev mk0 2>&1)
	ktap_diag "$out"
	json=$(rdma -j res show pd dev mk0 2>&1)
	jcheck "rdma res show pd: the ULP's PD, used by its QP and MR" "$json" "
r = [x for x in d if comm(x) == 'rdma_obj_ulp']
assert len(r) == 1, d
r = r[0]
assert r['ifname'] == 'mk0' and isinstance(r['pdn'], int), r
assert r['users'] == 2, r
assert 'local_dma_lkey' in r, r"
	json=$(rdma -j res show cq dev mk0 2>&1)
	jcheck "rdma res show cq: the ULP's CQ, 32 entries, used twice by the QP" "$json" "
r = [x for x in d if comm(x) == 'rdma_obj_ulp']
assert len(r) == 1, d
r = r[0]
assert r['cqe'] >= 32 and r['users'] == 2, r
# iproute2 names poll contexts by a table that starts at DIRECT while the
# kernel's IB_POLL_DIRECT is 3: read the raw value.
sys.path.insert(0, '$SELFDIR')
import nldev_lib as L
u = L.Uapi()
s = L.NlSock()
q = s.request(u.c('RES_CQ_GET'), L.nla_u32(u.a('DEV_INDEX'), r['ifindex']), dump=True)
ents = [L.parse_attrs(e)[0] for m in q.attrs() for _, e in L.parse_attrs(m[u.a('RES_CQ')])[1]]
ents = [e for e in ents if L.get_str(e, u.a('RES_KERN_NAME')) == 'rdma_obj_ulp']
assert len(ents) == 1, ents
assert L.get_u8(ents[0], u.a('RES_POLL_CTX')) == 3, ents  # IB_POLL_DIRECT"
	json=$(rdma -j res show qp link mk0 2>&1)
	jcheck "rdma res show qp: the ULP's UD QP $qpn in RTS on port 1" "$json" "
r = one(d, lqpn=int('${qpn:-0}'))
assert r['ifname'] == 'mk0' and r['port'] == 1, r
assert r['type'] == 'UD' and r['state'] == 'RTS', r
assert r['sq-psn'] == 0 and comm(r) == 'rdma_obj_ulp', r"
	json=$(rdma -j res show mr dev mk0 2>&1)
	jcheck "rdma res show mr: the ULP's MR with its lkey" "$json" "
r = [x for x in d if comm(x) == 'rdma_obj_ulp']
assert len(r) == 1, d
r = r[0]
assert int(str(r['lkey']), 16) == int('${lkey:-0}'), r
assert isinstance(r['mrn'], int) and 'mrlen' in r, r"
	json=$(rdma -j res show qp link mk0 lqpn "${qpn:-0}" 2>&1)
	jcheck "rdma res show qp lqpn $qpn (doit by QP number)" "$json" "
assert len(d) == 1 and d[0]['lqpn'] == int('${qpn:-0}'), d"

	# ---- counters -------------------------------------------------------
	out=$(rdma statistic show 2>&1)
	ktap_diag "$out"
	after=$(rdma -j statistic show link mk0/1 2>&1)
	jcheck "rdma statistic show: the counters moved with the ULP's verbs" "$after" "
b = json.loads('''$before''')[0]
r = one(d, ifname='mk0', port=1)
for k in ('mock_pd_alloc', 'mock_cq_create', 'mock_qp_create', 'mock_mr_alloc'):
    assert r[k] == b[k] + 1, (k, b, r)
assert r['mock_post_recv_wr'] == b['mock_post_recv_wr'] + 4, (b, r)
assert r['mock_post_send_wr'] == b['mock_post_send_wr'], (b, r)
assert 'mock_qp_modify' not in r, r"
	out=$(rdma statistic mode supported link mk0/1 2>&1)
	ktap_diag "rdma statistic mode supported: $out"
	if grep -q 'mock_qp_modify' <<<"$out"; then
		ktap_ok "rdma statistic mode supported: mock_qp_modify is optional"
	else
		ktap_fail "rdma statistic mode supported: mock_qp_modify is optional" "$out"
	fi
	ktap_check "rdma statistic set link mk0/1 optional-counters mock_qp_modify" \
		rdma statistic set link mk0/1 optional-counters mock_qp_modify
	out=$(rdma statistic mode link mk0/1 2>&1)
	ktap_diag "rdma statistic mode: $out"
	result "rdma statistic mode: mock_qp_modify is on" "$out" \
		grep -q 'mock_qp_modify' <<<"$out"
	before=$(rdma -j statistic show link mk0/1 2>&1)
	ktap_check "reload rdma_obj_ulp (a new QP: INIT, RTR, RTS)" \
		bash -c "rmmod rdma_obj_ulp && insmod $STAGE/lib/modules/$KVER/updates/selftests/rdma_obj_ulp.ko ibdev=mk0 recvs=1"
	after=$(rdma -j statistic show link mk0/1 2>&1)
	ktap_diag "mock_qp_modify: $(counter "$before" mock_qp_modify) -> $(counter "$after" mock_qp_modify)"
	jcheck "optional counter on: shown, and counts the 3 modify_qp calls" "$after" "
b = json.loads('''$before''')[0]
r = d[0]
assert r['mock_qp_modify'] == b['mock_qp_modify'] + 3, (b, r)"
	ktap_check "rdma statistic unset link mk0/1 optional-counters" \
		rdma statistic unset link mk0/1 optional-counters
	json=$(rdma -j statistic show link mk0/1 2>&1)
	jcheck "optional counter off: no longer shown" "$json" "
assert 'mock_qp_modify' not in d[0] and 'mock_pd_alloc' in d[0], d"

	# ---- refused requests -----------------------------------------------
	ktap_check "rdma link add mk1 type mock netdev $NETDEV" \
		rdma link add mk1 type mock netdev "$NETDEV"
	expect_fail "dev set name to a name in use: exists" 'exist' \
		rdma dev set mk0 name mk1
	ktap_check "rdma link delete mk1 (no objects on it)" rdma link delete mk1
	monitor_saw "UNREGISTER of mk1 on link delete" '^UNREGISTER dev mk1 index [0-9]+$'
	ip netns add nldevtest 2>/dev/null
	expect_fail "dev set netns: not supported" 'not supported' \
		rdma dev set mk0 netns nldevtest
	ip netns del nldevtest 2>/dev/null
	# The modes themselves are nldev_netns' subject; here only the round
	# trip through the tool.
	ktap_check "system set netns exclusive" rdma system set netns exclusive
	ktap_check "system set netns shared" rdma system set netns shared
	out=$(rdma sys show 2>&1)
	ktap_diag "$out"
	result "rdma sys show: netns shared" "$out" grep -q 'netns shared' <<<"$out"
	expect_fail "dev set adaptive-moderation on: not supported" 'not supported' \
		rdma dev set mk0 adaptive-moderation on

	# ---- rename ---------------------------------------------------------
	ktap_check "rdma dev set mk0 name mkr0" rdma dev set mk0 name mkr0
	monitor_saw "RENAME on dev set name" '^RENAME dev mkr0 index [0-9]+$'
	if [ -e /sys/class/infiniband/mkr0 ] && [ ! -e /sys/class/infiniband/mk0 ]; then
		ktap_ok "sysfs follows the rename"
	else
		ktap_fail "sysfs follows the rename" "$(ls /sys/class/infiniband)"
	fi
	json=$(rdma -j res show qp link mkr0 2>&1)
	jcheck "the ULP's QP is listed under the new name" "$json" "
r = [x for x in d if comm(x) == 'rdma_obj_ulp']
assert len(r) == 1 and r[0]['ifname'] == 'mkr0', d"

	# A netdev rename is reported too, and the link shows the new name.
	if ip link set "$NETDEV" down && ip link set "$NETDEV" name nlren0 &&
		ip link set nlren0 up; then
		monitor_saw "NETDEV_RENAME on ip link set name" \
			"^NETDEV_RENAME dev mkr0 index [0-9]+ port 1 netdev nlren0 ifindex $ifindex\$"
		out=$(rdma link show mkr0/1 2>&1)
		result "rdma link show: the renamed netdev" "$out" \
			grep -q 'netdev nlren0' <<<"$out"
		ip link set nlren0 down
		ip link set nlren0 name "$NETDEV"
		ip link set "$NETDEV" up
	else
		ktap_fail "ip link set $NETDEV name nlren0" "could not rename"
	fi
	retry_until 10 bash -c "rdma link show mkr0/1 | grep -q 'state ACTIVE.*netdev $NETDEV'"

	# ---- link delete ----------------------------------------------------
	ktap_check "rdma link delete mkr0 (a ULP holds objects on it)" \
		timeout "$(scaled 30)" rdma link delete mkr0
	monitor_saw "UNREGISTER on link delete" '^UNREGISTER dev mkr0 index [0-9]+$'
	result "sysfs: mkr0 gone" "$(ls /sys/class/infiniband)" \
		test ! -e /sys/class/infiniband/mkr0
	result "the ULP released its objects" "qpn $(cat /sys/module/rdma_obj_ulp/parameters/qpn)" \
		test "$(cat /sys/module/rdma_obj_ulp/parameters/qpn)" = 0
	ktap_check "rmmod rdma_obj_ulp" rmmod rdma_obj_ulp
	out=$(rdma dev show 2>&1)
	result "rdma dev show: no device left" "$out" test -z "$out"
	ktap_check "rdma link add mk0 again (the name is free)" \
		rdma link add mk0 type mock netdev "$NETDEV"
	ktap_check "rdma link add mk1 again" \
		rdma link add mk1 type mock netdev "$NETDEV"

	# ---- module unload --------------------------------------------------
	ktap_check "rmmod rdma_nl_mock (its devices go with it)" rmmod rdma_nl_mock
	monitor_saw "UNREGISTER of mk0 on module unload" '^UNREGISTER dev mk0 index'
	monitor_saw "UNREGISTER of mk1 on module unload (its second)" \
		'^UNREGISTER dev mk1 index' 2
	out=$(rdma dev show 2>&1)
	result "rdma dev show: no device left" "$out" \
		test -z "$out"
	# The monitor's socket pins ib_core: stop it before the unload check.
	kill "$MON_PID" 2>/dev/null
	wait "$MON_PID" 2>/dev/null
	ktap_diag "monitor: $(tr '\n' ';' <"$RESULTS/monitor.txt")"
	if grep -q MALFORMED "$RESULTS/monitor.txt"; then
		ktap_fail "monitor: every event well-formed" "$(grep MALFORMED "$RESULTS/monitor.txt")"
	else
		ktap_ok "monitor: every event well-formed"
	fi
	check_modules_unload rdma_nl_mock rdma_mock

	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	kmsg_since "$mark" >"$RESULTS/kernel.log"
}

rdma_test_main "$@"
