// SPDX-License-Identifier: GPL-2.0
/*
 * The opcode table: for every BTH opcode, the headers it carries and what
 * it means, after the IBTA's opcode list (vol. 1, table 38) and, for
 * ATOMIC_WRITE, the memory placement extensions (annex A19).  Pure code,
 * shared with the user-space unit tests.
 */
#include "rxe_hdr.h"

#define TP_RC	RXE_MASK_RC
#define TP_RCUC	(RXE_MASK_RC | RXE_MASK_UC)
#define TP_ALL	(RXE_MASK_RC | RXE_MASK_UC | RXE_MASK_UD)

#define SEND_REQ	(RXE_MASK_REQ | RXE_MASK_SEND | RXE_MASK_PAYLOAD | \
			 RXE_MASK_RWR)
#define WRITE_REQ	(RXE_MASK_REQ | RXE_MASK_WRITE | RXE_MASK_PAYLOAD)
#define READ_RESP	(RXE_MASK_RESP | RXE_MASK_READ | RXE_MASK_PAYLOAD)

struct rxe_op_desc {
	const char	*name;
	u32		mask;
};

/* By operation (opcode bits 4..0); the transports that may use it included. */
static const struct rxe_op_desc rxe_ops[32] = {
	[RXE_OP_SEND_FIRST]	= { "SEND_FIRST", TP_RCUC | SEND_REQ | RXE_MASK_FIRST },
	[RXE_OP_SEND_MIDDLE]	= { "SEND_MIDDLE", TP_RCUC | SEND_REQ | RXE_MASK_MIDDLE },
	[RXE_OP_SEND_LAST]	= { "SEND_LAST", TP_RCUC | SEND_REQ | RXE_MASK_LAST },
	[RXE_OP_SEND_LAST_IMM]	= { "SEND_LAST_WITH_IMMEDIATE",
				    TP_RCUC | SEND_REQ | RXE_MASK_LAST | RXE_MASK_IMMDT },
	[RXE_OP_SEND_ONLY]	= { "SEND_ONLY", TP_ALL | SEND_REQ | RXE_MASK_ONLY },
	[RXE_OP_SEND_ONLY_IMM]	= { "SEND_ONLY_WITH_IMMEDIATE",
				    TP_ALL | SEND_REQ | RXE_MASK_ONLY | RXE_MASK_IMMDT },
	[RXE_OP_WRITE_FIRST]	= { "RDMA_WRITE_FIRST",
				    TP_RCUC | WRITE_REQ | RXE_MASK_FIRST | RXE_MASK_RETH },
	[RXE_OP_WRITE_MIDDLE]	= { "RDMA_WRITE_MIDDLE", TP_RCUC | WRITE_REQ | RXE_MASK_MIDDLE },
	[RXE_OP_WRITE_LAST]	= { "RDMA_WRITE_LAST", TP_RCUC | WRITE_REQ | RXE_MASK_LAST },
	[RXE_OP_WRITE_LAST_IMM]	= { "RDMA_WRITE_LAST_WITH_IMMEDIATE",
				    TP_RCUC | WRITE_REQ | RXE_MASK_LAST | RXE_MASK_IMMDT |
				    RXE_MASK_RWR },
	[RXE_OP_WRITE_ONLY]	= { "RDMA_WRITE_ONLY",
				    TP_RCUC | WRITE_REQ | RXE_MASK_ONLY | RXE_MASK_RETH },
	[RXE_OP_WRITE_ONLY_IMM]	= { "RDMA_WRITE_ONLY_WITH_IMMEDIATE",
				    TP_RCUC | WRITE_REQ | RXE_MASK_ONLY | RXE_MASK_RETH |
				    RXE_MASK_IMMDT | RXE_MASK_RWR },
	[RXE_OP_READ_REQUEST]	= { "RDMA_READ_REQUEST",
				    TP_RC | RXE_MASK_REQ | RXE_MASK_READ | RXE_MASK_ONLY |
				    RXE_MASK_RETH },
	[RXE_OP_READ_RESP_FIRST] = { "RDMA_READ_RESPONSE_FIRST",
				     TP_RC | READ_RESP | RXE_MASK_FIRST | RXE_MASK_AETH },
	[RXE_OP_READ_RESP_MIDDLE] = { "RDMA_READ_RESPONSE_MIDDLE",
				      TP_RC | READ_RESP | RXE_MASK_MIDDLE },
	[RXE_OP_READ_RESP_LAST]	= { "RDMA_READ_RESPONSE_LAST",
				    TP_RC | READ_RESP | RXE_MASK_LAST | RXE_MASK_AETH },
	[RXE_OP_READ_RESP_ONLY]	= { "RDMA_READ_RESPONSE_ONLY",
				    TP_RC | READ_RESP | RXE_MASK_ONLY | RXE_MASK_AETH },
	[RXE_OP_ACK]		= { "ACKNOWLEDGE",
				    TP_RC | RXE_MASK_RESP | RXE_MASK_ONLY | RXE_MASK_AETH },
	[RXE_OP_ATOMIC_ACK]	= { "ATOMIC_ACKNOWLEDGE",
				    TP_RC | RXE_MASK_RESP | RXE_MASK_ATOMIC | RXE_MASK_ONLY |
				    RXE_MASK_AETH | RXE_MASK_ATMACK },
	[RXE_OP_CMP_SWAP]	= { "COMPARE_SWAP",
				    TP_RC | RXE_MASK_REQ | RXE_MASK_ATOMIC | RXE_MASK_ONLY |
				    RXE_MASK_ATMETH },
	[RXE_OP_FETCH_ADD]	= { "FETCH_ADD",
				    TP_RC | RXE_MASK_REQ | RXE_MASK_ATOMIC | RXE_MASK_ONLY |
				    RXE_MASK_ATMETH },
	[RXE_OP_SEND_LAST_INV]	= { "SEND_LAST_WITH_INVALIDATE",
				    TP_RC | SEND_REQ | RXE_MASK_LAST | RXE_MASK_IETH },
	[RXE_OP_SEND_ONLY_INV]	= { "SEND_ONLY_WITH_INVALIDATE",
				    TP_RC | SEND_REQ | RXE_MASK_ONLY | RXE_MASK_IETH },
	/* answered by an RDMA_READ_RESPONSE_ONLY without payload */
	[RXE_OP_ATOMIC_WRITE]	= { "ATOMIC_WRITE",
				    TP_RC | RXE_MASK_REQ | RXE_MASK_ATOMIC_WRITE |
				    RXE_MASK_PAYLOAD | RXE_MASK_ONLY | RXE_MASK_RETH },
};

/* Header bytes of each RXE_MASK_* header bit, in wire order. */
static const u8 rxe_hdr_bytes[] = {
	RXE_DETH_BYTES, RXE_RETH_BYTES, RXE_ATMETH_BYTES, RXE_AETH_BYTES,
	RXE_ATMACK_BYTES, RXE_IMMDT_BYTES, RXE_IETH_BYTES,
};

static u32 rxe_transport_mask(u8 opcode)
{
	switch (opcode & 0xe0) {
	case RXE_TRANSPORT_RC:
		return RXE_MASK_RC;
	case RXE_TRANSPORT_UC:
		return RXE_MASK_UC;
	case RXE_TRANSPORT_UD:
		return RXE_MASK_UD;
	default:
		return 0;	/* RD, CNP, XRC and the rest: not supported */
	}
}

/**
 * rxe_opcode_mask() - what an opcode carries and means
 * @opcode: BTH opcode
 *
 * Return: RXE_MASK_* bits, with exactly one transport bit; 0 for an opcode
 * this provider does not know (reserved, or a transport it lacks).
 */
u32 rxe_opcode_mask(u8 opcode)
{
	u32 tp = rxe_transport_mask(opcode);
	u32 mask = rxe_ops[opcode & 0x1f].mask;

	if (!(mask & tp))
		return 0;
	return (mask & ~(TP_ALL)) | tp | (tp == RXE_MASK_UD ? RXE_MASK_DETH : 0);
}

/**
 * rxe_opcode_name() - the IBTA name of an opcode's operation
 * @opcode: BTH opcode
 *
 * Return: a static string, "UNKNOWN" for opcodes rxe_opcode_mask() refuses.
 */
const char *rxe_opcode_name(u8 opcode)
{
	return rxe_opcode_mask(opcode) ? rxe_ops[opcode & 0x1f].name : "UNKNOWN";
}

/**
 * rxe_hdr_offset() - where an extension header starts
 * @mask: rxe_opcode_mask() of the packet
 * @which: one RXE_MASK_* header bit
 *
 * Return: bytes from the start of the BTH; where the header would start if
 * @mask lacks it.
 */
unsigned int rxe_hdr_offset(u32 mask, u32 which)
{
	unsigned int off = RXE_BTH_BYTES, i;

	for (i = 0; i < sizeof(rxe_hdr_bytes); i++) {
		if ((1U << i) >= which)
			break;
		if (mask & (1U << i))
			off += rxe_hdr_bytes[i];
	}
	return off;
}

/**
 * rxe_opcode_hdr_len() - bytes of the BTH and every extension header
 * @mask: rxe_opcode_mask() of the packet
 *
 * Return: the offset of the payload.
 */
unsigned int rxe_opcode_hdr_len(u32 mask)
{
	return rxe_hdr_offset(mask, RXE_MASK_IETH << 1);
}

/* RNR NAK timer codes in microseconds (IBTA vol. 1, table 45). */
static const u32 rxe_rnr_usecs[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/**
 * rxe_rnr_timer_usecs() - delay an RNR NAK's timer code asks for
 * @code: the 5-bit code of the AETH or of the QP's min_rnr_timer
 *
 * Return: microseconds.
 */
u32 rxe_rnr_timer_usecs(u8 code)
{
	return rxe_rnr_usecs[code & 0x1f];
}
