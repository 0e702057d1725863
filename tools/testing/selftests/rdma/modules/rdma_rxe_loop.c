// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP tests of a soft-RoCE device talking to itself: two QPs of the
 * device named by @ibdev exchange traffic through the device's own GIDs,
 * the packets going out and coming back in through the loopback netdev.
 * This proves, in one guest, what has no peer-based test: UD over the
 * IPv4-mapped and the IPv6 GID (network header, reply AH from the
 * completion, a datagram over the MTU), RC (multi-packet SEND, WRITE,
 * READ, ATOMICs across a PSN wrap, RNR retry, a remote access error), UC
 * (SEND, WRITE, and the refusal of READ and ATOMIC), the SRQ limit event
 * and Last WQE Reached, and the flush of a QP moved to the error state.
 * rdma_rxe_guard.c adds the cases where the device must refuse: packets
 * from a host that is not the QP's path, MRs invalidated, replaced or
 * deregistered under an RDMA WRITE, registration rules, READs without
 * responder resources, a long READ, an AH of another PD, capabilities;
 * rdma_rxe_limits.c the limits query_device() reports: reached, and one
 * past them refused.
 *
 * The module adds the addresses it uses to the device's netdev and
 * removes them again:
 *
 *   10.13.0.1/24, fd00:13::1/64     local addresses (their RoCE v2 GIDs)
 *   10.13.0.3/24                    a second address, the "other host"
 *
 * At the end it logs the traffic the cases completed ("traffic sends=S
 * recvs=R pkts=P forged=F"): the guest script checks the port counters
 * moved by at least that much.
 */
#include <linux/etherdevice.h>
#include <linux/gfp.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rdma_ah_kt.h"
#include "rdma_ktap.h"
#include "rdma_mock.h"
#include "rdma_rxe_loop.h"

static char *ibdev = "rxe0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RoCE device to test (default rxe0)");

/* A second address: packets from it come from a host other than the path */
#define LT_ADDR4_OTHER	htonl(0x0a0d0003)
const struct in6_addr lt_addr6 = {
	{ { 0xfd, 0, 0, 0x13, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 } } };

struct ib_device *lt_dev;
struct net_device *lt_ndev;
struct ib_pd *lt_pd;
int lt_idx4 = -1, lt_idx4_other = -1;
static int lt_idx6 = -1;
struct lt_traffic lt_traffic;
/* The port's active MTU: UD payload limit, RC/UC path MTU. */
enum ib_mtu lt_mtu_enum;
u32 lt_mtu;

/* ---- addresses and GIDs -------------------------------------------------- */

static void lt_own_gid(union ib_gid *gid, bool v6)
{
	if (v6)
		rdma_kt_gid_v6(gid, &lt_addr6);
	else
		rdma_kt_gid_v4(gid, LT_ADDR4);
}

/* The GID table index of @gid once the core has it, or -1. */
static int lt_gid_index_wait(const union ib_gid *gid)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);
	const struct ib_gid_attr *attr;
	int idx;

	for (;;) {
		attr = rdma_find_gid_by_port(lt_dev, gid,
					     IB_GID_TYPE_ROCE_UDP_ENCAP, 1,
					     NULL);
		if (!IS_ERR(attr)) {
			idx = attr->index;
			rdma_put_gid_attr(attr);
			return idx;
		}
		if (time_after(jiffies, end))
			return -1;
		usleep_range(10000, 20000);
	}
}

static void lt_net_cleanup(void)
{
	rdma_mock_addr4(lt_ndev, false, LT_ADDR4, 24);
	rdma_mock_addr4(lt_ndev, false, LT_ADDR4_OTHER, 24);
	rdma_mock_addr6(lt_ndev, false, &lt_addr6, 64);
}

static int lt_net_setup(void)
{
	union ib_gid gid;
	int ret;

	ret = rdma_mock_addr4(lt_ndev, true, LT_ADDR4, 24) ?:
	      rdma_mock_addr4(lt_ndev, true, LT_ADDR4_OTHER, 24) ?:
	      rdma_mock_addr6(lt_ndev, true, &lt_addr6, 64);
	if (ret)
		return ret;
	lt_own_gid(&gid, false);
	lt_idx4 = lt_gid_index_wait(&gid);
	lt_own_gid(&gid, true);
	lt_idx6 = lt_gid_index_wait(&gid);
	rdma_kt_gid_v4(&gid, LT_ADDR4_OTHER);
	lt_idx4_other = lt_gid_index_wait(&gid);
	return lt_idx4 < 0 || lt_idx6 < 0 || lt_idx4_other < 0 ? -ENODATA : 0;
}

/**
 * lt_path_attr() - an address vector to our own first address
 * @ctx: the case, for failures
 * @attr: filled in
 * @sgid_idx: the source GID: the index of any GID of the port
 *
 * The destination is the IPv4 or IPv6 address of the module (the family
 * of the source GID).  Its MAC is resolved as for any destination: a
 * local address must resolve to the netdev's own MAC.
 *
 * Return: true, or false with the failure recorded.
 */
bool lt_path_attr(struct rdma_ktap_ctx *ctx, struct rdma_ah_attr *attr,
		  int sgid_idx)
{
	const struct ib_gid_attr *sgid;
	union ib_gid gid;
	int hops = 0, ret;
	bool v6;

	sgid = rdma_get_gid_attr(lt_dev, 1, sgid_idx);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(sgid), "GID %d: %ld", sgid_idx,
			    PTR_ERR(sgid)))
		return false;
	v6 = !ipv6_addr_v4mapped((const struct in6_addr *)sgid->gid.raw);
	lt_own_gid(&gid, v6);
	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(lt_dev, 1);
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &gid, v6 ? LT_FLOW6 : 0, sgid_idx, LT_HOPS, 0);
	ret = rdma_addr_find_l2_eth_by_grh(&sgid->gid, &gid, attr->roce.dmac,
					   sgid, &hops);
	rdma_put_gid_attr(sgid);
	if (!RDMA_KT_EXPECT(ctx, !ret, "resolving our own GID %pI6: %d",
			    gid.raw, ret))
		return false;
	return RDMA_KT_EXPECT(ctx, ether_addr_equal(attr->roce.dmac,
						    lt_ndev->dev_addr),
			      "our own GID resolved to %pM, not to %pM",
			      attr->roce.dmac, lt_ndev->dev_addr);
}

/* An address vector to one of our own GIDs, from the same GID. */
bool lt_own_attr(struct rdma_ktap_ctx *ctx, struct rdma_ah_attr *attr,
		 bool v6)
{
	return lt_path_attr(ctx, attr, v6 ? lt_idx6 : lt_idx4);
}

/*
 * An AH of @pd to this host's own IPv4 or IPv6 GID (lt_own_attr), made
 * where it may sleep; NULL, and a failed check, when it cannot be had.
 */
struct ib_ah *lt_own_ah(struct rdma_ktap_ctx *ctx, struct ib_pd *pd, bool v6)
{
	struct rdma_ah_attr attr;
	struct ib_ah *ah;

	if (!lt_own_attr(ctx, &attr, v6))
		return NULL;
	ah = rdma_create_ah(pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "rdma_create_ah: %ld",
			    PTR_ERR(ah)))
		return NULL;
	return ah;
}

/* ---- QPs, buffers, completions -------------------------------------------- */

static void lt_qp_event(struct ib_event *ev, void *context)
{
	struct lt_end *e = context;

	WRITE_ONCE(e->last_event, ev->event);
	atomic_inc(&e->events);
}

void lt_end_destroy(struct lt_end *e)
{
	if (e->qp)
		ib_destroy_qp(e->qp);
	if (e->scq)
		ib_free_cq(e->scq);
	if (e->rcq)
		ib_free_cq(e->rcq);
	if (e->tx) {
		ib_dma_unmap_single(lt_dev, e->tx_dma, LT_BUF, DMA_TO_DEVICE);
		kfree(e->tx);
	}
	if (e->rx) {
		ib_dma_unmap_single(lt_dev, e->rx_dma, LT_BUF,
				    DMA_BIDIRECTIONAL);
		kfree(e->rx);
	}
	memset(e, 0, sizeof(*e));
}

int lt_end_create(struct lt_end *e, enum ib_qp_type type,
		  struct ib_srq *srq)
{
	return lt_end_create_depth(e, type, srq, LT_DEPTH);
}

/* lt_end_create() with queues @depth deep and CQs of twice that */
int lt_end_prepare(struct lt_end *e, enum ib_qp_type type,
		   struct ib_srq *srq, u32 depth, struct ib_qp_init_attr *init)
{
	int ret;

	*init = (struct ib_qp_init_attr) {
		.event_handler = lt_qp_event,
		.qp_context = e,
		.qp_type = type,
		/* a GSI QP is the QP 1 of a port, named at creation */
		.port_num = type == IB_QPT_GSI ? 1 : 0,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.srq = srq,
		.cap = {
			.max_send_wr = depth,
			.max_recv_wr = srq ? 0 : depth,
			.max_send_sge = 1,
			.max_recv_sge = srq ? 0 : 1,
		},
	};
	memset(e, 0, sizeof(*e));
	atomic_set(&e->events, 0);
	e->tx = kzalloc(LT_BUF, GFP_KERNEL);
	e->rx = kzalloc(LT_BUF, GFP_KERNEL);
	if (!e->tx || !e->rx) {
		kfree(e->tx);
		kfree(e->rx);
		e->tx = NULL;
		e->rx = NULL;
		return -ENOMEM;
	}
	/*
	 * rxe addresses kernel memory directly (virtual DMA): the mappings
	 * give back the buffers' addresses and need no syncs.
	 */
	e->tx_dma = ib_dma_map_single(lt_dev, e->tx, LT_BUF, DMA_TO_DEVICE);
	e->rx_dma = ib_dma_map_single(lt_dev, e->rx, LT_BUF,
				      DMA_BIDIRECTIONAL);
	e->scq = ib_alloc_cq(lt_dev, e, 2 * depth, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->scq)) {
		ret = PTR_ERR(e->scq);
		e->scq = NULL;
		goto err;
	}
	e->rcq = ib_alloc_cq(lt_dev, e, 2 * depth, 0, IB_POLL_DIRECT);
	if (IS_ERR(e->rcq)) {
		ret = PTR_ERR(e->rcq);
		e->rcq = NULL;
		goto err;
	}
	init->send_cq = e->scq;
	init->recv_cq = e->rcq;
	return 0;
err:
	lt_end_destroy(e);
	return ret;
}

int lt_end_create_depth(struct lt_end *e, enum ib_qp_type type,
			struct ib_srq *srq, u32 depth)
{
	struct ib_qp_init_attr init;
	int ret;

	ret = lt_end_prepare(e, type, srq, depth, &init);
	if (ret)
		return ret;
	e->qp = ib_create_qp(lt_pd, &init);
	if (IS_ERR(e->qp)) {
		ret = PTR_ERR(e->qp);
		e->qp = NULL;
		lt_end_destroy(e);
		return ret;
	}
	return 0;
}

u32 lt_qpn(const struct lt_end *e)
{
	return e->qp->qp_num;
}

int lt_ud_ready(struct lt_end *e)
{
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = LT_QKEY,
	};
	int ret;

	ret = ib_modify_qp(e->qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_QKEY);
	if (ret)
		return ret;
	qa.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(e->qp, &qa, IB_QP_STATE);
	if (ret)
		return ret;
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = 0x31;
	return ib_modify_qp(e->qp, &qa, IB_QP_STATE | IB_QP_SQ_PSN);
}

int lt_to_init(struct lt_end *e, int access)
{
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = access,
	};

	return ib_modify_qp(e->qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

/**
 * lt_to_rts_opts() - RTR and RTS of an RC or UC QP whose peer is on this device
 * @ctx: the case, for failures
 * @e: the QP, in INIT
 * @dqpn: the peer QP
 * @rq_psn: the first PSN it expects
 * @sq_psn: the first PSN it sends
 * @o: the path's source GID and the RC attributes
 *
 * Return: 0 or the error of ib_modify_qp().
 */
int lt_to_rts_opts(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 dqpn,
		   u32 rq_psn, u32 sq_psn, const struct lt_rc_opts *o)
{
	bool rc = e->qp->qp_type == IB_QPT_RC;
	struct ib_qp_attr qa = {};
	int mask, ret;

	if (!lt_path_attr(ctx, &qa.ah_attr, o->sgid_idx))
		return -EHOSTUNREACH;
	qa.qp_state = IB_QPS_RTR;
	qa.path_mtu = lt_mtu_enum;
	qa.dest_qp_num = dqpn;
	qa.rq_psn = rq_psn;
	mask = IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU | IB_QP_DEST_QPN |
	       IB_QP_RQ_PSN;
	if (rc) {
		qa.max_dest_rd_atomic = o->max_dest_rd_atomic;
		qa.min_rnr_timer = o->min_rnr_timer;
		mask |= IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER;
	}
	ret = ib_modify_qp(e->qp, &qa, mask);
	if (ret)
		return ret;

	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = sq_psn;
	mask = IB_QP_STATE | IB_QP_SQ_PSN;
	if (rc) {
		qa.timeout = o->timeout;
		qa.retry_cnt = o->retry_cnt;
		qa.rnr_retry = 7;
		qa.max_rd_atomic = o->max_rd_atomic ?: 4;
		mask |= IB_QP_TIMEOUT | IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			IB_QP_MAX_QP_RD_ATOMIC;
	}
	return ib_modify_qp(e->qp, &qa, mask);
}

/*
 * RTR and RTS of an RC or UC QP whose peer is QP @dqpn of this device,
 * reached through our own IPv4 GID.  @timeout 0 means no local ACK
 * timeout (RC).
 */
int lt_to_rts(struct rdma_ktap_ctx *ctx, struct lt_end *e, u32 dqpn,
	      u32 rq_psn, u32 sq_psn, u8 timeout)
{
	struct lt_rc_opts o = {
		.sgid_idx = lt_idx4,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.timeout = timeout,
		.retry_cnt = 7,
	};

	return lt_to_rts_opts(ctx, e, dqpn, rq_psn, sq_psn, &o);
}

/* Two RC or UC QPs connected to each other. */
bool lt_pair(struct rdma_ktap_ctx *ctx, struct lt_end *a,
	     struct lt_end *b, enum ib_qp_type type, int access,
	     u32 a_psn, u32 b_psn)
{
	return RDMA_KT_EQ(ctx, lt_end_create(a, type, NULL), 0) &&
	       RDMA_KT_EQ(ctx, lt_end_create(b, type, NULL), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_init(a, access), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_init(b, access), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_rts(ctx, a, lt_qpn(b), b_psn, a_psn, 14),
			  0) &&
	       RDMA_KT_EQ(ctx, lt_to_rts(ctx, b, lt_qpn(a), a_psn, b_psn, 14),
			  0);
}

/* Poll one completion of @cq; false if none came in LT_WAIT_MS. */
bool lt_poll(struct ib_cq *cq, struct ib_wc *wc)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);
	int n;

	for (;;) {
		n = ib_poll_cq(cq, 1, wc);
		if (n == 1)
			return true;
		if (n < 0 || time_after(jiffies, end))
			return false;
		usleep_range(100, 300);
	}
}

/*
 * The next completion of @cq must be @wr_id with @status and, when it
 * succeeded, @opcode.  It is copied to @out if not NULL.
 */
bool lt_expect_wc(struct rdma_ktap_ctx *ctx, struct ib_cq *cq,
		  const char *what, u64 wr_id, enum ib_wc_status status,
		  enum ib_wc_opcode opcode, struct ib_wc *out)
{
	struct ib_wc wc;

	if (!RDMA_KT_EXPECT(ctx, lt_poll(cq, &wc), "%s: no completion", what))
		return false;
	if (out)
		*out = wc;
	if (!RDMA_KT_EXPECT(ctx, wc.wr_id == wr_id && wc.status == status,
			    "%s: wr_id %llu status %s, expected %llu %s", what,
			    wc.wr_id, ib_wc_status_msg(wc.status), wr_id,
			    ib_wc_status_msg(status)))
		return false;
	if (status != IB_WC_SUCCESS)
		return true;
	return RDMA_KT_EXPECT(ctx, wc.opcode == opcode,
			      "%s: opcode %d, expected %d", what, wc.opcode,
			      opcode);
}

/* No completion shows up on @cq for a while. */
bool lt_expect_quiet(struct rdma_ktap_ctx *ctx, struct ib_cq *cq,
		     const char *what)
{
	struct ib_wc wc;

	msleep(LT_QUIET_MS);
	if (ib_poll_cq(cq, 1, &wc) != 1)
		return true;
	return RDMA_KT_EXPECT(ctx, false,
			      "%s: unexpected completion wr_id %llu status %s opcode %d",
			      what, wc.wr_id, ib_wc_status_msg(wc.status),
			      wc.opcode);
}

int lt_post_recv(struct ib_qp *qp, struct ib_srq *srq, u64 wr_id,
		 u64 addr, u32 len)
{
	struct ib_sge sge = {
		.addr = addr,
		.length = len,
		.lkey = lt_pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
	};

	if (srq)
		return ib_post_srq_recv(srq, &wr, NULL);
	return ib_post_recv(qp, &wr, NULL);
}

/* Post @w on @qp; *@bad_first tells whether bad_wr pointed at it. */
int lt_post_send(struct ib_qp *qp, const struct lt_wr *w,
		 bool *bad_first)
{
	union {
		struct ib_send_wr	wr;
		struct ib_ud_wr		ud;
		struct ib_rdma_wr	rdma;
		struct ib_atomic_wr	atomic;
	} u = {};
	struct ib_sge sge = {
		.addr = w->laddr,
		.length = w->len,
		.lkey = lt_pd->local_dma_lkey,
	};
	const struct ib_send_wr *bad = NULL;
	int ret;

	u.wr.wr_id = w->wr_id;
	u.wr.opcode = w->op;
	u.wr.send_flags = w->signaled ? IB_SEND_SIGNALED : 0;
	u.wr.sg_list = &sge;
	u.wr.num_sge = w->len ? 1 : 0;
	u.wr.ex.imm_data = w->imm;
	switch (w->op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->qp_type == IB_QPT_UD || qp->qp_type == IB_QPT_GSI) {
			u.ud.ah = w->ah;
			u.ud.remote_qpn = w->rqpn;
			u.ud.remote_qkey = w->qkey ?: LT_QKEY;
		}
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_WRITE:
		u.rdma.remote_addr = w->raddr;
		u.rdma.rkey = w->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		u.atomic.remote_addr = w->raddr;
		u.atomic.rkey = w->rkey;
		u.atomic.compare_add = w->compare_add;
		u.atomic.swap = w->swap;
		break;
	default:
		break;
	}
	ret = ib_post_send(qp, &u.wr, &bad);
	if (bad_first)
		*bad_first = bad == &u.wr;
	return ret;
}

/* Packets a message of @len bytes takes at the path MTU. */
u32 lt_npkts(u32 len)
{
	return max_t(u32, 1, DIV_ROUND_UP(len, lt_mtu));
}

/* ---- data patterns -------------------------------------------------------- */

static u8 lt_byte(u32 seed, u32 i)
{
	return (u8)(seed * 31 + i * 7 + (i >> 8) + 1);
}

void lt_fill(u8 *buf, u32 len, u32 seed)
{
	u32 i;

	for (i = 0; i < len; i++)
		buf[i] = lt_byte(seed, i);
}

/* @buf must hold the pattern of @seed over @len bytes. */
bool lt_expect_data(struct rdma_ktap_ctx *ctx, const u8 *buf, u32 len,
		    u32 seed, const char *what)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (buf[i] != lt_byte(seed, i))
			break;
	return RDMA_KT_EXPECT(ctx, i == len,
			      "%s: byte %u of %u is %#x, expected %#x", what,
			      i, len, i < len ? buf[i] : 0,
			      i < len ? lt_byte(seed, i) : 0);
}

/* ---- the remote MR -------------------------------------------------------- */

void lt_mr_free(struct lt_mr *m)
{
	if (m->mr)
		ib_dereg_mr(m->mr);
	if (m->mapped)
		ib_dma_unmap_sg(lt_dev, &m->sg, 1, DMA_BIDIRECTIONAL);
	if (m->va)
		free_pages((unsigned long)m->va, LT_MR_ORDER);
	memset(m, 0, sizeof(*m));
}

/*
 * Allocate and map an MR, then register it with @access through an
 * IB_WR_REG_MR posted on @owner's QP (which must be ready to send).
 */
bool lt_mr_reg(struct rdma_ktap_ctx *ctx, struct lt_end *owner,
	       struct lt_mr *m, int access)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 0x4e6,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = access,
	};
	int n;

	memset(m, 0, sizeof(*m));
	m->va = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, LT_MR_ORDER);
	if (!RDMA_KT_EXPECT(ctx, m->va, "no memory for the MR"))
		return false;
	sg_init_one(&m->sg, m->va, LT_MR_BYTES);
	if (!RDMA_KT_EQ(ctx, ib_dma_map_sg(lt_dev, &m->sg, 1,
					   DMA_BIDIRECTIONAL), 1))
		return false;
	m->mapped = true;
	m->mr = ib_alloc_mr(lt_pd, IB_MR_TYPE_MEM_REG, LT_MR_PAGES);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(m->mr), "ib_alloc_mr: %ld",
			    PTR_ERR(m->mr))) {
		m->mr = NULL;
		return false;
	}
	n = ib_map_mr_sg(m->mr, &m->sg, 1, NULL, PAGE_SIZE);
	if (!RDMA_KT_EQ(ctx, n, 1) ||
	    !RDMA_KT_EQ(ctx, m->mr->length, LT_MR_BYTES))
		return false;
	ib_update_fast_reg_key(m->mr, ib_inc_rkey(m->mr->rkey) & 0xff);
	reg.mr = m->mr;
	reg.key = m->mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(owner->qp, &reg.wr, NULL), 0))
		return false;
	return lt_expect_wc(ctx, owner->scq, "REG_MR", 0x4e6, IB_WC_SUCCESS,
			    IB_WC_REG_MR, NULL);
}

/* ---- one message each way ------------------------------------------------- */

/*
 * @from sends @len bytes with @op (SEND or SEND_WITH_IMM) to @to, which
 * receives them into its rx buffer; both completions and the data are
 * checked.  The receive completion is copied to @rwc.
 */
bool lt_send_recv(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		  struct lt_end *to, enum ib_wr_opcode op, u32 len,
		  u32 seed, struct ib_wc *rwc)
{
	bool imm = op == IB_WR_SEND_WITH_IMM;
	struct lt_wr w = {
		.op = op,
		.wr_id = 0x5e0d + seed,
		.signaled = true,
		.laddr = from->tx_dma,
		.len = len,
		.imm = cpu_to_be32(0xfeed0000 + seed),
	};
	struct ib_wc wc;
	char what[48];

	snprintf(what, sizeof(what), "%s of %u bytes",
		 imm ? "SEND_WITH_IMM" : "SEND", len);
	memset(to->rx, 0xa5, LT_BUF);
	lt_fill(from->tx, len, seed);
	if (!RDMA_KT_EQ(ctx, lt_post_recv(to->qp, NULL, 0x7ec + seed,
					  to->rx_dma, LT_BUF), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0))
		return false;
	if (!lt_expect_wc(ctx, from->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, to->rcq, what, 0x7ec + seed, IB_WC_SUCCESS,
			  IB_WC_RECV, &wc))
		return false;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts += lt_npkts(len);
	*rwc = wc;
	RDMA_KT_EXPECT(ctx, wc.qp == to->qp, "%s: completion of another QP",
		       what);
	RDMA_KT_EXPECT(ctx, !!(wc.wc_flags & IB_WC_WITH_IMM) == imm,
		       "%s: wc_flags %#x", what, wc.wc_flags);
	if (imm)
		RDMA_KT_EQ(ctx, be32_to_cpu(wc.ex.imm_data), 0xfeed0000 + seed);
	return RDMA_KT_EQ(ctx, wc.byte_len, len) &&
	       lt_expect_data(ctx, to->rx, len, seed, what) &&
	       RDMA_KT_EQ(ctx, to->rx[len], 0xa5);
}

/* ---- UD -------------------------------------------------------------------- */

/* The network header in front of a UD payload: our address to itself. */
static void lt_expect_net_hdr(struct rdma_ktap_ctx *ctx, const u8 *area,
			      bool v6)
{
	if (v6) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)area;
		u32 vtf = be32_to_cpu(*(const __be32 *)area);

		RDMA_KT_EXPECT(ctx, ip6->version == 6 &&
			       ip6->nexthdr == IPPROTO_UDP &&
			       ip6->hop_limit == LT_HOPS,
			       "IPv6 header: version %u next %u hops %u",
			       ip6->version, ip6->nexthdr, ip6->hop_limit);
		RDMA_KT_EQ(ctx, vtf & IB_GRH_FLOWLABEL_MASK, LT_FLOW6);
		RDMA_KT_EXPECT(ctx, ipv6_addr_equal(&ip6->saddr, &lt_addr6) &&
			       ipv6_addr_equal(&ip6->daddr, &lt_addr6),
			       "IPv6 header: %pI6 -> %pI6", &ip6->saddr,
			       &ip6->daddr);
	} else {
		const struct iphdr *ip = (const struct iphdr *)(area + 20);

		RDMA_KT_EXPECT(ctx, !memchr_inv(area, 0, 20),
			       "IPv4: the first 20 bytes are not zero");
		RDMA_KT_EXPECT(ctx, ip->version == 4 && ip->ihl == 5 &&
			       ip->protocol == IPPROTO_UDP &&
			       ip->ttl == LT_HOPS,
			       "IPv4 header: version %u ihl %u proto %u ttl %u",
			       ip->version, ip->ihl, ip->protocol, ip->ttl);
		RDMA_KT_EXPECT(ctx, ip->saddr == LT_ADDR4 &&
			       ip->daddr == LT_ADDR4,
			       "IPv4 header: %pI4 -> %pI4", &ip->saddr,
			       &ip->daddr);
	}
}

/* The receive lt_ud_one() expects for @seed. */
static int lt_ud_post_recv(struct lt_end *to, u32 seed)
{
	return lt_post_recv(to->qp, NULL, 0x1d0 + seed, to->rx_dma,
			    LT_GRH + lt_mtu);
}

/*
 * One UD datagram from @from to @to through @ah, and its checks.  The
 * receive is posted here unless @posted says the caller did it.
 */
static bool lt_ud_one(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		      struct lt_end *to, struct ib_ah *ah,
		      enum ib_wr_opcode op, u32 len, u32 seed, bool v6,
		      bool posted, struct ib_wc *rwc)
{
	bool imm = op == IB_WR_SEND_WITH_IMM;
	struct lt_wr w = {
		.op = op,
		.wr_id = 0xd0 + seed,
		.signaled = true,
		.laddr = from->tx_dma,
		.len = len,
		.imm = cpu_to_be32(0xabc00000 + seed),
		.ah = ah,
		.rqpn = lt_qpn(to),
	};
	struct ib_wc wc;
	char what[40];

	snprintf(what, sizeof(what), "UD %s of %u bytes",
		 imm ? "SEND_WITH_IMM" : "SEND", len);
	memset(to->rx, 0xa5, LT_BUF);
	lt_fill(from->tx, len, seed);
	if ((!posted && !RDMA_KT_EQ(ctx, lt_ud_post_recv(to, seed), 0)) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0))
		return false;
	if (!lt_expect_wc(ctx, from->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, to->rcq, what, 0x1d0 + seed, IB_WC_SUCCESS,
			  IB_WC_RECV, &wc))
		return false;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts++;
	*rwc = wc;
	RDMA_KT_EXPECT(ctx, wc.qp == to->qp, "%s: completion of another QP",
		       what);
	RDMA_KT_EQ(ctx, wc.byte_len, LT_GRH + len);
	RDMA_KT_EQ(ctx, wc.src_qp, lt_qpn(from));
	RDMA_KT_EXPECT(ctx, (wc.wc_flags & IB_WC_GRH) &&
		       (wc.wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE),
		       "%s: wc_flags %#x lack GRH or NETWORK_HDR_TYPE", what,
		       wc.wc_flags);
	RDMA_KT_EQ(ctx, wc.network_hdr_type,
		   v6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4);
	RDMA_KT_EXPECT(ctx, !!(wc.wc_flags & IB_WC_WITH_IMM) == imm,
		       "%s: wc_flags %#x", what, wc.wc_flags);
	if (imm)
		RDMA_KT_EQ(ctx, be32_to_cpu(wc.ex.imm_data), 0xabc00000 + seed);
	lt_expect_net_hdr(ctx, to->rx, v6);
	return lt_expect_data(ctx, to->rx + LT_GRH, len, seed, what) &&
	       RDMA_KT_EQ(ctx, to->rx[LT_GRH + len], 0xa5);
}

static void ud_loopback(struct rdma_ktap_ctx *ctx, bool v6)
{
	int idx = v6 ? lt_idx6 : lt_idx4;
	struct lt_wr over = {
		.op = IB_WR_SEND,
		.wr_id = 0x0ae,
		.signaled = true,
	};
	struct ib_ah *ah = NULL, *reply = NULL;
	struct rdma_ah_attr q;
	struct lt_end a, b;
	union ib_gid gid;
	struct ib_wc wc;
	u32 sizes[] = { 0, 1, lt_mtu };
	unsigned int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&a), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&b), 0))
		goto out;
	ah = lt_own_ah(ctx, lt_pd, v6);
	if (!ah)
		goto out;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		if (!lt_ud_one(ctx, &a, &b, ah, IB_WR_SEND, sizes[i], i, v6,
			       false, &wc))
			goto out;

	/*
	 * Larger than the port MTU (IBTA C10-93.1.1): accepted, completed
	 * without an error, and nothing goes out: the receive B has posted
	 * stays for the next datagram.
	 */
	over.ah = ah;
	over.rqpn = lt_qpn(&b);
	over.laddr = a.tx_dma;
	over.len = lt_mtu + 1;
	if (!RDMA_KT_EQ(ctx, lt_ud_post_recv(&b, 7), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(a.qp, &over, NULL), 0) ||
	    !lt_expect_wc(ctx, a.scq, "UD SEND over the MTU", over.wr_id,
			  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
	    !lt_expect_quiet(ctx, b.rcq, "B after a SEND over the MTU"))
		goto out;
	if (!lt_ud_one(ctx, &a, &b, ah, IB_WR_SEND_WITH_IMM, 33, 7, v6, true,
		       &wc))
		goto out;

	/* B answers A through an AH made from what it received. */
	reply = ib_create_ah_from_wc(lt_pd, &wc, (struct ib_grh *)b.rx, 1);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(reply), "ib_create_ah_from_wc: %ld",
			    PTR_ERR(reply))) {
		reply = NULL;
		goto out;
	}
	lt_own_gid(&gid, v6);
	if (RDMA_KT_EQ(ctx, rdma_query_ah(reply, &q), 0)) {
		RDMA_KT_EXPECT(ctx, !memcmp(q.grh.dgid.raw, gid.raw, 16),
			       "reply AH to %pI6, expected %pI6", q.grh.dgid.raw,
			       gid.raw);
		RDMA_KT_EQ(ctx, q.grh.sgid_index, idx);
		RDMA_KT_EXPECT(ctx, ether_addr_equal(q.roce.dmac,
						     lt_ndev->dev_addr),
			       "reply AH dmac %pM", q.roce.dmac);
		if (v6)
			RDMA_KT_EQ(ctx, q.grh.flow_label, LT_FLOW6);
	}
	lt_ud_one(ctx, &b, &a, reply, IB_WR_SEND, lt_mtu / 2, 9, v6, false,
		  &wc);
out:
	if (reply)
		rdma_destroy_ah(reply, RDMA_DESTROY_AH_SLEEPABLE);
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

static void ud_loopback_ipv4(struct rdma_ktap_ctx *ctx)
{
	ud_loopback(ctx, false);
}

static void ud_loopback_ipv6(struct rdma_ktap_ctx *ctx)
{
	ud_loopback(ctx, true);
}

/* ---- RC ------------------------------------------------------------------- */

/* The PSN the send side of A starts at: the first messages wrap it. */
#define LT_RC_PSN_A	0xfffffd
#define LT_RC_PSN_B	0x000200

/*
 * An RDMA WRITE (or WRITE_WITH_IMM) of @len bytes from @from's tx buffer
 * to offset @off of @m; WRITE_WITH_IMM also consumes a receive of @to.
 * The data is checked once the responder is known to be done: RC's
 * completion comes after the ACK, WRITE_WITH_IMM has the receive
 * completion; a plain UC WRITE is left to the caller.
 */
static bool lt_write(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		     struct lt_end *to, struct lt_mr *m, bool imm, u32 off,
		     u32 len, u32 seed)
{
	struct lt_wr w = {
		.op = imm ? IB_WR_RDMA_WRITE_WITH_IMM : IB_WR_RDMA_WRITE,
		.wr_id = 0x3e0 + seed,
		.signaled = true,
		.laddr = from->tx_dma,
		.len = len,
		.imm = cpu_to_be32(0x1234 + seed),
		.raddr = m->mr->iova + off,
		.rkey = m->mr->rkey,
	};
	const char *what = imm ? "WRITE_WITH_IMM" : "WRITE";
	struct ib_wc wc;

	lt_fill(from->tx, len, seed);
	if (imm && !RDMA_KT_EQ(ctx, lt_post_recv(to->qp, NULL, 0x3ec,
						 to->rx_dma, LT_BUF), 0))
		return false;
	if (!RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, from->scq, what, w.wr_id, IB_WC_SUCCESS,
			  IB_WC_RDMA_WRITE, NULL))
		return false;
	lt_traffic.pkts += lt_npkts(len);
	if (imm) {
		if (!lt_expect_wc(ctx, to->rcq, what, 0x3ec, IB_WC_SUCCESS,
				  IB_WC_RECV_RDMA_WITH_IMM, &wc))
			return false;
		lt_traffic.recvs++;
		RDMA_KT_EQ(ctx, wc.byte_len, len);
		RDMA_KT_EXPECT(ctx, wc.wc_flags & IB_WC_WITH_IMM,
			       "%s: no IB_WC_WITH_IMM", what);
		RDMA_KT_EQ(ctx, be32_to_cpu(wc.ex.imm_data), 0x1234 + seed);
	} else if (from->qp->qp_type != IB_QPT_RC) {
		return true;
	}
	return lt_expect_data(ctx, m->va + off, len, seed, what);
}

/* An atomic on the word at @off of @m; the old value lands in @from's rx. */
static bool lt_atomic(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		      struct lt_mr *m, enum ib_wr_opcode op, u32 off,
		      u64 compare_add, u64 swap, u64 want_old, u64 want_new)
{
	struct lt_wr w = {
		.op = op,
		.wr_id = 0xa70 + op,
		.signaled = true,
		.laddr = from->rx_dma,
		.len = sizeof(u64),
		.raddr = m->mr->iova + off,
		.rkey = m->mr->rkey,
		.compare_add = compare_add,
		.swap = swap,
	};
	bool cas = op == IB_WR_ATOMIC_CMP_AND_SWP;
	u64 *old = (u64 *)from->rx, *word = (u64 *)(m->va + off);

	*old = 0x5555555555555555ULL;
	if (!RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, from->scq, cas ? "CMP_AND_SWP" : "FETCH_AND_ADD",
			  w.wr_id, IB_WC_SUCCESS,
			  cas ? IB_WC_COMP_SWAP : IB_WC_FETCH_ADD, NULL))
		return false;
	lt_traffic.pkts += 2;
	return RDMA_KT_EXPECT(ctx, *old == want_old && READ_ONCE(*word) == want_new,
			      "%s: returned %#llx, word %#llx; expected %#llx, %#llx",
			      cas ? "CMP_AND_SWP" : "FETCH_AND_ADD", *old,
			      READ_ONCE(*word), want_old, want_new);
}

static void rc_loopback(struct rdma_ktap_ctx *ctx)
{
	u32 len_send = 3 * lt_mtu + 5, len_write = 2 * lt_mtu + 7;
	u32 len_wimm = lt_mtu + 3, len_read = 3 * lt_mtu + 9, psns;
	const u32 off_write = 100, off_wimm = 5000, off_read = 8192;
	const u32 off_atomic = 0x3000;
	const u64 v0 = 0x1122334455667788ULL, add = 0x1000;
	const u64 swapped = 0xdeadbeefcafef00dULL;
	struct lt_wr rd = {
		.op = IB_WR_RDMA_READ,
		.wr_id = 0x4ead,
		.signaled = true,
		.len = len_read,
	};
	struct lt_wr rnr = {
		.op = IB_WR_SEND,
		.wr_id = 0x4e4,
		.signaled = true,
		.len = 200,
	};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa;
	struct lt_end a, b;
	struct lt_mr m = {};
	struct ib_wc wc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, LT_RC_PSN_A,
		     LT_RC_PSN_B) ||
	    !lt_mr_reg(ctx, &b, &m, LT_ACCESS_ALL))
		goto out;

	if (!lt_send_recv(ctx, &a, &b, IB_WR_SEND, len_send, 1, &wc) ||
	    !lt_send_recv(ctx, &a, &b, IB_WR_SEND_WITH_IMM, 100, 2, &wc))
		goto out;

	/* No receive yet: B answers RNR NAKs, A retries until there is one. */
	lt_fill(a.tx, 200, 6);
	rnr.laddr = a.tx_dma;
	if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &rnr, NULL), 0) ||
	    !lt_expect_quiet(ctx, a.scq, "SEND waiting for a receive") ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0x4e5, b.rx_dma, LT_BUF),
			0) ||
	    !lt_expect_wc(ctx, a.scq, "SEND after RNR", rnr.wr_id,
			  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "receive after RNR", 0x4e5,
			  IB_WC_SUCCESS, IB_WC_RECV, &wc) ||
	    !RDMA_KT_EQ(ctx, wc.byte_len, 200) ||
	    !lt_expect_data(ctx, b.rx, 200, 6, "SEND after RNR"))
		goto out;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts++;

	if (!lt_write(ctx, &a, &b, &m, false, off_write, len_write, 3))
		goto out;
	/* Neither neighbour of the written range was touched. */
	RDMA_KT_EQ(ctx, m.va[off_write - 1], 0);
	RDMA_KT_EQ(ctx, m.va[off_write + len_write], 0);
	if (!lt_write(ctx, &a, &b, &m, true, off_wimm, len_wimm, 4))
		goto out;

	/* A multi-packet READ of what B holds. */
	lt_fill(m.va + off_read, len_read, 5);
	memset(a.rx, 0xa5, LT_BUF);
	rd.laddr = a.rx_dma;
	rd.raddr = m.mr->iova + off_read;
	rd.rkey = m.mr->rkey;
	if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &rd, NULL), 0) ||
	    !lt_expect_wc(ctx, a.scq, "READ", rd.wr_id, IB_WC_SUCCESS,
			  IB_WC_RDMA_READ, &wc))
		goto out;
	lt_traffic.pkts += 1 + lt_npkts(len_read);
	RDMA_KT_EQ(ctx, wc.byte_len, len_read);
	lt_expect_data(ctx, a.rx, len_read, 5, "READ");
	RDMA_KT_EQ(ctx, a.rx[len_read], 0xa5);

	*(u64 *)(m.va + off_atomic) = v0;
	if (!lt_atomic(ctx, &a, &m, IB_WR_ATOMIC_FETCH_AND_ADD, off_atomic,
		       add, 0, v0, v0 + add) ||
	    !lt_atomic(ctx, &a, &m, IB_WR_ATOMIC_CMP_AND_SWP, off_atomic,
		       v0 + add, swapped, v0 + add, swapped) ||
	    !lt_atomic(ctx, &a, &m, IB_WR_ATOMIC_CMP_AND_SWP, off_atomic,
		       5, 6, swapped, swapped))
		goto out;

	/* Nothing else completed, and both sides count the same PSNs. */
	lt_expect_quiet(ctx, a.scq, "A send CQ");
	lt_expect_quiet(ctx, a.rcq, "A recv CQ");
	lt_expect_quiet(ctx, b.scq, "B send CQ");
	lt_expect_quiet(ctx, b.rcq, "B recv CQ");
	psns = lt_npkts(len_send) + 2 + lt_npkts(len_write) +
	       lt_npkts(len_wimm) + lt_npkts(len_read) + 3;
	if (RDMA_KT_EQ(ctx, ib_query_qp(a.qp, &qa, IB_QP_STATE | IB_QP_SQ_PSN |
					IB_QP_AV, &init), 0)) {
		RDMA_KT_EQ(ctx, qa.qp_state, IB_QPS_RTS);
		RDMA_KT_EQ(ctx, qa.sq_psn, (LT_RC_PSN_A + psns) & 0xffffff);
		/* The path comes back by value, without a GID reference. */
		RDMA_KT_EXPECT(ctx, !qa.ah_attr.grh.sgid_attr,
			       "query_qp returned a GID reference");
	}
	if (RDMA_KT_EQ(ctx, ib_query_qp(b.qp, &qa, IB_QP_STATE | IB_QP_RQ_PSN,
					&init), 0)) {
		RDMA_KT_EQ(ctx, qa.qp_state, IB_QPS_RTS);
		RDMA_KT_EQ(ctx, qa.rq_psn, (LT_RC_PSN_A + psns) & 0xffffff);
	}
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* Wait until @e's QP reports @state (or the timeout). */
bool lt_qp_state_wait(struct lt_end *e, enum ib_qp_state state)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa;

	for (;;) {
		if (!ib_query_qp(e->qp, &qa, IB_QP_STATE, &init) &&
		    qa.qp_state == state)
			return true;
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
}

/*
 * An RDMA READ of an MR that grants no remote read: the responder NAKs
 * it and enters the error state, the requester completes the READ with
 * IB_WC_REM_ACCESS_ERR and enters it too, and everything either side
 * still had posted is flushed.  The MR is not read.
 */
static void rc_remote_access_error(struct rdma_ktap_ctx *ctx)
{
	struct lt_wr rd = {
		.op = IB_WR_RDMA_READ,
		.wr_id = 0x802,
		.signaled = true,
		.len = 64,
	};
	struct lt_wr send = {
		.op = IB_WR_SEND,
		.wr_id = 0x803,
		.signaled = true,
		.len = 16,
	};
	struct lt_end a, b;
	struct lt_mr m = {};

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, 0x123, 0x456) ||
	    !lt_mr_reg(ctx, &b, &m,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE))
		goto out;
	lt_fill(m.va, 64, 50);
	memset(a.rx, 0xa5, LT_BUF);
	rd.laddr = a.rx_dma;
	rd.raddr = m.mr->iova;
	rd.rkey = m.mr->rkey;
	send.laddr = a.tx_dma;
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0x800, b.rx_dma, LT_BUF),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(a.qp, NULL, 0x801, a.rx_dma + 4096,
					  1024), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(a.qp, &rd, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(a.qp, &send, NULL), 0))
		goto out;
	lt_traffic.pkts++;
	if (!lt_expect_wc(ctx, a.scq, "READ without remote read", rd.wr_id,
			  IB_WC_REM_ACCESS_ERR, 0, NULL) ||
	    !lt_expect_wc(ctx, a.scq, "SEND behind the failed READ",
			  send.wr_id, IB_WC_WR_FLUSH_ERR, 0, NULL) ||
	    !lt_expect_wc(ctx, a.rcq, "A's receive", 0x801,
			  IB_WC_WR_FLUSH_ERR, 0, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "B's receive", 0x800,
			  IB_WC_WR_FLUSH_ERR, 0, NULL))
		goto out;
	RDMA_KT_EXPECT(ctx, lt_qp_state_wait(&a, IB_QPS_ERR),
		       "the requester is not in the error state");
	RDMA_KT_EXPECT(ctx, lt_qp_state_wait(&b, IB_QPS_ERR),
		       "the responder is not in the error state");
	RDMA_KT_EQ(ctx, a.rx[0], 0xa5);
	lt_expect_quiet(ctx, a.scq, "A send CQ");
	lt_expect_quiet(ctx, b.scq, "B send CQ");
out:
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* ---- UC ------------------------------------------------------------------- */

static void uc_loopback(struct rdma_ktap_ctx *ctx)
{
	u32 len_send = 3 * lt_mtu + 5, len_write = 2 * lt_mtu + 7;
	u32 len_wimm = lt_mtu + 3;
	const u32 off_write = 300, off_wimm = 6000;
	struct lt_end a, b;
	struct lt_mr m = {};
	struct ib_wc wc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_UC,
		     IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE, 0x777,
		     0xabcdef) ||
	    !lt_mr_reg(ctx, &b, &m,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE))
		goto out;
	if (!lt_send_recv(ctx, &a, &b, IB_WR_SEND, len_send, 11, &wc) ||
	    !lt_send_recv(ctx, &a, &b, IB_WR_SEND_WITH_IMM, 64, 12, &wc) ||
	    !lt_send_recv(ctx, &b, &a, IB_WR_SEND, lt_mtu, 13, &wc))
		goto out;

	/*
	 * A WRITE on UC completes once sent: a SEND behind it on the same
	 * QP shows when the responder is done with it.
	 */
	if (!lt_write(ctx, &a, &b, &m, false, off_write, len_write, 14) ||
	    !lt_send_recv(ctx, &a, &b, IB_WR_SEND, 1, 15, &wc) ||
	    !lt_expect_data(ctx, m.va + off_write, len_write, 14,
			    "WRITE after the SEND behind it"))
		goto out;
	if (!lt_write(ctx, &a, &b, &m, true, off_wimm, len_wimm, 16))
		goto out;
	lt_expect_quiet(ctx, a.scq, "A send CQ");
	lt_expect_quiet(ctx, b.rcq, "B recv CQ");
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/*
 * UC has no RDMA READ and no ATOMIC: post_send refuses them at once with
 * -EINVAL (stock rxe does too), posts nothing, and the QP works on.
 */
static void uc_refuses_read_atomic(struct rdma_ktap_ctx *ctx)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_RDMA_READ, IB_WR_ATOMIC_FETCH_AND_ADD,
		IB_WR_ATOMIC_CMP_AND_SWP,
	};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa;
	struct lt_end a, b;
	struct lt_mr m = {};
	struct ib_wc wc;
	unsigned int i;
	bool first;
	int ret;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_UC,
		     IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE, 0x10,
		     0x20) ||
	    !lt_mr_reg(ctx, &b, &m,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE))
		goto out;
	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct lt_wr w = {
			.op = ops[i],
			.wr_id = 0xbad0 + i,
			.signaled = true,
			.laddr = a.rx_dma,
			.len = 64,
			.raddr = m.mr->iova,
			.rkey = m.mr->rkey,
		};

		first = false;
		ret = lt_post_send(a.qp, &w, &first);
		RDMA_KT_EXPECT(ctx, ret == -EINVAL && first,
			       "opcode %d on UC: %d, bad_wr %s", ops[i], ret,
			       first ? "ours" : "not ours");
	}
	lt_expect_quiet(ctx, a.scq, "A send CQ after the refusals");
	if (RDMA_KT_EQ(ctx, ib_query_qp(a.qp, &qa, IB_QP_STATE, &init), 0))
		RDMA_KT_EQ(ctx, qa.qp_state, IB_QPS_RTS);
	lt_send_recv(ctx, &a, &b, IB_WR_SEND, 2 * lt_mtu, 21, &wc);
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/*
 * UC under packet loss.  tests/rxe_loop_ktap.sh drops, at the ingress of
 * lo, the RoCE packets with PSN LT_UC_LOSS_PSN + 1, + 6 and + 10: the
 * middle packet of a three-packet SEND and of a three-packet
 * WRITE_WITH_IMM, and the last one of a two-packet SEND.  UC does not
 * resend, so the responder must drop the rest of each broken message
 * silently and the receive WQE the SEND had begun must serve the next
 * message whole; the WRITE_WITH_IMM never reaches its receive WQE; the
 * receive WQE left half filled is flushed when the QP enters ERR.
 */
#define LT_UC_LOSS_PSN	0x5a5a00

/* Post @w on @from's QP and expect its completion: UC is done once sent. */
static bool lt_uc_send(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		       struct lt_wr *w, u32 seed, const char *what)
{
	lt_fill(from->tx, w->len, seed);
	w->wr_id = 0x1055 + seed;
	w->signaled = true;
	w->laddr = from->tx_dma;
	return RDMA_KT_EQ(ctx, lt_post_send(from->qp, w, NULL), 0) &&
	       lt_expect_wc(ctx, from->scq, what, w->wr_id, IB_WC_SUCCESS,
			    w->op == IB_WR_SEND ? IB_WC_SEND :
						  IB_WC_RDMA_WRITE, NULL);
}

/*
 * Send @lost, which loses a packet on the way: nothing may complete on
 * @to.  Then send @next (seed @seed + 1): it must complete receive
 * @wr_id of @to, into @wc.
 */
static bool lt_uc_after_loss(struct rdma_ktap_ctx *ctx, struct lt_end *from,
			     struct lt_end *to, struct lt_wr *lost,
			     struct lt_wr *next, u32 seed, u64 wr_id,
			     struct ib_wc *wc)
{
	if (!lt_uc_send(ctx, from, lost, seed, "message losing a packet"))
		return false;
	lt_expect_quiet(ctx, to->rcq, "receive CQ after the broken message");
	return lt_uc_send(ctx, from, next, seed + 1, "message after the loss") &&
	       lt_expect_wc(ctx, to->rcq, "message after the loss", wr_id,
			    IB_WC_SUCCESS, IB_WC_RECV, wc);
}

static void uc_packet_loss(struct rdma_ktap_ctx *ctx)
{
	const u32 half = LT_BUF / 2, len2 = lt_mtu + 9, len4 = 17;
	struct lt_wr w1 = { .op = IB_WR_SEND, .len = 2 * lt_mtu + 5 };
	struct lt_wr w2 = { .op = IB_WR_SEND, .len = len2 };
	struct lt_wr w3 = {
		.op = IB_WR_RDMA_WRITE_WITH_IMM,
		.len = 2 * lt_mtu + 1,
		.imm = cpu_to_be32(0x10551055),
	};
	struct lt_wr w4 = { .op = IB_WR_SEND, .len = len4 };
	struct lt_wr w5 = { .op = IB_WR_SEND, .len = lt_mtu + 3 };
	struct ib_qp_attr qa = {};
	struct lt_end a, b;
	struct lt_mr m = {};
	struct ib_wc wc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!lt_pair(ctx, &a, &b, IB_QPT_UC,
		     IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
		     LT_UC_LOSS_PSN, 0x123) ||
	    !lt_mr_reg(ctx, &b, &m,
		       IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE))
		goto out;
	w3.raddr = m.mr->iova;
	w3.rkey = m.mr->rkey;
	memset(b.rx, 0xa5, LT_BUF);
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0xec1, b.rx_dma, half),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0xec2, b.rx_dma + half,
					  half), 0))
		goto out;

	/*
	 * PSNs +0..+2, +1 lost: nothing may complete on B; +3..+4: the
	 * first receive WQE takes this message, all of it.
	 */
	if (!lt_uc_after_loss(ctx, &a, &b, &w1, &w2, 41, 0xec1, &wc))
		goto out;
	RDMA_KT_EQ(ctx, wc.byte_len, len2);
	lt_expect_data(ctx, b.rx, len2, 42, "SEND after the loss");
	RDMA_KT_EQ(ctx, b.rx[len2], 0xa5);
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts += lt_npkts(len2);

	/*
	 * +5..+7, +6 lost: the immediate never arrives; +8: the second
	 * receive WQE is still there for the next SEND.
	 */
	if (!lt_uc_after_loss(ctx, &a, &b, &w3, &w4, 43, 0xec2, &wc))
		goto out;
	RDMA_KT_EQ(ctx, wc.byte_len, len4);
	RDMA_KT_EXPECT(ctx, !(wc.wc_flags & IB_WC_WITH_IMM),
		       "the SEND completed with the lost immediate");
	lt_expect_data(ctx, b.rx + half, len4, 44, "SEND after the second loss");
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts++;
	lt_expect_quiet(ctx, a.scq, "A send CQ after the losses");

	/*
	 * +9..+10, +10 lost: B's QP goes to the error state with a receive
	 * WQE half filled.  It is flushed first, then the one behind it;
	 * the first packet's payload in its buffer shows it was in use.
	 */
	memset(b.rx, 0xa5, LT_BUF);
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0xec3, b.rx_dma, half),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0xec4, b.rx_dma + half,
					  half), 0) ||
	    !lt_uc_send(ctx, &a, &w5, 45, "SEND losing its last packet"))
		goto out;
	lt_expect_quiet(ctx, b.rcq, "B recv CQ with a message half received");
	qa.qp_state = IB_QPS_ERR;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(b.qp, &qa, IB_QP_STATE), 0) ||
	    !lt_expect_wc(ctx, b.rcq, "the half-filled receive", 0xec3,
			  IB_WC_WR_FLUSH_ERR, 0, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "the receive behind it", 0xec4,
			  IB_WC_WR_FLUSH_ERR, 0, NULL))
		goto out;
	lt_expect_data(ctx, b.rx, lt_mtu, 45, "the half-filled receive");
	RDMA_KT_EQ(ctx, b.rx[half], 0xa5);
	lt_traffic.pkts++;
	lt_expect_quiet(ctx, b.rcq, "B recv CQ at the end");
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* ---- SRQ limit ----------------------------------------------------------- */

#define LT_SRQ_WR	8
#define LT_SRQ_LIMIT	4
#define LT_SRQ_SLOT	1024

/**
 * struct lt_srq_events - what the SRQ's event handler saw
 * @count: events
 * @bad: events that were not a limit event of our SRQ
 * @srq: the SRQ, to compare the event's element with
 */
struct lt_srq_events {
	atomic_t	count;
	atomic_t	bad;
	struct ib_srq	*srq;
};

static void lt_srq_event(struct ib_event *ev, void *context)
{
	struct lt_srq_events *s = context;

	if (ev->event != IB_EVENT_SRQ_LIMIT_REACHED ||
	    ev->element.srq != READ_ONCE(s->srq) || ev->device != lt_dev)
		atomic_inc(&s->bad);
	atomic_inc(&s->count);
}

/* Wait until @s has seen @n events (or the timeout). */
static int lt_srq_events_wait(struct lt_srq_events *s, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);

	while (atomic_read(&s->count) < n && !time_after(jiffies, end))
		usleep_range(500, 1000);
	return atomic_read(&s->count);
}

/*
 * @from sends message @i of an SRQ test; @to takes it from the SRQ into
 * the slot of @slots the i-th posted receive points at.
 */
static bool lt_srq_msg(struct rdma_ktap_ctx *ctx, struct lt_end *from,
		       struct lt_end *to, unsigned int i, const u8 *slots)
{
	u32 len = 100 + 37 * i, slot = i % LT_SRQ_WR;
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = 0x5000 + i,
		.signaled = true,
		.laddr = from->tx_dma,
		.len = len,
	};
	struct ib_wc wc;

	lt_fill(from->tx, len, 40 + i);
	if (!RDMA_KT_EQ(ctx, lt_post_send(from->qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, from->scq, "SRQ SEND", w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, to->rcq, "SRQ receive", 0x600 + i,
			  IB_WC_SUCCESS, IB_WC_RECV, &wc))
		return false;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts++;
	RDMA_KT_EXPECT(ctx, wc.qp == to->qp, "SRQ receive of another QP");
	return RDMA_KT_EQ(ctx, wc.byte_len, len) &&
	       lt_expect_data(ctx, slots + slot * LT_SRQ_SLOT, len, 40 + i,
			      "SRQ receive");
}

static void srq_limit_event(struct rdma_ktap_ctx *ctx)
{
	struct lt_srq_events ev = {};
	struct ib_srq_init_attr sinit = {
		.event_handler = lt_srq_event,
		.srq_context = &ev,
		.srq_type = IB_SRQT_BASIC,
		.attr = {
			.max_wr = LT_SRQ_WR,
			.max_sge = 1,
		},
	};
	struct ib_srq_attr sa = {};
	struct ib_srq *srq;
	struct lt_end a, b;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	atomic_set(&ev.count, 0);
	atomic_set(&ev.bad, 0);
	srq = ib_create_srq(lt_pd, &sinit);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(srq), "ib_create_srq: %ld",
			    PTR_ERR(srq)))
		return;
	WRITE_ONCE(ev.srq, srq);
	if (!RDMA_KT_EQ(ctx, sinit.attr.max_wr, LT_SRQ_WR) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, srq), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x99, 0x55, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &b, lt_qpn(&a), 0x55, 0x99, 14),
			0))
		goto out;

	/* A QP on an SRQ has no receive queue of its own. */
	RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 1, b.rx_dma, 16), -EINVAL);
	for (i = 0; i < LT_SRQ_WR; i++)
		if (!RDMA_KT_EQ(ctx, lt_post_recv(NULL, srq, 0x600 + i,
						  b.rx_dma + i * LT_SRQ_SLOT,
						  LT_SRQ_SLOT), 0))
			goto out;
	/* Full: one more is refused. */
	RDMA_KT_EQ(ctx, lt_post_recv(NULL, srq, 0x6ff, b.rx_dma, 16), -ENOMEM);

	sa.srq_limit = LT_SRQ_LIMIT;
	if (!RDMA_KT_EQ(ctx, ib_modify_srq(srq, &sa, IB_SRQ_LIMIT), 0))
		goto out;
	memset(&sa, 0, sizeof(sa));
	if (RDMA_KT_EQ(ctx, ib_query_srq(srq, &sa), 0))
		RDMA_KT_EQ(ctx, sa.srq_limit, LT_SRQ_LIMIT);

	/* Down to the limit: no event yet. */
	for (i = 0; i < LT_SRQ_WR - LT_SRQ_LIMIT; i++)
		if (!lt_srq_msg(ctx, &a, &b, i, b.rx))
			goto out;
	msleep(LT_QUIET_MS);
	if (!RDMA_KT_EQ(ctx, atomic_read(&ev.count), 0))
		goto out;
	/* One below it: the event, once. */
	if (!lt_srq_msg(ctx, &a, &b, i++, b.rx) ||
	    !RDMA_KT_EQ(ctx, lt_srq_events_wait(&ev, 1), 1))
		goto out;
	memset(&sa, 0xff, sizeof(sa));
	if (RDMA_KT_EQ(ctx, ib_query_srq(srq, &sa), 0)) {
		RDMA_KT_EQ(ctx, sa.srq_limit, 0);
		RDMA_KT_EQ(ctx, sa.max_wr, LT_SRQ_WR);
	}
	/* Disarmed: draining the SRQ raises nothing more. */
	for (; i < LT_SRQ_WR; i++)
		if (!lt_srq_msg(ctx, &a, &b, i, b.rx))
			goto out;
	msleep(LT_QUIET_MS);
	RDMA_KT_EQ(ctx, atomic_read(&ev.count), 1);
	RDMA_KT_EQ(ctx, atomic_read(&ev.bad), 0);

	/* Armed again on a refilled SRQ, it fires again. */
	for (i = 0; i < LT_SRQ_WR; i++)
		if (!RDMA_KT_EQ(ctx, lt_post_recv(NULL, srq, 0x600 + LT_SRQ_WR + i,
						  b.rx_dma + i * LT_SRQ_SLOT,
						  LT_SRQ_SLOT), 0))
			goto out;
	sa.srq_limit = LT_SRQ_WR - 1;
	if (!RDMA_KT_EQ(ctx, ib_modify_srq(srq, &sa, IB_SRQ_LIMIT), 0) ||
	    !lt_srq_msg(ctx, &a, &b, LT_SRQ_WR, b.rx))
		goto out;
	msleep(LT_QUIET_MS);
	if (!RDMA_KT_EQ(ctx, atomic_read(&ev.count), 1) ||
	    !lt_srq_msg(ctx, &a, &b, LT_SRQ_WR + 1, b.rx))
		goto out;
	RDMA_KT_EQ(ctx, lt_srq_events_wait(&ev, 2), 2);
	RDMA_KT_EQ(ctx, atomic_read(&ev.bad), 0);
out:
	/* The SRQ's event went to the SRQ, not to the QPs. */
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	ib_destroy_srq(srq);
}

/* Wait until @e has seen @n QP events (or the timeout). */
int lt_qp_events_wait(struct lt_end *e, int n)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);

	while (atomic_read(&e->events) < n && !time_after(jiffies, end))
		usleep_range(500, 1000);
	return atomic_read(&e->events);
}

/*
 * A QP on an SRQ that enters the error state owns no receive WQE: its
 * owner is told with IB_EVENT_QP_LAST_WQE_REACHED (the IBTA's Last WQE
 * Reached event; stock rxe raises it too), the SRQ keeps its WQEs for the
 * other QPs, and ib_drain_qp(), which waits for that event, returns at
 * once.
 */
static void srq_qp_error_last_wqe(struct rdma_ktap_ctx *ctx)
{
	struct ib_srq_init_attr sinit = {
		.srq_type = IB_SRQT_BASIC,
		.attr = {
			.max_wr = LT_SRQ_WR,
			.max_sge = 1,
		},
	};
	struct lt_end a, b, a2, c;
	struct ib_qp_attr qa = {};
	unsigned long start;
	struct ib_srq *srq;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&a2, 0, sizeof(a2));
	memset(&c, 0, sizeof(c));
	srq = ib_create_srq(lt_pd, &sinit);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(srq), "ib_create_srq: %ld",
			    PTR_ERR(srq)))
		return;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, srq), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&a2, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&c, IB_QPT_RC, srq), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a2, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&c, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x10, 0x20, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &b, lt_qpn(&a), 0x20, 0x10, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a2, lt_qpn(&c), 0x30, 0x40, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &c, lt_qpn(&a2), 0x40, 0x30, 14),
			0))
		goto out;
	/* Both consumers of the SRQ share c's buffer slots. */
	for (i = 0; i < 4; i++)
		if (!RDMA_KT_EQ(ctx, lt_post_recv(NULL, srq, 0x600 + i,
						  c.rx_dma + i * LT_SRQ_SLOT,
						  LT_SRQ_SLOT), 0))
			goto out;
	if (!lt_srq_msg(ctx, &a, &b, 0, c.rx))
		goto out;

	qa.qp_state = IB_QPS_ERR;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(b.qp, &qa, IB_QP_STATE), 0))
		goto out;
	if (!RDMA_KT_EQ(ctx, lt_qp_events_wait(&b, 1), 1) ||
	    !RDMA_KT_EQ(ctx, READ_ONCE(b.last_event),
			IB_EVENT_QP_LAST_WQE_REACHED))
		goto out;
	/* Nothing of the SRQ was flushed to b... */
	lt_expect_quiet(ctx, b.rcq, "B recv CQ after the error");
	/* ... c takes the WQEs that are left, in order. */
	for (i = 1; i < 4; i++)
		if (!lt_srq_msg(ctx, &a2, &c, i, c.rx))
			goto out;

	start = jiffies;
	ib_drain_qp(c.qp);
	RDMA_KT_EXPECT(ctx, time_before(jiffies, start + 5 * HZ),
		       "ib_drain_qp of a QP on an SRQ took %u ms",
		       jiffies_to_msecs(jiffies - start));
	RDMA_KT_EQ(ctx, atomic_read(&c.events), 1);
	RDMA_KT_EQ(ctx, READ_ONCE(c.last_event), IB_EVENT_QP_LAST_WQE_REACHED);
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&a2.events), 0);
	lt_end_destroy(&c);
	lt_end_destroy(&a2);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	ib_destroy_srq(srq);
}

/* ---- flush on error ------------------------------------------------------- */

#define LT_FLUSH_RECVS	5
#define LT_FLUSH_SENDS	4

/*
 * A's peer (B) never gets past INIT, so nothing A sends is answered and
 * A's local ACK timeout is off.  Moving A to the error state completes
 * every posted receive and send, signalled or not, with
 * IB_WC_WR_FLUSH_ERR in posting order.  Work posted afterwards is
 * accepted and flushed too (as stock rxe does).  Back through RESET, A
 * can be connected again and works.
 */
static void qp_error_flush(struct rdma_ktap_ctx *ctx)
{
	struct lt_wr probe = {
		.op = IB_WR_SEND,
		.wr_id = 0x9e,
		.signaled = true,
	};
	struct ib_qp_init_attr init;
	struct ib_qp_attr qa = {};
	struct lt_end a, b;
	bool first = false;
	struct ib_wc wc;
	unsigned int i;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x400, 0x300, 0),
			0))
		goto out;
	/* B is not ready to send: a send is refused at once. */
	RDMA_KT_EQ(ctx, lt_post_send(b.qp, &probe, &first), -EINVAL);
	RDMA_KT_EXPECT(ctx, first, "bad_wr of a send in INIT");
	for (i = 0; i < LT_FLUSH_RECVS; i++)
		if (!RDMA_KT_EQ(ctx, lt_post_recv(a.qp, NULL, 100 + i,
						  a.rx_dma + i * 256, 256), 0))
			goto out;
	for (i = 0; i < LT_FLUSH_SENDS; i++) {
		struct lt_wr w = {
			.op = i & 1 ? IB_WR_SEND : IB_WR_RDMA_WRITE,
			.wr_id = 200 + i,
			.signaled = !(i & 1),
			.laddr = a.tx_dma,
			.len = i == 0 ? 2 * lt_mtu : 16,
			.raddr = 0x1000,
			.rkey = 0x100,
		};

		if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0))
			goto out;
	}
	/* B drops it all: nothing completes. */
	lt_expect_quiet(ctx, a.scq, "A send CQ before the error");
	lt_expect_quiet(ctx, a.rcq, "A recv CQ before the error");

	qa.qp_state = IB_QPS_ERR;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(a.qp, &qa, IB_QP_STATE), 0))
		goto out;
	for (i = 0; i < LT_FLUSH_RECVS; i++) {
		if (!lt_expect_wc(ctx, a.rcq, "flushed receive", 100 + i,
				  IB_WC_WR_FLUSH_ERR, 0, &wc))
			goto out;
		RDMA_KT_EXPECT(ctx, wc.qp == a.qp, "flushed receive: wc.qp");
	}
	for (i = 0; i < LT_FLUSH_SENDS; i++) {
		if (!lt_expect_wc(ctx, a.scq, "flushed send", 200 + i,
				  IB_WC_WR_FLUSH_ERR, 0, &wc))
			goto out;
		RDMA_KT_EXPECT(ctx, wc.qp == a.qp, "flushed send: wc.qp");
	}
	lt_expect_quiet(ctx, a.scq, "A send CQ after the flush");
	lt_expect_quiet(ctx, a.rcq, "A recv CQ after the flush");
	if (RDMA_KT_EQ(ctx, ib_query_qp(a.qp, &qa, IB_QP_STATE, &init), 0))
		RDMA_KT_EQ(ctx, qa.qp_state, IB_QPS_ERR);

	/* Posted in the error state: accepted, then flushed. */
	if (RDMA_KT_EQ(ctx, lt_post_recv(a.qp, NULL, 300, a.rx_dma, 64), 0))
		lt_expect_wc(ctx, a.rcq, "receive posted in ERR", 300,
			     IB_WC_WR_FLUSH_ERR, 0, NULL);
	{
		struct lt_wr w = {
			.op = IB_WR_SEND,
			.wr_id = 400,
			.laddr = a.tx_dma,
			.len = 8,
		};

		if (RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0))
			lt_expect_wc(ctx, a.scq, "unsignalled send posted in ERR",
				     400, IB_WC_WR_FLUSH_ERR, 0, NULL);
	}

	/* RESET, then a fresh connection: A works again. */
	qa.qp_state = IB_QPS_RESET;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(a.qp, &qa, IB_QP_STATE), 0))
		goto out;
	lt_expect_quiet(ctx, a.scq, "A send CQ after RESET");
	/* In RESET, nothing may be posted. */
	RDMA_KT_EQ(ctx, lt_post_recv(a.qp, NULL, 500, a.rx_dma, 64), -EINVAL);
	RDMA_KT_EQ(ctx, lt_post_send(a.qp, &probe, &first), -EINVAL);
	RDMA_KT_EXPECT(ctx, first, "bad_wr of a send in RESET");
	lt_expect_quiet(ctx, a.rcq, "A recv CQ after RESET");
	if (!RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x800, 0x900, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &b, lt_qpn(&a), 0x900, 0x800, 14),
			0))
		goto out;
	lt_send_recv(ctx, &a, &b, IB_WR_SEND, 2 * lt_mtu + 1, 31, &wc);
	lt_send_recv(ctx, &b, &a, IB_WR_SEND, 9, 32, &wc);
out:
	RDMA_KT_EQ(ctx, atomic_read(&a.events) + atomic_read(&b.events), 0);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* Last: every case gave back what it took. */
static void pd_usecnt_zero(struct rdma_ktap_ctx *ctx)
{
	RDMA_KT_EQ(ctx, atomic_read(&lt_pd->usecnt), 0);
}

static const struct rdma_ktap_case rxe_loop_cases[] = {
	{ "ud_loopback_ipv4", ud_loopback_ipv4 },
	{ "ud_loopback_ipv6", ud_loopback_ipv6 },
	{ "rc_loopback", rc_loopback },
	{ "rc_remote_access_error", rc_remote_access_error },
	{ "uc_loopback", uc_loopback },
	{ "uc_refuses_read_atomic", uc_refuses_read_atomic },
	{ "uc_packet_loss", uc_packet_loss },
	{ "srq_limit_event", srq_limit_event },
	{ "srq_qp_error_last_wqe", srq_qp_error_last_wqe },
	{ "qp_error_flush", qp_error_flush },
	{ "rc_forged_source", rc_forged_source },
	{ "rc_write_mr_invalidated", rc_write_mr_invalidated },
	{ "rc_write_mr_reregistered", rc_write_mr_reregistered },
	{ "rc_dereg_open_write", rc_dereg_open_write },
	{ "rc_reg_mr_rules", rc_reg_mr_rules },
	{ "rc_no_responder_resources", rc_no_responder_resources },
	{ "rc_read_long", rc_read_long },
	{ "ud_foreign_ah", ud_foreign_ah },
	{ "mr_sg_gaps_advertised", mr_sg_gaps_advertised },
	{ "limit_ah_count", limit_ah_count },
	{ "limit_qp_wr", limit_qp_wr },
	{ "limit_srq_wr", limit_srq_wr },
	{ "limit_srq_sge", limit_srq_sge },
	{ "limit_rd_atomic", limit_rd_atomic },
	{ "limit_res_rd_atom", limit_res_rd_atom },
	{ "limit_mcast", limit_mcast },
	{ "limit_mr_page_sizes", limit_mr_page_sizes },
	{ "pd_usecnt_zero", pd_usecnt_zero },
	{ "rc_atomic_write", rc_atomic_write },
	{ "rc_sqd_drains", rc_sqd_drains },
	{ "rc_comm_est", rc_comm_est },
	{ "gsi_qp_one", gsi_qp_one },
	{ "gsi_loopback", gsi_loopback },
	{ "mad_agent_rules", mad_agent_rules },
	{ "mad_loopback_ipv4", mad_loopback_ipv4 },
	{ "mad_loopback_ipv6", mad_loopback_ipv6 },
	{ "mad_unclaimed", mad_unclaimed },
	{ "mad_forged_response", mad_forged_response },
	{ "mad_cancel", mad_cancel },
	{ "mad_many", mad_many },
	{ "mad_malformed", mad_malformed },
	{ "pma_agent", pma_agent },
	{ "addr_resolve_local", addr_resolve_local },
	{ "addr_resolve_by_gid_attr", addr_resolve_by_gid_attr },
	{ "addr_resolve_errors", addr_resolve_errors },
	{ "addr_resolve_timeout", addr_resolve_timeout },
	{ "addr_resolve_cancel", addr_resolve_cancel },
	{ "path_pack_unpack", path_pack_unpack },
	{ "path_ah_attr_roce", path_ah_attr_roce },
	{ "path_sa_client", path_sa_client },
	{ "cm_connect_disconnect", cm_connect_disconnect },
	{ "cm_refusals", cm_refusals },
	{ "cm_mra_and_comm_est", cm_mra_and_comm_est },
	{ "cm_api_rules", cm_api_rules },
	{ "cm_sidr", cm_sidr },
	{ "rw_sge_list", rw_sge_list },
	{ "rw_one_sge_per_wr", rw_one_sge_per_wr },
	{ "rw_single_and_chain", rw_single_and_chain },
	{ "rw_sizes_and_pools", rw_sizes_and_pools },
	{ "cma_rc_ipv4", cma_rc_ipv4 },
	{ "cma_rc_ipv6", cma_rc_ipv6 },
	{ "cma_refusals", cma_refusals },
	{ "cma_api_rules", cma_api_rules },
	{ "cma_ud_sidr", cma_ud_sidr },
	{ "cma_multicast", cma_multicast },
	{ "cma_addr_errors", cma_addr_errors },
	{ "cma_user_layouts", cma_user_layouts },
};

static void lt_fini(void)
{
	if (lt_ndev) {
		lt_net_cleanup();
		dev_put(lt_ndev);
		lt_ndev = NULL;
	}
	if (lt_pd)
		ib_dealloc_pd(lt_pd);
	lt_pd = NULL;
	if (lt_dev)
		ib_device_put(lt_dev);
	lt_dev = NULL;
}

static int __init rxe_loop_test_init(void)
{
	struct ib_port_attr pattr;
	int ret;

	lt_dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!lt_dev) {
		pr_err("rdma_rxe_loop_test: no RDMA device %s\n", ibdev);
		return -ENODEV;
	}
	ret = -EINVAL;
	if (!rdma_protocol_roce(lt_dev, 1) || ib_query_port(lt_dev, 1, &pattr))
		goto err;
	lt_mtu_enum = pattr.active_mtu;
	lt_mtu = ib_mtu_enum_to_int(pattr.active_mtu);
	ret = -ENODEV;
	lt_ndev = ib_device_get_netdev(lt_dev, 1);
	if (!lt_ndev)
		goto err;
	lt_pd = ib_alloc_pd(lt_dev, 0);
	if (IS_ERR(lt_pd)) {
		ret = PTR_ERR(lt_pd);
		lt_pd = NULL;
		goto err;
	}
	ret = lt_net_setup();
	if (ret) {
		pr_err("rdma_rxe_loop_test: addresses or GIDs on %s: %d\n",
		       lt_ndev->name, ret);
		goto err;
	}
	rdma_ktap_run("rdma_rxe_loop", rxe_loop_cases,
		      ARRAY_SIZE(rxe_loop_cases));
	pr_info("# rdma_rxe_loop: path MTU %u, traffic sends=%u recvs=%u pkts=%u forged=%u\n",
		lt_mtu, lt_traffic.sends, lt_traffic.recvs, lt_traffic.pkts,
		lt_traffic.forged);
	pr_info("# rdma_rxe_loop: MAD drops bad=%u unmatched=%u\n",
		lt_traffic.mad_bad, lt_traffic.mad_unmatched);
	return 0;
err:
	lt_fini();
	return ret;
}

static void __exit rxe_loop_test_exit(void)
{
	lt_fini();
}

module_init(rxe_loop_test_init);
module_exit(rxe_loop_test_exit);

MODULE_DESCRIPTION("KTAP tests of UD, RC, UC, SRQ and QP flush over soft-RoCE loopback");
MODULE_LICENSE("GPL");
