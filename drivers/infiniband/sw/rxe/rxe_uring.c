// SPDX-License-Identifier: GPL-2.0
/*
 * Rings shared with user space.  The queue of a user CQ (and, with user
 * QPs and SRQs, theirs) is one zeroed vmalloc_user() buffer laid out as
 * librxe's struct rxe_queue_buf: a header with the element size and the
 * index mask, the producer and consumer indices in separate cache
 * blocks, then the slots.  The geometry is the kernel's choice and is
 * written once; the kernel keeps its own copies of it, because user
 * space can write the whole buffer.
 *
 * Mapping.  Each ring has a cookie, an id in its ucontext's @rings
 * xarray: the mminfo user space gets holds the id as a byte offset for
 * mmap() on the uverbs fd, and the buffer's size.  A mapping may cover
 * the buffer or less of it, never more.
 *
 * Lifetime.  A kref: the object owning the ring holds one reference and
 * each VMA mapping it one (vm_ops open and close), so the buffer outlives
 * its object until user space unmaps it, and user space can never reach
 * freed memory through a stale mapping.  The xarray holds no reference:
 * rxe_uring_free() erases the cookie before it drops the owner's, so a
 * ring found in the xarray under its lock is always alive.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxe.h"

static void rxe_uring_release(struct kref *ref)
{
	struct rxe_uring *ring = container_of(ref, struct rxe_uring, ref);

	vfree(ring->buf);
	kfree(ring);
}

static void rxe_uring_put(struct rxe_uring *ring)
{
	kref_put(&ring->ref, rxe_uring_release);
}

/**
 * rxe_uring_new() - a ring for user space with a cookie to map it by
 * @uc: the user context the ring belongs to
 * @slots: number of slots, a power of two; one always stays empty, so
 *	the ring holds @slots - 1 entries
 * @elem_size: bytes user space needs per entry; slots are the next power
 *	of two of at least 64 bytes
 *
 * Context: process context.
 * Return: the ring, with the owner's reference; ERR_PTR(-ENOMEM).
 */
struct rxe_uring *rxe_uring_new(struct rxe_ucontext *uc, u32 slots,
				u32 elem_size)
{
	u32 log2_elem = order_base_2(max(elem_size, 64U));
	struct rxe_uring *ring;
	u32 id;
	int ret;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return ERR_PTR(-ENOMEM);
	kref_init(&ring->ref);
	ring->uc = uc;
	ring->mask = slots - 1;
	ring->log2_elem = log2_elem;
	ring->size = PAGE_ALIGN(sizeof(*ring->buf) +
				((size_t)slots << log2_elem));
	ring->buf = vmalloc_user(ring->size);
	if (!ring->buf) {
		kfree(ring);
		return ERR_PTR(-ENOMEM);
	}
	ring->buf->log2_elem_size = log2_elem;
	ring->buf->index_mask = ring->mask;

	ret = xa_alloc(&uc->rings, &id, ring, xa_limit_31b, GFP_KERNEL);
	if (ret) {
		rxe_uring_put(ring);
		return ERR_PTR(-ENOMEM);
	}
	ring->id = id;
	return ring;
}

/**
 * rxe_uring_mminfo() - what user space needs to map a ring
 * @ring: the ring
 * @mi: filled with the mmap() offset and the buffer's size
 */
void rxe_uring_mminfo(const struct rxe_uring *ring, struct mminfo *mi)
{
	*mi = (struct mminfo) {
		.offset = (u64)ring->id << PAGE_SHIFT,
		.size = ring->size,
	};
}

/**
 * rxe_uring_free() - the owner of a ring is done with it
 * @ring: the ring, or NULL
 *
 * No new mapping can be made; the buffer goes with the last existing one.
 *
 * Context: process context.
 */
void rxe_uring_free(struct rxe_uring *ring)
{
	if (!ring)
		return;
	xa_erase(&ring->uc->rings, ring->id);
	rxe_uring_put(ring);
}

static void rxe_uring_vm_open(struct vm_area_struct *vma)
{
	struct rxe_uring *ring = vma->vm_private_data;

	kref_get(&ring->ref);
}

static void rxe_uring_vm_close(struct vm_area_struct *vma)
{
	rxe_uring_put(vma->vm_private_data);
}

static const struct vm_operations_struct rxe_uring_vm_ops = {
	.open	= rxe_uring_vm_open,
	.close	= rxe_uring_vm_close,
};

/**
 * rxe_uring_mmap() - map a ring into user space
 * @uc: the user context of the uverbs file mmap() was called on
 * @vma: the mapping; its page offset is a ring's cookie
 *
 * Context: process context (the mmap() system call).
 * Return: 0; -EINVAL for an offset that names no ring of @uc or a
 * mapping larger than the ring; remap_vmalloc_range()'s error.
 */
int rxe_uring_mmap(struct rxe_ucontext *uc, struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	struct rxe_uring *ring;
	int ret;

	xa_lock(&uc->rings);
	ring = xa_load(&uc->rings, vma->vm_pgoff);
	if (ring)
		kref_get(&ring->ref);
	xa_unlock(&uc->rings);
	if (!ring) {
		ibdev_dbg(uc->ibuc.device, "mmap: offset %#lx names no ring\n",
			  vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	if (len > ring->size) {
		ibdev_dbg(uc->ibuc.device,
			  "mmap: %lu bytes of a %zu-byte ring refused\n",
			  len, ring->size);
		ret = -EINVAL;
		goto put;
	}
	ret = remap_vmalloc_range(vma, ring->buf, 0);
	if (ret) {
		ibdev_dbg(uc->ibuc.device, "mmap: remap failed: %d\n", ret);
		goto put;
	}
	vma->vm_ops = &rxe_uring_vm_ops;
	vma->vm_private_data = ring;
	return 0;

put:
	rxe_uring_put(ring);
	return ret;
}
