// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel peer of rdma-core's rping and udaddy on the rdma_cm kernel API:
 * connections are made by address (IPv4 or IPv6) through rdma_cm, which
 * resolves the route, runs the IB CM on the wire and moves the QPs.
 * Upstream API only, so the same source builds against this tree and
 * against the stock kernel.
 *
 * mode=client    @conns times, one after the other: connect to @dest
 *                (port @port, RC, port space TCP) and run @count rping
 *                iterations as rping's client does: SEND the address,
 *                rkey and length of a buffer holding "rdma-ping-<n>: "
 *                and a rolling pattern, wait for the server's "go ahead"
 *                SEND (after its RDMA READ), SEND those of an empty
 *                buffer, wait for the next "go ahead" (after its RDMA
 *                WRITE) and check that the buffer now holds the pattern.
 *                Then disconnect and wait for the DREP.
 * mode=server    listen on @src (default: every address of both
 *                families), port @port; accept each request (QP on the
 *                new ID, a receive posted, rdma_accept) and do rping's
 *                server half: RDMA READ the client's buffer (checked
 *                against the rping pattern), SEND "go ahead", RDMA WRITE
 *                the data back, SEND "go ahead", until the client
 *                disconnects.  Serves @conns connections or @wait seconds.
 *                reject=1 refuses every request instead (REJ "consumer
 *                defined" with RP_REJECT_DATA as private data).
 * mode=udclient  udaddy's client: UD through SIDR (port space UDP): the AH
 *                comes with ESTABLISHED; SEND_WITH_IMM @count datagrams
 *                of @size bytes (immediate: our QPN), then wait for
 *                @count replies from the server's QP.
 * mode=udserver  udaddy's server: accept the SIDR request, wait for
 *                @count datagrams, answer each through an AH made from
 *                the first one's completion to the QPN in its immediate.
 *
 * The clients' expect= says how the attempt must end: connect, reject
 * (RC: REJECTED with status 28 and the server's private data; UD: SIDR
 * status 2), noservice (RC: REJECTED, status 8; UD: UNREACHABLE with SIDR
 * status 1) or unreachable (UNREACHABLE).  On iWARP (RC only) both
 * refusals are REJECTED with -ECONNREFUSED: reject with the server's
 * private data (an MPA reply with R set), noservice with none (a TCP
 * reset).  @rej_status, when not 0, is the status a reject must come
 * with instead; rdma_consumer_reject_data() gives the private data only
 * for the transport's own consumer reject status (28, -ECONNREFUSED),
 * otherwise it is taken from the event.  expect=removal (RC, clients
 * and servers) wants the connection's device to go under it: after at
 * least one iteration DEVICE_REMOVAL comes (DISCONNECTED may come first:
 * siw resets its connections when their netdev goes), the connection's
 * QP, MR, CQ and PD are freed and its ID destroyed last (the device's
 * removal waits for the ID); a server's listener, bound to its device by
 * @src, must get DEVICE_REMOVAL too and is destroyed.  count=0 (RC) runs
 * the iterations until the connection ends, as "rping -C 0" does; a
 * connection that does so says "live" in the kernel log after
 * RP_LIVE_ITERS iterations.
 *
 * Results are printed as KTAP: one line per connection (servers: and one
 * for the listener, and with expect=removal one for its DEVICE_REMOVAL).
 */
#include <linux/inet.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>

#define RP_MIN_SIZE	26		/* rping's minimum (RPING_MIN_BUFSIZE) */
#define RP_MAX_SIZE	65535
#define RP_UD_MAX_SIZE	4096
#define RP_UD_MAX_COUNT	1024
#define RP_GRH		40		/* UD receives start with the GRH */
#define RP_RESOLVE_MS	2000		/* as rping and udaddy */
#define RP_IO_SECS	30		/* one completion, one CM step */
#define RP_SQ_DEPTH	16
#define RP_RQ_DEPTH	2
#define RP_LIVE_ITERS	10		/* count=0: then the connection is "live" */
#define RP_REJECT_DATA	"rdma_rping_ulp: connection refused by the test server"

/* Every rping message: where a buffer is, its rkey and length. */
struct rp_msg {
	__be64	addr;
	__be32	rkey;
	__be32	len;
};

static char *mode = "client";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "client, server, udclient or udserver");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "clients: the server's address (IPv6 link-local: fe80::...%ifname)");
static char *src;
module_param(src, charp, 0444);
MODULE_PARM_DESC(src, "clients: source address; servers: address to listen on (default ::, both families)");
static ushort port = 7174;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "port (rping and udaddy: 7174)");
static uint count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "rping iterations (0: until the connection ends), or udaddy datagrams, per connection");
static uint size = 64;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "rping buffer or udaddy datagram size");
static uint conns = 1;
module_param(conns, uint, 0444);
MODULE_PARM_DESC(conns, "connections to make one after the other (clients) or to serve (servers)");
static char *expect = "connect";
module_param(expect, charp, 0444);
MODULE_PARM_DESC(expect, "clients: connect, reject, noservice, unreachable or removal; servers: connect or removal");
static bool reject;
module_param(reject, bool, 0444);
MODULE_PARM_DESC(reject, "servers: refuse every request");
static int rej_status;
module_param(rej_status, int, 0444);
MODULE_PARM_DESC(rej_status, "clients, expect=reject: the REJECTED status wanted (0: 28, on iWARP -ECONNREFUSED)");
static uint wait = 120;
module_param(wait, uint, 0444);
MODULE_PARM_DESC(wait, "seconds a server serves, or a client waits for the CM");

enum rp_mode { RP_CLIENT, RP_SERVER, RP_UDCLIENT, RP_UDSERVER };

/* A UD receive buffer and the completion that filled it. */
struct rp_slot {
	struct ib_cqe		cqe;
	struct rp_conn		*c;
	unsigned int		i;
};

/* One connection: its CM ID, its verbs objects and what happened. */
struct rp_conn {
	struct rdma_cm_id	*id;
	struct ib_device	*dev;
	struct ib_pd		*pd;
	struct ib_cq		*cq;
	struct ib_mr		*mr;
	struct ib_ah		*ah;
	bool			has_qp;
	u8			*buf;
	size_t			buf_len;
	u64			dma;
	bool			mapped;
	struct ib_cqe		recv_cqe;
	struct ib_cqe		send_cqe;
	struct ib_cqe		rdma_cqe;
	struct ib_cqe		reg_cqe;
	struct rp_slot		*slots;		/* UD receives */
	unsigned long		events;		/* BIT(rdma_cm_event_type) seen */
	int			status;		/* of the last event with one */
	int			rej_status;
	u8			rej_data_len;
	bool			rej_data_ok;
	bool			rej_consumer;	/* data from rdma_consumer_reject_data() */
	u32			remote_qpn;
	u32			remote_qkey;
	atomic_t		nrecv;
	atomic_t		nsend;
	atomic_t		nrdma;
	atomic_t		nreg;
	atomic_t		nbad;		/* UD: datagrams not as expected */
	int			wc_err;		/* first failed completion */
	struct rp_msg		msg;		/* RC: the last message received */
	u32			msg_len;
	unsigned int		iters;		/* RC: rping iterations done */
	unsigned long		removed_at;	/* jiffies of DEVICE_REMOVAL */
	bool			closed_first;	/* DISCONNECTED before it */
	struct ib_wc		first_wc;	/* UD server: for the reply AH */
	unsigned int		first_slot;
	unsigned int		idx;		/* server: result slot */
	struct work_struct	work;		/* server: runs the connection */
};

struct rp_result {
	bool	done;
	bool	ok;
	char	text[160];
};

static enum rp_mode rp_mode;
static bool rp_ud;
static bool rp_removal;			/* expect=removal */
static bool rp_stop;
static DECLARE_WAIT_QUEUE_HEAD(rp_waitq);
static struct workqueue_struct *rp_wq;
static struct work_struct rp_main_work;

/* Servers */
static struct rdma_cm_id *rp_listen;
static bool rp_listen_removed;
static struct rp_result *rp_results;
static atomic_t rp_requests;
static atomic_t rp_nrejected;
static atomic_t rp_finished;

static bool rp_seen(struct rp_conn *c, unsigned long mask)
{
	return READ_ONCE(c->events) & mask;
}

#define RP_STOP_MASK	(BIT(RDMA_CM_EVENT_DISCONNECTED) |		\
			 BIT(RDMA_CM_EVENT_DEVICE_REMOVAL) |		\
			 BIT(RDMA_CM_EVENT_REJECTED) |			\
			 BIT(RDMA_CM_EVENT_UNREACHABLE) |		\
			 BIT(RDMA_CM_EVENT_CONNECT_ERROR))

/*
 * Wait for one of the events of @mask: 0, -ETIMEDOUT or -EINTR (rmmod).
 * The waits of @wait seconds may be longer than the hung task detector
 * allows (120 s): they sleep idle, as rp_server()'s.
 */
static int rp_wait_event(struct rp_conn *c, unsigned long mask,
			 unsigned int secs)
{
	wait_event_idle_timeout(rp_waitq,
				rp_seen(c, mask) || READ_ONCE(rp_stop),
				secs * HZ);
	if (rp_seen(c, mask))
		return 0;
	return READ_ONCE(rp_stop) ? -EINTR : -ETIMEDOUT;
}

static bool rp_broken(struct rp_conn *c, unsigned long mask)
{
	return READ_ONCE(c->wc_err) || rp_seen(c, mask) || READ_ONCE(rp_stop);
}

/*
 * Wait until @cnt reaches @want: 0, -EIO (a completion failed),
 * -ECONNRESET (the connection ended), -EINTR or -ETIMEDOUT.  A message
 * from the peer (@peer) will not come once the connection ended; our own
 * work requests complete anyway (the peer may have acknowledged a SEND,
 * acted on it and disconnected before the acknowledgment is seen here).
 */
static int rp_wait(struct rp_conn *c, atomic_t *cnt, int want, bool peer)
{
	unsigned long mask = peer ? RP_STOP_MASK :
			     BIT(RDMA_CM_EVENT_DEVICE_REMOVAL);

	wait_event_timeout(rp_waitq,
			   atomic_read(cnt) >= want || rp_broken(c, mask),
			   RP_IO_SECS * HZ);
	if (atomic_read(cnt) >= want)
		return 0;
	if (READ_ONCE(c->wc_err))
		return -EIO;
	if (rp_seen(c, mask))
		return -ECONNRESET;
	return READ_ONCE(rp_stop) ? -EINTR : -ETIMEDOUT;
}

/* Our own work requests, and messages from the peer. */
static int rp_wait_count(struct rp_conn *c, atomic_t *cnt, int want)
{
	return rp_wait(c, cnt, want, false);
}

static int rp_wait_peer(struct rp_conn *c, atomic_t *cnt, int want)
{
	return rp_wait(c, cnt, want, true);
}

/* ---- completions ---------------------------------------------------------- */

static void rp_wc_failed(struct rp_conn *c, struct ib_wc *wc, const char *what)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR &&
	    !cmpxchg(&c->wc_err, 0, wc->status))
		pr_info("# rdma_rping_ulp: %s completion failed: %s (%d)\n",
			what, ib_wc_status_msg(wc->status), wc->status);
	wake_up_all(&rp_waitq);
}

static int rp_post_recv(struct rp_conn *c)
{
	struct ib_sge sge = {
		.addr = c->dma,
		.length = sizeof(struct rp_msg),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->id->qp, &wr, NULL);
}

/* RC: keep the message, take the next one in the same buffer. */
static void rp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *c = container_of(wc->wr_cqe, struct rp_conn, recv_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rp_wc_failed(c, wc, "receive");
		return;
	}
	ib_dma_sync_single_for_cpu(c->dev, c->dma, sizeof(struct rp_msg),
				   DMA_BIDIRECTIONAL);
	memcpy(&c->msg, c->buf, sizeof(c->msg));
	c->msg_len = wc->byte_len;
	ib_dma_sync_single_for_device(c->dev, c->dma, sizeof(struct rp_msg),
				      DMA_BIDIRECTIONAL);
	if (rp_post_recv(c) && !cmpxchg(&c->wc_err, 0, -1))
		pr_info("# rdma_rping_ulp: receive not reposted\n");
	atomic_inc(&c->nrecv);
	wake_up_all(&rp_waitq);
}

static void rp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *c = container_of(wc->wr_cqe, struct rp_conn, send_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rp_wc_failed(c, wc, "send");
		return;
	}
	atomic_inc(&c->nsend);
	wake_up_all(&rp_waitq);
}

static void rp_rdma_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *c = container_of(wc->wr_cqe, struct rp_conn, rdma_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rp_wc_failed(c, wc, "RDMA READ/WRITE");
		return;
	}
	atomic_inc(&c->nrdma);
	wake_up_all(&rp_waitq);
}

static void rp_reg_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_conn *c = container_of(wc->wr_cqe, struct rp_conn, reg_cqe);

	if (wc->status != IB_WC_SUCCESS) {
		rp_wc_failed(c, wc, "REG_MR");
		return;
	}
	atomic_inc(&c->nreg);
	wake_up_all(&rp_waitq);
}

/*
 * UD: a datagram of @size bytes after the GRH, with the sender's QPN as
 * immediate data (udaddy's rule); the client also knows that QPN from the
 * SIDR reply.
 */
static void rp_ud_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct rp_slot *s = container_of(wc->wr_cqe, struct rp_slot, cqe);
	struct rp_conn *c = s->c;
	bool good;

	if (wc->status != IB_WC_SUCCESS) {
		rp_wc_failed(c, wc, "UD receive");
		return;
	}
	good = wc->byte_len == size + RP_GRH && (wc->wc_flags & IB_WC_WITH_IMM) &&
	       be32_to_cpu(wc->ex.imm_data) == wc->src_qp &&
	       (rp_mode == RP_UDSERVER || wc->src_qp == c->remote_qpn);
	if (!good && atomic_inc_return(&c->nbad) == 1)
		pr_info("# rdma_rping_ulp: datagram of %u bytes from QP %#x, immediate %#x, flags %#x\n",
			wc->byte_len, wc->src_qp,
			(wc->wc_flags & IB_WC_WITH_IMM) ?
			be32_to_cpu(wc->ex.imm_data) : 0, wc->wc_flags);
	if (atomic_read(&c->nrecv) == 0) {
		c->first_wc = *wc;
		c->first_slot = s->i;
	}
	atomic_inc(&c->nrecv);
	wake_up_all(&rp_waitq);
}

/* ---- connection set-up and teardown ----------------------------------------- */

static struct rp_conn *rp_conn_alloc(void)
{
	struct rp_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	c->recv_cqe.done = rp_recv_done;
	c->send_cqe.done = rp_send_done;
	c->rdma_cqe.done = rp_rdma_done;
	c->reg_cqe.done = rp_reg_done;
	atomic_set(&c->nrecv, 0);
	atomic_set(&c->nsend, 0);
	atomic_set(&c->nrdma, 0);
	atomic_set(&c->nreg, 0);
	atomic_set(&c->nbad, 0);
	return c;
}

/*
 * Everything of @c; the CM ID too unless @keep_id (a CONNECT_REQUEST
 * handler returning non-zero: rdma_cm destroys it).  The ID goes before
 * the objects its handler may use (the UD client's AH is made there),
 * except once its device is being removed: no event comes after
 * DEVICE_REMOVAL, and the removal, which waits for the ID, must find
 * nothing else of ours on the device when it goes on.
 */
static void rp_conn_free(struct rp_conn *c, bool keep_id)
{
	bool id_last = rp_seen(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL));

	if (c->has_qp) {
		/*
		 * No completion handler may repost to the QP once it is gone.
		 * UD: only receives need it, and ib_drain_sq() would post an
		 * RDMA WRITE, which a UD QP refuses.
		 */
		if (rp_ud)
			ib_drain_rq(c->id->qp);
		else
			ib_drain_qp(c->id->qp);
		rdma_destroy_qp(c->id);
	}
	if (c->id && !keep_id && !id_last)
		rdma_destroy_id(c->id);
	if (c->ah)
		rdma_destroy_ah(c->ah, RDMA_DESTROY_AH_SLEEPABLE);
	if (c->mr)
		ib_dereg_mr(c->mr);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->mapped)
		ib_dma_unmap_single(c->dev, c->dma, c->buf_len,
				    DMA_BIDIRECTIONAL);
	kfree(c->buf);
	if (c->pd)
		ib_dealloc_pd(c->pd);
	if (c->id && !keep_id && id_last)
		rdma_destroy_id(c->id);
	kfree(c->slots);
	kfree(c);
}

/*
 * Buffers of a connection, mapped as one: RC, the receive and the send
 * message, then the client's start_buf and rdma_buf (the server's one
 * buffer); UD, @count receive slots of GRH + @size, then the send buffer.
 */
static size_t rp_rc_buf_off(unsigned int n)
{
	return 2 * sizeof(struct rp_msg) + n * size;
}

static size_t rp_ud_slot_off(unsigned int i)
{
	return (size_t)i * (size + RP_GRH);
}

/* PD, CQ, buffers and the QP (made by rdma_cm) on @c->id. */
static int rp_conn_setup(struct rp_conn *c)
{
	struct ib_qp_init_attr init = {
		.cap = {
			.max_send_wr = RP_SQ_DEPTH,
			.max_recv_wr = RP_RQ_DEPTH,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = rp_ud ? IB_QPT_UD : IB_QPT_RC,
	};
	unsigned int i;
	int ret;

	c->dev = c->id->device;
	c->pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(c->pd)) {
		ret = PTR_ERR(c->pd);
		c->pd = NULL;
		return ret;
	}
	if (rp_ud) {
		/* One more of each for ib_drain_qp(). */
		init.cap.max_send_wr = count + 1;
		init.cap.max_recv_wr = count + 1;
		c->buf_len = rp_ud_slot_off(count) + size;
		c->slots = kcalloc(count, sizeof(*c->slots), GFP_KERNEL);
		if (!c->slots)
			return -ENOMEM;
		for (i = 0; i < count; i++) {
			c->slots[i].cqe.done = rp_ud_recv_done;
			c->slots[i].c = c;
			c->slots[i].i = i;
		}
	} else {
		c->buf_len = rp_rc_buf_off(2);
	}
	c->buf = kzalloc(c->buf_len, GFP_KERNEL);
	if (!c->buf)
		return -ENOMEM;
	c->dma = ib_dma_map_single(c->dev, c->buf, c->buf_len,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(c->dev, c->dma))
		return -ENOMEM;
	c->mapped = true;
	c->cq = ib_alloc_cq(c->dev, c, init.cap.max_send_wr +
			    init.cap.max_recv_wr, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		ret = PTR_ERR(c->cq);
		c->cq = NULL;
		return ret;
	}
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	ret = rdma_create_qp(c->id, c->pd, &init);
	if (ret)
		return ret;
	c->has_qp = true;
	return 0;
}

/* The rping client's remote buffers: one MR, registered once connected. */
static int rp_client_mr(struct rp_conn *c)
{
	size_t off = rp_rc_buf_off(0), len = 2 * size;
	struct scatterlist sg;
	struct ib_reg_wr wr = {
		.wr = {
			.opcode = IB_WR_REG_MR,
			.wr_cqe = &c->reg_cqe,
			.send_flags = IB_SEND_SIGNALED,
		},
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_READ |
			  IB_ACCESS_REMOTE_WRITE,
	};
	int ret, pages;

	pages = DIV_ROUND_UP(offset_in_page(c->buf + off) + len, PAGE_SIZE);
	c->mr = ib_alloc_mr(c->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(c->mr)) {
		ret = PTR_ERR(c->mr);
		c->mr = NULL;
		return ret;
	}
	sg_init_table(&sg, 1);
	sg_set_buf(&sg, c->buf + off, len);
	sg_dma_address(&sg) = c->dma + off;
	sg_dma_len(&sg) = len;
	ret = ib_map_mr_sg(c->mr, &sg, 1, NULL, PAGE_SIZE);
	if (ret != 1)
		return ret < 0 ? ret : -EINVAL;
	wr.mr = c->mr;
	wr.key = c->mr->rkey;
	ret = ib_post_send(c->id->qp, &wr.wr, NULL);
	return ret ?: rp_wait_count(c, &c->nreg, 1);
}

static int rp_post_msg(struct rp_conn *c, u64 addr, u32 rkey, u32 len)
{
	struct rp_msg *m = (struct rp_msg *)(c->buf + sizeof(struct rp_msg));
	struct ib_sge sge = {
		.addr = c->dma + sizeof(struct rp_msg),
		.length = sizeof(*m),
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	m->addr = cpu_to_be64(addr);
	m->rkey = cpu_to_be32(rkey);
	m->len = cpu_to_be32(len);
	ib_dma_sync_single_for_device(c->dev, sge.addr, sge.length,
				      DMA_BIDIRECTIONAL);
	return ib_post_send(c->id->qp, &wr, NULL);
}

static int rp_post_rdma(struct rp_conn *c, enum ib_wr_opcode op, u32 len,
			u64 remote_addr, u32 rkey)
{
	struct ib_sge sge = {
		.addr = c->dma + rp_rc_buf_off(0),
		.length = len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &c->rdma_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = op,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = remote_addr,
		.rkey = rkey,
	};

	return ib_post_send(c->id->qp, &wr.wr, NULL);
}

/*
 * rping's ping @n of @len bytes: "rdma-ping-<n>: ", then the letters from
 * 'A' + n % 58 on, wrapping after 'z' to 'A', then a NUL.
 */
static void rp_pattern(u8 *buf, size_t len, unsigned int n)
{
	size_t i = scnprintf(buf, len, "rdma-ping-%u: ", n);
	u8 ch = 'A' + n % ('z' - 'A' + 1);

	for (; i < len; i++) {
		buf[i] = ch;
		ch = ch == 'z' ? 'A' : ch + 1;
	}
	buf[len - 1] = 0;
}

static int rp_post_ud_recvs(struct rp_conn *c)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < count && !ret; i++) {
		struct ib_sge sge = {
			.addr = c->dma + rp_ud_slot_off(i),
			.length = size + RP_GRH,
			.lkey = c->pd->local_dma_lkey,
		};
		struct ib_recv_wr wr = {
			.wr_cqe = &c->slots[i].cqe,
			.sg_list = &sge,
			.num_sge = 1,
		};

		ret = ib_post_recv(c->id->qp, &wr, NULL);
	}
	return ret;
}

/* ---- CM events -------------------------------------------------------------- */

/* UD: the SIDR reply's address, QPN and Q_Key; the AH is made here. */
static void rp_ud_established(struct rp_conn *c, struct rdma_cm_event *ev)
{
	struct ib_ah *ah;

	c->remote_qpn = ev->param.ud.qp_num;
	c->remote_qkey = ev->param.ud.qkey;
	ah = rdma_create_ah(c->pd, &ev->param.ud.ah_attr,
			    RDMA_CREATE_AH_SLEEPABLE);
	if (IS_ERR(ah)) {
		pr_info("# rdma_rping_ulp: no AH from the SIDR reply: %ld\n",
			PTR_ERR(ah));
		return;
	}
	c->ah = ah;
}

static void rp_rejected(struct rp_conn *c, struct rdma_cm_event *ev)
{
	const void *data;
	u8 len = 0;

	c->rej_status = ev->status;
	data = rdma_consumer_reject_data(c->id, ev, &len);
	c->rej_consumer = data;
	if (!data) {
		data = ev->param.conn.private_data;
		len = data ? ev->param.conn.private_data_len : 0;
	}
	c->rej_data_len = len;
	c->rej_data_ok = data && len >= sizeof(RP_REJECT_DATA) &&
			 !memcmp(data, RP_REJECT_DATA, sizeof(RP_REJECT_DATA));
}

/* Events of a connection's ID: noted for the thread that runs it. */
static int rp_conn_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rp_conn *c = id->context;

	if (ev->event == RDMA_CM_EVENT_ESTABLISHED && id->qp_type == IB_QPT_UD)
		rp_ud_established(c, ev);
	else if (ev->event == RDMA_CM_EVENT_REJECTED)
		rp_rejected(c, ev);
	if (ev->status)
		c->status = ev->status;
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		/*
		 * The thread that runs the connection frees everything, the
		 * ID last; the removal waits for that.
		 */
		WRITE_ONCE(c->removed_at, jiffies);
		c->closed_first = rp_seen(c, BIT(RDMA_CM_EVENT_DISCONNECTED));
		/* The time before the bit the connection's thread waits for. */
		smp_mb__before_atomic();
	}
	if (ev->event < BITS_PER_LONG)
		set_bit(ev->event, &c->events);
	wake_up_all(&rp_waitq);
	return 0;
}

/* count=0: say once that the connection runs, for the test to act on it. */
static void rp_iter_done(struct rp_conn *c, unsigned int n)
{
	c->iters = n;
	if (!count && n == RP_LIVE_ITERS)
		pr_info("# rdma_rping_ulp: connection %u live: %u rping iterations\n",
			c->idx + 1, n);
}

/*
 * expect=removal: NULL when the connection ended by DEVICE_REMOVAL.  @why
 * is how its iterations ended: kept when that was not the removal (bad
 * data, say).  A provider may end the connection first: siw resets its
 * connections when their netdev goes (DISCONNECTED), then the device
 * goes.  The ID is still ours, so its DEVICE_REMOVAL is waited for.
 */
static const char *rp_check_removal(struct rp_conn *c, const char *why)
{
	if (rp_seen(c, BIT(RDMA_CM_EVENT_DISCONNECTED)))
		rp_wait_event(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL),
			      2 * RP_IO_SECS);
	if (!rp_seen(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL)))
		return why ?: "no DEVICE_REMOVAL";
	if (!c->iters)
		return "DEVICE_REMOVAL before the first iteration";
	return NULL;
}

/* ---- server ----------------------------------------------------------------- */

static __printf(3, 4) void rp_result(unsigned int idx, bool ok,
				      const char *fmt, ...)
{
	struct rp_result *r = &rp_results[idx];
	va_list ap;

	va_start(ap, fmt);
	vscnprintf(r->text, sizeof(r->text), fmt, ap);
	va_end(ap);
	r->ok = ok;
	/* The text and verdict before the flag rp_server() reads first. */
	smp_store_release(&r->done, true);
	atomic_inc(&rp_finished);
	wake_up_all(&rp_waitq);
}

/* rping's server half, iteration after iteration, until DISCONNECTED. */
static const char *rp_serve_rc(struct rp_conn *c, unsigned int *iters)
{
	u8 *data = c->buf + rp_rc_buf_off(0);
	u8 *want = NULL;
	unsigned int n;
	const char *why = NULL;
	u32 len, wlen;
	int ret;

	want = kmalloc(size, GFP_KERNEL);
	if (!want)
		return "no memory";
	for (n = 0; ; n++) {
		ret = rp_wait_peer(c, &c->nrecv, 2 * n + 1);
		if (ret == -ECONNRESET &&
		    rp_seen(c, BIT(RDMA_CM_EVENT_DISCONNECTED)))
			break;		/* the client is done */
		if (ret) {
			why = "no source buffer message";
			break;
		}
		len = be32_to_cpu(c->msg.len);
		if (c->msg_len != sizeof(struct rp_msg) || len < RP_MIN_SIZE ||
		    len > size) {
			pr_info("# rdma_rping_ulp: message of %u bytes, length %u\n",
				c->msg_len, len);
			why = "bad source buffer message";
			break;
		}
		ret = rp_post_rdma(c, IB_WR_RDMA_READ, len,
				   be64_to_cpu(c->msg.addr),
				   be32_to_cpu(c->msg.rkey)) ?:
		      rp_wait_count(c, &c->nrdma, 2 * n + 1);
		if (ret) {
			why = "RDMA READ failed";
			break;
		}
		ib_dma_sync_single_for_cpu(c->dev, c->dma + rp_rc_buf_off(0),
					   len, DMA_BIDIRECTIONAL);
		rp_pattern(want, len, n);
		if (memcmp(data, want, len)) {
			pr_info("# rdma_rping_ulp: ping %u read \"%.*s\"\n", n,
				(int)min_t(u32, len, 64), data);
			why = "the data read is not rping's pattern";
			break;
		}
		ret = rp_post_msg(c, c->dma, 0, size) ?:
		      rp_wait_count(c, &c->nsend, 2 * n + 1) ?:
		      rp_wait_peer(c, &c->nrecv, 2 * n + 2);
		if (ret) {
			why = "no sink buffer message";
			break;
		}
		len = be32_to_cpu(c->msg.len);
		wlen = strnlen(data, len) + 1;
		if (c->msg_len != sizeof(struct rp_msg) || wlen > len) {
			why = "bad sink buffer message";
			break;
		}
		ret = rp_post_rdma(c, IB_WR_RDMA_WRITE, wlen,
				   be64_to_cpu(c->msg.addr),
				   be32_to_cpu(c->msg.rkey)) ?:
		      rp_wait_count(c, &c->nrdma, 2 * n + 2) ?:
		      rp_post_msg(c, c->dma, 0, size) ?:
		      rp_wait_count(c, &c->nsend, 2 * n + 2);
		if (ret) {
			why = "RDMA WRITE or its go-ahead failed";
			break;
		}
		rp_iter_done(c, n + 1);
	}
	kfree(want);
	*iters = n;
	if (why && !rp_seen(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL)))
		pr_info("# rdma_rping_ulp: connection %u, ping %u: %s (%d)\n",
			c->idx + 1, n, why, ret);
	return why;
}

/* udaddy's server: @count datagrams in, as many replies out. */
static const char *rp_serve_ud(struct rp_conn *c)
{
	struct ib_grh *grh;
	unsigned int i;
	int ret;

	if (rp_wait_peer(c, &c->nrecv, count))
		return "not all datagrams came";
	if (atomic_read(&c->nbad))
		return "datagrams not as udaddy sends them";
	grh = (struct ib_grh *)(c->buf + rp_ud_slot_off(c->first_slot));
	ib_dma_sync_single_for_cpu(c->dev, c->dma, rp_ud_slot_off(count),
				   DMA_BIDIRECTIONAL);
	c->ah = ib_create_ah_from_wc(c->pd, &c->first_wc, grh,
				     c->id->port_num);
	if (IS_ERR(c->ah)) {
		pr_info("# rdma_rping_ulp: no AH from the completion: %ld\n",
			PTR_ERR(c->ah));
		c->ah = NULL;
		return "no reply AH";
	}
	c->remote_qpn = be32_to_cpu(c->first_wc.ex.imm_data);
	c->remote_qkey = RDMA_UDP_QKEY;
	for (i = 0; i < count; i++) {
		struct ib_sge sge = {
			.addr = c->dma + rp_ud_slot_off(i) + RP_GRH,
			.length = size,
			.lkey = c->pd->local_dma_lkey,
		};
		struct ib_ud_wr wr = {
			.wr = {
				.wr_cqe = &c->send_cqe,
				.sg_list = &sge,
				.num_sge = 1,
				.opcode = IB_WR_SEND_WITH_IMM,
				.send_flags = IB_SEND_SIGNALED,
				.ex.imm_data = cpu_to_be32(c->id->qp->qp_num),
			},
			.ah = c->ah,
			.remote_qpn = c->remote_qpn,
			.remote_qkey = c->remote_qkey,
		};

		ret = ib_post_send(c->id->qp, &wr.wr, NULL);
		if (ret) {
			pr_info("# rdma_rping_ulp: reply %u not posted: %d\n",
				i, ret);
			return "replies not sent";
		}
	}
	if (rp_wait_count(c, &c->nsend, count))
		return "replies did not complete";
	return NULL;
}

static void rp_conn_work(struct work_struct *work)
{
	struct rp_conn *c = container_of(work, struct rp_conn, work);
	struct sockaddr *peer = (struct sockaddr *)&c->id->route.addr.dst_addr;
	unsigned int idx = c->idx, iters = 0;
	unsigned long start = jiffies, removed_at;
	bool closed_first;
	const char *why;
	char who[64];

	snprintf(who, sizeof(who), "%pISc", peer);
	if (rp_ud) {
		why = rp_serve_ud(c);
	} else {
		why = rp_serve_rc(c, &iters);
		if (rp_removal)
			why = rp_check_removal(c, why);
		else if (!why && count && iters != count)
			why = "not as many iterations as asked for";
		if (!why && !rp_seen(c, BIT(RDMA_CM_EVENT_ESTABLISHED)))
			why = "no ESTABLISHED event";
		/* The DREP to the client's DREQ, or our DREQ. */
		if (!rp_seen(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL)))
			rdma_disconnect(c->id);
	}
	removed_at = READ_ONCE(c->removed_at);
	closed_first = c->closed_first;
	rp_conn_free(c, false);
	if (why)
		rp_result(idx, false, "connection %u from %s # %s (%u iterations)",
			  idx + 1, who, why, iters);
	else if (rp_removal)
		rp_result(idx, true,
			  "connection %u from %s: DEVICE_REMOVAL%s after %u rping iterations, QP, CQ, PD and ID freed in %u ms",
			  idx + 1, who,
			  closed_first ? " (after DISCONNECTED)" : "", iters,
			  jiffies_to_msecs(jiffies - removed_at));
	else if (rp_ud)
		rp_result(idx, true, "connection %u from %s: %u datagrams of %u bytes answered",
			  idx + 1, who, count, size);
	else
		rp_result(idx, true,
			  "connection %u from %s: %u rping iterations, data verified, %u ms",
			  idx + 1, who, iters,
			  jiffies_to_msecs(jiffies - start));
}

/* A request on the listener: accept it (QP on the new ID) or refuse it. */
static int rp_request(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	struct rp_conn *c;
	unsigned int idx;
	int ret;

	if (reject) {
		rdma_reject(id, RP_REJECT_DATA, sizeof(RP_REJECT_DATA),
			    IB_CM_REJ_CONSUMER_DEFINED);
		atomic_inc(&rp_nrejected);
		wake_up_all(&rp_waitq);
		return 1;	/* rdma_cm destroys the new ID */
	}
	idx = atomic_inc_return(&rp_requests) - 1;
	if (READ_ONCE(rp_stop) || idx >= conns) {
		pr_info("# rdma_rping_ulp: request %u refused: %s\n", idx + 1,
			READ_ONCE(rp_stop) ? "unloading" : "beyond conns");
		rdma_reject(id, NULL, 0, IB_CM_REJ_CONSUMER_DEFINED);
		return 1;
	}
	c = rp_conn_alloc();
	if (!c) {
		rp_result(idx, false, "connection %u # no memory", idx + 1);
		return -ENOMEM;
	}
	c->id = id;
	c->idx = idx;
	INIT_WORK(&c->work, rp_conn_work);
	id->context = c;
	ret = rp_conn_setup(c);
	if (!ret && rp_ud) {
		ret = rp_post_ud_recvs(c);
		memset(&param, 0, sizeof(param));
		param.qp_num = id->qp->qp_num;
	} else if (!ret) {
		ret = rp_post_recv(c);
	}
	if (!ret)
		ret = rdma_accept(id, &param);
	if (ret) {
		pr_info("# rdma_rping_ulp: request %u not accepted: %d\n",
			idx + 1, ret);
		rp_conn_free(c, true);
		rp_result(idx, false, "connection %u # not accepted: %d",
			  idx + 1, ret);
		return ret;
	}
	queue_work(rp_wq, &c->work);
	return 0;
}

/*
 * The listener's events, and those of the connections it accepted (their
 * context is their rp_conn).  The stock rdma_cm hands the events of a
 * wildcard listener's per-device listener here too, with the listener's
 * context (NULL): they count as the listener's.
 */
static int rp_listen_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return rp_request(id, ev);
	if (id != READ_ONCE(rp_listen) && id->context)
		return rp_conn_handler(id, ev);
	pr_info("# rdma_rping_ulp: listener event %s (%d)\n",
		rdma_event_msg(ev->event), ev->status);
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		/* The device waits for the ID: rp_server() stops serving. */
		WRITE_ONCE(rp_listen_removed, true);
		wake_up_all(&rp_waitq);
	}
	return 0;
}

/* Every connection accepted has ended and reported. */
static bool rp_all_finished(void)
{
	return atomic_read(&rp_finished) >=
	       min_t(int, atomic_read(&rp_requests), conns);
}

static void rp_server(void)
{
	struct sockaddr_storage addr;
	struct rdma_cm_id *id;
	char portstr[8];
	unsigned int i;
	int ret;

	pr_info("1..%u\n", reject ? 2 : 1 + conns + rp_removal);
	snprintf(portstr, sizeof(portstr), "%u", port);
	ret = inet_pton_with_scope(&init_net, AF_UNSPEC, src ?: "::", portstr,
				   &addr);
	if (ret) {
		pr_info("not ok 1 listen # bad address '%s'\n", src);
		return;
	}
	id = rdma_create_id(&init_net, rp_listen_handler, NULL,
			    rp_ud ? RDMA_PS_UDP : RDMA_PS_TCP,
			    rp_ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(id)) {
		pr_info("not ok 1 listen # rdma_create_id: %ld\n",
			PTR_ERR(id));
		return;
	}
	WRITE_ONCE(rp_listen, id);
	ret = addr.ss_family == AF_INET6 ? rdma_set_afonly(id, 0) : 0;
	ret = ret ?: rdma_bind_addr(id, (struct sockaddr *)&addr) ?:
	      rdma_listen(id, 16);
	if (ret) {
		pr_info("not ok 1 listen on %pISpc # %d\n", &addr, ret);
		goto out;
	}
	pr_info("ok 1 listen on %pISpc (%s)\n", &addr, mode);
	if (reject) {
		wait_event_idle_timeout(rp_waitq,
					atomic_read(&rp_nrejected) >= conns ||
					READ_ONCE(rp_stop) ||
					READ_ONCE(rp_listen_removed),
					wait * HZ);
		pr_info("%sok 2 rejected %d requests with private data\n",
			atomic_read(&rp_nrejected) >= conns ? "" : "not ",
			atomic_read(&rp_nrejected));
		goto out;
	}
	wait_event_idle_timeout(rp_waitq, atomic_read(&rp_finished) >= conns ||
				READ_ONCE(rp_stop) ||
				READ_ONCE(rp_listen_removed), wait * HZ);
	/* The device goes: its connections end too, let them report. */
	if (READ_ONCE(rp_listen_removed))
		wait_event_timeout(rp_waitq, rp_all_finished() ||
				   READ_ONCE(rp_stop), 2 * RP_IO_SECS * HZ);
	for (i = 0; i < conns; i++) {
		struct rp_result *r = &rp_results[i];

		/* Pairs with rp_result(): done, then the text. */
		if (!smp_load_acquire(&r->done))
			pr_info("not ok %u connection %u # %s\n", i + 2, i + 1,
				i < atomic_read(&rp_requests) ?
				"still running" : "no request came");
		else
			pr_info("%sok %u %s\n", r->ok ? "" : "not ", i + 2,
				r->text);
	}
	if (rp_removal) {
		rdma_destroy_id(id);
		WRITE_ONCE(rp_listen, NULL);
		pr_info("%sok %u listener: DEVICE_REMOVAL, stopped and destroyed%s\n",
			READ_ONCE(rp_listen_removed) ? "" : "not ", conns + 2,
			READ_ONCE(rp_listen_removed) ? "" : " # none came");
		return;
	}
out:
	rdma_destroy_id(id);
	WRITE_ONCE(rp_listen, NULL);
}

/* ---- clients ---------------------------------------------------------------- */

/* rping's client loop: NULL or what went wrong. */
static const char *rp_ping(struct rp_conn *c)
{
	u8 *start = c->buf + rp_rc_buf_off(0);
	u8 *sink = c->buf + rp_rc_buf_off(1);
	u64 base = c->mr->iova;
	unsigned int n;

	for (n = 0; !count || n < count; n++) {
		rp_pattern(start, size, n);
		memset(sink, 0, size);
		ib_dma_sync_single_for_device(c->dev, c->dma + rp_rc_buf_off(0),
					      2 * size, DMA_BIDIRECTIONAL);
		if (rp_post_msg(c, base, c->mr->rkey, size) ||
		    rp_wait_count(c, &c->nsend, 2 * n + 1) ||
		    rp_wait_peer(c, &c->nrecv, 2 * n + 1))
			goto fail;
		if (c->msg_len != sizeof(struct rp_msg))
			goto bogus;
		if (rp_post_msg(c, base + size, c->mr->rkey, size) ||
		    rp_wait_count(c, &c->nsend, 2 * n + 2) ||
		    rp_wait_peer(c, &c->nrecv, 2 * n + 2))
			goto fail;
		if (c->msg_len != sizeof(struct rp_msg))
			goto bogus;
		ib_dma_sync_single_for_cpu(c->dev, c->dma + rp_rc_buf_off(0),
					   2 * size, DMA_BIDIRECTIONAL);
		if (memcmp(start, sink, size)) {
			pr_info("# rdma_rping_ulp: ping %u came back as \"%.*s\"\n",
				n, (int)min_t(u32, size, 64), sink);
			return "the data written back differs";
		}
		rp_iter_done(c, n + 1);
	}
	return NULL;
fail:
	if (!rp_seen(c, BIT(RDMA_CM_EVENT_DEVICE_REMOVAL)))
		pr_info("# rdma_rping_ulp: ping %u: sends %d, receives %d, completion error %d\n",
			n, atomic_read(&c->nsend), atomic_read(&c->nrecv),
			c->wc_err);
	return "ping did not complete";
bogus:
	pr_info("# rdma_rping_ulp: ping %u: message of %u bytes\n", n,
		c->msg_len);
	return "bogus message from the server";
}

/* udaddy's client: @count datagrams out, @count replies in. */
static const char *rp_udping(struct rp_conn *c)
{
	struct ib_sge sge = {
		.addr = c->dma + rp_ud_slot_off(count),
		.length = size,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &c->send_cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_SEND_WITH_IMM,
			.send_flags = IB_SEND_SIGNALED,
			.ex.imm_data = cpu_to_be32(c->id->qp->qp_num),
		},
		.ah = c->ah,
		.remote_qpn = c->remote_qpn,
		.remote_qkey = c->remote_qkey,
	};
	unsigned int i;

	if (!c->ah)
		return "no AH";
	if (c->remote_qkey != RDMA_UDP_QKEY)
		return "the SIDR reply's Q_Key is not RDMA_UDP_QKEY";
	rp_pattern(c->buf + rp_ud_slot_off(count), size, 0);
	ib_dma_sync_single_for_device(c->dev, sge.addr, size,
				      DMA_BIDIRECTIONAL);
	for (i = 0; i < count; i++)
		if (ib_post_send(c->id->qp, &wr.wr, NULL))
			return "datagram not posted";
	if (rp_wait_count(c, &c->nsend, count))
		return "datagrams not sent";
	if (rp_wait_peer(c, &c->nrecv, count)) {
		pr_info("# rdma_rping_ulp: %d of %u replies\n",
			atomic_read(&c->nrecv), count);
		return "not all replies came";
	}
	if (atomic_read(&c->nbad))
		return "replies not from the server's QP";
	return NULL;
}

/*
 * iWARP: a refused attempt is REJECTED with -ECONNREFUSED (rdma_cm's
 * mapping of the provider's CONNECT_REPLY status), with the server's
 * private data from rdma_consumer_reject_data() for a reject (or with
 * @rej_status and the data in the event), with none for a reset.
 */
static const char *rp_check_iw_refusal(struct rp_conn *c, bool rejected)
{
	if (!rejected)
		return "not REJECTED";
	if (!strcmp(expect, "reject")) {
		if (c->rej_status != (rej_status ?: -ECONNREFUSED))
			return "REJECTED with another status";
		if (!c->rej_data_ok)
			return "REJECTED without the server's private data";
		if (!rej_status && !c->rej_consumer)
			return "private data not through rdma_consumer_reject_data()";
		return NULL;
	}
	if (c->rej_status != -ECONNREFUSED)
		return "not REJECTED with -ECONNREFUSED";
	return c->rej_data_len ? "REJECTED with private data" : NULL;
}

/* How a refused attempt ended, against expect=: NULL when as expected. */
static const char *rp_check_refusal(struct rp_conn *c)
{
	bool rejected = rp_seen(c, BIT(RDMA_CM_EVENT_REJECTED));
	bool unreachable = rp_seen(c, BIT(RDMA_CM_EVENT_UNREACHABLE));

	if (!strcmp(expect, "unreachable"))
		return unreachable ? NULL : "not UNREACHABLE";
	if (rp_ud) {
		int want = !strcmp(expect, "reject") ? IB_SIDR_REJECT :
			   IB_SIDR_UNSUPPORTED;

		return unreachable && c->status == want ? NULL :
		       "not UNREACHABLE with the SIDR status expected";
	}
	if (rdma_protocol_iwarp(c->id->device, c->id->port_num))
		return rp_check_iw_refusal(c, rejected);
	if (!strcmp(expect, "reject"))
		return rejected &&
		       c->rej_status == (rej_status ?: IB_CM_REJ_CONSUMER_DEFINED) &&
		       c->rej_data_ok && (rej_status || c->rej_consumer) ? NULL :
		       "not REJECTED (28) with the server's private data";
	return rejected && c->rej_status == IB_CM_REJ_INVALID_SERVICE_ID ?
	       NULL : "not REJECTED with invalid service ID (8)";
}

/* One connection, reported as KTAP test @n. */
static void rp_client_conn(unsigned int n, struct sockaddr *dst,
			   struct sockaddr *srcaddr)
{
	const unsigned long done = BIT(RDMA_CM_EVENT_ESTABLISHED) |
		BIT(RDMA_CM_EVENT_REJECTED) | BIT(RDMA_CM_EVENT_UNREACHABLE) |
		BIT(RDMA_CM_EVENT_CONNECT_ERROR) |
		BIT(RDMA_CM_EVENT_ADDR_ERROR) |
		BIT(RDMA_CM_EVENT_DEVICE_REMOVAL);
	struct rdma_conn_param param = {
		.responder_resources = 1,
		.initiator_depth = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
	};
	bool connect = !strcmp(expect, "connect") || rp_removal;
	unsigned long start = jiffies, disc = 0;
	const char *why = NULL;
	struct rp_conn *c;
	int ret;

	c = rp_conn_alloc();
	if (!c) {
		pr_info("not ok %u connection %u # no memory\n", n, n);
		return;
	}
	c->idx = n - 1;
	c->id = rdma_create_id(&init_net, rp_conn_handler, c,
			       rp_ud ? RDMA_PS_UDP : RDMA_PS_TCP,
			       rp_ud ? IB_QPT_UD : IB_QPT_RC);
	if (IS_ERR(c->id)) {
		pr_info("not ok %u connection %u # rdma_create_id: %ld\n", n,
			n, PTR_ERR(c->id));
		c->id = NULL;
		goto out;
	}
	ret = rdma_resolve_addr(c->id, srcaddr, dst, RP_RESOLVE_MS) ?:
	      rp_wait_event(c, BIT(RDMA_CM_EVENT_ADDR_RESOLVED) |
			    BIT(RDMA_CM_EVENT_ADDR_ERROR), RP_IO_SECS);
	if (ret || !rp_seen(c, BIT(RDMA_CM_EVENT_ADDR_RESOLVED))) {
		why = "address not resolved";
		goto report;
	}
	ret = rdma_resolve_route(c->id, RP_RESOLVE_MS) ?:
	      rp_wait_event(c, BIT(RDMA_CM_EVENT_ROUTE_RESOLVED) |
			    BIT(RDMA_CM_EVENT_ROUTE_ERROR), RP_IO_SECS);
	if (ret || !rp_seen(c, BIT(RDMA_CM_EVENT_ROUTE_RESOLVED))) {
		why = "route not resolved";
		goto report;
	}
	ret = rp_conn_setup(c) ?:
	      (rp_ud ? rp_post_ud_recvs(c) : rp_post_recv(c));
	if (ret) {
		why = "no QP or buffers";
		goto report;
	}
	if (rp_ud)
		memset(&param, 0, sizeof(param));
	ret = rdma_connect(c->id, &param) ?:
	      rp_wait_event(c, done, wait);
	if (ret) {
		why = "the connection attempt did not end";
		goto report;
	}
	if (!connect) {
		why = rp_check_refusal(c);
		goto report;
	}
	if (!rp_seen(c, BIT(RDMA_CM_EVENT_ESTABLISHED))) {
		why = "not ESTABLISHED";
		goto report;
	}
	if (rp_ud) {
		why = rp_udping(c);
		goto report;
	}
	ret = rp_client_mr(c);
	if (ret) {
		why = "MR not registered";
		goto report;
	}
	why = rp_ping(c);
	if (rp_removal) {
		why = rp_check_removal(c, why);
		goto report;
	}
	disc = jiffies;
	ret = rdma_disconnect(c->id) ?:
	      rp_wait_event(c, BIT(RDMA_CM_EVENT_DISCONNECTED), RP_IO_SECS);
	disc = jiffies - disc;
	if (!why && ret)
		why = "no DISCONNECTED after rdma_disconnect";
	else if (!why && c->status)
		why = "DISCONNECTED with an error";
report:
	if (why)
		pr_info("not ok %u connection %u # %s (%d; events %#lx, status %d, completion error %d, %u bytes of private data)\n",
			n, n, why, ret, c->events, c->status, c->wc_err,
			c->rej_data_len);
	else if (!connect)
		pr_info("ok %u connection %u: %s to %pISpc (status %d, %u bytes of private data%s) after %u ms\n",
			n, n, expect, dst, c->status, c->rej_data_len,
			c->rej_consumer ? " from rdma_consumer_reject_data()" : "",
			jiffies_to_msecs(jiffies - start));
	else if (rp_ud)
		pr_info("ok %u connection %u: %u datagrams to %pISpc answered by QP %#x in %u ms\n",
			n, n, count, dst, c->remote_qpn,
			jiffies_to_msecs(jiffies - start));
	else if (!rp_removal)
		pr_info("ok %u connection %u: %u rping iterations with %pISpc, data verified, in %u ms (DISCONNECTED %u ms after rdma_disconnect)\n",
			n, n, count, dst, jiffies_to_msecs(jiffies - start),
			jiffies_to_msecs(disc));
	if (!why && rp_removal) {
		unsigned long removed_at = READ_ONCE(c->removed_at);
		bool closed_first = c->closed_first;
		unsigned int iters = c->iters;

		/* Reported once everything is freed, the ID last. */
		rp_conn_free(c, false);
		pr_info("ok %u connection %u: DEVICE_REMOVAL%s after %u rping iterations with %pISpc, QP, MR, CQ, PD and ID freed in %u ms\n",
			n, n, closed_first ? " (after DISCONNECTED)" : "",
			iters, dst, jiffies_to_msecs(jiffies - removed_at));
		return;
	}
out:
	rp_conn_free(c, false);
}

static void rp_client(void)
{
	struct sockaddr_storage dst, sa;
	char portstr[8];
	unsigned int n;

	pr_info("1..%u\n", conns);
	snprintf(portstr, sizeof(portstr), "%u", port);
	if (!dest || inet_pton_with_scope(&init_net, AF_UNSPEC, dest, portstr,
					  &dst)) {
		pr_info("not ok 1 connection 1 # bad dest '%s'\n", dest);
		return;
	}
	if (src && inet_pton_with_scope(&init_net, AF_UNSPEC, src, "0", &sa)) {
		pr_info("not ok 1 connection 1 # bad src '%s'\n", src);
		return;
	}
	for (n = 1; n <= conns; n++) {
		if (READ_ONCE(rp_stop)) {
			pr_info("not ok %u connection %u # unloading\n", n, n);
			continue;
		}
		rp_client_conn(n, (struct sockaddr *)&dst,
			       src ? (struct sockaddr *)&sa : NULL);
	}
}

static void rp_main(struct work_struct *work)
{
	pr_info("KTAP version 1\n");
	pr_info("# suite: rdma_rping_ulp %s%s\n", mode,
		reject ? " reject=1" : "");
	if (rp_mode == RP_SERVER || rp_mode == RP_UDSERVER)
		rp_server();
	else
		rp_client();
}

static int __init rp_init(void)
{
	static const char * const modes[] = {
		[RP_CLIENT] = "client", [RP_SERVER] = "server",
		[RP_UDCLIENT] = "udclient", [RP_UDSERVER] = "udserver",
	};
	int m = match_string(modes, ARRAY_SIZE(modes), mode);

	if (m < 0 || !conns || size < RP_MIN_SIZE || size > RP_MAX_SIZE ||
	    (strcmp(expect, "connect") && strcmp(expect, "reject") &&
	     strcmp(expect, "noservice") && strcmp(expect, "unreachable") &&
	     strcmp(expect, "removal")))
		return -EINVAL;
	rp_mode = m;
	rp_ud = rp_mode == RP_UDCLIENT || rp_mode == RP_UDSERVER;
	rp_removal = !strcmp(expect, "removal");
	if (rp_ud && (!count || size > RP_UD_MAX_SIZE ||
		      count > RP_UD_MAX_COUNT || rp_removal))
		return -EINVAL;
	if ((rp_mode == RP_SERVER || rp_mode == RP_UDSERVER) &&
	    strcmp(expect, "connect") && !rp_removal)
		return -EINVAL;
	if (rp_mode == RP_SERVER || rp_mode == RP_UDSERVER) {
		rp_results = kcalloc(conns, sizeof(*rp_results), GFP_KERNEL);
		if (!rp_results)
			return -ENOMEM;
	}
	rp_wq = alloc_workqueue("rdma_rping_ulp", WQ_UNBOUND, 0);
	if (!rp_wq) {
		kfree(rp_results);
		return -ENOMEM;
	}
	INIT_WORK(&rp_main_work, rp_main);
	queue_work(rp_wq, &rp_main_work);
	return 0;
}

static void __exit rp_exit(void)
{
	WRITE_ONCE(rp_stop, true);
	wake_up_all(&rp_waitq);
	/* The listener goes first: no request queues work after that. */
	flush_work(&rp_main_work);
	destroy_workqueue(rp_wq);
	kfree(rp_results);
}

module_init(rp_init);
module_exit(rp_exit);

MODULE_DESCRIPTION("rping and udaddy peer on rdma_cm for RDMA interoperability tests");
MODULE_LICENSE("GPL");
