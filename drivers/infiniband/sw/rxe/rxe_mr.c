// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions.  A soft device reaches memory through kernel virtual
 * addresses: the "DMA addresses" the ib_dma_*() helpers give a device
 * without a DMA device are those (ib_uses_virt_dma()).  Three kinds exist:
 *
 *   DMA MR      get_dma_mr(): any kernel address, the PD's local_dma_lkey
 *   fast-reg    alloc_mr(IB_MR_TYPE_MEM_REG) + ib_map_mr_sg() + an
 *               IB_WR_REG_MR work request; IB_WR_LOCAL_INV or a SEND with
 *               invalidate makes it FREE again
 *   user MR     reg_user_mr(): a process's pages, pinned by ib_umem_get()
 *               for as long as the MR lives; reached through the kernel
 *               addresses of the pages (no highmem with virtual DMA)
 *
 * Keys: lkey == rkey == index << 8 | key byte, the index naming the slot
 * in rxe_dev.mr_xa.
 *
 * Nothing holds an MR between two packets.  Every access, local (a
 * gather or scatter list) or remote (a WRITE, READ or ATOMIC off the
 * wire), looks the key up again and checks state, key, PD, rights and
 * range under the MR's lock, and copies while it holds it.  So a
 * registration that is invalidated, replaced or deregistered in the
 * middle of a message is never written or read after the call that
 * changed it returned, and dereg_mr() never waits on the network.
 *
 * ib_map_mr_sg() fills a staging list (map_pages); IB_WR_REG_MR copies it
 * into the registration.  A ULP may map an MR for its next registration
 * while the current one is still in use, as the verbs allow.
 *
 * An rkey may also name a memory window (rxe_mw.c): its key indices
 * follow the MRs', and a remote access under such a key goes through
 * rxe_mw_do(), which checks the window and then runs the operation on
 * the window's MR here (rxe_mr_apply_bound()).  An MR with windows bound
 * to it cannot be deregistered.
 */
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "rxe.h"

static struct rxe_mr *rxe_mr_new(struct rxe_dev *rxe, enum rxe_mr_kind kind)
{
	struct xa_limit lim = XA_LIMIT(1, RXE_MAX_MR);
	struct rxe_mr *mr;
	u32 index;
	int ret;

	ret = rxe_obj_add(rxe, RXE_OBJ_MR);
	if (ret)
		return ERR_PTR(ret);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr) {
		rxe_obj_del(rxe, RXE_OBJ_MR);
		return ERR_PTR(-ENOMEM);
	}
	mr->rxe = rxe;
	mr->kind = kind;
	rwlock_init(&mr->lock);
	/* Never full: each index in use belongs to a counted MR. */
	ret = xa_alloc_cyclic_irq(&rxe->mr_xa, &index, NULL, lim,
				  &rxe->next_mr, GFP_KERNEL);
	if (ret < 0) {
		kfree(mr);
		rxe_obj_del(rxe, RXE_OBJ_MR);
		return ERR_PTR(ret);
	}
	mr->index = index;
	mr->key = index << 8 | (get_random_u32() & 0xff);
	mr->ibmr.lkey = mr->key;
	mr->ibmr.rkey = mr->key;
	return mr;
}

/* Undoes rxe_mr_new() for an MR that was never published. */
static void rxe_mr_unnew(struct rxe_mr *mr)
{
	struct rxe_dev *rxe = mr->rxe;

	xa_erase_irq(&rxe->mr_xa, mr->index);
	kfree(mr);
	rxe_obj_del(rxe, RXE_OBJ_MR);
}

static void rxe_mr_publish(struct rxe_mr *mr)
{
	xa_store_irq(&mr->rxe->mr_xa, mr->index, mr, GFP_KERNEL);
}

/* The rights an MR may be given: remote write and atomic need local write. */
static bool rxe_mr_access_ok(int access)
{
	return !(access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC)) ||
	       (access & IB_ACCESS_LOCAL_WRITE);
}

struct ib_mr *rxe_get_dma_mr(struct ib_pd *pd, int access)
{
	struct rxe_mr *mr;

	if (!rxe_mr_access_ok(access)) {
		ibdev_dbg(pd->device, "DMA MR: access %#x refused\n", access);
		return ERR_PTR(-EINVAL);
	}
	mr = rxe_mr_new(to_rdev(pd->device), RXE_MR_DMA);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->ibmr.pd = pd;
	mr->ibmr.length = U64_MAX;
	mr->access = access;
	mr->length = U64_MAX;
	mr->state = RXE_MR_VALID;
	rxe_mr_publish(mr);
	return &mr->ibmr;
}

struct ib_mr *rxe_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_num_sg)
{
	struct rxe_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG) {
		ibdev_dbg(pd->device, "MR type %d not supported\n", type);
		return ERR_PTR(-EINVAL);
	}
	if (!max_num_sg || max_num_sg > RXE_MAX_FMR_PAGES)
		return ERR_PTR(-EINVAL);
	mr = rxe_mr_new(to_rdev(pd->device), RXE_MR_FAST);
	if (IS_ERR(mr))
		return ERR_CAST(mr);
	mr->map_pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	mr->pages = kcalloc(max_num_sg, sizeof(u64), GFP_KERNEL);
	if (!mr->map_pages || !mr->pages) {
		kfree(mr->map_pages);
		kfree(mr->pages);
		rxe_mr_unnew(mr);
		return ERR_PTR(-ENOMEM);
	}
	mr->ibmr.pd = pd;
	mr->max_pages = max_num_sg;
	mr->state = RXE_MR_FREE;
	rxe_mr_publish(mr);
	return &mr->ibmr;
}

static int rxe_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct rxe_mr *mr = to_rmr(ibmr);

	if (mr->map_npages >= mr->max_pages)
		return -ENOMEM;
	mr->map_pages[mr->map_npages++] = addr;
	return 0;
}

int rxe_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		  unsigned int *sg_offset)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	int n;

	mr->map_npages = 0;
	n = ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, rxe_set_page);
	/* Before a ULP can make the iova zero-based: the first page's offset. */
	mr->map_offset = ibmr->iova & (ibmr->page_size - 1);
	return n;
}

/**
 * rxe_reg_user_mr() - register memory of the calling process
 * @pd: the MR's PD
 * @start: user address of the first byte
 * @length: bytes
 * @iova: the address the MR answers to; same page offset as @start
 * @access: IB_ACCESS_* rights
 * @udata: the user's driver data (rxe defines none), or NULL for a
 *	kernel caller of ib_reg_user_mr()
 *
 * The pages stay pinned until rxe_dereg_mr().  The registration never
 * changes, so accesses check it without a lock, as for a DMA MR.
 *
 * Context: process context, in the process owning the memory; sleeps.
 * Return: the MR; ERR_PTR(-EINVAL) for invalid rights or driver data,
 * ib_umem_get()'s errors, -ENOSPC when the device's MR keys are used up,
 * -ENOMEM.
 */
struct ib_mr *rxe_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
			      u64 iova, int access, struct ib_udata *udata)
{
	struct rxe_dev *rxe = to_rdev(pd->device);
	struct sg_dma_page_iter iter;
	struct ib_umem *umem;
	struct rxe_mr *mr;
	u32 n = 0;

	if (!rxe_mr_access_ok(access) ||
	    (udata && !ib_is_udata_cleared(udata, 0, udata->inlen))) {
		ibdev_dbg(&rxe->ib_dev,
			  "user MR: access %#x or driver data refused\n",
			  access);
		return ERR_PTR(-EINVAL);
	}
	umem = ib_umem_get(pd->device, start, length, access);
	if (IS_ERR(umem))
		return ERR_CAST(umem);
	mr = rxe_mr_new(rxe, RXE_MR_USER);
	if (IS_ERR(mr)) {
		ib_umem_release(umem);
		return ERR_CAST(mr);
	}
	mr->pages = kvcalloc(ib_umem_num_pages(umem), sizeof(u64),
			     RXE_GFP_SIZED);
	if (!mr->pages) {
		rxe_mr_unnew(mr);
		ib_umem_release(umem);
		return ERR_PTR(-ENOMEM);
	}
	/* Virtual DMA: each page's DMA address is its kernel address. */
	for_each_sgtable_dma_page(&umem->sgt_append.sgt, &iter, 0)
		mr->pages[n++] = sg_page_iter_dma_address(&iter);
	mr->umem = umem;
	mr->max_pages = n;
	mr->ibmr.pd = pd;
	mr->ibmr.page_size = PAGE_SIZE;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->page_shift = PAGE_SHIFT;
	mr->offset = ib_umem_offset(umem);
	mr->state = RXE_MR_VALID;
	rxe_mr_publish(mr);
	return &mr->ibmr;
}

int rxe_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct rxe_mr *mr = to_rmr(ibmr);
	struct rxe_dev *rxe = mr->rxe;

	/*
	 * A fast-reg MR's accesses finish before this; later ones, and
	 * binds, see INVALID.  A bind in progress holds the read side.
	 */
	write_lock_bh(&mr->lock);
	if (atomic_read(&mr->num_mw)) {
		write_unlock_bh(&mr->lock);
		ibdev_dbg(&rxe->ib_dev,
			  "dereg_mr of key %#x refused: %d memory windows bound\n",
			  mr->key, atomic_read(&mr->num_mw));
		return -EBUSY;
	}
	WRITE_ONCE(mr->state, RXE_MR_INVALID);
	write_unlock_bh(&mr->lock);
	xa_erase_irq(&rxe->mr_xa, mr->index);
	/* the accesses of the other kinds run inside RCU read sections */
	if (mr->kind != RXE_MR_FAST)
		synchronize_rcu();
	ib_umem_release(mr->umem);
	kfree(mr->map_pages);
	kvfree(mr->pages);
	rxe_obj_del(rxe, RXE_OBJ_MR);
	/* a lookup may still be reading the state */
	kfree_rcu(mr, rcu);
	return 0;
}

/*
 * Is the registration of @mr good for @len bytes at @iova, under @key,
 * for a QP of @pd wanting @access?  Called with the registration stable
 * (read lock, or a DMA MR inside an RCU read section).
 */
static bool rxe_mr_allows(struct rxe_mr *mr, u32 key, struct ib_pd *pd,
			  int access, u64 iova, u64 len)
{
	if (READ_ONCE(mr->state) != RXE_MR_VALID || mr->key != key ||
	    mr->ibmr.pd != pd || (mr->access & access) != access)
		return false;
	if (mr->kind == RXE_MR_DMA)
		return true;
	return iova >= mr->iova && len <= mr->length &&
	       iova - mr->iova <= mr->length - len;
}

/* Kernel address of @iova in a fast-reg MR, and the bytes left in its page. */
static u8 *rxe_mr_addr(struct rxe_mr *mr, u64 iova, u32 *room)
{
	u64 off = iova - mr->iova + mr->offset;
	u64 in_page = off & ((1ULL << mr->page_shift) - 1);

	*room = (1U << mr->page_shift) - in_page;
	return (u8 *)(uintptr_t)(mr->pages[off >> mr->page_shift] + in_page);
}

static void rxe_mr_move(struct rxe_mr *mr, u64 iova, u8 *buf, u32 len,
			bool to_mr)
{
	u32 room, n;
	u8 *p;

	if (mr->kind == RXE_MR_DMA) {
		p = (u8 *)(uintptr_t)iova;
		if (to_mr)
			memcpy(p, buf, len);
		else
			memcpy(buf, p, len);
		return;
	}
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

/* Serialises ATOMIC operations of all QPs against each other. */
static DEFINE_SPINLOCK(rxe_atomic_lock);

static int rxe_mr_atomic_op(struct rxe_mr *mr, u64 iova,
			    struct rxe_mr_atomic_args *a)
{
	u64 *word;
	u32 room;

	if (mr->kind == RXE_MR_DMA)
		word = (u64 *)(uintptr_t)iova;
	else
		word = (u64 *)rxe_mr_addr(mr, iova, &room);
	if (!IS_ALIGNED((uintptr_t)word, sizeof(u64)))
		return -EINVAL;
	spin_lock_bh(&rxe_atomic_lock);
	a->orig = *word;
	if (a->store)
		WRITE_ONCE(*word, a->swap_add);
	else if (!a->cmp_swap)
		*word = a->orig + a->swap_add;
	else if (a->orig == a->compare)
		*word = a->swap_add;
	spin_unlock_bh(&rxe_atomic_lock);
	return 0;
}

/* Run @op on @mr if it allows it; the registration is held stable. */
static int rxe_mr_apply(struct rxe_mr *mr, u32 key, struct ib_pd *pd,
			int access, u64 iova, u64 len, enum rxe_mr_op op,
			void *buf, struct rxe_mr_atomic_args *atomic)
{
	if (!rxe_mr_allows(mr, key, pd, access, iova, len))
		return -EACCES;
	if (op == RXE_MR_OP_ATOMIC)
		return rxe_mr_atomic_op(mr, iova, atomic);
	if (op != RXE_MR_OP_CHECK)
		rxe_mr_move(mr, iova, buf, (u32)len, op == RXE_MR_OP_TO_MR);
	return 0;
}

/*
 * Find the MR of @key and, if it allows the access, run @op on it.  Only
 * a remote access (@qp given) may name a memory window.
 * Return: 0, -EACCES when the key, state, PD, rights or range refuse it,
 * -EINVAL for a misaligned atomic.
 */
static int rxe_mr_do(struct rxe_dev *rxe, struct rxe_qp *qp, u32 key,
		     struct ib_pd *pd, int access, u64 iova, u64 len,
		     enum rxe_mr_op op, void *buf,
		     struct rxe_mr_atomic_args *atomic)
{
	struct rxe_mr *mr;
	int ret = -EACCES;

	if (rxe_key_is_mw(key)) {
		if (qp)
			return rxe_mw_do(qp, key, access, iova, len, op, buf,
					 atomic);
		ibdev_dbg(&rxe->ib_dev, "key %#x: a window's key used locally\n",
			  key);
		return -EACCES;
	}
	rcu_read_lock();
	mr = xa_load(&rxe->mr_xa, key >> 8);
	if (mr && mr->kind == RXE_MR_FAST) {
		read_lock_bh(&mr->lock);
		ret = rxe_mr_apply(mr, key, pd, access, iova, len, op, buf,
				   atomic);
		read_unlock_bh(&mr->lock);
	} else if (mr) {
		ret = rxe_mr_apply(mr, key, pd, access, iova, len, op, buf,
				   atomic);
	}
	rcu_read_unlock();
	if (ret)
		ibdev_dbg(&rxe->ib_dev,
			  "MR key %#x: access %#x to %llu bytes at %#llx refused (%d)\n",
			  key, access, len, iova, ret);
	return ret;
}

/**
 * rxe_mr_apply_bound() - run an operation on the MR a window is bound to
 * @mr: the MR, which the window's binding holds (num_mw)
 * @iova: first address, inside the window's range
 * @len: bytes
 * @op: what to do
 * @buf: the buffer of a copy
 * @atomic: the operands of RXE_MR_OP_ATOMIC
 *
 * The window's rights stand for the MR's: only its state and range are
 * checked, under its lock as for any access.
 *
 * Context: the window's lock held for reading, inside an RCU read section.
 * Return: 0, -EACCES (the MR is no longer VALID or no longer covers the
 * range), -EINVAL for a misaligned atomic.
 */
int rxe_mr_apply_bound(struct rxe_mr *mr, u64 iova, u64 len,
		       enum rxe_mr_op op, void *buf,
		       struct rxe_mr_atomic_args *atomic)
{
	int ret;

	if (mr->kind != RXE_MR_FAST)
		return rxe_mr_apply(mr, mr->key, mr->ibmr.pd, 0, iova, len, op,
				    buf, atomic);
	read_lock_bh(&mr->lock);
	ret = rxe_mr_apply(mr, mr->key, mr->ibmr.pd, 0, iova, len, op, buf,
			   atomic);
	read_unlock_bh(&mr->lock);
	return ret;
}

/**
 * rxe_mr_mw_hold() - the MR a window is being bound to, counted
 * @rxe: the device
 * @lkey: the MR's lkey as the bind names it
 * @pd: the binding QP's PD; the MR must belong to it
 * @need: rights the MR must have (IB_ACCESS_MW_BIND, and LOCAL_WRITE for
 *	a window with remote write or atomic rights)
 * @iova: first address of the window
 * @len: bytes of the window, not zero
 *
 * The MR's num_mw is raised while the MR is seen VALID under its lock, so
 * dereg_mr() cannot pass it by; rxe_mr_mw_release() undoes it.
 *
 * Context: the binding QP's engine.
 * Return: the MR, or NULL when no MR of @pd answers to @lkey with these
 * rights over the range.
 */
struct rxe_mr *rxe_mr_mw_hold(struct rxe_dev *rxe, u32 lkey, struct ib_pd *pd,
			      int need, u64 iova, u64 len)
{
	struct rxe_mr *mr = NULL, *found;

	if (rxe_key_is_mw(lkey))
		goto out;
	rcu_read_lock();
	found = xa_load(&rxe->mr_xa, lkey >> 8);
	if (found) {
		read_lock_bh(&found->lock);
		if (rxe_mr_allows(found, lkey, pd, need, iova, len)) {
			atomic_inc(&found->num_mw);
			mr = found;
		}
		read_unlock_bh(&found->lock);
	}
	rcu_read_unlock();
out:
	if (!mr)
		ibdev_dbg(&rxe->ib_dev,
			  "bind to MR key %#x refused: %llu bytes at %#llx, rights %#x\n",
			  lkey, len, iova, need);
	return mr;
}

/**
 * rxe_mr_mw_release() - a window bound to @mr is unbound
 * @mr: the MR of rxe_mr_mw_hold()
 */
void rxe_mr_mw_release(struct rxe_mr *mr)
{
	atomic_dec(&mr->num_mw);
}

/**
 * rxe_mr_check() - may a QP use @len bytes at @iova under @key?
 * @qp: the QP the request arrived at; the MR must belong to its PD, a
 *	window must allow it
 * @key: an rkey of an MR or a memory window
 * @access: IB_ACCESS_REMOTE_* rights the use needs
 * @iova: first address
 * @len: bytes
 *
 * Checks what rxe_mr_copy() checks without touching the memory: a
 * request is refused as a whole before any of it is executed.  The answer
 * holds only until the next invalidation; each later copy checks again.
 *
 * Context: bottom halves off, or process context.
 * Return: 0 or -EACCES.
 */
int rxe_mr_check(struct rxe_qp *qp, u32 key, int access, u64 iova, u64 len)
{
	return rxe_mr_do(qp->rxe, qp, key, qp->ibqp.pd, access, iova, len,
			 RXE_MR_OP_CHECK, NULL, NULL);
}

/**
 * rxe_mr_copy() - copy between remotely accessed memory and a buffer
 * @qp: the QP the request arrived at; the MR must belong to its PD, a
 *	window must allow it
 * @key: an rkey of an MR or a memory window
 * @access: IB_ACCESS_REMOTE_* rights the copy needs
 * @iova: where in the MR
 * @buf: kernel buffer
 * @len: bytes
 * @to_mr: direction
 *
 * The MR must be VALID under @key, of @pd, grant @access and cover the
 * range; the copy runs with the registration held, so an invalidation or
 * dereg_mr() waits for it and none starts after them.
 *
 * Context: bottom halves off, or process context.
 * Return: 0, or -EACCES with nothing copied.
 */
int rxe_mr_copy(struct rxe_qp *qp, u32 key, int access, u64 iova, void *buf,
		u32 len, bool to_mr)
{
	return rxe_mr_do(qp->rxe, qp, key, qp->ibqp.pd, access, iova, len,
			 to_mr ? RXE_MR_OP_TO_MR : RXE_MR_OP_FROM_MR, buf,
			 NULL);
}

/**
 * rxe_mr_atomic() - execute an ATOMIC operation on a word of an MR
 * @qp: the QP the request arrived at
 * @key: the rkey (of an MR or a memory window)
 * @iova: address of the 64-bit word
 * @cmp_swap: CMP_SWAP (else FETCH_ADD)
 * @compare: CMP_SWAP's compare operand
 * @swap_add: the swap value or the addend
 * @orig: the word's value before the operation
 *
 * Needs IB_ACCESS_REMOTE_ATOMIC over the 8 bytes.  Atomic against every
 * other ATOMIC of this module.
 *
 * Context: bottom halves off, or process context.
 * Return: 0, -EACCES (refused) or -EINVAL (the word is not aligned in
 * memory).
 */
int rxe_mr_atomic(struct rxe_qp *qp, u32 key, u64 iova, bool cmp_swap,
		  u64 compare, u64 swap_add, u64 *orig)
{
	struct rxe_mr_atomic_args a = {
		.cmp_swap = cmp_swap,
		.compare = compare,
		.swap_add = swap_add,
	};
	int ret;

	ret = rxe_mr_do(qp->rxe, qp, key, qp->ibqp.pd, IB_ACCESS_REMOTE_ATOMIC,
			iova, sizeof(u64), RXE_MR_OP_ATOMIC, NULL, &a);
	*orig = a.orig;
	return ret;
}

/**
 * rxe_mr_atomic_write() - store a 64-bit word of an MR in one go
 * @qp: the QP the request arrived at
 * @key: the rkey (of an MR or a memory window)
 * @iova: address of the word
 * @val: the 8 bytes to store, in memory order
 *
 * An ATOMIC_WRITE: needs IB_ACCESS_REMOTE_WRITE over the 8 bytes; a reader
 * sees the old word or the new one, and ATOMICs of this module see it
 * between theirs.
 *
 * Context: bottom halves off, or process context.
 * Return: 0, -EACCES (refused) or -EINVAL (the word is not aligned in
 * memory).
 */
int rxe_mr_atomic_write(struct rxe_qp *qp, u32 key, u64 iova, u64 val)
{
	struct rxe_mr_atomic_args a = {
		.store = true,
		.swap_add = val,
	};

	return rxe_mr_do(qp->rxe, qp, key, qp->ibqp.pd, IB_ACCESS_REMOTE_WRITE,
			 iova, sizeof(u64), RXE_MR_OP_ATOMIC, NULL, &a);
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
	u32 i, n;
	int ret;

	for (i = 0; i < num_sge && len; i++) {
		if (offset >= sge[i].length) {
			offset -= sge[i].length;
			continue;
		}
		n = min(len, sge[i].length - offset);
		ret = rxe_mr_do(rxe, NULL, sge[i].lkey, pd,
				to_sge ? IB_ACCESS_LOCAL_WRITE : 0,
				sge[i].addr + offset, n,
				to_sge ? RXE_MR_OP_TO_MR : RXE_MR_OP_FROM_MR,
				buf, NULL);
		if (ret)
			return ret;
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
 * Makes the mapping of the last ib_map_mr_sg() the MR's registration,
 * under @wr's key and rights.  The MR must be FREE: a VALID one has to be
 * invalidated first.
 *
 * Context: the QP's engine.
 * Return: 0, or -EINVAL for an MR of another PD or kind, a key whose
 * index is not the MR's, rights that are not a valid combination, an
 * empty mapping or an MR that is not FREE.
 */
int rxe_mr_fast_reg(struct rxe_dev *rxe, struct ib_pd *pd,
		    const struct ib_reg_wr *wr)
{
	struct rxe_mr *mr = to_rmr(wr->mr);
	u32 shift = ilog2(mr->ibmr.page_size | 1);
	u32 n = READ_ONCE(mr->map_npages);
	const char *why = NULL;

	if (mr->kind != RXE_MR_FAST || mr->ibmr.pd != pd ||
	    (wr->key >> 8) != mr->index)
		why = "not a fast-reg MR of this PD and key";
	else if (!rxe_mr_access_ok(wr->access))
		why = "remote write or atomic without local write";
	else if (!n || n > mr->max_pages || shift < 12 ||
		 mr->map_offset + mr->ibmr.length > ((u64)n << shift))
		why = "no mapping";
	if (why) {
		ibdev_dbg(&rxe->ib_dev, "REG_MR of key %#x refused: %s\n",
			  wr->key, why);
		return -EINVAL;
	}

	write_lock_bh(&mr->lock);
	if (mr->state != RXE_MR_FREE) {
		write_unlock_bh(&mr->lock);
		ibdev_dbg(&rxe->ib_dev, "REG_MR of key %#x refused: MR %s\n",
			  wr->key, mr->state == RXE_MR_VALID ? "valid" : "gone");
		return -EINVAL;
	}
	memcpy(mr->pages, mr->map_pages, n * sizeof(u64));
	mr->iova = mr->ibmr.iova;
	mr->length = mr->ibmr.length;
	mr->page_shift = shift;
	mr->offset = mr->map_offset;
	mr->access = wr->access;
	mr->key = wr->key;
	mr->ibmr.lkey = wr->key;
	mr->ibmr.rkey = wr->key;
	mr->state = RXE_MR_VALID;
	write_unlock_bh(&mr->lock);
	return 0;
}

/**
 * rxe_mr_invalidate() - IB_WR_LOCAL_INV or a received SEND with invalidate
 * @rxe: the device
 * @pd: the QP's PD
 * @key: the key to invalidate
 *
 * A VALID registration becomes FREE; an access to it in progress finishes
 * first, and none starts afterwards.  Invalidating a FREE MR under its
 * current key changes nothing.
 *
 * Context: the QP's engine.
 * Return: 0, or -EINVAL for an unknown or stale key, another PD or a DMA
 * MR.
 */
int rxe_mr_invalidate(struct rxe_dev *rxe, struct ib_pd *pd, u32 key)
{
	struct rxe_mr *mr;
	int ret = -EINVAL;

	rcu_read_lock();
	mr = xa_load(&rxe->mr_xa, key >> 8);
	if (mr && mr->kind == RXE_MR_FAST && mr->ibmr.pd == pd) {
		write_lock_bh(&mr->lock);
		if (mr->key == key && mr->state != RXE_MR_INVALID) {
			mr->state = RXE_MR_FREE;
			ret = 0;
		}
		write_unlock_bh(&mr->lock);
	}
	rcu_read_unlock();
	if (ret)
		ibdev_dbg(&rxe->ib_dev, "invalidation of key %#x refused\n",
			  key);
	return ret;
}
