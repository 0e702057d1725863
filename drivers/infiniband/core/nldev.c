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
 *   SET                    rename, netns move (exclusive mode); DIM
 *                          refused (no adaptive moderation)
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
 * Doit handlers carry their state in a struct nldev_req: the parsed
 * attributes, the device pinned with ib_device_get_by_index()
 * (registration reference) and the reply; nldev_req_finish() sends or
 * drops the reply and unpins the device (DELLINK hands its reference to
 * the unregistration instead).  Dump handlers of
 * devices walk the registered devices with ib_enum_all_devs(), whose
 * registry lock keeps each device registered while it is described; the
 * position is kept in the netlink callback as the next device index to
 * report, so a device that comes or goes between two rounds of a dump
 * moves nothing else.
 *
 * Link types: rdma_link_register() adds a provider's rdma_link_ops to
 * link_types.  NEWLINK calls ops->newlink() with link_types_rwsem held
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
	struct nlattr *index = tb[RDMA_NLDEV_ATTR_DEV_INDEX];
	struct ib_device *device;

	device = ib_device_get_by_index(sock_net(skb->sk), nla_get_u32(index));
	if (!device)
		NL_SET_ERR_MSG_ATTR(extack, index, "No such device");
	return device;
}

/* The port a request's PORT_INDEX names, checked against @device. */
int nldev_get_port(struct ib_device *device, struct nlattr **tb,
		   struct netlink_ext_ack *extack, u32 *port)
{
	struct nlattr *index = tb[RDMA_NLDEV_ATTR_PORT_INDEX];

	*port = nla_get_u32(index);
	if (rdma_is_port_valid(device, *port))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, index, "No such port");
	return -EINVAL;
}

bool nldev_show_details(struct nlattr **tb)
{
	struct nlattr *details = tb[RDMA_NLDEV_ATTR_DRIVER_DETAILS];

	return details && nla_get_u8(details);
}

/* ---- message builders ------------------------------------------------------ */

/*
 * The builders below return 0, -EMSGSIZE for the first attribute that
 * did not fit, or the error of a query they make; on failure they leave
 * what they wrote in place: whoever started the message frees or cancels
 * all of it.
 */

static int nldev_put_u64(struct sk_buff *msg, int attr, u64 value)
{
	return nla_put_u64_64bit(msg, attr, value, RDMA_NLDEV_ATTR_PAD);
}

/* A string attribute that is only sent when there is a string. */
static int nldev_put_opt_str(struct sk_buff *msg, int attr, const char *str)
{
	return str ? nla_put_string(msg, attr, str) : 0;
}

/* The two attributes that name a device in every message about it. */
int nldev_fill_handle(struct sk_buff *msg, struct ib_device *device)
{
	return nla_put_u32(msg, RDMA_NLDEV_ATTR_DEV_INDEX, device->index) ?:
	       nla_put_string(msg, RDMA_NLDEV_ATTR_DEV_NAME,
			      dev_name(&device->dev));
}

/*
 * The netdev under a port, by index and name; with @net, only when the
 * netdev lives in that namespace (one in another namespace is none of
 * the caller's business).
 */
static int nldev_put_port_ndev(struct sk_buff *msg, struct ib_device *device,
			       u32 port, const struct net *net)
{
	struct net_device *ndev = ib_device_get_netdev(device, port);
	int err = 0;

	if (!ndev)
		return 0;
	if (!net || net_eq(dev_net(ndev), net))
		err = nla_put_u32(msg, RDMA_NLDEV_ATTR_NDEV_INDEX,
				  ndev->ifindex) ?:
		      nla_put_string(msg, RDMA_NLDEV_ATTR_NDEV_NAME, ndev->name);
	dev_put(ndev);
	return err;
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

/* GET: what "rdma dev show" prints about a device. */
static int nldev_put_dev(struct sk_buff *msg, struct ib_device *device,
			 bool details)
{
	char fw[IB_FW_VERSION_NAME_MAX] = {};
	const char *parent = NULL;

	ib_get_device_fw_str(device, fw);
	fw[sizeof(fw) - 1] = '\0';
	/* Only sub-devices have a type and a parent. */
	if (device->parent)
		parent = dev_name(&device->parent->dev);

	return nldev_fill_handle(msg, device) ?:
	       nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX,
			   rdma_end_port(device)) ?:
	       nldev_put_u64(msg, RDMA_NLDEV_ATTR_CAP_FLAGS,
			     device->attrs.device_cap_flags) ?:
	       nldev_put_opt_str(msg, RDMA_NLDEV_ATTR_FW_VERSION,
				 fw[0] ? fw : NULL) ?:
	       nldev_put_u64(msg, RDMA_NLDEV_ATTR_NODE_GUID,
			     be64_to_cpu(device->node_guid)) ?:
	       nldev_put_u64(msg, RDMA_NLDEV_ATTR_SYS_IMAGE_GUID,
			     be64_to_cpu(device->attrs.sys_image_guid)) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_NODE_TYPE,
			  device->node_type) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_DIM, device->use_cq_dim) ?:
	       (device->type ?
		nla_put_u8(msg, RDMA_NLDEV_ATTR_DEV_TYPE, device->type) : 0) ?:
	       nldev_put_opt_str(msg, RDMA_NLDEV_ATTR_PARENT_NAME, parent) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE,
			  device->name_assign_type) ?:
	       nldev_put_opt_str(msg, RDMA_NLDEV_ATTR_DEV_PROTOCOL,
				 nldev_protocol(device));
}

/* The addressing fields of a port that only InfiniBand has. */
static int nldev_put_ib_port(struct sk_buff *msg,
			     const struct ib_port_attr *pa)
{
	u64 caps = (u64)pa->port_cap_flags2 << 32 | pa->port_cap_flags;

	return nldev_put_u64(msg, RDMA_NLDEV_ATTR_CAP_FLAGS, caps) ?:
	       nldev_put_u64(msg, RDMA_NLDEV_ATTR_SUBNET_PREFIX,
			     pa->subnet_prefix) ?:
	       nla_put_u32(msg, RDMA_NLDEV_ATTR_LID, pa->lid) ?:
	       nla_put_u32(msg, RDMA_NLDEV_ATTR_SM_LID, pa->sm_lid) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_LMC, pa->lmc);
}

/* PORT_GET: what "rdma link show" prints about a port. */
static int nldev_put_port(struct sk_buff *msg, struct ib_device *device,
			  u32 port, const struct net *net)
{
	struct ib_port_attr pa;
	int err;

	err = ib_query_port(device, port, &pa);
	if (err)
		return err;

	return nldev_fill_handle(msg, device) ?:
	       nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port) ?:
	       (rdma_protocol_ib(device, port) ?
		nldev_put_ib_port(msg, &pa) : 0) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_STATE, pa.state) ?:
	       nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_PHYS_STATE,
			  pa.phys_state) ?:
	       nldev_put_port_ndev(msg, device, port, net);
}

/*
 * The lines of "rdma res show", in the order the tool prints them; the
 * other tracked kinds (counters) are not counted there.
 */
static const struct {
	enum rdma_restrack_type type;
	const char *name;
} nldev_res_lines[] = {
	{ RDMA_RESTRACK_PD, "pd" },
	{ RDMA_RESTRACK_CQ, "cq" },
	{ RDMA_RESTRACK_QP, "qp" },
	{ RDMA_RESTRACK_CM_ID, "cm_id" },
	{ RDMA_RESTRACK_MR, "mr" },
	{ RDMA_RESTRACK_CTX, "ctx" },
	{ RDMA_RESTRACK_SRQ, "srq" },
};

/* One name/count entry of a RES_SUMMARY. */
static int nldev_put_res_line(struct sk_buff *msg, struct ib_device *device,
			      unsigned int i, bool details)
{
	u64 count = rdma_restrack_count(device, nldev_res_lines[i].type,
					details);
	struct nlattr *line;

	line = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY);
	if (!line ||
	    nla_put_string(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME,
			   nldev_res_lines[i].name) ||
	    nldev_put_u64(msg, RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR, count))
		return -EMSGSIZE;
	nla_nest_end(msg, line);
	return 0;
}

/* RES_GET: the device and a RES_SUMMARY nest with a line per kind. */
static int nldev_put_res_summary(struct sk_buff *msg, struct ib_device *device,
				 bool details)
{
	struct nlattr *summary;
	unsigned int i;

	if (nldev_fill_handle(msg, device))
		return -EMSGSIZE;
	summary = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_RES_SUMMARY);
	if (!summary)
		return -EMSGSIZE;
	for (i = 0; i < ARRAY_SIZE(nldev_res_lines); i++)
		if (nldev_put_res_line(msg, device, i, details))
			return -EMSGSIZE;
	nla_nest_end(msg, summary);
	return 0;
}

/* ---- replies and dumps ------------------------------------------------------ */

/* A message of @cmd with its header in place; NULL if out of memory. */
static struct sk_buff *nldev_msg_new(u32 portid, u32 seq, u32 cmd,
				     struct nlmsghdr **hdr)
{
	struct sk_buff *msg = nlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);

	if (!msg)
		return NULL;
	*hdr = nlmsg_put(msg, portid, seq, RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd),
			 0, 0);
	if (*hdr)
		return msg;
	nlmsg_free(msg);
	return NULL;
}

/*
 * A fresh reply to @nlh for command @cmd, with its header in place;
 * NULL on allocation failure.
 */
struct sk_buff *nldev_new_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
				u32 cmd, struct nlmsghdr **reply_nlh)
{
	return nldev_msg_new(NETLINK_CB(skb).portid, nlh->nlmsg_seq, cmd,
			     reply_nlh);
}

/* Finish a reply built with nldev_new_reply() and send it; consumes @msg. */
int nldev_send_reply(struct sk_buff *skb, struct sk_buff *msg,
		     struct nlmsghdr *reply_nlh)
{
	nlmsg_end(msg, reply_nlh);
	return rdma_nl_unicast(sock_net(skb->sk), msg,
			       NETLINK_CB(skb).portid);
}

/* Open the next multipart message of a dump round; NULL when it is full. */
struct nlmsghdr *nldev_dump_msg(struct sk_buff *skb,
				struct netlink_callback *cb, u32 cmd)
{
	return nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			 RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd), 0, NLM_F_MULTI);
}

/* Close a message of nldev_dump_msg(): keep it if @err is 0, else drop it. */
static int nldev_dump_msg_done(struct sk_buff *skb, struct nlmsghdr *hdr,
			       int err)
{
	if (err)
		nlmsg_cancel(skb, hdr);
	else
		nlmsg_end(skb, hdr);
	return err;
}

/*
 * What a round of a one-message-per-item dump returns once @err stopped
 * it (0: the items ran out).  A full round is no error: it is sent and
 * the item that did not fit opens the next one.  An item that does not
 * fit into an empty round, or fails otherwise, ends the dump with @err.
 */
static int nldev_round_end(struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE && skb->len)
		err = 0;
	return err ?: skb->len;
}

/*
 * A doit request being served: the parsed attributes, the device when
 * the command names one (pinned), and the reply when there is one.
 */
struct nldev_req {
	struct sk_buff *skb;
	struct nlmsghdr *nlh;
	struct netlink_ext_ack *extack;
	u32 cmd;
	struct ib_device *device;
	struct sk_buff *reply;
	struct nlmsghdr *reply_hdr;
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
};

/* Parse a request as @cmd; nldev_req_finish() must follow, whatever it returns. */
static int nldev_req_start(struct nldev_req *req, struct sk_buff *skb,
			   struct nlmsghdr *nlh, struct netlink_ext_ack *extack,
			   u32 cmd)
{
	*req = (struct nldev_req){
		.skb = skb,
		.nlh = nlh,
		.extack = extack,
		.cmd = cmd,
	};
	return nldev_parse_request(nlh, cmd, false, req->tb, extack);
}

/* Pin the device the request names. */
static int nldev_req_device(struct nldev_req *req)
{
	req->device = nldev_get_device(req->skb, req->tb, req->extack);
	return req->device ? 0 : -EINVAL;
}

/* Start the reply, which nldev_req_finish() sends if all went well. */
static int nldev_req_reply(struct nldev_req *req)
{
	req->reply = nldev_new_reply(req->skb, req->nlh, req->cmd,
				     &req->reply_hdr);
	return req->reply ? 0 : -ENOMEM;
}

/* End a request with @err: unpin, then send or drop the reply. */
static int nldev_req_finish(struct nldev_req *req, int err)
{
	if (req->device)
		ib_device_put(req->device);
	if (!req->reply)
		return err;
	if (err) {
		nlmsg_free(req->reply);
		return err;
	}
	return nldev_send_reply(req->skb, req->reply, req->reply_hdr);
}

/* How GET and RES_GET describe one device. */
typedef int (*nldev_dev_fill_t)(struct sk_buff *msg, struct ib_device *device,
				bool details);

/* A doit answered with one message about the device it names. */
static int nldev_dev_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack, u32 cmd,
			  nldev_dev_fill_t fill)
{
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack, cmd) ?:
	      nldev_req_device(&req) ?:
	      nldev_req_reply(&req) ?:
	      fill(req.reply, req.device, nldev_show_details(req.tb));
	return nldev_req_finish(&req, err);
}

/* A round of a dump with one message per device, for ib_enum_all_devs(). */
struct nldev_dev_round {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	u32 cmd;
	bool details;
	nldev_dev_fill_t fill;
};

/* Describe @device unless it is behind the cursor or out of sight. */
static int nldev_dev_round_one(struct ib_device *device, void *arg)
{
	struct nldev_dev_round *round = arg;
	unsigned long *next = &round->cb->args[0];
	struct nlmsghdr *hdr;
	int err;

	if (device->index < *next)
		return 0;
	if (rdma_dev_access_netns(device, sock_net(round->skb->sk))) {
		hdr = nldev_dump_msg(round->skb, round->cb, round->cmd);
		if (!hdr)
			return -EMSGSIZE;
		err = round->fill(round->skb, device, round->details);
		if (nldev_dump_msg_done(round->skb, hdr, err))
			return err;
	}
	*next = device->index + 1UL;
	return 0;
}

/* Every device visible to the caller, from cb->args[0] on. */
static int nldev_dev_dump(struct sk_buff *skb, struct netlink_callback *cb,
			  u32 cmd, bool details, nldev_dev_fill_t fill)
{
	struct nldev_dev_round round = {
		.skb = skb,
		.cb = cb,
		.cmd = cmd,
		.details = details,
		.fill = fill,
	};

	return nldev_round_end(skb, ib_enum_all_devs(nldev_dev_round_one,
						     &round));
}

/* ---- GET, RES_GET, PORT_GET ----------------------------------------------------- */

static int nldev_dev_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	return nldev_dev_doit(skb, nlh, extack, RDMA_NLDEV_CMD_GET,
			      nldev_put_dev);
}

/* The device list every "rdma" command starts with; it reads no attribute. */
static int nldev_dev_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	return nldev_dev_dump(skb, cb, RDMA_NLDEV_CMD_GET, false,
			      nldev_put_dev);
}

static int nldev_res_count_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	return nldev_dev_doit(skb, nlh, extack, RDMA_NLDEV_CMD_RES_GET,
			      nldev_put_res_summary);
}

static int nldev_res_count_list(struct sk_buff *skb,
				struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	int err;

	err = nldev_parse_request(cb->nlh, RDMA_NLDEV_CMD_RES_GET, true, tb,
				  cb->extack);
	if (err)
		return err;
	return nldev_dev_dump(skb, cb, RDMA_NLDEV_CMD_RES_GET,
			      nldev_show_details(tb), nldev_put_res_summary);
}

static int nldev_port_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nldev_req req;
	u32 port;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack,
			      RDMA_NLDEV_CMD_PORT_GET) ?:
	      nldev_req_device(&req) ?:
	      nldev_get_port(req.device, req.tb, extack, &port) ?:
	      nldev_req_reply(&req) ?:
	      nldev_put_port(req.reply, req.device, port, sock_net(skb->sk));
	return nldev_req_finish(&req, err);
}

/* The ports of the device a dump names; cb->args[0] is the next port. */
static int nldev_port_list(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long *next = &cb->args[0];
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlmsghdr *hdr;
	int err;

	err = nldev_parse_request(cb->nlh, RDMA_NLDEV_CMD_PORT_GET, true, tb,
				  cb->extack);
	if (err)
		return err;
	device = nldev_get_device(cb->skb, tb, cb->extack);
	if (!device)
		return -EINVAL;

	*next = max_t(unsigned long, *next, rdma_start_port(device));
	while (!err && *next <= rdma_end_port(device)) {
		hdr = nldev_dump_msg(skb, cb, RDMA_NLDEV_CMD_PORT_GET);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = nldev_dump_msg_done(skb, hdr,
					  nldev_put_port(skb, device, *next,
							 sock_net(skb->sk)));
		if (!err)
			(*next)++;
	}
	ib_device_put(device);
	return nldev_round_end(skb, err);
}

/* ---- SYS_GET, SYS_SET ---------------------------------------------------------- */

/*
 * The namespace mode; no privileged Q_Key mode; pinned pages are copied
 * on fork by the memory manager itself; device events go to
 * RDMA_NL_GROUP_NOTIFY (nldev_notify_event()).
 */
static int nldev_put_sys(struct sk_buff *msg)
{
	return nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_NETNS_MODE,
			  rdma_netns_shared()) ?:
	       nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 0) ?:
	       nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK, 1) ?:
	       nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_MONITOR_MODE, 1);
}

static int nldev_sys_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack, RDMA_NLDEV_CMD_SYS_GET) ?:
	      nldev_req_reply(&req) ?:
	      nldev_put_sys(req.reply);
	return nldev_req_finish(&req, err);
}

/* A system switch, when given, is 0 or 1. */
static bool nldev_sys_switch_bad(struct nlattr *attr)
{
	return attr && nla_get_u8(attr) > 1;
}

/* Shared (1) or exclusive (0) devices, switched from init_net only. */
static int nldev_set_netns_mode(struct nldev_req *req, struct nlattr *mode)
{
	int err;

	if (!net_eq(sock_net(req->skb->sk), &init_net)) {
		NL_SET_ERR_MSG_ATTR(req->extack, mode,
				    "The namespace mode is set from the initial namespace");
		return -EPERM;
	}
	err = rdma_set_netns_shared(nla_get_u8(mode));
	if (err)
		NL_SET_ERR_MSG_ATTR(req->extack, mode,
				    "A device belongs to another namespace");
	return err;
}

/*
 * The privileged Q_Key mode is fixed at 0: asking for it is -EOPNOTSUPP
 * so that nobody believes it is enforced.
 */
static int nldev_sys_apply(struct nldev_req *req)
{
	struct nlattr *mode = req->tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE];
	struct nlattr *qkey = req->tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE];

	if (!mode && !qkey) {
		NL_SET_ERR_MSG(req->extack, "Nothing to set");
		return -EINVAL;
	}
	if (nldev_sys_switch_bad(mode)) {
		NL_SET_ERR_MSG_ATTR(req->extack, mode,
				    "Namespace mode is 0 or 1");
		return -EINVAL;
	}
	if (nldev_sys_switch_bad(qkey)) {
		NL_SET_ERR_MSG_ATTR(req->extack, qkey,
				    "Privileged Q_Key mode is 0 or 1");
		return -EINVAL;
	}
	if (qkey && nla_get_u8(qkey)) {
		NL_SET_ERR_MSG_ATTR(req->extack, qkey,
				    "Privileged Q_Key mode is not supported");
		return -EOPNOTSUPP;
	}
	return mode ? nldev_set_netns_mode(req, mode) : 0;
}

static int nldev_sys_set(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack, RDMA_NLDEV_CMD_SYS_SET) ?:
	      nldev_sys_apply(&req);
	return nldev_req_finish(&req, err);
}

/* ---- SET --------------------------------------------------------------------- */

/* Copy the request's DEV_NAME to @name, refusing names no device may have. */
static int nldev_req_dev_name(struct nldev_req *req,
			      char name[IB_DEVICE_NAME_MAX])
{
	struct nlattr *attr = req->tb[RDMA_NLDEV_ATTR_DEV_NAME];

	nla_strscpy(name, attr, IB_DEVICE_NAME_MAX);
	if (nldev_dev_name_valid(name))
		return 0;
	NL_SET_ERR_MSG_ATTR(req->extack, attr,
			    "Device name is empty or has '%', '/' or spaces");
	return -EINVAL;
}

static int nldev_name_taken(struct nldev_req *req)
{
	NL_SET_ERR_MSG_ATTR(req->extack, req->tb[RDMA_NLDEV_ATTR_DEV_NAME],
			    "Device name already in use");
	return -EEXIST;
}

static int nldev_dev_rename(struct nldev_req *req)
{
	char name[IB_DEVICE_NAME_MAX];
	int err;

	err = nldev_req_dev_name(req, name);
	if (err)
		return err;
	err = ib_device_rename(req->device, name);
	if (err == -EEXIST)
		return nldev_name_taken(req);
	if (err)
		NL_SET_ERR_MSG_ATTR(req->extack,
				    req->tb[RDMA_NLDEV_ATTR_DEV_NAME],
				    "Rename failed");
	return err;
}

/*
 * "rdma dev set DEV netns NS": exclusive mode only, into a namespace the
 * caller administers, and not onto a name taken there.
 */
static int nldev_dev_move(struct nldev_req *req)
{
	struct nlattr *fd = req->tb[RDMA_NLDEV_NET_NS_FD];
	struct net *net;
	int err;

	if (rdma_netns_shared()) {
		NL_SET_ERR_MSG_ATTR(req->extack, fd,
				    "Devices are shared by all namespaces and cannot move");
		return -EOPNOTSUPP;
	}
	net = get_net_ns_by_fd(nla_get_u32(fd));
	if (IS_ERR(net)) {
		NL_SET_ERR_MSG_ATTR(req->extack, fd,
				    "Not a network namespace file descriptor");
		return PTR_ERR(net);
	}
	if (!netlink_ns_capable(req->skb, net->user_ns, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG_ATTR(req->extack, fd,
				    "No CAP_NET_ADMIN in the target namespace");
		err = -EPERM;
	} else {
		err = ib_device_move_netns(req->device, net);
		if (err == -EEXIST)
			NL_SET_ERR_MSG_ATTR(req->extack, fd,
					    "A device of that namespace has the name");
		else if (err == -EOPNOTSUPP)
			NL_SET_ERR_MSG_ATTR(req->extack, fd,
					    "Devices are shared by all namespaces and cannot move");
		else if (err)
			NL_SET_ERR_MSG_ATTR(req->extack, fd, "Move failed");
	}
	put_net(net);
	return err;
}

/* Adaptive moderation can only be off (the policy refused values above 1). */
static int nldev_dev_dim(struct nldev_req *req)
{
	struct nlattr *dim = req->tb[RDMA_NLDEV_ATTR_DEV_DIM];

	if (nla_get_u8(dim)) {
		NL_SET_ERR_MSG_ATTR(req->extack, dim,
				    "Adaptive CQ moderation is not supported");
		return -EOPNOTSUPP;
	}
	req->device->use_cq_dim = false;
	return 0;
}

/*
 * "rdma dev set DEV name NEW", "... netns NS", "... adaptive-moderation
 * on|off": one change per request, as the tool sends them; the first of
 * those attributes present wins.
 */
static int nldev_dev_change(struct nldev_req *req)
{
	if (req->tb[RDMA_NLDEV_ATTR_DEV_NAME])
		return nldev_dev_rename(req);
	if (req->tb[RDMA_NLDEV_NET_NS_FD])
		return nldev_dev_move(req);
	if (req->tb[RDMA_NLDEV_ATTR_DEV_DIM])
		return nldev_dev_dim(req);
	NL_SET_ERR_MSG(req->extack, "Nothing to set");
	return -EINVAL;
}

static int nldev_dev_set(struct sk_buff *skb, struct nlmsghdr *nlh,
			 struct netlink_ext_ack *extack)
{
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack, RDMA_NLDEV_CMD_SET) ?:
	      nldev_req_device(&req) ?:
	      nldev_dev_change(&req);
	return nldev_req_finish(&req, err);
}

/* ---- GET_CHARDEV ------------------------------------------------------------- */

/*
 * What a char device request is about: the whole system (no device), a
 * device (*@port = -1, any port) or one port of it.
 */
static int nldev_chardev_scope(struct nldev_req *req, unsigned int *port)
{
	struct nlattr *port_attr = req->tb[RDMA_NLDEV_ATTR_PORT_INDEX];
	int err;

	if (!req->tb[RDMA_NLDEV_ATTR_DEV_INDEX]) {
		if (!port_attr)
			return 0;
		NL_SET_ERR_MSG(req->extack, "A port needs a device index");
		return -EINVAL;
	}
	err = nldev_req_device(req);
	if (err)
		return err;
	if (!port_attr) {
		*port = -1;
		return 0;
	}
	return nldev_get_port(req->device, req->tb, req->extack, port);
}

/* The client name is a module alias suffix, so it obeys the link type rules. */
static int nldev_chardev_client(struct nldev_req *req, char *client,
				size_t size)
{
	struct nlattr *attr = req->tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE];

	nla_strscpy(client, attr, size);
	if (nldev_link_type_valid(client))
		return 0;
	NL_SET_ERR_MSG_ATTR(req->extack, attr, "Invalid char device type");
	return -EINVAL;
}

/*
 * Ask the client for its char device and describe it; the client module
 * is loaded on demand through its "rdma-client-<name>" alias.
 */
static int nldev_chardev_describe(struct nldev_req *req, const char *client,
				  struct ib_client_nl_info *info)
{
	int err;

	info->nl_msg = req->reply;
	err = ib_get_client_nl_info(req->device, client, info);
	if (err == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(req->extack,
				    req->tb[RDMA_NLDEV_ATTR_CHARDEV_TYPE],
				    "No such char device type");
	if (err)
		return err;

	err = nldev_put_u64(req->reply, RDMA_NLDEV_ATTR_CHARDEV,
			    huge_encode_dev(info->cdev->devt)) ?:
	      nldev_put_u64(req->reply, RDMA_NLDEV_ATTR_CHARDEV_ABI,
			    info->abi) ?:
	      nla_put_string(req->reply, RDMA_NLDEV_ATTR_CHARDEV_NAME,
			     dev_name(info->cdev));
	put_device(info->cdev);
	return err;
}

/* Which character device serves a client ("uverbs", "umad", "rdma_cm"). */
static int nldev_chardev_get(struct sk_buff *skb, struct nlmsghdr *nlh,
			     struct netlink_ext_ack *extack)
{
	char client[RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE];
	struct ib_client_nl_info info = {};
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack,
			      RDMA_NLDEV_CMD_GET_CHARDEV) ?:
	      nldev_chardev_client(&req, client, sizeof(client)) ?:
	      nldev_chardev_scope(&req, &info.port) ?:
	      nldev_req_reply(&req) ?:
	      nldev_chardev_describe(&req, client, &info);
	return nldev_req_finish(&req, err);
}

/* ---- MONITOR: notifications ---------------------------------------------------- */

/**
 * nldev_notify_event() - tell "rdma monitor" listeners about a device
 * @device: the device the event is about
 * @port: the port of a netdev event, 0 for device events
 * @type: an rdma_nl_notify_event_type value
 *
 * Sends an RDMA_NLDEV_CMD_MONITOR message to RDMA_NL_GROUP_NOTIFY of the
 * device's namespace: in exclusive mode no other namespace learns of it
 * (in shared mode every device lives in the initial one).  Netdev
 * events carry the port and, while it is attached, the
 * netdev's index and name.  Nothing is built when nobody listens; a
 * message that cannot be allocated is dropped, as multicast may be.
 *
 * Context: process context; may sleep (GFP_KERNEL).
 */
void nldev_notify_event(struct ib_device *device, u32 port, u8 type)
{
	struct net *net = read_pnet(&device->coredev.rdma_net);
	struct nlmsghdr *hdr;
	struct sk_buff *msg;

	if (!rdma_nl_net_listens(net, RDMA_NL_GROUP_NOTIFY))
		return;
	msg = nldev_msg_new(0, 0, RDMA_NLDEV_CMD_MONITOR, &hdr);
	if (!msg)
		return;
	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_EVENT_TYPE, type) ||
	    nldev_fill_handle(msg, device) ||
	    (port && (nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port) ||
		      nldev_put_port_ndev(msg, device, port, NULL)))) {
		nlmsg_free(msg);
		return;
	}
	nlmsg_end(msg, hdr);
	rdma_nl_multicast(net, msg, RDMA_NL_GROUP_NOTIFY, GFP_KERNEL);
}

/* ---- link types, NEWLINK, DELLINK ---------------------------------------------- */

/*
 * The link types providers offer.  link_types_rwsem is taken for write
 * to change the list and for read around a lookup together with the
 * newlink() call of what it found.
 */
static LIST_HEAD(link_types);
static DECLARE_RWSEM(link_types_rwsem);

/* The link type called @name; link_types_rwsem held. */
static struct rdma_link_ops *link_type_find(const char *name)
{
	struct rdma_link_ops *ops;

	list_for_each_entry(ops, &link_types, list) {
		if (!strcmp(ops->type, name))
			return ops;
	}
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
	bool taken;

	down_write(&link_types_rwsem);
	taken = link_type_find(ops->type);
	if (!taken)
		list_add_tail(&ops->list, &link_types);
	up_write(&link_types_rwsem);
	WARN(taken, "RDMA link type %s is registered already\n", ops->type);
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
	down_write(&link_types_rwsem);
	list_del(&ops->list);
	up_write(&link_types_rwsem);
}
EXPORT_SYMBOL(rdma_link_unregister);

/*
 * Have link type @type create device @name over @ndev.  *@known says
 * whether the type is registered; only then is the result the provider's.
 */
static int link_type_create(const char *type, const char *name,
			    struct net_device *ndev, bool *known)
{
	const struct rdma_link_ops *ops;
	int err = 0;

	down_read(&link_types_rwsem);
	ops = link_type_find(type);
	*known = ops;
	if (ops)
		err = ops->newlink(name, ndev);
	up_read(&link_types_rwsem);
	return err;
}

/*
 * Create the device through its link type, loading the type's module
 * when the type is not registered yet.
 */
static int nldev_link_create(struct nldev_req *req, const char *type,
			     const char *name, struct net_device *ndev)
{
	bool known;
	int err;

	err = link_type_create(type, name, ndev, &known);
	if (!known) {
		request_module("rdma-link-%s", type);
		err = link_type_create(type, name, ndev, &known);
	}
	if (!known) {
		NL_SET_ERR_MSG_ATTR(req->extack,
				    req->tb[RDMA_NLDEV_ATTR_LINK_TYPE],
				    "Unknown link type");
		return -EINVAL;
	}
	/* The name may have been taken since nldev_link_new() looked. */
	if (err == -ENFILE || err == -EEXIST)
		return nldev_name_taken(req);
	return err;
}

/* Copy the request's LINK_TYPE to @type and check its syntax. */
static int nldev_req_link_type(struct nldev_req *req, char type[IFNAMSIZ])
{
	struct nlattr *attr = req->tb[RDMA_NLDEV_ATTR_LINK_TYPE];

	nla_strscpy(type, attr, IFNAMSIZ);
	if (nldev_link_type_valid(type))
		return 0;
	NL_SET_ERR_MSG_ATTR(req->extack, attr, "Invalid link type");
	return -EINVAL;
}

/* The netdev NDEV_NAME names in the caller's namespace, held. */
static struct net_device *nldev_req_netdev(struct nldev_req *req)
{
	struct nlattr *attr = req->tb[RDMA_NLDEV_ATTR_NDEV_NAME];
	struct net_device *ndev;
	char ifname[IFNAMSIZ];

	nla_strscpy(ifname, attr, sizeof(ifname));
	ndev = dev_get_by_name(sock_net(req->skb->sk), ifname);
	if (!ndev)
		NL_SET_ERR_MSG_ATTR(req->extack, attr,
				    "No such netdev in this namespace");
	return ndev;
}

/* "rdma link add NAME type TYPE netdev NETDEV" */
static int nldev_link_new(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	char name[IB_DEVICE_NAME_MAX], type[IFNAMSIZ];
	struct net_device *ndev;
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack,
			      RDMA_NLDEV_CMD_NEWLINK) ?:
	      nldev_req_dev_name(&req, name) ?:
	      nldev_req_link_type(&req, type);
	if (err)
		return nldev_req_finish(&req, err);

	ndev = nldev_req_netdev(&req);
	if (!ndev)
		return nldev_req_finish(&req, -ENODEV);
	if (ib_name_taken_for(ndev, name))
		err = nldev_name_taken(&req);
	else
		err = nldev_link_create(&req, type, name, ndev);
	dev_put(ndev);
	return nldev_req_finish(&req, err);
}

/*
 * "rdma link delete NAME": only for devices their provider lets user
 * space remove; those free themselves on unregistration (dealloc_driver).
 */
static int nldev_link_del(struct sk_buff *skb, struct nlmsghdr *nlh,
			  struct netlink_ext_ack *extack)
{
	struct nldev_req req;
	int err;

	err = nldev_req_start(&req, skb, nlh, extack,
			      RDMA_NLDEV_CMD_DELLINK) ?:
	      nldev_req_device(&req);
	if (!err && (!(req.device->attrs.kernel_cap_flags &
		       IBK_ALLOW_USER_UNREG) ||
		     !req.device->ops.dealloc_driver)) {
		NL_SET_ERR_MSG(extack,
			       "Device cannot be deleted from user space");
		err = -EINVAL;
	}
	if (err)
		return nldev_req_finish(&req, err);

	/* Unregistration takes over the request's reference. */
	ib_unregister_device_and_put(req.device);
	return 0;
}

/* ---- the client ------------------------------------------------------------------ */

/* Anyone may query; changes need CAP_NET_ADMIN. */
#define NLDEV_QUERY(_doit, _dump)	{ .doit = _doit, .dump = _dump }
#define NLDEV_ADMIN(_doit, _dump)	\
	{ .doit = _doit, .dump = _dump, .flags = RDMA_NL_ADMIN_PERM }
#define NLDEV_RES_QUERY \
	NLDEV_QUERY(nldev_res_get_obj_doit, nldev_res_get_obj_dumpit)
#define NLDEV_RES_ADMIN \
	NLDEV_ADMIN(nldev_res_get_obj_doit, nldev_res_get_obj_dumpit)

static const struct rdma_nl_cbs nldev_cb_table[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET] = NLDEV_QUERY(nldev_dev_get, nldev_dev_list),
	[RDMA_NLDEV_CMD_PORT_GET] = NLDEV_QUERY(nldev_port_get, nldev_port_list),
	[RDMA_NLDEV_CMD_RES_GET] = NLDEV_QUERY(nldev_res_count_get,
					       nldev_res_count_list),
	[RDMA_NLDEV_CMD_SYS_GET] = NLDEV_QUERY(nldev_sys_get, NULL),
	[RDMA_NLDEV_CMD_GET_CHARDEV] = NLDEV_QUERY(nldev_chardev_get, NULL),
	[RDMA_NLDEV_CMD_STAT_GET] = NLDEV_QUERY(nldev_stat_get_doit,
						nldev_stat_get_dumpit),
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] =
		NLDEV_QUERY(nldev_stat_get_status_doit, NULL),

	[RDMA_NLDEV_CMD_SET] = NLDEV_ADMIN(nldev_dev_set, NULL),
	[RDMA_NLDEV_CMD_SYS_SET] = NLDEV_ADMIN(nldev_sys_set, NULL),
	[RDMA_NLDEV_CMD_NEWLINK] = NLDEV_ADMIN(nldev_link_new, NULL),
	[RDMA_NLDEV_CMD_DELLINK] = NLDEV_ADMIN(nldev_link_del, NULL),
	[RDMA_NLDEV_CMD_STAT_SET] = NLDEV_ADMIN(nldev_stat_set_doit, NULL),
	[RDMA_NLDEV_CMD_STAT_DEL] = NLDEV_ADMIN(nldev_stat_del_doit, NULL),

	/* Every resource kind has the same two handlers (nldev_res.c). */
	[RDMA_NLDEV_CMD_RES_QP_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_CM_ID_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_CQ_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_MR_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_PD_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_CTX_GET] = NLDEV_RES_QUERY,
	[RDMA_NLDEV_CMD_RES_SRQ_GET] = NLDEV_RES_QUERY,
	/* Raw provider dumps may show keys and addresses. */
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW] = NLDEV_RES_ADMIN,
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW] = NLDEV_RES_ADMIN,
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW] = NLDEV_RES_ADMIN,
	[RDMA_NLDEV_CMD_RES_SRQ_GET_RAW] = NLDEV_RES_ADMIN,
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
