/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-RoCE (rdma_rxe): the provider's objects and what its files share.
 *
 * One rxe device sits on one netdev ("rdma link add NAME type rxe netdev
 * DEV") and has one port.  Packets travel as RoCE v2 over the UDP port
 * 4791 sockets of the netdev's network namespace (rxe_net.c).
 *
 * Contexts.  The send path runs where post_send() is called (process or
 * softirq context) or from a work item; the receive path runs in the UDP
 * socket's softirq; timers run in softirq context.  Each lock is taken
 * the same way everywhere, as written next to it: _irqsave for the locks
 * of the queues a ULP may post to or poll with IRQs off (SQ, RQ, SRQ,
 * CQ, the device's port attributes), _bh for the rest.
 */
#ifndef RXE_H
#define RXE_H

#include <linux/idr.h>
#include <linux/kref.h>
#include <linux/netdevice.h>
#include <linux/rhashtable-types.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include "rxe_hdr.h"

/*
 * The limits query_device() reports, stock rdma_rxe's values.  The object
 * counts are enforced (rxe_obj_add()); past them only memory runs out.
 */
#define RXE_MIN_QPN		16		/* 0 and 1 are special */
#define RXE_MAX_QP		(0x100000 - RXE_MIN_QPN) /* QPNs 16..0xfffff */
#define RXE_MAX_QP_WR		0x100000
#define RXE_MAX_SGE		32
#define RXE_MAX_INLINE		(RXE_MAX_SGE * sizeof(struct ib_sge))
#define RXE_MAX_CQ		0x100000
#define RXE_MAX_CQE		0x8000
#define RXE_MAX_MR		0x7ffff		/* key indices 1..0x7ffff */
/* Memory windows have the key indices after the MRs' */
#define RXE_MAX_MW		0x7ffff
#define RXE_MW_INDEX_MIN	(RXE_MAX_MR + 1)
#define RXE_MW_INDEX_MAX	(RXE_MAX_MR + RXE_MAX_MW)
#define RXE_MAX_PD		0x100000
#define RXE_MAX_AH		0x7fff
#define RXE_MAX_SRQ		0xdffff
#define RXE_MAX_SRQ_WR		0x100000
#define RXE_MAX_SRQ_SGE		27
/*
 * READs and ATOMICs a QP may have outstanding as requester, and remember
 * as responder (an array of that many struct rxe_rd_res, allocated by
 * modify_qp()); the responder resources of all QPs together are at most
 * RXE_MAX_RES_RD_ATOM (about 10 MiB of them).
 */
#define RXE_MAX_RD_ATOMIC	128
#define RXE_MAX_RES_RD_ATOM	0x3f000
#define RXE_MAX_FMR_PAGES	512
/*
 * GID table slots of the port, one RoCE v2 GID for each address of the
 * netdev (the core's table; about 0.8 MiB of sysfs files per device).
 * An rdma_ah_attr names its source by a u8 index, so the slots past 255
 * are reached through a GID entry (grh.sgid_attr, as the RDMA CM does).
 */
#define RXE_GID_TBL_LEN		1024
/* Multicast groups (found by GID in a hash table) and QPs in each */
#define RXE_MAX_MCAST_GRP	8192
#define RXE_MAX_MCAST_QP_ATTACH	56
/* The longest message, as the IBTA allows and as stock rxe has it */
#define RXE_MAX_MSG_SZ		0x80000000U
/*
 * Packets the requester sends before it asks for an ACK anyway: half the
 * window of RXE_MAX_UNACKED_PSNS, so that the ACK is back before the
 * window closes.  A 64 KiB message at MTU 1024 then draws one ACK.
 */
#define RXE_ACK_EVERY		(RXE_MAX_UNACKED_PSNS / 2)
/* Work an engine run does before it yields to a work item */
#define RXE_ENGINE_BUDGET	64

/* ---- hardware counters (rxe_hw_counters.c) -------------------------------- */

/*
 * The port counters, in the order stock rdma_rxe reports its own (same
 * names, same meaning), then this provider's extensions: bytes, the
 * received packets dropped, by cause, and the multicast share of the
 * packet counts.
 */
enum rxe_counter {
	RXE_CNT_SENT_PKTS,	/* packets handed to the IP layer */
	RXE_CNT_RCVD_PKTS,	/* packets that passed every check up to a QP */
	RXE_CNT_DUP_REQ,	/* RC duplicate requests answered again */
	RXE_CNT_SEQ_NAK_SENT,	/* sequence NAKs sent for a PSN gap */
	RXE_CNT_RNR_NAK_RCVD,	/* RNR NAKs received */
	RXE_CNT_RNR_NAK_SENT,	/* RNR NAKs sent */
	RXE_CNT_SEQ_NAK_RCVD,	/* sequence NAKs received */
	RXE_CNT_ACK_DEFERRED,	/* responses queued behind others */
	RXE_CNT_RETRY_EXCEEDED,
	RXE_CNT_RNR_RETRY_EXCEEDED,
	RXE_CNT_RETRY,		/* retransmissions after a timeout or NAK */
	RXE_CNT_SEND_ERR,	/* packets the IP layer refused */
	RXE_CNT_LINK_DOWNED,	/* port went from active to down */
	RXE_CNT_RDMA_SENDS,	/* SEND work requests completed */
	RXE_CNT_RDMA_RECVS,	/* receive work requests completed successfully */
	/* extensions */
	RXE_CNT_SENT_BYTES,	/* BTH to ICRC of the packets sent */
	RXE_CNT_RCVD_BYTES,	/* BTH to ICRC of the packets received */
	RXE_CNT_DROP_LENGTH,
	RXE_CNT_DROP_OPCODE,
	RXE_CNT_DROP_VERSION,
	RXE_CNT_DROP_PKEY,
	RXE_CNT_DROP_ICRC,
	RXE_CNT_DROP_QPN,
	RXE_CNT_DROP_QKEY,
	RXE_CNT_DROP_SEQ,
	RXE_CNT_DROP_STATE,
	RXE_CNT_DROP_NO_RECV,
	RXE_CNT_DROP_ADDR,
	RXE_CNT_DROP_MALFORMED,
	RXE_CNT_DROP_PATH,
	RXE_CNT_SENT_MCAST,	/* of sent_pkts, those to a multicast group */
	RXE_CNT_RCVD_MCAST,	/* of rcvd_pkts, multicast datagrams */
	RXE_CNT_NUM
};

/* ---- the device ----------------------------------------------------------- */

/* The objects whose number query_device() gives a limit for */
enum rxe_obj_type {
	RXE_OBJ_PD,
	RXE_OBJ_AH,
	RXE_OBJ_CQ,
	RXE_OBJ_SRQ,
	RXE_OBJ_QP,
	RXE_OBJ_MR,
	RXE_OBJ_MW,
	RXE_OBJ_NUM
};

/**
 * struct rxe_dev - one soft-RoCE device
 * @ib_dev: the core's device (first member: the core allocates the whole)
 * @attr: what query_device() reports
 * @port_attr: what query_port() reports; under @lock
 * @net: the netdev's namespace, whose UDP sockets this device uses
 * @lock: port attributes and @ndev_gone
 * @ndev_gone: the netdev is unregistering: nothing may use @ndev any more
 * @qp_xa: QPs by number (RCU readers, kref-protected)
 * @mr_xa: MRs by key index (RCU readers, refcount-protected)
 * @mw_xa: MWs by key index, RXE_MW_INDEX_MIN .. RXE_MW_INDEX_MAX (RCU
 *	readers; dealloc_mw() waits for them before the core frees the MW)
 * @ah_xa: AHs of user space by their ah_num (1 .. RXE_MAX_AH), the
 *	number librxe puts in its UD work requests
 * @srq_ida: SRQ numbers (1 .. RXE_MAX_SRQ)
 * @next_qpn: allocation cursor for QP numbers
 * @next_mr: allocation cursor for MR key indices
 * @next_mw: allocation cursor for MW key indices
 * @mcast_lock: multicast attachments; spin_lock_bh
 * @mcast_list: the multicast groups QPs are attached to; under @mcast_lock
 * @mcast_ht: the same groups by GID; changed under @mcast_lock
 * @mcast_ngroups: entries of @mcast_list; under @mcast_lock
 * @num_objs: live user contexts, PDs, AHs, CQs, SRQs, QPs, MRs, MWs (lifetime
 *	checks)
 * @nobj: live objects by enum rxe_obj_type, each at most its limit in
 *	@attr (rxe_obj_add())
 * @rd_res: the responder resources (max_dest_rd_atomic) of all QPs, at
 *	most @attr.max_res_rd_atom
 * @stats: the counters of enum rxe_counter
 */
struct rxe_dev {
	struct ib_device	ib_dev;
	struct ib_device_attr	attr;
	struct ib_port_attr	port_attr;
	struct net		*net;
	spinlock_t		lock;		/* port_attr, ndev_gone */
	bool			ndev_gone;
	struct xarray		qp_xa;
	struct xarray		mr_xa;
	struct xarray		mw_xa;
	struct xarray		ah_xa;
	struct ida		srq_ida;
	u32			next_qpn;
	u32			next_mr;
	u32			next_mw;
	spinlock_t		mcast_lock;	/* mcast_list and its groups */
	struct list_head	mcast_list;
	struct rhashtable	mcast_ht;
	unsigned int		mcast_ngroups;
	atomic_t		num_objs;
	atomic_t		nobj[RXE_OBJ_NUM];
	atomic_t		rd_res;
	atomic64_t		stats[RXE_CNT_NUM];
};

static inline struct rxe_dev *to_rdev(struct ib_device *dev)
{
	return container_of(dev, struct rxe_dev, ib_dev);
}

static inline void rxe_count(struct rxe_dev *rxe, enum rxe_counter c)
{
	atomic64_inc(&rxe->stats[c]);
}

static inline void rxe_count_add(struct rxe_dev *rxe, enum rxe_counter c,
				 u64 n)
{
	atomic64_add(n, &rxe->stats[c]);
}

/*
 * Queues and page lists whose size the consumer chose (up to the device's
 * limits): failing to allocate one is the consumer's -ENOMEM, not
 * something to warn about in the kernel log.
 */
#define RXE_GFP_SIZED	(GFP_KERNEL | __GFP_NOWARN)

/* ---- PD and AH ------------------------------------------------------------ */

/**
 * struct rxe_ucontext - a user verbs context (ib_uverbs GET_CONTEXT)
 * @ibuc: the core's part; its mmap_xa holds the rings user space may map
 *	(rxe_uring.c)
 */
struct rxe_ucontext {
	struct ib_ucontext	ibuc;
};

static inline struct rxe_ucontext *to_ruc(struct ib_ucontext *uc)
{
	return container_of(uc, struct rxe_ucontext, ibuc);
}

/**
 * struct rxe_uring - a ring shared with user space (rxe_uring.c)
 * @mmap: its mmap entry in the user context: the cookie user space maps
 *	it by, and the references of its owner and its mappings
 * @buf: the buffer, laid out as librxe's struct rxe_queue_buf
 * @size: bytes of @buf, page aligned
 * @mask: slots - 1; the kernel's copy, never read back from @buf
 * @log2_elem: log2 of the slot size; the kernel's copy
 */
struct rxe_uring {
	struct rdma_user_mmap_entry	mmap;
	struct rxe_queue_buf		*buf;
	size_t				size;
	u32				mask;
	u32				log2_elem;
};

struct rxe_uring *rxe_uring_new(struct rxe_ucontext *uc, u32 slots,
				u32 elem_size);
void rxe_uring_mminfo(const struct rxe_uring *ring, struct mminfo *mi);
void rxe_uring_free(struct rxe_uring *ring);
int rxe_uring_mmap(struct rxe_ucontext *uc, struct vm_area_struct *vma);
void rxe_uring_mmap_free(struct rdma_user_mmap_entry *entry);

struct rxe_pd {
	struct ib_pd		ibpd;
};

static inline struct rxe_pd *to_rpd(struct ib_pd *pd)
{
	return container_of(pd, struct rxe_pd, ibpd);
}

/**
 * struct rxe_dest - where packets go, resolved once
 * @net_type: RDMA_NETWORK_IPV4 or RDMA_NETWORK_IPV6
 * @saddr: source address (IPv4 in @saddr.v4 when @net_type is IPv4)
 * @daddr: destination address
 * @dmac: destination MAC (the IP layer resolves it again on send)
 * @flow_label: 20-bit flow label; also picks the UDP source port
 * @traffic_class: IPv6 traffic class / IPv4 TOS
 * @hop_limit: IPv6 hop limit / IPv4 TTL
 * @sgid_index: GID table index of the source
 * @sl: service level, kept for query_ah() (RoCE v2 carries none)
 * @static_rate: IB_RATE_* of the vector, kept for query_ah()
 * @ifindex: the source GID's netdev, which packets are routed through:
 *	the device's own netdev or a netdev stacked on it (a VLAN...); 0
 *	when the entry had none, for the device's own
 *
 * Send work requests copy the AV of their AH, so the send path never looks
 * an AH up and never holds one.
 */
struct rxe_dest {
	enum rdma_network_type	net_type;
	union {
		__be32		v4;
		struct in6_addr	v6;
	} saddr, daddr;
	u8			dmac[ETH_ALEN];
	u32			flow_label;
	u8			traffic_class;
	u8			hop_limit;
	u8			sgid_index;
	u8			sl;
	u8			static_rate;
	int			ifindex;
};

/**
 * struct rxe_ah - an address handle
 * @ibah: the core's part
 * @lock: modify_ah() rewrites @av under the write side; a UD post_send()
 *	copies it under the read side and retries a torn copy, so neither
 *	waits for the other and both stay safe in any context
 * @av: the destination
 * @num: a user AH's ah_num, its index in rxe_dev.ah_xa; 0 for a kernel AH
 */
struct rxe_ah {
	struct ib_ah		ibah;
	seqlock_t		lock;
	struct rxe_dest		av;
	u32			num;
};

static inline struct rxe_ah *to_rah(struct ib_ah *ah)
{
	return container_of(ah, struct rxe_ah, ibah);
}

int rxe_av_from_attr(struct rxe_dev *rxe, const struct rdma_ah_attr *attr,
		     struct rxe_dest *av);
void rxe_av_to_attr(const struct rxe_dest *av, struct rdma_ah_attr *attr);
void rxe_ah_get_av(struct rxe_ah *ah, struct rxe_dest *av);

/* ---- CQ ------------------------------------------------------------------- */

/**
 * struct rxe_cq - a completion queue
 * @ibcq: the core's CQ (first member)
 * @lock: the ring and @notify; spin_lock_irqsave (posted from softirq,
 *	polled from any context).  A resize replaces @queue or @uring, with
 *	@size, @head, @tail and ibcq.cqe, under it: whoever holds it sees
 *	one ring whole, and the post path never writes to a replaced ring
 * @queue: ring of @size entries (a power of two)
 * @size: number of entries of @queue (of @uring's slots for a user CQ)
 * @head: next entry to fill
 * @tail: next entry to poll
 * @notify: armed IB_CQ_NEXT_COMP / IB_CQ_SOLICITED, 0 when not armed
 * @overflow: a completion was lost; the CQ is in error
 * @uring: a user CQ's ring, mapped by librxe, instead of @queue; @head
 *	is its producer, user space owns the consumer
 */
struct rxe_cq {
	struct ib_cq		ibcq;
	spinlock_t		lock;		/* ring, its swap, notify, overflow */
	struct ib_wc		*queue;
	u32			size;
	u32			head;
	u32			tail;
	u32			notify;
	bool			overflow;
	struct rxe_uring	*uring;
};

static inline struct rxe_cq *to_rcq(struct ib_cq *cq)
{
	return container_of(cq, struct rxe_cq, ibcq);
}

int rxe_cq_post(struct rxe_cq *cq, const struct ib_wc *wc, bool solicited);

/* ---- receive queues (QP RQ and SRQ) --------------------------------------- */

struct rxe_rq_entry {
	u64			wr_id;
	u32			num_sge;
	u32			length;
	struct ib_sge		*sge;
};

/**
 * struct rxe_rq - a receive queue, of a QP or an SRQ
 * @lock: the ring; spin_lock_irqsave
 * @wqe: ring of @size entries (a power of two)
 * @sge: @size * @max_sge scatter entries, @max_sge per WQE
 * @size: number of entries of @wqe
 * @head: next entry post_recv() fills
 * @tail: next entry a receive consumes
 * @max_wr: entries the owner asked for
 * @max_sge: scatter entries per WQE
 * @uring: a user QP's or SRQ's ring, which librxe fills, instead of @wqe
 *	and @sge; slot @tail is the next to take (rxe_uqp.c)
 */
struct rxe_rq {
	spinlock_t		lock;		/* the ring */
	struct rxe_rq_entry	*wqe;
	struct ib_sge		*sge;
	u32			size;
	u32			head;
	u32			tail;
	u32			max_wr;
	u32			max_sge;
	struct rxe_uring	*uring;
};

void rxe_rq_geometry(struct rxe_rq *rq, u32 max_wr, u32 max_sge);
int rxe_rq_init(struct rxe_rq *rq, u32 max_wr, u32 max_sge);
void rxe_rq_free(struct rxe_rq *rq);
int rxe_rq_post(struct rxe_rq *rq, const struct ib_recv_wr *wr,
		const struct ib_recv_wr **bad_wr);

static inline u32 rxe_rq_count(const struct rxe_rq *rq)
{
	return rq->head - rq->tail;
}

/**
 * struct rxe_srq - a shared receive queue
 * @ibsrq: the core's part
 * @rq: its receive queue; a user SRQ's WQEs are in @rq.uring
 * @limit: the armed limit, 0 when not armed; under @rq.lock
 * @num: its number, which librxe is told
 */
struct rxe_srq {
	struct ib_srq		ibsrq;
	struct rxe_rq		rq;
	u32			limit;
	u32			num;
};

static inline struct rxe_srq *to_rsrq(struct ib_srq *srq)
{
	return container_of(srq, struct rxe_srq, ibsrq);
}

int rxe_srq_take(struct rxe_srq *srq, struct rxe_rq_entry *out,
		 struct ib_sge *sge);

/* ---- MR ------------------------------------------------------------------- */

enum rxe_mr_kind {
	RXE_MR_DMA,		/* any kernel virtual address */
	RXE_MR_FAST,		/* fast-registration page list */
	RXE_MR_USER,		/* pinned pages of a process */
};

/*
 * The IBTA's states of a memory region's keys.  A fast-reg MR is FREE
 * after alloc_mr() and after an invalidation, VALID between an
 * IB_WR_REG_MR and the next IB_WR_LOCAL_INV or SEND with invalidate; a
 * DMA MR is VALID from the start.  dereg_mr() makes any MR INVALID for
 * good.  Only a VALID MR can be reached through its key.
 */
enum rxe_mr_state {
	RXE_MR_FREE,
	RXE_MR_VALID,
	RXE_MR_INVALID,
};

/**
 * struct rxe_mr - a memory region
 * @ibmr: the core's MR; lkey == rkey == index << 8 | key byte
 * @rxe: the device
 * @kind: DMA (the whole kernel address space) or fast-reg
 * @index: the key index, the MR's slot in the device's mr_xa
 * @rcu: frees the MR after the RCU readers of mr_xa are done
 * @max_pages: room in @map_pages and @pages
 * @map_pages: page addresses ib_map_mr_sg() gathered (kernel virtual);
 *	only an IB_WR_REG_MR makes them reachable, by copying them
 * @map_npages: entries of @map_pages in use
 * @map_offset: where in the first page the mapping starts
 * @lock: the registration below, of a fast-reg MR.  Every access to the
 *	MR's memory checks it and copies with the read side held (bottom
 *	halves off); registration, invalidation and dereg_mr() change it
 *	under the write side, so once they return no access of the old
 *	registration is still running.  DMA and user MRs change only in
 *	dereg_mr(), which waits for an RCU grace period instead: their
 *	readers take no lock.
 * @state: enum rxe_mr_state
 * @key: the key the registration answers to
 * @access: IB_ACCESS_* rights of the registration
 * @iova: first address of the registration
 * @length: bytes of the registration
 * @page_shift: log2 of the page size of @pages
 * @offset: where in @pages[0] @iova lies
 * @pages: the registration's page addresses (fast-reg and user MRs)
 * @umem: the pinned memory of a user MR
 * @num_mw: memory windows bound to the MR.  A bind raises it with @lock
 *	held for reading after it found the MR VALID; dereg_mr() refuses
 *	with -EBUSY while it is not zero, checking it under the write side,
 *	so a window's MR outlives its binding.  The unbinding drops it.
 */
struct rxe_mr {
	struct ib_mr		ibmr;
	struct rxe_dev		*rxe;
	enum rxe_mr_kind	kind;
	u32			index;
	struct rcu_head		rcu;

	u32			max_pages;
	u64			*map_pages;
	u32			map_npages;
	u32			map_offset;

	rwlock_t		lock;		/* the registration */
	enum rxe_mr_state	state;
	u32			key;
	int			access;
	u64			iova;
	u64			length;
	u32			page_shift;
	u32			offset;
	u64			*pages;
	struct ib_umem		*umem;
	atomic_t		num_mw;
};

static inline struct rxe_mr *to_rmr(struct ib_mr *mr)
{
	return container_of(mr, struct rxe_mr, ibmr);
}

/* Does @key name a memory window (else an MR, or nothing)? */
static inline bool rxe_key_is_mw(u32 key)
{
	return (key >> 8) >= RXE_MW_INDEX_MIN;
}

/*
 * The operations the data path does on an MR's memory, each run whole
 * under the checks of the MR (and of the window it is reached through).
 */
enum rxe_mr_op {
	RXE_MR_OP_CHECK,	/* nothing but the checks */
	RXE_MR_OP_TO_MR,
	RXE_MR_OP_FROM_MR,
	RXE_MR_OP_ATOMIC,
};

/*
 * The operands and result of RXE_MR_OP_ATOMIC: CMP_SWAP, FETCH_ADD, or
 * (@store) an ATOMIC_WRITE of @swap_add.
 */
struct rxe_mr_atomic_args {
	bool	store;
	bool	cmp_swap;
	u64	compare;
	u64	swap_add;
	u64	orig;
};

struct rxe_qp;
int rxe_mr_check(struct rxe_qp *qp, u32 key, int access, u64 iova, u64 len);
int rxe_mr_copy(struct rxe_qp *qp, u32 key, int access, u64 iova, void *buf,
		u32 len, bool to_mr);
int rxe_mr_atomic(struct rxe_qp *qp, u32 key, u64 iova, bool cmp_swap,
		  u64 compare, u64 swap_add, u64 *orig);
int rxe_mr_atomic_write(struct rxe_qp *qp, u32 key, u64 iova, u64 val);
int rxe_mr_apply_bound(struct rxe_mr *mr, u64 iova, u64 len,
		       enum rxe_mr_op op, void *buf,
		       struct rxe_mr_atomic_args *atomic);
struct rxe_mr *rxe_mr_mw_hold(struct rxe_dev *rxe, u32 lkey, struct ib_pd *pd,
			      int need, u64 iova, u64 len);
void rxe_mr_mw_release(struct rxe_mr *mr);
int rxe_sge_copy(struct rxe_dev *rxe, struct ib_pd *pd,
		 const struct ib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, bool to_sge);
int rxe_mr_fast_reg(struct rxe_dev *rxe, struct ib_pd *pd,
		    const struct ib_reg_wr *wr);
int rxe_mr_invalidate(struct rxe_dev *rxe, struct ib_pd *pd, u32 key);

/* ---- MW (rxe_mw.c) -------------------------------------------------------- */

/*
 * The states of a memory window.  FREE: nothing is bound (after
 * alloc_mw(), after an invalidation of a type 2 window, after a
 * zero-length bind); VALID: a bind gave it a range of an MR; INVALID:
 * dealloc_mw() has begun, for good.  Only a VALID window answers to its
 * rkey.
 */
enum rxe_mw_state {
	RXE_MW_FREE,
	RXE_MW_VALID,
	RXE_MW_INVALID,
};

/**
 * struct rxe_mw - a memory window
 * @ibmw: the core's MW (the core allocates and frees the whole); its rkey
 *	follows @key
 * @rxe: the device
 * @index: the key index, the window's slot in the device's mw_xa
 * @lock: the binding below.  Remote accesses through the window check it
 *	and run the MR operation with the read side held (bottom halves
 *	off); bind, invalidation and dealloc_mw() change it under the write
 *	side, so once they are done no access under the old binding is
 *	still running.  Taken before the bound MR's lock, never after it.
 * @state: enum rxe_mw_state
 * @key: the current rkey, index << 8 | the key byte of the last bind
 * @access: IB_ACCESS_REMOTE_* rights of the binding
 * @iova: first address of the bound range (an address of the MR)
 * @length: bytes of the bound range
 * @mr: the MR bound to, counted in its num_mw; NULL when not VALID
 * @qpn: type 2 (2B): the QP the window was bound through, the only one
 *	remote accesses and remote invalidations may come through
 *
 * The engine of the QP that binds or invalidates it, the responder of
 * any QP and dealloc_mw() reach the window; all of them look it up in
 * mw_xa again for every operation and hold no pointer across two.
 */
struct rxe_mw {
	struct ib_mw		ibmw;
	struct rxe_dev		*rxe;
	u32			index;
	rwlock_t		lock;		/* the binding */
	enum rxe_mw_state	state;
	u32			key;
	int			access;
	u64			iova;
	u64			length;
	struct rxe_mr		*mr;
	u32			qpn;
};

static inline struct rxe_mw *to_rmw(struct ib_mw *mw)
{
	return container_of(mw, struct rxe_mw, ibmw);
}

int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int rxe_dealloc_mw(struct ib_mw *ibmw);
enum ib_wc_status rxe_mw_bind(struct rxe_qp *qp, u32 mw_rkey, u32 new_rkey,
			      u32 mr_lkey, u64 addr, u64 length, int access);
int rxe_mw_invalidate(struct rxe_qp *qp, u32 rkey, bool remote);
int rxe_mw_do(struct rxe_qp *qp, u32 key, int access, u64 iova, u64 len,
	      enum rxe_mr_op op, void *buf, struct rxe_mr_atomic_args *atomic);

/* ---- QP ------------------------------------------------------------------- */

enum rxe_wqe_state {
	RXE_WQE_POSTED,		/* not started */
	RXE_WQE_SENDING,	/* some packets sent */
	RXE_WQE_SENT,		/* every packet sent; awaiting ACK or response */
	RXE_WQE_DONE,		/* finished; retires in order */
};

/**
 * struct rxe_sq_entry - one send work request and its progress
 * @opcode: IB_WR_*
 * @send_flags: IB_SEND_*
 * @length: payload bytes of the message
 * @num_sge: gather entries in @sge (0 with IB_SEND_INLINE)
 * @sge: gather list (or inline data), in the SQ's @sge array;
 *	IB_WR_ATOMIC_WRITE: its 8 bytes, from the gather list or inline
 * @wr_id: the caller's id
 * @av: UD: destination, copied from the AH at post time
 * @remote_qpn: UD destination QP
 * @remote_qkey: UD Q_Key (the controlled bit already resolved)
 * @remote_addr: RDMA/atomic target address
 * @rkey: RDMA/atomic target key
 * @compare_add: CMP_SWAP/FETCH_ADD operand
 * @swap: CMP_SWAP operand
 * @imm_or_inv: immediate data (big endian, as on the wire) or the rkey
 *	to invalidate, as the opcode says
 * @reg: IB_WR_REG_MR: the MR, key and access
 * @bind: IB_WR_BIND_MW (user QPs): the window by its current rkey, the
 *	new rkey, the MR by its lkey, the range and the window's rights
 * @state: enum rxe_wqe_state
 * @status: completion status once @state is DONE
 * @first_psn: PSN of the first packet of the message
 * @last_psn: PSN of the last packet (READ: of the last response)
 * @sent: payload bytes already sent (READ: received)
 */
struct rxe_sq_entry {
	enum ib_wr_opcode	opcode;
	int			send_flags;
	u32			length;
	u32			num_sge;
	struct ib_sge		*sge;
	u64			wr_id;
	struct rxe_dest		av;
	u32			remote_qpn;
	u32			remote_qkey;
	u64			remote_addr;
	u32			rkey;
	u64			compare_add;
	u64			swap;
	u32			imm_or_inv;
	union {
		struct {
			struct ib_mr	*mr;
			u32		key;
			int		access;
		} reg;
		struct {
			u32		mw_rkey;
			u32		rkey;
			u32		mr_lkey;
			int		access;
			u64		addr;
			u64		length;
		} bind;
	};
	enum rxe_wqe_state	state;
	enum ib_wc_status	status;
	u32			first_psn;
	u32			last_psn;
	u32			sent;
};

/**
 * struct rxe_sq - the send queue
 * @lock: @head (producers) and the ring slots in use; spin_lock_irqsave.
 *	The engine reads and writes WQEs between @tail and @head without it.
 * @wqe: ring of @size entries (a power of two)
 * @sge: @size * @max_sge gather entries
 * @size: number of entries of @wqe
 * @head: next slot post_send() fills
 * @tail: oldest WQE not yet retired (the completer's position)
 * @max_wr: entries the owner asked for
 * @max_sge: gather entries per WQE
 * @uring: a user QP's ring of the WQEs librxe posts, as many slots as
 *	@wqe; the doorbell imports them into @wqe (rxe_uqp.c)
 * @umutex: a user QP's doorbells and its reset; @lock is not used for it
 */
struct rxe_sq {
	spinlock_t		lock;		/* producers */
	struct rxe_sq_entry	*wqe;
	struct ib_sge		*sge;
	u32			size;
	u32			head;
	u32			tail;
	u32			max_wr;
	u32			max_sge;
	struct rxe_uring	*uring;
	struct mutex		umutex;		/* user doorbells */
};

/*
 * What the responder remembers of an RDMA READ, ATOMIC or ATOMIC_WRITE it
 * executed, to answer its duplicates: max_dest_rd_atomic of them (struct
 * rxe_qp's @rd_res), the oldest forgotten first.  @op is the request's
 * RXE_OP_*.
 */
struct rxe_rd_res {
	bool			valid;
	u8			op;
	u32			first_psn;
	u32			last_psn;
	u64			va;
	u32			rkey;
	u32			length;
	u64			orig;		/* ATOMIC: the value returned */
};

/*
 * The READ responses the responder is sending.  A READ is answered a
 * bounded number of packets per engine pass; the requests behind it wait
 * in resp_pkts until its last response is out, so that responses and
 * acknowledgements leave in PSN order.
 */
struct rxe_rd_stream {
	bool			active;
	bool			at_first;	/* next packet opens the message */
	u32			rkey;
	u64			va;		/* of the next packet's payload */
	u32			left;		/* payload bytes still to send */
	u32			psn;		/* of the next packet */
	u32			last_psn;
};

/**
 * struct rxe_qp - a queue pair
 * @ibqp: the core's QP (first member)
 * @rxe: the device
 * @ref: the owner's reference plus one per user (receive path lookups,
 *	engine runs, queued work, timers); the last put completes @done
 * @done: destroy_qp() waits for it after unpublishing the QP
 * @state_lock: @state, @attr and the path; spin_lock_bh
 * @path_seq: modify_qp() rewrites @av inside a write section of it (under
 *	@state_lock); the receive path reads the path's addresses through it
 *	without taking the lock
 * @state: IB QP state; read without the lock with READ_ONCE
 * @attr: the attributes of modify_qp() that query_qp() reports;
 *	@attr.sq_draining is set by a move from RTS to SQD and cleared when
 *	the engine finds the SQ drained (and raises IB_EVENT_SQ_DRAINED) or
 *	the QP leaves SQD
 * @type_mask: RXE_MASK_RC/UC/UD
 * @mtu: path MTU in bytes
 * @av: RC/UC: the destination path
 * @src_port: RC/UC: UDP source port of the QP pair
 * @sig_all: every send WQE completes (IB_SIGNAL_ALL_WR at creation)
 * @sq: send queue
 * @rq: receive queue (unused with @srq)
 * @srq: shared receive queue, or NULL
 * @scq: send CQ
 * @rcq: receive CQ
 * @eng_lock: @eng_running and @eng_more.  Taken with bottom halves off
 *	(spin_lock_bh, or spin_lock inside rxe_qp_run()'s BH-off section),
 *	never from hard-IRQ context or with IRQs off: rxe_qp_run() hands
 *	those callers to a work item before it takes the lock
 * @eng_running: a context is running the engine (rxe_qp_run())
 * @eng_more: another context asked for a run meanwhile
 * @work: runs the engine from process context
 * @resp_pkts: requests (responder input); skb queue with its own lock
 * @comp_pkts: responses and ACKs (completer input)
 * @retrans_timer: local ACK timeout
 * @rnr_timer: RNR NAK wait
 * @destroyed: destroy_qp() started: timers and work are not re-armed
 * @timeout_fired: @retrans_timer expired; the engine retransmits
 * @rnr_fired: @rnr_timer expired; the engine resends after an RNR NAK
 * @mcast_n: multicast groups the QP is attached to; under the device's
 *	mcast_lock
 * @rd_res: the responder resources, @attr.max_dest_rd_atomic of them
 *	(NULL for none); owned by the engine, replaced by modify_qp() while
 *	it holds the engine (rxe_qp_engine_hold())
 * @req: requester state, owned by the engine
 * @comp: completer state, owned by the engine
 * @resp: responder state, owned by the engine
 *
 * The engine (rxe_qp_run()) is the only code touching @req, @comp and
 * @resp and the WQEs between @sq.tail and @sq.head.  At most one context
 * runs it at a time; a context that finds it running sets @eng_more so
 * the runner goes round again.
 */
struct rxe_qp {
	struct ib_qp		ibqp;
	struct rxe_dev		*rxe;
	struct kref		ref;
	struct completion	done;

	spinlock_t		state_lock;	/* state, attr, av */
	seqcount_spinlock_t	path_seq;
	enum ib_qp_state	state;
	struct ib_qp_attr	attr;
	u32			type_mask;
	u32			mtu;
	struct rxe_dest		av;
	u16			src_port;
	bool			sig_all;

	struct rxe_sq		sq;
	struct rxe_rq		rq;
	struct rxe_srq		*srq;
	struct rxe_cq		*scq;
	struct rxe_cq		*rcq;

	spinlock_t		eng_lock;	/* eng_running, eng_more */
	bool			eng_running;
	bool			eng_more;
	struct work_struct	work;
	struct sk_buff_head	resp_pkts;
	struct sk_buff_head	comp_pkts;
	struct timer_list	retrans_timer;
	struct timer_list	rnr_timer;
	bool			destroyed;
	bool			timeout_fired;
	bool			rnr_fired;
	unsigned int		mcast_n;
	struct rxe_rd_res	*rd_res;

	struct {
		u32		idx;		/* next WQE to work on */
		u32		psn;		/* next PSN to send */
		u32		noack;		/* packets since the last AckReq */
		u32		rd_atomic;	/* READ/ATOMIC outstanding */
		u32		started;	/* one past the last WQE begun */
		unsigned long	sent_at;	/* jiffies of the last RC packet */
		bool		rnr_wait;	/* waiting for @rnr_timer */
	} req;

	struct {
		u32		psn;		/* oldest PSN not acknowledged */
		u32		retry_cnt;
		u32		rnr_retry;
		bool		rewound;	/* resending; later gaps wait */
	} comp;

	struct {
		u32		psn;		/* expected PSN */
		u32		msn;
		bool		nak_sent;	/* a sequence NAK is out */
		bool		in_send;	/* a multi-packet SEND is open */
		bool		in_write;	/* a multi-packet WRITE is open */
		bool		have_wqe;	/* @wqe is taken from the RQ */
		bool		comm_est;	/* IB_EVENT_COMM_EST raised */
		struct rxe_rq_entry wqe;	/* receive WQE of the open SEND */
		struct ib_sge	sge[RXE_MAX_SGE];
		u32		offset;		/* bytes of it filled */
		u32		wkey;		/* rkey of the open WRITE */
		u64		va;		/* where its next payload goes */
		u32		resid;
		u32		wlen;		/* length of the open WRITE */
		struct rxe_rd_stream rd;
		u32		res_head;	/* next @rd_res slot */
		bool		last_wqe;	/* SRQ: Last WQE Reached raised */
	} resp;

};

static inline struct rxe_qp *to_rqp(struct ib_qp *qp)
{
	return container_of(qp, struct rxe_qp, ibqp);
}

static inline u32 rxe_qpn(const struct rxe_qp *qp)
{
	return qp->ibqp.qp_num;
}

/* May a QP in state @s take incoming requests? */
static inline bool rxe_qp_can_receive(enum ib_qp_state s)
{
	return s == IB_QPS_RTR || s == IB_QPS_RTS || s == IB_QPS_SQD ||
	       s == IB_QPS_SQE;
}

/*
 * Send work requests that wait for a response and hold one of the
 * requester's max_rd_atomic slots (and the responder's resources) meanwhile.
 */
static inline bool rxe_wr_is_rd_atomic(enum ib_wr_opcode op)
{
	return op == IB_WR_RDMA_READ || op == IB_WR_ATOMIC_CMP_AND_SWP ||
	       op == IB_WR_ATOMIC_FETCH_AND_ADD || op == IB_WR_ATOMIC_WRITE;
}

/* Send work requests the requester executes itself, sending nothing. */
static inline bool rxe_wr_is_local(enum ib_wr_opcode op)
{
	return op == IB_WR_REG_MR || op == IB_WR_LOCAL_INV ||
	       op == IB_WR_BIND_MW;
}

struct rxe_qp *rxe_qp_get(struct rxe_dev *rxe, u32 qpn);
void rxe_qp_put(struct rxe_qp *qp);
void rxe_qp_run(struct rxe_qp *qp);
void rxe_qp_kick(struct rxe_qp *qp);
void rxe_qp_error(struct rxe_qp *qp);
void rxe_qp_async_event(struct rxe_qp *qp, enum ib_event_type type);
void rxe_qp_flush(struct rxe_qp *qp);
bool rxe_qp_take_recv(struct rxe_qp *qp, struct rxe_rq_entry *out,
		      struct ib_sge *sge);
void rxe_qp_post_recv_cqe(struct rxe_qp *qp, const struct ib_wc *wc,
			  bool solicited);

int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);

/* user QPs (rxe_uqp.c) */
int rxe_uqp_create(struct rxe_qp *qp, struct ib_udata *udata);
void rxe_uqp_free(struct rxe_qp *qp);
void rxe_uqp_reset(struct rxe_qp *qp);
void rxe_uqp_sq_retired(struct rxe_qp *qp);
int rxe_uqp_doorbell(struct rxe_qp *qp);
struct rxe_uring *rxe_urq_new(struct rxe_ucontext *uc, const struct rxe_rq *rq);
u32 rxe_urq_count(const struct rxe_rq *rq);
int rxe_urq_take(struct rxe_rq *rq, struct ib_device *dev,
		 struct rxe_rq_entry *out, struct ib_sge *sge);
void rxe_uqp_recv_refused(struct rxe_qp *qp, u64 wr_id);
bool rxe_opcode_ok(const struct rxe_qp *qp, u32 op);
int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);

/* ---- multicast (rxe_mcast.c) ---------------------------------------------- */

int rxe_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int rxe_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int rxe_mcast_deliver(struct rxe_dev *rxe, const union ib_gid *dgid,
		      struct sk_buff *skb, const struct rxe_pkt *pkt);
int rxe_mcast_init(struct rxe_dev *rxe);
void rxe_mcast_cleanup(struct rxe_dev *rxe);
void rxe_mcast_detach_all(struct rxe_qp *qp);
bool rxe_rcv_mcast_qp(struct rxe_dev *rxe, struct rxe_qp *qp,
		      struct sk_buff *skb, bool count);

/* ---- engines -------------------------------------------------------------- */

int rxe_req_process(struct rxe_qp *qp);
void rxe_req_retry(struct rxe_qp *qp);
void rxe_comp_process(struct rxe_qp *qp, struct sk_buff *skb);
void rxe_comp_timeouts(struct rxe_qp *qp);
void rxe_comp_retire(struct rxe_qp *qp);
void rxe_resp_process(struct rxe_qp *qp, struct sk_buff *skb);
bool rxe_resp_read_more(struct rxe_qp *qp);
void rxe_resp_ud(struct rxe_qp *qp, struct sk_buff *skb,
		 const struct rxe_pkt *pkt);
void rxe_retrans_timer_arm(struct rxe_qp *qp);
bool rxe_retrans_timer_expired(struct rxe_qp *qp);

/* ---- network (rxe_net.c) and receive (rxe_recv.c) ------------------------- */

/*
 * The control block of a received skb: where the BTH is and what the
 * header checks found.  The skb is linear from the IP header on.
 */
struct rxe_skb_cb {
	struct rxe_pkt		pkt;
	u16			l3_off;		/* from skb->data, negative */
	bool			ipv6;
	/* VLAN of the netdev it arrived for, RXE_NO_VLAN if none */
	u16			vlan_id;
};

#define RXE_NO_VLAN	0xffff

static inline struct rxe_skb_cb *rxe_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct rxe_skb_cb) > sizeof(skb->cb));
	return (struct rxe_skb_cb *)skb->cb;
}

struct sk_buff *rxe_pkt_alloc(struct rxe_dev *rxe, const struct rxe_dest *av,
			      u32 hdr_len, u32 paylen, u8 **bth);
int rxe_xmit(struct rxe_dev *rxe, const struct rxe_dest *av, u16 sport,
	     struct sk_buff *skb);
void rxe_rcv(struct rxe_dev *rxe, struct sk_buff *skb);
void rxe_drop(struct rxe_dev *rxe, struct sk_buff *skb, enum rxe_drop why);
struct net_device *rxe_ndev_get(struct rxe_dev *rxe);
int rxe_net_init(void);
void rxe_net_exit(void);
int rxe_net_get(struct net *net);
int rxe_dev_track(struct rxe_dev *rxe, struct net_device *ndev);
void rxe_dev_untrack(struct rxe_dev *rxe);
void rxe_net_put(struct net *net);
void rxe_port_update(struct rxe_dev *rxe, struct net_device *ndev,
		     bool send_event);

/* ---- device (rxe.c, rxe_verbs.c, rxe_hw_counters.c) ----------------------- */

int rxe_register(struct rxe_dev *rxe, const char *name,
		 struct net_device *ndev);
extern const struct ib_device_ops rxe_dev_ops;
struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *dev,
					      u32 port);
int rxe_get_hw_stats(struct ib_device *dev, struct rdma_hw_stats *stats,
		     u32 port, int index);
enum rxe_counter rxe_drop_counter(enum rxe_drop why);
const char *rxe_counter_name(enum rxe_counter c);

/* rxe_mad.c */
int rxe_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in_mad, struct ib_mad *out_mad,
		    size_t *out_mad_size, u16 *out_mad_pkey_index);

extern struct workqueue_struct *rxe_wq;
void rxe_dealloc_driver(struct ib_device *ib_dev);
int rxe_obj_add(struct rxe_dev *rxe, enum rxe_obj_type type);
void rxe_obj_del(struct rxe_dev *rxe, enum rxe_obj_type type);

/* verbs implemented outside rxe_verbs.c */
int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int rxe_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int rxe_peek_cq(struct ib_cq *ibcq, int wc_cnt);
int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int rxe_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		  struct ib_udata *udata);
int rxe_modify_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxe_query_ah(struct ib_ah *ibah, struct rdma_ah_attr *attr);
int rxe_create_user_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		       struct ib_udata *udata);
int rxe_destroy_ah(struct ib_ah *ibah, u32 flags);
int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr);
struct ib_mr *rxe_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *rxe_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata);
struct ib_mr *rxe_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg);
int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset);
int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);

#endif /* RXE_H */
