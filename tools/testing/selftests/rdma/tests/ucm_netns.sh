#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RoCE across network namespaces on the project's stack, one guest: a veth
# pair joins init_net (veth0, 10.9.0.1) and namespace ns1 (veth1,
# 10.9.0.2), an rxe device on each end.
#   - the UDP 4791 sockets (IPv4 and IPv6) of a namespace appear with its
#     first rxe device and not before (ss -Huln in that namespace)
#   - Debian's rping, its server in ns1 and its client in init_net, 20
#     verified iterations over IPv4 and over IPv6 (fd09::/64): the
#     request is taken by the listener of the namespace whose netdev owns
#     the destination address
#   - rping to the device's own address in init_net (loopback over rxe0)
#   - deleting the veth pair removes both rxe devices and closes both
#     namespaces' sockets
# Then ns1 is deleted, every RDMA module unloads, the kernel log is clean.
#
# vms: 1
# stack-a: project
# timeout: 300

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/prog.sh
. "$(dirname "$0")/../harness/prog.sh"

NS=ns1
IP0=10.9.0.1
IP1=10.9.0.2
IP60=fd09::1
IP61=fd09::2

# roce_sockets [NS]: the UDP 4791 sockets of init_net (or of NS), one
# local address per line.
roce_sockets() {
	local -a run=()

	[ -n "${1:-}" ] && run=(ip netns exec "$1")
	"${run[@]}" ss -Huln 'sport = :4791' | awk '{ print $4 }' | sort
}

# sockets_are NS WANT: the sockets of NS (init_net when empty) are WANT:
# "v4 v6" (both wildcards on 4791) or "none".
sockets_are() {
	local got v4=0 v6=0

	got=$(roce_sockets "$1")
	grep -q '^0\.0\.0\.0:4791$' <<<"$got" && v4=1
	grep -qE '^(\[::\]|\*):4791$' <<<"$got" && v6=1
	case "$2" in
	none) [ -z "$got" ] ;;
	"v4 v6") [ "$v4$v6" = 11 ] ;;
	esac
}

# expect_sockets DESC NS WANT: one result, sockets_are NS WANT within 10 s.
expect_sockets() {
	if retry_until 10 sockets_are "$2" "$3"; then
		ktap_ok "$1: UDP 4791 sockets: $3"
	else
		ktap_fail "$1: UDP 4791 sockets: $3" "$(roce_sockets "$2" | tr '\n' ' ')"
	fi
}

netns_setup() {
	ktap_check "modprobe rdma_rxe ib_uverbs rdma_ucm" modprobe -a rdma_rxe ib_uverbs rdma_ucm || return 1
	ktap_check "ip netns add $NS" ip netns add "$NS" || return 1
	ktap_check "veth0 (init_net) <-> veth1 ($NS), $IP0 and $IP1" sh -c "
		ip link add veth0 type veth peer name veth1 &&
		ip link set veth1 netns $NS &&
		ip addr add $IP0/24 dev veth0 && ip -6 addr add $IP60/64 dev veth0 nodad &&
		ip link set veth0 up &&
		ip netns exec $NS ip addr add $IP1/24 dev veth1 &&
		ip netns exec $NS ip -6 addr add $IP61/64 dev veth1 nodad &&
		ip netns exec $NS ip link set veth1 up &&
		ip netns exec $NS ip link set lo up" || return 1
	expect_sockets "no rxe device yet" "" none
	ktap_check "rdma link add rxe0 type rxe netdev veth0" rdma link add rxe0 type rxe netdev veth0 || return 1
	expect_sockets "rxe0 in init_net" "" "v4 v6"
	expect_sockets "no rxe device in $NS yet" "$NS" none
	ktap_check "in $NS: rdma link add rxe1 type rxe netdev veth1" \
		ip netns exec "$NS" rdma link add rxe1 type rxe netdev veth1 || return 1
	expect_sockets "rxe1 in $NS" "$NS" "v4 v6"
	retry_until 20 grep -q '^fd09:' /sys/class/infiniband/rxe0/ports/1/gids/* &&
		retry_until 20 grep -q '^fd09:' /sys/class/infiniband/rxe1/ports/1/gids/*
}

# ns_rping NAME ADDR PORT: rping's server in $NS on ADDR, its client in
# init_net, 20 verified iterations.
ns_rping() {
	local name=$1 addr=$2 port=$3 pid

	prog_start "$name-server" ip netns exec "$NS" rping -s -a "$addr" -p "$port" -v
	pid=$PROG_PID
	retry_until 30 sh -c "ip netns exec $NS rdma res show cm_id | grep LISTEN | grep -q ':$port'" ||
		ktap_diag "$name: the server does not listen after 30 s"
	prog_start "$name-client" rping -c -a "$addr" -p "$port" -C 20 -V -v
	prog_check "$name-client" "$PROG_PID" 60 '^ping data: rdma-ping-' 20
	prog_check "$name-server" "$pid" 30 '^server ping data: rdma-ping-' 20
}

guest() {
	local mark="ucm_netns $$" pid

	kmsg_mark "$mark"
	if netns_setup; then
		ns_rping "rping-v4-across" "$IP1" 7400
		ns_rping "rping-v6-across" "$IP61" 7401
		# Loopback: both ends on rxe0, in init_net.
		prog_start rping-loop-server rping -s -a "$IP0" -p 7402 -v
		pid=$PROG_PID
		retry_until 30 cm_listening 7402 || ktap_diag "the loopback server does not listen"
		prog_start rping-loop-client rping -c -a "$IP0" -p 7402 -C 20 -V -v
		prog_check rping-loop-client "$PROG_PID" 60 '^ping data: rdma-ping-' 20
		prog_check rping-loop-server "$pid" 30 '^server ping data: rdma-ping-' 20
		ktap_check "ip link del veth0 (and its peer)" ip link del veth0
		if retry_until 20 sh -c '! rdma link show | grep -qE "rxe[01]/"'; then
			ktap_ok "rxe0 and rxe1 went with their netdevs"
		else
			ktap_fail "rxe0 and rxe1 went with their netdevs" "$(rdma link show 2>&1 | tr '\n' ' ')"
		fi
		expect_sockets "no rxe device left in init_net" "" none
		expect_sockets "no rxe device left in $NS" "$NS" none
	else
		ktap_fail "set up the namespaces and devices" "see above"
	fi
	ip netns del "$NS" 2>/dev/null
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
