// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_resolve_ip() and rdma_addr_cancel(), the RDMA CM's address step, on
 * the netdev of the rxe device under test: the module's own addresses
 * resolve to the netdev itself, an on-link address nobody has times out
 * waiting for its neighbour, a cancelled request is never called back,
 * and bad requests are refused.
 */
#include <linux/inet.h>
#include <linux/slab.h>
#include <net/net_namespace.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "rdma_rxe_loop.h"

/* On the module's 10.13.0.0/24, owned by nobody. */
#define AT_NOBODY	htonl(0x0a0d00fa)

/**
 * struct at_req - one request and what its callback saw
 * @addr: the request's result and handle
 * @src: the source address to ask for, then the one the callback got
 * @done: completed by the callback
 * @calls: callback calls
 * @status: the status it got
 */
struct at_req {
	struct rdma_dev_addr	addr;
	struct sockaddr_storage	src;
	struct completion	done;
	atomic_t		calls;
	int			status;
};

static void at_callback(int status, struct sockaddr *src,
			struct rdma_dev_addr *addr, void *context)
{
	struct at_req *r = context;

	r->status = status;
	memcpy(&r->src, src, rdma_addr_size(src));
	atomic_inc(&r->calls);
	complete(&r->done);
}

static void at_init(struct at_req *r)
{
	memset(r, 0, sizeof(*r));
	r->addr.net = &init_net;
	init_completion(&r->done);
}

/* A new request, set up; NULL (and a failed check) without memory. */
static struct at_req *at_alloc(struct rdma_ktap_ctx *ctx)
{
	struct at_req *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!RDMA_KT_EXPECT(ctx, r, "no memory"))
		return NULL;
	at_init(r);
	return r;
}

static void at_sin(struct sockaddr_storage *ss, __be32 a)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = a;
}

static void at_sin6(struct sockaddr_storage *ss, const struct in6_addr *a)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_addr = *a;
}

/* Start @r towards @dst and wait for its callback; false on no callback. */
static bool at_resolve(struct rdma_ktap_ctx *ctx, struct at_req *r,
		       struct sockaddr_storage *dst, bool with_src,
		       unsigned long timeout_ms, bool by_gid_attr)
{
	int ret;

	ret = rdma_resolve_ip(with_src ? (struct sockaddr *)&r->src : NULL,
			      (struct sockaddr *)dst, &r->addr, timeout_ms,
			      at_callback, by_gid_attr, r);
	if (!RDMA_KT_EQ(ctx, ret, 0))
		return false;
	return RDMA_KT_EXPECT(ctx, wait_for_completion_timeout(&r->done,
				msecs_to_jiffies(timeout_ms + 5000)),
			      "no callback");
}

/* @r resolved a local destination @dst on the device's netdev. */
static void at_expect_local(struct rdma_ktap_ctx *ctx, struct at_req *r,
			    struct sockaddr_storage *dst)
{
	if (!RDMA_KT_EQ(ctx, r->status, 0))
		return;
	RDMA_KT_EQ(ctx, atomic_read(&r->calls), 1);
	RDMA_KT_EQ(ctx, r->addr.bound_dev_if, lt_ndev->ifindex);
	RDMA_KT_EQ(ctx, r->addr.dev_type, lt_ndev->type);
	RDMA_KT_EQ(ctx, r->addr.network, RDMA_NETWORK_IB);
	RDMA_KT_EXPECT(ctx, r->addr.hoplimit > 0, "hop limit %d",
		       r->addr.hoplimit);
	RDMA_KT_EXPECT(ctx, ether_addr_equal(r->addr.src_dev_addr,
					     lt_ndev->dev_addr) &&
		       ether_addr_equal(r->addr.dst_dev_addr,
					lt_ndev->dev_addr),
		       "MACs %pM -> %pM, the netdev's is %pM",
		       r->addr.src_dev_addr, r->addr.dst_dev_addr,
		       lt_ndev->dev_addr);
	/* the source the route picked: the address itself */
	RDMA_KT_EXPECT(ctx, rdma_addr_size((struct sockaddr *)&r->src) &&
		       !memcmp(&r->src, dst,
			       rdma_addr_size((struct sockaddr *)dst)),
		       "source %pISc for %pISc", &r->src, dst);
}

/* The module's IPv4 and IPv6 addresses, with and without a source. */
void addr_resolve_local(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage dst;
	struct at_req *r;

	r = at_alloc(ctx);
	if (!r)
		return;
	at_sin(&dst, LT_ADDR4);
	if (at_resolve(ctx, r, &dst, false, 2000, false))
		at_expect_local(ctx, r, &dst);

	at_init(r);
	at_sin(&r->src, LT_ADDR4);
	if (at_resolve(ctx, r, &dst, true, 2000, false))
		at_expect_local(ctx, r, &dst);

	at_init(r);
	at_sin6(&dst, &lt_addr6);
	if (at_resolve(ctx, r, &dst, false, 2000, false))
		at_expect_local(ctx, r, &dst);
	kfree(r);
}

/* From the netdev of a GID entry rather than from addr->net. */
void addr_resolve_by_gid_attr(struct rdma_ktap_ctx *ctx)
{
	const struct ib_gid_attr *sgid;
	struct sockaddr_storage dst;
	struct at_req *r;

	sgid = rdma_get_gid_attr(lt_dev, 1, lt_idx4);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(sgid), "GID %d: %ld", lt_idx4,
			    PTR_ERR(sgid)))
		return;
	r = at_alloc(ctx);
	if (r) {
		r->addr.net = NULL;	/* not used that way */
		r->addr.sgid_attr = sgid;
		at_sin(&dst, LT_ADDR4);
		if (at_resolve(ctx, r, &dst, false, 2000, true))
			at_expect_local(ctx, r, &dst);
		/* and without an entry there is nothing to resolve from */
		at_init(r);
		if (at_resolve(ctx, r, &dst, false, 2000, true))
			RDMA_KT_EQ(ctx, r->status, -EINVAL);
		kfree(r);
	}
	rdma_put_gid_attr(sgid);
}

/* Requests refused at once, and a destination with no route. */
void addr_resolve_errors(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage src, dst;
	struct at_req *r;

	r = at_alloc(ctx);
	if (!r)
		return;
	at_sin(&dst, LT_ADDR4);
	at_sin6(&src, &lt_addr6);
	RDMA_KT_EQ(ctx, rdma_resolve_ip((struct sockaddr *)&src,
					(struct sockaddr *)&dst, &r->addr,
					1000, at_callback, false, r), -EINVAL);
	dst.ss_family = AF_IB;
	RDMA_KT_EQ(ctx, rdma_resolve_ip(NULL, (struct sockaddr *)&dst,
					&r->addr, 1000, at_callback, false, r),
		   -EINVAL);
	RDMA_KT_EQ(ctx, atomic_read(&r->calls), 0);

	/* a source the host does not have */
	at_sin(&r->src, htonl(0xc6336401));
	at_sin(&dst, LT_ADDR4);
	if (at_resolve(ctx, r, &dst, true, 1000, false))
		RDMA_KT_EXPECT(ctx, r->status < 0, "resolved from 198.51.100.1");

	/* bound to a netdev that does not exist */
	at_init(r);
	r->addr.bound_dev_if = INT_MAX;
	if (at_resolve(ctx, r, &dst, false, 1000, false))
		RDMA_KT_EXPECT(ctx, r->status < 0 && r->status != -ETIMEDOUT,
			       "status %d", r->status);
	kfree(r);
}

/* An on-link address nobody answers ARP for: -ETIMEDOUT, not sooner. */
void addr_resolve_timeout(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage dst;
	unsigned long t0;
	struct at_req *r;

	r = at_alloc(ctx);
	if (!r)
		return;
	at_sin(&dst, AT_NOBODY);
	t0 = jiffies;
	if (at_resolve(ctx, r, &dst, false, 300, false)) {
		RDMA_KT_EQ(ctx, r->status, -ETIMEDOUT);
		RDMA_KT_EXPECT(ctx, time_after_eq(jiffies,
						  t0 + msecs_to_jiffies(300)),
			       "gave up after %u ms",
			       jiffies_to_msecs(jiffies - t0));
		RDMA_KT_EQ(ctx, atomic_read(&r->calls), 1);
	}
	/* called back once: cancelling now does nothing */
	rdma_addr_cancel(&r->addr);
	RDMA_KT_EQ(ctx, atomic_read(&r->calls), 1);
	kfree(r);
}

/* A request cancelled while it waits is never called back. */
void addr_resolve_cancel(struct rdma_ktap_ctx *ctx)
{
	struct sockaddr_storage dst;
	struct at_req *r;
	unsigned int i;

	r = kcalloc(4, sizeof(*r), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, r, "no memory"))
		return;
	at_sin(&dst, AT_NOBODY);
	for (i = 0; i < 4; i++) {
		at_init(&r[i]);
		RDMA_KT_EQ(ctx, rdma_resolve_ip(NULL, (struct sockaddr *)&dst,
						&r[i].addr, 60000, at_callback,
						false, &r[i]), 0);
	}
	msleep(100);
	/* out of order, the last one at once */
	rdma_addr_cancel(&r[2].addr);
	rdma_addr_cancel(&r[0].addr);
	rdma_addr_cancel(&r[3].addr);
	rdma_addr_cancel(&r[1].addr);
	msleep(100);
	for (i = 0; i < 4; i++)
		RDMA_KT_EQ(ctx, atomic_read(&r[i].calls), 0);
	kfree(r);
}
