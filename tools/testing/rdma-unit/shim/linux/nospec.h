/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: no speculation barrier; the index is clamped all the same. */
#ifndef _SHIM_LINUX_NOSPEC_H
#define _SHIM_LINUX_NOSPEC_H

#define array_index_nospec(index, size)	((index) < (size) ? (index) : 0)

#endif
