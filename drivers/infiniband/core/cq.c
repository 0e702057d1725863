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

/* Completions fetched per poll_cq call, into the CQ's cq->wc. */
#define CQ_POLL_BATCH		16

/* Completions handled per irq_poll round before yielding the softirq. */
#define CQ_BUDGET_SOFTIRQ	256
/* Completions handled per work item run before requeueing ourselves. */
#define CQ_BUDGET_WORKQUEUE	65536

/* How a core-polled CQ re-arms itself after draining. */
#define CQ_REARM_FLAGS		(IB_CQ_NEXT_COMP | IB_CQ_REPORT_MISSED_EVENTS)

/* Smallest pool CQ we bother to create; capped by the device's max_cqe. */
#define CQ_POOL_MIN_CQE		4096U

/* Hand each of @n completions to the ib_cqe its work request named. */
static void cq_dispatch(struct ib_cq *cq, struct ib_wc *wc, int n)
{
	for (; n > 0; n--, wc++) {
		if (likely(wc->wr_cqe))
			wc->wr_cqe->done(cq, wc);
		else
			/* Only flushed requests may lack a cqe. */
			WARN_ON_ONCE(wc->status == IB_WC_SUCCESS);
	}
}

/*
 * Reap up to @budget completions (a negative budget means no limit),
 * CQ_POLL_BATCH at a time into cq->wc.  Returns how many were handled.
 */
static int cq_reap(struct ib_cq *cq, int budget)
{
	int done = 0, want, got;

	do {
		want = budget < 0 ? CQ_POLL_BATCH :
				    min(CQ_POLL_BATCH, budget - done);
		got = want > 0 ? ib_poll_cq(cq, want, cq->wc) : 0;
		if (got > 0) {
			cq_dispatch(cq, cq->wc, got);
			done += got;
		}
		/* A short batch (or an error) means the CQ is empty for now. */
	} while (want > 0 && got == want);
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
	return cq_reap(cq, budget);
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

	done = cq_reap(cq, budget);
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

	done = cq_reap(cq, CQ_BUDGET_WORKQUEUE);
	if (done >= CQ_BUDGET_WORKQUEUE ||
	    ib_req_notify_cq(cq, CQ_REARM_FLAGS) > 0)
		queue_work(cq->comp_wq, &cq->work);
}

static void cq_work_event(struct ib_cq *cq, void *ctx)
{
	queue_work(cq->comp_wq, &cq->work);
}

/*
 * How each poll context hears of completions (@event, the CQ's
 * comp_handler) and, for the work item contexts, the workqueue (@wq) its
 * poller runs on.
 */
struct cq_poller {
	ib_comp_handler			event;
	struct workqueue_struct		**wq;
};

static const struct cq_poller cq_pollers[] = {
	[IB_POLL_DIRECT]		= { .event = cq_direct_event },
	[IB_POLL_SOFTIRQ]		= { .event = cq_softirq_event },
	[IB_POLL_WORKQUEUE]		= { .event = cq_work_event,
					    .wq = &ib_comp_wq },
	[IB_POLL_UNBOUND_WORKQUEUE]	= { .event = cq_work_event,
					    .wq = &ib_comp_unbound_wq },
};

/* The poller of @poll_ctx; NULL for a value that names none. */
static const struct cq_poller *cq_poller_of(enum ib_poll_context poll_ctx)
{
	if ((unsigned int)poll_ctx >= ARRAY_SIZE(cq_pollers) ||
	    !cq_pollers[poll_ctx].event)
		return NULL;
	return &cq_pollers[poll_ctx];
}

/*
 * Set up the core's poller of @cq (its poll_ctx is set).  It must be ready
 * before the provider can raise events, so this runs before create_cq.
 */
static int cq_poller_start(struct ib_cq *cq, const struct cq_poller *poller)
{
	/* Every core-polled CQ reaps into a batch buffer of its own. */
	cq->wc = kmalloc_array(CQ_POLL_BATCH, sizeof(*cq->wc), GFP_KERNEL);
	if (!cq->wc)
		return -ENOMEM;

	cq->comp_handler = poller->event;
	if (poller->wq) {
		cq->comp_wq = *poller->wq;
		INIT_WORK(&cq->work, cq_work_poll);
	} else if (cq->poll_ctx == IB_POLL_SOFTIRQ) {
		irq_poll_init(&cq->iop, CQ_BUDGET_SOFTIRQ, cq_softirq_poll);
	}
	return 0;
}

/* Wait for a running round of the poller and keep it from running again. */
static void cq_poller_stop(struct ib_cq *cq)
{
	if (cq->poll_ctx == IB_POLL_SOFTIRQ)
		irq_poll_disable(&cq->iop);
	else if (cq->comp_wq)
		cancel_work_sync(&cq->work);
}

/* ---- construction, shared by both kinds of CQ --------------------------- */

/*
 * A zeroed CQ of @dev, at the provider's size, with the core's fields set;
 * an ERR_PTR() if the device has no CQs or there is no memory.
 */
static struct ib_cq *cq_alloc(struct ib_device *dev, void *context,
			      int comp_vector)
{
	struct ib_cq *cq;

	if (!dev->ops.create_cq || !dev->ops.destroy_cq)
		return ERR_PTR(-EOPNOTSUPP);
	cq = rdma_zalloc_drv_obj(dev, ib_cq);
	if (!cq)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&cq->pool_entry);
	cq->comp_vector = comp_vector;
	cq->cq_context = context;
	cq->device = dev;
	return cq;
}

/*
 * Have the provider create @cq and list it as owned by @caller.  On
 * failure it is not listed; what the caller allocated is for it to free.
 */
static int cq_realize(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
		      const char *caller)
{
	int ret;

	rdma_restrack_new(&cq->res, RDMA_RESTRACK_CQ);
	rdma_restrack_set_name(&cq->res, caller);
	ret = cq->device->ops.create_cq(cq, attr, NULL);
	if (ret)
		rdma_restrack_put(&cq->res);
	else
		rdma_restrack_add(&cq->res);
	return ret;
}

/* ---- CQs the core polls ------------------------------------------------- */

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
	const struct cq_poller *poller = cq_poller_of(poll_ctx);
	struct ib_cq_init_attr attr = {
		.cqe		= nr_cqe,
		.comp_vector	= comp_vector,
	};
	struct ib_cq *cq;
	int ret;

	if (!poller)
		return ERR_PTR(-EINVAL);
	cq = cq_alloc(dev, private, comp_vector);
	if (IS_ERR(cq))
		return cq;

	cq->poll_ctx = poll_ctx;
	ret = cq_poller_start(cq, poller);
	if (!ret) {
		ret = cq_realize(cq, &attr, caller);
		if (ret)
			cq_poller_stop(cq);
	}
	if (ret) {
		kfree(cq->wc);
		kfree(cq);
		return ERR_PTR(ret);
	}

	/* Direct CQs are never armed; the others from their first CQE on. */
	if (poll_ctx != IB_POLL_DIRECT)
		ib_req_notify_cq(cq, IB_CQ_NEXT_COMP);
	return cq;
}
EXPORT_SYMBOL(__ib_alloc_cq);

/*
 * Completion vectors kernel CQs spread over: one per online CPU at most,
 * and at least one.
 */
static unsigned int cq_pool_vectors(struct ib_device *dev)
{
	unsigned int n = min_t(unsigned int, dev->num_comp_vectors,
			       num_online_cpus());

	return n ? n : 1;
}

/* The next of those vectors, round robin, for users with no preference. */
static unsigned int cq_spread_vector(struct ib_device *dev)
{
	static atomic_t turn;

	return (unsigned int)atomic_inc_return(&turn) % cq_pool_vectors(dev);
}

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
	return __ib_alloc_cq(dev, private, nr_cqe, cq_spread_vector(dev),
			     poll_ctx, caller);
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

	cq_poller_stop(cq);

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

/* Free the pool CQs on @list; no user holds room on them any more. */
static void cq_pool_free_list(struct list_head *list)
{
	struct ib_cq *cq, *next;

	list_for_each_entry_safe(cq, next, list, pool_entry) {
		WARN_ON(cq->cqe_used);
		list_del_init(&cq->pool_entry);
		cq->shared = false;
		cq_free(cq);
	}
}

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
	LIST_HEAD(doomed);
	unsigned int i;

	spin_lock_irq(&dev->cq_pools_lock);
	for (i = 0; i < ARRAY_SIZE(dev->cq_pools); i++)
		list_splice_init(&dev->cq_pools[i], &doomed);
	spin_unlock_irq(&dev->cq_pools_lock);

	cq_pool_free_list(&doomed);
}

/*
 * Grow the pool of @poll_ctx by a CQ on @vector, with @nr_cqe of its
 * entries already reserved for the caller, so that no other user can
 * fill it first.
 */
static struct ib_cq *cq_pool_add(struct ib_device *dev, unsigned int nr_cqe,
				 unsigned int vector,
				 enum ib_poll_context poll_ctx)
{
	unsigned int size = max(nr_cqe, CQ_POOL_MIN_CQE);
	struct ib_cq *cq;

	if (dev->attrs.max_cqe > 0)
		size = min_t(unsigned int, size, dev->attrs.max_cqe);
	cq = ib_alloc_cq(dev, NULL, size, vector, poll_ctx);
	if (IS_ERR(cq))
		return cq;

	cq->shared = true;
	cq->cqe_used = nr_cqe;
	spin_lock_irq(&dev->cq_pools_lock);
	list_add_tail(&cq->pool_entry, &dev->cq_pools[poll_ctx]);
	spin_unlock_irq(&dev->cq_pools_lock);
	return cq;
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
 * free, or adds one to the pool when there is none.  Give the entries back with
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
	unsigned int vector;
	struct ib_cq *cq;

	if (WARN_ON_ONCE(poll_ctx > IB_POLL_LAST_POOL_TYPE))
		return ERR_PTR(-EINVAL);
	if (dev->attrs.max_cqe > 0 && nr_cqe > (unsigned int)dev->attrs.max_cqe)
		return ERR_PTR(-EINVAL);

	vector = comp_vector_hint < 0 ? cq_spread_vector(dev) :
		 comp_vector_hint % cq_pool_vectors(dev);
	cq = cq_pool_take(dev, nr_cqe, vector, poll_ctx);
	return cq ? cq : cq_pool_add(dev, nr_cqe, vector, poll_ctx);
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

/* ---- CQs their owner polls ---------------------------------------------- */

/**
 * __ib_create_cq() - create a completion queue with the caller's handlers
 * @device: the device
 * @comp_handler: called (from the provider's context) when the armed CQ
 *	gets a completion
 * @event_handler: called for asynchronous CQ events
 * @cq_context: passed to both handlers
 * @cq_attr: size, completion vector and flags
 * @caller: module name of the owner, for resource tracking
 *
 * Normally called through ib_create_cq().  The owner polls and arms the
 * CQ itself; destroy it with ib_destroy_cq().
 *
 * Context: process context; sleeps.
 * Return: the CQ, or ERR_PTR(-EOPNOTSUPP), -ENOMEM or the provider's error.
 */
struct ib_cq *__ib_create_cq(struct ib_device *device,
			     ib_comp_handler comp_handler,
			     void (*event_handler)(struct ib_event *event,
						   void *cq_context),
			     void *cq_context,
			     const struct ib_cq_init_attr *cq_attr,
			     const char *caller)
{
	struct ib_cq *cq = cq_alloc(device, cq_context, cq_attr->comp_vector);
	int ret;

	if (IS_ERR(cq))
		return cq;

	cq->comp_handler = comp_handler;
	cq->event_handler = event_handler;
	ret = cq_realize(cq, cq_attr, caller);
	if (ret) {
		kfree(cq);
		cq = ERR_PTR(ret);
	}
	return cq;
}
EXPORT_SYMBOL(__ib_create_cq);

/**
 * rdma_set_cq_moderation() - set the interrupt moderation of a CQ
 * @cq: the CQ
 * @cq_count: completions to gather before an event
 * @cq_period: microseconds to wait before an event
 *
 * Return: 0, -EOPNOTSUPP for a CQ of a shared pool or a provider without
 * moderation, or the provider's error.
 */
int rdma_set_cq_moderation(struct ib_cq *cq, u16 cq_count, u16 cq_period)
{
	/* A pool CQ serves many users; none of them may retune it. */
	return cq->shared ? -EOPNOTSUPP :
	       ib_core_call_opt(cq->device->ops.modify_cq, cq, cq_count,
				cq_period);
}
EXPORT_SYMBOL(rdma_set_cq_moderation);

/**
 * ib_resize_cq() - change the number of entries of a CQ
 * @cq: the CQ
 * @cqe: the least number of entries wanted
 *
 * Context: process context.
 * Return: 0, -EINVAL for a size of 0 or beyond the device's limit,
 * -EOPNOTSUPP for a pool CQ or a provider that cannot resize, or its error.
 */
int ib_resize_cq(struct ib_cq *cq, int cqe)
{
	struct ib_device *dev = cq->device;
	bool fits = cqe > 0 && cqe <= max(dev->attrs.max_cqe, 0);

	if (cq->shared || !dev->ops.resize_cq)
		return -EOPNOTSUPP;
	return fits ? dev->ops.resize_cq(cq, cqe, NULL) : -EINVAL;
}
EXPORT_SYMBOL(ib_resize_cq);

/**
 * ib_destroy_cq_user() - destroy a CQ made with ib_create_cq() or for a user
 * @cq: the CQ
 * @udata: the user's driver data, or NULL for a kernel CQ
 *
 * CQs from ib_alloc_cq() must go through ib_free_cq(), which also stops
 * the core's poller.
 *
 * Context: process context; sleeps.
 * Return: 0, -EOPNOTSUPP (with a warning) for a CQ of a shared pool,
 * -EBUSY while QPs or SRQs use the CQ, or the provider's error (the CQ is
 * then left as it was).
 */
int ib_destroy_cq_user(struct ib_cq *cq, struct ib_udata *udata)
{
	int ret;

	if (WARN_ON_ONCE(cq->shared))
		return -EOPNOTSUPP;

	/* Not while QPs or SRQs complete into it. */
	ret = atomic_read(&cq->usecnt) ? -EBUSY :
	      rdma_restrack_destroy(&cq->res,
				    cq->device->ops.destroy_cq(cq, udata));
	if (!ret) {
		kfree(cq->wc);
		kfree(cq);
	}
	return ret;
}
EXPORT_SYMBOL(ib_destroy_cq_user);
