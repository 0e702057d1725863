/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-iWARP wire formats: the MPA connection frames (RFC 5044 section 7,
 * enhanced by RFC 6581), the MPA framing of the TCP stream into FPDUs
 * (RFC 5044 section 4), and the DDP (RFC 5041) and RDMAP (RFC 5040)
 * headers each FPDU starts with.
 *
 * Pure: byte buffers in, values out, no socket, no lock, no device state.
 * The same text compiles in the kernel and in the user-space unit tests
 * and fuzzers under tools/testing/rdma-unit, which provide linux/types.h
 * and the byte-order helpers.
 *
 * One FPDU on the stream, markers never negotiated:
 *
 *   ULPDU length (2) | DDP/RDMAP header | payload | pad (0..3) | CRC32c (4)
 *
 * The length counts the DDP/RDMAP header and the payload.  The pad makes
 * length field + ULPDU a multiple of four bytes; the CRC32c covers all of
 * those bytes and is sent as zero when neither end asked for CRCs.  All
 * header fields are big-endian; the CRC is sent least significant byte
 * first, the byte order of an iSCSI digest.
 */
#ifndef SIW_WIRE_H
#define SIW_WIRE_H

#include <linux/bits.h>
#include <linux/types.h>

/* ---- MPA connection set-up frames ---------------------------------------- */

#define SIW_MPA_KEY_LEN		16
#define SIW_MPA_KEY_REQ		"MPA ID Req Frame"
#define SIW_MPA_KEY_REP		"MPA ID Rep Frame"
/* Largest private data an MPA frame may carry (RFC 5044 7.1) */
#define SIW_MPA_MAX_PD		512

/* Byte 16 of a request or reply */
#define SIW_MPA_F_MARKERS	0x80	/* M: markers wanted (never by us) */
#define SIW_MPA_F_CRC		0x40	/* C: CRC32c wanted */
#define SIW_MPA_F_REJECT	0x20	/* R: the reply refuses the request */
/*
 * The frame's private data starts with the revision 2 block of RFC 6581.
 * Linux's own siw sets it in every enhanced frame and answers a revision 2
 * request without it as it would a revision 1 one (no block), so it is
 * what tells the block is there.
 */
#define SIW_MPA_F_ENHANCED	0x10
#define SIW_MPA_F_RESERVED	0x0f

#define SIW_MPA_REV1		1
#define SIW_MPA_REV2		2

/**
 * struct siw_mpa_frame - the fixed part of an MPA request or reply
 * @key: SIW_MPA_KEY_REQ or SIW_MPA_KEY_REP, without a terminating NUL
 * @flags: SIW_MPA_F_*
 * @rev: SIW_MPA_REV1 or SIW_MPA_REV2
 * @pd_len: bytes of private data that follow
 */
struct siw_mpa_frame {
	u8	key[SIW_MPA_KEY_LEN];
	u8	flags;
	u8	rev;
	__be16	pd_len;
} __packed;

#define SIW_MPA_FRAME_LEN	20

/*
 * Revision 2 (RFC 6581): the private data starts with this block.  The
 * high bits of its first half announce the peer-to-peer model and the
 * zero-length ready-to-receive (RTR) message; those of the second half
 * which RTR operations the sender can take; the low 14 bits of each are
 * the sender's inbound (IRD) and outbound (ORD) RDMA READ depths.
 */
struct siw_mpa_v2 {
	__be16	ird;
	__be16	ord;
} __packed;

#define SIW_MPA_V2_LEN		4
#define SIW_MPA_V2_P2P		0x8000	/* in ird */
#define SIW_MPA_V2_ZERO_RTR	0x4000	/* in ird */
#define SIW_MPA_V2_RTR_WRITE	0x8000	/* in ord */
#define SIW_MPA_V2_RTR_READ	0x4000	/* in ord */
#define SIW_MPA_V2_DEPTH	0x3fff

/* What an MPA frame said, once checked (siw_mpa_parse()). */
struct siw_mpa_info {
	u8	flags;
	u8	rev;
	u16	pd_len;		/* private data length, v2 block left out */
	u16	pd_off;		/* where it starts, counted from the frame */
	bool	v2;		/* a revision 2 block is present */
	u16	ird;		/* v2 only */
	u16	ord;		/* v2 only */
	u16	v2_ird_bits;	/* v2 only: the flag bits of ird */
	u16	v2_ord_bits;	/* v2 only: the flag bits of ord */
};

/* ---- DDP and RDMAP ------------------------------------------------------- */

/* DDP control byte (RFC 5041 4.2): Tagged, Last, Reserved, DDP Version */
#define SIW_DDP_TAGGED		0x80
#define SIW_DDP_LAST		0x40
#define SIW_DDP_RSVD		0x3c
#define SIW_DDP_VER_MASK	0x03
#define SIW_DDP_VER		1

/* RDMAP control byte (RFC 5040 4.2): RDMAP Version, Reserved, Opcode */
#define SIW_RDMAP_VER_MASK	0xc0
#define SIW_RDMAP_VER		BIT(6)
#define SIW_RDMAP_RSVD		0x30
#define SIW_RDMAP_OP_MASK	0x0f

/* RDMAP opcodes (RFC 5040 4.2) */
enum siw_rdmap_op {
	SIW_RDMAP_WRITE	= 0,
	SIW_RDMAP_READ_REQ		= 1,
	SIW_RDMAP_READ_RESP	= 2,
	SIW_RDMAP_SEND		= 3,
	SIW_RDMAP_SEND_INV		= 4,
	SIW_RDMAP_SEND_SE		= 5,
	SIW_RDMAP_SEND_SE_INV	= 6,
	SIW_RDMAP_TERMINATE	= 7,
	SIW_RDMAP_NUM_OPS
};

/* Untagged queues (RFC 5040 5.1) */
enum siw_ddp_queue {
	SIW_QN_SEND	= 0,
	SIW_QN_READ	= 1,
	SIW_QN_TERM	= 2,
	SIW_NUM_QN
};

/**
 * struct siw_hdr_common - the first four bytes of every FPDU
 * @mpa_len: ULPDU length (DDP/RDMAP header and payload)
 * @ddp: DDP control byte
 * @rdmap: RDMAP control byte
 */
struct siw_hdr_common {
	__be16	mpa_len;
	u8	ddp;
	u8	rdmap;
} __packed;

/**
 * struct siw_hdr_tagged - FPDU header of a tagged DDP segment
 * @c: the common part
 * @stag: steering tag of the buffer the payload goes to
 * @to: tagged offset of the payload's first byte
 */
struct siw_hdr_tagged {
	struct siw_hdr_common c;
	__be32	stag;
	__be64	to;
} __packed;

/**
 * struct siw_hdr_untagged - FPDU header of an untagged DDP segment
 * @c: the common part
 * @inv_stag: RDMAP's word: the STag to invalidate (SEND with invalidate)
 * @qn: queue number, enum siw_ddp_queue
 * @msn: message sequence number on that queue, from 1
 * @mo: message offset of the payload's first byte
 */
struct siw_hdr_untagged {
	struct siw_hdr_common c;
	__be32	inv_stag;
	__be32	qn;
	__be32	msn;
	__be32	mo;
} __packed;

/**
 * struct siw_read_req - the payload of an RDMA READ request (RFC 5040 4.4)
 * @sink_stag: where the response goes (the requester's buffer)
 * @sink_to: and at which tagged offset
 * @size: bytes to read
 * @src_stag: where they come from (the responder's buffer)
 * @src_to: and from which tagged offset
 */
struct siw_read_req {
	__be32	sink_stag;
	__be64	sink_to;
	__be32	size;
	__be32	src_stag;
	__be64	src_to;
} __packed;

/* Terminate control word (RFC 5040 4.8): layer, type, code, header flags */
#define SIW_TERM_LAYER_SHIFT	28
#define SIW_TERM_ETYPE_SHIFT	24
#define SIW_TERM_ECODE_SHIFT	16
#define SIW_TERM_HDR_MPA	0x8000	/* M: the segment length is valid */
#define SIW_TERM_HDR_DDP	0x4000	/* D: a DDP header follows */
#define SIW_TERM_HDR_RDMAP	0x2000	/* R: an RDMAP header follows */

/* Layers (RFC 5040 7.1) */
enum siw_term_layer {
	SIW_TERM_RDMAP	= 0,
	SIW_TERM_DDP	= 1,
	SIW_TERM_MPA	= 2,
};

/* RDMAP error types and codes (RFC 5040 7.2) */
#define SIW_ET_RDMAP_CATASTROPHIC	0
#define SIW_ET_RDMAP_PROTECTION		1
#define SIW_ET_RDMAP_OPERATION		2

#define SIW_EC_RDMAP_INVALID_STAG	0x00
#define SIW_EC_RDMAP_BOUNDS		0x01
#define SIW_EC_RDMAP_ACCESS		0x02
#define SIW_EC_RDMAP_STAG_PD		0x03
#define SIW_EC_RDMAP_TO_WRAP		0x04
#define SIW_EC_RDMAP_VERSION		0x05
#define SIW_EC_RDMAP_OPCODE		0x06
#define SIW_EC_RDMAP_STREAM		0x07
#define SIW_EC_RDMAP_GLOBAL		0x08
#define SIW_EC_RDMAP_INVALIDATE		0x09
#define SIW_EC_RDMAP_UNSPECIFIED	0xff

/* DDP error types and codes (RFC 5041 7.2) */
#define SIW_ET_DDP_CATASTROPHIC		0
#define SIW_ET_DDP_TAGGED		1
#define SIW_ET_DDP_UNTAGGED		2

#define SIW_EC_DDP_CAT_LOCAL		0x00
#define SIW_EC_DDP_T_INVALID_STAG	0x00
#define SIW_EC_DDP_T_BOUNDS		0x01
#define SIW_EC_DDP_T_STAG_STREAM	0x02
#define SIW_EC_DDP_T_TO_WRAP		0x03
#define SIW_EC_DDP_T_VERSION		0x04
#define SIW_EC_DDP_U_QN			0x01
#define SIW_EC_DDP_U_NO_BUFFER		0x02
#define SIW_EC_DDP_U_MSN_RANGE		0x03
#define SIW_EC_DDP_U_MO			0x04
#define SIW_EC_DDP_U_TOO_LONG		0x05
#define SIW_EC_DDP_U_VERSION		0x06

/* MPA error codes (RFC 5044 8), layer SIW_TERM_MPA, type 0 */
#define SIW_EC_MPA_CRC			0x02
#define SIW_EC_MPA_MARKER		0x03
#define SIW_EC_MPA_REQ_REP		0x04

/**
 * struct siw_term_info - one reason to end a stream with a Terminate
 * @layer: enum siw_term_layer
 * @etype: error type within the layer
 * @ecode: error code within the type
 */
struct siw_term_info {
	u8	layer;
	u8	etype;
	u8	ecode;
};

/**
 * siw_term_protection() - whether @t refuses access to a tagged buffer
 * @t: the reason of a Terminate
 *
 * RDMAP's protection errors and DDP's tagged-buffer errors other than a
 * bad version are about memory the peer named, not about the stream: the
 * QP reports them as IB_EVENT_QP_ACCESS_ERR and counts them apart.
 *
 * Return: true for those, false for every other reason.
 */
static inline bool siw_term_protection(const struct siw_term_info *t)
{
	if (t->layer == SIW_TERM_RDMAP)
		return t->etype == SIW_ET_RDMAP_PROTECTION;
	return t->layer == SIW_TERM_DDP && t->etype == SIW_ET_DDP_TAGGED &&
	       t->ecode != SIW_EC_DDP_T_VERSION;
}

/* Bytes before the CRC: CRC (4) and length field (2) are not in the ULPDU */
#define SIW_MPA_LEN_BYTES	2
#define SIW_MPA_CRC_BYTES	4
#define SIW_HDR_TAGGED_LEN	((unsigned int)sizeof(struct siw_hdr_tagged))
#define SIW_HDR_UNTAGGED_LEN	((unsigned int)sizeof(struct siw_hdr_untagged))
#define SIW_READ_REQ_LEN	((unsigned int)sizeof(struct siw_read_req))
/* Longest FPDU header: an untagged one and a READ request's payload */
#define SIW_HDR_MAX_LEN		(SIW_HDR_UNTAGGED_LEN + SIW_READ_REQ_LEN)
/* A Terminate: control word, copied FPDU header, copied READ request */
#define SIW_TERM_LEN		(4 + SIW_HDR_UNTAGGED_LEN + SIW_READ_REQ_LEN)

/**
 * siw_fpdu_pad() - pad bytes after a ULPDU of @ulpdu_len bytes
 * @ulpdu_len: value of the FPDU's length field
 *
 * Return: 0 to 3, so that length field, ULPDU and pad fill whole words.
 */
static inline unsigned int siw_fpdu_pad(unsigned int ulpdu_len)
{
	return (4 - ((ulpdu_len + SIW_MPA_LEN_BYTES) & 3)) & 3;
}

/* What siw_hdr_check() found out about an FPDU header. */
struct siw_hdr_info {
	u8	op;		/* enum siw_rdmap_op */
	bool	tagged;
	bool	last;
	u16	hdr_len;	/* length field included */
	u16	payload;	/* ULPDU bytes after the header */
};

int siw_hdr_len(u8 ddp, u8 rdmap);
int siw_hdr_check(const void *hdr, unsigned int len, struct siw_hdr_info *info,
		  struct siw_term_info *term);
int siw_mpa_parse(const void *buf, unsigned int len, bool reply,
		  struct siw_mpa_info *info);
unsigned int siw_mpa_build(void *buf, bool reply, u8 flags, u8 rev,
			   const struct siw_mpa_v2 *v2, const void *pd,
			   u16 pd_len);
u32 siw_term_ctrl(const struct siw_term_info *term, u16 hdr_flags);

#endif /* SIW_WIRE_H */
