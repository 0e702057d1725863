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
  from ADDR N   RoCE v2 packets sent from ADDR (one line per source)
  bad FRAME ... one line per mismatch (first 10)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import roce_lib  # noqa: E402


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


def main():
    st = {'roce': 0, 'icrc_ok': 0, 'icrc_bad': 0, 'sport_out': 0}
    flows = {}
    sources = {}
    bad = []
    for n, frame in packets(sys.argv[1]):
        r = roce_lib.split_frame(frame)
        if not r:
            continue
        l3, v6, udp, src = r.l3, r.v6, r.udp, r.src
        if len(udp) < 8 or struct.unpack('>H', udp[2:4])[0] != 4791:
            continue
        st['roce'] += 1
        sources[src] = sources.get(src, 0) + 1
        sport = struct.unpack('>H', udp[0:2])[0]
        if not 0xc000 <= sport <= 0xffff:
            st['sport_out'] += 1
        if len(udp) < 8 + 12 + 4:
            st['icrc_bad'] += 1
            bad.append('%d truncated' % n)
            continue
        dqp = int.from_bytes(udp[13:16], 'big')
        flows.setdefault((src, dqp), set()).add(sport)
        want = roce_lib.icrc(l3, v6, udp[:-4])
        got = udp[-4:]
        if want == got:
            st['icrc_ok'] += 1
        else:
            st['icrc_bad'] += 1
            bad.append('%d icrc %s want %s' % (n, got.hex(), want.hex()))
    for k, v in st.items():
        print(k, v)
    print('flows', len(flows))
    print('sports', len(set().union(*flows.values())) if flows else 0)
    for src in sorted(sources):
        print('from', src, sources[src])
    for b in bad[:10]:
        print('bad', b)


if __name__ == '__main__':
    main()
