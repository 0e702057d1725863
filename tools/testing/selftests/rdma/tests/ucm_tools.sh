#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# User-space connection management through rdma_ucm: Debian's unmodified
# rdmacm-utils (librdmacm 44) between guest a, on the project's stack
# (ib_core, ib_cm, rdma_cm, ib_uverbs, rdma_ucm, rdma_rxe), and guest b
# on Debian's stock one, each program once as the server on a with its
# client on b, once the other way round:
#   rping      100 iterations of 64 bytes, data verified (-V), over IPv4
#              and over IPv6 (fd00::/64)
#   udaddy     UD through SIDR, 10 datagrams of 100 bytes each way
#   ucmatose   10 RC connections of 10 messages each, after which the
#              client moves its IDs to a new event channel (-m, MIGRATE_ID)
#              before disconnecting
#   rdma_server / rdma_client   rdma_getaddrinfo and rdma_create_ep
#   mckey      IPv4 multicast, a datagram from b's sender to a's
#              receiver and one from a's to b's (asked for four, Debian's
#              mckey on b put one on the wire, so one each way)
#   rstream, riostream   rsockets over RC, 100 transfers of 4 KiB, both
#              ends verifying the data (-T v)
#   rping-killed   the server is killed (SIGKILL) a second after its
#              endless rping connected: its guest lists no CM ID and no QP
#              of it any more,
#              the client on the other guest gets DISCONNECTED and ends
# Each program is one result on its guest: exit status 0 within its time
# limit and, where the program prints one per message or run, the lines
# that prove it did the work.  Then, on each guest, ucm_write_errors.py
# drives /dev/infiniband/rdma_cm by hand: malformed and refused commands
# get the errno stock gives, a resolution to the guest's own address
# brings the events and queries librdmacm relies on; and rdma-core's
# pyverbs CM tests (test_rdmacm.py, both ends on the guest) run, none may
# fail.  Guest a also checks that its rdma_ucm is
# the project's (under updates/), that /dev/infiniband/rdma_cm and the
# ABI version 4 in sysfs are there, and, after the runs, that resource
# tracking lists no CM ID and no user QP.  Both guests end with the
# module unload and kernel log checks.
#
# vms: 2
# stack-a: project
# stack-b: stock
# timeout: 900

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"
# shellcheck source-path=SCRIPTDIR source=../harness/prog.sh
. "$(dirname "$0")/../harness/prog.sh"

SELFDIR=$(cd "$(dirname "$0")/.." && pwd)
UCM_SYNC=19400		# barriers: UCM_SYNC + 2 * run (+ 1)
UCM_PORT=7300		# the programs' ports: UCM_PORT + run
UCM_GROUP=239.1.2.3
# Seconds a program may run.
UCM_SECS=120

# The guests' IPv6 addresses.
ucm_v6() {
	echo "fd00::${1##*.}"
}

# runs: one per line, "NAME|SERVER|READY|SERVER CMD|CLIENT CMD|PATTERN|N",
# the same list on both guests.  @MY and @PEER are the server's own
# address and its client's peer (the server's), @MY6 and @PEER6 their
# IPv6 forms, @PORT the run's port.  READY says when the server may be
# called: "listen" (its CM ID listens on @PORT, or on 7174 for udaddy)
# or a pattern its output must show.  PATTERN and N: the client's output
# has N lines matching PATTERN (none checked when empty); the server's
# own check is the exit status, and for rping its verified pings.
# PATTERN KILL: the server is killed mid-connection (ucm_killed).
runs() {
	local s

	for s in a b; do
		echo "rping-v4|$s|listen|rping -s -a @MY -p @PORT -v|rping -c -a @PEER -p @PORT -C 100 -V -v|^ping data: rdma-ping-|100"
		echo "rping-v6|$s|listen|rping -s -a @MY6 -p @PORT -v|rping -c -a @PEER6 -p @PORT -C 100 -V -v|^ping data: rdma-ping-|100"
		echo "udaddy|$s|listen|udaddy -b @MY -C 10 -S 100|udaddy -s @PEER -C 10 -S 100|^data transfers complete|1"
		echo "ucmatose|$s|listen|ucmatose -b @MY -p @PORT -c 10 -C 10|ucmatose -s @PEER -p @PORT -c 10 -C 10 -m|^migrating to new event channel|1"
		echo "rdma_client|$s|listen|rdma_server -s @MY -p @PORT|rdma_client -s @PEER -p @PORT|^rdma_client: end 0|1"
		echo "mckey|$s|^receiving data transfers|stdbuf -oL mckey -m $UCM_GROUP -b @MY -C 1|mckey -m $UCM_GROUP -b @CLIENT -s -C 1|^data transfers complete|1"
		echo "rstream|$s|listen|rstream -b @MY -p @PORT -S 4096 -C 100 -T v|rstream -s @PEER -p @PORT -S 4096 -C 100 -T v|^custom[[:space:]]*4k[[:space:]]*100[[:space:]]|1"
		echo "riostream|$s|listen|riostream -b @MY -p @PORT -S 4096 -C 100 -T v|riostream -s @PEER -p @PORT -S 4096 -C 100 -T v|^custom[[:space:]]*4k[[:space:]]*100[[:space:]]|1"
		echo "rping-killed|$s|listen|rping -s -a @MY -p @PORT|rping -c -a @PEER -p @PORT -C 0|KILL|"
	done
}

# ucm_cmd CMD PORT SERVER: CMD with its placeholders filled in.
ucm_cmd() {
	local c=$1 srv_ip=$MY_IP cli_ip=$PEER_IP

	[ "$RDMA_ROLE" = "$3" ] || { srv_ip=$PEER_IP; cli_ip=$MY_IP; }
	c=${c//@MY6/$(ucm_v6 "$srv_ip")}
	c=${c//@PEER6/$(ucm_v6 "$srv_ip")}
	c=${c//@MY/$srv_ip}
	c=${c//@PEER/$srv_ip}
	c=${c//@CLIENT/$cli_ip}
	echo "${c//@PORT/$2}"
}

# ucm_ready NAME READY PORT: the server is ready for its client.
ucm_ready() {
	case "$2" in
	listen) cm_listening "$3" ;;
	*) grep -qE "$2" "$RESULTS/$1.log" 2>/dev/null ;;
	esac
}

# ucm_run N NAME SERVER READY SCMD CCMD PATTERN COUNT: this guest's side
# of run N, its results named NAME@SERVER-server or -client.
ucm_run() {
	local n=$1 srv=$3 ready=$4 port=$((UCM_PORT + $1))
	local sync=$((UCM_SYNC + 2 * $1)) name=$2@$3 cmd pid lport=$port

	[ "$2" = udaddy ] && lport=7174
	if [ "$RDMA_ROLE" = "$srv" ]; then
		read -r -a cmd <<<"$(ucm_cmd "$5" "$port" "$srv")"
		prog_start "$name-server" "${cmd[@]}"
		pid=$PROG_PID
		retry_until 30 ucm_ready "$name-server" "$ready" "$lport" ||
			ktap_diag "$name: the server is not ready after 30 s"
		rdma_barrier "$sync" "$(scaled 90)"
		case "$2" in
		rping-killed) ucm_killed "$name" "$pid" ;;
		rping-v4 | rping-v6)
			prog_check "$name-server" "$pid" "$UCM_SECS" '^server ping data: rdma-ping-' 100
			;;
		*) prog_check "$name-server" "$pid" "$UCM_SECS" ;;
		esac
	else
		rdma_barrier "$sync" "$(scaled 90)"
		read -r -a cmd <<<"$(ucm_cmd "$6" "$port" "$srv")"
		prog_start "$name-client" "${cmd[@]}"
		if [ "$7" = KILL ]; then
			ucm_orphaned "$name" "$PROG_PID"
		else
			prog_check "$name-client" "$PROG_PID" "$UCM_SECS" ${7:+"$7" "$8"}
		fi
	fi
	rdma_barrier $((sync + 1)) "$(scaled $((2 * UCM_SECS)))"
}

# ucm_killed NAME PID: once the server PID has its connection (a CM ID of
# it that does not listen), and a second later, it is killed; resource
# tracking must then list no CM ID and no QP of it.
ucm_killed() {
	local left

	retry_until 30 ucm_pid_connected "$2" ||
		ktap_diag "$1: the server has no connection after 30 s"
	sleep 1
	kill -9 "$2"
	wait "$2" 2>/dev/null
	if retry_until 10 ucm_pid_gone "$2"; then
		ktap_ok "$1-server: killed mid-connection, no CM ID or QP of it left"
	else
		left=$(rdma res show cm_id 2>&1; rdma res show qp 2>&1)
		ktap_fail "$1-server: killed mid-connection, no CM ID or QP of it left" \
			"$(echo "$left" | grep "pid $2 " | tr '\n' ' ')"
	fi
}

# ucm_pid_connected PID: resource tracking lists a CM ID of PID that is
# not its listener.
ucm_pid_connected() {
	rdma res show cm_id 2>/dev/null | grep "pid $1 " | grep -qv LISTEN
}

# ucm_pid_gone PID: resource tracking lists no CM ID or QP of PID.
ucm_pid_gone() {
	! { rdma res show cm_id; rdma res show qp; } 2>/dev/null | grep -q "pid $1 "
}

# ucm_orphaned NAME PID: the client PID, whose server was killed, is told
# (rping prints the DISCONNECTED event, and exits 0 all the same) and ends
# on its own.
ucm_orphaned() {
	local rc

	prog_wait "$2" 60
	rc=$?
	if [ "$rc" -ne 124 ] && grep -q 'DISCONNECT EVENT' "$RESULTS/$1-client.log"; then
		ktap_ok "$1-client: told of the disconnection once its server was killed, ends"
	else
		ktap_fail "$1-client: told of the disconnection once its server was killed, ends" \
			"exit $rc: $(tail -n 3 "$RESULTS/$1-client.log" | tr '\n' ' ')"
	fi
}

ucm_setup() {
	local out

	ktap_check "modprobe ib_uverbs rdma_ucm" modprobe -a ib_uverbs rdma_ucm || return 1
	if [ "$RDMA_STACK" = project ]; then
		out=$(modinfo -n rdma_ucm 2>&1)
		if [[ "$out" == */updates/* ]]; then
			ktap_ok "rdma_ucm is the project's ($out)"
		else
			ktap_fail "rdma_ucm is the project's" "$out"
		fi
		out=$(cat /sys/class/misc/rdma_cm/abi_version 2>&1)
		if [ -c /dev/infiniband/rdma_cm ] && [ "$out" = 4 ]; then
			ktap_ok "/dev/infiniband/rdma_cm, ABI version 4"
		else
			ktap_fail "/dev/infiniband/rdma_cm, ABI version 4" \
				"$(find /dev/infiniband 2>&1 | tr "\n" " "), abi_version '$out'"
		fi
	fi
	require_cmd rping udaddy ucmatose rdma_server rdma_client mckey rstream riostream ||
		{ ktap_fail "rdmacm-utils installed" "a program is missing"; return 1; }
	# pfifo_fast: see harness/uverbs_pair.sh.
	ktap_check "tc qdisc replace dev $NETDEV root pfifo_fast" \
		tc qdisc replace dev "$NETDEV" root pfifo_fast
	ktap_check "ip -6 addr add $(ucm_v6 "$MY_IP")/64 dev $NETDEV" \
		ip -6 addr add "$(ucm_v6 "$MY_IP")/64" dev "$NETDEV" nodad || return 1
	ktap_check "rdma link add rxe0 type rxe netdev $NETDEV" rdma_link_add_rxe rxe0 || return 1
	if retry_until 20 grep -q '^fd00:' /sys/class/infiniband/rxe0/ports/1/gids/*; then
		ktap_ok "rxe0 has a GID for $(ucm_v6 "$MY_IP")"
	else
		ktap_fail "rxe0 has a GID for $(ucm_v6 "$MY_IP")" "no fd00: GID"
		return 1
	fi
}

# ucm_write_errors.py on this guest's stack (stock answers the same, but
# for the extra checks of --ours).
ucm_write_errors() {
	local out rc ours=

	[ "$RDMA_STACK" = project ] && ours=--ours
	out=$(python3 "$SELFDIR/ucm_write_errors.py" --addr "$MY_IP" $ours 2>&1)
	rc=$?
	printf '%s\n' "$out" >"$RESULTS/ucm_write_errors.txt"
	grep '^FAIL' <<<"$out" | head -n 5 | while IFS= read -r l; do ktap_diag "$l"; done
	if [ "$rc" -eq 0 ]; then
		ktap_ok "ucm_write_errors.py: $(grep -c '^PASS' <<<"$out") checks pass"
	else
		ktap_fail "ucm_write_errors.py exits 0" \
			"rc=$rc, $(grep -c '^FAIL' <<<"$out") failed: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
	fi
}

# ucm_pyverbs: rdma-core's pyverbs CM tests (tests/test_rdmacm.py, both
# ends in this guest) on rxe0: none may fail, and some must pass.  The
# suite finds a device's IP address through its parent device's net/
# folder in sysfs, which a hardware NIC has and rxe (stock's as ours) has
# not, so the suite skips them all; here it is told the netdev of the GID
# it uses instead (gid_attrs/ndevs), the tests themselves run unchanged.
ucm_pyverbs() {
	local dir=/tmp/pyverbs-cm out ran pass skip bad

	if ! { rm -rf "$dir" && mkdir -p "$dir" &&
		cp -r /usr/share/doc/rdma-core/tests "$dir/" &&
		gunzip -f "$dir"/tests/*.gz; }; then
		ktap_fail "pyverbs CM tests: suite copied" "cannot copy /usr/share/doc/rdma-core/tests"
		return
	fi
	out=$(cd "$dir" && timeout "$(scaled 300)" /usr/bin/python3 - 2>&1 <<'PY'
import sys
import unittest
from importlib.machinery import SourceFileLoader

sys.path.insert(0, "tests")
from args_parser import parser  # noqa: E402

tests = SourceFileLoader("tests", "tests/__init__.py").load_module()
import tests.base as base  # noqa: E402


def ip_mac_of_gid_netdev(self, dev, port, idx):
    path = "/sys/class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d"
    with open(path % (dev, port, idx)) as f:
        ndev = f.read().strip()
    ip, mac = self.get_ip_mac_address(ndev)
    self.args.append([dev, port, idx, ip, mac])


base.RDMATestCase._get_ip_mac = ip_mac_of_gid_netdev
sys.argv = ["run_tests.py", "--dev", "rxe0", "--gid", "1", "-v",
            "tests.test_rdmacm"]
parser.parse_args()
unittest.main(module=tests)
PY
	)
	printf '%s\n' "$out" >"$RESULTS/pyverbs_cm.txt"
	ran=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' <<<"$out")
	pass=$(grep -c ' \.\.\. ok$' <<<"$out")
	skip=$(grep -c ' \.\.\. skipped' <<<"$out")
	bad=$(grep -cE ' \.\.\. (FAIL|ERROR)$' <<<"$out")
	if [ -n "$ran" ] && [ "$bad" = 0 ] && [ "$pass" -gt 0 ]; then
		ktap_ok "pyverbs CM tests: $ran run, $pass pass, $skip skipped, none failed"
	else
		ktap_fail "pyverbs CM tests: none failed, some passed" \
			"ran '$ran', $pass pass, $skip skipped, $bad failed: $(grep -E ' \.\.\. (FAIL|ERROR)$' <<<"$out" | head -n 3 | tr '\n' ' ')"
	fi
}

# No CM ID and no user QP left once every program ended.
ucm_nothing_left() {
	local ids qps

	ids=$(rdma res show cm_id 2>&1)
	qps=$(rdma res show qp 2>&1 | grep ' pid ')
	if [ -z "$ids$qps" ]; then
		ktap_ok "no CM ID and no user QP left"
	else
		ktap_fail "no CM ID and no user QP left" "$(echo "$ids $qps" | tr '\n' ' ')"
	fi
}

guest() {
	local mark="ucm_tools $$" n=0 line
	local -a f

	kmsg_mark "$mark"
	# Every step of the setup reports itself; one more result when it
	# stopped short, so that no run is missed without a failure.
	if ! ucm_setup; then
		ktap_fail "set up for the runs" "see above"
	else
		while IFS= read -r line; do
			IFS='|' read -r -a f <<<"$line"
			ucm_run "$n" "${f[@]}" </dev/null
			n=$((n + 1))
		done < <(runs)
		ucm_write_errors
		ucm_pyverbs
		ucm_nothing_left
	fi
	check_modules_unload
	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
}

rdma_test_main "$@"
