// SPDX-License-Identifier: GPL-2.0
/*
 * Receive entry: every datagram of UDP port 4791 arrives here from the
 * tunnel socket, in softirq context.  The order of the checks is
 *
 *   IP framing -> transport headers (rxe_hdr_parse()) -> ICRC -> P_Key
 *   -> multicast QPN -> destination address -> QP lookup
 *   -> opcode vs QP type -> UD: QP state, Q_Key, path MTU
 *                        -> RC/UC: the QP has a path, and the packet's
 *                           IP version and addresses are the path's
 *
 * where everything up to the multicast QPN needs only the packet's bytes
 * and is done by rxe_rcv_check() (rxe_validate.c), which the user-space
 * fuzzer runs as it is.  A packet failing a check is dropped and counted
 * in exactly one drop counter, under its cause; one that passes them all
 * is counted in rcvd_pkts and belongs to its QP.  UD datagrams are
 * delivered at once; RC and UC packets are queued on their QP and the
 * QP's engine runs.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <rdma/ib_addr.h>
#include <rdma/ib_cache.h>

#include "rxe.h"

/* Requests or responses a QP may have queued before more are dropped */
#define RXE_MAX_QUEUED_PKTS	1024

/**
 * rxe_drop() - drop a received packet and count why
 * @rxe: the device
 * @skb: the packet
 * @why: the cause
 */
void rxe_drop(struct rxe_dev *rxe, struct sk_buff *skb, enum rxe_drop why)
{
	enum rxe_counter c = rxe_drop_counter(why);

	ibdev_dbg(&rxe->ib_dev, "received packet dropped: %s\n",
		  rxe_counter_name(c));
	rxe_count(rxe, c);
	kfree_skb(skb);
}

static void rxe_pkt_dgid(struct sk_buff *skb, bool ipv6, union ib_gid *dgid)
{
	if (ipv6)
		memcpy(dgid->raw, &ipv6_hdr(skb)->daddr, sizeof(*dgid));
	else
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr,
				       (struct in6_addr *)dgid->raw);
}

/* Is the packet's destination one of the port's RoCE v2 GIDs? */
static bool rxe_dgid_ok(struct rxe_dev *rxe, const union ib_gid *dgid)
{
	const struct ib_gid_attr *attr;

	attr = rdma_find_gid_by_port(&rxe->ib_dev, dgid,
				     IB_GID_TYPE_ROCE_UDP_ENCAP, 1, NULL);
	if (IS_ERR(attr))
		return false;
	rdma_put_gid_attr(attr);
	return true;
}

static enum rxe_drop rxe_check_l3(struct sk_buff *skb, bool *ipv6)
{
	if (skb->protocol == htons(ETH_P_IP))
		*ipv6 = false;
	else if (skb->protocol == htons(ETH_P_IPV6))
		*ipv6 = true;
	else
		return RXE_DROP_MALFORMED;
	return RXE_DROP_NONE;
}

/*
 * The checks of a UD datagram against its QP: the QP's state, the Q_Key
 * and the port's path MTU.
 */
static enum rxe_drop rxe_check_ud(struct rxe_qp *qp, const struct rxe_pkt *pkt)
{
	struct rxe_dev *rxe = qp->rxe;
	u32 mtu;

	if (!rxe_qp_can_receive(READ_ONCE(qp->state)))
		return RXE_DROP_STATE;
	if (!rxe_qkey_ok(rxe_qpn(qp), READ_ONCE(qp->attr.qkey),
			 rxe_deth_qkey(rxe_pkt_ext(pkt, RXE_MASK_DETH))))
		return RXE_DROP_QKEY;
	mtu = ib_mtu_enum_to_int(READ_ONCE(rxe->port_attr.active_mtu));
	if (pkt->paylen > mtu)
		return RXE_DROP_LENGTH;
	return RXE_DROP_NONE;
}

/*
 * Does a packet for an RC or UC QP come from the QP's peer?  Its IP version
 * and both addresses must be the path's: a host that is not the peer must
 * not be able to acknowledge, refuse or ask anything of the connection.
 * A QP without a path yet (RESET, INIT) takes nothing.
 */
static enum rxe_drop rxe_check_path(struct rxe_qp *qp, struct sk_buff *skb)
{
	bool ipv6 = rxe_cb(skb)->ipv6;
	enum ib_qp_state state = READ_ONCE(qp->state);
	unsigned int seq;
	bool ok;

	if (state == IB_QPS_RESET || state == IB_QPS_INIT)
		return RXE_DROP_STATE;
	do {
		seq = read_seqcount_begin(&qp->path_seq);
		if (ipv6)
			ok = qp->av.net_type == RDMA_NETWORK_IPV6 &&
			     ipv6_addr_equal(&ipv6_hdr(skb)->saddr,
					     &qp->av.daddr.v6) &&
			     ipv6_addr_equal(&ipv6_hdr(skb)->daddr,
					     &qp->av.saddr.v6);
		else
			ok = qp->av.net_type == RDMA_NETWORK_IPV4 &&
			     ip_hdr(skb)->saddr == qp->av.daddr.v4 &&
			     ip_hdr(skb)->daddr == qp->av.saddr.v4;
	} while (read_seqcount_retry(&qp->path_seq, seq));
	return ok ? RXE_DROP_NONE : RXE_DROP_PATH;
}

/*
 * Hand @skb to @qp.  A multicast datagram is counted in rcvd_pkts once,
 * not once per attached QP: @count is false for the copies after the
 * first one accepted.  Returns true if the packet passed the QP's checks
 * (and was counted, when asked), even if a full queue then dropped it.
 */
static bool rxe_rcv_qp(struct rxe_dev *rxe, struct rxe_qp *qp,
		       struct sk_buff *skb, bool count)
{
	struct rxe_pkt *pkt = &rxe_cb(skb)->pkt;
	struct sk_buff_head *q;
	enum rxe_drop why;

	why = rxe_check_transport(pkt, qp->type_mask, rxe_qpn(qp));
	if (!why)
		why = qp->type_mask == RXE_MASK_UD ? rxe_check_ud(qp, pkt) :
						     rxe_check_path(qp, skb);
	if (why) {
		rxe_drop(rxe, skb, why);
		return false;
	}
	/* Accepted: from here on the QP owns the packet. */
	if (count) {
		rxe_count(rxe, RXE_CNT_RCVD_PKTS);
		rxe_count_add(rxe, RXE_CNT_RCVD_BYTES, pkt->len);
	}
	if (qp->type_mask == RXE_MASK_UD) {
		rxe_resp_ud(qp, skb, pkt);
		return true;
	}
	q = (pkt->mask & RXE_MASK_REQ) ? &qp->resp_pkts : &qp->comp_pkts;
	if (skb_queue_len(q) >= RXE_MAX_QUEUED_PKTS) {
		rxe_drop(rxe, skb, RXE_DROP_STATE);
		return true;
	}
	/* A response queued behind others waits its turn: ack_deferred. */
	if (q == &qp->comp_pkts && !skb_queue_empty(q))
		rxe_count(rxe, RXE_CNT_ACK_DEFERRED);
	skb_queue_tail(q, skb);
	rxe_qp_run(qp);
	return true;
}

/**
 * rxe_rcv() - handle one received RoCE v2 packet
 * @rxe: the device of the netdev it came in on
 * @skb: the packet, data at the UDP header, network header set
 *
 * Consumes @skb.
 *
 * Context: softirq.
 */
void rxe_rcv(struct rxe_dev *rxe, struct sk_buff *skb)
{
	struct rxe_skb_cb *cb = rxe_cb(skb);
	struct rxe_pkt *pkt = &cb->pkt;
	union ib_gid dgid;
	enum rxe_drop why;
	struct rxe_qp *qp;
	bool ipv6 = false;
	u8 *udp;

	if (skb_linearize(skb) || skb->len < RXE_UDP_BYTES) {
		rxe_drop(rxe, skb, RXE_DROP_MALFORMED);
		return;
	}
	why = rxe_check_l3(skb, &ipv6);
	if (why) {
		rxe_drop(rxe, skb, why);
		return;
	}
	udp = skb->data;
	why = rxe_rcv_check(skb_network_header(skb), ipv6, udp, skb->len, pkt);
	if (why) {
		rxe_drop(rxe, skb, why);
		return;
	}
	cb->ipv6 = ipv6;

	rxe_pkt_dgid(skb, ipv6, &dgid);
	if (rdma_is_multicast_addr((struct in6_addr *)dgid.raw)) {
		rxe_mcast_deliver(rxe, &dgid, skb, pkt);
		return;
	}
	if (!rxe_dgid_ok(rxe, &dgid)) {
		rxe_drop(rxe, skb, RXE_DROP_ADDR);
		return;
	}
	qp = rxe_qp_get(rxe, pkt->qpn);
	if (!qp) {
		rxe_drop(rxe, skb, RXE_DROP_QPN);
		return;
	}
	rxe_rcv_qp(rxe, qp, skb, true);
	rxe_qp_put(qp);
}

/**
 * rxe_rcv_mcast_qp() - deliver one copy of a multicast datagram to a QP
 * @rxe: the device
 * @qp: an attached QP, referenced by the caller
 * @skb: a copy for this QP, consumed
 * @count: count the datagram in rcvd_pkts/rcvd_bytes if the QP takes it
 *
 * Return: true if the QP took it.
 */
bool rxe_rcv_mcast_qp(struct rxe_dev *rxe, struct rxe_qp *qp,
		      struct sk_buff *skb, bool count)
{
	return rxe_rcv_qp(rxe, qp, skb, count);
}
