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
#include <linux/if_vlan.h>
#include <linux/rtnetlink.h>
#include <linux/ethtool.h>
#include <net/addrconf.h>
#include <rdma/rdma_netlink.h>

#include "rxe.h"

struct workqueue_struct *rxe_wq;

/* What every rxe device offers; the netdev fills in the rest. */
static const struct ib_device_attr rxe_dev_template = {
	.vendor_id = 0xffffff,
	.max_mr_size = U64_MAX,
	/*
	 * A fast-reg MR takes pages of any power of two from 4 KiB to 2 GiB
	 * (ib_mr.page_size is 32 bits): it reaches them by kernel address.
	 */
	.page_size_cap = GENMASK(31, 12),
	/*
	 * What is implemented.  The port counts P_Key and Q_Key violations
	 * (query_port()).  A UD AV's port is always the QP's: the device has
	 * one port, and create_ah and modify_qp refuse any other.  Memory
	 * windows of type 1 and 2B (rxe_mw.c).  Not here, unlike stock rxe:
	 * AUTO_PATH_MIG (no alternate path is kept), CHANGE_PHY_PORT (no
	 * second port to move a QP to), SRQ_RESIZE (modify_srq() refuses
	 * IB_SRQ_MAX_WR), and in the extended flags FLUSH_GLOBAL and
	 * FLUSH_PERSISTENT (no FLUSH opcode).
	 */
	.device_cap_flags = IB_DEVICE_BAD_PKEY_CNTR | IB_DEVICE_BAD_QKEY_CNTR |
			    IB_DEVICE_ATOMIC_WRITE |
			    IB_DEVICE_UD_AV_PORT_ENFORCE |
			    IB_DEVICE_SYS_IMAGE_GUID |
			    IB_DEVICE_RC_RNR_NAK_GEN |
			    IB_DEVICE_PORT_ACTIVE_EVENT |
			    IB_DEVICE_MEM_MGT_EXTENSIONS |
			    IB_DEVICE_MEM_WINDOW |
			    IB_DEVICE_MEM_WINDOW_TYPE_2B,
	/* No IBK_SG_GAPS_REG: only IB_MR_TYPE_MEM_REG MRs exist here. */
	.kernel_cap_flags = IBK_ALLOW_USER_UNREG,
	.atomic_cap = IB_ATOMIC_HCA,
	.local_ca_ack_delay = 15,
	/* The P_Key table: the default P_Key alone (pkey_tbl_len 1) */
	.max_pkeys = 1,
	/* objects */
	.max_pd = RXE_MAX_PD,
	.max_ah = RXE_MAX_AH,
	.max_mr = RXE_MAX_MR,
	.max_mw = RXE_MAX_MW,
	.max_fast_reg_page_list_len = RXE_MAX_FMR_PAGES,
	.max_cq = RXE_MAX_CQ,
	.max_cqe = RXE_MAX_CQE - 1,
	.max_srq = RXE_MAX_SRQ,
	.max_srq_wr = RXE_MAX_SRQ_WR,
	.max_srq_sge = RXE_MAX_SRQ_SGE,
	.max_qp = RXE_MAX_QP,
	.max_qp_wr = RXE_MAX_QP_WR,
	.max_send_sge = RXE_MAX_SGE,
	.max_recv_sge = RXE_MAX_SGE,
	.max_sge_rd = RXE_MAX_SGE,
	/* READ and ATOMIC resources, each way and for the whole device */
	.max_qp_rd_atom = RXE_MAX_RD_ATOMIC,
	.max_qp_init_rd_atom = RXE_MAX_RD_ATOMIC,
	.max_res_rd_atom = RXE_MAX_RES_RD_ATOM,
	/* multicast */
	.max_mcast_grp = RXE_MAX_MCAST_GRP,
	.max_mcast_qp_attach = RXE_MAX_MCAST_QP_ATTACH,
	.max_total_mcast_qp_attach = RXE_MAX_MCAST_GRP *
				     RXE_MAX_MCAST_QP_ATTACH,
};

/* The port before the netdev's state and speed are known. */
static const struct ib_port_attr rxe_port_template = {
	.max_mtu = IB_MTU_4096,
	.max_msg_sz = RXE_MAX_MSG_SZ,
	.gid_tbl_len = RXE_GID_TBL_LEN,
	.pkey_tbl_len = 1,
	.max_vl_num = 1,
	.active_width = IB_WIDTH_1X,
	.active_speed = IB_SPEED_SDR,
};

static void rxe_init_attrs(struct rxe_dev *rxe, struct net_device *ndev)
{
	rxe->attr = rxe_dev_template;
	rxe->port_attr = rxe_port_template;
	/* the node and system image GUIDs: EUI-64 of the netdev's MAC */
	addrconf_addr_eui48((unsigned char *)&rxe->attr.sys_image_guid,
			    ndev->dev_addr);
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

/* The limit query_device() reports for @type */
static u32 rxe_obj_max(const struct rxe_dev *rxe, enum rxe_obj_type type)
{
	switch (type) {
	case RXE_OBJ_PD:
		return rxe->attr.max_pd;
	case RXE_OBJ_AH:
		return rxe->attr.max_ah;
	case RXE_OBJ_CQ:
		return rxe->attr.max_cq;
	case RXE_OBJ_SRQ:
		return rxe->attr.max_srq;
	case RXE_OBJ_QP:
		return rxe->attr.max_qp;
	case RXE_OBJ_MR:
		return rxe->attr.max_mr;
	case RXE_OBJ_MW:
		return rxe->attr.max_mw;
	default:
		return 0;
	}
}

static const char * const rxe_obj_names[RXE_OBJ_NUM] = {
	[RXE_OBJ_PD] = "PD",
	[RXE_OBJ_AH] = "AH",
	[RXE_OBJ_CQ] = "CQ",
	[RXE_OBJ_SRQ] = "SRQ",
	[RXE_OBJ_QP] = "QP",
	[RXE_OBJ_MR] = "MR",
	[RXE_OBJ_MW] = "MW",
};

/**
 * rxe_obj_add() - count a new object against the device's limit
 * @rxe: the device
 * @type: what kind of object
 *
 * Called before the object is set up; rxe_obj_del() undoes it when the
 * object is destroyed or its creation fails later on.
 *
 * Context: any.
 * Return: 0, or -EINVAL when the device already holds as many objects of
 * @type as query_device() says it can.
 */
int rxe_obj_add(struct rxe_dev *rxe, enum rxe_obj_type type)
{
	u32 max = rxe_obj_max(rxe, type);

	if ((u32)atomic_inc_return(&rxe->nobj[type]) > max) {
		atomic_dec(&rxe->nobj[type]);
		ibdev_dbg(&rxe->ib_dev, "%s refused: the device holds its limit of %u\n",
			  rxe_obj_names[type], max);
		return -EINVAL;
	}
	atomic_inc(&rxe->num_objs);
	return 0;
}

/**
 * rxe_obj_del() - uncount an object of rxe_obj_add()
 * @rxe: the device
 * @type: what kind of object
 *
 * Context: any.
 */
void rxe_obj_del(struct rxe_dev *rxe, enum rxe_obj_type type)
{
	atomic_dec(&rxe->num_objs);
	atomic_dec(&rxe->nobj[type]);
}

static void rxe_free_parts(struct rxe_dev *rxe)
{
	rxe_mcast_cleanup(rxe);
	xa_destroy(&rxe->qp_xa);
	xa_destroy(&rxe->mr_xa);
	xa_destroy(&rxe->mw_xa);
	xa_destroy(&rxe->ah_xa);
	ida_destroy(&rxe->srq_ida);
}

/**
 * rxe_dealloc_driver() - the core's last call for an unregistered device
 * @ib_dev: the device
 */
void rxe_dealloc_driver(struct ib_device *ib_dev)
{
	struct rxe_dev *rxe = to_rdev(ib_dev);

	rxe_dev_untrack(rxe);
	/* A device whose registration failed early may have no name yet. */
	pr_info("rdma_rxe: %s released, %d verbs objects left\n",
		ib_dev->name[0] ? ib_dev->name : "(unnamed)",
		atomic_read(&rxe->num_objs));
	rxe_free_parts(rxe);
}

static int rxe_newlink(const char *ibdev_name, struct net_device *ndev)
{
	struct rxe_dev *rxe;
	int ret;

	/*
	 * Any netdev that carries IP will do, with or without a MAC (tun,
	 * ipip...): packets leave through the IP stack.  Not a VLAN: its
	 * traffic belongs to the rxe device of the real netdev below it,
	 * whose GID table holds the VLAN's addresses (as with stock rxe).
	 */
	if (is_vlan_dev(ndev)) {
		pr_debug("rdma_rxe: %s is a VLAN; add the device on %s\n",
			 ndev->name, vlan_dev_real_dev(ndev)->name);
		return -EPERM;
	}
	rxe = ib_alloc_device(rxe_dev, ib_dev);
	if (!rxe)
		return -ENOMEM;
	spin_lock_init(&rxe->lock);
	ret = rxe_mcast_init(rxe);
	if (ret) {
		ib_dealloc_device(&rxe->ib_dev);
		return ret;
	}
	xa_init_flags(&rxe->qp_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&rxe->mr_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&rxe->mw_xa, XA_FLAGS_ALLOC | XA_FLAGS_LOCK_IRQ);
	xa_init_flags(&rxe->ah_xa, XA_FLAGS_ALLOC1);
	ida_init(&rxe->srq_ida);
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
	if (ret)
		goto err_free;
	return 0;

err_free:
	/* the ops are set: this calls rxe_dealloc_driver(), which frees all */
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
/* Set by the out-of-tree build (top Kbuild) from dkms.conf. */
#ifdef RDMA_KMOD_VERSION
MODULE_VERSION(RDMA_KMOD_VERSION);
#endif
