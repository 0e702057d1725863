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
 * Mapping and lifetime.  Each ring is an mmap entry of its user context
 * (ib_uverbs' uverbs_mmap.c): the mminfo user space gets holds the
 * entry's offset for mmap() on the uverbs fd, and the buffer's size,
 * which is what a mapping must cover.  The object owning the ring holds
 * the entry's first reference and each mapping one, so the buffer
 * outlives its object until user space unmaps it (or the device goes and
 * ib_uverbs takes the pages out of the mappings), and user space never
 * reaches freed memory through a stale mapping.
 */
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "rxe.h"

/**
 * rxe_uring_mmap_free() - the last reference to a ring is gone
 * @entry: the ring's mmap entry
 *
 * The device's ops.mmap_free.
 */
void rxe_uring_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct rxe_uring *ring = container_of(entry, struct rxe_uring, mmap);

	vfree(ring->buf);
	kfree(ring);
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
 * Return: the ring, with the owner's reference; ERR_PTR(-ENOMEM), or
 * rdma_user_mmap_entry_insert_range()'s error.
 */
struct rxe_uring *rxe_uring_new(struct rxe_ucontext *uc, u32 slots,
				u32 elem_size)
{
	u32 log2_elem = order_base_2(max(elem_size, 64U));
	struct rxe_uring *ring;
	int ret;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return ERR_PTR(-ENOMEM);
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

	/* Offsets from 1: a zeroed mminfo names no ring. */
	ret = rdma_user_mmap_entry_insert_range(&uc->ibuc, &ring->mmap,
						ring->size, 1, U32_MAX);
	if (ret) {
		vfree(ring->buf);
		kfree(ring);
		return ERR_PTR(ret);
	}
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
		.offset = rdma_user_mmap_get_offset(&ring->mmap),
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
	if (ring)
		rdma_user_mmap_entry_remove(&ring->mmap);
}

/**
 * rxe_uring_mmap() - map a ring into user space
 * @uc: the user context of the uverbs file mmap() was called on
 * @vma: the mapping; its page offset is a ring's cookie
 *
 * Context: process context (the mmap() system call).
 * Return: 0; -EINVAL for an offset that names no ring of @uc or a
 * mapping not as long as the ring; remap_vmalloc_range()'s error.
 */
int rxe_uring_mmap(struct rxe_ucontext *uc, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	struct rxe_uring *ring;
	int ret;

	entry = rdma_user_mmap_entry_get(&uc->ibuc, vma);
	if (!entry)
		return -EINVAL;
	ring = container_of(entry, struct rxe_uring, mmap);
	ret = remap_vmalloc_range(vma, ring->buf, 0);
	if (ret)
		ibdev_dbg(uc->ibuc.device, "mmap: remap failed: %d\n", ret);
	rdma_user_mmap_entry_put(entry);
	return ret;
}
