/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: the Internet checksum (RFC 1071) in plain C, standing in
 * for the kernel's per-architecture versions.
 */
#ifndef _SHIM_NET_CHECKSUM_H
#define _SHIM_NET_CHECKSUM_H

#include <linux/types.h>

/* Fold a 32-bit one's complement sum to 16 bits and complement it. */
static inline __sum16 csum_fold(__wsum sum)
{
	u32 s = sum;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (__sum16)~s;
}

/*
 * Checksum of an IPv4 header of @ihl 32-bit words, summed as 16-bit words in
 * memory order; the result is stored into the header as it is.
 */
static inline __sum16 ip_fast_csum(const void *iph, unsigned int ihl)
{
	const unsigned char *p = iph;
	u32 sum = 0;
	unsigned int i;

	for (i = 0; i < ihl * 4; i += 2) {
		u16 w;

		__builtin_memcpy(&w, p + i, sizeof(w));
		sum += w;
	}
	return csum_fold(sum);
}

#endif
