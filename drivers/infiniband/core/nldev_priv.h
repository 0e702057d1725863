/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the files of the nldev client share: nldev.c (devices, ports,
 * links, system, notifications), nldev_res.c (resource tables) and
 * nldev_stat.c (statistics).  Private to drivers/infiniband/core.
 */
#ifndef _NLDEV_PRIV_H
#define _NLDEV_PRIV_H

#include <net/netlink.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_netlink.h>

#include "nldev_attr.h"

int nldev_fill_handle(struct sk_buff *msg, struct ib_device *device);
struct ib_device *nldev_get_device(struct sk_buff *skb, struct nlattr **tb,
				   struct netlink_ext_ack *extack);
int nldev_get_port(struct ib_device *device, struct nlattr **tb,
		   struct netlink_ext_ack *extack, u32 *port);
bool nldev_show_details(struct nlattr **tb);
struct sk_buff *nldev_new_reply(struct sk_buff *skb, struct nlmsghdr *nlh,
				u32 cmd, struct nlmsghdr **reply_nlh);
int nldev_send_reply(struct sk_buff *skb, struct sk_buff *msg,
		     struct nlmsghdr *reply_nlh);
struct nlmsghdr *nldev_dump_msg(struct sk_buff *skb,
				struct netlink_callback *cb, u32 cmd);

/* nldev_res.c */
int nldev_res_get_obj_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack);
int nldev_res_get_obj_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* nldev_stat.c */
int nldev_stat_get_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack);
int nldev_stat_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int nldev_stat_set_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack);
int nldev_stat_del_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			struct netlink_ext_ack *extack);
int nldev_stat_get_status_doit(struct sk_buff *skb, struct nlmsghdr *nlh,
			       struct netlink_ext_ack *extack);

#endif /* _NLDEV_PRIV_H */
