// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/qp_state.c: ib_modify_qp_is_ok() against the
 * IBA rules (Vol 1, 10.3 QP states and 11.2.5 Modify QP), written out
 * here per transition and QP type.  Each rule row is checked in all its
 * directions: the required set alone passes, every required bit missing
 * fails, every optional bit may be added, and every other attribute bit
 * makes the call fail.
 */
#include <linux/kernel.h>
#include <rdma/ib_qp_state.h>
#include "unit.h"

#define S(x)	IB_QPS_##x
#define T(x)	IB_QPT_##x
#define A(x)	IB_QP_##x

struct qp_case {
	enum ib_qp_state cur, next;
	enum ib_qp_type type;
	u32 req, opt;
};

#define UD_SETUP	(A(PKEY_INDEX) | A(PORT) | A(QKEY))
#define CONN_SETUP	(A(PKEY_INDEX) | A(PORT) | A(ACCESS_FLAGS))
#define UC_RTR		(A(AV) | A(PATH_MTU) | A(DEST_QPN) | A(RQ_PSN))
#define RC_RTR		(UC_RTR | A(MAX_DEST_RD_ATOMIC) | A(MIN_RNR_TIMER))
#define CONN_RTR_OPT	(A(ALT_PATH) | A(ACCESS_FLAGS) | A(PKEY_INDEX))
#define RC_RTS		(A(TIMEOUT) | A(RETRY_CNT) | A(RNR_RETRY) | A(SQ_PSN) | \
			 A(MAX_QP_RD_ATOMIC))
#define UC_LIVE		(A(CUR_STATE) | A(ALT_PATH) | A(ACCESS_FLAGS) | \
			 A(PATH_MIG_STATE))
#define RC_LIVE		(UC_LIVE | A(MIN_RNR_TIMER))

static const struct qp_case cases[] = {
	/* RESET -> INIT */
	{ S(RESET), S(INIT), T(UD), UD_SETUP, 0 },
	{ S(RESET), S(INIT), T(GSI), A(PKEY_INDEX) | A(QKEY), 0 },
	{ S(RESET), S(INIT), T(SMI), A(PKEY_INDEX) | A(QKEY), 0 },
	{ S(RESET), S(INIT), T(RC), CONN_SETUP, 0 },
	{ S(RESET), S(INIT), T(UC), CONN_SETUP, 0 },
	{ S(RESET), S(INIT), T(XRC_INI), CONN_SETUP, 0 },
	{ S(RESET), S(INIT), T(XRC_TGT), CONN_SETUP, 0 },
	{ S(RESET), S(INIT), T(RAW_PACKET), A(PORT), 0 },
	{ S(RESET), S(INIT), T(RAW_IPV6), 0, 0 },
	/* INIT -> INIT */
	{ S(INIT), S(INIT), T(UD), 0, UD_SETUP },
	{ S(INIT), S(INIT), T(RC), 0, CONN_SETUP },
	{ S(INIT), S(INIT), T(GSI), 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(INIT), S(INIT), T(RAW_PACKET), 0, 0 },
	/* INIT -> RTR */
	{ S(INIT), S(RTR), T(UD), 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(INIT), S(RTR), T(GSI), 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(INIT), S(RTR), T(UC), UC_RTR, CONN_RTR_OPT },
	{ S(INIT), S(RTR), T(RC), RC_RTR, CONN_RTR_OPT },
	{ S(INIT), S(RTR), T(XRC_INI), UC_RTR, CONN_RTR_OPT },
	{ S(INIT), S(RTR), T(XRC_TGT), RC_RTR, CONN_RTR_OPT },
	{ S(INIT), S(RTR), T(RAW_PACKET), 0, 0 },
	/* RTR -> RTS */
	{ S(RTR), S(RTS), T(UD), A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
	{ S(RTR), S(RTS), T(SMI), A(SQ_PSN), A(CUR_STATE) | A(QKEY) },
	{ S(RTR), S(RTS), T(UC), A(SQ_PSN), UC_LIVE },
	{ S(RTR), S(RTS), T(RC), RC_RTS, RC_LIVE },
	{ S(RTR), S(RTS), T(XRC_INI), RC_RTS, UC_LIVE },
	{ S(RTR), S(RTS), T(XRC_TGT), A(TIMEOUT) | A(SQ_PSN), RC_LIVE },
	{ S(RTR), S(RTS), T(RAW_PACKET), 0, A(RATE_LIMIT) },
	/* RTS -> RTS */
	{ S(RTS), S(RTS), T(UD), 0, A(CUR_STATE) | A(QKEY) },
	{ S(RTS), S(RTS), T(UC), 0, UC_LIVE },
	{ S(RTS), S(RTS), T(RC), 0, RC_LIVE },
	{ S(RTS), S(RTS), T(XRC_TGT), 0, RC_LIVE },
	{ S(RTS), S(RTS), T(RAW_PACKET), 0, A(RATE_LIMIT) },
	/* RTS -> SQD */
	{ S(RTS), S(SQD), T(UD), 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(RTS), S(SQD), T(RC), 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(RTS), S(SQD), T(GSI), 0, A(EN_SQD_ASYNC_NOTIFY) },
	{ S(RTS), S(SQD), T(RAW_PACKET), 0, 0 },
	/* SQD -> RTS: no rate limit here */
	{ S(SQD), S(RTS), T(UD), 0, A(CUR_STATE) | A(QKEY) },
	{ S(SQD), S(RTS), T(UC), 0, UC_LIVE },
	{ S(SQD), S(RTS), T(RC), 0, RC_LIVE },
	{ S(SQD), S(RTS), T(RAW_PACKET), 0, 0 },
	/* SQD -> SQD */
	{ S(SQD), S(SQD), T(UD), 0, A(PKEY_INDEX) | A(QKEY) },
	{ S(SQD), S(SQD), T(UC), 0, A(AV) | A(ALT_PATH) | A(ACCESS_FLAGS) |
					A(PKEY_INDEX) | A(PATH_MIG_STATE) },
	{ S(SQD), S(SQD), T(RC), 0, A(PORT) | A(AV) | A(TIMEOUT) | A(RETRY_CNT) |
					A(RNR_RETRY) | A(MAX_QP_RD_ATOMIC) |
					A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
					A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					A(MIN_RNR_TIMER) | A(PATH_MIG_STATE) },
	{ S(SQD), S(SQD), T(XRC_INI), 0, A(PORT) | A(AV) | A(TIMEOUT) |
					A(RETRY_CNT) | A(RNR_RETRY) |
					A(MAX_QP_RD_ATOMIC) | A(ALT_PATH) |
					A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					A(PATH_MIG_STATE) },
	{ S(SQD), S(SQD), T(XRC_TGT), 0, A(PORT) | A(AV) | A(TIMEOUT) |
					A(MAX_DEST_RD_ATOMIC) | A(ALT_PATH) |
					A(ACCESS_FLAGS) | A(PKEY_INDEX) |
					A(MIN_RNR_TIMER) | A(PATH_MIG_STATE) },
	/* SQE -> RTS: only datagram and UC QPs have options */
	{ S(SQE), S(RTS), T(UD), 0, A(CUR_STATE) | A(QKEY) },
	{ S(SQE), S(RTS), T(GSI), 0, A(CUR_STATE) | A(QKEY) },
	{ S(SQE), S(RTS), T(UC), 0, A(CUR_STATE) | A(ACCESS_FLAGS) },
	{ S(SQE), S(RTS), T(RC), 0, 0 },
};

/* Every defined attribute bit, IB_QP_STATE aside. */
#define ALL_ATTRS	((u32)(IB_QP_ATTR_STANDARD_BITS | A(RATE_LIMIT)) & ~(u32)A(STATE))

static bool ok(enum ib_qp_state c, enum ib_qp_state n, enum ib_qp_type t, u32 m)
{
	return ib_modify_qp_is_ok(c, n, t, (enum ib_qp_attr_mask)m);
}

static void check_case(const struct qp_case *c)
{
	unsigned int bit;
	u32 other = ALL_ATTRS & ~(c->req | c->opt);

	if (!EXPECT_TRUE(ok(c->cur, c->next, c->type, c->req)) ||
	    !EXPECT_TRUE(ok(c->cur, c->next, c->type, c->req | A(STATE))) ||
	    !EXPECT_TRUE(ok(c->cur, c->next, c->type, c->req | c->opt | A(STATE))))
		printf("    # case %d->%d type %d\n", c->cur, c->next, c->type);

	for (bit = 0; bit < 32; bit++) {
		u32 b = 1U << bit;

		if ((c->req & b) &&
		    !EXPECT_FALSE(ok(c->cur, c->next, c->type, (c->req | c->opt) & ~b)))
			printf("    # case %d->%d type %d: missing bit %u accepted\n",
			       c->cur, c->next, c->type, bit);
		if ((c->opt & b) &&
		    !EXPECT_TRUE(ok(c->cur, c->next, c->type, c->req | b)))
			printf("    # case %d->%d type %d: optional bit %u refused\n",
			       c->cur, c->next, c->type, bit);
		if ((other & b) &&
		    !EXPECT_FALSE(ok(c->cur, c->next, c->type, c->req | b)))
			printf("    # case %d->%d type %d: extra bit %u accepted\n",
			       c->cur, c->next, c->type, bit);
	}
}

UNIT_TEST(qp_state, rule_rows)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++)
		check_case(&cases[i]);
}

static bool legal(enum ib_qp_state c, enum ib_qp_state n)
{
	if (n == S(RESET))
		return true;
	if (n == S(ERR))
		return c != S(RESET);
	switch (c) {
	case S(RESET):
		return n == S(INIT);
	case S(INIT):
		return n == S(INIT) || n == S(RTR);
	case S(RTR):
		return n == S(RTS);
	case S(RTS):
		return n == S(RTS) || n == S(SQD);
	case S(SQD):
		return n == S(RTS) || n == S(SQD);
	case S(SQE):
		return n == S(RTS);
	default:
		return false;
	}
}

UNIT_TEST(qp_state, illegal_transitions_refuse_every_mask)
{
	static const enum ib_qp_type types[] = { T(SMI), T(GSI), T(RC), T(UC),
		T(UD), T(RAW_IPV6), T(RAW_ETHERTYPE), T(RAW_PACKET),
		T(XRC_INI), T(XRC_TGT) };
	unsigned int c, n, t;

	for (c = S(RESET); c <= S(ERR); c++)
		for (n = S(RESET); n <= S(ERR); n++) {
			if (legal(c, n))
				continue;
			for (t = 0; t < ARRAY_SIZE(types); t++) {
				EXPECT_FALSE(ok(c, n, types[t], 0));
				EXPECT_FALSE(ok(c, n, types[t], A(STATE)));
				EXPECT_FALSE(ok(c, n, types[t], ALL_ATTRS | A(STATE)));
			}
		}
}

UNIT_TEST(qp_state, reset_and_err_are_bare)
{
	unsigned int c;

	for (c = S(RESET); c <= S(ERR); c++) {
		EXPECT_TRUE(ok(c, S(RESET), T(RC), A(STATE)));
		EXPECT_TRUE(ok(c, S(RESET), T(UD), 0));
		/* Nothing but the state may come along. */
		EXPECT_FALSE(ok(c, S(RESET), T(UD), A(STATE) | A(QKEY)));
		if (c == S(RESET))
			continue;
		EXPECT_TRUE(ok(c, S(ERR), T(RC), A(STATE)));
		EXPECT_FALSE(ok(c, S(ERR), T(RC), A(STATE) | A(PKEY_INDEX)));
	}
	EXPECT_FALSE(ok(S(RESET), S(ERR), T(RC), A(STATE)));
	EXPECT_FALSE(ok(S(RESET), S(ERR), T(UD), 0));
}

UNIT_TEST(qp_state, cur_state_only_from_rtr_rts_sqd_sqe)
{
	/* CUR_STATE is optional on RTR->RTS, but not from a state it can't name. */
	EXPECT_TRUE(ok(S(RTR), S(RTS), T(UD), A(SQ_PSN) | A(CUR_STATE)));
	EXPECT_TRUE(ok(S(RTS), S(RTS), T(UD), A(CUR_STATE)));
	EXPECT_TRUE(ok(S(SQD), S(RTS), T(UD), A(CUR_STATE)));
	EXPECT_TRUE(ok(S(SQE), S(RTS), T(UD), A(CUR_STATE)));
	EXPECT_FALSE(ok(S(INIT), S(INIT), T(UD), A(CUR_STATE)));
	EXPECT_FALSE(ok(S(RESET), S(RESET), T(UD), A(CUR_STATE)));
	EXPECT_FALSE(ok(S(ERR), S(RESET), T(UD), A(CUR_STATE)));
	EXPECT_FALSE(ok(S(INIT), S(ERR), T(RC), A(CUR_STATE)));
	/* From RTS it is still refused where the rule does not list it. */
	EXPECT_FALSE(ok(S(RTS), S(SQD), T(UD), A(CUR_STATE)));
}

UNIT_TEST(qp_state, out_of_range_is_refused)
{
	EXPECT_FALSE(ok((enum ib_qp_state)7, S(RESET), T(UD), 0));
	EXPECT_FALSE(ok(S(RESET), (enum ib_qp_state)7, T(UD), 0));
	EXPECT_FALSE(ok((enum ib_qp_state)-1, S(RESET), T(UD), 0));
	EXPECT_FALSE(ok(S(INIT), (enum ib_qp_state)0x7fffffff, T(UD), 0));
	EXPECT_FALSE(ok(S(RESET), S(INIT), T(MAX), UD_SETUP));
	EXPECT_FALSE(ok(S(RESET), S(INIT), T(DRIVER), UD_SETUP));
	EXPECT_FALSE(ok(S(RESET), S(INIT), T(RESERVED1), 0));
	EXPECT_FALSE(ok(S(RESET), S(RESET), (enum ib_qp_type)-1, 0));
	EXPECT_FALSE(ok(S(RESET), S(RESET), (enum ib_qp_type)0x12345, 0));
}

UNIT_TEST(qp_state, raw_ipv6_and_ethertype_take_no_attributes)
{
	EXPECT_TRUE(ok(S(RESET), S(INIT), T(RAW_ETHERTYPE), A(STATE)));
	EXPECT_TRUE(ok(S(INIT), S(RTR), T(RAW_IPV6), A(STATE)));
	EXPECT_FALSE(ok(S(RESET), S(INIT), T(RAW_ETHERTYPE), A(PORT)));
	EXPECT_FALSE(ok(S(RTR), S(RTS), T(RAW_IPV6), A(SQ_PSN)));
}

UNIT_TEST(qp_state, unknown_mask_bits_are_refused)
{
	/* Reserved and undefined bits are never allowed. */
	EXPECT_FALSE(ok(S(RTS), S(RTS), T(RC), A(RESERVED1)));
	EXPECT_FALSE(ok(S(RTS), S(RTS), T(RC), 1U << 26));
	EXPECT_FALSE(ok(S(RTS), S(RTS), T(RC), 1U << 31));
	EXPECT_FALSE(ok(S(RTS), S(RTS), T(UD), A(RATE_LIMIT)));
}

UNIT_TEST(qp_state, abi_values)
{
	EXPECT_EQ(IB_QPT_SMI, 0);
	EXPECT_EQ(IB_QPT_GSI, 1);
	EXPECT_EQ(IB_QPT_RC, 2);
	EXPECT_EQ(IB_QPT_UC, 3);
	EXPECT_EQ(IB_QPT_UD, 4);
	EXPECT_EQ(IB_QPT_RAW_PACKET, 8);
	EXPECT_EQ(IB_QPT_XRC_INI, 9);
	EXPECT_EQ(IB_QPT_XRC_TGT, 10);
	EXPECT_EQ(IB_QPS_ERR, 6);
	EXPECT_EQ(IB_QP_DEST_QPN, 1 << 20);
	EXPECT_EQ(IB_QP_RATE_LIMIT, 1 << 25);
	EXPECT_EQ(IB_QP_ATTR_STANDARD_BITS, 0x1fffff);
}
