// SPDX-License-Identifier: GPL-2.0-only
/*
 * MR pools: lists of memory regions allocated up front on a QP's PD, so
 * that the I/O path takes and returns one under a spinlock instead of
 * allocating.  Every pool of a QP is guarded by qp->mr_lock, and
 * qp->mrs_used counts the MRs taken and not yet returned (a QP must not
 * be destroyed while any is out).
 */
#include <linux/export.h>
#include <rdma/mr_pool.h>

/*
 * The first MR of @list, taken off it; @lend counts it as lent out.
 * NULL when the pool is empty.
 */
static struct ib_mr *mr_pool_pop(struct ib_qp *qp, struct list_head *list,
				 bool lend)
{
	struct ib_mr *mr = NULL;
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	if (!list_empty(list)) {
		mr = list_first_entry(list, struct ib_mr, qp_entry);
		list_del(&mr->qp_entry);
		qp->mrs_used += lend;
	}
	spin_unlock_irqrestore(&qp->mr_lock, flags);
	return mr;
}

/*
 * @mr to the back of @list, so that the MRs of a pool take turns;
 * @returned: it was lent out.
 */
static void mr_pool_push(struct ib_qp *qp, struct list_head *list,
			 struct ib_mr *mr, bool returned)
{
	unsigned long flags;

	spin_lock_irqsave(&qp->mr_lock, flags);
	list_add_tail(&mr->qp_entry, list);
	qp->mrs_used -= returned;
	spin_unlock_irqrestore(&qp->mr_lock, flags);
}

/**
 * ib_mr_pool_get() - take an MR from a pool
 * @qp: the QP the pool belongs to
 * @list: the pool
 *
 * Context: any; takes qp->mr_lock.
 * Return: an MR, or NULL when the pool is empty.
 */
struct ib_mr *ib_mr_pool_get(struct ib_qp *qp, struct list_head *list)
{
	return mr_pool_pop(qp, list, true);
}
EXPORT_SYMBOL(ib_mr_pool_get);

/**
 * ib_mr_pool_put() - give an MR back to its pool
 * @qp: the QP the pool belongs to
 * @list: the pool @mr came from
 * @mr: the MR
 *
 * Context: any; takes qp->mr_lock.
 */
void ib_mr_pool_put(struct ib_qp *qp, struct list_head *list, struct ib_mr *mr)
{
	mr_pool_push(qp, list, mr, true);
}
EXPORT_SYMBOL(ib_mr_pool_put);

/**
 * ib_mr_pool_init() - fill a pool with new MRs
 * @qp: the QP; the MRs are allocated on its PD
 * @list: the pool, an initialised list head
 * @nr: how many MRs
 * @type: their type (IB_MR_TYPE_MEM_REG, or IB_MR_TYPE_INTEGRITY with
 *	@max_num_meta_sg)
 * @max_num_sg: data pages each must map
 * @max_num_meta_sg: metadata pages of an integrity MR
 *
 * On failure the MRs already made are released again.
 *
 * Context: process context; sleeps.
 * Return: 0 or the allocation's error (-EOPNOTSUPP where the device has no
 * such MRs, -ENOMEM, -EINVAL).
 */
int ib_mr_pool_init(struct ib_qp *qp, struct list_head *list, int nr,
		    enum ib_mr_type type, u32 max_num_sg, u32 max_num_meta_sg)
{
	struct ib_mr *mr;
	int i;

	for (i = 0; i < nr; i++) {
		mr = type == IB_MR_TYPE_INTEGRITY ?
		     ib_alloc_mr_integrity(qp->pd, max_num_sg,
					   max_num_meta_sg) :
		     ib_alloc_mr(qp->pd, type, max_num_sg);
		if (IS_ERR(mr)) {
			dev_dbg(&qp->device->dev,
				"MR pool of QP %u: MR %d of %d failed: %ld\n",
				qp->qp_num, i, nr, PTR_ERR(mr));
			ib_mr_pool_destroy(qp, list);
			return PTR_ERR(mr);
		}
		mr_pool_push(qp, list, mr, false);
	}
	return 0;
}
EXPORT_SYMBOL(ib_mr_pool_init);

/**
 * ib_mr_pool_destroy() - release every MR of a pool
 * @qp: the QP
 * @list: the pool; MRs taken and not returned are not in it (and stay
 *	counted in qp->mrs_used)
 *
 * Context: process context; sleeps.
 */
void ib_mr_pool_destroy(struct ib_qp *qp, struct list_head *list)
{
	struct ib_mr *mr;

	while ((mr = mr_pool_pop(qp, list, false)))
		ib_dereg_mr(mr);
}
EXPORT_SYMBOL(ib_mr_pool_destroy);
