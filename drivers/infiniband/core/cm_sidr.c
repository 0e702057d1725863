// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Service ID resolution (IBTA 12.11): a UD client asks for the QP and
 * Q_Key behind a service ID with a SIDR_REQ and gets them in a SIDR_REP.
 * No connection follows, so no time wait either.  Requests being answered
 * are indexed by request ID and requester GID, so that a retransmitted
 * request does not reach the listener twice while it is still deciding.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"

/* Requests in SIDR_REQ_RCVD; under cm_lock. */
static DEFINE_HASHTABLE(cm_sidr_reqs, 6);

static u32 cm_sidr_hash(__be32 req_id, const union ib_gid *gid)
{
	return jhash(gid->raw, sizeof(gid->raw), (__force u32)req_id);
}

/**
 * cm_sidr_index() - index a SIDR request being answered
 * @priv: its ID, locked, with remote_id and sidr_sgid set
 *
 * Return: NULL, or the ID of the same request (same request ID from the
 * same GID) with a reference.
 */
struct cm_id_priv *cm_sidr_index(struct cm_id_priv *priv)
{
	u32 key = cm_sidr_hash(priv->id.remote_id, &priv->sidr_sgid);
	struct cm_id_priv *other;

	spin_lock(&cm_lock);
	hash_for_each_possible(cm_sidr_reqs, other, sidr_node, key) {
		if (other->id.remote_id == priv->id.remote_id &&
		    !memcmp(&other->sidr_sgid, &priv->sidr_sgid,
			    sizeof(other->sidr_sgid))) {
			cm_get(other);
			spin_unlock(&cm_lock);
			return other;
		}
	}
	hash_add(cm_sidr_reqs, &priv->sidr_node, key);
	priv->in_sidr = true;
	spin_unlock(&cm_lock);
	return NULL;
}

/**
 * cm_sidr_unindex() - the request is answered (or abandoned)
 * @priv: the ID, locked
 */
void cm_sidr_unindex(struct cm_id_priv *priv)
{
	spin_lock(&cm_lock);
	if (priv->in_sidr)
		hash_del(&priv->sidr_node);
	priv->in_sidr = false;
	spin_unlock(&cm_lock);
}

/* Build and send a SIDR_REP from @priv (locked); it goes back to IDLE. */
static int cm_sidr_answer(struct cm_id_priv *priv,
			  struct ib_cm_sidr_rep_param *param)
{
	u32 vendor = param->ece.vendor_id;
	u8 msg[CM_MSG_LEN] = {};
	int ret;

	memcpy(msg + CM_SIDR_REQ_ID, &priv->id.remote_id, 4);
	cmf_set(msg, CM_SIDR_REP_STATUS, param->status);
	cmf_set(msg, CM_SIDR_REP_INFO_LEN, param->info_length);
	cmf_set(msg, CM_SIDR_REP_VENDOR_HI, (vendor >> 8) & 0xff);
	cmf_set(msg, CM_SIDR_REP_VENDOR_LO, vendor & 0xff);
	cmf_set(msg, CM_SIDR_REP_QPN, param->qp_num);
	memcpy(msg + CM_SIDR_REP_SERVICE_ID, &priv->id.service_id, 8);
	cmf_set(msg, CM_SIDR_REP_QKEY, param->qkey);
	if (param->info_length)
		memcpy(msg + CM_SIDR_REP_INFO, param->info, param->info_length);
	cm_fill_pdata(msg, CM_MSG_SIDR_REP, param->private_data,
		      param->private_data_len);
	ret = cm_send_priv(priv, CM_MSG_SIDR_REP, msg, 0, 0);
	cm_sidr_unindex(priv);
	priv->id.state = IB_CM_IDLE;
	return ret;
}

/**
 * cm_sidr_reject_locked() - refuse a SIDR request nobody answered
 * @priv: the ID in IB_CM_SIDR_REQ_RCVD, locked
 */
void cm_sidr_reject_locked(struct cm_id_priv *priv)
{
	struct ib_cm_sidr_rep_param param = { .status = IB_SIDR_REJECT };

	cm_sidr_answer(priv, &param);
}

/**
 * ib_send_cm_sidr_req() - ask a peer which UD QP serves a service
 * @cm_id: an ID in state IB_CM_IDLE
 * @param: the path, the service, the private data and the timing
 *
 * The SIDR_REQ is resent every @param->timeout_ms, @param->max_cm_retries
 * times, until the SIDR_REP comes (IB_CM_SIDR_REP_RECEIVED); then
 * IB_CM_SIDR_REQ_ERROR.
 *
 * Context: process context.
 * Return: 0, -EINVAL (parameters, state, no CM on the port), -ENOMEM,
 * -ENODEV, or an error resolving the path.
 */
int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	struct ib_device *ibdev = cm_id->device;
	const struct ib_gid_attr *sgid_attr;
	struct rdma_ah_attr av = {};
	struct cm_port *port;
	u8 msg[CM_MSG_LEN] = {};
	int ret;

	if (!param->path || param->private_data_len >
			    IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	sgid_attr = cm_path_sgid(ibdev, param->path, param->sgid_attr);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	ret = cm_port_av(ibdev, param->path, sgid_attr, &av, &port);
	rdma_put_gid_attr(sgid_attr);
	if (ret)
		return ret;

	memcpy(msg + CM_SIDR_REQ_ID, &cm_id->local_id, 4);
	cmf_set(msg, CM_SIDR_REQ_PKEY, be16_to_cpu(param->path->pkey));
	memcpy(msg + CM_SIDR_REQ_SERVICE_ID, &param->service_id, 8);
	cm_fill_pdata(msg, CM_MSG_SIDR_REQ, param->private_data,
		      param->private_data_len);

	spin_lock_irq(&priv->lock);
	if (cm_id->state != IB_CM_IDLE) {
		spin_unlock_irq(&priv->lock);
		rdma_destroy_ah_attr(&av);
		cm_device_put(port->cm_dev);
		return -EINVAL;
	}
	cm_set_av(priv, port, &av);
	cm_id->service_id = param->service_id;
	priv->tid = cm_new_tid(port, cm_id->local_id);
	ret = cm_send_priv(priv, CM_MSG_SIDR_REQ, msg,
			   min_t(unsigned long, param->timeout_ms, INT_MAX),
			   param->max_cm_retries);
	if (!ret)
		cm_id->state = IB_CM_SIDR_REQ_SENT;
	spin_unlock_irq(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_req);

/**
 * ib_send_cm_sidr_rep() - answer a SIDR request
 * @cm_id: the ID of the request, in state IB_CM_SIDR_REQ_RCVD
 * @param: the QP and Q_Key (status IB_SIDR_SUCCESS) or a refusal
 *
 * The SIDR_REP is sent once and the ID returns to IB_CM_IDLE.
 *
 * Context: any.
 * Return: 0, -EINVAL (state, lengths), -ENOMEM or -ENODEV.
 */
int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	int ret = -EINVAL;

	if (param->info_length > IB_CM_SIDR_REP_INFO_LENGTH ||
	    (param->info_length && !param->info) ||
	    param->private_data_len > IB_CM_SIDR_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_SIDR_REQ_RCVD)
		ret = cm_sidr_answer(priv, param);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_sidr_rep);

/* No listener: answer "unsupported" from no ID. */
static void cm_sidr_unsupported(struct cm_port *port, struct rdma_ah_attr *av,
				struct ib_mad_recv_wc *rwc, const u8 *req)
{
	u8 msg[CM_MSG_LEN] = {};

	memcpy(msg + CM_SIDR_REQ_ID, req + CM_SIDR_REQ_ID, 4);
	cmf_set(msg, CM_SIDR_REP_STATUS, IB_SIDR_UNSUPPORTED);
	memcpy(msg + CM_SIDR_REP_SERVICE_ID, req + CM_SIDR_REQ_SERVICE_ID, 8);
	cm_reply(port, av, rwc, CM_MSG_SIDR_REP, msg);
}

/**
 * cm_sidr_req_recv() - a SIDR_REQ came in
 * @port: where
 * @rwc: the received MAD
 * @msg: its CM payload
 */
void cm_sidr_req_recv(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		      const u8 *msg)
{
	struct ib_device *ibdev = port->cm_dev->ibdev;
	struct cm_id_priv *listener, *priv;
	struct ib_cm_sidr_req_event_param *p;
	struct rdma_ah_attr av = {};
	struct cm_event *ev;
	u16 bth_pkey;

	if (ib_init_ah_attr_from_wc(ibdev, port->port_num, rwc->wc,
				    rwc->recv_buf.grh, &av) ||
	    !av.grh.sgid_attr) {
		cm_drop(port, CM_DROP_NO_ROUTE, CM_MSG_SIDR_REQ, "no way back");
		rdma_destroy_ah_attr(&av);
		return;
	}
	listener = cm_find_listener(ibdev, cm_be64(msg, CM_SIDR_REQ_SERVICE_ID));
	if (!listener) {
		cm_sidr_unsupported(port, &av, rwc, msg);
		rdma_destroy_ah_attr(&av);
		return;
	}
	priv = cm_priv_create(ibdev, listener->id.cm_handler,
			      listener->id.context);
	ev = IS_ERR(priv) ? NULL : cm_event_alloc(IB_CM_SIDR_REQ_RECEIVED,
						  GFP_KERNEL);
	if (!ev) {
		cm_drop(port, CM_DROP_NOMEM, CM_MSG_SIDR_REQ, "no memory");
		if (!IS_ERR(priv))
			ib_destroy_cm_id(&priv->id);
		cm_put(listener);
		rdma_destroy_ah_attr(&av);
		return;
	}
	if (ib_get_cached_pkey(ibdev, port->port_num, rwc->wc->pkey_index,
			       &bth_pkey))
		bth_pkey = cmf_get(msg, CM_SIDR_REQ_PKEY);

	p = &ev->ev.param.sidr_req_rcvd;
	ev->listener = listener;
	rdma_hold_gid_attr(av.grh.sgid_attr);
	ev->sgid_attr = av.grh.sgid_attr;
	p->listen_id = &listener->id;
	p->service_id = cm_be64(msg, CM_SIDR_REQ_SERVICE_ID);
	p->sgid_attr = ev->sgid_attr;
	p->bth_pkey = bth_pkey;
	p->port = port->port_num;
	p->pkey = cmf_get(msg, CM_SIDR_REQ_PKEY);
	cm_copy_pdata(ev, msg, CM_MSG_SIDR_REQ);

	priv->id.service_id = p->service_id;
	priv->id.remote_id = cm_be32(msg, CM_SIDR_REQ_ID);
	priv->sidr_sgid = av.grh.dgid;
	priv->tid = rwc->recv_buf.mad->mad_hdr.tid;
	cm_publish(priv, port, &av, ev, CM_MSG_SIDR_REQ);
}

/**
 * cm_sidr_rep_recv() - a SIDR_REP came in
 * @port: where
 * @msg: its CM payload
 */
void cm_sidr_rep_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv = cm_find_local(cm_be32(msg, CM_SIDR_REQ_ID));
	struct ib_cm_sidr_rep_event_param *p;
	struct cm_event *ev;

	if (!priv) {
		cm_drop(port, CM_DROP_NO_ID, CM_MSG_SIDR_REP, "unknown request ID");
		return;
	}
	ev = cm_event_alloc(IB_CM_SIDR_REP_RECEIVED, GFP_KERNEL);
	spin_lock_irq(&priv->lock);
	if (priv->id.state != IB_CM_SIDR_REQ_SENT) {
		cm_drop(port, CM_DROP_STATE, CM_MSG_SIDR_REP, "no SIDR_REQ outstanding");
		goto unlock;
	}
	cm_reset_idle(priv);
	if (!ev) {
		cm_drop(port, CM_DROP_NOMEM, CM_MSG_SIDR_REP, "event lost: no memory");
		goto unlock;
	}
	p = &ev->ev.param.sidr_rep_rcvd;
	p->status = cmf_get(msg, CM_SIDR_REP_STATUS);
	p->qkey = cmf_get(msg, CM_SIDR_REP_QKEY);
	p->qpn = cmf_get(msg, CM_SIDR_REP_QPN);
	p->info_len = cmf_get(msg, CM_SIDR_REP_INFO_LEN);
	p->info = ev->info;
	memcpy(ev->info, msg + CM_SIDR_REP_INFO, CM_INFO_MAX);
	rdma_hold_gid_attr(priv->av.grh.sgid_attr);
	ev->sgid_attr = priv->av.grh.sgid_attr;
	p->sgid_attr = ev->sgid_attr;
	cm_copy_pdata(ev, msg, CM_MSG_SIDR_REP);
	cm_queue_event(priv, ev);
	ev = NULL;
unlock:
	spin_unlock_irq(&priv->lock);
	if (ev)
		cm_event_free(ev);
	cm_put(priv);
}
