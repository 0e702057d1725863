/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: loads and stores at any alignment, in a given order. */
#ifndef _SHIM_LINUX_UNALIGNED_H
#define _SHIM_LINUX_UNALIGNED_H

#include <string.h>
#include <asm/byteorder.h>
#include <linux/types.h>

#define SHIM_UNALIGNED(bits, order)					\
static inline u##bits get_unaligned_##order##bits(const void *p)	\
{									\
	__##order##bits v;						\
	memcpy(&v, p, sizeof(v));					\
	return __##order##bits##_to_cpu(v);				\
}									\
static inline void put_unaligned_##order##bits(u##bits val, void *p)	\
{									\
	__##order##bits v = __cpu_to_##order##bits(val);		\
	memcpy(p, &v, sizeof(v));					\
}
SHIM_UNALIGNED(16, be)
SHIM_UNALIGNED(32, be)
SHIM_UNALIGNED(64, be)
SHIM_UNALIGNED(16, le)
SHIM_UNALIGNED(32, le)
SHIM_UNALIGNED(64, le)
#undef SHIM_UNALIGNED

#define get_unaligned(p) ({						\
	typeof(*(p)) __v;						\
	memcpy(&__v, (p), sizeof(__v));					\
	__v;								\
})
#define put_unaligned(val, p) do {					\
	typeof(*(p)) __v = (val);					\
	memcpy((p), &__v, sizeof(__v));					\
} while (0)

#endif
