// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Link types for the nldev tests, made of rdma_mock devices:
 *
 *   rdma link add NAME type mock netdev DEV
 *	a device with per-port hardware counters (one of them optional)
 *	that "rdma link delete NAME" removes: IBK_ALLOW_USER_UNREG, and
 *	the core frees it through dealloc_driver;
 *   rdma link add NAME type mock_pinned netdev DEV
 *	a device without IBK_ALLOW_USER_UNREG, which "rdma link delete"
 *	must refuse.
 *
 * Devices left when the module unloads are unregistered then.
 *
 * Locking: nl_mock_lock protects nl_mock_devs[].  A slot is cleared by
 * nl_mock_dealloc(), which the core calls as it frees the device (after
 * "rdma link delete", or after module exit unregistered it); so while a
 * slot is seen under the lock, the device's memory is still there.
 * Module exit waits on nl_mock_wq until every slot is empty, which also
 * covers a deletion that another task started.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/wait.h>
#include <rdma/rdma_netlink.h>

#include "rdma_mock.h"

#define NL_MOCK_MAX	4

static DEFINE_MUTEX(nl_mock_lock);
static DECLARE_WAIT_QUEUE_HEAD(nl_mock_wq);
static struct rdma_mock_dev *nl_mock_devs[NL_MOCK_MAX];

/* The core frees @md (dealloc_driver): forget it. */
static void nl_mock_dealloc(struct rdma_mock_dev *md)
{
	int i;

	mutex_lock(&nl_mock_lock);
	for (i = 0; i < NL_MOCK_MAX; i++)
		if (nl_mock_devs[i] == md)
			nl_mock_devs[i] = NULL;
	mutex_unlock(&nl_mock_lock);
	wake_up(&nl_mock_wq);
}

static int nl_mock_add(const char *ibdev_name, struct net_device *ndev,
		       bool deletable)
{
	const struct rdma_mock_opts opts = {
		.dealloc_driver = true,
		.on_dealloc = nl_mock_dealloc,
		.user_unreg = deletable,
		.hw_stats = true,
	};
	struct rdma_mock_dev *md;
	int i, ret;

	mutex_lock(&nl_mock_lock);
	for (i = 0; i < NL_MOCK_MAX && nl_mock_devs[i]; i++)
		;
	if (i == NL_MOCK_MAX) {
		ret = -ENOSPC;
		goto out;
	}
	md = rdma_mock_alloc(ndev, &opts);
	if (IS_ERR(md)) {
		ret = PTR_ERR(md);
		goto out;
	}
	ib_mark_name_assigned_by_user(&md->ibdev);
	/*
	 * Taken before registration: a "rdma link delete" that follows at
	 * once finds the slot to clear.
	 */
	nl_mock_devs[i] = md;
	ret = rdma_mock_register(md, ibdev_name);
	if (ret) {
		nl_mock_devs[i] = NULL;
		/* Not registered: freeing it calls nl_mock_dealloc() too. */
		mutex_unlock(&nl_mock_lock);
		rdma_mock_free(md);
		return ret;
	}
out:
	mutex_unlock(&nl_mock_lock);
	return ret;
}

static int nl_mock_newlink(const char *ibdev_name, struct net_device *ndev)
{
	return nl_mock_add(ibdev_name, ndev, true);
}

static int nl_mock_pinned_newlink(const char *ibdev_name,
				  struct net_device *ndev)
{
	return nl_mock_add(ibdev_name, ndev, false);
}

static struct rdma_link_ops nl_mock_link_ops = {
	.type = "mock",
	.newlink = nl_mock_newlink,
};

static struct rdma_link_ops nl_mock_pinned_link_ops = {
	.type = "mock_pinned",
	.newlink = nl_mock_pinned_newlink,
};

static bool nl_mock_empty(void)
{
	bool empty = true;
	int i;

	mutex_lock(&nl_mock_lock);
	for (i = 0; i < NL_MOCK_MAX; i++)
		if (nl_mock_devs[i])
			empty = false;
	mutex_unlock(&nl_mock_lock);
	return empty;
}

static int __init nl_mock_init(void)
{
	rdma_link_register(&nl_mock_link_ops);
	rdma_link_register(&nl_mock_pinned_link_ops);
	return 0;
}

static void __exit nl_mock_exit(void)
{
	struct rdma_mock_dev *md;
	int i;

	/* No new links from here on (a newlink() running is waited for). */
	rdma_link_unregister(&nl_mock_pinned_link_ops);
	rdma_link_unregister(&nl_mock_link_ops);
	for (i = 0; i < NL_MOCK_MAX; i++) {
		mutex_lock(&nl_mock_lock);
		md = nl_mock_devs[i];
		if (md)
			get_device(&md->ibdev.dev);
		mutex_unlock(&nl_mock_lock);
		if (!md)
			continue;
		/* Frees the device (or waits for a deletion under way). */
		ib_unregister_device(&md->ibdev);
		put_device(&md->ibdev.dev);
	}
	wait_event(nl_mock_wq, nl_mock_empty());
}

module_init(nl_mock_init);
module_exit(nl_mock_exit);
MODULE_LICENSE("Dual BSD/GPL");
MODULE_DESCRIPTION("RDMA netlink tests: link types mock and mock_pinned");
MODULE_ALIAS_RDMA_LINK("mock");
MODULE_ALIAS_RDMA_LINK("mock_pinned");
