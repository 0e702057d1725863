// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel ULP of the InfiniBand connection manager (ib_cm): RC
 * connections made with REQ/REP/RTU and ended with DREQ/DREP, the way
 * rdma_cm makes them on RoCE but with the path filled in here.  Upstream
 * API only, so the same source builds against this tree and against the
 * stock kernel, and the two connection managers meet on the wire.
 *
 * mode=server  listen on service @sid of the first RoCE device; accept
 *              each REQ (a QP taken to RTS with ib_cm_init_qp_attr(),
 *              then REP) and echo every SEND on the connection, until
 *              @conns connections were disconnected by the peer (or
 *              @wait seconds).  reject=1: refuse every REQ instead
 *              (REJ "consumer defined" with private data SERVER_NO).
 * mode=client  @conns times: connect to @sid at @dest (@dmac) from the
 *              port's IPv4-mapped or IPv6 GID (@gid), check the REP's
 *              private data, send @count SENDs and check each echo, then
 *              DREQ and wait for the DREP.  expect= says what the peer
 *              must do instead: reject (REJ 28 with SERVER_NO), noservice
 *              (REJ 8: nobody listens), unreachable (nothing answers: the
 *              REQ is sent 1 + @cm_retries times, then IB_CM_REQ_ERROR).
 *
 * Results are printed as KTAP when the work is done.
 */
#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cm.h>

#include "rdma_ulp_util.h"

#define CM_ULP_MSG	64
#define CM_ULP_DEPTH	8
#define SERVER_NO	"SERVER_NO: connection refused by the test server"
#define CLIENT_HELLO	"CLIENT_HELLO"
#define SERVER_HELLO	"SERVER_HELLO"

static char *mode = "client";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "client or server");
static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device (default: the first RoCE one)");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "client: the server's IPv4 or IPv6 address");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "client: the server's MAC address");
static char *gid = "ipv4";
module_param(gid, charp, 0444);
MODULE_PARM_DESC(gid, "client: source GID, ipv4 (IPv4-mapped) or ipv6");
static ulong sid = 0x0000000001060000UL | 0x4d2;
module_param(sid, ulong, 0444);
MODULE_PARM_DESC(sid, "service ID");
static uint conns = 1;
module_param(conns, uint, 0444);
MODULE_PARM_DESC(conns, "connections to make (client) or to serve (server)");
static uint count = 100;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "client: SENDs echoed per connection");
static char *expect = "connect";
module_param(expect, charp, 0444);
MODULE_PARM_DESC(expect, "client: connect, reject, noservice or unreachable");
static uint cm_retries = 15;
module_param(cm_retries, uint, 0444);
MODULE_PARM_DESC(cm_retries, "client: Max CM Retries of the REQ");
static uint cm_timeout = 20;
module_param(cm_timeout, uint, 0444);
MODULE_PARM_DESC(cm_timeout, "client: remote CM response timeout (exponent)");
static bool reject;
module_param(reject, bool, 0444);
MODULE_PARM_DESC(reject, "server: refuse every request");
static uint wait = 120;
module_param(wait, uint, 0444);
MODULE_PARM_DESC(wait, "seconds to wait for the whole run");

/* One RC connection and its QP. */
struct cm_ulp_conn {
	struct ib_cm_id		*cm_id;
	struct ib_cq		*cq;
	struct ib_qp		*qp;
	u8			*buf;		/* CM_ULP_DEPTH receives, then one send */
	u64			dma;
	struct ib_cqe		recv_cqe;
	struct ib_cqe		send_cqe;
	struct completion	event;		/* client: the CM answered */
	struct completion	recvd;		/* client: an echo came */
	struct completion	sent;
	enum ib_cm_event_type	last;
	int			rej_reason;
	bool			rej_pdata_ok;
	bool			rep_pdata_ok;
	struct list_head	node;		/* server: on cm_ulp.conns */
	struct work_struct	free_work;	/* server: after the DREQ */
	unsigned int		echoed;
};

struct cm_ulp {
	struct ib_device	*dev;
	u32			port;
	struct ib_pd		*pd;
	struct ib_cm_id		*listen;
	struct workqueue_struct	*wq;		/* the run, and freeing conns */
	struct work_struct	work;
	spinlock_t		lock;		/* conns */
	struct list_head	conns;
	atomic_t		accepted;
	atomic_t		rejected;
	atomic_t		closed;
	atomic_t		echoed;
	atomic_t		errors;
	struct completion	all_closed;
};

static struct cm_ulp *cm_ulp;

static u8 *cm_ulp_slot(struct cm_ulp_conn *c, int i)
{
	return c->buf + i * CM_ULP_MSG;
}

static int cm_ulp_post_recv(struct cm_ulp *u, struct cm_ulp_conn *c, int i)
{
	struct ib_sge sge = {
		.addr = c->dma + i * CM_ULP_MSG,
		.length = CM_ULP_MSG,
		.lkey = u->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &c->recv_cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};

	return ib_post_recv(c->qp, &wr, NULL);
}

static int cm_ulp_post_send(struct cm_ulp *u, struct cm_ulp_conn *c,
			    const u8 *data)
{
	struct ib_sge sge = {
		.addr = c->dma + CM_ULP_DEPTH * CM_ULP_MSG,
		.length = CM_ULP_MSG,
		.lkey = u->pd->local_dma_lkey,
	};
	struct ib_send_wr wr = {
		.wr_cqe = &c->send_cqe,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
	};

	memcpy(cm_ulp_slot(c, CM_ULP_DEPTH), data, CM_ULP_MSG);
	ib_dma_sync_single_for_device(u->dev, sge.addr, CM_ULP_MSG,
				      DMA_BIDIRECTIONAL);
	return ib_post_send(c->qp, &wr, NULL);
}

static void cm_ulp_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cm_ulp_conn *c = container_of(wc->wr_cqe, struct cm_ulp_conn,
					     send_cqe);

	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&cm_ulp->errors);
	complete(&c->sent);
}

/* The slot a receive completion filled: the one its WR was posted for. */
static void cm_ulp_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct cm_ulp_conn *c = container_of(wc->wr_cqe, struct cm_ulp_conn,
					     recv_cqe);
	struct cm_ulp *u = cm_ulp;
	u8 *slot = cm_ulp_slot(c, 0);

	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			atomic_inc(&u->errors);
		return;
	}
	ib_dma_sync_single_for_cpu(u->dev, c->dma, CM_ULP_MSG,
				   DMA_BIDIRECTIONAL);
	if (u->listen) {
		/* Server: echo it, then take the next one in the same slot. */
		if (cm_ulp_post_send(u, c, slot))
			atomic_inc(&u->errors);
		c->echoed++;
		atomic_inc(&u->echoed);
	} else {
		memcpy(cm_ulp_slot(c, 1), slot, CM_ULP_MSG);
		complete(&c->recvd);
	}
	if (cm_ulp_post_recv(u, c, 0))
		atomic_inc(&u->errors);
}

static void cm_ulp_conn_free(struct cm_ulp *u, struct cm_ulp_conn *c)
{
	if (c->cm_id)
		ib_destroy_cm_id(c->cm_id);
	if (c->qp)
		ib_destroy_qp(c->qp);
	if (c->cq)
		ib_free_cq(c->cq);
	if (c->buf) {
		ib_dma_unmap_single(u->dev, c->dma,
				    (CM_ULP_DEPTH + 1) * CM_ULP_MSG,
				    DMA_BIDIRECTIONAL);
		kfree(c->buf);
	}
	kfree(c);
}

/* A connection's QP in INIT with a receive posted; NULL on failure. */
static struct cm_ulp_conn *cm_ulp_conn_new(struct cm_ulp *u)
{
	struct ib_qp_init_attr init = {
		.cap = { .max_send_wr = CM_ULP_DEPTH, .max_recv_wr = CM_ULP_DEPTH,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct cm_ulp_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return NULL;
	init_completion(&c->event);
	init_completion(&c->recvd);
	init_completion(&c->sent);
	c->recv_cqe.done = cm_ulp_recv_done;
	c->send_cqe.done = cm_ulp_send_done;
	c->buf = kzalloc((CM_ULP_DEPTH + 1) * CM_ULP_MSG, GFP_KERNEL);
	if (!c->buf)
		goto fail;
	c->dma = ib_dma_map_single(u->dev, c->buf,
				   (CM_ULP_DEPTH + 1) * CM_ULP_MSG,
				   DMA_BIDIRECTIONAL);
	if (ib_dma_mapping_error(u->dev, c->dma)) {
		kfree(c->buf);
		c->buf = NULL;
		goto fail;
	}
	c->cq = ib_alloc_cq(u->dev, c, 2 * CM_ULP_DEPTH, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(c->cq)) {
		c->cq = NULL;
		goto fail;
	}
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	c->qp = ib_create_qp(u->pd, &init);
	if (IS_ERR(c->qp)) {
		c->qp = NULL;
		goto fail;
	}
	return c;
fail:
	cm_ulp_conn_free(u, c);
	return NULL;
}

/*
 * Take the QP to @state with the attributes the CM knows.  A passive side
 * going to RTR before its REP is sent says itself which PSN it receives
 * with first (@rq_psn; 0: the CM knows it).
 */
static int cm_ulp_modify(struct cm_ulp_conn *c, enum ib_qp_state state,
			 u32 rq_psn)
{
	struct ib_qp_attr attr = { .qp_state = state };
	int mask, ret;

	ret = ib_cm_init_qp_attr(c->cm_id, &attr, &mask);
	if (!ret && state == IB_QPS_RTR && rq_psn)
		attr.rq_psn = rq_psn;
	if (!ret)
		ret = ib_modify_qp(c->qp, &attr, mask);
	return ret;
}

/* ---- server ------------------------------------------------------------- */

static void cm_ulp_free_work(struct work_struct *work)
{
	struct cm_ulp_conn *c = container_of(work, struct cm_ulp_conn,
					     free_work);
	struct cm_ulp *u = cm_ulp;

	spin_lock_irq(&u->lock);
	list_del(&c->node);
	spin_unlock_irq(&u->lock);
	cm_ulp_conn_free(u, c);
	if (atomic_inc_return(&u->closed) == conns)
		complete(&u->all_closed);
}

static int cm_ulp_accept(struct cm_ulp *u, struct ib_cm_id *cm_id,
			 const struct ib_cm_event *ev)
{
	struct ib_cm_rep_param rep = {
		.private_data = SERVER_HELLO,
		.private_data_len = sizeof(SERVER_HELLO),
		.responder_resources = 1,
		.initiator_depth = 1,
		.rnr_retry_count = 7,
	};
	struct cm_ulp_conn *c;
	int ret;

	if (memcmp(ev->private_data, CLIENT_HELLO, sizeof(CLIENT_HELLO))) {
		pr_info("# rdma_ibcm_ulp: REQ without the client's greeting\n");
		atomic_inc(&u->errors);
	}
	c = cm_ulp_conn_new(u);
	if (!c)
		return -ENOMEM;
	c->cm_id = cm_id;
	INIT_WORK(&c->free_work, cm_ulp_free_work);
	rep.starting_psn = (get_random_u32() & 0xffffff) | 1;
	ret = cm_ulp_modify(c, IB_QPS_INIT, 0) ?: cm_ulp_post_recv(u, c, 0) ?:
	      cm_ulp_modify(c, IB_QPS_RTR, rep.starting_psn) ?:
	      cm_ulp_modify(c, IB_QPS_RTS, 0);
	if (ret) {
		pr_info("# rdma_ibcm_ulp: QP not ready: %d\n", ret);
		c->cm_id = NULL;	/* the CM destroys it: we return non-zero */
		cm_ulp_conn_free(u, c);
		return ret;
	}
	rep.qp_num = c->qp->qp_num;
	cm_id->context = c;
	spin_lock_irq(&u->lock);
	list_add_tail(&c->node, &u->conns);
	spin_unlock_irq(&u->lock);
	ret = ib_send_cm_rep(cm_id, &rep);
	if (ret)
		pr_info("# rdma_ibcm_ulp: REP not sent: %d\n", ret);
	return 0;
}

static int cm_ulp_server_handler(struct ib_cm_id *cm_id,
				 const struct ib_cm_event *ev)
{
	struct cm_ulp *u = cm_ulp;
	struct cm_ulp_conn *c = cm_id->context;

	switch (ev->event) {
	case IB_CM_REQ_RECEIVED:
		if (reject) {
			if (atomic_inc_return(&u->rejected) == conns)
				complete(&u->all_closed);
			ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL, 0,
				       SERVER_NO, sizeof(SERVER_NO));
			return 1;
		}
		return cm_ulp_accept(u, cm_id, ev);
	case IB_CM_RTU_RECEIVED:
	case IB_CM_USER_ESTABLISHED:
		atomic_inc(&u->accepted);
		return 0;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		queue_work(u->wq, &c->free_work);
		return 0;
	case IB_CM_REP_ERROR:
	case IB_CM_REJ_RECEIVED:
		pr_info("# rdma_ibcm_ulp: connection failed: event %d\n",
			ev->event);
		atomic_inc(&u->errors);
		queue_work(u->wq, &c->free_work);
		return 0;
	default:
		return 0;
	}
}

static void cm_ulp_serve(struct cm_ulp *u)
{
	int ret;

	pr_info("1..2\n");
	u->listen = ib_create_cm_id(u->dev, cm_ulp_server_handler, NULL);
	ret = PTR_ERR_OR_ZERO(u->listen);
	if (!ret)
		ret = ib_cm_listen(u->listen, cpu_to_be64(sid));
	if (ret) {
		pr_info("not ok 1 listen on service %#lx # %d\n", sid, ret);
		return;
	}
	pr_info("ok 1 listen on service %#lx\n", sid);
	if (reject) {
		wait_for_completion_timeout(&u->all_closed, wait * HZ);
		pr_info("%s 2 rejected %d requests\n",
			atomic_read(&u->rejected) >= conns ? "ok" : "not ok",
			atomic_read(&u->rejected));
		return;
	}
	wait_for_completion_timeout(&u->all_closed, wait * HZ);
	if (atomic_read(&u->closed) >= conns && atomic_read(&u->accepted) >= conns &&
	    !atomic_read(&u->errors))
		pr_info("ok 2 served %d connections, echoed %d messages\n",
			atomic_read(&u->closed), atomic_read(&u->echoed));
	else
		pr_info("not ok 2 served %d connections of %u # %d established, %d echoed, %d errors\n",
			atomic_read(&u->closed), conns,
			atomic_read(&u->accepted), atomic_read(&u->echoed),
			atomic_read(&u->errors));
}

/* ---- client ------------------------------------------------------------- */

static int cm_ulp_client_handler(struct ib_cm_id *cm_id,
				 const struct ib_cm_event *ev)
{
	struct cm_ulp_conn *c = cm_id->context;
	int ret;

	switch (ev->event) {
	case IB_CM_REP_RECEIVED:
		c->rep_pdata_ok = !memcmp(ev->private_data, SERVER_HELLO,
					  sizeof(SERVER_HELLO));
		ret = cm_ulp_modify(c, IB_QPS_RTR, 0) ?:
		      cm_ulp_modify(c, IB_QPS_RTS, 0) ?:
		      ib_send_cm_rtu(cm_id, NULL, 0);
		if (ret) {
			pr_info("# rdma_ibcm_ulp: RTU not sent: %d\n", ret);
			ib_send_cm_rej(cm_id, IB_CM_REJ_CONSUMER_DEFINED, NULL,
				       0, NULL, 0);
		}
		break;
	case IB_CM_REJ_RECEIVED:
		c->rej_reason = ev->param.rej_rcvd.reason;
		c->rej_pdata_ok = !memcmp(ev->private_data, SERVER_NO,
					  sizeof(SERVER_NO));
		break;
	case IB_CM_REQ_ERROR:
	case IB_CM_DREP_RECEIVED:
	case IB_CM_DREQ_ERROR:
		break;
	case IB_CM_DREQ_RECEIVED:
		ib_send_cm_drep(cm_id, NULL, 0);
		break;
	default:
		return 0;
	}
	c->last = ev->event;
	complete(&c->event);
	return 0;
}

static void cm_ulp_path(struct cm_ulp *u, struct sa_path_rec *path,
			const struct ib_gid_attr *sgid_attr,
			const union ib_gid *dgid, const u8 *mac)
{
	memset(path, 0, sizeof(*path));
	path->rec_type = SA_PATH_REC_TYPE_ROCE_V2;
	path->sgid = sgid_attr->gid;
	path->dgid = *dgid;
	path->service_id = cpu_to_be64(sid);
	path->hop_limit = 64;
	path->reversible = 1;
	path->numb_path = 1;
	path->pkey = cpu_to_be16(0xffff);
	path->mtu_selector = IB_SA_EQ;
	path->mtu = IB_MTU_1024;
	path->rate_selector = IB_SA_EQ;
	path->rate = IB_RATE_PORT_CURRENT;
	path->packet_life_time_selector = IB_SA_EQ;
	path->packet_life_time = 14;
	path->roce.route_resolved = true;
	memcpy(path->roce.dmac, mac, ETH_ALEN);
}

/* Send @count messages, each echoed back: 0 or what went wrong. */
static const char *cm_ulp_pingpong(struct cm_ulp *u, struct cm_ulp_conn *c,
				   unsigned int n)
{
	u8 msg[CM_ULP_MSG];
	unsigned int i, j;

	for (i = 0; i < count; i++) {
		for (j = 0; j < CM_ULP_MSG; j++)
			msg[j] = (u8)(n * 7 + i * 13 + j);
		reinit_completion(&c->recvd);
		reinit_completion(&c->sent);
		if (cm_ulp_post_send(u, c, msg))
			return "SEND not posted";
		if (!wait_for_completion_timeout(&c->sent, 10 * HZ))
			return "SEND did not complete";
		if (!wait_for_completion_timeout(&c->recvd, 10 * HZ))
			return "no echo";
		if (memcmp(cm_ulp_slot(c, 1), msg, CM_ULP_MSG))
			return "echo differs";
	}
	return NULL;
}

static bool cm_ulp_wait(struct cm_ulp_conn *c, unsigned int secs)
{
	return wait_for_completion_timeout(&c->event, secs * HZ);
}

/* One connection; prints its KTAP line as test @n. */
static void cm_ulp_connect(struct cm_ulp *u, unsigned int n,
			   const struct ib_gid_attr *sgid_attr,
			   const union ib_gid *dgid, const u8 *mac)
{
	struct ib_cm_req_param req = {
		.ppath_sgid_attr = sgid_attr,
		.service_id = cpu_to_be64(sid),
		.qp_type = IB_QPT_RC,
		.private_data = CLIENT_HELLO,
		.private_data_len = sizeof(CLIENT_HELLO),
		.responder_resources = 1,
		.initiator_depth = 1,
		.remote_cm_response_timeout = cm_timeout,
		.local_cm_response_timeout = 20,
		.flow_control = 1,
		.retry_count = 7,
		.rnr_retry_count = 7,
		.max_cm_retries = cm_retries,
	};
	struct ib_qp_attr init = {
		.qp_state = IB_QPS_INIT,
		.port_num = u->port,
		.qp_access_flags = IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	struct sa_path_rec path;
	struct cm_ulp_conn *c;
	const char *why = NULL;
	unsigned long start = jiffies;
	int ret;

	c = cm_ulp_conn_new(u);
	if (!c) {
		pr_info("not ok %u connection %u # no QP\n", n, n);
		return;
	}
	c->cm_id = ib_create_cm_id(u->dev, cm_ulp_client_handler, c);
	if (IS_ERR(c->cm_id)) {
		pr_info("not ok %u connection %u # no CM ID: %ld\n", n, n,
			PTR_ERR(c->cm_id));
		c->cm_id = NULL;
		goto out;
	}
	cm_ulp_path(u, &path, sgid_attr, dgid, mac);
	req.primary_path = &path;
	req.qp_num = c->qp->qp_num;
	req.starting_psn = get_random_u32() & 0xffffff;
	/* INIT before the REQ: the REP may come at once. */
	ret = ib_modify_qp(c->qp, &init, IB_QP_STATE | IB_QP_PKEY_INDEX |
			   IB_QP_PORT | IB_QP_ACCESS_FLAGS) ?:
	      cm_ulp_post_recv(u, c, 0) ?: ib_send_cm_req(c->cm_id, &req);
	if (ret) {
		pr_info("not ok %u connection %u # REQ: %d\n", n, n, ret);
		goto out;
	}
	if (!cm_ulp_wait(c, wait)) {
		why = "no answer to the REQ";
	} else if (!strcmp(expect, "reject")) {
		if (c->last != IB_CM_REJ_RECEIVED ||
		    c->rej_reason != IB_CM_REJ_CONSUMER_DEFINED ||
		    !c->rej_pdata_ok)
			why = "not rejected by the server with its private data";
	} else if (!strcmp(expect, "noservice")) {
		if (c->last != IB_CM_REJ_RECEIVED ||
		    c->rej_reason != IB_CM_REJ_INVALID_SERVICE_ID)
			why = "not rejected with invalid service ID";
	} else if (!strcmp(expect, "unreachable")) {
		if (c->last != IB_CM_REQ_ERROR)
			why = "the REQ did not end in IB_CM_REQ_ERROR";
	} else if (c->last != IB_CM_REP_RECEIVED || !c->rep_pdata_ok) {
		why = c->last == IB_CM_REJ_RECEIVED ?
			"rejected" : "no REP with the server's private data";
	} else {
		why = cm_ulp_pingpong(u, c, n);
		if (!why) {
			reinit_completion(&c->event);
			ret = ib_send_cm_dreq(c->cm_id, NULL, 0);
			if (ret)
				why = "DREQ not sent";
			else if (!cm_ulp_wait(c, 60) ||
				 (c->last != IB_CM_DREP_RECEIVED &&
				  c->last != IB_CM_DREQ_RECEIVED))
				why = "no DREP";
		}
	}
	if (why)
		pr_info("not ok %u connection %u # %s (last event %d, REJ reason %d)\n",
			n, n, why, c->last, c->rej_reason);
	else
		pr_info("ok %u connection %u: %s after %u ms\n", n, n, expect,
			jiffies_to_msecs(jiffies - start));
out:
	cm_ulp_conn_free(u, c);
}

static void cm_ulp_client(struct cm_ulp *u)
{
	const struct ib_gid_attr *sgid_attr;
	union ib_gid dgid;
	u8 mac[ETH_ALEN];
	unsigned int n;
	int index;

	pr_info("1..%u\n", conns);
	index = rdma_ulp_find_sgid(u->dev, u->port, !strcmp(gid, "ipv4"));
	if (index < 0 || rdma_ulp_parse_peer(dest, dmac, &dgid, mac)) {
		pr_info("not ok 1 connection 1 # no source GID or bad dest/dmac\n");
		return;
	}
	sgid_attr = rdma_get_gid_attr(u->dev, u->port, index);
	if (IS_ERR(sgid_attr)) {
		pr_info("not ok 1 connection 1 # GID %d gone\n", index);
		return;
	}
	for (n = 1; n <= conns; n++)
		cm_ulp_connect(u, n, sgid_attr, &dgid, mac);
	rdma_put_gid_attr(sgid_attr);
}

static void cm_ulp_work(struct work_struct *work)
{
	struct cm_ulp *u = container_of(work, struct cm_ulp, work);

	pr_info("KTAP version 1\n");
	pr_info("# suite: rdma_ibcm_ulp %s on %s port %u\n", mode,
		dev_name(&u->dev->dev), u->port);
	if (!strcmp(mode, "server"))
		cm_ulp_serve(u);
	else
		cm_ulp_client(u);
}

static int cm_ulp_add(struct ib_device *dev)
{
	struct cm_ulp *u;

	if (cm_ulp || (ibdev && strcmp(ibdev, dev_name(&dev->dev))) ||
	    !rdma_protocol_roce(dev, rdma_start_port(dev)))
		return 0;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	u->dev = dev;
	u->port = rdma_start_port(dev);
	spin_lock_init(&u->lock);
	INIT_LIST_HEAD(&u->conns);
	init_completion(&u->all_closed);
	INIT_WORK(&u->work, cm_ulp_work);
	u->wq = alloc_workqueue("rdma_ibcm_ulp", WQ_UNBOUND, 0);
	if (!u->wq) {
		kfree(u);
		return -ENOMEM;
	}
	u->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(u->pd)) {
		destroy_workqueue(u->wq);
		kfree(u);
		return 0;
	}
	cm_ulp = u;
	queue_work(u->wq, &u->work);
	return 0;
}

static void cm_ulp_remove(struct ib_device *dev, void *client_data)
{
	struct cm_ulp *u = cm_ulp;
	struct cm_ulp_conn *c, *tmp;

	if (!u || u->dev != dev)
		return;
	cancel_work_sync(&u->work);
	if (!IS_ERR_OR_NULL(u->listen))
		ib_destroy_cm_id(u->listen);
	destroy_workqueue(u->wq);
	list_for_each_entry_safe(c, tmp, &u->conns, node)
		cm_ulp_conn_free(u, c);
	ib_dealloc_pd(u->pd);
	cm_ulp = NULL;
	kfree(u);
}

static struct ib_client cm_ulp_client_ops = {
	.name = "rdma_ibcm_ulp",
	.add = cm_ulp_add,
	.remove = cm_ulp_remove,
};

static int __init cm_ulp_init(void)
{
	if ((strcmp(mode, "client") && strcmp(mode, "server")) ||
	    (strcmp(expect, "connect") && strcmp(expect, "reject") &&
	     strcmp(expect, "noservice") && strcmp(expect, "unreachable")) ||
	    (strcmp(gid, "ipv4") && strcmp(gid, "ipv6")) || !conns ||
	    cm_retries > 15 || cm_timeout > 31)
		return -EINVAL;
	return ib_register_client(&cm_ulp_client_ops);
}

static void __exit cm_ulp_exit(void)
{
	ib_unregister_client(&cm_ulp_client_ops);
}

module_init(cm_ulp_init);
module_exit(cm_ulp_exit);

MODULE_DESCRIPTION("InfiniBand CM ULP for RDMA interoperability tests");
MODULE_LICENSE("GPL");
