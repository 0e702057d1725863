// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP queue pair state: references, the IB states an iWARP QP goes
 * through, the hand-over of a TCP connection from the connection manager
 * (siw_qp_start()) and back (siw_qp_conn_lost()), completions and flushing.
 *
 * States: RESET -> INIT -> RTR by modify_qp; RTR (or INIT) -> RTS only
 * through the connection manager, which brings a connected, negotiated
 * socket; RTS -> SQD by modify_qp is a graceful disconnect (the send
 * queue drains, then the connection closes); any -> ERR is an abortive
 * one; ERR -> RESET once the connection is gone.
 *
 * Work: tx_work and rx_work run on siw_wq, each at most once at a time;
 * tx_work, or a process's doorbell sending small requests itself, sends
 * under tx_mutex.  They use the socket only while qp->sock is set;
 * siw_qp_conn_lost() clears it under state_lock and then waits for the
 * works and the sender, so once it returns none of them touches the
 * connection or the queues again until a new one starts.
 */
#include <linux/net.h>
#include <linux/unaligned.h>
#include <net/tcp.h>

#include "siw.h"

static void siw_qp_release(struct kref *ref)
{
	complete(&container_of(ref, struct siw_qp, ref)->released);
}

/**
 * siw_qp_get() - take a reference on a QP
 * @qp: the QP
 */
void siw_qp_get(struct siw_qp *qp)
{
	kref_get(&qp->ref);
}

/**
 * siw_qp_put() - drop a reference
 * @qp: the QP
 *
 * The last one wakes destroy_qp, which frees the QP.
 */
void siw_qp_put(struct siw_qp *qp)
{
	kref_put(&qp->ref, siw_qp_release);
}

/**
 * siw_qp_lookup() - find a QP by number
 * @sdev: the device
 * @qpn: its number
 *
 * Return: the QP with a reference (siw_qp_put()), or NULL.
 */
struct siw_qp *siw_qp_lookup(struct siw_device *sdev, u32 qpn)
{
	struct siw_qp *qp;

	rcu_read_lock();
	qp = xa_load(&sdev->qps, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/**
 * siw_qp_tx_kick() - have tx_work look at the queues
 * @qp: the QP
 *
 * Context: any.
 */
void siw_qp_tx_kick(struct siw_qp *qp)
{
	if (READ_ONCE(qp->sock))
		queue_work(siw_wq, &qp->tx_work);
}

/**
 * siw_qp_rx_kick() - have rx_work read the socket
 * @qp: the QP
 *
 * Context: any (the socket's data_ready callback).
 */
void siw_qp_rx_kick(struct siw_qp *qp)
{
	if (READ_ONCE(qp->sock))
		queue_work(siw_wq, &qp->rx_work);
}

/* A QP event to its owner. */
static void siw_qp_event(struct siw_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->base.device,
		.element.qp = &qp->base,
		.event = type,
	};

	if (qp->base.event_handler)
		qp->base.event_handler(&ev, qp->base.qp_context);
}

/**
 * siw_sq_complete() - the completion of a send queue work request
 * @qp: the QP
 * @wqe: the work request (its private copy)
 * @bytes: bytes it moved
 * @status: how it ended
 *
 * Only signalled requests and failed ones make a CQE.
 */
void siw_sq_complete(struct siw_qp *qp, const struct siw_sqe *wqe, u32 bytes,
		     enum siw_wc_status status)
{
	struct siw_cqe cqe = {};

	if (!(wqe->flags & SIW_WQE_SIGNALLED) && status == SIW_WC_SUCCESS)
		return;
	cqe.id = wqe->id;
	cqe.opcode = wqe->opcode;
	cqe.status = status;
	cqe.bytes = bytes;
	if (qp->kernel)
		cqe.base_qp = &qp->base;
	else
		cqe.qp_id = siw_qpn(qp);
	siw_cq_add(qp->scq, &cqe, false);
}

/**
 * siw_rq_complete() - the completion of a receive work request
 * @qp: the QP
 * @rqe: the work request (its private copy)
 * @bytes: bytes received
 * @inv_stag: STag the message invalidated, 0 for none
 * @status: how it ended
 * @solicited: the message asked for a solicited event
 */
void siw_rq_complete(struct siw_qp *qp, const struct siw_rqe *rqe, u32 bytes,
		     u32 inv_stag, enum siw_wc_status status, bool solicited)
{
	struct siw_cqe cqe = {};

	cqe.id = rqe->id;
	cqe.opcode = SIW_OP_RECEIVE;
	cqe.status = status;
	cqe.bytes = bytes;
	if (inv_stag) {
		cqe.flags = SIW_WQE_REM_INVAL;
		cqe.inval_stag = inv_stag;
	}
	if (qp->kernel)
		cqe.base_qp = &qp->base;
	else
		cqe.qp_id = siw_qpn(qp);
	siw_cq_add(qp->rcq, &cqe, solicited);
}

/* Take the element at *@get of @ring if the producer gave it. */
static bool siw_ring_take(struct siw_rqe *ring, u32 size, u32 *get,
			  struct siw_rqe *out)
{
	struct siw_rqe *slot = &ring[*get & (size - 1)];

	/* The producer released the element's contents with VALID. */
	if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
		return false;
	memcpy(out, slot, sizeof(*out));
	/* Give the element back: the copy is all the receive path uses. */
	smp_store_release(&slot->flags, 0);
	(*get)++;
	return true;
}

/**
 * siw_take_rqe() - the next receive work request of a QP (or of its SRQ)
 * @qp: the QP
 * @rqe: filled with a private copy
 *
 * Context: rx_work, or the flush with the works stopped.
 * Return: false when none is posted.
 */
bool siw_take_rqe(struct siw_qp *qp, struct siw_rqe *rqe)
{
	struct siw_srq *srq = qp->srq;
	bool got, limit = false;
	unsigned long flags;

	if (!srq)
		return siw_ring_take(qp->rq, qp->rq_size, &qp->rq_get, rqe);

	spin_lock_irqsave(&srq->lock, flags);
	got = siw_ring_take(srq->rq, srq->size, &srq->get, rqe);
	if (got && srq->armed) {
		u32 left = 0, i;

		/* Count what is still posted, for the limit event. */
		for (i = 0; i < srq->size && left < srq->limit; i++)
			if (READ_ONCE(srq->rq[(srq->get + i) &
					      (srq->size - 1)].flags) &
			    SIW_WQE_VALID)
				left++;
		if (left < srq->limit) {
			srq->armed = false;
			limit = true;
		}
	}
	spin_unlock_irqrestore(&srq->lock, flags);

	if (limit && srq->base.event_handler) {
		struct ib_event ev = {
			.device = srq->base.device,
			.element.srq = &srq->base,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->base.event_handler(&ev, srq->base.srq_context);
	}
	return got;
}

/*
 * Complete everything still queued with a flush error: the send queue,
 * our READs the peer never answered, and the receive queue (not an SRQ,
 * which outlives the QP).  The works are stopped.
 */
static void siw_qp_flush_queues(struct siw_qp *qp)
{
	struct siw_rqe rqe;
	unsigned long flags;

	spin_lock_bh(&qp->orq_lock);
	while (qp->orq_get != qp->orq_put) {
		struct siw_sqe *w = &qp->orq[qp->orq_get % SIW_MAX_ORD];

		/* The RTR READ of MPA revision 2 has no owner to tell. */
		if (w->flags & SIW_WQE_VALID)
			siw_sq_complete(qp, w, 0, SIW_WC_WR_FLUSH_ERR);
		qp->orq_get++;
	}
	qp->irq_get = qp->irq_put;
	spin_unlock_bh(&qp->orq_lock);

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (;;) {
		struct siw_sqe *slot = &qp->sq[qp->sq_get & (qp->sq_size - 1)];
		struct siw_sqe w;

		/* Take the producer's element, then give the slot back. */
		if (!(smp_load_acquire(&slot->flags) & SIW_WQE_VALID))
			break;
		memcpy(&w, slot, sizeof(w));
		/* The copy is read before the producer may reuse the slot. */
		smp_store_release(&slot->flags, 0);
		qp->sq_get++;
		w.flags |= SIW_WQE_SIGNALLED;
		siw_sq_complete(qp, &w, 0, SIW_WC_WR_FLUSH_ERR);
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);

	if (qp->rx.have_rqe) {
		qp->rx.have_rqe = false;
		siw_rq_complete(qp, &qp->rx.rqe, 0, 0, SIW_WC_WR_FLUSH_ERR,
				false);
	}
	if (qp->srq)
		return;
	spin_lock_irqsave(&qp->rq_lock, flags);
	while (siw_ring_take(qp->rq, qp->rq_size, &qp->rq_get, &rqe))
		siw_rq_complete(qp, &rqe, 0, 0, SIW_WC_WR_FLUSH_ERR, false);
	spin_unlock_irqrestore(&qp->rq_lock, flags);
}

/**
 * siw_qp_flush() - flush a QP in error whose connection is gone
 * @qp: the QP
 *
 * For a process's doorbell on a QP in error: what it queued since
 * completes flushed.  Does nothing while a connection still owns the
 * queues (its end flushes them).
 */
void siw_qp_flush(struct siw_qp *qp)
{
	mutex_lock(&qp->state_lock);
	if (qp->state == IB_QPS_ERR && !qp->sock)
		siw_qp_flush_queues(qp);
	mutex_unlock(&qp->state_lock);
}

/*
 * Stop using the socket and wait for the works and a doorbell's direct
 * send to be done with it.  state_lock held; none of them takes it.
 */
static void siw_qp_detach(struct siw_qp *qp)
{
	mutex_lock(&qp->tx_mutex);
	WRITE_ONCE(qp->sock, NULL);
	mutex_unlock(&qp->tx_mutex);
	cancel_work_sync(&qp->tx_work);
	cancel_work_sync(&qp->rx_work);
	/* The works read qp->cep unlocked while the socket was set. */
	qp->cep = NULL;
	if (qp->rx.mem) {
		siw_mem_put(qp->rx.mem);
		qp->rx.mem = NULL;
	}
}

/**
 * siw_qp_set_state() - a state change asked for by modify_qp or destroy
 * @qp: the QP, state_lock held
 * @new: the state asked for
 *
 * Return: 0, or -EINVAL for a transition an iWARP QP cannot make that way.
 */
int siw_qp_set_state(struct siw_qp *qp, enum ib_qp_state new)
{
	enum ib_qp_state cur = qp->state;

	lockdep_assert_held(&qp->state_lock);
	switch (new) {
	case IB_QPS_RESET:
		if (qp->sock)
			break;
		if (cur == IB_QPS_ERR)
			siw_qp_flush_queues(qp);
		qp->state = IB_QPS_RESET;
		return 0;
	case IB_QPS_INIT:
	case IB_QPS_RTR:
		if (cur != IB_QPS_RESET && cur != IB_QPS_INIT &&
		    cur != IB_QPS_RTR)
			break;
		if (new == IB_QPS_RTR && cur == IB_QPS_RESET)
			break;
		WRITE_ONCE(qp->state, new);
		return 0;
	case IB_QPS_RTS:
		/* Only a connection brings a QP to RTS. */
		if (cur == IB_QPS_RTS)
			return 0;
		break;
	case IB_QPS_SQD:
		/*
		 * A graceful disconnect of a connection already closing or
		 * gone (librdmacm asks for SQD after the peer closed).
		 */
		if (cur == IB_QPS_SQD || cur == IB_QPS_ERR)
			return 0;
		if (cur != IB_QPS_RTS)
			break;
		WRITE_ONCE(qp->state, IB_QPS_SQD);
		/* tx_work closes the connection once the SQ is drained. */
		queue_work(siw_wq, &qp->tx_work);
		return 0;
	case IB_QPS_ERR:
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		if (qp->cep) {
			/* The connection flushes once it is down. */
			siw_cm_close(qp->cep, true);
			return 0;
		}
		/* A connection being set up for the QP ends failed. */
		if (qp->setup_cep)
			siw_cm_close(qp->setup_cep, true);
		siw_qp_flush_queues(qp);
		return 0;
	default:
		break;
	}
	siw_qp_dbg(qp, "no transition from state %d to %d\n", cur, new);
	return -EINVAL;
}

/**
 * siw_qp_start() - a negotiated connection takes the QP to RTS
 * @qp: the QP (the connection manager holds a reference)
 * @cep: the connection; it outlives the binding (siw_qp_conn_lost())
 * @sock: its socket, connected, MPA frames consumed
 * @conn: what MPA negotiation settled
 *
 * Context: process context; takes state_lock.
 * Return: 0, or -EINVAL when the QP is not in INIT or RTR or already has
 * a connection.
 */
int siw_qp_start(struct siw_qp *qp, struct siw_cep *cep, struct socket *sock,
		 const struct siw_conn_params *conn)
{
	u32 mss, i;
	int ret = 0;

	mutex_lock(&qp->state_lock);
	if ((qp->state != IB_QPS_INIT && qp->state != IB_QPS_RTR) ||
	    qp->cep) {
		siw_qp_dbg(qp, "connection refused in state %d\n", qp->state);
		ret = -EINVAL;
		goto out;
	}
	qp->conn = *conn;
	qp->conn.ord = clamp_t(u16, conn->ord, 1, SIW_MAX_ORD);
	qp->conn.ird = clamp_t(u16, conn->ird, 1, SIW_MAX_IRD);
	qp->orq_size = qp->conn.ord;
	qp->irq_size = qp->conn.ird;
	qp->orq_get = 0;
	qp->orq_put = 0;
	qp->irq_get = 0;
	qp->irq_put = 0;
	/* A doorbell reads qp->sock, then qp->tx, under tx_mutex. */
	mutex_lock(&qp->tx_mutex);
	memset(&qp->tx, 0, sizeof(qp->tx));
	memset(&qp->rx, 0, sizeof(qp->rx));
	for (i = 0; i < SIW_NUM_QN; i++) {
		qp->tx.msn[i] = 1;
		qp->rx.msn[i] = 1;
	}
	qp->tx.wait_rtr = conn->rtr == SIW_RTR_AWAIT;

	/* One FPDU per TCP segment where the path allows it. */
	mss = tcp_sk(sock->sk)->mss_cache;
	if (mss < 128 + SIW_HDR_MAX_LEN)
		mss = 1460;
	qp->fpdu_payload = min_t(u32, mss - SIW_HDR_UNTAGGED_LEN -
				 3 - SIW_MPA_CRC_BYTES, SIW_MAX_FPDU_PAYLOAD);
	qp->fpdu_payload &= ~3U;

	/* MPA revision 2: the initiator's first message tells it is ready. */
	qp->tx.rtr_pending = conn->rtr == SIW_RTR_SEND_READ ||
			     conn->rtr == SIW_RTR_SEND_WRITE;

	qp->cep = cep;
	qp->setup_cep = NULL;
	WRITE_ONCE(qp->state, IB_QPS_RTS);
	WRITE_ONCE(qp->sock, sock);
	mutex_unlock(&qp->tx_mutex);
	siw_qp_dbg(qp, "RTS: CRC %s, ORD %u, IRD %u, RTR %d, FPDU payload %u\n",
		   conn->crc ? "on" : "off", qp->conn.ord, qp->conn.ird,
		   conn->rtr, qp->fpdu_payload);
	queue_work(siw_wq, &qp->rx_work);
	queue_work(siw_wq, &qp->tx_work);
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}

/**
 * siw_qp_setup() - an active connection is being set up for the QP
 * @qp: the QP
 * @cep: the connection
 * @done: @cep reached RTS or failed: forget it (if it is the QP's)
 *
 * Until then, moving the QP to ERR aborts it (siw_cm_close()).
 *
 * Context: process context; takes state_lock.
 * Return: 0, or -EINVAL when the QP is already in ERR.
 */
int siw_qp_setup(struct siw_qp *qp, struct siw_cep *cep, bool done)
{
	int ret = 0;

	mutex_lock(&qp->state_lock);
	if (done) {
		if (qp->setup_cep == cep)
			qp->setup_cep = NULL;
	} else if (qp->state == IB_QPS_ERR) {
		ret = -EINVAL;
	} else {
		qp->setup_cep = cep;
	}
	mutex_unlock(&qp->state_lock);
	return ret;
}

/**
 * siw_qp_conn_lost() - the connection is gone (closed, reset or aborted)
 * @qp: the QP
 * @error: it was reset or aborted, not closed in order
 *
 * Detaches the socket, waiting for the senders and rx_work, moves the QP to
 * ERR unless it already went back to RESET, and flushes its queues.  A
 * connection lost in error while the QP was still in RTS is reported as
 * IB_EVENT_QP_FATAL; a peer's orderly close is not an error of the QP.
 *
 * Context: process context, called by the connection manager only; takes
 * state_lock.
 */
void siw_qp_conn_lost(struct siw_qp *qp, bool error)
{
	bool fatal;

	mutex_lock(&qp->state_lock);
	siw_qp_detach(qp);
	fatal = error && qp->state == IB_QPS_RTS;
	if (qp->state != IB_QPS_RESET) {
		WRITE_ONCE(qp->state, IB_QPS_ERR);
		siw_qp_flush_queues(qp);
	}
	mutex_unlock(&qp->state_lock);
	if (fatal)
		siw_qp_event(qp, IB_EVENT_QP_FATAL);
}

/**
 * siw_qp_fatal() - the peer broke the protocol, or a local error ends the
 *	connection
 * @qp: the QP
 * @term: the reason, sent to the peer in a Terminate message
 * @bad_hdr: the FPDU header that caused it (length field first), or NULL
 * @bad_len: its length
 *
 * The QP goes to ERR; tx_work sends the Terminate at the next FPDU
 * boundary and then closes the connection, whose end flushes the queues.
 * Only the first reason of a connection is sent.
 *
 * Context: rx_work, or the sender holding tx_mutex.
 */
void siw_qp_fatal(struct siw_qp *qp, const struct siw_term_info *term,
		  const void *bad_hdr, unsigned int bad_len)
{
	const struct siw_hdr_common *c = bad_hdr;
	u16 hdr_flags = 0;
	u8 *p = qp->tx.term + 4;

	siw_qp_dbg(qp, "terminate: layer %u type %u code %#x\n", term->layer,
		   term->etype, term->ecode);
	spin_lock_bh(&qp->orq_lock);
	if (!qp->tx.term_pending) {
		if (bad_hdr && bad_len >= sizeof(*c)) {
			unsigned int ddp = min_t(unsigned int, bad_len,
						 SIW_HDR_UNTAGGED_LEN);

			hdr_flags = SIW_TERM_HDR_MPA | SIW_TERM_HDR_DDP;
			if (c->ddp & SIW_DDP_TAGGED)
				ddp = min_t(unsigned int, ddp,
					    SIW_HDR_TAGGED_LEN);
			memcpy(p, bad_hdr, ddp);
			p += ddp;
			if ((c->rdmap & SIW_RDMAP_OP_MASK) ==
			    SIW_RDMAP_READ_REQ && bad_len >= SIW_HDR_MAX_LEN) {
				memcpy(p, (const u8 *)bad_hdr + ddp,
				       SIW_READ_REQ_LEN);
				p += SIW_READ_REQ_LEN;
				hdr_flags |= SIW_TERM_HDR_RDMAP;
			}
		}
		put_unaligned_be32(siw_term_ctrl(term, hdr_flags),
				   qp->tx.term);
		qp->tx.term_len = p - qp->tx.term;
		qp->tx.term_pending = true;
	}
	spin_unlock_bh(&qp->orq_lock);

	WRITE_ONCE(qp->state, IB_QPS_ERR);
	siw_qp_event(qp, siw_term_protection(term) ?
		     IB_EVENT_QP_ACCESS_ERR : IB_EVENT_QP_FATAL);
	queue_work(siw_wq, &qp->tx_work);
}
