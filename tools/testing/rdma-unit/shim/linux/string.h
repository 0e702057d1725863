/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: the C library's string functions plus kernel extras. */
#ifndef _SHIM_LINUX_STRING_H
#define _SHIM_LINUX_STRING_H

#include <string.h>
#include <linux/types.h>

/* Copies at most @size - 1 bytes; returns the length or -E2BIG if cut. */
ssize_t shim_strscpy(char *dst, const char *src, size_t size);
#define strscpy(dst, src, size)	shim_strscpy(dst, src, size)

static inline void *memchr_inv(const void *s, int c, size_t n)
{
	const unsigned char *p = s;
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (unsigned char)c)
			return (void *)(p + i);
	return NULL;
}

#endif
