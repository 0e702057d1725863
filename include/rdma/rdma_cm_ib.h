/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RDMA CM calls that only make sense on InfiniBand-style (IB and RoCE)
 * ports.  Names follow upstream Linux.
 */
#ifndef RDMA_CM_IB_H
#define RDMA_CM_IB_H

#include <rdma/rdma_cm.h>

int rdma_set_ib_path(struct rdma_cm_id *id,
		     struct sa_path_rec *path_rec);

/* The Q_Key of UDP port-space QPs and of multicast groups. */
#define RDMA_UDP_QKEY 0x01234567

#endif /* RDMA_CM_IB_H */
