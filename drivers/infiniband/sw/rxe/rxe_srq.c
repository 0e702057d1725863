// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: a receive queue (struct rxe_rq) that several QPs
 * take their receive WQEs from, with the limit event: once armed with a
 * limit, the SRQ raises IB_EVENT_SRQ_LIMIT_REACHED the first time a
 * receive leaves fewer WQEs than the limit, and disarms.
 */
#include "rxe.h"

int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct ib_srq_attr *a = &init->attr;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!a->max_wr || a->max_wr > rxe->attr.max_srq_wr ||
	    a->max_sge > rxe->attr.max_srq_sge || a->srq_limit > a->max_wr)
		return -EINVAL;
	ret = rxe_obj_add(rxe, RXE_OBJ_SRQ);
	if (ret)
		return ret;
	ret = rxe_rq_init(&srq->rq, a->max_wr, a->max_sge);
	if (ret) {
		rxe_obj_del(rxe, RXE_OBJ_SRQ);
		return ret;
	}
	srq->limit = a->srq_limit;
	a->max_wr = srq->rq.size;
	a->max_sge = srq->rq.max_sge;
	return 0;
}

int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	int ret = 0;

	if (mask & IB_SRQ_MAX_WR)
		return -EOPNOTSUPP;	/* resizing is not offered */
	if (mask & IB_SRQ_LIMIT) {
		spin_lock_irqsave(&srq->rq.lock, flags);
		if (attr->srq_limit > srq->rq.size)
			ret = -EINVAL;
		else
			srq->limit = attr->srq_limit;
		spin_unlock_irqrestore(&srq->rq.lock, flags);
	}
	return ret;
}

int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	attr->max_wr = srq->rq.size;
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	rxe_rq_free(&to_rsrq(ibsrq)->rq);
	rxe_obj_del(to_rdev(ibsrq->device), RXE_OBJ_SRQ);
	return 0;
}

int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	return rxe_rq_post(&to_rsrq(ibsrq)->rq, wr, bad_wr);
}

/**
 * rxe_srq_take() - consume the next WQE of an SRQ
 * @srq: the SRQ
 * @out: receives the WQE
 * @sge: room for RXE_MAX_SGE entries; @out->sge points here afterwards
 *
 * Raises the limit event when this leaves the SRQ below its armed limit.
 *
 * Context: any.
 * Return: false if the SRQ is empty.
 */
bool rxe_srq_take(struct rxe_srq *srq, struct rxe_rq_entry *out,
		  struct ib_sge *sge)
{
	struct rxe_rq *rq = &srq->rq;
	struct rxe_rq_entry *w;
	unsigned long flags;
	bool event = false;

	spin_lock_irqsave(&rq->lock, flags);
	if (rq->tail == rq->head) {
		spin_unlock_irqrestore(&rq->lock, flags);
		return false;
	}
	w = &rq->wqe[rq->tail & (rq->size - 1)];
	*out = *w;
	memcpy(sge, w->sge, w->num_sge * sizeof(*sge));
	out->sge = sge;
	rq->tail++;
	if (srq->limit && rxe_rq_count(rq) < srq->limit) {
		srq->limit = 0;
		event = true;
	}
	spin_unlock_irqrestore(&rq->lock, flags);

	if (event && srq->ibsrq.event_handler) {
		struct ib_event ev = {
			.device = srq->ibsrq.device,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&ev, srq->ibsrq.srq_context);
	}
	return true;
}
