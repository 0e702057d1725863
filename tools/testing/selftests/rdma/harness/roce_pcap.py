#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Independent checks of the RoCE v2 packets in a pcap file.

For every UDP datagram to port 4791 (Ethernet, IPv4 or IPv6) it recomputes
the ICRC with zlib.crc32 over the masked pseudo-header (8 bytes of 0xff,
IP header with TOS/TTL/checksum or traffic class/flow label/hop limit set
to ones, UDP header with the checksum set to ones, BTH with byte 4 set to
ones, then the rest up to the ICRC) and compares it with the packet's.
It also collects the UDP source ports per (source IP, destination QP).

Output, one "key value" per line:
  roce N        RoCE v2 packets
  icrc_ok N     packets whose ICRC matched
  icrc_bad N    packets whose ICRC did not
  sport_out N   packets with a UDP source port outside 0xC000-0xFFFF
  flows N       distinct (source address, destination QP) pairs
  sports N      distinct UDP source ports over those flows
  bad FRAME ... one line per mismatch (first 10)
"""
import struct
import sys
import zlib


def packets(path):
    with open(path, 'rb') as f:
        hdr = f.read(24)
        if len(hdr) < 24:
            return
        magic = struct.unpack('<I', hdr[:4])[0]
        end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
        n = 0
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            _, _, incl, _ = struct.unpack(end + 'IIII', rec)
            data = f.read(incl)
            n += 1
            yield n, data


def roce(frame):
    """(l3 bytes, is_ipv6, udp+rest bytes, src) or None."""
    if len(frame) < 14:
        return None
    etype = struct.unpack('>H', frame[12:14])[0]
    off = 14
    if etype == 0x8100 and len(frame) >= 18:
        etype = struct.unpack('>H', frame[16:18])[0]
        off = 18
    if etype == 0x0800:
        ihl = (frame[off] & 0xf) * 4
        if ihl != 20 or frame[off + 9] != 17:
            return None
        tot = struct.unpack('>H', frame[off + 2:off + 4])[0]
        l3 = frame[off:off + 20]
        rest = frame[off + 20:off + tot]
        src = '.'.join(str(b) for b in l3[12:16])
        return l3, False, rest, src
    if etype == 0x86dd:
        if frame[off + 6] != 17:
            return None
        plen = struct.unpack('>H', frame[off + 4:off + 6])[0]
        l3 = frame[off:off + 40]
        rest = frame[off + 40:off + 40 + plen]
        src = l3[8:24].hex()
        return l3, True, rest, src
    return None


def icrc(l3, v6, udp):
    ps = bytearray(l3)
    if v6:
        ps[0] |= 0x0f
        ps[1] = ps[2] = ps[3] = 0xff
        ps[7] = 0xff
    else:
        ps[1] = 0xff
        ps[8] = 0xff
        ps[10] = ps[11] = 0xff
    u = bytearray(udp[:20])
    u[6] = u[7] = 0xff
    u[12] = 0xff          # BTH byte 4
    data = b'\xff' * 8 + bytes(ps) + bytes(u) + udp[20:-4]
    return zlib.crc32(data) & 0xffffffff


def main():
    st = {'roce': 0, 'icrc_ok': 0, 'icrc_bad': 0, 'sport_out': 0}
    flows = {}
    bad = []
    for n, frame in packets(sys.argv[1]):
        r = roce(frame)
        if not r:
            continue
        l3, v6, udp, src = r
        if len(udp) < 8 or struct.unpack('>H', udp[2:4])[0] != 4791:
            continue
        st['roce'] += 1
        sport = struct.unpack('>H', udp[0:2])[0]
        if not 0xc000 <= sport <= 0xffff:
            st['sport_out'] += 1
        if len(udp) < 8 + 12 + 4:
            st['icrc_bad'] += 1
            bad.append('%d truncated' % n)
            continue
        dqp = int.from_bytes(udp[13:16], 'big')
        flows.setdefault((src, dqp), set()).add(sport)
        want = icrc(l3, v6, udp)
        got = struct.unpack('<I', udp[-4:])[0]
        if want == got:
            st['icrc_ok'] += 1
        else:
            st['icrc_bad'] += 1
            bad.append('%d icrc %08x want %08x' % (n, got, want))
    for k, v in st.items():
        print(k, v)
    print('flows', len(flows))
    print('sports', len(set().union(*flows.values())) if flows else 0)
    for b in bad[:10]:
        print('bad', b)


if __name__ == '__main__':
    main()
