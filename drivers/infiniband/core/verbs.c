// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The verbs on objects: protection domains, address handles, queue pairs,
 * shared receive queues, memory regions and multicast attachments
 * (completion queues live in cq.c).  Each verb validates its arguments,
 * does the core's share of the bookkeeping and dispatches to the provider
 * through ib_device.ops.
 *
 * Ownership and lifetimes
 *  - The core allocates PDs, AHs, CQs, QPs and SRQs itself, with the size
 *    the provider declared (ops.size_ib_*); the provider only initialises
 *    its part in the create op.  MRs are allocated by the provider.
 *  - Every object on a PD counts in pd->usecnt; QPs count in the usecnt of
 *    their CQs and SRQ; multicast attachments count in qp->usecnt.  A count
 *    goes up only once the provider has created the object and down only
 *    once the provider has destroyed it, so a failed verb never changes
 *    any count.  Destroying an object whose usecnt is not zero fails with
 *    -EBUSY (QP, SRQ, CQ); PDs are not checked, the caller must empty them.
 *  - GID table entries (struct ib_gid_attr) are referenced: an AH holds one
 *    in ah->sgid_attr while it uses a GRH, a QP one per path in
 *    qp->av_sgid_attr / qp->alt_path_sgid_attr.  An address vector that a
 *    caller passes in is handed back with exactly the reference it came
 *    with: the core fills a missing sgid_attr for the duration of the call
 *    only (attr_fill_sgid() / attr_unfill_sgid()).
 *  - PDs, CQs, QPs, SRQs and MRs are listed in restrack (restrack.c); AHs
 *    are not.  Destroy verbs hide the entry while the provider works
 *    (rdma_restrack_destroy(): netlink readers are waited for first) and
 *    list it again if the provider refuses.
 *
 * Context
 *  - rdma_create_ah() without RDMA_CREATE_AH_SLEEPABLE may be called with
 *    interrupts off: that path allocates with GFP_ATOMIC, takes no sleeping
 *    lock (the GID cache lookups use an irqsave rwlock) and never waits.
 *    rdma_destroy_ah_user() without RDMA_DESTROY_AH_SLEEPABLE likewise.
 *  - Every other verb here may sleep.
 *  - XRC domains, receive WQ indirection tables and device memory are not
 *    defined by this core (their structures are opaque), so the verbs that
 *    would need them refuse with -EOPNOTSUPP (or -EINVAL where the contract
 *    asks for it).
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/if_ether.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/netdevice.h>
#include <linux/scatterlist.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/udp.h>
#include <net/if_inet6.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/rw.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/*
 * ib_device.lag_flags bit: hash on every slave of a bond, not only the
 * active ones, when picking the transmit slave (RDMA_LAG_FLAGS_HASH_ALL_SLAVES
 * upstream).
 */
#define VERBS_LAG_HASH_ALL_SLAVES	BIT(0)

/* PSNs are 24 bits wide on IB and RoCE. */
#define VERBS_PSN_MASK			0xffffff

/* How long ib_drain_qp() waits for the Last WQE Reached event of an SRQ QP. */
#define VERBS_SRQ_DRAIN_TIMEOUT		(60 * HZ)

/* ---- completion status names ------------------------------------------ */

/**
 * ib_wc_status_msg() - printable name of a completion status
 * @status: the status of a work completion
 *
 * The texts are the ones ULPs have always logged, so that messages read the
 * same whichever core they run on.  The switch has no default so that the
 * compiler points out a status added to the enum without a name here.
 *
 * Return: a constant string; "unrecognized status" for a value outside
 * enum ib_wc_status.
 */
const char *__attribute_const__ ib_wc_status_msg(enum ib_wc_status status)
{
	switch (status) {
	case IB_WC_SUCCESS:
		return "success";
	case IB_WC_LOC_LEN_ERR:
		return "local length error";
	case IB_WC_LOC_QP_OP_ERR:
		return "local QP operation error";
	case IB_WC_LOC_EEC_OP_ERR:
		return "local EE context operation error";
	case IB_WC_LOC_PROT_ERR:
		return "local protection error";
	case IB_WC_WR_FLUSH_ERR:
		return "WR flushed";
	case IB_WC_MW_BIND_ERR:
		return "memory bind operation error";
	case IB_WC_BAD_RESP_ERR:
		return "bad response error";
	case IB_WC_LOC_ACCESS_ERR:
		return "local access error";
	case IB_WC_REM_INV_REQ_ERR:
		return "remote invalid request error";
	case IB_WC_REM_ACCESS_ERR:
		return "remote access error";
	case IB_WC_REM_OP_ERR:
		return "remote operation error";
	case IB_WC_RETRY_EXC_ERR:
		return "transport retry counter exceeded";
	case IB_WC_RNR_RETRY_EXC_ERR:
		return "RNR retry counter exceeded";
	case IB_WC_LOC_RDD_VIOL_ERR:
		return "local RDD violation error";
	case IB_WC_REM_INV_RD_REQ_ERR:
		return "remote invalid RD request";
	case IB_WC_REM_ABORT_ERR:
		return "operation aborted";
	case IB_WC_INV_EECN_ERR:
		return "invalid EE context number";
	case IB_WC_INV_EEC_STATE_ERR:
		return "invalid EE context state";
	case IB_WC_FATAL_ERR:
		return "fatal error";
	case IB_WC_RESP_TIMEOUT_ERR:
		return "response timeout error";
	case IB_WC_GENERAL_ERR:
		return "general error";
	}
	return "unrecognized status";
}
EXPORT_SYMBOL(ib_wc_status_msg);

/* ---- objects the core allocates --------------------------------------- */

/*
 * A zeroed struct @type of @dev, at the size its provider declared, that
 * already knows its device.  @numa places it on the provider's node.
 */
#define verbs_obj_alloc(dev, type, gfp, numa)				\
	({								\
		struct ib_device *__dev = (dev);			\
		struct type *__obj =					\
			__rdma_zalloc_drv_obj(__dev, type, gfp, numa);	\
									\
		if (__obj)						\
			__obj->device = __dev;				\
		__obj;							\
	})

/* A new object's restrack entry, owned by module @caller (or the task). */
static void obj_track(struct rdma_restrack_entry *res,
		      enum rdma_restrack_type kind, const char *caller)
{
	rdma_restrack_new(res, kind);
	rdma_restrack_set_name(res, caller);
}

/*
 * PDs, SRQs and QPs are allocated by the core at the size their provider
 * declared and get a restrack entry before the provider's create op runs.
 * When that op fails, the entry and the memory go together here; the
 * value is what the create verb returns.
 */
static void *obj_create_failed(struct rdma_restrack_entry *res, void *obj,
			       int err)
{
	rdma_restrack_put(res);
	kfree(obj);
	return ERR_PTR(err);
}

/* The core's fields of an MR a provider returned for a kernel user. */
static void mr_bind(struct ib_mr *mr, struct ib_pd *pd, enum ib_mr_type type)
{
	mr->type = type;
	/* Not a uverbs object, no device memory, no remote invalidation. */
	mr->uobject = NULL;
	mr->dm = NULL;
	mr->need_inval = false;
	/* Where it belongs. */
	mr->pd = pd;
	mr->device = pd->device;
}

/* ---- protection domains ------------------------------------------------ */

/*
 * Access rights the internal DMA MR of a PD with @flags needs on @dev; 0
 * when the PD needs no such MR.  LOCAL_WRITE stands for "the MR provides
 * the local DMA lkey", REMOTE_* for "it provides the unsafe global rkey".
 */
static int pd_dma_mr_access(const struct ib_device *dev, unsigned int flags)
{
	int access = 0;

	if (!(dev->attrs.kernel_cap_flags & IBK_LOCAL_DMA_LKEY))
		access |= IB_ACCESS_LOCAL_WRITE;
	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		access |= IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE;
	return access;
}

/* Can @dev make and release a PD whose DMA MR needs @access? */
static bool pd_ops_present(const struct ib_device *dev, int access)
{
	const struct ib_device_ops *ops = &dev->ops;

	if (!ops->alloc_pd || !ops->dealloc_pd)
		return false;
	return !access || (ops->get_dma_mr && ops->dereg_mr);
}

/* Register the internal all-memory MR of @pd and publish its keys. */
static int pd_make_dma_mr(struct ib_pd *pd, int access)
{
	struct ib_mr *mr = pd->device->ops.get_dma_mr(pd, access);

	if (IS_ERR(mr))
		return PTR_ERR(mr);

	mr_bind(mr, pd, IB_MR_TYPE_DMA);
	pd->__internal_mr = mr;
	if (access & IB_ACCESS_LOCAL_WRITE)
		pd->local_dma_lkey = mr->lkey;
	if (access & IB_ACCESS_REMOTE_WRITE)
		pd->unsafe_global_rkey = mr->rkey;
	return 0;
}

/**
 * __ib_alloc_pd() - allocate a protection domain for a kernel user
 * @device: the device
 * @flags: IB_PD_* flags; IB_PD_UNSAFE_GLOBAL_RKEY also exposes an rkey for
 *	all of memory in pd->unsafe_global_rkey (and logs a warning)
 * @caller: module name of the owner (KBUILD_MODNAME), for resource tracking
 *
 * Normally called through ib_alloc_pd().  pd->local_dma_lkey is usable
 * for local access to any DMA-mapped memory: it is the device's own when
 * the device has IBK_LOCAL_DMA_LKEY, otherwise the lkey of an internal
 * DMA MR the core registers on the PD.
 *
 * Context: process context; sleeps.
 * Return: the PD, or ERR_PTR(-ENOMEM), ERR_PTR(-EOPNOTSUPP) when the
 * device cannot provide a PD (or the DMA MR it needs), or the provider's
 * error from alloc_pd or get_dma_mr.
 */
struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller)
{
	int access = pd_dma_mr_access(device, flags);
	struct ib_pd *pd;
	int ret;

	if (!pd_ops_present(device, access))
		return ERR_PTR(-EOPNOTSUPP);

	pd = verbs_obj_alloc(device, ib_pd, GFP_KERNEL, false);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->flags = flags;

	obj_track(&pd->res, RDMA_RESTRACK_PD, caller);
	ret = device->ops.alloc_pd(pd, NULL);
	if (ret)
		return obj_create_failed(&pd->res, pd, ret);

	/* Replaced by the DMA MR's lkey when the device has none to offer. */
	pd->local_dma_lkey = device->local_dma_lkey;
	ret = access ? pd_make_dma_mr(pd, access) : 0;
	if (ret) {
		WARN_ON(device->ops.dealloc_pd(pd, NULL));
		return obj_create_failed(&pd->res, pd, ret);
	}

	if (flags & IB_PD_UNSAFE_GLOBAL_RKEY)
		pr_warn("%s: %s: enabling unsafe global rkey\n",
			dev_name(&device->dev), caller ? caller : "?");

	rdma_restrack_add(&pd->res);
	return pd;
}
EXPORT_SYMBOL(__ib_alloc_pd);

/**
 * ib_dealloc_pd_user() - release a protection domain
 * @pd: the PD
 * @udata: the user's driver data, or NULL for a kernel PD
 *
 * Deregisters the internal DMA MR, if any, and has the provider release
 * the PD.  The caller must have destroyed every object created on the PD
 * first; the usecnt is not checked for that.  If the provider refuses, the
 * PD stays usable (the internal MR is registered again).
 *
 * Context: process context; sleeps.
 * Return: 0, or the provider's error.
 */
int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata)
{
	int access = pd_dma_mr_access(pd->device, pd->flags);
	const struct ib_device_ops *ops = &pd->device->ops;
	struct ib_mr *dma_mr = pd->__internal_mr;
	int ret = 0;

	rdma_restrack_begin_del(&pd->res);
	if (dma_mr)
		ret = ops->dereg_mr(dma_mr, NULL);
	if (!ret) {
		pd->__internal_mr = NULL;
		ret = ops->dealloc_pd(pd, udata);
		/* Refused: the PD keeps working, with keys as handed out. */
		if (ret && dma_mr)
			WARN_ON(pd_make_dma_mr(pd, access));
	}
	if (rdma_restrack_end_del(&pd->res, ret))
		return ret;

	kfree(pd);
	return 0;
}
EXPORT_SYMBOL(ib_dealloc_pd_user);

/* ---- address vectors ---------------------------------------------------- */

/**
 * rdma_destroy_ah_attr() - drop the GID reference of an address vector
 * @ah_attr: the vector
 *
 * Clears grh.sgid_attr.  Harmless on a vector without a reference, so it
 * may be called more than once and on a zeroed vector.
 */
void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *had = ah_attr->grh.sgid_attr;

	ah_attr->grh.sgid_attr = NULL;
	if (had)
		rdma_put_gid_attr(had);
}
EXPORT_SYMBOL(rdma_destroy_ah_attr);

/**
 * rdma_copy_ah_attr() - copy an address vector, with its GID reference
 * @dest: the copy; whatever it held is overwritten, not released
 * @src: the vector to copy
 *
 * The copy takes its own reference on src->grh.sgid_attr, if set.
 */
void rdma_copy_ah_attr(struct rdma_ah_attr *dest,
		       const struct rdma_ah_attr *src)
{
	const struct ib_gid_attr *ref = src->grh.sgid_attr;

	if (ref)
		rdma_hold_gid_attr(ref);
	*dest = *src;
}
EXPORT_SYMBOL(rdma_copy_ah_attr);

/**
 * rdma_move_ah_attr() - move an address vector and its GID reference
 * @dest: the destination; the GID reference it held is dropped
 * @src: the source; it loses its reference (grh.sgid_attr becomes NULL)
 *
 * The old reference of @dest is dropped only once the move is done, so
 * that both vectors may name the same GID entry.
 */
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src)
{
	const struct ib_gid_attr *had = dest->grh.sgid_attr;

	*dest = *src;
	src->grh.sgid_attr = NULL;
	if (had)
		rdma_put_gid_attr(had);
}
EXPORT_SYMBOL(rdma_move_ah_attr);

/**
 * rdma_replace_ah_attr() - overwrite an address vector with a copy
 * @old: the vector to replace; its GID reference is dropped
 * @new: the vector to copy; the copy takes its own GID reference
 *
 * A copy and a move: the new reference is taken before the old one is
 * dropped, so @old may even be @new.
 */
void rdma_replace_ah_attr(struct rdma_ah_attr *old,
			  const struct rdma_ah_attr *new)
{
	struct rdma_ah_attr copy;

	rdma_copy_ah_attr(&copy, new);
	rdma_move_ah_attr(old, &copy);
}
EXPORT_SYMBOL(rdma_replace_ah_attr);

/* Is @attr usable on @dev?  Only reads it. */
static int attr_check(struct ib_device *dev, const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid = attr->grh.sgid_attr;

	if (!rdma_is_port_valid(dev, attr->port_num))
		return -EINVAL;

	if (!(attr->ah_flags & IB_AH_GRH) &&
	    (attr->type == RDMA_AH_ATTR_TYPE_ROCE ||
	     rdma_is_grh_required(dev, attr->port_num)))
		return -EINVAL;

	/* A GID entry the caller resolved must be the one it names. */
	if (sgid && (sgid->device != dev ||
		     sgid->index != attr->grh.sgid_index ||
		     sgid->port_num != attr->port_num))
		return -EINVAL;
	return 0;
}

/*
 * Validate @attr and, if it has a GRH without a GID entry, look the entry
 * up by port and sgid_index and store a reference in grh.sgid_attr.
 * Returns what the caller had there (often NULL), to be handed to
 * attr_unfill_sgid() once the vector is no longer needed, or an ERR_PTR()
 * with @attr untouched.  Atomic-safe.
 */
static const struct ib_gid_attr *attr_fill_sgid(struct ib_device *dev,
						struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *own = attr->grh.sgid_attr;
	const struct ib_gid_attr *found;
	int ret = attr_check(dev, attr);

	if (ret)
		return ERR_PTR(ret);
	if (own || !(attr->ah_flags & IB_AH_GRH))
		return own;

	found = rdma_get_gid_attr(dev, attr->port_num, attr->grh.sgid_index);
	if (IS_ERR(found))
		return found;
	attr->grh.sgid_attr = found;
	return NULL;
}

/* Give @attr back its own sgid_attr, dropping what attr_fill_sgid() took. */
static void attr_unfill_sgid(struct rdma_ah_attr *attr,
			     const struct ib_gid_attr *saved)
{
	if (attr->grh.sgid_attr == saved)
		return;
	rdma_put_gid_attr(attr->grh.sgid_attr);
	attr->grh.sgid_attr = saved;
}

/*
 * Replace the GID reference an object keeps for a path (*@slot) with one
 * on the entry @attr now uses (none without a GRH, or for a NULL @attr).
 */
static void attr_keep_sgid(const struct ib_gid_attr **slot,
			   const struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *next = NULL;

	if (attr && (attr->ah_flags & IB_AH_GRH)) {
		next = attr->grh.sgid_attr;
		rdma_hold_gid_attr(next);
	}
	if (*slot)
		rdma_put_gid_attr(*slot);
	*slot = next;
}

/* ---- RoCE over a bond: the slave an address vector leaves through ------- */

/*
 * A header-only Ethernet/IP/UDP packet as the RoCE v2 traffic of @attr
 * would look, for the bond's transmit hash to chew on.
 */
static struct sk_buff *lag_probe_skb(struct net_device *master,
				     const struct rdma_ah_attr *attr,
				     gfp_t gfp)
{
	const struct ib_global_route *grh = &attr->grh;
	bool v4 = ipv6_addr_v4mapped((const struct in6_addr *)grh->dgid.raw);
	unsigned int l3 = v4 ? sizeof(struct iphdr) : sizeof(struct ipv6hdr);
	unsigned int room;
	struct sk_buff *skb;
	struct ethhdr *eth;
	struct udphdr *uh;

	room = LL_RESERVED_SPACE(master) + ETH_HLEN + l3 + sizeof(*uh);
	skb = alloc_skb(room, gfp);
	if (!skb)
		return NULL;
	skb_reserve(skb, room);
	skb->dev = master;

	uh = skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	memset(uh, 0, sizeof(*uh));
	uh->source = htons(rdma_flow_label_to_udp_sport(grh->flow_label));
	uh->dest = htons(ROCE_V2_UDP_DPORT);
	uh->len = htons(sizeof(*uh));

	if (v4) {
		struct iphdr *ip4 = skb_push(skb, sizeof(*ip4));

		skb_reset_network_header(skb);
		memset(ip4, 0, sizeof(*ip4));
		ip4->version = 4;
		ip4->ihl = 5;
		ip4->ttl = grh->hop_limit;
		ip4->protocol = IPPROTO_UDP;
		ip4->tot_len = htons(sizeof(*ip4) + sizeof(*uh));
		memcpy(&ip4->saddr, &grh->sgid_attr->gid.raw[12], 4);
		memcpy(&ip4->daddr, &grh->dgid.raw[12], 4);
	} else {
		struct ipv6hdr *ip6 = skb_push(skb, sizeof(*ip6));

		skb_reset_network_header(skb);
		memset(ip6, 0, sizeof(*ip6));
		ip6_flow_hdr(ip6, grh->traffic_class,
			     cpu_to_be32(grh->flow_label &
					 IB_GRH_FLOWLABEL_MASK));
		ip6->nexthdr = IPPROTO_UDP;
		ip6->hop_limit = grh->hop_limit;
		ip6->payload_len = htons(sizeof(*uh));
		memcpy(&ip6->saddr, grh->sgid_attr->gid.raw, 16);
		memcpy(&ip6->daddr, grh->dgid.raw, 16);
	}

	eth = skb_push(skb, ETH_HLEN);
	skb_reset_mac_header(skb);
	memset(eth, 0, ETH_HLEN);
	eth->h_proto = htons(v4 ? ETH_P_IP : ETH_P_IPV6);
	skb->protocol = eth->h_proto;
	rdma_read_gid_l2_fields(grh->sgid_attr, NULL, eth->h_source);
	memcpy(eth->h_dest, attr->roce.dmac, ETH_ALEN);
	return skb;
}

/*
 * The bonding master under the GID entry of @sgid, held with dev_hold();
 * NULL when the entry's netdev is no bond, an ERR_PTR() when it has none.
 */
static struct net_device *lag_hold_master(const struct ib_gid_attr *sgid)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(sgid);
	if (!IS_ERR(ndev)) {
		if (netif_is_bond_master(ndev))
			dev_hold(ndev);
		else
			ndev = NULL;
	}
	rcu_read_unlock();
	return ndev;
}

/*
 * For a RoCE v2 vector with a flow label whose GID sits on a bonding
 * master: the slave the bond would send it through, held with dev_hold().
 * NULL when none of that applies, an ERR_PTR() on failure.  Atomic-safe
 * with GFP_ATOMIC.
 */
static struct net_device *lag_xmit_slave(struct ib_device *dev,
					 const struct rdma_ah_attr *attr,
					 gfp_t gfp)
{
	bool all_slaves = dev->lag_flags & VERBS_LAG_HASH_ALL_SLAVES;
	const struct ib_gid_attr *sgid = attr->grh.sgid_attr;
	struct net_device *master, *picked;
	struct sk_buff *probe;

	if (attr->type != RDMA_AH_ATTR_TYPE_ROCE || !sgid ||
	    sgid->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
	    !attr->grh.flow_label)
		return NULL;

	master = lag_hold_master(sgid);
	if (IS_ERR_OR_NULL(master))
		return master;

	/* The bond hashes a packet; ask it about one that looks like ours. */
	probe = lag_probe_skb(master, attr, gfp);
	if (probe) {
		rcu_read_lock();
		picked = netdev_get_xmit_slave(master, probe, all_slaves);
		dev_hold(picked);
		rcu_read_unlock();
		consume_skb(probe);
	} else {
		picked = ERR_PTR(-ENOMEM);
	}
	dev_put(master);
	return picked;
}

/* ---- RoCE destination MAC of user-supplied vectors ---------------------- */

/*
 * Unicast: derive the MAC from a link-local GID when sending RoCE v1,
 * else ask the IP stack (route + neighbour), which also gives the hop
 * limit.  Sleeps in the second case.
 */
static int roce_resolve_unicast_dmac(struct rdma_ah_attr *attr)
{
	struct ib_global_route *grh = &attr->grh;
	const struct ib_gid_attr *sgid = grh->sgid_attr;
	struct in6_addr *dgid = (struct in6_addr *)grh->dgid.raw;
	int hop_limit = 0xff;
	int ret;

	if (rdma_link_local_addr(dgid) && sgid->gid_type == IB_GID_TYPE_ROCE) {
		rdma_get_ll_mac(dgid, attr->roce.dmac);
		return 0;
	}

	ret = rdma_addr_find_l2_eth_by_grh(&sgid->gid, &grh->dgid,
					   attr->roce.dmac, sgid, &hop_limit);
	if (ret)
		return ret;
	grh->hop_limit = hop_limit;
	return 0;
}

/* Fill roce.dmac (and for unicast the hop limit) of a RoCE vector. */
static int roce_resolve_dmac(struct rdma_ah_attr *attr)
{
	struct in6_addr *dgid = (struct in6_addr *)attr->grh.dgid.raw;

	if (!rdma_is_multicast_addr(dgid))
		return roce_resolve_unicast_dmac(attr);

	if (ipv6_addr_v4mapped(dgid))
		ip_eth_mc_map(dgid->s6_addr32[3], (char *)attr->roce.dmac);
	else
		ipv6_eth_mc_map(dgid, (char *)attr->roce.dmac);
	return 0;
}

/* ---- address handles ----------------------------------------------------- */

/* How a provider builds an AH (ops.create_ah and ops.create_user_ah). */
typedef int (*ah_create_op_t)(struct ib_ah *ah, struct rdma_ah_init_attr *init,
			      struct ib_udata *udata);

/*
 * The op that creates AHs for kernel (@udata NULL) or user callers; NULL
 * when the provider has none, or cannot destroy AHs again.
 */
static ah_create_op_t ah_create_op(const struct ib_device *dev,
				   const struct ib_udata *udata)
{
	if (!dev->ops.destroy_ah)
		return NULL;
	return udata ? dev->ops.create_user_ah : dev->ops.create_ah;
}

/* Drop what the core holds for @ah and free it. */
static void ah_release(struct ib_ah *ah)
{
	if (ah->sgid_attr)
		rdma_put_gid_attr(ah->sgid_attr);
	kfree(ah);
}

/*
 * Allocate the AH and have @create set it up; the AH takes its own
 * reference on the vector's (filled) GID entry and counts on the PD.
 */
static struct ib_ah *ah_instantiate(struct ib_pd *pd, ah_create_op_t create,
				    struct rdma_ah_init_attr *init,
				    struct ib_udata *udata)
{
	gfp_t gfp = init->flags & RDMA_CREATE_AH_SLEEPABLE ? GFP_KERNEL :
							     GFP_ATOMIC;
	struct ib_ah *ah = verbs_obj_alloc(pd->device, ib_ah, gfp, false);
	int ret;

	if (!ah)
		return ERR_PTR(-ENOMEM);
	ah->pd = pd;
	ah->type = init->ah_attr->type;
	attr_keep_sgid(&ah->sgid_attr, init->ah_attr);

	ret = create(ah, init, udata);
	if (ret) {
		ah_release(ah);
		return ERR_PTR(ret);
	}
	atomic_inc(&pd->usecnt);
	return ah;
}

/*
 * Both create verbs, once the vector's GID entry is filled.  Kernel
 * vectors come with their RoCE MAC and may leave through a bond slave;
 * user vectors get their MAC resolved here and no slave.
 */
static struct ib_ah *ah_create_filled(struct ib_pd *pd,
				      struct rdma_ah_attr *attr, u32 flags,
				      struct ib_udata *udata)
{
	ah_create_op_t create = ah_create_op(pd->device, udata);
	struct rdma_ah_init_attr init = {
		.ah_attr	= attr,
		.flags		= flags,
	};
	struct ib_ah *ah;
	int ret;

	if (!create)
		return ERR_PTR(-EOPNOTSUPP);

	if (udata) {
		ret = attr->type == RDMA_AH_ATTR_TYPE_ROCE ?
		      roce_resolve_dmac(attr) : 0;
		return ret ? ERR_PTR(ret) :
			     ah_instantiate(pd, create, &init, udata);
	}

	init.xmit_slave = lag_xmit_slave(pd->device, attr,
					 flags & RDMA_CREATE_AH_SLEEPABLE ?
					 GFP_KERNEL : GFP_ATOMIC);
	if (IS_ERR(init.xmit_slave))
		return ERR_CAST(init.xmit_slave);
	ah = ah_instantiate(pd, create, &init, NULL);
	dev_put(init.xmit_slave);
	return ah;
}

/* Fill the vector's GID entry for the length of the create, then undo. */
static struct ib_ah *ah_create(struct ib_pd *pd, struct rdma_ah_attr *attr,
			       u32 flags, struct ib_udata *udata)
{
	const struct ib_gid_attr *saved = attr_fill_sgid(pd->device, attr);
	struct ib_ah *ah;

	if (IS_ERR(saved))
		return ERR_CAST(saved);
	ah = ah_create_filled(pd, attr, flags, udata);
	attr_unfill_sgid(attr, saved);
	return ah;
}

/**
 * rdma_create_ah() - create an address handle for a kernel user
 * @pd: protection domain of the AH
 * @ah_attr: the address vector; on RoCE roce.dmac must be resolved already
 * @flags: RDMA_CREATE_AH_SLEEPABLE if the caller may sleep
 *
 * Looks up the source GID entry named by the vector (unless it carries one
 * already), picks the bond slave for RoCE v2 over a bond, and has the
 * provider build the AH.  @ah_attr comes back exactly as passed, including
 * the reference it may hold in grh.sgid_attr.
 *
 * Context: any context without RDMA_CREATE_AH_SLEEPABLE (nothing sleeps
 * then); process context with it.
 * Return: the AH, or ERR_PTR(-EINVAL) for an invalid port, a missing GRH
 * where the port needs one or a GID entry that does not match the vector,
 * -EINVAL/-ENODATA from the GID lookup, -EOPNOTSUPP if the device has no
 * AHs, -ENOMEM, or the provider's error.
 */
struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags)
{
	might_sleep_if(flags & RDMA_CREATE_AH_SLEEPABLE);
	return ah_create(pd, ah_attr, flags, NULL);
}
EXPORT_SYMBOL(rdma_create_ah);

/**
 * rdma_create_user_ah() - create an address handle for user space
 * @pd: protection domain of the AH
 * @ah_attr: the address vector from user space
 * @udata: the user's driver data
 *
 * Like rdma_create_ah() with RDMA_CREATE_AH_SLEEPABLE, except that the
 * destination MAC of a RoCE vector is resolved here: multicast GIDs map to
 * 01:00:5e:.. (IPv4) or 33:33:.. (IPv6), a link-local GID sent as RoCE v1
 * gives its embedded MAC, anything else goes through the IP route and
 * neighbour tables, which also set the hop limit.  The resolved
 * roce.dmac and grh.hop_limit are written into @ah_attr; its GID reference
 * is left as passed.  No bond slave is chosen on this path.
 *
 * Context: process context; sleeps.
 * Return: the AH or an ERR_PTR(): the errors of rdma_create_ah() and
 * those of address resolution.
 */
struct ib_ah *rdma_create_user_ah(struct ib_pd *pd,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata)
{
	might_sleep();
	return ah_create(pd, ah_attr, RDMA_CREATE_AH_SLEEPABLE, udata);
}
EXPORT_SYMBOL(rdma_create_user_ah);

/**
 * rdma_modify_ah() - point an address handle at a new address vector
 * @ah: the AH
 * @ah_attr: the new vector, of the same type as the AH
 *
 * On success the AH holds a reference on the new source GID entry and has
 * dropped the old one.  On failure nothing changes.  @ah_attr comes back
 * as passed.
 *
 * Context: process context.
 * Return: 0, -EINVAL for a vector of another type or an invalid one, the
 * GID lookup's error, -EOPNOTSUPP if the provider cannot modify AHs, or
 * the provider's error.
 */
int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	const struct ib_gid_attr *saved;
	int ret;

	/* Whether an AH is IB, RoCE or OPA is fixed at creation. */
	saved = ah->type == ah_attr->type ?
		attr_fill_sgid(ah->device, ah_attr) : ERR_PTR(-EINVAL);
	if (IS_ERR(saved))
		return PTR_ERR(saved);

	ret = ib_core_call_opt(ah->device->ops.modify_ah, ah, ah_attr);
	if (!ret)
		attr_keep_sgid(&ah->sgid_attr, ah_attr);
	attr_unfill_sgid(ah_attr, saved);
	return ret;
}
EXPORT_SYMBOL(rdma_modify_ah);

/**
 * rdma_query_ah() - read back the address vector of an address handle
 * @ah: the AH
 * @ah_attr: filled by the provider
 *
 * The result holds no GID reference: grh.sgid_attr is cleared.
 *
 * Return: 0, -EOPNOTSUPP if the provider cannot query AHs, or its error.
 */
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr)
{
	ah_attr->grh.sgid_attr = NULL;
	return ib_core_call_opt(ah->device->ops.query_ah, ah, ah_attr);
}
EXPORT_SYMBOL(rdma_query_ah);

/**
 * rdma_destroy_ah_user() - destroy an address handle
 * @ah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE if the caller may sleep
 * @udata: the user's driver data, or NULL for a kernel AH
 *
 * Only once the provider has destroyed the AH is it taken off its PD, its
 * GID reference dropped and its memory freed; if the provider fails the
 * AH is left intact.
 *
 * Context: any context without RDMA_DESTROY_AH_SLEEPABLE.
 * Return: 0, or the provider's error.
 */
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata)
{
	struct ib_pd *pd = ah->pd;
	int ret;

	might_sleep_if(flags & RDMA_DESTROY_AH_SLEEPABLE);

	ret = ah->device->ops.destroy_ah(ah, flags);
	if (!ret) {
		atomic_dec(&pd->usecnt);
		ah_release(ah);
	}
	return ret;
}
EXPORT_SYMBOL(rdma_destroy_ah_user);

/* ---- address vectors of replies ------------------------------------------ */

/* What a reply's source GID entry must match besides the GID itself. */
struct reply_gid_match {
	enum ib_gid_type	gid_type;
	u16			vlan_id;
};

static bool reply_gid_matches(const union ib_gid *gid,
			      const struct ib_gid_attr *attr, void *context)
{
	const struct reply_gid_match *want = context;
	u16 vlan_id = 0xffff;

	if (attr->gid_type != want->gid_type)
		return false;
	if (rdma_read_gid_l2_fields(attr, &vlan_id, NULL))
		return false;
	return vlan_id == want->vlan_id;
}

/* Network header type of a RoCE packet, guessed from its 40 header bytes. */
static enum rdma_network_type roce_sniff_net_type(const struct ib_grh *grh)
{
	if (ib_get_rdma_header_version((const union rdma_network_hdr *)grh) == 4)
		return RDMA_NETWORK_IPV4;
	if (grh->next_hdr == IPPROTO_UDP)
		return RDMA_NETWORK_IPV6;
	return RDMA_NETWORK_ROCE_V1;
}

/**
 * ib_wc_net_type() - the network header in front of a received UD payload
 * @dev: the device
 * @port: the port it came in on
 * @wc: its completion
 * @grh: its first 40 bytes
 *
 * Return: the type the provider reported (IB_WC_WITH_NETWORK_HDR_TYPE),
 * else on a RoCE port the type the 40 bytes look like, else
 * RDMA_NETWORK_IB.
 */
enum rdma_network_type ib_wc_net_type(struct ib_device *dev, u32 port,
				      const struct ib_wc *wc,
				      const struct ib_grh *grh)
{
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		return wc->network_hdr_type;
	if (rdma_protocol_roce(dev, port))
		return roce_sniff_net_type(grh);
	return RDMA_NETWORK_IB;
}

/**
 * rdma_move_grh_sgid_attr() - set the GRH of a vector around a GID entry
 * @attr: the vector; it must not hold a GID reference yet
 * @dgid: destination GID (NULL keeps the one @attr has)
 * @flow_label: flow label
 * @hop_limit: hop limit
 * @traffic_class: traffic class
 * @sgid_attr: the source GID entry; the vector takes over the caller's
 *	reference on it
 *
 * The source GID index is taken from @sgid_attr.  Release the vector with
 * rdma_destroy_ah_attr().
 */
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr)
{
	__rdma_ah_fill_grh(attr, dgid, flow_label, sgid_attr->index, hop_limit,
			   traffic_class, sgid_attr);
}
EXPORT_SYMBOL(rdma_move_grh_sgid_attr);

/* Traffic class and flow label of a received GRH, into a reply's GRH. */
static void reply_set_grh(struct rdma_ah_attr *attr, union ib_gid *dgid,
			  const struct ib_grh *grh,
			  const struct ib_gid_attr *sgid_attr)
{
	u32 vtf = be32_to_cpu(grh->version_tclass_flow);

	rdma_move_grh_sgid_attr(attr, dgid, vtf & IB_GRH_FLOWLABEL_MASK, 0xff,
				(vtf >> 20) & 0xff, sgid_attr);
}

static int reply_attr_roce(struct ib_device *dev, u32 port,
			   const struct ib_wc *wc, const struct ib_grh *grh,
			   struct rdma_ah_attr *attr)
{
	struct reply_gid_match match;
	const struct ib_gid_attr *sgid_attr;
	enum rdma_network_type net_type;
	union ib_gid sgid, dgid;
	int ret;

	if (!(wc->wc_flags & IB_WC_GRH))
		return -EPROTOTYPE;
	if (!grh)
		return -EINVAL;

	net_type = ib_wc_net_type(dev, port, wc, grh);
	ret = ib_get_gids_from_rdma_hdr((const union rdma_network_hdr *)grh,
					net_type, &sgid, &dgid);
	if (ret)
		return ret;

	/* Our GID entry is the one the packet was sent to. */
	match.gid_type = ib_network_to_gid_type(net_type);
	match.vlan_id = wc->wc_flags & IB_WC_WITH_VLAN ? wc->vlan_id : 0xffff;
	sgid_attr = rdma_find_gid_by_filter(dev, &dgid, port,
					    reply_gid_matches, &match);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	/* ... and the reply goes to the packet's source. */
	reply_set_grh(attr, &sgid, grh, sgid_attr);

	ret = roce_resolve_unicast_dmac(attr);
	if (ret)
		rdma_destroy_ah_attr(attr);
	return ret;
}

static int reply_attr_ib(struct ib_device *dev, u32 port,
			 const struct ib_wc *wc, const struct ib_grh *grh,
			 struct rdma_ah_attr *attr)
{
	const struct ib_gid_attr *sgid_attr;
	union ib_gid sgid, dgid;
	int ret;

	rdma_ah_set_dlid(attr, wc->slid);
	rdma_ah_set_path_bits(attr, wc->dlid_path_bits);

	if (!(wc->wc_flags & IB_WC_GRH))
		return 0;
	if (!grh)
		return -EINVAL;

	ret = ib_get_gids_from_rdma_hdr((const union rdma_network_hdr *)grh,
					RDMA_NETWORK_IB, &sgid, &dgid);
	if (ret)
		return ret;

	/* Packets to the SA's well-known GID are answered from GID 0. */
	if (dgid.global.interface_id == cpu_to_be64(IB_SA_WELL_KNOWN_GUID))
		sgid_attr = rdma_get_gid_attr(dev, port, 0);
	else
		sgid_attr = rdma_find_gid_by_port(dev, &dgid, IB_GID_TYPE_IB,
						  port, NULL);
	if (IS_ERR(sgid_attr))
		return PTR_ERR(sgid_attr);

	reply_set_grh(attr, &sgid, grh, sgid_attr);
	return 0;
}

/**
 * ib_init_ah_attr_from_wc() - build the address vector of a reply
 * @device: the device the packet arrived on
 * @port_num: the port it arrived on
 * @wc: its receive completion
 * @grh: the first 40 bytes of its receive buffer (GRH, IPv6 header, or
 *	IPv4 header in the last 20 bytes); may be NULL without IB_WC_GRH
 * @ah_attr: receives the vector back to the sender
 *
 * On RoCE the packet must carry a GRH; the local GID entry is the one the
 * packet was addressed to (same GID type and VLAN), and the destination
 * MAC is resolved (which may sleep).  On IB the vector addresses the
 * sender's LID, plus its GID when the packet had a GRH.
 *
 * On success @ah_attr may hold a GID reference: release it with
 * rdma_destroy_ah_attr().  On failure it holds none.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for an invalid port, -EPROTOTYPE for a RoCE packet
 * without GRH, the GID lookup's error (-ENOENT when no local GID
 * matches) or the address resolution's error.
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr)
{
	int (*build)(struct ib_device *dev, u32 port, const struct ib_wc *wc,
		     const struct ib_grh *grh, struct rdma_ah_attr *attr);

	might_sleep();

	memset(ah_attr, 0, sizeof(*ah_attr));
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_sl(ah_attr, wc->sl);
	rdma_ah_set_port_num(ah_attr, port_num);

	build = rdma_protocol_roce(device, port_num) ? reply_attr_roce :
						       reply_attr_ib;
	return build(device, port_num, wc, grh, ah_attr);
}
EXPORT_SYMBOL(ib_init_ah_attr_from_wc);

/**
 * ib_create_ah_from_wc() - create an address handle for a reply
 * @pd: protection domain of the AH
 * @wc: receive completion of the packet to answer
 * @grh: the first 40 bytes of its receive buffer
 * @port_num: the port it arrived on
 *
 * ib_init_ah_attr_from_wc() followed by a sleepable rdma_create_ah().
 *
 * Context: process context; sleeps.
 * Return: the AH, or the error of either step.
 */
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num)
{
	struct rdma_ah_attr reply;
	int ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh,
					  &reply);
	struct ib_ah *ah;

	/*
	 * The AH takes a GID reference of its own; the vector's goes (a
	 * vector that could not be built holds none).
	 */
	ah = ret ? ERR_PTR(ret) :
		   ah_create(pd, &reply, RDMA_CREATE_AH_SLEEPABLE, NULL);
	rdma_destroy_ah_attr(&reply);
	return ah;
}
EXPORT_SYMBOL(ib_create_ah_from_wc);

/* ---- shared receive queues ------------------------------------------------ */

/* Does @want exceed a device limit (an int of struct ib_device_attr)? */
static bool over_limit(u32 want, int limit)
{
	return want > (u32)max(limit, 0);
}

/*
 * Count the SRQ as a user (@delta 1) or no longer a user (-1) of its PD
 * and, for the SRQ types that have one, its CQ.
 */
static void srq_count_users(struct ib_srq *srq, int delta)
{
	atomic_add(delta, &srq->pd->usecnt);
	if (ib_srq_has_cq(srq->srq_type) && srq->ext.cq)
		atomic_add(delta, &srq->ext.cq->usecnt);
}

/**
 * ib_create_srq_user() - create a shared receive queue
 * @pd: protection domain of the SRQ
 * @srq_init_attr: requested attributes; attr.max_wr and attr.max_sge come
 *	back as allocated
 * @uobject: the uverbs object, or NULL for a kernel SRQ
 * @udata: the user's driver data, or NULL for a kernel SRQ
 *
 * Basic and tag-matching SRQs are supported; XRC SRQs need XRC domains,
 * which this core does not provide.  Kernel requests are checked against
 * the device's max_srq_wr and max_srq_sge.
 *
 * Context: process context; sleeps.
 * Return: the SRQ, or ERR_PTR(-EOPNOTSUPP) (no SRQs, or an XRC SRQ),
 * -EINVAL (unknown type, missing CQ of a tag-matching SRQ, sizes beyond
 * the device's limits), -ENOMEM or the provider's error.
 */
struct ib_srq *ib_create_srq_user(struct ib_pd *pd,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject,
				  struct ib_udata *udata)
{
	struct ib_device *dev = pd->device;
	enum ib_srq_type type = srq_init_attr->srq_type;
	struct ib_srq *srq;
	int ret;

	if (!dev->ops.create_srq || !dev->ops.destroy_srq)
		return ERR_PTR(-EOPNOTSUPP);
	if (type == IB_SRQT_XRC)
		return ERR_PTR(-EOPNOTSUPP);
	if (type != IB_SRQT_BASIC && type != IB_SRQT_TM)
		return ERR_PTR(-EINVAL);
	if (ib_srq_has_cq(type) && (!srq_init_attr->ext.cq ||
				    srq_init_attr->ext.cq->device != dev))
		return ERR_PTR(-EINVAL);
	if (!udata &&
	    (over_limit(srq_init_attr->attr.max_wr, dev->attrs.max_srq_wr) ||
	     over_limit(srq_init_attr->attr.max_sge, dev->attrs.max_srq_sge)))
		return ERR_PTR(-EINVAL);

	srq = verbs_obj_alloc(dev, ib_srq, GFP_KERNEL, false);
	if (!srq)
		return ERR_PTR(-ENOMEM);
	srq->srq_type = type;
	srq->pd = pd;
	srq->ext.cq = ib_srq_has_cq(type) ? srq_init_attr->ext.cq : NULL;
	srq->uobject = uobject;
	srq->srq_context = srq_init_attr->srq_context;
	srq->event_handler = srq_init_attr->event_handler;

	/* Listed under whoever owns the PD. */
	rdma_restrack_new(&srq->res, RDMA_RESTRACK_SRQ);
	rdma_restrack_parent_name(&srq->res, &pd->res);
	ret = dev->ops.create_srq(srq, srq_init_attr, udata);
	if (ret)
		return obj_create_failed(&srq->res, srq, ret);

	srq_count_users(srq, 1);
	rdma_restrack_add(&srq->res);
	return srq;
}
EXPORT_SYMBOL(ib_create_srq_user);

/**
 * ib_modify_srq_user() - resize a shared receive queue or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new max_wr and/or srq_limit
 * @srq_attr_mask: IB_SRQ_MAX_WR and/or IB_SRQ_LIMIT
 * @udata: the user's driver data, or NULL for a kernel SRQ
 *
 * Whether the SRQ can be resized is the provider's to say: one that
 * cannot refuses IB_SRQ_MAX_WR.
 *
 * Context: process context.
 * Return: 0, -EINVAL for unknown mask bits or a size beyond the device's
 * limit, -EOPNOTSUPP if the provider cannot modify SRQs, or its error.
 */
int ib_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		       enum ib_srq_attr_mask srq_attr_mask,
		       struct ib_udata *udata)
{
	struct ib_device *dev = srq->device;

	if (!dev->ops.modify_srq)
		return -EOPNOTSUPP;
	if (srq_attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT)) {
		ibdev_dbg(dev, "modify_srq: unknown attributes %#x\n",
			  srq_attr_mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT));
		return -EINVAL;
	}
	if ((srq_attr_mask & IB_SRQ_MAX_WR) &&
	    over_limit(srq_attr->max_wr, dev->attrs.max_srq_wr)) {
		ibdev_dbg(dev, "modify_srq: max_wr %u beyond the device's %d\n",
			  srq_attr->max_wr, dev->attrs.max_srq_wr);
		return -EINVAL;
	}
	return dev->ops.modify_srq(srq, srq_attr, srq_attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_srq_user);

/**
 * ib_modify_srq() - resize a kernel shared receive queue or arm its limit
 * @srq: the SRQ
 * @srq_attr: the new max_wr and/or srq_limit
 * @srq_attr_mask: IB_SRQ_MAX_WR and/or IB_SRQ_LIMIT
 *
 * Context: process context.
 * Return: as ib_modify_srq_user().
 */
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask)
{
	return ib_modify_srq_user(srq, srq_attr, srq_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_srq);

/**
 * ib_query_srq() - read the attributes of a shared receive queue
 * @srq: the SRQ
 * @srq_attr: receives max_wr, max_sge and srq_limit
 *
 * Return: 0, -EOPNOTSUPP if the provider cannot query SRQs, or its error.
 */
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr)
{
	return ib_core_call_opt(srq->device->ops.query_srq, srq, srq_attr);
}
EXPORT_SYMBOL(ib_query_srq);

/**
 * ib_destroy_srq_user() - destroy a shared receive queue
 * @srq: the SRQ
 * @udata: the user's driver data, or NULL for a kernel SRQ
 *
 * Context: process context; sleeps.
 * Return: 0, -EBUSY while QPs use the SRQ, or the provider's error (the
 * SRQ is then left as it was).
 */
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata)
{
	int ret;

	if (atomic_read(&srq->usecnt))
		return -EBUSY;

	ret = rdma_restrack_destroy(&srq->res,
				    srq->device->ops.destroy_srq(srq, udata));
	if (!ret) {
		srq_count_users(srq, -1);
		kfree(srq);
	}
	return ret;
}
EXPORT_SYMBOL(ib_destroy_srq_user);

/* ---- queue pairs ------------------------------------------------------------ */

/*
 * Every QP event passes through here first.  A QP on an SRQ cannot be
 * drained with a marker receive; drain_srq_generic() waits for its Last
 * WQE Reached event instead.  Then the creator gets the event.
 */
static void qp_event_relay(struct ib_event *event, void *context)
{
	struct ib_qp *qp = event->element.qp;

	if (qp->srq && event->event == IB_EVENT_QP_LAST_WQE_REACHED)
		complete(&qp->srq_completion);
	if (qp->registered_event_handler)
		qp->registered_event_handler(event, qp->qp_context);
}

static bool qp_type_is_connected(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC ||
	       type == IB_QPT_XRC_INI || type == IB_QPT_XRC_TGT;
}

/* Provider-internal QP types: the provider checks their attributes. */
static bool qp_type_is_private(enum ib_qp_type type)
{
	return type >= IB_QPT_RESERVED1 && type <= IB_QPT_RESERVED10;
}

/*
 * Can @dev make the QP a kernel user asks for?  Checked before anything
 * is allocated.
 */
static int qp_check_init_attr(struct ib_device *dev,
			      const struct ib_qp_init_attr *init)
{
	const struct ib_device_attr *lim = &dev->attrs;
	const struct ib_qp_cap *cap = &init->cap;

	if (!dev->ops.create_qp || !dev->ops.destroy_qp)
		return -EOPNOTSUPP;

	switch (init->qp_type) {
	case IB_QPT_SMI:
	case IB_QPT_GSI:
		if (!rdma_is_port_valid(dev, init->port_num))
			return -EINVAL;
		break;
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_RAW_IPV6:
	case IB_QPT_RAW_ETHERTYPE:
	case IB_QPT_RAW_PACKET:
	case IB_QPT_XRC_INI:
		break;
	case IB_QPT_XRC_TGT:
		/* Needs an XRC domain, which this core does not provide. */
		return -EOPNOTSUPP;
	default:
		if (qp_type_is_private(init->qp_type))
			return 0;
		return -EINVAL;
	}

	/* Not provided by this core: WQ indirection. */
	if (init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (init->xrcd)
		return -EINVAL;

	if (!init->send_cq || init->send_cq->device != dev)
		return -EINVAL;
	if (init->qp_type == IB_QPT_XRC_INI) {
		/* An initiator has no receive side. */
		if (init->srq)
			return -EINVAL;
	} else if (!init->recv_cq && !init->srq) {
		return -EINVAL;
	}
	if (init->recv_cq && init->recv_cq->device != dev)
		return -EINVAL;
	if (init->srq && init->srq->device != dev)
		return -EINVAL;

	if ((init->create_flags & IB_QP_CREATE_INTEGRITY_EN) &&
	    !(lim->kernel_cap_flags & IBK_INTEGRITY_HANDOVER))
		return -EINVAL;

	if (over_limit(cap->max_send_wr, lim->max_qp_wr) ||
	    over_limit(cap->max_send_sge, lim->max_send_sge))
		return -EINVAL;
	/* With an SRQ (or no receive side) the receive sizes are unused. */
	if (!init->srq && init->qp_type != IB_QPT_XRC_INI &&
	    (over_limit(cap->max_recv_wr, lim->max_qp_wr) ||
	     over_limit(cap->max_recv_sge, lim->max_recv_sge)))
		return -EINVAL;
	return 0;
}

/*
 * Count the QP as a user (@delta 1) or no longer a user (-1) of each
 * object it was created on: PD, send and receive CQ, SRQ.
 */
static void qp_count_users(struct ib_qp *qp, int delta)
{
	atomic_t *counts[] = {
		qp->pd ? &qp->pd->usecnt : NULL,
		qp->send_cq ? &qp->send_cq->usecnt : NULL,
		qp->recv_cq ? &qp->recv_cq->usecnt : NULL,
		qp->srq ? &qp->srq->usecnt : NULL,
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (counts[i])
			atomic_add(delta, counts[i]);
}

/* Point the QP at the objects it is created on. */
static void qp_link(struct ib_qp *qp, struct ib_pd *pd,
		    const struct ib_qp_init_attr *init)
{
	qp->pd = pd;
	qp->send_cq = init->send_cq;
	qp->recv_cq = init->recv_cq;
	qp->srq = init->srq;
}

/* The core's side of a QP before the provider sees it. */
static void qp_init_core(struct ib_qp *qp, struct ib_pd *pd,
			 const struct ib_qp_init_attr *init)
{
	qp->qp_type = init->qp_type;
	qp->port = init->port_num;
	qp_link(qp, pd, init);

	/* Not opened through ib_open_qp(): the QP is its own real QP. */
	qp->real_qp = qp;
	INIT_LIST_HEAD(&qp->open_list);
	INIT_LIST_HEAD(&qp->xrcd_list);

	/* The core sees every event first, for ib_drain_qp(). */
	qp->qp_context = init->qp_context;
	qp->registered_event_handler = init->event_handler;
	qp->event_handler = qp_event_relay;
	init_completion(&qp->srq_completion);

	/* The MR pools of ULPs. */
	spin_lock_init(&qp->mr_lock);
	INIT_LIST_HEAD(&qp->rdma_mrs);
	INIT_LIST_HEAD(&qp->sig_mrs);
}

/*
 * What ULPs read off a created QP: how many SGEs an RDMA WRITE and an RDMA
 * READ may carry, and whether signature offload is on.
 */
static void qp_take_caps(struct ib_qp *qp, const struct ib_qp_init_attr *init)
{
	u32 send_sge = init->cap.max_send_sge;

	qp->max_write_sge = send_sge;
	qp->max_read_sge = min_t(u32, send_sge,
				 max(qp->device->attrs.max_sge_rd, 0));
	qp->integrity_en = !!(init->create_flags & IB_QP_CREATE_INTEGRITY_EN);
}

/*
 * Both creators of QPs: a kernel user's (@udata NULL, @caller its module)
 * and uverbs' (@udata the command's driver data, @uobj its object, the
 * current task the owner).  The provider sees the QP already linked to
 * its user object; a failure leaves no count changed.
 */
static struct ib_qp *qp_create(struct ib_pd *pd, struct ib_qp_init_attr *init,
			       struct ib_udata *udata,
			       struct ib_uqp_object *uobj, const char *caller)
{
	struct ib_device *dev = pd->device;
	struct ib_qp *qp;
	int ret;

	/* R/W contexts post their requests on the send queue too. */
	if (init->cap.max_rdma_ctxs)
		rdma_rw_init_qp(dev, init);
	ret = qp_check_init_attr(dev, init);
	if (ret)
		return ERR_PTR(ret);

	qp = verbs_obj_alloc(dev, ib_qp, GFP_KERNEL, true);
	if (!qp)
		return ERR_PTR(-ENOMEM);
	qp_init_core(qp, pd, init);
	qp->uobject = uobj;

	obj_track(&qp->res, RDMA_RESTRACK_QP, caller);
	ret = dev->ops.create_qp(qp, init, udata);
	if (ret)
		return obj_create_failed(&qp->res, qp, ret);

	/* Some providers touch these during create; the request is what counts. */
	qp_link(qp, pd, init);
	qp_count_users(qp, 1);
	qp_take_caps(qp, init);

	rdma_restrack_add(&qp->res);
	if (init->cap.max_rdma_ctxs) {
		ret = rdma_rw_init_mrs(qp, init);
		if (ret) {
			WARN_ON_ONCE(ib_destroy_qp_user(qp, udata));
			return ERR_PTR(ret);
		}
	}
	return qp;
}

/**
 * ib_create_qp_kernel() - create a queue pair for a kernel user
 * @pd: protection domain of the QP
 * @qp_init_attr: requested attributes; cap comes back as allocated
 * @caller: module name of the owner (KBUILD_MODNAME), for resource tracking
 *
 * Normally called through ib_create_qp().  The request is checked first:
 * a known QP type, CQs (and SRQ) of the same device, a send CQ and a
 * receive CQ or SRQ where the type needs them, a valid port for QP0/QP1,
 * and queue sizes within the device's limits.  The new QP is in the RESET
 * state and counts as a user of its PD, CQs and SRQ.
 *
 * Context: process context; sleeps.
 * Return: the QP, or ERR_PTR(-EINVAL) for a bad request, -EOPNOTSUPP if
 * the device has no QPs or for what this core does not provide (XRC
 * target QPs, WQ indirection tables, integrity QPs with R/W contexts),
 * -ENOMEM, or the provider's error.  With cap.max_rdma_ctxs the send queue
 * grows for the R/W API's requests and, where transfers register memory,
 * the QP gets a pool of that many MRs (rdma_rw_init_qp(),
 * rdma_rw_init_mrs()).
 */
struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller)
{
	return qp_create(pd, qp_init_attr, NULL, NULL, caller);
}
EXPORT_SYMBOL(ib_create_qp_kernel);

/**
 * ib_create_qp_user() - create a queue pair for a user process
 * @pd: protection domain of the QP
 * @qp_init_attr: requested attributes, as for ib_create_qp_kernel(); the
 *	event handler and its context are the caller's (uverbs delivers the
 *	events to the process); cap comes back as allocated
 * @udata: the command's driver data, handed to the provider
 * @uobj: the user object the QP will belong to (qp->uobject)
 *
 * The checks, the counts on the PD, CQs and SRQ, and the resource
 * tracking (owned by the current task) are those of kernel QPs; the QP is
 * destroyed with ib_destroy_qp_user().
 *
 * Context: process context; sleeps.
 * Return: the QP, or the errors of ib_create_qp_kernel().
 */
struct ib_qp *ib_create_qp_user(struct ib_pd *pd,
				struct ib_qp_init_attr *qp_init_attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj)
{
	return qp_create(pd, qp_init_attr, udata, uobj, NULL);
}
EXPORT_SYMBOL(ib_create_qp_user);

/*
 * What a modify fills into the caller's attributes for the length of the
 * call, to be undone by qp_modify_undo(): the GID entries of the paths
 * (@filled says which; @av_own and @alt_own are what the caller had) and
 * the bond slave of the primary path.
 */
struct qp_modify_fill {
	int			filled;
	const struct ib_gid_attr *av_own;
	const struct ib_gid_attr *alt_own;
	struct net_device	*slave;
};

/*
 * The primary path: its GID entry, for connected RoCE QPs the destination
 * MAC (user callers only; kernel vectors come resolved) and the slave of
 * a bond.
 */
static int qp_fill_av(struct ib_qp *qp, struct ib_qp_attr *attr,
		      struct ib_udata *udata, struct qp_modify_fill *fill)
{
	struct rdma_ah_attr *av = &attr->ah_attr;
	const struct ib_gid_attr *own = attr_fill_sgid(qp->device, av);
	struct net_device *slave;
	int ret;

	if (IS_ERR(own))
		return PTR_ERR(own);
	fill->av_own = own;
	fill->filled |= IB_QP_AV;

	if (av->type != RDMA_AH_ATTR_TYPE_ROCE ||
	    !qp_type_is_connected(qp->qp_type))
		return 0;
	ret = udata ? roce_resolve_dmac(av) : 0;
	if (ret)
		return ret;
	slave = lag_xmit_slave(qp->device, av, GFP_KERNEL);
	if (IS_ERR(slave))
		return PTR_ERR(slave);
	fill->slave = slave;
	attr->xmit_slave = slave;
	return 0;
}

/* The alternate path, which exists (APM) on InfiniBand ports only. */
static int qp_fill_alt(struct ib_device *dev, struct ib_qp_attr *attr,
		       u32 port, struct qp_modify_fill *fill)
{
	struct rdma_ah_attr *alt = &attr->alt_ah_attr;
	const struct ib_gid_attr *own = attr_fill_sgid(dev, alt);

	if (IS_ERR(own))
		return PTR_ERR(own);
	fill->alt_own = own;
	fill->filled |= IB_QP_ALT_PATH;

	if (!rdma_is_port_valid(dev, port) || !rdma_protocol_ib(dev, port) ||
	    !rdma_protocol_ib(dev, alt->port_num))
		return -EINVAL;
	return 0;
}

/* Give the caller's attributes back what they had before the fill. */
static void qp_modify_undo(struct ib_qp_attr *attr,
			   struct qp_modify_fill *fill)
{
	if (fill->filled & IB_QP_ALT_PATH)
		attr_unfill_sgid(&attr->alt_ah_attr, fill->alt_own);
	if (fill->filled & IB_QP_AV) {
		dev_put(fill->slave);
		attr->xmit_slave = NULL;
		attr_unfill_sgid(&attr->ah_attr, fill->av_own);
	}
}

/* PSNs are 24 bits wide on IB and RoCE: mask a wider one, with a warning. */
static void qp_mask_psn(struct ib_device *dev, u32 *psn, const char *name)
{
	if (!(*psn & ~VERBS_PSN_MASK))
		return;
	ibdev_warn(dev, "%s %#x beyond 24 bits, masked\n", name, *psn);
	*psn &= VERBS_PSN_MASK;
}

/*
 * The modify verb proper, on the real QP.  Kernel callers (@udata NULL)
 * must pass resolved address vectors; user ones get their RoCE MAC
 * resolved for connected QPs.  The port and the path GID references of
 * the QP change only when the provider accepted the change; the caller's
 * vectors come back with the references they had.
 */
static int qp_modify(struct ib_qp *qp, struct ib_qp_attr *attr, int mask,
		     struct ib_udata *udata)
{
	struct ib_device *dev = qp->device;
	u32 port = mask & IB_QP_PORT ? attr->port_num : qp->port;
	struct qp_modify_fill fill = {};
	int ret = 0;

	if (!dev->ops.modify_qp)
		return -EOPNOTSUPP;
	if ((mask & IB_QP_PORT) && !rdma_is_port_valid(dev, attr->port_num))
		return -EINVAL;
	if ((mask & IB_QP_ALT_PATH) &&
	    !rdma_is_port_valid(dev, attr->alt_port_num))
		return -EINVAL;

	attr->xmit_slave = NULL;
	if (mask & IB_QP_AV)
		ret = qp_fill_av(qp, attr, udata, &fill);
	if (!ret && (mask & IB_QP_ALT_PATH))
		ret = qp_fill_alt(dev, attr, port, &fill);
	if (ret)
		goto undo;

	if (!rdma_is_port_valid(dev, port) || rdma_ib_or_roce(dev, port)) {
		if (mask & IB_QP_RQ_PSN)
			qp_mask_psn(dev, &attr->rq_psn, "rq_psn");
		if (mask & IB_QP_SQ_PSN)
			qp_mask_psn(dev, &attr->sq_psn, "sq_psn");
	}

	ret = dev->ops.modify_qp(qp, attr, mask, udata);
	if (!ret) {
		if (mask & IB_QP_PORT)
			qp->port = attr->port_num;
		if (fill.filled & IB_QP_AV)
			attr_keep_sgid(&qp->av_sgid_attr, &attr->ah_attr);
		if (fill.filled & IB_QP_ALT_PATH)
			attr_keep_sgid(&qp->alt_path_sgid_attr,
				       &attr->alt_ah_attr);
	}
undo:
	qp_modify_undo(attr, &fill);
	return ret;
}

/**
 * ib_modify_qp_with_udata() - modify a queue pair on behalf of user space
 * @qp: the QP (or an opened handle of it)
 * @attr: the attributes to change
 * @attr_mask: IB_QP_* bits naming the members of @attr that count
 * @udata: the user's driver data
 *
 * Like ib_modify_qp(), except that the RoCE destination MAC of the path of
 * a connected QP is resolved here (see rdma_create_user_ah()).  Whether
 * the state transition and mask are legal is for the provider to check
 * (ib_modify_qp_is_ok()).
 *
 * Context: process context; sleeps.
 * Return: as ib_modify_qp(), plus address resolution errors.
 */
int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int attr_mask, struct ib_udata *udata)
{
	return qp_modify(qp->real_qp, attr, attr_mask, udata);
}
EXPORT_SYMBOL(ib_modify_qp_with_udata);

/**
 * ib_modify_qp() - modify a kernel queue pair
 * @qp: the QP (or an opened handle of it)
 * @qp_attr: the attributes to change; address vectors must be resolved
 *	(RoCE destination MAC included)
 * @qp_attr_mask: IB_QP_* bits naming the members of @qp_attr that count
 *
 * Looks up the source GID entries of the primary and alternate paths, picks
 * the bond slave of a RoCE connected QP, masks PSNs to 24 bits (with a
 * warning) and calls the provider, which checks the transition.  On
 * success the QP keeps references on the GID entries of its paths.
 *
 * Context: process context; sleeps.
 * Return: 0, -EINVAL for an invalid port, an invalid address vector or an
 * alternate path on a port that is not InfiniBand, the GID lookup's error,
 * -EOPNOTSUPP if the provider cannot modify QPs, or its error.
 */
int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask)
{
	return qp_modify(qp->real_qp, qp_attr, qp_attr_mask, NULL);
}
EXPORT_SYMBOL(ib_modify_qp);

/**
 * ib_query_qp() - read the attributes of a queue pair
 * @qp: the QP (or an opened handle of it)
 * @qp_attr: receives the attributes
 * @qp_attr_mask: IB_QP_* bits of the attributes wanted (a hint; providers
 *	may fill more)
 * @qp_init_attr: receives the creation attributes
 *
 * The address vectors returned hold no GID references.
 *
 * Return: 0, -EOPNOTSUPP if the provider cannot query QPs, or its error.
 */
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr)
{
	qp_attr->ah_attr.grh.sgid_attr = NULL;
	qp_attr->alt_ah_attr.grh.sgid_attr = NULL;

	if (!qp->device->ops.query_qp)
		return -EOPNOTSUPP;
	return qp->device->ops.query_qp(qp->real_qp, qp_attr, qp_attr_mask,
					qp_init_attr);
}
EXPORT_SYMBOL(ib_query_qp);

/**
 * ib_open_qp() - open another handle on a shared XRC target queue pair
 * @xrcd: the XRC domain the QP belongs to
 * @qp_open_attr: the QP number, type and event handler of the handle
 *
 * This core has no XRC domains and so no XRC target QPs; no QP number can
 * be found.
 *
 * Return: ERR_PTR(-EINVAL): the type is not IB_QPT_XRC_TGT, or no such QP.
 */
struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd,
			 struct ib_qp_open_attr *qp_open_attr)
{
	if (!xrcd || qp_open_attr->qp_type != IB_QPT_XRC_TGT)
		return ERR_PTR(-EINVAL);
	/* No XRC target QP can exist here, so the number is never found. */
	return ERR_PTR(-EINVAL);
}
EXPORT_SYMBOL(ib_open_qp);

/**
 * ib_close_qp() - release a handle obtained with ib_open_qp()
 * @qp: the handle
 *
 * Context: process context.
 * Return: 0, or -EINVAL when @qp is a QP itself rather than a handle.
 */
int ib_close_qp(struct ib_qp *qp)
{
	struct ib_qp *real_qp = qp->real_qp;
	spinlock_t *lock = &real_qp->device->qp_open_list_lock;
	unsigned long flags;

	/* Handles are closed; a QP itself is destroyed. */
	if (real_qp == qp)
		return -EINVAL;

	spin_lock_irqsave(lock, flags);
	list_del(&qp->open_list);
	spin_unlock_irqrestore(lock, flags);
	atomic_dec(&real_qp->usecnt);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_close_qp);

/**
 * ib_destroy_qp_user() - destroy a queue pair
 * @qp: the QP, or a handle from ib_open_qp() (which is then closed)
 * @udata: the user's driver data, or NULL for a kernel QP
 *
 * Drops the QP's GID references and its use of the PD, CQs and SRQ once
 * the provider has destroyed it.
 *
 * Context: process context; sleeps.
 * Return: 0, -EBUSY while multicast groups or open handles still use the
 * QP, or the provider's error (the QP is then left as it was).
 */
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata)
{
	int ret;

	if (atomic_read(&qp->usecnt))
		return -EBUSY;
	if (qp->real_qp != qp)
		return ib_close_qp(qp);

	WARN_ON_ONCE(qp->mrs_used > 0);
	rdma_rw_cleanup_mrs(qp);

	ret = rdma_restrack_destroy(&qp->res,
				    qp->device->ops.destroy_qp(qp, udata));
	if (ret)
		return ret;

	/* Gone in the provider: drop the paths' GID entries and the users. */
	attr_keep_sgid(&qp->alt_path_sgid_attr, NULL);
	attr_keep_sgid(&qp->av_sgid_attr, NULL);
	qp_count_users(qp, -1);
	kfree(qp);
	return 0;
}
EXPORT_SYMBOL(ib_destroy_qp_user);

/* ---- draining ------------------------------------------------------------- */

/*
 * A marker request posted behind everything else on a queue of an errored
 * QP: once its flushed completion arrives, every earlier request has
 * completed too.
 */
struct drain_marker {
	struct ib_cqe		cqe;
	struct completion	flushed;
};

static void drain_marker_done(struct ib_cq *cq, struct ib_wc *wc)
{
	complete(&container_of(wc->wr_cqe, struct drain_marker, cqe)->flushed);
}

/* Wait for the marker; a direct CQ has to be polled by us meanwhile. */
static void drain_marker_wait(struct ib_cq *cq, struct drain_marker *m)
{
	if (cq->poll_ctx == IB_POLL_DIRECT) {
		while (!wait_for_completion_timeout(&m->flushed, HZ / 10))
			ib_process_cq_direct(cq, -1);
	} else {
		wait_for_completion(&m->flushed);
	}
}

static int drain_to_error(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };

	return ib_modify_qp(qp, &attr, IB_QP_STATE);
}

/* Error the QP, post a marker on one queue and wait until it flushes out. */
static void drain_queue_generic(struct ib_qp *qp, bool send_queue)
{
	struct drain_marker m = { .cqe.done = drain_marker_done };
	struct ib_rdma_wr send = {
		.wr.wr_cqe	= &m.cqe,
		.wr.opcode	= IB_WR_RDMA_WRITE,
	};
	struct ib_recv_wr recv = { .wr_cqe = &m.cqe };
	int ret;

	init_completion(&m.flushed);
	ret = drain_to_error(qp);
	if (!ret)
		ret = send_queue ? ib_post_send(qp, &send.wr, NULL) :
				   ib_post_recv(qp, &recv, NULL);
	if (WARN_ONCE(ret, "draining the %s queue of QP %#x failed: %d\n",
		      send_queue ? "send" : "receive", qp->qp_num, ret))
		return;
	drain_marker_wait(send_queue ? qp->send_cq : qp->recv_cq, &m);
}

static void drain_sq_generic(struct ib_qp *qp)
{
	drain_queue_generic(qp, true);
}

static void drain_rq_generic(struct ib_qp *qp)
{
	drain_queue_generic(qp, false);
}

/*
 * A QP on an SRQ cannot post a marker receive: wait for its Last WQE
 * Reached event instead, then reap what its CQ holds, one CQ's worth at
 * most.
 */
static void drain_srq_generic(struct ib_qp *qp)
{
	struct ib_srq *srq = qp->srq;
	struct ib_cq *cq = ib_srq_has_cq(srq->srq_type) ? srq->ext.cq :
							 qp->recv_cq;
	int left, n, ret;

	ret = drain_to_error(qp);
	if (WARN_ONCE(ret, "draining SRQ QP %#x failed: %d\n", qp->qp_num,
		      ret))
		return;
	if (WARN_ONCE(!cq, "draining SRQ QP %#x: no CQ\n", qp->qp_num))
		return;
	if (!wait_for_completion_timeout(&qp->srq_completion,
					 VERBS_SRQ_DRAIN_TIMEOUT))
		return;

	for (left = cq->cqe; left > 0; left -= n) {
		n = ib_process_cq_direct(cq, left);
		if (!n)
			break;
	}
}

/**
 * ib_drain_sq() - wait until every posted send request has completed
 * @qp: the QP
 *
 * Moves the QP to the error state, posts a marker request and waits for
 * its (flushed) completion, which comes after every earlier one.  The
 * provider's own drain_sq is used when it has one.  The caller must leave
 * room for the marker in the send queue and CQ, must not post concurrently
 * and should use a CQ from ib_alloc_cq().
 *
 * Context: process context; sleeps.
 */
void ib_drain_sq(struct ib_qp *qp)
{
	void (*drain)(struct ib_qp *qp) = qp->device->ops.drain_sq ?:
					  drain_sq_generic;

	drain(qp);
}
EXPORT_SYMBOL(ib_drain_sq);

/**
 * ib_drain_rq() - wait until every posted receive request has completed
 * @qp: the QP
 *
 * As ib_drain_sq(), for the receive queue.
 *
 * Context: process context; sleeps.
 */
void ib_drain_rq(struct ib_qp *qp)
{
	void (*drain)(struct ib_qp *qp) = qp->device->ops.drain_rq ?:
					  drain_rq_generic;

	drain(qp);
}
EXPORT_SYMBOL(ib_drain_rq);

/**
 * ib_drain_qp() - wait until every posted request of a QP has completed
 * @qp: the QP
 *
 * Drains the send queue, then the receive queue; a QP on an SRQ waits for
 * its Last WQE Reached event (for up to a minute) and reaps its CQ.
 *
 * Context: process context; sleeps.
 */
void ib_drain_qp(struct ib_qp *qp)
{
	ib_drain_sq(qp);
	if (qp->srq)
		drain_srq_generic(qp);
	else
		ib_drain_rq(qp);
}
EXPORT_SYMBOL(ib_drain_qp);

/* ---- memory regions --------------------------------------------------------- */

/* List an MR in restrack, owned by whoever owns its PD. */
static void mr_track(struct ib_mr *mr)
{
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_parent_name(&mr->res, &mr->pd->res);
	rdma_restrack_add(&mr->res);
}

/*
 * Take over an MR a provider returned for a kernel user, or pass its error
 * on: bind it to @pd, count and list it.  @sig_attrs becomes the MR's, or
 * is freed along with a failed MR.
 */
static struct ib_mr *mr_adopt(struct ib_mr *mr, struct ib_pd *pd,
			      enum ib_mr_type type,
			      struct ib_sig_attrs *sig_attrs)
{
	if (IS_ERR(mr)) {
		kfree(sig_attrs);
		return mr;
	}

	mr_bind(mr, pd, type);
	mr->sig_attrs = sig_attrs;
	atomic_inc(&pd->usecnt);
	mr_track(mr);
	return mr;
}

/**
 * ib_alloc_mr() - allocate a memory region for fast registration
 * @pd: protection domain of the MR
 * @mr_type: IB_MR_TYPE_MEM_REG, or IB_MR_TYPE_SG_GAPS on devices with
 *	IBK_SG_GAPS_REG (any other type the provider accepts)
 * @max_num_sg: the most SG entries (pages for MEM_REG) a registration may
 *	use
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-EOPNOTSUPP) if the provider has no
 * fast-registration MRs, -EINVAL (with a warning) for
 * IB_MR_TYPE_INTEGRITY, which needs ib_alloc_mr_integrity(), or the
 * provider's error.
 */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg)
{
	const struct ib_device_ops *ops = &pd->device->ops;

	if (!ops->alloc_mr || !ops->dereg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	/* Those need their signature attributes: ib_alloc_mr_integrity(). */
	if (WARN_ON_ONCE(mr_type == IB_MR_TYPE_INTEGRITY))
		return ERR_PTR(-EINVAL);

	return mr_adopt(ops->alloc_mr(pd, mr_type, max_num_sg), pd, mr_type,
			NULL);
}
EXPORT_SYMBOL(ib_alloc_mr);

/**
 * ib_alloc_mr_integrity() - allocate a signature (T10-PI) memory region
 * @pd: protection domain of the MR
 * @max_num_data_sg: the most data SG entries a registration may use
 * @max_num_meta_sg: the most metadata SG entries; must not be 0
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-EOPNOTSUPP) if the provider has no
 * integrity MRs, -EINVAL for @max_num_meta_sg 0, -ENOMEM, or the
 * provider's error.
 */
struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
				    u32 max_num_meta_sg)
{
	const struct ib_device_ops *ops = &pd->device->ops;
	struct ib_sig_attrs *sig_attrs;

	if (!ops->alloc_mr_integrity || !ops->map_mr_sg_pi || !ops->dereg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_meta_sg)
		return ERR_PTR(-EINVAL);

	sig_attrs = kzalloc(sizeof(*sig_attrs), GFP_KERNEL);
	if (!sig_attrs)
		return ERR_PTR(-ENOMEM);
	return mr_adopt(ops->alloc_mr_integrity(pd, max_num_data_sg,
						max_num_meta_sg),
			pd, IB_MR_TYPE_INTEGRITY, sig_attrs);
}
EXPORT_SYMBOL(ib_alloc_mr_integrity);

/**
 * ib_reg_user_mr() - register user memory for a kernel user
 * @pd: protection domain of the MR
 * @start: start of the user virtual range
 * @length: its length
 * @virt_addr: the address the MR is to be addressed with
 * @mr_access_flags: IB_ACCESS_* rights
 *
 * For kernel ULPs that register memory of the current process (no udata
 * is passed to the provider).
 *
 * Context: process context; sleeps.
 * Return: the MR, or ERR_PTR(-EINVAL) for on-demand paging on a device
 * without it, -EOPNOTSUPP if the provider cannot register user memory, or
 * its error.
 */
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			     u64 virt_addr, int mr_access_flags)
{
	struct ib_device *dev = pd->device;
	struct ib_mr *mr;

	if (!dev->ops.reg_user_mr || !dev->ops.dereg_mr)
		return ERR_PTR(-EOPNOTSUPP);
	if ((mr_access_flags & IB_ACCESS_ON_DEMAND) &&
	    !(dev->attrs.kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		return ERR_PTR(-EINVAL);

	mr = dev->ops.reg_user_mr(pd, start, length, virt_addr,
				  mr_access_flags, NULL);
	if (!IS_ERR(mr)) {
		mr->iova = virt_addr;
		mr->length = length;
	}
	return mr_adopt(mr, pd, IB_MR_TYPE_USER, NULL);
}
EXPORT_SYMBOL(ib_reg_user_mr);

/**
 * ib_advise_mr() - tell the provider how memory is about to be used
 * @pd: protection domain of the MRs
 * @advice: what to do (e.g. prefetch for on-demand paging MRs)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_* bits
 * @sg_list: the ranges, addressed by lkey
 * @num_sge: entries in @sg_list; 0 is a no-op
 *
 * Return: 0, -EOPNOTSUPP if the provider takes no advice, or its error.
 */
int ib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		 u32 flags, struct ib_sge *sg_list, u32 num_sge)
{
	/* Advice on no memory at all is fine, to a device that takes advice. */
	if (!num_sge && pd->device->ops.advise_mr)
		return 0;
	return ib_core_call_opt(pd->device->ops.advise_mr, pd, advice, flags,
				sg_list, num_sge, NULL);
}
EXPORT_SYMBOL(ib_advise_mr);

/**
 * ib_dereg_mr_user() - deregister a memory region
 * @mr: the MR
 * @udata: the user's driver data, or NULL for a kernel MR
 *
 * Once the provider has released the MR it no longer counts on its PD and
 * its signature attributes are freed.  If the provider refuses (memory
 * windows still bound, say), the MR stays registered and is listed again
 * (with a new restrack id).
 *
 * Context: process context; sleeps.
 * Return: 0, or the provider's error.
 */
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata)
{
	struct ib_sig_attrs *sig_attrs = mr->sig_attrs;
	struct ib_pd *pd = mr->pd;
	int ret;

	/*
	 * The provider frees the MR itself, so the entry must be gone, and
	 * every netlink reader with it, before it is called.
	 */
	rdma_restrack_del(&mr->res);
	ret = mr->device->ops.dereg_mr(mr, udata);
	if (ret) {
		/* Still registered: list it again (under a new id). */
		mr_track(mr);
		return ret;
	}

	atomic_dec(&pd->usecnt);
	kfree(sig_attrs);
	return 0;
}
EXPORT_SYMBOL(ib_dereg_mr_user);

/**
 * ib_map_mr_sg() - map a DMA-mapped scatterlist into a fast-registration MR
 * @mr: the MR
 * @sg: the scatterlist
 * @sg_nents: entries in @sg
 * @sg_offset: byte offset into the first entry, or NULL for 0; on return
 *	the offset into the first entry not mapped
 * @page_size: page size of the registration
 *
 * The provider maps the largest prefix of @sg it can: the first entry may
 * start anywhere, later ones must start on a page boundary and earlier
 * ones end on one (IB_MR_TYPE_SG_GAPS MRs take any list), and no more
 * pages than the MR was allocated for.  The MR is then ready to be posted
 * in an IB_WR_REG_MR.
 *
 * Return: the number of entries mapped, or a negative errno
 * (-EOPNOTSUPP if the provider has no fast registration).
 */
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size)
{
	int (*map)(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		   unsigned int *sg_offset) = mr->device->ops.map_mr_sg;

	if (unlikely(!map))
		return -EOPNOTSUPP;
	mr->page_size = page_size;
	return map(mr, sg, sg_nents, sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg);

/**
 * ib_map_mr_sg_pi() - map data and protection information into an MR
 * @mr: an IB_MR_TYPE_INTEGRITY MR
 * @data_sg: DMA-mapped scatterlist of the data
 * @data_sg_nents: entries in @data_sg
 * @data_sg_offset: byte offset into the first data entry, or NULL
 * @meta_sg: DMA-mapped scatterlist of the protection information, or NULL
 * @meta_sg_nents: entries in @meta_sg
 * @meta_sg_offset: byte offset into the first metadata entry, or NULL
 * @page_size: page size of the registration
 *
 * Return: 0 once everything is mapped, -EOPNOTSUPP (with a warning for a
 * wrong MR type), or the provider's error.
 */
int ib_map_mr_sg_pi(struct ib_mr *mr, struct scatterlist *data_sg,
		    int data_sg_nents, unsigned int *data_sg_offset,
		    struct scatterlist *meta_sg, int meta_sg_nents,
		    unsigned int *meta_sg_offset, unsigned int page_size)
{
	const struct ib_device_ops *ops = &mr->device->ops;

	if (unlikely(!ops->map_mr_sg_pi))
		return -EOPNOTSUPP;
	/* Data and protection information go to integrity MRs only. */
	if (WARN_ON_ONCE(mr->type != IB_MR_TYPE_INTEGRITY))
		return -EOPNOTSUPP;
	mr->page_size = page_size;
	return ops->map_mr_sg_pi(mr, data_sg, data_sg_nents, data_sg_offset,
				 meta_sg, meta_sg_nents, meta_sg_offset);
}
EXPORT_SYMBOL(ib_map_mr_sg_pi);

/**
 * ib_sg_to_pages() - turn the mappable prefix of a scatterlist into pages
 * @mr: the MR; mr->page_size (a power of two) is the page size
 * @sgl: DMA-mapped scatterlist
 * @sg_nents: entries in @sgl
 * @sg_offset: byte offset into the first entry, or NULL for 0; on return
 *	the offset, into entry number <return value>, of the first byte not
 *	mapped (0 when the prefix ended on an entry boundary)
 * @set_page: the provider's callback, called with each page address in
 *	order; a negative return means the page list is full
 *
 * A helper for providers' map_mr_sg.  The prefix ends at the first gap: an
 * entry that neither starts on a page boundary after one that ended on a
 * page boundary, nor continues the previous entry byte for byte.  Adjacent
 * entries sharing a page use that page once.  mr->iova is set to the first
 * mapped byte and mr->length to the number of bytes mapped.
 *
 * Return: the number of entries mapped completely, or a negative errno:
 * -EINVAL for no entries, an offset beyond the first entry or a bad page
 * size, or @set_page's error when not even the first page could be set.
 */
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset,
		   int (*set_page)(struct ib_mr *mr, u64 addr))
{
	unsigned int offset = sg_offset ? *sg_offset : 0;
	u64 page_size = mr->page_size;
	u64 page_mask = ~(page_size - 1);
	u64 prev_end = 0;
	struct scatterlist *sg;
	int i, ret;

	if (unlikely(sg_nents <= 0 || !is_power_of_2(page_size) ||
		     offset > sg_dma_len(&sgl[0])))
		return -EINVAL;

	mr->iova = sg_dma_address(&sgl[0]) + offset;
	mr->length = 0;

	for_each_sg(sgl, sg, sg_nents, i) {
		u64 base = sg_dma_address(sg);
		u64 start = base + offset;
		u64 end = base + sg_dma_len(sg);
		u64 next = start & page_mask;	/* next page to hand out */
		u64 covered = start;		/* entry bytes in pages set */
		bool first = !i;		/* entry 0 always names a page */

		if (i && ((prev_end & ~page_mask) || next != start)) {
			/*
			 * Unaligned on either side: only a byte-exact
			 * continuation may go on, sharing the last page.
			 */
			if (start != prev_end)
				break;
			next += page_size;
			covered = min(end, next);
		}

		while (next < end || first) {
			ret = set_page(mr, next);
			if (unlikely(ret < 0)) {
				mr->length += covered - start;
				if (sg_offset)
					*sg_offset = covered - base;
				/* Nothing mapped at all: report the error. */
				if (!i && covered == start)
					return ret;
				return i;
			}
			first = false;
			next += page_size;
			covered = min(end, next);
		}

		mr->length += end - start;
		prev_end = end;
		offset = 0;
	}

	if (sg_offset)
		*sg_offset = 0;
	return i;
}
EXPORT_SYMBOL(ib_sg_to_pages);

/**
 * ib_check_mr_status() - read the outcome of an MR's signature checks
 * @mr: an integrity MR
 * @check_mask: IB_MR_CHECK_* bits of the checks of interest
 * @mr_status: receives the failed checks and the signature error
 *
 * Return: 0, -EOPNOTSUPP if the provider has no signature offload, or its
 * error.
 */
int ib_check_mr_status(struct ib_mr *mr, u32 check_mask,
		       struct ib_mr_status *mr_status)
{
	return ib_core_call_opt(mr->device->ops.check_mr_status, mr, check_mask,
				mr_status);
}
EXPORT_SYMBOL(ib_check_mr_status);

/* ---- multicast ----------------------------------------------------------- */

/*
 * A multicast LID is only checked when every port is InfiniBand: RoCE
 * ignores LIDs, and which port a QP will use is not known yet.
 */
static bool mcast_lid_valid(struct ib_device *dev, u16 lid)
{
	u32 port;

	rdma_for_each_port(dev, port)
		if (!rdma_protocol_ib(dev, port))
			return true;
	return lid >= be16_to_cpu(IB_MULTICAST_LID_BASE) &&
	       lid != be16_to_cpu(IB_LID_PERMISSIVE);
}

static int mcast_check(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	if (!rdma_is_multicast_addr((struct in6_addr *)gid->raw))
		return -EINVAL;
	if (qp->qp_type != IB_QPT_UD)
		return -EINVAL;
	if (!mcast_lid_valid(qp->device, lid))
		return -EINVAL;
	return 0;
}

/*
 * Attach @qp to a group or detach it: the provider does it, the core
 * counts attachments in qp->usecnt so that an attached QP is not
 * destroyed.
 */
static int mcast_change(struct ib_qp *qp, union ib_gid *gid, u16 lid,
			bool attach)
{
	const struct ib_device_ops *ops = &qp->device->ops;
	int (*change)(struct ib_qp *qp, union ib_gid *gid, u16 lid) =
		attach ? ops->attach_mcast : ops->detach_mcast;
	int ret;

	if (!change)
		return -EOPNOTSUPP;
	ret = mcast_check(qp, gid, lid);
	if (!ret)
		ret = change(qp, gid, lid);
	if (!ret)
		atomic_add(attach ? 1 : -1, &qp->usecnt);
	return ret;
}

/**
 * ib_attach_mcast() - let a UD queue pair receive a multicast group
 * @qp: a UD QP
 * @gid: the group's GID (ff00::/8, or IPv4-mapped 224.0.0.0/4)
 * @lid: the group's LID, host order (ignored unless all ports are IB)
 *
 * The group must exist in the fabric already (an SA join on IB).  While
 * attached, the QP cannot be destroyed.
 *
 * Return: 0, -EOPNOTSUPP if the provider has no multicast, -EINVAL for a
 * GID that is not multicast, a QP that is not UD or an invalid LID, or the
 * provider's error.
 */
int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	return mcast_change(qp, gid, lid, true);
}
EXPORT_SYMBOL(ib_attach_mcast);

/**
 * ib_detach_mcast() - stop a UD queue pair receiving a multicast group
 * @qp: the QP
 * @gid: the group's GID
 * @lid: the group's LID, host order
 *
 * Return: 0, or the errors of ib_attach_mcast().
 */
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid)
{
	return mcast_change(qp, gid, lid, false);
}
EXPORT_SYMBOL(ib_detach_mcast);
