// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: the raw UDP limit of the testbed, no RDMA involved.
 *
 * The receiver is a kernel UDP socket set up as a UDP tunnel socket, as
 * soft-RoCE's is: each datagram reaches encap_rcv in softirq context after
 * the UDP checksum check, is counted in the same receive counters as RDMA
 * messages and freed.  The sender is a connected kernel UDP socket that
 * sends datagrams of the given size for the given time (kernel_sendmsg,
 * blocking when its send buffer is full).  The rate the receiver counts is
 * the most datagrams of that size the two guests can move per second, the
 * ceiling for soft-RoCE's UD rate.
 */
#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/udp.h>
#include <net/net_namespace.h>
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

/**
 * bench_udp_send() - the "udp_send" command
 * @c: the instance (unused: no RDMA device is needed)
 * @a: dest (IPv4), port, secs, size
 * @res: result: sent= errors= ns= rate= (datagrams per second)
 * @len: size of @res
 *
 * Return: 0, -EINVAL for bad arguments, -ENOMEM, the socket's error, or
 * -EIO if no datagram could be sent.
 */
int bench_udp_send(struct bench_ctx *c, const struct bench_args *a,
		   char *res, size_t len)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	u64 t0, now, end, sent = 0, errors = 0;
	struct socket *sock;
	struct msghdr msg;
	struct kvec iov;
	void *buf;
	int ret;

	if (!a->has_dest || !a->dest_is_v4 || !a->port || a->port > U16_MAX ||
	    !a->secs || !a->size || a->size > SZ_64K - 28)
		return -EINVAL;
	buf = kzalloc(a->size, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	ret = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP,
			       &sock);
	if (ret)
		goto out_free;
	sin.sin_addr.s_addr = a->dip4;
	sin.sin_port = htons(a->port);
	ret = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (ret)
		goto out_release;

	t0 = ktime_get_ns();
	end = t0 + (u64)a->secs * NSEC_PER_SEC;
	do {
		memset(&msg, 0, sizeof(msg));
		iov.iov_base = buf;
		iov.iov_len = a->size;
		if (kernel_sendmsg(sock, &msg, &iov, 1, a->size) == a->size)
			sent++;
		else
			errors++;
		cond_resched();
		now = ktime_get_ns();
	} while (now < end && !fatal_signal_pending(current));
	ret = sent ? 0 : -EIO;
	snprintf(res, len, "sent=%llu errors=%llu ns=%llu rate=%llu", sent,
		 errors, now - t0,
		 mul_u64_u64_div_u64(sent, NSEC_PER_SEC, max_t(u64, now - t0, 1)));
out_release:
	sock_release(sock);
out_free:
	kfree(buf);
	return ret;
}
