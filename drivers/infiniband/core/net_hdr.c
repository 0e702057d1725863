// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The L3 header in front of a received UD payload.
 *
 * A UD receive buffer starts with 40 bytes that hold either a GRH (IB and
 * RoCE v1) or an IPv6 header (RoCE v2 over IPv6), both 40 bytes long, or 20
 * unused bytes followed by an IPv4 header without options (RoCE v2 over
 * IPv4).  The helpers here tell these apart and pull out the two GIDs.
 *
 * Both functions are pure: they read only the buffer they are given and
 * touch no device, lock or allocator, so they can run in any context and
 * can also be built into user-space unit tests.
 */
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/string.h>
#include <net/checksum.h>
#include <rdma/ib_net_hdr.h>

/* RoCE v2 never carries IPv4 options: the header is five 32-bit words. */
#define RDMA_IPV4_HDR_WORDS	5

/* Store @addr as the IPv4-mapped IPv6 address ::ffff:a.b.c.d in @gid. */
static void ib_gid_set_ipv4_mapped(union ib_gid *gid, __be32 addr)
{
	memset(gid->raw, 0, 10);
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	memcpy(&gid->raw[12], &addr, sizeof(addr));
}

/**
 * ib_get_rdma_header_version - tell an IPv4 from an IPv6 header area
 * @hdr: the 40 bytes that precede a received UD payload
 *
 * Works out whether @hdr holds an IPv6 header (or a GRH) or, in its last
 * 20 bytes, an IPv4 header.  Both can look plausible at the same time,
 * because the 20 bytes in front of an IPv4 header are undefined and an
 * IPv6 header's source GID overlaps the IPv4 position.  The rules are:
 *
 * - if the IPv6 version nibble (the top of byte 0) is not 6, the answer is
 *   4 when the IPv4 version nibble is 4, and 0 otherwise; no other field
 *   is looked at on this path;
 * - if it is 6 and the IPv4 header length is not 5 words, the answer is 6;
 * - otherwise the IPv4 header checksum is computed afresh (with the check
 *   field taken as zero) and compared with the stored one: 4 on a match,
 *   6 otherwise.
 *
 * This is the upstream contract, kept on purpose: a header that carries
 * 0xffff, the other encoding of a zero checksum, does not match and is
 * reported as 6.  Linux senders never emit 0xffff (the computed value is
 * at most 0xfffe for any non-zero header).
 *
 * @hdr is not modified.  A NULL @hdr gives 0 rather than a crash.
 *
 * Context: any context.
 * Return: 4 or 6 for the IP version found, 0 if neither header is valid.
 */
int ib_get_rdma_header_version(const union rdma_network_hdr *hdr)
{
	const struct iphdr *ip4;
	struct iphdr scratch;
	u32 vtf;

	if (!hdr)
		return 0;

	ip4 = &hdr->roce4grh;
	vtf = be32_to_cpu(hdr->ibgrh.version_tclass_flow);
	if (vtf >> 28 != 6)
		return ip4->version == 4 ? 4 : 0;

	if (ip4->ihl != RDMA_IPV4_HDR_WORDS)
		return 6;

	/* @hdr is const: checksum a copy whose check field is zero. */
	memcpy(&scratch, ip4, sizeof(scratch));
	scratch.check = 0;
	scratch.check = ip_fast_csum(&scratch, RDMA_IPV4_HDR_WORDS);

	return scratch.check == ip4->check ? 4 : 6;
}
EXPORT_SYMBOL(ib_get_rdma_header_version);

/**
 * ib_get_gids_from_rdma_hdr - source and destination GID of a received packet
 * @hdr: the 40 bytes that precede a received UD payload
 * @net_type: the network header type of the packet
 * @sgid: filled with the sender's GID
 * @dgid: filled with the GID the packet was sent to
 *
 * For RDMA_NETWORK_IPV4 the addresses are read from the IPv4 header in the
 * last 20 bytes of @hdr and returned as IPv4-mapped GIDs (::ffff:a.b.c.d).
 * For RDMA_NETWORK_IPV6, RDMA_NETWORK_IB and RDMA_NETWORK_ROCE_V1 the two
 * GIDs of the GRH (or IPv6 header) are copied.  Any other @net_type is
 * treated like IPv6 and also gets the GRH GIDs; this matches what callers
 * have always received, since the historical code could never reach its
 * "unknown type" branch.  No header field is validated.
 *
 * Both addresses are read before either output is written, so @sgid and
 * @dgid may point into @hdr.  On failure neither of them is written.
 *
 * Context: any context.
 * Return: 0 on success, -EINVAL if @hdr, @sgid or @dgid is NULL.
 */
int ib_get_gids_from_rdma_hdr(const union rdma_network_hdr *hdr,
			      enum rdma_network_type net_type,
			      union ib_gid *sgid, union ib_gid *dgid)
{
	union ib_gid src, dst;

	if (!hdr || !sgid || !dgid)
		return -EINVAL;

	/* Read everything before writing, in case the outputs alias @hdr. */
	if (net_type == RDMA_NETWORK_IPV4) {
		ib_gid_set_ipv4_mapped(&src, hdr->roce4grh.saddr);
		ib_gid_set_ipv4_mapped(&dst, hdr->roce4grh.daddr);
	} else {
		src = hdr->ibgrh.sgid;
		dst = hdr->ibgrh.dgid;
	}
	*sgid = src;
	*dgid = dst;
	return 0;
}
EXPORT_SYMBOL(ib_get_gids_from_rdma_hdr);
