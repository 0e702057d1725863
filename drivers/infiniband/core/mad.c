// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * MAD agents and their sends: registration, send buffers, posting with a
 * wait for the response, retransmission, cancellation, and the end of
 * every send reported once to its agent.  The receive side and the QP of
 * each port are in mad_port.c; the rules both follow are in mad_priv.h.
 */
#include <linux/jiffies.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"
#include "mad_priv.h"

/* Agents by hi_tid, for routing responses; RCU-safe loads. */
static DEFINE_XARRAY_FLAGS(mad_agents, XA_FLAGS_ALLOC1);
static u32 mad_next_hi_tid;

static struct ib_mad_agent_priv *to_priv(struct ib_mad_agent *agent)
{
	return container_of(agent, struct ib_mad_agent_priv, agent);
}

static struct ib_mad_tx *to_tx(struct ib_mad_send_buf *buf)
{
	return container_of(buf, struct ib_mad_tx, send_buf);
}

/**
 * ib_response_mad - is a MAD an answer to a request?
 * @hdr: its header
 *
 * Responses have the R bit of the method set; TrapRepress answers a Trap,
 * and a Baseboard Management MAD says so in its attribute modifier.
 *
 * Return: nonzero for a response.
 */
int ib_response_mad(const struct ib_mad_hdr *hdr)
{
	if (hdr->method & IB_MGMT_METHOD_RESP ||
	    hdr->method == IB_MGMT_METHOD_TRAP_REPRESS)
		return 1;
	return hdr->mgmt_class == IB_MGMT_CLASS_BM &&
	       (hdr->attr_mod & IB_BM_ATTR_MOD_RESP);
}
EXPORT_SYMBOL(ib_response_mad);

/**
 * ib_is_mad_class_rmpp - does a management class use RMPP?
 * @mgmt_class: the class
 *
 * Subnet administration, device management, BIS and the second vendor
 * range carry an RMPP header after the common one.
 *
 * Return: nonzero for those classes.
 */
int ib_is_mad_class_rmpp(u8 mgmt_class)
{
	switch (mgmt_class) {
	case IB_MGMT_CLASS_SUBN_ADM:
	case IB_MGMT_CLASS_DEVICE_MGMT:
	case IB_MGMT_CLASS_DEVICE_ADM:
	case IB_MGMT_CLASS_BIS:
		return 1;
	}
	return ib_mad_vendor_range2(mgmt_class);
}
EXPORT_SYMBOL(ib_is_mad_class_rmpp);

/**
 * ib_get_mad_data_offset - where the class data of a MAD starts
 * @mgmt_class: the class
 *
 * Return: the header length of the class's layout: the SA header,
 * the vendor header, the RMPP header, or just the common header.
 */
int ib_get_mad_data_offset(u8 mgmt_class)
{
	if (mgmt_class == IB_MGMT_CLASS_SUBN_ADM)
		return IB_MGMT_SA_HDR;
	if (mgmt_class == IB_MGMT_CLASS_DEVICE_MGMT ||
	    mgmt_class == IB_MGMT_CLASS_DEVICE_ADM ||
	    mgmt_class == IB_MGMT_CLASS_BIS)
		return IB_MGMT_DEVICE_HDR;
	if (ib_mad_vendor_range2(mgmt_class))
		return IB_MGMT_VENDOR_HDR;
	return IB_MGMT_MAD_HDR;
}
EXPORT_SYMBOL(ib_get_mad_data_offset);

/* Would @a and @b both take some request?  Port lock held. */
static bool mad_regs_overlap(const struct ib_mad_reg_req *a,
			     const struct ib_mad_reg_req *b)
{
	if (a->mgmt_class != b->mgmt_class ||
	    a->mgmt_class_version != b->mgmt_class_version)
		return false;
	if (ib_mad_vendor_range2(a->mgmt_class) && memcmp(a->oui, b->oui, 3))
		return false;
	return bitmap_intersects(a->method_mask, b->method_mask,
				 IB_MGMT_MAX_METHODS);
}

/**
 * ib_mad_agent_put - drop a reference to an agent
 * @priv: the agent
 */
void ib_mad_agent_put(struct ib_mad_agent_priv *priv)
{
	if (refcount_dec_and_test(&priv->refs))
		complete(&priv->released);
}

/**
 * ib_mad_agent_by_tid - the agent a response is for
 * @port: the port it came in on
 * @tid: its transaction ID
 *
 * Return: the agent with a reference, or NULL.
 */
struct ib_mad_agent_priv *ib_mad_agent_by_tid(struct ib_mad_port *port,
					      __be64 tid)
{
	u32 hi_tid = be64_to_cpu(tid) >> 32;
	struct ib_mad_agent_priv *priv;

	rcu_read_lock();
	priv = xa_load(&mad_agents, hi_tid);
	if (priv && (priv->port != port || !refcount_inc_not_zero(&priv->refs)))
		priv = NULL;
	rcu_read_unlock();
	return priv;
}

static void mad_timeout_work(struct work_struct *work);

/*
 * Make an agent on @port.  @reg_req, when given, is checked against the
 * port's other agents.  The MAD layer's own reply agent is made this way
 * too, before the port is published.
 */
static struct ib_mad_agent *
mad_agent_create(struct ib_mad_port *port, struct ib_mad_reg_req *reg_req,
		 ib_mad_send_handler send_handler,
		 ib_mad_recv_handler recv_handler, void *context, u32 flags)
{
	struct ib_mad_agent_priv *priv, *other;
	unsigned long irqf;
	u32 hi_tid;
	int ret;

	priv = kzalloc(sizeof(*priv), GFP_KERNEL);
	if (!priv)
		return ERR_PTR(-ENOMEM);
	priv->port = port;
	priv->agent.device = port->device;
	priv->agent.qp = port->qp;
	priv->agent.port_num = port->port_num;
	priv->agent.send_handler = send_handler;
	priv->agent.recv_handler = recv_handler;
	priv->agent.context = context;
	priv->agent.flags = flags;
	INIT_LIST_HEAD(&priv->agent.mad_agent_sec_list);
	if (reg_req) {
		priv->reg = *reg_req;
		priv->has_reg = true;
	}
	INIT_LIST_HEAD(&priv->sends);
	INIT_DELAYED_WORK(&priv->timeout_work, mad_timeout_work);
	refcount_set(&priv->refs, 1);
	init_completion(&priv->released);

	ret = xa_alloc_cyclic(&mad_agents, &hi_tid, priv, xa_limit_32b,
			      &mad_next_hi_tid, GFP_KERNEL);
	if (ret < 0) {
		kfree(priv);
		return ERR_PTR(ret);
	}
	priv->agent.hi_tid = hi_tid;

	spin_lock_irqsave(&port->lock, irqf);
	ret = port->closing ? -ENODEV : 0;
	list_for_each_entry(other, &port->agents, port_node) {
		if (ret || !priv->has_reg || !other->has_reg)
			continue;
		if (mad_regs_overlap(&priv->reg, &other->reg))
			ret = -EINVAL;
	}
	if (!ret)
		list_add_tail(&priv->port_node, &port->agents);
	spin_unlock_irqrestore(&port->lock, irqf);
	if (ret) {
		ibdev_dbg(port->device,
			  "port %u: MAD agent refused: %s\n", port->port_num,
			  ret == -EINVAL ? "another agent has one of its methods" :
					   "the port is going away");
		xa_erase(&mad_agents, hi_tid);
		kfree(priv);
		return ERR_PTR(ret);
	}
	return &priv->agent;
}

/**
 * ib_mad_reply_agent - the agent that sends a port's own answers
 * @port: the port, being opened
 * @send_handler: frees each answer
 *
 * Return: the agent, or ERR_PTR().
 */
struct ib_mad_agent *ib_mad_reply_agent(struct ib_mad_port *port,
					ib_mad_send_handler send_handler)
{
	return mad_agent_create(port, NULL, send_handler, NULL, NULL, 0);
}

/**
 * ib_register_mad_agent - start sending and receiving MADs on a port
 * @device: the device
 * @port_num: the port
 * @qp_type: IB_QPT_GSI (QP 1); IB_QPT_SMI is refused, no port served
 *	here has a subnet management interface
 * @mad_reg_req: the requests the agent takes, or NULL to get only the
 *	responses to its own sends
 * @rmpp_version: 0; RMPP is not provided
 * @send_handler: reports the end of each send
 * @recv_handler: gets requests and responses; needed with @mad_reg_req
 *	and for sends that wait for a response
 * @context: the caller's own, in the agent
 * @registration_flags: kept in the agent
 *
 * Context: process context.
 * Return: the agent, or ERR_PTR(): -EPROTONOSUPPORT for an SMI agent,
 * -ENODEV when the port has no MAD layer, -EOPNOTSUPP for RMPP, -EINVAL
 * for a bad request or one that asks for a method another agent of the
 * port already takes, -ENOMEM.
 */
struct ib_mad_agent *ib_register_mad_agent(struct ib_device *device,
					   u32 port_num,
					   enum ib_qp_type qp_type,
					   struct ib_mad_reg_req *mad_reg_req,
					   u8 rmpp_version,
					   ib_mad_send_handler send_handler,
					   ib_mad_recv_handler recv_handler,
					   void *context,
					   u32 registration_flags)
{
	struct ib_mad_port *port;
	const char *why = NULL;
	int ret = -EINVAL;

	if (qp_type == IB_QPT_SMI) {
		why = "no subnet management interface (QP 0) here";
		ret = -EPROTONOSUPPORT;
	} else if (qp_type != IB_QPT_GSI) {
		why = "not a QP type of the MAD layer";
	} else if (rmpp_version) {
		why = "RMPP is not provided";
		ret = -EOPNOTSUPP;
	} else if (mad_reg_req && !recv_handler) {
		why = "asks for requests without a receive handler";
	} else if (mad_reg_req &&
		   (mad_reg_req->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
		    mad_reg_req->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)) {
		why = "subnet management classes are not received on QP 1";
	}
	if (why) {
		ibdev_dbg(device, "port %u: MAD agent refused: %s\n", port_num,
			  why);
		return ERR_PTR(ret);
	}

	port = ib_mad_port_get(device, port_num);
	if (!port) {
		ibdev_dbg(device, "port %u: no MAD layer on it\n", port_num);
		return ERR_PTR(-ENODEV);
	}
	return mad_agent_create(port, mad_reg_req, send_handler, recv_handler,
				context, registration_flags);
}
EXPORT_SYMBOL(ib_register_mad_agent);

/* The end of @tx's DMA mapping and of its hold on the agent's count. */
static void mad_tx_unmap(struct ib_mad_tx *tx)
{
	ib_dma_unmap_single(tx->agent->port->device, tx->dma,
			    IB_MGMT_MAD_SIZE, DMA_TO_DEVICE);
}

/* May @tx be reported now (port lock held)?  Outstanding, nothing busy. */
static bool mad_tx_is_done(const struct ib_mad_tx *tx)
{
	return tx->outstanding && !tx->posted && !tx->waiting &&
	       !tx->matching;
}

/* Port lock held: @tx ends; it moves from its agent's sends to @done. */
static void mad_tx_retire(struct ib_mad_tx *tx, struct list_head *done)
{
	tx->outstanding = false;
	list_move_tail(&tx->node, done);
}

/* Tell the agent how @tx ended; it is off its list, port lock not held. */
static void mad_tx_report(struct ib_mad_tx *tx)
{
	struct ib_mad_agent_priv *priv = tx->agent;
	struct ib_mad_send_wc wc = {
		.send_buf = &tx->send_buf,
		.status = tx->status,
		.vendor_err = tx->vendor_err,
	};

	mad_tx_unmap(tx);
	if (tx->status == IB_WC_RESP_TIMEOUT_ERR)
		atomic64_inc(&priv->port->stats.tx_timeouts);
	priv->agent.send_handler(&priv->agent, &wc);
	ib_mad_agent_put(priv);
}

static void mad_report_list(struct list_head *done)
{
	struct ib_mad_tx *tx, *next;

	list_for_each_entry_safe(tx, next, done, node) {
		list_del_init(&tx->node);
		mad_tx_report(tx);
	}
}

/* Port lock held: make sure the agent's timeout work runs by @deadline. */
static void mad_arm_timeout(struct ib_mad_agent_priv *priv,
			    unsigned long deadline)
{
	unsigned long now = jiffies;
	unsigned long delay = time_after(deadline, now) ? deadline - now : 0;

	if (!delayed_work_pending(&priv->timeout_work) ||
	    time_before(deadline, priv->timeout_work.timer.expires))
		mod_delayed_work(priv->port->wq, &priv->timeout_work, delay);
}

/*
 * Port lock held: put @tx on the wire, or in line for the send queue.  On
 * failure it is not posted and @tx->status says why.
 */
static void mad_tx_start(struct ib_mad_port *port, struct ib_mad_tx *tx)
{
	int ret;

	tx->posted = true;
	atomic64_inc(&port->stats.tx);
	if (port->sq_used >= port->sq_size) {
		list_add_tail(&tx->queued, &port->overflow);
		return;
	}
	ret = ib_post_send(port->qp, &tx->wr.wr, NULL);
	if (ret) {
		ibdev_dbg(port->device, "port %u: MAD send not posted: %d\n",
			  port->port_num, ret);
		tx->posted = false;
		tx->status = IB_WC_GENERAL_ERR;
		return;
	}
	port->sq_used++;
}

/*
 * Post the sends waiting for room, as room allows (port lock held).
 * Sends that cannot be posted end with IB_WC_GENERAL_ERR, reported by
 * their agent's timeout work.
 */
static void mad_port_unqueue(struct ib_mad_port *port)
{
	struct ib_mad_tx *tx;
	int ret;

	while (port->sq_used < port->sq_size && !list_empty(&port->overflow)) {
		tx = list_first_entry(&port->overflow, struct ib_mad_tx,
				      queued);
		list_del_init(&tx->queued);
		ret = port->closing ? -ENODEV :
				      ib_post_send(port->qp, &tx->wr.wr, NULL);
		if (!ret) {
			port->sq_used++;
			continue;
		}
		ibdev_dbg(port->device, "port %u: queued MAD send not posted: %d\n",
			  port->port_num, ret);
		tx->posted = false;
		tx->status = IB_WC_GENERAL_ERR;
		/* Reported by the agent's timeout work, which sees it done. */
		mad_arm_timeout(tx->agent, jiffies);
	}
}

/* Send completion on the GSI QP. */
static void mad_tx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_tx *tx = container_of(wc->wr_cqe, struct ib_mad_tx, cqe);
	struct ib_mad_agent_priv *priv = tx->agent;
	struct ib_mad_port *port = priv->port;
	unsigned long irqf;
	LIST_HEAD(done);

	spin_lock_irqsave(&port->lock, irqf);
	port->sq_used--;
	tx->posted = false;
	if (wc->status != IB_WC_SUCCESS) {
		if (tx->status == IB_WC_SUCCESS) {
			tx->status = wc->status;
			tx->vendor_err = wc->vendor_err;
		}
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			ibdev_dbg(port->device, "port %u: MAD send failed: %s\n",
				  port->port_num, ib_wc_status_msg(wc->status));
	} else if (tx->status == IB_WC_SUCCESS && !tx->responded &&
		   tx->send_buf.timeout_ms > 0) {
		tx->waiting = true;
		tx->deadline = jiffies +
			       msecs_to_jiffies(tx->send_buf.timeout_ms);
		mad_arm_timeout(priv, tx->deadline);
	}
	if (mad_tx_is_done(tx))
		mad_tx_retire(tx, &done);
	mad_port_unqueue(port);
	if (port->closing && !port->sq_used && !port->rx_posted)
		wake_up(&port->drained);
	spin_unlock_irqrestore(&port->lock, irqf);
	mad_report_list(&done);
}

/*
 * End the waits of @priv whose time is up: retransmit while retries
 * remain, else report a timeout.  Sends that ended while queued (see
 * mad_port_unqueue()) and cancelled ones (ib_modify_mad()) are reported
 * here too.
 */
static void mad_timeout_work(struct work_struct *work)
{
	struct ib_mad_agent_priv *priv =
		container_of(work, struct ib_mad_agent_priv, timeout_work.work);
	struct ib_mad_port *port = priv->port;
	unsigned long now = jiffies, next = 0;
	struct ib_mad_tx *tx, *tmp;
	bool rearm = false;
	unsigned long irqf;
	LIST_HEAD(done);

	spin_lock_irqsave(&port->lock, irqf);
	list_for_each_entry_safe(tx, tmp, &priv->sends, node) {
		if (tx->waiting && time_after_eq(now, tx->deadline)) {
			tx->waiting = false;
			if (tx->retries_left > 0 && !port->closing) {
				tx->retries_left--;
				tx->send_buf.retries++;
				mad_tx_start(port, tx);
			} else {
				tx->status = IB_WC_RESP_TIMEOUT_ERR;
			}
		}
		if (mad_tx_is_done(tx)) {
			mad_tx_retire(tx, &done);
		} else if (tx->waiting && (!rearm || time_before(tx->deadline, next))) {
			next = tx->deadline;
			rearm = true;
		}
	}
	if (rearm)
		mad_arm_timeout(priv, next);
	spin_unlock_irqrestore(&port->lock, irqf);
	mad_report_list(&done);
}

/**
 * ib_unregister_mad_agent - stop an agent
 * @mad_agent: the agent
 *
 * Its sends that wait for a response end with IB_WC_WR_FLUSH_ERR at once,
 * those on the wire when their completion comes; every send handler call
 * and every receive handler call has returned when this does.
 *
 * Context: process context; sleeps.  Not from the agent's own handlers.
 */
void ib_unregister_mad_agent(struct ib_mad_agent *mad_agent)
{
	struct ib_mad_agent_priv *priv = to_priv(mad_agent);
	struct ib_mad_port *port = priv->port;
	struct ib_mad_tx *tx, *tmp;
	unsigned long irqf;
	LIST_HEAD(done);

	spin_lock_irqsave(&port->lock, irqf);
	list_del(&priv->port_node);
	list_for_each_entry_safe(tx, tmp, &priv->sends, node) {
		if (tx->status == IB_WC_SUCCESS)
			tx->status = IB_WC_WR_FLUSH_ERR;
		tx->waiting = false;
		if (mad_tx_is_done(tx))
			mad_tx_retire(tx, &done);
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	mad_report_list(&done);

	xa_erase(&mad_agents, mad_agent->hi_tid);
	ib_mad_agent_put(priv);
	wait_for_completion(&priv->released);
	/* Nothing can arm it any more: no send of the agent is left. */
	cancel_delayed_work_sync(&priv->timeout_work);
	kfree_rcu(priv, rcu);
}
EXPORT_SYMBOL(ib_unregister_mad_agent);

/**
 * ib_create_send_mad - allocate a MAD to send
 * @mad_agent: the agent that will send it
 * @remote_qpn: destination QP (1 for a class manager on GSI)
 * @pkey_index: P_Key index to send with
 * @rmpp_active: must be 0, RMPP is not provided
 * @hdr_len: header bytes of the class layout
 * @data_len: data bytes after the header; @hdr_len + @data_len <= 256
 * @gfp_mask: allocation flags
 * @base_version: IB_MGMT_BASE_VERSION
 *
 * The MAD is zeroed (a shorter layout is sent padded to 256 bytes).  The
 * caller fills it in, sets send_buf->ah, and for a request the timeout
 * and retries, then posts it.
 *
 * Return: the buffer, or ERR_PTR(-EINVAL / -EOPNOTSUPP / -ENOMEM).
 */
struct ib_mad_send_buf *ib_create_send_mad(struct ib_mad_agent *mad_agent,
					   u32 remote_qpn, u16 pkey_index,
					   int rmpp_active,
					   int hdr_len, int data_len,
					   gfp_t gfp_mask,
					   u8 base_version)
{
	struct ib_mad_agent_priv *priv = to_priv(mad_agent);
	struct ib_mad_tx *tx;

	if (rmpp_active) {
		ibdev_dbg(mad_agent->device, "MAD send buffer: no RMPP\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (base_version != IB_MGMT_BASE_VERSION || hdr_len < 0 ||
	    data_len < 0 || hdr_len + data_len > IB_MGMT_MAD_SIZE) {
		ibdev_dbg(mad_agent->device,
			  "MAD send buffer: bad version %u or lengths %d + %d\n",
			  base_version, hdr_len, data_len);
		return ERR_PTR(-EINVAL);
	}
	tx = kzalloc(sizeof(*tx), gfp_mask);
	if (!tx)
		return ERR_PTR(-ENOMEM);
	tx->agent = priv;
	INIT_LIST_HEAD(&tx->node);
	INIT_LIST_HEAD(&tx->queued);
	tx->send_buf.mad = tx->mad;
	tx->send_buf.mad_agent = mad_agent;
	tx->send_buf.hdr_len = hdr_len;
	tx->send_buf.data_len = data_len;
	tx->send_buf.seg_size = IB_MGMT_MAD_SIZE - hdr_len;
	tx->cqe.done = mad_tx_done;
	tx->sge.length = IB_MGMT_MAD_SIZE;
	tx->sge.lkey = priv->port->pd->local_dma_lkey;
	tx->wr.wr.wr_cqe = &tx->cqe;
	tx->wr.wr.sg_list = &tx->sge;
	tx->wr.wr.num_sge = 1;
	tx->wr.wr.opcode = IB_WR_SEND;
	tx->wr.wr.send_flags = IB_SEND_SIGNALED;
	tx->wr.remote_qpn = remote_qpn;
	tx->wr.remote_qkey = IB_QP_SET_QKEY;
	tx->wr.pkey_index = pkey_index;
	return &tx->send_buf;
}
EXPORT_SYMBOL(ib_create_send_mad);

/**
 * ib_free_send_mad - free a send buffer
 * @send_buf: a buffer that is not outstanding (never posted, or reported
 *	by the send handler); its AH is the caller's to destroy
 */
void ib_free_send_mad(struct ib_mad_send_buf *send_buf)
{
	struct ib_mad_tx *tx = to_tx(send_buf);

	if (WARN_ON_ONCE(tx->outstanding))
		return;
	kfree(tx);
}
EXPORT_SYMBOL(ib_free_send_mad);

/* Why @tx cannot be posted, or NULL. */
static const char *mad_post_refusal(struct ib_mad_tx *tx)
{
	struct ib_mad_agent *agent = &tx->agent->agent;

	if (tx->outstanding)
		return "already posted";
	if (!agent->send_handler)
		return "the agent has no send handler";
	if (tx->send_buf.timeout_ms < 0 || tx->send_buf.retries < 0)
		return "negative timeout or retries";
	if (tx->send_buf.timeout_ms && !agent->recv_handler)
		return "waits for a response without a receive handler";
	if (!tx->send_buf.ah)
		return "no address handle";
	if (tx->send_buf.ah->device != agent->device)
		return "address handle of another device";
	return NULL;
}

/* Where a response to @tx must come from: the DGID of its AH. */
static int mad_tx_dgid(struct ib_mad_tx *tx)
{
	struct rdma_ah_attr attr;
	int ret;

	memset(&attr, 0, sizeof(attr));
	ret = rdma_query_ah(tx->send_buf.ah, &attr);
	if (ret)
		return ret;
	if (rdma_ah_get_ah_flags(&attr) & IB_AH_GRH)
		tx->dgid = rdma_ah_read_grh(&attr)->dgid;
	else
		memset(&tx->dgid, 0, sizeof(tx->dgid));
	rdma_destroy_ah_attr(&attr);
	return 0;
}

static int mad_post_one(struct ib_mad_tx *tx)
{
	struct ib_mad_agent_priv *priv = tx->agent;
	struct ib_mad_port *port = priv->port;
	const char *why = mad_post_refusal(tx);
	unsigned long irqf;
	int ret;

	if (why) {
		ibdev_dbg(port->device, "port %u: MAD not posted: %s\n",
			  port->port_num, why);
		return -EINVAL;
	}
	ret = mad_tx_dgid(tx);
	if (ret)
		return ret;
	tx->dma = ib_dma_map_single(port->device, tx->mad, IB_MGMT_MAD_SIZE,
				    DMA_TO_DEVICE);
	if (ib_dma_mapping_error(port->device, tx->dma))
		return -ENOMEM;
	tx->sge.addr = tx->dma;
	tx->wr.ah = tx->send_buf.ah;
	tx->retries_left = tx->send_buf.retries;
	tx->send_buf.retries = 0;
	tx->status = IB_WC_SUCCESS;
	tx->vendor_err = 0;
	tx->responded = false;

	spin_lock_irqsave(&port->lock, irqf);
	if (port->closing) {
		tx->status = IB_WC_WR_FLUSH_ERR;
	} else {
		mad_tx_start(port, tx);
		if (tx->posted) {
			tx->outstanding = true;
			refcount_inc(&priv->refs);
			list_add_tail(&tx->node, &priv->sends);
		}
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	if (tx->posted)
		return 0;
	mad_tx_unmap(tx);
	return tx->status == IB_WC_WR_FLUSH_ERR ? -ENODEV : -EIO;
}

/**
 * ib_post_send_mad - send MADs
 * @send_buf: the first of a chain linked by send_buf->next
 * @bad_send_buf: set to the first buffer not posted, on failure
 *
 * Each buffer is outstanding until its send handler call.  With a
 * timeout, a buffer waits that long for its response after each
 * transmission and is sent again, unchanged, while retries remain.
 *
 * Context: any.
 * Return: 0, or -EINVAL (see the agent's and buffer's requirements),
 * -ENODEV (the port is going away), -ENOMEM or -EIO; the buffers before
 * the bad one were posted.
 */
int ib_post_send_mad(struct ib_mad_send_buf *send_buf,
		     struct ib_mad_send_buf **bad_send_buf)
{
	int ret;

	for (; send_buf; send_buf = send_buf->next) {
		ret = mad_post_one(to_tx(send_buf));
		if (ret) {
			if (bad_send_buf)
				*bad_send_buf = send_buf;
			return ret;
		}
	}
	return 0;
}
EXPORT_SYMBOL(ib_post_send_mad);

/**
 * ib_modify_mad - change how long a send waits for its response
 * @send_buf: an outstanding send
 * @timeout_ms: the new wait, from now if it is waiting (else from the end
 *	of its transmission); 0 cancels it (IB_WC_WR_FLUSH_ERR)
 *
 * A cancelled send is reported from the MAD layer's workqueue, never from
 * within this call, so the caller may hold locks its send handler takes.
 *
 * Context: any.
 * Return: 0, or -EINVAL when the send is no longer outstanding or its
 * response already came.
 */
int ib_modify_mad(struct ib_mad_send_buf *send_buf, u32 timeout_ms)
{
	struct ib_mad_tx *tx = to_tx(send_buf);
	struct ib_mad_agent_priv *priv = tx->agent;
	struct ib_mad_port *port = priv->port;
	unsigned long irqf;
	int ret = 0;

	spin_lock_irqsave(&port->lock, irqf);
	if (!tx->outstanding || tx->responded ||
	    tx->status != IB_WC_SUCCESS) {
		ret = -EINVAL;
	} else if (!timeout_ms) {
		/*
		 * Reported by the agent's timeout work, never from here:
		 * callers cancel with their own locks held, and the send
		 * handler takes them.
		 */
		tx->status = IB_WC_WR_FLUSH_ERR;
		tx->waiting = false;
		mad_arm_timeout(priv, jiffies);
	} else {
		tx->send_buf.timeout_ms = min_t(u32, timeout_ms, INT_MAX);
		if (tx->waiting) {
			tx->deadline = jiffies + msecs_to_jiffies(timeout_ms);
			mad_arm_timeout(priv, tx->deadline);
		}
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	return ret;
}
EXPORT_SYMBOL(ib_modify_mad);

/* Did the response in @rx come from where @tx went? */
static bool mad_from_dest(const struct ib_mad_tx *tx,
			  const struct ib_mad_rx *rx)
{
	const struct ib_grh *grh = (const struct ib_grh *)rx->buf;
	struct ib_mad_port *port = rx->port;
	bool tx_grh = memchr_inv(&tx->dgid, 0, sizeof(tx->dgid));
	union ib_gid sgid, dgid;

	if (!(rx->wc.wc_flags & IB_WC_GRH))
		return !tx_grh;
	if (!tx_grh)
		return false;
	if (ib_get_gids_from_rdma_hdr((const union rdma_network_hdr *)grh,
				      ib_wc_net_type(port->device,
						     port->port_num, &rx->wc,
						     grh),
				      &sgid, &dgid))
		return false;
	return !memcmp(&sgid, &tx->dgid, sizeof(sgid));
}

/**
 * ib_mad_deliver_response - hand a response to the send it answers
 * @priv: the agent its TID names, referenced
 * @rx: the response
 *
 * The send must be outstanding, not yet answered, of the same class and
 * TID, and its AH must point where the response came from.  The agent's
 * receive handler gets @rx; the send then ends with success (once off
 * the wire).
 *
 * Return: false when no send matched; @rx is still the caller's then.
 */
bool ib_mad_deliver_response(struct ib_mad_agent_priv *priv,
			     struct ib_mad_rx *rx)
{
	const struct ib_mad_hdr *hdr = &rx->recv_wc.recv_buf.mad->mad_hdr;
	struct ib_mad_port *port = priv->port;
	struct ib_mad_tx *tx, *found = NULL;
	const struct ib_mad_hdr *req;
	unsigned long irqf;
	LIST_HEAD(done);

	if (!priv->agent.recv_handler)
		return false;
	spin_lock_irqsave(&port->lock, irqf);
	list_for_each_entry(tx, &priv->sends, node) {
		req = (const struct ib_mad_hdr *)tx->mad;
		if (tx->responded || tx->status != IB_WC_SUCCESS ||
		    req->tid != hdr->tid || req->mgmt_class != hdr->mgmt_class ||
		    !mad_from_dest(tx, rx))
			continue;
		found = tx;
		break;
	}
	if (found) {
		found->responded = true;
		found->matching = true;
		found->waiting = false;
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	if (!found)
		return false;

	priv->agent.recv_handler(&priv->agent, &found->send_buf, &rx->recv_wc);

	spin_lock_irqsave(&port->lock, irqf);
	found->matching = false;
	if (mad_tx_is_done(found))
		mad_tx_retire(found, &done);
	spin_unlock_irqrestore(&port->lock, irqf);
	mad_report_list(&done);
	return true;
}
