#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A user-space RC requester over libibverbs (pyverbs), for the stock guest.

It drives the passive end of the kernel test ULP (ulp/rdma_rc_ulp.c role=
passive), which echoes every SEND and exposes a registered buffer:

  rc_verbs_peer.py --peer "QPN PSN RKEY ADDR" --dest IP --line FILE --go FILE

--peer is the ULP's "local" line (hex).  The program connects its RC QP to
it, writes its own "QPN PSN 0 0" line to --line, waits for --go to exist
(the ULP has connected back), then: SENDs of several sizes, each echo
compared; an RDMA WRITE into the ULP's buffer; an RDMA READ of it back,
compared.  One KTAP line per step; exit status 0 if all passed.
"""

import argparse
import ipaddress
import os
import sys
import time

import pyverbs.enums as e
from pyverbs.addr import AHAttr, GID, GlobalRoute
from pyverbs.cq import CQ
from pyverbs.device import Context
from pyverbs.mr import MR
from pyverbs.pd import PD
from pyverbs.qp import QP, QPAttr, QPCap, QPInitAttr
from pyverbs.wr import SGE, RecvWR, SendWR

from ud_verbs_peer import find_sgid

PORT = 1
MTU = 1024
BUF = 64 * 1024


def pattern(seed, n):
    return bytes((seed * 131 + j * 7 + (j >> 8)) & 0xFF for j in range(n))


class Requester:
    def __init__(self, args):
        qpn, psn, rkey, addr = (int(x, 16) for x in args.peer.split())
        self.rkey, self.raddr = rkey, addr
        self.ctx = Context(name=args.dev)
        self.pd = PD(self.ctx)
        self.cq = CQ(self.ctx, 64)
        # tx | rx | rd, BUF bytes each
        self.mr = MR(self.pd, 3 * BUF, e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=8, max_recv_wr=8, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttr(qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq,
                          cap=cap)
        self.qp = QP(self.pd, init)
        dest = ipaddress.IPv6Address("::ffff:" + args.dest)
        gr = GlobalRoute(dgid=GID(val=dest.exploded),
                         sgid_index=find_sgid(args.dev, True), hop_limit=64)
        attr = QPAttr(port_num=PORT)
        attr.qp_access_flags = 0
        attr.path_mtu = e.IBV_MTU_1024
        attr.dest_qp_num = qpn
        attr.rq_psn = psn
        attr.max_dest_rd_atomic = 1
        attr.min_rnr_timer = 12
        attr.ah_attr = AHAttr(port_num=PORT, is_global=1, gr=gr)
        attr.sq_psn = args.psn
        attr.timeout = 17
        attr.retry_cnt = 7
        attr.rnr_retry = 7
        attr.max_rd_atomic = 1
        self.qp.to_rts(attr)
        self.n = 0
        self.failed = 0

    def result(self, ok, what, why=""):
        self.n += 1
        if ok:
            print(f"ok {self.n} {what}", flush=True)
        else:
            self.failed += 1
            print(f"not ok {self.n} {what} # {why}", flush=True)

    def wait(self, want, secs=30):
        """The completions of the wr_ids in @want, or an error string."""
        got = {}
        deadline = time.monotonic() + secs
        while len(got) < len(want):
            if time.monotonic() > deadline:
                return None, f"no completion for {sorted(set(want) - set(got))}"
            n, wcs = self.cq.poll(num_entries=8)
            if not n:
                time.sleep(0.0005)
            for wc in wcs:
                if wc.status != e.IBV_WC_SUCCESS:
                    return None, f"wr_id {wc.wr_id}: status {wc.status}"
                got[wc.wr_id] = wc
        return got, ""

    def sge(self, area, off, n):
        return SGE(self.mr.buf + area * BUF + off, n, self.mr.lkey)

    def send_echo(self, n, seed):
        data = pattern(seed, n)
        self.mr.write(b"\xee" * (n + 1), n + 1, BUF)
        self.mr.write(data, n, 0)
        self.qp.post_recv(RecvWR(wr_id=2, num_sge=1, sg=[self.sge(1, 0, BUF - 1)]))
        wr = SendWR(wr_id=1, opcode=e.IBV_WR_SEND, num_sge=1,
                    sg=[self.sge(0, 0, n)], send_flags=e.IBV_SEND_SIGNALED)
        self.qp.post_send(wr)
        got, why = self.wait([1, 2])
        if got:
            back = self.mr.read(n + 1, BUF)
            if got[2].byte_len != n or back[:n] != data or back[n] != 0xEE:
                why = f"echo of {got[2].byte_len} bytes differs"
        self.result(not why, f"SEND {n} bytes ({(n + MTU - 1) // MTU} packets) echoed", why)

    def rdma(self, op, area, off, n):
        wr = SendWR(wr_id=3, opcode=op, num_sge=1, sg=[self.sge(area, 0, n)],
                    send_flags=e.IBV_SEND_SIGNALED)
        wr.set_wr_rdma(self.rkey, self.raddr + off)
        self.qp.post_send(wr)
        return self.wait([3])[1]

    def run(self):
        for n, seed in ((1, 1), (MTU + 1, 2), (4 * MTU, 3)):
            self.send_echo(n, seed)
        n, off = 5 * MTU + 3, 512
        data = pattern(9, n)
        self.mr.write(data, n, 0)
        why = self.rdma(e.IBV_WR_RDMA_WRITE, 0, off, n)
        self.result(not why, f"RDMA WRITE {n} bytes ({(n + MTU - 1) // MTU} packets)", why)
        self.mr.write(b"\0" * n, n, 2 * BUF)
        why = self.rdma(e.IBV_WR_RDMA_READ, 2, off, n)
        if not why and self.mr.read(n, 2 * BUF) != data:
            why = "data read back differs from data written"
        self.result(not why, f"RDMA READ {n} bytes back, same data", why)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", default="rxe0")
    ap.add_argument("--peer", required=True)
    ap.add_argument("--dest", required=True)
    ap.add_argument("--psn", type=lambda x: int(x, 0), default=0xabc000)
    ap.add_argument("--line", required=True)
    ap.add_argument("--go", required=True)
    args = ap.parse_args()
    r = Requester(args)
    with open(args.line + ".tmp", "w") as f:
        f.write(f"{r.qp.qp_num:x} {args.psn:x} 0 0\n")
    os.rename(args.line + ".tmp", args.line)
    deadline = time.monotonic() + 60
    while not os.path.exists(args.go):
        if time.monotonic() > deadline:
            print("not ok 1 the ULP connected back # timeout")
            return 1
        time.sleep(0.1)
    print("KTAP version 1")
    print("1..5")
    r.run()
    print(f"# rc_verbs_peer: pass:{r.n - r.failed} fail:{r.failed}")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
