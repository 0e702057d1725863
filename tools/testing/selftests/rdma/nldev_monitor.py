#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Print RDMA netlink monitor events, as "rdma monitor" (iproute2 >= 6.9)
would: joins RDMA_NL_GROUP_NOTIFY of NETLINK_RDMA and prints one line per
RDMA_NLDEV_CMD_MONITOR message:

    EVENT dev NAME index N [port P] [netdev NAME ifindex N]

EVENT is REGISTER, UNREGISTER, NETDEV_ATTACH, NETDEV_DETACH, RENAME or
NETDEV_RENAME (EVENT_TYPE 0..5), or "EVENT_<n>" for another value.  A
message that is not a well-formed monitor event is printed as
"MALFORMED ..." and makes the exit status 1.

--ready FILE is created once the socket listens; the tool ends after
--count events or --timeout seconds (exit status 0 either way, unless a
malformed message came).
"""

import argparse
import os
import select
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import nldev_lib as L  # noqa: E402

EVENTS = ("REGISTER", "UNREGISTER", "NETDEV_ATTACH", "NETDEV_DETACH",
          "RENAME", "NETDEV_RENAME")


def describe(u, payload):
    """The line for one monitor message; raises ValueError if malformed."""
    attrs, _ = L.parse_attrs(payload)
    a = u.a
    ev = L.get_u8(attrs, a("EVENT_TYPE"))
    idx = L.get_u32(attrs, a("DEV_INDEX"))
    name = L.get_str(attrs, a("DEV_NAME"))
    if ev is None or idx is None or name is None:
        raise ValueError("no EVENT_TYPE, DEV_INDEX or DEV_NAME")
    line = "%s dev %s index %d" % (EVENTS[ev] if ev < len(EVENTS)
                                   else "EVENT_%d" % ev, name, idx)
    port = L.get_u32(attrs, a("PORT_INDEX"))
    if port is not None:
        line += " port %d" % port
    ndev = L.get_str(attrs, a("NDEV_NAME"))
    if ndev is not None:
        line += " netdev %s ifindex %s" % (
            ndev, L.get_u32(attrs, a("NDEV_INDEX")))
    return line


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=0,
                    help="stop after this many events (0: no limit)")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--ready", help="create this file once listening")
    ap.add_argument("--header", help="uapi rdma_netlink.h to use")
    args = ap.parse_args()

    u = L.Uapi(args.header)
    sock = L.NlSock()
    sock.join(u.group_notify)
    if args.ready:
        with open(args.ready, "w") as f:
            f.write("%d\n" % os.getpid())
    want = L.nl_type(u.c("MONITOR"))
    end = time.monotonic() + args.timeout
    seen = 0
    bad = 0
    while not args.count or seen < args.count:
        left = end - time.monotonic()
        if left <= 0:
            break
        rd, _, _ = select.select([sock.s], [], [], left)
        if not rd:
            break
        data = sock.s.recv(1 << 16)
        off = 0
        while off + L.NLMSG_HDR.size <= len(data):
            ln, ty, _, _, _ = L.NLMSG_HDR.unpack_from(data, off)
            if ln < L.NLMSG_HDR.size or off + ln > len(data):
                print("MALFORMED nlmsg_len %d" % ln, flush=True)
                bad += 1
                break
            payload = data[off + L.NLMSG_HDR.size:off + ln]
            off += L.align4(ln)
            if ty != want:
                print("MALFORMED type %#x" % ty, flush=True)
                bad += 1
                continue
            try:
                print(describe(u, payload), flush=True)
            except (ValueError, IndexError, UnicodeDecodeError) as e:
                print("MALFORMED %s" % e, flush=True)
                bad += 1
            seen += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
