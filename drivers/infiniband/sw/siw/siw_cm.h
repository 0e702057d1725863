/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Soft-iWARP connection manager: the TCP connections of a siw device and
 * their MPA negotiation (RFC 5044 section 7, RFC 6581), reported to iw_cm.
 *
 * Every connection endpoint (struct siw_cep) owns at most one kernel TCP
 * socket: a listening one, or a connection.  The socket callbacks only
 * record what happened in @events and queue the endpoint's work; the work
 * does everything else in process context, on siw_cm_wq, one run at a
 * time per endpoint.  Once an endpoint is bound to a QP in RTS, its
 * socket's data goes straight to the QP's receive work.
 *
 * Lock order, outermost first: siw_cep.mutex, then the QP's state_lock
 * (siw_qp_start(), siw_qp_conn_lost()), the socket's lock, and the
 * spinlocks (siw_listen.lock, siw_device.cep_lock, the xarray of requests
 * waiting for an answer, sk_callback_lock).  The QP calls siw_cm_close()
 * holding its state_lock: that takes none of these, it only queues the
 * work.  The mutex is never held while waiting for the work.
 */
#ifndef SIW_CM_H
#define SIW_CM_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/socket.h>
#include <linux/spinlock.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <rdma/iw_cm.h>

#include "siw.h"

/*
 * How long each step may take: a TCP connect, the peer's MPA frame, the
 * ULP's answer to a request.
 */
#define SIW_CM_TIMEOUT_MS	10000
/*
 * How long a graceful close waits for the peer's FIN (and for the QP to
 * read what came before it) before it resets the connection: a peer that
 * got a Terminate and stays silent holds nothing longer.
 */
#define SIW_CM_CLOSE_MS		2000
/* How often a closing connection looks whether the QP has read all data */
#define SIW_CM_DRAIN_POLL_MS	10

/*
 * States of an endpoint.  Active: CONNECTING (TCP connect under way),
 * MPA_REP (request sent, reply awaited), RTS.  Passive: MPA_REQ (request
 * awaited), ANSWER (request reported, siw_accept() or siw_reject()
 * awaited), RTS.  RTS: bound to a QP; CLOSING: bound, graceful close under
 * way.  Every endpoint starts NEW (set up by its creator) and ends DEAD
 * (no socket, QP or cm_id left).
 */
enum siw_cep_state {
	SIW_CEP_NEW,
	SIW_CEP_LISTEN,
	SIW_CEP_CONNECTING,
	SIW_CEP_MPA_REP,
	SIW_CEP_MPA_REQ,
	SIW_CEP_ANSWER,
	SIW_CEP_RTS,
	SIW_CEP_CLOSING,
	SIW_CEP_DEAD,
};

/*
 * What the work is asked to do (bits of siw_cep.events): WAKE, look at
 * socket and clock again (data, a connection to accept, a TCP state
 * change, the timer); CLOSE, siw_cm_close(cep, false); ABORT,
 * siw_cm_close(cep, true), siw_cm_dev_down(), or siw_destroy_listen() for
 * a request not reported yet.
 */
enum siw_cep_event {
	SIW_EV_WAKE,
	SIW_EV_CLOSE,
	SIW_EV_ABORT,
};

/**
 * struct siw_listen - one iw_cm listener
 * @ref: the owner's reference (siw_create_listen() to siw_destroy_listen()),
 *	one per listening endpoint and one per endpoint counted in @pending
 * @lock: protects @cm_id, @socks, @waiting and @pending
 * @cm_id: the listener's ID, held (add_ref) until siw_destroy_listen();
 *	NULL from then on.  Requests are reported to it under @lock.
 * @socks: its listening endpoints: one per address it listens on
 * @waiting: accepted connections whose MPA request was not reported yet
 * @backlog: most connections pending at once
 * @pending: connections accepted and not answered (nor closed) yet
 */
struct siw_listen {
	struct kref		ref;
	spinlock_t		lock;		/* see above */
	struct iw_cm_id		*cm_id;
	struct list_head	socks;
	struct list_head	waiting;
	u32			backlog;
	u32			pending;
};

/**
 * struct siw_cep - a connection endpoint
 * @ref: references, see below
 * @sdev: the device; its memory held (get_device()) as long as @ref
 * @dev_entry: on @sdev's ceps list (@sdev->cep_lock) until torn down
 * @mutex: serialises the work, the ops and the teardown of the endpoint;
 *	protects every field below not marked otherwise
 * @state: enum siw_cep_state
 * @events: enum siw_cep_event bits not handled yet (atomic bitops)
 * @work: handles @events (siw_cm_wq)
 * @timer: wakes the work; armed against @deadline
 * @deadline: when the current step gives up (jiffies)
 * @err: the CONNECT_REPLY status an active endpoint ends with
 * @sock: its socket; while set, the CM's callbacks are installed with
 *	sk_user_data = the endpoint (the socket's sk_callback_lock)
 * @saved_data_ready: the socket's sk_data_ready before the CM's
 * @saved_state_change: the socket's sk_state_change before the CM's
 * @listener: a listening endpoint (else a connection)
 * @listen: a listening endpoint's listener, or the listener a passive
 *	connection is counted in until answered; a reference held
 * @listen_entry: on @listen's socks or waiting list (@listen->lock)
 * @cookie: while the request waits for its answer: the index in the
 *	xarray of such requests, handed to iw_cm as provider_data
 * @cm_id: the connection's ID, held (add_ref) from siw_connect() or a
 *	successful siw_accept() until its last event (CONNECT_REPLY with an
 *	error, or CLOSE)
 * @qp: the QP, a reference held (siw_qp_lookup()) from siw_connect() or
 *	siw_accept() until the teardown
 * @bound: siw_qp_start() succeeded: the QP uses @sock until
 *	siw_qp_conn_lost().  Written under @mutex; read by the data_ready
 *	callback (smp_load_acquire()).
 * @fin_sent: our side of the connection is shut down
 * @rev: MPA revision of our request (active)
 * @req_flags: flags of our request (active)
 * @ird: inbound READ depth asked for (active)
 * @ord: outbound READ depth asked for (active)
 * @out_len: length of the request in @buf (active, until sent)
 * @have: bytes of the peer's MPA frame in @buf
 * @peer: the peer's MPA frame, once checked
 * @laddr: our address of the connection
 * @raddr: the peer's
 * @buf: the MPA frame being received or sent
 *
 * References: one is the endpoint's life (from creation until its
 * teardown, as long as it is on @sdev's list); the xarray entry holds
 * one; each queued @work holds one; whoever runs the teardown holds one of
 * its own besides.  The socket callbacks and the timer take none: the
 * teardown removes them (sk_callback_lock, timer_shutdown_sync()) before
 * it drops the life reference.  The QP may call siw_cm_close() while it
 * has the endpoint as qp->cep: the teardown calls siw_qp_conn_lost() (which
 * ends that) before it drops the life reference.  The last reference
 * only frees memory, so it may go in any process context.
 */
struct siw_cep {
	struct kref		ref;
	struct siw_device	*sdev;
	struct list_head	dev_entry;
	struct mutex		mutex;		/* see above */
	enum siw_cep_state	state;
	unsigned long		events;
	struct work_struct	work;
	struct timer_list	timer;
	unsigned long		deadline;
	int			err;
	struct socket		*sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	bool			listener;
	struct siw_listen	*listen;
	struct list_head	listen_entry;
	u32			cookie;
	struct iw_cm_id		*cm_id;
	struct siw_qp		*qp;
	bool			bound;
	bool			fin_sent;
	u8			rev;
	u8			req_flags;
	u16			ird;
	u16			ord;
	unsigned int		out_len;
	unsigned int		have;
	struct siw_mpa_info	peer;
	struct sockaddr_storage	laddr;
	struct sockaddr_storage	raddr;
	u8			buf[SIW_MPA_FRAME_LEN + SIW_MPA_MAX_PD];
};

#endif /* SIW_CM_H */
