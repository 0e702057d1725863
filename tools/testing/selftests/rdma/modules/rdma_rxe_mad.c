// SPDX-License-Identifier: GPL-2.0
/*
 * The MAD layer of ib_core on an rdma_rxe port, in loopback: agents send
 * management datagrams from the port's QP 1 to the same QP 1.  The cases
 * cover the registration rules, request dispatch by class, version and
 * method, response matching by TID and source GID, the port's own answer
 * to unclaimed GET and SET requests, timeouts with retries, cancelling,
 * unregistering with sends outstanding, and more sends at once than the
 * send queue holds; and the provider's performance management agent
 * (process_mad()) on its own.
 */
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "rdma_rxe_loop.h"

#define MT_CLASS_SERVED		0x0a	/* vendor range 1, served by a case */
#define MT_CLASS_UNCLAIMED	0x0b	/* nobody registers it */
#define MT_VERSION		1
#define MT_ATTR			0x0010
#define MT_MANY			300	/* more than the GSI send queue (128) */
/* mad_many: no retransmission, whose second answer would be unmatched */
#define MT_MANY_WAIT_MS		30000

/**
 * struct mt_agent - a test agent and what its handlers saw
 * @agent: the MAD agent
 * @sent: one completion per send handler call
 * @recvd: one completion per receive handler call
 * @lock: guards what follows
 * @nsent: send handler calls
 * @nrecv: receive handler calls
 * @nbad_status: send handler calls whose status was not @want_status
 * @want_status: what the sends should end with
 * @status: status of the last send handler call
 * @retries: send_buf->retries then
 * @resp: the last MAD received
 * @match: the send it was matched to (NULL for a request)
 * @src_qp: where it came from
 * @wc_flags: its completion's flags
 * @serve: answer requests with GET_RESP, the data inverted
 * @reply_tid_xor: make the answers' TIDs differ from the requests'
 * @reply_ah: answer through this AH rather than one from the completion
 */
struct mt_agent {
	struct ib_mad_agent	*agent;
	struct completion	sent;
	struct completion	recvd;
	spinlock_t		lock;		/* the counts and copies below */
	int			nsent;
	int			nrecv;
	int			nbad_status;
	enum ib_wc_status	want_status;
	enum ib_wc_status	status;
	int			retries;
	u8			resp[IB_MGMT_MAD_SIZE];
	struct ib_mad_send_buf	*match;
	u32			src_qp;
	int			wc_flags;
	bool			serve;
	u64			reply_tid_xor;
	struct ib_ah		*reply_ah;
};

static void mt_send_done(struct ib_mad_agent *agent,
			 struct ib_mad_send_wc *wc)
{
	struct mt_agent *a = agent->context;
	bool reply = wc->send_buf->context[1] == a;
	unsigned long flags;

	if (reply) {
		/* an answer of a serving agent: its AH and buffer go */
		if (wc->send_buf->ah != a->reply_ah)
			rdma_destroy_ah(wc->send_buf->ah,
					RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(wc->send_buf);
		return;
	}
	spin_lock_irqsave(&a->lock, flags);
	a->nsent++;
	a->status = wc->status;
	a->retries = wc->send_buf->retries;
	if (wc->status != a->want_status)
		a->nbad_status++;
	spin_unlock_irqrestore(&a->lock, flags);
	complete(&a->sent);
}

/* A serving agent answers request @req, as mad_ulp's serve mode does. */
static void mt_answer(struct mt_agent *a, struct ib_mad_recv_wc *wc)
{
	const struct ib_mad *req = wc->recv_buf.mad;
	struct ib_mad_send_buf *buf;
	struct ib_mad *out;
	struct ib_ah *ah = a->reply_ah;
	unsigned int j;

	if (!ah) {
		ah = ib_create_ah_from_wc(a->agent->qp->pd, wc->wc,
					  wc->recv_buf.grh, 1);
		if (IS_ERR(ah))
			return;
	}
	buf = ib_create_send_mad(a->agent, wc->wc->src_qp, wc->wc->pkey_index,
				 0, IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA,
				 GFP_KERNEL, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		goto err_ah;
	out = buf->mad;
	out->mad_hdr = req->mad_hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.tid = cpu_to_be64(be64_to_cpu(req->mad_hdr.tid) ^
				       a->reply_tid_xor);
	for (j = 0; j < IB_MGMT_MAD_DATA; j++)
		out->data[j] = ~req->data[j];
	buf->ah = ah;
	buf->context[1] = a;
	if (!ib_post_send_mad(buf, NULL))
		return;
	ib_free_send_mad(buf);
err_ah:
	if (ah != a->reply_ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void mt_recv(struct ib_mad_agent *agent,
		    struct ib_mad_send_buf *send_buf,
		    struct ib_mad_recv_wc *wc)
{
	struct mt_agent *a = agent->context;
	unsigned long flags;

	spin_lock_irqsave(&a->lock, flags);
	a->nrecv++;
	memcpy(a->resp, wc->recv_buf.mad, IB_MGMT_MAD_SIZE);
	a->match = send_buf;
	a->src_qp = wc->wc->src_qp;
	a->wc_flags = wc->wc->wc_flags;
	spin_unlock_irqrestore(&a->lock, flags);
	if (a->serve && !send_buf)
		mt_answer(a, wc);
	ib_free_recv_mad(wc);
	complete(&a->recvd);
}

/*
 * Register @a on port 1: for the GETs of @mgmt_class when @reg_class is
 * true (and then serving them), else for responses only.
 */
static bool mt_register(struct rdma_ktap_ctx *ctx, struct mt_agent *a,
			u8 mgmt_class, bool serve)
{
	struct ib_mad_reg_req reg = {
		.mgmt_class = mgmt_class,
		.mgmt_class_version = MT_VERSION,
	};

	memset(a, 0, sizeof(*a));
	spin_lock_init(&a->lock);
	init_completion(&a->sent);
	init_completion(&a->recvd);
	a->serve = serve;
	set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
	set_bit(IB_MGMT_METHOD_SET, reg.method_mask);
	a->agent = ib_register_mad_agent(lt_dev, 1, IB_QPT_GSI,
					 serve ? &reg : NULL, 0, mt_send_done,
					 mt_recv, a, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a->agent), "agent: %ld",
			    PTR_ERR(a->agent))) {
		a->agent = NULL;
		return false;
	}
	return true;
}

static void mt_unregister(struct mt_agent *a)
{
	if (a->agent)
		ib_unregister_mad_agent(a->agent);
	a->agent = NULL;
}

/*
 * A client: @c registered for responses only, and an AH of its PD to the
 * module's own IPv6 (@v6) or IPv4 GID.  NULL, with @c unregistered, when
 * either cannot be had.
 */
static struct ib_ah *mt_client(struct rdma_ktap_ctx *ctx, struct mt_agent *c,
			       bool v6)
{
	struct ib_ah *ah;

	if (!mt_register(ctx, c, 0, false))
		return NULL;
	ah = lt_own_ah(ctx, c->agent->qp->pd, v6);
	if (!ah)
		mt_unregister(c);
	return ah;
}

/* A request of @a: class, method, TID low word @n, data from @n. */
static struct ib_mad_send_buf *mt_request(struct rdma_ktap_ctx *ctx,
					  struct mt_agent *a, struct ib_ah *ah,
					  u8 mgmt_class, u8 method, u32 n,
					  int timeout_ms, int retries)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad *mad;
	unsigned int j;

	buf = ib_create_send_mad(a->agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(buf), "ib_create_send_mad: %ld",
			    PTR_ERR(buf)))
		return NULL;
	mad = buf->mad;
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mgmt_class;
	mad->mad_hdr.class_version = MT_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.tid = cpu_to_be64((u64)a->agent->hi_tid << 32 | n);
	mad->mad_hdr.attr_id = cpu_to_be16(MT_ATTR);
	for (j = 0; j < IB_MGMT_MAD_DATA; j++)
		mad->data[j] = (u8)(n * 13 + j);
	buf->ah = ah;
	buf->timeout_ms = timeout_ms;
	buf->retries = retries;
	return buf;
}

static bool mt_wait(struct rdma_ktap_ctx *ctx, struct completion *c,
		    const char *what)
{
	return RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(c,
				msecs_to_jiffies(LT_WAIT_MS)), "%s: nothing", what);
}

/* Each MAD on the loop is one packet, sent and received. */
static void mt_count(u32 sent, u32 received)
{
	lt_traffic.sends += sent;
	lt_traffic.pkts += sent;
	lt_traffic.recvs += received;
}

/*
 * Send @buf from @c and check that it ends as @status with @retries done,
 * answered (the answer matched to @buf) or not.
 */
static bool mt_exchange(struct rdma_ktap_ctx *ctx, struct mt_agent *c,
			struct ib_mad_send_buf *buf, enum ib_wc_status status,
			int retries, bool answered, const char *what)
{
	int nrecv = c->nrecv;

	c->want_status = status;
	if (!RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), 0) ||
	    !mt_wait(ctx, &c->sent, what))
		return false;
	RDMA_KT_EXPECT(ctx, c->status == status && c->retries == retries,
		       "%s: ended %s after %d retries, want %s after %d", what,
		       ib_wc_status_msg(c->status), c->retries,
		       ib_wc_status_msg(status), retries);
	if (!answered)
		return RDMA_KT_EQ(ctx, c->nrecv, nrecv);
	return RDMA_KT_EQ(ctx, c->nrecv, nrecv + 1) &&
	       RDMA_KT_EXPECT(ctx, c->match == buf, "%s: not matched", what);
}

/* Is c->resp the answer to @buf, with @status, data inverted or not? */
static bool mt_is_answer(struct rdma_ktap_ctx *ctx, struct mt_agent *c,
			 struct ib_mad_send_buf *buf, u16 status, bool inverted)
{
	const struct ib_mad *req = buf->mad, *resp = (void *)c->resp;
	unsigned int j;

	RDMA_KT_EQ(ctx, resp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
	RDMA_KT_EQ(ctx, be16_to_cpu(resp->mad_hdr.status), status);
	RDMA_KT_EQ(ctx, be64_to_cpu(resp->mad_hdr.tid),
		   be64_to_cpu(req->mad_hdr.tid));
	RDMA_KT_EQ(ctx, c->src_qp, 1);
	RDMA_KT_EXPECT(ctx, c->wc_flags & IB_WC_GRH, "no GRH flag");
	for (j = 0; j < IB_MGMT_MAD_DATA; j++)
		if (resp->data[j] != (u8)(inverted ? ~req->data[j] :
							req->data[j]))
			return RDMA_KT_EXPECT(ctx, false, "data byte %u", j);
	return true;
}

/* The MAD layer holds QP 1; nobody else gets a GSI QP or QP 0. */
void gsi_qp_one(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_GSI,
		.port_num = 1,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct mt_agent a;
	struct lt_end ud;
	struct ib_cq *cq;
	struct ib_qp *qp;

	memset(&ud, 0, sizeof(ud));
	if (!mt_register(ctx, &a, 0, false))
		return;
	RDMA_KT_EQ(ctx, a.agent->qp->qp_num, 1);
	RDMA_KT_EQ(ctx, a.agent->qp->qp_type, IB_QPT_GSI);
	RDMA_KT_EQ(ctx, a.agent->port_num, 1);
	RDMA_KT_EXPECT(ctx, a.agent->hi_tid, "hi_tid 0");

	cq = ib_alloc_cq(lt_dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq)))
		goto out;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EBUSY) && !IS_ERR(qp))
		ib_destroy_qp(qp);
	init.port_num = 2;
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EINVAL) && !IS_ERR(qp))
		ib_destroy_qp(qp);
	/* No QP 0 on Ethernet: nothing manages a RoCE subnet. */
	init.port_num = 1;
	init.qp_type = IB_QPT_SMI;
	qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EOPNOTSUPP) && !IS_ERR(qp))
		ib_destroy_qp(qp);
	/* Ordinary QPs never get the numbers of the special ones. */
	if (RDMA_KT_EQ(ctx, lt_end_create(&ud, IB_QPT_UD, NULL), 0))
		RDMA_KT_EXPECT(ctx, lt_qpn(&ud) > 1, "UD QP number %u",
			       lt_qpn(&ud));
	lt_end_destroy(&ud);
	ib_free_cq(cq);
out:
	mt_unregister(&a);
}

static u32 gsi_qkey_violations(struct rdma_ktap_ctx *ctx)
{
	struct ib_port_attr pa;

	if (!RDMA_KT_EQ(ctx, ib_query_port(lt_dev, 1, &pa), 0))
		return 0;
	return pa.qkey_viol_cntr;
}

/* @u->tx as a GET of the served class, TID @n. */
static struct ib_mad *gsi_ud_mad(struct lt_end *u, u32 n)
{
	struct ib_mad *mad = (struct ib_mad *)u->tx;

	memset(mad, 0, IB_MGMT_MAD_SIZE);
	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = MT_CLASS_SERVED;
	mad->mad_hdr.class_version = MT_VERSION;
	mad->mad_hdr.method = IB_MGMT_METHOD_GET;
	mad->mad_hdr.tid = cpu_to_be64(0x5544000000ULL + n);
	lt_fill(mad->data, IB_MGMT_MAD_DATA, n);
	return mad;
}

/*
 * Send the first @len bytes of @u->tx from the UD QP @u to QP 1 with
 * Q_Key @qkey; the serving agent @s must see it (@arrives) or not.
 */
static bool gsi_send_ud(struct rdma_ktap_ctx *ctx, struct lt_end *u,
			struct mt_agent *s, struct ib_ah *ah, u32 qkey,
			u32 len, bool arrives, u32 n, const char *what)
{
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = 0x3a0 + n,
		.signaled = true,
		.laddr = u->tx_dma,
		.len = len,
		.ah = ah,
		.rqpn = 1,
		.qkey = qkey,
	};
	int nrecv = s->nrecv;

	if (!RDMA_KT_EQ(ctx, lt_post_send(u->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, u->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL))
		return false;
	mt_count(1, arrives);
	if (!arrives) {
		msleep(LT_QUIET_MS);
		return RDMA_KT_EQ(ctx, s->nrecv, nrecv);
	}
	return mt_wait(ctx, &s->recvd, what) &&
	       RDMA_KT_EQ(ctx, s->nrecv, nrecv + 1) &&
	       RDMA_KT_EQ(ctx, s->src_qp, lt_qpn(u)) &&
	       RDMA_KT_EXPECT(ctx, s->wc_flags & IB_WC_GRH, "%s: no GRH", what);
}

/* A GET of the served class from @u to QP 1 (see gsi_send_ud()). */
static bool gsi_from_ud(struct rdma_ktap_ctx *ctx, struct lt_end *u,
			struct mt_agent *s, struct ib_ah *ah, u32 qkey,
			bool arrives, u32 n, const char *what)
{
	gsi_ud_mad(u, n);
	return gsi_send_ud(ctx, u, s, ah, qkey, IB_MGMT_MAD_SIZE, arrives, n,
			   what);
}

/*
 * QP 1 takes only the GSI Q_Key: from an ordinary UD QP, a MAD with its
 * own key or asking for the GSI key (a controlled key, which stands for
 * the sender's own) is dropped and counted; once the UD QP owns the GSI
 * key, its MAD gets through, and the answer, sent with the GSI key, gets
 * back to it.
 */
void gsi_loopback(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_attr qa = { .qkey = IB_QP1_QKEY };
	struct ib_ah *ah = NULL;
	struct mt_agent s;
	struct lt_end u;
	struct ib_wc wc;
	u32 viol;

	memset(&u, 0, sizeof(u));
	if (!mt_register(ctx, &s, MT_CLASS_SERVED, true))
		return;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&u, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&u), 0))
		goto out;
	ah = lt_own_ah(ctx, lt_pd, false);
	if (!ah)
		goto out;
	viol = gsi_qkey_violations(ctx);
	if (!gsi_from_ud(ctx, &u, &s, ah, LT_QKEY, false, 1,
			 "UD to QP 1 with its own key") ||
	    !gsi_from_ud(ctx, &u, &s, ah, IB_QP1_QKEY, false, 2,
			 "UD to QP 1 asking for the GSI key"))
		goto out;
	RDMA_KT_EQ(ctx, gsi_qkey_violations(ctx) - viol, 2);

	if (!RDMA_KT_EQ(ctx, ib_modify_qp(u.qp, &qa, IB_QP_QKEY), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(u.qp, NULL, 0x3b0, u.rx_dma,
					  LT_GRH + IB_MGMT_MAD_SIZE), 0) ||
	    !gsi_from_ud(ctx, &u, &s, ah, IB_QP_SET_QKEY, true, 3,
			 "UD owning the GSI key to QP 1"))
		goto out;
	/* The serving agent's answer comes back to the UD QP. */
	if (lt_expect_wc(ctx, u.rcq, "answer to the UD QP", 0x3b0,
			 IB_WC_SUCCESS, IB_WC_RECV, &wc)) {
		const struct ib_mad *resp = (void *)(u.rx + LT_GRH);

		mt_count(1, 1);
		RDMA_KT_EQ(ctx, wc.src_qp, 1);
		RDMA_KT_EQ(ctx, wc.byte_len, LT_GRH + IB_MGMT_MAD_SIZE);
		RDMA_KT_EQ(ctx, resp->mad_hdr.method, IB_MGMT_METHOD_GET_RESP);
		RDMA_KT_EQ(ctx, be64_to_cpu(resp->mad_hdr.tid),
			   0x5544000000ULL + 3);
	}
	RDMA_KT_EQ(ctx, gsi_qkey_violations(ctx) - viol, 2);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mt_unregister(&s);
	RDMA_KT_EQ(ctx, atomic_read(&u.events), 0);
	lt_end_destroy(&u);
}

static long mt_reg_err(u8 mgmt_class, u8 version, const u8 *oui, u8 method,
		       enum ib_qp_type type, u8 rmpp, bool recv, u32 port,
		       struct ib_mad_agent **out)
{
	struct ib_mad_reg_req reg = {
		.mgmt_class = mgmt_class,
		.mgmt_class_version = version,
	};
	struct ib_mad_agent *agent;

	if (oui)
		memcpy(reg.oui, oui, 3);
	set_bit(method, reg.method_mask);
	agent = ib_register_mad_agent(lt_dev, port, type, &reg, rmpp,
				      mt_send_done, recv ? mt_recv : NULL,
				      NULL, 0);
	if (IS_ERR(agent))
		return PTR_ERR(agent);
	*out = agent;
	return 0;
}

/* What ib_register_mad_agent(), ib_create_send_mad() and posting refuse. */
void mad_agent_rules(struct rdma_ktap_ctx *ctx)
{
	static const u8 oui1[3] = { 0x00, 0x14, 0x05 }, oui2[3] = { 0, 0, 1 };
	struct ib_mad_agent *held[4] = {}, *a = NULL;
	struct ib_mad_send_buf *buf;
	struct mt_agent c;
	struct ib_ah *ah;
	unsigned int i;

	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_SMI, 0, true, 1,
				   &a), -EPROTONOSUPPORT);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_UD, 0, true, 1,
				   &a), -EINVAL);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 1, true, 1,
				   &a), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 0, false, 1,
				   &a), -EINVAL);
	RDMA_KT_EQ(ctx, mt_reg_err(IB_MGMT_CLASS_SUBN_LID_ROUTED, 1, NULL, 1,
				   IB_QPT_GSI, 0, true, 1, &a), -EINVAL);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 0, true, 2,
				   &a), -ENODEV);

	/* A method is taken once per class and version (and vendor OUI). */
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 0, true, 1,
				   &held[0]), 0);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 0, true, 1,
				   &a), -EINVAL);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 2, IB_QPT_GSI, 0, true, 1,
				   &held[1]), 0);
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 2, NULL, 1, IB_QPT_GSI, 0, true, 1,
				   &held[2]), 0);
	RDMA_KT_EQ(ctx, mt_reg_err(0x30, 1, oui1, 1, IB_QPT_GSI, 0, true, 1,
				   &held[3]), 0);
	RDMA_KT_EQ(ctx, mt_reg_err(0x30, 1, oui1, 1, IB_QPT_GSI, 0, true, 1,
				   &a), -EINVAL);
	RDMA_KT_EQ(ctx, mt_reg_err(0x30, 1, oui2, 1, IB_QPT_GSI, 0, true, 1,
				   &a), 0);
	if (a)
		ib_unregister_mad_agent(a);
	for (i = 0; i < ARRAY_SIZE(held); i++)
		if (held[i])
			ib_unregister_mad_agent(held[i]);
	/* Unregistered, the method is free again. */
	a = NULL;
	RDMA_KT_EQ(ctx, mt_reg_err(0x09, 1, NULL, 1, IB_QPT_GSI, 0, true, 1,
				   &a), 0);
	if (a)
		ib_unregister_mad_agent(a);

	/* Send buffers. */
	if (!mt_register(ctx, &c, 0, false))
		return;
	buf = ib_create_send_mad(c.agent, 1, 0, 1, IB_MGMT_RMPP_HDR,
				 IB_MGMT_RMPP_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(buf), -EOPNOTSUPP);
	buf = ib_create_send_mad(c.agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA + 1, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(buf), -EINVAL);
	buf = ib_create_send_mad(c.agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 OPA_MGMT_BASE_VERSION);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(buf), -EINVAL);
	ah = lt_own_ah(ctx, c.agent->qp->pd, false);
	buf = ah ? mt_request(ctx, &c, NULL, MT_CLASS_UNCLAIMED,
			      IB_MGMT_METHOD_GET, 1, LT_WAIT_MS, 0) : NULL;
	if (buf) {
		RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), -EINVAL);
		buf->ah = ah;
		buf->timeout_ms = -1;
		RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), -EINVAL);
		buf->timeout_ms = LT_WAIT_MS;
		c.want_status = IB_WC_SUCCESS;
		if (RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), 0)) {
			/* outstanding: not posted twice */
			RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), -EINVAL);
			if (mt_wait(ctx, &c.sent, "GET"))
				mt_count(2, 2);
			RDMA_KT_EQ(ctx, c.nbad_status, 0);
		}
		ib_free_send_mad(buf);
	}
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, c.nsent, 1);
	mt_unregister(&c);

	/* Waiting for a response needs a receive handler. */
	a = ib_register_mad_agent(lt_dev, 1, IB_QPT_GSI, NULL, 0, mt_send_done,
				  NULL, &c, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a), "agent: %ld", PTR_ERR(a)))
		return;
	c.agent = a;
	buf = mt_request(ctx, &c, NULL, MT_CLASS_UNCLAIMED, IB_MGMT_METHOD_GET,
			 1, 100, 0);
	if (buf) {
		buf->ah = lt_own_ah(ctx, a->qp->pd, false);
		if (buf->ah) {
			RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), -EINVAL);
			rdma_destroy_ah(buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
		}
		ib_free_send_mad(buf);
	}
	ib_unregister_mad_agent(a);
}

/* A request answered by another agent, over @v6 GIDs or IPv4 ones. */
static void mad_served(struct rdma_ktap_ctx *ctx, bool v6)
{
	struct ib_mad_send_buf *buf;
	struct mt_agent s, c;
	struct ib_ah *ah;
	unsigned int i;

	if (!mt_register(ctx, &s, MT_CLASS_SERVED, true))
		return;
	ah = mt_client(ctx, &c, v6);
	if (!ah)
		goto out_s;
	for (i = 1; i <= 4; i++) {
		buf = mt_request(ctx, &c, ah, MT_CLASS_SERVED,
				 i & 1 ? IB_MGMT_METHOD_GET : IB_MGMT_METHOD_SET,
				 i, LT_WAIT_MS, 1);
		if (!buf)
			break;
		if (mt_exchange(ctx, &c, buf, IB_WC_SUCCESS, 0, true,
				"served request")) {
			mt_count(2, 2);
			mt_is_answer(ctx, &c, buf, 0, true);
			RDMA_KT_EQ(ctx, s.nrecv, i);
			RDMA_KT_EQ(ctx, s.match, 0);
		}
		ib_free_send_mad(buf);
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mt_unregister(&c);
out_s:
	mt_unregister(&s);
}

void mad_loopback_ipv4(struct rdma_ktap_ctx *ctx)
{
	mad_served(ctx, false);
}

void mad_loopback_ipv6(struct rdma_ktap_ctx *ctx)
{
	mad_served(ctx, true);
}

/*
 * Nobody takes the class: the port answers GET and SET itself (status
 * 0x000C, the request otherwise unchanged), and drops the rest, so that
 * a SEND waiting for an answer times out after its retries.
 */
void mad_unclaimed(struct rdma_ktap_ctx *ctx)
{
	static const u8 methods[] = { IB_MGMT_METHOD_GET, IB_MGMT_METHOD_SET };
	struct ib_mad_send_buf *buf;
	struct mt_agent c;
	struct ib_ah *ah;
	unsigned int i;

	ah = mt_client(ctx, &c, false);
	if (!ah)
		return;
	for (i = 0; i < ARRAY_SIZE(methods); i++) {
		buf = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED, methods[i],
				 i + 1, LT_WAIT_MS, 0);
		if (!buf)
			break;
		if (mt_exchange(ctx, &c, buf, IB_WC_SUCCESS, 0, true,
				"unclaimed request")) {
			mt_count(2, 2);
			mt_is_answer(ctx, &c, buf,
				     IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB,
				     false);
		}
		ib_free_send_mad(buf);
	}
	buf = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED, IB_MGMT_METHOD_SEND,
			 9, 50, 2);
	if (buf) {
		if (mt_exchange(ctx, &c, buf, IB_WC_RESP_TIMEOUT_ERR, 2, false,
				"unanswered SEND"))
			mt_count(3, 3);
		ib_free_send_mad(buf);
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mt_unregister(&c);
}

/*
 * Answers that must not match: another TID, or from a GID other than the
 * one the request went to.  The request times out.
 */
void mad_forged_response(struct rdma_ktap_ctx *ctx)
{
	struct ib_mad_send_buf *buf;
	struct mt_agent s, c;
	struct ib_ah *ah;
	int round;

	if (!mt_register(ctx, &s, MT_CLASS_SERVED, true))
		return;
	ah = mt_client(ctx, &c, false);
	if (!ah)
		goto out_s;
	for (round = 0; round < 2; round++) {
		if (round == 0) {
			s.reply_tid_xor = 1;
		} else {
			/* asked at the IPv4 GID, answered from the IPv6 one */
			s.reply_tid_xor = 0;
			s.reply_ah = lt_own_ah(ctx, s.agent->qp->pd, true);
			if (!s.reply_ah)
				break;
		}
		buf = mt_request(ctx, &c, ah, MT_CLASS_SERVED,
				 IB_MGMT_METHOD_GET, 20 + round, 100, 0);
		if (!buf)
			break;
		if (mt_exchange(ctx, &c, buf, IB_WC_RESP_TIMEOUT_ERR, 0, false,
				round ? "answer from another GID" :
					"answer with another TID")) {
			mt_count(2, 2);
			lt_traffic.mad_unmatched++;
		}
		ib_free_send_mad(buf);
	}
	/* wait for the serving agent's last answer to be sent */
	msleep(LT_QUIET_MS);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	mt_unregister(&c);
out_s:
	mt_unregister(&s);
	if (s.reply_ah)
		rdma_destroy_ah(s.reply_ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/*
 * ib_cancel_mad() ends a waiting send with a flush; ib_modify_mad()
 * shortens a wait, and refuses a send no longer outstanding; unregistering
 * ends every waiting send before it returns.
 */
void mad_cancel(struct rdma_ktap_ctx *ctx)
{
	struct ib_mad_send_buf *buf, *bufs[3] = {};
	struct mt_agent c;
	struct ib_ah *ah;
	unsigned int i;

	ah = mt_client(ctx, &c, false);
	if (!ah)
		return;

	c.want_status = IB_WC_WR_FLUSH_ERR;
	buf = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED, IB_MGMT_METHOD_SEND,
			 30, 60000, 5);
	if (buf && RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), 0)) {
		msleep(LT_QUIET_MS);
		ib_cancel_mad(buf);
		if (mt_wait(ctx, &c.sent, "cancelled send"))
			RDMA_KT_EQ(ctx, c.status, IB_WC_WR_FLUSH_ERR);
		RDMA_KT_EQ(ctx, ib_modify_mad(buf, 100), -EINVAL);
		mt_count(1, 1);
	}
	if (buf)
		ib_free_send_mad(buf);

	c.want_status = IB_WC_RESP_TIMEOUT_ERR;
	buf = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED, IB_MGMT_METHOD_SEND,
			 31, 60000, 0);
	if (buf && RDMA_KT_EQ(ctx, ib_post_send_mad(buf, NULL), 0)) {
		RDMA_KT_EQ(ctx, ib_modify_mad(buf, 20), 0);
		if (mt_wait(ctx, &c.sent, "shortened wait"))
			RDMA_KT_EQ(ctx, c.status, IB_WC_RESP_TIMEOUT_ERR);
		mt_count(1, 1);
	}
	if (buf)
		ib_free_send_mad(buf);

	/* Three waiting a minute when the agent goes. */
	c.want_status = IB_WC_WR_FLUSH_ERR;
	for (i = 0; i < ARRAY_SIZE(bufs); i++) {
		bufs[i] = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED,
				     IB_MGMT_METHOD_SEND, 40 + i, 60000, 3);
		if (bufs[i] &&
		    !RDMA_KT_EQ(ctx, ib_post_send_mad(bufs[i], NULL), 0)) {
			ib_free_send_mad(bufs[i]);
			bufs[i] = NULL;
		}
	}
	msleep(LT_QUIET_MS);
	i = c.nsent;
	mt_unregister(&c);
	RDMA_KT_EQ(ctx, c.nsent - i, ARRAY_SIZE(bufs));
	RDMA_KT_EQ(ctx, c.nbad_status, 0);
	for (i = 0; i < ARRAY_SIZE(bufs); i++) {
		if (bufs[i]) {
			mt_count(1, 1);
			ib_free_send_mad(bufs[i]);
		}
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

/*
 * More requests at once than the send queue holds: the ones that do not
 * fit wait their turn, and every one is answered and matched.
 */
void mad_many(struct rdma_ktap_ctx *ctx)
{
	struct ib_mad_send_buf **bufs;
	unsigned long left;
	struct mt_agent c;
	struct ib_ah *ah;
	unsigned int i, posted = 0;

	bufs = kcalloc(MT_MANY, sizeof(*bufs), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, bufs, "no memory"))
		return;
	ah = mt_client(ctx, &c, false);
	if (!ah)
		goto out_free;
	c.want_status = IB_WC_SUCCESS;
	for (i = 0; i < MT_MANY; i++) {
		bufs[i] = mt_request(ctx, &c, ah, MT_CLASS_UNCLAIMED,
				     IB_MGMT_METHOD_GET, 100 + i,
				     MT_MANY_WAIT_MS, 0);
		if (!bufs[i])
			break;
		bufs[i]->next = i ? bufs[i - 1] : NULL;
	}
	if (i == MT_MANY &&
	    RDMA_KT_EQ(ctx, ib_post_send_mad(bufs[MT_MANY - 1], NULL), 0))
		posted = MT_MANY;
	for (i = 0; i < posted; i++) {
		left = wait_for_completion_timeout(&c.sent,
						   msecs_to_jiffies(MT_MANY_WAIT_MS + LT_WAIT_MS));
		if (!RDMA_KT_EXPECT(ctx, left, "%u of %u sends ended", i,
				    posted))
			break;
	}
	RDMA_KT_EQ(ctx, c.nsent, posted);
	RDMA_KT_EQ(ctx, c.nrecv, posted);
	RDMA_KT_EQ(ctx, c.nbad_status, 0);
	mt_count(2 * c.nrecv, 2 * c.nrecv);
	mt_unregister(&c);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	for (i = 0; i < MT_MANY; i++)
		if (bufs[i])
			ib_free_send_mad(bufs[i]);
out_free:
	kfree(bufs);
}

/* What mad_malformed() sends, and which counter each must move. */
static const struct {
	const char	*what;
	bool		unmatched;	/* else malformed */
} mt_forgeries[] = {
	{ "truncated MAD", false },
	{ "base version 2", false },
	{ "SMP on QP 1", false },
	{ "CM GET of a message attribute", false },
	{ "response to no agent", true },
	{ "response to an agent that sent nothing", true },
};

/*
 * Turn the GET in @mad into forgery @i of mt_forgeries (@hi_tid: the
 * serving agent's); returns the bytes to send.
 */
static u32 mt_forge(struct ib_mad *mad, unsigned int i, u32 hi_tid)
{
	u32 low = be64_to_cpu(mad->mad_hdr.tid) & 0xffffffff;

	switch (i) {
	case 0:
		return 100;
	case 1:
		mad->mad_hdr.base_version = 2;
		break;
	case 2:
		mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_SUBN_LID_ROUTED;
		break;
	case 3:
		mad->mad_hdr.mgmt_class = IB_MGMT_CLASS_CM;
		mad->mad_hdr.class_version = 2;
		break;
	default:
		mad->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
		mad->mad_hdr.tid = cpu_to_be64((u64)(i == 4 ? 0xfffffff0 : hi_tid)
					       << 32 | low);
		break;
	}
	return IB_MGMT_MAD_SIZE;
}

/*
 * What the MAD layer drops, sent from a UD QP that owns the GSI Q_Key so
 * that rxe lets it through to QP 1: a truncated MAD, another base
 * version, a subnet management MAD, a CM message that is not a SEND, a
 * response to no agent and a response to an agent that sent nothing.
 * The serving agent (which takes GETs of its class and of the CM class)
 * must see none of them; the shell compares the port's counters with
 * lt_traffic.mad_bad and .mad_unmatched.
 */
void mad_malformed(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_attr qa = { .qkey = IB_QP1_QKEY };
	struct ib_mad_agent *cm_agent = NULL;
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = 2,
	};
	struct ib_ah *ah = NULL;
	struct mt_agent s;
	struct lt_end u;
	unsigned int i;
	int n = 0;
	u32 len;

	memset(&u, 0, sizeof(u));
	if (!mt_register(ctx, &s, MT_CLASS_SERVED, true))
		return;
	set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
	cm_agent = ib_register_mad_agent(lt_dev, 1, IB_QPT_GSI, &reg, 0,
					 mt_send_done, mt_recv, &s, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cm_agent), "CM agent: %ld",
			    PTR_ERR(cm_agent))) {
		cm_agent = NULL;
		goto out;
	}
	if (!RDMA_KT_EQ(ctx, lt_end_create(&u, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&u), 0) ||
	    !RDMA_KT_EQ(ctx, ib_modify_qp(u.qp, &qa, IB_QP_QKEY), 0))
		goto out;
	ah = lt_own_ah(ctx, lt_pd, false);
	if (!ah)
		goto out;

	for (i = 0; i < ARRAY_SIZE(mt_forgeries); i++) {
		len = mt_forge(gsi_ud_mad(&u, ++n), i, s.agent->hi_tid);
		if (!gsi_send_ud(ctx, &u, &s, ah, IB_QP_SET_QKEY, len, false,
				 n, mt_forgeries[i].what))
			goto out;
		if (mt_forgeries[i].unmatched)
			lt_traffic.mad_unmatched++;
		else
			lt_traffic.mad_bad++;
	}
	/* and a well-formed GET still gets through */
	gsi_from_ud(ctx, &u, &s, ah, IB_QP_SET_QKEY, true, ++n, "good GET");
	/* its answer went to the UD QP, which posted no receive */
	msleep(LT_QUIET_MS);
	mt_count(1, 0);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (cm_agent)
		ib_unregister_mad_agent(cm_agent);
	mt_unregister(&s);
	lt_end_destroy(&u);
}

/*
 * One request to the device's PMA through process_mad(), as the core's
 * counters files make it: @ret and the reply's status, method and first
 * data bytes are left for the caller.
 */
static int pma_ask(struct ib_pma_mad *in, struct ib_pma_mad *out,
		   size_t room)
{
	size_t out_size = room;
	u16 pkey_index = 0;

	memset(out, 0xa5, sizeof(struct ib_mad));
	return lt_dev->ops.process_mad(lt_dev, IB_MAD_IGNORE_MKEY, 1, NULL,
				       NULL, (struct ib_mad *)in,
				       (struct ib_mad *)out, &out_size,
				       &pkey_index);
}

static void pma_request(struct ib_pma_mad *in, u8 class, u8 version,
			u8 method, __be16 attr, u8 port)
{
	memset(in, 0, sizeof(struct ib_mad));
	in->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	in->mad_hdr.mgmt_class = class;
	in->mad_hdr.class_version = version;
	in->mad_hdr.method = method;
	in->mad_hdr.attr_id = attr;
	in->mad_hdr.tid = cpu_to_be64(0x1122334455667788ULL);
	in->data[1] = port;
}

/*
 * The PMA of rdma_rxe: ClassPortInfo offers the extended counters, Get
 * of both counter attributes answers for port 1 with the request's TID,
 * and every request it cannot serve gets its own status; responses, other
 * classes and a reply buffer that is too small are not answered.
 */
void pma_agent(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		const char *what;
		u8 class, version, method;
		__be16 attr;
		u8 port;
		int ret;
		u16 status;
	} cases[] = {
		{ "ClassPortInfo", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_CLASS_PORT_INFO, 0,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY, 0 },
		{ "PortCounters", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY, 0 },
		{ "PortCountersExtended", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS_EXT, 1,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY, 0 },
		{ "PortCounters of port 2", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 2,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY,
		  IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE },
		{ "Set(PortCounters)", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_SET, IB_PMA_PORT_COUNTERS, 1,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY,
		  IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD },
		{ "class version 2", IB_MGMT_CLASS_PERF_MGMT, 2,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY,
		  IB_MGMT_MAD_STATUS_BAD_VERSION },
		{ "PortSamplesControl", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_SAMPLES_CONTROL, 1,
		  IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY,
		  IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB },
		{ "a GetResp", IB_MGMT_CLASS_PERF_MGMT, 1,
		  IB_MGMT_METHOD_GET_RESP, IB_PMA_PORT_COUNTERS, 1,
		  IB_MAD_RESULT_SUCCESS, 0 },
		{ "another class", MT_CLASS_UNCLAIMED, 1,
		  IB_MGMT_METHOD_GET, IB_PMA_PORT_COUNTERS, 1,
		  IB_MAD_RESULT_SUCCESS, 0 },
	};
	struct ib_pma_mad *in, *out;
	unsigned int i;
	int ret;

	if (!RDMA_KT_EXPECT(ctx, lt_dev->ops.process_mad,
			    "rdma_rxe has process_mad"))
		return;
	in = kzalloc(2 * sizeof(struct ib_mad), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, in, "two MADs allocated"))
		return;
	out = (struct ib_pma_mad *)((struct ib_mad *)in + 1);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		pma_request(in, cases[i].class, cases[i].version,
			    cases[i].method, cases[i].attr, cases[i].port);
		ret = pma_ask(in, out, sizeof(struct ib_mad));
		RDMA_KT_EXPECT(ctx, ret == cases[i].ret, "%s: result %d, want %d",
			       cases[i].what, ret, cases[i].ret);
		if (!(ret & IB_MAD_RESULT_REPLY))
			continue;
		RDMA_KT_EXPECT(ctx, be16_to_cpu(out->mad_hdr.status) ==
				    cases[i].status &&
				    out->mad_hdr.method ==
				    IB_MGMT_METHOD_GET_RESP &&
				    out->mad_hdr.tid == in->mad_hdr.tid &&
				    out->mad_hdr.attr_id == in->mad_hdr.attr_id,
			       "%s: status 0x%x method 0x%x, want 0x%x 0x81 and the request's TID and attribute",
			       cases[i].what, be16_to_cpu(out->mad_hdr.status),
			       out->mad_hdr.method, cases[i].status);
	}

	/* ClassPortInfo: 64-bit counters offered */
	pma_request(in, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
		    IB_PMA_CLASS_PORT_INFO, 0);
	if (pma_ask(in, out, sizeof(struct ib_mad)) & IB_MAD_RESULT_REPLY) {
		struct ib_class_port_info *cpi = (void *)out->data;

		RDMA_KT_EXPECT(ctx, cpi->capability_mask &
				    IB_PMA_CLASS_CAP_EXT_WIDTH,
			       "ClassPortInfo capability mask 0x%x has ExtWidth",
			       be16_to_cpu(cpi->capability_mask));
	}
	/* A PortCounters reply names the port it counts. */
	pma_request(in, IB_MGMT_CLASS_PERF_MGMT, 1, IB_MGMT_METHOD_GET,
		    IB_PMA_PORT_COUNTERS, 1);
	if (pma_ask(in, out, sizeof(struct ib_mad)) & IB_MAD_RESULT_REPLY)
		RDMA_KT_EQ(ctx, out->data[1], 1);
	/* no room for a reply: refused, nothing written */
	ret = pma_ask(in, out, sizeof(struct ib_mad) - 1);
	RDMA_KT_EQ(ctx, ret, IB_MAD_RESULT_FAILURE);
	RDMA_KT_EQ(ctx, out->mad_hdr.method, 0xa5);
	kfree(in);
}
