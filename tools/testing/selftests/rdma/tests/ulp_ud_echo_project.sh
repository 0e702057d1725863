#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ulp_ud_echo with the project's stack (ib_core + rdma_rxe) on both
# guests: the same four rounds (IPv4 and IPv6 GIDs, several QPs, both
# directions) and the same capture checks.
#
# vms: 2
# stack-a: project
# stack-b: project
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1 ULP_B_STOCK=0
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

# The harness runs a host phase for scripts that define one here.
host_phase() { ulp_host_checks "$@"; }

rdma_test_main "$@"
