#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The same admin session on our stack (guest a) and on Debian's stock one
# (guest b): "rdma link add rxe0 type rxe", the test ULP rdma_obj_ulp
# holding a PD, CQ, QP and MR on rxe0, then the JSON of dev show, link
# show, res show, res show qp|cq|pd|mr, statistic show (counter names
# only) and sys show.  The host phase compares the two field by field,
# ignoring what legitimately differs (GUIDs, indices, ifindex, keys, QP
# and object numbers, pids, counter values), and lists every difference;
# any difference fails the test.
#
# Our side needs our rdma_rxe: if it is not staged, guest a reports a
# SKIP with the reason and the host phase skips the comparison (the only
# skip allowed; it goes away once rxe is merged).
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
# The views compared, as "NAME rdma-arguments".
VIEWS=(
	"dev dev show"
	"link link show"
	"res res show"
	"res_qp res show qp"
	"res_cq res show cq"
	"res_pd res show pd"
	"res_mr res show mr"
	"stat statistic show"
	"sys sys show"
)

# The module as built for this guest's stack.
ulp_ko() {
	local stage=$STAGE

	[ "$RDMA_STACK" = stock ] && stage=$STAGE_STOCK
	find "$stage/lib/modules/$KVER" -name "$1.ko" 2>/dev/null | head -n 1
}

guest() {
	local ko view name out

	if [ "$RDMA_STACK" = project ] &&
		[ -z "$(find "$STAGE/lib/modules/$KVER/updates" -name rdma_rxe.ko 2>/dev/null)" ]; then
		echo "no rdma_rxe.ko staged" >"$RESULTS/skipped"
		ktap_skip "compare with stock" \
			"our rdma_rxe is not staged (no rdma_rxe.ko under $STAGE/lib/modules/$KVER/updates)"
		return 0
	fi
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	retry_until 10 test -e /sys/class/infiniband/rxe0/ports/1/gids/1
	ko=$(ulp_ko rdma_obj_ulp)
	if [ -z "$ko" ]; then
		ktap_fail "rdma_obj_ulp.ko staged for $RDMA_STACK" "not found"
		return
	fi
	ktap_check "insmod rdma_obj_ulp ibdev=rxe0" insmod "$ko" ibdev=rxe0 recvs=4
	for view in "${VIEWS[@]}"; do
		name=${view%% *}
		# shellcheck disable=SC2086 # the arguments are split on purpose
		if out=$(rdma -j ${view#* } 2>&1); then
			printf '%s\n' "$out" >"$RESULTS/$name.json"
			ktap_ok "rdma -j ${view#* }"
		else
			ktap_fail "rdma -j ${view#* }" "$out"
		fi
		# shellcheck disable=SC2086
		rdma ${view#* } >"$RESULTS/$name.txt" 2>&1
	done
	ktap_check "rmmod rdma_obj_ulp" rmmod rdma_obj_ulp
	ktap_check "rdma link delete rxe0" rdma link delete rxe0
	check_modules_unload
}

host_phase() {
	local res=$1 out

	if [ -e "$res/a/skipped" ]; then
		ktap_skip "rdma -j output of our stack matches stock" "$(cat "$res/a/skipped")"
		return 0
	fi
	if out=$(python3 "$SELFDIR/nldev_compare.py" "$res/a" "$res/b" 2>&1); then
		ktap_ok "rdma -j output of our stack matches stock"
		ktap_diag "$out"
	else
		ktap_fail "rdma -j output of our stack matches stock" "see the differences below"
		ktap_diag "$out"
	fi
}

rdma_test_main "$@"
