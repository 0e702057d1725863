// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the exported RDMA core helpers the other suites leave
 * alone: the P_Key and port caches, GID table walks and references, RoCE
 * destination MAC resolution, CQ moderation and resizing, the ways to
 * unregister a device, port speeds, hardware counter blocks, resource
 * tracking, drains, CQ pools, virtual DMA and the message helpers.
 *
 * Every case builds its own rdma_mock device (on the module's throw-away
 * netdev unless it needs none) and takes everything down again.
 */
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include "rdma_ktap.h"
#include "rdma_mock.h"
#include "rdma_mock_fx.h"

#define AT_WAIT_MS		3000
/* Default IPv4 TTL of a fresh namespace: the hop limit a route gives. */
#define AT_ROUTE_HOP_LIMIT	64
/* PortInfo:CapabilityMask bits (IBA 14.2.5.6). */
#define AT_CAP_SM		BIT(1)
#define AT_CAP_CM_SUP		BIT(16)
/* A provider id no other device in the test guest uses. */
#define AT_DRIVER_ID		RDMA_DRIVER_VMW_PVRDMA

static struct net_device *at_ndev;
static const u8 at_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0b, 0x00, 0x01 };
static const u8 at_peer_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0b, 0x00, 0x02 };

/* 10.11.0.1/24 on the netdev; 10.11.0.2 is the peer. */
#define AT_ADDR4	htonl(0x0a0b0001)
#define AT_PEER4	htonl(0x0a0b0002)

/* ---- GID helpers ------------------------------------------------------- */

static void gid_default(union ib_gid *gid)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xfe;
	gid->raw[1] = 0x80;
	addrconf_addr_eui48(&gid->raw[8], at_mac);
}

static void gid_v4(union ib_gid *gid, __be32 addr)
{
	ipv6_addr_set_v4mapped(addr, (struct in6_addr *)gid);
}

static bool addr4(struct rdma_ktap_ctx *ctx, bool add)
{
	int ret = rdma_mock_addr4(at_ndev, add, AT_ADDR4, 24);

	return RDMA_KT_EXPECT(ctx, !ret, "%s 10.11.0.1/24: %d",
			      add ? "adding" : "removing", ret);
}

/* Remove whatever a case may have left, ignoring "not there". */
static void addr_cleanup(void)
{
	rdma_mock_addr4(at_ndev, false, AT_ADDR4, 24);
	rdma_mock_neigh4(at_ndev, false, AT_PEER4, NULL);
}

/* ---- a registered device on the netdev with a PD ----------------------- */

static bool fx_init(struct rdma_ktap_ctx *ctx, struct rdma_mock_fx *fx,
		    const struct rdma_mock_opts *opts)
{
	return rdma_mock_fx_init(ctx, fx, at_ndev, opts, AT_WAIT_MS);
}

static struct ib_qp *qp_create(struct rdma_mock_fx *fx, enum ib_qp_type type,
			       struct ib_cq *cq)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.qp_type = type,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 16,
			.max_recv_wr = 16,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ib_create_qp(fx->pd, &init);
}

static enum ib_qp_state qp_state(struct ib_qp *qp)
{
	struct ib_qp_init_attr init;
	struct ib_qp_attr attr;

	if (ib_query_qp(qp, &attr, IB_QP_STATE, &init))
		return (enum ib_qp_state)-1;
	return attr.qp_state;
}

/* RESET -> INIT for an RC QP, through ib_modify_qp_with_udata(). */
static int rc_to_init(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_INIT, .port_num = 1 };

	return ib_modify_qp_with_udata(qp, &attr, IB_QP_STATE |
				       IB_QP_PKEY_INDEX | IB_QP_PORT |
				       IB_QP_ACCESS_FLAGS, NULL);
}

/* Is a device of that name registered (and not going away)? */
static bool dev_present(const char *name)
{
	struct ib_device *dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);

	if (!dev)
		return false;
	ib_device_put(dev);
	return true;
}

/* ---- caches ------------------------------------------------------------ */

/* The mock's one-entry P_Key table holds the full-member default 0xffff. */
static void cache_pkey(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_fx fx;
	u16 pkey = 0, index;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EQ(ctx, ib_get_cached_pkey(fx.dev, 1, 0, &pkey), 0);
	RDMA_KT_EQ(ctx, pkey, 0xffff);
	RDMA_KT_EQ(ctx, ib_get_cached_pkey(fx.dev, 1, 1, &pkey), -EINVAL);
	RDMA_KT_EQ(ctx, ib_get_cached_pkey(fx.dev, 1, -1, &pkey), -EINVAL);
	RDMA_KT_EQ(ctx, ib_get_cached_pkey(fx.dev, 2, 0, &pkey), -EINVAL);

	/* Matching on the 15 key bits finds the full member. */
	index = 0x55;
	RDMA_KT_EQ(ctx, ib_find_cached_pkey(fx.dev, 1, 0x7fff, &index), 0);
	RDMA_KT_EQ(ctx, index, 0);
	index = 0x55;
	RDMA_KT_EQ(ctx, ib_find_cached_pkey(fx.dev, 1, 0x1234, &index),
		   -ENOENT);
	RDMA_KT_EQ(ctx, index, 0x55);
	RDMA_KT_EQ(ctx, ib_find_cached_pkey(fx.dev, 0, 0xffff, &index),
		   -EINVAL);

	/* The exact lookup wants the membership bit too. */
	index = 0x55;
	RDMA_KT_EQ(ctx, ib_find_exact_cached_pkey(fx.dev, 1, 0xffff, &index),
		   0);
	RDMA_KT_EQ(ctx, index, 0);
	RDMA_KT_EQ(ctx, ib_find_exact_cached_pkey(fx.dev, 1, 0x7fff, &index),
		   -ENOENT);
	RDMA_KT_EQ(ctx, ib_find_exact_cached_pkey(fx.dev, 3, 0xffff, &index),
		   -EINVAL);

	/* ib_find_pkey() asks the provider instead of the cache. */
	index = 0x55;
	RDMA_KT_EQ(ctx, ib_find_pkey(fx.dev, 1, 0x7fff, &index), 0);
	RDMA_KT_EQ(ctx, index, 0);
	RDMA_KT_EQ(ctx, ib_find_pkey(fx.dev, 1, 0x8001, &index), -ENOENT);
	RDMA_KT_EQ(ctx, ib_find_pkey(fx.dev, 9, 0xffff, &index), -EINVAL);
out:
	rdma_mock_fx_fini(&fx);
}

static void cache_port_state_lmc_prefix(struct rdma_ktap_ctx *ctx)
{
	enum ib_port_state state = IB_PORT_NOP;
	struct ib_port_attr pattr;
	struct rdma_mock_fx fx;
	u64 prefix;
	u8 lmc = 0xaa;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	if (!RDMA_KT_EQ(ctx, ib_query_port(fx.dev, 1, &pattr), 0))
		goto out;
	RDMA_KT_EQ(ctx, ib_get_cached_port_state(fx.dev, 1, &state), 0);
	RDMA_KT_EQ(ctx, state, IB_PORT_ACTIVE);
	RDMA_KT_EQ(ctx, state, pattr.state);
	RDMA_KT_EQ(ctx, ib_get_cached_port_state(fx.dev, 2, &state), -EINVAL);

	RDMA_KT_EQ(ctx, ib_get_cached_lmc(fx.dev, 1, &lmc), 0);
	RDMA_KT_EQ(ctx, lmc, pattr.lmc);
	RDMA_KT_EQ(ctx, ib_get_cached_lmc(fx.dev, 0, &lmc), -EINVAL);

	prefix = 0x1234;
	ib_get_cached_subnet_prefix(fx.dev, 1, &prefix);
	RDMA_KT_EQ(ctx, prefix, pattr.subnet_prefix);
	prefix = 0x1234;
	ib_get_cached_subnet_prefix(fx.dev, 5, &prefix);
	RDMA_KT_EQ(ctx, prefix, 0);
out:
	rdma_mock_fx_fini(&fx);
}

/* ---- GID table --------------------------------------------------------- */

struct at_filter {
	unsigned int calls;
	enum ib_gid_type want;
	bool accept;
};

static bool at_gid_filter(const union ib_gid *gid,
			  const struct ib_gid_attr *attr, void *context)
{
	struct at_filter *f = context;

	f->calls++;
	return f->accept && attr->gid_type == f->want;
}

static void gid_filter_and_context(struct rdma_ktap_ctx *ctx)
{
	struct at_filter f = { .want = IB_GID_TYPE_ROCE_UDP_ENCAP,
			       .accept = true };
	const struct ib_gid_attr *attr;
	union ib_gid gid, zero = {};
	u16 index = 0x55;
	struct rdma_mock_fx fx;
	u32 port = 0x55;

	gid_default(&gid);
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	attr = rdma_find_gid_by_filter(fx.dev, &gid, 1, at_gid_filter, &f);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(attr), "filter lookup: %ld",
			   PTR_ERR(attr))) {
		RDMA_KT_EQ(ctx, attr->index, 1);
		RDMA_KT_EQ(ctx, attr->gid_type, IB_GID_TYPE_ROCE_UDP_ENCAP);
		RDMA_KT_EXPECT(ctx, rdma_mock_gid_eq(&attr->gid, &gid), "wrong GID");
		/* The context is what the mock's add_gid() handed back. */
		RDMA_KT_EXPECT(ctx, rdma_read_gid_hw_context(attr) ==
			       &fx.md->gids[0][attr->index],
			       "hw context is not the mock's slot");
		rdma_put_gid_attr(attr);
	}
	RDMA_KT_EXPECT(ctx, f.calls >= 1 && f.calls <= 2,
		       "filter called %u times", f.calls);

	f.accept = false;
	f.calls = 0;
	attr = rdma_find_gid_by_filter(fx.dev, &gid, 1, at_gid_filter, &f);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -ENOENT);
	RDMA_KT_EQ(ctx, f.calls, 2);
	attr = rdma_find_gid_by_filter(fx.dev, &gid, 7, at_gid_filter, &f);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(attr), -EINVAL);

	/* Default GID 0 carries the mock's context too. */
	attr = rdma_get_gid_attr(fx.dev, 1, 0);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(attr), "GID 0: %ld", PTR_ERR(attr))) {
		RDMA_KT_EXPECT(ctx, rdma_read_gid_hw_context(attr) ==
			       &fx.md->gids[0][0],
			       "GID 0 hw context is not the mock's slot");
		rdma_put_gid_attr(attr);
	}

	/* ib_find_gid() only searches native IB ports. */
	RDMA_KT_EQ(ctx, ib_find_gid(fx.dev, &gid, &port, &index), -ENOENT);
	RDMA_KT_EQ(ctx, port, 0x55);
	RDMA_KT_EQ(ctx, index, 0x55);

	RDMA_KT_EXPECT(ctx, rdma_is_zero_gid(&zero), "zero GID not zero");
	RDMA_KT_EXPECT(ctx, !rdma_is_zero_gid(&gid), "default GID is zero");
	zero.raw[15] = 1;
	RDMA_KT_EXPECT(ctx, !rdma_is_zero_gid(&zero), "::1 is zero");
out:
	rdma_mock_fx_fini(&fx);
}

#define AT_GID_ENTRIES	(2 * RDMA_MOCK_GID_TBL_LEN)

static void gid_query_table(struct rdma_ktap_ctx *ctx)
{
	struct ib_uverbs_gid_entry *ents;
	unsigned int valid = 0, seen = 0;
	union ib_gid gid;
	struct rdma_mock_fx fx;
	ssize_t n, i;

	gid_default(&gid);
	ents = kcalloc(AT_GID_ENTRIES, sizeof(*ents), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, ents, "no memory"))
		return;
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	for (i = 0; i < RDMA_MOCK_GID_TBL_LEN; i++)
		valid += rdma_mock_gid_index_valid(fx.dev, 1, i);

	n = rdma_query_gid_table(fx.dev, ents, AT_GID_ENTRIES);
	if (!RDMA_KT_EQ(ctx, n, valid))
		goto out;
	for (i = 0; i < n; i++) {
		RDMA_KT_EQ(ctx, ents[i].port_num, 1);
		RDMA_KT_EQ(ctx, ents[i].netdev_ifindex, at_ndev->ifindex);
		if (ents[i].gid_index > 1)
			continue;
		seen |= BIT(ents[i].gid_index);
		RDMA_KT_EXPECT(ctx, !memcmp(ents[i].gid, gid.raw, sizeof(gid)),
			       "entry %u: not the default GID",
			       ents[i].gid_index);
		RDMA_KT_EQ(ctx, ents[i].gid_type,
			   ents[i].gid_index ? IB_GID_TYPE_ROCE_UDP_ENCAP :
					       IB_GID_TYPE_ROCE);
	}
	RDMA_KT_EQ(ctx, seen, 3);
	/* One entry too few is an error, not a short answer. */
	RDMA_KT_EQ(ctx, rdma_query_gid_table(fx.dev, ents, n - 1), -EINVAL);
out:
	rdma_mock_fx_fini(&fx);
	kfree(ents);
}

/*
 * rdma_hold_gid_attr(), rdma_copy_ah_attr(), rdma_move_ah_attr() and
 * rdma_replace_ah_attr() against the mock's del_gid(): the core calls it
 * once the last reference to a removed address's entry is gone, so an
 * extra or a missing reference shows up as a late or early del_gid().
 */
static void gid_refs_copy_move_replace(struct rdma_ktap_ctx *ctx)
{
	struct rdma_ah_attr a = {}, b = {}, c = {}, d = {}, plain = {};
	const struct ib_gid_attr *attr = NULL;
	unsigned int dels = 0;
	union ib_gid gid;
	struct rdma_mock_fx fx;
	int idx = -1;

	gid_v4(&gid, AT_ADDR4);
	if (!fx_init(ctx, &fx, NULL) || !addr4(ctx, true))
		goto out;
	attr = rdma_mock_gid_wait(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP);
	if (!RDMA_KT_EXPECT(ctx, attr, "IPv4 GID never appeared"))
		goto out;
	idx = attr->index;
	dels = rdma_mock_gid_dels(fx.md, idx);

	/* a: a second reference of ours, taken with rdma_hold_gid_attr(). */
	rdma_hold_gid_attr(attr);
	a.type = RDMA_AH_ATTR_TYPE_ROCE;
	a.ah_flags = IB_AH_GRH;
	a.port_num = 1;
	a.grh.sgid_index = idx;
	a.grh.sgid_attr = attr;
	rdma_copy_ah_attr(&b, &a);		/* b: +1 */
	RDMA_KT_EXPECT(ctx, b.grh.sgid_attr == attr, "copy lost sgid_attr");
	rdma_move_ah_attr(&c, &b);		/* b's reference moves to c */
	RDMA_KT_EXPECT(ctx, !b.grh.sgid_attr, "move left the source holding");
	RDMA_KT_EXPECT(ctx, c.grh.sgid_attr == attr, "move lost sgid_attr");
	rdma_replace_ah_attr(&d, &c);		/* d: +1 */
	RDMA_KT_EXPECT(ctx, d.grh.sgid_attr == attr, "replace lost sgid_attr");

	if (!addr4(ctx, false))
		goto out;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(!rdma_mock_gid_present(fx.dev, &gid,
								      IB_GID_TYPE_ROCE_UDP_ENCAP),
					       AT_WAIT_MS),
		       "the removed address's GID is still found");

	/* Drop all but d's reference: the entry must stay. */
	rdma_put_gid_attr(attr);
	attr = NULL;
	rdma_destroy_ah_attr(&a);
	rdma_destroy_ah_attr(&b);		/* holds nothing: a no-op */
	rdma_move_ah_attr(&c, &plain);		/* drops c's reference */
	RDMA_KT_EXPECT(ctx, !c.grh.sgid_attr, "move kept the old sgid_attr");
	msleep(100);
	RDMA_KT_EQ(ctx, rdma_mock_gid_dels(fx.md, idx), dels);

	/* Replacing d with a vector without sgid_attr drops the last one. */
	rdma_replace_ah_attr(&d, &plain);
	RDMA_KT_EXPECT(ctx, !d.grh.sgid_attr, "replace kept the old sgid_attr");
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rdma_mock_gid_dels(fx.md, idx) > dels,
					       AT_WAIT_MS),
		       "del_gid(%d) never came after the last reference", idx);
	RDMA_KT_EQ(ctx, rdma_mock_gid_dels(fx.md, idx), dels + 1);
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->gid_errors), 0);
out:
	if (attr)
		rdma_put_gid_attr(attr);
	rdma_destroy_ah_attr(&a);
	rdma_destroy_ah_attr(&b);
	rdma_destroy_ah_attr(&c);
	rdma_destroy_ah_attr(&d);
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

/* Both default GIDs and both types of the IPv4 address's GID on port 1. */
static bool rescan_gids_present(struct ib_device *dev)
{
	union ib_gid gid4, gidd;

	gid_v4(&gid4, AT_ADDR4);
	gid_default(&gidd);
	return rdma_mock_gid_present(dev, &gidd, IB_GID_TYPE_ROCE) &&
	       rdma_mock_gid_present(dev, &gidd, IB_GID_TYPE_ROCE_UDP_ENCAP) &&
	       rdma_mock_gid_present(dev, &gid4, IB_GID_TYPE_ROCE) &&
	       rdma_mock_gid_present(dev, &gid4, IB_GID_TYPE_ROCE_UDP_ENCAP);
}

/* All GIDs of the netdev go; a rescan of the port or device restores them. */
static void gid_rescan(struct rdma_ktap_ctx *ctx)
{
	union ib_gid gid4;
	struct rdma_mock_fx fx;
	int pass;

	gid_v4(&gid4, AT_ADDR4);
	if (!fx_init(ctx, &fx, NULL) || !addr4(ctx, true))
		goto out;
	if (!RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rescan_gids_present(fx.dev),
						    AT_WAIT_MS),
			    "the IPv4 GIDs never appeared"))
		goto out;
	for (pass = 0; pass < 2; pass++) {
		roce_del_all_netdev_gids(fx.dev, 1, at_ndev);
		RDMA_KT_EXPECT(ctx, !rdma_mock_gid_index_valid(fx.dev, 1, 0) &&
			       !rdma_mock_gid_index_valid(fx.dev, 1, 1) &&
			       !rdma_mock_gid_present(fx.dev, &gid4, IB_GID_TYPE_ROCE),
			       "pass %d: GIDs left after deleting them", pass);
		if (pass)
			rdma_roce_rescan_device(fx.dev);
		else
			rdma_roce_rescan_port(fx.dev, 1);
		RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(rescan_gids_present(fx.dev),
						       AT_WAIT_MS),
			       "pass %d: rescan did not restore the GIDs", pass);
	}
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->gid_errors), 0);
out:
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

/* ---- RoCE destination MAC resolution ----------------------------------- */

static void ah_attr_init(struct ib_device *dev, struct rdma_ah_attr *attr,
			 u8 sgid_index, const union ib_gid *dgid)
{
	union ib_gid d = *dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(dev, 1);
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &d, 0, sgid_index, 0x20, 0);
}

/*
 * rdma_create_user_ah() with a zeroed udata (the mock's create_user_ah()
 * never reads it) and the MAC it resolved; @hop is the hop limit expected
 * back in the caller's vector.
 */
static void user_ah_expect(struct rdma_ktap_ctx *ctx, struct rdma_mock_fx *fx,
			   u8 sgid_index, const union ib_gid *dgid,
			   const u8 *dmac, u8 hop, const char *what)
{
	struct ib_udata udata = {};
	struct rdma_ah_attr aha;
	struct ib_ah *ah;

	ah_attr_init(fx->dev, &aha, sgid_index, dgid);
	memset(aha.roce.dmac, 0xee, ETH_ALEN);
	ah = rdma_create_user_ah(fx->pd, &aha, &udata);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "%s: rdma_create_user_ah: %ld",
			    what, PTR_ERR(ah)))
		return;
	RDMA_KT_EXPECT(ctx, ether_addr_equal(aha.roce.dmac, dmac),
		       "%s: dmac %pM, want %pM", what, aha.roce.dmac, dmac);
	RDMA_KT_EXPECT(ctx, ether_addr_equal(to_mock_ah(ah)->attr.roce.dmac,
					     dmac),
		       "%s: the provider saw dmac %pM", what,
		       to_mock_ah(ah)->attr.roce.dmac);
	RDMA_KT_EQ(ctx, aha.grh.hop_limit, hop);
	RDMA_KT_EXPECT(ctx, !aha.grh.sgid_attr,
		       "%s: the caller's sgid_attr was left filled in", what);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr && ah->sgid_attr->index == sgid_index,
		       "%s: the AH holds the wrong GID entry", what);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void user_ah_dmac_multicast(struct rdma_ktap_ctx *ctx)
{
	static const u8 mc4[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const u8 mc6[ETH_ALEN] = { 0x33, 0x33, 0xa1, 0xb2, 0xc3, 0xd4 };
	const struct rdma_mock_opts opts = { .user_ah = true };
	union ib_gid dgid;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, &opts))
		goto out;
	/* ::ffff:239.129.2.3: 23 low bits of the group behind 01:00:5e. */
	gid_v4(&dgid, htonl(0xef810203));
	user_ah_expect(ctx, &fx, 1, &dgid, mc4, 0x20, "IPv4 multicast");
	/* ff0e::a1b2:c3d4: the last 32 bits behind 33:33. */
	memset(&dgid, 0, sizeof(dgid));
	dgid.raw[0] = 0xff;
	dgid.raw[1] = 0x0e;
	dgid.raw[12] = 0xa1;
	dgid.raw[13] = 0xb2;
	dgid.raw[14] = 0xc3;
	dgid.raw[15] = 0xd4;
	user_ah_expect(ctx, &fx, 1, &dgid, mc6, 0x20, "IPv6 multicast");
	RDMA_KT_EQ(ctx, atomic_read(&fx.md->ah_creates),
		   atomic_read(&fx.md->ah_destroys));
out:
	rdma_mock_fx_fini(&fx);
}

/* A link-local dgid from a RoCE v1 source: the MAC is in the EUI-64. */
static void user_ah_dmac_link_local(struct rdma_ktap_ctx *ctx)
{
	const struct rdma_mock_opts opts = { .user_ah = true };
	union ib_gid dgid;
	struct rdma_mock_fx fx;

	memset(&dgid, 0, sizeof(dgid));
	dgid.raw[0] = 0xfe;
	dgid.raw[1] = 0x80;
	addrconf_addr_eui48(&dgid.raw[8], at_peer_mac);
	if (!fx_init(ctx, &fx, &opts))
		goto out;
	user_ah_expect(ctx, &fx, 0, &dgid, at_peer_mac, 0x20, "link-local");
out:
	rdma_mock_fx_fini(&fx);
}

/* A unicast dgid: the neighbour's MAC and the route's hop limit. */
static void user_ah_dmac_unicast(struct rdma_ktap_ctx *ctx)
{
	const struct rdma_mock_opts opts = { .user_ah = true };
	const struct ib_gid_attr *attr = NULL;
	union ib_gid gid, dgid, dgid6;
	u8 dmac[ETH_ALEN];
	struct rdma_mock_fx fx;
	int hop, ret;

	gid_v4(&gid, AT_ADDR4);
	gid_v4(&dgid, AT_PEER4);
	gid_default(&dgid6);
	if (!fx_init(ctx, &fx, &opts) || !addr4(ctx, true))
		goto out;
	ret = rdma_mock_neigh4(at_ndev, true, AT_PEER4, at_peer_mac);
	if (!RDMA_KT_EXPECT(ctx, !ret, "adding the neighbour: %d", ret))
		goto out;
	attr = rdma_mock_gid_wait(fx.dev, &gid, IB_GID_TYPE_ROCE_UDP_ENCAP);
	if (!RDMA_KT_EXPECT(ctx, attr, "IPv4 GID never appeared"))
		goto out;

	hop = 0xff;
	memset(dmac, 0, sizeof(dmac));
	RDMA_KT_EQ(ctx, rdma_addr_find_l2_eth_by_grh(&attr->gid, &dgid, dmac,
						     attr, &hop), 0);
	RDMA_KT_EXPECT(ctx, ether_addr_equal(dmac, at_peer_mac),
		       "resolved %pM, want %pM", dmac, at_peer_mac);
	RDMA_KT_EQ(ctx, hop, AT_ROUTE_HOP_LIMIT);
	RDMA_KT_EQ(ctx, rdma_addr_find_l2_eth_by_grh(&attr->gid, &dgid, dmac,
						     NULL, &hop), -EINVAL);
	/* An IPv4 source cannot reach an IPv6 destination. */
	RDMA_KT_EQ(ctx, rdma_addr_find_l2_eth_by_grh(&attr->gid, &dgid6, dmac,
						     attr, &hop), -EINVAL);

	user_ah_expect(ctx, &fx, attr->index, &dgid, at_peer_mac,
		       AT_ROUTE_HOP_LIMIT, "unicast");
out:
	if (attr)
		rdma_put_gid_attr(attr);
	addr_cleanup();
	rdma_mock_fx_fini(&fx);
}

/* ---- CQs --------------------------------------------------------------- */

static void cq_moderation_resize(struct rdma_ktap_ctx *ctx)
{
	const struct rdma_mock_opts opts = { .cq_ops = true };
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;

	/* Without the ops. */
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, rdma_set_cq_moderation(cq, 8, 100), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, 32), -EOPNOTSUPP);
	ib_free_cq(cq);
	cq = NULL;
	rdma_mock_fx_fini(&fx);

	/* With them. */
	if (!fx_init(ctx, &fx, &opts))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, rdma_set_cq_moderation(cq, 8, 100), 0);
	RDMA_KT_EQ(ctx, fx.md->last_cq_count, 8);
	RDMA_KT_EQ(ctx, fx.md->last_cq_period, 100);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, 64), 0);
	RDMA_KT_EQ(ctx, cq->cqe, 64);
	RDMA_KT_EQ(ctx, to_mock_cq(cq)->size, 64);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, 0), -EINVAL);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, -4), -EINVAL);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, RDMA_MOCK_MAX_CQE + 1), -EINVAL);
	RDMA_KT_EQ(ctx, cq->cqe, 64);
out:
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* Pool CQs are shared: handed out by entries, never moderated or resized. */
static void cq_pool_get_put(struct rdma_ktap_ctx *ctx)
{
	const struct rdma_mock_opts opts = { .cq_ops = true };
	struct ib_cq *cq = NULL, *cq2 = NULL, *bad;
	struct rdma_mock_fx fx;
	int before;

	if (!fx_init(ctx, &fx, &opts))
		goto out;
	before = rdma_restrack_count(fx.dev, RDMA_RESTRACK_CQ, true);
	cq = ib_cq_pool_get(fx.dev, 8, 0, IB_POLL_SOFTIRQ);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "pool get: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	RDMA_KT_EXPECT(ctx, cq->shared, "a pool CQ is not marked shared");
	RDMA_KT_EQ(ctx, cq->cqe_used, 8);
	RDMA_KT_EQ(ctx, cq->poll_ctx, IB_POLL_SOFTIRQ);
	RDMA_KT_EXPECT(ctx, rdma_restrack_count(fx.dev, RDMA_RESTRACK_CQ,
						true) > before,
		       "the pool created no CQ");
	cq2 = ib_cq_pool_get(fx.dev, 8, 0, IB_POLL_SOFTIRQ);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq2), "pool get: %ld", PTR_ERR(cq2))) {
		cq2 = NULL;
		goto out;
	}
	/* One completion vector, room left: the same CQ again. */
	RDMA_KT_EXPECT(ctx, cq2 == cq, "a second CQ for a one-vector device");
	RDMA_KT_EQ(ctx, cq->cqe_used, 16);
	RDMA_KT_EQ(ctx, rdma_set_cq_moderation(cq, 8, 100), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_resize_cq(cq, 64), -EOPNOTSUPP);
	bad = ib_cq_pool_get(fx.dev, RDMA_MOCK_MAX_CQE + 1, 0, IB_POLL_SOFTIRQ);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(bad), -EINVAL);
	if (!IS_ERR(bad))
		ib_cq_pool_put(bad, RDMA_MOCK_MAX_CQE + 1);
	ib_cq_pool_put(cq2, 8);
	cq2 = NULL;
	RDMA_KT_EQ(ctx, cq->cqe_used, 8);
	ib_cq_pool_put(cq, 8);
	RDMA_KT_EQ(ctx, cq->cqe_used, 0);
	cq = NULL;
out:
	if (cq2)
		ib_cq_pool_put(cq2, 8);
	if (cq)
		ib_cq_pool_put(cq, 8);
	/* Unregistration destroys the pool. */
	rdma_mock_fx_fini(&fx);
}

/* ---- QPs --------------------------------------------------------------- */

static void qp_modify_udata_open(struct rdma_ktap_ctx *ctx)
{
	struct ib_qp_open_attr oattr = { .qp_type = IB_QPT_XRC_TGT };
	struct ib_qp_attr attr = { .qp_state = IB_QPS_RTS };
	struct ib_qp *qp = NULL, *oqp;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_RC, cq);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	/* RESET -> RTS skips states: refused, state unchanged. */
	RDMA_KT_EQ(ctx, ib_modify_qp_with_udata(qp, &attr, IB_QP_STATE, NULL),
		   -EINVAL);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_RESET);
	RDMA_KT_EQ(ctx, rc_to_init(qp), 0);
	RDMA_KT_EQ(ctx, qp_state(qp), IB_QPS_INIT);
	RDMA_KT_EQ(ctx, to_mock_qp(qp)->state, IB_QPS_INIT);

	/* Opening needs an XRC domain. */
	oattr.qp_num = qp->qp_num;
	oqp = ib_open_qp(NULL, &oattr);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(oqp), -EINVAL);
	if (!IS_ERR(oqp))
		ib_destroy_qp(oqp);
out:
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

struct at_cqe {
	struct ib_cqe cqe;
	atomic_t done;
	enum ib_wc_status status;
};

static void at_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct at_cqe *c = container_of(wc->wr_cqe, struct at_cqe, cqe);

	c->status = wc->status;
	atomic_inc(&c->done);
}

/* ib_drain_sq() and ib_drain_rq() on RC QPs, one each. */
static void qp_drain_sq_rq(struct rdma_ktap_ctx *ctx)
{
	struct at_cqe rc = { .cqe.done = at_recv_done,
			     .status = IB_WC_SUCCESS };
	struct ib_recv_wr wr = { .wr_cqe = &rc.cqe };
	struct ib_qp *sq_qp = NULL, *rq_qp = NULL;
	const struct ib_recv_wr *bad = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;

	atomic_set(&rc.done, 0);
	if (!fx_init(ctx, &fx, NULL))
		goto out;
	cq = ib_alloc_cq(fx.dev, NULL, 32, 0, IB_POLL_SOFTIRQ);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	sq_qp = qp_create(&fx, IB_QPT_RC, cq);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(sq_qp), "QP: %ld", PTR_ERR(sq_qp))) {
		sq_qp = NULL;
		goto out;
	}
	rq_qp = qp_create(&fx, IB_QPT_RC, cq);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(rq_qp), "QP: %ld", PTR_ERR(rq_qp))) {
		rq_qp = NULL;
		goto out;
	}
	if (!RDMA_KT_EQ(ctx, rc_to_init(sq_qp), 0) ||
	    !RDMA_KT_EQ(ctx, rc_to_init(rq_qp), 0))
		goto out;

	ib_drain_sq(sq_qp);
	RDMA_KT_EQ(ctx, qp_state(sq_qp), IB_QPS_ERR);
	RDMA_KT_EQ(ctx, qp_state(rq_qp), IB_QPS_INIT);

	if (!RDMA_KT_EQ(ctx, ib_post_recv(rq_qp, &wr, &bad), 0))
		goto out;
	ib_drain_rq(rq_qp);
	RDMA_KT_EQ(ctx, qp_state(rq_qp), IB_QPS_ERR);
	/* The receive was flushed before the drain's marker. */
	RDMA_KT_EQ(ctx, atomic_read(&rc.done), 1);
	RDMA_KT_EQ(ctx, rc.status, IB_WC_WR_FLUSH_ERR);
out:
	if (rq_qp)
		ib_destroy_qp(rq_qp);
	if (sq_qp)
		ib_destroy_qp(sq_qp);
	if (cq)
		ib_free_cq(cq);
	rdma_mock_fx_fini(&fx);
}

/* ---- unregistration ---------------------------------------------------- */

/* A mock device the core frees on unregistration; no netdev. */
static struct rdma_mock_dev *dealloc_dev(struct rdma_ktap_ctx *ctx,
					 atomic_t *count,
					 enum rdma_driver_id id, char *name)
{
	const struct rdma_mock_opts opts = {
		.dealloc_driver = true,
		.dealloc_count = count,
		.driver_id = id,
	};
	struct rdma_mock_dev *md = rdma_mock_create(NULL, &opts);

	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "registering a mock device: %ld",
			    PTR_ERR(md)))
		return NULL;
	strscpy(name, dev_name(&md->ibdev.dev), IB_DEVICE_NAME_MAX);
	return md;
}

static void unregister_and_put(struct rdma_ktap_ctx *ctx)
{
	char name[IB_DEVICE_NAME_MAX];
	struct rdma_mock_dev *md;
	struct ib_device *dev;
	atomic_t count;

	atomic_set(&count, 0);
	md = dealloc_dev(ctx, &count, RDMA_DRIVER_UNKNOWN, name);
	if (!md)
		return;
	dev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);
	if (!RDMA_KT_EXPECT(ctx, dev == &md->ibdev, "%s not found by name",
			    name)) {
		if (dev)
			ib_device_put(dev);
		rdma_mock_destroy(md);
		return;
	}
	ib_unregister_device_and_put(dev);
	RDMA_KT_EQ(ctx, atomic_read(&count), 1);
	RDMA_KT_EXPECT(ctx, !dev_present(name), "%s still registered", name);
}

static void unregister_queued(struct rdma_ktap_ctx *ctx)
{
	char name[IB_DEVICE_NAME_MAX];
	struct rdma_mock_dev *md;
	atomic_t count;

	atomic_set(&count, 0);
	md = dealloc_dev(ctx, &count, RDMA_DRIVER_UNKNOWN, name);
	if (!md)
		return;
	RDMA_KT_EXPECT(ctx, dev_present(name), "%s not found by name", name);
	ib_unregister_device_queued(&md->ibdev);
	md = NULL;
	RDMA_KT_EXPECT(ctx, rdma_mock_wait_for(atomic_read(&count) == 1,
					       AT_WAIT_MS),
		       "the queued unregistration never freed %s", name);
	RDMA_KT_EXPECT(ctx, !dev_present(name), "%s still registered", name);
}

static void unregister_driver(struct rdma_ktap_ctx *ctx)
{
	char name1[IB_DEVICE_NAME_MAX], name2[IB_DEVICE_NAME_MAX];
	struct rdma_mock_dev *md1, *md2 = NULL, *other;
	struct ib_device *dev;
	atomic_t count;

	atomic_set(&count, 0);
	other = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(other), "registering a mock: %ld",
			    PTR_ERR(other)))
		return;
	md1 = dealloc_dev(ctx, &count, AT_DRIVER_ID, name1);
	if (md1)
		md2 = dealloc_dev(ctx, &count, AT_DRIVER_ID, name2);
	if (!md2)
		goto out;

	dev = ib_device_get_by_name(name1, AT_DRIVER_ID);
	RDMA_KT_EXPECT(ctx, dev == &md1->ibdev, "%s not found by driver id",
		       name1);
	if (dev)
		ib_device_put(dev);
	dev = ib_device_get_by_name(dev_name(&other->ibdev.dev), AT_DRIVER_ID);
	RDMA_KT_EXPECT(ctx, !dev, "a device of another driver matched");
	if (dev)
		ib_device_put(dev);

	ib_unregister_driver(AT_DRIVER_ID);
	md1 = NULL;
	md2 = NULL;
	RDMA_KT_EQ(ctx, atomic_read(&count), 2);
	RDMA_KT_EXPECT(ctx, !dev_present(name1) && !dev_present(name2),
		       "a device of the driver is still registered");
	RDMA_KT_EXPECT(ctx, dev_present(dev_name(&other->ibdev.dev)),
		       "a device of another driver went too");
out:
	rdma_mock_destroy(md1);
	rdma_mock_destroy(md2);
	rdma_mock_destroy(other);
}

/* ---- device and port ---------------------------------------------------- */

static void device_get_by_netdev(struct rdma_ktap_ctx *ctx)
{
	struct rdma_mock_dev *other = NULL;
	struct ib_device *dev;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	dev = ib_device_get_by_netdev(at_ndev, RDMA_DRIVER_UNKNOWN);
	RDMA_KT_EXPECT(ctx, dev == fx.dev, "device not found by its netdev");
	if (dev)
		ib_device_put(dev);
	dev = ib_device_get_by_netdev(at_ndev, AT_DRIVER_ID);
	RDMA_KT_EXPECT(ctx, !dev, "found under another driver id");
	if (dev)
		ib_device_put(dev);

	/* A device without a netdev is not found through ours. */
	other = rdma_mock_create(NULL, NULL);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(other), "second mock: %ld",
			    PTR_ERR(other))) {
		other = NULL;
		goto out;
	}
	dev = ib_device_get_by_netdev(at_ndev, RDMA_DRIVER_UNKNOWN);
	RDMA_KT_EXPECT(ctx, dev == fx.dev, "wrong device for the netdev");
	if (dev)
		ib_device_put(dev);

	/* Gone once unregistered. */
	rdma_mock_fx_fini(&fx);
	memset(&fx, 0, sizeof(fx));
	dev = ib_device_get_by_netdev(at_ndev, RDMA_DRIVER_UNKNOWN);
	RDMA_KT_EXPECT(ctx, !dev, "found after unregistration");
	if (dev)
		ib_device_put(dev);
out:
	rdma_mock_destroy(other);
	rdma_mock_fx_fini(&fx);
}

static void modify_device_port(struct rdma_ktap_ctx *ctx)
{
	struct ib_device_modify dm = { .node_desc = "changed" };
	struct ib_port_modify pm = {};
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EQ(ctx, ib_modify_device(fx.dev, IB_DEVICE_MODIFY_NODE_DESC,
					 &dm), -EOPNOTSUPP);
	RDMA_KT_EXPECT(ctx, !strcmp(fx.dev->node_desc, "rdma_mock"),
		       "node_desc changed to %s", fx.dev->node_desc);
	/* RoCE without modify_port: only the CM capability is accepted. */
	RDMA_KT_EQ(ctx, ib_modify_port(fx.dev, 1, 0, &pm), 0);
	pm.set_port_cap_mask = AT_CAP_CM_SUP;
	RDMA_KT_EQ(ctx, ib_modify_port(fx.dev, 1, 0, &pm), 0);
	pm.set_port_cap_mask = AT_CAP_SM;
	pm.clr_port_cap_mask = AT_CAP_SM;
	RDMA_KT_EQ(ctx, ib_modify_port(fx.dev, 1, 0, &pm), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_modify_port(fx.dev, 2, 0, &pm), -EINVAL);
out:
	rdma_mock_fx_fini(&fx);
}

static void port_immutable_eth_speed(struct rdma_ktap_ctx *ctx)
{
	const struct rdma_mock_opts opts = { .num_ports = 2 };
	const struct ib_port_immutable *im;
	struct rdma_mock_fx fx;
	u16 speed = 0;
	u8 width = 0;

	if (!fx_init(ctx, &fx, &opts))
		goto out;
	im = ib_port_immutable_read(fx.dev, 1);
	if (RDMA_KT_EXPECT(ctx, im, "no immutable data for port 1")) {
		RDMA_KT_EQ(ctx, im->core_cap_flags, RDMA_MOCK_CORE_CAPS);
		RDMA_KT_EQ(ctx, im->gid_tbl_len, RDMA_MOCK_GID_TBL_LEN);
		RDMA_KT_EQ(ctx, im->pkey_tbl_len, 1);
		RDMA_KT_EQ(ctx, im->max_mad_size, 0);
		RDMA_KT_EXPECT(ctx, !rdma_cap_ib_mad(fx.dev, 1) &&
			       rdma_protocol_roce(fx.dev, 1),
			       "the mock's port: RoCE, no MADs");
	}
	im = ib_port_immutable_read(fx.dev, 2);
	RDMA_KT_EXPECT(ctx, im && im->gid_tbl_len == RDMA_MOCK_GID_TBL_LEN,
		       "port 2 immutable data wrong");

	/* The mock netdev reports no link speed: 1 Gb/s is assumed. */
	RDMA_KT_EQ(ctx, ib_get_eth_speed(fx.dev, 1, &speed, &width), 0);
	RDMA_KT_EQ(ctx, speed, IB_SPEED_SDR);
	RDMA_KT_EQ(ctx, width, IB_WIDTH_1X);
	RDMA_KT_EQ(ctx, ib_get_eth_speed(fx.dev, 2, &speed, &width), -ENODEV);
	RDMA_KT_EQ(ctx, ib_get_eth_speed(fx.dev, 3, &speed, &width), -EINVAL);
out:
	rdma_mock_fx_fini(&fx);
}

struct at_speed_vec {
	u16 speed;
	u8 width;
	const char *str;
	int rate;
	int ret;
};

static void port_speed_info(struct rdma_ktap_ctx *ctx)
{
	static const struct at_speed_vec v[] = {
		{ IB_SPEED_SDR, IB_WIDTH_1X, " SDR", 25, 0 },
		{ IB_SPEED_DDR, IB_WIDTH_4X, " DDR", 200, 0 },
		{ IB_SPEED_QDR, IB_WIDTH_4X, " QDR", 400, 0 },
		{ IB_SPEED_FDR10, IB_WIDTH_1X, " FDR10", 100, 0 },
		{ IB_SPEED_FDR, IB_WIDTH_4X, " FDR", 560, 0 },
		{ IB_SPEED_EDR, IB_WIDTH_4X, " EDR", 1000, 0 },
		{ IB_SPEED_HDR, IB_WIDTH_2X, " HDR", 1000, 0 },
		{ IB_SPEED_NDR, IB_WIDTH_8X, " NDR", 8000, 0 },
		{ IB_SPEED_XDR, IB_WIDTH_12X, " XDR", 24000, 0 },
		/* An unknown speed counts as SDR. */
		{ 3, IB_WIDTH_4X, " SDR", 100, 0 },
		/* An unknown width is an error; the label is still set. */
		{ IB_SPEED_EDR, 3, " EDR", -250, -EINVAL },
	};
	struct ib_port_speed_info info;
	struct ib_port_attr attr;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		memset(&attr, 0, sizeof(attr));
		attr.active_speed = v[i].speed;
		attr.active_width = v[i].width;
		info.str = NULL;
		info.rate = 0x5555;
		ret = ib_port_attr_to_speed_info(&attr, &info);
		RDMA_KT_EXPECT(ctx, ret == v[i].ret, "row %u: returned %d",
			       i, ret);
		RDMA_KT_EXPECT(ctx, info.str && !strcmp(info.str, v[i].str),
			       "row %u: label \"%s\", want \"%s\"", i,
			       info.str ? info.str : "(null)", v[i].str);
		if (!v[i].ret)
			RDMA_KT_EXPECT(ctx, info.rate == v[i].rate,
				       "row %u: rate %d, want %d", i,
				       info.rate, v[i].rate);
		else
			RDMA_KT_EXPECT(ctx, info.rate < 0,
				       "row %u: rate %d is not negative", i,
				       info.rate);
	}
}

/* ---- hardware counters, netdevs, messages ------------------------------ */

static const struct rdma_stat_desc at_descs[] = {
	{ .name = "at_rx" },
	{ .name = "at_tx" },
	{ .name = "at_opt", .flags = IB_STAT_FLAG_OPTIONAL },
};

static void hw_stats_struct(struct rdma_ktap_ctx *ctx)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(at_descs, ARRAY_SIZE(at_descs),
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!RDMA_KT_EXPECT(ctx, stats, "allocation failed"))
		return;
	RDMA_KT_EQ(ctx, stats->num_counters, ARRAY_SIZE(at_descs));
	RDMA_KT_EXPECT(ctx, stats->descs == at_descs, "descs not kept");
	RDMA_KT_EQ(ctx, stats->lifespan,
		   msecs_to_jiffies(RDMA_HW_STATS_DEFAULT_LIFESPAN));
	RDMA_KT_EXPECT(ctx, stats->is_disabled, "no is_disabled bitmap");
	for (i = 0; i < stats->num_counters; i++) {
		RDMA_KT_EQ(ctx, stats->value[i], 0);
		if (stats->is_disabled)
			RDMA_KT_EXPECT(ctx, !test_bit(i, stats->is_disabled),
				       "counter %d starts disabled", i);
	}
	/* The counters are writable and the lock usable. */
	mutex_lock(&stats->lock);
	stats->value[2] = 7;
	mutex_unlock(&stats->lock);
	rdma_free_hw_stats_struct(stats);

	stats = rdma_alloc_hw_stats_struct(at_descs, 1, 1000);
	if (RDMA_KT_EXPECT(ctx, stats, "second allocation failed")) {
		RDMA_KT_EQ(ctx, stats->num_counters, 1);
		RDMA_KT_EQ(ctx, stats->lifespan, msecs_to_jiffies(1000));
		rdma_free_hw_stats_struct(stats);
	}
	rdma_free_hw_stats_struct(NULL);
}

static void at_netdev_setup(struct net_device *ndev)
{
}

static void rdma_netdev_helpers(struct rdma_ktap_ctx *ctx)
{
	struct net_device *ndev;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	ndev = rdma_alloc_netdev(fx.dev, 1, RDMA_NETDEV_IPOIB, "atib%d",
				 NET_NAME_UNKNOWN, at_netdev_setup);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(ndev), -EOPNOTSUPP);
	if (!IS_ERR(ndev))
		free_netdev(ndev);
	RDMA_KT_EQ(ctx, rdma_init_netdev(fx.dev, 1, RDMA_NETDEV_OPA_VNIC,
					 "atvnic%d", NET_NAME_UNKNOWN,
					 at_netdev_setup, at_ndev),
		   -EOPNOTSUPP);
out:
	rdma_mock_fx_fini(&fx);
}

static void transport_netns_messages(struct rdma_ktap_ctx *ctx)
{
	static const struct {
		unsigned int node;
		enum rdma_transport_type transport;
	} tv[] = {
		{ RDMA_NODE_IB_CA, RDMA_TRANSPORT_IB },
		{ RDMA_NODE_IB_SWITCH, RDMA_TRANSPORT_IB },
		{ RDMA_NODE_IB_ROUTER, RDMA_TRANSPORT_IB },
		{ RDMA_NODE_RNIC, RDMA_TRANSPORT_IWARP },
		{ RDMA_NODE_USNIC, RDMA_TRANSPORT_USNIC },
		{ RDMA_NODE_USNIC_UDP, RDMA_TRANSPORT_USNIC_UDP },
		{ RDMA_NODE_UNSPECIFIED, RDMA_TRANSPORT_UNSPECIFIED },
	};
	struct rdma_mock_fx fx;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(tv); i++)
		RDMA_KT_EXPECT(ctx, rdma_node_get_transport(tv[i].node) ==
			       tv[i].transport, "node type %u: transport %d",
			       tv[i].node, rdma_node_get_transport(tv[i].node));

	RDMA_KT_EXPECT(ctx, !strcmp(ib_event_msg(IB_EVENT_PORT_ACTIVE),
				    "port active"),
		       "PORT_ACTIVE: \"%s\"", ib_event_msg(IB_EVENT_PORT_ACTIVE));
	RDMA_KT_EXPECT(ctx, !strcmp(ib_event_msg(IB_EVENT_CQ_ERR), "CQ error"),
		       "CQ_ERR: \"%s\"", ib_event_msg(IB_EVENT_CQ_ERR));
	RDMA_KT_EXPECT(ctx, !strcmp(ib_event_msg((enum ib_event_type)999),
				    "unrecognized event"),
		       "999: \"%s\"", ib_event_msg((enum ib_event_type)999));
	RDMA_KT_EXPECT(ctx, !strcmp(ib_wc_status_msg(IB_WC_SUCCESS), "success"),
		       "SUCCESS: \"%s\"", ib_wc_status_msg(IB_WC_SUCCESS));
	RDMA_KT_EXPECT(ctx, !strcmp(ib_wc_status_msg(IB_WC_WR_FLUSH_ERR),
				    "WR flushed"),
		       "WR_FLUSH_ERR: \"%s\"",
		       ib_wc_status_msg(IB_WC_WR_FLUSH_ERR));
	RDMA_KT_EXPECT(ctx, !strcmp(ib_wc_status_msg((enum ib_wc_status)999),
				    "unrecognized status"),
		       "999: \"%s\"", ib_wc_status_msg((enum ib_wc_status)999));

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EQ(ctx, rdma_node_get_transport(fx.dev->node_type),
		   RDMA_TRANSPORT_IB);
	RDMA_KT_EXPECT(ctx, rdma_dev_access_netns(fx.dev, &init_net),
		       "no access from init_net");
out:
	rdma_mock_fx_fini(&fx);
}

/* ---- resource tracking -------------------------------------------------- */

static const enum rdma_restrack_type at_res_types[] = {
	RDMA_RESTRACK_PD, RDMA_RESTRACK_CQ, RDMA_RESTRACK_QP, RDMA_RESTRACK_MR,
};

static void res_counts(struct ib_device *dev, int *n)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(at_res_types); i++)
		n[i] = rdma_restrack_count(dev, at_res_types[i], false);
}

static void res_expect_byid(struct rdma_ktap_ctx *ctx, struct ib_device *dev,
			    enum rdma_restrack_type type,
			    struct rdma_restrack_entry *want)
{
	struct rdma_restrack_entry *res;

	res = rdma_restrack_get_byid(dev, type, want->id);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(res), "type %d id %u: %ld", type,
			    want->id, PTR_ERR(res)))
		return;
	RDMA_KT_EXPECT(ctx, res == want, "type %d id %u: another entry",
		       type, want->id);
	RDMA_KT_EQ(ctx, res->type, type);
	/* Not the last reference: the owner still holds one. */
	RDMA_KT_EQ(ctx, rdma_restrack_put(res), 0);
}

static void restrack_api(struct rdma_ktap_ctx *ctx)
{
	int before[ARRAY_SIZE(at_res_types)], now[ARRAY_SIZE(at_res_types)];
	struct rdma_restrack_entry *res;
	struct ib_pd *pd2 = NULL;
	struct ib_mr *mr = NULL;
	struct ib_qp *qp = NULL;
	struct ib_cq *cq = NULL;
	struct rdma_mock_fx fx;
	unsigned int i;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	res_counts(fx.dev, before);
	RDMA_KT_EXPECT(ctx, before[0] >= 1, "the fixture's PD is not tracked");
	pd2 = ib_alloc_pd(fx.dev, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(pd2), "PD: %ld", PTR_ERR(pd2))) {
		pd2 = NULL;
		goto out;
	}
	cq = ib_alloc_cq(fx.dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "CQ: %ld", PTR_ERR(cq))) {
		cq = NULL;
		goto out;
	}
	qp = qp_create(&fx, IB_QPT_RC, cq);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "QP: %ld", PTR_ERR(qp))) {
		qp = NULL;
		goto out;
	}
	mr = ib_alloc_mr(fx.pd, IB_MR_TYPE_MEM_REG, 4);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(mr), "MR: %ld", PTR_ERR(mr))) {
		mr = NULL;
		goto out;
	}
	res_counts(fx.dev, now);
	for (i = 0; i < ARRAY_SIZE(at_res_types); i++)
		RDMA_KT_EXPECT(ctx, now[i] == before[i] + 1,
			       "type %d: %d objects, want %d",
			       at_res_types[i], now[i], before[i] + 1);

	res_expect_byid(ctx, fx.dev, RDMA_RESTRACK_PD, &pd2->res);
	res_expect_byid(ctx, fx.dev, RDMA_RESTRACK_CQ, &cq->res);
	res_expect_byid(ctx, fx.dev, RDMA_RESTRACK_QP, &qp->res);
	res_expect_byid(ctx, fx.dev, RDMA_RESTRACK_MR, &mr->res);
	res = rdma_restrack_get_byid(fx.dev, RDMA_RESTRACK_PD, 0xfffffff);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(res), -ENOENT);
	if (!IS_ERR(res))
		rdma_restrack_put(res);

	RDMA_KT_EQ(ctx, ib_dereg_mr(mr), 0);
	mr = NULL;
	RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
	qp = NULL;
	ib_free_cq(cq);
	cq = NULL;
	ib_dealloc_pd(pd2);
	pd2 = NULL;
	res_counts(fx.dev, now);
	for (i = 0; i < ARRAY_SIZE(at_res_types); i++)
		RDMA_KT_EXPECT(ctx, now[i] == before[i],
			       "type %d: %d objects left, want %d",
			       at_res_types[i], now[i], before[i]);
out:
	if (mr)
		ib_dereg_mr(mr);
	if (qp)
		ib_destroy_qp(qp);
	if (cq)
		ib_free_cq(cq);
	if (pd2)
		ib_dealloc_pd(pd2);
	rdma_mock_fx_fini(&fx);
}

/* ---- MR integrity without the ops --------------------------------------- */

static void mr_integrity_unsupported(struct rdma_ktap_ctx *ctx)
{
	struct ib_mr_status st = {};
	struct scatterlist sg;
	struct ib_mr *mr = NULL, *imr;
	struct rdma_mock_fx fx;
	void *buf = NULL;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	buf = kzalloc(64, GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, buf, "no memory"))
		goto out;
	sg_init_one(&sg, buf, 64);
	mr = ib_alloc_mr(fx.pd, IB_MR_TYPE_MEM_REG, 4);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(mr), "MR: %ld", PTR_ERR(mr))) {
		mr = NULL;
		goto out;
	}
	RDMA_KT_EQ(ctx, ib_check_mr_status(mr, IB_MR_CHECK_SIG_STATUS, &st),
		   -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_map_mr_sg_pi(mr, &sg, 1, NULL, NULL, 0, NULL,
					PAGE_SIZE), -EOPNOTSUPP);
	imr = ib_alloc_mr_integrity(fx.pd, 4, 4);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(imr), -EOPNOTSUPP);
	if (!IS_ERR(imr))
		ib_dereg_mr(imr);
	RDMA_KT_EQ(ctx, atomic_read(&fx.pd->usecnt), 1);
out:
	if (mr)
		ib_dereg_mr(mr);
	kfree(buf);
	rdma_mock_fx_fini(&fx);
}

/* ---- virtual DMA -------------------------------------------------------- */

static void dma_virt_map_sg(struct rdma_ktap_ctx *ctx)
{
	struct scatterlist sg[2];
	struct rdma_mock_fx fx;
	u8 *buf = NULL;
	int n, i;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	if (!RDMA_KT_EXPECT(ctx, ib_uses_virt_dma(fx.dev),
			    "the mock is not a virtual-DMA device"))
		goto out;
	buf = kzalloc(256, GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, buf, "no memory"))
		goto out;
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], buf, 100);
	sg_set_buf(&sg[1], buf + 128, 64);
	n = ib_dma_map_sg(fx.dev, sg, 2, DMA_BIDIRECTIONAL);
	RDMA_KT_EQ(ctx, n, 2);
	for (i = 0; i < 2; i++) {
		RDMA_KT_EQ(ctx, sg_dma_address(&sg[i]), (uintptr_t)sg_virt(&sg[i]));
		RDMA_KT_EQ(ctx, sg_dma_len(&sg[i]), sg[i].length);
	}
	RDMA_KT_EQ(ctx, sg_dma_address(&sg[1]), (uintptr_t)(buf + 128));
	if (n > 0)
		ib_dma_unmap_sg(fx.dev, sg, 2, DMA_BIDIRECTIONAL);

	/* The helper itself. */
	sg_init_one(&sg[0], buf + 8, 32);
	RDMA_KT_EQ(ctx, ib_dma_virt_map_sg(fx.dev, sg, 1), 1);
	RDMA_KT_EQ(ctx, sg_dma_address(&sg[0]), (uintptr_t)(buf + 8));
	RDMA_KT_EQ(ctx, sg_dma_len(&sg[0]), 32);
out:
	kfree(buf);
	rdma_mock_fx_fini(&fx);
}

/* ---- log helpers -------------------------------------------------------- */

static void ibdev_log_names(struct rdma_ktap_ctx *ctx)
{
	unsigned int calls = 0;
	struct rdma_mock_fx fx;

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EXPECT(ctx, !strcmp(dev_name(&fx.dev->dev), fx.dev->name),
		       "dev_name %s, ib name %s", dev_name(&fx.dev->dev),
		       fx.dev->name);
	RDMA_KT_EXPECT(ctx, !strncmp(dev_name(&fx.dev->dev), "mock", 4),
		       "name %s is not from the mock%%d template",
		       dev_name(&fx.dev->dev));
	ibdev_err(fx.dev, "rdma_api_test: ibdev_err %u\n", ++calls);
	ibdev_info(fx.dev, "rdma_api_test: ibdev_info %u\n", ++calls);
	ibdev_printk(KERN_NOTICE, fx.dev, "rdma_api_test: ibdev_printk %u\n",
		     ++calls);
	RDMA_KT_EQ(ctx, calls, 3);
out:
	rdma_mock_fx_fini(&fx);
}

/* Address lengths for rdma_cm, and SR-IOV wrappers on a device without VFs. */
static void addr_sizes_vf_ops(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage ss = {};
	struct sockaddr *sa = (struct sockaddr *)&ss;
	struct ifla_vf_guid node_guid, port_guid;
	struct ifla_vf_stats vf_stats;
	struct ifla_vf_info vf_info;
	struct rdma_mock_fx fx;

	ss.ss_family = AF_INET;
	RDMA_KT_EQ(ctx, rdma_addr_size(sa), sizeof(struct sockaddr_in));
	ss.ss_family = AF_INET6;
	RDMA_KT_EQ(ctx, rdma_addr_size(sa), sizeof(struct sockaddr_in6));
	RDMA_KT_EQ(ctx, rdma_addr_size_in6((struct sockaddr_in6 *)sa),
		   sizeof(struct sockaddr_in6));
	ss.ss_family = AF_IB;
	RDMA_KT_EQ(ctx, rdma_addr_size(sa), sizeof(struct sockaddr_ib));
	/* An AF_IB address does not fit a sockaddr_in6, it fits the kss. */
	RDMA_KT_EQ(ctx, rdma_addr_size_in6((struct sockaddr_in6 *)sa), 0);
	RDMA_KT_EQ(ctx, rdma_addr_size_kss((struct __kernel_sockaddr_storage *)sa),
		   sizeof(struct sockaddr_ib));
	ss.ss_family = AF_UNIX;
	RDMA_KT_EQ(ctx, rdma_addr_size(sa), 0);

	if (!fx_init(ctx, &fx, NULL))
		goto out;
	RDMA_KT_EQ(ctx, ib_set_vf_link_state(fx.dev, 0, 1, 0), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_get_vf_config(fx.dev, 0, 1, &vf_info), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_get_vf_stats(fx.dev, 0, 1, &vf_stats), -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_get_vf_guid(fx.dev, 0, 1, &node_guid, &port_guid),
		   -EOPNOTSUPP);
	RDMA_KT_EQ(ctx, ib_set_vf_guid(fx.dev, 0, 1, 1, IFLA_VF_IB_NODE_GUID),
		   -EOPNOTSUPP);
out:
	rdma_mock_fx_fini(&fx);
}

static const struct rdma_ktap_case api_cases[] = {
	{ "cache_pkey", cache_pkey },
	{ "cache_port_state_lmc_prefix", cache_port_state_lmc_prefix },
	{ "gid_filter_and_context", gid_filter_and_context },
	{ "gid_query_table", gid_query_table },
	{ "gid_refs_copy_move_replace", gid_refs_copy_move_replace },
	{ "gid_rescan", gid_rescan },
	{ "user_ah_dmac_multicast", user_ah_dmac_multicast },
	{ "user_ah_dmac_link_local", user_ah_dmac_link_local },
	{ "user_ah_dmac_unicast", user_ah_dmac_unicast },
	{ "cq_moderation_resize", cq_moderation_resize },
	{ "cq_pool_get_put", cq_pool_get_put },
	{ "qp_modify_udata_open", qp_modify_udata_open },
	{ "qp_drain_sq_rq", qp_drain_sq_rq },
	{ "unregister_and_put", unregister_and_put },
	{ "unregister_queued", unregister_queued },
	{ "unregister_driver", unregister_driver },
	{ "device_get_by_netdev", device_get_by_netdev },
	{ "modify_device_port", modify_device_port },
	{ "port_immutable_eth_speed", port_immutable_eth_speed },
	{ "port_speed_info", port_speed_info },
	{ "hw_stats_struct", hw_stats_struct },
	{ "rdma_netdev_helpers", rdma_netdev_helpers },
	{ "transport_netns_messages", transport_netns_messages },
	{ "restrack_api", restrack_api },
	{ "mr_integrity_unsupported", mr_integrity_unsupported },
	{ "dma_virt_map_sg", dma_virt_map_sg },
	{ "ibdev_log_names", ibdev_log_names },
	{ "addr_sizes_vf_ops", addr_sizes_vf_ops },
};

static int __init api_test_init(void)
{
	at_ndev = rdma_mock_netdev_create("rdmaapi%d", at_mac);
	if (IS_ERR(at_ndev)) {
		pr_err("rdma_api_test: no test netdev: %ld\n",
		       PTR_ERR(at_ndev));
		return PTR_ERR(at_ndev);
	}
	rdma_ktap_run("rdma_api", api_cases, ARRAY_SIZE(api_cases));
	return 0;
}

static void __exit api_test_exit(void)
{
	rdma_mock_netdev_destroy(at_ndev);
}

module_init(api_test_init);
module_exit(api_test_exit);

MODULE_DESCRIPTION("KTAP tests of the RDMA core's remaining exported helpers");
MODULE_LICENSE("GPL");
