// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The statistics commands of nldev ("rdma statistic"): the hardware
 * counters of a port (counters.c) and the switching of optional counters.
 *
 * QP counter objects (binding QPs to counters by hand or automatically)
 * are not implemented: the mode query answers "none", the list of bound
 * counters is empty, turning automatic binding off succeeds (it is off),
 * and asking for a binding is -EOPNOTSUPP.
 *
 * Every handler pins the device with a registration reference, so its
 * counter blocks exist while they are read (see counters.c).
 */
#include <linux/bitops.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"
#include "nldev_priv.h"

/*
 * The device and port a statistics request names, pinned and checked.
 * Returns the device or NULL with @extack and *@err set.
 */
static struct ib_device *stat_get_port(struct sk_buff *skb, struct nlattr **tb,
				       u32 *port, int *err,
				       struct netlink_ext_ack *extack)
{
	struct ib_device *device;

	device = nldev_get_device(skb, tb, extack);
	if (!device) {
		*err = -EINVAL;
		return NULL;
	}
	*err = nldev_get_port(device, tb, extack, port);
	if (*err) {
		ib_device_put(device);
		return NULL;
	}
	return device;
}

/* Counter objects exist for QPs only; anything else is a bad request. */
static int stat_check_res(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	struct nlattr *res = tb[RDMA_NLDEV_ATTR_STAT_RES];

	if (res && nla_get_u32(res) != RDMA_NLDEV_ATTR_RES_QP) {
		NL_SET_ERR_MSG_ATTR(extack, res, "Only QP counters exist");
		return -EINVAL;
	}
	return 0;
}

static int stat_put_counter(struct sk_buff *msg, const char *name, u64 value)
{
	struct nlattr *entry;

	entry = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	if (!entry)
		return -EMSGSIZE;
	if (nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
			   name) ||
	    nla_put_u64_64bit(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE,
			      value, RDMA_NLDEV_ATTR_PAD)) {
		nla_nest_cancel(msg, entry);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, entry);
	return 0;
}

/**
 * rdma_nl_stat_hwcounter_entry() - add one named counter to a reply
 * @msg: the message being built, inside an RDMA_NLDEV_ATTR_STAT_HWCOUNTERS
 *	nest
 * @name: the counter's name
 * @value: its value
 *
 * For providers that report per-object counters (fill_stat_*_entry).
 *
 * Return: 0, or -EMSGSIZE if @msg is full.
 */
int rdma_nl_stat_hwcounter_entry(struct sk_buff *msg, const char *name,
				 u64 value)
{
	return stat_put_counter(msg, name, value);
}
EXPORT_SYMBOL(rdma_nl_stat_hwcounter_entry);

/* The enabled counters of a port, refreshed, into @msg. */
static int stat_fill_port_counters(struct sk_buff *msg,
				   struct ib_device *device, u32 port,
				   struct rdma_hw_stats *stats)
{
	struct nlattr *table;
	int i, err;

	mutex_lock(&stats->lock);
	err = rdma_counters_refresh(device, port, stats);
	if (err)
		goto out;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table) {
		err = -EMSGSIZE;
		goto out;
	}
	for (i = 0; i < stats->num_counters; i++) {
		if (test_bit(i, stats->is_disabled))
			continue;
		err = stat_put_counter(msg, stats->descs[i].name,
				       stats->value[i]);
		if (err) {
			nla_nest_cancel(msg, table);
			goto out;
		}
	}
	nla_nest_end(msg, table);
out:
	mutex_unlock(&stats->lock);
	return err;
}

/* The QP counter mode of a port: always "none" (no counter objects). */
static int stat_fill_mode(struct sk_buff *msg, struct ib_device *device,
			  u32 port, struct rdma_hw_stats *stats)
{
	if (nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_MODE, RDMA_COUNTER_MODE_NONE))
		return -EMSGSIZE;
	return 0;
}

/*
 * Builds and sends the reply to a STAT command about one port: the
 * device's handle, the port index, then what @fill adds (the counters, their
 * status or the counter mode).  Consumes the caller's reference on @device
 * whatever happens.
 */
static int stat_port_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
			   u32 cmd, struct ib_device *device, u32 port,
			   struct rdma_hw_stats *stats,
			   int (*fill)(struct sk_buff *msg,
				       struct ib_device *device, u32 port,
				       struct rdma_hw_stats *stats))
{
	struct nlmsghdr *reply_nlh;
	struct sk_buff *msg;
	int err;

	msg = nldev_new_reply(skb, nlh, cmd, &reply_nlh);
	if (!msg) {
		ib_device_put(device);
		return -ENOMEM;
	}
	err = nldev_fill_handle(msg, device);
	if (!err && nla_put_u32(msg, RDMA_NLDEV_ATTR_PORT_INDEX, port))
		err = -EMSGSIZE;
	if (!err)
		err = fill(msg, device, port, stats);
	ib_device_put(device);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return nldev_send_reply(skb, msg, reply_nlh);
}

/**
 * nldev_stat_get_doit() - STAT_GET for one port
 * @skb: the request
 * @nlh: its header
 * @extack: error report
 *
 * Without STAT_RES: the port's enabled hardware counters ("rdma statistic
 * show link DEV/PORT").  With STAT_RES and STAT_MODE: the QP counter mode.
 * With a counter id: no such counter.
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP if the provider has no port
 * counters.
 */
int nldev_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_hw_stats *stats = NULL;
	struct ib_device *device;
	bool mode_query;
	u32 port;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_STAT_GET, false, tb,
				  extack);
	if (err)
		return err;
	err = stat_check_res(tb, extack);
	if (err)
		return err;
	device = stat_get_port(skb, tb, &port, &err, extack);
	if (!device)
		return err;

	if (tb[RDMA_NLDEV_ATTR_STAT_RES]) {
		if (tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID]) {
			NL_SET_ERR_MSG_ATTR(extack,
					    tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID],
					    "No such counter");
			err = -ENOENT;
			goto out;
		}
		if (!tb[RDMA_NLDEV_ATTR_STAT_MODE]) {
			NL_SET_ERR_MSG(extack, "Counter mode or id is missing");
			err = -EINVAL;
			goto out;
		}
		mode_query = true;
	} else {
		stats = rdma_counters_port(device, port);
		if (!stats) {
			NL_SET_ERR_MSG(extack, "The device has no port counters");
			err = -EOPNOTSUPP;
			goto out;
		}
		mode_query = false;
	}
	return stat_port_reply(skb, nlh, RDMA_NLDEV_CMD_STAT_GET, device, port,
			       stats, mode_query ? stat_fill_mode :
			       stat_fill_port_counters);

out:
	ib_device_put(device);
	return err;
}

/**
 * nldev_stat_get_dumpit() - STAT_GET dump: the counter objects of a port
 * @skb: the reply being built
 * @cb: the dump state
 *
 * The request names a device, a port and STAT_RES.  No counter objects
 * exist, so after the checks the dump is empty.
 *
 * Return: the length of @skb (0: done) or a negative errno.
 */
int nldev_stat_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct netlink_ext_ack *extack = cb->extack;
	struct ib_device *device;
	u32 port;
	int err;

	err = nldev_parse_request(cb->nlh, RDMA_NLDEV_CMD_STAT_GET, true, tb,
				  extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_STAT_RES]) {
		NL_SET_ERR_MSG(extack, "Counter object type is missing");
		return -EINVAL;
	}
	if (nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_RES]) == RDMA_NLDEV_ATTR_RES_MR)
		return 0;	/* no provider here reports MR counters */
	err = stat_check_res(tb, extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_DEV_INDEX] || !tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		NL_SET_ERR_MSG(extack, "Device and port index are required");
		return -EINVAL;
	}
	device = stat_get_port(cb->skb, tb, &port, &err, extack);
	if (!device)
		return err;
	ib_device_put(device);
	return 0;
}

/* Switch the optional counters: those listed in @list on, the others off. */
static int stat_set_optional(struct ib_device *device, u32 port,
			     struct nlattr *list, struct netlink_ext_ack *extack)
{
	struct rdma_hw_stats *stats = rdma_counters_port(device, port);
	unsigned long *want;
	struct nlattr *entry;
	int rem, i, err = 0;

	if (!stats || !device->ops.modify_hw_stat) {
		NL_SET_ERR_MSG(extack, "The device has no optional counters");
		return -EOPNOTSUPP;
	}
	want = bitmap_zalloc(stats->num_counters, GFP_KERNEL);
	if (!want)
		return -ENOMEM;

	nla_for_each_nested(entry, list, rem) {
		u32 index;

		if (nla_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX ||
		    nla_len(entry) != sizeof(u32)) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "Expected a list of counter indices");
			err = -EINVAL;
			goto out;
		}
		index = nla_get_u32(entry);
		if (index >= stats->num_counters ||
		    !(stats->descs[index].flags & IB_STAT_FLAG_OPTIONAL)) {
			NL_SET_ERR_MSG_ATTR(extack, entry,
					    "Not an optional counter");
			err = -EINVAL;
			goto out;
		}
		__set_bit(index, want);
	}

	mutex_lock(&stats->lock);
	for (i = 0; i < stats->num_counters && !err; i++) {
		bool on = test_bit(i, want);

		if (!(stats->descs[i].flags & IB_STAT_FLAG_OPTIONAL) ||
		    on == !test_bit(i, stats->is_disabled))
			continue;
		err = device->ops.modify_hw_stat(device, port, i, on);
		if (!err)
			assign_bit(i, stats->is_disabled, !on);
	}
	mutex_unlock(&stats->lock);
out:
	bitmap_free(want);
	return err;
}

/**
 * nldev_stat_set_doit() - STAT_SET: optional counters and QP counter mode
 * @skb: the request
 * @nlh: its header
 * @extack: error report
 *
 * A STAT_HWCOUNTERS list of indices switches the optional counters.  A
 * QP counter mode of "auto" with an empty mask (automatic binding off) is
 * accepted as it is the state; any binding is -EOPNOTSUPP.
 *
 * Return: 0 or a negative errno.
 */
int nldev_stat_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	struct nlattr *mode;
	u32 port;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_STAT_SET, false, tb,
				  extack);
	if (err)
		return err;
	err = stat_check_res(tb, extack);
	if (err)
		return err;
	device = stat_get_port(skb, tb, &port, &err, extack);
	if (!device)
		return err;

	mode = tb[RDMA_NLDEV_ATTR_STAT_MODE];
	if (tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS]) {
		err = stat_set_optional(device, port,
					tb[RDMA_NLDEV_ATTR_STAT_HWCOUNTERS],
					extack);
	} else if (!mode || !tb[RDMA_NLDEV_ATTR_STAT_RES]) {
		NL_SET_ERR_MSG(extack, "Nothing to set");
		err = -EINVAL;
	} else if (nla_get_u32(mode) == RDMA_COUNTER_MODE_AUTO &&
		   tb[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK] &&
		   !nla_get_u32(tb[RDMA_NLDEV_ATTR_STAT_AUTO_MODE_MASK])) {
		err = 0;
	} else if (nla_get_u32(mode) == RDMA_COUNTER_MODE_AUTO ||
		   nla_get_u32(mode) == RDMA_COUNTER_MODE_MANUAL) {
		NL_SET_ERR_MSG_ATTR(extack, mode,
				    "QP counter binding is not supported");
		err = -EOPNOTSUPP;
	} else {
		NL_SET_ERR_MSG_ATTR(extack, mode, "Unknown counter mode");
		err = -EINVAL;
	}
	ib_device_put(device);
	return err;
}

/**
 * nldev_stat_del_doit() - STAT_DEL: unbind a QP from a counter
 * @skb: the request
 * @nlh: its header
 * @extack: error report
 *
 * No counter objects exist, so a well-formed request names no counter.
 *
 * Return: -EINVAL for a malformed request, -ENOENT otherwise.
 */
int nldev_stat_del_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct ib_device *device;
	u32 port;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_STAT_DEL, false, tb,
				  extack);
	if (err)
		return err;
	err = stat_check_res(tb, extack);
	if (err)
		return err;
	if (!tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID] ||
	    !tb[RDMA_NLDEV_ATTR_RES_LQPN]) {
		NL_SET_ERR_MSG(extack, "Counter id and QP number are required");
		return -EINVAL;
	}
	device = stat_get_port(skb, tb, &port, &err, extack);
	if (!device)
		return err;
	ib_device_put(device);
	NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_STAT_COUNTER_ID],
			    "No such counter");
	return -ENOENT;
}

/* Every counter of @stats with its index and, if optional, its state. */
static int stat_fill_status(struct sk_buff *msg, struct ib_device *device,
			    u32 port, struct rdma_hw_stats *stats)
{
	struct nlattr *table, *entry;
	int i;

	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	if (!table)
		return -EMSGSIZE;
	mutex_lock(&stats->lock);
	for (i = 0; i < stats->num_counters; i++) {
		const struct rdma_stat_desc *desc = &stats->descs[i];

		entry = nla_nest_start_noflag(msg,
					      RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
		if (!entry)
			goto full;
		if (nla_put_string(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME,
				   desc->name) ||
		    nla_put_u32(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_INDEX, i) ||
		    ((desc->flags & IB_STAT_FLAG_OPTIONAL) &&
		     nla_put_u8(msg, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_DYNAMIC,
				!test_bit(i, stats->is_disabled)))) {
			nla_nest_cancel(msg, entry);
			goto full;
		}
		nla_nest_end(msg, entry);
	}
	mutex_unlock(&stats->lock);
	nla_nest_end(msg, table);
	return 0;

full:
	mutex_unlock(&stats->lock);
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}

/**
 * nldev_stat_get_status_doit() - STAT_GET_STATUS: which counters exist
 * @skb: the request
 * @nlh: its header
 * @extack: error report
 *
 * Lists every counter of the port with its index; optional counters also
 * say whether they are on ("rdma statistic mode supported").
 *
 * Return: 0 or a negative errno; -EOPNOTSUPP without port counters.
 */
int nldev_stat_get_status_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[RDMA_NLDEV_ATTR_MAX];
	struct rdma_hw_stats *stats;
	struct ib_device *device;
	u32 port;
	int err;

	err = nldev_parse_request(nlh, RDMA_NLDEV_CMD_STAT_GET_STATUS, false,
				  tb, extack);
	if (err)
		return err;
	device = stat_get_port(skb, tb, &port, &err, extack);
	if (!device)
		return err;
	stats = rdma_counters_port(device, port);
	if (!stats) {
		NL_SET_ERR_MSG(extack, "The device has no port counters");
		ib_device_put(device);
		return -EOPNOTSUPP;
	}
	return stat_port_reply(skb, nlh, RDMA_NLDEV_CMD_STAT_GET_STATUS,
			       device, port, stats, stat_fill_status);
}
