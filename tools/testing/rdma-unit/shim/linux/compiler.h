/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: compiler attributes and annotations the kernel uses. */
#ifndef _SHIM_LINUX_COMPILER_H
#define _SHIM_LINUX_COMPILER_H

/* The C library's <sys/cdefs.h> defines some of these the same way. */
#include <sys/cdefs.h>

#ifndef __attribute_const__
#define __attribute_const__	__attribute__((__const__))
#endif
#ifndef __always_inline
#define __always_inline		inline __attribute__((__always_inline__))
#endif
#define noinline		__attribute__((__noinline__))
#define __packed		__attribute__((__packed__))
#define __aligned(x)		__attribute__((__aligned__(x)))
#define __must_check		__attribute__((__warn_unused_result__))
#define __maybe_unused		__attribute__((__unused__))
#define __always_unused		__attribute__((__unused__))
#define __printf(a, b)		__attribute__((__format__(printf, a, b)))
#define __cold			__attribute__((__cold__))
#define __pure			__attribute__((__pure__))
#define fallthrough		__attribute__((__fallthrough__))
#define __user
#define __iomem
#define __rcu
#define __force
#define __percpu
#define __counted_by(m)
#define __nonstring
#define __ro_after_init
#define __read_mostly
#define __init
#define __exit
#define __alloc_size(...)
#define __malloc

#define likely(x)		__builtin_expect(!!(x), 1)
#define unlikely(x)		__builtin_expect(!!(x), 0)

#define READ_ONCE(x)		(*(const volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))
#define barrier()		__asm__ __volatile__("" : : : "memory")

#define __same_type(a, b)	__builtin_types_compatible_p(typeof(a), typeof(b))
#define __is_constexpr(x) \
	(sizeof(int) == sizeof(*(8 ? ((void *)((long)(x) * 0l)) : (int *)8)))

#endif
