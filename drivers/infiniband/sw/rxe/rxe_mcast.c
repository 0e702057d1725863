// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: groups of QPs attached to a multicast GID.  A datagram to
 * a multicast address and the multicast QPN reaches every QP of its group.
 * The netdev's multicast filter gets the group's MAC (01:00:5e:... for
 * IPv4-mapped GIDs, 33:33:... for IPv6) while a group exists.
 *
 * rxe_dev.mcast_lock (spin_lock_bh) guards the list and the groups.  A
 * group holds no QP reference: destroy_qp() detaches the QP first.
 */
#include <linux/if_ether.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "rxe.h"

struct rxe_mcg {
	struct list_head	link;
	union ib_gid		gid;
	unsigned int		nqp;
	struct rxe_qp		*qp[RXE_MAX_MCAST_QP_ATTACH];
};

static void rxe_mcast_mac(const union ib_gid *gid, u8 *mac)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		ip_eth_mc_map(a->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(a, mac);
}

static struct rxe_mcg *rxe_mcg_find(struct rxe_dev *rxe,
				    const union ib_gid *gid)
{
	struct rxe_mcg *g;

	list_for_each_entry(g, &rxe->mcast_list, link)
		if (!memcmp(g->gid.raw, gid->raw, sizeof(*gid)))
			return g;
	return NULL;
}

static void rxe_mcast_filter(struct rxe_dev *rxe, const union ib_gid *gid,
			     bool add)
{
	struct net_device *ndev = rxe_ndev_get(rxe);
	u8 mac[ETH_ALEN];

	if (!ndev)
		return;
	rxe_mcast_mac(gid, mac);
	if (add)
		dev_mc_add(ndev, mac);
	else
		dev_mc_del(ndev, mac);
	dev_put(ndev);
}

int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_mcg *g, *n;
	unsigned int i, count = 0;
	bool created = false;
	int ret = 0;

	if (qp->type_mask != RXE_MASK_UD ||
	    !rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	spin_lock_bh(&rxe->mcast_lock);
	g = rxe_mcg_find(rxe, gid);
	if (!g) {
		list_for_each_entry(g, &rxe->mcast_list, link)
			count++;
		if (count >= RXE_MAX_MCAST_GRP) {
			ret = -ENOMEM;
			goto out;
		}
		g = n;
		n = NULL;
		g->gid = *gid;
		list_add(&g->link, &rxe->mcast_list);
		created = true;
	}
	for (i = 0; i < g->nqp; i++)
		if (g->qp[i] == qp)
			goto out;
	if (g->nqp >= RXE_MAX_MCAST_QP_ATTACH) {
		ret = -ENOMEM;
		goto out;
	}
	g->qp[g->nqp++] = qp;
out:
	spin_unlock_bh(&rxe->mcast_lock);
	kfree(n);
	if (created)
		rxe_mcast_filter(rxe, gid, true);
	return ret;
}

/* rxe->mcast_lock held; true if the group is now empty and unlinked. */
static bool rxe_mcg_remove(struct rxe_mcg *g, struct rxe_qp *qp)
{
	unsigned int i;

	for (i = 0; i < g->nqp; i++) {
		if (g->qp[i] != qp)
			continue;
		g->qp[i] = g->qp[--g->nqp];
		break;
	}
	if (g->nqp)
		return false;
	list_del(&g->link);
	return true;
}

int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_mcg *g;
	bool empty = false;

	spin_lock_bh(&rxe->mcast_lock);
	g = rxe_mcg_find(rxe, gid);
	if (g)
		empty = rxe_mcg_remove(g, qp);
	spin_unlock_bh(&rxe->mcast_lock);
	if (!g)
		return -EINVAL;
	if (empty) {
		rxe_mcast_filter(rxe, gid, false);
		kfree(g);
	}
	return 0;
}

/**
 * rxe_mcast_detach_all() - take a QP that is being destroyed out of every group
 * @qp: the QP
 */
void rxe_mcast_detach_all(struct rxe_qp *qp)
{
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_mcg *g, *t;
	LIST_HEAD(gone);

	if (qp->type_mask != RXE_MASK_UD)
		return;
	spin_lock_bh(&rxe->mcast_lock);
	list_for_each_entry_safe(g, t, &rxe->mcast_list, link)
		if (rxe_mcg_remove(g, qp))
			list_add(&g->link, &gone);
	spin_unlock_bh(&rxe->mcast_lock);
	list_for_each_entry_safe(g, t, &gone, link) {
		rxe_mcast_filter(rxe, &g->gid, false);
		kfree(g);
	}
}

/**
 * rxe_mcast_cleanup() - free what is left at device teardown
 * @rxe: the device
 */
void rxe_mcast_cleanup(struct rxe_dev *rxe)
{
	struct rxe_mcg *g, *t;

	list_for_each_entry_safe(g, t, &rxe->mcast_list, link) {
		list_del(&g->link);
		kfree(g);
	}
}

/**
 * rxe_mcast_deliver() - hand a multicast datagram to every attached QP
 * @rxe: the device
 * @dgid: the group
 * @skb: the datagram, consumed
 * @pkt: its parsed headers (also in the skb's control block)
 *
 * Context: softirq.
 * Return: the number of QPs it went to.
 */
int rxe_mcast_deliver(struct rxe_dev *rxe, const union ib_gid *dgid,
		      struct sk_buff *skb, const struct rxe_pkt *pkt)
{
	struct rxe_qp *qps[RXE_MAX_MCAST_QP_ATTACH];
	unsigned int n = 0, i;
	bool counted = false;
	struct sk_buff *c;
	struct rxe_mcg *g;

	spin_lock_bh(&rxe->mcast_lock);
	g = rxe_mcg_find(rxe, dgid);
	for (i = 0; g && i < g->nqp; i++)
		if (kref_get_unless_zero(&g->qp[i]->ref))
			qps[n++] = g->qp[i];
	spin_unlock_bh(&rxe->mcast_lock);

	if (!n) {
		rxe_drop(rxe, skb, RXE_DROP_QPN);
		return 0;
	}
	for (i = 0; i < n; i++) {
		c = (i + 1 < n) ? skb_clone(skb, GFP_ATOMIC) : skb;
		if (c && rxe_rcv_mcast_qp(rxe, qps[i], c, !counted))
			counted = true;
		rxe_qp_put(qps[i]);
	}
	return n;
}
