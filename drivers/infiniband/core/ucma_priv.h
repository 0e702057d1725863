/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_ucm: the RDMA CM for user space, through /dev/infiniband/rdma_cm.
 * Structures shared by ucma.c (files, contexts, events), ucma_cmd.c (the
 * commands) and ucma_query.c (what the query commands report).
 *
 * Locks, outermost first:
 *   ucma_context.mutex   one command at a time on a context; guards its
 *                        @cm_id pointer (the close work clears it) and its
 *                        multicast list
 *   the RDMA CM ID's handler lock, held by rdma_cm while our event handler
 *                        runs, and taken by rdma_lock_handler()
 *   ucma_file.mut        the file's context list and event queue, and each
 *                        context's @uid and event counts; taken inside the
 *                        event handler, so never held across an rdma_cm call
 *   xa_lock of ucma_ctxs / ucma_mcs   lookups by ID
 *
 * Lifetime: the table ucma_ctxs holds one reference on each context (a
 * context made for an incoming connection is in the table from birth but
 * reads as NULL there until user space has fetched its CONNECT_REQUEST).
 * A command looks its context up and holds a reference while it runs.
 * ucma_destroy_ctx() takes the context out of the table, drops the
 * table's reference, waits for the commands in flight, destroys the RDMA
 * CM ID (which waits for a running event handler; none runs after it),
 * then drops the context's queued events and multicast groups and frees
 * it.  A multicast group is owned by whoever erases it from ucma_mcs.
 * A context's file changes only under MIGRATE_ID, which holds the ID's
 * handler lock, the context's mutex and both files' locks.
 */
#ifndef UCMA_PRIV_H
#define UCMA_PRIV_H

#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/wait.h>
#include <linux/xarray.h>
#include <linux/completion.h>
#include <linux/workqueue.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_user_cm.h>

/**
 * struct ucma_file - one open /dev/infiniband/rdma_cm
 * @mut: see the lock order above
 * @filp: the file
 * @ctxs: its contexts (@mut)
 * @events: events not yet fetched by GET_EVENT (@mut)
 * @wait: GET_EVENT and poll() wait here for @events
 */
struct ucma_file {
	struct mutex		mut;	/* see above */
	struct file		*filp;
	struct list_head	ctxs;
	struct list_head	events;
	wait_queue_head_t	wait;
};

/**
 * struct ucma_context - an RDMA CM ID owned by a file
 * @id: the number user space knows it by (key in ucma_ctxs)
 * @refs: the table's reference and one per command in flight
 * @released: completed when @refs reaches zero
 * @file: the owning file
 * @mutex: see the lock order above
 * @cm_id: the RDMA CM ID; NULL once the close work destroyed it after a
 *	DEVICE_REMOVAL
 * @uid: user space's cookie, returned in every event (@file->mut)
 * @claimed: user space gave @uid: always for CREATE_ID, at ACCEPT for the
 *	context of an incoming connection, whose events are dropped until
 *	then (written under @file->mut, read by the event handler first
 *	without it)
 * @backlog: a listener's CONNECT_REQUEST slots not yet fetched
 * @events_reported: events fetched so far (@file->mut)
 * @node: on @file->ctxs
 * @mcs: multicast groups joined (@mutex)
 * @close_work: destroys @cm_id after DEVICE_REMOVAL, so that the device
 *	can go without waiting for user space
 */
struct ucma_context {
	u32			id;
	refcount_t		refs;
	struct completion	released;
	struct ucma_file	*file;
	struct mutex		mutex;	/* see above */
	struct rdma_cm_id	*cm_id;
	u64			uid;
	bool			claimed;
	atomic_t		backlog;
	u32			events_reported;
	struct list_head	node;
	struct list_head	mcs;
	struct work_struct	close_work;
};

/**
 * struct ucma_mc - a multicast group joined through a context
 * @id: the number user space knows it by (key in ucma_mcs)
 * @uid: user space's cookie for its events
 * @ctx: the context that joined
 * @addr: the group
 * @events_reported: events fetched so far (@ctx->file->mut)
 * @node: on @ctx->mcs
 */
struct ucma_mc {
	u32				id;
	u64				uid;
	struct ucma_context		*ctx;
	struct sockaddr_storage		addr;
	u32				events_reported;
	struct list_head		node;
};

/**
 * struct ucma_event - an event waiting for GET_EVENT
 * @node: on the file's @events
 * @ctx: the context it counts for
 * @conn: CONNECT_REQUEST: the context of the new connection, published
 *	when user space fetches the event
 * @mc: multicast events: their group
 * @resp: what GET_EVENT returns
 */
struct ucma_event {
	struct list_head		node;
	struct ucma_context		*ctx;
	struct ucma_context		*conn;
	struct ucma_mc			*mc;
	struct rdma_ucm_event_resp	resp;
};

extern struct xarray ucma_ctxs;
extern struct xarray ucma_mcs;
extern int ucma_max_backlog;

/* ucma.c */
struct ucma_context *ucma_ctx_alloc(struct ucma_file *file);
int ucma_ctx_publish(struct ucma_context *ctx);
struct ucma_context *ucma_get(struct ucma_file *file, u32 id);
struct ucma_context *ucma_get_locked(struct ucma_file *file, u32 id);
void ucma_put(struct ucma_context *ctx);
void ucma_put_unlock(struct ucma_context *ctx);
u32 ucma_destroy_ctx(struct ucma_context *ctx);
struct ucma_context *ucma_take(struct ucma_file *file, u32 id);
int ucma_event_handler(struct rdma_cm_id *cm_id, struct rdma_cm_event *ev);
u32 ucma_mc_forget(struct ucma_mc *mc);
ssize_t ucma_get_event(struct ucma_file *file, const void *in, int out);
ssize_t ucma_migrate_id(struct ucma_file *file, const void *in, int out);

/* ucma_cmd.c */
typedef ssize_t (*ucma_cmd_fn)(struct ucma_file *file, const void *in,
			       int out);

/**
 * struct ucma_cmd - one command of the write() interface
 * @fn: its handler, given the payload in a zeroed buffer of @size bytes
 * @size: the payload's size in the uapi
 * @min: the fewest payload bytes accepted (older layouts end earlier)
 * @room: the fewest bytes its answer needs at the response pointer
 *	(-ENOSPC otherwise, before anything is done)
 */
struct ucma_cmd {
	ucma_cmd_fn	fn;
	u16		size;
	u16		min;
	u16		room;
};

extern const struct ucma_cmd ucma_cmds[];
extern const unsigned int ucma_ncmds;

/* ucma_query.c */
ssize_t ucma_query_route(struct ucma_file *file, const void *in, int out);
ssize_t ucma_query(struct ucma_file *file, const void *in, int out);

#endif /* UCMA_PRIV_H */
