// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The InfiniBand connection manager: IDs and their lookups, event
 * delivery, time wait, and the calls of <rdma/ib_cm.h> that start or
 * answer an exchange.  What received messages do is in cm_recv.c, service
 * ID resolution in cm_sidr.c, the per-port plumbing in cm_port.c; the
 * locking and lifetime rules are at the top of cm_priv.h.
 */
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/wait_bit.h>
#include <linux/xarray.h>
#include <rdma/ib_cache.h>

#include "cm_priv.h"

MODULE_AUTHOR("RDMA core patch set");
MODULE_DESCRIPTION("InfiniBand connection manager");
MODULE_LICENSE("Dual BSD/GPL");
#ifdef RDMA_KMOD_VERSION
MODULE_VERSION(RDMA_KMOD_VERSION);
#endif

DEFINE_SPINLOCK(cm_lock);

/* Local comm ID = xarray index ^ cm_id_salt, so IDs do not repeat across boots. */
static DEFINE_XARRAY_ALLOC1(cm_ids);
static u32 cm_id_next;
static u32 cm_id_salt;

static DEFINE_HASHTABLE(cm_listeners, 6);
static DEFINE_HASHTABLE(cm_remote_ids, 8);
static DEFINE_HASHTABLE(cm_remote_qpns, 8);
static u32 cm_assigned_sid;

static struct workqueue_struct *cm_wq;

/**
 * struct cm_timewait - a connection's time wait
 * @work: ends it
 * @node: on cm_timewaits
 * @priv: the ID, until the ID is destroyed or the work claims it
 * @index: the ID's xarray slot, released here when the ID went first
 */
struct cm_timewait {
	struct delayed_work	work;
	struct list_head	node;
	struct cm_id_priv	*priv;
	u32			index;
};

static LIST_HEAD(cm_timewaits);

/* ---- IDs ---------------------------------------------------------------- */

static void cm_event_work(struct work_struct *work);

/**
 * cm_priv_create() - a new ID in state IDLE with a fresh local comm ID
 * @ibdev: its device
 * @handler: its handler
 * @context: the handler's context
 *
 * Return: the ID with one reference (the user's), or an ERR_PTR().
 */
struct cm_id_priv *cm_priv_create(struct ib_device *ibdev,
				  ib_cm_handler handler, void *context)
{
	struct cm_id_priv *priv;
	int ret;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&priv->lock);
	refcount_set(&priv->refs, 1);
	INIT_LIST_HEAD(&priv->events);
	INIT_WORK(&priv->event_work, cm_event_work);
	priv->last_type = CM_MSG_TYPES;
	priv->id.device = ibdev;
	priv->id.cm_handler = handler;
	priv->id.context = context;
	priv->id.state = IB_CM_IDLE;
	priv->id.remote_cm_qpn = 1;

	do {
		ret = xa_alloc_cyclic(&cm_ids, &priv->index, priv, xa_limit_32b,
				      &cm_id_next, GFP_KERNEL);
		if (ret < 0) {
			kfree(priv);
			return ERR_PTR(ret);
		}
		/* Comm ID 0 means "none" on the wire. */
		if ((priv->index ^ cm_id_salt) == 0) {
			xa_erase(&cm_ids, priv->index);
			continue;
		}
	} while ((priv->index ^ cm_id_salt) == 0);
	priv->id.local_id = cpu_to_be32(priv->index ^ cm_id_salt);
	return priv;
}

static void cm_free(struct cm_id_priv *priv)
{
	if (priv->has_av) {
		rdma_destroy_ah_attr(&priv->av);
		cm_device_put(priv->port->cm_dev);
	}
	kfree(priv->timewait);
	kfree(priv->last);
	if (priv->index)
		xa_erase(&cm_ids, priv->index);
	kfree_rcu(priv, rcu);
}

/**
 * cm_get() - take a reference on an ID the caller already holds one of
 * @priv: the ID
 */
void cm_get(struct cm_id_priv *priv)
{
	refcount_inc(&priv->refs);
}

/**
 * cm_put() - drop a reference on an ID; the last one frees it
 * @priv: the ID
 */
void cm_put(struct cm_id_priv *priv)
{
	if (refcount_dec_and_test(&priv->refs))
		cm_free(priv);
	else
		wake_up_var(priv);
}

/**
 * cm_find_local() - the ID that owns a local comm ID
 * @local_id: the ID as the wire carries it
 *
 * Return: the ID with a reference, or NULL.
 */
struct cm_id_priv *cm_find_local(__be32 local_id)
{
	u32 index = be32_to_cpu(local_id) ^ cm_id_salt;
	struct cm_id_priv *priv;

	rcu_read_lock();
	priv = xa_load(&cm_ids, index);
	if (xa_is_value(priv) || (priv && priv->id.local_id != local_id) ||
	    (priv && !refcount_inc_not_zero(&priv->refs)))
		priv = NULL;
	rcu_read_unlock();
	return priv;
}

static u32 cm_listen_hash(struct ib_device *ibdev, __be64 service_id)
{
	return jhash_2words((u32)(uintptr_t)ibdev,
			    (__force u32)service_id ^
			    (u32)((__force u64)service_id >> 32), 0);
}

/* cm_lock held. */
static struct cm_id_priv *cm_listener_locked(struct ib_device *ibdev,
					     __be64 service_id)
{
	struct cm_id_priv *priv;

	hash_for_each_possible(cm_listeners, priv, listen_node,
			       cm_listen_hash(ibdev, service_id))
		if (priv->id.device == ibdev &&
		    priv->id.service_id == service_id)
			return priv;
	return NULL;
}

/**
 * cm_find_listener() - the listener of a service on a device
 * @ibdev: the device
 * @service_id: the service
 *
 * Return: the listener with a reference, or NULL.
 */
struct cm_id_priv *cm_find_listener(struct ib_device *ibdev,
				    __be64 service_id)
{
	struct cm_id_priv *priv;

	spin_lock_irq(&cm_lock);
	priv = cm_listener_locked(ibdev, service_id);
	if (priv)
		cm_get(priv);
	spin_unlock_irq(&cm_lock);
	return priv;
}

static u32 cm_remote_hash(u32 id, __be64 ca_guid)
{
	return jhash_3words(id, (__force u32)ca_guid,
			    (u32)((__force u64)ca_guid >> 32), 0);
}

/* cm_lock held. */
static struct cm_id_priv *cm_remote_id_locked(__be32 remote_id,
					      __be64 ca_guid)
{
	struct cm_id_priv *priv;

	hash_for_each_possible(cm_remote_ids, priv, remote_id_node,
			       cm_remote_hash((__force u32)remote_id, ca_guid))
		if (priv->id.remote_id == remote_id &&
		    priv->remote_ca_guid == ca_guid)
			return priv;
	return NULL;
}

/* cm_lock held. */
static struct cm_id_priv *cm_remote_qpn_locked(u32 qpn, __be64 ca_guid)
{
	struct cm_id_priv *priv;

	hash_for_each_possible(cm_remote_qpns, priv, remote_qpn_node,
			       cm_remote_hash(qpn, ca_guid))
		if (priv->remote_qpn == qpn && priv->remote_ca_guid == ca_guid)
			return priv;
	return NULL;
}

/**
 * cm_find_remote_id() - the connection a peer's comm ID belongs to
 * @remote_id: the peer's comm ID
 * @ca_guid: the peer's CA GUID
 *
 * Return: the ID with a reference, or NULL.
 */
struct cm_id_priv *cm_find_remote_id(__be32 remote_id, __be64 ca_guid)
{
	struct cm_id_priv *priv;

	spin_lock_irq(&cm_lock);
	priv = cm_remote_id_locked(remote_id, ca_guid);
	if (priv)
		cm_get(priv);
	spin_unlock_irq(&cm_lock);
	return priv;
}

/**
 * cm_find_remote_qpn() - the live connection to a peer's QP
 * @qpn: the peer's QP
 * @ca_guid: the peer's CA GUID
 *
 * Return: the ID with a reference, or NULL.
 */
struct cm_id_priv *cm_find_remote_qpn(u32 qpn, __be64 ca_guid)
{
	struct cm_id_priv *priv;

	spin_lock_irq(&cm_lock);
	priv = cm_remote_qpn_locked(qpn, ca_guid);
	if (priv)
		cm_get(priv);
	spin_unlock_irq(&cm_lock);
	return priv;
}

/**
 * cm_insert_remote() - index a connection by its peer's comm ID and QP
 * @priv: the ID, locked, with remote_id, remote_qpn and remote_ca_guid set
 * @stale: set when the conflict returned is on the QP (a stale connection)
 *
 * Both keys go in, or neither.  The QP key is skipped for XRC targets
 * (remote_qpn 0), which several initiators' QPs reach.
 *
 * Return: NULL, or the ID that already holds one of the keys, with a
 * reference.
 */
struct cm_id_priv *cm_insert_remote(struct cm_id_priv *priv, bool *stale)
{
	struct cm_id_priv *other;

	*stale = false;
	spin_lock(&cm_lock);
	other = cm_remote_id_locked(priv->id.remote_id, priv->remote_ca_guid);
	if (!other && priv->remote_qpn) {
		other = cm_remote_qpn_locked(priv->remote_qpn,
					     priv->remote_ca_guid);
		*stale = other;
	}
	if (other) {
		cm_get(other);
	} else {
		hash_add(cm_remote_ids, &priv->remote_id_node,
			 cm_remote_hash((__force u32)priv->id.remote_id,
					priv->remote_ca_guid));
		priv->in_remote_id = true;
		if (priv->remote_qpn) {
			hash_add(cm_remote_qpns, &priv->remote_qpn_node,
				 cm_remote_hash(priv->remote_qpn,
						priv->remote_ca_guid));
			priv->in_remote_qpn = true;
		}
	}
	spin_unlock(&cm_lock);
	return other;
}

/**
 * cm_remove_remote() - take a connection out of the peer-keyed tables
 * @priv: the ID, locked
 */
void cm_remove_remote(struct cm_id_priv *priv)
{
	spin_lock(&cm_lock);
	if (priv->in_remote_id)
		hash_del(&priv->remote_id_node);
	if (priv->in_remote_qpn)
		hash_del(&priv->remote_qpn_node);
	priv->in_remote_id = false;
	priv->in_remote_qpn = false;
	spin_unlock(&cm_lock);
}

/**
 * cm_set_av() - give an ID its port and address vector
 * @priv: the ID, locked (or not yet visible)
 * @port: the port; the caller's reference on its cm_device passes to @priv
 * @av: moved into @priv, with its GID reference
 */
void cm_set_av(struct cm_id_priv *priv, struct cm_port *port,
	       struct rdma_ah_attr *av)
{
	if (priv->has_av) {
		rdma_destroy_ah_attr(&priv->av);
		cm_device_put(priv->port->cm_dev);
	}
	rdma_move_ah_attr(&priv->av, av);
	priv->port = port;
	priv->has_av = true;
}

/* ---- events ------------------------------------------------------------- */

/**
 * cm_event_alloc() - an empty event of a type
 * @type: the event
 * @gfp: allocation flags
 *
 * Return: the event, its private data pointing at its own storage, or NULL.
 */
struct cm_event *cm_event_alloc(enum ib_cm_event_type type, gfp_t gfp)
{
	struct cm_event *ev = kzalloc(sizeof(*ev), gfp);

	if (ev) {
		ev->ev.event = type;
		ev->ev.private_data = ev->pdata;
	}
	return ev;
}

/**
 * cm_event_free() - free an event and the references it holds
 * @ev: the event
 */
void cm_event_free(struct cm_event *ev)
{
	if (ev->sgid_attr)
		rdma_put_gid_attr(ev->sgid_attr);
	if (ev->listener)
		cm_put(ev->listener);
	kfree(ev);
}

/**
 * cm_queue_event() - hand an event to an ID's handler, in order
 * @priv: the ID, locked
 * @ev: the event; freed here if the ID takes no more events
 */
void cm_queue_event(struct cm_id_priv *priv, struct cm_event *ev)
{
	if (priv->destroyed) {
		cm_event_free(ev);
		return;
	}
	list_add_tail(&ev->node, &priv->events);
	if (queue_work(cm_wq, &priv->event_work))
		cm_get(priv);
}

/**
 * cm_queue_simple() - queue an event whose only data is a status or the
 *	private data of a message
 * @priv: the ID, locked
 * @type: the event
 * @status: for the *_ERROR events
 * @msg: the message whose private data the event carries, or NULL
 * @msg_type: its type
 */
void cm_queue_simple(struct cm_id_priv *priv, enum ib_cm_event_type type,
		     enum ib_wc_status status, const u8 *msg,
		     enum cm_msg_type msg_type)
{
	struct cm_event *ev = cm_event_alloc(type, GFP_ATOMIC);

	if (!ev) {
		ibdev_dbg(priv->id.device, "cm: event %d of ID %#x lost: no memory\n",
			  type, be32_to_cpu(priv->id.local_id));
		return;
	}
	ev->ev.param.send_status = status;
	if (msg)
		cm_copy_pdata(ev, msg, msg_type);
	cm_queue_event(priv, ev);
}

static void cm_teardown(struct cm_id_priv *priv, int err);

static void cm_event_work(struct work_struct *work)
{
	struct cm_id_priv *priv = container_of(work, struct cm_id_priv,
					       event_work);
	struct cm_event *ev;
	int ret;

	for (;;) {
		spin_lock_irq(&priv->lock);
		ev = list_first_entry_or_null(&priv->events, struct cm_event,
					      node);
		if (!ev || priv->destroyed) {
			spin_unlock_irq(&priv->lock);
			break;
		}
		list_del(&ev->node);
		spin_unlock_irq(&priv->lock);

		ret = priv->id.cm_handler(&priv->id, &ev->ev);
		cm_event_free(ev);
		if (ret) {
			/* The handler gave the ID up: the user's reference goes. */
			cm_teardown(priv, ret);
			cm_put(priv);
			break;
		}
	}
	cm_put(priv);
}

/* ---- states ------------------------------------------------------------- */

/**
 * cm_cancel_msg() - stop waiting for the answer to the ID's last request
 * @priv: the ID, locked
 */
void cm_cancel_msg(struct cm_id_priv *priv)
{
	if (priv->msg) {
		ib_cancel_mad(priv->msg);
		priv->msg = NULL;
	}
}

/**
 * cm_reset_idle() - back to IDLE: nothing outstanding, no longer indexed
 * @priv: the ID, locked
 */
void cm_reset_idle(struct cm_id_priv *priv)
{
	cm_cancel_msg(priv);
	cm_remove_remote(priv);
	priv->mra_delayed = false;
	priv->id.state = IB_CM_IDLE;
}

/**
 * cm_prepare_timewait() - make sure the ID can enter time wait later
 * @priv: the ID
 * @gfp: allocation flags
 *
 * Return: 0 or -ENOMEM.
 */
int cm_prepare_timewait(struct cm_id_priv *priv, gfp_t gfp)
{
	struct cm_timewait *tw;
	unsigned long flags;

	if (READ_ONCE(priv->timewait))
		return 0;
	tw = kzalloc(sizeof(*tw), gfp);
	if (!tw)
		return -ENOMEM;
	spin_lock_irqsave(&priv->lock, flags);
	if (!priv->timewait) {
		priv->timewait = tw;
		tw = NULL;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	kfree(tw);
	return 0;
}

static void cm_timewait_work(struct work_struct *work);

/**
 * cm_enter_timewait() - the connection is over; keep its IDs out of use
 *	for a while, then report TIMEWAIT_EXIT
 * @priv: the ID, locked
 *
 * The wait is the QP's ACK timeout: long enough for the peer's last
 * packets of the connection to be gone.
 */
void cm_enter_timewait(struct cm_id_priv *priv)
{
	struct cm_timewait *tw = priv->timewait;

	cm_cancel_msg(priv);
	cm_remove_remote(priv);
	priv->mra_delayed = false;
	if (!tw || tw->priv) {
		/* No time wait was prepared (or one is running): go idle. */
		priv->id.state = IB_CM_IDLE;
		return;
	}
	priv->id.state = IB_CM_TIMEWAIT;
	INIT_DELAYED_WORK(&tw->work, cm_timewait_work);
	tw->priv = priv;
	tw->index = priv->index;
	spin_lock(&cm_lock);
	list_add_tail(&tw->node, &cm_timewaits);
	spin_unlock(&cm_lock);
	queue_delayed_work(cm_wq, &tw->work,
			   msecs_to_jiffies(cm_tmo_ms(priv->ack_timeout)));
}

static void cm_timewait_work(struct work_struct *work)
{
	struct cm_timewait *tw = container_of(to_delayed_work(work),
					      struct cm_timewait, work);
	struct cm_id_priv *priv;

	spin_lock_irq(&cm_lock);
	list_del(&tw->node);
	priv = tw->priv;
	tw->priv = NULL;
	if (priv)
		cm_get(priv);
	spin_unlock_irq(&cm_lock);

	if (!priv) {
		/* The ID is gone; its comm ID may be used again now. */
		xa_erase(&cm_ids, tw->index);
		kfree(tw);
		return;
	}
	spin_lock_irq(&priv->lock);
	priv->timewait = NULL;
	if (priv->id.state == IB_CM_TIMEWAIT) {
		priv->id.state = IB_CM_IDLE;
		cm_queue_simple(priv, IB_CM_TIMEWAIT_EXIT, IB_WC_SUCCESS,
				NULL, 0);
	}
	spin_unlock_irq(&priv->lock);
	kfree(tw);
	cm_put(priv);
}

/*
 * The ID in time wait is being destroyed: its time wait goes on without it
 * and keeps the comm ID reserved (ID locked).
 */
static void cm_detach_timewait(struct cm_id_priv *priv)
{
	struct cm_timewait *tw = priv->timewait;

	spin_lock(&cm_lock);
	if (tw->priv == priv) {
		tw->priv = NULL;
		priv->timewait = NULL;
		xa_store(&cm_ids, priv->index, xa_mk_value(0), GFP_ATOMIC);
		priv->index = 0;
	}
	spin_unlock(&cm_lock);
}

/**
 * cm_send_done() - a send of an ID ended
 * @priv: the ID
 * @buf: the send
 * @status: how it ended
 *
 * Only the ID's outstanding send matters here: when it ends other than by
 * our own cancel (the answer came), the peer never answered.
 */
void cm_send_done(struct cm_id_priv *priv, struct ib_mad_send_buf *buf,
		  enum ib_wc_status status)
{
	enum ib_cm_event_type event;
	unsigned long flags;

	spin_lock_irqsave(&priv->lock, flags);
	if (priv->msg != buf) {
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}
	priv->msg = NULL;
	switch (priv->id.state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		event = IB_CM_REQ_ERROR;
		cm_reset_idle(priv);
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		event = IB_CM_REP_ERROR;
		cm_reset_idle(priv);
		break;
	case IB_CM_DREQ_SENT:
		event = IB_CM_DREQ_ERROR;
		cm_enter_timewait(priv);
		break;
	case IB_CM_SIDR_REQ_SENT:
		event = IB_CM_SIDR_REQ_ERROR;
		cm_reset_idle(priv);
		break;
	default:
		spin_unlock_irqrestore(&priv->lock, flags);
		return;
	}
	ibdev_dbg(priv->id.device, "cm: ID %#x: %s unanswered (%s)\n",
		  be32_to_cpu(priv->id.local_id),
		  cm_msg_name((uintptr_t)buf->context[1]),
		  ib_wc_status_msg(status));
	cm_queue_simple(priv, event, status, NULL, 0);
	spin_unlock_irqrestore(&priv->lock, flags);
}

/* ---- messages the calls build ------------------------------------------ */

static void cm_put_ids(u8 *msg, const struct cm_id_priv *priv)
{
	memcpy(msg + CM_LOCAL_COMM_ID, &priv->id.local_id, 4);
	memcpy(msg + CM_REMOTE_COMM_ID, &priv->id.remote_id, 4);
}

/* Send a REJ from @priv (locked); it is kept for duplicates. */
static int cm_send_rej_locked(struct cm_id_priv *priv, u8 msg_rejected,
			      enum ib_cm_rej_reason reason, const void *ari,
			      u8 ari_len, const void *pdata, u8 pdata_len)
{
	u8 msg[CM_MSG_LEN] = {};

	cm_put_ids(msg, priv);
	cmf_set(msg, CM_REJ_MSG, msg_rejected);
	cmf_set(msg, CM_REJ_ARI_LEN, ari_len);
	cmf_set(msg, CM_REJ_REASON, reason);
	if (ari_len)
		memcpy(msg + CM_REJ_ARI, ari, ari_len);
	cm_fill_pdata(msg, CM_MSG_REJ, pdata, pdata_len);
	return cm_send_priv(priv, CM_MSG_REJ, msg, 0, 0);
}

static int cm_send_dreq_locked(struct cm_id_priv *priv, const void *pdata,
			       u8 pdata_len, bool wait)
{
	u8 msg[CM_MSG_LEN] = {};

	cm_put_ids(msg, priv);
	cmf_set(msg, CM_DREQ_REMOTE_QPN, priv->remote_qpn);
	cm_fill_pdata(msg, CM_MSG_DREQ, pdata, pdata_len);
	priv->tid = cm_new_tid(priv->port, priv->id.local_id);
	return cm_send_priv(priv, CM_MSG_DREQ, msg,
			    wait ? priv->resend_ms : 0,
			    wait ? priv->max_cm_retries : 0);
}

static int cm_send_drep_locked(struct cm_id_priv *priv, const void *pdata,
			       u8 pdata_len)
{
	u8 msg[CM_MSG_LEN] = {};

	cm_put_ids(msg, priv);
	cm_fill_pdata(msg, CM_MSG_DREP, pdata, pdata_len);
	return cm_send_priv(priv, CM_MSG_DREP, msg, 0, 0);
}

/* ---- teardown ----------------------------------------------------------- */

/*
 * The ID's user lets go of it (@err: the handler's non-zero return, or 0):
 * end what the state leaves open the way the protocol wants, unindex it
 * and stop its events.
 */
static void cm_teardown(struct cm_id_priv *priv, int err)
{
	__be64 guid = priv->id.device->node_guid;
	struct cm_event *ev, *tmp;
	LIST_HEAD(dropped);

	spin_lock_irq(&priv->lock);
	switch (priv->id.state) {
	case IB_CM_LISTEN:
		spin_lock(&cm_lock);
		if (priv->listening)
			hash_del(&priv->listen_node);
		priv->listening = false;
		spin_unlock(&cm_lock);
		priv->id.state = IB_CM_IDLE;
		break;
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
		cm_cancel_msg(priv);
		cm_send_rej_locked(priv, CM_MSG_RESPONSE_OTHER,
				   IB_CM_REJ_TIMEOUT, &guid, sizeof(guid),
				   NULL, 0);
		cm_reset_idle(priv);
		break;
	case IB_CM_REQ_RCVD:
		if (err != -ENOMEM)
			cm_send_rej_locked(priv, CM_MSG_RESPONSE_REQ,
					   IB_CM_REJ_CONSUMER_DEFINED,
					   NULL, 0, NULL, 0);
		cm_reset_idle(priv);
		break;
	case IB_CM_MRA_REQ_SENT:
		cm_send_rej_locked(priv, CM_MSG_RESPONSE_REQ,
				   IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		cm_reset_idle(priv);
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		cm_send_rej_locked(priv, CM_MSG_RESPONSE_REP,
				   IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		cm_reset_idle(priv);
		break;
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		cm_cancel_msg(priv);
		cm_send_rej_locked(priv, CM_MSG_RESPONSE_OTHER,
				   IB_CM_REJ_CONSUMER_DEFINED, NULL, 0, NULL, 0);
		cm_enter_timewait(priv);
		break;
	case IB_CM_ESTABLISHED:
		cm_send_dreq_locked(priv, NULL, 0, false);
		cm_enter_timewait(priv);
		break;
	case IB_CM_DREQ_SENT:
		cm_enter_timewait(priv);
		break;
	case IB_CM_DREQ_RCVD:
		cm_send_drep_locked(priv, NULL, 0);
		cm_enter_timewait(priv);
		break;
	case IB_CM_SIDR_REQ_SENT:
		cm_reset_idle(priv);
		break;
	case IB_CM_SIDR_REQ_RCVD:
		cm_sidr_reject_locked(priv);
		break;
	case IB_CM_IDLE:
	case IB_CM_TIMEWAIT:
		break;
	}
	if (priv->id.state == IB_CM_TIMEWAIT)
		cm_detach_timewait(priv);
	cm_cancel_msg(priv);
	cm_remove_remote(priv);
	cm_sidr_unindex(priv);
	priv->destroyed = true;
	list_splice_init(&priv->events, &dropped);
	spin_unlock_irq(&priv->lock);

	list_for_each_entry_safe(ev, tmp, &dropped, node)
		cm_event_free(ev);
}

/* ---- the API ------------------------------------------------------------ */

/**
 * ib_create_cm_id() - a new connection-manager ID
 * @device: the device its connection (or listener) is on
 * @cm_handler: where its events go
 * @context: stored in the ID for @cm_handler
 *
 * Context: process context.
 * Return: the ID in state IB_CM_IDLE, or an ERR_PTR(): -ENOMEM, or
 * -ENOSPC when every comm ID is in use.
 */
struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler, void *context)
{
	struct cm_id_priv *priv = cm_priv_create(device, cm_handler, context);

	return IS_ERR(priv) ? ERR_CAST(priv) : &priv->id;
}
EXPORT_SYMBOL(ib_create_cm_id);

/*
 * A listener made by ib_cm_insert_listen() is shared: all but the last
 * destroy only let go of their share.
 */
static bool cm_unshare(struct cm_id_priv *priv)
{
	bool shared = false;

	spin_lock_irq(&cm_lock);
	if (priv->listen_shares > 1) {
		priv->listen_shares--;
		shared = true;
	}
	spin_unlock_irq(&cm_lock);
	return shared;
}

/**
 * ib_destroy_cm_id() - let go of an ID
 * @cm_id: the ID
 *
 * What the ID's state leaves open is closed the way the protocol wants: a
 * pending request is rejected (REJ "timeout" from the requester, "consumer
 * defined" from the responder), an established connection is disconnected
 * (DREQ, or DREP to a DREQ received) and passes through time wait without
 * the ID, a listener stops listening once its last share goes.
 *
 * Context: process context; sleeps until no handler of the ID runs and no
 * other reference to it is left.  Not from the ID's own handler (which
 * returns non-zero instead).
 */
void ib_destroy_cm_id(struct ib_cm_id *cm_id)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);

	if (cm_unshare(priv))
		return;
	cm_teardown(priv, 0);
	if (cancel_work_sync(&priv->event_work))
		cm_put(priv);
	wait_var_event(priv, refcount_read(&priv->refs) == 1);
	cm_put(priv);
}
EXPORT_SYMBOL(ib_destroy_cm_id);

/* Listen on @service_id, assigning one if asked (ID locked). */
static int cm_listen_locked(struct cm_id_priv *priv, __be64 service_id)
{
	struct ib_device *ibdev = priv->id.device;

	if (priv->id.state != IB_CM_IDLE)
		return -EINVAL;
	spin_lock(&cm_lock);
	if (service_id == IB_CM_ASSIGN_SERVICE_ID) {
		do {
			service_id = IB_CM_ASSIGN_SERVICE_ID |
				     cpu_to_be64(++cm_assigned_sid);
		} while (cm_listener_locked(ibdev, service_id));
	} else if (cm_listener_locked(ibdev, service_id)) {
		spin_unlock(&cm_lock);
		return -EBUSY;
	}
	priv->id.service_id = service_id;
	hash_add(cm_listeners, &priv->listen_node,
		 cm_listen_hash(ibdev, service_id));
	priv->listening = true;
	priv->listen_shares = 1;
	spin_unlock(&cm_lock);
	priv->id.state = IB_CM_LISTEN;
	return 0;
}

/**
 * ib_cm_listen() - take the connection and SIDR requests for a service
 * @cm_id: an ID in state IB_CM_IDLE
 * @service_id: the service, or IB_CM_ASSIGN_SERVICE_ID for one chosen
 *	here (then in @cm_id->service_id)
 *
 * Each request that comes in for the service on the ID's device gets a
 * new ID, whose first event (REQ_RECEIVED or SIDR_REQ_RECEIVED) goes to
 * this ID's handler and context with listen_id pointing here.
 *
 * Context: any.
 * Return: 0, -EINVAL when the ID is not idle, -EBUSY when another ID
 * listens on the service on this device.
 */
int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&priv->lock, flags);
	ret = cm_listen_locked(priv, service_id);
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_listen);

/**
 * ib_cm_insert_listen() - listen on a service, sharing an existing listener
 * @device: the device
 * @cm_handler: the listener's handler (its context is NULL)
 * @service_id: the service
 *
 * If an ID made this way already listens on @service_id with the same
 * handler, it is returned with one more share; each share is given back
 * with ib_destroy_cm_id().
 *
 * Context: process context.
 * Return: the listening ID, or an ERR_PTR(): -EINVAL when another handler
 * listens on the service, -ENOMEM.
 */
struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id)
{
	struct cm_id_priv *priv, *found;
	int ret;

	priv = cm_priv_create(device, cm_handler, NULL);
	if (IS_ERR(priv))
		return ERR_CAST(priv);

	spin_lock_irq(&priv->lock);
	spin_lock(&cm_lock);
	found = cm_listener_locked(device, service_id);
	if (found) {
		if (found->id.cm_handler == cm_handler &&
		    !found->id.context) {
			found->listen_shares++;
			ret = 0;
		} else {
			ret = -EINVAL;
		}
		spin_unlock(&cm_lock);
		spin_unlock_irq(&priv->lock);
		ib_destroy_cm_id(&priv->id);
		return ret ? ERR_PTR(ret) : &found->id;
	}
	spin_unlock(&cm_lock);
	ret = cm_listen_locked(priv, service_id);
	spin_unlock_irq(&priv->lock);
	if (ret) {
		ib_destroy_cm_id(&priv->id);
		return ERR_PTR(ret);
	}
	return &priv->id;
}
EXPORT_SYMBOL(ib_cm_insert_listen);

/**
 * cm_path_sgid() - our GID entry a path starts from
 * @ibdev: the device
 * @path: the path
 * @given: the entry the caller named, or NULL to look the path's SGID up
 *
 * Return: the entry with a reference the caller drops, or an ERR_PTR().
 */
const struct ib_gid_attr *cm_path_sgid(struct ib_device *ibdev,
				       struct sa_path_rec *path,
				       const struct ib_gid_attr *given)
{
	if (given) {
		if (given->device != ibdev)
			return ERR_PTR(-EINVAL);
		rdma_hold_gid_attr(given);
		return given;
	}
	return rdma_find_gid(ibdev, &path->sgid,
			     sa_conv_pathrec_to_gid_type(path), NULL);
}

/**
 * cm_port_av() - the port and address vector of a path from a GID entry
 * @ibdev: the device
 * @path: the path
 * @sgid_attr: our end of it
 * @av: filled; holds a GID reference when this succeeds
 * @port: the port, with a reference on its cm_device
 *
 * Return: 0, -EINVAL when the port has no CM, or an error of
 * ib_init_ah_attr_from_path().
 */
int cm_port_av(struct ib_device *ibdev, struct sa_path_rec *path,
	       const struct ib_gid_attr *sgid_attr, struct rdma_ah_attr *av,
	       struct cm_port **port)
{
	int ret;

	*port = cm_port_of(ibdev, sgid_attr->port_num);
	if (!*port)
		return -EINVAL;
	ret = ib_init_ah_attr_from_path(ibdev, sgid_attr->port_num, path, av,
					sgid_attr);
	if (ret) {
		cm_device_put((*port)->cm_dev);
		*port = NULL;
	}
	return ret;
}

static int cm_check_req_param(struct ib_cm_req_param *param)
{
	if (!param->primary_path || param->alternate_path)
		return -EINVAL;
	if (param->private_data_len > IB_CM_REQ_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;
	switch (param->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_XRC_INI:
		return 0;
	default:
		return -EINVAL;
	}
}

/* The path half of a REQ, IBTA 12.6.5 (bytes 52 to 95). */
static void cm_req_put_path(u8 *msg, struct sa_path_rec *path, u8 ack_tmo)
{
	bool local = path->hop_limit <= 1;

	/*
	 * RoCE has no LIDs: the permissive LID marks a routed (global)
	 * path, 0 one on the local subnet.
	 */
	if (path->rec_type == SA_PATH_REC_TYPE_IB) {
		cmf_set(msg, CM_REQ_LOCAL_LID, be16_to_cpu(path->ib.slid));
		cmf_set(msg, CM_REQ_REMOTE_LID, be16_to_cpu(path->ib.dlid));
	} else if (!local) {
		cmf_set(msg, CM_REQ_LOCAL_LID, 0xffff);
		cmf_set(msg, CM_REQ_REMOTE_LID, 0xffff);
	}
	memcpy(msg + CM_REQ_LOCAL_GID, path->sgid.raw, 16);
	memcpy(msg + CM_REQ_REMOTE_GID, path->dgid.raw, 16);
	cmf_set(msg, CM_REQ_FLOW_LABEL, be32_to_cpu(path->flow_label));
	cmf_set(msg, CM_REQ_RATE, path->rate);
	cmf_set(msg, CM_REQ_TCLASS, path->traffic_class);
	cmf_set(msg, CM_REQ_HOP_LIMIT, path->hop_limit);
	cmf_set(msg, CM_REQ_SL, path->sl);
	cmf_set(msg, CM_REQ_SUBNET_LOCAL, local);
	cmf_set(msg, CM_REQ_ACK_TMO, ack_tmo);
}

static void cm_req_build(u8 *msg, struct cm_id_priv *priv,
			 struct ib_cm_req_param *param, u8 ack_tmo)
{
	u32 vendor = param->ece.vendor_id;

	memcpy(msg + CM_LOCAL_COMM_ID, &priv->id.local_id, 4);
	cmf_set(msg, CM_REQ_VENDOR_ID, vendor);
	memcpy(msg + CM_REQ_SERVICE_ID, &param->service_id, 8);
	memcpy(msg + CM_REQ_CA_GUID, &priv->id.device->node_guid, 8);
	cmf_set(msg, CM_REQ_QPN, param->qp_num);
	cmf_set(msg, CM_REQ_RESP_RES, param->responder_resources);
	cmf_set(msg, CM_REQ_INIT_DEPTH, param->initiator_depth);
	cmf_set(msg, CM_REQ_REMOTE_CM_TMO, param->remote_cm_response_timeout);
	if (param->qp_type == IB_QPT_XRC_INI) {
		cmf_set(msg, CM_REQ_TRANSPORT, CM_TRANSPORT_EXT);
		cmf_set(msg, CM_REQ_EXT_TRANSPORT, CM_EXT_TRANSPORT_XRC);
	} else {
		cmf_set(msg, CM_REQ_TRANSPORT, param->qp_type == IB_QPT_UC ?
				CM_TRANSPORT_UC : CM_TRANSPORT_RC);
	}
	cmf_set(msg, CM_REQ_FLOW_CTRL, !!param->flow_control);
	cmf_set(msg, CM_REQ_PSN, param->starting_psn);
	cmf_set(msg, CM_REQ_LOCAL_CM_TMO, param->local_cm_response_timeout);
	cmf_set(msg, CM_REQ_RETRY, min_t(u8, param->retry_count, 7));
	cmf_set(msg, CM_REQ_PKEY, be16_to_cpu(param->primary_path->pkey));
	cmf_set(msg, CM_REQ_MTU, param->primary_path->mtu);
	cmf_set(msg, CM_REQ_RNR_RETRY, min_t(u8, param->rnr_retry_count, 7));
	cmf_set(msg, CM_REQ_MAX_CM_RETRIES, min_t(u8, param->max_cm_retries, 15));
	cmf_set(msg, CM_REQ_SRQ, !!param->srq);
	cm_req_put_path(msg, param->primary_path, ack_tmo);
	cm_fill_pdata(msg, CM_MSG_REQ, param->private_data,
		      param->private_data_len);
}

/**
 * ib_send_cm_req() - ask a peer for a connection
 * @cm_id: an ID in state IB_CM_IDLE
 * @param: the QP, the service, the path and what to negotiate
 *
 * The REQ goes out on the port of @param->ppath_sgid_attr (or of the GID
 * entry that holds the path's source GID) and is resent every
 * 2 * packet life time + remote CM response time until the peer answers
 * (REP, MRA or REJ) or @param->max_cm_retries resends have gone
 * unanswered (IB_CM_REQ_ERROR).  Only a primary path is taken.
 *
 * Context: process context (the route of a RoCE path may be resolved).
 * Return: 0, -EINVAL (bad parameters, not idle, no CM on the port),
 * -ENOMEM, -ENODEV (the device is going), or an error resolving the path.
 */
int ib_send_cm_req(struct ib_cm_id *cm_id, struct ib_cm_req_param *param)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	struct ib_device *ibdev = cm_id->device;
	struct sa_path_rec *path = param->primary_path;
	const struct ib_gid_attr *sgid_attr;
	struct rdma_ah_attr av = {};
	struct cm_port *port;
	u8 msg[CM_MSG_LEN] = {};
	u16 pkey_index;
	u8 ack_tmo;
	int ret;

	ret = cm_check_req_param(param);
	if (ret)
		return ret;
	sgid_attr = cm_path_sgid(ibdev, path, param->ppath_sgid_attr);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);
	ret = ib_find_cached_pkey(ibdev, sgid_attr->port_num,
				  be16_to_cpu(path->pkey), &pkey_index);
	if (!ret)
		ret = cm_prepare_timewait(priv, GFP_KERNEL);
	if (!ret)
		ret = cm_port_av(ibdev, path, sgid_attr, &av, &port);
	rdma_put_gid_attr(sgid_attr);
	if (ret)
		return ret;

	ack_tmo = cm_ack_timeout(ibdev->attrs.local_ca_ack_delay,
				 path->packet_life_time);
	cm_req_build(msg, priv, param, ack_tmo);

	spin_lock_irq(&priv->lock);
	if (cm_id->state != IB_CM_IDLE) {
		spin_unlock_irq(&priv->lock);
		rdma_destroy_ah_attr(&av);
		cm_device_put(port->cm_dev);
		return -EINVAL;
	}
	cm_set_av(priv, port, &av);
	cm_id->service_id = param->service_id;
	cm_id->remote_id = 0;
	priv->qp_type = param->qp_type;
	priv->local_qpn = param->qp_num;
	priv->rq_psn = param->starting_psn;
	priv->pkey_index = pkey_index;
	priv->resp_res = param->responder_resources;
	priv->init_depth = param->initiator_depth;
	priv->retry_count = min_t(u8, param->retry_count, 7);
	priv->path_mtu = path->mtu;
	priv->ack_timeout = min_t(u8, path->packet_life_time + 1, 31);
	priv->max_cm_retries = min_t(u8, param->max_cm_retries, 15);
	priv->resend_ms = 2 * cm_tmo_ms(path->packet_life_time) +
			  cm_tmo_ms(param->remote_cm_response_timeout);
	priv->srq = param->srq;
	priv->tid = cm_new_tid(port, cm_id->local_id);
	ret = cm_send_priv(priv, CM_MSG_REQ, msg, priv->resend_ms,
			   priv->max_cm_retries);
	if (!ret)
		cm_id->state = IB_CM_REQ_SENT;
	spin_unlock_irq(&priv->lock);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_req);

/**
 * ib_send_cm_rep() - accept a connection request
 * @cm_id: an ID in state IB_CM_REQ_RCVD or IB_CM_MRA_REQ_SENT
 * @param: our QP and what we agree to
 *
 * The REP is resent every local CM response time of the requester until
 * an RTU (or a DREQ, REJ or ib_cm_notify(IB_EVENT_COMM_EST)) ends the wait,
 * as many times as the REQ allowed (then IB_CM_REP_ERROR).
 *
 * Context: any.
 * Return: 0, -EINVAL (state, private data too long), -ENOMEM or -ENODEV.
 */
int ib_send_cm_rep(struct ib_cm_id *cm_id, struct ib_cm_rep_param *param)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	u32 vendor = param->ece.vendor_id;
	u8 msg[CM_MSG_LEN] = {};
	unsigned long flags;
	int ret;

	if (param->private_data_len > IB_CM_REP_PRIVATE_DATA_SIZE ||
	    (param->private_data_len && !param->private_data))
		return -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state != IB_CM_REQ_RCVD &&
	    cm_id->state != IB_CM_MRA_REQ_SENT) {
		ret = -EINVAL;
		goto out;
	}
	cm_put_ids(msg, priv);
	cmf_set(msg, CM_REP_QPN, param->qp_num);
	if (priv->qp_type == IB_QPT_XRC_TGT)
		cmf_set(msg, CM_REP_EECN, param->qp_num);
	cmf_set(msg, CM_REP_VENDOR_HI, vendor >> 16);
	cmf_set(msg, CM_REP_VENDOR_MID, vendor >> 8);
	cmf_set(msg, CM_REP_VENDOR_LO, vendor);
	cmf_set(msg, CM_REP_PSN, param->starting_psn);
	cmf_set(msg, CM_REP_RESP_RES, param->responder_resources);
	cmf_set(msg, CM_REP_INIT_DEPTH, param->initiator_depth);
	cmf_set(msg, CM_REP_ACK_DELAY, cm_id->device->attrs.local_ca_ack_delay);
	cmf_set(msg, CM_REP_FAILOVER, param->failover_accepted);
	cmf_set(msg, CM_REP_FLOW_CTRL, !!param->flow_control);
	cmf_set(msg, CM_REP_RNR_RETRY, min_t(u8, param->rnr_retry_count, 7));
	cmf_set(msg, CM_REP_SRQ, !!param->srq);
	memcpy(msg + CM_REP_CA_GUID, &cm_id->device->node_guid, 8);
	cm_fill_pdata(msg, CM_MSG_REP, param->private_data,
		      param->private_data_len);

	ret = cm_send_priv(priv, CM_MSG_REP, msg, priv->resend_ms,
			   priv->max_cm_retries);
	if (ret)
		goto out;
	priv->local_qpn = param->qp_num;
	priv->rq_psn = param->starting_psn;
	priv->resp_res = param->responder_resources;
	priv->init_depth = param->initiator_depth;
	priv->srq = param->srq;
	priv->mra_delayed = false;
	cm_id->state = IB_CM_REP_SENT;
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rep);

/**
 * ib_send_cm_rtu() - confirm the peer's REP: the connection is up
 * @cm_id: an ID in state IB_CM_REP_RCVD or IB_CM_MRA_REP_SENT
 * @private_data: up to IB_CM_RTU_PRIVATE_DATA_SIZE bytes, or NULL
 * @private_data_len: their length
 *
 * The RTU is sent once, and again whenever the peer repeats its REP.
 *
 * Context: any.
 * Return: 0, -EINVAL (state, length), -ENOMEM or -ENODEV.
 */
int ib_send_cm_rtu(struct ib_cm_id *cm_id, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	u8 msg[CM_MSG_LEN] = {};
	unsigned long flags;
	int ret = -EINVAL;

	if (private_data_len > IB_CM_RTU_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_REP_RCVD ||
	    cm_id->state == IB_CM_MRA_REP_SENT) {
		cm_put_ids(msg, priv);
		cm_fill_pdata(msg, CM_MSG_RTU, private_data, private_data_len);
		ret = cm_send_priv(priv, CM_MSG_RTU, msg, 0, 0);
		if (!ret) {
			priv->mra_delayed = false;
			cm_id->state = IB_CM_ESTABLISHED;
		}
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rtu);

/**
 * ib_send_cm_dreq() - start disconnecting an established connection
 * @cm_id: an ID in state IB_CM_ESTABLISHED
 * @private_data: up to IB_CM_DREQ_PRIVATE_DATA_SIZE bytes, or NULL
 * @private_data_len: their length
 *
 * The DREQ is resent until the peer's DREP (IB_CM_DREP_RECEIVED) or its
 * own DREQ comes; if neither does, IB_CM_DREQ_ERROR.  Either way the ID
 * then spends the time-wait period in IB_CM_TIMEWAIT.  If the DREQ cannot
 * be sent at all, the ID enters time wait at once.
 *
 * Context: any.
 * Return: 0, -EINVAL (state, length), or why the DREQ could not be sent.
 */
int ib_send_cm_dreq(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	int ret = -EINVAL;

	if (private_data_len > IB_CM_DREQ_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_ESTABLISHED) {
		ret = cm_send_dreq_locked(priv, private_data, private_data_len,
					  true);
		if (ret)
			cm_enter_timewait(priv);
		else
			cm_id->state = IB_CM_DREQ_SENT;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_dreq);

/**
 * ib_send_cm_drep() - answer the peer's DREQ
 * @cm_id: an ID in state IB_CM_DREQ_RCVD
 * @private_data: up to IB_CM_DREP_PRIVATE_DATA_SIZE bytes, or NULL
 * @private_data_len: their length
 *
 * The ID enters time wait; the DREP is sent once, and again whenever the
 * peer repeats its DREQ meanwhile.
 *
 * Context: any.
 * Return: 0, -EINVAL (state, length), -ENOMEM or -ENODEV.
 */
int ib_send_cm_drep(struct ib_cm_id *cm_id, const void *private_data,
		    u8 private_data_len)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	int ret = -EINVAL;

	if (private_data_len > IB_CM_DREP_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_DREQ_RCVD) {
		ret = cm_send_drep_locked(priv, private_data, private_data_len);
		cm_enter_timewait(priv);
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_drep);

/**
 * ib_send_cm_rej() - refuse a connection request or reply
 * @cm_id: an ID between IB_CM_REQ_SENT and IB_CM_MRA_REP_RCVD
 * @reason: why
 * @ari: additional rejection information, or NULL
 * @ari_length: its length, at most IB_CM_REJ_ARI_LENGTH
 * @private_data: up to IB_CM_REJ_PRIVATE_DATA_SIZE bytes, or NULL
 * @private_data_len: their length
 *
 * The ID goes back to IB_CM_IDLE, or into time wait when our REP was
 * already out (the peer may have moved its QP on).
 *
 * Context: any.
 * Return: 0, -EINVAL (state, lengths), -ENOMEM or -ENODEV.
 */
int ib_send_cm_rej(struct ib_cm_id *cm_id, enum ib_cm_rej_reason reason,
		   void *ari, u8 ari_length, const void *private_data,
		   u8 private_data_len)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	u8 rejected;
	int ret;

	if (ari_length > IB_CM_REJ_ARI_LENGTH || (ari_length && !ari) ||
	    private_data_len > IB_CM_REJ_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;

	spin_lock_irqsave(&priv->lock, flags);
	switch (cm_id->state) {
	case IB_CM_REQ_SENT:
	case IB_CM_MRA_REQ_RCVD:
	case IB_CM_REP_SENT:
	case IB_CM_MRA_REP_RCVD:
		rejected = CM_MSG_RESPONSE_OTHER;
		break;
	case IB_CM_REQ_RCVD:
	case IB_CM_MRA_REQ_SENT:
		rejected = CM_MSG_RESPONSE_REQ;
		break;
	case IB_CM_REP_RCVD:
	case IB_CM_MRA_REP_SENT:
		rejected = CM_MSG_RESPONSE_REP;
		break;
	default:
		ret = -EINVAL;
		goto out;
	}
	cm_cancel_msg(priv);
	ret = cm_send_rej_locked(priv, rejected, reason, ari, ari_length,
				 private_data, private_data_len);
	if (cm_id->state == IB_CM_REP_SENT ||
	    cm_id->state == IB_CM_MRA_REP_RCVD)
		cm_enter_timewait(priv);
	else
		cm_reset_idle(priv);
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_rej);

/**
 * ib_send_cm_mra() - tell the peer its REQ or REP needs more time
 * @cm_id: an ID in state IB_CM_REQ_RCVD or IB_CM_REP_RCVD
 * @service_timeout: the time we need (exponent of 4.096 us), ORed with
 *	IB_CM_MRA_FLAG_DELAY to send the MRA only if the peer repeats itself
 * @private_data: up to IB_CM_MRA_PRIVATE_DATA_SIZE bytes, or NULL
 * @private_data_len: their length
 *
 * Context: any.
 * Return: 0, -EINVAL (state, length), -ENOMEM or -ENODEV.
 */
int ib_send_cm_mra(struct ib_cm_id *cm_id, u8 service_timeout,
		   const void *private_data, u8 private_data_len)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	bool delay = service_timeout & IB_CM_MRA_FLAG_DELAY;
	enum ib_cm_state next;
	u8 msg[CM_MSG_LEN] = {};
	unsigned long flags;
	u8 which;
	int ret = 0;

	if (private_data_len > IB_CM_MRA_PRIVATE_DATA_SIZE ||
	    (private_data_len && !private_data))
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_REQ_RCVD) {
		which = CM_MSG_RESPONSE_REQ;
		next = IB_CM_MRA_REQ_SENT;
	} else if (cm_id->state == IB_CM_REP_RCVD) {
		which = CM_MSG_RESPONSE_REP;
		next = IB_CM_MRA_REP_SENT;
	} else {
		ret = -EINVAL;
		goto out;
	}
	cm_put_ids(msg, priv);
	cmf_set(msg, CM_MRA_MSG, which);
	cmf_set(msg, CM_MRA_SERVICE_TMO, service_timeout & 0x1f);
	cm_fill_pdata(msg, CM_MSG_MRA, private_data, private_data_len);
	if (delay) {
		if (!priv->last)
			priv->last = kmalloc(CM_MSG_LEN, GFP_ATOMIC);
		if (!priv->last) {
			ret = -ENOMEM;
			goto out;
		}
		memcpy(priv->last, msg, CM_MSG_LEN);
		priv->last_type = CM_MSG_MRA;
		priv->mra_delayed = true;
	} else {
		ret = cm_send_priv(priv, CM_MSG_MRA, msg, 0, 0);
		if (ret)
			goto out;
	}
	cm_id->state = next;
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_send_cm_mra);

/**
 * ib_cm_notify() - pass on a QP event the CM cares about
 * @cm_id: the ID of the QP's connection
 * @event: IB_EVENT_COMM_EST: the QP received while the RTU was still
 *	awaited, so the connection is up (the RTU may have been lost)
 *
 * Context: any.
 * Return: 0 (IB_CM_USER_ESTABLISHED follows), -EISCONN when the connection
 * was already established, -EINVAL for other states and events.
 */
int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	unsigned long flags;
	int ret = -EINVAL;

	if (event != IB_EVENT_COMM_EST)
		return -EINVAL;
	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state == IB_CM_REP_SENT ||
	    cm_id->state == IB_CM_MRA_REP_RCVD) {
		cm_cancel_msg(priv);
		cm_id->state = IB_CM_ESTABLISHED;
		cm_queue_simple(priv, IB_CM_USER_ESTABLISHED, IB_WC_SUCCESS,
				NULL, 0);
		ret = 0;
	} else if (cm_id->state == IB_CM_ESTABLISHED) {
		ret = -EISCONN;
	}
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_notify);

static bool cm_state_has_peer(enum ib_cm_state state)
{
	return state >= IB_CM_REQ_RCVD && state <= IB_CM_ESTABLISHED &&
	       state != IB_CM_MRA_REQ_RCVD;
}

/**
 * ib_cm_init_qp_attr() - the QP attributes that take a QP to a state
 * @cm_id: the ID of the QP's connection
 * @qp_attr: @qp_attr->qp_state says which (INIT, RTR or RTS); the rest is
 *	filled.  The address vector's GID entry is the ID's, valid while
 *	the ID lives: the caller neither holds nor drops it.
 * @qp_attr_mask: set to the attributes filled, for ib_modify_qp()
 *
 * INIT is known from the REQ on; RTR and RTS once both sides' QPs are
 * known (the REQ received, or the REP).
 *
 * Context: any.
 * Return: 0, or -EINVAL when the state asked for is not yet known.
 */
int ib_cm_init_qp_attr(struct ib_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	struct cm_id_priv *priv = to_cm_priv(cm_id);
	bool rc = priv->qp_type == IB_QPT_RC;
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&priv->lock, flags);
	if (cm_id->state < IB_CM_REQ_SENT || cm_id->state > IB_CM_ESTABLISHED ||
	    !priv->has_av) {
		ret = -EINVAL;
		goto out;
	}
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS |
				IB_QP_PKEY_INDEX | IB_QP_PORT;
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE;
		if (priv->resp_res)
			qp_attr->qp_access_flags |= IB_ACCESS_REMOTE_READ |
						    IB_ACCESS_REMOTE_ATOMIC;
		qp_attr->pkey_index = priv->pkey_index;
		qp_attr->port_num = priv->port->port_num;
		break;
	case IB_QPS_RTR:
		if (!cm_state_has_peer(cm_id->state)) {
			ret = -EINVAL;
			break;
		}
		*qp_attr_mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
				IB_QP_DEST_QPN | IB_QP_RQ_PSN;
		qp_attr->ah_attr = priv->av;
		qp_attr->path_mtu = priv->path_mtu;
		qp_attr->dest_qp_num = priv->remote_qpn;
		qp_attr->rq_psn = priv->rq_psn;
		if (rc) {
			*qp_attr_mask |= IB_QP_MAX_DEST_RD_ATOMIC |
					 IB_QP_MIN_RNR_TIMER;
			qp_attr->max_dest_rd_atomic = priv->resp_res;
			qp_attr->min_rnr_timer = 0;
		}
		break;
	case IB_QPS_RTS:
		if (!cm_state_has_peer(cm_id->state)) {
			ret = -EINVAL;
			break;
		}
		*qp_attr_mask = IB_QP_STATE | IB_QP_SQ_PSN;
		qp_attr->sq_psn = priv->sq_psn;
		if (rc) {
			*qp_attr_mask |= IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
					 IB_QP_MAX_QP_RD_ATOMIC | IB_QP_TIMEOUT;
			qp_attr->retry_cnt = priv->retry_count;
			qp_attr->rnr_retry = priv->rnr_retry_count;
			qp_attr->max_rd_atomic = priv->init_depth;
			qp_attr->timeout = priv->ack_timeout;
		}
		break;
	default:
		ret = -EINVAL;
	}
out:
	spin_unlock_irqrestore(&priv->lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_cm_init_qp_attr);

/* The words for each REJ reason IBTA assigns (table 112). */
static const struct {
	u8 reason;
	const char *text;
} cm_rej_texts[] = {
	{ IB_CM_REJ_NO_QP, "no QP" },
	{ IB_CM_REJ_NO_EEC, "no EEC" },
	{ IB_CM_REJ_NO_RESOURCES, "no resources" },
	{ IB_CM_REJ_TIMEOUT, "timeout" },
	{ IB_CM_REJ_UNSUPPORTED, "unsupported" },
	{ IB_CM_REJ_INVALID_COMM_ID, "invalid comm ID" },
	{ IB_CM_REJ_INVALID_COMM_INSTANCE, "invalid comm instance" },
	{ IB_CM_REJ_INVALID_SERVICE_ID, "invalid service ID" },
	{ IB_CM_REJ_INVALID_TRANSPORT_TYPE, "invalid transport type" },
	{ IB_CM_REJ_STALE_CONN, "stale conn" },
	{ IB_CM_REJ_RDC_NOT_EXIST, "RDC not exist" },
	{ IB_CM_REJ_INVALID_GID, "invalid GID" },
	{ IB_CM_REJ_INVALID_LID, "invalid LID" },
	{ IB_CM_REJ_INVALID_SL, "invalid SL" },
	{ IB_CM_REJ_INVALID_TRAFFIC_CLASS, "invalid traffic class" },
	{ IB_CM_REJ_INVALID_HOP_LIMIT, "invalid hop limit" },
	{ IB_CM_REJ_INVALID_PACKET_RATE, "invalid packet rate" },
	{ IB_CM_REJ_INVALID_ALT_GID, "invalid alt GID" },
	{ IB_CM_REJ_INVALID_ALT_LID, "invalid alt LID" },
	{ IB_CM_REJ_INVALID_ALT_SL, "invalid alt SL" },
	{ IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS, "invalid alt traffic class" },
	{ IB_CM_REJ_INVALID_ALT_HOP_LIMIT, "invalid alt hop limit" },
	{ IB_CM_REJ_INVALID_ALT_PACKET_RATE, "invalid alt packet rate" },
	{ IB_CM_REJ_PORT_CM_REDIRECT, "port CM redirect" },
	{ IB_CM_REJ_PORT_REDIRECT, "port redirect" },
	{ IB_CM_REJ_INVALID_MTU, "invalid MTU" },
	{ IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES, "insufficient resp resources" },
	{ IB_CM_REJ_CONSUMER_DEFINED, "consumer defined" },
	{ IB_CM_REJ_INVALID_RNR_RETRY, "invalid RNR retry" },
	{ IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID, "duplicate local comm ID" },
	{ IB_CM_REJ_INVALID_CLASS_VERSION, "invalid class version" },
	{ IB_CM_REJ_INVALID_FLOW_LABEL, "invalid flow label" },
	{ IB_CM_REJ_INVALID_ALT_FLOW_LABEL, "invalid alt flow label" },
	{ IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED, "vendor option is not supported" },
};

/**
 * ibcm_reject_msg() - a REJ reason in words
 * @reason: an enum ib_cm_rej_reason value, as a REJ carried it
 *
 * Return: a short text, "unrecognized reason" for values IBTA leaves
 * unassigned.
 */
const char *__attribute_const__ ibcm_reject_msg(int reason)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cm_rej_texts); i++)
		if (cm_rej_texts[i].reason == reason)
			return cm_rej_texts[i].text;
	return "unrecognized reason";
}
EXPORT_SYMBOL(ibcm_reject_msg);

static int __init ib_cm_init(void)
{
	int ret;

	cm_id_salt = get_random_u32();
	cm_wq = alloc_workqueue("ib_cm", 0, 0);
	if (!cm_wq)
		return -ENOMEM;
	ret = cm_port_init();
	if (ret)
		destroy_workqueue(cm_wq);
	return ret;
}

static void __exit ib_cm_exit(void)
{
	struct cm_timewait *tw;

	cm_port_exit();
	/* End the time waits still running now; the workqueue's end waits for them. */
	spin_lock_irq(&cm_lock);
	list_for_each_entry(tw, &cm_timewaits, node)
		mod_delayed_work(cm_wq, &tw->work, 0);
	spin_unlock_irq(&cm_lock);
	destroy_workqueue(cm_wq);
	WARN_ON(!xa_empty(&cm_ids));
	xa_destroy(&cm_ids);
}

module_init(ib_cm_init);
module_exit(ib_cm_exit);
