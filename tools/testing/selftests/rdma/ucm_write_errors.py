#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The write() interface of rdma_ucm, driven by hand.

Opens /dev/infiniband/rdma_cm and writes commands framed as librdmacm
frames them (layouts from <rdma/rdma_user_cm.h>), each checked for its
result or errno: framing (short writes, unknown commands, payloads longer
than the write, GET_OPTION), CREATE_ID and DESTROY_ID (port spaces, room
for the answer, unknown IDs and IDs of another file), BIND and BIND_IP
address sizes, librdmacm's AF_IB probe, GET_EVENT (non-blocking, room),
INIT_QP_ATTR, REJECT reasons, SET_OPTION, multicast joins and leaves,
QUERY options, MIGRATE_ID's file descriptor, and the write() of another
user.  Then an ID is bound to the address of --addr, resolved to itself
and routed, and the events and queries (ADDR, GID, PATH, QUERY_ROUTE) are
checked against the device's sysfs.  --ours adds the checks where this
tree is stricter than stock (payloads shorter than the command).

Output: one line per check, "PASS what" or "FAIL what: detail".  Exit
status 0 only if every check passed.
"""

import argparse
import ctypes
import errno
import os
import socket
import struct
import sys

CREATE_ID, DESTROY_ID, BIND_IP, RESOLVE_IP, RESOLVE_ROUTE, QUERY_ROUTE, \
    CONNECT, LISTEN, ACCEPT, REJECT, DISCONNECT, INIT_QP_ATTR, GET_EVENT, \
    GET_OPTION, SET_OPTION, NOTIFY, JOIN_IP_MCAST, LEAVE_MCAST, \
    MIGRATE_ID, QUERY, BIND, RESOLVE_ADDR, JOIN_MCAST = range(23)

PS_TCP, PS_UDP, PS_IB = 0x106, 0x111, 0x13F
AF_IB = 27
EV_ADDR_RESOLVED, EV_ROUTE_RESOLVED = 0, 2
QUERY_ADDR, QUERY_PATH, QUERY_GID = 0, 1, 2
EVENT_RESP = 336
QUERY_ADDR_RESP = 280
QUERY_ROUTE_RESP = 208
PATH_FLAGS = 0x2B               # GMP | PRIMARY | BIDIRECTIONAL

HDR = struct.Struct("=IHH")     # rdma_ucm_cmd_hdr

failed = 0


def check(ok, what, detail=""):
    global failed
    if ok:
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL %s: %s" % (what, detail))


class Buf:
    """A response buffer and its user-space address."""

    def __init__(self, size):
        self.mem = ctypes.create_string_buffer(size)
        self.addr = ctypes.addressof(self.mem)

    def raw(self):
        return self.mem.raw


def write(fd, cmd, payload, out=0, inlen=None):
    """One command: its result (the byte count) or -errno."""
    data = HDR.pack(cmd, len(payload) if inlen is None else inlen, out) + payload
    try:
        return os.write(fd, data)
    except OSError as e:
        return -e.errno


def expect_err(fd, cmd, payload, err, what, out=0, inlen=None):
    ret = write(fd, cmd, payload, out, inlen)
    check(ret == -err, what, "got %s, want -%s" %
          (ret, errno.errorcode[err]))


def sin(ip, port=0):
    """sockaddr_in or sockaddr_in6 of a textual address."""
    if ":" in ip:
        return struct.pack("=H", socket.AF_INET6) + struct.pack(
            ">HI", port, 0) + socket.inet_pton(socket.AF_INET6, ip) + \
            struct.pack("=I", 0)
    return struct.pack("=H", socket.AF_INET) + struct.pack(">H", port) + \
        socket.inet_aton(ip) + bytes(8)


def storage(sa):
    return sa + bytes(128 - len(sa))


def create_id(fd, ps=PS_TCP, qp_type=2, uid=0x1234):
    b = Buf(4)
    ret = write(fd, CREATE_ID, struct.pack("=QQHB5x", uid, b.addr, ps,
                                           qp_type), 4)
    if ret < 0:
        return ret
    return struct.unpack("=I", b.raw()[:4])[0]


def destroy_id(fd, cid):
    b = Buf(4)
    ret = write(fd, DESTROY_ID, struct.pack("=QII", b.addr, cid, 0), 4)
    return ret if ret < 0 else struct.unpack("=I", b.raw()[:4])[0]


def get_event(fd):
    b = Buf(EVENT_RESP)
    ret = write(fd, GET_EVENT, struct.pack("=Q", b.addr), EVENT_RESP)
    if ret < 0:
        return ret, None
    uid, cid, ev, status = struct.unpack("=QIIi", b.raw()[:20])
    return 0, (uid, cid, ev, status)


def query(fd, cid, option, size):
    b = Buf(size)
    ret = write(fd, QUERY, struct.pack("=QII", b.addr, cid, option), size)
    return ret, b.raw()


def framing(fd):
    try:
        os.write(fd, bytes(4))
        ret = 0
    except OSError as e:
        ret = -e.errno
    check(ret == -errno.EINVAL, "a write shorter than the header: EINVAL",
          str(ret))
    expect_err(fd, 99, bytes(8), errno.EINVAL, "command 99: EINVAL")
    expect_err(fd, CREATE_ID, bytes(8), errno.EINVAL,
               "in larger than the write: EINVAL", inlen=100)
    expect_err(fd, GET_OPTION, bytes(24), errno.ENOSYS, "GET_OPTION: ENOSYS")


def ids(fd, fd2, ours):
    b = Buf(4)
    expect_err(fd, CREATE_ID, struct.pack("=QQHB5x", 1, b.addr, 0x9999, 2),
               errno.EINVAL, "CREATE_ID, port space 0x9999: EINVAL", 4)
    expect_err(fd, CREATE_ID, struct.pack("=QQHB5x", 1, b.addr, PS_TCP, 2),
               errno.ENOSPC, "CREATE_ID with no room for the answer: ENOSPC")
    expect_err(fd, CREATE_ID, struct.pack("=QQHB5x", 1, 8, PS_TCP, 2),
               errno.EFAULT, "CREATE_ID answering to address 8: EFAULT", 4)
    if ours:
        expect_err(fd, CREATE_ID, struct.pack("=QQHB5x", 1, b.addr, PS_TCP,
                                              2)[:16],
                   errno.EINVAL, "CREATE_ID with 16 of 24 bytes: EINVAL", 4)
    expect_err(fd, DESTROY_ID, struct.pack("=QII", b.addr, 0xfffffff0, 0),
               errno.ENOENT, "DESTROY_ID of an unknown ID: ENOENT", 4)
    cid = create_id(fd)
    check(cid >= 0, "CREATE_ID, TCP port space", str(cid))
    expect_err(fd2, DESTROY_ID, struct.pack("=QII", b.addr, cid, 0),
               errno.EINVAL, "DESTROY_ID of another file's ID: EINVAL", 4)
    expect_err(fd, BIND, struct.pack("=IHH", cid, 28, 0) +
               storage(sin("127.0.0.1")), errno.EINVAL,
               "BIND, addr_size 28 for a sockaddr_in: EINVAL")
    expect_err(fd, BIND_IP, struct.pack("=Q", 0) +
               struct.pack("=H", 77) + bytes(26) + struct.pack("=I", cid),
               errno.EINVAL, "BIND_IP, family 77: EINVAL")
    expect_err(fd, INIT_QP_ATTR, struct.pack("=QII", b.addr, cid, 99),
               errno.EINVAL, "INIT_QP_ATTR, state 99: EINVAL", 144)
    expect_err(fd, INIT_QP_ATTR, struct.pack("=QII", b.addr, cid, 1),
               errno.ENOSPC, "INIT_QP_ATTR with 4 bytes of room: ENOSPC", 4)
    expect_err(fd, REJECT, struct.pack("=IBBxx", cid, 0, 5) + bytes(256),
               errno.EINVAL, "REJECT, reason 5: EINVAL")
    opt = Buf(8)
    expect_err(fd, SET_OPTION, struct.pack("=QIIII", opt.addr, cid, 7, 0, 1),
               errno.ENOSYS, "SET_OPTION, level 7: ENOSYS")
    expect_err(fd, SET_OPTION, struct.pack("=QIIII", opt.addr, cid, 0, 0, 4),
               errno.EINVAL, "SET_OPTION TOS with 4 bytes: EINVAL")
    expect_err(fd, SET_OPTION, struct.pack("=QIIII", 8, cid, 0, 1, 4),
               errno.EFAULT, "SET_OPTION, option at address 8: EFAULT")
    expect_err(fd, SET_OPTION, struct.pack("=QIIII", opt.addr, cid, 0, 1,
                                           1 << 30),
               errno.EINVAL, "SET_OPTION of 1 GiB: EINVAL")
    ret = write(fd, SET_OPTION, struct.pack("=QIIII", opt.addr, cid, 0, 1, 4))
    check(ret > 0, "SET_OPTION REUSEADDR", str(ret))
    expect_err(fd, QUERY, struct.pack("=QII", b.addr, cid, 9), errno.ENOSYS,
               "QUERY option 9: ENOSYS", QUERY_ADDR_RESP)
    expect_err(fd, LEAVE_MCAST, struct.pack("=QII", b.addr, 0xfffffff0, 0),
               errno.ENOENT, "LEAVE_MCAST of an unknown group: ENOENT", 4)
    expect_err(fd, JOIN_MCAST, struct.pack("=QQIHH", b.addr, 1, cid, 28, 0) +
               storage(sin("239.1.1.1")), errno.EINVAL,
               "JOIN_MCAST, addr_size 28 for a sockaddr_in: EINVAL", 4)
    expect_err(fd, JOIN_MCAST, struct.pack("=QQIHH", b.addr, 1, cid, 16, 5) +
               storage(sin("239.1.1.1")), errno.EINVAL,
               "JOIN_MCAST, join flags 5: EINVAL", 4)
    null = os.open("/dev/null", os.O_RDONLY)
    expect_err(fd2, MIGRATE_ID, struct.pack("=QII", b.addr, cid, null),
               errno.EINVAL, "MIGRATE_ID from /dev/null: EINVAL", 4)
    os.close(null)
    expect_err(fd2, MIGRATE_ID, struct.pack("=QII", b.addr, cid, 1000),
               errno.ENOENT, "MIGRATE_ID from fd 1000 (not open): ENOENT", 4)
    ret = write(fd2, MIGRATE_ID, struct.pack("=QII", b.addr, cid, fd), 4)
    check(ret > 0, "MIGRATE_ID to another file", str(ret))
    expect_err(fd, DESTROY_ID, struct.pack("=QII", b.addr, cid, 0),
               errno.EINVAL, "DESTROY_ID on the file it left: EINVAL", 4)
    check(destroy_id(fd2, cid) == 0, "DESTROY_ID on its new file: 0 events")


def events(fd_nb):
    b = Buf(EVENT_RESP)
    expect_err(fd_nb, GET_EVENT, struct.pack("=Q", b.addr), errno.EAGAIN,
               "GET_EVENT, non-blocking, none queued: EAGAIN", EVENT_RESP)
    expect_err(fd_nb, GET_EVENT, struct.pack("=Q", b.addr), errno.ENOSPC,
               "GET_EVENT with 10 bytes of room: ENOSPC", 10)


def af_ib_probe(fd):
    """librdmacm's AF_IB test: a wildcard sockaddr_ib in PS_IB binds."""
    cid = create_id(fd, PS_IB, 2)
    sib = struct.pack("=H", AF_IB) + bytes(22) + \
        struct.pack(">QQ", 0x0000000001060000, 0xFFFFFFFFFFFF0000) + bytes(8)
    ret = write(fd, BIND, struct.pack("=IHH", cid, 48, 0) + storage(sib))
    check(ret > 0, "BIND of the AF_IB wildcard (librdmacm's probe)", str(ret))
    ret, raw = query(fd, cid, QUERY_ADDR, QUERY_ADDR_RESP)
    fam, = struct.unpack("=H", raw[16:18])
    sid, = struct.unpack(">Q", raw[40:48])
    check(ret > 0 and fam == AF_IB and sid & 0xffff,
          "QUERY ADDR: AF_IB with a port picked",
          "ret %d family %d sid %#x" % (ret, fam, sid))
    check(destroy_id(fd, cid) == 0, "DESTROY_ID of the probe ID")


def resolve(fd, ip, dev):
    """Bind to IP, resolve IP itself, route: events and queries."""
    cid = create_id(fd, uid=0xabcdef)
    sa = sin(ip)
    ret = write(fd, BIND, struct.pack("=IHH", cid, len(sa), 0) + storage(sa))
    check(ret > 0, "BIND to %s" % ip, str(ret))
    ret = write(fd, RESOLVE_ADDR, struct.pack("=IIHHI", cid, 2000, 0, len(sa),
                                              0) + storage(b"") +
                storage(sin(ip, 7999)))
    check(ret > 0, "RESOLVE_ADDR to %s" % ip, str(ret))
    ret, ev = get_event(fd)
    check(ev == (0xabcdef, cid, EV_ADDR_RESOLVED, 0),
          "ADDR_RESOLVED with the ID's uid", "%d %s" % (ret, ev))
    ret, raw = query(fd, cid, QUERY_ADDR, QUERY_ADDR_RESP)
    guid = struct.unpack(">Q", raw[:8])[0]
    port, = struct.unpack("=B", raw[8:9])
    index, = struct.unpack("=I", raw[272:276])
    with open("/sys/class/infiniband/%s/node_guid" % dev) as f:
        want_guid = int(f.read().strip().replace(":", ""), 16)
    want_index = int(os.popen("rdma -j dev show %s" % dev).read().split(
        '"ifindex":')[1].split(",")[0])
    check(ret > 0 and guid == want_guid and port == 1 and index == want_index,
          "QUERY ADDR: node GUID, port 1 and device index of %s" % dev,
          "guid %#x port %d index %d" % (guid, port, index))
    ret, raw = query(fd, cid, QUERY_GID, QUERY_ADDR_RESP)
    fam, = struct.unpack("=H", raw[16:18])
    gid = raw[24:40]
    check(ret > 0 and fam == AF_IB and
          gid == bytes(10) + b"\xff\xff" + socket.inet_aton(ip),
          "QUERY GID: AF_IB, the IPv4-mapped GID", "%d %s" % (fam, gid.hex()))
    ret = write(fd, RESOLVE_ROUTE, struct.pack("=II", cid, 2000))
    check(ret > 0, "RESOLVE_ROUTE", str(ret))
    ret, ev = get_event(fd)
    check(ev == (0xabcdef, cid, EV_ROUTE_RESOLVED, 0), "ROUTE_RESOLVED",
          "%d %s" % (ret, ev))
    ret, raw = query(fd, cid, QUERY_PATH, 8 + 72 * 2)
    n, = struct.unpack("=I", raw[:4])
    flags, = struct.unpack("=I", raw[8:12])
    check(ret > 0 and n == 1 and flags == PATH_FLAGS and
          raw[16 + 8:16 + 24] == gid,
          "QUERY PATH: one path, flags %#x, the GIDs" % PATH_FLAGS,
          "n %d flags %#x" % (n, flags))
    b = Buf(QUERY_ROUTE_RESP)
    ret = write(fd, QUERY_ROUTE, struct.pack("=QII", b.addr, cid, 0),
                QUERY_ROUTE_RESP)
    n, port = struct.unpack("=IB", b.raw()[192:197])
    check(ret > 0 and n == 1 and port == 1, "QUERY_ROUTE: one path, port 1",
          "ret %d paths %d port %d" % (ret, n, port))
    check(destroy_id(fd, cid) == 2, "DESTROY_ID: 2 events reported")


def other_user(fd):
    pid = os.fork()
    if pid == 0:
        os.setuid(65534)
        ret = write(fd, CREATE_ID, struct.pack("=QQHB5x", 1, 0, PS_TCP, 2), 4)
        os._exit(0 if ret == -errno.EACCES else 1)
    _, status = os.waitpid(pid, 0)
    check(status == 0, "write() by another user: EACCES")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--addr", required=True)
    ap.add_argument("--dev", default="rxe0")
    ap.add_argument("--ours", action="store_true")
    a = ap.parse_args()
    fd = os.open("/dev/infiniband/rdma_cm", os.O_RDWR)
    fd2 = os.open("/dev/infiniband/rdma_cm", os.O_RDWR)
    fd_nb = os.open("/dev/infiniband/rdma_cm", os.O_RDWR | os.O_NONBLOCK)
    framing(fd)
    ids(fd, fd2, a.ours)
    events(fd_nb)
    af_ib_probe(fd)
    resolve(fd, a.addr, a.dev)
    other_user(fd)
    # Closing with a live ID: the shell checks nothing is left.
    check(create_id(fd2) >= 0, "an ID left for close() to destroy")
    for f in (fd, fd2, fd_nb):
        os.close(f)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
