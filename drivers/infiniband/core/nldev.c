// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The nldev client of RDMA netlink (RDMA_NL_NLDEV): what iproute2's "rdma"
 * tool talks to.  Commands and attributes are the uapi's
 * (<uapi/rdma/rdma_netlink.h>); every request is parsed against
 * nldev_policy, so a handler only sees attributes of the right type and
 * size.
 *
 * Commands:
 *   GET (doit, dump)       device: index, name, port count, capabilities,
 *                          firmware, GUIDs, node type, DIM, protocol
 *   SET                    rename; netns move and DIM refused (no
 *                          provider can move, no adaptive moderation)
 *   PORT_GET (doit, dump)  port: state, IB addressing, netdev
 *   SYS_GET / SYS_SET      namespace mode and system flags
 *   NEWLINK / DELLINK      "rdma link add/delete" through rdma_link_ops
 *   RES_GET (doit, dump)   per-device count of tracked resources
 *   RES_*_GET[_RAW]        one tracked object or a table (nldev_res.c)
 *   STAT_*                 port counters (nldev_stat.c)
 *   GET_CHARDEV            the char device of a client (uverbs, umad...)
 *   MONITOR                events to RDMA_NL_GROUP_NOTIFY, sent by
 *                          nldev_notify_event() from device.c
 * The attribute policy and the attributes each command requires are in
 * nldev_attr.c; the errors are listed in
 * Documentation/infiniband/nldev.rst.
 *
 * Error convention: a missing, malformed or meaningless attribute is
 * -EINVAL with an extack message; a device index that names no device
 * visible to the caller is -EINVAL as well (the attribute is bad), a
 * netdev name that does not exist in the caller's namespace is -ENODEV.
 *
 * Devices: doit handlers pin the device with ib_device_get_by_index()
 * (registration reference, dropped before returning).  Dump handlers walk
 * the registered devices with ib_enum_all_devs(), whose registry lock
 * keeps each device registered while it is described; the position is
 * kept in the netlink callback as the next device index to report, so a
 * device that comes or goes between two rounds of a dump moves nothing
 * else.
 *
 * Link types: rdma_link_register() adds a provider's rdma_link_ops to
 * link_ops_list.  NEWLINK calls ops->newlink() with link_ops_rwsem held
 * for read, so rdma_link_unregister() (module unload) waits for a
 * creation in progress.
 */
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/kdev_t.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/rwsem.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "core_priv.h"
#include "nldev_priv.h"

static_assert(IB_DEVICE_NAME_MAX - 1 == NLDEV_NAME_LEN);
static_assert(IFNAMSIZ - 1 == NLDEV_IFNAME_LEN);
static_assert(TASK_COMM_LEN - 1 == NLDEV_COMM_LEN);
static_assert(IB_FW_VERSION_NAME_MAX - 1 == NLDEV_FW_LEN);

/* The registered device a request's DEV_INDEX names, pinned; or NULL. */
struct ib_device *nldev_get_device(struct sk_buff *skb, struct nlattr **tb,
				   struct netlink_ext_ack *extack)
{
	struct ib_device *device;

	device = ib_device_get_by_index(sock_net(skb->sk),
					nla_get_u32(tb[RDMA_NLDEV_ATTR_DEV_INDEX]));
	if (!device)
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_DEV_INDEX],
				    "No such device");
	return device;
}

/* ---- message builders ------------------------------------------------------ */

/* The two attributes that name a device in every message about it. */
int nldev_fill_handle(struct sk_buff *msg, struct ib_device *device)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME, dev_name(&device->dev)))
		return -EMSGSIZE;
	return 0;
}

/* The transport name "rdma dev" prints, decided on the first port. */
static const char *nldev_protocol(struct ib_device *device)
{
	u32 port = rdma_start_port(device);

	if (rdma_cap_opa_mad(device, port))
		return "opa";
	if (rdma_protocol_ib(device, port))
		return "ib";
	if (rdma_protocol_iwarp(device, port))
		return "iw";
	if (rdma_protocol_roce(device, port))
		return "roce";
	if (rdma_protocol_usnic(device, port))
		return "usnic";
	return NULL;
}

static int fill_dev_info(struct sk_buff *msg, struct ib_device *device)
{
	char fw[IB_FW_VERSION_NAME_MAX] = {};
	const char *protocol;

	if (nldev_fill_handle(msg, device))
		return -EMSGSIZE;
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, rdma_end_port(device)))
		return -EMSGSIZE;
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			      device->attrs.device_cap_flags,
			      RDMA_NLDEV_ATTR_PAD))
		return -EMSGSIZE;

	ib_get_device_fw_str(device, fw);
	fw[sizeof(fw) - 1] = '\0';
	if (fw[0] && nla_put_string(msg, RDMA_NLDEV_ATTR_FW_VERSION, fw))
		return -EMSGSIZE;

	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			      be64_to_cpu(device->node_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			      be64_to_cpu(device->attrs.sys_image_guid),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE, device->node_type) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, device->use_cq_dim))
		return -EMSGSIZE;

	/* Only sub-devices have a type and a parent. */
	if (device->type &&
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_TYPE, device->type))
		return -EMSGSIZE;
	if (device->parent &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_PARENT_NAME,
			   dev_name(&device->parent->dev)))
		return -EMSGSIZE;

	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE,
		       device->name_assign_type))
		return -EMSGSIZE;

	protocol = nldev_protocol(device);
	if (protocol &&
	    nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL, protocol))
		return -EMSGSIZE;
	return 0;
}

static int fill_port_info(struct sk_buff *msg, struct ib_device *device,
			  u32 port, const struct net *net)
{
	struct ib_port_attr attr;
	struct net_device *ndev;
	int ret;

	if (nldev_fill_handle(msg, device) ||
	    nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		return -EMSGSIZE;

	ret = ib_query_port(device, port, &attr);
	if (ret)
		return ret;

	if (rdma_protocol_ib(device, port)) {
		u64 cap_flags = attr.port_cap_flags |
				((u64)attr.port_cap_flags2 << 32);

		if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
				      cap_flags, RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
				      attr.subnet_prefix,
				      RDMA_NLDEV_ATTR_PAD) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, attr.lid) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, attr.sm_lid) ||
		    nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, attr.lmc))
			return -EMSGSIZE;
	}
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, attr.state) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE, attr.phys_state))
		return -EMSGSIZE;

	/* A netdev in another namespace is none of the caller's business. */
	ndev = ib_device_get_netdev(device, port);
	if (ndev && net_eq(dev_net(ndev), net)) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX,
				ndev->ifindex) ||
		    nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name))
			ret = -EMSGSIZE;
	}
	dev_put(ndev);
	return ret;
}

/* "rdma res" names of the kinds in the summary; the rest are not shown. */
static const char * const nldev_res_names[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD]	= "pd",
	[RDMA_RESTRACK_CQ]	= "cq",
	[RDMA_RESTRACK_QP]	= "qp",
	[RDMA_RESTRACK_CM_ID]	= "cm_id",
	[RDMA_RESTRACK_MR]	= "mr",
	[RDMA_RESTRACK_CTX]	= "ctx",
	[RDMA_RESTRACK_SRQ]	= "srq",
};

static int fill_res_info(struct sk_buff *msg, struct ib_device *device,
			 bool show_details)
{
	struct nlattr *summary;
	unsigned int kind;

	if (nldev_fill_handle(msg, device))
		return -EMSGSIZE;

	summary = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!summary)
		return -EMSGSIZE;

	for (kind = 0; kind < RDMA_RESTRACK_MAX; kind++) {
		struct nlattr *entry;

		if (!nldev_res_names[kind])
			continue;
		entry = nla_nest_start_noflag(msg,
					      RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
		if (!entry)
			goto cancel;
		if (nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
				   nldev_res_names[kind]) ||
		    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR,
				      rdma_restrack_count(device, kind,
							  show_details),
				      RDMA_NLDEV_ATTR_PAD)) {
			nla_nest_cancel(msg, entry);
			goto cancel;
		}
		nla_nest_end(msg, entry);
	}
	nla_nest_end(msg, summary);
	return 0;

cancel:
	nla_nest_cancel(msg, summary);
	return -EMSGSIZE;
}

/* ---- replies --------------------------------------------------------------- */

/*
 * A fresh reply to @nlh for command @cmd, with its header in place;
 * NULL on allocation failure.
 */
struct sk_buff *nldev_new_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
				u32 cmd, struct nlmsghdr **reply_nlh)
{
	struct sk_buff *msg;

	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*reply_nlh = nlmsg_put(msg, NETLINK_CB(skb).portid, nlh->nlmsg_seq,
			       RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, 0);
	if (!*reply_nlh) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

/* Finish a reply built with nldev_new_reply() and send it; consumes @msg. */
int nldev_send_reply(struct sk_buff *skb, struct sk_buff *msg,
		     struct nlmsghdr *reply_nlh)
{
	nlmsg_end(msg, reply_nlh);
	return rdma_nl_unicast(sock_net(skb->sk), msg,
			       NETLINK_CB(skb).portid);
}

static int nldev_dump_one(struct ib_device *device, void *arg)
{
	struct nldev_dump_ctx *ctx = arg;
	struct netlink_callback *cb = ctx->cb;
	struct nlmsghdr *nlh;
	int err;

	if (device->index < cb->args[0])
		return 0;
	if (!rdma_dev_access_netns(device, sock_net(ctx->skb->sk))) {
		cb->args[0] = device->index + 1UL;
		return 0;
	}

	nlh = nlmsg_put(ctx->skb, NETLINK_CB(cb->skb).portid,
			cb->nlh->nlmsg_seq,
			RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, ctx->cmd), 0,
			NLM_F_MULTI);
	if (!nlh) {
		ctx->err = -EMSGSIZE;
		return 1;
	}
	err = ctx->fill(ctx->skb, device, ctx);
	if (err) {
		nlmsg_cancel(ctx->skb, nlh);
		ctx->err = err;
		return 1;
	}
	nlmsg_end(ctx->skb, nlh);
	cb->args[0] = device->index + 1UL;
	return 0;
}

/*
 * Run a device dump round.  A device that does not fit ends the round; it
 * comes first in the next one.  A device that does not fit into an empty
 * message, or whose description fails otherwise, ends the dump with the
 * error.
 */
int nldev_dump_devices(struct nldev_dump_ctx *ctx)
{
	ib_enum_all_devs(nldev_dump_one, ctx);

	if (!ctx->err)
		return ctx->skb->len;
	if (ctx->err == -EMSGSIZE && ctx->skb->len)
		return ctx->skb->len;
	return ctx->err;
}

bool nldev_show_details(struct nlattr **tb)
{
	return tb[RDMA_NLDEV_ATTR_DRIVER_DETAILS] &&
	       nla_get_u8(tb[RDMA_NLDEV_ATTR_DRIVER_DETAILS]);
}

/*
 * A doit that answers with one device's message: parse, pin the device
 * named by DEV_INDEX, let @fill write the body, send.
 */
int nldev_device_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
		      struct netlink_ext_ack *extack, u32 cmd,
		      int (*fill)(struct sk_buff *msg, struct ib_device *device,
				  struct nldev_dump_ctx *ctx))
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nldev_dump_ctx ctx = { .cmd = cmd, .tb = tb };
	struct nlmsghdr *reply_nlh;
	struct ib_device *device;
	struct sk_buff *msg;
	int err;

	err = nldev_parse_request(nlh, cmd, false, tb, extack);
	if (err)
		return err;
	device = nldev_get_device(skb, tb, extack);
	if (!device)
		return -EINVAL;
	ctx.show_details = nldev_show_details(tb);

	msg = nldev_new_reply(skb, nlh, cmd, &reply_nlh);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = fill(msg, device, &ctx);
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	ib_device_put(device);
	return nldev_send_reply(skb, msg, reply_nlh);

out:
	ib_device_put(device);
	return err;
}

/* ---- GET ------------------------------------------------------------------- */

static int nldev_fill_dev(struct sk_buff *msg, struct ib_device *device,
			  struct nldev_dump_ctx *ctx)
{
	return fill_dev_info(msg, device);
}

static int nldev_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	return nldev_device_doit(skb, nlh, extack, RDMA_NLDEV_CMD_GET,
				 nldev_fill_dev);
}

static int nldev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nldev_dump_ctx ctx = {
		.skb = skb,
		.cb = cb,
		.cmd = RDMA_NLDEV_CMD_GET,
		.fill = nldev_fill_dev,
	};

	return nldev_dump_devices(&ctx);
}

/* ---- PORT_GET -------------------------------------------------------------- */

static int nldev_port_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlmsghdr *reply_nlh;
	struct ib_device *device;
	struct sk_buff *msg;
	u32 port;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_PORT_GET, false, tb,
				  extack);
	if (err)
		return err;
	device = nldev_get_device(skb, tb, extack);
	if (!device)
		return -EINVAL;

	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(device, port)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_PORT_INDEX],
				    "No such port");
		err = -EINVAL;
		goto out;
	}

	msg = nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_PORT_GET, &reply_nlh);
	if (!msg) {
		err = -ENOMEM;
		goto out;
	}
	err = fill_port_info(msg, device, port, sock_net(skb->sk));
	if (err) {
		nlmsg_free(msg);
		goto out;
	}
	ib_device_put(device);
	return nldev_send_reply(skb, msg, reply_nlh);

out:
	ib_device_put(device);
	return err;
}

/*
 * The ports of one device (DEV_INDEX is required); cb->args[0] is the
 * next port to report.
 */
static int nldev_port_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *nlh;
	u32 port;
	int err;

	err = nldev_parse_request(cb->nlh, RDMA_NLDEV_CMD_PORT_GET, true, tb,
				  cb->extack);
	if (err)
		return err;
	device = nldev_get_device(cb->skb, tb, cb->extack);
	if (!device)
		return -EINVAL;

	if (!cb->args[0])
		cb->args[0] = rdma_start_port(device);

	for (port = cb->args[0]; port <= rdma_end_port(device); port++) {
		nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				cb->nlh->nlmsg_seq,
				RDMA_NL_GET_TYPE(RDMA_NL_NLDEV,
						 RDMA_NLDEV_CMD_PORT_GET),
				0, NLM_F_MULTI);
		if (!nlh) {
			err = -EMSGSIZE;
			break;
		}
		err = fill_port_info(skb, device, port, sock_net(skb->sk));
		if (err) {
			nlmsg_cancel(skb, nlh);
			break;
		}
		nlmsg_end(skb, nlh);
		cb->args[0] = port + 1;
	}
	ib_device_put(device);

	if (!err || (err == -EMSGSIZE && skb->len))
		return skb->len;
	return err;
}

/* ---- SYS_GET --------------------------------------------------------------- */

static int nldev_sys_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlmsghdr *reply_nlh;
	struct sk_buff *msg;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_SYS_GET, false, tb, extack);
	if (err)
		return err;

	msg = nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_SYS_GET, &reply_nlh);
	if (!msg)
		return -ENOMEM;

	/*
	 * The namespace mode; no privileged Q_Key mode;
	 * pinned pages are copied on fork by the memory manager itself;
	 * device events go to RDMA_NL_GROUP_NOTIFY (nldev_notify_event()).
	 */
	if (nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
		       rdma_netns_shared()) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1) ||
	    nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, 1)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	return nldev_send_reply(skb, msg, reply_nlh);
}

/* ---- SYS_SET --------------------------------------------------------------- */

/*
 * Namespace mode: shared (1) or exclusive (0), switched from init_net
 * only.  The privileged Q_Key mode is fixed at 0: asking for it is
 * -EOPNOTSUPP so that nobody believes it is enforced.
 */
static int nldev_sys_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nlattr *mode, *qkey;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_SYS_SET, false, tb, extack);
	if (err)
		return err;
	mode = tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE];
	qkey = tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE];
	if (!mode && !qkey) {
		NL_SET_ERR_MSG(extack, "Nothing to set");
		return -EINVAL;
	}
	if (mode && nla_get_u8(mode) > 1) {
		NL_SET_ERR_MSG_ATTR(extack, mode, "Namespace mode is 0 or 1");
		return -EINVAL;
	}
	if (qkey && nla_get_u8(qkey) > 1) {
		NL_SET_ERR_MSG_ATTR(extack, qkey, "Privileged Q_Key mode is 0 or 1");
		return -EINVAL;
	}
	if (qkey && nla_get_u8(qkey)) {
		NL_SET_ERR_MSG_ATTR(extack, qkey,
				    "Privileged Q_Key mode is not supported");
		return -EOPNOTSUPP;
	}
	if (!mode)
		return 0;
	if (!net_eq(sock_net(skb->sk), &init_net)) {
		NL_SET_ERR_MSG_ATTR(extack, mode,
				    "The namespace mode is set from the initial namespace");
		return -EPERM;
	}
	err = rdma_set_netns_shared(nla_get_u8(mode));
	if (err)
		NL_SET_ERR_MSG_ATTR(extack, mode,
				    "A device belongs to another namespace");
	return err;
}

/* ---- SET ------------------------------------------------------------------- */

static int nldev_rename(struct ib_device *device, struct nlattr *attr,
			struct netlink_ext_ack *extack)
{
	char name[IB_DEVICE_NAME_MAX];
	int err;

	nla_strscpy(name, attr, sizeof(name));
	if (!nldev_dev_name_valid(name)) {
		NL_SET_ERR_MSG_ATTR(extack, attr,
				    "Device name is empty or has '%', '/' or spaces");
		return -EINVAL;
	}
	err = ib_device_rename(device, name);
	if (err == -EEXIST)
		NL_SET_ERR_MSG_ATTR(extack, attr, "Device name already in use");
	else if (err)
		NL_SET_ERR_MSG_ATTR(extack, attr, "Rename failed");
	return err;
}

/*
 * "rdma dev set DEV name NEW", "... netns NS", "... adaptive-moderation
 * on|off".  One change per request, as the tool sends them.
 */
static int nldev_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_SET, false, tb, extack);
	if (err)
		return err;
	device = nldev_get_device(skb, tb, extack);
	if (!device)
		return -EINVAL;

	if (tb[RDMA_NLDEV_ATTR_DEV_NAME]) {
		err = nldev_rename(device, tb[RDMA_NLDEV_ATTR_DEV_NAME], extack);
	} else if (tb[RDMA_NLDEV_NET_NS_FD]) {
		/*
		 * Moving needs exclusive mode, and a provider that can drop
		 * its user contexts; none here can, as upstream's rxe cannot.
		 */
		if (rdma_netns_shared())
			NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_NET_NS_FD],
					    "Devices are shared by all namespaces and cannot move");
		else
			NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_NET_NS_FD],
					    "The provider cannot move its devices");
		err = -EOPNOTSUPP;
	} else if (tb[RDMA_NLDEV_ATTR_DEV_DIM]) {
		/* The policy already refused values above 1. */
		if (nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_DIM])) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_DEV_DIM],
					    "Adaptive CQ moderation is not supported");
			err = -EOPNOTSUPP;
		} else {
			device->use_cq_dim = false;
			err = 0;
		}
	} else {
		NL_SET_ERR_MSG(extack, "Nothing to set");
		err = -EINVAL;
	}
	ib_device_put(device);
	return err;
}

/* ---- GET_CHARDEV ----------------------------------------------------------- */

/*
 * Which character device serves a client ("uverbs", "umad", ...) for a
 * device, or globally ("rdma_cm").  The client module is loaded on demand
 * through its "rdma-client-<name>" alias.
 */
static int nldev_get_chardev(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char client_name[RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE];
	struct ib_client_nl_info data = {};
	struct ib_device *device = NULL;
	struct nlmsghdr *reply_nlh;
	struct sk_buff *msg;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_GET_CHARDEV, false, tb,
				  extack);
	if (err)
		return err;
	nla_strscpy(client_name, tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE],
		    sizeof(client_name));
	if (!nldev_link_type_valid(client_name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE],
				    "Invalid char device type");
		return -EINVAL;
	}

	if (tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		device = nldev_get_device(skb, tb, extack);
		if (!device)
			return -EINVAL;
		if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
			data.port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
			if (!rdma_is_port_valid(device, data.port)) {
				NL_SET_ERR_MSG_ATTR(extack,
						    tb[RDMA_NLDEV_ATTR_PORT_INDEX],
						    "No such port");
				err = -EINVAL;
				goto out_dev;
			}
		} else {
			data.port = -1;
		}
	} else if (tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		NL_SET_ERR_MSG(extack, "A port needs a device index");
		return -EINVAL;
	}

	msg = nldev_new_reply(skb, nlh, RDMA_NLDEV_CMD_GET_CHARDEV, &reply_nlh);
	if (!msg) {
		err = -ENOMEM;
		goto out_dev;
	}
	data.nl_msg = msg;
	err = ib_get_client_nl_info(device, client_name, &data);
	if (err) {
		if (err == -EOPNOTSUPP)
			NL_SET_ERR_MSG_ATTR(extack,
					    tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE],
					    "No such char device type");
		goto out_msg;
	}
	if (nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV,
			      huge_encode_dev(data.cdev->devt),
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_CHARDEV_ABI, data.abi,
			      RDMA_NLDEV_ATTR_PAD) ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_CHARDEV_NAME,
			   dev_name(data.cdev))) {
		err = -EMSGSIZE;
		goto out_cdev;
	}
	put_device(data.cdev);
	if (device)
		ib_device_put(device);
	return nldev_send_reply(skb, msg, reply_nlh);

out_cdev:
	put_device(data.cdev);
out_msg:
	nlmsg_free(msg);
out_dev:
	if (device)
		ib_device_put(device);
	return err;
}

/* ---- MONITOR: notifications ------------------------------------------------ */

/**
 * nldev_notify_event() - tell "rdma monitor" listeners about a device
 * @device: the device the event is about
 * @port: the port of a netdev event, 0 for device events
 * @type: an rdma_nl_notify_event_type value
 *
 * Sends an RDMA_NLDEV_CMD_MONITOR message to RDMA_NL_GROUP_NOTIFY of the
 * initial namespace, whichever namespace the device belongs to.  Netdev
 * events carry the port and, while it is attached, the
 * netdev's index and name.  Nothing is built when nobody listens; a
 * message that cannot be allocated is dropped, as multicast may be.
 *
 * Context: process context; may sleep (GFP_KERNEL).
 */
void nldev_notify_event(struct ib_device *device, u32 port, u8 type)
{
	struct net_device *ndev = NULL;
	struct nlmsghdr *nlh;
	struct sk_buff *msg;

	if (!rdma_nl_chk_listeners(RDMA_NL_GROUP_NOTIFY))
		return;
	msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return;
	nlh = nlmsg_put(msg, 0, 0,
			RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_MONITOR),
			0, 0);
	if (!nlh)
		goto free;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_EVENT_TYPE, type) ||
	    nldev_fill_handle(msg, device))
		goto free;
	if (port) {
		if (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
			goto free;
		ndev = ib_device_get_netdev(device, port);
		if (ndev &&
		    (nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX, ndev->ifindex) ||
		     nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name)))
			goto free;
	}
	dev_put(ndev);
	nlmsg_end(msg, nlh);
	rdma_nl_multicast(&init_net, msg, RDMA_NL_GROUP_NOTIFY, GFP_KERNEL);
	return;

free:
	dev_put(ndev);
	nlmsg_free(msg);
}

/* ---- link types, NEWLINK, DELLINK ------------------------------------------ */

static LIST_HEAD(link_ops_list);
static DECLARE_RWSEM(link_ops_rwsem);

/* link_ops_rwsem held. */
static const struct rdma_link_ops *link_ops_find(const char *type)
{
	const struct rdma_link_ops *ops;

	list_for_each_entry(ops, &link_ops_list, list)
		if (!strcmp(ops->type, type))
			return ops;
	return NULL;
}

/**
 * rdma_link_register() - offer a link type to "rdma link add"
 * @ops: the link type; stays registered, and must stay valid, until
 *	rdma_link_unregister()
 *
 * A second registration of the same type name is refused with a warning.
 *
 * Context: process context (module init); sleeps.
 */
void rdma_link_register(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	if (!WARN_ON(link_ops_find(ops->type)))
		list_add(&ops->list, &link_ops_list);
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_register);

/**
 * rdma_link_unregister() - withdraw a link type
 * @ops: a link type given to rdma_link_register()
 *
 * Waits for a newlink() of this or any other type that is running.
 * Devices created earlier are not touched.
 *
 * Context: process context (module exit); sleeps.
 */
void rdma_link_unregister(struct rdma_link_ops *ops)
{
	down_write(&link_ops_rwsem);
	list_del(&ops->list);
	up_write(&link_ops_rwsem);
}
EXPORT_SYMBOL(rdma_link_unregister);

static int nldev_newlink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	char ibdev_name[IB_DEVICE_NAME_MAX];
	const struct rdma_link_ops *ops;
	char ndev_name[IFNAMSIZ];
	struct ib_device *other;
	struct net_device *ndev;
	char type[IFNAMSIZ];
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_NEWLINK, false, tb, extack);
	if (err)
		return err;

	nla_strscpy(ibdev_name, tb[RDMA_NLDEV_ATTR_DEV_NAME],
		    sizeof(ibdev_name));
	if (!nldev_dev_name_valid(ibdev_name)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_DEV_NAME],
				    "Device name is empty or has '%', '/' or spaces");
		return -EINVAL;
	}
	nla_strscpy(type, tb[RDMA_NLDEV_ATTR_LINK_TYPE], sizeof(type));
	if (!nldev_link_type_valid(type)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_LINK_TYPE],
				    "Invalid link type");
		return -EINVAL;
	}
	nla_strscpy(ndev_name, tb[RDMA_NLDEV_ATTR_NDEV_NAME],
		    sizeof(ndev_name));

	ndev = dev_get_by_name(sock_net(skb->sk), ndev_name);
	if (!ndev) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_NDEV_NAME],
				    "No such netdev in this namespace");
		return -ENODEV;
	}

	other = ib_device_get_by_name(ibdev_name, RDMA_DRIVER_UNKNOWN);
	if (other) {
		ib_device_put(other);
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_DEV_NAME],
				    "Device name already in use");
		err = -EEXIST;
		goto out_ndev;
	}

	down_read(&link_ops_rwsem);
	ops = link_ops_find(type);
	if (!ops) {
		up_read(&link_ops_rwsem);
		request_module("rdma-link-%s", type);
		down_read(&link_ops_rwsem);
		ops = link_ops_find(type);
	}
	if (ops) {
		err = ops->newlink(ibdev_name, ndev);
		/* A name taken since the check above. */
		if (err == -ENFILE || err == -EEXIST) {
			NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_DEV_NAME],
					    "Device name already in use");
			err = -EEXIST;
		}
	} else {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_LINK_TYPE],
				    "Unknown link type");
		err = -EINVAL;
	}
	up_read(&link_ops_rwsem);
out_ndev:
	dev_put(ndev);
	return err;
}

static int nldev_dellink(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_DELLINK, false, tb, extack);
	if (err)
		return err;
	device = nldev_get_device(skb, tb, extack);
	if (!device)
		return -EINVAL;

	/*
	 * Only devices their provider lets user space remove; those free
	 * themselves on unregistration (dealloc_driver).
	 */
	if (!(device->attrs.kernel_cap_flags & IBK_ALLOW_USER_UNREG) ||
	    !device->ops.dealloc_driver) {
		ib_device_put(device);
		NL_SET_ERR_MSG(extack, "Device cannot be deleted from user space");
		return -EINVAL;
	}

	ib_unregister_device_and_put(device);
	return 0;
}

/* ---- RES_GET --------------------------------------------------------------- */

static int nldev_fill_res(struct sk_buff *msg, struct ib_device *device,
			  struct nldev_dump_ctx *ctx)
{
	return fill_res_info(msg, device, ctx->show_details);
}

static int nldev_res_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			      struct netlink_ext_ack *extack)
{
	return nldev_device_doit(skb, nlh, extack, RDMA_NLDEV_CMD_RES_GET,
				 nldev_fill_res);
}

static int nldev_res_get_dumpit(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct nldev_dump_ctx ctx = {
		.skb = skb,
		.cb = cb,
		.cmd = RDMA_NLDEV_CMD_RES_GET,
		.fill = nldev_fill_res,
	};
	int err;

	err = nldev_parse_request(cb->nlh, RDMA_NLDEV_CMD_RES_GET, true, tb,
				  cb->extack);
	if (err)
		return err;
	ctx.show_details = nldev_show_details(tb);
	return nldev_dump_devices(&ctx);
}

/* ---- the client ------------------------------------------------------------ */

#define NLDEV_RES_CMD { \
	.doit = nldev_res_get_obj_doit, \
	.dump = nldev_res_get_obj_dumpit, \
}

#define NLDEV_RES_RAW_CMD { \
	.doit = nldev_res_get_obj_doit, \
	.dump = nldev_res_get_obj_dumpit, \
	.flags = RDMA_NL_ADMIN_PERM, \
}

static const struct rdma_nl_cbs nldev_cb_table[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = {
		.doit = nldev_get_doit,
		.dump = nldev_get_dumpit,
	},
	[RDMA_NLDEV_CMD_SET] = {
		.doit = nldev_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_NEWLINK] = {
		.doit = nldev_newlink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_DELLINK] = {
		.doit = nldev_dellink,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_PORT_GET] = {
		.doit = nldev_port_get_doit,
		.dump = nldev_port_get_dumpit,
	},
	[RDMA_NLDEV_CMD_SYS_GET] = {
		.doit = nldev_sys_get_doit,
	},
	[RDMA_NLDEV_CMD_SYS_SET] = {
		.doit = nldev_sys_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_RES_GET] = {
		.doit = nldev_res_get_doit,
		.dump = nldev_res_get_dumpit,
	},
	[RDMA_NLDEV_CMD_RES_QP_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_CQ_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_MR_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_PD_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_CTX_GET] = NLDEV_RES_CMD,
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = NLDEV_RES_CMD,
	/* Raw provider dumps may show keys and addresses: admin only. */
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = NLDEV_RES_RAW_CMD,
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = NLDEV_RES_RAW_CMD,
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = NLDEV_RES_RAW_CMD,
	[RDMA_NLDEV_CMD_RES_SRQ_GET_RAW] = NLDEV_RES_RAW_CMD,
	[RDMA_NLDEV_CMD_GET_CHARDEV] = {
		.doit = nldev_get_chardev,
	},
	[RDMA_NLDEV_CMD_STAT_GET] = {
		.doit = nldev_stat_get_doit,
		.dump = nldev_stat_get_dumpit,
	},
	[RDMA_NLDEV_CMD_STAT_SET] = {
		.doit = nldev_stat_set_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_DEL] = {
		.doit = nldev_stat_del_doit,
		.flags = RDMA_NL_ADMIN_PERM,
	},
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] = {
		.doit = nldev_stat_get_status_doit,
	},
};

/**
 * nldev_init() - serve the nldev commands
 *
 * Context: module init of ib_core, after rdma_nl_init().
 * Return: 0.
 */
int nldev_init(void)
{
	rdma_nl_register(RDMA_NL_NLDEV, nldev_cb_table);
	return 0;
}

/**
 * nldev_exit() - stop serving the nldev commands
 *
 * Context: module exit of ib_core, before rdma_nl_exit().
 */
void nldev_exit(void)
{
	rdma_nl_unregister(RDMA_NL_NLDEV);
}

MODULE_ALIAS_RDMA_NETLINK(RDMA_NL_NLDEV, 5);
