// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The RDMA device model: module identity of ib_core.
 */
#include <linux/module.h>

MODULE_AUTHOR("RDMA core project");
MODULE_DESCRIPTION("RDMA core: verbs API and device model");
MODULE_LICENSE("Dual BSD/GPL");
