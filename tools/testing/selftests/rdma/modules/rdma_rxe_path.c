// SPDX-License-Identifier: GPL-2.0
/*
 * Paths (include/rdma/ib_sa.h) on the rxe device under test: a path
 * packed as the PathRecord attribute lands on the bit offsets of IBTA
 * 15.2.5.16 and unpacks to itself; a RoCE path to the module's own
 * address gives an address vector that names the netdev's MAC and the
 * source GID entry, and makes a working AH; the SA client API registers
 * and refuses queries.
 */
#include <linux/etherdevice.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "rdma_rxe_loop.h"

/* A path whose fields all differ and fill their widths oddly. */
static void pt_fill(struct sa_path_rec *rec)
{
	unsigned int i;

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	rec->service_id = cpu_to_be64(0x0106000000001234ULL);
	for (i = 0; i < 16; i++) {
		rec->dgid.raw[i] = 0xd0 + i;
		rec->sgid.raw[i] = 0x50 + i;
	}
	rec->ib.dlid = cpu_to_be16(0x1a2b);
	rec->ib.slid = cpu_to_be16(0x3c4d);
	rec->ib.raw_traffic = 1;
	rec->flow_label = cpu_to_be32(0xabcde);
	rec->hop_limit = 0x7e;
	rec->traffic_class = 0xb8;
	rec->reversible = 1;
	rec->numb_path = 0x55;
	rec->pkey = cpu_to_be16(0xffff);
	rec->qos_class = cpu_to_be16(0xa5c);
	rec->sl = 0x9;
	rec->mtu_selector = IB_SA_EQ;
	rec->mtu = IB_MTU_4096;
	rec->rate_selector = IB_SA_LT;
	rec->rate = 0x2a;
	rec->packet_life_time_selector = IB_SA_BEST;
	rec->packet_life_time = 0x13;
	rec->preference = 0x81;
}

/* The attribute of pt_fill()'s path, byte by byte from IBTA's layout. */
static const u8 pt_wire[IB_SA_PATH_REC_BYTES] = {
	/* ServiceID */
	0x01, 0x06, 0x00, 0x00, 0x00, 0x00, 0x12, 0x34,
	/* DGID, SGID */
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
	0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57,
	0x58, 0x59, 0x5a, 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
	/* DLID, SLID */
	0x1a, 0x2b, 0x3c, 0x4d,
	/* RawTraffic 1, reserved 000, FlowLabel 0xabcde, HopLimit 0x7e */
	0x8a, 0xbc, 0xde, 0x7e,
	/* TClass 0xb8, Reversible 1 NumbPath 0x55, P_Key 0xffff */
	0xb8, 0xd5, 0xff, 0xff,
	/* QosClass 0xa5c SL 9, MtuSel 2 MTU 5, RateSel 1 Rate 0x2a */
	0xa5, 0xc9, 0x85, 0x6a,
	/* PLTSel 3 PLT 0x13, Preference 0x81, reserved */
	0xd3, 0x81, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00,
};

void path_pack_unpack(struct rdma_ktap_ctx *ctx)
{
	struct sa_path_rec rec, back;
	u8 wire[IB_SA_PATH_REC_BYTES + 1];
	unsigned int i;

	pt_fill(&rec);
	memset(wire, 0xee, sizeof(wire));
	ib_sa_pack_path(&rec, wire);
	for (i = 0; i < IB_SA_PATH_REC_BYTES; i++)
		if (!RDMA_KT_EXPECT(ctx, wire[i] == pt_wire[i],
				    "byte %u: %#04x, want %#04x", i, wire[i],
				    pt_wire[i]))
			break;
	RDMA_KT_EQ(ctx, wire[IB_SA_PATH_REC_BYTES], 0xee);

	ib_sa_unpack_path(wire, &back);
	RDMA_KT_EQ(ctx, back.rec_type, SA_PATH_REC_TYPE_IB);
	RDMA_KT_EXPECT(ctx, !memcmp(&back, &rec, sizeof(rec)),
		       "unpacked path differs from the packed one");
	RDMA_KT_EQ(ctx, be32_to_cpu(sa_path_get_dlid(&back)), 0x1a2b);
	RDMA_KT_EQ(ctx, be32_to_cpu(sa_path_get_slid(&back)), 0x3c4d);

	/* a RoCE path has no LIDs to put on the wire */
	rec.rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	rec.roce.route_resolved = true;
	eth_broadcast_addr(rec.roce.dmac);
	ib_sa_pack_path(&rec, wire);
	for (i = 40; i < 44; i++)
		RDMA_KT_EQ(ctx, wire[i], 0);
	RDMA_KT_EQ(ctx, wire[44], 0x0a);	/* no raw traffic either */
	RDMA_KT_EQ(ctx, be32_to_cpu(sa_path_get_dlid(&rec)), 0);
	RDMA_KT_EXPECT(ctx, sa_path_get_dmac(&rec) == rec.roce.dmac,
		       "RoCE path without its MAC");
	rec.rec_type = SA_PATH_REC_TYPE_IB;
	RDMA_KT_EXPECT(ctx, !sa_path_get_dmac(&rec), "IB path with a MAC");
	RDMA_KT_EQ(ctx, sa_conv_pathrec_to_gid_type(&rec), IB_GID_TYPE_IB);
	RDMA_KT_EQ(ctx, sa_conv_gid_to_pathrec_type(IB_GID_TYPE_ROCE_UDP_ENCAP),
		   SA_PATH_REC_TYPE_ROCE_V2);
}

/* A RoCE v2 path from the module's IPv4 GID to the same address. */
static void pt_roce_own(struct sa_path_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	ipv6_addr_set_v4mapped(LT_ADDR4, (struct in6_addr *)rec->sgid.raw);
	rec->dgid = rec->sgid;
	rec->pkey = cpu_to_be16(0xffff);
	rec->mtu = lt_mtu_enum;
	rec->sl = 3;
	rec->traffic_class = 0x20;
	rec->flow_label = cpu_to_be32(0x1234);
}

/* Address vectors from RoCE paths, and an AH from one. */
void path_ah_attr_roce(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct rdma_ah_attr attr;
	struct sa_path_rec rec;
	struct ib_ah *ah;

	sgid = rdma_get_gid_attr(lt_dev, 1, lt_idx4);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(sgid), "GID %d: %ld", lt_idx4,
			    PTR_ERR(sgid)))
		return;

	/* route not resolved yet: resolved on the way */
	pt_roce_own(&rec);
	if (RDMA_KT_EQ(ctx, ib_init_ah_attr_from_path(lt_dev, 1, &rec, &attr,
						      sgid), 0)) {
		RDMA_KT_EXPECT(ctx, rec.roce.route_resolved, "not resolved");
		RDMA_KT_EXPECT(ctx, rec.hop_limit > 0, "hop limit 0");
		RDMA_KT_EQ(ctx, attr.type, RDMA_AH_ATTR_TYPE_ROCE);
		RDMA_KT_EQ(ctx, rdma_ah_get_port_num(&attr), 1);
		RDMA_KT_EQ(ctx, rdma_ah_get_sl(&attr), 3);
		RDMA_KT_EXPECT(ctx, ether_addr_equal(attr.roce.dmac,
						     lt_ndev->dev_addr),
			       "dmac %pM", attr.roce.dmac);
		RDMA_KT_EXPECT(ctx, rdma_ah_get_ah_flags(&attr) & IB_AH_GRH,
			       "no GRH");
		RDMA_KT_EXPECT(ctx, attr.grh.sgid_attr == sgid,
			       "another source GID entry");
		RDMA_KT_EQ(ctx, attr.grh.flow_label, 0x1234);
		RDMA_KT_EQ(ctx, attr.grh.traffic_class, 0x20);
		RDMA_KT_EQ(ctx, attr.grh.hop_limit, rec.hop_limit);
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "rdma_create_ah: %ld",
				   PTR_ERR(ah)))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		rdma_destroy_ah_attr(&attr);
	}

	/* no entry given: looked up by the path's source GID */
	pt_roce_own(&rec);
	if (RDMA_KT_EQ(ctx, ib_init_ah_attr_from_path(lt_dev, 1, &rec, &attr,
						      NULL), 0)) {
		RDMA_KT_EXPECT(ctx, attr.grh.sgid_attr == sgid,
			       "found another entry");
		rdma_destroy_ah_attr(&attr);
	}
	/* a resolved route is taken as it is */
	pt_roce_own(&rec);
	rec.roce.route_resolved = true;
	rec.hop_limit = 9;
	eth_random_addr(rec.roce.dmac);
	if (RDMA_KT_EQ(ctx, ib_init_ah_attr_from_path(lt_dev, 1, &rec, &attr,
						      sgid), 0)) {
		RDMA_KT_EXPECT(ctx, ether_addr_equal(attr.roce.dmac,
						     rec.roce.dmac),
			       "dmac replaced");
		RDMA_KT_EQ(ctx, attr.grh.hop_limit, 9);
		rdma_destroy_ah_attr(&attr);
	}
	/* a source GID the port does not have, a port it does not have */
	pt_roce_own(&rec);
	rec.sgid.raw[15] ^= 0x40;
	RDMA_KT_EXPECT(ctx, ib_init_ah_attr_from_path(lt_dev, 1, &rec, &attr,
						      NULL) < 0,
		       "a vector from a GID the port lacks");
	pt_roce_own(&rec);
	RDMA_KT_EQ(ctx, ib_init_ah_attr_from_path(lt_dev, 2, &rec, &attr,
						  sgid), -EINVAL);
	rdma_put_gid_attr(sgid);
}

/* Clients register and unregister; there is no SA to ask. */
void path_sa_client(struct rdma_ktap_ctx *ctx)
{
	struct ib_sa_client client;
	struct ib_sa_query *query = NULL;
	struct sa_path_rec rec;

	ib_sa_register_client(&client);
	pt_roce_own(&rec);
	RDMA_KT_EQ(ctx, ib_sa_path_rec_get(&client, lt_dev, 1, &rec,
					   IB_SA_PATH_REC_DGID |
					   IB_SA_PATH_REC_SGID, 1000,
					   GFP_KERNEL, NULL, NULL, &query),
		   -EOPNOTSUPP);
	RDMA_KT_EXPECT(ctx, !query, "a query handle came back");
	ib_sa_unregister_client(&client);
	RDMA_KT_EQ(ctx, atomic_read(&client.users), 0);
}
