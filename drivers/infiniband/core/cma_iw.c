// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM connections on iWARP ports, over iw_cm.  The provider makes the
 * connection itself (TCP, then the MPA request and reply), so there is
 * no RDMA CM header before the caller's private data, no Service ID and
 * no path, and only RC.  A listener gets an iw_cm listener of its own on
 * every device it listens on (cma_listen_on()); a CONNECT_REQUEST there
 * becomes a new ID attached to the port of that device whose netdev has
 * the local address, in the listener's namespace.  The QP goes to INIT
 * without remote access in rdma_create_qp(), then again to INIT and to
 * RTR, with the remote read and write access iw_cm gives, in
 * rdma_connect() and rdma_accept(); the provider takes it to RTS as the
 * connection is made.
 *
 * iw_cm events map to RDMA CM events as follows: CONNECT_REPLY 0 ->
 * ESTABLISHED, -ECONNRESET or -ECONNREFUSED -> REJECTED, -ETIMEDOUT ->
 * UNREACHABLE, another error -> CONNECT_ERROR (the status is the errno);
 * ESTABLISHED -> ESTABLISHED; CLOSE -> DISCONNECTED.  DISCONNECT (the
 * peer began to close) is not reported, and there is no TIMEWAIT_EXIT.
 */
#include <net/ipv6.h>
#include "cma_priv.h"

/* Copy an address iw_cm reports; an IPv4-mapped IPv6 one becomes IPv4. */
static void cma_iw_addr(struct sockaddr *dst,
			const struct sockaddr_storage *src)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)src;
	struct sockaddr_in *d4 = (struct sockaddr_in *)dst;

	if (src->ss_family != AF_INET6 ||
	    !ipv6_addr_v4mapped(&s6->sin6_addr)) {
		memcpy(dst, src, rdma_addr_size((const struct sockaddr *)src));
		return;
	}
	memset(d4, 0, sizeof(*d4));
	d4->sin_family = AF_INET;
	d4->sin_port = s6->sin6_port;
	d4->sin_addr.s_addr = s6->sin6_addr.s6_addr32[3];
}

/* What an iw_cm ID of @p needs to know before it listens or connects. */
static void cma_iw_setup(struct rdma_id_private *p, struct iw_cm_id *iw)
{
	memcpy(&iw->local_addr, cma_src(p), rdma_addr_size(cma_src(p)));
	memcpy(&iw->remote_addr, cma_dst(p), rdma_addr_size(cma_dst(p)));
	iw->tos = cma_id_tos(p);
	iw->tos_set = p->tos_set;
	iw->afonly = p->afonly;
}

/*
 * The connection parameters an iw_cm event brings, in our view: the
 * peer's inbound READ depth is what we may issue, its outbound one what
 * we must answer.
 */
static void cma_iw_param(struct rdma_conn_param *c,
			 const struct iw_cm_event *ev)
{
	c->private_data = ev->private_data;
	c->private_data_len = ev->private_data_len;
	c->initiator_depth = ev->ird;
	c->responder_resources = ev->ord;
}

/* Our side of a connection, as iw_cm takes it. */
static void cma_iw_conn_param(struct iw_cm_conn_param *iwp,
			      struct rdma_id_private *p,
			      const struct rdma_conn_param *param)
{
	*iwp = (struct iw_cm_conn_param) {
		.private_data = param->private_data,
		.private_data_len = param->private_data_len,
		.ord = param->initiator_depth,
		.ird = param->responder_resources,
		.qpn = p->qp_num,
	};
}

/*
 * The ID's QP, if rdma_create_qp() made one, to INIT again (now with the
 * access iw_cm gives) and to RTR, before the provider connects it.
 */
static int cma_iw_qp_ready(struct rdma_id_private *p,
			   const struct rdma_conn_param *param)
{
	int ret = cma_qp_connect(p, param, IB_QPS_RTR);

	if (ret)
		dev_dbg(&p->id.device->dev, "rdma_cm: QP for %pISpc not ready: %d\n",
			cma_dst(p), ret);
	return ret;
}

/* The RDMA CM event of a CONNECT_REPLY of status @status. */
static enum rdma_cm_event_type cma_iw_reply(int status)
{
	switch (status) {
	case 0:
		return RDMA_CM_EVENT_ESTABLISHED;
	case -ECONNRESET:
	case -ECONNREFUSED:
		return RDMA_CM_EVENT_REJECTED;
	case -ETIMEDOUT:
		return RDMA_CM_EVENT_UNREACHABLE;
	default:
		return RDMA_CM_EVENT_CONNECT_ERROR;
	}
}

/* iw_cm events of a connection, either side (see the top of the file). */
static int cma_iw_handler(struct iw_cm_id *iw, struct iw_cm_event *ev)
{
	struct rdma_id_private *p = iw->context;
	struct rdma_cm_event rev = { .status = ev->status };
	enum rdma_cm_state s;

	mutex_lock(&p->handler_mutex);
	s = cma_state(p);
	if (s != RDMA_CM_CONNECT)
		goto ignore;
	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		rev.event = cma_iw_reply(ev->status);
		cma_iw_param(&rev.param.conn, ev);
		break;
	case IW_CM_EVENT_ESTABLISHED:
		rev.event = RDMA_CM_EVENT_ESTABLISHED;
		cma_iw_param(&rev.param.conn, ev);
		break;
	case IW_CM_EVENT_CLOSE:
		if (!cma_move(p, RDMA_CM_CONNECT, RDMA_CM_DISCONNECT))
			goto ignore;
		rev.event = RDMA_CM_EVENT_DISCONNECTED;
		break;
	default:
		goto ignore;
	}
	return cma_cm_deliver(p, &rev);

ignore:
	dev_dbg(&iw->device->dev, "rdma_cm: iw_cm event %d ignored in state %d\n",
		ev->event, s);
	mutex_unlock(&p->handler_mutex);
	return 0;
}

/*
 * The new ID of a request that came to @l through @iw: attached to the
 * port of @iw's device whose netdev has the local address, in @l's
 * namespace; in state CONNECT, its handler_mutex held.
 */
static struct rdma_id_private *cma_iw_conn(struct rdma_id_private *l,
					   struct iw_cm_id *iw,
					   const struct iw_cm_event *ev)
{
	struct rdma_dev_addr *da;
	struct rdma_id_private *c;
	struct net_device *ndev;
	int ret;

	c = cma_conn_alloc(l, IB_QPT_RC);
	if (!c)
		return ERR_PTR(-ENOMEM);
	da = &c->id.route.addr.dev_addr;
	cma_iw_addr(cma_src(c), &ev->local_addr);
	cma_iw_addr(cma_dst(c), &ev->remote_addr);
	ret = rdma_translate_ip(cma_src(c), da);
	if (!ret) {
		ndev = dev_get_by_index(cma_net(c), da->bound_dev_if);
		ret = ndev ? cma_attach_by_addr(c, ndev, cma_src(c),
						iw->device) : -ENODEV;
		dev_put(ndev);
	}
	if (!ret)
		return c;
	cma_conn_free(c);
	return ERR_PTR(ret);
}

/*
 * A CONNECT_REQUEST of the iw_cm listener of RDMA CM listener @l (the
 * context @iw, the request's new iw_cm ID, came with): CONNECT_REQUEST on
 * a new ID that owns @iw from then on.  A non-zero return has iw_cm
 * refuse the request and destroy @iw.
 */
static int cma_iw_req_handler(struct iw_cm_id *iw, struct iw_cm_event *ev)
{
	struct rdma_id_private *l = iw->context, *c;
	struct rdma_cm_event rev = { .event = RDMA_CM_EVENT_CONNECT_REQUEST };
	int ret = -ECONNABORTED;

	mutex_lock(&l->handler_mutex);
	if (cma_state(l) != RDMA_CM_LISTEN)
		goto out;
	c = cma_iw_conn(l, iw, ev);
	if (IS_ERR(c)) {
		ret = PTR_ERR(c);
		goto out;
	}
	c->iw_id = iw;
	iw->context = c;
	iw->cm_handler = cma_iw_handler;
	cma_iw_param(&rev.param.conn, ev);
	ret = cma_cm_deliver(c, &rev);
out:
	if (ret)
		dev_dbg(&iw->device->dev, "rdma_cm: request from %pISpc to %pISpc refused: %d\n",
			&ev->remote_addr, &ev->local_addr, ret);
	mutex_unlock(&l->handler_mutex);
	return ret;
}

/**
 * cma_iw_listen() - the iw_cm listener of an RDMA CM listener on a device
 * @p: the listener: its address (maybe a wildcard), type of service,
 *	afonly and backlog are the iw_cm listener's
 * @device: an iWARP device
 *
 * Context: cma_mutex held (cma_listen_on()).
 * Return: the listening iw_cm ID, or an ERR_PTR() of iw_cm's error.
 */
struct iw_cm_id *cma_iw_listen(struct rdma_id_private *p,
			       struct ib_device *device)
{
	struct iw_cm_id *iw = iw_create_cm_id(device, cma_iw_req_handler, p);
	int ret;

	if (IS_ERR(iw))
		return iw;
	cma_iw_setup(p, iw);
	ret = iw_cm_listen(iw, p->backlog);
	if (ret) {
		/* it never listened: nothing to wait for under cma_mutex */
		iw_destroy_cm_id(iw);
		return ERR_PTR(ret);
	}
	return iw;
}

/**
 * cma_iw_connect() - rdma_connect() on an iWARP port
 * @p: the ID, moved to CONNECT, its handler_mutex held
 * @param: private data (up to 255 bytes, sent in the MPA request as they
 *	are), initiator_depth (the ORD) and responder_resources (the IRD)
 *
 * The QP announced (the ID's own, or @param's qp_num) is the one the
 * provider connects; the ID's own goes to RTR first.
 *
 * Return: 0; -EINVAL for a UD ID; QP errors; iw_cm errors.
 */
int cma_iw_connect(struct rdma_id_private *p,
		   const struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iwp;
	struct iw_cm_id *iw;
	int ret;

	if (p->id.qp_type != IB_QPT_RC)
		return -EINVAL;
	iw = iw_create_cm_id(p->id.device, cma_iw_handler, p);
	if (IS_ERR(iw))
		return PTR_ERR(iw);
	cma_iw_setup(p, iw);
	cma_iw_conn_param(&iwp, p, param);
	p->iw_id = iw;
	ret = cma_iw_qp_ready(p, param);
	if (!ret)
		ret = iw_cm_connect(iw, &iwp);
	if (ret) {
		/* a refused connect has no events to wait for */
		p->iw_id = NULL;
		iw_destroy_cm_id(iw);
	}
	return ret;
}

/**
 * cma_iw_accept() - rdma_accept() of a request on an iWARP port
 * @p: the new ID of the request, its handler_mutex held
 * @param: private data of the MPA reply (up to 255 bytes),
 *	initiator_depth (the ORD) and responder_resources (the IRD)
 *
 * The ID's QP, if rdma_create_qp() made one, goes to RTR first; if that
 * fails it goes to ERR and the request is refused.
 *
 * Return: 0; QP errors; iw_cm errors (the QP then goes to ERR).
 */
int cma_iw_accept(struct rdma_id_private *p,
		  const struct rdma_conn_param *param)
{
	struct iw_cm_conn_param iwp;
	int ret;

	ret = cma_iw_qp_ready(p, param);
	if (ret) {
		cma_qp_to_err(p);
		iw_cm_reject(p->iw_id, NULL, 0);
		return ret;
	}
	cma_iw_conn_param(&iwp, p, param);
	ret = iw_cm_accept(p->iw_id, &iwp);
	if (ret)
		cma_qp_to_err(p);
	return ret;
}

/**
 * cma_iw_init_qp_attr() - rdma_init_qp_attr() on an iWARP port
 * @p: the ID
 * @attr: qp_state set by the caller; the rest is filled
 * @mask: receives the attributes to apply
 *
 * What iw_cm gives once the ID has an iw_cm ID (INIT and RTR: remote
 * read and write access; RTS: nothing), before that INIT without remote
 * access; with the ID's port in every case.
 *
 * Return: 0; -EINVAL for a UD ID, for a state other than INIT before the
 * connection, or iw_cm's -EINVAL.
 */
int cma_iw_init_qp_attr(struct rdma_id_private *p, struct ib_qp_attr *attr,
			int *mask)
{
	int ret = 0;

	if (p->id.qp_type != IB_QPT_RC)
		return -EINVAL;
	if (p->iw_id) {
		ret = iw_cm_init_qp_attr(p->iw_id, attr, mask);
	} else if (attr->qp_state == IB_QPS_INIT) {
		attr->qp_access_flags = 0;
		*mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
	} else {
		ret = -EINVAL;
	}
	if (ret)
		return ret;
	attr->port_num = p->id.port_num;
	*mask |= IB_QP_PORT;
	return 0;
}
