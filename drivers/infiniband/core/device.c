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
 * Life.  ib_device.life says where a device stands (enum ib_life below):
 *
 *   FRESH --register--> JOINING --published--> LIVE --retire--> LEAVING
 *     ^                    |                                       |
 *     +---- failed --------+                               GONE <--+
 *
 * Every change happens under ib_device.life_lock; the end of a
 * registration (LIVE, or FRESH again) and of an unregistration (GONE) wake
 * ib_life_wait, where other unregistrations wait.  Exactly one thread
 * moves a device from LIVE to LEAVING and does the teardown; any other
 * unregistration waits for GONE.  An unregistration asked for before the
 * device is LIVE sets ib_device.doomed instead: the registration then
 * fails with -ENODEV rather than publish the device
 * (ib_unregister_device_queued() from a netdev notifier that fires while
 * the provider is still registering), and a synchronous one waits for that
 * registration to give up.
 *
 * Registration references.  ib_device.refcount is zero outside LIVE and
 * LEAVING; ib_device_try_get() only succeeds while it is non-zero.  The
 * teardown drops the registration's own reference and sleeps on
 * ib_device.refs_gone until every ib_device_try_get() holder has called
 * ib_device_put().  Client contexts do not hold registration references,
 * so the wait never depends on a client.
 *
 * The teardown of a LIVE device (ib_teardown_live()):
 *   unmark it in the registry (no new lookups find it) -> drop the
 *   registration reference -> wait for every holder -> clients' remove()
 *   in reverse registration order -> shared CQ pools -> netdevs -> the
 *   registration steps undone in reverse (port sysfs, device_del(),
 *   counters, cache cleanup, restrack) -> ib_dealloc_device() if the
 *   provider set ops.dealloc_driver -> GONE.
 * The port sysfs files go before the cache is cleaned so that no sysfs
 * reader can see a half torn-down GID table; dealloc_driver() runs before
 * GONE so that ib_unregister_driver() (module unload) never returns ahead
 * of it.
 *
 * Locking rules
 * -------------
 * ib_devices_rwsem   Registry of devices: membership of ib_devices (by
 *                    index), the DEVICE_REGISTERED mark and the names.
 *                    Writers: naming, (un)marking, rename, the namespace
 *                    mode.  Readers: lookups, walkers, and a client
 *                    registration's walk (so a slow add() stalls no
 *                    reader).  Never taken under RTNL (the RoCE walkers
 *                    take RTNL inside it).
 * ib_clients_rwsem   The client list: ib_clients (by client id), the
 *                    CLIENT_REGISTERED mark and ib_clients_end.  A client
 *                    registration inserts under it as a writer and walks
 *                    the devices holding it as a reader, as a device's
 *                    registration walks the clients.
 * client_data_rwsem  Per device: which clients are attached (the
 *                    CLIENT_DATA_REGISTERED mark of ib_device.client_data).
 *                    Held for write to change the mark, downgraded to read
 *                    while a client's add() runs so that no remove() can
 *                    overtake it.  The stored values themselves are set
 *                    through the xarray's own lock (ib_set_client_data()).
 * life_lock          Per device, irq-safe: life and doomed.
 * event_handler_rwsem  Per device: the event handler list.
 * ndev_set_lock      Serialises ib_device_set_netdev() callers.
 * netdev_lock        Per port: updates of ib_port_data.netdev (readers use
 *                    RCU).
 * ndev_hash_lock     The netdev -> port hash (readers use RCU).
 *
 * ib_netns_mutex     The namespace mode, the namespace list, the sysfs
 *                    copies of devices in other namespaces, and moves
 *                    (see "network namespaces" below).
 *
 * Order: ib_netns_mutex -> ib_devices_rwsem -> ib_clients_rwsem ->
 * client_data_rwsem, ib_devices_rwsem -> life_lock, and ndev_set_lock ->
 * netdev_lock -> ndev_hash_lock.  Clients' add() and rename() callbacks
 * run with the registry and client locks held (as a reader at least) and
 * must not call back into functions that take ib_devices_rwsem
 * (ib_device_get_by_name(), ib_enum_all_devs(), ...); remove() runs with
 * no core lock held, except ib_netns_mutex when a device moves between
 * namespaces (as do add() and rename() then), so no client callback may
 * rename or move a device or change the namespace mode.
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
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("RDMA core: verbs API and device model");
MODULE_LICENSE("Dual BSD/GPL");
/* Set by the out-of-tree build (top Kbuild) from dkms.conf. */
#ifdef RDMA_KMOD_VERSION
MODULE_VERSION(RDMA_KMOD_VERSION);
#endif

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

/* Where a device stands; see "Life" at the top of this file. */
enum ib_life {
	IB_LIFE_FRESH,		/* never registered, or registration failed */
	IB_LIFE_JOINING,	/* ib_register_device() is running */
	IB_LIFE_LIVE,		/* registered */
	IB_LIFE_LEAVING,	/* one thread is tearing it down */
	IB_LIFE_GONE,		/* unregistered for good */
};

/* Woken on every change of a device's life. */
static DECLARE_WAIT_QUEUE_HEAD(ib_life_wait);

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

/* A device directory shows in the sysfs of its core device's namespace. */
static const void *ib_class_namespace(const struct device *dev)
{
	const struct ib_core_device *coredev =
		container_of_const(dev, struct ib_core_device, dev);

	return read_pnet(&coredev->rdma_net);
}

const struct class ib_class = {
	.name		= "infiniband",
	.dev_release	= ib_device_release,
	.dev_uevent	= ib_device_uevent,
	.ns_type	= &net_ns_type_operations,
	.namespace	= ib_class_namespace,
};

/* ---- printing ------------------------------------------------------------------ */

/* A line at numeric level @lvl that has no struct device to go with. */
static __printf(2, 3) void ibdev_emit(int lvl, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintk_emit(0, lvl, NULL, fmt, ap);
	va_end(ap);
}

/*
 * One message about @ibdev at @level: "driver parent name: text" when the
 * device has a parent, "name: text" otherwise.
 */
static void ibdev_log(const char *level, const struct ib_device *ibdev,
		      const char *fmt, va_list *ap)
{
	struct va_format text = { .fmt = fmt, .va = ap };
	int lvl = printk_get_level(level) - '0';
	const struct device *parent = ibdev ? ibdev->dev.parent : NULL;
	const char *who = "(no ib_device)";

	if (lvl < LOGLEVEL_EMERG || lvl > LOGLEVEL_DEBUG)
		lvl = LOGLEVEL_DEFAULT;
	if (ibdev)
		who = dev_name(&ibdev->dev) ?:
		      (ibdev->name[0] ? ibdev->name : "(unnamed)");
	if (parent)
		dev_printk_emit(lvl, parent, "%s %s %s: %pV",
				dev_driver_string(parent), dev_name(parent),
				who, &text);
	else
		ibdev_emit(lvl, "%s: %pV", who, &text);
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
	va_list ap;

	va_start(ap, format);
	ibdev_log(level, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_printk);

/**
 * ibdev_emerg - log an emergency message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_emerg(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_EMERG, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_emerg);

/**
 * ibdev_alert - log an alert about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_alert(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_ALERT, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_alert);

/**
 * ibdev_crit - log a critical message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_crit(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_CRIT, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_crit);

/**
 * ibdev_err - log an error about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_err(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_ERR, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_err);

/**
 * ibdev_warn - log a warning about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_warn(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_WARNING, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_warn);

/**
 * ibdev_notice - log a notice about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_notice(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_NOTICE, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_notice);

/**
 * ibdev_info - log an informational message about an RDMA device
 * @ibdev: the device
 * @format: printf-style format
 */
void ibdev_info(const struct ib_device *ibdev, const char *format, ...)
{
	va_list ap;

	va_start(ap, format);
	ibdev_log(KERN_INFO, ibdev, format, &ap);
	va_end(ap);
}
EXPORT_SYMBOL(ibdev_info);
/* ---- small helpers of the API ---------------------------------------------------- */

/*
 * Namespace mode.  Shared (the default): every device is visible from
 * every network namespace.  Exclusive: a device is visible only from the
 * namespace it belongs to (ib_core_device.rdma_net: set at registration
 * by ib_assign_netns(), changed by a move, back to init_net when that
 * namespace dies).  Set at load time with the netns_mode parameter or
 * later with "rdma system set netns"; read locklessly, written under
 * ib_netns_mutex and ib_devices_rwsem.
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

static DEFINE_MUTEX(ib_netns_mutex);
static void ib_compat_add_all(struct ib_device *device);
static void ib_compat_del_all(struct ib_device *device);
static void ib_compat_rename(struct ib_device *device, const char *name);
static void ib_attach_clients(struct ib_device *device);

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
	bool change;
	int ret = 0;

	mutex_lock(&ib_netns_mutex);
	down_write(&ib_devices_rwsem);
	change = shared != ib_devices_shared_netns;
	if (change && shared) {
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
	downgrade_write(&ib_devices_rwsem);
	/* the sysfs copies come with shared mode and go with it */
	xa_for_each_marked(&ib_devices, index, dev, DEVICE_REGISTERED) {
		if (ret || !change)
			break;
		if (shared)
			ib_compat_add_all(dev);
		else
			ib_compat_del_all(dev);
	}
	up_read(&ib_devices_rwsem);
	mutex_unlock(&ib_netns_mutex);
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

/**
 * ib_event_msg - printable name of an asynchronous event
 * @event: the event type
 *
 * Return: a constant string; "unrecognized event" for unknown values.
 */
const char *__attribute_const__ ib_event_msg(enum ib_event_type event)
{
	switch (event) {
	case IB_EVENT_CQ_ERR:			return "CQ error";
	case IB_EVENT_QP_FATAL:			return "QP fatal error";
	case IB_EVENT_QP_REQ_ERR:		return "QP request error";
	case IB_EVENT_QP_ACCESS_ERR:		return "QP access error";
	case IB_EVENT_COMM_EST:			return "communication established";
	case IB_EVENT_SQ_DRAINED:		return "send queue drained";
	case IB_EVENT_PATH_MIG:			return "path migration successful";
	case IB_EVENT_PATH_MIG_ERR:		return "path migration error";
	case IB_EVENT_DEVICE_FATAL:		return "device fatal error";
	case IB_EVENT_PORT_ACTIVE:		return "port active";
	case IB_EVENT_PORT_ERR:			return "port error";
	case IB_EVENT_LID_CHANGE:		return "LID change";
	case IB_EVENT_PKEY_CHANGE:		return "P_key change";
	case IB_EVENT_SM_CHANGE:		return "SM change";
	case IB_EVENT_SRQ_ERR:			return "SRQ error";
	case IB_EVENT_SRQ_LIMIT_REACHED:	return "SRQ limit reached";
	case IB_EVENT_QP_LAST_WQE_REACHED:	return "last WQE reached";
	case IB_EVENT_CLIENT_REREGISTER:	return "client reregister";
	case IB_EVENT_GID_CHANGE:		return "GID changed";
	case IB_EVENT_WQ_FATAL:			return "WQ fatal error";
	}
	return "unrecognized event";
}
EXPORT_SYMBOL(ib_event_msg);

/**
 * rdma_alloc_hw_stats_struct - allocate a block of hardware counters
 * @descs: one descriptor per counter (kept by reference)
 * @num_counters: number of counters
 * @lifespan: how long read values are served from the cache, in ms
 *
 * The counters and the bitmap of disabled ones come in one allocation:
 * the bitmap follows the last counter.
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
	size_t head, bitmap;

	if (num_counters < 0)
		return NULL;
	head = struct_size(stats, value, num_counters);
	bitmap = BITS_TO_LONGS(num_counters) * sizeof(unsigned long);
	stats = kzalloc(size_add(head, bitmap), GFP_KERNEL);
	if (stats) {
		mutex_init(&stats->lock);
		stats->num_counters = num_counters;
		stats->descs = descs;
		stats->lifespan = msecs_to_jiffies(lifespan);
		stats->is_disabled = (unsigned long *)((u8 *)stats + head);
	}
	return stats;
}
EXPORT_SYMBOL(rdma_alloc_hw_stats_struct);

/**
 * rdma_free_hw_stats_struct - free a block from rdma_alloc_hw_stats_struct()
 * @stats: the block, or NULL
 */
void rdma_free_hw_stats_struct(struct rdma_hw_stats *stats)
{
	if (stats)
		mutex_destroy(&stats->lock);
	kfree(stats);
}
EXPORT_SYMBOL(rdma_free_hw_stats_struct);

/* ---- allocation and ops ------------------------------------------------------------ */

static void ib_retire_work(struct work_struct *work);

/* The sysfs side: the embedded struct device and its namespace. */
static void ib_init_core_dev(struct ib_device *device)
{
	struct ib_core_device *coredev = &device->coredev;

	/* The device and the core device must overlay exactly. */
	BUILD_BUG_ON(offsetof(struct ib_device, coredev.dev) !=
		     offsetof(struct ib_device, dev));

	coredev->owner = device;
	INIT_LIST_HEAD(&coredev->port_list);
	write_pnet(&coredev->rdma_net, &init_net);
	device->dev.groups = device->groups;
	device->dev.class = &ib_class;
	device_initialize(&device->dev);
}

/* Where the device stands and what unregistration needs. */
static void ib_init_life(struct ib_device *device)
{
	spin_lock_init(&device->life_lock);
	device->life = IB_LIFE_FRESH;
	device->doomed = false;
	refcount_set(&device->refcount, 0);
	init_completion(&device->refs_gone);
	INIT_WORK(&device->retire_work, ib_retire_work);
}

/* The per-device state of clients, events, caches and CQ pools. */
static void ib_init_device_state(struct ib_device *device)
{
	unsigned int poll;

	/* ALLOC flag: a client's NULL data still keeps its slot and mark. */
	xa_init_flags(&device->client_data, XA_FLAGS_ALLOC);
	xa_init(&device->compat_devs);
	init_rwsem(&device->client_data_rwsem);
	INIT_LIST_HEAD(&device->event_handler_list);
	init_rwsem(&device->event_handler_rwsem);
	rwlock_init(&device->cache_lock);
	spin_lock_init(&device->qp_open_list_lock);
	for (poll = 0; poll < ARRAY_SIZE(device->cq_pools); poll++)
		INIT_LIST_HEAD(&device->cq_pools[poll]);
	spin_lock_init(&device->cq_pools_lock);
	device->name_assign_type = RDMA_NAME_ASSIGN_TYPE_UNKNOWN;
}

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
	struct ib_device *device = NULL;

	if (!WARN_ON(size < sizeof(*device)))
		device = kzalloc(size, GFP_KERNEL);
	if (device) {
		ib_init_device_state(device);
		ib_init_life(device);
		ib_init_core_dev(device);
	}
	return device;
}
EXPORT_SYMBOL(_ib_alloc_device);

static void ib_free_netdevs(struct ib_device *device);
static void ib_unlist_device(struct ib_device *device);

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
	u8 life = READ_ONCE(device->life);

	WARN_ON(life == IB_LIFE_JOINING || life == IB_LIFE_LIVE);
	WARN_ON(!xa_empty(&device->client_data));

	if (device->ops.dealloc_driver)
		device->ops.dealloc_driver(device);
	/* Only now, after its last op, may the device leave the registry. */
	ib_unlist_device(device);
	ib_free_netdevs(device);
	put_device(&device->dev);
}
EXPORT_SYMBOL(ib_dealloc_device);

static void ib_device_release(struct device *dev)
{
	struct ib_device *device = container_of(dev, struct ib_device, dev);
	struct ib_port_array *ports = NULL;

	/* The last reference is gone: what leak checks wait for. */
	ibdev_dbg(device, "released\n");
	WARN_ON(refcount_read(&device->refcount));
	ib_free_netdevs(device);
	if (device->port_data) {
		ib_cache_release_one(device);
		ports = container_of(device->port_data, struct ib_port_array,
				     ports[0]);
	}
	xa_destroy(&device->client_data);
	if (ports)
		kfree_rcu(ports, rcu);
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

/* Can a port array be sized from what the provider set? */
static bool ib_port_count_sane(const struct ib_device *device)
{
	if (WARN_ON(!device->is_switch && !device->phys_port_cnt))
		return false;
	return !WARN_ON(device->phys_port_cnt == U32_MAX);
}

/*
 * Allocate the port array once the provider has set phys_port_cnt.  Called
 * at registration and, earlier, by ib_device_set_netdev(); the provider
 * serialises the two.
 */
static int ib_alloc_port_data(struct ib_device *device)
{
	size_t slots = size_add(rdma_end_port(device), 1);
	struct ib_port_array *array;
	u32 port;

	if (device->port_data)
		return 0;
	if (!ib_port_count_sane(device))
		return -EINVAL;
	array = kzalloc(struct_size(array, ports, slots), GFP_KERNEL);
	if (!array)
		return -ENOMEM;
	for (port = rdma_start_port(device); port < slots; port++) {
		struct ib_port_data *pdata = array->ports + port;

		INIT_HLIST_NODE(&pdata->ndev_hash_link);
		spin_lock_init(&pdata->netdev_lock);
		INIT_LIST_HEAD(&pdata->pkey_list);
		spin_lock_init(&pdata->pkey_list_lock);
		pdata->ib_dev = device;
	}
	device->port_data = array->ports;
	return 0;
}

/* Ask the provider for the fixed properties of @port and check them. */
static int ib_read_port_immutable(struct ib_device *device, u32 port)
{
	struct ib_port_immutable *imm = &device->port_data[port].immutable;
	int ret;

	*imm = (struct ib_port_immutable){};
	ret = device->ops.get_port_immutable(device, port, imm);
	if (ret)
		return ret;
	if (WARN_ON(imm->gid_tbl_len < 0 || imm->pkey_tbl_len < 0))
		return -EINVAL;
	/* A port without MADs cannot have a MAD size. */
	if (WARN_ON(rdma_max_mad_size(device, port) &&
		    !rdma_cap_ib_mad(device, port)))
		return -EINVAL;
	return 0;
}

/* Registration step: the port array and every port's fixed properties. */
static int ib_setup_ports(struct ib_device *device)
{
	u32 port = rdma_start_port(device);
	int ret = ib_alloc_port_data(device);

	while (!ret && port <= rdma_end_port(device))
		ret = ib_read_port_immutable(device, port++);
	return ret;
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
	*str = 0;
	if (device->ops.get_dev_fw_str)
		device->ops.get_dev_fw_str(device, str);
}
EXPORT_SYMBOL(ib_get_device_fw_str);

/* ---- the netdev under a port ------------------------------------------------------- */

/*
 * Detach the port's netdev, if it has one and it is @only (any, for NULL):
 * the port leaves the hash and the reference goes back with the port's
 * tracker.  Readers that loaded the pointer before it was cleared finish
 * their RCU section before the netdev can be freed, since netdev
 * unregistration waits a grace period after its notifiers.
 *
 * Return: true if a netdev was detached.
 */
static bool ib_port_detach_netdev(struct ib_port_data *pdata,
				  const struct net_device *only)
{
	struct net_device *cur;
	unsigned long flags;

	spin_lock_irqsave(&pdata->netdev_lock, flags);
	cur = rcu_dereference_protected(pdata->netdev,
					lockdep_is_held(&pdata->netdev_lock));
	if (cur && (!only || cur == only)) {
		spin_lock(&ndev_hash_lock);
		hash_del_rcu(&pdata->ndev_hash_link);
		spin_unlock(&ndev_hash_lock);
		RCU_INIT_POINTER(pdata->netdev, NULL);
		netdev_put(cur, &pdata->netdev_tracker);
	} else {
		cur = NULL;
	}
	spin_unlock_irqrestore(&pdata->netdev_lock, flags);
	return cur;
}

/* Attach @ndev to a port that has none: hold it and hash the port. */
static void ib_port_attach_netdev(struct ib_port_data *pdata,
				  struct net_device *ndev)
{
	unsigned long flags;

	spin_lock_irqsave(&pdata->netdev_lock, flags);
	netdev_hold(ndev, &pdata->netdev_tracker, GFP_ATOMIC);
	rcu_assign_pointer(pdata->netdev, ndev);
	spin_lock(&ndev_hash_lock);
	hash_add_rcu(ndev_hash, &pdata->ndev_hash_link, (unsigned long)ndev);
	spin_unlock(&ndev_hash_lock);
	spin_unlock_irqrestore(&pdata->netdev_lock, flags);
}

static void ib_free_netdevs(struct ib_device *device)
{
	u32 port;

	if (device->port_data)
		rdma_for_each_port(device, port)
			ib_port_detach_netdev(&device->port_data[port], NULL);
}

static bool ib_is_live(struct ib_device *device);

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
	int ret = rdma_is_port_valid(ib_dev, port) ?
		  ib_alloc_port_data(ib_dev) : -EINVAL;
	struct ib_port_data *pdata;
	bool changed, detached;

	if (ret)
		return ret;
	pdata = ib_dev->port_data + port;
	mutex_lock(&ndev_set_lock);
	changed = rcu_access_pointer(pdata->netdev) != ndev;
	detached = changed && ib_port_detach_netdev(pdata, NULL);
	if (changed && ndev) {
		/*
		 * A hash walker may still stand on the node this port had in
		 * the table (here or in the notifier); it must be done before
		 * the node is linked in again.
		 */
		synchronize_rcu();
		ib_port_attach_netdev(pdata, ndev);
	}
	mutex_unlock(&ndev_set_lock);

	/* Only a registered device has a name and index to report. */
	if (changed && ib_is_live(ib_dev)) {
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

/*
 * Offer every port attached to @ndev to @visit, under RCU, until @visit
 * returns true; @visit must not sleep.  Return: whether one did.
 */
static bool ib_ndev_visit_ports(const struct net_device *ndev,
				bool (*visit)(struct ib_port_data *pdata,
					      void *arg),
				void *arg)
{
	struct ib_port_data *pdata;
	bool done = false;

	rcu_read_lock();
	hash_for_each_possible_rcu(ndev_hash, pdata, ndev_hash_link,
				   (unsigned long)ndev) {
		if (rcu_access_pointer(pdata->netdev) != ndev)
			continue;
		done = visit(pdata, arg);
		if (done)
			break;
	}
	rcu_read_unlock();
	return done;
}

/* What ib_device_get_by_netdev() asks for, and what it found. */
struct ib_ndev_query {
	enum rdma_driver_id	driver_id;
	struct ib_device	*found;
};

static bool ib_ndev_pin_device(struct ib_port_data *pdata, void *arg)
{
	struct ib_ndev_query *q = arg;
	struct ib_device *dev = pdata->ib_dev;

	if (q->driver_id != RDMA_DRIVER_UNKNOWN &&
	    q->driver_id != dev->ops.driver_id)
		return false;
	if (!ib_device_try_get(dev))
		return false;
	q->found = dev;
	return true;
}

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
	struct ib_ndev_query q = { .driver_id = driver_id };

	ib_ndev_visit_ports(ndev, ib_ndev_pin_device, &q);
	return q.found;
}
EXPORT_SYMBOL(ib_device_get_by_netdev);

static bool ib_ndev_forget_port(struct ib_port_data *pdata, void *ndev)
{
	ib_port_detach_netdev(pdata, ndev);
	return false;
}

/* NETDEV_UNREGISTER: no port may keep a reference on a dying netdev. */
static void ib_forget_netdev(struct net_device *ndev)
{
	ib_ndev_visit_ports(ndev, ib_ndev_forget_port, ndev);
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
		complete(&device->refs_gone);
}
EXPORT_SYMBOL(ib_device_put);

static struct ib_device *ib_find_name_in(const struct net *net,
					 const char *name);

/* @dev with a registration reference if @keep and it has one to give. */
static struct ib_device *ib_pin_if(struct ib_device *dev, bool keep)
{
	return dev && keep && ib_device_try_get(dev) ? dev : NULL;
}

/**
 * ib_device_get_by_name - look a registered device up by name
 * @name: the name
 * @driver_id: the provider to match, or RDMA_DRIVER_UNKNOWN for any
 *
 * Names are unique per namespace: in exclusive mode two namespaces may
 * each have a device of @name, and this finds the lowest-indexed one.
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
	dev = ib_find_name_in(NULL, name);
	dev = ib_pin_if(dev, dev && (driver_id == RDMA_DRIVER_UNKNOWN ||
				     driver_id == dev->ops.driver_id));
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
	dev = ib_pin_if(dev, dev && rdma_dev_access_netns(dev, net));
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
	unsigned long index = 0;
	struct ib_device *dev;
	int ret = 0;

	down_read(&ib_devices_rwsem);
	for (dev = xa_find(&ib_devices, &index, ULONG_MAX, DEVICE_REGISTERED);
	     dev && !ret;
	     dev = xa_find_after(&ib_devices, &index, ULONG_MAX,
				 DEVICE_REGISTERED))
		ret = fn(dev, arg);
	up_read(&ib_devices_rwsem);
	return ret;
}

/* The arguments of ib_enum_all_roce_netdevs(), for its per-device step. */
struct ib_roce_walk {
	roce_netdev_filter	filter;
	void			*filter_cookie;
	roce_netdev_callback	cb;
	void			*cookie;
};

static int ib_roce_walk_one(struct ib_device *dev, void *arg)
{
	struct ib_roce_walk *w = arg;

	ib_walk_roce_ports(dev, w->filter, w->filter_cookie, w->cb, w->cookie);
	return 0;
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
	struct ib_roce_walk w = {
		.filter = filter,
		.filter_cookie = filter_cookie,
		.cb = cb,
		.cookie = cookie,
	};

	ib_enum_all_devs(ib_roce_walk_one, &w);
}

/* ---- names --------------------------------------------------------------------------- */

/*
 * Any listed device (registered or not) of namespace @net (of any
 * namespace when @net is NULL) called @name, or NULL.  Names are unique
 * per namespace; in shared mode every device is init_net's.  Registry
 * lock held.
 */
static struct ib_device *ib_find_name_in(const struct net *net,
					 const char *name)
{
	struct ib_device *dev;
	unsigned long index;

	xa_for_each(&ib_devices, index, dev) {
		if ((!net || net_eq(read_pnet(&dev->coredev.rdma_net), net)) &&
		    strncmp(dev->name, name, IB_DEVICE_NAME_MAX) == 0)
			break;
	}
	return dev;
}

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
static int ib_name_from_template(const struct net *net, const char *tmpl,
				 char *out)
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
		if (!ib_find_name_in(net, out))
			return 0;
	}
	return -ENFILE;
}

/*
 * The name @request asks for in namespace @net, template expanded, into
 * @buf; lock held.
 */
static int ib_pick_name(const struct net *net, const char *request,
			char *buf)
{
	int ret;

	if (strchr(request, '%'))
		return ib_name_from_template(net, request, buf);
	ret = ib_check_name(request);
	if (!ret && ib_find_name_in(net, request))
		ret = -ENFILE;
	if (!ret)
		strscpy(buf, request, IB_DEVICE_NAME_MAX);
	return ret;
}

static void ib_assign_netns(struct ib_device *device);

/*
 * Give the device its namespace, an index and a name: it is now listed,
 * unregistered.
 */
static int ib_assign_name(struct ib_device *device, const char *name)
{
	char buf[IB_DEVICE_NAME_MAX];
	int ret;

	down_write(&ib_devices_rwsem);
	/* the namespace first: the name must be free there */
	ib_assign_netns(device);
	ret = ib_pick_name(read_pnet(&device->coredev.rdma_net), name, buf);
	if (!ret)
		ret = xa_alloc_cyclic(&ib_devices, &device->index, device,
				      xa_limit_31b, &ib_devices_next,
				      GFP_KERNEL);
	if (ret >= 0) {
		ret = dev_set_name(&device->dev, "%s", buf);
		if (ret)
			xa_erase(&ib_devices, device->index);
		else
			strscpy(device->name, buf, IB_DEVICE_NAME_MAX);
	}
	up_write(&ib_devices_rwsem);
	return ret;
}

/* Take the device out of the registry, if it is (still) listed. */
static void ib_unlist_device(struct ib_device *device)
{
	down_write(&ib_devices_rwsem);
	if (xa_load(&ib_devices, device->index) == device)
		xa_erase(&ib_devices, device->index);
	up_write(&ib_devices_rwsem);
}

/*
 * Whether @ibdev may take @name; registry lock held for write.  Return: 0
 * to rename, 1 if it already has that name, or the errno.
 */
static int ib_rename_allowed(struct ib_device *ibdev, const char *name)
{
	if (xa_load(&ib_devices, ibdev->index) != ibdev ||
	    !xa_get_mark(&ib_devices, ibdev->index, DEVICE_REGISTERED))
		return -ENODEV;
	if (!strcmp(name, ibdev->name))
		return 1;
	return ib_find_name_in(read_pnet(&ibdev->coredev.rdma_net), name) ?
	       -EEXIST : 0;
}

/* Call rename() of every client attached to @ibdev; registry lock held. */
static void ib_clients_renamed(struct ib_device *ibdev)
{
	struct ib_client *client;
	unsigned long id;

	down_read(&ib_clients_rwsem);
	down_read(&ibdev->client_data_rwsem);
	xa_for_each(&ib_clients, id, client) {
		if (client->rename &&
		    xa_get_mark(&ibdev->client_data, id, CLIENT_DATA_REGISTERED))
			client->rename(ibdev, xa_load(&ibdev->client_data, id));
	}
	up_read(&ibdev->client_data_rwsem);
	up_read(&ib_clients_rwsem);
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
	int ret = -EINVAL;

	if (name && !strchr(name, '%'))
		ret = ib_check_name(name);
	if (ret)
		return ret;

	mutex_lock(&ib_netns_mutex);
	down_write(&ib_devices_rwsem);
	ret = ib_rename_allowed(ibdev, name);
	if (!ret)
		ret = device_rename(&ibdev->dev, name);
	if (ret) {
		up_write(&ib_devices_rwsem);
		mutex_unlock(&ib_netns_mutex);
		return ret > 0 ? 0 : ret;
	}
	strscpy(ibdev->name, name, IB_DEVICE_NAME_MAX);
	ib_compat_rename(ibdev, name);
	/* Still a reader: no other rename overtakes the clients' calls. */
	downgrade_write(&ib_devices_rwsem);
	ib_clients_renamed(ibdev);
	up_read(&ib_devices_rwsem);
	mutex_unlock(&ib_netns_mutex);
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

/*
 * The registered client called @name with a use held, or NULL; with
 * @load, a client not registered is asked for by its module alias first.
 */
static struct ib_client *ib_client_get_by_name(const char *name, bool load)
{
	struct ib_client *client;
	unsigned long id;

	if (load)
		request_module("rdma-client-%s", name);
	down_read(&ib_clients_rwsem);
	xa_for_each_marked(&ib_clients, id, client, CLIENT_REGISTERED) {
		if (strcmp(client->name, name) == 0)
			break;
	}
	if (client && !refcount_inc_not_zero(&client->uses))
		client = NULL;
	up_read(&ib_clients_rwsem);
	return client;
}

/*
 * What @client offers for @ibdev, or globally for a NULL @ibdev; a client
 * without the callback, or not attached to @ibdev, offers nothing.
 */
static int ib_client_nl_info_of(struct ib_device *ibdev,
				struct ib_client *client,
				struct ib_client_nl_info *res)
{
	u32 id = client->client_id;
	int ret = -EOPNOTSUPP;

	if (!ibdev)
		return client->get_global_nl_info ?
		       client->get_global_nl_info(res) : ret;
	down_read(&ibdev->client_data_rwsem);
	if (client->get_nl_info &&
	    xa_get_mark(&ibdev->client_data, id, CLIENT_DATA_REGISTERED))
		ret = client->get_nl_info(ibdev,
					  xa_load(&ibdev->client_data, id), res);
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
	struct ib_client *client = ib_client_get_by_name(client_name, false) ?:
				   ib_client_get_by_name(client_name, true);
	int ret = -EOPNOTSUPP;

	if (client) {
		ret = ib_client_nl_info_of(ibdev, client, res);
		ib_client_put(client);
	}
	/* A client that answers must name its char device. */
	if (!ret && WARN_ON(!res->cdev))
		ret = -EINVAL;
	return ret;
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

/*
 * Take client @id's context off @device if the client is attached: clear
 * the mark so that nothing new reaches the client through the device.
 * Return: the client, holding the use the context had, or NULL; *@data is
 * what the client stored.
 */
static struct ib_client *ib_client_unmark(struct ib_device *device, u32 id,
					  void **data)
{
	struct ib_client *client = NULL;

	down_write(&device->client_data_rwsem);
	if (xa_get_mark(&device->client_data, id, CLIENT_DATA_REGISTERED)) {
		xa_clear_mark(&device->client_data, id,
			      CLIENT_DATA_REGISTERED);
		*data = xa_load(&device->client_data, id);
		/* The context holds a use, so the client is still listed. */
		client = xa_load(&ib_clients, id);
	}
	up_write(&device->client_data_rwsem);
	return client;
}

/* Detach client @id from @device if it is attached: remove() runs unlocked. */
static void ib_client_detach(struct ib_device *device, u32 id)
{
	void *data = NULL;
	struct ib_client *client = ib_client_unmark(device, id, &data);

	if (!client)
		return;
	if (client->remove)
		client->remove(device, data);
	xa_erase(&device->client_data, id);
	ib_client_put(client);
}

/*
 * Attach @client to every registered device, in index order.  The caller
 * holds the registry and the client list, both for read, and inserted the
 * client under the same hold of the registry: no device is (un)marked
 * meanwhile, and no device's own client walk runs beside this one.
 */
static int ib_client_attach_all(struct ib_client *client)
{
	unsigned long index = 0;
	struct ib_device *device;
	int ret = 0;

	for (device = xa_find(&ib_devices, &index, ULONG_MAX,
			      DEVICE_REGISTERED);
	     device && !ret;
	     device = xa_find_after(&ib_devices, &index, ULONG_MAX,
				    DEVICE_REGISTERED))
		ret = ib_client_attach(device, client);
	return ret;
}

/* Undo a client registration that failed half way; returns @err. */
static int ib_client_withdraw(struct ib_client *client, int err)
{
	ib_unregister_client(client);
	return err;
}

/**
 * ib_register_client - register a kernel user of RDMA devices
 * @client: the client, with its callbacks set
 *
 * add() is called for every registered device now and for every device
 * registered later, with clients called in the order they registered;
 * remove() is called in the reverse order.  add() runs with the core's
 * registry locks held as a reader and must not look devices up by name
 * or index; lookups by other threads go on meanwhile.
 *
 * Context: process context.
 * Return: 0, or -ENOMEM.
 */
int ib_register_client(struct ib_client *client)
{
	bool listed;
	int ret;

	refcount_set(&client->uses, 1);
	init_completion(&client->uses_zero);

	/*
	 * The registry is held as a reader across the insertion and the
	 * walk, so no device is marked or unmarked meanwhile.  A device
	 * marked already took the client list before its registry lock
	 * became a reader's: inserting waits until its client walk is over
	 * (it did not see this client), and this walk attaches the client.
	 * A device not marked yet sees the client in its own walk, not here.
	 */
	down_read(&ib_devices_rwsem);
	down_write(&ib_clients_rwsem);
	ret = xa_insert(&ib_clients, ib_clients_end, client, GFP_KERNEL);
	if (!ret) {
		client->client_id = ib_clients_end++;
		xa_set_mark(&ib_clients, client->client_id, CLIENT_REGISTERED);
	}
	listed = !ret;
	downgrade_write(&ib_clients_rwsem);
	if (listed)
		ret = ib_client_attach_all(client);
	up_read(&ib_clients_rwsem);
	up_read(&ib_devices_rwsem);
	/* Out of memory on one device: the client goes from all of them. */
	return ret && listed ? ib_client_withdraw(client, ret) : ret;
}
EXPORT_SYMBOL(ib_register_client);

/*
 * The first listed device at index *@index or beyond that can be pinned
 * (registered, not unregistering), with a registration reference; *@index
 * is left at it.  NULL when there is none.
 */
static struct ib_device *ib_pin_next(unsigned long *index)
{
	struct ib_device *dev;

	rcu_read_lock();
	dev = xa_find(&ib_devices, index, ULONG_MAX, XA_PRESENT);
	while (dev && !ib_device_try_get(dev))
		dev = xa_find_after(&ib_devices, index, ULONG_MAX, XA_PRESENT);
	rcu_read_unlock();
	return dev;
}

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
	u32 id = client->client_id;
	unsigned long index;
	struct ib_device *dev;

	/* No attach can succeed once the registration's use is gone. */
	down_write(&ib_clients_rwsem);
	xa_clear_mark(&ib_clients, id, CLIENT_REGISTERED);
	up_write(&ib_clients_rwsem);
	ib_client_put(client);

	/*
	 * remove() may call anything, so no registry lock is held around
	 * it.  Devices that cannot be pinned are unregistering and detach
	 * the client themselves; waiting for the last use covers them.
	 */
	for (index = 0; (dev = ib_pin_next(&index)); index++) {
		ib_client_detach(dev, id);
		ib_device_put(dev);
	}
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
	/* An error pointer would read back as an entry of the xarray's own. */
	void *val = WARN_ON(IS_ERR(data)) ? NULL : data;

	WARN_ON(xa_is_err(xa_store(&device->client_data, client->client_id,
				   val, GFP_KERNEL)));
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

/**
 * ib_name_taken_for - would a new device on @ndev clash with @name?
 * @ndev: the netdev of the device's first port
 * @name: the name asked for (no template)
 *
 * Names are unique per namespace; a new device belongs to init_net in
 * shared mode and to @ndev's namespace in exclusive mode.
 *
 * Context: process context.
 * Return: true if a device of that namespace has @name.
 */
bool ib_name_taken_for(struct net_device *ndev, const char *name)
{
	const struct net *net = &init_net;
	bool taken;

	down_read(&ib_devices_rwsem);
	if (!ib_devices_shared_netns)
		net = dev_net(ndev);
	taken = ib_find_name_in(net, name);
	up_read(&ib_devices_rwsem);
	return taken;
}

/*
 * ---- network namespaces: sysfs copies and moves ---------------------------
 *
 * The infiniband class is per namespace: a device's directory shows in
 * the sysfs of ib_core_device.rdma_net.  In shared mode, where every
 * device belongs to init_net and is visible everywhere, each registered
 * device gets a copy of its directory (a struct ib_core_device of its own,
 * owner the device, with the same attributes and ports) in every other
 * live namespace, in ib_device.compat_devs under the namespace's id in
 * ib_nets.  In exclusive mode there are no copies, and a device can move
 * to another namespace: its clients are detached, its directory is
 * re-published in the new namespace (device_rename() to its own name
 * re-tags it), and its clients attached again; user space sees it as a
 * removal and an arrival (uverbs files are disassociated).  When a
 * namespace dies, its devices move back to init_net, as ibdev<N> if their
 * name is taken there.
 *
 * ib_netns_mutex serialises all of it: the mode, ib_nets, every
 * compat_devs, and moves.  Order: ib_netns_mutex -> ib_devices_rwsem.  It
 * is never taken with the registry lock held.
 */
/* The live namespaces other than init_net, by an id of ours. */
static DEFINE_XARRAY_FLAGS(ib_nets, XA_FLAGS_ALLOC);

static void ib_compat_release(struct device *dev)
{
	kfree(container_of(dev, struct ib_core_device, dev));
}

/* Take a copy of a device's directory out of sysfs and drop it. */
static void ib_compat_del(struct ib_core_device *cdev)
{
	ib_free_port_attrs(cdev);
	device_unregister(&cdev->dev);
}

/* A copy of @device's directory for @net, unless it has one; mutex held. */
static int ib_compat_add(struct ib_device *device, struct net *net, u32 id)
{
	struct ib_core_device *cdev;
	int ret;

	if (xa_load(&device->compat_devs, id))
		return 0;
	cdev = kzalloc(sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;
	cdev->owner = device;
	INIT_LIST_HEAD(&cdev->port_list);
	write_pnet(&cdev->rdma_net, net);
	device_initialize(&cdev->dev);
	cdev->dev.class = &ib_class;
	cdev->dev.parent = device->dev.parent;
	cdev->dev.groups = device->groups;
	cdev->dev.release = ib_compat_release;
	ret = dev_set_name(&cdev->dev, "%s", dev_name(&device->dev)) ?:
	      device_add(&cdev->dev);
	if (ret) {
		put_device(&cdev->dev);
		return ret;
	}
	ret = ib_setup_port_attrs(cdev) ?:
	      xa_insert(&device->compat_devs, id, cdev, GFP_KERNEL);
	if (ret)
		ib_compat_del(cdev);
	return ret;
}

/* Copies of @device's directory in every live namespace; mutex held. */
static void ib_compat_add_all(struct ib_device *device)
{
	unsigned long id;
	struct net *net;
	int ret;

	xa_for_each(&ib_nets, id, net) {
		ret = ib_compat_add(device, net, id);
		if (ret)
			ibdev_warn(device, "no sysfs copy in a namespace: %d\n",
				   ret);
	}
}

/* Every copy of @device's directory; mutex held. */
static void ib_compat_del_all(struct ib_device *device)
{
	struct ib_core_device *cdev;
	unsigned long id;

	xa_for_each(&device->compat_devs, id, cdev) {
		xa_erase(&device->compat_devs, id);
		ib_compat_del(cdev);
	}
}

/* A device just published gets its copies, in shared mode. */
static void ib_compat_publish(struct ib_device *device)
{
	mutex_lock(&ib_netns_mutex);
	if (ib_devices_shared_netns)
		ib_compat_add_all(device);
	mutex_unlock(&ib_netns_mutex);
}

/* A device being torn down loses its copies. */
static void ib_compat_unpublish(struct ib_device *device)
{
	mutex_lock(&ib_netns_mutex);
	ib_compat_del_all(device);
	mutex_unlock(&ib_netns_mutex);
}

/* Rename the copies of a renamed device; mutex and registry lock held. */
static void ib_compat_rename(struct ib_device *device, const char *name)
{
	struct ib_core_device *cdev;
	unsigned long id;
	int ret;

	xa_for_each(&device->compat_devs, id, cdev) {
		ret = device_rename(&cdev->dev, name);
		if (ret)
			ibdev_warn(device, "sysfs copy not renamed: %d\n", ret);
	}
}

/*
 * Move @device to @net as @name (a template takes the lowest free
 * number there).  Mutex held, exclusive mode, and the caller holds a
 * registration reference.  Return: 0, -EEXIST if @name is taken in @net,
 * or the error of the sysfs move.
 */
static int ib_move_locked(struct ib_device *device, struct net *net,
			  const char *name)
{
	struct net *old = read_pnet(&device->coredev.rdma_net);
	char newname[IB_DEVICE_NAME_MAX];
	u32 id = READ_ONCE(ib_clients_end);
	bool live;
	int ret;

	if (net_eq(old, net))
		return 0;
	/* Unmarked, no lookup or new client finds it while it moves. */
	down_write(&ib_devices_rwsem);
	ret = ib_pick_name(net, name, newname);
	if (!ret)
		xa_clear_mark(&ib_devices, device->index, DEVICE_REGISTERED);
	up_write(&ib_devices_rwsem);
	if (ret)
		return ret == -ENFILE ? -EEXIST : ret;

	nldev_notify_event(device, 0, RDMA_UNREGISTER_EVENT);
	while (id--)
		ib_client_detach(device, id);

	down_write(&ib_devices_rwsem);
	ret = ib_find_name_in(net, newname) ? -EEXIST : 0;
	if (!ret) {
		write_pnet(&device->coredev.rdma_net, net);
		ret = device_rename(&device->dev, newname);
		if (ret)
			write_pnet(&device->coredev.rdma_net, old);
		else
			strscpy(device->name, newname, IB_DEVICE_NAME_MAX);
	}
	/* An unregistration that began meanwhile keeps it unmarked. */
	spin_lock_irq(&device->life_lock);
	live = device->life == IB_LIFE_LIVE;
	spin_unlock_irq(&device->life_lock);
	if (live)
		xa_set_mark(&ib_devices, device->index, DEVICE_REGISTERED);
	down_read(&ib_clients_rwsem);
	downgrade_write(&ib_devices_rwsem);
	if (live)
		ib_attach_clients(device);
	up_read(&ib_clients_rwsem);
	up_read(&ib_devices_rwsem);
	if (live)
		nldev_notify_event(device, 0, RDMA_REGISTER_EVENT);
	if (ret)
		ibdev_dbg(device, "not moved: %d\n", ret);
	return ret;
}

/**
 * ib_device_move_netns - move a device to another network namespace
 * @device: a registered device, with a registration reference held
 * @net: where to
 *
 * Exclusive mode only.  The device keeps its name; it is detached from
 * its clients and attached again in @net, its sysfs directory and netlink
 * presence go with it.
 *
 * Context: process context; sleeps.
 * Return: 0, -EOPNOTSUPP in shared mode, -EEXIST if a device of @net has
 * its name (nothing changes then), or a sysfs error.
 */
int ib_device_move_netns(struct ib_device *device, struct net *net)
{
	int ret = -EOPNOTSUPP;

	mutex_lock(&ib_netns_mutex);
	if (!ib_devices_shared_netns)
		ret = ib_move_locked(device, net, device->name);
	mutex_unlock(&ib_netns_mutex);
	return ret;
}

static int __net_init ib_netns_init(struct net *net)
{
	struct ib_device *dev;
	unsigned long index;
	u32 id;
	int ret;

	if (net_eq(net, &init_net))
		return 0;
	mutex_lock(&ib_netns_mutex);
	ret = xa_alloc(&ib_nets, &id, net, xa_limit_31b, GFP_KERNEL);
	if (!ret && ib_devices_shared_netns) {
		down_read(&ib_devices_rwsem);
		xa_for_each_marked(&ib_devices, index, dev, DEVICE_REGISTERED) {
			if (ib_compat_add(dev, net, id))
				ibdev_warn(dev, "no sysfs copy in a new namespace\n");
		}
		up_read(&ib_devices_rwsem);
	}
	mutex_unlock(&ib_netns_mutex);
	return ret;
}

/* A registered device of @net, with a registration reference, or NULL. */
static struct ib_device *ib_pin_one_of(const struct net *net)
{
	struct ib_device *dev, *found = NULL;
	unsigned long index;

	down_read(&ib_devices_rwsem);
	xa_for_each_marked(&ib_devices, index, dev, DEVICE_REGISTERED) {
		if (net_eq(read_pnet(&dev->coredev.rdma_net), net) &&
		    ib_device_try_get(dev)) {
			found = dev;
			break;
		}
	}
	up_read(&ib_devices_rwsem);
	return found;
}

/*
 * A namespace goes away: the copies in it go, and its devices move back
 * to init_net (as ibdev<N> if their name is taken there).  Devices whose
 * netdev was in it are being removed by their provider meanwhile.
 */
static void __net_exit ib_netns_exit(struct net *net)
{
	struct ib_core_device *cdev;
	struct ib_device *dev;
	unsigned long index, id;
	struct net *each;

	if (net_eq(net, &init_net))
		return;
	mutex_lock(&ib_netns_mutex);
	xa_for_each(&ib_nets, id, each) {
		if (each == net)
			break;
	}
	if (each) {
		down_read(&ib_devices_rwsem);
		xa_for_each(&ib_devices, index, dev) {
			cdev = xa_erase(&dev->compat_devs, id);
			if (cdev)
				ib_compat_del(cdev);
		}
		up_read(&ib_devices_rwsem);
		xa_erase(&ib_nets, id);
	}
	while ((dev = ib_pin_one_of(net))) {
		int ret = ib_move_locked(dev, &init_net, dev->name);

		if (ret == -EEXIST)
			ret = ib_move_locked(dev, &init_net, "ibdev%d");
		if (ret)
			ibdev_warn(dev, "stays in a dying namespace: %d\n", ret);
		ib_device_put(dev);
		if (ret)
			break;
	}
	mutex_unlock(&ib_netns_mutex);
}

static struct pernet_operations ib_netns_ops = {
	.init = ib_netns_init,
	.exit = ib_netns_exit,
};

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

/* ---- the steps of a registration ----------------------------------------------- */

/* device_add() without its uevent: that waits until the ports are in. */
static int ib_add_core_dev(struct ib_device *device)
{
	int ret;

	dev_set_uevent_suppress(&device->dev, true);
	ret = device_add(&device->dev);
	if (ret)
		dev_set_uevent_suppress(&device->dev, false);
	return ret;
}

static void ib_del_core_dev(struct ib_device *device)
{
	device_del(&device->dev);
	dev_set_uevent_suppress(&device->dev, false);
}

static int ib_add_port_files(struct ib_device *device)
{
	return ib_setup_port_attrs(&device->coredev);
}

static void ib_del_port_files(struct ib_device *device)
{
	ib_free_port_attrs(&device->coredev);
}

static int ib_enable_driver(struct ib_device *device)
{
	return device->ops.enable_driver ? device->ops.enable_driver(device) : 0;
}

/*
 * What ib_register_device() sets up before the device is published, in
 * order.  A failing step has the ones before it undone in reverse, and
 * unregistration undoes them all in reverse; @undo may be NULL.
 */
static const struct ib_reg_step {
	int (*setup)(struct ib_device *device);
	void (*undo)(struct ib_device *device);
	const char *what;
} ib_reg_steps[] = {
	{ ib_setup_ports,	  NULL,			 "read the port properties" },
	{ ib_query_device_attrs,  NULL,			 "query the device" },
	{ rdma_restrack_init,	  rdma_restrack_clean,	 "set up resource tracking" },
	{ ib_cache_setup_one,	  ib_cache_cleanup_one,	 "set up the GID/P_Key cache" },
	{ rdma_counters_init,	  rdma_counters_release, "set up the counters" },
	{ ib_setup_device_attrs,  NULL,			 "build the sysfs attributes" },
	{ ib_add_core_dev,	  ib_del_core_dev,	 "add the sysfs device" },
	{ ib_add_port_files,	  ib_del_port_files,	 "create the port sysfs" },
	{ ib_enable_driver,	  NULL,			 "enable the driver" },
};

/* Undo the first @done steps, last first. */
static void ib_undo_steps(struct ib_device *device, size_t done)
{
	while (done--) {
		if (ib_reg_steps[done].undo)
			ib_reg_steps[done].undo(device);
	}
}

static int ib_do_steps(struct ib_device *device)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ib_reg_steps); i++) {
		ret = ib_reg_steps[i].setup(device);
		if (ret) {
			ibdev_warn(device, "could not %s: %d\n",
				   ib_reg_steps[i].what, ret);
			ib_undo_steps(device, i);
			return ret;
		}
	}
	return 0;
}

/* ---- life ------------------------------------------------------------------------ */

/* Move @device to @to and wake whoever waits for a change. */
static void ib_set_life(struct ib_device *device, enum ib_life to)
{
	spin_lock_irq(&device->life_lock);
	WRITE_ONCE(device->life, to);
	spin_unlock_irq(&device->life_lock);
	wake_up_all(&ib_life_wait);
}

static bool ib_is_live(struct ib_device *device)
{
	return READ_ONCE(device->life) == IB_LIFE_LIVE;
}

/* FRESH -> JOINING, for ib_register_device(). */
static int ib_start_joining(struct ib_device *device)
{
	int ret = 0;

	spin_lock_irq(&device->life_lock);
	if (device->life == IB_LIFE_GONE)
		ret = -EINVAL;
	else if (device->life != IB_LIFE_FRESH)
		ret = -EEXIST;
	else if (device->doomed)
		ret = -ENODEV;
	else
		WRITE_ONCE(device->life, IB_LIFE_JOINING);
	spin_unlock_irq(&device->life_lock);
	return ret;
}

/* Every registered client's add(), oldest client first. */
static void ib_attach_clients(struct ib_device *device)
{
	struct ib_client *client;
	unsigned long id;

	xa_for_each_marked(&ib_clients, id, client, CLIENT_REGISTERED) {
		if (ib_client_attach(device, client))
			ibdev_warn(device, "could not attach client %s\n",
				   client->name);
	}
}

/*
 * JOINING -> LIVE unless an unregistration was asked for meanwhile: the
 * registration reference plus one for the registering thread (so that a
 * racing unregistration cannot finish before ib_register_device()
 * returns), LIVE and the registry mark all go in under the registry lock,
 * so an unregistration, which unmarks under that lock once it saw LIVE,
 * always comes after the mark.  The client walk follows with the client
 * list taken before the registry lock is downgraded: a client
 * registering meanwhile is either in the list already, and its own walk
 * will not see the device, or it waits for this walk to end.
 *
 * Return: false (nothing done) if the device was doomed.
 */
static bool ib_publish(struct ib_device *device)
{
	bool doomed;

	down_write(&ib_devices_rwsem);
	spin_lock_irq(&device->life_lock);
	doomed = device->doomed;
	if (!doomed) {
		reinit_completion(&device->refs_gone);
		refcount_set(&device->refcount, 2);
		WRITE_ONCE(device->life, IB_LIFE_LIVE);
	}
	spin_unlock_irq(&device->life_lock);
	if (doomed) {
		up_write(&ib_devices_rwsem);
		return false;
	}
	xa_set_mark(&ib_devices, device->index, DEVICE_REGISTERED);

	down_read(&ib_clients_rwsem);
	downgrade_write(&ib_devices_rwsem);
	ib_attach_clients(device);
	up_read(&ib_clients_rwsem);
	up_read(&ib_devices_rwsem);
	return true;
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
 * @device may be freed by the time this returns.  A device that was asked
 * to go away before it is published (ib_unregister_device_queued(), or an
 * unregistration of a registration in progress) is not published.
 *
 * Context: process context; sleeps.  Not under RTNL.
 * Return: 0; -EINVAL for a missing required callback, a bad name or port
 * data, or a device that was unregistered before; -ENFILE if the name is
 * taken, -EEXIST if @device is registered or registering already,
 * -ENODEV if it was asked to go away, -ENOMEM, or the provider's error.
 */
int ib_register_device(struct ib_device *device, const char *name,
		       struct device *dma_device)
{
	int ret = name ? ib_check_required_ops(device) : -EINVAL;

	if (!ret)
		ret = ib_start_joining(device);
	if (ret)
		return ret;

	WARN_ON(dma_device && !dma_device->dma_parms);
	device->dma_device = dma_device;
	device->kverbs_provider = true;
	ret = ib_assign_name(device, name);
	if (ret)
		goto back_to_fresh;
	ret = ib_do_steps(device);
	if (!ret && !ib_publish(device)) {
		ibdev_dbg(device, "asked to go away before it was published\n");
		ib_undo_steps(device, ARRAY_SIZE(ib_reg_steps));
		ret = -ENODEV;
	}
	if (ret) {
		/* Nothing saw the tables: free them now, so a retry starts clean. */
		ib_cache_release_one(device);
		ib_unlist_device(device);
		goto back_to_fresh;
	}

	wake_up_all(&ib_life_wait);
	dev_set_uevent_suppress(&device->dev, false);
	kobject_uevent(&device->dev.kobj, KOBJ_ADD);
	ib_compat_publish(device);
	ib_rescan_roce(device);
	nldev_notify_event(device, 0, RDMA_REGISTER_EVENT);
	/* Last touch: a racing unregistration may free the device now. */
	ib_device_put(device);
	return 0;

back_to_fresh:
	ib_set_life(device, IB_LIFE_FRESH);
	return ret;
}
EXPORT_SYMBOL(ib_register_device);

/* ---- unregistration ---------------------------------------------------------- */

/*
 * The teardown of a device this thread moved from LIVE to LEAVING, in the
 * order given at the top of this file.
 */
static void ib_teardown_live(struct ib_device *device)
{
	u32 id = READ_ONCE(ib_clients_end);

	nldev_notify_event(device, 0, RDMA_UNREGISTER_EVENT);
	down_write(&ib_devices_rwsem);
	xa_clear_mark(&ib_devices, device->index, DEVICE_REGISTERED);
	up_write(&ib_devices_rwsem);

	ib_device_put(device);
	wait_for_completion(&device->refs_gone);

	/*
	 * Clients, newest first.  None attaches any more: the device is not
	 * marked, and its own walk is over.
	 */
	while (id--)
		ib_client_detach(device, id);
	ib_compat_unpublish(device);
	ib_cq_pool_cleanup(device);
	ib_free_netdevs(device);
	ib_undo_steps(device, ARRAY_SIZE(ib_reg_steps));
	if (device->ops.dealloc_driver)
		ib_dealloc_device(device);
}

/*
 * Unregister @device, or wait for whoever is doing it.  Returns once the
 * device is not registered and, when its provider has dealloc_driver(),
 * has been freed by the core.  A registration still running is doomed
 * (it fails with -ENODEV) and waited for.  @drop_ref: the caller hands
 * over a registration reference of its own, dropped here.  The caller
 * guarantees the device's memory on entry; this holds it until the end.
 */
static void ib_retire(struct ib_device *device, bool drop_ref)
{
	enum ib_life seen;

	get_device(&device->dev);
	if (drop_ref)
		ib_device_put(device);
	do {
		spin_lock_irq(&device->life_lock);
		seen = device->life;
		if (seen == IB_LIFE_LIVE)
			WRITE_ONCE(device->life, IB_LIFE_LEAVING);
		else if (seen == IB_LIFE_JOINING)
			device->doomed = true;
		spin_unlock_irq(&device->life_lock);

		if (seen == IB_LIFE_LIVE) {
			ib_teardown_live(device);
			ib_set_life(device, IB_LIFE_GONE);
		} else if (seen == IB_LIFE_JOINING || seen == IB_LIFE_LEAVING) {
			wait_event(ib_life_wait,
				   READ_ONCE(device->life) != seen);
		}
	} while (seen == IB_LIFE_JOINING);
	put_device(&device->dev);
}

/**
 * ib_unregister_device - unregister a device
 * @device: the device
 *
 * Every client's remove() runs and every registration reference is waited
 * for.  If the provider has dealloc_driver(), the device is also freed by
 * the time this returns; otherwise the provider frees it with
 * ib_dealloc_device().  Concurrent calls are allowed: all return once the
 * device is unregistered.  A registration of @device still in progress
 * fails and is waited for; a device never registered is left as it is.
 *
 * Context: process context; sleeps.  Must not hold RTNL or locks a client
 * callback could take.
 */
void ib_unregister_device(struct ib_device *device)
{
	ib_retire(device, false);
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
	ib_retire(device, true);
}
EXPORT_SYMBOL(ib_unregister_device_and_put);

static void ib_retire_work(struct work_struct *work)
{
	struct ib_device *device =
		container_of(work, struct ib_device, retire_work);

	ib_retire(device, false);
	/* The reference ib_unregister_device_queued() took for the work. */
	put_device(&device->dev);
}

/**
 * ib_unregister_device_queued - unregister a device from a work item
 * @ib_dev: the device; its provider must have dealloc_driver()
 *
 * For callers that hold locks unregistration must not run under (RTNL in
 * a netdev notifier, for instance).  A registered device is unregistered
 * by a work item holding its own reference on it, once however often this
 * is called.  A device that is not registered yet, or whose registration
 * is running, is marked instead: its registration fails with -ENODEV.  A
 * device already unregistering or unregistered is left alone.  Providers
 * call ib_unregister_driver() before unloading to wait for queued
 * unregistrations.  The caller keeps @ib_dev's memory alive for the call.
 *
 * Context: any context that may queue work.
 */
void ib_unregister_device_queued(struct ib_device *ib_dev)
{
	unsigned long flags;
	bool queue;

	WARN_ON(!ib_dev->ops.dealloc_driver);
	spin_lock_irqsave(&ib_dev->life_lock, flags);
	queue = ib_dev->life == IB_LIFE_LIVE && !ib_dev->doomed;
	if (queue)
		get_device(&ib_dev->dev);
	if (ib_dev->life == IB_LIFE_FRESH || ib_dev->life == IB_LIFE_JOINING ||
	    ib_dev->life == IB_LIFE_LIVE)
		ib_dev->doomed = true;
	spin_unlock_irqrestore(&ib_dev->life_lock, flags);

	if (queue)
		queue_work(ib_unreg_wq, &ib_dev->retire_work);
	else
		ibdev_dbg(ib_dev, "unregistration asked for again, or early\n");
}
EXPORT_SYMBOL(ib_unregister_device_queued);

/*
 * The next listed device of @driver_id at *@index or beyond, with a
 * get_device() reference; *@index is left at it.  NULL when none is left.
 */
static struct ib_device *ib_hold_driver_device(enum rdma_driver_id driver_id,
					       unsigned long *index)
{
	struct ib_device *dev;

	/* Under the registry lock: no device leaves the list meanwhile. */
	down_read(&ib_devices_rwsem);
	dev = xa_find(&ib_devices, index, ULONG_MAX, XA_PRESENT);
	while (dev && dev->ops.driver_id != driver_id)
		dev = xa_find_after(&ib_devices, index, ULONG_MAX, XA_PRESENT);
	if (dev)
		get_device(&dev->dev);
	up_read(&ib_devices_rwsem);
	return dev;
}

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

	for (index = 0; (device = ib_hold_driver_device(driver_id, &index));
	     index++) {
		WARN_ON(!device->ops.dealloc_driver);
		ib_retire(device, false);
		put_device(&device->dev);
	}
}
EXPORT_SYMBOL(ib_unregister_driver);

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

/* iWARP: the port state of a link with @ndev under it. */
static enum ib_port_state ib_iw_link_state(struct net_device *ndev)
{
	const struct in_device *inet;
	bool addressed;

	if (!netif_carrier_ok(ndev))
		return IB_PORT_DOWN;
	rcu_read_lock();
	inet = __in_dev_get_rcu(ndev);
	addressed = inet && rcu_access_pointer(inet->ifa_list);
	rcu_read_unlock();
	/* Up but without an address, the link is not usable yet. */
	return addressed ? IB_PORT_ACTIVE : IB_PORT_INIT;
}

/*
 * iWARP: state and MTU come from the netdev under the port.  A port whose
 * netdev is gone (unregistered under a device still being torn down) is
 * down; the query itself is no error.
 */
static void ib_iw_port_state(struct ib_device *device, u32 port_num,
			     struct ib_port_attr *attr)
{
	struct net_device *ndev = ib_device_get_netdev(device, port_num);

	if (!ndev) {
		attr->state = IB_PORT_DOWN;
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		return;
	}
	attr->state = ib_iw_link_state(ndev);
	switch (attr->state) {
	case IB_PORT_ACTIVE:
		attr->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
		break;
	case IB_PORT_INIT:
		attr->phys_state =
			IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING;
		break;
	default:
		attr->phys_state = IB_PORT_PHYS_STATE_DISABLED;
		break;
	}
	attr->active_mtu = ib_mtu_int_to_enum(ndev->mtu);
	attr->max_mtu = IB_MTU_4096;
	dev_put(ndev);
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
	if (rdma_protocol_iwarp(device, port_num))
		ib_iw_port_state(device, port_num, port_attr);

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

/*
 * IB width and speed closest to an Ethernet link of @mbps Mb/s carried
 * by @lanes (0: unknown, judged by the total alone).
 */
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
		{ U32_MAX,	IB_WIDTH_4X, IB_SPEED_NDR },
	};
	/* Lane counts with a width of their own; any other is 1X. */
	static const u8 width_of_lanes[] = {
		[2] = IB_WIDTH_2X, [4] = IB_WIDTH_4X,
		[8] = IB_WIDTH_8X, [12] = IB_WIDTH_12X,
	};
	/* Exact per-lane rates; any other is SDR. */
	static const struct {
		u32 lane_mbps;
		u16 speed;
	} by_lane[] = {
		{ SPEED_5000, IB_SPEED_DDR },	{ SPEED_10000, IB_SPEED_FDR10 },
		{ SPEED_14000, IB_SPEED_FDR },	{ SPEED_25000, IB_SPEED_EDR },
		{ SPEED_50000, IB_SPEED_HDR },	{ SPEED_100000, IB_SPEED_NDR },
	};
	size_t i;

	if (!lanes) {
		for (i = 0; mbps > by_total[i].max_mbps; i++)
			;
		*width = by_total[i].width;
		*speed = by_total[i].speed;
		return;
	}

	*width = IB_WIDTH_1X;
	if (lanes < ARRAY_SIZE(width_of_lanes) && width_of_lanes[lanes])
		*width = width_of_lanes[lanes];
	*speed = IB_SPEED_SDR;
	for (i = 0; i < ARRAY_SIZE(by_lane); i++)
		if (by_lane[i].lane_mbps == mbps / lanes)
			*speed = by_lane[i].speed;
}

/*
 * The link of @ndev, under RTNL: *@mbps (1 Gb/s when ethtool cannot
 * tell) and *@lanes (0 if unknown).  -ENODEV once @ndev is unregistering.
 */
static int ib_ndev_link(struct net_device *ndev, u32 *mbps, u32 *lanes)
{
	struct ethtool_link_ksettings ks = {};
	bool gone;
	int err = 0;

	rtnl_lock();
	gone = READ_ONCE(ndev->reg_state) != NETREG_REGISTERED;
	if (!gone)
		err = __ethtool_get_link_ksettings(ndev, &ks);
	rtnl_unlock();
	if (gone)
		return -ENODEV;

	*lanes = ks.lanes;
	*mbps = SPEED_1000;
	if (err)
		netdev_dbg(ndev, "link speed unknown (%d), taking %u Mb/s\n",
			   err, *mbps);
	else if (ks.base.speed != (u32)SPEED_UNKNOWN)
		*mbps = ks.base.speed;
	return 0;
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
	struct net_device *ndev;
	u32 mbps, lanes;
	int err;

	if (!rdma_is_port_valid(dev, port_num) ||
	    rdma_port_get_link_layer(dev, port_num) != IB_LINK_LAYER_ETHERNET)
		return -EINVAL;
	ndev = ib_device_get_netdev(dev, port_num);
	if (!ndev)
		return -ENODEV;
	err = ib_ndev_link(ndev, &mbps, &lanes);
	dev_put(ndev);
	if (!err)
		ib_eth_to_ib_speed(mbps, lanes, speed, width);
	return err;
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
	return device->ops.set_vf_link_state ?
	       device->ops.set_vf_link_state(device, vf, port, state) :
	       -EOPNOTSUPP;
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
	return device->ops.get_vf_config ?
	       device->ops.get_vf_config(device, vf, port, info) : -EOPNOTSUPP;
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
	return device->ops.get_vf_stats ?
	       device->ops.get_vf_stats(device, vf, port, stats) : -EOPNOTSUPP;
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
	return device->ops.get_vf_guid ?
	       device->ops.get_vf_guid(device, vf, port, node_guid, port_guid) :
	       -EOPNOTSUPP;
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
	return device->ops.set_vf_guid ?
	       device->ops.set_vf_guid(device, vf, port, guid, type) :
	       -EOPNOTSUPP;
}
EXPORT_SYMBOL(ib_set_vf_guid);

/* ---- netdevs on top of a device ---------------------------------------------------- */

/* The provider's sizes and set-up for a netdev of @type on @port_num. */
static int ib_netdev_params(struct ib_device *device, u32 port_num,
			    enum rdma_netdev_t type,
			    struct rdma_netdev_alloc_params *params)
{
	*params = (struct rdma_netdev_alloc_params){};
	if (!device->ops.rdma_netdev_get_params)
		return -EOPNOTSUPP;
	return device->ops.rdma_netdev_get_params(device, port_num, type,
						  params);
}

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
	struct rdma_netdev_alloc_params p;
	struct net_device *ndev = NULL;
	int err = ib_netdev_params(device, port_num, type, &p);

	if (!err)
		ndev = alloc_netdev_mqs(p.sizeof_priv, name, name_assign_type,
					setup, p.txqs, p.rxqs);
	if (!err && !ndev)
		err = -ENOMEM;
	return err ? ERR_PTR(err) : ndev;
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
	struct rdma_netdev_alloc_params p;
	int err = ib_netdev_params(device, port_num, type, &p);

	if (err)
		return err;
	return p.initialize_rdma_netdev ?
	       p.initialize_rdma_netdev(device, port_num, netdev, p.param) :
	       -EOPNOTSUPP;
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
	struct scatterlist *s = sg;
	int left = nents;

	for (; left > 0; left--, s = sg_next(s)) {
		s->dma_address = (uintptr_t)sg_virt(s);
		sg_dma_len(s) = s->length;
	}
	return nents;
}
EXPORT_SYMBOL(ib_dma_virt_map_sg);
#endif

/* ---- module init and exit ---------------------------------------------------------- */

static void ib_core_destroy_wqs(void)
{
	struct workqueue_struct **wqs[] = {
		&ib_unreg_wq, &ib_comp_unbound_wq, &ib_comp_wq, &ib_wq,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(wqs); i++) {
		if (*wqs[i])
			destroy_workqueue(*wqs[i]);
		*wqs[i] = NULL;
	}
}

static int ib_core_alloc_wqs(void)
{
	ib_wq = alloc_ordered_workqueue("infiniband", WQ_MEM_RECLAIM);
	ib_comp_wq = alloc_workqueue("ib-comp-wq",
				     WQ_HIGHPRI | WQ_MEM_RECLAIM | WQ_SYSFS, 0);
	ib_comp_unbound_wq = alloc_workqueue("ib-comp-unb-wq",
					     WQ_UNBOUND | WQ_HIGHPRI |
					     WQ_MEM_RECLAIM | WQ_SYSFS,
					     WQ_MAX_ACTIVE);
	ib_unreg_wq = alloc_workqueue("ib-unreg-wq", WQ_UNBOUND,
				      WQ_UNBOUND_MAX_ACTIVE);
	if (ib_wq && ib_comp_wq && ib_comp_unbound_wq && ib_unreg_wq)
		return 0;
	ib_core_destroy_wqs();
	return -ENOMEM;
}

/*
 * Queued events and unregistrations hold device references; at unload
 * they finish while everything they may touch is still set up.
 */
static void ib_core_drain_work(void)
{
	flush_workqueue(ib_unreg_wq);
	flush_workqueue(ib_wq);
}

static int ib_core_class_up(void)
{
	return class_register(&ib_class);
}

static void ib_core_class_down(void)
{
	class_unregister(&ib_class);
}

static int ib_core_netns_up(void)
{
	return register_pernet_subsys(&ib_netns_ops);
}

static void ib_core_netns_down(void)
{
	unregister_pernet_subsys(&ib_netns_ops);
}

static int ib_core_notifier_up(void)
{
	return register_netdevice_notifier(&ib_netdev_nb);
}

static void ib_core_notifier_down(void)
{
	unregister_netdevice_notifier(&ib_netdev_nb);
}

/*
 * The parts of ib_core, brought up in this order at load and down in the
 * reverse one at unload (or when a later part fails to come up).  The
 * RDMA netlink parts come last: no request reaches a half-built core, and
 * none arrives once unloading started.
 */
static const struct ib_core_part {
	const char *what;
	int (*up)(void);	/* NULL: nothing to do at load */
	void (*down)(void);
} ib_core_parts[] = {
	{ "the work queues",		ib_core_alloc_wqs,	ib_core_destroy_wqs },
	{ "the infiniband class",	ib_core_class_up,	ib_core_class_down },
	{ "the namespace hooks",	ib_core_netns_up,	ib_core_netns_down },
	{ "the netdev notifier",	ib_core_notifier_up,	ib_core_notifier_down },
	{ "address resolution",		addr_init,		addr_cleanup },
	{ "the cache",			ib_cache_setup,		ib_cache_cleanup },
	{ "RoCE GID management",	roce_gid_mgmt_init,	roce_gid_mgmt_cleanup },
	{ "pending work",		NULL,			ib_core_drain_work },
	{ "RDMA netlink",		rdma_nl_init,		rdma_nl_exit },
	{ "nldev",			nldev_init,		nldev_exit },
	{ "the MAD layer",		ib_mad_init,		ib_mad_cleanup },
};

/* Take down the first @n parts, last first. */
static void ib_core_down(size_t n)
{
	while (n--)
		ib_core_parts[n].down();
}

static int __init ib_core_init(void)
{
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(ib_core_parts); i++) {
		ret = ib_core_parts[i].up ? ib_core_parts[i].up() : 0;
		if (ret) {
			pr_warn("ib_core: could not set up %s: %d\n",
				ib_core_parts[i].what, ret);
			ib_core_down(i);
			return ret;
		}
	}
	return 0;
}

static void __exit ib_core_exit(void)
{
	ib_core_down(ARRAY_SIZE(ib_core_parts));
	/* Providers unregister and free their devices before we can go. */
	WARN_ON(!xa_empty(&ib_devices));
	WARN_ON(!xa_empty(&ib_clients));
	/* Devices and port arrays are freed with kfree_rcu(). */
	rcu_barrier();
}

module_init(ib_core_init);
module_exit(ib_core_exit);
