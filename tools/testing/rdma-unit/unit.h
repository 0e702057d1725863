/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small test framework for the user-space unit tests.
 *
 * UNIT_TEST(suite, name) { ... } defines and registers a test.  The EXPECT_*
 * macros record a failure with its location and let the test go on; the
 * ASSERT_* ones also end the test.  A test passes when none of its checks
 * failed.  The runner prints one KTAP line per test and, last, the line
 * "N passed, N failed".
 */
#ifndef _RDMA_UNIT_H
#define _RDMA_UNIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/compiler.h>

struct unit_test {
	const char *suite;
	const char *name;
	const char *file;
	int line;
	void (*fn)(void);
	struct unit_test *next;
};

void unit_register(struct unit_test *t);
/* Record a failed check; returns false so that it can end an expression. */
__printf(3, 4)
bool unit_fail(const char *file, int line, const char *fmt, ...);
/* Number of failed checks in the running test so far. */
unsigned int unit_failures(void);

#define UNIT_TEST(suite, name)						\
	static void unit_fn_##suite##_##name(void);			\
	static struct unit_test unit_t_##suite##_##name = {		\
		#suite, #name, __FILE__, __LINE__,			\
		unit_fn_##suite##_##name, NULL				\
	};								\
	__attribute__((constructor))					\
	static void unit_reg_##suite##_##name(void)			\
	{								\
		unit_register(&unit_t_##suite##_##name);		\
	}								\
	static void unit_fn_##suite##_##name(void)

#define EXPECT_TRUE(c)							\
	((c) ? true : unit_fail(__FILE__, __LINE__, "expected %s", #c))
#define EXPECT_FALSE(c)							\
	(!(c) ? true : unit_fail(__FILE__, __LINE__, "expected !(%s)", #c))

/* Integer comparison; both sides are evaluated once and shown on failure. */
#define EXPECT_CMP(a, op, b) ({						\
	long long __a = (long long)(a), __b = (long long)(b);		\
	(__a op __b) ? true :						\
	unit_fail(__FILE__, __LINE__, "expected %s %s %s: %lld (0x%llx) vs %lld (0x%llx)", \
		  #a, #op, #b, __a, (unsigned long long)__a, __b,	\
		  (unsigned long long)__b);				\
})
#define EXPECT_EQ(a, b)		EXPECT_CMP(a, ==, b)
#define EXPECT_NE(a, b)		EXPECT_CMP(a, !=, b)
#define EXPECT_LT(a, b)		EXPECT_CMP(a, <, b)
#define EXPECT_LE(a, b)		EXPECT_CMP(a, <=, b)
#define EXPECT_GE(a, b)		EXPECT_CMP(a, >=, b)

#define EXPECT_MEMEQ(a, b, n) ({					\
	size_t __n = (n);						\
	!memcmp((a), (b), __n) ? true :					\
	unit_fail(__FILE__, __LINE__, "expected %s == %s (%zu bytes)",	\
		  #a, #b, __n);						\
})
#define EXPECT_STREQ(a, b) ({						\
	const char *__a = (a), *__b = (b);				\
	(__a && __b && !strcmp(__a, __b)) ? true :			\
	unit_fail(__FILE__, __LINE__, "expected %s == \"%s\", got \"%s\"", \
		  #a, __b ? __b : "(null)", __a ? __a : "(null)");	\
})

#define ASSERT_TRUE(c)		do { if (!EXPECT_TRUE(c)) return; } while (0)
#define ASSERT_EQ(a, b)		do { if (!EXPECT_EQ(a, b)) return; } while (0)

#endif
