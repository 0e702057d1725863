/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: crc32_le(), the reflected CRC-32 of IEEE 802.3
 * (polynomial 0xedb88320), bit by bit.  Like the kernel's, it neither
 * inverts the seed nor the result: callers do that.
 */
#ifndef _SHIM_LINUX_CRC32_H
#define _SHIM_LINUX_CRC32_H

#include <linux/types.h>

static inline u32 crc32_le(u32 crc, const void *buf, size_t len)
{
	const u8 *p = buf;
	int bit;

	while (len--) {
		crc ^= *p++;
		for (bit = 0; bit < 8; bit++)
			crc = (crc >> 1) ^ (0xedb88320U & -(crc & 1));
	}
	return crc;
}

#endif
