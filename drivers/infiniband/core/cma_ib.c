// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM connections over the InfiniBand CM (IB and RoCE ports): the
 * QP an ID owns and its transitions, connect (REQ or SIDR_REQ with the
 * RDMA CM header in front of the caller's private data), accept, reject,
 * disconnect, and the ib_cm events turned into RDMA CM events.  The
 * calls of <rdma/rdma_cm.h> on connections start here for iWARP ports
 * too, and hand over to cma_iw.c.
 */
#include <linux/slab.h>
#include <net/ip6_route.h>
#include <net/route.h>
#include <rdma/ib_cache.h>
#include "cma_hdr.h"
#include "cma_priv.h"

/* ---- the ID's QP -------------------------------------------------------- */

/**
 * cma_qp_to_err() - move an ID's QP, if it has one, to the error state
 * @p: the ID
 */
void cma_qp_to_err(struct rdma_id_private *p)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	mutex_lock(&p->qp_mutex);
	if (p->id.qp && ib_modify_qp(p->id.qp, &attr, IB_QP_STATE))
		dev_dbg(&p->id.device->dev, "rdma_cm: QP %u not moved to ERR\n",
			p->id.qp->qp_num);
	mutex_unlock(&p->qp_mutex);
}

/* INIT attributes of a QP before the IB CM knows its connection. */
static int cma_init_attr_init(struct rdma_id_private *p,
			      struct ib_qp_attr *attr, int *mask)
{
	struct ib_device *dev = p->id.device;
	u32 port = p->id.port_num;
	bool ud = p->id.qp_type == IB_QPT_UD;

	/* UD QPs take the ID's Q_Key; RC QPs no remote access until RTR. */
	*mask = IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_PORT |
		(ud ? IB_QP_QKEY : IB_QP_ACCESS_FLAGS);
	attr->port_num = port;
	attr->qkey = ud ? p->qkey : 0;
	attr->qp_access_flags = 0;
	/* RoCE has the default P_Key only; IPoIB's is in its address. */
	return ib_find_cached_pkey(dev, port, rdma_protocol_roce(dev, port) ?
				   IB_DEFAULT_PKEY_FULL :
				   ib_addr_get_pkey(&p->id.route.addr.dev_addr),
				   &attr->pkey_index);
}

/**
 * rdma_init_qp_attr() - the attributes to move a QP of an ID to a state
 * @id: the ID
 * @qp_attr: qp_state set by the caller; the rest is filled
 * @qp_attr_mask: receives the attributes to apply
 *
 * For a QP the owner made itself (rdma_ucm, or conn_param.qp_num users).
 * RTR takes the ID's Starting PSN and rdma_set_min_rnr_timer()'s value,
 * RTS rdma_set_ack_timeout()'s.  On iWARP ports iw_cm says, and the port
 * is added (cma_iw_init_qp_attr()).
 *
 * Return: 0; -EINVAL when the ID has no connection that could say (an RC
 * ID past INIT without an IB or iWARP CM ID); an IB CM or iw_cm error.
 */
int rdma_init_qp_attr(struct rdma_cm_id *id, struct ib_qp_attr *qp_attr,
		      int *qp_attr_mask)
{
	struct rdma_id_private *p = cma_priv(id);
	int ret;

	if (!id->device)
		return -EINVAL;
	if (cma_iwarp(p))
		return cma_iw_init_qp_attr(p, qp_attr, qp_attr_mask);
	if (id->qp_type == IB_QPT_UD) {
		switch (qp_attr->qp_state) {
		case IB_QPS_INIT:
			return cma_init_attr_init(p, qp_attr, qp_attr_mask);
		case IB_QPS_RTS:
			qp_attr->sq_psn = 0;
			*qp_attr_mask = IB_QP_STATE | IB_QP_SQ_PSN;
			return 0;
		default:
			*qp_attr_mask = IB_QP_STATE;
			return 0;
		}
	}
	if (!p->cm_id) {
		if (qp_attr->qp_state != IB_QPS_INIT)
			return -EINVAL;
		return cma_init_attr_init(p, qp_attr, qp_attr_mask);
	}
	ret = ib_cm_init_qp_attr(p->cm_id, qp_attr, qp_attr_mask);
	if (ret)
		return ret;
	if (qp_attr->qp_state == IB_QPS_RTR) {
		qp_attr->rq_psn = p->seq_num;
		*qp_attr_mask |= IB_QP_RQ_PSN;
		if (p->min_rnr_timer_set) {
			qp_attr->min_rnr_timer = p->min_rnr_timer;
			*qp_attr_mask |= IB_QP_MIN_RNR_TIMER;
		}
	}
	if (qp_attr->qp_state == IB_QPS_RTS && p->timeout_set) {
		qp_attr->timeout = p->timeout;
		*qp_attr_mask |= IB_QP_TIMEOUT;
	}
	return 0;
}
EXPORT_SYMBOL(rdma_init_qp_attr);

/**
 * cma_qp_modify() - move the QP of an ID to a state
 * @p: the ID; its qp_mutex is held and it has a QP
 * @state: the state, with the attributes rdma_init_qp_attr() gives
 * @param: the accepting side's resources (RTR: responder resources, RTS:
 *	initiator depth), or NULL
 *
 * Return: 0 or an error of rdma_init_qp_attr() or ib_modify_qp().
 */
int cma_qp_modify(struct rdma_id_private *p, enum ib_qp_state state,
		  const struct rdma_conn_param *param)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = rdma_init_qp_attr(&p->id, &attr, &mask);
	if (ret)
		return ret;
	if (param && state == IB_QPS_RTR)
		attr.max_dest_rd_atomic = param->responder_resources;
	if (param && state == IB_QPS_RTS)
		attr.max_rd_atomic = param->initiator_depth;
	return ib_modify_qp(p->id.qp, &attr, mask);
}

/**
 * cma_qp_connect() - bring the QP of a connecting ID up to a state
 * @p: the ID (its qp_mutex is taken here); nothing is done without a QP
 * @param: the accepting side's resources, or NULL
 * @last: IB_QPS_RTS for IB, whose CM ends the exchange with the QP able to
 *	send; IB_QPS_RTR for iWARP, whose provider takes it to RTS itself
 *
 * The QP goes through INIT again (with what the CM knows now), then RTR,
 * then RTS if @last says so.
 *
 * Return: 0 or the first error of cma_qp_modify().
 */
int cma_qp_connect(struct rdma_id_private *p,
		   const struct rdma_conn_param *param, enum ib_qp_state last)
{
	int ret = 0;

	mutex_lock(&p->qp_mutex);
	if (p->id.qp) {
		ret = cma_qp_modify(p, IB_QPS_INIT, NULL);
		if (!ret)
			ret = cma_qp_modify(p, IB_QPS_RTR, param);
		if (!ret && last == IB_QPS_RTS)
			ret = cma_qp_modify(p, IB_QPS_RTS, param);
	}
	mutex_unlock(&p->qp_mutex);
	return ret;
}

/**
 * rdma_create_qp() - create the QP of an ID
 * @id: the ID, on a device
 * @pd: a PD of the ID's device
 * @qp_init_attr: as for ib_create_qp(); port_num is set to the ID's port
 *
 * A UD QP is made ready to send at once (INIT with the ID's Q_Key, RTR,
 * RTS).  An RC QP goes to INIT; the connection moves it on.
 *
 * Return: 0; -EINVAL without a device or for a PD of another device;
 * errors of ib_create_qp() and ib_modify_qp().
 */
int rdma_create_qp(struct rdma_cm_id *id, struct ib_pd *pd,
		   struct ib_qp_init_attr *qp_init_attr)
{
	struct rdma_id_private *p = cma_priv(id);
	struct ib_qp *qp;
	int ret;

	if (!id->device || id->device != pd->device)
		return -EINVAL;
	qp_init_attr->port_num = id->port_num;
	qp = ib_create_qp(pd, qp_init_attr);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	mutex_lock(&p->qp_mutex);
	if (id->qp) {
		ret = -EINVAL;
		goto err;
	}
	id->qp = qp;
	ret = cma_qp_modify(p, IB_QPS_INIT, NULL);
	if (!ret && id->qp_type == IB_QPT_UD) {
		ret = cma_qp_modify(p, IB_QPS_RTR, NULL);
		if (!ret)
			ret = cma_qp_modify(p, IB_QPS_RTS, NULL);
	}
	if (ret) {
		id->qp = NULL;
		goto err;
	}
	p->qp_num = qp->qp_num;
	p->srq = !!qp_init_attr->srq;
	mutex_unlock(&p->qp_mutex);
	return 0;

err:
	mutex_unlock(&p->qp_mutex);
	dev_dbg(&id->device->dev, "rdma_cm: QP for %pISpc failed: %d\n",
		cma_dst(p), ret);
	ib_destroy_qp(qp);
	return ret;
}
EXPORT_SYMBOL(rdma_create_qp);

/**
 * rdma_destroy_qp() - destroy the QP rdma_create_qp() made
 * @id: the ID
 */
void rdma_destroy_qp(struct rdma_cm_id *id)
{
	struct rdma_id_private *p = cma_priv(id);

	mutex_lock(&p->qp_mutex);
	if (id->qp)
		ib_destroy_qp(id->qp);
	id->qp = NULL;
	mutex_unlock(&p->qp_mutex);
}
EXPORT_SYMBOL(rdma_destroy_qp);

/* ---- the active side ---------------------------------------------------- */

/* The header in front of a request's private data. */
static void cma_put_hdr(struct rdma_id_private *p, u8 *buf)
{
	struct cma_hdr_addrs a = { .sport = cma_port(cma_src(p)) };
	union ib_gid g;

	a.ipver = cma_src(p)->sa_family == AF_INET ? 4 : 6;
	rdma_ip2gid(cma_src(p), &g);
	memcpy(a.src, g.raw, sizeof(a.src));
	rdma_ip2gid(cma_dst(p), &g);
	memcpy(a.dst, g.raw, sizeof(a.dst));
	cma_hdr_put(buf, &a);
}

static u8 *cma_req_data(struct rdma_id_private *p,
			const struct rdma_conn_param *param, u8 room)
{
	u8 len = param->private_data_len;
	u8 *buf;

	if (len > room - CMA_HDR_LEN)
		return ERR_PTR(-EINVAL);
	buf = kzalloc(CMA_HDR_LEN + len, GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	cma_put_hdr(p, buf);
	if (len)
		memcpy(buf + CMA_HDR_LEN, param->private_data, len);
	return buf;
}

static int cma_sidr_handler(struct ib_cm_id *cm_id,
			    const struct ib_cm_event *ev);

/* The REQ of an RC connection, with @data (header first) of @len bytes. */
static int cma_rc_req(struct rdma_id_private *p, struct ib_cm_id *cm_id,
		      const struct rdma_conn_param *param, const u8 *data,
		      u8 len)
{
	struct ib_cm_req_param req = {
		/* whom we ask, and along which path */
		.service_id = rdma_get_service_id(&p->id, cma_dst(p)),
		.primary_path = p->id.route.path_rec,
		.ppath_sgid_attr = p->id.route.addr.dev_addr.sgid_attr,
		/* our end */
		.qp_type = p->id.qp_type,
		.qp_num = p->qp_num,
		.srq = p->srq,
		.starting_psn = p->seq_num,
		/* what the two QPs are allowed */
		.initiator_depth = param->initiator_depth,
		.responder_resources = param->responder_resources,
		.flow_control = param->flow_control,
		.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count),
		.retry_count = min_t(u8, 7, param->retry_count),
		/* the CM exchange's own timing, as stock's */
		.max_cm_retries = CMA_MAX_CM_RETRIES,
		.local_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT,
		.remote_cm_response_timeout = CMA_CM_RESPONSE_TIMEOUT,
		.ece = p->ece,
		.private_data = data,
		.private_data_len = len,
	};

	return ib_send_cm_req(cm_id, &req);
}

/* The SIDR_REQ of a UD ID, with @data (header first) of @len bytes. */
static int cma_ud_req(struct rdma_id_private *p, struct ib_cm_id *cm_id,
		      const u8 *data, u8 len)
{
	struct ib_cm_sidr_req_param req = {
		.service_id = rdma_get_service_id(&p->id, cma_dst(p)),
		.path = p->id.route.path_rec,
		.sgid_attr = p->id.route.addr.dev_addr.sgid_attr,
		.max_cm_retries = CMA_MAX_CM_RETRIES,
		/* the CM response time in ms, as stock's */
		.timeout_ms = 1 << (CMA_CM_RESPONSE_TIMEOUT - 8),
		.private_data = data,
		.private_data_len = len,
	};

	return ib_send_cm_sidr_req(cm_id, &req);
}

/* Without a QP of rdma_create_qp(), the caller names the QP to announce. */
static void cma_announce(struct rdma_id_private *p,
			 const struct rdma_conn_param *param)
{
	if (p->id.qp)
		return;
	p->srq = param->srq;
	p->qp_num = param->qp_num;
}

/* Ask the peer: an ib_cm ID of our own, then a REQ or a SIDR_REQ. */
static int cma_send_request(struct rdma_id_private *p,
			    const struct rdma_conn_param *param)
{
	bool ud = p->id.qp_type == IB_QPT_UD;
	u8 len = CMA_HDR_LEN + param->private_data_len;
	struct ib_cm_id *cm_id;
	u8 *buf;
	int ret;

	buf = cma_req_data(p, param, ud ? IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE :
					  IB_CM_REQ_PRIVATE_DATA_SIZE);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	cm_id = ib_create_cm_id(p->id.device,
				ud ? cma_sidr_handler : cma_ib_handler, p);
	ret = PTR_ERR_OR_ZERO(cm_id);
	if (!ret) {
		/* An answer may come before the send returns. */
		p->cm_id = cm_id;
		ret = ud ? cma_ud_req(p, cm_id, buf, len) :
			   cma_rc_req(p, cm_id, param, buf, len);
		if (ret) {
			p->cm_id = NULL;
			ib_destroy_cm_id(cm_id);
		}
	}
	kfree(buf);
	return ret;
}

/**
 * rdma_connect_locked() - rdma_connect() by a caller holding the handler
 *	lock (from the ID's ROUTE_RESOLVED handler, for instance)
 * @id: the ID, ROUTE_RESOLVED
 * @conn_param: what to ask for; private data up to 56 bytes (RC) or 180
 *	(UD) after the RDMA CM's own 36; on iWARP (RC only) up to 255, with
 *	no header: the MPA request carries it
 *
 * Return: 0 when the request is sent; -EINVAL for a wrong state, too
 * much private data, or UD on iWARP; IB CM or iw_cm errors.
 */
int rdma_connect_locked(struct rdma_cm_id *id,
			struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *p = cma_priv(id);
	int ret;

	if (!cma_move(p, RDMA_CM_ROUTE_RESOLVED, RDMA_CM_CONNECT))
		return -EINVAL;
	cma_announce(p, conn_param);
	if (cma_iwarp(p))
		ret = cma_iw_connect(p, conn_param);
	else
		ret = cma_send_request(p, conn_param);
	if (ret) {
		dev_dbg(&id->device->dev, "rdma_cm: connect to %pISpc failed: %d\n",
			cma_dst(p), ret);
		cma_move(p, RDMA_CM_CONNECT, RDMA_CM_ROUTE_RESOLVED);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_connect_locked);

/**
 * rdma_connect() - ask the resolved peer for a connection (RC: REQ) or
 *	for its QP (UD: SIDR_REQ)
 * @id: the ID, ROUTE_RESOLVED
 * @conn_param: see rdma_connect_locked()
 *
 * The answer comes as ESTABLISHED (or CONNECT_RESPONSE when the ID has no
 * QP), REJECTED, UNREACHABLE or CONNECT_ERROR.
 *
 * Return: see rdma_connect_locked().
 */
int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	int ret;

	rdma_lock_handler(id);
	ret = rdma_connect_locked(id, conn_param);
	rdma_unlock_handler(id);
	return ret;
}
EXPORT_SYMBOL(rdma_connect);

/**
 * rdma_connect_ece() - rdma_connect() with enhanced connection options
 * @id: the ID
 * @conn_param: see rdma_connect_locked()
 * @ece: vendor ID and options to send
 *
 * Return: see rdma_connect_locked().
 */
int rdma_connect_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		     struct rdma_ucm_ece *ece)
{
	cma_priv(id)->ece = *ece;
	return rdma_connect(id, conn_param);
}
EXPORT_SYMBOL(rdma_connect_ece);

/* REP received with a QP: connect it and send the RTU. */
static int cma_rep_recv(struct rdma_id_private *p)
{
	int ret = cma_qp_connect(p, NULL, IB_QPS_RTS);

	if (!ret)
		ret = ib_send_cm_rtu(p->cm_id, NULL, 0);
	if (ret) {
		dev_dbg(&p->id.device->dev, "rdma_cm: REP not taken: %d\n", ret);
		cma_qp_to_err(p);
		ib_send_cm_rej(p->cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
			       NULL, 0);
	}
	return ret;
}

/* The connection parameters a REP brings, as the RDMA CM reports them. */
static void cma_rep_param(struct rdma_conn_param *c,
			  const struct ib_cm_rep_event_param *rep,
			  const void *data)
{
	*c = (struct rdma_conn_param) {
		.qp_num = rep->remote_qpn,
		.srq = rep->srq,
		.initiator_depth = rep->initiator_depth,
		.responder_resources = rep->responder_resources,
		.rnr_retry_count = rep->rnr_retry_count,
		.flow_control = rep->flow_control,
		.private_data_len = IB_CM_REP_PRIVATE_DATA_SIZE,
		.private_data = data,
	};
}

/*
 * The RDMA CM event an ib_cm event of a connection becomes, with the
 * status it carries when that is fixed; -1 for events the owner is not
 * told about (MRA, LAP/APR).
 */
static int cma_ib_event(enum ib_cm_event_type type, int *status)
{
	static const struct {
		enum ib_cm_event_type	from;
		enum rdma_cm_event_type	to;
		int			status;
	} map[] = {
		{ IB_CM_REP_RECEIVED, RDMA_CM_EVENT_ESTABLISHED, 0 },
		{ IB_CM_RTU_RECEIVED, RDMA_CM_EVENT_ESTABLISHED, 0 },
		{ IB_CM_USER_ESTABLISHED, RDMA_CM_EVENT_ESTABLISHED, 0 },
		{ IB_CM_REJ_RECEIVED, RDMA_CM_EVENT_REJECTED, 0 },
		/* the peer never answered our REQ or REP */
		{ IB_CM_REQ_ERROR, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT },
		{ IB_CM_REP_ERROR, RDMA_CM_EVENT_UNREACHABLE, -ETIMEDOUT },
		{ IB_CM_DREQ_RECEIVED, RDMA_CM_EVENT_DISCONNECTED, 0 },
		{ IB_CM_DREP_RECEIVED, RDMA_CM_EVENT_DISCONNECTED, 0 },
		/* nor our DREQ: disconnected all the same */
		{ IB_CM_DREQ_ERROR, RDMA_CM_EVENT_DISCONNECTED, -ETIMEDOUT },
		{ IB_CM_TIMEWAIT_EXIT, RDMA_CM_EVENT_TIMEWAIT_EXIT, 0 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(map); i++) {
		if (map[i].from == type) {
			*status = map[i].status;
			return map[i].to;
		}
	}
	return -1;
}

/**
 * cma_ib_handler() - ib_cm events of an RC connection, either side
 * @cm_id: the connection's ib_cm ID; its context is the RDMA CM ID
 * @ev: the event
 *
 * Return: non-zero when the owner's handler asked for the ID's end.
 */
int cma_ib_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev)
{
	struct rdma_id_private *p = cm_id->context;
	struct rdma_cm_event rev = {};
	enum rdma_cm_state s;
	int type;

	mutex_lock(&p->handler_mutex);
	s = cma_state(p);
	/* Only time wait's end comes after the connection's. */
	if (s != (ev->event == IB_CM_TIMEWAIT_EXIT ? RDMA_CM_DISCONNECT :
						    RDMA_CM_CONNECT))
		goto ignore;
	type = cma_ib_event(ev->event, &rev.status);
	if (type < 0)
		goto ignore;
	rev.event = type;
	if (ev->event == IB_CM_REP_RECEIVED) {
		cma_rep_param(&rev.param.conn, &ev->param.rep_rcvd,
			      ev->private_data);
		rev.ece = ev->param.rep_rcvd.ece;
		if (!p->id.qp) {
			/* The owner connects its QP, then rdma_accept(). */
			rev.event = RDMA_CM_EVENT_CONNECT_RESPONSE;
			ib_send_cm_mra(cm_id, CMA_CM_MRA_SETTING |
				       IB_CM_MRA_FLAG_DELAY, NULL, 0);
		} else {
			rev.status = cma_rep_recv(p);
			if (rev.status)
				rev.event = RDMA_CM_EVENT_CONNECT_ERROR;
		}
	} else if (ev->event == IB_CM_REJ_RECEIVED) {
		cma_qp_to_err(p);
		rev.status = ev->param.rej_rcvd.reason;
		rev.param.conn.private_data = ev->private_data;
		rev.param.conn.private_data_len = IB_CM_REJ_PRIVATE_DATA_SIZE;
	} else if (rev.event == RDMA_CM_EVENT_DISCONNECTED &&
		   !cma_move(p, RDMA_CM_CONNECT, RDMA_CM_DISCONNECT)) {
		goto ignore;
	}
	return cma_cm_deliver(p, &rev);

ignore:
	dev_dbg(&cm_id->device->dev, "rdma_cm: ib_cm event %d ignored in state %d\n",
		ev->event, s);
	mutex_unlock(&p->handler_mutex);
	return 0;
}

/* What a SIDR_REP tells the owner of @p, in @rev. */
static void cma_sidr_rep_event(struct rdma_id_private *p,
			       const struct ib_cm_event *ev,
			       struct rdma_cm_event *rev)
{
	const struct ib_cm_sidr_rep_event_param *rep = &ev->param.sidr_rep_rcvd;
	int ret;

	rev->param.ud.private_data = ev->private_data;
	rev->param.ud.private_data_len = IB_CM_SIDR_REP_PRIVATE_DATA_SIZE;
	if (rep->status) {
		/* the peer's CM or its owner said no: the status tells why */
		rev->event = RDMA_CM_EVENT_UNREACHABLE;
		rev->status = rep->status;
		return;
	}
	/* Datagrams with another Q_Key would be dropped by the peer. */
	ret = !rep->qkey || (p->qkey && p->qkey != rep->qkey) ? -EINVAL :
	      ib_init_ah_attr_from_path(p->id.device, p->id.port_num,
					p->id.route.path_rec,
					&rev->param.ud.ah_attr, rep->sgid_attr);
	if (ret) {
		dev_dbg(&p->id.device->dev,
			"rdma_cm: SIDR_REP refused (Q_Key %#x, ours %#x): %d\n",
			rep->qkey, p->qkey, ret);
		rev->event = RDMA_CM_EVENT_ADDR_ERROR;
		rev->status = ret;
		return;
	}
	rev->event = RDMA_CM_EVENT_ESTABLISHED;
	rev->param.ud.qp_num = rep->qpn;
	rev->param.ud.qkey = rep->qkey;
}

/* ib_cm events of a UD ID's service ID resolution. */
static int cma_sidr_handler(struct ib_cm_id *cm_id,
			    const struct ib_cm_event *ev)
{
	struct rdma_id_private *p = cm_id->context;
	struct rdma_cm_event rev = {};
	int ret;

	mutex_lock(&p->handler_mutex);
	if (cma_state(p) != RDMA_CM_CONNECT ||
	    (ev->event != IB_CM_SIDR_REP_RECEIVED &&
	     ev->event != IB_CM_SIDR_REQ_ERROR)) {
		mutex_unlock(&p->handler_mutex);
		return 0;
	}
	if (ev->event == IB_CM_SIDR_REP_RECEIVED) {
		cma_sidr_rep_event(p, ev, &rev);
	} else {
		rev.event = RDMA_CM_EVENT_UNREACHABLE;
		rev.status = -ETIMEDOUT;
	}
	ret = cma_cm_deliver(p, &rev);
	/* the AH the owner made holds its own references */
	rdma_destroy_ah_attr(&rev.param.ud.ah_attr);
	return ret;
}

/* ---- answers ------------------------------------------------------------ */

static int cma_send_sidr_rep(struct rdma_id_private *p,
			     enum ib_cm_sidr_status status,
			     const void *data, u8 len)
{
	struct ib_cm_sidr_rep_param rep = {
		.status = status,
		.private_data = data,
		.private_data_len = len,
	};

	if (status == IB_SIDR_SUCCESS) {
		rep.qp_num = p->qp_num;
		rep.qkey = p->qkey;
		rep.ece = p->ece;
	}
	return ib_send_cm_sidr_rep(p->cm_id, &rep);
}

static int cma_send_rep(struct rdma_id_private *p,
			const struct rdma_conn_param *param)
{
	struct ib_cm_rep_param rep = {
		.qp_num = p->qp_num,
		.starting_psn = p->seq_num,
		.private_data = param->private_data,
		.private_data_len = param->private_data_len,
		.responder_resources = param->responder_resources,
		.initiator_depth = param->initiator_depth,
		.flow_control = param->flow_control,
		.rnr_retry_count = min_t(u8, 7, param->rnr_retry_count),
		.srq = p->srq,
		.ece = p->ece,
	};
	int ret = cma_qp_connect(p, param, IB_QPS_RTS);

	return ret ?: ib_send_cm_rep(p->cm_id, &rep);
}

/**
 * rdma_accept_ece() - rdma_accept() with enhanced connection options
 * @id: the ID
 * @conn_param: see rdma_accept()
 * @ece: vendor ID and options to answer with
 *
 * Return: see rdma_accept().
 */
int rdma_accept_ece(struct rdma_cm_id *id, struct rdma_conn_param *conn_param,
		    struct rdma_ucm_ece *ece)
{
	cma_priv(id)->ece = *ece;
	return rdma_accept(id, conn_param);
}
EXPORT_SYMBOL(rdma_accept_ece);

/**
 * rdma_accept() - accept a connection request, or confirm a response
 * @id: the new ID of a CONNECT_REQUEST (passive); or, with @conn_param
 *	NULL, an ID that got CONNECT_RESPONSE (active): its QP, if
 *	rdma_create_qp() made one, is connected and the RTU sent
 * @conn_param: what to answer with; RC: private data up to 196 bytes,
 *	the resources the QP is given (responder_resources at RTR,
 *	initiator_depth at RTS), RNR retries; UD: private data up to 136
 *	bytes.  Without a QP on the ID, qp_num and srq say what to announce.
 *
 * The handler lock must be held: inside the ID's handler, or between
 * rdma_lock_handler() and rdma_unlock_handler().  An RC QP made by
 * rdma_create_qp() is moved to RTS before the REP goes out; on failure it
 * goes to ERR and the request is rejected.
 *
 * On iWARP ports @conn_param is required (there is no CONNECT_RESPONSE):
 * private data up to 255 bytes go in the MPA reply, initiator_depth and
 * responder_resources become the ORD and IRD, the QP is moved to RTR
 * with remote read and write access, and the provider takes it to RTS;
 * ESTABLISHED follows.
 *
 * Return: 0; -EINVAL when the ID is not connecting or for too much
 * private data; QP, IB CM and iw_cm errors.
 */
int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *conn_param)
{
	struct rdma_id_private *p = cma_priv(id);
	int ret;

	lockdep_assert_held(&p->handler_mutex);
	if (cma_state(p) != RDMA_CM_CONNECT || (!p->cm_id && !p->iw_id))
		return -EINVAL;
	if (conn_param)
		cma_announce(p, conn_param);
	if (p->iw_id) {
		/* cma_iw_accept() refuses the request itself on failure */
		ret = conn_param ? cma_iw_accept(p, conn_param) : -EINVAL;
	} else if (id->qp_type == IB_QPT_UD) {
		if (conn_param && conn_param->qkey && !p->qkey)
			p->qkey = conn_param->qkey;
		ret = cma_send_sidr_rep(p, IB_SIDR_SUCCESS,
					conn_param ? conn_param->private_data : NULL,
					conn_param ? conn_param->private_data_len : 0);
	} else if (conn_param) {
		ret = cma_send_rep(p, conn_param);
	} else {
		ret = cma_rep_recv(p);
	}
	if (ret) {
		dev_dbg(&id->device->dev, "rdma_cm: accept of %pISpc failed: %d\n",
			cma_dst(p), ret);
		if (p->cm_id && id->qp_type != IB_QPT_UD && conn_param) {
			cma_qp_to_err(p);
			ib_send_cm_rej(p->cm_id, IB_CM_REJ_CONSUMER_DEFINED,
				       NULL, 0, NULL, 0);
		}
		return ret;
	}
	p->accepted = 1;
	return 0;
}
EXPORT_SYMBOL(rdma_accept);

/**
 * rdma_reject() - refuse a connection request
 * @id: the new ID of a CONNECT_REQUEST, or one that got CONNECT_RESPONSE
 * @private_data: for the peer (RC up to 148 bytes, UD 136)
 * @private_data_len: its length
 * @reason: the IB reject reason; ULPs give IB_CM_REJ_CONSUMER_DEFINED so
 *	that the peer sees their private data
 *
 * RC sends a REJ, UD a SIDR_REP with status "rejected".  On iWARP the
 * provider refuses the MPA request with the private data (up to 255
 * bytes), @reason is not sent, and the peer gets REJECTED with status
 * -ECONNREFUSED.
 *
 * Return: 0; -EINVAL when there is no request to refuse; IB CM and iw_cm
 * errors.
 */
int rdma_reject(struct rdma_cm_id *id, const void *private_data,
		u8 private_data_len, u8 reason)
{
	struct rdma_id_private *p = cma_priv(id);
	int ret;

	if (p->iw_id)
		ret = iw_cm_reject(p->iw_id, private_data, private_data_len);
	else if (!p->cm_id)
		return -EINVAL;
	else if (id->qp_type == IB_QPT_UD)
		ret = cma_send_sidr_rep(p, IB_SIDR_REJECT, private_data,
					private_data_len);
	else
		ret = ib_send_cm_rej(p->cm_id, reason, NULL, 0, private_data,
				     private_data_len);
	if (!ret)
		p->accepted = 1;
	return ret;
}
EXPORT_SYMBOL(rdma_reject);

/**
 * rdma_disconnect() - end a connection
 * @id: a connected (or connecting) RC ID
 *
 * The QP goes to ERR; a DREQ is sent, or the DREP to the peer's DREQ.
 * DISCONNECTED follows when the DREP comes (or the DREQ's retries end).
 * On iWARP the connection closes gracefully: iw_cm moves the QP to SQD
 * and DISCONNECTED follows when the provider has closed.
 *
 * Return: 0; -EINVAL when the ID has no connection (or it is over).
 */
int rdma_disconnect(struct rdma_cm_id *id)
{
	struct rdma_id_private *p = cma_priv(id);

	if (p->iw_id)
		return iw_cm_disconnect(p->iw_id, 0);
	if (!p->cm_id)
		return -EINVAL;
	cma_qp_to_err(p);
	if (!ib_send_cm_dreq(p->cm_id, NULL, 0))
		return 0;
	return ib_send_cm_drep(p->cm_id, NULL, 0);
}
EXPORT_SYMBOL(rdma_disconnect);

/**
 * rdma_notify() - report a QP event the connection depends on
 * @id: the ID
 * @event: IB_EVENT_COMM_EST: the QP received before the RTU came; the
 *	connection is taken as established (an ESTABLISHED event follows)
 *
 * Acts on InfiniBand CA devices (rxe is one); elsewhere (iWARP) nothing
 * to do.
 *
 * Return: 0; -EINVAL without a connection; ib_cm_notify() errors.
 */
int rdma_notify(struct rdma_cm_id *id, enum ib_event_type event)
{
	struct rdma_id_private *p = cma_priv(id);

	if (!p->cm_id && !p->iw_id)
		return -EINVAL;
	if (id->device->node_type != RDMA_NODE_IB_CA)
		return 0;
	return ib_cm_notify(p->cm_id, event);
}
EXPORT_SYMBOL(rdma_notify);
