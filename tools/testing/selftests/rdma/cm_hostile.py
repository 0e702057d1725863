#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A connection-manager peer written by hand, over raw RoCE v2 (IPv4).

It speaks to QP 1 of the host at --dst from a host with no RDMA device:
its MADs go out through a raw socket with an IP header and ICRC computed
here, the answers come back to a UDP socket on port 4791.  First it makes
one real connection with the server listening on --sid (REQ, the server's
REP, RTU), then it sends what a broken or hostile peer would:

  the same REQ three more times (duplicates: nothing new may happen),
  truncated MADs, a CM MAD of class version 1, an unknown CM attribute
  and a LAP, malformed REQs (QP 0, MTU code 7, transport 2) and REJs (no
  IDs, an ARI of 100 bytes), RTU/REP/MRA/DREP naming IDs nobody has, an
  RTU with the right ID of ours but the wrong one of theirs, a DREQ with
  the right IDs but another QP,

and ends the connection with a DREQ the server must answer with a DREP.
OUT.json gets the counts the receiver's CM and MAD layer must show:
{"duplicates": 3, "drops": {"unknown": n, ...}, "mad_bad": n,
"mad_unclaimed": n, "drep": true}.
"""
import argparse
import json
import os
import random
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce_lib import PORT, bth, icrc, ipv4_hdr  # noqa: E402

GSI_QKEY = 0x80010000
REQ, MRA, REJ, REP, RTU, DREQ, DREP, LAP = 0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x19
CA_GUID = 0x02005efffe123456
OUR_QPN = 0x1234


def v4mapped(ip):
    return b'\0' * 10 + b'\xff\xff' + socket.inet_aton(ip)


class Peer:
    def __init__(self, args):
        self.src, self.dst = args.src, args.dst
        self.tx = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                socket.IPPROTO_RAW)
        self.rx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.rx.bind((self.src, PORT))
        self.ident = 0x2000
        self.tid = random.getrandbits(32) << 32

    def send_ud(self, payload):
        """A UD SEND from QP 1 to QP 1 carrying @payload."""
        body = (bth(0x64, 1, pad=(-len(payload)) & 3) +
                struct.pack('>II', GSI_QKEY, 1) + payload +
                b'\0' * ((-len(payload)) & 3))
        ulen = 8 + len(body) + 4
        self.ident += 1
        l3 = ipv4_hdr(self.src, self.dst, ulen, self.ident)
        udp = struct.pack('>HHHH', 49152, PORT, ulen, 0) + body
        self.tx.sendto(l3 + udp + icrc(l3, False, udp), (self.dst, 0))

    def send_mad(self, attr, cm, version=2, tid=None):
        """A CM MAD (method SEND) with the 232 bytes @cm after its header."""
        hdr = struct.pack('>BBBBHHQHHI', 1, 7, version, 3, 0, 0,
                          self.tid if tid is None else tid, attr, 0, 0)
        self.send_ud(hdr + cm.ljust(232, b'\0')[:232])

    def recv_mad(self, attr, timeout=5.0):
        """The next CM MAD of attribute @attr: its 232 bytes, or None."""
        end = time.time() + timeout
        while time.time() < end:
            self.rx.settimeout(max(0.05, end - time.time()))
            try:
                data, _ = self.rx.recvfrom(4096)
            except socket.timeout:
                break
            mad = data[12 + 8:12 + 8 + 256]     # after BTH and DETH
            if len(mad) == 256 and mad[1] == 7 and \
               struct.unpack('>H', mad[16:18])[0] == attr:
                return mad[24:]
        return None


def req(args, local_id, qpn=OUR_QPN, mtu=3, transport=0):
    m = bytearray(232)
    struct.pack_into('>I', m, 0, local_id)
    struct.pack_into('>Q', m, 8, args.sid)
    struct.pack_into('>Q', m, 16, CA_GUID)
    struct.pack_into('>I', m, 32, qpn << 8 | 1)      # QPN, responder resources
    struct.pack_into('>I', m, 36, 1)                 # EECN 0, initiator depth 1
    m[43] = 20 << 3 | transport << 1                 # remote CM timeout
    struct.pack_into('>I', m, 44, 0x5000 << 8 | 16 << 3 | 7)  # PSN, local CM timeout, retry
    struct.pack_into('>H', m, 48, 0xffff)
    m[50] = mtu << 4 | 7                             # MTU, RNR retry
    m[51] = 1 << 4                                   # Max CM Retries 1
    struct.pack_into('>HH', m, 52, 0xffff, 0xffff)
    m[56:72] = v4mapped(args.src)
    m[72:88] = v4mapped(args.dst)
    m[93] = 64
    m[95] = 17 << 3
    m[140:153] = b'CLIENT_HELLO\0'                  # what rdma_ibcm_ulp wants
    return bytes(m)


def ids(local, remote, rest=b''):
    return struct.pack('>II', local, remote) + rest


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src', required=True)
    ap.add_argument('--dst', required=True)
    ap.add_argument('--sid', type=lambda s: int(s, 0), required=True)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    p = Peer(args)
    drops = {"unknown": 0, "malformed": 0, "no_id": 0, "state": 0}
    mad_bad = 0
    x = random.getrandbits(31) | 1

    the_req = req(args, x)
    p.send_mad(REQ, the_req)
    rep = p.recv_mad(REP)
    if rep is None or struct.unpack('>I', rep[4:8])[0] != x:
        print("no REP for our REQ", file=sys.stderr)
        return 1
    y = struct.unpack('>I', rep[0:4])[0]
    server_qpn = struct.unpack('>I', rep[12:16])[0] >> 8
    p.send_mad(RTU, ids(x, y))
    time.sleep(0.3)

    for _ in range(3):
        p.send_mad(REQ, the_req)
    for n in (0, 24, 100):
        p.send_ud(struct.pack('>BBBB', 1, 7, 2, 3) + b'\0' * max(0, n - 4))
        mad_bad += 1
    p.send_mad(REQ, req(args, x + 2), version=1)
    mad_unclaimed = 1
    for attr in (0x30, 0x31, LAP):
        p.send_mad(attr, ids(x, y))
        drops["unknown"] += 1
    for bad in (req(args, x + 4, qpn=0), req(args, x + 6, mtu=7),
                req(args, x + 8, transport=2)):
        p.send_mad(REQ, bad)
        drops["malformed"] += 1
    p.send_mad(REJ, ids(0, 0, b'\0\0\x00\x1c'))
    p.send_mad(REJ, ids(x, y, b'\0' + bytes([100 << 1]) + b'\x00\x1c'))
    drops["malformed"] += 2
    for attr in (RTU, REP, MRA, DREP):
        rest = struct.pack('>II', 0, OUR_QPN << 8) if attr == REP else b''
        p.send_mad(attr, ids(random.getrandbits(31) | 1,
                             random.getrandbits(31) | 1, rest))
        drops["no_id"] += 1
    p.send_mad(RTU, ids(x + 1, y))
    drops["no_id"] += 1
    p.send_mad(DREQ, ids(x, y, struct.pack('>I', (server_qpn ^ 0x55) << 8)))
    drops["state"] += 1
    time.sleep(0.5)

    p.tid += 1
    p.send_mad(DREQ, ids(x, y, struct.pack('>I', server_qpn << 8)))
    drep = p.recv_mad(DREP)
    ok = drep is not None and struct.unpack('>II', drep[0:8]) == (y, x)
    with open(args.out, 'w') as f:
        json.dump({"duplicates": 3, "drops": drops, "mad_bad": mad_bad,
                   "mad_unclaimed": mad_unclaimed, "drep": ok}, f)
    if not ok:
        print("no DREP for our DREQ", file=sys.stderr)
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
