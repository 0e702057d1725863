// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The MAD layer on each port: an ib_client that gives every port with
 * MADs (rdma_cap_ib_mad()) a GSI QP with its PD, CQ and receive buffers,
 * checks every MAD that comes in, routes responses to the agent their
 * transaction ID names and requests to the agent that registered their
 * class, version and method, and answers the GET and SET requests nobody
 * takes with "unsupported method/attribute" (status 0x000C), as IBTA
 * 13.4.6.2 asks of a port.
 *
 * A receive buffer that comes back is replaced by a new one before its
 * MAD is looked at, so the receive queue stays full while agents hold
 * buffers; when no new buffer can be had, the MAD is dropped and its
 * buffer goes back on the queue.
 *
 * What each port counted is in debugfs, ib_mad/<device>/<port>.
 */
#include <linux/debugfs.h>
#include <linux/moduleparam.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"
#include "mad_priv.h"

static unsigned int mad_sendq_size = 128;
module_param_named(send_queue_size, mad_sendq_size, uint, 0444);
MODULE_PARM_DESC(send_queue_size,
		 "send work requests of each port's GSI QP (64..8192)");

static unsigned int mad_recvq_size = 512;
module_param_named(recv_queue_size, mad_recvq_size, uint, 0444);
MODULE_PARM_DESC(recv_queue_size,
		 "receive buffers of each port's GSI QP (64..8192)");

#define MAD_QUEUE_MIN	64
#define MAD_QUEUE_MAX	8192

/*
 * Client data of a device: its debugfs folder and its ports by number,
 * NULL where no MADs.
 */
struct mad_device {
	struct dentry		*dir;
	u32			nports;
	struct ib_mad_port	*port[] __counted_by(nports);
};

static struct ib_client mad_client;
static struct dentry *mad_debugfs;

/**
 * ib_mad_port_get - the MAD layer of a port
 * @device: the device
 * @port_num: the port
 *
 * Return: the port's MAD state, or NULL when it has none.
 */
struct ib_mad_port *ib_mad_port_get(struct ib_device *device, u32 port_num)
{
	struct mad_device *md = ib_get_client_data(device, &mad_client);

	if (!md || !rdma_is_port_valid(device, port_num) ||
	    port_num >= md->nports)
		return NULL;
	return md->port[port_num];
}

/* Free a receive buffer that is no longer posted. */
static void mad_rx_free(struct ib_mad_rx *rx)
{
	kfree(rx);
}

/**
 * ib_free_recv_mad - give back a received MAD
 * @mad_recv_wc: what the receive handler was handed
 */
void ib_free_recv_mad(struct ib_mad_recv_wc *mad_recv_wc)
{
	mad_rx_free(container_of(mad_recv_wc, struct ib_mad_rx, recv_wc));
}
EXPORT_SYMBOL(ib_free_recv_mad);

static void mad_rx_done(struct ib_cq *cq, struct ib_wc *wc);
static void mad_port_close(struct ib_mad_port *port);

/* Nothing posted any more; for the close, after the QP went to error. */
static bool mad_port_idle(struct ib_mad_port *port)
{
	unsigned long irqf;
	bool idle;

	spin_lock_irqsave(&port->lock, irqf);
	idle = !port->sq_used && !port->rx_posted;
	spin_unlock_irqrestore(&port->lock, irqf);
	return idle;
}

static struct ib_mad_rx *mad_rx_alloc(struct ib_mad_port *port)
{
	struct ib_mad_rx *rx = kmalloc(sizeof(*rx), GFP_KERNEL);

	if (!rx)
		return NULL;
	rx->port = port;
	rx->cqe.done = mad_rx_done;
	rx->dma = ib_dma_map_single(port->device, rx->buf, IB_MAD_RX_LEN,
				    DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(port->device, rx->dma)) {
		kfree(rx);
		return NULL;
	}
	return rx;
}

/* Put @rx on the receive queue, mapped; freed if the port is closing. */
static int mad_rx_post(struct ib_mad_port *port, struct ib_mad_rx *rx)
{
	struct ib_sge sge = {
		.addr = rx->dma,
		.length = IB_MAD_RX_LEN,
		.lkey = port->pd->local_dma_lkey,
	};
	struct ib_recv_wr wr = {
		.wr_cqe = &rx->cqe,
		.sg_list = &sge,
		.num_sge = 1,
	};
	unsigned long irqf;
	int ret = -ENODEV;

	spin_lock_irqsave(&port->lock, irqf);
	if (!port->closing) {
		ret = ib_post_recv(port->qp, &wr, NULL);
		if (!ret)
			port->rx_posted++;
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	if (ret) {
		if (ret != -ENODEV)
			ibdev_dbg(port->device,
				  "port %u: MAD receive not posted: %d\n",
				  port->port_num, ret);
		ib_dma_unmap_single(port->device, rx->dma, IB_MAD_RX_LEN,
				    DMA_FROM_DEVICE);
		mad_rx_free(rx);
	}
	return ret;
}

/* Why a received MAD is no MAD for QP 1, or NULL when it is one. */
static const char *mad_rx_refusal(const struct ib_mad_rx *rx)
{
	const struct ib_mad_hdr *hdr = &rx->recv_wc.recv_buf.mad->mad_hdr;

	if (rx->wc.byte_len != IB_MAD_RX_LEN)
		return "not 40 + 256 bytes";
	if (hdr->base_version != IB_MGMT_BASE_VERSION)
		return "base version not 1";
	if (hdr->mgmt_class == IB_MGMT_CLASS_SUBN_LID_ROUTED ||
	    hdr->mgmt_class == IB_MGMT_CLASS_SUBN_DIRECTED_ROUTE)
		return "subnet management class on QP 1";
	if (hdr->mgmt_class == IB_MGMT_CLASS_CM &&
	    hdr->attr_id != IB_MGMT_CLASSPORTINFO_ATTR_ID &&
	    hdr->method != IB_MGMT_METHOD_SEND)
		return "CM message not sent with method SEND";
	return NULL;
}

/* The agent that registered for the request in @hdr, referenced. */
static struct ib_mad_agent_priv *mad_claimant(struct ib_mad_port *port,
					      const struct ib_mad *mad)
{
	const struct ib_mad_hdr *hdr = &mad->mad_hdr;
	const struct ib_vendor_mad *vmad = (const struct ib_vendor_mad *)mad;
	struct ib_mad_agent_priv *priv, *found = NULL;
	unsigned long irqf;

	if (hdr->method >= IB_MGMT_MAX_METHODS)
		return NULL;
	spin_lock_irqsave(&port->lock, irqf);
	list_for_each_entry(priv, &port->agents, port_node) {
		if (!priv->has_reg || priv->reg.mgmt_class != hdr->mgmt_class ||
		    priv->reg.mgmt_class_version != hdr->class_version ||
		    !test_bit(hdr->method, priv->reg.method_mask))
			continue;
		if (ib_mad_vendor_range2(hdr->mgmt_class) &&
		    memcmp(priv->reg.oui, vmad->oui, sizeof(vmad->oui)))
			continue;
		if (refcount_inc_not_zero(&priv->refs))
			found = priv;
		break;
	}
	spin_unlock_irqrestore(&port->lock, irqf);
	return found;
}

/* The reply agent's sends: their AH was made for them. */
static void mad_reply_sent(struct ib_mad_agent *agent,
			   struct ib_mad_send_wc *wc)
{
	rdma_destroy_ah(wc->send_buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(wc->send_buf);
}

/*
 * Answer an unclaimed GET or SET: the request back, as a GetResp with
 * status "unsupported method/attribute", to where it came from.
 */
static void mad_reply_unsupported(struct ib_mad_port *port,
				  struct ib_mad_rx *rx)
{
	struct ib_mad_send_buf *buf;
	struct ib_mad_hdr *hdr;
	struct ib_ah *ah;
	int ret;

	ah = ib_create_ah_from_wc(port->pd, &rx->wc,
				  (const struct ib_grh *)rx->buf,
				  port->port_num);
	if (IS_ERR(ah)) {
		ibdev_dbg(port->device,
			  "port %u: no way back to QP %#x for a reply: %ld\n",
			  port->port_num, rx->wc.src_qp, PTR_ERR(ah));
		return;
	}
	buf = ib_create_send_mad(port->reply_agent, rx->wc.src_qp,
				 rx->wc.pkey_index, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf)) {
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		return;
	}
	memcpy(buf->mad, rx->recv_wc.recv_buf.mad, IB_MGMT_MAD_SIZE);
	hdr = buf->mad;
	hdr->method = IB_MGMT_METHOD_GET_RESP;
	hdr->status = cpu_to_be16(IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB);
	buf->ah = ah;
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		ibdev_dbg(port->device, "port %u: reply not sent: %d\n",
			  port->port_num, ret);
		rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
		ib_free_send_mad(buf);
	}
}

/* Route a checked MAD; true when an agent took @rx. */
static bool mad_dispatch(struct ib_mad_port *port, struct ib_mad_rx *rx)
{
	const struct ib_mad *mad = rx->recv_wc.recv_buf.mad;
	const struct ib_mad_hdr *hdr = &mad->mad_hdr;
	struct ib_mad_agent_priv *priv;
	bool taken;

	if (ib_response_mad(hdr)) {
		priv = ib_mad_agent_by_tid(port, hdr->tid);
		taken = priv && ib_mad_deliver_response(priv, rx);
		if (priv)
			ib_mad_agent_put(priv);
		if (!taken) {
			atomic64_inc(&port->stats.rx_unmatched);
			ibdev_dbg(port->device,
				  "port %u: response class %#x TID %#llx matches no send\n",
				  port->port_num, hdr->mgmt_class,
				  be64_to_cpu(hdr->tid));
		}
		return taken;
	}

	priv = mad_claimant(port, mad);
	if (priv) {
		priv->agent.recv_handler(&priv->agent, NULL, &rx->recv_wc);
		ib_mad_agent_put(priv);
		return true;
	}
	atomic64_inc(&port->stats.rx_unclaimed);
	ibdev_dbg(port->device,
		  "port %u: nobody takes class %#x version %u method %#x\n",
		  port->port_num, hdr->mgmt_class, hdr->class_version,
		  hdr->method);
	if (hdr->method == IB_MGMT_METHOD_GET ||
	    hdr->method == IB_MGMT_METHOD_SET)
		mad_reply_unsupported(port, rx);
	return false;
}

/* Receive completion on the GSI QP. */
static void mad_rx_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct ib_mad_rx *rx = container_of(wc->wr_cqe, struct ib_mad_rx, cqe);
	struct ib_mad_port *port = rx->port;
	struct ib_mad_rx *fresh;
	const char *why;
	unsigned long irqf;

	spin_lock_irqsave(&port->lock, irqf);
	port->rx_posted--;
	if (port->closing && !port->sq_used && !port->rx_posted)
		wake_up(&port->drained);
	spin_unlock_irqrestore(&port->lock, irqf);

	ib_dma_unmap_single(port->device, rx->dma, IB_MAD_RX_LEN,
			    DMA_FROM_DEVICE);
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR)
			ibdev_dbg(port->device, "port %u: MAD receive failed: %s\n",
				  port->port_num, ib_wc_status_msg(wc->status));
		mad_rx_free(rx);
		return;
	}

	fresh = mad_rx_alloc(port);
	if (!fresh) {
		atomic64_inc(&port->stats.rx_nomem);
		ibdev_dbg(port->device,
			  "port %u: MAD dropped, no buffer to replace it\n",
			  port->port_num);
		rx->dma = ib_dma_map_single(port->device, rx->buf,
					    IB_MAD_RX_LEN, DMA_FROM_DEVICE);
		if (ib_dma_mapping_error(port->device, rx->dma))
			mad_rx_free(rx);
		else
			mad_rx_post(port, rx);
		return;
	}
	mad_rx_post(port, fresh);

	atomic64_inc(&port->stats.rx);
	rx->wc = *wc;
	rx->recv_wc.wc = &rx->wc;
	rx->recv_wc.recv_buf.grh = (struct ib_grh *)rx->buf;
	rx->recv_wc.recv_buf.mad = (struct ib_mad *)(rx->buf + IB_MAD_GRH_LEN);
	rx->recv_wc.mad_len = IB_MGMT_MAD_SIZE;
	rx->recv_wc.mad_seg_size = IB_MGMT_MAD_SIZE;
	INIT_LIST_HEAD(&rx->recv_wc.rmpp_list);
	list_add(&rx->recv_wc.recv_buf.list, &rx->recv_wc.rmpp_list);

	why = mad_rx_refusal(rx);
	if (why) {
		atomic64_inc(&port->stats.rx_bad);
		ibdev_dbg(port->device, "port %u: MAD from QP %#x dropped: %s\n",
			  port->port_num, wc->src_qp, why);
		mad_rx_free(rx);
		return;
	}
	if (!mad_dispatch(port, rx))
		mad_rx_free(rx);
}

/* GSI QP from RESET to RTS: P_Key 0xFFFF's index (else 0), the GSI key. */
static int mad_qp_ready(struct ib_mad_port *port)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.qkey = IB_QP1_QKEY,
	};
	u16 index;
	int ret;

	if (!ib_find_pkey(port->device, port->port_num, IB_DEFAULT_PKEY_FULL,
			  &index))
		attr.pkey_index = index;
	ret = ib_modify_qp(port->qp, &attr,
			   IB_QP_STATE | IB_QP_PKEY_INDEX | IB_QP_QKEY);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTR;
	ret = ib_modify_qp(port->qp, &attr, IB_QP_STATE);
	if (ret)
		return ret;
	attr.qp_state = IB_QPS_RTS;
	attr.sq_psn = 0;
	return ib_modify_qp(port->qp, &attr, IB_QP_STATE | IB_QP_SQ_PSN);
}

static struct ib_mad_port *mad_port_open(struct ib_device *device,
					 u32 port_num)
{
	struct ib_qp_init_attr init = {
		.qp_type = IB_QPT_GSI,
		.port_num = port_num,
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.cap = {
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ib_mad_port *port;
	struct ib_mad_rx *rx;
	unsigned int i;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return ERR_PTR(-ENOMEM);
	port->device = device;
	port->port_num = port_num;
	spin_lock_init(&port->lock);
	INIT_LIST_HEAD(&port->agents);
	INIT_LIST_HEAD(&port->overflow);
	init_waitqueue_head(&port->drained);
	port->sq_size = clamp(mad_sendq_size, MAD_QUEUE_MIN, MAD_QUEUE_MAX);
	port->rq_size = clamp(mad_recvq_size, MAD_QUEUE_MIN, MAD_QUEUE_MAX);

	ret = -ENOMEM;
	port->wq = alloc_ordered_workqueue("ib_mad%u", WQ_MEM_RECLAIM,
					   port_num);
	if (!port->wq)
		goto err_free;
	port->pd = ib_alloc_pd(device, 0);
	if (IS_ERR(port->pd)) {
		ret = PTR_ERR(port->pd);
		goto err_wq;
	}
	port->cq = ib_alloc_cq(device, port, port->sq_size + port->rq_size, 0,
			       IB_POLL_UNBOUND_WORKQUEUE);
	if (IS_ERR(port->cq)) {
		ret = PTR_ERR(port->cq);
		goto err_pd;
	}
	init.send_cq = port->cq;
	init.recv_cq = port->cq;
	init.cap.max_send_wr = port->sq_size;
	init.cap.max_recv_wr = port->rq_size;
	port->qp = ib_create_qp(port->pd, &init);
	if (IS_ERR(port->qp)) {
		ret = PTR_ERR(port->qp);
		goto err_cq;
	}
	ret = mad_qp_ready(port);
	if (ret)
		goto err_qp;
	port->reply_agent = ib_mad_reply_agent(port, mad_reply_sent);
	if (IS_ERR(port->reply_agent)) {
		ret = PTR_ERR(port->reply_agent);
		goto err_qp;
	}
	for (i = 0; i < port->rq_size; i++) {
		rx = mad_rx_alloc(port);
		if (!rx) {
			ret = -ENOMEM;
			goto err_close;
		}
		ret = mad_rx_post(port, rx);
		if (ret)
			goto err_close;
	}
	return port;

err_close:
	mad_port_close(port);
	return ERR_PTR(ret);
err_qp:
	ib_destroy_qp(port->qp);
err_cq:
	ib_free_cq(port->cq);
err_pd:
	ib_dealloc_pd(port->pd);
err_wq:
	destroy_workqueue(port->wq);
err_free:
	kfree(port);
	return ERR_PTR(ret);
}

static int mad_stats_show(struct seq_file *m, void *unused)
{
	struct ib_mad_port *port = m->private;
	const struct ib_mad_port_stats *st = &port->stats;

	seq_printf(m, "rx %lld\n", atomic64_read(&st->rx));
	seq_printf(m, "rx_bad %lld\n", atomic64_read(&st->rx_bad));
	seq_printf(m, "rx_unclaimed %lld\n", atomic64_read(&st->rx_unclaimed));
	seq_printf(m, "rx_unmatched %lld\n", atomic64_read(&st->rx_unmatched));
	seq_printf(m, "rx_nomem %lld\n", atomic64_read(&st->rx_nomem));
	seq_printf(m, "tx %lld\n", atomic64_read(&st->tx));
	seq_printf(m, "tx_timeouts %lld\n", atomic64_read(&st->tx_timeouts));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(mad_stats);

/*
 * Take the MAD layer off @port, whose agents are all unregistered but the
 * reply agent: the QP goes to the error state and every posted work
 * request comes back flushed before the QP, CQ and PD go.
 */
static void mad_port_close(struct ib_mad_port *port)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	unsigned long irqf;
	int ret;

	ib_unregister_mad_agent(port->reply_agent);
	spin_lock_irqsave(&port->lock, irqf);
	WARN_ON(!list_empty(&port->agents));
	port->closing = true;
	spin_unlock_irqrestore(&port->lock, irqf);

	ret = ib_modify_qp(port->qp, &attr, IB_QP_STATE);
	if (!WARN_ONCE(ret, "GSI QP of port %u not flushed: %d\n",
		       port->port_num, ret))
		wait_event(port->drained, mad_port_idle(port));
	ib_destroy_qp(port->qp);
	ib_free_cq(port->cq);
	ib_dealloc_pd(port->pd);
	destroy_workqueue(port->wq);
	kfree(port);
}

static void mad_client_remove(struct ib_device *device, void *data)
{
	struct mad_device *md = data;
	u32 p;

	/* No counter file is read once this returns. */
	debugfs_remove(md->dir);
	for (p = 0; p < md->nports; p++)
		if (md->port[p])
			mad_port_close(md->port[p]);
	kfree(md);
}

/* The device's debugfs folder follows its name. */
static void mad_client_rename(struct ib_device *device, void *data)
{
	struct mad_device *md = data;
	struct dentry *d;

	d = debugfs_rename(mad_debugfs, md->dir, mad_debugfs,
			   dev_name(&device->dev));
	if (IS_ERR(d))
		ibdev_dbg(device, "MAD counters keep their folder name: %ld\n",
			  PTR_ERR(d));
}

static int mad_client_add(struct ib_device *device)
{
	u32 nports = rdma_end_port(device) + 1, p;
	struct ib_mad_port *port;
	struct mad_device *md;
	char name[12];
	bool any = false;

	md = kzalloc(struct_size(md, port, nports), GFP_KERNEL);
	if (!md)
		return -ENOMEM;
	md->nports = nports;
	rdma_for_each_port(device, p) {
		if (!rdma_cap_ib_mad(device, p))
			continue;
		port = mad_port_open(device, p);
		if (PTR_ERR_OR_ZERO(port) == -EOPNOTSUPP) {
			/* the provider makes no GSI QP: no MADs there */
			ibdev_dbg(device, "port %u: no GSI QP, no MAD layer\n",
				  p);
			continue;
		}
		if (IS_ERR(port)) {
			ibdev_warn(device, "no MAD layer on port %u: %ld\n", p,
				   PTR_ERR(port));
			mad_client_remove(device, md);
			return PTR_ERR(port);
		}
		md->port[p] = port;
		any = true;
	}
	if (!any) {
		kfree(md);
		return -EOPNOTSUPP;
	}
	md->dir = debugfs_create_dir(dev_name(&device->dev), mad_debugfs);
	for (p = 0; p < nports; p++) {
		if (!md->port[p])
			continue;
		snprintf(name, sizeof(name), "%u", p);
		debugfs_create_file(name, 0400, md->dir, md->port[p],
				    &mad_stats_fops);
	}
	ib_set_client_data(device, &mad_client, md);
	return 0;
}

static struct ib_client mad_client = {
	.name = "mad",
	.add = mad_client_add,
	.remove = mad_client_remove,
	.rename = mad_client_rename,
};

/**
 * ib_mad_init - start the MAD layer (ib_core load)
 *
 * Return: 0 or the error of the client registration.
 */
int ib_mad_init(void)
{
	int ret;

	mad_debugfs = debugfs_create_dir("ib_mad", NULL);
	ret = ib_register_client(&mad_client);
	if (ret)
		debugfs_remove(mad_debugfs);
	return ret;
}

/**
 * ib_mad_cleanup - stop the MAD layer (ib_core unload)
 */
void ib_mad_cleanup(void)
{
	ib_unregister_client(&mad_client);
	debugfs_remove(mad_debugfs);
}
