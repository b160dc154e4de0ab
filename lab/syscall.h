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
#define SYS_KERNEL_CSUM 8 /* (buffer, bytes, KCSUM_*) -> checksum */
#define SYS_SIGACTION \
	9                 /* (handler, arg, slot) -> lowest address of the caller's user stack;
			   * (0): unregister, before the handler's argument goes away */
#define SYS_KILL 10       /* (task slot, -1: self) -> 0, -1: no such task */
#define SYS_SIGRETURN 11  /* from the trampoline only; RSP at the struct sigframe */
#define SYS_PTRACE_GET 12 /* (task slot, buffer, bytes, struct ptrace_info *) -> 0, -1 */
#define SYS_PTRACE_SET 13 /* (task slot, buffer or NULL, bytes) -> 0 or a libfpu error */
#define SYS_OPEN 14       /* (name, TD_O_*) -> descriptor: the sleeping-lock directory */
#define SYS_CLOSE 15      /* (descriptor) */
#define SYS_UNLINK 16     /* (name) */
#define SYS_COSTS_TS 17   /* (trap): CR0 with TS set (arms the #NM probe), or clear */
#define SYS_NR 18

#define TD_O_CREAT 1
#define TD_O_EXCL 2

/*
 * Signals. SYS_SIGACTION registers the caller's handler, its argument and
 * the caller's task slot (struct sigframe.slot) for SYS_KILL and ptrace.
 * One signal at a time: while a handler runs, the next one stays pending.
 * The handler runs as handler(arg, struct sigframe *, fpstate) and returns
 * to a trampoline that calls SYS_SIGRETURN. Frame on the user stack, from
 * the interrupted RSP down: 128 bytes skipped, the FPU frame (64-aligned,
 * fpu_sigframe_size() bytes: include/fpu/signal.h), then struct sigframe
 * (16-aligned), then the return address.
 */
#define SIGFRAME_MAGIC 0x6c61627369676672ull /* "rfgisbal" */
#define SIGFRAME_GREGS 22                    /* the interrupted struct trap_frame */
#define SIG_ASYNC 1u                         /* sigframe.why: raised by the timer */
#define SIG_SENT 2u                          /* sigframe.why: by SYS_KILL */

struct sigframe {
	unsigned long long magic;
	unsigned long long gregs[SIGFRAME_GREGS];
	void *fpstate; /* the FPU frame; sigreturn takes it from here, untrusted */
	unsigned long long fpsize;
	unsigned int why; /* SIG_* bits */
	unsigned int pad;
};

/*
 * ptrace: SYS_PTRACE_GET stops the task in the slot (it stops on its way
 * back to ring 3) and exports its FPU state in the standard format; -1 if
 * there is no such task, it is already traced, or it did not stop in time.
 * The task stays stopped until the same tracer's SYS_PTRACE_SET imports a
 * state (or, with a NULL buffer, none) and resumes it.
 */
struct ptrace_info {
	unsigned long long arg; /* the stopped task's handler argument (SYS_SIGACTION) */
	unsigned int
		in_handler; /* it stopped inside its signal handler: the state is the handler's */
	unsigned int pad;
};

#define KCSUM_SIMD 0   /* AVX2 or SSE2 in a kernel-mode FPU section */
#define KCSUM_SCALAR 1 /* integer code, no FPU: the reference */

#define MARK_START 0
#define MARK_END 1

#define REPORT_REG_X87_PTRS 97 /* integrity_report.reg: FIP/FDP/FOP of another task at first use */
#define REPORT_REG_INIT 98     /* integrity_report.reg: a new task not in the init state */
#define REPORT_REG_CONTROL 99  /* integrity_report.reg: FCW or MXCSR */

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
