// SPDX-License-Identifier: GPL-2.0
/*
 * Address vectors: a RoCE v2 destination resolved from an rdma_ah_attr
 * once (IP version, addresses, flow label, traffic class, hop limit), for
 * address handles and for the primary path of RC and UC QPs.
 *
 * Address handles are the core's allocation with struct rxe_dest inline:
 * creating one fills the AV and takes no lock and allocates nothing, so
 * create_ah and destroy_ah are safe in any context, with or without
 * RDMA_CREATE_AH_SLEEPABLE.  Kernel AHs are not indexed; a UD send copies
 * the AV into its work request, so the send path never looks an AH up.
 * User AHs (create_user_ah, process context) also get an ah_num, their
 * index in rxe_dev.ah_xa, which librxe 44 writes into its UD work
 * requests instead of an AV.  The
 * copy is made under the read side of the AH's seqlock, which
 * modify_ah() writes under: a send never carries half an old and half a
 * new destination.
 */
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "rxe.h"

/**
 * rxe_av_from_attr() - resolve an address vector
 * @rxe: the device
 * @attr: a RoCE address with a GRH and its source GID entry
 * @av: filled in
 *
 * Context: any; takes no lock.
 * Return: 0, or -EINVAL for a missing GRH or source GID entry, a GID that
 * is not RoCE v2, or addresses of different IP versions.
 */
int rxe_av_from_attr(struct rxe_dev *rxe, const struct rdma_ah_attr *attr,
		     struct rxe_dest *av)
{
	const struct ib_global_route *grh = &attr->grh;
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	const struct in6_addr *s6, *d6;
	struct net_device *ndev;

	if (!(attr->ah_flags & IB_AH_GRH) || !sgid ||
	    attr->type != RDMA_AH_ATTR_TYPE_ROCE)
		return -EINVAL;
	if (sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	s6 = (const struct in6_addr *)sgid->gid.raw;
	d6 = (const struct in6_addr *)grh->dgid.raw;
	memset(av, 0, sizeof(*av));
	if (ipv6_addr_v4mapped(s6)) {
		if (!ipv6_addr_v4mapped(d6))
			return -EINVAL;
		av->net_type = RDMA_NETWORK_IPV4;
		av->saddr.v4 = s6->s6_addr32[3];
		av->daddr.v4 = d6->s6_addr32[3];
	} else {
		if (ipv6_addr_v4mapped(d6))
			return -EINVAL;
		av->net_type = RDMA_NETWORK_IPV6;
		av->saddr.v6 = *s6;
		av->daddr.v6 = *d6;
	}
	memcpy(av->dmac, attr->roce.dmac, ETH_ALEN);
	av->flow_label = grh->flow_label & IB_GRH_FLOWLABEL_MASK;
	av->traffic_class = grh->traffic_class;
	av->hop_limit = grh->hop_limit ?: 64;
	av->sgid_index = grh->sgid_index;
	av->sl = attr->sl;
	av->static_rate = attr->static_rate;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid);
	if (!IS_ERR(ndev))
		av->ifindex = ndev->ifindex;
	rcu_read_unlock();
	return 0;
}

/**
 * rxe_av_to_attr() - the address part of an rdma_ah_attr from an AV
 * @av: the AV
 * @attr: destination fields filled in (no source GID entry reference)
 */
void rxe_av_to_attr(const struct rxe_dest *av, struct rdma_ah_attr *attr)
{
	struct ib_global_route *grh = &attr->grh;

	attr->type = RDMA_AH_ATTR_TYPE_ROCE;
	attr->ah_flags = IB_AH_GRH;
	attr->port_num = 1;
	if (av->net_type == RDMA_NETWORK_IPV4)
		ipv6_addr_set_v4mapped(av->daddr.v4,
				       (struct in6_addr *)grh->dgid.raw);
	else
		memcpy(grh->dgid.raw, &av->daddr.v6, sizeof(grh->dgid));
	grh->flow_label = av->flow_label;
	grh->traffic_class = av->traffic_class;
	grh->hop_limit = av->hop_limit;
	grh->sgid_index = av->sgid_index;
	attr->sl = av->sl;
	attr->static_rate = av->static_rate;
	memcpy(attr->roce.dmac, av->dmac, ETH_ALEN);
}

/**
 * rxe_ah_get_av() - a consistent copy of an address handle's AV
 * @ah: the address handle
 * @av: filled in
 *
 * Context: any; retries while rxe_modify_ah() rewrites the AV.
 */
void rxe_ah_get_av(struct rxe_ah *ah, struct rxe_dest *av)
{
	unsigned int seq;

	do {
		seq = read_seqbegin(&ah->lock);
		*av = ah->av;
	} while (read_seqretry(&ah->lock, seq));
}

int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibah->device);
	struct rxe_ah *ah = to_rah(ibah);
	int ret;

	seqlock_init(&ah->lock);
	ret = rxe_av_from_attr(rxe, init->ah_attr, &ah->av);
	if (ret)
		return ret;
	return rxe_obj_add(rxe, RXE_OBJ_AH);
}

int rxe_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct rxe_ah *ah = to_rah(ibah);
	struct rxe_dest av;
	unsigned long flags;
	int ret;

	ret = rxe_av_from_attr(to_rdev(ibah->device), attr, &av);
	if (ret)
		return ret;
	write_seqlock_irqsave(&ah->lock, flags);
	ah->av = av;
	write_sequnlock_irqrestore(&ah->lock, flags);
	return 0;
}

int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr)
{
	struct rxe_dest av;

	memset(attr, 0, sizeof(*attr));
	rxe_ah_get_av(to_rah(ibah), &av);
	rxe_av_to_attr(&av, attr);
	return 0;
}

/**
 * rxe_create_user_ah() - an AH for user space, with its ah_num
 * @ibah: the core's AH
 * @init: the vector (its RoCE MAC resolved by the core)
 * @udata: the user's driver data: no request; room for struct
 *	rxe_create_ah_resp gets the AH an ah_num
 *
 * A caller without room for the answer (librxe before version 2 of the
 * ABI, which puts whole address vectors in its UD work requests) gets an
 * AH without an ah_num, as from stock rxe.
 *
 * Context: process context.
 * Return: 0; -EINVAL for a bad vector or driver data; -ENOSPC when every
 * ah_num is taken; -ENOMEM; -EFAULT.
 */
int rxe_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		       struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibah->device);
	struct rxe_create_ah_resp resp = {};
	struct rxe_ah *ah = to_rah(ibah);
	int ret;

	if (!ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(&rxe->ib_dev,
			  "user AH: %zu bytes of driver data refused\n",
			  udata->inlen);
		return -EINVAL;
	}
	ret = rxe_create_ah(ibah, init, udata);
	if (ret || udata->outlen < sizeof(resp))
		return ret;
	ret = xa_alloc(&rxe->ah_xa, &ah->num, ah, XA_LIMIT(1, RXE_MAX_AH),
		       GFP_KERNEL);
	if (ret) {
		ibdev_dbg(&rxe->ib_dev, "user AH: no ah_num left: %d\n", ret);
		goto undo;
	}
	resp.ah_num = ah->num;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (!ret)
		return 0;
	xa_erase(&rxe->ah_xa, ah->num);
undo:
	rxe_destroy_ah(ibah, 0);
	return ret;
}

int rxe_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct rxe_ah *ah = to_rah(ibah);

	if (ah->num)
		xa_erase(&to_rdev(ibah->device)->ah_xa, ah->num);
	rxe_obj_del(to_rdev(ibah->device), RXE_OBJ_AH);
	return 0;
}
