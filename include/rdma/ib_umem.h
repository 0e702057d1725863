/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User memory pinned for a device: what a provider's reg_user_mr() (and
 * later its user queues) builds a registration on.
 */
#ifndef IB_UMEM_H
#define IB_UMEM_H

#include <linux/err.h>
#include <linux/mm.h>
#include <linux/scatterlist.h>

struct ib_device;

/**
 * struct ib_umem - a range of a process's memory, pinned and DMA-mapped
 * @ibdev: the device it is mapped for
 * @owning_mm: the address space the pages were pinned in; a reference
 *	(mmgrab) is held and the pages count in its pinned_vm until release
 * @iova: the address the device is to reach the range by (the MR's iova)
 * @length: bytes of the range
 * @address: user virtual address of the first byte
 * @writable: pinned for writing (the pages are dirtied at release)
 * @is_odp: on-demand paging memory (never, in this tree)
 * @is_dmabuf: dma-buf memory (never, in this tree)
 * @sgt_append: the pinned pages, one entry per run of contiguous pages,
 *	DMA-mapped for @ibdev; sgt_append.sgt is the table to walk
 *
 * Immutable between ib_umem_get() and ib_umem_release(); readers need no
 * lock.
 */
struct ib_umem {
	struct ib_device	*ibdev;
	struct mm_struct	*owning_mm;
	u64			iova;
	size_t			length;
	unsigned long		address;
	u32			writable : 1;
	u32			is_odp : 1;
	u32			is_dmabuf : 1;
	struct sg_append_table	sgt_append;
};

/**
 * ib_umem_offset() - where in its first page a umem starts
 * @umem: the umem
 *
 * Return: the byte offset of @umem->address within its page.
 */
static inline int ib_umem_offset(struct ib_umem *umem)
{
	return umem->address & ~PAGE_MASK;
}

/**
 * ib_umem_num_pages() - pages a umem spans
 * @umem: the umem
 *
 * Return: the number of PAGE_SIZE pages from the one holding the first
 * byte to the one holding the last.
 */
static inline size_t ib_umem_num_pages(struct ib_umem *umem)
{
	return (PAGE_ALIGN(umem->address + umem->length) -
		(umem->address & PAGE_MASK)) >> PAGE_SHIFT;
}

#ifdef CONFIG_INFINIBAND_USER_MEM

struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access);
void ib_umem_release(struct ib_umem *umem);

#else /* CONFIG_INFINIBAND_USER_MEM */

static inline struct ib_umem *ib_umem_get(struct ib_device *device,
					  unsigned long addr, size_t size,
					  int access)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void ib_umem_release(struct ib_umem *umem)
{
}

#endif /* CONFIG_INFINIBAND_USER_MEM */
#endif /* IB_UMEM_H */
