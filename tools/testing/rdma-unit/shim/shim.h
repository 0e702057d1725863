/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: run-time knobs of shim.c for the test runner and fuzzers. */
#ifndef _SHIM_SHIM_H
#define _SHIM_SHIM_H

/* Number of WARN_ON()s that fired; tests reset and read it. */
extern unsigned int shim_warn_count;
/* Non-zero: a WARN_ON() aborts (the fuzzers' panic_on_warn). */
extern int shim_warn_fatal;
/* Non-zero: kernel log messages are not printed. */
extern int shim_quiet;

#endif
