// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues: a ring of struct ib_wc filled by the engines and the
 * UD receive path, drained by poll_cq(), with the usual arm-and-notify
 * protocol.  One spinlock (irqsave) guards the ring and the arming state;
 * the completion handler is called after it is released.  A user CQ has
 * a ring shared with librxe instead (rxe_uring.c), which user space polls
 * itself.
 *
 * Resizing swaps the ring (or the kernel queue) under that same lock, so
 * a completion is written either to the old ring before the move or to
 * the new one after it, never lost between them.
 */
#include <linux/log2.h>
#include <linux/slab.h>

#include "rxe.h"

static void rxe_cq_event(struct rxe_cq *cq, enum ib_event_type type)
{
	struct ib_event ev = {
		.device = cq->ibcq.device,
		.element.cq = &cq->ibcq,
		.event = type,
	};

	if (cq->ibcq.event_handler)
		cq->ibcq.event_handler(&ev, cq->ibcq.cq_context);
}

/*
 * libibverbs' IBV_WC_WITH_INV: user space numbers this flag differently
 * from the kernel's IB_WC_WITH_INVALIDATE, and the uapi has no name for
 * it.  GRH and WITH_IMM have the same values on both sides.
 */
#define RXE_UWC_WITH_INV	BIT(3)

/* The slot of a user ring that @index names, masked by the kernel's mask. */
static struct ib_uverbs_wc *rxe_cq_slot(const struct rxe_uring *ring,
					u32 index)
{
	return (struct ib_uverbs_wc *)(ring->buf->data +
				       ((size_t)(index & ring->mask) <<
					ring->log2_elem));
}

/* Write @wc into the user ring's slot @cq->head; cq->lock held. */
static bool rxe_cq_user_put(struct rxe_cq *cq, const struct ib_wc *wc)
{
	struct rxe_uring *ring = cq->uring;
	struct ib_uverbs_wc *uwc;
	u32 cons;

	/* pairs with librxe's store-release once it has read the slot */
	cons = smp_load_acquire(&ring->buf->consumer_index) & ring->mask;
	if (((cq->head + 1) & ring->mask) == cons)
		return false;
	uwc = rxe_cq_slot(ring, cq->head);
	*uwc = (struct ib_uverbs_wc) {
		.wr_id = wc->wr_id,
		.status = wc->status,
		.opcode = wc->opcode,
		.vendor_err = wc->vendor_err,
		.byte_len = wc->byte_len,
		.qp_num = wc->qp->qp_num,
		.src_qp = wc->src_qp,
		.wc_flags = wc->wc_flags & (IB_WC_GRH | IB_WC_WITH_IMM),
		.pkey_index = wc->pkey_index,
		.slid = wc->slid,
		.sl = wc->sl,
		.dlid_path_bits = wc->dlid_path_bits,
		.port_num = wc->port_num,
	};
	if (wc->wc_flags & IB_WC_WITH_INVALIDATE) {
		uwc->wc_flags |= RXE_UWC_WITH_INV;
		uwc->ex.invalidate_rkey = wc->ex.invalidate_rkey;
	} else {
		uwc->ex.imm_data = wc->ex.imm_data;
	}
	cq->head++;
	/* user space sees the entry before the index that covers it */
	smp_store_release(&ring->buf->producer_index, cq->head & ring->mask);
	return true;
}

/**
 * rxe_cq_post() - add a completion
 * @cq: the CQ
 * @wc: the completion
 * @solicited: it belongs to a solicited receive
 *
 * Calls the CQ's completion handler when the CQ was armed for this kind of
 * completion.  On overflow the completion is lost and IB_EVENT_CQ_ERR is
 * raised once.
 *
 * Context: any.
 * Return: 0, or -ENOSPC on overflow.
 */
int rxe_cq_post(struct rxe_cq *cq, const struct ib_wc *wc, bool solicited)
{
	bool notify = false, overflow = false, room;
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->uring) {
		room = rxe_cq_user_put(cq, wc);
	} else {
		room = cq->head - cq->tail < cq->size;
		if (room)
			cq->queue[cq->head++ & (cq->size - 1)] = *wc;
	}
	if (!room) {
		overflow = !cq->overflow;
		cq->overflow = true;
	} else if (cq->notify == IB_CQ_NEXT_COMP ||
		   (cq->notify == IB_CQ_SOLICITED &&
		    (solicited || wc->status != IB_WC_SUCCESS))) {
		cq->notify = 0;
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (overflow) {
		ibdev_dbg(cq->ibcq.device, "CQ overflow: completion lost\n");
		rxe_cq_event(cq, IB_EVENT_CQ_ERR);
		return -ENOSPC;
	}
	if (notify && cq->ibcq.comp_handler)
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	return cq->overflow ? -ENOSPC : 0;
}

/*
 * The ring of a user CQ, in librxe's layout, and its mminfo in the
 * driver response.  librxe sends no driver data.
 */
static int rxe_cq_user_ring(struct rxe_cq *cq, struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = &attrs->driver_udata;
	struct rxe_create_cq_resp resp = {};
	int ret;

	if (udata->outlen < sizeof(resp) ||
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(cq->ibcq.device,
			  "user CQ: driver data %zu in, %zu out refused\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}
	cq->uring = rxe_uring_new(to_ruc(attrs->context), cq->size,
				  sizeof(struct ib_uverbs_wc));
	if (IS_ERR(cq->uring)) {
		ret = PTR_ERR(cq->uring);
		cq->uring = NULL;
		return ret;
	}
	rxe_uring_mminfo(cq->uring, &resp.mi);
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		rxe_uring_free(cq->uring);
		cq->uring = NULL;
	}
	return ret;
}

int rxe_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	struct rxe_dev *rxe = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	int ret;

	if (!attr->cqe || attr->cqe > rxe->attr.max_cqe)
		return -EINVAL;
	if (attr->flags) {
		ibdev_dbg(&rxe->ib_dev, "CQ flags %#x not supported\n",
			  attr->flags);
		return -EOPNOTSUPP;
	}
	ret = rxe_obj_add(rxe, RXE_OBJ_CQ);
	if (ret)
		return ret;
	cq->size = roundup_pow_of_two(attr->cqe + 1);
	if (attrs) {
		ret = rxe_cq_user_ring(cq, attrs);
	} else {
		cq->queue = kvcalloc(cq->size, sizeof(*cq->queue),
				     RXE_GFP_SIZED);
		if (!cq->queue)
			ret = -ENOMEM;
	}
	if (ret) {
		rxe_obj_del(rxe, RXE_OBJ_CQ);
		return ret;
	}
	spin_lock_init(&cq->lock);
	ibcq->cqe = cq->size - 1;
	return 0;
}

int rxe_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rxe_cq *cq = to_rcq(ibcq);

	rxe_uring_free(cq->uring);
	kvfree(cq->queue);
	rxe_obj_del(to_rdev(ibcq->device), RXE_OBJ_CQ);
	return 0;
}

/*
 * Resize a user CQ to a new ring of @slots: its mminfo goes to user space
 * first, then, under cq->lock, the completions user space has not consumed
 * move in order to the start of the new ring and the new ring replaces
 * the old.  The old ring's buffer lives on while user space still maps
 * it (librxe unmaps it once it has mapped the new one); the kernel never
 * writes to it again.  Only the kernel's own producer position and mask
 * are trusted: the consumer index user space wrote is masked, so the
 * count of queued entries is at most the old ring's capacity.
 */
static int rxe_cq_user_resize(struct rxe_cq *cq, u32 slots,
			      struct ib_udata *udata)
{
	struct rxe_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct rxe_ucontext, ibuc);
	struct ib_device *dev = cq->ibcq.device;
	struct rxe_resize_cq_resp resp = {};
	struct rxe_uring *ring, *old;
	unsigned long flags;
	u32 cons, n, i;
	int ret;

	if (!uc) {
		ibdev_dbg(dev, "user CQ resize without a user context\n");
		return -EINVAL;
	}
	if (udata->outlen < sizeof(resp) ||
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(dev, "user CQ resize: driver data %zu in, %zu out refused\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}
	ring = rxe_uring_new(uc, slots, sizeof(struct ib_uverbs_wc));
	if (IS_ERR(ring)) {
		ibdev_dbg(dev, "user CQ resize: no ring of %u slots\n", slots);
		return PTR_ERR(ring);
	}
	rxe_uring_mminfo(ring, &resp.mi);
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (ret) {
		ibdev_dbg(dev, "user CQ resize: response not written\n");
		goto free;
	}

	spin_lock_irqsave(&cq->lock, flags);
	old = cq->uring;
	/* pairs with librxe's store-release once it has read a slot */
	cons = smp_load_acquire(&old->buf->consumer_index) & old->mask;
	n = (cq->head - cons) & old->mask;
	if (n > ring->mask) {
		spin_unlock_irqrestore(&cq->lock, flags);
		ibdev_dbg(dev, "user CQ resize to %u slots below %u queued\n",
			  slots, n);
		ret = -EINVAL;
		goto free;
	}
	for (i = 0; i < n; i++)
		memcpy(rxe_cq_slot(ring, i), rxe_cq_slot(old, cons + i),
		       sizeof(struct ib_uverbs_wc));
	/* the entries before the index that covers them */
	smp_store_release(&ring->buf->producer_index, n);
	cq->uring = ring;
	cq->head = n;
	cq->size = slots;
	cq->ibcq.cqe = ring->mask;
	spin_unlock_irqrestore(&cq->lock, flags);
	rxe_uring_free(old);
	return 0;

free:
	rxe_uring_free(ring);
	return ret;
}

/* Resize a kernel CQ: a new queue, the entries not polled moved in order. */
static int rxe_cq_kernel_resize(struct rxe_cq *cq, u32 size)
{
	struct ib_wc *q, *old;
	unsigned long flags;
	u32 n, i;

	q = kvcalloc(size, sizeof(*q), RXE_GFP_SIZED);
	if (!q)
		return -ENOMEM;
	spin_lock_irqsave(&cq->lock, flags);
	n = cq->head - cq->tail;
	if (n >= size) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kvfree(q);
		ibdev_dbg(cq->ibcq.device,
			  "CQ resize to %u entries below %u queued\n",
			  size - 1, n);
		return -EINVAL;
	}
	for (i = 0; i < n; i++)
		q[i] = cq->queue[(cq->tail + i) & (cq->size - 1)];
	old = cq->queue;
	cq->queue = q;
	cq->size = size;
	cq->tail = 0;
	cq->head = n;
	cq->ibcq.cqe = size - 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	kvfree(old);
	return 0;
}

/**
 * rxe_resize_cq() - give a CQ room for at least @cqe completions
 * @ibcq: the CQ
 * @cqe: the entries wanted; the CQ gets the next power of two less one
 * @udata: for a user CQ, librxe's driver data: no request bytes, room
 *	for struct rxe_resize_cq_resp (the new ring's mminfo); NULL for a
 *	kernel CQ
 *
 * The completions not yet consumed are kept, in order.  Concurrent
 * resizes of one CQ are serialised by cq->lock: each swaps in its own
 * ring whole.
 *
 * Context: process context; sleeps.
 * Return: 0; -EINVAL for a size of 0 or above max_cqe, below the number
 * of completions queued, or bad driver data; -ENOMEM; -EFAULT.
 */
int rxe_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(ibcq->device);
	struct rxe_cq *cq = to_rcq(ibcq);
	u32 size;

	if (cqe <= 0 || cqe > rxe->attr.max_cqe) {
		ibdev_dbg(&rxe->ib_dev, "CQ resize to %d entries (max %d)\n",
			  cqe, rxe->attr.max_cqe);
		return -EINVAL;
	}
	size = roundup_pow_of_two(cqe + 1);
	if (cq->uring)
		return rxe_cq_user_resize(cq, size, udata);
	if (udata) {
		ibdev_dbg(&rxe->ib_dev, "user resize of a kernel CQ\n");
		return -EINVAL;
	}
	return rxe_cq_kernel_resize(cq, size);
}

int rxe_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->tail != cq->head) {
		wc[n++] = cq->queue[cq->tail & (cq->size - 1)];
		cq->tail++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int rxe_peek_cq(struct ib_cq *ibcq, int wc_cnt)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	n = cq->head - cq->tail;
	spin_unlock_irqrestore(&cq->lock, flags);
	return min(n, wc_cnt);
}

int rxe_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rxe_cq *cq = to_rcq(ibcq);
	unsigned long irqf;
	bool waiting;

	/*
	 * IB_CQ_NEXT_COMP (2) asks for more than IB_CQ_SOLICITED (1): an
	 * armed request only widens until the event fires.
	 */
	spin_lock_irqsave(&cq->lock, irqf);
	cq->notify = max_t(u32, cq->notify, flags & IB_CQ_SOLICITED_MASK);
	waiting = cq->head != cq->tail;
	spin_unlock_irqrestore(&cq->lock, irqf);
	return (flags & IB_CQ_REPORT_MISSED_EVENTS) && waiting;
}
