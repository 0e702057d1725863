// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The NETLINK_RDMA socket: one kernel socket per network namespace, and
 * the dispatch of requests to the clients that registered with
 * rdma_nl_register().
 *
 * A message type carries the client index in bits 10..15 and the
 * operation in bits 0..9 (RDMA_NL_GET_CLIENT() / RDMA_NL_GET_OP()).  The
 * client's table entry for the operation decides what happens: a request
 * with NLM_F_DUMP starts a netlink dump with the entry's dump() callback,
 * any other request goes to doit().  Entries flagged RDMA_NL_ADMIN_PERM
 * need CAP_NET_ADMIN in the initial user namespace.  Acknowledgments and
 * extack messages are the netlink core's (netlink_rcv_skb()).
 *
 * Locking: each client slot has a rw_semaphore.  rdma_nl_register() and
 * rdma_nl_unregister() take it for write; dispatch holds it for read
 * while doit() runs and while a dump is being started, so a client that
 * unregisters waits for the requests in flight.  A dump that continues
 * after its start (later recvmsg() calls) pins the module of the
 * dispatcher only, so a client in another module must not unload while
 * its dumps may still run.
 *
 * Lifetime of the sockets: created by the pernet init of every namespace
 * (and of the namespaces that exist when ib_core loads), released by the
 * pernet exit.  rdma_nl_init() and rdma_nl_exit() run from the module
 * init and exit of ib_core.
 */
#include <linux/capability.h>
#include <linux/kmod.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/rwsem.h>
#include <net/net_namespace.h>
#include <net/netlink.h>
#include <net/netns/generic.h>
#include <net/sock.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

/* A client slot; @cb_table is indexed by operation, NULL while unused. */
struct rdma_nl_client {
	struct rw_semaphore		sem;
	const struct rdma_nl_cbs	*cb_table;
};

static struct rdma_nl_client rdma_nl_clients[RDMA_NL_NUM_CLIENTS];

/* Per-namespace state: the kernel end of NETLINK_RDMA. */
struct rdma_nl_net {
	struct sock *nl_sock;
};

static unsigned int rdma_nl_net_id;

/* Number of operations client @index may have; 0 for no such client. */
static unsigned int rdma_nl_num_ops(unsigned int index)
{
	switch (index) {
	case RDMA_NL_IWCM:
		return RDMA_NL_IWPM_NUM_OPS;
	case RDMA_NL_LS:
		return RDMA_NL_LS_NUM_OPS;
	case RDMA_NL_NLDEV:
		return RDMA_NLDEV_NUM_OPS;
	default:
		return 0;
	}
}

static struct sock *rdma_nl_sock(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	return rnet->nl_sock;
}

/**
 * rdma_nl_register() - attach a client to the RDMA netlink socket
 * @index: the client, an RDMA_NL_* index (RDMA_NL_NLDEV, ...)
 * @cb_table: its operations, indexed by operation number; must hold an
 *	entry for every operation number the client index allows and stay
 *	valid until rdma_nl_unregister()
 *
 * Context: process context; sleeps.
 */
void rdma_nl_register(unsigned int index,
		      const struct rdma_nl_cbs cb_table[])
{
	struct rdma_nl_client *client;

	if (WARN_ON(!rdma_nl_num_ops(index)))
		return;

	client = &rdma_nl_clients[index];
	down_write(&client->sem);
	WARN_ON(client->cb_table);
	client->cb_table = cb_table;
	up_write(&client->sem);
}
EXPORT_SYMBOL(rdma_nl_register);

/**
 * rdma_nl_unregister() - detach a client from the RDMA netlink socket
 * @index: the index given to rdma_nl_register()
 *
 * Waits for the requests of the client that are being handled; no new
 * request reaches it once this returns.
 *
 * Context: process context; sleeps.
 */
void rdma_nl_unregister(unsigned int index)
{
	struct rdma_nl_client *client;

	if (WARN_ON(!rdma_nl_num_ops(index)))
		return;

	client = &rdma_nl_clients[index];
	down_write(&client->sem);
	client->cb_table = NULL;
	up_write(&client->sem);
}
EXPORT_SYMBOL(rdma_nl_unregister);

/*
 * The client table of @index, with its semaphore held for read; NULL (and
 * not held) if nobody serves @index even after trying to load its module.
 */
static const struct rdma_nl_cbs *rdma_nl_get_client(unsigned int index)
{
	struct rdma_nl_client *client = &rdma_nl_clients[index];

	down_read(&client->sem);
	if (client->cb_table)
		return client->cb_table;
	up_read(&client->sem);

	request_module("rdma-netlink-subsys-%u", index);

	down_read(&client->sem);
	if (client->cb_table)
		return client->cb_table;
	up_read(&client->sem);
	return NULL;
}

static int rdma_nl_rcv_msg(struct sk_buff *skb, struct nlmsghdr *nlh,
			   struct netlink_ext_ack *extack)
{
	unsigned int index = RDMA_NL_GET_CLIENT(nlh->nlmsg_type);
	unsigned int op = RDMA_NL_GET_OP(nlh->nlmsg_type);
	const struct rdma_nl_cbs *table;
	const struct rdma_nl_cbs *cbs;
	int err;

	if (op >= rdma_nl_num_ops(index)) {
		NL_SET_ERR_MSG(extack, "Unknown RDMA netlink client or operation");
		return -EINVAL;
	}

	table = rdma_nl_get_client(index);
	if (!table) {
		NL_SET_ERR_MSG(extack, "RDMA netlink client not available");
		return -EOPNOTSUPP;
	}
	cbs = &table[op];

	/*
	 * As upstream: the capability is required in the initial user
	 * namespace, of the socket's opener and of the sender, in both
	 * namespace modes and whichever namespace the device belongs to.
	 */
	if ((cbs->flags & RDMA_NL_ADMIN_PERM) &&
	    !netlink_capable(skb, CAP_NET_ADMIN)) {
		NL_SET_ERR_MSG(extack, "Operation requires CAP_NET_ADMIN");
		err = -EPERM;
		goto out;
	}

	if (nlh->nlmsg_flags & NLM_F_DUMP) {
		struct netlink_dump_control control = {
			.dump = cbs->dump,
		};

		if (!control.dump) {
			NL_SET_ERR_MSG(extack, "Operation cannot be dumped");
			err = -EOPNOTSUPP;
			goto out;
		}
		err = netlink_dump_start(skb->sk, skb, nlh, &control);
		goto out;
	}

	if (!cbs->doit) {
		NL_SET_ERR_MSG(extack, "Operation not supported");
		err = -EOPNOTSUPP;
		goto out;
	}
	err = cbs->doit(skb, nlh, extack);
out:
	up_read(&rdma_nl_clients[index].sem);
	return err;
}

static void rdma_nl_rcv(struct sk_buff *skb)
{
	netlink_rcv_skb(skb, rdma_nl_rcv_msg);
}

/**
 * rdma_nl_unicast() - send a message to one socket, without waiting
 * @net: the namespace of the socket
 * @skb: the message; consumed in every case
 * @pid: the port id of the receiver
 *
 * Context: any context that may allocate atomically.
 * Return: 0, or a negative errno (-EAGAIN when the receiver is full).
 */
int rdma_nl_unicast(struct net *net, struct sk_buff *skb, u32 pid)
{
	int err;

	err = netlink_unicast(rdma_nl_sock(net), skb, pid, MSG_DONTWAIT);
	return err < 0 ? err : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast);

/**
 * rdma_nl_unicast_wait() - send a message to one socket, waiting for room
 * @net: the namespace of the socket
 * @skb: the message; consumed in every case
 * @pid: the port id of the receiver
 *
 * Context: process context; may sleep.
 * Return: 0, or a negative errno.
 */
int rdma_nl_unicast_wait(struct net *net, struct sk_buff *skb, __u32 pid)
{
	int err;

	err = netlink_unicast(rdma_nl_sock(net), skb, pid, 0);
	return err < 0 ? err : 0;
}
EXPORT_SYMBOL(rdma_nl_unicast_wait);

/**
 * rdma_nl_multicast() - send a message to a multicast group
 * @net: the namespace whose listeners get it
 * @skb: the message; consumed in every case
 * @group: an RDMA_NL_GROUP_* group
 * @flags: allocation flags for the copies
 *
 * Context: any context @flags allow.
 * Return: 0, -ESRCH when nobody listens, or another negative errno.
 */
int rdma_nl_multicast(struct net *net, struct sk_buff *skb,
		      unsigned int group, gfp_t flags)
{
	return nlmsg_multicast(rdma_nl_sock(net), skb, 0, group, flags);
}
EXPORT_SYMBOL(rdma_nl_multicast);

/**
 * rdma_nl_chk_listeners() - does anyone in init_net listen to a group?
 * @group: an RDMA_NL_GROUP_* group
 *
 * Context: any.
 * Return: true if the group has at least one listener.
 */
bool rdma_nl_chk_listeners(unsigned int group)
{
	return rdma_nl_net_listens(&init_net, group);
}
EXPORT_SYMBOL(rdma_nl_chk_listeners);

/*
 * Does any socket of @net listen to @group?  A namespace being dismantled
 * may have lost its socket already (its devices move back to init_net
 * after that): nobody listens there.
 */
bool rdma_nl_net_listens(struct net *net, unsigned int group)
{
	struct sock *sk = rdma_nl_sock(net);

	return sk && netlink_has_listeners(sk, group);
}

static int __net_init rdma_nl_net_init(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);
	struct netlink_kernel_cfg cfg = {
		.input	= rdma_nl_rcv,
		/* "rdma monitor" needs no privilege to listen */
		.flags	= NL_CFG_F_NONROOT_RECV,
	};

	rnet->nl_sock = netlink_kernel_create(net, NETLINK_RDMA, &cfg);
	if (!rnet->nl_sock)
		return -ENOMEM;
	return 0;
}

static void __net_exit rdma_nl_net_exit(struct net *net)
{
	struct rdma_nl_net *rnet = net_generic(net, rdma_nl_net_id);

	netlink_kernel_release(rnet->nl_sock);
	rnet->nl_sock = NULL;
}

static struct pernet_operations rdma_nl_net_ops = {
	.init	= rdma_nl_net_init,
	.exit	= rdma_nl_net_exit,
	.id	= &rdma_nl_net_id,
	.size	= sizeof(struct rdma_nl_net),
};

/**
 * rdma_nl_init() - create the NETLINK_RDMA socket of every namespace
 *
 * Context: module init of ib_core.
 * Return: 0 or a negative errno.
 */
int rdma_nl_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rdma_nl_clients); i++)
		init_rwsem(&rdma_nl_clients[i].sem);

	return register_pernet_subsys(&rdma_nl_net_ops);
}

/**
 * rdma_nl_exit() - release the NETLINK_RDMA sockets
 *
 * Every client must have unregistered.
 *
 * Context: module exit of ib_core.
 */
void rdma_nl_exit(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rdma_nl_clients); i++)
		WARN_ON(rdma_nl_clients[i].cb_table);

	unregister_pernet_subsys(&rdma_nl_net_ops);
}

MODULE_ALIAS_NET_PF_PROTO(PF_NETLINK, NETLINK_RDMA);
