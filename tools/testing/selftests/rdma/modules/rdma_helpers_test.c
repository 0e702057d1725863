// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the RDMA core's device-independent helpers: static rate
 * codes, MTU codes, RoCE v2 flow label and UDP source port folding, R_Key
 * and LID helpers.  Expected values are the ones the API contract lists
 * (rate table and the bit-exact flow-label vectors).
 */
#include <linux/module.h>
#include <rdma/ib_verbs.h>
#include "rdma_ktap.h"

struct rate_want {
	enum ib_rate rate;
	int mult;
	int mbps;
};

static const struct rate_want rate_table[] = {
	{ IB_RATE_2_5_GBPS,    1,    2500 },
	{ IB_RATE_5_GBPS,      2,    5000 },
	{ IB_RATE_10_GBPS,     4,   10000 },
	{ IB_RATE_20_GBPS,     8,   20000 },
	{ IB_RATE_30_GBPS,    12,   30000 },
	{ IB_RATE_40_GBPS,    16,   40000 },
	{ IB_RATE_60_GBPS,    24,   60000 },
	{ IB_RATE_80_GBPS,    32,   80000 },
	{ IB_RATE_120_GBPS,   48,  120000 },
	{ IB_RATE_14_GBPS,     6,   14062 },
	{ IB_RATE_56_GBPS,    22,   56250 },
	{ IB_RATE_112_GBPS,   45,  112500 },
	{ IB_RATE_168_GBPS,   67,  168750 },
	{ IB_RATE_25_GBPS,    10,   25781 },
	{ IB_RATE_100_GBPS,   40,  103125 },
	{ IB_RATE_200_GBPS,   80,  206250 },
	{ IB_RATE_300_GBPS,  120,  309375 },
	{ IB_RATE_28_GBPS,    11,   28125 },
	{ IB_RATE_50_GBPS,    20,   53125 },
	{ IB_RATE_400_GBPS,  160,  425000 },
	{ IB_RATE_600_GBPS,  240,  637500 },
	{ IB_RATE_800_GBPS,  320,  850000 },
	{ IB_RATE_1600_GBPS, 640, 1700000 },
};

static void rate_codes_to_mult(struct rdma_ktap_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_table); i++)
		RDMA_KT_EQ(ctx, ib_rate_to_mult(rate_table[i].rate),
			   rate_table[i].mult);
}

static void rate_codes_to_mbps(struct rdma_ktap_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_table); i++)
		RDMA_KT_EQ(ctx, ib_rate_to_mbps(rate_table[i].rate),
			   rate_table[i].mbps);
}

static void rate_unknown_codes(struct rdma_ktap_ctx *ctx)
{
	static const int bad[] = { IB_RATE_PORT_CURRENT, 1, 24, 26, 255, -1,
				   1000 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		RDMA_KT_EQ(ctx, ib_rate_to_mult((enum ib_rate)bad[i]), -1);
		RDMA_KT_EQ(ctx, ib_rate_to_mbps((enum ib_rate)bad[i]), -1);
	}
}

static void rate_mult_round_trip(struct rdma_ktap_ctx *ctx)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_table); i++)
		RDMA_KT_EQ(ctx, mult_to_ib_rate(rate_table[i].mult),
			   rate_table[i].rate);
}

static void rate_mult_unknown(struct rdma_ktap_ctx *ctx)
{
	static const int bad[] = { 0, -1, -5, 3, 5, 7, 641, 100000 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		RDMA_KT_EQ(ctx, mult_to_ib_rate(bad[i]), IB_RATE_PORT_CURRENT);
}

static void mtu_codes(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int(IB_MTU_256), 256);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int(IB_MTU_512), 512);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int(IB_MTU_1024), 1024);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int(IB_MTU_2048), 2048);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int(IB_MTU_4096), 4096);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int((enum ib_mtu)0), -1);
	RDMA_KT_EQ(ctx, ib_mtu_enum_to_int((enum ib_mtu)6), -1);
	RDMA_KT_EQ(ctx, ib_mtu_int_to_enum(9000), IB_MTU_4096);
	RDMA_KT_EQ(ctx, ib_mtu_int_to_enum(4095), IB_MTU_2048);
	RDMA_KT_EQ(ctx, ib_mtu_int_to_enum(1500), IB_MTU_1024);
	RDMA_KT_EQ(ctx, ib_mtu_int_to_enum(512), IB_MTU_512);
	RDMA_KT_EQ(ctx, ib_mtu_int_to_enum(100), IB_MTU_256);
	RDMA_KT_EQ(ctx, opa_mtu_enum_to_int(OPA_MTU_8192), 8192);
	RDMA_KT_EQ(ctx, opa_mtu_enum_to_int(OPA_MTU_10240), 10240);
	RDMA_KT_EQ(ctx, opa_mtu_enum_to_int((enum opa_mtu)IB_MTU_2048), 2048);
}

static void flow_label_to_sport(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x0), 0xC000);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x1), 0xC001);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x3FFF), 0xFFFF);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x4000), 0xC001);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x12345), 0xE341);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0xFFFFF), 0xFFC0);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0x100000), 0xC000);
	RDMA_KT_EQ(ctx, rdma_flow_label_to_udp_sport(0xFFFFFFFF), 0xFFC0);
}

static void flow_label_from_qpns(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(0, 0), 0x00000);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(1, 1), 0x00001);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(0x11, 0x22), 0x00242);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(0x123456, 0xABCDEF), 0xAC3E3);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(0xABCDEF, 0x123456), 0xAC3E3);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(0xFFFFFF, 0xFFFFFF), 0xFFF1E);
	RDMA_KT_EQ(ctx, rdma_calc_flow_label(2, 0x80001), 0x00003);
}

static void udp_sport_of_qp_pair(struct rdma_ktap_ctx *ctx)
{
	u32 a, b;

	RDMA_KT_EQ(ctx, rdma_get_udp_sport(0, 0x123456, 0xABCDEF), 0xC3C8);
	RDMA_KT_EQ(ctx, rdma_get_udp_sport(0, 0xFFFFFF, 0xFFFFFF), 0xFF21);
	RDMA_KT_EQ(ctx, rdma_get_udp_sport(0x12345, 7, 9), 0xE341);
	RDMA_KT_EQ(ctx, rdma_get_udp_sport(0, 0, 0x11), 0xC000);
	/* Every QP pair lands in the RoCE v2 range, the same both ways. */
	for (a = 0x11; a < 0x11 + 64; a++) {
		for (b = 0x11; b < 0x11 + 64; b += 7) {
			u16 p = rdma_get_udp_sport(0, a, b);

			RDMA_KT_EXPECT(ctx, p >= IB_ROCE_UDP_ENCAP_VALID_PORT_MIN,
				       "sport %#x of %#x/%#x out of range",
				       p, a, b);
			RDMA_KT_EQ(ctx, p, rdma_get_udp_sport(0, b, a));
		}
	}
}

static void rkey_and_lid(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, ib_inc_rkey(0x123456FF), 0x12345600);
	RDMA_KT_EQ(ctx, ib_inc_rkey(0x12345600), 0x12345601);
	RDMA_KT_EQ(ctx, ib_inc_rkey(0xFFFFFFFF), 0xFFFFFF00);
	RDMA_KT_EQ(ctx, ib_lid_cpu16(0xBEEF), 0xBEEF);
	RDMA_KT_EXPECT(ctx, ib_lid_be16(0x1234) == cpu_to_be16(0x1234),
		       "ib_lid_be16 byte order");
}

static const struct rdma_ktap_case helpers_cases[] = {
	{ "rate_codes_to_mult", rate_codes_to_mult },
	{ "rate_codes_to_mbps", rate_codes_to_mbps },
	{ "rate_unknown_codes", rate_unknown_codes },
	{ "rate_mult_round_trip", rate_mult_round_trip },
	{ "rate_mult_unknown", rate_mult_unknown },
	{ "mtu_codes", mtu_codes },
	{ "flow_label_to_sport", flow_label_to_sport },
	{ "flow_label_from_qpns", flow_label_from_qpns },
	{ "udp_sport_of_qp_pair", udp_sport_of_qp_pair },
	{ "rkey_and_lid", rkey_and_lid },
};

static int __init helpers_test_init(void)
{
	rdma_ktap_run("rdma_helpers", helpers_cases, ARRAY_SIZE(helpers_cases));
	return 0;
}

static void __exit helpers_test_exit(void)
{
}

module_init(helpers_test_init);
module_exit(helpers_test_exit);

MODULE_DESCRIPTION("KTAP tests of the RDMA core's rate, MTU and flow-label helpers");
MODULE_LICENSE("GPL");
