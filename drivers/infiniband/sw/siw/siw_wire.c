// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP wire formats: checks of FPDU headers and MPA frames, and the
 * frames siw sends.  Pure functions over byte buffers (see siw_wire.h),
 * shared with the user-space unit tests and fuzzers.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/unaligned.h>

#include "siw_wire.h"

/* Header length of each RDMAP opcode, and whether its segments are tagged */
static const struct {
	u8	len;
	bool	tagged;
} siw_op_hdr[SIW_RDMAP_NUM_OPS] = {
	[SIW_RDMAP_WRITE]	= { SIW_HDR_TAGGED_LEN, true },
	[SIW_RDMAP_READ_REQ]	= { SIW_HDR_UNTAGGED_LEN + SIW_READ_REQ_LEN },
	[SIW_RDMAP_READ_RESP]	= { SIW_HDR_TAGGED_LEN, true },
	[SIW_RDMAP_SEND]	= { SIW_HDR_UNTAGGED_LEN },
	[SIW_RDMAP_SEND_INV]	= { SIW_HDR_UNTAGGED_LEN },
	[SIW_RDMAP_SEND_SE]	= { SIW_HDR_UNTAGGED_LEN },
	[SIW_RDMAP_SEND_SE_INV]	= { SIW_HDR_UNTAGGED_LEN },
	[SIW_RDMAP_TERMINATE]	= { SIW_HDR_UNTAGGED_LEN },
};

/* The untagged queue each untagged opcode must arrive on */
static const u8 siw_op_qn[SIW_RDMAP_NUM_OPS] = {
	[SIW_RDMAP_READ_REQ]	= SIW_QN_READ,
	[SIW_RDMAP_SEND]	= SIW_QN_SEND,
	[SIW_RDMAP_SEND_INV]	= SIW_QN_SEND,
	[SIW_RDMAP_SEND_SE]	= SIW_QN_SEND,
	[SIW_RDMAP_SEND_SE_INV]	= SIW_QN_SEND,
	[SIW_RDMAP_TERMINATE]	= SIW_QN_TERM,
};

/**
 * siw_hdr_len() - FPDU header length announced by the first two control bytes
 * @ddp: DDP control byte
 * @rdmap: RDMAP control byte
 *
 * Return: the length of the whole header, ULPDU length field included, or
 * -EINVAL for an opcode RDMAP does not define or one whose T bit
 * contradicts it.  Versions are checked by siw_hdr_check().
 */
int siw_hdr_len(u8 ddp, u8 rdmap)
{
	u8 op = rdmap & SIW_RDMAP_OP_MASK;

	if (op >= SIW_RDMAP_NUM_OPS)
		return -EINVAL;
	if (!!(ddp & SIW_DDP_TAGGED) != siw_op_hdr[op].tagged)
		return -EINVAL;
	return siw_op_hdr[op].len;
}

static int siw_hdr_bad(struct siw_term_info *term, u8 layer, u8 etype,
		       u8 ecode)
{
	term->layer = layer;
	term->etype = etype;
	term->ecode = ecode;
	return -EPROTO;
}

/**
 * siw_hdr_check() - check a complete FPDU header off the wire
 * @hdr: the header, ULPDU length field first
 * @len: bytes at @hdr (at least what siw_hdr_len() asked for)
 * @info: filled in on success
 * @term: on failure, the Terminate reason to send
 *
 * Checks the DDP and RDMAP versions, the opcode against the T bit, the
 * queue number of untagged segments, that the ULPDU holds at least the
 * header, that a READ request fits one segment and that a Terminate comes
 * in one segment with a zero message offset and holds its control word.  What depends on connection
 * state (MSN, MO, STags) is the receive path's business.
 *
 * Return: 0, or -EPROTO with @term set.
 */
int siw_hdr_check(const void *hdr, unsigned int len, struct siw_hdr_info *info,
		  struct siw_term_info *term)
{
	const struct siw_hdr_common *c = hdr;
	const struct siw_hdr_untagged *u = hdr;
	unsigned int ulpdu;
	int hlen;
	u8 op;

	if (len < sizeof(*c))
		return siw_hdr_bad(term, SIW_TERM_DDP, SIW_ET_DDP_CATASTROPHIC,
				   SIW_EC_DDP_CAT_LOCAL);
	op = c->rdmap & SIW_RDMAP_OP_MASK;
	if ((c->ddp & SIW_DDP_VER_MASK) != SIW_DDP_VER)
		return siw_hdr_bad(term, SIW_TERM_DDP,
				   c->ddp & SIW_DDP_TAGGED ?
				   SIW_ET_DDP_TAGGED : SIW_ET_DDP_UNTAGGED,
				   c->ddp & SIW_DDP_TAGGED ?
				   SIW_EC_DDP_T_VERSION : SIW_EC_DDP_U_VERSION);
	if ((c->rdmap & SIW_RDMAP_VER_MASK) != SIW_RDMAP_VER)
		return siw_hdr_bad(term, SIW_TERM_RDMAP, SIW_ET_RDMAP_OPERATION,
				   SIW_EC_RDMAP_VERSION);
	hlen = siw_hdr_len(c->ddp, c->rdmap);
	if (hlen < 0)
		return siw_hdr_bad(term, SIW_TERM_RDMAP, SIW_ET_RDMAP_OPERATION,
				   SIW_EC_RDMAP_OPCODE);
	if ((unsigned int)hlen > len)
		return siw_hdr_bad(term, SIW_TERM_DDP, SIW_ET_DDP_CATASTROPHIC,
				   SIW_EC_DDP_CAT_LOCAL);
	ulpdu = get_unaligned_be16(&c->mpa_len);
	if (ulpdu + SIW_MPA_LEN_BYTES < (unsigned int)hlen)
		return siw_hdr_bad(term, SIW_TERM_MPA, 0, SIW_EC_MPA_REQ_REP);

	if (!(c->ddp & SIW_DDP_TAGGED)) {
		u32 qn = get_unaligned_be32(&u->qn);

		if (qn != siw_op_qn[op])
			return siw_hdr_bad(term, SIW_TERM_DDP,
					   SIW_ET_DDP_UNTAGGED,
					   SIW_EC_DDP_U_QN);
		/* READ requests and Terminates are single-segment messages */
		if (op == SIW_RDMAP_READ_REQ || op == SIW_RDMAP_TERMINATE) {
			if (!(c->ddp & SIW_DDP_LAST) ||
			    get_unaligned_be32(&u->mo))
				return siw_hdr_bad(term, SIW_TERM_DDP,
						   SIW_ET_DDP_UNTAGGED,
						   SIW_EC_DDP_U_MO);
		}
		if (op == SIW_RDMAP_READ_REQ &&
		    ulpdu + SIW_MPA_LEN_BYTES != (unsigned int)hlen)
			return siw_hdr_bad(term, SIW_TERM_RDMAP,
					   SIW_ET_RDMAP_OPERATION,
					   SIW_EC_RDMAP_UNSPECIFIED);
		/* A Terminate carries at least its control word. */
		if (op == SIW_RDMAP_TERMINATE &&
		    ulpdu + SIW_MPA_LEN_BYTES < (unsigned int)hlen + 4)
			return siw_hdr_bad(term, SIW_TERM_RDMAP,
					   SIW_ET_RDMAP_OPERATION,
					   SIW_EC_RDMAP_UNSPECIFIED);
	}

	info->op = op;
	info->tagged = c->ddp & SIW_DDP_TAGGED;
	info->last = c->ddp & SIW_DDP_LAST;
	info->hdr_len = hlen;
	info->payload = ulpdu + SIW_MPA_LEN_BYTES - hlen;
	return 0;
}

/* Read the revision 2 block at @blk into @info, out of its private data. */
static void siw_mpa_take_v2(struct siw_mpa_info *info, const u8 *blk)
{
	u16 ird = get_unaligned_be16(blk);
	u16 ord = get_unaligned_be16(blk + 2);

	info->v2 = true;
	info->ird = ird & SIW_MPA_V2_DEPTH;
	info->ord = ord & SIW_MPA_V2_DEPTH;
	info->v2_ird_bits = ird & ~SIW_MPA_V2_DEPTH;
	info->v2_ord_bits = ord & ~SIW_MPA_V2_DEPTH;
	info->pd_off += SIW_MPA_V2_LEN;
	info->pd_len -= SIW_MPA_V2_LEN;
}

/**
 * siw_mpa_parse() - check an MPA request or reply
 * @buf: the frame, starting with its key
 * @len: bytes at @buf; may hold less than the whole private data
 * @reply: expect a reply (else a request)
 * @info: what the frame says
 *
 * Checks the key, the reserved flag bits (ignored, as RFC 5044 asks), the
 * revision, the private data length and, for an enhanced revision 2 frame
 * (SIW_MPA_F_ENHANCED), that the private data starts with the IRD/ORD
 * block.  Markers are refused since siw never uses them.
 *
 * Return: the frame's whole length once @len covers it; -EAGAIN when only
 * the first @len bytes are in so far and look right; -EBADMSG for a
 * wrong key, revision or length; -EOPNOTSUPP for a whole frame that is
 * right but asks for markers (@info then says what else it holds).
 */
int siw_mpa_parse(const void *buf, unsigned int len, bool reply,
		  struct siw_mpa_info *info)
{
	const struct siw_mpa_frame *f = buf;
	const u8 *p = buf;
	unsigned int pd_len, total;

	if (len < SIW_MPA_KEY_LEN)
		return memcmp(buf, reply ? SIW_MPA_KEY_REP : SIW_MPA_KEY_REQ,
			      len) ? -EBADMSG : -EAGAIN;
	if (memcmp(f->key, reply ? SIW_MPA_KEY_REP : SIW_MPA_KEY_REQ,
		   SIW_MPA_KEY_LEN))
		return -EBADMSG;
	if (len < SIW_MPA_FRAME_LEN)
		return -EAGAIN;

	memset(info, 0, sizeof(*info));
	info->flags = f->flags & ~SIW_MPA_F_RESERVED;
	info->rev = f->rev;
	pd_len = get_unaligned_be16(&f->pd_len);
	if (info->rev != SIW_MPA_REV1 && info->rev != SIW_MPA_REV2)
		return -EBADMSG;
	if (pd_len > SIW_MPA_MAX_PD)
		return -EBADMSG;
	/* RFC 5044 7.1: R is not checked on reception of a request. */
	if (!reply)
		info->flags &= ~SIW_MPA_F_REJECT;

	total = SIW_MPA_FRAME_LEN + pd_len;
	if (len < total)
		return -EAGAIN;

	info->pd_off = SIW_MPA_FRAME_LEN;
	info->pd_len = pd_len;
	if (info->rev == SIW_MPA_REV2 && info->flags & SIW_MPA_F_ENHANCED) {
		/* Only a rejecting reply may leave the block out. */
		if (pd_len >= SIW_MPA_V2_LEN)
			siw_mpa_take_v2(info, p + SIW_MPA_FRAME_LEN);
		else if (!(info->flags & SIW_MPA_F_REJECT))
			return -EBADMSG;
	}
	/*
	 * Markers are refused once the whole frame is read, so that the
	 * refusal can answer in the frame's terms (revision, block).
	 */
	if (info->flags & SIW_MPA_F_MARKERS)
		return -EOPNOTSUPP;
	return total;
}

/**
 * siw_mpa_build() - write an MPA request or reply
 * @buf: room for SIW_MPA_FRAME_LEN + SIW_MPA_V2_LEN + @pd_len bytes
 * @reply: a reply (else a request)
 * @flags: SIW_MPA_F_*
 * @rev: revision
 * @v2: the revision 2 block, or NULL; with it, the frame is flagged
 *	SIW_MPA_F_ENHANCED
 * @pd: private data
 * @pd_len: its length; the caller keeps it (with @v2) within
 *	SIW_MPA_MAX_PD
 *
 * Return: the frame's length.
 */
unsigned int siw_mpa_build(void *buf, bool reply, u8 flags, u8 rev,
			   const struct siw_mpa_v2 *v2, const void *pd,
			   u16 pd_len)
{
	struct siw_mpa_frame *f = buf;
	u8 *p = (u8 *)buf + SIW_MPA_FRAME_LEN;
	unsigned int all = pd_len + (v2 ? SIW_MPA_V2_LEN : 0);

	memcpy(f->key, reply ? SIW_MPA_KEY_REP : SIW_MPA_KEY_REQ,
	       SIW_MPA_KEY_LEN);
	f->flags = flags | (v2 ? SIW_MPA_F_ENHANCED : 0);
	f->rev = rev;
	put_unaligned_be16(all, &f->pd_len);
	if (v2) {
		memcpy(p, v2, SIW_MPA_V2_LEN);
		p += SIW_MPA_V2_LEN;
	}
	if (pd_len)
		memcpy(p, pd, pd_len);
	return SIW_MPA_FRAME_LEN + all;
}

/**
 * siw_term_ctrl() - the control word of a Terminate message
 * @term: layer, type and code
 * @hdr_flags: SIW_TERM_HDR_* telling which copied headers follow
 *
 * Return: the word in host order.
 */
u32 siw_term_ctrl(const struct siw_term_info *term, u16 hdr_flags)
{
	return (u32)(term->layer & 0xf) << SIW_TERM_LAYER_SHIFT |
	       (u32)(term->etype & 0xf) << SIW_TERM_ETYPE_SHIFT |
	       (u32)term->ecode << SIW_TERM_ECODE_SHIFT |
	       (hdr_flags & (SIW_TERM_HDR_MPA | SIW_TERM_HDR_DDP |
			     SIW_TERM_HDR_RDMAP));
}
