// SPDX-License-Identifier: GPL-2.0-only
/*
 * The R/W API (<rdma/rw.h>): the RDMA READs or WRITEs that move a
 * scatterlist to or from a peer's buffer.
 *
 * Three ways to describe the local side:
 *   - one DMA segment: one request with one SGE;
 *   - several segments: requests of up to max_read_sge / max_write_sge
 *     SGEs each (the QP's limits), the remote address advancing by what
 *     each moves;
 *   - memory registrations, one per request, taken from the QP's
 *     rdma_mrs pool: iWARP needs them for the sink of an RDMA READ
 *     (its STag must allow remote writes), and the force_mr parameter
 *     asks for them everywhere (to exercise the path on other devices).
 *     A registration of an MR used before is preceded by a LOCAL_INV.
 *
 * Every request is built by rdma_rw_ctx_init(); rdma_rw_ctx_wrs() only
 * chains the last one to the caller's or signals it.
 */
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/rw.h>

enum rw_type { RW_SINGLE, RW_MULTI, RW_MR };

static bool force_mr;
module_param(force_mr, bool, 0444);
MODULE_PARM_DESC(force_mr, "R/W API: always register memory for RDMA READ/WRITE (testing)");

/* Pages one registration of the R/W API may map. */
#define RW_MR_PAGES_MAX		256

static u32 rw_port(struct ib_device *dev, u32 port)
{
	return port ?: rdma_start_port(dev);
}

/* May transfers on @port use registrations at all? */
static bool rw_may_use_mr(struct ib_device *dev, u32 port)
{
	if (!(dev->attrs.device_cap_flags & IB_DEVICE_MEM_MGT_EXTENSIONS))
		return false;
	return force_mr || rdma_protocol_iwarp(dev, rw_port(dev, port));
}

/* Must this transfer use them? */
static bool rw_needs_mr(struct ib_device *dev, u32 port,
			enum dma_data_direction dir)
{
	if (!rw_may_use_mr(dev, port))
		return false;
	return force_mr || dir == DMA_FROM_DEVICE;
}

static u32 rw_mr_pages(struct ib_device *dev)
{
	return min_t(u32, dev->attrs.max_fast_reg_page_list_len,
		     RW_MR_PAGES_MAX);
}

static enum ib_wr_opcode rw_opcode(enum dma_data_direction dir)
{
	return dir == DMA_FROM_DEVICE ? IB_WR_RDMA_READ : IB_WR_RDMA_WRITE;
}

/* The SGE of what is left of @sg past @offset. */
static void rw_sge(struct ib_qp *qp, struct scatterlist *sg, u32 offset,
		   struct ib_sge *sge)
{
	sge->addr = sg_dma_address(sg) + offset;
	sge->length = sg_dma_len(sg) - offset;
	sge->lkey = qp->pd->local_dma_lkey;
}

static int rw_init_single(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			  struct scatterlist *sg, u32 offset, u64 raddr,
			  u32 rkey, enum dma_data_direction dir)
{
	struct ib_rdma_wr *wr = &ctx->single.wr;

	rw_sge(qp, sg, offset, &ctx->single.sge);
	memset(wr, 0, sizeof(*wr));
	wr->wr.opcode = rw_opcode(dir);
	wr->wr.sg_list = &ctx->single.sge;
	wr->wr.num_sge = 1;
	wr->remote_addr = raddr;
	wr->rkey = rkey;
	ctx->type = RW_SINGLE;
	ctx->nr_ops = 1;
	return 1;
}

static int rw_init_multi(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 struct scatterlist *sg, u32 nents, u32 offset,
			 u64 raddr, u32 rkey, enum dma_data_direction dir)
{
	u32 per_wr = max_t(u32, 1, dir == DMA_FROM_DEVICE ? qp->max_read_sge :
							    qp->max_write_sge);
	u32 nr = DIV_ROUND_UP(nents, per_wr);
	struct ib_sge *sge;
	u32 i, j;

	ctx->map.sges = kcalloc(nents, sizeof(*ctx->map.sges), GFP_KERNEL);
	ctx->map.wrs = kcalloc(nr, sizeof(*ctx->map.wrs), GFP_KERNEL);
	if (!ctx->map.sges || !ctx->map.wrs) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
		return -ENOMEM;
	}
	sge = ctx->map.sges;
	for (i = 0; i < nr; i++) {
		struct ib_rdma_wr *wr = &ctx->map.wrs[i];

		wr->wr.opcode = rw_opcode(dir);
		wr->wr.sg_list = sge;
		wr->remote_addr = raddr;
		wr->rkey = rkey;
		for (j = 0; j < per_wr && nents; j++, nents--) {
			rw_sge(qp, sg, offset, sge);
			offset = 0;
			raddr += sge->length;
			sge++;
			sg = sg_next(sg);
		}
		wr->wr.num_sge = j;
		if (i + 1 < nr)
			wr->wr.next = &ctx->map.wrs[i + 1].wr;
	}
	ctx->type = RW_MULTI;
	ctx->nr_ops = nr;
	return nr;
}

static void rw_put_mrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		ib_mr_pool_put(qp, &qp->rdma_mrs, ctx->reg[i].mr);
	kfree(ctx->reg);
}

/* The first request of a registration's chain. */
static struct ib_send_wr *rw_reg_first(struct rdma_rw_reg_ctx *reg)
{
	return reg->inv_wr.opcode == IB_WR_LOCAL_INV ? &reg->inv_wr :
						       &reg->reg_wr.wr;
}

/*
 * One registration of up to @nents entries and its request.  Returns the
 * entries it mapped (the last one possibly in part: *@offset then says
 * where the next registration starts in it).
 */
static int rw_init_reg(struct rdma_rw_reg_ctx *reg, struct ib_qp *qp,
		       struct scatterlist *sg, u32 nents, u32 *offset,
		       u64 raddr, u32 rkey, enum dma_data_direction dir)
{
	struct ib_mr *mr = reg->mr;
	int n;

	n = ib_map_mr_sg(mr, sg, nents, offset, PAGE_SIZE);
	if (n <= 0)
		return n ?: -EINVAL;
	if (mr->need_inval)
		/* Still valid from its last use: invalidate, then re-key. */
		reg->inv_wr = (struct ib_send_wr) {
			.opcode = IB_WR_LOCAL_INV,
			.ex.invalidate_rkey = mr->rkey,
			.next = &reg->reg_wr.wr,
		};
	ib_update_fast_reg_key(mr, ib_inc_rkey(mr->rkey));
	mr->need_inval = true;
	reg->reg_wr = (struct ib_reg_wr) {
		.wr.opcode = IB_WR_REG_MR,
		.wr.next = &reg->wr.wr,
		.mr = mr,
		.key = mr->lkey,
		/* the sink of an iWARP READ is written by the peer */
		.access = dir == DMA_FROM_DEVICE ?
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE : 0,
	};
	reg->sge = (struct ib_sge) {
		.addr = mr->iova,
		.length = mr->length,
		.lkey = mr->lkey,
	};
	reg->wr = (struct ib_rdma_wr) {
		.wr.opcode = rw_opcode(dir),
		.wr.sg_list = &reg->sge,
		.wr.num_sge = 1,
		.remote_addr = raddr,
		.rkey = rkey,
	};
	return n;
}

static int rw_init_mr(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
		      struct scatterlist *sg, u32 nents, u32 offset,
		      u64 raddr, u32 rkey, enum dma_data_direction dir)
{
	u32 pages = rw_mr_pages(qp->device);
	u32 nr = DIV_ROUND_UP(nents, pages), i;
	int ret, total = 0;

	ctx->reg = kcalloc(nr, sizeof(*ctx->reg), GFP_KERNEL);
	if (!ctx->reg)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		struct rdma_rw_reg_ctx *reg = &ctx->reg[i];

		reg->mr = ib_mr_pool_get(qp, &qp->rdma_mrs);
		if (!reg->mr) {
			ret = -EAGAIN;
			goto err;
		}
		ret = rw_init_reg(reg, qp, sg, min(nents, pages), &offset,
				  raddr, rkey, dir);
		if (ret < 0 || (ret < min(nents, pages) && i + 1 == nr)) {
			/* gaps the MR cannot map: more than @nr needed */
			ret = ret < 0 ? ret : -EINVAL;
			i++;
			goto err;
		}
		if (i)
			ctx->reg[i - 1].wr.wr.next = rw_reg_first(reg);
		total += reg->inv_wr.opcode == IB_WR_LOCAL_INV ? 3 : 2;
		raddr += reg->mr->length;
		nents -= ret;
		while (ret--)
			sg = sg_next(sg);
	}
	ctx->type = RW_MR;
	ctx->nr_ops = nr;
	return total;

err:
	dev_dbg(&qp->device->dev, "R/W API: registration %u of %u on QP %u: %d\n",
		i, nr, qp->qp_num, ret);
	rw_put_mrs(ctx, qp, i);
	return ret;
}

/**
 * rdma_rw_ctx_init() - prepare the requests of one transfer
 * @ctx: the context, filled here
 * @qp: the QP that will carry them
 * @port_num: its port
 * @sg: the local buffer; DMA-mapped here (in @dir)
 * @sg_cnt: its entries
 * @sg_offset: bytes of @sg to skip
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 * @dir: DMA_FROM_DEVICE for RDMA READ (the peer's data into @sg),
 *	DMA_TO_DEVICE for RDMA WRITE
 *
 * Return: how many work requests rdma_rw_ctx_post() will post (for the
 * caller's send queue accounting), or -ENOMEM (mapping or allocation),
 * -EINVAL (nothing left past @sg_offset, or a buffer registrations cannot
 * map), -EAGAIN (the QP's MR pool is empty for now).
 */
int rdma_rw_ctx_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct scatterlist *sg, u32 sg_cnt, u32 sg_offset,
		     u64 remote_addr, u32 rkey, enum dma_data_direction dir)
{
	struct ib_device *dev = qp->device;
	int nents, ret;

	nents = ib_dma_map_sg(dev, sg, sg_cnt, dir);
	if (!nents)
		return -ENOMEM;
	while (sg && nents && sg_offset >= sg_dma_len(sg)) {
		sg_offset -= sg_dma_len(sg);
		sg = sg_next(sg);
		nents--;
	}
	if (!nents || !sg)
		ret = -EINVAL;
	else if (rw_needs_mr(dev, port_num, dir))
		ret = rw_init_mr(ctx, qp, sg, nents, sg_offset, remote_addr,
				 rkey, dir);
	else if (nents == 1)
		ret = rw_init_single(ctx, qp, sg, sg_offset, remote_addr, rkey,
				     dir);
	else
		ret = rw_init_multi(ctx, qp, sg, nents, sg_offset, remote_addr,
				    rkey, dir);
	if (ret < 0)
		ib_dma_unmap_sg(dev, sg, sg_cnt, dir);
	return ret;
}
EXPORT_SYMBOL(rdma_rw_ctx_init);

/**
 * rdma_rw_ctx_signature_init() - a transfer with T10-PI signature offload
 * @ctx: the context
 * @qp: the QP
 * @port_num: its port
 * @sg: data
 * @sg_cnt: its entries
 * @prot_sg: protection information
 * @prot_sg_cnt: its entries
 * @sig_attrs: the signature domains
 * @remote_addr: the peer's address
 * @rkey: the peer's key
 * @dir: the direction
 *
 * Return: -EOPNOTSUPP: no provider of this core offers integrity MRs.
 */
int rdma_rw_ctx_signature_init(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			       u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			       struct scatterlist *prot_sg, u32 prot_sg_cnt,
			       struct ib_sig_attrs *sig_attrs, u64 remote_addr, u32 rkey,
			       enum dma_data_direction dir)
{
	dev_dbg(&qp->device->dev, "R/W API: signature offload not supported\n");
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(rdma_rw_ctx_signature_init);

/**
 * rdma_rw_ctx_wrs() - the requests of a transfer, ready to post
 * @ctx: a context rdma_rw_ctx_init() prepared
 * @qp: its QP
 * @port_num: its port
 * @cqe: completion of the last request when @chain_wr is NULL
 * @chain_wr: requests to post after the transfer's, or NULL
 *
 * Return: the first request of the chain.
 */
struct ib_send_wr *rdma_rw_ctx_wrs(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	struct ib_send_wr *first, *last;

	switch (ctx->type) {
	case RW_MR:
		first = rw_reg_first(&ctx->reg[0]);
		last = &ctx->reg[ctx->nr_ops - 1].wr.wr;
		break;
	case RW_MULTI:
		first = &ctx->map.wrs[0].wr;
		last = &ctx->map.wrs[ctx->nr_ops - 1].wr;
		break;
	default:
		first = &ctx->single.wr.wr;
		last = first;
		break;
	}
	/* Chained: the caller's requests follow; else the last one signals. */
	last->next = chain_wr;
	if (chain_wr)
		return first;
	last->wr_cqe = cqe;
	last->send_flags |= IB_SEND_SIGNALED;
	return first;
}
EXPORT_SYMBOL(rdma_rw_ctx_wrs);

/**
 * rdma_rw_ctx_post() - post the requests of a transfer
 * @ctx: a context rdma_rw_ctx_init() prepared
 * @qp: its QP
 * @port_num: its port
 * @cqe: see rdma_rw_ctx_wrs()
 * @chain_wr: see rdma_rw_ctx_wrs()
 *
 * Return: what ib_post_send() returns.
 */
int rdma_rw_ctx_post(struct rdma_rw_ctx *ctx, struct ib_qp *qp, u32 port_num,
		     struct ib_cqe *cqe, struct ib_send_wr *chain_wr)
{
	return ib_post_send(qp, rdma_rw_ctx_wrs(ctx, qp, port_num, cqe,
			    chain_wr), NULL);
}
EXPORT_SYMBOL(rdma_rw_ctx_post);

/**
 * rdma_rw_ctx_destroy() - release what a transfer held
 * @ctx: the context, once its requests completed (or were never posted)
 * @qp: its QP
 * @port_num: its port
 * @sg: the buffer given to rdma_rw_ctx_init()
 * @sg_cnt: its entries
 * @dir: its direction
 */
void rdma_rw_ctx_destroy(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
			 u32 port_num, struct scatterlist *sg, u32 sg_cnt,
			 enum dma_data_direction dir)
{
	if (ctx->type == RW_MR) {
		rw_put_mrs(ctx, qp, ctx->nr_ops);
	} else if (ctx->type == RW_MULTI) {
		kfree(ctx->map.sges);
		kfree(ctx->map.wrs);
	}
	ib_dma_unmap_sg(qp->device, sg, sg_cnt, dir);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy);

/**
 * rdma_rw_ctx_destroy_signature() - undo rdma_rw_ctx_signature_init()
 * @ctx: the context
 * @qp: its QP
 * @port_num: its port
 * @sg: data
 * @sg_cnt: its entries
 * @prot_sg: protection information
 * @prot_sg_cnt: its entries
 * @dir: the direction
 *
 * rdma_rw_ctx_signature_init() never succeeds here: nothing to release.
 */
void rdma_rw_ctx_destroy_signature(struct rdma_rw_ctx *ctx, struct ib_qp *qp,
				   u32 port_num, struct scatterlist *sg, u32 sg_cnt,
				   struct scatterlist *prot_sg, u32 prot_sg_cnt,
				   enum dma_data_direction dir)
{
	WARN_ON_ONCE(1);
}
EXPORT_SYMBOL(rdma_rw_ctx_destroy_signature);

/**
 * rdma_rw_mr_factor() - contexts per transfer of a given size
 * @device: the device
 * @port_num: the port
 * @maxpages: pages of the largest transfer
 *
 * For sizing cap.max_rdma_ctxs: one transfer of @maxpages pages takes
 * this many registrations (or requests, where none are used).
 *
 * Return: at least 1.
 */
unsigned int rdma_rw_mr_factor(struct ib_device *device, u32 port_num,
			       unsigned int maxpages)
{
	u32 per = rw_may_use_mr(device, port_num) ? rw_mr_pages(device) :
						     device->attrs.max_sge_rd;

	return DIV_ROUND_UP(maxpages, max_t(u32, per, 1));
}
EXPORT_SYMBOL(rdma_rw_mr_factor);

/**
 * rdma_rw_max_send_wr() - send queue entries the R/W contexts of a QP need
 * @dev: the device
 * @port_num: the port
 * @max_rdma_ctxs: contexts in flight at once
 * @create_flags: the QP's create flags
 *
 * Return: @max_rdma_ctxs times the requests one context may post (with
 * registrations: the LOCAL_INV, the REG_MR and the transfer).
 */
unsigned int rdma_rw_max_send_wr(struct ib_device *dev, u32 port_num,
				 unsigned int max_rdma_ctxs, u32 create_flags)
{
	return max_rdma_ctxs * (rw_may_use_mr(dev, port_num) ? 3 : 1);
}
EXPORT_SYMBOL(rdma_rw_max_send_wr);

/**
 * rdma_rw_init_qp() - grow a QP's send queue for its R/W contexts
 * @dev: the device
 * @attr: the QP's creation attributes (cap.max_rdma_ctxs set); the send
 *	queue grows, within the device's limit
 *
 * Called by ib_create_qp() for QPs that ask for R/W contexts.
 */
void rdma_rw_init_qp(struct ib_device *dev, struct ib_qp_init_attr *attr)
{
	u32 want = attr->cap.max_send_wr +
		   rdma_rw_max_send_wr(dev, attr->port_num,
				       attr->cap.max_rdma_ctxs,
				       attr->create_flags);

	attr->cap.max_send_wr = min_t(u32, want, dev->attrs.max_qp_wr);
}
EXPORT_SYMBOL(rdma_rw_init_qp);

/**
 * rdma_rw_init_mrs() - the MR pool of a QP's R/W contexts
 * @qp: the new QP
 * @attr: its creation attributes
 *
 * Where transfers use registrations, one MR per context goes to
 * qp->rdma_mrs.
 *
 * Return: 0, -EOPNOTSUPP for integrity QPs, or the pool's error.
 */
int rdma_rw_init_mrs(struct ib_qp *qp, struct ib_qp_init_attr *attr)
{
	struct ib_device *dev = qp->device;

	if (attr->create_flags & IB_QP_CREATE_INTEGRITY_EN)
		return -EOPNOTSUPP;
	if (!rw_may_use_mr(dev, attr->port_num))
		return 0;
	return ib_mr_pool_init(qp, &qp->rdma_mrs, attr->cap.max_rdma_ctxs,
			       IB_MR_TYPE_MEM_REG, rw_mr_pages(dev), 0);
}
EXPORT_SYMBOL(rdma_rw_init_mrs);

/**
 * rdma_rw_cleanup_mrs() - release the MR pools of a QP's R/W contexts
 * @qp: the QP, being destroyed
 */
void rdma_rw_cleanup_mrs(struct ib_qp *qp)
{
	ib_mr_pool_destroy(qp, &qp->rdma_mrs);
	ib_mr_pool_destroy(qp, &qp->sig_mrs);
}
EXPORT_SYMBOL(rdma_rw_cleanup_mrs);
