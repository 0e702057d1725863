// SPDX-License-Identifier: GPL-2.0
/*
 * The completer: what comes back to a requester.  ACKs retire messages up
 * to their PSN, RDMA READ responses are scattered into the local buffers,
 * ATOMIC ACKs return the original value, an ATOMIC_WRITE is done at its
 * READ response without data; NAKs rewind the requester
 * (sequence error), make it wait (RNR) or fail the message and the QP
 * (access, invalid request, operational error).  The local ACK timeout
 * and the RNR timer end here too.  WQEs retire in SQ order, each with a
 * completion if it was signalled or failed.  Runs inside the QP's engine.
 */
#include "rxe.h"

static enum ib_wc_opcode rxe_wc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return IB_WC_COMP_SWAP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return IB_WC_FETCH_ADD;
	case IB_WR_ATOMIC_WRITE:
		return IB_WC_ATOMIC_WRITE;
	case IB_WR_REG_MR:
		return IB_WC_REG_MR;
	case IB_WR_LOCAL_INV:
		return IB_WC_LOCAL_INV;
	case IB_WR_BIND_MW:
		return IB_WC_BIND_MW;
	default:
		return IB_WC_SEND;
	}
}

static struct rxe_sq_entry *rxe_sq_at(struct rxe_qp *qp, u32 i)
{
	return &qp->sq.wqe[i & (qp->sq.size - 1)];
}

/**
 * rxe_comp_retire() - complete the finished WQEs at the head of the SQ
 * @qp: the QP; called by its engine only
 *
 * A failed WQE puts the QP into the error state after its completion.
 * A WQE's slot is free before its completion is posted, so that a
 * consumer that sees the completion can post again at once.
 */
void rxe_comp_retire(struct rxe_qp *qp)
{
	struct rxe_sq_entry *wqe;
	struct ib_wc wc;
	bool failed, signal;

	while (qp->sq.tail != qp->req.idx) {
		wqe = rxe_sq_at(qp, qp->sq.tail);
		if (wqe->state != RXE_WQE_DONE)
			break;
		failed = wqe->status != IB_WC_SUCCESS;
		signal = failed || qp->sig_all ||
			 (wqe->send_flags & IB_SEND_SIGNALED);
		if (signal) {
			memset(&wc, 0, sizeof(wc));
			wc.wr_id = wqe->wr_id;
			wc.status = wqe->status;
			wc.opcode = rxe_wc_opcode(wqe->opcode);
			wc.qp = &qp->ibqp;
			wc.byte_len = wqe->length;
			wc.port_num = 1;
		}
		if (wqe->opcode == IB_WR_SEND || wqe->opcode == IB_WR_SEND_WITH_IMM ||
		    wqe->opcode == IB_WR_SEND_WITH_INV)
			rxe_count(qp->rxe, RXE_CNT_RDMA_SENDS);
		if (rxe_psn_diff(qp->comp.psn, wqe->last_psn) <= 0 &&
		    !rxe_wr_is_local(wqe->opcode) && qp->type_mask == RXE_MASK_RC && !failed)
			qp->comp.psn = rxe_psn_add(wqe->last_psn, 1);
		/* the slot is free for post_send once tail moves past it */
		smp_store_release(&qp->sq.tail, qp->sq.tail + 1);
		if (qp->sq.uring)
			rxe_uqp_sq_retired(qp);
		if (signal)
			rxe_cq_post(qp->scq, &wc, false);
		if (failed) {
			rxe_qp_error(qp);
			break;
		}
	}
}

/* Fail the oldest unfinished WQE with @status and the QP with it. */
static void rxe_comp_fail(struct rxe_qp *qp, enum ib_wc_status status)
{
	struct rxe_sq_entry *wqe;
	u32 i;

	for (i = qp->sq.tail; i != qp->req.idx; i++) {
		wqe = rxe_sq_at(qp, i);
		if (wqe->state == RXE_WQE_DONE)
			continue;
		wqe->state = RXE_WQE_DONE;
		wqe->status = status;
		break;
	}
	rxe_comp_retire(qp);
	rxe_qp_error(qp);
}

static void rxe_comp_progress(struct rxe_qp *qp)
{
	qp->comp.rewound = false;
	qp->comp.retry_cnt = qp->attr.retry_cnt;
	qp->comp.rnr_retry = qp->attr.rnr_retry;
	if (rxe_psn_diff(qp->req.psn, qp->comp.psn) > 0)
		rxe_retrans_timer_arm(qp);
	else
		timer_delete(&qp->retrans_timer);
}

/*
 * Everything up to and including @psn was received: finish the SENDs and
 * WRITEs it covers.  Returns false if it covers an RDMA READ, ATOMIC or
 * ATOMIC_WRITE whose response never came (an implicit NAK).
 */
static bool rxe_comp_ack_upto(struct rxe_qp *qp, u32 psn)
{
	struct rxe_sq_entry *wqe;
	u32 i;

	for (i = qp->sq.tail; i != qp->req.idx; i++) {
		wqe = rxe_sq_at(qp, i);
		if (wqe->state == RXE_WQE_DONE)
			continue;
		if (wqe->state != RXE_WQE_SENT ||
		    rxe_psn_diff(wqe->last_psn, psn) > 0)
			break;
		if (rxe_wr_is_rd_atomic(wqe->opcode))
			return false;
		wqe->state = RXE_WQE_DONE;
		wqe->status = IB_WC_SUCCESS;
		qp->comp.psn = rxe_psn_add(wqe->last_psn, 1);
	}
	if (rxe_psn_diff(psn, qp->comp.psn) >= 0 &&
	    rxe_psn_diff(psn, qp->req.psn) < 0)
		qp->comp.psn = rxe_psn_add(psn, 1);
	return true;
}

/* The WQE a response at @psn belongs to, or NULL. */
static struct rxe_sq_entry *rxe_comp_wqe_of(struct rxe_qp *qp, u32 psn)
{
	struct rxe_sq_entry *wqe;
	u32 i;

	for (i = qp->sq.tail; i != qp->req.idx; i++) {
		wqe = rxe_sq_at(qp, i);
		if (wqe->state == RXE_WQE_DONE || wqe->state == RXE_WQE_POSTED)
			continue;
		if (rxe_psn_diff(psn, wqe->first_psn) >= 0 &&
		    rxe_psn_diff(psn, wqe->last_psn) <= 0)
			return wqe;
		if (rxe_psn_diff(psn, wqe->first_psn) < 0)
			return NULL;
	}
	return NULL;
}

static void rxe_comp_retry_now(struct rxe_qp *qp)
{
	if (!qp->comp.retry_cnt) {
		rxe_count(qp->rxe, RXE_CNT_RETRY_EXCEEDED);
		rxe_comp_fail(qp, IB_WC_RETRY_EXC_ERR);
		return;
	}
	qp->comp.retry_cnt--;
	qp->comp.rewound = true;
	rxe_count(qp->rxe, RXE_CNT_RETRY);
	rxe_req_retry(qp);
	rxe_retrans_timer_arm(qp);
}

/* The last response of a READ, ATOMIC or ATOMIC_WRITE, at @psn, arrived. */
static void rxe_comp_done_rd_atomic(struct rxe_qp *qp, struct rxe_sq_entry *wqe,
				    u32 psn)
{
	wqe->state = RXE_WQE_DONE;
	wqe->status = IB_WC_SUCCESS;
	if (qp->req.rd_atomic)
		qp->req.rd_atomic--;
	qp->comp.psn = rxe_psn_add(psn, 1);
	rxe_comp_progress(qp);
}

static void rxe_comp_read_resp(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	struct rxe_sq_entry *wqe;
	u32 off;

	if (pkt->psn != qp->comp.psn) {
		/*
		 * A response went missing: ask again from the gap, once; the
		 * rest of the old response stream is ignored until the
		 * resent request is answered (or the timer fires).
		 */
		if (rxe_psn_diff(pkt->psn, qp->comp.psn) > 0 &&
		    !qp->comp.rewound)
			rxe_comp_retry_now(qp);
		return;
	}
	wqe = rxe_comp_wqe_of(qp, pkt->psn);
	if (!wqe || wqe->state != RXE_WQE_SENT ||
	    (wqe->opcode != IB_WR_RDMA_READ && wqe->opcode != IB_WR_ATOMIC_WRITE))
		return;
	/* Earlier messages are acknowledged by this response. */
	if (!rxe_comp_ack_upto(qp, rxe_psn_add(wqe->first_psn, -1)))
		return;
	qp->comp.psn = pkt->psn;
	if (wqe->opcode == IB_WR_ATOMIC_WRITE) {
		/* acknowledged by a READ response of its own, without data */
		if (pkt->opcode != RXE_OP_READ_RESP_ONLY || pkt->paylen) {
			ibdev_dbg(&qp->rxe->ib_dev,
				  "QP %#x: ATOMIC_WRITE answered by opcode %#x with %u bytes\n",
				  rxe_qpn(qp), pkt->opcode, pkt->paylen);
			rxe_comp_fail(qp, IB_WC_LOC_LEN_ERR);
			return;
		}
		rxe_comp_done_rd_atomic(qp, wqe, pkt->psn);
		return;
	}
	off = (u32)rxe_psn_diff(pkt->psn, wqe->first_psn) * qp->mtu;
	if (rxe_check_seg_len(pkt, qp->mtu) || off + pkt->paylen > wqe->length ||
	    ((pkt->mask & RXE_MASK_LAST) && off + pkt->paylen != wqe->length)) {
		rxe_comp_fail(qp, IB_WC_LOC_LEN_ERR);
		return;
	}
	if (rxe_sge_copy(qp->rxe, qp->ibqp.pd, wqe->sge, wqe->num_sge, off,
			 (void *)rxe_pkt_payload(pkt), pkt->paylen, true)) {
		rxe_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	wqe->sent = off + pkt->paylen;
	if (pkt->mask & RXE_MASK_LAST) {
		rxe_comp_done_rd_atomic(qp, wqe, pkt->psn);
		return;
	}
	qp->comp.psn = rxe_psn_add(pkt->psn, 1);
	rxe_comp_progress(qp);
}

static void rxe_comp_atomic_ack(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	struct rxe_sq_entry *wqe;
	u64 orig;

	if (pkt->psn != qp->comp.psn) {
		if (rxe_psn_diff(pkt->psn, qp->comp.psn) > 0 &&
		    !qp->comp.rewound)
			rxe_comp_retry_now(qp);
		return;
	}
	wqe = rxe_comp_wqe_of(qp, pkt->psn);
	if (!wqe || wqe->state != RXE_WQE_SENT ||
	    (wqe->opcode != IB_WR_ATOMIC_CMP_AND_SWP &&
	     wqe->opcode != IB_WR_ATOMIC_FETCH_AND_ADD))
		return;
	orig = rxe_atmack_orig(rxe_pkt_ext(pkt, RXE_MASK_ATMACK));
	if (rxe_sge_copy(qp->rxe, qp->ibqp.pd, wqe->sge, wqe->num_sge, 0,
			 &orig, sizeof(orig), true)) {
		rxe_comp_fail(qp, IB_WC_LOC_PROT_ERR);
		return;
	}
	rxe_comp_done_rd_atomic(qp, wqe, pkt->psn);
}

static void rxe_comp_ack(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	u8 syn = rxe_aeth_syn(rxe_pkt_ext(pkt, RXE_MASK_AETH));
	u32 psn = pkt->psn;

	/*
	 * A NAK names the PSN the responder expects: one before the oldest
	 * unacknowledged PSN is stale (it was sent before a later ACK) and
	 * must not rewind the requester.
	 */
	if ((syn & RXE_AETH_TYPE_MASK) != RXE_AETH_ACK &&
	    rxe_psn_diff(psn, qp->comp.psn) < 0)
		return;

	switch (syn & RXE_AETH_TYPE_MASK) {
	case RXE_AETH_ACK:
		if (!rxe_comp_ack_upto(qp, psn))
			rxe_comp_retry_now(qp);	/* a READ/ATOMIC reply was lost */
		else
			rxe_comp_progress(qp);
		break;
	case RXE_AETH_RNR_NAK:
		rxe_count(qp->rxe, RXE_CNT_RNR_NAK_RCVD);
		rxe_comp_ack_upto(qp, rxe_psn_add(psn, -1));
		qp->comp.psn = psn;
		if (!qp->comp.rnr_retry) {
			rxe_count(qp->rxe, RXE_CNT_RNR_RETRY_EXCEEDED);
			rxe_comp_fail(qp, IB_WC_RNR_RETRY_EXC_ERR);
			break;
		}
		if (qp->comp.rnr_retry != 7)
			qp->comp.rnr_retry--;
		timer_delete(&qp->retrans_timer);
		qp->req.rnr_wait = true;
		rxe_req_retry(qp);
		if (!READ_ONCE(qp->destroyed))
			mod_timer(&qp->rnr_timer,
				  jiffies + max_t(unsigned long, 1,
						  usecs_to_jiffies(rxe_rnr_timer_usecs(syn))));
		break;
	case RXE_AETH_NAK:
		rxe_comp_ack_upto(qp, rxe_psn_add(psn, -1));
		switch (syn & 0x1f) {
		case RXE_NAK_PSN_SEQ:
			rxe_count(qp->rxe, RXE_CNT_SEQ_NAK_RCVD);
			/*
			 * While an RNR NAK is waited out, the requester resends
			 * from its PSN anyway: a sequence NAK the rest of that
			 * message drew is no reason to spend a retry.
			 */
			if (qp->req.rnr_wait && psn == qp->comp.psn)
				break;
			qp->comp.psn = psn;
			rxe_comp_retry_now(qp);
			break;
		case RXE_NAK_INVALID_REQ:
			rxe_comp_fail(qp, IB_WC_REM_INV_REQ_ERR);
			break;
		case RXE_NAK_REM_ACCESS:
			rxe_comp_fail(qp, IB_WC_REM_ACCESS_ERR);
			break;
		default:
			rxe_comp_fail(qp, IB_WC_REM_OP_ERR);
			break;
		}
		break;
	default:
		break;		/* reserved syndrome: ignore */
	}
}

/**
 * rxe_comp_process() - handle one response packet of an RC QP
 * @qp: the QP; called by its engine only
 * @skb: the packet, consumed
 */
void rxe_comp_process(struct rxe_qp *qp, struct sk_buff *skb)
{
	const struct rxe_pkt *pkt = &rxe_cb(skb)->pkt;
	enum ib_qp_state state = READ_ONCE(qp->state);

	if (qp->type_mask != RXE_MASK_RC ||
	    (state != IB_QPS_RTS && state != IB_QPS_SQD) ||
	    rxe_psn_diff(pkt->psn, qp->comp.psn) < -(int)RXE_MAX_UNACKED_PSNS ||
	    rxe_psn_diff(pkt->psn, qp->req.psn) >= 0) {
		/* stale, or a response to something never sent */
		rxe_drop(qp->rxe, skb, RXE_DROP_SEQ);
		return;
	}
	if (rxe_psn_diff(pkt->psn, qp->comp.psn) < 0 &&
	    pkt->opcode != RXE_OP_ACK) {
		rxe_drop(qp->rxe, skb, RXE_DROP_SEQ);	/* duplicate */
		return;
	}
	if (pkt->mask & RXE_MASK_READ)
		rxe_comp_read_resp(qp, pkt);
	else if (pkt->mask & RXE_MASK_ATOMIC)
		rxe_comp_atomic_ack(qp, pkt);
	else
		rxe_comp_ack(qp, pkt);
	consume_skb(skb);
}

/**
 * rxe_comp_timeouts() - act on the local ACK timeout and the RNR timer
 * @qp: the QP; called by its engine only
 */
void rxe_comp_timeouts(struct rxe_qp *qp)
{
	if (xchg(&qp->rnr_fired, false)) {
		qp->req.rnr_wait = false;
		rxe_retrans_timer_arm(qp);
	}
	if (xchg(&qp->timeout_fired, false) && !qp->req.rnr_wait &&
	    rxe_psn_diff(qp->req.psn, qp->comp.psn) > 0 &&
	    rxe_retrans_timer_expired(qp))
		rxe_comp_retry_now(qp);
}
