/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: struct list_head lives in the shim's <linux/types.h>. */
#ifndef _SHIM_LINUX_LIST_H
#define _SHIM_LINUX_LIST_H

#include <linux/types.h>

#endif
