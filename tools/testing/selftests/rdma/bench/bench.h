/* SPDX-License-Identifier: GPL-2.0 */
/*
 * rdma_bench: the kernel-side load generators of make bench.
 *
 * The module binds to one RoCE device (the first one registered, or the one
 * named by its ibdev parameter) and is driven from user space through two
 * module parameters:
 *
 *   /sys/module/rdma_bench/parameters/ctl     write one command line; the
 *                                             write returns once it is done
 *                                             (its status is the command's)
 *   /sys/module/rdma_bench/parameters/result  the last command's outcome,
 *                                             one line of key=value words
 *
 * The commands are listed in bench_main.c.  Everything below the command
 * layer uses the upstream kernel verbs API only, so the same source builds
 * against this tree and against the stock kernel.
 */
#ifndef RDMA_BENCH_H
#define RDMA_BENCH_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/if_ether.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

/* UD receive buffers start with the 40-byte GRH (or IPv4 header) area. */
#define BENCH_GRH_BYTES		40
#define BENCH_RESULT_LEN	256
/* Send queue depth of every QP: the largest send window. */
#define BENCH_SQ_DEPTH		64
#define BENCH_QKEY		0x11111111

struct socket;

/* The key=value words that follow a command's name (see bench_args.c). */
struct bench_args {
	unsigned int	secs;		/* duration of a timed run */
	unsigned int	size;		/* message or datagram bytes */
	unsigned int	window;		/* sends in flight, 0 = per QP type */
	unsigned int	depth;		/* posted receives, 0 = per QP type */
	unsigned int	iters;		/* ping-pong round trips */
	unsigned int	atomic;		/* 1: AH calls in atomic context */
	unsigned int	echo;		/* 1: echo every UD datagram back */
	unsigned int	port;		/* UDP port */
	unsigned int	dqpn;		/* the peer's QP number */
	unsigned int	dpsn;		/* the peer's first PSN */
	enum ib_qp_type	qp_type;	/* type=ud or type=rc */
	bool		has_dest;
	bool		dest_is_v4;
	union ib_gid	dgid;		/* dest=: the peer's address as a GID */
	__be32		dip4;		/* ... and as IPv4 when it is one */
	bool		has_dmac;
	u8		dmac[ETH_ALEN];	/* dmac=: the peer's MAC */
};

/*
 * What a receiver counted since the last "clear": RDMA receive completions
 * or UDP datagrams.  Updated by the receive handlers (softirq) and reset by
 * "clear" (process context); every access holds @lock, taken with _bh in
 * process context.
 */
struct bench_rx_stats {
	spinlock_t	lock;		/* guards the counters below */
	u64		msgs;
	u64		bytes;
	u64		first_bytes;	/* size of the first message counted */
	u64		errors;
	u64		first_ns;
	u64		last_ns;
};

/* One registered buffer: a receive buffer, or the send buffer. */
struct bench_buf {
	void		*data;
	u64		dma;
	struct ib_cqe	rx_cqe;		/* its receive completed */
	struct ib_cqe	echo_cqe;	/* the echo sent out of it completed */
};

/* What the receive handler does with a datagram. */
enum bench_rx_mode {
	BENCH_RX_COUNT,		/* count it (stream receiver) */
	BENCH_RX_ECHO,		/* send it back to its sender (ping peer) */
	BENCH_RX_PING,		/* it answers our ping: time it */
};

/*
 * Ping-pong state.  @lock guards every field; the receive handler takes it
 * in softirq context, the "ping" command with _bh.
 */
struct bench_ping {
	spinlock_t		lock;		/* guards the fields below */
	bool			active;
	u32			seq;		/* sequence number in flight */
	u32			len;
	u64			sent_ns;
	u32			*rtt_ns;
	unsigned int		n;
	unsigned int		iters;
	unsigned int		resends;
	struct completion	done;
};

/*
 * The module's one instance.
 *
 * Locking: every command runs under the module's bench_lock, as do the
 * ib_client callbacks, so the resources below (device, PD, CQs, QP, AH,
 * buffers, UDP socket) change only under it.  The completion handlers run
 * in softirq context and touch only @rx_stats, @ping (their own locks),
 * the atomics of the stream sender and @stop / @rx_mode (READ_ONCE).
 * A command that tears resources down first stops the handlers: the QP
 * goes to the error state and is destroyed, then ib_free_cq() waits for
 * a handler still running before any buffer is freed.
 */
struct bench_ctx {
	struct ib_device	*dev;
	u32			port;
	int			sgid_index;

	/* from "qp" until "close" */
	struct ib_pd		*pd;
	struct ib_cq		*send_cq;
	struct ib_cq		*recv_cq;
	struct ib_qp		*qp;
	enum ib_qp_type		qp_type;
	u32			psn;
	bool			connected;
	struct ib_ah		*ah;		/* UD: to the peer */
	u32			dqpn;
	struct bench_buf	*rx;
	unsigned int		rx_depth;
	u32			buf_bytes;	/* of each buffer, rx and tx */
	struct bench_buf	tx;
	enum bench_rx_mode	rx_mode;

	struct bench_rx_stats	rx_stats;

	/* stream sender: every send completion posts the next one */
	struct ib_cqe		stream_cqe;
	bool			stop;
	u32			send_len;
	atomic_t		in_flight;
	atomic64_t		tx_done;
	atomic64_t		tx_errors;
	atomic_t		tx_status;	/* of the first failed send */
	wait_queue_head_t	tx_wait;

	struct ib_cqe		ping_cqe;
	struct bench_ping	ping;

	/* "udp_listen": a UDP socket counting datagrams in encap_rcv */
	struct socket		*udp_rx;
};

/* A command: fills @res (at most @len bytes) and returns 0 or -errno. */
typedef int (*bench_cmd_fn)(struct bench_ctx *c, const struct bench_args *a,
			    char *res, size_t len);

int bench_parse_args(char *words, struct bench_args *a);

int bench_ah_run(struct bench_ctx *c, const struct bench_args *a,
		 char *res, size_t len);

int bench_fill_ah_attr(struct bench_ctx *c, const struct bench_args *a,
		       struct rdma_ah_attr *attr);
int bench_qp_create(struct bench_ctx *c, const struct bench_args *a,
		    char *res, size_t len);
int bench_qp_connect(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len);
int bench_qp_close_cmd(struct bench_ctx *c, const struct bench_args *a,
		       char *res, size_t len);
void bench_qp_close(struct bench_ctx *c);
int bench_post_recv(struct bench_ctx *c, struct bench_buf *b);
int bench_info(struct bench_ctx *c, const struct bench_args *a,
	       char *res, size_t len);

void bench_stats_init(struct bench_ctx *c);
void bench_stats_add(struct bench_ctx *c, u32 bytes);
void bench_stats_error(struct bench_ctx *c);
int bench_stats_clear(struct bench_ctx *c, const struct bench_args *a,
		      char *res, size_t len);
int bench_stats_show(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len);
int bench_stream_send(struct bench_ctx *c, const struct bench_args *a,
		      char *res, size_t len);

void bench_ping_init(struct bench_ctx *c);
void bench_ping_rx(struct bench_ctx *c, struct bench_buf *b, u32 len);
void bench_echo(struct bench_ctx *c, struct bench_buf *b, struct ib_wc *wc);
int bench_ping_run(struct bench_ctx *c, const struct bench_args *a,
		   char *res, size_t len);

int bench_udp_listen(struct bench_ctx *c, const struct bench_args *a,
		     char *res, size_t len);
int bench_udp_send(struct bench_ctx *c, const struct bench_args *a,
		   char *res, size_t len);
int bench_udp_close_cmd(struct bench_ctx *c, const struct bench_args *a,
			char *res, size_t len);
void bench_udp_close(struct bench_ctx *c);

int bench_calib(struct bench_ctx *c, const struct bench_args *a,
		char *res, size_t len);

#endif /* RDMA_BENCH_H */
