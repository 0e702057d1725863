// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP verbs: device and port queries, user contexts and their
 * mappings, PDs, QPs and SRQs, and posting work.  Memory regions are in
 * siw_mem.c, CQs in siw_cq.c, the QP state machine in siw_qp.c.
 *
 * A user QP, SRQ or CQ shares its ring with the process: the ring is a
 * vmalloc_user() area handed to the context as an mmap entry, and from then
 * on the entry owns it: siw_mmap_free() frees it once the object is gone
 * and the process has unmapped it.  A kernel object's ring is freed with
 * the object.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_link.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include "siw.h"

/**
 * struct siw_mmap - a ring user space may map
 * @base: the context's mmap entry
 * @buf: the vmalloc_user() area, freed with the entry
 */
struct siw_mmap {
	struct rdma_user_mmap_entry	base;
	void				*buf;
};

int siw_query_device(struct ib_device *base, struct ib_device_attr *attr,
		     struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base);

	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(attr, 0, sizeof(*attr));
	attr->vendor_id = 0xffffff;
	attr->max_mr_size = U64_MAX;
	attr->page_size_cap = GENMASK(31, PAGE_SHIFT);
	attr->device_cap_flags = IB_DEVICE_MEM_MGT_EXTENSIONS;
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	addrconf_addr_eui48((u8 *)&attr->sys_image_guid,
			    sdev->netdev->dev_addr);
	attr->max_qp = SIW_MAX_QP;
	attr->max_qp_wr = SIW_MAX_QP_WR;
	attr->max_send_sge = SIW_MAX_SGE;
	attr->max_recv_sge = SIW_MAX_SGE;
	attr->max_sge_rd = 1;
	attr->max_cq = SIW_MAX_CQ;
	attr->max_cqe = SIW_MAX_CQE;
	attr->max_mr = SIW_MAX_MR;
	attr->max_pd = SIW_MAX_PD;
	attr->max_qp_rd_atom = SIW_MAX_IRD;
	attr->max_qp_init_rd_atom = SIW_MAX_ORD;
	attr->max_res_rd_atom = SIW_MAX_QP * SIW_MAX_IRD;
	attr->max_srq = SIW_MAX_SRQ;
	attr->max_srq_wr = SIW_MAX_SRQ_WR;
	attr->max_srq_sge = SIW_MAX_SGE;
	attr->max_fast_reg_page_list_len = SIW_MAX_FRMR_PAGES;
	attr->max_pkeys = 1;
	return 0;
}

int siw_query_port(struct ib_device *base, u32 port,
		   struct ib_port_attr *attr)
{
	struct net_device *ndev = to_siw_dev(base)->netdev;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);
	int ret;

	/* The core zeroed @attr. */
	ret = ib_get_eth_speed(base, port, &attr->active_speed,
			       &attr->active_width);
	if (ret) {
		/* The netdev is going (see siw_netdev_event()): say the least. */
		siw_dbg(to_siw_dev(base), "no link speed (%d): SDR 1X\n", ret);
		attr->active_speed = IB_SPEED_SDR;
		attr->active_width = IB_WIDTH_1X;
	}
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = ib_mtu_int_to_enum(ndev->max_mtu ?: ndev->mtu);
	attr->active_mtu = ib_mtu_int_to_enum(READ_ONCE(ndev->mtu));
	attr->gid_tbl_len = 1;
	attr->pkey_tbl_len = 1;
	attr->max_msg_sz = 0x7fffffff;
	attr->max_vl_num = 1;
	attr->port_cap_flags = IB_PORT_CM_SUP | IB_PORT_DEVICE_MGMT_SUP;
	return 0;
}

int siw_get_port_immutable(struct ib_device *base, u32 port,
			   struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int ret = siw_query_port(base, port, &attr);

	if (ret)
		return ret;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->core_cap_flags = RDMA_CORE_PORT_IWARP;
	return 0;
}

/* An iWARP port's one GID: the netdev's link-layer address, zero padded. */
int siw_query_gid(struct ib_device *base, u32 port, int idx,
		  union ib_gid *gid)
{
	struct net_device *ndev = to_siw_dev(base)->netdev;

	if (idx)
		return -EINVAL;
	memset(gid, 0, sizeof(*gid));
	memcpy(gid->raw, ndev->dev_addr,
	       min_t(unsigned int, ndev->addr_len, sizeof(*gid)));
	return 0;
}

int siw_query_pkey(struct ib_device *base, u32 port, u16 idx, u16 *pkey)
{
	if (idx)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static const struct {
	const char	*name;
	int		max;
} siw_obj_limits[SIW_NUM_OBJ] = {
	[SIW_OBJ_QP]	= { "QPs", SIW_MAX_QP },
	[SIW_OBJ_CQ]	= { "CQs", SIW_MAX_CQ },
	[SIW_OBJ_PD]	= { "PDs", SIW_MAX_PD },
	[SIW_OBJ_MR]	= { "memory regions", SIW_MAX_MR },
	[SIW_OBJ_SRQ]	= { "SRQs", SIW_MAX_SRQ },
	[SIW_OBJ_CTX]	= { "user contexts", SIW_MAX_CONTEXT },
};

/**
 * siw_obj_add() - count a new object against the device's limit
 * @sdev: the device
 * @kind: what it is
 *
 * Return: 0, or -ENOMEM (not counted) when the device has its limit of
 * such objects; siw_obj_del() takes a counted one off.
 */
int siw_obj_add(struct siw_device *sdev, enum siw_obj kind)
{
	if (atomic_inc_return(&sdev->objs[kind]) <= siw_obj_limits[kind].max)
		return 0;
	atomic_dec(&sdev->objs[kind]);
	siw_dbg(sdev, "already %d %s\n", siw_obj_limits[kind].max,
		siw_obj_limits[kind].name);
	return -ENOMEM;
}

/* ---- user contexts and mappings -------------------------------------- */

int siw_alloc_ucontext(struct ib_ucontext *base, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_uresp_alloc_ctx resp = {};
	int ret;

	ret = siw_obj_add(sdev, SIW_OBJ_CTX);
	if (ret)
		return ret;
	resp.dev_id = sdev->base.index;
	ret = ib_copy_to_udata(udata, &resp,
			       min_t(size_t, udata->outlen, sizeof(resp)));
	if (ret)
		siw_obj_del(sdev, SIW_OBJ_CTX);
	return ret;
}

void siw_dealloc_ucontext(struct ib_ucontext *base)
{
	siw_obj_del(to_siw_dev(base->device), SIW_OBJ_CTX);
}

/**
 * siw_ring_alloc() - a queue's ring
 * @udata: the user's driver data, NULL for a kernel object
 * @bytes: its size
 * @entry: the mmap entry of a user object's ring; NULL for a kernel one
 * @key: the entry's mmap() offset, for user space
 *
 * Return: the zeroed ring, or NULL.
 */
void *siw_ring_alloc(struct ib_udata *udata, size_t bytes,
		     struct rdma_user_mmap_entry **entry, u64 *key)
{
	struct siw_ucontext *uc;
	struct siw_mmap *m;
	void *buf;
	int ret;

	*entry = NULL;
	buf = vmalloc_user(bytes);
	if (!buf || !udata)
		return buf;
	uc = rdma_udata_to_drv_context(udata, struct siw_ucontext, base);
	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		goto err;
	m->buf = buf;
	ret = rdma_user_mmap_entry_insert(&uc->base, &m->base, PAGE_ALIGN(bytes));
	if (ret) {
		kfree(m);
		goto err;
	}
	*entry = &m->base;
	*key = rdma_user_mmap_get_offset(&m->base);
	return buf;
err:
	vfree(buf);
	return NULL;
}

/**
 * siw_ring_free() - let go of a ring: now, or once the process unmapped it
 * @buf: the ring
 * @entry: its mmap entry, or NULL
 */
void siw_ring_free(void *buf, struct rdma_user_mmap_entry *entry)
{
	if (entry)
		rdma_user_mmap_entry_remove(entry);
	else
		vfree(buf);
}

int siw_mmap(struct ib_ucontext *ctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int ret;

	entry = rdma_user_mmap_entry_get(ctx, vma);
	if (!entry) {
		ibdev_dbg(ctx->device, "mmap: no ring at offset %#lx\n",
			  vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	ret = remap_vmalloc_range(vma, container_of(entry, struct siw_mmap,
						    base)->buf, 0);
	if (ret)
		ibdev_dbg(ctx->device, "mmap: remap failed: %d\n", ret);
	rdma_user_mmap_entry_put(entry);
	return ret;
}

void siw_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct siw_mmap *m = container_of(entry, struct siw_mmap, base);

	vfree(m->buf);
	kfree(m);
}

/* ---- protection domains ------------------------------------------------ */

int siw_alloc_pd(struct ib_pd *base, struct ib_udata *udata)
{
	return siw_obj_add(to_siw_dev(base->device), SIW_OBJ_PD);
}

int siw_dealloc_pd(struct ib_pd *base, struct ib_udata *udata)
{
	siw_obj_del(to_siw_dev(base->device), SIW_OBJ_PD);
	return 0;
}

/* ---- queue pairs ----------------------------------------------------------- */

static int siw_qp_check_init(struct siw_device *sdev,
			     const struct ib_qp_init_attr *init)
{
	const struct ib_qp_cap *cap = &init->cap;

	if (init->qp_type != IB_QPT_RC) {
		siw_dbg(sdev, "create_qp: type %d: RC only\n", init->qp_type);
		return -EOPNOTSUPP;
	}
	if (init->create_flags) {
		siw_dbg(sdev, "create_qp: flags %#x\n", init->create_flags);
		return -EOPNOTSUPP;
	}
	if (!init->send_cq || !init->recv_cq) {
		siw_dbg(sdev, "create_qp: no CQ\n");
		return -EINVAL;
	}
	if (cap->max_send_wr > SIW_MAX_QP_WR ||
	    cap->max_recv_wr > SIW_MAX_QP_WR ||
	    cap->max_send_sge > SIW_MAX_SGE ||
	    cap->max_recv_sge > SIW_MAX_SGE ||
	    cap->max_inline_data > SIW_MAX_INLINE) {
		siw_dbg(sdev, "create_qp: caps %u/%u WRs %u/%u SGEs %u inline beyond the device's\n",
			cap->max_send_wr, cap->max_recv_wr, cap->max_send_sge,
			cap->max_recv_sge, cap->max_inline_data);
		return -EINVAL;
	}
	if (!cap->max_send_wr && !cap->max_recv_wr) {
		siw_dbg(sdev, "create_qp: no work request on either queue\n");
		return -EINVAL;
	}
	return 0;
}

static void siw_qp_free_rings(struct siw_qp *qp)
{
	siw_ring_free(qp->sq, qp->sq_mmap);
	siw_ring_free(qp->rq, qp->rq_mmap);
	kfree(qp->orq);
	kfree(qp->irq);
}

int siw_create_qp(struct ib_qp *base, struct ib_qp_init_attr *init,
		  struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_uresp_create_qp resp = {};
	struct siw_qp *qp = to_siw_qp(base);
	u32 qpn;
	int ret;

	ret = siw_qp_check_init(sdev, init);
	if (ret)
		return ret;
	ret = siw_obj_add(sdev, SIW_OBJ_QP);
	if (ret)
		return ret;

	qp->sdev = sdev;
	kref_init(&qp->ref);
	init_completion(&qp->released);
	mutex_init(&qp->state_lock);
	mutex_init(&qp->tx_mutex);
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	spin_lock_init(&qp->orq_lock);
	INIT_WORK(&qp->tx_work, siw_tx_work);
	INIT_WORK(&qp->rx_work, siw_rx_work);
	qp->state = IB_QPS_RESET;
	qp->kernel = !udata;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->scq = to_siw_cq(init->send_cq);
	qp->rcq = to_siw_cq(init->recv_cq);
	qp->srq = init->srq ? to_siw_srq(init->srq) : NULL;
	qp->max_ord = SIW_DEF_ORD;
	qp->max_ird = SIW_DEF_IRD;

	qp->sq_size = roundup_pow_of_two(max(init->cap.max_send_wr, 1U));
	qp->sq = siw_ring_alloc(udata, qp->sq_size * sizeof(*qp->sq),
				&qp->sq_mmap, &resp.sq_key);
	if (!qp->srq) {
		qp->rq_size = roundup_pow_of_two(max(init->cap.max_recv_wr, 1U));
		qp->rq = siw_ring_alloc(udata, qp->rq_size * sizeof(*qp->rq),
					&qp->rq_mmap, &resp.rq_key);
	}
	qp->orq = kcalloc(SIW_MAX_ORD, sizeof(*qp->orq), GFP_KERNEL);
	qp->irq = kcalloc(SIW_MAX_IRD, sizeof(*qp->irq), GFP_KERNEL);
	if (!qp->sq || (!qp->srq && !qp->rq) || !qp->orq || !qp->irq) {
		ret = -ENOMEM;
		goto err_rings;
	}

	ret = xa_alloc(&sdev->qps, &qpn, qp, XA_LIMIT(1, SIW_MAX_QP * 2),
		       GFP_KERNEL);
	if (ret)
		goto err_rings;
	base->qp_num = qpn;

	init->cap.max_send_wr = qp->sq_size;
	init->cap.max_recv_wr = qp->srq ? 0 : qp->rq_size;
	init->cap.max_send_sge = SIW_MAX_SGE;
	init->cap.max_recv_sge = SIW_MAX_SGE;
	init->cap.max_inline_data = SIW_MAX_INLINE;

	if (udata) {
		resp.qp_id = qpn;
		resp.num_sqe = qp->sq_size;
		resp.num_rqe = qp->rq_size;
		ret = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (ret)
			goto err_xa;
	}
	return 0;

err_xa:
	xa_erase(&sdev->qps, qpn);
err_rings:
	siw_qp_free_rings(qp);
	siw_dbg(sdev, "create_qp: %d\n", ret);
	siw_obj_del(sdev, SIW_OBJ_QP);
	return ret;
}

int siw_modify_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		  struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	int ret = 0;

	/*
	 * iWARP has no RNR NAK (a SEND that finds no receive ends the
	 * connection, RFC 5041 7.3): IB_QP_MIN_RNR_TIMER, which ULPs
	 * written for IB set on every device, is accepted and sets nothing.
	 */
	if (mask & ~(IB_QP_STATE | IB_QP_CUR_STATE | IB_QP_ACCESS_FLAGS |
		     IB_QP_MAX_QP_RD_ATOMIC | IB_QP_MAX_DEST_RD_ATOMIC |
		     IB_QP_PORT | IB_QP_PKEY_INDEX | IB_QP_MIN_RNR_TIMER)) {
		siw_qp_dbg(qp, "modify_qp: attributes %#x not for iWARP\n",
			   mask);
		return -EOPNOTSUPP;
	}
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC &&
	     attr->max_rd_atomic > SIW_MAX_ORD) ||
	    (mask & IB_QP_MAX_DEST_RD_ATOMIC &&
	     attr->max_dest_rd_atomic > SIW_MAX_IRD) ||
	    (mask & IB_QP_PORT && attr->port_num != 1)) {
		siw_qp_dbg(qp, "modify_qp: READ depths or port out of range\n");
		return -EINVAL;
	}

	mutex_lock(&qp->state_lock);
	if (mask & IB_QP_CUR_STATE && attr->cur_qp_state != qp->state) {
		siw_qp_dbg(qp, "modify_qp: current state %d, not %d\n",
			   qp->state, attr->cur_qp_state);
		ret = -EINVAL;
		goto out;
	}
	if (mask & IB_QP_STATE) {
		ret = siw_qp_set_state(qp, attr->qp_state);
		if (ret)
			goto out;
	}
	if (mask & IB_QP_ACCESS_FLAGS)
		qp->access = attr->qp_access_flags &
			     (IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE);
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		qp->max_ord = max_t(u32, attr->max_rd_atomic, 1);
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		qp->max_ird = max_t(u32, attr->max_dest_rd_atomic, 1);
out:
	mutex_unlock(&qp->state_lock);
	return ret;
}

int siw_query_qp(struct ib_qp *base, struct ib_qp_attr *attr, int mask,
		 struct ib_qp_init_attr *init)
{
	struct siw_qp *qp = to_siw_qp(base);

	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	mutex_lock(&qp->state_lock);
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->qp_access_flags = qp->access;
	attr->max_rd_atomic = qp->state == IB_QPS_RTS ? qp->conn.ord :
							qp->max_ord;
	attr->max_dest_rd_atomic = qp->state == IB_QPS_RTS ? qp->conn.ird :
							     qp->max_ird;
	mutex_unlock(&qp->state_lock);
	attr->port_num = 1;
	attr->path_mtu = IB_MTU_4096;
	attr->cap.max_send_wr = qp->sq_size;
	attr->cap.max_recv_wr = qp->srq ? 0 : qp->rq_size;
	attr->cap.max_send_sge = SIW_MAX_SGE;
	attr->cap.max_recv_sge = SIW_MAX_SGE;
	attr->cap.max_inline_data = SIW_MAX_INLINE;
	init->event_handler = base->event_handler;
	init->qp_context = base->qp_context;
	init->send_cq = base->send_cq;
	init->recv_cq = base->recv_cq;
	init->srq = base->srq;
	init->cap = attr->cap;
	init->qp_type = IB_QPT_RC;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	return 0;
}

int siw_destroy_qp(struct ib_qp *base, struct ib_udata *udata)
{
	struct siw_qp *qp = to_siw_qp(base);
	struct siw_device *sdev = qp->sdev;

	mutex_lock(&qp->state_lock);
	if (qp->state != IB_QPS_ERR)
		siw_qp_set_state(qp, IB_QPS_ERR);
	mutex_unlock(&qp->state_lock);

	xa_erase(&sdev->qps, siw_qpn(qp));
	/* The connection lets go of the QP once it is closed. */
	siw_qp_put(qp);
	wait_for_completion(&qp->released);
	cancel_work_sync(&qp->tx_work);
	cancel_work_sync(&qp->rx_work);
	siw_qp_free_rings(qp);
	siw_obj_del(sdev, SIW_OBJ_QP);
	return 0;
}

void siw_add_ref(struct ib_qp *base)
{
	siw_qp_get(to_siw_qp(base));
}

void siw_rem_ref(struct ib_qp *base)
{
	siw_qp_put(to_siw_qp(base));
}

struct ib_qp *siw_get_qp(struct ib_device *base, int qpn)
{
	struct siw_qp *qp = xa_load(&to_siw_dev(base)->qps, qpn);

	return qp ? &qp->base : NULL;
}

/* ---- posting ----------------------------------------------------------- */

static int siw_wr_opcode(const struct ib_send_wr *wr, u8 *op)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
		*op = SIW_OP_SEND;
		return 0;
	case IB_WR_SEND_WITH_INV:
		*op = SIW_OP_SEND_REMOTE_INV;
		return 0;
	case IB_WR_RDMA_WRITE:
		*op = SIW_OP_WRITE;
		return 0;
	case IB_WR_RDMA_READ:
		*op = SIW_OP_READ;
		return 0;
	case IB_WR_RDMA_READ_WITH_INV:
		*op = SIW_OP_READ_LOCAL_INV;
		return 0;
	case IB_WR_REG_MR:
		*op = SIW_OP_REG_MR;
		return 0;
	case IB_WR_LOCAL_INV:
		*op = SIW_OP_INVAL_STAG;
		return 0;
	default:
		return -EINVAL;
	}
}

/* Fill @sqe from a kernel work request; the VALID flag is set last. */
static int siw_wr_to_sqe(struct siw_qp *qp, const struct ib_send_wr *wr,
			 struct siw_sqe *sqe, u16 *flags)
{
	u32 bytes = 0;
	u8 op;
	int i;

	if (siw_wr_opcode(wr, &op)) {
		siw_qp_dbg(qp, "post_send: opcode %d not supported\n",
			   wr->opcode);
		return -EINVAL;
	}
	*flags = 0;
	if (wr->send_flags & IB_SEND_SIGNALED || qp->sig_all)
		*flags |= SIW_WQE_SIGNALLED;
	if (wr->send_flags & IB_SEND_SOLICITED)
		*flags |= SIW_WQE_SOLICITED;
	if (wr->send_flags & IB_SEND_FENCE)
		*flags |= SIW_WQE_READ_FENCE;
	sqe->id = wr->wr_id;
	sqe->opcode = op;

	switch (op) {
	case SIW_OP_REG_MR:
		sqe->base_mr = (uintptr_t)reg_wr(wr)->mr;
		sqe->rkey = reg_wr(wr)->key;
		sqe->access = reg_wr(wr)->access;
		sqe->num_sge = 0;
		return 0;
	case SIW_OP_INVAL_STAG:
		sqe->rkey = wr->ex.invalidate_rkey;
		sqe->num_sge = 0;
		return 0;
	case SIW_OP_WRITE:
	case SIW_OP_READ:
	case SIW_OP_READ_LOCAL_INV:
		sqe->raddr = rdma_wr(wr)->remote_addr;
		sqe->rkey = rdma_wr(wr)->rkey;
		break;
	case SIW_OP_SEND_REMOTE_INV:
		sqe->rkey = wr->ex.invalidate_rkey;
		break;
	default:
		break;
	}
	if (wr->num_sge > SIW_MAX_SGE ||
	    ((op == SIW_OP_READ || op == SIW_OP_READ_LOCAL_INV) &&
	     wr->num_sge > 1)) {
		siw_qp_dbg(qp, "post_send: %d SGEs\n", wr->num_sge);
		return -EINVAL;
	}
	if (wr->send_flags & IB_SEND_INLINE && op != SIW_OP_READ &&
	    op != SIW_OP_READ_LOCAL_INV) {
		u8 *data = (u8 *)&sqe->sge[1];

		for (i = 0; i < wr->num_sge; i++)
			bytes += wr->sg_list[i].length;
		if (bytes > SIW_MAX_INLINE) {
			siw_qp_dbg(qp, "post_send: %u inline bytes\n", bytes);
			return -EINVAL;
		}
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(data, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			data += wr->sg_list[i].length;
		}
		sqe->sge[0].length = bytes;
		sqe->num_sge = 1;
		*flags |= SIW_WQE_INLINE;
		return 0;
	}
	for (i = 0; i < wr->num_sge; i++) {
		sqe->sge[i].laddr = wr->sg_list[i].addr;
		sqe->sge[i].length = wr->sg_list[i].length;
		sqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	sqe->num_sge = wr->num_sge;
	return 0;
}

/* A kernel work request posted to a QP in error completes at once. */
static void siw_flush_wr(struct siw_qp *qp, const struct siw_sqe *sqe)
{
	siw_sq_complete(qp, sqe, 0, SIW_WC_WR_FLUSH_ERR);
}

int siw_post_send(struct ib_qp *base, const struct ib_send_wr *wr,
		  const struct ib_send_wr **bad)
{
	struct siw_qp *qp = to_siw_qp(base);
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned long flags;
	int ret = 0;

	if (!qp->kernel) {
		/* A process rang its doorbell: the SQ ring has new work. */
		if (state == IB_QPS_ERR)
			siw_qp_flush(qp);
		else
			siw_tx_doorbell(qp);
		return 0;
	}
	if (state == IB_QPS_RESET) {
		siw_qp_dbg(qp, "post_send in RESET\n");
		*bad = wr;
		return -EINVAL;
	}

	spin_lock_irqsave(&qp->sq_lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_sqe *sqe = &qp->sq[qp->sq_put & (qp->sq_size - 1)];
		struct siw_sqe tmp = {};
		u16 wqe_flags;

		ret = siw_wr_to_sqe(qp, wr, &tmp, &wqe_flags);
		if (ret)
			break;
		if (READ_ONCE(qp->state) == IB_QPS_ERR) {
			tmp.flags = wqe_flags;
			siw_flush_wr(qp, &tmp);
			continue;
		}
		if (READ_ONCE(sqe->flags) & SIW_WQE_VALID) {
			siw_qp_dbg(qp, "post_send: SQ full (%u)\n", qp->sq_size);
			ret = -ENOMEM;
			break;
		}
		*sqe = tmp;
		/* The element is the consumer's once VALID shows. */
		smp_store_release(&sqe->flags, wqe_flags | SIW_WQE_VALID);
		qp->sq_put++;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	if (ret)
		*bad = wr;
	siw_qp_tx_kick(qp);
	return ret;
}

/* Fill @rqe from a kernel receive work request. */
static int siw_wr_to_rqe(struct siw_device *sdev, const struct ib_recv_wr *wr,
			 struct siw_rqe *rqe)
{
	int i;

	if (wr->num_sge > SIW_MAX_SGE) {
		siw_dbg(sdev, "post_recv: %d SGEs\n", wr->num_sge);
		return -EINVAL;
	}
	rqe->id = wr->wr_id;
	rqe->num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		rqe->sge[i].laddr = wr->sg_list[i].addr;
		rqe->sge[i].length = wr->sg_list[i].length;
		rqe->sge[i].lkey = wr->sg_list[i].lkey;
	}
	return 0;
}

/*
 * Put kernel receive work requests into @ring (of @size elements, next free
 * at *@put) under @lock.  With @qp in error they complete flushed instead.
 */
static int siw_post_rqes(struct siw_device *sdev, struct siw_qp *qp,
			 spinlock_t *lock, struct siw_rqe *ring, u32 size,
			 u32 *put, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(lock, flags);
	for (; wr; wr = wr->next) {
		struct siw_rqe *rqe = &ring[*put & (size - 1)];
		struct siw_rqe tmp = {};

		ret = siw_wr_to_rqe(sdev, wr, &tmp);
		if (ret)
			break;
		if (qp && READ_ONCE(qp->state) == IB_QPS_ERR) {
			siw_rq_complete(qp, &tmp, 0, 0, SIW_WC_WR_FLUSH_ERR,
					false);
			continue;
		}
		if (READ_ONCE(rqe->flags) & SIW_WQE_VALID) {
			siw_dbg(sdev, "post_recv: queue full (%u)\n", size);
			ret = -ENOMEM;
			break;
		}
		*rqe = tmp;
		/* The element is the consumer's once VALID shows. */
		smp_store_release(&rqe->flags, SIW_WQE_VALID);
		(*put)++;
	}
	spin_unlock_irqrestore(lock, flags);
	if (ret)
		*bad = wr;
	return ret;
}

int siw_post_recv(struct ib_qp *base, const struct ib_recv_wr *wr,
		  const struct ib_recv_wr **bad)
{
	struct siw_qp *qp = to_siw_qp(base);

	if (!qp->kernel || qp->srq || READ_ONCE(qp->state) == IB_QPS_RESET) {
		siw_qp_dbg(qp, "post_recv: %s\n", qp->srq ? "QP has an SRQ" :
			   !qp->kernel ? "user QP" : "QP in RESET");
		*bad = wr;
		return -EINVAL;
	}
	return siw_post_rqes(qp->sdev, qp, &qp->rq_lock, qp->rq, qp->rq_size,
			     &qp->rq_put, wr, bad);
}

/* ---- shared receive queues ------------------------------------------------ */

int siw_create_srq(struct ib_srq *base, struct ib_srq_init_attr *init,
		   struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(base->device);
	struct siw_srq *srq = to_siw_srq(base);
	struct siw_uresp_create_srq resp = {};
	struct ib_srq_attr *a = &init->attr;
	int ret;

	if (init->srq_type != IB_SRQT_BASIC || !a->max_wr ||
	    a->max_wr > SIW_MAX_SRQ_WR || a->max_sge > SIW_MAX_SGE ||
	    a->srq_limit > a->max_wr) {
		siw_dbg(sdev, "create_srq: type %d, %u WRs, %u SGEs, limit %u\n",
			init->srq_type, a->max_wr, a->max_sge, a->srq_limit);
		return -EINVAL;
	}
	ret = siw_obj_add(sdev, SIW_OBJ_SRQ);
	if (ret)
		return ret;
	spin_lock_init(&srq->lock);
	srq->kernel = !udata;
	srq->size = roundup_pow_of_two(a->max_wr);
	srq->limit = a->srq_limit;
	srq->armed = !!a->srq_limit;
	srq->rq = siw_ring_alloc(udata, srq->size * sizeof(*srq->rq),
				 &srq->mmap, &resp.srq_key);
	if (!srq->rq) {
		ret = -ENOMEM;
		goto err;
	}
	a->max_wr = srq->size;
	a->max_sge = SIW_MAX_SGE;
	if (udata) {
		resp.num_rqe = srq->size;
		ret = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (ret) {
			siw_ring_free(srq->rq, srq->mmap);
			goto err;
		}
	}
	return 0;
err:
	siw_obj_del(sdev, SIW_OBJ_SRQ);
	return ret;
}

int siw_modify_srq(struct ib_srq *base, struct ib_srq_attr *attr,
		   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);
	unsigned long flags;

	if (mask & IB_SRQ_MAX_WR) {
		ibdev_dbg(base->device, "modify_srq: no resizing\n");
		return -EOPNOTSUPP;
	}
	if (mask & IB_SRQ_LIMIT) {
		if (attr->srq_limit > srq->size) {
			ibdev_dbg(base->device, "modify_srq: limit %u > %u\n",
				  attr->srq_limit, srq->size);
			return -EINVAL;
		}
		spin_lock_irqsave(&srq->lock, flags);
		srq->limit = attr->srq_limit;
		srq->armed = !!attr->srq_limit;
		spin_unlock_irqrestore(&srq->lock, flags);
	}
	return 0;
}

int siw_query_srq(struct ib_srq *base, struct ib_srq_attr *attr)
{
	struct siw_srq *srq = to_siw_srq(base);

	attr->max_wr = srq->size;
	attr->max_sge = SIW_MAX_SGE;
	attr->srq_limit = srq->limit;
	return 0;
}

int siw_destroy_srq(struct ib_srq *base, struct ib_udata *udata)
{
	struct siw_srq *srq = to_siw_srq(base);

	siw_ring_free(srq->rq, srq->mmap);
	siw_obj_del(to_siw_dev(base->device), SIW_OBJ_SRQ);
	return 0;
}

int siw_post_srq_recv(struct ib_srq *base, const struct ib_recv_wr *wr,
		      const struct ib_recv_wr **bad)
{
	struct siw_srq *srq = to_siw_srq(base);

	if (!srq->kernel) {
		ibdev_dbg(base->device, "post_srq_recv on a user SRQ\n");
		*bad = wr;
		return -EINVAL;
	}
	return siw_post_rqes(to_siw_dev(base->device), NULL, &srq->lock,
			     srq->rq, srq->size, &srq->put, wr, bad);
}
