// SPDX-License-Identifier: GPL-2.0
/*
 * The cases of rdma_rxe_loop_test about RC operations and QP events that
 * come with the memory placement extensions and the SQD state:
 *
 *  - ATOMIC_WRITE: 8 bytes land at once in an MR that grants remote write
 *    (not remote atomic), and complete as IB_WC_ATOMIC_WRITE; a length
 *    other than 8 is refused at post time, a misaligned target with an
 *    invalid request error
 *  - SQD: the send queue drains (the WQEs begun before the move complete),
 *    IB_EVENT_SQ_DRAINED is raised once and query_qp() says the QP is no
 *    longer draining; a WQE posted in SQD waits until the QP is back in
 *    RTS
 *  - COMM_EST: the first request a QP in RTR takes raises
 *    IB_EVENT_COMM_EST, once, and is answered (RTR receives)
 */
#include "rdma_rxe_loop.h"

#define QE_PSN_A	0x100
#define QE_PSN_B	0xfffff0
#define QE_WORD		0x200

/* Post an ATOMIC_WRITE of @a's first @len tx bytes to @off of @m. */
static int qe_atomic_write(struct lt_end *a, struct lt_mr *m, u32 off,
			   u32 len, u64 wr_id)
{
	struct lt_wr w = {
		.op = IB_WR_ATOMIC_WRITE,
		.wr_id = wr_id,
		.signaled = true,
		.laddr = a->tx_dma,
		.len = len,
		.raddr = m->mr->iova + off,
		.rkey = m->mr->rkey,
	};

	return lt_post_send(a->qp, &w, NULL);
}

void rc_atomic_write(struct rdma_ktap_ctx *ctx)
{
	const u64 val = 0x0102030405060708ULL;
	struct lt_end a, b;
	struct lt_mr m = {};
	struct ib_wc wc;
	u64 word;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, QE_PSN_A,
		     QE_PSN_B) ||
	    !lt_mr_reg(ctx, &b, &m, IB_ACCESS_LOCAL_WRITE |
		       IB_ACCESS_REMOTE_WRITE))
		goto out;
	memset(m.va + QE_WORD - sizeof(u64), 0x5a, 3 * sizeof(u64));
	memcpy(a.tx, &val, sizeof(val));
	if (!RDMA_KT_EQ(ctx, qe_atomic_write(&a, &m, QE_WORD, sizeof(u64), 1),
			0) ||
	    !lt_expect_wc(ctx, a.scq, "ATOMIC_WRITE", 1, IB_WC_SUCCESS,
			  IB_WC_ATOMIC_WRITE, &wc))
		goto out;
	RDMA_KT_EQ(ctx, wc.byte_len, sizeof(u64));
	memcpy(&word, m.va + QE_WORD, sizeof(word));
	RDMA_KT_EQ(ctx, word, val);
	/* its neighbours are untouched */
	RDMA_KT_EQ(ctx, m.va[QE_WORD - 1], 0x5a);
	RDMA_KT_EQ(ctx, m.va[QE_WORD + sizeof(u64)], 0x5a);
	lt_expect_quiet(ctx, b.rcq, "B recv CQ after ATOMIC_WRITE");

	/* 8 bytes exactly */
	RDMA_KT_EQ(ctx, qe_atomic_write(&a, &m, QE_WORD, 4, 2), -EINVAL);
	RDMA_KT_EQ(ctx, qe_atomic_write(&a, &m, QE_WORD, 16, 3), -EINVAL);
	lt_expect_quiet(ctx, a.scq, "A send CQ after refused posts");
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);

	/* Misaligned: the responder refuses it, the word stays. */
	memset(a.tx, 0xee, sizeof(u64));
	if (RDMA_KT_EQ(ctx, qe_atomic_write(&a, &m, QE_WORD + 4, sizeof(u64),
					    4), 0))
		lt_expect_wc(ctx, a.scq, "misaligned ATOMIC_WRITE", 4,
			     IB_WC_REM_INV_REQ_ERR, 0, NULL);
	memcpy(&word, m.va + QE_WORD, sizeof(word));
	RDMA_KT_EQ(ctx, word, val);
out:
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

static bool qe_send(struct rdma_ktap_ctx *ctx, struct lt_end *a, u64 wr_id,
		    u32 len)
{
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = wr_id,
		.signaled = true,
		.laddr = a->tx_dma,
		.len = len,
	};

	return RDMA_KT_EQ(ctx, lt_post_send(a->qp, &w, NULL), 0);
}

static int qe_modify_state(struct lt_end *e, enum ib_qp_state state,
			   int extra_mask)
{
	struct ib_qp_attr qa = {
		.qp_state = state,
		.en_sqd_async_notify = 1,
	};

	return ib_modify_qp(e->qp, &qa, IB_QP_STATE | extra_mask);
}

void rc_sqd_drains(struct rdma_ktap_ctx *ctx)
{
	u32 len = 3 * lt_mtu + 1, i;
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa;
	struct lt_end a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, QE_PSN_A,
		     QE_PSN_B))
		goto out;
	lt_fill(a.tx, len, 9);
	for (i = 0; i < 5; i++)
		if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 100 + i, b.rx_dma,
						  LT_BUF), 0))
			goto out;
	for (i = 0; i < 4; i++)
		if (!qe_send(ctx, &a, 10 + i, len))
			goto out;
	/* Into SQD while they are in flight: they finish, then the event. */
	if (!RDMA_KT_EQ(ctx, qe_modify_state(&a, IB_QPS_SQD,
					     IB_QP_EN_SQD_ASYNC_NOTIFY), 0))
		goto out;
	for (i = 0; i < 4; i++)
		if (!lt_expect_wc(ctx, a.scq, "SEND begun before SQD", 10 + i,
				  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
		    !lt_expect_wc(ctx, b.rcq, "its receive", 100 + i,
				  IB_WC_SUCCESS, IB_WC_RECV, NULL))
			goto out;
	if (!RDMA_KT_EQ(ctx, lt_qp_events_wait(&a, 1), 1) ||
	    !RDMA_KT_EQ(ctx, READ_ONCE(a.last_event), IB_EVENT_SQ_DRAINED))
		goto out;
	if (RDMA_KT_EQ(ctx, ib_query_qp(a.qp, &qa, IB_QP_STATE, &init), 0)) {
		RDMA_KT_EQ(ctx, qa.qp_state, IB_QPS_SQD);
		RDMA_KT_EQ(ctx, qa.sq_draining, 0);
	}

	/* Posted in SQD: accepted, but not begun until RTS. */
	if (!qe_send(ctx, &a, 20, len) ||
	    !lt_expect_quiet(ctx, a.scq, "SEND posted in SQD") ||
	    !lt_expect_quiet(ctx, b.rcq, "nothing arrives from SQD"))
		goto out;
	if (!RDMA_KT_EQ(ctx, qe_modify_state(&a, IB_QPS_RTS, 0), 0) ||
	    !lt_expect_wc(ctx, a.scq, "SEND posted in SQD, after RTS", 20,
			  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "its receive", 104, IB_WC_SUCCESS,
			  IB_WC_RECV, NULL))
		goto out;
	lt_expect_data(ctx, b.rx, len, 9, "SEND posted in SQD");
	/* one SQ_DRAINED, nothing else on either side */
	RDMA_KT_EQ(ctx, atomic_read(&a.events), 1);
	RDMA_KT_EQ(ctx, atomic_read(&b.events), 0);
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* @e (in INIT) to RTR only, with the peer QP @dqpn of this device. */
static bool qe_to_rtr(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 dqpn,
		      u32 rq_psn)
{
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_RTR,
		.path_mtu = lt_mtu_enum,
		.dest_qp_num = dqpn,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = 1,
		.min_rnr_timer = 1,
	};

	return lt_path_attr(ctx, &qa.ah_attr, lt_idx4) &&
	       RDMA_KT_EQ(ctx, ib_modify_qp(e->qp, &qa, IB_QP_STATE |
					    IB_QP_AV | IB_QP_PATH_MTU |
					    IB_QP_DEST_QPN | IB_QP_RQ_PSN |
					    IB_QP_MAX_DEST_RD_ATOMIC |
					    IB_QP_MIN_RNR_TIMER), 0);
}

void rc_comm_est(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_attr qa = {};
	struct lt_end a, b;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), QE_PSN_B,
				       QE_PSN_A, 14), 0) ||
	    !qe_to_rtr(ctx, &b, lt_qpn(&a), QE_PSN_A))
		goto out;
	lt_fill(a.tx, 100, 3);
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 1, b.rx_dma, LT_BUF), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 2, b.rx_dma, LT_BUF), 0) ||
	    !qe_send(ctx, &a, 5, 100) ||
	    !lt_expect_wc(ctx, b.rcq, "receive in RTR", 1, IB_WC_SUCCESS,
			  IB_WC_RECV, NULL) ||
	    !lt_expect_wc(ctx, a.scq, "SEND to a QP in RTR", 5, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL))
		goto out;
	lt_expect_data(ctx, b.rx, 100, 3, "SEND to a QP in RTR");
	if (!RDMA_KT_EQ(ctx, lt_qp_events_wait(&b, 1), 1) ||
	    !RDMA_KT_EQ(ctx, READ_ONCE(b.last_event), IB_EVENT_COMM_EST))
		goto out;

	/* In RTS: a request raises nothing more. */
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = QE_PSN_B;
	qa.timeout = 14;
	qa.retry_cnt = 7;
	qa.rnr_retry = 7;
	qa.max_rd_atomic = 1;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(b.qp, &qa, IB_QP_STATE |
					  IB_QP_SQ_PSN | IB_QP_TIMEOUT |
					  IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					  IB_QP_MAX_QP_RD_ATOMIC), 0) ||
	    !qe_send(ctx, &a, 6, 100) ||
	    !lt_expect_wc(ctx, b.rcq, "receive in RTS", 2, IB_WC_SUCCESS,
			  IB_WC_RECV, NULL) ||
	    !lt_expect_wc(ctx, a.scq, "SEND to a QP in RTS", 6, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL))
		goto out;
	RDMA_KT_EQ(ctx, atomic_read(&b.events), 1);
	RDMA_KT_EQ(ctx, atomic_read(&a.events), 0);
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}
