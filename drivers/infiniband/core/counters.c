// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Per-port hardware counters.  A provider with alloc_hw_port_stats() gets
 * one rdma_hw_stats block per port at registration; the core owns the
 * blocks and frees them at unregistration.  Readers (nldev's STAT_GET and
 * the hw_counters files in sysfs) go through rdma_counters_refresh(), which
 * asks the provider for fresh values at most once per lifespan.
 *
 * Lifetime: the blocks live from rdma_counters_init() (registration, before
 * the device is visible) to rdma_counters_release() (teardown, after every
 * registration reference is gone), so a reader that holds a registration
 * reference may use them without further pinning.
 *
 * Locking: rdma_hw_stats.lock (a mutex) serialises a refresh with other
 * refreshes and with switching optional counters on or off; the values
 * are read under it too.
 */
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/**
 * rdma_counters_init() - allocate the counter blocks of every port
 * @device: a device being registered
 *
 * Context: process context; sleeps.
 * Return: 0 (also for providers without counters), or -ENOMEM.
 */
int rdma_counters_init(struct ib_device *device)
{
	u32 port;

	if (!device->ops.alloc_hw_port_stats || !device->ops.get_hw_stats)
		return 0;

	rdma_for_each_port(device, port) {
		struct rdma_hw_stats *stats;

		stats = device->ops.alloc_hw_port_stats(device, port);
		if (!stats) {
			rdma_counters_release(device);
			return -ENOMEM;
		}
		device->port_data[port].hw_stats = stats;
	}
	return 0;
}

/**
 * rdma_counters_release() - free what rdma_counters_init() allocated
 * @device: a device being torn down (or whose registration failed)
 *
 * Context: process context.
 */
void rdma_counters_release(struct ib_device *device)
{
	u32 port;

	if (!device->port_data)
		return;
	rdma_for_each_port(device, port) {
		rdma_free_hw_stats_struct(device->port_data[port].hw_stats);
		device->port_data[port].hw_stats = NULL;
	}
}

/**
 * rdma_counters_port() - the counter block of a port
 * @device: a registered device
 * @port: a valid port
 *
 * Return: the block, or NULL if the provider has no port counters.
 */
struct rdma_hw_stats *rdma_counters_port(struct ib_device *device, u32 port)
{
	return device->port_data[port].hw_stats;
}

/**
 * rdma_counters_refresh() - bring a port's counter values up to date
 * @device: a registered device
 * @port: the port the block belongs to
 * @stats: its block, from rdma_counters_port()
 *
 * The caller holds @stats->lock.  Values younger than the block's
 * lifespan are kept.
 *
 * Return: 0, or the provider's negative errno (the old values stay).
 */
int rdma_counters_refresh(struct ib_device *device, u32 port,
			  struct rdma_hw_stats *stats)
{
	int ret;

	lockdep_assert_held(&stats->lock);
	if (stats->timestamp &&
	    time_before(jiffies, stats->timestamp + stats->lifespan))
		return 0;
	ret = device->ops.get_hw_stats(device, stats, port,
				       stats->num_counters);
	if (ret < 0)
		return ret;
	stats->timestamp = jiffies;
	return 0;
}
