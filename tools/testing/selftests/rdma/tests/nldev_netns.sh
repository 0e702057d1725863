#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Namespace modes of the RDMA core, driven by iproute2's "rdma": shared
# mode shows every device everywhere; exclusive mode shows a device only
# in the namespace of its netdev; the mode switches from init_net only,
# cannot go back to shared while a device lives in another namespace, a
# deleted namespace hands its devices back to init_net, and monitor events
# (heard by an unprivileged listener) stay in the device's namespace.
# Devices of the "mock" link type (rdma_nl_mock) on a veth pair.
# In exclusive mode devices move ("rdma dev set DEV netns NS") with their
# sysfs directory; one name may live in two namespaces; a move onto a name
# taken there and a rename onto a name taken in the same namespace are
# refused and change nothing; an rxe device moves with a user context
# open and works in its new namespace (ibv_devinfo, a new uverbs char
# device); a deleted namespace's devices come back to init_net, as
# ibdev<N> when their name is taken there.  In shared mode a new namespace
# sees a copy of every device directory in its sysfs, renamed with it.
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

# ls_ib [NS]: the device directories of /sys/class/infiniband as NS (or
# init_net) sees them, on one line.
ls_ib() {
	local -a run=()

	[ -n "${1:-}" ] && run=(ip netns exec "$1")
	"${run[@]}" find /sys/class/infiniband -mindepth 1 -maxdepth 1 -printf '%f\n' |
		sort | tr '\n' ' '
}

# bad_ns_fds DEV: "rdma dev set DEV netns" with NET_NS_FD the fd of a
# file that is no namespace, then a closed fd (which iproute2 cannot
# send); prints the two errnos.
bad_ns_fds() {
	python3 - "$SELFDIR" "$1" <<'EOF'
import errno, os, sys
sys.path.insert(0, sys.argv[1])
import nldev_lib as L

u = L.Uapi()
sock = L.NlSock()
idx = L.devices(sock, u)[sys.argv[2]]
notns = os.open("/dev/null", os.O_RDONLY)
closed = os.open("/dev/null", os.O_RDONLY)
os.close(closed)
out = []
for fd in (notns, closed):
    r = sock.request(u.c("SET"), L.nla_u32(u.a("DEV_INDEX"), idx) +
                     L.nla_u32(u.a("NET_NS_FD"), fd))
    out.append(errno.errorcode.get(abs(r.error or 0), str(r.error)))
print(" ".join(out))
EOF
}

# Exclusive mode, mkh (init_net, on vh0) and mkn (ns1, on vn0) exist.
moves() {
	expect_out "NET_NS_FD of /dev/null: EINVAL; of a closed fd: EBADF" \
		'^EINVAL EBADF$' bad_ns_fds mkh
	expect_out "after the refusals init_net still has mkh" 'mkh' rdma dev show mkh
	ktap_check "dev set mkh netns ns1" rdma dev set mkh netns ns1
	expect_out "ns1 sees mkh" 'mkh' ip netns exec ns1 rdma dev show mkh
	expect_none "init_net no longer sees mkh" 'mkh' rdma dev show
	expect_out "ns1's sysfs: mkh and mkn" '^mkh mkn $' ls_ib ns1
	expect_none "init_net's sysfs: no mkh, no mkn" 'mk[hn]' ls_ib
	# its netdev stays in init_net, and netlink shows no netdev of
	# another namespace
	expect_out "mkh keeps its port, its netdev unnamed in ns1" \
		'^link mkh/1 state ACTIVE physical_state LINK_UP *$' \
		ip netns exec ns1 rdma link show mkh/1
	# one name in two namespaces
	ip link add d1 type dummy
	ktap_check "link add mkn on d1 in init_net while ns1 has an mkn" \
		rdma link add mkn type mock netdev d1
	expect_out "init_net's mkn is on d1" 'netdev d1' rdma link show mkn/1
	expect_out "ns1's mkn is on vn0" 'netdev vn0' \
		ip netns exec ns1 rdma link show mkn/1
	expect_out "init_net's sysfs: mkn" '^mkn $' ls_ib
	# refusals change nothing
	expect_fail "move mkn to ns1, which has an mkn: refused" 'exists' \
		rdma dev set mkn netns ns1
	expect_out "after the refusal init_net's mkn is still there" 'netdev d1' \
		rdma link show mkn/1
	expect_out "after the refusal ns1's sysfs is unchanged" '^mkh mkn $' ls_ib ns1
	expect_fail "in ns1, rename mkh to mkn: refused" 'exists' \
		ip netns exec ns1 rdma dev set mkh name mkn
	expect_out "after the refusal ns1 still has mkh" 'mkh' \
		ip netns exec ns1 rdma dev show mkh
	ktap_check "in init_net, rename mkn to mk2 and back" sh -c \
		'rdma dev set mkn name mk2 && ls /sys/class/infiniband/mk2 >/dev/null &&
		 rdma dev set mk2 name mkn'
	# a move there and back
	ktap_check "dev set mkh netns init (init_net's name) from ns1" \
		ip netns exec ns1 rdma dev set mkh netns init
	expect_out "mkh is back in init_net" 'mkh' rdma dev show mkh
	ktap_check "dev set mkh netns ns1 again" rdma dev set mkh netns ns1
	rxe_moves
}

# An rxe device with a user context open moves: the context is cut off
# (the program fails), and in ns1 the device works for a new program.
rxe_moves() {
	local pid uverbs

	ktap_check "link add rxm type rxe on vh0" rdma link add rxm type rxe netdev vh0
	# a user context on rxm, held open while the device moves
	python3 -c '
import sys, time, pyverbs.device as d
c = d.Context(name="rxm")
print("open", flush=True)
time.sleep(60)' >"$RESULTS/rxm-holder.log" 2>&1 &
	pid=$!
	if retry_until 20 grep -q open "$RESULTS/rxm-holder.log"; then
		ktap_ok "a pyverbs context holds rxm open"
	else
		ktap_fail "a pyverbs context holds rxm open" "$(tail -n 3 "$RESULTS/rxm-holder.log")"
	fi
	ktap_check "dev set rxm netns ns1 with a user context open" \
		rdma dev set rxm netns ns1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	expect_out "ns1: ibv_devinfo opens rxm, its port is active" 'PORT_ACTIVE' \
		ip netns exec ns1 ibv_devinfo -d rxm
	uverbs=$(grep -lx rxm /sys/class/infiniband_verbs/uverbs*/ibdev 2>/dev/null | head -n 1)
	if [ -n "$uverbs" ]; then
		ktap_ok "rxm has a uverbs char device again (${uverbs%/ibdev})"
	else
		ktap_fail "rxm has a uverbs char device again" "$(grep -H . /sys/class/infiniband_verbs/uverbs*/ibdev 2>&1)"
	fi
	expect_out "ns1's sysfs lists rxm" 'rxm' ls_ib ns1
	ktap_check "link delete rxm from ns1" ip netns exec ns1 rdma link delete rxm
}

# Shared mode again: a new namespace sees every device in its sysfs (a
# copy of the directory, ports included), and its copies go with it.
shared_sysfs() {
	ktap_check "ip netns add ns2" ip netns add ns2
	expect_out "ns2's sysfs lists every device" 'ibdev[0-9]+ mkh mkn' ls_ib ns2
	expect_out "ns2 reads mkh's port state" 'ACTIVE|DOWN' \
		ip netns exec ns2 cat /sys/class/infiniband/mkh/ports/1/state
	ktap_check "in init_net, rename mkh to mkr" rdma dev set mkh name mkr
	expect_out "ns2's copy follows the rename" 'mkr' ls_ib ns2
	ktap_check "ip netns del ns2" ip netns del ns2
	ktap_check "rename mkr back to mkh" rdma dev set mkr name mkh
}

guest() {
	local mark

	mark="nldev_netns $$"
	kmsg_mark "$mark"
	mkdir -p /run/netns
	ktap_check "modprobe ib_core rdma_rxe ib_uverbs" modprobe -a ib_core rdma_rxe ib_uverbs
	# init_net by name, for "rdma dev set DEV netns init"
	touch /run/netns/init
	ktap_check "init_net named init" mount --bind /proc/1/ns/net /run/netns/init
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
	expect_fail "shared: dev set mkh netns ns1 is not supported" 'not supported' \
		rdma dev set mkh netns ns1

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

	moves

	# Deleting ns1 hands mkh and mkn back to init_net; mkn is taken
	# there (mk2 on d1 was renamed mkn), so ns1's mkn comes back as
	# ibdev<N>.  Then shared mode may return.
	ktap_check "ip netns del ns1" ip netns del ns1
	retry_until 10 sh -c 'rdma dev show | grep -q ibdev'
	expect_out "mkh came back to init_net" 'mkh' rdma dev show mkh
	expect_out "init_net's mkn is still on d1" 'netdev d1' rdma link show mkn/1
	expect_out "ns1's mkn came back as ibdev<N>" 'ibdev[0-9]+' rdma dev show
	expect_out "sysfs of init_net: mkh, mkn, ibdev<N>" 'ibdev[0-9]+ mkh mkn' ls_ib
	ktap_check "sys set netns shared" rdma system set netns shared
	expect_out "sys show: shared again" 'netns shared' rdma sys show
	shared_sysfs
	ktap_check "link delete mkn (on d1)" rdma link delete mkn
	ip link del d1

	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	ktap_diag "$(kmsg_since "$mark" | tail -n 20)"
	ip link del vh0 2>/dev/null
	umount /run/netns/init && rm -f /run/netns/init
	check_modules_unload rdma_nl_mock
}

rdma_test_main "$@"
