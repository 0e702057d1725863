// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * rdma_ucm commands: each takes the payload of one write() (already
 * copied into a zeroed buffer of its uapi size), acts on a context through
 * the rdma_cm API and writes its answer, if any, to the payload's response
 * pointer.  Addresses and lengths from user space are checked here before
 * rdma_cm sees them.
 */
#include <linux/slab.h>
#include <rdma/ib_cm.h>
#include <rdma/ib_marshall.h>
#include <rdma/rdma_cm_ib.h>
#include "ucma_priv.h"

/* @size bytes of @resp to user space (the dispatcher saw room for them). */
static int ucma_respond(u64 response, const void *resp, size_t size)
{
	return copy_to_user(u64_to_user_ptr(response), resp, size) ? -EFAULT : 0;
}

/* The QP type of each port space; the IB space takes the caller's. */
static const struct {
	u16	ps;
	bool	asked;
	u8	type;
} ucma_ps_types[] = {
	{ RDMA_PS_TCP, false, IB_QPT_RC },
	{ RDMA_PS_UDP, false, IB_QPT_UD },
	{ RDMA_PS_IPOIB, false, IB_QPT_UD },
	{ RDMA_PS_IB, true, 0 },
};

static int ucma_qp_type(u16 ps, u8 asked, enum ib_qp_type *type)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ucma_ps_types); i++) {
		if (ucma_ps_types[i].ps != ps)
			continue;
		*type = ucma_ps_types[i].asked ? asked : ucma_ps_types[i].type;
		return 0;
	}
	pr_debug("rdma_ucm: port space %#x refused\n", ps);
	return -EINVAL;
}

static ssize_t ucma_create_id(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_create_id *cmd = in;
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_context *ctx;
	struct rdma_cm_id *cm_id;
	enum ib_qp_type type;
	int ret;

	ret = ucma_qp_type(cmd->ps, cmd->qp_type, &type);
	if (ret)
		return ret;
	ctx = ucma_ctx_alloc(file);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ctx->uid = cmd->uid;
	ctx->claimed = true;
	cm_id = rdma_create_user_id(ucma_event_handler, ctx, cmd->ps, type);
	if (IS_ERR(cm_id)) {
		ret = PTR_ERR(cm_id);
		goto err;
	}
	ctx->cm_id = cm_id;
	resp.id = ctx->id;
	ret = ucma_respond(cmd->response, &resp, sizeof(resp)) ?:
	      ucma_ctx_publish(ctx);
	if (!ret)
		return 0;
err:
	xa_erase(&ucma_ctxs, ctx->id);
	ucma_destroy_ctx(ctx);
	return ret;
}

static ssize_t ucma_destroy_id(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_destroy_id *cmd = in;
	struct rdma_ucm_destroy_id_resp resp = {};
	struct ucma_context *ctx;

	ctx = ucma_take(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	resp.events_reported = ucma_destroy_ctx(ctx);
	return ucma_respond(cmd->response, &resp, sizeof(resp));
}

static ssize_t ucma_bind_ip(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_bind_ip *cmd = in;
	struct sockaddr_in6 addr = cmd->addr;
	struct ucma_context *ctx;
	int ret;

	if (!rdma_addr_size_in6(&addr))
		return -EINVAL;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&addr);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_bind(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_bind *cmd = in;
	struct __kernel_sockaddr_storage addr = cmd->addr;
	struct ucma_context *ctx;
	int ret;

	if (cmd->reserved || !cmd->addr_size ||
	    cmd->addr_size != rdma_addr_size_kss(&addr))
		return -EINVAL;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_bind_addr(ctx->cm_id, (struct sockaddr *)&addr);
	ucma_put_unlock(ctx);
	return ret;
}

static int ucma_resolve(struct ucma_file *file, u32 id, struct sockaddr *src,
			struct sockaddr *dst, u32 timeout_ms)
{
	struct ucma_context *ctx = ucma_get_locked(file, id);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_resolve_addr(ctx->cm_id, src, dst, timeout_ms);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_resolve_ip(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_resolve_ip *cmd = in;
	struct sockaddr_in6 src = cmd->src_addr, dst = cmd->dst_addr;

	if ((src.sin6_family && !rdma_addr_size_in6(&src)) ||
	    !rdma_addr_size_in6(&dst))
		return -EINVAL;
	return ucma_resolve(file, cmd->id, (struct sockaddr *)&src,
			    (struct sockaddr *)&dst, cmd->timeout_ms);
}

static ssize_t ucma_resolve_addr(struct ucma_file *file, const void *in,
				 int out)
{
	const struct rdma_ucm_resolve_addr *cmd = in;
	struct __kernel_sockaddr_storage src = cmd->src_addr;
	struct __kernel_sockaddr_storage dst = cmd->dst_addr;

	if (cmd->reserved ||
	    (cmd->src_size && cmd->src_size != rdma_addr_size_kss(&src)) ||
	    !cmd->dst_size || cmd->dst_size != rdma_addr_size_kss(&dst))
		return -EINVAL;
	return ucma_resolve(file, cmd->id,
			    cmd->src_size ? (struct sockaddr *)&src : NULL,
			    (struct sockaddr *)&dst, cmd->timeout_ms);
}

static ssize_t ucma_resolve_route(struct ucma_file *file, const void *in,
				  int out)
{
	const struct rdma_ucm_resolve_route *cmd = in;
	struct ucma_context *ctx = ucma_get_locked(file, cmd->id);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_resolve_route(ctx->cm_id, cmd->timeout_ms);
	ucma_put_unlock(ctx);
	return ret;
}

/* The kernel form of user space's connection parameters. */
static void ucma_conn_param(struct rdma_cm_id *cm_id,
			    struct rdma_conn_param *dst,
			    const struct rdma_ucm_conn_param *src)
{
	*dst = (struct rdma_conn_param) {
		.private_data = src->private_data,
		.private_data_len = src->private_data_len,
		.responder_resources = src->responder_resources,
		.initiator_depth = src->initiator_depth,
		.flow_control = src->flow_control,
		.retry_count = src->retry_count,
		.rnr_retry_count = src->rnr_retry_count,
		.srq = src->srq,
		.qp_num = src->qp_num & 0xFFFFFF,
	};
	/* An IP port space has its Q_Key; AF_IB users pick theirs. */
	if (cm_id->route.addr.src_addr.ss_family == AF_IB)
		dst->qkey = src->qkey;
}

static ssize_t ucma_connect(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_connect *cmd = in;
	struct rdma_ucm_ece ece = cmd->ece;
	struct rdma_conn_param param;
	struct ucma_context *ctx;
	int ret;

	if (!cmd->conn_param.valid)
		return -EINVAL;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ucma_conn_param(ctx->cm_id, &param, &cmd->conn_param);
	ret = rdma_connect_ece(ctx->cm_id, &param, &ece);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_listen(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_listen *cmd = in;
	int max = READ_ONCE(ucma_max_backlog);
	struct ucma_context *ctx;
	int backlog, ret;

	backlog = cmd->backlog && cmd->backlog <= max ? cmd->backlog : max;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	atomic_set(&ctx->backlog, backlog);
	ret = rdma_listen(ctx->cm_id, backlog);
	ucma_put_unlock(ctx);
	return ret;
}

/*
 * With connection parameters: the passive side accepts a request and
 * gives the new context its cookie.  Without: the active side confirms
 * a CONNECT_RESPONSE (the RTU).
 */
static ssize_t ucma_accept(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_accept *cmd = in;
	struct rdma_ucm_ece ece = cmd->ece;
	struct rdma_conn_param param;
	struct ucma_context *ctx;
	int ret;

	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	if (cmd->conn_param.valid) {
		ucma_conn_param(ctx->cm_id, &param, &cmd->conn_param);
		mutex_lock(&ctx->file->mut);
		ctx->uid = cmd->uid;
		WRITE_ONCE(ctx->claimed, true);
		mutex_unlock(&ctx->file->mut);
	}
	rdma_lock_handler(ctx->cm_id);
	ret = rdma_accept_ece(ctx->cm_id,
			      cmd->conn_param.valid ? &param : NULL, &ece);
	rdma_unlock_handler(ctx->cm_id);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_reject(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_reject *cmd = in;
	struct ucma_context *ctx;
	u8 reason = cmd->reason ?: IB_CM_REJ_CONSUMER_DEFINED;
	int ret;

	/* User space may refuse for itself, or for options it lacks. */
	if (reason != IB_CM_REJ_CONSUMER_DEFINED &&
	    reason != IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED)
		return -EINVAL;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	rdma_lock_handler(ctx->cm_id);
	ret = rdma_reject(ctx->cm_id, cmd->private_data, cmd->private_data_len,
			  reason);
	rdma_unlock_handler(ctx->cm_id);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_disconnect(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_disconnect *cmd = in;
	struct ucma_context *ctx = ucma_get_locked(file, cmd->id);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_disconnect(ctx->cm_id);
	ucma_put_unlock(ctx);
	return ret;
}

static ssize_t ucma_init_qp_attr(struct ucma_file *file, const void *in,
				 int out)
{
	const struct rdma_ucm_init_qp_attr *cmd = in;
	struct ib_uverbs_qp_attr resp = {};
	struct ib_qp_attr attr = {};
	struct ucma_context *ctx;
	int mask, ret;

	if (cmd->qp_state > IB_QPS_ERR)
		return -EINVAL;
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	attr.qp_state = cmd->qp_state;
	ret = rdma_init_qp_attr(ctx->cm_id, &attr, &mask);
	if (!ret && !ctx->cm_id->device)
		ret = -EINVAL;
	if (!ret) {
		ib_copy_qp_attr_to_user(ctx->cm_id->device, &resp, &attr);
		resp.qp_attr_mask = mask;
	}
	ucma_put_unlock(ctx);
	return ret ?: ucma_respond(cmd->response, &resp, sizeof(resp));
}

static ssize_t ucma_notify(struct ucma_file *file, const void *in, int out)
{
	const struct rdma_ucm_notify *cmd = in;
	struct ucma_context *ctx = ucma_get_locked(file, cmd->id);
	int ret;

	if (IS_ERR(ctx))
		return PTR_ERR(ctx);
	ret = rdma_notify(ctx->cm_id, (enum ib_event_type)cmd->event);
	ucma_put_unlock(ctx);
	return ret;
}

/* ---- options ------------------------------------------------------------- */

/* RDMA_OPTION_ID_*: one byte or one int, as the option is defined. */
static int ucma_set_id_option(struct rdma_cm_id *cm_id, u32 name,
			      const void *val, u32 len)
{
	switch (name) {
	case RDMA_OPTION_ID_TOS:
		if (len != sizeof(u8))
			return -EINVAL;
		rdma_set_service_type(cm_id, *(const u8 *)val);
		return 0;
	case RDMA_OPTION_ID_REUSEADDR:
		if (len != sizeof(int))
			return -EINVAL;
		return rdma_set_reuseaddr(cm_id, *(const int *)val ? 1 : 0);
	case RDMA_OPTION_ID_AFONLY:
		if (len != sizeof(int))
			return -EINVAL;
		return rdma_set_afonly(cm_id, *(const int *)val ? 1 : 0);
	case RDMA_OPTION_ID_ACK_TIMEOUT:
		if (len != sizeof(u8))
			return -EINVAL;
		return rdma_set_ack_timeout(cm_id, *(const u8 *)val);
	}
	return -ENOSYS;
}

/*
 * RDMA_OPTION_IB_PATH: the paths user space resolved itself (ibacm); the
 * primary bidirectional one becomes the ID's route, as if route
 * resolution had found it, ROUTE_RESOLVED included.
 */
static int ucma_set_ib_path(struct ucma_context *ctx,
			    const struct ib_path_rec_data *recs, u32 len)
{
	const u32 want = IB_PATH_GMP | IB_PATH_PRIMARY | IB_PATH_BIDIRECTIONAL;
	struct rdma_cm_event ev = { .event = RDMA_CM_EVENT_ROUTE_RESOLVED };
	struct sa_path_rec path;
	unsigned int i, n = len / sizeof(*recs);
	int ret;

	if (!n || len % sizeof(*recs))
		return -EINVAL;
	for (i = 0; i < n && recs[i].flags != want; i++)
		;
	if (i == n)
		return -EINVAL;
	ib_sa_unpack_path((void *)recs[i].path_rec, &path);
	ret = rdma_set_ib_path(ctx->cm_id, &path);
	if (ret)
		return ret;
	rdma_lock_handler(ctx->cm_id);
	ucma_event_handler(ctx->cm_id, &ev);
	rdma_unlock_handler(ctx->cm_id);
	return 0;
}

/* The most an option carries: a few path records. */
#define UCMA_OPTLEN_MAX (16 * sizeof(struct ib_path_rec_data))

static ssize_t ucma_set_option(struct ucma_file *file, const void *in,
			       int out)
{
	const struct rdma_ucm_set_option *cmd = in;
	struct ucma_context *ctx;
	void *val;
	int ret;

	if (!cmd->optlen || cmd->optlen > UCMA_OPTLEN_MAX)
		return -EINVAL;
	val = memdup_user(u64_to_user_ptr(cmd->optval), cmd->optlen);
	if (IS_ERR(val))
		return PTR_ERR(val);
	ctx = ucma_get_locked(file, cmd->id);
	if (IS_ERR(ctx)) {
		kfree(val);
		return PTR_ERR(ctx);
	}
	if (cmd->level == RDMA_OPTION_ID)
		ret = ucma_set_id_option(ctx->cm_id, cmd->optname, val,
					 cmd->optlen);
	else if (cmd->level == RDMA_OPTION_IB &&
		 cmd->optname == RDMA_OPTION_IB_PATH)
		ret = ucma_set_ib_path(ctx, val, cmd->optlen);
	else
		ret = -ENOSYS;
	ucma_put_unlock(ctx);
	kfree(val);
	return ret;
}

/* ---- multicast ------------------------------------------------------------ */

static int ucma_join(struct ucma_file *file, u32 id, u64 uid, u64 response,
		     struct sockaddr *addr, u16 flags)
{
	struct rdma_ucm_create_id_resp resp = {};
	struct ucma_context *ctx;
	struct ucma_mc *mc;
	u8 state;
	int ret;

	if (flags == RDMA_MC_JOIN_FLAG_FULLMEMBER)
		state = BIT(FULLMEMBER_JOIN);
	else if (flags == RDMA_MC_JOIN_FLAG_SENDONLY_FULLMEMBER)
		state = BIT(SENDONLY_FULLMEMBER_JOIN);
	else
		return -EINVAL;
	mc = kzalloc(sizeof(*mc), GFP_KERNEL);
	if (!mc)
		return -ENOMEM;
	ctx = ucma_get_locked(file, id);
	if (IS_ERR(ctx)) {
		kfree(mc);
		return PTR_ERR(ctx);
	}
	mc->ctx = ctx;
	mc->uid = uid;
	memcpy(&mc->addr, addr, rdma_addr_size(addr));
	ret = xa_alloc(&ucma_mcs, &mc->id, NULL, xa_limit_32b, GFP_KERNEL);
	if (ret)
		goto err_free;
	ret = rdma_join_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr,
				  state, mc);
	if (ret)
		goto err_xa;
	resp.id = mc->id;
	ret = ucma_respond(response, &resp, sizeof(resp)) ?:
	      xa_err(xa_store(&ucma_mcs, mc->id, mc, GFP_KERNEL));
	if (ret)
		goto err_leave;
	list_add_tail(&mc->node, &ctx->mcs);
	ucma_put_unlock(ctx);
	return 0;

err_leave:
	rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	ucma_mc_forget(mc);
err_xa:
	xa_erase(&ucma_mcs, mc->id);
err_free:
	ucma_put_unlock(ctx);
	kfree(mc);
	return ret;
}

static ssize_t ucma_join_ip_mcast(struct ucma_file *file, const void *in,
				  int out)
{
	const struct rdma_ucm_join_ip_mcast *cmd = in;
	struct sockaddr_in6 addr = cmd->addr;

	if (!rdma_addr_size_in6(&addr))
		return -EINVAL;
	return ucma_join(file, cmd->id, cmd->uid, cmd->response,
			 (struct sockaddr *)&addr, RDMA_MC_JOIN_FLAG_FULLMEMBER);
}

static ssize_t ucma_join_mcast(struct ucma_file *file, const void *in,
			       int out)
{
	const struct rdma_ucm_join_mcast *cmd = in;
	struct __kernel_sockaddr_storage addr = cmd->addr;

	if (!cmd->addr_size || cmd->addr_size != rdma_addr_size_kss(&addr))
		return -EINVAL;
	return ucma_join(file, cmd->id, cmd->uid, cmd->response,
			 (struct sockaddr *)&addr, cmd->join_flags);
}

static ssize_t ucma_leave_mcast(struct ucma_file *file, const void *in,
				int out)
{
	const struct rdma_ucm_destroy_id *cmd = in;
	struct rdma_ucm_destroy_id_resp resp = {};
	struct ucma_context *ctx;
	struct ucma_mc *mc;

	/* Whoever erases the group owns it; its context stays while held. */
	xa_lock(&ucma_mcs);
	mc = xa_load(&ucma_mcs, cmd->id);
	if (!mc)
		mc = ERR_PTR(-ENOENT);
	else if (READ_ONCE(mc->ctx->file) != file)
		mc = ERR_PTR(-EINVAL);
	else if (!refcount_inc_not_zero(&mc->ctx->refs))
		mc = ERR_PTR(-ENOENT);
	else
		__xa_erase(&ucma_mcs, cmd->id);
	xa_unlock(&ucma_mcs);
	if (IS_ERR(mc))
		return PTR_ERR(mc);
	ctx = mc->ctx;
	mutex_lock(&ctx->mutex);
	list_del(&mc->node);
	if (ctx->cm_id)
		rdma_leave_multicast(ctx->cm_id, (struct sockaddr *)&mc->addr);
	resp.events_reported = ucma_mc_forget(mc);
	ucma_put_unlock(ctx);
	kfree(mc);
	return ucma_respond(cmd->response, &resp, sizeof(resp));
}

/* ---- the table --------------------------------------------------------------- */

/*
 * UCMA_CMD(NAME, handler, payload type, room its answer needs);
 * UCMA_CMD_MIN() for a payload that may end before the type does.
 */
#define UCMA_CMD(name, fn, type, room) \
	UCMA_CMD_MIN(name, fn, type, sizeof(type), room)
#define UCMA_CMD_MIN(name, fn, type, least, room) \
	[RDMA_USER_CM_CMD_##name] = { fn, sizeof(type), least, room }

const struct ucma_cmd ucma_cmds[] = {
	UCMA_CMD(CREATE_ID, ucma_create_id, struct rdma_ucm_create_id,
		 sizeof(struct rdma_ucm_create_id_resp)),
	UCMA_CMD(DESTROY_ID, ucma_destroy_id, struct rdma_ucm_destroy_id,
		 sizeof(struct rdma_ucm_destroy_id_resp)),
	UCMA_CMD(BIND_IP, ucma_bind_ip, struct rdma_ucm_bind_ip, 0),
	UCMA_CMD(RESOLVE_IP, ucma_resolve_ip, struct rdma_ucm_resolve_ip, 0),
	UCMA_CMD(RESOLVE_ROUTE, ucma_resolve_route,
		 struct rdma_ucm_resolve_route, 0),
	UCMA_CMD(QUERY_ROUTE, ucma_query_route, struct rdma_ucm_query,
		 sizeof(struct rdma_ucm_query_route_resp)),
	/* Enhanced connection options came later, at the end. */
	UCMA_CMD_MIN(CONNECT, ucma_connect, struct rdma_ucm_connect,
		     offsetof(struct rdma_ucm_connect, ece), 0),
	UCMA_CMD(LISTEN, ucma_listen, struct rdma_ucm_listen, 0),
	UCMA_CMD_MIN(ACCEPT, ucma_accept, struct rdma_ucm_accept,
		     offsetof(struct rdma_ucm_accept, ece), 0),
	UCMA_CMD(REJECT, ucma_reject, struct rdma_ucm_reject, 0),
	UCMA_CMD(DISCONNECT, ucma_disconnect, struct rdma_ucm_disconnect, 0),
	UCMA_CMD(INIT_QP_ATTR, ucma_init_qp_attr,
		 struct rdma_ucm_init_qp_attr, sizeof(struct ib_uverbs_qp_attr)),
	/* Older librdmacm has no room for the ECE fields of an event. */
	UCMA_CMD(GET_EVENT, ucma_get_event, struct rdma_ucm_get_event,
		 offsetof(struct rdma_ucm_event_resp, reserved)),
	/* GET_OPTION has no handler: -ENOSYS, as librdmacm expects. */
	UCMA_CMD(SET_OPTION, ucma_set_option, struct rdma_ucm_set_option, 0),
	UCMA_CMD(NOTIFY, ucma_notify, struct rdma_ucm_notify, 0),
	UCMA_CMD(JOIN_IP_MCAST, ucma_join_ip_mcast,
		 struct rdma_ucm_join_ip_mcast,
		 sizeof(struct rdma_ucm_create_id_resp)),
	UCMA_CMD(LEAVE_MCAST, ucma_leave_mcast, struct rdma_ucm_destroy_id,
		 sizeof(struct rdma_ucm_destroy_id_resp)),
	UCMA_CMD(MIGRATE_ID, ucma_migrate_id, struct rdma_ucm_migrate_id,
		 sizeof(struct rdma_ucm_migrate_resp)),
	/* QUERY: the room depends on the option. */
	UCMA_CMD(QUERY, ucma_query, struct rdma_ucm_query, 0),
	UCMA_CMD(BIND, ucma_bind, struct rdma_ucm_bind, 0),
	UCMA_CMD(RESOLVE_ADDR, ucma_resolve_addr,
		 struct rdma_ucm_resolve_addr, 0),
	UCMA_CMD(JOIN_MCAST, ucma_join_mcast, struct rdma_ucm_join_mcast,
		 sizeof(struct rdma_ucm_create_id_resp)),
};

const unsigned int ucma_ncmds = ARRAY_SIZE(ucma_cmds);
