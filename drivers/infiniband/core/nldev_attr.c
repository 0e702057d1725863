// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Request checks of the nldev client that need no device: the attribute
 * policy, the attributes each command cannot do without, and name syntax.
 * Nothing here sleeps, allocates or takes a lock; the file builds in user
 * space for the unit tests and the fuzzer as it is.
 */
#include <linux/socket.h>
#include <linux/string.h>

#include "nldev_attr.h"

/*
 * The type of every attribute of the uapi, requests and replies alike:
 * a request may carry any of them, and each is validated whether or not
 * the command uses it.  Grouped by type, in uapi order within a group.
 */

/* A NUL-terminated string of at most @max characters. */
#define NLDEV_STR(max)		{ .type = NLA_NUL_STRING, .len = (max) }
/* Bytes, at most @max of them. */
#define NLDEV_BLOB(max)		{ .type = NLA_BINARY, .len = (max) }
#define NLDEV_SOCKADDR_LEN	sizeof(struct __kernel_sockaddr_storage)

const struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX] = {
	/* u8: flags, states, types, small enums */
	[RDMA_NLDEV_ATTR_LMC]			= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_PORT_PHYS_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_NODE_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_PATH_MIG_STATE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_STATE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_RES_POLL_CTX]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_NETNS_MODE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_DIM]		= NLA_POLICY_MAX(NLA_U8, 1),
	[RDMA_NLDEV_SYS_ATTR_COPY_ON_FORK]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC] = { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE] = { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DRIVER_DETAILS]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_DEV_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_NAME_ASSIGN_TYPE]	= { .type = NLA_U8 },
	[RDMA_NLDEV_ATTR_EVENT_TYPE]		= { .type = NLA_U8 },
	[RDMA_NLDEV_SYS_ATTR_MONITOR_MODE]	= { .type = NLA_U8 },

	/* u32: indices, numbers, keys, PSNs */
	[RDMA_NLDEV_ATTR_DEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_PORT_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_LID]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_SM_LID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQPN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SQ_PSN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PID]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PS]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_RKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LKEY]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_LOCAL_DMA_LKEY]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_UNSAFE_GLOBAL_RKEY] = { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_NDEV_INDEX]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DRIVER_U32]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_PDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_MRN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CM_IDN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_CTXN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_NET_NS_FD]			= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_UVERBS_DRIVER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_MODE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_RES]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_RES_SRQN]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MIN_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_MAX_RANGE]		= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX]	= { .type = NLA_U32 },
	[RDMA_NLDEV_ATTR_DRIVER_S32]		= { .type = NLA_S32 },

	/* u64: GUIDs, counters, sizes, capabilities */
	[RDMA_NLDEV_ATTR_CAP_FLAGS]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_NODE_GUID]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SYS_IMAGE_GUID]	= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_SUBNET_PREFIX]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_CURR] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_USECNT]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_IOVA]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_RES_MRLEN]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DRIVER_U64]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV_ABI]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_CHARDEV]		= { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE] = { .type = NLA_U64 },
	[RDMA_NLDEV_ATTR_DRIVER_S64]		= { .type = NLA_S64 },

	/* NUL-terminated strings, at most so many characters */
	[RDMA_NLDEV_ATTR_DEV_NAME]		= NLDEV_STR(NLDEV_NAME_LEN),
	[RDMA_NLDEV_ATTR_FW_VERSION]		= NLDEV_STR(NLDEV_FW_LEN),
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY_NAME] = NLDEV_STR(RDMA_NLDEV_ATTR_ENTRY_STRLEN),
	[RDMA_NLDEV_ATTR_RES_KERN_NAME]		= NLDEV_STR(NLDEV_COMM_LEN),
	[RDMA_NLDEV_ATTR_NDEV_NAME]		= NLDEV_STR(NLDEV_IFNAME_LEN),
	[RDMA_NLDEV_ATTR_DRIVER_STRING]		= NLDEV_STR(RDMA_NLDEV_ATTR_EMPTY_STRING),
	[RDMA_NLDEV_ATTR_LINK_TYPE]		= NLDEV_STR(NLDEV_IFNAME_LEN),
	[RDMA_NLDEV_ATTR_DEV_PROTOCOL]		= NLDEV_STR(RDMA_NLDEV_ATTR_EMPTY_STRING),
	[RDMA_NLDEV_ATTR_CHARDEV_TYPE]		= NLDEV_STR(RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE - 1),
	[RDMA_NLDEV_ATTR_CHARDEV_NAME]		= NLDEV_STR(RDMA_NLDEV_ATTR_EMPTY_STRING),
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME] = { .type = NLA_NUL_STRING },
	[RDMA_NLDEV_ATTR_RES_SUBTYPE]		= NLDEV_STR(RDMA_NLDEV_ATTR_EMPTY_STRING),
	[RDMA_NLDEV_ATTR_PARENT_NAME]		= { .type = NLA_NUL_STRING },

	/* binary blobs */
	[RDMA_NLDEV_ATTR_RES_SRC_ADDR]		= NLDEV_BLOB(NLDEV_SOCKADDR_LEN),
	[RDMA_NLDEV_ATTR_RES_DST_ADDR]		= NLDEV_BLOB(NLDEV_SOCKADDR_LEN),
	[RDMA_NLDEV_ATTR_RES_RAW]		= { .type = NLA_BINARY },

	/* nests: tables and their entries */
	[RDMA_NLDEV_ATTR_RES_SUMMARY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SUMMARY_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_QP]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_QP_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CM_ID]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CM_ID_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CQ_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_MR]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_MR_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PD]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_PD_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_DRIVER_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_COUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY]	= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CTX]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_CTX_ENTRY]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ]		= { .type = NLA_NESTED },
	[RDMA_NLDEV_ATTR_RES_SRQ_ENTRY]		= { .type = NLA_NESTED },
};

/*
 * The attributes a command cannot do without, in the order they are
 * checked, each with the message the caller reads when it is missing.
 * A dump that lists every device needs none; a dump of a device's ports
 * or statistics needs the device.
 */
struct nldev_required {
	u16 attr;
	const char *msg;
};

#define NLDEV_REQ_MAX	3

struct nldev_cmd_rules {
	struct nldev_required doit[NLDEV_REQ_MAX];
	struct nldev_required dump[NLDEV_REQ_MAX];
};

#define REQ_DEV		{ RDMA_NLDEV_ATTR_DEV_INDEX, "Device index is missing" }
#define REQ_PORT	{ RDMA_NLDEV_ATTR_PORT_INDEX, "Port index is missing" }
#define REQ_ID(a, what)	{ a, what " is missing" }

static const struct nldev_cmd_rules nldev_rules[RDMA_NLDEV_NUM_OPS] = {
	[RDMA_NLDEV_CMD_GET]		= { .doit = { REQ_DEV } },
	[RDMA_NLDEV_CMD_SET]		= { .doit = { REQ_DEV } },
	[RDMA_NLDEV_CMD_NEWLINK]	= { .doit = {
		REQ_ID(RDMA_NLDEV_ATTR_DEV_NAME, "Device name"),
		REQ_ID(RDMA_NLDEV_ATTR_LINK_TYPE, "Link type"),
		REQ_ID(RDMA_NLDEV_ATTR_NDEV_NAME, "Netdev name") } },
	[RDMA_NLDEV_CMD_DELLINK]	= { .doit = { REQ_DEV } },
	[RDMA_NLDEV_CMD_PORT_GET]	= { .doit = { REQ_DEV, REQ_PORT },
					    .dump = { REQ_DEV } },
	[RDMA_NLDEV_CMD_RES_GET]	= { .doit = { REQ_DEV } },
	[RDMA_NLDEV_CMD_RES_QP_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_LQPN, "QP number") } },
	[RDMA_NLDEV_CMD_RES_QP_GET_RAW]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_LQPN, "QP number") } },
	[RDMA_NLDEV_CMD_RES_CM_ID_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_CM_IDN, "CM ID number") } },
	[RDMA_NLDEV_CMD_RES_CQ_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_CQN, "CQ number") } },
	[RDMA_NLDEV_CMD_RES_CQ_GET_RAW]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_CQN, "CQ number") } },
	[RDMA_NLDEV_CMD_RES_MR_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_MRN, "MR number") } },
	[RDMA_NLDEV_CMD_RES_MR_GET_RAW]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_MRN, "MR number") } },
	[RDMA_NLDEV_CMD_RES_PD_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_PDN, "PD number") } },
	[RDMA_NLDEV_CMD_RES_CTX_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_CTXN, "Context number") } },
	[RDMA_NLDEV_CMD_RES_SRQ_GET]	= { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_SRQN, "SRQ number") } },
	[RDMA_NLDEV_CMD_RES_SRQ_GET_RAW] = { .doit = { REQ_DEV,
		REQ_ID(RDMA_NLDEV_ATTR_RES_SRQN, "SRQ number") } },
	[RDMA_NLDEV_CMD_GET_CHARDEV]	= { .doit = {
		REQ_ID(RDMA_NLDEV_ATTR_CHARDEV_TYPE, "Char device type") } },
	[RDMA_NLDEV_CMD_STAT_SET]	= { .doit = { REQ_DEV, REQ_PORT } },
	[RDMA_NLDEV_CMD_STAT_GET]	= { .doit = { REQ_DEV, REQ_PORT } },
	[RDMA_NLDEV_CMD_STAT_DEL]	= { .doit = { REQ_DEV, REQ_PORT } },
	[RDMA_NLDEV_CMD_STAT_GET_STATUS] = { .doit = { REQ_DEV, REQ_PORT } },
};

/**
 * nldev_parse_request() - parse an nldev request and check its attributes
 * @nlh: the request
 * @cmd: the nldev command it was dispatched as
 * @dump: whether it is a dump request
 * @tb: receives the attributes, RDMA_NLDEV_ATTR_MAX entries
 * @extack: where the reason for a refusal goes
 *
 * Every attribute present must match nldev_policy, whether the command
 * uses it or not; every attribute @cmd requires must be present.
 *
 * Return: 0, or -EINVAL with @extack set.
 */
int nldev_parse_request(const struct nlmsghdr *nlh, u32 cmd, bool dump,
			struct nlattr **tb, struct netlink_ext_ack *extack)
{
	const struct nldev_required *req;
	unsigned int i;
	int err;

	err = nlmsg_parse_deprecated(nlh, 0, tb, RDMA_NLDEV_ATTR_MAX - 1,
				     nldev_policy, extack);
	if (err)
		return err;
	if (cmd >= RDMA_NLDEV_NUM_OPS)
		return 0;

	req = dump ? nldev_rules[cmd].dump : nldev_rules[cmd].doit;
	for (i = 0; i < NLDEV_REQ_MAX && req[i].msg; i++) {
		if (!tb[req[i].attr]) {
			NL_SET_ERR_MSG_FMT(extack, "%s", req[i].msg);
			return -EINVAL;
		}
	}
	return 0;
}

/**
 * nldev_link_type_valid() - may @type name a link type?
 * @type: NUL-terminated link type from a NEWLINK request
 *
 * A link type becomes part of a module alias ("rdma-link-<type>"), so only
 * lower-case letters, digits, '_' and '-' are allowed.
 *
 * Return: true if @type is non-empty and made of those characters only.
 */
bool nldev_link_type_valid(const char *type)
{
	if (!*type)
		return false;
	for (; *type; type++) {
		bool ok = (*type >= 'a' && *type <= 'z') ||
			  (*type >= '0' && *type <= '9') ||
			  *type == '_' || *type == '-';

		if (!ok)
			return false;
	}
	return true;
}

/**
 * nldev_dev_name_valid() - may @name become a device name?
 * @name: NUL-terminated name from a NEWLINK or SET request
 *
 * A name must not be empty and must not contain '%' (the core reads '%'
 * as a template to number), '/' (sysfs) or white space.
 *
 * Return: true if @name is acceptable.
 */
bool nldev_dev_name_valid(const char *name)
{
	if (!*name)
		return false;
	for (; *name; name++)
		if (*name == '%' || *name == '/' || *name == ' ' ||
		    *name == '\t' || *name == '\n')
			return false;
	return true;
}
