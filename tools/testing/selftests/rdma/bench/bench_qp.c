// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: the QP of the two-guest measures and its buffers.
 *
 * "qp" makes a PD, a send and a receive CQ (both polled in softirq
 * context), one UD or RC QP and its buffers, and posts every receive.
 * "connect" points it at the peer: an AH for UD, the INIT -> RTR -> RTS
 * transitions with the peer's QP number and PSN for RC.  "close" undoes
 * both.  Buffers are kmalloc'ed and mapped with ib_dma_map_single(); the
 * PD's local_dma_lkey covers them.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "bench.h"
#include "../ulp/rdma_ulp_util.h"

/*
 * RC: 4.096 us << 18 = 1.07 s ACK timeout, 7 retries, RNR retries forever.
 * The guests share a busy host under TCG: a guest may not run for a good
 * part of a second, and a shorter timeout then only adds retransmissions.
 */
#define BENCH_RC_TIMEOUT	18
#define BENCH_RC_RETRY		7
#define BENCH_RC_RNR_RETRY	7
/* RNR NAK delay code 12: 0.64 ms. */
#define BENCH_RC_MIN_RNR	12

#define BENCH_UD_DEPTH		256
#define BENCH_RC_DEPTH		16

/**
 * bench_fill_ah_attr() - the address vector towards dest/dmac
 * @c: the instance; its sgid_index is refreshed
 * @a: dest and dmac
 * @attr: filled in (RoCE, GRH with hop limit 64)
 *
 * Return: 0, -EINVAL without dest or dmac, -ENODATA without a source GID.
 */
int bench_fill_ah_attr(struct bench_ctx *c, const struct bench_args *a,
		       struct rdma_ah_attr *attr)
{
	union ib_gid dgid = a->dgid;
	int idx;

	if (!a->has_dest || !a->has_dmac)
		return -EINVAL;
	idx = rdma_ulp_find_sgid(c->dev, c->port, true);
	if (idx < 0)
		return -ENODATA;
	c->sgid_index = idx;
	rdma_ulp_roce_ah_attr(c->dev, c->port, &dgid, idx, a->dmac, attr);
	return 0;
}

/**
 * bench_post_recv() - post one receive buffer
 * @c: the instance
 * @b: the buffer, all of it
 *
 * Return: what ib_post_recv() returned.
 */
int bench_post_recv(struct bench_ctx *c, struct bench_buf *b)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = c->buf_bytes,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->rx_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->qp, &wr, NULL);
}

static void bench_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_ctx *c = cq->cq_context;
	struct bench_buf *b = container_of(wc->wr_cqe, struct bench_buf,
					   rx_cqe);
	u32 bytes = wc->byte_len;

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status == IB_WC_WR_FLUSH_ERR)
			return;		/* the QP is going away */
		bench_stats_error(c);
		goto repost;
	}
	if (c->qp_type == IB_QPT_UD)
		bytes = bytes > BENCH_GRH_BYTES ? bytes - BENCH_GRH_BYTES : 0;

	switch (READ_ONCE(c->rx_mode)) {
	case BENCH_RX_ECHO:
		bench_stats_add(c, bytes);
		bench_echo(c, b, wc);		/* reposts b once sent */
		return;
	case BENCH_RX_PING:
		bench_ping_rx(c, b, bytes);
		break;
	default:
		bench_stats_add(c, bytes);
		break;
	}
repost:
	if (bench_post_recv(c, b))
		bench_stats_error(c);
}

static int bench_map_buf(struct bench_ctx *c, struct bench_buf *b)
{
	b->data = kzalloc(c->buf_bytes, GFP_KERNEL);
	if (!b->data)
		return -ENOMEM;
	b->dma = ib_dma_map_single(c->dev, b->data, c->buf_bytes,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, b->dma)) {
		kfree(b->data);
		b->data = NULL;
		return -ENOMEM;
	}
	b->rx_cqe.done = bench_rx_done;
	return 0;
}

static void bench_unmap_buf(struct bench_ctx *c, struct bench_buf *b)
{
	if (!b->data)
		return;
	ib_dma_unmap_single(c->dev, b->dma, c->buf_bytes, DMA_BIDIRECTIONAL);
	kfree(b->data);
	b->data = NULL;
}

/* RESET -> INIT, and for UD on to RTS: a UD QP needs no peer. */
static int bench_qp_init(struct bench_ctx *c)
{
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_INIT,
		.port_num = c->port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE,
	};

	if (c->qp_type != IB_QPT_RC)
		return rdma_ulp_ud_to_rts(c->qp, c->port, BENCH_QKEY, c->psn);
	return ib_modify_qp(c->qp, &qa, IB_QP_STATE | IB_QP_PKEY_INDEX |
			    IB_QP_PORT | IB_QP_ACCESS_FLAGS);
}

static int bench_qp_alloc(struct bench_ctx *c, unsigned int depth)
{
	struct ib_qp_init_attr init = {
		.qp_type = c->qp_type,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = BENCH_SQ_DEPTH,
			.max_recv_wr = depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp;

	pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	c->pd = pd;
	cq = ib_alloc_cq(c->dev, c, BENCH_SQ_DEPTH, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->send_cq = cq;
	cq = ib_alloc_cq(c->dev, c, depth, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	c->recv_cq = cq;
	init.send_cq = c->send_cq;
	init.recv_cq = c->recv_cq;
	qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	c->qp = qp;
	return 0;
}

/**
 * bench_qp_create() - the "qp" command
 * @c: the instance, without a QP
 * @a: type, size (largest message), depth (receives), echo (UD)
 * @res: result: qpn= psn= type= depth= size=
 * @len: size of @res
 *
 * Return: 0, -EBUSY if a QP exists, -EINVAL for a bad size, depth or an
 * echo on RC, or the error of the verb that failed (all undone then).
 */
int bench_qp_create(struct bench_ctx *c, const struct bench_args *a,
		    char *res, size_t len)
{
	bool ud = a->qp_type == IB_QPT_UD;
	unsigned int i, depth;
	int ret;

	if (c->qp)
		return -EBUSY;
	depth = a->depth ?: (ud ? BENCH_UD_DEPTH : BENCH_RC_DEPTH);
	if (!a->size || a->size > SZ_1M || depth > 4096 || (a->echo && !ud))
		return -EINVAL;

	c->qp_type = a->qp_type;
	c->psn = get_random_u32() & 0xffffff;
	c->buf_bytes = a->size + (ud ? BENCH_GRH_BYTES : 0);
	c->rx_mode = a->echo ? BENCH_RX_ECHO : BENCH_RX_COUNT;
	c->connected = false;
	ret = bench_qp_alloc(c, depth);
	if (!ret)
		ret = bench_qp_init(c);
	if (!ret)
		ret = bench_map_buf(c, &c->tx);
	if (!ret) {
		c->rx = kcalloc(depth, sizeof(*c->rx), GFP_KERNEL);
		if (!c->rx)
			ret = -ENOMEM;
	}
	for (i = 0; !ret && i < depth; i++) {
		ret = bench_map_buf(c, &c->rx[i]);
		c->rx_depth = i + !ret;
	}
	for (i = 0; !ret && i < depth; i++)
		ret = bench_post_recv(c, &c->rx[i]);
	if (ret) {
		bench_qp_close(c);
		return ret;
	}
	snprintf(res, len, "qpn=%u psn=%u type=%s depth=%u size=%u",
		 c->qp->qp_num, c->psn, ud ? "ud" : "rc", depth, a->size);
	return 0;
}

static int bench_rc_connect(struct bench_ctx *c, const struct bench_args *a,
			    struct rdma_ah_attr *av, enum ib_mtu *mtu)
{
	struct ib_port_attr pa;
	struct ib_qp_attr qa = {};
	int ret;

	if (!a->dqpn)
		return -EINVAL;
	ret = ib_query_port(c->dev, c->port, &pa);
	if (ret)
		return ret;
	*mtu = pa.active_mtu;
	qa.qp_state = IB_QPS_RTR;
	qa.ah_attr = *av;
	qa.path_mtu = pa.active_mtu;
	qa.dest_qp_num = a->dqpn;
	qa.rq_psn = a->dpsn & 0xffffff;
	qa.max_dest_rd_atomic = 1;
	qa.min_rnr_timer = BENCH_RC_MIN_RNR;
	ret = ib_modify_qp(c->qp, &qa, IB_QP_STATE | IB_QP_AV |
			   IB_QP_PATH_MTU | IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			   IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RTS;
	qa.sq_psn = c->psn;
	qa.timeout = BENCH_RC_TIMEOUT;
	qa.retry_cnt = BENCH_RC_RETRY;
	qa.rnr_retry = BENCH_RC_RNR_RETRY;
	qa.max_rd_atomic = 1;
	return ib_modify_qp(c->qp, &qa, IB_QP_STATE | IB_QP_SQ_PSN |
			    IB_QP_TIMEOUT | IB_QP_RETRY_CNT |
			    IB_QP_RNR_RETRY | IB_QP_MAX_QP_RD_ATOMIC);
}

/**
 * bench_qp_connect() - the "connect" command
 * @c: the instance, with a QP
 * @a: dest, dmac, dqpn (RC: required; UD: the stream's target), dpsn (RC)
 * @res: result: dqpn= and, RC, the path MTU code
 * @len: size of @res
 *
 * Return: 0, -ENOTCONN without a QP, -EISCONN if already connected,
 * -EINVAL for missing arguments, or the error of the failing verb.
 */
int bench_qp_connect(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len)
{
	struct rdma_ah_attr av;
	enum ib_mtu mtu = 0;
	struct ib_ah *ah;
	int ret;

	if (!c->qp)
		return -ENOTCONN;
	if (c->connected)
		return -EISCONN;
	ret = bench_fill_ah_attr(c, a, &av);
	if (ret)
		return ret;
	if (c->qp_type == IB_QPT_RC) {
		ret = bench_rc_connect(c, a, &av, &mtu);
		if (ret)
			return ret;
	} else {
		ah = rdma_create_ah(c->pd, &av, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah))
			return PTR_ERR(ah);
		c->ah = ah;
	}
	c->dqpn = a->dqpn;
	c->connected = true;
	snprintf(res, len, "dqpn=%u mtu=%d sgid_index=%d", c->dqpn, mtu,
		 c->sgid_index);
	return 0;
}

/**
 * bench_qp_close() - destroy what "qp" and "connect" made
 * @c: the instance
 *
 * The QP goes to the error state and is destroyed first, then the CQs:
 * ib_free_cq() waits for a completion handler still running, so no
 * handler touches a buffer or the AH once they are freed.
 */
void bench_qp_close(struct bench_ctx *c)
{
	struct ib_qp_attr qa = { .qp_state = IB_QPS_ERR };
	unsigned int i;

	WRITE_ONCE(c->stop, true);
	if (c->qp) {
		ib_modify_qp(c->qp, &qa, IB_QP_STATE);
		ib_destroy_qp(c->qp);
		c->qp = NULL;
	}
	if (c->recv_cq)
		ib_free_cq(c->recv_cq);
	c->recv_cq = NULL;
	if (c->send_cq)
		ib_free_cq(c->send_cq);
	c->send_cq = NULL;
	if (c->ah)
		rdma_destroy_ah(c->ah, RDMA_DESTROY_AH_SLEEPABLE);
	c->ah = NULL;
	for (i = 0; c->rx && i < c->rx_depth; i++)
		bench_unmap_buf(c, &c->rx[i]);
	kfree(c->rx);
	c->rx = NULL;
	c->rx_depth = 0;
	bench_unmap_buf(c, &c->tx);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	c->pd = NULL;
	c->connected = false;
	c->rx_mode = BENCH_RX_COUNT;
}

/**
 * bench_qp_close_cmd() - the "close" command
 * @c: the instance
 * @a: unused
 * @res: result: "closed"
 * @len: size of @res
 *
 * Return: 0.
 */
int bench_qp_close_cmd(struct bench_ctx *c, const struct bench_args *a,
		       char *res, size_t len)
{
	bench_qp_close(c);
	snprintf(res, len, "closed");
	return 0;
}
