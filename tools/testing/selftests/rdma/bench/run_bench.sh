#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: the project's RDMA stack against Debian's stock rxe, measured
# side by side in one run.  For each stack it boots two QEMU guests running
# that stack (project <-> project, stock <-> stock), runs bench_guest.sh in
# them (the rdma_bench load generator, one source built for each stack)
# and then prints one line per measure:
#
#   bench: NAME project=MEDIAN[MIN..MAX] stock=MEDIAN[MIN..MAX] ratio=R
#
# ratio = project median / stock median.  A stack that has no number for a
# measure shows n/a, and a comment line says why.  Every sample goes to
# build/bench/<UTC time>/bench.json (and build/bench/latest.json).
#
# Environment:
#   BENCH_REPEATS     repetitions of each measure per boot (default 2)
#   BENCH_SECS        seconds per timed repetition (default 3)
#   BENCH_PING_ITERS  round trips per latency repetition (default 200)
#   BENCH_ROUNDS      boots per stack, alternating stock and project
#                     (default 2); samples of all rounds are pooled
#   BENCH_STACKS      default "stock project"
#   BENCH_MEASURES    default "ah ah_atomic udp ud lat rc uv cm siw"
#   BENCH_SIW_LIMIT   seconds a siw perftest run may take before it counts
#                     as hung and is killed (default 30)
#   BENCH_SIW_BW_ITERS  messages of the siw bandwidth run (default 200)
#   BENCH_RC_SIZE, BENCH_UD_WINDOW, BENCH_RC_WINDOW
#                     for exploring only: RC message size (65536), sends
#                     in flight (0 = 32 UD, 8 RC); the lines then no
#                     longer mean what their names say
#   BENCH_PROFILE     1: a perf profile of both guests during every stream
#   BENCH_TRACE       1: each guest's script runs under set -x, with
#                     times, into its trace.log (for finding where it waits)
# and those of harness/common.sh (KVER, STAGE, BUILD, QEMU, VM_MEM).

# shellcheck source-path=SCRIPTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd -P)
# shellcheck source=../harness/common.sh
. "$here/../harness/common.sh"
# shellcheck source=../harness/initramfs.sh
. "$RDMA_HARNESS_DIR/initramfs.sh"
# shellcheck source=../harness/depmod.sh
. "$RDMA_HARNESS_DIR/depmod.sh"
# shellcheck source=../harness/vm.sh
. "$RDMA_HARNESS_DIR/vm.sh"

BENCH_REPEATS=${BENCH_REPEATS:-2}
BENCH_SECS=${BENCH_SECS:-3}
BENCH_PING_ITERS=${BENCH_PING_ITERS:-200}
BENCH_ROUNDS=${BENCH_ROUNDS:-2}
BENCH_STACKS=${BENCH_STACKS:-stock project}
BENCH_MEASURES=${BENCH_MEASURES:-ah ah_atomic udp ud lat rc uv cm siw}
BENCH_SIW_LIMIT=${BENCH_SIW_LIMIT:-30}
BENCH_SIW_BW_ITERS=${BENCH_SIW_BW_ITERS:-200}

for v in BENCH_REPEATS BENCH_SECS BENCH_PING_ITERS BENCH_ROUNDS BENCH_SIW_LIMIT BENCH_SIW_BW_ITERS; do
	case ${!v} in
	'' | *[!0-9]* | 0) echo "bench: $v must be a positive number, not '${!v}'" >&2; exit 2 ;;
	esac
done

# Why the project stack cannot be measured at all, or nothing.
project_missing() {
	if [ -z "$(find "$STAGE/lib/modules/$KVER/updates" -name rdma_rxe.ko 2>/dev/null)" ]; then
		echo "the project has no rdma_rxe provider yet (no rdma_rxe.ko under $STAGE)"
	elif [ -z "$(find "$STAGE/lib/modules/$KVER/updates" -name rdma_bench.ko 2>/dev/null)" ]; then
		echo "rdma_bench.ko is not staged (make stage)"
	fi
}

# run_boot DIR STACK: one two-guest boot of STACK; DIR/status says why
# it failed, if it did.
run_boot() {
	local dir=$1 stack=$2 to why t0 try

	mkdir -p "$dir"
	rm -f "$dir/status"
	if [ "$stack" = project ] && why=$(project_missing) && [ -n "$why" ]; then
		echo "$why" >"$dir/status"
		echo "# bench: $stack: not run: $why"
		return
	fi
	cat >"$dir/run.env" <<-EOF
		BENCH_REPEATS=$BENCH_REPEATS
		BENCH_SECS=$BENCH_SECS
		BENCH_PING_ITERS=$BENCH_PING_ITERS
		BENCH_MEASURES='$BENCH_MEASURES'
		BENCH_RC_SIZE=${BENCH_RC_SIZE:-65536}
		BENCH_UD_WINDOW=${BENCH_UD_WINDOW:-0}
		BENCH_RC_WINDOW=${BENCH_RC_WINDOW:-0}
		BENCH_PROFILE=${BENCH_PROFILE:-0}
		BENCH_SIW_LIMIT=$BENCH_SIW_LIMIT
		BENCH_SIW_BW_ITERS=$BENCH_SIW_BW_ITERS
		BENCH_TRACE=${BENCH_TRACE:-}
	EOF
	# Boot, set-up, six measures of REPEATS timed runs plus sync points,
	# with room for a host so busy that all of it runs at a third of the
	# speed of an idle one; then the two siw measures, each repetition of
	# which may run into its limit.
	to=$((600 + 12 * BENCH_REPEATS * (BENCH_SECS + 8)))
	to=$((to + 60 + 2 * BENCH_REPEATS * (BENCH_SIW_LIMIT + 20)))
	echo "# bench: $stack <-> $stack: two guests, up to ${to}s ($dir)"
	t0=$SECONDS
	# A guest that died before its script ran (a boot that went wrong on
	# a starved host) gets one more boot; a failure later on does not.
	for try in 1 2; do
		if RDMA_WIRE_DUMP=0 RDMA_GUEST_DEBUG='' rdma_run_guests "$here/bench_guest.sh" "$dir" 2 \
			"$stack" "$stack" "$to"; then
			break
		fi
		echo "# bench: $stack: $RDMA_GUEST_FAIL"
		if [ "$try" = 1 ] && [ ! -s "$dir/a/bench.txt" ] && [ ! -s "$dir/b/bench.txt" ]; then
			echo "# bench: $stack: no guest got to the measures, booting again" \
				"(first boot's logs in $dir/boot1)"
			mkdir -p "$dir/boot1"
			mv "$dir/a" "$dir/b" "$dir"/serial-*.log "$dir"/qemu-*.log "$dir/boot1/" 2>/dev/null
			continue
		fi
		echo "guest run failed: $RDMA_GUEST_FAIL" >"$dir/status"
		break
	done
	echo "# bench: $stack: $((SECONDS - t0)) s"
	for r in a b; do
		[ -s "$dir/$r/output.log" ] || continue
		grep -E '^(not ok|ok .* # SKIP)' "$dir/$r/output.log" | sed "s/^/# bench: $stack $r: /"
	done
}

main() {
	local problems stamp out round stack l

	problems=$(rdma_host_problems)
	if [ -n "$problems" ]; then
		echo "bench: cannot boot guests:" >&2
		while IFS= read -r l; do echo "  $l"; done <<<"$problems" >&2
		return 1
	fi
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	out=$BUILD/bench/$stamp
	mkdir -p "$out"
	python3 - "$out/meta.json" <<-EOF
		import json, os, sys
		json.dump({
		    "date_utc": "$stamp",
		    "kernel": "$KVER",
		    "git": "$(git -C "$REPO_ROOT" describe --always --dirty 2>/dev/null)",
		    "repeats": $BENCH_REPEATS, "secs": $BENCH_SECS,
		    "ping_iters": $BENCH_PING_ITERS, "rounds": $BENCH_ROUNDS,
		    "samples_per_stack": $((BENCH_REPEATS * BENCH_ROUNDS)),
		    "measures": "$BENCH_MEASURES",
		    "rc_size": ${BENCH_RC_SIZE:-65536},
		    "siw_limit": $BENCH_SIW_LIMIT, "siw_bw_iters": $BENCH_SIW_BW_ITERS,
		    "ud_window": ${BENCH_UD_WINDOW:-0}, "rc_window": ${BENCH_RC_WINDOW:-0},
		    "host_cpus": os.cpu_count(),
		    "host_loadavg_start": os.getloadavg(),
		}, open(sys.argv[1], "w"), indent=1)
	EOF
	echo "# bench: kernel $KVER, $BENCH_ROUNDS round(s) of $BENCH_REPEATS x ${BENCH_SECS}s, results in $out"
	for round in $(seq "$BENCH_ROUNDS"); do
		for stack in $BENCH_STACKS; do
			case $stack in project | stock) ;; *) echo "bench: unknown stack '$stack'" >&2; return 2 ;; esac
			run_boot "$out/r$round-$stack" "$stack"
		done
	done
	python3 "$here/bench_report.py" "$out" || return 1
	cp "$out/bench.json" "$BUILD/bench/latest.json"
	echo "# bench: JSON in $out/bench.json (copied to $BUILD/bench/latest.json)"
}

main "$@"
