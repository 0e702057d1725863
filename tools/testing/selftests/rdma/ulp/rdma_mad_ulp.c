// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel ULP of the MAD layer: it registers a MAD agent on the first
 * RoCE port and sends or answers management datagrams on QP 1, the way
 * class managers and their clients do.  It uses the upstream MAD API only
 * (ib_register_mad_agent(), ib_create_send_mad(), ib_post_send_mad(),
 * ib_create_ah_from_wc()), so the same source builds against this tree and
 * against the stock kernel, and the two MAD layers are tested against each
 * other on the wire.
 *
 * mode=get     send @count GET requests of class @mclass (version 1) to
 *              QP 1 of @dest (@dmac), one at a time, each waiting
 *              @timeout_ms for its response with @retries retransmissions.
 *              expect=unsupported: nothing on the peer takes the class, so
 *              its MAD layer must answer with the request back, method
 *              GET_RESP, status 0x000C.  expect=answer: the peer runs
 *              mode=serve, whose answer has status 0 and the request's data
 *              bit-inverted.  Either way the response must be matched to
 *              its send (the send ends with success).
 * mode=serve   take the GET requests of @mclass version 1 and answer each
 *              as above, through an AH made from its receive completion;
 *              ends when @count are answered or after @wait seconds.
 * mode=silent  send @count requests of method SEND, which nothing answers:
 *              each must end with a response timeout after @retries
 *              retransmissions (1 + @retries copies on the wire).
 *
 * Results are printed as KTAP.  gid=ipv6 sends from the port's first IPv6
 * GID instead of its IPv4-mapped one.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>

#include "rdma_ulp_util.h"

#define MAD_ULP_ATTR		0x0010
#define MAD_ULP_VERSION		1

static char *mode = "get";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode, "get, serve or silent");
static char *ibdev;
module_param(ibdev, charp, 0444);
MODULE_PARM_DESC(ibdev, "RDMA device to use (default: the first RoCE one)");
static char *dest;
module_param(dest, charp, 0444);
MODULE_PARM_DESC(dest, "get/silent: the peer's IPv4 or IPv6 address (its GID)");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "get/silent: the peer's MAC address");
static char *gid = "ipv4";
module_param(gid, charp, 0444);
MODULE_PARM_DESC(gid, "source GID: ipv4 (IPv4-mapped) or ipv6 (first IPv6 one)");
static uint count = 16;
module_param(count, uint, 0444);
MODULE_PARM_DESC(count, "requests to send, or to answer");
static uint mclass = 0x09;
module_param(mclass, uint, 0444);
MODULE_PARM_DESC(mclass, "management class of the requests (not 0x01, 0x81, 0x07 or RMPP classes)");
static char *expect = "unsupported";
module_param(expect, charp, 0444);
MODULE_PARM_DESC(expect, "get: unsupported (the peer's MAD layer answers 0x000C) or answer (a serving peer)");
static uint timeout_ms = 1000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms, "wait for each response, per transmission");
static uint retries = 3;
module_param(retries, uint, 0444);
MODULE_PARM_DESC(retries, "retransmissions of a request left unanswered");
static uint wait = 60;
module_param(wait, uint, 0444);
MODULE_PARM_DESC(wait, "serve: seconds to wait for @count requests");

/* One request in flight (get/silent) and what became of it. */
struct mad_ulp_req {
	struct completion	done;
	enum ib_wc_status	status;
	int			retries;
	bool			answered;
	u8			resp[IB_MGMT_MAD_SIZE];
};

struct mad_ulp {
	struct ib_device	*dev;
	u32			port;
	struct ib_mad_agent	*agent;
	struct work_struct	work;
	/* serve: requests answered, reply sends not yet ended */
	atomic_t		served;
	atomic_t		replies_out;
	atomic_t		bad;
	struct completion	all_served;
	wait_queue_head_t	replies_wq;
};

static struct mad_ulp *mad_ulp;

/* Byte @j of the data of request @i. */
static u8 mad_ulp_byte(unsigned int i, unsigned int j)
{
	return (u8)(i * 131 + j * 7 + 1);
}

static void mad_ulp_build(struct mad_ulp *u, struct ib_mad *mad, u8 method,
			  unsigned int i)
{
	unsigned int j;

	mad->mad_hdr.base_version = IB_MGMT_BASE_VERSION;
	mad->mad_hdr.mgmt_class = mclass;
	mad->mad_hdr.class_version = MAD_ULP_VERSION;
	mad->mad_hdr.method = method;
	mad->mad_hdr.tid = cpu_to_be64((u64)u->agent->hi_tid << 32 | (i + 1));
	mad->mad_hdr.attr_id = cpu_to_be16(MAD_ULP_ATTR);
	mad->mad_hdr.attr_mod = cpu_to_be32(i);
	for (j = 0; j < IB_MGMT_MAD_DATA; j++)
		mad->data[j] = mad_ulp_byte(i, j);
}

/* Is @resp the right answer to request @req?  Says why not in @why. */
static bool mad_ulp_check(const struct ib_mad *req, const struct ib_mad *resp,
			  const char **why)
{
	bool answer = !strcmp(expect, "answer");
	u16 status = answer ? 0 : IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	unsigned int j;

	if (resp->mad_hdr.method != IB_MGMT_METHOD_GET_RESP) {
		*why = "method not GET_RESP";
		return false;
	}
	if (be16_to_cpu(resp->mad_hdr.status) != status) {
		*why = "wrong status";
		return false;
	}
	if (resp->mad_hdr.tid != req->mad_hdr.tid ||
	    resp->mad_hdr.mgmt_class != req->mad_hdr.mgmt_class ||
	    resp->mad_hdr.class_version != req->mad_hdr.class_version ||
	    resp->mad_hdr.attr_id != req->mad_hdr.attr_id ||
	    resp->mad_hdr.attr_mod != req->mad_hdr.attr_mod) {
		*why = "header not the request's";
		return false;
	}
	for (j = 0; j < IB_MGMT_MAD_DATA; j++) {
		u8 want = answer ? ~req->data[j] : req->data[j];

		if (resp->data[j] != want) {
			*why = "data differ";
			return false;
		}
	}
	return true;
}

static void mad_ulp_send_done(struct ib_mad_agent *agent,
			      struct ib_mad_send_wc *wc)
{
	struct mad_ulp_req *req = wc->send_buf->context[0];

	req->status = wc->status;
	req->retries = wc->send_buf->retries;
	complete(&req->done);
}

static void mad_ulp_recv(struct ib_mad_agent *agent,
			 struct ib_mad_send_buf *send_buf,
			 struct ib_mad_recv_wc *wc)
{
	struct mad_ulp_req *req = send_buf ? send_buf->context[0] : NULL;

	if (req) {
		memcpy(req->resp, wc->recv_buf.mad, IB_MGMT_MAD_SIZE);
		req->answered = true;
	}
	ib_free_recv_mad(wc);
}

static struct ib_ah *mad_ulp_ah(struct mad_ulp *u, int *err)
{
	struct rdma_ah_attr attr;
	union ib_gid dgid;
	u8 mac[ETH_ALEN];
	struct ib_ah *ah;
	int sgid_index;

	sgid_index = rdma_ulp_find_sgid(u->dev, u->port, !strcmp(gid, "ipv4"));
	*err = rdma_ulp_parse_peer(dest, dmac, &dgid, mac);
	if (!*err && sgid_index < 0)
		*err = -ENODATA;
	if (*err)
		return NULL;
	rdma_ulp_roce_ah_attr(u->dev, u->port, &dgid, sgid_index, mac, &attr);
	ah = rdma_create_ah(u->agent->qp->pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
	*err = PTR_ERR_OR_ZERO(ah);
	return IS_ERR(ah) ? NULL : ah;
}

/* Send request @i and wait for its end; 0 or the error of the post. */
static int mad_ulp_one(struct mad_ulp *u, struct ib_ah *ah, u8 method,
		       unsigned int i, struct mad_ulp_req *req,
		       struct ib_mad *sent)
{
	struct ib_mad_send_buf *buf;
	int ret;

	buf = ib_create_send_mad(u->agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mad_ulp_build(u, buf->mad, method, i);
	memcpy(sent, buf->mad, IB_MGMT_MAD_SIZE);
	memset(req, 0, sizeof(*req));
	init_completion(&req->done);
	buf->ah = ah;
	buf->timeout_ms = timeout_ms;
	buf->retries = retries;
	buf->context[0] = req;
	ret = ib_post_send_mad(buf, NULL);
	if (!ret)
		wait_for_completion(&req->done);
	ib_free_send_mad(buf);
	return ret;
}

static void mad_ulp_requests(struct mad_ulp *u)
{
	bool silent = !strcmp(mode, "silent");
	u8 method = silent ? IB_MGMT_METHOD_SEND : IB_MGMT_METHOD_GET;
	struct mad_ulp_req *req;
	struct ib_mad *sent;
	const char *why;
	struct ib_ah *ah;
	unsigned int i;
	int ret;

	pr_info("1..%u\n", count + 1);
	req = kmalloc(sizeof(*req), GFP_KERNEL);
	sent = kmalloc(sizeof(*sent), GFP_KERNEL);
	ah = req && sent ? mad_ulp_ah(u, &ret) : NULL;
	if (!ah) {
		pr_info("not ok 1 AH to %s # error %d\n", dest ?: "?",
			req && sent ? ret : -ENOMEM);
		goto out;
	}
	pr_info("ok 1 AH to %s from the %s GID, agent hi_tid %#x\n", dest, gid,
		u->agent->hi_tid);
	for (i = 0; i < count; i++) {
		ret = mad_ulp_one(u, ah, method, i, req, sent);
		why = NULL;
		if (ret)
			why = "not posted";
		else if (silent && req->status != IB_WC_RESP_TIMEOUT_ERR)
			why = "did not time out";
		else if (silent && req->retries != retries)
			why = "retransmitted another number of times";
		else if (silent && req->answered)
			why = "answered";
		else if (!silent && req->status != IB_WC_SUCCESS)
			why = "send did not end with success";
		else if (!silent && !req->answered)
			why = "no response matched";
		else if (!silent)
			mad_ulp_check(sent, (struct ib_mad *)req->resp, &why);
		if (why)
			pr_info("not ok %u %s %u # %s (post %d, status %s, retries %d)\n",
				i + 2, silent ? "unanswered SEND" : "GET", i, why,
				ret, ib_wc_status_msg(req->status),
				req->retries);
		else
			pr_info("ok %u %s %u (retries %d)\n", i + 2,
				silent ? "unanswered SEND timed out" :
					 "GET answered", i, req->retries);
	}
	rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
out:
	kfree(sent);
	kfree(req);
}

/* serve: a reply went out (or failed); its AH was made for it. */
static void mad_ulp_reply_done(struct ib_mad_agent *agent,
			       struct ib_mad_send_wc *wc)
{
	struct mad_ulp *u = agent->context;

	if (wc->status != IB_WC_SUCCESS)
		atomic_inc(&u->bad);
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
	if (atomic_dec_and_test(&u->replies_out))
		wake_up(&u->replies_wq);
}

/* serve: answer a GET with its data inverted, status 0. */
static void mad_ulp_serve(struct ib_mad_agent *agent,
			  struct ib_mad_send_buf *send_buf,
			  struct ib_mad_recv_wc *wc)
{
	struct mad_ulp *u = agent->context;
	const struct ib_mad *mad = wc->recv_buf.mad;
	struct ib_mad_send_buf *buf;
	struct ib_mad *out;
	struct ib_ah *ah;
	unsigned int j;

	ah = ib_create_ah_from_wc(agent->qp->pd, wc->wc, wc->recv_buf.grh,
				  agent->port_num);
	if (IS_ERR(ah))
		goto bad;
	buf = ib_create_send_mad(agent, wc->wc->src_qp, wc->wc->pkey_index, 0,
				 IB_MGMT_MAD_HDR, IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		goto bad;
	}
	out = buf->mad;
	out->mad_hdr = mad->mad_hdr;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	out->mad_hdr.status = 0;
	for (j = 0; j < IB_MGMT_MAD_DATA; j++)
		out->data[j] = ~mad->data[j];
	buf->ah = ah;
	atomic_inc(&u->replies_out);
	if (ib_post_send_mad(buf, NULL)) {
		atomic_dec(&u->replies_out);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(buf);
		goto bad;
	}
	if (atomic_inc_return(&u->served) == count)
		complete(&u->all_served);
	ib_free_recv_mad(wc);
	return;
bad:
	atomic_inc(&u->bad);
	ib_free_recv_mad(wc);
}

static void mad_ulp_work(struct work_struct *work)
{
	struct mad_ulp *u = container_of(work, struct mad_ulp, work);
	int served;

	pr_info("KTAP version 1\n");
	pr_info("# suite: rdma_mad_ulp %s class %#x on %s port %u\n", mode,
		mclass, dev_name(&u->dev->dev), u->port);
	if (strcmp(mode, "serve")) {
		mad_ulp_requests(u);
		return;
	}
	pr_info("1..2\n");
	pr_info("ok 1 agent for class %#x version %u GET, hi_tid %#x\n", mclass,
		MAD_ULP_VERSION, u->agent->hi_tid);
	wait_for_completion_timeout(&u->all_served, wait * HZ);
	wait_event_timeout(u->replies_wq, !atomic_read(&u->replies_out),
			   10 * HZ);
	served = atomic_read(&u->served);
	if (served >= count && !atomic_read(&u->bad) &&
	    !atomic_read(&u->replies_out))
		pr_info("ok 2 answered %d GETs\n", served);
	else
		pr_info("not ok 2 answered %d GETs of %u # %d failed, %d replies not ended\n",
			served, count, atomic_read(&u->bad),
			atomic_read(&u->replies_out));
}

static int mad_ulp_add(struct ib_device *dev)
{
	struct ib_mad_reg_req reg = {
		.mgmt_class = mclass,
		.mgmt_class_version = MAD_ULP_VERSION,
	};
	bool serve = !strcmp(mode, "serve");
	struct mad_ulp *u;

	if (mad_ulp || (ibdev && strcmp(ibdev, dev_name(&dev->dev))) ||
	    !rdma_protocol_roce(dev, rdma_start_port(dev)))
		return 0;
	u = kzalloc(sizeof(*u), GFP_KERNEL);
	if (!u)
		return -ENOMEM;
	u->dev = dev;
	u->port = rdma_start_port(dev);
	INIT_WORK(&u->work, mad_ulp_work);
	init_completion(&u->all_served);
	init_waitqueue_head(&u->replies_wq);
	set_bit(IB_MGMT_METHOD_GET, reg.method_mask);
	u->agent = ib_register_mad_agent(dev, u->port, IB_QPT_GSI,
					 serve ? &reg : NULL, 0,
					 serve ? mad_ulp_reply_done :
						 mad_ulp_send_done,
					 serve ? mad_ulp_serve : mad_ulp_recv,
					 u, 0);
	if (IS_ERR(u->agent)) {
		pr_info("# rdma_mad_ulp: no agent on %s: %ld\n",
			dev_name(&dev->dev), PTR_ERR(u->agent));
		kfree(u);
		return 0;
	}
	mad_ulp = u;
	queue_work(system_unbound_wq, &u->work);
	return 0;
}

static void mad_ulp_remove(struct ib_device *dev, void *client_data)
{
	struct mad_ulp *u = mad_ulp;

	if (!u || u->dev != dev)
		return;
	cancel_work_sync(&u->work);
	ib_unregister_mad_agent(u->agent);
	mad_ulp = NULL;
	kfree(u);
}

static struct ib_client mad_ulp_client = {
	.name = "rdma_mad_ulp",
	.add = mad_ulp_add,
	.remove = mad_ulp_remove,
};

static int __init mad_ulp_init(void)
{
	if ((strcmp(mode, "get") && strcmp(mode, "serve") &&
	     strcmp(mode, "silent")) ||
	    (strcmp(expect, "unsupported") && strcmp(expect, "answer")) ||
	    (strcmp(gid, "ipv4") && strcmp(gid, "ipv6")) || !count ||
	    mclass > 0xff || mclass == IB_MGMT_CLASS_CM ||
	    mclass == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	    mclass == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE ||
	    ib_is_mad_class_rmpp(mclass))
		return -EINVAL;
	return ib_register_client(&mad_ulp_client);
}

static void __exit mad_ulp_exit(void)
{
	ib_unregister_client(&mad_ulp_client);
}

module_init(mad_ulp_init);
module_exit(mad_ulp_exit);

MODULE_DESCRIPTION("MAD agent ULP for RDMA interoperability tests");
MODULE_LICENSE("GPL");
