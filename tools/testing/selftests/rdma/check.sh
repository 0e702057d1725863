#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: build, lint and every test, user space and in-guest.
# Prints KTAP as it goes and, as its very last line, "N passed, N failed".
# Exit status is non-zero on any failure.  RDMA_TESTS="NAME..." limits the
# guest tests to those (for a debug-kernel run of what a change touches).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../../.." && pwd)
logs=$top/build/check
mkdir -p "$logs"
passed=0
failed=0
n=0
failed_steps=()

report() {	# report NAME RC LOGFILE
	n=$((n + 1))
	if [ "$2" -eq 0 ]; then
		passed=$((passed + 1))
		echo "ok $n $1"
	else
		failed=$((failed + 1))
		failed_steps+=("$1 $3")
		echo "not ok $n $1 # see $3"
		[ -f "$3" ] && tail -n 30 "$3" | sed 's/^/# /'
	fi
}

step() {	# step NAME COMMAND...
	local name=$1 log=$logs/$1.log start=$SECONDS rc
	shift
	"$@" >"$log" 2>&1
	rc=$?
	report "$name" $rc "$log"
	echo "# $name: $((SECONDS - start)) s"
}

# The builds use every CPU: make check's own recipe runs this script with
# no jobserver to hand on.
jobs=$(nproc)

# A W=1 build that prints a single compiler warning fails.
build_w1() {
	make -C "$top" clean >/dev/null 2>&1
	make -C "$top" -j"$jobs" W=1 all || return 1
	! grep -iE 'warning|error' "$logs/build_w1.log"
}

# Every <rdma/...> header the build used is ours: none may fall through to
# the kernel's own include/rdma, whose types would silently disagree.
own_headers_only() {
	local used
	used=$(find "$top/drivers" "$top/tools/testing/selftests/rdma/modules" \
		"$top/tools/testing/selftests/rdma/ulp" "$top/tools/testing/selftests/rdma/bench" \
		-name '.*.o.cmd' -exec cat {} + | tr ' ' '\n' |
		grep -E '/include/rdma/[^ ]+\.h' | grep -v "^$top/include/rdma/" | sort -u)
	[ -z "$used" ] || { echo "kernel rdma headers used: $used"; return 1; }
	find "$top/drivers" -name '.*.o.cmd' | grep -q . || { echo "no build records"; return 1; }
}

# modules_install puts our modules where a distro looks first (W=1: see
# the stage step).
modules_install_layout() {
	local dir kver
	dir=$(mktemp -d)
	kver=$(make -s -C "$top" --no-print-directory print-kver)
	make -C "$top" W=1 modules_install INSTALL_MOD_PATH="$dir" || return 1
	ls "$dir/lib/modules/$kver/updates/drivers/infiniband/core/"ib_core.ko* || return 1
	# Nothing outside updates/, and no test module in a distro install.
	[ -z "$(find "$dir/lib/modules/$kver" -name '*.ko*' -not -path '*/updates/*')" ] || return 1
	[ -z "$(find "$dir" -name 'rdma_*_test.ko*')" ] || return 1
	rm -rf "$dir"
}

# modules_uninstall takes back exactly what modules_install put there: into
# a tree that already holds files of others (an inbox ib_core under
# kernel/, an unrelated driver in updates/drivers/infiniband/, a DKMS-style
# module), install, check ours arrived, uninstall; the tree must then be
# file for file and directory for directory what it was before.
modules_uninstall_clean() {
	local dir kver before after
	dir=$(mktemp -d)
	kver=$(make -s -C "$top" --no-print-directory print-kver)
	mkdir -p "$dir/lib/modules/$kver/kernel/drivers/infiniband/core" \
		"$dir/lib/modules/$kver/updates/drivers/infiniband/hw/other" \
		"$dir/lib/modules/$kver/updates/dkms"
	touch "$dir/lib/modules/$kver/kernel/drivers/infiniband/core/ib_core.ko.xz" \
		"$dir/lib/modules/$kver/updates/drivers/infiniband/hw/other/other.ko.xz" \
		"$dir/lib/modules/$kver/updates/dkms/unrelated.ko"
	before=$(cd "$dir" && find . | sort)
	make -C "$top" W=1 modules_install INSTALL_MOD_PATH="$dir" || return 1
	after=$(cd "$dir" && find . | sort)
	echo "installed:"
	comm -13 <(echo "$before") <(echo "$after")
	comm -13 <(echo "$before") <(echo "$after") | grep -q '/updates/drivers/infiniband/core/ib_core\.ko' ||
		{ echo "modules_install put no ib_core under updates/"; return 1; }
	make -C "$top" W=1 modules_uninstall INSTALL_MOD_PATH="$dir" || return 1
	after=$(cd "$dir" && find . | sort)
	if [ "$before" != "$after" ]; then
		echo "left behind (+) or removed (-) by install + uninstall:"
		diff <(echo "$before") <(echo "$after") | grep '^[<>]' | sed 's/^< /-/; s/^> /+/'
		return 1
	fi
	rm -rf "$dir"
}

# User-space unit tests and a short run of every fuzzer (ASan+UBSan); each
# fuzzer is one test.  FUZZ_SECONDS overrides the few seconds given here.
fuzz_one() {
	make -C "$top" fuzz FUZZ_TARGETS="$1" FUZZ_SECONDS="${FUZZ_SECONDS:-5}"
}

# RDMA_KERNEL=debug|plain: the guests boot the kernel of make debug-kernel
# (or plain-kernel) instead of Debian's and our modules are built against
# its tree.  On the plain kernel the stock guests load its own
# drivers/infiniband; on the debug kernel they boot Debian's kernel (see
# RDMA_STOCK_KERNEL below).  What does not
# depend on the kernel (unit tests, fuzzers, lint, the install layout) is
# the plain run's job and is not repeated.
kernel=${RDMA_KERNEL:-}
case "$kernel" in
'' | debian) kernel= ;;
debug | plain)
	klog=$logs/kernel-$kernel.log
	kline=$(bash "$top/tools/testing/rdma-kernel/kernel.sh" "$kernel" 2>"$klog" | tail -n 1)
	case "$kline" in
	KDIR=*) ;;
	*)
		echo "not ok 1 $kernel-kernel # see $klog"
		tail -n 20 "$klog" | sed 's/^/# /'
		echo "0 passed, 1 failed"
		exit 1
		;;
	esac
	# The line is KDIR=... KROOT=... KVER=..., none with blanks.
	for kv in $kline; do
		declare -x "$kv"
	done
	export BUILD=$top/build/$kernel STAGE=$top/build/$kernel/stage STAGE_STOCK=$top/build/$kernel/stage-stock
	# KASAN, lockdep and kmemleak make a TCG guest several times slower;
	# so slow that ACPI's interpreter times out (30 s each) evaluating
	# the PCI routing of every virtio device at boot.  The devices use
	# MSI-X: acpi=noirq skips that evaluation.
	# no5lvl: QEMU's "-cpu max" offers LA57, and with 5-level paging a
	# 6.12 KASAN kernel reports a false "wild-memory-access" when an
	# interrupt arrives while identify_cpu() has cleared the boot CPU's
	# feature bits (pgtable_l5_enabled() reads X86_FEATURE_LA57, so
	# KASAN briefly judges the 5-level direct map with 4-level bounds).
	# Seen at 0.0025 s in about one boot in ten; 4-level paging has no
	# such window.
	# KASAN's redzones and quarantine catch what page_poison and
	# slub_debug=FZ are there for on Debian's kernel, so the guests go
	# without those, at no cost in what is found.  A debug guest takes
	# minutes to boot: the single-host tests share one, under the
	# kselftest runner (RDMA_ONE_BOOT, run_tests.sh).
	# The stock guests boot Debian's kernel unless RDMA_STOCK_KERNEL=same:
	# upstream rxe on the debug kernel takes over a second to ACK a 64 KiB
	# RC message, longer than the fixed 67 ms x 7 retries of
	# ibv_rc_pingpong, so a test against it measured the peer's checkers,
	# not our code.  The project guests stay on the debug kernel.
	if [ "$kernel" = debug ] && [ "${RDMA_STOCK_KERNEL:-debian}" = debian ]; then
		export STOCK_KROOT=/
		STOCK_KVER=$(env -u KDIR -u KVER make -s -C "$top" print-kver 2>/dev/null)
		export STOCK_KVER
		stock_stage=$top/build/$kernel/stage-stock-$STOCK_KVER
	fi
	if [ "$kernel" = debug ]; then
		export RDMA_TIMEOUT_SCALE=${RDMA_TIMEOUT_SCALE:-3}
		export RDMA_GUEST_APPEND="acpi=noirq no5lvl${RDMA_GUEST_APPEND:+ $RDMA_GUEST_APPEND}"
		export RDMA_GUEST_DEBUG=${RDMA_GUEST_DEBUG-}
		# Stock guests on the debug kernel too: as busy as ours, one
		# test at a time (see below).
		[ "${RDMA_STOCK_KERNEL:-debian}" = debian ] || export RDMA_JOBS=${RDMA_JOBS:-1}
	fi
	logs=$top/build/$kernel/check
	mkdir -p "$logs"
	;;
*)
	echo "RDMA_KERNEL must be debug, plain or empty, not '$kernel'" >&2
	exit 2
	;;
esac

# The single-host tests share one guest, kselftest's (run_tests.sh): a boot
# each would cost minutes on the debug kernel and a quarter of a minute
# each on Debian's, where CI's time is short.
export RDMA_ONE_BOOT=${RDMA_ONE_BOOT:-1}
# Two tests and three guests at a time (run_tests.sh, RDMA_JOBS and
# RDMA_GUESTS): the one-boot guest beside the two-guest tests one after
# the other, the one-guest tests in the gaps.  Never two two-guest tests
# at once: four busy TCG guests on two cores.
export RDMA_JOBS=${RDMA_JOBS:-2} RDMA_GUESTS=${RDMA_GUESTS:-3}

echo "KTAP version 1"
if [ -n "$kernel" ]; then
	echo "# make check on the $kernel kernel $KVER ($KROOT): build, guest tests"
	sed 's/^/# /' "$klog"
else
	echo "# make check: build, lint, unit tests, fuzzers, guest tests"
fi
step build_w1 build_w1
step own_headers_only own_headers_only
# W=1 like build_w1: the same compiler flags, so the objects it built are
# reused instead of every module being compiled again.
step stage make -C "$top" -j"$jobs" W=1 stage
if [ -n "${stock_stage:-}" ]; then
	step stage_stock_debian env -u KDIR -u KVER make -C "$top" -j"$jobs" W=1 STAGE_STOCK="$stock_stage" stage-stock
	export STAGE_STOCK=$stock_stage
fi

# The kselftest test lays tools/testing/selftests/rdma over Debian's
# linux-source-6.12: unpacked here, once, for the guests to see.
step kernel_source bash "$top/tools/testing/rdma-kernel/source.sh"

# The host-only steps (dkms, unit tests, fuzzers, install layout, lint)
# need nothing the guest tests use: they run beside them at nice 19, so
# that the guests come first and the steps fill the CPU time the guests
# leave.  They still slow a guest somewhat (uverbs_pingpong took 234 s
# beside lint, 165 s alone), so the timing-sensitive tests that run alone
# wait until the host steps have ended (RDMA_ALONE_AFTER, run_tests.sh),
# and the one guest of dkms (booted at the default priority, see
# dkms_test.sh) never meets them.  Their KTAP comes after the guest tests'.
host_out=$logs/host-steps.out
host_busy=$logs/host-steps.busy
host_pid=
if [ -z "$kernel" ]; then
	: >"$host_busy"
	export RDMA_ALONE_AFTER=$host_busy
	(
		# shellcheck disable=SC2064 # the path is known now
		trap "rm -f '$host_busy'" EXIT
		renice -n 19 -p "$BASHPID" >/dev/null
		step dkms bash "$here/dkms_test.sh"
		step unit make -C "$top" unit
		for t in $(make -s -C "$top/tools/testing/rdma-unit" print-fuzz-targets); do
			step "fuzz_$t" fuzz_one "$t"
		done
		step modules_install_layout modules_install_layout
		step modules_uninstall modules_uninstall_clean
		step lint bash "$here/lint.sh"
	) >"$host_out" 2>&1 &
	host_pid=$!
	# shellcheck disable=SC2064 # the pid is known now
	trap "pkill -P $host_pid 2>/dev/null; kill $host_pid 2>/dev/null; rm -f '$host_busy'" EXIT
fi

# In-guest tests (QEMU): their own KTAP and summary line.
guest_log=$logs/guest.log
# shellcheck disable=SC2086 # RDMA_TESTS is a list of names
bash "$here/run_tests.sh" ${RDMA_TESTS:-} 2>&1 | tee "$guest_log"
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$guest_log" | tail -n 1)
if [ -n "$summary" ]; then
	gp=$(echo "$summary" | sed -E 's/^([0-9]+) passed.*/\1/')
	gf=$(echo "$summary" | sed -E 's/^[0-9]+ passed, ([0-9]+) failed.*/\1/')
	passed=$((passed + gp))
	failed=$((failed + gf))
else
	echo "not ok - guest tests: run_tests.sh printed no summary"
	failed=$((failed + 1))
fi

if [ -n "$host_pid" ]; then
	wait "$host_pid"
	trap - EXIT
	cat "$host_out"
	while read -r line; do
		n=$((n + 1))
		case $line in
		ok\ *) passed=$((passed + 1)) ;;
		*)
			# not ok N NAME # see LOG
			read -r _ _ _ name _ _ log <<<"$line"
			failed=$((failed + 1))
			failed_steps+=("$name $log")
			;;
		esac
	done < <(grep -E '^(not )?ok [0-9]+ ' "$host_out")
fi

# CI shows only the end of what make check prints: what failed, and why,
# comes again here.
failures() {
	local step name log role out

	for step in "${failed_steps[@]}"; do
		log=${step#* }
		echo "# failed: ${step%% *} (see $log)"
		tail -n 5 "$log" 2>/dev/null | sed 's/^/#   /'
	done
	grep -E '^not ok [0-9]+ ' "$guest_log" | while read -r _ _ _ name _; do
		echo "# failed: $name ($(grep -E "^not ok [0-9]+ $name( |$)" "$guest_log" | sed 's/^[^#]*# //'))"
		for role in a b host; do
			out=${BUILD:-$top/build}/results/$name/$role/output.log
			[ "$role" = host ] && out=${out%/host/output.log}/host.log
			[ -f "$out" ] || continue
			grep -B 4 -A 1 -E '^not ok ' "$out" | head -n 16 | sed "s/^/#   $role: /"
		done
	done
}

[ "$failed" -eq 0 ] || failures
echo "# make check: $SECONDS s in all"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
