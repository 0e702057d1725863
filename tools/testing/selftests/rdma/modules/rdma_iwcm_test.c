// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of iw_cm, of rdma_cm on iWARP ports and of what the core
 * makes of an iWARP device, without an iWARP provider: rdma_mock devices
 * are made iWARP here (node type RNIC, iWARP port capabilities, the
 * netdev's MAC as GID 0, QPs that take iWARP attributes only) and given
 * the iw_* ops of a pretend provider, "iwt", which connects the IDs of
 * its devices to each other in memory.  It
 * reports most events from a timer (softirq) and closes connections from
 * inside modify_qp(), as a real provider may, and counts the references
 * it holds on IDs and QPs, which must all be gone when a case ends.
 *
 * iwt's ports: a connect to a port with no listener gets CONNECT_REPLY
 * -ETIMEDOUT on IWT_PORT_SILENT, -EHOSTUNREACH on IWT_PORT_BROKEN and
 * -ECONNREFUSED elsewhere.  A listener bound to an IPv6 wildcard that
 * takes IPv4 gets the addresses IPv4-mapped, as from a v6 socket.
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/timer.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include "rdma_ktap.h"
#include "rdma_mock.h"

#define IWT_WAIT_MS		3000
#define IWT_EVENTS		16
#define IWT_PORT		18515
#define IWT_PORT_SILENT		7001
#define IWT_PORT_BROKEN		7002
#define IWT_PORT_CLOSED		7003
#define IWT_MAX_QPS		16
#define IWT_REQ_DATA		"iwt request"
#define IWT_REP_DATA		"iwt reply"
#define IWT_REJ_DATA		"iwt no"

static const u8 iwt_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0a, 0x00, 0x01 };
static const u8 iwt_mac2[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0a, 0x00, 0x02 };
/* 10.10.0.1/24 and fd00:a::1/64 on the first netdev, 10.11.0.1 on the other */
#define IWT_ADDR4	htonl(0x0a0a0001)
#define IWT_ADDR4_2	htonl(0x0a0b0001)
static const struct in6_addr iwt_addr6 = {
	{ { 0xfd, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } } };

static struct net_device *iwt_ndev;
static struct rdma_mock_dev *iwt_md;
static struct ib_pd *iwt_pd;
static struct ib_cq *iwt_cq;

/* ---- the pretend provider ---------------------------------------------- */

/* Guards the lists and the QP table below; taken in softirq too. */
static DEFINE_SPINLOCK(iwt_lock);
static LIST_HEAD(iwt_listeners);
static LIST_HEAD(iwt_conns);
static LIST_HEAD(iwt_reports);
static struct ib_qp *iwt_qps[IWT_MAX_QPS];
static struct timer_list iwt_timer;
/* add_ref()s of IDs not matched by a rem_ref() yet; the same for QPs */
static atomic_t iwt_id_refs = ATOMIC_INIT(0);
static atomic_t iwt_qp_refs = ATOMIC_INIT(0);

struct iwt_listener {
	struct list_head	node;
	struct iw_cm_id		*id;	/* held */
};

/*
 * A connection: @active from iw_connect() until its end is over,
 * @passive from iw_accept() likewise; the passive side's view of the
 * addresses.  Freed at close, or once the request is answered after the
 * active side gave up.
 */
struct iwt_conn {
	struct list_head	node;
	struct iw_cm_id		*active;
	struct iw_cm_id		*passive;
	struct ib_qp		*aqp;
	struct ib_qp		*pqp;
	struct sockaddr_storage	laddr;
	struct sockaddr_storage	raddr;
	bool			established;
};

/* An event waiting for the timer, holding its ID. */
struct iwt_report {
	struct list_head	node;
	struct iw_cm_id		*id;
	struct iw_cm_event	ev;
	u8			data[U8_MAX];
};

static void iwt_hold(struct iw_cm_id *id)
{
	id->add_ref(id);
	atomic_inc(&iwt_id_refs);
}

static void iwt_drop(struct iw_cm_id *id)
{
	atomic_dec(&iwt_id_refs);
	id->rem_ref(id);
}

/* Queue @ev for @id (copied, private data too); iwt_lock held. */
static void iwt_report(struct iw_cm_id *id, const struct iw_cm_event *ev)
{
	struct iwt_report *r = kzalloc(sizeof(*r), GFP_ATOMIC);

	if (!r)
		return;
	iwt_hold(id);
	r->id = id;
	r->ev = *ev;
	r->ev.private_data_len = min_t(u8, ev->private_data_len, U8_MAX);
	if (ev->private_data && r->ev.private_data_len) {
		memcpy(r->data, ev->private_data, r->ev.private_data_len);
		r->ev.private_data = r->data;
	}
	list_add_tail(&r->node, &iwt_reports);
	mod_timer(&iwt_timer, jiffies + 1);
}

/* The timer: each report to its ID, then the report's memory is gone. */
static void iwt_timer_fn(struct timer_list *t)
{
	struct iwt_report *r;
	unsigned long flags;

	for (;;) {
		spin_lock_irqsave(&iwt_lock, flags);
		r = list_first_entry_or_null(&iwt_reports, struct iwt_report,
					     node);
		if (r)
			list_del(&r->node);
		spin_unlock_irqrestore(&iwt_lock, flags);
		if (!r)
			return;
		r->id->event_handler(r->id, &r->ev);
		iwt_drop(r->id);
		memset(r->data, 0x5a, sizeof(r->data));
		kfree(r);
	}
}

static bool iwt_reports_done(void)
{
	unsigned long flags;
	bool done;

	spin_lock_irqsave(&iwt_lock, flags);
	done = list_empty(&iwt_reports);
	spin_unlock_irqrestore(&iwt_lock, flags);
	return done;
}

/* QPs the tests made, by number (iw_get_qp). */
static void iwt_qp_table(struct ib_qp *qp, bool add)
{
	unsigned long flags;
	int i;

	spin_lock_irqsave(&iwt_lock, flags);
	for (i = 0; i < IWT_MAX_QPS; i++) {
		if (add && !iwt_qps[i]) {
			iwt_qps[i] = qp;
			break;
		}
		if (!add && iwt_qps[i] == qp)
			iwt_qps[i] = NULL;
	}
	spin_unlock_irqrestore(&iwt_lock, flags);
}

static struct ib_qp *iwt_get_qp(struct ib_device *dev, int qpn)
{
	struct ib_qp *qp = NULL;
	unsigned long flags;
	int i;

	spin_lock_irqsave(&iwt_lock, flags);
	for (i = 0; i < IWT_MAX_QPS; i++)
		if (iwt_qps[i] && iwt_qps[i]->device == dev &&
		    iwt_qps[i]->qp_num == qpn)
			qp = iwt_qps[i];
	spin_unlock_irqrestore(&iwt_lock, flags);
	return qp;
}

static void iwt_qp_get(struct ib_qp *qp)
{
	atomic_inc(&iwt_qp_refs);
}

static void iwt_qp_put(struct ib_qp *qp)
{
	atomic_dec(&iwt_qp_refs);
}

static void iwt_qp_state(struct ib_qp *ibqp, enum ib_qp_state s)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;

	spin_lock_irqsave(&qp->lock, flags);
	qp->state = s;
	spin_unlock_irqrestore(&qp->lock, flags);
}

static u16 iwt_port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static bool iwt_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return !((const struct sockaddr_in *)ss)->sin_addr.s_addr;
	return ipv6_addr_any(&((const struct sockaddr_in6 *)ss)->sin6_addr);
}

static bool iwt_same_ip(const struct sockaddr_storage *a,
			const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

static void iwt_v4mapped(struct sockaddr_storage *ss)
{
	struct sockaddr_in in = *(struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	s6->sin6_family = AF_INET6;
	s6->sin6_port = in.sin_port;
	ipv6_addr_set_v4mapped(in.sin_addr.s_addr, &s6->sin6_addr);
}

/* The listener a connect to @to reaches; iwt_lock held. */
static struct iwt_listener *iwt_find_listener(const struct sockaddr_storage *to)
{
	const struct sockaddr_storage *la;
	struct iwt_listener *l;

	list_for_each_entry(l, &iwt_listeners, node) {
		la = &l->id->m_local_addr;
		if (iwt_port_of(la) != iwt_port_of(to))
			continue;
		if (la->ss_family == to->ss_family &&
		    (iwt_any(la) || iwt_same_ip(la, to)))
			return l;
		if (la->ss_family == AF_INET6 && to->ss_family == AF_INET &&
		    iwt_any(la) && !l->id->afonly)
			return l;
	}
	return NULL;
}

static int iwt_create_listen(struct iw_cm_id *id, int backlog)
{
	struct iwt_listener *l = kzalloc(sizeof(*l), GFP_KERNEL);
	unsigned long flags;

	if (!l)
		return -ENOMEM;
	l->id = id;
	iwt_hold(id);
	spin_lock_irqsave(&iwt_lock, flags);
	list_add_tail(&l->node, &iwt_listeners);
	spin_unlock_irqrestore(&iwt_lock, flags);
	return 0;
}

static int iwt_destroy_listen(struct iw_cm_id *id)
{
	struct iwt_listener *l, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&iwt_lock, flags);
	list_for_each_entry(l, &iwt_listeners, node) {
		if (l->id == id) {
			found = l;
			list_del(&l->node);
			break;
		}
	}
	spin_unlock_irqrestore(&iwt_lock, flags);
	if (!found)
		return -EINVAL;
	iwt_drop(id);
	kfree(found);
	return 0;
}

static unsigned int iwt_nlisteners(void)
{
	struct iwt_listener *l;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&iwt_lock, flags);
	list_for_each_entry(l, &iwt_listeners, node)
		n++;
	spin_unlock_irqrestore(&iwt_lock, flags);
	return n;
}

/* What a connect to a port without a listener gets. */
static int iwt_refusal(const struct sockaddr_storage *to)
{
	switch (iwt_port_of(to)) {
	case IWT_PORT_SILENT:
		return -ETIMEDOUT;
	case IWT_PORT_BROKEN:
		return -EHOSTUNREACH;
	default:
		return -ECONNREFUSED;
	}
}

static int iwt_connect(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct iw_cm_event ev = { .event = IW_CM_EVENT_CONNECT_REPLY };
	struct ib_qp *qp = iwt_get_qp(id->device, p->qpn);
	struct iwt_listener *l;
	struct iwt_conn *c;
	unsigned long flags;

	if (!qp)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	spin_lock_irqsave(&iwt_lock, flags);
	l = iwt_find_listener(&id->m_remote_addr);
	if (!l) {
		ev.status = iwt_refusal(&id->m_remote_addr);
		iwt_report(id, &ev);
		spin_unlock_irqrestore(&iwt_lock, flags);
		kfree(c);
		return 0;
	}
	c->active = id;
	iwt_hold(id);
	c->aqp = qp;
	c->laddr = id->m_remote_addr;
	c->raddr = id->m_local_addr;
	if (l->id->m_local_addr.ss_family == AF_INET6 &&
	    c->laddr.ss_family == AF_INET) {
		iwt_v4mapped(&c->laddr);
		iwt_v4mapped(&c->raddr);
	}
	list_add_tail(&c->node, &iwt_conns);
	ev = (struct iw_cm_event) {
		.event = IW_CM_EVENT_CONNECT_REQUEST,
		.local_addr = c->laddr,
		.remote_addr = c->raddr,
		.private_data = (void *)p->private_data,
		.private_data_len = p->private_data_len,
		.provider_data = c,
		.ord = p->ord,
		.ird = p->ird,
	};
	iwt_report(l->id, &ev);
	spin_unlock_irqrestore(&iwt_lock, flags);
	return 0;
}

static int iwt_accept(struct iw_cm_id *id, struct iw_cm_conn_param *p)
{
	struct ib_qp *qp = iwt_get_qp(id->device, p->qpn);
	struct iwt_conn *c = id->provider_data;
	struct iw_cm_event est = { .event = IW_CM_EVENT_ESTABLISHED };
	struct iw_cm_event rep = {
		.event = IW_CM_EVENT_CONNECT_REPLY,
		.private_data = (void *)p->private_data,
		.private_data_len = p->private_data_len,
		.ord = p->ord,
		.ird = p->ird,
	};
	unsigned long flags;

	if (!qp)
		return -EINVAL;
	spin_lock_irqsave(&iwt_lock, flags);
	if (!c->active) {
		/* the active side gave up: the request is gone */
		list_del(&c->node);
		spin_unlock_irqrestore(&iwt_lock, flags);
		kfree(c);
		return -ECONNRESET;
	}
	c->passive = id;
	iwt_hold(id);
	c->pqp = qp;
	c->established = true;
	iwt_qp_state(c->aqp, IB_QPS_RTS);
	iwt_qp_state(qp, IB_QPS_RTS);
	est.local_addr = c->laddr;
	est.remote_addr = c->raddr;
	rep.local_addr = c->raddr;
	rep.remote_addr = c->laddr;
	iwt_report(id, &est);
	iwt_report(c->active, &rep);
	spin_unlock_irqrestore(&iwt_lock, flags);
	return 0;
}

static int iwt_reject(struct iw_cm_id *id, const void *pdata, u8 len)
{
	struct iw_cm_event rep = {
		.event = IW_CM_EVENT_CONNECT_REPLY,
		.status = -ECONNREFUSED,
		.private_data = (void *)pdata,
		.private_data_len = len,
	};
	struct iwt_conn *c = id->provider_data;
	struct iw_cm_id *active;
	unsigned long flags;

	spin_lock_irqsave(&iwt_lock, flags);
	list_del(&c->node);
	active = c->active;
	if (active)
		iwt_report(active, &rep);
	spin_unlock_irqrestore(&iwt_lock, flags);
	if (active)
		iwt_drop(active);
	kfree(c);
	return 0;
}

static void iwt_tell(struct iw_cm_id *id, enum iw_cm_event_type type,
		     int status)
{
	struct iw_cm_event ev = { .event = type, .status = status };

	id->event_handler(id, &ev);
}

/*
 * @qp went to SQD (@graceful) or ERR.  An established connection closes:
 * the peer hears DISCONNECT first if it was graceful, both ends CLOSE,
 * from inside the op.  An active side still waiting for an answer gives
 * up with CONNECT_REPLY -ECONNRESET.
 */
static void iwt_qp_ends(struct ib_qp *qp, bool graceful)
{
	struct iw_cm_id *quit = NULL, *peer;
	struct iwt_conn *c, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&iwt_lock, flags);
	list_for_each_entry(c, &iwt_conns, node) {
		if (c->aqp == qp || (c->established && c->pqp == qp)) {
			found = c;
			break;
		}
	}
	if (found && !found->established) {
		quit = found->active;
		found->active = NULL;
		found = NULL;
	} else if (found) {
		list_del(&found->node);
	}
	spin_unlock_irqrestore(&iwt_lock, flags);
	if (quit) {
		iwt_tell(quit, IW_CM_EVENT_CONNECT_REPLY, -ECONNRESET);
		iwt_drop(quit);
	}
	if (!found)
		return;
	peer = qp == found->aqp ? found->passive : found->active;
	iwt_qp_state(found->aqp, IB_QPS_ERR);
	iwt_qp_state(found->pqp, IB_QPS_ERR);
	if (graceful)
		iwt_tell(peer, IW_CM_EVENT_DISCONNECT, 0);
	iwt_tell(found->active, IW_CM_EVENT_CLOSE, 0);
	iwt_tell(found->passive, IW_CM_EVENT_CLOSE, 0);
	iwt_drop(found->active);
	iwt_drop(found->passive);
	kfree(found);
}

/* An iWARP QP takes its state, access flags and port, nothing else. */
static int iwt_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;

	if (mask & ~(IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PORT))
		return -EINVAL;
	spin_lock_irqsave(&qp->lock, flags);
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->attr.qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PORT)
		qp->attr.port_num = attr->port_num;
	if (mask & IB_QP_STATE)
		qp->state = attr->qp_state;
	spin_unlock_irqrestore(&qp->lock, flags);
	if ((mask & IB_QP_STATE) &&
	    (attr->qp_state == IB_QPS_SQD || attr->qp_state == IB_QPS_ERR))
		iwt_qp_ends(ibqp, attr->qp_state == IB_QPS_SQD);
	return 0;
}

static int iwt_port_immutable(struct ib_device *dev, u32 port,
			      struct ib_port_immutable *imm)
{
	imm->pkey_tbl_len = 1;
	imm->gid_tbl_len = 1;
	imm->core_cap_flags = RDMA_CORE_PORT_IWARP;
	imm->max_mad_size = 0;
	return 0;
}

/* GID 0: the netdev's MAC in the first six bytes. */
static int iwt_query_gid(struct ib_device *dev, u32 port, int index,
			 union ib_gid *gid)
{
	struct net_device *ndev = to_mock_dev(dev)->ndev;

	if (index)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, ndev->dev_addr, ETH_ALEN);
	return 0;
}

/*
 * What turns a mock device into one of iwt's, laid over rdma_mock's ops:
 * an iWARP port (GID 0 from the MAC, QPs with iWARP attributes), and the
 * provider's side of iw_cm.
 */
static const struct ib_device_ops iwt_port_ops = {
	.get_port_immutable = iwt_port_immutable,
	.query_gid = iwt_query_gid,
	.modify_qp = iwt_modify_qp,
};

static const struct ib_device_ops iwt_cm_ops[] = {
	{ .iw_create_listen = iwt_create_listen,
	  .iw_destroy_listen = iwt_destroy_listen },
	{ .iw_connect = iwt_connect, .iw_accept = iwt_accept,
	  .iw_reject = iwt_reject },
	{ .iw_get_qp = iwt_get_qp, .iw_add_ref = iwt_qp_get,
	  .iw_rem_ref = iwt_qp_put },
};

static struct rdma_mock_dev *iwt_dev_create(struct net_device *ndev)
{
	struct rdma_mock_dev *md = rdma_mock_alloc(ndev, NULL);
	unsigned int i;
	int ret;

	if (IS_ERR(md))
		return md;
	md->ibdev.node_type = RDMA_NODE_RNIC;
	ib_set_device_ops(&md->ibdev, &iwt_port_ops);
	for (i = 0; i < ARRAY_SIZE(iwt_cm_ops); i++)
		ib_set_device_ops(&md->ibdev, &iwt_cm_ops[i]);
	ret = rdma_mock_register(md, "iwt%d");
	if (ret) {
		rdma_mock_free(md);
		return ERR_PTR(ret);
	}
	return md;
}

/* Nothing left with the provider: no report, reference or connection. */
static void iwt_expect_idle(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(iwt_reports_done(), IWT_WAIT_MS),
		       "reports still queued");
	RDMA_KT_EQ(ctx, atomic_read(&iwt_id_refs), 0);
	RDMA_KT_EQ(ctx, atomic_read(&iwt_qp_refs), 0);
	RDMA_KT_EQ(ctx, iwt_nlisteners(), 0);
	RDMA_KT_EXPECT(ctx, list_empty(&iwt_conns), "connections left");
}

/* ---- rdma_cm ends --------------------------------------------------------- */

/* What a listener does with a request: the last one leaves it unanswered. */
enum iwt_mode { IWT_ACCEPT, IWT_REJECT, IWT_FAIL, IWT_DEFER };

/* One RDMA CM ID and what it was told. */
struct iwt_end {
	struct rdma_cm_id	*id;
	spinlock_t		lock;		/* the log */
	wait_queue_head_t	wq;
	int			ev[IWT_EVENTS];
	int			status[IWT_EVENTS];
	int			nev;
	bool			atomic_seen;	/* a handler ran outside a task */
	/* of the latest event with connection parameters */
	u8			pdata[U8_MAX];
	u8			pdata_len;
	u8			initiator_depth;
	u8			responder_resources;
	const void		*rej_data;	/* rdma_consumer_reject_data() */
	u8			rej_len;
	/* a listener's */
	enum iwt_mode		mode;
	struct iwt_end		*child;		/* takes the next request */
	bool			has_qp;
};

static struct iwt_end *iwt_end_new(void)
{
	struct iwt_end *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (e) {
		spin_lock_init(&e->lock);
		init_waitqueue_head(&e->wq);
	}
	return e;
}

/* A QP of @e's ID, known to iwt by number. */
static int iwt_end_qp(struct iwt_end *e)
{
	struct ib_qp_init_attr init = {
		.send_cq = iwt_cq,
		.recv_cq = iwt_cq,
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int ret = rdma_create_qp(e->id, iwt_pd, &init);

	if (ret)
		return ret;
	e->has_qp = true;
	iwt_qp_table(e->id->qp, true);
	return 0;
}

/*
 * The ID first: destroying it waits until iw_cm has let the QP go (a
 * real provider's destroy_qp waits for that instead; the mock's frees).
 */
static void iwt_end_free(struct iwt_end *e)
{
	struct ib_qp *qp;

	if (!e)
		return;
	iwt_end_free(e->child);
	qp = e->has_qp ? e->id->qp : NULL;
	if (e->id)
		rdma_destroy_id(e->id);
	if (qp) {
		iwt_qp_table(qp, false);
		ib_destroy_qp(qp);
	}
	kfree(e);
}

static void iwt_log(struct iwt_end *e, const struct rdma_cm_event *ev)
{
	const struct rdma_conn_param *c = &ev->param.conn;
	bool atomic = !in_task() || irqs_disabled();
	unsigned long flags;

	spin_lock_irqsave(&e->lock, flags);
	if (e->nev < IWT_EVENTS) {
		e->ev[e->nev] = ev->event;
		e->status[e->nev] = ev->status;
		e->nev++;
	}
	if (atomic)
		e->atomic_seen = true;
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST ||
	    ev->event == RDMA_CM_EVENT_ESTABLISHED ||
	    ev->event == RDMA_CM_EVENT_REJECTED) {
		e->pdata_len = c->private_data ? c->private_data_len : 0;
		if (e->pdata_len)
			memcpy(e->pdata, c->private_data, e->pdata_len);
		e->initiator_depth = c->initiator_depth;
		e->responder_resources = c->responder_resources;
	}
	if (ev->event == RDMA_CM_EVENT_REJECTED)
		e->rej_data = rdma_consumer_reject_data(e->id,
							(struct rdma_cm_event *)ev,
							&e->rej_len);
	spin_unlock_irqrestore(&e->lock, flags);
	wake_up(&e->wq);
}

/* A listener's answer to the request its child got, in the handler. */
static int iwt_answer(struct iwt_end *l, struct iwt_end *c)
{
	struct rdma_conn_param p = {
		.private_data = IWT_REP_DATA,
		.private_data_len = sizeof(IWT_REP_DATA),
		.initiator_depth = 5,
		.responder_resources = 6,
	};

	switch (l->mode) {
	case IWT_FAIL:
		c->id = NULL;	/* the CM destroys it */
		return -EINVAL;
	case IWT_REJECT:
		return rdma_reject(c->id, IWT_REJ_DATA, sizeof(IWT_REJ_DATA),
				   IB_CM_REJ_CONSUMER_DEFINED);
	case IWT_DEFER:
		return iwt_end_qp(c);
	case IWT_ACCEPT:
		break;
	}
	if (iwt_end_qp(c))
		return 0;	/* the case sees no ESTABLISHED */
	return rdma_accept(c->id, &p);
}

static int iwt_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct iwt_end *e = id->context, *c;

	if (ev->event != RDMA_CM_EVENT_CONNECT_REQUEST) {
		iwt_log(e, ev);
		return 0;
	}
	c = e->child;
	if (!c)
		return -ENOMEM;
	c->id = id;
	id->context = c;
	iwt_log(c, ev);
	return iwt_answer(e, c);
}

/* Wait for @e's event number @n (from 0); its type, or -1 on timeout. */
static int iwt_event(struct iwt_end *e, int n)
{
	if (!wait_event_timeout(e->wq, READ_ONCE(e->nev) > n,
				msecs_to_jiffies(IWT_WAIT_MS)))
		return -1;
	return e->ev[n];
}

static struct iwt_end *iwt_id(struct rdma_ktap_ctx *ctx)
{
	struct iwt_end *e = iwt_end_new();

	if (!RDMA_KT_EXPECT(ctx, e, "no memory"))
		return NULL;
	e->id = rdma_create_id(&init_net, iwt_cm_handler, e, RDMA_PS_TCP,
			       IB_QPT_RC);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(e->id), "rdma_create_id: %ld",
			   PTR_ERR(e->id)))
		return e;
	e->id = NULL;
	kfree(e);
	return NULL;
}

/* A listener on @addr whose next request goes to a fresh child. */
static struct iwt_end *iwt_listener(struct rdma_ktap_ctx *ctx,
				    struct sockaddr *addr, enum iwt_mode mode)
{
	struct iwt_end *l = iwt_id(ctx);
	int ret;

	if (!l)
		return NULL;
	l->mode = mode;
	l->child = iwt_end_new();
	ret = l->child ? rdma_bind_addr(l->id, addr) : -ENOMEM;
	if (!ret)
		ret = rdma_listen(l->id, 0);
	if (RDMA_KT_EXPECT(ctx, !ret, "listen on %pISpc: %d", addr, ret))
		return l;
	iwt_end_free(l);
	return NULL;
}

/* An ID resolved to @dst, with a QP; NULL (and a failure) otherwise. */
static struct iwt_end *iwt_client(struct rdma_ktap_ctx *ctx,
				  struct sockaddr *dst)
{
	struct iwt_end *a = iwt_id(ctx);
	int ret;

	if (!a)
		return NULL;
	ret = rdma_resolve_addr(a->id, NULL, dst, IWT_WAIT_MS);
	if (!RDMA_KT_EQ(ctx, ret, 0) ||
	    !RDMA_KT_EQ(ctx, iwt_event(a, 0), RDMA_CM_EVENT_ADDR_RESOLVED))
		goto err;
	RDMA_KT_EXPECT(ctx, a->id->device == &iwt_md->ibdev,
		       "resolved to %s", a->id->device ?
		       dev_name(&a->id->device->dev) : "no device");
	RDMA_KT_EQ(ctx, a->id->port_num, 1);
	ret = rdma_resolve_route(a->id, IWT_WAIT_MS);
	if (!RDMA_KT_EQ(ctx, ret, 0) ||
	    !RDMA_KT_EQ(ctx, iwt_event(a, 1), RDMA_CM_EVENT_ROUTE_RESOLVED))
		goto err;
	RDMA_KT_EQ(ctx, a->id->route.num_pri_alt_paths, 0);
	ret = iwt_end_qp(a);
	if (RDMA_KT_EQ(ctx, ret, 0))
		return a;
err:
	iwt_end_free(a);
	return NULL;
}

static int iwt_connect_to(struct iwt_end *a)
{
	struct rdma_conn_param p = {
		.private_data = IWT_REQ_DATA,
		.private_data_len = sizeof(IWT_REQ_DATA),
		.initiator_depth = 3,
		.responder_resources = 4,
	};

	return rdma_connect(a->id, &p);
}

static void iwt_sin(struct sockaddr_in *sin, __be32 addr, u16 port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = addr;
	sin->sin_port = htons(port);
}

static void iwt_sin6(struct sockaddr_in6 *sin6, const struct in6_addr *addr,
		     u16 port)
{
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = *addr;
	sin6->sin6_port = htons(port);
}

static u32 iwt_access(struct ib_qp *qp)
{
	return to_mock_qp(qp)->attr.qp_access_flags;
}

static enum ib_qp_state iwt_state(struct ib_qp *qp)
{
	return to_mock_qp(qp)->state;
}

/* ---- the device as the core sees it -------------------------------------- */

/* An RNIC with an iWARP port: no IB CM or MADs, GID 0 read from it. */
static void iwarp_device(struct rdma_ktap_ctx *ctx)
{
	struct ib_device *dev = &iwt_md->ibdev;
	union ib_gid gid, want = {};
	int ret;

	RDMA_KT_EQ(ctx, rdma_node_get_transport(dev->node_type),
		   RDMA_TRANSPORT_IWARP);
	RDMA_KT_EXPECT(ctx, rdma_protocol_iwarp(dev, 1) &&
		       rdma_cap_iw_cm(dev, 1) && !rdma_cap_ib_cm(dev, 1) &&
		       !rdma_cap_ib_mad(dev, 1), "port 1 capabilities");
	memcpy(want.raw, iwt_mac, ETH_ALEN);
	ret = rdma_query_gid(dev, 1, 0, &gid);
	RDMA_KT_EQ(ctx, ret, 0);
	RDMA_KT_EXPECT(ctx, !ret && !memcmp(&gid, &want, sizeof(gid)),
		       "GID 0 %pI6", gid.raw);
}

/* ---- iw_cm on its own ----------------------------------------------------- */

static int iwt_raw_handler(struct iw_cm_id *id, struct iw_cm_event *ev)
{
	return 0;
}

static void iwcm_calls(struct rdma_ktap_ctx *ctx)
{
	struct iw_cm_conn_param p = { .qpn = 0xffffff };
	struct ib_qp_attr attr = {};
	struct rdma_mock_dev *roce;
	struct sockaddr_in *sin;
	struct iw_cm_id *id;
	int mask = -1;

	roce = rdma_mock_alloc(NULL, NULL);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(roce), "mock: %ld", PTR_ERR(roce))) {
		id = iw_create_cm_id(&roce->ibdev, iwt_raw_handler, NULL);
		RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(id), -EOPNOTSUPP);
		rdma_mock_free(roce);
	}

	id = iw_create_cm_id(&iwt_md->ibdev, iwt_raw_handler, ctx);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(id), "create: %ld", PTR_ERR(id)))
		return;
	RDMA_KT_EXPECT(ctx, id->context == ctx && id->event_handler &&
		       id->add_ref && id->rem_ref, "ID not set up");
	attr.qp_state = IB_QPS_INIT;
	RDMA_KT_EQ(ctx, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	RDMA_KT_EQ(ctx, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	RDMA_KT_EQ(ctx, attr.qp_access_flags,
		   IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	attr.qp_state = IB_QPS_RTR;
	RDMA_KT_EQ(ctx, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	RDMA_KT_EQ(ctx, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS);
	attr.qp_state = IB_QPS_RTS;
	RDMA_KT_EQ(ctx, iw_cm_init_qp_attr(id, &attr, &mask), 0);
	RDMA_KT_EQ(ctx, mask, 0);
	attr.qp_state = IB_QPS_SQD;
	RDMA_KT_EQ(ctx, iw_cm_init_qp_attr(id, &attr, &mask), -EINVAL);

	/* IDLE: nothing to answer, disconnect or connect without a QP */
	RDMA_KT_EQ(ctx, iw_cm_accept(id, &p), -EINVAL);
	RDMA_KT_EQ(ctx, iw_cm_reject(id, NULL, 0), -EINVAL);
	RDMA_KT_EQ(ctx, iw_cm_disconnect(id, 0), 0);
	RDMA_KT_EQ(ctx, iw_cm_connect(id, &p), -EINVAL);
	RDMA_KT_EQ(ctx, atomic_read(&iwt_qp_refs), 0);

	/* still IDLE: it may listen, once */
	sin = (struct sockaddr_in *)&id->local_addr;
	iwt_sin(sin, IWT_ADDR4, IWT_PORT + 1);
	RDMA_KT_EQ(ctx, iw_cm_listen(id, 0), 0);
	RDMA_KT_EQ(ctx, iwt_nlisteners(), 1);
	RDMA_KT_EXPECT(ctx, !memcmp(&id->m_local_addr, &id->local_addr,
				    sizeof(id->local_addr)) && !id->mapped,
		       "the provider's address is not the user's");
	RDMA_KT_EQ(ctx, iw_cm_listen(id, 0), -EINVAL);
	RDMA_KT_EQ(ctx, iw_cm_disconnect(id, 0), -EINVAL);
	attr.qp_state = IB_QPS_INIT;
	RDMA_KT_EQ(ctx, iw_cm_init_qp_attr(id, &attr, &mask), -EINVAL);
	iw_destroy_cm_id(id);
	iwt_expect_idle(ctx);

	RDMA_KT_EXPECT(ctx, !strcmp(iwcm_reject_msg(-ECONNREFUSED),
				    "refused by remote application") &&
		       !strcmp(iwcm_reject_msg(-ECONNRESET),
			       "reset by remote host") &&
		       !strcmp(iwcm_reject_msg(-ETIMEDOUT), "setup timeout") &&
		       !strcmp(iwcm_reject_msg(-EIO), "unrecognized reason"),
		       "iwcm_reject_msg() names");
}

/* ---- rdma_cm over iw_cm --------------------------------------------------- */

/*
 * A connection between @dst's listener (bound to @bind) and a client,
 * with what each event carries, the QPs' attributes, and its end by
 * rdma_disconnect() (@graceful) or by destroying the client.
 */
static void iwt_connection(struct rdma_ktap_ctx *ctx, struct sockaddr *bind,
			   struct sockaddr *dst, bool graceful)
{
	struct iwt_end *l, *a, *c;
	union ib_gid sgid, gid0 = {};
	struct ib_qp_attr attr;
	int mask;

	l = iwt_listener(ctx, bind, IWT_ACCEPT);
	if (!l)
		return;
	RDMA_KT_EQ(ctx, iwt_nlisteners(), 1);
	a = iwt_client(ctx, dst);
	if (!a)
		goto out;
	RDMA_KT_EQ(ctx, iwt_state(a->id->qp), IB_QPS_INIT);
	RDMA_KT_EQ(ctx, iwt_access(a->id->qp), 0);
	attr.qp_state = IB_QPS_INIT;
	RDMA_KT_EQ(ctx, rdma_init_qp_attr(a->id, &attr, &mask), 0);
	RDMA_KT_EQ(ctx, mask, IB_QP_STATE | IB_QP_ACCESS_FLAGS | IB_QP_PORT);
	attr.qp_state = IB_QPS_RTR;
	RDMA_KT_EQ(ctx, rdma_init_qp_attr(a->id, &attr, &mask), -EINVAL);
	rdma_read_gids(a->id, &sgid, NULL);
	memcpy(gid0.raw, iwt_mac, ETH_ALEN);
	RDMA_KT_EXPECT(ctx, !memcmp(&sgid, &gid0, sizeof(sgid)),
		       "source GID %pI6", sgid.raw);
	RDMA_KT_EXPECT(ctx, !rdma_iw_cm_id(a->id), "iw_cm ID before connect");

	RDMA_KT_EQ(ctx, iwt_connect_to(a), 0);
	RDMA_KT_EXPECT(ctx, rdma_iw_cm_id(a->id), "no iw_cm ID");
	RDMA_KT_EQ(ctx, iwt_access(a->id->qp),
		   IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	c = l->child;
	if (!RDMA_KT_EQ(ctx, iwt_event(c, 0), RDMA_CM_EVENT_CONNECT_REQUEST))
		goto out;
	RDMA_KT_EQ(ctx, c->pdata_len, sizeof(IWT_REQ_DATA));
	RDMA_KT_EXPECT(ctx, !memcmp(c->pdata, IWT_REQ_DATA,
				    sizeof(IWT_REQ_DATA)), "request data");
	/* the client's ORD 3 and IRD 4, in the server's view */
	RDMA_KT_EQ(ctx, c->responder_resources, 3);
	RDMA_KT_EQ(ctx, c->initiator_depth, 4);
	RDMA_KT_EXPECT(ctx, c->id && c->id->device == &iwt_md->ibdev &&
		       c->id->port_num == 1, "new ID not on the device");
	RDMA_KT_EXPECT(ctx, c->id &&
		       rdma_addr_size((struct sockaddr *)&c->id->route.addr.dst_addr) &&
		       !memcmp(&c->id->route.addr.dst_addr, &a->id->route.addr.src_addr,
			       rdma_addr_size((struct sockaddr *)&a->id->route.addr.src_addr)),
		       "new ID's peer %pISpc, client %pISpc",
		       &c->id->route.addr.dst_addr, &a->id->route.addr.src_addr);
	RDMA_KT_EXPECT(ctx, c->id &&
		       !memcmp(&c->id->route.addr.src_addr, &a->id->route.addr.dst_addr,
			       rdma_addr_size((struct sockaddr *)&a->id->route.addr.dst_addr)),
		       "new ID's address %pISpc, client's peer %pISpc",
		       &c->id->route.addr.src_addr, &a->id->route.addr.dst_addr);

	if (!RDMA_KT_EQ(ctx, iwt_event(a, 2), RDMA_CM_EVENT_ESTABLISHED) ||
	    !RDMA_KT_EQ(ctx, iwt_event(c, 1), RDMA_CM_EVENT_ESTABLISHED))
		goto out;
	RDMA_KT_EQ(ctx, a->pdata_len, sizeof(IWT_REP_DATA));
	RDMA_KT_EXPECT(ctx, !memcmp(a->pdata, IWT_REP_DATA,
				    sizeof(IWT_REP_DATA)), "reply data");
	/* the server's ORD 5 and IRD 6, in the client's view */
	RDMA_KT_EQ(ctx, a->responder_resources, 5);
	RDMA_KT_EQ(ctx, a->initiator_depth, 6);
	RDMA_KT_EQ(ctx, iwt_access(c->id->qp),
		   IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_READ);
	RDMA_KT_EQ(ctx, iwt_state(c->id->qp), IB_QPS_RTS);
	RDMA_KT_EQ(ctx, iwt_state(a->id->qp), IB_QPS_RTS);
	attr.qp_state = IB_QPS_RTS;
	RDMA_KT_EQ(ctx, rdma_init_qp_attr(c->id, &attr, &mask), 0);
	RDMA_KT_EQ(ctx, mask, IB_QP_PORT);
	RDMA_KT_EQ(ctx, rdma_notify(c->id, IB_EVENT_COMM_EST), 0);
	RDMA_KT_EQ(ctx, atomic_read(&iwt_qp_refs), 2);

	if (graceful) {
		RDMA_KT_EQ(ctx, rdma_disconnect(a->id), 0);
		RDMA_KT_EQ(ctx, iwt_event(a, 3), RDMA_CM_EVENT_DISCONNECTED);
	} else {
		RDMA_KT_EXPECT(ctx, !a->atomic_seen,
			       "a handler ran outside a task");
		iwt_end_free(a);
		a = NULL;
	}
	RDMA_KT_EQ(ctx, iwt_event(c, 2), RDMA_CM_EVENT_DISCONNECTED);
	RDMA_KT_EQ(ctx, rdma_disconnect(c->id), 0);
	RDMA_KT_EXPECT(ctx, (!a || !a->atomic_seen) && !c->atomic_seen,
		       "a handler ran outside a task");
out:
	iwt_end_free(a);
	iwt_end_free(l);
	iwt_expect_idle(ctx);
}

static void cma_ipv4(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_in any, dst;

	iwt_sin(&any, 0, IWT_PORT);
	iwt_sin(&dst, IWT_ADDR4, IWT_PORT);
	iwt_connection(ctx, (struct sockaddr *)&any, (struct sockaddr *)&dst,
		       true);
}

static void cma_ipv6_destroyed(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_in6 bind, dst;

	iwt_sin6(&bind, &iwt_addr6, IWT_PORT);
	iwt_sin6(&dst, &iwt_addr6, IWT_PORT);
	iwt_connection(ctx, (struct sockaddr *)&bind, (struct sockaddr *)&dst,
		       false);
}

/* IPv4 to an IPv6 wildcard listener: the new ID's addresses are IPv4. */
static void cma_ipv4_on_ipv6_listener(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_in6 any;
	struct sockaddr_in dst;
	struct iwt_end *l, *a;
	int ret;

	l = iwt_id(ctx);
	if (!l)
		return;
	l->child = iwt_end_new();
	iwt_sin6(&any, &in6addr_any, IWT_PORT);
	ret = rdma_set_afonly(l->id, 0);
	if (!ret)
		ret = rdma_bind_addr(l->id, (struct sockaddr *)&any);
	if (!ret)
		ret = rdma_listen(l->id, 0);
	if (!RDMA_KT_EQ(ctx, ret, 0) ||
	    !RDMA_KT_EXPECT(ctx, l->child, "no memory"))
		goto out_l;
	iwt_sin(&dst, IWT_ADDR4, IWT_PORT);
	a = iwt_client(ctx, (struct sockaddr *)&dst);
	if (!a)
		goto out_l;
	RDMA_KT_EQ(ctx, iwt_connect_to(a), 0);
	if (RDMA_KT_EQ(ctx, iwt_event(l->child, 0),
		       RDMA_CM_EVENT_CONNECT_REQUEST) &&
	    RDMA_KT_EXPECT(ctx, l->child->id, "no new ID")) {
		RDMA_KT_EQ(ctx, l->child->id->route.addr.src_addr.ss_family,
			   AF_INET);
		RDMA_KT_EQ(ctx, l->child->id->route.addr.dst_addr.ss_family,
			   AF_INET);
	}
	RDMA_KT_EQ(ctx, iwt_event(a, 2), RDMA_CM_EVENT_ESTABLISHED);
	iwt_end_free(a);
out_l:
	iwt_end_free(l);
	iwt_expect_idle(ctx);
}

/* A refusal in the handler, then one by a handler's non-zero return. */
static void cma_refused(struct rdma_ktap_ctx *ctx)
{
	static const enum iwt_mode modes[] = { IWT_REJECT, IWT_FAIL };
	struct sockaddr_in any, dst;
	struct iwt_end *l, *a;
	unsigned int i;

	iwt_sin(&any, 0, IWT_PORT);
	iwt_sin(&dst, IWT_ADDR4, IWT_PORT);
	for (i = 0; i < ARRAY_SIZE(modes); i++) {
		l = iwt_listener(ctx, (struct sockaddr *)&any, modes[i]);
		if (!l)
			return;
		a = iwt_client(ctx, (struct sockaddr *)&dst);
		if (a && RDMA_KT_EQ(ctx, iwt_connect_to(a), 0) &&
		    RDMA_KT_EQ(ctx, iwt_event(a, 2), RDMA_CM_EVENT_REJECTED)) {
			RDMA_KT_EQ(ctx, a->status[2], -ECONNREFUSED);
			RDMA_KT_EXPECT(ctx, !strcmp(rdma_reject_msg(a->id, -ECONNREFUSED),
						    "refused by remote application"),
				       "reject message");
			if (modes[i] == IWT_REJECT) {
				RDMA_KT_EQ(ctx, a->rej_len, sizeof(IWT_REJ_DATA));
				RDMA_KT_EXPECT(ctx, a->rej_data &&
					       !memcmp(a->pdata, IWT_REJ_DATA,
						       sizeof(IWT_REJ_DATA)),
					       "refusal data");
			}
		}
		RDMA_KT_EQ(ctx, iwt_event(l->child, 0),
			   RDMA_CM_EVENT_CONNECT_REQUEST);
		iwt_end_free(a);
		iwt_end_free(l);
		iwt_expect_idle(ctx);
	}
}

/* Connects that fail: the CONNECT_REPLY status picks the event. */
static void cma_connect_errors(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		u16	port;
		int	event;
		int	status;
	} cases[] = {
		{ IWT_PORT_CLOSED, RDMA_CM_EVENT_REJECTED, -ECONNREFUSED },
		{ IWT_PORT_SILENT, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT },
		{ IWT_PORT_BROKEN, RDMA_CM_EVENT_CONNECT_ERROR, -EHOSTUNREACH },
	};
	struct sockaddr_in dst;
	struct iwt_end *a;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		iwt_sin(&dst, IWT_ADDR4, cases[i].port);
		a = iwt_client(ctx, (struct sockaddr *)&dst);
		if (!a)
			return;
		if (RDMA_KT_EQ(ctx, iwt_connect_to(a), 0) &&
		    RDMA_KT_EQ(ctx, iwt_event(a, 2), cases[i].event))
			RDMA_KT_EQ(ctx, a->status[2], cases[i].status);
		/* the QP was let go: the ID may go at once */
		RDMA_KT_EQ(ctx, atomic_read(&iwt_qp_refs), 0);
		iwt_end_free(a);
		iwt_expect_idle(ctx);
	}
}

/*
 * A client destroyed before the server answers: the provider ends the
 * attempt, the server's accept then fails and its QP goes to ERR.
 */
static void cma_client_gives_up(struct rdma_ktap_ctx *ctx)
{
	struct rdma_conn_param p = { .initiator_depth = 1,
				     .responder_resources = 1 };
	struct sockaddr_in any, dst;
	struct iwt_end *l, *a, *c;
	int ret;

	iwt_sin(&any, 0, IWT_PORT);
	iwt_sin(&dst, IWT_ADDR4, IWT_PORT);
	l = iwt_listener(ctx, (struct sockaddr *)&any, IWT_DEFER);
	if (!l)
		return;
	a = iwt_client(ctx, (struct sockaddr *)&dst);
	c = l->child;
	if (a && RDMA_KT_EQ(ctx, iwt_connect_to(a), 0) &&
	    RDMA_KT_EQ(ctx, iwt_event(c, 0), RDMA_CM_EVENT_CONNECT_REQUEST) &&
	    RDMA_KT_EXPECT(ctx, c->has_qp, "no QP on the new ID")) {
		iwt_end_free(a);
		a = NULL;
		RDMA_KT_EQ(ctx, atomic_read(&iwt_id_refs), 1);	/* the listener */
		rdma_lock_handler(c->id);
		ret = rdma_accept(c->id, &p);
		rdma_unlock_handler(c->id);
		RDMA_KT_EQ(ctx, ret, -ECONNRESET);
		RDMA_KT_EQ(ctx, iwt_state(c->id->qp), IB_QPS_ERR);
	}
	iwt_end_free(a);
	iwt_end_free(l);
	iwt_expect_idle(ctx);
}

/*
 * A wildcard listener listens on an iWARP device registered after it, and
 * stops there when the device goes; one bound to an address does not.
 */
static void cma_device_comes_and_goes(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_in any, own;
	struct net_device *ndev;
	struct rdma_mock_dev *md;
	struct iwt_end *l, *b;
	int ret;

	iwt_sin(&any, 0, IWT_PORT);
	iwt_sin(&own, IWT_ADDR4, IWT_PORT + 2);
	l = iwt_listener(ctx, (struct sockaddr *)&any, IWT_ACCEPT);
	b = iwt_listener(ctx, (struct sockaddr *)&own, IWT_ACCEPT);
	RDMA_KT_EQ(ctx, iwt_nlisteners(), 2);
	ndev = rdma_mock_netdev_create("iwcmt%d", iwt_mac2);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ndev), "netdev: %ld", PTR_ERR(ndev)))
		goto out;
	ret = rdma_mock_addr4(ndev, true, IWT_ADDR4_2, 24);
	RDMA_KT_EQ(ctx, ret, 0);
	md = iwt_dev_create(ndev);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(md), "device: %ld", PTR_ERR(md))) {
		RDMA_KT_EQ(ctx, iwt_nlisteners(), 3);
		rdma_mock_destroy(md);
		RDMA_KT_EQ(ctx, iwt_nlisteners(), 2);
	}
	rdma_mock_netdev_destroy(ndev);
out:
	iwt_end_free(b);
	iwt_end_free(l);
	iwt_expect_idle(ctx);
}

static const struct rdma_ktap_case iwcm_cases[] = {
	{ "iwarp_device", iwarp_device },
	{ "iwcm_calls", iwcm_calls },
	{ "cma_ipv4", cma_ipv4 },
	{ "cma_ipv6_destroyed", cma_ipv6_destroyed },
	{ "cma_ipv4_on_ipv6_listener", cma_ipv4_on_ipv6_listener },
	{ "cma_refused", cma_refused },
	{ "cma_connect_errors", cma_connect_errors },
	{ "cma_client_gives_up", cma_client_gives_up },
	{ "cma_device_comes_and_goes", cma_device_comes_and_goes },
};

static void iwt_teardown(void)
{
	if (!IS_ERR_OR_NULL(iwt_cq))
		ib_free_cq(iwt_cq);
	if (!IS_ERR_OR_NULL(iwt_pd))
		ib_dealloc_pd(iwt_pd);
	rdma_mock_destroy(iwt_md);
	rdma_mock_netdev_destroy(iwt_ndev);
	timer_shutdown_sync(&iwt_timer);
}

static int __init iwcm_test_init(void)
{
	int ret;

	timer_setup(&iwt_timer, iwt_timer_fn, 0);
	iwt_ndev = rdma_mock_netdev_create("iwcmt%d", iwt_mac);
	ret = PTR_ERR_OR_ZERO(iwt_ndev);
	if (!ret)
		ret = rdma_mock_addr4(iwt_ndev, true, IWT_ADDR4, 24) ?:
		      rdma_mock_addr6(iwt_ndev, true, &iwt_addr6, 64);
	if (!ret) {
		iwt_md = iwt_dev_create(iwt_ndev);
		ret = PTR_ERR_OR_ZERO(iwt_md);
	}
	if (!ret) {
		iwt_pd = ib_alloc_pd(&iwt_md->ibdev, 0);
		ret = PTR_ERR_OR_ZERO(iwt_pd);
	}
	if (!ret) {
		iwt_cq = ib_alloc_cq(&iwt_md->ibdev, NULL, 16, 0,
				     IB_POLL_DIRECT);
		ret = PTR_ERR_OR_ZERO(iwt_cq);
	}
	if (ret) {
		pr_err("rdma_iwcm_test: no iWARP test device: %d\n", ret);
		iwt_teardown();
		return ret;
	}
	rdma_ktap_run("rdma_iwcm", iwcm_cases, ARRAY_SIZE(iwcm_cases));
	return 0;
}

static void __exit iwcm_test_exit(void)
{
	iwt_teardown();
}

module_init(iwcm_test_init);
module_exit(iwcm_test_exit);

MODULE_DESCRIPTION("KTAP tests of iw_cm and of rdma_cm on iWARP ports");
MODULE_LICENSE("GPL");
