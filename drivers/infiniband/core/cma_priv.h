/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Inside the RDMA CM (module rdma_cm).  Files:
 *   cma.c       IDs, their states and events, devices, the small calls
 *   cma_bind.c  port spaces: binding addresses and ports, listening on
 *               the devices (ib_cm or iw_cm listens), listener lookup
 *   cma_addr.c  address and route resolution
 *   cma_ib.c    connections over ib_cm: the ID's QP and its transitions,
 *               connect, accept, reject, disconnect, the ib_cm events;
 *               the calls' dispatch to cma_iw.c on iWARP ports
 *   cma_req.c   requests coming in: checks, listener lookup, new IDs
 *   cma_iw.c    connections over iw_cm (iWARP ports): listeners, requests,
 *               connect, accept, the QP's attributes, the iw_cm events
 *   cma_mcast.c RoCE multicast groups
 *   cma_hdr.c   the 36-byte header, Service IDs, flow label (pure code)
 *
 * Locking, outermost first:
 *   listener handler_mutex > ID handler_mutex > cma_mutex > ID lock.
 *   cma_mutex (global) guards the device list, each device's ID list, the
 *   list of wildcard listeners and every port space's bind table.  An
 *   ID's handler_mutex serializes its event handler with the calls that
 *   must not run beside it (accept, connect_locked, destroy), its lock
 *   (a spinlock) guards its state.  ib_destroy_cm_id(),
 *   iw_destroy_cm_id() and rdma_addr_cancel() wait for a running
 *   callback, which may take the ID's handler_mutex (and cma_mutex):
 *   they are never called with it held, except to undo an iw_cm ID that
 *   never got going (a connect refused under the handler_mutex, a listen
 *   refused under cma_mutex), which has no callback to wait for.
 *
 * Lifetime: an ID starts with one reference, its owner's.  Queued work,
 * the REQ handler's listener lookup and device removal take more while
 * they use it.  rdma_destroy_id() marks the ID DESTROYING under its
 * handler_mutex (so that no handler runs on it afterwards), tears down
 * what it holds (addresses, port, ib_cm or iw_cm ID, groups, device) and
 * drops the owner's reference; the memory goes with the last reference.  A
 * device record is referenced by every ID attached to it; removal waits
 * for them all.
 */
#ifndef _CMA_PRIV_H
#define _CMA_PRIV_H

#include <linux/completion.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <rdma/ib_cm.h>
#include <rdma/iw_cm.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_ib.h>
#include <rdma/restrack.h>

/* ID states, as upstream names them. */
enum rdma_cm_state {
	RDMA_CM_IDLE,
	RDMA_CM_ADDR_QUERY,
	RDMA_CM_ADDR_RESOLVED,
	RDMA_CM_ROUTE_QUERY,
	RDMA_CM_ROUTE_RESOLVED,
	RDMA_CM_CONNECT,
	RDMA_CM_DISCONNECT,
	RDMA_CM_ADDR_BOUND,
	RDMA_CM_LISTEN,
	RDMA_CM_DEVICE_REMOVAL,
	RDMA_CM_DESTROYING
};

/* CM timing stock uses: 2^20 us CM response time, 15 retries. */
#define CMA_CM_RESPONSE_TIMEOUT		20
#define CMA_MAX_CM_RETRIES		15
/* Service timeout of the deferred MRA (2^24 us). */
#define CMA_CM_MRA_SETTING		24
/* Packet life time of a RoCE path when no ACK timeout was set. */
#define CMA_IBOE_PACKET_LIFETIME	16

/**
 * struct cma_device - a device the RDMA CM knows
 * @node: on cma_devices (cma_mutex)
 * @device: the device
 * @ids: IDs attached to the device (cma_mutex)
 * @refs: one for the list, one per attached ID
 * @released: completed when @refs drops to zero
 * @gid_type: default GID type per port (index port - 1)
 * @tos: default type of service per port
 */
struct cma_device {
	struct list_head	node;
	struct ib_device	*device;
	struct list_head	ids;
	refcount_t		refs;
	struct completion	released;
	enum ib_gid_type	*gid_type;
	u8			*tos;
};

/**
 * struct cma_bind_list - the owners of one port of a port space
 * @owners: IDs bound to the port (cma_mutex)
 * @ps: the port space
 * @port: the port, host order
 */
struct cma_bind_list {
	struct hlist_head	owners;
	enum rdma_ucm_port_space ps;
	u16			port;
};

/**
 * struct cma_listen_dev - a listener's listen on one device
 * @node: on the listener's @listen_devs (cma_mutex)
 * @cma_dev: the device
 * @cm_id: on an IB CM device, the shared ib_cm listener of (device,
 *	Service ID); else NULL
 * @iw_id: on an iWARP device, the listener's own iw_cm listener; else NULL
 *
 * Holds a reference on @cma_dev.
 */
struct cma_listen_dev {
	struct list_head	node;
	struct cma_device	*cma_dev;
	struct ib_cm_id		*cm_id;
	struct iw_cm_id		*iw_id;
};

/**
 * struct rdma_id_private - an RDMA CM ID
 * @id: the part the owner sees
 * @caller: the owning module's name (kernel IDs), for restrack
 * @res: restrack entry, listed while the ID is on a device
 * @qp_mutex: guards @id.qp against its destruction
 * @lock: guards @state
 * @state: enum rdma_cm_state
 * @handler_mutex: held while the event handler runs and by the calls
 *	that must not run beside it
 * @refs: see "Lifetime" above
 * @cma_dev: the device record the ID is attached to, or NULL
 * @dev_node: on @cma_dev->ids
 * @bind_list: the port the ID is bound to, or NULL
 * @bind_node: on @bind_list->owners
 * @listen_node: on cma_listeners while a wildcard listener listens
 * @listen_devs: a listener's per-device listens
 * @cm_id: the ib_cm ID of a connection or SIDR exchange, or NULL
 * @iw_id: the iw_cm ID of a connection on an iWARP port, or NULL
 * @mc_list: multicast groups joined (@lock)
 * @seq_num: the PSN we receive from, announced as Starting PSN
 * @qkey: Q_Key of a UD ID
 * @qp_num: the QP number announced, from rdma_create_qp() or the caller
 * @srq: the announced QP uses an SRQ
 * @backlog: what rdma_listen() was given
 * @tos: type of service, from rdma_set_service_type()
 * @timeout: ACK timeout, from rdma_set_ack_timeout()
 * @min_rnr_timer: from rdma_set_min_rnr_timer()
 * @tos_set: @tos was set
 * @timeout_set: @timeout was set
 * @min_rnr_timer_set: @min_rnr_timer was set
 * @reuseaddr: rdma_set_reuseaddr()
 * @afonly: an IPv6 wildcard does not take IPv4 (rdma_set_afonly(), or the
 *	namespace's bindv6only at bind time)
 * @afonly_set: rdma_set_afonly() was called
 * @accepted: a passive connection has been accepted or rejected
 * @addr_pending: an address resolution may still call back (set before
 *	it starts, cleared by the callback under @handler_mutex)
 * @ece: options to send
 */
struct rdma_id_private {
	struct rdma_cm_id	id;
	const char		*caller;
	struct rdma_restrack_entry res;

	struct mutex		qp_mutex;	/* see above */
	spinlock_t		lock;		/* see above */
	enum rdma_cm_state	state;
	struct mutex		handler_mutex;	/* see above */
	refcount_t		refs;

	struct cma_device	*cma_dev;
	struct list_head	dev_node;
	struct cma_bind_list	*bind_list;
	struct hlist_node	bind_node;
	struct list_head	listen_node;
	struct list_head	listen_devs;
	struct ib_cm_id		*cm_id;
	struct iw_cm_id		*iw_id;
	struct list_head	mc_list;

	u32			seq_num;
	u32			qkey;
	u32			qp_num;
	u8			srq;
	int			backlog;
	u8			tos;
	u8			timeout;
	u8			min_rnr_timer;
	u8			tos_set:1;
	u8			timeout_set:1;
	u8			min_rnr_timer_set:1;
	u8			reuseaddr:1;
	u8			afonly:1;
	u8			afonly_set:1;
	u8			accepted:1;
	bool			addr_pending;
	struct rdma_ucm_ece	ece;
};

static inline struct rdma_id_private *cma_priv(struct rdma_cm_id *id)
{
	return container_of(id, struct rdma_id_private, id);
}

static inline struct sockaddr *cma_src(struct rdma_id_private *p)
{
	return (struct sockaddr *)&p->id.route.addr.src_addr;
}

static inline struct sockaddr *cma_dst(struct rdma_id_private *p)
{
	return (struct sockaddr *)&p->id.route.addr.dst_addr;
}

static inline struct net *cma_net(struct rdma_id_private *p)
{
	return p->id.route.addr.dev_addr.net;
}

/* Does the ID's port connect through iw_cm?  It must have a device. */
static inline bool cma_iwarp(struct rdma_id_private *p)
{
	return rdma_cap_iw_cm(p->id.device, p->id.port_num);
}

/* cma.c */
extern struct mutex cma_mutex;
extern struct list_head cma_devices;
extern struct list_head cma_listeners;
extern struct workqueue_struct *cma_wq;

enum rdma_cm_state cma_state(struct rdma_id_private *p);
bool cma_move(struct rdma_id_private *p, enum rdma_cm_state from,
	      enum rdma_cm_state to);
void cma_set_state(struct rdma_id_private *p, enum rdma_cm_state to);
void cma_get(struct rdma_id_private *p);
void cma_put(struct rdma_id_private *p);
struct rdma_id_private *cma_id_alloc(struct net *net,
				     rdma_cm_event_handler handler,
				     void *context,
				     enum rdma_ucm_port_space ps,
				     enum ib_qp_type qp_type,
				     const char *caller);
void cma_dev_put(struct cma_device *cd);
void cma_attach(struct rdma_id_private *p, struct cma_device *cd,
		u32 port, const struct ib_gid_attr *sgid_attr);
int cma_deliver(struct rdma_id_private *p, struct rdma_cm_event *ev);
int cma_cm_deliver(struct rdma_id_private *p, struct rdma_cm_event *ev);
void cma_destroy_unlock(struct rdma_id_private *p);
struct rdma_id_private *cma_conn_alloc(struct rdma_id_private *l,
				       enum ib_qp_type qp_type);
void cma_conn_free(struct rdma_id_private *c);
int cma_queue_event(struct rdma_id_private *p, enum rdma_cm_state from,
		    enum rdma_cm_state to, const struct rdma_cm_event *ev);
u8 cma_id_tos(struct rdma_id_private *p);
bool cma_any_addr(const struct sockaddr *a);
u16 cma_port(const struct sockaddr *a);
void cma_set_port(struct sockaddr *a, u16 port);
int cma_attach_by_addr(struct rdma_id_private *p, struct net_device *ndev,
		       const struct sockaddr *addr, struct ib_device *device);

/* cma_bind.c */
int cma_bind(struct rdma_id_private *p, struct sockaddr *addr);
int cma_bind_any(struct rdma_id_private *p, sa_family_t family);
void cma_unbind(struct rdma_id_private *p);
struct rdma_id_private *cma_find_listener(struct net *net, u16 ps, u16 port,
					  struct ib_device *device,
					  const struct sockaddr *dst,
					  int ifindex, enum ib_qp_type type);
int cma_listen_on(struct rdma_id_private *p, struct cma_device *cd);
void cma_listen_dev_free(struct cma_listen_dev *ld);
int cma_pernet_init(void);
void cma_pernet_exit(void);

/* cma_addr.c */
void cma_cancel_addr(struct rdma_id_private *p);
void cma_free_route(struct rdma_id_private *p);

/* cma_ib.c */
int cma_ib_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev);
void cma_qp_to_err(struct rdma_id_private *p);
int cma_qp_modify(struct rdma_id_private *p, enum ib_qp_state state,
		  const struct rdma_conn_param *param);
int cma_qp_connect(struct rdma_id_private *p,
		   const struct rdma_conn_param *param, enum ib_qp_state last);

/* cma_req.c */
int cma_req_handler(struct ib_cm_id *cm_id, const struct ib_cm_event *ev);

/* cma_iw.c */
struct iw_cm_id *cma_iw_listen(struct rdma_id_private *p,
			       struct ib_device *device);
int cma_iw_connect(struct rdma_id_private *p,
		   const struct rdma_conn_param *param);
int cma_iw_accept(struct rdma_id_private *p,
		  const struct rdma_conn_param *param);
int cma_iw_init_qp_attr(struct rdma_id_private *p, struct ib_qp_attr *attr,
			int *mask);

/* cma_mcast.c */
void cma_leave_all(struct rdma_id_private *p);

#endif /* _CMA_PRIV_H */
