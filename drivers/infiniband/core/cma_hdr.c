// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA CM header, Service IDs and flow label (see cma_hdr.h).
 *
 * Header layout: byte 0 the version (0), byte 1 the IP version in its
 * upper four bits, bytes 2-3 the active side's source port, bytes 4-19
 * its address, bytes 20-35 the destination address.  Multi-byte values
 * are big-endian.
 */
#include <linux/errno.h>
#include <linux/string.h>
#include <linux/types.h>
#include "cma_hdr.h"

#define CMA_HDR_OFF_IPVER	1
#define CMA_HDR_OFF_PORT	2
#define CMA_HDR_OFF_SRC		4
#define CMA_HDR_OFF_DST		20
#define CMA_V4_OFF		12	/* an IPv4 address within its 16 bytes */

/* The IP-CM Service ID prefix, and where the port space sits in it. */
#define CMA_SID_IP_PREFIX	0x0000000001000000ULL
#define CMA_SID_IP_MASK		0xFFFFFFFFFF000000ULL
#define CMA_FLOW_LABEL_MASK	0xFFFFF

static void cma_hdr_put_addr(u8 *to, u8 ipver, const u8 *addr)
{
	memset(to, 0, 16);
	if (ipver == 4)
		memcpy(to + CMA_V4_OFF, addr + CMA_V4_OFF, 4);
	else
		memcpy(to, addr, 16);
}

/**
 * cma_hdr_put() - write a header
 * @buf: CMA_HDR_LEN bytes
 * @a: what it says; for IPv4 only the last four bytes of each address
 *	are used
 */
void cma_hdr_put(u8 *buf, const struct cma_hdr_addrs *a)
{
	buf[0] = CMA_HDR_VERSION;
	buf[CMA_HDR_OFF_IPVER] = a->ipver << 4;
	buf[CMA_HDR_OFF_PORT] = a->sport >> 8;
	buf[CMA_HDR_OFF_PORT + 1] = a->sport & 0xff;
	cma_hdr_put_addr(buf + CMA_HDR_OFF_SRC, a->ipver, a->src);
	cma_hdr_put_addr(buf + CMA_HDR_OFF_DST, a->ipver, a->dst);
}

/**
 * cma_hdr_get() - read a received header
 * @buf: the private data of a REQ or SIDR_REQ
 * @len: its length
 * @a: filled on success; IPv4 addresses come back with twelve zero bytes
 *	in front whatever the sender put there
 *
 * Return: 0, or -EINVAL when @len is short, the version is not 0 or the IP
 * version is neither 4 nor 6.
 */
int cma_hdr_get(const u8 *buf, size_t len, struct cma_hdr_addrs *a)
{
	u8 ipver;

	if (len < CMA_HDR_LEN || buf[0] != CMA_HDR_VERSION)
		return -EINVAL;
	ipver = buf[CMA_HDR_OFF_IPVER] >> 4;
	if (ipver != 4 && ipver != 6)
		return -EINVAL;
	a->ipver = ipver;
	a->sport = (buf[CMA_HDR_OFF_PORT] << 8) | buf[CMA_HDR_OFF_PORT + 1];
	cma_hdr_put_addr(a->src, ipver, buf + CMA_HDR_OFF_SRC);
	cma_hdr_put_addr(a->dst, ipver, buf + CMA_HDR_OFF_DST);
	return 0;
}

static bool cma_all_zero(const u8 *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

/**
 * cma_hdr_remote_ok() - may a request come from this address?
 * @ipver: 4 or 6
 * @addr: the 16 address bytes of a header (IPv4 in the last four)
 *
 * Return: false for the unspecified address, loopback, multicast and the
 * IPv4 limited broadcast: nobody can be answered there.
 */
bool cma_hdr_remote_ok(u8 ipver, const u8 *addr)
{
	static const u8 v6_loopback[16] = { [15] = 1 };
	const u8 *v4 = addr + CMA_V4_OFF;

	if (ipver == 4)
		return !cma_all_zero(v4, 4) && v4[0] != 127 &&
		       (v4[0] & 0xf0) != 0xe0 &&
		       !(v4[0] == 0xff && v4[1] == 0xff && v4[2] == 0xff &&
			 v4[3] == 0xff);
	return !cma_all_zero(addr, 16) && memcmp(addr, v6_loopback, 16) &&
	       addr[0] != 0xff;
}

/**
 * cma_sid_make() - the Service ID of a port in an IP port space
 * @ps: the port space (enum rdma_ucm_port_space)
 * @port: the port
 *
 * Return: the Service ID in host order.
 */
u64 cma_sid_make(u16 ps, u16 port)
{
	return ((u64)ps << 16) | port;
}

/**
 * cma_sid_ps() - the port space a Service ID names
 * @sid: host order
 *
 * Return: bits 16-31 of @sid.
 */
u16 cma_sid_ps(u64 sid)
{
	return (sid >> 16) & 0xffff;
}

/**
 * cma_sid_port() - the port a Service ID names
 * @sid: host order
 *
 * Return: the low 16 bits of @sid.
 */
u16 cma_sid_port(u64 sid)
{
	return sid & 0xffff;
}

/**
 * cma_sid_is_ip() - is a Service ID one of the IP-CM range?
 * @sid: host order
 *
 * Return: true when @sid carries the IP-CM prefix of Annex A11.
 */
bool cma_sid_is_ip(u64 sid)
{
	return (sid & CMA_SID_IP_MASK) == CMA_SID_IP_PREFIX;
}

/**
 * cma_flow_label() - the flow label of a RoCE v2 connection
 * @sport: the active side's port
 * @dport: the passive side's port
 *
 * Both ends compute the same 20 bits from the two ports, so that the UDP
 * source port RoCE v2 derives from the flow label is the same whichever
 * side sends.
 *
 * Return: the flow label.
 */
u32 cma_flow_label(u16 sport, u16 dport)
{
	return ((u32)sport * 31 + dport) & CMA_FLOW_LABEL_MASK;
}
