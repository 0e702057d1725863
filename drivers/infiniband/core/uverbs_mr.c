// SPDX-License-Identifier: GPL-2.0
/*
 * Memory regions of user processes: the REG_MR and DEREG_MR write()
 * commands.  The core checks what it can before the provider sees the
 * request (the page offset of start and hca_va, the access rights); the
 * provider pins the memory (ib_umem_get()) and makes its keys.  Each MR
 * counts in its PD's usecnt, so DEALLOC_PD refuses with -EBUSY while an
 * MR of the PD is registered.
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
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
