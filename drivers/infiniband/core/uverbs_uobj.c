// SPDX-License-Identifier: GPL-2.0
/*
 * The objects of one uverbs file and their handles.
 *
 * Handles: ufile->handles is an allocating xarray, so handles are small
 * integers from 0 up, per file.  Creating an object takes three steps:
 * uobj_alloc() reserves a handle (a zero entry: lookups see nothing
 * there), the command creates the object and writes its response, then
 * uobj_commit() publishes the object under the handle, or uobj_abort()
 * gives the handle back.  A half-made object can thus never be found.
 *
 * Use count: ib_uobject.usecnt is 0 when the object is idle, -1 while
 * one command holds it exclusively to destroy it, and the number of
 * commands using it otherwise (a PD while an MR is registered on it, for
 * instance).  A command that wants an object the other way meanwhile
 * gets -EBUSY.  Objects that outlive the command using them (the MR on
 * the PD) are counted by the verbs layer's own counts (ib_pd.usecnt),
 * which the destroy callbacks check.
 *
 * Lifetime: ib_uobject.ref holds one reference for the handle table and
 * one per command that looked the object up.  Lookups run under RCU, so
 * the memory is freed after a grace period.
 *
 * Locking: ufile->uobjects (the committed objects, oldest first) is
 * protected by ufile->uobjects_lock.  Destroying everything at close runs
 * with ufile->hw_destroy_rwsem held for writing, which keeps every
 * command, and so every other user of the list, out.
 */
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "uverbs.h"

/**
 * uverbs_uobjects_init() - prepare the object table of a new file
 * @ufile: the file
 */
void uverbs_uobjects_init(struct ib_uverbs_file *ufile)
{
	xa_init_flags(&ufile->handles, XA_FLAGS_ALLOC);
	spin_lock_init(&ufile->uobjects_lock);
	INIT_LIST_HEAD(&ufile->uobjects);
}

static void uobj_release(struct kref *ref)
{
	struct ib_uobject *uobj = container_of(ref, struct ib_uobject, ref);

	kfree_rcu(uobj, rcu);
}

static void uobj_put(struct ib_uobject *uobj)
{
	kref_put(&uobj->ref, uobj_release);
}

/**
 * uobj_alloc() - start creating a user object: reserve its handle
 * @ufile: the file, which has a ucontext
 * @type: what the object will be
 *
 * Context: process context, in a command of @ufile.
 * Return: the new uobject (not yet visible under its handle), or
 * ERR_PTR(-ENOMEM) when memory or handles ran out.
 */
struct ib_uobject *uobj_alloc(struct ib_uverbs_file *ufile,
			      const struct uverbs_api_object *type)
{
	struct ib_uobject *uobj;
	u32 id;
	int ret;

	/* The per-type structure starts with the uobject (see obj_size). */
	uobj = kzalloc(max(type->obj_size, sizeof(*uobj)), GFP_KERNEL);
	if (!uobj)
		return ERR_PTR(-ENOMEM);
	ret = xa_alloc(&ufile->handles, &id, NULL, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		kfree(uobj);
		/* -EBUSY from the allocator means no handle is left. */
		return ERR_PTR(-ENOMEM);
	}
	uobj->id = id;
	uobj->ufile = ufile;
	uobj->context = ufile->ucontext;
	uobj->uapi_object = type;
	kref_init(&uobj->ref);
	/* Nobody may lock it before it is committed. */
	atomic_set(&uobj->usecnt, -1);
	return uobj;
}

/**
 * uobj_commit() - publish a created object under its handle
 * @uobj: from uobj_alloc(), with ->object set
 */
void uobj_commit(struct ib_uobject *uobj)
{
	struct ib_uverbs_file *ufile = uobj->ufile;

	spin_lock(&ufile->uobjects_lock);
	list_add_tail(&uobj->list, &ufile->uobjects);
	spin_unlock(&ufile->uobjects_lock);
	atomic_set(&uobj->usecnt, 0);
	/* The slot is reserved: replacing its zero entry allocates nothing. */
	WARN_ON(xa_is_err(xa_store(&ufile->handles, uobj->id, uobj,
				   GFP_KERNEL)));
}

/**
 * uobj_respond_commit() - answer a create command, then publish its object
 * @attrs: the command
 * @uobj: from uobj_alloc(), ->object made
 * @resp: the core response, which names the new handle
 * @len: bytes of @resp
 *
 * If the response cannot be written, the object is destroyed and its
 * handle given back: user space never holds a handle it did not learn.
 *
 * Context: process context, in a command of @uobj's file.
 * Return: 0, or the error of writing the response.
 */
int uobj_respond_commit(struct uverbs_attr_bundle *attrs,
			struct ib_uobject *uobj, const void *resp, size_t len)
{
	int err = uverbs_response(attrs, resp, len);

	if (err) {
		WARN_ON(uobj->uapi_object->destroy(uobj, RDMA_REMOVE_ABORT));
		uobj_abort(uobj);
		return err;
	}
	uobj_commit(uobj);
	return 0;
}

/**
 * uobj_abort() - give up creating an object
 * @uobj: from uobj_alloc(), not committed; the caller destroyed whatever
 *	->object pointed to
 */
void uobj_abort(struct ib_uobject *uobj)
{
	xa_erase(&uobj->ufile->handles, uobj->id);
	kfree(uobj);
}

/*
 * The object under @handle, of @type, with a reference and with its use
 * count taken: exclusively (-1, to destroy it) or shared (one more
 * user).  ERR_PTR(-ENOENT) for an unknown handle, -EINVAL for an object
 * of another type, -EBUSY if it is used the other way.
 */
static struct ib_uobject *uobj_get(struct ib_uverbs_file *ufile,
				   const struct uverbs_api_object *type,
				   u32 handle, bool exclusive)
{
	struct ib_uobject *uobj;
	bool taken;

	rcu_read_lock();
	uobj = xa_load(&ufile->handles, handle);
	if (!uobj || !kref_get_unless_zero(&uobj->ref))
		uobj = ERR_PTR(-ENOENT);
	rcu_read_unlock();
	if (IS_ERR(uobj))
		return uobj;

	if (uobj->uapi_object != type) {
		uobj_put(uobj);
		return ERR_PTR(-EINVAL);
	}
	if (exclusive)
		taken = atomic_cmpxchg(&uobj->usecnt, 0, -1) == 0;
	else
		taken = atomic_add_unless(&uobj->usecnt, 1, -1);
	if (!taken) {
		uobj_put(uobj);
		return ERR_PTR(-EBUSY);
	}
	return uobj;
}

/**
 * uobj_get_shared() - look up an object a command uses without destroying
 * @ufile: the file
 * @type: the type the command expects
 * @handle: the user's handle
 *
 * The object cannot be destroyed until uobj_put_shared(); other commands
 * may use it meanwhile.
 *
 * Context: process context, in a command of @ufile.
 * Return: the uobject; ERR_PTR(-ENOENT) if no object has @handle,
 * -EINVAL if it is not a @type, -EBUSY while it is being destroyed.
 */
struct ib_uobject *uobj_get_shared(struct ib_uverbs_file *ufile,
				   const struct uverbs_api_object *type,
				   u32 handle)
{
	return uobj_get(ufile, type, handle, false);
}

/**
 * uobj_put_shared() - end a use begun by uobj_get_shared()
 * @uobj: the object
 */
void uobj_put_shared(struct ib_uobject *uobj)
{
	atomic_dec(&uobj->usecnt);
	uobj_put(uobj);
}

/*
 * Destroy the object behind a locked @uobj and drop it from the file.
 * On failure the object and its handle stay as they were.
 */
static int uobj_remove(struct ib_uobject *uobj, enum rdma_remove_reason why)
{
	struct ib_uverbs_file *ufile = uobj->ufile;
	int ret;

	ret = uobj->uapi_object->destroy(uobj, why);
	if (ret)
		return ret;
	uobj->object = NULL;
	xa_erase(&ufile->handles, uobj->id);
	spin_lock(&ufile->uobjects_lock);
	list_del(&uobj->list);
	spin_unlock(&ufile->uobjects_lock);
	uobj_put(uobj);
	return 0;
}

/**
 * uobj_destroy_hold() - destroy the object a user names by its handle,
 *	keeping its uobject readable
 * @ufile: the file
 * @type: the type the command expects
 * @handle: the user's handle
 *
 * For commands that answer with what the destroyed object counted (the
 * events of a CQ): the per-type structure stays allocated, with nothing
 * behind ->object any more, until uobj_release_hold().
 *
 * Context: process context, in a command of @ufile.
 * Return: the uobject; ERR_PTR(-ENOENT) if no object has @handle,
 * -EINVAL if it is not a @type, -EBUSY if another command holds it or
 * other objects still use it; the provider's error otherwise.
 */
struct ib_uobject *uobj_destroy_hold(struct ib_uverbs_file *ufile,
				     const struct uverbs_api_object *type,
				     u32 handle)
{
	struct ib_uobject *uobj;
	int ret;

	uobj = uobj_get(ufile, type, handle, true);
	if (IS_ERR(uobj))
		return uobj;
	ret = uobj_remove(uobj, RDMA_REMOVE_DESTROY);
	if (ret) {
		atomic_set(&uobj->usecnt, 0);
		uobj_put(uobj);
		return ERR_PTR(ret);
	}
	return uobj;
}

/**
 * uobj_release_hold() - let go of a uobject uobj_destroy_hold() kept
 * @uobj: the uobject
 */
void uobj_release_hold(struct ib_uobject *uobj)
{
	uobj_put(uobj);
}

/**
 * uobj_destroy() - destroy the object a user names by its handle
 * @ufile: the file
 * @type: the type the command expects
 * @handle: the user's handle
 *
 * Context: process context, in a command of @ufile.
 * Return: 0, or the errors of uobj_destroy_hold().
 */
int uobj_destroy(struct ib_uverbs_file *ufile,
		 const struct uverbs_api_object *type, u32 handle)
{
	struct ib_uobject *uobj = uobj_destroy_hold(ufile, type, handle);

	if (IS_ERR(uobj))
		return PTR_ERR(uobj);
	uobj_release_hold(uobj);
	return 0;
}

/**
 * uverbs_destroy_ufile() - destroy every object of a file
 * @ufile: the file, with hw_destroy_rwsem held for writing
 * @why: RDMA_REMOVE_CLOSE or RDMA_REMOVE_DRIVER_REMOVE
 *
 * Newest first, in passes: an object another one still uses refuses to
 * go in one pass and goes in the next, once its user is gone.  An object
 * whose provider refuses for good is reported and dropped from the file
 * (its memory is lost, the rest of the file is not).
 */
void uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			  enum rdma_remove_reason why)
{
	struct ib_uobject *uobj, *next;
	bool progress;

	lockdep_assert_held_write(&ufile->hw_destroy_rwsem);
	do {
		progress = false;
		list_for_each_entry_safe_reverse(uobj, next, &ufile->uobjects,
						 list) {
			atomic_set(&uobj->usecnt, -1);
			if (!uobj_remove(uobj, why))
				progress = true;
		}
	} while (progress);

	list_for_each_entry_safe(uobj, next, &ufile->uobjects, list) {
		ibdev_err(uobj->context->device,
			  "uverbs: %s handle %d could not be destroyed, leaking it\n",
			  uobj->uapi_object->name, uobj->id);
		xa_erase(&ufile->handles, uobj->id);
		list_del(&uobj->list);
		uobj_put(uobj);
	}
}
