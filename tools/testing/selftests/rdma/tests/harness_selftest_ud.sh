#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Harness self-test on the stock Debian stack: two guests, soft-RoCE (rxe)
# devices made with iproute2's `rdma link add` (which must autoload rdma_rxe
# through request_module -> /sbin/modprobe), an ibv_ud_pingpong between them,
# and a check of the wire capture with tshark on the host.
#
# vms: 2
# stack-a: stock
# stack-b: stock
# timeout: 90

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

ITERS=${UD_ITERS:-200}
SIZE=1024
PORT=18515

# Both sides: rxe0 on the NIC, ib_uverbs, the IPv4-mapped GID at index 1.
setup_rxe() {
	local want gid o1 o2 o3 o4

	ktap_check "stack is stock" test "$RDMA_STACK" = stock
	ktap_check "rdma, ibv_ud_pingpong installed (iproute2, ibverbs-utils)" \
		require_cmd rdma ibv_ud_pingpong || return 1
	if module_loaded rdma_rxe; then
		ktap_fail "rdma_rxe not loaded before rdma link add" "it already is"
	else
		ktap_ok "rdma_rxe not loaded before rdma link add"
	fi
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	if module_loaded rdma_rxe; then
		ktap_ok "rdma_rxe autoloaded through request_module(rdma-link-rxe)"
	else
		ktap_fail "rdma_rxe autoloaded through request_module(rdma-link-rxe)" "not in /proc/modules"
	fi
	ktap_check "modprobe ib_uverbs" modprobe ib_uverbs || return 1
	# ::ffff:a.b.c.d, as the sysfs GID table prints it.
	IFS=. read -r o1 o2 o3 o4 <<<"$MY_IP"
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$o1" "$o2" "$o3" "$o4")
	retry_until 10 test "$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null)" = "$want"
	gid=$(cat /sys/class/infiniband/rxe0/ports/1/gids/1 2>/dev/null)
	if [ "$gid" = "$want" ]; then
		ktap_ok "GID index 1 is the IPv4-mapped $MY_IP"
	else
		ktap_fail "GID index 1 is the IPv4-mapped $MY_IP" "gids/1 is '$gid'"
		return 1
	fi
	ktap_diag "$(rdma link show)"
}

# check_pingpong LOG SIDE: exit code and iteration count of a ping-pong.
check_pingpong() {
	local log=$1 side=$2 rc=$3 iters

	ktap_diag "$(sed "s/^/  /" "$log")"
	if [ "$rc" -ne 0 ]; then
		ktap_fail "ibv_ud_pingpong $side exits 0" "exit $rc: $(tail -n 2 "$log")"
		return 1
	fi
	ktap_ok "ibv_ud_pingpong $side exits 0"
	iters=$(sed -n 's/^\([0-9]*\) iters in .*/\1/p' "$log")
	if [ "$iters" = "$ITERS" ]; then
		ktap_ok "ibv_ud_pingpong $side ran $ITERS iterations"
	else
		ktap_fail "ibv_ud_pingpong $side ran $ITERS iterations" "reported '${iters:-nothing}'"
	fi
	# QPNs for the host phase: "local address: ..., QPN 0x000011, ..."
	sed -n 's/.*local address:.*QPN \(0x[0-9a-f]*\).*/local_qpn=\1/p;
		s/.*remote address:.*QPN \(0x[0-9a-f]*\).*/remote_qpn=\1/p' "$log" >"$RESULTS/qpn"
	grep -h 'usec/iter' "$log" >"$RESULTS/rtt"
}

guest_a() {
	local rc=0

	setup_rxe || return
	timeout "$(scaled 60)" ibv_ud_pingpong -d rxe0 -g 1 -s "$SIZE" -n "$ITERS" -p "$PORT" \
		>"$RESULTS/pingpong.log" 2>&1 || rc=$?
	check_pingpong "$RESULTS/pingpong.log" server "$rc"
}

guest_b() {
	local rc end=$((SECONDS + $(scaled 45)))

	setup_rxe || return
	# The server may not listen yet: retry while the connection is refused.
	while :; do
		rc=0
		timeout "$(scaled 60)" ibv_ud_pingpong -d rxe0 -g 1 -s "$SIZE" -n "$ITERS" -p "$PORT" "$PEER_IP" \
			>"$RESULTS/pingpong.log" 2>&1 || rc=$?
		if [ "$rc" -eq 0 ] || [ "$SECONDS" -ge "$end" ] ||
			! grep -q "Couldn't connect" "$RESULTS/pingpong.log"; then
			break
		fi
		sleep 0.5
	done
	check_pingpong "$RESULTS/pingpong.log" client "$rc"
}

host_phase() {
	local res=$1 pcap=$1/wire.pcap f n ab ba qa qb bad
	local -a tsh=(roce_tshark "$pcap")

	require_cmd tshark || { ktap_fail "tshark available" "install tshark"; return; }
	if [ ! -s "$pcap" ]; then
		ktap_fail "wire capture present" "no $pcap"
		return
	fi
	ktap_ok "wire capture present"
	f=$res/roce.txt
	"${tsh[@]}" -Y 'udp.dstport == 4791' -T fields -E separator=' ' \
		-e ip.src -e ip.dst -e infiniband.bth.opcode -e infiniband.bth.destqp \
		-e infiniband.deth.srcqp -e infiniband.bth.psn >"$f" 2>"$res/tshark.err"
	n=$(wc -l <"$f")
	ab=$(awk '$1 == "10.0.0.1" && $2 == "10.0.0.2"' "$f" | wc -l)
	ba=$(awk '$1 == "10.0.0.2" && $2 == "10.0.0.1"' "$f" | wc -l)
	ktap_diag "RoCE v2 packets on UDP 4791: $n ($ab a->b, $ba b->a)"
	if [ "$ab" -ge "$ITERS" ] && [ "$ba" -ge "$ITERS" ]; then
		ktap_ok "RoCE v2 both ways, at least $ITERS packets each"
	else
		ktap_fail "RoCE v2 both ways, at least $ITERS packets each" "$ab a->b, $ba b->a"
	fi
	n=$(awk '$3 == 100' "$f" | wc -l)
	if [ "$n" -ge $((2 * ITERS)) ]; then
		ktap_ok "BTH opcode 100 (UD SEND only) on $n packets"
	else
		ktap_fail "BTH opcode 100 (UD SEND only) on $n packets" "want at least $((2 * ITERS))"
	fi
	bad=$(roce_flagged "$pcap")
	if [ "$bad" = 0 ]; then
		ktap_ok "no malformed packet, no expert info on RoCE"
	else
		ktap_fail "no malformed packet, no expert info on RoCE" "$bad packets, first: $("${tsh[@]}" -Y "$ROCE_FLAGGED" 2>/dev/null | head -n 1)"
	fi
	# The QPNs each side printed: a's local QPN is the destination of b->a.
	qa=$(sed -n 's/^local_qpn=//p' "$res/a/qpn" 2>/dev/null)
	qb=$(sed -n 's/^local_qpn=//p' "$res/b/qpn" 2>/dev/null)
	if [ -z "$qa" ] || [ -z "$qb" ]; then
		ktap_fail "dest QPNs as negotiated" "no QPN in the ping-pong logs"
		return
	fi
	bad=0
	while read -r src _ op dqp sqp _; do
		[ "$op" = 100 ] || continue
		if [ "$src" = 10.0.0.1 ]; then
			((dqp == qb && sqp == qa)) || bad=$((bad + 1))
		else
			((dqp == qa && sqp == qb)) || bad=$((bad + 1))
		fi
	done <"$f"
	if [ "$bad" -eq 0 ]; then
		ktap_ok "dest QPNs as negotiated (a QPN $qa, b QPN $qb), DETH source QPs match"
	else
		ktap_fail "dest QPNs as negotiated (a QPN $qa, b QPN $qb)" "$bad packets with other QPNs"
	fi
}

rdma_test_main "$@"
