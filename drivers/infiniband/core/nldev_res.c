// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The resource commands of nldev ("rdma resource show qp|cq|mr|pd|srq|
 * ctx|cm_id"): one tracked object (doit, by its id) or the table of a
 * device (dump), read from restrack.c, plus the raw variants that hand an
 * object to its provider's fill_res_*_entry_raw().
 *
 * Object lifetime: an entry is pinned with rdma_restrack_get() under its
 * table's lock and described after the lock is dropped (the description
 * may call ib_query_qp(), which sleeps); rdma_restrack_del() waits for
 * that reference, so the object outlives the description.
 *
 * A dump names its device (DEV_INDEX) and optionally a port; the next id
 * to report is kept in cb->args[0].  Entries that do not fit end the
 * round and open the next one.
 *
 * Keys (lkey, rkey, the PD's DMA lkey) are only shown to CAP_NET_ADMIN.
 */
#include <linux/pid.h>
#include <linux/sched.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "cma_priv.h"
#include "core_priv.h"
#include "nldev_priv.h"

/*
 * How one kind of object is described: its tracking table, the nest of a
 * dump and of each entry, the attribute carrying its id, and the fill
 * function (normal or raw).  @fill returns -EAGAIN for an object a port
 * filter excludes.
 */
struct nldev_res_kind {
	enum rdma_restrack_type type;
	u16 table_attr;
	u16 entry_attr;
	u16 id_attr;
	bool raw;
	int (*fill)(struct sk_buff *msg, bool admin,
		    struct rdma_restrack_entry *res, u32 port);
};

/* ---- provider helpers ------------------------------------------------------ */

static int res_put_driver_name(struct sk_buff *msg, const char *name,
			       bool hex)
{
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, name))
		return -EMSGSIZE;
	if (hex && nla_put_u8(msg, RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE,
			      RDMA_NLDEV_PRINT_TYPE_HEX))
		return -EMSGSIZE;
	return 0;
}

static int res_put_driver_u32(struct sk_buff *msg, const char *name,
			      u32 value, bool hex)
{
	if (res_put_driver_name(msg, name, hex) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_DRIVER_U32, value))
		return -EMSGSIZE;
	return 0;
}

static int res_put_driver_u64(struct sk_buff *msg, const char *name,
			      u64 value, bool hex)
{
	if (res_put_driver_name(msg, name, hex) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_DRIVER_U64, value,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	return 0;
}

/**
 * rdma_nl_put_driver_u32() - add a named provider value to a resource entry
 * @msg: the message, inside the provider's RDMA_NLDEV_ATTR_DRIVER nest
 * @name: what the tool prints before the value
 * @value: the value, printed in decimal
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value)
{
	return res_put_driver_u32(msg, name, value, false);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32);

/**
 * rdma_nl_put_driver_u32_hex() - as rdma_nl_put_driver_u32(), shown in hex
 * @msg: the message, inside the provider's RDMA_NLDEV_ATTR_DRIVER nest
 * @name: what the tool prints before the value
 * @value: the value
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_put_driver_u32_hex(struct sk_buff *msg, const char *name,
			       u32 value)
{
	return res_put_driver_u32(msg, name, value, true);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u32_hex);

/**
 * rdma_nl_put_driver_u64() - add a named 64-bit provider value
 * @msg: the message, inside the provider's RDMA_NLDEV_ATTR_DRIVER nest
 * @name: what the tool prints before the value
 * @value: the value, printed in decimal
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_put_driver_u64(struct sk_buff *msg, const char *name, u64 value)
{
	return res_put_driver_u64(msg, name, value, false);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64);

/**
 * rdma_nl_put_driver_u64_hex() - as rdma_nl_put_driver_u64(), shown in hex
 * @msg: the message, inside the provider's RDMA_NLDEV_ATTR_DRIVER nest
 * @name: what the tool prints before the value
 * @value: the value
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_put_driver_u64_hex(struct sk_buff *msg, const char *name,
			       u64 value)
{
	return res_put_driver_u64(msg, name, value, true);
}
EXPORT_SYMBOL(rdma_nl_put_driver_u64_hex);

/**
 * rdma_nl_put_driver_string() - add a named provider string
 * @msg: the message, inside the provider's RDMA_NLDEV_ATTR_DRIVER nest
 * @name: what the tool prints before the string
 * @str: the string
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_put_driver_string(struct sk_buff *msg, const char *name,
			      const char *str)
{
	if (res_put_driver_name(msg, name, false) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DRIVER_STRING, str))
		return -EMSGSIZE;
	return 0;
}
EXPORT_SYMBOL(rdma_nl_put_driver_string);

/* ---- one entry of each kind ------------------------------------------------ */

/* Who owns the object: a process (its pid) or a kernel module (its name). */
static int res_fill_owner(struct sk_buff *msg, struct rdma_restrack_entry *res)
{
	if (rdma_is_kernel_res(res))
		return res->kern_name &&
		       nla_put_string(msg, RDMA_NLDEV_ATTR_RES_KERN_NAME,
				      res->kern_name) ? -EMSGSIZE : 0;
	if (res->task &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PID, task_pid_vnr(res->task)))
		return -EMSGSIZE;
	return 0;
}

static int res_fill_qp(struct sk_buff *msg, bool admin,
		       struct rdma_restrack_entry *res, u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	struct ib_qp_init_attr init_attr;
	struct ib_qp_attr attr;
	int err;

	if (port && port != qp->port)
		return -EAGAIN;
	err = ib_query_qp(qp, &attr, 0, &init_attr);
	if (err)
		return err;

	/* The port is known once the QP went through INIT. */
	if (qp->port && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, qp->port))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num))
		return -EMSGSIZE;
	if ((qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQPN, attr.dest_qp_num) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RQ_PSN, attr.rq_psn)))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SQ_PSN, attr.sq_psn))
		return -EMSGSIZE;
	if ((qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC ||
	     qp->qp_type == IB_QPT_XRC_INI || qp->qp_type == IB_QPT_XRC_TGT) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE,
		       attr.path_mig_state))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, qp->qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, attr.qp_state))
		return -EMSGSIZE;
	if (!rdma_is_kernel_res(res) && qp->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, qp->pd->res.id))
		return -EMSGSIZE;
	err = res_fill_owner(msg, res);
	if (err)
		return err;
	if (qp->device->ops.fill_res_qp_entry)
		return qp->device->ops.fill_res_qp_entry(msg, qp);
	return 0;
}

static int res_fill_cq(struct sk_buff *msg, bool admin,
		       struct rdma_restrack_entry *res, u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);
	int err;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQE, cq->cqe) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&cq->usecnt), RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;
	if (rdma_is_kernel_res(res) &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_POLL_CTX, cq->poll_ctx))
		return -EMSGSIZE;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, !!cq->dim) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, res->id))
		return -EMSGSIZE;
	err = res_fill_owner(msg, res);
	if (err)
		return err;
	if (cq->device->ops.fill_res_cq_entry)
		return cq->device->ops.fill_res_cq_entry(msg, cq);
	return 0;
}

static int res_fill_mr(struct sk_buff *msg, bool admin,
		       struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);
	int err;

	if (admin &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_RKEY, mr->rkey) ||
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LKEY, mr->lkey)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_MRLEN, mr->length,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_MRN, res->id))
		return -EMSGSIZE;
	if (!rdma_is_kernel_res(res) && mr->pd &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, mr->pd->res.id))
		return -EMSGSIZE;
	err = res_fill_owner(msg, res);
	if (err)
		return err;
	if (mr->device->ops.fill_res_mr_entry)
		return mr->device->ops.fill_res_mr_entry(msg, mr);
	return 0;
}

static int res_fill_pd(struct sk_buff *msg, bool admin,
		       struct rdma_restrack_entry *res, u32 port)
{
	struct ib_pd *pd = container_of(res, struct ib_pd, res);

	if (admin) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY,
				pd->local_dma_lkey))
			return -EMSGSIZE;
		if ((pd->flags & IB_PD_UNSAFE_GLOBAL_RKEY) &&
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY,
				pd->unsafe_global_rkey))
			return -EMSGSIZE;
	}
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_USECNT,
			      atomic_read(&pd->usecnt), RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, res->id))
		return -EMSGSIZE;
	return res_fill_owner(msg, res);
}

/*
 * The QPs on @srq, each by its number: rdma(8) skips an SRQ whose entry
 * lacks this table, even an empty one.  Read under the QP table's lock,
 * which keeps every listed QP in memory.
 */
static int res_fill_srq_qps(struct sk_buff *msg, struct ib_srq *srq)
{
	struct xarray *xa = &srq->device->res[RDMA_RESTRACK_QP].xa;
	struct rdma_restrack_entry *res;
	struct nlattr *table, *entry;
	unsigned long id;
	struct ib_qp *qp;
	int err = 0;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP);
	if (!table)
		return -EMSGSIZE;
	xa_lock(xa);
	xa_for_each(xa, id, res) {
		if (xa_is_zero(res))
			continue;
		qp = container_of(res, struct ib_qp, res);
		if (qp->srq != srq)
			continue;
		entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_QP_ENTRY);
		if (!entry ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, qp->qp_num)) {
			err = -EMSGSIZE;
			break;
		}
		nla_nest_end(msg, entry);
	}
	xa_unlock(xa);
	if (err) {
		nla_nest_cancel(msg, table);
		return err;
	}
	nla_nest_end(msg, table);
	return 0;
}

static int res_fill_srq(struct sk_buff *msg, bool admin,
			struct rdma_restrack_entry *res, u32 port)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);
	int err;

	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_SRQN, res->id) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, srq->srq_type) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PDN, srq->pd->res.id))
		return -EMSGSIZE;
	if (ib_srq_has_cq(srq->srq_type) && srq->ext.cq &&
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CQN, srq->ext.cq->res.id))
		return -EMSGSIZE;
	err = res_fill_srq_qps(msg, srq) ?: res_fill_owner(msg, res);
	if (err)
		return err;
	if (srq->device->ops.fill_res_srq_entry)
		return srq->device->ops.fill_res_srq_entry(msg, srq);
	return 0;
}

static int res_fill_ctx(struct sk_buff *msg, bool admin,
			struct rdma_restrack_entry *res, u32 port)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CTXN, res->id))
		return -EMSGSIZE;
	return res_fill_owner(msg, res);
}

/* Raw entries: the provider's own dump, or nothing to show. */
static int res_fill_qp_raw(struct sk_buff *msg, bool admin,
			   struct rdma_restrack_entry *res, u32 port)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);

	if (port && port != qp->port)
		return -EAGAIN;
	if (!qp->device->ops.fill_res_qp_entry_raw)
		return -EOPNOTSUPP;
	return qp->device->ops.fill_res_qp_entry_raw(msg, qp);
}

static int res_fill_cq_raw(struct sk_buff *msg, bool admin,
			   struct rdma_restrack_entry *res, u32 port)
{
	struct ib_cq *cq = container_of(res, struct ib_cq, res);

	if (!cq->device->ops.fill_res_cq_entry_raw)
		return -EOPNOTSUPP;
	return cq->device->ops.fill_res_cq_entry_raw(msg, cq);
}

static int res_fill_mr_raw(struct sk_buff *msg, bool admin,
			   struct rdma_restrack_entry *res, u32 port)
{
	struct ib_mr *mr = container_of(res, struct ib_mr, res);

	if (!mr->device->ops.fill_res_mr_entry_raw)
		return -EOPNOTSUPP;
	return mr->device->ops.fill_res_mr_entry_raw(msg, mr);
}

static int res_fill_srq_raw(struct sk_buff *msg, bool admin,
			    struct rdma_restrack_entry *res, u32 port)
{
	struct ib_srq *srq = container_of(res, struct ib_srq, res);

	if (!srq->device->ops.fill_res_srq_entry_raw)
		return -EOPNOTSUPP;
	return srq->device->ops.fill_res_srq_entry_raw(msg, srq);
}

/* An RDMA CM ID (rdma_cm); the restrack reference keeps it alive. */
static int res_fill_cm_id(struct sk_buff *msg, bool admin,
			  struct rdma_restrack_entry *res, u32 port)
{
	struct rdma_id_private *p = container_of(res, struct rdma_id_private,
						 res);
	struct rdma_addr *a = &p->id.route.addr;

	if (port && p->id.port_num != port)
		return -EAGAIN;
	if ((p->id.port_num &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, p->id.port_num)) ||
	    (p->qp_num &&
	     nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_LQPN, p->qp_num)) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_PS, p->id.ps) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_TYPE, p->id.qp_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_STATE, READ_ONCE(p->state)) ||
	    (a->src_addr.ss_family &&
	     nla_put(msg, RDMA_NLDEV_ATTR_RES_SRC_ADDR,
		     sizeof(a->src_addr), &a->src_addr)) ||
	    (a->dst_addr.ss_family &&
	     nla_put(msg, RDMA_NLDEV_ATTR_RES_DST_ADDR,
		     sizeof(a->dst_addr), &a->dst_addr)) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_CM_IDN, res->id))
		return -EMSGSIZE;
	return res_fill_owner(msg, res);
}

#define RES_KIND(_type, _name, _id, _fill, _raw) {			\
	.type = RDMA_RESTRACK_##_type,					\
	.table_attr = RDMA_NLDEV_ATTR_RES_##_name,			\
	.entry_attr = RDMA_NLDEV_ATTR_RES_##_name##_ENTRY,		\
	.id_attr = RDMA_NLDEV_ATTR_RES_##_id,				\
	.fill = _fill,							\
	.raw = _raw,							\
}

static const struct nldev_res_kind nldev_res_kinds[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_RES_QP_GET] = RES_KIND(QP, QP, LQPN, res_fill_qp, false),
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = RES_KIND(CM_ID, CM_ID, CM_IDN,
						  res_fill_cm_id, false),
	[RDMA_NLDEV_CMD_RES_CQ_GET] = RES_KIND(CQ, CQ, CQN, res_fill_cq, false),
	[RDMA_NLDEV_CMD_RES_MR_GET] = RES_KIND(MR, MR, MRN, res_fill_mr, false),
	[RDMA_NLDEV_CMD_RES_PD_GET] = RES_KIND(PD, PD, PDN, res_fill_pd, false),
	[RDMA_NLDEV_CMD_RES_CTX_GET] = RES_KIND(CTX, CTX, CTXN, res_fill_ctx,
						false),
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = RES_KIND(SRQ, SRQ, SRQN, res_fill_srq,
						false),
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = RES_KIND(QP, QP, LQPN,
						   res_fill_qp_raw, true),
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = RES_KIND(CQ, CQ, CQN,
						   res_fill_cq_raw, true),
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = RES_KIND(MR, MR, MRN,
						   res_fill_mr_raw, true),
	[RDMA_NLDEV_CMD_RES_SRQ_GET_RAW] = RES_KIND(SRQ, SRQ, SRQN,
						    res_fill_srq_raw, true),
};

static const struct nldev_res_kind *res_kind_of(const struct nlmsghdr *nlh,
						u32 *cmd)
{
	*cmd = RDMA_NL_GET_OP(nlh->nlmsg_type);
	if (*cmd >= RDMA_NLDEV_NUM_OPS || !nldev_res_kinds[*cmd].fill)
		return NULL;
	return &nldev_res_kinds[*cmd];
}

/* The port filter of a request, checked against the device; 0 for none. */
static int res_port_filter(struct ib_device *device, struct nlattr **tb,
			   u32 *port, struct netlink_ext_ack *extack)
{
	*port = 0;
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX])
		return 0;
	return nldev_get_port(device, tb, extack, port);
}

/**
 * nldev_res_get_obj_doit() - RES_<kind>_GET[_RAW] for one object
 * @skb: the request
 * @nlh: its header; the command selects the kind
 * @extack: error report
 *
 * Return: 0; -EINVAL for a bad request, -ENOENT if no object has the id,
 * -EOPNOTSUPP for a raw dump the provider does not offer.
 */
int nldev_res_get_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	const struct nldev_res_kind *kind;
	struct rdma_restrack_entry *res;
	struct nlmsghdr *reply_nlh;
	struct ib_device *device;
	struct sk_buff *msg;
	u32 cmd, port;
	int err;

	kind = res_kind_of(nlh, &cmd);
	if (!kind)
		return -EOPNOTSUPP;
	err = nldev_parse_request(nlh, cmd, false, tb, extack);
	if (err)
		return err;
	device = nldev_get_device(skb, tb, extack);
	if (!device)
		return -EINVAL;
	err = res_port_filter(device, tb, &port, extack);
	if (err)
		goto out_dev;

	res = rdma_restrack_get_byid(device, kind->type,
				     nla_get_u32(tb[kind->id_attr]));
	if (IS_ERR(res)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[kind->id_attr], "No such object");
		err = PTR_ERR(res);
		goto out_dev;
	}

	msg = nldev_new_reply(skb, nlh, cmd, &reply_nlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_res;
	}
	err = nldev_fill_handle(msg, device);
	if (!err)
		err = kind->fill(msg, netlink_capable(skb, CAP_NET_ADMIN), res,
				 port);
	if (err == -EAGAIN) {
		NL_SET_ERR_MSG(extack, "The object is not on that port");
		err = -EINVAL;
	}
	if (err) {
		nlmsg_free(msg);
		goto out_res;
	}
	rdma_restrack_put(res);
	ib_device_put(device);
	return nldev_send_reply(skb, msg, reply_nlh);

out_res:
	rdma_restrack_put(res);
out_dev:
	ib_device_put(device);
	return err;
}

/*
 * The next listed object of @type from *@id on, pinned; NULL at the end.
 * Objects marked as driver details are skipped unless @details.
 */
static struct rdma_restrack_entry *res_next(struct ib_device *device,
					    enum rdma_restrack_type type,
					    unsigned long *id, bool details)
{
	struct xarray *xa = &device->res[type].xa;
	struct rdma_restrack_entry *res;

	xa_lock(xa);
	for (res = xa_find(xa, id, U32_MAX, XA_PRESENT); res;
	     res = xa_find_after(xa, id, U32_MAX, XA_PRESENT)) {
		if (xa_is_zero(res))
			continue;
		if (!details && xa_get_mark(xa, *id, RESTRACK_DD))
			continue;
		if (rdma_restrack_get(res))
			break;
	}
	xa_unlock(xa);
	return res;
}

/* One entry nest in a dump message; -EAGAIN if filtered out. */
static int res_dump_entry(struct sk_buff *skb, const struct nldev_res_kind *kind,
			  bool admin, struct rdma_restrack_entry *res, u32 port)
{
	struct nlattr *entry;
	int err;

	entry = nla_nest_start_noflag(skb, kind->entry_attr);
	if (!entry)
		return -EMSGSIZE;
	err = kind->fill(skb, admin, res, port);
	if (err) {
		nla_nest_cancel(skb, entry);
		return err;
	}
	nla_nest_end(skb, entry);
	return 0;
}

/**
 * nldev_res_get_obj_dumpit() - RES_<kind>_GET[_RAW] dump of a device
 * @skb: the reply being built
 * @cb: the dump state; the request names the device, maybe a port
 *
 * Each round sends one message holding as many entries as fit.
 *
 * Return: the length of @skb (0 when done) or a negative errno.
 */
int nldev_res_get_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	const struct nldev_res_kind *kind;
	struct rdma_restrack_entry *res;
	unsigned long id = cb->args[0];
	struct ib_device *device;
	struct nlattr *table;
	struct nlmsghdr *nlh;
	bool admin, details;
	int err, count = 0;
	u32 cmd, port;

	if (cb->args[1])
		return 0;	/* the last round reached the end */
	kind = res_kind_of(cb->nlh, &cmd);
	if (!kind)
		return -EOPNOTSUPP;
	err = nldev_parse_request(cb->nlh, cmd, true, tb, cb->extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		NL_SET_ERR_MSG(cb->extack, "Device index is missing");
		return -EINVAL;
	}
	device = nldev_get_device(cb->skb, tb, cb->extack);
	if (!device)
		return -EINVAL;
	err = res_port_filter(device, tb, &port, cb->extack);
	if (err)
		goto out_dev;
	admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	details = nldev_show_details(tb);

	nlh = nldev_dump_msg(skb, cb, cmd);
	if (!nlh || nldev_fill_handle(skb, device)) {
		err = -EMSGSIZE;
		goto out_cancel;
	}
	table = nla_nest_start_noflag(skb, kind->table_attr);
	if (!table) {
		err = -EMSGSIZE;
		goto out_cancel;
	}

	while ((res = res_next(device, kind->type, &id, details))) {
		err = res_dump_entry(skb, kind, admin, res, port);
		rdma_restrack_put(res);
		if (err == -EMSGSIZE && count) {
			/* Full: this entry opens the next round. */
			err = 0;
			break;
		}
		if (err && err != -EAGAIN)
			break;
		if (!err)
			count++;
		err = 0;
		if (id == U32_MAX)
			break;
		id++;
	}
	if (err)
		goto out_cancel;
	if (!res)
		cb->args[1] = 1;
	cb->args[0] = id;

	/* Nothing to show is an empty dump, not an empty table. */
	if (!count) {
		nlmsg_cancel(skb, nlh);
		ib_device_put(device);
		return 0;
	}
	nla_nest_end(skb, table);
	nlmsg_end(skb, nlh);
	ib_device_put(device);
	return skb->len;

out_cancel:
	if (nlh)
		nlmsg_cancel(skb, nlh);
out_dev:
	ib_device_put(device);
	return err;
}
