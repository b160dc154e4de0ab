/* SPDX-License-Identifier: MIT */
/* System call numbers, shared by the kernel and the ring-3 code in user/.
 * ABI: number in RAX, arguments in RDI, RSI, RDX, R10; result in RAX. */
#ifndef LAB_SYSCALL_H
#define LAB_SYSCALL_H

#define SYS_EXIT 0
#define SYS_YIELD 1
#define SYS_SEM_DOWN 2 /* (sem index) */
#define SYS_SEM_UP 3   /* (sem index) */
#define SYS_GETCPU 4
#define SYS_MIGRATE 5     /* (cpu) */
#define SYS_MARK 6        /* (MARK_START | MARK_END): measured window */
#define SYS_INTEGRITY 7   /* (struct integrity_report *) */
#define SYS_KERNEL_CSUM 8 /* (buffer, bytes) -> checksum, in a kernel-mode FPU section */
#define SYS_OPEN 9        /* (name, TD_O_*) -> descriptor: the sleeping-lock directory */
#define SYS_CLOSE 10      /* (descriptor) */
#define SYS_UNLINK 11     /* (name) */
#define SYS_NR 12

#define TD_O_CREAT 1
#define TD_O_EXCL 2

#define MARK_START 0
#define MARK_END 1

#define REPORT_REG_INIT 98    /* integrity_report.reg: a new task not in the init state */
#define REPORT_REG_CONTROL 99 /* integrity_report.reg: FCW or MXCSR */

/* Registers that did not hold what their task last wrote there: @count of
 * them in one check, the first one described (a data register rather than
 * the control register when both are wrong). */
struct integrity_report {
	unsigned int count;
	unsigned int task;
	unsigned int regset; /* enum regset */
	unsigned int reg;
	unsigned long long expected, got;
};

#endif
