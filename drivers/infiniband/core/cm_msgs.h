/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The connection manager's messages on the wire (IBTA Vol 1 12.6): where
 * each field sits in the 232 bytes that follow the MAD header, how wide it
 * is, and the checks every received message passes before the state
 * machine sees it.  Pure code: cm_msgs.c is also built by the user-space
 * unit tests and the fuzzer of tools/testing/rdma-unit.
 */
#ifndef _CM_MSGS_H
#define _CM_MSGS_H

#include <linux/string.h>
#include <linux/types.h>

/* The CM payload: a MAD less its 24-byte common header. */
#define CM_MSG_LEN		232
#define CM_CLASS_VERSION	2

/* Message types, in attribute ID order (attribute ID - 0x10). */
enum cm_msg_type {
	CM_MSG_REQ,
	CM_MSG_MRA,
	CM_MSG_REJ,
	CM_MSG_REP,
	CM_MSG_RTU,
	CM_MSG_DREQ,
	CM_MSG_DREP,
	CM_MSG_SIDR_REQ,
	CM_MSG_SIDR_REP,
	CM_MSG_LAP,
	CM_MSG_APR,
	CM_MSG_TYPES
};

#define CM_ATTR_ID_FIRST	0x0010

/*
 * A field: @len big-endian bytes from byte @off of the payload (1 to 4),
 * of which the bits set in @mask hold the value.
 */
struct cm_field {
	u8 off;
	u8 len;
	u32 mask;
};

#define CM_FIELD(o, l, m)	((struct cm_field){ .off = (o), .len = (l), .mask = (m) })
#define CM_BYTE(o, m)		CM_FIELD(o, 1, m)
#define CM_U24(o)		CM_FIELD(o, 3, 0xffffff)
#define CM_U16(o)		CM_FIELD(o, 2, 0xffff)
#define CM_U8(o)		CM_FIELD(o, 1, 0xff)
#define CM_U32(o)		CM_FIELD(o, 4, 0xffffffff)

/* Communication IDs open every message but the SIDR ones. */
#define CM_LOCAL_COMM_ID	0	/* 4 bytes, kept in network order */
#define CM_REMOTE_COMM_ID	4

/* REQ */
#define CM_REQ_VENDOR_ID	CM_U24(5)
#define CM_REQ_SERVICE_ID	8	/* 8 bytes */
#define CM_REQ_CA_GUID		16	/* 8 bytes */
#define CM_REQ_QKEY		CM_U32(28)
#define CM_REQ_QPN		CM_U24(32)
#define CM_REQ_RESP_RES		CM_U8(35)
#define CM_REQ_INIT_DEPTH	CM_U8(39)
#define CM_REQ_REMOTE_CM_TMO	CM_BYTE(43, 0xf8)
#define CM_REQ_TRANSPORT	CM_BYTE(43, 0x06)
#define CM_REQ_FLOW_CTRL	CM_BYTE(43, 0x01)
#define CM_REQ_PSN		CM_U24(44)
#define CM_REQ_LOCAL_CM_TMO	CM_BYTE(47, 0xf8)
#define CM_REQ_RETRY		CM_BYTE(47, 0x07)
#define CM_REQ_PKEY		CM_U16(48)
#define CM_REQ_MTU		CM_BYTE(50, 0xf0)
#define CM_REQ_RDC		CM_BYTE(50, 0x08)
#define CM_REQ_RNR_RETRY	CM_BYTE(50, 0x07)
#define CM_REQ_MAX_CM_RETRIES	CM_BYTE(51, 0xf0)
#define CM_REQ_SRQ		CM_BYTE(51, 0x08)
#define CM_REQ_EXT_TRANSPORT	CM_BYTE(51, 0x07)
#define CM_REQ_LOCAL_LID	CM_U16(52)
#define CM_REQ_REMOTE_LID	CM_U16(54)
#define CM_REQ_LOCAL_GID	56	/* 16 bytes: the sender's */
#define CM_REQ_REMOTE_GID	72	/* 16 bytes: the receiver's */
#define CM_REQ_FLOW_LABEL	CM_FIELD(88, 4, 0xfffff000)
#define CM_REQ_RATE		CM_BYTE(91, 0x3f)
#define CM_REQ_TCLASS		CM_U8(92)
#define CM_REQ_HOP_LIMIT	CM_U8(93)
#define CM_REQ_SL		CM_BYTE(94, 0xf0)
#define CM_REQ_SUBNET_LOCAL	CM_BYTE(94, 0x08)
#define CM_REQ_ACK_TMO		CM_BYTE(95, 0xf8)
#define CM_REQ_ALT_LOCAL_LID	CM_U16(96)
#define CM_REQ_ALT_FIRST	96	/* the alternate path: 96 to 139 */

/* Transport service types of CM_REQ_TRANSPORT. */
#define CM_TRANSPORT_RC		0
#define CM_TRANSPORT_UC		1
#define CM_TRANSPORT_EXT	3	/* see CM_REQ_EXT_TRANSPORT */
#define CM_EXT_TRANSPORT_XRC	1

/* MRA */
#define CM_MRA_MSG		CM_BYTE(8, 0xc0)
#define CM_MRA_SERVICE_TMO	CM_BYTE(9, 0xf8)

/* Which message an MRA or REJ answers. */
#define CM_MSG_RESPONSE_REQ	0
#define CM_MSG_RESPONSE_REP	1
#define CM_MSG_RESPONSE_OTHER	2

/* REJ */
#define CM_REJ_MSG		CM_BYTE(8, 0xc0)
#define CM_REJ_ARI_LEN		CM_BYTE(9, 0xfe)
#define CM_REJ_REASON		CM_U16(10)
#define CM_REJ_ARI		12	/* up to CM_INFO_MAX bytes */

/* The longest REJ ARI and SIDR_REP additional information. */
#define CM_INFO_MAX		72

/* REP */
#define CM_REP_QKEY		CM_U32(8)
#define CM_REP_QPN		CM_U24(12)
#define CM_REP_VENDOR_HI	CM_U8(15)
#define CM_REP_EECN		CM_U24(16)
#define CM_REP_VENDOR_MID	CM_U8(19)
#define CM_REP_PSN		CM_U24(20)
#define CM_REP_VENDOR_LO	CM_U8(23)
#define CM_REP_RESP_RES		CM_U8(24)
#define CM_REP_INIT_DEPTH	CM_U8(25)
#define CM_REP_ACK_DELAY	CM_BYTE(26, 0xf8)
#define CM_REP_FAILOVER		CM_BYTE(26, 0x06)
#define CM_REP_FLOW_CTRL	CM_BYTE(26, 0x01)
#define CM_REP_RNR_RETRY	CM_BYTE(27, 0xe0)
#define CM_REP_SRQ		CM_BYTE(27, 0x10)
#define CM_REP_CA_GUID		28	/* 8 bytes */

/* DREQ */
#define CM_DREQ_REMOTE_QPN	CM_U24(8)

/* SIDR_REQ */
#define CM_SIDR_REQ_ID		0	/* 4 bytes, network order */
#define CM_SIDR_REQ_PKEY	CM_U16(4)
#define CM_SIDR_REQ_SERVICE_ID	8	/* 8 bytes */

/* SIDR_REP */
#define CM_SIDR_REP_STATUS	CM_U8(4)
#define CM_SIDR_REP_INFO_LEN	CM_U8(5)
#define CM_SIDR_REP_VENDOR_HI	CM_U16(6)
#define CM_SIDR_REP_QPN		CM_U24(8)
#define CM_SIDR_REP_VENDOR_LO	CM_U8(11)
#define CM_SIDR_REP_SERVICE_ID	12	/* 8 bytes */
#define CM_SIDR_REP_QKEY	CM_U32(20)
#define CM_SIDR_REP_INFO	24	/* up to CM_INFO_MAX bytes */

/* SIDR_REP status values run from 0 (success) to this (bad version). */
#define CM_SIDR_STATUS_MAX	5

/* 32- and 64-bit fields kept in network order (IDs, GUIDs, service IDs). */
static inline __be32 cm_be32(const u8 *msg, unsigned int off)
{
	__be32 v;

	memcpy(&v, msg + off, sizeof(v));
	return v;
}

static inline __be64 cm_be64(const u8 *msg, unsigned int off)
{
	__be64 v;

	memcpy(&v, msg + off, sizeof(v));
	return v;
}

u32 cmf_get(const u8 *msg, struct cm_field f);
void cmf_set(u8 *msg, struct cm_field f, u32 val);

/**
 * struct cm_pdata_place - where a message type keeps its private data
 * @off: first byte
 * @len: bytes of room
 */
struct cm_pdata_place {
	u8 off;
	u8 len;
};

int cm_msg_type(__be16 attr_id);
struct cm_pdata_place cm_pdata_place(enum cm_msg_type type);
const char *cm_msg_name(enum cm_msg_type type);
const char *cm_msg_check(enum cm_msg_type type, const u8 *msg);
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time);
unsigned long cm_tmo_ms(u8 exponent);

#endif /* _CM_MSGS_H */
