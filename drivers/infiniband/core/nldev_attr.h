/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What nldev checks in a request before it looks at any device: the type
 * and size of every attribute (nldev_policy), the attributes each command
 * requires, and the syntax of names.  Pure logic over parsed attributes,
 * kept apart from nldev.c so that it also builds in user space for the
 * unit tests and the fuzzer (tools/testing/rdma-unit).
 */
#ifndef _NLDEV_ATTR_H
#define _NLDEV_ATTR_H

#include <linux/types.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

/*
 * Longest string attribute values, without the terminating NUL; nldev.c
 * checks that they agree with IB_DEVICE_NAME_MAX, IFNAMSIZ, TASK_COMM_LEN
 * and IB_FW_VERSION_NAME_MAX.
 */
#define NLDEV_NAME_LEN		63
#define NLDEV_IFNAME_LEN	15
#define NLDEV_COMM_LEN		15
#define NLDEV_FW_LEN		31

extern const struct nla_policy nldev_policy[RDMA_NLDEV_ATTR_MAX];

int nldev_parse_request(const struct nlmsghdr *nlh, u32 cmd, bool dump,
			struct nlattr **tb, struct netlink_ext_ack *extack);
bool nldev_link_type_valid(const char *type);
bool nldev_dev_name_valid(const char *name);

#endif /* _NLDEV_ATTR_H */
