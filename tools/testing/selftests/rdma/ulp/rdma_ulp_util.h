/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers the test ULPs (ulp/), the bench load generator (bench/) and some
 * KTAP modules share: finding the source GID, parsing a peer's address
 * from module parameters, filling a RoCE address vector and making a UD QP
 * ready to send.  Upstream verbs API only, so that the
 * same header builds against this tree and against the stock kernel; the
 * top Makefile copies it next to the stock builds' sources.
 */
#ifndef RDMA_ULP_UTIL_H
#define RDMA_ULP_UTIL_H

#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

/*
 * The index of the first RoCE v2 GID of @port whose address is
 * IPv4-mapped (@v4) or IPv6 (!@v4), or -1 if there is none (yet).
 */
static inline int rdma_ulp_find_sgid(struct ib_device *dev, u32 port, bool v4)
{
	const struct ib_gid_attr *attr;
	int i, found = -1;

	for (i = 0; found < 0; i++) {
		attr = rdma_get_gid_attr(dev, port, i);
		if (IS_ERR(attr)) {
			if (PTR_ERR(attr) == -EINVAL)
				break;		/* past the end of the table */
			continue;		/* an empty slot */
		}
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw) == v4)
			found = i;
		rdma_put_gid_attr(attr);
	}
	return found;
}

/*
 * @ip (IPv4 or IPv6, as text) as a GID; sets *@v4 when it was IPv4 and
 * @v4 is not NULL.  Returns 0 or -EINVAL.
 */
static inline int rdma_ulp_parse_gid(const char *ip, union ib_gid *gid,
				     bool *v4)
{
	bool is_v4 = false;
	__be32 a4;

	if (!ip)
		return -EINVAL;
	if (in4_pton(ip, -1, (u8 *)&a4, -1, NULL)) {
		ipv6_addr_set_v4mapped(a4, (struct in6_addr *)gid->raw);
		is_v4 = true;
	} else if (!in6_pton(ip, -1, gid->raw, -1, NULL)) {
		return -EINVAL;
	}
	if (v4)
		*v4 = is_v4;
	return 0;
}

/* The peer's GID and MAC from the text of @ip and @mac: 0 or -EINVAL. */
static inline int rdma_ulp_parse_peer(const char *ip, const char *mac,
				      union ib_gid *gid, u8 *hw)
{
	if (!mac || !mac_pton(mac, hw))
		return -EINVAL;
	return rdma_ulp_parse_gid(ip, gid, NULL);
}

/*
 * A RoCE address vector from port @port's GID @sgid_index to @dgid at MAC
 * @dmac, hop limit 64.
 */
static inline void rdma_ulp_roce_ah_attr(struct ib_device *dev, u32 port,
					 union ib_gid *dgid,
					 int sgid_index, const u8 *dmac,
					 struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(dev, port);
	rdma_ah_set_port_num(attr, port);
	rdma_ah_set_grh(attr, dgid, 0, sgid_index, 64, 0);
	memcpy(attr->roce.dmac, dmac, ETH_ALEN);
}

/*
 * Take a new UD QP through INIT, RTR and RTS: on @port, P_Key index 0,
 * Q_Key @qkey, first send PSN @sq_psn.  Each transition carries the
 * attributes that step requires and no others.  Returns 0 or the error of
 * the transition that failed.
 */
static inline int rdma_ulp_ud_to_rts(struct ib_qp *qp, u32 port, u32 qkey,
				     u32 sq_psn)
{
	static const struct {
		enum ib_qp_state state;
		int mask;
	} steps[] = {
		{ IB_QPS_INIT, IB_QP_PKEY_INDEX | IB_QP_PORT | IB_QP_QKEY },
		{ IB_QPS_RTR, 0 },
		{ IB_QPS_RTS, IB_QP_SQ_PSN },
	};
	struct ib_qp_attr qa = {
		.port_num = port,
		.qkey = qkey,
		.sq_psn = sq_psn,
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; i < ARRAY_SIZE(steps) && !ret; i++) {
		qa.qp_state = steps[i].state;
		ret = ib_modify_qp(qp, &qa,
				   IB_QP_STATE | steps[i].mask);
	}
	return ret;
}

#endif /* RDMA_ULP_UTIL_H */
