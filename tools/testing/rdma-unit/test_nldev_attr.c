// SPDX-License-Identifier: GPL-2.0
/*
 * drivers/infiniband/core/nldev_attr.c: the nldev attribute policy, the
 * attributes each command requires and name syntax, run through the
 * kernel's own lib/nlattr.c (built unchanged from the source tarball).
 * Requests are built with the kernel's nla_put() helpers.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include "../../../drivers/infiniband/core/nldev_attr.h"
#include "unit.h"

struct req {
	struct sk_buff *skb;
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct netlink_ext_ack ack;
};

static struct req *req_new(u32 cmd)
{
	struct req *r = calloc(1, sizeof(*r));
	struct nlmsghdr *nlh;

	r->skb = alloc_skb(4096, GFP_KERNEL);
	nlh = skb_put_zero(r->skb, NLMSG_HDRLEN);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	return r;
}

static struct nlmsghdr *req_nlh(struct req *r)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)r->skb->data;

	nlh->nlmsg_len = r->skb->len;
	return nlh;
}

static int req_parse(struct req *r, u32 cmd, bool dump)
{
	memset(&r->ack, 0, sizeof(r->ack));
	return nldev_parse_request(req_nlh(r), cmd, dump, r->tb, &r->ack);
}

static void req_free(struct req *r)
{
	kfree_skb(r->skb);
	free(r);
}

/* A string attribute of exactly @len bytes, NUL included if @nul. */
static void put_str(struct req *r, int type, char c, int len, bool nul)
{
	char buf[512];

	memset(buf, c, sizeof(buf));
	if (nul)
		buf[len - 1] = '\0';
	nla_put(r->skb, type, len, buf);
}

UNIT_TEST(nldev_attr, get_with_index)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_GET);

	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_GET, false), 0);
	ASSERT_TRUE(r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]);
	EXPECT_EQ(nla_get_u32(r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 7);
	EXPECT_FALSE(r->tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	req_free(r);
}

UNIT_TEST(nldev_attr, required_attributes_per_command)
{
	static const struct {
		u32 cmd;
		bool dump;
		const char *msg;
	} cases[] = {
		{ RDMA_NLDEV_CMD_GET, false, "Device index is missing" },
		{ RDMA_NLDEV_CMD_SET, false, "Device index is missing" },
		{ RDMA_NLDEV_CMD_DELLINK, false, "Device index is missing" },
		{ RDMA_NLDEV_CMD_PORT_GET, false, "Device index is missing" },
		{ RDMA_NLDEV_CMD_PORT_GET, true, "Device index is missing" },
		{ RDMA_NLDEV_CMD_NEWLINK, false, "Device name is missing" },
		{ RDMA_NLDEV_CMD_RES_QP_GET, false, "Device index is missing" },
		{ RDMA_NLDEV_CMD_GET_CHARDEV, false, "Char device type is missing" },
		{ RDMA_NLDEV_CMD_STAT_GET, false, "Device index is missing" },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		struct req *r = req_new(cases[i].cmd);

		EXPECT_EQ(req_parse(r, cases[i].cmd, cases[i].dump), -EINVAL);
		EXPECT_STREQ(r->ack._msg, cases[i].msg);
		req_free(r);
	}
}

UNIT_TEST(nldev_attr, dumps_of_all_devices_need_nothing)
{
	static const u32 cmds[] = { RDMA_NLDEV_CMD_GET, RDMA_NLDEV_CMD_RES_GET,
				    RDMA_NLDEV_CMD_RES_QP_GET, RDMA_NLDEV_CMD_STAT_GET,
				    RDMA_NLDEV_CMD_SYS_GET };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		struct req *r = req_new(cmds[i]);

		EXPECT_EQ(req_parse(r, cmds[i], true), 0);
		req_free(r);
	}
}

UNIT_TEST(nldev_attr, port_and_object_numbers)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_PORT_GET);

	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_PORT_GET, false), -EINVAL);
	EXPECT_STREQ(r->ack._msg, "Port index is missing");
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_PORT_GET, true), 0);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_RES_CQ_GET, false), -EINVAL);
	EXPECT_STREQ(r->ack._msg, "CQ number is missing");
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_RES_CQN, 3);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_RES_CQ_GET, false), 0);
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_PORT_GET, false), 0);
	EXPECT_EQ(nla_get_u32(r->tb[RDMA_NLDEV_ATTR_PORT_INDEX]), 1);
	req_free(r);
}

UNIT_TEST(nldev_attr, newlink_names_checked_in_order)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_NEWLINK);

	nla_put_string(r->skb, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_NEWLINK, false), -EINVAL);
	EXPECT_STREQ(r->ack._msg, "Link type is missing");
	nla_put_string(r->skb, RDMA_NLDEV_ATTR_LINK_TYPE, "rxe");
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_NEWLINK, false), -EINVAL);
	EXPECT_STREQ(r->ack._msg, "Netdev name is missing");
	nla_put_string(r->skb, RDMA_NLDEV_ATTR_NDEV_NAME, "eth0");
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_NEWLINK, false), 0);
	EXPECT_STREQ(nla_data(r->tb[RDMA_NLDEV_ATTR_LINK_TYPE]), "rxe");
	req_free(r);
}

UNIT_TEST(nldev_attr, short_integer_is_refused)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_GET);
	u8 one = 1;

	nla_put(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1, &one);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_GET, false), -ERANGE);
	/* The offending attribute is reported. */
	EXPECT_TRUE(r->ack.bad_attr == nlmsg_attrdata(req_nlh(r), 0));
	req_free(r);
}

UNIT_TEST(nldev_attr, policy_applies_to_unused_attributes)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_GET);
	u16 two = 2;

	/* GET does not use NODE_GUID, but a malformed one still fails. */
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	nla_put(r->skb, RDMA_NLDEV_ATTR_NODE_GUID, 2, &two);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_GET, false), -ERANGE);
	req_free(r);
}

UNIT_TEST(nldev_attr, dev_name_length_limit)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_SET);

	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	/* 63 characters and the NUL: the longest name. */
	put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, 'a', NLDEV_NAME_LEN + 1, true);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_SET, false), 0);
	EXPECT_EQ(strlen(nla_data(r->tb[RDMA_NLDEV_ATTR_DEV_NAME])), NLDEV_NAME_LEN);
	req_free(r);

	r = req_new(RDMA_NLDEV_CMD_SET);
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, 'a', NLDEV_NAME_LEN + 2, true);
	EXPECT_NE(req_parse(r, RDMA_NLDEV_CMD_SET, false), 0);
	req_free(r);
}

UNIT_TEST(nldev_attr, nul_string_needs_its_nul)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_NEWLINK);

	put_str(r, RDMA_NLDEV_ATTR_DEV_NAME, 'x', 8, false);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_NEWLINK, false), -EINVAL);
	req_free(r);

	r = req_new(RDMA_NLDEV_CMD_NEWLINK);
	nla_put(r->skb, RDMA_NLDEV_ATTR_LINK_TYPE, 0, NULL);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_NEWLINK, false), -EINVAL);
	req_free(r);
}

UNIT_TEST(nldev_attr, dim_is_a_boolean)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_SET);

	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	nla_put_u8(r->skb, RDMA_NLDEV_ATTR_DEV_DIM, 1);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_SET, false), 0);
	req_free(r);

	r = req_new(RDMA_NLDEV_CMD_SET);
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, 1);
	nla_put_u8(r->skb, RDMA_NLDEV_ATTR_DEV_DIM, 2);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_SET, false), -ERANGE);
	req_free(r);
}

UNIT_TEST(nldev_attr, binary_address_size_limit)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_RES_CM_ID_GET);
	u8 addr[200] = { 0 };

	nla_put(r->skb, RDMA_NLDEV_ATTR_RES_SRC_ADDR, 128, addr);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_RES_CM_ID_GET, true), 0);
	req_free(r);

	r = req_new(RDMA_NLDEV_CMD_RES_CM_ID_GET);
	nla_put(r->skb, RDMA_NLDEV_ATTR_RES_DST_ADDR, 129, addr);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_RES_CM_ID_GET, true), -ERANGE);
	req_free(r);
}

UNIT_TEST(nldev_attr, liberal_parsing_like_upstream)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_GET);
	u64 wide = 9;

	/*
	 * nldev parses the deprecated, liberal way: unknown attribute types
	 * are skipped, a too long integer is only warned about, and trailing
	 * bytes that make no attribute are reported but not refused.
	 */
	nla_put(r->skb, RDMA_NLDEV_ATTR_DEV_INDEX, sizeof(wide), &wide);
	nla_put_u32(r->skb, RDMA_NLDEV_ATTR_MAX + 5, 1);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_GET, false), 0);
	EXPECT_EQ(nla_get_u32(r->tb[RDMA_NLDEV_ATTR_DEV_INDEX]), 9);
	skb_put_zero(r->skb, 2);
	EXPECT_EQ(req_parse(r, RDMA_NLDEV_CMD_GET, false), 0);
	EXPECT_STREQ(r->ack._msg, "bytes leftover after parsing attributes");
	req_free(r);
}

UNIT_TEST(nldev_attr, truncated_message_header)
{
	struct req *r = req_new(RDMA_NLDEV_CMD_GET);
	struct nlmsghdr *nlh = req_nlh(r);

	nlh->nlmsg_len = NLMSG_HDRLEN - 1;
	memset(&r->ack, 0, sizeof(r->ack));
	EXPECT_EQ(nldev_parse_request(nlh, RDMA_NLDEV_CMD_GET, true, r->tb, &r->ack),
		  -EINVAL);
	EXPECT_STREQ(r->ack._msg, "Invalid header length");
	req_free(r);
}

UNIT_TEST(nldev_attr, unknown_command_only_parses)
{
	struct req *r = req_new(0);

	EXPECT_EQ(req_parse(r, RDMA_NLDEV_NUM_OPS, false), 0);
	EXPECT_EQ(req_parse(r, 0x3ff, false), 0);
	EXPECT_EQ(req_parse(r, ~0U, true), 0);
	req_free(r);
}

UNIT_TEST(nldev_attr, policy_table_is_sane)
{
	unsigned int i;

	for (i = 0; i < RDMA_NLDEV_ATTR_MAX; i++)
		EXPECT_LE(nldev_policy[i].type, NLA_TYPE_MAX);
	EXPECT_EQ(nldev_policy[RDMA_NLDEV_ATTR_DEV_INDEX].type, NLA_U32);
	EXPECT_EQ(nldev_policy[RDMA_NLDEV_ATTR_DEV_NAME].type, NLA_NUL_STRING);
	EXPECT_EQ(nldev_policy[RDMA_NLDEV_ATTR_DEV_NAME].len, 63);
	EXPECT_EQ(nldev_policy[RDMA_NLDEV_ATTR_NDEV_NAME].len, 15);
	EXPECT_EQ(nldev_policy[RDMA_NLDEV_ATTR_LINK_TYPE].len, 15);
}

UNIT_TEST(nldev_attr, link_type_syntax)
{
	EXPECT_TRUE(nldev_link_type_valid("rxe"));
	EXPECT_TRUE(nldev_link_type_valid("siw"));
	EXPECT_TRUE(nldev_link_type_valid("my_link-2"));
	EXPECT_FALSE(nldev_link_type_valid(""));
	EXPECT_FALSE(nldev_link_type_valid("RXE"));
	EXPECT_FALSE(nldev_link_type_valid("rxe/../x"));
	EXPECT_FALSE(nldev_link_type_valid("rxe x"));
	EXPECT_FALSE(nldev_link_type_valid("rxe\xff"));
}

UNIT_TEST(nldev_attr, dev_name_syntax)
{
	EXPECT_TRUE(nldev_dev_name_valid("rxe0"));
	EXPECT_TRUE(nldev_dev_name_valid("mlx5_0"));
	EXPECT_TRUE(nldev_dev_name_valid("a.b-c"));
	EXPECT_FALSE(nldev_dev_name_valid(""));
	EXPECT_FALSE(nldev_dev_name_valid("rxe%d"));
	EXPECT_FALSE(nldev_dev_name_valid("a/b"));
	EXPECT_FALSE(nldev_dev_name_valid("a b"));
	EXPECT_FALSE(nldev_dev_name_valid("a\tb"));
	EXPECT_FALSE(nldev_dev_name_valid("a\n"));
}
