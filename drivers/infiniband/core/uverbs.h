/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ib_uverbs: user-space verbs through /dev/infiniband/uverbsN.
 *
 * The pieces and who owns what:
 *
 *   struct ib_uverbs_device   one per ib_device with alloc_ucontext; its
 *                             class device is uverbsN (uverbs_main.c)
 *   struct ib_uverbs_file     one per open() of uverbsN
 *   struct ib_ucontext        made by GET_CONTEXT, one per file at most
 *   struct ib_uobject         a user object (a PD, an MR, an MW, a CQ,
 *                             an AH, an SRQ or a QP), named by a per-file
 *                             handle (uverbs_uobj.c)
 *   struct uverbs_comp_file   a completion channel (uverbs_event.c)
 *   struct uverbs_async_file  the event fd GET_CONTEXT returns
 *                             (uverbs_event.c)
 *
 * Device removal disassociates the files from the device instead of
 * waiting for user space to close them (uverbs_client_remove()): @ib_dev
 * is cleared and its SRCU readers waited out, so no command, mmap() or
 * open() is running any more and every later one fails with -EIO.  Then
 * each open file is torn down once, by removal or by its own close,
 * whichever takes its @hw_destroy_rwsem for writing first
 * (uverbs_ufile_teardown()).  Removal's teardown queues
 * IB_EVENT_DEVICE_FATAL as the async file's last event, replaces the
 * file's mappings of provider memory by zero pages (uverbs_mmap.c),
 * destroys its objects with RDMA_REMOVE_DRIVER_REMOVE, the ucontext with
 * them, and lets go of the provider's module.  What is left of the file
 * (struct ib_uverbs_file, the event files, the VMAs) belongs to ib_uverbs
 * alone and goes when user space closes and unmaps it.
 */
#ifndef _UVERBS_H
#define _UVERBS_H

#include <linux/cdev.h>
#include <linux/device.h>
#include <linux/kref.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/srcu.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

/**
 * struct ib_uverbs_device - the uverbs side of one ib_device
 * @dev: the class device uverbsN; its reference count keeps this structure
 *	(every open file holds one)
 * @cdev: the char device behind @dev
 * @ib_dev: the ib_device, RCU-protected by @disassociate_srcu; NULL once
 *	removal has begun
 * @disassociate_srcu: readers of @ib_dev
 * @devnum: N of uverbsN, from the module's IDA
 * @lists_mutex: protects @files and each listed file's @async
 * @files: the open files not torn down by removal yet, for event delivery
 * @event_handler: receives the ib_device's asynchronous events
 */
struct ib_uverbs_device {
	struct device			dev;
	struct cdev			cdev;
	struct ib_device __rcu		*ib_dev;
	struct srcu_struct		disassociate_srcu;
	int				devnum;
	struct mutex			lists_mutex;	/* @files, files' @async */
	struct list_head		files;
	struct ib_event_handler		event_handler;
};

/**
 * struct ib_uverbs_file - one open() of a uverbs char device
 * @ref: one for the open file, one for a removal working on it
 * @device: the uverbs device (a reference on its @dev is held)
 * @ib_dev: the ib_device the file was opened on; a reference on its
 *	provider's module is held until the file is torn down
 * @mapping: the address space of the file's inode, where its mmap()s are
 * @list: entry in @device->files, under @device->lists_mutex
 * @hw_destroy_rwsem: every command holds it for reading while it uses
 *	the file's objects; the teardown holds it for writing
 * @torn_down: set by the teardown, under @hw_destroy_rwsem
 * @ucontext_lock: serializes GET_CONTEXT
 * @ucontext: set once by GET_CONTEXT (store-release, under @ucontext_lock),
 *	read with smp_load_acquire(); freed by the teardown
 * @async: the event file of GET_CONTEXT; set under @device->lists_mutex
 *	together with the context, a reference is held until close
 * @handles: handle -> struct ib_uobject; a reserved handle (creation in
 *	progress) holds a zero entry
 * @uobjects_lock: protects @uobjects
 * @uobjects: the committed objects, oldest first
 * @umap_mutex: protects @umaps and the mappings' @entry
 * @umaps: struct uverbs_umap, one per mmap() still mapped (uverbs_mmap.c)
 */
struct ib_uverbs_file {
	struct kref			ref;
	struct ib_uverbs_device		*device;
	struct ib_device		*ib_dev;
	struct address_space		*mapping;
	struct list_head		list;
	struct rw_semaphore		hw_destroy_rwsem;
	bool				torn_down;
	struct mutex			ucontext_lock;	/* GET_CONTEXT */
	struct ib_ucontext		*ucontext;
	struct uverbs_async_file	*async;
	struct xarray			handles;
	spinlock_t			uobjects_lock;	/* @uobjects */
	struct list_head		uobjects;
	struct mutex			umap_mutex;	/* @umaps */
	struct list_head		umaps;
};

/*
 * The per-type part of a user object, and what destroying it needs.
 * @obj_size: bytes of the per-type structure that embeds struct
 *	ib_uobject as its first member; 0 for a bare ib_uobject.
 * @destroy undoes the object behind uobj->object; with
 * RDMA_REMOVE_DESTROY and RDMA_REMOVE_CLOSE it may refuse with -EBUSY
 * while other objects still use it.
 */
struct uverbs_api_object {
	const char	*name;
	size_t		obj_size;
	int		(*destroy)(struct ib_uobject *uobj,
				   enum rdma_remove_reason why);
};

extern const struct uverbs_api_object uverbs_type_pd;
extern const struct uverbs_api_object uverbs_type_mr;
extern const struct uverbs_api_object uverbs_type_mw;
extern const struct uverbs_api_object uverbs_type_cq;
extern const struct uverbs_api_object uverbs_type_ah;
extern const struct uverbs_api_object uverbs_type_qp;
extern const struct uverbs_api_object uverbs_type_srq;

/* uverbs_write.c */
ssize_t ib_uverbs_write(struct file *filp, const char __user *buf,
			size_t count, loff_t *pos);
int uverbs_request(struct uverbs_attr_bundle *attrs, void *req, size_t len);
int uverbs_response(struct uverbs_attr_bundle *attrs, const void *resp,
		    size_t len);

/**
 * struct uverbs_write_cmd - one entry of the command tables
 * @handler: does the command
 * @req_size: bytes of the core request the command needs (legacy: the
 *	response address included)
 * @resp_size: the least room for the core response the command accepts
 *	(legacy: exactly the room it needs; 0 when it answers nothing)
 * @udata: driver data may come with the command
 * @no_context: runs without a context (GET_CONTEXT)
 */
struct uverbs_write_cmd {
	int (*handler)(struct uverbs_attr_bundle *attrs);
	u16 req_size;
	u16 resp_size;
	u8 udata:1;
	u8 no_context:1;
};

/*
 * uverbs_cmd.c: the commands, indexed by number; an entry without a
 * handler is a command this kernel does not implement.
 */
void uverbs_ucontext_destroy(struct ib_ucontext *uc);
extern const struct uverbs_write_cmd uverbs_legacy_cmds[];
extern const size_t uverbs_legacy_ncmds;
extern const struct uverbs_write_cmd uverbs_ex_cmds[];
extern const size_t uverbs_ex_ncmds;

/* uverbs_ah.c */
void uverbs_ah_attr_from_user(struct ib_device *ib_dev,
			      const struct ib_uverbs_ah_attr *u,
			      struct rdma_ah_attr *attr);
int uverbs_cmd_create_ah(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_destroy_ah(struct uverbs_attr_bundle *attrs);

/* uverbs_cq.c */
int uverbs_cmd_create_comp_channel(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_create_cq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_ex_create_cq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_resize_cq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_req_notify_cq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_destroy_cq(struct uverbs_attr_bundle *attrs);

/* uverbs_mr.c */
int uverbs_cmd_reg_mr(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_dereg_mr(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_alloc_mw(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_dealloc_mw(struct uverbs_attr_bundle *attrs);

/* uverbs_qp.c */
int uverbs_cmd_create_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_ex_create_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_modify_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_ex_modify_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_query_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_destroy_qp(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_post_send(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_attach_mcast(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_detach_mcast(struct uverbs_attr_bundle *attrs);

/* uverbs_srq.c */
int uverbs_cmd_create_srq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_modify_srq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_query_srq(struct uverbs_attr_bundle *attrs);
int uverbs_cmd_destroy_srq(struct uverbs_attr_bundle *attrs);

/* uverbs_uobj.c */
void uverbs_uobjects_init(struct ib_uverbs_file *ufile);
struct ib_uobject *uobj_alloc(struct ib_uverbs_file *ufile,
			      const struct uverbs_api_object *type);
void uobj_commit(struct ib_uobject *uobj);
int uobj_respond_commit(struct uverbs_attr_bundle *attrs,
			struct ib_uobject *uobj, const void *resp, size_t len);
void uobj_abort(struct ib_uobject *uobj);
int uobj_destroy(struct ib_uverbs_file *ufile,
		 const struct uverbs_api_object *type, u32 handle);
struct ib_uobject *uobj_destroy_hold(struct ib_uverbs_file *ufile,
				     const struct uverbs_api_object *type,
				     u32 handle);
void uobj_release_hold(struct ib_uobject *uobj);
struct ib_uobject *uobj_get_shared(struct ib_uverbs_file *ufile,
				   const struct uverbs_api_object *type,
				   u32 handle);
void uobj_put_shared(struct ib_uobject *uobj);
void uverbs_destroy_ufile(struct ib_uverbs_file *ufile,
			  enum rdma_remove_reason why);

/* uverbs_mmap.c */
int uverbs_mmap(struct ib_uverbs_file *ufile, struct ib_ucontext *ucontext,
		struct vm_area_struct *vma);
void uverbs_umaps_disassociate(struct ib_uverbs_file *ufile);

/**
 * struct uverbs_comp_event - a CQ's event in its completion channel
 * @list: on the channel's pending list while the CQ has an unread
 *	event, empty otherwise
 * @cq_handle: what read() gives user space: the CQ's user_handle
 * @reported: the CQ's events user space has read
 *
 * @list and @reported are protected by the channel's lock.
 */
struct uverbs_comp_event {
	struct list_head	list;
	u64			cq_handle;
	u32			reported;
};

/**
 * struct uverbs_async_entry - an event on an async event file's queue
 * @list: on the file's queue while user space has not read it; empty
 *	otherwise
 * @desc: what read() gives user space
 * @owner: the events of the object the entry is embedded in; NULL for an
 *	entry allocated for one port event, freed once read
 */
struct uverbs_async_entry {
	struct list_head			list;
	struct ib_uverbs_async_event_desc	desc;
	struct uverbs_obj_events		*owner;
};

/* Kinds of asynchronous event one object may have: a QP's 8 at most. */
#define UVERBS_OBJ_EVENT_KINDS	8

/**
 * struct uverbs_obj_events - the asynchronous events of one user object
 * @async: the async event file of the object's uverbs file, with a
 *	reference; NULL once the events are withdrawn
 * @reported: the object's events user space has read
 * @entry: one per kind of event, each queued at most once (a second
 *	event of a kind user space has not read yet adds nothing)
 *
 * Embedded in the object, so that its events are queued from any context
 * without allocating.  @reported and the entries' @list are protected by
 * the async file's lock.
 */
struct uverbs_obj_events {
	struct uverbs_async_file	*async;
	u32				reported;
	struct uverbs_async_entry	entry[UVERBS_OBJ_EVENT_KINDS];
};

/* uverbs_event.c */
struct file *uverbs_async_file_create(struct uverbs_async_file **async);
void uverbs_async_file_put(struct uverbs_async_file *async);
void uverbs_async_event(struct uverbs_async_file *async, u64 element,
			u32 event_type);
void uverbs_async_device_fatal(struct uverbs_async_file *async);
void uverbs_obj_events_init(struct uverbs_obj_events *oe,
			    struct uverbs_async_file *async, u64 element);
void uverbs_obj_event(struct uverbs_obj_events *oe, u32 event_type);
u32 uverbs_obj_events_withdraw(struct uverbs_obj_events *oe);
struct file *uverbs_comp_file_create(void);
struct uverbs_comp_file *uverbs_comp_file_get(int fd);
void uverbs_comp_file_put(struct uverbs_comp_file *comp);
void uverbs_comp_file_kill(struct uverbs_comp_file *comp);
void uverbs_comp_notify(struct uverbs_comp_file *comp,
			struct uverbs_comp_event *ev);
u32 uverbs_comp_event_withdraw(struct uverbs_comp_file *comp,
			       struct uverbs_comp_event *ev);

#endif /* _UVERBS_H */
