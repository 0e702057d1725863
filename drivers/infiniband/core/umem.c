// SPDX-License-Identifier: GPL-2.0
/*
 * Pinning a process's memory for a device: struct ib_umem.
 *
 * The order of ib_umem_get() is: charge, pin, map.  The pages are charged
 * to the caller's mm->pinned_vm before any is pinned, so that a process
 * over RLIMIT_MEMLOCK (without CAP_IPC_LOCK) is refused before it costs
 * anything.  They are then pinned with FOLL_LONGTERM, a page of page
 * pointers at a time, each batch appended to one sg_append_table
 * (physically contiguous pages share an entry), and the table is mapped
 * for the device at the end.  ib_umem_release() undoes the three steps
 * in reverse.
 *
 * FOLL_LONGTERM keeps the pages out of ZONE_MOVABLE and CMA for as long
 * as they are registered.  Pinning itself (pin_user_pages_*(), FOLL_PIN)
 * makes fork() copy pinned anonymous pages for the child instead of
 * sharing them copy-on-write, so the parent's registration keeps pointing
 * at the parent's memory without the MADV_DONTFORK dance older kernels
 * needed.
 *
 * A umem is immutable once made.  The owning mm is held by mmgrab() only
 * (not mmget()), which keeps its pinned_vm counter alive without keeping
 * the address space alive: the pins hold the pages themselves.
 */
#include <linux/export.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_verbs.h>

/* Page pointers one pin_user_pages_fast() call fills: a page of them. */
#define UMEM_PIN_BATCH	(PAGE_SIZE / sizeof(struct page *))

/*
 * Count @npages more pinned pages against @mm, within RLIMIT_MEMLOCK
 * unless the caller may lock any amount.
 */
static int umem_charge(struct ib_device *device, struct mm_struct *mm,
		       unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	s64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned <= limit || capable(CAP_IPC_LOCK))
		return 0;
	atomic64_sub(npages, &mm->pinned_vm);
	ibdev_dbg(device,
		  "umem: %lu pages would pin %lld, over RLIMIT_MEMLOCK (%lu pages)\n",
		  npages, pinned, limit);
	return -ENOMEM;
}

/* Unpin every page in the table (dirtying them if writable) and free it. */
static void umem_unpin_all(struct ib_umem *umem)
{
	struct sg_table *sgt = &umem->sgt_append.sgt;
	struct scatterlist *sg;
	unsigned int i;

	for_each_sgtable_sg(sgt, sg, i)
		unpin_user_page_range_dirty_lock(sg_page(sg),
						 DIV_ROUND_UP(sg->length, PAGE_SIZE),
						 umem->writable);
	sg_free_append_table(&umem->sgt_append);
}

/*
 * Pin the @npages pages from @start (page aligned) and append them to
 * @umem's table.  On failure the pages pinned so far are in the table.
 */
static int umem_pin(struct ib_umem *umem, unsigned long start,
		    unsigned long npages)
{
	unsigned int gup = FOLL_LONGTERM | (umem->writable ? FOLL_WRITE : 0);
	unsigned int max_seg = ib_dma_max_seg_size(umem->ibdev);
	struct page **batch;
	unsigned long left = npages;
	int got, ret = 0;

	batch = (struct page **)__get_free_page(GFP_KERNEL);
	if (!batch)
		return -ENOMEM;

	while (left) {
		cond_resched();
		got = pin_user_pages_fast(start, min(left, UMEM_PIN_BATCH),
					  gup, batch);
		if (got <= 0) {
			ret = got ?: -EFAULT;
			ibdev_dbg(umem->ibdev,
				  "umem: pinning at %#lx failed: %d\n",
				  start, ret);
			break;
		}
		left -= got;
		ret = sg_alloc_append_table_from_pages(&umem->sgt_append, batch,
						       got, 0,
						       (unsigned long)got << PAGE_SHIFT,
						       max_seg, left,
						       GFP_KERNEL);
		if (ret) {
			unpin_user_pages_dirty_lock(batch, got, false);
			break;
		}
		start += (unsigned long)got << PAGE_SHIFT;
	}
	free_page((unsigned long)batch);
	return ret;
}

/**
 * ib_umem_get() - pin and DMA-map a range of the current process's memory
 * @device: the device that will reach the memory
 * @addr: user virtual address of the first byte
 * @size: bytes, at least one
 * @access: IB_ACCESS_* rights of the registration; any write right pins
 *	the pages for writing
 *
 * The pages are charged to current->mm's pinned_vm, within RLIMIT_MEMLOCK
 * for callers without CAP_IPC_LOCK.  On-demand paging is not offered.
 *
 * Context: process context, in the process that owns the memory; sleeps.
 * Return: the umem; ERR_PTR(-EINVAL) for an empty or wrapping range,
 * -EOPNOTSUPP for IB_ACCESS_ON_DEMAND, -EPERM if the caller may not lock
 * memory at all, -ENOMEM over the limit or without memory, -EFAULT (or
 * the error of pin_user_pages_fast()) for memory that cannot be pinned
 * with these rights.
 */
struct ib_umem *ib_umem_get(struct ib_device *device, unsigned long addr,
			    size_t size, int access)
{
	struct ib_umem *umem;
	unsigned long npages;
	int ret;

	if (access & IB_ACCESS_ON_DEMAND) {
		ibdev_dbg(device, "umem: on-demand paging is not supported\n");
		return ERR_PTR(-EOPNOTSUPP);
	}
	if (!size || addr + size < addr ||
	    PAGE_ALIGN(addr + size) < addr + size) {
		ibdev_dbg(device, "umem: bad range %#lx + %zu\n", addr, size);
		return ERR_PTR(-EINVAL);
	}
	if (!can_do_mlock()) {
		ibdev_dbg(device, "umem: the caller may not lock memory\n");
		return ERR_PTR(-EPERM);
	}

	umem = kmalloc(sizeof(*umem), GFP_KERNEL);
	if (!umem)
		return ERR_PTR(-ENOMEM);
	*umem = (struct ib_umem) {
		.ibdev = device,
		.owning_mm = current->mm,
		.iova = addr,
		.length = size,
		.address = addr,
		.writable = ib_access_writable(access),
	};
	npages = ib_umem_num_pages(umem);
	if (npages > UINT_MAX) {
		/* the scatterlist helpers count pages in an unsigned int */
		ibdev_dbg(device, "umem: %lu pages is too many\n", npages);
		ret = -EINVAL;
		goto free;
	}
	mmgrab(umem->owning_mm);

	ret = umem_charge(device, umem->owning_mm, npages);
	if (ret)
		goto drop_mm;
	ret = umem_pin(umem, addr & PAGE_MASK, npages);
	if (ret)
		goto unpin;
	ret = ib_dma_map_sgtable_attrs(device, &umem->sgt_append.sgt,
				       DMA_BIDIRECTIONAL, 0);
	if (ret) {
		ibdev_dbg(device, "umem: DMA mapping failed: %d\n", ret);
		goto unpin;
	}
	return umem;

unpin:
	umem_unpin_all(umem);
	atomic64_sub(npages, &umem->owning_mm->pinned_vm);
drop_mm:
	mmdrop(umem->owning_mm);
free:
	kfree(umem);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL(ib_umem_get);

/**
 * ib_umem_release() - unmap, unpin and free a umem
 * @umem: from ib_umem_get(), or NULL
 *
 * Pages pinned for writing are marked dirty; the owning mm's pinned_vm
 * goes back down.
 *
 * Context: process context; sleeps.  Any process may release a umem.
 */
void ib_umem_release(struct ib_umem *umem)
{
	if (!umem)
		return;
	ib_dma_unmap_sgtable_attrs(umem->ibdev, &umem->sgt_append.sgt,
				   DMA_BIDIRECTIONAL, 0);
	umem_unpin_all(umem);
	atomic64_sub(ib_umem_num_pages(umem), &umem->owning_mm->pinned_vm);
	mmdrop(umem->owning_mm);
	kfree(umem);
}
EXPORT_SYMBOL(ib_umem_release);
