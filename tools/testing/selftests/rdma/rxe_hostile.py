#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile host on the RoCE v2 wire (IPv4), for tests/rxe_hostile.sh.

    rxe_hostile.py third-host --ifname IF --victim IP,MAC --peer IP \\
        --forge IP,MAC --victim-line LINE --peer-line LINE \\
        [--expect drop|report] [--ready FILE] [--stop FILE] OUT.json
    rxe_hostile.py peer SCENARIO --ifname IF --victim IP,MAC --me IP,MAC \\
        --line FILE --go FILE OUT.json

A LINE is what ulp/rdma_rc_ulp.c prints for one end of its RC
connection: "QPN PSN RKEY ADDR" in hex.  Frames are sent and captured on
an AF_PACKET socket, so any source address can be written; every packet
sent carries a valid ICRC.  The results are printed as KTAP and written
to OUT.json ({"sent": packets sent, ...}).

third-host: runs on the guest of the victim's peer, while the peer's
rdma_rc_ulp answers the victim's (active, first PSN from the victim's
LINE).  The test drops the first DROPS copies of each of the victim's
first four request packets at the peer (TRIGGERS): the victim waits for
an answer to each until its local ACK timeout resends it, and once it
sends one the tool forges, from --forge (an address and MAC that are
not the peer's):

  to the victim's requester, for the waiting PSN:
    ack          an ACK             accepted: the PSN is not resent
    nak-seq      a sequence NAK     accepted: resent at once
    nak-access   a remote access NAK  accepted: not resent (QP error)
    nak-inval    an invalid request NAK  accepted: not resent
  to the victim's responder, at the PSN it expects next from the peer
  (followed on the wire), all with AckReq set:
    read         an RDMA READ of the victim's MR
    read-dup     the same READ with a PSN three older (a duplicate no
                 READ ever used)
    write-first  an RDMA WRITE FIRST into the MR, no LAST
    read-giant   READs of 2^31+1 and 0xffffffff bytes
               accepted: the victim answers (a READ response, an ACK
               or a NAK carrying one of those PSNs goes to the peer)

With --expect drop every probe must have been refused; with --expect
report (a stack that is not ours) what the victim did is only reported.
Either way the tool fails if it did not see the connection or a
trigger, or forged only after the copy the peer let through.

peer: the tool is the victim's peer at its real address.  It writes to
--line the "QPN PSN 0 0" line the test hands the victim's passive
rdma_rc_ulp (a QPN that exists nowhere and a PSN chosen here), waits
until --go holds the victim's LINE (the victim is connected by then),
sends the scenario's requests with exactly the PSNs the victim expects
and checks the answers:

  read-huge    READ of 2^31+1 bytes: NAK invalid request, QP in error
  read-max     READ of 0xffffffff bytes: the same
  reads        WRITE of 4 KiB, READ of the whole 64 KiB MR (compared);
               duplicate READs with a PSN no READ used or asking more
               than the rest of the original: no answer; a duplicate
               asking exactly the rest: answered; a new READ: answered;
               a READ past the MR's end: NAK remote access, QP in error
  write-first  WRITE FIRST without the rest (the test then unloads the
               victim's ULP)

"QP in error" is seen as a READ at the refused PSN that gets no answer.
"""
import argparse
import json
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roce_lib import (ACK, AETH, PORT, PSN_MASK, READ_REQUEST,  # noqa: E402
                      READ_RESP_FIRST, READ_RESP_LAST, READ_RESP_MIDDLE,
                      READ_RESP_ONLY, RETH, SYN_ACK, SYN_NAK_INV_REQ,
                      SYN_NAK_REM_ACCESS, SYN_NAK_SEQ, WRITE_FIRST,
                      WRITE_LAST, WRITE_MIDDLE, bth, ext_offset, icrc,
                      ipv4_hdr, is_response, opcode_info, split_frame)

ETH_P_ALL = 0x0003
SO_TIMESTAMPNS = 35
# The victim's rdma_rc_ulp MR: 64 KiB, zeroed but for the word its
# atomics work on (0x1000, little endian, 64 bytes before the end).
MR_BYTES = 64 * 1024
MR_WORD_OFF = MR_BYTES - 64
MR_WORD = 0x1000
SPORT = 0xc5a5
QUIET = 1.0             # seconds without an answer that mean "none"

# third-host: (offset of the victim's request PSN, requester probe,
# responder probe).  tests/rxe_hostile.sh drops the first DROPS copies of
# those PSNs at the peer.
TRIGGERS = ((0, 'ack', 'read'), (1, 'nak-seq', 'read-dup'),
            (2, 'nak-access', 'write-first'), (3, 'nak-inval', 'read-giant'))
DROPS = 2
WINDOW = 4.0            # seconds a trigger waits for the victim to resend

# peer: QPN and first PSN the tool claims in each scenario (those of
# "reads" wrap through 0).
SCENARIOS = {
    'read-huge': (0x0badc1, 0x100000),
    'read-max': (0x0badc2, 0x200000),
    'reads': (0x0badc3, 0xfffffc),
    'write-first': (0x0badc4, 0x300000),
}


def psn_add(psn, n):
    return (psn + n) & PSN_MASK


def aeth(syn, msn):
    return struct.pack('>I', (syn << 24) | (msn & 0xffffff))


def reth(va, rkey, length):
    return struct.pack('>QII', va, rkey, length)


def parse_line(line):
    """QPN, PSN, RKEY, ADDR of a rdma_rc_ulp line."""
    f = line.split()
    if len(f) != 4:
        raise ValueError('not "QPN PSN RKEY ADDR": %r' % line)
    return tuple(int(x, 16) for x in f)


def parse_host(text):
    """IP,MAC -> (IP, MAC bytes)."""
    ip, mac = text.split(',')
    return ip, bytes(int(x, 16) for x in mac.split(':'))


def mr_image(written=b''):
    """What the victim's MR holds after @written went to its start."""
    img = bytearray(MR_BYTES)
    img[:len(written)] = written
    img[MR_WORD_OFF:MR_WORD_OFF + 8] = struct.pack('<Q', MR_WORD)
    return bytes(img)


class Pkt:
    """One captured RoCE v2 packet (RC), the fields the tool looks at."""

    def __init__(self, ts, fr):
        b = fr.udp[8:]
        self.ts, self.src, self.dst = ts, fr.src, fr.dst
        self.op = b[0]
        self.dqpn = int.from_bytes(b[5:8], 'big')
        self.psn = int.from_bytes(b[9:12], 'big')
        self.syn = self.msn = None
        off = ext_offset(self.op, AETH)
        if off is not None:
            self.syn, self.msn = b[off], int.from_bytes(b[off + 1:off + 4],
                                                        'big')
        self.rlen = 0
        off = ext_offset(self.op, RETH)
        if off is not None:
            self.rlen = struct.unpack('>I', b[off + 12:off + 16])[0]
        pad = (b[1] >> 4) & 3
        self.payload = b[opcode_info(self.op)[2]:len(b) - 4 - pad]

    def __str__(self):
        s = 'opcode %#x PSN %#x' % (self.op, self.psn)
        if self.syn is not None:
            s += ' syndrome %#x' % self.syn
        return s


class Wire:
    """An AF_PACKET socket on one interface: sends RoCE v2 frames with any
    addresses, captures every RoCE v2 packet going in or out."""

    def __init__(self, ifname):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                          socket.htons(ETH_P_ALL))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        s.bind((ifname, ETH_P_ALL))
        self.sock = s
        self.ident = os.getpid() & 0xffff
        self.sent = 0

    def send(self, src, smac, dst, dmac, body):
        """Send @body (BTH on) from @src/@smac to @dst/@dmac."""
        ulen = 8 + len(body) + 4
        self.ident = (self.ident + 1) & 0xffff
        l3 = ipv4_hdr(src, dst, ulen, self.ident)
        udp = struct.pack('>HHHH', SPORT, PORT, ulen, 0) + body
        self.sock.send(dmac + smac + b'\x08\x00' + l3 + udp +
                       icrc(l3, False, udp))
        self.sent += 1

    def recv(self, timeout):
        """The next RoCE v2 packet, or None after @timeout seconds."""
        end = time.time() + timeout
        while True:
            left = end - time.time()
            if left <= 0 or not select.select([self.sock], [], [], left)[0]:
                return None
            data, anc, _, _ = self.sock.recvmsg(65535,
                                                socket.CMSG_SPACE(16))
            ts = time.time()
            for level, kind, val in anc:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = struct.unpack('=qq', val[:16])
                    ts = sec + nsec / 1e9
            fr = split_frame(data)
            if (fr is None or fr.v6 or len(fr.udp) < 8 + 12 + 4 or
                    struct.unpack('>H', fr.udp[2:4])[0] != PORT):
                continue
            info = opcode_info(fr.udp[8])
            if info is None or len(fr.udp) < 8 + info[2] + 4:
                continue
            return Pkt(ts, fr)


class Ktap:
    def __init__(self):
        self.n = self.failed = 0

    def result(self, ok, desc, why=''):
        self.n += 1
        if ok:
            print('ok %d %s' % (self.n, desc))
        else:
            self.failed += 1
            print('not ok %d %s # %s' % (self.n, desc, why or 'failed'))
        sys.stdout.flush()
        return ok

    @staticmethod
    def diag(text):
        print('# ' + text)
        sys.stdout.flush()


# ---- third host ------------------------------------------------------------

class Trigger:
    """A PSN of the victim the peer drops DROPS times, and its probes."""

    def __init__(self, off, psn, req, resp):
        self.off, self.psn, self.req, self.resp = off, psn, req, resp
        self.copies = []        # when each copy of it went past
        self.fired = self.closed = None
        self.resp_psns = set()
        self.reactions = []
        self.done = False

    def before(self):
        """Copies of the PSN sent before the probes left."""
        return [c for c in self.copies if c < self.fired]

    def after(self):
        """The first copy sent after the probes left, or None."""
        return next((c for c in self.copies if c > self.fired), None)


class ThirdHost:
    def __init__(self, a):
        self.a = a
        self.wire = Wire(a.ifname)
        self.victim, self.vmac = parse_host(a.victim)
        self.forge, self.fmac = parse_host(a.forge)
        self.peer = a.peer
        self.vqpn, vpsn, self.rkey, self.va = parse_line(a.victim_line)
        self.pqpn, self.expected, _, _ = parse_line(a.peer_line)
        self.msn = 0
        self.seen = 0
        self.triggers = {}
        for off, req, resp in TRIGGERS:
            psn = psn_add(vpsn, off)
            self.triggers[psn] = Trigger(off, psn, req, resp)

    def forge_to_victim(self, body):
        self.wire.send(self.forge, self.fmac, self.victim, self.vmac, body)

    def fire(self, t):
        """Forge the trigger's two probes."""
        a = self.a
        syn = {'ack': SYN_ACK, 'nak-seq': SYN_NAK_SEQ,
               'nak-access': SYN_NAK_REM_ACCESS,
               'nak-inval': SYN_NAK_INV_REQ}[t.req]
        self.forge_to_victim(bth(ACK, self.vqpn, psn=t.psn) +
                             aeth(syn, self.msn + (syn == SYN_ACK)))
        e = self.expected
        reads = []
        if t.resp == 'read':
            reads = [(e, 64)]
        elif t.resp == 'read-dup':
            reads = [(psn_add(e, -3), 64)]
        elif t.resp == 'read-giant':
            reads = [(e, (1 << 31) + 1), (e, 0xffffffff)]
        for psn, length in reads:
            t.resp_psns.add(psn)
            self.forge_to_victim(bth(READ_REQUEST, self.vqpn, psn=psn,
                                     ackreq=True) +
                                 reth(self.va, self.rkey, length))
        if t.resp == 'write-first':
            t.resp_psns.add(e)
            self.forge_to_victim(bth(WRITE_FIRST, self.vqpn, psn=e,
                                     ackreq=True) +
                                 reth(self.va, self.rkey, 4 * a.mtu) +
                                 b'\x5a' * a.mtu)
        t.fired = time.time()

    def packet(self, p):
        if p.src == self.victim and p.dst == self.peer:
            self.seen += 1
            if not is_response(p.op):
                t = self.triggers.get(p.psn)
                if t is not None and not t.done:
                    t.copies.append(p.ts)
                    if t.fired is None:
                        self.fire(t)
            else:
                for t in self.triggers.values():
                    if t.fired and not t.done and p.psn in t.resp_psns:
                        t.reactions.append(str(p))
        elif p.src == self.peer and p.dst == self.victim:
            self.seen += 1
            if is_response(p.op):
                if p.msn is not None:
                    self.msn = p.msn
            elif p.op & 0x1f == READ_REQUEST:
                self.expected = psn_add(p.psn, max(1, -(-p.rlen //
                                                       self.a.mtu)))
            else:
                self.expected = psn_add(p.psn, 1)

    def close_windows(self, now, stopping):
        """A trigger's window ends when the victim resent its PSN after
        the probes, after WINDOW seconds, or when the tool stops."""
        for t in self.triggers.values():
            if t.fired and not t.done and (t.after() is not None or
                                           now > t.fired + WINDOW or
                                           stopping):
                t.done = True
                t.closed = now

    def run(self):
        a = self.a
        if a.ready:
            open(a.ready, 'w').close()
        end = time.time() + a.deadline
        while True:
            stopping = (time.time() > end or
                        (a.stop and os.path.exists(a.stop)))
            self.close_windows(time.time(), stopping)
            if stopping or all(t.done for t in self.triggers.values()):
                break
            p = self.wire.recv(0.1)
            if p is not None and p.dqpn in (self.vqpn, self.pqpn):
                self.packet(p)
        return self.report()

    def verdict(self, t):
        """(requester probe accepted, evidence), (responder ..., ...).

        A resend the victim's local ACK timeout makes comes about a
        timeout after the copy before it; one a sequence NAK makes comes
        at once after the NAK.
        """
        timeout = self.a.ack_timeout_ms / 1000.0
        c, prev = t.after(), t.before()[-1]
        if len(t.before()) > DROPS:
            late = (None, 'forged after the peer had the PSN: no verdict')
            return late, late
        if c is None:
            rq = (t.req != 'nak-seq', 'not resent within %.1f s' %
                  (t.closed - t.fired))
        else:
            rq = (t.req == 'nak-seq' and c - t.fired < 0.4 * timeout and
                  c - prev < 0.6 * timeout,
                  'resent %d ms after it, %d ms after the copy before '
                  '(ACK timeout %d ms)' % ((c - t.fired) * 1000,
                                           (c - prev) * 1000,
                                           timeout * 1000))
        rs = (bool(t.reactions),
              'answered: ' + ', '.join(t.reactions[:3]) if t.reactions
              else 'no answer')
        return rq, rs

    def report(self):
        a, k = self.a, Ktap()
        ts = sorted(self.triggers.values(), key=lambda t: t.off)
        fired = [t for t in ts if t.fired]
        out = []
        for t in fired:
            for (acc, ev), name in zip(self.verdict(t), (t.req, t.resp)):
                out.append({'probe': name, 'trigger': t.psn,
                            'accepted': acc, 'evidence': ev})
        # A victim that took a probe may stop sending (its QP in error,
        # or waiting for an answer that will never come): the triggers
        # after that one are not the tool's failure when only reporting.
        missing = [t for t in ts if not t.fired]
        taken = [t.off for t in fired for o in out
                 if o['trigger'] == t.psn and o['accepted']]
        if a.expect == 'report' and taken:
            missing = [t for t in missing if t.off < min(taken)]
        k.result(self.seen > 0, 'sniffed the connection (%d packets)' %
                 self.seen, 'nothing between %s and %s' % (self.victim,
                                                            self.peer))
        k.result(fired and not missing,
                 'forged at the victim\'s waiting PSNs (%d of %d)' %
                 (len(fired), len(ts)),
                 'PSNs never seen: %s' % ' '.join('%#x' % t.psn for t in ts
                                                  if not t.fired))
        late = [t for t in fired if len(t.before()) > DROPS]
        k.result(fired and not late,
                 'every probe forged while the peer still dropped the PSN',
                 'late at %s' % ' '.join('%#x' % t.psn for t in late))
        for o in out:
            desc = 'forged %s (trigger PSN %#x) from %s' % (
                o['probe'], o['trigger'], self.forge)
            if a.expect == 'drop' and o['accepted'] is not None:
                k.result(not o['accepted'], desc + ' refused (%s)' %
                         o['evidence'], 'accepted: ' + o['evidence'])
            else:
                k.diag('%s %s: %s' % (desc, {None: 'unknown', True:
                                             'ACCEPTED', False: 'refused'}[
                                                 o['accepted']],
                                      o['evidence']))
        k.diag('%d packets forged from %s to %s' % (self.wire.sent,
                                                    self.forge, self.victim))
        return k, {'sent': self.wire.sent, 'sniffed': self.seen,
                   'probes': out}


# ---- the hostile peer -----------------------------------------------------

class Peer:
    def __init__(self, a):
        self.wire = Wire(a.ifname)
        self.victim, self.vmac = parse_host(a.victim)
        self.me, self.mac = parse_host(a.me)
        self.qpn, self.psn = SCENARIOS[a.scenario]
        self.mtu = a.mtu
        self.k = Ktap()
        self.vqpn = self.rkey = self.va = None

    def connect(self, line, go):
        """Hand out our line, wait for the victim's."""
        with open(line + '.tmp', 'w') as f:
            f.write('%x %x 0 0\n' % (self.qpn, self.psn))
        os.rename(line + '.tmp', line)
        end = time.time() + 120
        while not os.path.exists(go):
            if time.time() > end:
                return self.k.result(False, "the victim's line", 'no ' + go)
            time.sleep(0.05)
        with open(go) as f:
            self.vqpn, _, self.rkey, self.va = parse_line(f.read())
        return True

    def send(self, op, off, body=b'', ackreq=False):
        """Send @op at the scenario's PSN + @off."""
        self.wire.send(self.me, self.mac, self.victim, self.vmac,
                       bth(op, self.vqpn, psn=psn_add(self.psn, off),
                           ackreq=ackreq) + body)

    def read(self, off, length, va_off=0):
        self.send(READ_REQUEST, off, reth(self.va + va_off, self.rkey,
                                          length), ackreq=True)

    def answers(self, until=None, quiet=QUIET, limit=10.0):
        """The victim's packets to our QPN, until @until(list) is true,
        @quiet seconds pass without one, or @limit seconds in all."""
        got, end = [], time.time() + limit
        while time.time() < end:
            p = self.wire.recv(min(quiet, end - time.time()))
            if p is None:
                break
            if p.src != self.victim or p.dqpn != self.qpn:
                continue
            got.append(p)
            if until and until(got):
                break
        return got

    @staticmethod
    def show(pkts):
        if not pkts:
            return 'nothing'
        s = ', '.join(str(p) for p in pkts[:3])
        return s + (' and %d more' % (len(pkts) - 3) if len(pkts) > 3
                    else '')

    def expect_nak(self, off, syn, desc):
        got = self.answers(until=lambda g: True, quiet=5.0)
        psn = psn_add(self.psn, off)
        ok = (len(got) == 1 and got[0].op == ACK and got[0].syn == syn and
              got[0].psn == psn)
        return self.k.result(ok, '%s: NAK syndrome %#x at PSN %#x' %
                             (desc, syn, psn), 'got ' + self.show(got))

    def expect_silence(self, desc):
        got = self.answers()
        return self.k.result(not got, desc + ': no answer',
                             'got ' + self.show(got))

    def expect_read(self, off, data, desc):
        """The READ response stream for a READ at PSN + @off of @data."""
        n = max(1, -(-len(data) // self.mtu))
        got = self.answers(until=lambda g: len(g) >= n, quiet=3.0)
        want = [psn_add(self.psn, off + i) for i in range(n)]
        bad = ''
        if [p.psn for p in got] != want:
            bad = 'PSNs %s, want %#x..%#x' % (
                ' '.join('%#x' % p.psn for p in got[:5]), want[0], want[-1])
        elif any(p.op & 0x1f not in (READ_RESP_FIRST, READ_RESP_MIDDLE,
                                     READ_RESP_LAST, READ_RESP_ONLY)
                 for p in got):
            bad = 'got ' + self.show(got)
        elif b''.join(p.payload for p in got) != data:
            bad = 'data differs'
        return self.k.result(not bad, '%s: %d bytes in %d responses, '
                             'compared' % (desc, len(data), n), bad)

    def refused_then_dead(self, off, syn, desc):
        """The request at PSN + @off was just sent: NAK @syn, then a small
        READ at that PSN gets nothing (the QP is in error)."""
        if self.expect_nak(off, syn, desc):
            self.read(off, 8)
            self.expect_silence('a READ after the NAK (QP in error)')

    def run(self, a):
        if self.connect(a.line, a.go):
            self.attack(a.scenario)
        return self.k, {'sent': self.wire.sent, 'scenario': a.scenario}

    def attack(self, scenario):
        if scenario in ('read-huge', 'read-max'):
            length = (1 << 31) + 1 if scenario == 'read-huge' else 0xffffffff
            self.read(0, length)
            self.refused_then_dead(0, SYN_NAK_INV_REQ,
                                   'READ of %#x bytes' % length)
        elif scenario == 'reads':
            self.reads()
        else:
            self.send(WRITE_FIRST, 0, reth(self.va, self.rkey, 8 * self.mtu) +
                      b'\xa5' * self.mtu)
            self.k.result(True, 'WRITE FIRST of an 8-packet WRITE sent, the '
                          'rest never will be')

    def reads(self):
        m = self.mtu
        pattern = bytes((i * 7 + (i >> 8)) & 0xff for i in range(4 * m))
        img = mr_image(pattern)
        n = MR_BYTES // m
        self.send(WRITE_FIRST, 0, reth(self.va, self.rkey, len(pattern)) +
                  pattern[:m])
        self.send(WRITE_MIDDLE, 1, pattern[m:2 * m])
        self.send(WRITE_MIDDLE, 2, pattern[2 * m:3 * m])
        self.send(WRITE_LAST, 3, pattern[3 * m:], ackreq=True)
        got = self.answers(until=lambda g: True, quiet=5.0)
        self.k.result(len(got) == 1 and got[0].op == ACK and
                      got[0].syn >> 5 == 0 and
                      got[0].psn == psn_add(self.psn, 3),
                      'WRITE of %d bytes in 4 packets acknowledged' %
                      len(pattern), 'got ' + self.show(got))
        self.read(4, MR_BYTES)
        self.expect_read(4, img, 'READ of the whole MR')
        # PSN 1 was a WRITE's: no READ to answer again.
        self.read(1, 64)
        self.expect_silence('duplicate READ at a PSN no READ used')
        # PSN 5 is the READ's second response: the rest is 63 packets.
        self.read(5, MR_BYTES, m)
        self.expect_silence('duplicate READ asking more than the rest')
        self.read(4 + n - 2, 2 * m, MR_BYTES - 2 * m)
        self.expect_read(4 + n - 2, img[-2 * m:],
                         'duplicate READ of the last two responses')
        self.read(4 + n, 64)
        self.expect_read(4 + n, pattern[:64], 'a new READ after them')
        self.read(5 + n, 64, MR_BYTES - 32)
        self.refused_then_dead(5 + n, SYN_NAK_REM_ACCESS,
                               'READ crossing the end of the MR')


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='mode', required=True)
    t = sub.add_parser('third-host')
    t.add_argument('--peer', required=True, help="the victim's peer (IP)")
    t.add_argument('--forge', required=True, help='IP,MAC to forge from')
    t.add_argument('--victim-line', required=True)
    t.add_argument('--peer-line', required=True)
    t.add_argument('--expect', choices=('drop', 'report'), default='drop')
    t.add_argument('--ack-timeout-ms', type=int, default=537)
    t.add_argument('--ready', help='created once capturing')
    t.add_argument('--stop', help='stop once this file exists')
    t.add_argument('--deadline', type=float, default=120.0)
    p = sub.add_parser('peer')
    p.add_argument('scenario', choices=sorted(SCENARIOS))
    p.add_argument('--me', required=True, help='IP,MAC (the real peer)')
    p.add_argument('--line', required=True, help='our line goes here')
    p.add_argument('--go', required=True, help="the victim's line")
    for q in (t, p):
        q.add_argument('--ifname', required=True)
        q.add_argument('--victim', required=True, help='IP,MAC')
        q.add_argument('--mtu', type=int, default=1024)
        q.add_argument('out')
    a = ap.parse_args()

    print('KTAP version 1')
    if a.mode == 'third-host':
        k, res = ThirdHost(a).run()
    else:
        k, res = Peer(a).run(a)
    with open(a.out, 'w') as f:
        json.dump(res, f, indent=1, sort_keys=True)
    print('1..%d' % k.n)
    return 1 if k.failed else 0


if __name__ == '__main__':
    sys.exit(main())
