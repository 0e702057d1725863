// SPDX-License-Identifier: GPL-2.0
/*
 * The GSI QP of rdma_rxe, the QP the MAD layer sends and receives
 * management datagrams on: it is QP 1 of the port, one at a time; it sends
 * the GSI Q_Key (0x80010000) whatever a work request asks for, and takes
 * only datagrams that carry it.  An ordinary UD QP cannot put that key on
 * the wire by asking for it (its high bit makes it a controlled key, which
 * stands for the sender's own), only by owning it.
 */
#include "rdma_rxe_loop.h"

#define GSI_QKEY	0x80010000
#define GSI_MAD		256

static u32 gsi_qkey_violations(struct rdma_ktap_ctx *ctx)
{
	struct ib_port_attr pa;

	if (!RDMA_KT_EQ(ctx, ib_query_port(lt_dev, 1, &pa), 0))
		return 0;
	return pa.qkey_viol_cntr;
}

void gsi_qp_one(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_GSI,
		.port_num = 1,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp *gsi = NULL, *qp;
	struct lt_end ud;
	struct ib_cq *cq;

	memset(&ud, 0, sizeof(ud));
	cq = ib_alloc_cq(lt_dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq)))
		return;
	init.send_cq = cq;
	init.recv_cq = cq;

	gsi = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(gsi), "GSI QP: %ld", PTR_ERR(gsi))) {
		gsi = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, gsi->qp_num, 1);
	RDMA_KT_EQ(ctx, gsi->qp_type, IB_QPT_GSI);

	/* One per port, and the device has one port. */
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EBUSY) && !IS_ERR(qp))
		ib_destroy_qp(qp);
	init.port_num = 2;
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EINVAL) && !IS_ERR(qp))
		ib_destroy_qp(qp);
	/* No QP0 on Ethernet: nothing manages a RoCE subnet. */
	init.port_num = 1;
	init.qp_type = IB_QPT_SMI;
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP) && !IS_ERR(qp))
		ib_destroy_qp(qp);

	/* Ordinary QPs never get the numbers of the special ones. */
	if (RDMA_KT_EQ(ctx, lt_end_create(&ud, IB_QPT_UD, NULL), 0))
		RDMA_KT_EXPECT(ctx, lt_qpn(&ud) > 1, "UD QP number %u",
			       lt_qpn(&ud));

	/* Destroyed, QP 1 is free for the next GSI QP. */
	ib_destroy_qp(gsi);
	init.qp_type = IB_QPT_GSI;
	gsi = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(gsi), "GSI QP again: %ld",
			    PTR_ERR(gsi))) {
		gsi = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, gsi->qp_num, 1);
out:
	lt_end_destroy(&ud);
	if (gsi)
		ib_destroy_qp(gsi);
	ib_free_cq(cq);
}

/*
 * Post a receive on @to, send a MAD-sized datagram from @from to QP
 * @rqpn with Q_Key @qkey and check that @to gets it (@arrives) or that
 * nothing comes.  @rwc: the receive completion, when one came.
 */
static bool gsi_send(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		     struct lt_end *to, struct ib_ah *ah, u32 rqpn, u32 qkey,
		     bool arrives, u32 seed, const char *what,
		     struct ib_wc *rwc)
{
	struct ib_qp_attr err = { .qp_state = IB_QPS_ERR };
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = 0x651 + seed,
		.signaled = true,
		.laddr = from->tx_dma,
		.len = GSI_MAD,
		.ah = ah,
		.rqpn = rqpn,
		.qkey = qkey,
	};

	memset(to->rx, 0xa5, LT_GRH + GSI_MAD + 1);
	lt_fill(from->tx, GSI_MAD, seed);
	if (!RDMA_KT_EQ(ctx, lt_post_recv(to->qp, NULL, 0x1651 + seed,
					  to->rx_dma, LT_GRH + GSI_MAD), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, from->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL))
		return false;
	lt_traffic.sends++;
	lt_traffic.pkts++;
	if (!arrives) {
		if (!lt_expect_quiet(ctx, to->rcq, what))
			return false;
		/* The receive is still there: flush it out of the way. */
		return RDMA_KT_EQ(ctx, ib_modify_qp(to->qp, &err, IB_QP_STATE),
				  0) &&
		       lt_expect_wc(ctx, to->rcq, what, 0x1651 + seed,
				    IB_WC_WR_FLUSH_ERR, IB_WC_RECV, NULL);
	}
	if (!lt_expect_wc(ctx, to->rcq, what, 0x1651 + seed, IB_WC_SUCCESS,
			  IB_WC_RECV, rwc))
		return false;
	lt_traffic.recvs++;
	RDMA_KT_EXPECT(ctx, rwc->qp == to->qp, "%s: completion of another QP",
		       what);
	RDMA_KT_EQ(ctx, rwc->src_qp, lt_qpn(from));
	RDMA_KT_EQ(ctx, rwc->byte_len, LT_GRH + GSI_MAD);
	RDMA_KT_EQ(ctx, rwc->pkey_index, 0);
	RDMA_KT_EXPECT(ctx, rwc->wc_flags & IB_WC_GRH, "%s: wc_flags %#x",
		       what, rwc->wc_flags);
	return lt_expect_data(ctx, to->rx + LT_GRH, GSI_MAD, seed, what) &&
	       RDMA_KT_EQ(ctx, to->rx[LT_GRH + GSI_MAD], 0xa5);
}

/* @e back to RTS with Q_Key @qkey after gsi_send() flushed it. */
static bool gsi_again(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 qkey)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_RESET };

	return RDMA_KT_EQ(ctx, ib_modify_qp(e->qp, &qa, IB_QP_STATE), 0) &&
	       RDMA_KT_EQ(ctx, lt_ud_ready_qkey(e, qkey), 0);
}

void gsi_loopback(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_attr qa = { .qkey = GSI_QKEY };
	struct lt_end g, u;
	struct ib_ah *ah = NULL;
	struct ib_wc wc;
	u32 viol;

	memset(&g, 0, sizeof(g));
	memset(&u, 0, sizeof(u));
	if (!RDMA_KT_EQ(ctx, lt_end_create(&g, IB_QPT_GSI, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_qpn(&g), 1) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready_qkey(&g, GSI_QKEY), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&u, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&u), 0))
		goto out;
	ah = lt_own_ah(ctx, lt_pd, false);
	if (!ah)
		goto out;
	viol = gsi_qkey_violations(ctx);

	/* QP 1 to QP 1, as the MAD layer sends: the controlled key. */
	if (!gsi_send(ctx, &g, &g, ah, 1, 0x80000000, true, 1,
		      "GSI to GSI", &wc))
		goto out;
	/* Whatever key the GSI QP asks for, it sends the GSI Q_Key. */
	if (!gsi_send(ctx, &g, &u, ah, lt_qpn(&u), LT_QKEY, false, 2,
		      "GSI to UD with the UD QP's key", &wc) ||
	    !gsi_again(ctx, &u, LT_QKEY))
		goto out;
	/* QP 1 takes no other key ... */
	if (!gsi_send(ctx, &u, &g, ah, 1, LT_QKEY, false, 3,
		      "UD to GSI with another key", &wc) ||
	    !gsi_again(ctx, &g, GSI_QKEY))
		goto out;
	/* ... and an ordinary QP asking for the GSI key sends its own. */
	if (!gsi_send(ctx, &u, &g, ah, 1, GSI_QKEY, false, 4,
		      "UD to GSI asking for the GSI key", &wc) ||
	    !gsi_again(ctx, &g, GSI_QKEY))
		goto out;
	RDMA_KT_EQ(ctx, gsi_qkey_violations(ctx) - viol, 3);

	/* A QP that owns the GSI key may use it. */
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(u.qp, &qa, IB_QP_QKEY), 0))
		goto out;
	gsi_send(ctx, &u, &g, ah, 1, 0x80000000, true, 5,
		 "UD owning the GSI key to GSI", &wc);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, atomic_read(&g.events) + atomic_read(&u.events), 0);
	lt_end_destroy(&u);
	lt_end_destroy(&g);
}
