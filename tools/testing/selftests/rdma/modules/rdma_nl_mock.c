// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Link type "mock" for the nldev quick check: "rdma link add NAME type
 * mock netdev DEV" creates a mock device on DEV.  Devices live until the
 * module unloads (the mock provider does not free itself on unregister,
 * so "rdma link delete" is refused for them).
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <rdma/rdma_netlink.h>

#include "rdma_mock.h"

#define NL_MOCK_MAX	4

static DEFINE_MUTEX(nl_mock_lock);
static struct rdma_mock_dev *nl_mock_devs[NL_MOCK_MAX];

static int nl_mock_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct rdma_mock_dev *md;
	int i, ret;

	mutex_lock(&nl_mock_lock);
	for (i = 0; i < NL_MOCK_MAX && nl_mock_devs[i]; i++)
		;
	if (i == NL_MOCK_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	md = rdma_mock_alloc(ndev, NULL);
	if (IS_ERR(md)) {
		ret = PTR_ERR(md);
		goto out;
	}
	ib_mark_name_assigned_by_user(&md->ibdev);
	ret = rdma_mock_register(md, ibdev_name);
	if (ret) {
		rdma_mock_free(md);
		goto out;
	}
	nl_mock_devs[i] = md;
out:
	mutex_unlock(&nl_mock_lock);
	return ret;
}

static struct rdma_link_ops nl_mock_link_ops = {
	.type = "mock",
	.newlink = nl_mock_newlink,
};

static int __init nl_mock_init(void)
{
	rdma_link_register(&nl_mock_link_ops);
	return 0;
}

static void __exit nl_mock_exit(void)
{
	int i;

	rdma_link_unregister(&nl_mock_link_ops);
	for (i = 0; i < NL_MOCK_MAX; i++)
		rdma_mock_destroy(nl_mock_devs[i]);
}

module_init(nl_mock_init);
module_exit(nl_mock_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("RDMA netlink quick check: link type mock");
MODULE_ALIAS_RDMA_LINK("mock");
