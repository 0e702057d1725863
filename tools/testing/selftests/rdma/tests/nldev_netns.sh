#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Namespace modes of the RDMA core, driven by iproute2's "rdma": shared
# mode shows every device everywhere; exclusive mode shows a device only
# in the namespace of its netdev; the mode switches from init_net only,
# cannot go back to shared while a device lives in another namespace, a
# deleted namespace hands its devices back to init_net, and monitor events
# (heard by an unprivileged listener) stay in the device's namespace.  Devices of the
# "mock" link type (rdma_nl_mock) on a veth pair.
#
# vms: 1
# stack-a: project
# timeout: 180

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
MONITORS=()

# monitor_in NAME CMD...: an nldev_monitor.py as user nobody, run through
# CMD (a namespace's "ip netns exec NS", or "/" for none), printing into
# $RESULTS/monitor-NAME.txt.
monitor_in() {
	local name=$1 out=$RESULTS/monitor-$1.txt ready

	shift
	[ "$1" = / ] && shift
	# somewhere nobody may write
	ready=$(mktemp -u /tmp/monitor-"$name".XXXXXX)
	"$@" setpriv --reuid=65534 --regid=65534 --clear-groups \
		python3 "$SELFDIR/nldev_monitor.py" --timeout "$(scaled 120)" \
		--ready "$ready" >"$out" 2>&1 &
	MONITORS+=("$!")
	if retry_until 20 test -e "$ready"; then
		ktap_ok "monitor in $name listening as nobody"
	else
		ktap_fail "monitor in $name listening as nobody" "$(cat "$out")"
	fi
}

# monitor_check NAME SEEN UNSEEN: the monitor NAME printed a line matching
# SEEN and none matching UNSEEN.
monitor_check() {
	local out=$RESULTS/monitor-$1.txt

	if ! retry_until 10 grep -q "$2" "$out"; then
		ktap_fail "monitor in $1 saw '$2'" "$(tr '\n' ';' <"$out")"
	elif grep -q "$3" "$out"; then
		ktap_fail "monitor in $1 saw nothing of '$3'" "$(tr '\n' ';' <"$out")"
	else
		ktap_ok "monitor in $1 saw '$2' and nothing of '$3'"
	fi
}

guest() {
	local mark

	mark="nldev_netns $$"
	kmsg_mark "$mark"
	mkdir -p /run/netns
	ktap_check "modprobe ib_core" modprobe ib_core
	ktap_check "ip netns add ns1" ip netns add ns1
	ktap_check "veth pair, one end in ns1" \
		ip link add vh0 type veth peer name vn0 netns ns1
	ip link set vh0 up
	ip -n ns1 link set vn0 up

	# Shared mode: a device made in init_net is seen from ns1 as well.
	expect_out "sys show: shared by default" 'netns shared' rdma sys show
	ktap_check "link add mkh on vh0 (init_net)" \
		rdma link add mkh type mock netdev vh0
	expect_out "shared: ns1 sees mkh" 'mkh' ip netns exec ns1 rdma dev show

	# Mode changes: only from init_net.
	expect_fail "sys set netns exclusive from ns1 is refused" '.' \
		ip netns exec ns1 rdma system set netns exclusive
	ktap_check "sys set netns exclusive" rdma system set netns exclusive
	expect_out "sys show: exclusive" 'netns exclusive' rdma sys show
	expect_none "exclusive: ns1 no longer sees mkh" 'mkh' \
		ip netns exec ns1 rdma dev show
	expect_out "exclusive: init_net still sees mkh" 'mkh' rdma dev show

	# Monitor events stay in the device's namespace; "nobody" may listen.
	monitor_in init /
	monitor_in ns1 ip netns exec ns1

	# A device made inside ns1 belongs to ns1.
	ktap_check "link add mkn on vn0 from ns1" \
		ip netns exec ns1 rdma link add mkn type mock netdev vn0
	expect_out "exclusive: ns1 sees mkn" 'mkn' ip netns exec ns1 rdma dev show
	expect_out "exclusive: ns1 sees mkn's link and netdev" \
		'link mkn/1 .*netdev vn0' ip netns exec ns1 rdma link show
	expect_none "exclusive: init_net does not see mkn" 'mkn' rdma dev show
	expect_fail "exclusive: init_net cannot address mkn" '.' \
		rdma dev show mkn
	expect_fail "back to shared while mkn lives in ns1: busy" 'busy' \
		rdma system set netns shared
	expect_fail "dev set netns: not supported" 'not supported' \
		rdma dev set mkh netns ns1
	ip link add d0 type dummy
	ktap_check "link add mkd on d0 (init_net)" \
		rdma link add mkd type mock netdev d0
	monitor_check init 'REGISTER dev mkd ' 'mkn'
	monitor_check ns1 'REGISTER dev mkn ' 'mkd'
	ktap_check "link delete mkd" rdma link delete mkd
	ip link del d0
	# A listener in ns1 would keep the namespace alive.
	kill "${MONITORS[@]}" 2>/dev/null
	wait "${MONITORS[@]}" 2>/dev/null

	# Deleting ns1 hands mkn back to init_net; then shared mode may return.
	ktap_check "ip netns del ns1" ip netns del ns1
	retry_until 10 sh -c 'rdma dev show | grep -q mkn'
	expect_out "mkn fell back to init_net" 'mkn' rdma dev show
	ktap_check "sys set netns shared" rdma system set netns shared
	expect_out "sys show: shared again" 'netns shared' rdma sys show

	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	ktap_diag "$(kmsg_since "$mark" | tail -n 20)"
	ip link del vh0 2>/dev/null
	check_modules_unload rdma_nl_mock
}

rdma_test_main "$@"
