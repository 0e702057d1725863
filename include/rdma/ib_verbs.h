/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RDMA verbs API: what kernel consumers (ULPs) and providers share.
 *
 * This header carries the contract only: types, constants, inline helpers
 * and prototypes.  Names, values and signatures follow upstream Linux so that
 * code written against upstream builds unchanged; the core's private state
 * lives under drivers/infiniband/core.
 */
#ifndef IB_VERBS_H
#define IB_VERBS_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/compiler.h>
#include <asm/byteorder.h>

/*
 * A 128-bit global identifier.  The two views alias the same 16 bytes,
 * stored in network order.
 */
union ib_gid {
	u8	raw[16];
	struct {
		__be64	subnet_prefix;
		__be64	interface_id;
	} global;
};

/* Static rate codes of an address vector (IBA 9.11 and its extensions). */
enum ib_rate {
	IB_RATE_PORT_CURRENT = 0,
	IB_RATE_2_5_GBPS = 2,
	IB_RATE_5_GBPS   = 5,
	IB_RATE_10_GBPS  = 3,
	IB_RATE_20_GBPS  = 6,
	IB_RATE_30_GBPS  = 4,
	IB_RATE_40_GBPS  = 7,
	IB_RATE_60_GBPS  = 8,
	IB_RATE_80_GBPS  = 9,
	IB_RATE_120_GBPS = 10,
	IB_RATE_14_GBPS  = 11,
	IB_RATE_56_GBPS  = 12,
	IB_RATE_112_GBPS = 13,
	IB_RATE_168_GBPS = 14,
	IB_RATE_25_GBPS  = 15,
	IB_RATE_100_GBPS = 16,
	IB_RATE_200_GBPS = 17,
	IB_RATE_300_GBPS = 18,
	IB_RATE_28_GBPS  = 19,
	IB_RATE_50_GBPS  = 20,
	IB_RATE_400_GBPS = 21,
	IB_RATE_600_GBPS = 22,
	IB_RATE_800_GBPS = 23,
	IB_RATE_1600_GBPS = 25,
};

__attribute_const__ int ib_rate_to_mult(enum ib_rate rate);
__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate);
__attribute_const__ enum ib_rate mult_to_ib_rate(int mult);

/* Path MTU codes as carried in QP attributes and port attributes. */
enum ib_mtu {
	IB_MTU_256  = 1,
	IB_MTU_512  = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5
};

/* OPA ports extend the MTU codes beyond 4096 bytes. */
enum opa_mtu {
	OPA_MTU_8192 = 6,
	OPA_MTU_10240 = 7
};

static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return -1;
	return 128 << mtu;
}

static inline enum ib_mtu ib_mtu_int_to_enum(int mtu)
{
	if (mtu >= 4096)
		return IB_MTU_4096;
	if (mtu >= 2048)
		return IB_MTU_2048;
	if (mtu >= 1024)
		return IB_MTU_1024;
	if (mtu >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

static inline int opa_mtu_enum_to_int(enum opa_mtu mtu)
{
	switch (mtu) {
	case OPA_MTU_8192:
		return 8192;
	case OPA_MTU_10240:
		return 10240;
	default:
		return ib_mtu_enum_to_int((enum ib_mtu)mtu);
	}
}

/* RoCE v2: UDP destination port and the source-port range used for ECMP. */
#define ROCE_V2_UDP_DPORT			4791
#define IB_ROCE_UDP_ENCAP_VALID_PORT_MIN	0xC000
#define IB_ROCE_UDP_ENCAP_VALID_PORT_MAX	0xFFFF
#define IB_GRH_FLOWLABEL_MASK			0x000FFFFF

/**
 * rdma_flow_label_to_udp_sport - fold a flow label into a RoCE v2 source port
 * @fl: flow label; only its low 20 bits are used
 *
 * The six bits above the low 14 are XORed into the bottom of the port and
 * the result is forced into 0xC000..0xFFFF, so that equal flow labels keep
 * a flow on one ECMP path.
 *
 * Return: a UDP source port in the RoCE v2 range.
 */
static inline u16 rdma_flow_label_to_udp_sport(u32 fl)
{
	u32 low = fl & 0x03FFF;
	u32 high = (fl & 0xFC000) >> 14;

	return (u16)((low ^ high) | IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
}

/**
 * rdma_calc_flow_label - derive a 20-bit flow label from a QP pair
 * @lqpn: local QP number
 * @rqpn: remote QP number
 *
 * The product of the two numbers is folded down to 20 bits.  Multiplication
 * commutes, so both ends of a connection compute the same label.
 *
 * Return: the flow label, in 0..0xFFFFF.
 */
static inline u32 rdma_calc_flow_label(u32 lqpn, u32 rqpn)
{
	u64 v = (u64)lqpn * rqpn;

	v ^= v >> 20;
	v ^= v >> 40;
	return (u32)(v & IB_GRH_FLOWLABEL_MASK);
}

/**
 * rdma_get_udp_sport - RoCE v2 UDP source port of a QP pair
 * @fl: flow label from the address vector, or 0 for none
 * @lqpn: local QP number
 * @rqpn: remote QP number
 *
 * A non-zero @fl wins; otherwise the label is computed from the QP numbers.
 *
 * Return: a UDP source port in the RoCE v2 range.
 */
static inline u16 rdma_get_udp_sport(u32 fl, u32 lqpn, u32 rqpn)
{
	if (!fl)
		fl = rdma_calc_flow_label(lqpn, rqpn);
	return rdma_flow_label_to_udp_sport(fl);
}

/**
 * ib_inc_rkey - step the key byte of an R_Key
 * @rkey: the current key
 *
 * Only the low eight bits (the consumer-owned key) change, wrapping from
 * 0xff to 0; the index in the upper 24 bits stays.
 *
 * Return: the next R_Key for the same memory region.
 */
static inline u32 ib_inc_rkey(u32 rkey)
{
	return (rkey & ~0xffU) | ((rkey + 1) & 0xffU);
}

/* LIDs are 16 bits on the wire but travel as u32 in the API. */
static inline u16 ib_lid_cpu16(u32 lid)
{
	WARN_ON_ONCE(lid & 0xFFFF0000);
	return (u16)lid;
}

static inline __be16 ib_lid_be16(u32 lid)
{
	WARN_ON_ONCE(lid & 0xFFFF0000);
	return cpu_to_be16((u16)lid);
}

#endif /* IB_VERBS_H */
