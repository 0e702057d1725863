// SPDX-License-Identifier: GPL-2.0
/*
 * User-space shim: the few kernel helpers that need a body rather than a
 * macro.  Linked into the unit test program and into every fuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include "shim.h"

struct task_struct shim_current_task = { .comm = "rdma-unit" };
unsigned int shim_warn_count;
int shim_warn_fatal;
int shim_quiet;

void shim_warn(const char *file, int line, const char *cond)
{
	shim_warn_count++;
	if (!shim_quiet || shim_warn_fatal)
		fprintf(stderr, "# WARNING at %s:%d: %s\n", file, line, cond);
	if (shim_warn_fatal)
		abort();
}

void shim_bug(const char *file, int line, const char *cond)
{
	fprintf(stderr, "# BUG at %s:%d: %s\n", file, line, cond);
	abort();
}

ssize_t shim_strscpy(char *dst, const char *src, size_t size)
{
	size_t len;

	if (!size)
		return -E2BIG;
	len = strnlen(src, size);
	if (len == size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return -E2BIG;
	}
	memcpy(dst, src, len + 1);
	return (ssize_t)len;
}

struct sk_buff *alloc_skb(unsigned int size, gfp_t gfp)
{
	struct sk_buff *skb = calloc(1, sizeof(*skb));

	if (!skb)
		return NULL;
	skb->head = malloc(size ? size : 1);
	if (!skb->head) {
		free(skb);
		return NULL;
	}
	skb->data = skb->head;
	skb->tail = skb->head;
	skb->end = skb->head + size;
	return skb;
}

void kfree_skb(struct sk_buff *skb)
{
	if (skb)
		free(skb->head);
	free(skb);
}

void *skb_put(struct sk_buff *skb, unsigned int len)
{
	unsigned char *p = skb->tail;

	if (len > (unsigned int)(skb->end - skb->tail))
		shim_bug(__FILE__, __LINE__, __func__);
	skb->tail += len;
	skb->len += len;
	return p;
}
