// SPDX-License-Identifier: GPL-2.0
/*
 * The verbs of ib_uverbs' write() commands: GET_CONTEXT, QUERY_DEVICE
 * (legacy and extended), QUERY_PORT, ALLOC_PD and DEALLOC_PD.  Each
 * handler runs as uverbs_write.c describes: inside the device's SRCU read
 * side, with the file's hw_destroy_rwsem held for reading, and, except
 * GET_CONTEXT, with the file's context in attrs->context.
 */
#include <linux/file.h>
#include <linux/slab.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

/* ---- GET_CONTEXT ----------------------------------------------------------- */

/**
 * ib_uverbs_get_context() - GET_CONTEXT: the file's ucontext and async fd
 * @attrs: the command
 *
 * Makes the ucontext (the provider's alloc_ucontext with the driver
 * data), and the async event file, whose new fd goes back in the
 * response with the device's number of completion vectors.  The fd is
 * installed last, once nothing can fail any more.
 *
 * Return: 0; -EINVAL if the file has a context already; -ENOMEM, -EMFILE,
 * -EFAULT, or the provider's error.
 */
int ib_uverbs_get_context(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_file *ufile = attrs->ufile;
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_get_context_resp resp = {};
	struct uverbs_async_file *async;
	struct ib_ucontext *ucontext;
	struct file *async_filp;
	int fd, ret;

	mutex_lock(&ufile->ucontext_lock);
	if (ufile->ucontext) {
		ibdev_dbg(ib_dev, "uverbs: second GET_CONTEXT refused\n");
		ret = -EINVAL;
		goto out_unlock;
	}

	ucontext = rdma_zalloc_drv_obj(ib_dev, ib_ucontext);
	if (!ucontext) {
		ret = -ENOMEM;
		goto out_unlock;
	}
	ucontext->device = ib_dev;
	ucontext->ufile = ufile;
	xa_init_flags(&ucontext->mmap_xa, XA_FLAGS_ALLOC);
	rdma_restrack_new(&ucontext->res, RDMA_RESTRACK_CTX);
	rdma_restrack_set_name(&ucontext->res, NULL);

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_free;
	}
	async_filp = uverbs_async_file_create(&async);
	if (IS_ERR(async_filp)) {
		ret = PTR_ERR(async_filp);
		goto err_fd;
	}

	ret = ib_dev->ops.alloc_ucontext(ucontext, &attrs->driver_udata);
	if (ret) {
		ibdev_dbg(ib_dev, "uverbs: alloc_ucontext failed: %d\n", ret);
		goto err_async;
	}

	resp.async_fd = fd;
	resp.num_comp_vectors = ib_dev->num_comp_vectors;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret)
		goto err_dealloc;

	rdma_restrack_add(&ucontext->res);
	mutex_lock(&ufile->device->lists_mutex);
	ufile->async = async;
	mutex_unlock(&ufile->device->lists_mutex);
	/* Pairs with the acquire of commands: they see it complete. */
	smp_store_release(&ufile->ucontext, ucontext);
	fd_install(fd, async_filp);
	mutex_unlock(&ufile->ucontext_lock);
	return 0;

err_dealloc:
	ib_dev->ops.dealloc_ucontext(ucontext);
err_async:
	uverbs_async_file_put(async);
	fput(async_filp);
err_fd:
	put_unused_fd(fd);
err_free:
	rdma_restrack_put(&ucontext->res);
	kfree(ucontext);
out_unlock:
	mutex_unlock(&ufile->ucontext_lock);
	return ret;
}

/* ---- QUERY_DEVICE ---------------------------------------------------------- */

/* The legacy part of a device query, from the attributes @attr. */
static void uverbs_fill_device(struct ib_device *ib_dev,
			       const struct ib_device_attr *attr,
			       struct ib_uverbs_query_device_resp *resp)
{
	resp->fw_ver = attr->fw_ver;
	resp->node_guid = ib_dev->node_guid;
	resp->sys_image_guid = attr->sys_image_guid;
	resp->max_mr_size = attr->max_mr_size;
	resp->page_size_cap = attr->page_size_cap;
	resp->vendor_id = attr->vendor_id;
	resp->vendor_part_id = attr->vendor_part_id;
	resp->hw_ver = attr->hw_ver;
	resp->max_qp = attr->max_qp;
	resp->max_qp_wr = attr->max_qp_wr;
	/* The rest of the 64 bits only goes out in the extended answer. */
	resp->device_cap_flags = lower_32_bits(attr->device_cap_flags);
	resp->max_sge = min(attr->max_send_sge, attr->max_recv_sge);
	resp->max_sge_rd = attr->max_sge_rd;
	resp->max_cq = attr->max_cq;
	resp->max_cqe = attr->max_cqe;
	resp->max_mr = attr->max_mr;
	resp->max_pd = attr->max_pd;
	resp->max_qp_rd_atom = attr->max_qp_rd_atom;
	resp->max_ee_rd_atom = attr->max_ee_rd_atom;
	resp->max_res_rd_atom = attr->max_res_rd_atom;
	resp->max_qp_init_rd_atom = attr->max_qp_init_rd_atom;
	resp->max_ee_init_rd_atom = attr->max_ee_init_rd_atom;
	resp->atomic_cap = attr->atomic_cap;
	resp->max_ee = attr->max_ee;
	resp->max_rdd = attr->max_rdd;
	resp->max_mw = attr->max_mw;
	resp->max_raw_ipv6_qp = attr->max_raw_ipv6_qp;
	resp->max_raw_ethy_qp = attr->max_raw_ethy_qp;
	resp->max_mcast_grp = attr->max_mcast_grp;
	resp->max_mcast_qp_attach = attr->max_mcast_qp_attach;
	resp->max_total_mcast_qp_attach = attr->max_total_mcast_qp_attach;
	resp->max_ah = attr->max_ah;
	resp->max_srq = attr->max_srq;
	resp->max_srq_wr = attr->max_srq_wr;
	resp->max_srq_sge = attr->max_srq_sge;
	resp->max_pkeys = attr->max_pkeys;
	resp->local_ca_ack_delay = attr->local_ca_ack_delay;
	resp->phys_port_cnt = rdma_end_port(ib_dev);
}

/**
 * ib_uverbs_query_device() - legacy QUERY_DEVICE
 * @attrs: the command
 *
 * Answers from the attributes the core read at registration.
 *
 * Return: 0 or -EFAULT.
 */
int ib_uverbs_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_device_resp resp = {};

	uverbs_fill_device(attrs->ib_dev, &attrs->ib_dev->attrs, &resp);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/**
 * ib_uverbs_ex_query_device() - extended QUERY_DEVICE
 * @attrs: the command
 *
 * Asks the provider (with the driver data) and answers the whole
 * extended structure; response_length tells user space how much of it
 * arrived, which is what it made room for.
 *
 * Return: 0; -EINVAL for a non-zero comp_mask or reserved field; -EFAULT;
 * -EOPNOTSUPP for unknown request fields; the provider's error.
 */
int ib_uverbs_ex_query_device(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_query_device_resp resp = {};
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_ex_query_device cmd;
	struct ib_device_attr attr = {};
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

	uverbs_fill_device(ib_dev, &attr, &resp.base);
	resp.odp_caps.general_caps = attr.odp_caps.general_caps;
	resp.odp_caps.per_transport_caps.rc_odp_caps =
		attr.odp_caps.per_transport_caps.rc_odp_caps;
	resp.odp_caps.per_transport_caps.uc_odp_caps =
		attr.odp_caps.per_transport_caps.uc_odp_caps;
	resp.odp_caps.per_transport_caps.ud_odp_caps =
		attr.odp_caps.per_transport_caps.ud_odp_caps;
	resp.xrc_odp_caps = attr.odp_caps.per_transport_caps.xrc_odp_caps;
	resp.timestamp_mask = attr.timestamp_mask;
	resp.hca_core_clock = attr.hca_core_clock;
	resp.device_cap_flags_ex = attr.device_cap_flags;
	resp.rss_caps.supported_qpts = attr.rss_caps.supported_qpts;
	resp.rss_caps.max_rwq_indirection_tables =
		attr.rss_caps.max_rwq_indirection_tables;
	resp.rss_caps.max_rwq_indirection_table_size =
		attr.rss_caps.max_rwq_indirection_table_size;
	resp.max_wq_type_rq = attr.max_wq_type_rq;
	resp.raw_packet_caps = attr.raw_packet_caps;
	resp.tm_caps.max_rndv_hdr_size = attr.tm_caps.max_rndv_hdr_size;
	resp.tm_caps.max_num_tags = attr.tm_caps.max_num_tags;
	resp.tm_caps.flags = attr.tm_caps.flags;
	resp.tm_caps.max_ops = attr.tm_caps.max_ops;
	resp.tm_caps.max_sge = attr.tm_caps.max_sge;
	resp.cq_moderation_caps.max_cq_moderation_count =
		attr.cq_caps.max_cq_moderation_count;
	resp.cq_moderation_caps.max_cq_moderation_period =
		attr.cq_caps.max_cq_moderation_period;
	resp.max_dm_size = attr.max_dm_size;
	resp.response_length = min(attrs->core_out_len, sizeof(resp));
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ---- QUERY_PORT ------------------------------------------------------------ */

/**
 * ib_uverbs_query_port() - QUERY_PORT
 * @attrs: the command
 *
 * ib_query_port() passed through, with the IP-based-GIDs capability bit
 * and the GRH-required flag added, and the speed capped at NDR for
 * libraries that know no faster one.
 *
 * Return: 0; -EINVAL for a port the device does not have; -EFAULT; the
 * provider's error.
 */
int ib_uverbs_query_port(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_port_resp resp = {};
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_query_port cmd;
	struct ib_port_attr attr;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	ret = ib_query_port(ib_dev, cmd.port_num, &attr);
	if (ret) {
		ibdev_dbg(ib_dev, "uverbs: QUERY_PORT %u: %d\n", cmd.port_num,
			  ret);
		return ret;
	}

	resp.state = attr.state;
	resp.max_mtu = attr.max_mtu;
	resp.active_mtu = attr.active_mtu;
	resp.gid_tbl_len = attr.gid_tbl_len;
	resp.port_cap_flags = attr.port_cap_flags;
	if (attr.ip_gids)
		resp.port_cap_flags |= IB_UVERBS_PCF_IP_BASED_GIDS;
	resp.max_msg_sz = attr.max_msg_sz;
	resp.bad_pkey_cntr = attr.bad_pkey_cntr;
	resp.qkey_viol_cntr = attr.qkey_viol_cntr;
	resp.pkey_tbl_len = attr.pkey_tbl_len;
	resp.lid = attr.lid;
	resp.sm_lid = attr.sm_lid;
	resp.lmc = attr.lmc;
	resp.max_vl_num = attr.max_vl_num;
	resp.sm_sl = attr.sm_sl;
	resp.subnet_timeout = attr.subnet_timeout;
	resp.init_type_reply = attr.init_type_reply;
	resp.active_width = attr.active_width;
	resp.active_speed = min_t(u16, attr.active_speed, IB_SPEED_NDR);
	resp.phys_state = attr.phys_state;
	resp.link_layer = rdma_port_get_link_layer(ib_dev, cmd.port_num);
	if (rdma_is_grh_required(ib_dev, cmd.port_num))
		resp.flags |= IB_UVERBS_QPF_GRH_REQUIRED;
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

/**
 * ib_uverbs_alloc_pd() - ALLOC_PD
 * @attrs: the command
 *
 * Return: 0; -ENOMEM; -EFAULT; the provider's error.
 */
int ib_uverbs_alloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_alloc_pd_resp resp = {};
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uobject *uobj;
	struct ib_pd *pd;
	int ret;

	uobj = uobj_alloc(attrs->ufile, &uverbs_type_pd);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);

	pd = rdma_zalloc_drv_obj(ib_dev, ib_pd);
	if (!pd) {
		ret = -ENOMEM;
		goto err_uobj;
	}
	pd->device = ib_dev;
	pd->uobject = uobj;
	atomic_set(&pd->usecnt, 0);
	rdma_restrack_new(&pd->res, RDMA_RESTRACK_PD);
	rdma_restrack_set_name(&pd->res, NULL);
	ret = ib_dev->ops.alloc_pd(pd, &attrs->driver_udata);
	if (ret) {
		ibdev_dbg(ib_dev, "uverbs: alloc_pd failed: %d\n", ret);
		rdma_restrack_put(&pd->res);
		kfree(pd);
		goto err_uobj;
	}
	rdma_restrack_add(&pd->res);
	uobj->object = pd;

	resp.pd_handle = uobj->id;
	ret = uverbs_response(attrs, &resp, sizeof(resp));
	if (ret) {
		WARN_ON(uverbs_destroy_pd(uobj, RDMA_REMOVE_ABORT));
		goto err_uobj;
	}
	uobj_commit(uobj);
	return 0;

err_uobj:
	uobj_abort(uobj);
	return ret;
}

/**
 * ib_uverbs_dealloc_pd() - DEALLOC_PD
 * @attrs: the command
 *
 * Return: 0; -ENOENT for an unknown handle, -EINVAL for a handle of
 * another type, -EBUSY while the PD is in use; -EFAULT; the provider's
 * error.
 */
int ib_uverbs_dealloc_pd(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_dealloc_pd cmd;
	int ret;

	ret = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (ret)
		return ret;
	return uobj_destroy(attrs->ufile, &uverbs_type_pd, cmd.pd_handle);
}
