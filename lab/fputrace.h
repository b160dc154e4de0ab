/* SPDX-License-Identifier: MIT */
/*
 * Recording traces (fpulab run --trace; docs/trace.md, "Recording from the
 * lab"): per-CPU buffers of include/fpulab/trace.h events in guest memory,
 * stamped from one global sequence counter, read out by the host with QMP
 * pmemsave after each run while the guest waits.
 */
#ifndef LAB_FPUTRACE_H
#define LAB_FPUTRACE_H

#include "kernel.h"
#include <fpulab/trace.h>

struct task;

/* Boot, after smp_boot(): with trace=1 on the command line, take the buffers. */
void fputrace_init(void);
/* Whether trace=1 was given (the buffers exist). */
bool fputrace_enabled(void);

/* At a quiescent point before a run: empty buffers, seq 0, tracing on in libfpu. */
void fputrace_start(void);
/* At the run's end, every other CPU idle: recording stops. */
void fputrace_stop(void);
/* After the run's result record: print the trace record, wait for the host's ack. */
void fputrace_handoff(void);

/*
 * A libfpu hook and the events it records, as one step while recording:
 * fputrace_step_begin() before the event's stamp, fputrace_step_end() with
 * what it returned after the hook. Steps run one at a time over all CPUs, so
 * the hooks read and write what they share between CPUs in the order of
 * their events, as replay runs them (fputrace.c). Nested steps on one CPU
 * are one step. Nothing happens unless recording.
 */
extern volatile bool fputrace_recording;
bool fputrace_step_take(void); /* the out-of-line part: wait for the step */
void fputrace_step_give(void);
/* (inline: on every switch, and untraced runs take no call) */
static inline bool fputrace_step_begin(void)
{
	return fputrace_recording && fputrace_step_take();
}
static inline void fputrace_step_end(bool began)
{
	if (began)
		fputrace_step_give();
}

/* Events; each does nothing unless recording. */
void fputrace_switch(struct task *prev, struct task *next); /* before fpu_switch() */
void fputrace_use(void);                                    /* libfpu's trace_use */
void fputrace_return_to_user(void);                         /* before fpu_return_to_user() */
void fputrace_kfpu(bool begin); /* before kernel_fpu_begin(), after kernel_fpu_end() */
void fputrace_migrate(struct task *t, unsigned int cpu); /* before the switch away */
void fputrace_exit(struct task *t);                      /* before fpu_task_exit() */
void fputrace_export(struct task *t);                    /* before fpu_export_std() */
void fputrace_flush_ipi(void);                           /* a flush IPI is sent */
/*
 * An import into @t (sigreturn: @flags FPULAB_EVF_SIGFRAME; ptrace write):
 * begin before fpu_import_std()/fpu_sigframe_restore(), end after it with
 * its result (a refused import only brought the state to memory: an export).
 */
int64_t fputrace_import_begin(struct task *t);
void fputrace_import_end(int64_t at, struct task *t, unsigned int flags, int err);
void fputrace_reset(struct task *t); /* before fpu_task_reset() */

#endif
