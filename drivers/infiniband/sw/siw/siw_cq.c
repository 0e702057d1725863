// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP completion queues: a ring of struct siw_cqe.  Producers (the
 * QPs' work, and posts to a QP in error) fill it under cq->lock; a kernel
 * user polls it through poll_cq(), a process reads its mapping directly
 * and gives elements back by clearing their flags.  The notify word after
 * the ring is armed by req_notify_cq() or by the process, and disarmed by
 * the producer that signals the completion handler.
 */
#include <linux/log2.h>
#include <rdma/uverbs_ioctl.h>

#include "siw.h"

static const enum ib_wc_opcode siw_wc_op[SIW_NUM_OPCODES] = {
	[SIW_OP_WRITE]		= IB_WC_RDMA_WRITE,
	[SIW_OP_READ]		= IB_WC_RDMA_READ,
	[SIW_OP_READ_LOCAL_INV]	= IB_WC_RDMA_READ,
	[SIW_OP_SEND]		= IB_WC_SEND,
	[SIW_OP_SEND_WITH_IMM]	= IB_WC_SEND,
	[SIW_OP_SEND_REMOTE_INV] = IB_WC_SEND,
	[SIW_OP_FETCH_AND_ADD]	= IB_WC_FETCH_ADD,
	[SIW_OP_COMP_AND_SWAP]	= IB_WC_COMP_SWAP,
	[SIW_OP_RECEIVE]	= IB_WC_RECV,
	[SIW_OP_READ_RESPONSE]	= IB_WC_RDMA_READ,
	[SIW_OP_INVAL_STAG]	= IB_WC_LOCAL_INV,
	[SIW_OP_REG_MR]		= IB_WC_REG_MR,
};

static const enum ib_wc_status siw_wc_status[SIW_NUM_WC_STATUS] = {
	[SIW_WC_SUCCESS]	= IB_WC_SUCCESS,
	[SIW_WC_LOC_LEN_ERR]	= IB_WC_LOC_LEN_ERR,
	[SIW_WC_LOC_PROT_ERR]	= IB_WC_LOC_PROT_ERR,
	[SIW_WC_LOC_QP_OP_ERR]	= IB_WC_LOC_QP_OP_ERR,
	[SIW_WC_WR_FLUSH_ERR]	= IB_WC_WR_FLUSH_ERR,
	[SIW_WC_BAD_RESP_ERR]	= IB_WC_BAD_RESP_ERR,
	[SIW_WC_LOC_ACCESS_ERR]	= IB_WC_LOC_ACCESS_ERR,
	[SIW_WC_REM_ACCESS_ERR]	= IB_WC_REM_ACCESS_ERR,
	[SIW_WC_REM_INV_REQ_ERR] = IB_WC_REM_INV_REQ_ERR,
	[SIW_WC_GENERAL_ERR]	= IB_WC_GENERAL_ERR,
};

/**
 * siw_cq_add() - add a completion
 * @cq: the CQ
 * @cqe: the completion (its flags are set here)
 * @solicited: the completion is of a solicited event
 *
 * Calls the CQ's completion handler when the CQ was armed for it.
 *
 * Context: any.
 * Return: 0, or -ENOMEM when the CQ is full (the completion is lost and the
 * CQ's owner gets IB_EVENT_CQ_ERR).
 */
int siw_cq_add(struct siw_cq *cq, const struct siw_cqe *cqe, bool solicited)
{
	struct siw_cqe *slot;
	unsigned long flags;
	bool notify = false;
	u32 armed;

	spin_lock_irqsave(&cq->lock, flags);
	slot = &cq->queue[cq->put & (cq->num_cqe - 1)];
	if (READ_ONCE(slot->flags) & SIW_WQE_VALID) {
		spin_unlock_irqrestore(&cq->lock, flags);
		ibdev_dbg(cq->base.device, "CQ %u overflow (%u elements)\n",
			  cq->base.res.id, cq->num_cqe);
		if (cq->base.event_handler) {
			struct ib_event ev = {
				.device = cq->base.device,
				.element.cq = &cq->base,
				.event = IB_EVENT_CQ_ERR,
			};

			cq->base.event_handler(&ev, cq->base.cq_context);
		}
		return -ENOMEM;
	}
	slot->id = cqe->id;
	slot->opcode = cqe->opcode;
	slot->status = cqe->status;
	slot->bytes = cqe->bytes;
	slot->imm_data = cqe->imm_data;
	slot->qp_id = cqe->qp_id;
	/* The element is its reader's once VALID shows. */
	smp_store_release(&slot->flags, cqe->flags | SIW_WQE_VALID);
	cq->put++;

	armed = READ_ONCE(cq->notify->flags);
	if (armed & SIW_NOTIFY_NEXT_COMPLETION ||
	    (armed & SIW_NOTIFY_SOLICITED && solicited)) {
		WRITE_ONCE(cq->notify->flags, SIW_NOTIFY_NOT);
		notify = true;
	}
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && cq->base.comp_handler)
		cq->base.comp_handler(&cq->base, cq->base.cq_context);
	return 0;
}

int siw_create_cq(struct ib_cq *base, const struct ib_cq_init_attr *attr,
		  struct uverbs_attr_bundle *attrs)
{
	struct ib_udata *udata = attrs ? &attrs->driver_udata : NULL;
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_uresp_create_cq resp = {};
	struct siw_cq *cq = to_siw_cq(base);
	size_t bytes;
	int ret;

	if (attr->flags || !attr->cqe || attr->cqe > SIW_MAX_CQE) {
		siw_dbg(sdev, "create_cq: %u entries, flags %#x\n", attr->cqe,
			attr->flags);
		return -EINVAL;
	}
	ret = siw_obj_add(sdev, SIW_OBJ_CQ);
	if (ret)
		return ret;
	spin_lock_init(&cq->lock);
	cq->kernel = !udata;
	cq->num_cqe = roundup_pow_of_two(attr->cqe);
	bytes = cq->num_cqe * sizeof(*cq->queue) + sizeof(*cq->notify);
	cq->queue = siw_ring_alloc(udata, bytes, &cq->mmap, &resp.cq_key);
	if (!cq->queue) {
		ret = -ENOMEM;
		goto err;
	}
	cq->notify = (struct siw_cq_ctrl *)&cq->queue[cq->num_cqe];
	base->cqe = cq->num_cqe;

	if (udata) {
		resp.cq_id = base->res.id;
		resp.num_cqe = cq->num_cqe;
		ret = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (ret) {
			siw_ring_free(cq->queue, cq->mmap);
			goto err;
		}
	}
	return 0;

err:
	siw_obj_del(sdev, SIW_OBJ_CQ);
	return ret;
}

int siw_destroy_cq(struct ib_cq *base, struct ib_udata *udata)
{
	struct siw_cq *cq = to_siw_cq(base);

	siw_ring_free(cq->queue, cq->mmap);
	siw_obj_del(to_siw_dev(base->device), SIW_OBJ_CQ);
	return 0;
}

int siw_poll_cq(struct ib_cq *base, int num, struct ib_wc *wc)
{
	struct siw_cq *cq = to_siw_cq(base);
	unsigned long flags;
	int n;

	spin_lock_irqsave(&cq->lock, flags);
	for (n = 0; n < num; n++) {
		struct siw_cqe *cqe = &cq->queue[cq->get & (cq->num_cqe - 1)];

		/* Pairs with the producer's release in siw_cq_add(). */
		if (!(smp_load_acquire(&cqe->flags) & SIW_WQE_VALID))
			break;
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = cqe->id;
		wc[n].status = cqe->status < SIW_NUM_WC_STATUS ?
			       siw_wc_status[cqe->status] : IB_WC_GENERAL_ERR;
		wc[n].opcode = cqe->opcode < SIW_NUM_OPCODES ?
			       siw_wc_op[cqe->opcode] : IB_WC_SEND;
		wc[n].byte_len = cqe->bytes;
		wc[n].qp = cqe->base_qp;
		if (cqe->flags & SIW_WQE_REM_INVAL) {
			wc[n].ex.invalidate_rkey = cqe->inval_stag;
			wc[n].wc_flags = IB_WC_WITH_INVALIDATE;
		}
		WRITE_ONCE(cqe->flags, 0);
		cq->get++;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

int siw_req_notify_cq(struct ib_cq *base, enum ib_cq_notify_flags flags)
{
	struct siw_cq *cq = to_siw_cq(base);
	u32 arm = (flags & IB_CQ_SOLICITED_MASK) == IB_CQ_SOLICITED ?
		  SIW_NOTIFY_SOLICITED :
		  SIW_NOTIFY_SOLICITED | SIW_NOTIFY_NEXT_COMPLETION;

	/* Pairs with the producer's check in siw_cq_add(). */
	smp_store_mb(cq->notify->flags, arm);
	if (flags & IB_CQ_REPORT_MISSED_EVENTS) {
		struct siw_cqe *cqe = &cq->queue[cq->get & (cq->num_cqe - 1)];

		return !!(READ_ONCE(cqe->flags) & SIW_WQE_VALID);
	}
	return 0;
}
