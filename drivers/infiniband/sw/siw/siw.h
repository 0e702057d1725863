/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-iWARP: RDMAP/DDP/MPA over a kernel TCP socket, one RDMA device per
 * netdev ("rdma link add NAME type siw netdev DEV").
 *
 * Files: siw_main.c (module, links, netdev events, the ops table),
 * siw_verbs.c (device queries, PD, QP and SRQ verbs), siw_qp.c (QP state,
 * the work queues, flushing, Terminate), siw_qp_tx.c (send queue and READ
 * responses into FPDUs), siw_qp_rx.c (FPDUs off the socket into memory),
 * siw_cm.c (TCP connections, MPA negotiation, the iw_cm ops), siw_mem.c
 * (STags, memory regions, address translation), siw_cq.c (completion
 * queues), siw_wire.c (the pure wire formats of siw_wire.h).
 *
 * Queues are rings of the user ABI's elements (<rdma/siw-abi.h>) for
 * kernel and user QPs alike: a user QP's rings are mapped into the process,
 * which posts by writing elements and ringing through post_send().  An
 * element belongs to its producer until SIW_WQE_VALID is set in its flags,
 * then to the consumer until it clears them.  The driver copies every
 * element it takes into memory of its own before looking at it, so a
 * process cannot change a work request under its feet.
 */
#ifndef SIW_H
#define SIW_H

#include <linux/completion.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/sock.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>
#include <rdma/siw-abi.h>

#include "siw_wire.h"

/* ---- limits the device reports --------------------------------------- */

#define SIW_MAX_QP		(1024 * 32)
#define SIW_MAX_QP_WR		(1024 * 16)
#define SIW_MAX_ORD		128
#define SIW_MAX_IRD		128
#define SIW_MAX_CQ		(1024 * 32)
#define SIW_MAX_CQE		(SIW_MAX_QP_WR * 2)
#define SIW_MAX_PD		SIW_MAX_QP
#define SIW_MAX_SRQ		SIW_MAX_QP
#define SIW_MAX_SRQ_WR		(SIW_MAX_QP_WR * 2)
#define SIW_MAX_MR		(1024 * 64)
#define SIW_MAX_FRMR_PAGES	4096
#define SIW_MAX_CONTEXT		SIW_MAX_PD
/* iWARP leaves the default READ depths to the provider. */
#define SIW_DEF_ORD		16
#define SIW_DEF_IRD		16
/* Largest payload of one FPDU, whatever the path MSS */
#define SIW_MAX_FPDU_PAYLOAD	65000
/*
 * A process's doorbell sends work requests of up to this many payload
 * bytes itself (one FPDU each), the rest goes to tx_work.
 */
#define SIW_TX_DIRECT_MAX	512
/* Bytes rx_work reads ahead into its stage for the small pieces of FPDUs */
#define SIW_RX_STAGE		256
#define SIW_TX_DIRECT_FPDU	(SIW_HDR_MAX_LEN + SIW_TX_DIRECT_MAX + 3 + \
				 SIW_MPA_CRC_BYTES)

/* An STag: 24-bit index into the device's table, 8-bit consumer key. */
#define SIW_STAG_KEY_BITS	8
#define SIW_STAG_KEY_MASK	0xff

/* Error and drop counters, shown as hardware counters. */
enum siw_counter {
	SIW_CNT_TX_FPDU,
	SIW_CNT_RX_FPDU,
	SIW_CNT_RX_BAD_CRC,
	SIW_CNT_RX_BAD_HDR,
	SIW_CNT_RX_PROTECTION,
	SIW_CNT_TERM_SENT,
	SIW_CNT_TERM_RCVD,
	SIW_CNT_MPA_BAD,
	SIW_CNT_MPA_REJECTED,
	SIW_CNT_CONN_ESTABLISHED,
	SIW_CNT_TX_DIRECT_REST,	/* direct sends TCP did not take whole */
	SIW_NUM_COUNTERS
};

/* Kinds of objects a device counts against its limits */
enum siw_obj {
	SIW_OBJ_QP,
	SIW_OBJ_CQ,
	SIW_OBJ_PD,
	SIW_OBJ_MR,
	SIW_OBJ_SRQ,
	SIW_OBJ_CTX,
	SIW_NUM_OBJ
};

/**
 * struct siw_device - one siw device on one netdev
 * @base: the core device
 * @netdev: the netdev, held (@netdev_tracker) from link add until the
 *	core releases the device
 * @netdev_tracker: its reference tracker
 * @qps: QP number -> struct siw_qp (xa_lock; lookups under RCU with
 *	kref_get_unless_zero())
 * @mems: STag index -> struct siw_mem (the same rules)
 * @mem_next: where xa_alloc_cyclic() looks for the next STag index
 * @ceps: every connection endpoint of the device, listeners included
 *	(@cep_lock), so that a device going away can close them all
 * @cep_lock: protects @ceps
 * @objs: objects alive of each enum siw_obj kind (siw_obj_add())
 * @counters: enum siw_counter
 */
struct siw_device {
	struct ib_device	base;
	struct net_device	*netdev;
	netdevice_tracker	netdev_tracker;
	struct xarray		qps;
	struct xarray		mems;
	u32			mem_next;
	struct list_head	ceps;
	spinlock_t		cep_lock;	/* protects @ceps */
	atomic_t		objs[SIW_NUM_OBJ];
	atomic64_t		counters[SIW_NUM_COUNTERS];
};

static inline struct siw_device *to_siw_dev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct siw_device, base);
}

int siw_obj_add(struct siw_device *sdev, enum siw_obj kind);

static inline void siw_obj_del(struct siw_device *sdev, enum siw_obj kind)
{
	atomic_dec(&sdev->objs[kind]);
}

static inline void siw_count(struct siw_device *sdev, enum siw_counter c)
{
	atomic64_inc(&sdev->counters[c]);
}

/**
 * struct siw_ucontext - a process's use of a device
 * @base: the core's part
 */
struct siw_ucontext {
	struct ib_ucontext	base;
};

/**
 * struct siw_pd - protection domain
 * @base: the core's part
 */
struct siw_pd {
	struct ib_pd		base;
};

/* ---- memory --------------------------------------------------------- */

enum siw_mem_kind {
	SIW_MEM_DMA,	/* any kernel virtual address (get_dma_mr) */
	SIW_MEM_PBL,	/* a page list set by a fast registration */
	SIW_MEM_UMEM,	/* pinned user pages */
};

/**
 * struct siw_mem - what an STag names
 * @ref: one reference for the table (dropped at deregistration) and one
 *	per user that looked it up (siw_mem_get() / siw_mem_put())
 * @sdev: the device
 * @pd: the PD it belongs to
 * @stag: index << 8 | key
 * @valid: the STag may be used; cleared by invalidation, set by a fast
 *	registration (WRITE_ONCE/READ_ONCE: the data path reads it unlocked)
 * @kind: enum siw_mem_kind
 * @access: IB_ACCESS_* rights
 * @va: first address the STag covers
 * @len: bytes it covers (0 with SIW_MEM_DMA: all of them)
 * @pages: SIW_MEM_PBL: kernel virtual address of each page
 * @npages: SIW_MEM_PBL: pages set; SIW_MEM_UMEM: pages in @upages
 * @max_pages: SIW_MEM_PBL: room in @pages
 * @page_shift: SIW_MEM_PBL: log2 of the page size of the list
 * @umem: SIW_MEM_UMEM: the pinned memory
 * @upages: SIW_MEM_UMEM: its pages in address order
 * @rcu: frees the structure after readers of the table are gone
 */
struct siw_mem {
	struct kref		ref;
	struct siw_device	*sdev;
	struct ib_pd		*pd;
	u32			stag;
	bool			valid;
	enum siw_mem_kind	kind;
	int			access;
	u64			va;
	u64			len;
	u64			*pages;
	u32			npages;
	u32			max_pages;
	u32			page_shift;
	struct ib_umem		*umem;
	struct page		**upages;
	struct rcu_head		rcu;
};

/**
 * struct siw_mr - memory region
 * @base: the core's part
 * @mem: its STag's entry (the table's reference is the MR's)
 */
struct siw_mr {
	struct ib_mr		base;
	struct siw_mem		*mem;
};

static inline struct siw_mr *to_siw_mr(struct ib_mr *mr)
{
	return container_of(mr, struct siw_mr, base);
}

struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag);
void siw_mem_put(struct siw_mem *mem);
int siw_mem_check(struct siw_mem *mem, struct ib_pd *pd, int access,
		  u64 addr, u64 len, struct siw_term_info *why);
void *siw_mem_ptr(struct siw_mem *mem, u64 addr, u32 *len);
int siw_mem_invalidate(struct siw_device *sdev, struct ib_pd *pd, u32 stag);
int siw_mem_fastreg(struct siw_device *sdev, struct ib_pd *pd,
		    struct ib_mr *mr, u32 key, int access);

struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access);
struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 va, int access, struct ib_udata *udata);
struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg);
int siw_map_mr_sg(struct ib_mr *mr, struct scatterlist *sg, int nents,
		  unsigned int *sg_off);
int siw_dereg_mr(struct ib_mr *mr, struct ib_udata *udata);

/* ---- completion queues ------------------------------------------------ */

/**
 * struct siw_cq - completion queue
 * @base: the core's part
 * @lock: serialises producers (any context, taken _irqsave) and, for a
 *	kernel CQ, poll_cq()
 * @queue: @num_cqe elements, then (user CQs) the notify word, in one
 *	vmalloc_user() area the process maps
 * @notify: SIW_NOTIFY_* armed by req_notify_cq() or by the process
 * @num_cqe: elements in @queue
 * @put: next element a producer fills
 * @get: next element poll_cq() reads (kernel CQs)
 * @kernel: a kernel user's CQ
 * @mmap: the process's mapping of @queue (user CQs)
 */
struct siw_cq {
	struct ib_cq		base;
	spinlock_t		lock;		/* see above */
	struct siw_cqe		*queue;
	struct siw_cq_ctrl	*notify;
	u32			num_cqe;
	u32			put;
	u32			get;
	bool			kernel;
	struct rdma_user_mmap_entry *mmap;
};

static inline struct siw_cq *to_siw_cq(struct ib_cq *cq)
{
	return container_of(cq, struct siw_cq, base);
}

int siw_cq_add(struct siw_cq *cq, const struct siw_cqe *cqe, bool solicited);
int siw_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs);
int siw_destroy_cq(struct ib_cq *base, struct ib_udata *udata);
int siw_poll_cq(struct ib_cq *base, int num, struct ib_wc *wc);
int siw_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags);

/* ---- shared receive queues -------------------------------------------- */

/**
 * struct siw_srq - shared receive queue
 * @base: the core's part
 * @lock: serialises consumers (receive paths of the QPs on it) against the
 *	limit event, and kernel producers among themselves (_irqsave)
 * @rq: @size receive elements (vmalloc_user() for a user SRQ)
 * @size: elements in @rq
 * @put: next element post_srq_recv() fills (kernel SRQs)
 * @get: next element a receive takes
 * @limit: arm level of IB_EVENT_SRQ_LIMIT_REACHED
 * @armed: the limit event is armed
 * @kernel: a kernel user's SRQ
 * @mmap: the process's mapping of @rq
 */
struct siw_srq {
	struct ib_srq		base;
	spinlock_t		lock;		/* see above */
	struct siw_rqe		*rq;
	u32			size;
	u32			put;
	u32			get;
	u32			limit;
	bool			armed;
	bool			kernel;
	struct rdma_user_mmap_entry *mmap;
};

static inline struct siw_srq *to_siw_srq(struct ib_srq *srq)
{
	return container_of(srq, struct siw_srq, base);
}

/* ---- queue pairs ------------------------------------------------------- */

/* How the ready-to-receive exchange of MPA revision 2 goes on this QP. */
enum siw_rtr {
	SIW_RTR_NONE,		/* revision 1, or no RTR message agreed */
	SIW_RTR_SEND_READ,	/* we are the initiator: send a 0-byte READ */
	SIW_RTR_SEND_WRITE,	/* we are the initiator: send a 0-byte WRITE */
	/* we are the responder: send nothing before the initiator's RTR */
	SIW_RTR_AWAIT,
};

/**
 * struct siw_conn_params - what MPA negotiation settled for a connection
 * @crc: FPDUs carry and are checked for a CRC32c
 * @ird: inbound READ depth: READ requests the peer may have open
 * @ord: outbound READ depth: READ requests we may have open
 * @rtr: enum siw_rtr
 */
struct siw_conn_params {
	bool		crc;
	u16		ird;
	u16		ord;
	enum siw_rtr	rtr;
};

/* A peer's READ request waiting for its response; @msn: its MSN. */
struct siw_read_resp {
	u32	msn;
	u32	sink_stag;
	u64	sink_to;
	u32	size;
	u32	src_stag;
	u64	src_to;
};

/**
 * struct siw_tx - transmit state (whoever holds the QP's tx_mutex)
 * @wqe: private copy of the work request being sent
 * @msn: next MSN of each untagged queue we send on
 * @wait_rtr: the initiator's RTR message has not arrived yet
 * @rtr_pending: our RTR message (initiator) is still to be sent
 * @term_pending: @term is to be sent, then the connection closed
 *	(orq_lock; set once per connection, by siw_qp_fatal())
 * @term_done: the Terminate went out (or could not)
 * @direct: a process's doorbell is sending (siw_tx_doorbell()): FPDUs go
 *	through @fpdu without waiting for room in the socket
 * @term_len: bytes of @term
 * @rest_off: where in @fpdu the part TCP did not take yet starts
 * @rest_len: bytes of that part; tx_work sends them before anything else
 * @term: payload of the Terminate: control word and copied headers
 * @hdr: the FPDU header being built
 * @fpdu: a whole FPDU of a direct send
 */
struct siw_tx {
	struct siw_sqe	wqe;
	u32		msn[SIW_NUM_QN];
	bool		wait_rtr;
	bool		rtr_pending;
	bool		term_pending;
	bool		term_done;
	bool		direct;
	u16		term_len;
	u16		rest_off;
	u16		rest_len;
	u8		term[SIW_TERM_LEN];
	u8		hdr[SIW_HDR_MAX_LEN];
	u8		fpdu[SIW_TX_DIRECT_FPDU];
};

enum siw_rx_state {
	SIW_RX_HDR,	/* reading an FPDU header */
	SIW_RX_DATA,	/* placing its payload */
	SIW_RX_TRAILER,	/* reading pad and CRC */
};

/**
 * struct siw_rx - receive state (the QP's rx_work only)
 * @state: enum siw_rx_state
 * @hdr: the FPDU header read so far
 * @have: bytes of @hdr (or of @trailer) read so far
 * @need: bytes of it wanted in all
 * @info: the checked header
 * @crc: running CRC32c of the FPDU
 * @left: payload bytes of this FPDU still to place
 * @trailer: pad and CRC
 * @msn: next MSN expected on each untagged queue
 * @mo: next message offset expected for the SEND message in progress
 * @rresp: bytes of the READ response in progress placed so far
 * @rqe: private copy of the receive element of that SEND message
 * @have_rqe: @rqe holds one
 * @mem: memory of the tagged segment in progress, a reference held
 * @to: where its next payload byte goes
 * @sge: SGE of @rqe the next SEND byte goes to
 * @sge_off: offset in it
 * @term: the start of a Terminate's payload
 * @stage_off: where the bytes of @stage not used yet start
 * @stage_len: how many there are
 * @stage: stream bytes read ahead, a socket read at a time, for the reads
 *	of the state machine smaller than it
 */
struct siw_rx {
	enum siw_rx_state	state;
	u8			hdr[SIW_HDR_MAX_LEN];
	u16			have;
	u16			need;
	struct siw_hdr_info	info;
	u32			crc;
	u32			left;
	u8			trailer[3 + SIW_MPA_CRC_BYTES];
	u32			msn[SIW_NUM_QN];
	u32			mo;
	u32			rresp;
	struct siw_rqe		rqe;
	bool			have_rqe;
	struct siw_mem		*mem;
	u64			to;
	u32			sge;
	u32			sge_off;
	u8			term[SIW_TERM_LEN];
	u16			stage_off;
	u16			stage_len;
	u8			stage[SIW_RX_STAGE];
};

struct siw_cep;

/**
 * struct siw_qp - queue pair (RC only)
 * @base: the core's part
 * @sdev: the device
 * @ref: the owner's reference (dropped by destroy_qp), iw_cm's
 *	(iw_add_ref) and the connection endpoint's while bound
 * @released: completed when @ref reaches zero; destroy_qp waits for it,
 *	since the core frees the memory once destroy_qp returns
 * @state_lock: serialises state changes (modify_qp, the connection
 *	manager, fatal errors); never taken on the data path
 * @state: IB state; written under @state_lock, read with READ_ONCE()
 * @scq: send CQ
 * @rcq: receive CQ
 * @srq: SRQ, or NULL
 * @kernel: a kernel user's QP
 * @sig_all: every send work request completes with a CQE
 * @access: IB_ACCESS_REMOTE_* set by modify_qp, for query_qp.  They are
 *	not enforced: iWARP grants remote access per STag only (RFC 5040
 *	has no rights of a stream), and rdma_cm leaves an active side's QP
 *	without them although its peer reads and writes its buffers.
 * @sq_lock: serialises kernel producers of the SQ (any context, _irqsave)
 * @sq: @sq_size send elements (vmalloc_user() for a user QP)
 * @sq_size: power of two
 * @sq_put: next element post_send() fills (kernel QPs)
 * @sq_get: next element the sender takes
 * @rq_lock: serialises kernel producers of the RQ (_irqsave)
 * @rq: @rq_size receive elements, NULL with an SRQ
 * @rq_size: power of two
 * @rq_put: next element post_recv() fills (kernel QPs)
 * @rq_get: next element the receive path takes
 * @orq_lock: protects the ORQ and the IRQ indexes (_bh: not taken from
 *	interrupt context)
 * @orq: our READ requests on the wire, oldest at @orq_get
 * @orq_size: room in @orq (the ORD)
 * @orq_put: next free entry (the sender)
 * @orq_get: oldest open entry (rx_work)
 * @irq: the peer's READ requests to answer, oldest at @irq_get
 * @irq_size: room in @irq (the IRD)
 * @irq_put: next free entry (rx_work)
 * @irq_get: oldest entry (the sender)
 * @max_ord: ORD asked for at creation or modify (SIW_DEF_ORD if none)
 * @max_ird: IRD asked for
 * @conn: what the connection settled (valid from RTS on)
 * @fpdu_payload: largest payload of one FPDU we send
 * @tx: transmit state
 * @rx: receive state
 * @tx_mutex: held by whoever writes the stream: tx_work, or a process's
 *	doorbell sending small work requests itself (siw_tx_doorbell());
 *	taken after @state_lock, and nothing is taken under it that could
 *	wait for @state_lock
 * @tx_work: sends FPDUs; the sender that may wait for room in the socket
 * @rx_work: reads FPDUs
 * @cep: the connection, NULL when there is none (@state_lock)
 * @setup_cep: the active connection being set up for the QP, until it
 *	reaches RTS or fails (@state_lock): ERR aborts it
 * @sock: its socket from RTS until the connection goes (@state_lock;
 *	the senders and rx_work use it only while it is set, see
 *	siw_qp_detach())
 * @sq_mmap: the process's mapping of @sq
 * @rq_mmap: the process's mapping of @rq
 */
struct siw_qp {
	struct ib_qp		base;
	struct siw_device	*sdev;
	struct kref		ref;
	struct completion	released;
	struct mutex		state_lock;	/* see above */
	enum ib_qp_state	state;
	struct siw_cq		*scq;
	struct siw_cq		*rcq;
	struct siw_srq		*srq;
	bool			kernel;
	bool			sig_all;
	int			access;

	spinlock_t		sq_lock;	/* see above */
	struct siw_sqe		*sq;
	u32			sq_size;
	u32			sq_put;
	u32			sq_get;

	spinlock_t		rq_lock;	/* see above */
	struct siw_rqe		*rq;
	u32			rq_size;
	u32			rq_put;
	u32			rq_get;

	spinlock_t		orq_lock;	/* see above */
	struct siw_sqe		*orq;
	u32			orq_size;
	u32			orq_put;
	u32			orq_get;
	struct siw_read_resp	*irq;
	u32			irq_size;
	u32			irq_put;
	u32			irq_get;
	u32			max_ord;
	u32			max_ird;

	struct siw_conn_params	conn;
	u32			fpdu_payload;
	struct siw_tx		tx;
	struct siw_rx		rx;
	struct mutex		tx_mutex;	/* see above */
	struct work_struct	tx_work;
	struct work_struct	rx_work;
	struct siw_cep		*cep;
	struct siw_cep		*setup_cep;
	struct socket		*sock;
	struct rdma_user_mmap_entry *sq_mmap;
	struct rdma_user_mmap_entry *rq_mmap;
};

static inline struct siw_qp *to_siw_qp(struct ib_qp *qp)
{
	return container_of(qp, struct siw_qp, base);
}

static inline u32 siw_qpn(const struct siw_qp *qp)
{
	return qp->base.qp_num;
}

/* siw_qp.c */
extern struct workqueue_struct *siw_wq;
void siw_qp_get(struct siw_qp *qp);
void siw_qp_put(struct siw_qp *qp);
struct siw_qp *siw_qp_lookup(struct siw_device *sdev, u32 qpn);
int siw_qp_start(struct siw_qp *qp, struct siw_cep *cep, struct socket *sock,
		 const struct siw_conn_params *conn);
void siw_qp_conn_lost(struct siw_qp *qp, bool error);
int siw_qp_setup(struct siw_qp *qp, struct siw_cep *cep, bool done);
void siw_qp_tx_kick(struct siw_qp *qp);
void siw_qp_rx_kick(struct siw_qp *qp);
void siw_qp_fatal(struct siw_qp *qp, const struct siw_term_info *term,
		  const void *bad_hdr, unsigned int bad_len);
void siw_qp_flush(struct siw_qp *qp);
int siw_qp_set_state(struct siw_qp *qp, enum ib_qp_state new);
void siw_sq_complete(struct siw_qp *qp, const struct siw_sqe *wqe, u32 bytes,
		     enum siw_wc_status status);
void siw_rq_complete(struct siw_qp *qp, const struct siw_rqe *rqe, u32 bytes,
		     u32 inv_stag, enum siw_wc_status status, bool solicited);
bool siw_take_rqe(struct siw_qp *qp, struct siw_rqe *rqe);

/* siw_qp_tx.c, siw_qp_rx.c */
void siw_tx_work(struct work_struct *work);
void siw_tx_doorbell(struct siw_qp *qp);
void siw_rx_work(struct work_struct *work);

/* siw_verbs.c */
int siw_query_device(struct ib_device *base, struct ib_device_attr *attr,
		     struct ib_udata *udata);
int siw_query_port(struct ib_device *base, u32 port,
		   struct ib_port_attr *attr);
int siw_get_port_immutable(struct ib_device *base, u32 port,
			   struct ib_port_immutable *immutable);
int siw_query_gid(struct ib_device *base, u32 port, int idx,
		  union ib_gid *gid);
int siw_query_pkey(struct ib_device *base, u32 port, u16 idx, u16 *pkey);
int siw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata);
void siw_dealloc_ucontext(struct ib_ucontext *base);
void *siw_ring_alloc(struct ib_udata *udata, size_t bytes,
		     struct rdma_user_mmap_entry **entry, u64 *key);
void siw_ring_free(void *buf, struct rdma_user_mmap_entry *entry);
int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma);
void siw_mmap_free(struct rdma_user_mmap_entry *entry);
int siw_alloc_pd(struct ib_pd *base, struct ib_udata *udata);
int siw_dealloc_pd(struct ib_pd *base, struct ib_udata *udata);
int siw_create_qp(struct ib_qp *base, struct ib_qp_init_attr *init,
		  struct ib_udata *udata);
int siw_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata);
int siw_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init);
int siw_destroy_qp(struct ib_qp *base, struct ib_udata *udata);
int siw_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad);
int siw_post_recv(struct ib_qp *base, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad);
int siw_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		   struct ib_udata *udata);
int siw_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata);
int siw_query_srq(struct ib_srq *base, struct ib_srq_attr *attr);
int siw_destroy_srq(struct ib_srq *base, struct ib_udata *udata);
int siw_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad);
void siw_add_ref(struct ib_qp *base);
void siw_rem_ref(struct ib_qp *base);
struct ib_qp *siw_get_qp(struct ib_device *base, int qpn);

/* siw_cm.c: the connection manager, see siw_cm.h */
int siw_connect(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw_accept(struct iw_cm_id *id, struct iw_cm_conn_param *param);
int siw_reject(struct iw_cm_id *id, const void *pdata, u8 pdata_len);
int siw_create_listen(struct iw_cm_id *id, int backlog);
int siw_destroy_listen(struct iw_cm_id *id);
void siw_cm_close(struct siw_cep *cep, bool abrupt);
void siw_cm_dev_down(struct siw_device *sdev);
int siw_cm_init(void);
void siw_cm_exit(void);

#define siw_dbg(sdev, fmt, ...) ibdev_dbg(&(sdev)->base, fmt, ##__VA_ARGS__)
#define siw_qp_dbg(qp, fmt, ...)					\
	do {								\
		const struct siw_qp *__qp = (qp);			\
									\
		ibdev_dbg(&__qp->sdev->base, "QP %u: " fmt,		\
			  siw_qpn(__qp), ##__VA_ARGS__);		\
	} while (0)

#endif /* SIW_H */
