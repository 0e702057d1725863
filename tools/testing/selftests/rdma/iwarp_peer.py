# SPDX-License-Identifier: GPL-2.0
"""What the user-space iWARP peers of the tests share.

mpa_crc_probe.py and siw_hostile.py speak MPA (RFC 5044), DDP (RFC 5041)
and RDMAP (RFC 5040) over plain TCP sockets from python.  The frame
builders and the CRC32c are harness/iwarp_pcap.py's (the host's checker
of captures: one implementation of the wire formats for both ends); this
module adds reading them off a socket and the KTAP the peers print.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'harness'))
import iwarp_pcap as iw  # noqa: E402,F401 (re-exported to the peers)


class Ktap:
    """KTAP results, each printed as it is made (a peer stopped half-way
    has still said what it found), the plan at the end."""

    def __init__(self):
        self.n = 0
        self.failed = 0
        print('KTAP version 1', flush=True)

    def check(self, good, desc, why=''):
        self.n += 1
        if not good:
            self.failed += 1
        desc = ' '.join(str(desc).split())
        why = ' '.join(str(why).split())
        print('%s %d %s%s' % ('ok' if good else 'not ok', self.n, desc,
                              '' if good else ' # ' + why), flush=True)
        return bool(good)

    def diag(self, text):
        for line in str(text).splitlines():
            print('# ' + line, flush=True)

    def finish(self):
        print('1..%d' % self.n, flush=True)
        return 0 if self.n and not self.failed else 1


def recv_exact(sock, n):
    """N bytes from SOCK; EOFError when the peer closes first."""
    data = b''
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise EOFError('the peer closed the connection after %d of %d bytes'
                           % (len(data), n))
        data += chunk
    return data


def recv_fpdu(sock):
    """The next FPDU of an MPA stream without markers: (ULPDU, whether its
    CRC field is the CRC32c of the FPDU before it)."""
    head = recv_exact(sock, 2)
    ulpdu_len = struct.unpack('>H', head)[0]
    pad = -(2 + ulpdu_len) % 4
    rest = recv_exact(sock, ulpdu_len + pad + 4)
    body = head + rest[:-4]
    return rest[:ulpdu_len], rest[-4:] == iw.crc_field(body)


def recv_mpa_frame(sock, key):
    """The MPA Request or Reply (KEY) at the start of SOCK's stream: its
    iwarp_pcap.parse_mpa_frame() dict (None when the bytes are not one)
    and the raw bytes.  Reads the private data its length announces, at
    most 512 bytes (RFC 5044's limit) beyond which it stops."""
    hdr = recv_exact(sock, iw.MPA_HDR_LEN)
    pd_len = struct.unpack('>H', hdr[18:20])[0]
    raw = hdr + recv_exact(sock, min(pd_len, 512))
    frame, _ = iw.parse_mpa_frame(raw, key)
    return frame, raw
