#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ib_uverbs under a fuzzer: uverbs_fuzz.py drives /dev/infiniband/uverbs0
# (rxe0 on $NETDEV) for a bounded time with random and mutated write()
# commands, ioctl()s, mmap()s of random offsets and of the rings, scribbled
# rings and doorbells, close and reopen, destroy racing use across threads,
# fork, and SIGKILL of whole rounds (see its docstring).  Two passes: as
# root, then as user nobody with RLIMIT_MEMLOCK at 64 KiB.  Each pass must
# exit 0 with its summary line and no failure (no hang, no errno from the
# kernel's internal range, ioctl ENOTTY, no stray event file...); then
# rdma resource tracking lists no context, PD, MR, CQ, QP or SRQ, rxe0 is
# freed with 0 verbs objects left (AHs included), every module unloads and
# the kernel log since the start is clean.
#
# The seed is printed; UVERBS_FUZZ_SEED=N (and UVERBS_FUZZ_SECONDS=S, per
# pass, default 60) replay one, passed through RDMA_TEST_ENV:
#   RDMA_TEST_ENV="UVERBS_FUZZ_SEED" UVERBS_FUZZ_SEED=N run_tests.sh uverbs_fuzz
# The seed fixes every thread's choices, not the threads' interleaving.
#
# vms: 1
# stack-a: project
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
# Debian's interpreter (the one rdma-core's tests use).
PY=/usr/bin/python3
SECONDS_PER_PASS=${UVERBS_FUZZ_SECONDS:-60}
SEED=${UVERBS_FUZZ_SEED:-$((SRANDOM % 1000000))}

rxe0_res_empty() {
	[ "$(rdma_res_counts rxe0 ctx pd mr cq qp srq)" = "ctx=0 pd=0 mr=0 cq=0 qp=0 srq=0" ]
}

# fuzz_pass NAME SEED [PREFIX...]: one run of the fuzzer, through PREFIX
# (setpriv and prlimit for the unprivileged pass), judged.
fuzz_pass() {
	local name=$1 seed=$2 out=$RESULTS/uverbs_fuzz_$1.txt rc limit
	shift 2

	limit=$(scaled $((SECONDS_PER_PASS + 240)))
	timeout -s KILL "$limit" "$@" "$PY" "$SELFDIR/uverbs_fuzz.py" \
		--seed "$seed" --seconds "$SECONDS_PER_PASS" --hang "$(scaled 60)" \
		--ibdev rxe0 >"$out" 2>&1
	rc=$?
	ktap_diag "$name: $(head -n 1 "$out")"
	ktap_diag "$(grep -E '^round [0-9]+:' "$out" | tr '\n' ';')"
	if [ "$rc" -eq 0 ]; then
		ktap_ok "$name: the fuzzer exits 0"
	else
		ktap_fail "$name: the fuzzer exits 0" \
			"rc=$rc$([ "$rc" -eq 137 ] && echo " (killed after $limit s)")"
		ktap_diag "$(grep -E '^(FAIL|# child)' "$out" | head -n 20 | cut -c1-2000)"
	fi
	if grep -qE '^uverbs_fuzz: [0-9]+ calls, 0 failures$' "$out"; then
		ktap_ok "$name: summary with 0 failures ($(tail -n 1 "$out"))"
	else
		ktap_fail "$name: summary with 0 failures" "$(tail -n 1 "$out")"
	fi
	if [ "$rc" -ne 137 ] && ! grep -q '^FAIL HANG\|^FAIL .*HANG ' "$out"; then
		ktap_ok "$name: no system call hung"
	else
		ktap_fail "$name: no system call hung" \
			"$(grep -m 1 'HANG' "$out" | cut -c1-3000)"
		# The blocked tasks' stacks, into the kernel log.
		echo w >/proc/sysrq-trigger
	fi
	if retry_until 30 rxe0_res_empty; then
		ktap_ok "$name: rdma res lists no context, PD, MR, CQ, QP or SRQ afterwards"
	else
		ktap_fail "$name: rdma res lists no context, PD, MR, CQ, QP or SRQ afterwards" \
			"$(rdma_res_counts rxe0 ctx pd mr cq qp srq)"
	fi
	# The call counts and errnos, for the record.
	ktap_diag "$(sed -n '/^summary:/,$p' "$out" | grep -vE '^FAIL' | head -n 150)"
}

guest_a() {
	local mark="uverbs_fuzz $$"

	kmsg_mark "$mark"
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0
	ktap_diag "seed $SEED, $SECONDS_PER_PASS s per pass"

	fuzz_pass root "$SEED"
	fuzz_pass nobody "$((SEED + 1))" prlimit --memlock=65536:65536 \
		setpriv --reuid=65534 --regid=65534 --clear-groups

	check_rxe_no_objects rxe0
	check_modules_unload
	ktap_log_clean "kernel log clean since the start" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
