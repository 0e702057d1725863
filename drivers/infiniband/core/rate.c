// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Static rate codes: conversions between enum ib_rate, multiples of
 * 2.5 Gb/s and effective Mb/s.
 *
 * Pure table lookups, safe in any context; the file depends on nothing else
 * in the core so that it can also be built into user-space unit tests.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/kernel.h>
#include <rdma/ib_link.h>

/*
 * One row per ib_rate code.  @mult is the rate as a multiple of 2.5 Gb/s
 * (rounded the way the IBA tables round it); @mbps is the data rate after
 * line encoding, which is what a user of the link actually gets.  Codes
 * with no row (1 and 24) and PORT_CURRENT have mult 0 and report -1.
 */
struct ib_rate_row {
	u16	mult;
	u32	mbps;
};

static const struct ib_rate_row ib_rate_rows[] = {
	[IB_RATE_2_5_GBPS]	= {   1,    2500 },
	[IB_RATE_5_GBPS]	= {   2,    5000 },
	[IB_RATE_10_GBPS]	= {   4,   10000 },
	[IB_RATE_20_GBPS]	= {   8,   20000 },
	[IB_RATE_30_GBPS]	= {  12,   30000 },
	[IB_RATE_40_GBPS]	= {  16,   40000 },
	[IB_RATE_60_GBPS]	= {  24,   60000 },
	[IB_RATE_80_GBPS]	= {  32,   80000 },
	[IB_RATE_120_GBPS]	= {  48,  120000 },
	[IB_RATE_14_GBPS]	= {   6,   14062 },
	[IB_RATE_56_GBPS]	= {  22,   56250 },
	[IB_RATE_112_GBPS]	= {  45,  112500 },
	[IB_RATE_168_GBPS]	= {  67,  168750 },
	[IB_RATE_25_GBPS]	= {  10,   25781 },
	[IB_RATE_100_GBPS]	= {  40,  103125 },
	[IB_RATE_200_GBPS]	= {  80,  206250 },
	[IB_RATE_300_GBPS]	= { 120,  309375 },
	[IB_RATE_28_GBPS]	= {  11,   28125 },
	[IB_RATE_50_GBPS]	= {  20,   53125 },
	[IB_RATE_400_GBPS]	= { 160,  425000 },
	[IB_RATE_600_GBPS]	= { 240,  637500 },
	[IB_RATE_800_GBPS]	= { 320,  850000 },
	[IB_RATE_1600_GBPS]	= { 640, 1700000 },
};

static const struct ib_rate_row *ib_rate_row(enum ib_rate rate)
{
	unsigned int code = (unsigned int)rate;

	if (code >= ARRAY_SIZE(ib_rate_rows) || !ib_rate_rows[code].mult)
		return NULL;
	return &ib_rate_rows[code];
}

/**
 * ib_rate_to_mult - express a static rate code as a multiple of 2.5 Gb/s
 * @rate: the rate code
 *
 * Return: the multiple, or -1 for IB_RATE_PORT_CURRENT and for codes that
 * name no rate.
 */
__attribute_const__ int ib_rate_to_mult(enum ib_rate rate)
{
	const struct ib_rate_row *row = ib_rate_row(rate);

	return row ? row->mult : -1;
}
EXPORT_SYMBOL(ib_rate_to_mult);

/**
 * ib_rate_to_mbps - effective data rate of a static rate code
 * @rate: the rate code
 *
 * The figure accounts for the line encoding of the speed the code stands
 * for (8b/10b, 64b/66b or PAM4 with FEC), so 14 Gb/s FDR gives 14062.
 *
 * Return: the rate in Mb/s, or -1 for IB_RATE_PORT_CURRENT and for codes
 * that name no rate.
 */
__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate)
{
	const struct ib_rate_row *row = ib_rate_row(rate);

	return row ? row->mbps : -1;
}
EXPORT_SYMBOL(ib_rate_to_mbps);

/**
 * mult_to_ib_rate - static rate code for a multiple of 2.5 Gb/s
 * @mult: the multiple, as ib_rate_to_mult() reports it
 *
 * Return: the code whose multiple is exactly @mult, or IB_RATE_PORT_CURRENT
 * when no code has that multiple.
 */
__attribute_const__ enum ib_rate mult_to_ib_rate(int mult)
{
	unsigned int code;

	if (mult <= 0)
		return IB_RATE_PORT_CURRENT;
	for (code = 0; code < ARRAY_SIZE(ib_rate_rows); code++)
		if (ib_rate_rows[code].mult == mult)
			return (enum ib_rate)code;
	return IB_RATE_PORT_CURRENT;
}
EXPORT_SYMBOL(mult_to_ib_rate);

/*
 * Per-lane data rate of each link speed, in units of 100 Mb/s, with the
 * label sysfs and ibv_devinfo show for it.
 */
static const struct {
	u16		speed;		/* enum ib_port_speed */
	u16		lane_rate;
	const char	*label;
} ib_lane_speeds[] = {
	{ IB_SPEED_SDR,		  25, " SDR" },
	{ IB_SPEED_DDR,		  50, " DDR" },
	{ IB_SPEED_QDR,		 100, " QDR" },
	{ IB_SPEED_FDR10,	 100, " FDR10" },
	{ IB_SPEED_FDR,		 140, " FDR" },
	{ IB_SPEED_EDR,		 250, " EDR" },
	{ IB_SPEED_HDR,		 500, " HDR" },
	{ IB_SPEED_NDR,		1000, " NDR" },
	{ IB_SPEED_XDR,		2000, " XDR" },
};

/**
 * ib_port_attr_to_speed_info - link speed of a port in human terms
 * @attr: port attributes, as ib_query_port() returns them
 * @speed_info: gets the speed label (" SDR" ... " XDR") and the total
 *	rate in units of 100 Mb/s (per-lane rate times the lane count)
 *
 * An active_speed this table does not know counts as SDR.
 *
 * Return: 0, or -EINVAL when active_width is not a known width; the label
 * is filled in either way.
 */
int ib_port_attr_to_speed_info(struct ib_port_attr *attr,
			       struct ib_port_speed_info *speed_info)
{
	unsigned int i, row = 0;
	int lanes;

	for (i = 0; i < ARRAY_SIZE(ib_lane_speeds); i++) {
		if (ib_lane_speeds[i].speed == attr->active_speed) {
			row = i;
			break;
		}
	}

	lanes = ib_width_enum_to_int(attr->active_width);
	speed_info->str = ib_lane_speeds[row].label;
	speed_info->rate = ib_lane_speeds[row].lane_rate * lanes;
	return speed_info->rate < 0 ? -EINVAL : 0;
}
EXPORT_SYMBOL(ib_port_attr_to_speed_info);
