/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The iWARP connection manager (module iw_cm): connections of iWARP
 * devices, whose providers set them up over TCP themselves (MPA) through
 * the iw_* ops of struct ib_device_ops and report them through the
 * event_handler of struct iw_cm_id.  rdma_cm uses it on iWARP ports.
 * There is no port mapper: the m_ addresses are copies of the others.
 * Names, structures and signatures follow upstream Linux; the contract
 * of both sides is in Documentation/infiniband/iw_cm.rst.
 */
#ifndef IW_CM_H
#define IW_CM_H

#include <linux/in.h>
#include <rdma/ib_cm.h>

struct iw_cm_id;

/* What a provider reports about a connection. */
enum iw_cm_event_type {
	IW_CM_EVENT_CONNECT_REQUEST = 1,
	IW_CM_EVENT_CONNECT_REPLY,
	IW_CM_EVENT_ESTABLISHED,
	IW_CM_EVENT_DISCONNECT,
	IW_CM_EVENT_CLOSE
};

/**
 * struct iw_cm_event - one such report
 * @event: what happened
 * @status: 0 or a negative errno (CONNECT_REPLY: why the connect failed)
 * @local_addr: our end (CONNECT_REQUEST: of the new connection)
 * @remote_addr: the peer's end
 * @private_data: MPA private data of the request or reply; the provider's
 *	buffer needs to live only during the event_handler call (iw_cm copies)
 * @provider_data: CONNECT_REQUEST: the provider's handle of the new
 *	connection, which becomes the new ID's provider_data
 * @private_data_len: length of @private_data
 * @ord: the peer's outbound RDMA READ depth, as its MPA request or reply
 *	announced it
 * @ird: the peer's inbound RDMA READ depth
 */
struct iw_cm_event {
	enum iw_cm_event_type event;
	int			 status;
	struct sockaddr_storage local_addr;
	struct sockaddr_storage remote_addr;
	void *private_data;
	void *provider_data;
	u8 private_data_len;
	u8 ord;
	u8 ird;
};

/* The user's callback, and the provider's entry into the CM. */
typedef int (*iw_cm_handler)(struct iw_cm_id *cm_id,
			     struct iw_cm_event *event);

typedef int (*iw_event_handler)(struct iw_cm_id *cm_id,
				 struct iw_cm_event *event);

/**
 * struct iw_cm_id - one end of an iWARP connection, or a listener
 * @cm_handler: the user's callback
 * @context: the user's
 * @device: the device
 * @local_addr: our address
 * @remote_addr: the peer's
 * @m_local_addr: the address the provider uses: a copy of @local_addr
 *	(there is no port mapper)
 * @m_remote_addr: likewise, a copy of @remote_addr
 * @provider_data: the provider's
 * @event_handler: where the provider reports events (set by iw_cm)
 * @add_ref: the provider takes a reference on the ID (set by iw_cm)
 * @rem_ref: and drops it (set by iw_cm)
 * @tos: type of service
 * @tos_set: @tos was set
 * @mapped: the addresses were mapped by a port mapper: always false
 * @afonly: an IPv6 wildcard listener takes no IPv4 connections
 */
struct iw_cm_id {
	iw_cm_handler		cm_handler;
	void			*context;
	struct ib_device	*device;
	struct sockaddr_storage local_addr;
	struct sockaddr_storage	remote_addr;
	struct sockaddr_storage m_local_addr;
	struct sockaddr_storage	m_remote_addr;
	void			*provider_data;
	iw_event_handler        event_handler;
	void (*add_ref)(struct iw_cm_id *cm_id);
	void (*rem_ref)(struct iw_cm_id *cm_id);
	u8  tos;
	bool tos_set:1;
	bool mapped:1;
	bool afonly:1;
};

/**
 * struct iw_cm_conn_param - what a connect or accept asks for
 * @private_data: MPA private data
 * @private_data_len: its length
 * @ord: outbound RDMA READ depth
 * @ird: inbound RDMA READ depth
 * @qpn: the QP to connect
 */
struct iw_cm_conn_param {
	const void *private_data;
	u16 private_data_len;
	u32 ord;
	u32 ird;
	u32 qpn;
};

/* Device flags: IW_F_NO_PORT_MAP for providers outside the port mapper. */
enum iw_flags {
	IW_F_NO_PORT_MAP = (1 << 0),
};

struct iw_cm_id *iw_create_cm_id(struct ib_device *device,
				 iw_cm_handler cm_handler, void *context);

void iw_destroy_cm_id(struct iw_cm_id *cm_id);

int iw_cm_listen(struct iw_cm_id *cm_id, int backlog);

int iw_cm_accept(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param);

int iw_cm_reject(struct iw_cm_id *cm_id, const void *private_data,
		 u8 private_data_len);

int iw_cm_connect(struct iw_cm_id *cm_id, struct iw_cm_conn_param *iw_param);

int iw_cm_disconnect(struct iw_cm_id *cm_id, int abrupt);

int iw_cm_init_qp_attr(struct iw_cm_id *cm_id, struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask);

const char *__attribute_const__ iwcm_reject_msg(int reason);

#endif /* IW_CM_H */
