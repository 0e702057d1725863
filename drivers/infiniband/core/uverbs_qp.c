// SPDX-License-Identifier: GPL-2.0
/*
 * Queue pairs of user processes: CREATE_QP and MODIFY_QP (legacy and
 * extended), QUERY_QP, DESTROY_QP, POST_SEND as the doorbell of a send
 * queue user space fills itself, and ATTACH_MCAST/DETACH_MCAST.
 *
 * A user QP's uobject is a struct ib_uqp_object.  The QP is made by
 * ib_create_qp_user(), which checks the request, counts the QP in the
 * usecnt of its PD, CQs and SRQ if it has one (DEALLOC_PD, DESTROY_CQ and
 * DESTROY_SRQ then refuse with -EBUSY until the QP is gone) and lists it
 * in resource tracking as the current task's.  While the provider works,
 * the PD, CQs and SRQ are held shared, so no other command can destroy
 * them meanwhile.
 *
 * The QP's asynchronous events (fatal and access errors, communication
 * established, SQ drained, path migration, last WQE reached) go to the
 * file's async event fd with the user_handle given at creation as their
 * element.  DESTROY_QP answers with the number of them user space has
 * read; those it has not read are discarded.  The handler may run in any
 * context: each kind of event has its entry in the object
 * (struct uverbs_obj_events), so nothing is allocated there.
 *
 * The multicast groups a QP joined are listed in its uobject: joining a
 * group twice is joining it once, leaving a group the QP is not in is
 * -EINVAL, and DESTROY_QP of a QP still in a group is -EBUSY, as stock
 * Linux answers; closing the file (or device removal) makes the QP leave
 * its groups before it is destroyed.
 *
 * A handle that names nothing is -ENOENT, one that names an object of
 * another type -EINVAL, one whose object is being destroyed -EBUSY, in
 * every command, as stock Linux answers.
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
#include <linux/capability.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

/**
 * struct ib_uqp_object - the uobject of a user QP
 * @uobj: the uobject (first member; see uverbs_api_object.obj_size)
 * @events: the QP's asynchronous events; their reported count stays
 *	readable after the QP is destroyed, for DESTROY_QP's answer
 * @mcast_lock: protects @mcast against concurrent ATTACH/DETACH_MCAST
 *	(a destroy holds the QP alone and needs no lock)
 * @mcast: struct uverbs_mcast, the groups the QP joined
 */
struct ib_uqp_object {
	struct ib_uobject		uobj;
	struct uverbs_obj_events	events;
	struct mutex			mcast_lock;	/* @mcast */
	struct list_head		mcast;
};

/**
 * struct uverbs_mcast - a multicast group a user QP joined
 * @list: in the QP's @mcast
 * @gid: the group's GID
 * @lid: the LID user space gave with it
 */
struct uverbs_mcast {
	struct list_head	list;
	union ib_gid		gid;
	u16			lid;
};

/* Leave every group, before close or removal destroys the QP. */
static void uverbs_mcast_leave_all(struct ib_uqp_object *uqp,
				   struct ib_qp *qp)
{
	struct uverbs_mcast *m, *next;
	int ret;

	list_for_each_entry_safe(m, next, &uqp->mcast, list) {
		ret = ib_detach_mcast(qp, &m->gid, m->lid);
		if (ret)
			ibdev_dbg(qp->device,
				  "uverbs: QP %#x cannot leave %pI6: %d\n",
				  qp->qp_num, m->gid.raw, ret);
		list_del(&m->list);
		kfree(m);
	}
}

/*
 * The provider reports an asynchronous event of the QP (core/verbs.c
 * passes it on), in any context.  These are the 8 kinds a QP has
 * (UVERBS_OBJ_EVENT_KINDS); the numbers are user space's too.
 */
static void uverbs_qp_event_handler(struct ib_event *event, void *context)
{
	struct ib_uqp_object *uqp = context;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_COMM_EST:
	case IB_EVENT_SQ_DRAINED:
	case IB_EVENT_PATH_MIG:
	case IB_EVENT_PATH_MIG_ERR:
	case IB_EVENT_QP_LAST_WQE_REACHED:
		uverbs_obj_event(&uqp->events, event->event);
		break;
	default:
		/* Not a QP's, so the element may not even be a QP. */
		ibdev_dbg(event->device,
			  "uverbs: event %d for QP handle %u is no QP event, dropped\n",
			  event->event, uqp->uobj.id);
		break;
	}
}

static int uverbs_destroy_qp(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	struct ib_uqp_object *uqp = container_of(uobj, struct ib_uqp_object,
						 uobj);
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};
	int ret;

	if (!list_empty(&uqp->mcast)) {
		if (why == RDMA_REMOVE_DESTROY) {
			ibdev_dbg(uobj->context->device,
				  "uverbs: DESTROY_QP of handle %u: still in a multicast group\n",
				  uobj->id);
			return -EBUSY;
		}
		uverbs_mcast_leave_all(uqp, uobj->object);
	}
	ret = ib_destroy_qp_user(uobj->object, &udata);
	if (ret)
		return ret;
	/* No event handler runs any more: the events can be withdrawn. */
	uverbs_obj_events_withdraw(&uqp->events);
	mutex_destroy(&uqp->mcast_lock);
	return 0;
}

const struct uverbs_api_object uverbs_type_qp = {
	.name		= "QP",
	.obj_size	= sizeof(struct ib_uqp_object),
	.destroy	= uverbs_destroy_qp,
};

/*
 * The object under @handle for a command that uses it, shared; the
 * errors of uobj_get_shared().
 */
static struct ib_uobject *uverbs_qp_use(struct uverbs_attr_bundle *attrs,
					const struct uverbs_api_object *type,
					u32 handle, const char *cmd)
{
	struct ib_uobject *uobj = uobj_get_shared(attrs->ufile, type, handle);

	if (IS_ERR(uobj))
		ibdev_dbg(attrs->ib_dev,
			  "uverbs: %s: handle %u is no usable %s: %ld\n", cmd,
			  handle, type->name, PTR_ERR(uobj));
	return uobj;
}

/* ---- CREATE_QP ------------------------------------------------------------ */

/* The create flags an extended CREATE_QP may name (the ABI's). */
#define UVERBS_QP_CREATE_FLAGS						\
	(IB_QP_CREATE_BLOCK_MULTICAST_LOOPBACK |			\
	 IB_QP_CREATE_CROSS_CHANNEL | IB_QP_CREATE_MANAGED_SEND |	\
	 IB_QP_CREATE_MANAGED_RECV | IB_QP_CREATE_SCATTER_FCS |		\
	 IB_QP_CREATE_CVLAN_STRIPPING | IB_QP_CREATE_SOURCE_QPN |	\
	 IB_QP_CREATE_PCI_WRITE_END_PADDING)

/*
 * What CREATE_QP checks before it looks at any handle: a type this core
 * makes for user space (RC, UC, UD), known create flags and the
 * privilege some ask for.  Whether the device can honour the flags is
 * the provider's to say.
 */
static int uverbs_create_qp_check(struct ib_device *ib_dev,
				  const struct ib_uverbs_ex_create_qp *cmd)
{
	switch (cmd->qp_type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	case IB_QPT_RAW_PACKET:
		if (!capable(CAP_NET_RAW)) {
			ibdev_dbg(ib_dev,
				  "uverbs: CREATE_QP: a raw packet QP needs CAP_NET_RAW\n");
			return -EPERM;
		}
		fallthrough;
	case IB_QPT_RAW_IPV6:
	case IB_QPT_RAW_ETHERTYPE:
	case IB_QPT_XRC_INI:
	case IB_QPT_XRC_TGT:
		/* XRC needs XRC domains, raw QPs flows: none here. */
		ibdev_dbg(ib_dev, "uverbs: CREATE_QP of type %u not supported\n",
			  cmd->qp_type);
		return -EOPNOTSUPP;
	default:
		/* The special QPs are the kernel's; the rest is no type. */
		ibdev_dbg(ib_dev, "uverbs: CREATE_QP of type %u refused\n",
			  cmd->qp_type);
		return -EINVAL;
	}
	if (cmd->create_flags & ~UVERBS_QP_CREATE_FLAGS) {
		ibdev_dbg(ib_dev, "uverbs: CREATE_QP with unknown flags %#x\n",
			  cmd->create_flags & ~UVERBS_QP_CREATE_FLAGS);
		return -EINVAL;
	}
	if ((cmd->create_flags & IB_QP_CREATE_SOURCE_QPN) &&
	    !capable(CAP_NET_RAW)) {
		ibdev_dbg(ib_dev,
			  "uverbs: CREATE_QP: a source QPN needs CAP_NET_RAW\n");
		return -EPERM;
	}
	return 0;
}

/*
 * The objects a new QP is made on, held shared while it is made; @rcq is
 * NULL when the receive CQ is the send CQ, @srq when there is no SRQ.
 */
struct uverbs_qp_parents {
	struct ib_uobject	*pd;
	struct ib_uobject	*scq;
	struct ib_uobject	*rcq;
	struct ib_uobject	*srq;
};

static void uverbs_qp_parents_put(struct uverbs_qp_parents *p)
{
	if (p->srq)
		uobj_put_shared(p->srq);
	if (p->rcq)
		uobj_put_shared(p->rcq);
	if (p->scq)
		uobj_put_shared(p->scq);
	if (p->pd)
		uobj_put_shared(p->pd);
}

static int uverbs_qp_parents_get(struct uverbs_attr_bundle *attrs,
				 const struct ib_uverbs_ex_create_qp *cmd,
				 struct uverbs_qp_parents *p)
{
	int err;

	*p = (struct uverbs_qp_parents) {};
	p->pd = uverbs_qp_use(attrs, &uverbs_type_pd, cmd->pd_handle,
			      "CREATE_QP");
	if (IS_ERR(p->pd))
		goto fail;
	p->scq = uverbs_qp_use(attrs, &uverbs_type_cq, cmd->send_cq_handle,
			       "CREATE_QP");
	if (IS_ERR(p->scq))
		goto fail;
	if (cmd->recv_cq_handle != cmd->send_cq_handle) {
		p->rcq = uverbs_qp_use(attrs, &uverbs_type_cq,
				       cmd->recv_cq_handle, "CREATE_QP");
		if (IS_ERR(p->rcq))
			goto fail;
	}
	if (cmd->is_srq) {
		p->srq = uverbs_qp_use(attrs, &uverbs_type_srq,
				       cmd->srq_handle, "CREATE_QP");
		if (IS_ERR(p->srq))
			goto fail;
	}
	return 0;

fail:
	/* The failed lookup's slot holds its error; the others their object. */
	if (IS_ERR(p->pd)) {
		err = PTR_ERR(p->pd);
		p->pd = NULL;
	} else if (IS_ERR(p->scq)) {
		err = PTR_ERR(p->scq);
		p->scq = NULL;
	} else if (IS_ERR(p->rcq)) {
		err = PTR_ERR(p->rcq);
		p->rcq = NULL;
	} else {
		err = PTR_ERR(p->srq);
		p->srq = NULL;
	}
	uverbs_qp_parents_put(p);
	return err;
}

/* A QP from the provider for @uqp, on @p; or an ERR_PTR. */
static struct ib_qp *uverbs_qp_create(struct uverbs_attr_bundle *attrs,
				      struct ib_uqp_object *uqp,
				      const struct uverbs_qp_parents *p,
				      const struct ib_uverbs_ex_create_qp *cmd,
				      struct ib_qp_cap *cap)
{
	struct ib_qp_init_attr init = {
		.event_handler = uverbs_qp_event_handler,
		.qp_context = uqp,
		.send_cq = p->scq->object,
		.recv_cq = (p->rcq ?: p->scq)->object,
		.srq = p->srq ? p->srq->object : NULL,
		.cap = {
			.max_send_wr = cmd->max_send_wr,
			.max_recv_wr = cmd->max_recv_wr,
			.max_send_sge = cmd->max_send_sge,
			.max_recv_sge = cmd->max_recv_sge,
			.max_inline_data = cmd->max_inline_data,
		},
		.sq_sig_type = cmd->sq_sig_all ? IB_SIGNAL_ALL_WR :
						 IB_SIGNAL_REQ_WR,
		.qp_type = cmd->qp_type,
		.create_flags = cmd->create_flags,
	};
	struct ib_qp *qp;

	if (cmd->create_flags & IB_QP_CREATE_SOURCE_QPN)
		init.source_qpn = cmd->source_qpn;
	qp = ib_create_qp_user(p->pd->object, &init, &attrs->driver_udata,
			       uqp);
	if (IS_ERR(qp)) {
		ibdev_dbg(attrs->ib_dev, "uverbs: CREATE_QP failed: %ld\n",
			  PTR_ERR(qp));
		return qp;
	}
	/* What the provider made, which may be more than was asked. */
	*cap = init.cap;
	return qp;
}

/*
 * CREATE_QP in both forms, @cmd in the extended layout: the new QP's
 * handle, number and actual sizes in @resp.  Everything but writing the
 * response is done; *@uobjp is the uncommitted uobject.
 */
static int uverbs_create_qp(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_ex_create_qp *cmd,
			    struct ib_uverbs_create_qp_resp *resp,
			    struct ib_uobject **uobjp)
{
	struct uverbs_qp_parents parents;
	struct ib_uqp_object *uqp;
	struct ib_uobject *uobj;
	struct ib_qp_cap cap;
	struct ib_qp *qp;
	int err;

	err = uverbs_create_qp_check(attrs->ib_dev, cmd) ?:
	      uverbs_qp_parents_get(attrs, cmd, &parents);
	if (err)
		return err;
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_qp);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_parents;
	}
	uqp = container_of(uobj, struct ib_uqp_object, uobj);
	uobj->user_handle = cmd->user_handle;
	uverbs_obj_events_init(&uqp->events, attrs->ufile->async,
			       cmd->user_handle);
	mutex_init(&uqp->mcast_lock);
	INIT_LIST_HEAD(&uqp->mcast);

	qp = uverbs_qp_create(attrs, uqp, &parents, cmd, &cap);
	if (IS_ERR(qp)) {
		err = PTR_ERR(qp);
		uverbs_obj_events_withdraw(&uqp->events);
		uobj_abort(uobj);
		goto put_parents;
	}
	uobj->object = qp;

	resp->qp_handle = uobj->id;
	resp->qpn = qp->qp_num;
	resp->max_send_wr = cap.max_send_wr;
	resp->max_recv_wr = cap.max_recv_wr;
	resp->max_send_sge = cap.max_send_sge;
	resp->max_recv_sge = cap.max_recv_sge;
	resp->max_inline_data = cap.max_inline_data;
	*uobjp = uobj;
put_parents:
	uverbs_qp_parents_put(&parents);
	return err;
}

/**
 * uverbs_cmd_create_qp() - CREATE_QP (legacy)
 * @attrs: the command
 *
 * The driver data following the request goes to the provider, and its
 * answer follows the core response.
 *
 * Return: 0; -EOPNOTSUPP for raw and XRC QPs; -EPERM for a raw packet QP
 * without CAP_NET_RAW; -EINVAL for any other type but RC, UC and UD, or
 * sizes above the device's limits; -ENOENT, -EINVAL or -EBUSY for the PD,
 * CQ and SRQ (with is_srq) handles as uobj_get_shared() says; -ENOMEM;
 * -EFAULT; the provider's error.
 */
int uverbs_cmd_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp ex;
	struct ib_uverbs_create_qp cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	ex = (struct ib_uverbs_ex_create_qp) {
		.user_handle = cmd.user_handle,
		.pd_handle = cmd.pd_handle,
		.send_cq_handle = cmd.send_cq_handle,
		.recv_cq_handle = cmd.recv_cq_handle,
		.srq_handle = cmd.srq_handle,
		.max_send_wr = cmd.max_send_wr,
		.max_recv_wr = cmd.max_recv_wr,
		.max_send_sge = cmd.max_send_sge,
		.max_recv_sge = cmd.max_recv_sge,
		.max_inline_data = cmd.max_inline_data,
		.sq_sig_all = cmd.sq_sig_all,
		.qp_type = cmd.qp_type,
		.is_srq = cmd.is_srq,
	};
	err = uverbs_create_qp(attrs, &ex, &resp, &uobj);
	return err ?: uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_ex_create_qp() - CREATE_QP (extended)
 * @attrs: the command
 *
 * Return: as uverbs_cmd_create_qp(); -EINVAL for unknown comp_mask or
 * create_flags bits, a non-zero reserved field, or a WQ indirection table
 * (none exist here); -EPERM for a source QPN without CAP_NET_RAW; flags
 * the device cannot honour give the provider's error.
 */
int uverbs_cmd_ex_create_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_qp_resp resp = {};
	struct ib_uverbs_ex_create_qp cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if ((cmd.comp_mask & ~IB_UVERBS_CREATE_QP_SUP_COMP_MASK) ||
	    cmd.reserved) {
		ibdev_dbg(attrs->ib_dev,
			  "uverbs: ex CREATE_QP comp_mask %#x reserved %#x\n",
			  cmd.comp_mask, cmd.reserved);
		return -EINVAL;
	}
	if (cmd.comp_mask & IB_UVERBS_CREATE_QP_MASK_IND_TABLE) {
		/* No command makes WQ indirection tables: no handle names one. */
		ibdev_dbg(attrs->ib_dev,
			  "uverbs: ex CREATE_QP: handle %u is no WQ indirection table\n",
			  cmd.rwq_ind_tbl_handle);
		return -EINVAL;
	}
	err = uverbs_create_qp(attrs, &cmd, &resp.base, &uobj);
	if (err)
		return err;
	resp.response_length = min(sizeof(resp), attrs->core_out_len);
	return uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
}

/* ---- MODIFY_QP and QUERY_QP -------------------------------------------- */

/* The kernel's form of a path a user gives, for a valid port. */
static void uverbs_qp_dest_from_user(struct ib_device *ib_dev,
				     const struct ib_uverbs_qp_dest *dest,
				     struct rdma_ah_attr *attr)
{
	struct ib_uverbs_ah_attr u = {
		.grh = {
			.flow_label = dest->flow_label,
			.sgid_index = dest->sgid_index,
			.hop_limit = dest->hop_limit,
			.traffic_class = dest->traffic_class,
		},
		.dlid = dest->dlid,
		.sl = dest->sl,
		.src_path_bits = dest->src_path_bits,
		.static_rate = dest->static_rate,
		.is_global = dest->is_global,
		.port_num = dest->port_num,
	};

	memcpy(u.grh.dgid, dest->dgid, sizeof(u.grh.dgid));
	uverbs_ah_attr_from_user(ib_dev, &u, attr);
}

/* The ABI's form of a path of the QP. */
static void uverbs_qp_dest_to_user(const struct rdma_ah_attr *attr,
				   struct ib_uverbs_qp_dest *dest)
{
	const struct ib_global_route *grh = rdma_ah_read_grh(attr);

	*dest = (struct ib_uverbs_qp_dest) {
		.dlid = rdma_ah_get_dlid(attr),
		.sl = rdma_ah_get_sl(attr),
		.src_path_bits = rdma_ah_get_path_bits(attr),
		.static_rate = rdma_ah_get_static_rate(attr),
		.is_global = !!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH),
		.port_num = rdma_ah_get_port_num(attr),
	};
	if (!dest->is_global)
		return;
	memcpy(dest->dgid, grh->dgid.raw, sizeof(dest->dgid));
	dest->flow_label = grh->flow_label;
	dest->sgid_index = grh->sgid_index;
	dest->hop_limit = grh->hop_limit;
	dest->traffic_class = grh->traffic_class;
}

/*
 * What MODIFY_QP checks before the QP: attribute bits this kernel knows
 * (@known), states that exist, ports the device has, and an alternate
 * path whose two port numbers agree.  Whether the transition and its
 * attributes are legal is the provider's to say.
 */
static int uverbs_modify_qp_check(struct ib_device *ib_dev,
				  const struct ib_uverbs_modify_qp *cmd,
				  u32 known)
{
	if (cmd->attr_mask & ~known) {
		ibdev_dbg(ib_dev, "uverbs: MODIFY_QP with unknown attributes %#x\n",
			  cmd->attr_mask & ~known);
		return -EOPNOTSUPP;
	}
	if (((cmd->attr_mask & IB_QP_STATE) && cmd->qp_state > IB_QPS_ERR) ||
	    ((cmd->attr_mask & IB_QP_CUR_STATE) &&
	     cmd->cur_qp_state > IB_QPS_ERR)) {
		ibdev_dbg(ib_dev, "uverbs: MODIFY_QP to state %u from %u\n",
			  cmd->qp_state, cmd->cur_qp_state);
		return -EINVAL;
	}
	if (((cmd->attr_mask & IB_QP_PORT) &&
	     !rdma_is_port_valid(ib_dev, cmd->port_num)) ||
	    ((cmd->attr_mask & IB_QP_AV) &&
	     !rdma_is_port_valid(ib_dev, cmd->dest.port_num))) {
		ibdev_dbg(ib_dev, "uverbs: MODIFY_QP on port %u, path on port %u\n",
			  cmd->port_num, cmd->dest.port_num);
		return -EINVAL;
	}
	if ((cmd->attr_mask & IB_QP_ALT_PATH) &&
	    (!rdma_is_port_valid(ib_dev, cmd->alt_port_num) ||
	     cmd->alt_dest.port_num != cmd->alt_port_num)) {
		ibdev_dbg(ib_dev,
			  "uverbs: MODIFY_QP alternate path on ports %u and %u\n",
			  cmd->alt_port_num, cmd->alt_dest.port_num);
		return -EINVAL;
	}
	return 0;
}

/* The kernel's attributes from a checked MODIFY_QP. */
static void uverbs_qp_attr_from_user(struct ib_device *ib_dev,
				     const struct ib_uverbs_ex_modify_qp *cmd,
				     struct ib_qp_attr *attr)
{
	const struct ib_uverbs_modify_qp *b = &cmd->base;

	*attr = (struct ib_qp_attr) {
		/* state and path */
		.qp_state = b->qp_state,
		.cur_qp_state = b->cur_qp_state,
		.path_mtu = b->path_mtu,
		.path_mig_state = b->path_mig_state,
		.port_num = b->port_num,
		.pkey_index = b->pkey_index,
		.alt_port_num = b->alt_port_num,
		.alt_pkey_index = b->alt_pkey_index,
		.alt_timeout = b->alt_timeout,
		/* the remote side and what it may do */
		.qkey = b->qkey,
		.dest_qp_num = b->dest_qp_num,
		.qp_access_flags = b->qp_access_flags,
		.max_rd_atomic = b->max_rd_atomic,
		.max_dest_rd_atomic = b->max_dest_rd_atomic,
		/* sequence numbers, timers and retries */
		.rq_psn = b->rq_psn,
		.sq_psn = b->sq_psn,
		.min_rnr_timer = b->min_rnr_timer,
		.timeout = b->timeout,
		.retry_cnt = b->retry_cnt,
		.rnr_retry = b->rnr_retry,
		.en_sqd_async_notify = b->en_sqd_async_notify,
		.rate_limit = cmd->rate_limit,
	};
	if (b->attr_mask & IB_QP_AV)
		uverbs_qp_dest_from_user(ib_dev, &b->dest, &attr->ah_attr);
	if (b->attr_mask & IB_QP_ALT_PATH)
		uverbs_qp_dest_from_user(ib_dev, &b->alt_dest,
					 &attr->alt_ah_attr);
}

/*
 * MODIFY_QP in both forms, @cmd in the extended layout, with the
 * attribute bits @known.  ib_modify_qp_with_udata() resolves the RoCE
 * destination MAC of a connected QP's path, as for user AHs.
 */
static int uverbs_modify_qp(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_ex_modify_qp *cmd, u32 known)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uobject *uobj;
	struct ib_qp_attr attr;
	int err;

	err = uverbs_modify_qp_check(ib_dev, &cmd->base, known);
	if (err)
		return err;
	uobj = uverbs_qp_use(attrs, &uverbs_type_qp, cmd->base.qp_handle,
			     "MODIFY_QP");
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uverbs_qp_attr_from_user(ib_dev, cmd, &attr);
	err = ib_modify_qp_with_udata(uobj->object, &attr, cmd->base.attr_mask,
				      &attrs->driver_udata);
	uobj_put_shared(uobj);
	if (err)
		ibdev_dbg(ib_dev, "uverbs: MODIFY_QP (mask %#x) failed: %d\n",
			  cmd->base.attr_mask, err);
	return err;
}

/**
 * uverbs_cmd_modify_qp() - MODIFY_QP (legacy)
 * @attrs: the command
 *
 * No driver data comes with it: the provider gets an empty one.
 *
 * Return: 0; -EOPNOTSUPP for attribute bits beyond the standard ones (as
 * stock Linux answers); -EINVAL for a state that does not exist, a port
 * the device lacks, or what the provider refuses; -ENOENT, -EINVAL or
 * -EBUSY for the handle as uobj_get_shared() says; the errors of address
 * resolution; -EFAULT.
 */
int uverbs_cmd_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp cmd = {};
	int err;

	err = uverbs_request(attrs, &cmd.base, sizeof(cmd.base));
	return err ?: uverbs_modify_qp(attrs, &cmd, IB_QP_ATTR_STANDARD_BITS);
}

/**
 * uverbs_cmd_ex_modify_qp() - MODIFY_QP (extended)
 * @attrs: the command
 *
 * Adds the rate limit (IB_QP_RATE_LIMIT) and driver data both ways; the
 * response is cut to the room user space gave.
 *
 * Return: as uverbs_cmd_modify_qp(), and -EINVAL for a non-zero reserved
 * field.
 */
int uverbs_cmd_ex_modify_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_modify_qp_resp resp = {};
	struct ib_uverbs_ex_modify_qp cmd;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (cmd.reserved) {
		ibdev_dbg(attrs->ib_dev, "uverbs: ex MODIFY_QP reserved %#x\n",
			  cmd.reserved);
		return -EINVAL;
	}
	err = uverbs_modify_qp(attrs, &cmd,
			       IB_QP_ATTR_STANDARD_BITS | IB_QP_RATE_LIMIT);
	if (err)
		return err;
	resp.response_length = min(sizeof(resp), attrs->core_out_len);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* The answer to QUERY_QP from what the provider said. */
static void uverbs_query_qp_fill(const struct ib_qp_attr *attr,
				 const struct ib_qp_init_attr *init,
				 struct ib_uverbs_query_qp_resp *resp)
{
	*resp = (struct ib_uverbs_query_qp_resp) {
		/* sizes and signalling, as created */
		.max_send_wr = init->cap.max_send_wr,
		.max_recv_wr = init->cap.max_recv_wr,
		.max_send_sge = init->cap.max_send_sge,
		.max_recv_sge = init->cap.max_recv_sge,
		.max_inline_data = init->cap.max_inline_data,
		.sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR,
		/* state and path */
		.qp_state = attr->qp_state,
		.cur_qp_state = attr->cur_qp_state,
		.path_mtu = attr->path_mtu,
		.path_mig_state = attr->path_mig_state,
		.sq_draining = attr->sq_draining,
		.port_num = attr->port_num,
		.pkey_index = attr->pkey_index,
		.alt_port_num = attr->alt_port_num,
		.alt_pkey_index = attr->alt_pkey_index,
		.alt_timeout = attr->alt_timeout,
		/* the remote side and what it may do */
		.qkey = attr->qkey,
		.dest_qp_num = attr->dest_qp_num,
		.qp_access_flags = attr->qp_access_flags,
		.max_rd_atomic = attr->max_rd_atomic,
		.max_dest_rd_atomic = attr->max_dest_rd_atomic,
		/* sequence numbers, timers and retries */
		.rq_psn = attr->rq_psn,
		.sq_psn = attr->sq_psn,
		.min_rnr_timer = attr->min_rnr_timer,
		.timeout = attr->timeout,
		.retry_cnt = attr->retry_cnt,
		.rnr_retry = attr->rnr_retry,
	};
	uverbs_qp_dest_to_user(&attr->ah_attr, &resp->dest);
	uverbs_qp_dest_to_user(&attr->alt_ah_attr, &resp->alt_dest);
}

/**
 * uverbs_cmd_query_qp() - QUERY_QP
 * @attrs: the command
 *
 * attr_mask is passed to the provider as the attributes wanted.
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY for the handle as
 * uobj_get_shared() says; -EFAULT; the provider's error.
 */
int uverbs_cmd_query_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_qp_resp resp;
	struct ib_uverbs_query_qp cmd;
	struct ib_qp_init_attr init = {};
	struct ib_qp_attr attr = {};
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uverbs_qp_use(attrs, &uverbs_type_qp, cmd.qp_handle,
			     "QUERY_QP");
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	err = ib_query_qp(uobj->object, &attr, cmd.attr_mask, &init);
	uobj_put_shared(uobj);
	if (err) {
		ibdev_dbg(attrs->ib_dev, "uverbs: QUERY_QP failed: %d\n", err);
		return err;
	}
	uverbs_query_qp_fill(&attr, &init, &resp);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/* ---- DESTROY_QP and POST_SEND ------------------------------------------ */

/**
 * uverbs_cmd_destroy_qp() - DESTROY_QP
 * @attrs: the command
 *
 * The response counts the QP's asynchronous events user space read from
 * the async event fd; those it did not read are discarded.
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY as uobj_destroy_hold() says;
 * -EFAULT; the provider's error.
 */
int uverbs_cmd_destroy_qp(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_qp_resp resp = {};
	struct ib_uverbs_destroy_qp cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uobj_destroy_hold(attrs->ufile, &uverbs_type_qp, cmd.qp_handle);
	if (IS_ERR(uobj)) {
		ibdev_dbg(attrs->ib_dev, "uverbs: DESTROY_QP of handle %u: %ld\n",
			  cmd.qp_handle, PTR_ERR(uobj));
		return PTR_ERR(uobj);
	}
	resp.events_reported =
		container_of(uobj, struct ib_uqp_object, uobj)->events.reported;
	uobj_release_hold(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_post_send() - POST_SEND: the doorbell of a user send queue
 * @attrs: the command
 *
 * The only POST_SEND our providers' libraries send is librxe's doorbell:
 * no work request (wr_count and sge_count 0), for a send queue user space
 * filled in a ring it shares with the kernel.  The provider's post_send()
 * is called with no work request, which tells it to look at that ring.
 * Work requests carried in the command itself are for providers whose
 * library posts through the kernel; none of ours does, so they are
 * refused rather than parsed.  bad_wr is always 0.
 *
 * Return: 0; -EINVAL for work requests in the command, or a QP the
 * provider cannot send on yet (rxe: below RTS); -ENOENT, -EINVAL or
 * -EBUSY for the handle as uobj_get_shared() says; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_post_send(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_post_send_resp resp = {};
	const struct ib_send_wr *bad = NULL;
	struct ib_uverbs_post_send cmd;
	struct ib_uobject *uobj;
	struct ib_qp *qp;
	int err, ret;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (cmd.wr_count || cmd.sge_count) {
		ibdev_dbg(attrs->ib_dev,
			  "uverbs: POST_SEND with %u WRs, %u SGEs: work requests in the command are not supported\n",
			  cmd.wr_count, cmd.sge_count);
		return -EINVAL;
	}
	uobj = uverbs_qp_use(attrs, &uverbs_type_qp, cmd.qp_handle,
			     "POST_SEND");
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	qp = uobj->object;
	ret = ib_core_call_opt(qp->device->ops.post_send, qp, NULL, &bad);
	if (ret)
		ibdev_dbg(attrs->ib_dev, "uverbs: POST_SEND on QP %#x: %d\n",
			  qp->qp_num, ret);
	uobj_put_shared(uobj);
	/* As stock: the response is written whatever the provider said. */
	err = uverbs_response(attrs, &resp, sizeof(resp));
	return ret ?: err;
}

/* ---- ATTACH_MCAST and DETACH_MCAST -------------------------------------- */

static struct uverbs_mcast *uverbs_mcast_find(struct ib_uqp_object *uqp,
					      const union ib_gid *gid, u16 lid)
{
	struct uverbs_mcast *m;

	list_for_each_entry(m, &uqp->mcast, list)
		if (m->lid == lid && !memcmp(m->gid.raw, gid->raw, sizeof(*gid)))
			return m;
	return NULL;
}

/* @join: ATTACH_MCAST; DETACH_MCAST otherwise (the same request layout). */
static int uverbs_mcast_cmd(struct uverbs_attr_bundle *attrs, bool join)
{
	const char *name = join ? "ATTACH_MCAST" : "DETACH_MCAST";
	struct ib_uverbs_attach_mcast cmd;
	struct ib_uqp_object *uqp;
	struct uverbs_mcast *m;
	struct ib_uobject *uobj;
	union ib_gid gid;
	int err;

	BUILD_BUG_ON(sizeof(struct ib_uverbs_attach_mcast) !=
		     sizeof(struct ib_uverbs_detach_mcast));
	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (cmd.reserved) {
		ibdev_dbg(attrs->ib_dev, "uverbs: %s with reserved %#x\n",
			  name, cmd.reserved);
		return -EINVAL;
	}
	uobj = uverbs_qp_use(attrs, &uverbs_type_qp, cmd.qp_handle, name);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uqp = container_of(uobj, struct ib_uqp_object, uobj);
	memcpy(gid.raw, cmd.gid, sizeof(gid.raw));

	mutex_lock(&uqp->mcast_lock);
	m = uverbs_mcast_find(uqp, &gid, cmd.mlid);
	if (join && !m) {
		m = kmalloc(sizeof(*m), GFP_KERNEL);
		err = m ? ib_attach_mcast(uobj->object, &gid, cmd.mlid) :
			  -ENOMEM;
		if (!err) {
			m->gid = gid;
			m->lid = cmd.mlid;
			list_add_tail(&m->list, &uqp->mcast);
		} else {
			kfree(m);
		}
	} else if (!join && m) {
		err = ib_detach_mcast(uobj->object, &gid, cmd.mlid);
		if (!err) {
			list_del(&m->list);
			kfree(m);
		}
	} else if (!join) {
		err = -EINVAL;
	}
	mutex_unlock(&uqp->mcast_lock);
	if (err)
		ibdev_dbg(attrs->ib_dev, "uverbs: %s of QP handle %u, %pI6: %d\n",
			  name, cmd.qp_handle, gid.raw, err);
	uobj_put_shared(uobj);
	return err;
}

/**
 * uverbs_cmd_attach_mcast() - ATTACH_MCAST: a UD QP joins a group
 * @attrs: the command
 *
 * Return: 0, also for a group the QP is in already; -EINVAL for reserved
 * bytes, a GID that is not multicast or a QP that is not UD;
 * -ENOENT, -EINVAL or -EBUSY for the handle as uobj_get_shared() says;
 * -ENOMEM; the provider's error.
 */
int uverbs_cmd_attach_mcast(struct uverbs_attr_bundle *attrs)
{
	return uverbs_mcast_cmd(attrs, true);
}

/**
 * uverbs_cmd_detach_mcast() - DETACH_MCAST: a QP leaves a group
 * @attrs: the command
 *
 * Return: 0; -EINVAL for reserved bytes or a group the QP is not in;
 * the handle's errors as for ATTACH_MCAST; the provider's error.
 */
int uverbs_cmd_detach_mcast(struct uverbs_attr_bundle *attrs)
{
	return uverbs_mcast_cmd(attrs, false);
}
