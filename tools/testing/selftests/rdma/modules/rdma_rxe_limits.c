// SPDX-License-Identifier: GPL-2.0
/*
 * The cases of rdma_rxe_loop_test about the limits query_device() reports:
 * each one tested here can be reached (objects of exactly that size or
 * that number work) and one past it is refused.
 *
 *  - the number of AHs of the device (max_ah)
 *  - the depth of a QP's send and receive queues (max_qp_wr): a receive
 *    queue takes exactly that many WQEs
 *  - the depth of an SRQ (max_srq_wr), and its scatter entries
 *    (max_srq_sge): a SEND lands in all of them
 *  - READs outstanding, each way (max_qp_init_rd_atom, max_qp_rd_atom):
 *    that many READs posted at once all complete
 *  - the responder resources of the whole device (max_res_rd_atom): RC
 *    QPs with max_qp_rd_atom each, until the device has given them all
 *  - multicast groups (max_mcast_grp) and the QPs of a group
 *    (max_mcast_qp_attach)
 *  - the page sizes of a fast-registered MR (page_size_cap): RDMA WRITEs
 *    and READs through MRs of 4 KiB, 64 KiB, 2 MiB and 2 GiB pages
 *
 * The device must be fresh: no other user holds objects of it meanwhile.
 */
#include <linux/slab.h>
#include <linux/unaligned.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include "rdma_rxe_loop.h"

/* ---- object counts --------------------------------------------------------- */

/*
 * max_ah AHs (the device holds no other: the cases before destroyed
 * theirs); the next one is refused with -EINVAL, and works again once one
 * is destroyed.
 */
void limit_ah_count(struct rdma_ktap_ctx *ctx)
{
	int max = lt_dev->attrs.max_ah, n = 0;
	struct rdma_ah_attr attr;
	struct ib_ah **ahs, *ah;

	if (!RDMA_KT_EXPECT(ctx, max > 0, "max_ah %d", max) ||
	    !lt_own_attr(ctx, &attr, false))
		return;
	ahs = kvcalloc(max, sizeof(*ahs), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, ahs, "no memory for %d AH pointers", max))
		return;
	while (n < max) {
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah))
			break;
		ahs[n++] = ah;
	}
	if (n == max) {
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(ah), -EINVAL) && !IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	} else {
		RDMA_KT_EXPECT(ctx, 0, "AH %d of %d: %ld", n + 1, max,
			       PTR_ERR(ah));
	}
	/* A slot given back is a slot to take again. */
	if (n) {
		rdma_destroy_ah(ahs[--n], RDMA_DESTROY_AH_SLEEPABLE);
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "AH after a destroy: %ld",
				   PTR_ERR(ah)))
			ahs[n++] = ah;
	}
	while (n)
		rdma_destroy_ah(ahs[--n], RDMA_DESTROY_AH_SLEEPABLE);
	kvfree(ahs);
}

/* ---- queue sizes ----------------------------------------------------------- */

/* Post @n receives of one 8-byte entry in chains of 256 on @qp or @srq. */
static int lim_post_recvs(struct ib_qp *qp, struct ib_srq *srq, u32 n,
			  u64 addr)
{
	struct ib_sge sge = {
		.addr = addr,
		.length = 8,
		.lkey = lt_pd->local_dma_lkey,
	};
	struct ib_recv_wr *wrs;
	u32 i, chunk;
	int ret = 0;

	wrs = kcalloc(256, sizeof(*wrs), GFP_KERNEL);
	if (!wrs)
		return -ENOMEM;
	while (n && !ret) {
		chunk = min(n, 256U);
		for (i = 0; i < chunk; i++) {
			wrs[i].wr_id = i;
			wrs[i].sg_list = &sge;
			wrs[i].num_sge = 1;
			wrs[i].next = i + 1 < chunk ? &wrs[i + 1] : NULL;
		}
		ret = srq ? ib_post_srq_recv(srq, wrs, NULL) :
			    ib_post_recv(qp, wrs, NULL);
		n -= chunk;
	}
	kfree(wrs);
	return ret;
}

static struct ib_qp *lim_create_qp(struct ib_cq *cq, u32 send_wr,
				   u32 recv_wr)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = send_wr,
			.max_recv_wr = recv_wr,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};

	return ib_create_qp(lt_pd, &init);
}

/*
 * A QP whose send queue, then one whose receive queue, is max_qp_wr deep
 * (one entry each: 24 + 16 bytes a receive WQE, about 200 bytes a send
 * WQE); the receive queue takes max_qp_wr WQEs and refuses the next with
 * -ENOMEM.  One more than max_qp_wr either way is refused with -EINVAL.
 */
void limit_qp_wr(struct rdma_ktap_ctx *ctx)
{
	u32 max = lt_dev->attrs.max_qp_wr;
	struct ib_qp_attr qa = {
		.qp_state = IB_QPS_INIT,
		.port_num = 1,
		.qkey = LT_QKEY,
	};
	struct ib_qp_init_attr qi;
	struct ib_cq *cq;
	struct ib_qp *qp;
	u64 *buf;

	buf = kzalloc(8, GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, buf, "no memory"))
		return;
	cq = ib_alloc_cq(lt_dev, NULL, 16, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq))) {
		kfree(buf);
		return;
	}

	qp = lim_create_qp(cq, max, 1);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "max_send_wr %u: %ld", max,
			   PTR_ERR(qp))) {
		if (RDMA_KT_EQ(ctx, ib_query_qp(qp, &qa, 0, &qi), 0))
			RDMA_KT_EQ(ctx, qi.cap.max_send_wr, max);
		ib_destroy_qp(qp);
	}

	qp = lim_create_qp(cq, 1, max);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "max_recv_wr %u: %ld", max,
			   PTR_ERR(qp))) {
		qa.qp_state = IB_QPS_INIT;
		if (RDMA_KT_EQ(ctx, ib_modify_qp(qp, &qa, IB_QP_STATE |
						 IB_QP_PKEY_INDEX | IB_QP_PORT |
						 IB_QP_QKEY), 0) &&
		    RDMA_KT_EQ(ctx, lim_post_recvs(qp, NULL, max, (uintptr_t)buf),
			       0))
			RDMA_KT_EQ(ctx, lim_post_recvs(qp, NULL, 1, (uintptr_t)buf),
				   -ENOMEM);
		ib_destroy_qp(qp);
	}

	qp = lim_create_qp(cq, max + 1, 1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EINVAL);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	qp = lim_create_qp(cq, 1, max + 1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(qp), -EINVAL);
	if (!IS_ERR(qp))
		ib_destroy_qp(qp);
	ib_free_cq(cq);
	kfree(buf);
}

static struct ib_srq *lim_create_srq(u32 max_wr, u32 max_sge)
{
	struct ib_srq_init_attr init = {
		.srq_type = IB_SRQT_BASIC,
		.attr = {
			.max_wr = max_wr,
			.max_sge = max_sge,
		},
	};

	return ib_create_srq(lt_pd, &init);
}

/*
 * An SRQ max_srq_wr deep takes that many WQEs and refuses the next with
 * -ENOMEM; one of max_srq_wr + 1 is refused with -EINVAL.
 */
void limit_srq_wr(struct rdma_ktap_ctx *ctx)
{
	u32 max = lt_dev->attrs.max_srq_wr;
	struct ib_srq_attr sa = {};
	struct ib_srq *srq;
	u64 *buf;

	buf = kzalloc(8, GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, buf, "no memory"))
		return;
	srq = lim_create_srq(max, 1);
	if (RDMA_KT_EXPECT(ctx, !IS_ERR(srq), "max_wr %u: %ld", max,
			   PTR_ERR(srq))) {
		if (RDMA_KT_EQ(ctx, ib_query_srq(srq, &sa), 0))
			RDMA_KT_EQ(ctx, sa.max_wr, max);
		if (RDMA_KT_EQ(ctx, lim_post_recvs(NULL, srq, max,
						   (uintptr_t)buf), 0))
			RDMA_KT_EQ(ctx, lim_post_recvs(NULL, srq, 1,
						       (uintptr_t)buf), -ENOMEM);
		ib_destroy_srq(srq);
	}
	srq = lim_create_srq(max + 1, 1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(srq), -EINVAL);
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);
	kfree(buf);
}

/* Bytes of each scatter entry of limit_srq_sge, and the gap after it */
#define LIM_SGE_LEN	8
#define LIM_SGE_GAP	8

/*
 * An SRQ of max_srq_sge scatter entries; an RC SEND of as many times
 * LIM_SGE_LEN bytes, received through it, lands in every entry (and not
 * in the gaps between them).  max_srq_sge + 1 entries are refused with
 * -EINVAL.
 */
void limit_srq_sge(struct rdma_ktap_ctx *ctx)
{
	u32 max = lt_dev->attrs.max_srq_sge, len = max * LIM_SGE_LEN, i;
	struct lt_wr w = {
		.op = IB_WR_SEND,
		.wr_id = 0x5a5,
		.signaled = true,
		.len = len,
	};
	struct ib_recv_wr rwr = { .wr_id = 0x5b5 };
	struct ib_sge *sges = NULL;
	struct lt_end a = {}, b = {};
	struct ib_srq_attr sa = {};
	struct ib_srq *srq;
	struct ib_wc wc;
	u8 *got = NULL;

	srq = lim_create_srq(4, max + 1);
	RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(srq), -EINVAL);
	if (!IS_ERR(srq))
		ib_destroy_srq(srq);

	srq = lim_create_srq(4, max);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(srq), "max_sge %u: %ld", max,
			    PTR_ERR(srq)))
		return;
	sges = kcalloc(max, sizeof(*sges), GFP_KERNEL);
	got = kmalloc(len, GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, sges && got, "no memory") ||
	    !RDMA_KT_EQ(ctx, ib_query_srq(srq, &sa), 0) ||
	    !RDMA_KT_EQ(ctx, sa.max_sge, max) ||
	    !RDMA_KT_EQ(ctx, len + max * LIM_SGE_GAP <= LT_BUF, 1) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&a, IB_QPT_RC, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create(&b, IB_QPT_RC, srq), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &a, lt_qpn(&b), 0x77, 0x33, 14),
			0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts(ctx, &b, lt_qpn(&a), 0x33, 0x77, 14),
			0))
		goto out;

	memset(b.rx, 0xa5, LT_BUF);
	for (i = 0; i < max; i++) {
		sges[i].addr = b.rx_dma + i * (LIM_SGE_LEN + LIM_SGE_GAP);
		sges[i].length = LIM_SGE_LEN;
		sges[i].lkey = lt_pd->local_dma_lkey;
	}
	rwr.sg_list = sges;
	rwr.num_sge = max;
	lt_fill(a.tx, len, 0x27);
	w.laddr = a.tx_dma;
	if (!RDMA_KT_EQ(ctx, ib_post_srq_recv(srq, &rwr, NULL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0) ||
	    !lt_expect_wc(ctx, a.scq, "SEND", w.wr_id, IB_WC_SUCCESS,
			  IB_WC_SEND, NULL) ||
	    !lt_expect_wc(ctx, b.rcq, "receive", rwr.wr_id, IB_WC_SUCCESS,
			  IB_WC_RECV, &wc) ||
	    !RDMA_KT_EQ(ctx, wc.byte_len, len))
		goto out;
	lt_traffic.sends++;
	lt_traffic.recvs++;
	lt_traffic.pkts += lt_npkts(len);
	for (i = 0; i < max; i++) {
		memcpy(got + i * LIM_SGE_LEN,
		       b.rx + i * (LIM_SGE_LEN + LIM_SGE_GAP), LIM_SGE_LEN);
		if (!RDMA_KT_EXPECT(ctx, !memchr_inv(b.rx + i * (LIM_SGE_LEN +
							       LIM_SGE_GAP) +
						      LIM_SGE_LEN, 0xa5,
						      LIM_SGE_GAP),
				    "the gap after entry %u was written", i))
			break;
	}
	lt_expect_data(ctx, got, len, 0x27, "the SEND, entry by entry");
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	ib_destroy_srq(srq);
	kfree(got);
	kfree(sges);
}

/* ---- READs and ATOMICs ----------------------------------------------------- */

/* Bytes of each READ of limit_rd_atomic */
#define LIM_READ_LEN	32

/*
 * max_dest_rd_atomic and max_rd_atomic one past the device's limits are
 * refused with -EINVAL.  A QP pair with the limits each way: as many READs
 * as max_qp_init_rd_atom, posted at once, all complete with the data.
 */
void limit_rd_atomic(struct rdma_ktap_ctx *ctx)
{
	u32 n = min(lt_dev->attrs.max_qp_init_rd_atom,
		    lt_dev->attrs.max_qp_rd_atom), i;
	struct lt_rc_opts o = {
		.sgid_idx = lt_idx4,
		.max_dest_rd_atomic = lt_dev->attrs.max_qp_rd_atom,
		.min_rnr_timer = 1,
		.timeout = 14,
		.retry_cnt = 7,
		.max_rd_atomic = lt_dev->attrs.max_qp_init_rd_atom,
	};
	struct lt_wr rd = {
		.op = IB_WR_RDMA_READ,
		.signaled = true,
		.len = LIM_READ_LEN,
	};
	struct ib_qp_init_attr qi;
	struct ib_qp_attr qa = {};
	struct lt_end a = {}, b = {};
	struct lt_mr m = {};
	char what[24];

	if (!RDMA_KT_EXPECT(ctx, n * LIM_READ_LEN <= min(LT_BUF, LT_MR_BYTES),
			    "%u READs of %u bytes do not fit", n,
			    LIM_READ_LEN) ||
	    !RDMA_KT_EQ(ctx, lt_end_create_depth(&a, IB_QPT_RC, NULL, n), 0) ||
	    !RDMA_KT_EQ(ctx, lt_end_create_depth(&b, IB_QPT_RC, NULL, n), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&b, LT_ACCESS_ALL), 0))
		goto out;

	/* One past either limit: refused, the QP stays in INIT. */
	if (!lt_path_attr(ctx, &qa.ah_attr, lt_idx4))
		goto out;
	qa.qp_state = IB_QPS_RTR;
	qa.path_mtu = lt_mtu_enum;
	qa.dest_qp_num = lt_qpn(&b);
	qa.min_rnr_timer = 1;
	qa.max_dest_rd_atomic = lt_dev->attrs.max_qp_rd_atom + 1;
	RDMA_KT_EQ(ctx, ib_modify_qp(a.qp, &qa, IB_QP_STATE | IB_QP_AV |
				     IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				     IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				     IB_QP_MIN_RNR_TIMER), -EINVAL);
	o.max_rd_atomic = lt_dev->attrs.max_qp_init_rd_atom + 1;
	RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, &a, lt_qpn(&b), 0x100, 0x200, &o),
		   -EINVAL);
	memset(&qa, 0, sizeof(qa));
	qa.qp_state = IB_QPS_RESET;
	o.max_rd_atomic = lt_dev->attrs.max_qp_init_rd_atom;
	if (!RDMA_KT_EQ(ctx, ib_modify_qp(a.qp, &qa, IB_QP_STATE), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_init(&a, LT_ACCESS_ALL), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, &a, lt_qpn(&b), 0x100, 0x200,
					    &o), 0) ||
	    !RDMA_KT_EQ(ctx, lt_to_rts_opts(ctx, &b, lt_qpn(&a), 0x200, 0x100,
					    &o), 0) ||
	    !RDMA_KT_EQ(ctx, ib_query_qp(b.qp, &qa, IB_QP_MAX_DEST_RD_ATOMIC,
					 &qi), 0) ||
	    !RDMA_KT_EQ(ctx, qa.max_dest_rd_atomic, lt_dev->attrs.max_qp_rd_atom) ||
	    !lt_mr_reg(ctx, &b, &m, LT_ACCESS_ALL))
		goto out;

	lt_fill(m.va, n * LIM_READ_LEN, 0x4d);
	memset(a.rx, 0xa5, LT_BUF);
	for (i = 0; i < n; i++) {
		rd.wr_id = 0x4d00 + i;
		rd.laddr = a.rx_dma + i * LIM_READ_LEN;
		rd.raddr = m.mr->iova + i * LIM_READ_LEN;
		rd.rkey = m.mr->rkey;
		if (!RDMA_KT_EQ(ctx, lt_post_send(a.qp, &rd, NULL), 0))
			goto out;
	}
	for (i = 0; i < n; i++) {
		snprintf(what, sizeof(what), "READ %u of %u", i + 1, n);
		if (!lt_expect_wc(ctx, a.scq, what, 0x4d00 + i, IB_WC_SUCCESS,
				  IB_WC_RDMA_READ, NULL))
			goto out;
	}
	lt_traffic.pkts += 2 * n;
	lt_expect_data(ctx, a.rx, n * LIM_READ_LEN, 0x4d, "what the READs read");
out:
	lt_mr_free(&m);
	lt_end_destroy(&b);
	lt_end_destroy(&a);
}

/*
 * RC QPs taken to RTR with max_qp_rd_atom responder resources each: the
 * device gives max_res_rd_atom of them in all (no other QP holds any),
 * then refuses with -EINVAL; a QP destroyed gives its share back.
 */
void limit_res_rd_atom(struct rdma_ktap_ctx *ctx)
{
	u32 per = lt_dev->attrs.max_qp_rd_atom;
	u32 want = per ? lt_dev->attrs.max_res_rd_atom / per : 0, n = 0;
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_RC,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_wr = 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp_attr qa = {}, ra = {};
	struct ib_qp **qps = NULL;
	struct ib_cq *cq;
	int ret = 0;

	if (!RDMA_KT_EXPECT(ctx, want > 0, "max_res_rd_atom %d, max_qp_rd_atom %u",
			    lt_dev->attrs.max_res_rd_atom, per) ||
	    !lt_path_attr(ctx, &ra.ah_attr, lt_idx4))
		return;
	cq = ib_alloc_cq(lt_dev, NULL, 4, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq)))
		return;
	init.send_cq = cq;
	init.recv_cq = cq;
	qps = kvcalloc(want + 1, sizeof(*qps), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, qps, "no memory for %u QP pointers", want + 1))
		goto out;

	qa.qp_state = IB_QPS_INIT;
	qa.port_num = 1;
	ra.qp_state = IB_QPS_RTR;
	ra.path_mtu = lt_mtu_enum;
	ra.min_rnr_timer = 1;
	ra.max_dest_rd_atomic = per;
	while (n <= want) {
		qps[n] = ib_create_qp(lt_pd, &init);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qps[n]), "QP %u: %ld", n + 1,
				    PTR_ERR(qps[n]))) {
			qps[n] = NULL;
			goto out;
		}
		ra.dest_qp_num = qps[n]->qp_num;
		if (!RDMA_KT_EQ(ctx, ib_modify_qp(qps[n], &qa, IB_QP_STATE |
						  IB_QP_PKEY_INDEX | IB_QP_PORT |
						  IB_QP_ACCESS_FLAGS), 0))
			goto out;
		ret = ib_modify_qp(qps[n++], &ra, IB_QP_STATE | IB_QP_AV |
				   IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				   IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				   IB_QP_MIN_RNR_TIMER);
		if (ret)
			break;
	}
	/* @want of them in RTR; the next one refused and still in INIT */
	if (!RDMA_KT_EQ(ctx, n, want + 1) || !RDMA_KT_EQ(ctx, ret, -EINVAL))
		goto out;
	ib_destroy_qp(qps[0]);
	qps[0] = NULL;
	RDMA_KT_EQ(ctx, ib_modify_qp(qps[want], &ra, IB_QP_STATE | IB_QP_AV |
				     IB_QP_PATH_MTU | IB_QP_DEST_QPN |
				     IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
				     IB_QP_MIN_RNR_TIMER), 0);
out:
	while (n--)
		if (qps[n])
			ib_destroy_qp(qps[n]);
	kvfree(qps);
	ib_free_cq(cq);
}

/* ---- multicast ----------------------------------------------------------- */

/*
 * Group @i of limit_mcast: ff0e::i:0:1.  They all share the Ethernet
 * address 33:33:00:00:00:01, so that the netdev's filter stays one entry.
 */
static void lim_mcast_gid(union ib_gid *gid, u32 i)
{
	memset(gid, 0, sizeof(*gid));
	gid->raw[0] = 0xff;
	gid->raw[1] = 0x0e;
	put_unaligned_be32(i, &gid->raw[8]);
	gid->raw[15] = 1;
}

/*
 * One UD QP in max_mcast_grp groups, the next group refused with -ENOMEM;
 * max_mcast_qp_attach QPs in one group, the next QP refused with -ENOMEM.
 * A group goes with its last QP: as many groups can be joined again.
 * Detaching a QP that is not in the group is refused with -EINVAL.
 */
void limit_mcast(struct rdma_ktap_ctx *ctx)
{
	u32 ngrp = lt_dev->attrs.max_mcast_grp;
	u32 nqp = lt_dev->attrs.max_mcast_qp_attach, i, round;
	struct ib_qp **qps = NULL, *qp;
	union ib_gid gid;
	struct ib_cq *cq;
	bool ok;

	if (!RDMA_KT_EXPECT(ctx, ngrp && nqp, "max_mcast_grp %u, max_mcast_qp_attach %u",
			    ngrp, nqp))
		return;
	cq = ib_alloc_cq(lt_dev, NULL, 4, 0, IB_POLL_DIRECT);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(cq), "ib_alloc_cq: %ld", PTR_ERR(cq)))
		return;
	qps = kcalloc(nqp + 1, sizeof(*qps), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, qps, "no memory"))
		goto out;

	/* Twice: the groups of the first round went with their QP. */
	for (round = 0; round < 2; round++) {
		qp = lim_create_qp(cq, 1, 1);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qp), "QP: %ld", PTR_ERR(qp)))
			goto out;
		for (i = 0; i < ngrp; i++) {
			lim_mcast_gid(&gid, i);
			if (!RDMA_KT_EQ(ctx, ib_attach_mcast(qp, &gid, 0), 0))
				break;
		}
		ok = i == ngrp;
		lim_mcast_gid(&gid, ngrp);
		if (ok)
			RDMA_KT_EQ(ctx, ib_attach_mcast(qp, &gid, 0), -ENOMEM);
		while (i--) {
			lim_mcast_gid(&gid, i);
			if (!RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &gid, 0), 0))
				ok = false;
		}
		/* the group went with it */
		RDMA_KT_EQ(ctx, ib_detach_mcast(qp, &gid, 0), -EINVAL);
		RDMA_KT_EQ(ctx, ib_destroy_qp(qp), 0);
		if (!ok)
			goto out;
	}

	/* Group 0 with as many QPs as it may have, then one more. */
	lim_mcast_gid(&gid, 0);
	for (i = 0; i <= nqp; i++) {
		qps[i] = lim_create_qp(cq, 1, 1);
		if (!RDMA_KT_EXPECT(ctx, !IS_ERR(qps[i]), "QP %u: %ld", i + 1,
				    PTR_ERR(qps[i]))) {
			qps[i] = NULL;
			goto out;
		}
		if (!RDMA_KT_EQ(ctx, ib_attach_mcast(qps[i], &gid, 0),
				i < nqp ? 0 : -ENOMEM))
			goto out;
	}
	/* Room again once one leaves; it cannot leave twice. */
	if (RDMA_KT_EQ(ctx, ib_detach_mcast(qps[0], &gid, 0), 0))
		RDMA_KT_EQ(ctx, ib_attach_mcast(qps[nqp], &gid, 0), 0);
	RDMA_KT_EQ(ctx, ib_detach_mcast(qps[0], &gid, 0), -EINVAL);
	for (i = 1; i <= nqp; i++)
		RDMA_KT_EQ(ctx, ib_detach_mcast(qps[i], &gid, 0), 0);
out:
	for (i = 0; qps && i <= nqp; i++)
		if (qps[i])
			ib_destroy_qp(qps[i]);
	kfree(qps);
	ib_free_cq(cq);
}

/* ---- MR page sizes ------------------------------------------------------- */

/* Two chunks of 64 KiB each, aligned to their size */
#define LIM_CHUNK_ORDER	4
#define LIM_CHUNK	(PAGE_SIZE << LIM_CHUNK_ORDER)

/*
 * Register @nents entries of @sg, on @owner's PD, as one MR of @page_size
 * pages with an IB_WR_REG_MR on @owner.
 */
static struct ib_mr *lim_mr_reg(struct rdma_ktap_ctx *ctx,
				struct lt_end *owner, struct scatterlist *sg,
				int nents, unsigned int page_size)
{
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = 0x9a6e,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = LT_ACCESS_ALL,
	};
	struct ib_mr *mr;

	mr = ib_alloc_mr(lt_pd, IB_MR_TYPE_MEM_REG, 2 * LIM_CHUNK / SZ_4K);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(mr), "ib_alloc_mr: %ld", PTR_ERR(mr)))
		return NULL;
	if (!RDMA_KT_EQ(ctx, ib_map_mr_sg(mr, sg, nents, NULL, page_size),
			nents) ||
	    !RDMA_KT_EQ(ctx, mr->length, nents * LIM_CHUNK))
		goto err;
	reg.mr = mr;
	reg.key = mr->rkey;
	if (RDMA_KT_EQ(ctx, ib_post_send(owner->qp, &reg.wr, NULL), 0) &&
	    lt_expect_wc(ctx, owner->scq, "REG_MR", reg.wr.wr_id,
			 IB_WC_SUCCESS, IB_WC_REG_MR, NULL))
		return mr;
err:
	ib_dereg_mr(mr);
	return NULL;
}

/*
 * Each page size of a fast-reg MR tested here is in page_size_cap.  For
 * 4 KiB and 64 KiB pages the MR is two 64 KiB chunks, for 2 MiB and 2 GiB
 * pages one (inside the first page, at its offset there).  A WRITE across
 * the middle of the MR (or its second half) lands in the chunks' memory,
 * and a READ of it brings the same bytes back.
 */
void limit_mr_page_sizes(struct rdma_ktap_ctx *ctx)
{
	static const unsigned int shifts[] = { 12, 16, 21, 31 };
	u32 len = min_t(u32, LT_BUF, 8192), off, i;
	struct lt_wr w = {
		.signaled = true,
		.len = len,
	};
	struct scatterlist sg[2];
	struct lt_end a = {}, b = {};
	u8 *chunk[2] = {};
	bool mapped = false;
	struct ib_mr *mr;
	int nents;
	char what[40];

	for (i = 0; i < 2; i++) {
		chunk[i] = (u8 *)__get_free_pages(GFP_KERNEL, LIM_CHUNK_ORDER);
		if (!RDMA_KT_EXPECT(ctx, chunk[i], "no memory for the chunks"))
			goto out;
	}
	sg_init_table(sg, 2);
	sg_set_buf(&sg[0], chunk[0], LIM_CHUNK);
	sg_set_buf(&sg[1], chunk[1], LIM_CHUNK);
	if (!RDMA_KT_EQ(ctx, ib_dma_map_sg(lt_dev, sg, 2, DMA_BIDIRECTIONAL),
			2))
		goto out;
	mapped = true;
	if (!lt_pair(ctx, &a, &b, IB_QPT_RC, LT_ACCESS_ALL, 0x600, 0x700))
		goto out;

	for (i = 0; i < ARRAY_SIZE(shifts); i++) {
		unsigned int page_size = 1U << shifts[i];

		if (!RDMA_KT_EXPECT(ctx, lt_dev->attrs.page_size_cap & page_size,
				    "page_size_cap %#llx lacks %#x",
				    lt_dev->attrs.page_size_cap, page_size))
			continue;
		/* Pages larger than a chunk: one chunk, inside the first page */
		nents = page_size <= LIM_CHUNK ? 2 : 1;
		mr = lim_mr_reg(ctx, &b, sg, nents, page_size);
		if (!mr)
			break;
		off = nents * LIM_CHUNK / 2 - len / 2;

		snprintf(what, sizeof(what), "WRITE, %u-byte pages", page_size);
		memset(chunk[0], 0xa5, LIM_CHUNK);
		memset(chunk[1], 0xa5, LIM_CHUNK);
		lt_fill(a.tx, len, shifts[i]);
		w.op = IB_WR_RDMA_WRITE;
		w.wr_id = 0x9a00 + i;
		w.laddr = a.tx_dma;
		w.raddr = mr->iova + off;
		w.rkey = mr->rkey;
		if (RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0) &&
		    lt_expect_wc(ctx, a.scq, what, w.wr_id, IB_WC_SUCCESS,
				 IB_WC_RDMA_WRITE, NULL)) {
			lt_traffic.pkts += lt_npkts(len);
			/* the bytes as the MR lays them out */
			if (nents == 2) {
				memcpy(a.rx, chunk[0] + off, len / 2);
				memcpy(a.rx + len / 2, chunk[1], len / 2);
			} else {
				memcpy(a.rx, chunk[0] + off, len);
			}
			lt_expect_data(ctx, a.rx, len, shifts[i], what);
			RDMA_KT_EXPECT(ctx, chunk[0][off - 1] == 0xa5 &&
				       chunk[nents - 1][(off + len) % LIM_CHUNK] ==
				       0xa5, "%s: written outside", what);
		}

		snprintf(what, sizeof(what), "READ, %u-byte pages", page_size);
		memset(a.rx, 0x5a, LT_BUF);
		w.op = IB_WR_RDMA_READ;
		w.wr_id = 0x9b00 + i;
		w.laddr = a.rx_dma;
		if (RDMA_KT_EQ(ctx, lt_post_send(a.qp, &w, NULL), 0) &&
		    lt_expect_wc(ctx, a.scq, what, w.wr_id, IB_WC_SUCCESS,
				 IB_WC_RDMA_READ, NULL)) {
			lt_traffic.pkts += 1 + lt_npkts(len);
			lt_expect_data(ctx, a.rx, len, shifts[i], what);
		}
		ib_dereg_mr(mr);
	}
out:
	lt_end_destroy(&b);
	lt_end_destroy(&a);
	if (mapped)
		ib_dma_unmap_sg(lt_dev, sg, 2, DMA_BIDIRECTIONAL);
	for (i = 0; i < 2; i++)
		if (chunk[i])
			free_pages((unsigned long)chunk[i], LIM_CHUNK_ORDER);
}
