// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * IP address resolution for the RDMA core: from a RoCE source GID entry
 * and a destination GID to the destination MAC, through the IP routing
 * table and the neighbour (ARP/ND) table of the source netdev's
 * namespace.
 *
 * Resolution is synchronous and may sleep: when the neighbour is not
 * known yet, resolution is kicked off and the caller waits, re-checking
 * whenever the neighbour table reports an entry becoming valid (netevent
 * notifier) and at least every NEIGH_POLL_MS, until a bounded deadline.
 */
#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/jiffies.h>
#include <linux/wait.h>
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
 * or an ERR_PTR().
 */
static struct dst_entry *l2_route(const struct l2_query *q, int *hoplimit)
{
	struct dst_entry *dst = ERR_PTR(-EADDRNOTAVAIL);

	if (q->dst.sa.sa_family == AF_INET) {
		struct flowi4 fl4 = {
			.daddr = q->dst.in4.sin_addr.s_addr,
			.saddr = q->src.in4.sin_addr.s_addr,
			.flowi4_oif = q->oif,
		};
		struct rtable *rt = ip_route_output_key(q->net, &fl4);

		dst = IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
		if (!IS_ERR(dst))
			*hoplimit = ip4_dst_hoplimit(dst);
	} else if (IS_ENABLED(CONFIG_IPV6)) {
		struct flowi6 fl6 = {
			.daddr = q->dst.in6.sin6_addr,
			.saddr = q->src.in6.sin6_addr,
			.flowi6_oif = q->oif,
		};

		dst = ipv6_stub->ipv6_dst_lookup_flow(q->net, NULL, &fl6, NULL);
		if (!IS_ERR(dst))
			*hoplimit = ip6_dst_hoplimit(dst);
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
	int hops, ret;
	struct dst_entry *dst = l2_route(q, &hops);

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

static int addr_netevent(struct notifier_block *nb, unsigned long event,
			 void *ctx)
{
	struct neighbour *n = ctx;

	if (event == NETEVENT_NEIGH_UPDATE && (n->nud_state & NUD_VALID)) {
		atomic_inc(&neigh_updates);
		wake_up_all(&neigh_waitq);
	}
	return NOTIFY_DONE;
}

static struct notifier_block addr_netevent_nb = {
	.notifier_call = addr_netevent,
};

/* addr_init - start watching neighbour updates, at ib_core load. */
int addr_init(void)
{
	return register_netevent_notifier(&addr_netevent_nb);
}

/* addr_cleanup - stop watching neighbour updates, at ib_core unload. */
void addr_cleanup(void)
{
	unregister_netevent_notifier(&addr_netevent_nb);
}
