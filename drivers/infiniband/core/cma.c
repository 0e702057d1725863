// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA connection manager: IDs, their states and events, the devices
 * it serves, and the small calls of <rdma/rdma_cm.h>.  See cma_priv.h for
 * the files, the locks and the lifetime rules.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_cache.h>
#include "core_priv.h"
#include "cma_hdr.h"
#include "cma_priv.h"

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("RDMA connection manager (IP-addressed connections over the InfiniBand and iWARP CMs)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(RDMA_KMOD_VERSION);

/* Guards the two lists and every port space's table (cma_priv.h). */
DEFINE_MUTEX(cma_mutex);
LIST_HEAD(cma_devices);
LIST_HEAD(cma_listeners);
/* Events the CM raises itself (route resolved, multicast join). */
struct workqueue_struct *cma_wq;

static struct ib_client cma_client;

/* ---- states and references ---------------------------------------------- */

enum rdma_cm_state cma_state(struct rdma_id_private *p)
{
	enum rdma_cm_state s;
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	s = p->state;
	spin_unlock_irqrestore(&p->lock, flags);
	return s;
}

/* Move @p from @from to @to; false (and nothing changes) if not in @from. */
bool cma_move(struct rdma_id_private *p, enum rdma_cm_state from,
	      enum rdma_cm_state to)
{
	unsigned long flags;
	bool moved;

	spin_lock_irqsave(&p->lock, flags);
	moved = p->state == from;
	if (moved)
		p->state = to;
	spin_unlock_irqrestore(&p->lock, flags);
	return moved;
}

void cma_set_state(struct rdma_id_private *p, enum rdma_cm_state to)
{
	unsigned long flags;

	spin_lock_irqsave(&p->lock, flags);
	p->state = to;
	spin_unlock_irqrestore(&p->lock, flags);
}

void cma_get(struct rdma_id_private *p)
{
	refcount_inc(&p->refs);
}

void cma_put(struct rdma_id_private *p)
{
	if (refcount_dec_and_test(&p->refs))
		kfree(p);
}

/* ---- addresses ----------------------------------------------------------- */

bool cma_any_addr(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       htonl(INADDR_ANY);
	if (a->sa_family == AF_INET6)
		return ipv6_addr_any(&((const struct sockaddr_in6 *)a)->sin6_addr);
	if (a->sa_family == AF_IB)
		return ib_addr_any(&((const struct sockaddr_ib *)a)->sib_addr);
	return true;
}

u16 cma_port(const struct sockaddr *a)
{
	if (a->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)a)->sin_port);
	if (a->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)a)->sin6_port);
	if (a->sa_family == AF_IB) {
		const struct sockaddr_ib *sib = (const struct sockaddr_ib *)a;

		/* The port is the Service ID's low 16 bits, if significant. */
		return be64_to_cpu(sib->sib_sid & sib->sib_sid_mask) & 0xffff;
	}
	return 0;
}

void cma_set_port(struct sockaddr *a, u16 port)
{
	struct sockaddr_ib *sib = (struct sockaddr_ib *)a;

	if (a->sa_family == AF_INET) {
		((struct sockaddr_in *)a)->sin_port = htons(port);
	} else if (a->sa_family == AF_INET6) {
		((struct sockaddr_in6 *)a)->sin6_port = htons(port);
	} else if (a->sa_family == AF_IB) {
		sib->sib_sid = cpu_to_be64((be64_to_cpu(sib->sib_sid) &
					    ~0xffffULL) | port);
		sib->sib_sid_mask |= cpu_to_be64(0xffff);
	}
}

/* The type of service of @p: its own, else its port's default. */
u8 cma_id_tos(struct rdma_id_private *p)
{
	if (p->tos_set || !p->cma_dev)
		return p->tos;
	return p->cma_dev->tos[p->id.port_num - 1];
}

/* ---- devices ------------------------------------------------------------ */

void cma_dev_put(struct cma_device *cd)
{
	if (refcount_dec_and_test(&cd->refs))
		complete(&cd->released);
}

/**
 * cma_attach() - attach an ID to a device port
 * @p: the ID, not attached yet
 * @cd: the device record (on cma_devices)
 * @port: the port
 * @sgid_attr: the source GID entry; the reference passes to the ID
 *
 * Context: cma_mutex held.
 */
void cma_attach(struct rdma_id_private *p, struct cma_device *cd,
		u32 port, const struct ib_gid_attr *sgid_attr)
{
	lockdep_assert_held(&cma_mutex);
	refcount_inc(&cd->refs);
	p->cma_dev = cd;
	p->id.device = cd->device;
	p->id.port_num = port;
	p->id.route.addr.dev_addr.sgid_attr = sgid_attr;
	p->id.route.addr.dev_addr.transport =
		rdma_node_get_transport(cd->device->node_type);
	list_add_tail(&p->dev_node, &cd->ids);
	rdma_restrack_add(&p->res);
}

static void cma_detach(struct rdma_id_private *p)
{
	struct rdma_dev_addr *da = &p->id.route.addr.dev_addr;

	mutex_lock(&cma_mutex);
	if (!p->cma_dev) {
		mutex_unlock(&cma_mutex);
		return;
	}
	list_del(&p->dev_node);
	rdma_restrack_del(&p->res);
	cma_dev_put(p->cma_dev);
	p->cma_dev = NULL;
	mutex_unlock(&cma_mutex);
	if (da->sgid_attr) {
		rdma_put_gid_attr(da->sgid_attr);
		da->sgid_attr = NULL;
	}
}

/*
 * Does port @port of @cd serve the addresses of @ndev?  A RoCE port does
 * when it has @gid (an address of @ndev) with the port's default type on
 * @ndev: that GID entry is returned, held, in *@attr.  An iWARP port does
 * when @ndev is its netdev: iWARP addresses by IP, *@attr is NULL.
 */
static bool cma_port_serves(struct cma_device *cd, u32 port,
			    struct net_device *ndev, const union ib_gid *gid,
			    const struct ib_gid_attr **attr)
{
	struct ib_device *dev = cd->device;
	struct net_device *port_ndev;

	*attr = NULL;
	if (rdma_protocol_iwarp(dev, port)) {
		port_ndev = ib_device_get_netdev(dev, port);
		dev_put(port_ndev);
		return port_ndev == ndev;
	}
	if (!rdma_protocol_roce(dev, port))
		return false;
	*attr = rdma_find_gid_by_port(dev, gid, cd->gid_type[port - 1], port,
				      ndev);
	if (!IS_ERR(*attr))
		return true;
	*attr = NULL;
	return false;
}

/*
 * Attach @p to the first device port (of @device only, unless NULL) that
 * serves address @addr of @ndev (cma_port_serves()).  Return: 0, -EINVAL
 * for an address that is not IP, or -ENODEV when no port serves it.
 */
int cma_attach_by_addr(struct rdma_id_private *p, struct net_device *ndev,
		       const struct sockaddr *addr, struct ib_device *device)
{
	const struct ib_gid_attr *attr;
	struct cma_device *cd;
	union ib_gid gid;
	u32 port;

	if (rdma_ip2gid((struct sockaddr *)addr, &gid))
		return -EINVAL;
	mutex_lock(&cma_mutex);
	list_for_each_entry(cd, &cma_devices, node) {
		if (device && cd->device != device)
			continue;
		rdma_for_each_port(cd->device, port) {
			if (!cma_port_serves(cd, port, ndev, &gid, &attr))
				continue;
			cma_attach(p, cd, port, attr);
			mutex_unlock(&cma_mutex);
			return 0;
		}
	}
	mutex_unlock(&cma_mutex);
	return -ENODEV;
}

/* ---- IDs ---------------------------------------------------------------- */

struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler handler,
				     void *context,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     const char *caller)
{
	struct rdma_id_private *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	/* What the owner sees; the addresses live in @net. */
	p->id.context = context;
	p->id.event_handler = handler;
	p->id.qp_type = qp_type;
	p->id.ps = ps;
	p->id.route.addr.dev_addr.net = get_net(net);
	/* The Q_Key of the datagram port spaces, and the PSN we announce. */
	if (ps == RDMA_PS_UDP || ps == RDMA_PS_IB)
		p->qkey = RDMA_UDP_QKEY;
	p->seq_num = get_random_u32() & 0xffffff;
	p->caller = caller;
	/* Lists it may join, its locks, and the owner's reference. */
	INIT_LIST_HEAD(&p->mc_list);
	INIT_LIST_HEAD(&p->listen_devs);
	INIT_LIST_HEAD(&p->listen_node);
	INIT_LIST_HEAD(&p->dev_node);
	mutex_init(&p->qp_mutex);
	mutex_init(&p->handler_mutex);
	spin_lock_init(&p->lock);
	refcount_set(&p->refs, 1);
	rdma_restrack_new(&p->res, RDMA_RESTRACK_CM_ID);
	rdma_restrack_set_name(&p->res, caller);
	return p;
}

static bool cma_ps_ok(enum rdma_ucm_port_space ps)
{
	return ps == RDMA_PS_TCP || ps == RDMA_PS_UDP || ps == RDMA_PS_IB ||
	       ps == RDMA_PS_IPOIB;
}

static struct rdma_cm_id *cma_create(struct net *net,
				     rdma_cm_event_handler handler,
				     void *context,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     const char *caller)
{
	struct rdma_id_private *p;

	if (!cma_ps_ok(ps) || !handler) {
		pr_debug("rdma_cm: %s: port space %#x or handler refused\n",
			 caller ?: "user", ps);
		return ERR_PTR(-EINVAL);
	}
	if (qp_type != IB_QPT_RC && qp_type != IB_QPT_UD) {
		pr_debug("rdma_cm: %s: QP type %d not supported\n",
			 caller ?: "user", qp_type);
		return ERR_PTR(-EOPNOTSUPP);
	}
	p = cma_id_alloc(net, handler, context, ps, qp_type, caller);
	return p ? &p->id : ERR_PTR(-ENOMEM);
}

/**
 * cma_conn_alloc() - the new ID of a connection request to a listener
 * @l: the listener, its handler_mutex held
 * @qp_type: the QP type the request asks for
 *
 * The ID takes the listener's namespace, handler, context and port space,
 * and its process for restrack.  It starts in CONNECT with its
 * handler_mutex held (nested in the listener's), so that device removal,
 * which takes it, waits until CONNECT_REQUEST has been delivered.
 *
 * Return: the ID, not attached yet, or NULL.
 */
struct rdma_id_private *cma_conn_alloc(struct rdma_id_private *l,
				       enum ib_qp_type qp_type)
{
	struct rdma_id_private *c;

	c = cma_id_alloc(cma_net(l), l->id.event_handler, l->id.context,
			 l->id.ps, qp_type, l->caller);
	if (!c)
		return NULL;
	rdma_restrack_parent_name(&c->res, &l->res);
	c->state = RDMA_CM_CONNECT;
	mutex_lock_nested(&c->handler_mutex, SINGLE_DEPTH_NESTING);
	return c;
}

/**
 * cma_conn_free() - undo cma_conn_alloc() for a request that failed
 *	before the ID was attached
 * @c: the ID; its handler_mutex is released here
 */
void cma_conn_free(struct rdma_id_private *c)
{
	mutex_unlock(&c->handler_mutex);
	cma_free_route(c);
	put_net(cma_net(c));
	cma_put(c);
}

/**
 * __rdma_create_kernel_id() - a new RDMA CM ID for a kernel user
 * @net: the network namespace its addresses live in; the ID holds a
 *	reference on it
 * @event_handler: where the ID's events go
 * @context: stored in the ID
 * @ps: port space: RDMA_PS_TCP, RDMA_PS_UDP, RDMA_PS_IB or RDMA_PS_IPOIB
 * @qp_type: IB_QPT_RC (connections) or IB_QPT_UD (datagrams, SIDR)
 * @caller: the module's name, shown by restrack (rdma_create_id() passes
 *	KBUILD_MODNAME)
 *
 * Context: process context.
 * Return: the ID in state IDLE, or ERR_PTR(): -EINVAL for an unknown port
 * space or no handler, -EOPNOTSUPP for another QP type, -ENOMEM.
 */
struct rdma_cm_id *
__rdma_create_kernel_id(struct net *net, rdma_cm_event_handler event_handler,
			void *context, enum rdma_ucm_port_space ps,
			enum ib_qp_type qp_type, const char *caller)
{
	return cma_create(net, event_handler, context, ps, qp_type, caller);
}
EXPORT_SYMBOL(__rdma_create_kernel_id);

/**
 * rdma_create_user_id() - a new RDMA CM ID on behalf of user space
 * @event_handler: where the ID's events go
 * @context: stored in the ID
 * @ps: port space
 * @qp_type: IB_QPT_RC or IB_QPT_UD
 *
 * Like __rdma_create_kernel_id() in the calling task's network namespace.
 *
 * Context: process context.
 * Return: the ID or ERR_PTR().
 */
struct rdma_cm_id *rdma_create_user_id(rdma_cm_event_handler event_handler,
				       void *context,
				       enum rdma_ucm_port_space ps,
				       enum ib_qp_type qp_type)
{
	return cma_create(current->nsproxy->net_ns, event_handler, context,
			  ps, qp_type, NULL);
}
EXPORT_SYMBOL(rdma_create_user_id);

/**
 * cma_deliver() - give an event to an ID's handler
 * @p: the ID; its handler_mutex is held
 * @ev: the event
 *
 * Return: what the handler returned; non-zero means the caller must
 * destroy @p (cma_destroy_unlock()).
 */
int cma_deliver(struct rdma_id_private *p, struct rdma_cm_event *ev)
{
	lockdep_assert_held(&p->handler_mutex);
	return p->id.event_handler(&p->id, ev);
}

/**
 * cma_cm_deliver() - give an event from ib_cm or iw_cm to an ID's handler
 * @p: the ID; its handler_mutex is held, and released here
 * @ev: the event
 *
 * A non-zero answer destroys @p, without its ib_cm or iw_cm ID: the CM
 * that called destroys that one when it gets the answer back.
 *
 * Return: the handler's answer.
 */
int cma_cm_deliver(struct rdma_id_private *p, struct rdma_cm_event *ev)
{
	int ret = cma_deliver(p, ev);

	if (!ret) {
		mutex_unlock(&p->handler_mutex);
		return 0;
	}
	p->cm_id = NULL;
	p->iw_id = NULL;
	cma_destroy_unlock(p);
	return ret;
}

/* Drop everything @p holds; it is DESTROYING, no lock held. */
static void cma_teardown(struct rdma_id_private *p, bool addr_pending)
{
	struct cma_listen_dev *ld, *tmp;
	LIST_HEAD(listens);

	if (addr_pending)
		cma_cancel_addr(p);
	/* A listener that saw its device go still holds that listen. */
	mutex_lock(&cma_mutex);
	list_del_init(&p->listen_node);
	list_splice_init(&p->listen_devs, &listens);
	mutex_unlock(&cma_mutex);
	list_for_each_entry_safe(ld, tmp, &listens, node)
		cma_listen_dev_free(ld);
	if (p->cm_id) {
		ib_destroy_cm_id(p->cm_id);
		p->cm_id = NULL;
	}
	if (p->iw_id) {
		iw_destroy_cm_id(p->iw_id);
		p->iw_id = NULL;
	}
	cma_leave_all(p);
	cma_detach(p);
	cma_unbind(p);
	cma_free_route(p);
	put_net(cma_net(p));
}

/**
 * cma_destroy_unlock() - destroy an ID whose handler_mutex is held
 * @p: the ID
 *
 * Marks @p DESTROYING, releases the mutex, tears @p down and drops the
 * owner's reference.  An ib_cm or iw_cm handler that got here clears
 * @p->cm_id or @p->iw_id first and returns non-zero, so that the CM
 * destroys its own ID.
 */
void cma_destroy_unlock(struct rdma_id_private *p)
{
	bool addr_pending = READ_ONCE(p->addr_pending);

	cma_set_state(p, RDMA_CM_DESTROYING);
	mutex_unlock(&p->handler_mutex);
	cma_teardown(p, addr_pending);
	cma_put(p);
}

/**
 * rdma_destroy_id() - destroy an RDMA CM ID
 * @id: the ID; its QP, if any, is destroyed first with rdma_destroy_qp()
 *
 * Cancels what is in progress (address resolution, a connection being
 * made: the peer is rejected or disconnected as the IB CM does it), stops
 * listening, leaves multicast groups and releases the port and device.
 * Once this returns the handler is not running and is never called again.
 *
 * Context: process context; sleeps.  Never from the ID's own handler
 * (return non-zero from it instead).
 */
void rdma_destroy_id(struct rdma_cm_id *id)
{
	struct rdma_id_private *p = cma_priv(id);

	mutex_lock(&p->handler_mutex);
	cma_destroy_unlock(p);
}
EXPORT_SYMBOL(rdma_destroy_id);

/**
 * rdma_lock_handler() - keep an ID's event handler from running
 * @id: the ID
 *
 * For calls that need the handler lock (rdma_accept()) made outside the
 * handler.  Context: process context; sleeps.
 */
void rdma_lock_handler(struct rdma_cm_id *id)
{
	mutex_lock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_lock_handler);

/**
 * rdma_unlock_handler() - undo rdma_lock_handler()
 * @id: the ID
 */
void rdma_unlock_handler(struct rdma_cm_id *id)
{
	mutex_unlock(&cma_priv(id)->handler_mutex);
}
EXPORT_SYMBOL(rdma_unlock_handler);

/* ---- events the CM makes itself ----------------------------------------- */

struct cma_event_work {
	struct work_struct	work;
	struct rdma_id_private	*id;
	enum rdma_cm_state	from;
	enum rdma_cm_state	to;
	struct rdma_cm_event	ev;
};

static void cma_event_work(struct work_struct *w)
{
	struct cma_event_work *ew = container_of(w, struct cma_event_work, work);
	struct rdma_id_private *p = ew->id;
	enum rdma_cm_state s;

	mutex_lock(&p->handler_mutex);
	s = cma_state(p);
	if (s == RDMA_CM_DESTROYING || s == RDMA_CM_DEVICE_REMOVAL ||
	    (ew->from != ew->to && !cma_move(p, ew->from, ew->to))) {
		pr_debug("rdma_cm: event %s dropped, ID in state %d\n",
			 rdma_event_msg(ew->ev.event), s);
		mutex_unlock(&p->handler_mutex);
	} else if (cma_deliver(p, &ew->ev)) {
		cma_destroy_unlock(p);
	} else {
		mutex_unlock(&p->handler_mutex);
	}
	cma_put(p);
	kfree(ew);
}

/**
 * cma_queue_event() - deliver an event from the CM's workqueue
 * @p: the ID
 * @from: the state the ID must be in when the event runs
 * @to: the state it moves to then (@from == @to: no move; the event is
 *	dropped only if the ID is being destroyed or its device removed)
 * @ev: the event, copied
 *
 * Return: 0 or -ENOMEM.
 */
int cma_queue_event(struct rdma_id_private *p, enum rdma_cm_state from,
		    enum rdma_cm_state to, const struct rdma_cm_event *ev)
{
	struct cma_event_work *ew = kzalloc(sizeof(*ew), GFP_KERNEL);

	if (!ew)
		return -ENOMEM;
	INIT_WORK(&ew->work, cma_event_work);
	ew->id = p;
	ew->from = from;
	ew->to = to;
	ew->ev = *ev;
	cma_get(p);
	queue_work(cma_wq, &ew->work);
	return 0;
}

/* ---- small calls -------------------------------------------------------- */

/**
 * rdma_set_service_type() - set the type of service of an ID's traffic
 * @id: the ID, before route resolution
 * @tos: IP type of service, 0-255; it becomes the path's traffic class
 */
void rdma_set_service_type(struct rdma_cm_id *id, int tos)
{
	struct rdma_id_private *p = cma_priv(id);

	p->tos = tos;
	p->tos_set = 1;
}
EXPORT_SYMBOL(rdma_set_service_type);

/**
 * rdma_set_reuseaddr() - allow an ID's port to be shared
 * @id: the ID
 * @reuse: non-zero to share
 *
 * Ports are shared by IDs that all set this and none of which listens.
 *
 * Return: 0, or -EINVAL once the ID is bound (setting) or listening.
 */
int rdma_set_reuseaddr(struct rdma_cm_id *id, int reuse)
{
	struct rdma_id_private *p = cma_priv(id);
	enum rdma_cm_state s;
	int ret = 0;

	mutex_lock(&cma_mutex);
	s = cma_state(p);
	if ((reuse && s != RDMA_CM_LISTEN) || s == RDMA_CM_IDLE)
		p->reuseaddr = !!reuse;
	else
		ret = -EINVAL;
	mutex_unlock(&cma_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_set_reuseaddr);

/**
 * rdma_set_afonly() - bind an IPv6 ID to IPv6 only
 * @id: the ID, not bound yet (IDLE) or just bound (ADDR_BOUND)
 * @afonly: non-zero: an IPv6 wildcard does not take IPv4 requests
 *
 * Return: 0 or -EINVAL.
 */
int rdma_set_afonly(struct rdma_cm_id *id, int afonly)
{
	struct rdma_id_private *p = cma_priv(id);
	enum rdma_cm_state s;
	int ret = 0;

	mutex_lock(&cma_mutex);
	s = cma_state(p);
	if (s == RDMA_CM_IDLE || s == RDMA_CM_ADDR_BOUND) {
		p->afonly = !!afonly;
		p->afonly_set = 1;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&cma_mutex);
	return ret;
}
EXPORT_SYMBOL(rdma_set_afonly);

/**
 * rdma_set_ack_timeout() - set the QP ACK timeout of a connection
 * @id: an RC ID
 * @timeout: the QP's Local ACK Timeout (4.096 us * 2^@timeout); the path's
 *	packet life time becomes @timeout - 1
 *
 * Return: 0, or -EINVAL for another QP type.
 */
int rdma_set_ack_timeout(struct rdma_cm_id *id, u8 timeout)
{
	struct rdma_id_private *p = cma_priv(id);

	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_INI)
		return -EINVAL;
	p->timeout = min_t(u8, timeout, 31);
	p->timeout_set = 1;
	return 0;
}
EXPORT_SYMBOL(rdma_set_ack_timeout);

/**
 * rdma_set_min_rnr_timer() - set the RNR NAK timer of a connection's QP
 * @id: an RC ID
 * @min_rnr_timer: the 5-bit IBTA encoding, applied at RTR
 *
 * Return: 0, or -EINVAL for another QP type or a value over 31.
 */
int rdma_set_min_rnr_timer(struct rdma_cm_id *id, u8 min_rnr_timer)
{
	struct rdma_id_private *p = cma_priv(id);

	if (min_rnr_timer & 0xe0)
		return -EINVAL;
	if (id->qp_type != IB_QPT_RC && id->qp_type != IB_QPT_XRC_TGT)
		return -EINVAL;
	p->min_rnr_timer = min_rnr_timer;
	p->min_rnr_timer_set = 1;
	return 0;
}
EXPORT_SYMBOL(rdma_set_min_rnr_timer);

/**
 * rdma_get_service_id() - the Service ID of an address in an ID's space
 * @id: the ID (its port space)
 * @addr: the address; AF_IB carries its own Service ID
 *
 * Return: the Service ID, big-endian.
 */
__be64 rdma_get_service_id(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (addr->sa_family == AF_IB)
		return ((struct sockaddr_ib *)addr)->sib_sid;
	return cpu_to_be64(cma_sid_make(id->ps, cma_port(addr)));
}
EXPORT_SYMBOL(rdma_get_service_id);

/* An iWARP GID: the MAC address in its first bytes, zeros after. */
static void cma_mac_gid(union ib_gid *gid, const u8 *mac)
{
	memcpy(gid->raw, mac, ETH_ALEN);
}

/**
 * rdma_read_gids() - the GIDs of an ID's two ends
 * @cm_id: the ID
 * @sgid: receives the local GID, may be NULL
 * @dgid: receives the remote GID, may be NULL
 *
 * On RoCE the GIDs are the IP addresses; on iWARP the MAC addresses of
 * the local netdev and of the next hop (zero on the passive side); both
 * are zero while the ID has no device.
 */
void rdma_read_gids(struct rdma_cm_id *cm_id, union ib_gid *sgid,
		    union ib_gid *dgid)
{
	struct rdma_id_private *p = cma_priv(cm_id);
	struct rdma_dev_addr *da = &cm_id->route.addr.dev_addr;
	bool known = cm_id->device;
	bool iw = known && rdma_protocol_iwarp(cm_id->device, cm_id->port_num);

	if (sgid) {
		memset(sgid, 0, sizeof(*sgid));
		if (iw)
			cma_mac_gid(sgid, da->src_dev_addr);
		else if (known)
			rdma_ip2gid(cma_src(p), sgid);
	}
	if (dgid) {
		memset(dgid, 0, sizeof(*dgid));
		if (iw)
			cma_mac_gid(dgid, da->dst_dev_addr);
		else if (known)
			rdma_ip2gid(cma_dst(p), dgid);
	}
}
EXPORT_SYMBOL(rdma_read_gids);

/* The names rdma_event_msg() gives, as stock gives them. */
static const struct {
	enum rdma_cm_event_type	event;
	const char		*name;
} cma_event_names[] = {
	{ RDMA_CM_EVENT_ESTABLISHED, "established" },
	{ RDMA_CM_EVENT_DISCONNECTED, "disconnected" },
	{ RDMA_CM_EVENT_CONNECT_REQUEST, "connect request" },
	{ RDMA_CM_EVENT_CONNECT_RESPONSE, "connect response" },
	{ RDMA_CM_EVENT_CONNECT_ERROR, "connect error" },
	{ RDMA_CM_EVENT_REJECTED, "rejected" },
	{ RDMA_CM_EVENT_UNREACHABLE, "unreachable" },
	{ RDMA_CM_EVENT_TIMEWAIT_EXIT, "timewait exit" },
	{ RDMA_CM_EVENT_ADDR_RESOLVED, "address resolved" },
	{ RDMA_CM_EVENT_ADDR_ERROR, "address error" },
	{ RDMA_CM_EVENT_ADDR_CHANGE, "address change" },
	{ RDMA_CM_EVENT_ROUTE_RESOLVED, "route resolved" },
	{ RDMA_CM_EVENT_ROUTE_ERROR, "route error" },
	{ RDMA_CM_EVENT_DEVICE_REMOVAL, "device removal" },
	{ RDMA_CM_EVENT_MULTICAST_JOIN, "multicast join" },
	{ RDMA_CM_EVENT_MULTICAST_ERROR, "multicast error" },
};

/**
 * rdma_event_msg() - the name of an RDMA CM event, for messages
 * @event: the event
 *
 * Return: a constant string; "unrecognized event" for a value outside the
 * enumeration.
 */
const char *rdma_event_msg(enum rdma_cm_event_type event)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cma_event_names); i++)
		if (cma_event_names[i].event == event)
			return cma_event_names[i].name;
	return "unrecognized event";
}
EXPORT_SYMBOL(rdma_event_msg);

/**
 * rdma_reject_msg() - the meaning of a REJECTED event's status
 * @id: the ID that got it
 * @reason: the status
 *
 * Return: the IB CM's name of the reject reason on an IB CM port, iw_cm's
 * name of the errno on an iWARP port, "unrecognized transport" elsewhere.
 */
const char *rdma_reject_msg(struct rdma_cm_id *id, int reason)
{
	if (id->device && rdma_ib_or_roce(id->device, id->port_num))
		return ibcm_reject_msg(reason);
	if (id->device && rdma_protocol_iwarp(id->device, id->port_num))
		return iwcm_reject_msg(reason);
	return "unrecognized transport";
}
EXPORT_SYMBOL(rdma_reject_msg);

/* Did the peer's application refuse (the status of a REJECTED event)? */
static bool cma_consumer_reject(struct rdma_cm_id *id, int status)
{
	if (rdma_ib_or_roce(id->device, id->port_num))
		return status == IB_CM_REJ_CONSUMER_DEFINED;
	if (rdma_protocol_iwarp(id->device, id->port_num))
		return status == -ECONNREFUSED;
	return false;
}

/**
 * rdma_consumer_reject_data() - the private data of a refusal by the peer
 * @id: the ID
 * @ev: a REJECTED event of @id
 * @data_len: receives the length
 *
 * Return: the private data when the peer's application refused (reason
 * "consumer defined" on IB CM ports, -ECONNREFUSED on iWARP), else NULL
 * with *@data_len 0.
 */
const void *rdma_consumer_reject_data(struct rdma_cm_id *id,
				      struct rdma_cm_event *ev, u8 *data_len)
{
	if (ev->event == RDMA_CM_EVENT_REJECTED && id->device &&
	    cma_consumer_reject(id, ev->status)) {
		*data_len = ev->param.conn.private_data_len;
		return ev->param.conn.private_data;
	}
	*data_len = 0;
	return NULL;
}
EXPORT_SYMBOL(rdma_consumer_reject_data);

/**
 * rdma_iw_cm_id() - the iWARP CM ID under an RDMA CM ID
 * @cm_id: the ID
 *
 * Return: the iw_cm ID of a connection (or connection request) on an
 * iWARP port, else NULL.
 */
struct iw_cm_id *rdma_iw_cm_id(struct rdma_cm_id *cm_id)
{
	return cma_priv(cm_id)->iw_id;
}
EXPORT_SYMBOL(rdma_iw_cm_id);

/**
 * rdma_res_to_id() - the RDMA CM ID of a restrack entry
 * @res: an entry of type RDMA_RESTRACK_CM_ID
 *
 * Return: the ID that contains @res.
 */
struct rdma_cm_id *rdma_res_to_id(struct rdma_restrack_entry *res)
{
	return &container_of(res, struct rdma_id_private, res)->id;
}
EXPORT_SYMBOL(rdma_res_to_id);

/* ---- the client --------------------------------------------------------- */

static int cma_add_one(struct ib_device *device)
{
	struct rdma_id_private *p;
	struct cma_device *cd;
	bool cm = false;
	u32 port;

	rdma_for_each_port(device, port)
		cm |= rdma_cap_ib_cm(device, port) ||
		      rdma_cap_iw_cm(device, port);
	if (!cm)
		return -EOPNOTSUPP;
	cd = kzalloc(sizeof(*cd), GFP_KERNEL);
	if (!cd)
		return -ENOMEM;
	cd->gid_type = kcalloc(device->phys_port_cnt, sizeof(*cd->gid_type),
			       GFP_KERNEL);
	cd->tos = kcalloc(device->phys_port_cnt, sizeof(*cd->tos), GFP_KERNEL);
	if (!cd->gid_type || !cd->tos) {
		kfree(cd->gid_type);
		kfree(cd->tos);
		kfree(cd);
		return -ENOMEM;
	}
	cd->device = device;
	INIT_LIST_HEAD(&cd->ids);
	refcount_set(&cd->refs, 1);
	init_completion(&cd->released);
	rdma_for_each_port(device, port)
		cd->gid_type[port - 1] =
			rdma_protocol_roce_udp_encap(device, port) ?
			IB_GID_TYPE_ROCE_UDP_ENCAP : IB_GID_TYPE_IB;
	ib_set_client_data(device, &cma_client, cd);

	mutex_lock(&cma_mutex);
	list_add_tail(&cd->node, &cma_devices);
	list_for_each_entry(p, &cma_listeners, listen_node)
		if (cma_listen_on(p, cd))
			dev_dbg(&device->dev,
				"rdma_cm: a wildcard listener missed the device\n");
	mutex_unlock(&cma_mutex);
	return 0;
}

/* Tell @p its device is going; destroy it if its handler asks. */
static void cma_removal_event(struct rdma_id_private *p)
{
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_DEVICE_REMOVAL };
	enum rdma_cm_state s;

	mutex_lock(&p->handler_mutex);
	s = cma_state(p);
	if (s == RDMA_CM_DESTROYING || s == RDMA_CM_DEVICE_REMOVAL) {
		mutex_unlock(&p->handler_mutex);
		return;
	}
	cma_set_state(p, RDMA_CM_DEVICE_REMOVAL);
	cma_qp_to_err(p);
	if (cma_deliver(p, &ev))
		cma_destroy_unlock(p);
	else
		mutex_unlock(&p->handler_mutex);
}

static void cma_remove_one(struct ib_device *device, void *client_data)
{
	struct cma_device *cd = client_data;
	struct cma_listen_dev *ld, *tmp;
	struct rdma_id_private *p;
	LIST_HEAD(listens);
	LIST_HEAD(todo);

	/* Wildcard listeners stop listening on the device, silently. */
	mutex_lock(&cma_mutex);
	list_del(&cd->node);
	list_for_each_entry(p, &cma_listeners, listen_node)
		list_for_each_entry_safe(ld, tmp, &p->listen_devs, node)
			if (ld->cma_dev == cd)
				list_move_tail(&ld->node, &listens);
	mutex_unlock(&cma_mutex);
	list_for_each_entry_safe(ld, tmp, &listens, node)
		cma_listen_dev_free(ld);

	/* Every other ID is told, and removal waits until it is destroyed. */
	mutex_lock(&cma_mutex);
	list_splice_init(&cd->ids, &todo);
	while ((p = list_first_entry_or_null(&todo, struct rdma_id_private,
					     dev_node))) {
		list_move_tail(&p->dev_node, &cd->ids);
		cma_get(p);
		mutex_unlock(&cma_mutex);
		cma_removal_event(p);
		cma_put(p);
		mutex_lock(&cma_mutex);
	}
	mutex_unlock(&cma_mutex);

	cma_dev_put(cd);
	wait_for_completion(&cd->released);
	kfree(cd->gid_type);
	kfree(cd->tos);
	kfree(cd);
}

static struct ib_client cma_client = {
	.name	= "cma",
	.add	= cma_add_one,
	.remove	= cma_remove_one,
};

static int __init cma_init(void)
{
	int ret;

	cma_wq = alloc_ordered_workqueue("rdma_cm", WQ_MEM_RECLAIM);
	if (!cma_wq)
		return -ENOMEM;
	ret = cma_pernet_init();
	if (ret)
		goto err_wq;
	ret = ib_register_client(&cma_client);
	if (ret)
		goto err_net;
	return 0;

err_net:
	cma_pernet_exit();
err_wq:
	destroy_workqueue(cma_wq);
	return ret;
}

static void __exit cma_cleanup(void)
{
	ib_unregister_client(&cma_client);
	destroy_workqueue(cma_wq);
	cma_pernet_exit();
}

module_init(cma_init);
module_exit(cma_cleanup);
