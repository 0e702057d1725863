// SPDX-License-Identifier: GPL-2.0
/*
 * The invariant CRC of a RoCE v2 packet (IBTA RoCE v2 annex A17.4.1): a
 * CRC-32 (Ethernet polynomial, bit-reflected, inverted) over
 *
 *   8 bytes of 0xff    standing in for the IB Local Routing Header
 *   the IP header      IPv4: TOS, TTL and header checksum as all ones;
 *                      IPv6: traffic class, flow label, hop limit as ones
 *   the UDP header     checksum as all ones
 *   the BTH            byte 4 (FECN, BECN, reserved) as all ones
 *   the rest           extension headers, payload and pad
 *
 * stored after the pad in little-endian byte order.  Pure code over byte
 * buffers, shared with the user-space unit tests.
 */
#include <linux/crc32.h>

#include "rxe_hdr.h"

/* The IP, UDP and BTH headers, masked, of the largest (IPv6) packet. */
#define RXE_PSEUDO_BYTES (RXE_IPV6_BYTES + RXE_UDP_BYTES + RXE_BTH_BYTES)

/**
 * rxe_icrc_compute() - the ICRC a packet must carry
 * @l3: the IPv4 header (20 bytes, no options) or the IPv6 header (40 bytes)
 * @ipv6: which of the two @l3 is
 * @udp: the UDP header, followed by the BTH and the rest of the packet
 * @len: bytes from @udp up to the ICRC (ICRC not included); at least
 *	RXE_UDP_BYTES + RXE_BTH_BYTES
 *
 * Return: the ICRC value, to be stored with rxe_icrc_put().
 */
u32 rxe_icrc_compute(const u8 *l3, bool ipv6, const u8 *udp, u32 len)
{
	static const u8 lrh[8] = { 0xff, 0xff, 0xff, 0xff,
				   0xff, 0xff, 0xff, 0xff };
	u8 ps[RXE_PSEUDO_BYTES];
	unsigned int n = ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES, i;
	u8 *u, *bth;
	u32 crc;

	for (i = 0; i < n; i++)
		ps[i] = l3[i];
	if (ipv6) {
		/* version (4 bits) stays; traffic class and flow label go */
		ps[0] |= 0x0f;
		ps[1] = 0xff;
		ps[2] = 0xff;
		ps[3] = 0xff;
		ps[7] = 0xff;		/* hop limit */
	} else {
		ps[1] = 0xff;		/* TOS */
		ps[8] = 0xff;		/* TTL */
		ps[10] = 0xff;		/* header checksum */
		ps[11] = 0xff;
	}
	u = ps + n;
	for (i = 0; i < RXE_UDP_BYTES + RXE_BTH_BYTES; i++)
		u[i] = udp[i];
	u[6] = 0xff;			/* UDP checksum */
	u[7] = 0xff;
	bth = u + RXE_UDP_BYTES;
	bth[4] = 0xff;

	crc = crc32_le(0xffffffff, lrh, sizeof(lrh));
	crc = crc32_le(crc, ps, n + RXE_UDP_BYTES + RXE_BTH_BYTES);
	crc = crc32_le(crc, udp + RXE_UDP_BYTES + RXE_BTH_BYTES,
		       len - RXE_UDP_BYTES - RXE_BTH_BYTES);
	return ~crc;
}

/**
 * rxe_icrc_put() - store an ICRC in wire order
 * @p: the 4 bytes after the pad
 * @icrc: from rxe_icrc_compute()
 */
void rxe_icrc_put(u8 *p, u32 icrc)
{
	p[0] = icrc;
	p[1] = icrc >> 8;
	p[2] = icrc >> 16;
	p[3] = icrc >> 24;
}

/**
 * rxe_icrc_ok() - does a received packet carry the right ICRC?
 * @l3: the IP header, as for rxe_icrc_compute()
 * @ipv6: which IP version @l3 is
 * @udp: the UDP header, followed by the rest of the packet
 * @len: bytes from @udp to the end of the ICRC (included)
 *
 * Return: true if the ICRC matches.
 */
bool rxe_icrc_ok(const u8 *l3, bool ipv6, const u8 *udp, u32 len)
{
	const u8 *p;
	u32 got;

	if (len < RXE_UDP_BYTES + RXE_BTH_BYTES + RXE_ICRC_BYTES)
		return false;
	p = udp + len - RXE_ICRC_BYTES;
	got = (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
	return got == rxe_icrc_compute(l3, ipv6, udp, len - RXE_ICRC_BYTES);
}
