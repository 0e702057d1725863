/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fixture most KTAP suites start from: a registered mock device on a
 * test netdev, a PD on it, and (optionally) its default GIDs 0 and 1 in
 * place.  Header-only so that it adds no module dependency between
 * rdma_mock and rdma_ktap.
 */
#ifndef RDMA_MOCK_FX_H
#define RDMA_MOCK_FX_H

#include <linux/err.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "rdma_ktap.h"
#include "rdma_mock.h"

struct rdma_mock_fx {
	struct rdma_mock_dev *md;
	struct ib_device *dev;
	struct ib_pd *pd;
};

/*
 * Register a mock device with @opts (NULL for the defaults) on @ndev and
 * allocate a PD; if @wait_ms, wait that long for GIDs 0 and 1.  Reports
 * the failing step on @ctx and returns false; rdma_mock_fx_fini() undoes
 * whatever was done either way.
 */
static inline bool rdma_mock_fx_init(struct rdma_ktap_ctx *ctx,
				     struct rdma_mock_fx *fx,
				     struct net_device *ndev,
				     const struct rdma_mock_opts *opts,
				     unsigned int wait_ms)
{
	struct rdma_mock_dev *md;
	struct ib_pd *pd;

	memset(fx, 0, sizeof(*fx));
	md = rdma_mock_create(ndev, opts);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(md), "registering a mock device: %ld",
			    PTR_ERR(md)))
		return false;
	fx->md = md;
	fx->dev = &md->ibdev;
	pd = ib_alloc_pd(fx->dev, 0);
	if (!RDMA_KT_EXPECT(ctx, !IS_ERR(pd), "ib_alloc_pd: %ld", PTR_ERR(pd)))
		return false;
	fx->pd = pd;
	if (!wait_ms)
		return true;
	return RDMA_KT_EXPECT(ctx,
			      rdma_mock_wait_for(rdma_mock_gid_index_valid(fx->dev, 1, 0) &&
						 rdma_mock_gid_index_valid(fx->dev, 1, 1),
						 wait_ms),
			      "default GIDs 0 and 1 never appeared");
}

static inline void rdma_mock_fx_fini(struct rdma_mock_fx *fx)
{
	if (fx->pd)
		ib_dealloc_pd(fx->pd);
	if (fx->md)
		rdma_mock_destroy(fx->md);
}

#endif /* RDMA_MOCK_FX_H */
