# SPDX-License-Identifier: GPL-2.0
"""RoCE v2 wire formats for the test tools, with the standard library only.

The opcode table (which extension headers each BTH opcode carries, in
wire order), the BTH, IPv4 and IPv6 headers as the tools write them, the
ICRC (zlib.crc32 over the masked pseudo-header of the IBTA's RoCE v2
annex) and the split of a captured Ethernet frame into its IP header and
UDP datagram.  Used by rxe_garbage.py, rxe_hostile.py and
harness/roce_pcap.py.
"""
import collections
import socket
import struct
import zlib

PORT = 4791
QPN_MASK = 0xffffff
PSN_MASK = 0xffffff
BTH_BYTES = 12

# Extension headers and their sizes.
DETH, RETH, ATMETH, AETH, ATMACK, IMMDT, IETH = range(7)
HDR_BYTES = {DETH: 8, RETH: 16, ATMETH: 28, AETH: 4, ATMACK: 8, IMMDT: 4,
             IETH: 4}
RC, UC, UD = 1, 2, 4
TRANSPORTS = {0x00: RC, 0x20: UC, 0x60: UD}

# RC opcodes by name (UC and UD add their transport's bits).
SEND_ONLY = 0x04
WRITE_FIRST = 0x06
WRITE_MIDDLE = 0x07
WRITE_LAST = 0x08
WRITE_ONLY = 0x0a
READ_REQUEST = 0x0c
READ_RESP_FIRST = 0x0d
READ_RESP_MIDDLE = 0x0e
READ_RESP_LAST = 0x0f
READ_RESP_ONLY = 0x10
ACK = 0x11
ATOMIC_ACK = 0x12

# AETH syndromes: ACK, and the NAK codes.
SYN_ACK = 0x1f          # ACK, no credit count
SYN_NAK_SEQ = 0x60
SYN_NAK_INV_REQ = 0x61
SYN_NAK_REM_ACCESS = 0x62
SYN_NAK_REM_OP = 0x63

# Operation (opcode bits 4..0): transports, payload allowed, headers in
# wire order.
OPS = {
    0x00: (RC | UC, True, ()),            # SEND_FIRST
    0x01: (RC | UC, True, ()),            # SEND_MIDDLE
    0x02: (RC | UC, True, ()),            # SEND_LAST
    0x03: (RC | UC, True, (IMMDT,)),      # SEND_LAST_IMM
    0x04: (RC | UC | UD, True, ()),       # SEND_ONLY
    0x05: (RC | UC | UD, True, (IMMDT,)),  # SEND_ONLY_IMM
    0x06: (RC | UC, True, (RETH,)),       # WRITE_FIRST
    0x07: (RC | UC, True, ()),            # WRITE_MIDDLE
    0x08: (RC | UC, True, ()),            # WRITE_LAST
    0x09: (RC | UC, True, (IMMDT,)),      # WRITE_LAST_IMM
    0x0a: (RC | UC, True, (RETH,)),       # WRITE_ONLY
    0x0b: (RC | UC, True, (RETH, IMMDT)),  # WRITE_ONLY_IMM
    0x0c: (RC, False, (RETH,)),           # READ_REQUEST
    0x0d: (RC, True, (AETH,)),            # READ_RESP_FIRST
    0x0e: (RC, True, ()),                 # READ_RESP_MIDDLE
    0x0f: (RC, True, (AETH,)),            # READ_RESP_LAST
    0x10: (RC, True, (AETH,)),            # READ_RESP_ONLY
    0x11: (RC, False, (AETH,)),           # ACK
    0x12: (RC, False, (AETH, ATMACK)),    # ATOMIC_ACK
    0x13: (RC, False, (ATMETH,)),         # CMP_SWAP
    0x14: (RC, False, (ATMETH,)),         # FETCH_ADD
    0x16: (RC, True, (IETH,)),            # SEND_LAST_INV
    0x17: (RC, True, (IETH,)),            # SEND_ONLY_INV
    0x1d: (RC, True, (RETH,)),            # ATOMIC_WRITE
}


def opcode_info(op):
    """(transport, payload allowed, header length) or None if unknown."""
    tp = TRANSPORTS.get(op & 0xe0)
    desc = OPS.get(op & 0x1f)
    if tp is None or desc is None or not desc[0] & tp:
        return None
    hdrs = set(desc[2])
    if tp == UD:
        hdrs.add(DETH)
    return tp, desc[1], BTH_BYTES + sum(HDR_BYTES[h] for h in hdrs)


def is_response(op):
    """Whether an RC opcode travels from responder to requester."""
    return READ_RESP_FIRST <= (op & 0x1f) <= ATOMIC_ACK


def ext_offset(op, hdr):
    """Offset of extension header @hdr from the BTH of an RC or UC @op
    (None if @op carries no such header)."""
    off = BTH_BYTES
    for h in OPS.get(op & 0x1f, (0, False, ()))[2]:
        if h == hdr:
            return off
        off += HDR_BYTES[h]
    return None


def icrc(l3, v6, udp_wo_icrc):
    """The ICRC of a datagram, as the 4 bytes that end it.

    @l3 is the IP header, @udp_wo_icrc the UDP header and everything
    after it up to the ICRC.
    """
    ps = bytearray(l3)
    if v6:
        ps[0] |= 0x0f
        ps[1] = ps[2] = ps[3] = 0xff
        ps[7] = 0xff
    else:
        ps[1] = 0xff
        ps[8] = 0xff
        ps[10] = ps[11] = 0xff
    u = bytearray(udp_wo_icrc[:20])
    u[6] = u[7] = 0xff
    u[12] = 0xff          # BTH byte 4 (reserved)
    crc = zlib.crc32(b'\xff' * 8 + bytes(ps) + bytes(u) + udp_wo_icrc[20:])
    return struct.pack('<I', crc & 0xffffffff)


def bth(op, qpn, pad=0, tver=0, pkey=0xffff, psn=0, se=False, ackreq=False):
    """A BTH: opcode, flags, P_Key, destination QP, AckReq and PSN."""
    return (struct.pack('>BBHI', op, (se << 7) | (pad << 4) | tver, pkey,
                        qpn & QPN_MASK) +
            struct.pack('>I', (ackreq << 31) | (psn & PSN_MASK)))


def ipv4_hdr(src, dst, ulen, ident, options=b''):
    """An IPv4 header (DF, TTL 64, UDP) with its checksum."""
    ihl = 5 + len(options) // 4
    h = struct.pack('>BBHHHBBH4s4s', 0x40 | ihl, 0, ihl * 4 + ulen, ident,
                    0x4000, 64, 17, 0, socket.inet_aton(src),
                    socket.inet_aton(dst)) + options
    s = sum(struct.unpack('>%dH' % (len(h) // 2), h))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return h[:10] + struct.pack('>H', ~s & 0xffff) + h[12:]


def ipv6_hdr(src, dst, ulen):
    """An IPv6 header (hop limit 64, UDP)."""
    return struct.pack('>IHBB16s16s', 6 << 28, ulen, 17, 64,
                       socket.inet_pton(socket.AF_INET6, src),
                       socket.inet_pton(socket.AF_INET6, dst))


# A captured frame: IP header, whether IPv6, the UDP datagram (as long as
# the IP header says), source and destination address as text.
Frame = collections.namedtuple('Frame', 'l3 v6 udp src dst')


def split_frame(frame):
    """The UDP datagram of an Ethernet frame (IPv4 without options or
    IPv6 without extension headers, optionally VLAN tagged), or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack('>H', frame[12:14])[0]
    off = 14
    if etype == 0x8100 and len(frame) >= 18:
        etype = struct.unpack('>H', frame[16:18])[0]
        off = 18
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0xf) * 4
        if ihl != 20 or frame[off + 9] != 17:
            return None
        tot = struct.unpack('>H', frame[off + 2:off + 4])[0]
        l3 = frame[off:off + 20]
        return Frame(l3, False, frame[off + 20:off + tot],
                     socket.inet_ntoa(l3[12:16]), socket.inet_ntoa(l3[16:20]))
    if etype == 0x86dd and len(frame) >= off + 40:
        if frame[off + 6] != 17:
            return None
        plen = struct.unpack('>H', frame[off + 4:off + 6])[0]
        l3 = frame[off:off + 40]
        return Frame(l3, True, frame[off + 40:off + 40 + plen],
                     socket.inet_ntop(socket.AF_INET6, l3[8:24]),
                     socket.inet_ntop(socket.AF_INET6, l3[24:40]))
    return None
