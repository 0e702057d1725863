// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions.  A soft device reaches memory through kernel virtual
 * addresses: the "DMA addresses" the ib_dma_*() helpers give a device
 * without a DMA device are those (ib_uses_virt_dma()).  Two kinds exist:
 *
 *   DMA MR      get_dma_mr(): any kernel address, the PD's local_dma_lkey
 *   fast-reg    alloc_mr(IB_MR_TYPE_MEM_REG) + ib_map_mr_sg() + an
 *               IB_WR_REG_MR work request; IB_WR_LOCAL_INV or a SEND with
 *               invalidate makes it invalid again
 *
 * Keys: lkey == rkey == index << 8 | key byte, the index naming the slot
 * in rxe_dev.mr_xa.  The data path finds an MR under RCU and holds it with
 * mr->ref while it copies; dereg_mr() unpublishes the MR, drops the
 * owner's reference, waits for the last user and frees after a grace
 * period.
 */
#include <linux/slab.h>

#include "rxe.h"

static struct rxe_mr *rxe_mr_new(struct rxe_dev *rxe, enum rxe_mr_kind kind)
{
	struct xa_limit lim = XA_LIMIT(1, RXE_MAX_MR);
	struct rxe_mr *mr;
	u32 index;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->rxe = rxe;
	mr->kind = kind;
	refcount_set(&mr->ref, 1);
	init_completion(&mr->done);
	ret = xa_alloc_cyclic_irq(&rxe->mr_xa, &index, NULL, lim,
				  &rxe->next_mr, GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	mr->index = index;
	mr->ibmr.lkey = index << 8 | (get_random_u32() & 0xff);
	mr->ibmr.rkey = mr->ibmr.lkey;
	return mr;
}

static void rxe_mr_publish(struct rxe_mr *mr)
{
	xa_store_irq(&mr->rxe->mr_xa, mr->index, mr, GFP_KERNEL);
	atomic_inc(&mr->rxe->num_objs);
}

struct ib_mr *rxe_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rxe_mr *mr = rxe_mr_new(to_rdev(pd->device), RXE_MR_DMA);

	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.pd = pd;
	mr->access = access;
	mr->valid = true;
	mr->ibmr.length = U64_MAX;
	rxe_mr_publish(mr);
	return &mr->ibmr;
}

struct ib_mr *rxe_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct rxe_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EINVAL);
	if (!max_num_sg || max_num_sg > RXE_MAX_FMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = rxe_mr_new(to_rdev(pd->device), RXE_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->pages = kcalloc(max_num_sg, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages) {
		xa_erase_irq(&mr->rxe->mr_xa, mr->index);
		kfree(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->ibmr.pd = pd;
	mr->max_pages = max_num_sg;
	rxe_mr_publish(mr);
	return &mr->ibmr;
}

static int rxe_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = addr;
	return 0;
}

int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rxe_set_page);
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	struct rxe_dev *rxe = mr->rxe;

	xa_erase_irq(&rxe->mr_xa, mr->index);
	rxe_mr_put(mr);
	wait_for_completion(&mr->done);
	kfree(mr->pages);
	atomic_dec(&rxe->num_objs);
	kfree_rcu(mr, rcu);
	return 0;
}

/**
 * rxe_mr_get() - find the MR of a key for the data path
 * @rxe: the device
 * @key: an lkey or rkey
 * @pd: the PD of the QP using it; the MR must belong to it
 * @access: IB_ACCESS_* rights the use needs (0: local read)
 * @remote: @key is an rkey from the wire
 *
 * Return: the MR with a reference (rxe_mr_put()), or NULL if the key is
 * unknown, stale, invalid, of another PD, or lacks @access.
 */
struct rxe_mr *rxe_mr_get(struct rxe_dev *rxe, u32 key, struct ib_pd *pd,
			  int access, bool remote)
{
	struct rxe_mr *mr;

	rcu_read_lock();
	mr = xa_load(&rxe->mr_xa, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return NULL;
	if ((remote ? mr->ibmr.rkey : mr->ibmr.lkey) != key ||
	    !READ_ONCE(mr->valid) || mr->ibmr.pd != pd ||
	    (mr->access & access) != access) {
		rxe_mr_put(mr);
		return NULL;
	}
	return mr;
}

/**
 * rxe_mr_put() - drop a reference from rxe_mr_get()
 * @mr: the MR
 */
void rxe_mr_put(struct rxe_mr *mr)
{
	if (refcount_dec_and_test(&mr->ref))
		complete(&mr->done);
}

/**
 * rxe_mr_check_range() - is [iova, iova + len) inside the MR?
 * @mr: the MR
 * @iova: start
 * @len: bytes
 *
 * Return: 0 or -EFAULT.
 */
int rxe_mr_check_range(struct rxe_mr *mr, u64 iova, u64 len)
{
	if (mr->kind == RXE_MR_DMA)
		return 0;
	if (iova < mr->ibmr.iova || len > mr->ibmr.length ||
	    iova - mr->ibmr.iova > mr->ibmr.length - len)
		return -EFAULT;
	return 0;
}

/* Kernel address of @iova in a fast-reg MR, and the bytes left in its page. */
static void *rxe_mr_addr(struct rxe_mr *mr, u64 iova, u32 *room)
{
	u32 psize = mr->ibmr.page_size;
	u64 off;

	if (mr->kind == RXE_MR_DMA) {
		*room = U32_MAX;
		return (void *)(uintptr_t)iova;
	}
	off = iova - mr->ibmr.iova + (mr->ibmr.iova & (psize - 1));
	*room = psize - (off & (psize - 1));
	return (void *)(uintptr_t)(mr->pages[off / psize] + (off & (psize - 1)));
}

/**
 * rxe_mr_copy() - copy between an MR and a buffer
 * @mr: the MR; the range was checked with rxe_mr_check_range()
 * @iova: where in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: direction
 */
void rxe_mr_copy(struct rxe_mr *mr, u64 iova, void *buf, u32 len, bool to_mr)
{
	u32 room, n;
	void *p;

	while (len) {
		p = rxe_mr_addr(mr, iova, &room);
		n = min(len, room);
		if (to_mr)
			memcpy(p, buf, n);
		else
			memcpy(buf, p, n);
		iova += n;
		buf += n;
		len -= n;
	}
}

/**
 * rxe_mr_atomic_ptr() - the 64-bit word an atomic operation targets
 * @mr: the MR; the range was checked
 * @iova: 8-byte aligned address
 *
 * Return: a kernel pointer to the word.
 */
u64 *rxe_mr_atomic_ptr(struct rxe_mr *mr, u64 iova)
{
	u32 room;

	return rxe_mr_addr(mr, iova, &room);
}

/**
 * rxe_sge_copy() - copy between a scatter/gather list and a buffer
 * @rxe: the device
 * @pd: the PD of the QP the list belongs to
 * @sge: the list (lkeys)
 * @num_sge: its entries
 * @offset: bytes of the list to skip first
 * @buf: kernel buffer
 * @len: bytes to copy
 * @to_sge: direction; writing needs IB_ACCESS_LOCAL_WRITE
 *
 * Return: 0, -EINVAL if the list is shorter than @offset + @len, -EACCES
 * for a bad lkey or an address outside its MR.
 */
int rxe_sge_copy(struct rxe_dev *rxe, struct ib_pd *pd,
		 const struct ib_sge *sge, u32 num_sge, u32 offset,
		 void *buf, u32 len, bool to_sge)
{
	struct rxe_mr *mr;
	u32 i, n;

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		mr = rxe_mr_get(rxe, sge[i].lkey, pd,
				to_sge ? IB_ACCESS_LOCAL_WRITE : 0, false);
		if (!mr)
			return -EACCES;
		if (rxe_mr_check_range(mr, sge[i].addr + offset, n)) {
			rxe_mr_put(mr);
			return -EACCES;
		}
		rxe_mr_copy(mr, sge[i].addr + offset, buf, n, to_sge);
		rxe_mr_put(mr);
		buf += n;
		len -= n;
		offset = 0;
	}
	return len ? -EINVAL : 0;
}

/**
 * rxe_mr_fast_reg() - execute an IB_WR_REG_MR work request
 * @rxe: the device
 * @pd: the QP's PD
 * @wr: the request
 *
 * Return: 0, or -EINVAL for an MR of another PD or kind, or a key whose
 * index is not the MR's.
 */
int rxe_mr_fast_reg(struct rxe_dev *rxe, struct ib_pd *pd,
		    const struct ib_reg_wr *wr)
{
	struct rxe_mr *mr = to_rmr(wr->mr);

	if (mr->kind != RXE_MR_FAST || mr->ibmr.pd != pd ||
	    (wr->key >> 8) != mr->index)
		return -EINVAL;
	WRITE_ONCE(mr->valid, false);
	mr->access = wr->access;
	mr->ibmr.lkey = wr->key;
	mr->ibmr.rkey = wr->key;
	WRITE_ONCE(mr->valid, true);
	return 0;
}

/**
 * rxe_mr_invalidate() - IB_WR_LOCAL_INV or a received SEND with invalidate
 * @rxe: the device
 * @pd: the QP's PD
 * @key: the key to invalidate
 *
 * Return: 0, or -EINVAL for an unknown key, another PD or a DMA MR.
 */
int rxe_mr_invalidate(struct rxe_dev *rxe, struct ib_pd *pd, u32 key)
{
	struct rxe_mr *mr;

	rcu_read_lock();
	mr = xa_load(&rxe->mr_xa, key >> 8);
	if (mr && !refcount_inc_not_zero(&mr->ref))
		mr = NULL;
	rcu_read_unlock();
	if (!mr)
		return -EINVAL;
	if (mr->kind != RXE_MR_FAST || mr->ibmr.pd != pd ||
	    mr->ibmr.rkey != key) {
		rxe_mr_put(mr);
		return -EINVAL;
	}
	WRITE_ONCE(mr->valid, false);
	rxe_mr_put(mr);
	return 0;
}
