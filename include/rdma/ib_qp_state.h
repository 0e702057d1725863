/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * QP states, QP transport types and the attribute mask of Modify QP, with
 * the check of a state change against the IBA rules.
 *
 * Part of the verbs contract (<rdma/ib_verbs.h> includes it).  Pure types and
 * one pure function (drivers/infiniband/core/qp_state.c), which the user-space
 * unit tests under tools/testing/rdma-unit build as they are.
 */
#ifndef _RDMA_IB_QP_STATE_H
#define _RDMA_IB_QP_STATE_H

#include <linux/bits.h>
#include <linux/types.h>
#include <uapi/rdma/ib_user_ioctl_verbs.h>

/* QP states, IBA 10.3.1. */
enum ib_qp_state {
	IB_QPS_RESET,
	IB_QPS_INIT,
	IB_QPS_RTR,
	IB_QPS_RTS,
	IB_QPS_SQD,
	IB_QPS_SQE,
	IB_QPS_ERR
};

enum ib_mig_state {
	IB_MIG_MIGRATED,
	IB_MIG_REARM,
	IB_MIG_ARMED
};

/*
 * QP transport types; the first ones share values with the uverbs ABI.
 * SMI and GSI must stay 0 and 1: the MAD layer indexes a two-entry table
 * with them.
 */
enum ib_qp_type {
	IB_QPT_SMI,
	IB_QPT_GSI,

	IB_QPT_RC = IB_UVERBS_QPT_RC,
	IB_QPT_UC = IB_UVERBS_QPT_UC,
	IB_QPT_UD = IB_UVERBS_QPT_UD,
	IB_QPT_RAW_IPV6,
	IB_QPT_RAW_ETHERTYPE,
	IB_QPT_RAW_PACKET = IB_UVERBS_QPT_RAW_PACKET,
	IB_QPT_XRC_INI = IB_UVERBS_QPT_XRC_INI,
	IB_QPT_XRC_TGT = IB_UVERBS_QPT_XRC_TGT,
	IB_QPT_MAX,
	IB_QPT_DRIVER = IB_UVERBS_QPT_DRIVER,
	/* Reserved for provider-internal QP types. */
	IB_QPT_RESERVED1 = 0x1000,
	IB_QPT_RESERVED2,
	IB_QPT_RESERVED3,
	IB_QPT_RESERVED4,
	IB_QPT_RESERVED5,
	IB_QPT_RESERVED6,
	IB_QPT_RESERVED7,
	IB_QPT_RESERVED8,
	IB_QPT_RESERVED9,
	IB_QPT_RESERVED10,
};

/* Which fields of struct ib_qp_attr a modify or query call covers. */
enum ib_qp_attr_mask {
	IB_QP_STATE			= BIT(0),
	IB_QP_CUR_STATE			= BIT(1),
	IB_QP_EN_SQD_ASYNC_NOTIFY	= BIT(2),
	IB_QP_ACCESS_FLAGS		= BIT(3),
	IB_QP_PKEY_INDEX		= BIT(4),
	IB_QP_PORT			= BIT(5),
	IB_QP_QKEY			= BIT(6),
	IB_QP_AV			= BIT(7),
	IB_QP_PATH_MTU			= BIT(8),
	IB_QP_TIMEOUT			= BIT(9),
	IB_QP_RETRY_CNT			= BIT(10),
	IB_QP_RNR_RETRY			= BIT(11),
	IB_QP_RQ_PSN			= BIT(12),
	IB_QP_MAX_QP_RD_ATOMIC		= BIT(13),
	IB_QP_ALT_PATH			= BIT(14),
	IB_QP_MIN_RNR_TIMER		= BIT(15),
	IB_QP_SQ_PSN			= BIT(16),
	IB_QP_MAX_DEST_RD_ATOMIC	= BIT(17),
	IB_QP_PATH_MIG_STATE		= BIT(18),
	IB_QP_CAP			= BIT(19),
	IB_QP_DEST_QPN			= BIT(20),
	IB_QP_RESERVED1			= BIT(21),
	IB_QP_RESERVED2			= BIT(22),
	IB_QP_RESERVED3			= BIT(23),
	IB_QP_RESERVED4			= BIT(24),
	IB_QP_RATE_LIMIT		= BIT(25),

	IB_QP_ATTR_STANDARD_BITS = GENMASK(20, 0),
};

bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask);

#endif /* _RDMA_IB_QP_STATE_H */
