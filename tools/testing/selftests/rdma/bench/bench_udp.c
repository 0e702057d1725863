// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: the raw UDP limit of the testbed, no RDMA involved.
 *
 * Both ends use the UDP tunnel helpers soft-RoCE is built on, so what is
 * measured is the path rxe's packets take minus the RDMA work.  The
 * receiver is a kernel UDP socket set up as a UDP tunnel socket: each
 * datagram reaches encap_rcv in softirq context after the UDP checksum
 * check, is counted in the same receive counters as RDMA messages and
 * freed.  The sender builds one skb per datagram and hands it to
 * udp_tunnel_xmit_skb() (see bench_udp_send()).  The rate the receiver
 * counts is the most datagrams of that size the two guests can move per
 * second: the ceiling for soft-RoCE's UD rate.
 */
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/net.h>
#include <linux/netdevice.h>
#include <linux/sched/signal.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "bench.h"

static int bench_udp_rcv(struct sock *sk, struct sk_buff *skb)
{
	struct bench_ctx *c = rcu_dereference_sk_user_data(sk);

	if (c)
		bench_stats_add(c, skb->len - sizeof(struct udphdr));
	consume_skb(skb);
	return 0;
}

/**
 * bench_udp_listen() - the "udp_listen" command
 * @c: the instance, without a listening socket
 * @a: port
 * @res: result: port=
 * @len: size of @res
 *
 * Return: 0, -EBUSY when already listening, -EINVAL for port 0, or the
 * socket's error.
 */
int bench_udp_listen(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len)
{
	struct udp_port_cfg cfg = {
		.family = AF_INET,
		.local_ip.s_addr = htonl(INADDR_ANY),
	};
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = c,
		.encap_type = 1,
		.encap_rcv = bench_udp_rcv,
	};
	struct socket *sock;
	int ret;

	if (c->udp_rx)
		return -EBUSY;
	if (!a->port || a->port > U16_MAX)
		return -EINVAL;
	cfg.local_udp_port = htons(a->port);
	ret = udp_sock_create(&init_net, &cfg, &sock);
	if (ret)
		return ret;
	setup_udp_tunnel_sock(&init_net, sock, &tcfg);
	c->udp_rx = sock;
	snprintf(res, len, "port=%u", a->port);
	return 0;
}

/**
 * bench_udp_close() - close the listening socket, if any
 * @c: the instance
 *
 * Waits for a grace period, so that no encap_rcv still runs once it
 * returns.
 */
void bench_udp_close(struct bench_ctx *c)
{
	if (!c->udp_rx)
		return;
	udp_tunnel_sock_release(c->udp_rx);
	c->udp_rx = NULL;
	synchronize_net();
}

/**
 * bench_udp_close_cmd() - the "udp_close" command
 * @c: the instance
 * @a: unused
 * @res: result: "closed"
 * @len: size of @res
 *
 * Return: 0.
 */
int bench_udp_close_cmd(struct bench_ctx *c, const struct bench_args *a,
			char *res, size_t len)
{
	bench_udp_close(c);
	snprintf(res, len, "closed");
	return 0;
}

/* One datagram of @a->size zero bytes to @rt's destination; may block. */
static int bench_udp_xmit_one(struct sock *sk, struct rtable *rt,
			      __be32 saddr, const struct bench_args *a)
{
	unsigned int hlen = LL_RESERVED_SPACE(rt->dst.dev) +
			    sizeof(struct iphdr) + sizeof(struct udphdr);
	struct sk_buff *skb;
	int err;

	/* Charged to the socket until the NIC frees it: flow control. */
	skb = sock_alloc_send_skb(sk, hlen + a->size, 0, &err);
	if (!skb)
		return err;
	skb_reserve(skb, hlen);
	skb_put_zero(skb, a->size);
	dst_hold(&rt->dst);
	udp_tunnel_xmit_skb(rt, sk, skb, saddr, a->dip4, 0, 64, htons(IP_DF),
			    htons(a->port), htons(a->port), false, false);
	return 0;
}

/**
 * bench_udp_send() - the "udp_send" command
 * @c: the instance (unused: no RDMA device is needed)
 * @a: dest (IPv4), port, secs, size
 * @res: result: sent= errors= ns= rate= (datagrams per second)
 * @len: size of @res
 *
 * The datagrams leave the way soft-RoCE's do: an skb per datagram with
 * room for the headers, udp_tunnel_xmit_skb() on a route looked up once.
 * Each skb is charged to a kernel UDP socket until the NIC has sent it, so
 * the sender waits when the socket's send buffer is full instead of
 * filling the queues only to have the datagrams dropped.
 *
 * Return: 0, -EINVAL for bad arguments, the socket's or the route's
 * error, or -EIO if no datagram could be sent.
 */
int bench_udp_send(struct bench_ctx *c, const struct bench_args *a,
		   char *res, size_t len)
{
	struct udp_port_cfg cfg = {
		.family = AF_INET,
		.local_ip.s_addr = htonl(INADDR_ANY),
	};
	u64 t0, now, end, sent = 0, errors = 0;
	struct flowi4 fl4 = {};
	struct socket *sock;
	struct rtable *rt;
	int ret;

	if (!a->has_dest || !a->dest_is_v4 || !a->port || a->port > U16_MAX ||
	    !a->secs || !a->size || a->size > SZ_32K)
		return -EINVAL;
	ret = udp_sock_create(&init_net, &cfg, &sock);
	if (ret)
		return ret;
	fl4.daddr = a->dip4;
	fl4.flowi4_proto = IPPROTO_UDP;
	rt = ip_route_output_key(&init_net, &fl4);
	if (IS_ERR(rt)) {
		ret = PTR_ERR(rt);
		goto out_release;
	}

	t0 = ktime_get_ns();
	end = t0 + (u64)a->secs * NSEC_PER_SEC;
	do {
		if (bench_udp_xmit_one(sock->sk, rt, fl4.saddr, a))
			errors++;
		else
			sent++;
		cond_resched();
		now = ktime_get_ns();
	} while (now < end && !fatal_signal_pending(current));
	ip_rt_put(rt);
	ret = sent ? 0 : -EIO;
	snprintf(res, len, "sent=%llu errors=%llu ns=%llu rate=%llu", sent,
		 errors, now - t0,
		 mul_u64_u64_div_u64(sent, NSEC_PER_SEC, max_t(u64, now - t0, 1)));
out_release:
	udp_tunnel_sock_release(sock);
	return ret;
}
