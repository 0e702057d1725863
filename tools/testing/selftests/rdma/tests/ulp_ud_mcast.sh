#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Multicast UD between the kernel test ULP (ulp/rdma_ud_ulp.c, mgid=) on
# two guests: the echo side attaches two UD QPs to a group
# (ib_attach_mcast), the send side sends datagrams of every size to the
# group (QPN 0xffffff, the group's MAC, an AH from rdma_create_ah) and
# expects every datagram back twice, once from each attached QP.  The
# echo side checks that each datagram was addressed to the group.
#
# Guest a runs the project's stack, guest b Debian's stock one:
#   1  IPv4 group 239.1.2.3: b sends, a echoes
#   2  IPv4 group 239.1.2.3: a sends, b echoes
#   3  IPv6 group ff0e::1:2:3 (link-local GIDs): b sends, a echoes
#   4  IPv6 group ff0e::1:2:3: a sends, b echoes
# The receiving guest joins the group at the IP level (ip address add
# ... autojoin), as the RDMA CM does with IGMP/MLD for RoCE multicast.
# Each datagram counts once in rcvd_pkts on either stack, however many
# QPs it is delivered to.  Host checks: the group's packets on the wire
# with the group's MAC and QPN 0xffffff, every ICRC recomputed.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
export ULP_UD_ECHO_LIB=1
# shellcheck source-path=SCRIPTDIR source=ulp_ud_echo.sh
. "$(dirname "$0")/ulp_ud_echo.sh"

PORT=18800
COUNT=${ULP_COUNT:-16}
GROUP4=239.1.2.3
GROUP6=ff0e::1:2:3
NQP=2

group_of() {
	if [ "$1" = ipv6 ]; then echo "$GROUP6"; else echo "$GROUP4"; fi
}

rcvd_pkts() {
	cat /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts
}

# mcast_echo ROUND FAM: join the group, load the ULP in echo mode with NQP
# QPs attached, tell the peer, wait until it is done.
mcast_echo() {
	local r=$1 fam=$2 g ko p=$((PORT + 2 * $1)) dest=$PEER_IP r0 r1 d

	g=$(group_of "$fam")
	[ "$fam" = ipv6 ] && dest=$(mac_to_ll "$PEER_MAC")
	ktap_check "round $r: join $g on $NETDEV" \
		ip address add "$g/$([ "$fam" = ipv6 ] && echo 128 || echo 32)" dev "$NETDEV" autojoin
	ko=$(find "$(ulp_stage)/lib/modules/$KVER" -name rdma_ud_ulp.ko | head -n 1)
	r0=$(rcvd_pkts)
	ktap_check "round $r: insmod rdma_ud_ulp mode=echo mgid=$g nqp=$NQP" \
		insmod "$ko" mode=echo gid="$fam" nqp="$NQP" mgid="$g" \
		dest="$dest" dmac="$PEER_MAC" || return 1
	if dmesg | grep -q "$NQP QPs attached to $g"; then
		ktap_ok "round $r: $NQP QPs attached to $g"
	else
		ktap_fail "round $r: $NQP QPs attached to $g" "$(dmesg | grep rdma_ud_ulp | tail -n 1)"
	fi
	# what ulp_ud_echo's peer_qpns() on the sending side waits for
	timeout "$(scaled 60)" busybox nc -l -p "$p" </sys/module/rdma_ud_ulp/parameters/qpns >/dev/null
	timeout "$(scaled 120)" busybox nc -l -p $((p + 1)) </dev/null >/dev/null
	r1=$(rcvd_pkts)
	ktap_check "round $r: rmmod rdma_ud_ulp (detaches, destroys)" rmmod rdma_ud_ulp
	if dmesg | grep -q "echoed $((NQP * COUNT)) datagrams"; then
		ktap_ok "round $r: echoed $((NQP * COUNT)) datagrams ($COUNT to each of $NQP QPs)"
	else
		ktap_fail "round $r: echoed $((NQP * COUNT)) datagrams" \
			"$(dmesg | grep 'rdma_ud_ulp.*echoed' | tail -n 1)"
	fi
	if dmesg | grep -q " 0 datagrams not sent to the group"; then
		ktap_ok "round $r: every datagram was addressed to $g"
	else
		ktap_fail "round $r: every datagram was addressed to $g" \
			"$(dmesg | grep 'not sent to the group' | tail -n 1)"
	fi
	# The echoes' own packets go out, not in: what came in is the
	# group's datagrams, each counted once.
	d=$((r1 - r0))
	if [ "$d" -eq "$COUNT" ]; then
		ktap_ok "round $r: rcvd_pkts counted each datagram once ($d)"
	else
		ktap_fail "round $r: rcvd_pkts counted each datagram once" "moved by $d for $COUNT datagrams to $NQP QPs"
	fi
	ktap_check "round $r: leave $g" \
		ip address del "$g/$([ "$fam" = ipv6 ] && echo 128 || echo 32)" dev "$NETDEV"
	dmesg -C
}

# mcast_send ROUND FAM: wait for the peer, send COUNT datagrams to the group.
mcast_send() {
	local r=$1 fam=$2 g p=$((PORT + 2 * $1))

	g=$(group_of "$fam")
	# the group members are attached once the peer hands out their QPNs
	peer_qpns "$r" || return 1
	STAGE=$(ulp_stage) run_ktap_module rdma_ud_ulp mode=send gid="$fam" \
		nqp="$NQP" mgid="$g" copies="$NQP" count="$COUNT" size=1024
	cp "$RESULTS/rdma_ud_ulp.dmesg" "$RESULTS/send-round$r.dmesg"
	wait_for_peer_tcp "$PEER_IP" $((p + 1)) 30
	dmesg -C
}

mcast_setup() {
	setup || return 1
	# IPv4 multicast needs a route out; IPv6 has ff00::/8 on every link.
	ktap_check "route 224.0.0.0/4 via $NETDEV" \
		ip route add 224.0.0.0/4 dev "$NETDEV"
}

guest_a() {
	mcast_setup || return
	mcast_echo 1 ipv4
	mcast_send 2 ipv4
	mcast_echo 3 ipv6
	mcast_send 4 ipv6
	check_modules_unload
}

guest_b() {
	mcast_setup || return
	mcast_send 1 ipv4
	mcast_echo 2 ipv4
	mcast_send 3 ipv6
	mcast_echo 4 ipv6
	check_modules_unload
}

mcast_host_checks() {
	local res=$1 pcap=$1/wire.pcap n out want=$((2 * COUNT))
	local -a tsh=(roce_tshark "$pcap")

	n=$("${tsh[@]}" -Y "udp.dstport == 4791 && ip.dst == $GROUP4 && eth.dst == 01:00:5e:01:02:03 && infiniband.bth.destqp == 0xffffff" 2>/dev/null | wc -l)
	if [ "$n" -eq "$want" ]; then
		ktap_ok "IPv4 group: $n datagrams to $GROUP4, MAC 01:00:5e:01:02:03, QPN 0xffffff"
	else
		ktap_fail "IPv4 group datagrams on the wire" "$n, want $want"
	fi
	n=$("${tsh[@]}" -Y "udp.dstport == 4791 && ipv6.dst == $GROUP6 && eth.dst == 33:33:00:02:00:03 && infiniband.bth.destqp == 0xffffff" 2>/dev/null | wc -l)
	if [ "$n" -eq "$want" ]; then
		ktap_ok "IPv6 group: $n datagrams to $GROUP6, MAC 33:33:00:02:00:03, QPN 0xffffff"
	else
		ktap_fail "IPv6 group datagrams on the wire" "$n, want $want"
	fi
	for s in 10.0.0.1 10.0.0.2; do
		n=$("${tsh[@]}" -Y "udp.dstport == 4791 && ip.dst == $GROUP4 && ip.src == $s" 2>/dev/null | wc -l)
		if [ "$n" -eq "$COUNT" ]; then
			ktap_ok "$s sent $COUNT datagrams to the group"
		else
			ktap_fail "$s sent $COUNT datagrams to the group" "$n"
		fi
	done
	out=$(python3 "$ULP_HARNESS/roce_pcap.py" "$pcap")
	printf '%s\n' "$out" >"$res/roce_pcap.txt"
	ktap_diag "roce_pcap: $(echo "$out" | grep -v '^bad' | tr '\n' ' ')"
	if [ "$(echo "$out" | awk '$1 == "icrc_bad" { print $2 }')" = 0 ] &&
		[ "$(echo "$out" | awk '$1 == "icrc_ok" { print $2 }')" -ge $((6 * want)) ]; then
		ktap_ok "independent ICRC check agrees with every RoCE packet"
	else
		ktap_fail "independent ICRC check agrees with every RoCE packet" \
			"$(echo "$out" | grep -E '^(icrc|bad)' | tr '\n' ' ')"
	fi
}

host_phase() { mcast_host_checks "$@"; }

rdma_test_main "$@"
