// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: how fast the guest's CPU runs right now.
 *
 * Under TCG on a shared host a guest gets whatever share of a host CPU is
 * left, and that share moves from second to second.  "calib" times a
 * fixed amount of plain CPU and memory work (no RDMA, no I/O); taken next
 * to each repetition of a measure, it lets the report set the measure
 * against the speed the guest had at that moment.
 */
#include <linux/ktime.h>
#include <linux/slab.h>

#include "bench.h"

#define BENCH_CALIB_WORDS	4096		/* 32 KiB of u64 */
#define BENCH_CALIB_ROUNDS	2048

/**
 * bench_calib() - the "calib" command
 * @c: unused
 * @a: unused
 * @res: result: ns= (time the fixed work took) sum= (its result, so that
 *       the compiler keeps it)
 * @len: size of @res
 *
 * Return: 0 or -ENOMEM.
 */
int bench_calib(struct bench_ctx *c, const struct bench_args *a,
		char *res, size_t len)
{
	u64 *buf, x = 0x9e3779b97f4a7c15ULL, t0, ns;
	unsigned int r, i;

	buf = kcalloc(BENCH_CALIB_WORDS, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	t0 = ktime_get_ns();
	for (r = 0; r < BENCH_CALIB_ROUNDS; r++) {
		for (i = 0; i < BENCH_CALIB_WORDS; i++) {
			/* xorshift64: cheap, data dependent, not foldable */
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf[(i * 17 + r) % BENCH_CALIB_WORDS] += x;
		}
		cond_resched();
	}
	ns = ktime_get_ns() - t0;
	for (i = 0; i < BENCH_CALIB_WORDS; i++)
		x ^= buf[i];
	kfree(buf);
	snprintf(res, len, "ns=%llu sum=%llx", ns, x);
	return 0;
}
