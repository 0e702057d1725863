/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Subnet administration (SA, IBTA Vol 1 chapter 15.2) types and the path
 * record helpers the connection managers share.
 *
 * A path (struct sa_path_rec) says how to reach a peer: GIDs, P_Key,
 * MTU, rate, SL, hop limit, flow label and, by rec_type, the link-layer
 * part: LIDs on InfiniBand, the next hop's MAC on RoCE.  On RoCE there
 * is no subnet manager to ask: the RDMA CM builds the path from the IP
 * route, and ib_cm rebuilds it from a REQ.  This core has no SA client:
 * ib_sa_path_rec_get() answers -EOPNOTSUPP on every port (it would only
 * mean something on an InfiniBand port, which no provider here has).
 *
 * ib_sa_pack_path() and ib_sa_unpack_path() convert between a path and
 * the 64-byte PathRecord attribute of the wire (IBTA 15.2.5.16).
 */
#ifndef IB_SA_H
#define IB_SA_H

#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>

#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_addr.h>

enum {
	IB_SA_CLASS_VERSION		= 2,	/* IB spec version 1.1/1.2 */

	IB_SA_METHOD_GET_TABLE		= 0x12,
	IB_SA_METHOD_GET_TABLE_RESP	= 0x92,
	IB_SA_METHOD_DELETE		= 0x15,
	IB_SA_METHOD_DELETE_RESP	= 0x95,
	IB_SA_METHOD_GET_MULTI		= 0x14,
	IB_SA_METHOD_GET_MULTI_RESP	= 0x94,
	IB_SA_METHOD_GET_TRACE_TBL	= 0x13
};

#define OPA_SA_CLASS_VERSION	0x80

/* SA attribute IDs */
enum {
	IB_SA_ATTR_CLASS_PORTINFO    = 0x01,
	IB_SA_ATTR_NOTICE	     = 0x02,
	IB_SA_ATTR_INFORM_INFO	     = 0x03,
	IB_SA_ATTR_NODE_REC	     = 0x11,
	IB_SA_ATTR_PORT_INFO_REC     = 0x12,
	IB_SA_ATTR_SL2VL_REC	     = 0x13,
	IB_SA_ATTR_SWITCH_REC	     = 0x14,
	IB_SA_ATTR_LINEAR_FDB_REC    = 0x15,
	IB_SA_ATTR_RANDOM_FDB_REC    = 0x16,
	IB_SA_ATTR_MCAST_FDB_REC     = 0x17,
	IB_SA_ATTR_SM_INFO_REC	     = 0x18,
	IB_SA_ATTR_LINK_REC	     = 0x20,
	IB_SA_ATTR_GUID_INFO_REC     = 0x30,
	IB_SA_ATTR_SERVICE_REC	     = 0x31,
	IB_SA_ATTR_PARTITION_REC     = 0x33,
	IB_SA_ATTR_PATH_REC	     = 0x35,
	IB_SA_ATTR_VL_ARB_REC	     = 0x36,
	IB_SA_ATTR_MC_MEMBER_REC     = 0x38,
	IB_SA_ATTR_TRACE_REC	     = 0x39,
	IB_SA_ATTR_MULTI_PATH_REC    = 0x3a,
	IB_SA_ATTR_SERVICE_ASSOC_REC = 0x3b,
	IB_SA_ATTR_INFORM_INFO_REC   = 0xf3
};

/* How a selector field qualifies the value next to it. */
enum ib_sa_selector {
	IB_SA_GT   = 0,
	IB_SA_LT   = 1,
	IB_SA_EQ   = 2,
	/* the best the fabric has: largest MTU, smallest life time... */
	IB_SA_BEST = 3
};

/*
 * Multicast membership kinds (the JoinState bits of an MCMemberRecord,
 * IBTA 15.2.5.17): rdma_join_multicast() takes BIT() of one of them.
 */
enum ib_sa_mc_join_states {
	FULLMEMBER_JOIN,
	NONMEMBER_JOIN,
	SENDONLY_NONMEBER_JOIN,
	SENDONLY_FULLMEMBER_JOIN,
	NUM_JOIN_MEMBERSHIP_TYPES,
};

/* PathRecord component mask bits (IBTA 15.2.5.16) */
#define IB_SA_PATH_REC_SERVICE_ID	(IB_SA_COMP_MASK(0) | IB_SA_COMP_MASK(1))
#define IB_SA_PATH_REC_DGID				IB_SA_COMP_MASK(2)
#define IB_SA_PATH_REC_SGID				IB_SA_COMP_MASK(3)
#define IB_SA_PATH_REC_DLID				IB_SA_COMP_MASK(4)
#define IB_SA_PATH_REC_SLID				IB_SA_COMP_MASK(5)
#define IB_SA_PATH_REC_RAW_TRAFFIC			IB_SA_COMP_MASK(6)
/* reserved:								 7 */
#define IB_SA_PATH_REC_FLOW_LABEL			IB_SA_COMP_MASK(8)
#define IB_SA_PATH_REC_HOP_LIMIT			IB_SA_COMP_MASK(9)
#define IB_SA_PATH_REC_TRAFFIC_CLASS			IB_SA_COMP_MASK(10)
#define IB_SA_PATH_REC_REVERSIBLE			IB_SA_COMP_MASK(11)
#define IB_SA_PATH_REC_NUMB_PATH			IB_SA_COMP_MASK(12)
#define IB_SA_PATH_REC_PKEY				IB_SA_COMP_MASK(13)
#define IB_SA_PATH_REC_QOS_CLASS			IB_SA_COMP_MASK(14)
#define IB_SA_PATH_REC_SL				IB_SA_COMP_MASK(15)
#define IB_SA_PATH_REC_MTU_SELECTOR			IB_SA_COMP_MASK(16)
#define IB_SA_PATH_REC_MTU				IB_SA_COMP_MASK(17)
#define IB_SA_PATH_REC_RATE_SELECTOR			IB_SA_COMP_MASK(18)
#define IB_SA_PATH_REC_RATE				IB_SA_COMP_MASK(19)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME_SELECTOR	IB_SA_COMP_MASK(20)
#define IB_SA_PATH_REC_PACKET_LIFE_TIME			IB_SA_COMP_MASK(21)
#define IB_SA_PATH_REC_PREFERENCE			IB_SA_COMP_MASK(22)

/* The size of a PathRecord attribute on the wire. */
#define IB_SA_PATH_REC_BYTES	64

/* Which link layer a path is for, and so which member of its union. */
enum sa_path_rec_type {
	SA_PATH_REC_TYPE_IB,
	SA_PATH_REC_TYPE_ROCE_V1,
	SA_PATH_REC_TYPE_ROCE_V2,
	SA_PATH_REC_TYPE_OPA
};

struct sa_path_rec_ib {
	__be16       dlid;
	__be16       slid;
	u8           raw_traffic;
};

/**
 * struct sa_path_rec_roce - the RoCE part of a path
 * @route_resolved: @dmac is known (the IP route was looked up)
 * @dmac: MAC of the next hop towards the destination GID
 */
struct sa_path_rec_roce {
	bool	route_resolved;
	u8	dmac[ETH_ALEN];
};

struct sa_path_rec_opa {
	__be32       dlid;
	__be32       slid;
	u8           raw_traffic;
	u8	     l2_8B;
	u8	     l2_10B;
	u8	     l2_9B;
	u8	     l2_16B;
	u8	     qos_type;
	u8	     qos_priority;
};

struct sa_path_rec {
	union ib_gid dgid;
	union ib_gid sgid;
	__be64       service_id;
	/* reserved */
	__be32       flow_label;
	u8           hop_limit;
	u8           traffic_class;
	u8           reversible;
	u8           numb_path;
	__be16       pkey;
	__be16       qos_class;
	u8           sl;
	u8           mtu_selector;
	u8           mtu;
	u8           rate_selector;
	u8           rate;
	u8           packet_life_time_selector;
	u8           packet_life_time;
	u8           preference;
	union {
		struct sa_path_rec_ib ib;
		struct sa_path_rec_roce roce;
		struct sa_path_rec_opa opa;
	};
	enum sa_path_rec_type rec_type;
	u32 flags;
};

/* The GID type a path of @rec's type uses. */
static inline enum ib_gid_type
sa_conv_pathrec_to_gid_type(struct sa_path_rec *rec)
{
	if (rec->rec_type == SA_PATH_REC_TYPE_ROCE_V2)
		return IB_GID_TYPE_ROCE_UDP_ENCAP;
	return rec->rec_type == SA_PATH_REC_TYPE_ROCE_V1 ? IB_GID_TYPE_ROCE :
							   IB_GID_TYPE_IB;
}

/* The path type for a GID of @type. */
static inline enum sa_path_rec_type
sa_conv_gid_to_pathrec_type(enum ib_gid_type type)
{
	if (type == IB_GID_TYPE_ROCE_UDP_ENCAP)
		return SA_PATH_REC_TYPE_ROCE_V2;
	return type == IB_GID_TYPE_ROCE ? SA_PATH_REC_TYPE_ROCE_V1 :
					  SA_PATH_REC_TYPE_IB;
}

/**
 * struct ib_sa_client - a user of SA queries
 * @users: outstanding queries, plus one while registered
 * @comp: completed when @users reaches zero
 */
struct ib_sa_client {
	atomic_t users;
	struct completion comp;
};

void ib_sa_register_client(struct ib_sa_client *client);
void ib_sa_unregister_client(struct ib_sa_client *client);

struct ib_sa_query;

void ib_sa_cancel_query(int id, struct ib_sa_query *query);

int ib_sa_path_rec_get(struct ib_sa_client *client, struct ib_device *device,
		       u32 port_num, struct sa_path_rec *rec,
		       ib_sa_comp_mask comp_mask, unsigned long timeout_ms,
		       gfp_t gfp_mask,
		       void (*callback)(int status, struct sa_path_rec *resp,
					unsigned int num_prs, void *context),
		       void *context, struct ib_sa_query **query);

int ib_init_ah_attr_from_path(struct ib_device *device, u32 port_num,
			      struct sa_path_rec *rec,
			      struct rdma_ah_attr *ah_attr,
			      const struct ib_gid_attr *sgid_attr);

void ib_sa_pack_path(struct sa_path_rec *rec, void *attribute);
void ib_sa_unpack_path(void *attribute, struct sa_path_rec *rec);

static inline bool sa_path_is_roce(struct sa_path_rec *rec)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_ROCE_V1:
	case SA_PATH_REC_TYPE_ROCE_V2:
		return true;
	default:
		return false;
	}
}

static inline bool sa_path_is_opa(struct sa_path_rec *rec)
{
	return rec->rec_type == SA_PATH_REC_TYPE_OPA;
}

/*
 * LIDs and the raw-traffic bit live in the IB or OPA part of a path; a
 * RoCE path has none (the setters leave it alone, the getters give 0).
 * The getters return a LID as a big-endian 32-bit value either way.
 */
static inline void sa_path_set_slid(struct sa_path_rec *rec, u32 slid)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		rec->ib.slid = cpu_to_be16(slid);
		break;
	case SA_PATH_REC_TYPE_OPA:
		rec->opa.slid = cpu_to_be32(slid);
		break;
	default:
		break;
	}
}

static inline void sa_path_set_dlid(struct sa_path_rec *rec, u32 dlid)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		rec->ib.dlid = cpu_to_be16(dlid);
		break;
	case SA_PATH_REC_TYPE_OPA:
		rec->opa.dlid = cpu_to_be32(dlid);
		break;
	default:
		break;
	}
}

static inline void sa_path_set_raw_traffic(struct sa_path_rec *rec,
					   u8 raw_traffic)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		rec->ib.raw_traffic = raw_traffic;
		break;
	case SA_PATH_REC_TYPE_OPA:
		rec->opa.raw_traffic = raw_traffic;
		break;
	default:
		break;
	}
}

static inline __be32 sa_path_get_slid(struct sa_path_rec *rec)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		return cpu_to_be32(be16_to_cpu(rec->ib.slid));
	case SA_PATH_REC_TYPE_OPA:
		return rec->opa.slid;
	default:
		return 0;
	}
}

static inline __be32 sa_path_get_dlid(struct sa_path_rec *rec)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		return cpu_to_be32(be16_to_cpu(rec->ib.dlid));
	case SA_PATH_REC_TYPE_OPA:
		return rec->opa.dlid;
	default:
		return 0;
	}
}

static inline u8 sa_path_get_raw_traffic(struct sa_path_rec *rec)
{
	switch (rec->rec_type) {
	case SA_PATH_REC_TYPE_IB:
		return rec->ib.raw_traffic;
	case SA_PATH_REC_TYPE_OPA:
		return rec->opa.raw_traffic;
	default:
		return 0;
	}
}

/* The next hop's MAC of a RoCE path; other paths have none. */
static inline void sa_path_set_dmac(struct sa_path_rec *rec, u8 *dmac)
{
	if (!sa_path_is_roce(rec))
		return;
	ether_addr_copy(rec->roce.dmac, dmac);
}

static inline void sa_path_set_dmac_zero(struct sa_path_rec *rec)
{
	if (!sa_path_is_roce(rec))
		return;
	eth_zero_addr(rec->roce.dmac);
}

static inline u8 *sa_path_get_dmac(struct sa_path_rec *rec)
{
	return sa_path_is_roce(rec) ? rec->roce.dmac : NULL;
}

#endif /* IB_SA_H */
