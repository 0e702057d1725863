#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A hostile iWARP peer against our siw, and the agent that serves it.

    siw_hostile.py agent --addr ADDR --port N --dev DEV --logs DIR --deadline SECS
    siw_hostile.py attack --agent ADDR:N --me ADDR --peer ADDR [--scale S]
                          [--only NAME]... [--out JSON]

tests/siw_hostile.sh runs the agent on the guest with our siw (siw0 on
ADDR) and the attacker on the other guest, which has no RDMA at all: it
speaks TCP, MPA (RFC 5044, revision 2 with the RFC 6581 block flagged
0x10 as Linux's siw sends it), DDP (RFC 5041) and RDMAP (RFC 5040) by
hand (builders and CRC32c of harness/iwarp_pcap.py, through iwarp_peer).

The agent does what the attacker asks over one TCP connection, a JSON
object a line each way: start and wait for Debian's rping (its output in
DIR/NN-NAME.log), kill it, read siw0's counters (sysfs hw_counters), wait
until a TCP port listens, set a siw module parameter or a sysctl.

The targets are rping's: our "rping -c" connecting to the attacker acting
as an rping server (the client's first Send carries its buffer's address,
STag and length, rping_rdma_info in network order: the attacker aims at a
real STag), and our "rping -s" that the attacker reaches as a client.
Each case (see CASES) checks what comes back on the wire (for an FPDU
attack the Terminate: RFC 5040 4.8 and 7, RFC 5041 7, its control word
and the offending FPDU's header copied back), how the connection ends
(FIN or reset, how soon), how rping ended, and how siw0's counters
moved.  The attacker prints KTAP, one result per check; --out gets the
Terminates it read, for the host to compare with the capture.
"""
import argparse
import json
import os
import re
import signal
import socket
import struct
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iwarp_peer import Ktap, iw, recv_fpdu, recv_mpa_frame  # noqa: E402

COUNTERS = ('tx_fpdus', 'rx_fpdus', 'rx_bad_crc', 'rx_bad_header',
            'rx_protection_err', 'terminate_sent', 'terminate_rcvd',
            'mpa_bad_frame', 'mpa_rejected', 'connections')

# Ports: the attacker's server for our rping -c (and one with a small
# receive buffer), our rping -s, one per run.
PORT_ACTIVE, PORT_STALL, PORT_SILENT = 7400, 7401, 7402
PORT_PASSIVE = 7410

# RDMAP opcodes (RFC 5040 4.2) and untagged queues (RFC 5041 5.1, 5040 5.1)
WRITE, READ_REQ, READ_RESP, SEND, SEND_INV, SEND_SE, SEND_SE_INV, TERMINATE = range(8)
QN_SEND, QN_READ, QN_TERM = 0, 1, 2
# Terminate layers (RFC 5040 7.1): RDMAP, DDP, LLP (MPA)
L_RDMAP, L_DDP, L_MPA = 0, 1, 2
# RDMAP error types and codes (RFC 5040 7.2)
ET_PROT, ET_OP = 1, 2
EC_INV_STAG, EC_BOUNDS, EC_TO_WRAP, EC_VERSION, EC_OPCODE, EC_CANT_INV = 0, 1, 4, 5, 6, 9
# DDP error types and codes (RFC 5041 7.2)
ET_TAGGED, ET_UNTAGGED = 1, 2
T_INV_STAG, T_BOUNDS, T_TO_WRAP, T_VERSION = 0, 1, 3, 4
U_QN, U_NO_BUF, U_MSN, U_MO, U_TOO_LONG, U_VERSION = 1, 2, 3, 4, 5, 6
# MPA error codes (RFC 5044 8): CRC error
MPA_CRC = 2

# The attacker's own (made-up) buffers, as it advertises them.
SINK_STAG, SINK_TO = 0x00ab1200, 0x7f0000001000
ADV_STAG, ADV_TO = 0x00cd3400, 0x7f0000002000
ADV2_STAG, ADV2_TO = 0x00ef5600, 0x7f0000003000
RPING_INFO = struct.Struct('>QII')      # rping_rdma_info: buf, rkey, size

# The kernel's limits these cases measure (siw_cm.h)
SIW_CM_TIMEOUT = 10.0   # SIW_CM_TIMEOUT_MS: an MPA frame awaited
SIW_CM_CLOSE = 2.0      # SIW_CM_CLOSE_MS: the peer's FIN awaited


# ---- the agent (on our siw's guest) ------------------------------------------

def tcp_sockets(lport):
    """(state, send queue, receive queue) of each TCP socket of local port
    LPORT (/proc/net/tcp: states in hex, 01 ESTABLISHED, 0A LISTEN)."""
    out = []
    with open('/proc/net/tcp') as f:
        next(f)
        for line in f:
            fields = line.split()
            if int(fields[1].rsplit(':', 1)[1], 16) == lport:
                txq, rxq = (int(x, 16) for x in fields[4].split(':'))
                out.append((int(fields[3], 16), txq, rxq))
    return out


def listening(port):
    """Whether a TCP socket listens on PORT (/proc/net/tcp and tcp6)."""
    for name in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(name) as f:
                next(f)
                for line in f:
                    fields = line.split()
                    if fields[3] == '0A' and int(fields[1].rsplit(':', 1)[1], 16) == port:
                        return True
        except OSError:
            pass
    return False


class AgentServer:
    def __init__(self, args):
        self.args = args
        self.procs = {}
        self.nlog = 0
        self.hw = '/sys/class/infiniband/%s/ports/1/hw_counters' % args.dev

    def counters(self):
        out = {}
        for name in COUNTERS:
            with open(os.path.join(self.hw, name)) as f:
                out[name] = int(f.read())
        return out

    def start(self, tag, argv):
        self.nlog += 1
        path = os.path.join(self.args.logs, '%02d-%s.log' % (self.nlog, tag))
        with open(path, 'w') as log:
            log.write('# %s\n' % ' '.join(argv))
            log.flush()
            proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs[tag] = (proc, time.monotonic(), path)
        return {'pid': proc.pid, 'log': path}

    def finished(self, tag, timeout, sig=None):
        """Wait up to TIMEOUT for TAG to exit (after SIG, if given); kill it
        when it does not; what became of it and its output."""
        proc, t0, path = self.procs[tag]
        if sig is not None and proc.poll() is None:
            os.killpg(proc.pid, sig)
        w0 = time.monotonic()
        rc, killed = None, False
        try:
            rc = proc.wait(timeout)
        except subprocess.TimeoutExpired:
            killed = True
            os.killpg(proc.pid, signal.SIGKILL)
            try:
                rc = proc.wait(10)
            except subprocess.TimeoutExpired:
                pass
        with open(path, errors='replace') as f:
            out = f.read()
        if proc.poll() is not None:
            del self.procs[tag]
        return {'rc': rc, 'killed': killed, 'stuck': proc.poll() is None,
                'waited': round(time.monotonic() - w0, 3),
                'ran': round(time.monotonic() - t0, 3), 'out': out[-6000:]}

    def handle(self, req):
        cmd = req.get('cmd')
        if cmd == 'counters':
            return {'counters': self.counters()}
        if cmd == 'start':
            return self.start(req['tag'], req['argv'])
        if cmd == 'wait':
            return self.finished(req['tag'], req['timeout'])
        if cmd == 'kill':
            return self.finished(req['tag'], req['timeout'], req.get('sig', signal.SIGKILL))
        if cmd == 'sockets':
            return {'sockets': tcp_sockets(req['lport'])}
        if cmd == 'signal':
            os.killpg(self.procs[req['tag']][0].pid, req['sig'])
            return {}
        if cmd == 'listening':
            end = time.monotonic() + req['timeout']
            while not listening(req['port']):
                if time.monotonic() > end:
                    return {'listening': False}
                time.sleep(0.05)
            return {'listening': True}
        if cmd == 'param':
            path = '/sys/module/siw/parameters/' + req['name']
            with open(path, 'w') as f:
                f.write(str(req['value']))
            with open(path) as f:
                return {'value': f.read().strip()}
        if cmd == 'sysctl':
            path = '/proc/sys/' + req['key'].replace('.', '/')
            with open(path) as f:
                old = f.read().strip()
            with open(path, 'w') as f:
                f.write(req['value'])
            return {'old': old}
        raise ValueError('unknown command %r' % cmd)

    def serve(self):
        lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lsock.bind((self.args.addr, self.args.port))
        lsock.listen(1)
        lsock.settimeout(self.args.deadline)
        try:
            conn, _ = lsock.accept()
        except socket.timeout:
            print('agent: no attacker within %d s' % self.args.deadline, flush=True)
            return 1
        conn.settimeout(self.args.deadline)
        with conn, conn.makefile('rwb') as f:
            try:
                for line in f:
                    req = json.loads(line)
                    if req.get('cmd') == 'done':
                        f.write(b'{"done": true}\n')
                        f.flush()
                        return self.stop()
                    try:
                        rep = self.handle(req)
                    except Exception as e:  # noqa: BLE001 (said to the attacker)
                        rep = {'error': '%s: %s' % (type(e).__name__, e)}
                    f.write(json.dumps(rep).encode() + b'\n')
                    f.flush()
            except OSError as e:
                print('agent: control connection: %s' % e, flush=True)
        print('agent: the attacker went away without "done"', flush=True)
        self.stop()
        return 1

    def stop(self):
        """Every program still running is a failure of the attacker's bookkeeping."""
        left = sorted(self.procs)
        for tag in left:
            self.finished(tag, 0, signal.SIGKILL)
        print('agent: done, %d programs run%s' % (
            self.nlog, ', still running at the end: ' + ' '.join(left) if left else ''),
            flush=True)
        return 1 if left else 0


# ---- the attacker's tools ------------------------------------------------------

class CaseError(Exception):
    """A case cannot go on: one failed result says why."""


class Agent:
    """The control connection to the agent."""

    def __init__(self, host, port, deadline):
        end = time.monotonic() + deadline
        while True:
            try:
                self.sock = socket.create_connection((host, port), timeout=5)
                break
            except OSError:
                if time.monotonic() > end:
                    raise
                time.sleep(0.5)
        self.f = self.sock.makefile('rwb')

    def call(self, cmd, **kw):
        """Send CMD with KW; its answer (a command's own 'timeout' plus a
        minute at most)."""
        kw['cmd'] = cmd
        self.sock.settimeout(kw.get('timeout', 0) + 60)
        self.f.write(json.dumps(kw).encode() + b'\n')
        self.f.flush()
        line = self.f.readline()
        if not line:
            raise CaseError('the agent closed the control connection')
        rep = json.loads(line)
        if 'error' in rep:
            raise CaseError('agent: %s: %s' % (cmd, rep['error']))
        return rep

    def counters(self):
        return self.call('counters')['counters']


def tcp_state(sock):
    """The kernel's TCP state of SOCK (TCP_INFO's first byte): 1
    ESTABLISHED, 7 CLOSE, 8 CLOSE_WAIT..."""
    try:
        return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]
    except OSError:
        return None


TCP_CLOSE, TCP_CLOSE_WAIT = 7, 8


class Fpdu:
    """An FPDU read off a stream: its DDP and RDMAP header fields."""

    def __init__(self, ulpdu, crc_ok):
        if len(ulpdu) < 2:
            raise CaseError('a ULPDU of %d bytes' % len(ulpdu))
        self.ulpdu, self.crc_ok = ulpdu, crc_ok
        ddp, rdmap = ulpdu[0], ulpdu[1]
        self.t, self.l, self.dv = ddp >> 7, (ddp >> 6) & 1, ddp & 3
        self.ddp_rsvd, self.rv, self.op = ddp & 0x3c, rdmap >> 6, rdmap & 0xf
        self.stag = self.to = self.qn = self.msn = self.mo = self.word = None
        if self.t and len(ulpdu) >= 14:
            self.stag, self.to = struct.unpack('>IQ', ulpdu[2:14])
            self.payload = ulpdu[14:]
        elif not self.t and len(ulpdu) >= 18:
            self.word, self.qn, self.msn, self.mo = struct.unpack('>IIII', ulpdu[2:18])
            self.payload = ulpdu[18:]
        else:
            raise CaseError('a ULPDU of %d bytes: %s' % (len(ulpdu), ulpdu.hex()))

    def __str__(self):
        if self.t:
            return 'op %d T L%d STag %#x TO %#x, %d bytes' % (
                self.op, self.l, self.stag, self.to, len(self.payload))
        return 'op %d L%d QN %d MSN %d MO %d, %d bytes' % (
            self.op, self.l, self.qn, self.msn, self.mo, len(self.payload))


def untagged(op, qn, msn, payload=b'', mo=0, last=True, word=0, ddp=None, rdmap=None):
    """A ULPDU of an untagged segment; DDP and RDMAP control bytes may be
    given whole (for bad versions)."""
    if ddp is None:
        ddp = 0x01 | (0x40 if last else 0)
    if rdmap is None:
        rdmap = 0x40 | op
    return bytes([ddp, rdmap]) + struct.pack('>IIII', word, qn, msn, mo) + payload


def tagged(op, stag, to, payload=b'', last=True, ddp=None, rdmap=None):
    if ddp is None:
        ddp = 0x81 | (0x40 if last else 0)
    if rdmap is None:
        rdmap = 0x40 | op
    return bytes([ddp, rdmap]) + struct.pack('>IQ', stag, to) + payload


def read_req(sink_stag, sink_to, size, src_stag, src_to):
    return struct.pack('>IQIIQ', sink_stag, sink_to, size, src_stag, src_to)


class Peer:
    """The attacker's end of one connection, MPA done."""

    def __init__(self, sock, crc):
        self.sock = sock
        self.crc = crc
        self.tx_msn = {QN_SEND: 1, QN_READ: 1, QN_TERM: 1}

    def fpdu(self, ulpdu, bad_crc=False):
        data = bytearray(iw.fpdu(ulpdu, self.crc))
        if bad_crc:
            data[-2] ^= 0x10
        return bytes(data)

    def send(self, *fpdus):
        self.sock.sendall(b''.join(fpdus))

    def recv(self, timeout, what='an FPDU'):
        self.sock.settimeout(timeout)
        try:
            fp = Fpdu(*recv_fpdu(self.sock))
        except socket.timeout:
            raise CaseError('%s: nothing within %.1f s' % (what, timeout))
        except (EOFError, OSError) as e:
            raise CaseError('%s: %s' % (what, e))
        if self.crc and not fp.crc_ok:
            raise CaseError('%s: wrong CRC32c on %s' % (what, fp))
        return fp

    def recv_until(self, timeout, op, what):
        """FPDUs until one of opcode OP: (it, the others before it)."""
        before = []
        end = time.monotonic() + timeout
        while True:
            fp = self.recv(max(0.1, end - time.monotonic()), what)
            if fp.op == op:
                return fp, before
            before.append(fp)

    def wait_end(self, timeout):
        """How the stream ends: ('fin'|'rst'|'timeout', seconds, bytes
        read before)."""
        t0 = time.monotonic()
        junk = 0
        while True:
            left = t0 + timeout - time.monotonic()
            if left <= 0:
                return 'timeout', time.monotonic() - t0, junk
            self.sock.settimeout(left)
            try:
                data = self.sock.recv(65536)
            except socket.timeout:
                return 'timeout', time.monotonic() - t0, junk
            except ConnectionResetError:
                return 'rst', time.monotonic() - t0, junk
            if not data:
                return 'fin', time.monotonic() - t0, junk
            junk += len(data)

    def wait_reset_after_fin(self, timeout):
        """After our peer's FIN: seconds until its reset closes the
        connection (TCP_INFO's state leaves CLOSE_WAIT), None if not in
        TIMEOUT."""
        t0 = time.monotonic()
        while time.monotonic() - t0 < timeout:
            if tcp_state(self.sock) == TCP_CLOSE:
                return time.monotonic() - t0
            time.sleep(0.02)
        return None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def rping_text(n, size=64):
    """The buffer rping -c sends for ping N: "rdma-ping-N: ", then letters
    from 'A' + N on, NUL-terminated (RPING_MSG_FMT and its filler)."""
    head = b'rdma-ping-%d: ' % n
    out = bytearray(head)
    c = 65 + n
    while len(out) < size - 1:
        out.append(c)
        c = 65 if c >= 122 else c + 1
    return bytes(out) + b'\0'


# ---- one run of the attacker --------------------------------------------------

class Attack:
    def __init__(self, args):
        self.args = args
        self.scale = max(1, args.scale)
        self.t = Ktap()
        host, port = args.agent.rsplit(':', 1)
        self.agent = Agent(host, int(port), self.time(120))
        self.terminates = []
        self.lsocks = {}
        self.passive_port = PORT_PASSIVE
        self.wmem = None

    def time(self, secs):
        return secs * self.scale

    def check(self, good, desc, why=''):
        return self.t.check(good, '%s: %s' % (self.case, desc), why)

    def restore_wmem(self):
        """tcp_wmem back as stuck_read() found it."""
        if self.wmem is not None:
            self.agent.call('sysctl', key='net.ipv4.tcp_wmem', value=self.wmem)
            self.wmem = None

    def poll(self, secs, what, cond):
        """Until COND() is true, for SECS (scaled) at most; CaseError then."""
        end = time.monotonic() + self.time(secs)
        while not cond():
            if time.monotonic() > end:
                raise CaseError('not within %d s: %s' % (self.time(secs), what))
            time.sleep(0.05)

    def our_socket(self, peer):
        """(state, send queue, receive queue) of our end of PEER's connection."""
        socks = self.agent.call('sockets', lport=peer.sock.getpeername()[1])['sockets']
        if len(socks) != 1:
            raise CaseError('our end of the connection: %s' % socks)
        return socks[0]

    # -- the servers of our rping -c --

    def listener(self, port, rcvbuf=None):
        if port not in self.lsocks:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if rcvbuf:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
            s.bind((self.args.me, port))
            s.listen(64)
            self.lsocks[port] = s
        return self.lsocks[port]

    def start_client(self, tag, port=PORT_ACTIVE, size=64, rcvbuf=None):
        """Our rping -c (-S SIZE) to the attacker's PORT, which listens
        first (RCVBUF: its receive buffer)."""
        self.listener(port, rcvbuf)
        argv = ['rping', '-c', '-v', '-V', '-C', '1', '-a', self.args.me,
                '-p', str(port)]
        if size != 64:
            argv += ['-S', str(size)]
        self.agent.call('start', tag=tag, argv=argv)

    def accept(self, port=PORT_ACTIVE, rcvbuf=None):
        """Our rping -c's connection and its MPA Request."""
        ls = self.listener(port, rcvbuf)
        ls.settimeout(self.time(20))
        try:
            sock, _ = ls.accept()
        except socket.timeout:
            raise CaseError('rping -c did not connect within %d s' % self.time(20))
        sock.settimeout(self.time(5))
        req, raw = recv_mpa_frame(sock, iw.MPA_KEY_REQ)
        if not req:
            raise CaseError('not an MPA Request: %s' % raw.hex())
        return sock, req

    def reply(self, sock, req, flags=iw.MPA_FLAG_H, block=(4, 4), pdata=b'', rev=2,
              key=iw.MPA_KEY_REP):
        pd = (struct.pack('>HH', *block) if block is not None else b'') + pdata
        sock.sendall(iw.mpa_frame(key, flags, pd, rev))
        return Peer(sock, bool((req['c'] or flags & iw.MPA_FLAG_C) and not flags & iw.MPA_FLAG_R))

    def connect_active(self, want_c=0, reply_flags=iw.MPA_FLAG_H, port=PORT_ACTIVE,
                       rcvbuf=None):
        """Accept our rping -c, answer its MPA Request (no RTR asked),
        read its first Send: (Peer, (buf, rkey, size), the Send's FPDU)."""
        sock, req = self.accept(port, rcvbuf)
        if (req['rev'], req['h'], req['m'], req['c'], req['r']) != (2, 1, 0, want_c, 0) or \
                not req.get('p2p') or req['pd_len'] != 4:
            raise CaseError('our MPA Request %s: not revision 2 enhanced (0x10), C=%d, '
                            'peer-to-peer offered, 4 bytes of private data' % (req['hex'], want_c))
        if req['c']:
            reply_flags |= iw.MPA_FLAG_C
        peer = self.reply(sock, req, reply_flags)
        first = peer.recv(self.time(5), 'our first Send')
        if (first.op, first.qn, first.msn, first.mo, first.l, len(first.payload)) != \
                (SEND, QN_SEND, 1, 0, 1, RPING_INFO.size):
            raise CaseError('our first FPDU is not rping\'s 16-byte Send on QN 0 MSN 1: %s' % first)
        return peer, RPING_INFO.unpack(first.payload)

    # -- our rping -s --

    def start_server(self, tag):
        port = self.passive_port
        self.passive_port += 1
        self.agent.call('start', tag=tag, argv=['rping', '-s', '-v', '-a', self.args.peer,
                                                '-p', str(port)])
        if not self.agent.call('listening', port=port, timeout=self.time(20))['listening']:
            raise CaseError('rping -s does not listen on %d' % port)
        return port

    def connect_passive(self, port, flags=iw.MPA_FLAG_H | iw.MPA_FLAG_C, block=(1, 1),
                        pdata=b'', raw=None):
        """Our rping -s: a TCP connection and an MPA Request (RAW, else
        built from FLAGS, BLOCK and PDATA)."""
        sock = socket.create_connection((self.args.peer, port), timeout=self.time(5))
        if raw is None:
            pd = (struct.pack('>HH', *block) if block is not None else b'') + pdata
            raw = iw.mpa_frame(iw.MPA_KEY_REQ, flags, pd)
        sock.sendall(raw)
        return sock

    def passive_reply(self, sock, want_c=1):
        """Our MPA Reply to an enhanced request without RTR: Peer."""
        sock.settimeout(self.time(10))
        rep, raw = recv_mpa_frame(sock, iw.MPA_KEY_REP)
        if not rep or (rep['rev'], rep['h'], rep['m'], rep['r'], rep['c']) != (2, 1, 0, 0, want_c) \
                or rep.get('p2p') or rep.get('read_rtr') or rep.get('write_rtr'):
            raise CaseError('our MPA Reply %s: not revision 2 enhanced, C=%d, accepting, no RTR'
                            % (raw.hex(), want_c))
        return Peer(sock, bool(want_c)), rep

    # -- checks shared by the cases --

    def counters_moved(self, before, want, exact_fpdus=True):
        """One result: siw0's counters moved by WANT (name: delta), the
        others not at all (tx_fpdus and rx_fpdus unchecked unless in WANT
        or EXACT_FPDUS and then 0)."""
        after = self.agent.counters()
        delta = {n: after[n] - before[n] for n in COUNTERS}
        bad = []
        for n in COUNTERS:
            if n in want:
                if delta[n] != want[n]:
                    bad.append('%s %+d, want %+d' % (n, delta[n], want[n]))
            elif n in ('tx_fpdus', 'rx_fpdus') and not exact_fpdus:
                continue
            elif delta[n]:
                bad.append('%s %+d, want 0' % (n, delta[n]))
        moved = ', '.join('%s %+d' % (n, want[n]) for n in COUNTERS if n in want) or 'none'
        self.check(not bad, 'counters: %s, the others unchanged' % moved, '; '.join(bad))

    def terminate(self, fp, layer, etype, ecode, hdr=None, rdma=False):
        """One result: FP is our Terminate (QN 2, MSN 1, MO 0, L) for
        LAYER/ETYPE/ECODE; with HDR (the offending FPDU as sent, length
        field first) M and D set and its DDP header copied back (14 bytes
        tagged, 18 untagged, after the 2-byte length: RFC 5040 4.8), with
        RDMA also R and the 28 bytes of its READ request (which our siw
        rebuilds when it refuses the READ as it answers it)."""
        want = b''
        if hdr is not None:
            want = hdr[:2 + (14 if hdr[2] & 0x80 else 18)]
            if rdma:
                want += hdr[20:48]
        bad = []
        if fp.op != TERMINATE:
            bad.append('not a Terminate: %s' % fp)
        elif (fp.t, fp.l, fp.dv, fp.rv, fp.qn, fp.msn, fp.mo, fp.word) != (0, 1, 1, 1, QN_TERM, 1, 0, 0):
            bad.append('Terminate header %s' % fp.ulpdu[:18].hex())
        if len(fp.payload) < 4:
            bad.append('Terminate of %d bytes' % len(fp.payload))
        if not bad:
            ctrl = struct.unpack('>I', fp.payload[:4])[0]
            got = (ctrl >> 28, (ctrl >> 24) & 0xf, (ctrl >> 16) & 0xff)
            self.terminates.append({'case': self.case, 'layer': got[0], 'etype': got[1],
                                    'ecode': got[2]})
            flags = ((ctrl >> 15) & 1, (ctrl >> 14) & 1, (ctrl >> 13) & 1)
            want_flags = (int(hdr is not None), int(hdr is not None), int(rdma))
            if got != (layer, etype, ecode):
                bad.append('layer %d type %d code %#x' % got)
            if flags != want_flags:
                bad.append('M D R %d %d %d, want %d %d %d' % (flags + want_flags))
            if ctrl & 0x1fff:
                bad.append('reserved bits %#x' % (ctrl & 0x1fff))
            if fp.payload[4:] != want:
                bad.append('copied %d bytes %s, want %d bytes %s' % (
                    len(fp.payload) - 4, fp.payload[4:].hex(), len(want), want.hex()))
        what = 'layer %d type %d code %#x' % (layer, etype, ecode)
        if hdr is not None:
            what += ', M D%s: the %s header copied back' % (
                ' R' if rdma else '', 'READ request\'s' if rdma else 'FPDU\'s')
        return self.check(not bad, 'Terminate ' + what, '; '.join(bad))

    def fin(self, peer, timeout=3, want='fin'):
        """One result: the connection ends with WANT ('fin', 'rst') within
        TIMEOUT s (scaled), nothing else before it."""
        how, secs, junk = peer.wait_end(self.time(timeout))
        word = {'fin': 'FIN', 'rst': 'reset'}[want]
        self.check(how == want and not junk, 'a %s from our siw next (%.2f s)' % (word, secs),
                   '%s after %.2f s, %d more bytes before' % (how, secs, junk))
        return how, secs

    def rping_ends(self, tag, want=(), unwanted=(r'^(server )?ping data',), timeout=10,
                   rc=None):
        """One result: rping TAG ends by itself within TIMEOUT s (scaled),
        its output matching every regex of WANT (or (regex, what it is
        called) pairs) and none of UNWANTED, with exit status RC if given."""
        want = [w if isinstance(w, tuple) else (w, w.strip('^$')) for w in want]
        res = self.agent.call('wait', tag=tag, timeout=self.time(timeout))
        out = res['out']
        bad = []
        if res['killed']:
            bad.append('killed after %.1f s%s' % (res['waited'], ', stuck' if res['stuck'] else ''))
        for rx, _ in want:
            if not re.search(rx, out, re.M):
                bad.append('no line matching "%s"' % rx)
        for rx in unwanted:
            m = re.search(rx, out, re.M)
            if m:
                bad.append('printed "%s"' % out[m.start():].split('\n')[0])
        if rc is not None and not res['killed'] and res['rc'] != rc:
            bad.append('exit status %s' % res['rc'])
        if bad:
            tail = ' | '.join(out.strip().split('\n')[-3:])
            bad.append('output ends: ' + tail)
        desc = 'rping %s ends by itself' % ('-s' if tag.startswith('s-') else '-c')
        if want:
            desc += ', says ' + ', '.join('"%s"' % w for _, w in want)
        if rc is not None:
            desc += ', exit status %d' % rc
        self.check(not bad, desc, '; '.join(bad))
        return res

    # -- running the cases --

    def run(self, only):
        for name, fn, doc in CASES:
            if only and name not in only:
                continue
            self.case = name
            self.t.diag('%s: %s' % (name, ' '.join(doc.split())))
            t0 = time.monotonic()
            try:
                fn(self)
            except Exception as e:  # noqa: BLE001 (a case's bug fails it alone)
                self.check(False, 'ran to its end', '%s: %s' % (type(e).__name__, e))
                self.cleanup()
            self.t.diag('%s: %.1f s' % (name, time.monotonic() - t0))
        self.agent.call('done')
        if self.args.out:
            with open(self.args.out, 'w') as f:
                json.dump({'terminates': self.terminates}, f, indent=1)
        return self.t.finish()

    def cleanup(self):
        """After a failed case: no rping of it left running, no connection
        of it left waiting to be accepted."""
        for tag in ('c-' + self.case, 's-' + self.case):
            try:
                self.agent.call('kill', tag=tag, timeout=self.time(5))
            except CaseError:
                pass
        for ls in self.lsocks.values():
            ls.settimeout(0.2)
            try:
                while True:
                    ls.accept()[0].close()
            except OSError:
                pass


# ---- the cases ------------------------------------------------------------------

def active_attack(a, attack, want, rping_want=(), crc_reply=False, before_close=None,
                  exact_fpdus=True, size=64):
    """The common frame of an attack on our rping -c: its connection, then
    ATTACK(a, peer, adv) sends the bad FPDU(s) and returns (the FPDU whose
    header must come back, term kwargs) for a Terminate, or None for
    none; then our FIN, the attacker's, rping's end, the counters (WANT:
    name -> delta, besides connections +1)."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag, size=size)
    peer, adv = a.connect_active(reply_flags=iw.MPA_FLAG_H | (iw.MPA_FLAG_C if crc_reply else 0))
    exp = attack(a, peer, adv)
    if exp is not None:
        fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
        a.terminate(fp, *exp[0], **exp[1])
    if before_close:
        before_close(a, peer)
    else:
        a.fin(peer)
    peer.close()
    a.rping_ends(tag, rping_want)
    want = dict(want, connections=1)
    a.counters_moved(before, want, exact_fpdus)


def bad_fpdu(ulpdu, layer, etype, ecode, bad_crc=False, counter='rx_bad_header'):
    """An attack sending one bad FPDU built from ULPDU (a function of the
    advertisement) whose header comes back in the Terminate."""
    def attack(a, peer, adv):
        raw = peer.fpdu(ulpdu(adv), bad_crc)
        peer.send(raw)
        return (layer, etype, ecode), {'hdr': raw}
    return attack


def case_good_ping(a):
    """An rping server done right by hand: READ of the client's buffer,
    go-ahead, WRITE back into its sink, go-ahead; CRCs (our Reply asks)."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, (buf, rkey, size) = a.connect_active(reply_flags=iw.MPA_FLAG_H | iw.MPA_FLAG_C)
    a.check(size == 64, 'rping -c advertises its 64-byte buffer (STag %#x, TO %#x)' % (rkey, buf),
            'size %d' % size)
    text = server_exchange(a, peer, buf, rkey, size)
    a.check(text == rping_text(0), 'READ response: the ping text rping -c wrote, with a right CRC',
            repr(text))
    a.fin(peer, 5)
    peer.close()
    a.rping_ends(tag, ('^ping data: rdma-ping-0: ',), unwanted=(), rc=0)
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 3, 'rx_fpdus': 4})


def server_exchange(a, peer, buf, rkey, size):
    """One ping as rping -s does it; the READ response's payload."""
    peer.send(peer.fpdu(untagged(READ_REQ, QN_READ, 1,
                                 read_req(SINK_STAG, SINK_TO, size, rkey, buf))))
    data = b''
    while True:
        fp = peer.recv(a.time(5), 'the READ response')
        if fp.op != READ_RESP or fp.stag != SINK_STAG or fp.to != SINK_TO + len(data):
            raise CaseError('not the READ response to STag %#x TO %#x: %s'
                            % (SINK_STAG, SINK_TO + len(data), fp))
        data += fp.payload
        if fp.l:
            break
    peer.send(peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16))))
    fp = peer.recv(a.time(5), 'the sink advertisement')
    if (fp.op, fp.msn, len(fp.payload)) != (SEND, 2, 16):
        raise CaseError('not rping\'s second Send: %s' % fp)
    sink, skey, ssize = RPING_INFO.unpack(fp.payload)
    peer.send(peer.fpdu(tagged(WRITE, skey, sink, data[:ssize])),
              peer.fpdu(untagged(SEND, QN_SEND, 2, bytes(16))))
    return data


def case_silent_after_close(a):
    """A good ping, then the attacker does not answer our FIN: siw resets
    the connection after SIW_CM_CLOSE_MS (2 s)."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, (buf, rkey, size) = a.connect_active()
    server_exchange(a, peer, buf, rkey, size)
    how, secs, _ = peer.wait_end(a.time(5))
    a.check(how == 'fin', 'rping -c disconnects: a FIN from our siw', '%s after %.1f s' % (how, secs))
    secs = peer.wait_reset_after_fin(SIW_CM_CLOSE + a.time(4))
    a.check(secs is not None and SIW_CM_CLOSE - 0.5 <= secs,
            'the attacker silent: a reset %.1f s after our FIN (SIW_CM_CLOSE_MS %d ms)'
            % (secs or -1, SIW_CM_CLOSE * 1000),
            'reset after %s s' % (secs and round(secs, 2)))
    peer.close()
    a.rping_ends(tag, ('^ping data: rdma-ping-0: ',), unwanted=(), rc=0)
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 3, 'rx_fpdus': 4})


def case_bad_crc(a):
    """mpa_crc=1 on our side: our Request asks for CRCs; a Send whose CRC
    is wrong."""
    tag = 'c-' + a.case
    rep = a.agent.call('param', name='mpa_crc', value=1)
    try:
        a.check(rep['value'] == 'Y', 'mpa_crc=1 set', rep['value'])
        before = a.agent.counters()
        a.start_client(tag)
        peer, adv = a.connect_active(want_c=1)
        raw = peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16)), bad_crc=True)
        peer.send(raw)
        fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
        a.check(fp.crc_ok, 'our Terminate carries a right CRC32c')
        a.terminate(fp, L_MPA, 0, MPA_CRC, hdr=raw)
        a.fin(peer)
        peer.close()
        a.rping_ends(tag)
        a.counters_moved(before, {'connections': 1, 'rx_bad_crc': 1, 'terminate_sent': 1,
                                  'tx_fpdus': 2, 'rx_fpdus': 0})
    finally:
        rep = a.agent.call('param', name='mpa_crc', value=0)
        a.check(rep['value'] == 'N', 'mpa_crc=0 again', rep['value'])


def case_truncated(a):
    """12 bytes of a Send, then the attacker's FIN: no Terminate (the
    stream is over), our FIN at once, no reset."""
    def attack(a, peer, adv):
        raw = peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16)))
        peer.send(raw[:12])
        peer.sock.shutdown(socket.SHUT_WR)
        return None
    active_attack(a, attack, {'tx_fpdus': 1, 'rx_fpdus': 0},
                  rping_want=('DISCONNECT EVENT',))


def case_stall_mid_fpdu(a):
    """10 bytes of a Send, then silence; rping -c killed: the half FPDU
    does not hold the QP, the connection is reset at once."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, adv = a.connect_active()
    peer.send(peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16)))[:10])
    a.poll(5, 'our siw reads the 10 bytes', lambda: a.our_socket(peer)[2] == 0)
    res = a.agent.call('kill', tag=tag, timeout=a.time(5), sig=signal.SIGKILL)
    a.check(not res['killed'] and not res['stuck'],
            'rping -c killed in the middle of an FPDU is gone (%.2f s)' % res['waited'],
            'still there after %.1f s' % res['waited'])
    a.fin(peer, 5, want='rst')
    peer.close()
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 1, 'rx_fpdus': 0})


def case_stall_reader(a):
    """The attacker stops reading while our siw answers a 64 KiB READ
    (small socket buffers both ends): tx_work blocks in sendmsg; rping -c
    killed: the reset wakes the sender, the process is gone at once."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    try:
        peer, (buf, rkey, size), stuck = stuck_read(a, tag)
        a.check(0 < stuck < size, 'our siw cannot send: %d bytes of the %d-byte response '
                'queued, not moving' % (stuck, size), '%d bytes queued' % stuck)
        res = a.agent.call('kill', tag=tag, timeout=a.time(5), sig=signal.SIGKILL)
        a.check(not res['killed'] and not res['stuck'],
                'rping -c killed while our siw cannot send is gone (%.2f s)' % res['waited'],
                'still there after %.1f s' % res['waited'])
        how, secs, junk = peer.wait_end(a.time(5))
        a.check(how == 'rst' and 0 < junk < size,
                'the attacker reads again: part of the READ response (%d of %d bytes), '
                'then a reset' % (junk, size), '%s after %.1f s, %d bytes' % (how, secs, junk))
        peer.close()
        a.counters_moved(before, {'connections': 1, 'rx_fpdus': 1}, exact_fpdus=False)
    finally:
        a.restore_wmem()


def case_garbage_after(a):
    """A bad FPDU, 64 KiB of junk and the attacker's FIN at once: the QP
    in ERR reads no more, so the close does not wait for it to drain."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, adv = a.connect_active()
    raw = peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16), ddp=0x42))
    peer.send(raw + os.urandom(65536))
    peer.sock.shutdown(socket.SHUT_WR)
    fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
    a.terminate(fp, L_DDP, ET_UNTAGGED, U_VERSION, hdr=raw)
    a.fin(peer)
    res = a.agent.call('wait', tag=tag, timeout=a.time(10))
    a.check(not res['killed'] and res['waited'] < SIW_CM_CLOSE - 0.2,
            'rping -c ends %.2f s after our FIN: the close does not wait SIW_CM_CLOSE_MS'
            % res['waited'], 'waited %.2f s, exit %s' % (res['waited'], res['rc']))
    peer.close()
    a.counters_moved(before, {'connections': 1, 'rx_bad_header': 1, 'terminate_sent': 1,
                              'tx_fpdus': 2, 'rx_fpdus': 0})


def case_bad_then_fin(a):
    """A bad FPDU and the attacker's FIN in one segment: the peer's FIN
    does not make our siw close before its Terminate is out."""
    def attack(a, peer, adv):
        raw = peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(16), ddp=0x42))
        peer.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_CORK, 1)
        peer.send(raw)
        peer.sock.shutdown(socket.SHUT_WR)
        return (L_DDP, ET_UNTAGGED, U_VERSION), {'hdr': raw}
    active_attack(a, attack, {'rx_bad_header': 1, 'terminate_sent': 1, 'tx_fpdus': 2,
                              'rx_fpdus': 0})


def stuck_read(a, tag):
    """Our rping -c (64 KiB buffer) on PORT_STALL, the attacker's receive
    buffer small and tcp_wmem 4 KiB on our side: the attacker READs the
    buffer and does not read the response, until our send queue is stuck.
    (Peer, advertisement, bytes stuck); tcp_wmem is restored by the
    caller (a.agent's sysctl, old value in a.wmem)."""
    a.wmem = a.agent.call('sysctl', key='net.ipv4.tcp_wmem', value='4096 4096 4096')['old']
    a.start_client(tag, port=PORT_STALL, size=65535, rcvbuf=2048)
    peer, (buf, rkey, size) = a.connect_active(port=PORT_STALL, rcvbuf=2048)
    peer.send(peer.fpdu(untagged(READ_REQ, QN_READ, 1,
                                 read_req(SINK_STAG, SINK_TO, size, rkey, buf))))
    queued = []
    a.poll(10, 'our send queue fills and stops moving',
           lambda: queued.append(a.our_socket(peer)[1]) or
           (len(queued) > 4 and queued[-1] > 0 and len(set(queued[-4:])) == 1))
    return peer, (buf, rkey, size), queued[-1]


def case_read_ird(a):
    """A second READ request while our siw still answers the first (IRD 1,
    rping's responder resources; the attacker reads nothing, our send
    queue stuck): refused (DDP untagged, no buffer) with its header and
    READ request copied back; the attacker reads again: the whole first
    response, then the Terminate."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    try:
        peer, (buf, rkey, size), stuck = stuck_read(a, tag)
        raw = peer.fpdu(untagged(READ_REQ, QN_READ, 2,
                                 read_req(SINK_STAG, SINK_TO + size, 64, rkey, buf)))
        peer.send(raw)
        fp, answered = peer.recv_until(a.time(10), TERMINATE, 'our Terminate')
        got = sum(len(r.payload) for r in answered)
        a.check(all(r.op == READ_RESP and r.stag == SINK_STAG for r in answered) and
                got == size and answered[-1].l,
                'before it, the whole first READ response (%d bytes in %d FPDUs)'
                % (got, len(answered)), '%d bytes in %d FPDUs' % (got, len(answered)))
        a.terminate(fp, L_DDP, ET_UNTAGGED, U_NO_BUF, hdr=raw, rdma=True)
        a.fin(peer)
        peer.close()
        a.rping_ends(tag)
        a.counters_moved(before, {'connections': 1, 'rx_bad_header': 1, 'terminate_sent': 1,
                                  'rx_fpdus': 1, 'tx_fpdus': 2 + len(answered)})
    finally:
        a.restore_wmem()


def case_send_no_recv(a):
    """rping -c stopped (SIGSTOP: it cannot post again), two go-ahead Sends
    at once: the first takes its one receive, the second finds none (DDP
    untagged, no buffer); then rping -c is killed (continued, it would
    post a receive again on a QP whose connection is gone, which libsiw
    tells no kernel: no flush completes it, and rping waits for one)."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, adv = a.connect_active()
    a.agent.call('signal', tag=tag, sig=signal.SIGSTOP)
    raws = [peer.fpdu(untagged(SEND, QN_SEND, m, bytes(16))) for m in (1, 2)]
    peer.send(*raws)
    fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
    a.terminate(fp, L_DDP, ET_UNTAGGED, U_NO_BUF, hdr=raws[1])
    a.fin(peer)
    peer.close()
    res = a.agent.call('kill', tag=tag, timeout=a.time(5), sig=signal.SIGKILL)
    a.check(not res['killed'] and not res['stuck'],
            'rping -c (stopped) killed: gone (%.2f s)' % res['waited'],
            'still there after %.1f s' % res['waited'])
    a.counters_moved(before, {'connections': 1, 'rx_bad_header': 1, 'terminate_sent': 1,
                              'rx_fpdus': 1, 'tx_fpdus': 2})


def case_zero_read(a):
    """A zero-length READ request naming an STag nobody has: RFC 5040
    does not check a zero-length READ's source, an empty READ response
    comes back; then the attacker's FIN closes in order."""
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    peer, adv = a.connect_active()
    peer.send(peer.fpdu(untagged(READ_REQ, QN_READ, 1,
                                 read_req(SINK_STAG, SINK_TO, 0, 0xdead00, 0x1234))))
    fp = peer.recv(a.time(5), 'the READ response')
    a.check((fp.op, fp.t, fp.l, fp.stag, fp.to, len(fp.payload)) ==
            (READ_RESP, 1, 1, SINK_STAG, SINK_TO, 0),
            'an empty READ response to the sink STag and TO, no Terminate', str(fp))
    peer.sock.shutdown(socket.SHUT_WR)
    a.fin(peer)
    peer.close()
    a.rping_ends(tag, ('DISCONNECT EVENT',))
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 2, 'rx_fpdus': 1})


def case_terminate_rcvd(a):
    """The attacker sends a Terminate: our siw takes it, sends none back
    and closes."""
    term = struct.pack('>I', (L_RDMAP << 28) | (ET_OP << 24) | (0xff << 16))
    active_attack(a, lambda a, peer, adv: peer.send(
        peer.fpdu(untagged(TERMINATE, QN_TERM, 1, term))),
        {'terminate_rcvd': 1, 'tx_fpdus': 1, 'rx_fpdus': 1})


def case_send_too_long(a):
    """A 17-byte Send into rping's 16-byte receive."""
    active_attack(a, bad_fpdu(lambda adv: untagged(SEND, QN_SEND, 1, bytes(17)),
                              L_DDP, ET_UNTAGGED, U_TOO_LONG),
                  {'rx_bad_header': 1, 'terminate_sent': 1, 'tx_fpdus': 2, 'rx_fpdus': 0},
                  rping_want=('cq completion failed status',))


def case_send_inv(a):
    """A Send with Invalidate naming rping's own buffer, a user MR that no
    peer may invalidate: the receive completes in error and RDMAP says
    "STag cannot be invalidated"."""
    active_attack(a, bad_fpdu(lambda adv: untagged(SEND_INV, QN_SEND, 1, bytes(16),
                                                   word=adv[1]),
                              L_RDMAP, ET_OP, EC_CANT_INV),
                  {'rx_bad_header': 1, 'terminate_sent': 1, 'tx_fpdus': 2, 'rx_fpdus': 1},
                  rping_want=('cq completion failed status',))


def read_attack(size, stag, to, ecode):
    """A READ request refused when our siw answers it: RDMAP protection
    error ECODE, the request's header rebuilt and copied back (R)."""
    def attack(a, peer, adv):
        buf, rkey, _ = adv
        raw = peer.fpdu(untagged(READ_REQ, QN_READ, 1, read_req(
            SINK_STAG, SINK_TO, size, stag(rkey), to(buf))))
        peer.send(raw)
        return (L_RDMAP, ET_PROT, ecode), {'hdr': raw, 'rdma': True}
    return attack


def fpdu_case(name, doc, ulpdu, layer, etype, ecode, counter):
    def run(a):
        active_attack(a, bad_fpdu(ulpdu, layer, etype, ecode),
                      {counter: 1, 'terminate_sent': 1, 'tx_fpdus': 2, 'rx_fpdus': 0})
    return (name, run, doc)


def read_case(name, doc, size, stag, to, ecode):
    def run(a):
        active_attack(a, read_attack(size, stag, to, ecode),
                      {'rx_protection_err': 1, 'terminate_sent': 1, 'tx_fpdus': 2,
                       'rx_fpdus': 1})
    return (name, run, doc)


# -- MPA on the active side: our rping -c's Request answered badly --

def mpa_reply_case(a, send_reply, want, how, rping_want):
    tag = 'c-' + a.case
    before = a.agent.counters()
    a.start_client(tag)
    sock, req = a.accept()
    send_reply(a, sock, req)
    peer = Peer(sock, False)
    a.fin(peer, want=how)
    peer.close()
    a.rping_ends(tag, rping_want)
    a.counters_moved(before, want)


def case_reply_bad_key(a):
    """A Reply with the Request's key: reset, rping -c rejected."""
    mpa_reply_case(a, lambda a, s, req: a.reply(s, req, key=iw.MPA_KEY_REQ),
                   {'mpa_bad_frame': 1}, 'rst', (r'cma event RDMA_CM_EVENT_REJECTED, error -104',))


def case_reply_bad_rev(a):
    """A Reply of revision 3, above our Request's: reset."""
    mpa_reply_case(a, lambda a, s, req: a.reply(s, req, rev=3),
                   {'mpa_bad_frame': 1}, 'rst', (r'cma event RDMA_CM_EVENT_REJECTED, error -104',))


def case_reply_reject(a):
    """A Reply with R and 5 bytes of private data: rping -c rejected
    (-ECONNREFUSED), our siw closes in order."""
    mpa_reply_case(a, lambda a, s, req: a.reply(s, req, flags=iw.MPA_FLAG_H | iw.MPA_FLAG_R,
                                                 block=(0, 0), pdata=b'nope!'),
                   {'mpa_rejected': 1}, 'fin', (r'cma event RDMA_CM_EVENT_REJECTED, error -111',))


def case_reply_p2p_no_rtr(a):
    """A Reply that wants the peer-to-peer model but names no RTR message:
    reset."""
    mpa_reply_case(a, lambda a, s, req: a.reply(s, req, block=(0x8004, 4)),
                   {'mpa_bad_frame': 1}, 'rst', (r'cma event RDMA_CM_EVENT_REJECTED, error -104',))


def case_reply_oversize(a):
    """A Reply announcing 600 bytes of private data (MPA allows 512):
    reset once the header is in."""
    def send(a, s, req):
        s.sendall(iw.MPA_KEY_REP + struct.pack('>BBH', iw.MPA_FLAG_H, 2, 600))
    mpa_reply_case(a, send, {'mpa_bad_frame': 1}, 'rst',
                   (r'cma event RDMA_CM_EVENT_REJECTED, error -104',))


# -- the passive side: our rping -s --

class Passive:
    """The rping -s the MPA garbage cases share, until passive_good."""
    port = None


def garbage_case(a, raw, how, want, reply=None):
    """An MPA Request (RAW) to our rping -s that never reaches it: HOW
    ('rst': reset without a Reply; 'reject': a Reply with R, then FIN)."""
    if Passive.port is None:
        Passive.port = a.start_server('s-passive')
    before = a.agent.counters()
    sock = a.connect_passive(Passive.port, raw=raw)
    peer = Peer(sock, False)
    if how == 'reject':
        sock.settimeout(a.time(5))
        rep, data = recv_mpa_frame(sock, iw.MPA_KEY_REP)
        a.check(rep and reply(rep), 'a rejecting MPA Reply (%s)' % (rep and rep['hex']),
                data.hex())
        how = 'fin'
    a.fin(peer, want=how)
    peer.close()
    a.counters_moved(before, want)


def case_req_bad_key(a):
    """A Request with the Reply's key: reset, no Reply."""
    garbage_case(a, iw.mpa_frame(iw.MPA_KEY_REP, iw.MPA_FLAG_H, struct.pack('>HH', 1, 1)),
                 'rst', {'mpa_bad_frame': 1})


def case_req_bad_rev(a):
    """A Request of revision 0: reset, no Reply."""
    garbage_case(a, iw.mpa_frame(iw.MPA_KEY_REQ, 0, b'', rev=0), 'rst', {'mpa_bad_frame': 1})


def case_req_markers(a):
    """A Request asking for markers, which siw never does: a Reply with R
    (and the RFC 6581 block, depths 0, no RTR), then FIN."""
    garbage_case(a, iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_M | iw.MPA_FLAG_H,
                                 struct.pack('>HH', 1, 1)),
                 'reject', {'mpa_bad_frame': 1, 'mpa_rejected': 1},
                 lambda r: (r['r'], r['m'], r['rev'], r['h']) == (1, 0, 2, 1) and
                 (r.get('ird'), r.get('ord'), r.get('p2p'), r.get('read_rtr'),
                  r.get('write_rtr')) == (0, 0, False, False, False))


def case_req_oversize(a):
    """A Request announcing 513 bytes of private data: reset once the
    header is in."""
    garbage_case(a, iw.MPA_KEY_REQ + struct.pack('>BBH', iw.MPA_FLAG_H, 2, 513), 'rst',
                 {'mpa_bad_frame': 1})


def case_req_pd_300(a):
    """A Request with 300 bytes of private data: MPA allows it, iw_cm
    carries 255 at most: refused with a Reply with R."""
    garbage_case(a, iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_H,
                                 struct.pack('>HH', 1, 1) + bytes(296)),
                 'reject', {'mpa_rejected': 1}, lambda r: r['r'] == 1 and r['m'] == 0)


def case_req_rtr_none(a):
    """A Request for the peer-to-peer model that offers no RTR message:
    refused with a Reply with R."""
    garbage_case(a, iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_H, struct.pack('>HH', 0x8001, 1)),
                 'reject', {'mpa_rejected': 1}, lambda r: r['r'] == 1 and r['m'] == 0)


def client_exchange(a, peer):
    """One ping as rping -c does it, against our rping -s: the attacker's
    buffer read by a READ it answers, its sink written back."""
    text = rping_text(5)
    peer.send(peer.fpdu(untagged(SEND, QN_SEND, 1, RPING_INFO.pack(ADV_TO, ADV_STAG, 64))))
    fp = peer.recv(a.time(5), 'our READ request')
    if (fp.op, fp.qn, fp.msn, fp.mo, len(fp.payload)) != (READ_REQ, QN_READ, 1, 0, 28):
        raise CaseError('not a READ request on QN 1 MSN 1: %s' % fp)
    sstag, sto, size, src, srcto = struct.unpack('>IQIIQ', fp.payload)
    a.check((size, src, srcto) == (64, ADV_STAG, ADV_TO),
            'rping -s READs the advertised buffer', '%d bytes at %#x/%#x' % (size, src, srcto))
    peer.send(peer.fpdu(tagged(READ_RESP, sstag, sto, text)))
    fp = peer.recv(a.time(5), 'the go-ahead')
    if (fp.op, fp.msn) != (SEND, 1):
        raise CaseError('not the go-ahead Send: %s' % fp)
    peer.send(peer.fpdu(untagged(SEND, QN_SEND, 2, RPING_INFO.pack(ADV2_TO, ADV2_STAG, 64))))
    fp = peer.recv(a.time(5), 'the WRITE back')
    a.check((fp.op, fp.stag, fp.to, fp.payload) == (WRITE, ADV2_STAG, ADV2_TO, text),
            'rping -s WRITEs the text back into the sink', str(fp))
    fp = peer.recv(a.time(5), 'the second go-ahead')
    if (fp.op, fp.msn) != (SEND, 2):
        raise CaseError('not the second go-ahead Send: %s' % fp)
    return text


def case_passive_good(a):
    """After the garbage, the same rping -s serves a client done right by
    hand (CRCs asked): the listener survived; then the attacker's FIN."""
    if Passive.port is None:
        Passive.port = a.start_server('s-passive')
    before = a.agent.counters()
    sock = a.connect_passive(Passive.port)
    peer, _ = a.passive_reply(sock)
    text = client_exchange(a, peer)
    peer.sock.shutdown(socket.SHUT_WR)
    a.fin(peer)
    peer.close()
    a.rping_ends('s-passive', (('^server ping data: ' + re.escape(text[:-1].decode()) + '$',
                                 'server ping data: <the text>'),),
                 unwanted=(), rc=0)
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 4, 'rx_fpdus': 3})


def passive_attack(a, attack, want, rping_want=()):
    tag = 's-' + a.case
    before = a.agent.counters()
    port = a.start_server(tag)
    sock = a.connect_passive(port)
    peer, _ = a.passive_reply(sock)
    fp, raw, exp = attack(a, peer)
    a.terminate(fp, *exp[0], hdr=raw, **exp[1])
    a.fin(peer)
    peer.close()
    a.rping_ends(tag, rping_want)
    a.counters_moved(before, dict(want, connections=1))


def case_read_resp_long(a):
    """rping -s READs 64 bytes, the attacker answers 65: DDP tagged, base
    or bounds."""
    def attack(a, peer):
        peer.send(peer.fpdu(untagged(SEND, QN_SEND, 1, RPING_INFO.pack(ADV_TO, ADV_STAG, 64))))
        fp = peer.recv(a.time(5), 'our READ request')
        sstag, sto = struct.unpack('>IQ', fp.payload[:12])
        raw = peer.fpdu(tagged(READ_RESP, sstag, sto, bytes(65)))
        peer.send(raw)
        fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
        return fp, raw, ((L_DDP, ET_TAGGED, T_BOUNDS), {})
    passive_attack(a, attack, {'rx_protection_err': 1, 'terminate_sent': 1, 'tx_fpdus': 2,
                               'rx_fpdus': 1})


def case_passive_send_long(a):
    """The first Send to rping -s is 17 bytes, for its 16-byte receive."""
    def attack(a, peer):
        raw = peer.fpdu(untagged(SEND, QN_SEND, 1, bytes(17)))
        peer.send(raw)
        fp, _ = peer.recv_until(a.time(5), TERMINATE, 'our Terminate')
        return fp, raw, ((L_DDP, ET_UNTAGGED, U_TOO_LONG), {})
    passive_attack(a, attack, {'rx_bad_header': 1, 'terminate_sent': 1, 'tx_fpdus': 1,
                               'rx_fpdus': 0}, rping_want=('cq completion failed status',))


# -- the slow ones, together: handshakes that stop, a flood --

def ending(sock, deadline):
    """How SOCK's stream ends by DEADLINE (monotonic): ('fin'|'rst'|
    'timeout', bytes read before)."""
    got = b''
    while True:
        sock.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            data = sock.recv(4096)
        except socket.timeout:
            return 'timeout', got
        except (ConnectionResetError, BrokenPipeError):
            return 'rst', got
        if not data:
            return 'fin', got
        got += data


FLOOD = 24
BACKLOG = 3     # rping -s's rdma_listen() backlog


def case_request_flood(a):
    """Our rping -s accepts a Request, then 15 more come at once (listen
    backlog 3; rping takes one connection: Debian's, rdma-core 44, gives
    up at the second CONNECT_REQUEST, another would be killed): the
    backlog's held, the others reset at once (or refused, the listener
    gone); with rping -s gone, the held Requests refused by iw_cm's
    destroy (a Reply with R, then FIN): every connection ended at once."""
    tag = 's-' + a.case
    before = a.agent.counters()
    port = a.start_server(tag)
    first = a.connect_passive(port)
    peer, _ = a.passive_reply(first)
    req = iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_H, struct.pack('>HH', 1, 1))
    conns, early = [], 0
    for _ in range(15):
        try:
            s = socket.create_connection((a.args.peer, port), timeout=a.time(5))
            s.sendall(req)
        except (ConnectionResetError, BrokenPipeError, ConnectionRefusedError):
            early += 1
            continue
        conns.append({'sock': s, 'got': b'', 'end': None})

    def look():
        for c in conns:
            if c['end'] is None:
                how, got = ending(c['sock'], time.monotonic() + 0.01)
                c['got'] += got
                if how != 'timeout':
                    c['end'] = how
        return all(c['end'] is not None for c in conns)
    # rdma-core 44's rping -s gives up, then waits for its CQ thread for
    # ever: killed after a second.
    res = a.agent.call('wait', tag=tag, timeout=a.time(1))
    a.check(res['rc'] is not None and not res['stuck'],
            'rping -s gone with Requests pending (%s)' % (
                'killed' if res['killed'] else 'exit status %s' % res['rc']),
            'still there after being killed')
    try:
        a.poll(5, 'every connection ends', look)
    except CaseError:
        pass
    refused = [c for c in conns if len(c['got']) >= iw.MPA_HDR_LEN and c['got'][16] & iw.MPA_FLAG_R]
    reset = [c for c in conns if c['end'] == 'rst' and not c['got']]
    other = ['%s, %s' % (c['end'], c['got'][:20].hex()) for c in conns
             if c not in refused and c not in reset]
    other += ['refused without FIN'] * len([c for c in refused if c['end'] != 'fin'])
    a.check(not other, '15 more Requests: %d refused with R then FIN, %d reset, %d not let in'
            % (len(refused), len(reset), early), '; '.join(other))
    how, secs, junk = peer.wait_end(a.time(3))
    a.check(how in ('rst', 'fin') and not junk,
            'the accepted connection ends (%s, %.2f s)' % (how, secs),
            '%s after %.2f s, %d bytes' % (how, secs, junk))
    peer.close()
    for c in conns:
        c['sock'].close()
    a.counters_moved(before, {'connections': 1, 'mpa_rejected': len(refused)})


def case_stalled_handshakes(a):
    """At once: 24 connections to one rping -s (listen backlog 3), each
    with 10 bytes of a Request (the first with none): siw holds the first
    3 and resets the others at once, and a whole Request while the 3 are
    held; our rping -c, whose Request gets no Reply; siw resets the 3 and
    ours after SIW_CM_TIMEOUT_MS (10 s); then rping -s serves a client
    done right."""
    tag_c, tag_s = 'c-' + a.case, 's-' + a.case
    before = a.agent.counters()
    port = a.start_server(tag_s)
    a.start_client(tag_c, port=PORT_SILENT)
    # siw's deadline for the Reply runs from its Request on.
    csock, _ = a.accept(PORT_SILENT)
    c_t0 = time.monotonic()
    # A connection siw resets at once may be gone before connect()
    # returns, or before the 10 bytes are sent (ECONNRESET there, which
    # takes the error away: recv() would then say end of stream): reset
    # at once all the same.
    flood, early = [], 0
    for n in range(FLOOD):
        try:
            s = socket.create_connection((a.args.peer, port), timeout=a.time(5))
            t0 = time.monotonic()
            if n:
                s.sendall(iw.MPA_KEY_REQ[:10])
        except (ConnectionResetError, BrokenPipeError):
            early += 1
            continue
        flood.append((s, t0))
    ends = {}

    def all_but_backlog_ended():
        for s, t0 in flood:
            if s not in ends:
                how, got = ending(s, time.monotonic() + 0.01)
                if how != 'timeout':
                    ends[s] = (how, got, time.monotonic() - t0)
        return len(ends) + early >= FLOOD - BACKLOG
    try:
        a.poll(10, 'all but %d of the %d connections end' % (BACKLOG, FLOOD),
               all_but_backlog_ended)
    except CaseError:
        pass
    held, reset, other = [], [0.0] * early, []
    for s, t0 in flood:
        how, got, secs = ends.get(s, ('timeout', b'', 0))
        if how == 'timeout':
            held.append((s, t0))
        elif how == 'rst' and not got and secs < a.time(3):
            reset.append(secs)
        else:
            other.append('%s after %.1f s, %d bytes' % (how, secs, len(got)))
    a.check(len(held) == BACKLOG and not other,
            '%d connections: %d held (listen backlog %d), %d reset at once (%.1f s at most)'
            % (FLOOD, len(held), BACKLOG, len(reset), max(reset or [0])),
            '%d held, %d reset at once, otherwise: %s' % (len(held), len(reset), other))
    try:
        late = socket.create_connection((a.args.peer, port), timeout=a.time(5))
    except ConnectionResetError:
        how, got = 'rst', b''
    else:
        try:
            late.sendall(iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_H, struct.pack('>HH', 1, 1)))
        except OSError:
            pass
        how, got = ending(late, time.monotonic() + a.time(3))
        late.close()
    a.check(how == 'rst' and not got, 'a whole Request while %d are held: reset at once, '
            'no Reply' % len(held), '%s, %d bytes' % (how, len(got)))
    deadline = max(t0 for _, t0 in flood) + SIW_CM_TIMEOUT + a.time(5)
    ends = [(ending(s, deadline)[0], time.monotonic() - t0) for s, t0 in held]
    a.check(all(how == 'rst' and secs >= SIW_CM_TIMEOUT - 0.5 for how, secs in ends),
            'the held ones reset after SIW_CM_TIMEOUT_MS (%s)'
            % ', '.join('%.1f s' % secs for _, secs in ends),
            ', '.join('%s %.1f s' % e for e in ends))
    how, got = ending(csock, c_t0 + SIW_CM_TIMEOUT + a.time(5))
    secs = time.monotonic() - c_t0
    a.check(how == 'rst' and not got and secs >= SIW_CM_TIMEOUT - 0.5,
            'our Request without a Reply: reset after %.1f s (SIW_CM_TIMEOUT_MS)' % secs,
            '%s after %.1f s, %d bytes' % (how, secs, len(got)))
    for s, _ in flood:
        s.close()
    csock.close()
    a.rping_ends(tag_c, (r'cma event RDMA_CM_EVENT_UNREACHABLE, error -110',))
    sock = a.connect_passive(port)
    peer, _ = a.passive_reply(sock)
    text = client_exchange(a, peer)
    peer.sock.shutdown(socket.SHUT_WR)
    a.fin(peer)
    peer.close()
    a.rping_ends(tag_s, (('^server ping data: ' + re.escape(text[:-1].decode()) + '$',
                          'server ping data: <the text>'),), unwanted=(), rc=0)
    a.counters_moved(before, {'connections': 1, 'tx_fpdus': 4, 'rx_fpdus': 3,
                              'mpa_bad_frame': len(held) + 1})


CASES = [
    ('req_bad_key', case_req_bad_key, case_req_bad_key.__doc__),
    ('req_bad_rev', case_req_bad_rev, case_req_bad_rev.__doc__),
    ('req_markers', case_req_markers, case_req_markers.__doc__),
    ('req_oversize_pd', case_req_oversize, case_req_oversize.__doc__),
    ('req_pd_300', case_req_pd_300, case_req_pd_300.__doc__),
    ('req_rtr_none', case_req_rtr_none, case_req_rtr_none.__doc__),
    ('passive_good', case_passive_good, case_passive_good.__doc__),
    ('good_ping', case_good_ping, case_good_ping.__doc__),
    ('silent_after_close', case_silent_after_close, case_silent_after_close.__doc__),
    ('bad_crc', case_bad_crc, case_bad_crc.__doc__),
    ('truncated_fpdu', case_truncated, case_truncated.__doc__),
    fpdu_case('ddp_version_untagged', 'A Send of DDP version 2.',
              lambda adv: untagged(SEND, QN_SEND, 1, bytes(16), ddp=0x42),
              L_DDP, ET_UNTAGGED, U_VERSION, 'rx_bad_header'),
    fpdu_case('ddp_version_tagged', 'An RDMA WRITE of DDP version 0.',
              lambda adv: tagged(WRITE, adv[1], adv[0], bytes(8), ddp=0xc0),
              L_DDP, ET_TAGGED, T_VERSION, 'rx_bad_header'),
    fpdu_case('rdmap_version', 'A Send of RDMAP version 0.',
              lambda adv: untagged(SEND, QN_SEND, 1, bytes(16), rdmap=0x03),
              L_RDMAP, ET_OP, EC_VERSION, 'rx_bad_header'),
    fpdu_case('bad_opcode', 'An untagged FPDU of opcode 9, which RDMAP does not define.',
              lambda adv: untagged(9, QN_SEND, 1, bytes(16)),
              L_RDMAP, ET_OP, EC_OPCODE, 'rx_bad_header'),
    fpdu_case('tagged_send', 'A Send with the T bit set.',
              lambda adv: tagged(SEND, adv[1], adv[0], bytes(16)),
              L_RDMAP, ET_OP, EC_OPCODE, 'rx_bad_header'),
    fpdu_case('bad_qn', 'A Send on queue 3.',
              lambda adv: untagged(SEND, 3, 1, bytes(16)),
              L_DDP, ET_UNTAGGED, U_QN, 'rx_bad_header'),
    fpdu_case('bad_msn', 'A Send with MSN 5 where 1 is due.',
              lambda adv: untagged(SEND, QN_SEND, 5, bytes(16)),
              L_DDP, ET_UNTAGGED, U_MSN, 'rx_bad_header'),
    fpdu_case('bad_mo', 'The first segment of a Send with MO 8.',
              lambda adv: untagged(SEND, QN_SEND, 1, bytes(16), mo=8),
              L_DDP, ET_UNTAGGED, U_MO, 'rx_bad_header'),
    fpdu_case('read_resp_unasked', 'A READ response to rping -c, which READs nothing.',
              lambda adv: tagged(READ_RESP, adv[1], adv[0], bytes(8)),
              L_RDMAP, ET_OP, EC_OPCODE, 'rx_bad_header'),
    fpdu_case('write_bad_stag', 'An RDMA WRITE to an STag index nobody has.',
              lambda adv: tagged(WRITE, 0xfffff000 | (adv[1] & 0xff), adv[0], bytes(8)),
              L_DDP, ET_TAGGED, T_INV_STAG, 'rx_protection_err'),
    fpdu_case('write_bad_key', 'An RDMA WRITE to the buffer\'s STag index with another key.',
              lambda adv: tagged(WRITE, adv[1] ^ 0x5a, adv[0], bytes(8)),
              L_DDP, ET_TAGGED, T_INV_STAG, 'rx_protection_err'),
    fpdu_case('write_bounds', 'An RDMA WRITE of 8 bytes at offset 60 of the 64-byte buffer.',
              lambda adv: tagged(WRITE, adv[1], adv[0] + 60, bytes(8)),
              L_DDP, ET_TAGGED, T_BOUNDS, 'rx_protection_err'),
    fpdu_case('write_below', 'An RDMA WRITE 8 bytes below the buffer.',
              lambda adv: tagged(WRITE, adv[1], adv[0] - 8, bytes(8)),
              L_DDP, ET_TAGGED, T_BOUNDS, 'rx_protection_err'),
    fpdu_case('write_to_wrap', 'An RDMA WRITE of 8 bytes at TO 2^64 - 4.',
              lambda adv: tagged(WRITE, adv[1], (1 << 64) - 4, bytes(8)),
              L_DDP, ET_TAGGED, T_TO_WRAP, 'rx_protection_err'),
    read_case('read_bounds', 'A READ request of 65 bytes of the 64-byte buffer.',
              65, lambda k: k, lambda b: b, EC_BOUNDS),
    read_case('read_bad_stag', 'A READ request from an STag nobody has.',
              16, lambda k: 0xfffff000 | (k & 0xff), lambda b: b, EC_INV_STAG),
    read_case('read_to_wrap', 'A READ request of 16 bytes at TO 2^64 - 8.',
              16, lambda k: k, lambda b: (1 << 64) - 8, EC_TO_WRAP),
    ('read_ird', case_read_ird, case_read_ird.__doc__),
    ('zero_read', case_zero_read, case_zero_read.__doc__),
    ('send_no_recv', case_send_no_recv, case_send_no_recv.__doc__),
    ('send_too_long', case_send_too_long, case_send_too_long.__doc__),
    ('send_inv_user_mr', case_send_inv, case_send_inv.__doc__),
    ('terminate_rcvd', case_terminate_rcvd, case_terminate_rcvd.__doc__),
    ('garbage_after_bad', case_garbage_after, case_garbage_after.__doc__),
    ('bad_then_fin', case_bad_then_fin, case_bad_then_fin.__doc__),
    ('stall_mid_fpdu', case_stall_mid_fpdu, case_stall_mid_fpdu.__doc__),
    ('stall_reader', case_stall_reader, case_stall_reader.__doc__),
    ('reply_bad_key', case_reply_bad_key, case_reply_bad_key.__doc__),
    ('reply_bad_rev', case_reply_bad_rev, case_reply_bad_rev.__doc__),
    ('reply_reject', case_reply_reject, case_reply_reject.__doc__),
    ('reply_p2p_no_rtr', case_reply_p2p_no_rtr, case_reply_p2p_no_rtr.__doc__),
    ('reply_oversize_pd', case_reply_oversize, case_reply_oversize.__doc__),
    ('read_resp_long', case_read_resp_long, case_read_resp_long.__doc__),
    ('passive_send_long', case_passive_send_long, case_passive_send_long.__doc__),
    ('request_flood', case_request_flood, case_request_flood.__doc__),
    ('stalled_handshakes', case_stalled_handshakes, case_stalled_handshakes.__doc__),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='role', required=True)
    ag = sub.add_parser('agent')
    ag.add_argument('--addr', required=True)
    ag.add_argument('--port', type=int, required=True)
    ag.add_argument('--dev', default='siw0')
    ag.add_argument('--logs', required=True)
    ag.add_argument('--deadline', type=int, default=600)
    at = sub.add_parser('attack')
    at.add_argument('--agent', required=True, help='ADDR:PORT')
    at.add_argument('--me', required=True)
    at.add_argument('--peer', required=True)
    at.add_argument('--scale', type=int, default=1)
    at.add_argument('--only', action='append')
    at.add_argument('--out')
    at.add_argument('--list', action='store_true')
    args = ap.parse_args()
    if args.role == 'agent':
        return AgentServer(args).serve()
    if args.list:
        for name, _, doc in CASES:
            print('%-22s %s' % (name, ' '.join(doc.split())))
        return 0
    return Attack(args).run(set(args.only or ()))


if __name__ == '__main__':
    sys.exit(main())
