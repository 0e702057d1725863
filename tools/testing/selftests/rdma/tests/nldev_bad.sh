#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# nldev_bad.py on the project's stack: every nldev command, as a doit and
# as a dump, with truncated, oversized, wrongly typed, duplicated, unknown
# and nested-garbage attributes, missing devices and huge ports.  Each
# request must get an error ack or a well-formed reply (no hang), the
# kernel log must stay free of WARNING/BUG/Oops, and afterwards the stack
# must still work: dev show, link add and delete, a clean unload.
#
# vms: 1
# stack-a: project
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)

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
	local mark out rc

	mark="nldev_bad $$"
	kmsg_mark "$mark"
	ktap_check "modprobe ib_core" modprobe ib_core
	ktap_check "rdma link add mk0 type mock netdev $NETDEV" \
		rdma link add mk0 type mock netdev "$NETDEV"

	out=$(timeout "$(scaled 800)" python3 "$SELFDIR/nldev_bad.py" --dev mk0 \
		--netdev "$NETDEV" --link-type mock --json "$RESULTS/nldev_bad.json" 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$RESULTS/nldev_bad.txt"
	ktap_diag "$(grep -v '^BAD' <<<"$out" | tail -n 80)"
	if [ $rc -eq 0 ]; then
		ktap_ok "nldev_bad.py: every request answered with an error or a valid reply"
	else
		ktap_fail "nldev_bad.py: every request answered with an error or a valid reply" \
			"rc=$rc, $(grep -c '^BAD' <<<"$out") BAD: $(grep '^BAD' <<<"$out" | head -n 5 | tr '\n' ';')"
		ktap_diag "$(grep '^BAD' <<<"$out" | head -n 40)"
	fi

	ktap_log_clean "kernel log clean (no WARNING, BUG, Oops)" < <(kmsg_since "$mark")
	kmsg_since "$mark" >"$RESULTS/kernel.log"

	# The stack still works.
	out=$(rdma dev show 2>&1)
	ktap_diag "$out"
	result "rdma dev show: mk0 is there" "$out" \
		grep -q '^[0-9]*: mk0: node_type ca' <<<"$out"
	ktap_check "rdma link add mk9 type mock netdev $NETDEV" \
		rdma link add mk9 type mock netdev "$NETDEV"
	out=$(rdma link show mk9/1 2>&1)
	result "rdma link show mk9/1: ACTIVE on $NETDEV" "$out" \
		grep -q "state ACTIVE.*netdev $NETDEV" <<<"$out"
	ktap_check "rdma link delete mk9" rdma link delete mk9
	ktap_check "rdma link delete mk0" rdma link delete mk0
	out=$(rdma dev show 2>&1)
	result "no device left" "$out" test -z "$out"
	check_modules_unload rdma_nl_mock rdma_mock
}

rdma_test_main "$@"
