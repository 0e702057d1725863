// SPDX-License-Identifier: GPL-2.0
/*
 * The shim's stand-ins for kernel library code (Internet checksum, CRC-32,
 * unaligned access) against published vectors: every other test relies on
 * them behaving as the kernel's do.
 */
#include <linux/crc32.h>
#include <linux/kernel.h>
#include <linux/unaligned.h>
#include <net/checksum.h>
#include "unit.h"

UNIT_TEST(shim, ip_fast_csum_known_header)
{
	u8 hdr[20] = { 0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		       0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7 };
	__sum16 c = ip_fast_csum(hdr, 5);

	memcpy(&hdr[10], &c, 2);
	EXPECT_EQ(hdr[10], 0xb8);
	EXPECT_EQ(hdr[11], 0x61);
	/* Over a header holding its checksum the sum folds to zero. */
	EXPECT_EQ(ip_fast_csum(hdr, 5), 0);
}

UNIT_TEST(shim, crc32_le_check_value)
{
	/* The CRC-32 "check" value of the ASCII string 123456789. */
	EXPECT_EQ(crc32_le(~0U, "123456789", 9) ^ ~0U, 0xCBF43926);
	EXPECT_EQ(crc32_le(0, "", 0), 0);
	/* Chunking does not matter. */
	EXPECT_EQ(crc32_le(crc32_le(~0U, "1234", 4), "56789", 5),
		  crc32_le(~0U, "123456789", 9));
}

UNIT_TEST(shim, unaligned_be)
{
	u8 b[9] = { 0xff, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08 };

	EXPECT_EQ(get_unaligned_be16(b + 1), 0x0102);
	EXPECT_EQ(get_unaligned_be32(b + 1), 0x01020304);
	EXPECT_EQ(get_unaligned_be64(b + 1), 0x0102030405060708ULL);
	put_unaligned_be32(0xa1b2c3d4, b + 1);
	EXPECT_EQ(b[1], 0xa1);
	EXPECT_EQ(b[4], 0xd4);
}
