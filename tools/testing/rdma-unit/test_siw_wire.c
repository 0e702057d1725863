// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/sw/siw/siw_wire.c and the inline helpers of
 * siw_wire.h: the FPDU pad, the header length of each RDMAP opcode, the
 * checks of a received FPDU header and the Terminate reason each failure
 * gives, the MPA request and reply frames, and the Terminate control word.
 *
 * Every expected byte and value is written out here by hand from the
 * RFCs, never computed with the code under test:
 *   RFC 5044 (MPA)   4.1-4.4 FPDU framing and pad, 7.1 request/reply
 *                    frame, 8 MPA error codes
 *   RFC 6581         the revision 2 IRD/ORD block (P2P, RTR bits)
 *   RFC 5041 (DDP)   4.2-4.4 control byte and tagged/untagged headers,
 *                    7.2 DDP error types and codes
 *   RFC 5040 (RDMAP) 4.2 control byte and opcodes, 4.4 READ request,
 *                    4.8 Terminate, 5.1 queue numbers, 7 error codes
 * Inputs of the length checks live in heap blocks of exactly their size,
 * so that AddressSanitizer reports any read past them.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include "../../../drivers/infiniband/sw/siw/siw_wire.h"
#include "unit.h"

/* Terminate layers (RFC 5040 4.8) */
#define L_RDMAP		0
#define L_DDP		1
#define L_MPA		2

/* ---- helpers -------------------------------------------------------------- */

static u8 *exact_copy(const u8 *p, unsigned int n)
{
	u8 *c = malloc(n ? n : 1);

	if (n)
		memcpy(c, p, n);
	return c;
}

/* siw_hdr_check() on the first @n bytes of @h, from a block of @n bytes */
static int hdr_check(const u8 *h, unsigned int n, struct siw_hdr_info *info,
		     struct siw_term_info *term)
{
	u8 *c = exact_copy(h, n);
	int ret = siw_hdr_check(c, n, info, term);

	free(c);
	return ret;
}

/* siw_mpa_parse() on the first @n bytes of @f, from a block of @n bytes */
static int mpa_parse(const u8 *f, unsigned int n, bool reply,
		     struct siw_mpa_info *info)
{
	u8 *c = exact_copy(f, n);
	int ret = siw_mpa_parse(c, n, reply, info);

	free(c);
	return ret;
}

/* The header is refused with this Terminate reason. */
#define EXPECT_REFUSED(h, n, l, t, c) do {				\
	struct siw_term_info __t = { 0xee, 0xee, 0xee };		\
	struct siw_hdr_info __i;					\
									\
	EXPECT_EQ(hdr_check(h, n, &__i, &__t), -EPROTO);		\
	EXPECT_EQ(__t.layer, l);					\
	EXPECT_EQ(__t.etype, t);					\
	EXPECT_EQ(__t.ecode, c);					\
} while (0)

/* The header is accepted and reads back as given. */
#define EXPECT_ACCEPTED(h, n, o, tg, la, hl, pl) do {			\
	struct siw_term_info __t;					\
	struct siw_hdr_info __i;					\
									\
	memset(&__i, 0xee, sizeof(__i));				\
	if (EXPECT_EQ(hdr_check(h, n, &__i, &__t), 0)) {		\
		EXPECT_EQ(__i.op, o);					\
		EXPECT_EQ(__i.tagged, tg);				\
		EXPECT_EQ(__i.last, la);				\
		EXPECT_EQ(__i.hdr_len, hl);				\
		EXPECT_EQ(__i.payload, pl);				\
	}								\
} while (0)

/* ---- FPDU headers, written out from RFC 5041 4.2-4.4 and RFC 5040 4 ------- */

/* RDMA Write, 6 bytes of payload, not the last segment */
static const u8 hdr_write[16] = {
	0x00, 0x14,		/* ULPDU length 20 = 14 of header + 6 */
	0x81,			/* T=1 L=0 DV=01 */
	0x40,			/* RV=01 opcode 0000 */
	0x12, 0x34, 0x56, 0x78,	/* STag */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x10, 0x00,	/* TO */
};

/* RDMA Read Response, 1024 bytes of payload, last segment */
static const u8 hdr_read_resp[16] = {
	0x04, 0x0e,		/* ULPDU length 1038 = 14 + 1024 */
	0xc1,			/* T=1 L=1 DV=01 */
	0x42,			/* RV=01 opcode 0010 */
	0xab, 0xcd, 0x00, 0x01,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

/* Send, 100 bytes of payload, the whole message */
static const u8 hdr_send[20] = {
	0x00, 0x76,		/* ULPDU length 118 = 18 + 100 */
	0x41,			/* T=0 L=1 DV=01 */
	0x43,			/* RV=01 opcode 0011 */
	0x00, 0x00, 0x00, 0x00,	/* reserved for RDMAP (Invalidate STag) */
	0x00, 0x00, 0x00, 0x00,	/* QN 0 */
	0x00, 0x00, 0x00, 0x01,	/* MSN 1 */
	0x00, 0x00, 0x00, 0x00,	/* MO 0 */
};

/* RDMA Read Request: header and the 28 bytes of RFC 5040 4.4, no more */
static const u8 hdr_read_req[48] = {
	0x00, 0x2e,		/* ULPDU length 46 = 18 + 28 */
	0x41,			/* T=0 L=1 DV=01 */
	0x41,			/* RV=01 opcode 0001 */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x01,	/* QN 1 */
	0x00, 0x00, 0x00, 0x05,	/* MSN 5 */
	0x00, 0x00, 0x00, 0x00,	/* MO 0 */
	0x11, 0x22, 0x33, 0x44,	/* Data Sink STag */
	0x00, 0x00, 0x00, 0x00, 0x20, 0x00, 0x00, 0x00,	/* Data Sink TO */
	0x00, 0x00, 0x10, 0x00,	/* RDMA Read Message Size 4096 */
	0x55, 0x66, 0x77, 0x88,	/* Data Source STag */
	0x00, 0x00, 0x7f, 0xff, 0x00, 0x00, 0x00, 0x00,	/* Data Source TO */
};

/* Terminate with its control word and nothing copied */
static const u8 hdr_term[24] = {
	0x00, 0x16,		/* ULPDU length 22 = 18 + 4 */
	0x41,			/* T=0 L=1 DV=01 */
	0x47,			/* RV=01 opcode 0111 */
	0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x02,	/* QN 2 */
	0x00, 0x00, 0x00, 0x01,	/* MSN 1 */
	0x00, 0x00, 0x00, 0x00,	/* MO 0 */
	0x12, 0x01, 0x00, 0x00,	/* DDP, untagged, invalid QN */
};

/* ---- sizes and keys ------------------------------------------------------- */

UNIT_TEST(siw_wire, sizes_and_keys)
{
	/* "MPA ID Req Frame" and "MPA ID Rep Frame" (RFC 5044 7.1) */
	static const u8 req[16] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x71, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	};
	static const u8 rep[16] = {
		0x4d, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52,
		0x65, 0x70, 0x20, 0x46, 0x72, 0x61, 0x6d, 0x65,
	};

	/* 2 length bytes + DDP/RDMAP control + STag + TO */
	EXPECT_EQ(SIW_HDR_TAGGED_LEN, 16);
	/* 2 + control + reserved/Inv STag + QN + MSN + MO */
	EXPECT_EQ(SIW_HDR_UNTAGGED_LEN, 20);
	EXPECT_EQ(SIW_READ_REQ_LEN, 28);
	EXPECT_EQ(SIW_HDR_MAX_LEN, 48);
	EXPECT_EQ(SIW_MPA_FRAME_LEN, 20);
	EXPECT_EQ(sizeof(struct siw_mpa_frame), 20);
	EXPECT_EQ(SIW_MPA_V2_LEN, 4);
	EXPECT_EQ(SIW_MPA_MAX_PD, 512);
	EXPECT_EQ(SIW_MPA_KEY_LEN, 16);
	EXPECT_MEMEQ(SIW_MPA_KEY_REQ, req, 16);
	EXPECT_MEMEQ(SIW_MPA_KEY_REP, rep, 16);
	/* Byte 16: M C R (RFC 5044 7.1), E (Linux's siw), Res */
	EXPECT_EQ(SIW_MPA_F_MARKERS, 0x80);
	EXPECT_EQ(SIW_MPA_F_CRC, 0x40);
	EXPECT_EQ(SIW_MPA_F_REJECT, 0x20);
	EXPECT_EQ(SIW_MPA_F_ENHANCED, 0x10);
	EXPECT_EQ(SIW_MPA_F_RESERVED, 0x0f);
}

/* ---- siw_fpdu_pad (RFC 5044 4.1: length field + ULPDU + pad = 4n) -------- */

UNIT_TEST(siw_wire, fpdu_pad_small)
{
	/* 2 + len + pad must be a multiple of four: */
	static const unsigned int want[8] = { 2, 1, 0, 3, 2, 1, 0, 3 };
	unsigned int len;

	for (len = 0; len < 8; len++)
		if (!EXPECT_EQ(siw_fpdu_pad(len), want[len]))
			printf("    # ULPDU length %u\n", len);
}

UNIT_TEST(siw_wire, fpdu_pad_large)
{
	EXPECT_EQ(siw_fpdu_pad(18), 0);		/* an empty Send */
	EXPECT_EQ(siw_fpdu_pad(46), 0);		/* a READ request */
	EXPECT_EQ(siw_fpdu_pad(1038), 0);
	EXPECT_EQ(siw_fpdu_pad(1024), 2);
	EXPECT_EQ(siw_fpdu_pad(65532), 2);
	EXPECT_EQ(siw_fpdu_pad(65533), 1);
	EXPECT_EQ(siw_fpdu_pad(65534), 0);
	EXPECT_EQ(siw_fpdu_pad(65535), 3);	/* the largest length field */
	EXPECT_EQ(siw_fpdu_pad(0x10001), 1);
	EXPECT_EQ(siw_fpdu_pad(0xfffffffe), 0);
	EXPECT_EQ(siw_fpdu_pad(0xffffffff), 3);
}

/* ---- siw_hdr_len ----------------------------------------------------------- */

/* RFC 5040 4.2 opcodes, with the DDP model RFC 5040 5 gives each */
static const struct {
	u8 op;
	bool tagged;
	int len;
} op_table[] = {
	{ 0, true, 16 },	/* RDMA Write */
	{ 1, false, 48 },	/* RDMA Read Request */
	{ 2, true, 16 },	/* RDMA Read Response */
	{ 3, false, 20 },	/* Send */
	{ 4, false, 20 },	/* Send with Invalidate */
	{ 5, false, 20 },	/* Send with Solicited Event */
	{ 6, false, 20 },	/* Send with SE and Invalidate */
	{ 7, false, 20 },	/* Terminate */
};

UNIT_TEST(siw_wire, hdr_len_each_opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op_table); i++) {
		u8 op = op_table[i].op, t = op_table[i].tagged ? 0x80 : 0;

		EXPECT_EQ(siw_hdr_len(t | 0x01, 0x40 | op), op_table[i].len);
		/* L, reserved and version bits do not change the length */
		EXPECT_EQ(siw_hdr_len(t | 0x7f, 0xf0 | op), op_table[i].len);
		EXPECT_EQ(siw_hdr_len(t, op), op_table[i].len);
		/* The T bit the opcode does not use */
		EXPECT_EQ(siw_hdr_len((t ^ 0x80) | 0x01, 0x40 | op), -EINVAL);
		EXPECT_EQ(siw_hdr_len((t ^ 0x80) | 0x41, 0x40 | op), -EINVAL);
	}
}

UNIT_TEST(siw_wire, hdr_len_reserved_opcodes)
{
	unsigned int op;

	for (op = 8; op < 16; op++) {
		EXPECT_EQ(siw_hdr_len(0x41, 0x40 | op), -EINVAL);
		EXPECT_EQ(siw_hdr_len(0xc1, 0x40 | op), -EINVAL);
		EXPECT_EQ(siw_hdr_len(0x01, op), -EINVAL);
		EXPECT_EQ(siw_hdr_len(0x81, 0xf0 | op), -EINVAL);
	}
}

/* ---- siw_hdr_check: accepted headers ------------------------------------- */

UNIT_TEST(siw_wire, hdr_check_tagged)
{
	EXPECT_ACCEPTED(hdr_write, 16, 0, true, false, 16, 6);
	EXPECT_ACCEPTED(hdr_read_resp, 16, 2, true, true, 16, 1024);
}

UNIT_TEST(siw_wire, hdr_check_untagged_sends)
{
	u8 h[20];
	unsigned int op;

	EXPECT_ACCEPTED(hdr_send, 20, 3, false, true, 20, 100);
	for (op = 3; op <= 6; op++) {
		memcpy(h, hdr_send, 20);
		h[3] = 0x40 | op;
		EXPECT_ACCEPTED(h, 20, op, false, true, 20, 100);
	}

	/* Send with SE and Invalidate, a middle segment: L=0, MO 4096 */
	memcpy(h, hdr_send, 20);
	h[0] = 0x00; h[1] = 0x1a;	/* 18 + 8 */
	h[2] = 0x01;
	h[3] = 0x46;
	h[4] = 0xaa; h[5] = 0xbb; h[6] = 0xcc; h[7] = 0xdd;
	h[18] = 0x10;
	EXPECT_ACCEPTED(h, 20, 6, false, false, 20, 8);

	/* No payload at all (a zero-length Send) */
	memcpy(h, hdr_send, 20);
	h[1] = 0x12;
	EXPECT_ACCEPTED(h, 20, 3, false, true, 20, 0);
}

UNIT_TEST(siw_wire, hdr_check_zero_payload_tagged)
{
	u8 h[16];

	memcpy(h, hdr_write, 16);
	h[1] = 0x0e;			/* ULPDU of just the 14 header bytes */
	EXPECT_ACCEPTED(h, 16, 0, true, false, 16, 0);
	/* A length field of 65535 */
	h[0] = 0xff; h[1] = 0xff;
	EXPECT_ACCEPTED(h, 16, 0, true, false, 16, 65521);
}

UNIT_TEST(siw_wire, hdr_check_read_request)
{
	EXPECT_ACCEPTED(hdr_read_req, 48, 1, false, true, 48, 0);
}

UNIT_TEST(siw_wire, hdr_check_terminate)
{
	EXPECT_ACCEPTED(hdr_term, 20, 7, false, true, 20, 4);
	EXPECT_ACCEPTED(hdr_term, 24, 7, false, true, 20, 4);
}

UNIT_TEST(siw_wire, hdr_check_longer_buffer)
{
	u8 h[64];

	/* More bytes than the header: only the header counts. */
	memset(h, 0x5a, sizeof(h));
	memcpy(h, hdr_write, 16);
	EXPECT_ACCEPTED(h, 64, 0, true, false, 16, 6);
	memcpy(h, hdr_send, 20);
	EXPECT_ACCEPTED(h, 64, 3, false, true, 20, 100);
}

/* ---- siw_hdr_check: refused headers -------------------------------------- */

UNIT_TEST(siw_wire, hdr_check_ddp_version)
{
	static const u8 bad_dv[] = { 0x00, 0x02, 0x03 };
	u8 h[48];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad_dv); i++) {
		/* Tagged: DDP, tagged buffer error, invalid DDP version */
		memcpy(h, hdr_write, 16);
		h[2] = 0x80 | bad_dv[i];
		EXPECT_REFUSED(h, 16, L_DDP, 1, 0x04);
		h[2] = 0xc0 | bad_dv[i];
		EXPECT_REFUSED(h, 16, L_DDP, 1, 0x04);
		/* Untagged: DDP, untagged buffer error, invalid DDP version */
		memcpy(h, hdr_send, 20);
		h[2] = 0x40 | bad_dv[i];
		EXPECT_REFUSED(h, 20, L_DDP, 2, 0x06);
		memcpy(h, hdr_read_req, 48);
		h[2] = 0x40 | bad_dv[i];
		EXPECT_REFUSED(h, 48, L_DDP, 2, 0x06);
	}
	/* DDP comes before RDMAP: a bad RDMAP version is not reported. */
	memcpy(h, hdr_send, 20);
	h[2] = 0x42;
	h[3] = 0xc3;
	EXPECT_REFUSED(h, 20, L_DDP, 2, 0x06);
}

UNIT_TEST(siw_wire, hdr_check_rdmap_version)
{
	static const u8 bad_rv[] = { 0x00, 0x80, 0xc0 };
	u8 h[48];
	unsigned int i;

	/* RDMAP, remote operation error, invalid RDMAP version */
	for (i = 0; i < ARRAY_SIZE(bad_rv); i++) {
		memcpy(h, hdr_write, 16);
		h[3] = bad_rv[i] | 0x00;
		EXPECT_REFUSED(h, 16, L_RDMAP, 2, 0x05);
		memcpy(h, hdr_send, 20);
		h[3] = bad_rv[i] | 0x03;
		EXPECT_REFUSED(h, 20, L_RDMAP, 2, 0x05);
		memcpy(h, hdr_read_req, 48);
		h[3] = bad_rv[i] | 0x01;
		EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0x05);
	}
}

UNIT_TEST(siw_wire, hdr_check_bad_opcode)
{
	u8 h[48] = {};
	unsigned int op;

	/* RDMAP, remote operation error, unexpected opcode */
	for (op = 8; op < 16; op++) {
		memcpy(h, hdr_send, 20);
		h[3] = 0x40 | op;
		EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0x06);
		memcpy(h, hdr_write, 16);
		h[3] = 0x40 | op;
		EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0x06);
	}
}

UNIT_TEST(siw_wire, hdr_check_t_bit_against_opcode)
{
	u8 h[48] = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(op_table); i++) {
		/* A big enough, otherwise right header for either model */
		memcpy(h, hdr_read_req, 48);
		h[3] = 0x40 | op_table[i].op;
		h[2] = op_table[i].tagged ? 0x41 : 0xc1;
		EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0x06);
	}
}

UNIT_TEST(siw_wire, hdr_check_wrong_queue)
{
	static const u32 bad_send_qn[] = { 1, 2, 3, 0x100, 0x80000000 };
	u8 h[48];
	unsigned int i, op;

	/* DDP, untagged buffer error, invalid QN (RFC 5040 5.1) */
	for (op = 3; op <= 6; op++)
		for (i = 0; i < ARRAY_SIZE(bad_send_qn); i++) {
			memcpy(h, hdr_send, 20);
			h[3] = 0x40 | op;
			put_unaligned_be32(bad_send_qn[i], h + 8);
			EXPECT_REFUSED(h, 20, L_DDP, 2, 0x01);
		}
	memcpy(h, hdr_read_req, 48);
	h[11] = 0;
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x01);
	h[11] = 2;
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x01);
	h[8] = 1; h[11] = 1;		/* 0x01000001 */
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x01);
	memcpy(h, hdr_term, 24);
	h[11] = 0;
	EXPECT_REFUSED(h, 24, L_DDP, 2, 0x01);
	h[11] = 1;
	EXPECT_REFUSED(h, 24, L_DDP, 2, 0x01);
	h[11] = 3;
	EXPECT_REFUSED(h, 24, L_DDP, 2, 0x01);
}

UNIT_TEST(siw_wire, hdr_check_single_segment_messages)
{
	u8 h[48];

	/*
	 * A READ request and a Terminate are one DDP segment: L set, MO 0.
	 * A non-zero MO is DDP's "invalid MO"; RFC 5040 names no code for a
	 * missing L, the same one is expected.
	 */
	memcpy(h, hdr_read_req, 48);
	h[2] = 0x01;
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x04);
	memcpy(h, hdr_read_req, 48);
	h[19] = 0x01;
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x04);
	memcpy(h, hdr_read_req, 48);
	h[16] = 0x80;
	EXPECT_REFUSED(h, 48, L_DDP, 2, 0x04);

	memcpy(h, hdr_term, 24);
	h[2] = 0x01;
	EXPECT_REFUSED(h, 24, L_DDP, 2, 0x04);
	memcpy(h, hdr_term, 24);
	h[18] = 0x01;
	EXPECT_REFUSED(h, 24, L_DDP, 2, 0x04);

	/* A Send may come in segments: L=0 and a non-zero MO are fine. */
	memcpy(h, hdr_send, 20);
	h[2] = 0x01;
	h[19] = 0x40;
	EXPECT_ACCEPTED(h, 20, 3, false, false, 20, 100);
}

UNIT_TEST(siw_wire, hdr_check_read_request_size)
{
	u8 h[48];

	/* RFC 5040 4.4: the request is exactly 28 bytes after the header. */
	/* RFC 5040 names no code: RDMAP's unspecified operation error */
	memcpy(h, hdr_read_req, 48);
	h[1] = 0x2f;			/* 47: one byte of payload too many */
	EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0xff);
	h[0] = 0x01; h[1] = 0x2e;	/* 302 */
	EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0xff);
	h[0] = 0xff; h[1] = 0xff;
	EXPECT_REFUSED(h, 48, L_RDMAP, 2, 0xff);
}

/* The ULPDU length cannot cover the header: an MPA (LLP) layer error. */
#define EXPECT_MPA_REFUSED(h, n) do {					\
	struct siw_term_info __t = { 0xee, 0xee, 0xee };		\
	struct siw_hdr_info __i;					\
									\
	EXPECT_EQ(hdr_check(h, n, &__i, &__t), -EPROTO);		\
	EXPECT_EQ(__t.layer, L_MPA);					\
	EXPECT_EQ(__t.etype, 0);					\
	/* one of the codes RFC 5044 8 defines */			\
	EXPECT_TRUE(__t.ecode >= 0x01 && __t.ecode <= 0x04);		\
} while (0)

UNIT_TEST(siw_wire, hdr_check_ulpdu_shorter_than_header)
{
	u8 h[48];

	memcpy(h, hdr_write, 16);
	h[1] = 0x0d;			/* 13 < 14 */
	EXPECT_MPA_REFUSED(h, 16);
	h[1] = 0x00;
	EXPECT_MPA_REFUSED(h, 16);

	memcpy(h, hdr_send, 20);
	h[1] = 0x11;			/* 17 < 18 */
	EXPECT_MPA_REFUSED(h, 20);

	memcpy(h, hdr_term, 24);
	h[1] = 0x04;
	EXPECT_MPA_REFUSED(h, 24);

	memcpy(h, hdr_read_req, 48);
	h[1] = 0x2d;			/* 45 < 46 */
	EXPECT_MPA_REFUSED(h, 48);
	h[1] = 0x12;			/* a Send's worth */
	EXPECT_MPA_REFUSED(h, 48);
}

UNIT_TEST(siw_wire, hdr_check_short_buffer)
{
	unsigned int n;

	/* DDP, local catastrophic error: not enough bytes for the header */
	for (n = 0; n < 16; n++)
		EXPECT_REFUSED(hdr_write, n, L_DDP, 0, 0x00);
	for (n = 0; n < 16; n++)
		EXPECT_REFUSED(hdr_read_resp, n, L_DDP, 0, 0x00);
	for (n = 0; n < 20; n++)
		EXPECT_REFUSED(hdr_send, n, L_DDP, 0, 0x00);
	for (n = 0; n < 20; n++)
		EXPECT_REFUSED(hdr_term, n, L_DDP, 0, 0x00);
	for (n = 0; n < 48; n++)
		EXPECT_REFUSED(hdr_read_req, n, L_DDP, 0, 0x00);
}

/*
 * ---- MPA request and reply frames (RFC 5044 7.1, RFC 6581) ---------------
 *
 * Key (16 bytes, no NUL), flags M C R E Res(4), revision, private data
 * length (big-endian), private data.  E (0x10) is the flag Linux's siw
 * sets in an enhanced frame: the private data of a revision 2 frame that
 * has it starts with the IRD/ORD block of RFC 6581; a revision 2 frame
 * without it, and any revision 1 frame, has no block.  No hex escape below
 * is followed by a character that could extend it.
 */

/* Revision 1 request: C set, 5 bytes of private data */
static const u8 mpa_req_v1[25] =
	"MPA ID Req Frame\x40\x01\x00\x05hello";

/* Revision 1 reply: no flags, 3 bytes of private data */
static const u8 mpa_rep_v1[23] =
	"MPA ID Rep Frame\x00\x01\x00\x03\x01\x02\x03";

/*
 * Enhanced revision 2 request: C and E set; private data of 10 bytes, the
 * IRD/ORD block first: P2P and IRD 16, RDMA Read RTR and ORD 8; then 6
 * bytes for the ULP.
 */
static const u8 mpa_req_v2[30] =
	"MPA ID Req Frame\x50\x02\x00\x0a\x80\x10\x40\x08uvwxyz";

/*
 * Enhanced revision 2 reply rejecting the request: R and E set, 2 bytes
 * of private data only, too few for a block.
 */
static const u8 mpa_rep_v2_reject[22] =
	"MPA ID Rep Frame\x30\x02\x00\x02\xde\xad";

/*
 * Revision 2 request without E: C set, the same 10 bytes of private data
 * as mpa_req_v2, all of them the ULP's.
 */
static const u8 mpa_req_v2_plain[30] =
	"MPA ID Req Frame\x40\x02\x00\x0a\x80\x10\x40\x08uvwxyz";

UNIT_TEST(siw_wire, mpa_parse_v1_request)
{
	struct siw_mpa_info i;
	u8 f[40];

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(mpa_req_v1, 25, false, &i), 25);
	EXPECT_EQ(i.flags, 0x40);
	EXPECT_EQ(i.rev, 1);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 5);
	EXPECT_FALSE(i.v2);
	/* What follows the frame on the stream is not part of it. */
	memset(f, 0x77, sizeof(f));
	memcpy(f, mpa_req_v1, 25);
	EXPECT_EQ(mpa_parse(f, 40, false, &i), 25);
}

UNIT_TEST(siw_wire, mpa_parse_v1_reply)
{
	struct siw_mpa_info i;

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(mpa_rep_v1, 23, true, &i), 23);
	EXPECT_EQ(i.flags, 0);
	EXPECT_EQ(i.rev, 1);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 3);
	EXPECT_FALSE(i.v2);
}

UNIT_TEST(siw_wire, mpa_parse_v1_no_private_data)
{
	static const u8 f[20] = "MPA ID Rep Frame\x40\x01\x00\x00";
	struct siw_mpa_info i;

	ASSERT_EQ(mpa_parse(f, 20, true, &i), 20);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 0);
}

UNIT_TEST(siw_wire, mpa_parse_v2_request)
{
	struct siw_mpa_info i;
	u8 f[30];

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(mpa_req_v2, 30, false, &i), 30);
	EXPECT_EQ(i.flags, 0x50);
	EXPECT_EQ(i.rev, 2);
	EXPECT_TRUE(i.v2);
	EXPECT_EQ(i.ird, 16);
	EXPECT_EQ(i.ord, 8);
	EXPECT_EQ(i.v2_ird_bits, 0x8000);	/* P2P */
	EXPECT_EQ(i.v2_ord_bits, 0x4000);	/* RDMA Read RTR */
	if (EXPECT_EQ(i.pd_off, 24) && EXPECT_EQ(i.pd_len, 6))
		EXPECT_MEMEQ(mpa_req_v2 + 24, "uvwxyz", 6);

	/* Zero-length RTR, IRD 16383; both RTR types, ORD 0 */
	memcpy(f, mpa_req_v2, 30);
	f[20] = 0x7f; f[21] = 0xff;
	f[22] = 0xc0; f[23] = 0x00;
	ASSERT_EQ(mpa_parse(f, 30, false, &i), 30);
	EXPECT_EQ(i.ird, 0x3fff);
	EXPECT_EQ(i.v2_ird_bits, 0x4000);
	EXPECT_EQ(i.ord, 0);
	EXPECT_EQ(i.v2_ord_bits, 0xc000);

	/* The block and nothing else */
	f[19] = 0x04;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 24, false, &i), 24);
	EXPECT_TRUE(i.v2);
	EXPECT_EQ(i.pd_off, 24);
	EXPECT_EQ(i.pd_len, 0);
}

UNIT_TEST(siw_wire, mpa_parse_v2_reply)
{
	/* E only; IRD 1; RDMA Write RTR, ORD 2 */
	static const u8 f[24] =
		"MPA ID Rep Frame\x10\x02\x00\x04\x00\x01\x80\x02";
	struct siw_mpa_info i;

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 24, true, &i), 24);
	EXPECT_EQ(i.flags, 0x10);
	EXPECT_TRUE(i.v2);
	EXPECT_EQ(i.ird, 1);
	EXPECT_EQ(i.v2_ird_bits, 0);
	EXPECT_EQ(i.ord, 2);
	EXPECT_EQ(i.v2_ord_bits, 0x8000);
	EXPECT_EQ(i.pd_off, 24);
	EXPECT_EQ(i.pd_len, 0);
}

UNIT_TEST(siw_wire, mpa_parse_v2_without_block)
{
	struct siw_mpa_info i;
	u8 f[23];

	/* An enhanced reply that rejects need not carry the block. */
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(mpa_rep_v2_reject, 22, true, &i), 22);
	EXPECT_EQ(i.flags, 0x30);
	EXPECT_EQ(i.rev, 2);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 2);
	memcpy(f, mpa_rep_v2_reject, 22);
	f[19] = 0x00;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 20, true, &i), 20);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 0);
	f[19] = 0x03;
	f[22] = 0xbe;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 23, true, &i), 23);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 3);

	/* Any other enhanced revision 2 frame must. */
	memcpy(f, mpa_rep_v2_reject, 22);
	f[16] = 0x10;				/* E alone */
	EXPECT_EQ(mpa_parse(f, 22, true, &i), -EBADMSG);
	f[16] = 0x50;				/* C and E */
	f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 20, true, &i), -EBADMSG);
	f[19] = 0x03;
	f[22] = 0x00;
	EXPECT_EQ(mpa_parse(f, 23, true, &i), -EBADMSG);
	memcpy(f, mpa_req_v2, 20);
	f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 20, false, &i), -EBADMSG);
	f[19] = 0x01;
	f[20] = 0x80;
	EXPECT_EQ(mpa_parse(f, 21, false, &i), -EBADMSG);
	/* R in a request answers nothing (RFC 5044 7.1): no excuse there */
	f[16] = 0x30;
	f[19] = 0x02;
	f[21] = 0x10;
	EXPECT_EQ(mpa_parse(f, 22, false, &i), -EBADMSG);
}

/* A revision 2 frame without E is read as a revision 1 one: no block. */
UNIT_TEST(siw_wire, mpa_parse_v2_not_enhanced)
{
	/* No flags; four bytes that would read IRD 1, Write RTR, ORD 2 */
	static const u8 rep[24] =
		"MPA ID Rep Frame\x00\x02\x00\x04\x00\x01\x80\x02";
	struct siw_mpa_info i;
	u8 f[30];

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(mpa_req_v2_plain, 30, false, &i), 30);
	EXPECT_EQ(i.flags, 0x40);
	EXPECT_EQ(i.rev, 2);
	EXPECT_FALSE(i.v2);
	/* The bytes compared only where they are known to be in the frame */
	if (EXPECT_EQ(i.pd_off, 20) && EXPECT_EQ(i.pd_len, 10))
		EXPECT_MEMEQ(mpa_req_v2_plain + 20,
			     "\x80\x10\x40\x08uvwxyz", 10);

	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(rep, 24, true, &i), 24);
	EXPECT_EQ(i.flags, 0x00);
	EXPECT_EQ(i.rev, 2);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 4);

	/* Fewer than four bytes are then no fault, R or not */
	memcpy(f, rep, 24);
	f[19] = 0x03;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 23, true, &i), 23);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 3);
	memcpy(f, mpa_req_v2_plain, 30);
	f[19] = 0x00;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 20, false, &i), 20);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 0);
}

/* E in a revision 1 frame: kept in the flags, but no block */
UNIT_TEST(siw_wire, mpa_parse_enhanced_in_rev1)
{
	struct siw_mpa_info i;
	u8 f[30];

	memcpy(f, mpa_req_v1, 25);
	f[16] = 0x50;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 25, false, &i), 25);
	EXPECT_EQ(i.flags, 0x50);
	EXPECT_EQ(i.rev, 1);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 5);

	/* The enhanced request with its revision turned to 1 */
	memcpy(f, mpa_req_v2, 30);
	f[17] = 0x01;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 30, false, &i), 30);
	EXPECT_EQ(i.flags, 0x50);
	EXPECT_EQ(i.rev, 1);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 10);

	/* Fewer than four bytes are no fault there, without R too */
	memcpy(f, mpa_rep_v1, 23);
	f[16] = 0x10;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 23, true, &i), 23);
	EXPECT_EQ(i.flags, 0x10);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 3);
	f[19] = 0x00;
	memset(&i, 0xee, sizeof(i));
	ASSERT_EQ(mpa_parse(f, 20, true, &i), 20);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 0);
}

UNIT_TEST(siw_wire, mpa_parse_bad_key)
{
	struct siw_mpa_info i;
	unsigned int k;
	u8 f[25];

	for (k = 0; k < 16; k++) {
		memcpy(f, mpa_req_v1, 25);
		f[k] ^= 0x20;		/* 'M' -> 'm', ' ' -> NUL, ... */
		EXPECT_EQ(mpa_parse(f, 25, false, &i), -EBADMSG);
		EXPECT_EQ(mpa_parse(f, 25, true, &i), -EBADMSG);
	}
	memset(f, 0, sizeof(f));
	EXPECT_EQ(mpa_parse(f, 25, false, &i), -EBADMSG);
}

UNIT_TEST(siw_wire, mpa_parse_key_of_the_other_kind)
{
	struct siw_mpa_info i;

	EXPECT_EQ(mpa_parse(mpa_req_v1, 25, true, &i), -EBADMSG);
	EXPECT_EQ(mpa_parse(mpa_req_v2, 30, true, &i), -EBADMSG);
	EXPECT_EQ(mpa_parse(mpa_rep_v1, 23, false, &i), -EBADMSG);
	EXPECT_EQ(mpa_parse(mpa_rep_v2_reject, 22, false, &i), -EBADMSG);
	/* Wrong from byte 9 ('q' against 'p') on */
	EXPECT_EQ(mpa_parse(mpa_req_v1, 9, true, &i), -EAGAIN);
	EXPECT_EQ(mpa_parse(mpa_req_v1, 10, true, &i), -EBADMSG);
}

UNIT_TEST(siw_wire, mpa_parse_revision)
{
	static const u8 bad_rev[] = { 0, 3, 4, 0x81, 0xff };
	struct siw_mpa_info i;
	unsigned int k;
	u8 f[30];

	for (k = 0; k < ARRAY_SIZE(bad_rev); k++) {
		memcpy(f, mpa_req_v1, 25);
		f[17] = bad_rev[k];
		EXPECT_EQ(mpa_parse(f, 25, false, &i), -EBADMSG);
		memcpy(f, mpa_rep_v1, 23);
		f[17] = bad_rev[k];
		EXPECT_EQ(mpa_parse(f, 23, true, &i), -EBADMSG);
		memcpy(f, mpa_req_v2, 30);
		f[17] = bad_rev[k];
		EXPECT_EQ(mpa_parse(f, 30, false, &i), -EBADMSG);
	}
}

UNIT_TEST(siw_wire, mpa_parse_private_data_length)
{
	struct siw_mpa_info i;
	u8 *f = calloc(1, 20 + 513);

	/* 512 is the most RFC 5044 7.1 allows */
	memcpy(f, mpa_rep_v1, 20);
	f[18] = 0x02; f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 532, true, &i), 532);
	EXPECT_EQ(i.pd_len, 512);
	f[19] = 0x01;			/* 513 */
	EXPECT_EQ(mpa_parse(f, 533, true, &i), -EBADMSG);
	/* Known from the fixed part alone: no waiting for the rest */
	EXPECT_EQ(mpa_parse(f, 20, true, &i), -EBADMSG);
	f[18] = 0xff; f[19] = 0xff;
	EXPECT_EQ(mpa_parse(f, 20, true, &i), -EBADMSG);
	f[18] = 0x80; f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 20, true, &i), -EBADMSG);

	/* Enhanced revision 2: the block counts in the 512 */
	memcpy(f, mpa_req_v2, 24);
	f[18] = 0x02; f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 532, false, &i), 532);
	EXPECT_TRUE(i.v2);
	EXPECT_EQ(i.pd_len, 508);
	f[19] = 0x01;
	EXPECT_EQ(mpa_parse(f, 533, false, &i), -EBADMSG);

	/* Revision 2 without E: all 512 are the ULP's */
	f[16] = 0x40;
	f[19] = 0x00;
	EXPECT_EQ(mpa_parse(f, 532, false, &i), 532);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_off, 20);
	EXPECT_EQ(i.pd_len, 512);
	f[19] = 0x01;
	EXPECT_EQ(mpa_parse(f, 533, false, &i), -EBADMSG);
	free(f);
}

UNIT_TEST(siw_wire, mpa_parse_reject_bit_in_reply)
{
	struct siw_mpa_info i;
	u8 f[30];

	/* RFC 5044 7.1: in a reply R is the answer (rejected) */
	memcpy(f, mpa_rep_v1, 23);
	f[16] = 0x20;
	ASSERT_EQ(mpa_parse(f, 23, true, &i), 23);
	EXPECT_EQ(i.flags, 0x20);
	f[16] = 0x60;
	ASSERT_EQ(mpa_parse(f, 23, true, &i), 23);
	EXPECT_EQ(i.flags, 0x60);
}

UNIT_TEST(siw_wire, mpa_parse_reject_bit_in_request)
{
	struct siw_mpa_info i;
	u8 f[30];

	/*
	 * RFC 5044 7.1: in a request R "is set to zero, and not checked on
	 * reception": the frame is taken as if R were clear.
	 */
	memcpy(f, mpa_req_v1, 25);
	f[16] = 0x60;
	EXPECT_EQ(mpa_parse(f, 25, false, &i), 25);
	EXPECT_EQ(i.flags, 0x40);
	memcpy(f, mpa_req_v2, 30);
	f[16] = 0x30;
	memset(&i, 0xee, sizeof(i));
	EXPECT_EQ(mpa_parse(f, 30, false, &i), 30);
	EXPECT_EQ(i.flags, 0x10);
	EXPECT_TRUE(i.v2);
	memcpy(f, mpa_req_v1, 20);
	f[16] = 0x20;
	EXPECT_EQ(mpa_parse(f, 20, false, &i), -EAGAIN);
}

UNIT_TEST(siw_wire, mpa_parse_markers)
{
	struct siw_mpa_info i;
	u8 f[30];

	memcpy(f, mpa_req_v1, 25);
	f[16] = 0x80;
	EXPECT_EQ(mpa_parse(f, 25, false, &i), -EOPNOTSUPP);
	f[16] = 0xc0;
	EXPECT_EQ(mpa_parse(f, 25, false, &i), -EOPNOTSUPP);
	memcpy(f, mpa_rep_v1, 23);
	f[16] = 0x80;
	EXPECT_EQ(mpa_parse(f, 23, true, &i), -EOPNOTSUPP);
	memcpy(f, mpa_req_v2, 30);
	f[16] = 0x90;
	/* Refused only once whole, and then read like a good frame */
	EXPECT_EQ(mpa_parse(f, 20, false, &i), -EAGAIN);
	EXPECT_EQ(mpa_parse(f, 29, false, &i), -EAGAIN);
	memset(&i, 0xee, sizeof(i));
	EXPECT_EQ(mpa_parse(f, 30, false, &i), -EOPNOTSUPP);
	EXPECT_EQ(i.rev, 2);
	EXPECT_EQ(i.flags, 0x90);
	EXPECT_TRUE(i.v2);
	EXPECT_EQ(i.v2_ird_bits, 0x8000);
	EXPECT_EQ(i.pd_len, 6);
	f[16] = 0x80;
	memset(&i, 0xee, sizeof(i));
	EXPECT_EQ(mpa_parse(f, 30, false, &i), -EOPNOTSUPP);
	EXPECT_FALSE(i.v2);
	EXPECT_EQ(i.pd_len, 10);
	/* A bad frame stays bad, markers or not */
	f[16] = 0x90;
	f[19] = 0x02;
	EXPECT_EQ(mpa_parse(f, 22, false, &i), -EBADMSG);
	f[18] = 0x02;
	EXPECT_EQ(mpa_parse(f, 22, false, &i), -EBADMSG);
}

UNIT_TEST(siw_wire, mpa_parse_reserved_flags_ignored)
{
	struct siw_mpa_info i;
	unsigned int r;
	u8 f[30];

	/* RFC 5044 7.1: Res "not checked on reception"; E is not one of them */
	memcpy(f, mpa_req_v1, 25);
	f[16] = 0x4f;
	ASSERT_EQ(mpa_parse(f, 25, false, &i), 25);
	EXPECT_EQ(i.flags, 0x40);
	f[16] = 0x01;
	ASSERT_EQ(mpa_parse(f, 25, false, &i), 25);
	EXPECT_EQ(i.flags, 0x00);
	memcpy(f, mpa_rep_v2_reject, 22);
	f[16] = 0x3f;
	ASSERT_EQ(mpa_parse(f, 22, true, &i), 22);
	EXPECT_EQ(i.flags, 0x30);
	EXPECT_FALSE(i.v2);

	/* Any mix of them leaves the block where E says it is */
	for (r = 0x01; r <= 0x0f; r++) {
		memcpy(f, mpa_req_v2, 30);
		f[16] = 0x50 | r;
		memset(&i, 0xee, sizeof(i));
		if (!EXPECT_EQ(mpa_parse(f, 30, false, &i), 30)) {
			printf("    # flags 0x%02x\n", f[16]);
			continue;
		}
		EXPECT_EQ(i.flags, 0x50);
		EXPECT_TRUE(i.v2);
		EXPECT_EQ(i.pd_off, 24);
		EXPECT_EQ(i.pd_len, 6);

		f[16] = 0x40 | r;
		memset(&i, 0xee, sizeof(i));
		if (!EXPECT_EQ(mpa_parse(f, 30, false, &i), 30)) {
			printf("    # flags 0x%02x\n", f[16]);
			continue;
		}
		EXPECT_EQ(i.flags, 0x40);
		EXPECT_FALSE(i.v2);
		EXPECT_EQ(i.pd_off, 20);
		EXPECT_EQ(i.pd_len, 10);
	}
}

static void incomplete(const u8 *f, unsigned int len, bool reply)
{
	struct siw_mpa_info i;
	unsigned int n;

	for (n = 0; n < len; n++)
		if (!EXPECT_EQ(mpa_parse(f, n, reply, &i), -EAGAIN))
			printf("    # prefix of %u bytes\n", n);
	EXPECT_EQ(mpa_parse(f, len, reply, &i), len);
}

UNIT_TEST(siw_wire, mpa_parse_incomplete)
{
	incomplete(mpa_req_v1, 25, false);
	incomplete(mpa_rep_v1, 23, true);
	incomplete(mpa_req_v2, 30, false);
	incomplete(mpa_rep_v2_reject, 22, true);
	incomplete(mpa_req_v2_plain, 30, false);
}

UNIT_TEST(siw_wire, mpa_parse_wrong_key_prefix)
{
	struct siw_mpa_info i;
	unsigned int k, n;
	u8 f[30];

	/* Refused as soon as the first wrong byte of the key is in */
	for (k = 0; k < 16; k++) {
		memcpy(f, mpa_req_v2, 30);
		f[k] = '?';
		for (n = 0; n <= k; n++)
			if (!EXPECT_EQ(mpa_parse(f, n, false, &i), -EAGAIN))
				printf("    # key byte %u, %u bytes\n", k, n);
		for (n = k + 1; n <= 30; n++)
			if (!EXPECT_EQ(mpa_parse(f, n, false, &i), -EBADMSG))
				printf("    # key byte %u, %u bytes\n", k, n);
	}
}

/* ---- siw_mpa_build --------------------------------------------------------- */

UNIT_TEST(siw_wire, mpa_build_exact_bytes)
{
	/* C as asked, E for the block */
	static const u8 want_rep[27] =
		"MPA ID Rep Frame\x50\x02\x00\x07\x80\x04\x00\x02xyz";
	static const u8 want_req[20] = "MPA ID Req Frame\x00\x01\x00\x00";
	static const u8 want_rej[22] =
		"MPA ID Rep Frame\x20\x01\x00\x02\xbe\xef";
	struct siw_mpa_v2 v2 = {
		.ird = cpu_to_be16(0x8004),	/* P2P, IRD 4 */
		.ord = cpu_to_be16(0x0002),	/* ORD 2 */
	};
	static const u8 rej_pd[2] = { 0xbe, 0xef };
	u8 buf[40];

	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, true, SIW_MPA_F_CRC, SIW_MPA_REV2, &v2,
				"xyz", 3), 27);
	EXPECT_MEMEQ(buf, want_rep, 27);
	EXPECT_EQ(buf[27], 0xa5);

	/* E given as well: the same frame */
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, true, SIW_MPA_F_CRC | SIW_MPA_F_ENHANCED,
				SIW_MPA_REV2, &v2, "xyz", 3), 27);
	EXPECT_MEMEQ(buf, want_rep, 27);
	EXPECT_EQ(buf[27], 0xa5);

	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, false, 0, SIW_MPA_REV1, NULL, NULL, 0), 20);
	EXPECT_MEMEQ(buf, want_req, 20);
	EXPECT_EQ(buf[20], 0xa5);

	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, true, SIW_MPA_F_REJECT, SIW_MPA_REV1, NULL,
				rej_pd, 2), 22);
	EXPECT_MEMEQ(buf, want_rej, 22);
	EXPECT_EQ(buf[22], 0xa5);
}

/* Without a block the flags go out as the caller gave them. */
UNIT_TEST(siw_wire, mpa_build_flags_without_block)
{
	static const u8 want_plain[24] =
		"MPA ID Req Frame\x40\x02\x00\x04\x00\x01\x80\x02";
	static const u8 want_res[21] = "MPA ID Req Frame\x0f\x01\x00\x01\x07";
	static const u8 pd4[4] = { 0x00, 0x01, 0x80, 0x02 };
	static const u8 pd2[2] = { 0xde, 0xad };
	static const u8 pd1[1] = { 0x07 };
	u8 buf[40];

	/* Revision 2, no block: no E added, the four bytes are ULP data */
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, false, 0x40, SIW_MPA_REV2, NULL, pd4, 4),
		  24);
	EXPECT_MEMEQ(buf, want_plain, 24);
	EXPECT_EQ(buf[24], 0xa5);

	/* E asked for without a block (a rejecting reply): kept */
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, true, 0x30, SIW_MPA_REV2, NULL, pd2, 2),
		  22);
	EXPECT_MEMEQ(buf, mpa_rep_v2_reject, 22);
	EXPECT_EQ(buf[22], 0xa5);

	/* Reserved bits are not the builder's to clear */
	memset(buf, 0xa5, sizeof(buf));
	EXPECT_EQ(siw_mpa_build(buf, false, 0x0f, SIW_MPA_REV1, NULL, pd1, 1),
		  21);
	EXPECT_MEMEQ(buf, want_res, 21);
	EXPECT_EQ(buf[21], 0xa5);
}

/* One frame built, then parsed back */
struct mpa_trip {
	bool	reply;
	u8	flags;		/* given to siw_mpa_build() */
	u8	rev;
	bool	v2;		/* with a block */
	u16	ird;
	u16	ord;
	u16	pd_len;
	u8	wire;		/* byte 16 as built */
	u8	parsed;		/* info->flags as parsed back */
};

static void round_trip(const struct mpa_trip *t, unsigned int k)
{
	struct siw_mpa_v2 v2 = { cpu_to_be16(t->ird), cpu_to_be16(t->ord) };
	unsigned int all = 20 + (t->v2 ? 4 : 0) + t->pd_len;
	u8 *buf = malloc(all);
	struct siw_mpa_info i;
	bool ok = true;
	u8 pd[512];
	unsigned int n;

	for (n = 0; n < t->pd_len; n++)
		pd[n] = n * 7 + 1;
	ok &= EXPECT_EQ(siw_mpa_build(buf, t->reply, t->flags, t->rev,
				      t->v2 ? &v2 : NULL, pd, t->pd_len), all);
	if (!ok)
		goto out;
	ok &= EXPECT_EQ(buf[16], t->wire);
	memset(&i, 0xee, sizeof(i));
	ok &= EXPECT_EQ(mpa_parse(buf, all, t->reply, &i), all);
	if (!ok)
		goto out;
	ok &= EXPECT_EQ(i.flags, t->parsed);
	ok &= EXPECT_EQ(i.rev, t->rev);
	ok &= EXPECT_EQ(i.v2, t->v2);
	if (!EXPECT_EQ(i.pd_off, t->v2 ? 24 : 20) ||
	    !EXPECT_EQ(i.pd_len, t->pd_len))
		ok = false;
	else
		ok &= EXPECT_MEMEQ(buf + i.pd_off, pd, t->pd_len);
	if (t->v2) {
		ok &= EXPECT_EQ(i.ird, t->ird & 0x3fff);
		ok &= EXPECT_EQ(i.ord, t->ord & 0x3fff);
		ok &= EXPECT_EQ(i.v2_ird_bits, t->ird & 0xc000);
		ok &= EXPECT_EQ(i.v2_ord_bits, t->ord & 0xc000);
	}
out:
	if (!ok)
		printf("    # round trip %u\n", k);
	free(buf);
}

UNIT_TEST(siw_wire, mpa_build_round_trip)
{
	static const struct mpa_trip trips[] = {
		/* reply flags rev v2 ird ord pd_len -> wire parsed */
		{ false, 0x00, 1, false, 0, 0, 0, 0x00, 0x00 },
		{ false, 0x40, 1, false, 0, 0, 1, 0x40, 0x40 },
		{ true, 0x40, 1, false, 0, 0, 512, 0x40, 0x40 },
		{ true, 0x20, 1, false, 0, 0, 17, 0x20, 0x20 },
		{ true, 0x20, 2, false, 0, 0, 0, 0x20, 0x20 },
		{ true, 0x20, 2, false, 0, 0, 3, 0x20, 0x20 },
		{ false, 0x40, 2, true, 0x8010, 0x4008, 6, 0x50, 0x50 },
		{ true, 0x00, 2, true, 0x7fff, 0xc000, 0, 0x10, 0x10 },
		{ true, 0x5f, 2, true, 0x0001, 0x0001, 508, 0x5f, 0x50 },
		{ false, 0x1f, 1, false, 0, 0, 100, 0x1f, 0x10 },
		/* E given with the block: once */
		{ false, 0x50, 2, true, 0x0004, 0x0004, 2, 0x50, 0x50 },
		/* revision 2 without E: all ULP data */
		{ true, 0x40, 2, false, 0, 0, 8, 0x40, 0x40 },
		/* an enhanced rejecting reply without the block */
		{ true, 0x30, 2, false, 0, 0, 0, 0x30, 0x30 },
		{ true, 0x30, 2, false, 0, 0, 3, 0x30, 0x30 },
		/* R in a request goes out, and is read as clear */
		{ false, 0x20, 2, true, 0x0002, 0x0003, 1, 0x30, 0x10 },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(trips); k++)
		round_trip(&trips[k], k);
}

UNIT_TEST(siw_wire, mpa_build_then_too_long)
{
	struct siw_mpa_v2 v2 = { cpu_to_be16(1), cpu_to_be16(1) };
	u8 *buf = malloc(20 + 4 + 509);
	struct siw_mpa_info i;
	u8 pd[509] = {};

	/* 509 bytes with the block make 513: not a frame to send */
	EXPECT_EQ(siw_mpa_build(buf, false, 0, 2, &v2, pd, 509), 533);
	EXPECT_EQ(buf[16], 0x10);
	EXPECT_EQ(buf[18], 0x02);
	EXPECT_EQ(buf[19], 0x01);
	EXPECT_EQ(mpa_parse(buf, 533, false, &i), -EBADMSG);
	free(buf);
}

/* ---- Terminate control word (RFC 5040 4.8) -------------------------------- */

UNIT_TEST(siw_wire, term_ctrl_layout)
{
	static const struct {
		struct siw_term_info t;
		u16 flags;
		u8 want[4];
	} cases[] = {
		/* RDMAP, remote operation, unexpected opcode; D and R */
		{ { 0, 2, 0x06 }, 0x6000, { 0x02, 0x06, 0x60, 0x00 } },
		/* DDP, untagged buffer, invalid QN; M and D */
		{ { 1, 2, 0x01 }, 0xc000, { 0x12, 0x01, 0xc0, 0x00 } },
		/* DDP, tagged buffer, invalid DDP version; M, D, R */
		{ { 1, 1, 0x04 }, 0xe000, { 0x11, 0x04, 0xe0, 0x00 } },
		/* MPA, CRC error; nothing copied */
		{ { 2, 0, 0x02 }, 0x0000, { 0x20, 0x02, 0x00, 0x00 } },
		/* RDMAP, remote protection, unspecified; M only */
		{ { 0, 1, 0xff }, 0x8000, { 0x01, 0xff, 0x80, 0x00 } },
		/* RDMAP, local catastrophic; R only */
		{ { 0, 0, 0x00 }, 0x2000, { 0x00, 0x00, 0x20, 0x00 } },
		/* every field at its widest */
		{ { 15, 15, 0xff }, 0xe000, { 0xff, 0xff, 0xe0, 0x00 } },
		/* the reserved header-flag bits never reach the wire */
		{ { 1, 2, 0x01 }, 0xdfff, { 0x12, 0x01, 0xc0, 0x00 } },
	};
	unsigned int k;
	u8 w[4];

	for (k = 0; k < ARRAY_SIZE(cases); k++) {
		put_unaligned_be32(siw_term_ctrl(&cases[k].t, cases[k].flags), w);
		if (!EXPECT_MEMEQ(w, cases[k].want, 4))
			printf("    # case %u: %02x %02x %02x %02x\n", k,
			       w[0], w[1], w[2], w[3]);
	}
	EXPECT_EQ(SIW_TERM_HDR_MPA, 0x8000);
	EXPECT_EQ(SIW_TERM_HDR_DDP, 0x4000);
	EXPECT_EQ(SIW_TERM_HDR_RDMAP, 0x2000);
}

/*
 * Which reasons are about a tagged buffer the peer named (an access error
 * for the QP's owner) and which about the stream itself.
 */
UNIT_TEST(siw_wire, term_protection)
{
	static const struct {
		struct siw_term_info t;
		bool want;
	} cases[] = {
		{ { SIW_TERM_RDMAP, SIW_ET_RDMAP_PROTECTION,
		    SIW_EC_RDMAP_INVALID_STAG }, true },
		{ { SIW_TERM_RDMAP, SIW_ET_RDMAP_PROTECTION,
		    SIW_EC_RDMAP_BOUNDS }, true },
		{ { SIW_TERM_RDMAP, SIW_ET_RDMAP_OPERATION,
		    SIW_EC_RDMAP_OPCODE }, false },
		{ { SIW_TERM_RDMAP, SIW_ET_RDMAP_CATASTROPHIC, 0 }, false },
		{ { SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
		    SIW_EC_DDP_T_INVALID_STAG }, true },
		{ { SIW_TERM_DDP, SIW_ET_DDP_TAGGED, SIW_EC_DDP_T_BOUNDS },
		  true },
		{ { SIW_TERM_DDP, SIW_ET_DDP_TAGGED, SIW_EC_DDP_T_TO_WRAP },
		  true },
		/* a bad version is the stream's fault, tagged or not */
		{ { SIW_TERM_DDP, SIW_ET_DDP_TAGGED, SIW_EC_DDP_T_VERSION },
		  false },
		{ { SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED, SIW_EC_DDP_U_QN },
		  false },
		{ { SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
		    SIW_EC_DDP_U_NO_BUFFER }, false },
		/* MPA's type 0 has the number RDMAP's protection type has not */
		{ { SIW_TERM_MPA, 1, SIW_EC_MPA_CRC }, false },
		{ { SIW_TERM_MPA, 0, SIW_EC_MPA_CRC }, false },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(cases); k++)
		if (!EXPECT_EQ(siw_term_protection(&cases[k].t), cases[k].want))
			printf("    # case %u\n", k);
}

/* A Terminate whose ULPDU has no room for its 4-byte control word */
UNIT_TEST(siw_wire, hdr_check_terminate_without_control_word)
{
	struct siw_term_info t = { 0xee, 0xee, 0xee };
	struct siw_hdr_info i;
	u8 h[24];

	memcpy(h, hdr_term, 24);
	h[1] = 0x12;			/* ULPDU 18: the header alone */
	EXPECT_EQ(siw_hdr_check(h, 20, &i, &t), -EPROTO);
	EXPECT_EQ(t.layer, 0);
	EXPECT_EQ(t.etype, 2);
	EXPECT_EQ(t.ecode, 0xff);
	h[1] = 0x15;			/* 21: three bytes of it */
	EXPECT_EQ(siw_hdr_check(h, 20, &i, &t), -EPROTO);
}
