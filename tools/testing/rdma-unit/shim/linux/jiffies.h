/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: a clock of 1000 jiffies per second. */
#ifndef _SHIM_LINUX_JIFFIES_H
#define _SHIM_LINUX_JIFFIES_H

#include <linux/types.h>

#define HZ	1000

static inline unsigned int jiffies_to_msecs(unsigned long j)
{
	return (unsigned int)j;
}

static inline unsigned long msecs_to_jiffies(unsigned int m)
{
	return m;
}

#endif
