// SPDX-License-Identifier: GPL-2.0
/*
 * Receive-side checks that need nothing but the packet's bytes and a few
 * numbers of the QP: header lengths, pad, opcode against QP type, QPN,
 * P_Key and Q_Key rules.  Pure code, shared with the user-space unit tests
 * and fuzzers; the receive path (rxe_recv.c) calls it before it looks
 * anything up.
 */
#include "rxe_hdr.h"

/**
 * rxe_hdr_parse() - check a packet's transport headers and describe them
 * @buf: the packet from the first byte of the BTH
 * @len: bytes from the BTH to the end of the ICRC
 * @pkt: filled in on success
 *
 * Checks that the opcode is one this provider knows, that the transport
 * version is 0, that the headers the opcode implies fit, that the pad
 * count fits the bytes that follow the headers and makes the payload a
 * multiple of 4, that opcodes without payload have none, and that the
 * payload is at most RXE_MAX_PAYLOAD.  The ICRC is not checked here.
 *
 * Return: RXE_DROP_NONE, or why the packet must be dropped.
 */
enum rxe_drop rxe_hdr_parse(const u8 *buf, u32 len, struct rxe_pkt *pkt)
{
	u32 rest;

	if (len < RXE_BTH_BYTES + RXE_ICRC_BYTES)
		return RXE_DROP_LENGTH;
	pkt->hdr = buf;
	pkt->len = len;
	pkt->opcode = rxe_bth_opcode(buf);
	pkt->mask = rxe_opcode_mask(pkt->opcode);
	if (!pkt->mask)
		return RXE_DROP_OPCODE;
	if (rxe_bth_tver(buf))
		return RXE_DROP_VERSION;
	pkt->hdr_len = rxe_opcode_hdr_len(pkt->mask);
	if (len < pkt->hdr_len + RXE_ICRC_BYTES)
		return RXE_DROP_LENGTH;
	rest = len - pkt->hdr_len - RXE_ICRC_BYTES;
	pkt->pad = rxe_bth_pad(buf);
	if (pkt->pad > rest)
		return RXE_DROP_LENGTH;
	pkt->paylen = rest - pkt->pad;
	if (rest & 3)
		return RXE_DROP_LENGTH;
	if (!(pkt->mask & RXE_MASK_PAYLOAD) && rest)
		return RXE_DROP_LENGTH;
	if (pkt->paylen > RXE_MAX_PAYLOAD)
		return RXE_DROP_LENGTH;
	pkt->qpn = rxe_bth_qpn(buf);
	pkt->psn = rxe_bth_psn(buf);
	return RXE_DROP_NONE;
}

/**
 * rxe_check_transport() - may a QP of this type receive this packet?
 * @pkt: a packet rxe_hdr_parse() accepted
 * @qp_mask: RXE_MASK_RC, RXE_MASK_UC or RXE_MASK_UD: the QP's transport
 * @qpn: the QP's number
 *
 * QP 0 (the subnet manager's) does not exist on RoCE; QP 1 and the
 * multicast QPN take UD packets only.
 *
 * Return: RXE_DROP_NONE, RXE_DROP_QPN or RXE_DROP_OPCODE.
 */
enum rxe_drop rxe_check_transport(const struct rxe_pkt *pkt, u32 qp_mask,
				  u32 qpn)
{
	if (qpn == 0 || qpn > RXE_QPN_MASK)
		return RXE_DROP_QPN;
	if ((qpn == 1 || qpn == RXE_MCAST_QPN) && qp_mask != RXE_MASK_UD)
		return RXE_DROP_QPN;
	if (!(pkt->mask & qp_mask))
		return RXE_DROP_OPCODE;
	return RXE_DROP_NONE;
}

/**
 * rxe_check_seg_len() - does a segment's payload fit its place in a message?
 * @pkt: a packet rxe_hdr_parse() accepted
 * @mtu: the QP's path MTU in bytes
 *
 * First and middle segments carry exactly @mtu bytes; last and only
 * segments at most @mtu.
 *
 * Return: RXE_DROP_NONE or RXE_DROP_LENGTH.
 */
enum rxe_drop rxe_check_seg_len(const struct rxe_pkt *pkt, u32 mtu)
{
	if (!(pkt->mask & RXE_MASK_PAYLOAD))
		return RXE_DROP_NONE;
	if (pkt->paylen > mtu)
		return RXE_DROP_LENGTH;
	if (!(pkt->mask & RXE_MASK_LAST) && pkt->paylen != mtu)
		return RXE_DROP_LENGTH;
	return RXE_DROP_NONE;
}

/**
 * rxe_qkey_ok() - may a UD datagram with this Q_Key enter this QP?
 * @qpn: the receiving QP's number
 * @qp_qkey: the receiving QP's Q_Key
 * @pkt_qkey: the DETH's Q_Key
 *
 * The keys must be equal; QP 1 only takes the well-known GSI Q_Key.  A
 * sender never puts a controlled Q_Key on the wire without owning it
 * (rxe_req.c substitutes its QP's key), so no special case is needed here.
 *
 * Return: true if the datagram may be delivered.
 */
bool rxe_qkey_ok(u32 qpn, u32 qp_qkey, u32 pkt_qkey)
{
	if (qpn == 1)
		return pkt_qkey == RXE_GSI_QKEY;
	return pkt_qkey == qp_qkey;
}

/**
 * rxe_pkey_ok() - do two partition keys share a partition?
 * @pkt_pkey: the BTH's P_Key
 * @own_pkey: the QP's P_Key
 *
 * The low 15 bits must agree and at least one side must be a full member.
 *
 * Return: true on a match.
 */
bool rxe_pkey_ok(u16 pkt_pkey, u16 own_pkey)
{
	if ((pkt_pkey & 0x7fff) != (own_pkey & 0x7fff) || !(pkt_pkey & 0x7fff))
		return false;
	return (pkt_pkey | own_pkey) & RXE_PKEY_MEMBER;
}

/* Is the destination of the IP header @l3 (see rxe_rcv_check()) multicast? */
static bool rxe_l3_dst_multicast(const u8 *l3, bool ipv6)
{
	const u8 *dst = l3 + (ipv6 ? 24 : 16);
	unsigned int i;

	if (!ipv6)
		return (dst[0] & 0xf0) == 0xe0;	/* 224.0.0.0/4 */
	if (dst[0] == 0xff)			/* ff00::/8 */
		return true;
	/* An IPv4-mapped address (::ffff:a.b.c.d) follows the IPv4 rule. */
	for (i = 0; i < 10; i++)
		if (dst[i])
			return false;
	return dst[10] == 0xff && dst[11] == 0xff && (dst[12] & 0xf0) == 0xe0;
}

/**
 * rxe_rcv_check() - every check of a received packet that needs only its bytes
 * @l3: the IP header: 20 bytes of IPv4 or 40 bytes of IPv6
 * @ipv6: which of the two @l3 is
 * @udp: the UDP header, followed by the rest of the packet
 * @len: bytes from @udp to the end of the ICRC
 * @pkt: filled in as rxe_hdr_parse() fills it
 *
 * The receive path up to the point where a QP is looked up, in its order:
 * IPv4 options are refused (the ICRC and the header area of a UD receive
 * buffer take a bare 20-byte header), then the transport headers and
 * lengths (rxe_hdr_parse()), the ICRC, the P_Key against the default
 * partition, and for a multicast destination the rule that only UD
 * datagrams to the multicast QPN go there.  What is left to the caller
 * needs the device: the destination GID, the QP and the QP's own checks.
 *
 * Return: RXE_DROP_NONE, or why the packet must be dropped.
 */
enum rxe_drop rxe_rcv_check(const u8 *l3, bool ipv6, const u8 *udp, u32 len,
			    struct rxe_pkt *pkt)
{
	enum rxe_drop why;

	if (!ipv6 && (l3[0] & 0x0f) != RXE_IPV4_BYTES / 4)
		return RXE_DROP_MALFORMED;
	if (len < RXE_UDP_BYTES)
		return RXE_DROP_MALFORMED;
	why = rxe_hdr_parse(udp + RXE_UDP_BYTES, len - RXE_UDP_BYTES, pkt);
	if (why)
		return why;
	if (!rxe_icrc_ok(l3, ipv6, udp, len))
		return RXE_DROP_ICRC;
	if (!rxe_pkey_ok(rxe_bth_pkey(pkt->hdr), RXE_DEFAULT_PKEY))
		return RXE_DROP_PKEY;
	if (rxe_l3_dst_multicast(l3, ipv6) &&
	    (pkt->qpn != RXE_MCAST_QPN || !(pkt->mask & RXE_MASK_UD)))
		return RXE_DROP_QPN;
	return RXE_DROP_NONE;
}
