/* SPDX-License-Identifier: MIT */
#include "ulib.h"

void user_task_entry(void (*entry)(void *), void *arg);

/* Where every user task starts (ring 3): run, then exit. */
void user_task_entry(void (*entry)(void *), void *arg)
{
	entry(arg);
	sys_exit();
}

#define LAB_XSTR(x) #x
#define LAB_STR(x) LAB_XSTR(x)

/* Where a signal handler returns to (the kernel pushes its address): RSP is
 * at the struct sigframe. */
/* clang-format off */
__asm__(".text\n"
	".globl sigreturn_trampoline\n"
	"sigreturn_trampoline:\n"
	"\tmovl $" LAB_STR(SYS_SIGRETURN) ", %eax\n"
	"\tsyscall\n"
	"\tud2\n");
/* clang-format on */
