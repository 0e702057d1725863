/* SPDX-License-Identifier: GPL-2.0 */
/* User-space shim: "current" is one fixed task, named after the program. */
#ifndef _SHIM_LINUX_SCHED_H
#define _SHIM_LINUX_SCHED_H

#define TASK_COMM_LEN	16

struct task_struct {
	char comm[TASK_COMM_LEN];
};

extern struct task_struct shim_current_task;
#define current		(&shim_current_task)

#endif
