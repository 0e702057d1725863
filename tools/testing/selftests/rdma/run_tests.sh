#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs the RDMA harness tests (tests/NAME.sh) in QEMU guests and prints KTAP
# for the whole run, ending with the line "N passed, N failed".
#
#   run_tests.sh [--list] [NAME...]
#
# A test declares what it needs in its header comment:
#   # vms: 1|2                  guests to boot (default 1)
#   # stack-a: project|stock    RDMA stack of guest a (default project)
#   # stack-b: project|stock    RDMA stack of guest b (default: stack-a)
#   # timeout: SECONDS          per-guest time limit (default 120)
#   # alone: yes                 with RDMA_JOBS above 1, no other test runs
#                               beside it (fixed protocol timers that a
#                               shared host core could make it miss)
#   # kernel-config: CONFIG_X...  options the guest kernel must have (=y);
#                               on a kernel without them the test is not
#                               in the run (make check RDMA_KERNEL=debug
#                               runs it), and naming it fails
# The harness runs `bash tests/NAME.sh guest a|b` in the guests (see
# harness/lib.sh for the environment), then, if the script defines
# host_phase(), `bash tests/NAME.sh host RESULTDIR` on the host.
# Results: build/results/NAME/ (a/, b/, serial-*.log, wire.pcap, host.log).
# Environment: KVER, KROOT, STAGE, BUILD, QEMU, VM_MEM (see harness/common.sh);
# RDMA_TIMEOUT_SCALE multiplies every timeout (a debug kernel is slower).
# RDMA_ONE_BOOT=1: when kselftest is in the run, the single-host tests of
# the run (the Makefile's TEST_PROGS) do not get a guest each: kselftest
# runs them all in its one guest, through kselftest's runner, and reports
# each.  That saves a boot per test, which on a debug kernel costs minutes.
# RDMA_JOBS=N: up to N tests at a time (default 1), the longest (by
# timeout) first; a test's report is printed whole once it and those
# before it have ended.  For runs whose guests leave host cores idle: a
# two-guest test's stock peer mostly waits, so the one-boot guest can use
# the core it leaves.  RDMA_GUESTS=N: with RDMA_JOBS, no more than N
# guests at a time (default: no limit); a test that does not fit waits
# and a later one that does goes first (RDMA_JOBS=2 RDMA_GUESTS=3: the
# one boot beside one two-guest test, never two of those at once).
# RDMA_ALONE_AFTER=FILE: with RDMA_JOBS, a test that runs alone does not
# start while FILE exists (make check's host-only steps, which run beside
# the guest tests, remove it when they end).

set -u
# shellcheck source=harness/common.sh
. "$(dirname "$0")/harness/common.sh"
# shellcheck source=harness/initramfs.sh
. "$RDMA_HARNESS_DIR/initramfs.sh"
# shellcheck source=harness/depmod.sh
. "$RDMA_HARNESS_DIR/depmod.sh"
# shellcheck source=harness/vm.sh
. "$RDMA_HARNESS_DIR/vm.sh"
# shellcheck source=harness/lib.sh
. "$RDMA_HARNESS_DIR/lib.sh"

TESTS_DIR=$RDMA_SELFTEST_DIR/tests

# header SCRIPT KEY DEFAULT: the value of "# KEY: value" in SCRIPT's header,
# the comment block its first lines are (however long it is).
header() {
	local v

	v=$(awk '!/^#/ { exit } { print }' "$1" |
		sed -n 's/^#[[:space:]]*'"$2"':[[:space:]]*\([^[:space:]]*\).*/\1/p' | head -n 1)
	echo "${v:-$3}"
}

# The guest kernel's configuration file.
kernel_config_file() {
	local f

	for f in "$KROOT/lib/modules/$KVER/build/.config" "$KROOT/boot/config-$KVER"; do
		[ -r "$f" ] && { echo "$f"; return 0; }
	done
	return 1
}

# config_missing SCRIPT: the options of its kernel-config header that the
# guest kernel does not have, or nothing.
config_missing() {
	local want opt cfg

	want=$(awk '!/^#/ { exit } { print }' "$1" | sed -n 's/^#[[:space:]]*kernel-config:\(.*\)/\1/p')
	[ -n "$want" ] || return 0
	cfg=$(kernel_config_file) || { echo "$want (no kernel config found)"; return 0; }
	for opt in $want; do
		grep -qx "$opt=y" "$cfg" || printf '%s ' "$opt"
	done
}

# Every test the guest kernel can run; those it cannot are named on
# stderr.
all_tests() {
	local f missing

	for f in "$TESTS_DIR"/*.sh; do
		[ -e "$f" ] || continue
		missing=$(config_missing "$f")
		if [ -n "$missing" ]; then
			echo "# $(basename "$f" .sh): not run on kernel $KVER, which lacks ${missing% }" >&2
			continue
		fi
		basename "$f" .sh
	done
}

indent() {
	sed "s/^/# $1/"
}

# The Makefile's TEST_PROGS (the single-host tests), one NAME per line.
single_host_tests() {
	awk '/^TEST_PROGS[[:space:]]*:=/ { on = 1; sub(/^[^=]*=/, "") }
	     on { c = sub(/\\$/, ""); print; if (!c) exit }' "$RDMA_SELFTEST_DIR/Makefile" |
		tr -s ' \t' '\n' | sed -n 's|^tests/\(.*\)\.sh$|\1|p'
}

# one_boot: with RDMA_ONE_BOOT=1 and kselftest in the run, moves the
# single-host tests of the array names into kselftest's guest: drops them
# from names, sets KSFT_PROGS and ONE_BOOT_TIMEOUT (kselftest's own timeout
# plus theirs) and says so on stderr.
one_boot() {
	local name rest=() moved=() single

	[ "${RDMA_ONE_BOOT:-0}" = 1 ] || return 0
	printf '%s\n' "${names[@]}" | grep -qx kselftest || return 0
	single=$(single_host_tests)
	ONE_BOOT_TIMEOUT=$(header "$TESTS_DIR/kselftest.sh" timeout 120)
	for name in "${names[@]}"; do
		if grep -qx "$name" <<<"$single"; then
			moved+=("tests/$name.sh")
			ONE_BOOT_TIMEOUT=$((ONE_BOOT_TIMEOUT + $(header "$TESTS_DIR/$name.sh" timeout 120)))
		else
			rest+=("$name")
		fi
	done
	[ ${#moved[@]} -gt 0 ] || return 0
	names=("${rest[@]}")
	export KSFT_PROGS="${moved[*]}"
	export RDMA_TEST_ENV="${RDMA_TEST_ENV:+$RDMA_TEST_ENV }KSFT_PROGS"
	echo "# one boot: kselftest's guest runs ${moved[*]}" >&2
}

# run_one NAME: runs a test; sets REASON on failure.
run_one() {
	local name=$1 script=$TESTS_DIR/$1.sh res vms sa sb to problems role rc=0 trouble leaks

	REASON=
	if [ ! -f "$script" ]; then
		REASON="no such test: $script"
		return 1
	fi
	vms=$(header "$script" vms 1)
	sa=$(header "$script" stack-a project)
	sb=$(header "$script" stack-b "$sa")
	to=$(header "$script" timeout 120)
	[ "$name" = kselftest ] && [ -n "${ONE_BOOT_TIMEOUT:-}" ] && to=$ONE_BOOT_TIMEOUT
	to=$((to * ${RDMA_TIMEOUT_SCALE:-1}))
	problems=$(config_missing "$script")
	if [ -n "$problems" ]; then
		REASON="kernel $KVER lacks ${problems% }"
		return 1
	fi
	res=$BUILD/results/$name
	rm -rf "$res"
	mkdir -p "$res"
	if [ "$vms" = 2 ]; then
		echo "# $name: 2 guests, stack a=$sa b=$sb, timeout ${to}s"
	else
		echo "# $name: 1 guest, stack $sa, timeout ${to}s"
	fi
	case "$vms" in 1 | 2) ;; *) REASON="header: vms must be 1 or 2, not '$vms'"; return 1 ;; esac
	for s in "$sa" "$sb"; do
		case "$s" in project | stock) ;; *) REASON="header: unknown stack '$s'"; return 1 ;; esac
	done
	problems=$(rdma_host_problems)
	if [ -n "$problems" ]; then
		REASON=$(echo "$problems" | paste -sd ';' -)
		return 1
	fi
	if { [ "$sa" = project ] || { [ "$vms" = 2 ] && [ "$sb" = project ]; }; } &&
		[ -z "$(rdma_staged_modules)" ]; then
		echo "# $name: warning: nothing staged under $STAGE/lib/modules/$KVER/updates (make stage)"
	fi

	rdma_run_guests "$script" "$res" "$vms" "$sa" "$sb" "$to" || rc=1
	for role in a b; do
		[ -d "$res/$role" ] || continue
		[ -s "$res/$role/output.log" ] && indent "$role: " <"$res/$role/output.log"
	done
	if [ $rc -ne 0 ]; then
		REASON=$RDMA_GUEST_FAIL
		for role in a b; do
			[ -e "$res/serial-$role.log" ] || continue
			if [ -s "$res/$role/exit_code" ] && [ -s "$res/$role/output.log" ]; then
				# It ended by itself: its output is above, show the rest.
				echo "# ---- $res/serial-$role.log, last 40 lines not shown above"
				tr -d '\r' <"$res/serial-$role.log" | grep -vxFf "$res/$role/output.log" |
					grep -v 'reboot: Power down' | tail -n 40 | indent "serial $role: "
			else
				echo "# ---- $res/serial-$role.log, last 40 lines"
				tr -d '\r' <"$res/serial-$role.log" | tail -n 40 | indent "serial $role: "
			fi
		done
		return 1
	fi
	for role in a b; do
		if [ -s "$res/$role/output.log" ] && grep -q '^not ok ' "$res/$role/output.log"; then
			REASON="guest $role exited 0 but reported a failed subtest"
			return 1
		fi
	done
	# Whatever the test looked at, the guest's whole kernel log must be
	# free of reports, and kmemleak (debug kernel) must blame no RDMA
	# module.
	for role in a b; do
		[ -d "$res/$role" ] || continue
		trouble=$(_kernel_trouble 2>/dev/null <"$res/$role/dmesg.txt")
		if [ -n "$trouble" ]; then
			REASON="guest $role kernel log: $(echo "$trouble" | paste -sd ';' -)"
			return 1
		fi
		leaks=$(_kmemleak_ours 2>/dev/null <"$res/$role/kmemleak.txt")
		if [ -n "$leaks" ]; then
			echo "$leaks" | head -n 20 | indent "kmemleak $role: "
			REASON="guest $role: kmemleak reports $(echo "$leaks" | grep -c '^unreferenced object') leak(s) of RDMA modules"
			return 1
		fi
	done
	if grep -qE '^host_phase[[:space:]]*\(\)' "$script"; then
		RDMA_TEST_NAME=$name RDMA_STACK_A=$sa RDMA_STACK_B=$sb REPO=$REPO_ROOT \
			bash "$script" host "$res" >"$res/host.log" 2>&1 </dev/null || rc=1
		indent "host: " <"$res/host.log"
		if [ $rc -ne 0 ]; then
			REASON="host phase failed"
			return 1
		fi
	fi
	return 0
}

# elapsed T0: seconds since T0 (date +%s.%N), one decimal.
elapsed() {
	echo "$(date +%s.%N) $1" | awk '{printf "%.1f", $1 - $2}'
}

# verdict N NAME RC SECONDS REASON: the lines that close test N's report.
verdict() {
	local n=$1 name=$2 rc=$3 dt=$4 reason=$5

	if [ "$rc" -eq 0 ]; then
		echo "# $name: ${dt} s"
		echo "ok $n $name"
		return 0
	fi
	if [ -d "$BUILD/results/$name" ]; then
		echo "# $name: ${dt} s, output in $BUILD/results/$name"
	else
		echo "# $name: ${dt} s"
	fi
	echo "not ok $n $name # ${reason:-failed}"
	return 1
}

# estimate NAME: how long test NAME may take, for the order in which
# parallel jobs start: its timeout (kselftest's, with the single-host
# tests of one boot, ONE_BOOT_TIMEOUT).
estimate() {
	if [ "$1" = kselftest ] && [ -n "${ONE_BOOT_TIMEOUT:-}" ]; then
		echo "$ONE_BOOT_TIMEOUT"
	else
		header "$TESTS_DIR/$1.sh" timeout 120
	fi
}

# guests NAME: how many guests test NAME boots.
guests() {
	header "$TESTS_DIR/$1.sh" vms 1
}

# run_parallel JOBS NAME...: runs the tests, up to JOBS at a time and up
# to RDMA_GUESTS guests at a time, the longest (by estimate) that fits
# first; prints each test's report whole, in the order given, as soon as
# it and those before it have ended.  Sets pass and fail.
run_parallel() {
	local jobs=$1 dir=$BUILD/jobs i k shown=0 running=0 busy=0 rc dt reason
	local cap=${RDMA_GUESTS:-0}
	local -a order launched vms alone

	# No limit: room for every test but one that runs alone.
	[ "$cap" -gt 0 ] || cap=99

	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	# Stopping the run stops its jobs, and they their guests.
	# shellcheck disable=SC2046 # one pid per word
	trap 'kill $(jobs -p) 2>/dev/null; exit 130' INT TERM
	local -a names=("$@")
	mapfile -t order < <(for i in "${!names[@]}"; do
		echo "$(estimate "${names[i]}") $i"
	done | sort -s -k1,1nr | cut -d' ' -f2)
	for i in "${!names[@]}"; do
		vms[i]=$(guests "${names[i]}")
		# A test that runs alone, or is bigger than the cap, takes all
		# of it: it starts when nothing else runs, nothing beside it.
		alone[i]=$(header "$TESTS_DIR/${names[i]}.sh" alone no)
		[ "${alone[i]}" = yes ] && vms[i]=$cap
		[ "${vms[i]}" -gt "$cap" ] && vms[i]=$cap
	done
	while [ "$shown" -lt $# ]; do
		for k in "${!order[@]}"; do
			[ "$running" -lt "$jobs" ] || break
			i=${order[k]}
			[ $((busy + vms[i])) -le "$cap" ] || continue
			[ "${alone[i]}" = yes ] && [ -e "${RDMA_ALONE_AFTER:-/nonexistent}" ] && continue
			unset 'order[k]'
			running=$((running + 1))
			busy=$((busy + vms[i]))
			launched+=("$i")
			# A job's own EXIT trap stops its guests (a subshell does
			# not run its parent's).
			(
				trap _rdma_kill_guests EXIT
				trap '_rdma_kill_guests; exit 130' INT TERM
				t0=$(date +%s.%N)
				rc=0
				run_one "${names[i]}" >"$dir/$i.out" 2>&1 || rc=1
				printf '%s %s %s\n' "$rc" "$(elapsed "$t0")" "${REASON//$'\n'/; }" >"$dir/$i.tmp"
				mv "$dir/$i.tmp" "$dir/$i.rc"
			) &
		done
		while [ "$shown" -lt $# ] && [ -e "$dir/$shown.rc" ]; do
			cat "$dir/$shown.out"
			read -r rc dt reason <"$dir/$shown.rc"
			if verdict $((shown + 1)) "${names[shown]}" "$rc" "$dt" "$reason"; then
				pass=$((pass + 1))
			else
				fail=$((fail + 1))
			fi
			shown=$((shown + 1))
		done
		running=0
		busy=0
		for i in "${launched[@]}"; do
			[ -e "$dir/$i.rc" ] && continue
			running=$((running + 1))
			busy=$((busy + vms[i]))
		done
		[ "$shown" -lt $# ] && sleep 1
	done
	wait
}

main() {
	local -a names
	local name n=0 pass=0 fail=0 t0 jobs=${RDMA_JOBS:-1}

	if [ "${1:-}" = --list ]; then
		shift
		for name in $(all_tests); do
			printf '%-32s vms=%s stack-a=%s stack-b=%s timeout=%s\n' "$name" \
				"$(header "$TESTS_DIR/$name.sh" vms 1)" \
				"$(header "$TESTS_DIR/$name.sh" stack-a project)" \
				"$(header "$TESTS_DIR/$name.sh" stack-b "$(header "$TESTS_DIR/$name.sh" stack-a project)")" \
				"$(header "$TESTS_DIR/$name.sh" timeout 120)"
		done
		return 0
	fi
	case "${1:-}" in -h | --help) sed -n '3,32p' "$0" | sed 's/^# \{0,1\}//'; return 0 ;; esac
	case "$jobs" in
	[1-9] | [1-9][0-9]) ;;
	*) echo "RDMA_JOBS must be a number of tests from 1 to 99, not '$jobs'" >&2; return 2 ;;
	esac
	case "${RDMA_GUESTS:-0}" in
	0 | [1-9] | [1-9][0-9]) ;;
	*) echo "RDMA_GUESTS must be a number of guests from 1 to 99, not '$RDMA_GUESTS'" >&2; return 2 ;;
	esac
	mkdir -p "$BUILD"
	rm -f "$BUILD/not-run.txt"
	if [ $# -gt 0 ]; then
		names=("$@")
	else
		mapfile -t names < <(all_tests 2>"$BUILD/not-run.txt")
	fi
	names=("${names[@]%.sh}")
	names=("${names[@]##*/}")
	one_boot 2>>"$BUILD/not-run.txt"
	echo "KTAP version 1"
	echo "1..${#names[@]}"
	[ -s "$BUILD/not-run.txt" ] && cat "$BUILD/not-run.txt"
	echo "# kernel $KVER, stage $STAGE, results $BUILD/results"
	[ "$STOCK_KVER" = "$KVER" ] && [ "$STOCK_KROOT" = "$KROOT" ] ||
		echo "# stock guests: kernel $STOCK_KVER ($STOCK_KROOT/), stage $STAGE_STOCK"
	if [ "$jobs" -gt 1 ] && [ ${#names[@]} -gt 1 ]; then
		echo "# up to $jobs tests at a time (RDMA_JOBS)${RDMA_GUESTS:+ and $RDMA_GUESTS guests (RDMA_GUESTS)}, each reported when it ends"
		run_parallel "$jobs" "${names[@]}"
	else
		for name in "${names[@]}"; do
			n=$((n + 1))
			t0=$(date +%s.%N)
			if run_one "$name"; then
				verdict "$n" "$name" 0 "$(elapsed "$t0")" ""
				pass=$((pass + 1))
			else
				verdict "$n" "$name" 1 "$(elapsed "$t0")" "$REASON"
				fail=$((fail + 1))
			fi
		done
	fi
	echo "$pass passed, $fail failed"
	[ "$fail" -eq 0 ]
}

main "$@"
