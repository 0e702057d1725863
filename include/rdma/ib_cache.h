/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The core's per-port caches: GID table, P_Key table, port state, LMC and
 * subnet prefix.  Readers never call into the provider; the tables are
 * refreshed by the core on port events (and, for RoCE, from the netdev
 * notifiers).
 *
 * GID entries are handed out as const struct ib_gid_attr pointers that
 * carry a reference: every successful rdma_get_gid_attr(), rdma_find_gid*()
 * or rdma_hold_gid_attr() must be paired with rdma_put_gid_attr().  The
 * lookups take the cache lock with interrupts saved and do not sleep.
 */
#ifndef _IB_CACHE_H
#define _IB_CACHE_H

#include <rdma/ib_verbs.h>

/*
 * GID entries by position: ERR_PTR(-EINVAL) for a bad port or index,
 * ERR_PTR(-ENODATA) for an empty slot.
 */
const struct ib_gid_attr *rdma_get_gid_attr(struct ib_device *device,
					    u32 port_num, int index);
void rdma_hold_gid_attr(const struct ib_gid_attr *attr);
void rdma_put_gid_attr(const struct ib_gid_attr *attr);

/* Copy out the GID at @index: -EINVAL for a bad port/index, -ENOENT if empty. */
int rdma_query_gid(struct ib_device *device, u32 port_num, int index,
		   union ib_gid *gid);

/*
 * Fill @entries with every valid GID of every port; returns how many were
 * written or a negative errno (-EINVAL if @max_entries is too small).
 */
ssize_t rdma_query_gid_table(struct ib_device *device,
			     struct ib_uverbs_gid_entry *entries,
			     size_t max_entries);

/*
 * GID entries by value.  @ndev narrows the match to entries bound to that
 * netdev (NULL matches entries of any netdev).  rdma_find_gid() searches
 * every port; the filter form calls @filter on each candidate of one port
 * and returns the first it accepts.  All return ERR_PTR(-ENOENT) when
 * nothing matches.
 */
const struct ib_gid_attr *rdma_find_gid(struct ib_device *device,
					const union ib_gid *gid,
					enum ib_gid_type gid_type,
					struct net_device *ndev);
const struct ib_gid_attr *rdma_find_gid_by_port(struct ib_device *ib_dev,
						const union ib_gid *gid,
						enum ib_gid_type gid_type,
						u32 port,
						struct net_device *ndev);
const struct ib_gid_attr *
rdma_find_gid_by_filter(struct ib_device *device, const union ib_gid *gid,
			u32 port_num,
			bool (*filter)(const union ib_gid *gid,
				       const struct ib_gid_attr *attr,
				       void *context),
			void *context);

/*
 * What a RoCE GID entry is bound to.  rdma_read_gid_attr_ndev_rcu() must
 * be called under rcu_read_lock() and returns an ERR_PTR() once the entry
 * or its netdev has gone; rdma_read_gid_l2_fields() copies the netdev's
 * VLAN ID (0xffff for none) and MAC address, either pointer may be NULL.
 */
struct net_device *rdma_read_gid_attr_ndev_rcu(const struct ib_gid_attr *attr);
int rdma_read_gid_l2_fields(const struct ib_gid_attr *attr,
			    u16 *vlan_id, u8 *smac);

/* The provider's own data for an entry, from its add_gid() callback. */
void *rdma_read_gid_hw_context(const struct ib_gid_attr *attr);

bool rdma_is_zero_gid(const union ib_gid *gid);

/*
 * The P_Key table.  ib_find_cached_pkey() matches on the 15 key bits and
 * prefers a full-member entry; the _exact form compares all 16 bits.
 */
int ib_get_cached_pkey(struct ib_device *device_handle, u32 port_num,
		       int index, u16 *pkey);
int ib_find_cached_pkey(struct ib_device *device, u32 port_num, u16 pkey,
			u16 *index);
int ib_find_exact_cached_pkey(struct ib_device *device, u32 port_num,
			      u16 pkey, u16 *index);

/* Port state, LMC and subnet prefix as of the last port event. */
int ib_get_cached_port_state(struct ib_device *device, u32 port_num,
			     enum ib_port_state *port_active);
int ib_get_cached_lmc(struct ib_device *device, u32 port_num, u8 *lmc);
void ib_get_cached_subnet_prefix(struct ib_device *device, u32 port_num,
				 u64 *sn_pfx);

#endif /* _IB_CACHE_H */
