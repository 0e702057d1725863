#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every KTAP test module staged under updates/selftests, on the project's
# stack, one after the other; then every RDMA module must unload cleanly.
# A new test module needs no change here: staging it is enough.
# rdma_rxe_*_test modules need an rxe device: rxe_ah_ktap.sh,
# rxe_ah_stress.sh and rxe_loop_ktap.sh run them.
#
# vms: 1
# stack-a: project
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

guest() {
	local dir=$STAGE/lib/modules/$KVER/updates/selftests ko mod n=0

	for ko in "$dir"/rdma_*_test.ko; do
		[ -e "$ko" ] || continue
		mod=$(basename "$ko" .ko)
		[[ "$mod" == rdma_rxe_* ]] && continue
		n=$((n + 1))
		run_ktap_module "$mod"
	done
	if [ "$n" -eq 0 ]; then
		ktap_fail "KTAP test modules staged" "none under $dir"
	fi
	check_modules_unload
}

rdma_test_main "$@"
