// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: UD ping-pong latency.
 *
 * The pinging side sends a datagram carrying a sequence number; the peer
 * (a QP made with echo=1) sends every datagram straight back from its
 * receive handler, out of the receive buffer itself, to the completion's
 * source QP.  The pinging side's receive handler takes the round trip
 * time of the echo of the sequence number in flight and sends the next
 * ping at once: the whole exchange runs in completion handlers, with no
 * thread wake-up in the measured path.  A ping or echo lost on the wire is
 * sent again by the command after half a second without progress.
 *
 * Reported: one-way latency = round trip / 2, median, minimum, maximum.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "bench.h"

#define BENCH_PING_STALL	(HZ / 2)
#define BENCH_PING_MAX_RESENDS	50
#define BENCH_PING_MAX_ITERS	100000

/**
 * bench_ping_init() - set up the ping-pong state
 * @c: the instance
 */
void bench_ping_init(struct bench_ctx *c)
{
	spin_lock_init(&c->ping.lock);
	init_completion(&c->ping.done);
}

static void bench_echo_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_ctx *c = cq->cq_context;
	struct bench_buf *b = container_of(wc->wr_cqe, struct bench_buf,
					   echo_cqe);

	if (wc->status == IB_WC_WR_FLUSH_ERR)
		return;
	if (wc->status != IB_WC_SUCCESS)
		bench_stats_error(c);
	if (bench_post_recv(c, b))
		bench_stats_error(c);
}

/**
 * bench_echo() - send a received UD datagram back to its sender
 * @c: the instance, connected (its AH leads to the peer)
 * @b: the receive buffer holding the datagram; reposted once it is sent
 * @wc: the receive completion
 *
 * Called from the receive handler (softirq).
 */
void bench_echo(struct bench_ctx *c, struct bench_buf *b, struct ib_wc *wc)
{
	u32 bytes = wc->byte_len > BENCH_GRH_BYTES ?
		    wc->byte_len - BENCH_GRH_BYTES : 0;
	struct ib_sge sge = {
		.addr = b->dma + BENCH_GRH_BYTES,
		.length = bytes,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &b->echo_cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = bytes ? &sge : NULL,
			.num_sge = bytes ? 1 : 0,
		},
		.ah = c->ah,
		.remote_qpn = wc->src_qp,
		.remote_qkey = BENCH_QKEY,
	};

	b->echo_cqe.done = bench_echo_sent;
	if (!c->ah || ib_post_send(c->qp, &wr.wr, NULL)) {
		bench_stats_error(c);
		if (bench_post_recv(c, b))
			bench_stats_error(c);
	}
}

static void bench_ping_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_ctx *c = cq->cq_context;

	if (wc->status != IB_WC_SUCCESS && wc->status != IB_WC_WR_FLUSH_ERR)
		bench_stats_error(c);
}

/* Send ping number p->seq; the caller holds p->lock. */
static int bench_ping_post(struct bench_ctx *c)
{
	struct bench_ping *p = &c->ping;
	struct ib_sge sge = {
		.addr = c->tx.dma,
		.length = p->len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &c->ping_cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
		.ah = c->ah,
		.remote_qpn = c->dqpn,
		.remote_qkey = BENCH_QKEY,
	};

	memcpy(c->tx.data, &p->seq, sizeof(p->seq));
	p->sent_ns = ktime_get_ns();
	return ib_post_send(c->qp, &wr.wr, NULL);
}

/**
 * bench_ping_rx() - a datagram arrived while pinging
 * @c: the instance
 * @b: its receive buffer (reposted by the caller)
 * @len: its payload length
 *
 * Called from the receive handler (softirq).  The echo of the ping in
 * flight is timed and the next ping sent; anything else is ignored.
 */
void bench_ping_rx(struct bench_ctx *c, struct bench_buf *b, u32 len)
{
	struct bench_ping *p = &c->ping;
	u64 now = ktime_get_ns();
	u32 seq;

	if (len < sizeof(seq))
		return;
	memcpy(&seq, (u8 *)b->data + BENCH_GRH_BYTES, sizeof(seq));
	spin_lock(&p->lock);
	if (p->active && seq == p->seq && p->n < p->iters) {
		p->rtt_ns[p->n++] = min_t(u64, now - p->sent_ns, U32_MAX);
		if (p->n == p->iters) {
			complete(&p->done);
		} else {
			p->seq++;
			if (bench_ping_post(c))
				bench_stats_error(c);	/* resent on stall */
		}
	}
	spin_unlock(&p->lock);
}

static int bench_cmp_u32(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

static u32 bench_median(const u32 *v, unsigned int n)
{
	if (n % 2)
		return v[n / 2];
	return (u32)(((u64)v[n / 2 - 1] + v[n / 2]) / 2);
}

/**
 * bench_ping_run() - the "ping" command
 * @c: the instance: a UD QP, connected to an echo=1 peer
 * @a: iters (round trips), size (payload, at least 4 bytes)
 * @res: result: iters= resends= lat_med_ns= lat_min_ns= lat_max_ns=
 *       (one way, half the round trip) rtt_med_ns=
 * @len: size of @res
 *
 * Return: 0, -ENOTCONN, -EINVAL for bad arguments, -ENOMEM, or
 * -ETIMEDOUT after too many pings sent again without progress.
 */
int bench_ping_run(struct bench_ctx *c, const struct bench_args *a,
		   char *res, size_t len)
{
	struct bench_ping *p = &c->ping;
	unsigned int last = 0, n;
	u32 *rtt;
	int ret = 0;

	if (!c->qp || !c->connected)
		return -ENOTCONN;
	if (c->qp_type != IB_QPT_UD || c->rx_mode != BENCH_RX_COUNT ||
	    !c->dqpn || !a->iters || a->iters > BENCH_PING_MAX_ITERS ||
	    a->size < sizeof(u32) || a->size + BENCH_GRH_BYTES > c->buf_bytes)
		return -EINVAL;
	rtt = kcalloc(a->iters, sizeof(*rtt), GFP_KERNEL);
	if (!rtt)
		return -ENOMEM;

	c->ping_cqe.done = bench_ping_sent;
	reinit_completion(&p->done);
	spin_lock_bh(&p->lock);
	p->rtt_ns = rtt;
	p->n = 0;
	p->iters = a->iters;
	p->resends = 0;
	p->len = a->size;
	p->seq = get_random_u32();
	p->active = true;
	WRITE_ONCE(c->rx_mode, BENCH_RX_PING);
	if (bench_ping_post(c))
		bench_stats_error(c);
	spin_unlock_bh(&p->lock);

	while (!wait_for_completion_timeout(&p->done, BENCH_PING_STALL)) {
		spin_lock_bh(&p->lock);
		if (p->n == last) {
			/* No echo for a while: the ping or its echo was lost. */
			if (++p->resends > BENCH_PING_MAX_RESENDS) {
				ret = -ETIMEDOUT;
			} else {
				p->seq++;
				if (bench_ping_post(c))
					bench_stats_error(c);
			}
		}
		last = p->n;
		spin_unlock_bh(&p->lock);
		if (ret)
			break;
	}

	spin_lock_bh(&p->lock);
	p->active = false;
	WRITE_ONCE(c->rx_mode, BENCH_RX_COUNT);
	n = p->n;
	p->rtt_ns = NULL;
	spin_unlock_bh(&p->lock);

	if (n) {
		sort(rtt, n, sizeof(*rtt), bench_cmp_u32, NULL);
		snprintf(res, len,
			 "iters=%u resends=%u lat_med_ns=%u lat_min_ns=%u lat_max_ns=%u rtt_med_ns=%u",
			 n, p->resends, bench_median(rtt, n) / 2, rtt[0] / 2,
			 rtt[n - 1] / 2, bench_median(rtt, n));
	} else {
		snprintf(res, len, "iters=0 resends=%u", p->resends);
	}
	kfree(rtt);
	return ret;
}
