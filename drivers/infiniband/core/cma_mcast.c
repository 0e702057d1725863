// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Multicast groups of UD IDs on RoCE.  There is no subnet administrator:
 * a join is local.  The group's GID is the IPv4 address mapped into IPv6
 * (RoCE v2 carries IPv4 multicast only), a full member of an IPv4 group
 * also joins the IP group on the netdev so that IGMP tells the switches,
 * and MULTICAST_JOIN brings the owner an address vector to send to the
 * group.  Attaching the QP to the group is the owner's business
 * (ib_attach_mcast()).
 */
#include <linux/igmp.h>
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include "cma_priv.h"

#define CMA_JOIN_FULL		BIT(0)
#define CMA_JOIN_SENDONLY_FULL	BIT(3)

/**
 * struct cma_mc - a group an ID joined
 * @node: on the ID's mc_list (ID lock)
 * @addr: the group's address
 * @join_state: what the ID joined as
 * @igmp: the IP group was joined on the ID's netdev
 * @id: the ID, referenced while @work is queued
 * @work: delivers MULTICAST_JOIN; leaving cancels it or waits for it, so
 *	that no event names a group after it was left
 * @ev: that event; its address vector is freed with the work
 */
struct cma_mc {
	struct list_head	node;
	struct sockaddr_storage	addr;
	u8			join_state;
	bool			igmp;
	struct rdma_id_private	*id;
	struct work_struct	work;
	struct rdma_cm_event	ev;
};

/* Join (@join) or leave the IPv4 group of @mc on the ID's netdev. */
static void cma_igmp(struct rdma_id_private *p, struct cma_mc *mc, bool join)
{
	__be32 group = ((struct sockaddr_in *)&mc->addr)->sin_addr.s_addr;
	struct net_device *ndev;
	struct in_device *in_dev;

	ndev = dev_get_by_index(cma_net(p),
				p->id.route.addr.dev_addr.bound_dev_if);
	if (!ndev)
		return;
	rtnl_lock();
	in_dev = __in_dev_get_rtnl(ndev);
	if (in_dev) {
		if (join)
			ip_mc_inc_group(in_dev, group);
		else
			ip_mc_dec_group(in_dev, group);
		mc->igmp = join;
	}
	rtnl_unlock();
	dev_put(ndev);
}

/* MULTICAST_JOIN for @mc, unless its ID is going; the handler must return 0. */
static void cma_mc_join_work(struct work_struct *w)
{
	struct cma_mc *mc = container_of(w, struct cma_mc, work);
	struct rdma_id_private *p = mc->id;
	enum rdma_cm_state s;

	mutex_lock(&p->handler_mutex);
	s = cma_state(p);
	if (s == RDMA_CM_DESTROYING || s == RDMA_CM_DEVICE_REMOVAL)
		pr_debug("rdma_cm: join of %pISc not reported, ID in state %d\n",
			 &mc->addr, s);
	else
		WARN_ON_ONCE(cma_deliver(p, &mc->ev));
	mutex_unlock(&p->handler_mutex);
	rdma_destroy_ah_attr(&mc->ev.param.ud.ah_attr);
	cma_put(p);
}

static void cma_mc_free(struct rdma_id_private *p, struct cma_mc *mc)
{
	/* A join event not delivered yet never will be. */
	if (cancel_work_sync(&mc->work)) {
		rdma_destroy_ah_attr(&mc->ev.param.ud.ah_attr);
		cma_put(p);
	}
	if (mc->igmp)
		cma_igmp(p, mc, false);
	kfree(mc);
}

/* The address vector to a group, holding a reference on the source GID. */
static void cma_mc_ah(struct rdma_id_private *p, union ib_gid *mgid,
		      struct rdma_ah_attr *ah)
{
	const struct ib_gid_attr *sga = p->id.route.addr.dev_addr.sgid_attr;

	memset(ah, 0, sizeof(*ah));
	ah->type = rdma_ah_find_type(p->id.device, p->id.port_num);
	rdma_ah_set_port_num(ah, p->id.port_num);
	rdma_hold_gid_attr(sga);
	rdma_move_grh_sgid_attr(ah, mgid, 0, 64, cma_id_tos(p), sga);
	if (ipv6_addr_v4mapped((struct in6_addr *)mgid->raw))
		ip_eth_mc_map(((struct in6_addr *)mgid->raw)->s6_addr32[3],
			      ah->roce.dmac);
	else
		rdma_get_mcast_mac((struct in6_addr *)mgid->raw, ah->roce.dmac);
}

/**
 * rdma_join_multicast() - join a multicast group
 * @id: a UD ID, ADDR_BOUND to a specific address or ADDR_RESOLVED, whose
 *	QP the owner made (not rdma_create_qp())
 * @addr: the group, an IPv4 multicast address
 * @join_state: BIT(0) full member or BIT(3) send-only full member
 * @context: returned as the event's private_data
 *
 * MULTICAST_JOIN follows, with an address vector for the group (valid
 * during the handler), QP number 0xFFFFFF and the ID's Q_Key; the handler
 * must return 0 for it.  Once rdma_leave_multicast() returned, no event
 * names the group any more: leaving waits for a join event being
 * delivered, so it must not be called from the handler of that event.
 *
 * Return: 0; -EINVAL for a wrong state, QP type or join state, for an ID
 * without a device or with a QP of rdma_create_qp(), for a group address
 * that is not multicast; -EOPNOTSUPP for IPv6 groups on RoCE v2 and for
 * non-RoCE ports; -EADDRINUSE when the ID already joined @addr; -ENOMEM.
 */
int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr,
			u8 join_state, void *context)
{
	struct rdma_id_private *p = cma_priv(id);
	enum rdma_cm_state s = cma_state(p);
	struct cma_mc *mc, *o;
	union ib_gid mgid;

	if (id->qp || id->qp_type != IB_QPT_UD || !id->device ||
	    (s != RDMA_CM_ADDR_BOUND && s != RDMA_CM_ADDR_RESOLVED) ||
	    (join_state != CMA_JOIN_FULL && join_state != CMA_JOIN_SENDONLY_FULL))
		return -EINVAL;
	if (!rdma_protocol_roce(id->device, id->port_num))
		return -EOPNOTSUPP;
	if (addr->sa_family == AF_INET6)
		return -EOPNOTSUPP;
	if (addr->sa_family != AF_INET ||
	    !ipv4_is_multicast(((struct sockaddr_in *)addr)->sin_addr.s_addr))
		return -EINVAL;

	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	memcpy(&mc->addr, addr, sizeof(struct sockaddr_in));
	mc->join_state = join_state;
	mc->id = p;
	INIT_WORK(&mc->work, cma_mc_join_work);
	spin_lock_irq(&p->lock);
	list_for_each_entry(o, &p->mc_list, node) {
		if (((struct sockaddr_in *)&o->addr)->sin_addr.s_addr ==
		    ((struct sockaddr_in *)addr)->sin_addr.s_addr) {
			spin_unlock_irq(&p->lock);
			kfree(mc);
			return -EADDRINUSE;
		}
	}
	list_add_tail(&mc->node, &p->mc_list);
	spin_unlock_irq(&p->lock);
	if (join_state == CMA_JOIN_FULL)
		cma_igmp(p, mc, true);

	rdma_ip2gid(addr, &mgid);
	mc->ev.event = RDMA_CM_EVENT_MULTICAST_JOIN;
	cma_mc_ah(p, &mgid, &mc->ev.param.ud.ah_attr);
	mc->ev.param.ud.private_data = context;
	mc->ev.param.ud.qp_num = 0xFFFFFF;
	mc->ev.param.ud.qkey = p->qkey;
	cma_get(p);
	queue_work(cma_wq, &mc->work);
	return 0;
}
EXPORT_SYMBOL(rdma_join_multicast);

/**
 * rdma_leave_multicast() - leave a group joined with rdma_join_multicast()
 * @id: the ID
 * @addr: the group; nothing happens if the ID did not join it
 *
 * The owner detaches its QP from the group first.
 */
void rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr)
{
	struct rdma_id_private *p = cma_priv(id);
	struct cma_mc *mc, *found = NULL;

	spin_lock_irq(&p->lock);
	list_for_each_entry(mc, &p->mc_list, node) {
		if (addr->sa_family == AF_INET &&
		    ((struct sockaddr_in *)&mc->addr)->sin_addr.s_addr ==
		    ((struct sockaddr_in *)addr)->sin_addr.s_addr) {
			list_del(&mc->node);
			found = mc;
			break;
		}
	}
	spin_unlock_irq(&p->lock);
	if (found)
		cma_mc_free(p, found);
}
EXPORT_SYMBOL(rdma_leave_multicast);

/**
 * cma_leave_all() - leave every group of an ID being destroyed
 * @p: the ID
 */
void cma_leave_all(struct rdma_id_private *p)
{
	struct cma_mc *mc, *tmp;
	LIST_HEAD(all);

	spin_lock_irq(&p->lock);
	list_splice_init(&p->mc_list, &all);
	spin_unlock_irq(&p->lock);
	list_for_each_entry_safe(mc, tmp, &all, node)
		cma_mc_free(p, mc);
}
