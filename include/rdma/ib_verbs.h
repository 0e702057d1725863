/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The RDMA verbs API: what kernel consumers (ULPs) and providers share.
 *
 * This header carries the contract only: types, constants, inline helpers
 * and prototypes.  Names, values and signatures follow upstream Linux so that
 * code written against upstream builds unchanged; the core's private state
 * lives under drivers/infiniband/core.
 *
 * A few objects (struct ib_device, the PD/CQ/QP/SRQ/MR objects) still carry
 * members that only the core reads or writes.  They stay in the public
 * structures because upstream code expects the same layout of names; each
 * such group is marked "core-owned" and drivers and ULPs must not touch it.
 *
 * Layout of this file:
 *   1. printing helpers
 *   2. GIDs, network headers and transports
 *   3. rates, MTUs, QP states and attribute masks
 *   4. device and port attributes, port capability bits
 *   5. counters and asynchronous events
 *   6. address vectors and address handles
 *   7. completions and completion queues
 *   8. shared receive queues, queue pairs and work requests
 *   9. memory: access rights, PDs, MRs and MWs
 *  10. the driver interface: struct ib_device_ops
 *  11. struct ib_device, clients and the device API
 *  12. per-port capability tests
 *  13. verbs entry points (PD, AH, SRQ, QP, CQ, MR, multicast)
 *  14. DMA mapping helpers
 *  15. address vector accessors
 *  16. RoCE v2 helpers and other small helpers
 *
 * The pure parts of sections 2 to 4 and 16 (wire types, rate and MTU codes,
 * QP states) live in three small headers included below, <rdma/ib_net_hdr.h>,
 * <rdma/ib_link.h> and <rdma/ib_qp_state.h>, so that the code implementing
 * them depends on nothing else and builds into user-space unit tests too.
 */
#ifndef IB_VERBS_H
#define IB_VERBS_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/bvec.h>
#include <linux/compiler.h>
#include <linux/completion.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/dynamic_debug.h>
#include <linux/ethtool.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/irq_poll.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/ratelimit.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <asm/byteorder.h>
#include <uapi/linux/if_ether.h>
#include <uapi/rdma/ib_user_verbs.h>
#include <uapi/rdma/ib_user_ioctl_verbs.h>
#include <uapi/rdma/rdma_netlink.h>
#include <rdma/ib_link.h>
#include <rdma/ib_net_hdr.h>
#include <rdma/ib_qp_state.h>
#include <rdma/restrack.h>
#include <rdma/signature.h>

/*
 * Objects of neighbouring subsystems (user verbs, CM, MAD, flow steering,
 * device memory, counters) that appear here only behind pointers.
 */
struct dim;
struct ib_counters;
struct ib_counters_read_attr;
struct ib_dm;
struct ib_dm_alloc_attr;
struct ib_dm_mr_attr;
struct ib_flow;
struct ib_flow_action;
struct ib_flow_attr;
struct ib_gid_table;
struct ib_mad;
struct ib_pkey_cache;
struct ib_port;
struct ib_qp_security;
struct ib_rwq_ind_table;
struct ib_rwq_ind_table_init_attr;
struct ib_ucq_object;
struct ib_umem;
struct ib_uqp_object;
struct ib_usrq_object;
struct ib_uverbs_file;
struct ib_wq;
struct ib_wq_attr;
struct ib_wq_init_attr;
struct ib_xrcd;
struct hw_stats_device_data;
struct iw_cm_conn_param;
struct iw_cm_id;
struct rdma_cgroup;
struct rdma_cm_id;
struct rdma_counter;
struct rdma_link_ops;
struct rdma_restrack_root;
struct uapi_definition;
struct uverbs_api_object;
struct uverbs_attr_bundle;

struct ib_client_nl_info;
struct ib_cq;
struct ib_device;
struct ib_mr;
struct ib_pd;
struct ib_qp;
struct ib_srq;
struct ib_uobject;
struct ib_wc;

/*
 * Work queues the core creates at module load: ib_wq for general deferred
 * work, the other two for polling completion queues (IB_POLL_WORKQUEUE and
 * IB_POLL_UNBOUND_WORKQUEUE).
 */
extern struct workqueue_struct *ib_wq;
extern struct workqueue_struct *ib_comp_wq;
extern struct workqueue_struct *ib_comp_unbound_wq;

/* ---------------------------------------------------------------------------
 * 1. Printing
 *
 * Messages carry the driver, parent device and RDMA device names.  They are
 * implemented in the core against this header's struct ib_device.
 */
__printf(3, 4) __cold
void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...);
__printf(2, 3) __cold
void ibdev_emerg(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_alert(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_crit(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_err(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_warn(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_notice(const struct ib_device *ibdev, const char *format, ...);
__printf(2, 3) __cold
void ibdev_info(const struct ib_device *ibdev, const char *format, ...);

/*
 * Rate-limited forms: every call site keeps its own limit.  @print is one
 * of the functions above (or any function-like macro taking the same
 * arguments).
 */
#define ibdev_level_ratelimited(print, ibdev, ...)			\
do {									\
	static DEFINE_RATELIMIT_STATE(__ibdev_rs,			\
				      DEFAULT_RATELIMIT_INTERVAL,	\
				      DEFAULT_RATELIMIT_BURST);		\
									\
	if (__ratelimit(&__ibdev_rs))					\
		print(ibdev, __VA_ARGS__);				\
} while (0)

#define ibdev_emerg_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_emerg, ibdev, __VA_ARGS__)
#define ibdev_alert_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_alert, ibdev, __VA_ARGS__)
#define ibdev_crit_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_crit, ibdev, __VA_ARGS__)
#define ibdev_err_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_err, ibdev, __VA_ARGS__)
#define ibdev_warn_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_warn, ibdev, __VA_ARGS__)
#define ibdev_notice_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_notice, ibdev, __VA_ARGS__)
#define ibdev_info_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(ibdev_info, ibdev, __VA_ARGS__)

/*
 * Debug messages.  With dynamic debug each call site gets its own switch
 * and prints through ibdev_printk(); the rate limit of the _ratelimited
 * form is only consulted once the site is switched on, so a silent site
 * never logs "callbacks suppressed".  The kernel's own dynamic_ibdev_dbg()
 * is deliberately not used: it is built into vmlinux against the stock
 * struct ib_device layout, which this header does not reproduce.
 */
#define __ibdev_printk_debug(ibdev, fmt, ...) \
	ibdev_printk(KERN_DEBUG, ibdev, fmt, ##__VA_ARGS__)
/* The format of a (format, args...) list, for the call site descriptor. */
#define __ibdev_dbg_format(fmt, ...)	fmt

#if defined(CONFIG_DYNAMIC_DEBUG) || \
	(defined(CONFIG_DYNAMIC_DEBUG_CORE) && defined(DYNAMIC_DEBUG_MODULE))
#define ibdev_dbg(ibdev, ...)						\
	_dynamic_func_call_no_desc(__ibdev_dbg_format(__VA_ARGS__, 0),	\
				   __ibdev_printk_debug, ibdev, __VA_ARGS__)
#define ibdev_dbg_ratelimited(ibdev, ...)				\
	_dynamic_func_call_no_desc(__ibdev_dbg_format(__VA_ARGS__, 0),	\
				   ibdev_level_ratelimited,		\
				   __ibdev_printk_debug, ibdev, __VA_ARGS__)
#elif defined(DEBUG)
#define ibdev_dbg(ibdev, ...) \
	__ibdev_printk_debug(ibdev, __VA_ARGS__)
#define ibdev_dbg_ratelimited(ibdev, ...) \
	ibdev_level_ratelimited(__ibdev_printk_debug, ibdev, __VA_ARGS__)
#else
__printf(2, 3) __cold
static inline void ibdev_dbg(const struct ib_device *ibdev,
			     const char *format, ...)
{
}

__printf(2, 3) __cold
static inline void ibdev_dbg_ratelimited(const struct ib_device *ibdev,
					 const char *format, ...)
{
}
#endif

/* ---------------------------------------------------------------------------
 * 2. GIDs, network headers and transports
 */

/* The all-zero GID: an unused GID table slot reads as this value. */
extern union ib_gid zgid;

/*
 * One entry of a port's GID table, as the cache hands it out.  The entry is
 * reference counted (rdma_hold_gid_attr()/rdma_put_gid_attr() in
 * <rdma/ib_cache.h>); while a reference is held the fields below do not
 * change, except that @ndev may be cleared when its netdev goes away, so it
 * is read under RCU.
 */
struct ib_gid_attr {
	struct net_device __rcu	*ndev;
	struct ib_device	*device;
	union ib_gid		gid;
	enum ib_gid_type	gid_type;
	u16			index;
	u32			port_num;
};

/*
 * Interface ID an SA uses for itself: EUI-64 with the locally administered
 * bit set, value 2.
 */
enum {
	IB_SA_WELL_KNOWN_GUID	= BIT_ULL(57) | 2,
};

/**
 * rdma_gid_attr_network_type() - network header a GID entry sends with
 * @attr: the GID table entry
 *
 * RoCE v2 entries holding an IPv4-mapped address use IPv4 headers, other
 * RoCE v2 entries IPv6; IB and RoCE v1 entries map one to one.
 *
 * Return: the network type packets from this GID carry.
 */
static inline enum rdma_network_type
rdma_gid_attr_network_type(const struct ib_gid_attr *attr)
{
	bool v4 = ipv6_addr_v4mapped((const struct in6_addr *)&attr->gid);

	switch (attr->gid_type) {
	case IB_GID_TYPE_IB:
		return RDMA_NETWORK_IB;
	case IB_GID_TYPE_ROCE:
		return RDMA_NETWORK_ROCE_V1;
	default:
		return v4 ? RDMA_NETWORK_IPV4 : RDMA_NETWORK_IPV6;
	}
}

/*
 * Transport a node type implies, and the protocol a port speaks.  Node
 * types (RDMA_NODE_IB_CA, RDMA_NODE_RNIC, ...) come from the netlink uapi.
 */
enum rdma_transport_type {
	RDMA_TRANSPORT_IB,
	RDMA_TRANSPORT_IWARP,
	RDMA_TRANSPORT_USNIC,
	RDMA_TRANSPORT_USNIC_UDP,
	RDMA_TRANSPORT_UNSPECIFIED,
};

enum rdma_protocol_type {
	RDMA_PROTOCOL_IB,
	RDMA_PROTOCOL_IBOE,
	RDMA_PROTOCOL_IWARP,
	RDMA_PROTOCOL_USNIC_UDP
};

__attribute_const__ enum rdma_transport_type
rdma_node_get_transport(unsigned int node_type);

/* Link layer under a port, as rdma_port_get_link_layer() reports it. */
enum rdma_link_layer {
	IB_LINK_LAYER_UNSPECIFIED,
	IB_LINK_LAYER_INFINIBAND,
	IB_LINK_LAYER_ETHERNET,
};

/* Multicast and special addressing values. */
#define IB_QPN_MASK		0xFFFFFF
enum {
	IB_MULTICAST_QPN = 0xffffff
};

#define IB_LID_PERMISSIVE	cpu_to_be16(0xFFFF)
#define IB_MULTICAST_LID_BASE	cpu_to_be16(0xC000)

/* ---------------------------------------------------------------------------
 * 3. Rates, MTUs, QP states and attribute masks
 */

/*
 * RNR NAK timer codes (IBA table 45): the name gives the delay in
 * milliseconds, code 0 being the longest.
 */
enum ib_rnr_timeout {
	IB_RNR_TIMER_655_36 =  0,
	IB_RNR_TIMER_000_01 =  1,
	IB_RNR_TIMER_000_02 =  2,
	IB_RNR_TIMER_000_03 =  3,
	IB_RNR_TIMER_000_04 =  4,
	IB_RNR_TIMER_000_06 =  5,
	IB_RNR_TIMER_000_08 =  6,
	IB_RNR_TIMER_000_12 =  7,
	IB_RNR_TIMER_000_16 =  8,
	IB_RNR_TIMER_000_24 =  9,
	IB_RNR_TIMER_000_32 = 10,
	IB_RNR_TIMER_000_48 = 11,
	IB_RNR_TIMER_000_64 = 12,
	IB_RNR_TIMER_000_96 = 13,
	IB_RNR_TIMER_001_28 = 14,
	IB_RNR_TIMER_001_92 = 15,
	IB_RNR_TIMER_002_56 = 16,
	IB_RNR_TIMER_003_84 = 17,
	IB_RNR_TIMER_005_12 = 18,
	IB_RNR_TIMER_007_68 = 19,
	IB_RNR_TIMER_010_24 = 20,
	IB_RNR_TIMER_015_36 = 21,
	IB_RNR_TIMER_020_48 = 22,
	IB_RNR_TIMER_030_72 = 23,
	IB_RNR_TIMER_040_96 = 24,
	IB_RNR_TIMER_061_44 = 25,
	IB_RNR_TIMER_081_92 = 26,
	IB_RNR_TIMER_122_88 = 27,
	IB_RNR_TIMER_163_84 = 28,
	IB_RNR_TIMER_245_76 = 29,
	IB_RNR_TIMER_327_68 = 30,
	IB_RNR_TIMER_491_52 = 31
};

/* ---------------------------------------------------------------------------
 * 4. Device and port attributes
 */

/*
 * Device capability bits reported in ib_device_attr.device_cap_flags.  They
 * share their values with the uverbs ABI, so user space sees the same bits.
 */
enum ib_device_cap_flags {
	IB_DEVICE_RESIZE_MAX_WR = IB_UVERBS_DEVICE_RESIZE_MAX_WR,
	IB_DEVICE_BAD_PKEY_CNTR = IB_UVERBS_DEVICE_BAD_PKEY_CNTR,
	IB_DEVICE_BAD_QKEY_CNTR = IB_UVERBS_DEVICE_BAD_QKEY_CNTR,
	IB_DEVICE_RAW_MULTI = IB_UVERBS_DEVICE_RAW_MULTI,
	IB_DEVICE_AUTO_PATH_MIG = IB_UVERBS_DEVICE_AUTO_PATH_MIG,
	IB_DEVICE_CHANGE_PHY_PORT = IB_UVERBS_DEVICE_CHANGE_PHY_PORT,
	IB_DEVICE_UD_AV_PORT_ENFORCE = IB_UVERBS_DEVICE_UD_AV_PORT_ENFORCE,
	IB_DEVICE_CURR_QP_STATE_MOD = IB_UVERBS_DEVICE_CURR_QP_STATE_MOD,
	IB_DEVICE_SHUTDOWN_PORT = IB_UVERBS_DEVICE_SHUTDOWN_PORT,
	IB_DEVICE_PORT_ACTIVE_EVENT = IB_UVERBS_DEVICE_PORT_ACTIVE_EVENT,
	IB_DEVICE_SYS_IMAGE_GUID = IB_UVERBS_DEVICE_SYS_IMAGE_GUID,
	IB_DEVICE_RC_RNR_NAK_GEN = IB_UVERBS_DEVICE_RC_RNR_NAK_GEN,
	IB_DEVICE_SRQ_RESIZE = IB_UVERBS_DEVICE_SRQ_RESIZE,
	IB_DEVICE_N_NOTIFY_CQ = IB_UVERBS_DEVICE_N_NOTIFY_CQ,
	IB_DEVICE_MEM_WINDOW = IB_UVERBS_DEVICE_MEM_WINDOW,
	/* Checksum offload for UD datagrams (lets IPoIB offer IP csum). */
	IB_DEVICE_UD_IP_CSUM = IB_UVERBS_DEVICE_UD_IP_CSUM,
	IB_DEVICE_XRC = IB_UVERBS_DEVICE_XRC,
	/*
	 * Fast registration work requests (REG_MR, LOCAL_INV, SEND_WITH_INV);
	 * iWARP devices set it too and also accept RDMA_READ_WITH_INV.
	 */
	IB_DEVICE_MEM_MGT_EXTENSIONS = IB_UVERBS_DEVICE_MEM_MGT_EXTENSIONS,
	IB_DEVICE_MEM_WINDOW_TYPE_2A = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2A,
	IB_DEVICE_MEM_WINDOW_TYPE_2B = IB_UVERBS_DEVICE_MEM_WINDOW_TYPE_2B,
	IB_DEVICE_RC_IP_CSUM = IB_UVERBS_DEVICE_RC_IP_CSUM,
	/* Old spelling of IB_RAW_PACKET_CAP_IP_CSUM. */
	IB_DEVICE_RAW_IP_CSUM = IB_UVERBS_DEVICE_RAW_IP_CSUM,
	IB_DEVICE_MANAGED_FLOW_STEERING =
		IB_UVERBS_DEVICE_MANAGED_FLOW_STEERING,
	/* Old spelling of IB_RAW_PACKET_CAP_SCATTER_FCS. */
	IB_DEVICE_RAW_SCATTER_FCS = IB_UVERBS_DEVICE_RAW_SCATTER_FCS,
	/* Incoming writes may be padded up to a cache line. */
	IB_DEVICE_PCI_WRITE_END_PADDING =
		IB_UVERBS_DEVICE_PCI_WRITE_END_PADDING,
	/* Where a FLUSH may place data. */
	IB_DEVICE_FLUSH_GLOBAL = IB_UVERBS_DEVICE_FLUSH_GLOBAL,
	IB_DEVICE_FLUSH_PERSISTENT = IB_UVERBS_DEVICE_FLUSH_PERSISTENT,
	IB_DEVICE_ATOMIC_WRITE = IB_UVERBS_DEVICE_ATOMIC_WRITE,
};

/*
 * Capabilities only kernel users care about, in
 * ib_device_attr.kernel_cap_flags.
 */
enum ib_kernel_cap_flags {
	/*
	 * One lkey covers all local memory without registration.  ULPs read
	 * ib_pd.local_dma_lkey instead of testing this bit: the core fills
	 * it in either way.
	 */
	IBK_LOCAL_DMA_LKEY		= BIT(0),
	/* IB_QP_CREATE_INTEGRITY_EN works (T10-PI offload). */
	IBK_INTEGRITY_HANDOVER		= BIT(1),
	/* reg_user_mr() accepts IB_ACCESS_ON_DEMAND. */
	IBK_ON_DEMAND_PAGING		= BIT(2),
	/* IB_MR_TYPE_SG_GAPS can be allocated. */
	IBK_SG_GAPS_REG			= BIT(3),
	/* The device may be removed with RDMA_NLDEV_CMD_DELLINK. */
	IBK_ALLOW_USER_UNREG		= BIT(4),
	/* IPoIB may ask for IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK. */
	IBK_BLOCK_MULTICAST_LOOPBACK	= BIT(5),
	/* IPoIB may ask for IB_QP_CREATE_IPOIB_UD_LSO. */
	IBK_UD_TSO			= BIT(6),
	/* IPoIB may use the get/set_vf_* device operations. */
	IBK_VIRTUAL_FUNCTION		= BIT(7),
	/* IPoIB may ask for IB_QP_CREATE_NETDEV_USE. */
	IBK_RDMA_NETDEV_OPA		= BIT(8),
};

enum ib_atomic_cap {
	IB_ATOMIC_NONE,
	IB_ATOMIC_HCA,
	IB_ATOMIC_GLOB
};

/* On-demand paging support, overall and per transport. */
enum ib_odp_general_cap_bits {
	IB_ODP_SUPPORT		= BIT(0),
	IB_ODP_SUPPORT_IMPLICIT	= BIT(1),
};

enum ib_odp_transport_cap_bits {
	IB_ODP_SUPPORT_SEND	= BIT(0),
	IB_ODP_SUPPORT_RECV	= BIT(1),
	IB_ODP_SUPPORT_WRITE	= BIT(2),
	IB_ODP_SUPPORT_READ	= BIT(3),
	IB_ODP_SUPPORT_ATOMIC	= BIT(4),
	IB_ODP_SUPPORT_SRQ_RECV	= BIT(5),
};

struct ib_odp_caps {
	u64 general_caps;
	struct {
		u32 rc_odp_caps;
		u32 uc_odp_caps;
		u32 ud_odp_caps;
		u32 xrc_odp_caps;
	} per_transport_caps;
};

/* Receive-side scaling: @supported_qpts has bit (1 << qp_type) set. */
struct ib_rss_caps {
	u32 supported_qpts;
	u32 max_rwq_indirection_tables;
	u32 max_rwq_indirection_table_size;
};

/* Tag matching offload limits. */
enum ib_tm_cap_flags {
	IB_TM_CAP_RNDV_RC = BIT(0),	/* rendezvous offload on RC */
};

struct ib_tm_caps {
	u32 max_rndv_hdr_size;
	u32 max_num_tags;
	u32 flags;			/* enum ib_tm_cap_flags */
	u32 max_ops;
	u32 max_sge;
};

/* Interrupt moderation limits of CQs. */
struct ib_cq_caps {
	u16 max_cq_moderation_count;
	u16 max_cq_moderation_period;	/* microseconds */
};

/* Offloads of raw packet QPs, in ib_device_attr.raw_packet_caps. */
enum ib_raw_packet_caps {
	/* Strip the C-VLAN and report it in the completion. */
	IB_RAW_PACKET_CAP_CVLAN_STRIPPING =
		IB_UVERBS_RAW_PACKET_CAP_CVLAN_STRIPPING,
	/* Deliver the Ethernet FCS to memory. */
	IB_RAW_PACKET_CAP_SCATTER_FCS = IB_UVERBS_RAW_PACKET_CAP_SCATTER_FCS,
	/* Checksum offload on send and receive. */
	IB_RAW_PACKET_CAP_IP_CSUM = IB_UVERBS_RAW_PACKET_CAP_IP_CSUM,
	/* Hold packets for an empty receive queue instead of dropping. */
	IB_RAW_PACKET_CAP_DELAY_DROP = IB_UVERBS_RAW_PACKET_CAP_DELAY_DROP,
};

/*
 * Limits and capabilities of a device.  The provider fills in
 * ib_device.attrs before registering; kernel users read that copy directly
 * (there is no query verb for kernel callers).
 */
struct ib_device_attr {
	u64			fw_ver;
	__be64			sys_image_guid;
	u64			max_mr_size;
	u64			page_size_cap;
	u32			vendor_id;
	u32			vendor_part_id;
	u32			hw_ver;
	int			max_qp;
	int			max_qp_wr;
	u64			device_cap_flags;	/* ib_device_cap_flags */
	u64			kernel_cap_flags;	/* ib_kernel_cap_flags */
	int			max_send_sge;
	int			max_recv_sge;
	int			max_sge_rd;
	int			max_cq;
	int			max_cqe;
	int			max_mr;
	int			max_pd;
	int			max_qp_rd_atom;
	int			max_ee_rd_atom;
	int			max_res_rd_atom;
	int			max_qp_init_rd_atom;
	int			max_ee_init_rd_atom;
	enum ib_atomic_cap	atomic_cap;
	enum ib_atomic_cap	masked_atomic_cap;
	int			max_ee;
	int			max_rdd;
	int			max_mw;
	int			max_raw_ipv6_qp;
	int			max_raw_ethy_qp;
	int			max_mcast_grp;
	int			max_mcast_qp_attach;
	int			max_total_mcast_qp_attach;
	int			max_ah;
	int			max_srq;
	int			max_srq_wr;
	int			max_srq_sge;
	unsigned int		max_fast_reg_page_list_len;
	unsigned int		max_pi_fast_reg_page_list_len;
	u16			max_pkeys;
	u8			local_ca_ack_delay;
	int			sig_prot_cap;	/* ib_signature_prot_cap */
	int			sig_guard_cap;	/* ib_signature_guard_cap */
	struct ib_odp_caps	odp_caps;
	u64			timestamp_mask;
	u64			hca_core_clock;	/* kHz */
	struct ib_rss_caps	rss_caps;
	u32			max_wq_type_rq;
	u32			raw_packet_caps; /* ib_raw_packet_caps */
	struct ib_tm_caps	tm_caps;
	struct ib_cq_caps	cq_caps;
	u64			max_dm_size;
	/* SGEs per RDMA READ beyond which performance drops. */
	u32			max_sgl_rd;
};

/* Sizes of the node description and firmware version strings. */
#define IB_DEVICE_NODE_DESC_MAX	64
#define IB_FW_VERSION_NAME_MAX	ETHTOOL_FWVERS_LEN

/* What ib_modify_device() may change. */
enum ib_device_modify_flags {
	IB_DEVICE_MODIFY_SYS_IMAGE_GUID	= BIT(0),
	IB_DEVICE_MODIFY_NODE_DESC	= BIT(1)
};

struct ib_device_modify {
	u64	sys_image_guid;
	char	node_desc[IB_DEVICE_NODE_DESC_MAX];
};

/* What ib_modify_port() may change. */
enum ib_port_modify_flags {
	IB_PORT_SHUTDOWN		= BIT(0),
	IB_PORT_INIT_TYPE		= BIT(2),
	IB_PORT_RESET_QKEY_CNTR		= BIT(3),
	IB_PORT_OPA_MASK_CHG		= BIT(4)
};

struct ib_port_modify {
	u32	set_port_cap_mask;
	u32	clr_port_cap_mask;
	u8	init_type;
};

/*
 * Per-port core capability bits (ib_port_immutable.core_cap_flags).  The
 * provider reports them once, from get_port_immutable(); the rdma_cap_*()
 * and rdma_protocol_*() helpers test them.
 *
 * Bits 0-11: management interfaces the port needs.
 */
#define RDMA_CORE_CAP_IB_MAD		0x00000001
#define RDMA_CORE_CAP_IB_SMI		0x00000002
#define RDMA_CORE_CAP_IB_CM		0x00000004
#define RDMA_CORE_CAP_IW_CM		0x00000008
#define RDMA_CORE_CAP_IB_SA		0x00000010
#define RDMA_CORE_CAP_OPA_MAD		0x00000020
/* Bits 12-19: how the port addresses a peer. */
#define RDMA_CORE_CAP_AF_IB		0x00001000
#define RDMA_CORE_CAP_ETH_AH		0x00002000
#define RDMA_CORE_CAP_OPA_AH		0x00004000
#define RDMA_CORE_CAP_IB_GRH_REQUIRED	0x00008000
/* Bits 20-31: the wire protocol. */
#define RDMA_CORE_CAP_PROT_IB		0x00100000
#define RDMA_CORE_CAP_PROT_ROCE		0x00200000
#define RDMA_CORE_CAP_PROT_IWARP	0x00400000
#define RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP 0x00800000
#define RDMA_CORE_CAP_PROT_RAW_PACKET	0x01000000
#define RDMA_CORE_CAP_PROT_USNIC	0x02000000

/*
 * Any of these bits means an address vector on the port must carry a GRH
 * (every RoCE port, and IB ports that ask for it).
 */
#define RDMA_CORE_PORT_IB_GRH_REQUIRED	(RDMA_CORE_CAP_IB_GRH_REQUIRED | \
					 RDMA_CORE_CAP_PROT_ROCE | \
					 RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP)

/* Complete capability sets for the common kinds of port. */
#define RDMA_CORE_PORT_IBA_IB		(RDMA_CORE_CAP_PROT_IB | \
					 RDMA_CORE_CAP_IB_MAD | \
					 RDMA_CORE_CAP_IB_SMI | \
					 RDMA_CORE_CAP_IB_CM | \
					 RDMA_CORE_CAP_IB_SA | \
					 RDMA_CORE_CAP_AF_IB)
#define RDMA_CORE_PORT_IBA_ROCE		(RDMA_CORE_CAP_PROT_ROCE | \
					 RDMA_CORE_CAP_IB_MAD | \
					 RDMA_CORE_CAP_IB_CM | \
					 RDMA_CORE_CAP_AF_IB | \
					 RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP \
					(RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP | \
					 RDMA_CORE_CAP_IB_MAD | \
					 RDMA_CORE_CAP_IB_CM | \
					 RDMA_CORE_CAP_AF_IB | \
					 RDMA_CORE_CAP_ETH_AH)
#define RDMA_CORE_PORT_IWARP		(RDMA_CORE_CAP_PROT_IWARP | \
					 RDMA_CORE_CAP_IW_CM)
#define RDMA_CORE_PORT_INTEL_OPA	(RDMA_CORE_PORT_IBA_IB | \
					 RDMA_CORE_CAP_OPA_MAD)
#define RDMA_CORE_PORT_RAW_PACKET	(RDMA_CORE_CAP_PROT_RAW_PACKET)
#define RDMA_CORE_PORT_USNIC		(RDMA_CORE_CAP_PROT_USNIC)

/*
 * Port properties that never change while the device is registered; the
 * core asks the provider once (get_port_immutable) and keeps the answer in
 * ib_port_data.immutable.
 */
struct ib_port_immutable {
	int	pkey_tbl_len;
	int	gid_tbl_len;
	u32	core_cap_flags;		/* RDMA_CORE_CAP_* bits */
	u32	max_mad_size;		/* 0 if the port has no MADs */
};

/* ---------------------------------------------------------------------------
 * 5. Hardware counters and asynchronous events
 */

enum ib_stat_flag {
	/* The counter can be switched on and off at run time. */
	IB_STAT_FLAG_OPTIONAL = BIT(0),
};

/*
 * Static description of one hardware counter: the name shown to users,
 * IB_STAT_FLAG_* bits, and a cookie only the driver interprets.
 */
struct rdma_stat_desc {
	const char	*name;
	unsigned int	flags;
	const void	*priv;
};

/*
 * A block of counters of a device, a port or a bound counter object.
 *
 * @lock serialises refreshes, since 64-bit values may tear on 32-bit
 * machines; @timestamp (jiffies) is when the values were last refreshed and
 * @lifespan (jiffies) how long they are served from this cache before the
 * driver's get_hw_stats() is called again.  @descs has @num_counters
 * entries; @value holds one value per descriptor and @is_disabled one bit
 * per descriptor (set for optional counters that are switched off).
 */
struct rdma_hw_stats {
	struct mutex			lock;	/* serialises refreshes */
	unsigned long			timestamp;
	unsigned long			lifespan;
	const struct rdma_stat_desc	*descs;
	unsigned long			*is_disabled;
	int				num_counters;
	u64				value[] __counted_by(num_counters);
};

/* Default cache time of counter values, in milliseconds. */
#define RDMA_HW_STATS_DEFAULT_LIFESPAN	10

/*
 * Allocate a counter block for @num_counters descriptors; @lifespan is in
 * milliseconds.  Returns NULL when out of memory.  The free is NULL-safe.
 */
struct rdma_hw_stats *
rdma_alloc_hw_stats_struct(const struct rdma_stat_desc *descs,
			   int num_counters, unsigned long lifespan);
void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats);

/* Asynchronous events a device reports (IBA 11.6.3 plus Linux additions). */
enum ib_event_type {
	IB_EVENT_CQ_ERR,
	IB_EVENT_QP_FATAL,
	IB_EVENT_QP_REQ_ERR,
	IB_EVENT_QP_ACCESS_ERR,
	IB_EVENT_COMM_EST,
	IB_EVENT_SQ_DRAINED,
	IB_EVENT_PATH_MIG,
	IB_EVENT_PATH_MIG_ERR,
	IB_EVENT_DEVICE_FATAL,
	IB_EVENT_PORT_ACTIVE,
	IB_EVENT_PORT_ERR,
	IB_EVENT_LID_CHANGE,
	IB_EVENT_PKEY_CHANGE,
	IB_EVENT_SM_CHANGE,
	IB_EVENT_SRQ_ERR,
	IB_EVENT_SRQ_LIMIT_REACHED,
	IB_EVENT_QP_LAST_WQE_REACHED,
	IB_EVENT_CLIENT_REREGISTER,
	IB_EVENT_GID_CHANGE,
	IB_EVENT_WQ_FATAL,
};

/* Printable name of an event, for log messages. */
const char *__attribute_const__ ib_event_msg(enum ib_event_type event);

/*
 * One event.  Which member of @element is valid depends on @event: the CQ,
 * QP, SRQ or WQ for object events, the port number for port events.
 */
struct ib_event {
	struct ib_device	*device;
	union {
		struct ib_cq	*cq;
		struct ib_qp	*qp;
		struct ib_srq	*srq;
		struct ib_wq	*wq;
		u32		port_num;
	} element;
	enum ib_event_type	event;
};

/*
 * A subscriber to the device-wide events (port, GID, P_Key, device fatal).
 * Object events go to the handler given when the object was created.
 */
struct ib_event_handler {
	struct ib_device	*device;
	void			(*handler)(struct ib_event_handler *handler,
					   struct ib_event *event);
	struct list_head	list;
};

#define INIT_IB_EVENT_HANDLER(_ptr, _device, _handler)			\
	do {								\
		struct ib_event_handler *__eh = (_ptr);			\
									\
		__eh->device = (_device);				\
		__eh->handler = (_handler);				\
		INIT_LIST_HEAD(&__eh->list);				\
	} while (0)

void ib_register_event_handler(struct ib_event_handler *event_handler);
void ib_unregister_event_handler(struct ib_event_handler *event_handler);
void ib_dispatch_event(const struct ib_event *event);

/* ---------------------------------------------------------------------------
 * 6. Address vectors and address handles
 */

/*
 * Global routing part of an address vector.  @sgid_attr, when set, is a
 * referenced GID table entry that must agree with @sgid_index; kernel
 * callers normally leave it NULL and let the core look the entry up.
 * @flow_label is 20 bits wide (IB_GRH_FLOWLABEL_MASK).
 */
struct ib_global_route {
	const struct ib_gid_attr	*sgid_attr;
	union ib_gid			dgid;
	u32				flow_label;
	u8				sgid_index;
	u8				hop_limit;
	u8				traffic_class;
};

/* Bits of rdma_ah_attr.ah_flags. */
enum ib_ah_flags {
	IB_AH_GRH	= 1
};

/* Which of the per-fabric unions of an address vector is in use. */
enum rdma_ah_attr_type {
	RDMA_AH_ATTR_TYPE_UNDEFINED,
	RDMA_AH_ATTR_TYPE_IB,
	RDMA_AH_ATTR_TYPE_ROCE,
	RDMA_AH_ATTR_TYPE_OPA,
};

/* InfiniBand: the destination is a LID. */
struct ib_ah_attr {
	u16	dlid;
	u8	src_path_bits;
};

/* RoCE: the destination's Ethernet address, resolved before the call. */
struct roce_ah_attr {
	u8	dmac[ETH_ALEN];
};

/* Omni-Path: 32-bit LIDs, optionally forcing a GRH. */
struct opa_ah_attr {
	u32	dlid;
	u8	src_path_bits;
	bool	make_grd;
};

/*
 * An address vector: where a UD datagram goes, or the path of a connected
 * QP.  @static_rate holds an enum ib_rate; @ah_flags IB_AH_GRH when @grh is
 * valid; @type selects the member of the anonymous union.  Use the
 * rdma_ah_*() accessors rather than the union members.
 */
struct rdma_ah_attr {
	struct ib_global_route	grh;
	u8			sl;
	u8			static_rate;
	u32			port_num;
	u8			ah_flags;
	enum rdma_ah_attr_type	type;
	union {
		struct ib_ah_attr	ib;
		struct roce_ah_attr	roce;
		struct opa_ah_attr	opa;
	};
};

/*
 * What a provider's create_ah()/create_user_ah() receives: the vector with
 * its source GID entry already resolved, the RDMA_CREATE_AH_* flags, and
 * for RoCE over a bond the slave the packets will leave through (or NULL).
 */
struct rdma_ah_init_attr {
	struct rdma_ah_attr	*ah_attr;
	u32			flags;
	struct net_device	*xmit_slave;
};

enum rdma_create_ah_flags {
	/* The caller may sleep; without it the call must be atomic-safe. */
	RDMA_CREATE_AH_SLEEPABLE = BIT(0),
};

enum rdma_destroy_ah_flags {
	/* The caller may sleep. */
	RDMA_DESTROY_AH_SLEEPABLE = BIT(0),
};

/*
 * An address handle.  The core allocates it (size_ib_ah bytes, the
 * provider's structure wrapping this one) and fills these members; the
 * provider only initialises its own part.  @sgid_attr is a reference the AH
 * holds while a GRH is in use; @uobject is NULL for kernel AHs.
 */
struct ib_ah {
	struct ib_device		*device;
	struct ib_pd			*pd;
	struct ib_uobject		*uobject;
	const struct ib_gid_attr	*sgid_attr;
	enum rdma_ah_attr_type		type;
};

/* ---------------------------------------------------------------------------
 * 7. Completions and completion queues
 */

/* Outcome of a work request (IBA 11.4.2.1). */
enum ib_wc_status {
	IB_WC_SUCCESS,
	IB_WC_LOC_LEN_ERR,
	IB_WC_LOC_QP_OP_ERR,
	IB_WC_LOC_EEC_OP_ERR,
	IB_WC_LOC_PROT_ERR,
	IB_WC_WR_FLUSH_ERR,
	IB_WC_MW_BIND_ERR,
	IB_WC_BAD_RESP_ERR,
	IB_WC_LOC_ACCESS_ERR,
	IB_WC_REM_INV_REQ_ERR,
	IB_WC_REM_ACCESS_ERR,
	IB_WC_REM_OP_ERR,
	IB_WC_RETRY_EXC_ERR,
	IB_WC_RNR_RETRY_EXC_ERR,
	IB_WC_LOC_RDD_VIOL_ERR,
	IB_WC_REM_INV_RD_REQ_ERR,
	IB_WC_REM_ABORT_ERR,
	IB_WC_INV_EECN_ERR,
	IB_WC_INV_EEC_STATE_ERR,
	IB_WC_FATAL_ERR,
	IB_WC_RESP_TIMEOUT_ERR,
	IB_WC_GENERAL_ERR
};

/* Printable name of a completion status, for log messages. */
const char *__attribute_const__ ib_wc_status_msg(enum ib_wc_status status);

/*
 * What kind of work request completed.  Send-side values follow the uverbs
 * ABI; every receive-side value has bit 7 (IB_WC_RECV) set, so
 * (opcode & IB_WC_RECV) tells the two sides apart.
 */
enum ib_wc_opcode {
	IB_WC_SEND = IB_UVERBS_WC_SEND,
	IB_WC_RDMA_WRITE = IB_UVERBS_WC_RDMA_WRITE,
	IB_WC_RDMA_READ = IB_UVERBS_WC_RDMA_READ,
	IB_WC_COMP_SWAP = IB_UVERBS_WC_COMP_SWAP,
	IB_WC_FETCH_ADD = IB_UVERBS_WC_FETCH_ADD,
	IB_WC_BIND_MW = IB_UVERBS_WC_BIND_MW,
	IB_WC_LOCAL_INV = IB_UVERBS_WC_LOCAL_INV,
	IB_WC_LSO = IB_UVERBS_WC_TSO,
	IB_WC_ATOMIC_WRITE = IB_UVERBS_WC_ATOMIC_WRITE,
	IB_WC_REG_MR,
	IB_WC_MASKED_COMP_SWAP,
	IB_WC_MASKED_FETCH_ADD,
	IB_WC_FLUSH = IB_UVERBS_WC_FLUSH,
	IB_WC_RECV			= BIT(7),
	IB_WC_RECV_RDMA_WITH_IMM
};

/* Which optional fields of struct ib_wc are valid. */
enum ib_wc_flags {
	IB_WC_GRH			= BIT(0),
	IB_WC_WITH_IMM			= BIT(1),
	IB_WC_WITH_INVALIDATE		= BIT(2),
	IB_WC_IP_CSUM_OK		= BIT(3),
	IB_WC_WITH_SMAC			= BIT(4),
	IB_WC_WITH_VLAN			= BIT(5),
	IB_WC_WITH_NETWORK_HDR_TYPE	= BIT(6),
};

/*
 * Completion callback embedded in a ULP's request context.  A kernel user
 * of ib_alloc_cq() points wr_cqe of its work request at one of these, and
 * the core calls @done for the completion.
 */
struct ib_cqe {
	void (*done)(struct ib_cq *cq, struct ib_wc *wc);
};

/*
 * One work completion.  @wr_id / @wr_cqe echo the work request.  For
 * receives: @src_qp, @slid, @sl, @dlid_path_bits, @pkey_index describe the
 * sender; @smac, @vlan_id and @network_hdr_type are valid when the matching
 * IB_WC_* flag is set in @wc_flags.  @port_num is only set for directed
 * route SMPs on switches.
 */
struct ib_wc {
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	enum ib_wc_status	status;
	enum ib_wc_opcode	opcode;
	u32			vendor_err;
	u32			byte_len;
	struct ib_qp		*qp;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
	u32			src_qp;
	u32			slid;
	int			wc_flags;
	u16			pkey_index;
	u8			sl;
	u8			dlid_path_bits;
	u32			port_num;
	u8			smac[ETH_ALEN];
	u16			vlan_id;
	u8			network_hdr_type;
};

/*
 * Arming a CQ: exactly one of SOLICITED or NEXT_COMP, optionally with
 * REPORT_MISSED_EVENTS (see ib_req_notify_cq()).
 */
enum ib_cq_notify_flags {
	IB_CQ_SOLICITED			= BIT(0),
	IB_CQ_NEXT_COMP			= BIT(1),
	IB_CQ_SOLICITED_MASK		= IB_CQ_SOLICITED | IB_CQ_NEXT_COMP,
	IB_CQ_REPORT_MISSED_EVENTS	= BIT(2),
};

/*
 * Where the core polls a CQ from ib_alloc_cq().  The first three are also
 * the kinds of shared CQ pool a device keeps; DIRECT CQs are polled by the
 * owner with ib_process_cq_direct() and never interrupt.
 */
enum ib_poll_context {
	IB_POLL_SOFTIRQ,
	IB_POLL_WORKQUEUE,
	IB_POLL_UNBOUND_WORKQUEUE,
	IB_POLL_LAST_POOL_TYPE = IB_POLL_UNBOUND_WORKQUEUE,

	IB_POLL_DIRECT,
};

typedef void (*ib_comp_handler)(struct ib_cq *cq, void *cq_context);

/* Creation attributes: minimum size, interrupt vector, IB_UVERBS_CQ_FLAGS_*. */
struct ib_cq_init_attr {
	unsigned int	cqe;
	u32		comp_vector;
	u32		flags;
};

enum ib_cq_attr_mask {
	IB_CQ_MODERATE = BIT(0),
};

/*
 * A completion queue.  The core allocates it (size_ib_cq) and the provider
 * initialises its part in create_cq(), setting @cqe to the real size.
 *
 * Lifetime: @usecnt counts the QPs, SRQs and WQs using the CQ; destroy
 * fails while it is non-zero.
 */
struct ib_cq {
	struct ib_device	*device;
	struct ib_ucq_object	*uobject;
	ib_comp_handler		comp_handler;
	void			(*event_handler)(struct ib_event *event,
						 void *cq_context);
	void			*cq_context;
	int			cqe;
	unsigned int		cqe_used;	/* pool CQs: entries handed out */
	atomic_t		usecnt;
	enum ib_poll_context	poll_ctx;
	unsigned int		comp_vector;

	/* Core-owned: polling machinery of ib_alloc_cq() CQs. */
	struct ib_wc		*wc;		/* batch buffer for polling */
	struct list_head	pool_entry;	/* device's CQ pool list */
	union {
		struct irq_poll		iop;	/* IB_POLL_SOFTIRQ */
		struct work_struct	work;	/* the workqueue contexts */
	};
	struct workqueue_struct	*comp_wq;
	struct dim		*dim;		/* adaptive moderation */
	ktime_t			timestamp;	/* tracing only */
	u8			interrupt:1;	/* tracing only */
	u8			shared:1;	/* belongs to a CQ pool */
	struct rdma_restrack_entry res;
};

/* ---------------------------------------------------------------------------
 * 8. Shared receive queues, queue pairs and work requests
 */

enum ib_srq_type {
	IB_SRQT_BASIC = IB_UVERBS_SRQT_BASIC,
	IB_SRQT_XRC = IB_UVERBS_SRQT_XRC,
	IB_SRQT_TM = IB_UVERBS_SRQT_TM,
};

/**
 * ib_srq_has_cq() - does this kind of SRQ own a completion queue?
 * @srq_type: kind of SRQ
 *
 * XRC and tag-matching SRQs report their completions to a CQ of their own
 * (ib_srq.ext.cq); basic SRQs complete on the CQ of the receiving QP.
 *
 * Return: true for XRC and tag-matching SRQs.
 */
static inline bool ib_srq_has_cq(enum ib_srq_type srq_type)
{
	return srq_type == IB_SRQT_XRC || srq_type == IB_SRQT_TM;
}

/* What ib_modify_srq() changes: the size, and/or the limit event. */
enum ib_srq_attr_mask {
	IB_SRQ_MAX_WR	= BIT(0),
	IB_SRQ_LIMIT	= BIT(1),
};

struct ib_srq_attr {
	u32	max_wr;
	u32	max_sge;
	u32	srq_limit;
};

/*
 * Creation attributes of an SRQ.  @ext.cq is used by XRC and tag-matching
 * SRQs, @ext.xrc.xrcd by XRC SRQs and @ext.tag_matching by TM SRQs.  The
 * provider writes back the sizes it actually allocated into @attr.
 */
struct ib_srq_init_attr {
	void			(*event_handler)(struct ib_event *event,
						 void *srq_context);
	void			*srq_context;
	struct ib_srq_attr	attr;
	enum ib_srq_type	srq_type;

	struct {
		struct ib_cq	*cq;
		union {
			struct {
				struct ib_xrcd	*xrcd;
			} xrc;

			struct {
				u32		max_num_tags;
			} tag_matching;
		};
	} ext;
};

/*
 * A shared receive queue.  @usecnt counts the QPs attached to it.
 * @ext.xrc.srq_num is the number XRC senders address.
 */
struct ib_srq {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_usrq_object	*uobject;
	void			(*event_handler)(struct ib_event *event,
						 void *srq_context);
	void			*srq_context;
	enum ib_srq_type	srq_type;
	atomic_t		usecnt;

	struct {
		struct ib_cq	*cq;
		union {
			struct {
				struct ib_xrcd	*xrcd;
				u32		srq_num;
			} xrc;
		};
	} ext;

	/* Core-owned. */
	struct rdma_restrack_entry res;
};

/* Whether every send request generates a completion, or only signalled ones. */
enum ib_sig_type {
	IB_SIGNAL_ALL_WR,
	IB_SIGNAL_REQ_WR
};

/* Optional behaviour asked for in ib_qp_init_attr.create_flags. */
enum ib_qp_create_flags {
	IB_QP_CREATE_IPOIB_UD_LSO		= BIT(0),
	IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK	=
		IB_UVERBS_QP_CREATE_BLOCK_MULTICAST_LOOPBACK,
	IB_QP_CREATE_CROSS_CHANNEL		= BIT(2),
	IB_QP_CREATE_MANAGED_SEND		= BIT(3),
	IB_QP_CREATE_MANAGED_RECV		= BIT(4),
	IB_QP_CREATE_NETIF_QP			= BIT(5),
	IB_QP_CREATE_INTEGRITY_EN		= BIT(6),
	IB_QP_CREATE_NETDEV_USE			= BIT(7),
	IB_QP_CREATE_SCATTER_FCS		=
		IB_UVERBS_QP_CREATE_SCATTER_FCS,
	IB_QP_CREATE_CVLAN_STRIPPING		=
		IB_UVERBS_QP_CREATE_CVLAN_STRIPPING,
	IB_QP_CREATE_SOURCE_QPN			= BIT(10),
	IB_QP_CREATE_PCI_WRITE_END_PADDING	=
		IB_UVERBS_QP_CREATE_PCI_WRITE_END_PADDING,
	/* Bits 26..31 belong to providers (bit 31 is INT_MIN, as an int). */
	IB_QP_CREATE_RESERVED_START		= BIT(26),
	IB_QP_CREATE_RESERVED_END		= INT_MIN,
};

/*
 * Queue sizes.  On create they are minimums and come back as allocated.
 * @max_rdma_ctxs asks the core to size the QP (and its MR pools) for that
 * many concurrent RDMA read/write contexts of the R/W API.
 */
struct ib_qp_cap {
	u32	max_send_wr;
	u32	max_recv_wr;
	u32	max_send_sge;
	u32	max_recv_sge;
	u32	max_inline_data;
	u32	max_rdma_ctxs;
};

/*
 * Creation attributes of a QP.  @event_handler runs from a workqueue and
 * must not destroy or close the QP it is called for.  @xrcd is for XRC
 * target QPs only; @port_num for the special QP types and the R/W API;
 * @source_qpn with IB_QP_CREATE_SOURCE_QPN.
 */
struct ib_qp_init_attr {
	void			(*event_handler)(struct ib_event *event,
						 void *qp_context);
	void			*qp_context;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;
	struct ib_qp_cap	cap;
	enum ib_sig_type	sq_sig_type;
	enum ib_qp_type		qp_type;
	u32			create_flags;	/* ib_qp_create_flags */
	u32			port_num;
	struct ib_rwq_ind_table	*rwq_ind_tbl;
	u32			source_qpn;
};

/* Identifies an existing XRC target QP for ib_open_qp(). */
struct ib_qp_open_attr {
	void			(*event_handler)(struct ib_event *event,
						 void *qp_context);
	void			*qp_context;
	u32			qp_num;
	enum ib_qp_type		qp_type;
};

/*
 * Attributes of ib_modify_qp()/ib_query_qp(); which members count is given
 * by an IB_QP_* mask.  @qp_access_flags holds IB_ACCESS_* bits,
 * @min_rnr_timer an enum ib_rnr_timeout, @xmit_slave the LAG slave picked
 * for a RoCE connected QP (set by the core, for the provider).
 */
struct ib_qp_attr {
	enum ib_qp_state	qp_state;
	enum ib_qp_state	cur_qp_state;
	enum ib_mtu		path_mtu;
	enum ib_mig_state	path_mig_state;
	u32			qkey;
	u32			rq_psn;
	u32			sq_psn;
	u32			dest_qp_num;
	int			qp_access_flags;
	struct ib_qp_cap	cap;
	struct rdma_ah_attr	ah_attr;
	struct rdma_ah_attr	alt_ah_attr;
	u16			pkey_index;
	u16			alt_pkey_index;
	u8			en_sqd_async_notify;
	u8			sq_draining;
	u8			max_rd_atomic;
	u8			max_dest_rd_atomic;
	u8			min_rnr_timer;
	u32			port_num;
	u8			timeout;
	u8			retry_cnt;
	u8			rnr_retry;
	u32			alt_port_num;
	u8			alt_timeout;
	u32			rate_limit;
	struct net_device	*xmit_slave;
};

/*
 * A queue pair.  The core allocates it (size_ib_qp) and fills the public
 * members; the provider sets @qp_num.  @max_write_sge / @max_read_sge are
 * the SGE limits of RDMA WRITE and READ requests the R/W API honours.
 *
 * Lifetime: @usecnt counts multicast attachments, flows and ib_open_qp()
 * handles; destroy fails with -EBUSY while it is non-zero.  An opened
 * handle points at the shared QP through @real_qp (a QP created directly
 * has real_qp == itself).
 */
struct ib_qp {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_srq		*srq;
	struct ib_xrcd		*xrcd;		/* XRC target QPs only */
	struct ib_rwq_ind_table	*rwq_ind_tbl;
	struct ib_uqp_object	*uobject;
	void			(*event_handler)(struct ib_event *event,
						 void *qp_context);
	void			*qp_context;
	u32			qp_num;
	u32			max_write_sge;
	u32			max_read_sge;
	enum ib_qp_type		qp_type;
	u32			port;
	bool			integrity_en;
	atomic_t		usecnt;
	struct ib_qp		*real_qp;

	/* MR pools of the R/W API (rdma_rw_*, ib_mr_pool_*). */
	spinlock_t		mr_lock;
	int			mrs_used;
	struct list_head	rdma_mrs;
	struct list_head	sig_mrs;

	/*
	 * Core-owned: the handler the creator registered (event_handler may
	 * be wrapped by the core), open handles of an XRC target QP, the
	 * GID entries the current paths hold, security state, the bound
	 * statistics counter, and tracking.
	 */
	void			(*registered_event_handler)(struct ib_event *event,
							    void *qp_context);
	struct completion	srq_completion;
	struct list_head	xrcd_list;
	struct list_head	open_list;
	const struct ib_gid_attr *av_sgid_attr;
	const struct ib_gid_attr *alt_path_sgid_attr;
	struct ib_qp_security	*qp_sec;
	struct rdma_counter	*counter;
	struct rdma_restrack_entry res;
};

/*
 * Work request opcodes.  The first group is shared with user space (uverbs
 * ABI values); the rest can only be posted by kernel users.
 */
enum ib_wr_opcode {
	IB_WR_RDMA_WRITE = IB_UVERBS_WR_RDMA_WRITE,
	IB_WR_RDMA_WRITE_WITH_IMM = IB_UVERBS_WR_RDMA_WRITE_WITH_IMM,
	IB_WR_SEND = IB_UVERBS_WR_SEND,
	IB_WR_SEND_WITH_IMM = IB_UVERBS_WR_SEND_WITH_IMM,
	IB_WR_RDMA_READ = IB_UVERBS_WR_RDMA_READ,
	IB_WR_ATOMIC_CMP_AND_SWP = IB_UVERBS_WR_ATOMIC_CMP_AND_SWP,
	IB_WR_ATOMIC_FETCH_AND_ADD = IB_UVERBS_WR_ATOMIC_FETCH_AND_ADD,
	IB_WR_BIND_MW = IB_UVERBS_WR_BIND_MW,
	IB_WR_LSO = IB_UVERBS_WR_TSO,
	IB_WR_SEND_WITH_INV = IB_UVERBS_WR_SEND_WITH_INV,
	IB_WR_RDMA_READ_WITH_INV = IB_UVERBS_WR_RDMA_READ_WITH_INV,
	IB_WR_LOCAL_INV = IB_UVERBS_WR_LOCAL_INV,
	IB_WR_MASKED_ATOMIC_CMP_AND_SWP =
		IB_UVERBS_WR_MASKED_ATOMIC_CMP_AND_SWP,
	IB_WR_MASKED_ATOMIC_FETCH_AND_ADD =
		IB_UVERBS_WR_MASKED_ATOMIC_FETCH_AND_ADD,
	IB_WR_FLUSH = IB_UVERBS_WR_FLUSH,
	IB_WR_ATOMIC_WRITE = IB_UVERBS_WR_ATOMIC_WRITE,

	/* Kernel only. */
	IB_WR_REG_MR = 0x20,
	IB_WR_REG_MR_INTEGRITY,

	/* Reserved for provider-internal opcodes; the core never uses them. */
	IB_WR_RESERVED1 = 0xf0,
	IB_WR_RESERVED2,
	IB_WR_RESERVED3,
	IB_WR_RESERVED4,
	IB_WR_RESERVED5,
	IB_WR_RESERVED6,
	IB_WR_RESERVED7,
	IB_WR_RESERVED8,
	IB_WR_RESERVED9,
	IB_WR_RESERVED10,
};

enum ib_send_flags {
	IB_SEND_FENCE		= BIT(0),
	IB_SEND_SIGNALED	= BIT(1),
	IB_SEND_SOLICITED	= BIT(2),
	IB_SEND_INLINE		= BIT(3),
	IB_SEND_IP_CSUM		= BIT(4),

	/* Bits 26..31 belong to providers (bit 31 is INT_MIN, as an int). */
	IB_SEND_RESERVED_START	= BIT(26),
	IB_SEND_RESERVED_END	= INT_MIN,
};

/* One gather/scatter element: a DMA address, a length and the lkey. */
struct ib_sge {
	u64	addr;
	u32	length;
	u32	lkey;
};

/*
 * A send work request.  Opcodes that need more than this are posted as one
 * of the larger structures below, which embed this one as @wr; the
 * provider reaches them with rdma_wr(), atomic_wr(), ud_wr() or reg_wr().
 * @send_flags holds IB_SEND_* bits.
 */
struct ib_send_wr {
	struct ib_send_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
	enum ib_wr_opcode	opcode;
	int			send_flags;
	union {
		__be32		imm_data;
		u32		invalidate_rkey;
	} ex;
};

/* RDMA READ and WRITE: the remote buffer. */
struct ib_rdma_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u32			rkey;
};

/**
 * rdma_wr() - the RDMA request around a send work request
 * @wr: the embedded generic request, as the provider receives it
 *
 * Return: the enclosing &struct ib_rdma_wr.
 */
static inline const struct ib_rdma_wr *rdma_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_rdma_wr, wr);
}

/* Atomics: the remote word and the operands (masks for masked atomics). */
struct ib_atomic_wr {
	struct ib_send_wr	wr;
	u64			remote_addr;
	u64			compare_add;
	u64			swap;
	u64			compare_add_mask;
	u64			swap_mask;
	u32			rkey;
};

/**
 * atomic_wr() - the atomic request around a send work request
 * @wr: the embedded generic request, as the provider receives it
 *
 * Return: the enclosing &struct ib_atomic_wr.
 */
static inline const struct ib_atomic_wr *atomic_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_atomic_wr, wr);
}

/*
 * Datagrams: the address handle and QP of the destination.  @header, @hlen
 * and @mss are for LSO sends, @pkey_index for GSI QPs and @port_num for
 * directed route SMPs on switches.
 */
struct ib_ud_wr {
	struct ib_send_wr	wr;
	struct ib_ah		*ah;
	void			*header;
	int			hlen;
	int			mss;
	u32			remote_qpn;
	u32			remote_qkey;
	u16			pkey_index;
	u32			port_num;
};

/**
 * ud_wr() - the datagram request around a send work request
 * @wr: the embedded generic request, as the provider receives it
 *
 * Return: the enclosing &struct ib_ud_wr.
 */
static inline const struct ib_ud_wr *ud_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_ud_wr, wr);
}

/* Fast registration: the MR to map, its new key and IB_ACCESS_* rights. */
struct ib_reg_wr {
	struct ib_send_wr	wr;
	struct ib_mr		*mr;
	u32			key;
	int			access;
};

/**
 * reg_wr() - the registration request around a send work request
 * @wr: the embedded generic request, as the provider receives it
 *
 * Return: the enclosing &struct ib_reg_wr.
 */
static inline const struct ib_reg_wr *reg_wr(const struct ib_send_wr *wr)
{
	return container_of(wr, struct ib_reg_wr, wr);
}

/* A receive work request. */
struct ib_recv_wr {
	struct ib_recv_wr	*next;
	union {
		u64		wr_id;
		struct ib_cqe	*wr_cqe;
	};
	struct ib_sge		*sg_list;
	int			num_sge;
};

/* ---------------------------------------------------------------------------
 * 9. Memory: access rights, protection domains, memory regions and windows
 */

/* Access rights of MRs, MWs and QPs; values shared with the uverbs ABI. */
enum ib_access_flags {
	IB_ACCESS_LOCAL_WRITE = IB_UVERBS_ACCESS_LOCAL_WRITE,
	IB_ACCESS_REMOTE_WRITE = IB_UVERBS_ACCESS_REMOTE_WRITE,
	IB_ACCESS_REMOTE_READ = IB_UVERBS_ACCESS_REMOTE_READ,
	IB_ACCESS_REMOTE_ATOMIC = IB_UVERBS_ACCESS_REMOTE_ATOMIC,
	IB_ACCESS_MW_BIND = IB_UVERBS_ACCESS_MW_BIND,
	IB_ZERO_BASED = IB_UVERBS_ACCESS_ZERO_BASED,
	IB_ACCESS_ON_DEMAND = IB_UVERBS_ACCESS_ON_DEMAND,
	IB_ACCESS_HUGETLB = IB_UVERBS_ACCESS_HUGETLB,
	IB_ACCESS_RELAXED_ORDERING = IB_UVERBS_ACCESS_RELAXED_ORDERING,
	IB_ACCESS_FLUSH_GLOBAL = IB_UVERBS_ACCESS_FLUSH_GLOBAL,
	IB_ACCESS_FLUSH_PERSISTENT = IB_UVERBS_ACCESS_FLUSH_PERSISTENT,

	/* Hints a provider may ignore. */
	IB_ACCESS_OPTIONAL = IB_UVERBS_ACCESS_OPTIONAL_RANGE,
	/* Every bit a caller may pass. */
	IB_ACCESS_SUPPORTED =
		((IB_ACCESS_FLUSH_PERSISTENT << 1) - 1) | IB_ACCESS_OPTIONAL,
};

/* What a provider's rereg_user_mr() is asked to change. */
enum ib_mr_rereg_flags {
	IB_MR_REREG_TRANS	= BIT(0),
	IB_MR_REREG_PD		= BIT(1),
	IB_MR_REREG_ACCESS	= BIT(2),
	IB_MR_REREG_SUPPORTED	= ((IB_MR_REREG_ACCESS << 1) - 1)
};

/*
 * Kinds of memory region (ib_mr.type):
 *   MEM_REG    fast-registration MR, mapped with ib_map_mr_sg()
 *   SG_GAPS    like MEM_REG but accepts any SG list (IBK_SG_GAPS_REG)
 *   DM         registers device memory
 *   USER       registers user memory
 *   DMA        covers all memory without translation
 *   INTEGRITY  signature/T10-PI MR, from ib_alloc_mr_integrity() only
 */
enum ib_mr_type {
	IB_MR_TYPE_MEM_REG,
	IB_MR_TYPE_SG_GAPS,
	IB_MR_TYPE_DM,
	IB_MR_TYPE_USER,
	IB_MR_TYPE_DMA,
	IB_MR_TYPE_INTEGRITY,
};

/* Checks ib_check_mr_status() can run. */
enum ib_mr_status_check {
	IB_MR_CHECK_SIG_STATUS = 1,
};

/*
 * Result of ib_check_mr_status(): @fail_status has a bit set for every
 * check that failed; @sig_err details an IB_MR_CHECK_SIG_STATUS failure.
 */
struct ib_mr_status {
	u32			fail_status;
	struct ib_sig_err	sig_err;
};

enum ib_mw_type {
	IB_MW_TYPE_1 = 1,
	IB_MW_TYPE_2 = 2
};

/* ib_alloc_pd() flags. */
enum ib_pd_flags {
	/*
	 * Also register all of memory for remote read and write and publish
	 * the rkey in ib_pd.unsafe_global_rkey.  Anyone who learns the rkey
	 * can reach all memory, so this is only for fully trusted fabrics;
	 * every use is logged.
	 */
	IB_PD_UNSAFE_GLOBAL_RKEY	= 0x01,
};

/*
 * A protection domain.  @local_dma_lkey is always usable for local access
 * to any DMA-mapped memory (the core fills it from the device or from an
 * internal MR).  @usecnt counts every object created on the PD.
 */
struct ib_pd {
	u32			local_dma_lkey;
	u32			flags;
	struct ib_device	*device;
	struct ib_uobject	*uobject;
	atomic_t		usecnt;
	u32			unsafe_global_rkey;

	/* Core-owned: the MR behind the lkey/rkey above, and tracking. */
	struct ib_mr		*__internal_mr;
	struct rdma_restrack_entry res;
};

/*
 * A memory region.  @pd may change under IB_MR_REREG_PD for user MRs, so it
 * is only stable under the uobject lock.  @iova, @length and @page_size
 * describe the current mapping; @need_inval tells a ULP that the MR is
 * still valid on the wire and must be invalidated before reuse.  @qp_entry
 * links fast-registration MRs into a QP's MR pool, @uobject identifies a
 * user MR.
 */
struct ib_mr {
	struct ib_device	*device;
	struct ib_pd		*pd;
	u32			lkey;
	u32			rkey;
	u64			iova;
	u64			length;
	unsigned int		page_size;
	enum ib_mr_type		type;
	bool			need_inval;
	union {
		struct ib_uobject	*uobject;
		struct list_head	qp_entry;
	};
	struct ib_dm		*dm;
	struct ib_sig_attrs	*sig_attrs;	/* INTEGRITY MRs only */

	/* Core-owned. */
	struct rdma_restrack_entry res;
};

/* A memory window; the core allocates it (size_ib_mw). */
struct ib_mw {
	struct ib_device	*device;
	struct ib_pd		*pd;
	struct ib_uobject	*uobject;
	u32			rkey;
	enum ib_mw_type		type;
};

/*
 * User verbs contexts.  Providers embed struct ib_ucontext in their own
 * context (size_ib_ucontext); the rest belongs to the uverbs layer.
 */
struct ib_rdmacg_object {
#ifdef CONFIG_CGROUP_RDMA
	struct rdma_cgroup	*cg;
#endif
};

struct ib_ucontext {
	struct ib_device	*device;
	struct ib_uverbs_file	*ufile;
	struct ib_rdmacg_object	cg_obj;

	/* Core-owned. */
	struct rdma_restrack_entry res;
	struct xarray		mmap_xa;
};

struct ib_uobject {
	u64			user_handle;
	struct ib_uverbs_file	*ufile;
	struct ib_ucontext	*context;
	void			*object;
	struct list_head	list;
	struct ib_rdmacg_object	cg_obj;
	int			id;
	struct kref		ref;
	atomic_t		usecnt;
	struct rcu_head		rcu;
	const struct uverbs_api_object *uapi_object;
};

/*
 * Memory a provider lets user space mmap() (doorbells, queues).  The
 * provider embeds an entry in its own structure and inserts it into the
 * context's mmap_xa; user space passes the offset of the entry to mmap().
 * Entries are reference counted; the provider's mmap_free() runs when the
 * last reference goes.  @driver_removed: the provider withdrew the entry
 * (no new mappings).
 */
struct rdma_user_mmap_entry {
	struct kref		ref;
	struct ib_ucontext	*ucontext;
	unsigned long		start_pgoff;
	size_t			npages;
	bool			driver_removed;
};

/**
 * rdma_user_mmap_get_offset() - mmap() offset user space uses for an entry
 * @entry: an inserted entry
 *
 * Return: the offset in bytes to pass to mmap().
 */
static inline u64
rdma_user_mmap_get_offset(const struct rdma_user_mmap_entry *entry)
{
	return (u64)entry->start_pgoff << PAGE_SHIFT;
}

int rdma_user_mmap_io(struct ib_ucontext *ucontext, struct vm_area_struct *vma,
		      unsigned long pfn, unsigned long size, pgprot_t prot,
		      struct rdma_user_mmap_entry *entry);
int rdma_user_mmap_entry_insert(struct ib_ucontext *ucontext,
				struct rdma_user_mmap_entry *entry,
				size_t length);
int rdma_user_mmap_entry_insert_range(struct ib_ucontext *ucontext,
				      struct rdma_user_mmap_entry *entry,
				      size_t length, u32 min_pgoff,
				      u32 max_pgoff);

/**
 * rdma_user_mmap_entry_insert_exact() - insert an entry at a fixed offset
 * @ucontext: the user context
 * @entry: the entry to insert
 * @length: bytes the entry covers
 * @pgoff: the page offset it must get
 *
 * Return: 0, or a negative errno if @pgoff is taken or memory is short.
 */
static inline int
rdma_user_mmap_entry_insert_exact(struct ib_ucontext *ucontext,
				  struct rdma_user_mmap_entry *entry,
				  size_t length, u32 pgoff)
{
	return rdma_user_mmap_entry_insert_range(ucontext, entry, length,
						 pgoff, pgoff);
}

struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get_pgoff(struct ib_ucontext *ucontext,
			       unsigned long pgoff);
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *ucontext,
			 struct vm_area_struct *vma);
void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *entry);
void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *entry);

#if IS_ENABLED(CONFIG_INFINIBAND_USER_ACCESS)
void rdma_user_mmap_disassociate(struct ib_device *device);
#else
static inline void rdma_user_mmap_disassociate(struct ib_device *device)
{
}
#endif

/* Why the uverbs layer is destroying a user object. */
enum rdma_remove_reason {
	RDMA_REMOVE_DESTROY,		/* user request; may fail */
	RDMA_REMOVE_CLOSE,		/* context closing; must succeed */
	RDMA_REMOVE_DRIVER_REMOVE,	/* device going away; must succeed */
	RDMA_REMOVE_ABORT,		/* creation rolled back */
	RDMA_REMOVE_DRIVER_FAILURE,	/* provider failed to destroy it */
};

/* Glue for the uverbs ioctl layer (<rdma/uverbs_ioctl.h>). */
struct ib_ucontext *ib_uverbs_get_ucontext_file(struct ib_uverbs_file *ufile);
int uverbs_destroy_def_handler(struct uverbs_attr_bundle *attrs);

/*
 * The driver-private input and output buffers that come with a user verb.
 * A NULL udata pointer means the caller is the kernel.
 */
struct ib_udata {
	const void __user	*inbuf;
	void __user		*outbuf;
	size_t			inlen;
	size_t			outlen;
};

/**
 * ib_copy_from_udata() - read a provider request from user space
 * @dest: kernel buffer
 * @udata: the verb's user buffers
 * @len: bytes to copy from the start of the input buffer
 *
 * Return: 0, or -EFAULT if the user memory could not be read.
 */
static inline int ib_copy_from_udata(void *dest, struct ib_udata *udata,
				     size_t len)
{
	return copy_from_user(dest, udata->inbuf, len) ? -EFAULT : 0;
}

/**
 * ib_copy_to_udata() - write a provider response to user space
 * @udata: the verb's user buffers
 * @src: kernel buffer
 * @len: bytes to copy to the start of the output buffer
 *
 * Return: 0, or -EFAULT if the user memory could not be written.
 */
static inline int ib_copy_to_udata(struct ib_udata *udata, void *src,
				   size_t len)
{
	return copy_to_user(udata->outbuf, src, len) ? -EFAULT : 0;
}

/**
 * ib_is_buffer_cleared() - is a user buffer all zeroes?
 * @p: start of the user buffer
 * @len: its length, at most USHRT_MAX
 *
 * Used to reject requests that set fields this kernel does not know.
 *
 * Return: true if every byte is zero; false if one is not, if @len is too
 * large or if the memory cannot be read.
 */
static inline bool ib_is_buffer_cleared(const void __user *p, size_t len)
{
	u8 chunk[64];
	size_t done, n;

	if (len > USHRT_MAX)
		return false;

	/* A piece at a time through a small buffer: no allocation. */
	for (done = 0; done < len; done += n) {
		n = min(len - done, sizeof(chunk));
		if (copy_from_user(chunk, p + done, n) ||
		    memchr_inv(chunk, 0, n))
			return false;
	}
	return true;
}

/**
 * ib_is_udata_cleared() - is part of a verb's input buffer all zeroes?
 * @udata: the verb's user buffers
 * @offset: first byte to check
 * @len: number of bytes to check
 *
 * Return: see ib_is_buffer_cleared().
 */
static inline bool ib_is_udata_cleared(struct ib_udata *udata, size_t offset,
				       size_t len)
{
	return ib_is_buffer_cleared(udata->inbuf + offset, len);
}

/*
 * Netdevs implemented on top of an RDMA device (IPoIB, OPA VNIC).  The
 * provider may supply an accelerated implementation through the
 * rdma_netdev_get_params() device operation; struct rdma_netdev is then
 * the private area of the netdev.
 */
enum rdma_netdev_t {
	RDMA_NETDEV_OPA_VNIC,
	RDMA_NETDEV_IPOIB,
};

struct rdma_netdev {
	void			*clnt_priv;
	struct ib_device	*hca;
	u32			port_num;
	int			mtu;

	/* Releases the netdev; must be set (OPA VNIC only). */
	void (*free_rdma_netdev)(struct net_device *netdev);

	void (*set_id)(struct net_device *netdev, int id);
	int (*send)(struct net_device *dev, struct sk_buff *skb,
		    struct ib_ah *address, u32 dqpn);
	int (*attach_mcast)(struct net_device *dev, struct ib_device *hca,
			    union ib_gid *gid, u16 mlid,
			    int set_qkey, u32 qkey);
	int (*detach_mcast)(struct net_device *dev, struct ib_device *hca,
			    union ib_gid *gid, u16 mlid);
	void (*tx_timeout)(struct net_device *dev, unsigned int txqueue);
};

/*
 * What the provider's rdma_netdev_get_params() returns: how to allocate the
 * netdev and a callback that initialises it.
 */
struct rdma_netdev_alloc_params {
	size_t		sizeof_priv;
	unsigned int	txqs;
	unsigned int	rxqs;
	void		*param;

	int (*initialize_rdma_netdev)(struct ib_device *device, u32 port_num,
				      struct net_device *netdev, void *param);
};

/* ---------------------------------------------------------------------------
 * 10. The driver interface
 *
 * Verbs objects (AH, CQ, PD, QP, SRQ, ...) are allocated by the core with
 * the size the provider declares in its ib_device_ops; the provider's
 * structure must start with the core structure:
 *
 *	static const struct ib_device_ops my_ops = {
 *		INIT_RDMA_OBJ_SIZE(ib_pd, my_pd, ibpd),
 *		...
 *	};
 *
 * fails to build unless struct my_pd has "struct ib_pd ibpd" as its first
 * member.  The (type, member) pair is forwarded as one argument list so
 * that every macro names each argument once.
 */
#define DECLARE_RDMA_OBJ_SIZE(ib_struct) size_t size_##ib_struct

#define __rdma_first_arg(type, ...)	type

#define __rdma_obj_size(ib_type, ...)					\
	(sizeof(__rdma_first_arg(__VA_ARGS__)) +			\
	 BUILD_BUG_ON_ZERO(offsetof(__VA_ARGS__)) +			\
	 BUILD_BUG_ON_ZERO(!__same_type(typeof_member(__VA_ARGS__),	\
					ib_type)))

#define INIT_RDMA_OBJ_SIZE(ib_struct, drv_struct, member)		\
	.size_##ib_struct = __rdma_obj_size(struct ib_struct,		\
					    struct drv_struct, member)

/*
 * Allocate a zeroed object of the provider's declared size, e.g.
 * rdma_zalloc_drv_obj(dev, ib_pd).  The _numa form places it on the node
 * the provider names through get_numa_node().  rdma_zalloc_obj() follows
 * struct ib_device.
 */
#define __rdma_zalloc_drv_obj(ib_dev, type, gfp, numa)			\
	({								\
		struct ib_device *__zdev = (ib_dev);			\
									\
		(struct type *)rdma_zalloc_obj(__zdev,			\
					       __zdev->ops.size_##type,	\
					       gfp, numa);		\
	})

#define rdma_zalloc_drv_obj_gfp(ib_dev, type, gfp) \
	__rdma_zalloc_drv_obj(ib_dev, type, gfp, false)
#define rdma_zalloc_drv_obj_numa(ib_dev, type) \
	__rdma_zalloc_drv_obj(ib_dev, type, GFP_KERNEL, true)
#define rdma_zalloc_drv_obj(ib_dev, type) \
	__rdma_zalloc_drv_obj(ib_dev, type, GFP_KERNEL, false)

/* process_mad(): which keys to skip checking, and what became of the MAD. */
enum ib_process_mad_flags {
	IB_MAD_IGNORE_MKEY	= 1,
	IB_MAD_IGNORE_BKEY	= 2,
	IB_MAD_IGNORE_ALL	= IB_MAD_IGNORE_MKEY | IB_MAD_IGNORE_BKEY
};

enum ib_mad_result {
	IB_MAD_RESULT_FAILURE	= 0,		/* not handled */
	IB_MAD_RESULT_SUCCESS	= BIT(0),	/* handled */
	IB_MAD_RESULT_REPLY	= BIT(1),	/* send out_mad back */
	IB_MAD_RESULT_CONSUMED	= BIT(2)	/* nobody else may see it */
};

/*
 * struct ib_device_ops - what a provider implements
 *
 * The provider fills a static table and hands it to ib_set_device_ops()
 * before registering.  A NULL callback means "not supported": the verbs
 * wrappers then return -EOPNOTSUPP, except for the fast-path operations
 * (post_send, post_recv, poll_cq, req_notify_cq, ...) and destroy_ah,
 * which every provider that offers the matching objects must supply.
 */
struct ib_device_ops {
	/* Identity and sysfs. */
	struct module *owner;
	enum rdma_driver_id driver_id;
	u32 uverbs_abi_ver;
	unsigned int uverbs_no_driver_id_binding:1;
	/*
	 * Extra sysfs attributes for existing drivers only; new device
	 * parameters belong in netlink.
	 */
	const struct attribute_group *device_group;
	const struct attribute_group **port_groups;

	/* Fast path: called straight from the inline verbs wrappers. */
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *send_wr,
			 const struct ib_send_wr **bad_send_wr);
	int (*post_recv)(struct ib_qp *qp, const struct ib_recv_wr *recv_wr,
			 const struct ib_recv_wr **bad_recv_wr);
	int (*post_srq_recv)(struct ib_srq *srq,
			     const struct ib_recv_wr *recv_wr,
			     const struct ib_recv_wr **bad_recv_wr);
	int (*poll_cq)(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
	int (*peek_cq)(struct ib_cq *cq, int wc_cnt);
	int (*req_notify_cq)(struct ib_cq *cq, enum ib_cq_notify_flags flags);
	/* Optional replacements of the core's generic drain. */
	void (*drain_rq)(struct ib_qp *qp);
	void (*drain_sq)(struct ib_qp *qp);

	/* Device and port queries. */
	int (*query_device)(struct ib_device *device,
			    struct ib_device_attr *device_attr,
			    struct ib_udata *udata);
	int (*modify_device)(struct ib_device *device, int device_modify_mask,
			     struct ib_device_modify *device_modify);
	void (*get_dev_fw_str)(struct ib_device *device, char *str);
	const struct cpumask *(*get_vector_affinity)(struct ib_device *ibdev,
						     int comp_vector);
	int (*query_port)(struct ib_device *device, u32 port_num,
			  struct ib_port_attr *port_attr);
	int (*modify_port)(struct ib_device *device, u32 port_num,
			   int port_modify_mask,
			   struct ib_port_modify *port_modify);
	/* Port speed for the uverbs query_port_speed method. */
	int (*query_port_speed)(struct ib_device *device, u32 port_num,
				u64 *speed);
	/* NUMA node for object allocation (rdmavt only). */
	int (*get_numa_node)(struct ib_device *dev);
	int (*process_mad)(struct ib_device *device, int process_mad_flags,
			   u32 port_num, const struct ib_wc *in_wc,
			   const struct ib_grh *in_grh,
			   const struct ib_mad *in_mad, struct ib_mad *out_mad,
			   size_t *out_mad_size, u16 *out_mad_pkey_index);

	/*
	 * Used at registration only: the fixed port properties, the link
	 * layer, and the netdev under a port.  get_netdev() returns the
	 * netdev with a reference held, or NULL once it is unregistering.
	 */
	int (*get_port_immutable)(struct ib_device *device, u32 port_num,
				  struct ib_port_immutable *immutable);
	enum rdma_link_layer (*get_link_layer)(struct ib_device *device,
					       u32 port_num);
	struct net_device *(*get_netdev)(struct ib_device *device,
					 u32 port_num);

	/*
	 * GID and P_Key tables.  query_gid() serves IB and iWARP ports; on
	 * RoCE ports the core owns the table and instead tells the provider
	 * about each entry with add_gid()/del_gid() (possibly concurrently
	 * for different ports).  @context lets the provider hang its own
	 * data off an entry until del_gid().
	 */
	int (*query_gid)(struct ib_device *device, u32 port_num, int index,
			 union ib_gid *gid);
	int (*add_gid)(const struct ib_gid_attr *attr, void **context);
	int (*del_gid)(const struct ib_gid_attr *attr, void **context);
	int (*query_pkey)(struct ib_device *device, u32 port_num, u16 index,
			  u16 *pkey);

	/* User contexts and mmap. */
	int (*alloc_ucontext)(struct ib_ucontext *context,
			      struct ib_udata *udata);
	void (*dealloc_ucontext)(struct ib_ucontext *context);
	int (*mmap)(struct ib_ucontext *context, struct vm_area_struct *vma);
	/* The last reference to an mmap_xa entry is gone. */
	void (*mmap_free)(struct rdma_user_mmap_entry *entry);
	void (*disassociate_ucontext)(struct ib_ucontext *ibcontext);
	int (*query_ucontext)(struct ib_ucontext *context,
			      struct uverbs_attr_bundle *attrs);

	/* Protection domains and address handles. */
	int (*alloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*dealloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*create_ah)(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			 struct ib_udata *udata);
	int (*create_user_ah)(struct ib_ah *ah, struct rdma_ah_init_attr *attr,
			      struct ib_udata *udata);
	int (*modify_ah)(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
	int (*query_ah)(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
	int (*destroy_ah)(struct ib_ah *ah, u32 flags);

	/* Shared receive queues. */
	int (*create_srq)(struct ib_srq *srq,
			  struct ib_srq_init_attr *srq_init_attr,
			  struct ib_udata *udata);
	int (*modify_srq)(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
			  enum ib_srq_attr_mask srq_attr_mask,
			  struct ib_udata *udata);
	int (*query_srq)(struct ib_srq *srq, struct ib_srq_attr *srq_attr);
	int (*destroy_srq)(struct ib_srq *srq, struct ib_udata *udata);

	/* Queue pairs. */
	int (*create_qp)(struct ib_qp *qp, struct ib_qp_init_attr *qp_init_attr,
			 struct ib_udata *udata);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
			 int qp_attr_mask, struct ib_udata *udata);
	int (*query_qp)(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
			int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr);
	int (*destroy_qp)(struct ib_qp *qp, struct ib_udata *udata);

	/*
	 * Completion queues.  create_cq() gets the uverbs attribute bundle
	 * (NULL for kernel CQs) instead of a bare udata.  A provider may
	 * split destroy in two: pre_destroy_cq() stops new completions
	 * without freeing anything, post_destroy_cq() frees.
	 */
	int (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct uverbs_attr_bundle *attrs);
	int (*modify_cq)(struct ib_cq *cq, u16 cq_count, u16 cq_period);
	int (*destroy_cq)(struct ib_cq *cq, struct ib_udata *udata);
	int (*resize_cq)(struct ib_cq *cq, int cqe, struct ib_udata *udata);
	int (*pre_destroy_cq)(struct ib_cq *cq);
	void (*post_destroy_cq)(struct ib_cq *cq);

	/*
	 * Memory regions and windows.  Kernel users are expected to cope
	 * with relaxed ordering, so providers may enable it for kernel MRs.
	 */
	struct ib_mr *(*get_dma_mr)(struct ib_pd *pd, int mr_access_flags);
	struct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt_addr, int mr_access_flags,
				     struct ib_udata *udata);
	struct ib_mr *(*reg_user_mr_dmabuf)(struct ib_pd *pd, u64 offset,
					    u64 length, u64 virt_addr, int fd,
					    int mr_access_flags,
					    struct uverbs_attr_bundle *attrs);
	struct ib_mr *(*rereg_user_mr)(struct ib_mr *mr, int flags, u64 start,
				       u64 length, u64 virt_addr,
				       int mr_access_flags, struct ib_pd *pd,
				       struct ib_udata *udata);
	int (*dereg_mr)(struct ib_mr *mr, struct ib_udata *udata);
	struct ib_mr *(*alloc_mr)(struct ib_pd *pd, enum ib_mr_type mr_type,
				  u32 max_num_sg);
	struct ib_mr *(*alloc_mr_integrity)(struct ib_pd *pd,
					    u32 max_num_data_sg,
					    u32 max_num_meta_sg);
	int (*advise_mr)(struct ib_pd *pd,
			 enum ib_uverbs_advise_mr_advice advice, u32 flags,
			 struct ib_sge *sg_list, u32 num_sge,
			 struct uverbs_attr_bundle *attrs);
	int (*map_mr_sg)(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
			 unsigned int *sg_offset);
	int (*map_mr_sg_pi)(struct ib_mr *mr, struct scatterlist *data_sg,
			    int data_sg_nents, unsigned int *data_sg_offset,
			    struct scatterlist *meta_sg, int meta_sg_nents,
			    unsigned int *meta_sg_offset);
	int (*check_mr_status)(struct ib_mr *mr, u32 check_mask,
			       struct ib_mr_status *mr_status);
	int (*alloc_mw)(struct ib_mw *mw, struct ib_udata *udata);
	int (*dealloc_mw)(struct ib_mw *mw);

	/* Multicast. */
	int (*attach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);
	int (*detach_mcast)(struct ib_qp *qp, union ib_gid *gid, u16 lid);

	/* XRC domains, flow steering, receive work queues. */
	int (*alloc_xrcd)(struct ib_xrcd *xrcd, struct ib_udata *udata);
	int (*dealloc_xrcd)(struct ib_xrcd *xrcd, struct ib_udata *udata);
	struct ib_flow *(*create_flow)(struct ib_qp *qp,
				       struct ib_flow_attr *flow_attr,
				       struct ib_udata *udata);
	int (*destroy_flow)(struct ib_flow *flow_id);
	int (*destroy_flow_action)(struct ib_flow_action *action);
	struct ib_wq *(*create_wq)(struct ib_pd *pd,
				   struct ib_wq_init_attr *init_attr,
				   struct ib_udata *udata);
	int (*destroy_wq)(struct ib_wq *wq, struct ib_udata *udata);
	int (*modify_wq)(struct ib_wq *wq, struct ib_wq_attr *attr,
			 u32 wq_attr_mask, struct ib_udata *udata);
	int (*create_rwq_ind_table)(struct ib_rwq_ind_table *ib_rwq_ind_table,
				    struct ib_rwq_ind_table_init_attr *init_attr,
				    struct ib_udata *udata);
	int (*destroy_rwq_ind_table)(struct ib_rwq_ind_table *wq_ind_table);

	/* Device memory and flow counters. */
	struct ib_dm *(*alloc_dm)(struct ib_device *device,
				  struct ib_ucontext *context,
				  struct ib_dm_alloc_attr *attr,
				  struct uverbs_attr_bundle *attrs);
	int (*dealloc_dm)(struct ib_dm *dm, struct uverbs_attr_bundle *attrs);
	struct ib_mr *(*reg_dm_mr)(struct ib_pd *pd, struct ib_dm *dm,
				   struct ib_dm_mr_attr *attr,
				   struct uverbs_attr_bundle *attrs);
	int (*create_counters)(struct ib_counters *counters,
			       struct uverbs_attr_bundle *attrs);
	int (*destroy_counters)(struct ib_counters *counters);
	int (*read_counters)(struct ib_counters *counters,
			     struct ib_counters_read_attr *counters_read_attr,
			     struct uverbs_attr_bundle *attrs);

	/*
	 * Accelerated netdevs (IPoIB, OPA VNIC).  Both return -EOPNOTSUPP
	 * for a type the provider does not implement.
	 */
	struct net_device *(*alloc_rdma_netdev)(struct ib_device *device,
						u32 port_num,
						enum rdma_netdev_t type,
						const char *name,
						unsigned char name_assign_type,
						void (*setup)(struct net_device *dev));
	int (*rdma_netdev_get_params)(struct ib_device *device, u32 port_num,
				      enum rdma_netdev_t type,
				      struct rdma_netdev_alloc_params *params);

	/* SR-IOV virtual functions. */
	int (*set_vf_link_state)(struct ib_device *device, int vf, u32 port,
				 int state);
	int (*get_vf_config)(struct ib_device *device, int vf, u32 port,
			     struct ifla_vf_info *ivf);
	int (*get_vf_stats)(struct ib_device *device, int vf, u32 port,
			    struct ifla_vf_stats *stats);
	int (*get_vf_guid)(struct ib_device *device, int vf, u32 port,
			   struct ifla_vf_guid *node_guid,
			   struct ifla_vf_guid *port_guid);
	int (*set_vf_guid)(struct ib_device *device, int vf, u32 port, u64 guid,
			   int type);

	/*
	 * Hardware counters.  alloc_hw_*_stats() return a block the core
	 * frees on unregistration.  get_hw_stats() refreshes the counter at
	 * @index, or all of them when @index == num_counters; it returns
	 * how many it refreshed (index or num_counters) or a negative errno.
	 * modify_hw_stat() switches an optional counter on or off.
	 */
	struct rdma_hw_stats *(*alloc_hw_device_stats)(struct ib_device *device);
	struct rdma_hw_stats *(*alloc_hw_port_stats)(struct ib_device *device,
						     u32 port_num);
	int (*get_hw_stats)(struct ib_device *device,
			    struct rdma_hw_stats *stats, u32 port, int index);
	int (*modify_hw_stat)(struct ib_device *device, u32 port,
			      unsigned int counter_index, bool enable);

	/*
	 * Statistics counters QPs can be bound to (rdma statistic).  A
	 * counter with id 0 asks counter_bind_qp() to allocate one;
	 * counter_unbind_qp() moves the QP back to the default counter.
	 */
	int (*counter_bind_qp)(struct rdma_counter *counter, struct ib_qp *qp);
	int (*counter_unbind_qp)(struct ib_qp *qp);
	int (*counter_dealloc)(struct rdma_counter *counter);
	struct rdma_hw_stats *(*counter_alloc_stats)(struct rdma_counter *counter);
	int (*counter_update_stats)(struct rdma_counter *counter);

	/* Driver attributes added to netlink resource and statistic dumps. */
	int (*fill_res_mr_entry)(struct sk_buff *msg, struct ib_mr *ibmr);
	int (*fill_res_mr_entry_raw)(struct sk_buff *msg, struct ib_mr *ibmr);
	int (*fill_res_cq_entry)(struct sk_buff *msg, struct ib_cq *ibcq);
	int (*fill_res_cq_entry_raw)(struct sk_buff *msg, struct ib_cq *ibcq);
	int (*fill_res_qp_entry)(struct sk_buff *msg, struct ib_qp *ibqp);
	int (*fill_res_qp_entry_raw)(struct sk_buff *msg, struct ib_qp *ibqp);
	int (*fill_res_cm_id_entry)(struct sk_buff *msg, struct rdma_cm_id *id);
	int (*fill_res_srq_entry)(struct sk_buff *msg, struct ib_srq *ib_srq);
	int (*fill_res_srq_entry_raw)(struct sk_buff *msg,
				      struct ib_srq *ib_srq);
	int (*fill_stat_mr_entry)(struct sk_buff *msg, struct ib_mr *ibmr);

	/*
	 * Lifecycle: enable_driver() runs once the device is registered and
	 * before clients see it; dealloc_driver() runs from
	 * ib_dealloc_device().
	 */
	int (*enable_driver)(struct ib_device *dev);
	void (*dealloc_driver)(struct ib_device *dev);

	/* Sub-devices of a parent device (e.g. an SMI device). */
	struct ib_device *(*add_sub_dev)(struct ib_device *parent,
					 enum rdma_nl_dev_type type,
					 const char *name);
	void (*del_sub_dev)(struct ib_device *sub_dev);

	/* iWARP connection management. */
	void (*iw_add_ref)(struct ib_qp *qp);
	void (*iw_rem_ref)(struct ib_qp *qp);
	struct ib_qp *(*iw_get_qp)(struct ib_device *device, int qpn);
	int (*iw_connect)(struct iw_cm_id *cm_id,
			  struct iw_cm_conn_param *conn_param);
	int (*iw_accept)(struct iw_cm_id *cm_id,
			 struct iw_cm_conn_param *conn_param);
	int (*iw_reject)(struct iw_cm_id *cm_id, const void *pdata,
			 u8 pdata_len);
	int (*iw_create_listen)(struct iw_cm_id *cm_id, int backlog);
	int (*iw_destroy_listen)(struct iw_cm_id *cm_id);

	/* Sizes of the provider's objects, see INIT_RDMA_OBJ_SIZE(). */
	DECLARE_RDMA_OBJ_SIZE(ib_ah);
	DECLARE_RDMA_OBJ_SIZE(ib_counters);
	DECLARE_RDMA_OBJ_SIZE(ib_cq);
	DECLARE_RDMA_OBJ_SIZE(ib_mw);
	DECLARE_RDMA_OBJ_SIZE(ib_pd);
	DECLARE_RDMA_OBJ_SIZE(ib_qp);
	DECLARE_RDMA_OBJ_SIZE(ib_rwq_ind_table);
	DECLARE_RDMA_OBJ_SIZE(ib_srq);
	DECLARE_RDMA_OBJ_SIZE(ib_ucontext);
	DECLARE_RDMA_OBJ_SIZE(ib_xrcd);
	DECLARE_RDMA_OBJ_SIZE(rdma_counter);
};

/* ---------------------------------------------------------------------------
 * 11. The device, its ports, clients and the device API
 */

/*
 * Core-owned caches of one port, read by the ib_get_cached_*() helpers of
 * <rdma/ib_cache.h> under ib_device.cache_lock.
 */
struct ib_port_cache {
	u64			subnet_prefix;
	struct ib_pkey_cache	*pkey;
	struct ib_gid_table	*gid;
	u8			lmc;
	enum ib_port_state	port_state;
};

/*
 * Everything the core keeps per port; ib_device.port_data is indexed by
 * port number.  Only @immutable is meant to be read outside the core (and
 * through the rdma_cap_*() helpers at that).
 *
 * @netdev is the netdev under the port (RoCE, iWARP), held with
 * @netdev_tracker and published under RCU: read it with
 * ib_device_get_netdev().  @netdev_lock serialises updates of it.
 */
struct ib_port_data {
	struct ib_device		*ib_dev;
	struct ib_port_immutable	immutable;

	spinlock_t			pkey_list_lock;	/* protects pkey_list */
	struct list_head		pkey_list;	/* QPs per P_Key, security */
	struct ib_port_cache		cache;

	spinlock_t			netdev_lock;	/* netdev updates */
	struct net_device __rcu		*netdev;
	netdevice_tracker		netdev_tracker;
	struct hlist_node		ndev_hash_link;

	struct rdma_hw_stats		*hw_stats;	/* alloc_hw_port_stats() */
	struct ib_port			*sysfs;
};

/*
 * The struct device an ib_device shows in sysfs.  Besides the device's own
 * one, the core creates one per extra network namespace in shared mode;
 * @owner always leads back to the ib_device.  @dev must stay first.
 */
struct ib_core_device {
	struct device		dev;
	possible_net_t		rdma_net;
	struct kobject		*ports_kobj;
	struct list_head	port_list;
	struct ib_device	*owner;
};

/*
 * struct ib_device - an RDMA device
 *
 * Providers allocate it with ib_alloc_device(), embedded at the start of
 * their own structure, fill in the first group of members and the ops,
 * then call ib_register_device().  After registration those members are
 * read-only.
 *
 * Lifetime: the memory is held by the embedded struct device (get_device()
 * / put_device() on &ibdev->dev).  Registration is held separately by
 * @refcount: ib_device_try_get() succeeds only while the device is
 * registered, and unregistration waits on @refs_gone until every such
 * reference is dropped with ib_device_put().
 */
struct ib_device {
	/* Set by the provider before registration. */
	struct /* filled by ib_set_device_ops() */ ib_device_ops ops;
	char				name[IB_DEVICE_NAME_MAX];
	u8				node_type;	/* RDMA_NODE_* */
	u32				phys_port_cnt;
	struct ib_device_attr		attrs;
	__be64				node_guid;
	char				node_desc[IB_DEVICE_NODE_DESC_MAX];
	u32				local_dma_lkey;
	int				num_comp_vectors;
	u64				uverbs_cmd_mask;
	u16				is_switch:1;
	/* Adaptive interrupt moderation (DIM) on kernel CQs. */
	u16				use_cq_dim:1;
	/* iWARP: the netdev name for port mapping, IW_F_* flags. */
	char				iw_ifname[IFNAMSIZ];
	u32				iw_driver_flags;
	u32				lag_flags;
	/* Extra uverbs methods of the provider. */
	const struct uapi_definition	*driver_def;
	/* A sub-device (RDMA_DEVICE_TYPE_SMI) and its parent. */
	enum rdma_nl_dev_type		type;
	struct ib_device		*parent;

	/*
	 * The device used for DMA mapping, from ib_register_device(); NULL
	 * for software providers that address memory virtually (see
	 * ib_uses_virt_dma()).  Use the ib_dma_*() helpers, not this.
	 */
	struct device			*dma_device;

	/* The sysfs device; see struct ib_core_device. */
	union {
		struct device		dev;
		struct ib_core_device	coredev;
	};

	/*
	 * Core-owned from here on.  Drivers and ULPs must not touch these;
	 * they stay public only because upstream code expects ib_device to
	 * carry them.
	 */
	u32				index;		/* netlink device index */
	enum rdma_nl_name_assign_type	name_assign_type;
	u16				kverbs_provider:1; /* kernel verbs ok */
	struct ib_port_data		*port_data;	/* by port number */
	struct rcu_head			rcu_head;

	/*
	 * Registration references and the wait for their last holder; where
	 * the device is in its life (FRESH, JOINING, LIVE, LEAVING, GONE:
	 * see device.c), whether it was asked to go away, and the work item
	 * of a queued unregistration.  @life and @doomed change under
	 * @life_lock.
	 */
	refcount_t			refcount;
	struct completion		refs_gone;
	spinlock_t			life_lock;	/* @life, @doomed */
	u8				life;
	bool				doomed;
	struct work_struct		retire_work;

	/* Per-client data, by client_id; writers hold client_data_rwsem. */
	struct rw_semaphore		client_data_rwsem;
	struct xarray			client_data;

	/*
	 * Shared namespace mode: the copies of the sysfs directory shown in
	 * the other network namespaces, by the core's namespace id; changed
	 * under the core's namespace mutex (device.c).
	 */
	struct xarray			compat_devs;

	/* Device-wide event handlers. */
	struct rw_semaphore		event_handler_rwsem;
	struct list_head		event_handler_list;

	/* Serialises QP event delivery and the XRC open-QP lists. */
	spinlock_t			qp_open_list_lock;

	/* Protects the GID and P_Key caches, subnet prefix and LMC. */
	rwlock_t			cache_lock;

	/* Shared CQ pools of ib_cq_pool_get(), one list per poll context. */
	spinlock_t			cq_pools_lock;
	struct list_head		cq_pools[IB_POLL_LAST_POOL_TYPE + 1];

	/* Tracked resources, hardware counters and sysfs groups. */
	struct rdma_restrack_root	*res;
	struct hw_stats_device_data	*hw_stats_data;
	u8				hw_stats_attr_index;
	/* device attributes, driver attributes, hw_stats, NULL */
	const struct attribute_group	*groups[4];

	/* Set when the device was created through RDMA_NLDEV_CMD_NEWLINK. */
	const struct rdma_link_ops	*link_ops;
};

/**
 * rdma_zalloc_obj() - allocate zeroed memory for a verbs object
 * @dev: device the object belongs to
 * @size: bytes to allocate (the provider's declared object size)
 * @gfp: allocation flags
 * @is_numa_aware: allocate on the node the provider's get_numa_node()
 *	names, if it has one
 *
 * Normally reached through rdma_zalloc_drv_obj() and friends.
 *
 * Return: the memory, or NULL.
 */
static inline void *rdma_zalloc_obj(struct ib_device *dev, size_t size,
				    gfp_t gfp, bool is_numa_aware)
{
	if (is_numa_aware && dev->ops.get_numa_node)
		return kzalloc_node(size, gfp, dev->ops.get_numa_node(dev));
	return kzalloc(size, gfp);
}

/*
 * Allocate a device together with the provider structure around it:
 *	struct my_dev *md = ib_alloc_device(my_dev, ibdev);
 * where "struct ib_device ibdev" must be the first member of my_dev.
 * Returns NULL on failure; free with ib_dealloc_device().
 */
struct ib_device *_ib_alloc_device(size_t size);

#define __ib_alloc_device_in(...)					\
	container_of(_ib_alloc_device(__rdma_obj_size(struct ib_device,	\
						      __VA_ARGS__)),	\
		     __VA_ARGS__)
#define ib_alloc_device(drv_struct, member) \
	__ib_alloc_device_in(struct drv_struct, member)

void ib_dealloc_device(struct ib_device *device);
void ib_set_device_ops(struct ib_device *device,
		       const struct ib_device_ops *ops);

/*
 * Registration.  @name may hold one "%d" to let the core pick the number.
 * @dma_device is the device to DMA-map against, or NULL for providers
 * that use virtual addresses.  Unregistration waits for every client and
 * every registration reference to let go; the _and_put form also drops the
 * caller's reference, the _queued form runs from a work item, and
 * ib_unregister_driver() removes every device of a driver.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device);
void ib_unregister_device(struct ib_device *device);
void ib_unregister_device_and_put(struct ib_device *device);
void ib_unregister_device_queued(struct ib_device *ib_dev);
void ib_unregister_driver(enum rdma_driver_id driver_id);
int ib_device_rename(struct ib_device *ibdev, const char *name);

/**
 * ib_mark_name_assigned_by_user() - record that user space chose the name
 * @ibdev: device, before registration
 *
 * For providers created with "rdma link add NAME ...": netlink then
 * reports the name as user-assigned.
 */
static inline void ib_mark_name_assigned_by_user(struct ib_device *ibdev)
{
	ibdev->name_assign_type = RDMA_NAME_ASSIGN_TYPE_USER;
}

void ib_get_device_fw_str(struct ib_device *device, char *str);

/**
 * ib_device_try_get() - take a registration reference
 * @dev: device to pin
 *
 * While the reference is held the device cannot finish unregistering.
 * Holding only the memory needs get_device(&dev->dev) instead.  Release
 * with ib_device_put().
 *
 * Return: true if the device is registered and the reference was taken;
 * false before registration completes or once unregistration started.
 */
static inline bool ib_device_try_get(struct ib_device *dev)
{
	return refcount_inc_not_zero(&dev->refcount);
}

void ib_device_put(struct ib_device *device);

/*
 * Look a registered device up; on success the caller owns a registration
 * reference.  RDMA_DRIVER_UNKNOWN matches any driver.
 */
struct ib_device *ib_device_get_by_name(const char *name,
					enum rdma_driver_id driver_id);
struct ib_device *ib_device_get_by_netdev(struct net_device *ndev,
					  enum rdma_driver_id driver_id);

/*
 * The netdev under a port.  ib_device_set_netdev() (provider, any time;
 * NULL to detach) takes its own reference; ib_device_get_netdev() returns
 * one the caller must dev_put().
 */
int ib_device_set_netdev(struct ib_device *ib_dev, struct net_device *ndev,
			 unsigned int port);
struct net_device *ib_device_get_netdev(struct ib_device *ib_dev, u32 port);
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr);
bool rdma_dev_access_netns(const struct ib_device *device,
			   const struct net *net);

/**
 * rdma_device_to_ibdev() - the ib_device behind a sysfs device
 * @device: &ib_device.dev or one of its per-namespace copies
 *
 * Only valid for devices that belong to an ib_device.
 *
 * Return: the owning ib_device.
 */
static inline struct ib_device *rdma_device_to_ibdev(struct device *device)
{
	struct ib_core_device *coredev =
		container_of(device, struct ib_core_device, dev);

	return coredev->owner;
}

/*
 * From a sysfs device to the provider structure embedding the ib_device;
 * for the legacy sysfs attributes of ib_device_ops.device_group.
 */
#define rdma_device_to_drv_device(dev, drv_dev_struct, ibdev_member) \
	container_of(rdma_device_to_ibdev(dev), drv_dev_struct, ibdev_member)

/**
 * ibdev_to_node() - NUMA node of a device
 * @ibdev: the device
 *
 * Return: the node of the parent device, or NUMA_NO_NODE without one.
 */
static inline int ibdev_to_node(struct ib_device *ibdev)
{
	struct device *parent = ibdev->dev.parent;

	if (!parent)
		return NUMA_NO_NODE;
	return dev_to_node(parent);
}

/**
 * ib_get_vector_affinity() - CPUs a completion vector interrupts
 * @device: the device
 * @comp_vector: vector number, below num_comp_vectors
 *
 * Return: the CPU mask, or NULL if @comp_vector is out of range or the
 * provider cannot tell.
 */
static inline const struct cpumask *
ib_get_vector_affinity(struct ib_device *device, int comp_vector)
{
	const struct cpumask *(*affinity)(struct ib_device *ibdev,
					  int comp_vector) =
		device->ops.get_vector_affinity;
	bool known = comp_vector >= 0 && comp_vector < device->num_comp_vectors;

	return known && affinity ? affinity(device, comp_vector) : NULL;
}

/*
 * struct ib_client - a kernel user of RDMA devices
 *
 * add() is called for every registered device (existing ones when the
 * client registers, new ones as they come), remove() when the device or
 * the client goes away, with the data stored by ib_set_client_data().
 * add() may return -EOPNOTSUPP to skip a device.  rename() follows device
 * renames.  get_net_dev_by_params() lets the CM find the netdev (for
 * instance an IPoIB interface) matching a request; it returns a held
 * reference.  @no_kverbs_req: the client does not need kernel verbs.
 *
 * @uses, @uses_zero and @client_id are core-owned.
 */
struct ib_client {
	const char *name;
	int (*add)(struct ib_device *ibdev);
	void (*remove)(struct ib_device *ibdev, void *client_data);
	void (*rename)(struct ib_device *dev, void *client_data);
	int (*get_nl_info)(struct ib_device *ibdev, void *client_data,
			   struct ib_client_nl_info *res);
	int (*get_global_nl_info)(struct ib_client_nl_info *res);
	struct net_device *(*get_net_dev_by_params)(struct ib_device *dev,
						    u32 port, u16 pkey,
						    const union ib_gid *gid,
						    const struct sockaddr *addr,
						    void *client_data);

	refcount_t		uses;
	struct completion	uses_zero;
	u32			client_id;

	u8			no_kverbs_req:1;
};

int ib_register_client(struct ib_client *client);
void ib_unregister_client(struct ib_client *client);
void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data);

/**
 * ib_get_client_data() - the data a client stored for a device
 * @device: the device
 * @client: the client
 *
 * Only valid between the client's add() and the return of its remove().
 *
 * Return: what ib_set_client_data() stored, or NULL.
 */
static inline void *ib_get_client_data(struct ib_device *device,
				       struct ib_client *client)
{
	return xa_load(&device->client_data, client->client_id);
}

/* Port and device queries and changes. */
int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *port_attr);
int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey);
int ib_modify_device(struct ib_device *device, int device_modify_mask,
		     struct ib_device_modify *device_modify);
int ib_modify_port(struct ib_device *device, u32 port_num,
		   int port_modify_mask, struct ib_port_modify *port_modify);
int ib_find_gid(struct ib_device *device, union ib_gid *gid,
		u32 *port_num, u16 *index);
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index);
enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num);
const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *dev, unsigned int port);
int ib_get_eth_speed(struct ib_device *dev, u32 port_num, u16 *speed,
		     u8 *width);

/* SR-IOV virtual function management, through the provider's ops. */
int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port,
			 int state);
int ib_get_vf_config(struct ib_device *device, int vf, u32 port,
		     struct ifla_vf_info *info);
int ib_get_vf_stats(struct ib_device *device, int vf, u32 port,
		    struct ifla_vf_stats *stats);
int ib_get_vf_guid(struct ib_device *device, int vf, u32 port,
		   struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid);
int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid,
		   int type);

/* RoCE GID table population from the netdevs of the system. */
void rdma_roce_rescan_device(struct ib_device *ibdev);
void rdma_roce_rescan_port(struct ib_device *ib_dev, u32 port);
void roce_del_all_netdev_gids(struct ib_device *ib_dev, u32 port,
			      struct net_device *ndev);

/* Netdevs backed by the provider's rdma_netdev_get_params(). */
struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *dev));
int rdma_init_netdev(struct ib_device *device, u32 port_num,
		     enum rdma_netdev_t type, const char *name,
		     unsigned char name_assign_type,
		     void (*setup)(struct net_device *dev),
		     struct net_device *netdev);

/* ---------------------------------------------------------------------------
 * 12. Per-port capability tests
 *
 * All of these read the immutable port data the provider reported at
 * registration.  None of them checks @port_num: callers pass a port that
 * rdma_is_port_valid() accepts.
 */

/**
 * rdma_cap_ib_switch() - is the device an InfiniBand switch?
 * @device: the device
 *
 * Return: the is_switch bit the provider set.
 */
static inline bool rdma_cap_ib_switch(const struct ib_device *device)
{
	return device->is_switch;
}

/**
 * rdma_start_port() - lowest valid port number
 * @device: the device
 *
 * Return: 0 for a switch (its management port), 1 otherwise.
 */
static inline u32 rdma_start_port(const struct ib_device *device)
{
	return rdma_cap_ib_switch(device) ? 0 : 1;
}

/**
 * rdma_end_port() - highest valid port number
 * @device: the device
 *
 * Return: 0 for a switch, phys_port_cnt otherwise.
 */
static inline u32 rdma_end_port(const struct ib_device *device)
{
	return rdma_cap_ib_switch(device) ? 0 : device->phys_port_cnt;
}

/**
 * rdma_is_port_valid() - is a port number in range for a device?
 * @device: the device
 * @port: port number to check
 *
 * Return: non-zero if rdma_start_port() <= @port <= rdma_end_port().
 */
static inline int rdma_is_port_valid(const struct ib_device *device,
				     unsigned int port)
{
	return port >= rdma_start_port(device) &&
	       port <= rdma_end_port(device);
}

/*
 * Loop step of rdma_for_each_port(): sets the caller's iterator to the
 * first port and returns the last one.
 */
static inline u32 __rdma_port_iter_begin(u32 *iter,
					 const struct ib_device *device)
{
	*iter = rdma_start_port(device);
	return rdma_end_port(device);
}

/**
 * rdma_for_each_port - loop over every valid port of a device
 * @device: the device
 * @iter: loop variable; must be a u32 (checked at build time)
 *
 * Visits rdma_start_port() to rdma_end_port() in order: only port 0 on a
 * switch.  @device is evaluated once.
 */
#define rdma_for_each_port(device, iter)				\
	for (u32 *__rdma_it = &(iter) +					\
		BUILD_BUG_ON_ZERO(!__same_type(u32, typeof(iter))),	\
	     __rdma_last = __rdma_port_iter_begin(__rdma_it, (device));	\
	     *__rdma_it <= __rdma_last; (*__rdma_it)++)

/* The core capability bits of a port. */
static inline u32 __rdma_core_cap(const struct ib_device *device, u32 port)
{
	return device->port_data[port].immutable.core_cap_flags;
}

/**
 * rdma_is_grh_required() - must address vectors on the port carry a GRH?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for RoCE ports and IB ports that demand a GRH.
 */
static inline bool rdma_is_grh_required(const struct ib_device *device,
					u32 port_num)
{
	return __rdma_core_cap(device, port_num) &
	       RDMA_CORE_PORT_IB_GRH_REQUIRED;
}

/**
 * rdma_protocol_ib() - does the port run native InfiniBand?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for IB (and OPA) ports.
 */
static inline bool rdma_protocol_ib(const struct ib_device *device,
				    u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_IB;
}

/**
 * rdma_protocol_roce() - does the port run RoCE, either version?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for RoCE v1 and RoCE v2 ports.
 */
static inline bool rdma_protocol_roce(const struct ib_device *device,
				      u32 port_num)
{
	return __rdma_core_cap(device, port_num) &
	       (RDMA_CORE_CAP_PROT_ROCE | RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
}

/**
 * rdma_protocol_roce_udp_encap() - does the port run RoCE v2?
 * @device: the device
 * @port_num: port number
 *
 * Return: true if the port carries RoCE in UDP/IP.
 */
static inline bool rdma_protocol_roce_udp_encap(const struct ib_device *device,
						u32 port_num)
{
	return __rdma_core_cap(device, port_num) &
	       RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP;
}

/**
 * rdma_protocol_roce_eth_encap() - does the port run RoCE v1?
 * @device: the device
 * @port_num: port number
 *
 * Return: true if the port carries RoCE directly over Ethernet.
 */
static inline bool rdma_protocol_roce_eth_encap(const struct ib_device *device,
						u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_ROCE;
}

/**
 * rdma_protocol_iwarp() - does the port run iWARP?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for iWARP ports.
 */
static inline bool rdma_protocol_iwarp(const struct ib_device *device,
				       u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_IWARP;
}

/**
 * rdma_ib_or_roce() - does the port speak the IBA transport?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for IB and RoCE ports.
 */
static inline bool rdma_ib_or_roce(const struct ib_device *device,
				   u32 port_num)
{
	return __rdma_core_cap(device, port_num) &
	       (RDMA_CORE_CAP_PROT_IB | RDMA_CORE_CAP_PROT_ROCE |
		RDMA_CORE_CAP_PROT_ROCE_UDP_ENCAP);
}

/**
 * rdma_protocol_raw_packet() - is the port a raw Ethernet packet port?
 * @device: the device
 * @port_num: port number
 *
 * Return: true if the port only offers raw packet QPs.
 */
static inline bool rdma_protocol_raw_packet(const struct ib_device *device,
					    u32 port_num)
{
	return __rdma_core_cap(device, port_num) &
	       RDMA_CORE_CAP_PROT_RAW_PACKET;
}

/**
 * rdma_protocol_usnic() - is the port a usNIC port?
 * @device: the device
 * @port_num: port number
 *
 * Return: true for Cisco usNIC ports.
 */
static inline bool rdma_protocol_usnic(const struct ib_device *device,
				       u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_PROT_USNIC;
}

/**
 * rdma_cap_ib_mad() - does the port send and receive management datagrams?
 * @device: the device
 * @port_num: port number
 *
 * True on IB, RoCE and OPA ports; OPA ports also have rdma_cap_opa_mad().
 *
 * Return: true if the MAD layer should serve the port.
 */
static inline bool rdma_cap_ib_mad(const struct ib_device *device,
				   u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IB_MAD;
}

/**
 * rdma_cap_opa_mad() - does the port use Omni-Path MADs?
 * @device: the device
 * @port_num: port number
 *
 * OPA MADs may be up to 2 KiB, SMPs carry a valid P_Key and have their own
 * layout.
 *
 * Return: true if the port uses the OPA MAD formats.
 */
static inline bool rdma_cap_opa_mad(struct ib_device *device, u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_OPA_MAD;
}

/**
 * rdma_cap_ib_smi() - does the port have a subnet management interface?
 * @device: the device
 * @port_num: port number
 *
 * The SMI (QP0) carries the directed-route SMPs a subnet manager uses
 * before the fabric is configured.
 *
 * Return: true if the port provides an SMI.
 */
static inline bool rdma_cap_ib_smi(const struct ib_device *device,
				   u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IB_SMI;
}

/**
 * rdma_cap_ib_cm() - does the port use the InfiniBand connection manager?
 * @device: the device
 * @port_num: port number
 *
 * Return: true if connections are set up with IB CM MADs (IB and RoCE);
 * whether a CM is running is another matter.
 */
static inline bool rdma_cap_ib_cm(const struct ib_device *device,
				  u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IB_CM;
}

/**
 * rdma_cap_iw_cm() - does the port use the iWARP connection manager?
 * @device: the device
 * @port_num: port number
 *
 * Return: true if connections are set up the iWARP way (over TCP).
 */
static inline bool rdma_cap_iw_cm(const struct ib_device *device,
				  u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IW_CM;
}

/**
 * rdma_cap_ib_sa() - does the port talk to a subnet administrator?
 * @device: the device
 * @port_num: port number
 *
 * On IB fabrics paths are resolved by querying the SA of the subnet
 * manager.
 *
 * Return: true if the port is an SA client.
 */
static inline bool rdma_cap_ib_sa(const struct ib_device *device,
				  u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_IB_SA;
}

/**
 * rdma_cap_ib_mcast() - are multicast joins managed by the SA?
 * @device: the device
 * @port_num: port number
 *
 * On such ports a node joins a group once through the SA, however many of
 * its QPs attach, and leaves when the last one detaches.
 *
 * Return: the same as rdma_cap_ib_sa().
 */
static inline bool rdma_cap_ib_mcast(const struct ib_device *device,
				     u32 port_num)
{
	return rdma_cap_ib_sa(device, port_num);
}

/**
 * rdma_cap_af_ib() - is the port addressed by GIDs?
 * @device: the device
 * @port_num: port number
 *
 * Return: true on IB, RoCE and OPA ports.
 */
static inline bool rdma_cap_af_ib(const struct ib_device *device,
				  u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_AF_IB;
}

/**
 * rdma_cap_eth_ah() - do address vectors of the port carry Ethernet L2?
 * @device: the device
 * @port_num: port number
 *
 * RoCE datagrams need the peer's MAC address and a GRH built from the
 * Ethernet/IP addresses, so their address vectors are RoCE ones.
 *
 * Return: true on RoCE ports.
 */
static inline bool rdma_cap_eth_ah(const struct ib_device *device,
				   u32 port_num)
{
	return __rdma_core_cap(device, port_num) & RDMA_CORE_CAP_ETH_AH;
}

/**
 * rdma_cap_opa_ah() - does the port take OPA (32-bit LID) addresses?
 * @device: the device
 * @port_num: port number
 *
 * Return: true on OPA ports with extended addressing.
 */
static inline bool rdma_cap_opa_ah(struct ib_device *device, u32 port_num)
{
	return (__rdma_core_cap(device, port_num) & RDMA_CORE_CAP_OPA_AH) ==
	       RDMA_CORE_CAP_OPA_AH;
}

/**
 * rdma_max_mad_size() - largest MAD the port handles
 * @device: the device
 * @port_num: port number
 *
 * The size covers MAD header and payload only.
 *
 * Return: 256 on IB/RoCE ports, 2048 on OPA ports, 0 without MAD support.
 */
static inline size_t rdma_max_mad_size(const struct ib_device *device,
				       u32 port_num)
{
	return device->port_data[port_num].immutable.max_mad_size;
}

/**
 * rdma_cap_roce_gid_table() - does the core manage the port's GID table?
 * @device: the device
 * @port_num: port number
 *
 * For RoCE ports whose provider takes add_gid()/del_gid() calls, the core
 * builds the GID table from the netdev addresses.  Stays true even if the
 * table could not be allocated (the table calls then fail).
 *
 * Return: true if the port uses the core-managed RoCE GID table.
 */
static inline bool rdma_cap_roce_gid_table(const struct ib_device *device,
					   u32 port_num)
{
	return rdma_protocol_roce(device, port_num) &&
	       device->ops.add_gid && device->ops.del_gid;
}

/**
 * rdma_cap_read_inv() - does the port support RDMA READ with invalidate?
 * @device: the device
 * @port_num: port number
 *
 * Return: true on iWARP ports, which must support it.
 */
static inline bool rdma_cap_read_inv(struct ib_device *device, u32 port_num)
{
	return rdma_protocol_iwarp(device, port_num);
}

/**
 * rdma_core_cap_opa_port() - is the port an Intel Omni-Path port?
 * @device: the device
 * @port_num: port number
 *
 * Return: true only if every bit of RDMA_CORE_PORT_INTEL_OPA is set.
 */
static inline bool rdma_core_cap_opa_port(struct ib_device *device,
					  u32 port_num)
{
	return (__rdma_core_cap(device, port_num) & RDMA_CORE_PORT_INTEL_OPA) ==
	       RDMA_CORE_PORT_INTEL_OPA;
}

/**
 * rdma_mtu_enum_to_int() - byte size of an MTU code on a given port
 * @device: the device
 * @port: port number
 * @mtu: an enum ib_mtu value, or on OPA ports also an enum opa_mtu value
 *
 * Return: the MTU in bytes, or -1 if the code is not valid on the port.
 */
static inline int rdma_mtu_enum_to_int(struct ib_device *device, u32 port,
				       int mtu)
{
	if (rdma_core_cap_opa_port(device, port))
		return opa_mtu_enum_to_int((enum opa_mtu)mtu);
	return ib_mtu_enum_to_int((enum ib_mtu)mtu);
}

/**
 * rdma_mtu_from_attr() - largest MTU of a port, in bytes
 * @device: the device
 * @port: port number
 * @attr: attributes ib_query_port() returned for @port
 *
 * Return: phys_mtu on OPA ports, otherwise the byte size of max_mtu (-1 if
 * that code is invalid).
 */
static inline int rdma_mtu_from_attr(struct ib_device *device, u32 port,
				     struct ib_port_attr *attr)
{
	if (rdma_core_cap_opa_port(device, port))
		return attr->phys_mtu;
	return ib_mtu_enum_to_int(attr->max_mtu);
}

/**
 * rdma_ah_find_type() - kind of address vector a port takes
 * @dev: the device
 * @port_num: port number
 *
 * Return: RDMA_AH_ATTR_TYPE_ROCE on RoCE ports; _OPA on IB ports with OPA
 * addressing, _IB on other IB ports and on SMI sub-devices; _UNDEFINED
 * otherwise (iWARP, usNIC, raw packet).
 */
static inline enum rdma_ah_attr_type rdma_ah_find_type(struct ib_device *dev,
						       u32 port_num)
{
	if (rdma_protocol_roce(dev, port_num))
		return RDMA_AH_ATTR_TYPE_ROCE;
	if (rdma_protocol_ib(dev, port_num))
		return rdma_cap_opa_ah(dev, port_num) ?
		       RDMA_AH_ATTR_TYPE_OPA : RDMA_AH_ATTR_TYPE_IB;
	if (dev->type == RDMA_DEVICE_TYPE_SMI)
		return RDMA_AH_ATTR_TYPE_IB;
	return RDMA_AH_ATTR_TYPE_UNDEFINED;
}

/* ---------------------------------------------------------------------------
 * 13. Verbs
 *
 * The *_user() forms take the uverbs udata (NULL from the kernel) and
 * report a provider failure; the kernel wrappers without the suffix warn
 * instead where a kernel object must not fail to go away.  Creating
 * functions return an ERR_PTR() on failure, never NULL.
 */

/* Protection domains.  @caller names the module for resource tracking. */
struct ib_pd *__ib_alloc_pd(struct ib_device *device, unsigned int flags,
			    const char *caller);
#define ib_alloc_pd(device, flags) \
	__ib_alloc_pd((device), (flags), KBUILD_MODNAME)

int ib_dealloc_pd_user(struct ib_pd *pd, struct ib_udata *udata);

/**
 * ib_dealloc_pd() - release a kernel protection domain
 * @pd: the PD; every object created on it must be gone already
 *
 * Warns if the provider refuses.
 */
static inline void ib_dealloc_pd(struct ib_pd *pd)
{
	int ret = ib_dealloc_pd_user(pd, NULL);

	WARN_ONCE(ret, "destroying a kernel PD failed: %d\n", ret);
}

/*
 * Address handles.  rdma_create_ah() takes RDMA_CREATE_AH_* flags and must
 * be told whether it may sleep; the caller's ah_attr is left as passed.
 * RoCE kernel callers must supply the destination MAC themselves.
 */
struct ib_ah *rdma_create_ah(struct ib_pd *pd, struct rdma_ah_attr *ah_attr,
			     u32 flags);
struct ib_ah *rdma_create_user_ah(struct ib_pd *pd,
				  struct rdma_ah_attr *ah_attr,
				  struct ib_udata *udata);
int rdma_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
int rdma_query_ah(struct ib_ah *ah, struct rdma_ah_attr *ah_attr);
int rdma_destroy_ah_user(struct ib_ah *ah, u32 flags, struct ib_udata *udata);

/**
 * rdma_destroy_ah() - release a kernel address handle
 * @ah: the address handle
 * @flags: RDMA_DESTROY_AH_SLEEPABLE if the caller may sleep
 *
 * Warns if the provider refuses.
 */
static inline void rdma_destroy_ah(struct ib_ah *ah, u32 flags)
{
	int ret = rdma_destroy_ah_user(ah, flags, NULL);

	WARN_ONCE(ret, "destroying a kernel AH failed: %d\n", ret);
}

/*
 * Replying to a received datagram: build the address vector back to the
 * sender of @wc (with @grh, the first 40 bytes of the receive buffer, when
 * IB_WC_GRH is set).  ib_init_ah_attr_from_wc() leaves a GID reference in
 * @ah_attr that rdma_destroy_ah_attr() drops.  Both may sleep.
 */
int ib_init_ah_attr_from_wc(struct ib_device *device, u32 port_num,
			    const struct ib_wc *wc, const struct ib_grh *grh,
			    struct rdma_ah_attr *ah_attr);
struct ib_ah *ib_create_ah_from_wc(struct ib_pd *pd, const struct ib_wc *wc,
				   const struct ib_grh *grh, u32 port_num);

/* Shared receive queues. */
struct ib_srq *ib_create_srq_user(struct ib_pd *pd,
				  struct ib_srq_init_attr *srq_init_attr,
				  struct ib_usrq_object *uobject,
				  struct ib_udata *udata);

/**
 * ib_create_srq() - create a kernel shared receive queue
 * @pd: protection domain of the SRQ
 * @srq_init_attr: requested attributes; the sizes come back as allocated
 *
 * Return: the SRQ, or an ERR_PTR(); -EOPNOTSUPP if the device has no SRQs.
 */
static inline struct ib_srq *
ib_create_srq(struct ib_pd *pd, struct ib_srq_init_attr *srq_init_attr)
{
	return ib_create_srq_user(pd, srq_init_attr, NULL, NULL);
}

int ib_modify_srq_user(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		       enum ib_srq_attr_mask srq_attr_mask,
		       struct ib_udata *udata);
int ib_modify_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr,
		  enum ib_srq_attr_mask srq_attr_mask);
int ib_query_srq(struct ib_srq *srq, struct ib_srq_attr *srq_attr);
int ib_destroy_srq_user(struct ib_srq *srq, struct ib_udata *udata);

/**
 * ib_destroy_srq() - release a kernel shared receive queue
 * @srq: the SRQ; no QP may use it any more
 *
 * Warns if the provider refuses.
 */
static inline void ib_destroy_srq(struct ib_srq *srq)
{
	int ret = ib_destroy_srq_user(srq, NULL);

	WARN_ONCE(ret, "destroying a kernel SRQ failed: %d\n", ret);
}

/**
 * ib_post_srq_recv() - queue receive buffers on a shared receive queue
 * @srq: the SRQ
 * @recv_wr: chain of receive work requests
 * @bad_recv_wr: on failure, set to the first request not queued; may be
 *	NULL
 *
 * Return: 0, or a negative errno; requests before *@bad_recv_wr may have
 * been queued.
 */
static inline int ib_post_srq_recv(struct ib_srq *srq,
				   const struct ib_recv_wr *recv_wr,
				   const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *unused;

	return srq->device->ops.post_srq_recv(srq, recv_wr,
					      bad_recv_wr ? : &unused);
}

/* Queue pairs.  @caller names the module for resource tracking. */
struct ib_qp *ib_create_qp_kernel(struct ib_pd *pd,
				  struct ib_qp_init_attr *qp_init_attr,
				  const char *caller);

/**
 * ib_create_qp() - create a kernel queue pair
 * @pd: protection domain of the QP
 * @init_attr: requested attributes; the capabilities come back as
 *	allocated
 *
 * Return: the QP (in the RESET state), or an ERR_PTR().
 */
static inline struct ib_qp *ib_create_qp(struct ib_pd *pd,
					 struct ib_qp_init_attr *init_attr)
{
	return ib_create_qp_kernel(pd, init_attr, KBUILD_MODNAME);
}

int ib_modify_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		 int qp_attr_mask);
int ib_modify_qp_with_udata(struct ib_qp *qp, struct ib_qp_attr *attr,
			    int attr_mask, struct ib_udata *udata);
int ib_query_qp(struct ib_qp *qp, struct ib_qp_attr *qp_attr,
		int qp_attr_mask, struct ib_qp_init_attr *qp_init_attr);
int ib_destroy_qp_user(struct ib_qp *qp, struct ib_udata *udata);

/**
 * ib_destroy_qp() - destroy a kernel queue pair
 * @qp: the QP
 *
 * Unlike the other kernel destroy wrappers this one reports failure, e.g.
 * -EBUSY while multicast groups or open handles still use the QP.
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_destroy_qp(struct ib_qp *qp)
{
	return ib_destroy_qp_user(qp, NULL);
}

/* Extra handles on a shared XRC target QP. */
struct ib_qp *ib_open_qp(struct ib_xrcd *xrcd,
			 struct ib_qp_open_attr *qp_open_attr);
int ib_close_qp(struct ib_qp *qp);

/**
 * ib_post_send() - queue send work requests on a QP
 * @qp: the QP
 * @send_wr: chain of send work requests
 * @bad_send_wr: on failure, set to the first request not queued; may be
 *	NULL
 *
 * Requests ahead of the failing one may already be queued, so a failure
 * does not mean nothing was sent.
 *
 * Return: 0 or a negative errno.
 */
static inline int ib_post_send(struct ib_qp *qp,
			       const struct ib_send_wr *send_wr,
			       const struct ib_send_wr **bad_send_wr)
{
	const struct ib_send_wr *unused;

	return qp->device->ops.post_send(qp, send_wr, bad_send_wr ? : &unused);
}

/**
 * ib_post_recv() - queue receive buffers on a QP
 * @qp: the QP
 * @recv_wr: chain of receive work requests
 * @bad_recv_wr: on failure, set to the first request not queued; may be
 *	NULL
 *
 * Return: 0, or a negative errno; requests before *@bad_recv_wr may have
 * been queued.
 */
static inline int ib_post_recv(struct ib_qp *qp,
			       const struct ib_recv_wr *recv_wr,
			       const struct ib_recv_wr **bad_recv_wr)
{
	const struct ib_recv_wr *unused;

	return qp->device->ops.post_recv(qp, recv_wr, bad_recv_wr ? : &unused);
}

/*
 * Drain: move the QP to the error state and wait until every posted
 * request has completed (the CQs must not be IB_POLL_DIRECT).
 */
void ib_drain_rq(struct ib_qp *qp);
void ib_drain_sq(struct ib_qp *qp);
void ib_drain_qp(struct ib_qp *qp);

/*
 * Completion queues for kernel users: the core polls them in @poll_ctx and
 * calls the ib_cqe.done of each completion.  Free with ib_free_cq().
 */
struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller);
struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller);

/**
 * ib_alloc_cq() - allocate a completion queue polled by the core
 * @dev: the device
 * @private: stored in cq_context
 * @nr_cqe: minimum number of entries
 * @comp_vector: interrupt vector, below num_comp_vectors
 * @poll_ctx: where completions are processed
 *
 * Return: the CQ, or an ERR_PTR().
 */
static inline struct ib_cq *ib_alloc_cq(struct ib_device *dev, void *private,
					int nr_cqe, int comp_vector,
					enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq(dev, private, nr_cqe, comp_vector, poll_ctx,
			     KBUILD_MODNAME);
}

/**
 * ib_alloc_cq_any() - allocate a core-polled CQ on a spread-out vector
 * @dev: the device
 * @private: stored in cq_context
 * @nr_cqe: minimum number of entries
 * @poll_ctx: where completions are processed
 *
 * Like ib_alloc_cq(), with the completion vector picked round robin.
 *
 * Return: the CQ, or an ERR_PTR().
 */
static inline struct ib_cq *ib_alloc_cq_any(struct ib_device *dev,
					    void *private, int nr_cqe,
					    enum ib_poll_context poll_ctx)
{
	return __ib_alloc_cq_any(dev, private, nr_cqe, poll_ctx,
				 KBUILD_MODNAME);
}

void ib_free_cq(struct ib_cq *cq);
int ib_process_cq_direct(struct ib_cq *cq, int budget);

/* CQs shared between kernel users, sized in entries taken and returned. */
struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint,
			     enum ib_poll_context poll_ctx);
void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe);

/*
 * Completion queues driven by the caller's own handlers.  Destroy with
 * ib_destroy_cq(), never ib_free_cq().
 */
struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *event,
						   void *cq_context),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller);
#define ib_create_cq(device, cmp_hndlr, evt_hndlr, cq_ctxt, cq_attr)	\
	__ib_create_cq((device), (cmp_hndlr), (evt_hndlr), (cq_ctxt),	\
		       (cq_attr), KBUILD_MODNAME)

int ib_resize_cq(struct ib_cq *cq, int cqe);
int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period);
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata);

/**
 * ib_destroy_cq() - destroy a CQ made with ib_create_cq()
 * @cq: the CQ; no QP or SRQ may use it any more
 *
 * Warns if the provider refuses.
 */
static inline void ib_destroy_cq(struct ib_cq *cq)
{
	int ret = ib_destroy_cq_user(cq, NULL);

	WARN_ONCE(ret, "destroying a kernel CQ failed: %d\n", ret);
}

/**
 * ib_poll_cq() - take completions off a CQ
 * @cq: the CQ
 * @num_entries: room in @wc
 * @wc: array receiving the completions
 *
 * Return: the number of completions stored (fewer than @num_entries means
 * the CQ is now empty), or a negative errno.
 */
static inline int ib_poll_cq(struct ib_cq *cq, int num_entries,
			     struct ib_wc *wc)
{
	return cq->device->ops.poll_cq(cq, num_entries, wc);
}

/**
 * ib_req_notify_cq() - arm a CQ for its next completion event
 * @cq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, optionally with
 *	IB_CQ_REPORT_MISSED_EVENTS
 *
 * With IB_CQ_REPORT_MISSED_EVENTS a positive return means completions may
 * have arrived between the last poll and the arming without raising an
 * event: poll again before waiting.  A zero return guarantees an event for
 * any later completion.
 *
 * Return: 0, a positive value (see above), or a negative errno.
 */
static inline int ib_req_notify_cq(struct ib_cq *cq,
				   enum ib_cq_notify_flags flags)
{
	return cq->device->ops.req_notify_cq(cq, flags);
}

/* Memory regions. */
struct ib_mr *ib_alloc_mr(struct ib_pd *pd, enum ib_mr_type mr_type,
			  u32 max_num_sg);
struct ib_mr *ib_alloc_mr_integrity(struct ib_pd *pd, u32 max_num_data_sg,
				    u32 max_num_meta_sg);
struct ib_mr *ib_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			     u64 virt_addr, int mr_access_flags);
int ib_advise_mr(struct ib_pd *pd, enum ib_uverbs_advise_mr_advice advice,
		 u32 flags, struct ib_sge *sg_list, u32 num_sge);
int ib_dereg_mr_user(struct ib_mr *mr, struct ib_udata *udata);

/**
 * ib_dereg_mr() - release a kernel memory region
 * @mr: the MR
 *
 * Return: 0, or the provider's error (for instance while memory windows
 * are still bound to the MR).
 */
static inline int ib_dereg_mr(struct ib_mr *mr)
{
	return ib_dereg_mr_user(mr, NULL);
}

/*
 * Mapping a scatterlist into a fast-registration MR before posting an
 * IB_WR_REG_MR.  They return the number of SG entries mapped.
 */
int ib_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int sg_nents,
		 unsigned int *sg_offset, unsigned int page_size);
int ib_map_mr_sg_pi(struct ib_mr *mr, struct scatterlist *data_sg,
		    int data_sg_nents, unsigned int *data_sg_offset,
		    struct scatterlist *meta_sg, int meta_sg_nents,
		    unsigned int *meta_sg_offset, unsigned int page_size);
int ib_sg_to_pages(struct ib_mr *mr, struct scatterlist *sgl, int sg_nents,
		   unsigned int *sg_offset,
		   int (*set_page)(struct ib_mr *mr, u64 addr));

/**
 * ib_map_mr_sg_zbva() - map a scatterlist into an MR at address zero
 * @mr: the MR
 * @sg: the scatterlist
 * @sg_nents: entries in @sg
 * @sg_offset: byte offset into the first entry; updated like
 *	ib_map_mr_sg() does
 * @page_size: page size of the mapping
 *
 * For zero-based addressing: the remote side then addresses the region
 * from 0.
 *
 * Return: as ib_map_mr_sg().
 */
static inline int ib_map_mr_sg_zbva(struct ib_mr *mr, struct scatterlist *sg,
				    int sg_nents, unsigned int *sg_offset,
				    unsigned int page_size)
{
	int n = ib_map_mr_sg(mr, sg, sg_nents, sg_offset, page_size);

	mr->iova = 0;
	return n;
}

/**
 * ib_update_fast_reg_key() - set the key byte of an MR's lkey and rkey
 * @mr: the MR
 * @newkey: the new low 8 bits
 *
 * Done before reusing a fast-registration MR so that stale keys no longer
 * match; the upper 24 bits (the index) are kept.
 */
static inline void ib_update_fast_reg_key(struct ib_mr *mr, u8 newkey)
{
	mr->lkey = (mr->lkey & 0xffffff00) | newkey;
	mr->rkey = (mr->rkey & 0xffffff00) | newkey;
}

int ib_check_mr_status(struct ib_mr *mr, u32 check_mask,
		       struct ib_mr_status *mr_status);

/**
 * ib_check_mr_access() - validate the access rights asked for an MR
 * @ib_dev: the device the MR will live on
 * @flags: IB_ACCESS_* bits
 *
 * Remote write and remote atomic need local write as well; on-demand
 * paging and the FLUSH rights need device support.
 *
 * Return: 0, -EINVAL for an invalid combination, or -EOPNOTSUPP for a
 * right the device lacks.
 */
static inline int ib_check_mr_access(struct ib_device *ib_dev,
				     unsigned int flags)
{
	const struct ib_device_attr *attrs = &ib_dev->attrs;
	unsigned int remote_change = IB_ACCESS_REMOTE_ATOMIC |
				     IB_ACCESS_REMOTE_WRITE;
	unsigned int lacking = 0;

	if ((flags & ~IB_ACCESS_SUPPORTED) ||
	    ((flags & remote_change) && !(flags & IB_ACCESS_LOCAL_WRITE)))
		return -EINVAL;

	/* The rights this device cannot grant. */
	if (!(attrs->kernel_cap_flags & IBK_ON_DEMAND_PAGING))
		lacking |= IB_ACCESS_ON_DEMAND;
	if (!(attrs->device_cap_flags & IB_DEVICE_FLUSH_GLOBAL))
		lacking |= IB_ACCESS_FLUSH_GLOBAL;
	if (!(attrs->device_cap_flags & IB_DEVICE_FLUSH_PERSISTENT))
		lacking |= IB_ACCESS_FLUSH_PERSISTENT;
	return flags & lacking ? -EOPNOTSUPP : 0;
}

/**
 * ib_access_writable() - can these rights modify the memory?
 * @access_flags: IB_ACCESS_* bits
 *
 * Local and remote write, remote atomics and window binding (which can
 * grant write rights) all count.
 *
 * Return: true if the pages must be mapped writable.
 */
static inline bool ib_access_writable(int access_flags)
{
	return access_flags &
	       (IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_MW_BIND);
}

/*
 * Multicast: attach a UD QP to a group (@lid in host order).  The group
 * must already be set up in the fabric (an SA join on IB).
 */
int ib_attach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);
int ib_detach_mcast(struct ib_qp *qp, union ib_gid *gid, u16 lid);

/* ---------------------------------------------------------------------------
 * 14. DMA mapping
 *
 * Always map through these helpers, never through ib_device.dma_device.
 * Software providers register without a DMA device; their "DMA addresses"
 * are then plain kernel virtual addresses, and mapping is free.
 */

/**
 * ib_uses_virt_dma() - does the device address memory virtually?
 * @dev: the device
 *
 * Return: true for providers registered without a DMA device (only
 * possible with CONFIG_INFINIBAND_VIRT_DMA).
 */
static inline bool ib_uses_virt_dma(struct ib_device *dev)
{
	return IS_ENABLED(CONFIG_INFINIBAND_VIRT_DMA) && !dev->dma_device;
}

/**
 * ib_dma_pci_p2p_dma_supported() - can the device DMA to PCI peer memory?
 * @dev: the device
 *
 * Return: false for virtual-DMA devices, else what the DMA layer says.
 */
static inline bool ib_dma_pci_p2p_dma_supported(struct ib_device *dev)
{
	if (ib_uses_virt_dma(dev))
		return false;
	return dma_pci_p2pdma_supported(dev->dma_device);
}

/**
 * ib_virt_dma_to_ptr() - kernel pointer behind a virtual-DMA address
 * @dma_addr: an address a virtual-DMA device got from the ib_dma_*() helpers
 *
 * Return: the kernel virtual address it stands for.
 */
static inline void *ib_virt_dma_to_ptr(u64 dma_addr)
{
	return (void *)(uintptr_t)dma_addr;
}

/**
 * ib_virt_dma_to_page() - page behind a virtual-DMA address
 * @dma_addr: an address a virtual-DMA device got from the ib_dma_*() helpers
 *
 * Only valid for directly mapped (lowmem) memory.
 *
 * Return: the page holding the address.
 */
static inline struct page *ib_virt_dma_to_page(u64 dma_addr)
{
	return virt_to_page(ib_virt_dma_to_ptr(dma_addr));
}

/**
 * ib_dma_mapping_error() - did a mapping fail?
 * @dev: the device the address was mapped for
 * @dma_addr: the result of a map call
 *
 * Return: non-zero if @dma_addr is the DMA layer's error value; always 0
 * for virtual-DMA devices.
 */
static inline int ib_dma_mapping_error(struct ib_device *dev, u64 dma_addr)
{
	if (ib_uses_virt_dma(dev))
		return 0;
	return dma_mapping_error(dev->dma_device, dma_addr);
}

/**
 * ib_dma_map_single() - map a kernel buffer for DMA
 * @dev: the device
 * @cpu_addr: start of the buffer
 * @size: length in bytes
 * @direction: direction of the transfer
 *
 * Return: the DMA address; check it with ib_dma_mapping_error().
 */
static inline u64 ib_dma_map_single(struct ib_device *dev, void *cpu_addr,
				    size_t size,
				    enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)cpu_addr;
	return dma_map_single(dev->dma_device, cpu_addr, size, direction);
}

/**
 * ib_dma_unmap_single() - undo ib_dma_map_single()
 * @dev: the device
 * @addr: the DMA address returned by the map call
 * @size: length given to the map call
 * @direction: direction given to the map call
 */
static inline void ib_dma_unmap_single(struct ib_device *dev, u64 addr,
				       size_t size,
				       enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_single(dev->dma_device, addr, size, direction);
}

/**
 * ib_dma_map_page() - map part of a page for DMA
 * @dev: the device
 * @page: the page
 * @offset: byte offset into the page
 * @size: length in bytes
 * @direction: direction of the transfer
 *
 * Return: the DMA address; check it with ib_dma_mapping_error().
 */
static inline u64 ib_dma_map_page(struct ib_device *dev, struct page *page,
				  unsigned long offset, size_t size,
				  enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)(page_address(page) + offset);
	return dma_map_page(dev->dma_device, page, offset, size, direction);
}

/**
 * ib_dma_unmap_page() - undo ib_dma_map_page()
 * @dev: the device
 * @addr: the DMA address returned by the map call
 * @size: length given to the map call
 * @direction: direction given to the map call
 */
static inline void ib_dma_unmap_page(struct ib_device *dev, u64 addr,
				     size_t size,
				     enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_page(dev->dma_device, addr, size, direction);
}

/**
 * ib_dma_map_bvec() - map one bio_vec for DMA
 * @dev: the device
 * @bvec: the segment (page, offset and length)
 * @direction: direction of the transfer
 *
 * Return: the DMA address; check it with ib_dma_mapping_error() and never
 * pass a failed one to ib_dma_unmap_bvec().
 */
static inline u64 ib_dma_map_bvec(struct ib_device *dev, struct bio_vec *bvec,
				  enum dma_data_direction direction)
{
	if (ib_uses_virt_dma(dev))
		return (uintptr_t)bvec_virt(bvec);
	return dma_map_page(dev->dma_device, bvec->bv_page, bvec->bv_offset,
			    bvec->bv_len, direction);
}

/**
 * ib_dma_unmap_bvec() - undo ib_dma_map_bvec()
 * @dev: the device
 * @addr: the DMA address returned by the map call
 * @size: the segment length that was mapped
 * @direction: direction given to the map call
 */
static inline void ib_dma_unmap_bvec(struct ib_device *dev, u64 addr,
				     size_t size,
				     enum dma_data_direction direction)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_page(dev->dma_device, addr, size, direction);
}

/* Core helper for virtual-DMA devices: DMA address = virtual address. */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents);

/**
 * ib_dma_map_sg_attrs() - map a scatterlist for DMA, with DMA attributes
 * @dev: the device
 * @sg: the scatterlist
 * @nents: number of entries
 * @direction: direction of the transfer
 * @dma_attrs: DMA_ATTR_* bits
 *
 * Return: the number of DMA segments (may be fewer than @nents), 0 on
 * failure.
 */
static inline int ib_dma_map_sg_attrs(struct ib_device *dev,
				      struct scatterlist *sg, int nents,
				      enum dma_data_direction direction,
				      unsigned long dma_attrs)
{
	if (ib_uses_virt_dma(dev))
		return ib_dma_virt_map_sg(dev, sg, nents);
	return dma_map_sg_attrs(dev->dma_device, sg, nents, direction,
				dma_attrs);
}

/**
 * ib_dma_unmap_sg_attrs() - undo ib_dma_map_sg_attrs()
 * @dev: the device
 * @sg: the scatterlist
 * @nents: the entry count passed to the map call (not its result)
 * @direction: direction given to the map call
 * @dma_attrs: DMA_ATTR_* bits given to the map call
 */
static inline void ib_dma_unmap_sg_attrs(struct ib_device *dev,
					 struct scatterlist *sg, int nents,
					 enum dma_data_direction direction,
					 unsigned long dma_attrs)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sg_attrs(dev->dma_device, sg, nents, direction,
				   dma_attrs);
}

/**
 * ib_dma_map_sgtable_attrs() - map a whole sg_table for DMA
 * @dev: the device
 * @sgt: the table; its nents is set to the number of DMA segments
 * @direction: direction of the transfer
 * @dma_attrs: DMA_ATTR_* bits
 *
 * Return: 0 on success (unlike the scatterlist form), or a negative errno
 * (-EIO if nothing could be mapped on a virtual-DMA device).
 */
static inline int ib_dma_map_sgtable_attrs(struct ib_device *dev,
					   struct sg_table *sgt,
					   enum dma_data_direction direction,
					   unsigned long dma_attrs)
{
	if (!ib_uses_virt_dma(dev))
		return dma_map_sgtable(dev->dma_device, sgt, direction,
				       dma_attrs);

	/* Virtual DMA maps every entry or, for an empty table, none. */
	sgt->nents = ib_dma_virt_map_sg(dev, sgt->sgl, sgt->orig_nents);
	return sgt->nents ? 0 : -EIO;
}

/**
 * ib_dma_unmap_sgtable_attrs() - undo ib_dma_map_sgtable_attrs()
 * @dev: the device
 * @sgt: the table
 * @direction: direction given to the map call
 * @dma_attrs: DMA_ATTR_* bits given to the map call
 */
static inline void ib_dma_unmap_sgtable_attrs(struct ib_device *dev,
					      struct sg_table *sgt,
					      enum dma_data_direction direction,
					      unsigned long dma_attrs)
{
	if (!ib_uses_virt_dma(dev))
		dma_unmap_sgtable(dev->dma_device, sgt, direction, dma_attrs);
}

/**
 * ib_dma_map_sg() - map a scatterlist for DMA
 * @dev: the device
 * @sg: the scatterlist
 * @nents: number of entries
 * @direction: direction of the transfer
 *
 * Return: the number of DMA segments, 0 on failure.
 */
static inline int ib_dma_map_sg(struct ib_device *dev, struct scatterlist *sg,
				int nents, enum dma_data_direction direction)
{
	return ib_dma_map_sg_attrs(dev, sg, nents, direction, 0);
}

/**
 * ib_dma_unmap_sg() - undo ib_dma_map_sg()
 * @dev: the device
 * @sg: the scatterlist
 * @nents: the entry count passed to the map call (not its result)
 * @direction: direction given to the map call
 */
static inline void ib_dma_unmap_sg(struct ib_device *dev,
				   struct scatterlist *sg, int nents,
				   enum dma_data_direction direction)
{
	ib_dma_unmap_sg_attrs(dev, sg, nents, direction, 0);
}

/**
 * ib_dma_max_seg_size() - largest single DMA segment the device takes
 * @dev: the device
 *
 * Return: the limit in bytes; UINT_MAX for virtual-DMA devices.
 */
static inline unsigned int ib_dma_max_seg_size(struct ib_device *dev)
{
	if (ib_uses_virt_dma(dev))
		return UINT_MAX;
	return dma_get_max_seg_size(dev->dma_device);
}

/**
 * ib_dma_sync_single_for_cpu() - hand a mapped buffer to the CPU
 * @dev: the device
 * @addr: DMA address inside a mapping
 * @size: bytes to sync
 * @dir: direction the buffer was mapped with
 *
 * Call before the CPU reads data the device wrote.
 */
static inline void ib_dma_sync_single_for_cpu(struct ib_device *dev, u64 addr,
					      size_t size,
					      enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_cpu(dev->dma_device, addr, size, dir);
}

/**
 * ib_dma_sync_single_for_device() - hand a mapped buffer back to the device
 * @dev: the device
 * @addr: DMA address inside a mapping
 * @size: bytes to sync
 * @dir: direction the buffer was mapped with
 *
 * Call after the CPU wrote data the device will read.
 */
static inline void ib_dma_sync_single_for_device(struct ib_device *dev,
						 u64 addr, size_t size,
						 enum dma_data_direction dir)
{
	if (!ib_uses_virt_dma(dev))
		dma_sync_single_for_device(dev->dma_device, addr, size, dir);
}

/* ---------------------------------------------------------------------------
 * 15. Address vector accessors
 *
 * Set ah_attr->type first (rdma_ah_find_type()): the DLID and path bit
 * accessors act on the member of the union that type selects and do
 * nothing for the others.
 */

/**
 * rdma_ah_retrieve_dmac() - destination MAC of a RoCE address vector
 * @attr: the address vector
 *
 * Return: the writable dmac array, or NULL unless the type is RoCE.
 */
static inline u8 *rdma_ah_retrieve_dmac(struct rdma_ah_attr *attr)
{
	/* Only RoCE vectors carry an Ethernet address. */
	return attr->type == RDMA_AH_ATTR_TYPE_ROCE ? attr->roce.dmac : NULL;
}

/**
 * rdma_ah_set_dlid() - set the destination LID
 * @attr: the address vector (IB or OPA type)
 * @dlid: the LID; IB keeps only the low 16 bits
 */
static inline void rdma_ah_set_dlid(struct rdma_ah_attr *attr, u32 dlid)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		attr->ib.dlid = (u16)dlid;
		break;
	case RDMA_AH_ATTR_TYPE_OPA:
		attr->opa.dlid = dlid;
		break;
	default:
		/* RoCE vectors address by GID and MAC only. */
		break;
	}
}

/**
 * rdma_ah_get_dlid() - destination LID
 * @attr: the address vector
 *
 * Return: the LID for IB and OPA vectors, 0 for the other types.
 */
static inline u32 rdma_ah_get_dlid(const struct rdma_ah_attr *attr)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		return attr->ib.dlid;
	case RDMA_AH_ATTR_TYPE_OPA:
		return attr->opa.dlid;
	default:
		return 0;
	}
}

/**
 * rdma_ah_set_sl() - set the service level
 * @attr: the address vector
 * @sl: service level
 */
static inline void rdma_ah_set_sl(struct rdma_ah_attr *attr, u8 sl)
{
	attr->sl = sl;
}

/**
 * rdma_ah_get_sl() - service level
 * @attr: the address vector
 *
 * Return: the service level.
 */
static inline u8 rdma_ah_get_sl(const struct rdma_ah_attr *attr)
{
	return attr->sl;
}

/**
 * rdma_ah_set_path_bits() - set the source path bits (low LID bits)
 * @attr: the address vector (IB or OPA type)
 * @src_path_bits: the bits
 */
static inline void rdma_ah_set_path_bits(struct rdma_ah_attr *attr,
					 u8 src_path_bits)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		attr->ib.src_path_bits = src_path_bits;
		break;
	case RDMA_AH_ATTR_TYPE_OPA:
		attr->opa.src_path_bits = src_path_bits;
		break;
	default:
		break;
	}
}

/**
 * rdma_ah_get_path_bits() - source path bits
 * @attr: the address vector
 *
 * Return: the bits for IB and OPA vectors, 0 for the other types.
 */
static inline u8 rdma_ah_get_path_bits(const struct rdma_ah_attr *attr)
{
	switch (attr->type) {
	case RDMA_AH_ATTR_TYPE_IB:
		return attr->ib.src_path_bits;
	case RDMA_AH_ATTR_TYPE_OPA:
		return attr->opa.src_path_bits;
	default:
		return 0;
	}
}

/**
 * rdma_ah_set_make_grd() - ask an OPA vector to always build a GRH
 * @attr: the address vector (OPA type)
 * @make_grd: the new setting
 */
static inline void rdma_ah_set_make_grd(struct rdma_ah_attr *attr,
					bool make_grd)
{
	/* Only OPA vectors have the flag; others ignore it. */
	if (attr->type != RDMA_AH_ATTR_TYPE_OPA)
		return;
	attr->opa.make_grd = make_grd;
}

/**
 * rdma_ah_get_make_grd() - does an OPA vector always build a GRH?
 * @attr: the address vector
 *
 * Return: the setting for OPA vectors, false for the other types.
 */
static inline bool rdma_ah_get_make_grd(const struct rdma_ah_attr *attr)
{
	return attr->type == RDMA_AH_ATTR_TYPE_OPA && attr->opa.make_grd;
}

/**
 * rdma_ah_set_port_num() - set the local port packets leave through
 * @attr: the address vector
 * @port_num: port number
 */
static inline void rdma_ah_set_port_num(struct rdma_ah_attr *attr,
					u32 port_num)
{
	attr->port_num = port_num;
}

/**
 * rdma_ah_get_port_num() - local port of the address vector
 * @attr: the address vector
 *
 * Return: the port number.
 */
static inline u32 rdma_ah_get_port_num(const struct rdma_ah_attr *attr)
{
	return attr->port_num;
}

/**
 * rdma_ah_set_static_rate() - set the injection rate limit
 * @attr: the address vector
 * @static_rate: an enum ib_rate code (IB_RATE_PORT_CURRENT for none)
 */
static inline void rdma_ah_set_static_rate(struct rdma_ah_attr *attr,
					   u8 static_rate)
{
	attr->static_rate = static_rate;
}

/**
 * rdma_ah_get_static_rate() - injection rate limit
 * @attr: the address vector
 *
 * Return: the enum ib_rate code.
 */
static inline u8 rdma_ah_get_static_rate(const struct rdma_ah_attr *attr)
{
	return attr->static_rate;
}

/**
 * rdma_ah_set_ah_flags() - replace the address vector flags
 * @attr: the address vector
 * @flag: the new flags (IB_AH_GRH or 0)
 */
static inline void rdma_ah_set_ah_flags(struct rdma_ah_attr *attr,
					enum ib_ah_flags flag)
{
	attr->ah_flags = flag;
}

/**
 * rdma_ah_get_ah_flags() - address vector flags
 * @attr: the address vector
 *
 * Return: the flags; IB_AH_GRH tells that the GRH part is valid.
 */
static inline enum ib_ah_flags
rdma_ah_get_ah_flags(const struct rdma_ah_attr *attr)
{
	return attr->ah_flags;
}

/**
 * rdma_ah_read_grh() - global route of an address vector, read-only
 * @attr: the address vector
 *
 * Return: the GRH part, valid if IB_AH_GRH is set.
 */
static inline const struct ib_global_route *
rdma_ah_read_grh(const struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

/**
 * rdma_ah_retrieve_grh() - global route of an address vector, writable
 * @attr: the address vector
 *
 * Return: the GRH part.
 */
static inline struct ib_global_route *
rdma_ah_retrieve_grh(struct rdma_ah_attr *attr)
{
	return &attr->grh;
}

/**
 * rdma_ah_set_dgid_raw() - set the destination GID from raw bytes
 * @attr: the address vector
 * @dgid: 16 bytes in network order
 */
static inline void rdma_ah_set_dgid_raw(struct rdma_ah_attr *attr, void *dgid)
{
	memcpy(attr->grh.dgid.raw, dgid, sizeof(attr->grh.dgid));
}

/**
 * rdma_ah_set_subnet_prefix() - set the upper half of the destination GID
 * @attr: the address vector
 * @prefix: subnet prefix, big endian
 */
static inline void rdma_ah_set_subnet_prefix(struct rdma_ah_attr *attr,
					     __be64 prefix)
{
	attr->grh.dgid.global.subnet_prefix = prefix;
}

/**
 * rdma_ah_set_interface_id() - set the lower half of the destination GID
 * @attr: the address vector
 * @if_id: interface ID, big endian
 */
static inline void rdma_ah_set_interface_id(struct rdma_ah_attr *attr,
					    __be64 if_id)
{
	attr->grh.dgid.global.interface_id = if_id;
}

/*
 * Give @attr a GRH built whole (a NULL @dgid keeps the destination it
 * has), holding @sgid_attr: a GID reference the caller passes on, or
 * NULL.  rdma_ah_set_grh() and rdma_move_grh_sgid_attr() are this without
 * and with a GID entry.
 */
static inline void __rdma_ah_fill_grh(struct rdma_ah_attr *attr,
				      union ib_gid *dgid, u32 flow_label,
				      u8 sgid_index, u8 hop_limit,
				      u8 traffic_class,
				      const struct ib_gid_attr *sgid_attr)
{
	union ib_gid to = dgid ? *dgid : attr->grh.dgid;

	attr->ah_flags = IB_AH_GRH;
	attr->grh = (struct ib_global_route) {
		.sgid_attr	= sgid_attr,
		.dgid		= to,
		.flow_label	= flow_label,
		.sgid_index	= sgid_index,
		.hop_limit	= hop_limit,
		.traffic_class	= traffic_class,
	};
}

/**
 * rdma_ah_set_grh() - fill the global route and mark it valid
 * @attr: the address vector
 * @dgid: destination GID, or NULL to keep the one already set
 * @flow_label: 20-bit flow label (0 lets RoCE v2 providers derive one)
 * @sgid_index: index of the source GID in the port's table
 * @hop_limit: IPv6 hop limit / GRH hop limit
 * @traffic_class: traffic class
 *
 * Sets ah_flags to IB_AH_GRH and clears grh.sgid_attr, so the core looks
 * the source GID up by @sgid_index.  No reference is dropped: call it only
 * on a vector that does not hold one.
 */
static inline void rdma_ah_set_grh(struct rdma_ah_attr *attr,
				   union ib_gid *dgid, u32 flow_label,
				   u8 sgid_index, u8 hop_limit,
				   u8 traffic_class)
{
	__rdma_ah_fill_grh(attr, dgid, flow_label, sgid_index, hop_limit,
			   traffic_class, NULL);
}

/*
 * Address vectors that hold a GID reference (grh.sgid_attr): copy takes a
 * new reference, replace drops the old one of the target first, move hands
 * the reference over and clears the source, destroy drops it.
 * rdma_move_grh_sgid_attr() sets the GRH and adopts @sgid_attr's reference.
 */
void rdma_copy_ah_attr(struct rdma_ah_attr *dest,
		       const struct rdma_ah_attr *src);
void rdma_replace_ah_attr(struct rdma_ah_attr *old,
			  const struct rdma_ah_attr *new);
void rdma_move_ah_attr(struct rdma_ah_attr *dest, struct rdma_ah_attr *src);
void rdma_destroy_ah_attr(struct rdma_ah_attr *ah_attr);
void rdma_move_grh_sgid_attr(struct rdma_ah_attr *attr, union ib_gid *dgid,
			     u32 flow_label, u8 hop_limit, u8 traffic_class,
			     const struct ib_gid_attr *sgid_attr);

/* ---------------------------------------------------------------------------
 * 16. RoCE v2 helpers and other small helpers
 */

/**
 * ib_inc_rkey - step the key byte of an R_Key
 * @rkey: the current key
 *
 * Only the low eight bits (the consumer-owned key) change, wrapping from
 * 0xff to 0; the index in the upper 24 bits stays.
 *
 * Return: the next R_Key for the same memory region.
 */
static inline u32 ib_inc_rkey(u32 rkey)
{
	return (rkey & ~0xffU) | ((rkey + 1) & 0xffU);
}

/**
 * ib_lid_cpu16() - narrow a LID to the 16 bits IB carries
 * @lid: the LID; LIDs travel as u32 in the API because OPA has wider ones
 *
 * Warns once if any of the upper 16 bits is set.
 *
 * Return: the low 16 bits, in CPU order.
 */
static inline u16 ib_lid_cpu16(u32 lid)
{
	/* A 32-bit (OPA) LID does not fit an IB packet. */
	WARN_ON_ONCE(lid > U16_MAX);
	return lid;
}

/**
 * ib_lid_be16() - narrow a LID to 16 bits in wire order
 * @lid: the LID
 *
 * Warns once if any of the upper 16 bits is set.
 *
 * Return: the low 16 bits, big endian.
 */
static inline __be16 ib_lid_be16(u32 lid)
{
	return cpu_to_be16(ib_lid_cpu16(lid));
}

#endif /* IB_VERBS_H */
