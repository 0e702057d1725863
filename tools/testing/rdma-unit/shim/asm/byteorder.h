/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: the kernel's byte-order names on the uapi ones. */
#ifndef _SHIM_ASM_BYTEORDER_H
#define _SHIM_ASM_BYTEORDER_H

#include_next <asm/byteorder.h>

#define cpu_to_be16	__cpu_to_be16
#define cpu_to_be32	__cpu_to_be32
#define cpu_to_be64	__cpu_to_be64
#define be16_to_cpu	__be16_to_cpu
#define be32_to_cpu	__be32_to_cpu
#define be64_to_cpu	__be64_to_cpu
#define cpu_to_le16	__cpu_to_le16
#define cpu_to_le32	__cpu_to_le32
#define cpu_to_le64	__cpu_to_le64
#define le16_to_cpu	__le16_to_cpu
#define le32_to_cpu	__le32_to_cpu
#define le64_to_cpu	__le64_to_cpu
#define htons(x)	__cpu_to_be16(x)
#define ntohs(x)	__be16_to_cpu(x)
#define htonl(x)	__cpu_to_be32(x)
#define ntohl(x)	__be32_to_cpu(x)
#define be16_to_cpup(p)	__be16_to_cpu(*(p))
#define be32_to_cpup(p)	__be32_to_cpu(*(p))
#define be64_to_cpup(p)	__be64_to_cpu(*(p))

#define be32_add_cpu(p, v)	(*(p) = cpu_to_be32(be32_to_cpu(*(p)) + (v)))

#endif
