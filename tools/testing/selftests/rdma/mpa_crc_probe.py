#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An iWARP initiator in user space that asks for MPA CRCs.

    mpa_crc_probe.py [--corrupt] [--timeout SECS] HOST PORT

Connects over TCP to an iWARP listener (an "rping -s" on a siw device),
sends an MPA v2 Request with the C and H flags (IRD 1, ORD 1) and reads
the Reply, then sends one RDMAP Send FPDU with the 16 bytes an rping
client sends first (buffer address, rkey, size; rping_rdma_info, all in
network order), its CRC32c made by harness/iwarp_pcap.py.  An rping
server answers that with an RDMA Read Request for the advertised buffer;
with --corrupt one bit of the Send's CRC field is flipped, and the peer
must instead send a Terminate for an MPA CRC error (RFC 5040's Terminate
control: layer 2, LLP, error type 0, MPA, and RFC 5044's error code 2, CRC
error).  RFC 5040 has
the layer in the high nibble of the Terminate's first control byte and
the error type in the low one; Linux's siw (6.12) sends them the other way
round (its C bitfields are laid out for a little-endian CPU): either is
taken, and the one seen is named.

KTAP on stdout, one result per check: the Reply's key, M=0, R=0, C=1 (the
Responder must honour the Request's C), revision 2 with H and IRD/ORD,
then what came back after the Send: its CRC32c right, and either
the Read Request (QN 1, MSN 1, MO 0; source STag, TO and size those the
Send advertised) or, with --corrupt, the Terminate.  Exit status 0 when
all passed.
"""
import argparse
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from iwarp_peer import Ktap, iw, recv_fpdu, recv_mpa_frame  # noqa: E402

# What the Send advertises: rping_rdma_info's buf, rkey and size.
ADV_ADDR, ADV_STAG, ADV_SIZE = 0x10000, 0x1234, 64

# The first two control bytes of a Terminate for an MPA CRC error, in hex:
# layer 2 and error type 0 as RFC 5040 orders them, and as Linux's siw
# does; error code 2.
TERM_CRC_ERROR = {'2002': 'RFC 5040 nibble order',
                  '0202': 'layer and type swapped, as siw sends them'}


def probe(args, t):
    sock = socket.create_connection((args.host, args.port), timeout=args.timeout)
    pdata = struct.pack('>HH', 1, 1)
    sock.sendall(iw.mpa_frame(iw.MPA_KEY_REQ, iw.MPA_FLAG_C | iw.MPA_FLAG_H, pdata))
    reply, raw = recv_mpa_frame(sock, iw.MPA_KEY_REP)
    if not t.check(reply, 'MPA Reply key "%s"' % iw.MPA_KEY_REP.decode(), raw[:20].hex()):
        return
    t.check(not reply['m'] and not reply['r'], 'MPA Reply: no markers, not rejected',
            reply['hex'])
    t.check(reply['c'], 'MPA Reply has C: the Responder honours the Request\'s CRC',
            reply['hex'])
    t.check(reply['rev'] == 2 and reply['h'] and 'ird' in reply,
            'MPA Reply: revision 2, enhanced, IRD %s ORD %s'
            % (reply.get('ird'), reply.get('ord')), reply['hex'])
    if not reply['c']:
        return
    info = struct.pack('>QII', ADV_ADDR, ADV_STAG, ADV_SIZE)
    send = bytearray(iw.fpdu(iw.untagged(3, 0, 1, 0, info)))
    if args.corrupt:
        send[-1] ^= 0x01
    sock.sendall(bytes(send))
    ulpdu, crc_ok = recv_fpdu(sock)
    t.check(crc_ok, 'the CRC32c of the FPDU that came back is right', ulpdu[:18].hex())
    opcode = ulpdu[1] & 0x0F if len(ulpdu) > 1 else None
    if args.corrupt:
        ctrl = ulpdu[18:20].hex() if len(ulpdu) >= 22 else ''
        order = TERM_CRC_ERROR.get(ctrl)
        t.check(opcode == 7 and order,
                'a Send with a bad CRC gets a Terminate: layer LLP, type MPA, code CRC '
                'error (%s)' % order, 'opcode %s, control bytes %s' % (opcode, ctrl))
        return
    if not t.check(opcode == 1 and len(ulpdu) == 18 + iw.READ_REQ_LEN,
                   'the Send gets an RDMA Read Request', ulpdu.hex()):
        return
    qn, msn, mo = struct.unpack('>III', ulpdu[6:18])
    size, src_stag, src_to = struct.unpack('>IIQ', ulpdu[30:46])
    t.check((qn, msn, mo) == (1, 1, 0), 'Read Request on QN 1, MSN 1, MO 0',
            'QN %d MSN %d MO %d' % (qn, msn, mo))
    t.check((src_stag, src_to, size) == (ADV_STAG, ADV_ADDR, ADV_SIZE),
            'Read Request for the advertised buffer (STag %#x, TO %#x, %d bytes)'
            % (ADV_STAG, ADV_ADDR, ADV_SIZE),
            'STag %#x TO %#x size %d' % (src_stag, src_to, size))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('host')
    ap.add_argument('port', type=int)
    ap.add_argument('--corrupt', action='store_true',
                    help='flip a bit of the Send\'s CRC field')
    ap.add_argument('--timeout', type=float, default=30)
    args = ap.parse_args()
    t = Ktap()
    try:
        probe(args, t)
    except (OSError, EOFError) as e:
        t.check(False, 'the exchange completes', str(e))
    return t.finish()


if __name__ == '__main__':
    sys.exit(main())
