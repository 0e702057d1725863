// SPDX-License-Identifier: GPL-2.0
/*
 * The requester: turns send work requests into packets.  It runs inside a
 * QP's engine (rxe_qp_run()), walks the SQ from req.idx, segments each
 * message by the path MTU, numbers packets with PSNs and asks for an ACK
 * on the last packet of a message (and every RXE_ACK_EVERY packets).
 *
 * RC limits: at most RXE_MAX_UNACKED_PSNS PSNs in flight, at most
 * max_rd_atomic RDMA READs, ATOMICs and ATOMIC_WRITEs outstanding (each
 * waits for its response, rxe_wr_is_rd_atomic()), and IB_SEND_FENCE
 * waits for the outstanding ones.  UD and UC messages are done once sent;
 * a UD message larger than the MTU is done without being sent.
 * Local operations (IB_WR_REG_MR, IB_WR_LOCAL_INV, IB_WR_BIND_MW) execute
 * in SQ order.
 * In SQD the requester finishes (and resends) the WQEs it has begun, and
 * begins no other.
 */
#include "rxe.h"

/* Packets (and PSNs) a message uses. */
static u32 rxe_wqe_npkts(const struct rxe_qp *qp,
			 const struct rxe_sq_entry *wqe)
{
	if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	    wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)
		return 1;
	return max_t(u32, 1, DIV_ROUND_UP(wqe->length, qp->mtu));
}

/* The opcode of the next packet of @wqe, @n payload bytes from @sent on. */
static u8 rxe_req_opcode(const struct rxe_qp *qp,
			 const struct rxe_sq_entry *wqe, u32 n)
{
	bool first = wqe->sent == 0;
	bool last = wqe->sent + n >= wqe->length;
	u8 tp = qp->type_mask == RXE_MASK_UD ? RXE_TRANSPORT_UD :
		qp->type_mask == RXE_MASK_UC ? RXE_TRANSPORT_UC :
		RXE_TRANSPORT_RC;
	u8 op;

	switch (wqe->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		if (first && !last)
			return RXE_OPCODE(tp, RXE_OP_SEND_FIRST);
		if (!first && !last)
			return RXE_OPCODE(tp, RXE_OP_SEND_MIDDLE);
		op = first ? RXE_OP_SEND_ONLY : RXE_OP_SEND_LAST;
		if (wqe->opcode == IB_WR_SEND_WITH_IMM)
			op = first ? RXE_OP_SEND_ONLY_IMM : RXE_OP_SEND_LAST_IMM;
		else if (wqe->opcode == IB_WR_SEND_WITH_INV)
			op = first ? RXE_OP_SEND_ONLY_INV : RXE_OP_SEND_LAST_INV;
		return RXE_OPCODE(tp, op);
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		if (first && !last)
			return RXE_OPCODE(tp, RXE_OP_WRITE_FIRST);
		if (!first && !last)
			return RXE_OPCODE(tp, RXE_OP_WRITE_MIDDLE);
		op = first ? RXE_OP_WRITE_ONLY : RXE_OP_WRITE_LAST;
		if (wqe->opcode == IB_WR_RDMA_WRITE_WITH_IMM)
			op = first ? RXE_OP_WRITE_ONLY_IMM : RXE_OP_WRITE_LAST_IMM;
		return RXE_OPCODE(tp, op);
	case IB_WR_RDMA_READ:
		return RXE_OPCODE(tp, RXE_OP_READ_REQUEST);
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return RXE_OPCODE(tp, RXE_OP_CMP_SWAP);
	case IB_WR_ATOMIC_WRITE:
		return RXE_OPCODE(tp, RXE_OP_ATOMIC_WRITE);
	default:
		return RXE_OPCODE(tp, RXE_OP_FETCH_ADD);
	}
}

/* Copy @n bytes of the message from @off into @buf (gather list or inline). */
static int rxe_req_gather(struct rxe_qp *qp, struct rxe_sq_entry *wqe,
			  u32 off, u8 *buf, u32 n)
{
	if (!n)
		return 0;
	if (wqe->send_flags & IB_SEND_INLINE) {
		memcpy(buf, (u8 *)wqe->sge + off, n);
		return 0;
	}
	return rxe_sge_copy(qp->rxe, qp->ibqp.pd, wqe->sge, wqe->num_sge, off,
			    buf, n, false);
}

/* The local ACK timeout of @qp in jiffies; 0 when it waits for ever. */
static unsigned long rxe_ack_timeout_jiffies(const struct rxe_qp *qp)
{
	u64 us = rxe_ack_timeout_usecs(qp->attr.timeout);

	return us ? max_t(unsigned long, 2, usecs_to_jiffies(us)) : 0;
}

/**
 * rxe_retrans_timer_arm() - (re)start the local ACK timeout of an RC QP
 * @qp: the QP
 */
void rxe_retrans_timer_arm(struct rxe_qp *qp)
{
	unsigned long t = rxe_ack_timeout_jiffies(qp);

	if (qp->type_mask != RXE_MASK_RC || !t || READ_ONCE(qp->destroyed))
		return;
	mod_timer(&qp->retrans_timer, jiffies + t);
}

/**
 * rxe_retrans_timer_expired() - is the local ACK timeout really over?
 * @qp: the RC QP whose timer fired; called by its engine only
 *
 * The timeout counts from the last request packet sent, but the timer
 * is started by the first packet of a burst only (moving it for every
 * packet would cost a timer update each).  A message that takes longer
 * to send than the timeout (64 KiB on a slow host) would otherwise be
 * resent before its last packet could be acknowledged, again and again
 * until the retry count ran out.  When a packet went out since the
 * timer was started, the timer moves to that packet's deadline.
 *
 * Return: true when the timeout has passed since the last packet sent.
 */
bool rxe_retrans_timer_expired(struct rxe_qp *qp)
{
	unsigned long due = qp->req.sent_at + rxe_ack_timeout_jiffies(qp);

	if (!time_before(jiffies, due))
		return true;
	if (!READ_ONCE(qp->destroyed))
		mod_timer(&qp->retrans_timer, due);
	return false;
}

/* Build and send the next packet of @wqe.  Returns 0 or a negative errno. */
static int rxe_req_send_pkt(struct rxe_qp *qp, struct rxe_sq_entry *wqe)
{
	struct rxe_dev *rxe = qp->rxe;
	bool ud = qp->type_mask == RXE_MASK_UD;
	const struct rxe_dest *av = ud ? &wqe->av : &qp->av;
	u32 n = 0, mask, hdr_len, psn = qp->req.psn, dqpn;
	bool last, ackreq, se;
	struct sk_buff *skb;
	u8 opcode, *bth, *h;
	int ret;

	/* READ requests and CMP_SWAP/FETCH_ADD carry no payload */
	if (!rxe_wr_is_rd_atomic(wqe->opcode) ||
	    wqe->opcode == IB_WR_ATOMIC_WRITE)
		n = min(wqe->length - wqe->sent, qp->mtu);
	opcode = rxe_req_opcode(qp, wqe, n);
	mask = rxe_opcode_mask(opcode);
	hdr_len = rxe_opcode_hdr_len(mask);
	last = (mask & RXE_MASK_LAST) || rxe_wr_is_rd_atomic(wqe->opcode);
	ackreq = qp->type_mask == RXE_MASK_RC &&
		 (last || ++qp->req.noack >= RXE_ACK_EVERY);
	if (ackreq)
		qp->req.noack = 0;
	se = last && (wqe->send_flags & IB_SEND_SOLICITED);
	dqpn = ud ? wqe->remote_qpn : qp->attr.dest_qp_num;

	skb = rxe_pkt_alloc(rxe, av, hdr_len, n, &bth);
	if (!skb)
		return -ENOMEM;
	rxe_bth_build(bth, opcode, se, (-n) & 3, RXE_DEFAULT_PKEY, dqpn,
		      ackreq, psn);
	if (mask & RXE_MASK_DETH)
		rxe_deth_build(bth + rxe_hdr_offset(mask, RXE_MASK_DETH),
			       wqe->remote_qkey, rxe_qpn(qp));
	if (mask & RXE_MASK_RETH) {
		h = bth + rxe_hdr_offset(mask, RXE_MASK_RETH);
		if (wqe->opcode == IB_WR_RDMA_READ)
			rxe_reth_build(h, wqe->remote_addr + wqe->sent,
				       wqe->rkey, wqe->length - wqe->sent);
		else
			rxe_reth_build(h, wqe->remote_addr, wqe->rkey,
				       wqe->length);
	}
	if (mask & RXE_MASK_ATMETH) {
		h = bth + rxe_hdr_offset(mask, RXE_MASK_ATMETH);
		if (wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP)
			rxe_atmeth_build(h, wqe->remote_addr, wqe->rkey,
					 wqe->swap, wqe->compare_add);
		else
			rxe_atmeth_build(h, wqe->remote_addr, wqe->rkey,
					 wqe->compare_add, 0);
	}
	if (mask & RXE_MASK_IMMDT)
		memcpy(bth + rxe_hdr_offset(mask, RXE_MASK_IMMDT),
		       &wqe->imm_or_inv, RXE_IMMDT_BYTES);
	if (mask & RXE_MASK_IETH)
		rxe_put32(bth + rxe_hdr_offset(mask, RXE_MASK_IETH),
			  wqe->imm_or_inv);
	ret = rxe_req_gather(qp, wqe, wqe->sent, bth + hdr_len, n);
	if (ret) {
		kfree_skb(skb);
		return ret;
	}

	rxe_xmit(rxe, av, ud ? rdma_get_udp_sport(av->flow_label,
						  rxe_qpn(qp), dqpn) :
			       qp->src_port, skb);

	if (rxe_wr_is_rd_atomic(wqe->opcode)) {
		qp->req.rd_atomic++;
		qp->req.psn = rxe_psn_add(wqe->last_psn, 1);
		wqe->state = RXE_WQE_SENT;
	} else {
		wqe->sent += n;
		qp->req.psn = rxe_psn_add(psn, 1);
		if (last)
			wqe->state = RXE_WQE_SENT;
	}
	if (qp->type_mask == RXE_MASK_RC) {
		qp->req.sent_at = jiffies;
		if (!timer_pending(&qp->retrans_timer))
			rxe_retrans_timer_arm(qp);
	} else if (wqe->state == RXE_WQE_SENT) {
		wqe->state = RXE_WQE_DONE;
		wqe->status = IB_WC_SUCCESS;
	}
	return 0;
}

static void rxe_req_local_op(struct rxe_qp *qp, struct rxe_sq_entry *wqe)
{
	int ret;

	if (wqe->opcode == IB_WR_REG_MR) {
		struct ib_reg_wr reg = {
			.mr = wqe->reg.mr,
			.key = wqe->reg.key,
			.access = wqe->reg.access,
		};

		ret = rxe_mr_fast_reg(qp->rxe, qp->ibqp.pd, &reg);
	} else if (wqe->opcode == IB_WR_BIND_MW) {
		wqe->state = RXE_WQE_DONE;
		wqe->status = rxe_mw_bind(qp, wqe->bind.mw_rkey, wqe->bind.rkey,
					  wqe->bind.mr_lkey, wqe->bind.addr,
					  wqe->bind.length, wqe->bind.access);
		return;
	} else if (rxe_key_is_mw(wqe->imm_or_inv)) {
		ret = rxe_mw_invalidate(qp, wqe->imm_or_inv, false);
	} else {
		ret = rxe_mr_invalidate(qp->rxe, qp->ibqp.pd,
					wqe->imm_or_inv);
	}
	wqe->state = RXE_WQE_DONE;
	wqe->status = ret ? IB_WC_LOC_PROT_ERR : IB_WC_SUCCESS;
}

/* The WQE at req.idx is begun: SQD lets it finish (rxe_qp_sq_drained()). */
static void rxe_req_begin(struct rxe_qp *qp)
{
	if ((s32)(qp->req.idx - qp->req.started) >= 0)
		qp->req.started = qp->req.idx + 1;
}

/**
 * rxe_req_process() - send what the SQ and the RC limits allow
 * @qp: the QP; called by its engine only
 *
 * Return: the number of packets sent and local operations done.
 */
int rxe_req_process(struct rxe_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct rxe_sq_entry *wqe;
	int done = 0;
	u32 head;

	if (state != IB_QPS_RTS && state != IB_QPS_SQD)
		return 0;
	if (qp->req.rnr_wait)
		return 0;
	while (done < RXE_ENGINE_BUDGET) {
		/* pairs with the release in post_send: the WQE is filled */
		head = smp_load_acquire(&qp->sq.head);
		if (qp->req.idx == head)
			break;
		wqe = &qp->sq.wqe[qp->req.idx & (qp->sq.size - 1)];
		if (wqe->state == RXE_WQE_SENT) {
			qp->req.idx++;
			continue;
		}
		/*
		 * Done before it was sent: a user WQE refused at import, or
		 * one that finished before the requester rewound.  Its
		 * passing counts, so that the completer retires it.
		 */
		if (wqe->state == RXE_WQE_DONE) {
			qp->req.idx++;
			done++;
			continue;
		}
		if (state == IB_QPS_SQD &&
		    (s32)(qp->req.idx - qp->req.started) >= 0)
			break;
		if ((wqe->send_flags & IB_SEND_FENCE) && qp->req.rd_atomic)
			break;
		if (rxe_wr_is_local(wqe->opcode)) {
			rxe_req_begin(qp);
			rxe_req_local_op(qp, wqe);
			qp->req.idx++;
			done++;
			if (wqe->status != IB_WC_SUCCESS)
				break;
			continue;
		}
		if (qp->type_mask == RXE_MASK_UD && wqe->length > qp->mtu) {
			/*
			 * IBTA C10-93.1.1: a datagram larger than the port's
			 * MTU is not sent, and that is not an error either.
			 */
			wqe->state = RXE_WQE_DONE;
			wqe->status = IB_WC_SUCCESS;
			qp->req.idx++;
			done++;
			continue;
		}
		if (qp->type_mask == RXE_MASK_RC) {
			if (rxe_wr_is_rd_atomic(wqe->opcode) &&
			    qp->req.rd_atomic >= max_t(u32, 1, qp->attr.max_rd_atomic))
				break;
			if (rxe_psn_diff(qp->req.psn, qp->comp.psn) >=
			    RXE_MAX_UNACKED_PSNS)
				break;
		}
		if (wqe->state == RXE_WQE_POSTED) {
			wqe->first_psn = qp->req.psn;
			wqe->last_psn = rxe_psn_add(qp->req.psn,
						    rxe_wqe_npkts(qp, wqe) - 1);
			wqe->sent = 0;
			wqe->state = RXE_WQE_SENDING;
			rxe_req_begin(qp);
		}
		if (rxe_req_send_pkt(qp, wqe)) {
			if (qp->type_mask == RXE_MASK_RC) {
				/* Treated as lost: the timer sends it again. */
				rxe_retrans_timer_arm(qp);
				break;
			}
			/* A datagram that could not be built is lost. */
			wqe->state = RXE_WQE_DONE;
			wqe->status = IB_WC_SUCCESS;
		}
		if (wqe->state != RXE_WQE_SENDING)
			qp->req.idx++;
		done++;
	}
	return done;
}

/**
 * rxe_req_retry() - go back to the oldest unacknowledged PSN and resend
 * @qp: an RC QP; called by its engine (completer) only
 *
 * A message acknowledged in part resumes at the first unacknowledged
 * packet; an RDMA READ answered in part asks again for what is missing.
 */
void rxe_req_retry(struct rxe_qp *qp)
{
	/* pairs with the release in post_send: WQEs up to head are filled */
	u32 i, head = smp_load_acquire(&qp->sq.head);
	struct rxe_sq_entry *wqe;
	int done;

	qp->req.idx = qp->sq.tail;
	qp->req.psn = qp->comp.psn;
	qp->req.rd_atomic = 0;
	qp->req.noack = 0;
	for (i = qp->sq.tail; i != head; i++) {
		wqe = &qp->sq.wqe[i & (qp->sq.size - 1)];
		if (wqe->state == RXE_WQE_DONE || wqe->state == RXE_WQE_POSTED)
			continue;
		done = rxe_psn_diff(qp->comp.psn, wqe->first_psn);
		if (done > 0 && !(wqe->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
				  wqe->opcode == IB_WR_ATOMIC_FETCH_AND_ADD)) {
			wqe->sent = done * qp->mtu;
			wqe->state = RXE_WQE_SENDING;
		} else {
			wqe->sent = 0;
			wqe->state = RXE_WQE_POSTED;
		}
	}
}
