/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Link parameters: static rate codes, MTU codes, lane speeds and widths, and
 * the port attributes that report them.
 *
 * Part of the verbs contract (<rdma/ib_verbs.h> includes it).  Pure types,
 * inline conversions and the table lookups of
 * drivers/infiniband/core/rate.c, which the user-space unit tests under
 * tools/testing/rdma-unit build as they are.
 */
#ifndef _RDMA_IB_LINK_H
#define _RDMA_IB_LINK_H

#include <linux/compiler.h>
#include <linux/kernel.h>
#include <linux/types.h>

/* Static rate codes of an address vector (IBA 9.11 and its extensions). */
enum ib_rate {
	IB_RATE_PORT_CURRENT = 0,
	IB_RATE_2_5_GBPS = 2,
	IB_RATE_5_GBPS   = 5,
	IB_RATE_10_GBPS  = 3,
	IB_RATE_20_GBPS  = 6,
	IB_RATE_30_GBPS  = 4,
	IB_RATE_40_GBPS  = 7,
	IB_RATE_60_GBPS  = 8,
	IB_RATE_80_GBPS  = 9,
	IB_RATE_120_GBPS = 10,
	IB_RATE_14_GBPS  = 11,
	IB_RATE_56_GBPS  = 12,
	IB_RATE_112_GBPS = 13,
	IB_RATE_168_GBPS = 14,
	IB_RATE_25_GBPS  = 15,
	IB_RATE_100_GBPS = 16,
	IB_RATE_200_GBPS = 17,
	IB_RATE_300_GBPS = 18,
	IB_RATE_28_GBPS  = 19,
	IB_RATE_50_GBPS  = 20,
	IB_RATE_400_GBPS = 21,
	IB_RATE_600_GBPS = 22,
	IB_RATE_800_GBPS = 23,
	IB_RATE_1600_GBPS = 25,
};

__attribute_const__ int ib_rate_to_mult(enum ib_rate rate);
__attribute_const__ int ib_rate_to_mbps(enum ib_rate rate);
__attribute_const__ enum ib_rate mult_to_ib_rate(int mult);

/* Path MTU codes as carried in QP attributes and port attributes. */
enum ib_mtu {
	IB_MTU_256  = 1,
	IB_MTU_512  = 2,
	IB_MTU_1024 = 3,
	IB_MTU_2048 = 4,
	IB_MTU_4096 = 5
};

/* OPA ports extend the MTU codes beyond 4096 bytes. */
enum opa_mtu {
	OPA_MTU_8192 = 6,
	OPA_MTU_10240 = 7
};

/**
 * ib_mtu_enum_to_int() - byte size of an IB MTU code
 * @mtu: an enum ib_mtu value
 *
 * Return: 256 to 4096, or -1 for an unknown code.
 */
static inline int ib_mtu_enum_to_int(enum ib_mtu mtu)
{
	if (mtu < IB_MTU_256 || mtu > IB_MTU_4096)
		return -1;
	return 128 << mtu;
}

/**
 * ib_mtu_int_to_enum() - largest IB MTU code that fits a byte count
 * @mtu: MTU in bytes
 *
 * Return: an MTU code; IB_MTU_256 for anything smaller than 512.
 */
static inline enum ib_mtu ib_mtu_int_to_enum(int mtu)
{
	if (mtu >= 4096)
		return IB_MTU_4096;
	if (mtu >= 2048)
		return IB_MTU_2048;
	if (mtu >= 1024)
		return IB_MTU_1024;
	if (mtu >= 512)
		return IB_MTU_512;
	return IB_MTU_256;
}

/**
 * opa_mtu_enum_to_int() - byte size of an OPA or IB MTU code
 * @mtu: an enum opa_mtu or enum ib_mtu value
 *
 * Return: the MTU in bytes, or -1 for an unknown code.
 */
static inline int opa_mtu_enum_to_int(enum opa_mtu mtu)
{
	/* Codes 6 and 7 are OPA's own; below them the IB codes apply. */
	if (mtu == OPA_MTU_10240)
		return 10240;
	if (mtu == OPA_MTU_8192)
		return 8192;
	return ib_mtu_enum_to_int((enum ib_mtu)mtu);
}

/**
 * opa_mtu_int_to_enum() - largest OPA MTU code that fits a byte count
 * @mtu: MTU in bytes
 *
 * Like ib_mtu_int_to_enum(), but also knows the 8 KiB and 10 KiB codes.
 *
 * Return: an MTU code, at least IB_MTU_256.
 */
static inline enum opa_mtu opa_mtu_int_to_enum(int mtu)
{
	if (mtu >= 10240)
		return OPA_MTU_10240;
	if (mtu >= 8192)
		return OPA_MTU_8192;
	return (enum opa_mtu)ib_mtu_int_to_enum(mtu);
}

/* Port link speeds (per lane) and widths as ib_query_port() reports them. */
enum ib_port_speed {
	IB_SPEED_SDR	= 1,
	IB_SPEED_DDR	= 2,
	IB_SPEED_QDR	= 4,
	IB_SPEED_FDR10	= 8,
	IB_SPEED_FDR	= 16,
	IB_SPEED_EDR	= 32,
	IB_SPEED_HDR	= 64,
	IB_SPEED_NDR	= 128,
	IB_SPEED_XDR	= 256,
};

enum ib_port_width {
	IB_WIDTH_1X	= 1,
	IB_WIDTH_2X	= 16,
	IB_WIDTH_4X	= 2,
	IB_WIDTH_8X	= 4,
	IB_WIDTH_12X	= 8
};

/**
 * ib_width_enum_to_int() - number of lanes of a link width code
 * @width: an enum ib_port_width value
 *
 * Return: 1, 2, 4, 8 or 12, or -1 for an unknown code.
 */
static inline int ib_width_enum_to_int(enum ib_port_width width)
{
	static const u8 lanes_of[] = {
		[IB_WIDTH_1X]	= 1,
		[IB_WIDTH_2X]	= 2,
		[IB_WIDTH_4X]	= 4,
		[IB_WIDTH_8X]	= 8,
		[IB_WIDTH_12X]	= 12,
	};
	unsigned int code = width;

	/* The codes are single bits; the holes between them read as 0. */
	if (code >= ARRAY_SIZE(lanes_of) || !lanes_of[code])
		return -1;
	return lanes_of[code];
}

/*
 * A port's speed in human terms, as ib_port_attr_to_speed_info() reports
 * it: @str is a label with a leading space (" SDR" ... " XDR"), @rate the
 * total data rate in units of 100 Mb/s.
 */
struct ib_port_speed_info {
	const char	*str;
	int		rate;
};

/* Logical port state (IBA PortInfo:PortState). */
enum ib_port_state {
	IB_PORT_NOP		= 0,
	IB_PORT_DOWN		= 1,
	IB_PORT_INIT		= 2,
	IB_PORT_ARMED		= 3,
	IB_PORT_ACTIVE		= 4,
	IB_PORT_ACTIVE_DEFER	= 5
};

/* Physical port state (IBA PortInfo:PortPhysicalState). */
enum ib_port_phys_state {
	IB_PORT_PHYS_STATE_SLEEP			= 1,
	IB_PORT_PHYS_STATE_POLLING			= 2,
	IB_PORT_PHYS_STATE_DISABLED			= 3,
	IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING	= 4,
	IB_PORT_PHYS_STATE_LINK_UP			= 5,
	IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY		= 6,
	IB_PORT_PHYS_STATE_PHY_TEST			= 7,
};

/*
 * What ib_query_port() returns.  @port_cap_flags and @port_cap_flags2 hold
 * the IBA PortInfo CapabilityMask words (IB_PORT_* bits of <rdma/ib_mad.h>);
 * @active_speed holds an enum ib_port_speed, @active_width an
 * enum ib_port_width, @phys_state an enum ib_port_phys_state.  @phys_mtu is
 * in bytes and only meaningful on OPA ports.
 */
struct ib_port_attr {
	u64			subnet_prefix;
	enum ib_port_state	state;
	enum ib_mtu		max_mtu;
	enum ib_mtu		active_mtu;
	u32			phys_mtu;
	int			gid_tbl_len;
	unsigned int		ip_gids:1;
	u32			port_cap_flags;
	u32			max_msg_sz;
	u32			bad_pkey_cntr;
	u32			qkey_viol_cntr;
	u16			pkey_tbl_len;
	u32			sm_lid;
	u32			lid;
	u8			lmc;
	u8			max_vl_num;
	u8			sm_sl;
	u8			subnet_timeout;
	u8			init_type_reply;
	u8			active_width;
	u16			active_speed;
	u8			phys_state;
	u16			port_cap_flags2;
};

int ib_port_attr_to_speed_info(struct ib_port_attr *attr,
			       struct ib_port_speed_info *speed_info);

#endif /* _RDMA_IB_LINK_H */
