// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP module: "rdma link add NAME type siw netdev DEV" makes a
 * device on DEV; the device goes with "rdma link delete", with its
 * netdev's NETDEV_UNREGISTER, or at module unload (ib_unregister_driver()).
 * The core then calls siw_dealloc_driver(), which lets go of the netdev.
 *
 * Lock order: RTNL, then siw_dev_mutex (the netdev notifier takes it under
 * RTNL; nothing here takes RTNL under it).
 */
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/addrconf.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_netlink.h>

#include "siw.h"

/*
 * Every siw device with its netdev, for the notifier: the core may forget a
 * port's netdev on NETDEV_UNREGISTER before this module's notifier runs.
 */
static LIST_HEAD(siw_dev_list);
static DEFINE_MUTEX(siw_dev_mutex);

struct siw_dev_entry {
	struct list_head	link;
	struct siw_device	*sdev;
	struct net_device	*netdev;	/* compared only */
};

static const struct rdma_stat_desc siw_counter_descs[SIW_NUM_COUNTERS] = {
	[SIW_CNT_TX_FPDU]		= { .name = "tx_fpdus" },
	[SIW_CNT_RX_FPDU]		= { .name = "rx_fpdus" },
	[SIW_CNT_RX_BAD_CRC]		= { .name = "rx_bad_crc" },
	[SIW_CNT_RX_BAD_HDR]		= { .name = "rx_bad_header" },
	[SIW_CNT_RX_PROTECTION]		= { .name = "rx_protection_err" },
	[SIW_CNT_TERM_SENT]		= { .name = "terminate_sent" },
	[SIW_CNT_TERM_RCVD]		= { .name = "terminate_rcvd" },
	[SIW_CNT_MPA_BAD]		= { .name = "mpa_bad_frame" },
	[SIW_CNT_MPA_REJECTED]		= { .name = "mpa_rejected" },
	[SIW_CNT_CONN_ESTABLISHED]	= { .name = "connections" },
	[SIW_CNT_TX_DIRECT_REST]	= { .name = "tx_direct_rest" },
};

static struct rdma_hw_stats *siw_alloc_hw_port_stats(struct ib_device *base,
						     u32 port)
{
	return rdma_alloc_hw_stats_struct(siw_counter_descs, SIW_NUM_COUNTERS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

static int siw_get_hw_stats(struct ib_device *base, struct rdma_hw_stats *stats,
			    u32 port, int index)
{
	struct siw_device *sdev = to_siw_dev(base);
	int i;

	for (i = 0; i < SIW_NUM_COUNTERS; i++)
		stats->value[i] = atomic64_read(&sdev->counters[i]);
	return SIW_NUM_COUNTERS;
}

static enum rdma_link_layer siw_get_link_layer(struct ib_device *base,
					       u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static struct net_device *siw_get_netdev(struct ib_device *base, u32 port)
{
	struct net_device *ndev = to_siw_dev(base)->netdev;

	dev_hold(ndev);
	return ndev;
}

static void siw_dealloc_driver(struct ib_device *base)
{
	struct siw_device *sdev = to_siw_dev(base);
	struct siw_dev_entry *e, *found = NULL;

	mutex_lock(&siw_dev_mutex);
	list_for_each_entry(e, &siw_dev_list, link) {
		if (e->sdev == sdev) {
			found = e;
			list_del(&e->link);
			break;
		}
	}
	mutex_unlock(&siw_dev_mutex);
	kfree(found);

	pr_info("siw: %s released, %d QPs, %d CQs, %d MRs, %d PDs left\n",
		base->name[0] ? base->name : "(unnamed)",
		atomic_read(&sdev->objs[SIW_OBJ_QP]),
		atomic_read(&sdev->objs[SIW_OBJ_CQ]),
		atomic_read(&sdev->objs[SIW_OBJ_MR]),
		atomic_read(&sdev->objs[SIW_OBJ_PD]));
	xa_destroy(&sdev->qps);
	xa_destroy(&sdev->mems);
	netdev_put(sdev->netdev, &sdev->netdev_tracker);
}

static const struct ib_device_ops siw_device_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_SIW,
	.uverbs_abi_ver = SIW_ABI_VERSION,
	.dealloc_driver = siw_dealloc_driver,

	/* user contexts and what they map */
	INIT_RDMA_OBJ_SIZE(ib_ucontext, siw_ucontext, base),
	.alloc_ucontext = siw_alloc_ucontext,
	.dealloc_ucontext = siw_dealloc_ucontext,
	.mmap = siw_mmap,
	.mmap_free = siw_mmap_free,

	/* device and port */
	.query_device = siw_query_device,
	.query_port = siw_query_port,
	.get_port_immutable = siw_get_port_immutable,
	.get_link_layer = siw_get_link_layer,
	.get_netdev = siw_get_netdev,
	.query_gid = siw_query_gid,
	.query_pkey = siw_query_pkey,
	.alloc_hw_port_stats = siw_alloc_hw_port_stats,
	.get_hw_stats = siw_get_hw_stats,

	/* protection domains */
	INIT_RDMA_OBJ_SIZE(ib_pd, siw_pd, base),
	.alloc_pd = siw_alloc_pd,
	.dealloc_pd = siw_dealloc_pd,

	/* completion queues */
	INIT_RDMA_OBJ_SIZE(ib_cq, siw_cq, base),
	.create_cq = siw_create_cq,
	.destroy_cq = siw_destroy_cq,
	.poll_cq = siw_poll_cq,
	.req_notify_cq = siw_req_notify_cq,

	/* shared receive queues */
	INIT_RDMA_OBJ_SIZE(ib_srq, siw_srq, base),
	.create_srq = siw_create_srq,
	.modify_srq = siw_modify_srq,
	.query_srq = siw_query_srq,
	.destroy_srq = siw_destroy_srq,
	.post_srq_recv = siw_post_srq_recv,

	/* queue pairs */
	INIT_RDMA_OBJ_SIZE(ib_qp, siw_qp, base),
	.create_qp = siw_create_qp,
	.modify_qp = siw_modify_qp,
	.query_qp = siw_query_qp,
	.destroy_qp = siw_destroy_qp,
	.post_send = siw_post_send,
	.post_recv = siw_post_recv,

	/* memory */
	.get_dma_mr = siw_get_dma_mr,
	.reg_user_mr = siw_reg_user_mr,
	.alloc_mr = siw_alloc_mr,
	.map_mr_sg = siw_map_mr_sg,
	.dereg_mr = siw_dereg_mr,

	/* connections (iw_cm) */
	.iw_add_ref = siw_add_ref,
	.iw_rem_ref = siw_rem_ref,
	.iw_get_qp = siw_get_qp,
	.iw_connect = siw_connect,
	.iw_accept = siw_accept,
	.iw_reject = siw_reject,
	.iw_create_listen = siw_create_listen,
	.iw_destroy_listen = siw_destroy_listen,
};

/* Remember @sdev for the notifier, unless its netdev is already going. */
static int siw_dev_track(struct siw_device *sdev, struct net_device *ndev)
{
	struct siw_dev_entry *e, *n;
	int ret;

	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	n->sdev = sdev;
	n->netdev = ndev;
	mutex_lock(&siw_dev_mutex);
	ret = READ_ONCE(ndev->reg_state) == NETREG_REGISTERED ? 0 : -ENODEV;
	list_for_each_entry(e, &siw_dev_list, link) {
		if (!ret && e->netdev == ndev)
			ret = -EEXIST;
	}
	if (!ret)
		list_add(&n->link, &siw_dev_list);
	mutex_unlock(&siw_dev_mutex);
	if (ret) {
		pr_debug("siw: %s: no device: %d\n", ndev->name, ret);
		kfree(n);
	}
	return ret;
}

static int siw_newlink(const char *name, struct net_device *ndev)
{
	struct siw_device *sdev;
	int ret;

	/* TCP needs an IP interface; a link-layer address gives the GID. */
	if (!ndev->addr_len || ndev->addr_len > sizeof(union ib_gid)) {
		pr_debug("siw: %s: link-layer address of %u bytes\n",
			 ndev->name, ndev->addr_len);
		return -EINVAL;
	}
	sdev = ib_alloc_device(siw_device, base);
	if (!sdev)
		return -ENOMEM;
	sdev->netdev = ndev;
	netdev_hold(ndev, &sdev->netdev_tracker, GFP_KERNEL);
	xa_init_flags(&sdev->qps, XA_FLAGS_ALLOC1);
	xa_init_flags(&sdev->mems, XA_FLAGS_ALLOC1);
	INIT_LIST_HEAD(&sdev->ceps);
	spin_lock_init(&sdev->cep_lock);

	sdev->base.node_type = RDMA_NODE_RNIC;
	sdev->base.phys_port_cnt = 1;
	sdev->base.num_comp_vectors = 1;
	sdev->base.iw_driver_flags = IW_F_NO_PORT_MAP;
	addrconf_addr_eui48((u8 *)&sdev->base.node_guid, ndev->dev_addr);
	strscpy(sdev->base.node_desc, SIW_NODE_DESC_COMMON,
		sizeof(sdev->base.node_desc));
	strscpy(sdev->base.iw_ifname, ndev->name,
		sizeof(sdev->base.iw_ifname));
	ib_set_device_ops(&sdev->base, &siw_device_ops);

	ret = ib_device_set_netdev(&sdev->base, ndev, 1);
	if (ret)
		goto err;
	ret = siw_dev_track(sdev, ndev);
	if (ret)
		goto err;
	ret = ib_register_device(&sdev->base, name, NULL);
	if (ret)
		goto err;
	return 0;

err:
	/* The ops are set: this ends in siw_dealloc_driver(). */
	ib_dealloc_device(&sdev->base);
	return ret;
}

static void siw_port_event(struct siw_device *sdev, struct net_device *ndev)
{
	struct ib_event ev = {
		.device = &sdev->base,
		.element.port_num = 1,
	};

	ev.event = netif_running(ndev) && netif_carrier_ok(ndev) ?
		   IB_EVENT_PORT_ACTIVE : IB_EVENT_PORT_ERR;
	ib_dispatch_event(&ev);
}

static int siw_netdev_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct siw_dev_entry *e;

	mutex_lock(&siw_dev_mutex);
	list_for_each_entry(e, &siw_dev_list, link) {
		if (e->netdev != ndev)
			continue;
		switch (event) {
		case NETDEV_UNREGISTER:
			siw_cm_dev_down(e->sdev);
			ib_unregister_device_queued(&e->sdev->base);
			break;
		case NETDEV_UP:
		case NETDEV_DOWN:
		case NETDEV_CHANGE:
			siw_port_event(e->sdev, ndev);
			break;
		case NETDEV_CHANGENAME:
			strscpy(e->sdev->base.iw_ifname, ndev->name,
				sizeof(e->sdev->base.iw_ifname));
			break;
		default:
			break;
		}
	}
	mutex_unlock(&siw_dev_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block siw_netdev_nb = {
	.notifier_call = siw_netdev_event,
};

static struct rdma_link_ops siw_link_ops = {
	.type = "siw",
	.newlink = siw_newlink,
};

struct workqueue_struct *siw_wq;

static int __init siw_module_init(void)
{
	int ret;

	siw_wq = alloc_workqueue("siw_wq", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!siw_wq)
		return -ENOMEM;
	ret = siw_cm_init();
	if (ret)
		goto err_wq;
	ret = register_netdevice_notifier(&siw_netdev_nb);
	if (ret)
		goto err_cm;
	rdma_link_register(&siw_link_ops);
	return 0;

err_cm:
	siw_cm_exit();
err_wq:
	destroy_workqueue(siw_wq);
	return ret;
}

static void __exit siw_module_exit(void)
{
	rdma_link_unregister(&siw_link_ops);
	ib_unregister_driver(RDMA_DRIVER_SIW);
	unregister_netdevice_notifier(&siw_netdev_nb);
	siw_cm_exit();
	destroy_workqueue(siw_wq);
}

module_init(siw_module_init);
module_exit(siw_module_exit);

MODULE_ALIAS_RDMA_LINK("siw");
MODULE_DESCRIPTION("Software iWARP (RDMAP/DDP/MPA over TCP) provider");
MODULE_LICENSE("GPL");
/* Set by the out-of-tree build (top Kbuild) from dkms.conf. */
#ifdef RDMA_KMOD_VERSION
MODULE_VERSION(RDMA_KMOD_VERSION);
#endif
