// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the RDMA core's pure library code, none of which needs a
 * device: the QP state transition check (ib_modify_qp_is_ok), the sniffing
 * of the L3 header in front of a UD payload and the GIDs taken from it, and
 * the GID/IP helpers of <rdma/ib_addr.h>.
 *
 * The QP cases compare the function against an independent model built
 * from a flat list of the IBA rules below, written out per QP type.
 */
#include <linux/module.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_addr.h>
#include "rdma_ktap.h"

/* ------------------------------------------------------------------------
 * QP state transitions
 */

#define QPS_COUNT	(IB_QPS_ERR + 1)

/* Every QP type the check knows, tabled or not. */
static const enum ib_qp_type qpt_known[] = {
	IB_QPT_SMI, IB_QPT_GSI, IB_QPT_RC, IB_QPT_UC, IB_QPT_UD,
	IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE, IB_QPT_RAW_PACKET,
	IB_QPT_XRC_INI, IB_QPT_XRC_TGT,
};

/* Legal next states of each state, as a bitmap over enum ib_qp_state. */
static const u8 qp_legal_next[QPS_COUNT] = {
	[IB_QPS_RESET]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_INIT),
	[IB_QPS_INIT]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_INIT) |
			  BIT(IB_QPS_RTR) | BIT(IB_QPS_ERR),
	[IB_QPS_RTR]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) | BIT(IB_QPS_ERR),
	[IB_QPS_RTS]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) |
			  BIT(IB_QPS_SQD) | BIT(IB_QPS_ERR),
	[IB_QPS_SQD]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) |
			  BIT(IB_QPS_SQD) | BIT(IB_QPS_ERR),
	[IB_QPS_SQE]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_RTS) | BIT(IB_QPS_ERR),
	[IB_QPS_ERR]	= BIT(IB_QPS_RESET) | BIT(IB_QPS_ERR),
};

/* Short local names keep the rule list below one row per line. */
#define A_STATE		IB_QP_STATE
#define A_CUR		IB_QP_CUR_STATE
#define A_SQD_EVT	IB_QP_EN_SQD_ASYNC_NOTIFY
#define A_ACCESS	IB_QP_ACCESS_FLAGS
#define A_PKEY		IB_QP_PKEY_INDEX
#define A_PORT		IB_QP_PORT
#define A_QKEY		IB_QP_QKEY
#define A_AV		IB_QP_AV
#define A_MTU		IB_QP_PATH_MTU
#define A_TIMEOUT	IB_QP_TIMEOUT
#define A_RETRY		IB_QP_RETRY_CNT
#define A_RNR_RETRY	IB_QP_RNR_RETRY
#define A_RQ_PSN	IB_QP_RQ_PSN
#define A_RD_ATOM	IB_QP_MAX_QP_RD_ATOMIC
#define A_ALT		IB_QP_ALT_PATH
#define A_RNR_TIMER	IB_QP_MIN_RNR_TIMER
#define A_SQ_PSN	IB_QP_SQ_PSN
#define A_DEST_RD	IB_QP_MAX_DEST_RD_ATOMIC
#define A_MIG		IB_QP_PATH_MIG_STATE
#define A_DQPN		IB_QP_DEST_QPN
#define A_RATE		IB_QP_RATE_LIMIT

/*
 * The attribute rules of the legal transitions.  A (transition, type) pair
 * that is legal but not listed takes no attribute besides the state.
 */
struct qp_want {
	u8	cur;
	u8	next;
	u8	type;
	u32	req;
	u32	opt;
};

static const struct qp_want qp_wants[] = {
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_UD, A_PKEY | A_PORT | A_QKEY, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_UC, A_PKEY | A_PORT | A_ACCESS, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_RC, A_PKEY | A_PORT | A_ACCESS, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_XRC_INI, A_PKEY | A_PORT | A_ACCESS, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_XRC_TGT, A_PKEY | A_PORT | A_ACCESS, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_SMI, A_PKEY | A_QKEY, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_GSI, A_PKEY | A_QKEY, 0 },
	{ IB_QPS_RESET, IB_QPS_INIT, IB_QPT_RAW_PACKET, A_PORT, 0 },

	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_UD, 0, A_PKEY | A_PORT | A_QKEY },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_UC, 0, A_PKEY | A_PORT | A_ACCESS },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_RC, 0, A_PKEY | A_PORT | A_ACCESS },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_XRC_INI, 0, A_PKEY | A_PORT | A_ACCESS },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_XRC_TGT, 0, A_PKEY | A_PORT | A_ACCESS },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_SMI, 0, A_PKEY | A_QKEY },
	{ IB_QPS_INIT, IB_QPS_INIT, IB_QPT_GSI, 0, A_PKEY | A_QKEY },

	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_UD, 0, A_PKEY | A_QKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_SMI, 0, A_PKEY | A_QKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_GSI, 0, A_PKEY | A_QKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_UC,
	  A_AV | A_MTU | A_DQPN | A_RQ_PSN, A_ALT | A_ACCESS | A_PKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_XRC_INI,
	  A_AV | A_MTU | A_DQPN | A_RQ_PSN, A_ALT | A_ACCESS | A_PKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_RC,
	  A_AV | A_MTU | A_DQPN | A_RQ_PSN | A_DEST_RD | A_RNR_TIMER,
	  A_ALT | A_ACCESS | A_PKEY },
	{ IB_QPS_INIT, IB_QPS_RTR, IB_QPT_XRC_TGT,
	  A_AV | A_MTU | A_DQPN | A_RQ_PSN | A_DEST_RD | A_RNR_TIMER,
	  A_ALT | A_ACCESS | A_PKEY },

	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_UD, A_SQ_PSN, A_CUR | A_QKEY },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_SMI, A_SQ_PSN, A_CUR | A_QKEY },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_GSI, A_SQ_PSN, A_CUR | A_QKEY },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_UC, A_SQ_PSN,
	  A_CUR | A_ALT | A_ACCESS | A_MIG },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_RC,
	  A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_SQ_PSN | A_RD_ATOM,
	  A_CUR | A_ALT | A_ACCESS | A_RNR_TIMER | A_MIG },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_XRC_INI,
	  A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_SQ_PSN | A_RD_ATOM,
	  A_CUR | A_ALT | A_ACCESS | A_MIG },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_XRC_TGT, A_TIMEOUT | A_SQ_PSN,
	  A_CUR | A_ALT | A_ACCESS | A_RNR_TIMER | A_MIG },
	{ IB_QPS_RTR, IB_QPS_RTS, IB_QPT_RAW_PACKET, 0, A_RATE },

	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_UD, 0, A_CUR | A_QKEY },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_SMI, 0, A_CUR | A_QKEY },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_GSI, 0, A_CUR | A_QKEY },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_UC, 0, A_CUR | A_ACCESS | A_ALT | A_MIG },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_XRC_INI, 0,
	  A_CUR | A_ACCESS | A_ALT | A_MIG },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RC, 0,
	  A_CUR | A_ACCESS | A_ALT | A_MIG | A_RNR_TIMER },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_XRC_TGT, 0,
	  A_CUR | A_ACCESS | A_ALT | A_MIG | A_RNR_TIMER },
	{ IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RAW_PACKET, 0, A_RATE },

	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_UD, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_UC, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_RC, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_XRC_INI, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_XRC_TGT, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_SMI, 0, A_SQD_EVT },
	{ IB_QPS_RTS, IB_QPS_SQD, IB_QPT_GSI, 0, A_SQD_EVT },

	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_UD, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_SMI, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_GSI, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_UC, 0, A_CUR | A_ALT | A_ACCESS | A_MIG },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_XRC_INI, 0,
	  A_CUR | A_ALT | A_ACCESS | A_MIG },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_RC, 0,
	  A_CUR | A_ALT | A_ACCESS | A_RNR_TIMER | A_MIG },
	{ IB_QPS_SQD, IB_QPS_RTS, IB_QPT_XRC_TGT, 0,
	  A_CUR | A_ALT | A_ACCESS | A_RNR_TIMER | A_MIG },

	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_UD, 0, A_PKEY | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_SMI, 0, A_PKEY | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_GSI, 0, A_PKEY | A_QKEY },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_UC, 0,
	  A_AV | A_ALT | A_ACCESS | A_PKEY | A_MIG },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_RC, 0,
	  A_PORT | A_AV | A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_RD_ATOM |
	  A_DEST_RD | A_ALT | A_ACCESS | A_PKEY | A_RNR_TIMER | A_MIG },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_XRC_INI, 0,
	  A_PORT | A_AV | A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_RD_ATOM |
	  A_ALT | A_ACCESS | A_PKEY | A_MIG },
	{ IB_QPS_SQD, IB_QPS_SQD, IB_QPT_XRC_TGT, 0,
	  A_PORT | A_AV | A_TIMEOUT | A_DEST_RD | A_ALT | A_ACCESS | A_PKEY |
	  A_RNR_TIMER | A_MIG },

	{ IB_QPS_SQE, IB_QPS_RTS, IB_QPT_UD, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QPT_SMI, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QPT_GSI, 0, A_CUR | A_QKEY },
	{ IB_QPS_SQE, IB_QPS_RTS, IB_QPT_UC, 0, A_CUR | A_ACCESS },
};

static bool qp_legal(unsigned int cur, unsigned int next)
{
	return cur < QPS_COUNT && next < QPS_COUNT &&
	       (qp_legal_next[cur] & BIT(next));
}

/* The rule list entry of one (transition, type), or NULL for none. */
static const struct qp_want *qp_want_find(unsigned int cur, unsigned int next,
					  enum ib_qp_type type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(qp_wants); i++)
		if (qp_wants[i].cur == cur && qp_wants[i].next == next &&
		    qp_wants[i].type == type)
			return &qp_wants[i];
	return NULL;
}

static void qp_want_masks(unsigned int cur, unsigned int next,
			  enum ib_qp_type type, u32 *req, u32 *opt)
{
	const struct qp_want *w = qp_want_find(cur, next, type);

	*req = w ? w->req : 0;
	*opt = w ? w->opt : 0;
}

/* What ib_modify_qp_is_ok() should answer, derived from the list above. */
static bool qp_model(unsigned int cur, unsigned int next, enum ib_qp_type type,
		     u32 mask)
{
	unsigned int i;
	bool known = false;
	u32 req, opt;

	for (i = 0; i < ARRAY_SIZE(qpt_known); i++)
		known |= qpt_known[i] == type;
	if (!known || !qp_legal(cur, next))
		return false;
	if ((mask & A_CUR) && cur != IB_QPS_RTR && cur != IB_QPS_RTS &&
	    cur != IB_QPS_SQD && cur != IB_QPS_SQE)
		return false;
	qp_want_masks(cur, next, type, &req, &opt);
	return (mask & req) == req && !(mask & ~(req | opt | A_STATE));
}

/*
 * Check one call of the function under test, given plain integers, and
 * report the caller's line on a mismatch.
 */
static void qp_expect(struct rdma_ktap_ctx *ctx, const char *func, int line,
		      bool want, unsigned int cur, unsigned int next,
		      unsigned int type, u32 mask)
{
	bool got = ib_modify_qp_is_ok((enum ib_qp_state)cur,
				      (enum ib_qp_state)next,
				      (enum ib_qp_type)type,
				      (enum ib_qp_attr_mask)mask);

	rdma_ktap_check(ctx, got == want, func, line,
			"%u->%u type %u mask %#x: expected %s", cur, next,
			type, mask, want ? "true" : "false");
}

#define QP_EXPECT(ctx, want, cur, next, type, mask)			\
	qp_expect(ctx, __func__, __LINE__, want, cur, next, type, mask)

static void qp_api_examples(struct rdma_ktap_ctx *ctx)
{
	QP_EXPECT(ctx, true, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_UD,
		  A_STATE | A_PKEY | A_PORT | A_QKEY);
	QP_EXPECT(ctx, true, IB_QPS_INIT, IB_QPS_RTR, IB_QPT_RC,
		  A_STATE | A_AV | A_MTU | A_DQPN | A_RQ_PSN | A_DEST_RD |
		  A_RNR_TIMER);
	QP_EXPECT(ctx, true, IB_QPS_RTR, IB_QPS_RTS, IB_QPT_RC,
		  A_STATE | A_TIMEOUT | A_RETRY | A_RNR_RETRY | A_SQ_PSN |
		  A_RD_ATOM);
	/* UD needs the Q_Key where a connected QP needs access flags. */
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_UD,
		  A_STATE | A_PKEY | A_PORT | A_ACCESS);
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_RC,
		  A_STATE | A_PKEY | A_PORT | A_QKEY);
	/* QP0/QP1 have a fixed port, so the port is not even allowed. */
	QP_EXPECT(ctx, true, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_GSI,
		  A_STATE | A_PKEY | A_QKEY);
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_SMI,
		  A_STATE | A_PKEY | A_QKEY | A_PORT);
	/* The whole life of an RC QP. */
	QP_EXPECT(ctx, true, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_RC,
		  A_STATE | A_PKEY | A_PORT | A_ACCESS);
	QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_SQD, IB_QPT_RC,
		  A_STATE | A_SQD_EVT);
	QP_EXPECT(ctx, true, IB_QPS_SQD, IB_QPS_SQD, IB_QPT_RC,
		  A_STATE | A_PORT | A_AV | A_TIMEOUT);
	QP_EXPECT(ctx, true, IB_QPS_SQD, IB_QPS_RTS, IB_QPT_RC, A_STATE);
	QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_ERR, IB_QPT_RC, A_STATE);
	QP_EXPECT(ctx, true, IB_QPS_ERR, IB_QPS_RESET, IB_QPT_RC, A_STATE);
}

/* Exactly the required mask passes, with or without IB_QP_STATE. */
static void qp_required_mask_exact(struct rdma_ktap_ctx *ctx)
{
	unsigned int cur, next, t;
	u32 req, opt;

	for (cur = 0; cur < QPS_COUNT; cur++)
		for (next = 0; next < QPS_COUNT; next++)
			for (t = 0; t < ARRAY_SIZE(qpt_known); t++) {
				if (!qp_legal(cur, next))
					continue;
				qp_want_masks(cur, next, qpt_known[t], &req,
					      &opt);
				QP_EXPECT(ctx, true, cur, next, qpt_known[t],
					  req);
				QP_EXPECT(ctx, true, cur, next, qpt_known[t],
					  req | A_STATE);
				QP_EXPECT(ctx, true, cur, next, qpt_known[t],
					  req | opt | A_STATE);
			}
}

/* Every optional attribute is accepted on its own. */
static void qp_each_optional_bit(struct rdma_ktap_ctx *ctx)
{
	unsigned int i, bit;

	for (i = 0; i < ARRAY_SIZE(qp_wants); i++) {
		const struct qp_want *w = &qp_wants[i];

		for (bit = 0; bit < 32; bit++)
			if (w->opt & BIT(bit))
				QP_EXPECT(ctx, true, w->cur, w->next, w->type,
					  A_STATE | w->req | BIT(bit));
	}
}

/* Leaving out any one required attribute fails, even with all optionals. */
static void qp_missing_required_bit(struct rdma_ktap_ctx *ctx)
{
	unsigned int i, bit, checked = 0;

	for (i = 0; i < ARRAY_SIZE(qp_wants); i++) {
		const struct qp_want *w = &qp_wants[i];

		for (bit = 0; bit < 32; bit++) {
			if (!(w->req & BIT(bit)))
				continue;
			QP_EXPECT(ctx, false, w->cur, w->next, w->type,
				  A_STATE | (w->req & ~BIT(bit)));
			QP_EXPECT(ctx, false, w->cur, w->next, w->type,
				  A_STATE | w->opt | (w->req & ~BIT(bit)));
			checked++;
		}
	}
	/* RESET->INIT 20 bits, INIT->RTR 20, RTR->RTS 16. */
	RDMA_KT_EQ(ctx, checked, 56);
}

/* Adding any attribute that is neither required nor optional fails. */
static void qp_disallowed_bit(struct rdma_ktap_ctx *ctx)
{
	unsigned int cur, next, t, bit;
	u32 req, opt;

	for (cur = 0; cur < QPS_COUNT; cur++)
		for (next = 0; next < QPS_COUNT; next++)
			for (t = 0; t < ARRAY_SIZE(qpt_known); t++) {
				if (!qp_legal(cur, next))
					continue;
				qp_want_masks(cur, next, qpt_known[t], &req,
					      &opt);
				for (bit = 0; bit < 32; bit++) {
					if ((req | opt | A_STATE) & BIT(bit))
						continue;
					QP_EXPECT(ctx, false, cur, next,
						  qpt_known[t],
						  A_STATE | req | BIT(bit));
				}
			}
}

/* Pairs outside the state diagram fail whatever the mask. */
static void qp_illegal_transitions(struct rdma_ktap_ctx *ctx)
{
	unsigned int cur, next, t, illegal = 0;

	for (cur = 0; cur < QPS_COUNT; cur++)
		for (next = 0; next < QPS_COUNT; next++) {
			if (qp_legal(cur, next))
				continue;
			illegal++;
			for (t = 0; t < ARRAY_SIZE(qpt_known); t++) {
				QP_EXPECT(ctx, false, cur, next, qpt_known[t],
					  0);
				QP_EXPECT(ctx, false, cur, next, qpt_known[t],
					  A_STATE);
				QP_EXPECT(ctx, false, cur, next, qpt_known[t],
					  IB_QP_ATTR_STANDARD_BITS);
			}
		}
	/* 49 pairs, 22 of them legal. */
	RDMA_KT_EQ(ctx, illegal, 27);
}

static void qp_reset_to_err_refused(struct rdma_ktap_ctx *ctx)
{
	unsigned int t;

	for (t = 0; t < ARRAY_SIZE(qpt_known); t++) {
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_ERR, qpt_known[t],
			  A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_ERR, qpt_known[t],
			  0);
	}
}

/* Any state may be reset, and every state but RESET may fail to ERR. */
static void qp_to_reset_and_err(struct rdma_ktap_ctx *ctx)
{
	unsigned int cur, t;

	for (cur = 0; cur < QPS_COUNT; cur++)
		for (t = 0; t < ARRAY_SIZE(qpt_known); t++) {
			enum ib_qp_type type = qpt_known[t];

			QP_EXPECT(ctx, true, cur, IB_QPS_RESET, type, A_STATE);
			QP_EXPECT(ctx, true, cur, IB_QPS_RESET, type, 0);
			QP_EXPECT(ctx, false, cur, IB_QPS_RESET, type,
				  A_STATE | A_PORT);
			QP_EXPECT(ctx, false, cur, IB_QPS_RESET, type,
				  A_STATE | A_CUR);
			if (cur == IB_QPS_RESET)
				continue;
			QP_EXPECT(ctx, true, cur, IB_QPS_ERR, type, A_STATE);
			QP_EXPECT(ctx, false, cur, IB_QPS_ERR, type,
				  A_STATE | A_QKEY);
			QP_EXPECT(ctx, false, cur, IB_QPS_ERR, type,
				  A_STATE | A_CUR);
		}
}

static void qp_cur_state_rules(struct rdma_ktap_ctx *ctx)
{
	/* Allowed leaving RTR, RTS, SQD and SQE where the rules list it. */
	QP_EXPECT(ctx, true, IB_QPS_RTR, IB_QPS_RTS, IB_QPT_UD,
		  A_STATE | A_SQ_PSN | A_CUR);
	QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RC,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, true, IB_QPS_SQD, IB_QPS_RTS, IB_QPT_XRC_TGT,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, true, IB_QPS_SQE, IB_QPS_RTS, IB_QPT_UD,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, true, IB_QPS_SQE, IB_QPS_RTS, IB_QPT_UC,
		  A_STATE | A_CUR);
	/* Refused from RESET, INIT and ERR whatever else is in the mask. */
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, IB_QPT_UD,
		  A_STATE | A_PKEY | A_PORT | A_QKEY | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_INIT, IB_QPT_UD,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_RTR, IB_QPT_UD,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_ERR, IB_QPS_ERR, IB_QPT_UD,
		  A_STATE | A_CUR);
	/* From a right state, still refused where the rules leave it out. */
	QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_SQD, IB_QPT_RC,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_SQD, IB_QPS_SQD, IB_QPT_RC,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_SQE, IB_QPS_RTS, IB_QPT_RC,
		  A_STATE | A_CUR);
	QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RAW_PACKET,
		  A_STATE | A_CUR);
}

static void qp_raw_packet(struct rdma_ktap_ctx *ctx)
{
	const unsigned int raw = IB_QPT_RAW_PACKET;

	QP_EXPECT(ctx, true, IB_QPS_RESET, IB_QPS_INIT, raw, A_STATE | A_PORT);
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, raw, A_STATE);
	QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, raw,
		  A_STATE | A_PORT | A_PKEY);
	QP_EXPECT(ctx, true, IB_QPS_INIT, IB_QPS_INIT, raw, A_STATE);
	QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_INIT, raw, A_STATE | A_PORT);
	QP_EXPECT(ctx, true, IB_QPS_INIT, IB_QPS_RTR, raw, A_STATE);
	QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_RTR, raw, A_STATE | A_AV);
	QP_EXPECT(ctx, true, IB_QPS_RTR, IB_QPS_RTS, raw, A_STATE);
	QP_EXPECT(ctx, true, IB_QPS_RTR, IB_QPS_RTS, raw, A_STATE | A_RATE);
	QP_EXPECT(ctx, false, IB_QPS_RTR, IB_QPS_RTS, raw, A_STATE | A_SQ_PSN);
	QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_RTS, raw, A_STATE | A_RATE);
	QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_SQD, raw, A_STATE | A_SQD_EVT);
	QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_SQD, raw, A_STATE);
	QP_EXPECT(ctx, false, IB_QPS_SQD, IB_QPS_RTS, raw, A_STATE | A_RATE);
	/* The rate limit is a raw packet QP attribute only. */
	QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, IB_QPT_UD,
		  A_STATE | A_RATE);
	QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RC,
		  A_STATE | A_RATE);
}

/* Path migration attributes belong to connected QPs only. */
static void qp_alt_path(struct rdma_ktap_ctx *ctx)
{
	static const enum ib_qp_type connected[] = {
		IB_QPT_UC, IB_QPT_RC, IB_QPT_XRC_INI, IB_QPT_XRC_TGT,
	};
	static const enum ib_qp_type datagram[] = {
		IB_QPT_UD, IB_QPT_SMI, IB_QPT_GSI, IB_QPT_RAW_PACKET,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(connected); i++) {
		QP_EXPECT(ctx, true, IB_QPS_RTS, IB_QPS_RTS, connected[i],
			  A_STATE | A_ALT | A_MIG);
		QP_EXPECT(ctx, true, IB_QPS_SQD, IB_QPS_SQD, connected[i],
			  A_STATE | A_ALT | A_MIG);
		/* INIT->RTR takes an alternate path but no migration state. */
		QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_RTR, connected[i],
			  A_STATE | A_AV | A_MTU | A_DQPN | A_RQ_PSN |
			  A_DEST_RD | A_RNR_TIMER | A_ALT | A_MIG);
	}
	for (i = 0; i < ARRAY_SIZE(datagram); i++) {
		QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, datagram[i],
			  A_STATE | A_ALT);
		QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, datagram[i],
			  A_STATE | A_MIG);
	}
}

/* RAW_IPV6 and RAW_ETHERTYPE have no attributes: bare transitions only. */
static void qp_untabled_types(struct rdma_ktap_ctx *ctx)
{
	static const enum ib_qp_type raw[] = {
		IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(raw); i++) {
		QP_EXPECT(ctx, true, IB_QPS_RESET, IB_QPS_INIT, raw[i], A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, raw[i],
			  A_STATE | A_PORT);
		QP_EXPECT(ctx, true, IB_QPS_RTR, IB_QPS_RTS, raw[i], A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, raw[i],
			  A_STATE | A_RATE);
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_ERR, raw[i], A_STATE);
	}
}

/* Out-of-range states and unknown types are refused, never looked up. */
static void qp_out_of_range(struct rdma_ktap_ctx *ctx)
{
	static const unsigned int bad_states[] = {
		QPS_COUNT, QPS_COUNT + 1, 100, 0x7fffffff, 0xffffffff,
	};
	static const unsigned int bad_types[] = {
		7, IB_QPT_MAX, IB_QPT_DRIVER, IB_QPT_RESERVED1,
		IB_QPT_RESERVED10, 0x7fffffff, 0xffffffff,
	};
	unsigned int i, s;

	for (i = 0; i < ARRAY_SIZE(bad_states); i++) {
		s = bad_states[i];
		QP_EXPECT(ctx, false, s, IB_QPS_RESET, IB_QPT_UD, A_STATE);
		QP_EXPECT(ctx, false, s, IB_QPS_ERR, IB_QPT_RC, A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RTS, s, IB_QPT_RC, A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RESET, s, IB_QPT_UD, 0);
		QP_EXPECT(ctx, false, s, s, IB_QPT_GSI, A_STATE);
	}
	for (i = 0; i < ARRAY_SIZE(bad_types); i++) {
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_RESET, bad_types[i],
			  A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_ERR, bad_types[i],
			  A_STATE);
		QP_EXPECT(ctx, false, IB_QPS_RESET, IB_QPS_INIT, bad_types[i],
			  A_STATE | A_PKEY | A_PORT | A_ACCESS);
	}
}

/* Reserved mask bits and bits past the enum are never allowed. */
static void qp_reserved_bits(struct rdma_ktap_ctx *ctx)
{
	static const u32 bad[] = {
		IB_QP_RESERVED1, IB_QP_RESERVED2, IB_QP_RESERVED3,
		IB_QP_RESERVED4, BIT(26), BIT(30), BIT(31),
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		QP_EXPECT(ctx, false, IB_QPS_RTS, IB_QPS_RTS, IB_QPT_RAW_PACKET,
			  A_STATE | A_RATE | bad[i]);
		QP_EXPECT(ctx, false, IB_QPS_INIT, IB_QPS_RESET, IB_QPT_RC,
			  bad[i]);
		QP_EXPECT(ctx, false, IB_QPS_SQD, IB_QPS_SQD, IB_QPT_RC,
			  A_STATE | bad[i]);
	}
}

/* A small deterministic generator for the sweep below. */
static u32 qp_sweep_next(u32 *seed)
{
	*seed = *seed * 1664525u + 1013904223u;
	return *seed;
}

/*
 * Random masks against the model, over every state pair (and one past the
 * end) and every type: subsets of the relevant bits, sometimes with one
 * stray bit, so that both answers come up often.
 */
static void qp_model_sweep(struct rdma_ktap_ctx *ctx)
{
	static const unsigned int types[] = {
		IB_QPT_SMI, IB_QPT_GSI, IB_QPT_RC, IB_QPT_UC, IB_QPT_UD,
		IB_QPT_RAW_IPV6, IB_QPT_RAW_ETHERTYPE, IB_QPT_RAW_PACKET,
		IB_QPT_XRC_INI, IB_QPT_XRC_TGT, 7, IB_QPT_MAX, IB_QPT_DRIVER,
	};
	unsigned int cur, next, t, n, yes = 0, no = 0;
	u32 seed = 0x5eed, req, opt, mask;
	bool want;

	for (cur = 0; cur <= QPS_COUNT; cur++)
		for (next = 0; next <= QPS_COUNT; next++)
			for (t = 0; t < ARRAY_SIZE(types); t++) {
				qp_want_masks(cur, next, types[t], &req, &opt);
				for (n = 0; n < 64; n++) {
					mask = qp_sweep_next(&seed) &
					       (req | opt | A_STATE | A_CUR);
					if (n & 1)
						mask |= req;
					if (!(n & 7))
						mask |= BIT(qp_sweep_next(&seed) >> 27);
					want = qp_model(cur, next, types[t], mask);
					if (want)
						yes++;
					else
						no++;
					QP_EXPECT(ctx, want, cur, next, types[t],
						  mask);
				}
			}
	RDMA_KT_EXPECT(ctx, yes > 1000 && no > 1000,
		       "sweep unbalanced: %u true, %u false", yes, no);
}

/* ------------------------------------------------------------------------
 * L3 header sniffing and GID extraction
 */

/* An IPv4 header checksum, worked out here byte by byte. */
static u16 ref_ipv4_csum(const struct iphdr *ip)
{
	const u8 *p = (const u8 *)ip;
	u32 sum = 0;
	unsigned int i;

	for (i = 0; i < sizeof(*ip); i += 2)
		sum += (p[i] << 8) | p[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (u16)~sum;
}

static void set_ipv4_csum(struct iphdr *ip, u16 value)
{
	ip->check = (__force __sum16)cpu_to_be16(value);
}

/* @pad fills the 20 bytes in front of the IPv4 header. */
static void build_ipv4(union rdma_network_hdr *h, u8 pad, u32 saddr, u32 daddr)
{
	struct iphdr *ip = &h->roce4grh;

	memset(h, pad, sizeof(*h));
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->tot_len = cpu_to_be16(20 + 8 + 12 + 256 + 4);
	ip->id = cpu_to_be16(0x1234);
	ip->frag_off = cpu_to_be16(0x4000);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = cpu_to_be32(saddr);
	ip->daddr = cpu_to_be32(daddr);
	set_ipv4_csum(ip, ref_ipv4_csum(ip));
}

static const union ib_gid gid_a = { .raw = {
	0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 } };
static const union ib_gid gid_b = { .raw = {
	0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0x07, 0, 0, 0, 0, 0, 0, 0, 0x2a } };

static void build_ipv6(union rdma_network_hdr *h, const union ib_gid *sgid,
		       const union ib_gid *dgid)
{
	memset(h, 0, sizeof(*h));
	h->ibgrh.version_tclass_flow = cpu_to_be32(6 << 28 | 0x0a << 20 | 0x12345);
	h->ibgrh.paylen = cpu_to_be16(8 + 12 + 256 + 4);
	h->ibgrh.next_hdr = IPPROTO_UDP;
	h->ibgrh.hop_limit = 64;
	h->ibgrh.sgid = *sgid;
	h->ibgrh.dgid = *dgid;
}

static void hdr_version_ipv4(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h, before;

	build_ipv4(&h, 0, 0xc0000201, 0xc6336407);
	before = h;
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	RDMA_KT_EXPECT(ctx, !memcmp(&h, &before, sizeof(h)),
		       "the header was modified");
	/* Whatever precedes the IPv4 header, unless its top nibble is 6. */
	build_ipv4(&h, 0xa5, 0x0a000001, 0x0a000002);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
}

/* Without a 6 in front, version 4 alone decides: no checksum, no IHL. */
static void hdr_version_ipv4_unverified(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;

	build_ipv4(&h, 0, 0x0a000001, 0x0a000002);
	set_ipv4_csum(&h.roce4grh, 0xdead);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	h.roce4grh.ihl = 6;
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	h.roce4grh.ihl = 0;
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
}

static void hdr_version_ipv6(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;

	build_ipv6(&h, &gid_a, &gid_b);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
	build_ipv6(&h, &gid_b, &gid_a);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
	/* A GRH with no traffic class or flow label is still version 6. */
	h.ibgrh.version_tclass_flow = cpu_to_be32(6 << 28);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
}

/*
 * Byte 20 of an IPv6 header is inside its source GID; when it reads 0x45
 * the IPv4 checksum has to settle the question.
 */
static void hdr_version_ambiguous(struct rdma_ktap_ctx *ctx)
{
	/* A textbook IPv4 header with a correct checksum of 0xb861. */
	static const u8 v4[20] = {
		0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7,
	};
	union rdma_network_hdr h;

	memset(&h, 0, sizeof(h));
	memcpy(&h.roce4grh, v4, sizeof(v4));
	RDMA_KT_EQ(ctx, ref_ipv4_csum(&h.roce4grh), 0);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	h.ibgrh.version_tclass_flow = cpu_to_be32(6 << 28 | 0x12345);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	/* One bit off anywhere in the IPv4 part: an IPv6 header after all. */
	h.roce4grh.check = (__force __sum16)cpu_to_be16(0xb862);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
	memcpy(&h.roce4grh, v4, sizeof(v4));
	h.roce4grh.ttl ^= 1;
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
	memcpy(&h.roce4grh, v4, sizeof(v4));
	h.roce4grh.daddr ^= cpu_to_be32(0x80);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);

	/* The same from the builder, with random-looking pad bytes. */
	build_ipv4(&h, 0x6f, 0xc0a80001, 0xc0a800c7);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	set_ipv4_csum(&h.roce4grh, ref_ipv4_csum(&h.roce4grh) ^ 0x0100);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
}

/* With a 6 in front, an IPv4 header length other than 5 means IPv6. */
static void hdr_version_ihl_not_5(struct rdma_ktap_ctx *ctx)
{
	static const u8 ihl[] = { 0, 4, 6, 15 };
	union rdma_network_hdr h;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ihl); i++) {
		build_ipv4(&h, 0x60, 0x0a000001, 0x0a000002);
		h.roce4grh.ihl = ihl[i];
		set_ipv4_csum(&h.roce4grh, 0);
		set_ipv4_csum(&h.roce4grh, ref_ipv4_csum(&h.roce4grh));
		RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
	}
}

/*
 * The check field is compared with a recomputed checksum, not summed in:
 * when the rest of the header sums to 0xffff the only right value is
 * 0x0000, although 0xffff would also make the whole header sum to zero.
 */
static void hdr_version_csum_negative_zero(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;

	memset(&h, 0, sizeof(h));
	h.ibgrh.version_tclass_flow = cpu_to_be32(6 << 28);
	h.roce4grh.version = 4;
	h.roce4grh.ihl = 5;
	h.roce4grh.tot_len = cpu_to_be16(0xffff - 0x4500);
	set_ipv4_csum(&h.roce4grh, 0x0000);
	RDMA_KT_EQ(ctx, ref_ipv4_csum(&h.roce4grh), 0);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	set_ipv4_csum(&h.roce4grh, 0xffff);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 6);
}

static void hdr_version_garbage(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;

	memset(&h, 0, sizeof(h));
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 0);
	memset(&h, 0xff, sizeof(h));
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 0);
	/* IPv4 version field 6 and IPv6 version 4: neither is believed. */
	build_ipv4(&h, 0x45, 0x0a000001, 0x0a000002);
	h.roce4grh.version = 6;
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 0);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(NULL), 0);
}

static void gids_ipv4(struct rdma_ktap_ctx *ctx)
{
	static const u8 want_s[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 0, 2, 1 };
	static const u8 want_d[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 198, 51, 100, 7 };
	union rdma_network_hdr h;
	union ib_gid s, d;

	build_ipv4(&h, 0xaa, 0xc0000201, 0xc6336407);
	memset(&s, 0x5a, sizeof(s));
	memset(&d, 0x5a, sizeof(d));
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &s, &d),
		   0);
	RDMA_KT_EXPECT(ctx, !memcmp(s.raw, want_s, 16), "IPv4 sgid %pI6",
		       s.raw);
	RDMA_KT_EXPECT(ctx, !memcmp(d.raw, want_d, 16), "IPv4 dgid %pI6",
		       d.raw);
	/* No header field is checked, not even the version. */
	h.roce4grh.version = 0;
	set_ipv4_csum(&h.roce4grh, 0);
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &s, &d),
		   0);
	RDMA_KT_EXPECT(ctx, !memcmp(s.raw, want_s, 16), "IPv4 sgid %pI6",
		       s.raw);
}

/* IPv6, IB, RoCE v1 and unknown types all copy the GRH GIDs. */
static void gids_grh_types(struct rdma_ktap_ctx *ctx)
{
	static const int types[] = {
		RDMA_NETWORK_IPV6, RDMA_NETWORK_IB, RDMA_NETWORK_ROCE_V1,
		RDMA_NETWORK_IPV6 + 1, 42, -1,
	};
	union rdma_network_hdr h;
	union ib_gid s, d;
	unsigned int i;

	build_ipv6(&h, &gid_a, &gid_b);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		enum rdma_network_type type = (enum rdma_network_type)types[i];

		memset(&s, 0, sizeof(s));
		memset(&d, 0, sizeof(d));
		RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, type, &s, &d), 0);
		RDMA_KT_EXPECT(ctx, !memcmp(&s, &gid_a, sizeof(s)),
			       "type %d: sgid %pI6", types[i], s.raw);
		RDMA_KT_EXPECT(ctx, !memcmp(&d, &gid_b, sizeof(d)),
			       "type %d: dgid %pI6", types[i], d.raw);
	}
}

static void gids_null_args(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;
	union ib_gid s, d, fill;

	build_ipv6(&h, &gid_a, &gid_b);
	memset(&fill, 0x5a, sizeof(fill));
	s = fill;
	d = fill;
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV6, NULL,
						  &d), -EINVAL);
	RDMA_KT_EXPECT(ctx, !memcmp(&d, &fill, sizeof(d)), "dgid written");
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &s,
						  NULL), -EINVAL);
	RDMA_KT_EXPECT(ctx, !memcmp(&s, &fill, sizeof(s)), "sgid written");
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IB, NULL,
						  NULL), -EINVAL);
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(NULL, RDMA_NETWORK_IPV6, &s,
						  &d), -EINVAL);
	RDMA_KT_EXPECT(ctx, !memcmp(&s, &fill, sizeof(s)) &&
		       !memcmp(&d, &fill, sizeof(d)), "GIDs written");
}

/* The outputs may overlap the header they are read from. */
static void gids_in_place(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;

	build_ipv6(&h, &gid_a, &gid_b);
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV6,
						  &h.ibgrh.dgid, &h.ibgrh.sgid),
		   0);
	RDMA_KT_EXPECT(ctx, !memcmp(&h.ibgrh.dgid, &gid_a, 16) &&
		       !memcmp(&h.ibgrh.sgid, &gid_b, 16), "swap in place");
}

/* Sniff, then extract, as the receive path does. */
static void gids_after_sniffing(struct rdma_ktap_ctx *ctx)
{
	union rdma_network_hdr h;
	union ib_gid s, d;

	build_ipv4(&h, 0, 0x0a000001, 0x0a000002);
	RDMA_KT_EQ(ctx, ib_get_rdma_header_version(&h), 4);
	RDMA_KT_EQ(ctx, ib_get_gids_from_rdma_hdr(&h, RDMA_NETWORK_IPV4, &s, &d),
		   0);
	RDMA_KT_EXPECT(ctx, ipv6_addr_v4mapped((struct in6_addr *)&s) &&
		       ipv6_addr_v4mapped((struct in6_addr *)&d),
		       "not IPv4-mapped");
	RDMA_KT_EQ(ctx, be32_to_cpu(((struct in6_addr *)&d)->s6_addr32[3]),
		   0x0a000002);
	RDMA_KT_EQ(ctx, ib_network_to_gid_type(RDMA_NETWORK_IPV4),
		   IB_GID_TYPE_ROCE_UDP_ENCAP);
}

/* ------------------------------------------------------------------------
 * <rdma/ib_addr.h>
 */

union test_sockaddr {
	struct sockaddr		sa;
	struct sockaddr_in	in4;
	struct sockaddr_in6	in6;
	u8			bytes[sizeof(struct sockaddr_in6)];
};

/*
 * The whole union as a struct sockaddr.  rdma_gid2ip() may write a full
 * sockaddr_in6, so FORTIFY_SOURCE rightly objects to passing &a->sa.
 */
static struct sockaddr *test_sa(union test_sockaddr *a)
{
	return (struct sockaddr *)a;
}

static void addr_ip2gid(struct rdma_ktap_ctx *ctx)
{
	static const u8 want4[16] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 1, 2, 3 };
	union test_sockaddr a;
	union ib_gid gid;

	memset(&a, 0, sizeof(a));
	a.in4.sin_family = AF_INET;
	a.in4.sin_port = cpu_to_be16(4791);
	a.in4.sin_addr.s_addr = cpu_to_be32(0x0a010203);
	memset(&gid, 0xee, sizeof(gid));
	RDMA_KT_EQ(ctx, rdma_ip2gid(test_sa(&a), &gid), 0);
	RDMA_KT_EXPECT(ctx, !memcmp(gid.raw, want4, 16), "IPv4 gave %pI6",
		       gid.raw);

	memset(&a, 0, sizeof(a));
	a.in6.sin6_family = AF_INET6;
	a.in6.sin6_scope_id = 3;
	memcpy(&a.in6.sin6_addr, &gid_b, 16);
	memset(&gid, 0xee, sizeof(gid));
	RDMA_KT_EQ(ctx, rdma_ip2gid(test_sa(&a), &gid), 0);
	RDMA_KT_EXPECT(ctx, !memcmp(&gid, &gid_b, 16), "IPv6 gave %pI6",
		       gid.raw);
}

static void addr_ip2gid_bad_family(struct rdma_ktap_ctx *ctx)
{
	static const unsigned short families[] = {
		AF_UNSPEC, AF_UNIX, AF_PACKET, AF_IB, 0xffff,
	};
	union test_sockaddr a;
	union ib_gid gid, fill;
	unsigned int i;

	memset(&fill, 0xee, sizeof(fill));
	for (i = 0; i < ARRAY_SIZE(families); i++) {
		memset(&a, 0x11, sizeof(a));
		a.sa.sa_family = families[i];
		gid = fill;
		RDMA_KT_EQ(ctx, rdma_ip2gid(test_sa(&a), &gid), -EINVAL);
		RDMA_KT_EXPECT(ctx, !memcmp(&gid, &fill, sizeof(gid)),
			       "family %u wrote the GID", families[i]);
	}
}

static void addr_gid2ip(struct rdma_ktap_ctx *ctx)
{
	static const union ib_gid mapped = { .raw = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 192, 168, 7, 9 } };
	static const u8 zero[8];
	union test_sockaddr a;

	memset(&a, 0xcc, sizeof(a));
	rdma_gid2ip(test_sa(&a), &mapped);
	RDMA_KT_EQ(ctx, a.in4.sin_family, AF_INET);
	RDMA_KT_EQ(ctx, be32_to_cpu(a.in4.sin_addr.s_addr), 0xc0a80709);
	RDMA_KT_EQ(ctx, be16_to_cpu(a.in4.sin_port), 0);
	RDMA_KT_EXPECT(ctx, !memcmp(a.in4.sin_zero, zero, sizeof(zero)),
		       "sin_zero not cleared");

	memset(&a, 0xcc, sizeof(a));
	rdma_gid2ip(test_sa(&a), &gid_a);
	RDMA_KT_EQ(ctx, a.in6.sin6_family, AF_INET6);
	RDMA_KT_EQ(ctx, be16_to_cpu(a.in6.sin6_port), 0);
	RDMA_KT_EQ(ctx, be32_to_cpu(a.in6.sin6_flowinfo), 0);
	RDMA_KT_EQ(ctx, a.in6.sin6_scope_id, 0);
	RDMA_KT_EXPECT(ctx, !memcmp(&a.in6.sin6_addr, &gid_a, 16),
		       "IPv6 gave %pI6", &a.in6.sin6_addr);

	/* ::ffff:0:0/96 only: the old IPv4-compatible form stays IPv6. */
	memset(&a, 0xcc, sizeof(a));
	rdma_gid2ip(test_sa(&a), &(const union ib_gid){ .raw = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192, 168, 7, 9 } });
	RDMA_KT_EQ(ctx, a.in6.sin6_family, AF_INET6);
}

static void addr_round_trip(struct rdma_ktap_ctx *ctx)
{
	static const u32 v4[] = { 0, 0x7f000001, 0xc0000201, 0xe0000001,
				  0xffffffff };
	union test_sockaddr a;
	union ib_gid gid, back;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(v4); i++) {
		memset(&a, 0, sizeof(a));
		a.in4.sin_family = AF_INET;
		a.in4.sin_addr.s_addr = cpu_to_be32(v4[i]);
		RDMA_KT_EQ(ctx, rdma_ip2gid(test_sa(&a), &gid), 0);
		memset(&a, 0x77, sizeof(a));
		rdma_gid2ip(test_sa(&a), &gid);
		RDMA_KT_EQ(ctx, a.sa.sa_family, AF_INET);
		RDMA_KT_EQ(ctx, be32_to_cpu(a.in4.sin_addr.s_addr), v4[i]);
	}
	rdma_gid2ip(test_sa(&a), &gid_b);
	RDMA_KT_EQ(ctx, rdma_ip2gid(test_sa(&a), &back), 0);
	RDMA_KT_EXPECT(ctx, !memcmp(&back, &gid_b, 16), "IPv6 round trip");
}

static struct in6_addr in6_of(const u8 *bytes)
{
	struct in6_addr a;

	memcpy(a.s6_addr, bytes, 16);
	return a;
}

static void addr_is_multicast(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		u8 addr[16];
		int want;
	} cases[] = {
		{ { 0xff, 0x02, [15] = 1 }, 1 },			/* ff02::1 */
		{ { 0xff, 0x0e, [12] = 1, 2, 3, 4 }, 1 },
		{ { 0xff }, 1 },					/* ff00:: */
		{ { 0xfe, 0x80, [15] = 1 }, 0 },			/* fe80::1 */
		{ { 0xfe, 0xff }, 0 },
		{ { 0x20, 0x01, 0x0d, 0xb8, [15] = 0xff }, 0 },
		{ { [10] = 0xff, 0xff, 224, 0, 0, 1 }, 1 },		/* ::ffff:224.0.0.1 */
		{ { [10] = 0xff, 0xff, 239, 255, 255, 255 }, 1 },
		{ { [10] = 0xff, 0xff, 223, 255, 255, 255 }, 0 },
		{ { [10] = 0xff, 0xff, 240, 0, 0, 1 }, 0 },
		{ { [10] = 0xff, 0xff, 10, 0, 0, 1 }, 0 },
		{ { [12] = 224, 0, 0, 1 }, 0 },			/* ::224.0.0.1 */
		{ { [10] = 0xff, 0xfe, 224, 0, 0, 1 }, 0 },
		{ { 0 }, 0 },
	};
	struct in6_addr a;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		a = in6_of(cases[i].addr);
		RDMA_KT_EXPECT(ctx, rdma_is_multicast_addr(&a) == cases[i].want,
			       "%pI6: expected %d", &a, cases[i].want);
	}
}

static void addr_link_local(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		u8 addr[16];
		int want;
	} cases[] = {
		{ { 0xfe, 0x80, [15] = 1 }, 1 },
		{ { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 }, 1 },
		{ { 0xfe, 0x80 }, 1 },
		{ { 0xfe, 0x80, [7] = 1, [15] = 1 }, 0 },		/* fe80:0:0:1::1 */
		{ { 0xfe, 0x80, 0, 1 }, 0 },
		{ { 0xfe, 0x81 }, 0 },
		{ { 0xfe, 0xc0 }, 0 },
		{ { 0xff, 0x02, [15] = 1 }, 0 },
		{ { [10] = 0xff, 0xff, 169, 254, 0, 1 }, 0 },
	};
	struct in6_addr a;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		a = in6_of(cases[i].addr);
		RDMA_KT_EXPECT(ctx, rdma_link_local_addr(&a) == cases[i].want,
			       "%pI6: expected %d", &a, cases[i].want);
	}
}

static void addr_ll_mac(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		u8 addr[16];
		u8 mac[6];
	} cases[] = {
		{ { 0xfe, 0x80, [8] = 0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 },
		  { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 } },
		{ { 0xfe, 0x80, [8] = 0xa8, 0xbb, 0xcc, 0xff, 0xfe, 0xdd, 0xee, 0xff },
		  { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff } },
		/* A locally administered MAC has the bit cleared in the GID. */
		{ { 0xfe, 0x80, [8] = 0x00, 0x01, 0x02, 0xff, 0xfe, 0x03, 0x04, 0x05 },
		  { 0x02, 0x01, 0x02, 0x03, 0x04, 0x05 } },
		/* Bytes 11 and 12 are dropped whatever they hold. */
		{ { 0xfe, 0x80, [8] = 0x52, 0x54, 0x00, 0x12, 0x34, 0x56, 0x78, 0x9a },
		  { 0x50, 0x54, 0x00, 0x56, 0x78, 0x9a } },
	};
	struct in6_addr a;
	u8 mac[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		a = in6_of(cases[i].addr);
		memset(mac, 0xee, sizeof(mac));
		rdma_get_ll_mac(&a, mac);
		RDMA_KT_EXPECT(ctx, !memcmp(mac, cases[i].mac, 6),
			       "%pI6 gave %pM, expected %pM", &a, mac,
			       cases[i].mac);
		RDMA_KT_EXPECT(ctx, mac[6] == 0xee && mac[7] == 0xee,
			       "wrote past the MAC");
	}
}

static void addr_mcast_mac(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		u8 addr[16];
		u8 mac[6];
	} cases[] = {
		{ { 0xff, 0x02, [11] = 0x01, 0xff, 0x12, 0x34, 0x56 },	/* solicited node */
		  { 0x33, 0x33, 0xff, 0x12, 0x34, 0x56 } },
		{ { 0xff, 0x02, [15] = 0x01 },				/* all nodes */
		  { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
		{ { 0xff, 0x12, [8] = 0xde, 0xad, 0xbe, 0xef, 0x8a, 0x9b, 0xac, 0xbd },
		  { 0x33, 0x33, 0x8a, 0x9b, 0xac, 0xbd } },
	};
	struct in6_addr a;
	u8 mac[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		a = in6_of(cases[i].addr);
		memset(mac, 0xee, sizeof(mac));
		rdma_get_mcast_mac(&a, mac);
		RDMA_KT_EXPECT(ctx, !memcmp(mac, cases[i].mac, 6),
			       "%pI6 gave %pM, expected %pM", &a, mac,
			       cases[i].mac);
		RDMA_KT_EXPECT(ctx, mac[6] == 0xee && mac[7] == 0xee,
			       "wrote past the MAC");
	}
}

static const struct rdma_ktap_case pure_cases[] = {
	{ "qp_api_examples", qp_api_examples },
	{ "qp_required_mask_exact", qp_required_mask_exact },
	{ "qp_each_optional_bit", qp_each_optional_bit },
	{ "qp_missing_required_bit", qp_missing_required_bit },
	{ "qp_disallowed_bit", qp_disallowed_bit },
	{ "qp_illegal_transitions", qp_illegal_transitions },
	{ "qp_reset_to_err_refused", qp_reset_to_err_refused },
	{ "qp_to_reset_and_err", qp_to_reset_and_err },
	{ "qp_cur_state_rules", qp_cur_state_rules },
	{ "qp_raw_packet", qp_raw_packet },
	{ "qp_alt_path", qp_alt_path },
	{ "qp_untabled_types", qp_untabled_types },
	{ "qp_out_of_range", qp_out_of_range },
	{ "qp_reserved_bits", qp_reserved_bits },
	{ "qp_model_sweep", qp_model_sweep },
	{ "hdr_version_ipv4", hdr_version_ipv4 },
	{ "hdr_version_ipv4_unverified", hdr_version_ipv4_unverified },
	{ "hdr_version_ipv6", hdr_version_ipv6 },
	{ "hdr_version_ambiguous", hdr_version_ambiguous },
	{ "hdr_version_ihl_not_5", hdr_version_ihl_not_5 },
	{ "hdr_version_csum_negative_zero", hdr_version_csum_negative_zero },
	{ "hdr_version_garbage", hdr_version_garbage },
	{ "gids_ipv4", gids_ipv4 },
	{ "gids_grh_types", gids_grh_types },
	{ "gids_null_args", gids_null_args },
	{ "gids_in_place", gids_in_place },
	{ "gids_after_sniffing", gids_after_sniffing },
	{ "addr_ip2gid", addr_ip2gid },
	{ "addr_ip2gid_bad_family", addr_ip2gid_bad_family },
	{ "addr_gid2ip", addr_gid2ip },
	{ "addr_round_trip", addr_round_trip },
	{ "addr_is_multicast", addr_is_multicast },
	{ "addr_link_local", addr_link_local },
	{ "addr_ll_mac", addr_ll_mac },
	{ "addr_mcast_mac", addr_mcast_mac },
};

static int __init pure_test_init(void)
{
	rdma_ktap_run("rdma_pure", pure_cases, ARRAY_SIZE(pure_cases));
	return 0;
}

static void __exit pure_test_exit(void)
{
}

module_init(pure_test_init);
module_exit(pure_test_exit);

MODULE_DESCRIPTION("KTAP tests of the RDMA core's QP state check, header sniffing and address helpers");
MODULE_LICENSE("GPL");
