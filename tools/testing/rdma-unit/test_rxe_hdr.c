// SPDX-License-Identifier: GPL-2.0
/*
 * rxe wire formats (drivers/infiniband/sw/rxe/rxe_hdr.h) and the opcode
 * table (rxe_opcode.c): header layouts byte by byte after IBTA vol. 1
 * chapter 9, opcodes after its table 38, PSN arithmetic and the timer
 * codes of table 45.
 */
#include <linux/kernel.h>
#include <net/checksum.h>
#include <rdma/ib_net_hdr.h>
#include "../../../drivers/infiniband/sw/rxe/rxe_hdr.h"
#include "rxe_vectors.h"
#include "unit.h"

UNIT_TEST(rxe_hdr, sizes)
{
	EXPECT_EQ(RXE_BTH_BYTES, 12);
	EXPECT_EQ(RXE_DETH_BYTES, 8);
	EXPECT_EQ(RXE_RETH_BYTES, 16);
	EXPECT_EQ(RXE_AETH_BYTES, 4);
	EXPECT_EQ(RXE_ATMETH_BYTES, 28);
	EXPECT_EQ(RXE_ATMACK_BYTES, 8);
	EXPECT_EQ(RXE_IMMDT_BYTES, 4);
	EXPECT_EQ(RXE_IETH_BYTES, 4);
	EXPECT_EQ(RXE_ICRC_BYTES, 4);
	EXPECT_EQ(RXE_ROCE_V2_PORT, 4791);
}

UNIT_TEST(rxe_hdr, bth_of_a_stock_packet)
{
	const u8 *bth = stock_ud_a + 28;

	EXPECT_EQ(rxe_bth_opcode(bth), 0x64);
	EXPECT_FALSE(rxe_bth_se(bth));
	EXPECT_EQ(rxe_bth_pad(bth), 0);
	EXPECT_EQ(rxe_bth_tver(bth), 0);
	EXPECT_EQ(rxe_bth_pkey(bth), 0xffff);
	EXPECT_EQ(rxe_bth_qpn(bth), 0x11);
	EXPECT_FALSE(rxe_bth_ackreq(bth));
	EXPECT_EQ(rxe_bth_psn(bth), 0xcf42fa);
	EXPECT_EQ(rxe_deth_qkey(bth + 12), 0x11111111);
	EXPECT_EQ(rxe_deth_sqp(bth + 12), 0x12);
}

UNIT_TEST(rxe_hdr, bth_build_layout)
{
	static const u8 want[12] = { 0x0a, 0xb0, 0x80, 0x01, 0x00, 0xab, 0xcd, 0xef,
				     0x80, 0x12, 0x34, 0x56 };
	u8 bth[12];

	memset(bth, 0x5a, sizeof(bth));
	rxe_bth_build(bth, 0x0a, true, 3, 0x8001, 0xabcdef, true, 0x123456);
	EXPECT_MEMEQ(bth, want, 12);
	EXPECT_TRUE(rxe_bth_se(bth));
	EXPECT_EQ(rxe_bth_pad(bth), 3);
	EXPECT_TRUE(rxe_bth_ackreq(bth));
}

UNIT_TEST(rxe_hdr, bth_build_masks_wide_values)
{
	u8 bth[12];

	/* QPN and PSN are 24 bits, the pad 2: higher bits never leak. */
	rxe_bth_build(bth, 0x04, false, 7, 0xffff, 0xff000011, false, 0xff000005);
	EXPECT_EQ(rxe_bth_qpn(bth), 0x11);
	EXPECT_EQ(rxe_bth_psn(bth), 0x5);
	EXPECT_EQ(rxe_bth_pad(bth), 3);
	EXPECT_EQ(rxe_bth_tver(bth), 0);
	EXPECT_EQ(bth[4], 0);
	EXPECT_EQ(bth[8], 0);
}

UNIT_TEST(rxe_hdr, deth_reth_aeth_layout)
{
	static const u8 deth_want[8] = { 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01 };
	static const u8 reth_want[16] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
					  0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x00, 0x00 };
	static const u8 aeth_want[4] = { 0x60 | 1, 0x00, 0x10, 0x01 };
	u8 h[16];

	rxe_deth_build(h, 0x80010000, 1);
	EXPECT_MEMEQ(h, deth_want, 8);
	EXPECT_EQ(rxe_deth_qkey(h), 0x80010000);
	EXPECT_EQ(rxe_deth_sqp(h), 1);

	rxe_reth_build(h, 0x0123456789abcdefULL, 0xdeadbeef, 0x10000);
	EXPECT_MEMEQ(h, reth_want, 16);
	EXPECT_EQ(rxe_reth_va(h), 0x0123456789abcdefULL);
	EXPECT_EQ(rxe_reth_rkey(h), 0xdeadbeef);
	EXPECT_EQ(rxe_reth_len(h), 0x10000);

	rxe_aeth_build(h, RXE_AETH_NAK | RXE_NAK_INVALID_REQ, 0x1001);
	EXPECT_MEMEQ(h, aeth_want, 4);
	EXPECT_EQ(rxe_aeth_syn(h) & RXE_AETH_TYPE_MASK, RXE_AETH_NAK);
	EXPECT_EQ(rxe_aeth_msn(h), 0x1001);
}

UNIT_TEST(rxe_hdr, atomic_layout)
{
	u8 h[28];

	rxe_atmeth_build(h, 0x1000, 0x42, 0xfffffffffffffffeULL, 0x8000000000000001ULL);
	EXPECT_EQ(rxe_get64(h), 0x1000);
	EXPECT_EQ(rxe_get32(h + 8), 0x42);
	EXPECT_EQ(rxe_get64(h + 12), 0xfffffffffffffffeULL);
	EXPECT_EQ(rxe_get64(h + 20), 0x8000000000000001ULL);
	EXPECT_EQ(rxe_atmeth_va(h), 0x1000);
	EXPECT_EQ(rxe_atmeth_rkey(h), 0x42);
	EXPECT_EQ(rxe_atmeth_swap_add(h), 0xfffffffffffffffeULL);
	EXPECT_EQ(rxe_atmeth_comp(h), 0x8000000000000001ULL);
	rxe_put64(h, 0x0102030405060708ULL);
	EXPECT_EQ(h[0], 1);
	EXPECT_EQ(h[7], 8);
	EXPECT_EQ(rxe_atmack_orig(h), 0x0102030405060708ULL);
}

/* Opcodes IBTA defines for RC, UC and UD, with their header bytes. */
static const struct {
	u8 opcode;
	unsigned int hdr_len;
} known_ops[] = {
	/* RC */
	{ 0x00, 12 }, { 0x01, 12 }, { 0x02, 12 }, { 0x03, 16 }, { 0x04, 12 },
	{ 0x05, 16 }, { 0x06, 28 }, { 0x07, 12 }, { 0x08, 12 }, { 0x09, 16 },
	{ 0x0a, 28 }, { 0x0b, 32 }, { 0x0c, 28 }, { 0x0d, 16 }, { 0x0e, 12 },
	{ 0x0f, 16 }, { 0x10, 16 }, { 0x11, 16 }, { 0x12, 24 }, { 0x13, 40 },
	{ 0x14, 40 }, { 0x16, 16 }, { 0x17, 16 }, { 0x1d, 28 },
	/* UC: sends and writes only */
	{ 0x20, 12 }, { 0x21, 12 }, { 0x22, 12 }, { 0x23, 16 }, { 0x24, 12 },
	{ 0x25, 16 }, { 0x26, 28 }, { 0x27, 12 }, { 0x28, 12 }, { 0x29, 16 },
	{ 0x2a, 28 }, { 0x2b, 32 },
	/* UD: SEND_ONLY with and without immediate, DETH included */
	{ 0x64, 20 }, { 0x65, 24 },
};

UNIT_TEST(rxe_opcode, known_opcodes_and_header_lengths)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(known_ops); i++) {
		u32 mask = rxe_opcode_mask(known_ops[i].opcode);

		if (!EXPECT_NE(mask, 0))
			continue;
		EXPECT_EQ(rxe_opcode_hdr_len(mask), known_ops[i].hdr_len);
		EXPECT_EQ(hweight32(mask & (RXE_MASK_RC | RXE_MASK_UC | RXE_MASK_UD)), 1);
	}
}

UNIT_TEST(rxe_opcode, everything_else_is_unknown)
{
	unsigned int op, i;

	for (op = 0; op < 256; op++) {
		bool known = false;

		for (i = 0; i < ARRAY_SIZE(known_ops); i++)
			known |= known_ops[i].opcode == op;
		if (known)
			continue;
		if (!EXPECT_EQ(rxe_opcode_mask(op), 0))
			printf("    # opcode 0x%02x\n", op);
		EXPECT_STREQ(rxe_opcode_name(op), "UNKNOWN");
	}
}

UNIT_TEST(rxe_opcode, transport_bits)
{
	EXPECT_TRUE(rxe_opcode_mask(0x04) & RXE_MASK_RC);
	EXPECT_TRUE(rxe_opcode_mask(0x24) & RXE_MASK_UC);
	EXPECT_TRUE(rxe_opcode_mask(0x64) & RXE_MASK_UD);
	EXPECT_TRUE(rxe_opcode_mask(0x64) & RXE_MASK_DETH);
	EXPECT_FALSE(rxe_opcode_mask(0x04) & RXE_MASK_DETH);
	EXPECT_FALSE(rxe_opcode_mask(0x24) & RXE_MASK_DETH);
}

UNIT_TEST(rxe_opcode, meaning_bits)
{
	u32 m;

	m = rxe_opcode_mask(0x00);	/* RC SEND_FIRST */
	EXPECT_EQ(m & (RXE_MASK_REQ | RXE_MASK_SEND | RXE_MASK_FIRST | RXE_MASK_RWR |
		       RXE_MASK_PAYLOAD),
		  RXE_MASK_REQ | RXE_MASK_SEND | RXE_MASK_FIRST | RXE_MASK_RWR |
		  RXE_MASK_PAYLOAD);
	EXPECT_FALSE(m & RXE_MASK_LAST);
	m = rxe_opcode_mask(0x0a);	/* RC RDMA_WRITE_ONLY: no receive WQE */
	EXPECT_TRUE(m & RXE_MASK_RETH);
	EXPECT_FALSE(m & RXE_MASK_RWR);
	EXPECT_EQ(m & RXE_MASK_ONLY, RXE_MASK_ONLY);
	m = rxe_opcode_mask(0x0b);	/* ... with immediate: consumes one */
	EXPECT_TRUE(m & RXE_MASK_RWR);
	EXPECT_TRUE(m & RXE_MASK_IMMDT);
	m = rxe_opcode_mask(0x0c);	/* RDMA_READ_REQUEST carries no payload */
	EXPECT_FALSE(m & RXE_MASK_PAYLOAD);
	EXPECT_TRUE(m & RXE_MASK_READ);
	m = rxe_opcode_mask(0x11);	/* ACK */
	EXPECT_TRUE(m & RXE_MASK_RESP);
	EXPECT_FALSE(m & RXE_MASK_PAYLOAD);
	EXPECT_TRUE(m & RXE_MASK_AETH);
	m = rxe_opcode_mask(0x13);	/* COMPARE_SWAP */
	EXPECT_TRUE(m & RXE_MASK_ATOMIC);
	EXPECT_TRUE(m & RXE_MASK_ATMETH);
	m = rxe_opcode_mask(0x17);	/* SEND_ONLY_WITH_INVALIDATE */
	EXPECT_TRUE(m & RXE_MASK_IETH);
	EXPECT_STREQ(rxe_opcode_name(0x17), "SEND_ONLY_WITH_INVALIDATE");
	EXPECT_STREQ(rxe_opcode_name(0x64), "SEND_ONLY");
}

UNIT_TEST(rxe_opcode, extension_header_offsets)
{
	u32 m;

	m = rxe_opcode_mask(0x0b);	/* BTH RETH ImmDt */
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_RETH), 12);
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_IMMDT), 28);
	m = rxe_opcode_mask(0x65);	/* BTH DETH ImmDt */
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_DETH), 12);
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_IMMDT), 20);
	m = rxe_opcode_mask(0x12);	/* BTH AETH AtomicAckETH */
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_AETH), 12);
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_ATMACK), 16);
	m = rxe_opcode_mask(0x16);	/* BTH IETH */
	EXPECT_EQ(rxe_hdr_offset(m, RXE_MASK_IETH), 12);
}

UNIT_TEST(rxe_psn, diff_and_wrap)
{
	EXPECT_EQ(rxe_psn_diff(5, 3), 2);
	EXPECT_EQ(rxe_psn_diff(3, 5), -2);
	EXPECT_EQ(rxe_psn_diff(7, 7), 0);
	/* Across the 24-bit wrap. */
	EXPECT_EQ(rxe_psn_diff(0x000001, 0xffffff), 2);
	EXPECT_EQ(rxe_psn_diff(0xffffff, 0x000001), -2);
	EXPECT_EQ(rxe_psn_diff(0x7fffff, 0), 0x7fffff);
	EXPECT_EQ(rxe_psn_diff(0x800000, 0), -0x800000);
	EXPECT_EQ(rxe_psn_add(0xffffff, 1), 0);
	EXPECT_EQ(rxe_psn_add(0xfffff0, 0x20), 0x10);
	EXPECT_EQ(rxe_psn_add(5, 0), 5);
}

UNIT_TEST(rxe_psn, diff_is_antisymmetric)
{
	static const u32 psns[] = { 0, 1, 2, 0x7ffffe, 0x7fffff, 0x800001,
				    0xfffffe, 0xffffff, 0x123456 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(psns); i++)
		for (j = 0; j < ARRAY_SIZE(psns); j++) {
			int d = rxe_psn_diff(psns[i], psns[j]);

			EXPECT_EQ(rxe_psn_add(psns[j], (u32)d), psns[i]);
			if (d != -0x800000)
				EXPECT_EQ(rxe_psn_diff(psns[j], psns[i]), -d);
		}
}

UNIT_TEST(rxe_timers, rnr_codes)
{
	EXPECT_EQ(rxe_rnr_timer_usecs(0), 655360);
	EXPECT_EQ(rxe_rnr_timer_usecs(1), 10);
	EXPECT_EQ(rxe_rnr_timer_usecs(5), 60);
	EXPECT_EQ(rxe_rnr_timer_usecs(14), 1280);
	EXPECT_EQ(rxe_rnr_timer_usecs(31), 491520);
	/* Only five bits count. */
	EXPECT_EQ(rxe_rnr_timer_usecs(33), 10);
}

UNIT_TEST(rxe_timers, ack_timeout)
{
	EXPECT_EQ(rxe_ack_timeout_usecs(0), 0);
	EXPECT_EQ(rxe_ack_timeout_usecs(1), 8);
	EXPECT_EQ(rxe_ack_timeout_usecs(14), 67108);
	EXPECT_EQ(rxe_ack_timeout_usecs(31), 8796093022ULL);
}

UNIT_TEST(rxe_hdr, udp_layout)
{
	static const u8 want[8] = { 0xc0, 0x01, 0x12, 0xb7, 0x04, 0x00, 0, 0 };
	u8 h[8];

	memset(h, 0xee, sizeof(h));
	rxe_udp_build(h, 0xc001, 1024);
	EXPECT_MEMEQ(h, want, 8);
	EXPECT_EQ(rxe_udp_sport(h), 0xc001);
	EXPECT_EQ(rxe_udp_dport(h), 4791);
	EXPECT_EQ(rxe_udp_len(h), 1024);
}

UNIT_TEST(rxe_hdr, ipv4_layout_and_core_agreement)
{
	static const u8 s[4] = { 192, 168, 1, 2 }, d[4] = { 10, 0, 0, 1 };
	static const u8 want[20] = { 0x45, 0x28, 0x01, 0x00, 0, 0, 0x40, 0x00,
				     0x3f, 0x11, 0, 0, 192, 168, 1, 2, 10, 0, 0, 1 };
	union rdma_network_hdr area;
	union ib_gid sgid, dgid;
	u8 *h = (u8 *)&area.roce4grh;
	__sum16 c;

	memset(&area, 0x60, sizeof(area));
	rxe_ipv4_build(h, 0x28, 256, 63, s, d);
	EXPECT_MEMEQ(h, want, 20);
	/* With the checksum the IP layer adds, the core reads it back as IPv4. */
	c = ip_fast_csum(h, 5);
	memcpy(h + 10, &c, 2);
	EXPECT_EQ(ib_get_rdma_header_version(&area), 4);
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&area, RDMA_NETWORK_IPV4, &sgid, &dgid), 0);
	EXPECT_MEMEQ(sgid.raw + 12, s, 4);
	EXPECT_MEMEQ(dgid.raw + 12, d, 4);
}

UNIT_TEST(rxe_hdr, ipv6_layout_and_core_agreement)
{
	static const u8 s[16] = { 0xfe, 0x80, [8] = 0x50, 0x54, 0, 0xff, 0xfe, 0, 0, 1 };
	static const u8 d[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };
	union rdma_network_hdr area;
	union ib_gid sgid, dgid;
	u8 *h = (u8 *)&area;

	/* Flow label bits above the low 20 do not leak into the class. */
	rxe_ipv6_build(h, 0xa5, 0xfff12345, 300, 7, s, d);
	EXPECT_EQ(h[0], 0x6a);
	EXPECT_EQ(h[1], 0x51);
	EXPECT_EQ(h[2], 0x23);
	EXPECT_EQ(h[3], 0x45);
	EXPECT_EQ(rxe_get16(h + 4), 300);
	EXPECT_EQ(h[6], 17);
	EXPECT_EQ(h[7], 7);
	EXPECT_EQ(be32_to_cpu(area.ibgrh.version_tclass_flow) & IB_GRH_FLOWLABEL_MASK,
		  0x12345);
	EXPECT_EQ(ib_get_rdma_header_version(&area), 6);
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&area, RDMA_NETWORK_IPV6, &sgid, &dgid), 0);
	EXPECT_MEMEQ(sgid.raw, s, 16);
	EXPECT_MEMEQ(dgid.raw, d, 16);
}

/*
 * The builders, given the field values of a packet the stock rxe sent,
 * produce it byte for byte, ICRC included (the IP layer's identification
 * and checksum set as the IP layer would).
 */
UNIT_TEST(rxe_hdr, rebuild_stock_packet)
{
	static const u8 s[4] = { 10, 0, 0, 2 }, d[4] = { 10, 0, 0, 1 };
	u32 len = sizeof(stock_ud_a);
	u8 *p = calloc(1, len);
	__sum16 c;

	rxe_ipv4_build(p, 0, len, 64, s, d);
	rxe_put16(p + 4, 0x4fdc);
	c = ip_fast_csum(p, 5);
	memcpy(p + 10, &c, 2);
	rxe_udp_build(p + 20, 0xf806, len - 20);
	rxe_bth_build(p + 28, 0x64, false, 0, 0xffff, 0x11, false, 0xcf42fa);
	rxe_deth_build(p + 40, 0x11111111, 0x12);
	memset(p + 48, 0x7b, 64);
	rxe_icrc_put(p + len - 4, rxe_icrc_compute(p, false, p + 20, len - 24));
	EXPECT_MEMEQ(p, stock_ud_a, len);
	free(p);
}
