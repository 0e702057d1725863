/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Native InfiniBand addressing (AF_IB): the 128-bit address and the socket
 * address rdma_cm uses for it, plus a check used by write()-style uverbs
 * entry points.
 */
#ifndef _RDMA_IB_H
#define _RDMA_IB_H

#include <linux/types.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/uaccess.h>

/* A GID seen as an address, readable in 8-, 16-, 32- and 64-bit pieces. */
struct ib_addr {
	union {
		__u8		uib_addr8[16];
		__be16		uib_addr16[8];
		__be32		uib_addr32[4];
		__be64		uib_addr64[2];
	} ib_u;
#define sib_addr8		ib_u.uib_addr8
#define sib_addr16		ib_u.uib_addr16
#define sib_addr32		ib_u.uib_addr32
#define sib_addr64		ib_u.uib_addr64
#define sib_raw			ib_u.uib_addr8
#define sib_subnet_prefix	ib_u.uib_addr64[0]
#define sib_interface_id	ib_u.uib_addr64[1]
};

/* True for the all-zero (wildcard) address. */
static inline bool ib_addr_any(const struct ib_addr *a)
{
	return !(a->sib_addr64[0] | a->sib_addr64[1]);
}

/* True for ::1, the loopback address. */
static inline bool ib_addr_loopback(const struct ib_addr *a)
{
	return !(a->sib_addr32[0] | a->sib_addr32[1] | a->sib_addr32[2]) &&
	       a->sib_addr32[3] == htonl(1);
}

/* Store four big-endian words, most significant first. */
static inline void ib_addr_set(struct ib_addr *addr, __be32 w1, __be32 w2,
			       __be32 w3, __be32 w4)
{
	addr->sib_addr32[0] = w1;
	addr->sib_addr32[1] = w2;
	addr->sib_addr32[2] = w3;
	addr->sib_addr32[3] = w4;
}

/* memcmp()-style comparison of two addresses. */
static inline int ib_addr_cmp(const struct ib_addr *a1,
			      const struct ib_addr *a2)
{
	return memcmp(a1, a2, sizeof(*a1));
}

/*
 * write() on a uverbs file may only act for the credentials that opened
 * it; a file passed to another process must not be usable through write().
 */
static inline bool ib_safe_file_access(struct file *filp)
{
	return filp->f_cred == current_cred();
}

/**
 * struct sockaddr_ib - an AF_IB socket address
 * @sib_family: AF_IB
 * @sib_pkey: partition key
 * @sib_flowinfo: flow label and traffic class
 * @sib_addr: the GID
 * @sib_sid: service ID
 * @sib_sid_mask: which bits of @sib_sid are significant
 * @sib_scope_id: scope, like sin6_scope_id
 */
struct sockaddr_ib {
	unsigned short int	sib_family;
	__be16			sib_pkey;
	__be32			sib_flowinfo;
	struct ib_addr		sib_addr;
	__be64			sib_sid;
	__be64			sib_sid_mask;
	__u64			sib_scope_id;
};

#endif /* _RDMA_IB_H */
