/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-RoCE wire formats: the InfiniBand transport headers carried in a
 * RoCE v2 UDP datagram, the opcode table's flags, PSN arithmetic and the
 * receive-side verdicts.
 *
 * Everything here is pure: byte buffers in, values out, no skb, no locks,
 * no device state.  The same text compiles in the kernel and in the
 * user-space unit tests under tools/testing/, which only have to provide
 * linux/types.h and crc32_le().
 *
 * Layout of one RoCE v2 packet after the UDP header (IBTA vol. 1, ch. 9;
 * RoCE v2 annex A17):
 *
 *   BTH (12) [DETH (8)] [RETH (16) | AtomicETH (28)] [AETH (4)]
 *   [AtomicAckETH (8)] [ImmDt (4) | IETH (4)] payload pad (0..3) ICRC (4)
 *
 * All multi-byte fields are big-endian; the ICRC is stored little-endian.
 */
#ifndef RXE_HDR_H
#define RXE_HDR_H

#include <linux/types.h>

/* ---- sizes --------------------------------------------------------------- */

#define RXE_BTH_BYTES		12
#define RXE_DETH_BYTES		8
#define RXE_RETH_BYTES		16
#define RXE_AETH_BYTES		4
#define RXE_ATMETH_BYTES	28
#define RXE_ATMACK_BYTES	8
#define RXE_IMMDT_BYTES		4
#define RXE_IETH_BYTES		4
#define RXE_ICRC_BYTES		4
#define RXE_UDP_BYTES		8
#define RXE_IPV4_BYTES		20
#define RXE_IPV6_BYTES		40
/* The GRH-sized area a UD receive buffer starts with */
#define RXE_GRH_BYTES		40
/* Largest payload of one packet: the largest IB MTU */
#define RXE_MAX_PAYLOAD		4096

#define RXE_ROCE_V2_PORT	4791
#define RXE_DEFAULT_PKEY	0xffff
#define RXE_PKEY_MEMBER		0x8000
/* Q_Key the general services QP (QP1) uses */
#define RXE_GSI_QKEY		0x80010000
/* Bit 31 of a UD work request's Q_Key: use the QP's own Q_Key instead */
#define RXE_QKEY_CONTROLLED	0x80000000
#define RXE_QPN_MASK		0x00ffffff
#define RXE_MCAST_QPN		0x00ffffff
#define RXE_PSN_MASK		0x00ffffff
/* PSNs the requester may have in flight before it waits for an ACK */
#define RXE_MAX_UNACKED_PSNS	128

/* ---- opcodes (BTH byte 0): transport in bits 7..5, operation in 4..0 ----- */

enum rxe_transport {
	RXE_TRANSPORT_RC	= 0x00,
	RXE_TRANSPORT_UC	= 0x20,
	RXE_TRANSPORT_RD	= 0x40,
	RXE_TRANSPORT_UD	= 0x60,
};

enum rxe_op {
	RXE_OP_SEND_FIRST		= 0x00,
	RXE_OP_SEND_MIDDLE		= 0x01,
	RXE_OP_SEND_LAST		= 0x02,
	RXE_OP_SEND_LAST_IMM		= 0x03,
	RXE_OP_SEND_ONLY		= 0x04,
	RXE_OP_SEND_ONLY_IMM		= 0x05,
	RXE_OP_WRITE_FIRST		= 0x06,
	RXE_OP_WRITE_MIDDLE		= 0x07,
	RXE_OP_WRITE_LAST		= 0x08,
	RXE_OP_WRITE_LAST_IMM		= 0x09,
	RXE_OP_WRITE_ONLY		= 0x0a,
	RXE_OP_WRITE_ONLY_IMM		= 0x0b,
	RXE_OP_READ_REQUEST		= 0x0c,
	RXE_OP_READ_RESP_FIRST		= 0x0d,
	RXE_OP_READ_RESP_MIDDLE		= 0x0e,
	RXE_OP_READ_RESP_LAST		= 0x0f,
	RXE_OP_READ_RESP_ONLY		= 0x10,
	RXE_OP_ACK			= 0x11,
	RXE_OP_ATOMIC_ACK		= 0x12,
	RXE_OP_CMP_SWAP			= 0x13,
	RXE_OP_FETCH_ADD		= 0x14,
	RXE_OP_SEND_LAST_INV		= 0x16,
	RXE_OP_SEND_ONLY_INV		= 0x17,
	RXE_OP_ATOMIC_WRITE		= 0x1d,
};

#define RXE_OPCODE(transport, op)	((u8)((transport) | (op)))

/*
 * What an opcode carries and means (rxe_opcode_mask()).  The header bits
 * also fix the order of the extension headers: the order of the bits below
 * is the order on the wire.
 */
enum rxe_op_mask {
	RXE_MASK_DETH		= 1U << 0,
	RXE_MASK_RETH		= 1U << 1,
	RXE_MASK_ATMETH		= 1U << 2,
	RXE_MASK_AETH		= 1U << 3,
	RXE_MASK_ATMACK		= 1U << 4,
	RXE_MASK_IMMDT		= 1U << 5,
	RXE_MASK_IETH		= 1U << 6,
	RXE_MASK_PAYLOAD	= 1U << 7,	/* may carry payload */
	RXE_MASK_REQ		= 1U << 8,	/* sent by a requester */
	RXE_MASK_RESP		= 1U << 9,	/* sent by a responder */
	RXE_MASK_SEND		= 1U << 10,
	RXE_MASK_WRITE		= 1U << 11,
	RXE_MASK_READ		= 1U << 12,
	RXE_MASK_ATOMIC		= 1U << 13,
	RXE_MASK_FIRST		= 1U << 14,
	RXE_MASK_MIDDLE		= 1U << 15,
	RXE_MASK_LAST		= 1U << 16,
	RXE_MASK_RWR		= 1U << 17,	/* consumes a receive WQE */
	RXE_MASK_RC		= 1U << 18,	/* valid on this transport */
	RXE_MASK_UC		= 1U << 19,
	RXE_MASK_UD		= 1U << 20,
	RXE_MASK_ATOMIC_WRITE	= 1U << 21,	/* 8 bytes stored at once */
};

#define RXE_MASK_ONLY		(RXE_MASK_FIRST | RXE_MASK_LAST)
#define RXE_MASK_HDRS		(RXE_MASK_DETH | RXE_MASK_RETH | \
				 RXE_MASK_ATMETH | RXE_MASK_AETH | \
				 RXE_MASK_ATMACK | RXE_MASK_IMMDT | \
				 RXE_MASK_IETH)

u32 rxe_opcode_mask(u8 opcode);
const char *rxe_opcode_name(u8 opcode);
unsigned int rxe_opcode_hdr_len(u32 mask);
unsigned int rxe_hdr_offset(u32 mask, u32 which);

/* ---- byte access --------------------------------------------------------- */

static inline u16 rxe_get16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 rxe_get24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 rxe_get32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 rxe_get64(const u8 *p)
{
	return (u64)rxe_get32(p) << 32 | rxe_get32(p + 4);
}

/* The stores mask each byte, so that constants narrow without a warning. */
static inline void rxe_put16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static inline void rxe_put24(u8 *p, u32 v)
{
	p[0] = (v >> 16) & 0xff;
	p[1] = (v >> 8) & 0xff;
	p[2] = v & 0xff;
}

static inline void rxe_put32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = (v >> 16) & 0xff;
	p[2] = (v >> 8) & 0xff;
	p[3] = v & 0xff;
}

static inline void rxe_put64(u8 *p, u64 v)
{
	rxe_put32(p, v >> 32);
	rxe_put32(p + 4, (u32)v);
}

/* ---- BTH ------------------------------------------------------------------ */
/*
 * byte 0 opcode; byte 1 SE(7) M(6) PadCnt(5..4) TVer(3..0); bytes 2-3
 * P_Key; byte 4 FECN(7) BECN(6) reserved; bytes 5-7 DestQP; byte 8
 * AckReq(7) reserved; bytes 9-11 PSN.
 */
#define RXE_BTH_SE		0x80
#define RXE_BTH_MIG		0x40
#define RXE_BTH_ACKREQ		0x80

static inline u8 rxe_bth_opcode(const u8 *bth)	{ return bth[0]; }
static inline bool rxe_bth_se(const u8 *bth)	{ return bth[1] & RXE_BTH_SE; }
static inline u8 rxe_bth_pad(const u8 *bth)	{ return (bth[1] >> 4) & 3; }
static inline u8 rxe_bth_tver(const u8 *bth)	{ return bth[1] & 0xf; }
static inline u16 rxe_bth_pkey(const u8 *bth)	{ return rxe_get16(bth + 2); }
static inline u32 rxe_bth_qpn(const u8 *bth)	{ return rxe_get24(bth + 5); }
static inline bool rxe_bth_ackreq(const u8 *bth) { return bth[8] & RXE_BTH_ACKREQ; }
static inline u32 rxe_bth_psn(const u8 *bth)	{ return rxe_get24(bth + 9); }

/**
 * rxe_bth_build() - write a BTH
 * @bth: 12 bytes
 * @opcode: the opcode
 * @se: solicited event
 * @pad: pad byte count (0..3)
 * @pkey: partition key
 * @qpn: destination QP number
 * @ackreq: ask the responder for an acknowledgment
 * @psn: packet sequence number
 */
static inline void rxe_bth_build(u8 *bth, u8 opcode, bool se, u8 pad,
				 u16 pkey, u32 qpn, bool ackreq, u32 psn)
{
	bth[0] = opcode;
	bth[1] = (se ? RXE_BTH_SE : 0) | (pad & 3) << 4;
	rxe_put16(bth + 2, pkey);
	bth[4] = 0;
	rxe_put24(bth + 5, qpn & RXE_QPN_MASK);
	bth[8] = ackreq ? RXE_BTH_ACKREQ : 0;
	rxe_put24(bth + 9, psn & RXE_PSN_MASK);
}

/* ---- extension headers ---------------------------------------------------- */

/* DETH: Q_Key (4), reserved (1), source QP (3) */
static inline u32 rxe_deth_qkey(const u8 *h)	{ return rxe_get32(h); }
static inline u32 rxe_deth_sqp(const u8 *h)	{ return rxe_get24(h + 5); }

static inline void rxe_deth_build(u8 *h, u32 qkey, u32 sqp)
{
	rxe_put32(h, qkey);
	h[4] = 0;
	rxe_put24(h + 5, sqp);
}

/* RETH: virtual address (8), R_Key (4), DMA length (4) */
static inline u64 rxe_reth_va(const u8 *h)	{ return rxe_get64(h); }
static inline u32 rxe_reth_rkey(const u8 *h)	{ return rxe_get32(h + 8); }
static inline u32 rxe_reth_len(const u8 *h)	{ return rxe_get32(h + 12); }

static inline void rxe_reth_build(u8 *h, u64 va, u32 rkey, u32 len)
{
	rxe_put64(h, va);
	rxe_put32(h + 8, rkey);
	rxe_put32(h + 12, len);
}

/* AtomicETH: virtual address (8), R_Key (4), swap or add (8), compare (8) */
static inline u64 rxe_atmeth_va(const u8 *h)	{ return rxe_get64(h); }
static inline u32 rxe_atmeth_rkey(const u8 *h)	{ return rxe_get32(h + 8); }
static inline u64 rxe_atmeth_swap_add(const u8 *h) { return rxe_get64(h + 12); }
static inline u64 rxe_atmeth_comp(const u8 *h)	{ return rxe_get64(h + 20); }

static inline void rxe_atmeth_build(u8 *h, u64 va, u32 rkey, u64 swap_add,
				    u64 comp)
{
	rxe_put64(h, va);
	rxe_put32(h + 8, rkey);
	rxe_put64(h + 12, swap_add);
	rxe_put64(h + 20, comp);
}

/* AETH: syndrome (1), MSN (3) */
#define RXE_AETH_TYPE_MASK	0xe0
#define RXE_AETH_ACK		0x00	/* low 5 bits: credit count */
#define RXE_AETH_RNR_NAK	0x20	/* low 5 bits: RNR timer code */
#define RXE_AETH_NAK		0x60	/* low 5 bits: NAK code */
#define RXE_AETH_NO_CREDITS	0x1f	/* ACK: credits not limited */

enum rxe_nak_code {
	RXE_NAK_PSN_SEQ		= 0,
	RXE_NAK_INVALID_REQ	= 1,
	RXE_NAK_REM_ACCESS	= 2,
	RXE_NAK_REM_OP		= 3,
};

static inline u8 rxe_aeth_syn(const u8 *h)	{ return h[0]; }
static inline u32 rxe_aeth_msn(const u8 *h)	{ return rxe_get24(h + 1); }

static inline void rxe_aeth_build(u8 *h, u8 syn, u32 msn)
{
	h[0] = syn;
	rxe_put24(h + 1, msn);
}

/* AtomicAckETH: original remote data (8) */
static inline u64 rxe_atmack_orig(const u8 *h)	{ return rxe_get64(h); }

/* ImmDt and IETH: 4 bytes each, kept in network order by the verbs API */

/* ---- UDP, IPv4 and IPv6 headers of a RoCE v2 datagram --------------------- */

#define RXE_IPPROTO_UDP		17
#define RXE_IPV4_DF		0x4000

static inline u16 rxe_udp_sport(const u8 *h)	{ return rxe_get16(h); }
static inline u16 rxe_udp_dport(const u8 *h)	{ return rxe_get16(h + 2); }
static inline u16 rxe_udp_len(const u8 *h)	{ return rxe_get16(h + 4); }

/**
 * rxe_udp_build() - write the UDP header of a RoCE v2 datagram
 * @h: 8 bytes
 * @sport: source port (rdma_get_udp_sport())
 * @len: UDP header and everything after it, ICRC included
 *
 * The destination is port 4791; the checksum is left 0 (IPv4 RoCE goes
 * without one, IPv6 computes it over the finished packet).
 */
static inline void rxe_udp_build(u8 *h, u16 sport, u16 len)
{
	rxe_put16(h, sport);
	rxe_put16(h + 2, RXE_ROCE_V2_PORT);
	rxe_put16(h + 4, len);
	rxe_put16(h + 6, 0);
}

/**
 * rxe_ipv4_build() - write the IPv4 header of a RoCE v2 datagram
 * @h: 20 bytes
 * @tos: type of service (the address vector's traffic class)
 * @tot_len: bytes of the IP header and the datagram
 * @ttl: time to live (the address vector's hop limit)
 * @saddr: source address, 4 bytes in network order
 * @daddr: destination address, 4 bytes in network order
 *
 * No options, don't-fragment set.  The identification and the header
 * checksum are left 0 for the IP layer to fill in.
 */
static inline void rxe_ipv4_build(u8 *h, u8 tos, u16 tot_len, u8 ttl,
				  const u8 *saddr, const u8 *daddr)
{
	unsigned int i;

	h[0] = 0x45;
	h[1] = tos;
	rxe_put16(h + 2, tot_len);
	rxe_put16(h + 4, 0);
	rxe_put16(h + 6, RXE_IPV4_DF);
	h[8] = ttl;
	h[9] = RXE_IPPROTO_UDP;
	rxe_put16(h + 10, 0);
	for (i = 0; i < 4; i++) {
		h[12 + i] = saddr[i];
		h[16 + i] = daddr[i];
	}
}

/**
 * rxe_ipv6_build() - write the IPv6 header of a RoCE v2 datagram
 * @h: 40 bytes
 * @tclass: traffic class
 * @flow_label: flow label; bits above the low 20 are ignored
 * @payload_len: bytes of the datagram (UDP header to ICRC)
 * @hop_limit: hop limit
 * @saddr: source address, 16 bytes
 * @daddr: destination address, 16 bytes
 */
static inline void rxe_ipv6_build(u8 *h, u8 tclass, u32 flow_label,
				  u16 payload_len, u8 hop_limit,
				  const u8 *saddr, const u8 *daddr)
{
	unsigned int i;

	rxe_put32(h, 6U << 28 | (u32)tclass << 20 | (flow_label & 0xfffff));
	rxe_put16(h + 4, payload_len);
	h[6] = RXE_IPPROTO_UDP;
	h[7] = hop_limit;
	for (i = 0; i < 16; i++) {
		h[8 + i] = saddr[i];
		h[24 + i] = daddr[i];
	}
}

/* ---- PSN arithmetic (24-bit serial numbers) ------------------------------- */

/**
 * rxe_psn_diff() - signed distance from @b to @a in 24-bit PSN space
 * @a: a PSN
 * @b: a PSN
 *
 * Return: negative if @a is before @b, 0 if equal, positive if after;
 * meaningful while the two are less than 2^23 apart.
 */
static inline int rxe_psn_diff(u32 a, u32 b)
{
	return (int)((a - b) << 8) >> 8;
}

static inline u32 rxe_psn_add(u32 psn, u32 n)
{
	return (psn + n) & RXE_PSN_MASK;
}

/* ---- RNR timer and local ACK timeout codes ------------------------------- */

u32 rxe_rnr_timer_usecs(u8 code);

/**
 * rxe_ack_timeout_usecs() - local ACK timeout of a QP's timeout code
 * @code: 5-bit code; 0 means no timeout
 *
 * Return: 4.096 us * 2^@code, or 0 for "infinite".
 */
static inline u64 rxe_ack_timeout_usecs(u8 code)
{
	return code ? (4096ULL << (code & 0x1f)) / 1000 : 0;
}

/* ---- receive verdicts ----------------------------------------------------- */

/* Why a received packet was dropped; 0 means it was not. */
enum rxe_drop {
	RXE_DROP_NONE = 0,
	RXE_DROP_LENGTH,	/* truncated, length and pad disagree, oversize */
	RXE_DROP_OPCODE,	/* unknown opcode or not for this QP type */
	RXE_DROP_VERSION,	/* BTH transport version is not 0 */
	RXE_DROP_PKEY,		/* P_Key does not match */
	RXE_DROP_ICRC,		/* invariant CRC wrong */
	RXE_DROP_QPN,		/* no such QP, or a QPN the type cannot use */
	RXE_DROP_QKEY,		/* UD Q_Key wrong */
	RXE_DROP_SEQ,		/* PSN out of sequence */
	RXE_DROP_STATE,		/* QP cannot receive in its state */
	RXE_DROP_NO_RECV,	/* UD: no receive WQE posted */
	RXE_DROP_ADDR,		/* not addressed to one of our GIDs */
	RXE_DROP_MALFORMED,	/* bad IP/UDP framing */
	RXE_DROP_PATH,		/* RC/UC: not from the QP's peer address */
	RXE_DROP_NR
};

/**
 * struct rxe_pkt - what the receive path learned from a packet's headers
 * @hdr: first byte of the BTH
 * @len: bytes from the BTH to the end of the ICRC
 * @mask: rxe_opcode_mask() of @opcode
 * @opcode: BTH opcode
 * @pad: BTH pad count
 * @hdr_len: bytes of the BTH and its extension headers
 * @paylen: payload bytes, pad excluded
 * @qpn: destination QP number
 * @psn: packet sequence number
 */
struct rxe_pkt {
	const u8	*hdr;
	u32		len;
	u32		mask;
	u8		opcode;
	u8		pad;
	u16		hdr_len;
	u32		paylen;
	u32		qpn;
	u32		psn;
};

static inline const u8 *rxe_pkt_ext(const struct rxe_pkt *pkt, u32 which)
{
	return pkt->hdr + rxe_hdr_offset(pkt->mask, which);
}

static inline const u8 *rxe_pkt_payload(const struct rxe_pkt *pkt)
{
	return pkt->hdr + pkt->hdr_len;
}

enum rxe_drop rxe_hdr_parse(const u8 *buf, u32 len, struct rxe_pkt *pkt);
enum rxe_drop rxe_check_transport(const struct rxe_pkt *pkt, u32 qp_mask,
				  u32 qpn);
enum rxe_drop rxe_check_seg_len(const struct rxe_pkt *pkt, u32 mtu);
bool rxe_qkey_ok(u32 qpn, u32 qp_qkey, u32 pkt_qkey);
bool rxe_pkey_ok(u16 pkt_pkey, u16 own_pkey);
enum rxe_drop rxe_rcv_check(const u8 *l3, bool ipv6, const u8 *udp, u32 len,
			    struct rxe_pkt *pkt);

/* ---- ICRC ----------------------------------------------------------------- */

u32 rxe_icrc_compute(const u8 *l3, bool ipv6, const u8 *udp, u32 len);
bool rxe_icrc_ok(const u8 *l3, bool ipv6, const u8 *udp, u32 len);
void rxe_icrc_put(u8 *p, u32 icrc);

#endif /* RXE_HDR_H */
