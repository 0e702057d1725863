/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Address helpers of the RDMA core: moving between IP socket addresses and
 * GIDs, and deriving the Ethernet addresses a RoCE port sends to from a
 * destination GID.
 *
 * A RoCE GID is an IPv6 address; an IPv4 address is carried as the
 * IPv4-mapped form ::ffff:a.b.c.d.  Everything here is a pure inline
 * function of its arguments.  Names and signatures follow upstream Linux.
 */
#ifndef IB_ADDR_H
#define IB_ADDR_H

#include <linux/errno.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/types.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

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
