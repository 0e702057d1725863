// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP receive: rx_work reads the TCP stream of a QP in RTS and
 * places each FPDU where its header says: tagged payloads (RDMA WRITE,
 * READ responses) straight into the memory an STag names, untagged ones
 * (SEND kinds) into the next receive work request, READ requests onto the
 * IRQ for tx_work to answer, Terminates into a small buffer.
 *
 * The stream is read without blocking, in three steps per FPDU: header,
 * payload (CRC32c computed over it in its destination), then pad and CRC.
 * Small pieces come from a stage read ahead a socket read at a time; a
 * large payload is received directly into its destination.  Whatever
 * the peer sends is checked before it is used: versions, opcode, queue
 * number, MSN and message offset, STag, rights and bounds, the room in
 * the receive buffer, the IRD, the CRC.  A violation ends the connection
 * with a Terminate (siw_qp_fatal()) and is counted; nothing completes on
 * data whose CRC failed.
 */
#include <linux/crc32c.h>
#include <linux/net.h>
#include <linux/unaligned.h>

#include "siw.h"

/* FPDUs one pass of rx_work handles before it yields the worker */
#define SIW_RX_BUDGET	64

/* Receive up to @len bytes at @buf; bytes, 0 at end of stream, -errno. */
static int siw_rx_recv(struct socket *sock, void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec v = { .iov_base = buf, .iov_len = len };

	return kernel_recvmsg(sock, &msg, &v, 1, len, MSG_DONTWAIT);
}

/*
 * The next up to @len bytes of the stream at @buf, as siw_rx_recv().  A
 * read smaller than the stage is served from it, refilled by one socket
 * read, so that the header, a small payload and the trailer of an FPDU
 * cost one socket read instead of one each; a larger one, once the stage
 * is used up, is read straight into @buf.
 */
static int siw_rx_read(struct siw_qp *qp, struct socket *sock, void *buf,
		       size_t len)
{
	struct siw_rx *rx = &qp->rx;
	int n;

	if (!rx->stage_len) {
		if (len >= sizeof(rx->stage))
			return siw_rx_recv(sock, buf, len);
		n = siw_rx_recv(sock, rx->stage, sizeof(rx->stage));
		if (n <= 0)
			return n;
		rx->stage_off = 0;
		/* The connection manager looks at it (siw_cep_unread()). */
		WRITE_ONCE(rx->stage_len, n);
	}
	n = min_t(size_t, len, rx->stage_len);
	memcpy(buf, rx->stage + rx->stage_off, n);
	rx->stage_off += n;
	WRITE_ONCE(rx->stage_len, rx->stage_len - n);
	return n;
}

/*
 * End the connection for a received FPDU, counted as a protection error
 * (STag, rights, bounds), a CRC error (counted by the caller) or a bad
 * header.
 */
static void siw_rx_bad(struct siw_qp *qp, u8 layer, u8 etype, u8 ecode)
{
	struct siw_term_info t = { layer, etype, ecode };

	if (siw_term_protection(&t))
		siw_count(qp->sdev, SIW_CNT_RX_PROTECTION);
	else if (layer != SIW_TERM_MPA || ecode != SIW_EC_MPA_CRC)
		siw_count(qp->sdev, SIW_CNT_RX_BAD_HDR);
	siw_qp_fatal(qp, &t, qp->rx.hdr, qp->rx.info.hdr_len ?: qp->rx.have);
}

/* A memory check failed for a tagged placement: say it DDP's way. */
static void siw_rx_bad_tagged(struct siw_qp *qp, const struct siw_term_info *w)
{
	switch (w->ecode) {
	case SIW_EC_RDMAP_INVALID_STAG:
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_INVALID_STAG);
		break;
	case SIW_EC_RDMAP_BOUNDS:
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_BOUNDS);
		break;
	case SIW_EC_RDMAP_TO_WRAP:
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_TO_WRAP);
		break;
	default:
		siw_rx_bad(qp, w->layer, w->etype, w->ecode);
		break;
	}
}

/* Keep a reference on the memory of @stag in rx.mem; checks follow. */
static struct siw_mem *siw_rx_mem(struct siw_qp *qp, u32 stag)
{
	struct siw_rx *rx = &qp->rx;

	if (rx->mem && rx->mem->stag == stag)
		return rx->mem;
	if (rx->mem)
		siw_mem_put(rx->mem);
	rx->mem = siw_mem_get(qp->sdev, stag);
	return rx->mem;
}

/* Tagged segment of an RDMA WRITE. */
static int siw_rx_write(struct siw_qp *qp)
{
	const struct siw_hdr_tagged *h = (const void *)qp->rx.hdr;
	u32 stag = get_unaligned_be32(&h->stag);
	u64 to = get_unaligned_be64(&h->to);
	struct siw_term_info why;
	struct siw_mem *mem;

	/* A zero-length WRITE places nothing (the RTR message is one). */
	if (!qp->rx.info.payload)
		return 0;
	mem = siw_rx_mem(qp, stag);
	if (!mem) {
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_INVALID_STAG);
		return -EACCES;
	}
	if (siw_mem_check(mem, qp->base.pd, IB_ACCESS_REMOTE_WRITE, to,
			  qp->rx.info.payload, &why)) {
		siw_rx_bad_tagged(qp, &why);
		return -EACCES;
	}
	qp->rx.to = to;
	return 0;
}

/* Tagged segment of a READ response: into the oldest READ of the ORQ. */
static int siw_rx_read_resp(struct siw_qp *qp)
{
	const struct siw_hdr_tagged *h = (const void *)qp->rx.hdr;
	struct siw_rx *rx = &qp->rx;
	u32 stag = get_unaligned_be32(&h->stag);
	u64 to = get_unaligned_be64(&h->to);
	const struct siw_sqe *w;
	struct siw_term_info why;
	struct siw_mem *mem;
	u32 want = 0;

	spin_lock_bh(&qp->orq_lock);
	w = qp->orq_get != qp->orq_put ?
	    &qp->orq[qp->orq_get % SIW_MAX_ORD] : NULL;
	spin_unlock_bh(&qp->orq_lock);
	if (!w) {
		siw_qp_dbg(qp, "READ response without a READ\n");
		siw_rx_bad(qp, SIW_TERM_RDMAP, SIW_ET_RDMAP_OPERATION,
			   SIW_EC_RDMAP_OPCODE);
		return -EPROTO;
	}
	if (w->num_sge)
		want = w->sge[0].length;
	if ((w->num_sge && (stag != w->sge[0].lkey ||
			    to != w->sge[0].laddr + rx->rresp)) ||
	    rx->rresp + rx->info.payload > want) {
		siw_qp_dbg(qp, "READ response to STag %#x at %#llx does not fit the READ\n",
			   stag, to);
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_BOUNDS);
		return -EPROTO;
	}
	if (!rx->info.payload)
		return 0;
	mem = siw_rx_mem(qp, stag);
	if (!mem || siw_mem_check(mem, qp->base.pd, IB_ACCESS_LOCAL_WRITE, to,
				  rx->info.payload, &why)) {
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_TAGGED,
			   SIW_EC_DDP_T_INVALID_STAG);
		return -EACCES;
	}
	rx->to = to;
	return 0;
}

/* Check MSN and MO of an untagged segment on queue @qn. */
static int siw_rx_untagged(struct siw_qp *qp, u32 qn)
{
	const struct siw_hdr_untagged *h = (const void *)qp->rx.hdr;
	u32 msn = get_unaligned_be32(&h->msn);
	u32 mo = get_unaligned_be32(&h->mo);
	u32 expect_mo = qn == SIW_QN_SEND ? qp->rx.mo : 0;

	if (msn != qp->rx.msn[qn]) {
		siw_qp_dbg(qp, "queue %u: MSN %u, expected %u\n", qn, msn,
			   qp->rx.msn[qn]);
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
			   SIW_EC_DDP_U_MSN_RANGE);
		return -EPROTO;
	}
	if (mo != expect_mo) {
		siw_qp_dbg(qp, "queue %u: MO %u, expected %u\n", qn, mo,
			   expect_mo);
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
			   SIW_EC_DDP_U_MO);
		return -EPROTO;
	}
	return 0;
}

/* Untagged segment of a SEND: into the receive work request. */
static int siw_rx_send(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	u32 room = 0, i;

	if (siw_rx_untagged(qp, SIW_QN_SEND))
		return -EPROTO;
	if (!rx->have_rqe) {
		if (!siw_take_rqe(qp, &rx->rqe)) {
			siw_qp_dbg(qp, "SEND %u without a receive posted\n",
				   rx->msn[SIW_QN_SEND]);
			siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
				   SIW_EC_DDP_U_NO_BUFFER);
			return -ENOBUFS;
		}
		rx->have_rqe = true;
		rx->sge = 0;
		rx->sge_off = 0;
		if (rx->rqe.num_sge > SIW_MAX_SGE) {
			siw_qp_dbg(qp, "receive with %u SGEs\n",
				   rx->rqe.num_sge);
			rx->rqe.num_sge = 0;
		}
	}
	for (i = 0; i < rx->rqe.num_sge; i++)
		room += rx->rqe.sge[i].length;
	if (rx->mo + rx->info.payload > room) {
		siw_qp_dbg(qp, "SEND of %u+ bytes for a %u-byte receive\n",
			   rx->mo + rx->info.payload, room);
		rx->have_rqe = false;
		siw_rq_complete(qp, &rx->rqe, 0, 0, SIW_WC_LOC_LEN_ERR, false);
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
			   SIW_EC_DDP_U_TOO_LONG);
		return -EMSGSIZE;
	}
	return 0;
}

/* A READ request: onto the IRQ, if the peer keeps within our IRD. */
static int siw_rx_read_req(struct siw_qp *qp)
{
	const struct siw_read_req *r =
		(const void *)(qp->rx.hdr + SIW_HDR_UNTAGGED_LEN);
	struct siw_read_resp *e;

	if (siw_rx_untagged(qp, SIW_QN_READ))
		return -EPROTO;
	spin_lock_bh(&qp->orq_lock);
	if (qp->irq_put - qp->irq_get >= qp->irq_size) {
		spin_unlock_bh(&qp->orq_lock);
		siw_qp_dbg(qp, "READ request beyond the IRD of %u\n",
			   qp->irq_size);
		siw_rx_bad(qp, SIW_TERM_DDP, SIW_ET_DDP_UNTAGGED,
			   SIW_EC_DDP_U_NO_BUFFER);
		return -ENOBUFS;
	}
	e = &qp->irq[qp->irq_put % SIW_MAX_IRD];
	e->msn = qp->rx.msn[SIW_QN_READ];
	e->sink_stag = get_unaligned_be32(&r->sink_stag);
	e->sink_to = get_unaligned_be64(&r->sink_to);
	e->size = get_unaligned_be32(&r->size);
	e->src_stag = get_unaligned_be32(&r->src_stag);
	e->src_to = get_unaligned_be64(&r->src_to);
	qp->irq_put++;
	spin_unlock_bh(&qp->orq_lock);
	qp->rx.msn[SIW_QN_READ]++;
	return 0;
}

/* The header is in: check it and find where the payload goes. */
static int siw_rx_begin(struct siw_qp *qp)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_term_info t;

	if (siw_hdr_check(rx->hdr, rx->have, &rx->info, &t)) {
		siw_qp_dbg(qp, "bad FPDU header: layer %u type %u code %#x\n",
			   t.layer, t.etype, t.ecode);
		siw_rx_bad(qp, t.layer, t.etype, t.ecode);
		return -EPROTO;
	}
	if (qp->conn.crc)
		rx->crc = crc32c(~0U, rx->hdr, rx->have);
	rx->left = rx->info.payload;

	switch (rx->info.op) {
	case SIW_RDMAP_WRITE:
		return siw_rx_write(qp);
	case SIW_RDMAP_READ_RESP:
		return siw_rx_read_resp(qp);
	case SIW_RDMAP_READ_REQ:
		return siw_rx_read_req(qp);
	case SIW_RDMAP_TERMINATE:
		return siw_rx_untagged(qp, SIW_QN_TERM);
	default:
		return siw_rx_send(qp);
	}
}

/* Where the next payload byte goes, and how many may go there at once. */
static void *siw_rx_dest(struct siw_qp *qp, u32 *len)
{
	struct siw_rx *rx = &qp->rx;
	struct siw_term_info why;
	const struct siw_sge *sge;
	u32 done;

	switch (rx->info.op) {
	case SIW_RDMAP_WRITE:
	case SIW_RDMAP_READ_RESP:
		return siw_mem_ptr(rx->mem, rx->to, len);
	case SIW_RDMAP_TERMINATE:
		/* The first bytes are kept, the rest read over them. */
		done = rx->info.payload - rx->left;
		if (done >= sizeof(rx->term))
			done = 0;
		*len = min_t(u32, *len, sizeof(rx->term) - done);
		return rx->term + done;
	default:
		break;
	}
	/* SEND kinds: the receive's SGEs (their total was checked). */
	while ((sge = &rx->rqe.sge[rx->sge]) && rx->sge_off == sge->length) {
		rx->sge++;
		rx->sge_off = 0;
	}
	if (!rx->sge_off || !rx->mem || rx->mem->stag != sge->lkey) {
		if (!siw_rx_mem(qp, sge->lkey) ||
		    siw_mem_check(rx->mem, qp->base.pd, IB_ACCESS_LOCAL_WRITE,
				  sge->laddr, sge->length, &why)) {
			siw_qp_dbg(qp, "receive SGE %u (lkey %#x) unusable\n",
				   rx->sge, sge->lkey);
			return NULL;
		}
	}
	*len = min(*len, sge->length - rx->sge_off);
	return siw_mem_ptr(rx->mem, sge->laddr + rx->sge_off, len);
}

static void siw_rx_advance(struct siw_qp *qp, void *buf, u32 n)
{
	struct siw_rx *rx = &qp->rx;

	if (qp->conn.crc)
		rx->crc = crc32c(rx->crc, buf, n);
	rx->left -= n;
	if (rx->info.op == SIW_RDMAP_WRITE ||
	    rx->info.op == SIW_RDMAP_READ_RESP)
		rx->to += n;
	else if (rx->info.op != SIW_RDMAP_TERMINATE)
		rx->sge_off += n;
}

/* A Terminate from the peer: it is gone; so is the connection. */
static void siw_rx_terminate(struct siw_qp *qp)
{
	u32 ctrl = qp->rx.info.payload >= 4 ?
		   get_unaligned_be32(qp->rx.term) : 0;

	siw_count(qp->sdev, SIW_CNT_TERM_RCVD);
	siw_qp_dbg(qp, "Terminate received: layer %u type %u code %#x\n",
		   ctrl >> SIW_TERM_LAYER_SHIFT,
		   (ctrl >> SIW_TERM_ETYPE_SHIFT) & 0xf,
		   (ctrl >> SIW_TERM_ECODE_SHIFT) & 0xff);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	if (qp->base.event_handler) {
		struct ib_event ev = {
			.device = qp->base.device,
			.element.qp = &qp->base,
			.event = IB_EVENT_QP_FATAL,
		};

		qp->base.event_handler(&ev, qp->base.qp_context);
	}
	siw_cm_close(qp->cep, false);
}

/* A whole FPDU is in and its CRC is right: finish what it ends. */
static void siw_rx_end(struct siw_qp *qp)
{
	const struct siw_hdr_untagged *h = (const void *)qp->rx.hdr;
	struct siw_rx *rx = &qp->rx;
	struct siw_sqe w;
	u8 op = rx->info.op;
	u32 inv = 0;

	siw_count(qp->sdev, SIW_CNT_RX_FPDU);
	if (READ_ONCE(qp->tx.wait_rtr)) {
		/* Anything from the initiator tells it is ready. */
		WRITE_ONCE(qp->tx.wait_rtr, false);
		siw_qp_tx_kick(qp);
	}
	switch (op) {
	case SIW_RDMAP_WRITE:
		return;
	case SIW_RDMAP_READ_REQ:
		siw_qp_tx_kick(qp);
		return;
	case SIW_RDMAP_TERMINATE:
		siw_rx_terminate(qp);
		return;
	case SIW_RDMAP_READ_RESP:
		rx->rresp += rx->info.payload;
		if (!rx->info.last)
			return;
		spin_lock_bh(&qp->orq_lock);
		w = qp->orq[qp->orq_get % SIW_MAX_ORD];
		qp->orq_get++;
		spin_unlock_bh(&qp->orq_lock);
		if (w.opcode == SIW_OP_READ_LOCAL_INV && w.num_sge)
			siw_mem_invalidate(qp->sdev, qp->base.pd,
					   w.sge[0].lkey);
		/* The RTR READ of MPA revision 2 is nobody's request. */
		if (w.flags & SIW_WQE_VALID)
			siw_sq_complete(qp, &w, rx->rresp, SIW_WC_SUCCESS);
		rx->rresp = 0;
		siw_qp_tx_kick(qp);
		return;
	default:
		break;
	}
	/* SEND kinds */
	rx->mo += rx->info.payload;
	if (!rx->info.last)
		return;
	if (op == SIW_RDMAP_SEND_INV || op == SIW_RDMAP_SEND_SE_INV) {
		inv = get_unaligned_be32(&h->inv_stag);
		if (siw_mem_invalidate(qp->sdev, qp->base.pd, inv)) {
			siw_qp_dbg(qp, "SEND cannot invalidate STag %#x\n",
				   inv);
			rx->have_rqe = false;
			siw_rq_complete(qp, &rx->rqe, rx->mo, 0,
					SIW_WC_REM_INV_REQ_ERR, false);
			siw_rx_bad(qp, SIW_TERM_RDMAP, SIW_ET_RDMAP_OPERATION,
				   SIW_EC_RDMAP_INVALIDATE);
			return;
		}
	}
	rx->have_rqe = false;
	siw_rq_complete(qp, &rx->rqe, rx->mo, inv, SIW_WC_SUCCESS,
			op == SIW_RDMAP_SEND_SE || op == SIW_RDMAP_SEND_SE_INV);
	rx->msn[SIW_QN_SEND]++;
	rx->mo = 0;
}

/*
 * One step of the receive state machine.  Return 1 after progress, 0 when
 * the socket has nothing more for now, -errno to stop reading.
 */
static int siw_rx_step(struct siw_qp *qp, struct socket *sock)
{
	struct siw_rx *rx = &qp->rx;
	u32 len;
	void *p;
	int n;

	switch (rx->state) {
	case SIW_RX_HDR:
		if (!rx->need)
			rx->need = sizeof(struct siw_hdr_common);
		n = siw_rx_read(qp, sock, rx->hdr + rx->have,
				rx->need - rx->have);
		if (n <= 0)
			break;
		rx->have += n;
		if (rx->have < rx->need)
			return 1;
		if (rx->need == sizeof(struct siw_hdr_common)) {
			int hlen = siw_hdr_len(rx->hdr[2], rx->hdr[3]);

			/*
			 * An opcode RDMAP lacks, or one its T bit contradicts,
			 * is refused once DDP's header is in: its length is
			 * DDP's (the T bit), and the Terminate copies it whole
			 * (RFC 5040 4.8, D set).
			 */
			if (hlen < 0)
				hlen = rx->hdr[2] & SIW_DDP_TAGGED ?
				       SIW_HDR_TAGGED_LEN : SIW_HDR_UNTAGGED_LEN;
			rx->need = hlen;
			return 1;
		}
		rx->info.hdr_len = 0;
		if (siw_rx_begin(qp))
			return -EPROTO;
		rx->state = rx->left ? SIW_RX_DATA : SIW_RX_TRAILER;
		rx->have = 0;
		rx->need = siw_fpdu_pad(rx->info.hdr_len - SIW_MPA_LEN_BYTES +
					rx->info.payload) + SIW_MPA_CRC_BYTES;
		return 1;
	case SIW_RX_DATA:
		len = rx->left;
		p = siw_rx_dest(qp, &len);
		if (!p) {
			siw_rx_bad(qp, SIW_TERM_RDMAP, SIW_ET_RDMAP_PROTECTION,
				   SIW_EC_RDMAP_INVALID_STAG);
			return -EACCES;
		}
		n = siw_rx_read(qp, sock, p, len);
		if (n <= 0)
			break;
		siw_rx_advance(qp, p, n);
		if (!rx->left)
			rx->state = SIW_RX_TRAILER;
		return 1;
	default:
		n = siw_rx_read(qp, sock, rx->trailer + rx->have,
				rx->need - rx->have);
		if (n <= 0)
			break;
		rx->have += n;
		if (rx->have < rx->need)
			return 1;
		if (qp->conn.crc) {
			u32 pad = rx->need - SIW_MPA_CRC_BYTES;
			u32 crc = ~crc32c(rx->crc, rx->trailer, pad);

			if (crc != get_unaligned_le32(rx->trailer + pad)) {
				siw_qp_dbg(qp, "CRC %#x, FPDU says %#x\n", crc,
					   get_unaligned_le32(rx->trailer + pad));
				siw_count(qp->sdev, SIW_CNT_RX_BAD_CRC);
				siw_rx_bad(qp, SIW_TERM_MPA, 0, SIW_EC_MPA_CRC);
				return -EBADMSG;
			}
		}
		siw_rx_end(qp);
		rx->state = SIW_RX_HDR;
		rx->have = 0;
		rx->need = 0;
		return 1;
	}
	if (n == -EAGAIN)
		return 0;
	/* End of stream or a socket error: the connection manager acts. */
	if (!n)
		siw_qp_dbg(qp, "the peer closed its side of the stream\n");
	return n ? n : -ESHUTDOWN;
}

/**
 * siw_rx_work() - read what the socket holds
 * @work: the QP's rx_work
 */
void siw_rx_work(struct work_struct *work)
{
	struct siw_qp *qp = container_of(work, struct siw_qp, rx_work);
	struct socket *sock = READ_ONCE(qp->sock);
	int budget = SIW_RX_BUDGET * 4;
	enum ib_qp_state state;
	int ret;

	if (!sock)
		return;
	while (budget--) {
		state = READ_ONCE(qp->state);
		if (state != IB_QPS_RTS && state != IB_QPS_SQD)
			return;
		ret = siw_rx_step(qp, sock);
		if (ret <= 0) {
			if (ret < 0 && ret != -ESHUTDOWN)
				siw_qp_dbg(qp, "receive stopped: %d\n", ret);
			return;
		}
	}
	/* Out of budget: let other QPs have the worker. */
	queue_work(siw_wq, &qp->rx_work);
}
