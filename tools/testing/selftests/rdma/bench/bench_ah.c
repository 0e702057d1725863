// SPDX-License-Identifier: GPL-2.0
/*
 * rdma_bench: address handle create/destroy pairs, the way a kernel ULP
 * makes one per destination (IPoIB neighbours, ib_create_ah_from_wc
 * replies): rdma_create_ah() then rdma_destroy_ah() on one address vector,
 * counted for a fixed time.
 *
 * Sleepable: RDMA_CREATE_AH_SLEEPABLE / RDMA_DESTROY_AH_SLEEPABLE from
 * process context.  Atomic: flags 0 with bottom halves disabled, the
 * context of a ULP's receive path, in batches so that softirqs and the
 * scheduler get their turn between them.
 */
#include <linux/bottom_half.h>
#include <linux/ktime.h>
#include <linux/sched.h>

#include "bench.h"

/* Pairs made between two looks at the clock (and, atomic, with BHs off). */
#define BENCH_AH_BATCH	32

static int bench_ah_batch(struct ib_pd *pd, struct rdma_ah_attr *attr,
			  bool sleepable)
{
	u32 cflags = sleepable ? RDMA_CREATE_AH_SLEEPABLE : 0;
	u32 dflags = sleepable ? RDMA_DESTROY_AH_SLEEPABLE : 0;
	struct ib_ah *ah;
	unsigned int i;

	for (i = 0; i < BENCH_AH_BATCH; i++) {
		ah = rdma_create_ah(pd, attr, cflags);
		if (IS_ERR(ah))
			return PTR_ERR(ah);
		rdma_destroy_ah(ah, dflags);
	}
	return 0;
}

/**
 * bench_ah_run() - the "ah" command: AH create/destroy pairs per second
 * @c: the instance (its device)
 * @a: secs, dest, dmac, atomic
 * @res: result: pairs= ns= rate= (pairs per second)
 * @len: size of @res
 *
 * Return: 0, -EINVAL without dest/dmac, -ENODATA without a RoCE v2 IPv4
 * source GID, or the first error of rdma_create_ah().
 */
int bench_ah_run(struct bench_ctx *c, const struct bench_args *a,
		 char *res, size_t len)
{
	struct rdma_ah_attr attr;
	u64 t0, now, end, pairs = 0;
	struct ib_pd *pd;
	int ret;

	if (!a->secs)
		return -EINVAL;
	ret = bench_fill_ah_attr(c, a, &attr);
	if (ret)
		return ret;
	pd = ib_alloc_pd(c->dev, 0);
	if (IS_ERR(pd))
		return PTR_ERR(pd);

	t0 = ktime_get_ns();
	end = t0 + (u64)a->secs * NSEC_PER_SEC;
	do {
		if (a->atomic) {
			local_bh_disable();
			ret = bench_ah_batch(pd, &attr, false);
			local_bh_enable();
		} else {
			ret = bench_ah_batch(pd, &attr, true);
		}
		if (ret)
			break;
		pairs += BENCH_AH_BATCH;
		cond_resched();
		now = ktime_get_ns();
	} while (now < end && !fatal_signal_pending(current));
	now = ktime_get_ns();
	ib_dealloc_pd(pd);

	snprintf(res, len, "pairs=%llu ns=%llu rate=%llu", pairs, now - t0,
		 div64_u64(pairs * NSEC_PER_SEC, max_t(u64, now - t0, 1)));
	return ret;
}
