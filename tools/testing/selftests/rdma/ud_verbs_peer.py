#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A user-space UD peer over libibverbs (through pyverbs), for the stock guest.

It speaks the protocol of the kernel test ULP (ulp/rdma_ud_ulp.c): Q_Key
0x11111111, payloads of the same sizes and pattern, every datagram echoed
by the other end.

  echo --nqp N --count C      make N UD QPs, print "qpns=A,B,..." and echo
                              every datagram back to its sender through an
                              AH from ibv_create_ah_from_wc(), until C were
                              echoed; prints "echoed C datagrams"
  send --dest IP --dqpns A,.. --count C [--size S] [--gid ipv4|ipv6]
                              send datagram i from QP i % N to A[i % n]
                              through an AH from ibv_create_ah() and check
                              each echo; one KTAP line per datagram

The echoes go out from the receive buffer itself (after the 40-byte GRH
area), so a receive is posted again only once its echo completed.
"""

import argparse
import ipaddress
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AH, AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

QKEY = 0x11111111
GRH = 40
MAX_PAYLOAD = 4096
SLOT = GRH + MAX_PAYLOAD
DEPTH = 16
PORT = 1
SEND_ID = 1 << 32


def size_of(i, size):
    """The payload size of datagram i: the kernel ULP's sequence."""
    small = [0, 1, 2, 3, 4, 5, 63, 64, 255, 256]
    if i < len(small):
        return min(small[i], size)
    return size - (i - len(small)) % 4


def pattern(i, n):
    """The payload of datagram i, as the kernel ULP fills it."""
    return bytes((i * 31 + j) & 0xFF for j in range(n))


def find_sgid(dev, v4):
    """The first RoCE v2 GID index of the family asked for, from sysfs."""
    base = f"/sys/class/infiniband/{dev}/ports/{PORT}"
    idx = 0
    while True:
        try:
            with open(f"{base}/gids/{idx}") as f:
                gid = f.read().strip()
            with open(f"{base}/gid_attrs/types/{idx}") as f:
                kind = f.read().strip()
        except OSError:
            return -1
        zero = gid.replace("0", "").replace(":", "") == ""
        mapped = gid.startswith("0000:0000:0000:0000:0000:ffff:")
        if not zero and kind == "RoCE v2" and mapped == v4:
            return idx
        idx += 1


class Peer:
    """One device's PD, CQ, MR and UD QPs with DEPTH receive slots each."""

    def __init__(self, dev, nqp):
        self.ctx = Context(name=dev)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, nqp * DEPTH * 2 + 16)
        self.mr = MR(self.pd, nqp * (DEPTH + 1) * SLOT,
                     e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=DEPTH, max_recv_wr=DEPTH, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_UD, scq=self.cq, rcq=self.cq,
                          cap=cap)
        self.qps = []
        for _ in range(nqp):
            attr = QPAttr(port_num=PORT)
            attr.qkey = QKEY
            self.qps.append(QP(self.pd, init, attr))
        self.by_num = {qp.qp_num: n for n, qp in enumerate(self.qps)}

    def slot_off(self, q, s):
        """Offset of slot s of QP q in the MR (slot DEPTH: its send slot)."""
        return (q * (DEPTH + 1) + s) * SLOT

    def post_recv(self, q, s):
        sge = SGE(self.mr.buf + self.slot_off(q, s), SLOT, self.mr.lkey)
        self.qps[q].post_recv(RecvWR(wr_id=q * DEPTH + s, num_sge=1,
                                     sg=[sge]))

    def post_send(self, q, off, n, ah, rqpn, wr_id):
        # pyverbs wants an SGE even for an empty datagram: one of 0 bytes
        wr = SendWR(wr_id=wr_id, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[SGE(self.mr.buf + off, n, self.mr.lkey)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_ud(ah, rqpn, QKEY)
        self.qps[q].post_send(wr)

    def poll(self, deadline):
        """The next completions, or [] once @deadline has passed."""
        while time.monotonic() < deadline:
            n, wcs = self.cq.poll(num_entries=16)
            if n:
                return wcs
            time.sleep(0.0002)
        return []


def echo(args):
    p = Peer(args.dev, args.nqp)
    for q in range(args.nqp):
        for s in range(DEPTH):
            p.post_recv(q, s)
    print("qpns=" + ",".join(str(qp.qp_num) for qp in p.qps), flush=True)
    echoed = errors = 0
    ahs = {}
    deadline = time.monotonic() + args.timeout
    while echoed < args.count:
        wcs = p.poll(deadline)
        if not wcs:
            break
        for wc in wcs:
            if wc.status != e.IBV_WC_SUCCESS:
                print(f"# completion wr_id {wc.wr_id}: status {wc.status}")
                errors += 1
                continue
            if wc.wr_id >= SEND_ID:
                # the echo went out: its receive slot is free again
                q, s = divmod(wc.wr_id - SEND_ID, DEPTH)
                ahs.pop(wc.wr_id, None)
                p.post_recv(q, s)
                echoed += 1
                continue
            q, s = divmod(wc.wr_id, DEPTH)
            off = p.slot_off(q, s)
            n = max(wc.byte_len - GRH, 0)
            ah = AH(p.pd, wc=wc, port_num=PORT, grh=p.mr.buf + off)
            ahs[SEND_ID + wc.wr_id] = ah
            p.post_send(q, off + GRH, n, ah, wc.src_qp, SEND_ID + wc.wr_id)
    print(f"echoed {echoed} datagrams, {errors} errors")
    return 0 if echoed == args.count and not errors else 1


def send(args):
    p = Peer(args.dev, args.nqp)
    dqpns = [int(x, 0) for x in args.dqpns.split(",")]
    v4 = args.gid == "ipv4"
    sgid = find_sgid(args.dev, v4)
    addr = ipaddress.ip_address(args.dest)
    if addr.version == 4:
        addr = ipaddress.IPv6Address("::ffff:" + str(addr))
    print("KTAP version 1")
    print(f"1..{args.count + 1}")
    if sgid < 0:
        print(f"not ok 1 ibv_create_ah # no RoCE v2 {args.gid} GID")
        return 1
    gr = GlobalRoute(dgid=GID(val=addr.exploded), sgid_index=sgid,
                     hop_limit=64)
    ah = AH(p.pd, attr=AHAttr(port_num=PORT, is_global=1, gr=gr))
    print(f"ok 1 ibv_create_ah (sgid index {sgid})")
    failed = 0
    t0 = time.monotonic()
    for i in range(args.count):
        q = i % args.nqp
        n = size_of(i, args.size)
        data = pattern(i, n)
        p.post_recv(q, 0)
        send_off = p.slot_off(q, DEPTH)
        if n:
            p.mr.write(data, n, send_off)
        p.post_send(q, send_off, n, ah, dqpns[i % len(dqpns)], SEND_ID + i)
        sent = got = None
        why = ""
        deadline = time.monotonic() + 5
        while (sent is None or got is None) and not why:
            wcs = p.poll(deadline)
            if not wcs:
                why = "timeout"
            for wc in wcs:
                if wc.status != e.IBV_WC_SUCCESS:
                    why = f"status {wc.status}"
                elif wc.wr_id >= SEND_ID:
                    sent = wc
                else:
                    got = wc
        if not why:
            echo_n = got.byte_len - GRH
            back = p.mr.read(echo_n, p.slot_off(q, 0) + GRH) if echo_n > 0 else b""
            if got.qp_num != p.qps[q].qp_num or echo_n != n or back != data:
                why = f"echo of {echo_n} bytes on qpn {got.qp_num:#x}"
        if why:
            failed += 1
            print(f"not ok {i + 2} echo size={n} qpn={p.qps[q].qp_num:#x} # {why}")
        else:
            print(f"ok {i + 2} echo size={n} qpn={p.qps[q].qp_num:#x}")
    us = (time.monotonic() - t0) * 1e6 / args.count
    print(f"# ud_verbs_peer: pass:{args.count - failed} fail:{failed}")
    print(f"# ud_verbs_peer: {us:.0f} us per round trip")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=["echo", "send"])
    ap.add_argument("--dev", default="rxe0")
    ap.add_argument("--nqp", type=int, default=1)
    ap.add_argument("--count", type=int, default=16)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--dest")
    ap.add_argument("--dqpns")
    ap.add_argument("--gid", choices=["ipv4", "ipv6"], default="ipv4")
    ap.add_argument("--timeout", type=float, default=60)
    args = ap.parse_args()
    if not 1 <= args.nqp <= 8 or args.size > MAX_PAYLOAD:
        ap.error("--nqp 1..8, --size at most 4096")
    if args.mode == "send" and not (args.dest and args.dqpns):
        ap.error("send needs --dest and --dqpns")
    return echo(args) if args.mode == "echo" else send(args)


if __name__ == "__main__":
    sys.exit(main())
