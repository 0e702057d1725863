// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The QP state machine: which state changes the IBA allows (Vol 1,
 * chapter 10, QP states) and which attributes a Modify QP call must or may
 * carry for each of them (chapter 11, Modify QP), per QP type.
 *
 * Drivers call ib_modify_qp_is_ok() before they program a transition into
 * hardware.  The check is a pure table walk: no device, no locks, callable
 * from any context.
 */
#include <linux/export.h>
#include <linux/kernel.h>
#include <rdma/ib_qp_state.h>

/*
 * Attribute sets that recur in the rules below.  The names say which side
 * of the QP they configure rather than which transition uses them.
 */

/* First configuration of a UD QP. */
#define QPA_UD_SETUP	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY)
/* First configuration of QP0/QP1; their port is fixed at creation. */
#define QPA_MGMT_SETUP	(IB_QP_PKEY_INDEX | IB_QP_QKEY)
/* First configuration of a connected QP (RC, UC, XRC). */
#define QPA_CONN_SETUP	(IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_ACCESS_FLAGS)
/* The remote end of a connection and the receive PSN. */
#define QPA_CONN_PEER	(IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | \
			 IB_QP_RQ_PSN)
/* Responder resources: RC and XRC target QPs answer reads and atomics. */
#define QPA_RESPONDER	(IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER)
/* Requester timers and limits: RC and XRC initiator QPs send requests. */
#define QPA_REQUESTER	(IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | \
			 IB_QP_MAX_QP_RD_ATOMIC)
/* Automatic path migration. */
#define QPA_APM		(IB_QP_ALT_PATH | IB_QP_PATH_MIG_STATE)
/* What a connected QP may change while it is about to receive. */
#define QPA_CONN_RTR_OPT (IB_QP_ALT_PATH | IB_QP_ACCESS_FLAGS | \
			  IB_QP_PKEY_INDEX)
/* What a datagram QP may change once it can send. */
#define QPA_DGRAM_LIVE	(IB_QP_CUR_STATE | IB_QP_QKEY)
/* What a UC or XRC initiator QP may change once it can send. */
#define QPA_CONN_LIVE	(IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS | QPA_APM)
/* The same for QPs with a responder, which also own the RNR timer. */
#define QPA_RESP_LIVE	(QPA_CONN_LIVE | IB_QP_MIN_RNR_TIMER)

/*
 * One attribute mask per QP type.  SMI (QP0) and GSI (QP1) follow the same
 * rules everywhere, so they share the @mgmt column.  RAW_IPV6 and
 * RAW_ETHERTYPE have no column: the IBA lists no attributes for them.
 */
struct qp_type_masks {
	u32	ud;
	u32	uc;
	u32	rc;
	u32	xrc_ini;
	u32	xrc_tgt;
	u32	mgmt;
	u32	raw_packet;
};

/* What one legal transition requires (@req) and tolerates (@opt). */
struct qp_rule {
	struct qp_type_masks	req;
	struct qp_type_masks	opt;
};

/* Moving to RESET or to ERR takes nothing but the new state. */
static const struct qp_rule qp_rule_bare;

static const struct qp_rule qp_rule_reset_init = {
	.req = {
		.ud		= QPA_UD_SETUP,
		.uc		= QPA_CONN_SETUP,
		.rc		= QPA_CONN_SETUP,
		.xrc_ini	= QPA_CONN_SETUP,
		.xrc_tgt	= QPA_CONN_SETUP,
		.mgmt		= QPA_MGMT_SETUP,
		.raw_packet	= IB_QP_PORT,
	},
};

/* INIT->INIT may redo the setup step, but nothing in it is mandatory. */
static const struct qp_rule qp_rule_init_init = {
	.opt = {
		.ud		= QPA_UD_SETUP,
		.uc		= QPA_CONN_SETUP,
		.rc		= QPA_CONN_SETUP,
		.xrc_ini	= QPA_CONN_SETUP,
		.xrc_tgt	= QPA_CONN_SETUP,
		.mgmt		= QPA_MGMT_SETUP,
	},
};

static const struct qp_rule qp_rule_init_rtr = {
	.req = {
		.uc		= QPA_CONN_PEER,
		.rc		= QPA_CONN_PEER | QPA_RESPONDER,
		.xrc_ini	= QPA_CONN_PEER,
		.xrc_tgt	= QPA_CONN_PEER | QPA_RESPONDER,
	},
	.opt = {
		.ud		= IB_QP_PKEY_INDEX | IB_QP_QKEY,
		.uc		= QPA_CONN_RTR_OPT,
		.rc		= QPA_CONN_RTR_OPT,
		.xrc_ini	= QPA_CONN_RTR_OPT,
		.xrc_tgt	= QPA_CONN_RTR_OPT,
		.mgmt		= IB_QP_PKEY_INDEX | IB_QP_QKEY,
	},
};

static const struct qp_rule qp_rule_rtr_rts = {
	.req = {
		.ud		= IB_QP_SQ_PSN,
		.uc		= IB_QP_SQ_PSN,
		.rc		= QPA_REQUESTER | IB_QP_SQ_PSN,
		.xrc_ini	= QPA_REQUESTER | IB_QP_SQ_PSN,
		.xrc_tgt	= IB_QP_TIMEOUT | IB_QP_SQ_PSN,
		.mgmt		= IB_QP_SQ_PSN,
	},
	.opt = {
		.ud		= QPA_DGRAM_LIVE,
		.uc		= QPA_CONN_LIVE,
		.rc		= QPA_RESP_LIVE,
		.xrc_ini	= QPA_CONN_LIVE,
		.xrc_tgt	= QPA_RESP_LIVE,
		.mgmt		= QPA_DGRAM_LIVE,
		.raw_packet	= IB_QP_RATE_LIMIT,
	},
};

static const struct qp_rule qp_rule_rts_rts = {
	.opt = {
		.ud		= QPA_DGRAM_LIVE,
		.uc		= QPA_CONN_LIVE,
		.rc		= QPA_RESP_LIVE,
		.xrc_ini	= QPA_CONN_LIVE,
		.xrc_tgt	= QPA_RESP_LIVE,
		.mgmt		= QPA_DGRAM_LIVE,
		.raw_packet	= IB_QP_RATE_LIMIT,
	},
};

/* Draining the send queue; the consumer may ask for an event when done. */
static const struct qp_rule qp_rule_rts_sqd = {
	.opt = {
		.ud		= IB_QP_EN_SQD_ASYNC_NOTIFY,
		.uc		= IB_QP_EN_SQD_ASYNC_NOTIFY,
		.rc		= IB_QP_EN_SQD_ASYNC_NOTIFY,
		.xrc_ini	= IB_QP_EN_SQD_ASYNC_NOTIFY,
		.xrc_tgt	= IB_QP_EN_SQD_ASYNC_NOTIFY,
		.mgmt		= IB_QP_EN_SQD_ASYNC_NOTIFY,
	},
};

/* Like RTS->RTS, except that the rate limit is not among the options. */
static const struct qp_rule qp_rule_sqd_rts = {
	.opt = {
		.ud		= QPA_DGRAM_LIVE,
		.uc		= QPA_CONN_LIVE,
		.rc		= QPA_RESP_LIVE,
		.xrc_ini	= QPA_CONN_LIVE,
		.xrc_tgt	= QPA_RESP_LIVE,
		.mgmt		= QPA_DGRAM_LIVE,
	},
};

/* A drained QP may be re-pointed: path, port and the connection limits. */
static const struct qp_rule qp_rule_sqd_sqd = {
	.opt = {
		.ud		= IB_QP_PKEY_INDEX | IB_QP_QKEY,
		.uc		= IB_QP_AV | QPA_APM | IB_QP_ACCESS_FLAGS |
				  IB_QP_PKEY_INDEX,
		.rc		= IB_QP_PORT | IB_QP_AV | QPA_APM |
				  QPA_REQUESTER | QPA_RESPONDER |
				  IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
		.xrc_ini	= IB_QP_PORT | IB_QP_AV | QPA_APM |
				  QPA_REQUESTER | IB_QP_ACCESS_FLAGS |
				  IB_QP_PKEY_INDEX,
		.xrc_tgt	= IB_QP_PORT | IB_QP_AV | QPA_APM |
				  IB_QP_TIMEOUT | QPA_RESPONDER |
				  IB_QP_ACCESS_FLAGS | IB_QP_PKEY_INDEX,
		.mgmt		= IB_QP_PKEY_INDEX | IB_QP_QKEY,
	},
};

/* Recovery from a send queue error; only unreliable types ever get there. */
static const struct qp_rule qp_rule_sqe_rts = {
	.opt = {
		.ud		= QPA_DGRAM_LIVE,
		.uc		= IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS,
		.mgmt		= QPA_DGRAM_LIVE,
	},
};

/* [current][next]: the rule of a legal transition, NULL for an illegal one. */
static const struct qp_rule *const qp_rules[IB_QPS_ERR + 1][IB_QPS_ERR + 1] = {
	[IB_QPS_RESET] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_INIT]	= &qp_rule_reset_init,
	},
	[IB_QPS_INIT] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_INIT]	= &qp_rule_init_init,
		[IB_QPS_RTR]	= &qp_rule_init_rtr,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
	[IB_QPS_RTR] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_RTS]	= &qp_rule_rtr_rts,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
	[IB_QPS_RTS] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_RTS]	= &qp_rule_rts_rts,
		[IB_QPS_SQD]	= &qp_rule_rts_sqd,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
	[IB_QPS_SQD] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_RTS]	= &qp_rule_sqd_rts,
		[IB_QPS_SQD]	= &qp_rule_sqd_sqd,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
	[IB_QPS_SQE] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_RTS]	= &qp_rule_sqe_rts,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
	[IB_QPS_ERR] = {
		[IB_QPS_RESET]	= &qp_rule_bare,
		[IB_QPS_ERR]	= &qp_rule_bare,
	},
};

/* True for the QP types the transition rules know about. */
static bool qp_type_is_known(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_RAW_IPV6:
	case IB_QPT_RAW_ETHERTYPE:
	case IB_QPT_RAW_PACKET:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		return true;
	default:
		return false;
	}
}

/* The column of @masks that belongs to @type; 0 for types without one. */
static u32 qp_type_mask(const struct qp_type_masks *masks,
			enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_UD:
		return masks->ud;
	case IB_QPT_UC:
		return masks->uc;
	case IB_QPT_RC:
		return masks->rc;
	case IB_QPT_XRC_INI:
		return masks->xrc_ini;
	case IB_QPT_XRC_TGT:
		return masks->xrc_tgt;
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		return masks->mgmt;
	case IB_QPT_RAW_PACKET:
		return masks->raw_packet;
	default:
		return 0;
	}
}

/*
 * IB_QP_CUR_STATE tells the device which state the consumer believes the
 * QP is in.  That only makes sense where the QP may have moved without
 * being asked to (RTR, RTS, SQD and SQE), never for RESET, INIT or ERR.
 */
static bool qp_state_may_be_asserted(unsigned int state)
{
	return state == IB_QPS_RTR || state == IB_QPS_RTS ||
	       state == IB_QPS_SQD || state == IB_QPS_SQE;
}

/**
 * ib_modify_qp_is_ok - check a QP state change against the IBA rules
 * @cur_state: the state the QP is in now
 * @next_state: the state the caller wants to move it to
 * @type: the QP's transport type
 * @mask: the attributes the caller passes along (enum ib_qp_attr_mask bits)
 *
 * A pure library check for drivers, to be run before a transition is handed
 * to the hardware.  It accepts the change when @cur_state may go to
 * @next_state at all, when @mask carries every attribute the IBA requires
 * for that step and QP type, and when it carries nothing beyond those plus
 * the optional ones.  IB_QP_STATE itself is always allowed and never needed.
 * Any state may go to RESET and any state but RESET may go to ERR, both
 * with no other attribute; RESET to ERR is refused.  IB_QP_CUR_STATE is
 * refused unless @cur_state is RTR, RTS, SQD or SQE.
 *
 * RAW_IPV6 and RAW_ETHERTYPE QPs have no attributes in the rules, so only
 * a bare legal transition passes for them.
 *
 * Unlike the historical implementation, which indexes its tables without a
 * bounds check, a @cur_state or @next_state beyond IB_QPS_ERR or a @type
 * that names no QP type (IB_QPT_DRIVER and the reserved driver types
 * included) is answered with false.
 *
 * Context: any context; nothing is locked or allocated.
 * Return: true if the transition and its attribute mask are valid.
 */
bool ib_modify_qp_is_ok(enum ib_qp_state cur_state, enum ib_qp_state next_state,
			enum ib_qp_type type, enum ib_qp_attr_mask mask)
{
	unsigned int cur = cur_state, next = next_state;
	const struct qp_rule *rule;
	u32 attrs = mask, req, allowed;

	if (cur > IB_QPS_ERR || next > IB_QPS_ERR || !qp_type_is_known(type))
		return false;

	if ((attrs & IB_QP_CUR_STATE) && !qp_state_may_be_asserted(cur))
		return false;

	rule = qp_rules[cur][next];
	if (!rule)
		return false;

	req = qp_type_mask(&rule->req, type);
	allowed = req | qp_type_mask(&rule->opt, type) | IB_QP_STATE;

	return (attrs & req) == req && !(attrs & ~allowed);
}
EXPORT_SYMBOL(ib_modify_qp_is_ok);
