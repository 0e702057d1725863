// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-RoCE: module load and unload, and the "rxe" link type of
 * "rdma link add NAME type rxe netdev DEV".
 *
 * A device lives from newlink() until the core unregisters it ("rdma link
 * delete", the netdev's NETDEV_UNREGISTER, or module unload through
 * ib_unregister_driver()); the core then calls dealloc_driver(), which
 * lets go of the namespace's sockets and what else the device owned,
 * and frees the device.
 */
#include <linux/module.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
#include <linux/ethtool.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "rxe.h"

struct workqueue_struct *rxe_wq;

static void rxe_init_attrs(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct ib_device_attr *a = &rxe->attr;
	struct ib_port_attr *p = &rxe->port_attr;

	a->vendor_id = 0xffffff;
	a->max_mr_size = -1ULL;
	a->page_size_cap = PAGE_SIZE | SZ_4K;
	a->max_qp = RXE_MAX_QP;
	a->max_qp_wr = RXE_MAX_QP_WR;
	a->device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR | IB_DEVICE_BAD_QKEY_CNTR |
			      IB_DEVICE_SYS_IMAGE_GUID | IB_DEVICE_RC_RNR_NAK_GEN |
			      IB_DEVICE_PORT_ACTIVE_EVENT |
			      IB_DEVICE_MEM_MGT_EXTENSIONS;
	/* No IBK_SG_GAPS_REG: only IB_MR_TYPE_MEM_REG MRs exist here. */
	a->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	a->max_send_sge = RXE_MAX_SGE;
	a->max_recv_sge = RXE_MAX_SGE;
	a->max_sge_rd = RXE_MAX_SGE;
	a->max_cq = RXE_MAX_CQ;
	a->max_cqe = RXE_MAX_CQE - 1;
	a->max_mr = RXE_MAX_MR;
	a->max_pd = RXE_MAX_PD;
	a->max_qp_rd_atom = RXE_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = RXE_MAX_RD_ATOMIC;
	a->max_res_rd_atom = RXE_MAX_RD_ATOMIC * RXE_MAX_QP;
	a->atomic_cap = IB_ATOMIC_HCA;
	a->max_mcast_grp = RXE_MAX_MCAST_GRP;
	a->max_mcast_qp_attach = RXE_MAX_MCAST_QP_ATTACH;
	a->max_total_mcast_qp_attach = RXE_MAX_MCAST_GRP *
				       RXE_MAX_MCAST_QP_ATTACH;
	a->max_ah = RXE_MAX_AH;
	a->max_srq = RXE_MAX_SRQ;
	a->max_srq_wr = RXE_MAX_SRQ_WR;
	a->max_srq_sge = RXE_MAX_SGE;
	a->max_fast_reg_page_list_len = RXE_MAX_FMR_PAGES;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	addrconf_addr_eui48((unsigned char *)&a->sys_image_guid,
			    ndev->dev_addr);

	p->max_mtu = IB_MTU_4096;
	p->gid_tbl_len = 16;
	p->max_msg_sz = RXE_MAX_MSG_SZ;
	p->bad_pkey_cntr = 0;
	p->qkey_viol_cntr = 0;
	p->pkey_tbl_len = 1;
	p->active_width = IB_WIDTH_1X;
	p->active_speed = IB_SPEED_SDR;
	p->max_vl_num = 1;
}

/* IB speed and width closest to the netdev's link speed; RTNL held. */
static void rxe_port_speed(struct rxe_dev *rxe, struct net_device *ndev)
{
	struct ethtool_link_ksettings ks = {};
	u32 mbps = SPEED_1000;
	u16 speed;
	u8 width = IB_WIDTH_1X;

	if (!__ethtool_get_link_ksettings(ndev, &ks) &&
	    ks.base.speed != (u32)SPEED_UNKNOWN && ks.base.speed)
		mbps = ks.base.speed;
	if (mbps <= 2500) {
		speed = IB_SPEED_SDR;
	} else if (mbps <= 5000) {
		speed = IB_SPEED_DDR;
	} else if (mbps <= 10000) {
		speed = IB_SPEED_QDR;
	} else if (mbps <= 14000) {
		speed = IB_SPEED_FDR;
	} else if (mbps <= 25000) {
		speed = IB_SPEED_EDR;
	} else if (mbps <= 50000) {
		speed = IB_SPEED_HDR;
	} else if (mbps <= 100000) {
		speed = IB_SPEED_EDR;
		width = IB_WIDTH_4X;
	} else {
		speed = IB_SPEED_HDR;
		width = IB_WIDTH_4X;
	}
	rxe->port_attr.active_speed = speed;
	rxe->port_attr.active_width = width;
}

static void rxe_free_parts(struct rxe_dev *rxe)
{
	rxe_mcast_cleanup(rxe);
	xa_destroy(&rxe->qp_xa);
	xa_destroy(&rxe->mr_xa);
}

/**
 * rxe_dealloc_driver() - the core's last call for an unregistered device
 * @ib_dev: the device
 */
void rxe_dealloc_driver(struct ib_device *ib_dev)
{
	struct rxe_dev *rxe = to_rdev(ib_dev);

	rxe_dev_untrack(rxe);
	pr_info("rdma_rxe: %s released, %d verbs objects left\n",
		dev_name(&ib_dev->dev), atomic_read(&rxe->num_objs));
	rxe_free_parts(rxe);
}

static int rxe_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct rxe_dev *rxe;
	int ret;

	if (ndev->type != ARPHRD_ETHER)
		return -EINVAL;
	rxe = ib_alloc_device(rxe_dev, ib_dev);
	if (!rxe)
		return -ENOMEM;
	spin_lock_init(&rxe->lock);
	spin_lock_init(&rxe->mcast_lock);
	INIT_LIST_HEAD(&rxe->mcast_list);
	xa_init_flags(&rxe->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&rxe->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	rxe->net = dev_net(ndev);
	rxe_init_attrs(rxe, ndev);

	rxe->ib_dev.node_type = RDMA_NODE_IB_CA;
	rxe->ib_dev.phys_port_cnt = 1;
	rxe->ib_dev.num_comp_vectors = 1;
	rxe->ib_dev.node_guid = rxe->attr.sys_image_guid;
	strscpy(rxe->ib_dev.node_desc, "rxe", sizeof(rxe->ib_dev.node_desc));
	ib_set_device_ops(&rxe->ib_dev, &rxe_dev_ops);

	ret = ib_device_set_netdev(&rxe->ib_dev, ndev, 1);
	if (ret)
		goto err_free;
	rtnl_lock();
	rxe_port_speed(rxe, ndev);
	rxe_port_update(rxe, ndev, false);
	rtnl_unlock();
	ret = rxe_dev_track(rxe, ndev);
	if (ret)
		goto err_free;
	ret = ib_register_device(&rxe->ib_dev, ibdev_name, NULL);
	if (ret) {
		rxe_dev_untrack(rxe);
		goto err_free;
	}
	return 0;

err_free:
	rxe_free_parts(rxe);
	ib_dealloc_device(&rxe->ib_dev);
	return ret;
}

static struct rdma_link_ops rxe_link_ops = {
	.type = "rxe",
	.newlink = rxe_newlink,
};

static int __init rxe_module_init(void)
{
	int ret;

	rxe_wq = alloc_workqueue("rxe_wq", WQ_UNBOUND | WQ_MEM_RECLAIM, 0);
	if (!rxe_wq)
		return -ENOMEM;
	ret = rxe_net_init();
	if (ret) {
		destroy_workqueue(rxe_wq);
		return ret;
	}
	rdma_link_register(&rxe_link_ops);
	return 0;
}

static void __exit rxe_module_exit(void)
{
	rdma_link_unregister(&rxe_link_ops);
	ib_unregister_driver(RDMA_DRIVER_RXE);
	rxe_net_exit();
	destroy_workqueue(rxe_wq);
}

module_init(rxe_module_init);
module_exit(rxe_module_exit);

MODULE_ALIAS_RDMA_LINK("rxe");
MODULE_DESCRIPTION("Soft RDMA over Converged Ethernet (RoCE v2) provider");
MODULE_LICENSE("GPL");
