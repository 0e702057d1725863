// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Paths (struct sa_path_rec): the PathRecord attribute of the wire, the
 * address vector a path gives, and the SA client API.
 *
 * There is no SA client here.  Subnet administration belongs to an
 * InfiniBand fabric with a subnet manager; on RoCE, paths are built by
 * the RDMA CM from the IP route and by ib_cm from the REQ, never asked
 * for.  ib_sa_path_rec_get() therefore refuses every query with
 * -EOPNOTSUPP, so no query ever exists for ib_sa_cancel_query() to stop;
 * clients still register so that ULPs written for InfiniBand link and
 * load.
 */
#include <linux/unaligned.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sa.h>

#include "core_priv.h"

/*
 * The PathRecord attribute (IBTA 15.2.5.16), 64 bytes, big-endian: the
 * byte offset of each field and, for those sharing a 32-bit word, the
 * shift and width inside that word.
 */
#define PR_SERVICE_ID		0
#define PR_DGID			8
#define PR_SGID			24
#define PR_DLID			40
#define PR_SLID			42
#define PR_WORD_FLOW		44	/* raw:1 rsvd:3 flow label:20 hops:8 */
#define PR_WORD_TCLASS		48	/* tclass:8 rev:1 numb:7 pkey:16 */
#define PR_WORD_QOS		52	/* qos:12 sl:4 mtusel:2 mtu:6 ratesel:2 rate:6 */
#define PR_WORD_PLT		56	/* pltsel:2 plt:6 preference:8 rsvd:16 */

#define PR_FIELD(v, shift, bits)	(((u32)(v) & GENMASK((bits) - 1, 0)) << (shift))
#define PR_GET(w, shift, bits)		(((w) >> (shift)) & GENMASK((bits) - 1, 0))

/**
 * ib_sa_pack_path - a path as the PathRecord attribute of a MAD
 * @rec: the path
 * @attribute: 64 bytes to write; reserved bits are written as zero
 *
 * LIDs and the raw-traffic bit come from an InfiniBand path; other paths
 * have none and get zeros there.
 */
void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute)
{
	u8 *p = attribute;
	u32 w;

	memset(p, 0, IB_SA_PATH_REC_BYTES);
	memcpy(p + PR_SERVICE_ID, &rec->service_id, sizeof(rec->service_id));
	memcpy(p + PR_DGID, rec->dgid.raw, sizeof(rec->dgid));
	memcpy(p + PR_SGID, rec->sgid.raw, sizeof(rec->sgid));
	if (rec->rec_type == SA_PATH_REC_TYPE_IB) {
		memcpy(p + PR_DLID, &rec->ib.dlid, sizeof(rec->ib.dlid));
		memcpy(p + PR_SLID, &rec->ib.slid, sizeof(rec->ib.slid));
	}

	w = PR_FIELD(sa_path_get_raw_traffic(rec), 31, 1) |
	    PR_FIELD(be32_to_cpu(rec->flow_label), 8, 20) |
	    PR_FIELD(rec->hop_limit, 0, 8);
	put_unaligned_be32(w, p + PR_WORD_FLOW);
	w = PR_FIELD(rec->traffic_class, 24, 8) |
	    PR_FIELD(rec->reversible, 23, 1) |
	    PR_FIELD(rec->numb_path, 16, 7) |
	    PR_FIELD(be16_to_cpu(rec->pkey), 0, 16);
	put_unaligned_be32(w, p + PR_WORD_TCLASS);
	w = PR_FIELD(be16_to_cpu(rec->qos_class), 20, 12) |
	    PR_FIELD(rec->sl, 16, 4) |
	    PR_FIELD(rec->mtu_selector, 14, 2) |
	    PR_FIELD(rec->mtu, 8, 6) |
	    PR_FIELD(rec->rate_selector, 6, 2) |
	    PR_FIELD(rec->rate, 0, 6);
	put_unaligned_be32(w, p + PR_WORD_QOS);
	w = PR_FIELD(rec->packet_life_time_selector, 30, 2) |
	    PR_FIELD(rec->packet_life_time, 24, 6) |
	    PR_FIELD(rec->preference, 16, 8);
	put_unaligned_be32(w, p + PR_WORD_PLT);
}
EXPORT_SYMBOL(ib_sa_pack_path);

/**
 * ib_sa_unpack_path - a PathRecord attribute as an InfiniBand path
 * @attribute: the 64 bytes of a MAD
 * @rec: the path to fill; its type becomes SA_PATH_REC_TYPE_IB (the
 *	attribute does not say which link layer it is for)
 */
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec)
{
	const u8 *p = attribute;
	u32 w;

	memset(rec, 0, sizeof(*rec));
	rec->rec_type = SA_PATH_REC_TYPE_IB;
	memcpy(&rec->service_id, p + PR_SERVICE_ID, sizeof(rec->service_id));
	memcpy(rec->dgid.raw, p + PR_DGID, sizeof(rec->dgid));
	memcpy(rec->sgid.raw, p + PR_SGID, sizeof(rec->sgid));
	memcpy(&rec->ib.dlid, p + PR_DLID, sizeof(rec->ib.dlid));
	memcpy(&rec->ib.slid, p + PR_SLID, sizeof(rec->ib.slid));

	w = get_unaligned_be32(p + PR_WORD_FLOW);
	rec->ib.raw_traffic = PR_GET(w, 31, 1);
	rec->flow_label = cpu_to_be32(PR_GET(w, 8, 20));
	rec->hop_limit = PR_GET(w, 0, 8);
	w = get_unaligned_be32(p + PR_WORD_TCLASS);
	rec->traffic_class = PR_GET(w, 24, 8);
	rec->reversible = PR_GET(w, 23, 1);
	rec->numb_path = PR_GET(w, 16, 7);
	rec->pkey = cpu_to_be16(PR_GET(w, 0, 16));
	w = get_unaligned_be32(p + PR_WORD_QOS);
	rec->qos_class = cpu_to_be16(PR_GET(w, 20, 12));
	rec->sl = PR_GET(w, 16, 4);
	rec->mtu_selector = PR_GET(w, 14, 2);
	rec->mtu = PR_GET(w, 8, 6);
	rec->rate_selector = PR_GET(w, 6, 2);
	rec->rate = PR_GET(w, 0, 6);
	w = get_unaligned_be32(p + PR_WORD_PLT);
	rec->packet_life_time_selector = PR_GET(w, 30, 2);
	rec->packet_life_time = PR_GET(w, 24, 6);
	rec->preference = PR_GET(w, 16, 8);
}
EXPORT_SYMBOL(ib_sa_unpack_path);

/*
 * Fill in the next hop of a RoCE path from the route between its GIDs,
 * as seen from @sgid_attr's netdev.
 */
static int path_resolve_roce_route(struct sa_path_rec *rec,
				   const struct ib_gid_attr *sgid_attr)
{
	int hops = 0, ret;

	ret = rdma_addr_find_l2_eth_by_grh(&sgid_attr->gid, &rec->dgid,
					   rec->roce.dmac, sgid_attr, &hops);
	if (ret)
		return ret;
	rec->hop_limit = hops;
	rec->roce.route_resolved = true;
	return 0;
}

/**
 * ib_init_ah_attr_from_path - the address vector of a path
 * @device: the device
 * @port_num: the port the path leaves from
 * @rec: the path; a RoCE path whose route is not resolved yet gets it
 *	resolved here (its dmac, hop limit and route_resolved are set)
 * @ah_attr: filled in; it holds a reference to its source GID entry when
 *	it has a GRH, to be dropped with rdma_destroy_ah_attr()
 * @sgid_attr: the source GID entry, or NULL to look @rec->sgid up among
 *	the port's GIDs of the path's type; the caller keeps its reference
 *
 * RoCE paths and InfiniBand paths with a hop limit get a GRH; InfiniBand
 * paths get their LIDs (the low 7 bits of the source LID as path bits).
 *
 * Context: process context; resolving a RoCE route may sleep.
 * Return: 0, -EINVAL for a bad port, the GID lookup's error, or the
 * route's (see rdma_addr_find_l2_eth_by_grh()).
 */
int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr)
{
	bool roce = sa_path_is_roce(rec);
	const struct ib_gid_attr *gid;
	int ret;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	memset(ah_attr, 0, sizeof(*ah_attr));
	ah_attr->type = rdma_ah_find_type(device, port_num);
	rdma_ah_set_port_num(ah_attr, port_num);
	rdma_ah_set_sl(ah_attr, rec->sl);
	rdma_ah_set_static_rate(ah_attr, rec->rate);
	if (!roce) {
		rdma_ah_set_dlid(ah_attr, be32_to_cpu(sa_path_get_dlid(rec)));
		rdma_ah_set_path_bits(ah_attr,
				      be32_to_cpu(sa_path_get_slid(rec)) & 0x7f);
		if (!rec->hop_limit)
			return 0;
	}

	if (sgid_attr) {
		rdma_hold_gid_attr(sgid_attr);
		gid = sgid_attr;
	} else {
		gid = rdma_find_gid_by_port(device, &rec->sgid,
					    sa_conv_pathrec_to_gid_type(rec),
					    port_num, NULL);
		if (IS_ERR(gid)) {
			ibdev_dbg(device, "path from %pI6: no such GID on port %u\n",
				  rec->sgid.raw, port_num);
			return PTR_ERR(gid);
		}
	}
	if (roce && !rec->roce.route_resolved) {
		ret = path_resolve_roce_route(rec, gid);
		if (ret) {
			ibdev_dbg(device, "path to %pI6: no route: %d\n",
				  rec->dgid.raw, ret);
			rdma_put_gid_attr(gid);
			return ret;
		}
	}
	if (roce)
		ether_addr_copy(ah_attr->roce.dmac, rec->roce.dmac);
	/* the vector takes over the reference held here */
	rdma_move_grh_sgid_attr(ah_attr, &rec->dgid,
				be32_to_cpu(rec->flow_label), rec->hop_limit,
				rec->traffic_class, gid);
	return 0;
}
EXPORT_SYMBOL(ib_init_ah_attr_from_path);

/**
 * ib_sa_register_client - start using SA queries
 * @client: the client, owned by the caller until unregistered
 */
void ib_sa_register_client(struct ib_sa_client *client)
{
	init_completion(&client->comp);
	atomic_set(&client->users, 1);
}
EXPORT_SYMBOL(ib_sa_register_client);

/**
 * ib_sa_unregister_client - stop using SA queries
 * @client: the client
 *
 * Returns once none of the client's queries is left (there never is one
 * here, see the top of this file).
 */
void ib_sa_unregister_client(struct ib_sa_client *client)
{
	if (!atomic_dec_and_test(&client->users))
		wait_for_completion(&client->comp);
}
EXPORT_SYMBOL(ib_sa_unregister_client);

/**
 * ib_sa_path_rec_get - ask the subnet administrator for a path
 * @client: the client
 * @device: the device
 * @port_num: the port
 * @rec: what the path must match
 * @comp_mask: which fields of @rec matter
 * @timeout_ms: how long to wait for the answer
 * @gfp_mask: allocation flags
 * @callback: would get the answer
 * @context: for @callback
 * @query: would get the query's handle
 *
 * No port here has a subnet administrator to ask (RoCE has none; paths
 * come from the IP route), so the query is refused and @callback is
 * never called.
 *
 * Return: -EOPNOTSUPP.
 */
int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					unsigned int num_prs, void *context),
		       void *context, struct ib_sa_query **query)
{
	ibdev_dbg(device, "port %u: no subnet administrator to ask for a path\n",
		  port_num);
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_sa_path_rec_get);

/**
 * ib_sa_cancel_query - stop a query
 * @id: the query's ID
 * @query: the query
 *
 * ib_sa_path_rec_get() starts no query, so no ID and handle it could
 * have given can name a running one: there is nothing to stop.
 */
void ib_sa_cancel_query(int id, struct ib_sa_query *query)
{
	pr_debug("ib_core: SA query %d cancelled, none runs here\n", id);
}
EXPORT_SYMBOL(ib_sa_cancel_query);
