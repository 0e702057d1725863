// SPDX-License-Identifier: GPL-2.0
/*
 * Provider memory mapped into user space: the mmap() entries of a
 * ucontext, and the mappings ib_uverbs makes of them.
 *
 * Entries.  A provider embeds struct rdma_user_mmap_entry in what user
 * space may map (a queue, a doorbell page) and inserts it into its
 * ucontext's @mmap_xa, which gives it a page offset: the cookie user
 * space passes to mmap().  An entry is reference counted: the provider
 * holds one reference from insertion to rdma_user_mmap_entry_remove(),
 * a lookup one until rdma_user_mmap_entry_put(), and each mapping of the
 * entry one.  The provider's ops.mmap_free() runs with the last, so the
 * memory outlives the object it belonged to for as long as user space
 * has it mapped.  A removed entry is out of @mmap_xa: no new mapping can
 * reach it.  A lookup takes its reference under the xarray's lock, and
 * removal erases the entry under that lock before it drops the
 * provider's reference, so an entry found there is always alive.
 *
 * Mappings.  ib_uverbs owns every VMA of a uverbs file: the provider's
 * ops.mmap() fills the page tables and leaves vm_ops alone; then a
 * struct uverbs_umap records the mmap() call, with the entry's reference
 * when the provider uses entries.  VMAs split from it (partial munmap or
 * mprotect) or copied by fork() share it; it goes with the last of them.
 *
 * Disassociation (device removal, see uverbs.h): every mapping of the
 * file is zapped and the umaps give their entries back, so that
 * ops.mmap_free() runs while the provider is still there.  A later access
 * faults in a zeroed page of its own: a process still polling its rings
 * sees them empty instead of being killed, and its writes go nowhere.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "uverbs.h"

/**
 * struct uverbs_umap - one mmap() of a uverbs file and the VMAs it became
 * @list: in the file's @umaps, under its @umap_mutex
 * @vmas: the VMAs sharing this mapping
 * @ufile: the file; its VMAs hold a reference on the struct file, so it
 *	outlives them
 * @entry: the entry mapped, with a reference; NULL when the provider maps
 *	without entries, and once disassociated; under @ufile->umap_mutex
 */
struct uverbs_umap {
	struct list_head		list;
	refcount_t			vmas;
	struct ib_uverbs_file		*ufile;
	struct rdma_user_mmap_entry	*entry;
};

static void uverbs_mmap_entry_release(struct kref *ref)
{
	struct rdma_user_mmap_entry *entry =
		container_of(ref, struct rdma_user_mmap_entry, ref);

	entry->ucontext->device->ops.mmap_free(entry);
}

/* Insert @entry at a free page offset of @limit (see the top). */
static int uverbs_mmap_entry_add(struct ib_ucontext *ucontext,
				 struct rdma_user_mmap_entry *entry,
				 size_t length, struct xa_limit limit)
{
	u32 pgoff;
	int ret;

	if (!length)
		return -EINVAL;
	kref_init(&entry->ref);
	entry->ucontext = ucontext;
	entry->npages = DIV_ROUND_UP(length, PAGE_SIZE);
	entry->driver_removed = false;
	ret = xa_alloc(&ucontext->mmap_xa, &pgoff, entry, limit, GFP_KERNEL);
	if (ret) {
		ibdev_dbg(ucontext->device,
			  "uverbs: no mmap offset in %u..%u: %d\n",
			  limit.min, limit.max, ret);
		return ret;
	}
	entry->start_pgoff = pgoff;
	return 0;
}

/**
 * rdma_user_mmap_entry_insert() - give an entry a page offset
 * @ucontext: the user context whose file will map the entry
 * @entry: the provider's entry, not inserted yet
 * @length: bytes the entry covers; mappings of it must be that long
 *
 * Any free 32-bit offset will do.  On success the provider holds the
 * entry's first reference, until rdma_user_mmap_entry_remove().
 *
 * Context: process context.
 * Return: 0; -EINVAL for a zero @length; -EBUSY when no offset is free;
 * -ENOMEM.
 */
int rdma_user_mmap_entry_insert(struct ib_ucontext *ucontext,
				struct rdma_user_mmap_entry *entry,
				size_t length)
{
	return uverbs_mmap_entry_add(ucontext, entry, length, xa_limit_32b);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert);

/**
 * rdma_user_mmap_entry_insert_range() - rdma_user_mmap_entry_insert() with
 *	the offset taken from a range
 * @ucontext: the user context whose file will map the entry
 * @entry: the provider's entry, not inserted yet
 * @length: bytes the entry covers
 * @min_pgoff: the lowest page offset it may get
 * @max_pgoff: the highest
 *
 * Context: process context.
 * Return: as rdma_user_mmap_entry_insert(); -EBUSY when every offset of
 * the range is taken.
 */
int rdma_user_mmap_entry_insert_range(struct ib_ucontext *ucontext,
				      struct rdma_user_mmap_entry *entry,
				      size_t length, u32 min_pgoff,
				      u32 max_pgoff)
{
	return uverbs_mmap_entry_add(ucontext, entry, length,
				     XA_LIMIT(min_pgoff, max_pgoff));
}
EXPORT_SYMBOL(rdma_user_mmap_entry_insert_range);

/*
 * The entry at @pgoff with a reference, if there is one and, unless
 * @npages is 0, it has that many pages.
 */
static struct rdma_user_mmap_entry *
uverbs_mmap_entry_find(struct ib_ucontext *ucontext, unsigned long pgoff,
		       unsigned long npages)
{
	struct xarray *xa = &ucontext->mmap_xa;
	struct rdma_user_mmap_entry *entry;

	if (pgoff > U32_MAX)
		return NULL;
	xa_lock(xa);
	entry = xa_load(xa, pgoff);
	if (entry && npages && entry->npages != npages)
		entry = NULL;
	if (entry)
		kref_get(&entry->ref);
	xa_unlock(xa);
	return entry;
}

/**
 * rdma_user_mmap_entry_get_pgoff() - the entry at a page offset
 * @ucontext: the user context
 * @pgoff: the offset user space gave, in pages
 *
 * Context: any context that may take a spinlock.
 * Return: the entry, with a reference for the caller; NULL when no entry
 * of @ucontext starts at @pgoff (a removed one is not found).
 */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get_pgoff(struct ib_ucontext *ucontext,
			       unsigned long pgoff)
{
	return uverbs_mmap_entry_find(ucontext, pgoff, 0);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get_pgoff);

/**
 * rdma_user_mmap_entry_get() - the entry a mapping asks for
 * @ucontext: the user context
 * @vma: the mapping being made; its page offset names the entry
 *
 * Context: process context (mmap()).
 * Return: the entry, with a reference for the caller; NULL when the
 * offset names no entry or the mapping is not exactly as long as the
 * entry.
 */
struct rdma_user_mmap_entry *
rdma_user_mmap_entry_get(struct ib_ucontext *ucontext,
			 struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;

	entry = uverbs_mmap_entry_find(ucontext, vma->vm_pgoff,
				       vma_pages(vma));
	if (!entry)
		ibdev_dbg(ucontext->device,
			  "uverbs: mmap of %lu pages at offset %#lx refused\n",
			  vma_pages(vma), vma->vm_pgoff << PAGE_SHIFT);
	return entry;
}
EXPORT_SYMBOL(rdma_user_mmap_entry_get);

/**
 * rdma_user_mmap_entry_put() - drop a reference to an mmap entry
 * @entry: the entry
 *
 * The last reference calls the provider's mmap_free() on it.
 *
 * Context: process context.
 */
void rdma_user_mmap_entry_put(struct rdma_user_mmap_entry *entry)
{
	kref_put(&entry->ref, uverbs_mmap_entry_release);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_put);

/**
 * rdma_user_mmap_entry_remove() - the provider is done with an entry
 * @entry: an inserted entry
 *
 * No new mapping can reach the entry; it is freed (ops.mmap_free()) when
 * the existing mappings and lookups are gone.  Drops the provider's
 * reference.
 *
 * Context: process context.
 */
void rdma_user_mmap_entry_remove(struct rdma_user_mmap_entry *entry)
{
	struct xarray *xa = &entry->ucontext->mmap_xa;

	xa_lock(xa);
	entry->driver_removed = true;
	__xa_erase(xa, entry->start_pgoff);
	xa_unlock(xa);
	rdma_user_mmap_entry_put(entry);
}
EXPORT_SYMBOL(rdma_user_mmap_entry_remove);

static void uverbs_umap_vm_open(struct vm_area_struct *vma)
{
	struct uverbs_umap *umap = vma->vm_private_data;

	refcount_inc(&umap->vmas);
}

static void uverbs_umap_vm_close(struct vm_area_struct *vma)
{
	struct uverbs_umap *umap = vma->vm_private_data;
	struct ib_uverbs_file *ufile = umap->ufile;

	mutex_lock(&ufile->umap_mutex);
	if (!refcount_dec_and_test(&umap->vmas)) {
		mutex_unlock(&ufile->umap_mutex);
		return;
	}
	list_del(&umap->list);
	if (umap->entry)
		rdma_user_mmap_entry_put(umap->entry);
	mutex_unlock(&ufile->umap_mutex);
	kfree(umap);
}

/*
 * Only a page the provider mapped and something since zapped faults:
 * disassociation, or user space itself (MADV_DONTNEED).  It gets a zeroed
 * page, never the provider's memory again.
 */
static vm_fault_t uverbs_umap_vm_fault(struct vm_fault *vmf)
{
	struct page *page = alloc_page(GFP_HIGHUSER | __GFP_ZERO);

	if (!page)
		return VM_FAULT_OOM;
	vmf->page = page;
	return 0;
}

static const struct vm_operations_struct uverbs_umap_vm_ops = {
	.open	= uverbs_umap_vm_open,
	.close	= uverbs_umap_vm_close,
	.fault	= uverbs_umap_vm_fault,
};

/**
 * uverbs_mmap() - map provider memory for a file with a ucontext
 * @ufile: the file mmap() was called on
 * @ucontext: its context
 * @vma: the new mapping
 *
 * Context: mmap(), the mm's mmap lock held for writing; inside the
 * device's SRCU read side and with @ufile's hw_destroy_rwsem held for
 * reading.
 * Return: 0, or the provider's error; -ENODEV when the provider maps
 * nothing; -ENOMEM.
 */
int uverbs_mmap(struct ib_uverbs_file *ufile, struct ib_ucontext *ucontext,
		struct vm_area_struct *vma)
{
	const struct ib_device_ops *ops = &ucontext->device->ops;
	const struct vm_operations_struct *vm_ops = vma->vm_ops;
	struct uverbs_umap *umap;
	int ret;

	if (!ops->mmap)
		return -ENODEV;
	umap = kzalloc(sizeof(*umap), GFP_KERNEL);
	if (!umap)
		return -ENOMEM;
	refcount_set(&umap->vmas, 1);
	umap->ufile = ufile;
	/* The mapping's own reference, when the provider uses entries. */
	if (ops->mmap_free)
		umap->entry = rdma_user_mmap_entry_get_pgoff(ucontext,
							     vma->vm_pgoff);

	ret = ops->mmap(ucontext, vma);
	if (!ret && WARN_ON_ONCE(vma->vm_ops != vm_ops)) {
		/* The VMA is ib_uverbs' to track; the error undoes it. */
		ret = -EINVAL;
	}
	if (ret) {
		if (umap->entry)
			rdma_user_mmap_entry_put(umap->entry);
		kfree(umap);
		return ret;
	}

	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_ops = &uverbs_umap_vm_ops;
	vma->vm_private_data = umap;
	mutex_lock(&ufile->umap_mutex);
	list_add(&umap->list, &ufile->umaps);
	mutex_unlock(&ufile->umap_mutex);
	return 0;
}

/**
 * uverbs_umaps_disassociate() - take the provider's memory out of a
 *	file's mappings
 * @ufile: the file, being torn down by device removal
 *
 * Zaps every page of every mapping of the file's inode (all of them
 * belong to the device being removed), then gives back the entries the
 * mappings held.  The VMAs stay, with zero pages behind later faults.
 *
 * Context: process context; no mm's mmap lock held.
 */
void uverbs_umaps_disassociate(struct ib_uverbs_file *ufile)
{
	struct uverbs_umap *umap;

	unmap_mapping_range(ufile->mapping, 0, 0, 1);
	mutex_lock(&ufile->umap_mutex);
	list_for_each_entry(umap, &ufile->umaps, list) {
		if (umap->entry)
			rdma_user_mmap_entry_put(umap->entry);
		umap->entry = NULL;
	}
	mutex_unlock(&ufile->umap_mutex);
}
