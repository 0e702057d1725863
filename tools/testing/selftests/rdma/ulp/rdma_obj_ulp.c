// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel ULP that only holds objects, so that "rdma resource show" has
 * something to list: on the device named by @ibdev it allocates a PD, a
 * CQ, a UD QP moved to RTS, and a fast-registration MR, posts @recvs
 * receive work requests (without buffers) and keeps all of it until the
 * module is unloaded or the device goes away.  Given @ah_dgid and
 * @ah_dmac it also holds an address handle towards them, from the port's
 * first RoCE v2 GID of the same family.  Written against the upstream
 * verbs API only, so it builds and runs on both stacks.
 *
 * The QP number and MR lkey are readable in
 * /sys/module/rdma_obj_ulp/parameters/{qpn,lkey} once the objects exist.
 * Loading fails with -ENODEV if the device is not there.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "rdma_ulp_util.h"

static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to hold the objects on (required)");
static uint recvs = 4;
module_param(recvs, uint, 0444);
MODULE_PARM_DESC(recvs, "receive work requests to post (at most 16)");
static char *ah_dgid;
module_param(ah_dgid, charp, 0444);
MODULE_PARM_DESC(ah_dgid, "IPv4 or IPv6 address to hold an address handle to");
static char *ah_dmac;
module_param(ah_dmac, charp, 0444);
MODULE_PARM_DESC(ah_dmac, "MAC address of the address handle (with ah_dgid)");
static uint qpn;
module_param(qpn, uint, 0444);
MODULE_PARM_DESC(qpn, "read-only: number of the UD QP");
static uint lkey;
module_param(lkey, uint, 0444);
MODULE_PARM_DESC(lkey, "read-only: lkey of the MR");

#define OBJ_QKEY	0x12345678
#define OBJ_CQE		32
#define OBJ_MAX_RECV	16
#define OBJ_MR_PAGES	8

struct obj_set {
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	struct ib_mr		*mr;
	struct ib_ah		*ah;
};

/* The one object set, or NULL, and the error of its creation; obj_lock. */
static DEFINE_MUTEX(obj_lock);
static struct obj_set *obj;
static int obj_err = -ENODEV;

static void obj_free(struct obj_set *o)
{
	if (o->ah)
		rdma_destroy_ah(o->ah, 0);
	if (o->mr)
		ib_dereg_mr(o->mr);
	if (o->qp)
		ib_destroy_qp(o->qp);
	if (o->cq)
		ib_free_cq(o->cq);
	if (o->pd)
		ib_dealloc_pd(o->pd);
	kfree(o);
}

/* The address handle towards @ah_dgid / @ah_dmac. */
static int obj_create_ah(struct obj_set *o, u32 port)
{
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	u8 dmac[ETH_ALEN];
	int sgid_index;
	bool v4;

	if (rdma_ulp_parse_gid(ah_dgid, &dgid, &v4) ||
	    !ah_dmac || !mac_pton(ah_dmac, dmac))
		return -EINVAL;
	sgid_index = rdma_ulp_find_sgid(o->dev, port, v4);
	if (sgid_index < 0)
		return -ENODEV;
	rdma_ulp_roce_ah_attr(o->dev, port, &dgid, sgid_index, dmac, &attr);
	o->ah = rdma_create_ah(o->pd, &attr, 0);
	if (IS_ERR(o->ah)) {
		int ret = PTR_ERR(o->ah);

		o->ah = NULL;
		return ret;
	}
	return 0;
}

static int obj_create(struct obj_set *o)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = OBJ_MAX_RECV,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_recv_wr wr = {};
	u32 port = rdma_start_port(o->dev);
	unsigned int i;
	int ret;

	o->pd = ib_alloc_pd(o->dev, 0);
	if (IS_ERR(o->pd)) {
		ret = PTR_ERR(o->pd);
		o->pd = NULL;
		return ret;
	}
	o->cq = ib_alloc_cq(o->dev, o, OBJ_CQE, 0, IB_POLL_DIRECT);
	if (IS_ERR(o->cq)) {
		ret = PTR_ERR(o->cq);
		o->cq = NULL;
		return ret;
	}
	init.send_cq = o->cq;
	init.recv_cq = o->cq;
	o->qp = ib_create_qp(o->pd, &init);
	if (IS_ERR(o->qp)) {
		ret = PTR_ERR(o->qp);
		o->qp = NULL;
		return ret;
	}
	ret = rdma_ulp_ud_to_rts(o->qp, port, OBJ_QKEY, 0);
	if (ret)
		return ret;
	o->mr = ib_alloc_mr(o->pd, IB_MR_TYPE_MEM_REG, OBJ_MR_PAGES);
	if (IS_ERR(o->mr)) {
		ret = PTR_ERR(o->mr);
		o->mr = NULL;
		return ret;
	}
	for (i = 0; i < min_t(uint, recvs, OBJ_MAX_RECV); i++) {
		wr.wr_id = i;
		ret = ib_post_recv(o->qp, &wr, NULL);
		if (ret)
			return ret;
	}
	return ah_dgid ? obj_create_ah(o, port) : 0;
}

static int obj_add_one(struct ib_device *dev)
{
	struct obj_set *o;
	int ret;

	if (!ibdev || strcmp(ibdev, dev_name(&dev->dev)))
		return 0;
	mutex_lock(&obj_lock);
	if (obj) {
		ret = 0;
		goto out;
	}
	o = kzalloc(sizeof(*o), GFP_KERNEL);
	if (!o) {
		ret = -ENOMEM;
		goto out;
	}
	o->dev = dev;
	ret = obj_create(o);
	if (ret) {
		pr_info("rdma_obj_ulp: objects on %s: error %d\n", ibdev, ret);
		obj_free(o);
		obj_err = ret;
		goto out;
	}
	qpn = o->qp->qp_num;
	lkey = o->mr->lkey;
	obj = o;
	pr_info("rdma_obj_ulp: holding pd, cq, qp %#x, mr%s on %s\n", qpn,
		o->ah ? ", ah" : "", dev_name(&dev->dev));
out:
	mutex_unlock(&obj_lock);
	return ret;
}

static void obj_remove_one(struct ib_device *dev, void *client_data)
{
	struct obj_set *o = NULL;

	mutex_lock(&obj_lock);
	if (obj && obj->dev == dev) {
		o = obj;
		obj = NULL;
		qpn = 0;
		lkey = 0;
	}
	mutex_unlock(&obj_lock);
	if (o)
		obj_free(o);
}

static struct ib_client obj_client = {
	.name = "rdma_obj_ulp",
	.add = obj_add_one,
	.remove = obj_remove_one,
};

static int __init obj_init(void)
{
	int ret;

	if (!ibdev || !*ibdev)
		return -EINVAL;
	ret = ib_register_client(&obj_client);
	if (ret)
		return ret;
	mutex_lock(&obj_lock);
	ret = obj ? 0 : obj_err;
	mutex_unlock(&obj_lock);
	if (ret)
		ib_unregister_client(&obj_client);
	return ret;
}

static void __exit obj_exit(void)
{
	ib_unregister_client(&obj_client);
}

module_init(obj_init);
module_exit(obj_exit);
MODULE_DESCRIPTION("Test ULP holding a PD, CQ, QP and MR for rdma resource show");
MODULE_LICENSE("GPL");
