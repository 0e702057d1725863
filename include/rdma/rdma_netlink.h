/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The kernel side of the RDMA netlink interface (NETLINK_RDMA): how a
 * client (nldev, the IB local services, the iWARP port mapper) hooks its
 * commands into the per-namespace socket, how replies and notifications
 * are sent, and how a provider offers "rdma link add NAME type TYPE".
 *
 * The wire format (commands, attributes, groups) is the user-space ABI in
 * <uapi/rdma/rdma_netlink.h>.
 */
#ifndef _RDMA_NETLINK_H
#define _RDMA_NETLINK_H

#include <linux/list.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <uapi/rdma/rdma_netlink.h>

struct ib_device;
struct net;
struct net_device;

/* Sizes of string attributes that have no natural bound of their own. */
enum {
	RDMA_NLDEV_ATTR_EMPTY_STRING = 1,
	RDMA_NLDEV_ATTR_ENTRY_STRLEN = 16,
	RDMA_NLDEV_ATTR_CHARDEV_TYPE_SIZE = 32,
};

/**
 * struct rdma_nl_cbs - what one operation of a client does
 * @doit: handles a request without NLM_F_DUMP; replies itself (for
 *	instance with rdma_nl_unicast()) and returns 0 or a negative errno,
 *	which becomes the error of the acknowledgment
 * @dump: handles a request with NLM_F_DUMP through the netlink dump
 *	machinery (netlink_dump_start())
 * @flags: RDMA_NL_* flags of enum rdma_nl_flags
 *
 * A client passes an array of these, indexed by operation number, to
 * rdma_nl_register().  An operation with neither callback is refused with
 * -EOPNOTSUPP.
 */
struct rdma_nl_cbs {
	int (*doit)(struct sk_buff *skb, struct nlmsghdr *nlh,
		    struct netlink_ext_ack *extack);
	int (*dump)(struct sk_buff *skb, struct netlink_callback *nlcb);
	u8 flags;
};

/**
 * enum rdma_nl_flags - per-operation flags of struct rdma_nl_cbs
 * @RDMA_NL_ADMIN_PERM: the sender needs CAP_NET_ADMIN
 */
enum rdma_nl_flags {
	RDMA_NL_ADMIN_PERM	= 1 << 0,
};

/*
 * MODULE_ALIAS_RDMA_NETLINK - name a module as the provider of netlink
 * client @_index, so that a request for a client nobody registered yet can
 * load it.  @_val is @_index spelled as a number (an alias must be a
 * literal); the build fails if the two disagree.
 */
#define MODULE_ALIAS_RDMA_NETLINK(_index, _val)				\
	static inline void __maybe_unused rdma_nl_alias_of_##_index(void) \
	{								\
		static_assert((_index) == (_val),			\
			      #_index " is not " #_val);		\
	}								\
	MODULE_ALIAS("rdma-netlink-subsys-" __stringify(_val))

void rdma_nl_register(unsigned int index,
		      const struct rdma_nl_cbs cb_table[]);
void rdma_nl_unregister(unsigned int index);
int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 pid);
int rdma_nl_unicast_wait(struct net *net, struct sk_buff *skb, __u32 pid);
int rdma_nl_multicast(struct net *net, struct sk_buff *skb,
		      unsigned int group, gfp_t flags);
bool rdma_nl_chk_listeners(unsigned int group);

/**
 * struct rdma_link_ops - a link type "rdma link add" can create
 * @list: entry in the core's list of link types (core-owned)
 * @type: the type name user space gives ("rxe", "siw")
 * @newlink: create and register a device called @ibdev_name on top of
 *	@ndev; returns 0 or a negative errno
 *
 * A provider registers its link type with rdma_link_register() at module
 * load and removes it with rdma_link_unregister() before it unloads.  Its
 * module should carry MODULE_ALIAS_RDMA_LINK(type) so that the core can
 * load it on demand.
 */
struct rdma_link_ops {
	struct list_head list;
	const char *type;
	int (*newlink)(const char *ibdev_name, struct net_device *ndev);
};

void rdma_link_register(struct rdma_link_ops *ops);
void rdma_link_unregister(struct rdma_link_ops *ops);

/* Module aliases the core requests: "rdma-link-<type>", "rdma-client-<name>" */
#define MODULE_ALIAS_RDMA_LINK(type) MODULE_ALIAS("rdma-link-" type)
#define MODULE_ALIAS_RDMA_CLIENT(type) MODULE_ALIAS("rdma-client-" type)

#endif /* _RDMA_NETLINK_H */
