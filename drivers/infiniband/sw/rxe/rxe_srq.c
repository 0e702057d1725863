// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues: a receive queue (struct rxe_rq) that several QPs
 * take their receive WQEs from, with the limit event: once armed with a
 * limit, the SRQ raises IB_EVENT_SRQ_LIMIT_REACHED the first time a
 * receive leaves fewer WQEs than the limit, and disarms.
 *
 * A user SRQ keeps its WQEs in a ring librxe fills (rxe_uqp.c), of as
 * many slots as the next power of two above the size asked for; one slot
 * stays empty, so it holds one WQE fewer than it has slots, and that is
 * the size reported.  Its WQEs are taken from the ring as a user QP's
 * are, with the same distrust.  It cannot be resized: the device does
 * not claim IB_DEVICE_SRQ_RESIZE.
 */
#include "rxe.h"

/* The WQEs the SRQ can hold. */
static u32 rxe_srq_capacity(const struct rxe_srq *srq)
{
	return srq->rq.size - (srq->rq.uring ? 1 : 0);
}

/* The ring of a user SRQ, and the answer librxe reads. */
static int rxe_usrq_create(struct rxe_srq *srq, const struct ib_srq_attr *a,
			   struct ib_udata *udata)
{
	struct rxe_ucontext *uc = rdma_udata_to_drv_context(udata,
							     struct rxe_ucontext,
							     ibuc);
	struct rxe_create_srq_resp resp = {};
	struct rxe_uring *ring;
	int ret;

	rxe_rq_geometry(&srq->rq, a->max_wr + 1, a->max_sge);
	ring = rxe_urq_new(uc, &srq->rq);
	if (IS_ERR(ring)) {
		ibdev_dbg(srq->ibsrq.device, "user SRQ: no ring: %ld\n",
			  PTR_ERR(ring));
		return PTR_ERR(ring);
	}
	rxe_uring_mminfo(ring, &resp.mi);
	resp.srq_num = srq->num;
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		ibdev_dbg(srq->ibsrq.device, "user SRQ: response not written\n");
		rxe_uring_free(ring);
		return ret;
	}
	srq->rq.uring = ring;
	return 0;
}

int rxe_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);
	struct ib_srq_attr *a = &init->attr;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC) {
		ibdev_dbg(&rxe->ib_dev, "SRQ of type %d not supported\n",
			  init->srq_type);
		return -EOPNOTSUPP;
	}
	if (!a->max_wr || a->max_wr > rxe->attr.max_srq_wr ||
	    a->max_sge > rxe->attr.max_srq_sge || a->srq_limit > a->max_wr) {
		ibdev_dbg(&rxe->ib_dev,
			  "SRQ of %u WQEs, %u SGEs, limit %u refused\n",
			  a->max_wr, a->max_sge, a->srq_limit);
		return -EINVAL;
	}
	if (udata && (udata->outlen < sizeof(struct rxe_create_srq_resp) ||
		      !ib_is_udata_cleared(udata, 0, udata->inlen))) {
		ibdev_dbg(&rxe->ib_dev,
			  "user SRQ: driver data %zu in, %zu out refused\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}
	ret = rxe_obj_add(rxe, RXE_OBJ_SRQ);
	if (ret)
		return ret;
	ret = ida_alloc_range(&rxe->srq_ida, 1, RXE_MAX_SRQ, GFP_KERNEL);
	if (ret < 0) {
		ibdev_dbg(&rxe->ib_dev, "SRQ: no number: %d\n", ret);
		goto err_count;
	}
	srq->num = ret;
	if (udata)
		ret = rxe_usrq_create(srq, a, udata);
	else
		ret = rxe_rq_init(&srq->rq, a->max_wr, a->max_sge);
	if (ret)
		goto err_num;
	srq->limit = a->srq_limit;
	a->max_wr = rxe_srq_capacity(srq);
	a->max_sge = srq->rq.max_sge;
	return 0;

err_num:
	ida_free(&rxe->srq_ida, srq->num);
err_count:
	rxe_obj_del(rxe, RXE_OBJ_SRQ);
	return ret;
}

/*
 * The driver data of a user SRQ's modify: librxe's 8-byte request, a
 * pointer for the new ring's mminfo after a resize.  Without resizes
 * nothing is written there.
 */
static int rxe_usrq_modify_check(struct rxe_srq *srq, struct ib_udata *udata)
{
	if (udata->inlen < sizeof(struct rxe_modify_srq_cmd) ||
	    !ib_is_udata_cleared(udata, sizeof(struct rxe_modify_srq_cmd),
				 udata->inlen -
				 sizeof(struct rxe_modify_srq_cmd))) {
		ibdev_dbg(srq->ibsrq.device,
			  "SRQ %u: modify with %zu bytes of driver data refused\n",
			  srq->num, udata->inlen);
		return -EINVAL;
	}
	return 0;
}

int rxe_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);
	unsigned long flags;
	int ret;

	if (mask & IB_SRQ_MAX_WR) {
		/* as the drivers of devices without IB_DEVICE_SRQ_RESIZE */
		ibdev_dbg(ibsrq->device, "SRQ %u: resizing is not offered\n",
			  srq->num);
		return -EINVAL;
	}
	if (srq->rq.uring && udata) {
		ret = rxe_usrq_modify_check(srq, udata);
		if (ret)
			return ret;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	if (attr->srq_limit > rxe_srq_capacity(srq)) {
		ibdev_dbg(ibsrq->device, "SRQ %u: limit %u above its %u WQEs\n",
			  srq->num, attr->srq_limit, rxe_srq_capacity(srq));
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->rq.lock, flags);
	srq->limit = attr->srq_limit;
	spin_unlock_irqrestore(&srq->rq.lock, flags);
	return 0;
}

int rxe_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	attr->max_wr = rxe_srq_capacity(srq);
	attr->max_sge = srq->rq.max_sge;
	attr->srq_limit = READ_ONCE(srq->limit);
	return 0;
}

int rxe_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibsrq->device);
	struct rxe_srq *srq = to_rsrq(ibsrq);

	if (srq->rq.uring)
		rxe_uring_free(srq->rq.uring);
	else
		rxe_rq_free(&srq->rq);
	srq->rq.uring = NULL;
	ida_free(&rxe->srq_ida, srq->num);
	rxe_obj_del(rxe, RXE_OBJ_SRQ);
	return 0;
}

int rxe_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad_wr)
{
	struct rxe_srq *srq = to_rsrq(ibsrq);

	if (srq->rq.uring) {
		/* user space posts into the ring itself */
		ibdev_dbg(ibsrq->device, "SRQ %u: post to a user SRQ refused\n",
			  srq->num);
		*bad_wr = wr;
		return -EINVAL;
	}
	return rxe_rq_post(&srq->rq, wr, bad_wr);
}

/* The next WQE of a kernel SRQ, as rxe_urq_take(); its lock is held. */
static int rxe_srq_take_kernel(struct rxe_rq *rq, struct rxe_rq_entry *out,
			       struct ib_sge *sge)
{
	struct rxe_rq_entry *w;

	if (rq->tail == rq->head)
		return 0;
	w = &rq->wqe[rq->tail & (rq->size - 1)];
	*out = *w;
	memcpy(sge, w->sge, w->num_sge * sizeof(*sge));
	out->sge = sge;
	rq->tail++;
	return 1;
}

/**
 * rxe_srq_take() - consume the next WQE of an SRQ
 * @srq: the SRQ
 * @out: receives the WQE (only its wr_id if it is refused)
 * @sge: room for RXE_MAX_SGE entries; @out->sge points here afterwards
 *
 * Raises the limit event when this leaves the SRQ below its armed limit.
 * A bad slot of a user SRQ's ring is used up and refused; the caller
 * completes it in error on the QP that took it.
 *
 * Context: any.
 * Return: 1 if @out holds a WQE, 0 if the SRQ is empty, -EINVAL for a
 * refused slot.
 */
int rxe_srq_take(struct rxe_srq *srq, struct rxe_rq_entry *out,
		 struct ib_sge *sge)
{
	struct rxe_rq *rq = &srq->rq;
	unsigned long flags;
	bool event = false;
	u32 count;
	int ret;

	spin_lock_irqsave(&rq->lock, flags);
	if (rq->uring) {
		ret = rxe_urq_take(rq, srq->ibsrq.device, out, sge);
		count = rxe_urq_count(rq);
	} else {
		ret = rxe_srq_take_kernel(rq, out, sge);
		count = rxe_rq_count(rq);
	}
	if (ret && srq->limit && count < srq->limit) {
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
	return ret;
}
