// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs: creation, state changes, destruction, the per-QP engine
 * that runs the requester, completer and responder, and flushing.
 *
 * Lifetime: a QP is published in rxe_dev.qp_xa at creation.  Users found
 * through the index (the receive path), queued work and timer callbacks
 * hold a reference (qp->ref); destroy_qp() unpublishes the QP, stops its
 * timers and work, drops the owner's reference and waits for the last
 * user, then waits for an RCU grace period so that no index reader still
 * looks at the memory the core frees next.
 */
#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxe.h"

static void rxe_qp_release(struct kref *ref)
{
	struct rxe_qp *qp = container_of(ref, struct rxe_qp, ref);

	complete(&qp->done);
}

/**
 * rxe_qp_get() - look a QP up by number for the receive path
 * @rxe: the device
 * @qpn: the QP number
 *
 * Context: any.
 * Return: the QP with a reference (rxe_qp_put()), or NULL.
 */
struct rxe_qp *rxe_qp_get(struct rxe_dev *rxe, u32 qpn)
{
	struct rxe_qp *qp;

	rcu_read_lock();
	qp = xa_load(&rxe->qp_xa, qpn);
	if (qp && !kref_get_unless_zero(&qp->ref))
		qp = NULL;
	rcu_read_unlock();
	return qp;
}

/**
 * rxe_qp_put() - drop a reference from rxe_qp_get() or an engine user
 * @qp: the QP
 */
void rxe_qp_put(struct rxe_qp *qp)
{
	kref_put(&qp->ref, rxe_qp_release);
}

/* ---- the engine ----------------------------------------------------------- */

static void rxe_qp_work(struct work_struct *work)
{
	struct rxe_qp *qp = container_of(work, struct rxe_qp, work);

	rxe_qp_run(qp);
	rxe_qp_put(qp);
}

/**
 * rxe_qp_kick() - run the engine later, from process context
 * @qp: the QP
 *
 * Context: any.
 */
void rxe_qp_kick(struct rxe_qp *qp)
{
	if (READ_ONCE(qp->destroyed) || !kref_get_unless_zero(&qp->ref))
		return;
	if (!queue_work(rxe_wq, &qp->work))
		rxe_qp_put(qp);
}

/* Complete a WQE of the SQ with a flush error, signalled or not. */
static void rxe_flush_sq(struct rxe_qp *qp)
{
	struct ib_wc wc = {};

	rxe_comp_retire(qp);
	/* pairs with the release in post_send: WQEs up to head are filled */
	while (qp->sq.tail != smp_load_acquire(&qp->sq.head)) {
		struct rxe_sq_entry *wqe =
			&qp->sq.wqe[qp->sq.tail & (qp->sq.size - 1)];

		wc.wr_id = wqe->wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.qp = &qp->ibqp;
		wc.opcode = IB_WC_SEND;
		/* the slot is free for post_send once tail moves past it */
		smp_store_release(&qp->sq.tail, qp->sq.tail + 1);
		if (qp->sq.uring)
			rxe_uqp_sq_retired(qp);
		rxe_cq_post(qp->scq, &wc, false);
	}
	qp->req.idx = qp->sq.tail;
	qp->req.rd_atomic = 0;
}

static void rxe_flush_rq(struct rxe_qp *qp)
{
	struct rxe_rq_entry wqe;
	struct ib_wc wc = {};

	if (qp->resp.have_wqe) {
		qp->resp.have_wqe = false;
		qp->resp.in_send = false;
		wc.wr_id = qp->resp.wqe.wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.qp = &qp->ibqp;
		wc.opcode = IB_WC_RECV;
		rxe_cq_post(qp->rcq, &wc, false);
	}
	if (qp->srq) {
		/*
		 * The SRQ keeps its WQEs; what this QP had taken is flushed
		 * above.  Its owner learns that, once per entry into the
		 * error state (RESET clears the flag).
		 */
		if (!qp->resp.last_wqe) {
			qp->resp.last_wqe = true;
			rxe_qp_async_event(qp, IB_EVENT_QP_LAST_WQE_REACHED);
		}
		return;
	}
	/* the engine's scatter list is free: no receive is open any more */
	while (rxe_qp_take_recv(qp, &wqe, qp->resp.sge)) {
		wc.wr_id = wqe.wr_id;
		wc.status = IB_WC_WR_FLUSH_ERR;
		wc.qp = &qp->ibqp;
		wc.opcode = IB_WC_RECV;
		rxe_cq_post(qp->rcq, &wc, false);
	}
}

/**
 * rxe_qp_flush() - complete everything queued with a flush error
 * @qp: a QP in the error state; called by the engine only
 *
 * A QP on an SRQ also raises IB_EVENT_QP_LAST_WQE_REACHED, once.
 */
void rxe_qp_flush(struct rxe_qp *qp)
{
	timer_delete(&qp->retrans_timer);
	timer_delete(&qp->rnr_timer);
	skb_queue_purge(&qp->resp_pkts);
	skb_queue_purge(&qp->comp_pkts);
	qp->resp.in_write = false;
	qp->resp.rd.active = false;
	rxe_flush_sq(qp);
	rxe_flush_rq(qp);
}

/*
 * In SQD: once every WQE the requester had begun is retired, the SQ is
 * drained; the first time after a move from RTS, its owner is told.
 */
static void rxe_qp_sq_drained(struct rxe_qp *qp)
{
	bool tell;

	/* told already, or not asked: no lock on every pass in SQD */
	if (!READ_ONCE(qp->attr.sq_draining) ||
	    (s32)(qp->sq.tail - qp->req.started) < 0)
		return;
	spin_lock_bh(&qp->state_lock);
	tell = qp->state == IB_QPS_SQD && qp->attr.sq_draining;
	qp->attr.sq_draining = 0;
	spin_unlock_bh(&qp->state_lock);
	if (tell)
		rxe_qp_async_event(qp, IB_EVENT_SQ_DRAINED);
}

/* One pass over the QP's inputs; true if it did anything. */
static bool rxe_qp_step(struct rxe_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct sk_buff *skb;
	bool progress = false;
	int n;

	if (state == IB_QPS_ERR) {
		rxe_qp_flush(qp);
		return false;
	}
	if (state == IB_QPS_RESET)
		return false;
	/* Requests behind a READ wait until its responses are all out. */
	while (!rxe_resp_read_more(qp) &&
	       (skb = skb_dequeue(&qp->resp_pkts))) {
		rxe_resp_process(qp, skb);
		progress = true;
	}
	if (qp->resp.rd.active)
		progress = true;
	while ((skb = skb_dequeue(&qp->comp_pkts))) {
		rxe_comp_process(qp, skb);
		progress = true;
	}
	rxe_comp_timeouts(qp);
	rxe_comp_retire(qp);
	if (READ_ONCE(qp->state) == IB_QPS_ERR)
		return true;
	n = rxe_req_process(qp);
	if (n > 0) {
		rxe_comp_retire(qp);
		progress = true;
	}
	if (state == IB_QPS_SQD)
		rxe_qp_sq_drained(qp);
	return progress;
}

/**
 * rxe_qp_run() - run the QP's engine until it has nothing left to do
 * @qp: the QP; the caller keeps it alive for the call
 *
 * If another context is running the engine, it is asked to go round once
 * more and this call returns at once.  With interrupts off, or after a
 * budget of passes, the rest is left to a work item.
 *
 * The engine runs with bottom halves off, also when called from process
 * context (post_send, the work item): a runner that could be preempted
 * while it holds @eng_running would leave the packets the receive path
 * queued meanwhile, and the ACKs they ask for, waiting for the scheduler.
 *
 * Context: any.
 */
void rxe_qp_run(struct rxe_qp *qp)
{
	unsigned int budget = RXE_ENGINE_BUDGET;
	bool again;

	if (in_hardirq() || irqs_disabled()) {
		rxe_qp_kick(qp);
		return;
	}
	local_bh_disable();
	spin_lock(&qp->eng_lock);
	if (qp->eng_running) {
		qp->eng_more = true;
		spin_unlock(&qp->eng_lock);
		local_bh_enable();
		return;
	}
	qp->eng_running = true;
	qp->eng_more = false;
	spin_unlock(&qp->eng_lock);

	for (;;) {
		again = rxe_qp_step(qp);
		spin_lock(&qp->eng_lock);
		again |= qp->eng_more;
		qp->eng_more = false;
		if (!again || !--budget) {
			qp->eng_running = false;
			spin_unlock(&qp->eng_lock);
			break;
		}
		spin_unlock(&qp->eng_lock);
	}
	if (again)
		rxe_qp_kick(qp);
	local_bh_enable();
}

/**
 * rxe_qp_async_event() - tell the QP's owner about an asynchronous event
 * @qp: the QP
 * @type: IB_EVENT_*
 */
void rxe_qp_async_event(struct rxe_qp *qp, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = qp->ibqp.device,
		.element.qp = &qp->ibqp,
		.event = type,
	};

	if (qp->ibqp.event_handler)
		qp->ibqp.event_handler(&ev, qp->ibqp.qp_context);
}

/**
 * rxe_qp_error() - move a QP to the error state after a transport error
 * @qp: the QP; called by the engine, which flushes on its next pass
 */
void rxe_qp_error(struct rxe_qp *qp)
{
	spin_lock_bh(&qp->state_lock);
	WRITE_ONCE(qp->state, IB_QPS_ERR);
	qp->attr.qp_state = IB_QPS_ERR;
	spin_unlock_bh(&qp->state_lock);
	spin_lock_bh(&qp->eng_lock);
	qp->eng_more = true;
	spin_unlock_bh(&qp->eng_lock);
}

/* ---- receive WQEs ----------------------------------------------------------- */

/* The next receive WQE of the QP's own receive queue, as rxe_urq_take(). */
static int rxe_qp_take_own(struct rxe_qp *qp, struct rxe_rq_entry *out,
			   struct ib_sge *sge)
{
	struct rxe_rq_entry *w;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&qp->rq.lock, flags);
	if (qp->rq.uring) {
		ret = rxe_urq_take(&qp->rq, qp->ibqp.device, out, sge);
	} else if (qp->rq.tail == qp->rq.head) {
		ret = 0;
	} else {
		w = &qp->rq.wqe[qp->rq.tail & (qp->rq.size - 1)];
		*out = *w;
		memcpy(sge, w->sge, w->num_sge * sizeof(*sge));
		out->sge = sge;
		qp->rq.tail++;
		ret = 1;
	}
	spin_unlock_irqrestore(&qp->rq.lock, flags);
	return ret;
}

/**
 * rxe_qp_take_recv() - consume the next receive WQE of a QP (or its SRQ)
 * @qp: the QP
 * @out: receives the WQE
 * @sge: room for RXE_MAX_SGE entries; @out->sge points here afterwards
 *
 * A bad slot of a user ring, the QP's or its SRQ's, completes on the
 * QP's receive CQ in error and puts the QP in the error state.
 *
 * Context: any.
 * Return: false if none is posted, or the next one was refused.
 */
bool rxe_qp_take_recv(struct rxe_qp *qp, struct rxe_rq_entry *out,
		      struct ib_sge *sge)
{
	int ret;

	if (qp->srq)
		ret = rxe_srq_take(qp->srq, out, sge);
	else
		ret = rxe_qp_take_own(qp, out, sge);
	if (ret < 0) {
		ibdev_dbg(qp->ibqp.device,
			  "QP %#x: refused receive WQE completes in error\n",
			  rxe_qpn(qp));
		rxe_uqp_recv_refused(qp, out->wr_id);
	}
	return ret > 0;
}

/**
 * rxe_rq_geometry() - the sizes of a receive queue, which it starts with
 * @rq: the queue
 * @max_wr: entries wanted, rounded up to a power of two
 * @max_sge: scatter entries per WQE, at least 1
 *
 * All a user receive queue has besides its ring: it has no kernel one.
 */
void rxe_rq_geometry(struct rxe_rq *rq, u32 max_wr, u32 max_sge)
{
	spin_lock_init(&rq->lock);
	rq->size = roundup_pow_of_two(max(max_wr, 1U));
	rq->max_wr = rq->size;
	rq->max_sge = max(max_sge, 1U);
	rq->head = 0;
	rq->tail = 0;
}

/**
 * rxe_rq_init() - allocate a receive queue
 * @rq: the queue
 * @max_wr: requested depth
 * @max_sge: scatter entries per WQE
 *
 * Return: 0 or -ENOMEM.
 */
int rxe_rq_init(struct rxe_rq *rq, u32 max_wr, u32 max_sge)
{
	u32 i;

	rxe_rq_geometry(rq, max_wr, max_sge);
	rq->wqe = kvcalloc(rq->size, sizeof(*rq->wqe), RXE_GFP_SIZED);
	rq->sge = kvcalloc(rq->size * rq->max_sge, sizeof(*rq->sge),
			   RXE_GFP_SIZED);
	if (!rq->wqe || !rq->sge) {
		rxe_rq_free(rq);
		return -ENOMEM;
	}
	for (i = 0; i < rq->size; i++)
		rq->wqe[i].sge = &rq->sge[i * rq->max_sge];
	return 0;
}

/**
 * rxe_rq_free() - free a receive queue's memory
 * @rq: the queue
 */
void rxe_rq_free(struct rxe_rq *rq)
{
	kvfree(rq->wqe);
	kvfree(rq->sge);
	rq->wqe = NULL;
	rq->sge = NULL;
}

/**
 * rxe_rq_post() - add receive work requests to a queue
 * @rq: the queue
 * @wr: the chain
 * @bad_wr: set to the first request not posted
 *
 * Return: 0, -EINVAL for too many scatter entries, -ENOMEM when full.
 */
int rxe_rq_post(struct rxe_rq *rq, const struct ib_recv_wr *wr,
		const struct ib_recv_wr **bad_wr)
{
	struct rxe_rq_entry *w;
	unsigned long flags;
	int ret = 0, i;
	u64 len;

	spin_lock_irqsave(&rq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge < 0 || wr->num_sge > rq->max_sge) {
			ret = -EINVAL;
			break;
		}
		if (rq->head - rq->tail >= rq->size) {
			ret = -ENOMEM;
			break;
		}
		w = &rq->wqe[rq->head & (rq->size - 1)];
		w->wr_id = wr->wr_id;
		w->num_sge = wr->num_sge;
		len = 0;
		for (i = 0; i < wr->num_sge; i++) {
			w->sge[i] = wr->sg_list[i];
			len += wr->sg_list[i].length;
		}
		w->length = min_t(u64, len, U32_MAX);
		rq->head++;
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (ret && bad_wr)
		*bad_wr = wr;
	return ret;
}

/* ---- create, modify, query, destroy ----------------------------------------- */

static int rxe_sq_init(struct rxe_sq *sq, u32 max_wr, u32 max_sge)
{
	u32 i;

	spin_lock_init(&sq->lock);
	sq->size = roundup_pow_of_two(max(max_wr, 1U));
	sq->max_wr = sq->size;
	sq->max_sge = max(max_sge, 1U);
	sq->wqe = kvcalloc(sq->size, sizeof(*sq->wqe), RXE_GFP_SIZED);
	sq->sge = kvcalloc(sq->size * sq->max_sge, sizeof(*sq->sge),
			   RXE_GFP_SIZED);
	if (!sq->wqe || !sq->sge) {
		kvfree(sq->wqe);
		kvfree(sq->sge);
		return -ENOMEM;
	}
	for (i = 0; i < sq->size; i++)
		sq->wqe[i].sge = &sq->sge[i * sq->max_sge];
	return 0;
}

static void rxe_qp_timer(struct timer_list *t, bool rnr)
{
	struct rxe_qp *qp = rnr ? from_timer(qp, t, rnr_timer) :
				  from_timer(qp, t, retrans_timer);

	if (!kref_get_unless_zero(&qp->ref))
		return;
	if (rnr)
		WRITE_ONCE(qp->rnr_fired, true);
	else
		WRITE_ONCE(qp->timeout_fired, true);
	rxe_qp_run(qp);
	rxe_qp_put(qp);
}

static void rxe_retrans_timer_fn(struct timer_list *t)
{
	rxe_qp_timer(t, false);
}

static void rxe_rnr_timer_fn(struct timer_list *t)
{
	rxe_qp_timer(t, true);
}

/*
 * Reserve the QP's number in qp_xa, still without the QP in it.  The GSI
 * QP is QP 1 of the device's one port, so there can be only one: a second
 * gets -EBUSY.  Any other QP gets the next free number from RXE_MIN_QPN.
 */
static int rxe_alloc_qpn(struct rxe_dev *rxe, struct rxe_qp *qp)
{
	struct xa_limit lim = XA_LIMIT(RXE_MIN_QPN, RXE_MIN_QPN + RXE_MAX_QP - 1);
	u32 qpn;
	int ret;

	if (qp->ibqp.qp_type == IB_QPT_GSI) {
		ret = xa_insert_irq(&rxe->qp_xa, 1, NULL, GFP_KERNEL);
		if (ret) {
			/* -EBUSY: there is a GSI QP already */
			ibdev_dbg(&rxe->ib_dev, "create_qp: QP 1 not reserved: %d\n",
				  ret);
			return ret;
		}
		qp->ibqp.qp_num = 1;
		return 0;
	}
	ret = xa_alloc_cyclic_irq(&rxe->qp_xa, &qpn, NULL, lim,
				  &rxe->next_qpn, GFP_KERNEL);
	if (ret < 0)
		return ret;
	qp->ibqp.qp_num = qpn;
	return 0;
}

/*
 * What the QP really has; the receive side is the SRQ's, if it has one.
 * A user ring holds one entry fewer than it has slots.
 */
static void rxe_qp_caps(const struct rxe_qp *qp, struct ib_qp_cap *cap)
{
	u32 spare = qp->sq.uring ? 1 : 0;

	cap->max_send_wr = qp->sq.size - spare;
	cap->max_send_sge = qp->sq.max_sge;
	cap->max_inline_data = qp->sq.max_sge * sizeof(struct ib_sge);
	if (!qp->srq) {
		cap->max_recv_wr = qp->rq.size - spare;
		cap->max_recv_sge = qp->rq.max_sge;
	}
}

int rxe_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibqp->device);
	struct rxe_qp *qp = to_rqp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	/* a user ring keeps one slot empty */
	u32 spare = udata ? 1 : 0;
	int ret;

	switch (init->qp_type) {
	case IB_QPT_RC:
		qp->type_mask = RXE_MASK_RC;
		break;
	case IB_QPT_UC:
		qp->type_mask = RXE_MASK_UC;
		break;
	case IB_QPT_UD:
		qp->type_mask = RXE_MASK_UD;
		break;
	case IB_QPT_GSI:
		/* The MAD layer's, in the kernel; the core checked the port. */
		if (udata) {
			ibdev_dbg(ibqp->device, "create_qp: a GSI QP from user space\n");
			return -EOPNOTSUPP;
		}
		qp->type_mask = RXE_MASK_UD;
		break;
	default:
		/* No QP0 (subnet management) on Ethernet, no raw or XRC QPs. */
		ibdev_dbg(ibqp->device, "create_qp: QP type %d not supported\n",
			  init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || !init->recv_cq)
		return -EINVAL;
	if (cap->max_send_wr > rxe->attr.max_qp_wr ||
	    cap->max_recv_wr > rxe->attr.max_qp_wr ||
	    cap->max_send_sge > RXE_MAX_SGE || cap->max_recv_sge > RXE_MAX_SGE ||
	    cap->max_inline_data > RXE_MAX_INLINE)
		return -EINVAL;

	ret = rxe_obj_add(rxe, RXE_OBJ_QP);
	if (ret)
		return ret;
	qp->rxe = rxe;
	kref_init(&qp->ref);
	init_completion(&qp->done);
	spin_lock_init(&qp->state_lock);
	seqcount_spinlock_init(&qp->path_seq, &qp->state_lock);
	spin_lock_init(&qp->eng_lock);
	INIT_WORK(&qp->work, rxe_qp_work);
	skb_queue_head_init(&qp->resp_pkts);
	skb_queue_head_init(&qp->comp_pkts);
	timer_setup(&qp->retrans_timer, rxe_retrans_timer_fn, 0);
	timer_setup(&qp->rnr_timer, rxe_rnr_timer_fn, 0);
	qp->state = IB_QPS_RESET;
	qp->attr.qp_state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_rcq(init->send_cq);
	qp->rcq = to_rcq(init->recv_cq);
	qp->srq = init->srq ? to_rsrq(init->srq) : NULL;
	qp->mtu = ib_mtu_enum_to_int(IB_MTU_256);

	ret = rxe_sq_init(&qp->sq, cap->max_send_wr + spare,
			  max_t(u32, cap->max_send_sge,
				DIV_ROUND_UP(cap->max_inline_data,
					     sizeof(struct ib_sge))));
	if (ret)
		goto err_count;
	/* a user QP's receive WQEs stay in its ring */
	if (!qp->srq && udata) {
		rxe_rq_geometry(&qp->rq, cap->max_recv_wr + 1,
				cap->max_recv_sge);
	} else if (!qp->srq) {
		ret = rxe_rq_init(&qp->rq, cap->max_recv_wr, cap->max_recv_sge);
		if (ret)
			goto err_sq;
	}
	if (udata) {
		ret = rxe_uqp_create(qp, udata);
		if (ret)
			goto err_rq;
	}
	ret = rxe_alloc_qpn(rxe, qp);
	if (ret)
		goto err_uqp;
	rxe_qp_caps(qp, cap);
	/* Published last: from here on the receive path may find it. */
	xa_store_irq(&rxe->qp_xa, rxe_qpn(qp), qp, GFP_KERNEL);
	return 0;

err_uqp:
	rxe_uqp_free(qp);
err_rq:
	if (!qp->srq)
		rxe_rq_free(&qp->rq);
err_sq:
	kvfree(qp->sq.wqe);
	kvfree(qp->sq.sge);
err_count:
	rxe_obj_del(rxe, RXE_OBJ_QP);
	return ret;
}

/* Back to the state right after creation; the engine must not be running. */
static void rxe_qp_reset(struct rxe_qp *qp)
{
	unsigned long flags;

	timer_delete_sync(&qp->retrans_timer);
	timer_delete_sync(&qp->rnr_timer);
	skb_queue_purge(&qp->resp_pkts);
	skb_queue_purge(&qp->comp_pkts);
	if (qp->sq.uring)
		mutex_lock(&qp->sq.umutex);
	spin_lock_irqsave(&qp->sq.lock, flags);
	qp->sq.head = 0;
	qp->sq.tail = 0;
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (!qp->srq) {
		spin_lock_irqsave(&qp->rq.lock, flags);
		qp->rq.head = 0;
		qp->rq.tail = 0;
		spin_unlock_irqrestore(&qp->rq.lock, flags);
	}
	if (qp->sq.uring) {
		rxe_uqp_reset(qp);
		mutex_unlock(&qp->sq.umutex);
	}
	memset(&qp->req, 0, sizeof(qp->req));
	memset(&qp->comp, 0, sizeof(qp->comp));
	memset(&qp->resp, 0, sizeof(qp->resp));
	if (qp->rd_res)
		memset(qp->rd_res, 0,
		       qp->attr.max_dest_rd_atomic * sizeof(*qp->rd_res));
}

/*
 * Keep the engine from running while modify_qp() replaces something it
 * owns: wait for the run in progress, if any, then hold the engine as a
 * run would.  The runs asked for meanwhile happen in
 * rxe_qp_engine_release().  Process context.
 */
static void rxe_qp_engine_hold(struct rxe_qp *qp)
{
	for (;;) {
		spin_lock_bh(&qp->eng_lock);
		if (!qp->eng_running) {
			qp->eng_running = true;
			qp->eng_more = false;
			spin_unlock_bh(&qp->eng_lock);
			return;
		}
		spin_unlock_bh(&qp->eng_lock);
		usleep_range(50, 100);
	}
}

static void rxe_qp_engine_release(struct rxe_qp *qp)
{
	bool more;

	spin_lock_bh(&qp->eng_lock);
	more = qp->eng_more;
	qp->eng_running = false;
	spin_unlock_bh(&qp->eng_lock);
	if (more)
		rxe_qp_run(qp);
}

/*
 * Responder resources for a new max_dest_rd_atomic of @n: what it adds to
 * the QP's count against the device's max_res_rd_atom, and the array.
 * *@res stays NULL for @n 0.
 */
static int rxe_rd_res_prepare(struct rxe_qp *qp, u32 n,
			      struct rxe_rd_res **res)
{
	struct rxe_dev *rxe = qp->rxe;
	u32 old = qp->attr.max_dest_rd_atomic;
	u32 more = n > old ? n - old : 0;

	*res = NULL;
	if (more && (u32)atomic_add_return(more, &rxe->rd_res) >
		    rxe->attr.max_res_rd_atom) {
		atomic_sub(more, &rxe->rd_res);
		ibdev_dbg(&rxe->ib_dev,
			  "QP %#x: %u responder resources refused: the device has %d in all\n",
			  rxe_qpn(qp), n, rxe->attr.max_res_rd_atom);
		return -EINVAL;
	}
	if (!n)
		return 0;
	*res = kcalloc(n, sizeof(**res), GFP_KERNEL);
	if (!*res) {
		atomic_sub(more, &rxe->rd_res);
		ibdev_dbg(&rxe->ib_dev, "QP %#x: no memory for %u responder resources\n",
			  rxe_qpn(qp), n);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Put @res, of @n entries, in the place of the QP's responder resources,
 * keeping the newest of what they remember; give back to the device what
 * the QP holds no more.  The engine held, @state_lock held.  Returns the
 * old array, to be freed.
 */
static struct rxe_rd_res *rxe_rd_res_replace(struct rxe_qp *qp,
					     struct rxe_rd_res *res, u32 n)
{
	u32 old = qp->attr.max_dest_rd_atomic, keep = min(old, n), i;
	struct rxe_rd_res *prev = qp->rd_res;

	/* slot res_head holds the oldest, the one before it the newest */
	for (i = 0; i < keep; i++)
		res[i] = prev[(qp->resp.res_head + old - keep + i) % old];
	qp->resp.res_head = n ? keep % n : 0;
	qp->rd_res = res;
	qp->attr.max_dest_rd_atomic = n;
	if (old > n)
		atomic_sub(old - n, &qp->rxe->rd_res);
	return prev;
}

static int rxe_qp_check_attr(struct rxe_qp *qp, struct ib_qp_attr *attr,
			     int mask, enum ib_qp_state cur,
			     enum ib_qp_state next)
{
	struct rxe_dev *rxe = qp->rxe;

	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) && attr->port_num != 1)
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > rxe->attr.max_qp_init_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > rxe->attr.max_qp_rd_atom)
		return -EINVAL;
	if ((mask & IB_QP_TIMEOUT) && attr->timeout > 31)
		return -EINVAL;
	if ((mask & IB_QP_RETRY_CNT) && attr->retry_cnt > 7)
		return -EINVAL;
	if ((mask & IB_QP_RNR_RETRY) && attr->rnr_retry > 7)
		return -EINVAL;
	if ((mask & IB_QP_MIN_RNR_TIMER) && attr->min_rnr_timer > 31)
		return -EINVAL;
	if ((mask & IB_QP_DEST_QPN) && attr->dest_qp_num > RXE_QPN_MASK)
		return -EINVAL;
	return 0;
}

/*
 * The attributes modify_qp() keeps as they come, in qp->attr, by mask
 * bit; the address vector and the state are handled on their own.
 */
struct rxe_qp_attr_slot {
	int	bit;
	u16	off;
	u16	len;
};

#define RXE_QPA_OFF(f)	offsetof(struct ib_qp_attr, f)
#define RXE_QPA_LEN(f)	sizeof_field(struct ib_qp_attr, f)

static const struct rxe_qp_attr_slot rxe_qp_attr_slots[] = {
	{ IB_QP_ACCESS_FLAGS, RXE_QPA_OFF(qp_access_flags),
	  RXE_QPA_LEN(qp_access_flags) },
	{ IB_QP_PKEY_INDEX, RXE_QPA_OFF(pkey_index), RXE_QPA_LEN(pkey_index) },
	{ IB_QP_PORT, RXE_QPA_OFF(port_num), RXE_QPA_LEN(port_num) },
	{ IB_QP_QKEY, RXE_QPA_OFF(qkey), RXE_QPA_LEN(qkey) },
	{ IB_QP_PATH_MTU, RXE_QPA_OFF(path_mtu), RXE_QPA_LEN(path_mtu) },
	{ IB_QP_TIMEOUT, RXE_QPA_OFF(timeout), RXE_QPA_LEN(timeout) },
	{ IB_QP_RETRY_CNT, RXE_QPA_OFF(retry_cnt), RXE_QPA_LEN(retry_cnt) },
	{ IB_QP_RNR_RETRY, RXE_QPA_OFF(rnr_retry), RXE_QPA_LEN(rnr_retry) },
	{ IB_QP_RQ_PSN, RXE_QPA_OFF(rq_psn), RXE_QPA_LEN(rq_psn) },
	{ IB_QP_MAX_QP_RD_ATOMIC, RXE_QPA_OFF(max_rd_atomic),
	  RXE_QPA_LEN(max_rd_atomic) },
	{ IB_QP_MIN_RNR_TIMER, RXE_QPA_OFF(min_rnr_timer),
	  RXE_QPA_LEN(min_rnr_timer) },
	{ IB_QP_SQ_PSN, RXE_QPA_OFF(sq_psn), RXE_QPA_LEN(sq_psn) },
	{ IB_QP_MAX_DEST_RD_ATOMIC, RXE_QPA_OFF(max_dest_rd_atomic),
	  RXE_QPA_LEN(max_dest_rd_atomic) },
	{ IB_QP_DEST_QPN, RXE_QPA_OFF(dest_qp_num), RXE_QPA_LEN(dest_qp_num) },
};

static void rxe_qp_store_attrs(struct ib_qp_attr *dst,
			       const struct ib_qp_attr *src, int mask)
{
	const struct rxe_qp_attr_slot *slot;

	for (slot = rxe_qp_attr_slots;
	     slot < rxe_qp_attr_slots + ARRAY_SIZE(rxe_qp_attr_slots); slot++)
		if (mask & slot->bit)
			memcpy((u8 *)dst + slot->off,
			       (const u8 *)src + slot->off, slot->len);
}

int rxe_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_rd_res *res = NULL;
	struct rxe_dest av = {};
	enum ib_qp_state cur, next;
	bool new_res;
	int ret;

	if (udata && (udata->inlen || udata->outlen)) {
		ibdev_dbg(ibqp->device,
			  "QP %#x: modify with %zu/%zu bytes of driver data refused\n",
			  rxe_qpn(qp), udata->inlen, udata->outlen);
		return -EINVAL;
	}
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	cur = (mask & IB_QP_CUR_STATE) ? attr->cur_qp_state : READ_ONCE(qp->state);
	next = (mask & IB_QP_STATE) ? attr->qp_state : cur;
	ret = rxe_qp_check_attr(qp, attr, mask, cur, next);
	if (ret)
		return ret;
	if (mask & IB_QP_AV) {
		ret = rxe_av_from_attr(qp->rxe, &attr->ah_attr, &av);
		if (ret)
			return ret;
	}
	/* Last, as it cannot be undone: nothing below fails. */
	new_res = (mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
		  attr->max_dest_rd_atomic != qp->attr.max_dest_rd_atomic;
	if (new_res) {
		ret = rxe_rd_res_prepare(qp, attr->max_dest_rd_atomic, &res);
		if (ret)
			return ret;
	}
	if (next == IB_QPS_RESET && cur != IB_QPS_RESET) {
		/*
		 * Quiesce the engine before its state is wiped: in RESET a
		 * run does nothing, so wait for the one in progress, if any.
		 */
		spin_lock_bh(&qp->state_lock);
		WRITE_ONCE(qp->state, IB_QPS_RESET);
		spin_unlock_bh(&qp->state_lock);
		flush_work(&qp->work);
		while (READ_ONCE(qp->eng_running))
			usleep_range(100, 200);
		rxe_qp_reset(qp);
	}

	if (new_res)
		rxe_qp_engine_hold(qp);
	spin_lock_bh(&qp->state_lock);
	if (new_res)
		res = rxe_rd_res_replace(qp, res, attr->max_dest_rd_atomic);
	rxe_qp_store_attrs(&qp->attr, attr, mask);
	/* What the engine keeps of them */
	if (mask & IB_QP_AV) {
		write_seqcount_begin(&qp->path_seq);
		qp->av = av;
		write_seqcount_end(&qp->path_seq);
		rdma_replace_ah_attr(&qp->attr.ah_attr, &attr->ah_attr);
	}
	if (mask & IB_QP_PATH_MTU)
		qp->mtu = ib_mtu_enum_to_int(qp->attr.path_mtu);
	else if (qp->type_mask == RXE_MASK_UD && next == IB_QPS_RTS)
		qp->mtu = ib_mtu_enum_to_int(qp->rxe->port_attr.active_mtu);
	if (mask & IB_QP_RETRY_CNT)
		qp->comp.retry_cnt = qp->attr.retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		qp->comp.rnr_retry = qp->attr.rnr_retry;
	if (mask & IB_QP_RQ_PSN) {
		qp->attr.rq_psn &= RXE_PSN_MASK;
		qp->resp.psn = qp->attr.rq_psn;
	}
	if (mask & IB_QP_SQ_PSN) {
		qp->attr.sq_psn &= RXE_PSN_MASK;
		qp->req.psn = qp->attr.sq_psn;
		qp->comp.psn = qp->attr.sq_psn;
	}
	if (mask & (IB_QP_AV | IB_QP_DEST_QPN))
		qp->src_port = rdma_get_udp_sport(qp->av.flow_label,
						  rxe_qpn(qp),
						  qp->attr.dest_qp_num);
	/* SQD drains the SQ; the engine reports the end (rxe_qp_sq_drained()) */
	if (next != IB_QPS_SQD)
		qp->attr.sq_draining = 0;
	else if (cur == IB_QPS_RTS)
		qp->attr.sq_draining = 1;
	qp->attr.qp_state = next;
	qp->attr.cur_qp_state = next;
	WRITE_ONCE(qp->state, next);
	spin_unlock_bh(&qp->state_lock);
	if (new_res) {
		rxe_qp_engine_release(qp);
		kfree(res);
	}

	/* flush; tell of a drained SQ; or send what waited in SQD */
	if (next == IB_QPS_ERR || (next != cur && (next == IB_QPS_SQD ||
						   next == IB_QPS_RTS)))
		rxe_qp_run(qp);
	return 0;
}

int rxe_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct ib_qp_cap cap = {};

	rxe_qp_caps(qp, &cap);

	/*
	 * modify_qp() keeps every attribute it was given in qp->attr; what
	 * moves on its own (state, PSNs) comes from the engine's copies.
	 */
	spin_lock_bh(&qp->state_lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->rq_psn = qp->resp.psn;
	attr->sq_psn = qp->req.psn;
	spin_unlock_bh(&qp->state_lock);
	/*
	 * ib_query_qp() hands out no GID reference: the caller gets the path
	 * by value, its source GID by index only.
	 */
	attr->ah_attr.grh.sgid_attr = NULL;
	if (!attr->port_num)
		attr->port_num = 1;
	attr->cap = cap;

	*init = (struct ib_qp_init_attr) {
		.send_cq = qp->ibqp.send_cq,
		.recv_cq = qp->ibqp.recv_cq,
		.srq = qp->ibqp.srq,
		.qp_type = qp->ibqp.qp_type,
		.cap = cap,
		.sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR,
	};
	return 0;
}

int rxe_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rxe_dev *rxe = qp->rxe;

	WRITE_ONCE(qp->destroyed, true);
	xa_erase_irq(&rxe->qp_xa, rxe_qpn(qp));
	rxe_mcast_detach_all(qp);
	timer_shutdown_sync(&qp->retrans_timer);
	timer_shutdown_sync(&qp->rnr_timer);
	if (cancel_work_sync(&qp->work))
		rxe_qp_put(qp);
	rxe_qp_put(qp);
	wait_for_completion(&qp->done);
	/* A work item queued by a late user has run by now; so have timers. */
	flush_work(&qp->work);
	synchronize_rcu();

	skb_queue_purge(&qp->resp_pkts);
	skb_queue_purge(&qp->comp_pkts);
	rdma_destroy_ah_attr(&qp->attr.ah_attr);
	kvfree(qp->sq.wqe);
	kvfree(qp->sq.sge);
	if (!qp->srq)
		rxe_rq_free(&qp->rq);
	rxe_uqp_free(qp);
	kfree(qp->rd_res);
	atomic_sub(qp->attr.max_dest_rd_atomic, &rxe->rd_res);
	rxe_obj_del(rxe, RXE_OBJ_QP);
	return 0;
}
