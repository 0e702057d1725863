// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Completion queues that the core polls for kernel users.
 *
 * A ULP allocates the CQ with ib_alloc_cq() and points the wr_cqe of each
 * work request at a struct ib_cqe; the core reaps completions in batches
 * and calls each ib_cqe.done.  Where the reaping happens is the poll
 * context:
 *
 *   IB_POLL_DIRECT            only when the owner calls
 *                             ib_process_cq_direct(); the CQ is never armed
 *   IB_POLL_SOFTIRQ           from irq_poll (softirq), budget per round
 *   IB_POLL_WORKQUEUE         from a work item on ib_comp_wq
 *   IB_POLL_UNBOUND_WORKQUEUE from a work item on ib_comp_unbound_wq
 *
 * The interrupt-driven contexts arm the CQ once at creation; after each
 * round that drained the CQ they re-arm it with IB_CQ_NEXT_COMP |
 * IB_CQ_REPORT_MISSED_EVENTS and go round again if the provider reports
 * that completions slipped in meanwhile.
 *
 * Lifetime and locking:
 *  - The poller (irq_poll or the work item) runs at most once at a time
 *    per CQ; ib_free_cq() first stops the provider's notifications from
 *    scheduling it (comp_handler swapped for a no-op, pre_destroy_cq()),
 *    then disables the irq_poll / cancels the work synchronously, and only
 *    then destroys and frees the CQ.
 *  - cq->wc, the batch buffer, belongs to the poller alone.
 *  - The shared pools (ib_cq_pool_get/put) live in ib_device.cq_pools[],
 *    one list per poll context, guarded by ib_device.cq_pools_lock (taken
 *    with interrupts disabled); it also guards cq->cqe_used of pool CQs.
 *    Pool CQs are marked cq->shared and are freed only by
 *    ib_cq_pool_cleanup() when the device goes away.
 *
 * Adaptive interrupt moderation (ib_device.use_cq_dim) is not implemented:
 * cq->dim always stays NULL.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/export.h>
#include <linux/irq_poll.h>
#include <linux/list.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "core_priv.h"

/* Completions fetched per poll_cq call by the core's pollers. */
#define CQ_POLL_BATCH		16
/* ... and by ib_process_cq_direct(), whose buffer is on the stack. */
#define CQ_POLL_BATCH_DIRECT	8

/* Completions handled per irq_poll round before yielding the softirq. */
#define CQ_BUDGET_SOFTIRQ	256
/* Completions handled per work item run before requeueing ourselves. */
#define CQ_BUDGET_WORKQUEUE	65536

/* How a core-polled CQ re-arms itself after draining. */
#define CQ_REARM_FLAGS		(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)

/* Smallest pool CQ we bother to create; capped by the device's max_cqe. */
#define CQ_POOL_MIN_CQE		4096U

/*
 * Reap up to @budget completions (a negative budget means no limit) in
 * batches of @batch into @wcs, dispatching each to its ib_cqe.  Returns
 * how many were handled.
 */
static int cq_reap(struct ib_cq *cq, int budget, struct ib_wc *wcs,
		   int batch)
{
	int done = 0;

	for (;;) {
		int want = batch, got, i;

		if (budget >= 0)
			want = min(batch, budget - done);
		if (want <= 0)
			break;

		got = ib_poll_cq(cq, want, wcs);
		if (got <= 0)
			break;

		for (i = 0; i < got; i++) {
			struct ib_wc *wc = &wcs[i];

			if (likely(wc->wr_cqe))
				wc->wr_cqe->done(cq, wc);
			else
				/* Only flushed requests may lack a cqe. */
				WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
		}
		done += got;

		/* A short batch means the CQ is empty for now. */
		if (got < want)
			break;
	}
	return done;
}

/**
 * ib_process_cq_direct() - reap completions of an IB_POLL_DIRECT CQ
 * @cq: a CQ allocated with IB_POLL_DIRECT
 * @budget: the most completions to handle, or -1 for as many as there are
 *
 * Calls the ib_cqe.done callback of every completion taken, in the
 * caller's context.  The CQ is not re-armed: direct CQs never interrupt.
 *
 * Context: the caller's; must not race with another poller of @cq.
 * Return: the number of completions handled.
 */
int ib_process_cq_direct(struct ib_cq *cq, int budget)
{
	struct ib_wc wcs[CQ_POLL_BATCH_DIRECT];

	return cq_reap(cq, budget, wcs, CQ_POLL_BATCH_DIRECT);
}
EXPORT_SYMBOL(ib_process_cq_direct);

/* A direct CQ is never armed, so an event for it is a provider bug. */
static void cq_direct_event(struct ib_cq *cq, void *ctx)
{
	WARN_ONCE(1, "completion event on IB_POLL_DIRECT CQ %p\n", cq);
}

/* Installed by ib_free_cq(): late events of a dying CQ are ignored. */
static void cq_dying_event(struct ib_cq *cq, void *ctx)
{
}

static int cq_softirq_poll(struct irq_poll *iop, int budget)
{
	struct ib_cq *cq = container_of(iop, struct ib_cq, iop);
	int done;

	done = cq_reap(cq, budget, cq->wc, CQ_POLL_BATCH);
	if (done < budget) {
		irq_poll_complete(&cq->iop);
		if (ib_req_notify_cq(cq, CQ_REARM_FLAGS) > 0)
			irq_poll_sched(&cq->iop);
	}
	return done;
}

static void cq_softirq_event(struct ib_cq *cq, void *ctx)
{
	irq_poll_sched(&cq->iop);
}

static void cq_work_poll(struct work_struct *work)
{
	struct ib_cq *cq = container_of(work, struct ib_cq, work);
	int done;

	done = cq_reap(cq, CQ_BUDGET_WORKQUEUE, cq->wc, CQ_POLL_BATCH);
	if (done >= CQ_BUDGET_WORKQUEUE ||
	    ib_req_notify_cq(cq, CQ_REARM_FLAGS) > 0)
		queue_work(cq->comp_wq, &cq->work);
}

static void cq_work_event(struct ib_cq *cq, void *ctx)
{
	queue_work(cq->comp_wq, &cq->work);
}

/**
 * __ib_alloc_cq() - allocate a completion queue polled by the core
 * @dev: the device
 * @private: the ULP's context, stored in cq->cq_context
 * @nr_cqe: the least number of completions the CQ must hold
 * @comp_vector: the device completion vector (interrupt) to use
 * @poll_ctx: where completions are reaped (see enum ib_poll_context)
 * @caller: module name of the owner, for resource tracking
 *
 * Normally called through ib_alloc_cq().  Completions are dispatched to
 * the ib_cqe.done callback their work request pointed at.  Release the CQ
 * with ib_free_cq().
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR(-EINVAL) for an unknown @poll_ctx,
 * -EOPNOTSUPP if the device has no CQs, -ENOMEM, or the provider's error.
 */
struct ib_cq *__ib_alloc_cq(struct ib_device *dev, void *private, int nr_cqe,
			    int comp_vector, enum ib_poll_context poll_ctx,
			    const char *caller)
{
	struct ib_cq_init_attr attr = {
		.cqe		= nr_cqe,
		.comp_vector	= comp_vector,
	};
	struct ib_cq *cq;
	int ret;

	switch (poll_ctx) {
	case IB_POLL_DIRECT:
	case IB_POLL_SOFTIRQ:
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		break;
	default:
		return ERR_PTR(-EINVAL);
	}
	if (!dev->ops.create_cq || !dev->ops.destroy_cq)
		return ERR_PTR(-EOPNOTSUPP);

	cq = rdma_zalloc_drv_obj(dev, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);

	cq->device = dev;
	cq->cq_context = private;
	cq->poll_ctx = poll_ctx;
	cq->comp_vector = comp_vector;
	atomic_set(&cq->usecnt, 0);
	INIT_LIST_HEAD(&cq->pool_entry);

	if (poll_ctx != IB_POLL_DIRECT) {
		cq->wc = kmalloc_array(CQ_POLL_BATCH, sizeof(*cq->wc),
				       GFP_KERNEL);
		if (!cq->wc) {
			ret = -ENOMEM;
			goto err_free_cq;
		}
	}

	/* The poller must be ready before the provider can raise events. */
	switch (poll_ctx) {
	case IB_POLL_DIRECT:
		cq->comp_handler = cq_direct_event;
		break;
	case IB_POLL_SOFTIRQ:
		cq->comp_handler = cq_softirq_event;
		irq_poll_init(&cq->iop, CQ_BUDGET_SOFTIRQ, cq_softirq_poll);
		break;
	default:
		cq->comp_handler = cq_work_event;
		INIT_WORK(&cq->work, cq_work_poll);
		cq->comp_wq = poll_ctx == IB_POLL_WORKQUEUE ?
			      ib_comp_wq : ib_comp_unbound_wq;
		break;
	}

	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);

	ret = dev->ops.create_cq(cq, &attr, NULL);
	if (ret)
		goto err_restrack;

	if (poll_ctx != IB_POLL_DIRECT)
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);

	rdma_restrack_add(&cq->res);
	return cq;

err_restrack:
	rdma_restrack_put(&cq->res);
	if (poll_ctx == IB_POLL_SOFTIRQ)
		irq_poll_disable(&cq->iop);
	kfree(cq->wc);
err_free_cq:
	kfree(cq);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(__ib_alloc_cq);

/**
 * __ib_alloc_cq_any() - allocate a core-polled CQ on a spread-out vector
 * @dev: the device
 * @private: the ULP's context, stored in cq->cq_context
 * @nr_cqe: the least number of completions the CQ must hold
 * @poll_ctx: where completions are reaped
 * @caller: module name of the owner, for resource tracking
 *
 * Like __ib_alloc_cq(), with the completion vector chosen round robin
 * over the first min(num_comp_vectors, online CPUs) vectors (vector 0 on a
 * device with a single one).
 *
 * Context: process context; sleeps.
 * Return: as __ib_alloc_cq().
 */
struct ib_cq *__ib_alloc_cq_any(struct ib_device *dev, void *private,
				int nr_cqe, enum ib_poll_context poll_ctx,
				const char *caller)
{
	static atomic_t next_vector;
	int vector = 0;

	if (dev->num_comp_vectors > 1) {
		int spread = min_t(int, dev->num_comp_vectors,
				   num_online_cpus());

		vector = (unsigned int)atomic_inc_return(&next_vector) % spread;
	}
	return __ib_alloc_cq(dev, private, nr_cqe, vector, poll_ctx, caller);
}
EXPORT_SYMBOL(__ib_alloc_cq_any);

/* Free a core-polled CQ; the pool bookkeeping has been checked already. */
static void cq_free(struct ib_cq *cq)
{
	struct ib_device *dev = cq->device;
	int ret = 0;

	rdma_restrack_del(&cq->res);

	/* From here on the provider's events no longer schedule the poller. */
	WRITE_ONCE(cq->comp_handler, cq_dying_event);
	if (dev->ops.pre_destroy_cq) {
		ret = dev->ops.pre_destroy_cq(cq);
		WARN_ONCE(ret, "disabling a kernel CQ failed: %d\n", ret);
	}

	switch (cq->poll_ctx) {
	case IB_POLL_SOFTIRQ:
		irq_poll_disable(&cq->iop);
		break;
	case IB_POLL_WORKQUEUE:
	case IB_POLL_UNBOUND_WORKQUEUE:
		cancel_work_sync(&cq->work);
		break;
	default:
		break;
	}

	if (dev->ops.post_destroy_cq) {
		dev->ops.post_destroy_cq(cq);
	} else {
		ret = dev->ops.destroy_cq(cq, NULL);
		WARN_ONCE(ret, "destroying a kernel CQ failed: %d\n", ret);
	}
	kfree(cq->wc);
	kfree(cq);
}

/**
 * ib_free_cq() - free a CQ allocated with ib_alloc_cq()
 * @cq: the CQ
 *
 * Stops the core's poller (waiting for a running round to finish) and
 * destroys the CQ.  Refused, with a warning, while QPs or SRQs still use
 * the CQ, and for CQs that belong to a shared pool (return those with
 * ib_cq_pool_put()).  CQs made with ib_create_cq() go to ib_destroy_cq().
 *
 * Context: process context; sleeps.
 */
void ib_free_cq(struct ib_cq *cq)
{
	if (WARN_ON_ONCE(atomic_read(&cq->usecnt)))
		return;
	if (WARN_ON_ONCE(cq->shared || cq->cqe_used))
		return;

	cq_free(cq);
}
EXPORT_SYMBOL(ib_free_cq);

/**
 * ib_cq_pool_cleanup() - free the shared CQ pools of a device
 * @dev: the device being unregistered
 *
 * Called by the device code once no ULP can hold a pool CQ any more.
 *
 * Context: process context; sleeps.
 */
void ib_cq_pool_cleanup(struct ib_device *dev)
{
	struct ib_cq *cq, *next;
	LIST_HEAD(doomed);
	unsigned int i;

	spin_lock_irq(&dev->cq_pools_lock);
	for (i = 0; i < ARRAY_SIZE(dev->cq_pools); i++)
		list_splice_init(&dev->cq_pools[i], &doomed);
	spin_unlock_irq(&dev->cq_pools_lock);

	list_for_each_entry_safe(cq, next, &doomed, pool_entry) {
		WARN_ON(cq->cqe_used);
		list_del_init(&cq->pool_entry);
		cq->shared = false;
		cq_free(cq);
	}
}

/* Completion vectors a pool spreads over: at least one. */
static unsigned int cq_pool_vectors(struct ib_device *dev)
{
	unsigned int n = min_t(unsigned int, dev->num_comp_vectors,
			       num_online_cpus());

	return n ? n : 1;
}

/* Add one CQ per completion vector to the pool of @poll_ctx. */
static int cq_pool_grow(struct ib_device *dev, unsigned int nr_cqe,
			enum ib_poll_context poll_ctx)
{
	unsigned int vectors = cq_pool_vectors(dev), i;
	struct ib_cq *cq, *next;
	unsigned int size;
	LIST_HEAD(fresh);
	int ret;

	size = max(nr_cqe, CQ_POOL_MIN_CQE);
	if (dev->attrs.max_cqe > 0)
		size = min_t(unsigned int, size, dev->attrs.max_cqe);

	for (i = 0; i < vectors; i++) {
		cq = ib_alloc_cq(dev, NULL, size, i, poll_ctx);
		if (IS_ERR(cq)) {
			ret = PTR_ERR(cq);
			goto err;
		}
		cq->shared = true;
		list_add_tail(&cq->pool_entry, &fresh);
	}

	spin_lock_irq(&dev->cq_pools_lock);
	list_splice_tail(&fresh, &dev->cq_pools[poll_ctx]);
	spin_unlock_irq(&dev->cq_pools_lock);
	return 0;

err:
	list_for_each_entry_safe(cq, next, &fresh, pool_entry) {
		list_del_init(&cq->pool_entry);
		cq->shared = false;
		cq_free(cq);
	}
	return ret;
}

/* Reserve @nr_cqe entries on a pool CQ of @vector, if one has room. */
static struct ib_cq *cq_pool_take(struct ib_device *dev, unsigned int nr_cqe,
				  unsigned int vector,
				  enum ib_poll_context poll_ctx)
{
	struct ib_cq *cq, *found = NULL;

	spin_lock_irq(&dev->cq_pools_lock);
	list_for_each_entry(cq, &dev->cq_pools[poll_ctx], pool_entry) {
		if (cq->comp_vector != vector)
			continue;
		if (cq->cqe_used + nr_cqe > (unsigned int)cq->cqe)
			continue;
		cq->cqe_used += nr_cqe;
		found = cq;
		break;
	}
	spin_unlock_irq(&dev->cq_pools_lock);
	return found;
}

/**
 * ib_cq_pool_get() - take room on a CQ shared with other kernel users
 * @dev: the device
 * @nr_cqe: completions the caller may have outstanding at a time
 * @comp_vector_hint: preferred completion vector, or a negative value to
 *	let the core spread users round robin
 * @poll_ctx: IB_POLL_SOFTIRQ, IB_POLL_WORKQUEUE or IB_POLL_UNBOUND_WORKQUEUE
 *
 * Finds a pool CQ of the right context and vector with @nr_cqe entries
 * free, growing the pool when there is none.  Give the entries back with
 * ib_cq_pool_put(); never free or destroy a pool CQ.
 *
 * Context: process context; sleeps.
 * Return: the CQ, ERR_PTR(-EINVAL) for IB_POLL_DIRECT or a request larger
 * than the device's CQs, or the allocation error.
 */
struct ib_cq *ib_cq_pool_get(struct ib_device *dev, unsigned int nr_cqe,
			     int comp_vector_hint,
			     enum ib_poll_context poll_ctx)
{
	static unsigned int rr_vector;
	unsigned int vectors, vector;
	struct ib_cq *cq;
	int tries, ret;

	if (WARN_ON_ONCE(poll_ctx > IB_POLL_LAST_POOL_TYPE))
		return ERR_PTR(-EINVAL);
	if (dev->attrs.max_cqe > 0 && nr_cqe > (unsigned int)dev->attrs.max_cqe)
		return ERR_PTR(-EINVAL);

	vectors = cq_pool_vectors(dev);
	if (comp_vector_hint < 0) {
		vector = (READ_ONCE(rr_vector) + 1) % vectors;
		WRITE_ONCE(rr_vector, vector);
	} else {
		vector = comp_vector_hint % vectors;
	}

	/*
	 * A freshly grown pool has room for us unless other users raced us
	 * to it; give up after a few rounds rather than grow without end.
	 */
	for (tries = 0; tries < 4; tries++) {
		cq = cq_pool_take(dev, nr_cqe, vector, poll_ctx);
		if (cq)
			return cq;
		ret = cq_pool_grow(dev, nr_cqe, poll_ctx);
		if (ret)
			return ERR_PTR(ret);
	}
	cq = cq_pool_take(dev, nr_cqe, vector, poll_ctx);
	return cq ? cq : ERR_PTR(-ENOMEM);
}
EXPORT_SYMBOL(ib_cq_pool_get);

/**
 * ib_cq_pool_put() - give back room taken with ib_cq_pool_get()
 * @cq: the pool CQ
 * @nr_cqe: the same count that was passed to ib_cq_pool_get()
 *
 * The CQ itself stays in the pool until the device goes away.
 *
 * Context: any context that may disable interrupts.
 */
void ib_cq_pool_put(struct ib_cq *cq, unsigned int nr_cqe)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->device->cq_pools_lock, flags);
	if (!WARN_ON_ONCE(nr_cqe > cq->cqe_used))
		cq->cqe_used -= nr_cqe;
	spin_unlock_irqrestore(&cq->device->cq_pools_lock, flags);
}
EXPORT_SYMBOL(ib_cq_pool_put);
