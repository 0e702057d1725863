/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: module metadata means nothing in a test program. */
#ifndef _SHIM_LINUX_MODULE_H
#define _SHIM_LINUX_MODULE_H

#include <linux/export.h>
#include <linux/kernel.h>

#define __stringify_1(x)	#x
#define __stringify(x)		__stringify_1(x)
#define MODULE_ALIAS(a)
#define MODULE_LICENSE(l)
#define MODULE_DESCRIPTION(d)

#endif
