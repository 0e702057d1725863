// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 UDP source port and flow label helpers of <rdma/ib_net_hdr.h>,
 * against the bit-exact vectors of the API contract (API.md section 3).
 */
#include <linux/kernel.h>
#include <rdma/ib_net_hdr.h>
#include "unit.h"

UNIT_TEST(flow_label, sport_vectors)
{
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x0), 0xC000);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x1), 0xC001);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x3FFF), 0xFFFF);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x4000), 0xC001);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x12345), 0xE341);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0xFFFFF), 0xFFC0);
}

UNIT_TEST(flow_label, sport_ignores_bits_above_19)
{
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0x100000), 0xC000);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0xFFFFFFFF), 0xFFC0);
	EXPECT_EQ(rdma_flow_label_to_udp_sport(0xABC12345),
		  rdma_flow_label_to_udp_sport(0x12345));
}

UNIT_TEST(flow_label, sport_always_in_roce_range)
{
	u32 fl;

	for (fl = 0; fl <= IB_GRH_FLOWLABEL_MASK; fl += 7) {
		u16 p = rdma_flow_label_to_udp_sport(fl);

		if (!EXPECT_GE(p, IB_ROCE_UDP_ENCAP_VALID_PORT_MIN))
			break;
	}
}

UNIT_TEST(flow_label, calc_vectors)
{
	EXPECT_EQ(rdma_calc_flow_label(0, 0), 0x00000);
	EXPECT_EQ(rdma_calc_flow_label(1, 1), 0x00001);
	EXPECT_EQ(rdma_calc_flow_label(0x11, 0x22), 0x00242);
	EXPECT_EQ(rdma_calc_flow_label(0x123456, 0xABCDEF), 0xAC3E3);
	EXPECT_EQ(rdma_calc_flow_label(0xFFFFFF, 0xFFFFFF), 0xFFF1E);
	EXPECT_EQ(rdma_calc_flow_label(2, 0x80001), 0x00003);
}

UNIT_TEST(flow_label, calc_is_symmetric_and_20_bits)
{
	static const u32 qpns[] = { 0, 1, 2, 0x11, 0x22, 0x3fff, 0x80001,
				    0x123456, 0xABCDEF, 0xFFFFFF, 0xFFFFFFFF };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(qpns); i++)
		for (j = 0; j < ARRAY_SIZE(qpns); j++) {
			u32 a = rdma_calc_flow_label(qpns[i], qpns[j]);

			EXPECT_EQ(a, rdma_calc_flow_label(qpns[j], qpns[i]));
			EXPECT_EQ(a & ~IB_GRH_FLOWLABEL_MASK, 0);
		}
}

UNIT_TEST(flow_label, get_udp_sport_vectors)
{
	EXPECT_EQ(rdma_get_udp_sport(0, 0x123456, 0xABCDEF), 0xC3C8);
	EXPECT_EQ(rdma_get_udp_sport(0, 0xFFFFFF, 0xFFFFFF), 0xFF21);
	/* A non-zero flow label wins over the QP numbers. */
	EXPECT_EQ(rdma_get_udp_sport(0x12345, 7, 9), 0xE341);
	/* No label and a zero product: the bottom of the range. */
	EXPECT_EQ(rdma_get_udp_sport(0, 0, 0x123), 0xC000);
	EXPECT_EQ(rdma_get_udp_sport(0, 0x456, 0), 0xC000);
}

UNIT_TEST(flow_label, roce_constants)
{
	EXPECT_EQ(ROCE_V2_UDP_DPORT, 4791);
	EXPECT_EQ(IB_ROCE_UDP_ENCAP_VALID_PORT_MIN, 0xC000);
	EXPECT_EQ(IB_ROCE_UDP_ENCAP_VALID_PORT_MAX, 0xFFFF);
	EXPECT_EQ(IB_GRH_FLOWLABEL_MASK, 0xFFFFF);
}
