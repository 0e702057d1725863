// SPDX-License-Identifier: GPL-2.0
/*
 * Shared receive queues of user processes: CREATE_SRQ, MODIFY_SRQ,
 * QUERY_SRQ and DESTROY_SRQ.  Receive work requests never come through
 * the kernel (POST_SRQ_RECV is not implemented): the provider's library
 * posts them into memory it shares with the provider.
 *
 * A user SRQ's uobject is a struct ib_usrq_object.  The SRQ is made by
 * ib_create_srq_user(), which counts it in its PD's usecnt (DEALLOC_PD
 * refuses with -EBUSY until the SRQ is gone) and lists it in resource
 * tracking.  Only basic SRQs are made: CREATE_XSRQ, for XRC and tag
 * matching SRQs, is not implemented.  A QP created on the SRQ counts in
 * its usecnt, so DESTROY_SRQ refuses with -EBUSY while one exists.
 *
 * The SRQ's asynchronous events (limit reached, catastrophic error) go
 * to the file's async event fd with the user_handle given at creation as
 * their element; DESTROY_SRQ answers with the number of them user space
 * has read, as DESTROY_QP does (struct uverbs_obj_events).
 *
 * Handlers run as uverbs_cmd.c says: in the device's SRCU read side, with
 * the file's hw_destroy_rwsem held for reading.
 */
#include <rdma/ib_user_verbs.h>

#include "core_priv.h"
#include "uverbs.h"

/**
 * struct ib_usrq_object - the uobject of a user SRQ
 * @uobj: the uobject (first member; see uverbs_api_object.obj_size)
 * @events: the SRQ's asynchronous events; their reported count stays
 *	readable after the SRQ is destroyed, for DESTROY_SRQ's answer
 */
struct ib_usrq_object {
	struct ib_uobject		uobj;
	struct uverbs_obj_events	events;
};

/* The provider reports an asynchronous event of the SRQ, in any context. */
static void uverbs_srq_event_handler(struct ib_event *event, void *context)
{
	struct ib_usrq_object *usrq = context;

	switch (event->event) {
	case IB_EVENT_SRQ_LIMIT_REACHED:
	case IB_EVENT_SRQ_ERR:
		uverbs_obj_event(&usrq->events, event->event);
		break;
	default:
		ibdev_dbg(event->device,
			  "uverbs: event %d for SRQ handle %u is no SRQ event, dropped\n",
			  event->event, usrq->uobj.id);
		break;
	}
}

static int uverbs_destroy_srq(struct ib_uobject *uobj,
			      enum rdma_remove_reason why)
{
	struct ib_usrq_object *usrq = container_of(uobj, struct ib_usrq_object,
						   uobj);
	/* Destroys carry no driver data, but they do come from a user. */
	struct ib_udata udata = {};
	int ret;

	ret = ib_destroy_srq_user(uobj->object, &udata);
	if (ret)
		return ret;
	/* No event handler runs any more: the events can be withdrawn. */
	uverbs_obj_events_withdraw(&usrq->events);
	return 0;
}

const struct uverbs_api_object uverbs_type_srq = {
	.name		= "SRQ",
	.obj_size	= sizeof(struct ib_usrq_object),
	.destroy	= uverbs_destroy_srq,
};

/* The SRQ under @handle, shared; the errors of uobj_get_shared(). */
static struct ib_uobject *uverbs_srq_use(struct uverbs_attr_bundle *attrs,
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

/* A basic SRQ from the provider for @usrq on the PD of @pd; or an ERR_PTR. */
static struct ib_srq *uverbs_srq_create(struct uverbs_attr_bundle *attrs,
					struct ib_usrq_object *usrq,
					struct ib_uobject *pd,
					const struct ib_uverbs_create_srq *cmd,
					struct ib_srq_attr *out)
{
	struct ib_srq_init_attr init = {
		.event_handler = uverbs_srq_event_handler,
		.srq_context = usrq,
		.srq_type = IB_SRQT_BASIC,
		.attr = {
			.max_wr = cmd->max_wr,
			.max_sge = cmd->max_sge,
			.srq_limit = cmd->srq_limit,
		},
	};
	struct ib_srq *srq;

	srq = ib_create_srq_user(pd->object, &init, usrq, &attrs->driver_udata);
	if (IS_ERR(srq)) {
		ibdev_dbg(attrs->ib_dev, "uverbs: CREATE_SRQ failed: %ld\n",
			  PTR_ERR(srq));
		return srq;
	}
	/* What the provider made, which may be more than was asked. */
	*out = init.attr;
	return srq;
}

/**
 * uverbs_cmd_create_srq() - CREATE_SRQ: a basic SRQ
 * @attrs: the command
 *
 * The driver data following the request goes to the provider, and its
 * answer follows the core response.  srqn, which only XRC SRQs have, is
 * 0.
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY for the PD handle as
 * uobj_get_shared() says; -EOPNOTSUPP if the device has no SRQs; -EINVAL
 * for sizes the provider refuses; -ENOMEM; -EFAULT; the provider's error.
 */
int uverbs_cmd_create_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_create_srq_resp resp = {};
	struct ib_uverbs_create_srq cmd;
	struct ib_usrq_object *usrq;
	struct ib_uobject *uobj, *pd;
	struct ib_srq_attr made;
	struct ib_srq *srq;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	pd = uverbs_srq_use(attrs, &uverbs_type_pd, cmd.pd_handle,
			    "CREATE_SRQ");
	if (IS_ERR(pd))
		return PTR_ERR(pd);
	uobj = uobj_alloc(attrs->ufile, &uverbs_type_srq);
	if (IS_ERR(uobj)) {
		err = PTR_ERR(uobj);
		goto put_pd;
	}
	usrq = container_of(uobj, struct ib_usrq_object, uobj);
	uobj->user_handle = cmd.user_handle;
	uverbs_obj_events_init(&usrq->events, attrs->ufile->async,
			       cmd.user_handle);

	srq = uverbs_srq_create(attrs, usrq, pd, &cmd, &made);
	if (IS_ERR(srq)) {
		err = PTR_ERR(srq);
		uverbs_obj_events_withdraw(&usrq->events);
		uobj_abort(uobj);
		goto put_pd;
	}
	uobj->object = srq;
	uobj_put_shared(pd);

	resp.srq_handle = uobj->id;
	resp.max_wr = made.max_wr;
	resp.max_sge = made.max_sge;
	return uobj_respond_commit(attrs, uobj, &resp, sizeof(resp));

put_pd:
	uobj_put_shared(pd);
	return err;
}

/**
 * uverbs_cmd_modify_srq() - MODIFY_SRQ
 * @attrs: the command
 *
 * IB_SRQ_LIMIT arms the limit event; IB_SRQ_MAX_WR asks for a resize,
 * which only a provider that can resize SRQs grants.  The driver data of
 * the request goes to the provider; there is no response.
 *
 * Return: 0; -EINVAL for unknown attribute bits, a size beyond the
 * device's limit, or what the provider refuses; -ENOENT, -EINVAL or
 * -EBUSY for the handle as uobj_get_shared() says; -EFAULT; the
 * provider's error.
 */
int uverbs_cmd_modify_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_modify_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uverbs_srq_use(attrs, &uverbs_type_srq, cmd.srq_handle,
			      "MODIFY_SRQ");
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	attr.max_wr = cmd.max_wr;
	attr.srq_limit = cmd.srq_limit;
	err = ib_modify_srq_user(uobj->object, &attr, cmd.attr_mask,
				 &attrs->driver_udata);
	uobj_put_shared(uobj);
	if (err)
		ibdev_dbg(attrs->ib_dev, "uverbs: MODIFY_SRQ (mask %#x) failed: %d\n",
			  cmd.attr_mask, err);
	return err;
}

/**
 * uverbs_cmd_query_srq() - QUERY_SRQ
 * @attrs: the command
 *
 * Return: 0; -ENOENT, -EINVAL or -EBUSY for the handle as
 * uobj_get_shared() says; -EFAULT; the provider's error.
 */
int uverbs_cmd_query_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_query_srq_resp resp = {};
	struct ib_uverbs_query_srq cmd;
	struct ib_srq_attr attr = {};
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uverbs_srq_use(attrs, &uverbs_type_srq, cmd.srq_handle,
			      "QUERY_SRQ");
	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	err = ib_query_srq(uobj->object, &attr);
	uobj_put_shared(uobj);
	if (err) {
		ibdev_dbg(attrs->ib_dev, "uverbs: QUERY_SRQ failed: %d\n", err);
		return err;
	}
	resp.max_wr = attr.max_wr;
	resp.max_sge = attr.max_sge;
	resp.srq_limit = attr.srq_limit;
	return uverbs_response(attrs, &resp, sizeof(resp));
}

/**
 * uverbs_cmd_destroy_srq() - DESTROY_SRQ
 * @attrs: the command
 *
 * The response counts the SRQ's asynchronous events user space read from
 * the async event fd; those it did not read are discarded.
 *
 * Return: 0; -ENOENT or -EINVAL for the handle, -EBUSY while a QP uses
 * the SRQ, as uobj_destroy_hold() says; -EFAULT; the provider's error.
 */
int uverbs_cmd_destroy_srq(struct uverbs_attr_bundle *attrs)
{
	struct ib_uverbs_destroy_srq_resp resp = {};
	struct ib_uverbs_destroy_srq cmd;
	struct ib_uobject *uobj;
	int err;

	err = uverbs_request(attrs, &cmd, sizeof(cmd));
	if (err)
		return err;
	uobj = uobj_destroy_hold(attrs->ufile, &uverbs_type_srq,
				 cmd.srq_handle);
	if (IS_ERR(uobj)) {
		ibdev_dbg(attrs->ib_dev, "uverbs: DESTROY_SRQ of handle %u: %ld\n",
			  cmd.srq_handle, PTR_ERR(uobj));
		return PTR_ERR(uobj);
	}
	resp.events_reported =
		container_of(uobj, struct ib_usrq_object, uobj)->events.reported;
	uobj_release_hold(uobj);
	return uverbs_response(attrs, &resp, sizeof(resp));
}
