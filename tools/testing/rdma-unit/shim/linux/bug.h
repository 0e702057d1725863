/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: BUG and WARN.
 *
 * BUG_ON() aborts.  WARN_ON() counts and reports; a test can read
 * shim_warn_count to assert that a warning fired, and the fuzzers set
 * shim_warn_fatal so that any kernel warning counts as a finding, as it
 * would with panic_on_warn.
 */
#ifndef _SHIM_LINUX_BUG_H
#define _SHIM_LINUX_BUG_H

#include <linux/compiler.h>
#include "../shim.h"

void shim_warn(const char *file, int line, const char *cond);
void shim_bug(const char *file, int line, const char *cond) __attribute__((noreturn));

#define WARN_ON(cond) ({						\
	int __c = !!(cond);						\
	if (unlikely(__c))						\
		shim_warn(__FILE__, __LINE__, #cond);			\
	unlikely(__c);							\
})
#define WARN_ON_ONCE(cond)	WARN_ON(cond)
#define WARN(cond, fmt, ...)	WARN_ON(cond)
#define WARN_ONCE(cond, fmt, ...) WARN_ON(cond)
#define BUG()			shim_bug(__FILE__, __LINE__, "BUG")
#define BUG_ON(cond)							\
	do { if (unlikely(cond)) shim_bug(__FILE__, __LINE__, #cond); } while (0)

#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), "BUILD_BUG_ON(" #cond ")")
#define BUILD_BUG_ON_ZERO(e)	((int)(sizeof(struct { int:(-!!(e)); })))
#define BUILD_BUG_ON_MSG(cond, msg) _Static_assert(!(cond), msg)
#define static_assert(expr, ...) _Static_assert(expr, #expr)

#endif
