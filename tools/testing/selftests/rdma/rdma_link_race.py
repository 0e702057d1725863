#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Race the teardown paths of soft-RoCE links against their netdev's end.

Every round makes a dummy netdev (rtnetlink, up) and then, over raw
netlink from two threads started together (one of them a random few
milliseconds late):

  delete rounds   "rdma link add" of an rxe device on it, the test ULP
                  (--ulp, rdma_obj_ulp.ko) loaded on that device so that it
                  holds a PD, CQ, QP, MR and an AH, then "rdma link delete"
                  of the device racing "ip link del" of the netdev; the ULP
                  is unloaded afterwards
  add rounds      "rdma link add" racing "ip link del" of the netdev

The ULP is loaded and unloaded with finit_module()/delete_module(), which
keeps a round far cheaper than starting insmod, rdma and ip under TCG.

Each round prints nothing unless something unexpected happens: the netdev
cannot be made or deleted, the link of a delete round cannot be added, the
ULP cannot be loaded or unloaded.  At the end it waits (--settle seconds)
for every device it made to be gone, and prints one summary line per kind
of round with how each racing request ended, for example

    delete rounds 500: dellink ok=310 -EINVAL=190; ip del ok=500
    add rounds 100: newlink ok=41 -ENODEV=59; ip del ok=100
    devices left: none

With --kmsg FILE every kernel log record written while it runs is copied
to FILE (read from /dev/kmsg after each round, so that the ring buffer
cannot wrap under a long run); the caller checks it for WARN and BUG.

Exit status 0 only if nothing unexpected happened and no device is left.
"""

import argparse
import collections
import ctypes
import errno
import os
import platform
import random
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nldev_lib as L  # noqa: E402

NETLINK_ROUTE = 0
RTM_NEWLINK = 16
RTM_DELLINK = 17
IFLA_IFNAME = 3
IFLA_LINKINFO = 18
IFLA_INFO_KIND = 1
IFF_UP = 1
NLM_F_EXCL = 0x200
NLM_F_CREATE = 0x400
IFINFOMSG = struct.Struct("=BxHiII")

# x86_64 system call numbers (the guests are x86_64)
SYS_DELETE_MODULE = 176
SYS_FINIT_MODULE = 313
O_NONBLOCK = 0o4000

libc = ctypes.CDLL(None, use_errno=True)


class Fail(Exception):
    pass


def rt_request(sock, msg_type, ifname, flags=0, kind=None, up=False):
    """One rtnetlink link request for @ifname; returns its errno (0: ok)."""
    body = IFINFOMSG.pack(socket.AF_UNSPEC, 0, 0, IFF_UP if up else 0,
                          IFF_UP if up else 0)
    body += L.nla_str(IFLA_IFNAME, ifname)
    if kind:
        body += L.nla(IFLA_LINKINFO | L.NLA_F_NESTED,
                      L.nla_str(IFLA_INFO_KIND, kind))
    r = sock.request(0, body, msg_type=msg_type,
                     flags=L.NLM_F_REQUEST | L.NLM_F_ACK | flags)
    if r.timeout:
        raise Fail("rtnetlink request for %s timed out" % ifname)
    return r.error


def dummy_add(sock, ifname):
    err = rt_request(sock, RTM_NEWLINK, ifname, NLM_F_CREATE | NLM_F_EXCL,
                     kind="dummy", up=True)
    if err:
        raise Fail("ip link add %s type dummy: %s" % (ifname, L.errname(err)))


def dummy_del(sock, ifname):
    return rt_request(sock, RTM_DELLINK, ifname)


def newlink(sock, u, ibdev, ifname):
    body = (L.nla_str(u.a("DEV_NAME"), ibdev) +
            L.nla_str(u.a("LINK_TYPE"), "rxe") +
            L.nla_str(u.a("NDEV_NAME"), ifname))
    r = sock.request(u.c("NEWLINK"), body)
    if r.timeout:
        raise Fail("rdma link add %s timed out" % ibdev)
    return r.error


def dellink(sock, u, index):
    r = sock.request(u.c("DELLINK"), L.nla_u32(u.a("DEV_INDEX"), index))
    if r.timeout:
        raise Fail("rdma link delete of index %d timed out" % index)
    return r.error


def ulp_load(path, params):
    fd = os.open(path, os.O_RDONLY)
    try:
        if libc.syscall(SYS_FINIT_MODULE, fd, params.encode(), 0) != 0:
            e = ctypes.get_errno()
            raise Fail("loading %s %s: %s" % (path, params, os.strerror(e)))
    finally:
        os.close(fd)


def ulp_unload(name):
    if libc.syscall(SYS_DELETE_MODULE, name.encode(), O_NONBLOCK) != 0:
        e = ctypes.get_errno()
        raise Fail("unloading %s: %s" % (name, os.strerror(e)))


class Kmsg:
    """The kernel log records written from now on, copied to a file."""

    def __init__(self, path):
        self.out = open(path, "w")
        self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(self.fd, 0, os.SEEK_END)
        self.lost = 0

    def drain(self):
        while True:
            try:
                rec = os.read(self.fd, 8192)
            except BlockingIOError:
                break
            except OSError as e:
                if e.errno != errno.EPIPE:
                    raise
                self.lost += 1      # overwritten before it was read
                continue
            _, _, text = rec.decode(errors="replace").partition(";")
            self.out.write(text.split("\n", 1)[0] + "\n")
        self.out.flush()


def race(first, second, jitter):
    """Run @first and @second (callables returning an errno) together,
    @second delayed by @jitter seconds (or @first, if @jitter < 0)."""
    results = [None, None]
    errors = []
    gate = threading.Barrier(2)

    def run(i, fn, delay):
        try:
            gate.wait()
            if delay > 0:
                time.sleep(delay)
            results[i] = fn()
        except Fail as e:
            errors.append(str(e))

    threads = [threading.Thread(target=run, args=(0, first, -jitter)),
               threading.Thread(target=run, args=(1, second, jitter))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise Fail("; ".join(errors))
    return results


def device_index(sock, u, name):
    idx = L.devices(sock, u).get(name)
    if idx is None:
        raise Fail("%s is not listed after rdma link add" % name)
    return idx


def summary(kind, n, outcomes):
    parts = []
    for what in sorted(outcomes):
        c = outcomes[what]
        parts.append("%s %s" % (what, " ".join(
            "%s=%d" % (L.errname(e), c[e]) for e in sorted(c, reverse=True))))
    return "%s rounds %d: %s" % (kind, n, "; ".join(parts))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--delete-rounds", type=int, default=500)
    ap.add_argument("--add-rounds", type=int, default=100)
    ap.add_argument("--ulp", required=True, help="path of rdma_obj_ulp.ko")
    ap.add_argument("--prefix", default="race")
    ap.add_argument("--settle", type=float, default=60.0,
                    help="seconds to wait for the devices to go")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--kmsg", help="copy the kernel log records to this file")
    args = ap.parse_args()

    if platform.machine() != "x86_64":
        print("needs x86_64 system call numbers, not %s" % platform.machine())
        return 1
    seed = args.seed if args.seed is not None else int(time.time())
    rnd = random.Random(seed)
    print("seed %d" % seed)
    u = L.Uapi()
    kmsg = Kmsg(args.kmsg) if args.kmsg else None
    # One socket per thread: a socket's answers are read by its sender.
    rd = [L.NlSock(timeout=120.0), L.NlSock(timeout=120.0)]
    rt = [L.NlSock(timeout=120.0, proto=NETLINK_ROUTE),
          L.NlSock(timeout=120.0, proto=NETLINK_ROUTE)]
    ulp = os.path.basename(args.ulp).split(".")[0]
    made = []
    bad = []
    add_ms = []
    round_ms = []
    dres = collections.defaultdict(collections.Counter)
    ares = collections.defaultdict(collections.Counter)

    try:
        for i in range(args.delete_rounds):
            t0 = time.monotonic()
            ifname = "%sn%d" % (args.prefix, i)
            ibdev = "%s%d" % (args.prefix, i)
            dummy_add(rt[0], ifname)
            t = time.monotonic()
            err = newlink(rd[0], u, ibdev, ifname)
            add_ms.append((time.monotonic() - t) * 1000)
            if err:
                raise Fail("rdma link add %s netdev %s: %s" %
                           (ibdev, ifname, L.errname(err)))
            made.append(ibdev)
            ulp_load(args.ulp, "ibdev=%s ah_dgid=fe80::1 "
                     "ah_dmac=02:00:00:00:00:01" % ibdev)
            idx = device_index(rd[0], u, ibdev)
            d, n = race(lambda: dellink(rd[0], u, idx),
                        lambda: dummy_del(rt[1], ifname),
                        rnd.uniform(-0.002, 0.002))
            dres["dellink"][d] += 1
            dres["ip del"][n] += 1
            if n:
                bad.append("round %d: ip link del %s: %s" %
                           (i, ifname, L.errname(n)))
            ulp_unload(ulp)
            if kmsg:
                kmsg.drain()
            round_ms.append((time.monotonic() - t0) * 1000)

        # The window that matters is the link add itself: spread the
        # netdev's end over it.
        span = sorted(add_ms)[len(add_ms) // 2] / 1000 if add_ms else 0.05
        for i in range(args.add_rounds):
            ifname = "%sm%d" % (args.prefix, i)
            ibdev = "%sa%d" % (args.prefix, i)
            dummy_add(rt[0], ifname)
            made.append(ibdev)
            a, n = race(lambda: newlink(rd[0], u, ibdev, ifname),
                        lambda: dummy_del(rt[1], ifname),
                        rnd.uniform(0, 1.5 * span))
            ares["newlink"][a] += 1
            ares["ip del"][n] += 1
            if n:
                bad.append("add round %d: ip link del %s: %s" %
                           (i, ifname, L.errname(n)))
            if kmsg:
                kmsg.drain()
    except Fail as e:
        bad.append(str(e))

    end = time.monotonic() + args.settle
    left = []
    while True:
        listed = L.devices(rd[0], u)
        left = sorted(d for d in made if d in listed)
        if not left or time.monotonic() > end:
            break
        time.sleep(0.5)
    if kmsg:
        kmsg.drain()
        if kmsg.lost:
            bad.append("%d kernel log records were lost" % kmsg.lost)

    if add_ms:
        print("rdma link add took %.1f ms, a delete round %.1f ms "
              "(medians)" % (sorted(add_ms)[len(add_ms) // 2],
                             sorted(round_ms)[len(round_ms) // 2]))
    print(summary("delete", args.delete_rounds, dres))
    print(summary("add", args.add_rounds, ares))
    print("devices left: %s" % (" ".join(left) if left else "none"))
    for b in bad[:10]:
        print("unexpected: %s" % b)
    return 1 if bad or left else 0


if __name__ == "__main__":
    sys.exit(main())
