#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent check of the iWARP traffic in a wire capture.

    iwarp_pcap.py [--port N]... PCAP    one JSON document on stdout
    iwarp_pcap.py --selftest            KTAP: CRC32c vectors, made-up streams

PCAP is a classic pcap file of Ethernet frames (QEMU's filter-dump).  Each
TCP connection that has its SYN in the capture is put back together per
direction by sequence number (retransmitted and overlapping segments must
carry the same bytes; a hole is an error).  A connection is iWARP when its
initiator's stream starts with an MPA Request ("MPA ID Req Frame", RFC
5044 7.1): the checker reads it and the responder's MPA Reply (key, the
M, C, R, H flags, revision, private data, and with revision 2 and H set the
IRD/ORD block of RFC 6581 at the start of the private data), then walks
the FPDUs of both directions: 2-byte ULPDU length, ULPDU, pad to 4 bytes,
4-byte CRC.  The CRC field is always there; when the MPA frames
negotiated CRCs (C set in the reply) it must be the CRC32c of the FPDU up
to the CRC field, as iSCSI digests it (RFC 3720: initial value all ones,
reflected Castagnoli polynomial, result complemented), sent least
significant byte first as iSCSI and Linux's siw send it; without CRCs it
is not checked.  Markers (M) are never negotiated here: M set in either
frame is an error.  Each ULPDU's DDP header (RFC 5041: T and L flags, DV
1, tagged STag and TO, or untagged QN, MSN, MO) and RDMAP header (RFC
5040: RV 1, opcode) is read: the opcode must be one of RFC 5040's eight,
tagged exactly for RDMA Write and Read Response, on its queue (QN 0 sends,
1 Read Requests, 2 Terminate), with each queue's MSN counting messages
from 1 and MO the bytes before the segment in its message.

JSON fields: "pcap", "frames", "tcp_connections" (with a SYN),
"iwarp_connections", "fpdus", "crc_checked", "crc_bad", "truncated",
"unknown_opcode", "header_errors", "stream_errors", "opcodes" (name ->
FPDUs), "opcodes_by_source" (address -> name -> FPDUs), "connections"
(one per iWARP connection: "initiator", "responder" as ADDR:PORT,
"mpa_request" and "mpa_reply" (hex, m, c, r, h, res, rev, pd_len, with
revision 2 and H: ird, ord, p2p, zero_length_rtr, write_rtr, read_rtr),
"crc" (negotiated), "rejected", "to_responder" and "to_initiator"
(bytes, fpdus, crc_checked, crc_bad, crc_field_zero, opcodes,
payload_bytes, terminates: [layer, etype, ecode] each, the first two in
RFC 5040's nibble order, which Linux's siw 6.12 swaps; errors: how many
of the errors below are this direction's)), "errors" (the
first 50, "ADDR:PORT>ADDR:PORT @OFFSET: what"), "ok".  --port N keeps
only connections with N as the responder's port (repeat for more).

Exit status: 0 when nothing was wrong, 1 on any CRC mismatch, truncated
FPDU, unknown opcode, header or stream error, 2 when PCAP cannot be read.
"""
import argparse
import json
import os
import socket
import struct
import sys
import tempfile

# ---- CRC32c ----------------------------------------------------------------

# The Castagnoli polynomial 0x1EDC6F41, bit-reflected (least significant bit
# first, as iSCSI and MPA feed the bits of each byte).
CASTAGNOLI_REFLECTED = 0x82F63B78


def _crc32c_table():
    table = []
    for byte in range(256):
        reg = byte
        for _ in range(8):
            reg = (reg >> 1) ^ (CASTAGNOLI_REFLECTED if reg & 1 else 0)
        table.append(reg)
    return table


CRC32C_TABLE = _crc32c_table()


def crc32c(data):
    """CRC32c of DATA: register all ones, one table step per byte, the
    result complemented."""
    reg = 0xFFFFFFFF
    for byte in data:
        reg = CRC32C_TABLE[(reg ^ byte) & 0xFF] ^ (reg >> 8)
    return reg ^ 0xFFFFFFFF


def crc_field(data):
    """The 4 bytes of the CRC field that carries crc32c(DATA)."""
    return struct.pack('<I', crc32c(data))


# ---- MPA, DDP, RDMAP -------------------------------------------------------

MPA_KEY_REQ = b'MPA ID Req Frame'
MPA_KEY_REP = b'MPA ID Rep Frame'
MPA_HDR_LEN = 20
MPA_FLAG_M = 0x80
MPA_FLAG_C = 0x40
MPA_FLAG_R = 0x20
MPA_FLAG_H = 0x10
MPA_IRD_ORD_MASK = 0x3FFF

DDP_TAGGED_HDR = 14
DDP_UNTAGGED_HDR = 18
READ_REQ_LEN = 28
TERM_CTRL_LEN = 4

# RDMAP opcode: (name, tagged, queue number of the untagged ones).
OPCODES = {
    0: ('rdma_write', True, None),
    1: ('rdma_read_request', False, 1),
    2: ('rdma_read_response', True, None),
    3: ('send', False, 0),
    4: ('send_invalidate', False, 0),
    5: ('send_se', False, 0),
    6: ('send_se_invalidate', False, 0),
    7: ('terminate', False, 2),
}


class Problems:
    """The errors found, by kind, and the first 50 described."""

    KINDS = ('crc_bad', 'truncated', 'unknown_opcode', 'header_errors',
             'stream_errors')

    def __init__(self):
        self.counts = dict.fromkeys(self.KINDS, 0)
        self.text = []
        # Per direction ("SRC>DST", the start of WHERE): how many.
        self.by_dir = {}

    def add(self, kind, where, what):
        self.counts[kind] += 1
        dirn = where.split(' ', 1)[0]
        self.by_dir[dirn] = self.by_dir.get(dirn, 0) + 1
        if len(self.text) < 50:
            self.text.append('%s: %s' % (where, what))


def parse_mpa_frame(data, key):
    """The MPA Request or Reply at the start of DATA, as a dict, and its
    length; (None, why) when it is not one."""
    if len(data) < MPA_HDR_LEN:
        return None, 'stream ends inside the MPA frame header'
    if data[:16] != key:
        return None, 'no "%s" key' % key.decode()
    flags, rev, pd_len = struct.unpack('>BBH', data[16:MPA_HDR_LEN])
    end = MPA_HDR_LEN + pd_len
    if len(data) < end:
        return None, 'stream ends inside %d bytes of private data' % pd_len
    frame = {
        'hex': data[:end].hex(),
        'm': int(bool(flags & MPA_FLAG_M)),
        'c': int(bool(flags & MPA_FLAG_C)),
        'r': int(bool(flags & MPA_FLAG_R)),
        'h': int(bool(flags & MPA_FLAG_H)),
        'res': flags & 0x0F,
        'rev': rev,
        'pd_len': pd_len,
    }
    if rev == 2 and frame['h'] and pd_len >= 4:
        ird, ord_ = struct.unpack('>HH', data[MPA_HDR_LEN:MPA_HDR_LEN + 4])
        frame.update(ird=ird & MPA_IRD_ORD_MASK, ord=ord_ & MPA_IRD_ORD_MASK,
                     p2p=bool(ird & 0x8000), zero_length_rtr=bool(ird & 0x4000),
                     write_rtr=bool(ord_ & 0x8000), read_rtr=bool(ord_ & 0x4000))
    return frame, end


def new_direction(src, dst, nbytes):
    return {'src': src, 'dst': dst, 'bytes': nbytes, 'fpdus': 0,
            'crc_checked': 0, 'crc_bad': 0, 'crc_field_zero': 0,
            'opcodes': {}, 'payload_bytes': 0, 'terminates': [], 'errors': 0}


def walk_fpdus(data, start, crc, dirn, problems, where):
    """Check the FPDUs of DATA from START on; counts go into DIRN."""
    # Per queue number: the MSN of the message in progress, the bytes of
    # it seen so far.
    queues = {}
    off = start
    while off < len(data):
        at = '%s @%d' % (where, off)
        if len(data) - off < 2:
            problems.add('truncated', at, 'stream ends inside a ULPDU length')
            return
        ulpdu_len = struct.unpack('>H', data[off:off + 2])[0]
        covered = 2 + ulpdu_len + (-(2 + ulpdu_len) % 4)
        if len(data) - off < covered + 4:
            problems.add('truncated', at, 'FPDU of %d bytes, %d left in the stream'
                         % (covered + 4, len(data) - off))
            return
        fpdu = data[off:off + covered]
        field = data[off + covered:off + covered + 4]
        off += covered + 4
        dirn['fpdus'] += 1
        if crc:
            dirn['crc_checked'] += 1
            want = crc_field(fpdu)
            if field != want:
                dirn['crc_bad'] += 1
                problems.add('crc_bad', at, 'CRC field %s, CRC32c %s%s' % (
                    field.hex(), want.hex(),
                    ' (byte-swapped)' if field == want[::-1] else ''))
        elif field == bytes(4):
            dirn['crc_field_zero'] += 1
        check_ulpdu(fpdu[2:2 + ulpdu_len], queues, dirn, problems, at)


def check_ulpdu(ulpdu, queues, dirn, problems, at):
    """The DDP and RDMAP headers of one ULPDU."""
    if len(ulpdu) < 2:
        problems.add('header_errors', at, 'ULPDU of %d bytes' % len(ulpdu))
        return
    ddp, rdmap = ulpdu[0], ulpdu[1]
    tagged, last = bool(ddp & 0x80), bool(ddp & 0x40)
    opcode = rdmap & 0x0F
    if opcode not in OPCODES:
        problems.add('unknown_opcode', at, 'RDMAP opcode %d' % opcode)
        return
    name, want_tagged, want_qn = OPCODES[opcode]
    dirn['opcodes'][name] = dirn['opcodes'].get(name, 0) + 1
    bad = []
    if ddp & 0x03 != 1:
        bad.append('DDP version %d' % (ddp & 0x03))
    if ddp & 0x3C:
        bad.append('DDP reserved bits %#x' % (ddp & 0x3C))
    if rdmap >> 6 != 1:
        bad.append('RDMAP version %d' % (rdmap >> 6))
    if rdmap & 0x30:
        bad.append('RDMAP reserved bits %#x' % (rdmap & 0x30))
    if tagged != want_tagged:
        bad.append('%s with T=%d' % (name, tagged))
    hdr = DDP_TAGGED_HDR if tagged else DDP_UNTAGGED_HDR
    if len(ulpdu) < hdr:
        bad.append('%s ULPDU of %d bytes, shorter than its %d-byte header'
                   % (name, len(ulpdu), hdr))
    if bad:
        problems.add('header_errors', at, ', '.join(bad))
        return
    payload = len(ulpdu) - hdr
    dirn['payload_bytes'] += payload
    if tagged:
        return
    qn, msn, mo = struct.unpack('>III', ulpdu[6:18])
    if qn != want_qn:
        bad.append('%s on QN %d' % (name, qn))
    # A queue's first message has MSN 1 (RFC 5041); an untagged message's
    # segments carry consecutive offsets, the last has L set.
    want_msn, seen = queues.get(qn, (1, 0))
    if msn != want_msn or mo != seen:
        bad.append('QN %d MSN %d MO %d, want MSN %d MO %d'
                   % (qn, msn, mo, want_msn, seen))
    queues[qn] = (msn + 1, 0) if last else (msn, mo + payload)
    if opcode == 1 and (payload != READ_REQ_LEN or not last):
        bad.append('Read Request of %d bytes, L=%d' % (payload, last))
    if opcode == 7:
        if payload < TERM_CTRL_LEN:
            bad.append('Terminate of %d bytes' % payload)
        else:
            ctrl = ulpdu[hdr]
            dirn['terminates'].append([ctrl >> 4, ctrl & 0x0F, ulpdu[hdr + 1]])
    if bad:
        problems.add('header_errors', at, ', '.join(bad))


# ---- pcap, IP, TCP ---------------------------------------------------------

def pcap_frames(path):
    """The Ethernet frames of a classic pcap file."""
    with open(path, 'rb') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            raise ValueError('%s: no pcap header' % path)
        magic = struct.unpack('<I', hdr[:4])[0]
        if magic in (0xA1B2C3D4, 0xA1B23C4D):
            end = '<'
        elif magic in (0xD4C3B2A1, 0x4D3CB2A1):
            end = '>'
        else:
            raise ValueError('%s: not a classic pcap file (magic %#x)' % (path, magic))
        linktype = struct.unpack(end + 'I', hdr[20:24])[0]
        if linktype != 1:
            raise ValueError('%s: link type %d, not Ethernet' % (path, linktype))
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            incl = struct.unpack(end + 'I', rec[8:12])[0]
            yield f.read(incl)


def tcp_segment(frame):
    """(src, dst, sport, dport, seq, flags, payload) of a TCP segment in an
    Ethernet frame (optionally VLAN tagged, IPv4 or IPv6 without extension
    headers), or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack('>H', frame[12:14])[0]
    off = 14
    if etype == 0x8100 and len(frame) >= 18:
        etype = struct.unpack('>H', frame[16:18])[0]
        off = 18
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0x0F) * 4
        total, frag, proto = (struct.unpack('>H', frame[off + 2:off + 4])[0],
                              struct.unpack('>H', frame[off + 6:off + 8])[0],
                              frame[off + 9])
        if proto != 6 or frag & 0x3FFF:
            return None
        src = socket.inet_ntop(socket.AF_INET, frame[off + 12:off + 16])
        dst = socket.inet_ntop(socket.AF_INET, frame[off + 16:off + 20])
        seg = frame[off + ihl:off + total]
    elif etype == 0x86DD and len(frame) >= off + 40:
        if frame[off + 6] != 6:
            return None
        plen = struct.unpack('>H', frame[off + 4:off + 6])[0]
        src = '[%s]' % socket.inet_ntop(socket.AF_INET6, frame[off + 8:off + 24])
        dst = '[%s]' % socket.inet_ntop(socket.AF_INET6, frame[off + 24:off + 40])
        seg = frame[off + 40:off + 40 + plen]
    else:
        return None
    if len(seg) < 20:
        return None
    sport, dport, seq = struct.unpack('>HHI', seg[:8])
    doff = (seg[12] >> 4) * 4
    return src, dst, sport, dport, seq, seg[13], seg[doff:]


SYN, ACK = 0x02, 0x10


class Stream:
    """One direction of a TCP connection: its payload by offset from the
    byte after the SYN."""

    def __init__(self, isn):
        self.isn = isn
        self.segs = {}
        # Offsets where two copies of a segment disagree.
        self.conflicts = []

    def add(self, seq, payload):
        if not payload:
            return
        off = (seq - self.isn - 1) & 0xFFFFFFFF
        old = self.segs.get(off, b'')
        n = min(len(old), len(payload))
        if old[:n] != payload[:n]:
            self.conflicts.append(off)
        # Keep the longest segment seen at each offset.
        if len(payload) > len(old):
            self.segs[off] = payload

    def head(self, n):
        """Up to N bytes from the start of the stream, as far as they
        are contiguous."""
        data = b''
        for off in sorted(self.segs):
            if off > len(data) or len(data) >= n:
                break
            data += self.segs[off][len(data) - off:]
        return data[:n]

    def bytes(self, problems, where):
        """The contiguous stream; a hole, or copies of a segment that
        differ, are stream errors."""
        data = bytearray()
        for off in self.conflicts:
            problems.add('stream_errors', '%s @%d' % (where, off),
                         'a resent segment differs from the first copy')
        for off in sorted(self.segs):
            seg = self.segs[off]
            if off > len(data):
                problems.add('stream_errors', '%s @%d' % (where, len(data)),
                             '%d bytes missing' % (off - len(data)))
                break
            overlap = min(len(data) - off, len(seg))
            if data[off:off + overlap] != seg[:overlap]:
                problems.add('stream_errors', '%s @%d' % (where, off),
                             'an overlapping segment differs from the bytes before')
            data += seg[overlap:]
        return bytes(data)


def connections(frames):
    """The TCP connections of the capture, in the order of their SYNs:
    (initiator, responder, Stream to the responder, Stream back)."""
    conns = []
    by_tuple = {}
    for frame in frames:
        seg = tcp_segment(frame)
        if not seg:
            continue
        src, dst, sport, dport, seq, flags, payload = seg
        a, b = (src, sport), (dst, dport)
        if flags & SYN and not flags & ACK:
            old = by_tuple.get((a, b))
            if old and old[2].isn == seq:
                continue
            conn = [a, b, Stream(seq), None]
            conns.append(conn)
            by_tuple[(a, b)] = conn
        elif flags & SYN:
            conn = by_tuple.get((b, a))
            if conn and conn[3] is None:
                conn[3] = Stream(seq)
        elif (a, b) in by_tuple:
            by_tuple[(a, b)][2].add(seq, payload)
        elif (b, a) in by_tuple and by_tuple[(b, a)][3]:
            by_tuple[(b, a)][3].add(seq, payload)
    return conns


def addr(ep):
    return '%s:%d' % ep


def check_connection(conn, problems):
    """The report of one TCP connection, None when it is not iWARP."""
    ini, rsp, fwd, back = conn
    where_f = '%s>%s' % (addr(ini), addr(rsp))
    where_b = '%s>%s' % (addr(rsp), addr(ini))
    if fwd.head(8) != MPA_KEY_REQ[:8]:
        return None
    up = fwd.bytes(problems, where_f)
    down = back.bytes(problems, where_b) if back else b''
    rep = {'initiator': addr(ini), 'responder': addr(rsp), 'crc': False,
           'rejected': False,
           'to_responder': new_direction(addr(ini), addr(rsp), len(up)),
           'to_initiator': new_direction(addr(rsp), addr(ini), len(down))}
    req, req_len = parse_mpa_frame(up, MPA_KEY_REQ)
    if req is None:
        problems.add('stream_errors', where_f + ' @0', 'MPA Request: ' + req_len)
        return rep
    rep['mpa_request'] = req
    reply, reply_len = parse_mpa_frame(down, MPA_KEY_REP)
    if reply is None:
        if len(up) > req_len or down:
            problems.add('stream_errors', where_b + ' @0', 'MPA Reply: ' + reply_len)
        return rep
    rep['mpa_reply'] = reply
    for frame, where in ((req, where_f), (reply, where_b)):
        if frame['m']:
            problems.add('stream_errors', where + ' @0', 'MPA frame asks for markers')
    if reply['m'] or req['m']:
        return rep
    if reply['r']:
        rep['rejected'] = True
        for data, start, where in ((up, req_len, where_f), (down, reply_len, where_b)):
            if len(data) > start:
                problems.add('stream_errors', '%s @%d' % (where, start),
                             '%d bytes after a rejected MPA Request' % (len(data) - start))
        return rep
    # The Reply's C decides (RFC 5044: the Responder sets it when either
    # side wants CRCs), for both directions.
    rep['crc'] = bool(reply['c'])
    walk_fpdus(up, req_len, rep['crc'], rep['to_responder'], problems, where_f)
    walk_fpdus(down, reply_len, rep['crc'], rep['to_initiator'], problems, where_b)
    return rep


def check_pcap(path, ports=None):
    """The JSON-ready report of the capture at PATH."""
    problems = Problems()
    frames = list(pcap_frames(path))
    conns = connections(frames)
    report = {'pcap': path, 'frames': len(frames), 'tcp_connections': len(conns)}
    reps = []
    for conn in conns:
        if ports and conn[1][1] not in ports:
            continue
        rep = check_connection(conn, problems)
        if rep:
            reps.append(rep)
    return summarize(report, reps, problems)


def summarize(report, reps, problems):
    opcodes, by_src = {}, {}
    for key in ('fpdus', 'crc_checked'):
        report[key] = 0
    for rep in reps:
        for d in (rep['to_responder'], rep['to_initiator']):
            d['errors'] = problems.by_dir.get('%s>%s' % (d['src'], d['dst']), 0)
            report['fpdus'] += d['fpdus']
            report['crc_checked'] += d['crc_checked']
            src = by_src.setdefault(d['src'].rsplit(':', 1)[0], {})
            for name, n in d['opcodes'].items():
                opcodes[name] = opcodes.get(name, 0) + n
                src[name] = src.get(name, 0) + n
    report['iwarp_connections'] = len(reps)
    report.update(problems.counts)
    report['opcodes'] = opcodes
    report['opcodes_by_source'] = by_src
    report['connections'] = reps
    report['errors'] = problems.text
    report['ok'] = not any(problems.counts.values())
    return report


# ---- self-test -------------------------------------------------------------

def crc_vectors():
    """RFC 3720 B.4's CRC32c examples, as (name, data, CRC bytes as sent),
    and the usual check value of "123456789"."""
    read_cmd = bytes.fromhex(
        '01c0000000000000000000000000000014000000'
        '0000040000000014000000182800000000000000'
        '0200000000000000')
    return [
        ('32 bytes of zeros', bytes(32), 'aa36918a'),
        ('32 bytes of ones', b'\xff' * 32, '43aba862'),
        ('32 incrementing bytes', bytes(range(32)), '4e79dd46'),
        ('32 decrementing bytes', bytes(range(31, -1, -1)), '5cdb3f11'),
        ('an iSCSI Read (10) command PDU', read_cmd, '563a96d9'),
        ('"123456789"', b'123456789', '839206e3'),
    ]


def mpa_frame(key, flags, pdata=b'', rev=2):
    return key + struct.pack('>BBH', flags, rev, len(pdata)) + pdata


def fpdu(ulpdu, crc=True):
    body = struct.pack('>H', len(ulpdu)) + ulpdu
    body += bytes(-len(body) % 4)
    return body + (crc_field(body) if crc else bytes(4))


def untagged(opcode, qn, msn, mo, payload, last=True):
    return (bytes([0x01 | (0x40 if last else 0), 0x40 | opcode])
            + struct.pack('>IIII', 0, qn, msn, mo) + payload)


def tagged(opcode, stag, to, payload):
    return bytes([0xC1, 0x40 | opcode]) + struct.pack('>IQ', stag, to) + payload


def sample_streams(crc=True):
    """An MPA v2 exchange and FPDUs of every kind RFC 5040 has."""
    flags = MPA_FLAG_H | (MPA_FLAG_C if crc else 0)
    up = mpa_frame(MPA_KEY_REQ, flags, struct.pack('>HH', 0x8010, 0x8010))
    down = mpa_frame(MPA_KEY_REP, flags, struct.pack('>HH', 0x8010, 0x8010))
    rreq = struct.pack('>IQIIQ', 0x100, 0x2000, 64, 0x200, 0x4000)
    up += fpdu(untagged(3, 0, 1, 0, b'first half ', last=False), crc)
    up += fpdu(untagged(3, 0, 1, 11, b'second half'), crc)
    up += fpdu(untagged(1, 1, 1, 0, rreq), crc)
    up += fpdu(tagged(0, 0x300, 0x8000, bytes(range(37))), crc)
    up += fpdu(untagged(5, 0, 2, 0, b'x'), crc)
    down += fpdu(tagged(2, 0x100, 0x2000, bytes(64)), crc)
    down += fpdu(untagged(4, 0, 1, 0, b''), crc)
    down += fpdu(untagged(6, 0, 2, 0, b'abc'), crc)
    down += fpdu(untagged(7, 2, 1, 0, bytes([0x20, 0x02, 0, 0])), crc)
    return up, down


def pcap_bytes(segments):
    """A pcap file of IPv4 frames from (src, dst, sport, dport, seq, flags,
    payload) tuples."""
    out = struct.pack('<IHHiIII', 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    for src, dst, sport, dport, seq, flags, payload in segments:
        tcp = struct.pack('>HHIIBBHHH', sport, dport, seq, 0, 0x50, flags,
                          65535, 0, 0) + payload
        ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 20 + len(tcp), 0, 0x4000,
                         64, 6, 0, socket.inet_aton(src), socket.inet_aton(dst))
        frame = b'\x52\x54\x00\x00\x00\x02\x52\x54\x00\x00\x00\x01\x08\x00' + ip + tcp
        out += struct.pack('<IIII', 0, 0, len(frame), len(frame)) + frame
    return out


def sample_pcap(up, down, cut=7, drop=None, resend=None):
    """One connection carrying UP and DOWN in CUT-byte segments: the first
    of each direction sent twice; the third sent short, then the fourth,
    then the third again twice as long (overlapping the fourth); segment
    DROP of UP left out; RESEND, when given, sent once more before the
    rest as UP's seventh segment."""
    a, b = ('10.0.0.2', 40000), ('10.0.0.1', 7174)
    isn_a, isn_b = 1000, 0xFFFFFFF0     # b's sequence numbers wrap
    segs = [(a[0], b[0], a[1], b[1], isn_a, SYN, b''),
            (b[0], a[0], b[1], a[1], isn_b, SYN | ACK, b'')]
    for (s, d), data, isn in (((a, b), up, isn_a), ((b, a), down, isn_b)):
        pieces = [(off, data[off:off + cut]) for off in range(0, len(data), cut)]
        third = pieces[2][0]
        order = [pieces[0], pieces[0], pieces[1], (third, data[third:third + 3]),
                 pieces[3], (third, data[third:third + 2 * cut])] + pieces[4:]
        if data is up:
            if resend is not None:
                order.insert(2, (6 * cut, resend))
            if drop is not None:
                order = [p for p in order if p[0] != pieces[drop][0]]
        for off, piece in order:
            segs.append((s[0], d[0], s[1], d[1], (isn + 1 + off) & 0xFFFFFFFF,
                         ACK, piece))
    return pcap_bytes(segs)


def selftest():
    results = []

    def ok(cond, desc, why=''):
        results.append((bool(cond), desc, why))

    for name, data, want in crc_vectors():
        got = crc_field(data).hex()
        ok(got == want, 'CRC32c of %s is sent as %s' % (name, want), 'got ' + got)
    ok(crc32c(bytes(32)) == 0x8A9136AA, 'CRC32c of 32 bytes of zeros is 0x8a9136aa',
       '%#x' % crc32c(bytes(32)))

    def run(pcap, ports=None):
        fd, path = tempfile.mkstemp(suffix='.pcap')
        with os.fdopen(fd, 'wb') as f:
            f.write(pcap)
        try:
            return check_pcap(path, ports)
        finally:
            os.unlink(path)

    def counts(rep):
        return {k: rep[k] for k in ('fpdus', 'crc_checked') + Problems.KINDS}

    up, down = sample_streams()
    rep = run(sample_pcap(up, down))
    want = dict.fromkeys(Problems.KINDS, 0)
    want.update(fpdus=9, crc_checked=9)
    ok(counts(rep) == want and rep['ok'],
       'clean stream with CRCs, resent and overlapping segments: 9 FPDUs checked',
       '%s %s' % (counts(rep), rep['errors'][:2]))
    want_ops = {'send': 2, 'rdma_read_request': 1, 'rdma_write': 1, 'send_se': 1,
                'rdma_read_response': 1, 'send_invalidate': 1,
                'send_se_invalidate': 1, 'terminate': 1}
    ok(rep['opcodes'] == want_ops, 'all eight RDMAP opcodes counted', str(rep['opcodes']))
    conn = rep['connections'][0] if rep['connections'] else {}
    ok(conn.get('mpa_request', {}).get('p2p') and conn.get('mpa_request', {}).get('ird') == 16
       and conn.get('to_initiator', {}).get('terminates') == [[2, 0, 2]],
       'MPA v2 IRD/ORD and the Terminate control read', json.dumps(conn)[:200])
    ok(run(sample_pcap(up, down), ports={7175})['iwarp_connections'] == 0,
       '--port leaves out other responder ports')

    rep = run(sample_pcap(*sample_streams(crc=False)))
    ok(rep['ok'] and rep['crc_checked'] == 0 and rep['fpdus'] == 9
       and rep['connections'][0]['to_responder']['crc_field_zero'] == 5,
       'without C the CRC field is not checked', str(counts(rep)))

    bad = bytearray(up)
    bad[-1] ^= 0x01
    rep = run(sample_pcap(bytes(bad), down))
    ok(rep['crc_bad'] == 1 and not rep['ok'], 'one flipped CRC bit is one CRC mismatch',
       str(counts(rep)))
    dirs = [(c['to_responder']['errors'], c['to_initiator']['errors'])
            for c in rep['connections']]
    ok(dirs == [(1, 0)], 'the mismatch is counted in its direction only', str(dirs))
    bad = bytearray(up)
    bad[-10] ^= 0x80
    rep = run(sample_pcap(bytes(bad), down))
    ok(rep['crc_bad'] == 1, 'one flipped payload bit is one CRC mismatch', str(counts(rep)))
    rep = run(sample_pcap(up[:-3], down))
    ok(rep['truncated'] == 1 and not rep['ok'], 'a cut FPDU is truncated', str(counts(rep)))
    rep = run(sample_pcap(up + fpdu(untagged(9, 0, 3, 0, b'')), down))
    ok(rep['unknown_opcode'] == 1 and not rep['ok'], 'opcode 9 is unknown', str(counts(rep)))
    rep = run(sample_pcap(up + fpdu(untagged(3, 0, 5, 0, b'')), down))
    ok(rep['header_errors'] == 1, 'an MSN out of order is a header error', str(counts(rep)))
    rep = run(sample_pcap(up + fpdu(tagged(3, 1, 0, b'')), down))
    ok(rep['header_errors'] == 1, 'a tagged Send is a header error', str(counts(rep)))
    marked = mpa_frame(MPA_KEY_REQ, MPA_FLAG_M | MPA_FLAG_H, up[20:24]) + up[24:]
    rep = run(sample_pcap(marked, down))
    ok(rep['stream_errors'] == 1 and rep['fpdus'] == 0, 'markers asked for are an error',
       str(counts(rep)))
    rep = run(sample_pcap(up, down, drop=5))
    ok(rep['stream_errors'] == 1 and not rep['ok'], 'a hole in a stream is an error',
       str(counts(rep)))
    rep = run(sample_pcap(up, down, resend=b'\0' * 7))
    ok(rep['stream_errors'] == 1 and not rep['ok'],
       'a resent segment with other bytes is an error', str(counts(rep)))

    print('KTAP version 1')
    print('1..%d' % len(results))
    for n, (good, desc, why) in enumerate(results, 1):
        print('%s %d %s%s' % ('ok' if good else 'not ok', n, desc,
                              '' if good else ' # ' + why))
    return 0 if all(r[0] for r in results) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('pcap', nargs='?')
    ap.add_argument('--port', type=int, action='append',
                    help="only connections to this responder port (repeatable)")
    ap.add_argument('--selftest', action='store_true')
    args = ap.parse_args()
    if args.selftest:
        return selftest()
    if not args.pcap:
        ap.error('a pcap file or --selftest')
    try:
        report = check_pcap(args.pcap, set(args.port or ()))
    except (OSError, ValueError) as e:
        print(e, file=sys.stderr)
        return 2
    print(json.dumps(report, indent=1))
    return 0 if report['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())
