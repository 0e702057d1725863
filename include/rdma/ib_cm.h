/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The InfiniBand connection manager (module ib_cm): the communication
 * management protocol of IBTA Vol 1 chapter 12, spoken in MADs of class
 * 0x07 on QP 1, on InfiniBand and RoCE ports alike.  Names, values and
 * signatures are the upstream kernel's, so that its users (rdma_cm, SRP,
 * IPoIB's connected mode) build against this header unchanged.
 */
#ifndef IB_CM_H
#define IB_CM_H

#include <rdma/ib_mad.h>
#include <rdma/ib_sa.h>
#include <rdma/rdma_user_cm.h>

/* Where a connection (or a service ID resolution) stands. */
enum ib_cm_state {
	IB_CM_IDLE,
	IB_CM_LISTEN,
	IB_CM_REQ_SENT,
	IB_CM_REQ_RCVD,
	IB_CM_MRA_REQ_SENT,
	IB_CM_MRA_REQ_RCVD,
	IB_CM_REP_SENT,
	IB_CM_REP_RCVD,
	IB_CM_MRA_REP_SENT,
	IB_CM_MRA_REP_RCVD,
	IB_CM_ESTABLISHED,
	IB_CM_DREQ_SENT,
	IB_CM_DREQ_RCVD,
	IB_CM_TIMEWAIT,
	IB_CM_SIDR_REQ_SENT,
	IB_CM_SIDR_REQ_RCVD
};

/* Path migration states; this connection manager leaves them unused. */
enum ib_cm_lap_state {
	IB_CM_LAP_UNINIT,
	IB_CM_LAP_IDLE,
	IB_CM_LAP_SENT,
	IB_CM_LAP_RCVD,
	IB_CM_MRA_LAP_SENT,
	IB_CM_MRA_LAP_RCVD,
};

/* What a handler is told about. */
enum ib_cm_event_type {
	IB_CM_REQ_ERROR,
	IB_CM_REQ_RECEIVED,
	IB_CM_REP_ERROR,
	IB_CM_REP_RECEIVED,
	IB_CM_RTU_RECEIVED,
	IB_CM_USER_ESTABLISHED,
	IB_CM_DREQ_ERROR,
	IB_CM_DREQ_RECEIVED,
	IB_CM_DREP_RECEIVED,
	IB_CM_TIMEWAIT_EXIT,
	IB_CM_MRA_RECEIVED,
	IB_CM_REJ_RECEIVED,
	IB_CM_LAP_ERROR,
	IB_CM_LAP_RECEIVED,
	IB_CM_APR_RECEIVED,
	IB_CM_SIDR_REQ_ERROR,
	IB_CM_SIDR_REQ_RECEIVED,
	IB_CM_SIDR_REP_RECEIVED
};

/* Room for private data (and other variable parts) in each message. */
enum ib_cm_data_size {
	IB_CM_REQ_PRIVATE_DATA_SIZE	 = 92,
	IB_CM_MRA_PRIVATE_DATA_SIZE	 = 222,
	IB_CM_REJ_PRIVATE_DATA_SIZE	 = 148,
	IB_CM_REP_PRIVATE_DATA_SIZE	 = 196,
	IB_CM_RTU_PRIVATE_DATA_SIZE	 = 224,
	IB_CM_DREQ_PRIVATE_DATA_SIZE	 = 220,
	IB_CM_DREP_PRIVATE_DATA_SIZE	 = 224,
	IB_CM_REJ_ARI_LENGTH		 = 72,
	IB_CM_LAP_PRIVATE_DATA_SIZE	 = 168,
	IB_CM_APR_PRIVATE_DATA_SIZE	 = 148,
	IB_CM_APR_INFO_LENGTH		 = 72,
	IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE = 216,
	IB_CM_SIDR_REP_PRIVATE_DATA_SIZE = 136,
	IB_CM_SIDR_REP_INFO_LENGTH	 = 72,
};

struct ib_cm_id;

/**
 * struct ib_cm_req_event_param - a connection request that came in
 * @listen_id: the listener it matched
 * @bth_pkey: P_Key of the packet that carried it
 * @port: port it came in on
 * @primary_path: the path back to the requester, as the REQ describes it
 * @alternate_path: NULL: alternate paths are not taken
 * @ppath_sgid_attr: our GID entry the REQ is addressed to
 * @remote_ca_guid: the requester's CA GUID
 * @remote_qkey: its Q_Key (0 for RC)
 * @remote_qpn: its QP
 * @qp_type: IB_QPT_RC, IB_QPT_UC or IB_QPT_XRC_TGT
 * @starting_psn: the PSN our QP sends with first
 * @responder_resources: reads and atomics our QP may take in: the
 *	requester's initiator depth
 * @initiator_depth: those our QP may issue: its responder resources
 * @local_cm_response_timeout: how long the requester takes to answer
 * @flow_control: end-to-end flow control
 * @remote_cm_response_timeout: how long it gives us to answer
 * @retry_count: transport retries for our QP
 * @rnr_retry_count: RNR retries for our QP
 * @srq: the requester's QP has an SRQ
 * @ece: enhanced connection establishment options
 */
struct ib_cm_req_event_param {
	struct ib_cm_id		*listen_id;
	u16			bth_pkey;
	u8			port;
	struct sa_path_rec	*primary_path;
	struct sa_path_rec	*alternate_path;
	const struct ib_gid_attr *ppath_sgid_attr;
	__be64			remote_ca_guid;
	u32			remote_qkey;
	u32			remote_qpn;
	enum ib_qp_type		qp_type;
	u32			starting_psn;
	u8			responder_resources;
	u8			initiator_depth;
	unsigned int		local_cm_response_timeout:5;
	unsigned int		flow_control:1;
	unsigned int		remote_cm_response_timeout:5;
	unsigned int		retry_count:3;
	unsigned int		rnr_retry_count:3;
	unsigned int		srq:1;
	struct rdma_ucm_ece	ece;
};

/**
 * struct ib_cm_rep_event_param - the answer to our request
 * @remote_ca_guid: the replier's CA GUID
 * @remote_qkey: its Q_Key
 * @remote_qpn: its QP
 * @starting_psn: the PSN our QP sends with first
 * @responder_resources: reads and atomics our QP may take in: the
 *	replier's initiator depth
 * @initiator_depth: those our QP may issue: its responder resources
 * @target_ack_delay: the replier's local ACK delay
 * @failover_accepted: alternate path answer
 * @flow_control: end-to-end flow control
 * @rnr_retry_count: RNR retries for our QP
 * @srq: the replier's QP has an SRQ
 * @ece: enhanced connection establishment options
 */
struct ib_cm_rep_event_param {
	__be64			remote_ca_guid;
	u32			remote_qkey;
	u32			remote_qpn;
	u32			starting_psn;
	u8			responder_resources;
	u8			initiator_depth;
	unsigned int		target_ack_delay:5;
	unsigned int		failover_accepted:2;
	unsigned int		flow_control:1;
	unsigned int		rnr_retry_count:3;
	unsigned int		srq:1;
	struct rdma_ucm_ece	ece;
};

/* Why a connection was refused (IBTA table 112). */
enum ib_cm_rej_reason {
	IB_CM_REJ_NO_QP				= 1,
	IB_CM_REJ_NO_EEC			= 2,
	IB_CM_REJ_NO_RESOURCES			= 3,
	IB_CM_REJ_TIMEOUT			= 4,
	IB_CM_REJ_UNSUPPORTED			= 5,
	IB_CM_REJ_INVALID_COMM_ID		= 6,
	IB_CM_REJ_INVALID_COMM_INSTANCE		= 7,
	IB_CM_REJ_INVALID_SERVICE_ID		= 8,
	IB_CM_REJ_INVALID_TRANSPORT_TYPE	= 9,
	IB_CM_REJ_STALE_CONN			= 10,
	IB_CM_REJ_RDC_NOT_EXIST			= 11,
	IB_CM_REJ_INVALID_GID			= 12,
	IB_CM_REJ_INVALID_LID			= 13,
	IB_CM_REJ_INVALID_SL			= 14,
	IB_CM_REJ_INVALID_TRAFFIC_CLASS		= 15,
	IB_CM_REJ_INVALID_HOP_LIMIT		= 16,
	IB_CM_REJ_INVALID_PACKET_RATE		= 17,
	IB_CM_REJ_INVALID_ALT_GID		= 18,
	IB_CM_REJ_INVALID_ALT_LID		= 19,
	IB_CM_REJ_INVALID_ALT_SL		= 20,
	IB_CM_REJ_INVALID_ALT_TRAFFIC_CLASS	= 21,
	IB_CM_REJ_INVALID_ALT_HOP_LIMIT		= 22,
	IB_CM_REJ_INVALID_ALT_PACKET_RATE	= 23,
	IB_CM_REJ_PORT_CM_REDIRECT		= 24,
	IB_CM_REJ_PORT_REDIRECT			= 25,
	IB_CM_REJ_INVALID_MTU			= 26,
	IB_CM_REJ_INSUFFICIENT_RESP_RESOURCES	= 27,
	IB_CM_REJ_CONSUMER_DEFINED		= 28,
	IB_CM_REJ_INVALID_RNR_RETRY		= 29,
	IB_CM_REJ_DUPLICATE_LOCAL_COMM_ID	= 30,
	IB_CM_REJ_INVALID_CLASS_VERSION		= 31,
	IB_CM_REJ_INVALID_FLOW_LABEL		= 32,
	IB_CM_REJ_INVALID_ALT_FLOW_LABEL	= 33,
	IB_CM_REJ_VENDOR_OPTION_NOT_SUPPORTED	= 35,
};

/**
 * struct ib_cm_rej_event_param - a refusal
 * @reason: the peer's reason
 * @ari: additional rejection information (@ari_length bytes)
 * @ari_length: how much of it there is
 */
struct ib_cm_rej_event_param {
	enum ib_cm_rej_reason	reason;
	void			*ari;
	u8			ari_length;
};

/**
 * struct ib_cm_mra_event_param - the peer needs more time
 * @service_timeout: how much, as an exponent of 4.096 us
 */
struct ib_cm_mra_event_param {
	u8	service_timeout;
};

/**
 * struct ib_cm_lap_event_param - a load-alternate-path request
 * @alternate_path: the path offered
 */
struct ib_cm_lap_event_param {
	struct sa_path_rec	*alternate_path;
};

/* Answers to a LAP (IBTA table 119). */
enum ib_cm_apr_status {
	IB_CM_APR_SUCCESS,
	IB_CM_APR_INVALID_COMM_ID,
	IB_CM_APR_UNSUPPORTED,
	IB_CM_APR_REJECT,
	IB_CM_APR_REDIRECT,
	IB_CM_APR_IS_CURRENT,
	IB_CM_APR_INVALID_QPN_EECN,
	IB_CM_APR_INVALID_LID,
	IB_CM_APR_INVALID_GID,
	IB_CM_APR_INVALID_FLOW_LABEL,
	IB_CM_APR_INVALID_TCLASS,
	IB_CM_APR_INVALID_HOP_LIMIT,
	IB_CM_APR_INVALID_PACKET_RATE,
	IB_CM_APR_INVALID_SL
};

/**
 * struct ib_cm_apr_event_param - the answer to a LAP
 * @ap_status: the status
 * @apr_info: extra information (@info_len bytes)
 * @info_len: how much of it there is
 */
struct ib_cm_apr_event_param {
	enum ib_cm_apr_status	ap_status;
	void			*apr_info;
	u8			info_len;
};

/**
 * struct ib_cm_sidr_req_event_param - a service ID resolution request
 * @listen_id: the listener it matched
 * @service_id: the service asked for
 * @sgid_attr: our GID entry it is addressed to
 * @bth_pkey: P_Key of the packet that carried it
 * @port: port it came in on
 * @pkey: the P_Key the request names
 */
struct ib_cm_sidr_req_event_param {
	struct ib_cm_id		*listen_id;
	__be64			service_id;
	const struct ib_gid_attr *sgid_attr;
	u16			bth_pkey;
	u8			port;
	u16			pkey;
};

/* Answers to a SIDR_REQ (IBTA table 120). */
enum ib_cm_sidr_status {
	IB_SIDR_SUCCESS,
	IB_SIDR_UNSUPPORTED,
	IB_SIDR_REJECT,
	IB_SIDR_NO_QP,
	IB_SIDR_REDIRECT,
	IB_SIDR_UNSUPPORTED_VERSION
};

/**
 * struct ib_cm_sidr_rep_event_param - the answer to our SIDR_REQ
 * @status: the status
 * @qkey: the service's Q_Key
 * @qpn: the service's QP
 * @info: additional information (@info_len bytes)
 * @sgid_attr: our GID entry the request went out from
 * @info_len: how much of it there is
 */
struct ib_cm_sidr_rep_event_param {
	enum ib_cm_sidr_status	status;
	u32			qkey;
	u32			qpn;
	void			*info;
	const struct ib_gid_attr *sgid_attr;
	u8			info_len;
};

/**
 * struct ib_cm_event - what a handler is given
 * @event: the event
 * @param: its parameters, by event (send_status for the *_ERROR ones)
 * @private_data: the message's private data, valid during the call
 */
struct ib_cm_event {
	enum ib_cm_event_type	event;
	union {
		struct ib_cm_req_event_param	req_rcvd;
		struct ib_cm_rep_event_param	rep_rcvd;
		struct ib_cm_rej_event_param	rej_rcvd;
		struct ib_cm_mra_event_param	mra_rcvd;
		struct ib_cm_lap_event_param	lap_rcvd;
		struct ib_cm_apr_event_param	apr_rcvd;
		struct ib_cm_sidr_req_event_param sidr_req_rcvd;
		struct ib_cm_sidr_rep_event_param sidr_rep_rcvd;
		enum ib_wc_status		send_status;
	} param;

	void			*private_data;
};

#define CM_REQ_ATTR_ID		cpu_to_be16(0x0010)
#define CM_MRA_ATTR_ID		cpu_to_be16(0x0011)
#define CM_REJ_ATTR_ID		cpu_to_be16(0x0012)
#define CM_REP_ATTR_ID		cpu_to_be16(0x0013)
#define CM_RTU_ATTR_ID		cpu_to_be16(0x0014)
#define CM_DREQ_ATTR_ID		cpu_to_be16(0x0015)
#define CM_DREP_ATTR_ID		cpu_to_be16(0x0016)
#define CM_SIDR_REQ_ATTR_ID	cpu_to_be16(0x0017)
#define CM_SIDR_REP_ATTR_ID	cpu_to_be16(0x0018)
#define CM_LAP_ATTR_ID		cpu_to_be16(0x0019)
#define CM_APR_ATTR_ID		cpu_to_be16(0x001A)

/*
 * A handler runs in process context, one event of an ID at a time.  A
 * non-zero return asks the CM to destroy the ID (the handler must not call
 * ib_destroy_cm_id() on it).
 */
typedef int (*ib_cm_handler)(struct ib_cm_id *cm_id,
			     const struct ib_cm_event *event);

/**
 * struct ib_cm_id - one end of a connection, a listener or a SIDR exchange
 * @cm_handler: where its events go
 * @context: the user's, for @cm_handler
 * @device: the device it lives on
 * @service_id: the service it listens on or connects to
 * @state: read-only for users
 * @lap_state: unused
 * @local_id: our communication ID
 * @remote_id: the peer's, once known
 * @remote_cm_qpn: the QP the peer's CM listens on (1)
 */
struct ib_cm_id {
	ib_cm_handler		cm_handler;
	void			*context;
	struct ib_device	*device;
	__be64			service_id;
	enum ib_cm_state	state;
	enum ib_cm_lap_state	lap_state;
	__be32			local_id;
	__be32			remote_id;
	u32			remote_cm_qpn;
};

struct ib_cm_id *ib_create_cm_id(struct ib_device *device,
				 ib_cm_handler cm_handler,
				 void *context);

void ib_destroy_cm_id(struct ib_cm_id *cm_id);

#define IB_SERVICE_ID_AGN_MASK	cpu_to_be64(0xFF00000000000000ULL)
#define IB_CM_ASSIGN_SERVICE_ID	cpu_to_be64(0x0200000000000000ULL)
#define IB_CMA_SERVICE_ID	cpu_to_be64(0x0000000001000000ULL)
#define IB_CMA_SERVICE_ID_MASK	cpu_to_be64(0xFFFFFFFFFF000000ULL)
#define IB_SDP_SERVICE_ID	cpu_to_be64(0x0000000000010000ULL)
#define IB_SDP_SERVICE_ID_MASK	cpu_to_be64(0xFFFFFFFFFFFF0000ULL)

int ib_cm_listen(struct ib_cm_id *cm_id, __be64 service_id);

struct ib_cm_id *ib_cm_insert_listen(struct ib_device *device,
				     ib_cm_handler cm_handler,
				     __be64 service_id);

/**
 * struct ib_cm_req_param - what ib_send_cm_req() asks for
 * @primary_path: the path to the peer (required)
 * @primary_path_inbound: unused
 * @primary_path_outbound: unused
 * @alternate_path: must be NULL
 * @ppath_sgid_attr: our GID entry to send from (RoCE)
 * @service_id: the service to connect to
 * @qp_num: our QP
 * @qp_type: IB_QPT_RC, IB_QPT_UC or IB_QPT_XRC_INI
 * @starting_psn: the PSN our QP receives with first
 * @private_data: up to IB_CM_REQ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 * @responder_resources: reads and atomics our QP takes in
 * @initiator_depth: those it issues
 * @remote_cm_response_timeout: how long the peer has to answer (exponent)
 * @flow_control: end-to-end flow control
 * @local_cm_response_timeout: how long we take to answer (exponent)
 * @retry_count: transport retries (0-7)
 * @rnr_retry_count: RNR retries the peer's QP makes (0-7)
 * @max_cm_retries: retransmissions of the REQ, and later of REP and DREQ
 * @srq: our QP has an SRQ
 * @ece: enhanced connection establishment options
 */
struct ib_cm_req_param {
	struct sa_path_rec	*primary_path;
	struct sa_path_rec	*primary_path_inbound;
	struct sa_path_rec	*primary_path_outbound;
	struct sa_path_rec	*alternate_path;
	const struct ib_gid_attr *ppath_sgid_attr;
	__be64			service_id;
	u32			qp_num;
	enum ib_qp_type		qp_type;
	u32			starting_psn;
	const void		*private_data;
	u8			private_data_len;
	u8			responder_resources;
	u8			initiator_depth;
	u8			remote_cm_response_timeout;
	u8			flow_control;
	u8			local_cm_response_timeout;
	u8			retry_count;
	u8			rnr_retry_count;
	u8			max_cm_retries;
	u8			srq;
	struct rdma_ucm_ece	ece;
};

int ib_send_cm_req(struct ib_cm_id *cm_id,
		   struct ib_cm_req_param *param);

/**
 * struct ib_cm_rep_param - what ib_send_cm_rep() answers
 * @qp_num: our QP
 * @starting_psn: the PSN our QP receives with first
 * @private_data: up to IB_CM_REP_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 * @responder_resources: reads and atomics our QP takes in
 * @initiator_depth: those it issues
 * @failover_accepted: alternate path answer (0)
 * @flow_control: end-to-end flow control
 * @rnr_retry_count: RNR retries the requester's QP makes (0-7)
 * @srq: our QP has an SRQ
 * @ece: enhanced connection establishment options
 */
struct ib_cm_rep_param {
	u32		qp_num;
	u32		starting_psn;
	const void	*private_data;
	u8		private_data_len;
	u8		responder_resources;
	u8		initiator_depth;
	u8		failover_accepted;
	u8		flow_control;
	u8		rnr_retry_count;
	u8		srq;
	struct rdma_ucm_ece ece;
};

int ib_send_cm_rep(struct ib_cm_id *cm_id,
		   struct ib_cm_rep_param *param);

int ib_send_cm_rtu(struct ib_cm_id *cm_id,
		   const void *private_data,
		   u8 private_data_len);

int ib_send_cm_dreq(struct ib_cm_id *cm_id,
		    const void *private_data,
		    u8 private_data_len);

int ib_send_cm_drep(struct ib_cm_id *cm_id,
		    const void *private_data,
		    u8 private_data_len);

int ib_cm_notify(struct ib_cm_id *cm_id, enum ib_event_type event);

int ib_send_cm_rej(struct ib_cm_id *cm_id,
		   enum ib_cm_rej_reason reason,
		   void *ari,
		   u8 ari_length,
		   const void *private_data,
		   u8 private_data_len);

/* With ib_send_cm_mra(): send the MRA only when the peer repeats itself. */
#define IB_CM_MRA_FLAG_DELAY 0x80

int ib_send_cm_mra(struct ib_cm_id *cm_id,
		   u8 service_timeout,
		   const void *private_data,
		   u8 private_data_len);

int ib_cm_init_qp_attr(struct ib_cm_id *cm_id,
		       struct ib_qp_attr *qp_attr,
		       int *qp_attr_mask);

/**
 * struct ib_cm_sidr_req_param - what ib_send_cm_sidr_req() asks for
 * @path: the path to the peer
 * @sgid_attr: our GID entry to send from (RoCE)
 * @service_id: the service to resolve
 * @timeout_ms: wait for the answer, per transmission
 * @private_data: up to IB_CM_SIDR_REQ_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 * @max_cm_retries: retransmissions
 */
struct ib_cm_sidr_req_param {
	struct sa_path_rec	*path;
	const struct ib_gid_attr *sgid_attr;
	__be64			service_id;
	unsigned long		timeout_ms;
	const void		*private_data;
	u8			private_data_len;
	u8			max_cm_retries;
};

int ib_send_cm_sidr_req(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_req_param *param);

/**
 * struct ib_cm_sidr_rep_param - what ib_send_cm_sidr_rep() answers
 * @qp_num: the service's QP
 * @qkey: its Q_Key
 * @status: the status
 * @info: additional information
 * @info_length: its length (up to IB_CM_SIDR_REP_INFO_LENGTH)
 * @private_data: up to IB_CM_SIDR_REP_PRIVATE_DATA_SIZE bytes
 * @private_data_len: their length
 * @ece: enhanced connection establishment options
 */
struct ib_cm_sidr_rep_param {
	u32			qp_num;
	u32			qkey;
	enum ib_cm_sidr_status	status;
	const void		*info;
	u8			info_length;
	const void		*private_data;
	u8			private_data_len;
	struct rdma_ucm_ece	ece;
};

int ib_send_cm_sidr_rep(struct ib_cm_id *cm_id,
			struct ib_cm_sidr_rep_param *param);

const char *__attribute_const__ ibcm_reject_msg(int reason);

#endif /* IB_CM_H */
