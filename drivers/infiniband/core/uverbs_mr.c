// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions and memory windows of user processes: the REG_MR,
 * DEREG_MR, ALLOC_MW and DEALLOC_MW write() commands.  The core checks
 * what it can before the provider sees the request (the page offset of
 * start and hca_va, the access rights, the window type); the provider
 * pins the memory (ib_umem_get()) and makes the keys.  Each MR and MW
 * counts in its PD's usecnt, so DEALLOC_PD refuses with -EBUSY while one
 * of the PD's MRs or MWs exists.
 *
 * A window is bound and invalidated through the send queue (librxe and
 * the other providers post a bind work request); no write() command
 * does it.  DEALLOC_MW of a bound window is allowed: the provider
 * invalidates it, and an access through its rkey fails afterwards.
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

static int uverbs_destroy_mr(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};

	return ib_dereg_mr_user(uobj->object, &udata);
}

const struct uverbs_api_object uverbs_type_mr = {
	.name		= "MR",
	.destroy	= uverbs_destroy_mr,
};

/*
 * The checks REG_MR makes before the provider: the device and the MR
 * address the first byte at the same offset in a page, and the rights
 * are a valid set the device can give.
 */
static int uverbs_reg_mr_check(struct ib_device *ib_dev,
			       const struct ib_uverbs_reg_mr *cmd)
{
	int err;

	if ((cmd->start ^ cmd->hca_va) & ~PAGE_MASK) {
		ibdev_dbg(ib_dev,
			  "uverbs: REG_MR start %#llx and hca_va %#llx differ in page offset\n",
			  cmd->start, cmd->hca_va);
		return -EINVAL;
	}
	err = ib_check_mr_access(ib_dev, cmd->access_flags);
	if (err) {
		ibdev_dbg(ib_dev, "uverbs: REG_MR access %#x refused: %d\n",
			  cmd->access_flags, err);
		return err;
	}
	if (!ib_dev->ops.reg_user_mr) {
		ibdev_dbg(ib_dev, "uverbs: REG_MR: no user MRs on this device\n");
		return -EOPNOTSUPP;
	}
	return 0;
}

/*
 * Make @mr, fresh from the provider, the user MR of @uobj on @pd.  Of
 * struct ib_mr the provider fills only the keys and the page size; the
 * rest is the core's, written here in one go.
 */
static void uverbs_mr_adopt(struct ib_mr *mr, struct ib_pd *pd,
			    struct ib_uobject *uobj,
			    const struct ib_uverbs_reg_mr *cmd)
{
	u32 lkey = mr->lkey, rkey = mr->rkey;
	unsigned int page_size = mr->page_size;

	*mr = (struct ib_mr) {
		.device = pd->device,
		.pd = pd,
		.lkey = lkey,
		.rkey = rkey,
		.iova = cmd->hca_va,
		.length = cmd->length,
		.page_size = page_size,
		.type = IB_MR_TYPE_USER,
		.uobject = uobj,
	};
	atomic_inc(&pd->usecnt);
	rdma_restrack_new(&mr->res, RDMA_RESTRACK_MR);
	rdma_restrack_set_name(&mr->res, NULL);
	rdma_restrack_add(&mr->res);
	uobj->object = mr;
}

/**
 * uverbs_cmd_reg_mr() - REG_MR: register user memory
 * @attrs: the command
 *
 * Return: 0; -EINVAL for a page offset of hca_va other than start's, or
 * an invalid set of rights; -EOPNOTSUPP for rights the device lacks
 * (on-demand paging among them) or a device without user MRs; -ENOENT,
 * -EINVAL or -EBUSY for the PD handle as uobj_get_shared() says; -ENOMEM;
 * -EFAULT; the provider's error (which includes ib_umem_get()'s).
 */
int uverbs_cmd_reg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_reg_mr_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_reg_mr cmd;
	struct ib_pd *pd;
	struct ib_mr *mr;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	err = uverbs_reg_mr_check(ib_dev, &cmd);
	if (err)
		return err;

	pd_uobj = uobj_get_shared(attrs->ufile, &uverbs_type_pd, cmd.pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	pd = pd_uobj->object;
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_mr);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_pd;
	}

	mr = ib_dev->ops.reg_user_mr(pd, cmd.start, cmd.length, cmd.hca_va,
				     cmd.access_flags, &attrs->driver_udata);
	if (IS_ERR(mr)) {
		err = PTR_ERR(mr);
		ibdev_dbg(ib_dev, "uverbs: reg_user_mr failed: %d\n", err);
		goto abort;
	}
	uverbs_mr_adopt(mr, pd, uobj, &cmd);

	resp.mr_handle = uobj->id;
	resp.lkey = mr->lkey;
	resp.rkey = mr->rkey;
	err = uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
	uobj_put_shared(pd_uobj);
	return err;

abort:
	uobj_abort(uobj);
put_pd:
	uobj_put_shared(pd_uobj);
	return err;
}

/**
 * uverbs_cmd_dereg_mr() - DEREG_MR
 * @attrs: the command
 *
 * Return: 0; -ENOENT for an unknown handle, -EINVAL for a handle of
 * another type, -EBUSY while another command holds the MR; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_dereg_mr(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dereg_mr cmd;

	return uverbs_request(attrs, &cmd, sizeof(cmd)) ?:
	       uobj_destroy(attrs->ufile, &uverbs_type_mr, cmd.mr_handle);
}

/* ---- memory windows ------------------------------------------------------ */

static int uverbs_destroy_mw(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	struct ib_mw *mw = uobj->object;
	struct ib_pd *pd = mw->pd;
	int err;

	err = mw->device->ops.dealloc_mw(mw);
	if (err) {
		ibdev_dbg(mw->device, "uverbs: dealloc_mw refused: %d\n", err);
		return err;
	}
	atomic_dec(&pd->usecnt);
	kfree(mw);
	return 0;
}

const struct uverbs_api_object uverbs_type_mw = {
	.name		= "MW",
	.destroy	= uverbs_destroy_mw,
};

/*
 * May @ib_dev make a window of @type?  Types other than 1 and 2 do not
 * exist (-EINVAL); a type the device does not claim is not supported.
 */
static int uverbs_mw_type_check(struct ib_device *ib_dev, u8 type)
{
	u64 caps = ib_dev->attrs.device_cap_flags;

	if (type != IB_MW_TYPE_1 && type != IB_MW_TYPE_2) {
		ibdev_dbg(ib_dev, "uverbs: ALLOC_MW of type %u refused\n", type);
		return -EINVAL;
	}
	if (!ib_dev->ops.alloc_mw || !ib_dev->ops.dealloc_mw ||
	    !(caps & IB_DEVICE_MEM_WINDOW) ||
	    (type == IB_MW_TYPE_2 &&
	     !(caps & (IB_DEVICE_MEM_WINDOW_TYPE_2A |
		       IB_DEVICE_MEM_WINDOW_TYPE_2B)))) {
		ibdev_dbg(ib_dev, "uverbs: ALLOC_MW: no windows of type %u here\n",
			  type);
		return -EOPNOTSUPP;
	}
	return 0;
}

/**
 * uverbs_cmd_alloc_mw() - ALLOC_MW: a memory window on a PD
 * @attrs: the command
 *
 * The window starts unbound; its rkey is answered with its handle.
 *
 * Return: 0; -EINVAL for a type other than 1 or 2 or non-zero reserved
 * bytes; -EOPNOTSUPP for a type the device does not offer; -ENOENT,
 * -EINVAL or -EBUSY for the PD handle as uobj_get_shared() says; -ENOMEM;
 * -EFAULT; the provider's error.
 */
int uverbs_cmd_alloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_alloc_mw_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_alloc_mw cmd;
	struct ib_pd *pd;
	struct ib_mw *mw;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (memchr_inv(cmd.reserved, 0, sizeof(cmd.reserved))) {
		ibdev_dbg(ib_dev, "uverbs: ALLOC_MW with reserved bytes set\n");
		return -EINVAL;
	}
	err = uverbs_mw_type_check(ib_dev, cmd.mw_type);
	if (err)
		return err;

	pd_uobj = uobj_get_shared(attrs->ufile, &uverbs_type_pd, cmd.pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	pd = pd_uobj->object;
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_mw);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_pd;
	}
	mw = rdma_zalloc_drv_obj(ib_dev, ib_mw);
	if (!mw) {
		err = -ENOMEM;
		goto abort;
	}
	mw->device = ib_dev;
	mw->pd = pd;
	mw->uobject = uobj;
	mw->type = cmd.mw_type;
	err = ib_dev->ops.alloc_mw(mw, &attrs->driver_udata);
	if (err) {
		ibdev_dbg(ib_dev, "uverbs: alloc_mw failed: %d\n", err);
		kfree(mw);
		goto abort;
	}
	atomic_inc(&pd->usecnt);
	uobj->object = mw;

	resp.mw_handle = uobj->id;
	resp.rkey = mw->rkey;
	err = uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
	uobj_put_shared(pd_uobj);
	return err;

abort:
	uobj_abort(uobj);
put_pd:
	uobj_put_shared(pd_uobj);
	return err;
}

/**
 * uverbs_cmd_dealloc_mw() - DEALLOC_MW
 * @attrs: the command
 *
 * A bound window is invalidated by the provider on the way.
 *
 * Return: 0; -ENOENT for an unknown handle, -EINVAL for a handle of
 * another type, -EBUSY while another command holds the MW; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_dealloc_mw(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_mw cmd;

	return uverbs_request(attrs, &cmd, sizeof(cmd)) ?:
	       uobj_destroy(attrs->ufile, &uverbs_type_mw, cmd.mw_handle);
}
