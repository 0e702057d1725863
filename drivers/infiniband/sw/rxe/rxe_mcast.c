// SPDX-License-Identifier: GPL-2.0
/*
 * UD multicast: groups of QPs attached to a multicast GID.  A datagram to
 * a multicast address and the multicast QPN reaches every QP of its group.
 * The netdev's multicast filter gets the group's MAC (01:00:5e:... for
 * IPv4-mapped GIDs, 33:33:... for IPv6) while a group exists.
 *
 * A device has up to RXE_MAX_MCAST_GRP groups of up to
 * RXE_MAX_MCAST_QP_ATTACH QPs each; a datagram finds its group in a hash
 * table by GID, the control path walks them in a list.
 * rxe_dev.mcast_lock (spin_lock_bh) guards the list, the table's changes
 * and the groups; lookups take it too.  A group holds no QP reference:
 * destroy_qp() detaches the QP first.
 */
#include <linux/if_ether.h>
#include <linux/rhashtable.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>

#include "rxe.h"

struct rxe_mcg {
	struct rhash_head	node;
	struct list_head	link;
	union ib_gid		gid;
	unsigned int		nqp;
	struct rxe_qp		*qp[RXE_MAX_MCAST_QP_ATTACH];
};

static const struct rhashtable_params rxe_mcg_params = {
	.key_len = sizeof(union ib_gid),
	.key_offset = offsetof(struct rxe_mcg, gid),
	.head_offset = offsetof(struct rxe_mcg, node),
	.automatic_shrinking = true,
};

static void rxe_mcast_mac(const union ib_gid *gid, u8 *mac)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		ip_eth_mc_map(a->s6_addr32[3], mac);
	else
		ipv6_eth_mc_map(a, mac);
}

/* rxe->mcast_lock held */
static struct rxe_mcg *rxe_mcg_find(struct rxe_dev *rxe,
				    const union ib_gid *gid)
{
	return rhashtable_lookup_fast(&rxe->mcast_ht, gid, rxe_mcg_params);
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
	bool created = false;
	unsigned int i;
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
		if (rxe->mcast_ngroups >= rxe->attr.max_mcast_grp) {
			ibdev_dbg(&rxe->ib_dev, "QP %#x: group %pI6 refused: %u groups already\n",
				  rxe_qpn(qp), gid->raw, rxe->mcast_ngroups);
			ret = -ENOMEM;
			goto out;
		}
		g = n;
		g->gid = *gid;
		ret = rhashtable_insert_fast(&rxe->mcast_ht, &g->node,
					     rxe_mcg_params);
		if (ret) {
			ibdev_dbg(&rxe->ib_dev, "QP %#x: group %pI6 not hashed: %d\n",
				  rxe_qpn(qp), gid->raw, ret);
			goto out;
		}
		n = NULL;
		list_add(&g->link, &rxe->mcast_list);
		rxe->mcast_ngroups++;
		created = true;
	}
	for (i = 0; i < g->nqp; i++)
		if (g->qp[i] == qp)
			goto out;
	if (g->nqp >= rxe->attr.max_mcast_qp_attach) {
		ibdev_dbg(&rxe->ib_dev, "QP %#x: group %pI6 refused: it has %u QPs\n",
			  rxe_qpn(qp), gid->raw, g->nqp);
		ret = -ENOMEM;
		goto out;
	}
	g->qp[g->nqp++] = qp;
	qp->mcast_n++;
out:
	spin_unlock_bh(&rxe->mcast_lock);
	kfree(n);
	if (created)
		rxe_mcast_filter(rxe, gid, true);
	return ret;
}

/*
 * Take @qp out of @g; rxe->mcast_lock held.  False if it was not in.
 * *@empty: the group has no QP left and is unlinked.
 */
static bool rxe_mcg_remove(struct rxe_dev *rxe, struct rxe_mcg *g,
			   struct rxe_qp *qp, bool *empty)
{
	unsigned int i;

	*empty = false;
	for (i = 0; i < g->nqp && g->qp[i] != qp; i++)
		;
	if (i == g->nqp)
		return false;
	g->qp[i] = g->qp[--g->nqp];
	qp->mcast_n--;
	if (!g->nqp) {
		rhashtable_remove_fast(&rxe->mcast_ht, &g->node,
				       rxe_mcg_params);
		list_del(&g->link);
		rxe->mcast_ngroups--;
		*empty = true;
	}
	return true;
}

int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *rxe = qp->rxe;
	bool empty = false, was_in = false;
	struct rxe_mcg *g;

	spin_lock_bh(&rxe->mcast_lock);
	g = rxe_mcg_find(rxe, gid);
	if (g)
		was_in = rxe_mcg_remove(rxe, g, qp, &empty);
	spin_unlock_bh(&rxe->mcast_lock);
	if (!was_in) {
		ibdev_dbg(&rxe->ib_dev, "QP %#x: detach from %pI6, not attached\n",
			  rxe_qpn(qp), gid->raw);
		return -EINVAL;
	}
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
	bool empty;

	if (qp->type_mask != RXE_MASK_UD)
		return;
	spin_lock_bh(&rxe->mcast_lock);
	list_for_each_entry_safe(g, t, &rxe->mcast_list, link) {
		if (!qp->mcast_n)
			break;
		if (rxe_mcg_remove(rxe, g, qp, &empty) && empty)
			list_add(&g->link, &gone);
	}
	spin_unlock_bh(&rxe->mcast_lock);
	list_for_each_entry_safe(g, t, &gone, link) {
		rxe_mcast_filter(rxe, &g->gid, false);
		kfree(g);
	}
}

/**
 * rxe_mcast_init() - set up a new device's multicast groups
 * @rxe: the device
 *
 * Return: 0 or the error of rhashtable_init().
 */
int rxe_mcast_init(struct rxe_dev *rxe)
{
	spin_lock_init(&rxe->mcast_lock);
	INIT_LIST_HEAD(&rxe->mcast_list);
	rxe->mcast_ngroups = 0;
	return rhashtable_init(&rxe->mcast_ht, &rxe_mcg_params);
}

/**
 * rxe_mcast_cleanup() - free what is left at device teardown
 * @rxe: the device, whose rxe_mcast_init() succeeded
 */
void rxe_mcast_cleanup(struct rxe_dev *rxe)
{
	struct rxe_mcg *g, *t;

	list_for_each_entry_safe(g, t, &rxe->mcast_list, link) {
		list_del(&g->link);
		kfree(g);
	}
	rxe->mcast_ngroups = 0;
	rhashtable_destroy(&rxe->mcast_ht);
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
	if (counted)
		rxe_count(rxe, RXE_CNT_RCVD_MCAST);
	return n;
}
