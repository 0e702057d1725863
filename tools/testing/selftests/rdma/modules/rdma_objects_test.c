// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the RDMA core's verbs objects on an rdma_mock device: CQs
 * and their poll contexts, QP state changes, SRQs, MRs, multicast
 * attachment, drains, and the use counts that keep a parent from being
 * destroyed under its children.
 *
 * The mock completes every send at once into the send CQ and calls the
 * completion handler from bottom-half context, so each poll context can be
 * checked for where it delivers completions.
 */
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rdma_ktap.h"
#include "rdma_mock.h"
#include "rdma_mock_fx.h"

#define OT_WAIT_MS	3000
#define OT_QKEY		0x11111111

static struct net_device *ot_ndev;
static const u8 ot_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0a, 0x00, 0x01 };
static const u8 ot_peer_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0a, 0x00, 0x02 };

static bool fx_init(struct rdma_ktap_ctx *ctx, struct rdma_mock_fx *fx)
{
	return rdma_mock_fx_init(ctx, fx, ot_ndev, NULL, 0);
}

static struct ib_qp *qp_create(struct rdma_mock_fx *fx, enum ib_qp_type type,
			       struct ib_cq *scq, struct ib_cq *rcq,
			       struct ib_srq *srq)
{
	struct ib_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.srq = srq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 64,
			.max_recv_wr = srq ? 0 : 64,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
	};

	return ib_create_qp(fx->pd, &init);
}

static int qp_modify(struct ib_qp *qp, enum ib_qp_state state, int mask,
		     struct ib_qp_attr *attr)
{
	attr->qp_state = state;
	return ib_modify_qp(qp, attr, mask | IB_QP_STATE);
}

static enum ib_qp_state qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return (enum ib_qp_state)-1;
	return attr.qp_state;
}

/* RESET -> INIT -> RTR -> RTS for a UD QP. */
static int ud_to_rts(struct ib_qp *qp)
{
	struct ib_qp_attr attr = {};
	int ret;

	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qkey = OT_QKEY;
	ret = qp_modify(qp, IB_QPS_INIT,
			IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY, &attr);
	if (ret)
		return ret;
	ret = qp_modify(qp, IB_QPS_RTR, 0, &attr);
	if (ret)
		return ret;
	attr.sq_psn = 0x100;
	return qp_modify(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &attr);
}

/* ---- completions through ib_alloc_cq() poll contexts ------------------- */

/* Where a completion was delivered: bit numbers in ot_cqe.ctx_seen. */
enum ot_ctx { CTX_TASK, CTX_SOFTIRQ, CTX_WORKER, CTX_HARDIRQ, CTX_CALLER };

struct ot_cqe {
	struct ib_cqe cqe;
	struct task_struct *caller;
	atomic_t done;
	atomic_t bad_status;
	unsigned int ctx_seen;	/* BIT(CTX_*), ORed over completions */
	struct ib_cq *cq_seen;
	struct completion all;
	int expect;
};

static void ot_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ot_cqe *c = container_of(wc->wr_cqe, struct ot_cqe, cqe);
	unsigned int bits = 0;

	if (in_hardirq())
		bits |= BIT(CTX_HARDIRQ);
	else if (in_serving_softirq())
		bits |= BIT(CTX_SOFTIRQ);
	else if (in_task())
		bits |= BIT(CTX_TASK);
	if (in_task() && (current->flags & PF_WQ_WORKER))
		bits |= BIT(CTX_WORKER);
	if (in_task() && current == c->caller)
		bits |= BIT(CTX_CALLER);
	c->ctx_seen |= bits;
	c->cq_seen = cq;
	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&c->bad_status);
	if (atomic_inc_return(&c->done) == c->expect)
		complete(&c->all);
}

static void ot_cqe_init(struct ot_cqe *c, int expect)
{
	memset(c, 0, sizeof(*c));
	c->cqe.done = ot_done;
	c->caller = current;
	c->expect = expect;
	init_completion(&c->all);
}

/* Post @n signalled sends on a UD QP, each completing to @c. */
static int post_sends(struct ib_qp *qp, struct ib_ah *ah, struct ot_cqe *c,
		      int n)
{
	const struct ib_send_wr *bad = NULL;
	struct ib_ud_wr wr = {};
	struct ib_sge sge = { .addr = 0x1000, .length = 64, .lkey = 1 };
	int i, ret;

	for (i = 0; i < n; i++) {
		wr.wr.wr_cqe = &c->cqe;
		wr.wr.opcode = IB_WR_SEND;
		wr.wr.send_flags = IB_SEND_SIGNALED;
		wr.wr.sg_list = &sge;
		wr.wr.num_sge = 1;
		wr.ah = ah;
		wr.remote_qpn = 0x22;
		wr.remote_qkey = OT_QKEY;
		ret = ib_post_send(qp, &wr.wr, &bad);
		if (ret)
			return ret;
	}
	return 0;
}

static struct ib_ah *ot_ah(struct rdma_mock_fx *fx)
{
	struct rdma_ah_attr attr = {};
	union ib_gid dgid;

	ipv6_addr_set_v4mapped(htonl(0x0a0a0002), (struct in6_addr *)&dgid);
	attr.type = rdma_ah_find_type(fx->dev, 1);
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &dgid, 0, 0, 64, 0);
	memcpy(attr.roce.dmac, ot_peer_mac, ETH_ALEN);
	return rdma_create_ah(fx->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
}

static bool ot_wait_gid0(struct rdma_mock_fx *fx)
{
	union ib_gid gid;

	return rdma_mock_wait_for(!rdma_query_gid(fx->dev, 1, 0, &gid),
				  OT_WAIT_MS);
}

static void cq_poll_context(struct rdma_ktap_ctx *ctx,
			    enum ib_poll_context poll_ctx, unsigned int want,
			    unsigned int forbid, int n)
{
	struct ib_ah *ah = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct ot_cqe *c;
	struct rdma_mock_fx fx;
	int ret;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, c, "no memory"))
		return;
	ot_cqe_init(c, n);
	if (!fx_init(ctx, &fx))
		goto out;
	if (!RDMA_KT_EXPECT(ctx, ot_wait_gid0(&fx), "GID 0 never appeared"))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, n + 8, 0, poll_ctx);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, cq->cqe >= n + 8, "cq->cqe %d", cq->cqe);
	RDMA_KT_EQ(ctx, cq->poll_ctx, poll_ctx);
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	ah = ot_ah(&fx);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "create AH: %ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}
	if (!RDMA_KT_EQ(ctx, ud_to_rts(qp), 0))
		goto out;
	ret = post_sends(qp, ah, c, n);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	if (poll_ctx == IB_POLL_DIRECT)
		RDMA_KT_EQ(ctx, ib_process_cq_direct(cq, n + 8), n);
	RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&c->all,
							msecs_to_jiffies(OT_WAIT_MS)),
		       "%d of %d completions delivered", atomic_read(&c->done), n);
	RDMA_KT_EQ(ctx, atomic_read(&c->done), n);
	RDMA_KT_EQ(ctx, atomic_read(&c->bad_status), 0);
	RDMA_KT_EXPECT(ctx, (c->ctx_seen & want) == want &&
		       !(c->ctx_seen & forbid),
		       "completions ran in context %#x (want %#x, not %#x)",
		       c->ctx_seen, want, forbid);
	RDMA_KT_EXPECT(ctx, c->cq_seen == cq, "done() got another CQ");

	/* A second round: the core re-armed the CQ. */
	if (poll_ctx != IB_POLL_DIRECT) {
		reinit_completion(&c->all);
		c->expect = 2 * n;
		if (RDMA_KT_EQ(ctx, post_sends(qp, ah, c, n), 0))
			RDMA_KT_EXPECT(ctx,
				       wait_for_completion_timeout(&c->all,
								   msecs_to_jiffies(OT_WAIT_MS)),
				       "second round: %d of %d delivered",
				       atomic_read(&c->done), 2 * n);
	}
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
	kfree(c);
}

static void cq_poll_direct(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_DIRECT, BIT(CTX_TASK) | BIT(CTX_CALLER),
			BIT(CTX_SOFTIRQ) | BIT(CTX_HARDIRQ), 5);
}

static void cq_poll_softirq(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_SOFTIRQ, BIT(CTX_SOFTIRQ),
			BIT(CTX_TASK) | BIT(CTX_HARDIRQ), 5);
}

static void cq_poll_workqueue(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_WORKQUEUE, BIT(CTX_TASK) | BIT(CTX_WORKER),
			BIT(CTX_SOFTIRQ) | BIT(CTX_HARDIRQ) | BIT(CTX_CALLER), 5);
}

static void cq_poll_unbound_workqueue(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_UNBOUND_WORKQUEUE,
			BIT(CTX_TASK) | BIT(CTX_WORKER),
			BIT(CTX_SOFTIRQ) | BIT(CTX_HARDIRQ) | BIT(CTX_CALLER), 5);
}

/* More completions than any polling budget: all of them still arrive. */
static void cq_poll_softirq_many(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_SOFTIRQ, BIT(CTX_SOFTIRQ),
			BIT(CTX_TASK) | BIT(CTX_HARDIRQ), 200);
}

static void cq_poll_workqueue_many(struct rdma_ktap_ctx *ctx)
{
	cq_poll_context(ctx, IB_POLL_WORKQUEUE, BIT(CTX_TASK) | BIT(CTX_WORKER),
			BIT(CTX_SOFTIRQ) | BIT(CTX_HARDIRQ), 200);
}

/* ---- a CQ created with ib_create_cq() and polled by hand --------------- */

static atomic_t legacy_notified;

static void legacy_comp(struct ib_cq *cq, void *context)
{
	if (context == &legacy_notified)
		atomic_inc(&legacy_notified);
}

static void cq_create_poll_notify(struct rdma_ktap_ctx *ctx)
{
	struct ib_cq_init_attr cqa = { .cqe = 16 };
	const struct ib_send_wr *bad = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct ib_ah *ah = NULL;
	struct ib_ud_wr wr = {};
	struct ib_wc wc[4];
	struct rdma_mock_fx fx;
	int ret;

	atomic_set(&legacy_notified, 0);
	if (!fx_init(ctx, &fx) ||
	    !RDMA_KT_EXPECT(ctx, ot_wait_gid0(&fx), "GID 0 never appeared"))
		goto out;
	cq = ib_create_cq(fx.dev, legacy_comp, NULL, &legacy_notified, &cqa);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_create_cq: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, cq->device == fx.dev && cq->cqe >= 16 &&
		       cq->comp_handler == legacy_comp &&
		       cq->cq_context == &legacy_notified,
		       "CQ fields not set up");
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 0);
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	ah = ot_ah(&fx);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "AH: %ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}
	if (!RDMA_KT_EQ(ctx, ud_to_rts(qp), 0))
		goto out;

	RDMA_KT_EQ(ctx, ib_poll_cq(cq, 4, wc), 0);
	RDMA_KT_EQ(ctx, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP), 0);
	wr.wr.wr_id = 0xabc;
	wr.wr.opcode = IB_WR_SEND;
	wr.wr.send_flags = IB_SEND_SIGNALED;
	wr.ah = ah;
	wr.remote_qpn = 0x22;
	wr.remote_qkey = OT_QKEY;
	ret = ib_post_send(qp, &wr.wr, &bad);
	RDMA_KT_EQ(ctx, ret, 0);
	RDMA_KT_EQ(ctx, atomic_read(&legacy_notified), 1);
	/* Unarmed: no second notification. */
	ret = ib_post_send(qp, &wr.wr, NULL);
	RDMA_KT_EQ(ctx, ret, 0);
	RDMA_KT_EQ(ctx, atomic_read(&legacy_notified), 1);
	RDMA_KT_EQ(ctx, ib_req_notify_cq(cq, IB_CQ_NEXT_COMP |
					 IB_CQ_REPORT_MISSED_EVENTS), 1);
	ret = ib_poll_cq(cq, 4, wc);
	if (RDMA_KT_EQ(ctx, ret, 2)) {
		RDMA_KT_EQ(ctx, wc[0].wr_id, 0xabc);
		RDMA_KT_EQ(ctx, wc[0].status, IB_WC_SUCCESS);
		RDMA_KT_EQ(ctx, wc[0].opcode, IB_WC_SEND);
		RDMA_KT_EXPECT(ctx, wc[0].qp == qp, "wc.qp");
	}

	/* The CQ is busy while a QP uses it (as send and receive CQ). */
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 2);
	RDMA_KT_EQ(ctx, ib_destroy_cq_user(cq, NULL), -EBUSY);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->cq_destroys), 0);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ah = NULL;
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 0);
	RDMA_KT_EQ(ctx, ib_destroy_cq_user(cq, NULL), 0);
	cq = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->cq_destroys), 1);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_destroy_cq(cq);
	rdma_mock_fx_fini(&fx);
}

static void cq_invalid(struct rdma_ktap_ctx *ctx)
{
	struct ib_cq *cq;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx))
		goto out;
	/* The provider refuses the size: its error comes back. */
	cq = ib_alloc_cq(fx.dev, NULL, RDMA_MOCK_MAX_CQE + 1, 0,
			 IB_POLL_DIRECT);
	RDMA_KT_EXPECT(ctx, IS_ERR(cq) && PTR_ERR(cq) == -EINVAL,
		       "oversized CQ: %ld", IS_ERR(cq) ? PTR_ERR(cq) : 0L);
	if (!IS_ERR(cq))
		ib_free_cq(cq);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->cq_creates), 0);
	cq = ib_alloc_cq_any(fx.dev, NULL, 8, IB_POLL_SOFTIRQ);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq_any: %ld",
			   PTR_ERR(cq))) {
		RDMA_KT_EQ(ctx, cq->comp_vector, 0);
		ib_free_cq(cq);
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->cq_destroys),
		   atomic_read(&fx.md->cq_creates));
out:
	rdma_mock_fx_fini(&fx);
}

/* ---- QPs --------------------------------------------------------------- */

static void qp_state_flow_ud(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;
	int ret;

	if (!fx_init(ctx, &fx))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 32, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, qp->device == fx.dev && qp->pd == fx.pd &&
		       qp->send_cq == cq && qp->recv_cq == cq &&
		       qp->qp_type == IB_QPT_UD && qp->real_qp == qp,
		       "QP fields not set up");
	RDMA_KT_EXPECT(ctx, qp->qp_num > 1, "qp_num %u", qp->qp_num);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
	/* One reference for the send queue, one for the receive queue. */
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 2);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RESET);

	/* Illegal transitions and missing attributes are refused. */
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_RTS, 0, &attr), -EINVAL);
	attr.pkey_index = 0;
	attr.port_num = 1;
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_INIT,
				  IB_QP_PKEY_INDEX | IB_QP_PORT, &attr),
		   -EINVAL);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RESET);
	attr.qkey = OT_QKEY;
	attr.port_num = 2;
	ret = qp_modify(qp, IB_QPS_INIT,
			IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY, &attr);
	RDMA_KT_EXPECT(ctx, ret < 0, "INIT on port 2 accepted");
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RESET);

	/* The legal path. */
	attr.port_num = 1;
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
				  IB_QP_PORT | IB_QP_QKEY, &attr), 0);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_INIT);
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_RTR, 0, &attr), 0);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RTR);
	attr.sq_psn = 0x123;
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_RTS, IB_QP_SQ_PSN, &attr), 0);
	memset(&attr, 0, sizeof(attr));
	ret = ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_QKEY | IB_QP_SQ_PSN,
			  &init);
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EQ(ctx, attr.qp_state, IB_QPS_RTS);
		RDMA_KT_EQ(ctx, attr.qkey, OT_QKEY);
		RDMA_KT_EQ(ctx, attr.sq_psn, 0x123);
		RDMA_KT_EQ(ctx, init.qp_type, IB_QPT_UD);
		RDMA_KT_EXPECT(ctx, init.send_cq == cq, "init.send_cq");
	}

	/* Any state goes to ERR, and back to RESET. */
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_ERR);
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_RESET, 0, &attr), 0);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RESET);
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_ERR, 0, &attr), -EINVAL);

	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->qp_destroys), 1);
out:
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

static void qp_state_flow_rc_av(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid = NULL;
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr = {};
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	union ib_gid dgid;
	struct rdma_mock_fx fx;
	int mask, ret;

	if (!fx_init(ctx, &fx) ||
	    !RDMA_KT_EXPECT(ctx, ot_wait_gid0(&fx), "GID 0 never appeared"))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 32, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_RC, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	attr.pkey_index = 0;
	attr.port_num = 1;
	attr.qp_access_flags = IB_ACCESS_REMOTE_WRITE;
	ret = qp_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT |
			IB_QP_ACCESS_FLAGS, &attr);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;

	ipv6_addr_set_v4mapped(htonl(0x0a0a0002), (struct in6_addr *)&dgid);
	memset(&attr, 0, sizeof(attr));
	attr.ah_attr.type = rdma_ah_find_type(fx.dev, 1);
	rdma_ah_set_port_num(&attr.ah_attr, 1);
	memcpy(attr.ah_attr.roce.dmac, ot_peer_mac, ETH_ALEN);
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = 0x33;
	attr.rq_psn = 0x10;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	mask = IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
	       IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;

	/* An AV whose source GID does not exist is refused. */
	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, RDMA_MOCK_GID_TBL_LEN - 1,
			64, 0);
	ret = qp_modify(qp, IB_QPS_RTR, mask, &attr);
	RDMA_KT_EXPECT(ctx, ret < 0, "RTR with an empty source GID: %d", ret);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_INIT);

	rdma_ah_set_grh(&attr.ah_attr, &dgid, 0, 0, 64, 0);
	ret = qp_modify(qp, IB_QPS_RTR, mask, &attr);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		goto out;
	RDMA_KT_EXPECT(ctx, !attr.ah_attr.grh.sgid_attr,
		       "the caller's AV got an sgid_attr");
	sgid = rdma_get_gid_attr(fx.dev, 1, 0);
	RDMA_KT_EXPECT(ctx, !IS_ERR(sgid) &&
		       fx.md->last_qp_av_sgid_attr == sgid,
		       "the driver did not get GID 0 with the AV");

	memset(&attr, 0, sizeof(attr));
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.sq_psn = 0x20;
	attr.max_rd_atomic = 1;
	ret = qp_modify(qp, IB_QPS_RTS, IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			IB_QP_MAX_QP_RD_ATOMIC, &attr);
	RDMA_KT_EQ(ctx, ret, 0);

	memset(&attr, 0xa5, sizeof(attr));
	ret = ib_query_qp(qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_DEST_QPN,
			  &init);
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EQ(ctx, attr.qp_state, IB_QPS_RTS);
		RDMA_KT_EQ(ctx, attr.dest_qp_num, 0x33);
		RDMA_KT_EXPECT(ctx, !attr.ah_attr.grh.sgid_attr &&
			       !attr.alt_ah_attr.grh.sgid_attr,
			       "query returned sgid_attr pointers");
	}
out:
	if (!IS_ERR_OR_NULL(sgid))
		rdma_put_gid_attr(sgid);
	if (qp)
		RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

static void qp_post_recv_and_flush(struct rdma_ktap_ctx *ctx)
{
	const struct ib_send_wr *bad_send = NULL;
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr rwr[3] = {};
	struct ib_send_wr swr = {};
	struct ib_qp_attr attr = {};
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct ib_wc wc[4];
	struct rdma_mock_fx fx;
	int i, ret;

	if (!fx_init(ctx, &fx))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 32, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	/* Nothing may be posted in RESET. */
	swr.wr_id = 7;
	swr.opcode = IB_WR_SEND;
	RDMA_KT_EQ(ctx, ib_post_send(qp, &swr, &bad_send), -EINVAL);
	RDMA_KT_EXPECT(ctx, bad_send == &swr, "bad_wr not set");
	for (i = 0; i < 3; i++) {
		rwr[i].wr_id = 100 + i;
		rwr[i].next = i < 2 ? &rwr[i + 1] : NULL;
	}
	RDMA_KT_EQ(ctx, ib_post_recv(qp, rwr, &bad), -EINVAL);

	if (!RDMA_KT_EQ(ctx, ud_to_rts(qp), 0))
		goto out;
	RDMA_KT_EQ(ctx, ib_post_recv(qp, rwr, NULL), 0);
	RDMA_KT_EQ(ctx, rdma_mock_deliver_recv(qp, 300), 0);
	ret = ib_poll_cq(cq, 4, wc);
	if (RDMA_KT_EQ(ctx, ret, 1)) {
		RDMA_KT_EQ(ctx, wc[0].wr_id, 100);
		RDMA_KT_EQ(ctx, wc[0].opcode, IB_WC_RECV);
		RDMA_KT_EQ(ctx, wc[0].byte_len, 300);
		RDMA_KT_EQ(ctx, wc[0].status, IB_WC_SUCCESS);
	}
	/* Moving to ERR flushes what is still posted. */
	RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_ERR, 0, &attr), 0);
	ret = ib_poll_cq(cq, 4, wc);
	if (RDMA_KT_EQ(ctx, ret, 2)) {
		RDMA_KT_EQ(ctx, wc[0].wr_id, 101);
		RDMA_KT_EQ(ctx, wc[0].status, IB_WC_WR_FLUSH_ERR);
		RDMA_KT_EQ(ctx, wc[1].wr_id, 102);
	}
out:
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* ib_drain_qp() on the generic path: the mock flushes in ERR. */
static void qp_drain(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_attr attr = { .port_num = 1 };
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 32, 0, IB_POLL_SOFTIRQ);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_RC, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "create QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	/* RESET cannot go to ERR: start from INIT. */
	if (!RDMA_KT_EQ(ctx, qp_modify(qp, IB_QPS_INIT, IB_QP_PKEY_INDEX |
				       IB_QP_PORT | IB_QP_ACCESS_FLAGS, &attr),
			0))
		goto out;
	ib_drain_qp(qp);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_ERR);
out:
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* ---- SRQ --------------------------------------------------------------- */

static void srq_flow(struct rdma_ktap_ctx *ctx)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 16, .max_sge = 1, .srq_limit = 0 },
	};
	const struct ib_recv_wr *bad = NULL;
	struct ib_recv_wr wr = { .wr_id = 5 };
	struct ib_srq_attr sattr = {};
	struct ib_srq *srq = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;
	int ret;

	if (!fx_init(ctx, &fx))
		goto out;
	srq = ib_create_srq(fx.pd, &init);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(srq), "ib_create_srq: %ld",
			    PTR_ERR(srq))) {
		srq = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, srq->device == fx.dev && srq->pd == fx.pd &&
		       srq->srq_type == IB_SRQT_BASIC,
		       "SRQ fields not set up");
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
	ret = ib_query_srq(srq, &sattr);
	if (RDMA_KT_EQ(ctx, ret, 0)) {
		RDMA_KT_EQ(ctx, sattr.max_wr, 16);
		RDMA_KT_EQ(ctx, sattr.max_sge, 1);
	}
	sattr.srq_limit = 4;
	RDMA_KT_EQ(ctx, ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT), 0);
	sattr.srq_limit = 100;
	RDMA_KT_EQ(ctx, ib_modify_srq(srq, &sattr, IB_SRQ_LIMIT), -EINVAL);
	memset(&sattr, 0, sizeof(sattr));
	RDMA_KT_EQ(ctx, ib_query_srq(srq, &sattr), 0);
	RDMA_KT_EQ(ctx, sattr.srq_limit, 4);
	RDMA_KT_EQ(ctx, ib_post_srq_recv(srq, &wr, &bad), 0);
	RDMA_KT_EQ(ctx, ib_post_srq_recv(srq, &wr, NULL), 0);

	/* A QP on the SRQ keeps it busy. */
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, srq);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "QP on the SRQ: %ld",
			    PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, qp->srq == srq, "qp->srq");
	RDMA_KT_EQ(ctx, atomic_read(&srq->usecnt), 1);
	RDMA_KT_EQ(ctx, ib_destroy_srq_user(srq, NULL), -EBUSY);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->srq_destroys), 0);
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&srq->usecnt), 0);
	RDMA_KT_EQ(ctx, ib_destroy_srq_user(srq, NULL), 0);
	srq = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->srq_destroys), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);

	/* The provider's refusal comes back, and nothing is counted. */
	init.attr.max_wr = RDMA_MOCK_MAX_WR + 1;
	srq = ib_create_srq(fx.pd, &init);
	RDMA_KT_EXPECT(ctx, IS_ERR(srq) && PTR_ERR(srq) == -EINVAL,
		       "oversized SRQ: %ld", IS_ERR(srq) ? PTR_ERR(srq) : 0L);
	if (IS_ERR(srq))
		srq = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), srq ? 1 : 0);
out:
	if (qp)
		ib_destroy_qp(qp);
	if (srq)
		ib_destroy_srq(srq);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* ---- MR ---------------------------------------------------------------- */

static void mr_alloc_map_dereg(struct rdma_ktap_ctx *ctx)
{
	struct scatterlist sg[2];
	struct rdma_mock_mr *mmr;
	struct ib_mr *mr = NULL;
	void *buf[2] = {};
	u32 lkey, rkey;
	struct rdma_mock_fx fx;
	int n, ret;

	if (!fx_init(ctx, &fx))
		goto out;
	mr = ib_alloc_mr(fx.pd, IB_MR_TYPE_MEM_REG, 8);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(mr), "ib_alloc_mr: %ld", PTR_ERR(mr))) {
		mr = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, mr->device == fx.dev && mr->pd == fx.pd &&
		       mr->type == IB_MR_TYPE_MEM_REG && !mr->uobject,
		       "MR fields not set up");
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);

	buf[0] = (void *)__get_free_page(GFP_KERNEL);
	buf[1] = (void *)__get_free_page(GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, buf[0] && buf[1], "no memory"))
		goto out;
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf[0], PAGE_SIZE);
	sg_set_buf(&sg[1], buf[1], PAGE_SIZE);
	n = ib_dma_map_sg(fx.dev, sg, 2, DMA_BIDIRECTIONAL);
	if (!RDMA_KT_EQ(ctx, n, 2))
		goto out;
	ret = ib_map_mr_sg(mr, sg, n, NULL, PAGE_SIZE);
	RDMA_KT_EQ(ctx, ret, 2);
	mmr = to_mock_mr(mr);
	RDMA_KT_EQ(ctx, mmr->npages, 2);
	RDMA_KT_EQ(ctx, mr->length, 2 * PAGE_SIZE);
	RDMA_KT_EQ(ctx, mr->iova, sg_dma_address(&sg[0]));
	RDMA_KT_EQ(ctx, mr->page_size, PAGE_SIZE);
	if (mmr->npages == 2) {
		RDMA_KT_EQ(ctx, mmr->pages[0], sg_dma_address(&sg[0]));
		RDMA_KT_EQ(ctx, mmr->pages[1], sg_dma_address(&sg[1]));
	}
	ib_dma_unmap_sg(fx.dev, sg, 2, DMA_BIDIRECTIONAL);

	/* A new key changes the low byte only. */
	lkey = mr->lkey;
	rkey = mr->rkey;
	ib_update_fast_reg_key(mr, 0x5a);
	RDMA_KT_EQ(ctx, mr->lkey, (lkey & 0xffffff00) | 0x5a);
	RDMA_KT_EQ(ctx, mr->rkey, (rkey & 0xffffff00) | 0x5a);

	RDMA_KT_EQ(ctx, ib_dereg_mr(mr), 0);
	mr = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->mr_deregs), 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);

	/* A type the provider refuses: its error, no count taken. */
	mr = ib_alloc_mr(fx.pd, IB_MR_TYPE_DM, 8);
	RDMA_KT_EXPECT(ctx, IS_ERR(mr), "IB_MR_TYPE_DM accepted");
	if (IS_ERR(mr))
		mr = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), mr ? 1 : 0);
out:
	if (mr)
		ib_dereg_mr(mr);
	free_page((unsigned long)buf[0]);
	free_page((unsigned long)buf[1]);
	rdma_mock_fx_fini(&fx);
}

/* ---- multicast --------------------------------------------------------- */

static void mcast_attach_detach(struct rdma_ktap_ctx *ctx)
{
	union ib_gid mgid6 = { .raw = { 0xff, 0x12, [15] = 0x01 } };
	union ib_gid mgid4, ucast;
	struct ib_qp *qp = NULL, *rc = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;

	ipv6_addr_set_v4mapped(htonl(0xe0010203), (struct in6_addr *)&mgid4);
	ipv6_addr_set_v4mapped(htonl(0x0a0a0002), (struct in6_addr *)&ucast);
	if (!fx_init(ctx, &fx))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	rc = qp_create(&fx, IB_QPT_RC, cq, cq, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp) && !IS_ERR(rc), "create QPs")) {
		if (IS_ERR(qp))
			qp = NULL;
		if (IS_ERR(rc))
			rc = NULL;
		goto out;
	}

	/* Refused before reaching the provider. */
	RDMA_KT_EQ(ctx, ib_attach_mcast(qp, &ucast, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_attach_mcast(rc, &mgid6, 0), -EINVAL);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->mcast_attaches), 0);
	RDMA_KT_EQ(ctx, atomic_read(&qp->usecnt), 0);

	/* RoCE ports do not check the LID. */
	RDMA_KT_EQ(ctx, ib_attach_mcast(qp, &mgid6, 0), 0);
	RDMA_KT_EQ(ctx, ib_attach_mcast(qp, &mgid4, 0), 0);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->mcast_attaches), 2);
	RDMA_KT_EQ(ctx, atomic_read(&qp->usecnt), 2);

	/* An attached QP cannot be destroyed. */
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), -EBUSY);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->qp_destroys), 0);

	RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &ucast, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &mgid6, 0), 0);
	RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &mgid4, 0), 0);
	RDMA_KT_EQ(ctx, atomic_read(&qp->usecnt), 0);
	/* The provider's error on a group not joined comes back. */
	RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &mgid6, 0), -EINVAL);
	RDMA_KT_EQ(ctx, atomic_read(&qp->usecnt), 0);
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
out:
	if (rc)
		ib_destroy_qp(rc);
	if (qp) {
		ib_detach_mcast(qp, &mgid6, 0);
		ib_detach_mcast(qp, &mgid4, 0);
		ib_destroy_qp(qp);
	}
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* ---- use counts -------------------------------------------------------- */

static void usecnt_pd_children(struct rdma_ktap_ctx *ctx)
{
	struct ib_srq_init_attr sinit = {
		.srq_type = IB_SRQT_BASIC,
		.attr = { .max_wr = 8, .max_sge = 1 },
	};
	struct ib_srq *srq = NULL;
	struct ib_mr *mr = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct ib_ah *ah = NULL;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx) ||
	    !RDMA_KT_EXPECT(ctx, ot_wait_gid0(&fx), "GID 0 never appeared"))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	qp = qp_create(&fx, IB_QPT_UD, cq, cq, NULL);
	if (IS_ERR(qp))
		qp = NULL;
	srq = ib_create_srq(fx.pd, &sinit);
	if (IS_ERR(srq))
		srq = NULL;
	mr = ib_alloc_mr(fx.pd, IB_MR_TYPE_MEM_REG, 4);
	if (IS_ERR(mr))
		mr = NULL;
	ah = ot_ah(&fx);
	if (IS_ERR(ah))
		ah = NULL;
	if (!RDMA_KT_EXPECT(ctx, qp && srq && mr && ah,
			    "creating a QP, SRQ, MR and AH failed"))
		goto out;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 4);
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 2);

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ah = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 3);
	RDMA_KT_EQ(ctx, ib_dereg_mr(mr), 0);
	mr = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 2);
	ib_destroy_srq(srq);
	srq = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 0);
	RDMA_KT_EQ(ctx, atomic_read(&cq->usecnt), 0);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (mr)
		ib_dereg_mr(mr);
	if (srq)
		ib_destroy_srq(srq);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

static const struct rdma_ktap_case objects_cases[] = {
	{ "cq_poll_direct", cq_poll_direct },
	{ "cq_poll_softirq", cq_poll_softirq },
	{ "cq_poll_workqueue", cq_poll_workqueue },
	{ "cq_poll_unbound_workqueue", cq_poll_unbound_workqueue },
	{ "cq_poll_softirq_many", cq_poll_softirq_many },
	{ "cq_poll_workqueue_many", cq_poll_workqueue_many },
	{ "cq_create_poll_notify", cq_create_poll_notify },
	{ "cq_invalid", cq_invalid },
	{ "qp_state_flow_ud", qp_state_flow_ud },
	{ "qp_state_flow_rc_av", qp_state_flow_rc_av },
	{ "qp_post_recv_and_flush", qp_post_recv_and_flush },
	{ "qp_drain", qp_drain },
	{ "srq_flow", srq_flow },
	{ "mr_alloc_map_dereg", mr_alloc_map_dereg },
	{ "mcast_attach_detach", mcast_attach_detach },
	{ "usecnt_pd_children", usecnt_pd_children },
};

static int __init objects_test_init(void)
{
	ot_ndev = rdma_mock_netdev_create("rdmaobj%d", ot_mac);
	if (IS_ERR(ot_ndev)) {
		pr_err("rdma_objects_test: no test netdev: %ld\n",
		       PTR_ERR(ot_ndev));
		return PTR_ERR(ot_ndev);
	}
	rdma_ktap_run("rdma_objects", objects_cases, ARRAY_SIZE(objects_cases));
	return 0;
}

static void __exit objects_test_exit(void)
{
	rdma_mock_netdev_destroy(ot_ndev);
}

module_init(objects_test_init);
module_exit(objects_test_exit);

MODULE_DESCRIPTION("KTAP tests of the RDMA core's CQs, QPs, SRQs, MRs and multicast");
MODULE_LICENSE("GPL");
