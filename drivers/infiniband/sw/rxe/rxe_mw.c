// SPDX-License-Identifier: GPL-2.0
/*
 * Memory windows: an rkey for a range of an MR, with rights of its own,
 * that its owner binds, moves and revokes without registering memory.
 *
 *   type 1   bound by the bind verb, which librxe turns into a BIND_MW
 *            work request of its own; may be bound again at any time (the
 *            new binding replaces the old one), and a bind of length 0
 *            unbinds it.  Any QP of the window's PD reaches it.  It cannot
 *            be invalidated by LOCAL_INV or SEND_WITH_INV.
 *   type 2B  bound by a BIND_MW work request the consumer posts, only
 *            while unbound (FREE), and associated with the QP it was bound
 *            through: remote accesses and remote invalidations must arrive
 *            at that QP.  LOCAL_INV on a QP of its PD, or a SEND with
 *            invalidate arriving at its QP, makes it FREE again.
 *
 * Both kinds are executed by the requester of the binding QP, in send
 * queue order, when it reaches the work request (rxe_mw_bind()); a refused
 * bind completes with IB_WC_MW_BIND_ERR and puts the QP in the error
 * state.  Every bind takes a new rkey: the key index stays the window's,
 * the low byte is the one the consumer chose (librxe picks the next one
 * for type 1).
 *
 * The window must be of the QP's PD, the MR must be of the same PD, grant
 * IB_ACCESS_MW_BIND and cover the range, and grant local write when the
 * window is to grant remote write or atomics.  Zero-based windows are not
 * offered.
 *
 * A remote access under a window's rkey (rxe_mw_do()) checks the window
 * (VALID, the key, the PD, for type 2 the QP, its rights and range) and
 * then runs on its MR, which needs no remote rights of its own, under the
 * window's lock: an invalidation, a rebind or dealloc_mw() waits for the
 * accesses in progress, and none of the old binding runs after it.
 */
#include <linux/random.h>

#include "rxe.h"

/*
 * Rights a bind may give a window.  Local write is the MR's business; it
 * is tolerated in the request (pyverbs sets it) and not kept.
 */
#define RXE_MW_RIGHTS	(IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_WRITE | \
			 IB_ACCESS_REMOTE_ATOMIC)

/**
 * rxe_alloc_mw() - make a memory window (ib_device_ops.alloc_mw)
 * @ibmw: the core's MW, with its device, PD and type set
 * @udata: the user's driver data; librxe sends none
 *
 * The window starts FREE, under a key of its own index and a random key
 * byte.
 *
 * Context: process context.
 * Return: 0; -EINVAL for driver data or a type other than 1 or 2, or
 * when the device holds max_mw windows; -ENOMEM.
 */
int rxe_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct xa_limit lim = XA_LIMIT(RXE_MW_INDEX_MIN, RXE_MW_INDEX_MAX);
	struct rxe_dev *rxe = to_rdev(ibmw->device);
	struct rxe_mw *mw = to_rmw(ibmw);
	u32 index;
	int ret;

	if ((udata && !ib_is_udata_cleared(udata, 0, udata->inlen)) ||
	    (ibmw->type != IB_MW_TYPE_1 && ibmw->type != IB_MW_TYPE_2)) {
		ibdev_dbg(&rxe->ib_dev,
			  "alloc_mw of type %d or with driver data refused\n",
			  ibmw->type);
		return -EINVAL;
	}
	ret = rxe_obj_add(rxe, RXE_OBJ_MW);
	if (ret)
		return ret;
	mw->rxe = rxe;
	rwlock_init(&mw->lock);
	mw->state = RXE_MW_FREE;
	/* Never full: each index in use belongs to a counted window. */
	ret = xa_alloc_cyclic_irq(&rxe->mw_xa, &index, NULL, lim, &rxe->next_mw,
				  GFP_KERNEL);
	if (ret < 0) {
		ibdev_dbg(&rxe->ib_dev, "alloc_mw: no key index: %d\n", ret);
		rxe_obj_del(rxe, RXE_OBJ_MW);
		return ret;
	}
	mw->index = index;
	mw->key = index << 8 | (get_random_u32() & 0xff);
	ibmw->rkey = mw->key;
	/* set up before the binding QPs and the responder can find it */
	xa_store_irq(&rxe->mw_xa, index, mw, GFP_KERNEL);
	return 0;
}

/* Drop the binding of @mw, with its lock held for writing. */
static void rxe_mw_unbind(struct rxe_mw *mw)
{
	if (mw->mr)
		rxe_mr_mw_release(mw->mr);
	mw->mr = NULL;
	mw->iova = 0;
	mw->length = 0;
	mw->access = 0;
	mw->qpn = 0;
	mw->state = RXE_MW_FREE;
}

/**
 * rxe_dealloc_mw() - destroy a memory window (ib_device_ops.dealloc_mw)
 * @ibmw: the window, bound or not
 *
 * A bound window is unbound first.  Returns only when no lookup of the
 * window can still be running, so that the core may free it.
 *
 * Context: process context; sleeps.
 * Return: 0.
 */
int rxe_dealloc_mw(struct ib_mw *ibmw)
{
	struct rxe_mw *mw = to_rmw(ibmw);
	struct rxe_dev *rxe = mw->rxe;

	xa_erase_irq(&rxe->mw_xa, mw->index);
	/* waits for the accesses in progress; later ones see INVALID */
	write_lock_bh(&mw->lock);
	rxe_mw_unbind(mw);
	mw->state = RXE_MW_INVALID;
	write_unlock_bh(&mw->lock);
	/* lookups in mw_xa run inside RCU read sections */
	synchronize_rcu();
	rxe_obj_del(rxe, RXE_OBJ_MW);
	return 0;
}

/* Why a bind of @mw, under its write lock, is refused; NULL if it is not. */
static const char *rxe_mw_bind_refusal(struct rxe_qp *qp, struct rxe_mw *mw,
				       u32 new_rkey, u64 addr, u64 length,
				       int access)
{
	if (mw->state == RXE_MW_INVALID)
		return "window deallocated";
	if (mw->ibmw.pd != qp->ibqp.pd)
		return "window of another PD";
	if ((new_rkey >> 8) != mw->index)
		return "new rkey of another index";
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->state != RXE_MW_FREE)
		return "type 2 window already bound";
	if (access & IB_ZERO_BASED)
		return "zero-based windows not offered";
	if (access & ~(RXE_MW_RIGHTS | IB_ACCESS_LOCAL_WRITE))
		return "unknown rights";
	if (length && addr + length < addr)
		return "range wraps";
	return NULL;
}

/**
 * rxe_mw_bind() - execute a BIND_MW work request
 * @qp: the QP whose requester reached the request
 * @mw_rkey: the window, by a key of its index (librxe: its current rkey)
 * @new_rkey: the key the window answers to after the bind
 * @mr_lkey: the MR to bind to (ignored for a zero-length bind)
 * @addr: first address of the window, an address of the MR
 * @length: bytes; 0 unbinds
 * @access: the window's rights, IB_ACCESS_REMOTE_*
 *
 * Type 1 windows are bound whatever their state, type 2 windows only when
 * FREE; the rules are in the comment at the top of this file.  On success
 * the window answers to @new_rkey only, with the new range and rights; on
 * failure it is left as it was.
 *
 * Context: the QP's engine.
 * Return: IB_WC_SUCCESS, or IB_WC_MW_BIND_ERR for a refused bind.
 */
enum ib_wc_status rxe_mw_bind(struct rxe_qp *qp, u32 mw_rkey, u32 new_rkey,
			      u32 mr_lkey, u64 addr, u64 length, int access)
{
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_mr *mr = NULL;
	const char *why = NULL;
	struct rxe_mw *mw;
	int need;

	rcu_read_lock();
	mw = rxe_key_is_mw(mw_rkey) ? xa_load(&rxe->mw_xa, mw_rkey >> 8) : NULL;
	if (!mw) {
		why = "no such window";
		goto out;
	}
	write_lock_bh(&mw->lock);
	why = rxe_mw_bind_refusal(qp, mw, new_rkey, addr, length, access);
	if (!why && length) {
		need = IB_ACCESS_MW_BIND;
		if (access & (IB_ACCESS_REMOTE_WRITE | IB_ACCESS_REMOTE_ATOMIC))
			need |= IB_ACCESS_LOCAL_WRITE;
		mr = rxe_mr_mw_hold(rxe, mr_lkey, qp->ibqp.pd, need, addr,
				    length);
		if (!mr)
			why = "MR refused";
	}
	if (!why) {
		/* the old binding of a type 1 window goes */
		rxe_mw_unbind(mw);
		mw->key = new_rkey;
		mw->ibmw.rkey = new_rkey;
		if (length) {
			mw->mr = mr;
			mw->iova = addr;
			mw->length = length;
			mw->access = access & RXE_MW_RIGHTS;
			if (mw->ibmw.type == IB_MW_TYPE_2)
				mw->qpn = rxe_qpn(qp);
			mw->state = RXE_MW_VALID;
		}
	}
	write_unlock_bh(&mw->lock);
out:
	rcu_read_unlock();
	if (!why)
		return IB_WC_SUCCESS;
	ibdev_dbg(&rxe->ib_dev,
		  "QP %#x: bind of window %#x to %llu bytes at %#llx (MR %#x, rights %#x, new key %#x) refused: %s\n",
		  rxe_qpn(qp), mw_rkey, length, addr, mr_lkey, access,
		  new_rkey, why);
	return IB_WC_MW_BIND_ERR;
}

/**
 * rxe_mw_invalidate() - LOCAL_INV, or a received SEND with invalidate, of
 *	a window's rkey
 * @qp: the QP that executes it
 * @rkey: the key to invalidate
 * @remote: it came from the peer (SEND with invalidate)
 *
 * Only type 2 windows can be invalidated, by a QP of their PD, and a
 * remote invalidation only at the QP the window is bound through.  A
 * VALID window becomes FREE; accesses in progress finish first and none
 * starts afterwards.  Invalidating a FREE window under its current key
 * changes nothing.
 *
 * Context: the QP's engine.
 * Return: 0, or -EINVAL when refused.
 */
int rxe_mw_invalidate(struct rxe_qp *qp, u32 rkey, bool remote)
{
	struct rxe_dev *rxe = qp->rxe;
	const char *why = NULL;
	struct rxe_mw *mw;

	rcu_read_lock();
	mw = rxe_key_is_mw(rkey) ? xa_load(&rxe->mw_xa, rkey >> 8) : NULL;
	if (!mw) {
		why = "no such window";
		goto out;
	}
	write_lock_bh(&mw->lock);
	if (mw->ibmw.type != IB_MW_TYPE_2)
		why = "a type 1 window";
	else if (mw->ibmw.pd != qp->ibqp.pd)
		why = "window of another PD";
	else if (mw->key != rkey || mw->state == RXE_MW_INVALID)
		why = "stale key";
	else if (remote && mw->state == RXE_MW_VALID && mw->qpn != rxe_qpn(qp))
		why = "window bound through another QP";
	else
		rxe_mw_unbind(mw);
	write_unlock_bh(&mw->lock);
out:
	rcu_read_unlock();
	if (!why)
		return 0;
	ibdev_dbg(&rxe->ib_dev, "QP %#x: %s invalidation of window key %#x refused: %s\n",
		  rxe_qpn(qp), remote ? "remote" : "local", rkey, why);
	return -EINVAL;
}

/* May @qp reach @len bytes at @iova through @mw, under @key, for @access? */
static bool rxe_mw_allows(const struct rxe_mw *mw, const struct rxe_qp *qp,
			  u32 key, int access, u64 iova, u64 len)
{
	if (mw->state != RXE_MW_VALID || mw->key != key ||
	    mw->ibmw.pd != qp->ibqp.pd || (mw->access & access) != access)
		return false;
	if (mw->ibmw.type == IB_MW_TYPE_2 && mw->qpn != rxe_qpn(qp))
		return false;
	return iova >= mw->iova && len <= mw->length &&
	       iova - mw->iova <= mw->length - len;
}

/**
 * rxe_mw_do() - a remote access under a window's rkey
 * @qp: the QP the request arrived at
 * @key: the rkey
 * @access: the IB_ACCESS_REMOTE_* right the access needs
 * @iova: first address
 * @len: bytes
 * @op: what to do on the window's MR
 * @buf: the buffer of a copy
 * @atomic: the operands of an RXE_MR_OP_ATOMIC
 *
 * Context: bottom halves off, or process context.
 * Return: 0, -EACCES when the window or its MR refuse it, -EINVAL for a
 * misaligned atomic.
 */
int rxe_mw_do(struct rxe_qp *qp, u32 key, int access, u64 iova, u64 len,
	      enum rxe_mr_op op, void *buf, struct rxe_mr_atomic_args *atomic)
{
	struct rxe_dev *rxe = qp->rxe;
	struct rxe_mw *mw;
	int ret = -EACCES;

	rcu_read_lock();
	mw = xa_load(&rxe->mw_xa, key >> 8);
	if (mw) {
		read_lock_bh(&mw->lock);
		if (rxe_mw_allows(mw, qp, key, access, iova, len))
			ret = rxe_mr_apply_bound(mw->mr, iova, len, op, buf,
						 atomic);
		read_unlock_bh(&mw->lock);
	}
	rcu_read_unlock();
	if (ret)
		ibdev_dbg(&rxe->ib_dev,
			  "QP %#x: window key %#x: access %#x to %llu bytes at %#llx refused (%d)\n",
			  rxe_qpn(qp), key, access, len, iova, ret);
	return ret;
}
