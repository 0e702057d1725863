// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * /sys/class/infiniband/<dev>: what user space (libibverbs, ibv_devinfo,
 * udev rules) reads about a device and its ports.
 *
 *   <dev>/{node_type,node_guid,sys_image_guid,fw_ver,node_desc}
 *   <dev>/ports/<p>/{state,phys_state,link_layer,rate,lid,sm_lid,
 *                    lid_mask_count,cap_mask,sm_sl}
 *   <dev>/ports/<p>/gids/<i>                the GID, 8 groups of 4 hex digits
 *   <dev>/ports/<p>/gid_attrs/ndevs/<i>     netdev of a RoCE GID entry
 *   <dev>/ports/<p>/gid_attrs/types/<i>     "IB/RoCE v1" or "RoCE v2"
 *   <dev>/ports/<p>/pkeys/<i>               0xffff style P_Keys
 *   <dev>/ports/<p>/hw_counters/<name>      a hardware counter (counters.c)
 *   <dev>/ports/<p>/counters/<name>         a PMA counter (sysfs_pma.c)
 *
 * The text formats are the ones rdma-core parses and must not change.
 * The class is per network namespace: a device shows in the sysfs of the
 * namespace it belongs to, and in shared mode a copy of its directory
 * (another struct ib_core_device, with ports of its own built by the same
 * code) shows in every other namespace (device.c).
 *
 * Objects and lifetimes: each port directory is a struct ib_port, a
 * kobject of its own under the "ports" kobject of the device, and owns a
 * second kobject for its gid_attrs directory.  A kobject's memory (with
 * the attribute tables) is freed by its release callback; a child kobject
 * pins its parent until it is released.  ib_free_port_attrs() removes the
 * directories, which waits for running show() calls, so show() callbacks
 * may use the ib_device freely: the device core removes ports before
 * device_del() and the device memory outlives its sysfs.
 *
 * Locking: none of its own.  show() callbacks call the public query
 * functions (ib_query_port(), ib_query_pkey(), rdma_get_gid_attr()), which
 * do their own.
 */
#include <linux/kobject.h>
#include <linux/netdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_sysfs.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

struct ib_port;

/* One numbered file of a table directory: gids/3, pkeys/0, ... */
struct port_table_entry {
	struct ib_port_attribute pattr;
	u32 index;
	char name[12];
};

/*
 * A table directory: @group names the directory and lists @attrs (one per
 * entry plus the NULL end), which point into @entries.
 */
struct port_table {
	struct attribute_group group;
	struct attribute **attrs;
	struct port_table_entry *entries;
};

/* ports/<p>/gid_attrs: pins its ib_port through the kobject parent. */
struct gid_attrs_dir {
	struct kobject kobj;
	struct ib_port *port;
	struct port_table ndevs;
	struct port_table types;
	const struct attribute_group *groups[3];
};

/*
 * ports/<p>: on ib_core_device.port_list of the device directory it is
 * in; for the device's own directory (not a namespace's copy)
 * ib_port_data.sysfs points here too while the directory exists.
 */
struct ib_port {
	struct kobject kobj;
	struct list_head node;
	struct ib_device *ibdev;
	u32 port_num;
	struct gid_attrs_dir *gid_attrs;
	struct port_table gids;
	struct port_table pkeys;
	struct port_table hw_counters;
	/* gids, pkeys, hw_counters, counters, NULL */
	const struct attribute_group *groups[5];
};

/* ---- port attributes ------------------------------------------------------ */

static const char * const port_state_names[] = {
	[IB_PORT_NOP]		= "NOP",
	[IB_PORT_DOWN]		= "DOWN",
	[IB_PORT_INIT]		= "INIT",
	[IB_PORT_ARMED]		= "ARMED",
	[IB_PORT_ACTIVE]	= "ACTIVE",
	[IB_PORT_ACTIVE_DEFER]	= "ACTIVE_DEFER",
};

static const char * const phys_state_names[] = {
	[IB_PORT_PHYS_STATE_SLEEP]		= "Sleep",
	[IB_PORT_PHYS_STATE_POLLING]		= "Polling",
	[IB_PORT_PHYS_STATE_DISABLED]		= "Disabled",
	[IB_PORT_PHYS_STATE_PORT_CONFIGURATION_TRAINING] =
						  "PortConfigurationTraining",
	[IB_PORT_PHYS_STATE_LINK_UP]		= "LinkUp",
	[IB_PORT_PHYS_STATE_LINK_ERROR_RECOVERY] = "LinkErrorRecovery",
	[IB_PORT_PHYS_STATE_PHY_TEST]		= "Phy Test",
};

static const char * const link_layer_names[] = {
	[IB_LINK_LAYER_INFINIBAND]	= "InfiniBand",
	[IB_LINK_LAYER_ETHERNET]	= "Ethernet",
};

/* @names[@i], or @none when the table has no name for @i. */
static const char *name_in(const char * const *names, size_t count,
			   unsigned int i, const char *none)
{
	return i < count && names[i] ? names[i] : none;
}

static ssize_t state_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	const char *name;
	int ret = ib_query_port(ibdev, port_num, &attr);

	if (ret)
		return ret;
	name = name_in(port_state_names, ARRAY_SIZE(port_state_names),
		       attr.state, "UNKNOWN");
	return sysfs_emit(buf, "%u: %s\n", attr.state, name);
}

static ssize_t phys_state_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	const char *name;
	int ret = ib_query_port(ibdev, port_num, &attr);

	if (ret)
		return ret;
	name = name_in(phys_state_names, ARRAY_SIZE(phys_state_names),
		       attr.phys_state, "<unknown>");
	return sysfs_emit(buf, "%u: %s\n", attr.phys_state, name);
}

static ssize_t link_layer_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *pattr, char *buf)
{
	enum rdma_link_layer ll = rdma_port_get_link_layer(ibdev,
							   port_num);

	return sysfs_emit(buf, "%s\n",
			  name_in(link_layer_names, ARRAY_SIZE(link_layer_names),
				  ll, "Unknown"));
}

/* "10 Gb/sec (4X QDR)", "2.5 Gb/sec (1X SDR)" */
static ssize_t rate_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_speed_info info;
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	if (ret)
		return ret;
	ret = ib_port_attr_to_speed_info(&attr, &info);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%d%s Gb/sec (%dX%s)\n", info.rate / 10,
			  info.rate % 10 ? ".5" : "",
			  ib_width_enum_to_int(attr.active_width), info.str);
}

static ssize_t lid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	return ret ? ret : sysfs_emit(buf, "0x%x\n", attr.lid);
}

static ssize_t sm_lid_show(struct ib_device *ibdev, u32 port_num,
			   struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	return ret ? ret : sysfs_emit(buf, "0x%x\n", attr.sm_lid);
}

static ssize_t lid_mask_count_show(struct ib_device *ibdev, u32 port_num,
				   struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	return ret ? ret : sysfs_emit(buf, "%u\n", attr.lmc);
}

static ssize_t cap_mask_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	return ret ? ret : sysfs_emit(buf, "0x%08x\n", attr.port_cap_flags);
}

static ssize_t sm_sl_show(struct ib_device *ibdev, u32 port_num,
			  struct ib_port_attribute *pattr, char *buf)
{
	struct ib_port_attr attr;
	int ret = ib_query_port(ibdev, port_num, &attr);

	return ret ? ret : sysfs_emit(buf, "%u\n", attr.sm_sl);
}

#define PORT_ATTR_RO(_name)						\
	static struct ib_port_attribute port_attr_##_name = {			\
		.attr = { .name = __stringify(_name), .mode = 0444 },	\
		.show = _name##_show,					\
	}

PORT_ATTR_RO(state);
PORT_ATTR_RO(phys_state);
PORT_ATTR_RO(link_layer);
PORT_ATTR_RO(rate);
PORT_ATTR_RO(lid);
PORT_ATTR_RO(sm_lid);
PORT_ATTR_RO(lid_mask_count);
PORT_ATTR_RO(cap_mask);
PORT_ATTR_RO(sm_sl);

static struct attribute *port_default_attrs[] = {
	&port_attr_state.attr,
	&port_attr_phys_state.attr,
	&port_attr_link_layer.attr,
	&port_attr_rate.attr,
	&port_attr_lid.attr,
	&port_attr_sm_lid.attr,
	&port_attr_lid_mask_count.attr,
	&port_attr_cap_mask.attr,
	&port_attr_sm_sl.attr,
	NULL
};
ATTRIBUTE_GROUPS(port_default);

/* ---- table entries ---------------------------------------------------------------- */

static u32 table_index(struct ib_port_attribute *pattr)
{
	return container_of(pattr, struct port_table_entry, pattr)->index;
}

/* An empty or unreadable slot reads as the zero GID, as user space expects. */
static ssize_t gid_show(struct ib_device *ibdev, u32 port_num,
			struct ib_port_attribute *pattr, char *buf)
{
	const struct ib_gid_attr *gattr;
	union ib_gid gid = {};

	gattr = rdma_get_gid_attr(ibdev, port_num,
				  table_index(pattr));
	if (!IS_ERR(gattr)) {
		gid = gattr->gid;
		rdma_put_gid_attr(gattr);
	}
	return sysfs_emit(buf, "%pI6\n", gid.raw);
}

static const char *gid_type_name(enum ib_gid_type type)
{
	switch (type) {
	case IB_GID_TYPE_IB:
	case IB_GID_TYPE_ROCE:
		/* One name for both, for user-space compatibility. */
		return "IB/RoCE v1";
	case IB_GID_TYPE_ROCE_UDP_ENCAP:
		return "RoCE v2";
	default:
		return "Invalid GID type";
	}
}

/* Empty slots fail with -EINVAL, which is what user space tests for. */
static ssize_t gid_type_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *pattr, char *buf)
{
	const struct ib_gid_attr *gattr;
	ssize_t ret;

	gattr = rdma_get_gid_attr(ibdev, port_num,
				  table_index(pattr));
	if (IS_ERR(gattr))
		return -EINVAL;
	ret = sysfs_emit(buf, "%s\n", gid_type_name(gattr->gid_type));
	rdma_put_gid_attr(gattr);
	return ret;
}

static ssize_t gid_ndev_show(struct ib_device *ibdev, u32 port_num,
			     struct ib_port_attribute *pattr, char *buf)
{
	const struct ib_gid_attr *gattr;
	struct net_device *ndev;
	ssize_t ret = -EINVAL;

	gattr = rdma_get_gid_attr(ibdev, port_num,
				  table_index(pattr));
	if (IS_ERR(gattr))
		return -EINVAL;
	rcu_read_lock();
	ndev = rdma_read_gid_attr_ndev_rcu(gattr);
	if (!IS_ERR_OR_NULL(ndev))
		ret = sysfs_emit(buf, "%s\n", ndev->name);
	rcu_read_unlock();
	rdma_put_gid_attr(gattr);
	return ret;
}

static ssize_t pkey_show(struct ib_device *ibdev, u32 port_num,
			 struct ib_port_attribute *pattr, char *buf)
{
	u16 pkey;
	int ret;

	ret = ib_query_pkey(ibdev, port_num, table_index(pattr),
			    &pkey);
	return ret ? ret : sysfs_emit(buf, "0x%04x\n", pkey);
}

/* A counter, refreshed if older than the block's lifespan. */
static ssize_t hw_counter_show(struct ib_device *ibdev, u32 port_num,
			       struct ib_port_attribute *pattr, char *buf)
{
	struct rdma_hw_stats *stats = rdma_counters_port(ibdev,
							 port_num);
	u32 i = table_index(pattr);
	u64 value;
	int ret;

	mutex_lock(&stats->lock);
	ret = rdma_counters_refresh(ibdev, port_num, stats);
	value = stats->value[i];
	mutex_unlock(&stats->lock);
	return ret ? ret : sysfs_emit(buf, "%llu\n", value);
}

/* Build a directory of @len numbered read-only files served by @show. */
static int port_table_init(struct port_table *table, const char *dir,
			   int len,
			   ssize_t (*show)(struct ib_device *, u32,
					   struct ib_port_attribute *, char *))
{
	int i;

	if (len < 0)
		return -EINVAL;
	table->attrs = kvcalloc(len + 1, sizeof(*table->attrs), GFP_KERNEL);
	if (!table->attrs)
		return -ENOMEM;
	table->entries = kvcalloc(len, sizeof(*table->entries), GFP_KERNEL);
	if (len && !table->entries) {
		kvfree(table->attrs);
		table->attrs = NULL;
		return -ENOMEM;
	}

	for (i = 0; i < len; i++) {
		struct port_table_entry *e = &table->entries[i];

		snprintf(e->name, sizeof(e->name), "%d", i);
		sysfs_attr_init(&e->pattr.attr);
		e->pattr.attr.name = e->name;
		e->pattr.attr.mode = 0444;
		e->pattr.show = show;
		e->index = i;
		table->attrs[i] = &e->pattr.attr;
	}
	table->group.name = dir;
	table->group.attrs = table->attrs;
	return 0;
}

static void port_table_free(struct port_table *table)
{
	kvfree(table->entries);
	kvfree(table->attrs);
}

/* ---- kobjects ------------------------------------------------------------------------ */

static ssize_t port_kobj_show(struct kobject *kobj, struct attribute *attr,
			      char *buf)
{
	struct ib_port_attribute *pattr =
		container_of(attr, struct ib_port_attribute, attr);
	struct ib_port *port = container_of(kobj, struct ib_port, kobj);

	if (!pattr->show)
		return -EIO;
	return pattr->show(port->ibdev, port->port_num, pattr, buf);
}

static ssize_t port_kobj_store(struct kobject *kobj, struct attribute *attr,
			       const char *buf, size_t count)
{
	struct ib_port_attribute *pattr =
		container_of(attr, struct ib_port_attribute, attr);
	struct ib_port *port = container_of(kobj, struct ib_port, kobj);

	if (!pattr->store)
		return -EIO;
	return pattr->store(port->ibdev, port->port_num, pattr, buf, count);
}

static const struct sysfs_ops port_sysfs_ops = {
	.show = port_kobj_show,
	.store = port_kobj_store,
};

static void port_release(struct kobject *kobj)
{
	struct ib_port *port = container_of(kobj, struct ib_port, kobj);

	port_table_free(&port->gids);
	port_table_free(&port->pkeys);
	port_table_free(&port->hw_counters);
	kfree(port);
}

static const struct kobj_type port_ktype = {
	.release	= port_release,
	.sysfs_ops	= &port_sysfs_ops,
	.default_groups	= port_default_groups,
};

/**
 * ib_port_sysfs_get_ibdev_kobj() - the device and port of a port directory
 * @kobj: the kobject of /sys/class/infiniband/<dev>/ports/<p>
 * @port_num: set to <p>
 *
 * Return: the device; the kobject must be a port directory.
 */
struct ib_device *ib_port_sysfs_get_ibdev_kobj(struct kobject *kobj,
					       u32 *port_num)
{
	struct ib_port *port = container_of(kobj, struct ib_port, kobj);

	*port_num = port->port_num;
	return port->ibdev;
}
EXPORT_SYMBOL(ib_port_sysfs_get_ibdev_kobj);

/**
 * ib_port_register_client_groups() - add a client's files to a port
 * @ibdev: the device
 * @port_num: the port
 * @groups: NULL-terminated attribute groups of struct ib_port_attribute
 *
 * For ib_core's clients (the connection manager's counters), from their
 * add() callback; ib_port_unregister_client_groups() takes them away
 * again, at the latest from remove().
 *
 * Context: process context.
 * Return: 0, -ENODEV when the port has no directory, or the error of
 * sysfs_create_groups().
 */
int ib_port_register_client_groups(struct ib_device *ibdev, u32 port_num,
				   const struct attribute_group **groups)
{
	struct ib_port *port = ibdev->port_data[port_num].sysfs;

	if (!port)
		return -ENODEV;
	return sysfs_create_groups(&port->kobj, groups);
}
EXPORT_SYMBOL(ib_port_register_client_groups);

/**
 * ib_port_unregister_client_groups() - remove a client's files of a port
 * @ibdev: the device
 * @port_num: the port
 * @groups: what ib_port_register_client_groups() added
 *
 * Context: process context.
 */
void ib_port_unregister_client_groups(struct ib_device *ibdev, u32 port_num,
				      const struct attribute_group **groups)
{
	struct ib_port *port = ibdev->port_data[port_num].sysfs;

	if (port)
		sysfs_remove_groups(&port->kobj, groups);
}
EXPORT_SYMBOL(ib_port_unregister_client_groups);

static ssize_t gid_attrs_kobj_show(struct kobject *kobj,
				   struct attribute *attr, char *buf)
{
	struct ib_port_attribute *pattr =
		container_of(attr, struct ib_port_attribute, attr);
	struct gid_attrs_dir *dir = container_of(kobj, struct gid_attrs_dir,
						 kobj);

	if (!pattr->show)
		return -EIO;
	return pattr->show(dir->port->ibdev, dir->port->port_num, pattr, buf);
}

static const struct sysfs_ops gid_attrs_sysfs_ops = {
	.show = gid_attrs_kobj_show,
};

static void gid_attrs_release(struct kobject *kobj)
{
	struct gid_attrs_dir *dir = container_of(kobj, struct gid_attrs_dir,
						 kobj);

	port_table_free(&dir->ndevs);
	port_table_free(&dir->types);
	kfree(dir);
}

static const struct kobj_type gid_attrs_ktype = {
	.release	= gid_attrs_release,
	.sysfs_ops	= &gid_attrs_sysfs_ops,
};

/*
 * Put @kobj (initialised, not yet added) in sysfs as @parent/@name with
 * the files of @groups.  On failure it is out of sysfs again, and the
 * caller still holds its initial reference.
 */
static int dir_publish(struct kobject *kobj, struct kobject *parent,
		       const char *name, const struct attribute_group **groups)
{
	int ret;

	ret = kobject_add(kobj, parent, "%s", name);
	if (ret)
		return ret;
	ret = sysfs_create_groups(kobj, groups);
	if (ret)
		kobject_del(kobj);
	return ret;
}

/*
 * Take a directory of dir_publish() out of sysfs, which waits for its
 * show() calls, and drop the initial reference.
 */
static void dir_unpublish(struct kobject *kobj,
			  const struct attribute_group **groups)
{
	sysfs_remove_groups(kobj, groups);
	kobject_del(kobj);
	kobject_put(kobj);
}

static int gid_attrs_create(struct ib_port *port, int gid_tbl_len)
{
	struct gid_attrs_dir *dir;
	int ret;

	dir = kzalloc(sizeof(*dir), GFP_KERNEL);
	if (!dir)
		return -ENOMEM;
	dir->port = port;
	kobject_init(&dir->kobj, &gid_attrs_ktype);

	ret = port_table_init(&dir->ndevs, "ndevs", gid_tbl_len,
			      gid_ndev_show) ?:
	      port_table_init(&dir->types, "types", gid_tbl_len,
			      gid_type_show);
	if (!ret) {
		dir->groups[0] = &dir->ndevs.group;
		dir->groups[1] = &dir->types.group;
		ret = dir_publish(&dir->kobj, &port->kobj, "gid_attrs",
				  dir->groups);
	}
	if (ret) {
		kobject_put(&dir->kobj);
		return ret;
	}
	port->gid_attrs = dir;
	return 0;
}

/*
 * ports/<p>/hw_counters: the same table shape, but each file is named
 * after its counter (the provider's descriptors are static).
 */
static int hw_counters_init(struct ib_port *port)
{
	struct rdma_hw_stats *stats = rdma_counters_port(port->ibdev,
							 port->port_num);
	int i, ret;

	if (!stats)
		return 0;
	ret = port_table_init(&port->hw_counters, "hw_counters",
			      stats->num_counters, hw_counter_show);
	if (ret)
		return ret;
	for (i = 0; i < stats->num_counters; i++)
		port->hw_counters.entries[i].pattr.attr.name =
			stats->descs[i].name;
	return 0;
}

static void port_destroy(struct ib_port *port)
{
	if (port->gid_attrs)
		dir_unpublish(&port->gid_attrs->kobj, port->gid_attrs->groups);
	dir_unpublish(&port->kobj, port->groups);
}

/* Gather the table directories of a port into port->groups. */
static int port_tables_init(struct ib_port *port)
{
	const struct ib_port_immutable *imm =
		&port->ibdev->port_data[port->port_num].immutable;
	const struct attribute_group **group = port->groups;
	int ret;

	ret = port_table_init(&port->gids, "gids", imm->gid_tbl_len, gid_show);
	if (ret)
		return ret;
	*group++ = &port->gids.group;
	if (imm->pkey_tbl_len) {
		ret = port_table_init(&port->pkeys, "pkeys", imm->pkey_tbl_len,
				      pkey_show);
		if (ret)
			return ret;
		*group++ = &port->pkeys.group;
	}
	ret = hw_counters_init(port);
	if (ret)
		return ret;
	if (port->hw_counters.attrs)
		*group++ = &port->hw_counters.group;
	*group = ib_pma_counters_group(port->ibdev, port->port_num);
	return 0;
}

static int port_create(struct ib_core_device *coredev, u32 port_num)
{
	struct ib_device *ibdev = coredev->owner;
	struct ib_port *port;
	char name[11];
	int ret;

	port = kzalloc(sizeof(*port), GFP_KERNEL);
	if (!port)
		return -ENOMEM;
	port->ibdev = ibdev;
	port->port_num = port_num;
	kobject_init(&port->kobj, &port_ktype);

	snprintf(name, sizeof(name), "%u", port_num);
	ret = port_tables_init(port) ?:
	      dir_publish(&port->kobj, coredev->ports_kobj, name,
			  port->groups);
	if (ret) {
		kobject_put(&port->kobj);
		return ret;
	}
	ret = gid_attrs_create(port,
			       ibdev->port_data[port_num].immutable.gid_tbl_len);
	if (ret) {
		dir_unpublish(&port->kobj, port->groups);
		return ret;
	}
	list_add_tail(&port->node, &coredev->port_list);
	if (coredev == &ibdev->coredev)
		ibdev->port_data[port_num].sysfs = port;
	return 0;
}

/**
 * ib_free_port_attrs() - remove the ports directory of a device
 * @coredev: the device's core device, or a namespace's copy of it
 *
 * Waits for show() calls in progress.  Safe to call when the directory was
 * never (or only partly) created.
 *
 * Context: process context.
 */
void ib_free_port_attrs(struct ib_core_device *coredev)
{
	struct ib_device *ibdev = coredev->owner;
	struct ib_port *port, *next;

	list_for_each_entry_safe(port, next, &coredev->port_list, node) {
		list_del(&port->node);
		if (coredev == &ibdev->coredev)
			ibdev->port_data[port->port_num].sysfs = NULL;
		port_destroy(port);
	}
	kobject_put(coredev->ports_kobj);
	coredev->ports_kobj = NULL;
}

/**
 * ib_setup_port_attrs() - create the ports directory of a device
 * @coredev: the device's core device, or a namespace's copy of it (see
 *	device.c), already added to sysfs
 *
 * Creates ports/<p> for every port with its attributes and its GID, GID
 * attribute and P_Key tables, sized from the port's immutable data.  On
 * failure nothing is left behind.
 *
 * Context: process context.
 * Return: 0, -ENOMEM, or a sysfs error.
 */
int ib_setup_port_attrs(struct ib_core_device *coredev)
{
	struct ib_device *ibdev = coredev->owner;
	struct kobject *ports;
	u32 port_num;
	int ret = 0;

	ports = kobject_create_and_add("ports", &coredev->dev.kobj);
	if (!ports)
		return -ENOMEM;
	coredev->ports_kobj = ports;
	rdma_for_each_port(ibdev, port_num) {
		ret = port_create(coredev, port_num);
		if (ret)
			break;
	}
	if (ret)
		ib_free_port_attrs(coredev);
	return ret;
}

/* ---- device attributes --------------------------------------------------------------- */

static const char * const node_type_names[] = {
	[RDMA_NODE_IB_CA]	= "CA",
	[RDMA_NODE_IB_SWITCH]	= "switch",
	[RDMA_NODE_IB_ROUTER]	= "router",
	[RDMA_NODE_RNIC]	= "RNIC",
	[RDMA_NODE_USNIC]	= "usNIC",
	[RDMA_NODE_USNIC_UDP]	= "usNIC UDP",
	[RDMA_NODE_UNSPECIFIED]	= "unspecified",
};

static ssize_t node_type_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	u8 type = rdma_device_to_ibdev(dev)->node_type;

	return sysfs_emit(buf, "%u: %s\n", type,
			  name_in(node_type_names, ARRAY_SIZE(node_type_names),
				  type, "<unknown>"));
}
static DEVICE_ATTR_RO(node_type);

/* A GUID as four colon-separated 16-bit groups, most significant first. */
static ssize_t emit_guid(char *buf, __be64 guid)
{
	u64 v = be64_to_cpu(guid);

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(v >> 48), (u16)(v >> 32), (u16)(v >> 16),
			  (u16)v);
}

static ssize_t node_guid_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return emit_guid(buf, rdma_device_to_ibdev(dev)->node_guid);
}
static DEVICE_ATTR_RO(node_guid);

static ssize_t sys_image_guid_show(struct device *dev,
				   struct device_attribute *a, char *buf)
{
	return emit_guid(buf, rdma_device_to_ibdev(dev)->attrs.sys_image_guid);
}
static DEVICE_ATTR_RO(sys_image_guid);

static ssize_t fw_ver_show(struct device *dev, struct device_attribute *a,
			   char *buf)
{
	char fw[IB_FW_VERSION_NAME_MAX] = {};

	ib_get_device_fw_str(rdma_device_to_ibdev(dev), fw);
	return sysfs_emit(buf, "%s\n", fw);
}
static DEVICE_ATTR_RO(fw_ver);

static ssize_t node_desc_show(struct device *dev, struct device_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%.*s\n", IB_DEVICE_NODE_DESC_MAX,
			  rdma_device_to_ibdev(dev)->node_desc);
}

/* Through the provider, which updates node_desc (and its firmware). */
static ssize_t node_desc_store(struct device *dev, struct device_attribute *a,
			       const char *buf, size_t count)
{
	struct ib_device *ibdev = rdma_device_to_ibdev(dev);
	struct ib_device_modify desc = {};
	size_t len = min_t(size_t, count, IB_DEVICE_NODE_DESC_MAX);
	int ret;

	if (len && buf[len - 1] == '\n')
		len--;
	memcpy(desc.node_desc, buf, len);
	ret = ib_modify_device(ibdev, IB_DEVICE_MODIFY_NODE_DESC, &desc);
	return ret ? ret : count;
}
static DEVICE_ATTR_RW(node_desc);

/* By file name, as "ls" shows them. */
static struct attribute *ib_dev_attrs[] = {
	&dev_attr_fw_ver.attr,
	&dev_attr_node_desc.attr,
	&dev_attr_node_guid.attr,
	&dev_attr_node_type.attr,
	&dev_attr_sys_image_guid.attr,
	NULL
};

static const struct attribute_group ib_dev_attr_group = {
	.attrs = ib_dev_attrs,
};

/**
 * ib_setup_device_attrs() - choose the attribute groups of a device
 * @ibdev: the device, before device_add()
 *
 * The core's attributes come first, then the provider's legacy
 * device_group if it has one; device_add() creates them.
 *
 * Return: 0.
 */
int ib_setup_device_attrs(struct ib_device *ibdev)
{
	unsigned int n = 0;

	memset(ibdev->groups, 0, sizeof(ibdev->groups));
	ibdev->groups[n++] = &ib_dev_attr_group;
	if (ibdev->ops.device_group)
		ibdev->groups[n++] = ibdev->ops.device_group;
	ibdev->hw_stats_attr_index = 0;
	return 0;
}
