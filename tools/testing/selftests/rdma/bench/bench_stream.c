// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: streaming sends and the receive counters.
 *
 * The sender keeps a window of signalled sends in flight: the command
 * posts the first ones, and from then on every send completion (softirq)
 * posts the next until the time is up, so no thread wake-up sits between
 * two sends.  The receiver counts messages and bytes in its receive
 * handler and reposts the buffer at once; its rate runs from the first to
 * the last message it counted, so the two guests need no common clock.
 */
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/sched/signal.h>

#include "bench.h"

#define BENCH_UD_WINDOW		32
#define BENCH_RC_WINDOW		8
/* How long the last sends may take to complete once the time is up. */
#define BENCH_DRAIN_TIMEOUT	(10 * HZ)

/**
 * bench_stats_init() - set up the receive counters
 * @c: the instance
 */
void bench_stats_init(struct bench_ctx *c)
{
	spin_lock_init(&c->rx_stats.lock);
}

/**
 * bench_stats_add() - count one message received
 * @c: the instance
 * @bytes: its payload
 *
 * Called from the receive handlers, in softirq context.
 */
void bench_stats_add(struct bench_ctx *c, u32 bytes)
{
	struct bench_rx_stats *s = &c->rx_stats;
	u64 now = ktime_get_ns();
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (!s->msgs++) {
		s->first_ns = now;
		s->first_bytes = bytes;
	}
	s->bytes += bytes;
	s->last_ns = now;
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * bench_stats_error() - count one failed receive
 * @c: the instance
 */
void bench_stats_error(struct bench_ctx *c)
{
	unsigned long flags;

	spin_lock_irqsave(&c->rx_stats.lock, flags);
	c->rx_stats.errors++;
	spin_unlock_irqrestore(&c->rx_stats.lock, flags);
}

/**
 * bench_stats_clear() - the "clear" command: reset the receive counters
 * @c: the instance
 * @a: unused
 * @res: result: "cleared"
 * @len: size of @res
 *
 * Return: 0.
 */
int bench_stats_clear(struct bench_ctx *c, const struct bench_args *a,
		      char *res, size_t len)
{
	struct bench_rx_stats *s = &c->rx_stats;

	spin_lock_irq(&s->lock);
	s->msgs = 0;
	s->bytes = 0;
	s->first_bytes = 0;
	s->errors = 0;
	s->first_ns = 0;
	s->last_ns = 0;
	spin_unlock_irq(&s->lock);
	snprintf(res, len, "cleared");
	return 0;
}

/**
 * bench_stats_show() - the "stats" command
 * @c: the instance
 * @a: unused
 * @res: result: msgs= bytes= errors= ns= (first to last message),
 *       rate= (messages per second) and bps= (bytes per second), both
 *       over the messages after the first
 * @len: size of @res
 *
 * Return: 0.
 */
int bench_stats_show(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len)
{
	struct bench_rx_stats *s = &c->rx_stats, v;
	u64 ns, rate = 0, bps = 0;

	spin_lock_irq(&s->lock);
	v = *s;
	spin_unlock_irq(&s->lock);
	ns = v.last_ns - v.first_ns;
	if (v.msgs > 1 && ns) {
		rate = mul_u64_u64_div_u64(v.msgs - 1, NSEC_PER_SEC, ns);
		bps = mul_u64_u64_div_u64(v.bytes - v.first_bytes,
					  NSEC_PER_SEC, ns);
	}
	snprintf(res, len, "msgs=%llu bytes=%llu errors=%llu ns=%llu rate=%llu bps=%llu",
		 v.msgs, v.bytes, v.errors, ns, rate, bps);
	return 0;
}

static int bench_post_one(struct bench_ctx *c)
{
	struct ib_sge sge = {
		.addr = c->tx.dma,
		.length = c->send_len,
		.lkey = c->pd->local_dma_lkey,
	};
	struct ib_ud_wr wr = {
		.wr = {
			.wr_cqe = &c->stream_cqe,
			.opcode = IB_WR_SEND,
			.send_flags = IB_SEND_SIGNALED,
			.sg_list = &sge,
			.num_sge = 1,
		},
	};

	if (c->qp_type == IB_QPT_UD) {
		wr.ah = c->ah;
		wr.remote_qpn = c->dqpn;
		wr.remote_qkey = BENCH_QKEY;
	}
	return ib_post_send(c->qp, &wr.wr, NULL);
}

static void bench_stream_sent(struct ib_cq *cq, struct ib_wc *wc)
{
	struct bench_ctx *c = cq->cq_context;

	if (wc->status == IB_WC_SUCCESS) {
		atomic64_inc(&c->tx_done);
		if (!READ_ONCE(c->stop) && !bench_post_one(c))
			return;		/* this slot of the window goes on */
	} else {
		atomic64_inc(&c->tx_errors);
		atomic_cmpxchg(&c->tx_status, IB_WC_SUCCESS, wc->status);
	}
	if (atomic_dec_and_test(&c->in_flight))
		wake_up(&c->tx_wait);
}

/**
 * bench_stream_send() - the "send" command
 * @c: the instance, connected
 * @a: secs, size (at most the QP's size), window (default 32 UD, 8 RC)
 * @res: result: sent= errors= wc_status= (of the first failed send)
 *       ns= rate= (completed sends per second)
 * @len: size of @res
 *
 * Return: 0, -ENOTCONN before "connect", -EINVAL for bad arguments, the
 * error of the first post, -ETIMEDOUT if the last sends never completed
 * or -EIO if no send completed successfully.
 */
int bench_stream_send(struct bench_ctx *c, const struct bench_args *a,
		      char *res, size_t len)
{
	unsigned int window, i;
	u64 t0, ns, sent;
	long left;
	int ret = 0;

	if (!c->qp || !c->connected)
		return -ENOTCONN;
	window = a->window ?: (c->qp_type == IB_QPT_UD ? BENCH_UD_WINDOW :
			       BENCH_RC_WINDOW);
	if (!a->secs || window > BENCH_SQ_DEPTH || a->size > c->buf_bytes ||
	    (c->qp_type == IB_QPT_UD && !c->dqpn))
		return -EINVAL;

	c->send_len = a->size;
	c->stream_cqe.done = bench_stream_sent;
	atomic64_set(&c->tx_done, 0);
	atomic64_set(&c->tx_errors, 0);
	atomic_set(&c->tx_status, IB_WC_SUCCESS);
	atomic_set(&c->in_flight, 0);
	WRITE_ONCE(c->stop, false);

	t0 = ktime_get_ns();
	for (i = 0; i < window; i++) {
		atomic_inc(&c->in_flight);
		ret = bench_post_one(c);
		if (ret) {
			atomic_dec(&c->in_flight);
			break;
		}
	}
	if (i) {
		/* Ends early only if every slot of the window failed. */
		wait_event_interruptible_timeout(c->tx_wait,
						 !atomic_read(&c->in_flight),
						 a->secs * HZ);
		ret = 0;
	}
	WRITE_ONCE(c->stop, true);
	left = wait_event_timeout(c->tx_wait, !atomic_read(&c->in_flight),
				  BENCH_DRAIN_TIMEOUT);
	ns = ktime_get_ns() - t0;
	sent = atomic64_read(&c->tx_done);
	if (!ret && !left)
		ret = -ETIMEDOUT;
	if (!ret && !sent)
		ret = -EIO;
	snprintf(res, len, "sent=%llu errors=%lld wc_status=%d ns=%llu rate=%llu",
		 sent, atomic64_read(&c->tx_errors),
		 atomic_read(&c->tx_status), ns,
		 mul_u64_u64_div_u64(sent, NSEC_PER_SEC, max_t(u64, ns, 1)));
	return ret;
}
