// SPDX-License-Identifier: GPL-2.0
/*
 * Hardware counters of the port through struct rdma_hw_stats; the core
 * shows them in /sys/class/infiniband/<dev>/ports/1/hw_counters and
 * through "rdma statistic show".
 *
 * The first fifteen carry the names, order and meaning of stock rdma_rxe's
 * counters, so tools reading either provider agree.  This provider adds
 * byte counts and, for every received packet it drops, the cause.  A
 * datagram that reaches the receive path is counted either in rcvd_pkts
 * (it passed every check up to its QP) or in exactly one drop_* counter;
 * a packet a QP drops later (no receive WQE, out of sequence) is counted
 * in both.  The data path counts with atomic64 increments in rxe_dev.stats.
 */
#include "rxe.h"

static const struct rdma_stat_desc rxe_counter_descs[RXE_CNT_NUM] = {
	/* as stock rdma_rxe */
	[RXE_CNT_SENT_PKTS]		= { .name = "sent_pkts" },
	[RXE_CNT_RCVD_PKTS]		= { .name = "rcvd_pkts" },
	[RXE_CNT_DUP_REQ]		= { .name = "duplicate_request" },
	[RXE_CNT_SEQ_NAK_SENT]		= { .name = "out_of_seq_request" },
	[RXE_CNT_RNR_NAK_RCVD]		= { .name = "rcvd_rnr_err" },
	[RXE_CNT_RNR_NAK_SENT]		= { .name = "send_rnr_err" },
	[RXE_CNT_SEQ_NAK_RCVD]		= { .name = "rcvd_seq_err" },
	[RXE_CNT_ACK_DEFERRED]		= { .name = "ack_deferred" },
	[RXE_CNT_RETRY_EXCEEDED]	= { .name = "retry_exceeded_err" },
	[RXE_CNT_RNR_RETRY_EXCEEDED]	= { .name = "retry_rnr_exceeded_err" },
	[RXE_CNT_RETRY]			= { .name = "completer_retry_err" },
	[RXE_CNT_SEND_ERR]		= { .name = "send_err" },
	[RXE_CNT_LINK_DOWNED]		= { .name = "link_downed" },
	[RXE_CNT_RDMA_SENDS]		= { .name = "rdma_sends" },
	[RXE_CNT_RDMA_RECVS]		= { .name = "rdma_recvs" },
	/* extensions */
	[RXE_CNT_SENT_BYTES]		= { .name = "sent_bytes" },
	[RXE_CNT_RCVD_BYTES]		= { .name = "rcvd_bytes" },
	[RXE_CNT_DROP_LENGTH]		= { .name = "drop_length" },
	[RXE_CNT_DROP_OPCODE]		= { .name = "drop_opcode" },
	[RXE_CNT_DROP_VERSION]		= { .name = "drop_version" },
	[RXE_CNT_DROP_PKEY]		= { .name = "drop_pkey" },
	[RXE_CNT_DROP_ICRC]		= { .name = "drop_icrc" },
	[RXE_CNT_DROP_QPN]		= { .name = "drop_qpn" },
	[RXE_CNT_DROP_QKEY]		= { .name = "drop_qkey" },
	[RXE_CNT_DROP_SEQ]		= { .name = "drop_seq" },
	[RXE_CNT_DROP_STATE]		= { .name = "drop_state" },
	[RXE_CNT_DROP_NO_RECV]		= { .name = "drop_no_recv" },
	[RXE_CNT_DROP_ADDR]		= { .name = "drop_addr" },
	[RXE_CNT_DROP_MALFORMED]	= { .name = "drop_malformed" },
	[RXE_CNT_DROP_PATH]		= { .name = "drop_path" },
	[RXE_CNT_SENT_MCAST]		= { .name = "sent_mcast_pkts" },
	[RXE_CNT_RCVD_MCAST]		= { .name = "rcvd_mcast_pkts" },
};

/**
 * rxe_drop_counter() - the counter a drop cause is counted under
 * @why: a cause other than RXE_DROP_NONE
 *
 * Return: the counter.
 */
enum rxe_counter rxe_drop_counter(enum rxe_drop why)
{
	static const enum rxe_counter map[RXE_DROP_NR] = {
		[RXE_DROP_LENGTH]	= RXE_CNT_DROP_LENGTH,
		[RXE_DROP_OPCODE]	= RXE_CNT_DROP_OPCODE,
		[RXE_DROP_VERSION]	= RXE_CNT_DROP_VERSION,
		[RXE_DROP_PKEY]		= RXE_CNT_DROP_PKEY,
		[RXE_DROP_ICRC]		= RXE_CNT_DROP_ICRC,
		[RXE_DROP_QPN]		= RXE_CNT_DROP_QPN,
		[RXE_DROP_QKEY]		= RXE_CNT_DROP_QKEY,
		[RXE_DROP_SEQ]		= RXE_CNT_DROP_SEQ,
		[RXE_DROP_STATE]	= RXE_CNT_DROP_STATE,
		[RXE_DROP_NO_RECV]	= RXE_CNT_DROP_NO_RECV,
		[RXE_DROP_ADDR]		= RXE_CNT_DROP_ADDR,
		[RXE_DROP_MALFORMED]	= RXE_CNT_DROP_MALFORMED,
		[RXE_DROP_PATH]		= RXE_CNT_DROP_PATH,
	};

	if (why <= RXE_DROP_NONE || why >= RXE_DROP_NR)
		return RXE_CNT_DROP_MALFORMED;
	return map[why];
}

/**
 * rxe_counter_name() - the name a counter is shown under
 * @c: the counter
 *
 * Return: the name, as in hw_counters.
 */
const char *rxe_counter_name(enum rxe_counter c)
{
	return rxe_counter_descs[c].name;
}

struct rdma_hw_stats *rxe_alloc_hw_port_stats(struct ib_device *dev, u32 port)
{
	return rdma_alloc_hw_stats_struct(rxe_counter_descs, RXE_CNT_NUM,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

int rxe_get_hw_stats(struct ib_device *dev, struct rdma_hw_stats *stats,
		     u32 port, int index)
{
	struct rxe_dev *rxe = to_rdev(dev);
	int i;

	for (i = 0; i < RXE_CNT_NUM && i < stats->num_counters; i++)
		stats->value[i] = atomic64_read(&rxe->stats[i]);
	return i;
}
