/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User-space shim: a linear socket buffer with the handful of operations
 * that building netlink messages uses.  head..end is the buffer, data..tail
 * the bytes in use.
 */
#ifndef _SHIM_LINUX_SKBUFF_H
#define _SHIM_LINUX_SKBUFF_H

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

struct sk_buff {
	unsigned char *head;
	unsigned char *data;
	unsigned char *tail;
	unsigned char *end;
	unsigned int len;
	char cb[48];
};

struct sk_buff *alloc_skb(unsigned int size, gfp_t gfp);
void kfree_skb(struct sk_buff *skb);
void *skb_put(struct sk_buff *skb, unsigned int len);

static inline unsigned char *skb_tail_pointer(const struct sk_buff *skb)
{
	return skb->tail;
}

static inline int skb_tailroom(const struct sk_buff *skb)
{
	return (int)(skb->end - skb->tail);
}

static inline void *__skb_put(struct sk_buff *skb, unsigned int len)
{
	return skb_put(skb, len);
}

static inline void *skb_put_zero(struct sk_buff *skb, unsigned int len)
{
	return memset(skb_put(skb, len), 0, len);
}

static inline void *skb_put_data(struct sk_buff *skb, const void *data,
				 unsigned int len)
{
	return memcpy(skb_put(skb, len), data, len);
}

static inline void skb_trim(struct sk_buff *skb, unsigned int len)
{
	if (skb->len > len) {
		skb->len = len;
		skb->tail = skb->data + len;
	}
}

#endif
