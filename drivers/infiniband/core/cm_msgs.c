// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Field access and checks for the connection manager's messages; see
 * cm_msgs.h.  Nothing here knows about devices or IDs.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cm_msgs.h"

static u32 cm_raw(const u8 *p, unsigned int len)
{
	u32 raw = 0;

	while (len--)
		raw = raw << 8 | *p++;
	return raw;
}

/**
 * cmf_get() - read a field of a CM payload
 * @msg: the 232 bytes after the MAD header
 * @f: the field
 *
 * Return: the field's value, shifted down to bit 0.
 */
u32 cmf_get(const u8 *msg, struct cm_field f)
{
	return (cm_raw(msg + f.off, f.len) & f.mask) / (f.mask & -f.mask);
}

/**
 * cmf_set() - write a field of a CM payload, leaving its neighbours be
 * @msg: the 232 bytes after the MAD header
 * @f: the field
 * @val: the value; bits that do not fit are dropped
 */
void cmf_set(u8 *msg, struct cm_field f, u32 val)
{
	u32 raw = cm_raw(msg + f.off, f.len);
	unsigned int i;

	raw = (raw & ~f.mask) | ((val * (f.mask & -f.mask)) & f.mask);
	for (i = f.len; i--; raw >>= 8)
		msg[f.off + i] = raw & 0xff;
}

/**
 * cm_msg_type() - the message type of a CM attribute ID
 * @attr_id: the MAD header's attribute ID
 *
 * Return: an enum cm_msg_type, or -EINVAL for an ID the CM class lacks.
 */
int cm_msg_type(__be16 attr_id)
{
	int type = (int)be16_to_cpu(attr_id) - CM_ATTR_ID_FIRST;

	return type >= 0 && type < CM_MSG_TYPES ? type : -EINVAL;
}

static const struct cm_pdata_place cm_pdata[CM_MSG_TYPES] = {
	[CM_MSG_REQ]	  = { 140, 92 },
	[CM_MSG_MRA]	  = { 10, 222 },
	[CM_MSG_REJ]	  = { 84, 148 },
	[CM_MSG_REP]	  = { 36, 196 },
	[CM_MSG_RTU]	  = { 8, 224 },
	[CM_MSG_DREQ]	  = { 12, 220 },
	[CM_MSG_DREP]	  = { 8, 224 },
	[CM_MSG_SIDR_REQ] = { 16, 216 },
	[CM_MSG_SIDR_REP] = { 96, 136 },
	[CM_MSG_LAP]	  = { 64, 168 },
	[CM_MSG_APR]	  = { 84, 148 },
};

/* IBTA's room per message; enum ib_cm_data_size names the same numbers. */

/**
 * cm_pdata_place() - where a message type carries its private data
 * @type: the message type
 *
 * Return: the offset and room of its private data.
 */
struct cm_pdata_place cm_pdata_place(enum cm_msg_type type)
{
	return cm_pdata[type];
}

static const char * const cm_msg_names[CM_MSG_TYPES] = {
	[CM_MSG_REQ] = "req", [CM_MSG_MRA] = "mra", [CM_MSG_REJ] = "rej",
	[CM_MSG_REP] = "rep", [CM_MSG_RTU] = "rtu", [CM_MSG_DREQ] = "dreq",
	[CM_MSG_DREP] = "drep", [CM_MSG_SIDR_REQ] = "sidr_req",
	[CM_MSG_SIDR_REP] = "sidr_rep", [CM_MSG_LAP] = "lap",
	[CM_MSG_APR] = "apr",
};

/**
 * cm_msg_name() - the short name of a message type
 * @type: the message type
 *
 * Return: "req", "mra", ... as the per-port counter files are named.
 */
const char *cm_msg_name(enum cm_msg_type type)
{
	return cm_msg_names[type];
}

static bool cm_zero_id(const u8 *msg, unsigned int off)
{
	return !memchr_inv(msg + off, 0, 4);
}

static const char *cm_check_req(const u8 *msg)
{
	u32 transport = cmf_get(msg, CM_REQ_TRANSPORT);
	u32 mtu = cmf_get(msg, CM_REQ_MTU);

	if (cm_zero_id(msg, CM_LOCAL_COMM_ID))
		return "REQ without a local communication ID";
	if (!cmf_get(msg, CM_REQ_QPN))
		return "REQ names QP 0";
	if (transport == CM_TRANSPORT_EXT) {
		if (cmf_get(msg, CM_REQ_EXT_TRANSPORT) != CM_EXT_TRANSPORT_XRC)
			return "REQ of an unknown extended transport";
	} else if (transport != CM_TRANSPORT_RC &&
		   transport != CM_TRANSPORT_UC) {
		return "REQ of an unknown transport";
	}
	if (mtu < 1 || mtu > 5)
		return "REQ with an invalid path MTU";
	return NULL;
}

static const char *cm_check_rej(const u8 *msg)
{
	if (cmf_get(msg, CM_REJ_ARI_LEN) > CM_INFO_MAX)
		return "REJ with an overlong ARI";
	if (cmf_get(msg, CM_REJ_MSG) > CM_MSG_RESPONSE_OTHER)
		return "REJ of an unknown message";
	if (cm_zero_id(msg, CM_LOCAL_COMM_ID) &&
	    cm_zero_id(msg, CM_REMOTE_COMM_ID))
		return "REJ without communication IDs";
	return NULL;
}

/**
 * cm_msg_check() - the checks a received message passes before any lookup
 * @type: its type
 * @msg: its 232 bytes
 *
 * Only what the message says about itself is checked here: known type,
 * IDs present where the protocol requires them, field values in range.
 *
 * Return: NULL when it may go on, else why it is to be dropped.
 */
const char *cm_msg_check(enum cm_msg_type type, const u8 *msg)
{
	switch (type) {
	case CM_MSG_REQ:
		return cm_check_req(msg);
	case CM_MSG_REJ:
		return cm_check_rej(msg);
	case CM_MSG_MRA:
		if (cmf_get(msg, CM_MRA_MSG) > CM_MSG_RESPONSE_OTHER)
			return "MRA of an unknown message";
		fallthrough;
	case CM_MSG_REP:
	case CM_MSG_RTU:
	case CM_MSG_DREQ:
	case CM_MSG_DREP:
		if (cm_zero_id(msg, CM_LOCAL_COMM_ID) ||
		    cm_zero_id(msg, CM_REMOTE_COMM_ID))
			return "missing communication ID";
		if (type == CM_MSG_REP && !cmf_get(msg, CM_REP_QPN))
			return "REP names QP 0";
		return NULL;
	case CM_MSG_SIDR_REQ:
		return NULL;
	case CM_MSG_SIDR_REP:
		if (cmf_get(msg, CM_SIDR_REP_STATUS) > CM_SIDR_STATUS_MAX)
			return "SIDR_REP with an unknown status";
		if (cmf_get(msg, CM_SIDR_REP_INFO_LEN) > CM_INFO_MAX)
			return "SIDR_REP with overlong additional information";
		return NULL;
	default:
		return "alternate paths (LAP/APR) are not supported";
	}
}

/**
 * cm_ack_timeout() - the QP ACK timeout a path calls for
 * @ca_ack_delay: the responder's local ACK delay (exponent of 4.096 us)
 * @packet_life_time: the path's packet life time (same unit)
 *
 * The transport timer must cover a packet's trip out and the ACK's trip
 * back plus the time the responder takes to send that ACK: roughly twice
 * the life time, or the delay when that is larger, in the exponent's
 * terms rounded up by one step when the two are close.
 *
 * Return: the timeout exponent, at most 31.
 */
u8 cm_ack_timeout(u8 ca_ack_delay, u8 packet_life_time)
{
	unsigned int round_trip = packet_life_time + 1;
	unsigned int t;

	if (round_trip >= ca_ack_delay)
		t = round_trip + (ca_ack_delay + 1 >= round_trip);
	else
		t = ca_ack_delay + (round_trip + 1 >= ca_ack_delay);
	return min(t, 31U);
}

/**
 * cm_tmo_ms() - a CM time exponent in milliseconds
 * @exponent: 4.096 us * 2^@exponent
 *
 * Return: the time rounded to a power of two of milliseconds, at least 1.
 */
unsigned long cm_tmo_ms(u8 exponent)
{
	return 1UL << (min_t(u8, exponent, 31) > 8 ? min_t(u8, exponent, 31) - 8 : 0);
}
