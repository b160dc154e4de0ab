/* SPDX-License-Identifier: MIT */
/*
 * The fpulab trace format (docs/trace.md): what the tasks did at every
 * context switch, per CPU, in one global order. A trace describes the
 * workload, not a policy: it records each task's first FPU use in a slice
 * whatever the policy would have done, so that `fpulab replay` can run any
 * policy over it and the oracle can bound them all.
 *
 * A file is one header (struct fpulab_trace_header, 64 bytes) followed by
 * nevents records (struct fpulab_trace_event, 16 bytes each), little-endian,
 * sorted by seq. Task 0 is "no user task" (idle or a kernel thread); user
 * tasks are 1..ntasks. 10^6 switches with one FP use each take 32 MB.
 *
 * Included by cli/ (reader, writer, synthesiser) and, when the lab records
 * traces, by lab/: fixed-width types only.
 */
#ifndef FPULAB_TRACE_H
#define FPULAB_TRACE_H

#include <stdint.h>

#define FPULAB_TRACE_MAGIC "FPUTRACE" /* 8 bytes, no NUL */
#define FPULAB_TRACE_VERSION 2        /* what the writer writes for a trace without a Linux block */
#define FPULAB_TRACE_VERSION_LINUX 3  /* ... and for one with it (imported from Linux) */
#define FPULAB_TRACE_VERSION_MAX 3    /* the newest a reader reads */
#define FPULAB_TRACE_VERSION_MIN 1    /* the oldest a reader reads (no IMPORT or RESET) */
#define FPULAB_TRACE_MAX_CPUS 64
#define FPULAB_TRACE_MAX_TASKS 65535

/* header.flags */
#define FPULAB_TRACE_F_SYNTHETIC (1u << 0) /* made by `fpulab trace synth` */
#define FPULAB_TRACE_F_ALL_USES (1u << 1)  /* every first use in a slice is recorded */
#define FPULAB_TRACE_F_RECORDED (1u << 2)  /* recorded by the lab (fpulab run --trace) */
#define FPULAB_TRACE_F_TRUNCATED (1u << 3) /* the lab's buffers filled up: the run went on */
#define FPULAB_TRACE_F_RETURNS \
	(1u << 4) /* version 2: returns to ring 3 are recorded
					    * (FPULAB_EVF_RETURNED) */
#define FPULAB_TRACE_F_LINUX \
	(1u << 5) /* version 3: imported from a Linux recording (perf),
					* with the Linux block after the header */
#define FPULAB_TRACE_F_LOSSY \
	(1u << 6) /* version 3: the recording lost events (perf said so, or
					* the importer resynchronised an impossible sequence) */

struct fpulab_trace_header {
	char magic[8];        /* FPULAB_TRACE_MAGIC */
	uint16_t version;     /* FPULAB_TRACE_VERSION_MIN..FPULAB_TRACE_VERSION */
	uint16_t header_size; /* bytes: 64 */
	uint16_t event_size;  /* bytes: 16 */
	uint16_t ncpus;       /* CPUs 0..ncpus-1 appear in events; 1..FPULAB_TRACE_MAX_CPUS */
	uint32_t ntasks;      /* user tasks 1..ntasks appear in events */
	uint32_t flags;       /* FPULAB_TRACE_F_* */
	uint64_t nevents;     /* records after the header */
	uint64_t xcr0;        /* XCR0 of the recording machine; use masks are within it */
	char workload[24];    /* NUL-padded name of what was traced: fpulab_trace_name_char() */
};

/* A byte a workload name may hold: printable ASCII. */
static inline int fpulab_trace_name_char(int c)
{
	return c >= 0x20 && c <= 0x7e;
}

/*
 * Version 3: after the 64-byte header of a trace imported from Linux
 * (FPULAB_TRACE_F_LINUX; header_size 64 + 768), what the recording says
 * beyond the events: its time, Linux's own counts, and what the importer
 * inferred (docs/trace.md, docs/linux-traces.md). Counts are events of the
 * recording; times are ns of perf's clock.
 */
#define FPULAB_FP_USE_EVERY_RETURN 1 /* each slice that returned to ring 3 uses its state */
#define FPULAB_FP_USE_EVIDENCE 2     /* only slices whose XINUSE grew between restore and save */
#define FPULAB_LINUX_F_SIGRETURN (1u << 0) /* syscalls:sys_enter_rt_sigreturn was recorded */
#define FPULAB_LINUX_F_NS (1u << 1)        /* perf printed ns timestamps (else us) */
#define FPULAB_LINUX_F_PROCS (1u << 2)     /* forks and execs are counted (older imports: 0) */
#define FPULAB_LINUX_F_ENDS (1u << 3)      /* end_loads is counted (older imports: 0) */

struct fpulab_trace_linux {
	uint64_t duration_ns;                    /* first to last event */
	uint64_t busy_ns[FPULAB_TRACE_MAX_CPUS]; /* per trace CPU: time not in the idle task */
	/* x86_fpu_regs_activated: each one loads the registers */
	uint64_t activations;   /* all; the sum of the next six */
	uint64_t act_restore;   /* fpregs_restore_userregs(): the task's buffer, on the way out */
	uint64_t act_fork;      /* fpu_clone(): the parent's buffer, to copy it to the child */
	uint64_t act_signal;    /* fpu__clear_user_states(): init, for a signal handler */
	uint64_t act_sigframe;  /* copy_fpstate_to_sigframe(): the buffer, to write the frame */
	uint64_t act_sigreturn; /* restore_fpregs_from_user(): the signal frame */
	uint64_t act_other;     /* fpregs_mark_activate() otherwise (KVM, unexplained) */
	/* x86_fpu_regs_deactivated */
	uint64_t deactivations; /* all; switch_saves + drops + deact_other */
	uint64_t switch_saves;  /* switch_fpu(): after sched_switch(prev = that task) */
	uint64_t exit_saves;    /* of the switch saves, at a dead task's final switch */
	uint64_t drops;         /* fpu__drop() at exit: no save */
	uint64_t deact_other;   /* neither */
	/* the recording and what the importer did about it */
	uint64_t perf_lost;           /* events perf said it lost (PERF_RECORD_LOST) */
	uint64_t resyncs;             /* impossible sequences resynchronised */
	uint64_t window_switches;     /* switches to a task already running at the start */
	uint64_t kfpu_inferred;       /* kernel-FPU sections inferred (no tracepoint) */
	uint64_t sigreturns_inferred; /* sigreturns taken from the activation, not the syscall */
	/* deferred's loads as the importer predicts them (replay counts them) */
	uint64_t deferred_loads; /* activations + window_loads + other_loads - act_sigframe
				  * - end_loads */
	uint64_t window_loads;   /* Linux's registers held the state from before the window */
	uint64_t other_loads;    /* Linux skipped a load deferred makes, unexplained */
	uint64_t lines;          /* lines of perf script text read */
	uint64_t skipped;        /* events of other kinds, counted and skipped */
	uint32_t fp_use;         /* FPULAB_FP_USE_*: what the USE events assume */
	uint32_t flags;          /* FPULAB_LINUX_F_* */
	/* FPULAB_LINUX_F_PROCS: the processes the recording started */
	uint64_t forks; /* sched_process_fork whose child is a user task: processes and threads */
	uint64_t execs; /* sched_process_exec by a user task */
	/* of the loads the importer's deferred makes, those at a return after its CPU's last
	 * event (the evidence bound dropped the USE that was that event): no event carries
	 * the return, so replay does not make them, and deferred_loads leaves them out */
	uint64_t end_loads;
	/* switches away from a task whose CPU stopped recording first (perf stops each CPU's
	 * events in turn): the task ran on another CPU after its CPU's last event */
	uint64_t window_ends;
	/* user-task incarnations given a trace id over the recording (ids are reused after an
	 * exit, so there are ntasks ids for them); 0 in traces imported before they were counted */
	uint64_t user_tasks;
	uint64_t reserved[3]; /* 0 */
};

/*
 * Event types. "cpu" is the CPU the event happens on; "task", "arg" and
 * "mask" as listed. The slice of a task on a CPU runs from the SWITCH that
 * brings it in to the next SWITCH on that CPU.
 */
enum fpulab_trace_type {
	FPULAB_EV_SWITCH = 1,     /* task = prev, arg = next (either may be 0) */
	FPULAB_EV_USE = 2,        /* task (the running one) uses the FPU for the first time
				   * in this slice, or since a kernel-FPU section: where a
				   * lazy policy traps. mask = XINUSE of what it dirties */
	FPULAB_EV_KFPU_BEGIN = 3, /* kernel_fpu_begin; task = the running one or 0 */
	FPULAB_EV_KFPU_END = 4,   /* kernel_fpu_end; task as for begin */
	FPULAB_EV_MIGRATE = 5,    /* task, switched out here, will next run on CPU arg */
	FPULAB_EV_EXIT = 6,       /* task (the running one) exits; the next SWITCH here has
				   * prev 0 */
	FPULAB_EV_EXPORT = 7,     /* task's state is read (signal frame, ptrace, core dump):
				   * it must be in memory */
	FPULAB_EV_FLUSH_IPI = 8,  /* recorded for information (a policy's action); replay
				   * and the oracle ignore it */
	/* version 2 */
	FPULAB_EV_IMPORT = 9, /* task's state is replaced by an image from outside
				   * (sigreturn, ptrace write): a task not running elsewhere.
				   * mask = XSTATE_BV of what it installs (within xcr0);
				   * flag FPULAB_EVF_SIGFRAME: from a signal frame */
	FPULAB_EV_RESET = 10, /* task's state is set to init (signal delivery, exec):
				   * as IMPORT of the init image; mask 0 */
	FPULAB_EV_NR,
};

/* The first type a version-1 trace does not have. */
#define FPULAB_EV_NR_V1 FPULAB_EV_IMPORT

/* SWITCH flags */
#define FPULAB_EVF_NO_USER (1u << 0) /* next blocks again before returning to ring 3 */
/* IMPORT flags */
#define FPULAB_EVF_SIGFRAME (1u << 0) /* sigreturn: the image is a signal frame's */
/* Version 3 (imported from Linux) */
#define FPULAB_EVF_EVIDENCE (1u << 0) /* USE: XINUSE grew in the slice: a use at both bounds */
/* SWITCH: to a task running when recording started, or away from one after its CPU's
 * recording ended */
#define FPULAB_EVF_WINDOW (1u << 1)
#define FPULAB_EVF_RESYNC (1u << 2)   /* SWITCH: not in the recording, inferred to resync */
#define FPULAB_EVF_INFERRED (1u << 0) /* KFPU_BEGIN/END: a section inferred, no tracepoint */
/*
 * Any type but FLUSH_IPI, with FPULAB_TRACE_F_RETURNS: the task running on
 * this CPU returned to ring 3 (fpu_return_to_user()) since the previous
 * event here, once or more.
 */
#define FPULAB_EVF_RETURNED (1u << 15)

struct fpulab_trace_event {
	uint32_t seq;   /* global sequence number, strictly increasing */
	uint8_t type;   /* enum fpulab_trace_type */
	uint8_t cpu;    /* < header.ncpus */
	uint16_t task;  /* 0..ntasks */
	uint16_t arg;   /* SWITCH: next task; MIGRATE: destination CPU; else 0 */
	uint16_t flags; /* FPULAB_EVF_* */
	uint32_t mask;  /* USE: XINUSE bits (within xcr0) the task dirties; IMPORT: the
			 * image's XSTATE_BV (within xcr0); else 0 */
};

_Static_assert(sizeof(struct fpulab_trace_header) == 64, "trace header is 64 bytes");
_Static_assert(sizeof(struct fpulab_trace_event) == 16, "trace event is 16 bytes");
_Static_assert(sizeof(struct fpulab_trace_linux) == 768, "the Linux block is 768 bytes");

#endif
