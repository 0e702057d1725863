#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failures injected into our stack (debug kernel only: needs
# failslab and fail_page_alloc).  The injection is scoped twice: only the
# processes this script marks (/proc/PID/make-it-fail, task-filter) and only
# allocations with ib_core's or rdma_rxe's code on the stack (require-start
# and require-end span their text).  With a probability of FAULT_PERCENT,
#
#  1. "rdma link add rxe0" and "rdma link delete rxe0", ROUNDS times: each
#     either works or fails with an error, and a failed delete works when
#     retried without faults; no device is ever left half made (an add
#     whose answer was lost may leave a whole rxe0, which then deletes);
#  2. the nldev queries (rdma dev/link/res/stat show) on a live device;
#  3. every KTAP test module loaded with faults (its cases may fail, that is
#     the point; it must load or refuse to, and unload);
#
# then, faults off: something was injected, nothing leaked (kmemleak blames
# no RDMA module), every module unloads and the kernel log is clean.  The
# counts of injected failures and of the error paths they took (the
# dynamic-debug lines of ib_core and rdma_rxe) are printed as diagnostics.
# Phase 1 injects at LINK_FAULT_PERCENT, so that adds both work and fail;
# after every 10 rounds in which no add worked it injects half as often.
#
# vms: 1
# stack-a: project
# timeout: 1200
# kernel-config: CONFIG_FAILSLAB CONFIG_FAIL_PAGE_ALLOC CONFIG_FAULT_INJECTION_STACKTRACE_FILTER

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

FI=/sys/kernel/debug
ROUNDS=${ROUNDS:-40}
FAULT_PERCENT=${FAULT_PERCENT:-10}
# rdma link add makes a few dozen allocations on our code's behalf: at 10 %
# nearly every add fails (40 of 40 in a first run).  A lower rate lets some
# get through, so that delete runs under faults too.
LINK_FAULT_PERCENT=${LINK_FAULT_PERCENT:-3}
# Injections each attribute allows before it stops by itself.
TIMES=100000
ARMED=
INJECTED_BEFORE=0

# The address range of the text of ib_core and rdma_rxe (and of whatever
# lies between them): "START END".
our_text_range() {
	awk '$1 == "ib_core" || $1 == "rdma_rxe" {
		sub("^0x", "", $6)
		print $6, $2
	}' /proc/modules | python3 -c '
import sys
spans = [(int(a, 16), int(a, 16) + int(n)) for a, n in (l.split() for l in sys.stdin)]
if len(spans) != 2 or 0 in (s for s, _ in spans):
    sys.exit(1)
lo, hi = min(s for s, _ in spans), max(e for _, e in spans)
if hi - lo > 64 << 20:
    sys.exit(1)
print("%#x %#x" % (lo, hi))'
}

# faults_on PERCENT [INTERVAL]: arm both attributes (they stay idle for
# every process that is not marked); with INTERVAL, only every INTERVAL-th
# allocation that passes the filters may fail.
faults_on() {
	local a range

	range=$(our_text_range) || return 1
	# re-arming resets the countdown: keep what it counted so far
	[ -n "$ARMED" ] && INJECTED_BEFORE=$(injected)
	ARMED=1
	for a in failslab fail_page_alloc; do
		echo "$1" >"$FI/$a/probability" &&
			echo "${2:-1}" >"$FI/$a/interval" &&
			echo "$TIMES" >"$FI/$a/times" &&
			echo 0 >"$FI/$a/space" &&
			echo 0 >"$FI/$a/verbose" &&
			echo Y >"$FI/$a/task-filter" &&
			echo N >"$FI/$a/ignore-gfp-wait" &&
			echo 32 >"$FI/$a/stacktrace-depth" &&
			echo "${range% *}" >"$FI/$a/require-start" &&
			echo "${range#* }" >"$FI/$a/require-end" || return 1
	done
	echo N >"$FI/fail_page_alloc/ignore-gfp-highmem" &&
		echo 0 >"$FI/fail_page_alloc/min-order"
}

faults_off() {
	echo 0 >"$FI/failslab/probability"
	echo 0 >"$FI/fail_page_alloc/probability"
}

# injected: failures injected so far, both attributes together.
# Each arming counts down from TIMES; INJECTED_BEFORE holds what earlier
# armings counted.
injected() {
	echo $((INJECTED_BEFORE + 2 * TIMES - $(cat "$FI/failslab/times") -
		$(cat "$FI/fail_page_alloc/times")))
}

# faulty CMD...: run CMD as a marked process.
faulty() {
	(echo 1 >/proc/self/make-it-fail && exec "$@")
}

rxe_exists() {
	[ -e /sys/class/infiniband/rxe0 ]
}

# Phase 1: link add/delete under faults.
link_rounds() {
	local i added=0 refused=0 made=0 del_refused=0 interval=1 err bad=''

	for i in $(seq "$ROUNDS"); do
		# An add makes more allocations as the stack grows: if none
		# got through in 10 rounds, inject half as often.
		if [ "$i" -gt 1 ] && [ $(((i - 1) % 10)) = 0 ] && [ "$added" = 0 ]; then
			interval=$((interval * 2))
			faults_on "$LINK_FAULT_PERCENT" "$interval"
		fi
		if err=$(faulty rdma link add rxe0 type rxe netdev "$NETDEV" 2>&1); then
			added=$((added + 1))
			rxe_exists || bad+=" round $i: add returned 0 but there is no rxe0;"
			if ! faulty rdma link delete rxe0 2>/dev/null; then
				del_refused=$((del_refused + 1))
				rdma link delete rxe0 || bad+=" round $i: delete without faults failed;"
			fi
		else
			refused=$((refused + 1))
			# The device may be whole and only the answer lost (the
			# netlink ACK is allocated on our stack too): then it
			# must be complete and go with a delete.
			if rxe_exists; then
				made=$((made + 1))
				ktap_diag "round $i: rdma link add failed (${err:-no message}) but made rxe0"
				[ -d /sys/class/infiniband/rxe0/ports/1/gids ] ||
					bad+=" round $i: a refused add left rxe0 without its port;"
				rdma link delete rxe0 || bad+=" round $i: deleting what a refused add made failed;"
			fi
		fi
		if rxe_exists || rdma link show 2>/dev/null | grep -q rxe0; then
			bad+=" round $i: rxe0 left behind;"
			rdma link delete rxe0 2>/dev/null
		fi
	done
	ktap_diag "link add: $added worked, $refused refused ($made of them made rxe0 all the same; last interval $interval); link delete refused $del_refused times"
	[ "$added" -gt 0 ] && [ "$refused" -gt 0 ] ||
		bad+=" add worked $added times and was refused $refused times: both paths must run;"
	if [ -z "$bad" ]; then
		ktap_ok "rdma link add/delete under faults: $ROUNDS rounds, no device left half made"
	else
		ktap_fail "rdma link add/delete under faults" "$bad"
	fi
}

# Phase 2: nldev queries on a live device under faults.
query_rounds() {
	local i c failed=0 ran=0

	for i in $(seq "$ROUNDS"); do
		for c in "dev show" "link show" "res show" "stat show" "dev show rxe0 -d"; do
			ran=$((ran + 1))
			# shellcheck disable=SC2086 # c is a list of words
			faulty rdma $c >/dev/null 2>&1 || failed=$((failed + 1))
		done
	done
	ktap_diag "nldev queries: $ran ran, $failed returned an error"
	ktap_check "rxe0 still answers without faults" rdma dev show rxe0
}

# Phase 3: every KTAP test module loaded under faults, KTAP_ROUNDS times.
ktap_rounds() {
	local dir=$STAGE/lib/modules/$KVER/updates/selftests ko mod i mark loaded=0 refused=0 bad=''
	local -a params

	for ko in "$dir"/rdma_*_test.ko; do
		[ -e "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		params=()
		[[ "$mod" == rdma_rxe_* ]] && params=(ibdev=rxe0)
		for i in $(seq "${KTAP_ROUNDS:-1}"); do
			mark="faults $mod $i"
			kmsg_mark "$mark"
			if faulty modprobe "$mod" "${params[@]}" 2>/dev/null; then
				loaded=$((loaded + 1))
				# Cases that run after init get a moment to end.
				retry_until 120 ktap_plan_done "$mark"
				_bg_timeout 60 rmmod "$mod" || bad+=" rmmod $mod failed;"
			else
				refused=$((refused + 1))
			fi
		done
	done
	ktap_diag "KTAP modules under faults: $loaded loads ran, $refused refused"
	if [ $((loaded + refused)) -eq 0 ]; then
		ktap_fail "KTAP modules under faults" "none staged under $dir"
	elif [ -z "$bad" ]; then
		ktap_ok "KTAP modules under faults load or refuse, and unload"
	else
		ktap_fail "KTAP modules under faults load or refuse, and unload" "$bad"
	fi
}

# ktap_plan_done MARK: the KTAP document since MARK has all its results.
ktap_plan_done() {
	local ktap plan n

	ktap=$(kmsg_since "$1" | _ktap_lines)
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' <<<"$ktap" | head -n 1)
	n=$(grep -cE '^(not )?ok [0-9]+' <<<"$ktap")
	[ -n "$plan" ] && [ "$n" -ge "$plan" ]
}

# The distinct debug messages of ib_core and rdma_rxe since MARK, numbers
# blanked: the error paths the injected failures took.
paths_taken() {
	kmsg_since "$1" | grep -E '^(ib_core|rdma_rxe|infiniband [a-z0-9]+): ' |
		sed -E 's/[0-9]+/N/g' | sort -u
}

# The allocator's own report of a failed allocation ("page allocation
# failure", "vmalloc error", with a stack trace and the memory state) is
# what an injected failure looks like where the caller did not ask for
# silence: such reports, up to the end of their trace, are left out of the
# kernel log check; anything else in the log still counts.
not_alloc_reports() {
	awk '/(page allocation failure|vmalloc error):/ { skip = 1 }
	     !skip { print }
	     skip && /<\/TASK>/ { skip = 0 }'
}

guest() {
	local n0 n1 n2 n3 out leaks armed

	if [ ! -d "$FI/failslab" ] || [ ! -d "$FI/fail_page_alloc" ]; then
		ktap_fail "fault injection" "no $FI/failslab or fail_page_alloc (not a debug kernel)"
		return
	fi
	ktap_check "modprobe rdma_rxe" modprobe rdma_rxe || return
	# not through ktap_check: faults_on keeps its count in this shell
	if faults_on "$LINK_FAULT_PERCENT"; then
		armed="failslab and fail_page_alloc armed for ib_core/rdma_rxe"
		ktap_ok "$armed ($(our_text_range))"
	else
		ktap_fail "failslab and fail_page_alloc armed for ib_core/rdma_rxe" \
			"could not write the fault injection attributes"
		return
	fi
	echo 'module ib_core +p; module rdma_rxe +p' >/proc/dynamic_debug/control
	kmsg_mark "faults start"

	n0=$(injected)
	link_rounds
	n1=$(injected)
	ktap_diag "phase 1 injected $((n1 - n0)) failures"

	faults_off
	ktap_check "rdma link add rxe0 (no faults)" rdma link add rxe0 type rxe netdev "$NETDEV" || return
	faults_on "$FAULT_PERCENT"
	query_rounds
	n2=$(injected)
	ktap_diag "phase 2 injected $((n2 - n1)) failures"
	echo 'module ib_core -p; module rdma_rxe -p' >/proc/dynamic_debug/control
	out=$(paths_taken "faults start")
	ktap_diag "error paths logged: $(wc -l <<<"$out")"
	printf '%s\n' "$out" >"$RESULTS/paths.txt"

	ktap_rounds
	n3=$(injected)
	ktap_diag "phase 3 injected $((n3 - n2)) failures"
	faults_off

	if [ "$n3" -ge 10 ]; then
		ktap_ok "failures were injected ($n3 in all)"
	else
		ktap_fail "failures were injected" "only $n3: the filters matched nothing"
	fi
	if [ -e "$FI/kmemleak" ]; then
		echo scan >"$FI/kmemleak"
		leaks=$(_kmemleak_ours <"$FI/kmemleak")
		if [ -z "$leaks" ]; then
			ktap_ok "kmemleak: no leak of an RDMA module"
		else
			printf '%s\n' "$leaks" >"$RESULTS/leaks.txt"
			ktap_fail "kmemleak: no leak of an RDMA module" \
				"$(grep -c '^unreferenced object' <<<"$leaks") reports, see leaks.txt"
		fi
	fi
	ktap_diag "allocator failure reports: $(kmsg_since "faults start" |
		grep -cE '(page allocation failure|vmalloc error):')"
	ktap_log_clean "kernel log clean" < <(kmsg_since "faults start" |
		not_alloc_reports)
	check_modules_unload
}

rdma_test_main "$@"
