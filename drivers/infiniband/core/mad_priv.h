/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The MAD layer's own structures, shared by mad.c (agents and sends) and
 * mad_port.c (the QP 1 of each port, receives and their dispatch).
 *
 * Locking.  Each port has one spinlock, taken with interrupts saved
 * (ib_post_send_mad() may be called from any context).  It protects the
 * port's agent list, the send-queue accounting and overflow list, and
 * every send's state bits and list membership (ib_mad_tx.node on its
 * agent's list).  Nothing is called with it held but ib_post_send() of
 * the GSI QP's own work requests; handlers are called without it.
 *
 * Lifetimes.  An agent has a refcount: one for its registration, one per
 * outstanding send, one per response being delivered.  Lookups by hi_tid
 * go through the global xarray under RCU and keep the agent only if the
 * count was not yet zero; unregistration drops the registration's count
 * and waits for the last one, and the agent is freed after an RCU grace
 * period.  A send is outstanding from its post until its send handler has
 * been called (see ib_mad_tx); a receive buffer belongs to the MAD layer
 * until it is handed to an agent, which frees it with ib_free_recv_mad().
 * A port outlives its agents: clients unregister their agents in their
 * remove() callback, which runs before the MAD layer's (clients are
 * removed in reverse registration order, and ib_core registers first).
 */
#ifndef _MAD_PRIV_H
#define _MAD_PRIV_H

#include <linux/completion.h>
#include <linux/refcount.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_net_hdr.h>

/* A receive buffer: the GRH (or IPv4 header) area, then the MAD. */
#define IB_MAD_GRH_LEN		40
#define IB_MAD_RX_LEN		(IB_MAD_GRH_LEN + IB_MGMT_MAD_SIZE)

/**
 * struct ib_mad_port_stats - what a port's MAD layer counted
 * @rx: MADs received
 * @rx_bad: dropped as malformed (length, base version, class on QP 1)
 * @rx_unclaimed: requests no agent took (GET/SET answered 0x000C)
 * @rx_unmatched: responses that matched no outstanding send
 * @rx_nomem: dropped because no receive buffer could replace theirs
 * @tx: transmissions, retries included
 * @tx_timeouts: sends that ended without a response
 */
struct ib_mad_port_stats {
	atomic64_t	rx;
	atomic64_t	rx_bad;
	atomic64_t	rx_unclaimed;
	atomic64_t	rx_unmatched;
	atomic64_t	rx_nomem;
	atomic64_t	tx;
	atomic64_t	tx_timeouts;
};

/**
 * struct ib_mad_port - the MAD layer on one port
 * @device: the device
 * @port_num: the port
 * @pd: PD of the QP and of AHs made for replies
 * @cq: one CQ for sends and receives, polled from an unbound workqueue
 * @qp: the GSI QP (QP 1)
 * @wq: ordered workqueue for the agents' timeout work
 * @lock: see the top of this file
 * @agents: registered agents, in registration order
 * @overflow: sends waiting for room on the send queue
 * @sq_used: send work requests on the QP
 * @sq_size: how many the QP takes
 * @rx_posted: receive work requests on the QP
 * @rq_size: how many receives are kept posted
 * @drained: woken when @sq_used and @rx_posted reach zero while @closing
 * @closing: set when the port goes; no more posts
 * @reply_agent: sends the MAD layer's own answers (unclaimed GET/SET)
 * @stats: counters
 */
struct ib_mad_port {
	struct ib_device		*device;
	u32				port_num;
	struct ib_pd			*pd;
	struct ib_cq			*cq;
	struct ib_qp			*qp;
	struct workqueue_struct		*wq;
	spinlock_t			lock;	/* see the top of this file */
	struct list_head		agents;
	struct list_head		overflow;
	unsigned int			sq_used;
	unsigned int			sq_size;
	unsigned int			rx_posted;
	unsigned int			rq_size;
	wait_queue_head_t		drained;
	bool				closing;
	struct ib_mad_agent		*reply_agent;
	struct ib_mad_port_stats	stats;
};

/**
 * struct ib_mad_agent_priv - an agent as the MAD layer keeps it
 * @agent: what the registrant sees
 * @port: its port
 * @reg: the requests it asked for, when @has_reg
 * @has_reg: it takes requests
 * @port_node: on @port->agents
 * @sends: its outstanding sends (ib_mad_tx.node)
 * @timeout_work: ends the waits whose time is up
 * @refs: see the top of this file
 * @released: completed when @refs reaches zero
 * @rcu: frees the agent after lookups under RCU are done with it
 */
struct ib_mad_agent_priv {
	struct ib_mad_agent	agent;
	struct ib_mad_port	*port;
	struct ib_mad_reg_req	reg;
	bool			has_reg;
	struct list_head	port_node;
	struct list_head	sends;
	struct delayed_work	timeout_work;
	refcount_t		refs;
	struct completion	released;
	struct rcu_head		rcu;
};

/**
 * struct ib_mad_tx - a send buffer and its progress
 * @send_buf: what the caller sees
 * @agent: the owner
 * @node: on the agent's @sends while outstanding
 * @queued: on the port's overflow list while the send queue is full
 * @cqe: completion of its work request
 * @wr: the UD work request
 * @sge: the whole MAD
 * @dma: its mapping, from post to the end
 * @dgid: destination GID of the AH, which a response must come from
 * @deadline: end of the current wait, in jiffies
 * @retries_left: retransmissions still allowed
 * @status: how it will end
 * @vendor_err: with an error @status from a completion
 * @outstanding: posted and not yet reported to the send handler
 * @posted: on the QP or in the overflow list
 * @waiting: sent, waiting for its response
 * @matching: a response to it is being handed to the receive handler
 * @responded: a response came; it ends once off the wire
 * @mad: the MAD itself
 *
 * A send is reported once it is outstanding and none of @posted,
 * @waiting and @matching is set; whoever clears the last of them under
 * the port lock reports it, after dropping the lock.
 */
struct ib_mad_tx {
	struct ib_mad_send_buf		send_buf;
	struct ib_mad_agent_priv	*agent;
	struct list_head		node;
	struct list_head		queued;
	struct ib_cqe			cqe;
	struct ib_ud_wr			wr;
	struct ib_sge			sge;
	u64				dma;
	union ib_gid			dgid;
	unsigned long			deadline;
	int				retries_left;
	enum ib_wc_status		status;
	u32				vendor_err;
	bool				outstanding;
	bool				posted;
	bool				waiting;
	bool				matching;
	bool				responded;
	u8				mad[IB_MGMT_MAD_SIZE] __aligned(8);
};

/**
 * struct ib_mad_rx - a receive buffer
 * @recv_wc: what an agent is handed
 * @wc: copy of the completion, for @recv_wc
 * @cqe: completion of its work request
 * @port: the port that posted it
 * @dma: its mapping while posted
 * @buf: GRH area and MAD
 */
struct ib_mad_rx {
	struct ib_mad_recv_wc	recv_wc;
	struct ib_wc		wc;
	struct ib_cqe		cqe;
	struct ib_mad_port	*port;
	u64			dma;
	u8			buf[IB_MAD_RX_LEN] __aligned(8);
};

/* The second vendor range: classes whose agents also name an OUI. */
static inline bool ib_mad_vendor_range2(u8 mgmt_class)
{
	return mgmt_class >= IB_MGMT_CLASS_VENDOR_RANGE2_START &&
	       mgmt_class <= IB_MGMT_CLASS_VENDOR_RANGE2_END;
}

/* mad.c */
struct ib_mad_agent *ib_mad_reply_agent(struct ib_mad_port *port,
					ib_mad_send_handler send_handler);
struct ib_mad_agent_priv *ib_mad_agent_by_tid(struct ib_mad_port *port,
					      __be64 tid);
void ib_mad_agent_put(struct ib_mad_agent_priv *priv);
bool ib_mad_deliver_response(struct ib_mad_agent_priv *priv,
			     struct ib_mad_rx *rx);

/* mad_port.c */
struct ib_mad_port *ib_mad_port_get(struct ib_device *device, u32 port_num);

#endif /* _MAD_PRIV_H */
