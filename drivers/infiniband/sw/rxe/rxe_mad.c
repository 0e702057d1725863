// SPDX-License-Identifier: GPL-2.0
/*
 * The port's performance management agent: process_mad() answers Get()
 * of ClassPortInfo, PortCounters and PortCountersExtended from the
 * device's counters (rxe_hw_counters.c), which is what the core's
 * ports/1/counters files read.  Other management classes are left to the
 * MAD layer; Set() (counter reset) is refused with UnsupportedMethod.
 *
 * What the PMA counters count on a soft-RoCE port:
 *   port_xmit_data / port_rcv_data	sent_bytes / rcvd_bytes (BTH to ICRC
 *					of each packet) divided by four;
 *   port_xmit_packets / port_rcv_packets	sent_pkts / rcvd_pkts;
 *   port_multicast_*_packets		sent_mcast_pkts / rcvd_mcast_pkts,
 *					and the unicast ones the rest;
 *   port_rcv_errors			packets dropped as malformed: bad
 *					length, opcode, version, ICRC;
 *   port_rcv_constraint_errors		packets dropped for their P_Key;
 *   port_xmit_discards			packets the IP layer refused;
 *   link_downed			times the port went down.
 * The link-level ones (symbol errors, link recovery, VL15, buffer
 * overruns, remote physical and switch relay errors, xmit wait) have no
 * soft-RoCE counterpart: the agent reports them as zero.  The counters of
 * PortCounters saturate at their width, as the specification has them.
 *
 * Context of every call: any; reads atomic counters only.
 */
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>

#include "rxe.h"

static u64 rxe_stat(struct rxe_dev *rxe, enum rxe_counter c)
{
	return atomic64_read(&rxe->stats[c]);
}

static u64 rxe_rcv_errors(struct rxe_dev *rxe)
{
	return rxe_stat(rxe, RXE_CNT_DROP_LENGTH) +
	       rxe_stat(rxe, RXE_CNT_DROP_OPCODE) +
	       rxe_stat(rxe, RXE_CNT_DROP_VERSION) +
	       rxe_stat(rxe, RXE_CNT_DROP_ICRC) +
	       rxe_stat(rxe, RXE_CNT_DROP_MALFORMED);
}

static void rxe_pma_class_info(struct ib_class_port_info *cpi)
{
	cpi->base_version = IB_MGMT_BASE_VERSION;
	cpi->class_version = 1;
	cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH;
	/* RespTimeValue 18: 4.096 us * 2^18, about one second */
	cpi->cap_mask2_resp_time = cpu_to_be32(18);
}

static void rxe_pma_counters(struct rxe_dev *rxe,
			     struct ib_pma_portcounters *pc)
{
	pc->link_downed_counter = min_t(u64, rxe_stat(rxe, RXE_CNT_LINK_DOWNED),
					U8_MAX);
	pc->port_rcv_errors = cpu_to_be16(min_t(u64, rxe_rcv_errors(rxe),
						U16_MAX));
	pc->port_xmit_discards =
		cpu_to_be16(min_t(u64, rxe_stat(rxe, RXE_CNT_SEND_ERR),
				  U16_MAX));
	pc->port_rcv_constraint_errors =
		min_t(u64, rxe_stat(rxe, RXE_CNT_DROP_PKEY), U8_MAX);
	pc->port_xmit_data =
		cpu_to_be32(min_t(u64, rxe_stat(rxe, RXE_CNT_SENT_BYTES) / 4,
				  U32_MAX));
	pc->port_rcv_data =
		cpu_to_be32(min_t(u64, rxe_stat(rxe, RXE_CNT_RCVD_BYTES) / 4,
				  U32_MAX));
	pc->port_xmit_packets =
		cpu_to_be32(min_t(u64, rxe_stat(rxe, RXE_CNT_SENT_PKTS),
				  U32_MAX));
	pc->port_rcv_packets =
		cpu_to_be32(min_t(u64, rxe_stat(rxe, RXE_CNT_RCVD_PKTS),
				  U32_MAX));
}

static void rxe_pma_counters_ext(struct rxe_dev *rxe,
				 struct ib_pma_portcounters_ext *pc)
{
	u64 sent = rxe_stat(rxe, RXE_CNT_SENT_PKTS);
	u64 rcvd = rxe_stat(rxe, RXE_CNT_RCVD_PKTS);
	u64 sent_mc = rxe_stat(rxe, RXE_CNT_SENT_MCAST);
	u64 rcvd_mc = rxe_stat(rxe, RXE_CNT_RCVD_MCAST);

	pc->port_xmit_data = cpu_to_be64(rxe_stat(rxe, RXE_CNT_SENT_BYTES) / 4);
	pc->port_rcv_data = cpu_to_be64(rxe_stat(rxe, RXE_CNT_RCVD_BYTES) / 4);
	pc->port_xmit_packets = cpu_to_be64(sent);
	pc->port_rcv_packets = cpu_to_be64(rcvd);
	/* read one after the other: a multicast count may be a step ahead */
	pc->port_unicast_xmit_packets = cpu_to_be64(sent - min(sent, sent_mc));
	pc->port_unicast_rcv_packets = cpu_to_be64(rcvd - min(rcvd, rcvd_mc));
	pc->port_multicast_xmit_packets = cpu_to_be64(sent_mc);
	pc->port_multicast_rcv_packets = cpu_to_be64(rcvd_mc);
}

/*
 * Fill the attribute of a Get() into @out (a copy of the request's header
 * with zeroed data).  Return: the MAD status.
 */
static u16 rxe_pma_get(struct rxe_dev *rxe, u32 port_num,
		       const struct ib_pma_mad *in, struct ib_pma_mad *out)
{
	/* PortSelect is the second byte of both counter attributes */
	u8 port_select = in->data[1];

	switch (in->mad_hdr.attr_id) {
	case IB_PMA_CLASS_PORT_INFO:
		rxe_pma_class_info((struct ib_class_port_info *)out->data);
		return IB_MGMT_MAD_STATUS_SUCCESS;
	case IB_PMA_PORT_COUNTERS:
	case IB_PMA_PORT_COUNTERS_EXT:
		break;
	default:
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	}
	out->data[1] = port_select;
	if (port_select != port_num)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS)
		rxe_pma_counters(rxe, (struct ib_pma_portcounters *)out->data);
	else
		rxe_pma_counters_ext(rxe, (struct ib_pma_portcounters_ext *)
					  out->data);
	return IB_MGMT_MAD_STATUS_SUCCESS;
}

/**
 * rxe_process_mad() - answer a performance management MAD
 * @ibdev: the device
 * @mad_flags: IB_MAD_IGNORE_* (no keys to check here)
 * @port_num: the port the MAD is for
 * @in_wc: the work completion it came with, or NULL for a local query
 * @in_grh: its GRH, or NULL
 * @in_mad: the MAD
 * @out_mad: the reply is built here
 * @out_mad_size: room at @out_mad; set to the reply's size
 * @out_mad_pkey_index: P_Key index for the reply (left as is)
 *
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with a reply in
 * @out_mad for a request of the performance management class (its status
 * says what was wrong with a request that cannot be answered);
 * IB_MAD_RESULT_SUCCESS alone for responses and the other classes, which
 * the agent does not serve;
 * IB_MAD_RESULT_FAILURE when @out_mad is too small.
 */
int rxe_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		    const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		    const struct ib_mad *in_mad, struct ib_mad *out_mad,
		    size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_pma_mad *in = (const struct ib_pma_mad *)in_mad;
	struct ib_pma_mad *out = (struct ib_pma_mad *)out_mad;
	struct rxe_dev *rxe = to_rdev(ibdev);
	u16 status;

	/* not ours, or a response: nothing to answer */
	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    (in->mad_hdr.method & IB_MGMT_METHOD_RESP))
		return IB_MAD_RESULT_SUCCESS;
	if (*out_mad_size < sizeof(struct ib_mad)) {
		ibdev_dbg(ibdev, "PMA: reply room %zu too small\n",
			  *out_mad_size);
		return IB_MAD_RESULT_FAILURE;
	}

	memset(out_mad, 0, sizeof(struct ib_mad));
	out->mad_hdr = in->mad_hdr;
	out->mad_hdr.status = 0;
	out->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    in->mad_hdr.class_version != 1)
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	else if (in->mad_hdr.method != IB_MGMT_METHOD_GET)
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD;
	else
		status = rxe_pma_get(rxe, port_num, in, out);
	if (status)
		ibdev_dbg(ibdev, "PMA: method 0x%x attribute 0x%x refused: status 0x%x\n",
			  in->mad_hdr.method, be16_to_cpu(in->mad_hdr.attr_id),
			  status);
	out->mad_hdr.status = cpu_to_be16(status);
	*out_mad_size = sizeof(struct ib_mad);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
