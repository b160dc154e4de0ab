/* SPDX-License-Identifier: MIT */
/* Ring-3 side of the lab: system call stubs. No kernel function is called from here. */
#ifndef LAB_USER_ULIB_H
#define LAB_USER_ULIB_H

#include "../syscall.h"
#include <stdbool.h>
#include <stdint.h>

static inline long syscall2(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

static inline void sys_exit(void)
{
	syscall2(SYS_EXIT, 0, 0);
	__builtin_unreachable();
}
static inline void sys_yield(void)
{
	syscall2(SYS_YIELD, 0, 0);
}
static inline void sys_sem_down(unsigned int s)
{
	syscall2(SYS_SEM_DOWN, s, 0);
}
static inline void sys_sem_up(unsigned int s)
{
	syscall2(SYS_SEM_UP, s, 0);
}
static inline long sys_getcpu(void)
{
	return syscall2(SYS_GETCPU, 0, 0);
}
static inline long sys_migrate(unsigned int cpu)
{
	return syscall2(SYS_MIGRATE, cpu, 0);
}
static inline void sys_mark(unsigned int which)
{
	syscall2(SYS_MARK, which, 0);
}
static inline void sys_integrity(const struct integrity_report *r)
{
	syscall2(SYS_INTEGRITY, (long)r, 0);
}
static inline uint64_t sys_kernel_csum(const void *buf, uint64_t bytes)
{
	return (uint64_t)syscall2(SYS_KERNEL_CSUM, (long)buf, (long)bytes);
}
static inline long sys_open(const char *name, unsigned int flags)
{
	return syscall2(SYS_OPEN, (long)name, flags);
}
static inline long sys_close(long fd)
{
	return syscall2(SYS_CLOSE, fd, 0);
}
static inline long sys_unlink(const char *name)
{
	return syscall2(SYS_UNLINK, (long)name, 0);
}

/* user/regs.c: a task-unique pattern in every register of a set. */
void regs_write(unsigned int regset, unsigned int task, uint64_t seq);
unsigned int regs_check(unsigned int regset, unsigned int task, uint64_t seq);
/* REGSET_ALL: x87 stack and FCW, MXCSR, and YMM (@ymm) or XMM, together. */
void regs_write_all(unsigned int task, uint64_t seq, bool ymm);
unsigned int regs_check_all(unsigned int task, uint64_t seq, bool ymm);
/* A new task's registers hold the init state (nothing leaked from another task). */
unsigned int regs_check_init(unsigned int task, bool ymm);

#endif
