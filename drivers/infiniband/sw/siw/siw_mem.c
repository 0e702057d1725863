// SPDX-License-Identifier: GPL-2.0
/*
 * Soft-iWARP memory: STags and what they name.  An STag is an index into
 * the device's table (sdev->mems) and a consumer-owned 8-bit key.  The data
 * path looks an STag up under RCU and takes a reference; deregistration
 * unpublishes the entry and drops the table's reference, and the entry is
 * freed after a grace period once the last user is gone.
 *
 * Addresses: a DMA MR takes kernel virtual addresses (siw has no DMA
 * device, so ib_dma_map_*() hands those out); a fast-registration MR maps
 * its range onto the kernel virtual addresses of a page list; a user MR
 * onto its pinned pages.  The kernel has no high memory where siw is built
 * (INFINIBAND_VIRT_DMA), so every page has a permanent address.
 */
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "siw.h"

static void siw_mem_release(struct kref *ref)
{
	struct siw_mem *mem = container_of(ref, struct siw_mem, ref);

	if (mem->umem)
		ib_umem_release(mem->umem);
	kvfree(mem->upages);
	kfree(mem->pages);
	siw_obj_del(mem->sdev, SIW_OBJ_MR);
	kfree_rcu(mem, rcu);
}

/**
 * siw_mem_get() - look an STag up
 * @sdev: the device
 * @stag: the STag, key included
 *
 * Context: any.
 * Return: the entry with a reference (siw_mem_put()), or NULL when no
 * registered memory has that index and key.
 */
struct siw_mem *siw_mem_get(struct siw_device *sdev, u32 stag)
{
	struct siw_mem *mem;

	rcu_read_lock();
	mem = xa_load(&sdev->mems, stag >> SIW_STAG_KEY_BITS);
	if (mem && (READ_ONCE(mem->stag) != stag ||
		    !kref_get_unless_zero(&mem->ref)))
		mem = NULL;
	rcu_read_unlock();
	return mem;
}

/**
 * siw_mem_put() - drop a reference siw_mem_get() gave
 * @mem: the entry
 */
void siw_mem_put(struct siw_mem *mem)
{
	kref_put(&mem->ref, siw_mem_release);
}

/**
 * siw_mem_check() - may @len bytes at @addr be used with @access rights?
 * @mem: the entry
 * @pd: the PD of the QP using it
 * @access: IB_ACCESS_* needed (0 for a local read)
 * @addr: first address
 * @len: bytes
 * @why: on failure, the RDMAP reason a peer would be told
 *
 * Return: 0, -EINVAL (invalid STag), -EPERM (PD or rights), -ERANGE.
 */
int siw_mem_check(struct siw_mem *mem, struct ib_pd *pd, int access,
		  u64 addr, u64 len, struct siw_term_info *why)
{
	why->layer = SIW_TERM_RDMAP;
	why->etype = SIW_ET_RDMAP_PROTECTION;
	if (!READ_ONCE(mem->valid)) {
		why->ecode = SIW_EC_RDMAP_INVALID_STAG;
		return -EINVAL;
	}
	if (mem->pd != pd) {
		why->ecode = SIW_EC_RDMAP_STAG_PD;
		return -EPERM;
	}
	if ((mem->access & access) != access) {
		why->ecode = SIW_EC_RDMAP_ACCESS;
		return -EPERM;
	}
	if (addr + len < addr) {
		why->ecode = SIW_EC_RDMAP_TO_WRAP;
		return -ERANGE;
	}
	if (mem->kind != SIW_MEM_DMA &&
	    (addr < mem->va || addr + len > mem->va + mem->len)) {
		why->ecode = SIW_EC_RDMAP_BOUNDS;
		return -ERANGE;
	}
	return 0;
}

/**
 * siw_mem_ptr() - kernel address of @addr in @mem
 * @mem: the entry; siw_mem_check() passed for the range
 * @addr: the address
 * @len: in: bytes wanted; out: how many of them are contiguous there
 *
 * Return: the kernel address.
 */
void *siw_mem_ptr(struct siw_mem *mem, u64 addr, u32 *len)
{
	u64 off, page_off;
	u32 run;
	void *p;

	switch (mem->kind) {
	case SIW_MEM_DMA:
		return (void *)(uintptr_t)addr;
	case SIW_MEM_PBL: {
		u64 psz = 1ULL << mem->page_shift;

		/* The first page of the list holds the region's first byte. */
		off = addr - mem->va + (mem->va & (psz - 1));
		page_off = off & (psz - 1);
		p = (void *)(uintptr_t)(mem->pages[off >> mem->page_shift] +
					page_off);
		run = psz - page_off;
		break;
	}
	default:
		off = addr - mem->va + ib_umem_offset(mem->umem);
		page_off = offset_in_page(off);
		p = page_address(mem->upages[off >> PAGE_SHIFT]) + page_off;
		run = PAGE_SIZE - page_off;
		break;
	}
	if (*len > run)
		*len = run;
	return p;
}

/* Publish @mem under a new index with @key; fills in its STag. */
static int siw_mem_add(struct siw_device *sdev, struct siw_mem *mem, u8 key)
{
	u32 idx;
	int ret;

	ret = siw_obj_add(sdev, SIW_OBJ_MR);
	if (ret)
		return ret;
	kref_init(&mem->ref);
	mem->sdev = sdev;
	ret = xa_alloc_cyclic(&sdev->mems, &idx, mem,
			      XA_LIMIT(1, (1U << (32 - SIW_STAG_KEY_BITS)) - 1),
			      &sdev->mem_next, GFP_KERNEL);
	if (ret < 0) {
		siw_obj_del(sdev, SIW_OBJ_MR);
		return ret;
	}
	mem->stag = idx << SIW_STAG_KEY_BITS | key;
	return 0;
}

/* Unpublish @mem and drop the table's reference. */
static void siw_mem_del(struct siw_mem *mem)
{
	xa_erase(&mem->sdev->mems, mem->stag >> SIW_STAG_KEY_BITS);
	siw_mem_put(mem);
}

static struct ib_mr *siw_mr_new(struct ib_pd *pd, struct siw_mem *mem, u8 key)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_mr *mr;
	int ret;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mem->pd = pd;
	ret = siw_mem_add(sdev, mem, key);
	if (ret) {
		kfree(mr);
		return ERR_PTR(ret);
	}
	mr->mem = mem;
	mr->base.lkey = mem->stag;
	mr->base.rkey = mem->stag;
	mr->base.iova = mem->va;
	mr->base.length = mem->len;
	return &mr->base;
}

struct ib_mr *siw_get_dma_mr(struct ib_pd *pd, int access)
{
	struct siw_mem *mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	struct ib_mr *mr;

	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->kind = SIW_MEM_DMA;
	mem->access = access | IB_ACCESS_LOCAL_WRITE;
	mem->valid = true;
	mr = siw_mr_new(pd, mem, 0);
	if (IS_ERR(mr))
		kfree(mem);
	return mr;
}

/* The pinned pages of @umem in address order, for siw_mem_ptr(). */
static int siw_umem_pages(struct siw_mem *mem)
{
	struct sg_page_iter it;
	u32 n = 0, total;

	total = ib_umem_num_pages(mem->umem);
	mem->upages = kvcalloc(total, sizeof(*mem->upages), GFP_KERNEL);
	if (!mem->upages)
		return -ENOMEM;
	for_each_sgtable_page(&mem->umem->sgt_append.sgt, &it, 0) {
		if (n == total)
			break;
		mem->upages[n++] = sg_page_iter_page(&it);
	}
	mem->npages = n;
	return n == total ? 0 : -EFAULT;
}

struct ib_mr *siw_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
			      u64 va, int access, struct ib_udata *udata)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_ureq_reg_mr req = {};
	struct siw_uresp_reg_mr resp = {};
	struct siw_mem *mem;
	struct ib_mr *mr;
	int ret;

	if (!len || len > SIZE_MAX - PAGE_SIZE) {
		siw_dbg(sdev, "reg_user_mr: length %llu\n", len);
		return ERR_PTR(-EINVAL);
	}
	if (udata && udata->inlen) {
		ret = ib_copy_from_udata(&req, udata,
					 min_t(size_t, udata->inlen,
					       sizeof(req)));
		if (ret)
			return ERR_PTR(ret);
	}
	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->umem = ib_umem_get(pd->device, start, len, access);
	if (IS_ERR(mem->umem)) {
		ret = PTR_ERR(mem->umem);
		mem->umem = NULL;
		siw_dbg(sdev, "reg_user_mr: pinning failed: %d\n", ret);
		goto err;
	}
	ret = siw_umem_pages(mem);
	if (ret)
		goto err;
	mem->kind = SIW_MEM_UMEM;
	mem->access = access | IB_ACCESS_LOCAL_WRITE;
	mem->va = va;
	mem->len = len;
	mem->valid = true;
	mr = siw_mr_new(pd, mem, req.stag_key);
	if (IS_ERR(mr)) {
		ret = PTR_ERR(mr);
		goto err;
	}
	if (udata && udata->outlen) {
		resp.stag = mem->stag;
		ret = ib_copy_to_udata(udata, &resp,
				       min_t(size_t, udata->outlen,
					     sizeof(resp)));
		if (ret) {
			siw_dereg_mr(mr, udata);
			return ERR_PTR(ret);
		}
	}
	return mr;

err:
	if (mem->umem)
		ib_umem_release(mem->umem);
	kvfree(mem->upages);
	kfree(mem);
	return ERR_PTR(ret);
}

struct ib_mr *siw_alloc_mr(struct ib_pd *pd, enum ib_mr_type type,
			   u32 max_sg)
{
	struct siw_device *sdev = to_siw_dev(pd->device);
	struct siw_mem *mem;
	struct ib_mr *mr;

	if (type != IB_MR_TYPE_MEM_REG || !max_sg ||
	    max_sg > SIW_MAX_FRMR_PAGES) {
		siw_dbg(sdev, "alloc_mr: type %d, %u pages\n", type, max_sg);
		return ERR_PTR(-EINVAL);
	}
	mem = kzalloc(sizeof(*mem), GFP_KERNEL);
	if (!mem)
		return ERR_PTR(-ENOMEM);
	mem->pages = kcalloc(max_sg, sizeof(*mem->pages), GFP_KERNEL);
	if (!mem->pages) {
		kfree(mem);
		return ERR_PTR(-ENOMEM);
	}
	mem->kind = SIW_MEM_PBL;
	mem->max_pages = max_sg;
	mr = siw_mr_new(pd, mem, 0);
	if (IS_ERR(mr)) {
		kfree(mem->pages);
		kfree(mem);
	}
	return mr;
}

static int siw_set_page(struct ib_mr *base, u64 addr)
{
	struct siw_mem *mem = to_siw_mr(base)->mem;

	if (mem->npages == mem->max_pages)
		return -ENOMEM;
	mem->pages[mem->npages++] = addr;
	return 0;
}

int siw_map_mr_sg(struct ib_mr *base, struct scatterlist *sg, int nents,
		  unsigned int *sg_off)
{
	struct siw_mem *mem = to_siw_mr(base)->mem;

	if (READ_ONCE(mem->valid)) {
		ibdev_dbg(base->device, "map_mr_sg: STag %#x still valid\n",
			  mem->stag);
		return -EINVAL;
	}
	mem->npages = 0;
	mem->page_shift = ilog2(base->page_size);
	return ib_sg_to_pages(base, sg, nents, sg_off, siw_set_page);
}

int siw_dereg_mr(struct ib_mr *base, struct ib_udata *udata)
{
	struct siw_mr *mr = to_siw_mr(base);

	siw_mem_del(mr->mem);
	kfree(mr);
	return 0;
}

/**
 * siw_mem_invalidate() - invalidate an STag (local or remote invalidation)
 * @sdev: the device
 * @pd: the PD of the QP asking
 * @stag: the STag
 *
 * Return: 0, or -EINVAL for an STag that names nothing, -EPERM for one of
 * another PD or of memory that cannot be invalidated (a user MR).
 */
int siw_mem_invalidate(struct siw_device *sdev, struct ib_pd *pd, u32 stag)
{
	struct siw_mem *mem = siw_mem_get(sdev, stag);
	int ret = 0;

	if (!mem)
		return -EINVAL;
	if (mem->pd != pd || mem->kind != SIW_MEM_PBL)
		ret = -EPERM;
	else
		WRITE_ONCE(mem->valid, false);
	siw_mem_put(mem);
	return ret;
}

/**
 * siw_mem_fastreg() - a fast registration work request takes effect
 * @sdev: the device
 * @pd: the PD of the QP that posted it
 * @base: the MR; map_mr_sg() set its page list, iova and length
 * @key: the STag the MR is to answer to (its index with a new key)
 * @access: IB_ACCESS_* rights
 *
 * Return: 0, -EINVAL for an MR of another kind or still valid, or a key
 * naming another index, -EPERM for an MR of another PD.
 */
int siw_mem_fastreg(struct siw_device *sdev, struct ib_pd *pd,
		    struct ib_mr *base, u32 key, int access)
{
	struct siw_mem *mem = to_siw_mr(base)->mem;

	if (mem->kind != SIW_MEM_PBL || READ_ONCE(mem->valid) ||
	    key >> SIW_STAG_KEY_BITS != mem->stag >> SIW_STAG_KEY_BITS) {
		siw_dbg(sdev, "fastreg: STag %#x as %#x refused\n", mem->stag,
			key);
		return -EINVAL;
	}
	if (mem->pd != pd)
		return -EPERM;
	mem->access = access | IB_ACCESS_LOCAL_WRITE;
	mem->va = base->iova;
	mem->len = base->length;
	WRITE_ONCE(mem->stag, key);
	base->lkey = key;
	base->rkey = key;
	/* The fields above are seen by whoever sees the STag valid. */
	smp_store_release(&mem->valid, true);
	return 0;
}
