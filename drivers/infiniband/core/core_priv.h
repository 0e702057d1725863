/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the files of ib_core share with each other, and nothing else.
 * Nothing outside drivers/infiniband/core includes this header; providers
 * and ULPs see only include/rdma.
 *
 * Each section names the file that implements it.
 */
#ifndef _CORE_PRIV_H
#define _CORE_PRIV_H

#include <linux/list.h>
#include <linux/netdevice.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_cache.h>
#include <rdma/restrack.h>

/*
 * Call @op, a provider op that a verb may do without; the verb fails with
 * -EOPNOTSUPP when the provider has none.
 */
#define ib_core_call_opt(op, ...)					\
	({								\
		typeof(op) __op = (op);					\
									\
		__op ? __op(__VA_ARGS__) : -EOPNOTSUPP;			\
	})

/* ---- device.c: registry, clients, netdev association ------------------- */

/* The sysfs class every ib_device belongs to ("infiniband"). */
extern const struct class ib_class;

/*
 * ib_wq: ordered core work: delivery of asynchronous events
 * (ib_dispatch_event()), whose handlers include the cache refresh on port
 * events; queued unregistrations have a queue of their own in device.c.
 * ib_comp_wq / ib_comp_unbound_wq: CQ polling (cq.c).
 */
extern struct workqueue_struct *ib_wq;
extern struct workqueue_struct *ib_comp_wq;
extern struct workqueue_struct *ib_comp_unbound_wq;

/*
 * Callbacks of the RoCE netdev walkers.  @filter decides whether @cb runs
 * for a (device, port, netdev) triple, the netdev being NULL for a port
 * without one; both are called with the device registry lock held for
 * read and may sleep.
 */
typedef bool (*roce_netdev_filter)(struct ib_device *device, u32 port,
				   struct net_device *ndev, void *cookie);
typedef void (*roce_netdev_callback)(struct ib_device *device, u32 port,
				     struct net_device *ndev, void *cookie);

/* Walk the RoCE ports of one device (kept alive by the caller). */
void ib_enum_roce_netdev(struct ib_device *ib_dev, roce_netdev_filter filter,
			 void *filter_cookie, roce_netdev_callback cb,
			 void *cookie);
/* The same over every registered device. */
void ib_enum_all_roce_netdevs(roce_netdev_filter filter, void *filter_cookie,
			      roce_netdev_callback cb, void *cookie);

/*
 * Registered device by index, with a registration reference taken
 * (release with ib_device_put()); NULL when there is none or, in the
 * exclusive namespace mode, when it does not belong to @net, the caller's
 * namespace.
 */
struct ib_device *ib_device_get_by_index(const struct net *net, u32 index);

/*
 * Call @fn for every registered device, in index order, under the
 * registry lock held for read; a non-zero return stops the walk.
 */
int ib_enum_all_devs(int (*fn)(struct ib_device *dev, void *arg), void *arg);

/* ---- cache.c: GID and P_Key tables ------------------------------------- */

enum ib_cache_gid_default_mode {
	IB_CACHE_GID_DEFAULT_MODE_SET,
	IB_CACHE_GID_DEFAULT_MODE_DELETE
};

int ib_cache_setup(void);
void ib_cache_cleanup(void);
/*
 * Per device, called by device.c: setup_one at registration, cleanup_one
 * at unregistration, release_one when the device's memory goes (and after
 * a registration that failed).
 */
int ib_cache_setup_one(struct ib_device *device);
void ib_cache_cleanup_one(struct ib_device *device);
void ib_cache_release_one(struct ib_device *device);

/* RoCE GID entries, driven by roce_gid_mgmt.c. */
int ib_cache_gid_add(struct ib_device *ib_dev, u32 port, union ib_gid *gid,
		     struct ib_gid_attr *attr);
int ib_cache_gid_del(struct ib_device *ib_dev, u32 port, union ib_gid *gid,
		     struct ib_gid_attr *attr);
int ib_cache_gid_del_all_netdev_gids(struct ib_device *ib_dev, u32 port,
				     struct net_device *ndev);
void ib_cache_gid_set_default_gid(struct ib_device *ib_dev, u32 port,
				  struct net_device *ndev,
				  unsigned long gid_type_mask,
				  enum ib_cache_gid_default_mode mode);
/* Bitmap of IB_GID_TYPE_* a RoCE port carries (v1 and/or v2). */
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port);
/* "IB/RoCE v1" or "RoCE v2", as sysfs gid_attrs/types shows a GID type. */
const char *ib_cache_gid_type_str(enum ib_gid_type gid_type);

/* ---- roce_gid_mgmt.c: netdev/inet/inet6 notifiers ---------------------- */

int roce_gid_mgmt_init(void);
void roce_gid_mgmt_cleanup(void);

/* ---- addr.c: route + neighbour resolution ------------------------------ */

int addr_init(void);
void addr_cleanup(void);

/* ---- restrack.c: resource tracking -------------------------------------- */

/*
 * An object's entry from creation to destruction: prepared before the
 * provider creates the object, published once it exists.
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type);
void rdma_restrack_add(struct rdma_restrack_entry *res);
/*
 * Destroy verbs whose provider call may fail: begin_del hides the entry
 * (its id stays reserved) and waits for readers; end_del, given what the
 * provider returned, lists the entry again or forgets it, and returns
 * that value.  Objects whose destroy cannot be undone use
 * rdma_restrack_del().
 */
void rdma_restrack_begin_del(struct rdma_restrack_entry *res);
int rdma_restrack_end_del(struct rdma_restrack_entry *res, int verdict);
/* Both around @destroy, a provider call evaluated while @res is hidden. */
#define rdma_restrack_destroy(res, destroy)				\
	({								\
		struct rdma_restrack_entry *__res = (res);		\
									\
		rdma_restrack_begin_del(__res);				\
		rdma_restrack_end_del(__res, (destroy));		\
	})
void rdma_restrack_del(struct rdma_restrack_entry *res);

/*
 * The owner shown for an entry, set between new and add: a kernel
 * module's name (NULL means the current task), or whoever owns the
 * parent object.
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller);
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent);

/* Per device, called by device.c at registration and unregistration. */
int rdma_restrack_init(struct ib_device *dev);
void rdma_restrack_clean(struct ib_device *dev);

/*
 * ib_device.res points at RDMA_RESTRACK_MAX of these, one per kind.
 * @xa holds the listed entries by id (XA_FLAGS_ALLOC; QPs by QP number,
 * QPs 0 and 1 with their port in bits 24..31); readers walk it under
 * xa_lock() and must rdma_restrack_get() an entry before dropping the
 * lock.  @next_id is the cyclic allocation cursor of the other kinds.
 */
struct rdma_restrack_root {
	struct xarray	xa;
	u32		next_id;
};

/* ---- verbs.c: the verbs for ib_uverbs ----------------------------------- */

/*
 * A QP for user space: the kernel path's checks and counts, the
 * provider's create_qp with @udata, @uobj as qp->uobject.
 */
struct ib_qp *ib_create_qp_user(struct ib_pd *pd,
				struct ib_qp_init_attr *qp_init_attr,
				struct ib_udata *udata,
				struct ib_uqp_object *uobj);

/* ---- cq.c: CQ allocation helpers and pools ----------------------------- */

void ib_cq_pool_cleanup(struct ib_device *dev);

/* ---- netlink.c, nldev.c: the RDMA netlink socket and nldev ------------- */

/* The NETLINK_RDMA socket of every namespace (ib_core init/exit). */
int rdma_nl_init(void);
void rdma_nl_exit(void);
/* The nldev client, every command of it (nldev*.c). */
int nldev_init(void);
void nldev_exit(void);

/* The network header type of a received UD packet (verbs.c). */
enum rdma_network_type ib_wc_net_type(struct ib_device *dev, u32 port,
				      const struct ib_wc *wc,
				      const struct ib_grh *grh);

/* The MAD layer (mad_port.c): a client of every device with MADs. */
int ib_mad_init(void);
void ib_mad_cleanup(void);

/* Does anyone in @net listen to @group (netlink.c)? */
bool rdma_nl_net_listens(struct net *net, unsigned int group);
/* An rdma_nl_notify_event_type event for "rdma monitor" (nldev.c). */
void nldev_notify_event(struct ib_device *device, u32 port, u8 type);
/*
 * Event numbers newer than the 6.12 uapi header we build against; the
 * values are the uapi's (Linux 6.13 and later).
 */
#define RDMA_NL_RENAME_EVENT		4
#define RDMA_NL_NETDEV_RENAME_EVENT	5

/*
 * What a client's get_nl_info()/get_global_nl_info() reports for
 * GET_CHARDEV: @cdev (a reference the caller drops with put_device()),
 * @abi, and @port on input (-1 for the device as a whole).  @nl_msg is the
 * reply being built, for clients that add attributes of their own.
 */
struct ib_client_nl_info {
	struct sk_buff *nl_msg;
	struct device *cdev;
	unsigned int port;
	u64 abi;
};

/* Ask a client for its char device (device.c). */
int ib_get_client_nl_info(struct ib_device *ibdev, const char *client_name,
			  struct ib_client_nl_info *res);

/* Namespace mode (device.c): shared or exclusive. */
bool rdma_netns_shared(void);
int rdma_set_netns_shared(bool shared);
int ib_device_move_netns(struct ib_device *device, struct net *net);
bool ib_name_taken_for(struct net_device *ndev, const char *name);

/* ---- counters.c: per-port hardware counters ----------------------------- */

int rdma_counters_init(struct ib_device *device);
void rdma_counters_release(struct ib_device *device);
struct rdma_hw_stats *rdma_counters_port(struct ib_device *device, u32 port);
int rdma_counters_refresh(struct ib_device *device, u32 port,
			  struct rdma_hw_stats *stats);

/* ---- sysfs.c: /sys/class/infiniband ------------------------------------ */

int ib_setup_device_attrs(struct ib_device *ibdev);
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups);
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups);
int ib_setup_port_attrs(struct ib_core_device *coredev);
void ib_free_port_attrs(struct ib_core_device *coredev);

/* ---- sysfs_pma.c: ports/<p>/counters, from the provider's PMA ---------- */

const struct attribute_group *ib_pma_counters_group(struct ib_device *ibdev,
						    u32 port_num);

#endif /* _CORE_PRIV_H */
