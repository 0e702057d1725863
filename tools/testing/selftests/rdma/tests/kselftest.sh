#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kselftest target as a CI farm runs it: in one guest with our modules
# and the KTAP test modules installed (as make modules_install
# selftests_install leaves them), this tree's tools/testing/selftests/rdma
# is laid over Debian's linux-source-6.12 (unpacked on the host by
# tools/testing/rdma-kernel/source.sh; the guest's root is an overlay, so
# the host's copy is not touched) and
#     make -C tools/testing/selftests TARGETS=rdma run_tests
# runs single-host tests on the running kernel through kselftest's own
# runner.  KSFT_PROGS picks them (TEST_PROGS given on make's command line,
# as kselftest allows); by default three that cover netlink, the KTAP
# modules and rxe traffic: the harness runs every one of them in its own
# guest anyway.  Each must end "ok" (a SKIP counts as a failure here:
# everything they need is installed), and the runner must have run them
# all.
#
# vms: 1
# stack-a: project
# timeout: 600

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

guest() {
	local src sel progs want got line

	src=$(ls -d "${RDMA_KERNEL_CACHE:-$REPO/.cache/kernel}"/src-*/linux 2>/dev/null | head -n 1)
	if [ -z "$src" ] || [ ! -f "$src/../.unpacked" ]; then
		ktap_fail "linux-source unpacked on the host" \
			"none under ${RDMA_KERNEL_CACHE:-$REPO/.cache/kernel} (tools/testing/rdma-kernel/source.sh)"
		return
	fi
	sel=$src/tools/testing/selftests
	rm -rf "$sel/rdma"
	ktap_check "tools/testing/selftests/rdma laid over $src" \
		cp -a "$REPO/tools/testing/selftests/rdma" "$sel/rdma" || return
	progs=${KSFT_PROGS:-tests/nldev_quick.sh tests/core_ktap.sh tests/rxe_loop_ktap.sh}
	want=$(wc -w <<<"$progs")
	ktap_diag "TEST_PROGS: $progs"

	# The runner gives each test the timeout of rdma/settings; on a
	# slower (debug) kernel the harness scales that as it scales its own
	# (the runner reads kselftest_override_timeout from the environment).
	if [ "${RDMA_TIMEOUT_SCALE:-1}" -gt 1 ]; then
		export kselftest_override_timeout=$(($(sed -n 's/^timeout=//p' "$sel/rdma/settings") * RDMA_TIMEOUT_SCALE))
		ktap_diag "per-test timeout ${kselftest_override_timeout}s"
	fi
	# The runner reopens the log for each test's output (O_APPEND): the
	# log must be in append mode too, or its lines overwrite those.
	: >"$RESULTS/kselftest.log"
	make -C "$sel" TARGETS=rdma TEST_PROGS="$progs" run_tests >>"$RESULTS/kselftest.log" 2>&1
	ktap_diag "make run_tests exited $?"
	got=0
	while IFS= read -r line; do
		if [[ "$line" =~ ^(not\ )?ok\ [0-9]+\ selftests:\ rdma:\ ([^ ]+)(.*)$ ]]; then
			got=$((got + 1))
			if [ -z "${BASH_REMATCH[1]}" ] && [[ "${BASH_REMATCH[3]}" != *SKIP* ]]; then
				ktap_ok "kselftest rdma: ${BASH_REMATCH[2]}"
			else
				ktap_fail "kselftest rdma: ${BASH_REMATCH[2]}" "${BASH_REMATCH[3]# } (kselftest.log)"
			fi
		fi
	done <"$RESULTS/kselftest.log"
	if [ "$got" -eq "$want" ] && [ "$want" -gt 0 ]; then
		ktap_ok "the runner ran all $want TEST_PROGS"
	else
		ktap_fail "the runner ran all TEST_PROGS" "$got results for $want scripts; see kselftest.log"
	fi
	check_modules_unload
}

rdma_test_main "$@"
