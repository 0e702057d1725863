// SPDX-License-Identifier: GPL-2.0
/*
 * The cases of rdma_rxe_loop_test about the limits query_device() reports:
 * each one tested here can be reached (objects of exactly that size or
 * that number work) and one past it is refused.
 *
 *  - the number of AHs of the device (max_ah)
 *
 * The device must be fresh: no other user holds objects of it meanwhile.
 */
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "rdma_rxe_loop.h"

/* ---- object counts --------------------------------------------------------- */

/*
 * max_ah AHs (the device holds no other: the cases before destroyed
 * theirs); the next one is refused with -EINVAL, and works again once one
 * is destroyed.
 */
void limit_ah_count(struct rdma_ktap_ctx *ctx)
{
	int max = lt_dev->attrs.max_ah, n = 0;
	struct rdma_ah_attr attr;
	struct ib_ah **ahs, *ah;

	if (!RDMA_KT_EXPECT(ctx, max > 0, "max_ah %d", max) ||
	    !lt_own_attr(ctx, &attr, false))
		return;
	ahs = kvcalloc(max, sizeof(*ahs), GFP_KERNEL);
	if (!RDMA_KT_EXPECT(ctx, ahs, "no memory for %d AH pointers", max))
		return;
	while (n < max) {
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (IS_ERR(ah))
			break;
		ahs[n++] = ah;
	}
	if (n == max) {
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (!RDMA_KT_EQ(ctx, PTR_ERR_OR_ZERO(ah), -EINVAL) && !IS_ERR(ah))
			rdma_destroy_ah(ah, RDMA_DESTROY_AH_SLEEPABLE);
	} else {
		RDMA_KT_EXPECT(ctx, 0, "AH %d of %d: %ld", n + 1, max,
			       PTR_ERR(ah));
	}
	/* A slot given back is a slot to take again. */
	if (n) {
		rdma_destroy_ah(ahs[--n], RDMA_DESTROY_AH_SLEEPABLE);
		ah = rdma_create_ah(lt_pd, &attr, RDMA_CREATE_AH_SLEEPABLE);
		if (RDMA_KT_EXPECT(ctx, !IS_ERR(ah), "AH after a destroy: %ld",
				   PTR_ERR(ah)))
			ahs[n++] = ah;
	}
	while (n)
		rdma_destroy_ah(ahs[--n], RDMA_DESTROY_AH_SLEEPABLE);
	kvfree(ahs);
}
