// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA device model: allocation and registration of struct ib_device,
 * device names and indexes, clients (kernel users of devices), device-wide
 * events, the netdev under each port, port queries, and the module
 * init/exit of ib_core.
 *
 * Lifetimes
 * ---------
 * Memory.  An ib_device (with the provider structure around it) lives as
 * long as its embedded struct device: _ib_alloc_device() initialises it
 * holding one reference, ib_dealloc_device() drops that one, and
 * ib_device_release() frees the port array and the device itself through
 * kfree_rcu(), so RCU readers of the registry and of the netdev hash may
 * look at a device (and its ports) that is being freed.
 *
 * Registration.  ib_device.refcount is the registration reference count:
 * zero while the device is not registered, set when registration makes the
 * device visible, and ib_device_try_get() only succeeds while it is
 * non-zero.  Unregistration drops the registration's own reference and
 * sleeps on ib_device.unreg_completion until every ib_device_try_get()
 * holder has called ib_device_put().  Client contexts do not hold
 * registration references, so the wait never depends on a client.
 *
 * Unregistration runs, under ib_device.unregistration_lock:
 *   unmark the device (no new lookups find it) -> drop the registration
 *   reference -> wait for every holder -> clients' remove() in reverse
 *   registration order -> shared CQ pools -> netdevs -> port sysfs ->
 *   device_del() -> cache cleanup -> restrack clean -> (after the lock)
 *   ib_dealloc_device() if the provider set ops.dealloc_driver.
 * The port sysfs files go before the cache is cleaned so that no sysfs
 * reader can see a half torn-down GID table.
 *
 * Locking rules
 * -------------
 * ib_devices_rwsem   Registry of devices: membership of ib_devices (by
 *                    index), the DEVICE_REGISTERED mark and the names.
 *                    Writers: naming, (un)marking, rename, client
 *                    registration.  Readers: lookups, walkers.  Never taken
 *                    under RTNL (the RoCE walkers take RTNL inside it).
 * ib_clients_rwsem   The client list: ib_clients (by client id), the
 *                    CLIENT_REGISTERED mark and ib_clients_end.
 * client_data_rwsem  Per device: which clients are attached (the
 *                    CLIENT_DATA_REGISTERED mark of ib_device.client_data).
 *                    Held for write to change the mark, downgraded to read
 *                    while a client's add() runs so that no remove() can
 *                    overtake it.  The stored values themselves are set
 *                    through the xarray's own lock (ib_set_client_data()).
 * unregistration_lock  Per device: one unregistration at a time; a second
 *                    caller waits and then finds the work done.
 * event_handler_rwsem  Per device: the event handler list.
 * ndev_set_lock      Serialises ib_device_set_netdev() callers.
 * netdev_lock        Per port: updates of ib_port_data.netdev (readers use
 *                    RCU).
 * ndev_hash_lock     The netdev -> port hash (readers use RCU).
 *
 * Order: ib_devices_rwsem -> ib_clients_rwsem -> client_data_rwsem, and
 * ndev_set_lock -> netdev_lock -> ndev_hash_lock.  Clients' add() and
 * rename() callbacks run with the registry and client locks held and must
 * not call back into functions that take ib_devices_rwsem
 * (ib_device_get_by_name(), ib_enum_all_devs(), ...); remove() runs with
 * no core lock held.
 */
#include <linux/module.h>
#include <linux/device.h>
#include <linux/hashtable.h>
#include <linux/inetdevice.h>
#include <linux/kmod.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("RDMA core: verbs API and device model");
MODULE_LICENSE("Dual BSD/GPL");

/* ---- work queues ---------------------------------------------------------- */

/*
 * ib_wq - ordered queue of the core's deferred work: event delivery, cache
 * refreshes.  Created at module load, destroyed (drained) at unload.
 */
struct workqueue_struct *ib_wq;
EXPORT_SYMBOL_GPL(ib_wq);

/*
 * ib_comp_wq - completion polling of IB_POLL_WORKQUEUE CQs (per-CPU,
 * high priority).
 */
struct workqueue_struct *ib_comp_wq;
EXPORT_SYMBOL_GPL(ib_comp_wq);

/*
 * ib_comp_unbound_wq - completion polling of IB_POLL_UNBOUND_WORKQUEUE
 * CQs (unbound, high priority).
 */
struct workqueue_struct *ib_comp_unbound_wq;
EXPORT_SYMBOL_GPL(ib_comp_unbound_wq);

/*
 * Queued unregistrations get a queue of their own: an unregistration
 * waits for the cache code, which may flush ib_wq, and a work item must
 * never flush the queue it runs on.
 */
static struct workqueue_struct *ib_unreg_wq;

/* ---- the registry ------------------------------------------------------------ */

/* Set on a device once it is visible to lookups and clients. */
#define DEVICE_REGISTERED	XA_MARK_1
/* Set on a client while it accepts new devices. */
#define CLIENT_REGISTERED	XA_MARK_1
/* Set on ib_device.client_data[id] once the client's add() succeeded. */
#define CLIENT_DATA_REGISTERED	XA_MARK_1

/*
 * Every device from the moment it is named at registration until
 * ib_dealloc_device(), keyed by ib_device.index; only marked ones are
 * registered.  Keeping unregistered devices listed until their memory goes
 * lets ib_unregister_driver() fence every device of a provider.
 */
static DEFINE_XARRAY_FLAGS(ib_devices, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(ib_devices_rwsem);
static u32 ib_devices_next;	/* cyclic index hint; ib_devices_rwsem */

/*
 * Clients by client_id.  Ids grow in registration order (a freed id is
 * only reused once every later one is gone), so walking ids upwards is
 * registration order and downwards its reverse.
 */
static DEFINE_XARRAY_FLAGS(ib_clients, XA_FLAGS_ALLOC);
static DECLARE_RWSEM(ib_clients_rwsem);
static u32 ib_clients_end;	/* one past the highest id; ib_clients_rwsem */

/*
 * Which ports sit on which netdev, for ib_device_get_by_netdev() (called
 * on the receive path) and for the NETDEV_UNREGISTER notifier.  Keyed by
 * the netdev pointer; a port is hashed exactly while its netdev is set.
 */
static DEFINE_SPINLOCK(ndev_hash_lock);
static DECLARE_HASHTABLE(ndev_hash, 5);
static DEFINE_MUTEX(ndev_set_lock);

/*
 * The port array: ib_device.port_data points at @ports, indexed by port
 * number (slot 0 is unused on a CA).  Freed after a grace period, like the
 * device, because the netdev hash is walked under RCU.
 */
struct ib_port_array {
	struct rcu_head		rcu;
	struct ib_port_data	ports[];
};

static void ib_device_release(struct device *dev);
static int ib_device_uevent(const struct device *dev,
			    struct kobj_uevent_env *env);

const struct class ib_class = {
	.name		= "infiniband",
	.dev_release	= ib_device_release,
	.dev_uevent	= ib_device_uevent,
};

/* ---- printing ------------------------------------------------------------------ */

/* A device-less line at a numeric log level. */
static __printf(2, 3) void ibdev_emit(int lvl, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vprintk_emit(0, lvl, NULL, fmt, args);
	va_end(args);
}

static void ibdev_vprintk(const char *level, const struct ib_device *ibdev,
			  struct va_format *vaf)
{
	int lvl = printk_get_level(level);
	struct device *parent;
	const char *name;

	lvl = (lvl >= '0' && lvl <= '7') ? lvl - '0' : LOGLEVEL_DEFAULT;
	if (!ibdev) {
		ibdev_emit(lvl, "(no ib_device): %pV", vaf);
		return;
	}

	name = dev_name(&ibdev->dev);
	if (!name)
		name = ibdev->name[0] ? ibdev->name : "(unnamed)";
	parent = ibdev->dev.parent;
	if (parent)
		dev_printk_emit(lvl, parent, "%s %s %s: %pV",
				dev_driver_string(parent), dev_name(parent),
				name, vaf);
	else
		ibdev_emit(lvl, "%s: %pV", name, vaf);
}

/**
 * ibdev_printk - log a message about an RDMA device
 * @level: a KERN_* level string
 * @ibdev: the device (may be NULL)
 * @format: printf-style format
 *
 * The message is prefixed with the parent device's driver and name, when
 * there is a parent, and with the RDMA device name.
 */
void ibdev_printk(const char *level, const struct ib_device *ibdev,
		  const char *format, ...)
{
	struct va_format vaf;
	va_list args;

	va_start(args, format);
	vaf.fmt = format;
	vaf.va = &args;
	ibdev_vprintk(level, ibdev, &vaf);
	va_end(args);
}
EXPORT_SYMBOL(ibdev_printk);

#define IBDEV_LEVEL_BODY(level)				\
	do {						\
		struct va_format vaf;			\
		va_list args;				\
							\
		va_start(args, format);			\
		vaf.fmt = format;			\
		vaf.va = &args;				\
		ibdev_vprintk(level, ibdev, &vaf);	\
		va_end(args);				\
	} while (0)

/**
 * ibdev_emerg - log an emergency message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_emerg(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_EMERG);
}
EXPORT_SYMBOL(ibdev_emerg);

/**
 * ibdev_alert - log an alert about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_alert(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_ALERT);
}
EXPORT_SYMBOL(ibdev_alert);

/**
 * ibdev_crit - log a critical message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_crit(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_CRIT);
}
EXPORT_SYMBOL(ibdev_crit);

/**
 * ibdev_err - log an error about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_err(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_ERR);
}
EXPORT_SYMBOL(ibdev_err);

/**
 * ibdev_warn - log a warning about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_warn(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_WARNING);
}
EXPORT_SYMBOL(ibdev_warn);

/**
 * ibdev_notice - log a notice about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_notice(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_NOTICE);
}
EXPORT_SYMBOL(ibdev_notice);

/**
 * ibdev_info - log an informational message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_info(const struct ib_device *ibdev, const char *format, ...)
{
	IBDEV_LEVEL_BODY(KERN_INFO);
}
EXPORT_SYMBOL(ibdev_info);

/* ---- small helpers of the API ---------------------------------------------------- */

/*
 * Namespace mode.  Shared (the default): every device is visible from
 * every network namespace.  Exclusive: a device is visible only from the
 * namespace it belongs to (ib_core_device.rdma_net: set at registration
 * by ib_assign_netns(), back to init_net when that namespace dies).  Set
 * at load time with the netns_mode parameter or later with "rdma system
 * set netns"; read locklessly, written under ib_devices_rwsem.
 */
static bool ib_devices_shared_netns = true;
module_param_named(netns_mode, ib_devices_shared_netns, bool, 0444);
MODULE_PARM_DESC(netns_mode,
		 "Share RDMA devices with all net namespaces (default) or only with the namespace they belong to");

/**
 * rdma_dev_access_netns - may a namespace see an RDMA device?
 * @device: the device
 * @net: the namespace asking
 *
 * Return: true in shared mode; in exclusive mode, true only if @device
 * belongs to @net.
 */
bool rdma_dev_access_netns(const struct ib_device *device,
			   const struct net *net)
{
	return READ_ONCE(ib_devices_shared_netns) ||
	       net_eq(read_pnet(&device->coredev.rdma_net), net);
}
EXPORT_SYMBOL(rdma_dev_access_netns);

/**
 * rdma_netns_shared - the namespace mode
 *
 * Return: true in shared mode, false in exclusive mode.
 */
bool rdma_netns_shared(void)
{
	return READ_ONCE(ib_devices_shared_netns);
}

/**
 * rdma_set_netns_shared - switch the namespace mode
 * @shared: true for shared mode, false for exclusive mode
 *
 * Shared mode cannot come back while a device belongs to a namespace
 * other than init_net (it would become visible everywhere).
 *
 * Context: process context; sleeps.
 * Return: 0, or -EBUSY.
 */
int rdma_set_netns_shared(bool shared)
{
	struct ib_device *dev;
	unsigned long index;
	int ret = 0;

	down_write(&ib_devices_rwsem);
	if (shared && !ib_devices_shared_netns) {
		xa_for_each(&ib_devices, index, dev) {
			if (!net_eq(read_pnet(&dev->coredev.rdma_net),
				    &init_net)) {
				ret = -EBUSY;
				break;
			}
		}
	}
	if (!ret)
		WRITE_ONCE(ib_devices_shared_netns, shared);
	up_write(&ib_devices_rwsem);
	return ret;
}

/**
 * rdma_node_get_transport - transport implied by a node type
 * @node_type: an RDMA_NODE_* value
 *
 * Return: RDMA_TRANSPORT_IWARP for an RNIC, the usNIC transports for the
 * usNIC node types, RDMA_TRANSPORT_UNSPECIFIED for an unspecified node and
 * RDMA_TRANSPORT_IB for everything else (CAs, switches, routers).
 */
__attribute_const__ enum rdma_transport_type
rdma_node_get_transport(unsigned int node_type)
{
	switch (node_type) {
	case RDMA_NODE_RNIC:
		return RDMA_TRANSPORT_IWARP;
	case RDMA_NODE_USNIC:
		return RDMA_TRANSPORT_USNIC;
	case RDMA_NODE_USNIC_UDP:
		return RDMA_TRANSPORT_USNIC_UDP;
	case RDMA_NODE_UNSPECIFIED:
		return RDMA_TRANSPORT_UNSPECIFIED;
	default:
		return RDMA_TRANSPORT_IB;
	}
}
EXPORT_SYMBOL(rdma_node_get_transport);

/**
 * rdma_port_get_link_layer - link layer under a port
 * @device: the device
 * @port_num: a valid port number
 *
 * Return: what the provider's get_link_layer() reports, or else
 * InfiniBand for IB-transport node types and Ethernet for the others.
 */
enum rdma_link_layer rdma_port_get_link_layer(struct ib_device *device,
					      u32 port_num)
{
	if (device->ops.get_link_layer)
		return device->ops.get_link_layer(device, port_num);
	if (rdma_node_get_transport(device->node_type) == RDMA_TRANSPORT_IB)
		return IB_LINK_LAYER_INFINIBAND;
	return IB_LINK_LAYER_ETHERNET;
}
EXPORT_SYMBOL(rdma_port_get_link_layer);

static const char * const ib_event_names[] = {
	[IB_EVENT_CQ_ERR]		= "CQ error",
	[IB_EVENT_QP_FATAL]		= "QP fatal error",
	[IB_EVENT_QP_REQ_ERR]		= "QP request error",
	[IB_EVENT_QP_ACCESS_ERR]	= "QP access error",
	[IB_EVENT_COMM_EST]		= "communication established",
	[IB_EVENT_SQ_DRAINED]		= "send queue drained",
	[IB_EVENT_PATH_MIG]		= "path migration successful",
	[IB_EVENT_PATH_MIG_ERR]		= "path migration error",
	[IB_EVENT_DEVICE_FATAL]		= "device fatal error",
	[IB_EVENT_PORT_ACTIVE]		= "port active",
	[IB_EVENT_PORT_ERR]		= "port error",
	[IB_EVENT_LID_CHANGE]		= "LID change",
	[IB_EVENT_PKEY_CHANGE]		= "P_key change",
	[IB_EVENT_SM_CHANGE]		= "SM change",
	[IB_EVENT_SRQ_ERR]		= "SRQ error",
	[IB_EVENT_SRQ_LIMIT_REACHED]	= "SRQ limit reached",
	[IB_EVENT_QP_LAST_WQE_REACHED]	= "last WQE reached",
	[IB_EVENT_CLIENT_REREGISTER]	= "client reregister",
	[IB_EVENT_GID_CHANGE]		= "GID changed",
	[IB_EVENT_WQ_FATAL]		= "WQ fatal error",
};

/**
 * ib_event_msg - printable name of an asynchronous event
 * @event: the event type
 *
 * Return: a constant string; "unrecognized event" for unknown values.
 */
const char *__attribute_const__ ib_event_msg(enum ib_event_type event)
{
	size_t i = event;

	if (i < ARRAY_SIZE(ib_event_names) && ib_event_names[i])
		return ib_event_names[i];
	return "unrecognized event";
}
EXPORT_SYMBOL(ib_event_msg);

/**
 * rdma_alloc_hw_stats_struct - allocate a block of hardware counters
 * @descs: one descriptor per counter (kept by reference)
 * @num_counters: number of counters
 * @lifespan: how long read values are served from the cache, in ms
 *
 * Context: process context (GFP_KERNEL).
 * Return: the zeroed block with every counter enabled, or NULL when out of
 * memory or @num_counters is negative.
 */
struct rdma_hw_stats *
rdma_alloc_hw_stats_struct(const struct rdma_stat_desc *descs,
			   int num_counters, unsigned long lifespan)
{
	struct rdma_hw_stats *stats;

	if (num_counters < 0)
		return NULL;

	stats = kzalloc(struct_size(stats, value, num_counters), GFP_KERNEL);
	if (!stats)
		return NULL;
	stats->is_disabled = kcalloc(BITS_TO_LONGS(num_counters),
				     sizeof(*stats->is_disabled), GFP_KERNEL);
	if (!stats->is_disabled) {
		kfree(stats);
		return NULL;
	}
	stats->descs = descs;
	stats->num_counters = num_counters;
	stats->lifespan = msecs_to_jiffies(lifespan);
	mutex_init(&stats->lock);
	return stats;
}
EXPORT_SYMBOL(rdma_alloc_hw_stats_struct);

/**
 * rdma_free_hw_stats_struct - free a block from rdma_alloc_hw_stats_struct()
 * @stats: the block, or NULL
 */
void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats)
{
	if (!stats)
		return;
	mutex_destroy(&stats->lock);
	kfree(stats->is_disabled);
	kfree(stats);
}
EXPORT_SYMBOL(rdma_free_hw_stats_struct);

/* ---- allocation and ops ------------------------------------------------------------ */

static void ib_unregister_work(struct work_struct *work);

/**
 * _ib_alloc_device - allocate a device with its provider structure
 * @size: size of the provider structure, which starts with struct ib_device
 *
 * Use through ib_alloc_device().  The memory is zeroed and the embedded
 * struct device is initialised (one reference, owned by the caller and
 * dropped by ib_dealloc_device()).
 *
 * Context: process context.
 * Return: the device, or NULL when out of memory or @size is too small.
 */
struct ib_device *_ib_alloc_device(size_t size)
{
	struct ib_device *device;
	unsigned int i;

	if (WARN_ON(size < sizeof(struct ib_device)))
		return NULL;

	device = kzalloc(size, GFP_KERNEL);
	if (!device)
		return NULL;

	/* The device and the core device must overlay exactly. */
	BUILD_BUG_ON(offsetof(struct ib_device, coredev.dev) !=
		     offsetof(struct ib_device, dev));

	device->dev.class = &ib_class;
	device->dev.groups = device->groups;
	device_initialize(&device->dev);
	device->coredev.owner = device;
	INIT_LIST_HEAD(&device->coredev.port_list);
	write_pnet(&device->coredev.rdma_net, &init_net);

	refcount_set(&device->refcount, 0);
	init_completion(&device->unreg_completion);
	INIT_WORK(&device->unregistration_work, ib_unregister_work);
	mutex_init(&device->unregistration_lock);

	/* ALLOC flag: a client's NULL data still keeps its slot and mark. */
	xa_init_flags(&device->client_data, XA_FLAGS_ALLOC);
	init_rwsem(&device->client_data_rwsem);

	init_rwsem(&device->event_handler_rwsem);
	INIT_LIST_HEAD(&device->event_handler_list);

	spin_lock_init(&device->qp_open_list_lock);
	rwlock_init(&device->cache_lock);
	spin_lock_init(&device->cq_pools_lock);
	for (i = 0; i < ARRAY_SIZE(device->cq_pools); i++)
		INIT_LIST_HEAD(&device->cq_pools[i]);

	device->name_assign_type = RDMA_NAME_ASSIGN_TYPE_UNKNOWN;
	return device;
}
EXPORT_SYMBOL(_ib_alloc_device);

static void ib_free_netdevs(struct ib_device *device);

/**
 * ib_dealloc_device - free a device from ib_alloc_device()
 * @device: the device, not registered (any more)
 *
 * Calls the provider's dealloc_driver() if it has one, removes the device
 * from the registry, releases the port netdevs and drops the reference
 * taken at allocation; the memory goes once the last get_device() holder
 * lets go.  Providers with dealloc_driver() must not call this after a
 * successful registration: unregistration calls it for them.
 *
 * Context: process context.
 */
void ib_dealloc_device(struct ib_device *device)
{
	WARN_ON(refcount_read(&device->refcount));

	if (device->ops.dealloc_driver)
		device->ops.dealloc_driver(device);

	/* Last op called: the device may now leave the registry. */
	down_write(&ib_devices_rwsem);
	if (xa_load(&ib_devices, device->index) == device)
		xa_erase(&ib_devices, device->index);
	up_write(&ib_devices_rwsem);

	ib_free_netdevs(device);
	WARN_ON(!xa_empty(&device->client_data));
	rdma_restrack_clean(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

static void ib_device_release(struct device *dev)
{
	struct ib_device *device = container_of(dev, struct ib_device, dev);

	ib_free_netdevs(device);
	WARN_ON(refcount_read(&device->refcount));
	if (device->port_data) {
		ib_cache_release_one(device);
		kfree_rcu(container_of(device->port_data, struct ib_port_array,
				       ports[0]), rcu);
	}
	xa_destroy(&device->client_data);
	mutex_destroy(&device->unregistration_lock);
	kfree_rcu(device, rcu_head);
}

static int ib_device_uevent(const struct device *dev,
			    struct kobj_uevent_env *env)
{
	return add_uevent_var(env, "NAME=%s", dev_name(dev));
}

/* Offsets into the provider's op table. */
#define IB_OPS_OFF(member) \
	offsetof(typeof(((struct ib_device *)NULL)->ops), member)
#define IB_OPS_END(member) \
	offsetofend(typeof(((struct ib_device *)NULL)->ops), member)

/*
 * Copy into @dst every word of [@from, @to) that is non-zero in @src.  Used
 * on the two homogeneous runs of struct ib_device_ops: the callbacks (all
 * pointers) and the object sizes (all size_t).
 */
static void ib_ops_merge_words(void *dst, const void *src, size_t from,
			       size_t to)
{
	const unsigned long *s = src + from;
	unsigned long *d = dst + from;
	size_t n = (to - from) / sizeof(unsigned long);

	while (n--) {
		if (*s)
			*d = *s;
		s++;
		d++;
	}
}

/**
 * ib_set_device_ops - install a provider's operations
 * @device: the device, before registration
 * @ops: the operations; only the members @ops sets are copied
 *
 * May be called several times to layer tables (a common base plus
 * variant-specific callbacks); later non-NULL callbacks and non-zero
 * object sizes win.  A second table naming a different driver_id is a
 * provider bug and warns.
 */
void ib_set_device_ops(struct ib_device *device,
		       const struct ib_device_ops *ops)
{
	typeof(device->ops) *dst = &device->ops;

	/* Both runs copied below must be made of whole machine words. */
	BUILD_BUG_ON(sizeof(void *) != sizeof(unsigned long));
	BUILD_BUG_ON(sizeof(size_t) != sizeof(unsigned long));
	BUILD_BUG_ON(IB_OPS_OFF(post_send) != IB_OPS_END(port_groups));
	BUILD_BUG_ON(IB_OPS_END(size_rdma_counter) != sizeof(*dst));
	BUILD_BUG_ON(IB_OPS_OFF(size_ib_ah) % sizeof(unsigned long));

	if (ops->driver_id != RDMA_DRIVER_UNKNOWN) {
		WARN_ON(dst->driver_id != RDMA_DRIVER_UNKNOWN &&
			dst->driver_id != ops->driver_id);
		dst->driver_id = ops->driver_id;
	}
	if (ops->owner)
		dst->owner = ops->owner;
	if (ops->uverbs_abi_ver)
		dst->uverbs_abi_ver = ops->uverbs_abi_ver;
	dst->uverbs_no_driver_id_binding |= ops->uverbs_no_driver_id_binding;
	if (ops->device_group)
		dst->device_group = ops->device_group;
	if (ops->port_groups)
		dst->port_groups = ops->port_groups;

	ib_ops_merge_words(dst, ops, IB_OPS_OFF(post_send),
			   IB_OPS_OFF(size_ib_ah));
	ib_ops_merge_words(dst, ops, IB_OPS_OFF(size_ib_ah), sizeof(*dst));
}
EXPORT_SYMBOL(ib_set_device_ops);

/* ---- ports ------------------------------------------------------------------------- */

/*
 * Allocate the port array once the provider has set phys_port_cnt.  Called
 * at registration and, earlier, by ib_device_set_netdev(); the provider
 * serialises the two.
 */
static int ib_alloc_port_data(struct ib_device *device)
{
	struct ib_port_array *array;
	u32 port;

	if (device->port_data)
		return 0;
	if (WARN_ON(!device->is_switch && !device->phys_port_cnt))
		return -EINVAL;
	if (WARN_ON(device->phys_port_cnt == U32_MAX))
		return -EINVAL;

	array = kzalloc(struct_size(array, ports,
				    size_add(rdma_end_port(device), 1)),
			GFP_KERNEL);
	if (!array)
		return -ENOMEM;

	rdma_for_each_port(device, port) {
		struct ib_port_data *pdata = &array->ports[port];

		pdata->ib_dev = device;
		spin_lock_init(&pdata->pkey_list_lock);
		INIT_LIST_HEAD(&pdata->pkey_list);
		spin_lock_init(&pdata->netdev_lock);
		INIT_HLIST_NODE(&pdata->ndev_hash_link);
	}
	device->port_data = array->ports;
	return 0;
}

/* Ask the provider for the fixed properties of every port. */
static int ib_setup_ports(struct ib_device *device)
{
	u32 port;
	int ret;

	ret = ib_alloc_port_data(device);
	if (ret)
		return ret;

	rdma_for_each_port(device, port) {
		struct ib_port_immutable *imm =
			&device->port_data[port].immutable;

		memset(imm, 0, sizeof(*imm));
		ret = device->ops.get_port_immutable(device, port, imm);
		if (ret)
			return ret;
		/* A port without MADs cannot have a MAD size. */
		if (WARN_ON(!rdma_cap_ib_mad(device, port) &&
			    rdma_max_mad_size(device, port)))
			return -EINVAL;
		if (WARN_ON(imm->gid_tbl_len < 0 || imm->pkey_tbl_len < 0))
			return -EINVAL;
	}
	return 0;
}

/**
 * ib_port_immutable_read - the fixed properties of a port
 * @dev: the device
 * @port: a valid port number
 *
 * Return: the data get_port_immutable() reported at registration, or NULL
 * (with a warning) for an invalid port.
 */
const struct ib_port_immutable *
ib_port_immutable_read(struct ib_device *dev, unsigned int port)
{
	if (WARN_ON(!rdma_is_port_valid(dev, port) || !dev->port_data))
		return NULL;
	return &dev->port_data[port].immutable;
}
EXPORT_SYMBOL(ib_port_immutable_read);

/**
 * ib_get_device_fw_str - firmware version of a device, as text
 * @device: the device
 * @str: buffer of at least IB_FW_VERSION_NAME_MAX bytes
 *
 * @str is the empty string when the provider has no get_dev_fw_str().
 */
void ib_get_device_fw_str(struct ib_device *device, char *str)
{
	if (device->ops.get_dev_fw_str)
		device->ops.get_dev_fw_str(device, str);
	else
		str[0] = '\0';
}
EXPORT_SYMBOL(ib_get_device_fw_str);

/* ---- the netdev under a port ------------------------------------------------------- */

/*
 * Clear the port's netdev and unhash the port.  Called with the port's
 * netdev_lock held; the reference goes back with the port's tracker.
 */
static void ib_port_drop_netdev(struct ib_port_data *pdata)
{
	struct net_device *ndev;

	ndev = rcu_dereference_protected(pdata->netdev,
					 lockdep_is_held(&pdata->netdev_lock));
	if (!ndev)
		return;

	spin_lock(&ndev_hash_lock);
	hash_del_rcu(&pdata->ndev_hash_link);
	spin_unlock(&ndev_hash_lock);

	RCU_INIT_POINTER(pdata->netdev, NULL);
	/*
	 * Readers that loaded the pointer before it was cleared finish their
	 * RCU section before the netdev can be freed: netdev unregistration
	 * waits a grace period after its notifiers.
	 */
	netdev_put(ndev, &pdata->netdev_tracker);
}

static void ib_free_netdevs(struct ib_device *device)
{
	unsigned long flags;
	u32 port;

	if (!device->port_data)
		return;

	rdma_for_each_port(device, port) {
		struct ib_port_data *pdata = &device->port_data[port];

		spin_lock_irqsave(&pdata->netdev_lock, flags);
		ib_port_drop_netdev(pdata);
		spin_unlock_irqrestore(&pdata->netdev_lock, flags);
	}
}

/**
 * ib_device_set_netdev - attach a netdev to a port (or detach it)
 * @ib_dev: the device; phys_port_cnt must be set, registration not needed
 * @ndev: the netdev, or NULL to detach
 * @port: the port
 *
 * The core holds its own tracked reference on @ndev until the port is
 * detached, the device is unregistered or @ndev is unregistered (the core
 * drops the port's netdev on NETDEV_UNREGISTER by itself).  @ndev must be
 * registered and not unregistering.
 *
 * Context: process context; sleeps (waits for an RCU grace period when
 * attaching).
 * Return: 0, -EINVAL for a bad port, -ENOMEM.
 */
int ib_device_set_netdev(struct ib_device *ib_dev, struct net_device *ndev,
			 unsigned int port)
{
	struct net_device *old, *detached = NULL;
	struct ib_port_data *pdata;
	unsigned long flags;
	int ret;

	if (!rdma_is_port_valid(ib_dev, port))
		return -EINVAL;
	ret = ib_alloc_port_data(ib_dev);
	if (ret)
		return ret;
	pdata = &ib_dev->port_data[port];

	mutex_lock(&ndev_set_lock);
	spin_lock_irqsave(&pdata->netdev_lock, flags);
	old = rcu_dereference_protected(pdata->netdev,
					lockdep_is_held(&pdata->netdev_lock));
	if (old == ndev) {
		spin_unlock_irqrestore(&pdata->netdev_lock, flags);
		goto out;
	}
	detached = old;
	ib_port_drop_netdev(pdata);
	spin_unlock_irqrestore(&pdata->netdev_lock, flags);

	if (ndev) {
		/*
		 * A hash walker may still stand on the node this port had in
		 * the table (here or in the notifier); it must be done before
		 * the node is linked in again.
		 */
		synchronize_rcu();

		spin_lock_irqsave(&pdata->netdev_lock, flags);
		netdev_hold(ndev, &pdata->netdev_tracker, GFP_ATOMIC);
		rcu_assign_pointer(pdata->netdev, ndev);
		spin_lock(&ndev_hash_lock);
		hash_add_rcu(ndev_hash, &pdata->ndev_hash_link,
			     (unsigned long)ndev);
		spin_unlock(&ndev_hash_lock);
		spin_unlock_irqrestore(&pdata->netdev_lock, flags);
	}
out:
	mutex_unlock(&ndev_set_lock);

	/* Only a registered device has a name and index to report. */
	if (refcount_read(&ib_dev->refcount) && old != ndev) {
		if (detached)
			nldev_notify_event(ib_dev, port, RDMA_NETDEV_DETACH_EVENT);
		if (ndev)
			nldev_notify_event(ib_dev, port, RDMA_NETDEV_ATTACH_EVENT);
	}
	return 0;
}
EXPORT_SYMBOL(ib_device_set_netdev);

/**
 * ib_device_get_netdev - the netdev under a port, with a reference
 * @ib_dev: the device
 * @port: the port
 *
 * Uses the provider's get_netdev() if it has one, else the netdev set with
 * ib_device_set_netdev().  A netdev that is no longer registered is not
 * returned.
 *
 * Context: any; does not sleep unless the provider's get_netdev() does.
 * Return: the netdev (release with dev_put()), or NULL.
 */
struct net_device *ib_device_get_netdev(struct ib_device *ib_dev, u32 port)
{
	struct net_device *ndev;

	if (!rdma_is_port_valid(ib_dev, port) || !ib_dev->port_data)
		return NULL;

	if (ib_dev->ops.get_netdev) {
		ndev = ib_dev->ops.get_netdev(ib_dev, port);
	} else {
		rcu_read_lock();
		ndev = rcu_dereference(ib_dev->port_data[port].netdev);
		dev_hold(ndev);
		rcu_read_unlock();
	}

	if (ndev && READ_ONCE(ndev->reg_state) != NETREG_REGISTERED) {
		dev_put(ndev);
		ndev = NULL;
	}
	return ndev;
}
EXPORT_SYMBOL(ib_device_get_netdev);

/**
 * ib_device_get_by_netdev - the registered device a netdev sits under
 * @ndev: the netdev
 * @driver_id: the provider to match, or RDMA_DRIVER_UNKNOWN for any
 *
 * Only netdevs attached with ib_device_set_netdev() are found.
 *
 * Context: any (RCU lookup, no locks); used on receive paths.
 * Return: the device with a registration reference (ib_device_put()), or
 * NULL.
 */
struct ib_device *ib_device_get_by_netdev(struct net_device *ndev,
					  enum rdma_driver_id driver_id)
{
	struct ib_device *found = NULL;
	struct ib_port_data *pdata;

	rcu_read_lock();
	hash_for_each_possible_rcu(ndev_hash, pdata, ndev_hash_link,
				   (unsigned long)ndev) {
		struct ib_device *dev = pdata->ib_dev;

		if (rcu_access_pointer(pdata->netdev) != ndev)
			continue;
		if (driver_id != RDMA_DRIVER_UNKNOWN &&
		    dev->ops.driver_id != driver_id)
			continue;
		if (ib_device_try_get(dev)) {
			found = dev;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL(ib_device_get_by_netdev);

/* NETDEV_UNREGISTER: no port may keep a reference on a dying netdev. */
static void ib_forget_netdev(struct net_device *ndev)
{
	struct ib_port_data *pdata;
	unsigned long flags;

	rcu_read_lock();
	hash_for_each_possible_rcu(ndev_hash, pdata, ndev_hash_link,
				   (unsigned long)ndev) {
		if (rcu_access_pointer(pdata->netdev) != ndev)
			continue;
		spin_lock_irqsave(&pdata->netdev_lock, flags);
		if (rcu_access_pointer(pdata->netdev) == ndev)
			ib_port_drop_netdev(pdata);
		spin_unlock_irqrestore(&pdata->netdev_lock, flags);
	}
	rcu_read_unlock();
}

/* NETDEV_CHANGENAME: tell "rdma monitor" about every port on @ndev. */
static void ib_netdev_renamed(struct net_device *ndev)
{
	struct ib_device *ibdev;
	u32 port;

	ibdev = ib_device_get_by_netdev(ndev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev)
		return;
	rdma_for_each_port(ibdev, port) {
		struct net_device *cur = ib_device_get_netdev(ibdev, port);

		if (cur == ndev)
			nldev_notify_event(ibdev, port,
					   RDMA_NL_NETDEV_RENAME_EVENT);
		dev_put(cur);
	}
	ib_device_put(ibdev);
}

static int ib_netdev_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);

	if (event == NETDEV_UNREGISTER)
		ib_forget_netdev(ndev);
	else if (event == NETDEV_CHANGENAME)
		ib_netdev_renamed(ndev);
	return NOTIFY_DONE;
}

static struct notifier_block ib_netdev_nb = {
	.notifier_call = ib_netdev_event,
};

/* The RoCE port walk of one device; the caller keeps the device alive. */
static void ib_walk_roce_ports(struct ib_device *ib_dev,
			       roce_netdev_filter filter, void *filter_cookie,
			       roce_netdev_callback cb, void *cookie)
{
	u32 port;

	rdma_for_each_port(ib_dev, port) {
		struct net_device *ndev;

		if (!rdma_protocol_roce(ib_dev, port))
			continue;
		ndev = ib_device_get_netdev(ib_dev, port);
		if (filter(ib_dev, port, ndev, filter_cookie))
			cb(ib_dev, port, ndev, cookie);
		dev_put(ndev);
	}
}

/**
 * ib_enum_roce_netdev - call back for the RoCE ports of one device
 * @ib_dev: the device; the caller keeps its memory alive
 * @filter: decides, per (device, port, netdev), whether @cb runs; the
 *	netdev may be NULL
 * @filter_cookie: passed to @filter
 * @cb: the callback
 * @cookie: passed to @cb
 *
 * Runs with the registry lock held for read, like the all-devices walk, so
 * it must not be called from inside a walker callback or under RTNL.
 *
 * Context: process context; @filter and @cb may sleep.
 */
void ib_enum_roce_netdev(struct ib_device *ib_dev, roce_netdev_filter filter,
			 void *filter_cookie, roce_netdev_callback cb,
			 void *cookie)
{
	down_read(&ib_devices_rwsem);
	ib_walk_roce_ports(ib_dev, filter, filter_cookie, cb, cookie);
	up_read(&ib_devices_rwsem);
}

/**
 * ib_enum_all_roce_netdevs - call back for the RoCE ports of every device
 * @filter: as for ib_enum_roce_netdev()
 * @filter_cookie: passed to @filter
 * @cb: the callback
 * @cookie: passed to @cb
 *
 * Walks the registered devices with the registry lock held for read, so
 * no device finishes unregistering meanwhile.  Must not be called with
 * RTNL held.
 *
 * Context: process context; @filter and @cb may sleep.
 */
void ib_enum_all_roce_netdevs(roce_netdev_filter filter, void *filter_cookie,
			      roce_netdev_callback cb, void *cookie)
{
	struct ib_device *dev;
	unsigned long index;

	down_read(&ib_devices_rwsem);
	xa_for_each_marked(&ib_devices, index, dev, DEVICE_REGISTERED)
		ib_walk_roce_ports(dev, filter, filter_cookie, cb, cookie);
	up_read(&ib_devices_rwsem);
}

/* ---- lookups ------------------------------------------------------------------------ */

/**
 * ib_device_put - drop a registration reference
 * @device: the device
 *
 * Pairs with a successful ib_device_try_get() or a lookup that returned
 * @device.  The last put lets a pending unregistration go on.
 *
 * Context: any.
 */
void ib_device_put(struct ib_device *device)
{
	if (refcount_dec_and_test(&device->refcount))
		complete(&device->unreg_completion);
}
EXPORT_SYMBOL(ib_device_put);

/* Any listed device (registered or not) called @name; registry lock held. */
static struct ib_device *ib_find_name_locked(const char *name)
{
	struct ib_device *dev;
	unsigned long index;

	xa_for_each(&ib_devices, index, dev)
		if (!strcmp(dev->name, name))
			return dev;
	return NULL;
}

/**
 * ib_device_get_by_name - look a registered device up by name
 * @name: the name
 * @driver_id: the provider to match, or RDMA_DRIVER_UNKNOWN for any
 *
 * Context: process context.
 * Return: the device with a registration reference (ib_device_put()), or
 * NULL.
 */
struct ib_device *ib_device_get_by_name(const char *name,
					enum rdma_driver_id driver_id)
{
	struct ib_device *dev;

	down_read(&ib_devices_rwsem);
	dev = ib_find_name_locked(name);
	if (dev && driver_id != RDMA_DRIVER_UNKNOWN &&
	    dev->ops.driver_id != driver_id)
		dev = NULL;
	if (dev && !ib_device_try_get(dev))
		dev = NULL;
	up_read(&ib_devices_rwsem);
	return dev;
}
EXPORT_SYMBOL(ib_device_get_by_name);

/**
 * ib_device_get_by_index - look a registered device up by index
 * @net: the namespace asking
 * @index: the device index (netlink's DEV_INDEX)
 *
 * Context: process context.
 * Return: the device with a registration reference (ib_device_put()), or
 * NULL.
 */
struct ib_device *ib_device_get_by_index(const struct net *net, u32 index)
{
	struct ib_device *dev;

	down_read(&ib_devices_rwsem);
	dev = xa_load(&ib_devices, index);
	if (dev && (!rdma_dev_access_netns(dev, net) ||
		    !ib_device_try_get(dev)))
		dev = NULL;
	up_read(&ib_devices_rwsem);
	return dev;
}

/**
 * ib_enum_all_devs - call @fn for every registered device
 * @fn: the callback; a non-zero return stops the walk
 * @arg: passed to @fn
 *
 * @fn runs with the registry lock held for read, in index order.
 *
 * Context: process context; @fn may sleep.
 * Return: 0, or the first non-zero value @fn returned.
 */
int ib_enum_all_devs(int (*fn)(struct ib_device *dev, void *arg), void *arg)
{
	struct ib_device *dev;
	unsigned long index;
	int ret = 0;

	down_read(&ib_devices_rwsem);
	xa_for_each_marked(&ib_devices, index, dev, DEVICE_REGISTERED) {
		ret = fn(dev, arg);
		if (ret)
			break;
	}
	up_read(&ib_devices_rwsem);
	return ret;
}

/* ---- names --------------------------------------------------------------------------- */

/* A literal name must fit, be non-empty and be usable as a sysfs name. */
static int ib_check_name(const char *name)
{
	size_t len = strnlen(name, IB_DEVICE_NAME_MAX);

	if (!len || len >= IB_DEVICE_NAME_MAX)
		return -EINVAL;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	return 0;
}

/*
 * Expand a template holding exactly one "%d" to the lowest number that
 * gives an unused name.  Registry lock held for write.
 */
static int ib_name_from_template(const char *tmpl, char *out)
{
	const char *pct = strchr(tmpl, '%');
	int prefix = pct - tmpl;
	const char *suffix = pct + 2;
	int n;

	if (pct[1] != 'd' || strchr(suffix, '%'))
		return -EINVAL;

	for (n = 0; n < INT_MAX; n++) {
		int len = snprintf(out, IB_DEVICE_NAME_MAX, "%.*s%d%s",
				   prefix, tmpl, n, suffix);

		if (len >= IB_DEVICE_NAME_MAX)
			return -EINVAL;
		if (ib_check_name(out))
			return -EINVAL;
		if (!ib_find_name_locked(out))
			return 0;
	}
	return -ENFILE;
}

/* Name the device and give it an index: it is now listed, unregistered. */
static int ib_assign_name(struct ib_device *device, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];
	int ret;

	down_write(&ib_devices_rwsem);
	if (strchr(name, '%')) {
		ret = ib_name_from_template(name, buf);
	} else {
		ret = ib_check_name(name);
		if (!ret && ib_find_name_locked(name))
			ret = -ENFILE;
		if (!ret)
			strscpy(buf, name, sizeof(buf));
	}
	if (ret)
		goto out;

	ret = dev_set_name(&device->dev, "%s", buf);
	if (ret)
		goto out;
	strscpy(device->name, buf, IB_DEVICE_NAME_MAX);

	ret = xa_alloc_cyclic(&ib_devices, &device->index, device, xa_limit_31b,
			      &ib_devices_next, GFP_KERNEL);
	if (ret > 0)
		ret = 0;
out:
	up_write(&ib_devices_rwsem);
	return ret;
}

/* Undo ib_assign_name() after a failed registration. */
static void ib_unlist_device(struct ib_device *device)
{
	down_write(&ib_devices_rwsem);
	if (xa_load(&ib_devices, device->index) == device)
		xa_erase(&ib_devices, device->index);
	up_write(&ib_devices_rwsem);
}

/**
 * ib_device_rename - give a registered device a new name
 * @ibdev: the device
 * @name: the new name (no '%' templates)
 *
 * Clients with a rename() callback are told once the new name is in place.
 *
 * Context: process context.
 * Return: 0 (also when the name does not change), -EINVAL for an invalid
 * name, -EEXIST if another device has it, -ENODEV if @ibdev is not
 * registered, or the error of the sysfs rename.
 */
int ib_device_rename(struct ib_device *ibdev, const char *name)
{
	u32 id, end;
	int ret;

	if (!name || strchr(name, '%'))
		return -EINVAL;
	ret = ib_check_name(name);
	if (ret)
		return ret;

	down_write(&ib_devices_rwsem);
	if (xa_load(&ib_devices, ibdev->index) != ibdev ||
	    !xa_get_mark(&ib_devices, ibdev->index, DEVICE_REGISTERED)) {
		up_write(&ib_devices_rwsem);
		return -ENODEV;
	}
	if (!strcmp(name, ibdev->name)) {
		up_write(&ib_devices_rwsem);
		return 0;
	}
	if (ib_find_name_locked(name)) {
		up_write(&ib_devices_rwsem);
		return -EEXIST;
	}
	ret = device_rename(&ibdev->dev, name);
	if (ret) {
		up_write(&ib_devices_rwsem);
		return ret;
	}
	strscpy(ibdev->name, name, IB_DEVICE_NAME_MAX);
	downgrade_write(&ib_devices_rwsem);

	down_read(&ib_clients_rwsem);
	end = ib_clients_end;
	down_read(&ibdev->client_data_rwsem);
	for (id = 0; id < end; id++) {
		struct ib_client *client;

		if (!xa_get_mark(&ibdev->client_data, id,
				 CLIENT_DATA_REGISTERED))
			continue;
		client = xa_load(&ib_clients, id);
		if (client && client->rename)
			client->rename(ibdev, xa_load(&ibdev->client_data, id));
	}
	up_read(&ibdev->client_data_rwsem);
	up_read(&ib_clients_rwsem);
	up_read(&ib_devices_rwsem);
	nldev_notify_event(ibdev, 0, RDMA_NL_RENAME_EVENT);
	return 0;
}
EXPORT_SYMBOL(ib_device_rename);

/* ---- clients --------------------------------------------------------------------- */

static void ib_client_put(struct ib_client *client)
{
	if (refcount_dec_and_test(&client->uses))
		complete(&client->uses_zero);
}

/* The registered client called @name with a use held, or NULL. */
static struct ib_client *ib_client_get_by_name(const char *name)
{
	struct ib_client *client, *found = NULL;
	unsigned long id;

	down_read(&ib_clients_rwsem);
	xa_for_each_marked(&ib_clients, id, client, CLIENT_REGISTERED) {
		if (!strcmp(client->name, name)) {
			if (refcount_inc_not_zero(&client->uses))
				found = client;
			break;
		}
	}
	up_read(&ib_clients_rwsem);
	return found;
}

static int ib_client_nl_info_of(struct ib_device *ibdev,
				struct ib_client *client,
				struct ib_client_nl_info *res)
{
	void *data;
	int ret;

	if (!ibdev) {
		if (!client->get_global_nl_info)
			return -EOPNOTSUPP;
		return client->get_global_nl_info(res);
	}
	if (!client->get_nl_info)
		return -EOPNOTSUPP;
	down_read(&ibdev->client_data_rwsem);
	if (!xa_get_mark(&ibdev->client_data, client->client_id,
			 CLIENT_DATA_REGISTERED)) {
		ret = -EOPNOTSUPP;
	} else {
		data = xa_load(&ibdev->client_data, client->client_id);
		ret = client->get_nl_info(ibdev, data, res);
	}
	up_read(&ibdev->client_data_rwsem);
	return ret;
}

/**
 * ib_get_client_nl_info - ask a client which char device it offers
 * @ibdev: the device (pinned by the caller), or NULL for the client's
 *	global char device
 * @client_name: the ib_client name ("uverbs", "umad", "rdma_cm")
 * @res: in: @res->port and @res->nl_msg; out: the char device (with a
 *	reference the caller drops with put_device()) and its ABI version
 *
 * A client that is not loaded is asked for through its
 * "rdma-client-<name>" module alias once.
 *
 * Context: process context; sleeps.
 * Return: 0; -EOPNOTSUPP if no such client, or it has nothing to offer
 * for @ibdev; the client's error otherwise.
 */
int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res)
{
	struct ib_client *client;
	int ret;

	client = ib_client_get_by_name(client_name);
	if (!client) {
		request_module("rdma-client-%s", client_name);
		client = ib_client_get_by_name(client_name);
	}
	if (!client)
		return -EOPNOTSUPP;

	ret = ib_client_nl_info_of(ibdev, client, res);
	ib_client_put(client);
	if (ret)
		return ret;
	if (WARN_ON(!res->cdev))
		return -EINVAL;
	return 0;
}

/*
 * Attach @client to @device: call add() and mark the context.  Safe to
 * race with itself (the second caller finds the mark) and with a detach
 * (client_data_rwsem).  An attached context holds one use of the client.
 */
static int ib_client_attach(struct ib_device *device, struct ib_client *client)
{
	u32 id = client->client_id;
	int ret;

	if (!device->kverbs_provider && !client->no_kverbs_req)
		return 0;

	down_write(&device->client_data_rwsem);
	if (!refcount_inc_not_zero(&client->uses)) {
		/* The client is on its way out. */
		up_write(&device->client_data_rwsem);
		return 0;
	}
	if (xa_get_mark(&device->client_data, id, CLIENT_DATA_REGISTERED)) {
		ret = 0;
		goto err_put;
	}
	ret = xa_err(xa_store(&device->client_data, id, NULL, GFP_KERNEL));
	if (ret)
		goto err_put;

	/* No detach may overtake add(): keep the lock, shared. */
	downgrade_write(&device->client_data_rwsem);
	if (client->add) {
		ret = client->add(device);
		if (ret) {
			if (ret != -EOPNOTSUPP)
				ibdev_warn(device, "client %s failed to attach: %d\n",
					   client->name, ret);
			xa_erase(&device->client_data, id);
			up_read(&device->client_data_rwsem);
			ib_client_put(client);
			/* A client that declines a device is not an error. */
			return 0;
		}
	}
	xa_set_mark(&device->client_data, id, CLIENT_DATA_REGISTERED);
	up_read(&device->client_data_rwsem);
	return 0;

err_put:
	up_write(&device->client_data_rwsem);
	ib_client_put(client);
	return ret;
}

/* Detach client @id from @device if it is attached: remove() runs unlocked. */
static void ib_client_detach(struct ib_device *device, u32 id)
{
	struct ib_client *client;
	void *data;

	down_write(&device->client_data_rwsem);
	if (!xa_get_mark(&device->client_data, id, CLIENT_DATA_REGISTERED)) {
		up_write(&device->client_data_rwsem);
		return;
	}
	data = xa_load(&device->client_data, id);
	xa_clear_mark(&device->client_data, id, CLIENT_DATA_REGISTERED);
	/* The context holds a use, so the client is still listed. */
	client = xa_load(&ib_clients, id);
	up_write(&device->client_data_rwsem);

	if (client->remove)
		client->remove(device, data);

	xa_erase(&device->client_data, id);
	ib_client_put(client);
}

/**
 * ib_register_client - register a kernel user of RDMA devices
 * @client: the client, with its callbacks set
 *
 * add() is called for every registered device now and for every device
 * registered later, with clients called in the order they registered;
 * remove() is called in the reverse order.  add() runs with the core's
 * registry locks held and must not look devices up by name or index.
 *
 * Context: process context.
 * Return: 0, or -ENOMEM.
 */
int ib_register_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;
	int ret;

	refcount_set(&client->uses, 1);
	init_completion(&client->uses_zero);

	/* Writer on both: no device registration runs its client walk now. */
	down_write(&ib_devices_rwsem);
	down_write(&ib_clients_rwsem);
	ret = xa_insert(&ib_clients, ib_clients_end, client, GFP_KERNEL);
	if (ret) {
		up_write(&ib_clients_rwsem);
		up_write(&ib_devices_rwsem);
		return ret;
	}
	client->client_id = ib_clients_end++;
	xa_set_mark(&ib_clients, client->client_id, CLIENT_REGISTERED);

	xa_for_each_marked(&ib_devices, index, device, DEVICE_REGISTERED) {
		ret = ib_client_attach(device, client);
		if (ret)
			break;
	}
	up_write(&ib_clients_rwsem);
	up_write(&ib_devices_rwsem);

	if (ret)
		ib_unregister_client(client);
	return ret;
}
EXPORT_SYMBOL(ib_register_client);

/**
 * ib_unregister_client - remove a client from every device
 * @client: a registered client
 *
 * remove() is called for every device the client is attached to.  When
 * this returns no callback of @client runs or will run.
 *
 * Context: process context.
 */
void ib_unregister_client(struct ib_client *client)
{
	struct ib_device *device;
	unsigned long index;
	u32 id = client->client_id;

	down_write(&ib_clients_rwsem);
	xa_clear_mark(&ib_clients, id, CLIENT_REGISTERED);
	/* Drop the registration's use: no attach can succeed from now on. */
	ib_client_put(client);
	up_write(&ib_clients_rwsem);

	/*
	 * Walk under RCU, not the registry lock, since remove() may call
	 * anything.  Devices that are unregistering (try_get fails) detach
	 * the client themselves; the wait below covers them.
	 */
	rcu_read_lock();
	xa_for_each(&ib_devices, index, device) {
		if (!ib_device_try_get(device))
			continue;
		rcu_read_unlock();
		ib_client_detach(device, id);
		ib_device_put(device);
		rcu_read_lock();
	}
	rcu_read_unlock();

	wait_for_completion(&client->uses_zero);

	down_write(&ib_clients_rwsem);
	xa_erase(&ib_clients, id);
	while (ib_clients_end && !xa_load(&ib_clients, ib_clients_end - 1))
		ib_clients_end--;
	up_write(&ib_clients_rwsem);
}
EXPORT_SYMBOL(ib_unregister_client);

/**
 * ib_set_client_data - store a client's per-device pointer
 * @device: the device
 * @client: the client, attached to @device (from add() until remove())
 * @data: the pointer; ib_get_client_data() returns it
 *
 * Context: process context.
 */
void ib_set_client_data(struct ib_device *device, struct ib_client *client,
			void *data)
{
	void *old;

	if (WARN_ON(IS_ERR(data)))
		data = NULL;
	old = xa_store(&device->client_data, client->client_id, data,
		       GFP_KERNEL);
	WARN_ON(xa_is_err(old));
}
EXPORT_SYMBOL(ib_set_client_data);

/**
 * ib_get_net_dev_by_params - ask the clients for the netdev of an address
 * @dev: the device
 * @port: the port
 * @pkey: the P_Key
 * @gid: the GID
 * @addr: the IP address, if known
 *
 * Each attached client with get_net_dev_by_params() is asked in turn (for
 * instance IPoIB, for its interfaces) until one answers.  Only IB ports
 * are asked.
 *
 * Context: process context.
 * Return: the netdev with a reference held, or NULL.
 */
struct net_device *ib_get_net_dev_by_params(struct ib_device *dev, u32 port,
					    u16 pkey, const union ib_gid *gid,
					    const struct sockaddr *addr)
{
	struct net_device *ndev = NULL;
	u32 id, end;

	if (!rdma_is_port_valid(dev, port) || !rdma_protocol_ib(dev, port))
		return NULL;

	down_read(&dev->client_data_rwsem);
	end = READ_ONCE(ib_clients_end);
	for (id = 0; id < end && !ndev; id++) {
		struct ib_client *client;

		if (!xa_get_mark(&dev->client_data, id, CLIENT_DATA_REGISTERED))
			continue;
		client = xa_load(&ib_clients, id);
		if (!client || !client->get_net_dev_by_params)
			continue;
		ndev = client->get_net_dev_by_params(dev, port, pkey, gid, addr,
						      xa_load(&dev->client_data,
							      id));
	}
	up_read(&dev->client_data_rwsem);
	return ndev;
}
EXPORT_SYMBOL(ib_get_net_dev_by_params);

/* ---- registration ------------------------------------------------------------------ */

/*
 * Callbacks without which the core or a kernel ULP cannot use a device.
 * User-space-only callbacks (reg_user_mr, ...) are not required.
 */
#define IB_REQUIRED_OP(op) { IB_OPS_OFF(op), #op }
static const struct {
	size_t offset;
	const char *name;
} ib_required_ops[] = {
	IB_REQUIRED_OP(query_device),
	IB_REQUIRED_OP(query_port),
	IB_REQUIRED_OP(get_port_immutable),
	IB_REQUIRED_OP(alloc_pd),
	IB_REQUIRED_OP(dealloc_pd),
	IB_REQUIRED_OP(create_qp),
	IB_REQUIRED_OP(modify_qp),
	IB_REQUIRED_OP(destroy_qp),
	IB_REQUIRED_OP(post_send),
	IB_REQUIRED_OP(post_recv),
	IB_REQUIRED_OP(create_cq),
	IB_REQUIRED_OP(destroy_cq),
	IB_REQUIRED_OP(poll_cq),
	IB_REQUIRED_OP(req_notify_cq),
	IB_REQUIRED_OP(get_dma_mr),
	IB_REQUIRED_OP(dereg_mr),
};

static int ib_check_required_ops(struct ib_device *device)
{
	const void *ops = &device->ops;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ib_required_ops); i++) {
		const unsigned long *slot = ops + ib_required_ops[i].offset;

		if (!*slot) {
			ibdev_warn(device, "provider lacks the %s callback\n",
				   ib_required_ops[i].name);
			return -EINVAL;
		}
	}
	return 0;
}

/* Refresh ib_device.attrs from the provider. */
static int ib_query_device_attrs(struct ib_device *device)
{
	struct ib_udata uhw = {};
	struct ib_device_attr *attr;
	int ret;

	/* Through a copy: a provider may answer from device->attrs itself. */
	attr = kzalloc(sizeof(*attr), GFP_KERNEL);
	if (!attr)
		return -ENOMEM;
	ret = device->ops.query_device(device, attr, &uhw);
	if (!ret)
		device->attrs = *attr;
	kfree(attr);
	return ret;
}

/*
 * In exclusive mode a device belongs to the namespace of the netdev under
 * its first port (a container's "rdma link add" makes a device only the
 * container sees); otherwise, and without a netdev, to init_net.  Registry
 * lock held for write, so the mode cannot change meanwhile.
 */
static void ib_assign_netns(struct ib_device *device)
{
	struct net_device *ndev;
	struct net *net = &init_net;

	if (!ib_devices_shared_netns) {
		ndev = ib_device_get_netdev(device, rdma_start_port(device));
		if (ndev)
			net = dev_net(ndev);
		dev_put(ndev);
	}
	write_pnet(&device->coredev.rdma_net, net);
}

/*
 * A namespace goes away: its devices fall back to init_net.  Their
 * netdevs are gone or moving back there too; providers remove devices
 * whose netdev is unregistered.
 */
static void __net_exit ib_netns_exit(struct net *net)
{
	struct ib_device *dev;
	unsigned long index;

	down_write(&ib_devices_rwsem);
	xa_for_each(&ib_devices, index, dev) {
		if (net_eq(read_pnet(&dev->coredev.rdma_net), net))
			write_pnet(&dev->coredev.rdma_net, &init_net);
	}
	up_write(&ib_devices_rwsem);
}

static struct pernet_operations ib_netns_ops = {
	.exit = ib_netns_exit,
};

/*
 * Make the device visible: registration reference, mark, then every
 * registered client in id order.  The caller gets a second reference of
 * its own so that a racing unregistration cannot finish under it.
 */
static void ib_publish_device(struct ib_device *device)
{
	struct ib_client *client;
	unsigned long id;

	reinit_completion(&device->unreg_completion);
	refcount_set(&device->refcount, 2);

	down_write(&ib_devices_rwsem);
	ib_assign_netns(device);
	xa_set_mark(&ib_devices, device->index, DEVICE_REGISTERED);
	/* Still a reader: no client registration interleaves the walk. */
	downgrade_write(&ib_devices_rwsem);

	down_read(&ib_clients_rwsem);
	xa_for_each_marked(&ib_clients, id, client, CLIENT_REGISTERED) {
		if (ib_client_attach(device, client))
			ibdev_warn(device, "could not attach client %s\n",
				   client->name);
	}
	up_read(&ib_clients_rwsem);
	up_read(&ib_devices_rwsem);
}

/* Fill the GID tables of the RoCE ports from the netdevs of the system. */
static void ib_rescan_roce(struct ib_device *device)
{
	u32 port;

	rdma_for_each_port(device, port) {
		if (rdma_cap_roce_gid_table(device, port)) {
			rdma_roce_rescan_device(device);
			return;
		}
	}
}

/* Undo what registration set up after device_add(); reverse order. */
static void ib_teardown_device(struct ib_device *device)
{
	ib_free_port_attrs(&device->coredev);
	device_del(&device->dev);
	rdma_counters_release(device);
	ib_cache_cleanup_one(device);
	rdma_restrack_clean(device);
}

/**
 * ib_register_device - make a device available to the core and its users
 * @device: a device from ib_alloc_device() with its ops, port count and
 *	attributes set
 * @name: the name, or a template with one "%d" ("rxe%d" becomes the
 *	lowest free rxeN)
 * @dma_device: the device to DMA-map against, or NULL for providers that
 *	use virtual addresses
 *
 * Reads the fixed port data, sets up the tracking tables, the GID/P_Key
 * cache and sysfs, runs the provider's enable_driver(), then makes the
 * device visible and attaches every registered client in order; RoCE GID
 * tables are filled last.  On failure nothing of this is left behind and
 * the caller still owns the device (free it with ib_dealloc_device()).  If
 * the provider uses dealloc_driver() and unregisters from another thread,
 * @device may be freed by the time this returns.
 *
 * Context: process context; sleeps.  Not under RTNL.
 * Return: 0; -EINVAL for a missing required callback or bad name or port
 * data, -ENFILE if the name is taken, -EEXIST if @device is already
 * registered, -ENOMEM, or the provider's error.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	int ret;

	if (!name)
		return -EINVAL;
	if (refcount_read(&device->refcount))
		return -EEXIST;
	ret = ib_check_required_ops(device);
	if (ret)
		return ret;

	ret = ib_assign_name(device, name);
	if (ret)
		return ret;

	WARN_ON(dma_device && !dma_device->dma_parms);
	device->dma_device = dma_device;
	device->kverbs_provider = true;

	ret = ib_setup_ports(device);
	if (ret) {
		ibdev_warn(device, "could not read the port properties: %d\n",
			   ret);
		goto err_unlist;
	}
	ret = ib_query_device_attrs(device);
	if (ret) {
		ibdev_warn(device, "could not query the device: %d\n", ret);
		goto err_unlist;
	}
	ret = rdma_restrack_init(device);
	if (ret)
		goto err_unlist;
	ret = ib_cache_setup_one(device);
	if (ret) {
		ibdev_warn(device, "could not set up the GID/P_Key cache: %d\n",
			   ret);
		goto err_restrack;
	}
	ret = rdma_counters_init(device);
	if (ret)
		goto err_cache;
	ret = ib_setup_device_attrs(device);
	if (ret)
		goto err_counters;

	/* The ADD uevent waits until the ports are in sysfs too. */
	dev_set_uevent_suppress(&device->dev, true);
	ret = device_add(&device->dev);
	if (ret)
		goto err_uevent;
	ret = ib_setup_port_attrs(&device->coredev);
	if (ret) {
		ibdev_warn(device, "could not create the port sysfs: %d\n", ret);
		goto err_del;
	}
	if (device->ops.enable_driver) {
		ret = device->ops.enable_driver(device);
		if (ret)
			goto err_ports;
	}

	ib_publish_device(device);
	dev_set_uevent_suppress(&device->dev, false);
	kobject_uevent(&device->dev.kobj, KOBJ_ADD);
	ib_rescan_roce(device);
	nldev_notify_event(device, 0, RDMA_REGISTER_EVENT);

	/* Last touch: a racing unregistration may free the device now. */
	ib_device_put(device);
	return 0;

err_ports:
	ib_free_port_attrs(&device->coredev);
err_del:
	device_del(&device->dev);
err_uevent:
	dev_set_uevent_suppress(&device->dev, false);
err_counters:
	rdma_counters_release(device);
err_cache:
	ib_cache_cleanup_one(device);
	/* Nothing saw the tables: free them now, so a retry starts clean. */
	ib_cache_release_one(device);
err_restrack:
	rdma_restrack_clean(device);
err_unlist:
	ib_unlist_device(device);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

/*
 * Unregister @device if it still is registered.  The caller holds a
 * get_device() reference.  Returns with the device unregistered even if
 * another thread did the work.
 */
static void __ib_unregister_device(struct ib_device *device)
{
	u32 id;

	mutex_lock(&device->unregistration_lock);
	if (!refcount_read(&device->refcount)) {
		mutex_unlock(&device->unregistration_lock);
		return;
	}

	/* 1. No new lookup or client walk finds the device. */
	nldev_notify_event(device, 0, RDMA_UNREGISTER_EVENT);
	down_write(&ib_devices_rwsem);
	xa_clear_mark(&ib_devices, device->index, DEVICE_REGISTERED);
	up_write(&ib_devices_rwsem);

	/* 2. Drop the registration reference and wait for every holder. */
	ib_device_put(device);
	wait_for_completion(&device->unreg_completion);

	/* 3. Clients, newest first. */
	down_read(&ib_clients_rwsem);
	id = ib_clients_end;
	up_read(&ib_clients_rwsem);
	while (id--)
		ib_client_detach(device, id);

	/* 4. What the clients returned, then the rest in reverse. */
	ib_cq_pool_cleanup(device);
	ib_free_netdevs(device);
	ib_teardown_device(device);

	/*
	 * Free under the lock: a concurrent caller (ib_unregister_driver()
	 * at module unload) must not return before dealloc_driver() ran.
	 * Every caller holds get_device(), so the lock outlives the free.
	 */
	if (device->ops.dealloc_driver)
		ib_dealloc_device(device);
	mutex_unlock(&device->unregistration_lock);
}

/**
 * ib_unregister_device - unregister a device
 * @device: the device
 *
 * Every client's remove() runs and every registration reference is waited
 * for.  If the provider has dealloc_driver(), the device is also freed by
 * the time this returns; otherwise the provider frees it with
 * ib_dealloc_device().  Concurrent calls are allowed: all return once the
 * device is unregistered.
 *
 * Context: process context; sleeps.  Must not hold RTNL or locks a client
 * callback could take.
 */
void ib_unregister_device(struct ib_device *device)
{
	get_device(&device->dev);
	__ib_unregister_device(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_unregister_device);

/**
 * ib_unregister_device_and_put - unregister a device the caller holds
 * @device: the device, with a registration reference the caller owns
 *
 * As ib_unregister_device(), dropping the caller's registration reference
 * (from ib_device_try_get() or a lookup) first.  For providers with
 * dealloc_driver().
 *
 * Context: process context; sleeps.
 */
void ib_unregister_device_and_put(struct ib_device *device)
{
	WARN_ON(!device->ops.dealloc_driver);
	get_device(&device->dev);
	ib_device_put(device);
	__ib_unregister_device(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_unregister_device_and_put);

/**
 * ib_unregister_driver - unregister every device of a provider
 * @driver_id: the provider
 *
 * A fence for module unload: returns only once every device of the
 * provider, including ones being unregistered by other threads or queued
 * with ib_unregister_device_queued(), has finished unregistering.
 *
 * Context: process context; sleeps.
 */
void ib_unregister_driver(enum rdma_driver_id driver_id)
{
	struct ib_device *device;
	unsigned long index;

	down_read(&ib_devices_rwsem);
	xa_for_each(&ib_devices, index, device) {
		if (device->ops.driver_id != driver_id)
			continue;
		get_device(&device->dev);
		up_read(&ib_devices_rwsem);

		WARN_ON(!device->ops.dealloc_driver);
		__ib_unregister_device(device);

		put_device(&device->dev);
		down_read(&ib_devices_rwsem);
	}
	up_read(&ib_devices_rwsem);
}
EXPORT_SYMBOL(ib_unregister_driver);

static void ib_unregister_work(struct work_struct *work)
{
	struct ib_device *device =
		container_of(work, struct ib_device, unregistration_work);

	__ib_unregister_device(device);
	put_device(&device->dev);
}

/**
 * ib_unregister_device_queued - unregister a device from a work item
 * @ib_dev: the device; its provider must have dealloc_driver()
 *
 * For callers that hold locks unregistration must not run under (RTNL in
 * a netdev notifier, for instance).  The work holds its own reference on
 * the device.  Providers call ib_unregister_driver() before unloading to
 * wait for queued unregistrations.
 *
 * Context: any context that may queue work.
 */
void ib_unregister_device_queued(struct ib_device *ib_dev)
{
	WARN_ON(!refcount_read(&ib_dev->refcount));
	WARN_ON(!ib_dev->ops.dealloc_driver);
	get_device(&ib_dev->dev);
	if (!queue_work(ib_unreg_wq, &ib_dev->unregistration_work))
		put_device(&ib_dev->dev);
}
EXPORT_SYMBOL(ib_unregister_device_queued);

/* ---- events -------------------------------------------------------------------------- */

/* One event on its way to the handlers; holds a reference on the device. */
struct ib_event_work {
	struct work_struct	work;
	struct ib_event		event;
};

static void ib_event_work_fn(struct work_struct *work)
{
	struct ib_event_work *ew = container_of(work, struct ib_event_work,
						work);
	struct ib_device *device = ew->event.device;
	struct ib_event_handler *handler;

	down_read(&device->event_handler_rwsem);
	list_for_each_entry(handler, &device->event_handler_list, list)
		handler->handler(handler, &ew->event);
	up_read(&device->event_handler_rwsem);

	put_device(&device->dev);
	kfree(ew);
}

/**
 * ib_register_event_handler - subscribe to a device's events
 * @event_handler: set up with INIT_IB_EVENT_HANDLER()
 *
 * The handler is called from a work queue (process context) for every
 * event dispatched on the device afterwards, in dispatch order.
 *
 * Context: process context.
 */
void ib_register_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device = event_handler->device;

	down_write(&device->event_handler_rwsem);
	list_add_tail(&event_handler->list, &device->event_handler_list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_register_event_handler);

/**
 * ib_unregister_event_handler - cancel an event subscription
 * @event_handler: a registered handler
 *
 * Waits for a running call of the handler to return; it is not called
 * again afterwards.  Must not be called from the handler itself.
 *
 * Context: process context.
 */
void ib_unregister_event_handler(struct ib_event_handler *event_handler)
{
	struct ib_device *device = event_handler->device;

	down_write(&device->event_handler_rwsem);
	list_del_init(&event_handler->list);
	up_write(&device->event_handler_rwsem);
}
EXPORT_SYMBOL(ib_unregister_event_handler);

/**
 * ib_dispatch_event - report an asynchronous event to the subscribers
 * @event: the event; copied, so it may live on the caller's stack
 *
 * Providers call this from any context, including hard interrupts: the
 * event is copied (GFP_ATOMIC) and delivered from the ordered ib_wq, so
 * events of a device reach each handler in the order they were
 * dispatched.  If the copy cannot be allocated the event is dropped with
 * a rate-limited message.
 *
 * Context: any.
 */
void ib_dispatch_event(const struct ib_event *event)
{
	struct ib_event_work *ew;

	/* On failure the allocator has already complained; drop it. */
	ew = kmalloc(sizeof(*ew), GFP_ATOMIC);
	if (!ew)
		return;
	INIT_WORK(&ew->work, ib_event_work_fn);
	ew->event = *event;
	get_device(&event->device->dev);
	queue_work(ib_wq, &ew->work);
}
EXPORT_SYMBOL(ib_dispatch_event);

/* ---- port and device queries ------------------------------------------------------- */

/* iWARP: the link state comes from the netdev under the port. */
static int ib_iw_port_state(struct ib_device *device, u32 port_num,
			    struct ib_port_attr *attr)
{
	struct net_device *ndev = ib_device_get_netdev(device, port_num);
	struct in_device *inet;

	if (!ndev)
		return -ENODEV;

	attr->max_mtu = IB_MTU_4096;
	attr->active_mtu = ib_mtu_int_to_enum(ndev->mtu);
	if (!netif_carrier_ok(ndev)) {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
	} else {
		rcu_read_lock();
		inet = __in_dev_get_rcu(ndev);
		if (inet && rcu_access_pointer(inet->ifa_list)) {
			attr->state = IB_PORT_ACTIVE;
			attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		} else {
			attr->state = IB_PORT_INIT;
			attr->phys_state =
				IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING;
		}
		rcu_read_unlock();
	}
	dev_put(ndev);
	return 0;
}

/**
 * ib_query_port - read the attributes of a port
 * @device: the device
 * @port_num: the port
 * @port_attr: filled in (zeroed first)
 *
 * The provider answers; the core adds the table sizes it recorded at
 * registration, the cached subnet prefix of IB ports when the provider
 * left it zero, and the netdev-derived state of iWARP ports.
 *
 * Context: process context (the provider may sleep).
 * Return: 0, -EINVAL for an invalid port, or the provider's error.
 */
int ib_query_port(struct ib_device *device, u32 port_num,
		  struct ib_port_attr *port_attr)
{
	const struct ib_port_immutable *imm;
	int ret;

	if (!rdma_is_port_valid(device, port_num) || !device->port_data)
		return -EINVAL;

	memset(port_attr, 0, sizeof(*port_attr));
	if (rdma_protocol_iwarp(device, port_num)) {
		ret = ib_iw_port_state(device, port_num, port_attr);
		if (ret)
			return ret;
	}

	ret = device->ops.query_port(device, port_num, port_attr);
	if (ret)
		return ret;

	imm = &device->port_data[port_num].immutable;
	port_attr->gid_tbl_len = imm->gid_tbl_len;
	port_attr->pkey_tbl_len = imm->pkey_tbl_len;

	if (!port_attr->subnet_prefix &&
	    rdma_port_get_link_layer(device, port_num) ==
	    IB_LINK_LAYER_INFINIBAND)
		ib_get_cached_subnet_prefix(device, port_num,
					    &port_attr->subnet_prefix);
	return 0;
}
EXPORT_SYMBOL(ib_query_port);

/**
 * ib_query_pkey - read one P_Key table entry from the provider
 * @device: the device
 * @port_num: the port
 * @index: the table index
 * @pkey: the entry
 *
 * Context: process context.
 * Return: 0, -EINVAL for an invalid port or an index beyond the table,
 * -EOPNOTSUPP without a query_pkey() callback, or the provider's error.
 */
int ib_query_pkey(struct ib_device *device, u32 port_num, u16 index,
		  u16 *pkey)
{
	if (!rdma_is_port_valid(device, port_num) || !device->port_data)
		return -EINVAL;
	if (index >= device->port_data[port_num].immutable.pkey_tbl_len)
		return -EINVAL;
	if (!device->ops.query_pkey)
		return -EOPNOTSUPP;
	return device->ops.query_pkey(device, port_num, index, pkey);
}
EXPORT_SYMBOL(ib_query_pkey);

/**
 * ib_modify_device - change device-wide attributes
 * @device: the device
 * @device_modify_mask: IB_DEVICE_MODIFY_* bits
 * @device_modify: the new values
 *
 * Context: process context.
 * Return: 0, -EOPNOTSUPP without a modify_device() callback or for
 * unknown mask bits, or the provider's error.
 */
int ib_modify_device(struct ib_device *device, int device_modify_mask,
		     struct ib_device_modify *device_modify)
{
	if (!device->ops.modify_device)
		return -EOPNOTSUPP;
	if (device_modify_mask & ~(IB_DEVICE_MODIFY_SYS_IMAGE_GUID |
				   IB_DEVICE_MODIFY_NODE_DESC))
		return -EOPNOTSUPP;
	return device->ops.modify_device(device, device_modify_mask,
					 device_modify);
}
EXPORT_SYMBOL(ib_modify_device);

/* PortInfo CapabilityMask bit: the port runs a connection manager. */
#define IB_CAP_MASK_CM_SUP	BIT(16)

/**
 * ib_modify_port - change port attributes
 * @device: the device
 * @port_num: the port
 * @port_modify_mask: IB_PORT_* modify bits
 * @port_modify: the capability bits to set and clear, and the init type
 *
 * Without a modify_port() callback, RoCE ports accept (and ignore) a
 * change that only touches the CM-supported capability bit, which the
 * connection manager sets on every port.
 *
 * Context: process context.
 * Return: 0, -EINVAL for an invalid port, -EOPNOTSUPP, or the provider's
 * error.
 */
int ib_modify_port(struct ib_device *device, u32 port_num,
		   int port_modify_mask, struct ib_port_modify *port_modify)
{
	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	if (device->ops.modify_port)
		return device->ops.modify_port(device, port_num,
					       port_modify_mask, port_modify);
	if (rdma_protocol_roce(device, port_num) &&
	    (!(port_modify->set_port_cap_mask & ~IB_CAP_MASK_CM_SUP) ||
	     !(port_modify->clr_port_cap_mask & ~IB_CAP_MASK_CM_SUP)))
		return 0;
	return -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_modify_port);

/**
 * ib_find_pkey - find a P_Key in a port's table (asking the provider)
 * @device: the device
 * @port_num: the port
 * @pkey: the key; only its 15 key bits are compared
 * @index: where it was found
 *
 * A full-member entry (bit 15 set) is preferred over a limited one.
 *
 * Context: process context.
 * Return: 0, -ENOENT if the key is not in the table, or an error of
 * ib_query_pkey().
 */
int ib_find_pkey(struct ib_device *device, u32 port_num, u16 pkey,
		 u16 *index)
{
	int limited = -1;
	u16 i, entry;
	int len, ret;

	if (!rdma_is_port_valid(device, port_num) || !device->port_data)
		return -EINVAL;

	len = device->port_data[port_num].immutable.pkey_tbl_len;
	for (i = 0; i < len; i++) {
		ret = ib_query_pkey(device, port_num, i, &entry);
		if (ret)
			return ret;
		if ((entry & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (entry & 0x8000) {
			*index = i;
			return 0;
		}
		if (limited < 0)
			limited = i;
	}
	if (limited < 0)
		return -ENOENT;
	*index = limited;
	return 0;
}
EXPORT_SYMBOL(ib_find_pkey);

/* Map an Ethernet speed (Mb/s) and lane count to IB speed and width. */
static void ib_eth_to_ib_speed(u32 mbps, u32 lanes, u16 *speed, u8 *width)
{
	static const struct {
		u32 max_mbps;
		u8 width;
		u16 speed;
	} by_total[] = {
		{ SPEED_1000,	IB_WIDTH_1X, IB_SPEED_SDR },
		{ SPEED_10000,	IB_WIDTH_1X, IB_SPEED_FDR10 },
		{ SPEED_20000,	IB_WIDTH_4X, IB_SPEED_DDR },
		{ SPEED_25000,	IB_WIDTH_1X, IB_SPEED_EDR },
		{ SPEED_40000,	IB_WIDTH_4X, IB_SPEED_FDR10 },
		{ SPEED_50000,	IB_WIDTH_2X, IB_SPEED_EDR },
		{ SPEED_100000,	IB_WIDTH_4X, IB_SPEED_EDR },
		{ SPEED_200000,	IB_WIDTH_4X, IB_SPEED_HDR },
	};
	size_t i;

	if (!lanes) {
		for (i = 0; i < ARRAY_SIZE(by_total); i++) {
			if (mbps <= by_total[i].max_mbps) {
				*width = by_total[i].width;
				*speed = by_total[i].speed;
				return;
			}
		}
		*width = IB_WIDTH_4X;
		*speed = IB_SPEED_NDR;
		return;
	}

	switch (lanes) {
	case 2:
		*width = IB_WIDTH_2X;
		break;
	case 4:
		*width = IB_WIDTH_4X;
		break;
	case 8:
		*width = IB_WIDTH_8X;
		break;
	case 12:
		*width = IB_WIDTH_12X;
		break;
	default:
		*width = IB_WIDTH_1X;
		break;
	}

	switch (mbps / lanes) {
	case SPEED_5000:
		*speed = IB_SPEED_DDR;
		break;
	case SPEED_10000:
		*speed = IB_SPEED_FDR10;
		break;
	case SPEED_14000:
		*speed = IB_SPEED_FDR;
		break;
	case SPEED_25000:
		*speed = IB_SPEED_EDR;
		break;
	case SPEED_50000:
		*speed = IB_SPEED_HDR;
		break;
	case SPEED_100000:
		*speed = IB_SPEED_NDR;
		break;
	default:
		*speed = IB_SPEED_SDR;
		break;
	}
}

/**
 * ib_get_eth_speed - IB speed and width equivalent to a RoCE port's link
 * @dev: the device
 * @port_num: an Ethernet port
 * @speed: an IB_SPEED_* value
 * @width: an IB_WIDTH_* value
 *
 * The netdev's ethtool speed (1 Gb/s if unknown) and lane count are mapped
 * to the nearest IB speed and width, for providers' query_port().
 *
 * Context: process context; takes RTNL.
 * Return: 0, -EINVAL for a port that is not Ethernet, -ENODEV without a
 * registered netdev.
 */
int ib_get_eth_speed(struct ib_device *dev, u32 port_num, u16 *speed,
		     u8 *width)
{
	struct ethtool_link_ksettings lks = {};
	struct net_device *ndev;
	u32 mbps = SPEED_1000;
	int ret;

	if (!rdma_is_port_valid(dev, port_num) ||
	    rdma_port_get_link_layer(dev, port_num) != IB_LINK_LAYER_ETHERNET)
		return -EINVAL;

	ndev = ib_device_get_netdev(dev, port_num);
	if (!ndev)
		return -ENODEV;

	rtnl_lock();
	if (READ_ONCE(ndev->reg_state) != NETREG_REGISTERED) {
		rtnl_unlock();
		dev_put(ndev);
		return -ENODEV;
	}
	ret = __ethtool_get_link_ksettings(ndev, &lks);
	rtnl_unlock();

	if (!ret && lks.base.speed != (u32)SPEED_UNKNOWN)
		mbps = lks.base.speed;
	else if (ret)
		ibdev_dbg(dev, "%s: link speed unknown, assuming %u Mb/s\n",
			  ndev->name, mbps);
	dev_put(ndev);

	ib_eth_to_ib_speed(mbps, lks.lanes, speed, width);
	return 0;
}
EXPORT_SYMBOL(ib_get_eth_speed);

/* ---- SR-IOV virtual functions --------------------------------------------------------- */

/**
 * ib_set_vf_link_state - set the link state policy of a virtual function
 * @device: the device
 * @vf: the VF number
 * @port: the port
 * @state: an IFLA_VF_LINK_STATE_* value
 *
 * Return: the provider's result, or -EOPNOTSUPP.
 */
int ib_set_vf_link_state(struct ib_device *device, int vf, u32 port,
			 int state)
{
	if (!device->ops.set_vf_link_state)
		return -EOPNOTSUPP;
	return device->ops.set_vf_link_state(device, vf, port, state);
}
EXPORT_SYMBOL(ib_set_vf_link_state);

/**
 * ib_get_vf_config - read the configuration of a virtual function
 * @device: the device
 * @vf: the VF number
 * @port: the port
 * @info: filled in
 *
 * Return: the provider's result, or -EOPNOTSUPP.
 */
int ib_get_vf_config(struct ib_device *device, int vf, u32 port,
		     struct ifla_vf_info *info)
{
	if (!device->ops.get_vf_config)
		return -EOPNOTSUPP;
	return device->ops.get_vf_config(device, vf, port, info);
}
EXPORT_SYMBOL(ib_get_vf_config);

/**
 * ib_get_vf_stats - read the counters of a virtual function
 * @device: the device
 * @vf: the VF number
 * @port: the port
 * @stats: filled in
 *
 * Return: the provider's result, or -EOPNOTSUPP.
 */
int ib_get_vf_stats(struct ib_device *device, int vf, u32 port,
		    struct ifla_vf_stats *stats)
{
	if (!device->ops.get_vf_stats)
		return -EOPNOTSUPP;
	return device->ops.get_vf_stats(device, vf, port, stats);
}
EXPORT_SYMBOL(ib_get_vf_stats);

/**
 * ib_get_vf_guid - read the node and port GUIDs of a virtual function
 * @device: the device
 * @vf: the VF number
 * @port: the port
 * @node_guid: filled in
 * @port_guid: filled in
 *
 * Return: the provider's result, or -EOPNOTSUPP.
 */
int ib_get_vf_guid(struct ib_device *device, int vf, u32 port,
		   struct ifla_vf_guid *node_guid,
		   struct ifla_vf_guid *port_guid)
{
	if (!device->ops.get_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.get_vf_guid(device, vf, port, node_guid, port_guid);
}
EXPORT_SYMBOL(ib_get_vf_guid);

/**
 * ib_set_vf_guid - set the node or port GUID of a virtual function
 * @device: the device
 * @vf: the VF number
 * @port: the port
 * @guid: the GUID
 * @type: IFLA_VF_IB_NODE_GUID or IFLA_VF_IB_PORT_GUID
 *
 * Return: the provider's result, or -EOPNOTSUPP.
 */
int ib_set_vf_guid(struct ib_device *device, int vf, u32 port, u64 guid,
		   int type)
{
	if (!device->ops.set_vf_guid)
		return -EOPNOTSUPP;
	return device->ops.set_vf_guid(device, vf, port, guid, type);
}
EXPORT_SYMBOL(ib_set_vf_guid);

/* ---- netdevs on top of a device ---------------------------------------------------- */

/**
 * rdma_alloc_netdev - allocate a netdev the provider accelerates
 * @device: the device
 * @port_num: the port
 * @type: what kind of netdev (IPoIB, OPA VNIC)
 * @name: the interface name (may hold a template)
 * @name_assign_type: NET_NAME_* origin of @name
 * @setup: the netdev setup callback
 *
 * The provider's rdma_netdev_get_params() sizes the private area and the
 * queues.
 *
 * Context: process context.
 * Return: the unregistered netdev, or ERR_PTR(-EOPNOTSUPP) without the
 * callback, ERR_PTR(-ENOMEM) or the provider's error.
 */
struct net_device *rdma_alloc_netdev(struct ib_device *device, u32 port_num,
				     enum rdma_netdev_t type, const char *name,
				     unsigned char name_assign_type,
				     void (*setup)(struct net_device *dev))
{
	struct rdma_netdev_alloc_params params = {};
	struct net_device *ndev;
	int ret;

	if (!device->ops.rdma_netdev_get_params)
		return ERR_PTR(-EOPNOTSUPP);
	ret = device->ops.rdma_netdev_get_params(device, port_num, type,
						 &params);
	if (ret)
		return ERR_PTR(ret);

	ndev = alloc_netdev_mqs(params.sizeof_priv, name, name_assign_type,
				setup, params.txqs, params.rxqs);
	return ndev ? ndev : ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(rdma_alloc_netdev);

/**
 * rdma_init_netdev - let the provider initialise a netdev it accelerates
 * @device: the device
 * @port_num: the port
 * @type: what kind of netdev
 * @name: the interface name
 * @name_assign_type: NET_NAME_* origin of @name
 * @setup: the netdev setup callback
 * @netdev: a netdev allocated by the caller with the provider's sizes
 *
 * Context: process context.
 * Return: 0, -EOPNOTSUPP without rdma_netdev_get_params(), or the
 * provider's error.
 */
int rdma_init_netdev(struct ib_device *device, u32 port_num,
		     enum rdma_netdev_t type, const char *name,
		     unsigned char name_assign_type,
		     void (*setup)(struct net_device *dev),
		     struct net_device *netdev)
{
	struct rdma_netdev_alloc_params params = {};
	int ret;

	if (!device->ops.rdma_netdev_get_params)
		return -EOPNOTSUPP;
	ret = device->ops.rdma_netdev_get_params(device, port_num, type,
						 &params);
	if (ret)
		return ret;
	if (!params.initialize_rdma_netdev)
		return -EOPNOTSUPP;
	return params.initialize_rdma_netdev(device, port_num, netdev,
					     params.param);
}
EXPORT_SYMBOL(rdma_init_netdev);

#ifdef CONFIG_INFINIBAND_VIRT_DMA
/**
 * ib_dma_virt_map_sg - "map" a scatterlist for a virtual-DMA device
 * @dev: a device registered without a DMA device
 * @sg: the scatterlist
 * @nents: number of entries
 *
 * Each entry's DMA address becomes its kernel virtual address; nothing is
 * mapped.  Reached through ib_dma_map_sg() and friends.
 *
 * Context: any.
 * Return: @nents.
 */
int ib_dma_virt_map_sg(struct ib_device *dev, struct scatterlist *sg,
		       int nents)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sg, s, nents, i) {
		sg_dma_address(s) = (uintptr_t)sg_virt(s);
		sg_dma_len(s) = s->length;
	}
	return nents;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);
#endif

/* ---- module init and exit ---------------------------------------------------------- */

static void ib_core_destroy_wqs(void)
{
	if (ib_unreg_wq)
		destroy_workqueue(ib_unreg_wq);
	if (ib_comp_unbound_wq)
		destroy_workqueue(ib_comp_unbound_wq);
	if (ib_comp_wq)
		destroy_workqueue(ib_comp_wq);
	if (ib_wq)
		destroy_workqueue(ib_wq);
}

static int __init ib_core_init(void)
{
	int ret = -ENOMEM;

	ib_wq = alloc_ordered_workqueue("infiniband", WQ_MEM_RECLAIM);
	ib_comp_wq = alloc_workqueue("ib-comp-wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	ib_comp_unbound_wq = alloc_workqueue("ib-comp-unb-wq",
					     WQ_UNBOUND | WQ_HIGHPRI |
					     WQ_MEM_RECLAIM | WQ_SYSFS,
					     WQ_MAX_ACTIVE);
	ib_unreg_wq = alloc_workqueue("ib-unreg-wq", WQ_UNBOUND,
				      WQ_UNBOUND_MAX_ACTIVE);
	if (!ib_wq || !ib_comp_wq || !ib_comp_unbound_wq || !ib_unreg_wq)
		goto err_wq;

	ret = class_register(&ib_class);
	if (ret) {
		pr_warn("ib_core: cannot register the infiniband class\n");
		goto err_wq;
	}
	ret = register_pernet_subsys(&ib_netns_ops);
	if (ret)
		goto err_class;
	ret = register_netdevice_notifier(&ib_netdev_nb);
	if (ret)
		goto err_pernet;
	ret = addr_init();
	if (ret) {
		pr_warn("ib_core: address resolution init failed: %d\n", ret);
		goto err_notifier;
	}
	ret = ib_cache_setup();
	if (ret) {
		pr_warn("ib_core: cache init failed: %d\n", ret);
		goto err_addr;
	}
	ret = roce_gid_mgmt_init();
	if (ret) {
		pr_warn("ib_core: RoCE GID management init failed: %d\n", ret);
		goto err_cache;
	}
	ret = rdma_nl_init();
	if (ret) {
		pr_warn("ib_core: RDMA netlink init failed: %d\n", ret);
		goto err_roce;
	}
	nldev_init();
	return 0;

err_roce:
	roce_gid_mgmt_cleanup();
err_cache:
	ib_cache_cleanup();
err_addr:
	addr_cleanup();
err_notifier:
	unregister_netdevice_notifier(&ib_netdev_nb);
err_pernet:
	unregister_pernet_subsys(&ib_netns_ops);
err_class:
	class_unregister(&ib_class);
err_wq:
	ib_core_destroy_wqs();
	return ret;
}

static void __exit ib_core_exit(void)
{
	/* No new netlink request from here on. */
	nldev_exit();
	rdma_nl_exit();
	/*
	 * Queued events and unregistrations hold device references; let
	 * them finish while everything they may touch is still set up.
	 */
	flush_workqueue(ib_unreg_wq);
	flush_workqueue(ib_wq);
	roce_gid_mgmt_cleanup();
	ib_cache_cleanup();
	addr_cleanup();
	unregister_netdevice_notifier(&ib_netdev_nb);
	unregister_pernet_subsys(&ib_netns_ops);
	class_unregister(&ib_class);
	ib_core_destroy_wqs();
	/* Providers unregister and free their devices before we can go. */
	WARN_ON(!xa_empty(&ib_devices));
	WARN_ON(!xa_empty(&ib_clients));
	/* Devices and port arrays are freed with kfree_rcu(). */
	rcu_barrier();
}

module_init(ib_core_init);
module_exit(ib_core_exit);
