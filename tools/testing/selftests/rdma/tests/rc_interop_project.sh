#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rc_interop with the project's stack (ib_core + rdma_rxe) on both guests:
# the same five rounds (both ends active in turn, request packets dropped
# by PSN across the PSN wrap, responses and ACKs dropped) and the same
# capture checks; our counters are checked on both guests.
#
# vms: 2
# stack-a: project
# stack-b: project
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export RC_INTEROP_LIB=1 RC_B_STOCK=0
# shellcheck source-path=SCRIPTDIR source=rc_interop.sh
. "$(dirname "$0")/rc_interop.sh"

# The harness runs a host phase for scripts that define one here.
host_phase() { rc_host_checks "$@"; }

rdma_test_main "$@"
