/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: kernel allocations come from the C heap (ASan watches). */
#ifndef _SHIM_LINUX_SLAB_H
#define _SHIM_LINUX_SLAB_H

#include <stdlib.h>
#include <string.h>
#include <linux/types.h>

#define GFP_KERNEL	0x1u
#define GFP_ATOMIC	0x2u
#define GFP_NOWAIT	0x4u
#define __GFP_ZERO	0x100u

static inline void *kmalloc(size_t size, gfp_t gfp)
{
	return (gfp & __GFP_ZERO) ? calloc(1, size) : malloc(size);
}

static inline void *kzalloc(size_t size, gfp_t gfp)
{
	return calloc(1, size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

static inline void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = malloc(len ? len : 1);

	if (p)
		memcpy(p, src, len);
	return p;
}

#define kmemdup_noprof	kmemdup
#define alloc_hooks(x)	(x)

#endif
