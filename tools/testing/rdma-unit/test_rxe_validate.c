// SPDX-License-Identifier: GPL-2.0
/*
 * rxe receive-side checks (drivers/infiniband/sw/rxe/rxe_validate.c):
 * header and payload lengths, pad, transport version, opcode against the
 * QP's transport, QPN, segment lengths, P_Key and Q_Key.
 */
#include <linux/kernel.h>
#include "../../../drivers/infiniband/sw/rxe/rxe_hdr.h"
#include "rxe_vectors.h"
#include "unit.h"

/* A packet from the BTH on, in a heap block of exactly its length. */
static u8 *pkt_buf(u8 opcode, u8 pad, u32 paylen, u32 *len)
{
	unsigned int hdr = rxe_opcode_hdr_len(rxe_opcode_mask(opcode));
	u8 *b;

	if (!hdr)
		hdr = RXE_BTH_BYTES;
	*len = hdr + paylen + pad + RXE_ICRC_BYTES;
	b = calloc(1, *len);
	rxe_bth_build(b, opcode, false, pad, 0xffff, 0x11, false, 1);
	return b;
}

UNIT_TEST(rxe_validate, stock_packet_parses)
{
	const u8 *bth = stock_ud_a + 28;
	struct rxe_pkt pkt;

	ASSERT_EQ(rxe_hdr_parse(bth, sizeof(stock_ud_a) - 28, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(pkt.opcode, 0x64);
	EXPECT_EQ(pkt.hdr_len, 20);
	EXPECT_EQ(pkt.paylen, 64);
	EXPECT_EQ(pkt.pad, 0);
	EXPECT_EQ(pkt.qpn, 0x11);
	EXPECT_EQ(pkt.psn, 0xcf42fa);
	EXPECT_TRUE(pkt.hdr == bth);
	EXPECT_EQ(pkt.len, sizeof(stock_ud_a) - 28);
	EXPECT_TRUE(rxe_pkt_payload(&pkt) == bth + 20);
	EXPECT_EQ(rxe_deth_qkey(rxe_pkt_ext(&pkt, RXE_MASK_DETH)), 0x11111111);
}

UNIT_TEST(rxe_validate, payload_and_pad_accounting)
{
	static const struct { u8 op; u8 pad; u32 paylen; } ok[] = {
		{ 0x04, 0, 0 }, { 0x04, 0, 4 }, { 0x04, 3, 1 }, { 0x04, 1, 3 },
		{ 0x04, 2, 1022 }, { 0x0a, 0, 4096 }, { 0x64, 3, 4093 },
		{ 0x65, 0, 256 }, { 0x11, 0, 0 }, { 0x0c, 0, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		struct rxe_pkt pkt;
		u32 len;
		u8 *b = pkt_buf(ok[i].op, ok[i].pad, ok[i].paylen, &len);

		if (EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE)) {
			EXPECT_EQ(pkt.paylen, ok[i].paylen);
			EXPECT_EQ(pkt.pad, ok[i].pad);
			EXPECT_EQ(pkt.hdr_len + pkt.paylen + pkt.pad + RXE_ICRC_BYTES, len);
		}
		free(b);
	}
}

UNIT_TEST(rxe_validate, bad_lengths_are_dropped)
{
	struct rxe_pkt pkt;
	u32 len;
	u8 *b;

	/* Payload plus pad not a multiple of four. */
	b = pkt_buf(0x04, 1, 2, &len);
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_LENGTH);
	free(b);
	/* More pad than bytes. */
	b = pkt_buf(0x04, 0, 0, &len);
	b[1] |= 3 << 4;
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_LENGTH);
	free(b);
	/* Payload on an opcode that carries none. */
	b = pkt_buf(0x11, 0, 4, &len);
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_LENGTH);
	free(b);
	b = pkt_buf(0x0c, 0, 8, &len);
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_LENGTH);
	free(b);
	/* Larger than the largest MTU. */
	b = pkt_buf(0x04, 0, 4100, &len);
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_LENGTH);
	free(b);
}

UNIT_TEST(rxe_validate, truncated_headers_are_dropped)
{
	struct rxe_pkt pkt;
	u32 len, cut;
	u8 *b = pkt_buf(0x13, 0, 0, &len);	/* COMPARE_SWAP: 40 header bytes */

	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	for (cut = 0; cut < len; cut++)
		if (!EXPECT_EQ(rxe_hdr_parse(b, cut, &pkt), RXE_DROP_LENGTH))
			break;
	free(b);
}

UNIT_TEST(rxe_validate, opcode_and_version)
{
	struct rxe_pkt pkt;
	u32 len;
	u8 *b = pkt_buf(0x04, 0, 0, &len);

	b[0] = 0x44;			/* RD SEND_ONLY: no RD here */
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_OPCODE);
	b[0] = 0x15;			/* reserved */
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_OPCODE);
	b[0] = 0x04;
	b[1] |= 1;			/* transport version 1 */
	EXPECT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_VERSION);
	free(b);
}

UNIT_TEST(rxe_validate, transport_and_qpn)
{
	struct rxe_pkt pkt;
	u32 len;
	u8 *b = pkt_buf(0x64, 0, 0, &len);	/* UD SEND_ONLY */

	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UD, 0x11), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UD, 1), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_RC, 0x11), RXE_DROP_OPCODE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UC, 0x11), RXE_DROP_OPCODE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UD, 0), RXE_DROP_QPN);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UD, 0x1000000), RXE_DROP_QPN);
	free(b);

	b = pkt_buf(0x04, 0, 0, &len);		/* RC SEND_ONLY */
	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_RC, 0x11), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_UD, 0x11), RXE_DROP_OPCODE);
	/* QP1 and the multicast QPN are UD only. */
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_RC, 1), RXE_DROP_QPN);
	EXPECT_EQ(rxe_check_transport(&pkt, RXE_MASK_RC, RXE_MCAST_QPN), RXE_DROP_QPN);
	free(b);
}

UNIT_TEST(rxe_validate, segment_lengths)
{
	struct rxe_pkt pkt;
	u32 len;
	u8 *b;

	b = pkt_buf(0x00, 0, 1024, &len);	/* SEND_FIRST: exactly the MTU */
	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 1024), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 2048), RXE_DROP_LENGTH);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 512), RXE_DROP_LENGTH);
	free(b);
	b = pkt_buf(0x01, 0, 1020, &len);	/* SEND_MIDDLE short of the MTU */
	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 1024), RXE_DROP_LENGTH);
	free(b);
	b = pkt_buf(0x02, 0, 100, &len);	/* SEND_LAST: up to the MTU */
	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 1024), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 64), RXE_DROP_LENGTH);
	free(b);
	b = pkt_buf(0x11, 0, 0, &len);		/* ACK: no payload to check */
	ASSERT_EQ(rxe_hdr_parse(b, len, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(rxe_check_seg_len(&pkt, 256), RXE_DROP_NONE);
	free(b);
}

UNIT_TEST(rxe_validate, qkey_rules)
{
	EXPECT_TRUE(rxe_qkey_ok(0x11, 0x11111111, 0x11111111));
	EXPECT_FALSE(rxe_qkey_ok(0x11, 0x11111111, 0x11111112));
	EXPECT_TRUE(rxe_qkey_ok(1, 0, RXE_GSI_QKEY));
	EXPECT_FALSE(rxe_qkey_ok(1, 0x1234, 0x1234));
	EXPECT_EQ(RXE_GSI_QKEY, 0x80010000);
}

UNIT_TEST(rxe_validate, pkey_rules)
{
	EXPECT_TRUE(rxe_pkey_ok(0xffff, 0xffff));
	EXPECT_TRUE(rxe_pkey_ok(0x7fff, 0xffff));	/* limited meets full */
	EXPECT_TRUE(rxe_pkey_ok(0xffff, 0x7fff));
	EXPECT_FALSE(rxe_pkey_ok(0x7fff, 0x7fff));	/* two limited members */
	EXPECT_FALSE(rxe_pkey_ok(0x8001, 0xffff));	/* other partition */
	EXPECT_FALSE(rxe_pkey_ok(0x8000, 0x8000));	/* invalid P_Key */
	EXPECT_FALSE(rxe_pkey_ok(0x0000, 0xffff));
}

/*
 * rxe_rcv_check(): the whole receive path before the QP lookup, on whole
 * packets from the IP header on.  @pkt is an exactly sized private copy;
 * the ICRC is recomputed after an edit so that the later checks are
 * reached.
 */
static enum rxe_drop rcv(u8 *p, u32 len, bool ipv6, struct rxe_pkt *pkt)
{
	unsigned int l3 = ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES;

	return rxe_rcv_check(p, ipv6, p + l3, len - l3, pkt);
}

static void reseal(u8 *p, u32 len, bool ipv6)
{
	unsigned int l3 = ipv6 ? RXE_IPV6_BYTES : RXE_IPV4_BYTES;
	u32 body = len - l3 - RXE_ICRC_BYTES;

	rxe_icrc_put(p + l3 + body, rxe_icrc_compute(p, ipv6, p + l3, body));
}

static u8 *dup_pkt(const u8 *src, u32 len)
{
	u8 *p = malloc(len);

	memcpy(p, src, len);
	return p;
}

UNIT_TEST(rxe_rcv_check, reference_packets_pass)
{
	struct rxe_pkt pkt;
	u8 *p;

	p = dup_pkt(stock_ud_a, sizeof(stock_ud_a));
	EXPECT_EQ(rcv(p, sizeof(stock_ud_a), false, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(pkt.qpn, 0x11);
	EXPECT_EQ(pkt.paylen, 64);
	free(p);
	p = dup_pkt(ipv6_ud, sizeof(ipv6_ud));
	EXPECT_EQ(rcv(p, sizeof(ipv6_ud), true, &pkt), RXE_DROP_NONE);
	EXPECT_EQ(pkt.paylen, 16);
	free(p);
}

UNIT_TEST(rxe_rcv_check, each_drop_reason)
{
	u32 len = sizeof(stock_ud_a);
	struct rxe_pkt pkt;
	u8 *p;

	p = dup_pkt(stock_ud_a, len);
	p[0] = 0x46;				/* IPv4 options */
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_MALFORMED);
	free(p);
	p = dup_pkt(stock_ud_a, len);
	EXPECT_EQ(rxe_rcv_check(p, false, p + 20, 7, &pkt), RXE_DROP_MALFORMED);
	EXPECT_EQ(rxe_rcv_check(p, false, p + 20, 8, &pkt), RXE_DROP_LENGTH);
	p[20 + 8 + 1] |= 1;			/* transport version */
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_VERSION);
	free(p);
	p = dup_pkt(stock_ud_a, len);
	p[len - 10] ^= 0x01;			/* payload bit */
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_ICRC);
	free(p);
	p = dup_pkt(stock_ud_a, len);
	p[20 + 8 + 2] = 0x80;			/* P_Key 0x80ff */
	reseal(p, len, false);
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_PKEY);
	free(p);
}

UNIT_TEST(rxe_rcv_check, multicast_takes_ud_to_the_multicast_qpn)
{
	u32 len = sizeof(stock_ud_a);
	struct rxe_pkt pkt;
	u8 *p = dup_pkt(stock_ud_a, len);

	p[16] = 239;				/* 239.0.0.1 */
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_ICRC);
	reseal(p, len, false);
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_QPN);
	rxe_put24(p + 20 + 8 + 5, RXE_MCAST_QPN);
	reseal(p, len, false);
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_NONE);
	/* 240.0.0.0/4 is not multicast: any QPN goes to the QP lookup. */
	p[16] = 240;
	rxe_put24(p + 20 + 8 + 5, 0x11);
	reseal(p, len, false);
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_NONE);
	/* An RC SEND_ONLY to the multicast QPN of a group: still refused. */
	p[16] = 224;
	p[20 + 8] = 0x04;
	rxe_put24(p + 20 + 8 + 5, RXE_MCAST_QPN);
	reseal(p, len, false);
	EXPECT_EQ(rcv(p, len, false, &pkt), RXE_DROP_QPN);
	EXPECT_EQ(pkt.paylen, 72);
	free(p);
}

UNIT_TEST(rxe_rcv_check, ipv6_multicast_and_v4_mapped)
{
	u32 len = sizeof(ipv6_ud);
	struct rxe_pkt pkt;
	u8 *p = dup_pkt(ipv6_ud, len);

	p[24] = 0xff;				/* ff80::... */
	reseal(p, len, true);
	EXPECT_EQ(rcv(p, len, true, &pkt), RXE_DROP_QPN);
	/* ::ffff:224.0.0.1 as an IPv6 destination is multicast too. */
	memset(p + 24, 0, 16);
	p[34] = 0xff;
	p[35] = 0xff;
	p[36] = 224;
	p[39] = 1;
	reseal(p, len, true);
	EXPECT_EQ(rcv(p, len, true, &pkt), RXE_DROP_QPN);
	p[36] = 10;				/* ::ffff:10.0.0.1: unicast */
	reseal(p, len, true);
	EXPECT_EQ(rcv(p, len, true, &pkt), RXE_DROP_NONE);
	free(p);
}
