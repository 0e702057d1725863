/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: errno values, with the kernel-internal ones. */
#ifndef _SHIM_LINUX_ERRNO_H
#define _SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>
#include <errno.h>

#define ERESTARTSYS	512
#define ENOTSUPP	524
#define EPROBE_DEFER	517

#endif
