// SPDX-License-Identifier: GPL-2.0
/*
 * The asynchronous event file GET_CONTEXT hands out: an anonymous inode
 * "[infinibandevent]" from which user space reads one 16-byte
 * struct ib_uverbs_async_event_desc per read(), blocking, or -EAGAIN
 * with O_NONBLOCK; poll() reports it readable while an event is queued.
 *
 * Lifetime: struct uverbs_async_file is reference counted: the anon file
 * holds one reference, the uverbs file that created it another (dropped
 * at its close, after which no event is queued any more).  The queue is
 * protected by @lock; events are queued from the device's event handler
 * (process context) and taken by read().
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "uverbs.h"

/**
 * struct uverbs_async_file - an async event fd
 * @ref: see the top of this file
 * @lock: protects @events
 * @events: queued struct uverbs_async_event, oldest first
 * @wait: readers and pollers waiting for an event
 */
struct uverbs_async_file {
	struct kref		ref;
	spinlock_t		lock;		/* @events */
	struct list_head	events;
	wait_queue_head_t	wait;
};

struct uverbs_async_event {
	struct list_head			list;
	struct ib_uverbs_async_event_desc	desc;
};

static void uverbs_async_file_release(struct kref *ref)
{
	struct uverbs_async_file *async =
		container_of(ref, struct uverbs_async_file, ref);
	struct uverbs_async_event *ev, *next;

	list_for_each_entry_safe(ev, next, &async->events, list)
		kfree(ev);
	kfree(async);
}

/**
 * uverbs_async_file_put() - drop a reference to an async event file
 * @async: the file's state
 */
void uverbs_async_file_put(struct uverbs_async_file *async)
{
	kref_put(&async->ref, uverbs_async_file_release);
}

/**
 * uverbs_async_event() - queue an event for user space
 * @async: the event file
 * @element: what the event is about: the port number for port events
 * @event_type: the enum ib_event_type value, the same number as user
 *	space's
 *
 * An event that cannot be allocated is dropped (the allocator reports
 * it).
 *
 * Context: process context.
 */
void uverbs_async_event(struct uverbs_async_file *async, u64 element,
			u32 event_type)
{
	struct uverbs_async_event *ev;

	ev = kzalloc(sizeof(*ev), GFP_KERNEL);
	if (!ev)
		return;
	ev->desc.element = element;
	ev->desc.event_type = event_type;

	spin_lock_irq(&async->lock);
	list_add_tail(&ev->list, &async->events);
	spin_unlock_irq(&async->lock);
	wake_up_interruptible(&async->wait);
}

static bool uverbs_async_pending(struct uverbs_async_file *async)
{
	bool pending;

	spin_lock_irq(&async->lock);
	pending = !list_empty(&async->events);
	spin_unlock_irq(&async->lock);
	return pending;
}

/* The oldest queued event, off the queue; NULL when there is none. */
static struct uverbs_async_event *
uverbs_async_dequeue(struct uverbs_async_file *async)
{
	struct uverbs_async_event *first;

	spin_lock_irq(&async->lock);
	first = list_first_entry_or_null(&async->events,
					 struct uverbs_async_event, list);
	if (first)
		list_del(&first->list);
	spin_unlock_irq(&async->lock);
	return first;
}

/*
 * One event per read(): a buffer too small for one is refused before
 * anything else; without an event, a blocking reader waits for one.
 */
static ssize_t uverbs_async_read(struct file *filp, char __user *buf,
				 size_t count, loff_t *pos)
{
	struct uverbs_async_file *async = filp->private_data;
	struct ib_uverbs_async_event_desc desc;
	struct uverbs_async_event *ev;

	if (count < sizeof(desc))
		return -EINVAL;
	while (!(ev = uverbs_async_dequeue(async))) {
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(async->wait,
					     uverbs_async_pending(async)))
			return -ERESTARTSYS;
	}
	desc = ev->desc;

	if (copy_to_user(buf, &desc, sizeof(desc))) {
		/* Not delivered: it stays the oldest. */
		spin_lock_irq(&async->lock);
		list_add(&ev->list, &async->events);
		spin_unlock_irq(&async->lock);
		return -EFAULT;
	}
	kfree(ev);
	return sizeof(desc);
}

static __poll_t uverbs_async_poll(struct file *filp, poll_table *wait)
{
	struct uverbs_async_file *async = filp->private_data;

	poll_wait(filp, &async->wait, wait);
	return uverbs_async_pending(async) ? EPOLLIN | EPOLLRDNORM : 0;
}

static int uverbs_async_close(struct inode *inode, struct file *filp)
{
	uverbs_async_file_put(filp->private_data);
	return 0;
}

static const struct file_operations uverbs_async_fops = {
	.read		= uverbs_async_read,
	.release	= uverbs_async_close,
	.poll		= uverbs_async_poll,
	.owner		= THIS_MODULE,
};

/**
 * uverbs_async_file_create() - make a new async event file
 * @async: set to its state, with a reference for the caller
 *
 * The file is not installed in any fd table yet.
 *
 * Context: process context.
 * Return: the file (its own reference to *@async held by it), or an
 * ERR_PTR.
 */
struct file *uverbs_async_file_create(struct uverbs_async_file **async)
{
	struct uverbs_async_file *new;
	struct file *filp;

	new = kzalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return ERR_PTR(-ENOMEM);
	kref_init(&new->ref);
	spin_lock_init(&new->lock);
	INIT_LIST_HEAD(&new->events);
	init_waitqueue_head(&new->wait);

	filp = anon_inode_getfile("[infinibandevent]", &uverbs_async_fops,
				  new, O_RDONLY);
	if (IS_ERR(filp)) {
		kfree(new);
		return filp;
	}
	kref_get(&new->ref);
	*async = new;
	return filp;
}
