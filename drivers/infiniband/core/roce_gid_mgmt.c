// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Keeping RoCE GID tables in step with the netdevs under them.
 *
 * A RoCE port's GID table holds, for every GID type the port speaks
 * (roce_gid_type_mask_support()):
 *   - the default GID: fe80::/64 with the EUI-64 of the port netdev's MAC,
 *     in the reserved default slots (v1 at index 0, v2 at index 1);
 *   - one GID per IPv4 address (IPv4-mapped) and per IPv6 address of the
 *     port's netdev and of the netdevs stacked on it, after the defaults.
 *
 * The netdevice, inetaddr and inet6addr notifiers only record what
 * happened and queue a work item on an ordered workqueue of our own; the
 * work then walks the registered RoCE ports (ib_enum_all_roce_netdevs())
 * and updates the tables through cache.c.  Events are applied in the
 * order they were notified.
 *
 * What is covered:
 *   - NETDEV_REGISTER / NETDEV_UP: default GIDs of a port's own netdev,
 *     and the addresses of that netdev or of an upper device of it
 *     (VLAN, macvlan, bond master...) on the ports below it;
 *   - NETDEV_UNREGISTER: every GID of that netdev goes, on every port;
 *   - NETDEV_CHANGEADDR: the netdev's GIDs are rebuilt (new default GID);
 *   - NETDEV_CHANGEUPPER: linking adds the new upper's (and its uppers')
 *     addresses, unlinking removes them;
 *   - address add/remove (IPv4 and IPv6) on any of those netdevs.
 * NETDEV_DOWN leaves the table alone, like upstream: IPv6 addresses are
 * withdrawn by their own inet6addr events, IPv4 addresses and default
 * GIDs stay.  Bonding is treated as plain stacking: a bond's addresses
 * show up on the ports of all its slaves; there is no active-slave
 * selection, no bond-master default GID and no failover handling.
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/* Ordered: netdev and address events are applied in notification order. */
static struct workqueue_struct *roce_gid_wq;

enum roce_gid_op {
	ROCE_GID_ADD,
	ROCE_GID_DEL,
};

/* A set of GIDs gathered under RCU, applied afterwards (sleeping). */
struct gid_batch {
	unsigned int	n;
	unsigned int	room;
	union ib_gid	*gids;
};

static void gid_batch_push(struct gid_batch *b, const union ib_gid *gid)
{
	if (b->n == b->room) {
		unsigned int room = b->room ? 2 * b->room : 8;
		union ib_gid *gids;

		gids = krealloc_array(b->gids, room, sizeof(*gids), GFP_ATOMIC);
		if (!gids)
			return;
		b->gids = gids;
		b->room = room;
	}
	b->gids[b->n++] = *gid;
}

/* Add or remove @gid bound to @ndev in every GID type the port speaks. */
static void roce_update_gid(enum roce_gid_op op, struct ib_device *ib_dev,
			    u32 port, const union ib_gid *gid,
			    struct net_device *ndev)
{
	unsigned long types = roce_gid_type_mask_support(ib_dev, port);
	struct ib_gid_attr attr;
	union ib_gid value;
	unsigned int type;

	for (type = 0; type < IB_GID_TYPE_SIZE; type++) {
		if (!(types & BIT(type)))
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.gid_type = type;
		RCU_INIT_POINTER(attr.ndev, ndev);
		value = *gid;
		if (op == ROCE_GID_ADD)
			ib_cache_gid_add(ib_dev, port, &value, &attr);
		else
			ib_cache_gid_del(ib_dev, port, &value, &attr);
	}
}

/* Snapshot the IPv4 then IPv6 addresses of @ndev as GIDs. */
static void collect_netdev_gids(struct net_device *ndev,
				struct gid_batch *batch)
{
	const struct in_ifaddr *ifa;
	struct in_device *in_dev;
	union ib_gid gid;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			ipv6_addr_set_v4mapped(ifa->ifa_address,
					       (struct in6_addr *)gid.raw);
			gid_batch_push(batch, &gid);
		}
	}
	rcu_read_unlock();

	if (IS_ENABLED(CONFIG_IPV6)) {
		struct inet6_ifaddr *ifp;
		struct inet6_dev *idev;

		idev = in6_dev_get(ndev);
		if (!idev)
			return;
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifp, &idev->addr_list, if_list) {
			memcpy(gid.raw, &ifp->addr, sizeof(gid.raw));
			gid_batch_push(batch, &gid);
		}
		read_unlock_bh(&idev->lock);
		in6_dev_put(idev);
	}
}

/* Add a GID for every address of @ndev to the port. */
static void add_netdev_ips(struct ib_device *ib_dev, u32 port,
			   struct net_device *ndev)
{
	struct gid_batch batch = {};
	unsigned int i;

	if (ndev->reg_state >= NETREG_UNREGISTERING)
		return;
	collect_netdev_gids(ndev, &batch);
	for (i = 0; i < batch.n; i++)
		roce_update_gid(ROCE_GID_ADD, ib_dev, port, &batch.gids[i],
				ndev);
	kfree(batch.gids);
}

static void set_default_gids(struct ib_device *ib_dev, u32 port,
			     struct net_device *ndev,
			     enum ib_cache_gid_default_mode mode)
{
	ib_cache_gid_set_default_gid(ib_dev, port, ndev,
				     roce_gid_type_mask_support(ib_dev, port),
				     mode);
}

/* The upper devices of a netdev, referenced, gathered under RCU. */
struct upper_set {
	unsigned int		n;
	unsigned int		room;
	struct net_device	**ndevs;
};

static int collect_upper(struct net_device *upper,
			 struct netdev_nested_priv *priv)
{
	struct upper_set *set = priv->data;

	if (set->n == set->room) {
		unsigned int room = set->room ? 2 * set->room : 4;
		struct net_device **ndevs;

		ndevs = krealloc_array(set->ndevs, room, sizeof(*ndevs),
				       GFP_ATOMIC);
		if (!ndevs)
			return 0;
		set->ndevs = ndevs;
		set->room = room;
	}
	dev_hold(upper);
	set->ndevs[set->n++] = upper;
	return 0;
}

/*
 * Run @fn on @ndev and then on every device stacked on it, at any depth.
 * The walk is a snapshot: each upper is held while @fn runs.
 */
static void for_ndev_and_uppers(struct ib_device *ib_dev, u32 port,
				struct net_device *ndev,
				void (*fn)(struct ib_device *ib_dev, u32 port,
					   struct net_device *ndev))
{
	struct upper_set set = {};
	struct netdev_nested_priv priv = { .data = &set };
	unsigned int i;

	rcu_read_lock();
	netdev_walk_all_upper_dev_rcu(ndev, collect_upper, &priv);
	rcu_read_unlock();

	fn(ib_dev, port, ndev);
	for (i = 0; i < set.n; i++) {
		fn(ib_dev, port, set.ndevs[i]);
		dev_put(set.ndevs[i]);
	}
	kfree(set.ndevs);
}

static void del_netdev_gids(struct ib_device *ib_dev, u32 port,
			    struct net_device *ndev)
{
	ib_cache_gid_del_all_netdev_gids(ib_dev, port, ndev);
}

/* Full rebuild input of one port: defaults, then every address above. */
static void rescan_port_ndev(struct ib_device *ib_dev, u32 port,
			     struct net_device *rdma_ndev)
{
	set_default_gids(ib_dev, port, rdma_ndev,
			 IB_CACHE_GID_DEFAULT_MODE_SET);
	for_ndev_and_uppers(ib_dev, port, rdma_ndev, add_netdev_ips);
}

/**
 * rdma_roce_rescan_port - fill a RoCE port's GID table from its netdev
 * @ib_dev: the device
 * @port: the port
 *
 * Adds the port's default GIDs and a GID for every address of the port's
 * netdev and of the netdevs stacked on it; entries already present are
 * kept.  Does nothing on a port that is not RoCE or has no netdev.
 * Sleeps; must not be called under rtnl or with the table's lock held.
 */
void rdma_roce_rescan_port(struct ib_device *ib_dev, u32 port)
{
	struct net_device *ndev;

	if (!rdma_is_port_valid(ib_dev, port) ||
	    !rdma_protocol_roce(ib_dev, port))
		return;
	ndev = ib_device_get_netdev(ib_dev, port);
	if (!ndev)
		return;
	rescan_port_ndev(ib_dev, port, ndev);
	dev_put(ndev);
}
EXPORT_SYMBOL(rdma_roce_rescan_port);

static bool any_port_filter(struct ib_device *ib_dev, u32 port,
			    struct net_device *rdma_ndev, void *cookie)
{
	return true;
}

static void rescan_port_cb(struct ib_device *ib_dev, u32 port,
			   struct net_device *rdma_ndev, void *cookie)
{
	if (rdma_ndev)
		rescan_port_ndev(ib_dev, port, rdma_ndev);
}

/**
 * rdma_roce_rescan_device - fill every RoCE GID table of a device
 * @ibdev: the device
 *
 * rdma_roce_rescan_port() on each RoCE port of @ibdev, synchronously.
 * Sleeps.
 */
void rdma_roce_rescan_device(struct ib_device *ibdev)
{
	ib_enum_roce_netdev(ibdev, any_port_filter, NULL, rescan_port_cb,
			    NULL);
}
EXPORT_SYMBOL(rdma_roce_rescan_device);

/**
 * roce_del_all_netdev_gids - remove a netdev's GIDs from a RoCE port
 * @ib_dev: the device
 * @port: the port
 * @ndev: the netdev whose entries go, default GIDs included
 *
 * Sleeps.
 */
void roce_del_all_netdev_gids(struct ib_device *ib_dev, u32 port,
			      struct net_device *ndev)
{
	ib_cache_gid_del_all_netdev_gids(ib_dev, port, ndev);
}
EXPORT_SYMBOL(roce_del_all_netdev_gids);

/* ---- notifier work ----------------------------------------------------- */

/*
 * Does the port sit under @cookie: is the port's netdev @cookie itself,
 * or a lower device (at any depth) of it?
 */
static bool port_under_ndev_filter(struct ib_device *ib_dev, u32 port,
				   struct net_device *rdma_ndev, void *cookie)
{
	struct net_device *ndev = cookie;
	bool under = rdma_ndev == ndev;

	if (rdma_ndev && !under) {
		rcu_read_lock();
		under = netdev_has_upper_dev_all_rcu(rdma_ndev, ndev);
		rcu_read_unlock();
	}
	return under;
}

/**
 * struct roce_event_work - one notifier event, applied from roce_gid_wq
 * @work: the work item
 * @event: NETDEV_* code
 * @ndev: the netdev the event is about, held with @tracker
 * @tracker: tracker of that reference
 * @upper: NETDEV_CHANGEUPPER only: the upper device, held with
 *	@upper_tracker
 * @upper_tracker: tracker of that reference
 * @linking: NETDEV_CHANGEUPPER only: linked (true) or unlinked
 * @is_addr: an address event (@gid valid) rather than a netdev event
 * @gid: the address, as a GID
 */
struct roce_event_work {
	struct work_struct	work;
	unsigned long		event;
	struct net_device	*ndev;
	netdevice_tracker	tracker;
	struct net_device	*upper;
	netdevice_tracker	upper_tracker;
	bool			linking;
	bool			is_addr;
	union ib_gid		gid;
};

static void addr_event_cb(struct ib_device *ib_dev, u32 port,
			  struct net_device *rdma_ndev, void *cookie)
{
	struct roce_event_work *w = cookie;

	roce_update_gid(w->event == NETDEV_UP ? ROCE_GID_ADD : ROCE_GID_DEL,
			ib_dev, port, &w->gid, w->ndev);
}

/* UNREGISTER: the netdev's GIDs go, from whichever port had them. */
static void ndev_gone_cb(struct ib_device *ib_dev, u32 port,
			 struct net_device *rdma_ndev, void *cookie)
{
	ib_cache_gid_del_all_netdev_gids(ib_dev, port, cookie);
}

/* REGISTER / UP: own netdev gets its defaults; then the addresses. */
static void ndev_up_cb(struct ib_device *ib_dev, u32 port,
		       struct net_device *rdma_ndev, void *cookie)
{
	/* Only the port's own netdev, not an upper of it, has defaults. */
	if (cookie == rdma_ndev)
		set_default_gids(ib_dev, port, rdma_ndev,
				 IB_CACHE_GID_DEFAULT_MODE_SET);
	add_netdev_ips(ib_dev, port, cookie);
}

/*
 * CHANGEADDR: the MAC changed, so the default GID did too: start over,
 * unless the netdev is on its way out meanwhile.
 */
static void ndev_changeaddr_cb(struct ib_device *ib_dev, u32 port,
			       struct net_device *rdma_ndev, void *cookie)
{
	struct net_device *ndev = cookie;

	ndev_gone_cb(ib_dev, port, rdma_ndev, ndev);
	if (ndev->reg_state == NETREG_REGISTERED)
		ndev_up_cb(ib_dev, port, rdma_ndev, ndev);
}

static void upper_linked_cb(struct ib_device *ib_dev, u32 port,
			    struct net_device *rdma_ndev, void *cookie)
{
	for_ndev_and_uppers(ib_dev, port, cookie, add_netdev_ips);
}

static void upper_unlinked_cb(struct ib_device *ib_dev, u32 port,
			      struct net_device *rdma_ndev, void *cookie)
{
	struct roce_event_work *w = cookie;

	for_ndev_and_uppers(ib_dev, port, w->upper, del_netdev_gids);
	/* What still sits above the lower device keeps its GIDs. */
	for_ndev_and_uppers(ib_dev, port, w->ndev, add_netdev_ips);
}

static void roce_event_work_fn(struct work_struct *work)
{
	struct roce_event_work *w =
		container_of(work, struct roce_event_work, work);

	if (w->is_addr) {
		ib_enum_all_roce_netdevs(port_under_ndev_filter, w->ndev,
					 addr_event_cb, w);
		goto out;
	}

	switch (w->event) {
	case NETDEV_REGISTER:
	case NETDEV_UP:
		ib_enum_all_roce_netdevs(port_under_ndev_filter, w->ndev,
					 ndev_up_cb, w->ndev);
		break;
	case NETDEV_UNREGISTER:
		ib_enum_all_roce_netdevs(any_port_filter, NULL,
					 ndev_gone_cb, w->ndev);
		break;
	case NETDEV_CHANGEADDR:
		ib_enum_all_roce_netdevs(port_under_ndev_filter, w->ndev,
					 ndev_changeaddr_cb, w->ndev);
		break;
	case NETDEV_CHANGEUPPER:
		if (w->linking)
			ib_enum_all_roce_netdevs(port_under_ndev_filter,
						 w->upper, upper_linked_cb,
						 w->upper);
		else
			ib_enum_all_roce_netdevs(port_under_ndev_filter,
						 w->ndev, upper_unlinked_cb,
						 w);
		break;
	}
out:
	netdev_put(w->upper, &w->upper_tracker);
	netdev_put(w->ndev, &w->tracker);
	kfree(w);
}

static struct roce_event_work *roce_event_work_alloc(unsigned long event,
						     struct net_device *ndev)
{
	struct roce_event_work *w = kzalloc(sizeof(*w), GFP_ATOMIC);

	if (!w)
		return NULL;
	INIT_WORK(&w->work, roce_event_work_fn);
	w->event = event;
	netdev_hold(ndev, &w->tracker, GFP_ATOMIC);
	w->ndev = ndev;
	return w;
}

/*
 * The netdev events that change GIDs: a netdev coming or going (going for
 * good or to another namespace), a new MAC, a new upper device.  Any
 * netdev type: RoCE runs over IP, also on netdevs without a MAC (tun),
 * whose ports have no default GID (cache.c needs a MAC for one).
 */
static bool roce_netdev_event_wanted(const struct net_device *ndev,
				     unsigned long event)
{
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UP:
	case NETDEV_CHANGEADDR:
	case NETDEV_CHANGEUPPER:
		return true;
	case NETDEV_UNREGISTER:
		return ndev->reg_state < NETREG_UNREGISTERED;
	default:
		return false;
	}
}

static int roce_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct netdev_notifier_changeupper_info *cu = NULL;
	struct roce_event_work *w;

	if (!roce_netdev_event_wanted(ndev, event))
		return NOTIFY_DONE;
	if (event == NETDEV_CHANGEUPPER)
		cu = container_of(ptr, struct netdev_notifier_changeupper_info,
				  info);

	w = roce_event_work_alloc(event, ndev);
	if (w && cu) {
		netdev_hold(cu->upper_dev, &w->upper_tracker, GFP_ATOMIC);
		w->upper = cu->upper_dev;
		w->linking = cu->linking;
	}
	if (w)
		queue_work(roce_gid_wq, &w->work);
	return NOTIFY_DONE;
}

/* An address came up or went down on @ndev. */
static int roce_addr_event(unsigned long event, struct net_device *ndev,
			   const union ib_gid *gid)
{
	struct roce_event_work *w = NULL;

	if (event == NETDEV_UP || event == NETDEV_DOWN)
		w = roce_event_work_alloc(event, ndev);
	if (w) {
		w->is_addr = true;
		w->gid = *gid;
		queue_work(roce_gid_wq, &w->work);
	}
	return NOTIFY_DONE;
}

static int roce_inetaddr_event(struct notifier_block *nb, unsigned long event,
			       void *ptr)
{
	const struct in_ifaddr *ifa = ptr;
	union ib_gid gid;

	ipv6_addr_set_v4mapped(ifa->ifa_address, (struct in6_addr *)gid.raw);
	return roce_addr_event(event, ifa->ifa_dev->dev, &gid);
}

static int roce_inet6addr_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	const struct inet6_ifaddr *ifa6 = ptr;
	union ib_gid gid;

	memcpy(gid.raw, &ifa6->addr, sizeof(gid.raw));
	return roce_addr_event(event, ifa6->idev->dev, &gid);
}

static struct notifier_block roce_netdev_nb = {
	.notifier_call = roce_netdev_event,
};

static struct notifier_block roce_inetaddr_nb = {
	.notifier_call = roce_inetaddr_event,
};

static struct notifier_block roce_inet6addr_nb = {
	.notifier_call = roce_inet6addr_event,
};

/* roce_gid_mgmt_init - start following netdev and address events. */
int roce_gid_mgmt_init(void)
{
	int ret;

	roce_gid_wq = alloc_ordered_workqueue("ib_roce_gid", 0);
	if (!roce_gid_wq)
		return -ENOMEM;

	ret = register_inetaddr_notifier(&roce_inetaddr_nb);
	if (ret)
		goto err_wq;
	ret = IS_ENABLED(CONFIG_IPV6) ?
	      register_inet6addr_notifier(&roce_inet6addr_nb) : 0;
	if (ret)
		goto err_inet;
	/*
	 * Last: registering replays REGISTER/UP for the netdevs already
	 * present, and no address event may be missed after that.
	 */
	ret = register_netdevice_notifier(&roce_netdev_nb);
	if (!ret)
		return 0;

	if (IS_ENABLED(CONFIG_IPV6))
		unregister_inet6addr_notifier(&roce_inet6addr_nb);
err_inet:
	unregister_inetaddr_notifier(&roce_inetaddr_nb);
err_wq:
	destroy_workqueue(roce_gid_wq);
	return ret;
}

/* roce_gid_mgmt_cleanup - stop following events and finish queued work. */
void roce_gid_mgmt_cleanup(void)
{
	unregister_netdevice_notifier(&roce_netdev_nb);
	if (IS_ENABLED(CONFIG_IPV6))
		unregister_inet6addr_notifier(&roce_inet6addr_nb);
	unregister_inetaddr_notifier(&roce_inetaddr_nb);
	/* Drains the queue: every work drops its netdev references. */
	destroy_workqueue(roce_gid_wq);
}
