// SPDX-License-Identifier: GPL-2.0
/*
 * KTAP reporting for the RDMA test modules, built as a small library
 * module of its own; see rdma_ktap.h.
 */
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/sprintf.h>
#include "rdma_ktap.h"

/**
 * rdma_ktap_check - record the outcome of one check inside a test case
 * @ctx: the running case
 * @ok: whether the check held
 * @func: function of the check, for the reason
 * @line: source line of the check, for the reason
 * @fmt: printf-style reason, used when this is the case's first failure
 *
 * Return: @ok.
 */
bool rdma_ktap_check(struct rdma_ktap_ctx *ctx, bool ok, const char *func,
		     int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (ok)
		return true;
	if (!ctx->failures++) {
		n = scnprintf(ctx->reason, sizeof(ctx->reason), "%s:%d: ",
			      func, line);
		va_start(ap, fmt);
		vscnprintf(ctx->reason + n, sizeof(ctx->reason) - n, fmt, ap);
		va_end(ap);
	}
	return false;
}
EXPORT_SYMBOL_GPL(rdma_ktap_check);

/**
 * rdma_ktap_check_eq - record an integer equality check
 * @ctx: the running case
 * @got: value computed by the code under test
 * @want: value expected
 * @expr: source text of the computed value
 * @func: function of the check
 * @line: source line of the check
 *
 * Return: true when @got equals @want.
 */
bool rdma_ktap_check_eq(struct rdma_ktap_ctx *ctx, long long got,
			long long want, const char *expr, const char *func,
			int line)
{
	return rdma_ktap_check(ctx, got == want, func, line,
			       "%s = %lld (%#llx), expected %lld (%#llx)",
			       expr, got, got, want, want);
}
EXPORT_SYMBOL_GPL(rdma_ktap_check_eq);

/**
 * rdma_ktap_run - run a table of cases and print a KTAP report
 * @suite: suite name printed in the report
 * @cases: the cases, run in order
 * @count: number of cases
 *
 * Return: the number of cases that failed.
 */
unsigned int rdma_ktap_run(const char *suite,
			   const struct rdma_ktap_case *cases,
			   unsigned int count)
{
	struct rdma_ktap_ctx ctx;
	unsigned int i, failed = 0;

	pr_info("KTAP version 1\n");
	pr_info("# suite: %s\n", suite);
	pr_info("1..%u\n", count);
	for (i = 0; i < count; i++) {
		ctx.failures = 0;
		ctx.reason[0] = '\0';
		cases[i].run(&ctx);
		if (ctx.failures) {
			failed++;
			pr_info("not ok %u %s # %s (%u failed checks)\n", i + 1,
				cases[i].name, ctx.reason, ctx.failures);
		} else {
			pr_info("ok %u %s\n", i + 1, cases[i].name);
		}
	}
	pr_info("# %s: pass:%u fail:%u\n", suite, count - failed, failed);
	return failed;
}
EXPORT_SYMBOL_GPL(rdma_ktap_run);

MODULE_DESCRIPTION("KTAP runner for the RDMA test modules");
MODULE_LICENSE("GPL");
