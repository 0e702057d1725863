// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of the address-handle contract (rdma_create_ah,
 * rdma_create_user_ah, rdma_modify_ah, rdma_query_ah, rdma_destroy_ah,
 * ib_create_ah_from_wc) on a real soft-RoCE device instead of rdma_mock:
 * the device named by @ibdev (made by "rdma link add rxe0 type rxe netdev
 * eth0" before loading).  The module adds the addresses and permanent
 * neighbours it needs to the device's netdev and removes them again.
 *
 *   10.12.0.1/24, fd00:12::1/64     local addresses (their RoCE v2 GIDs)
 *   10.12.0.2, fd00:12::2, fe80::52:44ff:fe0c:2
 *                                   neighbours, all at 02:52:44:0c:00:02
 */
#include <linux/etherdevice.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rdma_ah_kt.h"
#include "rdma_ktap.h"
#include "rdma_mock.h"

static char *ibdev = "rxe0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RoCE device to test (default rxe0)");

#define RT_WAIT_MS	5000
/* The default IPv4 TTL / IPv6 hop limit a route gives. */
#define RT_ROUTE_HOP	64
/* How many create/destroy cycles each atomic-context case runs. */
#define RT_ATOMIC_LOOPS	64

#define RT_ADDR4	htonl(0x0a0c0001)
#define RT_PEER4	htonl(0x0a0c0002)
#define RT_OTHER4	htonl(0x0a0c0003)
static const struct in6_addr rt_addr6 = {
	{ { 0xfd, 0, 0, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } } };
static const struct in6_addr rt_peer6 = {
	{ { 0xfd, 0, 0, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2 } } };
/* Only for the GID reference case: added and removed several times. */
static const struct in6_addr rt_ref6 = {
	{ { 0xfd, 0, 0, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5 } } };
static const u8 rt_peer_mac[ETH_ALEN] = { 0x02, 0x52, 0x44, 0x0c, 0x00, 0x02 };

static struct ib_device *rt_dev;
static struct net_device *rt_ndev;
static struct ib_pd *rt_pd;
static int rt_gid_tbl_len;
/* The RoCE v2 GID indices of the two local addresses. */
static int rt_idx4 = -1, rt_idx6 = -1;

/* ---- the device's netdev: addresses, neighbours, GIDs ------------------- */

static void rt_peer_ll(struct in6_addr *a)
{
	memset(a, 0, sizeof(*a));
	a->s6_addr[0] = 0xfe;
	a->s6_addr[1] = 0x80;
	addrconf_addr_eui48(&a->s6_addr[8], rt_peer_mac);
}

/* Remove whatever this module added, ignoring "not there". */
static void rt_net_cleanup(void)
{
	struct in6_addr ll;

	rt_peer_ll(&ll);
	rdma_mock_neigh4(rt_ndev, false, RT_PEER4, NULL);
	rdma_mock_neigh6(rt_ndev, false, &rt_peer6, NULL);
	rdma_mock_neigh6(rt_ndev, false, &ll, NULL);
	rdma_mock_addr4(rt_ndev, false, RT_ADDR4, 24);
	rdma_mock_addr6(rt_ndev, false, &rt_addr6, 64);
	rdma_mock_addr6(rt_ndev, false, &rt_ref6, 64);
}

/* The v2 GID of @gid: its index once the core has it, or -1. */
static int rt_gid_index_wait(const union ib_gid *gid, bool present)
{
	unsigned long end = jiffies + msecs_to_jiffies(RT_WAIT_MS);
	const struct ib_gid_attr *attr;
	bool found;
	int idx;

	for (;;) {
		attr = rdma_find_gid_by_port(rt_dev, gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					     NULL);
		idx = IS_ERR(attr) ? -1 : attr->index;
		if (!IS_ERR(attr))
			rdma_put_gid_attr(attr);
		found = idx >= 0;
		if (found == present || time_after(jiffies, end))
			return idx;
		usleep_range(10000, 20000);
	}
}

static int rt_net_setup(void)
{
	union ib_gid gid;
	struct in6_addr ll;
	int ret;

	rt_peer_ll(&ll);
	ret = rdma_mock_addr4(rt_ndev, true, RT_ADDR4, 24) ?:
	      rdma_mock_addr6(rt_ndev, true, &rt_addr6, 64) ?:
	      rdma_mock_neigh4(rt_ndev, true, RT_PEER4, rt_peer_mac) ?:
	      rdma_mock_neigh6(rt_ndev, true, &rt_peer6, rt_peer_mac) ?:
	      rdma_mock_neigh6(rt_ndev, true, &ll, rt_peer_mac);
	if (ret)
		return ret;
	rdma_kt_gid_v4(&gid, RT_ADDR4);
	rt_idx4 = rt_gid_index_wait(&gid, true);
	rdma_kt_gid_v6(&gid, &rt_addr6);
	rt_idx6 = rt_gid_index_wait(&gid, true);
	return rt_idx4 < 0 || rt_idx6 < 0 ? -ENODATA : 0;
}

/* ---- address vectors ----------------------------------------------------- */

static void rt_attr(struct rdma_ah_attr *attr, int sgid_index,
		    const union ib_gid *dgid)
{
	union ib_gid d = *dgid;

	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(rt_dev, 1);
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_sl(attr, 3);
	rdma_ah_set_static_rate(attr, IB_RATE_10_GBPS);
	rdma_ah_set_grh(attr, &d, 0x12345, sgid_index, 17, 0x20);
	memcpy(attr->roce.dmac, rt_peer_mac, ETH_ALEN);
}

static void rt_attr4(struct rdma_ah_attr *attr, __be32 daddr)
{
	union ib_gid dgid;

	rdma_kt_gid_v4(&dgid, daddr);
	rt_attr(attr, rt_idx4, &dgid);
}

static int pd_usecnt(void)
{
	return atomic_read(&rt_pd->usecnt);
}

/*
 * rdma_query_ah() on @ah must give back the address of @want: the
 * destination, GRH fields, SL, static rate and MAC.
 */
static void expect_query(struct rdma_ktap_ctx *ctx, struct ib_ah *ah,
			 const struct rdma_ah_attr *want, const char *what)
{
	struct rdma_ah_attr out;
	int ret;

	memset(&out, 0xa5, sizeof(out));
	ret = rdma_query_ah(ah, &out);
	if (!RDMA_KT_EXPECT(ctx, !ret, "%s: rdma_query_ah: %d", what, ret))
		return;
	RDMA_KT_EXPECT(ctx, !out.grh.sgid_attr,
		       "%s: query returned an sgid_attr", what);
	RDMA_KT_EXPECT(ctx, out.type == RDMA_AH_ATTR_TYPE_ROCE &&
		       out.port_num == 1 && (out.ah_flags & IB_AH_GRH),
		       "%s: type %d port %u flags %#x", what, out.type,
		       out.port_num, out.ah_flags);
	RDMA_KT_EXPECT(ctx, !memcmp(&out.grh.dgid, &want->grh.dgid,
				    sizeof(out.grh.dgid)),
		       "%s: dgid %pI6, expected %pI6", what, out.grh.dgid.raw,
		       want->grh.dgid.raw);
	RDMA_KT_EXPECT(ctx, out.grh.sgid_index == want->grh.sgid_index,
		       "%s: sgid_index %u, expected %u", what,
		       out.grh.sgid_index, want->grh.sgid_index);
	RDMA_KT_EXPECT(ctx, out.grh.flow_label == want->grh.flow_label &&
		       out.grh.traffic_class == want->grh.traffic_class &&
		       out.grh.hop_limit == want->grh.hop_limit,
		       "%s: flow %#x tclass %#x hop %u, expected %#x %#x %u",
		       what, out.grh.flow_label, out.grh.traffic_class,
		       out.grh.hop_limit, want->grh.flow_label,
		       want->grh.traffic_class, want->grh.hop_limit);
	RDMA_KT_EXPECT(ctx, out.sl == want->sl &&
		       out.static_rate == want->static_rate,
		       "%s: sl %u rate %u, expected %u %u", what, out.sl,
		       out.static_rate, want->sl, want->static_rate);
	RDMA_KT_EXPECT(ctx, ether_addr_equal(out.roce.dmac, want->roce.dmac),
		       "%s: dmac %pM, expected %pM", what, out.roce.dmac,
		       want->roce.dmac);
}

/* ---- rdma_create_ah ------------------------------------------------------ */

static void ah_create_query_destroy(struct rdma_ktap_ctx *ctx)
{
	struct rdma_ah_attr attr, copy;
	union ib_gid dgid;
	struct ib_ah *ah;
	int v6, base = pd_usecnt();

	for (v6 = 0; v6 < 2; v6++) {
		if (v6) {
			rdma_kt_gid_v6(&dgid, &rt_peer6);
			rt_attr(&attr, rt_idx6, &dgid);
		} else {
			rt_attr4(&attr, RT_PEER4);
		}
		memcpy(&copy, &attr, sizeof(copy));
		ah = rdma_create_ah(rt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "v6=%d: rdma_create_ah: %ld",
				    v6, PTR_ERR(ah)))
			continue;
		RDMA_KT_EXPECT(ctx, !memcmp(&attr, &copy, sizeof(attr)),
			       "v6=%d: the caller's ah_attr changed", v6);
		RDMA_KT_EXPECT(ctx, ah->device == rt_dev && ah->pd == rt_pd &&
			       ah->type == RDMA_AH_ATTR_TYPE_ROCE,
			       "v6=%d: ah->device, pd or type wrong", v6);
		RDMA_KT_EQ(ctx, pd_usecnt(), base + 1);
		RDMA_KT_EXPECT(ctx, ah->sgid_attr &&
			       ah->sgid_attr->index == attr.grh.sgid_index &&
			       ah->sgid_attr->port_num == 1 &&
			       ah->sgid_attr->gid_type ==
			       IB_GID_TYPE_ROCE_UDP_ENCAP,
			       "v6=%d: ah->sgid_attr is not GID %u", v6,
			       attr.grh.sgid_index);
		/* The kernel path keeps the caller's MAC: no resolution. */
		expect_query(ctx, ah, &attr, v6 ? "IPv6" : "IPv4");
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		RDMA_KT_EQ(ctx, pd_usecnt(), base);
	}
}

/* rdma_create_ah() must fail with @err, changing nothing. */
static void ah_expect_err(struct rdma_ktap_ctx *ctx, struct rdma_ah_attr *attr,
			  int err, const char *what)
{
	struct rdma_ah_attr copy;
	int base = pd_usecnt();
	struct ib_ah *ah;

	memcpy(&copy, attr, sizeof(copy));
	ah = rdma_create_ah(rt_pd, attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, IS_ERR(ah) && PTR_ERR(ah) == err,
			    "%s: got %ld, expected %d", what,
			    IS_ERR(ah) ? PTR_ERR(ah) : 0L, err)) {
		if (!IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	RDMA_KT_EXPECT(ctx, !memcmp(attr, &copy, sizeof(copy)),
		       "%s: ah_attr changed", what);
	RDMA_KT_EXPECT(ctx, pd_usecnt() == base, "%s: pd usecnt %d, was %d",
		       what, pd_usecnt(), base);
}

static void ah_invalid_attrs(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	int empty;

	rt_attr4(&attr, RT_PEER4);
	attr.port_num = 0;
	ah_expect_err(ctx, &attr, -EINVAL, "port 0");
	attr.port_num = rdma_end_port(rt_dev) + 1;
	ah_expect_err(ctx, &attr, -EINVAL, "port past the end");

	rt_attr4(&attr, RT_PEER4);
	attr.ah_flags = 0;
	ah_expect_err(ctx, &attr, -EINVAL, "RoCE without GRH");

	/* sgid_index is a u8: past the end only for a short table. */
	if (rt_gid_tbl_len <= U8_MAX) {
		rt_attr(&attr, rt_gid_tbl_len, &attr.grh.dgid);
		ah_expect_err(ctx, &attr, -EINVAL, "sgid_index = table size");
	}

	/* The last slot of the table is free on a fresh device. */
	empty = min(rt_gid_tbl_len, U8_MAX + 1) - 1;
	sgid = rdma_get_gid_attr(rt_dev, 1, empty);
	if (RDMA_KT_EXPECT(ctx, IS_ERR(sgid), "slot %d is in use", empty)) {
		rt_attr(&attr, empty, &attr.grh.dgid);
		ah_expect_err(ctx, &attr, -ENODATA, "empty GID slot");
	} else {
		rdma_put_gid_attr(sgid);
	}

	/* The provider refuses mixed IP versions; the core undoes its part. */
	rdma_kt_gid_v6(&dgid, &rt_peer6);
	rt_attr(&attr, rt_idx4, &dgid);
	ah_expect_err(ctx, &attr, -EINVAL, "IPv4 source, IPv6 destination");
}

static void ah_atomic(struct rdma_ktap_ctx *ctx, enum rdma_kt_ah_ctx how)
{
	const char *name = rdma_kt_ah_ctx_name(how);
	struct rdma_ah_attr attr, copy;
	int i, base = pd_usecnt();
	bool kept = true;
	struct ib_ah *ah;

	rt_attr4(&attr, RT_PEER4);
	memcpy(&copy, &attr, sizeof(copy));
	for (i = 0; i < RT_ATOMIC_LOOPS; i++) {
		ah = rdma_kt_ah_in_ctx(rt_pd, &attr, how, true, &kept);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "%s #%d: %ld", name, i,
				    PTR_ERR(ah)) ||
		    !RDMA_KT_EXPECT(ctx, kept,
				    "%s #%d: left atomic context or enabled interrupts",
				    name, i))
			break;
	}
	RDMA_KT_EXPECT(ctx, !memcmp(&attr, &copy, sizeof(attr)),
		       "%s: the caller's ah_attr changed", name);
	/* One kept alive across contexts, queried from process context. */
	ah = rdma_kt_ah_in_ctx(rt_pd, &attr, how, false, NULL);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "%s: %ld", name, PTR_ERR(ah))) {
		RDMA_KT_EQ(ctx, pd_usecnt(), base + 1);
		expect_query(ctx, ah, &attr, name);
		rdma_kt_ah_destroy_in_ctx(ah, how);
	}
	RDMA_KT_EQ(ctx, pd_usecnt(), base);
}

static void ah_atomic_bh(struct rdma_ktap_ctx *ctx)
{
	ah_atomic(ctx, RDMA_KT_AH_BH);
}

static void ah_atomic_irqsave(struct rdma_ktap_ctx *ctx)
{
	ah_atomic(ctx, RDMA_KT_AH_IRQSAVE);
}

/*
 * The AH holds its source GID entry: when the address goes, the entry
 * leaves lookups but keeps its slot (so the address, added again, lands
 * elsewhere); once the AH is destroyed the slot is free for it again.
 */
static void ah_holds_sgid_attr(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct rdma_ah_attr attr;
	struct ib_ah *ah = NULL;
	union ib_gid gid, dgid;
	int idx, idx2, idx3 = -1, tries;

	rdma_kt_gid_v6(&gid, &rt_ref6);
	rdma_kt_gid_v6(&dgid, &rt_peer6);
	if (!RDMA_KT_EQ(ctx, rdma_mock_addr6(rt_ndev, true, &rt_ref6, 64), 0))
		goto out;
	idx = rt_gid_index_wait(&gid, true);
	if (!RDMA_KT_EXPECT(ctx, idx >= 0, "GID of fd00:12::5 never appeared"))
		goto out;
	rt_attr(&attr, idx, &dgid);
	ah = rdma_create_ah(rt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "create: %ld", PTR_ERR(ah))) {
		ah = NULL;
		goto out;
	}
	sgid = ah->sgid_attr;

	rdma_mock_addr6(rt_ndev, false, &rt_ref6, 64);
	RDMA_KT_EXPECT(ctx, rt_gid_index_wait(&gid, false) < 0,
		       "the removed address's GID is still found");
	RDMA_KT_EXPECT(ctx, ah->sgid_attr == sgid && sgid->index == idx &&
		       !memcmp(&sgid->gid, &gid, sizeof(gid)),
		       "the AH's GID entry changed under it");
	expect_query(ctx, ah, &attr, "after the address went");

	rdma_mock_addr6(rt_ndev, true, &rt_ref6, 64);
	idx2 = rt_gid_index_wait(&gid, true);
	RDMA_KT_EXPECT(ctx, idx2 >= 0 && idx2 != idx,
		       "re-added GID at %d: slot %d was not held by the AH",
		       idx2, idx);
	rdma_mock_addr6(rt_ndev, false, &rt_ref6, 64);
	rt_gid_index_wait(&gid, false);

	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	ah = NULL;
	/* The release is deferred to a work item: try a few times. */
	for (tries = 0; tries < 10 && idx3 != idx; tries++) {
		if (tries) {
			rdma_mock_addr6(rt_ndev, false, &rt_ref6, 64);
			rt_gid_index_wait(&gid, false);
			msleep(100);
		}
		rdma_mock_addr6(rt_ndev, true, &rt_ref6, 64);
		idx3 = rt_gid_index_wait(&gid, true);
	}
	RDMA_KT_EXPECT(ctx, idx3 == idx,
		       "slot %d never freed after the AH went (GID now at %d)",
		       idx, idx3);
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	rdma_mock_addr6(rt_ndev, false, &rt_ref6, 64);
	rt_gid_index_wait(&gid, false);
}

/* ---- rdma_create_user_ah: destination MAC resolution ------------------- */

static void user_ah_expect(struct rdma_ktap_ctx *ctx, int sgid_index,
			   const union ib_gid *dgid, const u8 *dmac, u8 hop,
			   const char *what)
{
	struct ib_udata udata = {};
	struct rdma_ah_attr attr;
	int base = pd_usecnt();
	struct ib_ah *ah;

	rt_attr(&attr, sgid_index, dgid);
	eth_zero_addr(attr.roce.dmac);
	ah = rdma_create_user_ah(rt_pd, &attr, &udata);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "%s: rdma_create_user_ah: %ld",
			    what, PTR_ERR(ah)))
		return;
	RDMA_KT_EXPECT(ctx, ether_addr_equal(attr.roce.dmac, dmac),
		       "%s: resolved %pM, expected %pM", what, attr.roce.dmac,
		       dmac);
	RDMA_KT_EXPECT(ctx, attr.grh.hop_limit == hop,
		       "%s: hop limit %u, expected %u", what,
		       attr.grh.hop_limit, hop);
	RDMA_KT_EXPECT(ctx, !attr.grh.sgid_attr,
		       "%s: the caller's attr got an sgid_attr", what);
	RDMA_KT_EQ(ctx, pd_usecnt(), base + 1);
	/* The provider's AV has the resolved MAC. */
	memcpy(attr.roce.dmac, dmac, ETH_ALEN);
	attr.grh.hop_limit = hop;
	expect_query(ctx, ah, &attr, what);
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, pd_usecnt(), base);
}

static void user_ah_dmac_multicast(struct rdma_ktap_ctx *ctx)
{
	static const u8 mc4[ETH_ALEN] = { 0x01, 0x00, 0x5e, 0x01, 0x02, 0x03 };
	static const u8 mc6[ETH_ALEN] = { 0x33, 0x33, 0xa1, 0xb2, 0xc3, 0xd4 };
	union ib_gid dgid;

	/* 239.129.2.3: only the low 23 bits reach the MAC. */
	rdma_kt_gid_v4(&dgid, htonl(0xef810203));
	user_ah_expect(ctx, rt_idx4, &dgid, mc4, 17, "IPv4 multicast");
	memset(&dgid, 0, sizeof(dgid));
	dgid.raw[0] = 0xff;
	dgid.raw[1] = 0x0e;
	dgid.raw[12] = 0xa1;
	dgid.raw[13] = 0xb2;
	dgid.raw[14] = 0xc3;
	dgid.raw[15] = 0xd4;
	user_ah_expect(ctx, rt_idx6, &dgid, mc6, 17, "IPv6 multicast");
}

static void user_ah_dmac_unicast(struct rdma_ktap_ctx *ctx)
{
	union ib_gid dgid;

	rdma_kt_gid_v4(&dgid, RT_PEER4);
	user_ah_expect(ctx, rt_idx4, &dgid, rt_peer_mac, RT_ROUTE_HOP,
		       "IPv4 neighbour");
	rdma_kt_gid_v6(&dgid, &rt_peer6);
	user_ah_expect(ctx, rt_idx6, &dgid, rt_peer_mac, RT_ROUTE_HOP,
		       "IPv6 neighbour");
}

/*
 * A link-local destination from the port's link-local (default) v2 GID:
 * rxe has no RoCE v1 GIDs, so the neighbour table answers, not the EUI-64.
 */
static void user_ah_dmac_link_local(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct in6_addr ll;
	union ib_gid dgid;
	int i, idx = -1;

	for (i = 0; i < rt_gid_tbl_len && idx < 0; i++) {
		sgid = rdma_get_gid_attr(rt_dev, 1, i);
		if (IS_ERR(sgid))
			continue;
		if (sgid->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_type((struct in6_addr *)sgid->gid.raw) &
		    IPV6_ADDR_LINKLOCAL)
			idx = i;
		rdma_put_gid_attr(sgid);
	}
	if (!RDMA_KT_EXPECT(ctx, idx >= 0, "no link-local v2 GID"))
		return;
	rt_peer_ll(&ll);
	rdma_kt_gid_v6(&dgid, &ll);
	user_ah_expect(ctx, idx, &dgid, rt_peer_mac, RT_ROUTE_HOP,
		       "link-local neighbour");
}

/* ---- rdma_modify_ah ------------------------------------------------------ */

static void ah_modify(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *before;
	struct rdma_ah_attr attr, cur;
	union ib_gid dgid;
	struct ib_ah *ah;
	int base = pd_usecnt();

	rt_attr4(&cur, RT_PEER4);
	ah = rdma_create_ah(rt_pd, &cur, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "create: %ld", PTR_ERR(ah)))
		return;
	before = ah->sgid_attr;

	/* Failed modifies leave the AH as it was. */
	rt_attr4(&attr, RT_OTHER4);
	attr.type = RDMA_AH_ATTR_TYPE_IB;
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -EINVAL);
	rt_attr(&attr, min(rt_gid_tbl_len, U8_MAX + 1) - 1, &cur.grh.dgid);
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -ENODATA);
	rdma_kt_gid_v6(&dgid, &rt_peer6);
	rt_attr(&attr, rt_idx4, &dgid);
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), -EINVAL);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr == before,
		       "a failed modify changed ah->sgid_attr");
	expect_query(ctx, ah, &cur, "after failed modifies");

	/* A good one: new destination and source GID. */
	rt_attr(&attr, rt_idx6, &dgid);
	attr.grh.flow_label = 0x54321;
	attr.grh.hop_limit = 9;
	rdma_ah_set_sl(&attr, 5);
	rdma_ah_set_static_rate(&attr, IB_RATE_25_GBPS);
	RDMA_KT_EQ(ctx, rdma_modify_ah(ah, &attr), 0);
	RDMA_KT_EXPECT(ctx, ah->sgid_attr && ah->sgid_attr->index == rt_idx6,
		       "ah->sgid_attr not moved to %d", rt_idx6);
	expect_query(ctx, ah, &attr, "after modify");
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, pd_usecnt(), base);
}

/* ---- ib_create_ah_from_wc ------------------------------------------------ */

static void ah_from_wc(struct rdma_ktap_ctx *ctx, bool v6)
{
	union rdma_network_hdr *hdr = kzalloc(sizeof(*hdr), GFP_KERNEL);
	struct rdma_ah_attr want;
	int base = pd_usecnt();
	union ib_gid rgid;
	struct ib_wc wc;
	struct ib_ah *ah;

	if (!RDMA_KT_EXPECT(ctx, hdr, "no memory"))
		return;
	if (v6) {
		rdma_kt_hdr_ipv6(hdr, &rt_peer6, &rt_addr6, 0x12, 0x34567);
		rdma_kt_gid_v6(&rgid, &rt_peer6);
		rt_attr(&want, rt_idx6, &rgid);
		want.grh.traffic_class = 0x12;
		want.grh.flow_label = 0x34567;
	} else {
		rdma_kt_hdr_ipv4(hdr, RT_PEER4, RT_ADDR4);
		rdma_kt_gid_v4(&rgid, RT_PEER4);
		rt_attr(&want, rt_idx4, &rgid);
		want.grh.traffic_class = 0;
		want.grh.flow_label = 0;
	}
	want.grh.hop_limit = RT_ROUTE_HOP;

	rdma_kt_wc_init(&wc, NULL);
	/* A reply takes the completion's SL and no static rate. */
	rdma_ah_set_sl(&want, wc.sl);
	rdma_ah_set_static_rate(&want, IB_RATE_PORT_CURRENT);
	ah = ib_create_ah_from_wc(rt_pd, &wc, &hdr->ibgrh, 1);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "ib_create_ah_from_wc: %ld",
			   PTR_ERR(ah))) {
		RDMA_KT_EXPECT(ctx, ah->sgid_attr &&
			       ah->sgid_attr->index == want.grh.sgid_index,
			       "the reply does not come from our GID %u",
			       want.grh.sgid_index);
		RDMA_KT_EQ(ctx, pd_usecnt(), base + 1);
		expect_query(ctx, ah, &want, v6 ? "IPv6 reply" : "IPv4 reply");
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	}

	/* RoCE needs the GRH flag: nothing is created without it. */
	wc.wc_flags = 0;
	ah = ib_create_ah_from_wc(rt_pd, &wc, &hdr->ibgrh, 1);
	RDMA_KT_EXPECT(ctx, IS_ERR(ah) && PTR_ERR(ah) == -EPROTOTYPE,
		       "without IB_WC_GRH: %ld", IS_ERR(ah) ? PTR_ERR(ah) : 0L);
	if (!IS_ERR(ah))
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, pd_usecnt(), base);
	kfree(hdr);
}

static void ah_from_wc_ipv4(struct rdma_ktap_ctx *ctx)
{
	ah_from_wc(ctx, false);
}

static void ah_from_wc_ipv6(struct rdma_ktap_ctx *ctx)
{
	ah_from_wc(ctx, true);
}

/* Last: every case gave back what it took. */
static void pd_usecnt_zero(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, pd_usecnt(), 0);
}

static const struct rdma_ktap_case rxe_ah_cases[] = {
	{ "ah_create_query_destroy", ah_create_query_destroy },
	{ "ah_invalid_attrs", ah_invalid_attrs },
	{ "ah_atomic_bh", ah_atomic_bh },
	{ "ah_atomic_irqsave", ah_atomic_irqsave },
	{ "ah_holds_sgid_attr", ah_holds_sgid_attr },
	{ "user_ah_dmac_multicast", user_ah_dmac_multicast },
	{ "user_ah_dmac_unicast", user_ah_dmac_unicast },
	{ "user_ah_dmac_link_local", user_ah_dmac_link_local },
	{ "ah_modify", ah_modify },
	{ "ah_from_wc_ipv4", ah_from_wc_ipv4 },
	{ "ah_from_wc_ipv6", ah_from_wc_ipv6 },
	{ "pd_usecnt_zero", pd_usecnt_zero },
};

static void rt_fini(void)
{
	if (rt_ndev) {
		rt_net_cleanup();
		dev_put(rt_ndev);
		rt_ndev = NULL;
	}
	if (rt_pd && !IS_ERR(rt_pd))
		ib_dealloc_pd(rt_pd);
	rt_pd = NULL;
	if (rt_dev)
		ib_device_put(rt_dev);
	rt_dev = NULL;
}

static int __init rxe_ah_test_init(void)
{
	struct ib_port_attr pattr;
	int ret;

	rt_dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!rt_dev) {
		pr_err("rdma_rxe_ah_test: no RDMA device %s\n", ibdev);
		return -ENODEV;
	}
	ret = -EINVAL;
	if (!rdma_protocol_roce(rt_dev, 1) || ib_query_port(rt_dev, 1, &pattr))
		goto err;
	rt_gid_tbl_len = pattr.gid_tbl_len;
	rt_ndev = ib_device_get_netdev(rt_dev, 1);
	ret = -ENODEV;
	if (!rt_ndev)
		goto err;
	rt_pd = ib_alloc_pd(rt_dev, 0);
	ret = PTR_ERR_OR_ZERO(rt_pd);
	if (ret)
		goto err;
	ret = rt_net_setup();
	if (ret) {
		pr_err("rdma_rxe_ah_test: addresses or GIDs on %s: %d\n",
		       rt_ndev->name, ret);
		goto err;
	}
	rdma_ktap_run("rdma_rxe_ah", rxe_ah_cases, ARRAY_SIZE(rxe_ah_cases));
	return 0;
err:
	rt_fini();
	return ret;
}

static void __exit rxe_ah_test_exit(void)
{
	rt_fini();
}

module_init(rxe_ah_test_init);
module_exit(rxe_ah_test_exit);

MODULE_DESCRIPTION("KTAP tests of the address-handle contract on a soft-RoCE device");
MODULE_LICENSE("GPL");
