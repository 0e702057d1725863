// SPDX-License-Identifier: GPL-2.0
/*
 * The ib_device_ops table of rxe, and the verbs thin enough to live next
 * to it: device and port queries, PDs, and posting work requests.
 */
#include <rdma/ib_cache.h>

#include "rxe.h"

static int rxe_query_device(struct ib_device *dev, struct ib_device_attr *attr,
			    struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	*attr = to_rdev(dev)->attr;
	return 0;
}

/* A PortInfo violation counter: 16 bits, stuck at their maximum */
static u32 rxe_violations(struct rxe_dev *rxe, enum rxe_counter c)
{
	return min_t(u64, atomic64_read(&rxe->stats[c]), U16_MAX);
}

/*
 * The port's attributes, with the P_Key and Q_Key violation counters that
 * IB_DEVICE_BAD_PKEY_CNTR and IB_DEVICE_BAD_QKEY_CNTR promise: the packets
 * dropped for a P_Key or a Q_Key that did not match.
 */
static int rxe_query_port(struct ib_device *dev, u32 port,
			  struct ib_port_attr *attr)
{
	struct rxe_dev *rxe = to_rdev(dev);
	unsigned long flags;

	spin_lock_irqsave(&rxe->lock, flags);
	*attr = rxe->port_attr;
	spin_unlock_irqrestore(&rxe->lock, flags);
	attr->bad_pkey_cntr = rxe_violations(rxe, RXE_CNT_DROP_PKEY);
	attr->qkey_viol_cntr = rxe_violations(rxe, RXE_CNT_DROP_QKEY);
	return 0;
}

static int rxe_get_port_immutable(struct ib_device *dev, u32 port,
				  struct ib_port_immutable *imm)
{
	imm->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	imm->pkey_tbl_len = 1;
	imm->gid_tbl_len = to_rdev(dev)->port_attr.gid_tbl_len;
	imm->max_mad_size = 256;	/* IB_MGMT_MAD_SIZE */
	return 0;
}

static enum rdma_link_layer rxe_get_link_layer(struct ib_device *dev, u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int rxe_query_pkey(struct ib_device *dev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = RXE_DEFAULT_PKEY;
	return 0;
}

static int rxe_modify_device(struct ib_device *dev, int mask,
			     struct ib_device_modify *attr)
{
	if (mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID | IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;
	if (mask & IB_DEVICE_MODIFY_SYS_IMAGE_GUID)
		to_rdev(dev)->attr.sys_image_guid =
			cpu_to_be64(attr->sys_image_guid);
	if (mask & IB_DEVICE_MODIFY_NODE_DESC)
		memcpy(dev->node_desc, attr->node_desc, sizeof(dev->node_desc));
	return 0;
}

static int rxe_modify_port(struct ib_device *dev, u32 port, int mask,
			   struct ib_port_modify *attr)
{
	return 0;
}

/* The core keeps the RoCE GID table; the wire needs nothing per GID. */
static int rxe_add_gid(const struct ib_gid_attr *attr, void **context)
{
	return 0;
}

static int rxe_del_gid(const struct ib_gid_attr *attr, void **context)
{
	return 0;
}

/* ---- user contexts ------------------------------------------------------- */

/* librxe sends no driver data with GET_CONTEXT and expects none back. */
static int rxe_alloc_ucontext(struct ib_ucontext *uc, struct ib_udata *udata)
{
	atomic_inc(&to_rdev(uc->device)->num_objs);
	return 0;
}

static void rxe_dealloc_ucontext(struct ib_ucontext *uc)
{
	atomic_dec(&to_rdev(uc->device)->num_objs);
}

/* User space maps the rings of its CQs and QPs (rxe_uring.c). */
static int rxe_mmap(struct ib_ucontext *uc, struct vm_area_struct *vma)
{
	return rxe_uring_mmap(to_ruc(uc), vma);
}

/* ---- protection domains ------------------------------------------------- */

/* A PD has no provider state; librxe sends no driver data with ALLOC_PD. */
static int rxe_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen)) {
		ibdev_dbg(pd->device, "alloc_pd with %zu/%zu bytes of driver data refused\n",
			  udata->inlen, udata->outlen);
		return -EINVAL;
	}
	return rxe_obj_add(to_rdev(pd->device), RXE_OBJ_PD);
}

static int rxe_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	rxe_obj_del(to_rdev(pd->device), RXE_OBJ_PD);
	return 0;
}

/* ---- post_send ----------------------------------------------------------- */

/**
 * rxe_opcode_ok() - may the QP post a work request of this opcode?
 * @qp: the QP; a user QP's opcodes come from its ring, as any u32
 * @op: IB_WR_*
 *
 * TSO and flushes are not offered, IB_WR_REG_MR (which names a kernel
 * MR) only to kernel QPs, and IB_WR_BIND_MW (which names a window by
 * its rkey) only to user QPs: the kernel has no memory windows.
 *
 * Return: true if it may.
 */
bool rxe_opcode_ok(const struct rxe_qp *qp, u32 op)
{
	switch (op) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return true;
	case IB_WR_REG_MR:
		return qp->type_mask != RXE_MASK_UD && !qp->sq.uring;
	case IB_WR_BIND_MW:
		return qp->type_mask != RXE_MASK_UD && qp->sq.uring;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_LOCAL_INV:
		return qp->type_mask != RXE_MASK_UD;
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
	case IB_WR_SEND_WITH_INV:
	case IB_WR_ATOMIC_WRITE:
		return qp->type_mask == RXE_MASK_RC;
	default:
		return false;
	}
}

static int rxe_fill_wqe(struct rxe_qp *qp, const struct ib_send_wr *wr,
			struct rxe_sq_entry *wqe)
{
	struct ib_sge *sge = wqe->sge;
	u64 len = 0;
	int i;

	if (!rxe_opcode_ok(qp, wr->opcode))
		return -EINVAL;
	if (wr->num_sge < 0)
		return -EINVAL;
	wqe->wr_id = wr->wr_id;
	wqe->opcode = wr->opcode;
	wqe->send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_LOCAL_INV || wr->opcode == IB_WR_SEND_WITH_INV)
		wqe->imm_or_inv = wr->ex.invalidate_rkey;
	else	/* kept in wire order, copied to the packet as it is */
		wqe->imm_or_inv = (__force u32)wr->ex.imm_data;
	wqe->num_sge = 0;

	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = (u8 *)sge;

		for (i = 0; i < wr->num_sge; i++) {
			len += wr->sg_list[i].length;
			if (len > qp->sq.max_sge * sizeof(struct ib_sge))
				return -EINVAL;
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		if (wr->num_sge > qp->sq.max_sge)
			return -EINVAL;
		for (i = 0; i < wr->num_sge; i++) {
			sge[i] = wr->sg_list[i];
			len += sge[i].length;
		}
		wqe->num_sge = wr->num_sge;
	}
	if (len > qp->rxe->port_attr.max_msg_sz)
		return -EINVAL;
	wqe->length = len;

	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		if (qp->type_mask == RXE_MASK_UD) {
			const struct ib_ud_wr *ud = ud_wr(wr);

			/* the AH must be of this QP's PD (hence device) */
			if (!ud->ah || ud->ah->pd != qp->ibqp.pd ||
			    ud->ah->device != qp->ibqp.device) {
				ibdev_dbg(qp->ibqp.device,
					  "QP %#x: UD send with an AH of another PD\n",
					  rxe_qpn(qp));
				return -EINVAL;
			}
			rxe_ah_get_av(to_rah(ud->ah), &wqe->av);
			wqe->remote_qpn = ud->remote_qpn & RXE_QPN_MASK;
			/* The GSI QP sends the GSI Q_Key whatever it asks for. */
			if (rxe_qpn(qp) == 1)
				wqe->remote_qkey = RXE_GSI_QKEY;
			else if (ud->remote_qkey & RXE_QKEY_CONTROLLED)
				wqe->remote_qkey = qp->attr.qkey;
			else
				wqe->remote_qkey = ud->remote_qkey;
		}
		break;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_RDMA_READ:
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_WRITE:
		/* an RDMA WRITE of exactly 8 bytes, stored at once */
		if (len != sizeof(u64))
			return -EINVAL;
		wqe->remote_addr = rdma_wr(wr)->remote_addr;
		wqe->rkey = rdma_wr(wr)->rkey;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (len < sizeof(u64) || (wr->send_flags & IB_SEND_INLINE))
			return -EINVAL;
		wqe->length = sizeof(u64);
		wqe->remote_addr = atomic_wr(wr)->remote_addr;
		wqe->rkey = atomic_wr(wr)->rkey;
		wqe->compare_add = atomic_wr(wr)->compare_add;
		wqe->swap = atomic_wr(wr)->swap;
		break;
	case IB_WR_REG_MR:
		wqe->reg.mr = reg_wr(wr)->mr;
		wqe->reg.key = reg_wr(wr)->key;
		wqe->reg.access = reg_wr(wr)->access;
		wqe->length = 0;
		break;
	default:
		break;
	}
	wqe->state = RXE_WQE_POSTED;
	wqe->status = IB_WC_SUCCESS;
	wqe->sent = 0;
	return 0;
}

static int rxe_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int ret = 0;

	/* A user QP's work requests are in its ring: this is the doorbell. */
	if (qp->sq.uring && !wr)
		return rxe_uqp_doorbell(qp);
	if (qp->sq.uring) {
		ibdev_dbg(ibqp->device, "QP %#x: post_send to a user QP refused\n",
			  rxe_qpn(qp));
		*bad_wr = wr;
		return -EINVAL;
	}
	if (state == IB_QPS_RESET || state == IB_QPS_INIT ||
	    state == IB_QPS_RTR) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->sq.lock, flags);
	for (; wr; wr = wr->next) {
		u32 head = qp->sq.head;

		/* pairs with the completer's release: the slot is retired */
		if (head - smp_load_acquire(&qp->sq.tail) >= qp->sq.size) {
			ret = -ENOMEM;
			break;
		}
		ret = rxe_fill_wqe(qp, wr, &qp->sq.wqe[head & (qp->sq.size - 1)]);
		if (ret)
			break;
		/* the engine sees the filled WQE before the new head */
		smp_store_release(&qp->sq.head, head + 1);
	}
	spin_unlock_irqrestore(&qp->sq.lock, flags);
	if (ret)
		*bad_wr = wr;
	rxe_qp_run(qp);
	return ret;
}

static int rxe_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad_wr)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	enum ib_qp_state state = READ_ONCE(qp->state);
	int ret;

	if (qp->srq || qp->rq.uring || state == IB_QPS_RESET) {
		ibdev_dbg(ibqp->device, "QP %#x: post_recv refused (SRQ, user QP or RESET)\n",
			  rxe_qpn(qp));
		*bad_wr = wr;
		return -EINVAL;
	}
	ret = rxe_rq_post(&qp->rq, wr, bad_wr);
	if (state == IB_QPS_ERR)
		rxe_qp_run(qp);
	return ret;
}

/*
 * The verbs, by object.  What is not here the core refuses with
 * -EOPNOTSUPP (XRC, flow steering, ...).
 * The core allocates PDs, AHs, CQs, SRQs, QPs and MWs itself, with room for
 * the provider's part (INIT_RDMA_OBJ_SIZE next to each object's verbs).
 */
const struct ib_device_ops rxe_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = 2,
	.dealloc_driver = rxe_dealloc_driver,
	/* what ib_uverbs needs: user contexts, and what they may map */
	.mmap = rxe_mmap,
	.mmap_free = rxe_uring_mmap_free,
	INIT_RDMA_OBJ_SIZE(ib_ucontext, rxe_ucontext, ibuc),
	.dealloc_ucontext = rxe_dealloc_ucontext,
	.alloc_ucontext = rxe_alloc_ucontext,

	/* device and port */
	.query_device = rxe_query_device,
	.modify_device = rxe_modify_device,
	.query_port = rxe_query_port,
	.process_mad = rxe_process_mad,
	.modify_port = rxe_modify_port,
	.get_port_immutable = rxe_get_port_immutable,
	.get_link_layer = rxe_get_link_layer,
	.query_pkey = rxe_query_pkey,
	.add_gid = rxe_add_gid,
	.del_gid = rxe_del_gid,
	.alloc_hw_port_stats = rxe_alloc_hw_port_stats,
	.get_hw_stats = rxe_get_hw_stats,

	/* protection domains and address handles */
	INIT_RDMA_OBJ_SIZE(ib_pd, rxe_pd, ibpd),
	.alloc_pd = rxe_alloc_pd,
	.dealloc_pd = rxe_dealloc_pd,
	INIT_RDMA_OBJ_SIZE(ib_ah, rxe_ah, ibah),
	.create_ah = rxe_create_ah,
	.create_user_ah = rxe_create_user_ah,
	.modify_ah = rxe_modify_ah,
	.query_ah = rxe_query_ah,
	.destroy_ah = rxe_destroy_ah,

	/* completion queues */
	INIT_RDMA_OBJ_SIZE(ib_cq, rxe_cq, ibcq),
	.create_cq = rxe_create_cq,
	.resize_cq = rxe_resize_cq,
	.poll_cq = rxe_poll_cq,
	.peek_cq = rxe_peek_cq,
	.req_notify_cq = rxe_req_notify_cq,
	.destroy_cq = rxe_destroy_cq,

	/* shared receive queues */
	INIT_RDMA_OBJ_SIZE(ib_srq, rxe_srq, ibsrq),
	.create_srq = rxe_create_srq,
	.modify_srq = rxe_modify_srq,
	.query_srq = rxe_query_srq,
	.post_srq_recv = rxe_post_srq_recv,
	.destroy_srq = rxe_destroy_srq,

	/* queue pairs and their work requests */
	INIT_RDMA_OBJ_SIZE(ib_qp, rxe_qp, ibqp),
	.create_qp = rxe_create_qp,
	.modify_qp = rxe_modify_qp,
	.query_qp = rxe_query_qp,
	.post_send = rxe_post_send,
	.post_recv = rxe_post_recv,
	.attach_mcast = rxe_attach_mcast,
	.detach_mcast = rxe_detach_mcast,
	.destroy_qp = rxe_destroy_qp,

	/* memory regions */
	.get_dma_mr = rxe_get_dma_mr,
	.reg_user_mr = rxe_reg_user_mr,
	.alloc_mr = rxe_alloc_mr,
	.map_mr_sg = rxe_map_mr_sg,
	.dereg_mr = rxe_dereg_mr,

	/* memory windows */
	INIT_RDMA_OBJ_SIZE(ib_mw, rxe_mw, ibmw),
	.alloc_mw = rxe_alloc_mw,
	.dealloc_mw = rxe_dealloc_mw,
};
