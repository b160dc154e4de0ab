/* SPDX-License-Identifier: MIT */
/* Ring-3 side of the lab: system call stubs. No kernel function is called from here. */
#ifndef LAB_USER_ULIB_H
#define LAB_USER_ULIB_H

#include "../exp.h"
#include "../syscall.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline long syscall2(long nr, long a, long b)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
	return ret;
}

static inline long syscall4(long nr, long a, long b, long c, long d)
{
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
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
	return (uint64_t)syscall4(SYS_KERNEL_CSUM, (long)buf, (long)bytes, KCSUM_SIMD, 0);
}
/* @impl: KCSUM_SIMD (kernel-mode FPU section) or KCSUM_SCALAR (integer code only). */
static inline uint64_t sys_kernel_csum_impl(const void *buf, uint64_t bytes, unsigned int impl)
{
	return (uint64_t)syscall4(SYS_KERNEL_CSUM, (long)buf, (long)bytes, impl, 0);
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

/* Returns the lowest address of the caller's user stack, or -1. */
static inline long sys_sigaction(void (*handler)(void *, struct sigframe *, void *), void *arg,
				 unsigned int slot)
{
	return syscall4(SYS_SIGACTION, (long)handler, (long)arg, slot, 0);
}
/* @slot: another task's slot, or -1 for the caller. */
static inline long sys_kill(long slot)
{
	return syscall2(SYS_KILL, slot, 0);
}
static inline long sys_ptrace_get(unsigned int slot, void *buf, unsigned long len,
				  struct ptrace_info *info)
{
	return syscall4(SYS_PTRACE_GET, slot, (long)buf, (long)len, (long)info);
}
static inline long sys_ptrace_set(unsigned int slot, const void *buf, unsigned long len)
{
	return syscall4(SYS_PTRACE_SET, slot, (long)buf, (long)len, 0);
}

/* user/regs.c: a task-unique pattern in every register of a set. */
void regs_write(unsigned int regset, unsigned int task, uint64_t seq);
unsigned int regs_check(unsigned int regset, unsigned int task, uint64_t seq);
/* REGSET_ALL: x87 stack and FCW, MXCSR, and YMM (@ymm) or XMM, together. */
void regs_write_all(unsigned int task, uint64_t seq, bool ymm);
unsigned int regs_check_all(unsigned int task, uint64_t seq, bool ymm);
/* A new task's registers hold the init state (nothing leaked from another task). */
unsigned int regs_check_init(unsigned int task, bool ymm);
/*
 * A task's first x87 state: FIP, FDP and FOP zero, or what the scrub left
 * (@scrub, if it runs). @report false: only count (the positive control).
 */
unsigned int regs_check_x87_ptrs(unsigned int task, const struct x87_ptrs *scrub, bool report);
static inline uint32_t rdpkru(void)
{
	uint32_t eax, edx;
	__asm__ volatile("rdpkru" : "=a"(eax), "=d"(edx) : "c"(0));
	return eax;
}
static inline void wrpkru(uint32_t v)
{
	__asm__ volatile("wrpkru" : : "a"(v), "c"(0), "d"(0) : "memory");
}

/* Positive control: right after an x87 load of its own the check must fail (in one of a few tries). */
bool regs_x87_ptrs_check_can_fail(const struct x87_ptrs *scrub);

/*
 * What a signal handler (or a legacy-only frame) changed in a task's
 * registers, on top of its pattern: FCW, MXCSR, XMM EDIT_XMM and the upper
 * half of YMM EDIT_YMM; a legacy-only frame leaves every upper half zero.
 */
#define EDIT_XMM 1
#define EDIT_YMM 2
struct regs_edit {
	bool on;
	bool legacy;  /* a legacy-only frame was restored since the pattern was written */
	bool ymm_set; /* ymm_hi holds YMM EDIT_YMM's upper half */
	uint16_t fcw;
	uint32_t mxcsr;
	uint64_t xmm[2], ymm_hi[2];
};
/* regs_check_all, with @e's edits applied when @e && e->on. */
unsigned int regs_check_all_edit(unsigned int task, uint64_t seq, bool ymm,
				 const struct regs_edit *e);

/* The same, on a standard-format XSAVE image (a signal frame, a ptrace export). */
unsigned int regs_check_image(const void *img, unsigned int task, uint64_t seq, bool ymm,
			      const struct regs_edit *e);
/* Write the pattern of (@task, @seq) into every register of the image. */
void regs_write_image(void *img, unsigned int task, uint64_t seq, bool ymm);
/* Apply @e's FCW, MXCSR, XMM and (with ymm_set) YMM edits to the image. */
void regs_edit_image(void *img, const struct regs_edit *e);

#endif
