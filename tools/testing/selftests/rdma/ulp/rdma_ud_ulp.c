// SPDX-License-Identifier: GPL-2.0
/*
 * A small kernel ULP that moves UD datagrams the way IPoIB-style users do:
 * an ib_client, a PD, CQs, one UD QP, address handles from rdma_create_ah()
 * and, for replies, from ib_create_ah_from_wc().  It is written against the
 * upstream verbs API only, so the same source builds against this tree and
 * against the stock kernel's headers, and runs on either stack.
 *
 * mode=echo  send every datagram received back to its sender, through an
 *            AH made from the receive completion (the GRH or IPv4 header in
 *            the first 40 bytes of the buffer); the QP number is readable
 *            in /sys/module/rdma_ud_ulp/parameters/qpn.
 * mode=send  send @count datagrams to @dest/@dqpn through an AH from
 *            rdma_create_ah() (in atomic context: flags 0, under
 *            local_bh_disable()), wait for each echo and compare it.  The
 *            result is printed as KTAP, one line per datagram.
 *
 * nqp=N makes N UD QPs (QP numbers in the qpns parameter); the send mode
 * sends datagram i from QP i % N to dqpns[i % n] (or dqpn).  gid=ipv6
 * uses the port's first IPv6 GID instead of the IPv4-mapped one.  The
 * send mode ends with the time per round trip.
 *
 * Sizes of the send mode cycle through 0, 1, 2, 3, 4, 5 and then larger
 * values up to @size, so that every pad length and the path MTU are used.
 *
 * mgid=GROUP (an IPv4 or IPv6 multicast address) makes it multicast UD:
 * the echo mode attaches every QP to the group, checks that each datagram
 * was sent to it and answers the sender at @dest/@dmac (a reply AH cannot
 * come from a completion whose destination is a group); the send mode
 * sends to the group (QPN 0xffffff, the group's MAC) and expects @copies
 * identical echoes per datagram, one from each attached QP.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip.h>

#include "rdma_ulp_util.h"

#define ULP_GRH_BYTES	40
#define ULP_MAX_PAYLOAD	4096
#define ULP_BUF_BYTES	(ULP_GRH_BYTES + ULP_MAX_PAYLOAD)
#define ULP_RX_DEPTH	32
#define ULP_TIMEOUT	(5 * HZ)
#define ULP_MAX_QPS	8
#define ULP_MCAST_QPN	0xffffff

static char *mode = "echo";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "echo or send");
static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to use (default: the first RoCE one)");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "send: the peer's IPv4 or IPv6 address (its GID)");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "send: the peer's MAC address");
static uint dqpn;
module_param(dqpn, uint, 0444);
MODULE_PARM_DESC(dqpn, "send: the peer's QP number");
static uint qkey = 0x11111111;
module_param(qkey, uint, 0444);
MODULE_PARM_DESC(qkey, "Q_Key of both ends");
static uint count = 16;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "send: number of datagrams");
static uint size = 1024;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "send: largest payload, at most the path MTU");
static uint qpn;
module_param(qpn, uint, 0444);
MODULE_PARM_DESC(qpn, "read-only: number of the first UD QP once it is ready");
static char qpns[ULP_MAX_QPS * 9 + 1];
module_param_string(qpns, qpns, sizeof(qpns), 0444);
MODULE_PARM_DESC(qpns, "read-only: every UD QP number, comma-separated");
static uint nqp = 1;
module_param(nqp, uint, 0444);
MODULE_PARM_DESC(nqp, "number of UD QPs (sharing the CQs)");
static uint dqpns[ULP_MAX_QPS];
static int n_dqpns;
module_param_array(dqpns, uint, &n_dqpns, 0444);
MODULE_PARM_DESC(dqpns, "send: the peer's QP numbers; datagram i goes from local QP i % nqp to dqpns[i % n] (default: dqpn)");
static char *gid = "ipv4";
module_param(gid, charp, 0444);
MODULE_PARM_DESC(gid, "source GID: ipv4 (IPv4-mapped) or ipv6 (first IPv6 one)");
static char *mgid;
module_param(mgid, charp, 0444);
MODULE_PARM_DESC(mgid, "multicast group (IPv4 or IPv6 address): echo attaches to it, send sends to it");
static uint copies = 1;
module_param(copies, uint, 0444);
MODULE_PARM_DESC(copies, "send: echoes expected per datagram (attached QPs of the peer)");

struct ulp_buf {
	void		*data;
	u64		dma;
	struct ib_cqe	cqe;
};

/*
 * One instance, for the device the client picked.  Receive completions run
 * in workqueue context (IB_POLL_WORKQUEUE) and may sleep; send completions
 * run in softirq context and only complete @tx_done.
 */
struct ulp_ctx {
	struct ib_device	*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_qp		*qp;		/* the first of @qps */
	struct ib_qp		*qps[ULP_MAX_QPS];
	int			sgid_index;
	struct ulp_buf		rx[ULP_RX_DEPTH];
	struct ulp_buf		tx;
	struct completion	tx_done;
	enum ib_wc_status	tx_status;
	/*
	 * send mode: each echo completes @echo_done and counts as good if
	 * it came to @want_qp with the @want_len bytes of @tx, else as bad
	 */
	struct completion	echo_done;
	struct ib_qp		*want_qp;
	u32			want_len;
	u32			echo_len;	/* of the last echo */
	u32			echo_good;
	u32			echo_bad;
	bool			sender;
	/* multicast: the group, and the echo mode's AH back to the sender */
	union ib_gid		group;
	bool			attached[ULP_MAX_QPS];
	struct ib_ah		*reply_ah;
	u64			not_group;
	/* held by a receive handler while it uses the QP; guards @stopping */
	struct mutex		lock;
	bool			stopping;
	u64			echoed;
	struct work_struct	send_work;
};

static struct ulp_ctx *ulp;

static int ulp_post_recv(struct ulp_ctx *c, struct ib_qp *qp,
			 struct ulp_buf *b)
{
	struct ib_sge sge = {
		.addr = b->dma,
		.length = ULP_BUF_BYTES,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &b->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(qp, &wr, NULL);
}

static void ulp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;

	c->tx_status = wc->status;
	complete(&c->tx_done);
}

/* Send @len bytes of the tx buffer through @ah and wait for the completion. */
static int ulp_send(struct ulp_ctx *c, struct ib_qp *qp, struct ib_ah *ah,
		    u32 rqpn, u32 len)
{
	struct ib_sge sge = {
		.addr = c->tx.dma,
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &c->tx.cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = len ? &sge : NULL,
			.num_sge = len ? 1 : 0,
		},
		.ah = ah,
		.remote_qpn = rqpn,
		.remote_qkey = qkey,
	};
	int ret;

	reinit_completion(&c->tx_done);
	ib_dma_sync_single_for_device(c->dev, c->tx.dma, len, DMA_TO_DEVICE);
	ret = ib_post_send(qp, &wr.wr, NULL);
	if (ret)
		return ret;
	if (!wait_for_completion_timeout(&c->tx_done, ULP_TIMEOUT))
		return -ETIMEDOUT;
	return c->tx_status == IB_WC_SUCCESS ? 0 : -EIO;
}

/* Was the datagram in @b sent to the multicast group? */
static bool ulp_to_group(struct ulp_ctx *c, const struct ib_wc *wc,
			 const struct ulp_buf *b)
{
	enum rdma_network_type t = RDMA_NETWORK_IPV6;
	union ib_gid sgid, dgid;

	if (!(wc->wc_flags & IB_WC_GRH))
		return false;
	if (wc->wc_flags & IB_WC_WITH_NETWORK_HDR_TYPE)
		t = wc->network_hdr_type;
	if (ib_get_gids_from_rdma_hdr(b->data, t, &sgid, &dgid))
		return false;
	return !memcmp(&dgid, &c->group, sizeof(dgid));
}

/* Echo mode: send the datagram in @b back (the QP's lock is held). */
static void ulp_echo(struct ulp_ctx *c, struct ib_wc *wc, struct ulp_buf *b,
		     u32 len)
{
	struct ib_ah *ah = c->reply_ah;

	if (mgid && !ulp_to_group(c, wc, b)) {
		c->not_group++;
		return;
	}
	if (!ah) {
		ah = ib_create_ah_from_wc(c->pd, wc, b->data, c->port);
		if (IS_ERR(ah)) {
			pr_info("# rdma_ud_ulp: no AH from the completion: %ld\n",
				PTR_ERR(ah));
			return;
		}
	}
	memcpy(c->tx.data, b->data + ULP_GRH_BYTES, len);
	if (!ulp_send(c, wc->qp, ah, wc->src_qp, len))
		c->echoed++;
	if (ah != c->reply_ah)
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
}

static void ulp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ulp_ctx *c = cq->cq_context;
	struct ulp_buf *b = container_of(wc->wr_cqe, struct ulp_buf, cqe);
	u32 len;

	mutex_lock(&c->lock);
	if (wc->status != IB_WC_SUCCESS || c->stopping) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			pr_info("# rdma_ud_ulp: receive status %d\n", wc->status);
		mutex_unlock(&c->lock);
		return;
	}
	ib_dma_sync_single_for_cpu(c->dev, b->dma, ULP_BUF_BYTES,
				   DMA_FROM_DEVICE);
	len = wc->byte_len >= ULP_GRH_BYTES ? wc->byte_len - ULP_GRH_BYTES : 0;

	if (c->sender) {
		/* send mode: check the echo against what was sent */
		c->echo_len = len;
		if (wc->qp == c->want_qp && len == c->want_len &&
		    !memcmp(b->data + ULP_GRH_BYTES, c->tx.data, len))
			c->echo_good++;
		else
			c->echo_bad++;
		complete(&c->echo_done);
	} else {
		ulp_echo(c, wc, b, len);
	}
	if (ulp_post_recv(c, wc->qp, b))
		pr_info("# rdma_ud_ulp: cannot repost a receive\n");
	mutex_unlock(&c->lock);
}

static int ulp_map_buf(struct ulp_ctx *c, struct ulp_buf *b,
		       enum dma_data_direction dir)
{
	b->data = kzalloc(ULP_BUF_BYTES, GFP_KERNEL);
	if (!b->data)
		return -ENOMEM;
	b->dma = ib_dma_map_single(c->dev, b->data, ULP_BUF_BYTES, dir);
	if (ib_dma_mapping_error(c->dev, b->dma)) {
		kfree(b->data);
		b->data = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void ulp_unmap_buf(struct ulp_ctx *c, struct ulp_buf *b,
			  enum dma_data_direction dir)
{
	if (!b->data)
		return;
	ib_dma_unmap_single(c->dev, b->dma, ULP_BUF_BYTES, dir);
	kfree(b->data);
	b->data = NULL;
}

/* The group's GID and its Ethernet multicast address. */
static int ulp_parse_group(union ib_gid *group, u8 *mac)
{
	struct in6_addr *a = (struct in6_addr *)group->raw;
	bool v4;

	if (rdma_ulp_parse_gid(mgid, group, &v4))
		return -EINVAL;
	if (v4) {
		if (!ipv4_is_multicast(a->s6_addr32[3]))
			return -EINVAL;
		if (mac)
			ip_eth_mc_map(a->s6_addr32[3], mac);
		return 0;
	}
	if (!ipv6_addr_is_multicast(a))
		return -EINVAL;
	if (mac)
		ipv6_eth_mc_map(a, mac);
	return 0;
}

/* Send mode: the AH to the peer, or to the group; NULL after a failure. */
static struct ib_ah *ulp_send_ah(struct ulp_ctx *c, int *err)
{
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	u8 mac[ETH_ALEN];
	struct ib_ah *ah;
	int ret;

	ret = mgid ? ulp_parse_group(&dgid, mac) :
		     rdma_ulp_parse_peer(dest, dmac, &dgid, mac);
	if (!ret && c->sgid_index < 0)
		ret = -ENODATA;
	if (ret) {
		*err = ret;
		return NULL;
	}
	rdma_ulp_roce_ah_attr(c->dev, c->port, &dgid, c->sgid_index, mac,
			      &attr);
	/* The atomic path: flags 0, bottom halves off. */
	local_bh_disable();
	ah = rdma_create_ah(c->pd, &attr, 0);
	local_bh_enable();
	*err = PTR_ERR_OR_ZERO(ah);
	return IS_ERR(ah) ? NULL : ah;
}

/*
 * Send the first @len bytes of the tx buffer from @qp and wait for the
 * @copies echoes; -EBADMSG if any of them differs or another came.
 */
static int ulp_send_one(struct ulp_ctx *c, struct ib_qp *qp,
			struct ib_ah *ah, u32 rqpn, u32 len)
{
	unsigned int k;
	int ret;

	mutex_lock(&c->lock);
	reinit_completion(&c->echo_done);
	c->want_qp = qp;
	c->want_len = len;
	c->echo_good = 0;
	c->echo_bad = 0;
	mutex_unlock(&c->lock);
	ret = ulp_send(c, qp, ah, rqpn, len);
	for (k = 0; !ret && k < copies; k++)
		if (!wait_for_completion_timeout(&c->echo_done, ULP_TIMEOUT))
			ret = -ETIMEDOUT;
	mutex_lock(&c->lock);
	if (!ret && (c->echo_good != copies || c->echo_bad))
		ret = -EBADMSG;
	mutex_unlock(&c->lock);
	return ret;
}

static u32 ulp_size_of(unsigned int i)
{
	static const u32 small[] = { 0, 1, 2, 3, 4, 5, 63, 64, 255, 256 };

	if (i < ARRAY_SIZE(small))
		return min_t(u32, small[i], size);
	return size - (i - ARRAY_SIZE(small)) % 4;
}

static void ulp_send_work(struct work_struct *work)
{
	struct ulp_ctx *c = container_of(work, struct ulp_ctx, send_work);
	unsigned int i, j, failed = 0, done = 0;
	struct ib_ah *ah;
	ktime_t t0;
	s64 us;
	u32 len;
	u8 *p;
	int ret;

	pr_info("KTAP version 1\n");
	pr_info("# suite: rdma_ud_ulp send to %s qpn %#x from %s qpn %#x\n",
		mgid ?: dest ?: "?", mgid ? ULP_MCAST_QPN : dqpn,
		dev_name(&c->dev->dev), c->qp->qp_num);
	pr_info("1..%u\n", count + 1 + !!mgid);

	ah = ulp_send_ah(c, &ret);
	if (!ah) {
		pr_info("not ok 1 rdma_create_ah # error %d (sgid index %d)\n",
			ret, c->sgid_index);
		for (i = 0; i < count; i++)
			pr_info("not ok %u echo # SKIP no AH\n", i + 2);
		return;
	}
	pr_info("ok 1 rdma_create_ah (sgid index %d)\n", c->sgid_index);

	t0 = ktime_get();
	for (i = 0; i < count && !READ_ONCE(c->stopping); i++) {
		struct ib_qp *qp = c->qps[i % nqp];
		u32 rq = mgid ? ULP_MCAST_QPN :
			 n_dqpns ? dqpns[i % n_dqpns] : dqpn;

		len = ulp_size_of(i);
		p = c->tx.data;
		for (j = 0; j < len; j++)
			p[j] = (u8)(i * 31 + j);
		ret = ulp_send_one(c, qp, ah, rq, len);
		if (ret) {
			failed++;
			pr_info("not ok %u echo size=%u qpn=%#x # error %d (last echo %u bytes, %u good, %u bad)\n",
				i + 2, len, qp->qp_num, ret, c->echo_len,
				c->echo_good, c->echo_bad);
		} else {
			pr_info("ok %u echo size=%u qpn=%#x%s\n", i + 2, len,
				qp->qp_num, copies > 1 ? " (every copy)" : "");
		}
		done++;
	}
	us = ktime_us_delta(ktime_get(), t0);
	if (mgid && done == count) {
		/* a group member too many would have answered by now */
		msleep(500);
		mutex_lock(&c->lock);
		ret = c->echo_good != copies || c->echo_bad;
		mutex_unlock(&c->lock);
		if (ret)
			failed++;
		pr_info("%sok %u no echo beyond %u per datagram%s\n",
			ret ? "not " : "", count + 2, copies,
			ret ? " # extra echoes" : "");
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (done < count)
		pr_info("# rdma_ud_ulp: stopped after %u of %u datagrams: the device is going away\n",
			done, count);
	pr_info("# rdma_ud_ulp: pass:%u fail:%u\n", done - failed, failed);
	pr_info("# rdma_ud_ulp: %u round trips in %lld us: %lld us per round trip\n",
		done, us, done ? us / done : 0);
}

static void ulp_teardown(struct ulp_ctx *c)
{
	unsigned int i;

	/*
	 * A receive handler still echoing finishes first; later ones stop,
	 * and so does the send loop, after the datagram it is waiting for.
	 */
	mutex_lock(&c->lock);
	WRITE_ONCE(c->stopping, true);
	mutex_unlock(&c->lock);
	cancel_work_sync(&c->send_work);
	for (i = 0; i < ULP_MAX_QPS; i++) {
		if (c->attached[i] && ib_detach_mcast(c->qps[i], &c->group, 0))
			pr_info("# rdma_ud_ulp: cannot detach qpn %#x\n",
				c->qps[i]->qp_num);
		if (c->qps[i])
			ib_destroy_qp(c->qps[i]);
	}
	if (c->reply_ah)
		rdma_destroy_ah(c->reply_ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (c->recv_cq)
		ib_free_cq(c->recv_cq);
	if (c->send_cq)
		ib_free_cq(c->send_cq);
	for (i = 0; i < ULP_RX_DEPTH; i++)
		ulp_unmap_buf(c, &c->rx[i], DMA_FROM_DEVICE);
	ulp_unmap_buf(c, &c->tx, DMA_TO_DEVICE);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	kfree(c);
}

static int ulp_setup_qp(struct ulp_ctx *c, unsigned int n)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.send_cq = c->send_cq,
		.recv_cq = c->recv_cq,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 8,
			.max_recv_wr = ULP_RX_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_qp *qp;

	qp = ib_create_qp(c->pd, &init);
	if (IS_ERR(qp))
		return PTR_ERR(qp);
	c->qps[n] = qp;
	return rdma_ulp_ud_to_rts(qp, c->port, qkey, 0);
}

static int ulp_setup(struct ulp_ctx *c)
{
	unsigned int i;
	int ret;

	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	c->send_cq = ib_alloc_cq(c->dev, c, 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->send_cq)) {
		ret = PTR_ERR(c->send_cq);
		c->send_cq = NULL;
		return ret;
	}
	c->recv_cq = ib_alloc_cq(c->dev, c, ULP_RX_DEPTH, 0, IB_POLL_WORKQUEUE);
	if (IS_ERR(c->recv_cq)) {
		ret = PTR_ERR(c->recv_cq);
		c->recv_cq = NULL;
		return ret;
	}
	for (i = 0; i < nqp; i++) {
		ret = ulp_setup_qp(c, i);
		if (ret)
			return ret;
	}
	c->qp = c->qps[0];
	c->tx.cqe.done = ulp_send_done;
	ret = ulp_map_buf(c, &c->tx, DMA_TO_DEVICE);
	/* The receive buffers are dealt out to the QPs in turn. */
	for (i = 0; !ret && i < ULP_RX_DEPTH; i++) {
		c->rx[i].cqe.done = ulp_recv_done;
		ret = ulp_map_buf(c, &c->rx[i], DMA_FROM_DEVICE);
		if (!ret)
			ret = ulp_post_recv(c, c->qps[i % nqp], &c->rx[i]);
	}
	return ret;
}

/* Echo mode, multicast: attach every QP, make the AH back to the sender. */
static int ulp_setup_group(struct ulp_ctx *c)
{
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	u8 mac[ETH_ALEN];
	unsigned int i;
	int ret;

	ret = ulp_parse_group(&c->group, NULL);
	if (ret)
		return ret;
	for (i = 0; i < nqp; i++) {
		ret = ib_attach_mcast(c->qps[i], &c->group, 0);
		if (ret)
			return ret;
		c->attached[i] = true;
	}
	ret = rdma_ulp_parse_peer(dest, dmac, &dgid, mac);
	if (!ret && c->sgid_index < 0)
		ret = -ENODATA;
	if (ret)
		return ret;
	rdma_ulp_roce_ah_attr(c->dev, c->port, &dgid, c->sgid_index, mac,
			      &attr);
	c->reply_ah = rdma_create_ah(c->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(c->reply_ah)) {
		ret = PTR_ERR(c->reply_ah);
		c->reply_ah = NULL;
		return ret;
	}
	pr_info("# rdma_ud_ulp: %u QPs attached to %s\n", nqp, mgid);
	return 0;
}

static int ulp_add_one(struct ib_device *dev)
{
	struct ulp_ctx *c;
	unsigned int i, n;
	int ret;

	if (ulp || (ibdev && strcmp(ibdev, dev_name(&dev->dev))))
		return 0;
	if (!rdma_protocol_roce(dev, rdma_start_port(dev)))
		return 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	c->dev = dev;
	c->port = rdma_start_port(dev);
	mutex_init(&c->lock);
	init_completion(&c->tx_done);
	init_completion(&c->echo_done);
	INIT_WORK(&c->send_work, ulp_send_work);
	c->sender = !strcmp(mode, "send");
	ret = ulp_setup(c);
	if (!ret) {
		c->sgid_index = rdma_ulp_find_sgid(c->dev, c->port,
						   !strcmp(gid, "ipv4"));
		if (mgid && !c->sender)
			ret = ulp_setup_group(c);
	}
	if (ret) {
		pr_info("# rdma_ud_ulp: set-up on %s failed: %d\n",
			dev_name(&dev->dev), ret);
		ulp_teardown(c);
		return ret;
	}
	qpn = c->qp->qp_num;
	for (i = 0, n = 0; i < nqp; i++)
		n += scnprintf(qpns + n, sizeof(qpns) - n, "%s%u", i ? "," : "",
			       c->qps[i]->qp_num);
	ulp = c;
	pr_info("# rdma_ud_ulp: %s mode on %s port %u, qpn %#x\n", mode,
		dev_name(&dev->dev), c->port, qpn);
	if (c->sender)
		queue_work(system_unbound_wq, &c->send_work);
	return 0;
}

static void ulp_remove_one(struct ib_device *dev, void *client_data)
{
	struct ulp_ctx *c = ulp;

	if (!c || c->dev != dev)
		return;
	ulp = NULL;
	qpn = 0;
	pr_info("# rdma_ud_ulp: %s: echoed %llu datagrams\n",
		dev_name(&dev->dev), c->echoed);
	if (mgid && !c->sender)
		pr_info("# rdma_ud_ulp: %s: %llu datagrams not sent to the group\n",
			dev_name(&dev->dev), c->not_group);
	ulp_teardown(c);
}

static struct ib_client ulp_client = {
	.name = "rdma_ud_ulp",
	.add = ulp_add_one,
	.remove = ulp_remove_one,
};

static int __init ulp_init(void)
{
	if (strcmp(mode, "echo") && strcmp(mode, "send"))
		return -EINVAL;
	if (size > ULP_MAX_PAYLOAD || !count || !nqp || nqp > ULP_MAX_QPS ||
	    !copies ||
	    (strcmp(gid, "ipv4") && strcmp(gid, "ipv6")))
		return -EINVAL;
	return ib_register_client(&ulp_client);
}

static void __exit ulp_exit(void)
{
	ib_unregister_client(&ulp_client);
}

module_init(ulp_init);
module_exit(ulp_exit);

MODULE_DESCRIPTION("UD datagram echo ULP for RDMA interoperability tests");
MODULE_LICENSE("GPL");
