// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The iWARP connection manager (module iw_cm).
 *
 * An iWARP provider makes its connections itself (TCP, then the MPA
 * request and reply, private data included).  This module puts one state
 * machine over them: users call iw_cm_*(), which reach the provider
 * through the iw_* ops of struct ib_device_ops, and the provider tells
 * what happened through the event_handler of the struct iw_cm_id.  Those
 * reports may come in any context: each is copied into a record, queued on
 * its ID, and handed to the user's cm_handler from a workqueue, in process
 * context, one at a time and in the order they came.
 *
 * There is no port mapper (iwpm): m_local_addr and m_remote_addr are
 * copies of local_addr and remote_addr and mapped stays false, which is
 * all a provider with IW_F_NO_PORT_MAP needs.
 *
 * Documentation/infiniband/iw_cm.rst has the state machine and both
 * sides of the contract.
 */
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("iWARP connection manager");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(RDMA_KMOD_VERSION);

/*
 * The states of an ID.  A QP is held (iw_add_ref) in CONN_SENT, in
 * CONN_RECV once the request is accepted, in ESTABLISHED and in CLOSING.
 */
enum iwcm_state {
	IWCM_IDLE,		/* new, or its connection is over */
	IWCM_LISTEN,		/* iw_cm_listen() */
	IWCM_CONN_SENT,		/* iw_cm_connect(), no reply yet */
	IWCM_CONN_RECV,		/* the new ID of a request, until established */
	IWCM_ESTABLISHED,
	IWCM_CLOSING,		/* a disconnect was asked for or reported */
	IWCM_DESTROYING,	/* no handler call starts any more */
};

/*
 * Records every ID owns from its creation: a connection sees at most
 * three events at once (its reply or establishment, DISCONNECT, CLOSE).
 * Further ones are allocated with GFP_ATOMIC as events come.
 */
#define IWCM_RESERVED_RECS	3

/* The backlog a listener gets when its user gives none. */
#define IWCM_DEFAULT_BACKLOG	256

/**
 * struct iwcm_rec - a provider event waiting for its ID's work
 * @node: on the ID's @queue while it waits, on its @spare list otherwise
 * @ev: the event as the provider gave it; ev.private_data points to @data
 * @data: the copy of the event's private data
 */
struct iwcm_rec {
	struct list_head	node;
	struct iw_cm_event	ev;
	u8			data[U8_MAX];
};

/**
 * struct iwcm_id - an iw_cm ID
 * @id: the part users and providers see
 * @handler_mutex: held around every call of the user's handler.  The new
 *	ID of a request is handed to the listener's handler holding the
 *	listener's and (nested) the new ID's, so that the new ID's own
 *	events wait until that call has returned.
 * @call_mutex: serializes what reaches the provider or @qp: the
 *	iw_cm_*() calls, the end of the ID, and the work's state changes
 * @lock: guards @state (written under @call_mutex too, read under
 *	either), @queue and @spare; taken in any context
 * @state: enum iwcm_state
 * @qp: the connection's QP, held with iw_add_ref(), or NULL (@call_mutex)
 * @refs: the references, see below
 * @destroyed: set by iw_destroy_cm_id(), completed as the ID is freed
 * @work: hands the events of @queue to the user
 * @queue: events from the provider not handled yet, oldest first
 * @spare: records not in use
 *
 * Locks, outermost first: @handler_mutex, @call_mutex, @lock.  The
 * provider's ops are called under @call_mutex (never under @lock); they
 * may report events and take or drop references from inside.
 *
 * References: one is the owner's, from creation (for the new ID of a
 * request, from the CONNECT_REQUEST handler call) until
 * iw_destroy_cm_id() or a handler's non-zero return; the provider holds
 * one per add_ref() until its rem_ref(), and reports events only while
 * it holds one; @work holds one while it is queued.  The last one frees
 * the ID, in whatever context it is dropped: by then the ID has let its QP
 * go and only memory is left.
 */
struct iwcm_id {
	struct iw_cm_id		id;
	struct mutex		handler_mutex;	/* see above */
	struct mutex		call_mutex;	/* see above */
	spinlock_t		lock;		/* see above */
	enum iwcm_state		state;
	struct ib_qp		*qp;
	refcount_t		refs;
	struct completion	*destroyed;
	struct work_struct	work;
	struct list_head	queue;
	struct list_head	spare;
};

static struct workqueue_struct *iwcm_wq;

static struct iwcm_id *iwcm_priv(struct iw_cm_id *id)
{
	return container_of(id, struct iwcm_id, id);
}

/* ---- states and references ------------------------------------------- */

static enum iwcm_state iwcm_state(struct iwcm_id *p)
{
	enum iwcm_state s;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	s = p->state;
	spin_unlock_irqrestore(&p->lock, flags);
	return s;
}

/* Context: @p's call_mutex held. */
static void iwcm_set_state(struct iwcm_id *p, enum iwcm_state s)
{
	unsigned long flags;

	lockdep_assert_held(&p->call_mutex);
	spin_lock_irqsave(&p->lock, flags);
	p->state = s;
	spin_unlock_irqrestore(&p->lock, flags);
}

static void iwcm_free(struct iwcm_id *p)
{
	struct iwcm_rec *rec, *tmp;

	list_for_each_entry_safe(rec, tmp, &p->spare, node)
		kfree(rec);
	kfree(p);
}

static void iwcm_put(struct iwcm_id *p)
{
	struct completion *done;

	if (!refcount_dec_and_test(&p->refs))
		return;
	done = p->destroyed;
	iwcm_free(p);
	if (done)
		complete(done);
}

/* cm_id->add_ref and cm_id->rem_ref: the provider's references. */
static void iwcm_provider_get(struct iw_cm_id *cm_id)
{
	refcount_inc(&iwcm_priv(cm_id)->refs);
}

static void iwcm_provider_put(struct iw_cm_id *cm_id)
{
	iwcm_put(iwcm_priv(cm_id));
}

/* Without a port mapper the addresses the provider uses are the user's. */
static void iwcm_unmapped(struct iw_cm_id *cm_id)
{
	cm_id->m_local_addr = cm_id->local_addr;
	cm_id->m_remote_addr = cm_id->remote_addr;
	cm_id->mapped = false;
}

/* ---- the QP ------------------------------------------------------------ */

/* Find the QP @qpn of the ID's device and hold it as the ID's. */
static int iwcm_hold_qp(struct iwcm_id *p, u32 qpn)
{
	struct ib_device *dev = p->id.device;
	struct ib_qp *qp;

	lockdep_assert_held(&p->call_mutex);
	qp = dev->ops.iw_get_qp(dev, qpn);
	if (!qp) {
		ibdev_dbg(dev, "iw_cm: no QP %u\n", qpn);
		return -EINVAL;
	}
	dev->ops.iw_add_ref(qp);
	p->qp = qp;
	return 0;
}

/* Let the ID's QP go, if it holds one. */
static void iwcm_release_qp(struct iwcm_id *p)
{
	lockdep_assert_held(&p->call_mutex);
	if (!p->qp)
		return;
	p->id.device->ops.iw_rem_ref(p->qp);
	p->qp = NULL;
}

/* Move the ID's QP to @to; a QP already closing may refuse, harmlessly. */
static void iwcm_qp_to(struct iwcm_id *p, enum ib_qp_state to)
{
	struct ib_qp_attr attr = { .qp_state = to };
	int ret;

	lockdep_assert_held(&p->call_mutex);
	ret = ib_modify_qp(p->qp, &attr, IB_QP_STATE);
	if (ret)
		ibdev_dbg(p->id.device, "iw_cm: QP %u not moved to state %d: %d\n",
			  p->qp->qp_num, to, ret);
}

/* ---- IDs --------------------------------------------------------------- */

static void iwcm_work(struct work_struct *work);
static int iwcm_event(struct iw_cm_id *cm_id, struct iw_cm_event *ev);

static struct iwcm_id *iwcm_alloc(struct ib_device *device,
				  iw_cm_handler handler, void *context)
{
	struct iwcm_id *p = kzalloc(sizeof(*p), GFP_KERNEL);
	struct iwcm_rec *rec;
	int i;

	if (!p)
		return NULL;
	INIT_LIST_HEAD(&p->spare);
	for (i = 0; i < IWCM_RESERVED_RECS; i++) {
		rec = kmalloc(sizeof(*rec), GFP_KERNEL);
		if (!rec) {
			iwcm_free(p);
			return NULL;
		}
		list_add(&rec->node, &p->spare);
	}
	INIT_LIST_HEAD(&p->queue);
	mutex_init(&p->handler_mutex);
	mutex_init(&p->call_mutex);
	spin_lock_init(&p->lock);
	refcount_set(&p->refs, 1);
	INIT_WORK(&p->work, iwcm_work);
	p->state = IWCM_IDLE;
	p->id = (struct iw_cm_id) {
		/* the user's */
		.cm_handler = handler,
		.context = context,
		.device = device,
		/* the provider's ways in */
		.event_handler = iwcm_event,
		.add_ref = iwcm_provider_get,
		.rem_ref = iwcm_provider_put,
	};
	return p;
}

static bool iwcm_device_ok(const struct ib_device *device)
{
	const struct ib_device_ops *ops = &device->ops;

	return ops->iw_connect && ops->iw_accept && ops->iw_reject &&
	       ops->iw_create_listen && ops->iw_destroy_listen &&
	       ops->iw_add_ref && ops->iw_rem_ref && ops->iw_get_qp;
}

/**
 * iw_create_cm_id() - a new iw_cm ID
 * @device: an iWARP device (its provider offers the iw_* ops)
 * @cm_handler: the user's event handler, see Documentation/infiniband/iw_cm.rst
 * @context: stored in the ID for the user
 *
 * The ID starts IDLE.  The user fills in local_addr (and remote_addr to
 * connect), and may set tos, tos_set and afonly, before it listens or
 * connects.
 *
 * Context: process context.
 * Return: the ID, or ERR_PTR(-EOPNOTSUPP) for a device without the iw_*
 * ops, ERR_PTR(-ENOMEM).
 */
struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context)
{
	struct iwcm_id *p;

	if (!iwcm_device_ok(device)) {
		ibdev_dbg(device, "iw_cm: the device has no iWARP CM ops\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	p = iwcm_alloc(device, cm_handler, context);
	if (!p) {
		ibdev_dbg(device, "iw_cm: no memory for an ID\n");
		return ERR_PTR(-ENOMEM);
	}
	return &p->id;
}
EXPORT_SYMBOL(iw_create_cm_id);

/*
 * Enter DESTROYING and undo what the ID has with its provider: a listener
 * stops, a request nobody answered is refused, the QP of a connection
 * (even one closing gracefully) goes to ERR so that the provider ends it
 * now, and the QP is let go.  No handler call begins once the state is
 * DESTROYING (iwcm_deliver() looks under handler_mutex); one that began
 * before may still be running, and its calls on the ID then fail.
 */
static void iwcm_end(struct iwcm_id *p)
{
	struct iw_cm_id *cm_id = &p->id;
	enum iwcm_state s;
	unsigned long flags;
	int ret = 0;

	mutex_lock(&p->call_mutex);
	spin_lock_irqsave(&p->lock, flags);
	s = p->state;
	p->state = IWCM_DESTROYING;
	spin_unlock_irqrestore(&p->lock, flags);
	if (s == IWCM_LISTEN)
		ret = cm_id->device->ops.iw_destroy_listen(cm_id);
	else if (s == IWCM_CONN_RECV && !p->qp)
		ret = cm_id->device->ops.iw_reject(cm_id, NULL, 0);
	else if (p->qp)
		iwcm_qp_to(p, IB_QPS_ERR);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: ending an ID in state %d: %d\n",
			  s, ret);
	iwcm_release_qp(p);
	mutex_unlock(&p->call_mutex);
}

/**
 * iw_destroy_cm_id() - destroy an iw_cm ID
 * @cm_id: the ID
 *
 * A listener stops listening, a request not answered yet is refused, and
 * a connection is ended abruptly: its QP goes to ERR and is let go.  Then
 * this waits until the provider has dropped every reference it took on
 * the ID and no handler runs or will run on it: a provider must release
 * its references once its connection is gone (see iw_cm.rst).
 *
 * Context: process context; sleeps.  Never from the ID's own handler
 * (return non-zero from it instead).
 */
void iw_destroy_cm_id(struct iw_cm_id *cm_id)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	DECLARE_COMPLETION_ONSTACK(done);

	iwcm_end(p);
	p->destroyed = &done;
	iwcm_put(p);
	wait_for_completion(&done);
}
EXPORT_SYMBOL(iw_destroy_cm_id);

/* ---- calls -------------------------------------------------------------- */

/**
 * iw_cm_listen() - take connection requests on the ID's local address
 * @cm_id: an IDLE ID whose local_addr is set (a wildcard address listens
 *	on every address of the device)
 * @backlog: requests the provider may hold before they are answered;
 *	zero or less: 256
 *
 * Each request arrives as a CONNECT_REQUEST event on a new ID.
 *
 * Context: process context.
 * Return: 0; -EINVAL when the ID is not IDLE; the provider's error.
 */
int iw_cm_listen(struct iw_cm_id *cm_id, int backlog)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	int ret = -EINVAL;

	if (backlog <= 0)
		backlog = IWCM_DEFAULT_BACKLOG;
	mutex_lock(&p->call_mutex);
	if (iwcm_state(p) == IWCM_IDLE) {
		/* LISTEN first: requests may come before the op returns */
		iwcm_set_state(p, IWCM_LISTEN);
		iwcm_unmapped(cm_id);
		ret = cm_id->device->ops.iw_create_listen(cm_id, backlog);
		if (ret)
			iwcm_set_state(p, IWCM_IDLE);
	}
	mutex_unlock(&p->call_mutex);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: listen on %pISpc failed: %d\n",
			  &cm_id->local_addr, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_listen);

/**
 * iw_cm_connect() - ask a peer for a connection
 * @cm_id: an IDLE ID with local_addr and remote_addr set
 * @iw_param: the QP to connect (qpn, a QP of the ID's device), the MPA
 *	private data, and the RDMA READ depths: ord outbound, ird inbound
 *
 * The QP is held until the connection fails or closes.  The answer comes
 * as a CONNECT_REPLY event: status 0 (the ID is ESTABLISHED), or a
 * negative errno (it is IDLE again): -ECONNREFUSED (the peer refused),
 * -ECONNRESET, -ETIMEDOUT and the like.
 *
 * Context: process context.
 * Return: 0 when the request is under way; -EINVAL when the ID is not
 * IDLE or the QP does not exist; the provider's error.
 */
int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	int ret = -EINVAL;

	mutex_lock(&p->call_mutex);
	if (iwcm_state(p) == IWCM_IDLE)
		ret = iwcm_hold_qp(p, iw_param->qpn);
	if (!ret) {
		iwcm_set_state(p, IWCM_CONN_SENT);
		iwcm_unmapped(cm_id);
		ret = cm_id->device->ops.iw_connect(cm_id, iw_param);
		if (ret) {
			iwcm_set_state(p, IWCM_IDLE);
			iwcm_release_qp(p);
		}
	}
	mutex_unlock(&p->call_mutex);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: connect to %pISpc failed: %d\n",
			  &cm_id->remote_addr, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_connect);

/**
 * iw_cm_accept() - accept the request of a CONNECT_REQUEST event
 * @cm_id: the new ID the event came with
 * @iw_param: the QP to connect (qpn), the MPA private data of the reply,
 *	ord and ird
 *
 * The QP is held until the connection fails or closes.  An ESTABLISHED
 * event follows when the provider has connected it.
 *
 * Context: process context, inside the CONNECT_REQUEST handler or later.
 * Return: 0; -EINVAL when there is no request to accept or the QP does
 * not exist; the provider's error (the ID is then IDLE: the request is
 * gone).
 */
int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	int ret = -EINVAL;

	mutex_lock(&p->call_mutex);
	if (iwcm_state(p) == IWCM_CONN_RECV && !p->qp)
		ret = iwcm_hold_qp(p, iw_param->qpn);
	if (!ret) {
		ret = cm_id->device->ops.iw_accept(cm_id, iw_param);
		if (ret) {
			iwcm_set_state(p, IWCM_IDLE);
			iwcm_release_qp(p);
		}
	}
	mutex_unlock(&p->call_mutex);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: accept of %pISpc failed: %d\n",
			  &cm_id->remote_addr, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_accept);

/**
 * iw_cm_reject() - refuse the request of a CONNECT_REQUEST event
 * @cm_id: the new ID the event came with
 * @private_data: MPA private data for the peer, or NULL
 * @private_data_len: its length
 *
 * The peer's connect ends with CONNECT_REPLY -ECONNREFUSED.  The ID is
 * IDLE afterwards; the user still destroys it.
 *
 * Context: process context, inside the CONNECT_REQUEST handler or later.
 * Return: 0; -EINVAL when there is no request to refuse (or it was
 * accepted); the provider's error.
 */
int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	int ret = -EINVAL;

	mutex_lock(&p->call_mutex);
	if (iwcm_state(p) == IWCM_CONN_RECV && !p->qp) {
		iwcm_set_state(p, IWCM_IDLE);
		ret = cm_id->device->ops.iw_reject(cm_id, private_data,
						   private_data_len);
	}
	mutex_unlock(&p->call_mutex);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: reject of %pISpc failed: %d\n",
			  &cm_id->remote_addr, ret);
	return ret;
}
EXPORT_SYMBOL(iw_cm_reject);

/**
 * iw_cm_disconnect() - end a connection
 * @cm_id: the ID
 * @abrupt: 0: close gracefully (the QP goes to SQD: the provider lets the
 *	posted sends finish, then closes); else at once (the QP goes to ERR)
 *
 * An established connection moves to CLOSING; while it closes, @abrupt
 * still moves its QP to ERR.  A connection being set up (CONN_SENT, or a
 * request already accepted) cannot close gracefully: its QP goes to ERR.
 * CLOSE follows when the provider has closed.  An IDLE ID or a request
 * not answered has nothing to end.
 *
 * Context: process context.
 * Return: 0 (also when the QP had already left the state it moves from);
 * -EINVAL for a listener or an ID being destroyed.
 */
int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	enum ib_qp_state to = IB_QPS_ERR;
	bool move = false;
	enum iwcm_state s;
	int ret = 0;

	mutex_lock(&p->call_mutex);
	s = iwcm_state(p);
	switch (s) {
	case IWCM_ESTABLISHED:
		iwcm_set_state(p, IWCM_CLOSING);
		to = abrupt ? IB_QPS_ERR : IB_QPS_SQD;
		move = true;
		break;
	case IWCM_CLOSING:
		move = abrupt;
		break;
	case IWCM_CONN_SENT:
		move = true;
		break;
	case IWCM_CONN_RECV:
		move = !!p->qp;
		break;
	case IWCM_IDLE:
		break;
	default:
		ret = -EINVAL;
		break;
	}
	if (move)
		iwcm_qp_to(p, to);
	mutex_unlock(&p->call_mutex);
	if (ret)
		ibdev_dbg(cm_id->device, "iw_cm: no disconnect in state %d\n", s);
	return ret;
}
EXPORT_SYMBOL(iw_cm_disconnect);

/**
 * iw_cm_init_qp_attr() - the attributes to move a QP of the ID to a state
 * @cm_id: the ID, IDLE or with a connection being made or established
 * @qp_attr: qp_state set by the caller; what the state needs is filled in
 * @qp_attr_mask: receives the IB_QP_* bits to apply
 *
 * INIT and RTR: the state and remote write and read access.  RTS: nothing
 * (the provider moves the QP to RTS itself when the connection is made).
 *
 * Context: any.
 * Return: 0; -EINVAL for another state of the QP or of the ID.
 */
int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask)
{
	enum iwcm_state s = iwcm_state(iwcm_priv(cm_id));

	if (s != IWCM_IDLE && s != IWCM_CONN_SENT && s != IWCM_CONN_RECV &&
	    s != IWCM_ESTABLISHED) {
		ibdev_dbg(cm_id->device, "iw_cm: no QP attributes in state %d\n",
			  s);
		return -EINVAL;
	}
	switch (qp_attr->qp_state) {
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		qp_attr->qp_access_flags = IB_ACCESS_REMOTE_WRITE |
					   IB_ACCESS_REMOTE_READ;
		*qp_attr_mask = IB_QP_STATE | IB_QP_ACCESS_FLAGS;
		return 0;
	case IB_QPS_RTS:
		*qp_attr_mask = 0;
		return 0;
	default:
		ibdev_dbg(cm_id->device, "iw_cm: no attributes for QP state %d\n",
			  qp_attr->qp_state);
		return -EINVAL;
	}
}
EXPORT_SYMBOL(iw_cm_init_qp_attr);

/**
 * iwcm_reject_msg() - what the status of a failed CONNECT_REPLY means
 * @reason: the status, a negative errno
 *
 * Return: a short text; "unrecognized reason" for other values.
 */
const char *__attribute_const__ iwcm_reject_msg(int reason)
{
	switch (reason) {
	case -ECONNRESET:
		return "reset by remote host";
	case -ECONNREFUSED:
		return "refused by remote application";
	case -ETIMEDOUT:
		return "setup timeout";
	default:
		return "unrecognized reason";
	}
}
EXPORT_SYMBOL(iwcm_reject_msg);

/* ---- events from the provider ------------------------------------------ */

/* Queue the ID's work, which holds a reference while queued. */
static void iwcm_kick(struct iwcm_id *p)
{
	refcount_inc(&p->refs);
	if (!queue_work(iwcm_wq, &p->work))
		iwcm_put(p);
}

/* A spare record of the ID, else a new one (it joins the spares later). */
static struct iwcm_rec *iwcm_rec_get(struct iwcm_id *p)
{
	struct iwcm_rec *rec;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	rec = list_first_entry_or_null(&p->spare, struct iwcm_rec, node);
	if (rec)
		list_del(&rec->node);
	spin_unlock_irqrestore(&p->lock, flags);
	return rec ?: kmalloc(sizeof(*rec), GFP_ATOMIC);
}

/*
 * cm_id->event_handler: the provider's report, copied (private data
 * included) and queued for the ID's work.  Any context.
 */
static int iwcm_event(struct iw_cm_id *cm_id, struct iw_cm_event *ev)
{
	struct iwcm_id *p = iwcm_priv(cm_id);
	struct iwcm_rec *rec = iwcm_rec_get(p);
	unsigned long flags;

	if (!rec) {
		ibdev_dbg(cm_id->device, "iw_cm: event %d lost: no memory\n",
			  ev->event);
		return -ENOMEM;
	}
	rec->ev = *ev;
	rec->ev.private_data = NULL;
	if (ev->private_data && ev->private_data_len) {
		memcpy(rec->data, ev->private_data, ev->private_data_len);
		rec->ev.private_data = rec->data;
	} else {
		rec->ev.private_data_len = 0;
	}
	spin_lock_irqsave(&p->lock, flags);
	list_add_tail(&rec->node, &p->queue);
	spin_unlock_irqrestore(&p->lock, flags);
	iwcm_kick(p);
	return 0;
}

/*
 * Call the user's handler with @ev unless the ID is being destroyed; a
 * non-zero answer ends the ID and drops the owner's reference.
 */
static void iwcm_deliver(struct iwcm_id *p, struct iw_cm_event *ev)
{
	int ret = 0;

	mutex_lock(&p->handler_mutex);
	if (iwcm_state(p) != IWCM_DESTROYING)
		ret = p->id.cm_handler(&p->id, ev);
	if (ret)
		iwcm_end(p);
	mutex_unlock(&p->handler_mutex);
	if (ret)
		iwcm_put(p);
}

/*
 * A CONNECT_REQUEST on listener @l: a new ID in CONN_RECV holding the
 * provider's handle of the connection, handed to the listener's handler.
 * A listener that is going, or a handler answering non-zero, ends the new
 * ID, which refuses the request.
 */
static void iwcm_request(struct iwcm_id *l, struct iw_cm_event *ev)
{
	struct iw_cm_id *lid = &l->id;
	struct iwcm_id *c;
	int ret = -ECONNABORTED;

	c = iwcm_alloc(lid->device, lid->cm_handler, lid->context);
	if (!c) {
		ibdev_dbg(lid->device, "iw_cm: request from %pISpc dropped: no memory\n",
			  &ev->remote_addr);
		return;
	}
	c->state = IWCM_CONN_RECV;
	c->id.provider_data = ev->provider_data;
	c->id.local_addr = ev->local_addr;
	c->id.remote_addr = ev->remote_addr;
	iwcm_unmapped(&c->id);
	c->id.tos = lid->tos;
	c->id.tos_set = lid->tos_set;
	c->id.afonly = lid->afonly;

	mutex_lock(&l->handler_mutex);
	mutex_lock_nested(&c->handler_mutex, SINGLE_DEPTH_NESTING);
	if (iwcm_state(l) == IWCM_LISTEN)
		ret = c->id.cm_handler(&c->id, ev);
	if (ret) {
		ibdev_dbg(lid->device, "iw_cm: request from %pISpc refused: %d\n",
			  &ev->remote_addr, ret);
		iwcm_end(c);
	}
	mutex_unlock(&c->handler_mutex);
	mutex_unlock(&l->handler_mutex);
	if (ret)
		iwcm_put(c);
}

/*
 * The state change a connection event makes, the QP let go when the
 * connection is over, and whether the user hears of it: an event that does
 * not fit the state (or comes once the ID is being destroyed) changes
 * nothing and is dropped.
 */
static bool iwcm_settle(struct iwcm_id *p, const struct iw_cm_event *ev)
{
	enum iwcm_state s, to = IWCM_IDLE;
	bool fits = false;

	mutex_lock(&p->call_mutex);
	s = iwcm_state(p);
	switch (ev->event) {
	case IW_CM_EVENT_CONNECT_REPLY:
		fits = s == IWCM_CONN_SENT;
		if (!ev->status)
			to = IWCM_ESTABLISHED;
		break;
	case IW_CM_EVENT_ESTABLISHED:
		fits = s == IWCM_CONN_RECV && p->qp;
		to = IWCM_ESTABLISHED;
		break;
	case IW_CM_EVENT_DISCONNECT:
		fits = s == IWCM_ESTABLISHED || s == IWCM_CLOSING;
		to = IWCM_CLOSING;
		break;
	case IW_CM_EVENT_CLOSE:
		fits = s != IWCM_IDLE && s != IWCM_LISTEN &&
		       s != IWCM_DESTROYING;
		break;
	default:
		break;
	}
	if (fits) {
		iwcm_set_state(p, to);
		if (to == IWCM_IDLE)
			iwcm_release_qp(p);
	} else {
		ibdev_dbg(p->id.device, "iw_cm: event %d (status %d) dropped in state %d\n",
			  ev->event, ev->status, s);
	}
	mutex_unlock(&p->call_mutex);
	return fits;
}

static struct iwcm_rec *iwcm_next(struct iwcm_id *p)
{
	struct iwcm_rec *rec;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	rec = list_first_entry_or_null(&p->queue, struct iwcm_rec, node);
	if (rec)
		list_del(&rec->node);
	spin_unlock_irqrestore(&p->lock, flags);
	return rec;
}

static void iwcm_recycle(struct iwcm_id *p, struct iwcm_rec *rec)
{
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	list_add(&rec->node, &p->spare);
	spin_unlock_irqrestore(&p->lock, flags);
}

/* The ID's work: its queued events, in order, then its reference. */
static void iwcm_work(struct work_struct *work)
{
	struct iwcm_id *p = container_of(work, struct iwcm_id, work);
	struct iwcm_rec *rec;

	while ((rec = iwcm_next(p))) {
		if (rec->ev.event == IW_CM_EVENT_CONNECT_REQUEST)
			iwcm_request(p, &rec->ev);
		else if (iwcm_settle(p, &rec->ev))
			iwcm_deliver(p, &rec->ev);
		iwcm_recycle(p, rec);
	}
	iwcm_put(p);
}

static int __init iwcm_init(void)
{
	/* Not ordered: each ID's work keeps its own events in order. */
	iwcm_wq = alloc_workqueue("iw_cm", WQ_MEM_RECLAIM, 0);
	return iwcm_wq ? 0 : -ENOMEM;
}

static void __exit iwcm_exit(void)
{
	destroy_workqueue(iwcm_wq);
}

module_init(iwcm_init);
module_exit(iwcm_exit);
