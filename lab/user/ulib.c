/* SPDX-License-Identifier: MIT */
#include "ulib.h"

void user_task_entry(void (*entry)(void *), void *arg);

/* Where every user task starts (ring 3): run, then exit. */
void user_task_entry(void (*entry)(void *), void *arg)
{
	entry(arg);
	sys_exit();
}
