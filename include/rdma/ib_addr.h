/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Address helpers of the RDMA core: moving between IP socket addresses and
 * GIDs, deriving the Ethernet addresses a RoCE port sends to from a
 * destination GID, and resolving a destination MAC through the IP stack
 * (route plus neighbour, implemented in drivers/infiniband/core/addr.c).
 *
 * A RoCE GID is an IPv6 address; an IPv4 address is carried as the
 * IPv4-mapped form ::ffff:a.b.c.d.  The inline helpers are pure functions
 * of their arguments.  Names and signatures follow upstream Linux.
 */
#ifndef IB_ADDR_H
#define IB_ADDR_H

#include <linux/errno.h>
#include <linux/if_arp.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/netdevice.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/types.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <rdma/ib_verbs.h>

/**
 * struct rdma_dev_addr - hardware addresses an IP address resolved to
 * @src_dev_addr: link-layer address of the local netdev (for IPoIB the
 *	20-byte hardware address, whose bytes 4..19 are the port GID)
 * @dst_dev_addr: link-layer address of the next hop
 * @broadcast: broadcast address of the local netdev (IPoIB keeps the
 *	P_Key in bytes 8 and 9 and the broadcast MGID from byte 4)
 * @dev_type: ARPHRD_* type of the local netdev
 * @bound_dev_if: ifindex the resolution is bound to, 0 for any
 * @transport: RDMA transport of the device the address belongs to
 * @net: namespace the addresses live in; set by the caller
 * @sgid_attr: GID entry to resolve from, when resolving by GID entry (a
 *	reference owned by the caller)
 * @network: network header type the route needs (RoCE v2 when it goes
 *	through a gateway)
 * @hoplimit: hop limit (IPv6) or TTL (IPv4) of the route
 */
struct rdma_dev_addr {
	unsigned char			src_dev_addr[MAX_ADDR_LEN];
	unsigned char			dst_dev_addr[MAX_ADDR_LEN];
	unsigned char			broadcast[MAX_ADDR_LEN];
	unsigned short			dev_type;
	int				bound_dev_if;
	enum rdma_transport_type	transport;
	struct net			*net;
	const struct ib_gid_attr	*sgid_attr;
	enum rdma_network_type		network;
	int				hoplimit;
};

/*
 * Exported by ib_core (addr.c).  rdma_translate_ip() fills the source
 * fields of @dev_addr from the netdev owning @addr, or from
 * @dev_addr->bound_dev_if when it is set (@dev_addr->net must be set);
 * -ENODEV / -EADDRNOTAVAIL when there is none.  rdma_copy_src_l2_addr()
 * copies a netdev's type, address, broadcast address and ifindex.
 */
int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr);
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev);

/*
 * Length of a socket address by family: sizeof(struct sockaddr_in),
 * sockaddr_in6 or sockaddr_ib, and 0 for any other family.  The _in6 and
 * _kss forms also return 0 when that length would not fit the type passed.
 */
/*
 * Asynchronous resolution of an IP destination (the RDMA CM's address
 * step): the callback comes once, from process context, unless
 * rdma_addr_cancel() on the same @addr came first.
 */
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context);
void rdma_addr_cancel(struct rdma_dev_addr *addr);

int rdma_addr_size(const struct sockaddr *addr);
int rdma_addr_size_in6(struct sockaddr_in6 *addr);
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr);

/*
 * Destination MAC and hop limit of a RoCE destination GID, seen from the
 * netdev and namespace of @sgid_attr: route lookup, then the neighbour
 * table (waiting up to about a second for the neighbour to resolve).
 * Sleeps.  0 on success, else a negative errno (-EINVAL, -ENODEV,
 * -ENETUNREACH / -EHOSTUNREACH from the route, -ETIMEDOUT when the
 * neighbour did not resolve in time).
 */
int rdma_addr_find_l2_eth_by_grh(const union ib_gid *sgid,
				 const union ib_gid *dgid,
				 u8 *dmac, const struct ib_gid_attr *sgid_attr,
				 int *hoplimit);

/**
 * ib_addr_get_pkey - P_Key an IPoIB broadcast address carries
 * @dev_addr: resolved addresses of an IPoIB netdev
 *
 * Return: the 16-bit P_Key stored big-endian in bytes 8 and 9 of
 * @dev_addr->broadcast.
 */
static inline u16 ib_addr_get_pkey(struct rdma_dev_addr *dev_addr)
{
	return (u16)(dev_addr->broadcast[8] << 8) | dev_addr->broadcast[9];
}

/**
 * ib_addr_set_pkey - store a P_Key into an IPoIB broadcast address
 * @dev_addr: addresses to update
 * @pkey: the P_Key, written big-endian into bytes 8 and 9 of
 *	@dev_addr->broadcast
 */
static inline void ib_addr_set_pkey(struct rdma_dev_addr *dev_addr, u16 pkey)
{
	dev_addr->broadcast[8] = pkey >> 8;
	dev_addr->broadcast[9] = pkey & 0xff;
}

/**
 * ib_addr_get_mgid - broadcast MGID of an IPoIB netdev
 * @dev_addr: resolved addresses of an IPoIB netdev
 * @gid: receives the 16 bytes starting at byte 4 of @dev_addr->broadcast
 */
static inline void ib_addr_get_mgid(struct rdma_dev_addr *dev_addr,
				    union ib_gid *gid)
{
	memcpy(gid, &dev_addr->broadcast[4], sizeof(*gid));
}

/**
 * rdma_addr_gid_offset - where the GID sits in a hardware address
 * @dev_addr: resolved addresses
 *
 * Return: 4 for an IPoIB (ARPHRD_INFINIBAND) netdev, whose 20-byte address
 * starts with the QPN, and 0 otherwise.
 */
static inline int rdma_addr_gid_offset(struct rdma_dev_addr *dev_addr)
{
	return dev_addr->dev_type == ARPHRD_INFINIBAND ? 4 : 0;
}

/**
 * rdma_vlan_dev_vlan_id - VLAN ID of a netdev
 * @dev: the netdev
 *
 * Return: the VLAN ID when @dev is a VLAN device, 0xffff otherwise.
 */
static inline u16 rdma_vlan_dev_vlan_id(const struct net_device *dev)
{
	if (!is_vlan_dev(dev))
		return 0xffff;
	return vlan_dev_vlan_id(dev);
}

/**
 * rdma_vlan_dev_real_dev - the netdev a VLAN device sits on
 * @dev: the netdev
 *
 * Return: the real device under @dev when @dev is a VLAN device, NULL
 * otherwise.
 */
static inline struct net_device *
rdma_vlan_dev_real_dev(const struct net_device *dev)
{
	if (!is_vlan_dev(dev))
		return NULL;
	return vlan_dev_real_dev(dev);
}

/**
 * rdma_get_vlan_id - VLAN ID embedded in a GID
 * @dgid: the GID
 *
 * Some link-local GIDs carry a VLAN ID in bytes 11 and 12 of the interface
 * id (where an EUI-64 has ff:fe).
 *
 * Return: that 12-bit VLAN ID, or 0xffff when the two bytes do not hold
 * one (value 0x1000 or above).
 */
static inline u16 rdma_get_vlan_id(union ib_gid *dgid)
{
	u16 vid = (u16)(dgid->raw[11] << 8) | dgid->raw[12];

	return vid < VLAN_N_VID ? vid : 0xffff;
}

/**
 * rdma_addr_get_sgid - source GID stored in resolved addresses
 * @dev_addr: resolved addresses (IB and iWARP; RoCE GIDs come from IPs)
 * @gid: receives the GID at rdma_addr_gid_offset() of @src_dev_addr
 */
static inline void rdma_addr_get_sgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid, dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr),
	       sizeof(*gid));
}

/**
 * rdma_addr_set_sgid - store the source GID into resolved addresses
 * @dev_addr: addresses to update (IB and iWARP)
 * @gid: the GID, written at rdma_addr_gid_offset() of @src_dev_addr
 */
static inline void rdma_addr_set_sgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(dev_addr->src_dev_addr + rdma_addr_gid_offset(dev_addr), gid,
	       sizeof(*gid));
}

/**
 * rdma_addr_get_dgid - destination GID stored in resolved addresses
 * @dev_addr: resolved addresses (IB and iWARP)
 * @gid: receives the GID at rdma_addr_gid_offset() of @dst_dev_addr
 */
static inline void rdma_addr_get_dgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(gid, dev_addr->dst_dev_addr + rdma_addr_gid_offset(dev_addr),
	       sizeof(*gid));
}

/**
 * rdma_addr_set_dgid - store the destination GID into resolved addresses
 * @dev_addr: addresses to update (IB and iWARP)
 * @gid: the GID, written at rdma_addr_gid_offset() of @dst_dev_addr
 */
static inline void rdma_addr_set_dgid(struct rdma_dev_addr *dev_addr,
				      union ib_gid *gid)
{
	memcpy(dev_addr->dst_dev_addr + rdma_addr_gid_offset(dev_addr), gid,
	       sizeof(*gid));
}

/**
 * iboe_get_mtu - largest IB MTU that fits an Ethernet MTU
 * @mtu: the netdev MTU in bytes
 *
 * Room is left for the largest set of RoCE headers a packet can carry:
 * GRH (40 bytes), UDP (8), BTH (12), XRC extension (4), AtomicETH (28)
 * and ICRC (4), 96 bytes in all.
 *
 * Return: the largest IB_MTU_* whose payload fits what remains, or 0 when
 * not even IB_MTU_256 does.
 */
static inline enum ib_mtu iboe_get_mtu(int mtu)
{
	int room = mtu - (40 + 8 + 12 + 4 + 28 + 4);
	int m;

	for (m = IB_MTU_4096; m >= IB_MTU_256; m--)
		if (room >= ib_mtu_enum_to_int((enum ib_mtu)m))
			return (enum ib_mtu)m;
	return 0;
}

/**
 * rdma_ip2gid - turn an IP socket address into a GID
 * @addr: an AF_INET or AF_INET6 socket address; only the address is used
 * @gid: receives the GID
 *
 * An IPv4 address becomes the IPv4-mapped GID ::ffff:a.b.c.d; an IPv6
 * address is taken as it is.  For any other family @gid is left alone.
 *
 * Return: 0 on success, -EINVAL for an address family other than
 * AF_INET and AF_INET6.
 */
static inline int rdma_ip2gid(struct sockaddr *addr, union ib_gid *gid)
{
	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;

		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr,
				       (struct in6_addr *)gid);
		return 0;
	}
	if (addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)addr;

		memcpy(gid->raw, sin6->sin6_addr.s6_addr, sizeof(gid->raw));
		return 0;
	}
	return -EINVAL;
}

/**
 * rdma_gid2ip - turn a GID into an IP socket address
 * @out: receives the socket address; must have room for a sockaddr_in6
 *	 (a sockaddr_storage, or a union of sockaddr_in and sockaddr_in6)
 * @gid: the GID
 *
 * An IPv4-mapped GID gives an AF_INET address, any other GID an AF_INET6
 * address.  The port, flow info and scope id come back as zero, and so do
 * the unused bytes of the sockaddr_in that is written.
 */
static inline void rdma_gid2ip(struct sockaddr *out, const union ib_gid *gid)
{
	const struct in6_addr *a6 = (const struct in6_addr *)gid;

	if (ipv6_addr_v4mapped(a6)) {
		struct sockaddr_in *sin = (struct sockaddr_in *)out;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = a6->s6_addr32[3];
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)out;

		memset(sin6, 0, sizeof(*sin6));
		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = *a6;
	}
}

/**
 * rdma_link_local_addr - test for an IPv6 link-local GID
 * @addr: the GID, seen as an IPv6 address
 *
 * Only the strict form is recognised: the first 64 bits must be exactly
 * fe80:0:0:0, as in a GID built from a MAC address.
 *
 * Return: 1 if @addr is link-local in that sense, 0 otherwise.
 */
static inline int rdma_link_local_addr(struct in6_addr *addr)
{
	return addr->s6_addr32[0] == cpu_to_be32(0xfe800000) &&
	       addr->s6_addr32[1] == 0;
}

/**
 * rdma_get_ll_mac - recover the MAC address from a link-local GID
 * @addr: a link-local GID whose interface id is a modified EUI-64
 * @mac: receives the six MAC bytes
 *
 * The interface id holds the MAC with ff:fe inserted in the middle and the
 * universal/local bit (0x02 of the first byte) inverted.  This drops the
 * two inserted bytes and inverts the bit back.  @addr is not checked to be
 * link-local; see rdma_link_local_addr().
 */
static inline void rdma_get_ll_mac(struct in6_addr *addr, u8 *mac)
{
	mac[0] = addr->s6_addr[8] ^ 0x02;
	mac[1] = addr->s6_addr[9];
	mac[2] = addr->s6_addr[10];
	mac[3] = addr->s6_addr[13];
	mac[4] = addr->s6_addr[14];
	mac[5] = addr->s6_addr[15];
}

/**
 * rdma_is_multicast_addr - test for a multicast GID
 * @addr: the GID, seen as an IPv6 address
 *
 * IPv6 multicast is ff00::/8.  An IPv4-mapped GID is multicast when its
 * IPv4 address is in 224.0.0.0/4.
 *
 * Return: 1 if @addr is a multicast address, 0 otherwise.
 */
static inline int rdma_is_multicast_addr(struct in6_addr *addr)
{
	if (addr->s6_addr[0] == 0xff)
		return 1;
	return ipv6_addr_v4mapped(addr) &&
	       ipv4_is_multicast(addr->s6_addr32[3]);
}

/**
 * rdma_get_mcast_mac - Ethernet multicast MAC of an IPv6 multicast GID
 * @addr: an IPv6 multicast GID
 * @mac: receives the six MAC bytes
 *
 * The MAC is 33:33 followed by the last four bytes of @addr (RFC 2464).
 * @addr is not checked to be multicast, and IPv4-mapped GIDs need the
 * 01:00:5e mapping instead, which this helper does not do.
 */
static inline void rdma_get_mcast_mac(struct in6_addr *addr, u8 *mac)
{
	mac[0] = 0x33;
	mac[1] = 0x33;
	memcpy(&mac[2], &addr->s6_addr[12], 4);
}

#endif /* IB_ADDR_H */
