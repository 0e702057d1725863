/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * What the RDMA CM puts on the wire of its own: the 36-byte header that
 * opens the private data of every REQ and SIDR_REQ of an IP-addressed ID,
 * the Service IDs of the IP port spaces (IBTA Annex A11) and the RoCE v2
 * flow label of a connection.  Pure code: cma_hdr.c is also built by the
 * user-space unit tests and the fuzzer of tools/testing/rdma-unit.
 */
#ifndef _CMA_HDR_H
#define _CMA_HDR_H

#include <linux/types.h>

#define CMA_HDR_LEN		36
#define CMA_HDR_VERSION		0x00

/*
 * The addresses a header carries: @ipver 4 or 6, the active side's
 * source port (host order) and both addresses as 16 bytes; an IPv4
 * address sits in the last four, the first twelve are zero.
 */
struct cma_hdr_addrs {
	u8	ipver;
	u16	sport;
	u8	src[16];
	u8	dst[16];
};

void cma_hdr_put(u8 *buf, const struct cma_hdr_addrs *a);
int cma_hdr_get(const u8 *buf, size_t len, struct cma_hdr_addrs *a);
bool cma_hdr_remote_ok(u8 ipver, const u8 *addr);

u64 cma_sid_make(u16 ps, u16 port);
u16 cma_sid_ps(u64 sid);
u16 cma_sid_port(u64 sid);
bool cma_sid_is_ip(u64 sid);

u32 cma_flow_label(u16 sport, u16 dport);

#endif /* _CMA_HDR_H */
