// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_mock: a minimal RoCE provider for the core's KTAP test modules; see
 * rdma_mock.h.
 *
 * Everything here goes through the provider API a real driver uses:
 * ib_alloc_device(), ib_set_device_ops() with core-allocated objects,
 * ib_device_set_netdev() and ib_register_device().  The device has one or
 * two Ethernet ports speaking RoCE v1 and v2; the core owns the GID table
 * and reports it through add_gid()/del_gid(), which are recorded.
 */
#include <linux/etherdevice.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/file.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/netlink.h>
#include <net/neighbour.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "rdma_mock.h"

/* Size of a MAD on a RoCE port (an IB MAD, 256 bytes). */
#define MOCK_MAX_MR_PAGES	256

/* ---- device and port queries ------------------------------------------ */

/*
 * What the mock device offers, by object; mock_query_device() adds what
 * depends on the instance.
 */
static const struct ib_device_attr mock_caps = {
	/* identity */
	.fw_ver = 0x10002,
	.vendor_id = 0xffffff,
	.vendor_part_id = 0x4d4b,
	.local_ca_ack_delay = 15,
	.max_pkeys = 1,
	/* queue pairs and their work requests */
	.max_qp = 64,
	.max_qp_wr = RDMA_MOCK_MAX_WR,
	.max_recv_sge = RDMA_MOCK_MAX_SGE,
	.max_send_sge = RDMA_MOCK_MAX_SGE,
	.max_sge_rd = RDMA_MOCK_MAX_SGE,
	.max_qp_init_rd_atom = 16,
	.max_qp_rd_atom = 16,
	.max_res_rd_atom = 1024,
	/* shared receive queues */
	.max_srq = 16,
	.max_srq_sge = RDMA_MOCK_MAX_SGE,
	.max_srq_wr = RDMA_MOCK_MAX_WR,
	/* completion queues */
	.max_cq = 64,
	.max_cqe = RDMA_MOCK_MAX_CQE,
	/* protection domains, address handles, memory */
	.max_pd = 64,
	.max_ah = 1024,
	.max_mr = 64,
	.max_mr_size = U64_MAX,
	.page_size_cap = PAGE_SIZE,
	.max_fast_reg_page_list_len = MOCK_MAX_MR_PAGES,
	/* multicast */
	.max_mcast_grp = 16,
	.max_mcast_qp_attach = RDMA_MOCK_MAX_MCAST,
	.max_total_mcast_qp_attach = 64,
};

static int mock_query_device(struct ib_device *ibdev,
			     struct ib_device_attr *attr,
			     struct ib_udata *udata)
{
	const struct rdma_mock_opts *opts = &to_mock_dev(ibdev)->opts;

	*attr = mock_caps;
	attr->sys_image_guid = ibdev->node_guid;
	if (!opts->no_local_dma_lkey)
		attr->kernel_cap_flags |= IBK_LOCAL_DMA_LKEY;
	if (opts->user_unreg)
		attr->kernel_cap_flags |= IBK_ALLOW_USER_UNREG;
	return 0;
}

static int mock_query_port(struct ib_device *ibdev, u32 port,
			   struct ib_port_attr *attr)
{
	struct net_device *ndev = ib_device_get_netdev(ibdev, port);
	bool up = ndev && netif_running(ndev) && netif_carrier_ok(ndev);

	memset(attr, 0, sizeof(*attr));
	attr->state = up ? IB_PORT_ACTIVE : IB_PORT_DOWN;
	attr->phys_state = up ? IB_PORT_PHYS_STATE_LINK_UP :
				IB_PORT_PHYS_STATE_DISABLED;
	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ndev ? ib_mtu_int_to_enum(ndev->mtu) : IB_MTU_1024;
	attr->gid_tbl_len = RDMA_MOCK_GID_TBL_LEN;
	attr->ip_gids = true;
	attr->max_msg_sz = 0x800000;
	attr->pkey_tbl_len = 1;
	attr->max_vl_num = 1;
	attr->active_width = IB_WIDTH_1X;
	attr->active_speed = IB_SPEED_EDR;
	dev_put(ndev);
	return 0;
}

static int mock_get_port_immutable(struct ib_device *ibdev, u32 port,
				   struct ib_port_immutable *immutable)
{
	immutable->pkey_tbl_len = 1;
	immutable->gid_tbl_len = RDMA_MOCK_GID_TBL_LEN;
	/*
	 * A RoCE port without the MAD interface: the mock makes no GSI QP,
	 * so the core's MAD layer must leave its ports alone (and the
	 * fixtures count only their cases' objects).
	 */
	immutable->core_cap_flags = RDMA_MOCK_CORE_CAPS;
	immutable->max_mad_size = 0;
	return 0;
}

static enum rdma_link_layer mock_get_link_layer(struct ib_device *ibdev,
						u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int mock_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			   u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

static void mock_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	snprintf(str, IB_FW_VERSION_NAME_MAX, "1.2.0");
}

/* ---- GID table: record what the core reports -------------------------- */

static struct rdma_mock_gid_slot *mock_slot(const struct ib_gid_attr *attr)
{
	struct rdma_mock_dev *md = to_mock_dev(attr->device);

	if (attr->port_num < 1 || attr->port_num > md->opts.num_ports ||
	    attr->index >= RDMA_MOCK_GID_TBL_LEN)
		return NULL;
	return &md->gids[attr->port_num - 1][attr->index];
}

static int mock_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct rdma_mock_dev *md = to_mock_dev(attr->device);
	struct rdma_mock_gid_slot *slot = mock_slot(attr);
	unsigned long flags;

	atomic_inc(&md->add_gid_calls);
	if (!slot) {
		atomic_inc(&md->gid_errors);
		return -EINVAL;
	}
	spin_lock_irqsave(&md->lock, flags);
	if (slot->valid)
		atomic_inc(&md->gid_errors);	/* added twice without del */
	slot->valid = true;
	slot->gid = attr->gid;
	slot->gid_type = attr->gid_type;
	slot->adds++;
	spin_unlock_irqrestore(&md->lock, flags);
	*context = slot;
	return 0;
}

static int mock_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct rdma_mock_dev *md = to_mock_dev(attr->device);
	struct rdma_mock_gid_slot *slot = mock_slot(attr);
	unsigned long flags;

	atomic_inc(&md->del_gid_calls);
	if (!slot || *context != slot) {
		atomic_inc(&md->gid_errors);
		return -EINVAL;
	}
	spin_lock_irqsave(&md->lock, flags);
	if (!slot->valid || memcmp(&slot->gid, &attr->gid, sizeof(slot->gid)))
		atomic_inc(&md->gid_errors);
	slot->valid = false;
	slot->dels++;
	spin_unlock_irqrestore(&md->lock, flags);
	*context = NULL;
	return 0;
}

/**
 * rdma_mock_gid_slot() - what the core last told the mock about a GID slot
 * @md: the mock device
 * @port: port number
 * @index: GID table index
 * @out: filled with a copy of the slot's record
 *
 * Return: true if add_gid() was called for the slot and no del_gid() since.
 */
bool rdma_mock_gid_slot(struct rdma_mock_dev *md, u32 port, unsigned int index,
			struct rdma_mock_gid_slot *out)
{
	unsigned long flags;

	memset(out, 0, sizeof(*out));
	if (port < 1 || port > md->opts.num_ports ||
	    index >= RDMA_MOCK_GID_TBL_LEN)
		return false;
	spin_lock_irqsave(&md->lock, flags);
	*out = md->gids[port - 1][index];
	spin_unlock_irqrestore(&md->lock, flags);
	return out->valid;
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_slot);

/*
 * GID table look-ups shared by the test modules.  They go through the
 * public cache API only; port 1 is the port the fixtures use.
 */

/* Does slot @index of @port hold a GID?  */
bool rdma_mock_gid_index_valid(struct ib_device *dev, u32 port, int index)
{
	union ib_gid gid;

	return !rdma_query_gid(dev, port, index, &gid);
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_index_valid);

/* The entry for (@gid, @type) on port 1, held; NULL if it is not there. */
const struct ib_gid_attr *rdma_mock_gid_find(struct ib_device *dev,
					     const union ib_gid *gid,
					     enum ib_gid_type type)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(dev, gid, type, 1, NULL);
	return IS_ERR(attr) ? NULL : attr;
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_find);

/* Is (@gid, @type) in the table of port 1 right now? */
bool rdma_mock_gid_present(struct ib_device *dev, const union ib_gid *gid,
			   enum ib_gid_type type)
{
	const struct ib_gid_attr *attr = rdma_mock_gid_find(dev, gid, type);

	if (!attr)
		return false;
	rdma_put_gid_attr(attr);
	return true;
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_present);

/*
 * Wait up to RDMA_MOCK_GID_WAIT_MS for the core to add (@gid, @type) to
 * port 1; the entry held, or NULL on timeout.
 */
const struct ib_gid_attr *rdma_mock_gid_wait(struct ib_device *dev,
					     const union ib_gid *gid,
					     enum ib_gid_type type)
{
	unsigned long end = jiffies + msecs_to_jiffies(RDMA_MOCK_GID_WAIT_MS);
	const struct ib_gid_attr *attr;

	for (;;) {
		attr = rdma_mock_gid_find(dev, gid, type);
		if (attr || time_after(jiffies, end))
			return attr;
		usleep_range(10000, 20000);
	}
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_wait);

/* How many times the core deleted slot @index of port 1. */
unsigned int rdma_mock_gid_dels(struct rdma_mock_dev *md, unsigned int index)
{
	struct rdma_mock_gid_slot slot;

	rdma_mock_gid_slot(md, 1, index, &slot);
	return slot.dels;
}
EXPORT_SYMBOL_GPL(rdma_mock_gid_dels);

/* ---- PD and AH --------------------------------------------------------- */

static int mock_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_inc(&to_mock_dev(pd->device)->pd_allocs);
	return 0;
}

static int mock_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	atomic_inc(&to_mock_dev(pd->device)->pd_deallocs);
	return 0;
}

static int mock_create_ah(struct ib_ah *ah, struct rdma_ah_init_attr *init,
			  struct ib_udata *udata)
{
	struct rdma_mock_dev *md = to_mock_dev(ah->device);
	struct rdma_mock_ah *mah = to_mock_ah(ah);
	unsigned long flags;
	int err = READ_ONCE(md->ah_create_err);
	bool irqs_off = irqs_disabled();
	bool atomic = !preemptible();

	atomic_inc(&md->ah_create_calls);
	spin_lock_irqsave(&md->lock, flags);
	md->last_ah_flags = init->flags;
	md->last_ah_irqs_disabled = irqs_off;
	md->last_ah_in_atomic = atomic;
	md->last_ah_sgid_attr = ah->sgid_attr;
	spin_unlock_irqrestore(&md->lock, flags);
	if (err)
		return err;
	mah->attr = *init->ah_attr;
	mah->create_flags = init->flags;
	atomic_inc(&md->ah_creates);
	return 0;
}

static int mock_modify_ah(struct ib_ah *ah, struct rdma_ah_attr *attr)
{
	struct rdma_mock_dev *md = to_mock_dev(ah->device);
	int err = READ_ONCE(md->ah_modify_err);

	if (err)
		return err;
	to_mock_ah(ah)->attr = *attr;
	return 0;
}

static int mock_query_ah(struct ib_ah *ah, struct rdma_ah_attr *attr)
{
	*attr = to_mock_ah(ah)->attr;
	attr->grh.sgid_attr = NULL;
	return 0;
}

static int mock_destroy_ah(struct ib_ah *ah, u32 flags)
{
	atomic_inc(&to_mock_dev(ah->device)->ah_destroys);
	return 0;
}

/* ---- CQ: a software completion ring ------------------------------------ */

static int mock_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			  struct uverbs_attr_bundle *attrs)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);

	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > RDMA_MOCK_MAX_CQE)
		return -EINVAL;
	cq->ring = kcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring)
		return -ENOMEM;
	spin_lock_init(&cq->lock);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	atomic_inc(&to_mock_dev(ibcq->device)->cq_creates);
	return 0;
}

static int mock_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);

	kfree(cq->ring);
	cq->ring = NULL;
	atomic_inc(&to_mock_dev(ibcq->device)->cq_destroys);
	return 0;
}

static int mock_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);
	unsigned long flags;
	int n = 0;

	spin_lock_irqsave(&cq->lock, flags);
	while (n < num_entries && cq->count) {
		wc[n++] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return n;
}

static int mock_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);
	unsigned long irqflags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, irqflags);
	if (flags & IB_CQ_SOLICITED_MASK)
		cq->armed = true;
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, irqflags);
	return ret;
}

/*
 * Queue one completion and, if the CQ was armed, call its completion
 * handler once, from bottom-half context as a NIC's interrupt path would.
 */
static void mock_cq_push(struct ib_cq *ibcq, const struct ib_wc *wc)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count == cq->size) {
		cq->overflows++;
	} else {
		cq->ring[(cq->head + cq->count) % cq->size] = *wc;
		cq->count++;
	}
	notify = cq->armed;
	cq->armed = false;
	spin_unlock_irqrestore(&cq->lock, flags);

	if (notify && ibcq->comp_handler) {
		local_bh_disable();
		ibcq->comp_handler(ibcq, ibcq->cq_context);
		local_bh_enable();
	}
}

/* Remember the moderation asked for; the mock has no interrupts to pace. */
static int mock_modify_cq(struct ib_cq *ibcq, u16 cq_count, u16 cq_period)
{
	struct rdma_mock_dev *md = to_mock_dev(ibcq->device);
	unsigned long flags;

	spin_lock_irqsave(&md->lock, flags);
	md->last_cq_count = cq_count;
	md->last_cq_period = cq_period;
	spin_unlock_irqrestore(&md->lock, flags);
	return 0;
}

/* Move the queued completions, oldest first, into a ring of @cqe entries. */
static int mock_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct rdma_mock_cq *cq = to_mock_cq(ibcq);
	struct ib_wc *ring, *old;
	unsigned long flags;
	unsigned int i;

	if (cqe <= 0 || cqe > RDMA_MOCK_MAX_CQE)
		return -EINVAL;
	ring = kcalloc(cqe, sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return -ENOMEM;
	spin_lock_irqsave(&cq->lock, flags);
	if (cq->count > cqe) {
		spin_unlock_irqrestore(&cq->lock, flags);
		kfree(ring);
		return -EINVAL;
	}
	for (i = 0; i < cq->count; i++)
		ring[i] = cq->ring[(cq->head + i) % cq->size];
	old = cq->ring;
	cq->ring = ring;
	cq->size = cqe;
	cq->head = 0;
	ibcq->cqe = cqe;
	spin_unlock_irqrestore(&cq->lock, flags);
	kfree(old);
	return 0;
}

/* ---- SRQ --------------------------------------------------------------- */

static int mock_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
			   struct ib_udata *udata)
{
	struct rdma_mock_srq *srq = to_mock_srq(ibsrq);

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!init->attr.max_wr || init->attr.max_wr > RDMA_MOCK_MAX_WR ||
	    init->attr.max_sge > RDMA_MOCK_MAX_SGE ||
	    init->attr.srq_limit > init->attr.max_wr)
		return -EINVAL;
	spin_lock_init(&srq->lock);
	srq->attr = init->attr;
	atomic_inc(&to_mock_dev(ibsrq->device)->srq_creates);
	return 0;
}

static int mock_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
			   enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct rdma_mock_srq *srq = to_mock_srq(ibsrq);
	unsigned long flags;
	u32 max_wr;
	int ret = 0;

	if (mask & ~(IB_SRQ_MAX_WR | IB_SRQ_LIMIT))
		return -EINVAL;
	spin_lock_irqsave(&srq->lock, flags);
	max_wr = (mask & IB_SRQ_MAX_WR) ? attr->max_wr : srq->attr.max_wr;
	if (!max_wr || max_wr > RDMA_MOCK_MAX_WR || max_wr < srq->posted ||
	    ((mask & IB_SRQ_LIMIT) && attr->srq_limit > max_wr)) {
		ret = -EINVAL;
	} else {
		srq->attr.max_wr = max_wr;
		if (mask & IB_SRQ_LIMIT)
			srq->attr.srq_limit = attr->srq_limit;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	return ret;
}

static int mock_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct rdma_mock_srq *srq = to_mock_srq(ibsrq);
	unsigned long flags;

	spin_lock_irqsave(&srq->lock, flags);
	*attr = srq->attr;
	spin_unlock_irqrestore(&srq->lock, flags);
	return 0;
}

static int mock_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	atomic_inc(&to_mock_dev(ibsrq->device)->srq_destroys);
	return 0;
}

static int mock_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			      const struct ib_recv_wr **bad_wr)
{
	struct rdma_mock_srq *srq = to_mock_srq(ibsrq);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		if (wr->num_sge > srq->attr.max_sge) {
			ret = -EINVAL;
			break;
		}
		if (srq->posted >= srq->attr.max_wr) {
			ret = -ENOMEM;
			break;
		}
		srq->posted++;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (ret)
		*bad_wr = wr;
	return ret;
}

/* ---- QP ---------------------------------------------------------------- */

/* The transports the mock carries: RC, UC and UD. */
static bool mock_qp_type_ok(enum ib_qp_type type)
{
	return type == IB_QPT_RC || type == IB_QPT_UC || type == IB_QPT_UD;
}

static int mock_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			  struct ib_udata *udata)
{
	struct rdma_mock_dev *md = to_mock_dev(ibqp->device);
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);

	if (!mock_qp_type_ok(init->qp_type) || init->create_flags)
		return -EOPNOTSUPP;
	if (!init->send_cq || (!init->recv_cq && !init->srq))
		return -EINVAL;
	if (init->cap.max_send_wr > RDMA_MOCK_MAX_WR ||
	    init->cap.max_recv_wr > RDMA_MOCK_MAX_WR ||
	    init->cap.max_send_sge > RDMA_MOCK_MAX_SGE ||
	    init->cap.max_recv_sge > RDMA_MOCK_MAX_SGE)
		return -EINVAL;
	spin_lock_init(&qp->lock);
	qp->state = IB_QPS_RESET;
	qp->sq_sig_type = init->sq_sig_type;
	qp->cap = init->cap;
	ibqp->qp_num = atomic_inc_return(&md->next_qpn);
	atomic_inc(&md->qp_creates);
	return 0;
}

/* Take the oldest posted receive off @qp; false if there is none. */
static bool mock_rq_pop(struct rdma_mock_qp *qp, u64 *wr_id)
{
	unsigned long flags;
	bool found = false;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->rq_count) {
		*wr_id = qp->rq[qp->rq_head];
		qp->rq_head = (qp->rq_head + 1) % RDMA_MOCK_MAX_WR;
		qp->rq_count--;
		found = true;
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	return found;
}

static void mock_complete(struct ib_qp *ibqp, struct ib_cq *cq, u64 wr_id,
			  enum ib_wc_status status, enum ib_wc_opcode opcode,
			  u32 byte_len)
{
	struct ib_wc wc = {
		.wr_id = wr_id,
		.status = status,
		.opcode = opcode,
		.byte_len = byte_len,
		.qp = ibqp,
		.src_qp = ibqp->qp_num,
	};

	mock_cq_push(cq, &wc);
}

static void mock_flush_rq(struct rdma_mock_qp *qp)
{
	u64 wr_id;

	while (mock_rq_pop(qp, &wr_id))
		mock_complete(&qp->ibqp, qp->ibqp.recv_cq, wr_id,
			      IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0);
}

static void mock_save_qp_attr(struct rdma_mock_qp *qp,
			      const struct ib_qp_attr *attr, int mask)
{
	struct ib_qp_attr *a = &qp->attr;

	if (mask & IB_QP_QKEY)
		a->qkey = attr->qkey;
	if (mask & IB_QP_PKEY_INDEX)
		a->pkey_index = attr->pkey_index;
	if (mask & IB_QP_PORT)
		a->port_num = attr->port_num;
	if (mask & IB_QP_SQ_PSN)
		a->sq_psn = attr->sq_psn;
	if (mask & IB_QP_RQ_PSN)
		a->rq_psn = attr->rq_psn;
	if (mask & IB_QP_DEST_QPN)
		a->dest_qp_num = attr->dest_qp_num;
	if (mask & IB_QP_PATH_MTU)
		a->path_mtu = attr->path_mtu;
	if (mask & IB_QP_ACCESS_FLAGS)
		a->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_AV)
		a->ah_attr = attr->ah_attr;
	if (mask & IB_QP_TIMEOUT)
		a->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		a->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		a->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_MIN_RNR_TIMER)
		a->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		a->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
}

/*
 * Whether the mock takes @attr/@mask from the state @qp is in; *@next is
 * where it leads.  qp->lock held.
 */
static bool mock_qp_request_ok(struct rdma_mock_qp *qp,
			       const struct ib_qp_attr *attr, int mask,
			       enum ib_qp_state *next)
{
	enum ib_qp_state from = qp->state;

	if (mask & IB_QP_CUR_STATE)
		from = attr->cur_qp_state;
	*next = mask & IB_QP_STATE ? attr->qp_state : from;
	if (from > IB_QPS_ERR || *next > IB_QPS_ERR ||
	    !ib_modify_qp_is_ok(from, *next, qp->ibqp.qp_type, mask))
		return false;
	if ((mask & IB_QP_PORT) &&
	    !rdma_is_port_valid(qp->ibqp.device, attr->port_num))
		return false;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return false;
	/* A RoCE address vector reaches the driver with its GID. */
	return !(mask & IB_QP_AV) ||
	       ((attr->ah_attr.ah_flags & IB_AH_GRH) &&
		attr->ah_attr.grh.sgid_attr);
}

static int mock_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			  int mask, struct ib_udata *udata)
{
	struct rdma_mock_dev *md = to_mock_dev(ibqp->device);
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	enum ib_qp_state next;
	unsigned long flags;
	bool ok;
	u32 port;

	spin_lock_irqsave(&qp->lock, flags);
	ok = mock_qp_request_ok(qp, attr, mask, &next);
	if (ok) {
		if (mask & IB_QP_AV)
			md->last_qp_av_sgid_attr = attr->ah_attr.grh.sgid_attr;
		mock_save_qp_attr(qp, attr, mask);
		qp->state = next;
		port = qp->attr.port_num;
		if (port >= 1 && port <= md->opts.num_ports &&
		    READ_ONCE(md->count_qp_modifies[port - 1]))
			atomic_inc(&md->qp_modifies[port - 1]);
		if (next == IB_QPS_RESET) {
			qp->rq_count = 0;
			qp->rq_head = 0;
		}
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!ok)
		return -EINVAL;
	if (next == IB_QPS_ERR)
		mock_flush_rq(qp);
	return 0;
}

static int mock_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_qp_init_attr *init)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;

	memset(init, 0, sizeof(*init));
	spin_lock_irqsave(&qp->lock, flags);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_type;
	init->cap = qp->cap;
	spin_unlock_irqrestore(&qp->lock, flags);
	attr->ah_attr.grh.sgid_attr = NULL;
	attr->alt_ah_attr.grh.sgid_attr = NULL;
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->event_handler = ibqp->event_handler;
	init->qp_context = ibqp->qp_context;
	return 0;
}

static int mock_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	atomic_inc(&to_mock_dev(ibqp->device)->qp_destroys);
	return 0;
}

static int mock_wc_opcode(const struct ib_send_wr *wr, enum ib_wc_opcode *op)
{
	switch (wr->opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		*op = IB_WC_SEND;
		return 0;
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*op = IB_WC_RDMA_WRITE;
		return 0;
	case IB_WR_RDMA_READ:
		*op = IB_WC_RDMA_READ;
		return 0;
	case IB_WR_LOCAL_INV:
		*op = IB_WC_LOCAL_INV;
		return 0;
	case IB_WR_REG_MR:
		*op = IB_WC_REG_MR;
		return 0;
	default:
		return -EINVAL;
	}
}

/*
 * Every work request completes at once into the send CQ (signalled ones
 * only, unless the QP signals all).  In the error state they complete
 * flushed, as a drain expects.
 */
static int mock_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			  const struct ib_send_wr **bad_wr)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	enum ib_wc_status status;
	enum ib_wc_opcode op;
	enum ib_qp_state state;
	unsigned long flags;
	u32 len;
	int i;

	for (; wr; wr = wr->next) {
		spin_lock_irqsave(&qp->lock, flags);
		state = qp->state;
		spin_unlock_irqrestore(&qp->lock, flags);
		if (state != IB_QPS_RTS && state != IB_QPS_ERR)
			goto bad;
		if (wr->num_sge > qp->cap.max_send_sge || mock_wc_opcode(wr, &op))
			goto bad;
		if (ibqp->qp_type == IB_QPT_UD && state == IB_QPS_RTS &&
		    !ud_wr(wr)->ah)
			goto bad;
		if (wr->opcode == IB_WR_REG_MR && state == IB_QPS_RTS) {
			struct ib_mr *mr = reg_wr(wr)->mr;

			mr->lkey = reg_wr(wr)->key;
			mr->rkey = reg_wr(wr)->key;
		}
		len = 0;
		for (i = 0; i < wr->num_sge; i++)
			len += wr->sg_list[i].length;
		status = state == IB_QPS_RTS ? IB_WC_SUCCESS :
					       IB_WC_WR_FLUSH_ERR;
		atomic_inc(&to_mock_dev(ibqp->device)->send_wrs);
		if (qp->sq_sig_type == IB_SIGNAL_ALL_WR ||
		    (wr->send_flags & IB_SEND_SIGNALED) ||
		    status != IB_WC_SUCCESS)
			mock_complete(ibqp, ibqp->send_cq, wr->wr_id, status, op,
				      len);
	}
	return 0;
bad:
	*bad_wr = wr;
	return -EINVAL;
}

static int mock_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			  const struct ib_recv_wr **bad_wr)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;
	bool flush;
	int ret = 0;

	if (ibqp->srq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	for (; wr; wr = wr->next) {
		flush = false;
		spin_lock_irqsave(&qp->lock, flags);
		if (qp->state == IB_QPS_RESET ||
		    wr->num_sge > qp->cap.max_recv_sge)
			ret = -EINVAL;
		else if (qp->state == IB_QPS_ERR)
			flush = true;
		else if (qp->rq_count >= qp->cap.max_recv_wr)
			ret = -ENOMEM;
		else
			qp->rq[(qp->rq_head + qp->rq_count++) %
			       RDMA_MOCK_MAX_WR] = wr->wr_id;
		spin_unlock_irqrestore(&qp->lock, flags);
		if (ret) {
			*bad_wr = wr;
			return ret;
		}
		atomic_inc(&to_mock_dev(ibqp->device)->recv_wrs);
		if (flush)
			mock_complete(ibqp, ibqp->recv_cq, wr->wr_id,
				      IB_WC_WR_FLUSH_ERR, IB_WC_RECV, 0);
	}
	return 0;
}

/**
 * rdma_mock_deliver_recv() - complete a posted receive as if data arrived
 * @qp: a mock QP
 * @byte_len: bytes "received"
 *
 * Return: 0, or -ENOENT when no receive is posted.
 */
int rdma_mock_deliver_recv(struct ib_qp *qp, u32 byte_len)
{
	u64 wr_id;

	if (!mock_rq_pop(to_mock_qp(qp), &wr_id))
		return -ENOENT;
	mock_complete(qp, qp->recv_cq, wr_id, IB_WC_SUCCESS, IB_WC_RECV,
		      byte_len);
	return 0;
}
EXPORT_SYMBOL_GPL(rdma_mock_deliver_recv);

/* ---- multicast --------------------------------------------------------- */

static int mock_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&qp->lock, flags);
	if (qp->n_mcast == RDMA_MOCK_MAX_MCAST)
		ret = -ENOMEM;
	else
		qp->mcast[qp->n_mcast++] = *gid;
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!ret)
		atomic_inc(&to_mock_dev(ibqp->device)->mcast_attaches);
	return ret;
}

static int mock_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	struct rdma_mock_qp *qp = to_mock_qp(ibqp);
	unsigned long flags;
	unsigned int i;
	int ret = -EINVAL;

	spin_lock_irqsave(&qp->lock, flags);
	for (i = 0; i < qp->n_mcast; i++) {
		if (!memcmp(&qp->mcast[i], gid, sizeof(*gid))) {
			qp->mcast[i] = qp->mcast[--qp->n_mcast];
			ret = 0;
			break;
		}
	}
	spin_unlock_irqrestore(&qp->lock, flags);
	if (!ret)
		atomic_inc(&to_mock_dev(ibqp->device)->mcast_detaches);
	return ret;
}

/* ---- MR ---------------------------------------------------------------- */

static struct rdma_mock_mr *mock_new_mr(struct rdma_mock_dev *md, u32 pages)
{
	struct rdma_mock_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	u32 key;

	if (!mr)
		return NULL;
	if (pages) {
		mr->pages = kcalloc(pages, sizeof(*mr->pages), GFP_KERNEL);
		if (!mr->pages) {
			kfree(mr);
			return NULL;
		}
		mr->max_pages = pages;
	}
	key = (atomic_inc_return(&md->next_key) & 0xffffff) << 8;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return mr;
}

static struct ib_mr *mock_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rdma_mock_dev *md = to_mock_dev(pd->device);
	struct rdma_mock_mr *mr = mock_new_mr(md, 0);

	if (!mr)
		return ERR_PTR(-ENOMEM);
	md->last_dma_mr_access = access;
	md->last_dma_mr_lkey = mr->ibmr.lkey;
	atomic_inc(&md->dma_mr_allocs);
	return &mr->ibmr;
}

static struct ib_mr *mock_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				      u64 virt_addr, int access,
				      struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static struct ib_mr *mock_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
				   u32 max_num_sg)
{
	struct rdma_mock_dev *md = to_mock_dev(pd->device);
	struct rdma_mock_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG && type != IB_MR_TYPE_SG_GAPS)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > MOCK_MAX_MR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = mock_new_mr(md, max_num_sg);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	atomic_inc(&md->mr_allocs);
	return &mr->ibmr;
}

static int mock_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rdma_mock_dev *md = to_mock_dev(ibmr->device);
	struct rdma_mock_mr *mr = to_mock_mr(ibmr);

	if (mr->pages)
		atomic_inc(&md->mr_deregs);
	else
		atomic_inc(&md->dma_mr_deregs);
	kfree(mr->pages);
	kfree(mr);
	return 0;
}

static int mock_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rdma_mock_mr *mr = to_mock_mr(ibmr);

	if (mr->npages == mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

static int mock_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg,
			  int sg_nents, unsigned int *sg_offset)
{
	to_mock_mr(ibmr)->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, mock_set_page);
}

/* ---- hardware counters (opts.hw_stats) ------------------------------- */

static const struct rdma_stat_desc mock_stat_descs[RDMA_MOCK_CNT_MAX] = {
	[RDMA_MOCK_CNT_PD_ALLOC]	= { .name = "mock_pd_alloc" },
	[RDMA_MOCK_CNT_CQ_CREATE]	= { .name = "mock_cq_create" },
	[RDMA_MOCK_CNT_QP_CREATE]	= { .name = "mock_qp_create" },
	[RDMA_MOCK_CNT_MR_ALLOC]	= { .name = "mock_mr_alloc" },
	[RDMA_MOCK_CNT_POST_SEND_WR]	= { .name = "mock_post_send_wr" },
	[RDMA_MOCK_CNT_POST_RECV_WR]	= { .name = "mock_post_recv_wr" },
	[RDMA_MOCK_CNT_QP_MODIFY]	= { .name = "mock_qp_modify",
					    .flags = IB_STAT_FLAG_OPTIONAL },
};

static struct rdma_hw_stats *
mock_alloc_hw_port_stats(struct ib_device *ibdev, u32 port)
{
	struct rdma_hw_stats *stats;
	int i;

	stats = rdma_alloc_hw_stats_struct(mock_stat_descs, RDMA_MOCK_CNT_MAX,
					   RDMA_HW_STATS_DEFAULT_LIFESPAN);
	if (!stats)
		return NULL;
	for (i = 0; i < RDMA_MOCK_CNT_MAX; i++)
		if (mock_stat_descs[i].flags & IB_STAT_FLAG_OPTIONAL)
			set_bit(i, stats->is_disabled);
	return stats;
}

static int mock_get_hw_stats(struct ib_device *ibdev,
			     struct rdma_hw_stats *stats, u32 port, int index)
{
	struct rdma_mock_dev *md = to_mock_dev(ibdev);
	u64 *v = stats->value;

	if (port < 1 || port > md->opts.num_ports ||
	    stats->num_counters != RDMA_MOCK_CNT_MAX)
		return -EINVAL;
	v[RDMA_MOCK_CNT_PD_ALLOC] = atomic_read(&md->pd_allocs);
	v[RDMA_MOCK_CNT_CQ_CREATE] = atomic_read(&md->cq_creates);
	v[RDMA_MOCK_CNT_QP_CREATE] = atomic_read(&md->qp_creates);
	v[RDMA_MOCK_CNT_MR_ALLOC] = atomic_read(&md->mr_allocs);
	v[RDMA_MOCK_CNT_POST_SEND_WR] = atomic_read(&md->send_wrs);
	v[RDMA_MOCK_CNT_POST_RECV_WR] = atomic_read(&md->recv_wrs);
	v[RDMA_MOCK_CNT_QP_MODIFY] = atomic_read(&md->qp_modifies[port - 1]);
	/* Refreshing one counter costs as much as all of them. */
	return stats->num_counters;
}

/* Only the optional counter can be switched; the others are always on. */
static int mock_modify_hw_stat(struct ib_device *ibdev, u32 port,
			       unsigned int counter_index, bool enable)
{
	struct rdma_mock_dev *md = to_mock_dev(ibdev);

	atomic_inc(&md->hw_stat_modifies);
	if (port < 1 || port > md->opts.num_ports ||
	    counter_index >= RDMA_MOCK_CNT_MAX ||
	    !(mock_stat_descs[counter_index].flags & IB_STAT_FLAG_OPTIONAL))
		return -EINVAL;
	WRITE_ONCE(md->count_qp_modifies[port - 1], enable);
	return 0;
}

static const struct ib_device_ops mock_stats_ops = {
	.alloc_hw_port_stats = mock_alloc_hw_port_stats,
	.get_hw_stats = mock_get_hw_stats,
	.modify_hw_stat = mock_modify_hw_stat,
};

/* ---- the device -------------------------------------------------------- */

static const struct ib_device_ops mock_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.query_device = mock_query_device,
	.query_port = mock_query_port,
	.get_port_immutable = mock_get_port_immutable,
	.get_link_layer = mock_get_link_layer,
	.query_pkey = mock_query_pkey,
	.get_dev_fw_str = mock_get_dev_fw_str,
	.add_gid = mock_add_gid,
	.del_gid = mock_del_gid,

	.alloc_pd = mock_alloc_pd,
	.dealloc_pd = mock_dealloc_pd,
	.modify_ah = mock_modify_ah,
	.query_ah = mock_query_ah,
	.destroy_ah = mock_destroy_ah,

	.create_cq = mock_create_cq,
	.destroy_cq = mock_destroy_cq,
	.poll_cq = mock_poll_cq,
	.req_notify_cq = mock_req_notify_cq,

	.create_srq = mock_create_srq,
	.modify_srq = mock_modify_srq,
	.query_srq = mock_query_srq,
	.destroy_srq = mock_destroy_srq,
	.post_srq_recv = mock_post_srq_recv,

	.create_qp = mock_create_qp,
	.modify_qp = mock_modify_qp,
	.query_qp = mock_query_qp,
	.destroy_qp = mock_destroy_qp,
	.post_send = mock_post_send,
	.post_recv = mock_post_recv,

	.attach_mcast = mock_attach_mcast,
	.detach_mcast = mock_detach_mcast,

	.get_dma_mr = mock_get_dma_mr,
	.reg_user_mr = mock_reg_user_mr,
	.alloc_mr = mock_alloc_mr,
	.map_mr_sg = mock_map_mr_sg,
	.dereg_mr = mock_dereg_mr,
};

/* The driver structures the core allocates around its objects. */
static const struct ib_device_ops mock_obj_sizes = {
	INIT_RDMA_OBJ_SIZE(ib_pd, rdma_mock_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_cq, rdma_mock_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_srq, rdma_mock_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_qp, rdma_mock_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_ah, rdma_mock_ah, ibah),
};

static const struct ib_device_ops mock_ah_ops = {
	.create_ah = mock_create_ah,
};

/* The mock's create_ah() never looks at udata, so it serves both paths. */
static const struct ib_device_ops mock_user_ah_ops = {
	.create_user_ah = mock_create_ah,
};

static const struct ib_device_ops mock_cq_ops = {
	.modify_cq = mock_modify_cq,
	.resize_cq = mock_resize_cq,
};

static void mock_dealloc_driver(struct ib_device *ibdev)
{
	struct rdma_mock_dev *md = to_mock_dev(ibdev);

	if (md->opts.dealloc_count)
		atomic_inc(md->opts.dealloc_count);
	if (md->opts.on_dealloc)
		md->opts.on_dealloc(md);
}

static const struct ib_device_ops mock_dealloc_ops = {
	.dealloc_driver = mock_dealloc_driver,
};

/**
 * rdma_mock_alloc() - allocate a mock device, not yet registered
 * @ndev: netdev under port 1, or NULL
 * @opts: provider variant, or NULL for the defaults
 *
 * Return: the device, or an ERR_PTR.
 */
struct rdma_mock_dev *rdma_mock_alloc(struct net_device *ndev,
				      const struct rdma_mock_opts *opts)
{
	struct rdma_mock_dev *md;
	int ret;

	md = ib_alloc_device(rdma_mock_dev, ibdev);
	if (!md)
		return ERR_PTR(-ENOMEM);
	if (opts)
		md->opts = *opts;
	if (!md->opts.num_ports)
		md->opts.num_ports = 1;
	if (md->opts.num_ports > RDMA_MOCK_MAX_PORTS) {
		ib_dealloc_device(&md->ibdev);
		return ERR_PTR(-EINVAL);
	}
	spin_lock_init(&md->lock);
	atomic_set(&md->next_qpn, 0x10);

	md->ibdev.node_type = RDMA_NODE_IB_CA;
	md->ibdev.phys_port_cnt = md->opts.num_ports;
	md->ibdev.num_comp_vectors = 1;
	md->ibdev.local_dma_lkey = RDMA_MOCK_DMA_LKEY;
	strscpy(md->ibdev.node_desc, "rdma_mock", sizeof(md->ibdev.node_desc));
	if (ndev)
		addrconf_addr_eui48((u8 *)&md->ibdev.node_guid, ndev->dev_addr);
	ib_set_device_ops(&md->ibdev, &mock_ops);
	ib_set_device_ops(&md->ibdev, &mock_obj_sizes);
	if (!md->opts.no_create_ah)
		ib_set_device_ops(&md->ibdev, &mock_ah_ops);
	if (md->opts.user_ah)
		ib_set_device_ops(&md->ibdev, &mock_user_ah_ops);
	if (md->opts.cq_ops)
		ib_set_device_ops(&md->ibdev, &mock_cq_ops);
	if (md->opts.dealloc_driver)
		ib_set_device_ops(&md->ibdev, &mock_dealloc_ops);
	if (md->opts.hw_stats)
		ib_set_device_ops(&md->ibdev, &mock_stats_ops);
	if (md->opts.driver_id != RDMA_DRIVER_UNKNOWN)
		md->ibdev.ops.driver_id = md->opts.driver_id;

	if (ndev) {
		ret = ib_device_set_netdev(&md->ibdev, ndev, 1);
		if (ret) {
			ib_dealloc_device(&md->ibdev);
			return ERR_PTR(ret);
		}
		md->ndev = ndev;
	}
	return md;
}
EXPORT_SYMBOL_GPL(rdma_mock_alloc);

/**
 * rdma_mock_register() - register a device from rdma_mock_alloc()
 * @md: the device
 * @name: name or template ("mock%d")
 *
 * Return: 0 or the core's error; the device stays allocated either way.
 */
int rdma_mock_register(struct rdma_mock_dev *md, const char *name)
{
	int ret = ib_register_device(&md->ibdev, name, NULL);

	if (!ret)
		md->registered = true;
	return ret;
}
EXPORT_SYMBOL_GPL(rdma_mock_register);

/**
 * rdma_mock_unregister() - unregister a registered mock device
 * @md: the device; with opts.dealloc_driver the core frees it here
 */
void rdma_mock_unregister(struct rdma_mock_dev *md)
{
	if (!md->registered)
		return;
	if (md->opts.dealloc_driver) {
		/* The core frees the device: @md is gone after this. */
		ib_unregister_device(&md->ibdev);
		return;
	}
	ib_unregister_device(&md->ibdev);
	md->registered = false;
}
EXPORT_SYMBOL_GPL(rdma_mock_unregister);

/**
 * rdma_mock_free() - free an unregistered mock device
 * @md: the device
 */
void rdma_mock_free(struct rdma_mock_dev *md)
{
	ib_dealloc_device(&md->ibdev);
}
EXPORT_SYMBOL_GPL(rdma_mock_free);

/**
 * rdma_mock_create() - allocate and register a mock device as "mock%d"
 * @ndev: netdev under port 1, or NULL
 * @opts: provider variant, or NULL
 *
 * Return: the registered device, or an ERR_PTR.
 */
struct rdma_mock_dev *rdma_mock_create(struct net_device *ndev,
				       const struct rdma_mock_opts *opts)
{
	struct rdma_mock_dev *md = rdma_mock_alloc(ndev, opts);
	int ret;

	if (IS_ERR(md))
		return md;
	ret = rdma_mock_register(md, "mock%d");
	if (ret) {
		rdma_mock_free(md);
		return ERR_PTR(ret);
	}
	return md;
}
EXPORT_SYMBOL_GPL(rdma_mock_create);

/**
 * rdma_mock_destroy() - unregister (if registered) and free a mock device
 * @md: the device, or an ERR_PTR/NULL (ignored)
 */
void rdma_mock_destroy(struct rdma_mock_dev *md)
{
	if (IS_ERR_OR_NULL(md))
		return;
	if (md->registered && md->opts.dealloc_driver) {
		rdma_mock_unregister(md);	/* frees it too */
		return;
	}
	rdma_mock_unregister(md);
	rdma_mock_free(md);
}
EXPORT_SYMBOL_GPL(rdma_mock_destroy);

/* ---- a netdev for the tests -------------------------------------------- */

static netdev_tx_t mock_ndev_xmit(struct sk_buff *skb, struct net_device *ndev)
{
	dev_core_stats_tx_dropped_inc(ndev);
	dev_kfree_skb_any(skb);
	return NETDEV_TX_OK;
}

static const struct net_device_ops mock_ndev_ops = {
	.ndo_start_xmit = mock_ndev_xmit,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

static void mock_ndev_setup(struct net_device *ndev)
{
	ether_setup(ndev);
	ndev->netdev_ops = &mock_ndev_ops;
}

/**
 * rdma_mock_netdev_create() - register an Ethernet netdev and bring it up
 * @name: interface name or template ("rdmat%d")
 * @mac: its MAC address, or NULL for a random one
 *
 * Frames sent on it are dropped.
 *
 * Return: the netdev, or an ERR_PTR.
 */
struct net_device *rdma_mock_netdev_create(const char *name, const u8 *mac)
{
	struct net_device *ndev;
	int ret;

	ndev = alloc_netdev(0, name, NET_NAME_USER, mock_ndev_setup);
	if (!ndev)
		return ERR_PTR(-ENOMEM);
	if (mac)
		eth_hw_addr_set(ndev, mac);
	else
		eth_hw_addr_random(ndev);
	ret = register_netdev(ndev);
	if (ret) {
		free_netdev(ndev);
		return ERR_PTR(ret);
	}
	rtnl_lock();
	ret = dev_open(ndev, NULL);
	rtnl_unlock();
	if (ret) {
		unregister_netdev(ndev);
		free_netdev(ndev);
		return ERR_PTR(ret);
	}
	return ndev;
}
EXPORT_SYMBOL_GPL(rdma_mock_netdev_create);

/**
 * rdma_mock_netdev_destroy() - unregister and free a netdev of
 *	rdma_mock_netdev_create()
 * @ndev: the netdev, or an ERR_PTR/NULL (ignored)
 */
void rdma_mock_netdev_destroy(struct net_device *ndev)
{
	if (IS_ERR_OR_NULL(ndev))
		return;
	unregister_netdev(ndev);
	free_netdev(ndev);
}
EXPORT_SYMBOL_GPL(rdma_mock_netdev_destroy);

/* ---- rtnetlink requests from inside the kernel ------------------------- */

struct mock_nlreq {
	struct nlmsghdr nlh;
	union {
		struct ifaddrmsg ifa;
		struct ndmsg ndm;
	};
	u8 attrs[64];
};

static void mock_nl_put(struct mock_nlreq *req, u16 type, const void *data,
			int len)
{
	struct nlattr *nla = (struct nlattr *)((u8 *)req +
					       NLMSG_ALIGN(req->nlh.nlmsg_len));

	nla->nla_type = type;
	nla->nla_len = nla_attr_size(len);
	memcpy(nla_data(nla), data, len);
	req->nlh.nlmsg_len = NLMSG_ALIGN(req->nlh.nlmsg_len) +
			     nla_total_size(len);
}

/*
 * Send one rtnetlink request and return the error of its ACK.  The socket
 * gets a file so that rtnetlink's CAP_NET_ADMIN check, made against the
 * opener of the socket, sees the loading task (root) as "ip" would be.
 */
static int mock_rtnl_request(struct net *net, struct mock_nlreq *req)
{
	struct sockaddr_nl kernel_sa = { .nl_family = AF_NETLINK };
	struct msghdr msg = {
		.msg_name = &kernel_sa,
		.msg_namelen = sizeof(kernel_sa),
	};
	struct kvec iov = { .iov_base = req, .iov_len = req->nlh.nlmsg_len };
	struct nlmsghdr *reply;
	struct socket *sock;
	struct file *file;
	const size_t reply_len = 1024;
	int ret;

	ret = sock_create_kern(net, AF_NETLINK, SOCK_RAW, NETLINK_ROUTE, &sock);
	if (ret)
		return ret;
	file = sock_alloc_file(sock, 0, NULL);
	if (IS_ERR(file))
		return PTR_ERR(file);
	reply = kzalloc(reply_len, GFP_KERNEL);
	if (!reply) {
		ret = -ENOMEM;
		goto out;
	}
	req->nlh.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	req->nlh.nlmsg_seq = 1;
	ret = kernel_sendmsg(sock, &msg, &iov, 1, iov.iov_len);
	if (ret < 0)
		goto out;

	/* rtnetlink handles the request synchronously: the ACK is queued. */
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = reply;
	iov.iov_len = reply_len;
	ret = kernel_recvmsg(sock, &msg, &iov, 1, reply_len, MSG_DONTWAIT);
	if (ret < 0)
		goto out;
	if (ret < (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) ||
	    reply->nlmsg_type != NLMSG_ERROR)
		ret = -EPROTO;
	else
		ret = ((struct nlmsgerr *)nlmsg_data(reply))->error;
out:
	kfree(reply);
	fput(file);
	return ret;
}

static int mock_addr(struct net_device *ndev, bool add, int family,
		     const void *addr, int alen, u8 plen)
{
	struct mock_nlreq req = {};

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ifa));
	req.nlh.nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	if (add)
		req.nlh.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	req.ifa.ifa_family = family;
	req.ifa.ifa_prefixlen = plen;
	req.ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	req.ifa.ifa_index = ndev->ifindex;
	if (family == AF_INET6)
		req.ifa.ifa_flags = IFA_F_NODAD;
	mock_nl_put(&req, IFA_LOCAL, addr, alen);
	mock_nl_put(&req, IFA_ADDRESS, addr, alen);
	return mock_rtnl_request(dev_net(ndev), &req);
}

static int mock_neigh(struct net_device *ndev, bool add, int family,
		      const void *addr, int alen, const u8 *lladdr)
{
	struct mock_nlreq req = {};

	req.nlh.nlmsg_len = NLMSG_LENGTH(sizeof(req.ndm));
	req.nlh.nlmsg_type = add ? RTM_NEWNEIGH : RTM_DELNEIGH;
	if (add)
		req.nlh.nlmsg_flags = NLM_F_CREATE | NLM_F_REPLACE;
	req.ndm.ndm_family = family;
	req.ndm.ndm_ifindex = ndev->ifindex;
	req.ndm.ndm_state = NUD_PERMANENT;
	mock_nl_put(&req, NDA_DST, addr, alen);
	if (add)
		mock_nl_put(&req, NDA_LLADDR, lladdr, ETH_ALEN);
	return mock_rtnl_request(dev_net(ndev), &req);
}

/**
 * rdma_mock_addr4() - add or remove an IPv4 address ("ip addr add/del")
 * @ndev: the netdev
 * @add: add (true) or remove
 * @addr: the address
 * @plen: prefix length
 *
 * Must be called without the RTNL held, from a task with CAP_NET_ADMIN.
 *
 * Return: 0 or the rtnetlink error.
 */
int rdma_mock_addr4(struct net_device *ndev, bool add, __be32 addr, u8 plen)
{
	return mock_addr(ndev, add, AF_INET, &addr, sizeof(addr), plen);
}
EXPORT_SYMBOL_GPL(rdma_mock_addr4);

/**
 * rdma_mock_addr6() - add (without DAD) or remove an IPv6 address
 * @ndev: the netdev
 * @add: add (true) or remove
 * @addr: the address
 * @plen: prefix length
 *
 * Return: 0 or the rtnetlink error.
 */
int rdma_mock_addr6(struct net_device *ndev, bool add,
		    const struct in6_addr *addr, u8 plen)
{
	return mock_addr(ndev, add, AF_INET6, addr, sizeof(*addr), plen);
}
EXPORT_SYMBOL_GPL(rdma_mock_addr6);

/**
 * rdma_mock_neigh4() - add or remove a permanent IPv4 neighbour
 * @ndev: the netdev
 * @add: add (true) or remove
 * @addr: the neighbour's address
 * @lladdr: its MAC (ignored when removing)
 *
 * Return: 0 or the rtnetlink error.
 */
int rdma_mock_neigh4(struct net_device *ndev, bool add, __be32 addr,
		     const u8 *lladdr)
{
	return mock_neigh(ndev, add, AF_INET, &addr, sizeof(addr), lladdr);
}
EXPORT_SYMBOL_GPL(rdma_mock_neigh4);

/**
 * rdma_mock_neigh6() - add or remove a permanent IPv6 neighbour
 * @ndev: the netdev
 * @add: add (true) or remove
 * @addr: the neighbour's address
 * @lladdr: its MAC (ignored when removing)
 *
 * Return: 0 or the rtnetlink error.
 */
int rdma_mock_neigh6(struct net_device *ndev, bool add,
		     const struct in6_addr *addr, const u8 *lladdr)
{
	return mock_neigh(ndev, add, AF_INET6, addr, sizeof(*addr), lladdr);
}
EXPORT_SYMBOL_GPL(rdma_mock_neigh6);

MODULE_DESCRIPTION("Minimal RoCE provider for the RDMA core's KTAP tests");
MODULE_LICENSE("GPL");
