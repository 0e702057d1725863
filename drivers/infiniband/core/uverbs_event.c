// SPDX-License-Identifier: GPL-2.0
/*
 * The event files of ib_uverbs, anonymous inodes "[infinibandevent]"
 * that user space reads one event from per read(), blocking, or -EAGAIN
 * with O_NONBLOCK; poll() reports them readable while an event is queued.
 *
 * The asynchronous event file GET_CONTEXT hands out gives 16-byte struct
 * ib_uverbs_async_event_desc records.  struct uverbs_async_file is
 * reference counted: the anon file holds one reference, the uverbs file
 * that created it another (dropped at its close, after which no port
 * event is queued any more), and each user object whose events go there
 * one more (dropped when the object is destroyed).  The queue holds
 * struct uverbs_async_entry, oldest first, of two sorts: a port event is
 * allocated when the device's handler (process context) queues it and
 * freed once read; an object's events (a QP's) are entries embedded in
 * the object, one per kind of event, so its handler, which may run in any
 * context, allocates nothing.  read() counts an object's entry in the
 * object's @reported; destroying the object takes its unread entries off
 * the queue (uverbs_obj_events_withdraw()), so its destroy answers with
 * exactly the events user space saw.
 *
 * A completion channel (CREATE_COMP_CHANNEL) gives 8-byte struct
 * ib_uverbs_comp_event_desc records, the user_handle of a CQ that has
 * new completions.  Its events need no allocation: each CQ embeds a
 * struct uverbs_comp_event, queued at most once (a second notification
 * before user space read the first adds nothing), so completions can
 * be signalled from any context.  struct uverbs_comp_file is reference
 * counted by the anon file and by each CQ bound to the channel.
 *
 * When the device goes away (uverbs.h), the async file gets
 * IB_EVENT_DEVICE_FATAL as its last event and the channels of the file's
 * CQs are marked dead: once a dead file's queue is empty, read() fails
 * with -EIO instead of waiting, and poll() reports EPOLLERR.
 */
#include <linux/anon_inodes.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_user_verbs.h>

#include "uverbs.h"

/**
 * struct uverbs_async_file - an async event fd
 * @ref: see the top of this file
 * @read_mutex: held by read() from choosing an entry until it is
 *	delivered, and by uverbs_obj_events_withdraw(), so that the object
 *	of an entry being read cannot go away under the reader
 * @lock: protects @events, the queued entries' @list and the owners'
 *	@reported; taken with interrupts off (objects' events come from
 *	any context)
 * @events: queued struct uverbs_async_entry, oldest first
 * @dead: the device is gone, nothing more is queued; under @lock
 * @wait: readers and pollers waiting for an event
 */
struct uverbs_async_file {
	struct kref		ref;
	struct mutex		read_mutex;	/* see above */
	spinlock_t		lock;		/* @events, @dead */
	struct list_head	events;
	bool			dead;
	wait_queue_head_t	wait;
};

static void uverbs_async_file_release(struct kref *ref)
{
	struct uverbs_async_file *async =
		container_of(ref, struct uverbs_async_file, ref);
	struct uverbs_async_entry *ev, *next;

	/* Objects hold references: only port events can be left. */
	list_for_each_entry_safe(ev, next, &async->events, list)
		if (!WARN_ON(ev->owner))
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
 * uverbs_async_event() - queue a port event for user space
 * @async: the event file
 * @element: what the event is about: the port number
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
	struct uverbs_async_entry *ev;

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

/**
 * uverbs_async_device_fatal() - the device is gone: the last event
 * @async: the event file
 *
 * Queues IB_EVENT_DEVICE_FATAL (unless it cannot be allocated) and marks
 * the file dead: read() fails with -EIO once the queue is empty.
 *
 * Context: process context.
 */
void uverbs_async_device_fatal(struct uverbs_async_file *async)
{
	struct uverbs_async_entry *ev = kzalloc(sizeof(*ev), GFP_KERNEL);

	spin_lock_irq(&async->lock);
	if (ev) {
		ev->desc.event_type = IB_EVENT_DEVICE_FATAL;
		list_add_tail(&ev->list, &async->events);
	}
	async->dead = true;
	spin_unlock_irq(&async->lock);
	wake_up_interruptible(&async->wait);
}

/**
 * uverbs_obj_events_init() - direct a new object's events to an async file
 * @oe: the object's events, embedded in it
 * @async: the async event file of the object's uverbs file
 * @element: what read() gives user space as the element: the object's
 *	user_handle
 *
 * @oe takes a reference on @async until uverbs_obj_events_withdraw().
 */
void uverbs_obj_events_init(struct uverbs_obj_events *oe,
			    struct uverbs_async_file *async, u64 element)
{
	unsigned int i;

	kref_get(&async->ref);
	oe->async = async;
	oe->reported = 0;
	for (i = 0; i < ARRAY_SIZE(oe->entry); i++) {
		INIT_LIST_HEAD(&oe->entry[i].list);
		oe->entry[i].desc = (struct ib_uverbs_async_event_desc) {
			.element = element,
		};
		oe->entry[i].owner = oe;
	}
}

/**
 * uverbs_obj_event() - queue an event of an object for user space
 * @oe: the object's events
 * @event_type: the enum ib_event_type value
 *
 * The object's entry for @event_type goes to the end of the queue,
 * unless it is queued already: user space has not read the previous
 * event of that kind yet, and learns of this one with it.
 *
 * Context: any, until the object's destroy has stopped its events.
 */
void uverbs_obj_event(struct uverbs_obj_events *oe, u32 event_type)
{
	struct uverbs_async_file *async = oe->async;
	struct uverbs_async_entry *free = NULL;
	unsigned long flags;
	unsigned int i;
	bool queued;

	spin_lock_irqsave(&async->lock, flags);
	for (i = 0; i < ARRAY_SIZE(oe->entry); i++) {
		if (list_empty(&oe->entry[i].list))
			free = free ?: &oe->entry[i];
		else if (oe->entry[i].desc.event_type == event_type)
			break;
	}
	/* One entry per kind, and no object has more kinds than entries. */
	queued = i == ARRAY_SIZE(oe->entry) && !WARN_ON_ONCE(!free);
	if (queued) {
		free->desc.event_type = event_type;
		list_add_tail(&free->list, &async->events);
	}
	spin_unlock_irqrestore(&async->lock, flags);
	if (queued)
		wake_up_interruptible(&async->wait);
}

/**
 * uverbs_obj_events_withdraw() - take a destroyed object's events back
 * @oe: the object's events; unread ones are discarded
 *
 * Drops @oe's reference on the async file.
 *
 * Context: process context, after the object's handler stopped running.
 * Return: the number of the object's events user space read.
 */
u32 uverbs_obj_events_withdraw(struct uverbs_obj_events *oe)
{
	struct uverbs_async_file *async = oe->async;
	unsigned int i;
	u32 reported;

	mutex_lock(&async->read_mutex);
	spin_lock_irq(&async->lock);
	for (i = 0; i < ARRAY_SIZE(oe->entry); i++)
		list_del_init(&oe->entry[i].list);
	reported = oe->reported;
	spin_unlock_irq(&async->lock);
	mutex_unlock(&async->read_mutex);

	oe->async = NULL;
	uverbs_async_file_put(async);
	return reported;
}

/* EPOLLIN: an event is queued; EPOLLERR: none, and the device is gone. */
static __poll_t uverbs_async_ready(struct uverbs_async_file *async)
{
	bool queued, dead;

	spin_lock_irq(&async->lock);
	queued = !list_empty(&async->events);
	dead = async->dead;
	spin_unlock_irq(&async->lock);
	if (queued)
		return EPOLLIN | EPOLLRDNORM;
	return dead ? EPOLLERR : 0;
}

/*
 * Deliver the oldest event, if any, to @buf: 1 when one was delivered, 0
 * when none is queued, -EFAULT (the event stays queued) when @buf is bad.
 */
static int uverbs_async_deliver(struct uverbs_async_file *async,
				char __user *buf)
{
	struct ib_uverbs_async_event_desc desc;
	struct uverbs_async_entry *ev;
	int ret = 0;

	mutex_lock(&async->read_mutex);
	spin_lock_irq(&async->lock);
	ev = list_first_entry_or_null(&async->events,
				      struct uverbs_async_entry, list);
	if (ev)
		desc = ev->desc;
	spin_unlock_irq(&async->lock);
	if (!ev)
		goto out;

	if (copy_to_user(buf, &desc, sizeof(desc))) {
		ret = -EFAULT;
		goto out;
	}
	/* Only withdraw() takes it off otherwise, and it waits for us. */
	spin_lock_irq(&async->lock);
	list_del_init(&ev->list);
	if (ev->owner)
		ev->owner->reported++;
	spin_unlock_irq(&async->lock);
	if (!ev->owner)
		kfree(ev);
	ret = 1;
out:
	mutex_unlock(&async->read_mutex);
	return ret;
}

/*
 * One event per read(): a buffer too small for one is refused before
 * anything else; without an event, a blocking reader waits for one.
 */
static ssize_t uverbs_async_read(struct file *filp, char __user *buf,
				 size_t count, loff_t *pos)
{
	struct uverbs_async_file *async = filp->private_data;
	int ret;

	if (count < sizeof(struct ib_uverbs_async_event_desc))
		return -EINVAL;
	while (!(ret = uverbs_async_deliver(async, buf))) {
		if (uverbs_async_ready(async) & EPOLLERR)
			return -EIO;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(async->wait,
					     uverbs_async_ready(async)))
			return -ERESTARTSYS;
	}
	return ret < 0 ? ret : sizeof(struct ib_uverbs_async_event_desc);
}

static __poll_t uverbs_async_poll(struct file *filp, poll_table *wait)
{
	struct uverbs_async_file *async = filp->private_data;

	poll_wait(filp, &async->wait, wait);
	return uverbs_async_ready(async);
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
	mutex_init(&new->read_mutex);
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

/* ---- completion channels ------------------------------------------------ */

/**
 * struct uverbs_comp_file - a completion channel
 * @ref: see the top of this file
 * @read_mutex: held by read() from choosing an event until it is
 *	delivered, and by uverbs_comp_event_withdraw(), so that the CQ of
 *	an event being read cannot go away under the reader
 * @lock: protects @pending and the queued events' @reported counts;
 *	taken with interrupts off (completions come from any context)
 * @pending: struct uverbs_comp_event of CQs with an unread event,
 *	oldest first
 * @dead: the device of a CQ bound to the channel is gone; under @lock
 * @wait: readers and pollers waiting for an event
 */
struct uverbs_comp_file {
	struct kref		ref;
	struct mutex		read_mutex;	/* see above */
	spinlock_t		lock;		/* @pending, @dead */
	struct list_head	pending;
	bool			dead;
	wait_queue_head_t	wait;
};

static const struct file_operations uverbs_comp_fops;

static void uverbs_comp_file_release(struct kref *ref)
{
	kfree(container_of(ref, struct uverbs_comp_file, ref));
}

/**
 * uverbs_comp_file_put() - drop a reference to a completion channel
 * @comp: the channel
 */
void uverbs_comp_file_put(struct uverbs_comp_file *comp)
{
	kref_put(&comp->ref, uverbs_comp_file_release);
}

/**
 * uverbs_comp_file_get() - the completion channel behind a user's fd
 * @fd: the fd CREATE_CQ names
 *
 * Context: process context.
 * Return: the channel with a reference for the caller, or
 * ERR_PTR(-EBADF) when @fd is not a completion channel (as stock Linux
 * answers).
 */
struct uverbs_comp_file *uverbs_comp_file_get(int fd)
{
	struct uverbs_comp_file *comp = ERR_PTR(-EBADF);
	struct fd f = fdget(fd);

	if (fd_file(f) && fd_file(f)->f_op == &uverbs_comp_fops) {
		comp = fd_file(f)->private_data;
		kref_get(&comp->ref);
	}
	fdput(f);
	return comp;
}

/**
 * uverbs_comp_notify() - signal that a CQ has new completions
 * @comp: the CQ's channel
 * @ev: the CQ's event
 *
 * Context: any.
 */
void uverbs_comp_notify(struct uverbs_comp_file *comp,
			struct uverbs_comp_event *ev)
{
	unsigned long flags;

	spin_lock_irqsave(&comp->lock, flags);
	if (list_empty(&ev->list))
		list_add_tail(&ev->list, &comp->pending);
	spin_unlock_irqrestore(&comp->lock, flags);
	wake_up_interruptible(&comp->wait);
}

/**
 * uverbs_comp_event_withdraw() - take a destroyed CQ off its channel
 * @comp: the channel
 * @ev: the CQ's event; an unread one is discarded
 *
 * Context: process context, after the provider stopped calling the CQ's
 * completion handler.
 * Return: the number of the CQ's events user space read.
 */
u32 uverbs_comp_event_withdraw(struct uverbs_comp_file *comp,
			       struct uverbs_comp_event *ev)
{
	u32 reported;

	mutex_lock(&comp->read_mutex);
	spin_lock_irq(&comp->lock);
	list_del_init(&ev->list);
	reported = ev->reported;
	spin_unlock_irq(&comp->lock);
	mutex_unlock(&comp->read_mutex);
	return reported;
}

/**
 * uverbs_comp_file_kill() - a CQ bound to the channel lost its device
 * @comp: the channel
 *
 * Marks the channel dead: read() fails with -EIO once nothing is queued.
 *
 * Context: any.
 */
void uverbs_comp_file_kill(struct uverbs_comp_file *comp)
{
	unsigned long flags;

	spin_lock_irqsave(&comp->lock, flags);
	comp->dead = true;
	spin_unlock_irqrestore(&comp->lock, flags);
	wake_up_interruptible(&comp->wait);
}

/* EPOLLIN: an event is queued; EPOLLERR: none, and the channel is dead. */
static __poll_t uverbs_comp_ready(struct uverbs_comp_file *comp)
{
	bool queued, dead;

	spin_lock_irq(&comp->lock);
	queued = !list_empty(&comp->pending);
	dead = comp->dead;
	spin_unlock_irq(&comp->lock);
	if (queued)
		return EPOLLIN | EPOLLRDNORM;
	return dead ? EPOLLERR : 0;
}

/*
 * Deliver the oldest event, if any, to @buf: 1 when one was delivered, 0
 * when none is queued, -EFAULT (the event stays queued) when @buf is bad.
 */
static int uverbs_comp_deliver(struct uverbs_comp_file *comp,
			       char __user *buf)
{
	struct ib_uverbs_comp_event_desc desc;
	struct uverbs_comp_event *ev;
	int ret = 0;

	mutex_lock(&comp->read_mutex);
	spin_lock_irq(&comp->lock);
	ev = list_first_entry_or_null(&comp->pending,
				      struct uverbs_comp_event, list);
	if (ev)
		desc.cq_handle = ev->cq_handle;
	spin_unlock_irq(&comp->lock);
	if (!ev)
		goto out;

	if (copy_to_user(buf, &desc, sizeof(desc))) {
		ret = -EFAULT;
		goto out;
	}
	/* Only withdraw() takes it off otherwise, and it waits for us. */
	spin_lock_irq(&comp->lock);
	list_del_init(&ev->list);
	ev->reported++;
	spin_unlock_irq(&comp->lock);
	ret = 1;
out:
	mutex_unlock(&comp->read_mutex);
	return ret;
}

static ssize_t uverbs_comp_read(struct file *filp, char __user *buf,
				size_t count, loff_t *pos)
{
	struct uverbs_comp_file *comp = filp->private_data;
	int ret;

	if (count < sizeof(struct ib_uverbs_comp_event_desc))
		return -EINVAL;
	while (!(ret = uverbs_comp_deliver(comp, buf))) {
		if (uverbs_comp_ready(comp) & EPOLLERR)
			return -EIO;
		if (filp->f_flags & O_NONBLOCK)
			return -EAGAIN;
		if (wait_event_interruptible(comp->wait,
					     uverbs_comp_ready(comp)))
			return -ERESTARTSYS;
	}
	return ret < 0 ? ret : sizeof(struct ib_uverbs_comp_event_desc);
}

static __poll_t uverbs_comp_poll(struct file *filp, poll_table *wait)
{
	struct uverbs_comp_file *comp = filp->private_data;

	poll_wait(filp, &comp->wait, wait);
	return uverbs_comp_ready(comp);
}

static int uverbs_comp_close(struct inode *inode, struct file *filp)
{
	uverbs_comp_file_put(filp->private_data);
	return 0;
}

static const struct file_operations uverbs_comp_fops = {
	.read		= uverbs_comp_read,
	.release	= uverbs_comp_close,
	.poll		= uverbs_comp_poll,
	.owner		= THIS_MODULE,
};

/**
 * uverbs_comp_file_create() - make a new completion channel
 *
 * The file is not installed in any fd table yet; CQs find the channel
 * through their fd with uverbs_comp_file_get().
 *
 * Context: process context.
 * Return: the file, or an ERR_PTR.
 */
struct file *uverbs_comp_file_create(void)
{
	struct uverbs_comp_file *comp;
	struct file *filp;

	comp = kzalloc(sizeof(*comp), GFP_KERNEL);
	if (!comp)
		return ERR_PTR(-ENOMEM);
	kref_init(&comp->ref);
	mutex_init(&comp->read_mutex);
	spin_lock_init(&comp->lock);
	INIT_LIST_HEAD(&comp->pending);
	init_waitqueue_head(&comp->wait);

	filp = anon_inode_getfile("[infinibandevent]", &uverbs_comp_fops,
				  comp, O_RDONLY);
	if (IS_ERR(filp))
		kfree(comp);
	return filp;
}
