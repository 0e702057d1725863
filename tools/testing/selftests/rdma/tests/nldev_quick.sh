#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Quick check of RDMA netlink (nldev) on the project's stack, driven by
# iproute2's unmodified "rdma": link add (through the "mock" link type of
# rdma_nl_mock), dev/link/res/sys show, the error table of NEWLINK and
# DELLINK, a clean kernel log, and a clean unload.
#
# vms: 1
# stack-a: project
# timeout: 180

# shellcheck disable=SC2317 # the phases are called through rdma_test_main
# shellcheck source-path=SCRIPTDIR source=../harness/lib.sh
. "$(dirname "$0")/../harness/lib.sh"

guest() {
	local mark out

	mark="nldev $$"
	kmsg_mark "$mark"
	ktap_check "modprobe ib_core" modprobe ib_core
	ktap_check "rdma sys show" rdma sys show
	ktap_diag "$(rdma sys show 2>&1)"
	ktap_check "rdma dev show (no devices)" rdma dev show

	# The link type is not registered: NEWLINK must load rdma-link-mock.
	ktap_check "rdma link add mk0 type mock netdev $NETDEV (module autoload)" \
		rdma link add mk0 type mock netdev "$NETDEV"
	ktap_check "rdma_nl_mock was loaded on demand" module_loaded rdma_nl_mock

	out=$(rdma dev show 2>&1)
	ktap_diag "$out"
	if grep -q '^[0-9]*: mk0: node_type ca' <<<"$out"; then
		ktap_ok "rdma dev show lists mk0"
	else
		ktap_fail "rdma dev show lists mk0" "$out"
	fi
	out=$(rdma dev show mk0 2>&1)
	ktap_diag "$out"
	grep -q 'mk0' <<<"$out" && ktap_ok "rdma dev show mk0" ||
		ktap_fail "rdma dev show mk0" "$out"

	out=$(rdma -j dev show 2>&1)
	ktap_diag "$out"
	if python3 - "$out" <<'PY'
import json, sys
devs = json.loads(sys.argv[1])
d = [x for x in devs if x["ifname"] == "mk0"][0]
for k in ("ifindex", "ifname", "node_type", "fw", "node_guid", "sys_image_guid"):
    assert k in d, k
PY
	then
		ktap_ok "rdma -j dev show: ifindex ifname node_type fw node_guid sys_image_guid"
	else
		ktap_fail "rdma -j dev show fields" "$out"
	fi

	out=$(rdma link show 2>&1)
	ktap_diag "$out"
	if grep -q "^link mk0/1 .*state ACTIVE.*netdev $NETDEV" <<<"$out"; then
		ktap_ok "rdma link show: mk0/1 ACTIVE on $NETDEV"
	else
		ktap_fail "rdma link show: mk0/1 ACTIVE on $NETDEV" "$out"
	fi
	out=$(rdma -j link show mk0/1 2>&1)
	ktap_diag "$out"

	out=$(rdma res show 2>&1)
	ktap_diag "$out"
	if grep -q '^[0-9]*: mk0: pd [0-9]* cq [0-9]* qp [0-9]* cm_id [0-9]* mr [0-9]* ctx [0-9]* srq [0-9]*' <<<"$out"; then
		ktap_ok "rdma res show: summary of mk0"
	else
		ktap_fail "rdma res show: summary of mk0" "$out"
	fi
	out=$(rdma res show mk0 2>&1)
	ktap_diag "$out"

	# The error table.
	expect_fail "link add: duplicate name is EEXIST" 'exist' \
		rdma link add mk0 type mock netdev "$NETDEV"
	expect_fail "link add: '%' in the name is EINVAL" 'invalid' \
		rdma link add 'mk%d' type mock netdev "$NETDEV"
	expect_fail "link add: unknown netdev is ENODEV" 'no such device' \
		rdma link add mk1 type mock netdev nosuchnetdev0
	expect_fail "link add: unknown type is EINVAL" 'invalid' \
		rdma link add mk1 type nosuchtype netdev "$NETDEV"
	ktap_check "rdma link add mkp0 type mock_pinned netdev $NETDEV" \
		rdma link add mkp0 type mock_pinned netdev "$NETDEV"
	expect_fail "link delete: device without IBK_ALLOW_USER_UNREG is EINVAL" 'invalid' \
		rdma link delete mkp0
	ktap_check "rdma dev show mkp0: still there" rdma dev show mkp0
	expect_fail "dev show: unknown device" '.' rdma dev show nosuchdev
	expect_fail "link show: port out of range" '.' rdma link show mk0/7

	# Raw requests the tool never sends: errors only, then the stack works.
	out=$(python3 - 2>&1 <<'PY'
import os, socket, struct, sys
NLDEV = 5
def typ(op, client=NLDEV): return (client << 10) + op
def attr(t, payload):
    a = struct.pack("=HH", 4 + len(payload), t) + payload
    return a + b"\0" * (-len(a) % 4)
def u32(t, v): return attr(t, struct.pack("=I", v))
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)
s.bind((0, 0))
seq = 0
def req(t, body=b"", flags=0x5, raw_len=None):
    global seq
    seq += 1
    n = 16 + len(body) if raw_len is None else raw_len
    s.send(struct.pack("=IHHII", n, t, flags, seq, 0) + body)
    replies = []
    while True:
        data = s.recv(65536)
        off = 0
        while off + 16 <= len(data):
            ln, ty, fl, sq, pid = struct.unpack_from("=IHHII", data, off)
            if ln < 16: return replies, -999
            if ty == 2:
                err = struct.unpack_from("=i", data, off + 16)[0]
                return replies, err
            if ty == 3:
                # NLMSG_DONE carries the dump's error, if any.
                err = struct.unpack_from("=i", data, off + 16)[0] if ln >= 20 else 0
                return replies, err
            replies.append(ty)
            off += (ln + 3) & ~3
bad = 0
def expect_err(desc, r):
    global bad
    replies, err = r
    ok = err < 0
    print(("ok   " if ok else "BAD  ") + desc + " -> %d" % err)
    bad += not ok
GET, PORT_GET, NEWLINK, DELLINK, RES_GET = 1, 5, 3, 4, 9
expect_err("GET without DEV_INDEX", req(typ(GET)))
expect_err("GET DEV_INDEX as u8", req(typ(GET), attr(1, b"\0")))
expect_err("GET DEV_INDEX absent device", req(typ(GET), u32(1, 0x7ffffff0)))
expect_err("GET attribute longer than the message", req(typ(GET), struct.pack("=HH", 64, 1) + b"\0" * 4))
expect_err("unknown op 31", req(typ(31)))
expect_err("unknown op 1000", req(typ(1000)))
expect_err("unknown client 7", req(typ(1, 7)))
expect_err("dump of NEWLINK", req(typ(NEWLINK), flags=0x305))
expect_err("PORT_GET port 0", req(typ(PORT_GET), u32(1, 0) + u32(3, 0)))
expect_err("PORT_GET port 0xffffffff", req(typ(PORT_GET), u32(1, 0) + u32(3, 0xffffffff)))
expect_err("PORT_GET dump without DEV_INDEX", req(typ(PORT_GET), flags=0x305))
expect_err("NEWLINK empty", req(typ(NEWLINK)))
expect_err("NEWLINK 200-char name", req(typ(NEWLINK), attr(2, b"x" * 200 + b"\0") + attr(65, b"mock\0") + attr(51, b"lo\0")))
expect_err("NEWLINK name not NUL-terminated", req(typ(NEWLINK), attr(2, b"abcd") + attr(65, b"mock\0") + attr(51, b"lo\0")))
expect_err("NEWLINK empty name", req(typ(NEWLINK), attr(2, b"\0") + attr(65, b"mock\0") + attr(51, b"lo\0")))
expect_err("NEWLINK type with '/'", req(typ(NEWLINK), attr(2, b"zz0\0") + attr(65, b"../x\0") + attr(51, b"lo\0")))
expect_err("DELLINK without DEV_INDEX", req(typ(DELLINK)))
expect_err("RES_GET DRIVER_DETAILS as u32 on absent device", req(typ(RES_GET), u32(1, 0x7ffffff0) + u32(97, 1)))
r, err = req(typ(GET), flags=0x305)
print("GET dump after all that: %d messages %s, %d" % (len(r), r, err))
bad += err != 0 or r != [typ(GET)] * 2  # mk0 and mkp0
r, err = req(typ(GET), u32(1, 0) + u32(1, 0))
print("GET with DEV_INDEX twice: %d" % err)
r, err = req(typ(RES_GET), flags=0x305)
print("RES_GET dump: %d messages, %d" % (len(r), err))
bad += err != 0
sys.exit(1 if bad else 0)
PY
)
	if [ $? -eq 0 ]; then
		ktap_ok "raw bad requests: all refused, stack still answers"
	else
		ktap_fail "raw bad requests: all refused, stack still answers" "see diagnostics"
	fi
	ktap_diag "$out"

	ktap_log_clean "kernel log clean" < <(kmsg_since "$mark")
	ktap_diag "$(kmsg_since "$mark" | tail -n 20)"
	# rdma_nl_mock's devices go away with the module.
	check_modules_unload rdma_nl_mock
}

rdma_test_main "$@"
