// SPDX-License-Identifier: GPL-2.0
/*
 * AH churn under UD traffic on a soft-RoCE device: for @seconds, @churners
 * threads create and destroy address handles on @ibdev as fast as they can
 * (sleepable, with bottom halves off, under a spinlock with interrupts off;
 * each keeps a ring of live AHs), while @senders threads each send UD
 * datagrams to an echo peer (@dest, @dmac, @dqpn: rdma_ud_ulp mode=echo)
 * through an AH made just before in one of the same three contexts and
 * destroyed once the echo is back and checked.
 *
 * A deadlock between AH creation and the send path hangs the module's
 * init (the harness times out); otherwise the KTAP report checks that
 * every create succeeded, created == destroyed, every datagram came back
 * intact, and the PD's usecnt is back where it started.
 */
#include <linux/completion.h>
#include <linux/etherdevice.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include "../ulp/rdma_ulp_util.h"
#include "rdma_ah_kt.h"
#include "rdma_ktap.h"

static char *ibdev = "rxe0";
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "the RoCE device (default rxe0)");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "the echo peer's IPv4 address");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "the echo peer's MAC address");
static uint dqpn;
module_param(dqpn, uint, 0444);
MODULE_PARM_DESC(dqpn, "the echo peer's UD QP number");
static uint qkey = 0x11111111;
module_param(qkey, uint, 0444);
MODULE_PARM_DESC(qkey, "Q_Key of both ends");
static uint seconds = 8;
module_param(seconds, uint, 0444);
MODULE_PARM_DESC(seconds, "how long the threads run");
static uint churners = 3;
module_param(churners, uint, 0444);
MODULE_PARM_DESC(churners, "threads that only create and destroy AHs");
static uint senders = 2;
module_param(senders, uint, 0444);
MODULE_PARM_DESC(senders, "threads that send a datagram through each new AH");

#define ST_MAX_THREADS	8
#define ST_RING		8
#define ST_GRH		40
#define ST_BUF		(ST_GRH + 256)
#define ST_TIMEOUT	(5 * HZ)

/*
 * One thread.  Its counters are written by the thread only and read after
 * kthread_stop() returned.  A sender's completions are signalled from the
 * CQ's softirq poller.
 */
struct st_thread {
	struct task_struct	*task;
	unsigned int		id;
	bool			sender;
	u64			created[RDMA_KT_AH_NR_CTX];
	u64			destroyed;
	u64			create_errors;
	/* sender only */
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	void			*tx, *rx;
	u64			tx_dma, rx_dma;
	struct ib_cqe		tx_cqe, rx_cqe;
	struct completion	tx_done, rx_done;
	enum ib_wc_status	tx_status, rx_status;
	u32			rx_len, rx_src_qp;
	u64			sent, echoed;
	int			error;		/* first datagram error */
	u64			error_at;
};

static struct ib_device *st_dev;
static struct ib_pd *st_pd;
static int st_sgid = -1;
static union ib_gid st_dgid;
static u8 st_dmac[ETH_ALEN];
static struct st_thread st_threads[ST_MAX_THREADS];
static unsigned int st_nthreads;
static int st_usecnt_base;

static void st_attr(struct rdma_ah_attr *attr, u32 salt)
{
	union ib_gid d = st_dgid;

	/* Churned AHs vary the flow label and traffic class. */
	memset(attr, 0, sizeof(*attr));
	attr->type = rdma_ah_find_type(st_dev, 1);
	rdma_ah_set_port_num(attr, 1);
	rdma_ah_set_grh(attr, &d, salt & IB_GRH_FLOWLABEL_MASK, st_sgid, 64,
			salt & 0xfc);
	memcpy(attr->roce.dmac, st_dmac, ETH_ALEN);
}

/* ---- churners ------------------------------------------------------------ */

static int st_churn(void *arg)
{
	struct st_thread *t = arg;
	enum rdma_kt_ah_ctx ring_how[ST_RING];
	struct ib_ah *ring[ST_RING] = {};
	struct rdma_ah_attr attr;
	enum rdma_kt_ah_ctx how;
	unsigned int n, slot;
	struct ib_ah *ah;

	for (n = 0; !kthread_should_stop(); n++) {
		slot = n % ST_RING;
		if (ring[slot]) {
			rdma_kt_ah_destroy_in_ctx(ring[slot], ring_how[slot]);
			ring[slot] = NULL;
			t->destroyed++;
		}
		how = (n + t->id) % RDMA_KT_AH_NR_CTX;
		st_attr(&attr, n * 7 + t->id);
		ah = rdma_kt_ah_in_ctx(st_pd, &attr, how, false, NULL);
		if (IS_ERR(ah)) {
			t->create_errors++;
		} else {
			ring[slot] = ah;
			ring_how[slot] = how;
			t->created[how]++;
		}
		cond_resched();
	}
	for (slot = 0; slot < ST_RING; slot++) {
		if (ring[slot]) {
			rdma_kt_ah_destroy_in_ctx(ring[slot], ring_how[slot]);
			t->destroyed++;
		}
	}
	return 0;
}

/* ---- senders ------------------------------------------------------------- */

static void st_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct st_thread *t = container_of(wc->wr_cqe, struct st_thread,
					   tx_cqe);

	t->tx_status = wc->status;
	complete(&t->tx_done);
}

static void st_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct st_thread *t = container_of(wc->wr_cqe, struct st_thread,
					   rx_cqe);

	t->rx_status = wc->status;
	t->rx_len = wc->byte_len;
	t->rx_src_qp = wc->src_qp;
	complete(&t->rx_done);
}

static int st_post_recv(struct st_thread *t)
{
	struct ib_sge sge = {
		.addr = t->rx_dma,
		.length = ST_BUF,
		.lkey = st_pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &t->rx_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(t->qp, &wr, NULL);
}

/* Send @len bytes through @ah; wait for the completion and the echo. */
static int st_round_trip(struct st_thread *t, struct ib_ah *ah, u32 len)
{
	struct ib_sge sge = {
		.addr = t->tx_dma,
		.length = len,
		.lkey = st_pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &t->tx_cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.ah = ah,
		.remote_qpn = dqpn,
		.remote_qkey = qkey,
	};
	int ret;

	reinit_completion(&t->tx_done);
	reinit_completion(&t->rx_done);
	ret = st_post_recv(t);
	if (ret)
		return ret;
	ib_dma_sync_single_for_device(st_dev, t->tx_dma, len, DMA_TO_DEVICE);
	ret = ib_post_send(t->qp, &wr.wr, NULL);
	if (ret)
		return ret;
	t->sent++;
	if (!wait_for_completion_timeout(&t->tx_done, ST_TIMEOUT))
		return -ETIMEDOUT;
	if (t->tx_status != IB_WC_SUCCESS)
		return -EIO;
	if (!wait_for_completion_timeout(&t->rx_done, ST_TIMEOUT))
		return -ETIME;
	if (t->rx_status != IB_WC_SUCCESS)
		return -EREMOTEIO;
	ib_dma_sync_single_for_cpu(st_dev, t->rx_dma, ST_BUF, DMA_FROM_DEVICE);
	if (t->rx_len != ST_GRH + len || t->rx_src_qp != dqpn ||
	    memcmp((u8 *)t->rx + ST_GRH, t->tx, len))
		return -EBADMSG;
	t->echoed++;
	return 0;
}

static int st_send(void *arg)
{
	struct st_thread *t = arg;
	struct rdma_ah_attr attr;
	enum rdma_kt_ah_ctx how;
	unsigned int n, i;
	struct ib_ah *ah;
	u32 len;
	u8 *p;
	int ret;

	st_attr(&attr, 0);
	for (n = 0; !kthread_should_stop() && !t->error; n++) {
		how = n % RDMA_KT_AH_NR_CTX;
		ah = rdma_kt_ah_in_ctx(st_pd, &attr, how, false, NULL);
		if (IS_ERR(ah)) {
			t->create_errors++;
			usleep_range(1000, 2000);
			continue;
		}
		t->created[how]++;
		len = 1 + (n * 37 + t->id) % (ST_BUF - ST_GRH);
		p = t->tx;
		for (i = 0; i < len; i++)
			p[i] = (u8)(n + i * 13 + t->id);
		ret = st_round_trip(t, ah, len);
		if (ret) {
			t->error = ret;
			t->error_at = n;
		}
		rdma_kt_ah_destroy_in_ctx(ah, how);
		t->destroyed++;
	}
	/* After a failure, idle until stopped. */
	while (!kthread_should_stop())
		msleep(20);
	return 0;
}

static int st_sender_setup(struct st_thread *t)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_UD,
		.sq_sig_type = IB_SIGNAL_ALL_WR,
		.cap = {
			.max_send_wr = 4,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	int ret;

	init_completion(&t->tx_done);
	init_completion(&t->rx_done);
	t->tx_cqe.done = st_tx_done;
	t->rx_cqe.done = st_rx_done;
	t->tx = kzalloc(ST_BUF, GFP_KERNEL);
	t->rx = kzalloc(ST_BUF, GFP_KERNEL);
	if (!t->tx || !t->rx)
		return -ENOMEM;
	t->tx_dma = ib_dma_map_single(st_dev, t->tx, ST_BUF, DMA_TO_DEVICE);
	t->rx_dma = ib_dma_map_single(st_dev, t->rx, ST_BUF, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(st_dev, t->tx_dma) ||
	    ib_dma_mapping_error(st_dev, t->rx_dma))
		return -ENOMEM;
	t->cq = ib_alloc_cq(st_dev, t, 8, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(t->cq)) {
		ret = PTR_ERR(t->cq);
		t->cq = NULL;
		return ret;
	}
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	t->qp = ib_create_qp(st_pd, &init);
	if (IS_ERR(t->qp)) {
		ret = PTR_ERR(t->qp);
		t->qp = NULL;
		return ret;
	}
	return rdma_ulp_ud_to_rts(t->qp, 1, qkey, 0);
}

static void st_sender_teardown(struct st_thread *t)
{
	if (t->qp)
		ib_destroy_qp(t->qp);
	if (t->cq)
		ib_free_cq(t->cq);
	if (t->tx) {
		ib_dma_unmap_single(st_dev, t->tx_dma, ST_BUF, DMA_TO_DEVICE);
		kfree(t->tx);
	}
	if (t->rx) {
		ib_dma_unmap_single(st_dev, t->rx_dma, ST_BUF, DMA_FROM_DEVICE);
		kfree(t->rx);
	}
	t->qp = NULL;
	t->cq = NULL;
	t->tx = NULL;
	t->rx = NULL;
}

/* ---- the run ------------------------------------------------------------- */

/* The port's IPv4-mapped RoCE v2 GID, or -1. */
static int st_pick_sgid(void)
{
	const struct ib_gid_attr *attr;
	int i, found = -1;

	for (i = 0; found < 0; i++) {
		attr = rdma_get_gid_attr(st_dev, 1, i);
		if (IS_ERR(attr)) {
			if (PTR_ERR(attr) == -EINVAL)
				break;
			continue;
		}
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw))
			found = i;
		rdma_put_gid_attr(attr);
	}
	return found;
}

static void st_run(struct rdma_ktap_ctx *ctx)
{
	struct st_thread *t;
	unsigned int i;
	int ret;

	st_usecnt_base = atomic_read(&st_pd->usecnt);
	for (i = 0; i < st_nthreads; i++) {
		t = &st_threads[i];
		t->task = kthread_run(t->sender ? st_send : st_churn, t,
				      "st_ah_%s%u", t->sender ? "tx" : "churn",
				      i);
		if (IS_ERR(t->task)) {
			RDMA_KT_EXPECT(ctx, false, "thread %u: %ld", i,
				       PTR_ERR(t->task));
			t->task = NULL;
		}
	}
	msleep(seconds * 1000);
	/* A deadlocked thread never stops: init hangs, the harness times out. */
	for (i = 0; i < st_nthreads; i++) {
		t = &st_threads[i];
		if (t->task) {
			ret = kthread_stop(t->task);
			RDMA_KT_EQ(ctx, ret, 0);
		}
	}
}

static void st_ahs_balanced(struct rdma_ktap_ctx *ctx)
{
	u64 created[RDMA_KT_AH_NR_CTX] = {}, total = 0, destroyed = 0, errs = 0;
	unsigned int i, c;

	for (i = 0; i < st_nthreads; i++) {
		for (c = 0; c < RDMA_KT_AH_NR_CTX; c++)
			created[c] += st_threads[i].created[c];
		destroyed += st_threads[i].destroyed;
		errs += st_threads[i].create_errors;
	}
	for (c = 0; c < RDMA_KT_AH_NR_CTX; c++) {
		total += created[c];
		RDMA_KT_EXPECT(ctx, created[c] > 0, "no AH created %s",
			       rdma_kt_ah_ctx_name(c));
	}
	pr_info("# rdma_rxe_ah_stress: %u churners + %u senders, %u s: AHs created %llu (sleepable %llu, bh-off %llu, irqsave %llu), destroyed %llu, create errors %llu\n",
		churners, senders, seconds, total, created[RDMA_KT_AH_SLEEPABLE],
		created[RDMA_KT_AH_BH], created[RDMA_KT_AH_IRQSAVE], destroyed,
		errs);
	RDMA_KT_EQ(ctx, errs, 0);
	RDMA_KT_EQ(ctx, destroyed, total);
}

static void st_datagrams_echoed(struct rdma_ktap_ctx *ctx)
{
	u64 sent = 0, echoed = 0;
	unsigned int i;

	for (i = 0; i < st_nthreads; i++) {
		struct st_thread *t = &st_threads[i];

		if (!t->sender)
			continue;
		sent += t->sent;
		echoed += t->echoed;
		RDMA_KT_EXPECT(ctx, !t->error,
			       "sender %u: datagram %llu failed: %d", i,
			       t->error_at, t->error);
		RDMA_KT_EXPECT(ctx, t->sent > 0, "sender %u sent nothing", i);
	}
	pr_info("# rdma_rxe_ah_stress: datagrams sent %llu echoed %llu\n",
		sent, echoed);
	RDMA_KT_EQ(ctx, echoed, sent);
}

static void st_pd_usecnt_restored(struct rdma_ktap_ctx *ctx)
{
	unsigned int i;

	RDMA_KT_EQ(ctx, atomic_read(&st_pd->usecnt), st_usecnt_base);
	for (i = 0; i < st_nthreads; i++)
		st_sender_teardown(&st_threads[i]);
	RDMA_KT_EQ(ctx, atomic_read(&st_pd->usecnt), 0);
}

static const struct rdma_ktap_case st_cases[] = {
	{ "churn_under_ud_traffic", st_run },
	{ "ahs_created_equal_destroyed", st_ahs_balanced },
	{ "datagrams_echoed_intact", st_datagrams_echoed },
	{ "pd_usecnt_restored", st_pd_usecnt_restored },
};

static void st_fini(void)
{
	unsigned int i;

	for (i = 0; i < st_nthreads; i++)
		st_sender_teardown(&st_threads[i]);
	if (st_pd)
		ib_dealloc_pd(st_pd);
	st_pd = NULL;
	if (st_dev)
		ib_device_put(st_dev);
	st_dev = NULL;
}

static int __init st_init(void)
{
	__be32 v4;
	unsigned int i;
	int ret;

	if (!dest || !in4_pton(dest, -1, (u8 *)&v4, -1, NULL) || !dmac ||
	    !mac_pton(dmac, st_dmac) || !dqpn || !seconds ||
	    churners + senders > ST_MAX_THREADS || !senders || !churners)
		return -EINVAL;
	rdma_kt_gid_v4(&st_dgid, v4);
	st_dev = ib_device_get_by_name(ibdev, RDMA_DRIVER_UNKNOWN);
	if (!st_dev)
		return -ENODEV;
	st_pd = ib_alloc_pd(st_dev, 0);
	if (IS_ERR(st_pd)) {
		ret = PTR_ERR(st_pd);
		st_pd = NULL;
		goto err;
	}
	ret = -ENODATA;
	st_sgid = st_pick_sgid();
	if (st_sgid < 0)
		goto err;
	st_nthreads = churners + senders;
	for (i = 0; i < st_nthreads; i++) {
		st_threads[i].id = i;
		st_threads[i].sender = i >= churners;
		if (st_threads[i].sender) {
			ret = st_sender_setup(&st_threads[i]);
			if (ret)
				goto err;
		}
	}
	rdma_ktap_run("rdma_rxe_ah_stress", st_cases, ARRAY_SIZE(st_cases));
	return 0;
err:
	pr_err("rdma_rxe_ah_stress: set-up on %s failed: %d\n", ibdev, ret);
	st_fini();
	return ret;
}

static void __exit st_exit(void)
{
	st_fini();
}

module_init(st_init);
module_exit(st_exit);

MODULE_DESCRIPTION("AH create/destroy churn under UD traffic on a soft-RoCE device");
MODULE_LICENSE("GPL");
