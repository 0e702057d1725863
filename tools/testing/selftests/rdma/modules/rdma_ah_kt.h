/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address-handle helpers shared by the KTAP suites that test the AH
 * contract, on rdma_mock (rdma_core_test) and on a real rxe device
 * (rdma_rxe_ah_test, rdma_rxe_ah_stress_test): GIDs from IP addresses,
 * creating and destroying an AH in a given calling context, and the
 * receive completion plus network header a reply AH is made from.
 * Header-only, so that it adds no module dependency.
 */
#ifndef RDMA_AH_KT_H
#define RDMA_AH_KT_H

#include <linux/bottom_half.h>
#include <linux/err.h>
#include <linux/hardirq.h>
#include <linux/ip.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <rdma/ib_verbs.h>

static inline void rdma_kt_gid_v4(union ib_gid *gid, __be32 addr)
{
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)gid);
}

static inline void rdma_kt_gid_v6(union ib_gid *gid,
				  const struct in6_addr *addr)
{
	memcpy(gid->raw, addr, sizeof(gid->raw));
}

/*
 * The calling contexts rdma_create_ah() must work in: process context with
 * RDMA_CREATE_AH_SLEEPABLE, and flags 0 with bottom halves off or under a
 * spinlock with interrupts off.
 */
enum rdma_kt_ah_ctx {
	RDMA_KT_AH_SLEEPABLE,
	RDMA_KT_AH_BH,
	RDMA_KT_AH_IRQSAVE,
	RDMA_KT_AH_NR_CTX,
};

static inline const char *rdma_kt_ah_ctx_name(enum rdma_kt_ah_ctx how)
{
	switch (how) {
	case RDMA_KT_AH_SLEEPABLE:
		return "sleepable";
	case RDMA_KT_AH_BH:
		return "bh-off";
	case RDMA_KT_AH_IRQSAVE:
		return "irqsave";
	default:
		return "?";
	}
}

static DEFINE_SPINLOCK(rdma_kt_ah_lock);

/*
 * Create an AH with flags 0 (and, if @destroy, destroy it again) in the
 * atomic context the caller set up; *@kept tells whether that context
 * (preempt count, and interrupts off if @irqs) survived the create.
 */
static inline struct ib_ah *__rdma_kt_ah_atomic(struct ib_pd *pd,
						struct rdma_ah_attr *attr,
						bool irqs, bool destroy,
						bool *kept)
{
	unsigned int pc = preempt_count();
	struct ib_ah *ah;

	ah = rdma_create_ah(pd, attr, 0);
	*kept = preempt_count() == pc && (!irqs || irqs_disabled());
	if (destroy && !IS_ERR(ah)) {
		rdma_destroy_ah(ah, 0);
		ah = NULL;
	}
	return ah;
}

/*
 * Create an AH on @pd in the context @how and, if @destroy, destroy it again
 * in the same context.  *@ctx_kept (if not NULL) tells whether the context
 * was still the same (preempt count, interrupts off) after the create, i.e.
 * whether the core and the provider neither slept nor re-enabled anything.
 * Returns the AH (NULL once destroyed) or an ERR_PTR.
 */
static inline struct ib_ah *rdma_kt_ah_in_ctx(struct ib_pd *pd,
					      struct rdma_ah_attr *attr,
					      enum rdma_kt_ah_ctx how,
					      bool destroy, bool *ctx_kept)
{
	unsigned long flags;
	struct ib_ah *ah;
	bool kept = true;

	switch (how) {
	case RDMA_KT_AH_BH:
		local_bh_disable();
		ah = __rdma_kt_ah_atomic(pd, attr, false, destroy, &kept);
		local_bh_enable();
		break;
	case RDMA_KT_AH_IRQSAVE:
		spin_lock_irqsave(&rdma_kt_ah_lock, flags);
		ah = __rdma_kt_ah_atomic(pd, attr, true, destroy, &kept);
		spin_unlock_irqrestore(&rdma_kt_ah_lock, flags);
		break;
	default:
		ah = rdma_create_ah(pd, attr, RDMA_CREATE_AH_SLEEPABLE);
		if (destroy && !IS_ERR(ah)) {
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
			ah = NULL;
		}
		break;
	}
	if (ctx_kept)
		*ctx_kept = kept;
	return ah;
}

/* Destroy @ah in the context @how (flags 0 unless sleepable). */
static inline void rdma_kt_ah_destroy_in_ctx(struct ib_ah *ah,
					     enum rdma_kt_ah_ctx how)
{
	unsigned long flags;

	switch (how) {
	case RDMA_KT_AH_BH:
		local_bh_disable();
		rdma_destroy_ah(ah, 0);
		local_bh_enable();
		break;
	case RDMA_KT_AH_IRQSAVE:
		spin_lock_irqsave(&rdma_kt_ah_lock, flags);
		rdma_destroy_ah(ah, 0);
		spin_unlock_irqrestore(&rdma_kt_ah_lock, flags);
		break;
	default:
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		break;
	}
}

/* ---- a received datagram, as ib_create_ah_from_wc() sees it ------------ */

static inline void rdma_kt_wc_init(struct ib_wc *wc, struct ib_qp *qp)
{
	memset(wc, 0, sizeof(*wc));
	wc->status = IB_WC_SUCCESS;
	wc->opcode = IB_WC_RECV;
	wc->src_qp = 0x22;
	wc->sl = 2;
	wc->wc_flags = IB_WC_GRH;
	wc->qp = qp;
}

/* The 40-byte network header area of a RoCE v2 datagram over IPv4. */
static inline void rdma_kt_hdr_ipv4(union rdma_network_hdr *hdr, __be32 saddr,
				    __be32 daddr)
{
	struct iphdr *ip = &hdr->roce4grh;

	memset(hdr, 0, sizeof(*hdr));
	ip->version = 4;
	ip->ihl = 5;
	ip->tos = 0;
	ip->tot_len = htons(20 + 8 + 12 + 256);
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->saddr = saddr;
	ip->daddr = daddr;
	ip->check = ip_fast_csum((u8 *)ip, ip->ihl);
}

/* The same over IPv6, with a traffic class and a flow label. */
static inline void rdma_kt_hdr_ipv6(union rdma_network_hdr *hdr,
				    const struct in6_addr *s,
				    const struct in6_addr *d, u8 tclass,
				    u32 flow)
{
	struct ib_grh *grh = &hdr->ibgrh;

	memset(hdr, 0, sizeof(*hdr));
	grh->version_tclass_flow = htonl(6u << 28 | (u32)tclass << 20 | flow);
	grh->paylen = htons(8 + 12 + 256);
	grh->next_hdr = IPPROTO_UDP;
	grh->hop_limit = 64;
	memcpy(grh->sgid.raw, s, 16);
	memcpy(grh->dgid.raw, d, 16);
}

#endif /* RDMA_AH_KT_H */
