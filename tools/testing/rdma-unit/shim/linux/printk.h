/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: kernel log messages go to stderr, prefixed "# ". */
#ifndef _SHIM_LINUX_PRINTK_H
#define _SHIM_LINUX_PRINTK_H

#include <stdio.h>
#include "../shim.h"

#define shim_log(lvl, fmt, ...) \
	do { if (!shim_quiet) fprintf(stderr, "# " lvl fmt, ##__VA_ARGS__); } while (0)

#define printk(fmt, ...)		shim_log("", fmt, ##__VA_ARGS__)
#define pr_emerg(fmt, ...)		shim_log("emerg: ", fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)		shim_log("err: ", fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)		shim_log("warn: ", fmt, ##__VA_ARGS__)
#define pr_notice(fmt, ...)		shim_log("notice: ", fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)		shim_log("info: ", fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)		do { } while (0)
#define pr_warn_ratelimited(fmt, ...)	pr_warn(fmt, ##__VA_ARGS__)
#define pr_err_ratelimited(fmt, ...)	pr_err(fmt, ##__VA_ARGS__)
#define pr_warn_once(fmt, ...)		pr_warn(fmt, ##__VA_ARGS__)
#define pr_err_once(fmt, ...)		pr_err(fmt, ##__VA_ARGS__)

#endif
