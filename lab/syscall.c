/* SPDX-License-Identifier: MIT */
/* SYSCALL dispatch. Arguments come from untrusted ring 3 and are checked. */
#include "syscall.h"
#include "cpu.h"
#include "kfpu.h"
#include "lab.h"
#include "signal.h"
#include "tinydir.h"
#include "trap.h"

static long sem_index(uint64_t i)
{
	return i < MAX_USER_SEMS ? (long)i : -1;
}

void syscall_dispatch(struct trap_frame *f)
{
	long ret = 0, i;

	switch (f->rax) {
	case SYS_EXIT:
		task_exit();
	case SYS_YIELD:
		yield();
		break;
	case SYS_SEM_DOWN:
		if ((i = sem_index(f->rdi)) < 0)
			ret = -1;
		else
			sem_down(&user_sems[i]);
		break;
	case SYS_SEM_UP:
		if ((i = sem_index(f->rdi)) < 0)
			ret = -1;
		else
			sem_up(&user_sems[i]);
		break;
	case SYS_GETCPU:
		ret = this_cpu()->id;
		break;
	case SYS_MIGRATE:
		if (f->rdi >= ncpus)
			ret = -1;
		else
			migrate_to((unsigned int)f->rdi);
		break;
	case SYS_MARK:
		exp_mark((unsigned int)f->rdi);
		break;
	case SYS_INTEGRITY:
		exp_integrity_error((const void *)f->rdi);
		break;
	case SYS_KERNEL_CSUM:
		ret = sys_kernel_csum(f->rdi, f->rsi, f->rdx);
		break;
	case SYS_SIGACTION:
		ret = sys_sigaction(f->rdi, f->rsi, f->rdx);
		break;
	case SYS_KILL:
		ret = sys_kill(f->rdi);
		break;
	case SYS_SIGRETURN:
		sys_sigreturn(f);
		ret = (long)f->rax; /* the interrupted context's */
		break;
	case SYS_PTRACE_GET:
		ret = sys_ptrace_get(f->rdi, f->rsi, f->rdx, f->r10);
		break;
	case SYS_PTRACE_SET:
		ret = sys_ptrace_set(f->rdi, f->rsi, f->rdx);
		break;
	case SYS_OPEN:
		ret = tinydir_open(f->rdi, f->rsi);
		break;
	case SYS_CLOSE:
		ret = tinydir_close(f->rdi);
		break;
	case SYS_UNLINK:
		ret = tinydir_unlink(f->rdi);
		break;
	case SYS_COSTS_TS:
		ret = costs_set_ts(f->rdi);
		break;
	default:
		ret = -1;
		break;
	}
	f->rax = (uint64_t)ret;
	exit_to_user();
}
