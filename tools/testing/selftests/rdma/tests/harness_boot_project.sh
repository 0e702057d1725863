#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One guest on the project's stack: Debian's inbox RDMA modules must be out
# of reach, `modprobe ib_core` must load ours from updates/, the KTAP module
# ib_core must taint the kernel as out-of-tree, and every RDMA module must
# unload cleanly.  The KTAP test modules themselves run in core_ktap.
#
# vms: 1
# stack-a: project
# timeout: 90

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

guest() {
	local kdir=/lib/modules/$KVER f taint

	ktap_check "stack is project" test "$RDMA_STACK" = project
	if [ -e "$kdir/kernel/drivers/infiniband" ]; then
		ktap_fail "inbox drivers/infiniband absent" "$kdir/kernel/drivers/infiniband exists"
	else
		ktap_ok "inbox drivers/infiniband absent"
	fi
	f=$(modinfo -n ib_core 2>&1)
	if [[ "$f" == "$kdir/updates/"* ]]; then
		ktap_ok "modinfo -n ib_core points under updates/"
	else
		ktap_fail "modinfo -n ib_core points under updates/" "$f"
	fi
	if ktap_check "modprobe ib_core" modprobe ib_core; then
		# Out-of-tree modules taint the kernel with O; Debian's do not.
		taint=$(cat /sys/module/ib_core/taint 2>/dev/null)
		if [[ "$taint" == *O* ]]; then
			ktap_ok "loaded ib_core is out-of-tree (taint $taint)"
		else
			ktap_fail "loaded ib_core is out-of-tree" "taint '$taint'"
		fi
	fi
	check_modules_unload
}

rdma_test_main "$@"
