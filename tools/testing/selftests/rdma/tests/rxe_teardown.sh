#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How soft-RoCE devices end, on one guest of our stack.  The core's
# ib_device_release() debug line (turned on through dynamic debug) says
# when a device's last reference went.
#
#  1. GID references and "rdma res show qp": rxe0 on eth0, rdma_rc_ulp's
#     RC QP connected to itself (its path holds a GID entry), then 1,000
#     "rdma -j res show qp" by an unprivileged user (one "rdma -b" run
#     under setpriv as nobody), each listing that QP.  After "rdma link
#     delete rxe0" the device must be released: a query that leaves a GID
#     reference behind keeps it forever.
#  2. Teardown races (rdma_link_race.py): 500 rounds of "rdma link delete"
#     racing "ip link del" of the device's netdev while rdma_obj_ulp holds
#     a PD, CQ, QP, MR and AH on it, and 100 rounds of "rdma link add"
#     racing "ip link del".  No device may be left, each one rxe freed
#     must have been released by the core too, and the kernel log must
#     stay clean (no WARN from a second unregistration, no BUG).
#
# Then every module unloads.
#
# vms: 1
# stack-a: project
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
QUERIES=1000
RC=/sys/module/rdma_rc_ulp/parameters

# rc_connected QPN: "rdma res show qp" lists QPN in RTS
rc_connected() {
	rdma -j res show qp 2>/dev/null | python3 -c '
import json, sys
sys.exit(not any(r.get("lqpn") == int(sys.argv[1]) and r.get("state") == "RTS"
                 for r in json.load(sys.stdin)))' "$1"
}

released() {
	kmsg_since "$1" | grep -qx "$2: released"
}

gid_references() {
	local mark="teardown gid" ko qpn out n

	kmsg_mark "$mark"
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	ktap_check "rxe0 has its IPv4 GID" \
		retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_rc_ulp.ko | head -n 1)
	ktap_check "rdma_rc_ulp: an RC QP on rxe0" \
		insmod "$ko" ibdev=rxe0 dest="$MY_IP" dmac="$MY_MAC" || return
	ktap_check "rdma_rc_ulp: connected to itself" \
		sh -c "cat $RC/local >$RC/peer"
	qpn=$((0x$(cut -d' ' -f1 "$RC/local")))
	if retry_until 30 rc_connected "$qpn"; then
		ktap_ok "QP $qpn in RTS with a path"
	else
		ktap_fail "QP $qpn in RTS with a path" "$(rdma res show qp 2>&1 | tr '\n' ' ')"
	fi

	# In batches: iproute2's "rdma -b" keeps a netlink socket per command
	# open, and nobody may have only 1024 descriptors.
	for _ in $(seq $((QUERIES / 4))); do echo "res show qp"; done >"$RESULTS/queries"
	for _ in 1 2 3 4; do
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			rdma -j -b "$RESULTS/queries"
	done >"$RESULTS/queries.out" 2>&1
	out=$(cat "$RESULTS/queries.out")
	# One JSON array for the batch, or one per command: count the rows.
	n=$(python3 -c '
import json, sys
text, dec, pos, rows = sys.stdin.read(), json.JSONDecoder(), 0, []
while text[pos:].strip():
    part, pos = dec.raw_decode(text, len(text) - len(text[pos:].lstrip()))
    rows += part
print(sum(r.get("lqpn") == int(sys.argv[1]) for r in rows))' "$qpn" <<<"$out" 2>&1)
	if [ "$n" = "$QUERIES" ]; then
		ktap_ok "$QUERIES rdma res show qp as nobody, each lists QP $qpn"
	else
		ktap_fail "$QUERIES rdma res show qp as nobody, each lists QP $qpn" \
			"listed $n times: $(head -c 300 <<<"$out")"
	fi

	ktap_check "rmmod rdma_rc_ulp" rmmod rdma_rc_ulp
	ktap_check "rdma link delete rxe0" timeout "$(scaled 60)" rdma link delete rxe0
	if retry_until 30 released "$mark" rxe0; then
		ktap_ok "rxe0 released by the core"
	else
		ktap_fail "rxe0 released by the core" \
			"$(kmsg_since "$mark" | grep -E 'rxe0|released' | tail -n 2 | tr '\n' ' ')"
	fi
}

races() {
	local log=$RESULTS/races.kmsg ko out t freed rel

	ko=$(find "$STAGE/lib/modules/$KVER" -name rdma_obj_ulp.ko | head -n 1)
	t=$SECONDS
	if out=$(python3 "$SELFDIR/rdma_link_race.py" --ulp "$ko" --prefix race \
		--delete-rounds 500 --add-rounds 100 --kmsg "$log" 2>&1); then
		ktap_ok "rdma_link_race: every round ended as it may, no device left"
	else
		ktap_fail "rdma_link_race: every round ended as it may, no device left" \
			"$(grep -E 'unexpected|left|Error|error' <<<"$out" | head -n 3 | tr '\n' ' ')"
	fi
	ktap_diag "$out"
	ktap_diag "the races took $((SECONDS - t)) s"

	# The log of the races, as the tool copied it round by round.
	freed=$(grep -cE '^rdma_rxe: race[a0-9]+ released, ' "$log")
	rel=$(grep -cE '^race[a0-9]+: released$' "$log")
	if [ "$freed" -ge 500 ] && [ "$freed" = "$rel" ]; then
		ktap_ok "every device rxe freed was released by the core ($rel)"
	else
		ktap_fail "every device rxe freed was released by the core" \
			"rxe freed $freed, the core released $rel"
	fi
	out=$(_kernel_trouble <"$log")
	if [ -z "$out" ]; then
		ktap_ok "races: kernel log clean ($(wc -l <"$log") lines)"
	else
		ktap_fail "races: kernel log clean" \
			"$(grep -cE 'WARNING:|BUG' "$log") WARNING/BUG lines, first: $out"
	fi
}

guest() {
	ktap_check "modprobe ib_core" modprobe ib_core || return
	ktap_check "dynamic debug: ib_device_release" \
		sh -c "echo 'module ib_core func ib_device_release +p' >/proc/dynamic_debug/control"
	gid_references
	races
	check_modules_unload
}

rdma_test_main "$@"
