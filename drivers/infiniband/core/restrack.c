// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Resource tracking: every PD, CQ, QP, MR, SRQ and user context of a device
 * is listed in a per-device table so that the RDMA netlink interface can
 * show what exists and who owns it.
 *
 * Layout: ib_device.res points at RDMA_RESTRACK_MAX roots (struct
 * rdma_restrack_root, core_priv.h), one allocating xarray per object kind.
 * QPs are filed under their QP number (with the port in bits 24..31 for the
 * special QPs 0 and 1, which every port has); everything else gets a
 * cyclically allocated id.
 *
 * Lifetime of an entry (struct rdma_restrack_entry, restrack.h):
 *  - rdma_restrack_new() sets the kref to one: the owner's reference.
 *  - rdma_restrack_add() publishes the entry; from then on readers find it
 *    under the xarray lock and pin it with rdma_restrack_get() (a
 *    kref_get_unless_zero) before they drop that lock.
 *  - rdma_restrack_del() unpublishes the entry, drops the owner's
 *    reference and sleeps on @comp until the last reader's
 *    rdma_restrack_put() completes it; only then may the object be freed.
 *  - rdma_restrack_begin_del() and rdma_restrack_end_del() split that in
 *    two for destroy verbs whose driver call can fail: begin unpublishes
 *    and waits but keeps the id reserved (XA_ZERO_ENTRY); end is told what
 *    the driver said and either puts the entry back as it was or releases
 *    the id for good.
 *
 * Locking: each xarray's own spinlock (xa_lock) guards its contents.  None
 * of the functions here may be called from atomic context except
 * rdma_restrack_get()/rdma_restrack_put().
 */
#include <linux/completion.h>
#include <linux/export.h>
#include <linux/kref.h>
#include <linux/sched.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>

#include "cma_priv.h"
#include "core_priv.h"

/*
 * What the core knows about each kind of object: a name for the leak
 * report and, for the kinds it can track, where the entry and the device
 * pointer sit inside the object, so that an entry leads to its device.
 * CM IDs and statistics counters are not defined in our headers yet, so
 * they cannot be tracked for now.
 */
struct restrack_kind {
	const char	*label;
	bool		trackable;
	size_t		res_at;
	size_t		dev_at;
};

#define RESTRACK_KIND(obj, text)				\
	{							\
		.label = text,					\
		.trackable = true,				\
		.res_at = offsetof(obj, res),			\
		.dev_at = offsetof(obj, device),		\
	}

static const struct restrack_kind restrack_kinds[RDMA_RESTRACK_MAX] = {
	[RDMA_RESTRACK_PD]	= RESTRACK_KIND(struct ib_pd, "PD"),
	[RDMA_RESTRACK_CQ]	= RESTRACK_KIND(struct ib_cq, "CQ"),
	[RDMA_RESTRACK_QP]	= RESTRACK_KIND(struct ib_qp, "QP"),
	[RDMA_RESTRACK_MR]	= RESTRACK_KIND(struct ib_mr, "MR"),
	[RDMA_RESTRACK_CTX]	= RESTRACK_KIND(struct ib_ucontext, "CTX"),
	[RDMA_RESTRACK_SRQ]	= RESTRACK_KIND(struct ib_srq, "SRQ"),
	/* Entries of rdma_cm's IDs, on their device while attached. */
	[RDMA_RESTRACK_CM_ID]	= {
		.label = "CM_ID",
		.trackable = true,
		.res_at = offsetof(struct rdma_id_private, res),
		.dev_at = offsetof(struct rdma_id_private, id.device),
	},
	[RDMA_RESTRACK_COUNTER]	= { .label = "COUNTER" },
};

/**
 * rdma_restrack_init() - set up the tracking tables of a device
 * @dev: the device being registered
 *
 * Context: process context; called once by the device registration code.
 * Return: 0, or -ENOMEM.
 */
int rdma_restrack_init(struct ib_device *dev)
{
	struct rdma_restrack_root *roots;
	int kind;

	roots = kcalloc(RDMA_RESTRACK_MAX, sizeof(*roots), GFP_KERNEL);
	if (!roots)
		return -ENOMEM;

	for (kind = 0; kind < RDMA_RESTRACK_MAX; kind++)
		xa_init_flags(&roots[kind].xa, XA_FLAGS_ALLOC);
	dev->res = roots;
	return 0;
}

/* One line per object still listed when its device goes away. */
static void restrack_report_leftovers(struct ib_device *dev, int kind)
{
	struct rdma_restrack_entry *e;
	unsigned long id;

	xa_for_each(&dev->res[kind].xa, id, e) {
		if (rdma_is_kernel_res(e))
			ibdev_err(dev, "restrack: %s %lu leaked by %s\n",
				  restrack_kinds[kind].label, id,
				  e->kern_name ? e->kern_name : "(unknown)");
		else
			ibdev_err(dev, "restrack: %s %lu leaked by task %s[%d]\n",
				  restrack_kinds[kind].label, id,
				  e->task ? e->task->comm : "(gone)",
				  e->task ? task_pid_nr(e->task) : 0);
	}
}

/**
 * rdma_restrack_clean() - tear down the tracking tables of a device
 * @dev: the device being unregistered
 *
 * Every object should have been destroyed by now; any that is still listed
 * is reported by kind, id and owner, with a warning.  The objects
 * themselves are not touched.
 *
 * Context: process context.
 */
void rdma_restrack_clean(struct ib_device *dev)
{
	bool leaked = false;
	int kind;

	if (!dev->res)
		return;

	for (kind = 0; kind < RDMA_RESTRACK_MAX; kind++) {
		struct xarray *xa = &dev->res[kind].xa;

		if (!xa_empty(xa)) {
			leaked = true;
			restrack_report_leftovers(dev, kind);
		}
		xa_destroy(xa);
	}
	WARN(leaked, "%s: resources still tracked at unregistration\n",
	     dev_name(&dev->dev));
	kfree(dev->res);
	dev->res = NULL;
}

/**
 * rdma_restrack_count() - number of tracked objects of one kind
 * @dev: the device
 * @type: the kind of object
 * @show_details: also count entries marked RESTRACK_DD (driver-internal
 *	objects such as provider-specific QP types)
 *
 * Context: any context that may take a spinlock.
 * Return: the number of listed objects.
 */
int rdma_restrack_count(struct ib_device *dev, enum rdma_restrack_type type,
			bool show_details)
{
	struct xarray *xa = &dev->res[type].xa;
	struct rdma_restrack_entry *e;
	XA_STATE(xas, xa, 0);
	int n = 0;

	xa_lock(xa);
	xas_for_each(&xas, e, U32_MAX) {
		if (xa_is_zero(e))
			continue;
		if (!show_details && xas_get_mark(&xas, RESTRACK_DD))
			continue;
		n++;
	}
	xa_unlock(xa);
	return n;
}
EXPORT_SYMBOL(rdma_restrack_count);

/* The device of the object that embeds @res, or NULL for a kind not tracked. */
static struct ib_device *restrack_owner_dev(struct rdma_restrack_entry *res)
{
	bool known = res->type < RDMA_RESTRACK_MAX &&
		     restrack_kinds[res->type].trackable;
	const struct restrack_kind *kind;
	const u8 *obj;

	if (WARN_ONCE(!known, "restrack: objects of kind %u are not tracked\n",
		      res->type))
		return NULL;
	kind = &restrack_kinds[res->type];
	obj = (const u8 *)res - kind->res_at;
	return *(struct ib_device * const *)(obj + kind->dev_at);
}

/*
 * The table an entry is (or is to be) listed in; NULL for an entry kept
 * out of the tables with rdma_restrack_no_track().
 */
static struct xarray *restrack_table(struct rdma_restrack_entry *res)
{
	struct ib_device *dev;

	if (res->no_track)
		return NULL;
	dev = restrack_owner_dev(res);
	if (!dev || WARN_ON(!dev->res))
		return NULL;
	return &dev->res[res->type].xa;
}

/* Make @task (a user process) the owner, replacing any previous one. */
static void restrack_set_task(struct rdma_restrack_entry *res,
			      struct task_struct *task)
{
	if (WARN_ON_ONCE(!task))
		return;

	get_task_struct(task);
	if (res->task)
		put_task_struct(res->task);
	res->task = task;
	res->user = true;
}

static void restrack_drop_task(struct rdma_restrack_entry *res)
{
	if (res->task) {
		put_task_struct(res->task);
		res->task = NULL;
	}
}

/**
 * rdma_restrack_new() - prepare the tracking entry of a new object
 * @res: the entry embedded in the object
 * @type: kind of the object
 *
 * Gives the owner its reference.  Until rdma_restrack_add() the entry is
 * invisible; an object that fails creation drops it with
 * rdma_restrack_put().
 */
void rdma_restrack_new(struct rdma_restrack_entry *res,
		       enum rdma_restrack_type type)
{
	res->type = type;
	res->valid = false;
	kref_init(&res->kref);
	init_completion(&res->comp);
}
EXPORT_SYMBOL(rdma_restrack_new);

/*
 * Record who owns an object: a kernel module by name, or (@user) a
 * process, on which the entry then holds a task reference until it is
 * deleted.
 */
static void restrack_set_owner(struct rdma_restrack_entry *res, bool user,
			       const char *kern_name, struct task_struct *task)
{
	if (user)
		restrack_set_task(res, task);
	else
		res->kern_name = kern_name;
}

/**
 * rdma_restrack_set_name() - record who owns an object
 * @res: the entry
 * @caller: module name of a kernel owner (KBUILD_MODNAME), or NULL for an
 *	object created on behalf of the current user process
 *
 * Kernel objects remember the (static) module name; user objects hold a
 * reference on the current task until the entry is deleted.
 */
void rdma_restrack_set_name(struct rdma_restrack_entry *res,
			    const char *caller)
{
	restrack_set_owner(res, !caller, caller, current);
}
EXPORT_SYMBOL(rdma_restrack_set_name);

/**
 * rdma_restrack_parent_name() - inherit the owner of another object
 * @dst: the entry of the new object
 * @parent: the entry of the object it is created on (an MR's PD, ...)
 */
void rdma_restrack_parent_name(struct rdma_restrack_entry *dst,
			       const struct rdma_restrack_entry *parent)
{
	restrack_set_owner(dst, parent->user, parent->kern_name, parent->task);
}
EXPORT_SYMBOL(rdma_restrack_parent_name);

/* Insert a QP under its number; special QPs also carry their port. */
static int restrack_insert_qp(struct xarray *xa,
			      struct rdma_restrack_entry *res)
{
	struct ib_qp *qp = container_of(res, struct ib_qp, res);
	int ret;

	WARN_ONCE(qp->qp_num >> 24 || qp->port >> 8,
		  "restrack: QP number %#x or port %u out of range\n",
		  qp->qp_num, qp->port);
	res->id = qp->qp_num;
	if (qp->qp_type == IB_QPT_SMI || qp->qp_type == IB_QPT_GSI)
		res->id |= qp->port << 24;

	ret = xa_insert(xa, res->id, res, GFP_KERNEL);
	if (ret) {
		res->id = 0;
		return ret;
	}
	if (qp->qp_type >= IB_QPT_DRIVER)
		xa_set_mark(xa, res->id, RESTRACK_DD);
	return 0;
}

/**
 * rdma_restrack_add() - publish a fully created object
 * @res: the entry, prepared with rdma_restrack_new()
 *
 * Entries marked with rdma_restrack_no_track() are only marked valid.  A
 * failure to insert (memory, or a duplicate QP number) leaves the object
 * working but unlisted.
 *
 * Context: process context.
 */
void rdma_restrack_add(struct rdma_restrack_entry *res)
{
	struct rdma_restrack_root *root;
	struct ib_device *dev;
	int ret;

	if (res->no_track) {
		res->valid = true;
		return;
	}

	dev = restrack_owner_dev(res);
	if (!dev || WARN_ON(!dev->res))
		return;
	root = &dev->res[res->type];

	if (res->type == RDMA_RESTRACK_QP)
		ret = restrack_insert_qp(&root->xa, res);
	else
		ret = xa_alloc_cyclic(&root->xa, &res->id, res, xa_limit_32b,
				      &root->next_id, GFP_KERNEL);
	if (ret >= 0)
		res->valid = true;
}
EXPORT_SYMBOL(rdma_restrack_add);

/**
 * rdma_restrack_get() - pin a listed object
 * @res: the entry, found under the table's lock
 *
 * Context: any context.
 * Return: non-zero if the object was pinned; zero if it is being deleted
 * and must not be used.
 */
int __must_check rdma_restrack_get(struct rdma_restrack_entry *res)
{
	return kref_get_unless_zero(&res->kref);
}
EXPORT_SYMBOL(rdma_restrack_get);

static void restrack_last_ref(struct kref *kref)
{
	struct rdma_restrack_entry *res =
		container_of(kref, struct rdma_restrack_entry, kref);

	/*
	 * An object whose creation failed never becomes valid and nobody
	 * will call rdma_restrack_del() for it: drop its task here.
	 */
	if (!res->valid)
		restrack_drop_task(res);
	complete(&res->comp);
}

/**
 * rdma_restrack_put() - unpin an object
 * @res: the entry
 *
 * Drops a reference taken with rdma_restrack_get() (or, on a creation
 * failure, the owner's reference from rdma_restrack_new()).
 *
 * Context: any context.
 * Return: 1 if this was the last reference, 0 otherwise.
 */
int rdma_restrack_put(struct rdma_restrack_entry *res)
{
	return kref_put(&res->kref, restrack_last_ref);
}
EXPORT_SYMBOL(rdma_restrack_put);

/**
 * rdma_restrack_get_byid() - look an object up by kind and id, pinned
 * @dev: the device
 * @type: the kind of object
 * @id: its id (for QPs: the QP number, port in bits 24..31 for QP0/QP1)
 *
 * Release the result with rdma_restrack_put().
 *
 * Context: any context that may take a spinlock.
 * Return: the entry, or ERR_PTR(-ENOENT) if there is none or it is being
 * deleted.
 */
struct rdma_restrack_entry *rdma_restrack_get_byid(struct ib_device *dev,
						   enum rdma_restrack_type type,
						   u32 id)
{
	struct xarray *xa = &dev->res[type].xa;
	struct rdma_restrack_entry *res;

	xa_lock(xa);
	res = xa_load(xa, id);
	if (!res || !rdma_restrack_get(res))
		res = ERR_PTR(-ENOENT);
	xa_unlock(xa);
	return res;
}
EXPORT_SYMBOL(rdma_restrack_get_byid);

/* Drop the owner's reference and wait for every reader to let go. */
static void restrack_wait_readers(struct rdma_restrack_entry *res)
{
	rdma_restrack_put(res);
	wait_for_completion(&res->comp);
}

/**
 * rdma_restrack_del() - unlist an object before it is freed
 * @res: the entry
 *
 * Removes the entry from its table, drops the owner's reference, waits
 * until no reader holds the object any more and releases the owning task.
 * Safe on an entry that was never added.
 *
 * Context: process context; may sleep.
 */
void rdma_restrack_del(struct rdma_restrack_entry *res)
{
	struct xarray *xa;

	if (res->valid) {
		xa = restrack_table(res);
		if (xa)
			WARN_ON(xa_erase(xa, res->id) != res);
		res->valid = false;
		restrack_wait_readers(res);
	}
	restrack_drop_task(res);
}
EXPORT_SYMBOL(rdma_restrack_del);

/**
 * rdma_restrack_begin_del() - hide an object whose destroy may still fail
 * @res: the entry
 *
 * The slot of the entry is kept (as an XA_ZERO_ENTRY), and so are its id
 * and owner, so that rdma_restrack_end_del() can put it back exactly if
 * the destroy fails.  Returns once no reader holds the object.
 *
 * Context: process context; may sleep.
 */
void rdma_restrack_begin_del(struct rdma_restrack_entry *res)
{
	struct xarray *xa;

	if (!res->valid)
		return;

	xa = restrack_table(res);
	if (xa)
		WARN_ON(xa_cmpxchg(xa, res->id, res, XA_ZERO_ENTRY,
				   GFP_KERNEL) != res);
	restrack_wait_readers(res);
}
EXPORT_SYMBOL(rdma_restrack_begin_del);

/**
 * rdma_restrack_end_del() - settle an entry hidden by rdma_restrack_begin_del()
 * @res: the entry
 * @verdict: what the provider's destroy call returned
 *
 * A destroy the provider refused (@verdict non-zero) leaves the object
 * alive, so its entry is listed again, with its old id and a fresh owner
 * reference.  A destroy that went through releases the id and the owning
 * task.  Also safe on an entry that was never added.
 *
 * Context: process context.
 * Return: @verdict, for the destroy verb to pass on.
 */
int rdma_restrack_end_del(struct rdma_restrack_entry *res, int verdict)
{
	struct xarray *xa = res->valid ? restrack_table(res) : NULL;

	if (!verdict) {
		if (xa)
			xa_erase(xa, res->id);
		res->valid = false;
		restrack_drop_task(res);
		return 0;
	}

	if (res->valid) {
		reinit_completion(&res->comp);
		kref_init(&res->kref);
		if (xa)
			WARN_ON(xa_cmpxchg(xa, res->id, XA_ZERO_ENTRY, res,
					   GFP_KERNEL));
	}
	return verdict;
}
EXPORT_SYMBOL(rdma_restrack_end_del);
