#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The address-handle contract (API.md section 2) on a real soft-RoCE
# device: rxe0 on eth0, then the KTAP module rdma_rxe_ah_test (bad port,
# missing GRH, bad and empty GID slots, atomic contexts, PD usecnt, the
# AH's GID reference, MAC resolution, modify, query, reply AHs); then
# rxe0 must hold no object (check_rxe_no_objects: resource tracking, then
# the count rdma_rxe logs when it frees the device, AHs included) and
# every module must unload.
#
# vms: 1
# stack-a: project
# timeout: 120

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

guest() {
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return
	ktap_check "rxe0 has its IPv4 GID" \
		retry_until 10 grep -q ffff /sys/class/infiniband/rxe0/ports/1/gids/*
	run_ktap_module rdma_rxe_ah_test ibdev=rxe0
	check_rxe_no_objects rxe0
	check_modules_unload
}

rdma_test_main "$@"
