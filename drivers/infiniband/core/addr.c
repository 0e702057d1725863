// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * IP address resolution for the RDMA core: from a RoCE source GID entry
 * and a destination GID to the destination MAC, through the IP routing
 * table and the neighbour (ARP/ND) table of the source netdev's
 * namespace.
 *
 * rdma_addr_find_l2_eth_by_grh() is synchronous and may sleep: when the
 * neighbour is not known yet, resolution is kicked off and the caller
 * waits, re-checking whenever the neighbour table reports an entry
 * becoming valid (netevent notifier) and at least every NEIGH_POLL_MS,
 * until a bounded deadline.
 *
 * rdma_resolve_ip() does the same for an IP destination asynchronously
 * (the RDMA CM's address resolution): each request is a delayed work item
 * on the ordered "ib_addr" workqueue that tries again on the same events
 * until its own deadline, then calls back.  A request stays on addr_reqs
 * until its callback has returned; whoever takes it off the list frees it
 * (the work, after the callback, or rdma_addr_cancel(), after waiting the
 * work out), so a cancelled request is never called back once
 * rdma_addr_cancel() has returned.
 */
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/neighbour.h>
#include <net/netevent.h>
#include <net/route.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/* How long a caller waits for a neighbour to resolve, as upstream. */
#define NEIGH_WAIT_MS	1000
/* Re-check at least this often in case a netevent was missed. */
#define NEIGH_POLL_MS	50

/*
 * Waiters for neighbour resolution.  neigh_updates counts the netevents
 * that made a neighbour valid; waiters sleep until it moves.
 */
static DECLARE_WAIT_QUEUE_HEAD(neigh_waitq);
static atomic_t neigh_updates = ATOMIC_INIT(0);

/* rdma_resolve_ip() requests; addr_lock guards the list. */
static LIST_HEAD(addr_reqs);
static DEFINE_SPINLOCK(addr_lock);
static struct workqueue_struct *addr_wq;

/**
 * rdma_addr_size - length of a socket address by its family
 * @addr: the address
 *
 * Return: the size of struct sockaddr_in, sockaddr_in6 or sockaddr_ib for
 * AF_INET, AF_INET6 and AF_IB, and 0 for any other family.
 */
int rdma_addr_size(const struct sockaddr *addr)
{
	static const u8 size_of_family[] = {
		[AF_INET]	= sizeof(struct sockaddr_in),
		[AF_INET6]	= sizeof(struct sockaddr_in6),
		[AF_IB]		= sizeof(struct sockaddr_ib),
	};
	unsigned int family = addr->sa_family;

	return family < ARRAY_SIZE(size_of_family) ?
	       size_of_family[family] : 0;
}
EXPORT_SYMBOL(rdma_addr_size);

/* rdma_addr_size() of @addr when that fits in @room bytes, else 0. */
static int addr_size_within(const void *addr, size_t room)
{
	int len = rdma_addr_size(addr);

	return len <= room ? len : 0;
}

/**
 * rdma_addr_size_in6 - length of an address held in a sockaddr_in6
 * @addr: the address
 *
 * Return: rdma_addr_size(), or 0 when that exceeds a sockaddr_in6.
 */
int rdma_addr_size_in6(struct sockaddr_in6 *addr)
{
	return addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_in6);

/**
 * rdma_addr_size_kss - length of an address held in a sockaddr_storage
 * @addr: the address
 *
 * Return: rdma_addr_size(), or 0 when that exceeds the storage.
 */
int rdma_addr_size_kss(struct __kernel_sockaddr_storage *addr)
{
	return addr_size_within(addr, sizeof(*addr));
}
EXPORT_SYMBOL(rdma_addr_size_kss);

/**
 * rdma_copy_src_l2_addr - record a netdev as the source of an address
 * @dev_addr: addresses to fill
 * @dev: the local netdev
 *
 * Copies the netdev's ARPHRD type, hardware and broadcast addresses and
 * ifindex into the source fields of @dev_addr.
 */
void rdma_copy_src_l2_addr(struct rdma_dev_addr *dev_addr,
			   const struct net_device *dev)
{
	/* In the order of struct rdma_dev_addr. */
	memcpy(dev_addr->src_dev_addr, dev->dev_addr, MAX_ADDR_LEN);
	memcpy(dev_addr->broadcast, dev->broadcast, MAX_ADDR_LEN);
	dev_addr->dev_type = dev->type;
	dev_addr->bound_dev_if = dev->ifindex;
}
EXPORT_SYMBOL(rdma_copy_src_l2_addr);

/* The netdev that owns local address @addr in @net; RCU held. */
static struct net_device *ndev_of_local_ip_rcu(struct net *net,
					       const struct sockaddr *addr)
{
	struct net_device *dev;

	if (addr->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)addr;

		dev = __ip_dev_find(net, sin->sin_addr.s_addr, false);
		return dev ?: ERR_PTR(-EADDRNOTAVAIL);
	}
	if (IS_ENABLED(CONFIG_IPV6) && addr->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)addr;

		for_each_netdev_rcu(net, dev)
			if (ipv6_chk_addr(net, &sin6->sin6_addr, dev, 1))
				return dev;
	}
	return ERR_PTR(-EADDRNOTAVAIL);
}

/*
 * The source netdev of @dev_addr: the one it is bound to, or else the one
 * owning local address @addr.  RCU held.
 */
static struct net_device *src_ndev_rcu(const struct rdma_dev_addr *dev_addr,
				       const struct sockaddr *addr)
{
	struct net_device *dev;

	if (!dev_addr->bound_dev_if)
		return ndev_of_local_ip_rcu(dev_addr->net, addr);
	dev = dev_get_by_index_rcu(dev_addr->net, dev_addr->bound_dev_if);
	return dev ?: ERR_PTR(-ENODEV);
}

/**
 * rdma_translate_ip - find the local netdev of an IP address
 * @addr: a local AF_INET or AF_INET6 address
 * @dev_addr: @dev_addr->net must be set; if @dev_addr->bound_dev_if is
 *	set that netdev is taken instead of searching for @addr
 *
 * Fills the source fields of @dev_addr with rdma_copy_src_l2_addr().
 *
 * Return: 0, -ENODEV when the bound netdev does not exist, or
 * -EADDRNOTAVAIL when no netdev of the namespace owns @addr.
 */
int rdma_translate_ip(const struct sockaddr *addr,
		      struct rdma_dev_addr *dev_addr)
{
	struct net_device *dev;

	rcu_read_lock();
	dev = src_ndev_rcu(dev_addr, addr);
	if (!IS_ERR(dev))
		rdma_copy_src_l2_addr(dev_addr, dev);
	rcu_read_unlock();
	return PTR_ERR_OR_ZERO(dev);
}
EXPORT_SYMBOL(rdma_translate_ip);

/* Where and how to resolve: the source entry's namespace and netdev. */
struct l2_query {
	struct net		*net;
	int			oif;
	union {
		struct sockaddr		sa;
		struct sockaddr_in	in4;
		struct sockaddr_in6	in6;
	} src, dst;
};

/*
 * The route from the query's source to its destination, with a reference
 * the caller drops, and its hop limit (IPv6) or TTL (IPv4) in *@hoplimit;
 * or an ERR_PTR().  A wildcard source becomes the one the route picks;
 * *@gateway says whether the next hop is a router.
 */
static struct dst_entry *l2_route(struct l2_query *q, int *hoplimit,
				  bool *gateway)
{
	struct dst_entry *dst = ERR_PTR(-EADDRNOTAVAIL);

	if (q->dst.sa.sa_family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = q->dst.in4.sin_addr.s_addr,
			.saddr = q->src.in4.sin_addr.s_addr,
			.flowi4_oif = q->oif,
		};
		struct rtable *rt = ip_route_output_key(q->net, &fl4);

		if (IS_ERR(rt))
			return ERR_CAST(rt);
		dst = &rt->dst;
		*hoplimit = ip4_dst_hoplimit(dst);
		*gateway = rt->rt_uses_gateway;
		q->src.in4.sin_addr.s_addr = fl4.saddr;
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		struct flowi6 fl6 = {
			.daddr = q->dst.in6.sin6_addr,
			.saddr = q->src.in6.sin6_addr,
			.flowi6_oif = q->oif,
		};

		dst = ipv6_stub->ipv6_dst_lookup_flow(q->net, NULL, &fl6, NULL);
		if (IS_ERR(dst))
			return dst;
		*hoplimit = ip6_dst_hoplimit(dst);
		*gateway = container_of(dst, struct rt6_info, dst)->rt6i_flags &
			   RTF_GATEWAY;
		q->src.in6.sin6_addr = fl6.saddr;
	}
	return dst;
}

/*
 * MAC of the next hop of @dst: the local netdev's own MAC when the route
 * loops back (destination is one of our addresses), else the neighbour's.
 * -ENODATA when the neighbour is not (yet) valid; resolution is then
 * kicked off.
 */
static int l2_neigh(struct l2_query *q, struct dst_entry *dst, u8 *dmac)
{
	const void *daddr;
	struct neighbour *n;
	int ret = 0;

	if (dst->dev->flags & IFF_LOOPBACK) {
		struct net_device *local;

		rcu_read_lock();
		local = ndev_of_local_ip_rcu(q->net, &q->dst.sa);
		if (!IS_ERR(local))
			ether_addr_copy(dmac, local->dev_addr);
		rcu_read_unlock();
		return IS_ERR(local) ? -ENODEV : 0;
	}

	if (q->dst.sa.sa_family == AF_INET)
		daddr = &q->dst.in4.sin_addr.s_addr;
	else
		daddr = &q->dst.in6.sin6_addr;

	n = dst_neigh_lookup(dst, daddr);
	if (!n)
		return -ENODATA;
	read_lock_bh(&n->lock);
	if (n->nud_state & NUD_VALID) {
		u8 ha[MAX_ADDR_LEN];

		neigh_ha_snapshot(ha, n, dst->dev);
		ether_addr_copy(dmac, ha);
	} else {
		ret = -ENODATA;
	}
	read_unlock_bh(&n->lock);
	if (ret)
		neigh_event_send(n, NULL);
	neigh_release(n);
	return ret;
}

/* One attempt at route and neighbour; -ENODATA: try again later. */
static int l2_resolve_once(struct l2_query *q, u8 *dmac, int *hoplimit)
{
	bool gateway;
	int hops, ret;
	struct dst_entry *dst = l2_route(q, &hops, &gateway);

	if (IS_ERR(dst))
		return PTR_ERR(dst);
	ret = l2_neigh(q, dst, dmac);
	dst_release(dst);
	if (!ret)
		*hoplimit = hops;
	return ret;
}

/**
 * rdma_addr_find_l2_eth_by_grh - resolve the destination MAC of a GID
 * @sgid: the source GID (an address of @sgid_attr's netdev)
 * @dgid: the destination GID, unicast
 * @dmac: receives the destination MAC (ETH_ALEN bytes)
 * @sgid_attr: the source GID entry; its netdev gives the namespace and
 *	the interface the route is bound to
 * @hoplimit: receives the route's hop limit (IPv6) or TTL (IPv4)
 *
 * Looks the route up from @sgid to @dgid, then the next hop in the
 * neighbour table.  A destination that is one of the namespace's own
 * addresses resolves to the MAC of the netdev owning it.  When the
 * neighbour is not valid yet, resolution (ARP/ND) is started and the call
 * waits for it for about a second.  Sleeps.
 *
 * Return: 0 with @dmac and @hoplimit set; -EINVAL when @sgid_attr is NULL
 * or the two GIDs are of different IP families; the netdev lookup error
 * (-ENODEV) when the entry has no netdev (any more); the route lookup
 * error (for example -ENETUNREACH or -EHOSTUNREACH); -ETIMEDOUT when the
 * neighbour did not resolve in time.
 */
int rdma_addr_find_l2_eth_by_grh(const union ib_gid *sgid,
				 const union ib_gid *dgid,
				 u8 *dmac, const struct ib_gid_attr *sgid_attr,
				 int *hoplimit)
{
	unsigned long deadline;
	struct net_device *ndev;
	struct l2_query q = {};
	int ret;

	might_sleep();

	if (!sgid_attr)
		return -EINVAL;
	rdma_gid2ip((struct sockaddr *)&q.src, sgid);
	rdma_gid2ip((struct sockaddr *)&q.dst, dgid);
	if (q.src.sa.sa_family != q.dst.sa.sa_family)
		return -EINVAL;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid_attr);
	if (IS_ERR(ndev)) {
		rcu_read_unlock();
		return PTR_ERR(ndev);
	}
	q.net = maybe_get_net(dev_net(ndev));
	q.oif = ndev->ifindex;
	rcu_read_unlock();
	if (!q.net)
		return -ENODEV;

	deadline = jiffies + msecs_to_jiffies(NEIGH_WAIT_MS);
	for (;;) {
		int seen = atomic_read(&neigh_updates);
		long left;

		ret = l2_resolve_once(&q, dmac, hoplimit);
		if (ret != -ENODATA)
			break;
		left = (long)(deadline - jiffies);
		if (left <= 0) {
			ret = -ETIMEDOUT;
			break;
		}
		wait_event_timeout(neigh_waitq,
				   atomic_read(&neigh_updates) != seen,
				   min_t(long, left,
					 msecs_to_jiffies(NEIGH_POLL_MS)));
	}
	put_net(q.net);
	return ret;
}
EXPORT_SYMBOL(rdma_addr_find_l2_eth_by_grh);

/**
 * struct addr_req - one rdma_resolve_ip() request
 * @node: on addr_reqs until its callback has returned (addr_lock)
 * @work: its attempts
 * @src: the source asked for, then the one the route picked
 * @dst: the destination
 * @addr: the caller's result, also the key of rdma_addr_cancel()
 * @callback: how the caller is told
 * @context: the caller's own
 * @deadline: when waiting for the neighbour ends, in jiffies
 * @by_gid_attr: resolve from @addr->sgid_attr's netdev
 */
struct addr_req {
	struct list_head	node;
	struct delayed_work	work;
	union {
		struct sockaddr		sa;
		struct sockaddr_in	in4;
		struct sockaddr_in6	in6;
	} src, dst;
	struct rdma_dev_addr	*addr;
	void (*callback)(int status, struct sockaddr *src_addr,
			 struct rdma_dev_addr *addr, void *context);
	void			*context;
	unsigned long		deadline;
	bool			by_gid_attr;
};

/*
 * The namespace and interface @req resolves in: @addr's, or with
 * @by_gid_attr those of the GID entry's netdev.  Takes a namespace
 * reference.
 */
static int addr_req_scope(struct addr_req *req, struct l2_query *q)
{
	struct rdma_dev_addr *da = req->addr;
	struct net_device *ndev;

	if (!req->by_gid_attr) {
		q->net = maybe_get_net(da->net);
		q->oif = da->bound_dev_if;
		if (!q->oif && req->dst.sa.sa_family == AF_INET6 &&
		    ipv6_addr_type(&req->dst.in6.sin6_addr) &
		    IPV6_ADDR_LINKLOCAL)
			q->oif = req->dst.in6.sin6_scope_id;
		return q->net ? 0 : -ENODEV;
	}
	if (!da->sgid_attr)
		return -EINVAL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(da->sgid_attr);
	if (!IS_ERR(ndev)) {
		q->net = maybe_get_net(dev_net(ndev));
		q->oif = ndev->ifindex;
	}
	rcu_read_unlock();
	if (IS_ERR(ndev))
		return PTR_ERR(ndev);
	return q->net ? 0 : -ENODEV;
}

/*
 * One attempt at @req: route, source netdev, next hop.  On success the
 * source and destination fields of @req->addr are filled and @req->src
 * holds the source address the route picked.  -ENODATA: the neighbour is
 * not known yet.
 */
static int addr_req_try(struct addr_req *req)
{
	struct rdma_dev_addr *da = req->addr;
	struct net_device *ndev;
	struct dst_entry *dst;
	struct l2_query q = {};
	u8 dmac[ETH_ALEN];
	bool gateway;
	int hops, ret;

	ret = addr_req_scope(req, &q);
	if (ret)
		return ret;
	BUILD_BUG_ON(sizeof(q.src) != sizeof(req->src));
	memcpy(&q.src, req->src.sa.sa_family ? (void *)&req->src :
					       (void *)&req->dst, sizeof(q.src));
	if (!req->src.sa.sa_family) {
		/* no source given: the wildcard of the family */
		if (q.src.sa.sa_family == AF_INET)
			q.src.in4.sin_addr.s_addr = 0;
		else
			q.src.in6.sin6_addr = in6addr_any;
	}
	memcpy(&q.dst, &req->dst, sizeof(q.dst));
	dst = l2_route(&q, &hops, &gateway);
	if (IS_ERR(dst)) {
		ret = PTR_ERR(dst);
		goto out;
	}
	ret = l2_neigh(&q, dst, dmac);
	if (ret)
		goto out_dst;

	/* A local destination: the source is the netdev with the address. */
	rcu_read_lock();
	ndev = dst->dev;
	if (ndev->flags & IFF_LOOPBACK)
		ndev = ndev_of_local_ip_rcu(q.net, &q.src.sa);
	if (!IS_ERR(ndev))
		rdma_copy_src_l2_addr(da, ndev);
	rcu_read_unlock();
	if (IS_ERR(ndev)) {
		ret = PTR_ERR(ndev);
		goto out_dst;
	}
	memcpy(da->dst_dev_addr, dmac, ETH_ALEN);
	da->hoplimit = hops;
	if (!gateway)
		da->network = RDMA_NETWORK_IB;
	else if (q.dst.sa.sa_family == AF_INET)
		da->network = RDMA_NETWORK_IPV4;
	else
		da->network = RDMA_NETWORK_IPV6;
	if (q.src.sa.sa_family == AF_INET) {
		req->src.in4.sin_family = AF_INET;
		req->src.in4.sin_addr = q.src.in4.sin_addr;
	} else {
		req->src.in6.sin6_family = AF_INET6;
		req->src.in6.sin6_addr = q.src.in6.sin6_addr;
	}
out_dst:
	dst_release(dst);
out:
	put_net(q.net);
	return ret;
}

static void addr_req_work(struct work_struct *work)
{
	struct addr_req *req = container_of(work, struct addr_req, work.work);
	bool done;
	int ret;

	ret = addr_req_try(req);
	if (ret == -ENODATA) {
		if (time_before(jiffies, req->deadline)) {
			spin_lock_bh(&addr_lock);
			if (!list_empty(&req->node))
				mod_delayed_work(addr_wq, &req->work,
						 msecs_to_jiffies(NEIGH_POLL_MS));
			spin_unlock_bh(&addr_lock);
			return;
		}
		ret = -ETIMEDOUT;
	}
	if (ret)
		pr_debug("ib_core: resolving %pISc failed: %d\n", &req->dst.sa,
			 ret);
	/* Cancelled already: rdma_addr_cancel() frees it, no callback. */
	spin_lock_bh(&addr_lock);
	done = list_empty(&req->node);
	spin_unlock_bh(&addr_lock);
	if (done)
		return;
	req->callback(ret, &req->src.sa, req->addr, req->context);

	spin_lock_bh(&addr_lock);
	done = !list_empty(&req->node);
	if (done) {
		list_del_init(&req->node);
		/* a netevent may have queued it again meanwhile */
		cancel_delayed_work(&req->work);
	}
	spin_unlock_bh(&addr_lock);
	if (done)
		kfree(req);
}

/**
 * rdma_resolve_ip - resolve an IP destination to RDMA hardware addresses
 * @src_addr: the source to use, or NULL (or a wildcard) to let the route
 *	pick it; of the destination's family
 * @dst_addr: the AF_INET or AF_INET6 destination
 * @addr: the result; @addr->net (and @addr->bound_dev_if, if the route
 *	must leave through that netdev) set by the caller, who keeps it
 *	until the callback; also the handle of rdma_addr_cancel()
 * @timeout_ms: how long the next hop's neighbour entry is waited for
 * @callback: called once from process context with 0 or the error, the
 *	source address used, @addr and @context, unless cancelled first
 * @resolve_by_gid_attr: resolve from the netdev of @addr->sgid_attr
 *	instead of @addr->net and @addr->bound_dev_if
 * @context: for @callback
 *
 * On success @addr holds the source netdev's addresses (rdma_copy_src_l2_addr()),
 * the next hop's MAC in dst_dev_addr (the netdev's own for a local
 * destination), the route's hop limit and, in network, RDMA_NETWORK_IPV4
 * or _IPV6 when the route goes through a gateway (RDMA_NETWORK_IB when the
 * destination is on link).  Errors given to @callback: the route lookup's
 * (-ENETUNREACH, ...), -EADDRNOTAVAIL, -ENODEV, -ETIMEDOUT.
 *
 * Return: 0 when the request is queued, -EINVAL for bad addresses,
 * -ENOMEM.
 */
int rdma_resolve_ip(struct sockaddr *src_addr, const struct sockaddr *dst_addr,
		    struct rdma_dev_addr *addr, unsigned long timeout_ms,
		    void (*callback)(int status, struct sockaddr *src_addr,
				     struct rdma_dev_addr *addr, void *context),
		    bool resolve_by_gid_attr, void *context)
{
	sa_family_t fam = dst_addr->sa_family;
	struct addr_req *req;

	if ((fam != AF_INET && (!IS_ENABLED(CONFIG_IPV6) || fam != AF_INET6)) ||
	    (src_addr && src_addr->sa_family &&
	     src_addr->sa_family != fam) || !callback) {
		pr_debug("ib_core: %s: bad address families %u/%u\n", __func__,
			 src_addr ? src_addr->sa_family : 0, fam);
		return -EINVAL;
	}
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	if (src_addr && src_addr->sa_family)
		memcpy(&req->src, src_addr, rdma_addr_size(src_addr));
	memcpy(&req->dst, dst_addr, rdma_addr_size(dst_addr));
	req->addr = addr;
	req->callback = callback;
	req->context = context;
	req->by_gid_attr = resolve_by_gid_attr;
	req->deadline = jiffies + msecs_to_jiffies(timeout_ms);
	INIT_DELAYED_WORK(&req->work, addr_req_work);

	spin_lock_bh(&addr_lock);
	list_add_tail(&req->node, &addr_reqs);
	mod_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&addr_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_resolve_ip);

/* Take the request of @addr off addr_reqs; NULL when there is none. */
static struct addr_req *addr_req_unlist(struct rdma_dev_addr *addr)
{
	struct addr_req *req;

	spin_lock_bh(&addr_lock);
	list_for_each_entry(req, &addr_reqs, node)
		if (req->addr == addr)
			goto found;
	req = NULL;
found:
	if (req)
		list_del_init(&req->node);
	spin_unlock_bh(&addr_lock);
	return req;
}

/**
 * rdma_addr_cancel - give up a rdma_resolve_ip() request
 * @addr: the @addr of the request
 *
 * Once this returns the request's callback is not running and will not
 * be called.  Nothing happens when the request has already been called
 * back.
 *
 * Context: process context; sleeps.  Not from the request's callback.
 */
void rdma_addr_cancel(struct rdma_dev_addr *addr)
{
	struct addr_req *req = addr_req_unlist(addr);

	/* A running work item finishes its callback before this returns. */
	if (req && !cancel_delayed_work_sync(&req->work))
		pr_debug("ib_core: cancelled a resolution of %pISc in progress\n",
			 &req->dst.sa);
	kfree(req);
}
EXPORT_SYMBOL(rdma_addr_cancel);

/* A neighbour became valid: every waiting request tries again now. */
static void addr_reqs_kick(void)
{
	struct addr_req *req;

	spin_lock_bh(&addr_lock);
	list_for_each_entry(req, &addr_reqs, node)
		mod_delayed_work(addr_wq, &req->work, 0);
	spin_unlock_bh(&addr_lock);
}

static int addr_netevent(struct notifier_block *nb, unsigned long event,
			 void *ctx)
{
	struct neighbour *n = ctx;

	if (event == NETEVENT_NEIGH_UPDATE && (n->nud_state & NUD_VALID)) {
		atomic_inc(&neigh_updates);
		wake_up_all(&neigh_waitq);
		addr_reqs_kick();
	}
	return NOTIFY_DONE;
}

static struct notifier_block addr_netevent_nb = {
	.notifier_call = addr_netevent,
};

/*
 * addr_init - the resolution workqueue and the watch on neighbour
 * updates, at ib_core load.
 */
int addr_init(void)
{
	int ret;

	addr_wq = alloc_ordered_workqueue("ib_addr", WQ_MEM_RECLAIM);
	if (!addr_wq)
		return -ENOMEM;
	ret = register_netevent_notifier(&addr_netevent_nb);
	if (ret)
		destroy_workqueue(addr_wq);
	return ret;
}

/*
 * addr_cleanup - at ib_core unload, when no module that could have a
 * request pending is left.
 */
void addr_cleanup(void)
{
	unregister_netevent_notifier(&addr_netevent_nb);
	WARN_ON(!list_empty(&addr_reqs));
	destroy_workqueue(addr_wq);
}
