/* SPDX-License-Identifier: MIT */
/*
 * Signals, sigreturn and ptrace-like access to a stopped task, the way a
 * kernel hands a task's FPU state to user space and takes it back: through
 * libfpu's fpu_sigframe_save/restore (fpu_export_std/fpu_import_std).
 */
#ifndef LAB_SIGNAL_H
#define LAB_SIGNAL_H

#include "kernel.h"
#include "sched.h"
#include "trap.h"

#define SIG_MAX_SLOTS 64 /* task slots SYS_KILL and ptrace name tasks by */

/* struct task.trace */
enum trace_state {
	TRACE_NONE,
	TRACE_REQ,      /* a tracer asked it to stop */
	TRACE_STOPPING, /* it took the request on its way back to ring 3 */
	TRACE_STOPPED,  /* switched out (fpu_switch() away from it returned), stays off the CPU */
};

/* Events, all CPUs, since boot. */
struct sig_counts {
	uint64_t sent;          /* SYS_KILL and timer signals raised */
	uint64_t delivered;     /* frames written and handlers entered */
	uint64_t sigreturns;    /* frames imported */
	uint64_t ptrace_reads;  /* exports of a stopped task */
	uint64_t ptrace_writes; /* imports into a stopped task */
	uint64_t ptrace_busy;   /* stop requests given up: the task did not stop in time */
	uint64_t kills;         /* tasks killed for a frame that did not fit or failed validation */
	uint64_t window_moves; /* preemptions or migrations between save and frame, frame and load */
};

void signal_task_init(struct task *t);
void signal_task_exit(struct task *t);
/* On the way back to ring 3 (exit_to_user): stop for a tracer or deliver a
 * signal. True if it did something (and may have switched). */
bool signal_work(struct task *t);
/* The timer interrupted ring 3: maybe raise an asynchronous signal. */
void signal_timer(struct task *t);
void signal_counts(struct sig_counts *out);

long sys_sigaction(uint64_t handler, uint64_t arg, uint64_t slot);
long sys_kill(uint64_t slot);
void sys_sigreturn(struct trap_frame *f);
long sys_ptrace_get(uint64_t slot, uint64_t buf, uint64_t len, uint64_t info);
long sys_ptrace_set(uint64_t slot, uint64_t buf, uint64_t len);

#endif
