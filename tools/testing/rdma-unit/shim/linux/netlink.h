/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: the kernel half of <linux/netlink.h> that the kernel's
 * own <net/netlink.h> and lib/nlattr.c need: extended ACK reporting and the
 * socket-level calls (declared only; nothing under test sends anything).
 */
#ifndef _SHIM_LINUX_NETLINK_H
#define _SHIM_LINUX_NETLINK_H

#include <stdio.h>
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/skbuff.h>
#include <uapi/linux/netlink.h>

struct net;
struct sock;
struct nla_policy;

#define NETLINK_MAX_COOKIE_LEN	20
#define NETLINK_MAX_FMTMSG_LEN	80

/* Why a request was refused, for the error acknowledgment. */
struct netlink_ext_ack {
	const char *_msg;
	const struct nlattr *bad_attr;
	const struct nla_policy *policy;
	const struct nlattr *miss_nest;
	u16 miss_type;
	u8 cookie[NETLINK_MAX_COOKIE_LEN];
	u8 cookie_len;
	char _msg_buf[NETLINK_MAX_FMTMSG_LEN];
};

#define NL_SET_ERR_MSG(extack, msg) do {				\
	struct netlink_ext_ack *__ack = (extack);			\
	if (__ack)							\
		__ack->_msg = (msg);					\
} while (0)
#define NL_SET_ERR_MSG_MOD(extack, msg)	NL_SET_ERR_MSG(extack, msg)
#define NL_SET_ERR_MSG_FMT(extack, fmt, ...) do {			\
	struct netlink_ext_ack *__ack = (extack);			\
	if (__ack) {							\
		snprintf(__ack->_msg_buf, NETLINK_MAX_FMTMSG_LEN,	\
			 fmt, ##__VA_ARGS__);				\
		__ack->_msg = __ack->_msg_buf;				\
	}								\
} while (0)
#define NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ...)			\
	NL_SET_ERR_MSG_FMT(extack, fmt, ##__VA_ARGS__)
#define NL_SET_BAD_ATTR_POLICY(extack, attr, pol) do {			\
	struct netlink_ext_ack *__ack = (extack);			\
	if (__ack) {							\
		__ack->bad_attr = (attr);				\
		__ack->policy = (pol);					\
	}								\
} while (0)
#define NL_SET_BAD_ATTR(extack, attr)	NL_SET_BAD_ATTR_POLICY(extack, attr, NULL)
#define NL_SET_ERR_MSG_ATTR_POL(extack, attr, pol, msg) do {		\
	NL_SET_ERR_MSG(extack, msg);					\
	NL_SET_BAD_ATTR_POLICY(extack, attr, pol);			\
} while (0)
#define NL_SET_ERR_MSG_ATTR_POL_FMT(extack, attr, pol, fmt, ...) do {	\
	NL_SET_ERR_MSG_FMT(extack, fmt, ##__VA_ARGS__);			\
	NL_SET_BAD_ATTR_POLICY(extack, attr, pol);			\
} while (0)
#define NL_SET_ERR_MSG_ATTR(extack, attr, msg)				\
	NL_SET_ERR_MSG_ATTR_POL(extack, attr, NULL, msg)

/* A dump in progress: only the fields <net/netlink.h> reads. */
struct netlink_callback {
	struct sk_buff *skb;
	const struct nlmsghdr *nlh;
	unsigned int prev_seq, seq;
};

#ifndef MSG_DONTWAIT
#define MSG_DONTWAIT	0x40
#endif

struct netlink_skb_parms {
	u32 portid;
	u32 dst_group;
};

#define NETLINK_CB(skb)		(*(struct netlink_skb_parms *)&((skb)->cb))

typedef int (*netlink_filter_fn)(struct sock *dsk, struct sk_buff *skb, void *data);

int netlink_unicast(struct sock *ssk, struct sk_buff *skb, u32 portid, int nonblock);
int netlink_broadcast_filtered(struct sock *ssk, struct sk_buff *skb, u32 portid,
			       u32 group, gfp_t allocation, netlink_filter_fn filter,
			       void *filter_data);
int netlink_broadcast(struct sock *ssk, struct sk_buff *skb, u32 portid,
		      u32 group, gfp_t allocation);
struct sk_buff *netlink_alloc_large_skb(unsigned int size, int broadcast);
struct nlmsghdr *__nlmsg_put(struct sk_buff *skb, u32 portid, u32 seq,
			     int type, int len, int flags);
void consume_skb(struct sk_buff *skb);
int nlmsg_notify(struct sock *sk, struct sk_buff *skb, u32 portid,
		 unsigned int group, int report, gfp_t flags);

#endif
