/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the source files of the rdma_rxe_loop_test module share: the
 * device and PD under test, QPs with their CQs and buffers, work request
 * helpers and the fast-registered MR of the RC cases.  rdma_rxe_loop.c
 * holds these, the traffic cases and the module's set-up;
 * rdma_rxe_guard.c the cases where the device must refuse something;
 * rdma_rxe_limits.c those of the limits query_device() reports;
 * rdma_rxe_qp_events.c those of QP operations and events; rdma_rxe_mad.c
 * those of the GSI QP (QP 1) and the MAD layer on it; rdma_rxe_addr.c
 * those of rdma_resolve_ip() on the device's netdev; rdma_rxe_path.c those
 * of paths (ib_sa.h); rdma_rxe_cm.c those of ib_cm, rdma_rxe_cma.c those
 * of the RDMA CM (rdma_cm.h), rdma_rxe_rw.c those of the R/W API.
 */
#ifndef RDMA_RXE_LOOP_H
#define RDMA_RXE_LOOP_H

#include <linux/scatterlist.h>
#include <rdma/ib_verbs.h>
#include "rdma_ktap.h"

/* How long a completion or an event may take to show up. */
#define LT_WAIT_MS	3000
/* How long "nothing more comes" is watched for. */
#define LT_QUIET_MS	50
#define LT_QKEY		0x1234abcd
/* The GRH-sized area in front of every UD payload. */
#define LT_GRH		40
/* Every QP's local send and receive buffer. */
#define LT_BUF		(16 * 1024)
#define LT_DEPTH	16
/* The remote MR: fast-registered, four pages. */
#define LT_MR_ORDER	2
#define LT_MR_PAGES	BIT(LT_MR_ORDER)
#define LT_MR_BYTES	(PAGE_SIZE << LT_MR_ORDER)
#define LT_ACCESS_ALL	(IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ | \
			 IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)
/* Flow label of the IPv6 UD AH: it must reach the IPv6 header. */
#define LT_FLOW6	0x5a5a5
#define LT_HOPS		64

/**
 * struct lt_end - one QP with its CQs and local buffers
 * @qp: the QP
 * @scq: its send CQ (polled directly)
 * @rcq: its receive CQ (polled directly)
 * @tx: what it sends, LT_BUF bytes
 * @rx: where it receives (and RDMA READs and atomics land), LT_BUF bytes
 * @tx_dma: @tx as the device addresses it
 * @rx_dma: @rx as the device addresses it
 * @events: asynchronous events of the QP
 * @last_event: the type of the latest of them
 */
struct lt_end {
	struct ib_qp	*qp;
	struct ib_cq	*scq;
	struct ib_cq	*rcq;
	u8		*tx;
	u8		*rx;
	u64		tx_dma;
	u64		rx_dma;
	atomic_t	events;
	int		last_event;
};

/**
 * struct lt_wr - one send work request, as the cases describe it
 * @op: the opcode
 * @wr_id: its id
 * @signaled: ask for a completion
 * @laddr: local buffer (device address); unused when @len is 0
 * @len: its length; 0 posts no gather entry
 * @imm: immediate data of the _WITH_IMM opcodes
 * @ah: UD destination
 * @rqpn: UD destination QP
 * @qkey: UD Q_Key to send with; 0 for LT_QKEY
 * @raddr: RDMA and atomic target address
 * @rkey: its key
 * @compare_add: atomic operand
 * @swap: atomic operand
 */
struct lt_wr {
	enum ib_wr_opcode	op;
	u64			wr_id;
	bool			signaled;
	u64			laddr;
	u32			len;
	__be32			imm;
	struct ib_ah		*ah;
	u32			rqpn;
	u32			qkey;
	u64			raddr;
	u32			rkey;
	u64			compare_add;
	u64			swap;
};

/**
 * struct lt_mr - a fast-registered MR of LT_MR_PAGES pages
 * @mr: the MR
 * @va: its memory
 * @sg: the one scatterlist entry mapping it
 * @mapped: @sg is DMA-mapped
 */
struct lt_mr {
	struct ib_mr		*mr;
	u8			*va;
	struct scatterlist	sg;
	bool			mapped;
};

/**
 * struct lt_traffic - what the cases completed successfully
 * @sends: SEND work requests
 * @recvs: receive completions
 * @pkts: a lower bound of the packets these took (each sent and received
 *	once by the device)
 * @forged: packets sent from an address that is not the path of the QP
 *	they were aimed at (each must be dropped and counted in drop_path)
 * @mad_bad: MADs sent to QP 1 that its MAD layer must drop as malformed
 * @mad_unmatched: responses it must drop as answering no send
 */
struct lt_traffic {
	u32 sends;
	u32 recvs;
	u32 pkts;
	u32 forged;
	u32 mad_bad;
	u32 mad_unmatched;
};

/* The module's own addresses on the netdev: 10.13.0.1/24, fd00:0:13::1/64 */
#define LT_ADDR4	htonl(0x0a0d0001)
extern const struct in6_addr lt_addr6;

extern struct lt_traffic lt_traffic;
extern struct ib_device *lt_dev;
extern struct net_device *lt_ndev;
extern struct ib_pd *lt_pd;
/* The port's active MTU: UD payload limit, RC/UC path MTU. */
extern enum ib_mtu lt_mtu_enum;
extern u32 lt_mtu;
/* GID table index of the module's IPv4 address, the source of every path */
extern int lt_idx4;
/* GID table index of the second IPv4 address (a host other than the path) */
extern int lt_idx4_other;

/**
 * struct lt_rc_opts - how lt_to_rts_opts() sets up an RC or UC QP
 * @sgid_idx: source GID of the path (default: the first IPv4 address)
 * @max_dest_rd_atomic: responder resources
 * @min_rnr_timer: RNR NAK timer code the QP asks for
 * @timeout: local ACK timeout code, 0 for none
 * @retry_cnt: retransmissions before a message fails
 * @max_rd_atomic: READs and ATOMICs outstanding as requester (0: 4)
 */
struct lt_rc_opts {
	int sgid_idx;
	u8 max_dest_rd_atomic;
	u8 min_rnr_timer;
	u8 timeout;
	u8 retry_cnt;
	u8 max_rd_atomic;
};

bool lt_own_attr(struct rdma_ktap_ctx *ctx, struct rdma_ah_attr *attr,
		 bool v6);
bool lt_path_attr(struct rdma_ktap_ctx *ctx, struct rdma_ah_attr *attr,
		  int sgid_idx);
struct ib_ah *lt_own_ah(struct rdma_ktap_ctx *ctx, struct ib_pd *pd, bool v6);
void lt_end_destroy(struct lt_end *e);
/*
 * Buffers and CQs of @e, and in @init the attributes of its QP, which the
 * caller creates (lt_end_create*() with ib_create_qp(), the RDMA CM cases
 * with rdma_create_qp()); lt_end_destroy() undoes either.
 */
int lt_end_prepare(struct lt_end *e, enum ib_qp_type type,
		   struct ib_srq *srq, u32 depth, struct ib_qp_init_attr *init);
int lt_end_create(struct lt_end *e, enum ib_qp_type type, struct ib_srq *srq);
int lt_end_create_depth(struct lt_end *e, enum ib_qp_type type,
			struct ib_srq *srq, u32 depth);
u32 lt_qpn(const struct lt_end *e);
int lt_ud_ready(struct lt_end *e);
int lt_to_init(struct lt_end *e, int access);
int lt_to_rts(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 dqpn,
	      u32 rq_psn, u32 sq_psn, u8 timeout);
int lt_to_rts_opts(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 dqpn,
		   u32 rq_psn, u32 sq_psn, const struct lt_rc_opts *o);
bool lt_pair(struct rdma_ktap_ctx *ctx, struct lt_end *a, struct lt_end *b,
	     enum ib_qp_type type, int access, u32 a_psn, u32 b_psn);
bool lt_poll(struct ib_cq *cq, struct ib_wc *wc);
bool lt_expect_wc(struct rdma_ktap_ctx *ctx, struct ib_cq *cq,
		  const char *what, u64 wr_id, enum ib_wc_status status,
		  enum ib_wc_opcode opcode, struct ib_wc *out);
bool lt_expect_quiet(struct rdma_ktap_ctx *ctx, struct ib_cq *cq,
		     const char *what);
int lt_post_recv(struct ib_qp *qp, struct ib_srq *srq, u64 wr_id, u64 addr,
		 u32 len);
int lt_post_send(struct ib_qp *qp, const struct lt_wr *w, bool *bad_first);
u32 lt_npkts(u32 len);
void lt_fill(u8 *buf, u32 len, u32 seed);
bool lt_expect_data(struct rdma_ktap_ctx *ctx, const u8 *buf, u32 len,
		    u32 seed, const char *what);
void lt_mr_free(struct lt_mr *m);
bool lt_mr_reg(struct rdma_ktap_ctx *ctx, struct lt_end *owner,
	       struct lt_mr *m, int access);
bool lt_send_recv(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		  struct lt_end *to, enum ib_wr_opcode op, u32 len, u32 seed,
		  struct ib_wc *rwc);
bool lt_qp_state_wait(struct lt_end *e, enum ib_qp_state state);
int lt_qp_events_wait(struct lt_end *e, int n);

/* The cases of rdma_rxe_guard.c */
void rc_forged_source(struct rdma_ktap_ctx *ctx);
void rc_write_mr_invalidated(struct rdma_ktap_ctx *ctx);
void rc_write_mr_reregistered(struct rdma_ktap_ctx *ctx);
void rc_dereg_open_write(struct rdma_ktap_ctx *ctx);
void rc_reg_mr_rules(struct rdma_ktap_ctx *ctx);
void rc_no_responder_resources(struct rdma_ktap_ctx *ctx);
void rc_read_long(struct rdma_ktap_ctx *ctx);
void ud_foreign_ah(struct rdma_ktap_ctx *ctx);
void mr_sg_gaps_advertised(struct rdma_ktap_ctx *ctx);

/* The cases of rdma_rxe_limits.c */
void limit_ah_count(struct rdma_ktap_ctx *ctx);
void limit_qp_wr(struct rdma_ktap_ctx *ctx);
void limit_srq_wr(struct rdma_ktap_ctx *ctx);
void limit_srq_sge(struct rdma_ktap_ctx *ctx);
void limit_rd_atomic(struct rdma_ktap_ctx *ctx);
void limit_res_rd_atom(struct rdma_ktap_ctx *ctx);
void limit_mcast(struct rdma_ktap_ctx *ctx);
void limit_mr_page_sizes(struct rdma_ktap_ctx *ctx);

/* The cases of rdma_rxe_qp_events.c */
void rc_atomic_write(struct rdma_ktap_ctx *ctx);
void rc_sqd_drains(struct rdma_ktap_ctx *ctx);
void rc_comm_est(struct rdma_ktap_ctx *ctx);

/* The cases of rdma_rxe_mad.c */
void gsi_qp_one(struct rdma_ktap_ctx *ctx);
void gsi_loopback(struct rdma_ktap_ctx *ctx);
void mad_agent_rules(struct rdma_ktap_ctx *ctx);
void mad_loopback_ipv4(struct rdma_ktap_ctx *ctx);
void mad_loopback_ipv6(struct rdma_ktap_ctx *ctx);
void mad_unclaimed(struct rdma_ktap_ctx *ctx);
void mad_forged_response(struct rdma_ktap_ctx *ctx);
void mad_cancel(struct rdma_ktap_ctx *ctx);
void mad_many(struct rdma_ktap_ctx *ctx);
void mad_malformed(struct rdma_ktap_ctx *ctx);
void pma_agent(struct rdma_ktap_ctx *ctx);

/* The cases of rdma_rxe_addr.c */
void addr_resolve_local(struct rdma_ktap_ctx *ctx);
void addr_resolve_by_gid_attr(struct rdma_ktap_ctx *ctx);
void addr_resolve_errors(struct rdma_ktap_ctx *ctx);
void addr_resolve_timeout(struct rdma_ktap_ctx *ctx);
void addr_resolve_cancel(struct rdma_ktap_ctx *ctx);

/* The cases of rdma_rxe_path.c */
void path_pack_unpack(struct rdma_ktap_ctx *ctx);
void path_ah_attr_roce(struct rdma_ktap_ctx *ctx);
void path_sa_client(struct rdma_ktap_ctx *ctx);

/* rdma_rxe_rw.c */
void rw_sge_list(struct rdma_ktap_ctx *ctx);
void rw_one_sge_per_wr(struct rdma_ktap_ctx *ctx);
void rw_single_and_chain(struct rdma_ktap_ctx *ctx);
void rw_sizes_and_pools(struct rdma_ktap_ctx *ctx);

/* rdma_rxe_cma.c */
void cma_rc_ipv4(struct rdma_ktap_ctx *ctx);
void cma_rc_ipv6(struct rdma_ktap_ctx *ctx);
void cma_refusals(struct rdma_ktap_ctx *ctx);
void cma_api_rules(struct rdma_ktap_ctx *ctx);
void cma_ud_sidr(struct rdma_ktap_ctx *ctx);
void cma_multicast(struct rdma_ktap_ctx *ctx);
void cma_addr_errors(struct rdma_ktap_ctx *ctx);
void cma_user_layouts(struct rdma_ktap_ctx *ctx);

/* rdma_rxe_cm.c */
void cm_connect_disconnect(struct rdma_ktap_ctx *ctx);
void cm_refusals(struct rdma_ktap_ctx *ctx);
void cm_mra_and_comm_est(struct rdma_ktap_ctx *ctx);
void cm_api_rules(struct rdma_ktap_ctx *ctx);
void cm_sidr(struct rdma_ktap_ctx *ctx);

#endif /* RDMA_RXE_LOOP_H */
