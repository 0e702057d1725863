// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The connection manager on each port: the ib_client that opens a GSI
 * agent of class 0x07 (version 2, method SEND) on every port with an IB
 * CM, the sends every message goes out through, and the per-port counters
 * (sysfs ports/<p>/cm_{tx_msgs,tx_retries,rx_msgs,rx_duplicates}/<msg>,
 * debugfs ib_cm/drops).
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <rdma/ib_sysfs.h>

#include "core_priv.h"
#include "cm_priv.h"

static LIST_HEAD(cm_devices);
static DEFINE_MUTEX(cm_devices_mutex);	/* cm_devices, for debugfs */
static struct dentry *cm_debugfs;

static int cm_add_one(struct ib_device *ibdev);
static void cm_remove_one(struct ib_device *ibdev, void *client_data);

static struct ib_client cm_client = {
	.name	= "cm",
	.add	= cm_add_one,
	.remove	= cm_remove_one,
};

/**
 * cm_port_of() - the CM of a device's port
 * @ibdev: the device
 * @port_num: the port
 *
 * Return: the port with a reference on its cm_device (cm_device_put()), or
 * NULL when the port has no CM or the device is going.
 */
struct cm_port *cm_port_of(struct ib_device *ibdev, u32 port_num)
{
	struct cm_device *cm_dev;
	struct cm_port *port = NULL;
	unsigned long flags;

	spin_lock_irqsave(&cm_lock, flags);
	cm_dev = ib_get_client_data(ibdev, &cm_client);
	if (cm_dev && !cm_dev->going && port_num >= 1 &&
	    port_num <= cm_dev->num_ports && cm_dev->ports[port_num - 1]) {
		port = cm_dev->ports[port_num - 1];
		kref_get(&cm_dev->ref);
	}
	spin_unlock_irqrestore(&cm_lock, flags);
	return port;
}

static void cm_device_release(struct kref *ref)
{
	struct cm_device *cm_dev = container_of(ref, struct cm_device, ref);
	u32 i;

	for (i = 0; i < cm_dev->num_ports; i++)
		kfree(cm_dev->ports[i]);
	kfree(cm_dev);
}

/**
 * cm_device_put() - drop a reference on a cm_device
 * @cm_dev: the device's CM
 */
void cm_device_put(struct cm_device *cm_dev)
{
	kref_put(&cm_dev->ref, cm_device_release);
}

/**
 * cm_count() - count a message
 * @port: where
 * @group: which counter group
 * @type: which message
 */
void cm_count(struct cm_port *port, enum cm_counter_group group,
	      enum cm_msg_type type)
{
	atomic_long_inc(&port->counters[group][type]);
}

/**
 * cm_drop() - count and log a received message that goes no further
 * @port: where it came in
 * @reason: the counter
 * @type: its type (or CM_MSG_TYPES when unknown)
 * @why: for the debug log
 */
void cm_drop(struct cm_port *port, enum cm_drop_reason reason,
	     enum cm_msg_type type, const char *why)
{
	atomic_long_inc(&port->drops[reason]);
	ibdev_dbg(port->cm_dev->ibdev, "cm: port %u: %s dropped: %s\n",
		  port->port_num,
		  type < CM_MSG_TYPES ? cm_msg_name(type) : "message", why);
}

/**
 * cm_new_tid() - the transaction ID of a new request from an ID
 * @port: the port it goes out on
 * @local_id: the ID's local comm ID
 *
 * Return: the agent's hi_tid above the comm ID.
 */
__be64 cm_new_tid(struct cm_port *port, __be32 local_id)
{
	struct ib_mad_agent *agent;
	u64 hi = 0;

	rcu_read_lock();
	agent = rcu_dereference(port->agent);
	if (agent)
		hi = agent->hi_tid;
	rcu_read_unlock();
	return cpu_to_be64(hi << 32 | be32_to_cpu(local_id));
}

/**
 * cm_post() - send a CM message
 * @port: the port
 * @av: where to
 * @type: the message type
 * @tid: its transaction ID
 * @payload: its CM_MSG_LEN bytes
 * @priv: the ID that sends it, which the send holds a reference on; NULL
 *	for stateless answers
 * @timeout_ms: wait for an answer this long per transmission (0: none)
 * @retries: retransmissions while unanswered
 *
 * Context: any (the AH is made without sleeping).
 * Return: the posted send, or an ERR_PTR(): -ENODEV when the device is
 * going, -ENOMEM, or the error of the AH or the post.
 */
struct ib_mad_send_buf *cm_post(struct cm_port *port, struct rdma_ah_attr *av,
				enum cm_msg_type type,
				__be64 tid, const u8 *payload,
				struct cm_id_priv *priv, unsigned long timeout_ms,
				int retries)
{
	struct ib_mad_send_buf *buf = ERR_PTR(-ENODEV);
	struct ib_ah *ah = NULL;
	struct ib_mad_agent *agent;
	struct ib_mad_hdr *hdr;
	int ret;

	rcu_read_lock();
	agent = rcu_dereference(port->agent);
	if (!agent)
		goto fail;
	ah = rdma_create_ah(agent->qp->pd, av, 0);
	if (IS_ERR(ah)) {
		buf = ERR_CAST(ah);
		ah = NULL;
		goto fail;
	}
	buf = ib_create_send_mad(agent, 1, 0, 0, IB_MGMT_MAD_HDR, CM_MSG_LEN,
				 GFP_ATOMIC, IB_MGMT_BASE_VERSION);
	if (IS_ERR(buf))
		goto fail;
	hdr = buf->mad;
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = IB_MGMT_CLASS_CM;
	hdr->class_version = CM_CLASS_VERSION;
	hdr->method = IB_MGMT_METHOD_SEND;
	hdr->attr_id = cpu_to_be16(CM_ATTR_ID_FIRST + type);
	hdr->tid = tid;
	memcpy((u8 *)buf->mad + IB_MGMT_MAD_HDR, payload, CM_MSG_LEN);
	buf->ah = ah;
	buf->timeout_ms = timeout_ms;
	/* Allowed retransmissions; the MAD layer then counts them here. */
	buf->retries = retries;
	buf->context[0] = priv;
	buf->context[1] = (void *)(uintptr_t)type;
	if (priv)
		cm_get(priv);
	ret = ib_post_send_mad(buf, NULL);
	if (ret) {
		if (priv)
			cm_put(priv);
		ib_free_send_mad(buf);
		buf = ERR_PTR(ret);
		goto fail;
	}
	rcu_read_unlock();
	return buf;

fail:
	rcu_read_unlock();
	if (ah)
		rdma_destroy_ah(ah, 0);
	ibdev_dbg(port->cm_dev->ibdev, "cm: port %u: %s not sent: %ld\n",
		  port->port_num, cm_msg_name(type), PTR_ERR(buf));
	return buf;
}

/* Keep a copy of a one-shot message for resending (ID locked). */
static void cm_keep_last(struct cm_id_priv *priv, enum cm_msg_type type,
			 const u8 *payload)
{
	if (!priv->last)
		priv->last = kmalloc(CM_MSG_LEN, GFP_ATOMIC);
	if (!priv->last) {
		priv->last_type = CM_MSG_TYPES;
		return;
	}
	memcpy(priv->last, payload, CM_MSG_LEN);
	priv->last_type = type;
}

/**
 * cm_send_priv() - send a message of an ID to its peer
 * @priv: the ID, locked, with its address vector
 * @type: the message type
 * @payload: its CM_MSG_LEN bytes
 * @timeout_ms: 0 for a one-shot message (kept for resending on a
 *	duplicate), else the wait per transmission for the answer; the send
 *	then becomes the ID's outstanding one
 * @retries: retransmissions while unanswered
 *
 * Return: 0, -EINVAL when the ID has no peer address, or an error of
 * cm_post().
 */
int cm_send_priv(struct cm_id_priv *priv, enum cm_msg_type type,
		 const u8 *payload, unsigned long timeout_ms, int retries)
{
	struct ib_mad_send_buf *buf;

	if (!priv->has_av)
		return -EINVAL;
	buf = cm_post(priv->port, &priv->av, type, priv->tid, payload,
		      priv, timeout_ms, retries);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	if (timeout_ms) {
		cm_cancel_msg(priv);
		priv->msg = buf;
	} else {
		cm_keep_last(priv, type, payload);
	}
	return 0;
}

/**
 * cm_resend_last() - send the ID's last one-shot message again
 * @priv: the ID, locked
 *
 * An MRA held back by IB_CM_MRA_FLAG_DELAY goes out for the first time.
 *
 * Return: 0, -ENOENT when nothing is kept, or an error of cm_post().
 */
int cm_resend_last(struct cm_id_priv *priv)
{
	struct ib_mad_send_buf *buf;

	if (priv->last_type == CM_MSG_TYPES || !priv->has_av)
		return -ENOENT;
	buf = cm_post(priv->port, &priv->av, priv->last_type, priv->tid,
		      priv->last, priv, 0, 0);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	priv->mra_delayed = false;
	return 0;
}

static void cm_send_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *wc)
{
	struct ib_mad_send_buf *buf = wc->send_buf;
	struct cm_id_priv *priv = buf->context[0];
	enum cm_msg_type type = (uintptr_t)buf->context[1];
	struct cm_port *port = agent->context;

	atomic_long_add(1 + buf->retries, &port->counters[CM_TX_MSGS][type]);
	atomic_long_add(buf->retries, &port->counters[CM_TX_RETRIES][type]);
	if (priv)
		cm_send_done(priv, buf, wc->status);
	rdma_destroy_ah(buf->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_free_send_mad(buf);
	if (priv)
		cm_put(priv);
}

static void cm_recv_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_buf *send_buf,
			    struct ib_mad_recv_wc *rwc)
{
	cm_recv_dispatch(agent->context, rwc);
	ib_free_recv_mad(rwc);
}

/* ---- sysfs counters ----------------------------------------------------- */

/**
 * struct cm_counter_attr - one counter file
 * @attr: the port attribute
 * @group: its counter group
 * @type: its message type
 */
struct cm_counter_attr {
	struct ib_port_attribute attr;
	enum cm_counter_group group;
	enum cm_msg_type type;
};

static ssize_t cm_counter_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *attr, char *buf)
{
	struct cm_counter_attr *ca = container_of(attr, struct cm_counter_attr,
						  attr);
	struct cm_port *port = cm_port_of(ibdev, port_num);
	ssize_t ret;

	if (!port)
		return -ENODEV;
	ret = sysfs_emit(buf, "%ld\n",
			 atomic_long_read(&port->counters[ca->group][ca->type]));
	cm_device_put(port->cm_dev);
	return ret;
}

static struct cm_counter_attr cm_counter_attrs[CM_COUNTER_GROUPS][CM_MSG_TYPES];

static struct attribute *cm_counter_files[CM_COUNTER_GROUPS][CM_MSG_TYPES + 1];

static const char * const cm_group_names[CM_COUNTER_GROUPS] = {
	[CM_TX_MSGS] = "cm_tx_msgs",
	[CM_TX_RETRIES] = "cm_tx_retries",
	[CM_RX_MSGS] = "cm_rx_msgs",
	[CM_RX_DUPLICATES] = "cm_rx_duplicates",
};

static struct attribute_group cm_counter_groups[CM_COUNTER_GROUPS];
static const struct attribute_group *cm_port_groups[CM_COUNTER_GROUPS + 1];

static void cm_counter_groups_init(void)
{
	int g, t;

	for (g = 0; g < CM_COUNTER_GROUPS; g++) {
		for (t = 0; t < CM_MSG_TYPES; t++) {
			struct cm_counter_attr *ca = &cm_counter_attrs[g][t];

			sysfs_attr_init(&ca->attr.attr);
			ca->attr.attr.name = cm_msg_name(t);
			ca->attr.attr.mode = 0444;
			ca->attr.show = cm_counter_show;
			ca->group = g;
			ca->type = t;
			cm_counter_files[g][t] = &ca->attr.attr;
		}
		cm_counter_groups[g].name = cm_group_names[g];
		cm_counter_groups[g].attrs = cm_counter_files[g];
		cm_port_groups[g] = &cm_counter_groups[g];
	}
}

/* ---- debugfs ------------------------------------------------------------ */

static const char * const cm_drop_names[CM_DROP_REASONS] = {
	[CM_DROP_UNKNOWN] = "unknown",
	[CM_DROP_MALFORMED] = "malformed",
	[CM_DROP_NO_ID] = "no_id",
	[CM_DROP_STATE] = "state",
	[CM_DROP_NO_ROUTE] = "no_route",
	[CM_DROP_NOMEM] = "nomem",
};

static int cm_drops_show(struct seq_file *s, void *unused)
{
	struct cm_device *cm_dev;
	u32 i;
	int r;

	mutex_lock(&cm_devices_mutex);
	list_for_each_entry(cm_dev, &cm_devices, node) {
		for (i = 0; i < cm_dev->num_ports; i++) {
			struct cm_port *port = cm_dev->ports[i];

			if (!port)
				continue;
			seq_printf(s, "%s %u", dev_name(&cm_dev->ibdev->dev),
				   port->port_num);
			for (r = 0; r < CM_DROP_REASONS; r++)
				seq_printf(s, " %s=%ld", cm_drop_names[r],
					   atomic_long_read(&port->drops[r]));
			seq_putc(s, '\n');
		}
	}
	mutex_unlock(&cm_devices_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cm_drops);

/* ---- the client --------------------------------------------------------- */

static int cm_open_port(struct cm_device *cm_dev, u32 port_num)
{
	struct ib_mad_reg_req reg = {
		.mgmt_class = IB_MGMT_CLASS_CM,
		.mgmt_class_version = CM_CLASS_VERSION,
	};
	struct ib_port_modify modify = { .set_port_cap_mask = IB_PORT_CM_SUP };
	struct ib_device *ibdev = cm_dev->ibdev;
	struct ib_mad_agent *agent;
	struct cm_port *port;
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->cm_dev = cm_dev;
	port->port_num = port_num;
	cm_dev->ports[port_num - 1] = port;

	set_bit(IB_MGMT_METHOD_SEND, reg.method_mask);
	agent = ib_register_mad_agent(ibdev, port_num, IB_QPT_GSI, &reg, 0,
				      cm_send_handler, cm_recv_handler, port,
				      0);
	if (IS_ERR(agent)) {
		ibdev_dbg(ibdev, "cm: port %u: no MAD agent: %ld\n", port_num,
			  PTR_ERR(agent));
		return PTR_ERR(agent);
	}
	ret = ib_port_register_client_groups(ibdev, port_num, cm_port_groups);
	if (ret) {
		ibdev_dbg(ibdev, "cm: port %u: no counters in sysfs: %d\n",
			  port_num, ret);
		ib_unregister_mad_agent(agent);
		return ret;
	}
	rcu_assign_pointer(port->agent, agent);
	ret = ib_modify_port(ibdev, port_num, 0, &modify);
	if (ret)
		ibdev_dbg(ibdev, "cm: port %u: CM capability not set: %d\n",
			  port_num, ret);
	return 0;
}

/* Undo what cm_open_port() did, if it got through. */
static void cm_close_port(struct cm_device *cm_dev, struct cm_port *port)
{
	struct ib_port_modify modify = { .clr_port_cap_mask = IB_PORT_CM_SUP };
	struct ib_mad_agent *agent = rcu_dereference_protected(port->agent, 1);

	if (!agent)
		return;
	ib_modify_port(cm_dev->ibdev, port->port_num, 0, &modify);
	ib_port_unregister_client_groups(cm_dev->ibdev, port->port_num,
					 cm_port_groups);
	RCU_INIT_POINTER(port->agent, NULL);
	/* No cm_post() uses the agent after this. */
	synchronize_rcu();
	ib_unregister_mad_agent(agent);
}

static int cm_add_one(struct ib_device *ibdev)
{
	struct cm_device *cm_dev;
	bool any = false;
	u32 p;
	int ret;

	cm_dev = kzalloc(struct_size(cm_dev, ports, ibdev->phys_port_cnt),
			 GFP_KERNEL);
	if (!cm_dev)
		return -ENOMEM;
	cm_dev->num_ports = ibdev->phys_port_cnt;
	cm_dev->ibdev = ibdev;
	kref_init(&cm_dev->ref);

	rdma_for_each_port(ibdev, p) {
		if (!rdma_cap_ib_cm(ibdev, p))
			continue;
		ret = cm_open_port(cm_dev, p);
		if (ret)
			goto fail;
		any = true;
	}
	if (!any) {
		cm_device_put(cm_dev);
		return -EOPNOTSUPP;
	}
	ib_set_client_data(ibdev, &cm_client, cm_dev);
	mutex_lock(&cm_devices_mutex);
	list_add_tail(&cm_dev->node, &cm_devices);
	mutex_unlock(&cm_devices_mutex);
	return 0;

fail:
	rdma_for_each_port(ibdev, p) {
		struct cm_port *port = cm_dev->ports[p - 1];

		if (port)
			cm_close_port(cm_dev, port);
	}
	cm_device_put(cm_dev);
	return ret;
}

static void cm_remove_one(struct ib_device *ibdev, void *client_data)
{
	struct cm_device *cm_dev = client_data;
	u32 i;

	mutex_lock(&cm_devices_mutex);
	list_del(&cm_dev->node);
	mutex_unlock(&cm_devices_mutex);
	spin_lock_irq(&cm_lock);
	cm_dev->going = true;
	spin_unlock_irq(&cm_lock);
	for (i = 0; i < cm_dev->num_ports; i++)
		if (cm_dev->ports[i])
			cm_close_port(cm_dev, cm_dev->ports[i]);
	cm_device_put(cm_dev);
}

/**
 * cm_port_init() - register the CM's client (module init)
 *
 * Return: 0 or the error of ib_register_client().
 */
int cm_port_init(void)
{
	int ret;

	cm_counter_groups_init();
	cm_debugfs = debugfs_create_dir("ib_cm", NULL);
	debugfs_create_file("drops", 0400, cm_debugfs, NULL, &cm_drops_fops);
	ret = ib_register_client(&cm_client);
	if (ret)
		debugfs_remove_recursive(cm_debugfs);
	return ret;
}

/**
 * cm_port_exit() - unregister the CM's client (module exit)
 */
void cm_port_exit(void)
{
	ib_unregister_client(&cm_client);
	debugfs_remove_recursive(cm_debugfs);
}
