// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * What the connection manager does with each message it receives: check
 * it, find the ID it is for, move that ID's state and queue the event its
 * user is told.  Runs in the MAD layer's receive handler (process
 * context).  Messages that name no ID of ours, or come in a state that
 * does not expect them, are dropped and counted (debugfs ib_cm/drops);
 * repeats of a message already answered get the same answer again.
 */
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"

/**
 * cm_fill_pdata() - put private data in its place in a message
 * @msg: the message
 * @type: its type
 * @data: the data, or NULL
 * @len: its length, within the type's room
 */
void cm_fill_pdata(u8 *msg, enum cm_msg_type type, const void *data, u8 len)
{
	if (len)
		memcpy(msg + cm_pdata_place(type).off, data, len);
}

/**
 * cm_copy_pdata() - give an event the private data of a message
 * @ev: the event
 * @msg: the message
 * @type: its type
 */
void cm_copy_pdata(struct cm_event *ev, const u8 *msg, enum cm_msg_type type)
{
	struct cm_pdata_place place = cm_pdata_place(type);

	memcpy(ev->pdata, msg + place.off, place.len);
}

/**
 * cm_reply() - answer a received message without an ID
 * @port: the port it came in on
 * @av: the way back, or NULL to make it from the receive completion
 * @rwc: the received message, whose TID the answer takes
 * @type: the answer's type
 * @payload: its CM_MSG_LEN bytes
 */
void cm_reply(struct cm_port *port, struct rdma_ah_attr *av,
	      struct ib_mad_recv_wc *rwc, enum cm_msg_type type,
	      const u8 *payload)
{
	struct ib_device *ibdev = port->cm_dev->ibdev;
	struct rdma_ah_attr back = {};
	int ret;

	if (!av) {
		ret = ib_init_ah_attr_from_wc(ibdev, port->port_num, rwc->wc,
					      rwc->recv_buf.grh, &back);
		if (ret) {
			ibdev_dbg(ibdev, "cm: port %u: no way back for a %s: %d\n",
				  port->port_num, cm_msg_name(type), ret);
			return;
		}
		av = &back;
	}
	/* A failure is logged by cm_post(); the peer will ask again. */
	cm_post(port, av, type, rwc->recv_buf.mad->mad_hdr.tid, payload, NULL,
		0, 0);
	if (av == &back)
		rdma_destroy_ah_attr(&back);
}

/* A REJ of a received REQ, from no ID (IBTA: Local Comm ID 0). */
static void cm_reject_req(struct cm_port *port, struct rdma_ah_attr *av,
			  struct ib_mad_recv_wc *rwc, const u8 *req,
			  enum ib_cm_rej_reason reason, const void *ari,
			  u8 ari_len)
{
	u8 msg[CM_MSG_LEN] = {};

	memcpy(msg + CM_REMOTE_COMM_ID, req + CM_LOCAL_COMM_ID, 4);
	cmf_set(msg, CM_REJ_MSG, CM_MSG_RESPONSE_REQ);
	cmf_set(msg, CM_REJ_ARI_LEN, ari_len);
	cmf_set(msg, CM_REJ_REASON, reason);
	if (ari_len)
		memcpy(msg + CM_REJ_ARI, ari, ari_len);
	ibdev_dbg(port->cm_dev->ibdev, "cm: port %u: REQ of comm ID %#x rejected: %s\n",
		  port->port_num, be32_to_cpu(cm_be32(req, CM_LOCAL_COMM_ID)),
		  ibcm_reject_msg(reason));
	cm_reply(port, av, rwc, CM_MSG_REJ, msg);
}

/*
 * A connection whose QP a new REQ or REP names again is stale: the peer
 * has moved on, so it is disconnected (no event; a DREP or DREQ_ERROR
 * follows for its user).
 */
static void cm_disconnect_stale(struct cm_id_priv *priv)
{
	u8 msg[CM_MSG_LEN] = {};
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->id.state == IB_CM_ESTABLISHED) {
		memcpy(msg + CM_LOCAL_COMM_ID, &priv->id.local_id, 4);
		memcpy(msg + CM_REMOTE_COMM_ID, &priv->id.remote_id, 4);
		cmf_set(msg, CM_DREQ_REMOTE_QPN, priv->remote_qpn);
		priv->tid = cm_new_tid(priv->port, priv->id.local_id);
		if (cm_send_priv(priv, CM_MSG_DREQ, msg, priv->resend_ms,
				 priv->max_cm_retries))
			cm_enter_timewait(priv);
		else
			priv->id.state = IB_CM_DREQ_SENT;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* A REQ we already have an ID for came again. */
static void cm_req_repeated(struct cm_port *port, struct cm_id_priv *priv)
{
	unsigned long flags;

	cm_count(port, CM_RX_DUPLICATES, CM_MSG_REQ);
	spin_lock_irqsave(&priv->lock, flags);
	if (priv->id.state == IB_CM_MRA_REQ_SENT)
		cm_resend_last(priv);
	spin_unlock_irqrestore(&priv->lock, flags);
}

static enum ib_qp_type cm_req_qp_type(const u8 *msg)
{
	switch (cmf_get(msg, CM_REQ_TRANSPORT)) {
	case CM_TRANSPORT_UC:
		return IB_QPT_UC;
	case CM_TRANSPORT_EXT:
		return IB_QPT_XRC_TGT;
	default:
		return IB_QPT_RC;
	}
}

/* The path a REQ describes, seen from our end (we are its SGID). */
static void cm_req_path(struct sa_path_rec *path, const u8 *msg,
			const struct ib_gid_attr *sgid_attr,
			const struct rdma_ah_attr *av)
{
	u8 ack_tmo = cmf_get(msg, CM_REQ_ACK_TMO);

	/* One exact path, usable both ways. */
	*path = (struct sa_path_rec) {
		.reversible = 1,
		.numb_path = 1,
		.mtu_selector = IB_SA_EQ,
		.rate_selector = IB_SA_EQ,
		.packet_life_time_selector = IB_SA_EQ,
		.mtu = cmf_get(msg, CM_REQ_MTU),
		.rate = cmf_get(msg, CM_REQ_RATE),
		.sl = cmf_get(msg, CM_REQ_SL),
		.hop_limit = cmf_get(msg, CM_REQ_HOP_LIMIT),
		.traffic_class = cmf_get(msg, CM_REQ_TCLASS),
		/* The requester's ACK timeout covers about two life times. */
		.packet_life_time = ack_tmo ? ack_tmo - 1 : 0,
	};
	memcpy(path->dgid.raw, msg + CM_REQ_LOCAL_GID, 16);
	memcpy(path->sgid.raw, msg + CM_REQ_REMOTE_GID, 16);
	path->service_id = cm_be64(msg, CM_REQ_SERVICE_ID);
	path->flow_label = cpu_to_be32(cmf_get(msg, CM_REQ_FLOW_LABEL));
	path->pkey = cpu_to_be16(cmf_get(msg, CM_REQ_PKEY));
	path->rec_type = sa_conv_gid_to_pathrec_type(sgid_attr->gid_type);
	if (path->rec_type == SA_PATH_REC_TYPE_IB) {
		path->ib.dlid = cpu_to_be16(cmf_get(msg, CM_REQ_LOCAL_LID));
		path->ib.slid = cpu_to_be16(cmf_get(msg, CM_REQ_REMOTE_LID));
	} else {
		path->roce.route_resolved = true;
		memcpy(path->roce.dmac, av->roce.dmac, ETH_ALEN);
	}
}

/* What the REQ_RECEIVED event tells the listener's handler. */
static void cm_req_event(struct cm_event *ev, const u8 *msg, u32 port_num,
			 u16 bth_pkey, struct cm_id_priv *listener,
			 const struct rdma_ah_attr *av)
{
	ev->listener = listener;
	rdma_hold_gid_attr(av->grh.sgid_attr);
	ev->sgid_attr = av->grh.sgid_attr;
	cm_req_path(&ev->path, msg, ev->sgid_attr, av);
	cm_copy_pdata(ev, msg, CM_MSG_REQ);
	/* In the REQ's byte order; resources as our QP sees them. */
	ev->ev.param.req_rcvd = (struct ib_cm_req_event_param) {
		.ece.vendor_id = cmf_get(msg, CM_REQ_VENDOR_ID),
		.remote_ca_guid = cm_be64(msg, CM_REQ_CA_GUID),
		.remote_qkey = cmf_get(msg, CM_REQ_QKEY),
		.remote_qpn = cmf_get(msg, CM_REQ_QPN),
		.initiator_depth = cmf_get(msg, CM_REQ_RESP_RES),
		.responder_resources = cmf_get(msg, CM_REQ_INIT_DEPTH),
		.remote_cm_response_timeout = cmf_get(msg, CM_REQ_REMOTE_CM_TMO),
		.qp_type = cm_req_qp_type(msg),
		.flow_control = cmf_get(msg, CM_REQ_FLOW_CTRL),
		.starting_psn = cmf_get(msg, CM_REQ_PSN),
		.local_cm_response_timeout = cmf_get(msg, CM_REQ_LOCAL_CM_TMO),
		.retry_count = cmf_get(msg, CM_REQ_RETRY),
		.rnr_retry_count = cmf_get(msg, CM_REQ_RNR_RETRY),
		.srq = cmf_get(msg, CM_REQ_SRQ),
		.listen_id = &listener->id,
		.bth_pkey = bth_pkey,
		.port = port_num,
		.primary_path = &ev->path,
		.ppath_sgid_attr = ev->sgid_attr,
	};
}

/* What the passive side keeps of a REQ (ID not yet visible). */
static void cm_req_store(struct cm_id_priv *priv, const u8 *msg, __be64 tid)
{
	priv->id.service_id = cm_be64(msg, CM_REQ_SERVICE_ID);
	priv->id.remote_id = cm_be32(msg, CM_LOCAL_COMM_ID);
	priv->remote_ca_guid = cm_be64(msg, CM_REQ_CA_GUID);
	priv->remote_qpn = cmf_get(msg, CM_REQ_QPN);
	priv->qp_type = cm_req_qp_type(msg);
	priv->sq_psn = cmf_get(msg, CM_REQ_PSN);
	priv->path_mtu = cmf_get(msg, CM_REQ_MTU);
	priv->retry_count = cmf_get(msg, CM_REQ_RETRY);
	priv->rnr_retry_count = cmf_get(msg, CM_REQ_RNR_RETRY);
	priv->resp_res = cmf_get(msg, CM_REQ_INIT_DEPTH);
	priv->init_depth = cmf_get(msg, CM_REQ_RESP_RES);
	priv->ack_timeout = cmf_get(msg, CM_REQ_ACK_TMO);
	priv->max_cm_retries = cmf_get(msg, CM_REQ_MAX_CM_RETRIES);
	priv->resend_ms = cm_tmo_ms(cmf_get(msg, CM_REQ_LOCAL_CM_TMO));
	priv->srq = cmf_get(msg, CM_REQ_SRQ);
	priv->tid = tid;
}

/*
 * Is the REQ for our GID, from where the packet came from, and with a
 * P_Key we have?  Return 0, or the REJ reason.
 */
static int cm_req_check_path(struct cm_port *port, const u8 *msg,
			     const struct rdma_ah_attr *av, u16 *pkey_index)
{
	const struct ib_gid_attr *sgid_attr = av->grh.sgid_attr;

	if (!(av->ah_flags & IB_AH_GRH) || !sgid_attr ||
	    memcmp(sgid_attr->gid.raw, msg + CM_REQ_REMOTE_GID, 16) ||
	    memcmp(av->grh.dgid.raw, msg + CM_REQ_LOCAL_GID, 16))
		return IB_CM_REJ_INVALID_GID;
	if (ib_find_cached_pkey(port->cm_dev->ibdev, port->port_num,
				cmf_get(msg, CM_REQ_PKEY), pkey_index))
		return IB_CM_REJ_INVALID_GID;
	return 0;
}

/**
 * cm_publish() - make a new passive ID known and hand it its first event
 * @priv: the ID a REQ or SIDR_REQ made, not yet visible
 * @port: the port the request came in on
 * @av: the way back to the requester; moved into @priv
 * @ev: the REQ_RECEIVED or SIDR_REQ_RECEIVED event
 * @type: CM_MSG_REQ or CM_MSG_SIDR_REQ
 *
 * The ID is indexed by the requester's keys; if a copy of the same request
 * got there first (a retransmission racing in), this ID goes again and the
 * request counts as a duplicate.
 */
void cm_publish(struct cm_id_priv *priv, struct cm_port *port,
		struct rdma_ah_attr *av, struct cm_event *ev,
		enum cm_msg_type type)
{
	struct cm_id_priv *other;
	bool stale;

	kref_get(&port->cm_dev->ref);
	spin_lock_irq(&priv->lock);
	cm_set_av(priv, port, av);
	other = type == CM_MSG_REQ ? cm_insert_remote(priv, &stale) :
				     cm_sidr_index(priv);
	if (other) {
		spin_unlock_irq(&priv->lock);
		cm_count(port, CM_RX_DUPLICATES, type);
		cm_put(other);
		cm_event_free(ev);
		ib_destroy_cm_id(&priv->id);
		return;
	}
	priv->id.state = type == CM_MSG_REQ ? IB_CM_REQ_RCVD :
					      IB_CM_SIDR_REQ_RCVD;
	cm_queue_event(priv, ev);
	spin_unlock_irq(&priv->lock);
}

static void cm_req_recv(struct cm_port *port, struct ib_mad_recv_wc *rwc,
			const u8 *msg)
{
	struct ib_device *ibdev = port->cm_dev->ibdev;
	__be64 guid = cm_be64(msg, CM_REQ_CA_GUID);
	struct cm_id_priv *other, *listener, *priv;
	struct rdma_ah_attr av = {};
	struct cm_event *ev;
	u16 pkey_index, bth_pkey;
	union ib_gid gid0;
	int ret;

	other = cm_find_remote_id(cm_be32(msg, CM_LOCAL_COMM_ID), guid);
	if (other) {
		cm_req_repeated(port, other);
		cm_put(other);
		return;
	}
	ret = ib_init_ah_attr_from_wc(ibdev, port->port_num, rwc->wc,
				      rwc->recv_buf.grh, &av);
	if (ret) {
		cm_drop(port, CM_DROP_NO_ROUTE, CM_MSG_REQ, "no way back");
		return;
	}
	other = cm_find_remote_qpn(cmf_get(msg, CM_REQ_QPN), guid);
	if (other) {
		cm_reject_req(port, &av, rwc, msg, IB_CM_REJ_STALE_CONN,
			      NULL, 0);
		cm_disconnect_stale(other);
		cm_put(other);
		goto out;
	}
	listener = cm_find_listener(ibdev, cm_be64(msg, CM_REQ_SERVICE_ID));
	if (!listener) {
		cm_reject_req(port, &av, rwc, msg,
			      IB_CM_REJ_INVALID_SERVICE_ID, NULL, 0);
		goto out;
	}
	ret = cm_req_check_path(port, msg, &av, &pkey_index);
	if (ret) {
		if (rdma_query_gid(ibdev, port->port_num, 0, &gid0))
			memset(&gid0, 0, sizeof(gid0));
		cm_reject_req(port, &av, rwc, msg, ret, &gid0, sizeof(gid0));
		cm_put(listener);
		goto out;
	}

	priv = cm_priv_create(ibdev, listener->id.cm_handler,
			      listener->id.context);
	ev = IS_ERR(priv) ? NULL : cm_event_alloc(IB_CM_REQ_RECEIVED,
						  GFP_KERNEL);
	if (!ev || cm_prepare_timewait(priv, GFP_KERNEL)) {
		/* Unanswered: the peer's retransmission may find memory. */
		cm_drop(port, CM_DROP_NOMEM, CM_MSG_REQ, "no memory");
		kfree(ev);
		if (!IS_ERR(priv))
			ib_destroy_cm_id(&priv->id);
		cm_put(listener);
		goto out;
	}
	if (ib_get_cached_pkey(ibdev, port->port_num, rwc->wc->pkey_index,
			       &bth_pkey))
		bth_pkey = cmf_get(msg, CM_REQ_PKEY);
	cm_req_event(ev, msg, port->port_num, bth_pkey, listener, &av);
	cm_req_store(priv, msg, rwc->recv_buf.mad->mad_hdr.tid);
	priv->pkey_index = pkey_index;
	/* Our QP's packets to the requester carry its flow label and class. */
	av.grh.flow_label = cmf_get(msg, CM_REQ_FLOW_LABEL);
	av.grh.traffic_class = cmf_get(msg, CM_REQ_TCLASS);
	cm_publish(priv, port, &av, ev, CM_MSG_REQ);
	return;
out:
	rdma_destroy_ah_attr(&av);
}

/* The ID a message names by our comm ID, checked against the peer's. */
static struct cm_id_priv *cm_find_pair(const u8 *msg, bool peer_known)
{
	struct cm_id_priv *priv = cm_find_local(cm_be32(msg, CM_REMOTE_COMM_ID));
	__be32 peer = cm_be32(msg, CM_LOCAL_COMM_ID);

	if (priv && (peer_known || priv->id.remote_id) &&
	    priv->id.remote_id != peer) {
		cm_put(priv);
		priv = NULL;
	}
	return priv;
}

/* cm_find_pair() for a message that must name a connection, or dropped. */
static struct cm_id_priv *cm_pair_or_drop(struct cm_port *port, const u8 *msg,
					  enum cm_msg_type type)
{
	struct cm_id_priv *priv = cm_find_pair(msg, true);

	if (!priv)
		cm_drop(port, CM_DROP_NO_ID, type, "unknown comm IDs");
	return priv;
}

static void cm_rep_event(struct cm_event *ev, const u8 *msg)
{
	cm_copy_pdata(ev, msg, CM_MSG_REP);
	/* In the REP's byte order; resources as our QP sees them. */
	ev->ev.param.rep_rcvd = (struct ib_cm_rep_event_param) {
		.remote_qkey = cmf_get(msg, CM_REP_QKEY),
		.remote_qpn = cmf_get(msg, CM_REP_QPN),
		.ece.vendor_id = cmf_get(msg, CM_REP_VENDOR_HI) << 16 |
				 cmf_get(msg, CM_REP_VENDOR_MID) << 8 |
				 cmf_get(msg, CM_REP_VENDOR_LO),
		.starting_psn = cmf_get(msg, CM_REP_PSN),
		.initiator_depth = cmf_get(msg, CM_REP_RESP_RES),
		.responder_resources = cmf_get(msg, CM_REP_INIT_DEPTH),
		.target_ack_delay = cmf_get(msg, CM_REP_ACK_DELAY),
		.failover_accepted = cmf_get(msg, CM_REP_FAILOVER),
		.flow_control = cmf_get(msg, CM_REP_FLOW_CTRL),
		.rnr_retry_count = cmf_get(msg, CM_REP_RNR_RETRY),
		.srq = cmf_get(msg, CM_REP_SRQ),
		.remote_ca_guid = cm_be64(msg, CM_REP_CA_GUID),
	};
}

/* A REP that came again: answer as before (ID locked). */
static void cm_rep_repeated(struct cm_port *port, struct cm_id_priv *priv,
			    const u8 *msg)
{
	if (priv->id.remote_id != cm_be32(msg, CM_LOCAL_COMM_ID)) {
		cm_drop(port, CM_DROP_NO_ID, CM_MSG_REP, "another peer's comm ID");
		return;
	}
	cm_count(port, CM_RX_DUPLICATES, CM_MSG_REP);
	if ((priv->id.state == IB_CM_MRA_REP_SENT && priv->last_type == CM_MSG_MRA) ||
	    (priv->id.state == IB_CM_ESTABLISHED && priv->last_type == CM_MSG_RTU))
		cm_resend_last(priv);
}

static void cm_rep_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv, *other = NULL;
	struct cm_event *ev;
	bool stale = false;

	priv = cm_find_local(cm_be32(msg, CM_REMOTE_COMM_ID));
	if (!priv) {
		cm_drop(port, CM_DROP_NO_ID, CM_MSG_REP, "unknown comm ID");
		return;
	}
	ev = cm_event_alloc(IB_CM_REP_RECEIVED, GFP_KERNEL);
	spin_lock_irq(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_ESTABLISHED:
		cm_rep_repeated(port, priv, msg);
		goto unlock;
	default:
		cm_drop(port, CM_DROP_STATE, CM_MSG_REP, "no REQ outstanding");
		goto unlock;
	}
	if (!ev) {
		cm_drop(port, CM_DROP_NOMEM, CM_MSG_REP, "no memory");
		goto unlock;
	}
	priv->id.remote_id = cm_be32(msg, CM_LOCAL_COMM_ID);
	priv->remote_ca_guid = cm_be64(msg, CM_REP_CA_GUID);
	priv->remote_qpn = cmf_get(msg, CM_REP_QPN);
	other = cm_insert_remote(priv, &stale);
	if (other && !stale) {
		/* Another ID of ours already talks to that comm ID. */
		cm_drop(port, CM_DROP_STATE, CM_MSG_REP, "peer comm ID in use");
		priv->id.remote_id = 0;
		goto unlock;
	}
	cm_cancel_msg(priv);
	if (other) {
		u8 rej[CM_MSG_LEN] = {};

		memcpy(rej + CM_LOCAL_COMM_ID, &priv->id.local_id, 4);
		memcpy(rej + CM_REMOTE_COMM_ID, &priv->id.remote_id, 4);
		cmf_set(rej, CM_REJ_MSG, CM_MSG_RESPONSE_REP);
		cmf_set(rej, CM_REJ_REASON, IB_CM_REJ_STALE_CONN);
		cm_send_priv(priv, CM_MSG_REJ, rej, 0, 0);
		cm_reset_idle(priv);
		ev->ev.event = IB_CM_REJ_RECEIVED;
		ev->ev.param.rej_rcvd.reason = IB_CM_REJ_STALE_CONN;
		ev->ev.param.rej_rcvd.ari = ev->info;
		cm_queue_event(priv, ev);
		ev = NULL;
		goto unlock;
	}
	priv->sq_psn = cmf_get(msg, CM_REP_PSN);
	priv->resp_res = cmf_get(msg, CM_REP_INIT_DEPTH);
	priv->init_depth = cmf_get(msg, CM_REP_RESP_RES);
	priv->rnr_retry_count = cmf_get(msg, CM_REP_RNR_RETRY);
	priv->ack_timeout = cm_ack_timeout(cmf_get(msg, CM_REP_ACK_DELAY),
					   priv->ack_timeout ?
					   priv->ack_timeout - 1 : 0);
	priv->id.state = IB_CM_REP_RCVD;
	cm_rep_event(ev, msg);
	cm_queue_event(priv, ev);
	ev = NULL;
unlock:
	spin_unlock_irq(&priv->lock);
	if (ev)
		cm_event_free(ev);
	if (other) {
		if (stale)
			cm_disconnect_stale(other);
		cm_put(other);
	}
	cm_put(priv);
}

static void cm_rtu_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv = cm_pair_or_drop(port, msg, CM_MSG_RTU);

	if (!priv)
		return;
	spin_lock_irq(&priv->lock);
	if (priv->id.state == IB_CM_REP_SENT ||
	    priv->id.state == IB_CM_MRA_REP_RCVD) {
		cm_cancel_msg(priv);
		priv->id.state = IB_CM_ESTABLISHED;
		cm_queue_simple(priv, IB_CM_RTU_RECEIVED, IB_WC_SUCCESS, msg,
				CM_MSG_RTU);
	} else if (priv->id.state == IB_CM_ESTABLISHED) {
		cm_count(port, CM_RX_DUPLICATES, CM_MSG_RTU);
	} else {
		cm_drop(port, CM_DROP_STATE, CM_MSG_RTU, "no REP outstanding");
	}
	spin_unlock_irq(&priv->lock);
	cm_put(priv);
}

/* A DREQ for a connection we do not know: DREP anyway, IDs swapped. */
static void cm_dreq_unknown(struct cm_port *port, struct ib_mad_recv_wc *rwc,
			    const u8 *msg)
{
	u8 drep[CM_MSG_LEN] = {};

	memcpy(drep + CM_LOCAL_COMM_ID, msg + CM_REMOTE_COMM_ID, 4);
	memcpy(drep + CM_REMOTE_COMM_ID, msg + CM_LOCAL_COMM_ID, 4);
	cm_reply(port, NULL, rwc, CM_MSG_DREP, drep);
}

static void cm_dreq_recv(struct cm_port *port, struct ib_mad_recv_wc *rwc,
			 const u8 *msg)
{
	struct cm_id_priv *priv = cm_find_pair(msg, true);

	if (!priv) {
		cm_dreq_unknown(port, rwc, msg);
		return;
	}
	spin_lock_irq(&priv->lock);
	if (cmf_get(msg, CM_DREQ_REMOTE_QPN) != priv->local_qpn) {
		cm_drop(port, CM_DROP_STATE, CM_MSG_DREQ, "names another QP");
		goto unlock;
	}
	switch (priv->id.state) {
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
	case IB_CM_ESTABLISHED:
	case IB_CM_DREQ_SENT:
		cm_cancel_msg(priv);
		/* The DREP answers with the DREQ's transaction ID. */
		priv->tid = rwc->recv_buf.mad->mad_hdr.tid;
		priv->id.state = IB_CM_DREQ_RCVD;
		cm_queue_simple(priv, IB_CM_DREQ_RECEIVED, IB_WC_SUCCESS, msg,
				CM_MSG_DREQ);
		break;
	case IB_CM_DREQ_RCVD:
		cm_count(port, CM_RX_DUPLICATES, CM_MSG_DREQ);
		break;
	case IB_CM_TIMEWAIT:
		cm_count(port, CM_RX_DUPLICATES, CM_MSG_DREQ);
		if (priv->last_type == CM_MSG_DREP)
			cm_resend_last(priv);
		break;
	default:
		cm_drop(port, CM_DROP_STATE, CM_MSG_DREQ, "not connected");
	}
unlock:
	spin_unlock_irq(&priv->lock);
	cm_put(priv);
}

static void cm_drep_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv = cm_pair_or_drop(port, msg, CM_MSG_DREP);

	if (!priv)
		return;
	spin_lock_irq(&priv->lock);
	if (priv->id.state == IB_CM_DREQ_SENT) {
		cm_enter_timewait(priv);
		cm_queue_simple(priv, IB_CM_DREP_RECEIVED, IB_WC_SUCCESS, msg,
				CM_MSG_DREP);
	} else {
		cm_drop(port, CM_DROP_STATE, CM_MSG_DREP, "no DREQ outstanding");
	}
	spin_unlock_irq(&priv->lock);
	cm_put(priv);
}

/*
 * The ID a REJ is for: named by our comm ID, or, for a requester that gave
 * up before it knew ours (reason "timeout"), by its comm ID and the CA GUID
 * in the ARI.
 */
static struct cm_id_priv *cm_rej_target(const u8 *msg)
{
	__be64 guid;

	if (cm_be32(msg, CM_REMOTE_COMM_ID))
		return cm_find_pair(msg, false);
	if (cmf_get(msg, CM_REJ_REASON) != IB_CM_REJ_TIMEOUT ||
	    cmf_get(msg, CM_REJ_ARI_LEN) < sizeof(guid))
		return NULL;
	guid = cm_be64(msg, CM_REJ_ARI);
	return cm_find_remote_id(cm_be32(msg, CM_LOCAL_COMM_ID), guid);
}

static void cm_rej_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv = cm_rej_target(msg);
	enum ib_cm_rej_reason reason = cmf_get(msg, CM_REJ_REASON);
	struct cm_event *ev;

	if (!priv) {
		cm_drop(port, CM_DROP_NO_ID, CM_MSG_REJ, "unknown comm IDs");
		return;
	}
	ev = cm_event_alloc(IB_CM_REJ_RECEIVED, GFP_KERNEL);
	spin_lock_irq(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		if (reason == IB_CM_REJ_STALE_CONN)
			cm_enter_timewait(priv);
		else
			cm_reset_idle(priv);
		break;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		cm_reset_idle(priv);
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
	case IB_CM_ESTABLISHED:
	case IB_CM_DREQ_SENT:
		cm_enter_timewait(priv);
		break;
	default:
		cm_drop(port, CM_DROP_STATE, CM_MSG_REJ, "nothing to reject");
		goto unlock;
	}
	ibdev_dbg(priv->id.device, "cm: ID %#x rejected: %s\n",
		  be32_to_cpu(priv->id.local_id), ibcm_reject_msg(reason));
	if (!ev) {
		cm_drop(port, CM_DROP_NOMEM, CM_MSG_REJ, "event lost: no memory");
		goto unlock;
	}
	ev->ev.param.rej_rcvd.reason = reason;
	ev->ev.param.rej_rcvd.ari_length = cmf_get(msg, CM_REJ_ARI_LEN);
	ev->ev.param.rej_rcvd.ari = ev->info;
	memcpy(ev->info, msg + CM_REJ_ARI, CM_INFO_MAX);
	cm_copy_pdata(ev, msg, CM_MSG_REJ);
	cm_queue_event(priv, ev);
	ev = NULL;
unlock:
	spin_unlock_irq(&priv->lock);
	if (ev)
		cm_event_free(ev);
	cm_put(priv);
}

static void cm_mra_recv(struct cm_port *port, const u8 *msg)
{
	struct cm_id_priv *priv = cm_find_pair(msg, false);
	u8 which = cmf_get(msg, CM_MRA_MSG);
	u8 service_tmo = cmf_get(msg, CM_MRA_SERVICE_TMO);
	enum ib_cm_state state;
	struct cm_event *ev;

	if (!priv) {
		cm_drop(port, CM_DROP_NO_ID, CM_MSG_MRA, "unknown comm IDs");
		return;
	}
	spin_lock_irq(&priv->lock);
	state = priv->id.state;
	if ((which == CM_MSG_RESPONSE_REQ && state == IB_CM_REQ_SENT) ||
	    (which == CM_MSG_RESPONSE_REP && state == IB_CM_REP_SENT)) {
		priv->id.state = state == IB_CM_REQ_SENT ? IB_CM_MRA_REQ_RCVD :
							   IB_CM_MRA_REP_RCVD;
		ev = cm_event_alloc(IB_CM_MRA_RECEIVED, GFP_ATOMIC);
		if (ev) {
			ev->ev.param.mra_rcvd.service_timeout = service_tmo;
			cm_copy_pdata(ev, msg, CM_MSG_MRA);
			cm_queue_event(priv, ev);
		}
	} else if ((which == CM_MSG_RESPONSE_REQ && state == IB_CM_MRA_REQ_RCVD) ||
		   (which == CM_MSG_RESPONSE_REP && state == IB_CM_MRA_REP_RCVD)) {
		cm_count(port, CM_RX_DUPLICATES, CM_MSG_MRA);
	} else {
		cm_drop(port, CM_DROP_STATE, CM_MSG_MRA, "nothing waits for it");
		goto unlock;
	}
	/* The peer asks for its service time on top of the path's. */
	if (priv->msg)
		ib_modify_mad(priv->msg, cm_tmo_ms(service_tmo) +
					 cm_tmo_ms(priv->ack_timeout));
unlock:
	spin_unlock_irq(&priv->lock);
	cm_put(priv);
}

/**
 * cm_recv_dispatch() - check a received CM message and act on it
 * @port: the port it came in on
 * @rwc: the message; the caller frees it
 */
void cm_recv_dispatch(struct cm_port *port, struct ib_mad_recv_wc *rwc)
{
	const struct ib_mad_hdr *hdr = &rwc->recv_buf.mad->mad_hdr;
	const u8 *msg = (const u8 *)hdr + IB_MGMT_MAD_HDR;
	int type = cm_msg_type(hdr->attr_id);
	const char *why;

	if (type < 0) {
		cm_drop(port, CM_DROP_UNKNOWN, CM_MSG_TYPES,
			"attribute ID outside the CM class");
		return;
	}
	cm_count(port, CM_RX_MSGS, type);
	why = cm_msg_check(type, msg);
	if (why) {
		cm_drop(port, type >= CM_MSG_LAP ? CM_DROP_UNKNOWN :
						   CM_DROP_MALFORMED,
			type, why);
		return;
	}
	switch (type) {
	case CM_MSG_REQ:
		cm_req_recv(port, rwc, msg);
		break;
	case CM_MSG_MRA:
		cm_mra_recv(port, msg);
		break;
	case CM_MSG_REJ:
		cm_rej_recv(port, msg);
		break;
	case CM_MSG_REP:
		cm_rep_recv(port, msg);
		break;
	case CM_MSG_RTU:
		cm_rtu_recv(port, msg);
		break;
	case CM_MSG_DREQ:
		cm_dreq_recv(port, rwc, msg);
		break;
	case CM_MSG_DREP:
		cm_drep_recv(port, msg);
		break;
	case CM_MSG_SIDR_REQ:
		cm_sidr_req_recv(port, rwc, msg);
		break;
	case CM_MSG_SIDR_REP:
		cm_sidr_rep_recv(port, msg);
		break;
	}
}
