// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs of user processes.  librxe posts work requests into rings
 * it shares with the kernel (rxe_uring.c): a send queue of struct
 * rxe_send_wqe slots and, without an SRQ, a receive queue of struct
 * rxe_recv_wqe slots, each followed by its scatter/gather list or inline
 * data.  Everything in those rings is written by user space, at any time.
 *
 * Send queue.  User space fills slots and moves the producer index, then
 * writes the POST_SEND doorbell.  The doorbell (rxe_uqp_doorbell()), in
 * process context, imports every new slot into the QP's kernel send queue:
 * it copies the slot once, checks the copy (opcode for the QP type,
 * flags, SGE count, inline length, message size, the AH by its ah_num and
 * PD) and translates it into a struct rxe_sq_entry, which the engines
 * then run exactly like a kernel work request.  A slot that fails the
 * checks becomes an entry that is already done with
 * IB_WC_LOC_QP_OP_ERR: it completes in order with that status and puts
 * the QP in the error state, as a malformed work request does on a real
 * adapter.  Slot i of the ring is entry i of the kernel queue (both have
 * as many slots and start at 0), so the kernel's tail is the ring's
 * consumer index: it moves when an entry retires (rxe_uqp_sq_retired()),
 * and user space can never have more work outstanding than its ring
 * holds.
 *
 * Receive queue.  No doorbell: the responder takes the next slot when a
 * message needs one (rxe_urq_take()), copying it and its scatter list,
 * and frees the slot at once.  A user SRQ's ring (rxe_srq.c) has the same
 * layout and is taken from by the same function.
 *
 * The kernel trusts none of the ring's contents: it keeps the geometry and
 * both of its own positions to itself, masks every index it reads, and
 * copies a slot before it checks it, so a concurrent writer can change
 * nothing that was checked.
 *
 * Locking: rxe_sq.umutex serialises doorbells with each other and with a
 * reset (the doorbell may sleep on it: it runs in process context only);
 * rxe_rq.lock guards the receive positions, as for a kernel QP.
 */
#include <linux/log2.h>

#include "rxe.h"

static void *rxe_uring_slot(const struct rxe_uring *ring, u32 index)
{
	return ring->buf->data + ((size_t)(index & ring->mask) << ring->log2_elem);
}

/* Where user space has filled the ring up to (a slot index). */
static u32 rxe_uring_producer(const struct rxe_uring *ring)
{
	/* pairs with librxe's store-release after it wrote the slot */
	return smp_load_acquire(&ring->buf->producer_index) & ring->mask;
}

/**
 * rxe_uqp_create() - the rings of a user QP and the response librxe reads
 * @qp: the QP, its kernel send queue (and receive queue sizes) set up
 * @udata: the command's driver data: none in, struct rxe_create_qp_resp
 *	out
 *
 * Context: process context.
 * Return: 0; -EINVAL for driver data librxe would not send; -ENOMEM;
 * -EFAULT.
 */
int rxe_uqp_create(struct rxe_qp *qp, struct ib_udata *udata)
{
	struct rxe_ucontext *uc = rdma_udata_to_drv_context(udata,
							     struct rxe_ucontext,
							     ibuc);
	struct rxe_create_qp_resp resp = {};
	int ret;

	if (udata->outlen < sizeof(resp) ||
	    !ib_is_udata_cleared(udata, 0, udata->inlen)) {
		ibdev_dbg(qp->ibqp.device,
			  "user QP: driver data %zu in, %zu out refused\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}
	mutex_init(&qp->sq.umutex);
	qp->sq.uring = rxe_uring_new(uc, qp->sq.size,
				     sizeof(struct rxe_send_wqe) +
				     qp->sq.max_sge * sizeof(struct rxe_sge));
	if (IS_ERR(qp->sq.uring)) {
		ret = PTR_ERR(qp->sq.uring);
		goto err;
	}
	rxe_uring_mminfo(qp->sq.uring, &resp.sq_mi);
	if (!qp->srq) {
		qp->rq.uring = rxe_urq_new(uc, &qp->rq);
		if (IS_ERR(qp->rq.uring)) {
			ret = PTR_ERR(qp->rq.uring);
			goto err;
		}
		rxe_uring_mminfo(qp->rq.uring, &resp.rq_mi);
	}
	ret = ib_copy_to_udata(udata, &resp, sizeof(resp));
	if (!ret)
		return 0;
err:
	rxe_uqp_free(qp);
	return ret;
}

/**
 * rxe_uqp_free() - let go of a user QP's rings
 * @qp: the QP; rings that were never made are NULL or an error pointer
 *
 * User space may keep its mappings; the buffers go with the last one.
 */
void rxe_uqp_free(struct rxe_qp *qp)
{
	if (!IS_ERR(qp->sq.uring))
		rxe_uring_free(qp->sq.uring);
	if (!IS_ERR(qp->rq.uring))
		rxe_uring_free(qp->rq.uring);
	qp->sq.uring = NULL;
	qp->rq.uring = NULL;
}

/**
 * rxe_uqp_reset() - empty a user QP's rings, as at creation
 * @qp: the QP, going to RESET with its engine stopped; the caller empties
 *	the kernel queues with the rings, holding @qp->sq.umutex, so that
 *	no doorbell runs meanwhile
 *
 * Context: process context (modify_qp()).
 */
void rxe_uqp_reset(struct rxe_qp *qp)
{
	struct rxe_uring *rings[] = { qp->sq.uring, qp->rq.uring };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rings); i++) {
		if (!rings[i])
			continue;
		WRITE_ONCE(rings[i]->buf->producer_index, 0);
		WRITE_ONCE(rings[i]->buf->consumer_index, 0);
	}
}

/**
 * rxe_uqp_sq_retired() - give user space the slots of retired send WQEs
 * @qp: a user QP; called by its engine after the send queue's tail moved
 */
void rxe_uqp_sq_retired(struct rxe_qp *qp)
{
	struct rxe_uring *ring = qp->sq.uring;

	/* the kernel is done with every slot before the new consumer index */
	smp_store_release(&ring->buf->consumer_index, qp->sq.tail & ring->mask);
}

/* The destination of a UD send, from the AH user space named by ah_num. */
static int rxe_uqp_ud_dest(struct rxe_qp *qp, u32 ah_num,
			   struct rxe_sq_entry *wqe)
{
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_ah *ah;
	int ret = -EINVAL;

	/*
	 * destroy_ah() erases the AH from ah_xa under this lock before the
	 * core frees it, so the AH stays alive while the lock is held.
	 */
	xa_lock(&rxe->ah_xa);
	ah = ah_num ? xa_load(&rxe->ah_xa, ah_num) : NULL;
	if (ah && ah->ibah.pd == qp->ibqp.pd) {
		rxe_ah_get_av(ah, &wqe->av);
		ret = 0;
	}
	xa_unlock(&rxe->ah_xa);
	if (ret)
		ibdev_dbg(&rxe->ib_dev,
			  "QP %#x: UD WQE names ah_num %u, no AH of its PD\n",
			  rxe_qpn(qp), ah_num);
	return ret;
}

/* The gather list or inline data behind a send slot, into @wqe. */
static int rxe_uqp_import_data(struct rxe_qp *qp, const struct rxe_send_wqe *hdr,
			       const u8 *tail, struct rxe_sq_entry *wqe)
{
	u32 room = qp->sq.max_sge * sizeof(struct ib_sge);
	u32 i, n = hdr->dma.num_sge;
	u64 len = 0;

	BUILD_BUG_ON(sizeof(struct rxe_sge) != sizeof(struct ib_sge));
	wqe->num_sge = 0;
	if (wqe->send_flags & IB_SEND_INLINE) {
		len = hdr->dma.length;
		if (len > room)
			return -EINVAL;
		memcpy(wqe->sge, tail, len);
	} else {
		if (n > qp->sq.max_sge)
			return -EINVAL;
		memcpy(wqe->sge, tail, n * sizeof(struct ib_sge));
		for (i = 0; i < n; i++)
			len += wqe->sge[i].length;
		wqe->num_sge = n;
	}
	if (len > qp->rxe->port_attr.max_msg_sz)
		return -EINVAL;
	wqe->length = len;
	return 0;
}

/* Check and translate the copy @hdr of a send slot (its tail at @tail). */
static int rxe_uqp_import_wqe(struct rxe_qp *qp, const struct rxe_send_wqe *hdr,
			      const u8 *tail, struct rxe_sq_entry *wqe)
{
	const struct rxe_send_wr *wr = &hdr->wr;
	int ret;

	if (!rxe_opcode_ok(qp, wr->opcode))
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags & (IB_SEND_FENCE | IB_SEND_SIGNALED |
					    IB_SEND_SOLICITED | IB_SEND_INLINE);
	if (wqe->opcode == IB_WR_LOCAL_INV || wqe->opcode == IB_WR_SEND_WITH_INV)
		wqe->imm_or_inv = wr->ex.invalidate_rkey;
	else	/* kept in wire order */
		wqe->imm_or_inv = (__force u32)wr->ex.imm_data;
	/* librxe puts an ATOMIC_WRITE's 8 bytes where inline data goes */
	if (wqe->opcode == IB_WR_ATOMIC_WRITE)
		wqe->send_flags |= IB_SEND_INLINE;
	if (wqe->opcode == IB_WR_BIND_MW) {
		/* no data: what the bind needs is in the WR */
		wqe->num_sge = 0;
		wqe->length = 0;
		wqe->bind.mw_rkey = wr->wr.mw.mw_rkey;
		wqe->bind.rkey = wr->wr.mw.rkey;
		wqe->bind.mr_lkey = wr->wr.mw.mr_lkey;
		wqe->bind.access = wr->wr.mw.access;
		wqe->bind.addr = wr->wr.mw.addr;
		wqe->bind.length = wr->wr.mw.length;
		return 0;
	}
	ret = rxe_uqp_import_data(qp, hdr, tail, wqe);
	if (ret)
		return ret;

	switch (wqe->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->type_mask != RXE_MASK_UD)
			break;
		ret = rxe_uqp_ud_dest(qp, wr->wr.ud.ah_num, wqe);
		if (ret)
			return ret;
		wqe->remote_qpn = wr->wr.ud.remote_qpn & RXE_QPN_MASK;
		wqe->remote_qkey = (wr->wr.ud.remote_qkey & RXE_QKEY_CONTROLLED) ?
				   READ_ONCE(qp->attr.qkey) :
				   wr->wr.ud.remote_qkey;
		break;
	case IB_WR_ATOMIC_WRITE:
		if (wqe->length != sizeof(u64))
			return -EINVAL;
		fallthrough;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->remote_addr = wr->wr.rdma.remote_addr;
		wqe->rkey = wr->wr.rdma.rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (wqe->length < sizeof(u64) ||
		    (wqe->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		wqe->length = sizeof(u64);
		wqe->remote_addr = wr->wr.atomic.remote_addr;
		wqe->rkey = wr->wr.atomic.rkey;
		wqe->compare_add = wr->wr.atomic.compare_add;
		wqe->swap = wr->wr.atomic.swap;
		break;
	default:
		break;
	}
	return 0;
}

/* Import the send slot at @index into the kernel entry of that index. */
static void rxe_uqp_import(struct rxe_qp *qp, u32 index)
{
	struct rxe_sq_entry *wqe = &qp->sq.wqe[index & (qp->sq.size - 1)];
	const u8 *slot = rxe_uring_slot(qp->sq.uring, index);
	struct rxe_send_wqe hdr;

	memcpy(&hdr, slot, sizeof(hdr));
	wqe->state = RXE_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->sent = 0;
	if (!rxe_uqp_import_wqe(qp, &hdr, slot + sizeof(hdr), wqe))
		return;
	ibdev_dbg(qp->ibqp.device,
		  "QP %#x: send WQE %u refused (opcode %u, flags %#x, %u SGEs, length %u)\n",
		  rxe_qpn(qp), index & qp->sq.uring->mask, hdr.wr.opcode,
		  hdr.wr.send_flags, hdr.dma.num_sge, hdr.dma.length);
	wqe->wr_id = hdr.wr.wr_id;
	wqe->num_sge = 0;
	wqe->length = 0;
	wqe->state = RXE_WQE_DONE;
	wqe->status = IB_WC_LOC_QP_OP_ERR;
}

/**
 * rxe_uqp_doorbell() - take the work user space added to a send ring
 * @qp: a user QP
 *
 * Below RTS a user QP takes no doorbell, as stock rxe: the caller gets
 * -EINVAL.  In SQD, SQE and ERR it does: the engine sends (from SQD on,
 * once the QP is back in RTS), or flushes.
 *
 * Context: process context (POST_SEND).
 * Return: 0 or -EINVAL.
 */
int rxe_uqp_doorbell(struct rxe_qp *qp)
{
	enum ib_qp_state state = READ_ONCE(qp->state);
	struct rxe_sq *sq = &qp->sq;
	u32 head, prod;

	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		ibdev_dbg(qp->ibqp.device, "QP %#x: doorbell in state %d\n",
			  rxe_qpn(qp), state);
		return -EINVAL;
	}
	mutex_lock(&sq->umutex);
	prod = rxe_uring_producer(sq->uring);
	for (head = sq->head; (head & sq->uring->mask) != prod; head++) {
		/*
		 * Only a producer index that lies gets here with the queue
		 * full: the ring has one slot fewer than the queue.
		 */
		if (head - smp_load_acquire(&sq->tail) >= sq->size) {
			ibdev_dbg(qp->ibqp.device,
				  "QP %#x: producer index %u overruns the send queue\n",
				  rxe_qpn(qp), prod);
			break;
		}
		rxe_uqp_import(qp, head);
		/* the engine sees the entry before the new head */
		smp_store_release(&sq->head, head + 1);
	}
	mutex_unlock(&sq->umutex);
	rxe_qp_run(qp);
	return 0;
}

/**
 * rxe_urq_new() - the ring of a user receive queue, a QP's RQ or an SRQ
 * @uc: the user context
 * @rq: the queue, its geometry set: @rq->size slots of @rq->max_sge
 *	scatter entries each
 *
 * Context: process context.
 * Return: as rxe_uring_new().
 */
struct rxe_uring *rxe_urq_new(struct rxe_ucontext *uc, const struct rxe_rq *rq)
{
	return rxe_uring_new(uc, rq->size, sizeof(struct rxe_recv_wqe) +
			     rq->max_sge * sizeof(struct rxe_sge));
}

/**
 * rxe_urq_count() - the receive WQEs posted to a user receive queue
 * @rq: the queue, with its ring; its lock is held
 *
 * Context: any.
 * Return: the slots between the kernel's position and the producer index
 * user space wrote, at most the ring's capacity.
 */
u32 rxe_urq_count(const struct rxe_rq *rq)
{
	return (rxe_uring_producer(rq->uring) - rq->tail) & rq->uring->mask;
}

/**
 * rxe_urq_take() - take the next receive WQE of a user receive queue
 * @rq: a QP's RQ or an SRQ, with its ring; its lock is held
 * @dev: the device, for the debug message of a refused slot
 * @out: receives the WQE (only its wr_id if it is refused)
 * @sge: room for RXE_MAX_SGE entries; @out->sge points here afterwards
 *
 * A slot is used up when it is taken, good or bad; a bad one has more
 * scatter entries than the queue was created with.
 *
 * Context: any.
 * Return: 1 if @out holds a WQE, 0 if the ring is empty, -EINVAL for a
 * bad slot, which the taking QP must complete as refused
 * (rxe_uqp_recv_refused()).
 */
int rxe_urq_take(struct rxe_rq *rq, struct ib_device *dev,
		 struct rxe_rq_entry *out, struct ib_sge *sge)
{
	struct rxe_uring *ring = rq->uring;
	struct rxe_recv_wqe hdr;
	const u8 *slot;
	u64 len = 0;
	u32 i;

	if ((rq->tail & ring->mask) == rxe_uring_producer(ring))
		return 0;
	slot = rxe_uring_slot(ring, rq->tail);
	memcpy(&hdr, slot, sizeof(hdr));
	out->wr_id = hdr.wr_id;
	if (hdr.dma.num_sge <= rq->max_sge)
		memcpy(sge, slot + sizeof(hdr), hdr.dma.num_sge * sizeof(*sge));
	rq->tail++;
	/* the slot is copied: user space may fill it again (its load-acquire) */
	smp_store_release(&ring->buf->consumer_index, rq->tail & ring->mask);
	if (hdr.dma.num_sge > rq->max_sge) {
		ibdev_dbg(dev, "receive WQE %u with %u SGEs refused (max %u)\n",
			  (rq->tail - 1) & ring->mask, hdr.dma.num_sge,
			  rq->max_sge);
		return -EINVAL;
	}
	for (i = 0; i < hdr.dma.num_sge; i++)
		len += sge[i].length;
	out->num_sge = hdr.dma.num_sge;
	out->length = min_t(u64, len, U32_MAX);
	out->sge = sge;
	return 1;
}

/**
 * rxe_uqp_recv_refused() - complete a refused receive WQE
 * @qp: the QP that took it, from its RQ or its SRQ; no receive queue's
 *	lock held
 * @wr_id: the WQE's id
 *
 * The WQE completes with IB_WC_LOC_QP_OP_ERR and the QP goes to the error
 * state, as a malformed work request does on a real adapter.
 *
 * Context: any but hard-IRQ.
 */
void rxe_uqp_recv_refused(struct rxe_qp *qp, u64 wr_id)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = IB_WC_LOC_QP_OP_ERR,
		.opcode = IB_WC_RECV,
		.qp = &qp->ibqp,
		.port_num = 1,
	};

	rxe_cq_post(qp->rcq, &wc, false);
	rxe_qp_error(qp);
}
