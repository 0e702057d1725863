// SPDX-License-Identifier: GPL-2.0
/*
 * The cases of rdma_rxe_loop_test where the device must refuse: a peer
 * or a ULP asks for something the verbs or the wire protocol do not
 * allow, and nothing of it may happen.
 *
 *  - a QP of another address (10.13.0.3, "another host") sends into a
 *    live connection with the PSN the responder expects: dropped, and the
 *    real peer's message with that PSN arrives whole
 *  - the target MR of an RDMA WRITE is invalidated, replaced under a new
 *    key or deregistered between the packets of the WRITE: the rest is
 *    refused with a remote access NAK and nothing of it is written; dereg
 *    returns at once
 *  - IB_WR_REG_MR of a VALID MR, or with remote write and no local write
 *  - READ and ATOMIC at a QP without responder resources
 *  - a long READ, answered a bounded number of packets at a time
 *  - a UD send through an AH of another PD
 *  - a device that claims IBK_SG_GAPS_REG must give IB_MR_TYPE_SG_GAPS MRs
 *
 * The WRITE cases stop a WRITE_WITH_IMM in the middle: the responder has
 * no receive WQE, so it writes the FIRST and MIDDLE packets and answers
 * the LAST (which carries the immediate) with RNR NAKs, until the case
 * posts a receive after doing what it tests.
 */
#include <linux/completion.h>
#include <linux/gfp.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include "rdma_rxe_loop.h"

#define GT_PSN_A	0x7ffff0
#define GT_PSN_B	0x000400
/* RNR NAK timer of the WRITE cases' responder: 81.92 ms */
#define GT_RNR_CODE	26
/* Where the stopped WRITE goes in the MR */
#define GT_WRITE_OFF	512

/* ---- another host in a live connection ------------------------------------ */

void rc_forged_source(struct rdma_ktap_ctx *ctx)
{
	const struct lt_rc_opts forger = {
		.sgid_idx = lt_idx4_other,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = 1,
		.timeout = 10,
		.retry_cnt = 1,
	};
	struct lt_wr fake = {
		.op = IB_WR_SEND,
		.wr_id = 0xf0,
		.signaled = true,
		.len = 64,
	};
	struct lt_wr real = {
		.op = IB_WR_SEND,
		.wr_id = 0xa0,
		.signaled = true,
		.len = 64,
	};
	struct lt_end a = {}, b = {}, c = {};
	struct ib_wc wc;

	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, GT_PSN_A,
		     GT_PSN_B))
		goto out;
	/* C: B's path, but from another address, with the PSN B expects. */
	if (!RDMA_KT_EQ(ctx, lt_end_create(&c, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&c, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, &c, lt_qpn(&b), 0x123,
					    GT_PSN_A, &forger), 0))
		goto out;

	/* B's receive is waiting: a forged SEND that got in would take it. */
	memset(b.rx, 0xa5, LT_BUF);
	lt_fill(c.tx, fake.len, 0xc);
	fake.laddr = c.tx_dma;
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b.qp, NULL, 0xb0, b.rx_dma, LT_BUF),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(c.qp, &fake, NULL), 0))
		goto out;
	/* Nobody answers C: its SEND and the one retransmission are lost. */
	if (!lt_expect_wc(ctx, c.scq, "SEND from another address", fake.wr_id,
			  IB_WC_RETRY_EXC_ERR, 0, NULL))
		goto out;
	lt_traffic.forged += 2;
	if (!lt_expect_quiet(ctx, b.rcq, "B after the SEND from another address"))
		goto out;

	/* The real peer's SEND, with the very same PSN, is B's. */
	lt_fill(a.tx, real.len, 0xa);
	real.laddr = a.tx_dma;
	if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &real, NULL), 0) ||
	    !lt_expect_wc(ctx, a.scq, "the peer's SEND", real.wr_id,
			  IB_WC_SUCCESS, IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "the peer's SEND", 0xb0, IB_WC_SUCCESS,
			  IB_WC_RECV, &wc))
		goto out;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts++;
	RDMA_KT_EQ(ctx, wc.byte_len, real.len);
	lt_expect_data(ctx, b.rx, real.len, 0xa, "the peer's SEND");
	RDMA_KT_EXPECT(ctx, lt_qp_state_wait(&b, IB_QPS_RTS),
		       "B left RTS");
out:
	lt_end_destroy(&c);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* ---- a WRITE stopped between its packets ---------------------------------- */

/* Bytes of the stopped WRITE: FIRST, MIDDLE and a LAST of 100 bytes. */
static u32 gt_write_len(void)
{
	return 2 * lt_mtu + 100;
}

/* Wait until the @n bytes at @p are those at @want. */
static bool gt_bytes_wait(const u8 *p, const u8 *want, u32 n)
{
	unsigned long end = jiffies + msecs_to_jiffies(LT_WAIT_MS);

	while (memcmp(p, want, n)) {
		if (time_after(jiffies, end))
			return false;
		usleep_range(500, 1000);
	}
	return true;
}

/*
 * Connect @a and @b (B answers RNR NAKs slowly), register @m on B and
 * start a WRITE_WITH_IMM from A into @m at GT_WRITE_OFF.  Returns once
 * the FIRST and MIDDLE packets are in @m: the LAST waits for a receive
 * WQE that is not there.
 */
static bool gt_write_stopped(struct rdma_ktap_ctx *ctx, struct lt_end *a,
			     struct lt_end *b, struct lt_mr *m)
{
	const struct lt_rc_opts slow_rnr = {
		.sgid_idx = lt_idx4,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = GT_RNR_CODE,
		.timeout = 14,
		.retry_cnt = 7,
	};
	u32 len = gt_write_len(), done = 2 * lt_mtu;
	struct lt_wr w = {
		.op = IB_WR_RDMA_WRITE_WITH_IMM,
		.wr_id = 0x3a1,
		.signaled = true,
		.len = len,
		.imm = cpu_to_be32(0x51a1),
	};

	if (!RDMA_KT_EQ(ctx, lt_end_create(a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(b, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, a, lt_qpn(b), GT_PSN_B, GT_PSN_A,
				       14), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, b, lt_qpn(a), GT_PSN_A,
					    GT_PSN_B, &slow_rnr), 0) ||
	    !lt_mr_reg(ctx, b, m, LT_ACCESS_ALL))
		return false;
	lt_fill(a->tx, len, 0x77);
	w.laddr = a->tx_dma;
	w.raddr = m->mr->iova + GT_WRITE_OFF;
	w.rkey = m->mr->rkey;
	if (!RDMA_KT_EQ(ctx, lt_post_send(a->qp, &w, NULL), 0))
		return false;
	return RDMA_KT_EXPECT(ctx, gt_bytes_wait(m->va + GT_WRITE_OFF, a->tx,
						 done),
			      "the FIRST and MIDDLE packets never arrived");
}

/*
 * B posts the receive the LAST packet waits for: the LAST must now be
 * refused with a remote access NAK, which ends both QPs, and nothing from
 * it may reach @untouched (@n bytes that must still be zero).
 */
static void gt_write_refused(struct rdma_ktap_ctx *ctx, struct lt_end *a,
			     struct lt_end *b, const u8 *untouched, u32 n)
{
	if (!RDMA_KT_EQ(ctx, lt_post_recv(b->qp, NULL, 0x3b1, b->rx_dma,
					  LT_BUF), 0) ||
	    !lt_expect_wc(ctx, a->scq, "the rest of the WRITE", 0x3a1,
			  IB_WC_REM_ACCESS_ERR, 0, NULL) ||
	    !lt_expect_wc(ctx, b->rcq, "B's receive", 0x3b1,
			  IB_WC_WR_FLUSH_ERR, 0, NULL))
		return;
	RDMA_KT_EXPECT(ctx, lt_qp_state_wait(b, IB_QPS_ERR),
		       "the responder is not in the error state");
	RDMA_KT_EXPECT(ctx, !memchr_inv(untouched, 0, n),
		       "the LAST packet was written after all");
}

void rc_write_mr_invalidated(struct rdma_ktap_ctx *ctx)
{
	struct ib_send_wr inv = {
		.wr_id = 0x1d1,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	u32 done = 2 * lt_mtu;

	if (!gt_write_stopped(ctx, &a, &b, &m))
		goto out;
	inv.ex.invalidate_rkey = m.mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(b.qp, &inv, NULL), 0) ||
	    !lt_expect_wc(ctx, b.scq, "LOCAL_INV", inv.wr_id, IB_WC_SUCCESS,
			  IB_WC_LOCAL_INV, NULL))
		goto out;
	gt_write_refused(ctx, &a, &b, m.va + GT_WRITE_OFF + done,
			 gt_write_len() - done);
out:
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/*
 * The MR is invalidated, mapped over other memory and registered again
 * under a new key at the same iova: the rest of the WRITE, still under
 * the old key, must not land in the new memory.
 */
void rc_write_mr_reregistered(struct rdma_ktap_ctx *ctx)
{
	struct ib_send_wr inv = {
		.wr_id = 0x1d2,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 0x4e7,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = LT_ACCESS_ALL,
	};
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	struct scatterlist sg;
	bool mapped = false;
	u8 *other = NULL;
	u64 iova;

	if (!gt_write_stopped(ctx, &a, &b, &m))
		goto out;
	other = (u8 *)__get_free_pages(GFP_KERNEL | __GFP_ZERO, LT_MR_ORDER);
	if (!RDMA_KT_EXPECT(ctx, other, "no memory"))
		goto out;
	sg_init_one(&sg, other, LT_MR_BYTES);
	if (!RDMA_KT_EQ(ctx, ib_dma_map_sg(lt_dev, &sg, 1, DMA_BIDIRECTIONAL),
			1))
		goto out;
	mapped = true;
	iova = m.mr->iova;
	inv.ex.invalidate_rkey = m.mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(b.qp, &inv, NULL), 0) ||
	    !lt_expect_wc(ctx, b.scq, "LOCAL_INV", inv.wr_id, IB_WC_SUCCESS,
			  IB_WC_LOCAL_INV, NULL) ||
	    !RDMA_KT_EQ(ctx, ib_map_mr_sg(m.mr, &sg, 1, NULL, PAGE_SIZE), 1))
		goto out;
	/* The same addresses, other memory, a new key. */
	m.mr->iova = iova;
	ib_update_fast_reg_key(m.mr, ib_inc_rkey(m.mr->rkey) & 0xff);
	reg.mr = m.mr;
	reg.key = m.mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(b.qp, &reg.wr, NULL), 0) ||
	    !lt_expect_wc(ctx, b.scq, "REG_MR over other memory", reg.wr.wr_id,
			  IB_WC_SUCCESS, IB_WC_REG_MR, NULL))
		goto out;
	gt_write_refused(ctx, &a, &b, other, LT_MR_BYTES);
	RDMA_KT_EXPECT(ctx, !memchr_inv(m.va + GT_WRITE_OFF + 2 * lt_mtu, 0,
					gt_write_len() - 2 * lt_mtu),
		       "the LAST packet went to the old memory");
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	lt_mr_free(&m);
	if (mapped)
		ib_dma_unmap_sg(lt_dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (other)
		free_pages((unsigned long)other, LT_MR_ORDER);
}

struct gt_dereg {
	struct work_struct	work;
	struct completion	done;
	struct ib_mr		*mr;
	int			ret;
};

static void gt_dereg_fn(struct work_struct *work)
{
	struct gt_dereg *d = container_of(work, struct gt_dereg, work);

	d->ret = ib_dereg_mr(d->mr);
	complete(&d->done);
}

/*
 * ib_dereg_mr() of the MR a WRITE is writing into, while the peer holds
 * back the rest: it must return at once, not wait for the network; the
 * rest of the WRITE is then refused.
 */
void rc_dereg_open_write(struct rdma_ktap_ctx *ctx)
{
	struct gt_dereg d = {};
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	bool started = false;

	init_completion(&d.done);
	INIT_WORK_ONSTACK(&d.work, gt_dereg_fn);
	if (!gt_write_stopped(ctx, &a, &b, &m))
		goto out;
	d.mr = m.mr;
	m.mr = NULL;
	queue_work(system_unbound_wq, &d.work);
	started = true;
	if (!RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&d.done,
							     msecs_to_jiffies(LT_WAIT_MS)),
			    "ib_dereg_mr() still waits with a WRITE open") ||
	    !RDMA_KT_EQ(ctx, d.ret, 0))
		goto out;
	gt_write_refused(ctx, &a, &b, m.va + GT_WRITE_OFF + 2 * lt_mtu,
			 gt_write_len() - 2 * lt_mtu);
out:
	/* Destroying B lets a dereg that hung go on: wait for it then. */
	lt_end_destroy(&b);
	if (started)
		flush_work(&d.work);
	destroy_work_on_stack(&d.work);
	lt_end_destroy(&a);
	lt_mr_free(&m);
}

/* ---- registration rules --------------------------------------------------- */

/* A QP connected to itself, for local work requests only. */
static bool gt_self_qp(struct rdma_ktap_ctx *ctx, struct lt_end *e)
{
	return RDMA_KT_EQ(ctx, lt_end_create(e, IB_QPT_RC, NULL), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_init(e, LT_ACCESS_ALL), 0) &&
	       RDMA_KT_EQ(ctx, lt_to_rts(ctx, e, lt_qpn(e), 1, 1, 14), 0);
}

/* IB_WR_REG_MR of @m with @access must complete with @status. */
static bool gt_reg(struct rdma_ktap_ctx *ctx, struct lt_end *e,
		   struct lt_mr *m, int access, enum ib_wc_status status,
		   const char *what)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 0x4e8,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = m->mr,
		.key = m->mr->rkey,
		.access = access,
	};

	return RDMA_KT_EQ(ctx, ib_post_send(e->qp, &reg.wr, NULL), 0) &&
	       lt_expect_wc(ctx, e->scq, what, reg.wr.wr_id, status,
			    IB_WC_REG_MR, NULL);
}

/*
 * IB_WR_REG_MR needs a FREE MR: registering a VALID one fails (and, as
 * any failed work request, puts the QP into the error state), the legal
 * way being LOCAL_INV first.  Remote write needs local write.
 */
void rc_reg_mr_rules(struct rdma_ktap_ctx *ctx)
{
	struct ib_send_wr inv = {
		.wr_id = 0x1d3,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	struct lt_end e = {};
	struct lt_mr m = {};

	/* lt_mr_reg() leaves the MR VALID. */
	if (!gt_self_qp(ctx, &e) || !lt_mr_reg(ctx, &e, &m, LT_ACCESS_ALL) ||
	    !gt_reg(ctx, &e, &m, LT_ACCESS_ALL, IB_WC_LOC_PROT_ERR,
		    "REG_MR of a VALID MR"))
		goto out;
	lt_end_destroy(&e);

	if (!gt_self_qp(ctx, &e))
		goto out;
	inv.ex.invalidate_rkey = m.mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(e.qp, &inv, NULL), 0) ||
	    !lt_expect_wc(ctx, e.scq, "LOCAL_INV", inv.wr_id, IB_WC_SUCCESS,
			  IB_WC_LOCAL_INV, NULL))
		goto out;
	ib_update_fast_reg_key(m.mr, ib_inc_rkey(m.mr->rkey) & 0xff);
	if (!gt_reg(ctx, &e, &m, IB_ACCESS_REMOTE_WRITE, IB_WC_LOC_PROT_ERR,
		    "REG_MR: remote write without local write"))
		goto out;
	lt_end_destroy(&e);

	if (!gt_self_qp(ctx, &e))
		goto out;
	gt_reg(ctx, &e, &m, IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	       IB_WC_SUCCESS, "REG_MR of the invalidated MR");
out:
	lt_end_destroy(&e);
	lt_mr_free(&m);
}

/* ---- the responder's resources -------------------------------------------- */

/*
 * A responder with max_dest_rd_atomic 0 takes no READ and no ATOMIC: an
 * invalid request NAK, the requester's WR fails with it, both QPs end.
 */
void rc_no_responder_resources(struct rdma_ktap_ctx *ctx)
{
	static const enum ib_wr_opcode ops[] = {
		IB_WR_RDMA_READ, IB_WR_ATOMIC_FETCH_AND_ADD,
	};
	const struct lt_rc_opts none = {
		.sgid_idx = lt_idx4,
		.max_dest_rd_atomic = 0,
		.min_rnr_timer = 1,
		.timeout = 14,
		.retry_cnt = 7,
	};
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct lt_wr w = {
			.op = ops[i],
			.wr_id = 0x9d0 + i,
			.signaled = true,
			.len = sizeof(u64),
		};

		if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
		    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, NULL), 0) ||
		    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
		    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
		    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x10, 0x20,
					       14), 0) ||
		    !RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, &b, lt_qpn(&a), 0x20,
						    0x10, &none), 0) ||
		    !lt_mr_reg(ctx, &b, &m, LT_ACCESS_ALL))
			break;
		*(u64 *)m.va = 0x1234;
		memset(a.rx, 0xa5, LT_BUF);
		w.laddr = a.rx_dma;
		w.raddr = m.mr->iova;
		w.rkey = m.mr->rkey;
		w.compare_add = 1;
		if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0) ||
		    !lt_expect_wc(ctx, a.scq, ops[i] == IB_WR_RDMA_READ ?
				  "READ without resources" :
				  "ATOMIC without resources", w.wr_id,
				  IB_WC_REM_INV_REQ_ERR, 0, NULL))
			break;
		RDMA_KT_EXPECT(ctx, lt_qp_state_wait(&b, IB_QPS_ERR),
			       "the responder is not in the error state");
		RDMA_KT_EQ(ctx, *(u64 *)m.va, 0x1234);
		RDMA_KT_EQ(ctx, a.rx[0], 0xa5);
		lt_mr_free(&m);
		lt_end_destroy(&b);
		lt_end_destroy(&a);
	}
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/* A READ of this many bytes takes hundreds of packets: many engine passes. */
#define GT_LONG_ORDER	8
#define GT_LONG_BYTES	(PAGE_SIZE << GT_LONG_ORDER)

/*
 * A READ of 1 MiB (with 4 KiB pages), answered RXE_ENGINE_BUDGET
 * responses per engine pass, arrives whole; a SEND behind it on the
 * same QP pair is answered after it.
 */
void rc_read_long(struct rdma_ktap_ctx *ctx)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 0x4e9,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = LT_ACCESS_ALL,
	};
	struct lt_wr rd = {
		.op = IB_WR_RDMA_READ,
		.wr_id = 0x10e,
		.signaled = true,
		.len = GT_LONG_BYTES,
	};
	u8 *src = NULL, *dst = NULL;
	struct lt_end a = {}, b = {};
	struct ib_mr *mr = NULL;
	struct scatterlist sg;
	bool mapped = false;
	struct ib_wc wc;

	src = (u8 *)__get_free_pages(GFP_KERNEL, GT_LONG_ORDER);
	dst = (u8 *)__get_free_pages(GFP_KERNEL, GT_LONG_ORDER);
	if (!RDMA_KT_EXPECT(ctx, src && dst, "no memory") ||
	    !lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, 0x600, 0x700))
		goto out;
	lt_fill(src, GT_LONG_BYTES, 0x10);
	memset(dst, 0xa5, GT_LONG_BYTES);
	sg_init_one(&sg, src, GT_LONG_BYTES);
	if (!RDMA_KT_EQ(ctx, ib_dma_map_sg(lt_dev, &sg, 1, DMA_BIDIRECTIONAL),
			1))
		goto out;
	mapped = true;
	mr = ib_alloc_mr(lt_pd, IB_MR_TYPE_MEM_REG, 1 << GT_LONG_ORDER);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(mr), "ib_alloc_mr: %ld",
			    PTR_ERR(mr))) {
		mr = NULL;
		goto out;
	}
	if (!RDMA_KT_EQ(ctx, ib_map_mr_sg(mr, &sg, 1, NULL, PAGE_SIZE), 1))
		goto out;
	reg.mr = mr;
	reg.key = mr->rkey;
	if (!RDMA_KT_EQ(ctx, ib_post_send(b.qp, &reg.wr, NULL), 0) ||
	    !lt_expect_wc(ctx, b.scq, "REG_MR", reg.wr.wr_id, IB_WC_SUCCESS,
			  IB_WC_REG_MR, NULL))
		goto out;
	rd.laddr = (u64)(uintptr_t)dst;
	rd.raddr = mr->iova;
	rd.rkey = mr->rkey;
	if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &rd, NULL), 0) ||
	    !lt_expect_wc(ctx, a.scq, "READ of 1 MiB", rd.wr_id, IB_WC_SUCCESS,
			  IB_WC_RDMA_READ, &wc))
		goto out;
	lt_traffic.pkts += 1 + lt_npkts(GT_LONG_BYTES);
	RDMA_KT_EQ(ctx, wc.byte_len, GT_LONG_BYTES);
	lt_expect_data(ctx, dst, GT_LONG_BYTES, 0x10, "READ of 1 MiB");
	lt_send_recv(ctx, &a, &b, IB_WR_SEND, 100, 0x11, &wc);
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	if (mr)
		ib_dereg_mr(mr);
	if (mapped)
		ib_dma_unmap_sg(lt_dev, &sg, 1, DMA_BIDIRECTIONAL);
	if (src)
		free_pages((unsigned long)src, GT_LONG_ORDER);
	if (dst)
		free_pages((unsigned long)dst, GT_LONG_ORDER);
}

/* ---- what the verbs refuse ------------------------------------------------ */

/* A UD work request through an AH of another PD is refused at post time. */
void ud_foreign_ah(struct rdma_ktap_ctx *ctx)
{
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = 0xfa,
		.signaled = true,
		.len = 8,
	};
	struct ib_ah *ah = NULL;
	struct ib_pd *pd2;
	struct lt_end a = {};
	bool bad_first = false;

	pd2 = ib_alloc_pd(lt_dev, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(pd2), "ib_alloc_pd: %ld",
			    PTR_ERR(pd2)))
		return;
	if (!RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_UD, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_ud_ready(&a), 0))
		goto out;
	ah = lt_own_ah(ctx, pd2, false);
	if (!ah)
		goto out;
	w.ah = ah;
	w.rqpn = lt_qpn(&a);
	w.laddr = a.tx_dma;
	RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, &bad_first), -EINVAL);
	RDMA_KT_EXPECT(ctx, bad_first, "bad_wr does not name the request");
	lt_expect_quiet(ctx, a.scq, "send CQ after the refused request");
out:
	if (ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	lt_end_destroy(&a);
	ib_dealloc_pd(pd2);
}

/* IBK_SG_GAPS_REG promises IB_MR_TYPE_SG_GAPS MRs; without it there are none. */
void mr_sg_gaps_advertised(struct rdma_ktap_ctx *ctx)
{
	bool claimed = lt_dev->attrs.kernel_cap_flags & IBK_SG_GAPS_REG;
	struct ib_mr *mr;

	mr = ib_alloc_mr(lt_pd, IB_MR_TYPE_SG_GAPS, 4);
	RDMA_KT_EXPECT(ctx, claimed == !IS_ERR(mr),
		       "IBK_SG_GAPS_REG %s, ib_alloc_mr(IB_MR_TYPE_SG_GAPS): %d",
		       claimed ? "set" : "clear", PTR_ERR_OR_ZERO(mr));
	if (!IS_ERR(mr))
		ib_dereg_mr(mr);
}
