/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: the kernel's integer types on top of the uapi ones.
 *
 * Everything under shim/ stands in for a kernel header so that pure kernel
 * files build unchanged into the unit tests and fuzzers.  Only what those
 * files use is provided, implemented here in plain C.
 */
#ifndef _SHIM_LINUX_TYPES_H
#define _SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
/*
 * Kbuild puts compiler_types.h in front of every file (-include), so kernel
 * headers use __packed and friends without including anything for them
 * (siw_wire.h, for one).  Here they come with the types.
 */
#include <linux/compiler_types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

typedef u16 __sum16;
typedef u32 __wsum;
typedef unsigned int gfp_t;
typedef u64 dma_addr_t;
typedef long long ktime_t;

typedef struct {
	int counter;
} atomic_t;

struct list_head {
	struct list_head *next, *prev;
};

struct rcu_head {
	void *next;
	void (*func)(struct rcu_head *head);
};

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)
#define S8_MAX		((s8)(U8_MAX >> 1))
#define S8_MIN		((s8)(-S8_MAX - 1))
#define S16_MAX		((s16)(U16_MAX >> 1))
#define S16_MIN		((s16)(-S16_MAX - 1))
#define S32_MAX		((s32)(U32_MAX >> 1))
#define S32_MIN		((s32)(-S32_MAX - 1))
#define S64_MAX		((s64)(U64_MAX >> 1))
#define S64_MIN		((s64)(-S64_MAX - 1))

#endif
