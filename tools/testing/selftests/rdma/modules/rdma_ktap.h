/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal KTAP runner for the RDMA test modules.
 *
 * A test module lists its cases in a table and calls rdma_ktap_run() from
 * its init function.  The results go to the kernel log as KTAP version 1,
 * one line per case, which the guest harness collects from dmesg.  Inside a
 * case, RDMA_KT_EXPECT() and RDMA_KT_EQ() record a failure and carry on;
 * the first failure's reason is what the KTAP line reports.
 */
#ifndef RDMA_KTAP_H
#define RDMA_KTAP_H

#include <linux/kernel.h>

struct rdma_ktap_ctx {
	unsigned int failures;
	char reason[160];
};

struct rdma_ktap_case {
	const char *name;
	void (*run)(struct rdma_ktap_ctx *ctx);
};

bool rdma_ktap_check(struct rdma_ktap_ctx *ctx, bool ok, const char *func,
		     int line, const char *fmt, ...) __printf(5, 6);
bool rdma_ktap_check_eq(struct rdma_ktap_ctx *ctx, long long got,
			long long want, const char *expr, const char *func,
			int line);

/* Record a failure with a reason unless @cond holds; true if it held. */
#define RDMA_KT_EXPECT(ctx, cond, fmt, ...)				\
	rdma_ktap_check(ctx, !!(cond), __func__, __LINE__, fmt,		\
			##__VA_ARGS__)

/* Record a failure unless two integers are equal, printing both. */
#define RDMA_KT_EQ(ctx, got, want)					\
	rdma_ktap_check_eq(ctx, (long long)(got), (long long)(want),	\
			   #got, __func__, __LINE__)

/*
 * Run every case of @cases in order and print the KTAP report under
 * @suite.  Returns the number of failed cases.
 */
unsigned int rdma_ktap_run(const char *suite,
			   const struct rdma_ktap_case *cases,
			   unsigned int count);

#endif /* RDMA_KTAP_H */
