// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of ib_uverbs' write() commands: GET_CONTEXT, QUERY_DEVICE
 * (legacy and extended), QUERY_PORT, ALLOC_PD and DEALLOC_PD, and the
 * command tables (the AH, MR and MW, CQ and QP commands are in
 * uverbs_ah.c, uverbs_mr.c, uverbs_cq.c and uverbs_qp.c).  Each handler
 * runs as uverbs_write.c describes: inside the device's SRCU read side, with the
 * file's hw_destroy_rwsem held for reading, and, except GET_CONTEXT, with
 * the file's context in attrs->context.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

/* ---- GET_CONTEXT ----------------------------------------------------------- */

/*
 * A zeroed object of the provider's size for @type, with its resource
 * tracking entry of @kind prepared for the current task; NULL without
 * memory.  rdma_restrack_add() publishes the entry once the provider has
 * made the object, rdma_restrack_put() drops it if that failed.
 */
#define uverbs_zalloc_tracked(ib_dev, type, kind)			\
	({								\
		struct type *__obj = rdma_zalloc_drv_obj(ib_dev, type);	\
									\
		if (__obj) {						\
			rdma_restrack_new(&__obj->res, kind);		\
			rdma_restrack_set_name(&__obj->res, NULL);	\
		}							\
		__obj;							\
	})

/* A new ucontext for the file of @attrs, from the provider, tracked. */
static struct ib_ucontext *uverbs_ucontext_create(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_ucontext *uc;
	int err;

	uc = uverbs_zalloc_tracked(ib_dev, ib_ucontext, RDMA_RESTRACK_CTX);
	if (!uc)
		return ERR_PTR(-ENOMEM);
	xa_init_flags(&uc->mmap_xa, XA_FLAGS_ALLOC);
	uc->ufile = attrs->ufile;
	uc->device = ib_dev;
	err = ib_dev->ops.alloc_ucontext(uc, &attrs->driver_udata);
	if (err) {
		ibdev_dbg(ib_dev, "uverbs: alloc_ucontext failed: %d\n", err);
		rdma_restrack_put(&uc->res);
		kfree(uc);
		return ERR_PTR(err);
	}
	rdma_restrack_add(&uc->res);
	return uc;
}

/**
 * uverbs_ucontext_destroy() - undo a ucontext GET_CONTEXT made
 * @uc: the context, whose objects are all gone
 */
void uverbs_ucontext_destroy(struct ib_ucontext *uc)
{
	uc->device->ops.dealloc_ucontext(uc);
	rdma_restrack_del(&uc->res);
	/* The objects that inserted mmap entries removed them. */
	WARN_ON(!xa_empty(&uc->mmap_xa));
	xa_destroy(&uc->mmap_xa);
	kfree(uc);
}

/**
 * uverbs_cmd_get_context() - GET_CONTEXT: the file's ucontext and async fd
 * @attrs: the command
 *
 * Makes the async event file and the ucontext (the provider's
 * alloc_ucontext with the driver data); the new fd goes back in the
 * response with the device's number of completion vectors.  The fd is
 * installed last, once nothing can fail any more.
 *
 * Return: 0; -EINVAL if the file has a context already; -ENOMEM, -EMFILE,
 * -EFAULT, or the provider's error.
 */
static int uverbs_cmd_get_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_get_context_resp resp;
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct uverbs_async_file *async;
	struct ib_ucontext *ucontext;
	struct file *async_filp;
	int fd, ret;

	mutex_lock(&ufile->ucontext_lock);
	if (ufile->ucontext) {
		ibdev_dbg(attrs->ib_dev, "uverbs: second GET_CONTEXT refused\n");
		ret = -EINVAL;
		goto out;
	}
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto out;
	}
	async_filp = uverbs_async_file_create(&async);
	if (IS_ERR(async_filp)) {
		ret = PTR_ERR(async_filp);
		goto err_fd;
	}
	ucontext = uverbs_ucontext_create(attrs);
	if (IS_ERR(ucontext)) {
		ret = PTR_ERR(ucontext);
		goto err_async;
	}

	resp.async_fd = fd;
	resp.num_comp_vectors = attrs->ib_dev->num_comp_vectors;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		uverbs_ucontext_destroy(ucontext);
		goto err_async;
	}

	mutex_lock(&ufile->device->lists_mutex);
	ufile->async = async;
	mutex_unlock(&ufile->device->lists_mutex);
	/* Pairs with the acquire of commands: they see it complete. */
	smp_store_release(&ufile->ucontext, ucontext);
	fd_install(fd, async_filp);
	goto out;

err_async:
	uverbs_async_file_put(async);
	fput(async_filp);
err_fd:
	put_unused_fd(fd);
out:
	mutex_unlock(&ufile->ucontext_lock);
	return ret;
}

/* ---- QUERY_DEVICE ---------------------------------------------------------- */

/*
 * The legacy part of a device query, from the attributes @attr, grouped
 * by what the limits are about.
 */
static void uverbs_fill_device(struct ib_device *ib_dev,
			       const struct ib_device_attr *attr,
			       struct ib_uverbs_query_device_resp *resp)
{
	*resp = (struct ib_uverbs_query_device_resp) {
		/* identity */
		.node_guid = ib_dev->node_guid,
		.sys_image_guid = attr->sys_image_guid,
		.fw_ver = attr->fw_ver,
		.hw_ver = attr->hw_ver,
		.vendor_id = attr->vendor_id,
		.vendor_part_id = attr->vendor_part_id,
		.phys_port_cnt = rdma_end_port(ib_dev),
		/* The upper 32 bits only go out in the extended answer. */
		.device_cap_flags = lower_32_bits(attr->device_cap_flags),
		.atomic_cap = attr->atomic_cap,
		.local_ca_ack_delay = attr->local_ca_ack_delay,
		.max_pkeys = attr->max_pkeys,
		/* queues and their work requests */
		.max_cq = attr->max_cq,
		.max_cqe = attr->max_cqe,
		.max_srq = attr->max_srq,
		.max_srq_wr = attr->max_srq_wr,
		.max_srq_sge = attr->max_srq_sge,
		.max_qp = attr->max_qp,
		.max_qp_wr = attr->max_qp_wr,
		.max_sge = min(attr->max_send_sge, attr->max_recv_sge),
		.max_sge_rd = attr->max_sge_rd,
		.max_raw_ipv6_qp = attr->max_raw_ipv6_qp,
		.max_raw_ethy_qp = attr->max_raw_ethy_qp,
		.max_ee = attr->max_ee,
		.max_rdd = attr->max_rdd,
		/* RDMA READ and atomic resources */
		.max_qp_rd_atom = attr->max_qp_rd_atom,
		.max_qp_init_rd_atom = attr->max_qp_init_rd_atom,
		.max_ee_rd_atom = attr->max_ee_rd_atom,
		.max_ee_init_rd_atom = attr->max_ee_init_rd_atom,
		.max_res_rd_atom = attr->max_res_rd_atom,
		/* memory and addressing */
		.max_pd = attr->max_pd,
		.max_mr = attr->max_mr,
		.max_mr_size = attr->max_mr_size,
		.page_size_cap = attr->page_size_cap,
		.max_mw = attr->max_mw,
		.max_ah = attr->max_ah,
		.max_mcast_grp = attr->max_mcast_grp,
		.max_mcast_qp_attach = attr->max_mcast_qp_attach,
		.max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach,
	};
}

/**
 * uverbs_cmd_query_device() - legacy QUERY_DEVICE
 * @attrs: the command
 *
 * Answers from the attributes the core read at registration.
 *
 * Return: 0 or -EFAULT.
 */
static int uverbs_cmd_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_device_resp resp = {};

	uverbs_fill_device(attrs->ib_dev, &attrs->ib_dev->attrs, &resp);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_ex_query_device() - extended QUERY_DEVICE
 * @attrs: the command
 *
 * Asks the provider (with the driver data) and answers the whole
 * extended structure; response_length tells user space how much of it
 * arrived, which is what it made room for.
 *
 * Return: 0; -EINVAL for a non-zero comp_mask or reserved field; -EFAULT;
 * -EOPNOTSUPP for unknown request fields; the provider's error.
 */
static int uverbs_cmd_ex_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_device_attr attr = {};
	typeof(attr.odp_caps.per_transport_caps) *odp =
		&attr.odp_caps.per_transport_caps;
	struct ib_uverbs_ex_query_device_resp resp;
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_ex_query_device cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	if (cmd.comp_mask || cmd.reserved) {
		ibdev_dbg(ib_dev, "uverbs: ex QUERY_DEVICE with comp_mask %#x reserved %#x\n",
			  cmd.comp_mask, cmd.reserved);
		return -EINVAL;
	}
	ret = ib_dev->ops.query_device(ib_dev, &attr, &attrs->driver_udata);
	if (ret)
		return ret;

	/* On-demand paging, timestamps, RSS, tag matching and moderation. */
	resp = (struct ib_uverbs_ex_query_device_resp) {
		.device_cap_flags_ex = attr.device_cap_flags,
		.max_dm_size = attr.max_dm_size,
		.max_wq_type_rq = attr.max_wq_type_rq,
		.raw_packet_caps = attr.raw_packet_caps,
		.hca_core_clock = attr.hca_core_clock,
		.timestamp_mask = attr.timestamp_mask,
		.odp_caps = {
			.general_caps = attr.odp_caps.general_caps,
			.per_transport_caps = {
				.rc_odp_caps = odp->rc_odp_caps,
				.uc_odp_caps = odp->uc_odp_caps,
				.ud_odp_caps = odp->ud_odp_caps,
			},
		},
		.xrc_odp_caps = odp->xrc_odp_caps,
		.rss_caps = {
			.supported_qpts = attr.rss_caps.supported_qpts,
			.max_rwq_indirection_tables =
				attr.rss_caps.max_rwq_indirection_tables,
			.max_rwq_indirection_table_size =
				attr.rss_caps.max_rwq_indirection_table_size,
		},
		.tm_caps = {
			.flags = attr.tm_caps.flags,
			.max_num_tags = attr.tm_caps.max_num_tags,
			.max_ops = attr.tm_caps.max_ops,
			.max_sge = attr.tm_caps.max_sge,
			.max_rndv_hdr_size = attr.tm_caps.max_rndv_hdr_size,
		},
		.cq_moderation_caps = {
			.max_cq_moderation_count =
				attr.cq_caps.max_cq_moderation_count,
			.max_cq_moderation_period =
				attr.cq_caps.max_cq_moderation_period,
		},
	};
	uverbs_fill_device(ib_dev, &attr, &resp.base);
	resp.response_length = min(attrs->core_out_len, sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ---- QUERY_PORT ------------------------------------------------------------ */

/**
 * uverbs_cmd_query_port() - QUERY_PORT
 * @attrs: the command
 *
 * ib_query_port() passed through, with the IP-based-GIDs capability bit
 * and the GRH-required flag added, and the speed capped at NDR for
 * libraries that know no faster one.
 *
 * Return: 0; -EINVAL for a port the device does not have; -EFAULT; the
 * provider's error.
 */
static int uverbs_cmd_query_port(struct uverbs_attr_bundle *attrs)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_query_port_resp resp;
	struct ib_uverbs_query_port cmd = {};
	struct ib_port_attr attr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd)) ?:
	      ib_query_port(ib_dev, cmd.port_num, &attr);
	if (ret) {
		ibdev_dbg(ib_dev, "uverbs: QUERY_PORT %u: %d\n", cmd.port_num,
			  ret);
		return ret;
	}

	resp = (struct ib_uverbs_query_port_resp) {
		/* link */
		.state = attr.state,
		.phys_state = attr.phys_state,
		.link_layer = rdma_port_get_link_layer(ib_dev, cmd.port_num),
		.active_width = attr.active_width,
		.active_speed = min_t(u16, attr.active_speed, IB_SPEED_NDR),
		.max_mtu = attr.max_mtu,
		.active_mtu = attr.active_mtu,
		.max_msg_sz = attr.max_msg_sz,
		.max_vl_num = attr.max_vl_num,
		/* addressing and the subnet manager */
		.lid = attr.lid,
		.lmc = attr.lmc,
		.sm_lid = attr.sm_lid,
		.sm_sl = attr.sm_sl,
		.subnet_timeout = attr.subnet_timeout,
		.init_type_reply = attr.init_type_reply,
		.gid_tbl_len = attr.gid_tbl_len,
		.pkey_tbl_len = attr.pkey_tbl_len,
		/* capabilities and counters */
		.port_cap_flags = attr.port_cap_flags |
			(attr.ip_gids ? IB_UVERBS_PCF_IP_BASED_GIDS : 0),
		.flags = rdma_is_grh_required(ib_dev, cmd.port_num) ?
			IB_UVERBS_QPF_GRH_REQUIRED : 0,
		.bad_pkey_cntr = attr.bad_pkey_cntr,
		.qkey_viol_cntr = attr.qkey_viol_cntr,
	};
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ---- PD ---------------------------------------------------------------------- */

static int uverbs_destroy_pd(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	struct ib_pd *pd = uobj->object;
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};

	if (atomic_read(&pd->usecnt))
		return -EBUSY;
	return ib_dealloc_pd_user(pd, &udata);
}

const struct uverbs_api_object uverbs_type_pd = {
	.name		= "PD",
	.destroy	= uverbs_destroy_pd,
};

/* A user PD from the provider, tracked, for @uobj; or an ERR_PTR. */
static struct ib_pd *uverbs_pd_create(struct ib_device *ib_dev,
				      struct ib_uobject *uobj,
				      struct ib_udata *udata)
{
	struct ib_pd *pd;
	int err;

	pd = uverbs_zalloc_tracked(ib_dev, ib_pd, RDMA_RESTRACK_PD);
	if (!pd)
		return ERR_PTR(-ENOMEM);
	pd->uobject = uobj;
	pd->device = ib_dev;
	err = ib_dev->ops.alloc_pd(pd, udata);
	if (!err) {
		rdma_restrack_add(&pd->res);
		return pd;
	}
	ibdev_dbg(ib_dev, "uverbs: alloc_pd failed: %d\n", err);
	rdma_restrack_put(&pd->res);
	kfree(pd);
	return ERR_PTR(err);
}

/**
 * uverbs_cmd_alloc_pd() - ALLOC_PD
 * @attrs: the command
 *
 * Return: 0; -ENOMEM; -EFAULT; the provider's error.
 */
static int uverbs_cmd_alloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uobject *uobj = uobj_alloc(attrs->ufile, &uverbs_type_pd);
	struct ib_uverbs_alloc_pd_resp resp;
	struct ib_pd *pd;

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	pd = uverbs_pd_create(attrs->ib_dev, uobj, &attrs->driver_udata);
	if (IS_ERR(pd)) {
		uobj_abort(uobj);
		return PTR_ERR(pd);
	}
	uobj->object = pd;

	resp.pd_handle = uobj->id;
	return uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_dealloc_pd() - DEALLOC_PD
 * @attrs: the command
 *
 * Return: 0; -ENOENT for an unknown handle, -EINVAL for a handle of
 * another type, -EBUSY while the PD is in use; -EFAULT; the provider's
 * error.
 */
static int uverbs_cmd_dealloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_pd cmd;

	return uverbs_request(attrs, &cmd, sizeof(cmd)) ?:
	       uobj_destroy(attrs->ufile, &uverbs_type_pd, cmd.pd_handle);
}

/* ---- the command tables ------------------------------------------------ */

const struct uverbs_write_cmd uverbs_legacy_cmds[] = {
	[IB_USER_VERBS_CMD_GET_CONTEXT] = {
		.handler = uverbs_cmd_get_context,
		.req_size = sizeof(struct ib_uverbs_get_context),
		.resp_size = sizeof(struct ib_uverbs_get_context_resp),
		.udata = 1,
		.no_context = 1,
	},
	[IB_USER_VERBS_CMD_QUERY_DEVICE] = {
		.handler = uverbs_cmd_query_device,
		.req_size = sizeof(struct ib_uverbs_query_device),
		.resp_size = sizeof(struct ib_uverbs_query_device_resp),
	},
	[IB_USER_VERBS_CMD_QUERY_PORT] = {
		.handler = uverbs_cmd_query_port,
		.req_size = sizeof(struct ib_uverbs_query_port),
		.resp_size = sizeof(struct ib_uverbs_query_port_resp),
	},
	[IB_USER_VERBS_CMD_ALLOC_PD] = {
		.handler = uverbs_cmd_alloc_pd,
		.req_size = sizeof(struct ib_uverbs_alloc_pd),
		.resp_size = sizeof(struct ib_uverbs_alloc_pd_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_DEALLOC_PD] = {
		.handler = uverbs_cmd_dealloc_pd,
		.req_size = sizeof(struct ib_uverbs_dealloc_pd),
	},
	[IB_USER_VERBS_CMD_CREATE_AH] = {
		.handler = uverbs_cmd_create_ah,
		.req_size = sizeof(struct ib_uverbs_create_ah),
		.resp_size = sizeof(struct ib_uverbs_create_ah_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_DESTROY_AH] = {
		.handler = uverbs_cmd_destroy_ah,
		.req_size = sizeof(struct ib_uverbs_destroy_ah),
	},
	[IB_USER_VERBS_CMD_REG_MR] = {
		.handler = uverbs_cmd_reg_mr,
		.req_size = sizeof(struct ib_uverbs_reg_mr),
		.resp_size = sizeof(struct ib_uverbs_reg_mr_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_DEREG_MR] = {
		.handler = uverbs_cmd_dereg_mr,
		.req_size = sizeof(struct ib_uverbs_dereg_mr),
	},
	[IB_USER_VERBS_CMD_ALLOC_MW] = {
		.handler = uverbs_cmd_alloc_mw,
		.req_size = sizeof(struct ib_uverbs_alloc_mw),
		.resp_size = sizeof(struct ib_uverbs_alloc_mw_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_DEALLOC_MW] = {
		.handler = uverbs_cmd_dealloc_mw,
		.req_size = sizeof(struct ib_uverbs_dealloc_mw),
	},
	[IB_USER_VERBS_CMD_CREATE_COMP_CHANNEL] = {
		.handler = uverbs_cmd_create_comp_channel,
		.req_size = sizeof(struct ib_uverbs_create_comp_channel),
		.resp_size = sizeof(struct ib_uverbs_create_comp_channel_resp),
	},
	[IB_USER_VERBS_CMD_CREATE_CQ] = {
		.handler = uverbs_cmd_create_cq,
		.req_size = sizeof(struct ib_uverbs_create_cq),
		.resp_size = sizeof(struct ib_uverbs_create_cq_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_RESIZE_CQ] = {
		.handler = uverbs_cmd_resize_cq,
		.req_size = sizeof(struct ib_uverbs_resize_cq),
		.resp_size = sizeof(struct ib_uverbs_resize_cq_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_DESTROY_CQ] = {
		.handler = uverbs_cmd_destroy_cq,
		.req_size = sizeof(struct ib_uverbs_destroy_cq),
		.resp_size = sizeof(struct ib_uverbs_destroy_cq_resp),
	},
	[IB_USER_VERBS_CMD_REQ_NOTIFY_CQ] = {
		.handler = uverbs_cmd_req_notify_cq,
		.req_size = sizeof(struct ib_uverbs_req_notify_cq),
	},
	[IB_USER_VERBS_CMD_CREATE_QP] = {
		.handler = uverbs_cmd_create_qp,
		.req_size = sizeof(struct ib_uverbs_create_qp),
		.resp_size = sizeof(struct ib_uverbs_create_qp_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_QUERY_QP] = {
		.handler = uverbs_cmd_query_qp,
		.req_size = sizeof(struct ib_uverbs_query_qp),
		.resp_size = sizeof(struct ib_uverbs_query_qp_resp),
	},
	[IB_USER_VERBS_CMD_MODIFY_QP] = {
		.handler = uverbs_cmd_modify_qp,
		.req_size = sizeof(struct ib_uverbs_modify_qp),
	},
	[IB_USER_VERBS_CMD_DESTROY_QP] = {
		.handler = uverbs_cmd_destroy_qp,
		.req_size = sizeof(struct ib_uverbs_destroy_qp),
		.resp_size = sizeof(struct ib_uverbs_destroy_qp_resp),
	},
	[IB_USER_VERBS_CMD_POST_SEND] = {
		.handler = uverbs_cmd_post_send,
		/* The work requests that may follow are not read. */
		.req_size = sizeof(struct ib_uverbs_post_send),
		.resp_size = sizeof(struct ib_uverbs_post_send_resp),
	},
	[IB_USER_VERBS_CMD_ATTACH_MCAST] = {
		.handler = uverbs_cmd_attach_mcast,
		.req_size = sizeof(struct ib_uverbs_attach_mcast),
	},
	[IB_USER_VERBS_CMD_DETACH_MCAST] = {
		.handler = uverbs_cmd_detach_mcast,
		.req_size = sizeof(struct ib_uverbs_detach_mcast),
	},
	[IB_USER_VERBS_CMD_CREATE_SRQ] = {
		.handler = uverbs_cmd_create_srq,
		.req_size = sizeof(struct ib_uverbs_create_srq),
		.resp_size = sizeof(struct ib_uverbs_create_srq_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_MODIFY_SRQ] = {
		.handler = uverbs_cmd_modify_srq,
		/* librxe's 8 driver bytes follow; there is no response. */
		.req_size = sizeof(struct ib_uverbs_modify_srq),
		.udata = 1,
	},
	[IB_USER_VERBS_CMD_QUERY_SRQ] = {
		.handler = uverbs_cmd_query_srq,
		.req_size = sizeof(struct ib_uverbs_query_srq),
		.resp_size = sizeof(struct ib_uverbs_query_srq_resp),
	},
	[IB_USER_VERBS_CMD_DESTROY_SRQ] = {
		.handler = uverbs_cmd_destroy_srq,
		.req_size = sizeof(struct ib_uverbs_destroy_srq),
		.resp_size = sizeof(struct ib_uverbs_destroy_srq_resp),
	},
};

const size_t uverbs_legacy_ncmds = ARRAY_SIZE(uverbs_legacy_cmds);

const struct uverbs_write_cmd uverbs_ex_cmds[] = {
	[IB_USER_VERBS_EX_CMD_QUERY_DEVICE] = {
		.handler = uverbs_cmd_ex_query_device,
		.req_size = sizeof(struct ib_uverbs_ex_query_device),
		/* The answer is cut to the room given, whatever it is. */
		.udata = 1,
	},
	[IB_USER_VERBS_EX_CMD_CREATE_CQ] = {
		.handler = uverbs_cmd_ex_create_cq,
		.req_size = sizeof(struct ib_uverbs_ex_create_cq),
		.resp_size = sizeof(struct ib_uverbs_ex_create_cq_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_EX_CMD_CREATE_QP] = {
		.handler = uverbs_cmd_ex_create_qp,
		/* As stock: what follows reserved may be left out (reads 0). */
		.req_size = offsetofend(struct ib_uverbs_ex_create_qp,
					reserved),
		.resp_size = sizeof(struct ib_uverbs_ex_create_qp_resp),
		.udata = 1,
	},
	[IB_USER_VERBS_EX_CMD_MODIFY_QP] = {
		.handler = uverbs_cmd_ex_modify_qp,
		.req_size = sizeof(struct ib_uverbs_ex_modify_qp),
		/* The answer is cut to the room given, whatever it is. */
		.udata = 1,
	},
};

const size_t uverbs_ex_ncmds = ARRAY_SIZE(uverbs_ex_cmds);
