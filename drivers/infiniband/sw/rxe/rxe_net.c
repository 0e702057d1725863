// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-RoCE and the network stack: the UDP port 4791 sockets of each
 * network namespace, netdev events, and the transmit of one packet.
 *
 * Sockets.  Each namespace with at least one rxe device has an IPv4 and
 * (where IPv6 is available) an IPv6 UDP tunnel socket bound to port 4791.
 * struct rxe_ns counts the devices using them under rxe_ns_mutex; the
 * first rxe_net_get() opens them, the last rxe_net_put() closes them.  The
 * namespace's exit closes whatever is left.  rxe_ns_mutex nests inside
 * RTNL (the netdev notifier drops a device's use) and never the other way.
 *
 * Loopback.  A packet addressed to this host (an rxe device talking to
 * itself or to another rxe device of the same namespace) is routed by IP
 * through the loopback device like any other local traffic, and the
 * receive side hands it to the device owning the destination address.
 */
#include <linux/if_arp.h>
#include <linux/inetdevice.h>
#include <linux/module.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "rxe.h"

/**
 * struct rxe_ns - the RoCE v2 sockets of one network namespace
 * @sk4: IPv4 socket on port 4791, or NULL
 * @sk6: IPv6 socket (v6-only) on port 4791, or NULL
 * @users: rxe devices of the namespace; under rxe_ns_mutex
 */
struct rxe_ns {
	struct socket	*sk4;
	struct socket	*sk6;
	unsigned int	users;
};

static unsigned int rxe_ns_id;
static DEFINE_MUTEX(rxe_ns_mutex);

/*
 * Loopback: a packet to one of this host's own addresses comes back in
 * through the loopback device.  It belongs to the rxe device of the
 * netdev that holds its destination address.  Called under RCU (the UDP
 * receive path); the netdev returned is only good inside it.
 */
static struct net_device *rxe_local_ndev(struct sk_buff *skb)
{
	struct net *net = dev_net(skb->dev);

	if (skb->protocol == htons(ETH_P_IP))
		return __ip_dev_find(net, ip_hdr(skb)->daddr, false);
	if (skb->protocol == htons(ETH_P_IPV6) && ipv6_stub->ipv6_dev_find)
		return ipv6_stub->ipv6_dev_find(net, &ipv6_hdr(skb)->daddr,
						NULL);
	return NULL;
}

static int rxe_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct ib_device *ibdev;
	struct net_device *ndev = skb->dev;

	if (ndev->flags & IFF_LOOPBACK)
		ndev = rxe_local_ndev(skb);
	rxe_cb(skb)->vlan_id = RXE_NO_VLAN;
	if (ndev && is_vlan_dev(ndev)) {
		/* a UD receive completion reports it (IB_WC_WITH_VLAN) */
		rxe_cb(skb)->vlan_id = vlan_dev_vlan_id(ndev);
		ndev = vlan_dev_real_dev(ndev);
	}
	ibdev = ndev ? ib_device_get_by_netdev(ndev, RDMA_DRIVER_RXE) : NULL;
	if (!ibdev) {
		kfree_skb(skb);
		return 0;
	}
	rxe_rcv(to_rdev(ibdev), skb);
	ib_device_put(ibdev);
	return 0;
}

static struct socket *rxe_sock_open(struct net *net, bool ipv6)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.encap_type = 1,
		.encap_rcv = rxe_udp_encap_recv,
	};
	struct udp_port_cfg pcfg = {
		.local_udp_port = htons(RXE_ROCE_V2_PORT),
	};
	struct socket *sock;
	int ret;

	if (ipv6) {
		pcfg.family = AF_INET6;
		pcfg.ipv6_v6only = 1;
	} else {
		pcfg.family = AF_INET;
	}
	ret = udp_sock_create(net, &pcfg, &sock);
	if (ret)
		return ERR_PTR(ret);
	setup_udp_tunnel_sock(net, sock, &tcfg);
	return sock;
}

static void rxe_ns_close(struct rxe_ns *ns)
{
	if (ns->sk6)
		udp_tunnel_sock_release(ns->sk6);
	if (ns->sk4)
		udp_tunnel_sock_release(ns->sk4);
	ns->sk4 = NULL;
	ns->sk6 = NULL;
}

/**
 * rxe_net_get() - a device of @net needs the RoCE v2 sockets
 * @net: the namespace of the device's netdev
 *
 * Opens the namespace's sockets on first use.  An IPv6 socket that cannot
 * be opened (IPv6 disabled) is not an error.
 *
 * Context: process context, not under RTNL; sleeps.
 * Return: 0 or the error of opening the IPv4 socket.
 */
int rxe_net_get(struct net *net)
{
	struct rxe_ns *ns = net_generic(net, rxe_ns_id);
	struct socket *sock;
	int ret = 0;

	mutex_lock(&rxe_ns_mutex);
	if (ns->users++)
		goto out;
	sock = rxe_sock_open(net, false);
	if (IS_ERR(sock)) {
		ret = PTR_ERR(sock);
		ns->users--;
		goto out;
	}
	ns->sk4 = sock;
	if (ipv6_mod_enabled()) {
		sock = rxe_sock_open(net, true);
		if (!IS_ERR(sock))
			ns->sk6 = sock;
		else
			pr_info("rdma_rxe: no IPv6 RoCE socket: %ld\n",
				PTR_ERR(sock));
	}
out:
	mutex_unlock(&rxe_ns_mutex);
	return ret;
}

/**
 * rxe_net_put() - a device of @net no longer needs the sockets
 * @net: as given to rxe_net_get()
 *
 * Closes the sockets with the last user.
 *
 * Context: process context; sleeps (may be under RTNL).
 */
void rxe_net_put(struct net *net)
{
	struct rxe_ns *ns = net_generic(net, rxe_ns_id);

	mutex_lock(&rxe_ns_mutex);
	if (!WARN_ON(!ns->users) && !--ns->users)
		rxe_ns_close(ns);
	mutex_unlock(&rxe_ns_mutex);
}

static struct socket *rxe_ns_sk6(struct net *net)
{
	struct rxe_ns *ns = net_generic(net, rxe_ns_id);

	return READ_ONCE(ns->sk6);
}

static void __net_exit rxe_ns_exit(struct net *net)
{
	struct rxe_ns *ns = net_generic(net, rxe_ns_id);

	mutex_lock(&rxe_ns_mutex);
	rxe_ns_close(ns);
	ns->users = 0;
	mutex_unlock(&rxe_ns_mutex);
}

static struct pernet_operations rxe_ns_ops = {
	.exit = rxe_ns_exit,
	.id = &rxe_ns_id,
	.size = sizeof(struct rxe_ns),
};

/* ---- the netdev under a device -------------------------------------------- */

/**
 * rxe_ndev_get() - the device's netdev, if it still has one
 * @rxe: the device
 *
 * Return: the netdev with a reference (dev_put()), or NULL once the
 * netdev is unregistering or the device is going away.
 */
struct net_device *rxe_ndev_get(struct rxe_dev *rxe)
{
	if (READ_ONCE(rxe->ndev_gone))
		return NULL;
	return ib_device_get_netdev(&rxe->ib_dev, 1);
}

/**
 * rxe_port_update() - port attributes from the netdev's state
 * @rxe: the device
 * @ndev: its netdev
 * @send_event: dispatch IB_EVENT_PORT_ACTIVE/ERR when the state changes
 *
 * Context: process context (RTNL held for notifier calls).
 */
void rxe_port_update(struct rxe_dev *rxe, struct net_device *ndev,
		     bool send_event)
{
	struct ib_port_attr *pa = &rxe->port_attr;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);
	enum ib_port_state old;
	struct ib_event ev = {};
	unsigned long flags;
	enum ib_mtu mtu;

	mtu = iboe_get_mtu(ndev->mtu);
	if (!mtu)
		mtu = IB_MTU_256;
	spin_lock_irqsave(&rxe->lock, flags);
	old = pa->state;
	pa->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	pa->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
			      IB_PORT_PHYS_STATE_DISABLED;
	pa->active_mtu = min(pa->max_mtu, mtu);
	spin_unlock_irqrestore(&rxe->lock, flags);

	if (old == IB_PORT_ACTIVE && !up)
		rxe_count(rxe, RXE_CNT_LINK_DOWNED);
	if (!send_event || old == pa->state)
		return;
	ev.device = &rxe->ib_dev;
	ev.element.port_num = 1;
	ev.event = up ? IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

/*
 * Every rxe device with the netdev it was made on, for the notifier: the
 * core forgets a port's netdev on NETDEV_UNREGISTER by itself, possibly
 * before this notifier runs, so its lookup cannot be used here.
 */
static LIST_HEAD(rxe_dev_list);
static DEFINE_MUTEX(rxe_dev_mutex);

struct rxe_dev_entry {
	struct list_head	link;
	struct rxe_dev		*rxe;
	struct net_device	*ndev;		/* compared only, not held */
	bool			net_held;
};

/**
 * rxe_dev_track() - remember which netdev a new device sits on
 * @rxe: the device, registered or about to be
 * @ndev: its netdev
 *
 * Also takes the device's use of its namespace's sockets.  From here on
 * a NETDEV_UNREGISTER of @ndev unregisters the device, or, while it is
 * still registering, makes its registration fail; a netdev already past
 * that point is refused.
 *
 * Return: 0, -ENODEV if @ndev is unregistering, -EEXIST if @ndev already
 * has an rxe device, -ENOMEM or the socket error.
 */
int rxe_dev_track(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct rxe_dev_entry *e, *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->rxe = rxe;
	n->ndev = ndev;
	mutex_lock(&rxe_dev_mutex);
	/*
	 * The state changes before NETDEV_UNREGISTER is sent, and the
	 * notifier takes rxe_dev_mutex: either it finds this entry, or we
	 * see the netdev going.
	 */
	ret = READ_ONCE(ndev->reg_state) == NETREG_REGISTERED ? 0 : -ENODEV;
	list_for_each_entry(e, &rxe_dev_list, link) {
		if (!ret && e->ndev == ndev)
			ret = -EEXIST;
	}
	if (!ret)
		ret = rxe_net_get(rxe->net);
	if (!ret) {
		n->net_held = true;
		list_add(&n->link, &rxe_dev_list);
	}
	mutex_unlock(&rxe_dev_mutex);
	if (ret) {
		pr_debug("rdma_rxe: %s: not tracked: %d\n", ndev->name, ret);
		kfree(n);
	}
	return ret;
}

/**
 * rxe_dev_untrack() - forget a device (its dealloc_driver, or a failed add)
 * @rxe: the device
 */
void rxe_dev_untrack(struct rxe_dev *rxe)
{
	struct rxe_dev_entry *e, *found = NULL;

	mutex_lock(&rxe_dev_mutex);
	list_for_each_entry(e, &rxe_dev_list, link) {
		if (e->rxe == rxe) {
			found = e;
			list_del(&e->link);
			break;
		}
	}
	if (found && found->net_held)
		rxe_net_put(rxe->net);
	mutex_unlock(&rxe_dev_mutex);
	kfree(found);
}

static void rxe_ndev_unregister(struct rxe_dev_entry *e)
{
	struct rxe_dev *rxe = e->rxe;

	WRITE_ONCE(rxe->ndev_gone, true);
	/* The namespace may die right after its netdevs: let go of it now. */
	if (e->net_held) {
		e->net_held = false;
		rxe_net_put(rxe->net);
	}
	/* A device still registering fails its registration instead. */
	ib_unregister_device_queued(&rxe->ib_dev);
}

static int rxe_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct rxe_dev_entry *e;

	mutex_lock(&rxe_dev_mutex);
	list_for_each_entry(e, &rxe_dev_list, link) {
		if (e->ndev != ndev)
			continue;
		switch (event) {
		case NETDEV_UNREGISTER:
			rxe_ndev_unregister(e);
			break;
		case NETDEV_UP:
		case NETDEV_DOWN:
		case NETDEV_CHANGE:
		case NETDEV_CHANGEMTU:
			if (!e->rxe->ndev_gone)
				rxe_port_update(e->rxe, ndev, true);
			break;
		default:
			break;
		}
	}
	mutex_unlock(&rxe_dev_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block rxe_netdev_nb = {
	.notifier_call = rxe_netdev_event,
};

/* ---- transmit ------------------------------------------------------------- */

static unsigned int rxe_l3_bytes(const struct rxe_dest *av)
{
	return av->net_type == RDMA_NETWORK_IPV4 ? RXE_IPV4_BYTES :
						   RXE_IPV6_BYTES;
}

/**
 * rxe_pkt_alloc() - an skb for one packet, headroom for every lower header
 * @rxe: the device
 * @av: where it goes (picks the IP version)
 * @hdr_len: bytes of the BTH and the extension headers
 * @paylen: payload bytes
 * @bth: set to the first byte of the BTH
 *
 * The skb's data covers BTH, extension headers, payload, pad and ICRC;
 * the caller fills all but the ICRC.  The pad bytes are zeroed.
 *
 * Context: any (GFP_ATOMIC).
 * Return: the skb, or NULL (no netdev, no memory).
 */
struct sk_buff *rxe_pkt_alloc(struct rxe_dev *rxe, const struct rxe_dest *av,
			      u32 hdr_len, u32 paylen, u8 **bth)
{
	struct net_device *ndev = rxe_ndev_get(rxe);
	u32 pad = (-paylen) & 3;
	unsigned int head;
	struct sk_buff *skb;

	if (!ndev)
		return NULL;
	head = LL_RESERVED_SPACE(ndev) + rxe_l3_bytes(av) + RXE_UDP_BYTES;
	skb = alloc_skb(head + hdr_len + paylen + pad + RXE_ICRC_BYTES +
			ndev->needed_tailroom, GFP_ATOMIC);
	if (skb) {
		skb_reserve(skb, head);
		skb->dev = ndev;
		*bth = skb_put(skb, hdr_len + paylen + pad + RXE_ICRC_BYTES);
		memset(*bth + hdr_len + paylen, 0, pad);
	}
	dev_put(ndev);
	return skb;
}

static int rxe_xmit4(struct rxe_dev *rxe, const struct rxe_dest *av,
		     struct sk_buff *skb, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct flowi4 fl = {
		.flowi4_oif = av->ifindex ?: ndev->ifindex,
		.flowi4_proto = IPPROTO_UDP,
		.daddr = av->daddr.v4,
		.saddr = av->saddr.v4,
	};
	struct rtable *rt;
	struct iphdr *iph;
	u8 *udp;

	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt)) {
		kfree_skb(skb);
		return PTR_ERR(rt);
	}
	udp = skb->data;
	skb_push(skb, RXE_IPV4_BYTES);
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	rxe_ipv4_build((u8 *)iph, av->traffic_class, skb->len, av->hop_limit,
		       (const u8 *)&av->saddr.v4, (const u8 *)&av->daddr.v4);
	skb_dst_set(skb, &rt->dst);
	ip_select_ident(net, skb, NULL);
	ip_send_check(iph);
	/* IPv4 RoCE packets go without a UDP checksum. */
	rxe_icrc_put(skb_tail_pointer(skb) - RXE_ICRC_BYTES,
		     rxe_icrc_compute((u8 *)iph, false, udp,
				      skb->len - RXE_IPV4_BYTES -
				      RXE_ICRC_BYTES));
	skb->protocol = htons(ETH_P_IP);
	skb->dev = rt->dst.dev;
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	return ip_local_out(net, NULL, skb);
}

static int rxe_xmit6(struct rxe_dev *rxe, const struct rxe_dest *av,
		     struct sk_buff *skb, struct net_device *ndev)
{
	struct net *net = dev_net(ndev);
	struct socket *sk6 = rxe_ns_sk6(net);
	struct flowi6 fl = {
		.flowi6_oif = av->ifindex ?: ndev->ifindex,
		.flowi6_proto = IPPROTO_UDP,
		.daddr = av->daddr.v6,
		.saddr = av->saddr.v6,
	};
	struct dst_entry *dst;
	struct ipv6hdr *ip6h;
	struct udphdr *uh;
	u32 ulen;

	if (!sk6) {
		kfree_skb(skb);
		return -EAFNOSUPPORT;
	}
	dst = ipv6_stub->ipv6_dst_lookup_flow(net, sk6->sk, &fl, NULL);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	uh = udp_hdr(skb);
	ulen = skb->len;
	skb_push(skb, RXE_IPV6_BYTES);
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	rxe_ipv6_build((u8 *)ip6h, av->traffic_class, av->flow_label, ulen,
		       av->hop_limit, av->saddr.v6.s6_addr, av->daddr.v6.s6_addr);
	skb_dst_set(skb, dst);
	rxe_icrc_put(skb_tail_pointer(skb) - RXE_ICRC_BYTES,
		     rxe_icrc_compute((u8 *)ip6h, true, (u8 *)uh,
				      ulen - RXE_ICRC_BYTES));
	/* IPv6 needs a real UDP checksum; computed over the final bytes. */
	uh->check = 0;
	uh->check = csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr, ulen,
				    IPPROTO_UDP, csum_partial(uh, ulen, 0));
	if (!uh->check)
		uh->check = CSUM_MANGLED_0;
	skb->ip_summed = CHECKSUM_NONE;
	skb->protocol = htons(ETH_P_IPV6);
	skb->dev = dst->dev;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return ip6_local_out(net, NULL, skb);
}

/**
 * rxe_xmit() - put a packet on the wire
 * @rxe: the device
 * @av: destination
 * @sport: UDP source port
 * @skb: from rxe_pkt_alloc(), transport headers and payload filled in
 *
 * Adds UDP and IP headers, the ICRC, and hands the packet to the IP layer,
 * which resolves the next hop's MAC.  @skb is consumed in every case.
 *
 * Context: process or softirq context; does not sleep.
 * Return: 0, or a negative errno if the packet could not be sent.
 */
int rxe_xmit(struct rxe_dev *rxe, const struct rxe_dest *av, u16 sport,
	     struct sk_buff *skb)
{
	struct net_device *ndev = rxe_ndev_get(rxe);
	unsigned int len = skb->len;
	int ret;

	if (!ndev) {
		kfree_skb(skb);
		return -ENODEV;
	}
	skb_push(skb, RXE_UDP_BYTES);
	skb_reset_transport_header(skb);
	rxe_udp_build(skb->data, sport, skb->len);
	skb->ip_summed = CHECKSUM_NONE;

	if (av->net_type == RDMA_NETWORK_IPV4)
		ret = rxe_xmit4(rxe, av, skb, ndev);
	else
		ret = rxe_xmit6(rxe, av, skb, ndev);
	if (ret < 0) {
		rxe_count(rxe, RXE_CNT_SEND_ERR);
	} else {
		/* NET_XMIT_DROP and friends count as sent: the wire may lose it */
		ret = 0;
		rxe_count(rxe, RXE_CNT_SENT_PKTS);
		rxe_count_add(rxe, RXE_CNT_SENT_BYTES, len);
		if (av->net_type == RDMA_NETWORK_IPV4 ?
		    ipv4_is_multicast(av->daddr.v4) :
		    ipv6_addr_is_multicast(&av->daddr.v6))
			rxe_count(rxe, RXE_CNT_SENT_MCAST);
	}
	dev_put(ndev);
	return ret;
}

/* ---- module-wide ---------------------------------------------------------- */

/**
 * rxe_net_init() - register the namespace ops and the netdev notifier
 *
 * Return: 0 or a negative errno.
 */
int rxe_net_init(void)
{
	int ret;

	ret = register_pernet_subsys(&rxe_ns_ops);
	if (ret)
		return ret;
	ret = register_netdevice_notifier(&rxe_netdev_nb);
	if (ret)
		unregister_pernet_subsys(&rxe_ns_ops);
	return ret;
}

/**
 * rxe_net_exit() - undo rxe_net_init(); every device is gone by now
 */
void rxe_net_exit(void)
{
	unregister_netdevice_notifier(&rxe_netdev_nb);
	unregister_pernet_subsys(&rxe_ns_ops);
}
