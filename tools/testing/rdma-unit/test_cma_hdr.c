// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/cma_hdr.c: the RDMA CM header, the IP port
 * spaces' Service IDs and the RoCE v2 flow label.  Expected bytes are
 * written out from CM.md 3.1-3.2 and 2.3, not computed with the code under
 * test.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "../../../drivers/infiniband/core/cma_hdr.h"
#include "unit.h"

UNIT_TEST(cma_hdr, ipv4_layout)
{
	static const u8 want[CMA_HDR_LEN] = {
		0x00, 0x40, 0x9c, 0x41,
		[16] = 10, 0, 0, 1,
		[32] = 10, 0, 0, 2,
	};
	struct cma_hdr_addrs a = { .ipver = 4, .sport = 40001 };
	u8 buf[CMA_HDR_LEN];

	/* The first twelve bytes of an IPv4 address are not sent. */
	memset(a.src, 0xee, 12);
	a.src[12] = 10; a.src[15] = 1;
	a.dst[12] = 10; a.dst[15] = 2;
	memset(buf, 0xff, sizeof(buf));
	cma_hdr_put(buf, &a);
	EXPECT_MEMEQ(buf, want, CMA_HDR_LEN);
}

UNIT_TEST(cma_hdr, ipv6_layout_and_back)
{
	struct cma_hdr_addrs a = { .ipver = 6, .sport = 0x1234 }, b;
	u8 buf[CMA_HDR_LEN + 56] = {};
	int i;

	for (i = 0; i < 16; i++) {
		a.src[i] = 0x20 + i;
		a.dst[i] = 0x40 + i;
	}
	cma_hdr_put(buf, &a);
	EXPECT_EQ(buf[1], 0x60);
	EXPECT_EQ(buf[2], 0x12);
	EXPECT_EQ(buf[3], 0x34);
	EXPECT_EQ(buf[4], 0x20);
	EXPECT_EQ(buf[35], 0x4f);
	EXPECT_EQ(cma_hdr_get(buf, sizeof(buf), &b), 0);
	EXPECT_EQ(b.ipver, 6);
	EXPECT_EQ(b.sport, 0x1234);
	EXPECT_MEMEQ(b.src, a.src, 16);
	EXPECT_MEMEQ(b.dst, a.dst, 16);
}

UNIT_TEST(cma_hdr, received_ipv4_padding_is_ignored)
{
	u8 buf[CMA_HDR_LEN] = { 0x00, 0x45, 0x00, 0x50 };
	struct cma_hdr_addrs b;

	memset(buf + 4, 0x99, 12);	/* junk a sender put in the padding */
	buf[16] = 192; buf[17] = 168; buf[18] = 1; buf[19] = 7;
	buf[32] = 192; buf[33] = 168; buf[34] = 1; buf[35] = 8;
	EXPECT_EQ(cma_hdr_get(buf, sizeof(buf), &b), 0);
	EXPECT_EQ(b.ipver, 4);
	EXPECT_EQ(b.sport, 80);
	EXPECT_EQ(b.src[0], 0);
	EXPECT_EQ(b.src[11], 0);
	EXPECT_EQ(b.src[12], 192);
	EXPECT_EQ(b.src[15], 7);
	EXPECT_EQ(b.dst[15], 8);
}

UNIT_TEST(cma_hdr, bad_headers)
{
	u8 buf[CMA_HDR_LEN] = { 0x00, 0x40 };
	struct cma_hdr_addrs b;

	EXPECT_EQ(cma_hdr_get(buf, CMA_HDR_LEN - 1, &b), -EINVAL);
	EXPECT_EQ(cma_hdr_get(buf, CMA_HDR_LEN, &b), 0);
	buf[0] = 0x10;				/* version 1.0 */
	EXPECT_EQ(cma_hdr_get(buf, CMA_HDR_LEN, &b), -EINVAL);
	buf[0] = 0;
	buf[1] = 0x04;				/* IP version in the low nibble */
	EXPECT_EQ(cma_hdr_get(buf, CMA_HDR_LEN, &b), -EINVAL);
	buf[1] = 0x50;
	EXPECT_EQ(cma_hdr_get(buf, CMA_HDR_LEN, &b), -EINVAL);
}

UNIT_TEST(cma_hdr, remote_addresses)
{
	u8 v4[16] = { [12] = 10, 0, 0, 2 };
	u8 v6[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };

	EXPECT_TRUE(cma_hdr_remote_ok(4, v4));
	v4[12] = 127;
	EXPECT_FALSE(cma_hdr_remote_ok(4, v4));
	v4[12] = 224;
	EXPECT_FALSE(cma_hdr_remote_ok(4, v4));
	memset(v4 + 12, 0xff, 4);
	EXPECT_FALSE(cma_hdr_remote_ok(4, v4));
	memset(v4 + 12, 0, 4);
	EXPECT_FALSE(cma_hdr_remote_ok(4, v4));
	EXPECT_TRUE(cma_hdr_remote_ok(6, v6));
	v6[0] = 0xff;
	EXPECT_FALSE(cma_hdr_remote_ok(6, v6));
	memset(v6, 0, 16);
	EXPECT_FALSE(cma_hdr_remote_ok(6, v6));
	v6[15] = 1;				/* ::1 */
	EXPECT_FALSE(cma_hdr_remote_ok(6, v6));
}

UNIT_TEST(cma_hdr, service_ids)
{
	/* rping's default port 7174 in the TCP port space */
	EXPECT_EQ(cma_sid_make(0x0106, 7174), 0x0000000001061C06ULL);
	EXPECT_EQ(cma_sid_make(0x0111, 1), 0x0000000001110001ULL);
	EXPECT_EQ(cma_sid_make(0x013F, 0xffff), 0x00000000013FFFFFULL);
	EXPECT_EQ(cma_sid_ps(0x0000000001061C06ULL), 0x0106);
	EXPECT_EQ(cma_sid_port(0x0000000001061C06ULL), 7174);
	EXPECT_TRUE(cma_sid_is_ip(0x0000000001061C06ULL));
	EXPECT_FALSE(cma_sid_is_ip(0x0200000000000001ULL));
	EXPECT_FALSE(cma_sid_is_ip(0x0000000000020001ULL));
}

UNIT_TEST(cma_hdr, flow_label)
{
	EXPECT_EQ(cma_flow_label(40001, 7174), (40001 * 31 + 7174) & 0xfffff);
	EXPECT_EQ(cma_flow_label(0xffff, 0xffff), (0xffffu * 32) & 0xfffff);
	EXPECT_EQ(cma_flow_label(0, 0), 0);
}
