/* SPDX-License-Identifier: MIT */
/*
 * One line of `perf script` text for the tracepoints `fpulab trace import`
 * reads (docs/linux-traces.md): perf's default fields for a tracepoint,
 *
 *     COMM  TID [CPU] SECONDS.FRACTION: SYSTEM:EVENT: FIELDS
 *
 * (COMM right-aligned in 16 columns, any bytes but NUL and newline; TID
 * may be "PID/TID" with -F +pid; FRACTION 6 digits, or 9 with --ns).
 */
#ifndef FPULAB_CLI_TRACE_PERF_LINE_H
#define FPULAB_CLI_TRACE_PERF_LINE_H

#include <stddef.h>
#include <stdint.h>

enum perf_ev {
	PE_SKIP = 0,   /* an event the importer does not use: counted */
	PE_SWITCH,     /* sched:sched_switch */
	PE_MIGRATE,    /* sched:sched_migrate_task */
	PE_FORK,       /* sched:sched_process_fork */
	PE_EXEC,       /* sched:sched_process_exec */
	PE_EXIT,       /* sched:sched_process_exit */
	PE_SIGNAL,     /* signal:signal_deliver */
	PE_SIGRETURN,  /* syscalls:sys_enter_rt_sigreturn */
	PE_ACT,        /* x86_fpu:x86_fpu_regs_activated */
	PE_DEACT,      /* x86_fpu:x86_fpu_regs_deactivated */
	PE_DROP,       /* x86_fpu:x86_fpu_dropped */
	PE_COPY_DST,   /* x86_fpu:x86_fpu_copy_dst */
	PE_AFTER_SAVE, /* x86_fpu:x86_fpu_after_save */
	PE_FPU_OTHER,  /* another x86_fpu event: counted as x86_fpu, not used */
	PE_LOST,       /* PERF_RECORD_LOST (perf script --show-lost-events) */
	PE_NR,
};

/* What a line says. Pids are Linux's (tid), -1 where perf did not know the task. */
struct perf_line {
	int32_t tid;         /* the task the event happened in (perf's sample tid) */
	uint32_t cpu;        /* Linux's CPU number */
	uint64_t ts_ns;      /* perf's clock */
	unsigned int digits; /* of the fraction: 6 (us) or 9 (ns) */
	enum perf_ev type;
	const char *name; /* SYSTEM:EVENT, NUL-terminated inside the line (PE_SKIP) */
	/* per type */
	int32_t pid_a;      /* switch prev; migrate, exit, exec: pid; fork: parent */
	int32_t pid_b;      /* switch next; fork: child; exec: old_pid */
	uint32_t cpu_a;     /* migrate: orig_cpu */
	uint32_t cpu_b;     /* migrate: dest_cpu */
	int dead;           /* switch: prev_state has X or Z (the task is dead) */
	int handler;        /* signal: sa_handler is a function (not SIG_DFL or SIG_IGN) */
	int load;           /* x86_fpu: load (TIF_NEED_FPU_LOAD of current) */
	uint64_t xfeatures; /* x86_fpu: XSTATE_BV of the task's buffer */
	uint64_t xcomp_bv;  /* x86_fpu: XCOMP_BV of it */
	uint64_t lost;      /* lost: how many */
};

/*
 * perf_parse_line - parse @line (@len bytes, NUL-terminated at @len; the
 * parser may write NULs into it). Return 1 for a line to pass over (empty,
 * or a '#' comment of perf script's header), 0 for an event in *@l, or -1
 * with what is wrong in @err.
 */
int perf_parse_line(char *line, size_t len, struct perf_line *l, char *err, size_t errlen);

#endif
