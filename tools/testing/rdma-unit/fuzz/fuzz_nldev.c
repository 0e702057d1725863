// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: nldev request checking (drivers/infiniband/core/nldev_attr.c)
 * over the kernel's own attribute parser (lib/nlattr.c, unchanged).
 *
 * The input is one netlink message, header included, in a heap block of
 * exactly its size.  As the netlink core guarantees before a handler runs,
 * nlmsg_len is at least the header and at most the bytes received; the
 * command and the dump flag come from the header as rdma_nl_rcv_msg()
 * takes them.  When the request is accepted the target uses the attributes
 * the way nldev.c does (fixed-size reads, nla_strscpy() into its buffers,
 * the name checks) and checks that every attribute the policy admits is
 * big enough for those uses.
 */
#include <linux/kernel.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include "../../../../drivers/infiniband/core/nldev_attr.h"
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_setup();
	return 0;
}

/*
 * How nldev.c, nldev_res.c and nldev_stat.c read attributes after a
 * successful parse: the width of every fixed-size read, and the size of
 * the buffer every string is copied into.  Written down here from the
 * consumers, not from the policy, so a policy that admits too little for
 * its consumer is caught.
 */
static const struct {
	u16 attr;
	u8 width;
} fixed_reads[] = {
	{ RDMA_NLDEV_ATTR_DEV_INDEX, 4 },
	{ RDMA_NLDEV_ATTR_PORT_INDEX, 4 },
	{ RDMA_NLDEV_ATTR_RES_LQPN, 4 },
	{ RDMA_NLDEV_ATTR_RES_CQN, 4 },
	{ RDMA_NLDEV_ATTR_RES_MRN, 4 },
	{ RDMA_NLDEV_ATTR_RES_PDN, 4 },
	{ RDMA_NLDEV_ATTR_RES_CTXN, 4 },
	{ RDMA_NLDEV_ATTR_RES_SRQN, 4 },
	{ RDMA_NLDEV_ATTR_RES_CM_IDN, 4 },
	{ RDMA_NLDEV_ATTR_STAT_RES, 4 },
	{ RDMA_NLDEV_ATTR_STAT_MODE, 4 },
	{ RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK, 4 },
	{ RDMA_NLDEV_ATTR_STAT_COUNTER_ID, 4 },
	{ RDMA_NLDEV_NET_NS_FD, 4 },
	{ RDMA_NLDEV_ATTR_DEV_DIM, 1 },
	{ RDMA_NLDEV_ATTR_DRIVER_DETAILS, 1 },
	{ RDMA_NLDEV_SYS_ATTR_NETNS_MODE, 1 },
	{ RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE, 1 },
};

static const struct {
	u16 attr;
	u16 bufsize;
	bool (*check)(const char *s);
} string_reads[] = {
	{ RDMA_NLDEV_ATTR_DEV_NAME, NLDEV_NAME_LEN + 1, nldev_dev_name_valid },
	{ RDMA_NLDEV_ATTR_LINK_TYPE, NLDEV_IFNAME_LEN + 1, nldev_link_type_valid },
	{ RDMA_NLDEV_ATTR_NDEV_NAME, NLDEV_IFNAME_LEN + 1, NULL },
	{ RDMA_NLDEV_ATTR_CHARDEV_TYPE, RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE,
	  nldev_link_type_valid },
};

/*
 * Copy an attribute (header and payload) into a heap block of exactly its
 * size, so that AddressSanitizer flags any read past its payload.
 */
static struct nlattr *isolate(const struct nlattr *a)
{
	struct nlattr *c = malloc(a->nla_len);

	memcpy(c, a, a->nla_len);
	return c;
}

/* Where the values read go, so that the reads are not optimised away. */
u64 fuzz_nldev_sink;

static void use_attrs(struct nlattr **tb)
{
	u64 sink = 0;
	unsigned int i;

	for (i = 1; i < RDMA_NLDEV_ATTR_MAX; i++)
		if (tb[i])
			FUZZ_CHECK(nla_type(tb[i]) == i);

	for (i = 0; i < ARRAY_SIZE(fixed_reads); i++) {
		struct nlattr *a;

		if (!tb[fixed_reads[i].attr])
			continue;
		a = isolate(tb[fixed_reads[i].attr]);
		sink += fixed_reads[i].width == 4 ? nla_get_u32(a) : nla_get_u8(a);
		free(a);
	}
	if (tb[RDMA_NLDEV_ATTR_DEV_DIM])
		FUZZ_CHECK(nla_get_u8(tb[RDMA_NLDEV_ATTR_DEV_DIM]) <= 1);

	for (i = 0; i < ARRAY_SIZE(string_reads); i++) {
		struct nlattr *a;
		char *buf;

		if (!tb[string_reads[i].attr])
			continue;
		a = isolate(tb[string_reads[i].attr]);
		buf = malloc(string_reads[i].bufsize);
		/* The whole string fits: nldev never works on a cut name. */
		FUZZ_CHECK(nla_strscpy(buf, a, string_reads[i].bufsize) >= 0);
		if (string_reads[i].check)
			sink += string_reads[i].check(buf);
		free(buf);
		free(a);
	}
	fuzz_nldev_sink += sink;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct netlink_ext_ack ack = { 0 };
	struct nlmsghdr *nlh;
	u32 cmd;
	bool dump;
	int err;

	if (size < NLMSG_HDRLEN || size > 65536)
		return 0;
	nlh = malloc(size);
	memcpy(nlh, data, size);
	if (nlh->nlmsg_len < NLMSG_HDRLEN || nlh->nlmsg_len > size)
		nlh->nlmsg_len = size;
	cmd = RDMA_NL_GET_OP(nlh->nlmsg_type);
	dump = nlh->nlmsg_flags & NLM_F_DUMP;

	err = nldev_parse_request(nlh, cmd, dump, tb, &ack);
	FUZZ_CHECK(err == 0 || err == -EINVAL || err == -ERANGE);
	if (err)
		FUZZ_CHECK(ack._msg);
	else
		use_attrs(tb);
	free(nlh);
	return 0;
}
