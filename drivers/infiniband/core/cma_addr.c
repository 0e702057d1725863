// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Address and route resolution of the RDMA CM.  The address step asks
 * ib_core's resolver (rdma_resolve_ip()) for the source address, the
 * netdev and the next hop's MAC, then attaches the ID to the device port
 * that has the source address as a GID (RoCE) or has that netdev
 * (iWARP).  On RoCE the route step needs no subnet administrator: the
 * path is built here from what the address step found and the netdev's
 * MTU.  On iWARP there is no path at all: the provider's TCP connection
 * finds its way.
 */
#include <linux/slab.h>
#include <net/ip.h>
#include <rdma/ib_cache.h>
#include "cma_hdr.h"
#include "cma_priv.h"

/**
 * cma_cancel_addr() - stop an address resolution of an ID being destroyed
 * @p: the ID; its handler_mutex is not held
 */
void cma_cancel_addr(struct rdma_id_private *p)
{
	rdma_addr_cancel(&p->id.route.addr.dev_addr);
}

/**
 * cma_free_route() - forget an ID's path
 * @p: the ID
 */
void cma_free_route(struct rdma_id_private *p)
{
	kfree(p->id.route.path_rec);
	p->id.route.path_rec = NULL;
	p->id.route.num_pri_alt_paths = 0;
}

/* Attach an ID whose source address has just been resolved. */
static int cma_attach_resolved(struct rdma_id_private *p)
{
	struct rdma_dev_addr *da = &p->id.route.addr.dev_addr;
	struct net_device *ndev;
	int ret;

	ndev = dev_get_by_index(cma_net(p), da->bound_dev_if);
	if (!ndev)
		return -ENODEV;
	ret = cma_attach_by_addr(p, ndev, cma_src(p), NULL);
	dev_put(ndev);
	return ret;
}

static void cma_addr_done(int status, struct sockaddr *src,
			  struct rdma_dev_addr *da, void *context)
{
	struct rdma_id_private *p = context;
	struct rdma_cm_event ev = {};
	u16 port;

	mutex_lock(&p->handler_mutex);
	WRITE_ONCE(p->addr_pending, false);
	if (!cma_move(p, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_RESOLVED)) {
		mutex_unlock(&p->handler_mutex);
		return;
	}
	if (!status) {
		port = cma_port(cma_src(p));
		memcpy(cma_src(p), src, rdma_addr_size(src));
		cma_set_port(cma_src(p), port);
		if (!p->cma_dev)
			status = cma_attach_resolved(p);
	}
	if (status) {
		pr_debug("rdma_cm: resolving %pISpc failed: %d\n", cma_dst(p),
			 status);
		cma_move(p, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ADDR_BOUND);
		ev.event = RDMA_CM_EVENT_ADDR_ERROR;
		ev.status = status;
	} else {
		ev.event = RDMA_CM_EVENT_ADDR_RESOLVED;
	}
	if (cma_deliver(p, &ev))
		cma_destroy_unlock(p);
	else
		mutex_unlock(&p->handler_mutex);
}

/*
 * A wildcard destination means the local host: the ID's own address if
 * it has one, else the first address of the family a RoCE port has as a
 * GID (iWARP GIDs are MAC addresses: an unbound iWARP ID needs a RoCE
 * port here, or its own address).
 */
static int cma_loopback_dst(struct rdma_id_private *p)
{
	const struct ib_gid_attr *attr;
	struct sockaddr *dst = cma_dst(p);
	bool v4 = dst->sa_family == AF_INET;
	struct cma_device *cd;
	u16 port = cma_port(dst);
	u32 pn;
	int i;

	if (!cma_any_addr(cma_src(p))) {
		memcpy(dst, cma_src(p), rdma_addr_size(cma_src(p)));
		cma_set_port(dst, port);
		return 0;
	}
	mutex_lock(&cma_mutex);
	list_for_each_entry(cd, &cma_devices, node) {
		rdma_for_each_port(cd->device, pn) {
			if (!rdma_protocol_roce(cd->device, pn))
				continue;
			for (i = 0;; i++) {
				struct in6_addr *ip;

				attr = rdma_get_gid_attr(cd->device, pn, i);
				if (IS_ERR(attr) && PTR_ERR(attr) == -EINVAL)
					break;
				if (IS_ERR(attr))
					continue;
				ip = (struct in6_addr *)attr->gid.raw;
				if (attr->gid_type == cd->gid_type[pn - 1] &&
				    ipv6_addr_v4mapped(ip) == v4 &&
				    !rdma_link_local_addr(ip)) {
					rdma_gid2ip(dst, &attr->gid);
					cma_set_port(dst, port);
					rdma_put_gid_attr(attr);
					mutex_unlock(&cma_mutex);
					return 0;
				}
				rdma_put_gid_attr(attr);
			}
		}
	}
	mutex_unlock(&cma_mutex);
	return -EADDRNOTAVAIL;
}

/**
 * rdma_resolve_addr() - find the local device and next hop for a peer
 * @id: the ID, IDLE (it is bound here: to @src_addr, or to the wildcard
 *	of @dst_addr's family) or ADDR_BOUND
 * @src_addr: the source to bind an IDLE ID to, or NULL
 * @dst_addr: the peer, AF_INET or AF_INET6 with its port; the wildcard
 *	means this host
 * @timeout_ms: how long to wait for ARP or neighbour discovery
 *
 * The result comes as ADDR_RESOLVED (the ID is then attached to a device
 * port) or ADDR_ERROR with -ETIMEDOUT, -ENETUNREACH, -EHOSTUNREACH,
 * -ENODEV (no RDMA port owns the source address) and the like.
 *
 * Return: 0 when the resolution is under way; -EINVAL for a state other
 * than IDLE/ADDR_BOUND or a family different from the bound one; a bind
 * errno; -EADDRNOTAVAIL for a wildcard peer with no local address.
 */
int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src_addr,
		      const struct sockaddr *dst_addr,
		      unsigned long timeout_ms)
{
	struct rdma_id_private *p = cma_priv(id);
	struct rdma_dev_addr *da = &id->route.addr.dev_addr;
	int ret;

	if (dst_addr->sa_family != AF_INET && dst_addr->sa_family != AF_INET6)
		return -EINVAL;
	if (cma_state(p) == RDMA_CM_IDLE) {
		if (src_addr && src_addr->sa_family &&
		    src_addr->sa_family != dst_addr->sa_family)
			return -EINVAL;
		if (src_addr && src_addr->sa_family)
			ret = cma_bind(p, src_addr);
		else
			ret = cma_bind_any(p, dst_addr->sa_family);
		if (ret)
			return ret;
	}
	if (cma_src(p)->sa_family != dst_addr->sa_family)
		return -EINVAL;
	if (!cma_move(p, RDMA_CM_ADDR_BOUND, RDMA_CM_ADDR_QUERY))
		return -EINVAL;
	memcpy(cma_dst(p), dst_addr, rdma_addr_size(dst_addr));
	if (dst_addr->sa_family == AF_INET6 && !da->bound_dev_if) {
		const struct sockaddr_in6 *d6 =
			(const struct sockaddr_in6 *)dst_addr;

		if (ipv6_addr_type(&d6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			da->bound_dev_if = d6->sin6_scope_id;
	}
	ret = cma_any_addr(dst_addr) ? cma_loopback_dst(p) : 0;
	if (!ret) {
		WRITE_ONCE(p->addr_pending, true);
		ret = rdma_resolve_ip(cma_src(p), cma_dst(p), da, timeout_ms,
				      cma_addr_done, false, p);
	}
	if (ret) {
		WRITE_ONCE(p->addr_pending, false);
		pr_debug("rdma_cm: resolve %pISpc refused: %d\n", dst_addr, ret);
		cma_move(p, RDMA_CM_ADDR_QUERY, RDMA_CM_ADDR_BOUND);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_addr);

/* The service level of @tos on @ndev: its priority's traffic class. */
static u8 cma_tos_to_sl(struct net_device *ndev, u8 tos)
{
	u8 prio = rt_tos2priority(tos);

	if (is_vlan_dev(ndev))
		return (vlan_dev_get_egress_qos_mask(ndev, prio) &
			VLAN_PRIO_MASK) >> VLAN_PRIO_SHIFT;
	return netdev_get_num_tc(ndev) ? netdev_get_prio_tc_map(ndev, prio) : 0;
}

/* Build the one RoCE path of an ID whose address is resolved. */
static int cma_roce_path(struct rdma_id_private *p)
{
	struct rdma_dev_addr *da = &p->id.route.addr.dev_addr;
	const struct ib_gid_attr *sga = da->sgid_attr;
	struct sockaddr *dst = cma_dst(p);
	struct sa_path_rec *path;
	struct net_device *ndev;
	u8 tos = cma_id_tos(p);
	__be32 flow = 0;
	int mtu;
	u8 sl;

	if (!sga)
		return -ENODEV;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sga);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return -ENODEV;
	}
	mtu = iboe_get_mtu(READ_ONCE(ndev->mtu));
	sl = cma_tos_to_sl(ndev, tos);
	rcu_read_unlock();
	if (!mtu)
		return -EINVAL;

	path = kzalloc(sizeof(*path), GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	path->rec_type = sa_conv_gid_to_pathrec_type(sga->gid_type);
	rdma_ip2gid(cma_src(p), &path->sgid);
	rdma_ip2gid(dst, &path->dgid);
	path->service_id = rdma_get_service_id(&p->id, dst);
	path->hop_limit = da->hoplimit;
	path->traffic_class = tos;
	path->sl = sl;
	path->pkey = cpu_to_be16(0xffff);
	path->reversible = 1;
	path->numb_path = 1;
	path->mtu_selector = IB_SA_EQ;
	path->mtu = mtu;
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = p->timeout_set && p->timeout ?
				 p->timeout - 1 : CMA_IBOE_PACKET_LIFETIME;
	if (path->rec_type == SA_PATH_REC_TYPE_ROCE_V2) {
		if (dst->sa_family == AF_INET6)
			flow = ((struct sockaddr_in6 *)dst)->sin6_flowinfo &
			       IPV6_FLOWLABEL_MASK;
		path->flow_label = flow ? flow :
			cpu_to_be32(cma_flow_label(cma_port(cma_src(p)),
						   cma_port(dst)));
	}
	path->roce.route_resolved = true;
	sa_path_set_dmac(path, da->dst_dev_addr);
	p->id.route.path_rec = path;
	p->id.route.num_pri_alt_paths = 1;
	return 0;
}

/**
 * rdma_resolve_route() - find the path to an ID's resolved peer
 * @id: the ID, ADDR_RESOLVED
 * @timeout_ms: how long a path query may take (must not be 0); RoCE
 *	builds its path locally
 *
 * The path (GIDs, hop limit, traffic class from rdma_set_service_type(),
 * the netdev's MTU, the flow label, the next hop's MAC) is reported by a
 * ROUTE_RESOLVED event.  An iWARP ID has no path: ROUTE_RESOLVED comes
 * at once.
 *
 * Return: 0; -EINVAL for a zero timeout, a wrong state or an MTU too
 * small for RoCE; -ENODEV when the source GID's netdev is gone; -ENOMEM.
 */
int rdma_resolve_route(struct rdma_cm_id *id, unsigned long timeout_ms)
{
	struct rdma_id_private *p = cma_priv(id);
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	int ret;

	if (!timeout_ms)
		return -EINVAL;
	if (!cma_move(p, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;
	ret = -EOPNOTSUPP;
	if (rdma_protocol_roce(id->device, id->port_num))
		ret = cma_roce_path(p);
	else if (cma_iwarp(p))
		ret = 0;
	if (!ret) {
		ret = cma_queue_event(p, RDMA_CM_ROUTE_QUERY,
				      RDMA_CM_ROUTE_RESOLVED, &ev);
		if (ret)
			cma_free_route(p);
	}
	if (ret) {
		pr_debug("rdma_cm: route to %pISpc failed: %d\n", cma_dst(p),
			 ret);
		cma_move(p, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_resolve_route);

/**
 * rdma_set_ib_path() - give an ID the path its owner found
 * @id: the ID, ADDR_RESOLVED
 * @path_rec: the path, copied; on a RoCE port an InfiniBand or RoCE path
 *	(it becomes a RoCE path of the source GID's type, with the resolved
 *	next-hop MAC)
 *
 * The ID moves to ROUTE_RESOLVED at once; no event is raised.
 *
 * Return: 0; -EINVAL for a wrong state, an OPA path, or a RoCE path on
 * another port; -ENOMEM.
 */
int rdma_set_ib_path(struct rdma_cm_id *id, struct sa_path_rec *path_rec)
{
	struct rdma_id_private *p = cma_priv(id);
	struct sa_path_rec *path;

	const struct ib_gid_attr *sga = id->route.addr.dev_addr.sgid_attr;
	bool roce;

	if (!cma_move(p, RDMA_CM_ADDR_RESOLVED, RDMA_CM_ROUTE_QUERY))
		return -EINVAL;
	roce = rdma_protocol_roce(id->device, id->port_num);
	if (sa_path_is_opa(path_rec) || (!roce && sa_path_is_roce(path_rec)) ||
	    (roce && !sga)) {
		cma_move(p, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
		return -EINVAL;
	}
	path = kmemdup(path_rec, sizeof(*path), GFP_KERNEL);
	if (!path) {
		cma_move(p, RDMA_CM_ROUTE_QUERY, RDMA_CM_ADDR_RESOLVED);
		return -ENOMEM;
	}
	if (roce) {
		/* an InfiniBand layout (from user space) becomes a RoCE path */
		memset(&path->roce, 0, sizeof(path->roce));
		path->rec_type = sa_conv_gid_to_pathrec_type(sga->gid_type);
		sa_path_set_dmac(path, id->route.addr.dev_addr.dst_dev_addr);
		path->roce.route_resolved = true;
	}
	kfree(id->route.path_rec);
	id->route.path_rec = path;
	id->route.num_pri_alt_paths = 1;
	cma_set_state(p, RDMA_CM_ROUTE_RESOLVED);
	return 0;
}
EXPORT_SYMBOL(rdma_set_ib_path);
