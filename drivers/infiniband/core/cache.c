// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The per-port caches of the RDMA core: GID table, P_Key table, port
 * state, LMC and subnet prefix.
 *
 * GID tables come in two flavours.  On IB and iWARP ports the provider
 * owns the table: the core mirrors it with query_gid() whenever a port
 * event says it may have changed.  On RoCE ports the core owns the table:
 * roce_gid_mgmt.c adds and removes entries as addresses come and go, and
 * the core tells the provider about each entry with add_gid()/del_gid()
 * when it has a hardware table (rdma_cap_roce_gid_table()).
 *
 * Consumers get entries as const struct ib_gid_attr pointers that carry a
 * reference; see struct ib_gid_table_entry for the lifetime rules.
 */
#include <linux/bitops.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "core_priv.h"

/*
 * zgid - the all-zero GID
 *
 * An empty GID table slot reads as this value; compare with
 * rdma_is_zero_gid().
 */
union ib_gid zgid;
EXPORT_SYMBOL(zgid);

/*
 * Last-reference releases of GID entries run here: they take the table
 * mutex and may call the provider's del_gid(), so they cannot run where
 * the last rdma_put_gid_attr() happens (possibly in atomic context).  A
 * workqueue of our own, so that device teardown can drain it even when
 * teardown itself runs on ib_wq.
 */
static struct workqueue_struct *gid_release_wq;

enum gid_entry_state {
	/* Published in the table and found by lookups. */
	GID_ENTRY_VALID = 1,
	/*
	 * Removed: lookups skip it, but holders of a reference may still use
	 * it.  On RoCE ports it keeps its slot (the hardware index) until
	 * the last reference goes and del_gid() has run.
	 */
	GID_ENTRY_PENDING_DEL,
};

/**
 * struct ib_gid_table_entry - one GID table entry
 * @kref: references; the table holds one while the entry is VALID, every
 *	rdma_get_gid_attr()/rdma_find_gid*()/rdma_hold_gid_attr() caller
 *	holds one, and a pending netdev release (@ndev_rcu) holds one
 * @attr: the part consumers see; immutable once published, except that
 *	@attr.ndev is cleared (RCU) when the entry is removed
 * @context: the provider's cookie from add_gid(), given back to del_gid()
 * @ndev: the netdev reference the entry owns, NULL once released
 * @ndev_tracker: tracker of that reference
 * @state: enum gid_entry_state; written under the table mutex *and* the
 *	device's cache_lock (write side), read under either (or, by
 *	rdma_read_gid_attr_ndev_rcu(), locklessly by a reference holder)
 * @in_hw: add_gid() succeeded, so del_gid() is due on release
 * @ndev_rcu: defers the netdev put past RCU readers of @attr.ndev
 * @release_work: runs the release once the last reference is gone
 *
 * Lifetime: created VALID and published with the table's reference.
 * Removing it (under the table mutex) marks it PENDING_DEL, frees the slot
 * at once on non-RoCE ports, clears @attr.ndev and drops the netdev
 * reference after an RCU grace period (so a held entry never pins a
 * netdev that is being unregistered), then drops the table's reference.
 * When the last reference goes, @release_work (on gid_release_wq) calls
 * the provider's del_gid() if due, frees the slot if the entry still owns
 * it, and frees the entry.  Each entry also holds a reference on the
 * ib_device's struct device so the tables outlive it.
 */
struct ib_gid_table_entry {
	struct kref		kref;
	struct ib_gid_attr	attr;
	void			*context;
	struct net_device	*ndev;
	netdevice_tracker	ndev_tracker;
	enum gid_entry_state	state;
	bool			in_hw;
	struct rcu_head		ndev_rcu;
	struct work_struct	release_work;
};

/**
 * struct ib_gid_table - the core's cache state of one port
 * @device: the device
 * @port: the port number
 * @sz: number of slots (immutable.gid_tbl_len)
 * @default_gid_indices: slots reserved for the default (link-local) GIDs
 *	of a RoCE port, one per supported GID type, from index 0
 * @lock: serialises every writer of @data_vec and the provider's
 *	add_gid()/del_gid() calls; sleepable
 * @dead: set under @lock at teardown; adds fail from then on
 * @data_vec: the slots, NULL when free.  The pointers and the entries'
 *	state change only with @lock held *and* device->cache_lock held for
 *	write (gid_slot_set()); lookups hold cache_lock for read (irqsave)
 *	and may run in any context
 * @used: one past the last slot in use; the searches stop there, so a
 *	large table with a few entries costs no more than a small one
 * @event_handler: subscription to the device's port events
 *
 * Besides the GID table this holds the machinery that keeps the port's
 * P_Key table, state, LMC and subnet prefix (struct ib_port_cache, under
 * device->cache_lock) up to date.
 */
struct ib_gid_table {
	struct ib_device		*device;
	u32				port;
	int				sz;
	u32				default_gid_indices;
	struct mutex			lock;	/* writers, see above */
	bool				dead;
	struct ib_gid_table_entry	**data_vec;
	int				used;
	struct ib_event_handler		event_handler;
};

/* A port's P_Key table as last read from the provider. */
struct ib_pkey_cache {
	int	table_len;
	u16	table[] __counted_by(table_len);
};

/* Which attributes a GID search compares. */
enum {
	GID_MATCH_GID		= BIT(0),
	GID_MATCH_TYPE		= BIT(1),
	GID_MATCH_NDEV		= BIT(2),
	GID_MATCH_DEFAULT	= BIT(3),	/* slot default-ness */
};

static struct ib_gid_table *port_gid_table(struct ib_device *device,
					   u32 port)
{
	return device->port_data[port].cache.gid;
}

/* The entry behind an attribute pointer handed out to consumers. */
static struct ib_gid_table_entry *gid_entry_of(const struct ib_gid_attr *attr)
{
	return container_of(attr, struct ib_gid_table_entry, attr);
}

static bool gid_entry_valid(const struct ib_gid_table_entry *entry)
{
	return entry && entry->state == GID_ENTRY_VALID;
}

static bool gid_slot_is_default(const struct ib_gid_table *table, int ix)
{
	return ix < 32 && (table->default_gid_indices & BIT(ix));
}

/**
 * rdma_is_zero_gid - test for the all-zero GID
 * @gid: the GID
 *
 * Return: true if every byte of @gid is zero.
 */
bool rdma_is_zero_gid(const union ib_gid *gid)
{
	return !memchr_inv(gid, 0, sizeof(*gid));
}
EXPORT_SYMBOL(rdma_is_zero_gid);

static const char * const gid_type_names[] = {
	/* IB and RoCE v1 share a name, as user space expects. */
	[IB_GID_TYPE_IB]		= "IB/RoCE v1",
	[IB_GID_TYPE_ROCE]		= "IB/RoCE v1",
	[IB_GID_TYPE_ROCE_UDP_ENCAP]	= "RoCE v2",
};

/*
 * Name of a GID type as sysfs shows it (gid_attrs/types); core internal,
 * declared in core_priv.h.
 */
const char *ib_cache_gid_type_str(enum ib_gid_type gid_type)
{
	if ((unsigned int)gid_type < ARRAY_SIZE(gid_type_names))
		return gid_type_names[gid_type];
	return "Invalid GID type";
}

/**
 * roce_gid_type_mask_support - GID types a port's table carries
 * @ib_dev: the device
 * @port: a valid port number of @ib_dev
 *
 * A RoCE port carries a RoCE v1 entry for every address when it speaks
 * RoCE v1 and a RoCE v2 entry when it speaks RoCE v2; any other port has
 * only IB GIDs.
 *
 * Return: a bitmap of BIT(IB_GID_TYPE_*).
 */
unsigned long roce_gid_type_mask_support(struct ib_device *ib_dev, u32 port)
{
	unsigned long mask = 0;

	if (!rdma_protocol_roce(ib_dev, port))
		return BIT(IB_GID_TYPE_IB);
	if (rdma_protocol_roce_eth_encap(ib_dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE);
	if (rdma_protocol_roce_udp_encap(ib_dev, port))
		mask |= BIT(IB_GID_TYPE_ROCE_UDP_ENCAP);
	return mask;
}
EXPORT_SYMBOL(roce_gid_type_mask_support);

static void gid_change_event(struct ib_device *device, u32 port)
{
	struct ib_event event = {
		.device = device,
		.element.port_num = port,
		.event = IB_EVENT_GID_CHANGE,
	};

	ib_dispatch_event(&event);
}

/*
 * Fill or free slot @ix, keeping table->used right; table mutex and
 * cache_lock (write) held.
 */
static void gid_slot_set(struct ib_gid_table *table, int ix,
			 struct ib_gid_table_entry *entry)
{
	table->data_vec[ix] = entry;
	if (entry)
		table->used = max(table->used, ix + 1);
	else
		while (table->used && !table->data_vec[table->used - 1])
			table->used--;
}

/* ---- entry lifetime ---------------------------------------------------- */

static void gid_entry_release_work(struct work_struct *work)
{
	struct ib_gid_table_entry *entry =
		container_of(work, struct ib_gid_table_entry, release_work);
	struct ib_device *device = entry->attr.device;
	struct ib_gid_table *table = port_gid_table(device,
						    entry->attr.port_num);

	mutex_lock(&table->lock);
	if (entry->in_hw)
		device->ops.del_gid(&entry->attr, &entry->context);
	write_lock_irq(&device->cache_lock);
	if (table->data_vec[entry->attr.index] == entry)
		gid_slot_set(table, entry->attr.index, NULL);
	write_unlock_irq(&device->cache_lock);
	mutex_unlock(&table->lock);

	/* Published entries always lose their netdev before the last put. */
	WARN_ON_ONCE(entry->ndev);
	kfree(entry);
	put_device(&device->dev);
}

static void gid_entry_last_put(struct kref *kref)
{
	struct ib_gid_table_entry *entry =
		container_of(kref, struct ib_gid_table_entry, kref);

	queue_work(gid_release_wq, &entry->release_work);
}

static void gid_entry_put(struct ib_gid_table_entry *entry)
{
	kref_put(&entry->kref, gid_entry_last_put);
}

/* RCU callback: nobody can see the netdev through attr.ndev any more. */
static void gid_entry_ndev_rcu_put(struct rcu_head *head)
{
	struct ib_gid_table_entry *entry =
		container_of(head, struct ib_gid_table_entry, ndev_rcu);

	netdev_put(entry->ndev, &entry->ndev_tracker);
	entry->ndev = NULL;
	gid_entry_put(entry);
}

/*
 * A new entry for slot @ix of @table: @gid of @gid_type on @ndev (which
 * may be NULL; the entry holds a reference on it).  Not yet published.
 */
static struct ib_gid_table_entry *
gid_entry_alloc(const struct ib_gid_table *table, int ix,
		const union ib_gid *gid, enum ib_gid_type gid_type,
		struct net_device *ndev)
{
	struct ib_gid_table_entry *entry = kzalloc(sizeof(*entry), GFP_KERNEL);

	if (!entry)
		return NULL;

	entry->attr = (struct ib_gid_attr) {
		.device		= table->device,
		.gid		= *gid,
		.gid_type	= gid_type,
		.index		= ix,
		.port_num	= table->port,
	};
	if (ndev) {
		netdev_hold(ndev, &entry->ndev_tracker, GFP_KERNEL);
		entry->ndev = ndev;
		RCU_INIT_POINTER(entry->attr.ndev, ndev);
	}
	kref_init(&entry->kref);
	INIT_WORK(&entry->release_work, gid_entry_release_work);
	return entry;
}

/* Undo gid_entry_alloc() for an entry that was never published. */
static void gid_entry_free_unpublished(struct ib_gid_table_entry *entry)
{
	netdev_put(entry->ndev, &entry->ndev_tracker);
	kfree(entry);
}

/*
 * Publish @entry in its slot, telling the provider first on RoCE ports.
 * Table mutex held.  On failure the entry is freed.
 */
static int gid_table_store(struct ib_gid_table *table,
			   struct ib_gid_table_entry *entry)
{
	struct ib_device *device = table->device;
	int ret;

	lockdep_assert_held(&table->lock);

	if (rdma_protocol_roce(device, table->port)) {
		if (!entry->ndev) {
			ret = -EINVAL;
			goto err;
		}
		if (rdma_cap_roce_gid_table(device, table->port)) {
			ret = device->ops.add_gid(&entry->attr,
						  &entry->context);
			if (ret) {
				dev_warn(&device->dev,
					 "add_gid failed (%d) port %u index %u\n",
					 ret, table->port, entry->attr.index);
				goto err;
			}
			entry->in_hw = true;
		}
	}

	get_device(&device->dev);
	write_lock_irq(&device->cache_lock);
	WRITE_ONCE(entry->state, GID_ENTRY_VALID);
	gid_slot_set(table, entry->attr.index, entry);
	write_unlock_irq(&device->cache_lock);
	return 0;

err:
	gid_entry_free_unpublished(entry);
	return ret;
}

/*
 * Take the VALID entry in slot @ix out of the table (see struct
 * ib_gid_table_entry).  Table mutex held.
 */
static void gid_table_remove(struct ib_gid_table *table, int ix)
{
	struct ib_device *device = table->device;
	struct ib_gid_table_entry *entry = table->data_vec[ix];

	lockdep_assert_held(&table->lock);

	write_lock_irq(&device->cache_lock);
	WRITE_ONCE(entry->state, GID_ENTRY_PENDING_DEL);
	/* Only RoCE slots stay taken until the provider forgot them. */
	if (!rdma_protocol_roce(device, table->port))
		gid_slot_set(table, ix, NULL);
	write_unlock_irq(&device->cache_lock);

	if (entry->ndev) {
		RCU_INIT_POINTER(entry->attr.ndev, NULL);
		kref_get(&entry->kref);
		call_rcu(&entry->ndev_rcu, gid_entry_ndev_rcu_put);
	}
	gid_entry_put(entry);
}

/* ---- searching --------------------------------------------------------- */

/*
 * First VALID entry matching @val on the attributes in @mask (with
 * GID_MATCH_DEFAULT, the slot must be a default one iff @default_slot).
 * Table mutex or cache_lock held.  Returns the index or -1.
 */
static int gid_table_find(const struct ib_gid_table *table,
			  const union ib_gid *gid,
			  const struct ib_gid_attr *val, unsigned long mask,
			  bool default_slot)
{
	int i;

	for (i = 0; i < table->used; i++) {
		const struct ib_gid_table_entry *entry = table->data_vec[i];

		if (!gid_entry_valid(entry))
			continue;
		if ((mask & GID_MATCH_TYPE) &&
		    entry->attr.gid_type != val->gid_type)
			continue;
		if ((mask & GID_MATCH_GID) &&
		    memcmp(gid, &entry->attr.gid, sizeof(*gid)))
			continue;
		if ((mask & GID_MATCH_NDEV) &&
		    rcu_access_pointer(entry->attr.ndev) !=
		    rcu_access_pointer(val->ndev))
			continue;
		if ((mask & GID_MATCH_DEFAULT) &&
		    gid_slot_is_default(table, i) != default_slot)
			continue;
		return i;
	}
	return -1;
}

/* First free slot of the requested kind; table mutex held.  -1 if none. */
static int gid_table_free_slot(const struct ib_gid_table *table,
			       bool default_slot)
{
	int i;

	for (i = 0; i < table->sz; i++)
		if (!table->data_vec[i] &&
		    gid_slot_is_default(table, i) == default_slot)
			return i;
	return -1;
}

/* ---- RoCE entries, driven by roce_gid_mgmt.c --------------------------- */

/*
 * The table of a RoCE port, with its mutex taken; NULL, with nothing
 * locked, when @port is not a RoCE port of @ib_dev.
 */
static struct ib_gid_table *roce_table_lock(struct ib_device *ib_dev,
					    u32 port)
{
	struct ib_gid_table *table = NULL;

	if (rdma_is_port_valid(ib_dev, port) &&
	    rdma_protocol_roce(ib_dev, port))
		table = port_gid_table(ib_dev, port);
	if (table)
		mutex_lock(&table->lock);
	return table;
}

static int gid_table_add(struct ib_device *ib_dev, u32 port,
			 const union ib_gid *gid,
			 const struct ib_gid_attr *attr, unsigned long mask,
			 bool default_slot)
{
	struct ib_gid_table_entry *entry;
	struct ib_gid_table *table;
	bool added = false;
	int ret, ix;

	if (rdma_is_zero_gid(gid))
		return -EINVAL;
	table = roce_table_lock(ib_dev, port);
	if (!table)
		return -EINVAL;

	ret = table->dead ? -ENODEV : 0;
	/* Nothing to do if it is there (for defaults: one of that type). */
	if (ret || gid_table_find(table, gid, attr, mask, default_slot) >= 0)
		goto out;

	ix = gid_table_free_slot(table, default_slot);
	if (ix < 0) {
		ret = -ENOSPC;
		goto out;
	}
	entry = gid_entry_alloc(table, ix, gid, attr->gid_type,
				rcu_dereference_protected(attr->ndev, 1));
	ret = entry ? gid_table_store(table, entry) : -ENOMEM;
	added = !ret;
out:
	mutex_unlock(&table->lock);

	if (added)
		gid_change_event(ib_dev, port);
	else if (ret)
		dev_dbg_ratelimited(&ib_dev->dev,
				    "port %u: cannot add GID %pI6 (%d)\n",
				    port, gid->raw, ret);
	return ret;
}

/*
 * ib_cache_gid_add - add a RoCE GID unless an equal entry exists
 *
 * @attr gives the gid_type and ndev of the entry.  Returns 0 (also when
 * the entry was already there), -EINVAL for a zero GID or a port without
 * a RoCE table, -ENOSPC when the table is full, -ENOMEM, or the
 * provider's add_gid() error.
 */
int ib_cache_gid_add(struct ib_device *ib_dev, u32 port, union ib_gid *gid,
		     struct ib_gid_attr *attr)
{
	return gid_table_add(ib_dev, port, gid, attr,
			     GID_MATCH_GID | GID_MATCH_TYPE | GID_MATCH_NDEV,
			     false);
}

static int gid_table_del(struct ib_device *ib_dev, u32 port,
			 const union ib_gid *gid,
			 const struct ib_gid_attr *attr, unsigned long mask,
			 bool default_slot)
{
	struct ib_gid_table *table;
	int ix;

	table = roce_table_lock(ib_dev, port);
	if (!table)
		return -EINVAL;
	ix = gid_table_find(table, gid, attr, mask, default_slot);
	if (ix >= 0)
		gid_table_remove(table, ix);
	mutex_unlock(&table->lock);

	if (ix < 0)
		return -EINVAL;
	gid_change_event(ib_dev, port);
	return 0;
}

/*
 * ib_cache_gid_del - remove the non-default RoCE entry equal to @gid with
 * @attr's gid_type and ndev.  -EINVAL when there is none.
 */
int ib_cache_gid_del(struct ib_device *ib_dev, u32 port, union ib_gid *gid,
		     struct ib_gid_attr *attr)
{
	return gid_table_del(ib_dev, port, gid, attr,
			     GID_MATCH_GID | GID_MATCH_TYPE | GID_MATCH_NDEV |
			     GID_MATCH_DEFAULT, false);
}

/* ib_cache_gid_del_all_netdev_gids - remove every entry bound to @ndev. */
int ib_cache_gid_del_all_netdev_gids(struct ib_device *ib_dev, u32 port,
				     struct net_device *ndev)
{
	struct ib_gid_table *table;
	bool removed = false;
	int ix;

	table = roce_table_lock(ib_dev, port);
	if (!table)
		return -EINVAL;
	for (ix = 0; ix < table->sz; ix++) {
		struct ib_gid_table_entry *entry = table->data_vec[ix];

		if (gid_entry_valid(entry) &&
		    rcu_access_pointer(entry->attr.ndev) == ndev) {
			gid_table_remove(table, ix);
			removed = true;
		}
	}
	mutex_unlock(&table->lock);

	if (removed)
		gid_change_event(ib_dev, port);
	return 0;
}

/*
 * ib_cache_gid_set_default_gid - add or remove the default GIDs of a port
 *
 * The default GID is the link-local fe80::/64 address whose interface id
 * is the EUI-64 form of @ndev's MAC.  One entry per GID type in
 * @gid_type_mask, each in a reserved default slot (v1 at 0, v2 at 1).
 * Setting keeps an existing default entry of @ndev; deleting removes it.
 */
void ib_cache_gid_set_default_gid(struct ib_device *ib_dev, u32 port,
				  struct net_device *ndev,
				  unsigned long gid_type_mask,
				  enum ib_cache_gid_default_mode mode)
{
	const unsigned long mask = GID_MATCH_TYPE | GID_MATCH_NDEV |
				   GID_MATCH_DEFAULT;
	union ib_gid gid = {};
	struct ib_gid_attr attr;
	unsigned int type;

	gid.global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	if (mode == IB_CACHE_GID_DEFAULT_MODE_SET &&
	    addrconf_ifid_eui48(&gid.raw[8], ndev))
		return;

	for (type = 0; type < IB_GID_TYPE_SIZE; type++) {
		if (!(gid_type_mask & BIT(type)))
			continue;
		memset(&attr, 0, sizeof(attr));
		attr.gid_type = type;
		RCU_INIT_POINTER(attr.ndev, ndev);
		if (mode == IB_CACHE_GID_DEFAULT_MODE_SET)
			gid_table_add(ib_dev, port, &gid, &attr, mask, true);
		else
			gid_table_del(ib_dev, port, &gid, &attr, mask, true);
	}
}

/* ---- lookups ----------------------------------------------------------- */

/**
 * rdma_get_gid_attr - take a reference on a GID entry by position
 * @device: the device
 * @port_num: the port
 * @index: slot of the port's GID table
 *
 * Does not sleep; usable in any context.  Release the entry with
 * rdma_put_gid_attr().
 *
 * Return: the entry, ERR_PTR(-EINVAL) for a bad port or index, or
 * ERR_PTR(-ENODATA) for a slot without a valid entry.
 */
const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device,
					    u32 port_num, int index)
{
	const struct ib_gid_attr *attr = ERR_PTR(-ENODATA);
	struct ib_gid_table_entry *entry;
	struct ib_gid_table *table;
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return ERR_PTR(-EINVAL);
	table = port_gid_table(device, port_num);
	if (!table || index < 0 || index >= table->sz)
		return ERR_PTR(-EINVAL);

	read_lock_irqsave(&device->cache_lock, flags);
	entry = table->data_vec[index];
	if (gid_entry_valid(entry)) {
		kref_get(&entry->kref);
		attr = &entry->attr;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return attr;
}
EXPORT_SYMBOL(rdma_get_gid_attr);

/**
 * rdma_hold_gid_attr - take another reference on a GID entry
 * @attr: an entry the caller already holds a reference on
 *
 * Pair with rdma_put_gid_attr().  Any context.
 */
void rdma_hold_gid_attr(const struct ib_gid_attr *attr)
{
	kref_get(&gid_entry_of(attr)->kref);
}
EXPORT_SYMBOL(rdma_hold_gid_attr);

/**
 * rdma_put_gid_attr - drop a reference on a GID entry
 * @attr: an entry from rdma_get_gid_attr(), rdma_find_gid*() or
 *	rdma_hold_gid_attr()
 *
 * Any context.  When this was the last reference to an entry already
 * removed from its table, the provider's del_gid() and the freeing run
 * later from a work item.
 */
void rdma_put_gid_attr(const struct ib_gid_attr *attr)
{
	gid_entry_put(gid_entry_of(attr));
}
EXPORT_SYMBOL(rdma_put_gid_attr);

/**
 * rdma_query_gid - copy out the GID at a table position
 * @device: the device
 * @port_num: the port
 * @index: slot of the port's GID table
 * @gid: receives the GID
 *
 * The caller gets a copy; no reference is left behind.  Any context.
 *
 * Return: 0, -EINVAL for a bad port or index, -ENOENT for an empty slot.
 */
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid)
{
	const struct ib_gid_attr *attr = rdma_get_gid_attr(device, port_num,
							   index);

	if (IS_ERR(attr))
		return PTR_ERR(attr) == -ENODATA ? -ENOENT : PTR_ERR(attr);
	*gid = attr->gid;
	rdma_put_gid_attr(attr);
	return 0;
}
EXPORT_SYMBOL(rdma_query_gid);

/**
 * rdma_query_gid_table - list every valid GID of a device
 * @device: the device
 * @entries: array to fill
 * @max_entries: room in @entries
 *
 * Ports are walked in order, each table from slot 0.  Any context.
 *
 * Return: the number of entries written, or -EINVAL when they do not fit
 * in @max_entries (the contents of @entries are then undefined).
 */
ssize_t rdma_query_gid_table(struct ib_device *device,
			     struct ib_uverbs_gid_entry *entries,
			     size_t max_entries)
{
	ssize_t count = 0;
	u32 port;

	rdma_for_each_port(device, port) {
		struct ib_gid_table *table = port_gid_table(device, port);
		unsigned long flags;
		int i;

		if (!table)
			continue;
		read_lock_irqsave(&device->cache_lock, flags);
		for (i = 0; i < table->used; i++) {
			struct ib_gid_table_entry *entry = table->data_vec[i];
			struct net_device *ndev;

			if (!gid_entry_valid(entry))
				continue;
			if (count >= max_entries) {
				read_unlock_irqrestore(&device->cache_lock,
						       flags);
				return -EINVAL;
			}
			memcpy(entries->gid, entry->attr.gid.raw,
			       sizeof(entries->gid));
			entries->gid_index = entry->attr.index;
			entries->port_num = entry->attr.port_num;
			entries->gid_type = entry->attr.gid_type;
			/* A valid entry still owns its netdev reference. */
			ndev = rcu_dereference_protected(entry->attr.ndev, 1);
			entries->netdev_ifindex = ndev ? ndev->ifindex : 0;
			entries++;
			count++;
		}
		read_unlock_irqrestore(&device->cache_lock, flags);
	}
	return count;
}
EXPORT_SYMBOL(rdma_query_gid_table);

static const struct ib_gid_attr *
gid_table_lookup(struct ib_device *device, u32 port, const union ib_gid *gid,
		 const struct ib_gid_attr *val, unsigned long mask)
{
	struct ib_gid_table *table = port_gid_table(device, port);
	const struct ib_gid_attr *attr = NULL;
	unsigned long flags;
	int ix;

	if (!table)
		return NULL;
	read_lock_irqsave(&device->cache_lock, flags);
	ix = gid_table_find(table, gid, val, mask, false);
	if (ix >= 0) {
		kref_get(&table->data_vec[ix]->kref);
		attr = &table->data_vec[ix]->attr;
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return attr;
}

/**
 * rdma_find_gid_by_port - find a GID entry by value on one port
 * @ib_dev: the device
 * @gid: the GID to look for
 * @gid_type: the GID type it must have
 * @port: the port to search
 * @ndev: the netdev it must be bound to, or NULL for any
 *
 * Any context.  Release the result with rdma_put_gid_attr().
 *
 * Return: the first matching valid entry, or ERR_PTR(-ENOENT) when there
 * is none or @port is not a port of @ib_dev.
 */
const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *ib_dev,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port,
						struct net_device *ndev)
{
	struct ib_gid_attr val = { .gid_type = gid_type };
	unsigned long mask = GID_MATCH_GID | GID_MATCH_TYPE;
	const struct ib_gid_attr *attr;

	if (!rdma_is_port_valid(ib_dev, port))
		return ERR_PTR(-ENOENT);
	if (ndev) {
		RCU_INIT_POINTER(val.ndev, ndev);
		mask |= GID_MATCH_NDEV;
	}
	attr = gid_table_lookup(ib_dev, port, gid, &val, mask);
	return attr ?: ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid_by_port);

/**
 * rdma_find_gid - find a GID entry by value on any port
 * @device: the device
 * @gid: the GID to look for
 * @gid_type: the GID type it must have
 * @ndev: the netdev it must be bound to, or NULL for any
 *
 * Ports are searched in order.  Any context.  Release the result with
 * rdma_put_gid_attr().
 *
 * Return: the first matching valid entry or ERR_PTR(-ENOENT).
 */
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device,
					const union ib_gid *gid,
					enum ib_gid_type gid_type,
					struct net_device *ndev)
{
	struct ib_gid_attr val = { .gid_type = gid_type };
	unsigned long mask = GID_MATCH_GID | GID_MATCH_TYPE;
	u32 port;

	if (ndev) {
		RCU_INIT_POINTER(val.ndev, ndev);
		mask |= GID_MATCH_NDEV;
	}
	rdma_for_each_port(device, port) {
		const struct ib_gid_attr *attr;

		attr = gid_table_lookup(device, port, gid, &val, mask);
		if (attr)
			return attr;
	}
	return ERR_PTR(-ENOENT);
}
EXPORT_SYMBOL(rdma_find_gid);

/**
 * rdma_find_gid_by_filter - find a GID entry by value and a caller test
 * @ib_dev: the device
 * @gid: the GID to look for
 * @port: the port to search
 * @filter: called on each valid entry equal to @gid, in slot order, with
 *	the cache lock held and interrupts off: it must not sleep; it may
 *	read the entry's netdev (stable during the call).  Must not be NULL
 * @context: passed to @filter
 *
 * Release the result with rdma_put_gid_attr().
 *
 * Return: the first entry @filter accepts, ERR_PTR(-EINVAL) for a bad
 * port, or ERR_PTR(-ENOENT).
 */
const struct ib_gid_attr *
rdma_find_gid_by_filter(struct ib_device *ib_dev, const union ib_gid *gid,
			u32 port,
			bool (*filter)(const union ib_gid *gid,
				       const struct ib_gid_attr *attr,
				       void *context),
			void *context)
{
	const struct ib_gid_attr *res = ERR_PTR(-ENOENT);
	struct ib_gid_table *table;
	unsigned long flags;
	int i;

	if (!rdma_is_port_valid(ib_dev, port))
		return ERR_PTR(-EINVAL);
	table = port_gid_table(ib_dev, port);
	if (!table)
		return res;

	read_lock_irqsave(&ib_dev->cache_lock, flags);
	for (i = 0; i < table->used; i++) {
		struct ib_gid_table_entry *entry = table->data_vec[i];

		if (!gid_entry_valid(entry) ||
		    memcmp(gid, &entry->attr.gid, sizeof(*gid)))
			continue;
		if (filter(gid, &entry->attr, context)) {
			kref_get(&entry->kref);
			res = &entry->attr;
			break;
		}
	}
	read_unlock_irqrestore(&ib_dev->cache_lock, flags);
	return res;
}
EXPORT_SYMBOL(rdma_find_gid_by_filter);

/**
 * ib_find_gid - find where a GID sits on the IB ports of a device
 * @device: the device
 * @gid: the GID to look for
 * @port_num: receives the port it was found on
 * @index: receives its slot; may be NULL
 *
 * Only native InfiniBand ports are searched.  Any context.
 *
 * Return: 0 when found, -ENOENT otherwise.
 */
int ib_find_gid(struct ib_device *device, union ib_gid *gid,
		u32 *port_num, u16 *index)
{
	const struct ib_gid_attr *found = NULL;
	u32 port;

	rdma_for_each_port(device, port) {
		if (rdma_protocol_ib(device, port))
			found = gid_table_lookup(device, port, gid, NULL,
						 GID_MATCH_GID);
		if (found)
			break;
	}
	if (!found)
		return -ENOENT;

	*port_num = found->port_num;
	if (index)
		*index = found->index;
	rdma_put_gid_attr(found);
	return 0;
}
EXPORT_SYMBOL(ib_find_gid);

/**
 * rdma_read_gid_hw_context - the provider's cookie of a GID entry
 * @attr: an entry the caller holds a reference on
 *
 * Return: what the provider's add_gid() stored, NULL if nothing.
 */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr)
{
	return gid_entry_of(attr)->context;
}
EXPORT_SYMBOL(rdma_read_gid_hw_context);

/**
 * rdma_read_gid_attr_ndev_rcu - the netdev of a GID entry
 * @attr: an entry the caller holds a reference on
 *
 * Must be called under rcu_read_lock(); the netdev may only be used until
 * the matching rcu_read_unlock() unless the caller takes a reference.
 *
 * Return: the netdev, ERR_PTR(-EINVAL) when the entry was removed from its
 * table, or ERR_PTR(-ENODEV) when it has no netdev.
 */
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr)
{
	const struct ib_gid_table_entry *entry = gid_entry_of(attr);
	struct net_device *ndev;

	/*
	 * No lock needed: removal marks the entry PENDING_DEL before it
	 * clears attr.ndev, and the netdev is only released an RCU grace
	 * period after that, so whatever is read here stays usable until
	 * the caller's rcu_read_unlock().
	 */
	if (READ_ONCE(entry->state) != GID_ENTRY_VALID)
		return ERR_PTR(-EINVAL);
	ndev = rcu_dereference(attr->ndev);
	return ndev ?: ERR_PTR(-ENODEV);
}
EXPORT_SYMBOL(rdma_read_gid_attr_ndev_rcu);

/* Stops at the first lower device: only a VLAN right under counts. */
static int first_lower_vlan(struct net_device *lower,
			    struct netdev_nested_priv *priv)
{
	u16 *vlan_id = priv->data;

	if (is_vlan_dev(lower))
		*vlan_id = vlan_dev_vlan_id(lower);
	return 1;
}

/*
 * The VLAN ID of @ndev, or of a VLAN device right under it (a macvlan on
 * a VLAN, say); 0xffff for none.  Under rcu_read_lock().
 */
static u16 ndev_vlan_id_rcu(struct net_device *ndev)
{
	u16 vlan_id = 0xffff;
	struct netdev_nested_priv priv = { .data = &vlan_id };

	if (is_vlan_dev(ndev))
		return vlan_dev_vlan_id(ndev);
	netdev_walk_all_lower_dev_rcu(ndev, first_lower_vlan, &priv);
	return vlan_id;
}

/**
 * rdma_read_gid_l2_fields - VLAN ID and source MAC of a GID entry
 * @attr: an entry the caller holds a reference on
 * @vlan_id: receives the VLAN ID, 0xffff for none; may be NULL
 * @smac: receives the netdev's MAC address; may be NULL
 *
 * The VLAN is that of the entry's netdev, or, for a netdev stacked on a
 * VLAN device (a macvlan for example), that of the VLAN device right
 * under it.  Any context.
 *
 * Return: 0, or -ENODEV when the entry has no netdev (any more).
 */
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr,
			    u16 *vlan_id, u8 *smac)
{
	struct net_device *ndev;

	rcu_read_lock();
	ndev = rcu_dereference(attr->ndev);
	if (ndev && smac)
		ether_addr_copy(smac, ndev->dev_addr);
	if (ndev && vlan_id)
		*vlan_id = ndev_vlan_id_rcu(ndev);
	rcu_read_unlock();
	return ndev ? 0 : -ENODEV;
}
EXPORT_SYMBOL(rdma_read_gid_l2_fields);

/* ---- P_Key table, port state, LMC, subnet prefix ------------------------ */

/**
 * ib_get_cached_pkey - read a P_Key table slot from the cache
 * @device_handle: the device
 * @port_num: the port
 * @index: the slot
 * @pkey: receives the P_Key
 *
 * Any context.
 *
 * Return: 0, or -EINVAL for a bad port or index or a port without a
 * P_Key table.
 */
int ib_get_cached_pkey(struct ib_device *device_handle, u32 port_num,
		       int index, u16 *pkey)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int ret = -EINVAL;

	if (!rdma_is_port_valid(device_handle, port_num))
		return -EINVAL;

	read_lock_irqsave(&device_handle->cache_lock, flags);
	cache = device_handle->port_data[port_num].cache.pkey;
	if (cache && index >= 0 && index < cache->table_len) {
		*pkey = cache->table[index];
		ret = 0;
	}
	read_unlock_irqrestore(&device_handle->cache_lock, flags);
	return ret;
}
EXPORT_SYMBOL(ib_get_cached_pkey);

/*
 * Slot of @pkey: exact 16-bit match, or on the 15 key bits preferring a
 * full member.  cache_lock held.  -1 if absent.
 */
static int pkey_cache_find(const struct ib_pkey_cache *cache, u16 pkey,
			   bool exact)
{
	int partial = -1;
	int i;

	for (i = 0; i < cache->table_len; i++) {
		u16 entry = cache->table[i];

		if (exact) {
			if (entry == pkey)
				return i;
			continue;
		}
		if ((entry & 0x7fff) != (pkey & 0x7fff))
			continue;
		if (entry & 0x8000)
			return i;
		if (partial < 0)
			partial = i;
	}
	return partial;
}

static int find_cached_pkey(struct ib_device *device, u32 port_num,
			    u16 pkey, u16 *index, bool exact)
{
	struct ib_pkey_cache *cache;
	unsigned long flags;
	int ret = -EINVAL;
	int ix;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;

	read_lock_irqsave(&device->cache_lock, flags);
	cache = device->port_data[port_num].cache.pkey;
	if (cache) {
		ix = pkey_cache_find(cache, pkey, exact);
		ret = -ENOENT;
		if (ix >= 0) {
			*index = ix;
			ret = 0;
		}
	}
	read_unlock_irqrestore(&device->cache_lock, flags);
	return ret;
}

/**
 * ib_find_cached_pkey - find a P_Key in the cache by its key bits
 * @device: the device
 * @port_num: the port
 * @pkey: the P_Key; only its low 15 bits are compared
 * @index: receives the slot
 *
 * A full-member entry (bit 15 set) wins over a limited one.  Any context.
 *
 * Return: 0, -EINVAL for a bad port or a port without a P_Key table,
 * -ENOENT when the key is absent (@index is then left alone).
 */
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			u16 *index)
{
	return find_cached_pkey(device, port_num, pkey, index, false);
}
EXPORT_SYMBOL(ib_find_cached_pkey);

/**
 * ib_find_exact_cached_pkey - find a P_Key in the cache, all 16 bits
 * @device: the device
 * @port_num: the port
 * @pkey: the P_Key, membership bit included
 * @index: receives the first slot holding exactly @pkey
 *
 * Any context.
 *
 * Return: 0, -EINVAL for a bad port or a port without a P_Key table,
 * -ENOENT when absent.
 */
int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num,
			      u16 pkey, u16 *index)
{
	return find_cached_pkey(device, port_num, pkey, index, true);
}
EXPORT_SYMBOL(ib_find_exact_cached_pkey);

/**
 * ib_get_cached_port_state - port state as of the last port event
 * @device: the device
 * @port_num: the port
 * @port_active: receives the state
 *
 * Return: 0, or -EINVAL for a bad port.
 */
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_active)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	*port_active = device->port_data[port_num].cache.port_state;
	read_unlock_irqrestore(&device->cache_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_get_cached_port_state);

/**
 * ib_get_cached_lmc - LID mask count as of the last port event
 * @device: the device
 * @port_num: the port
 * @lmc: receives the LMC
 *
 * Return: 0, or -EINVAL for a bad port.
 */
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num))
		return -EINVAL;
	read_lock_irqsave(&device->cache_lock, flags);
	*lmc = device->port_data[port_num].cache.lmc;
	read_unlock_irqrestore(&device->cache_lock, flags);
	return 0;
}
EXPORT_SYMBOL(ib_get_cached_lmc);

/**
 * ib_get_cached_subnet_prefix - subnet prefix as of the last port event
 * @device: the device
 * @port_num: the port
 * @sn_pfx: receives the prefix in host order; 0 for a bad port
 */
void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx)
{
	unsigned long flags;

	if (!rdma_is_port_valid(device, port_num)) {
		*sn_pfx = 0;
		return;
	}
	read_lock_irqsave(&device->cache_lock, flags);
	*sn_pfx = device->port_data[port_num].cache.subnet_prefix;
	read_unlock_irqrestore(&device->cache_lock, flags);
}
EXPORT_SYMBOL(ib_get_cached_subnet_prefix);

/* ---- refreshing from the provider --------------------------------------- */

/*
 * Put @gid (with @ndev) into slot @ix of a provider-owned table; a zero
 * GID empties the slot.  An equal entry is kept as it is.  Table mutex
 * held.
 */
static int gid_table_set_slot(struct ib_gid_table *table, int ix,
			      const union ib_gid *gid, struct net_device *ndev)
{
	struct ib_gid_table_entry *old = table->data_vec[ix];
	struct ib_gid_table_entry *entry;

	if (gid_entry_valid(old)) {
		if (!memcmp(&old->attr.gid, gid, sizeof(*gid)) &&
		    rcu_access_pointer(old->attr.ndev) == ndev)
			return 0;
		gid_table_remove(table, ix);
	}
	if (rdma_is_zero_gid(gid))
		return 0;

	entry = gid_entry_alloc(table, ix, gid, IB_GID_TYPE_IB, ndev);
	return entry ? gid_table_store(table, entry) : -ENOMEM;
}

/* Mirror an IB or iWARP port's GID table from query_gid(). */
static int gid_table_read_from_hw(struct ib_gid_table *table,
				  struct ib_port_attr *props)
{
	struct ib_device *device = table->device;
	struct net_device *ndev = NULL;
	int ret = 0;
	int n, i;

	if (!device->ops.query_gid)
		return 0;
	if (rdma_protocol_iwarp(device, table->port)) {
		ndev = ib_device_get_netdev(device, table->port);
		if (!ndev)
			return 0;
	}

	n = min(props->gid_tbl_len, table->sz);
	mutex_lock(&table->lock);
	for (i = 0; i < n && !table->dead; i++) {
		union ib_gid gid;

		ret = device->ops.query_gid(device, table->port, i, &gid);
		if (ret) {
			dev_warn(&device->dev,
				 "query_gid failed (%d) port %u index %d\n",
				 ret, table->port, i);
			break;
		}
		if (i == 0 && !rdma_is_zero_gid(&gid))
			props->subnet_prefix =
				be64_to_cpu(gid.global.subnet_prefix);
		ret = gid_table_set_slot(table, i, &gid, ndev);
		if (ret)
			break;
	}
	mutex_unlock(&table->lock);
	dev_put(ndev);
	return ret;
}

static int pkey_cache_read(struct ib_device *device, u32 port, int len,
			   struct ib_pkey_cache **out)
{
	struct ib_pkey_cache *cache;
	int ret;
	int i;

	cache = kmalloc(struct_size(cache, table, len), GFP_KERNEL);
	if (!cache)
		return -ENOMEM;
	cache->table_len = len;
	for (i = 0; i < len; i++) {
		ret = ib_query_pkey(device, port, i, &cache->table[i]);
		if (ret) {
			dev_warn(&device->dev,
				 "ib_query_pkey failed (%d) port %u index %d\n",
				 ret, port, i);
			kfree(cache);
			return ret;
		}
	}
	*out = cache;
	return 0;
}

/*
 * Re-read a port's state, LMC and subnet prefix, and optionally its GID
 * table (provider-owned tables only) and P_Key table.  Sleeps.
 */
static int port_cache_update(struct ib_gid_table *table, bool gids,
			     bool pkeys)
{
	struct ib_device *device = table->device;
	struct ib_port_cache *pc = &device->port_data[table->port].cache;
	struct ib_pkey_cache *pkey_cache = NULL;
	struct ib_port_attr props;
	int ret;

	ret = ib_query_port(device, table->port, &props);
	if (ret) {
		dev_warn(&device->dev, "ib_query_port failed (%d) port %u\n",
			 ret, table->port);
		return ret;
	}
	if (gids && !rdma_protocol_roce(device, table->port)) {
		ret = gid_table_read_from_hw(table, &props);
		if (ret)
			return ret;
	}
	if (pkeys && props.pkey_tbl_len) {
		ret = pkey_cache_read(device, table->port, props.pkey_tbl_len,
				      &pkey_cache);
		if (ret)
			return ret;
	}

	/* Readers see all of it or none; the old P_Key table comes back. */
	write_lock_irq(&device->cache_lock);
	pc->subnet_prefix = props.subnet_prefix;
	if (pkeys)
		swap(pc->pkey, pkey_cache);
	pc->lmc = props.lmc;
	pc->port_state = props.state;
	write_unlock_irq(&device->cache_lock);
	kfree(pkey_cache);
	return 0;
}

/*
 * Port event handler, one per port.  device.c delivers events from a work
 * item on the ordered ib_wq (process context), so the refresh runs right
 * here; and since the cache subscribes before any client can, the cache
 * is already fresh when the clients' handlers see the same event.
 */
static void port_cache_event(struct ib_event_handler *handler,
			     struct ib_event *event)
{
	struct ib_gid_table *table =
		container_of(handler, struct ib_gid_table, event_handler);
	bool gids = false;
	bool pkeys = false;

	if (event->element.port_num != table->port)
		return;

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_LID_CHANGE:
		break;
	case IB_EVENT_PKEY_CHANGE:
		pkeys = true;
		break;
	case IB_EVENT_GID_CHANGE:
		/* On RoCE ports the core made this change itself. */
		if (rdma_protocol_roce(table->device, table->port))
			return;
		gids = true;
		break;
	case IB_EVENT_CLIENT_REREGISTER:
		gids = true;
		break;
	default:
		return;
	}
	might_sleep();
	port_cache_update(table, gids, pkeys);
}

/* ---- per-device setup and teardown -------------------------------------- */

static struct ib_gid_table *gid_table_alloc(struct ib_device *device,
					    u32 port)
{
	int sz = device->port_data[port].immutable.gid_tbl_len;
	struct ib_gid_table *table;
	unsigned int ndefault;

	if (sz < 0)
		return NULL;
	table = kzalloc(sizeof(*table), GFP_KERNEL);
	if (!table)
		return NULL;
	table->data_vec = kcalloc(sz, sizeof(*table->data_vec), GFP_KERNEL);
	if (!table->data_vec) {
		kfree(table);
		return NULL;
	}
	table->device = device;
	table->port = port;
	table->sz = sz;
	mutex_init(&table->lock);
	INIT_IB_EVENT_HANDLER(&table->event_handler, device,
			      port_cache_event);

	/* RoCE: the first slots are kept for the default GIDs. */
	if (rdma_protocol_roce(device, port)) {
		ndefault = hweight_long(roce_gid_type_mask_support(device,
								   port));
		ndefault = min_t(unsigned int, ndefault, min(sz, 32));
		table->default_gid_indices = (u32)(BIT_ULL(ndefault) - 1);
	}
	return table;
}

static void gid_table_free(struct ib_gid_table *table)
{
	int i;

	if (!table)
		return;
	for (i = 0; i < table->sz; i++)
		WARN_ONCE(table->data_vec[i],
			  "%s: GID entry %d of port %u still referenced\n",
			  dev_name(&table->device->dev), i, table->port);
	mutex_destroy(&table->lock);
	kfree(table->data_vec);
	kfree(table);
}

/*
 * ib_cache_release_one - free the caches of a device
 *
 * Called from the device's release, when nothing can use them any more;
 * also safe on a device whose cache setup failed or never ran.
 */
void ib_cache_release_one(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	rdma_for_each_port(device, port) {
		struct ib_port_cache *pc = &device->port_data[port].cache;

		kfree(pc->pkey);
		pc->pkey = NULL;
		gid_table_free(pc->gid);
		pc->gid = NULL;
	}
}

/*
 * ib_cache_cleanup_one - stop and empty the caches of a device
 *
 * Called at unregistration after the clients are gone: no more port
 * events are handled, every GID entry is removed (the provider's
 * del_gid() runs for each), and pending releases are drained so that no
 * provider callback runs after this returns.  Sleeps.
 */
void ib_cache_cleanup_one(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	rdma_for_each_port(device, port) {
		struct ib_gid_table *table = port_gid_table(device, port);

		if (!table)
			continue;
		/* Also waits for a refresh in progress. */
		ib_unregister_event_handler(&table->event_handler);
	}
	rdma_for_each_port(device, port) {
		struct ib_gid_table *table = port_gid_table(device, port);
		int i;

		if (!table)
			continue;
		mutex_lock(&table->lock);
		table->dead = true;
		for (i = 0; i < table->sz; i++)
			if (gid_entry_valid(table->data_vec[i]))
				gid_table_remove(table, i);
		mutex_unlock(&table->lock);
	}
	/* Netdev releases hold entry references; then the releases. */
	rcu_barrier();
	flush_workqueue(gid_release_wq);
}

/*
 * ib_cache_setup_one - build the caches of a device being registered
 *
 * Allocates each port's GID table, subscribes to port events, reads the
 * port state, P_Key table and (IB/iWARP) GID table from the provider, and
 * fills RoCE tables from the netdevs.  Sleeps; must not be called under
 * rtnl.  On failure everything is undone and the errno returned.
 */
int ib_cache_setup_one(struct ib_device *device)
{
	u32 port;
	int ret;

	rdma_for_each_port(device, port) {
		struct ib_gid_table *table = gid_table_alloc(device, port);

		if (!table) {
			ib_cache_release_one(device);
			return -ENOMEM;
		}
		device->port_data[port].cache.gid = table;
	}
	rdma_for_each_port(device, port) {
		struct ib_gid_table *table = port_gid_table(device, port);

		ib_register_event_handler(&table->event_handler);
	}

	rdma_for_each_port(device, port) {
		ret = port_cache_update(port_gid_table(device, port), true,
					true);
		if (ret)
			goto err;
	}
	rdma_for_each_port(device, port)
		rdma_roce_rescan_port(device, port);
	return 0;

err:
	ib_cache_cleanup_one(device);
	ib_cache_release_one(device);
	return ret;
}

/* ib_cache_setup - module-wide state of the caches, at ib_core load. */
int ib_cache_setup(void)
{
	gid_release_wq = alloc_workqueue("ib_gid_release", WQ_UNBOUND, 0);
	return gid_release_wq ? 0 : -ENOMEM;
}

/* ib_cache_cleanup - undo ib_cache_setup(), at ib_core unload. */
void ib_cache_cleanup(void)
{
	rcu_barrier();
	destroy_workqueue(gid_release_wq);
}
