/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The connection manager's own structures, shared by its files: cm.c (IDs,
 * lookups, events, time wait and the calls of <rdma/ib_cm.h>), cm_recv.c
 * (what each received message does), cm_sidr.c (service ID resolution) and
 * cm_port.c (the ib_client, MAD agents, sends and counters).
 *
 * Locking.
 * - cm_id_priv.lock (a spinlock, taken with interrupts off) guards an ID's
 *   state and everything negotiated for it, its queued events and its
 *   outstanding send (@msg).  Sends are built and posted under it: nothing
 *   on that path sleeps or calls back (ib_cancel_mad() reports later).
 * - cm_lock (cm.c) guards the lookup tables (listeners, remote comm IDs,
 *   remote QPNs, SIDR requests), the time-wait list and each ID's
 *   membership in them.  It nests inside cm_id_priv.lock, never around it.
 * - The ID xarray has its own lock; lookups by local comm ID go through it
 *   under RCU and keep an ID only if its refcount was not zero yet.
 *
 * Lifetimes.
 * - An ID's refcount holds one reference for its user (dropped by
 *   ib_destroy_cm_id() or when a handler returns non-zero), one per send
 *   that names it, one while its event work is queued, one per lookup in
 *   progress and one per event of another ID that names it as listen_id.
 *   ib_destroy_cm_id() waits until only its own reference is left, so the
 *   memory outlives every user; it is freed after an RCU grace period.
 * - A port's cm_device is kept by every ID with an address vector on it;
 *   the device's MAD agents go when ib_core removes the device (sends then
 *   fail with -ENODEV), its memory when the last such ID goes.
 * - A connection in time wait keeps its local comm ID out of use for the
 *   time-wait period, through a cm_timewait that outlives the ID if the
 *   ID is destroyed first.
 */
#ifndef _CM_PRIV_H
#define _CM_PRIV_H

#include <linux/kref.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>

#include "cm_msgs.h"

/* The per-port counter groups, as the sysfs folders are named. */
enum cm_counter_group {
	CM_TX_MSGS,
	CM_TX_RETRIES,
	CM_RX_MSGS,
	CM_RX_DUPLICATES,
	CM_COUNTER_GROUPS
};

/* Why a received message was dropped (debugfs ib_cm/drops). */
enum cm_drop_reason {
	CM_DROP_UNKNOWN,	/* attribute ID outside the CM class, or LAP/APR */
	CM_DROP_MALFORMED,	/* failed cm_msg_check() */
	CM_DROP_NO_ID,		/* names no ID of ours */
	CM_DROP_STATE,		/* not expected in the ID's state */
	CM_DROP_NO_ROUTE,	/* no way back to the sender */
	CM_DROP_NOMEM,
	CM_DROP_REASONS
};

struct cm_device;

/**
 * struct cm_port - the CM on one port
 * @cm_dev: its device
 * @port_num: the port
 * @agent: the GSI agent of class 0x07; NULL once the device goes
 * @counters: messages by counter group and message type
 * @drops: received messages dropped, by reason
 */
struct cm_port {
	struct cm_device	*cm_dev;
	u32			port_num;
	struct ib_mad_agent __rcu *agent;
	atomic_long_t		counters[CM_COUNTER_GROUPS][CM_MSG_TYPES];
	atomic_long_t		drops[CM_DROP_REASONS];
};

/**
 * struct cm_device - the CM on one device
 * @ibdev: the device
 * @ref: held by ib_cm's client data and by every ID with a port here
 * @node: on cm_devices (cm_port.c)
 * @going: set (under cm_lock) when ib_core removes the device
 * @num_ports: entries of @ports
 * @ports: by port number - 1; NULL where the port has no IB CM
 */
struct cm_device {
	struct ib_device	*ibdev;
	struct kref		ref;
	struct list_head	node;
	bool			going;
	u32			num_ports;
	struct cm_port		*ports[] __counted_by(num_ports);
};

/**
 * struct cm_event - an event waiting for its ID's handler
 * @node: on cm_id_priv.events
 * @ev: what the handler gets; its pointers point into this structure
 * @listener: the listen_id of a REQ or SIDR_REQ event, held
 * @sgid_attr: the GID entry the event names, held
 * @path: storage of req_rcvd.primary_path
 * @info: storage of the REJ ARI or SIDR_REP additional information
 * @pdata: storage of the private data
 */
struct cm_event {
	struct list_head	node;
	struct ib_cm_event	ev;
	struct cm_id_priv	*listener;
	const struct ib_gid_attr *sgid_attr;
	struct sa_path_rec	path;
	u8			info[CM_INFO_MAX];
	u8			pdata[IB_CM_RTU_PRIVATE_DATA_SIZE];
};

struct cm_timewait;

/**
 * struct cm_id_priv - an ID and everything the CM keeps for it
 * @id: what users see
 * @lock: see the top of this file
 * @refs: see the top of this file
 * @rcu: frees it
 * @index: its slot in the ID xarray
 * @events: queued events, oldest first
 * @event_work: delivers them
 * @destroyed: no more events; set when the user's reference goes
 * @port: the port its messages use, once known
 * @av: the address vector to the peer (holds its GID entry)
 * @has_av: @av and @port are set
 * @msg: the send that waits for an answer, if any
 * @tid: the transaction ID of the exchange (REQ's, DREQ's or SIDR_REQ's)
 * @last: the last one-shot message sent (MRA, RTU, DREP, REJ), resent
 *	when the peer repeats the message it answered
 * @last_type: its type, or CM_MSG_TYPES when none is kept
 * @mra_delayed: @last is an MRA not sent yet (IB_CM_MRA_FLAG_DELAY)
 * @listen_node: in the listener table
 * @listen_shares: users of a listener made by ib_cm_insert_listen()
 * @remote_id_node: keyed by (remote comm ID, remote CA GUID)
 * @remote_qpn_node: keyed by (remote QPN, remote CA GUID)
 * @sidr_node: keyed by (SIDR request ID, source GID)
 * @listening: in the listener table
 * @in_remote_id: in the remote comm ID table
 * @in_remote_qpn: in the remote QPN table
 * @in_sidr: in the SIDR table
 * @sidr_sgid: the requester's GID, for the SIDR key
 * @timewait: ready for (or in) time wait
 * @remote_ca_guid: the peer's CA GUID
 * @qp_type: the connection's QP type
 * @local_qpn: our QP
 * @remote_qpn: the peer's QP
 * @sq_psn: our QP's first send PSN (the peer's starting PSN)
 * @rq_psn: our QP's first receive PSN (our starting PSN)
 * @pkey_index: P_Key index of our QP
 * @resp_res: reads and atomics our QP takes in (max_dest_rd_atomic)
 * @init_depth: those it issues (max_rd_atomic)
 * @retry_count: our QP's transport retries
 * @rnr_retry_count: our QP's RNR retries
 * @path_mtu: the path MTU
 * @ack_timeout: our QP's ACK timeout (exponent)
 * @max_cm_retries: retransmissions of REQ/REP/DREQ
 * @resend_ms: interval of those retransmissions
 * @srq: our QP has an SRQ
 */
struct cm_id_priv {
	struct ib_cm_id		id;
	spinlock_t		lock;	/* see the top of this file */
	refcount_t		refs;
	struct rcu_head		rcu;
	u32			index;

	struct list_head	events;
	struct work_struct	event_work;
	bool			destroyed;

	struct cm_port		*port;
	struct rdma_ah_attr	av;
	bool			has_av;
	struct ib_mad_send_buf	*msg;
	__be64			tid;
	u8			*last;
	enum cm_msg_type	last_type;
	bool			mra_delayed;

	struct hlist_node	listen_node;
	unsigned int		listen_shares;
	struct hlist_node	remote_id_node;
	struct hlist_node	remote_qpn_node;
	struct hlist_node	sidr_node;
	bool			listening;
	bool			in_remote_id;
	bool			in_remote_qpn;
	bool			in_sidr;
	union ib_gid		sidr_sgid;
	struct cm_timewait	*timewait;

	__be64			remote_ca_guid;
	enum ib_qp_type		qp_type;
	u32			local_qpn;
	u32			remote_qpn;
	u32			sq_psn;
	u32			rq_psn;
	u16			pkey_index;
	u8			resp_res;
	u8			init_depth;
	u8			retry_count;
	u8			rnr_retry_count;
	u8			path_mtu;
	u8			ack_timeout;
	u8			max_cm_retries;
	unsigned long		resend_ms;
	bool			srq;
};

static inline struct cm_id_priv *to_cm_priv(struct ib_cm_id *id)
{
	return container_of(id, struct cm_id_priv, id);
}

/* cm.c */
extern spinlock_t cm_lock;	/* the lookup tables: see the top */
struct cm_id_priv *cm_priv_create(struct ib_device *ibdev,
				  ib_cm_handler handler, void *context);
void cm_get(struct cm_id_priv *priv);
void cm_put(struct cm_id_priv *priv);
struct cm_id_priv *cm_find_local(__be32 local_id);
struct cm_id_priv *cm_find_listener(struct ib_device *ibdev,
				    __be64 service_id);
struct cm_id_priv *cm_find_remote_id(__be32 remote_id, __be64 ca_guid);
struct cm_id_priv *cm_find_remote_qpn(u32 qpn, __be64 ca_guid);
struct cm_id_priv *cm_insert_remote(struct cm_id_priv *priv, bool *stale);
void cm_remove_remote(struct cm_id_priv *priv);
struct cm_event *cm_event_alloc(enum ib_cm_event_type type, gfp_t gfp);
void cm_event_free(struct cm_event *ev);
void cm_queue_event(struct cm_id_priv *priv, struct cm_event *ev);
void cm_queue_simple(struct cm_id_priv *priv, enum ib_cm_event_type type,
		     enum ib_wc_status status, const u8 *msg,
		     enum cm_msg_type msg_type);
int cm_prepare_timewait(struct cm_id_priv *priv, gfp_t gfp);
void cm_enter_timewait(struct cm_id_priv *priv);
void cm_reset_idle(struct cm_id_priv *priv);
void cm_cancel_msg(struct cm_id_priv *priv);
void cm_set_av(struct cm_id_priv *priv, struct cm_port *port,
	       struct rdma_ah_attr *av);
const struct ib_gid_attr *cm_path_sgid(struct ib_device *ibdev,
				       struct sa_path_rec *path,
				       const struct ib_gid_attr *given);
int cm_port_av(struct ib_device *ibdev, struct sa_path_rec *path,
	       const struct ib_gid_attr *sgid_attr, struct rdma_ah_attr *av,
	       struct cm_port **port);

/* cm_port.c */
struct cm_port *cm_port_of(struct ib_device *ibdev, u32 port_num);
void cm_device_put(struct cm_device *cm_dev);
struct ib_mad_send_buf *cm_post(struct cm_port *port, struct rdma_ah_attr *av,
				enum cm_msg_type type, __be64 tid,
				const u8 *payload,
				struct cm_id_priv *priv, unsigned long timeout_ms,
				int retries);
void cm_send_done(struct cm_id_priv *priv, struct ib_mad_send_buf *buf,
		  enum ib_wc_status status);
int cm_send_priv(struct cm_id_priv *priv, enum cm_msg_type type,
		 const u8 *payload, unsigned long timeout_ms, int retries);
int cm_resend_last(struct cm_id_priv *priv);
void cm_count(struct cm_port *port, enum cm_counter_group group,
	      enum cm_msg_type type);
void cm_drop(struct cm_port *port, enum cm_drop_reason reason,
	     enum cm_msg_type type, const char *why);
__be64 cm_new_tid(struct cm_port *port, __be32 local_id);
int cm_port_init(void);
void cm_port_exit(void);

/* cm_recv.c */
void cm_recv_dispatch(struct cm_port *port, struct ib_mad_recv_wc *rwc);
void cm_fill_pdata(u8 *msg, enum cm_msg_type type, const void *data,
		   u8 len);
void cm_copy_pdata(struct cm_event *ev, const u8 *msg,
		   enum cm_msg_type type);
void cm_publish(struct cm_id_priv *priv, struct cm_port *port,
		struct rdma_ah_attr *av, struct cm_event *ev,
		enum cm_msg_type type);
void cm_reply(struct cm_port *port, struct rdma_ah_attr *av,
	      struct ib_mad_recv_wc *rwc, enum cm_msg_type type,
	      const u8 *payload);

/* cm_sidr.c */
void cm_sidr_req_recv(struct cm_port *port, struct ib_mad_recv_wc *rwc,
		      const u8 *msg);
void cm_sidr_rep_recv(struct cm_port *port, const u8 *msg);
void cm_sidr_reject_locked(struct cm_id_priv *priv);
void cm_sidr_unindex(struct cm_id_priv *priv);
struct cm_id_priv *cm_sidr_index(struct cm_id_priv *priv);

#endif /* _CM_PRIV_H */
