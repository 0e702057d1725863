// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/net_hdr.c: telling an IPv4 from an IPv6 header in
 * the 40 bytes in front of a UD payload, and pulling the GIDs out of it.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <rdma/ib_net_hdr.h>
#include "unit.h"

/*
 * A real IPv4 header (192.168.0.1 -> 192.168.0.199, UDP, 115 bytes) with
 * its checksum 0xb861 as captured on a wire.
 */
static const u8 ipv4_sample[20] = {
	0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
	0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
};

static const u8 gid_a[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
			      0x50, 0x54, 0x00, 0xff, 0xfe, 0x00, 0x00, 0x01 };
static const u8 gid_b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 0x02 };

/* RoCE v2 over IPv4: 20 bytes of whatever, then the IPv4 header. */
static void make_v4(union rdma_network_hdr *h, u8 pad)
{
	memset(h, pad, sizeof(*h));
	memcpy(&h->roce4grh, ipv4_sample, sizeof(ipv4_sample));
}

static void make_grh(union rdma_network_hdr *h)
{
	memset(h, 0, sizeof(*h));
	h->ibgrh.version_tclass_flow = cpu_to_be32(6U << 28 | 0x12345);
	h->ibgrh.paylen = cpu_to_be16(64);
	h->ibgrh.next_hdr = 17;
	h->ibgrh.hop_limit = 64;
	memcpy(h->ibgrh.sgid.raw, gid_a, 16);
	memcpy(h->ibgrh.dgid.raw, gid_b, 16);
}

UNIT_TEST(net_hdr, layout_is_40_bytes)
{
	union rdma_network_hdr h;

	EXPECT_EQ(sizeof(struct ib_grh), 40);
	EXPECT_EQ(sizeof(h), 40);
	EXPECT_EQ((u8 *)&h.roce4grh - (u8 *)&h, 20);
	EXPECT_EQ((u8 *)&h.ibgrh.sgid - (u8 *)&h, 8);
	EXPECT_EQ((u8 *)&h.ibgrh.dgid - (u8 *)&h, 24);
}

UNIT_TEST(net_hdr, version_ipv4_with_zero_pad)
{
	union rdma_network_hdr h;

	make_v4(&h, 0);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
}

UNIT_TEST(net_hdr, version_ipv4_behind_v6_looking_pad)
{
	union rdma_network_hdr h;

	/* Pad starts with nibble 6: the checksum has to decide, and it is right. */
	make_v4(&h, 0x60);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
}

UNIT_TEST(net_hdr, version_bad_checksum_behind_v6_pad_is_v6)
{
	union rdma_network_hdr h;

	make_v4(&h, 0x60);
	h.roce4grh.check ^= cpu_to_be16(1);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
	/* Any single flipped bit of the header breaks the match. */
	make_v4(&h, 0x60);
	h.roce4grh.daddr ^= cpu_to_be32(0x100);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
}

/*
 * An IPv4 header whose other fields sum to 0xffff has checksum zero.  The
 * contract recomputes and compares, so only 0x0000 counts as a match; the
 * other encoding, 0xffff, is reported as IPv6 like upstream does.
 */
UNIT_TEST(net_hdr, version_zero_checksum_only_as_0x0000)
{
	union rdma_network_hdr h;
	u8 *ip = (u8 *)&h.roce4grh;
	u32 sum = 0;
	unsigned int i;

	make_v4(&h, 0x60);
	/* Choose the ID so that every 16-bit word but the check sums to 0xffff. */
	ip[4] = 0;
	ip[5] = 0;
	for (i = 0; i < 20; i += 2)
		if (i != 10)
			sum += ip[i] << 8 | ip[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	ip[4] = (0xffff - sum) >> 8;
	ip[5] = (0xffff - sum) & 0xff;

	ip[10] = 0xff;
	ip[11] = 0xff;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
	ip[10] = 0;
	ip[11] = 0;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
	ip[11] = 1;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
}

UNIT_TEST(net_hdr, version_checksum_not_needed_without_v6_nibble)
{
	union rdma_network_hdr h;

	/* Not 6 in front: only the IPv4 version nibble counts. */
	make_v4(&h, 0);
	h.roce4grh.check = 0;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
	h.roce4grh.ihl = 7;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
}

UNIT_TEST(net_hdr, version_ipv6_grh)
{
	union rdma_network_hdr h;

	make_grh(&h);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
}

UNIT_TEST(net_hdr, version_ipv6_with_ihl_not_5)
{
	union rdma_network_hdr h;

	/* Byte 20 is sgid[12]: version 4 there but IHL 6 means no IPv4. */
	make_v4(&h, 0x60);
	h.roce4grh.ihl = 6;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 6);
}

UNIT_TEST(net_hdr, version_ipv6_whose_sgid_mimics_ipv4)
{
	union rdma_network_hdr h, copy;

	/*
	 * An IPv6 header whose last 20 bytes happen to be a valid IPv4 header:
	 * the documented rule answers 4.  The header is not modified.
	 */
	make_grh(&h);
	memcpy(&h.roce4grh, ipv4_sample, sizeof(ipv4_sample));
	copy = h;
	EXPECT_EQ(ib_get_rdma_header_version(&h), 4);
	EXPECT_MEMEQ(&h, &copy, sizeof(h));
}

UNIT_TEST(net_hdr, version_neither)
{
	union rdma_network_hdr h;

	memset(&h, 0, sizeof(h));
	EXPECT_EQ(ib_get_rdma_header_version(&h), 0);
	/* Version 4 in the IPv6 position is not an IPv4 header. */
	h.ibgrh.version_tclass_flow = cpu_to_be32(4U << 28);
	EXPECT_EQ(ib_get_rdma_header_version(&h), 0);
	memset(&h, 0xff, sizeof(h));
	EXPECT_EQ(ib_get_rdma_header_version(&h), 0);
	EXPECT_EQ(ib_get_rdma_header_version(NULL), 0);
}

UNIT_TEST(net_hdr, gids_ipv4_are_v4_mapped)
{
	static const u8 want_s[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				       192, 168, 0, 1 };
	static const u8 want_d[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				       192, 168, 0, 199 };
	union rdma_network_hdr h;
	union ib_gid s, d;

	make_v4(&h, 0xaa);
	memset(&s, 0x11, sizeof(s));
	memset(&d, 0x22, sizeof(d));
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &s, &d), 0);
	EXPECT_MEMEQ(s.raw, want_s, 16);
	EXPECT_MEMEQ(d.raw, want_d, 16);
}

UNIT_TEST(net_hdr, gids_grh_types_copy_grh)
{
	static const enum rdma_network_type types[] = {
		RDMA_NETWORK_IB, RDMA_NETWORK_ROCE_V1, RDMA_NETWORK_IPV6,
		(enum rdma_network_type)7,
	};
	union rdma_network_hdr h;
	union ib_gid s, d;
	unsigned int i;

	make_grh(&h);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		memset(&s, 0, sizeof(s));
		memset(&d, 0, sizeof(d));
		EXPECT_EQ(ib_get_gids_from_rdma_hdr(&h, types[i], &s, &d), 0);
		EXPECT_MEMEQ(s.raw, gid_a, 16);
		EXPECT_MEMEQ(d.raw, gid_b, 16);
	}
}

UNIT_TEST(net_hdr, gids_null_arguments)
{
	union rdma_network_hdr h;
	union ib_gid s, d, before;

	make_grh(&h);
	memset(&before, 0x5a, sizeof(before));
	s = before;
	d = before;
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(NULL, RDMA_NETWORK_IPV6, &s, &d), -EINVAL);
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV6, NULL, &d), -EINVAL);
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV6, &s, NULL), -EINVAL);
	/* Nothing was written on failure. */
	EXPECT_MEMEQ(&s, &before, sizeof(s));
	EXPECT_MEMEQ(&d, &before, sizeof(d));
}

UNIT_TEST(net_hdr, gids_outputs_may_alias_header)
{
	union rdma_network_hdr h;

	/* Swap the two GIDs in place: both are read before either is written. */
	make_grh(&h);
	EXPECT_EQ(ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV6,
					    &h.ibgrh.dgid, &h.ibgrh.sgid), 0);
	EXPECT_MEMEQ(h.ibgrh.sgid.raw, gid_b, 16);
	EXPECT_MEMEQ(h.ibgrh.dgid.raw, gid_a, 16);
}

UNIT_TEST(net_hdr, network_to_gid_type)
{
	EXPECT_EQ(ib_network_to_gid_type(RDMA_NETWORK_IPV4), IB_GID_TYPE_ROCE_UDP_ENCAP);
	EXPECT_EQ(ib_network_to_gid_type(RDMA_NETWORK_IPV6), IB_GID_TYPE_ROCE_UDP_ENCAP);
	EXPECT_EQ(ib_network_to_gid_type(RDMA_NETWORK_ROCE_V1), IB_GID_TYPE_ROCE);
	EXPECT_EQ(ib_network_to_gid_type(RDMA_NETWORK_IB), IB_GID_TYPE_IB);
	EXPECT_EQ(IB_GID_TYPE_IB, 0);
	EXPECT_EQ(IB_GID_TYPE_ROCE, 1);
	EXPECT_EQ(IB_GID_TYPE_ROCE_UDP_ENCAP, 2);
}
