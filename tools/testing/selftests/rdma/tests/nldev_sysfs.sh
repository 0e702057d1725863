#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# sysfs and netlink tell the same story while the netdev under a RoCE
# device changes, on the project's stack (a "mock" link on $NETDEV):
# after every IPv4/IPv6 address added or removed, the GID table in
# /sys/class/infiniband/mk0/ports/1/{gids,gid_attrs/types,gid_attrs/ndevs}
# must hold exactly one RoCE v1 and one RoCE v2 entry per address of the
# netdev (plus the default GID from its MAC), each on that netdev, and the
# netdev "rdma link show" reports must be that netdev.  Port state: the
# mock reports ACTIVE/LINK_UP while the netdev is up with carrier and
# DOWN/DISABLED otherwise, so "ip link set down/up" must move both views.
#
# vms: 1
# stack-a: project
# timeout: 240

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

DEV=mk0

# gid_views: prints the differences between the GID table in sysfs and
# what the netdev's addresses call for, plus the netlink netdev; exit 0
# when they agree.
gid_views() {
	python3 - "$DEV" "$NETDEV" <<'EOF'
import ipaddress, json, os, subprocess, sys
dev, ndev = sys.argv[1], sys.argv[2]
port = "/sys/class/infiniband/%s/ports/1" % dev
have = set()
for i in sorted(os.listdir(port + "/gids"), key=int):
    try:
        gid = open("%s/gids/%s" % (port, i)).read().strip()
    except OSError:
        continue    # an empty slot may read as an error
    if ipaddress.IPv6Address(gid) == ipaddress.IPv6Address("::"):
        continue
    try:
        typ = open("%s/gid_attrs/types/%s" % (port, i)).read().strip()
        nd = open("%s/gid_attrs/ndevs/%s" % (port, i)).read().strip()
    except OSError as e:
        typ = nd = "error %s" % e.errno
    have.add((gid, typ, nd))
addrs = json.loads(subprocess.check_output(["ip", "-j", "addr", "show", "dev", ndev]))
want = set()
ips = []
for a in addrs[0].get("addr_info", []):
    if a["family"] == "inet":
        ips.append(ipaddress.IPv6Address("::ffff:" + a["local"]))
    elif a["family"] == "inet6" and "tentative" not in a and not a.get("dadfailed"):
        ips.append(ipaddress.IPv6Address(a["local"]))
mac = bytes.fromhex(addrs[0]["address"].replace(":", ""))
eui = bytes([mac[0] ^ 2]) + mac[1:3] + b"\xff\xfe" + mac[3:]
ips.append(ipaddress.IPv6Address(b"\xfe\x80" + b"\0" * 6 + eui))
for ip in ips:
    for typ in ("IB/RoCE v1", "RoCE v2"):
        want.add((ip.exploded, typ, ndev))
link = json.loads(subprocess.check_output(["rdma", "-j", "link", "show", dev + "/1"]))[0]
bad = False
for x in sorted(want - have):
    print("missing in sysfs: %s %s %s" % x)
    bad = True
for x in sorted(have - want):
    print("extra in sysfs: %s %s %s" % x)
    bad = True
if link.get("netdev") != ndev:
    print("netlink netdev %s, expected %s" % (link.get("netdev"), ndev))
    bad = True
print("%d GID entries, netlink: %s" % (len(have), link))
sys.exit(1 if bad else 0)
EOF
}

# agree DESC: the views agree (the core updates GIDs from a work item).
agree() {
	local out

	if retry_until 10 gid_views >/dev/null 2>&1; then
		ktap_ok "$1"
	else
		out=$(gid_views 2>&1)
		ktap_fail "$1" "$(head -n 4 <<<"$out" | tr '\n' ';')"
	fi
	ktap_diag "$(gid_views 2>&1 | tail -n 1)"
}

# port_state STATE PHYS PHYSNUM: netlink says STATE / PHYS, sysfs says
# STATE and physical state number PHYSNUM (sysfs spells the physical
# states "LinkUp", "Disabled"..., iproute2 "LINK_UP", "DISABLED"...).
port_state() {
	local nl sys_state sys_phys

	nl=$(rdma link show "$DEV/1" 2>&1)
	sys_state=$(cut -d' ' -f2 "/sys/class/infiniband/$DEV/ports/1/state")
	sys_phys=$(cut -d: -f1 "/sys/class/infiniband/$DEV/ports/1/phys_state")
	grep -q "state $1 physical_state $2 " <<<"$nl " &&
		[ "$sys_state" = "$1" ] && [ "$sys_phys" = "$3" ]
}

check_state() {
	if retry_until 10 port_state "$1" "$2" "$3"; then
		ktap_ok "port state $1/$2 in netlink and sysfs ($4)"
	else
		ktap_fail "port state $1/$2 in netlink and sysfs ($4)" \
			"netlink: $(rdma link show "$DEV/1" 2>&1); sysfs: $(cat "/sys/class/infiniband/$DEV/ports/1/state" "/sys/class/infiniband/$DEV/ports/1/phys_state" | tr '\n' ' ')"
	fi
}

# result DESC DETAIL CMD...: ok if CMD succeeds, else not ok with DETAIL.
result() {
	local desc=$1 detail=$2

	shift 2
	if "$@"; then
		ktap_ok "$desc"
	else
		ktap_fail "$desc" "$detail"
	fi
}

guest() {
	local mark

	mark="nldev_sysfs $$"
	kmsg_mark "$mark"
	ktap_check "modprobe ib_core" modprobe ib_core
	ktap_check "rdma link add $DEV type mock netdev $NETDEV" \
		rdma link add "$DEV" type mock netdev "$NETDEV"
	ktap_diag "$(ip addr show dev "$NETDEV")"
	agree "at start: $MY_IP and the link-local address"
	check_state ACTIVE LINK_UP 5 "at start"

	ktap_check "ip addr add 10.9.8.7/24" ip addr add 10.9.8.7/24 dev "$NETDEV"
	agree "after adding 10.9.8.7"
	ktap_check "ip addr add 2001:db8::7/64 nodad" \
		ip addr add 2001:db8::7/64 dev "$NETDEV" nodad
	agree "after adding 2001:db8::7"
	ktap_check "ip addr add 10.9.9.9/24" ip addr add 10.9.9.9/24 dev "$NETDEV"
	agree "after adding 10.9.9.9"
	ktap_check "ip addr del 10.9.8.7/24" ip addr del 10.9.8.7/24 dev "$NETDEV"
	agree "after removing 10.9.8.7"
	ktap_check "ip addr del 2001:db8::7/64" ip addr del 2001:db8::7/64 dev "$NETDEV"
	agree "after removing 2001:db8::7"
	ktap_check "ip addr del 10.9.9.9/24" ip addr del 10.9.9.9/24 dev "$NETDEV"
	agree "after removing 10.9.9.9"

	ktap_check "ip link set $NETDEV down" ip link set "$NETDEV" down
	check_state DOWN DISABLED 3 "netdev down"
	ktap_check "ip link set $NETDEV up" ip link set "$NETDEV" up
	check_state ACTIVE LINK_UP 5 "netdev up again"
	# IPv6 addresses come back after up (link-local after DAD).
	agree "after the netdev came back up"

	ktap_check "rdma link delete $DEV" rdma link delete "$DEV"
	result "sysfs: $DEV gone" "$(ls /sys/class/infiniband)" \
		test ! -e "/sys/class/infiniband/$DEV"
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	check_modules_unload rdma_nl_mock rdma_mock
}

rdma_test_main "$@"
