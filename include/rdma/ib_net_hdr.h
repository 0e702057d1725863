/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * GIDs and the network headers of IB and RoCE packets: the GRH, the
 * 40-byte area in front of a UD payload, and the RoCE v2 UDP port and flow
 * label helpers.
 *
 * Part of the verbs contract (<rdma/ib_verbs.h> includes it).  It holds only
 * wire types and pure helpers, and depends on nothing but basic types and
 * the IPv4 header layout, so the code that implements it
 * (drivers/infiniband/core/net_hdr.c) also builds into the user-space unit
 * tests under tools/testing/rdma-unit.
 */
#ifndef _RDMA_IB_NET_HDR_H
#define _RDMA_IB_NET_HDR_H

#include <linux/types.h>
#include <uapi/linux/ip.h>
#include <uapi/rdma/ib_user_ioctl_verbs.h>

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

/* How a GID entry is used on the wire. */
enum ib_gid_type {
	IB_GID_TYPE_IB = IB_UVERBS_GID_TYPE_IB,
	IB_GID_TYPE_ROCE = IB_UVERBS_GID_TYPE_ROCE_V1,
	IB_GID_TYPE_ROCE_UDP_ENCAP = IB_UVERBS_GID_TYPE_ROCE_V2,
	IB_GID_TYPE_SIZE
};

/* The network header a RoCE packet arrived with, or is to be sent with. */
enum rdma_network_type {
	RDMA_NETWORK_IB,
	RDMA_NETWORK_ROCE_V1,
	RDMA_NETWORK_IPV4,
	RDMA_NETWORK_IPV6
};

/**
 * ib_network_to_gid_type() - GID type that sends with a network header
 * @network_type: the header a packet carries
 *
 * Return: RoCE v2 for IPv4 and IPv6, RoCE v1 for RoCE v1, IB otherwise.
 */
static inline enum ib_gid_type
ib_network_to_gid_type(enum rdma_network_type network_type)
{
	if (network_type == RDMA_NETWORK_IPV4 ||
	    network_type == RDMA_NETWORK_IPV6)
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	if (network_type == RDMA_NETWORK_ROCE_V1)
		return IB_GID_TYPE_ROCE;
	return IB_GID_TYPE_IB;
}

/* Global route header, IBA 8.3.1; 40 bytes in network order. */
struct ib_grh {
	__be32		version_tclass_flow;
	__be16		paylen;
	u8		next_hdr;
	u8		hop_limit;
	union ib_gid	sgid;
	union ib_gid	dgid;
};

/*
 * The first 40 bytes of a UD receive buffer: either a GRH, or (RoCE v2 over
 * IPv4) 20 unused bytes followed by the IPv4 header.
 */
union rdma_network_hdr {
	struct ib_grh ibgrh;
	struct {
		u8		reserved[20];
		struct iphdr	roce4grh;
	};
};

int ib_get_rdma_header_version(const union rdma_network_hdr *hdr);
int ib_get_gids_from_rdma_hdr(const union rdma_network_hdr *hdr,
			      enum rdma_network_type net_type,
			      union ib_gid *sgid, union ib_gid *dgid);

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
 * The 64-bit product of the two numbers is folded down to 20 bits: the
 * label is the XOR of its 20-bit slices (bits 0-19, 20-39, 40-59 and
 * 60-63).  Multiplication commutes, so both ends of a connection compute
 * the same label.
 *
 * Return: the flow label, in 0..0xFFFFF.
 */
static inline u32 rdma_calc_flow_label(u32 lqpn, u32 rqpn)
{
	u64 product = (u64)lqpn * rqpn;
	u32 label = 0;

	for (; product; product >>= 20)
		label ^= product & IB_GRH_FLOWLABEL_MASK;
	return label;
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
	return rdma_flow_label_to_udp_sport(fl ?: rdma_calc_flow_label(lqpn,
									 rqpn));
}

#endif /* _RDMA_IB_NET_HDR_H */
