// SPDX-License-Identifier: GPL-2.0
/*
 * The InfiniBand connection manager (ib_cm) on the rxe device under test,
 * both ends on this host: the REQ/REP/RTU/DREQ/DREP exchange with the
 * parameters each event reports and a SEND over the connected QPs, time
 * wait, MRA, refusals (REJ with ARI and private data, no listener, a
 * requester that gives up, a handler that fails), listener rules, calls
 * made in the wrong state, IB_EVENT_COMM_EST through ib_cm_notify(), and
 * service ID resolution.  What the wire must carry is checked against
 * stock in tests/ulp_ib_cm.sh; here the state machine is.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_cm.h>

#include "rdma_rxe_loop.h"

#define CT_SID		cpu_to_be64(0x0000000001060000ULL | 0xc0de)
#define CT_SID_NONE	cpu_to_be64(0x0000000001060000ULL | 0xdead)
#define CT_EVENTS	16
#define CT_PDATA	"ct private data"

/* One end: the events its IDs got, and the ID a REQ made for it. */
struct ct_side {
	spinlock_t		lock;		/* the event log */
	wait_queue_head_t	wq;
	enum ib_cm_event_type	ev[CT_EVENTS];
	int			nev;
	struct ib_cm_event	last[CT_EVENTS];
	u8			pdata[CT_EVENTS][32];
	u8			ari[8];
	struct ib_cm_id		*child;		/* from REQ/SIDR_REQ_RECEIVED */
	struct ib_cm_id		*listen_id;	/* as the REQ event named it */
	int			req_ret;	/* what REQ_RECEIVED returns */
	bool			req_ok;		/* its parameters were right */
	u32			want_qpn;	/* the requester's QP */
	u32			want_psn;
};

/* A side with an empty log (too big for the stack). */
static struct ct_side *ct_new(void)
{
	struct ct_side *s = kzalloc(sizeof(*s), GFP_KERNEL);

	if (s) {
		spin_lock_init(&s->lock);
		init_waitqueue_head(&s->wq);
	}
	return s;
}

static int ct_handler(struct ib_cm_id *id, const struct ib_cm_event *e)
{
	struct ct_side *s = id->context;
	const struct ib_cm_req_event_param *r = &e->param.req_rcvd;
	int ret = 0;

	spin_lock(&s->lock);
	if (e->event == IB_CM_REQ_RECEIVED ||
	    e->event == IB_CM_SIDR_REQ_RECEIVED) {
		s->child = id;
		s->listen_id = e->event == IB_CM_REQ_RECEIVED ? r->listen_id :
				e->param.sidr_req_rcvd.listen_id;
		ret = s->req_ret;
	}
	if (e->event == IB_CM_REQ_RECEIVED)
		s->req_ok = r->remote_qpn == s->want_qpn &&
			    r->starting_psn == s->want_psn &&
			    r->qp_type == IB_QPT_RC && r->port == 1 &&
			    r->responder_resources == 2 &&
			    r->initiator_depth == 3 &&
			    r->ppath_sgid_attr && r->primary_path &&
			    !memcmp(&r->primary_path->sgid,
				    &r->ppath_sgid_attr->gid, 16) &&
			    r->remote_ca_guid == id->device->node_guid;
	if (e->event == IB_CM_REJ_RECEIVED)
		memcpy(s->ari, e->param.rej_rcvd.ari, sizeof(s->ari));
	if (s->nev < CT_EVENTS) {
		s->ev[s->nev] = e->event;
		s->last[s->nev] = *e;
		memcpy(s->pdata[s->nev], e->private_data, 32);
		s->nev++;
	}
	spin_unlock(&s->lock);
	wake_up(&s->wq);
	return ret;
}

/* Wait for event number @n (from 0) of @s; is it @type? */
static bool ct_expect(struct rdma_ktap_ctx *ctx, struct ct_side *s, int n,
		      enum ib_cm_event_type type, unsigned int ms)
{
	if (!RDMA_KT_EXPECT(ctx, wait_event_timeout(s->wq, s->nev > n,
						    msecs_to_jiffies(ms)),
			    "no event %d within %u ms (want %d)", n, ms, type))
		return false;
	return RDMA_KT_EXPECT(ctx, s->ev[n] == type, "event %d is %d, want %d",
			      n, s->ev[n], type);
}

/* No event past the first @n for @ms. */
static bool ct_quiet(struct rdma_ktap_ctx *ctx, struct ct_side *s, int n,
		     unsigned int ms)
{
	return RDMA_KT_EXPECT(ctx, !wait_event_timeout(s->wq, s->nev > n,
						       msecs_to_jiffies(ms)),
			      "unexpected event %d", s->ev[n]);
}

/* A RoCE path to our own first IPv4 address. */
static bool ct_path(struct rdma_ktap_ctx *ctx, struct sa_path_rec *path,
		    const struct ib_gid_attr **sgid)
{
	struct rdma_ah_attr av;

	if (!lt_path_attr(ctx, &av, lt_idx4))
		return false;
	*sgid = rdma_get_gid_attr(lt_dev, 1, lt_idx4);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(*sgid), "GID %d", lt_idx4))
		return false;
	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	path->sgid = (*sgid)->gid;
	path->dgid = (*sgid)->gid;
	path->hop_limit = LT_HOPS;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu = lt_mtu_enum;
	path->packet_life_time = 14;
	path->roce.route_resolved = true;
	memcpy(path->roce.dmac, av.roce.dmac, ETH_ALEN);
	return true;
}

/* The REQ of connection tests from @id (QP @qpn, PSN @psn). */
static int ct_send_req(struct ib_cm_id *id, struct sa_path_rec *path,
		       const struct ib_gid_attr *sgid, u32 qpn, u32 psn,
		       __be64 sid, u8 retries)
{
	struct ib_cm_req_param req = {
		.primary_path = path,
		.ppath_sgid_attr = sgid,
		.service_id = sid,
		.qp_num = qpn,
		.qp_type = IB_QPT_RC,
		.starting_psn = psn,
		.private_data = CT_PDATA,
		.private_data_len = sizeof(CT_PDATA),
		.responder_resources = 3,
		.initiator_depth = 2,
		.remote_cm_response_timeout = 16,
		.local_cm_response_timeout = 16,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = retries,
	};

	return ib_send_cm_req(id, &req);
}

static int ct_modify(struct ib_cm_id *id, struct lt_end *e,
		     enum ib_qp_state state)
{
	struct ib_qp_attr qa = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(id, &qa, &mask);
	return ret ?: ib_modify_qp(e->qp, &qa, mask);
}

/* The end of a case: its IDs (the listener last), the GID, the sides. */
static void ct_finish(struct ib_cm_id *id, struct ib_cm_id *l,
		      const struct ib_gid_attr *sgid, struct ct_side *as,
		      struct ct_side *ps)
{
	if (!IS_ERR_OR_NULL(id))
		ib_destroy_cm_id(id);
	if (ps && ps->child)
		ib_destroy_cm_id(ps->child);
	if (l)
		ib_destroy_cm_id(l);
	if (!IS_ERR_OR_NULL(sgid))
		rdma_put_gid_attr(sgid);
	kfree(as);
	kfree(ps);
}

/* A listener on CT_SID for @s. */
static struct ib_cm_id *ct_listen(struct rdma_ktap_ctx *ctx,
				  struct ct_side *s)
{
	struct ib_cm_id *l = ib_create_cm_id(lt_dev, ct_handler, s);

	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(l), "listener: %ld", PTR_ERR(l)))
		return NULL;
	if (!RDMA_KT_EQ(ctx, ib_cm_listen(l, CT_SID), 0)) {
		ib_destroy_cm_id(l);
		return NULL;
	}
	return l;
}

/*
 * A whole connection: REQ (its parameters as the passive side sees them),
 * REP, RTU, a SEND each way, DREQ from the passive side, DREP, and time
 * wait on both ends.
 */
void cm_connect_disconnect(struct rdma_ktap_ctx *ctx)
{
	struct lt_end a = {}, p = {};
	struct ct_side *as = ct_new(), *ps = ct_new();
	struct ib_cm_id *l = NULL, *id = NULL;
	const struct ib_gid_attr *sgid = NULL;
	struct sa_path_rec path;
	struct ib_wc wc;
	struct ib_cm_rep_param rep = {
		.responder_resources = 2, .initiator_depth = 3,
		.rnr_retry_count = 7, .starting_psn = 0x2345,
		.private_data = CT_PDATA, .private_data_len = 4,
	};

	if (!RDMA_KT_EXPECT(ctx, as && ps, "no memory"))
		goto out;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&p, IB_QPT_RC, NULL), 0) ||
	    !ct_path(ctx, &path, &sgid))
		goto out;
	l = ct_listen(ctx, ps);
	id = ib_create_cm_id(lt_dev, ct_handler, as);
	if (!l || !RDMA_KT_EXPECT(ctx, !IS_ERR(id), "ID"))
		goto out;
	ps->want_qpn = lt_qpn(&a);
	ps->want_psn = 0x1234;
	if (!RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, lt_qpn(&a), 0x1234,
					 CT_SID, 3), 0) ||
	    !RDMA_KT_EQ(ctx, id->state, IB_CM_REQ_SENT) ||
	    !ct_expect(ctx, ps, 0, IB_CM_REQ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EXPECT(ctx, ps->req_ok, "REQ_RECEIVED parameters wrong");
	RDMA_KT_EXPECT(ctx, ps->listen_id == l, "listen_id not the listener");
	RDMA_KT_EXPECT(ctx, !memcmp(ps->pdata[0], CT_PDATA, sizeof(CT_PDATA)),
		       "REQ private data");
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_REQ_RCVD);
	RDMA_KT_EQ(ctx, be32_to_cpu(ps->child->remote_id),
		   be32_to_cpu(id->local_id));
	rep.qp_num = lt_qpn(&p);
	/* The CM knows our receive PSN once the REP names it. */
	if (!RDMA_KT_EQ(ctx, ct_modify(ps->child, &p, IB_QPS_INIT), 0) ||
	    !RDMA_KT_EQ(ctx, ib_send_cm_rep(ps->child, &rep), 0) ||
	    !RDMA_KT_EQ(ctx, ct_modify(ps->child, &p, IB_QPS_RTR), 0) ||
	    !RDMA_KT_EQ(ctx, ct_modify(ps->child, &p, IB_QPS_RTS), 0) ||
	    !ct_expect(ctx, as, 0, IB_CM_REP_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, as->last[0].param.rep_rcvd.remote_qpn, lt_qpn(&p));
	RDMA_KT_EQ(ctx, as->last[0].param.rep_rcvd.starting_psn, 0x2345);
	/* Seen from our QP: the replier's initiator depth comes in. */
	RDMA_KT_EQ(ctx, as->last[0].param.rep_rcvd.responder_resources, 3);
	RDMA_KT_EQ(ctx, as->last[0].param.rep_rcvd.target_ack_delay,
		   lt_dev->attrs.local_ca_ack_delay);
	RDMA_KT_EQ(ctx, be32_to_cpu(id->remote_id),
		   be32_to_cpu(ps->child->local_id));
	if (!RDMA_KT_EQ(ctx, ct_modify(id, &a, IB_QPS_RTR), 0) ||
	    !RDMA_KT_EQ(ctx, ct_modify(id, &a, IB_QPS_RTS), 0) ||
	    !RDMA_KT_EQ(ctx, ib_send_cm_rtu(id, NULL, 0), 0) ||
	    !ct_expect(ctx, ps, 1, IB_CM_RTU_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, id->state, IB_CM_ESTABLISHED);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_ESTABLISHED);
	if (!lt_send_recv(ctx, &a, &p, IB_WR_SEND, 100, 7, &wc) ||
	    !lt_send_recv(ctx, &p, &a, IB_WR_SEND, 3000, 8, &wc))
		goto out;
	/* A second RTU is refused: the connection is up already. */
	RDMA_KT_EQ(ctx, ib_send_cm_rtu(id, NULL, 0), -EINVAL);
	if (!RDMA_KT_EQ(ctx, ib_send_cm_dreq(ps->child, CT_PDATA, 8), 0) ||
	    !ct_expect(ctx, as, 1, IB_CM_DREQ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EXPECT(ctx, !memcmp(as->pdata[1], CT_PDATA, 8), "DREQ data");
	RDMA_KT_EQ(ctx, id->state, IB_CM_DREQ_RCVD);
	if (!RDMA_KT_EQ(ctx, ib_send_cm_drep(id, NULL, 0), 0) ||
	    !ct_expect(ctx, ps, 2, IB_CM_DREP_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, id->state, IB_CM_TIMEWAIT);
	ct_expect(ctx, as, 2, IB_CM_TIMEWAIT_EXIT, LT_WAIT_MS);
	ct_expect(ctx, ps, 3, IB_CM_TIMEWAIT_EXIT, LT_WAIT_MS);
	RDMA_KT_EQ(ctx, id->state, IB_CM_IDLE);
out:
	lt_end_destroy(&a);
	lt_end_destroy(&p);
	ct_finish(id, l, sgid, as, ps);
}

/*
 * Refusals: the passive side rejects with ARI and private data; a REQ for
 * a service nobody listens on gets REJ 8; a handler returning an error
 * has its ID rejected with REJ 28; a requester destroyed while waiting
 * sends REJ 4 with its node GUID as ARI.
 */
void cm_refusals(struct rdma_ktap_ctx *ctx)
{
	static const u8 ari[4] = { 1, 2, 3, 4 };
	struct ct_side *as = ct_new(), *ps = ct_new();
	struct ib_cm_id *l = NULL, *id = NULL;
	const struct ib_gid_attr *sgid = NULL;
	struct sa_path_rec path;
	__be64 guid = lt_dev->node_guid;

	if (!RDMA_KT_EXPECT(ctx, as && ps, "no memory"))
		goto out;
	if (!ct_path(ctx, &path, &sgid))
		goto out;
	l = ct_listen(ctx, ps);
	if (!l)
		goto out;

	/* 1: REJ from REQ_RCVD, with ARI and private data */
	id = ib_create_cm_id(lt_dev, ct_handler, as);
	if (!RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, 0x99, 1, CT_SID, 3), 0) ||
	    !ct_expect(ctx, ps, 0, IB_CM_REQ_RECEIVED, LT_WAIT_MS) ||
	    !RDMA_KT_EQ(ctx, ib_send_cm_rej(ps->child, IB_CM_REJ_CONSUMER_DEFINED,
					    (void *)ari, sizeof(ari), CT_PDATA,
					    sizeof(CT_PDATA)), 0) ||
	    !ct_expect(ctx, as, 0, IB_CM_REJ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, as->last[0].param.rej_rcvd.reason,
		   IB_CM_REJ_CONSUMER_DEFINED);
	RDMA_KT_EQ(ctx, as->last[0].param.rej_rcvd.ari_length, sizeof(ari));
	RDMA_KT_EXPECT(ctx, !memcmp(as->ari, ari, sizeof(ari)), "ARI");
	RDMA_KT_EXPECT(ctx, !memcmp(as->pdata[0], CT_PDATA, sizeof(CT_PDATA)),
		       "REJ private data");
	RDMA_KT_EQ(ctx, id->state, IB_CM_IDLE);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_IDLE);
	ib_destroy_cm_id(ps->child);
	ps->child = NULL;

	/* 2: no listener */
	if (!RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, 0x99, 1, CT_SID_NONE,
					 3), 0) ||
	    !ct_expect(ctx, as, 1, IB_CM_REJ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, as->last[1].param.rej_rcvd.reason,
		   IB_CM_REJ_INVALID_SERVICE_ID);

	/* 3: the listener's handler fails: the new ID is rejected for it */
	ps->req_ret = -EINVAL;
	if (!RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, 0x99, 1, CT_SID, 3), 0) ||
	    !ct_expect(ctx, ps, 1, IB_CM_REQ_RECEIVED, LT_WAIT_MS) ||
	    !ct_expect(ctx, as, 2, IB_CM_REJ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, as->last[2].param.rej_rcvd.reason,
		   IB_CM_REJ_CONSUMER_DEFINED);
	ps->child = NULL;	/* the CM destroyed it */

	/* 4: the requester gives up in REQ_SENT */
	ps->req_ret = 0;
	if (!RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, 0x99, 1, CT_SID, 3), 0) ||
	    !ct_expect(ctx, ps, 2, IB_CM_REQ_RECEIVED, LT_WAIT_MS))
		goto out;
	ib_destroy_cm_id(id);
	id = NULL;
	if (ct_expect(ctx, ps, 3, IB_CM_REJ_RECEIVED, LT_WAIT_MS)) {
		RDMA_KT_EQ(ctx, ps->last[3].param.rej_rcvd.reason,
			   IB_CM_REJ_TIMEOUT);
		RDMA_KT_EXPECT(ctx, !memcmp(ps->ari, &guid, sizeof(guid)),
			       "REJ 4's ARI is not the node GUID");
	}
out:
	ct_finish(id, l, sgid, as, ps);
}

/*
 * MRA: an immediate one re-arms the REQ's wait (MRA_RECEIVED, state
 * MRA_REQ_RCVD); the REP still completes the exchange.  IB_EVENT_COMM_EST
 * through ib_cm_notify() establishes the passive side without the RTU.
 */
void cm_mra_and_comm_est(struct rdma_ktap_ctx *ctx)
{
	struct ct_side *as = ct_new(), *ps = ct_new();
	struct ib_cm_id *l = NULL, *id = NULL;
	const struct ib_gid_attr *sgid = NULL;
	struct sa_path_rec path;
	struct ib_cm_rep_param rep = { .qp_num = 0x77, .starting_psn = 5 };

	if (!RDMA_KT_EXPECT(ctx, as && ps, "no memory"))
		goto out;
	if (!ct_path(ctx, &path, &sgid))
		goto out;
	l = ct_listen(ctx, ps);
	id = ib_create_cm_id(lt_dev, ct_handler, as);
	if (!l || !RDMA_KT_EQ(ctx, ct_send_req(id, &path, sgid, 0x99, 1,
					       CT_SID, 3), 0) ||
	    !ct_expect(ctx, ps, 0, IB_CM_REQ_RECEIVED, LT_WAIT_MS))
		goto out;
	/* Held back: nothing reaches the requester. */
	RDMA_KT_EQ(ctx, ib_send_cm_mra(ps->child, 20 | IB_CM_MRA_FLAG_DELAY,
				       NULL, 0), 0);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_MRA_REQ_SENT);
	ct_quiet(ctx, as, 0, 200);
	if (!RDMA_KT_EQ(ctx, ib_send_cm_rep(ps->child, &rep), 0) ||
	    !ct_expect(ctx, as, 0, IB_CM_REP_RECEIVED, LT_WAIT_MS))
		goto out;
	/* The requester asks for time before its RTU. */
	if (!RDMA_KT_EQ(ctx, ib_send_cm_mra(id, 18, NULL, 0), 0) ||
	    !ct_expect(ctx, ps, 1, IB_CM_MRA_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, ps->last[1].param.mra_rcvd.service_timeout, 18);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_MRA_REP_RCVD);
	RDMA_KT_EQ(ctx, ib_cm_notify(ps->child, IB_EVENT_PATH_MIG), -EINVAL);
	if (!RDMA_KT_EQ(ctx, ib_cm_notify(ps->child, IB_EVENT_COMM_EST), 0) ||
	    !ct_expect(ctx, ps, 2, IB_CM_USER_ESTABLISHED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, ib_cm_notify(ps->child, IB_EVENT_COMM_EST), -EISCONN);
	/* The RTU comes late and changes nothing. */
	RDMA_KT_EQ(ctx, ib_send_cm_rtu(id, NULL, 0), 0);
	ct_quiet(ctx, ps, 3, 100);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_ESTABLISHED);
	/* Destroying an established end disconnects the other. */
	ib_destroy_cm_id(id);
	id = NULL;
	ct_expect(ctx, ps, 3, IB_CM_DREQ_RECEIVED, LT_WAIT_MS);
out:
	ct_finish(id, l, sgid, as, ps);
}

static int ct_null_handler(struct ib_cm_id *id, const struct ib_cm_event *e)
{
	return 0;
}

/*
 * Listener rules and calls made in the wrong state: each refused with
 * -EINVAL (or -EBUSY, -EISCONN) and nothing sent.
 */
void cm_api_rules(struct rdma_ktap_ctx *ctx)
{
	struct ib_cm_id *a, *b, *s1, *s2, *s3;
	struct ib_cm_rep_param rep = {};
	struct ib_cm_req_param req = { .qp_type = IB_QPT_RC };
	struct ib_qp_attr qa = { .qp_state = IB_QPS_INIT };
	u8 big[IB_CM_REP_PRIVATE_DATA_SIZE + 1] = {};
	struct sa_path_rec path;
	int mask;

	a = ib_create_cm_id(lt_dev, ct_null_handler, NULL);
	b = ib_create_cm_id(lt_dev, ct_null_handler, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(a) && !IS_ERR(b), "IDs"))
		return;
	RDMA_KT_EXPECT(ctx, a->local_id && a->local_id != b->local_id,
		       "local comm IDs %#x %#x", be32_to_cpu(a->local_id),
		       be32_to_cpu(b->local_id));
	RDMA_KT_EQ(ctx, ib_cm_listen(a, CT_SID), 0);
	RDMA_KT_EQ(ctx, ib_cm_listen(b, CT_SID), -EBUSY);
	RDMA_KT_EQ(ctx, ib_cm_listen(a, CT_SID_NONE), -EINVAL);
	RDMA_KT_EQ(ctx, ib_cm_listen(b, IB_CM_ASSIGN_SERVICE_ID), 0);
	RDMA_KT_EQ(ctx, be64_to_cpu(b->service_id & IB_SERVICE_ID_AGN_MASK),
		   be64_to_cpu(IB_CM_ASSIGN_SERVICE_ID));
	ib_destroy_cm_id(b);

	/* Shared listeners */
	s1 = ib_cm_insert_listen(lt_dev, ct_null_handler, CT_SID_NONE);
	s2 = ib_cm_insert_listen(lt_dev, ct_null_handler, CT_SID_NONE);
	s3 = ib_cm_insert_listen(lt_dev, ct_handler, CT_SID_NONE);
	RDMA_KT_EXPECT(ctx, !IS_ERR(s1) && s1 == s2, "shared listener %p %p",
		       s1, s2);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(s3), -EINVAL);
	if (!IS_ERR(s1))
		ib_destroy_cm_id(s1);
	if (!IS_ERR(s2)) {
		/* Still listening with one share left. */
		RDMA_KT_EQ(ctx, s2->state, IB_CM_LISTEN);
		ib_destroy_cm_id(s2);
	}

	b = ib_create_cm_id(lt_dev, ct_null_handler, NULL);
	RDMA_KT_EQ(ctx, ib_send_cm_rep(b, &rep), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_rtu(b, NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_dreq(b, NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_drep(b, NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_rej(b, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_mra(b, 20, NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_cm_notify(b, IB_EVENT_COMM_EST), -EINVAL);
	RDMA_KT_EQ(ctx, ib_cm_init_qp_attr(b, &qa, &mask), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_req(b, &req), -EINVAL);	/* no path */
	memset(&path, 0, sizeof(path));
	req.primary_path = &path;
	req.qp_type = IB_QPT_UD;
	RDMA_KT_EQ(ctx, ib_send_cm_req(b, &req), -EINVAL);
	req.qp_type = IB_QPT_RC;
	req.private_data = big;
	req.private_data_len = IB_CM_REQ_PRIVATE_DATA_SIZE + 1;
	RDMA_KT_EQ(ctx, ib_send_cm_req(b, &req), -EINVAL);
	rep.private_data = big;
	rep.private_data_len = sizeof(big);
	RDMA_KT_EQ(ctx, ib_send_cm_rep(b, &rep), -EINVAL);
	RDMA_KT_EQ(ctx, ib_send_cm_rej(a, IB_CM_REJ_CONSUMER_DEFINED, big,
				       IB_CM_REJ_ARI_LENGTH + 1, NULL, 0),
		   -EINVAL);
	RDMA_KT_EQ(ctx, b->state, IB_CM_IDLE);
	RDMA_KT_EXPECT(ctx, !strcmp(ibcm_reject_msg(IB_CM_REJ_STALE_CONN),
				    "stale conn"), "reason 10 in words");
	RDMA_KT_EXPECT(ctx, !strcmp(ibcm_reject_msg(34), "unrecognized reason"),
		       "reason 34 in words");
	ib_destroy_cm_id(b);
	ib_destroy_cm_id(a);
}

/*
 * Service ID resolution: a SIDR_REQ reaches the listener as a new ID, its
 * SIDR_REP carries the QP and Q_Key back; a SIDR_REQ for a service nobody
 * listens on is answered "unsupported".
 */
void cm_sidr(struct rdma_ktap_ctx *ctx)
{
	struct ct_side *as = ct_new(), *ps = ct_new();
	struct ib_cm_id *l = NULL, *id = NULL;
	const struct ib_gid_attr *sgid = NULL;
	struct sa_path_rec path;
	struct ib_cm_sidr_req_param req = {
		.service_id = CT_SID,
		.timeout_ms = 500,
		.max_cm_retries = 2,
		.private_data = CT_PDATA,
		.private_data_len = sizeof(CT_PDATA),
	};
	struct ib_cm_sidr_rep_param rep = {
		.qp_num = 0x4321,
		.qkey = LT_QKEY,
		.status = IB_SIDR_SUCCESS,
	};
	const struct ib_cm_sidr_rep_event_param *r;

	if (!RDMA_KT_EXPECT(ctx, as && ps, "no memory"))
		goto out;
	if (!ct_path(ctx, &path, &sgid))
		goto out;
	req.path = &path;
	req.sgid_attr = sgid;
	l = ct_listen(ctx, ps);
	id = ib_create_cm_id(lt_dev, ct_handler, as);
	if (!l || !RDMA_KT_EQ(ctx, ib_send_cm_sidr_req(id, &req), 0) ||
	    !ct_expect(ctx, ps, 0, IB_CM_SIDR_REQ_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, id->state, IB_CM_SIDR_REQ_SENT);
	RDMA_KT_EQ(ctx, be64_to_cpu(ps->last[0].param.sidr_req_rcvd.service_id),
		   be64_to_cpu(CT_SID));
	RDMA_KT_EXPECT(ctx, ps->listen_id == l, "listen_id");
	RDMA_KT_EXPECT(ctx, !memcmp(ps->pdata[0], CT_PDATA, sizeof(CT_PDATA)),
		       "SIDR_REQ private data");
	if (!RDMA_KT_EQ(ctx, ib_send_cm_sidr_rep(ps->child, &rep), 0) ||
	    !ct_expect(ctx, as, 0, IB_CM_SIDR_REP_RECEIVED, LT_WAIT_MS))
		goto out;
	r = &as->last[0].param.sidr_rep_rcvd;
	RDMA_KT_EQ(ctx, r->status, IB_SIDR_SUCCESS);
	RDMA_KT_EQ(ctx, r->qpn, 0x4321);
	RDMA_KT_EQ(ctx, r->qkey, LT_QKEY);
	RDMA_KT_EQ(ctx, id->state, IB_CM_IDLE);
	RDMA_KT_EQ(ctx, ps->child->state, IB_CM_IDLE);

	req.service_id = CT_SID_NONE;
	if (!RDMA_KT_EQ(ctx, ib_send_cm_sidr_req(id, &req), 0) ||
	    !ct_expect(ctx, as, 1, IB_CM_SIDR_REP_RECEIVED, LT_WAIT_MS))
		goto out;
	RDMA_KT_EQ(ctx, as->last[1].param.sidr_rep_rcvd.status,
		   IB_SIDR_UNSUPPORTED);
out:
	ct_finish(id, l, sgid, as, ps);
}
