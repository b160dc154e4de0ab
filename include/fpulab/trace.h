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
#define FPULAB_TRACE_VERSION 2        /* what the writer writes */
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
	char workload[24];    /* NUL-padded name of what was traced */
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

#endif
