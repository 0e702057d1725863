// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm: the RDMA CM for user space.  librdmacm opens the misc device
 * /dev/infiniband/rdma_cm and drives RDMA CM IDs through write(): one
 * command per call (ucma_cmd.c), events fetched with GET_EVENT.  This file
 * holds the files, the contexts (one per ID), the event queue and the
 * module; ucma_priv.h gives the locking and lifetime rules.
 */
#include <linux/module.h>
#include <linux/miscdevice.h>
#include <linux/file.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>
#include <rdma/ib.h>
#include <rdma/ib_marshall.h>
#include "core_priv.h"
#include "ucma_priv.h"

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("RDMA connection manager for user space (/dev/infiniband/rdma_cm)");
MODULE_LICENSE("Dual BSD/GPL");
MODULE_VERSION(RDMA_KMOD_VERSION);
MODULE_ALIAS("rdma-client-rdma_cm");

DEFINE_XARRAY_ALLOC(ucma_ctxs);
DEFINE_XARRAY_ALLOC(ucma_mcs);

/* CONNECT_REQUESTs a listener may have waiting: net.rdma_ucm.max_backlog. */
int ucma_max_backlog = 1024;

static struct ctl_table_header *ucma_sysctl;
static struct ctl_table ucma_ctl_table[] = {
	{
		.procname	= "max_backlog",
		.data		= &ucma_max_backlog,
		.maxlen		= sizeof(ucma_max_backlog),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ONE,
	},
};

/* Destroys the IDs of removed devices, apart from rdma_cm's own queue. */
static struct workqueue_struct *ucma_wq;

/* ---- contexts ------------------------------------------------------------ */

static void ucma_close_work(struct work_struct *w)
{
	struct ucma_context *ctx = container_of(w, struct ucma_context,
						close_work);

	mutex_lock(&ctx->mutex);
	if (ctx->cm_id) {
		rdma_destroy_id(ctx->cm_id);
		ctx->cm_id = NULL;
	}
	mutex_unlock(&ctx->mutex);
}

/**
 * ucma_ctx_alloc() - a new context of @file, without an ID yet
 * @file: its file
 *
 * The context has a number but the table shows NULL for it until
 * ucma_ctx_publish(); it is on @file's list, so that closing the file
 * destroys it.
 *
 * Return: the context or ERR_PTR(-ENOMEM).
 */
struct ucma_context *ucma_ctx_alloc(struct ucma_file *file)
{
	struct ucma_context *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return ERR_PTR(-ENOMEM);
	refcount_set(&ctx->refs, 1);
	init_completion(&ctx->released);
	mutex_init(&ctx->mutex);
	INIT_LIST_HEAD(&ctx->mcs);
	INIT_WORK(&ctx->close_work, ucma_close_work);
	ctx->file = file;
	if (xa_alloc(&ucma_ctxs, &ctx->id, NULL, xa_limit_32b, GFP_KERNEL)) {
		kfree(ctx);
		return ERR_PTR(-ENOMEM);
	}
	mutex_lock(&file->mut);
	list_add_tail(&ctx->node, &file->ctxs);
	mutex_unlock(&file->mut);
	return ctx;
}

/**
 * ucma_ctx_publish() - let commands find a context by its number
 * @ctx: the context
 *
 * Return: 0 or -ENOMEM.
 */
int ucma_ctx_publish(struct ucma_context *ctx)
{
	return xa_err(xa_store(&ucma_ctxs, ctx->id, ctx, GFP_KERNEL));
}

/* The context numbered @id; the xa_lock of ucma_ctxs is held. */
static struct ucma_context *ucma_find(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx = xa_load(&ucma_ctxs, id);

	if (!ctx)
		return ERR_PTR(-ENOENT);
	if (READ_ONCE(ctx->file) != file)
		return ERR_PTR(-EINVAL);
	return ctx;
}

/**
 * ucma_get() - look a context of @file up and hold it
 * @file: the file the command came on
 * @id: the context's number
 *
 * Return: the context, to be released with ucma_put(); ERR_PTR(-ENOENT)
 * for no such context (or one being destroyed), -EINVAL for one of
 * another file.
 */
struct ucma_context *ucma_get(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx;

	xa_lock(&ucma_ctxs);
	ctx = ucma_find(file, id);
	if (!IS_ERR(ctx) && !refcount_inc_not_zero(&ctx->refs))
		ctx = ERR_PTR(-ENOENT);
	xa_unlock(&ucma_ctxs);
	return ctx;
}

/**
 * ucma_put() - release a context held by ucma_get()
 * @ctx: the context
 */
void ucma_put(struct ucma_context *ctx)
{
	if (refcount_dec_and_test(&ctx->refs))
		complete(&ctx->released);
}

/**
 * ucma_get_locked() - ucma_get() and the context's mutex, with a live ID
 * @file: the file the command came on
 * @id: the context's number
 *
 * Return: the context, to be released with ucma_put_unlock(); an
 * ucma_get() error, or ERR_PTR(-EIO) when its device was removed.
 */
struct ucma_context *ucma_get_locked(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx = ucma_get(file, id);

	if (IS_ERR(ctx))
		return ctx;
	mutex_lock(&ctx->mutex);
	if (ctx->cm_id)
		return ctx;
	mutex_unlock(&ctx->mutex);
	ucma_put(ctx);
	pr_debug("rdma_ucm: context %u: its device was removed\n", id);
	return ERR_PTR(-EIO);
}

/**
 * ucma_put_unlock() - release a context of ucma_get_locked()
 * @ctx: the context
 */
void ucma_put_unlock(struct ucma_context *ctx)
{
	mutex_unlock(&ctx->mutex);
	ucma_put(ctx);
}

/**
 * ucma_take() - take a context of @file out of the table, for destruction
 * @file: the file the command came on
 * @id: the context's number
 *
 * Return: the context, whose table reference the caller now owns (give it
 * to ucma_destroy_ctx()); ERR_PTR() as for ucma_get().
 */
struct ucma_context *ucma_take(struct ucma_file *file, u32 id)
{
	struct ucma_context *ctx;

	xa_lock(&ucma_ctxs);
	ctx = ucma_find(file, id);
	if (!IS_ERR(ctx))
		__xa_erase(&ucma_ctxs, id);
	xa_unlock(&ucma_ctxs);
	return ctx;
}

static void ucma_event_free(struct ucma_event *e)
{
	list_del(&e->node);
	kfree(e);
}

/**
 * ucma_destroy_ctx() - destroy a context taken out of the table
 * @ctx: the context; the caller owns the table's reference
 *
 * Waits for the commands on @ctx, destroys its ID, leaves its groups and
 * drops its queued events; a listener's connections whose CONNECT_REQUEST
 * was never fetched are destroyed with it.
 *
 * Return: how many events user space fetched for @ctx.
 */
u32 ucma_destroy_ctx(struct ucma_context *ctx)
{
	struct ucma_context *c, *ctmp;
	struct ucma_event *e, *etmp;
	struct ucma_mc *mc, *mtmp;
	struct ucma_file *file;
	LIST_HEAD(conns);
	u32 reported;

	ucma_put(ctx);
	wait_for_completion(&ctx->released);
	/* No MIGRATE_ID holds @ctx any more: its file stays. */
	file = ctx->file;
	mutex_lock(&ctx->mutex);
	if (ctx->cm_id) {
		rdma_destroy_id(ctx->cm_id);
		ctx->cm_id = NULL;
	}
	mutex_unlock(&ctx->mutex);
	cancel_work_sync(&ctx->close_work);
	/* No LEAVE_MCAST holds @ctx: every group left is still in the table. */
	list_for_each_entry(mc, &ctx->mcs, node)
		xa_erase(&ucma_mcs, mc->id);

	mutex_lock(&file->mut);
	list_del_init(&ctx->node);
	list_for_each_entry_safe(e, etmp, &file->events, node) {
		if (e->conn == ctx) {
			atomic_inc(&e->ctx->backlog);
		} else if (e->ctx == ctx) {
			if (e->conn)
				list_move_tail(&e->conn->node, &conns);
		} else {
			continue;
		}
		ucma_event_free(e);
	}
	reported = ctx->events_reported;
	mutex_unlock(&file->mut);

	list_for_each_entry_safe(mc, mtmp, &ctx->mcs, node)
		kfree(mc);
	list_for_each_entry_safe(c, ctmp, &conns, node) {
		xa_erase(&ucma_ctxs, c->id);
		ucma_destroy_ctx(c);
	}
	kfree(ctx);
	return reported;
}

/**
 * ucma_mc_forget() - drop the queued events of a group that was left
 * @mc: the group, out of ucma_mcs and off its context's list
 *
 * Return: how many events user space fetched for @mc.
 */
u32 ucma_mc_forget(struct ucma_mc *mc)
{
	struct ucma_file *file = mc->ctx->file;
	struct ucma_event *e, *tmp;
	u32 reported;

	mutex_lock(&file->mut);
	list_for_each_entry_safe(e, tmp, &file->events, node)
		if (e->mc == mc)
			ucma_event_free(e);
	reported = mc->events_reported;
	mutex_unlock(&file->mut);
	return reported;
}

/* ---- events --------------------------------------------------------------- */

static void ucma_copy_conn(struct rdma_ucm_conn_param *dst,
			   const struct rdma_conn_param *src)
{
	*dst = (struct rdma_ucm_conn_param) {
		.qp_num = src->qp_num,
		.srq = src->srq,
		.rnr_retry_count = src->rnr_retry_count,
		.retry_count = src->retry_count,
		.flow_control = src->flow_control,
		.initiator_depth = src->initiator_depth,
		.responder_resources = src->responder_resources,
		.private_data_len = src->private_data ? src->private_data_len : 0,
	};
	if (dst->private_data_len)
		memcpy(dst->private_data, src->private_data,
		       dst->private_data_len);
}

/*
 * A UD event: the address vector, when the event has one, and the private
 * data, except for multicast events whose private_data is the group.
 */
static void ucma_copy_ud(struct ib_device *device,
			 struct rdma_ucm_ud_param *dst,
			 struct rdma_cm_event *ev, bool mc)
{
	struct rdma_ah_attr *ah = &ev->param.ud.ah_attr;

	if (ah->type != RDMA_AH_ATTR_TYPE_UNDEFINED && device)
		ib_copy_ah_attr_to_user(device, &dst->ah_attr, ah);
	if (!mc && ev->param.ud.private_data && ev->param.ud.private_data_len) {
		dst->private_data_len = ev->param.ud.private_data_len;
		memcpy(dst->private_data, ev->param.ud.private_data,
		       ev->param.ud.private_data_len);
	}
	dst->qp_num = ev->param.ud.qp_num;
	dst->qkey = ev->param.ud.qkey;
}

static struct ucma_event *ucma_event_new(struct rdma_cm_id *cm_id,
					 struct rdma_cm_event *ev,
					 struct ucma_mc *mc)
{
	struct ucma_event *e = kzalloc(sizeof(*e), GFP_KERNEL);

	if (!e)
		return NULL;
	e->mc = mc;
	e->resp.event = ev->event;
	e->resp.status = ev->status;
	if (cm_id->qp_type == IB_QPT_UD)
		ucma_copy_ud(cm_id->device, &e->resp.param.ud, ev, mc);
	else
		ucma_copy_conn(&e->resp.param.conn, &ev->param.conn);
	e->resp.ece = ev->ece;
	return e;
}

static void ucma_queue(struct ucma_file *file, struct ucma_event *e)
{
	lockdep_assert_held(&file->mut);
	list_add_tail(&e->node, &file->events);
	wake_up_interruptible(&file->wait);
}

/*
 * A request for listener @l: a new context for @cm_id, announced with the
 * listener's cookie.  -ENOMEM (the request is dropped without a REJ, so
 * that the peer tries again) when @l's backlog is full.
 */
static int ucma_conn_request(struct ucma_context *l, struct rdma_cm_id *cm_id,
			     struct rdma_cm_event *ev)
{
	struct ucma_file *file = l->file;
	struct ucma_context *conn;
	struct ucma_event *e;

	if (atomic_dec_if_positive(&l->backlog) < 0) {
		ibdev_dbg(cm_id->device, "rdma_ucm: listener %u: backlog full, request dropped\n",
			  l->id);
		return -ENOMEM;
	}
	e = ucma_event_new(cm_id, ev, NULL);
	conn = e ? ucma_ctx_alloc(file) : ERR_PTR(-ENOMEM);
	if (IS_ERR(conn)) {
		kfree(e);
		atomic_inc(&l->backlog);
		ibdev_dbg(cm_id->device, "rdma_ucm: listener %u: no memory for a request\n",
			  l->id);
		return -ENOMEM;
	}
	conn->cm_id = cm_id;
	cm_id->context = conn;
	e->ctx = l;
	e->conn = conn;
	e->resp.id = conn->id;
	mutex_lock(&file->mut);
	e->resp.uid = l->uid;
	ucma_queue(file, e);
	mutex_unlock(&file->mut);
	return 0;
}

/**
 * ucma_event_handler() - queue an RDMA CM event for user space
 * @cm_id: the ID; its handler lock is held
 * @ev: the event
 *
 * Every event becomes one GET_EVENT answer: a CONNECT_REQUEST on a new
 * context, a multicast event for its group, the others for the ID's
 * context once user space claimed it.  After DEVICE_REMOVAL the ID is
 * destroyed from a work item, so that the device can go.
 *
 * Return: 0, or non-zero for a CONNECT_REQUEST refused (see
 * ucma_conn_request()).
 */
int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev)
{
	struct ucma_context *ctx = cm_id->context;
	struct ucma_mc *mc = NULL;
	struct ucma_event *e;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return ucma_conn_request(ctx, cm_id, ev);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)
		queue_work(ucma_wq, &ctx->close_work);
	if (ev->event == RDMA_CM_EVENT_MULTICAST_JOIN ||
	    ev->event == RDMA_CM_EVENT_MULTICAST_ERROR)
		mc = (struct ucma_mc *)ev->param.ud.private_data;
	else if (!READ_ONCE(ctx->claimed))
		return 0;

	e = ucma_event_new(cm_id, ev, mc);
	if (!e) {
		ibdev_dbg(cm_id->device, "rdma_ucm: context %u: event %s lost, no memory\n",
			  ctx->id, rdma_event_msg(ev->event));
		return 0;
	}
	e->ctx = ctx;
	mutex_lock(&ctx->file->mut);
	e->resp.uid = mc ? mc->uid : ctx->uid;
	e->resp.id = mc ? mc->id : ctx->id;
	ucma_queue(ctx->file, e);
	mutex_unlock(&ctx->file->mut);
	return 0;
}

/*
 * The oldest event of @file, returned with @file->mut held; waits for one
 * unless the file is non-blocking (-EAGAIN), or a signal comes first.
 */
static struct ucma_event *ucma_next_event(struct ucma_file *file)
{
	struct ucma_event *e;

	for (;;) {
		mutex_lock(&file->mut);
		e = list_first_entry_or_null(&file->events, struct ucma_event,
					     node);
		if (e)
			return e;
		mutex_unlock(&file->mut);
		if (file->filp->f_flags & O_NONBLOCK)
			return ERR_PTR(-EAGAIN);
		if (wait_event_interruptible(file->wait,
					     !list_empty_careful(&file->events)))
			return ERR_PTR(-ERESTARTSYS);
	}
}

/**
 * ucma_get_event() - GET_EVENT: the oldest event, waiting for one
 * @file: the file
 * @in: struct rdma_ucm_get_event
 * @out: room at its response pointer
 *
 * Fetching a CONNECT_REQUEST publishes the new context and gives its
 * listener's backlog slot back.
 *
 * Return: 0; -EAGAIN when the file is non-blocking and nothing waits;
 * -ERESTARTSYS;
 * -EFAULT (the event stays queued); -ENOMEM.
 */
ssize_t ucma_get_event(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_get_event *cmd = in;
	struct ucma_event *e = ucma_next_event(file);
	int ret;

	if (IS_ERR(e))
		return PTR_ERR(e);
	ret = e->conn ? ucma_ctx_publish(e->conn) : 0;
	if (!ret && copy_to_user(u64_to_user_ptr(cmd->response), &e->resp,
				 min_t(size_t, out, sizeof(e->resp))))
		ret = -EFAULT;
	if (!ret) {
		if (e->mc)
			e->mc->events_reported++;
		else
			e->ctx->events_reported++;
		if (e->conn)
			atomic_inc(&e->ctx->backlog);
		ucma_event_free(e);
	}
	mutex_unlock(&file->mut);
	return ret;
}

/* ---- MIGRATE_ID ------------------------------------------------------------ */

static void ucma_lock_files(struct ucma_file *a, struct ucma_file *b)
{
	if (a == b) {
		mutex_lock(&a->mut);
	} else if (a < b) {
		mutex_lock(&a->mut);
		mutex_lock_nested(&b->mut, SINGLE_DEPTH_NESTING);
	} else {
		mutex_lock(&b->mut);
		mutex_lock_nested(&a->mut, SINGLE_DEPTH_NESTING);
	}
}

static void ucma_unlock_files(struct ucma_file *a, struct ucma_file *b)
{
	if (a != b)
		mutex_unlock(&b->mut);
	mutex_unlock(&a->mut);
}

static const struct file_operations ucma_fops;

/*
 * Move @ctx, its queued events and the unfetched connections they carry
 * from @from to @to.  Those connections are unclaimed: their handlers do
 * not look at their file.
 */
static void ucma_move(struct ucma_context *ctx, struct ucma_file *from,
		      struct ucma_file *to)
{
	struct ucma_event *e, *tmp;

	list_move_tail(&ctx->node, &to->ctxs);
	WRITE_ONCE(ctx->file, to);
	list_for_each_entry_safe(e, tmp, &from->events, node) {
		if (e->ctx != ctx)
			continue;
		if (e->conn) {
			list_move_tail(&e->conn->node, &to->ctxs);
			WRITE_ONCE(e->conn->file, to);
		}
		list_move_tail(&e->node, &to->events);
	}
	if (!list_empty(&to->events))
		wake_up_interruptible(&to->wait);
}

/**
 * ucma_migrate_id() - MIGRATE_ID: move a context to the file of the call
 * @file: the destination file
 * @in: struct rdma_ucm_migrate_id: the context's number in the file open
 *	as @fd
 * @out: room at the response pointer
 *
 * Return: 0; -ENOENT for @fd not open (as stock answers),
 * -EINVAL for one that is not an rdma_cm file; ucma_get() errors; -EFAULT.
 */
ssize_t ucma_migrate_id(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_migrate_id *cmd = in;
	struct rdma_ucm_migrate_resp resp = {};
	struct ucma_context *ctx;
	struct ucma_file *cur;
	struct fd f;
	int ret = 0;

	f = fdget(cmd->fd);
	if (!fd_file(f))
		return -ENOENT;
	if (fd_file(f)->f_op != &ucma_fops) {
		ret = -EINVAL;
		goto out_fd;
	}
	cur = fd_file(f)->private_data;
	ctx = ucma_get(cur, cmd->id);
	if (IS_ERR(ctx)) {
		ret = PTR_ERR(ctx);
		goto out_fd;
	}
	mutex_lock(&ctx->mutex);
	if (ctx->cm_id)
		rdma_lock_handler(ctx->cm_id);
	ucma_lock_files(cur, file);
	if (cur != file)
		ucma_move(ctx, cur, file);
	resp.events_reported = ctx->events_reported;
	ucma_unlock_files(cur, file);
	if (ctx->cm_id)
		rdma_unlock_handler(ctx->cm_id);
	ucma_put_unlock(ctx);
	if (copy_to_user(u64_to_user_ptr(cmd->response), &resp, sizeof(resp)))
		ret = -EFAULT;
out_fd:
	fdput(f);
	return ret;
}

/* ---- the file --------------------------------------------------------------- */

static int ucma_open(struct inode *inode, struct file *filp)
{
	struct ucma_file *file;

	file = kmalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	*file = (struct ucma_file) {
		.filp = filp,
		.ctxs = LIST_HEAD_INIT(file->ctxs),
		.events = LIST_HEAD_INIT(file->events),
	};
	/* Their lockdep classes come with these calls. */
	init_waitqueue_head(&file->wait);
	mutex_init(&file->mut);
	filp->private_data = file;
	/* No file position: commands are whole write()s. */
	return stream_open(inode, filp);
}

/*
 * Destroy every context.  A listener still alive may add a connection
 * while this runs: take them one at a time until none is left.
 */
static int ucma_close(struct inode *inode, struct file *filp)
{
	struct ucma_file *file = filp->private_data;
	struct ucma_context *ctx;

	for (;;) {
		mutex_lock(&file->mut);
		ctx = list_first_entry_or_null(&file->ctxs, struct ucma_context,
					       node);
		mutex_unlock(&file->mut);
		if (!ctx)
			break;
		xa_erase(&ucma_ctxs, ctx->id);
		ucma_destroy_ctx(ctx);
	}
	WARN_ON(!list_empty(&file->events));
	mutex_destroy(&file->mut);
	kfree(file);
	return 0;
}

/* The largest command payload: the write() buffer below holds any. */
#define UCMA_PAYLOAD_MAX sizeof(struct rdma_ucm_accept)

/*
 * The command a write() of @len bytes asks for, its header in @hdr: NULL
 * (and -ENOSYS) for GET_OPTION, an ERR_PTR() for a malformed write.
 */
static const struct ucma_cmd *ucma_parse(const char __user *buf, size_t len,
					 struct rdma_ucm_cmd_hdr *hdr,
					 ssize_t *err)
{
	const struct ucma_cmd *c;

	*err = -EINVAL;
	if (len >= sizeof(*hdr) && copy_from_user(hdr, buf, sizeof(*hdr)))
		*err = -EFAULT;
	else if (len >= sizeof(*hdr) && hdr->cmd < ucma_ncmds &&
		 sizeof(*hdr) + hdr->in <= len)
		*err = 0;
	if (*err) {
		pr_debug("rdma_ucm: malformed write of %zu bytes: %zd\n", len,
			 *err);
		return ERR_PTR(*err);
	}
	c = &ucma_cmds[hdr->cmd];
	if (!c->fn) {
		*err = -ENOSYS;
		return NULL;
	}
	return c;
}

static ssize_t ucma_write(struct file *filp, const char __user *buf,
			  size_t len, loff_t *pos)
{
	u64 payload[DIV_ROUND_UP(UCMA_PAYLOAD_MAX, sizeof(u64))];
	struct ucma_file *file = filp->private_data;
	struct rdma_ucm_cmd_hdr hdr;
	const struct ucma_cmd *c;
	ssize_t ret;

	/* A file handed to a process of other credentials acts for no one. */
	if (!ib_safe_file_access(filp)) {
		pr_debug("rdma_ucm: write by %s (%d) on a file opened with other credentials\n",
			 current->comm, task_pid_nr(current));
		return -EACCES;
	}
	c = ucma_parse(buf, len, &hdr, &ret);
	if (IS_ERR_OR_NULL(c))
		return ret;
	if (hdr.in < c->min || WARN_ON_ONCE(c->size > sizeof(payload))) {
		pr_debug("rdma_ucm: command %u: %u payload bytes, %u needed\n",
			 hdr.cmd, hdr.in, c->min);
		return -EINVAL;
	}
	if (hdr.out < c->room)
		return -ENOSPC;
	memset(payload, 0, c->size);
	if (copy_from_user(payload, buf + sizeof(hdr), min(hdr.in, c->size)))
		return -EFAULT;
	ret = c->fn(file, payload, hdr.out);
	return ret ?: len;
}

static __poll_t ucma_poll(struct file *filp, struct poll_table_struct *wait)
{
	struct ucma_file *file = filp->private_data;

	poll_wait(filp, &file->wait, wait);
	return list_empty_careful(&file->events) ? 0 : EPOLLIN | EPOLLRDNORM;
}

static const struct file_operations ucma_fops = {
	.open		= ucma_open,
	.write		= ucma_write,
	.poll		= ucma_poll,
	.release	= ucma_close,
	.owner		= THIS_MODULE,
};

/* ---- the device ----------------------------------------------------------- */

/* The rdma_ucm ABI librdmacm checks before anything else. */
static ssize_t abi_version_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", RDMA_USER_CM_ABI_VERSION);
}
static DEVICE_ATTR_RO(abi_version);

static struct attribute *ucma_attrs[] = { &dev_attr_abi_version.attr, NULL };
ATTRIBUTE_GROUPS(ucma);

/* /dev/infiniband/rdma_cm, open to everyone as stock's. */
static struct miscdevice ucma_misc = {
	.name		= "rdma_cm",
	.nodename	= "infiniband/rdma_cm",
	.groups		= ucma_groups,
	.fops		= &ucma_fops,
	.minor		= MISC_DYNAMIC_MINOR,
	.mode		= 0666,
};

/* RDMA_NLDEV_CMD_GET_CHARDEV "rdma_cm": librdmacm's way to find the node. */
static int ucma_get_global_nl_info(struct ib_client_nl_info *res)
{
	res->abi = RDMA_USER_CM_ABI_VERSION;
	res->cdev = ucma_misc.this_device;
	get_device(res->cdev);
	return 0;
}

static struct ib_client ucma_client = {
	.name			= "rdma_cm",
	.get_global_nl_info	= ucma_get_global_nl_info,
};

static int __init ucma_init(void)
{
	int ret;

	ucma_wq = alloc_workqueue("rdma_ucm", WQ_MEM_RECLAIM, 0);
	if (!ucma_wq)
		return -ENOMEM;
	ret = misc_register(&ucma_misc);
	if (ret)
		goto err_wq;
	ucma_sysctl = register_net_sysctl(&init_net, "net/rdma_ucm",
					  ucma_ctl_table);
	if (!ucma_sysctl) {
		ret = -ENOMEM;
		goto err_misc;
	}
	ret = ib_register_client(&ucma_client);
	if (ret)
		goto err_sysctl;
	return 0;

err_sysctl:
	unregister_net_sysctl_table(ucma_sysctl);
err_misc:
	misc_deregister(&ucma_misc);
err_wq:
	destroy_workqueue(ucma_wq);
	return ret;
}

static void __exit ucma_cleanup(void)
{
	ib_unregister_client(&ucma_client);
	unregister_net_sysctl_table(ucma_sysctl);
	misc_deregister(&ucma_misc);
	destroy_workqueue(ucma_wq);
}

module_init(ucma_init);
module_exit(ucma_cleanup);
