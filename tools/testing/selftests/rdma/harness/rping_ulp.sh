# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The rping-protocol test ULP (ulp/rdma_rping_ulp.c) in a two-guest test,
# over whichever RDMA device the test runs on (ulp_rping: rxe0, siw_ulp:
# siw0).  Sourced after lib.sh; the test sets:
#   RP_SYNC          barrier ports: RP_SYNC + N
#   RP_DEV           the guest's device on $NETDEV (rp_remove_dev)
#   RP_DEV_RELEASED  MARK DEV: the driver freed DEV with no object left
#                    since the kernel log marker MARK (rxe_released_clean,
#                    siw_released_clean)
#   RP_DEV_BACK      the test's function that adds RP_DEV back
#   RP_REMOVE_SECS   what "rdma link delete" may take under a connection
#
#   rp_barrier N [SECS]         both guests at barrier N (a failure if not)
#   rp_my FAM, rp_peer FAM      this guest's, the other's address: v4, v6
#                               (fd00::N) or ll (link-local, needs
#                               mac_to_ll from ulp_ud_echo.sh)
#   rp_client NAME PARAM=V...   a client run of the ULP, its log kept
#   rp_server_begin PARAM=V..., rp_server_end NAME   a server run
#   rp_ulp_live                 the ULP (count=0) says its connection runs
#   rp_remove_dev NAME          RP_DEV deleted under the ULP's connection

# rp_barrier N [SECS=400]: a failure when the other guest did not come
# (the guests are out of step from then on).
rp_barrier() {
	rdma_barrier $((RP_SYNC + $1)) "$(scaled "${2:-400}")" ||
		ktap_fail "barrier $1: both guests there" "not within $(scaled "${2:-400}") s"
}

# The guests' addresses: v4, v6 (fd00::1 and fd00::2) and link-local.
rp_my() {
	case $1 in
	v4) echo "$MY_IP" ;;
	v6) echo "fd00::${MY_IP##*.}" ;;
	ll) echo "$(mac_to_ll "$MY_MAC")%$NETDEV" ;;
	esac
}

rp_peer() {
	case $1 in
	v4) echo "$PEER_IP" ;;
	v6) echo "fd00::${PEER_IP##*.}" ;;
	ll) echo "$(mac_to_ll "$PEER_MAC")%$NETDEV" ;;
	esac
}

# rp_client NAME PARAM=VALUE...: a client run of the ULP, its log kept.
rp_client() {
	local name=$1

	shift
	KTAP_MODULE_TIMEOUT=${RP_TIMEOUT:-$(scaled 300)} \
		run_ktap_module rdma_rping_ulp "$@"
	cp "$RESULTS/rdma_rping_ulp.dmesg" "$RESULTS/ulp-client-$name.dmesg"
}

# rp_server_begin PARAM=VALUE...: load the ULP as a server, until it
# listens; rp_server_end NAME then waits for its report.
rp_server_begin() {
	KTAP_MODULE_TIMEOUT=$(scaled 300) ktap_module_begin rdma_rping_ulp \
		wait="$(scaled 240)" "$@" || return
	retry_until 30 rp_ulp_listening ||
		ktap_diag "the ULP server did not say it listens"
}

rp_ulp_listening() {
	kmsg_since "$_KTAP_MOD_MARK" | grep -q 'ok 1 listen'
}

rp_server_end() {
	ktap_module_end rdma_rping_ulp
	cp "$RESULTS/rdma_rping_ulp.dmesg" "$RESULTS/ulp-server-$1.dmesg"
}

# The ULP (count=0) said its connection is running.
rp_ulp_live() {
	kmsg_since "$_KTAP_MOD_MARK" | grep -q 'rdma_rping_ulp: connection [0-9]* live'
}

# rp_wait_live NAME: one result, the ULP's connection runs (60 s).
rp_wait_live() {
	if retry_until 60 rp_ulp_live; then
		ktap_ok "$1: connection live"
	else
		ktap_fail "$1: connection live" \
			"$(kmsg_since "$_KTAP_MOD_MARK" | tail -n 3 | tr '\n' ' ')"
	fi
}

# rp_dev_gone NAME DEV: one result, neither sysfs nor resource tracking
# (objects, CM IDs) knows DEV any more.
rp_dev_gone() {
	if [ -e "/sys/class/infiniband/$2" ] ||
		{ rdma res show; rdma res show cm_id; } 2>&1 | grep -qw "$2"; then
		ktap_fail "$1: rdma res show lists nothing of $2" \
			"$({ rdma res show; rdma res show cm_id; } 2>&1 | tr '\n' ' ')"
	else
		ktap_ok "$1: rdma res show lists nothing of $2"
	fi
}

# rp_remove_dev NAME: the ULP that ktap_module_begin loaded with count=0
# expect=removal runs a connection; RP_DEV is deleted under it, in
# RP_REMOVE_SECS at most.  Then the ULP's report (its DEVICE_REMOVAL
# results, the log kept as ulp-NAME.dmesg), RP_DEV gone with no verbs
# object left, and RP_DEV back (RP_DEV_BACK).
rp_remove_dev() {
	local name=$1 mark t

	rp_wait_live "$name"
	mark="remove $RP_DEV $name $$.$RANDOM"
	kmsg_mark "$mark"
	t=$SECONDS
	if _bg_timeout "$RP_REMOVE_SECS" rdma link delete "$RP_DEV"; then
		ktap_ok "$name: rdma link delete $RP_DEV returned in $((SECONDS - t)) s"
	else
		ktap_fail "$name: rdma link delete $RP_DEV returned in $(scaled "$RP_REMOVE_SECS") s" \
			"$(kmsg_since "$mark" | tail -n 3 | tr '\n' ' ')"
	fi
	ktap_module_end rdma_rping_ulp
	cp "$RESULTS/rdma_rping_ulp.dmesg" "$RESULTS/ulp-$name.dmesg"
	if retry_until 30 "$RP_DEV_RELEASED" "$mark" "$RP_DEV"; then
		ktap_ok "$name: $RP_DEV freed with 0 verbs objects left"
	else
		ktap_fail "$name: $RP_DEV freed with 0 verbs objects left" \
			"$(kmsg_since "$mark" | grep "$RP_DEV released" | tail -n 1)"
	fi
	rp_dev_gone "$name" "$RP_DEV"
	"$RP_DEV_BACK"
}
