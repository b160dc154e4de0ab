/* SPDX-License-Identifier: MIT */
/*
 * The Linux importer's parts (docs/linux-traces.md), shared by its files:
 *   perf_line.c   one line of perf script text
 *   perf_scan.c   pass 1: every line parsed and checked, pids resolved to
 *                 task incarnations, records spooled to a temporary file
 *   perf_state.c  pass 2: Linux's FPU state machine over the records,
 *                 fpulab's events out
 *   perf_emit.c   pass 2's output: per-CPU pending events, the checker, the file
 *   perf_import.c the passes, the input (text, -, perf.data, .xz), the file
 * Nothing here holds more than the live tasks, CPUs and one slice per CPU:
 * the input streams through.
 */
#ifndef FPULAB_CLI_TRACE_PERF_INTERNAL_H
#define FPULAB_CLI_TRACE_PERF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "perf_import.h"
#include "perf_line.h"
#include "trace_io.h"

#define INC_IDLE 0          /* pid 0: the idle task */
#define INC_NONE UINT32_MAX /* perf did not know the task (tid -1) */
#define PERF_CPU_LIMIT 4096 /* Linux CPU numbers the importer maps */

/* One event of the recording, as pass 1 spools it (pids resolved). */
struct prec {
	uint64_t ts;   /* ns */
	uint32_t line; /* in the perf text, for messages */
	uint32_t subj; /* incarnation the event happened in, INC_IDLE or INC_NONE */
	uint32_t a;    /* switch: prev; fork: parent; migrate, exit: the task; lost: count */
	uint32_t b;    /* switch: next; fork: child; migrate: dest CPU (trace's) */
	uint32_t x;    /* x86_fpu: xfeatures (low 32 bits); migrate: orig CPU (trace's) */
	uint16_t cpu;  /* the trace's CPU */
	uint8_t type;  /* enum perf_ev */
	uint8_t flags; /* PRF_* */
};
_Static_assert(sizeof(struct prec) == 32, "a spooled record is 32 bytes");

#define PRF_LOAD (1u << 0)    /* x86_fpu: load: 1 */
#define PRF_DEAD (1u << 1)    /* switch: prev is dead (prev_state X or Z) */
#define PRF_HANDLER (1u << 2) /* signal: delivered to a handler */

#define INCF_USER (1u << 0) /* has x86_fpu activity: a user task (else a kernel thread) */
#define INCF_COPY (1u << 1) /* x86_fpu_copy_dst seen: its next fork's child is a user task */

/* What pass 1 learned, for pass 2. */
struct perf_scan {
	uint64_t first_ts, last_ts;
	uint64_t cpu_last_ts[FPULAB_TRACE_MAX_CPUS];   /* per trace CPU: its last event (its end) */
	uint32_t cpu_last_line[FPULAB_TRACE_MAX_CPUS]; /* and that event's line */
	uint64_t back_steps, back_max_ns; /* lines earlier than an earlier line (another CPU's) */
	uint64_t lines, skipped, lost, fpu_lines, events;
	uint64_t n[PE_NR];
	bool sigreturn, ns;
	uint64_t xcomp_or, xfeat_or;
	unsigned int ncpus;
	uint16_t linux_cpu[FPULAB_TRACE_MAX_CPUS]; /* trace CPU -> Linux's number */
	uint8_t slot_to_cpu[FPULAB_TRACE_MAX_CPUS]; /* a record's cpu (first-seen order) -> trace CPU */
	uint32_t ninc;                              /* incarnations 1..ninc-1 (0 is idle) */
	int32_t *inc_pid;
	uint8_t *inc_flags;
	FILE *spool;
	char skipped_names[160]; /* the first kinds skipped, for the summary */
};

int perf_scan(FILE *in, struct perf_scan *s, char *err, size_t errlen);

/* What an input's first @n bytes say it is: 'p' perf.data, 'x' xz, 'f' an fpulab trace,
 * 't' anything else (perf script text). */
int perf_input_kind(const void *head, size_t n);
void perf_scan_free(struct perf_scan *s);

/* The trace's XCR0: what the recording's xcomp_bv and xfeatures show, within 0x602ff. */
uint64_t perf_scan_xcr0(const struct perf_scan *s);

/* ---- pass 2's output (perf_emit.c) ---- */

struct pev {
	struct fpulab_trace_event e;
	uint32_t line;
	uint32_t ret_mask; /* USE at a return: the XSTATE_BV the task returned with */
	bool slice_use;    /* a USE of the every-return model, decided at the slice's end */
	bool loaded;       /* its returned flag stands for a return where deferred loads */
};

struct pend {
	struct pev *ev;
	unsigned int n, cap;
	int held;          /* index of a switch that awaits its deactivation, or -1 */
	bool ret_carry;    /* a dropped USE's returned flag, for the next event here */
	bool carry_loaded; /* ... and deferred loads at that return (pev.loaded) */
};

#define MASK_UNKNOWN UINT32_MAX /* pev.ret_mask: the state's XSTATE_BV was never seen */
#define PEND_MAX 4096           /* pending events per CPU before they are written regardless */
#define NO_CPU 0xffff

struct emitter {
	FILE *out;
	struct trace_checker *chk;
	struct fpulab_trace_header hdr; /* what the checker checks against */
	struct fpulab_trace_linux lx0;
	uint64_t nevents;
	unsigned int fp_use;
	uint16_t *pend_cpu; /* per task: the CPU whose pending events name it, or 0xffff */
	struct pend cpu[FPULAB_TRACE_MAX_CPUS];
	char err[320];
};

int em_open(struct emitter *m, FILE *out, unsigned int ncpus, uint64_t xcr0, unsigned int fp_use,
	    char *err, size_t errlen);
void em_close(struct emitter *m);
/* Append @e on its CPU's pending list (a copy); -1 out of memory. */
int em_push(struct emitter *m, const struct fpulab_trace_event *e, uint32_t line);
/* Insert @e before the entry at @pos of CPU @c's pending list. */
int em_insert(struct emitter *m, unsigned int c, unsigned int pos,
	      const struct fpulab_trace_event *e, uint32_t line);
/* Write out CPU @c's first @n pending events (all: UINT32_MAX); -1 with m->err. */
int em_flush(struct emitter *m, unsigned int c, unsigned int n);
/* Decide the pending every-return USEs of CPU @c's entries [0, @n) whose slice ended:
 * @save_mask the XSTATE_BV Linux saved (has_save), patched into the last one. */
void em_decide_uses(struct emitter *m, unsigned int c, unsigned int n, bool has_save,
		    uint32_t save_mask);

/* ---- pass 2 (perf_state.c) ---- */
int perf_state_run(const struct perf_scan *s, struct emitter *m, const struct perf_import_opts *o,
		   struct fpulab_trace_linux *lx, uint32_t *ntasks, char *err, size_t errlen);

#endif
