// SPDX-License-Identifier: GPL-2.0
/*
 * The responder: requests that arrive at a QP.
 *
 * UD datagrams, which the receive path checked against their QP, are
 * delivered straight from the receive softirq (rxe_resp_ud()): a receive
 * WQE, the GRH or IPv4 header in the first 40 bytes of the buffer, the
 * payload after it, a completion.
 *
 * RC and UC requests are handled by the QP's engine in PSN order
 * (rxe_resp_process()).  RC: an expected PSN executes the request and is
 * acknowledged when the requester asked; a later PSN gets one sequence
 * NAK until the gap is filled; an earlier one is a duplicate (SEND/WRITE:
 * ACK again; READ, ATOMIC and ATOMIC_WRITE: answered again only if one of
 * the QP's max_dest_rd_atomic responder resources remembers the request,
 * else dropped).  A SEND without a receive WQE gets an RNR NAK; a bad key,
 * length or rights a NAK that also moves the QP to error.  UC: no
 * acknowledgements; a gap drops the rest of the message.
 *
 * Memory is reached through rxe_mr_copy() and friends for every packet,
 * never through an MR found for an earlier one.  An RDMA READ is answered
 * as a stream of at most RXE_ENGINE_BUDGET packets per engine pass
 * (rxe_resp_read_more()).
 */
#include <linux/etherdevice.h>
#include <linux/ip.h>
#include <linux/ipv6.h>

#include "rxe.h"

/* ---- UD ----------------------------------------------------------------- */

static void rxe_fill_net_hdr(struct sk_buff *skb, bool ipv6, u8 *hdr)
{
	if (ipv6) {
		memcpy(hdr, skb_network_header(skb), RXE_IPV6_BYTES);
	} else {
		memset(hdr, 0, RXE_GRH_BYTES - RXE_IPV4_BYTES);
		memcpy(hdr + RXE_GRH_BYTES - RXE_IPV4_BYTES,
		       skb_network_header(skb), RXE_IPV4_BYTES);
	}
}

/**
 * rxe_resp_ud() - deliver a UD datagram
 * @qp: the destination QP, referenced by the caller
 * @skb: the packet, consumed
 * @pkt: its parsed headers
 *
 * The receive path checked the QP's state, the Q_Key and the length.
 *
 * Context: softirq.
 */
void rxe_resp_ud(struct rxe_qp *qp, struct sk_buff *skb,
		 const struct rxe_pkt *pkt)
{
	struct rxe_dev *rxe = qp->rxe;
	const u8 *deth = rxe_pkt_ext(pkt, RXE_MASK_DETH);
	bool ipv6 = rxe_cb(skb)->ipv6;
	struct ib_sge sge[RXE_MAX_SGE];
	struct rxe_rq_entry wqe;
	u8 hdr[RXE_GRH_BYTES];
	struct ib_wc wc = {};

	if (!rxe_qp_take_recv(qp, &wqe, sge)) {
		rxe_drop(rxe, skb, RXE_DROP_NO_RECV);
		return;
	}

	wc.wr_id = wqe.wr_id;
	wc.qp = &qp->ibqp;
	wc.opcode = IB_WC_RECV;
	wc.port_num = 1;
	wc.src_qp = rxe_deth_sqp(deth);
	wc.pkey_index = 0;
	wc.network_hdr_type = ipv6 ? RDMA_NETWORK_IPV6 : RDMA_NETWORK_IPV4;
	wc.wc_flags = IB_WC_GRH | IB_WC_WITH_NETWORK_HDR_TYPE;
	if (rxe_cb(skb)->vlan_id != RXE_NO_VLAN) {
		wc.vlan_id = rxe_cb(skb)->vlan_id;
		wc.wc_flags |= IB_WC_WITH_VLAN;
	}
	if (skb_mac_header_was_set(skb) &&
	    skb_mac_header_len(skb) >= ETH_HLEN) {
		ether_addr_copy(wc.smac, eth_hdr(skb)->h_source);
		wc.wc_flags |= IB_WC_WITH_SMAC;
	}
	if (pkt->mask & RXE_MASK_IMMDT) {
		memcpy(&wc.ex.imm_data, rxe_pkt_ext(pkt, RXE_MASK_IMMDT),
		       RXE_IMMDT_BYTES);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	wc.byte_len = RXE_GRH_BYTES + pkt->paylen;
	if (wc.byte_len > wqe.length) {
		wc.status = IB_WC_LOC_LEN_ERR;
	} else {
		rxe_fill_net_hdr(skb, ipv6, hdr);
		if (rxe_sge_copy(rxe, qp->ibqp.pd, wqe.sge, wqe.num_sge, 0, hdr,
				 RXE_GRH_BYTES, true) ||
		    rxe_sge_copy(rxe, qp->ibqp.pd, wqe.sge, wqe.num_sge,
				 RXE_GRH_BYTES, (void *)rxe_pkt_payload(pkt),
				 pkt->paylen, true))
			wc.status = IB_WC_LOC_PROT_ERR;
		else
			wc.status = IB_WC_SUCCESS;
	}
	if (wc.status == IB_WC_SUCCESS)
		rxe_count(rxe, RXE_CNT_RDMA_RECVS);
	rxe_cq_post(qp->rcq, &wc, rxe_bth_se(pkt->hdr));
	consume_skb(skb);
}

/* ---- RC and UC: replies ---------------------------------------------------- */

static void rxe_resp_send_ack(struct rxe_qp *qp, u8 opcode, u8 syn, u32 psn,
			      const u64 *orig)
{
	u32 mask = rxe_opcode_mask(opcode);
	u32 hdr_len = rxe_opcode_hdr_len(mask);
	struct sk_buff *skb;
	u8 *bth;

	skb = rxe_pkt_alloc(qp->rxe, &qp->av, hdr_len, 0, &bth);
	if (!skb)
		return;
	rxe_bth_build(bth, opcode, false, 0, RXE_DEFAULT_PKEY,
		      qp->attr.dest_qp_num, false, psn);
	rxe_aeth_build(bth + rxe_hdr_offset(mask, RXE_MASK_AETH), syn,
		       qp->resp.msn);
	if (orig)
		rxe_put64(bth + rxe_hdr_offset(mask, RXE_MASK_ATMACK), *orig);
	rxe_xmit(qp->rxe, &qp->av, qp->src_port, skb);
}

static void rxe_resp_nak(struct rxe_qp *qp, u8 code, u32 psn)
{
	rxe_resp_send_ack(qp, RXE_OP_ACK, RXE_AETH_NAK | code, psn, NULL);
}

/* A NAK that ends the connection: the QP goes to the error state. */
static void rxe_resp_fatal(struct rxe_qp *qp, u8 code, u32 psn)
{
	ibdev_dbg(&qp->rxe->ib_dev, "QP %#x: request at PSN %#x refused, NAK code %u\n",
		  rxe_qpn(qp), psn, code);
	if (qp->type_mask == RXE_MASK_RC)
		rxe_resp_nak(qp, code, psn);
	rxe_qp_error(qp);
}

static void rxe_resp_ack(struct rxe_qp *qp, u32 psn)
{
	rxe_resp_send_ack(qp, RXE_OP_ACK, RXE_AETH_ACK | RXE_AETH_NO_CREDITS,
			  psn, NULL);
}

/* Packets (and PSNs) of a READ response of @len bytes. */
static u32 rxe_resp_npkts(const struct rxe_qp *qp, u32 len)
{
	return len ? DIV_ROUND_UP_ULL((u64)len, qp->mtu) : 1;
}

/*
 * Send the next packet of the READ response stream.  Returns false if
 * the stream ended early: no memory (the requester asks again), or the
 * MR refused (the QP is in error).
 */
static bool rxe_resp_read_pkt(struct rxe_qp *qp, struct rxe_rd_stream *rd)
{
	u32 n = min(rd->left, qp->mtu), mask;
	bool last = rd->psn == rd->last_psn;
	struct sk_buff *skb;
	u8 op, *bth;

	if (rd->at_first)
		op = last ? RXE_OP_READ_RESP_ONLY : RXE_OP_READ_RESP_FIRST;
	else
		op = last ? RXE_OP_READ_RESP_LAST : RXE_OP_READ_RESP_MIDDLE;
	mask = rxe_opcode_mask(op);
	skb = rxe_pkt_alloc(qp->rxe, &qp->av, rxe_opcode_hdr_len(mask), n, &bth);
	if (!skb) {
		rd->active = false;
		return false;
	}
	rxe_bth_build(bth, op, false, (-n) & 3, RXE_DEFAULT_PKEY,
		      qp->attr.dest_qp_num, false, rd->psn);
	if (mask & RXE_MASK_AETH)
		rxe_aeth_build(bth + rxe_hdr_offset(mask, RXE_MASK_AETH),
			       RXE_AETH_ACK | RXE_AETH_NO_CREDITS, qp->resp.msn);
	if (n && rxe_mr_copy(qp, rd->rkey, IB_ACCESS_REMOTE_READ, rd->va,
			     bth + rxe_opcode_hdr_len(mask), n, false)) {
		/* The MR was invalidated or deregistered under the READ. */
		kfree_skb(skb);
		rd->active = false;
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, rd->psn);
		return false;
	}
	rxe_xmit(qp->rxe, &qp->av, qp->src_port, skb);
	rd->at_first = false;
	rd->va += n;
	rd->left -= n;
	if (last)
		rd->active = false;
	else
		rd->psn = rxe_psn_add(rd->psn, 1);
	return true;
}

/**
 * rxe_resp_read_more() - send the next READ responses of a QP
 * @qp: the QP; called by its engine only
 *
 * Sends at most RXE_ENGINE_BUDGET packets, so that one READ, however
 * long, leaves the engine (and bottom halves) to others between passes.
 *
 * Return: true if a READ is still being answered: requests behind it must
 * wait.
 */
bool rxe_resp_read_more(struct rxe_qp *qp)
{
	struct rxe_rd_stream *rd = &qp->resp.rd;
	unsigned int budget = RXE_ENGINE_BUDGET;

	while (rd->active && budget-- && rxe_resp_read_pkt(qp, rd))
		;
	return rd->active;
}

/* Set up the responses of a READ; the engine sends them (rxe_qp_step()). */
static void rxe_resp_read_start(struct rxe_qp *qp, u32 rkey, u64 va, u32 len,
				u32 psn, u32 last_psn, bool at_first)
{
	qp->resp.rd = (struct rxe_rd_stream) {
		.active = true,
		.at_first = at_first,
		.rkey = rkey,
		.va = va,
		.left = len,
		.psn = psn,
		.last_psn = last_psn,
	};
}

/* The READ or ATOMIC(_WRITE) executed whose PSNs include @psn, if remembered. */
static struct rxe_rd_res *rxe_resp_find_res(struct rxe_qp *qp, u32 psn)
{
	struct rxe_rd_res *res;
	unsigned int i;

	for (i = 0; i < qp->attr.max_dest_rd_atomic; i++) {
		res = &qp->rd_res[i];
		if (res->valid && rxe_psn_diff(psn, res->first_psn) >= 0 &&
		    rxe_psn_diff(psn, res->last_psn) <= 0)
			return res;
	}
	return NULL;
}

/*
 * Remember a READ, ATOMIC or ATOMIC_WRITE (@op, its RXE_OP_*) for its
 * duplicates, in one of the QP's max_dest_rd_atomic slots; the oldest is
 * forgotten first.
 */
static struct rxe_rd_res *rxe_resp_new_res(struct rxe_qp *qp, u8 op,
					   u32 first_psn, u32 last_psn)
{
	u32 slots = qp->attr.max_dest_rd_atomic;
	struct rxe_rd_res *res = &qp->rd_res[qp->resp.res_head % slots];

	qp->resp.res_head = (qp->resp.res_head + 1) % slots;
	memset(res, 0, sizeof(*res));
	res->valid = true;
	res->op = op;
	res->first_psn = first_psn;
	res->last_psn = last_psn;
	return res;
}

/*
 * The checks a new READ or ATOMIC shares: the QP grants @access and has
 * responder resources (max_dest_rd_atomic 0 means it takes neither).
 */
static bool rxe_resp_rd_atomic_ok(struct rxe_qp *qp, const struct rxe_pkt *pkt,
				  int access)
{
	if (!qp->attr.max_dest_rd_atomic) {
		ibdev_dbg(&qp->rxe->ib_dev,
			  "QP %#x: READ/ATOMIC without responder resources\n",
			  rxe_qpn(qp));
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	if (!(qp->attr.qp_access_flags & access)) {
		ibdev_dbg(&qp->rxe->ib_dev, "QP %#x: access %#x not granted\n",
			  rxe_qpn(qp), access);
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	return true;
}

/* A new RDMA READ request: checked whole, then answered as a stream. */
static void rxe_resp_read_new(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	const u8 *reth = rxe_pkt_ext(pkt, RXE_MASK_RETH);
	u32 rkey = rxe_reth_rkey(reth), len = rxe_reth_len(reth);
	u64 va = rxe_reth_va(reth);
	struct rxe_rd_res *res;

	if (!rxe_resp_rd_atomic_ok(qp, pkt, IB_ACCESS_REMOTE_READ))
		return;
	if (len > qp->rxe->port_attr.max_msg_sz) {
		ibdev_dbg(&qp->rxe->ib_dev, "QP %#x: READ of %u bytes refused\n",
			  rxe_qpn(qp), len);
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return;
	}
	if (len && rxe_mr_check(qp, rkey, IB_ACCESS_REMOTE_READ, va, len)) {
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, pkt->psn);
		return;
	}
	res = rxe_resp_new_res(qp, RXE_OP_READ_REQUEST, pkt->psn,
			       rxe_psn_add(pkt->psn,
					   rxe_resp_npkts(qp, len) - 1));
	res->va = va;
	res->rkey = rkey;
	res->length = len;
	qp->resp.msn++;
	qp->resp.psn = rxe_psn_add(res->last_psn, 1);
	rxe_resp_read_start(qp, rkey, va, len, pkt->psn, res->last_psn, true);
}

/*
 * A duplicate READ: the requester asks again, from the PSN of the first
 * response it is missing to the end of a READ this responder executed
 * and still remembers.  Anything else (an unknown PSN, a range beyond
 * the original) is dropped.  Returns false if it was dropped.
 */
static bool rxe_resp_read_dup(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	const u8 *reth = rxe_pkt_ext(pkt, RXE_MASK_RETH);
	u32 rkey = rxe_reth_rkey(reth), len = rxe_reth_len(reth);
	u64 va = rxe_reth_va(reth), skip;
	struct rxe_rd_res *res = rxe_resp_find_res(qp, pkt->psn);

	if (!res || res->op != RXE_OP_READ_REQUEST)
		return false;
	skip = (u64)rxe_psn_diff(pkt->psn, res->first_psn) * qp->mtu;
	if (rkey != res->rkey || va != res->va + skip ||
	    (u64)len + skip != res->length)
		return false;
	rxe_count(qp->rxe, RXE_CNT_DUP_REQ);
	rxe_resp_read_start(qp, rkey, va, len, pkt->psn, res->last_psn,
			    pkt->psn == res->first_psn);
	return true;
}

static bool rxe_resp_atomic(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	const u8 *h = rxe_pkt_ext(pkt, RXE_MASK_ATMETH);
	u64 va = rxe_atmeth_va(h), orig;
	struct rxe_rd_res *res;
	int ret;

	if (!rxe_resp_rd_atomic_ok(qp, pkt, IB_ACCESS_REMOTE_ATOMIC))
		return false;
	if (va & 7) {
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	ret = rxe_mr_atomic(qp, rxe_atmeth_rkey(h), va,
			    pkt->opcode == RXE_OP_CMP_SWAP, rxe_atmeth_comp(h),
			    rxe_atmeth_swap_add(h), &orig);
	if (ret) {
		rxe_resp_fatal(qp, ret == -EINVAL ? RXE_NAK_INVALID_REQ :
						    RXE_NAK_REM_ACCESS,
			       pkt->psn);
		return false;
	}
	res = rxe_resp_new_res(qp, pkt->opcode & 0x1f, pkt->psn, pkt->psn);
	res->orig = orig;
	qp->resp.msn++;
	rxe_resp_send_ack(qp, RXE_OP_ATOMIC_ACK,
			  RXE_AETH_ACK | RXE_AETH_NO_CREDITS, pkt->psn, &orig);
	return true;
}

/*
 * An ATOMIC_WRITE: its 8 bytes are stored in one go, never torn, and it
 * is answered like a READ of nothing (an RDMA_READ_RESPONSE_ONLY without
 * payload) once they are in place.
 */
static bool rxe_resp_atomic_write(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	const u8 *reth = rxe_pkt_ext(pkt, RXE_MASK_RETH);
	u64 va = rxe_reth_va(reth), val;
	int ret;

	if (!rxe_resp_rd_atomic_ok(qp, pkt, IB_ACCESS_REMOTE_WRITE))
		return false;
	if (rxe_reth_len(reth) != sizeof(u64) || pkt->paylen != sizeof(u64) ||
	    (va & 7)) {
		ibdev_dbg(&qp->rxe->ib_dev,
			  "QP %#x: ATOMIC_WRITE of %u bytes (%u carried) at %#llx refused\n",
			  rxe_qpn(qp), rxe_reth_len(reth), pkt->paylen, va);
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	memcpy(&val, rxe_pkt_payload(pkt), sizeof(val));
	ret = rxe_mr_atomic_write(qp, rxe_reth_rkey(reth), va, val);
	if (ret) {
		rxe_resp_fatal(qp, ret == -EINVAL ? RXE_NAK_INVALID_REQ :
						    RXE_NAK_REM_ACCESS,
			       pkt->psn);
		return false;
	}
	rxe_resp_new_res(qp, RXE_OP_ATOMIC_WRITE, pkt->psn, pkt->psn);
	qp->resp.msn++;
	rxe_resp_send_ack(qp, RXE_OP_READ_RESP_ONLY,
			  RXE_AETH_ACK | RXE_AETH_NO_CREDITS, pkt->psn, NULL);
	return true;
}

/* A request with an older PSN.  Returns false if it is to be dropped. */
static bool rxe_resp_duplicate(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	struct rxe_rd_res *res;

	if (pkt->mask & RXE_MASK_READ)
		return rxe_resp_read_dup(qp, pkt);
	if (pkt->mask & (RXE_MASK_ATOMIC | RXE_MASK_ATOMIC_WRITE)) {
		/* executed once: its response is sent again, never the op */
		res = rxe_resp_find_res(qp, pkt->psn);
		if (!res || res->op != (pkt->opcode & 0x1f) ||
		    res->first_psn != pkt->psn)
			return false;
		rxe_count(qp->rxe, RXE_CNT_DUP_REQ);
		if (pkt->mask & RXE_MASK_ATOMIC_WRITE)
			rxe_resp_send_ack(qp, RXE_OP_READ_RESP_ONLY,
					  RXE_AETH_ACK | RXE_AETH_NO_CREDITS,
					  pkt->psn, NULL);
		else
			rxe_resp_send_ack(qp, RXE_OP_ATOMIC_ACK,
					  RXE_AETH_ACK | RXE_AETH_NO_CREDITS,
					  pkt->psn, &res->orig);
		return true;
	}
	rxe_count(qp->rxe, RXE_CNT_DUP_REQ);
	rxe_resp_ack(qp, rxe_psn_add(qp->resp.psn, -1));
	return true;
}

/* ---- RC and UC: SEND and WRITE ---------------------------------------------- */

static void rxe_resp_complete_recv(struct rxe_qp *qp,
				   const struct rxe_pkt *pkt,
				   enum ib_wc_opcode op, u32 len,
				   enum ib_wc_status status)
{
	struct ib_wc wc = {
		.wr_id = qp->resp.wqe.wr_id,
		.status = status,
		.opcode = op,
		.byte_len = len,
		.qp = &qp->ibqp,
		.src_qp = qp->attr.dest_qp_num,
		.port_num = 1,
	};

	if (pkt->mask & RXE_MASK_IMMDT) {
		memcpy(&wc.ex.imm_data, rxe_pkt_ext(pkt, RXE_MASK_IMMDT),
		       RXE_IMMDT_BYTES);
		wc.wc_flags |= IB_WC_WITH_IMM;
	}
	if (pkt->mask & RXE_MASK_IETH) {
		wc.ex.invalidate_rkey = rxe_get32(rxe_pkt_ext(pkt,
							      RXE_MASK_IETH));
		wc.wc_flags |= IB_WC_WITH_INVALIDATE;
	}
	qp->resp.in_send = false;
	qp->resp.have_wqe = false;
	if (status == IB_WC_SUCCESS)
		rxe_count(qp->rxe, RXE_CNT_RDMA_RECVS);
	rxe_cq_post(qp->rcq, &wc, rxe_bth_se(pkt->hdr));
}

/* Take a receive WQE; RC answers an RNR NAK when there is none. */
static bool rxe_resp_get_wqe(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	if (qp->resp.have_wqe ||
	    rxe_qp_take_recv(qp, &qp->resp.wqe, qp->resp.sge)) {
		qp->resp.have_wqe = true;
		qp->resp.in_send = true;
		qp->resp.offset = 0;
		return true;
	}
	if (qp->type_mask == RXE_MASK_RC) {
		/*
		 * The rest of the message follows the packet refused; like
		 * after a sequence NAK, it is dropped without a NAK of its
		 * own until the requester sends the expected PSN again.
		 */
		qp->resp.nak_sent = true;
		rxe_count(qp->rxe, RXE_CNT_RNR_NAK_SENT);
		rxe_resp_send_ack(qp, RXE_OP_ACK,
				  RXE_AETH_RNR_NAK | qp->attr.min_rnr_timer,
				  pkt->psn, NULL);
	}
	return false;
}

/* Returns false if the packet was refused (the PSN does not advance). */
static bool rxe_resp_send(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	u32 inv_key;

	if ((pkt->mask & RXE_MASK_FIRST) && !rxe_resp_get_wqe(qp, pkt))
		return false;
	if (qp->resp.offset + pkt->paylen > qp->resp.wqe.length) {
		rxe_resp_complete_recv(qp, pkt, IB_WC_RECV, 0, IB_WC_LOC_LEN_ERR);
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	if (rxe_sge_copy(qp->rxe, qp->ibqp.pd, qp->resp.wqe.sge,
			 qp->resp.wqe.num_sge, qp->resp.offset,
			 (void *)rxe_pkt_payload(pkt), pkt->paylen, true)) {
		rxe_resp_complete_recv(qp, pkt, IB_WC_RECV, 0,
				       IB_WC_LOC_PROT_ERR);
		rxe_resp_fatal(qp, RXE_NAK_REM_OP, pkt->psn);
		return false;
	}
	qp->resp.offset += pkt->paylen;
	if (!(pkt->mask & RXE_MASK_LAST))
		return true;
	if (pkt->mask & RXE_MASK_IETH) {
		/* The completion must not report an invalidation that failed. */
		inv_key = rxe_get32(rxe_pkt_ext(pkt, RXE_MASK_IETH));
		if (rxe_key_is_mw(inv_key) ?
		    rxe_mw_invalidate(qp, inv_key, true) :
		    rxe_mr_invalidate(qp->rxe, qp->ibqp.pd, inv_key)) {
			rxe_resp_complete_recv(qp, pkt, IB_WC_RECV, 0,
					       IB_WC_REM_INV_REQ_ERR);
			rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
			return false;
		}
	}
	qp->resp.msn++;
	rxe_resp_complete_recv(qp, pkt, IB_WC_RECV, qp->resp.offset,
			       IB_WC_SUCCESS);
	return true;
}

/*
 * The first packet of a WRITE: the QP must grant remote write, and the
 * whole target range must be writable now.  Each packet checks its own
 * part again when it is written.
 */
static bool rxe_resp_write_open(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	const u8 *reth = rxe_pkt_ext(pkt, RXE_MASK_RETH);
	u32 len = rxe_reth_len(reth);

	if (!(qp->attr.qp_access_flags & IB_ACCESS_REMOTE_WRITE)) {
		ibdev_dbg(&qp->rxe->ib_dev, "QP %#x: remote write not granted\n",
			  rxe_qpn(qp));
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	if (len > qp->rxe->port_attr.max_msg_sz) {
		ibdev_dbg(&qp->rxe->ib_dev, "QP %#x: WRITE of %u bytes refused\n",
			  rxe_qpn(qp), len);
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	qp->resp.wkey = rxe_reth_rkey(reth);
	qp->resp.va = rxe_reth_va(reth);
	qp->resp.resid = len;
	qp->resp.wlen = len;
	if (len && rxe_mr_check(qp, qp->resp.wkey, IB_ACCESS_REMOTE_WRITE,
				qp->resp.va, len)) {
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	qp->resp.in_write = true;
	return true;
}

static bool rxe_resp_write(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	/*
	 * With immediate: a receive WQE must be there before anything of
	 * the packet is taken, so that after an RNR NAK its resend finds
	 * the responder where it was.
	 */
	if ((pkt->mask & RXE_MASK_IMMDT) && !rxe_resp_get_wqe(qp, pkt))
		return false;
	if ((pkt->mask & RXE_MASK_FIRST) && !rxe_resp_write_open(qp, pkt))
		return false;
	if (pkt->paylen > qp->resp.resid ||
	    ((pkt->mask & RXE_MASK_LAST) && pkt->paylen != qp->resp.resid)) {
		rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		return false;
	}
	/* The MR may have been invalidated or replaced since the FIRST packet. */
	if (pkt->paylen &&
	    rxe_mr_copy(qp, qp->resp.wkey, IB_ACCESS_REMOTE_WRITE, qp->resp.va,
			(void *)rxe_pkt_payload(pkt), pkt->paylen, true)) {
		qp->resp.in_write = false;
		rxe_resp_fatal(qp, RXE_NAK_REM_ACCESS, pkt->psn);
		return false;
	}
	qp->resp.va += pkt->paylen;
	qp->resp.resid -= pkt->paylen;
	if (pkt->mask & RXE_MASK_LAST) {
		qp->resp.in_write = false;
		qp->resp.msn++;
		if (pkt->mask & RXE_MASK_IMMDT)
			rxe_resp_complete_recv(qp, pkt,
					       IB_WC_RECV_RDMA_WITH_IMM,
					       qp->resp.wlen, IB_WC_SUCCESS);
	}
	return true;
}

/* Is @pkt allowed after what came before it in this message? */
static bool rxe_resp_seq_ok(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	bool first = pkt->mask & RXE_MASK_FIRST;

	if (qp->resp.in_send)
		return (pkt->mask & RXE_MASK_SEND) && !first;
	if (qp->resp.in_write)
		return (pkt->mask & RXE_MASK_WRITE) && !first;
	return first;
}

static void rxe_resp_uc_abort(struct rxe_qp *qp)
{
	/* The open message is lost; its receive WQE serves the next one. */
	qp->resp.offset = 0;
	qp->resp.in_send = false;
	qp->resp.in_write = false;
}

/**
 * rxe_resp_process() - handle one request packet of an RC or UC QP
 * @qp: the QP; called by its engine only
 * @skb: the packet, consumed
 */
void rxe_resp_process(struct rxe_qp *qp, struct sk_buff *skb)
{
	const struct rxe_pkt *pkt = &rxe_cb(skb)->pkt;
	bool rc = qp->type_mask == RXE_MASK_RC, ok;
	int diff;

	if (!rxe_qp_can_receive(READ_ONCE(qp->state))) {
		rxe_drop(qp->rxe, skb, RXE_DROP_STATE);
		return;
	}
	/* The first request a QP in RTR takes: its connection is up. */
	if (!qp->resp.comm_est && READ_ONCE(qp->state) == IB_QPS_RTR) {
		qp->resp.comm_est = true;
		rxe_qp_async_event(qp, IB_EVENT_COMM_EST);
	}
	diff = rxe_psn_diff(pkt->psn, qp->resp.psn);
	if (!rc && diff) {
		/* UC: resynchronise on the packet, losing the open message. */
		rxe_resp_uc_abort(qp);
		qp->resp.psn = pkt->psn;
		diff = 0;
		if (!(pkt->mask & RXE_MASK_FIRST)) {
			qp->resp.psn = rxe_psn_add(pkt->psn, 1);
			rxe_drop(qp->rxe, skb, RXE_DROP_SEQ);
			return;
		}
	}
	if (diff > 0) {
		if (!qp->resp.nak_sent) {
			qp->resp.nak_sent = true;
			rxe_count(qp->rxe, RXE_CNT_SEQ_NAK_SENT);
			rxe_resp_nak(qp, RXE_NAK_PSN_SEQ, qp->resp.psn);
		}
		rxe_drop(qp->rxe, skb, RXE_DROP_SEQ);
		return;
	}
	if (diff < 0) {
		/* IBTA: a duplicate nothing is remembered of is dropped. */
		if (!rxe_resp_duplicate(qp, pkt)) {
			ibdev_dbg(&qp->rxe->ib_dev,
				  "QP %#x: unknown duplicate, PSN %#x opcode %#x\n",
				  rxe_qpn(qp), pkt->psn, pkt->opcode);
			rxe_drop(qp->rxe, skb, RXE_DROP_SEQ);
			return;
		}
		consume_skb(skb);
		return;
	}
	qp->resp.nak_sent = false;
	if (!rxe_resp_seq_ok(qp, pkt) || rxe_check_seg_len(pkt, qp->mtu)) {
		if (rc) {
			rxe_resp_fatal(qp, RXE_NAK_INVALID_REQ, pkt->psn);
		} else {
			rxe_resp_uc_abort(qp);
			qp->resp.psn = rxe_psn_add(pkt->psn, 1);
		}
		rxe_drop(qp->rxe, skb, RXE_DROP_OPCODE);
		return;
	}

	if (pkt->mask & RXE_MASK_READ) {
		rxe_resp_read_new(qp, pkt);
		consume_skb(skb);
		return;
	}
	if (pkt->mask & RXE_MASK_SEND)
		ok = rxe_resp_send(qp, pkt);
	else if (pkt->mask & RXE_MASK_WRITE)
		ok = rxe_resp_write(qp, pkt);
	else if (pkt->mask & RXE_MASK_ATOMIC_WRITE)
		ok = rxe_resp_atomic_write(qp, pkt);
	else
		ok = rxe_resp_atomic(qp, pkt);
	if (ok) {
		qp->resp.psn = rxe_psn_add(pkt->psn, 1);
		/* ATOMIC and ATOMIC_WRITE sent their own response */
		if (rc && !(pkt->mask & (RXE_MASK_ATOMIC | RXE_MASK_ATOMIC_WRITE)) &&
		    rxe_bth_ackreq(pkt->hdr))
			rxe_resp_ack(qp, pkt->psn);
	}
	consume_skb(skb);
}
