// SPDX-License-Identifier: GPL-2.0
/*
 * The R/W API (rdma/rw.h) and MR pools (rdma/mr_pool.h) on the rxe device
 * under test: a QP created with cap.max_rdma_ctxs moves a three-entry
 * scatterlist to and from a peer's fast-registered MR with RDMA WRITE and
 * READ (one request with three SGEs; three requests when the QP allows one
 * SGE each; a single segment; an offset into the list), chains a SEND
 * behind the transfer, and gives back what it mapped; the sizing helpers
 * and the pools' accounting.
 */
#include <rdma/mr_pool.h>
#include <rdma/rw.h>

#include "rdma_rxe_loop.h"

#define RW_ENTRIES	3
/* The entries: part of a page, a whole page, the head of a third. */
static const u32 rw_off[RW_ENTRIES] = { 100, 0, 0 };
static const u32 rw_len[RW_ENTRIES] = { 1000, PAGE_SIZE, 500 };
#define RW_TOTAL	(1000 + PAGE_SIZE + 500)

struct rw_buf {
	struct page		*pages[RW_ENTRIES];
	struct scatterlist	sg[RW_ENTRIES];
};

static void rw_buf_free(struct rw_buf *b)
{
	int i;

	for (i = 0; i < RW_ENTRIES; i++)
		if (b->pages[i])
			__free_page(b->pages[i]);
}

static bool rw_buf_alloc(struct rw_buf *b)
{
	int i;

	memset(b, 0, sizeof(*b));
	sg_init_table(b->sg, RW_ENTRIES);
	for (i = 0; i < RW_ENTRIES; i++) {
		b->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!b->pages[i]) {
			rw_buf_free(b);
			return false;
		}
		sg_set_page(&b->sg[i], b->pages[i], rw_len[i], rw_off[i]);
	}
	return true;
}

/* Where byte @i of the list's contents is. */
static u8 *rw_byte(struct rw_buf *b, u32 i)
{
	int e;

	for (e = 0; i >= rw_len[e]; e++)
		i -= rw_len[e];
	return (u8 *)page_address(b->pages[e]) + rw_off[e] + i;
}

/* A QP with R/W contexts and @sge SGEs per request, connected to @peer. */
static bool rw_qp(struct rdma_ktap_ctx *ctx, struct lt_end *e,
		  struct lt_end *peer, u32 sge)
{
	struct ib_qp_init_attr init;

	if (!RDMA_KT_EQ(ctx, lt_end_prepare(e, IB_QPT_RC, NULL, LT_DEPTH,
					    &init), 0))
		return false;
	init.cap.max_send_sge = sge;
	init.cap.max_rdma_ctxs = 4;
	init.port_num = 1;
	e->qp = ib_create_qp(lt_pd, &init);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(e->qp), "QP with R/W contexts: %ld",
			    PTR_ERR(e->qp))) {
		e->qp = NULL;
		return false;
	}
	/* the send queue grew by a request per context */
	RDMA_KT_EXPECT(ctx, init.cap.max_send_wr >= LT_DEPTH + 4,
		       "max_send_wr %u", init.cap.max_send_wr);
	RDMA_KT_EQ(ctx, e->qp->max_write_sge, sge);
	return RDMA_KT_EQ(ctx, lt_to_init(e, LT_ACCESS_ALL), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_init(peer, LT_ACCESS_ALL), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_rts(ctx, e, lt_qpn(peer), 0x100, 0x200,
					 14), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_rts(ctx, peer, lt_qpn(e), 0x200, 0x100,
					 14), 0);
}

/*
 * One transfer of the list (from byte @skip) to or from @m; @wrs is the
 * number of requests it must take.
 */
static bool rw_move(struct rdma_ktap_ctx *ctx, struct lt_end *e,
		    struct lt_mr *m, struct rw_buf *b, u32 cnt, u32 skip,
		    enum dma_data_direction dir, int wrs)
{
	struct ib_cqe cqe = {};
	struct rdma_rw_ctx rw;
	struct ib_wc wc;
	int n;

	n = rdma_rw_ctx_init(&rw, e->qp, 1, b->sg, cnt, skip, m->mr->iova,
			     m->mr->rkey, dir);
	if (!RDMA_KT_EQ(ctx, n, wrs)) {
		if (n > 0)
			rdma_rw_ctx_destroy(&rw, e->qp, 1, b->sg, cnt, dir);
		return false;
	}
	RDMA_KT_EQ(ctx, rw.nr_ops, wrs);
	n = rdma_rw_ctx_post(&rw, e->qp, 1, &cqe, NULL);
	if (RDMA_KT_EQ(ctx, n, 0) && RDMA_KT_EXPECT(ctx, lt_poll(e->scq, &wc),
						    "no completion")) {
		RDMA_KT_EXPECT(ctx, wc.status == IB_WC_SUCCESS &&
			       wc.wr_cqe == &cqe, "completion %s, cqe %p",
			       ib_wc_status_msg(wc.status), wc.wr_cqe);
		/* only the last request is signalled */
		lt_expect_quiet(ctx, e->scq, "the transfer's other requests");
	}
	rdma_rw_ctx_destroy(&rw, e->qp, 1, b->sg, cnt, dir);
	return !n;
}

/* WRITE the list out, READ it back from an offset, on a QP of @sge SGEs. */
static void rw_round_trip(struct rdma_ktap_ctx *ctx, u32 sge, int wrs)
{
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	struct rw_buf buf;
	u32 i, bad = 0;

	if (!RDMA_KT_EXPECT(ctx, rw_buf_alloc(&buf), "no memory"))
		return;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, NULL), 0) ||
	    !rw_qp(ctx, &a, &b, sge) || !lt_mr_reg(ctx, &b, &m, LT_ACCESS_ALL))
		goto out;
	for (i = 0; i < RW_TOTAL; i++)
		*rw_byte(&buf, i) = i * 7 + 3;
	if (!rw_move(ctx, &a, &m, &buf, RW_ENTRIES, 0, DMA_TO_DEVICE, wrs))
		goto out;
	for (i = 0; i < RW_TOTAL; i++)
		bad += m.va[i] != (u8)(i * 7 + 3);
	RDMA_KT_EQ(ctx, bad, 0);

	/* READ into the list past its first 1200 bytes (inside entry 1) */
	for (i = 0; i < RW_TOTAL; i++)
		*rw_byte(&buf, i) = 0;
	memset(m.va, 0x5c, LT_MR_BYTES);
	if (!rw_move(ctx, &a, &m, &buf, RW_ENTRIES, 1200, DMA_FROM_DEVICE,
		     sge >= 2 ? 1 : 2))
		goto out;
	for (bad = 0, i = 0; i < RW_TOTAL; i++)
		bad += *rw_byte(&buf, i) != (i < 1200 ? 0 : 0x5c);
	RDMA_KT_EQ(ctx, bad, 0);
	lt_traffic.pkts += 2 * lt_npkts(RW_TOTAL);
out:
	lt_mr_free(&m);
	lt_end_destroy(&a);
	lt_end_destroy(&b);
	rw_buf_free(&buf);
}

/* One request with three SGEs each way. */
void rw_sge_list(struct rdma_ktap_ctx *ctx)
{
	rw_round_trip(ctx, RW_ENTRIES, 1);
}

/* One SGE per request: three requests, chained, the last signalled. */
void rw_one_sge_per_wr(struct rdma_ktap_ctx *ctx)
{
	rw_round_trip(ctx, 1, RW_ENTRIES);
}

/* A single segment; a SEND chained behind the transfer. */
void rw_single_and_chain(struct rdma_ktap_ctx *ctx)
{
	struct lt_end a = {}, b = {};
	struct ib_send_wr *first, *w;
	struct ib_cqe cqe = {};
	struct lt_mr m = {};
	struct rw_buf buf;
	struct rdma_rw_ctx rw;
	struct ib_send_wr swr = {
		.opcode = IB_WR_SEND,
		.wr_id = 0x5e,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_sge sge;
	int n;

	if (!RDMA_KT_EXPECT(ctx, rw_buf_alloc(&buf), "no memory"))
		return;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, NULL), 0) ||
	    !rw_qp(ctx, &a, &b, 2) || !lt_mr_reg(ctx, &b, &m, LT_ACCESS_ALL))
		goto out;
	memset(page_address(buf.pages[1]), 0x77, PAGE_SIZE);
	n = rdma_rw_ctx_init(&rw, a.qp, 1, &buf.sg[1], 1, 0, m.mr->iova,
			     m.mr->rkey, DMA_TO_DEVICE);
	if (!RDMA_KT_EQ(ctx, n, 1))
		goto out;
	sge = (struct ib_sge) { .addr = a.tx_dma, .length = 16,
				.lkey = lt_pd->local_dma_lkey };
	swr.sg_list = &sge;
	swr.num_sge = 1;
	first = rdma_rw_ctx_wrs(&rw, a.qp, 1, &cqe, &swr);
	for (w = first, n = 0; w && w != &swr; w = w->next)
		n++;
	RDMA_KT_EXPECT(ctx, w == &swr && n == 1 &&
		       !(first->send_flags & IB_SEND_SIGNALED),
		       "chain: %d requests before the SEND", n);
	if (RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0x7e, b.rx_dma, LT_BUF),
		       0) &&
	    RDMA_KT_EQ(ctx, ib_post_send(a.qp, first, NULL), 0) &&
	    lt_expect_wc(ctx, a.scq, "chained SEND", 0x5e, IB_WC_SUCCESS,
			 IB_WC_SEND, NULL) &&
	    lt_expect_wc(ctx, b.rcq, "chained SEND", 0x7e, IB_WC_SUCCESS,
			 IB_WC_RECV, NULL)) {
		RDMA_KT_EXPECT(ctx, m.va[0] == 0x77 && m.va[PAGE_SIZE - 1] == 0x77,
			       "WRITE before the SEND landed");
		lt_traffic.sends++;
		lt_traffic.recvs++;
		lt_traffic.pkts += lt_npkts(PAGE_SIZE) + 1;
	}
	rdma_rw_ctx_destroy(&rw, a.qp, 1, &buf.sg[1], 1, DMA_TO_DEVICE);
	/* past the end of the list: nothing to move */
	n = rdma_rw_ctx_init(&rw, a.qp, 1, buf.sg, RW_ENTRIES, RW_TOTAL,
			     m.mr->iova, m.mr->rkey, DMA_TO_DEVICE);
	RDMA_KT_EQ(ctx, n, -EINVAL);
	RDMA_KT_EQ(ctx, rdma_rw_ctx_signature_init(&rw, a.qp, 1, buf.sg, 1,
						   NULL, 0, NULL, 0, 0,
						   DMA_TO_DEVICE),
		   -EOPNOTSUPP);
out:
	lt_mr_free(&m);
	lt_end_destroy(&a);
	lt_end_destroy(&b);
	rw_buf_free(&buf);
}

/* The sizing helpers, and a pool's accounting. */
void rw_sizes_and_pools(struct rdma_ktap_ctx *ctx)
{
	u32 sge_rd = lt_dev->attrs.max_sge_rd;
	struct ib_mr *mr[3];
	struct lt_end e = {};
	LIST_HEAD(pool);
	int i;

	RDMA_KT_EQ(ctx, rdma_rw_mr_factor(lt_dev, 1, 1), 1);
	RDMA_KT_EQ(ctx, rdma_rw_mr_factor(lt_dev, 1, 4 * sge_rd + 1), 5);
	RDMA_KT_EQ(ctx, rdma_rw_max_send_wr(lt_dev, 1, 7, 0), 7);
	if (!RDMA_KT_EQ(ctx, lt_end_create(&e, IB_QPT_RC, NULL), 0))
		return;
	RDMA_KT_EQ(ctx, ib_mr_pool_init(e.qp, &pool, 3, IB_MR_TYPE_MEM_REG,
					8, 0), 0);
	for (i = 0; i < 3; i++)
		mr[i] = ib_mr_pool_get(e.qp, &pool);
	RDMA_KT_EXPECT(ctx, mr[0] && mr[1] && mr[2] &&
		       mr[0]->pd == lt_pd && mr[2]->type == IB_MR_TYPE_MEM_REG,
		       "three MRs of the pool");
	RDMA_KT_EQ(ctx, e.qp->mrs_used, 3);
	RDMA_KT_EXPECT(ctx, !ib_mr_pool_get(e.qp, &pool), "a fourth MR");
	for (i = 0; i < 3; i++)
		if (mr[i])
			ib_mr_pool_put(e.qp, &pool, mr[i]);
	RDMA_KT_EQ(ctx, e.qp->mrs_used, 0);
	ib_mr_pool_destroy(e.qp, &pool);
	RDMA_KT_EXPECT(ctx, list_empty(&pool), "pool emptied");
	/* more MRs than the device has: the pool gives back what it made */
	RDMA_KT_EXPECT(ctx, ib_mr_pool_init(e.qp, &pool, 2, IB_MR_TYPE_MEM_REG,
					    lt_dev->attrs.max_fast_reg_page_list_len + 1,
					    0) < 0 && list_empty(&pool),
		       "an MR too large for the device");
	lt_end_destroy(&e);
}
