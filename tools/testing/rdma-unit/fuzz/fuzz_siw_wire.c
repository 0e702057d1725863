// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the soft-iWARP wire checks of
 * drivers/infiniband/sw/siw/siw_wire.c.
 *
 * Input: any bytes, read three ways, each time from a heap block of
 * exactly the input's size so that AddressSanitizer sees any read past
 * it: as an FPDU header (siw_hdr_check()), as an MPA request and as an MPA
 * reply (siw_mpa_parse()).
 *
 * Each answer is compared with a model written here from RFC 5040, 5041,
 * 5044 and 6581 that reads the raw bytes itself.  That the revision 2
 * IRD/ORD block is there only when an MPA frame has the enhanced flag
 * (0x10) is the rule of Linux's siw, not of an RFC.  Accepted headers must
 * give the length siw_hdr_len() announces and are then read through the
 * driver's structures from an exact-size copy; accepted MPA frames must be
 * rebuilt byte for byte by siw_mpa_build() and parse again to the same.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/unaligned.h>
#include "../../../../drivers/infiniband/sw/siw/siw_wire.h"
#include "fuzz.h"

/* Where the values read go, so that the reads are not optimised away. */
u64 fuzz_siw_sink;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

static u8 *isolate(const u8 *p, size_t n)
{
	u8 *c = malloc(n ? n : 1);

	if (n)
		memcpy(c, p, n);
	return c;
}

static unsigned int rd16(const u8 *p)
{
	return p[0] << 8 | p[1];
}

static u32 rd32(const u8 *p)
{
	return (u32)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3];
}

static u64 rd64(const u8 *p)
{
	return (u64)rd32(p) << 32 | rd32(p + 4);
}

/* ---- FPDU headers ---------------------------------------------------------- */

/* Header length by RFC 5040 4.2 and 5: tagged ops 16, READ req 48, else 20 */
static int model_hdr_len(u8 ddp, u8 rdmap)
{
	bool tagged = ddp & 0x80;

	switch (rdmap & 0x0f) {
	case 0:		/* RDMA Write */
	case 2:		/* RDMA Read Response */
		return tagged ? 16 : -1;
	case 1:		/* RDMA Read Request */
		return tagged ? -1 : 48;
	case 3: case 4: case 5: case 6: case 7:	/* Sends, Terminate */
		return tagged ? -1 : 20;
	default:
		return -1;
	}
}

struct model_term {
	int layer, etype, ecode;	/* ecode -1: any RFC 5044 8 code */
};

static int refuse(struct model_term *t, int layer, int etype, int ecode)
{
	t->layer = layer;
	t->etype = etype;
	t->ecode = ecode;
	return -EPROTO;
}

/* siw_hdr_check() as its comment and the RFCs describe it */
static int model_hdr(const u8 *m, size_t n, struct model_term *t)
{
	unsigned int ulpdu;
	u8 ddp, rdmap, op;
	u32 qn;
	int hl;

	if (n < 4)
		return refuse(t, 1, 0, 0);
	ddp = m[2];
	rdmap = m[3];
	op = rdmap & 0x0f;
	if ((ddp & 0x03) != 1)
		return ddp & 0x80 ? refuse(t, 1, 1, 0x04) : refuse(t, 1, 2, 0x06);
	if ((rdmap & 0xc0) != 0x40)
		return refuse(t, 0, 2, 0x05);
	hl = model_hdr_len(ddp, rdmap);
	if (hl < 0)
		return refuse(t, 0, 2, 0x06);
	if (n < (size_t)hl)
		return refuse(t, 1, 0, 0);
	ulpdu = rd16(m);
	if (ulpdu + 2 < (unsigned int)hl)
		return refuse(t, 2, 0, -1);
	if (ddp & 0x80)
		return 0;
	qn = rd32(m + 8);
	if (qn != (op == 1 ? 1u : op == 7 ? 2u : 0u))
		return refuse(t, 1, 2, 0x01);
	if ((op == 1 || op == 7) && (!(ddp & 0x40) || rd32(m + 16)))
		return refuse(t, 1, 2, 0x04);
	if (op == 1 && ulpdu != 46)
		return refuse(t, 0, 2, 0xff);
	if (op == 7 && ulpdu < 18 + 4)
		return refuse(t, 0, 2, 0xff);
	return 0;
}

/* Read an accepted header through the driver's structures. */
static void use_hdr(const u8 *m, const struct siw_hdr_info *info)
{
	u8 *h = isolate(m, info->hdr_len);
	u64 sink = 0;

	if (info->tagged) {
		const struct siw_hdr_tagged *t = (const void *)h;

		FUZZ_CHECK(get_unaligned_be32(&t->stag) == rd32(m + 4));
		FUZZ_CHECK(get_unaligned_be64(&t->to) == rd64(m + 8));
		sink += get_unaligned_be64(&t->to);
	} else {
		const struct siw_hdr_untagged *u = (const void *)h;

		FUZZ_CHECK(get_unaligned_be32(&u->inv_stag) == rd32(m + 4));
		FUZZ_CHECK(get_unaligned_be32(&u->qn) == rd32(m + 8));
		FUZZ_CHECK(get_unaligned_be32(&u->msn) == rd32(m + 12));
		FUZZ_CHECK(get_unaligned_be32(&u->mo) == rd32(m + 16));
		sink += get_unaligned_be32(&u->msn);
	}
	if (info->op == SIW_RDMAP_READ_REQ) {
		const struct siw_read_req *r = (const void *)(h + 20);

		FUZZ_CHECK(get_unaligned_be32(&r->sink_stag) == rd32(m + 20));
		FUZZ_CHECK(get_unaligned_be64(&r->sink_to) == rd64(m + 24));
		FUZZ_CHECK(get_unaligned_be32(&r->size) == rd32(m + 32));
		FUZZ_CHECK(get_unaligned_be32(&r->src_stag) == rd32(m + 36));
		FUZZ_CHECK(get_unaligned_be64(&r->src_to) == rd64(m + 40));
		sink += get_unaligned_be32(&r->size);
	}
	fuzz_siw_sink += sink;
	free(h);
}

static void fuzz_hdr(const u8 *data, size_t size)
{
	struct siw_term_info term = { 0xee, 0xee, 0xee };
	struct model_term want;
	struct siw_hdr_info info;
	u8 *m = isolate(data, size);
	unsigned int pad;
	u16 hflags;
	u32 ctrl;
	int ret;

	ret = siw_hdr_check(m, size, &info, &term);
	FUZZ_CHECK(ret == model_hdr(data, size, &want));
	if (ret) {
		FUZZ_CHECK(term.layer == want.layer);
		FUZZ_CHECK(term.etype == want.etype);
		if (want.ecode >= 0)
			FUZZ_CHECK(term.ecode == want.ecode);
		else
			FUZZ_CHECK(term.ecode >= 0x01 && term.ecode <= 0x04);
		/* The Terminate control word of RFC 5040 4.8 */
		hflags = size ? (data[0] & 0xe0) << 8 : 0;
		ctrl = siw_term_ctrl(&term, hflags);
		FUZZ_CHECK(ctrl >> 28 == term.layer);
		FUZZ_CHECK((ctrl >> 24 & 0x0f) == term.etype);
		FUZZ_CHECK((ctrl >> 16 & 0xff) == term.ecode);
		FUZZ_CHECK((ctrl & 0xffff) == hflags);
		free(m);
		return;
	}
	FUZZ_CHECK(info.hdr_len == siw_hdr_len(data[2], data[3]));
	FUZZ_CHECK(info.hdr_len <= size);
	FUZZ_CHECK(info.payload == rd16(data) + 2 - info.hdr_len);
	FUZZ_CHECK(info.op == (data[3] & 0x0f));
	FUZZ_CHECK(info.tagged == !!(data[2] & 0x80));
	FUZZ_CHECK(info.last == !!(data[2] & 0x40));
	if (info.op == SIW_RDMAP_READ_REQ)
		FUZZ_CHECK(info.payload == 0 && info.last);
	pad = siw_fpdu_pad(rd16(data));
	FUZZ_CHECK(pad < 4 && (2 + rd16(data) + pad) % 4 == 0);
	use_hdr(m, &info);
	free(m);
}

/* ---- MPA request and reply ------------------------------------------------- */

static const u8 key_req[16] = "MPA ID Req Frame";
static const u8 key_rep[16] = "MPA ID Rep Frame";

static int parse_exact(const u8 *p, size_t n, bool reply,
		       struct siw_mpa_info *info)
{
	u8 *c = isolate(p, n);
	int ret = siw_mpa_parse(c, n, reply, info);

	free(c);
	return ret;
}

static void same_info(const struct siw_mpa_info *a,
		      const struct siw_mpa_info *b)
{
	FUZZ_CHECK(a->flags == b->flags && a->rev == b->rev);
	FUZZ_CHECK(a->pd_len == b->pd_len && a->pd_off == b->pd_off);
	FUZZ_CHECK(a->v2 == b->v2);
	if (a->v2)
		FUZZ_CHECK(a->ird == b->ird && a->ord == b->ord &&
			   a->v2_ird_bits == b->v2_ird_bits &&
			   a->v2_ord_bits == b->v2_ord_bits);
}

/* Rebuild an accepted frame: the same bytes, the same reading. */
static void rebuild(const u8 *m, int len, bool reply,
		    const struct siw_mpa_info *info)
{
	struct siw_mpa_info again;
	struct siw_mpa_v2 v2;
	u8 *b = malloc(len);

	memcpy(&v2, m + 20, info->v2 ? sizeof(v2) : 0);
	FUZZ_CHECK(siw_mpa_build(b, reply, m[16], m[17],
				 info->v2 ? &v2 : NULL, m + info->pd_off,
				 info->pd_len) == (unsigned int)len);
	FUZZ_CHECK(!memcmp(b, m, len));
	/* With the block the builder sets the enhanced flag itself. */
	if (info->v2) {
		memset(b, 0, len);
		FUZZ_CHECK(siw_mpa_build(b, reply, m[16] & ~0x10, m[17], &v2,
					 m + 24, info->pd_len) ==
			   (unsigned int)len);
		FUZZ_CHECK(!memcmp(b, m, len));
	}
	FUZZ_CHECK(parse_exact(b, len, reply, &again) == len);
	same_info(info, &again);
	free(b);
}

static void fuzz_mpa(const u8 *data, size_t size, bool reply)
{
	const u8 *key = reply ? key_rep : key_req;
	struct siw_mpa_info info;
	unsigned int field;
	bool enhanced, v2;
	u8 flags, rev;
	int ret;

	ret = parse_exact(data, size, reply, &info);
	if (memcmp(data, key, size < 16 ? size : 16)) {
		FUZZ_CHECK(ret == -EBADMSG);
		return;
	}
	if (size < 20) {
		FUZZ_CHECK(ret == -EAGAIN);
		return;
	}
	flags = data[16];
	rev = data[17];
	field = rd16(data + 18);
	if ((rev != 1 && rev != 2) || field > 512) {
		FUZZ_CHECK(ret == -EBADMSG);
		return;
	}
	/* R in a request: RFC 5044 7.1 says not checked on reception. */
	if (!reply)
		flags &= ~0x20;
	if (size < 20 + field) {
		FUZZ_CHECK(ret == -EAGAIN);
		return;
	}
	/*
	 * Only an enhanced revision 2 frame has the block, and it must hold
	 * it unless it is a reply that rejects.
	 */
	enhanced = rev == 2 && (flags & 0x10);
	if (enhanced && field < 4 && !(flags & 0x20)) {
		FUZZ_CHECK(ret == -EBADMSG);
		return;
	}

	/*
	 * Markers are refused only now that the frame is whole and right, and
	 * info still says what it holds (the refusal answers in its terms).
	 */
	FUZZ_CHECK(ret == ((flags & 0x80) ? -EOPNOTSUPP : (int)(20 + field)));
	/* Reserved bits 0x0f dropped, M C E kept; R only in a reply */
	FUZZ_CHECK(info.flags == (flags & 0xf0));
	FUZZ_CHECK(info.rev == rev);
	v2 = enhanced && field >= 4;
	FUZZ_CHECK(info.v2 == v2);
	FUZZ_CHECK(info.pd_off == (v2 ? 24 : 20));
	FUZZ_CHECK(info.pd_len == field - (v2 ? 4 : 0));
	FUZZ_CHECK(info.pd_off + info.pd_len == 20 + field);
	if (v2) {
		FUZZ_CHECK(info.ird == (rd16(data + 20) & 0x3fff));
		FUZZ_CHECK(info.ord == (rd16(data + 22) & 0x3fff));
		FUZZ_CHECK(info.v2_ird_bits == (rd16(data + 20) & 0xc000));
		FUZZ_CHECK(info.v2_ord_bits == (rd16(data + 22) & 0xc000));
	}
	/* One byte less is a frame still coming in */
	FUZZ_CHECK(parse_exact(data, 19 + field, reply, &info) == -EAGAIN);
	if (flags & 0x80)
		return;
	ret = parse_exact(data, size, reply, &info);
	rebuild(data, ret, reply, &info);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 0x10000)
		return 0;
	fuzz_hdr(data, size);
	fuzz_mpa(data, size, false);
	fuzz_mpa(data, size, true);
	return 0;
}
