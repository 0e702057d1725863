// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA CM's port spaces: every network namespace has a table per port
 * space (TCP, UDP, IB, IPoIB) from port number to the IDs bound to it.
 * Binding, port allocation, the sharing rules, listening and the lookup
 * of the listener a request is for.  All tables are guarded by cma_mutex.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/netns/generic.h>
#include <rdma/ib_cache.h>
#include "cma_priv.h"

enum { CMA_PS_TCP, CMA_PS_UDP, CMA_PS_IB, CMA_PS_IPOIB, CMA_PS_COUNT };

struct cma_pernet {
	struct xarray	ports[CMA_PS_COUNT];
};

static unsigned int cma_pernet_id;

static struct xarray *cma_ports(struct net *net, enum rdma_ucm_port_space ps)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);

	switch (ps) {
	case RDMA_PS_TCP:
		return &pn->ports[CMA_PS_TCP];
	case RDMA_PS_UDP:
		return &pn->ports[CMA_PS_UDP];
	case RDMA_PS_IB:
		return &pn->ports[CMA_PS_IB];
	case RDMA_PS_IPOIB:
		return &pn->ports[CMA_PS_IPOIB];
	}
	return NULL;
}

/* Do @a and @b name the same address (ports aside)? */
static bool cma_same_addr(const struct sockaddr *a, const struct sockaddr *b)
{
	if (a->sa_family != b->sa_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return ipv6_addr_equal(&((const struct sockaddr_in6 *)a)->sin6_addr,
			       &((const struct sockaddr_in6 *)b)->sin6_addr);
}

/*
 * Does a wildcard bound by @o cover an address of @family?  An IPv6
 * wildcard covers IPv4 too unless its owner is IPv6-only.
 */
static bool cma_any_covers(struct rdma_id_private *o, sa_family_t family)
{
	sa_family_t of = cma_src(o)->sa_family;

	return of == family || (of == AF_INET6 && !o->afonly);
}

/* Would @p's address share a port with @o's in a way that clashes? */
static int cma_clash(struct rdma_id_private *p, struct rdma_id_private *o)
{
	struct sockaddr *a = cma_src(p), *b = cma_src(o);

	if (cma_any_addr(a) || cma_any_addr(b)) {
		if ((cma_any_addr(a) && cma_any_covers(p, b->sa_family)) ||
		    (cma_any_addr(b) && cma_any_covers(o, a->sa_family)))
			return -EADDRNOTAVAIL;
		return 0;
	}
	return cma_same_addr(a, b) ? -EADDRINUSE : 0;
}

/*
 * Check @p against the other owners of @bl.  With @reuse, owners that all
 * allow reuse and do not listen share freely.
 */
static int cma_check_port(struct rdma_id_private *p, struct cma_bind_list *bl,
			  bool reuse)
{
	struct rdma_id_private *o;
	int ret;

	lockdep_assert_held(&cma_mutex);
	hlist_for_each_entry(o, &bl->owners, bind_node) {
		if (o == p)
			continue;
		if (reuse && o->reuseaddr && cma_state(o) != RDMA_CM_LISTEN)
			continue;
		ret = cma_clash(p, o);
		if (ret)
			return ret;
	}
	return 0;
}

static void cma_bind_to(struct rdma_id_private *p, struct cma_bind_list *bl)
{
	p->bind_list = bl;
	cma_set_port(cma_src(p), bl->port);
	hlist_add_head(&p->bind_node, &bl->owners);
}

static int cma_new_port(struct rdma_id_private *p, struct xarray *xa,
			u16 port)
{
	struct cma_bind_list *bl = kzalloc(sizeof(*bl), GFP_KERNEL);
	int ret;

	if (!bl)
		return -ENOMEM;
	bl->ps = p->id.ps;
	bl->port = port;
	ret = xa_insert(xa, port, bl, GFP_KERNEL);
	if (ret) {
		kfree(bl);
		return ret == -EBUSY ? -EADDRINUSE : ret;
	}
	cma_bind_to(p, bl);
	return 0;
}

/* Port 0: a free port of the namespace's local port range. */
static int cma_any_port(struct rdma_id_private *p, struct xarray *xa)
{
	struct net *net = cma_net(p);
	unsigned int range, i;
	int low, high;
	u16 port;

	inet_get_local_port_range(net, &low, &high);
	range = high - low + 1;
	port = low + get_random_u32_below(range);
	for (i = 0; i < range; i++) {
		if (!inet_is_local_reserved_port(net, port) &&
		    !xa_load(xa, port))
			return cma_new_port(p, xa, port);
		port = port == high ? low : port + 1;
	}
	return -EADDRNOTAVAIL;
}

static int cma_get_port(struct rdma_id_private *p)
{
	struct xarray *xa = cma_ports(cma_net(p), p->id.ps);
	u16 port = cma_port(cma_src(p));
	struct cma_bind_list *bl;
	int ret;

	if (!xa)
		return -EPROTONOSUPPORT;
	mutex_lock(&cma_mutex);
	if (!port) {
		ret = cma_any_port(p, xa);
		goto out;
	}
	if (port < PROT_SOCK &&
	    !ns_capable(cma_net(p)->user_ns, CAP_NET_BIND_SERVICE)) {
		ret = -EACCES;
		goto out;
	}
	bl = xa_load(xa, port);
	if (!bl) {
		ret = cma_new_port(p, xa, port);
		goto out;
	}
	ret = cma_check_port(p, bl, p->reuseaddr);
	if (!ret)
		cma_bind_to(p, bl);
out:
	mutex_unlock(&cma_mutex);
	return ret;
}

/**
 * cma_unbind() - release an ID's port
 * @p: the ID, bound or not
 */
void cma_unbind(struct rdma_id_private *p)
{
	struct cma_bind_list *bl = p->bind_list;

	if (!bl)
		return;
	mutex_lock(&cma_mutex);
	hlist_del(&p->bind_node);
	p->bind_list = NULL;
	if (hlist_empty(&bl->owners)) {
		xa_erase(cma_ports(cma_net(p), bl->ps), bl->port);
		kfree(bl);
	}
	mutex_unlock(&cma_mutex);
}

/* Find the netdev and device of a specific local address; attach @p. */
static int cma_bind_device(struct rdma_id_private *p, struct sockaddr *addr)
{
	struct rdma_dev_addr *da = &p->id.route.addr.dev_addr;
	struct net_device *ndev;
	int ret;

	ret = rdma_translate_ip(addr, da);
	if (ret)
		return ret;
	ndev = dev_get_by_index(cma_net(p), da->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	ret = cma_attach_by_addr(p, ndev, addr, NULL);
	dev_put(ndev);
	return ret;
}

/**
 * cma_bind() - bind an ID in state IDLE
 * @p: the ID
 * @addr: AF_INET or AF_INET6 address and port (0: any free port)
 *
 * Moves @p to ADDR_BOUND.
 *
 * Return: 0 or the errno rdma_bind_addr() documents.
 */
int cma_bind(struct rdma_id_private *p, struct sockaddr *addr)
{
	struct rdma_dev_addr *da = &p->id.route.addr.dev_addr;
	int ret;

	if (addr->sa_family != AF_INET && addr->sa_family != AF_INET6 &&
	    addr->sa_family != AF_IB)
		return -EAFNOSUPPORT;
	/* RoCE ports have no native IB addresses: AF_IB binds the wildcard. */
	if (addr->sa_family == AF_IB && !cma_any_addr(addr))
		return -EADDRNOTAVAIL;
	if (!cma_move(p, RDMA_CM_IDLE, RDMA_CM_ADDR_BOUND))
		return -EINVAL;
	memcpy(cma_src(p), addr, rdma_addr_size(addr));
	if (addr->sa_family == AF_INET6) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)addr;

		if (ipv6_addr_type(&s6->sin6_addr) & IPV6_ADDR_LINKLOCAL) {
			if (!s6->sin6_scope_id) {
				ret = -EINVAL;
				goto err;
			}
			da->bound_dev_if = s6->sin6_scope_id;
		}
		if (!p->afonly_set)
			p->afonly = cma_net(p)->ipv6.sysctl.bindv6only;
	} else {
		p->afonly = 1;
	}
	if (!cma_any_addr(addr)) {
		ret = cma_bind_device(p, addr);
		if (ret)
			goto err;
	}
	ret = cma_get_port(p);
	if (ret)
		goto err;
	return 0;

err:
	pr_debug("rdma_cm: bind to %pISpc refused: %d\n", addr, ret);
	memset(cma_src(p), 0, sizeof(p->id.route.addr.src_addr));
	da->bound_dev_if = 0;
	cma_set_state(p, RDMA_CM_IDLE);
	return ret;
}

/**
 * cma_bind_any() - bind an ID in state IDLE to the wildcard of a family
 * @p: the ID
 * @family: AF_INET or AF_INET6
 *
 * Return: 0 or a cma_bind() errno.
 */
int cma_bind_any(struct rdma_id_private *p, sa_family_t family)
{
	struct sockaddr_storage any = { .ss_family = family };

	return cma_bind(p, (struct sockaddr *)&any);
}

/**
 * rdma_bind_addr() - bind an RDMA CM ID to a local address and port
 * @id: the ID, in state IDLE
 * @addr: AF_INET or AF_INET6 socket address; a specific address binds the
 *	ID to the RDMA device behind it, the wildcard to none; port 0 picks
 *	a free port of the namespace's local port range.  An IPv6 link-local
 *	address needs its scope ID.  AF_IB: only the wildcard GID (what
 *	librdmacm binds to learn whether AF_IB works); the port is the low 16
 *	bits of the Service ID when its mask covers them, else one is picked,
 *	in the ID's own port space.  Such an ID can neither listen nor
 *	resolve an IP address.
 *
 * Return: 0; -EAFNOSUPPORT for another family; -EINVAL when not IDLE or
 * without a link-local scope; -EADDRNOTAVAIL or -ENODEV when the address
 * is not on an RDMA netdev (or is an AF_IB address other than the
 * wildcard); -EADDRINUSE (same address) or -EADDRNOTAVAIL
 * (a wildcard involved) when the port is taken; -EACCES for a privileged
 * port without CAP_NET_BIND_SERVICE; -ENOMEM.
 */
int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	return cma_bind(cma_priv(id), addr);
}
EXPORT_SYMBOL(rdma_bind_addr);

/* Does a listener bound to @o's address take a request for @dst? */
static bool cma_listener_matches(struct rdma_id_private *o,
				 const struct sockaddr *dst, int ifindex)
{
	const struct sockaddr *la = cma_src(o);
	int bound = o->id.route.addr.dev_addr.bound_dev_if;

	if (cma_any_addr(la))
		return cma_any_covers(o, dst->sa_family) &&
		       (!bound || bound == ifindex);
	if (!cma_same_addr(la, dst))
		return false;
	return !bound || bound == ifindex;
}

/**
 * cma_find_listener() - the listener a request is for
 * @net: the namespace of the netdev the request came in on
 * @ps: port space from the Service ID
 * @port: port from the Service ID
 * @device: the device the request came in on
 * @dst: the local address the request names
 * @ifindex: the netdev it came in on
 * @type: the QP type it asks for
 *
 * Return: the first matching listener, with a reference, or NULL.
 */
struct rdma_id_private *cma_find_listener(struct net *net, u16 ps, u16 port,
					  struct ib_device *device,
					  const struct sockaddr *dst,
					  int ifindex, enum ib_qp_type type)
{
	struct xarray *xa = cma_ports(net, ps);
	struct rdma_id_private *o, *found = NULL;
	struct cma_bind_list *bl;

	if (!xa)
		return NULL;
	mutex_lock(&cma_mutex);
	bl = xa_load(xa, port);
	if (bl) {
		hlist_for_each_entry(o, &bl->owners, bind_node) {
			if (cma_state(o) != RDMA_CM_LISTEN ||
			    o->id.qp_type != type ||
			    (o->id.device && o->id.device != device) ||
			    !cma_listener_matches(o, dst, ifindex))
				continue;
			cma_get(o);
			found = o;
			break;
		}
	}
	mutex_unlock(&cma_mutex);
	return found;
}

/**
 * cma_listen_on() - make a listener listen on one device
 * @p: the listener
 * @cd: the device
 *
 * An IB CM device gets the ib_cm listener of its (device, Service ID),
 * shared with the other listeners of the port, which cma_req_handler()
 * tells apart; an iWARP device an iw_cm listener of @p's own.
 *
 * Context: cma_mutex held.
 * Return: 0, -ENOMEM, or the error of ib_cm_insert_listen() or
 * cma_iw_listen().
 */
int cma_listen_on(struct rdma_id_private *p, struct cma_device *cd)
{
	struct ib_device *dev = cd->device;
	struct cma_listen_dev *ld;
	int ret;

	lockdep_assert_held(&cma_mutex);
	ld = kzalloc(sizeof(*ld), GFP_KERNEL);
	if (!ld)
		return -ENOMEM;
	if (rdma_cap_iw_cm(dev, rdma_start_port(dev))) {
		ld->iw_id = cma_iw_listen(p, dev);
		ret = PTR_ERR_OR_ZERO(ld->iw_id);
	} else {
		ld->cm_id = ib_cm_insert_listen(dev, cma_req_handler,
						rdma_get_service_id(&p->id,
								    cma_src(p)));
		ret = PTR_ERR_OR_ZERO(ld->cm_id);
	}
	if (ret) {
		kfree(ld);
		return ret;
	}
	ld->cma_dev = cd;
	refcount_inc(&cd->refs);
	list_add_tail(&ld->node, &p->listen_devs);
	return 0;
}

/**
 * cma_listen_dev_free() - stop one per-device listen
 * @ld: off every list; cma_mutex not held
 */
void cma_listen_dev_free(struct cma_listen_dev *ld)
{
	if (ld->iw_id)
		iw_destroy_cm_id(ld->iw_id);
	else
		ib_destroy_cm_id(ld->cm_id);
	cma_dev_put(ld->cma_dev);
	kfree(ld);
}

/*
 * Listen on every device (wildcard listeners) or on the ID's own.  On
 * failure nothing is left listening.
 */
static int cma_listen_devices(struct rdma_id_private *p)
{
	struct cma_listen_dev *ld, *tmp;
	struct cma_device *cd;
	LIST_HEAD(undo);
	int ret = 0;

	mutex_lock(&cma_mutex);
	if (p->cma_dev) {
		ret = cma_listen_on(p, p->cma_dev);
	} else {
		list_add_tail(&p->listen_node, &cma_listeners);
		list_for_each_entry(cd, &cma_devices, node) {
			ret = cma_listen_on(p, cd);
			if (ret)
				break;
		}
	}
	if (ret) {
		list_del_init(&p->listen_node);
		list_splice_init(&p->listen_devs, &undo);
	}
	mutex_unlock(&cma_mutex);
	list_for_each_entry_safe(ld, tmp, &undo, node)
		cma_listen_dev_free(ld);
	return ret;
}

/**
 * rdma_listen() - take connection requests on an ID's address and port
 * @id: the ID; bound, or bound here to 0.0.0.0 and a free port when IDLE
 * @backlog: the requests an iWARP provider may hold before they are
 *	answered (0 or less: iw_cm's default); not counted elsewhere
 *
 * A wildcard listener listens on every RDMA device, including those
 * added later; one bound to an address listens on that address's device.
 * On an iWARP device the provider itself listens on the address and
 * port.  Requests arrive as CONNECT_REQUEST events on new IDs.
 *
 * Return: 0; -EINVAL when the ID is neither IDLE nor ADDR_BOUND;
 * -EAFNOSUPPORT when it is bound to an AF_IB address; -EADDRINUSE when a
 * port shared with rdma_set_reuseaddr() is also bound by another ID; a
 * bind errno; -ENOMEM; -EBUSY from the IB CM; an iWARP provider's error.
 */
int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	struct rdma_id_private *p = cma_priv(id);
	int ret;

	if (cma_state(p) == RDMA_CM_IDLE) {
		ret = cma_bind_any(p, AF_INET);
		if (ret)
			return ret;
	}
	if (cma_src(p)->sa_family == AF_IB)
		return -EAFNOSUPPORT;
	if (!cma_move(p, RDMA_CM_ADDR_BOUND, RDMA_CM_LISTEN))
		return -EINVAL;
	if (p->reuseaddr) {
		mutex_lock(&cma_mutex);
		ret = cma_check_port(p, p->bind_list, false);
		mutex_unlock(&cma_mutex);
		if (ret) {
			ret = -EADDRINUSE;
			goto err;
		}
	}
	p->backlog = backlog;
	ret = cma_listen_devices(p);
	if (ret)
		goto err;
	return 0;

err:
	pr_debug("rdma_cm: listen on %pISpc failed: %d\n", cma_src(p), ret);
	cma_set_state(p, RDMA_CM_ADDR_BOUND);
	return ret;
}
EXPORT_SYMBOL(rdma_listen);

static int __net_init cma_net_init(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);
	int i;

	for (i = 0; i < CMA_PS_COUNT; i++)
		xa_init(&pn->ports[i]);
	return 0;
}

/* Every ID holds a reference on its namespace: the tables are empty. */
static void __net_exit cma_net_exit(struct net *net)
{
	struct cma_pernet *pn = net_generic(net, cma_pernet_id);
	int i;

	for (i = 0; i < CMA_PS_COUNT; i++) {
		WARN_ON(!xa_empty(&pn->ports[i]));
		xa_destroy(&pn->ports[i]);
	}
}

static struct pernet_operations cma_pernet_ops = {
	.init	= cma_net_init,
	.exit	= cma_net_exit,
	.id	= &cma_pernet_id,
	.size	= sizeof(struct cma_pernet),
};

int cma_pernet_init(void)
{
	return register_pernet_subsys(&cma_pernet_ops);
}

void cma_pernet_exit(void)
{
	unregister_pernet_subsys(&cma_pernet_ops);
}
