// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/rate.c and the inline conversions of
 * <rdma/ib_link.h>: static rate codes, MTU codes, lane speeds and widths.
 * Expected values are the rate table of API.md section 2.5 and the speed
 * rules of ib_port_attr_to_speed_info in the API contract.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <rdma/ib_link.h>
#include "unit.h"

static const struct {
	int code;
	int mult;
	int mbps;
} rate_table[] = {
	{  2,   1,    2500 }, {  5,   2,    5000 }, {  3,   4,   10000 },
	{  6,   8,   20000 }, {  4,  12,   30000 }, {  7,  16,   40000 },
	{  8,  24,   60000 }, {  9,  32,   80000 }, { 10,  48,  120000 },
	{ 11,   6,   14062 }, { 12,  22,   56250 }, { 13,  45,  112500 },
	{ 14,  67,  168750 }, { 15,  10,   25781 }, { 16,  40,  103125 },
	{ 17,  80,  206250 }, { 18, 120,  309375 }, { 19,  11,   28125 },
	{ 20,  20,   53125 }, { 21, 160,  425000 }, { 22, 240,  637500 },
	{ 23, 320,  850000 }, { 25, 640, 1700000 },
};

UNIT_TEST(rate, every_code_mult_and_mbps)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_table); i++) {
		enum ib_rate r = (enum ib_rate)rate_table[i].code;

		EXPECT_EQ(ib_rate_to_mult(r), rate_table[i].mult);
		EXPECT_EQ(ib_rate_to_mbps(r), rate_table[i].mbps);
	}
}

UNIT_TEST(rate, enum_values)
{
	EXPECT_EQ(IB_RATE_PORT_CURRENT, 0);
	EXPECT_EQ(IB_RATE_2_5_GBPS, 2);
	EXPECT_EQ(IB_RATE_10_GBPS, 3);
	EXPECT_EQ(IB_RATE_14_GBPS, 11);
	EXPECT_EQ(IB_RATE_800_GBPS, 23);
	EXPECT_EQ(IB_RATE_1600_GBPS, 25);
}

UNIT_TEST(rate, unknown_codes_give_minus_one)
{
	static const int bad[] = { 0, 1, 24, 26, 27, 100, 255, 0x7fffffff, -1, -2 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		EXPECT_EQ(ib_rate_to_mult((enum ib_rate)bad[i]), -1);
		EXPECT_EQ(ib_rate_to_mbps((enum ib_rate)bad[i]), -1);
	}
}

UNIT_TEST(rate, mult_to_rate_inverts_the_table)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rate_table); i++)
		EXPECT_EQ(mult_to_ib_rate(rate_table[i].mult), rate_table[i].code);
}

UNIT_TEST(rate, mult_not_in_table_is_port_current)
{
	static const int bad[] = { 0, -1, 3, 5, 7, 9, 13, 23, 46, 641, 1000,
				   0x7fffffff, -0x7fffffff - 1 };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT_EQ(mult_to_ib_rate(bad[i]), IB_RATE_PORT_CURRENT);
}

UNIT_TEST(rate, roundtrip_over_all_codes)
{
	int code;

	/* Every code with a rate maps back to itself through its multiple. */
	for (code = 0; code < 64; code++) {
		int m = ib_rate_to_mult((enum ib_rate)code);

		if (m > 0)
			EXPECT_EQ(mult_to_ib_rate(m), code);
	}
}

UNIT_TEST(mtu, enum_to_int)
{
	EXPECT_EQ(ib_mtu_enum_to_int(IB_MTU_256), 256);
	EXPECT_EQ(ib_mtu_enum_to_int(IB_MTU_512), 512);
	EXPECT_EQ(ib_mtu_enum_to_int(IB_MTU_1024), 1024);
	EXPECT_EQ(ib_mtu_enum_to_int(IB_MTU_2048), 2048);
	EXPECT_EQ(ib_mtu_enum_to_int(IB_MTU_4096), 4096);
	EXPECT_EQ(ib_mtu_enum_to_int((enum ib_mtu)0), -1);
	EXPECT_EQ(ib_mtu_enum_to_int((enum ib_mtu)6), -1);
	EXPECT_EQ(ib_mtu_enum_to_int((enum ib_mtu)-1), -1);
	EXPECT_EQ(ib_mtu_enum_to_int((enum ib_mtu)1000), -1);
}

UNIT_TEST(mtu, int_to_enum_rounds_down)
{
	EXPECT_EQ(ib_mtu_int_to_enum(0), IB_MTU_256);
	EXPECT_EQ(ib_mtu_int_to_enum(-5), IB_MTU_256);
	EXPECT_EQ(ib_mtu_int_to_enum(511), IB_MTU_256);
	EXPECT_EQ(ib_mtu_int_to_enum(512), IB_MTU_512);
	EXPECT_EQ(ib_mtu_int_to_enum(1023), IB_MTU_512);
	EXPECT_EQ(ib_mtu_int_to_enum(1500), IB_MTU_1024);
	EXPECT_EQ(ib_mtu_int_to_enum(2048), IB_MTU_2048);
	EXPECT_EQ(ib_mtu_int_to_enum(4095), IB_MTU_2048);
	EXPECT_EQ(ib_mtu_int_to_enum(9000), IB_MTU_4096);
}

UNIT_TEST(mtu, opa_codes)
{
	EXPECT_EQ(opa_mtu_enum_to_int(OPA_MTU_8192), 8192);
	EXPECT_EQ(opa_mtu_enum_to_int(OPA_MTU_10240), 10240);
	EXPECT_EQ(opa_mtu_enum_to_int((enum opa_mtu)IB_MTU_2048), 2048);
	EXPECT_EQ(opa_mtu_enum_to_int((enum opa_mtu)8), -1);
	EXPECT_EQ(opa_mtu_int_to_enum(10240), OPA_MTU_10240);
	EXPECT_EQ(opa_mtu_int_to_enum(10239), OPA_MTU_8192);
	EXPECT_EQ(opa_mtu_int_to_enum(8191), (enum opa_mtu)IB_MTU_4096);
	EXPECT_EQ(opa_mtu_int_to_enum(100), (enum opa_mtu)IB_MTU_256);
}

UNIT_TEST(link, width_enum_to_int)
{
	EXPECT_EQ(ib_width_enum_to_int(IB_WIDTH_1X), 1);
	EXPECT_EQ(ib_width_enum_to_int(IB_WIDTH_2X), 2);
	EXPECT_EQ(ib_width_enum_to_int(IB_WIDTH_4X), 4);
	EXPECT_EQ(ib_width_enum_to_int(IB_WIDTH_8X), 8);
	EXPECT_EQ(ib_width_enum_to_int(IB_WIDTH_12X), 12);
	EXPECT_EQ(ib_width_enum_to_int((enum ib_port_width)0), -1);
	EXPECT_EQ(ib_width_enum_to_int((enum ib_port_width)3), -1);
	EXPECT_EQ(ib_width_enum_to_int((enum ib_port_width)32), -1);
}

static const struct {
	u16 speed;
	int lane;
	const char *label;
} speeds[] = {
	{ IB_SPEED_SDR, 25, " SDR" },     { IB_SPEED_DDR, 50, " DDR" },
	{ IB_SPEED_QDR, 100, " QDR" },    { IB_SPEED_FDR10, 100, " FDR10" },
	{ IB_SPEED_FDR, 140, " FDR" },    { IB_SPEED_EDR, 250, " EDR" },
	{ IB_SPEED_HDR, 500, " HDR" },    { IB_SPEED_NDR, 1000, " NDR" },
	{ IB_SPEED_XDR, 2000, " XDR" },
};

static const struct {
	u8 width;
	int lanes;
} widths[] = {
	{ IB_WIDTH_1X, 1 }, { IB_WIDTH_2X, 2 }, { IB_WIDTH_4X, 4 },
	{ IB_WIDTH_8X, 8 }, { IB_WIDTH_12X, 12 },
};

UNIT_TEST(link, speed_info_every_speed_and_width)
{
	unsigned int s, w;

	for (s = 0; s < ARRAY_SIZE(speeds); s++)
		for (w = 0; w < ARRAY_SIZE(widths); w++) {
			struct ib_port_attr attr = {
				.active_speed = speeds[s].speed,
				.active_width = widths[w].width,
			};
			struct ib_port_speed_info info = { NULL, 0 };

			EXPECT_EQ(ib_port_attr_to_speed_info(&attr, &info), 0);
			EXPECT_STREQ(info.str, speeds[s].label);
			EXPECT_EQ(info.rate, speeds[s].lane * widths[w].lanes);
		}
}

UNIT_TEST(link, speed_info_unknown_speed_is_sdr)
{
	static const u16 bad[] = { 0, 3, 512, 0xffff };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		struct ib_port_attr attr = {
			.active_speed = bad[i], .active_width = IB_WIDTH_4X,
		};
		struct ib_port_speed_info info = { NULL, 0 };

		EXPECT_EQ(ib_port_attr_to_speed_info(&attr, &info), 0);
		EXPECT_STREQ(info.str, " SDR");
		EXPECT_EQ(info.rate, 100);
	}
}

UNIT_TEST(link, speed_info_unknown_width_is_einval)
{
	struct ib_port_attr attr = {
		.active_speed = IB_SPEED_EDR, .active_width = 3,
	};
	struct ib_port_speed_info info = { NULL, 0 };

	EXPECT_EQ(ib_port_attr_to_speed_info(&attr, &info), -EINVAL);
	/* The label is set anyway and the rate is negative. */
	EXPECT_STREQ(info.str, " EDR");
	EXPECT_LT(info.rate, 0);
}
