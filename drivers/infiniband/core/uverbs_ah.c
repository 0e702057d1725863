// SPDX-License-Identifier: GPL-2.0
/*
 * Address handles of user processes: CREATE_AH and DESTROY_AH.  The
 * vector arrives in the ABI's struct ib_uverbs_ah_attr; the core turns it
 * into an rdma_ah_attr of the port's type and rdma_create_user_ah()
 * resolves the RoCE destination MAC (which may sleep) before the provider
 * builds the AH.  A RoCE vector without a GRH is refused there.
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

static int uverbs_destroy_ah(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};

	return rdma_destroy_ah_user(uobj->object, RDMA_DESTROY_AH_SLEEPABLE,
				    &udata);
}

const struct uverbs_api_object uverbs_type_ah = {
	.name		= "AH",
	.destroy	= uverbs_destroy_ah,
};

/**
 * uverbs_ah_attr_from_user() - the kernel's form of a user's address vector
 * @ib_dev: the device
 * @u: the vector as the ABI carries it (CREATE_AH; MODIFY_QP's paths
 *	are converted to it)
 * @attr: filled with a vector of the port's type, without a GID reference
 *
 * @u->port_num must be a port of @ib_dev.
 */
void uverbs_ah_attr_from_user(struct ib_device *ib_dev,
			      const struct ib_uverbs_ah_attr *u,
			      struct rdma_ah_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(ib_dev, u->port_num);
	rdma_ah_set_dlid(attr, u->dlid);
	rdma_ah_set_sl(attr, u->sl);
	rdma_ah_set_path_bits(attr, u->src_path_bits);
	rdma_ah_set_static_rate(attr, u->static_rate);
	rdma_ah_set_port_num(attr, u->port_num);
	if (u->is_global)
		rdma_ah_set_grh(attr, (union ib_gid *)u->grh.dgid,
				u->grh.flow_label, u->grh.sgid_index,
				u->grh.hop_limit, u->grh.traffic_class);
}

/**
 * uverbs_cmd_create_ah() - CREATE_AH
 * @attrs: the command
 *
 * Return: 0; -EINVAL for a port the device lacks or a vector the core or
 * the provider refuses (no GRH on RoCE, an empty source GID entry);
 * -ENOENT, -EINVAL or -EBUSY for the PD handle as uobj_get_shared() says;
 * the errors of address resolution; -ENOMEM; -EFAULT; the provider's
 * error.
 */
int uverbs_cmd_create_ah(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_create_ah_resp resp = {};
	struct ib_uobject *uobj, *pd_uobj;
	struct ib_uverbs_create_ah cmd;
	struct rdma_ah_attr ah_attr;
	struct ib_ah *ah;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (!rdma_is_port_valid(ib_dev, cmd.attr.port_num)) {
		ibdev_dbg(ib_dev, "uverbs: CREATE_AH on port %u\n",
			  cmd.attr.port_num);
		return -EINVAL;
	}

	pd_uobj = uobj_get_shared(attrs->ufile, &uverbs_type_pd, cmd.pd_handle);
	if (IS_ERR(pd_uobj))
		return PTR_ERR(pd_uobj);
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_ah);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_pd;
	}
	uobj->user_handle = cmd.user_handle;

	uverbs_ah_attr_from_user(ib_dev, &cmd.attr, &ah_attr);
	ah = rdma_create_user_ah(pd_uobj->object, &ah_attr,
				 &attrs->driver_udata);
	if (IS_ERR(ah)) {
		err = PTR_ERR(ah);
		ibdev_dbg(ib_dev, "uverbs: CREATE_AH failed: %d\n", err);
		goto abort;
	}
	ah->uobject = uobj;
	uobj->object = ah;

	resp.ah_handle = uobj->id;
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
 * uverbs_cmd_destroy_ah() - DESTROY_AH
 * @attrs: the command
 *
 * Return: 0; -ENOENT for an unknown handle, -EINVAL for a handle of
 * another type, -EBUSY while another command holds the AH; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_destroy_ah(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_ah cmd;

	return uverbs_request(attrs, &cmd, sizeof(cmd)) ?:
	       uobj_destroy(attrs->ufile, &uverbs_type_ah, cmd.ah_handle);
}
