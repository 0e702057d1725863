// SPDX-License-Identifier: GPL-2.0
/*
 * Completion queues of user processes and their completion channels:
 * CREATE_COMP_CHANNEL, CREATE_CQ (legacy and extended), RESIZE_CQ,
 * REQ_NOTIFY_CQ and DESTROY_CQ.
 *
 * A user CQ's uobject is a struct ib_ucq_object.  Its completion handler
 * (called by the provider in any context once the CQ is armed and a
 * completion arrives) queues the CQ's embedded event on its channel, if
 * it has one; its event handler queues IB_EVENT_CQ_ERR (an overrun) on
 * the file's async fd, with the CQ's user_handle.  DESTROY_CQ answers
 * with the number of events of each sort user space has read, which
 * libibverbs waits to see acknowledged; events still unread are
 * discarded, so they can never be counted twice.
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
#include <linux/file.h>
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

/**
 * struct ib_ucq_object - the uobject of a user CQ
 * @uobj: the uobject (first member; see uverbs_api_object.obj_size)
 * @channel: the completion channel, with a reference; NULL without one
 * @comp: the CQ's event on @channel
 * @events: the CQ's asynchronous events; their reported count stays
 *	readable after the CQ is destroyed, for DESTROY_CQ's answer
 */
struct ib_ucq_object {
	struct ib_uobject		uobj;
	struct uverbs_comp_file		*channel;
	struct uverbs_comp_event	comp;
	struct uverbs_obj_events	events;
};

/* The provider reports an asynchronous event of the CQ, in any context. */
static void uverbs_cq_event_handler(struct ib_event *event, void *context)
{
	struct ib_ucq_object *ucq = context;

	if (event->event == IB_EVENT_CQ_ERR)
		uverbs_obj_event(&ucq->events, event->event);
	else
		ibdev_dbg(event->device,
			  "uverbs: event %d for CQ handle %u is no CQ event, dropped\n",
			  event->event, ucq->uobj.id);
}

/* The provider signals new completions of an armed CQ. */
static void uverbs_cq_comp_handler(struct ib_cq *cq, void *cq_context)
{
	struct ib_ucq_object *ucq = cq_context;

	if (ucq->channel)
		uverbs_comp_notify(ucq->channel, &ucq->comp);
}

static int uverbs_destroy_cq(struct ib_uobject *uobj,
			     enum rdma_remove_reason why)
{
	struct ib_ucq_object *ucq = container_of(uobj, struct ib_ucq_object, uobj);
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};
	int ret;

	ret = ib_destroy_cq_user(uobj->object, &udata);
	if (ret)
		return ret;
	/* No handler runs any more: the events can be withdrawn. */
	uverbs_obj_events_withdraw(&ucq->events);
	if (ucq->channel) {
		ucq->comp.reported = uverbs_comp_event_withdraw(ucq->channel,
								&ucq->comp);
		if (why == RDMA_REMOVE_DRIVER_REMOVE)
			uverbs_comp_file_kill(ucq->channel);
		uverbs_comp_file_put(ucq->channel);
		ucq->channel = NULL;
	}
	return 0;
}

const struct uverbs_api_object uverbs_type_cq = {
	.name		= "CQ",
	.obj_size	= sizeof(struct ib_ucq_object),
	.destroy	= uverbs_destroy_cq,
};

/**
 * uverbs_cmd_create_comp_channel() - CREATE_COMP_CHANNEL
 * @attrs: the command
 *
 * The channel is a file of its own: it lives until user space closes its
 * fd and the last CQ bound to it is destroyed, whichever comes last.
 *
 * Return: 0; -EMFILE; -ENOMEM; -EFAULT.
 */
int uverbs_cmd_create_comp_channel(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_comp_channel_resp resp;
	struct file *filp;
	int fd, err;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0)
		return fd;
	filp = uverbs_comp_file_create();
	if (IS_ERR(filp)) {
		put_unused_fd(fd);
		return PTR_ERR(filp);
	}
	resp.fd = fd;
	err = uverbs_response(attrs, &resp, sizeof(resp));
	if (err) {
		fput(filp);
		put_unused_fd(fd);
		return err;
	}
	fd_install(fd, filp);
	return 0;
}

/*
 * What CREATE_CQ checks before the provider: a size within the device's
 * limit, an existing completion vector, flags the ABI knows.
 */
static int uverbs_create_cq_check(struct ib_device *ib_dev,
				  const struct ib_uverbs_ex_create_cq *cmd)
{
	const u32 known = IB_UVERBS_CQ_FLAGS_TIMESTAMP_COMPLETION |
			  IB_UVERBS_CQ_FLAGS_IGNORE_OVERRUN;

	if (!cmd->cqe || cmd->cqe > ib_dev->attrs.max_cqe) {
		ibdev_dbg(ib_dev, "uverbs: CREATE_CQ of %u entries (max %d)\n",
			  cmd->cqe, ib_dev->attrs.max_cqe);
		return -EINVAL;
	}
	if (cmd->comp_vector >= ib_dev->num_comp_vectors) {
		ibdev_dbg(ib_dev, "uverbs: CREATE_CQ on vector %u of %d\n",
			  cmd->comp_vector, ib_dev->num_comp_vectors);
		return -EINVAL;
	}
	if (cmd->comp_mask || cmd->reserved || (cmd->flags & ~known)) {
		ibdev_dbg(ib_dev,
			  "uverbs: CREATE_CQ comp_mask %#x flags %#x reserved %#x\n",
			  cmd->comp_mask, cmd->flags, cmd->reserved);
		return -EINVAL;
	}
	return 0;
}

/* A CQ from the provider for @ucq, tracked; or an ERR_PTR. */
static struct ib_cq *uverbs_cq_create(struct uverbs_attr_bundle *attrs,
				      struct ib_ucq_object *ucq,
				      const struct ib_uverbs_ex_create_cq *cmd)
{
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_cq_init_attr init = {
		.cqe = cmd->cqe,
		.comp_vector = cmd->comp_vector,
		.flags = cmd->flags,
	};
	struct ib_cq *cq;
	int err;

	cq = rdma_zalloc_drv_obj(ib_dev, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);
	cq->device = ib_dev;
	cq->uobject = ucq;
	cq->comp_handler = uverbs_cq_comp_handler;
	cq->event_handler = uverbs_cq_event_handler;
	cq->cq_context = ucq;
	cq->comp_vector = cmd->comp_vector;
	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, NULL);
	err = ib_dev->ops.create_cq(cq, &init, attrs);
	if (err) {
		ibdev_dbg(ib_dev, "uverbs: create_cq failed: %d\n", err);
		rdma_restrack_put(&cq->res);
		kfree(cq);
		return ERR_PTR(err);
	}
	rdma_restrack_add(&cq->res);
	return cq;
}

/*
 * CREATE_CQ in both forms, @cmd in the extended layout: the new CQ's
 * handle and real size in @resp.  Everything but writing the response
 * is done; *@uobjp is the uncommitted uobject.
 */
static int uverbs_create_cq(struct uverbs_attr_bundle *attrs,
			    const struct ib_uverbs_ex_create_cq *cmd,
			    struct ib_uverbs_create_cq_resp *resp,
			    struct ib_uobject **uobjp)
{
	struct uverbs_comp_file *channel = NULL;
	struct ib_uobject *uobj;
	struct ib_ucq_object *ucq;
	struct ib_cq *cq;
	int err;

	err = uverbs_create_cq_check(attrs->ib_dev, cmd);
	if (err)
		return err;
	if (cmd->comp_channel >= 0) {
		channel = uverbs_comp_file_get(cmd->comp_channel);
		if (IS_ERR(channel)) {
			ibdev_dbg(attrs->ib_dev,
				  "uverbs: CREATE_CQ: fd %d is no completion channel\n",
				  cmd->comp_channel);
			return PTR_ERR(channel);
		}
	}
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_cq);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_channel;
	}
	ucq = container_of(uobj, struct ib_ucq_object, uobj);
	uobj->user_handle = cmd->user_handle;
	ucq->channel = channel;
	INIT_LIST_HEAD(&ucq->comp.list);
	ucq->comp.cq_handle = cmd->user_handle;
	uverbs_obj_events_init(&ucq->events, attrs->ufile->async,
			       cmd->user_handle);

	cq = uverbs_cq_create(attrs, ucq, cmd);
	if (IS_ERR(cq)) {
		err = PTR_ERR(cq);
		uverbs_obj_events_withdraw(&ucq->events);
		uobj_abort(uobj);
		goto put_channel;
	}
	uobj->object = cq;
	resp->cq_handle = uobj->id;
	resp->cqe = cq->cqe;
	*uobjp = uobj;
	return 0;

put_channel:
	if (channel)
		uverbs_comp_file_put(channel);
	return err;
}

/**
 * uverbs_cmd_create_cq() - CREATE_CQ (legacy)
 * @attrs: the command
 *
 * Return: 0; -EINVAL for a size of 0 or above the device's max_cqe or a
 * completion vector the device lacks; -EBADF for a comp_channel (other
 * than -1) that is not a completion channel's fd; -ENOMEM; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq ex;
	struct ib_uverbs_create_cq cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	ex = (struct ib_uverbs_ex_create_cq) {
		.user_handle = cmd.user_handle,
		.cqe = cmd.cqe,
		.comp_vector = cmd.comp_vector,
		.comp_channel = cmd.comp_channel,
	};
	err = uverbs_create_cq(attrs, &ex, &resp, &uobj);
	return err ?: uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_ex_create_cq() - CREATE_CQ (extended)
 * @attrs: the command
 *
 * Return: as uverbs_cmd_create_cq(), and -EINVAL for a comp_mask,
 * reserved bits or unknown flags; flags the provider cannot honour give
 * its error (-EOPNOTSUPP).
 */
int uverbs_cmd_ex_create_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_ex_create_cq_resp resp = {};
	struct ib_uverbs_ex_create_cq cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	err = uverbs_create_cq(attrs, &cmd, &resp.base, &uobj);
	if (err)
		return err;
	resp.response_length = min(sizeof(resp), attrs->core_out_len);
	return uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_resize_cq() - RESIZE_CQ
 * @attrs: the command
 *
 * The CQ is held shared, as by any command that uses it: a destroy waits
 * (-EBUSY) until the resize is over.  The provider keeps the completions
 * not yet polled and answers its driver data (rxe: the new ring's
 * mminfo); the core response is the size the CQ now has.
 *
 * Return: 0; -EINVAL for a size of 0 or above the device's max_cqe, or
 * what the provider refuses (rxe: a size below the completions queued,
 * no room for its answer); -ENOENT, -EINVAL or -EBUSY for the handle as
 * uobj_get_shared() says; -EOPNOTSUPP for a provider that cannot resize;
 * -EFAULT; the provider's error.
 */
int uverbs_cmd_resize_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_resize_cq_resp resp = {};
	struct ib_device *ib_dev = attrs->ib_dev;
	struct ib_uverbs_resize_cq cmd;
	struct ib_uobject *uobj;
	struct ib_cq *cq;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	if (!ib_dev->ops.resize_cq) {
		ibdev_dbg(ib_dev, "uverbs: RESIZE_CQ: provider cannot resize\n");
		return -EOPNOTSUPP;
	}
	uobj = uobj_get_shared(attrs->ufile, &uverbs_type_cq, cmd.cq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	cq = uobj->object;
	if (!cmd.cqe || cmd.cqe > ib_dev->attrs.max_cqe) {
		ibdev_dbg(ib_dev, "uverbs: RESIZE_CQ to %u entries (max %d)\n",
			  cmd.cqe, ib_dev->attrs.max_cqe);
		err = -EINVAL;
	} else {
		err = ib_dev->ops.resize_cq(cq, cmd.cqe, &attrs->driver_udata);
	}
	resp.cqe = cq->cqe;
	uobj_put_shared(uobj);
	if (err) {
		ibdev_dbg(ib_dev, "uverbs: RESIZE_CQ to %u entries failed: %d\n",
			  cmd.cqe, err);
		return err;
	}
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_req_notify_cq() - REQ_NOTIFY_CQ: arm a CQ once
 * @attrs: the command
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY for the handle as
 * uobj_get_shared() says; -EFAULT; the provider's error.
 */
int uverbs_cmd_req_notify_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_req_notify_cq cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uobj_get_shared(attrs->ufile, &uverbs_type_cq, cmd.cq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	err = ib_req_notify_cq(uobj->object, cmd.solicited_only ?
			       IB_CQ_SOLICITED : IB_CQ_NEXT_COMP);
	uobj_put_shared(uobj);
	/* A positive answer (completions were missed) is not asked for. */
	return min(err, 0);
}

/**
 * uverbs_cmd_destroy_cq() - DESTROY_CQ
 * @attrs: the command
 *
 * The response counts the completion events user space read from the
 * CQ's channel and the asynchronous events it read from the async fd.
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY (also while QPs use the CQ) as
 * uobj_destroy_hold() says; -EFAULT; the provider's error.
 */
int uverbs_cmd_destroy_cq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_cq_resp resp = {};
	struct ib_uverbs_destroy_cq cmd;
	struct ib_ucq_object *ucq;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uobj_destroy_hold(attrs->ufile, &uverbs_type_cq, cmd.cq_handle);
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	ucq = container_of(uobj, struct ib_ucq_object, uobj);
	resp.comp_events_reported = ucq->comp.reported;
	resp.async_events_reported = ucq->events.reported;
	uobj_release_hold(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}
