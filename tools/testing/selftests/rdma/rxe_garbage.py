#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send malformed RoCE v2 datagrams to a peer's UDP port 4791.

    rxe_garbage.py --v4 A.B.C.D --v6 fe80::...%IF --src6 fe80::... \\
                   --qpn N --qkey K [--mtu 1024] [--seed S] OUT.json

Every datagram is one the receiver must drop.  For each, the cause the
receive path of our rdma_rxe must count it under is worked out here,
independently of the kernel code, from the order of checks its
rxe_recv.c documents:

  IPv4 header with options                  drop_malformed
  transport headers (BTH + extension headers per opcode):
    shorter than BTH + ICRC                 drop_length
    opcode unknown / transport not RC UC UD drop_opcode
    BTH transport version not 0             drop_version
    shorter than the opcode's headers+ICRC  drop_length
    pad > bytes left, payload not a
    multiple of 4, payload where the opcode
    has none, payload > 4096                drop_length
  ICRC                                      drop_icrc
  P_Key (default partition 0xffff)          drop_pkey
  destination QP does not exist             drop_qpn
  opcode not of the QP's transport (UD)     drop_opcode
  UD: Q_Key                                 drop_qkey
  UD: payload > path MTU                    drop_length

The receiver has exactly one QP (--qpn, UD, Q_Key --qkey, in RTS) besides
QP 1, the GSI QP of its MAD layer (Q_Key 0x80010000).
IPv4 datagrams are sent through a raw socket with a header written here
(so the ICRC, which covers most of the IP header, is known), IPv6 ones
through a UDP socket bound to a known address and port; datagrams larger
than the link are sent through plain UDP sockets and fragmented by the
kernel, with a payload so large that the length check drops them before
the ICRC is looked at.

OUT.json gets {"sent": N, "causes": {"drop_length": n, ...},
"families": {"ipv4": n, "ipv6": n}, "categories": {...}}.
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
from roce_lib import (PORT, QPN_MASK, UD, bth, icrc,  # noqa: E402
                      ipv4_hdr, ipv6_hdr, opcode_info)


# QP 1 of the receiver's MAD layer and the only Q_Key it takes.
GSI_QPN = 1
GSI_QKEY = 0x80010000


class Peer:
    """What the receiver has: one UD QP (and QP 1, see GSI_QPN)."""

    def __init__(self, qpn, qkey, mtu):
        self.qpn, self.qkey, self.mtu = qpn, qkey, mtu


def classify(peer, l3, v6, udp):
    """The drop counter our receive path must count @udp under.

    @l3 is the IP header as it arrives (None when unknown: then the
    packet must be dropped before the ICRC is checked).  Returns None
    for a datagram that would be accepted.
    """
    if not v6 and l3 is not None and (l3[0] & 0x0f) != 5:
        return "drop_malformed"
    b = udp[8:]
    n = len(b)
    if n < 12 + 4:
        return "drop_length"
    info = opcode_info(b[0])
    if info is None:
        return "drop_opcode"
    tp, payload_ok, hlen = info
    if b[1] & 0x0f:
        return "drop_version"
    if n < hlen + 4:
        return "drop_length"
    rest = n - hlen - 4
    pad = (b[1] >> 4) & 3
    if pad > rest or rest & 3 or (not payload_ok and rest):
        return "drop_length"
    paylen = rest - pad
    if paylen > 4096:
        return "drop_length"
    if l3 is None:
        raise ValueError("packet reaches the ICRC check with an unknown IP header")
    if icrc(l3, v6, udp[:-4]) != udp[-4:]:
        return "drop_icrc"
    pkey = struct.unpack('>H', b[2:4])[0]
    if not pkey & 0x7fff or (pkey & 0x7fff) != 0x7fff:
        return "drop_pkey"
    qpn = int.from_bytes(b[5:8], 'big')
    if qpn == GSI_QPN:
        qp_qkey = GSI_QKEY
    elif qpn == peer.qpn:
        qp_qkey = peer.qkey
    else:
        return "drop_qpn"
    if tp != UD:
        return "drop_opcode"
    qkey = struct.unpack('>I', b[12:16])[0]
    if qkey != qp_qkey:
        return "drop_qkey"
    if paylen > peer.mtu:
        return "drop_length"
    return None


# ---- packet builders --------------------------------------------------------

def deth(qkey, sqpn=0x11):
    return struct.pack('>II', qkey & 0xffffffff, sqpn & QPN_MASK)


class Sender:
    """Sends datagrams of one IP family and records what was sent."""

    def __init__(self, args, peer, v6, tally):
        self.peer, self.v6, self.tally = peer, v6, tally
        self.sport = 50000 + (1 if v6 else 0)
        self.gap = args.gap
        if v6:
            dst, scope = args.v6.split('%')
            self.dst, self.src = dst, args.src6
            self.sock = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            idx = socket.if_nametoindex(scope)
            self.sock.bind((self.src, self.sport, 0, idx))
            self.addr = (self.dst, PORT, 0, idx)
            self.big = self.sock
        else:
            self.dst, self.src = args.v4, args.src4
            self.sock = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                      socket.IPPROTO_RAW)
            self.addr = (self.dst, 0)
            self.big = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self.big.bind((self.src, self.sport + 2))
        self.ident = 0x1000

    def l3(self, ulen, options=b''):
        if self.v6:
            return ipv6_hdr(self.src, self.dst, ulen)
        self.ident += 1
        return ipv4_hdr(self.src, self.dst, ulen, self.ident, options)

    def udp(self, body, sport=None):
        return struct.pack('>HHHH', sport or self.sport, PORT,
                           8 + len(body), 0) + body

    def send(self, category, body, with_icrc=True, icrc_xor=0, options=b'',
             may_pass=False):
        """Send @body (BTH on) plus the ICRC of what is sent, if asked."""
        ulen = 8 + len(body) + (4 if with_icrc else 0)
        l3 = self.l3(ulen, options)
        udp = struct.pack('>HHHH', self.sport, PORT, ulen, 0) + body
        if with_icrc:
            crc = bytearray(icrc(l3, self.v6, udp))
            crc[0] ^= icrc_xor
            udp += bytes(crc)
        return self.emit(category, l3, udp, may_pass)

    def send_raw(self, category, body):
        """Send @body as the UDP payload, as it is."""
        ulen = 8 + len(body)
        self.emit(category, self.l3(ulen), self.udp(body))

    def emit(self, category, l3, udp, may_pass=False):
        """Send one datagram; one that would be accepted is an error,
        or with @may_pass not sent: returns whether it was sent."""
        cause = classify(self.peer, l3, self.v6, udp)
        if cause is None:
            if may_pass:
                return False
            raise ValueError("%s: would be accepted" % category)
        if self.v6:
            # The kernel writes the same IPv6 and UDP headers (the UDP
            # checksum, which the ICRC does not cover, apart).
            self.sock.sendto(udp[8:], self.addr)
        else:
            self.sock.sendto(l3 + udp, self.addr)
        self.count(category, cause)
        return True

    def send_big(self, category, body):
        """A datagram the kernel fragments; ICRC never reached."""
        udp = self.udp(body)
        cause = classify(self.peer, None, self.v6, udp)
        self.big.sendto(body, self.addr if self.v6 else (self.dst, PORT))
        self.count(category, cause)

    def count(self, category, cause):
        t = self.tally
        t["sent"] += 1
        t["causes"][cause] = t["causes"].get(cause, 0) + 1
        fam = "ipv6" if self.v6 else "ipv4"
        t["families"][fam] = t["families"].get(fam, 0) + 1
        c = t["categories"].setdefault(category, {})
        c[cause] = c.get(cause, 0) + 1
        time.sleep(self.gap)


def ud_send(peer, payload=b'', qkey=None, qpn=None, op=0x64, **kw):
    pad = (-len(payload)) & 3
    kw.setdefault('pad', pad)
    return (bth(op, peer.qpn if qpn is None else qpn, **kw) +
            deth(peer.qkey if qkey is None else qkey) + payload +
            b'\0' * pad)


def run(s, peer, rnd, nrandom):
    p64 = bytes(range(64))
    good = ud_send(peer, p64)

    # Every truncation of a valid datagram (with its ICRC) to 0..60 bytes.
    ulen = 8 + len(good) + 4
    full = good + icrc(s.l3(ulen), s.v6,
                       struct.pack('>HHHH', s.sport, PORT, ulen, 0) + good)
    for n in range(0, 61):
        s.send_raw("truncated", full[:n])

    # Bad opcodes, each with a well-formed rest and a valid ICRC.
    for op in (0x40, 0x41, 0x64 | 0x80, 0x81, 0xa0, 0xc0, 0xff, 0x15,
               0x35, 0x66, 0x6c, 0x71):
        s.send("bad_opcode", bth(op, peer.qpn) + deth(peer.qkey) + p64[:16])
    for op in (0x04, 0x24, 0x0a, 0x2a):     # RC/UC opcodes to the UD QP
        s.send("rc_uc_opcode_to_ud_qp", bth(op, peer.qpn) + p64[:16])
    s.send("rc_opcode_to_ud_qp", bth(0x11, peer.qpn) + struct.pack('>I', 0))
    s.send("rc_opcode_to_ud_qp", bth(0x0c, peer.qpn) + p64[:16])

    # Transport version.
    for tver in (1, 2, 15):
        s.send("bad_version", ud_send(peer, p64[:8], tver=tver))

    # Lengths and pad that disagree.
    s.send("pad_gt_payload", ud_send(peer, b'', pad=3))
    s.send("pad_gt_payload", ud_send(peer, b'', pad=1))
    s.send("payload_not_x4", bth(0x64, peer.qpn) + deth(peer.qkey) + p64[:5])
    s.send("payload_not_x4", bth(0x64, peer.qpn, pad=1) + deth(peer.qkey) +
           p64[:6])
    s.send("payload_on_ack", bth(0x11, peer.qpn) + struct.pack('>I', 0) +
           p64[:4])
    s.send("payload_on_read_req", bth(0x0c, peer.qpn) + p64[:16] + p64[:8])
    s.send("short_headers", bth(0x64, peer.qpn) + p64[:4])
    s.send("short_headers", bth(0x13, peer.qpn) + p64[:20])
    s.send("payload_over_mtu", ud_send(peer, bytes(peer.mtu + 4)))
    s.send("payload_over_mtu", ud_send(peer, bytes(1200)))

    # Bad ICRC.
    for x in (1, 0x80, 0xff):
        s.send("bad_icrc", good, icrc_xor=x)
    s.send("no_icrc", good, with_icrc=False)

    # Valid ICRC, bad fields.
    for pkey in (0x0000, 0x8000, 0x1234, 0x0001, 0x7ffe):
        s.send("bad_pkey", ud_send(peer, p64[:8], pkey=pkey))
    for qpn in (0, 2, 0xffffff, 0x123456, peer.qpn + 1, peer.qpn ^ 0x800000):
        s.send("unknown_qpn", ud_send(peer, p64[:8], qpn=qpn))
    s.send("gsi_wrong_qkey", ud_send(peer, p64[:8], qpn=GSI_QPN))
    for qkey in (0, peer.qkey ^ 1, 0x80010000, peer.qkey | 0x80000000,
                 0xffffffff):
        if qkey != peer.qkey:
            s.send("wrong_qkey", ud_send(peer, p64[:8], qkey=qkey))
    s.send("wrong_qkey", bth(0x65, peer.qpn) + deth(peer.qkey ^ 2) +
           b'\1\2\3\4' + p64[:8])
    if not s.v6:
        s.send("ipv4_options", good, options=b'\x01\x01\x01\x00')

    # Oversize: fragmented by the sender's kernel.
    for n in (4200, 9000, 30000, 65000):
        s.send_big("oversize", ud_send(peer, bytes(n)))

    # Random bytes, and random bytes after a valid BTH + DETH.
    for _ in range(nrandom):
        n = rnd.randrange(0, 200)
        s.send_raw("random", bytes(rnd.getrandbits(8) for _ in range(n)))
    # A byte of the headers changed, random payload, with or without a
    # valid ICRC; a change the receiver would accept (PSN, solicited bit,
    # source QP...) is drawn again.
    sent = 0
    while sent < nrandom:
        n = rnd.randrange(0, 120)
        body = bytearray(good[:20] + bytes(rnd.getrandbits(8)
                                           for _ in range(n)))
        body[rnd.randrange(0, 20)] = rnd.getrandbits(8)
        sent += s.send("random_after_headers", bytes(body),
                       with_icrc=rnd.random() < 0.5, may_pass=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--v4', required=True)
    ap.add_argument('--src4', required=True)
    ap.add_argument('--v6', required=True, help='fe80::...%%IF')
    ap.add_argument('--src6', required=True)
    ap.add_argument('--qpn', type=lambda x: int(x, 0), required=True)
    ap.add_argument('--qkey', type=lambda x: int(x, 0), required=True)
    ap.add_argument('--mtu', type=int, default=1024)
    ap.add_argument('--seed', type=int, default=4791)
    ap.add_argument('--random', type=int, default=100)
    ap.add_argument('--gap', type=float, default=0.003)
    ap.add_argument('out')
    args = ap.parse_args()
    peer = Peer(args.qpn, args.qkey, args.mtu)
    tally = {"sent": 0, "causes": {}, "families": {}, "categories": {}}
    rnd = random.Random(args.seed)
    for v6 in (False, True):
        run(Sender(args, peer, v6, tally), peer, rnd, args.random)
    with open(args.out, 'w') as f:
        json.dump(tally, f, indent=1, sort_keys=True)
    print("sent %d" % tally["sent"])
    for k, v in sorted(tally["causes"].items()):
        print("%s %d" % (k, v))
    return 0


if __name__ == '__main__':
    sys.exit(main())
