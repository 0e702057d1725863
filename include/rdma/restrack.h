/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Resource tracking: the bookkeeping entry that every tracked verbs object
 * (PD, CQ, QP, MR, SRQ, user context, counter, CM ID) embeds, so that the
 * RDMA netlink interface can list the objects of a device and who owns them.
 *
 * Only what drivers and kernel users see lives here.  Adding, removing and
 * naming entries is the core's business (drivers/infiniband/core).
 */
#ifndef _RDMA_RESTRACK_H_
#define _RDMA_RESTRACK_H_

#include <linux/types.h>
#include <linux/kref.h>
#include <linux/completion.h>
#include <linux/xarray.h>
#include <uapi/rdma/rdma_netlink.h>

struct ib_device;
struct sk_buff;
struct task_struct;

/*
 * XArray mark the core sets on entries whose driver has extra, driver
 * specific details to report (for now: a provider-internal QP subtype).
 */
#define RESTRACK_DD	XA_MARK_1

/**
 * enum rdma_restrack_type - kinds of objects the core keeps track of
 * @RDMA_RESTRACK_PD: protection domain
 * @RDMA_RESTRACK_CQ: completion queue
 * @RDMA_RESTRACK_QP: queue pair
 * @RDMA_RESTRACK_CM_ID: connection manager identifier
 * @RDMA_RESTRACK_MR: memory region
 * @RDMA_RESTRACK_CTX: user verbs context
 * @RDMA_RESTRACK_COUNTER: statistics counter bound to QPs
 * @RDMA_RESTRACK_SRQ: shared receive queue
 * @RDMA_RESTRACK_MAX: number of kinds; sizes per-kind arrays
 */
enum rdma_restrack_type {
	RDMA_RESTRACK_PD,
	RDMA_RESTRACK_CQ,
	RDMA_RESTRACK_QP,
	RDMA_RESTRACK_CM_ID,
	RDMA_RESTRACK_MR,
	RDMA_RESTRACK_CTX,
	RDMA_RESTRACK_COUNTER,
	RDMA_RESTRACK_SRQ,
	RDMA_RESTRACK_MAX
};

/**
 * struct rdma_restrack_entry - tracking data embedded in a verbs object
 * @type: which kind of object embeds this entry
 * @id: number the object is listed under (PDN, CQN, QPN, MRN, ...)
 * @valid: set once the entry is in the device's table, cleared on removal
 * @no_track: never insert this entry; it stays invisible to netlink
 * @user: the object belongs to a user-space process, not to a kernel ULP
 * @task: owning process of a user object (a task reference is held);
 *	  NULL for kernel objects
 * @kern_name: module name of the kernel user that created a kernel object
 * @kref: keeps the object alive while netlink dumps it; the owner holds
 *	  the first reference
 * @comp: completed when the last reference goes, so that destroy can wait
 *	  for concurrent readers before freeing
 */
struct rdma_restrack_entry {
	enum rdma_restrack_type	type;
	u32			id;
	bool			valid;
	u8			no_track : 1;
	bool			user;
	struct task_struct	*task;
	const char		*kern_name;
	struct kref		kref;
	struct completion	comp;
};

int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type,
			bool show_details);
int __must_check rdma_restrack_get(struct rdma_restrack_entry *res);
int rdma_restrack_put(struct rdma_restrack_entry *res);
struct rdma_restrack_entry *rdma_restrack_get_byid(struct ib_device *dev,
						   enum rdma_restrack_type type,
						   u32 id);

/**
 * rdma_is_kernel_res() - tell kernel-owned objects from user-owned ones
 * @res: tracking entry of the object
 *
 * Return: true if a kernel user created the object.
 */
static inline bool rdma_is_kernel_res(const struct rdma_restrack_entry *res)
{
	return !res->user;
}

/**
 * rdma_restrack_no_track() - keep an object out of the tracking table
 * @res: tracking entry of the object, before the object is added
 *
 * For provider-internal objects that must not show up over netlink.  Call
 * it before the core adds the entry; it has no effect afterwards.
 */
static inline void rdma_restrack_no_track(struct rdma_restrack_entry *res)
{
	res->no_track = true;
}

/**
 * rdma_restrack_is_tracked() - will the core list this object?
 * @res: tracking entry of the object
 *
 * Return: false if rdma_restrack_no_track() was called on @res.
 */
static inline bool rdma_restrack_is_tracked(struct rdma_restrack_entry *res)
{
	return !res->no_track;
}

/*
 * For a driver's fill_res_*_entry() callbacks: append one named
 * driver-specific attribute to the netlink reply being built.
 */
int rdma_nl_put_driver_u32(struct sk_buff *msg, const char *name, u32 value);
int rdma_nl_put_driver_u32_hex(struct sk_buff *msg, const char *name,
			       u32 value);
int rdma_nl_put_driver_u64(struct sk_buff *msg, const char *name, u64 value);
int rdma_nl_put_driver_u64_hex(struct sk_buff *msg, const char *name,
			       u64 value);
int rdma_nl_put_driver_string(struct sk_buff *msg, const char *name,
			      const char *str);
int rdma_nl_stat_hwcounter_entry(struct sk_buff *msg, const char *name,
				 u64 value);

#endif /* _RDMA_RESTRACK_H_ */
