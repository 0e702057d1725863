/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: symbol exports mean nothing in a test program. */
#ifndef _SHIM_LINUX_EXPORT_H
#define _SHIM_LINUX_EXPORT_H

#define EXPORT_SYMBOL(sym)
#define EXPORT_SYMBOL_GPL(sym)
#define EXPORT_SYMBOL_NS_GPL(sym, ns)
#define THIS_MODULE	((void *)0)

#endif
