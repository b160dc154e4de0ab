/* SPDX-License-Identifier: MIT */
/* The lab: glue to libfpu, the timer, and the experiments. */
#ifndef LAB_LAB_H
#define LAB_LAB_H

#include "kernel.h"
#include "sched.h"
#include <fpu/fpu.h>

/* fpu_glue.c */
void lab_fpu_init(void);

/* timer.c */
void timer_tick(void);
void cpu_start_timer(void);         /* arm this CPU's timer for a slice */
void timer_jitter(uint64_t seed);   /* non-zero: each tick 0.3..1.7 x tick_ns, seeded; 0: off */
uint64_t timer_user_preempts(void); /* ticks that preempted a ring-3 task, all CPUs */
extern uint32_t tick_ns;
extern void (*volatile timer_hook)(void); /* called at every timer tick of CPU 0 (IRQ context) */
/* Stop every CPU's timer (no interrupt, no instruction on any CPU), and
 * restart them: for measurements that must see only their own instructions. */
void timers_pause(void);
void timers_resume(void);
extern bool timer_preempt;      /* false: the timer never preempts (slices end by yield or block) */
extern bool timer_whole_slices; /* true: each switch re-arms the timer for a full slice */

/* exp.c: the experiment controller and the measured window. */
#include "exp.h"
#include <fpulab/abi.h>

#define MAX_USER_SEMS (FPULAB_MAX_TASKS + 2) /* stress: one per task, and its start barrier */
#define CFG_MAX_POLICIES 8 /* policies one boot runs (--policy list; the rest ignored) */

/* What every experiment shares from the command line; the rest is each
 * experiment's own (exp_NAME.c). */
struct config {
	const struct experiment *experiment;
	char policy_buf[128];
	const char *policies[CFG_MAX_POLICIES];
	unsigned int npolicies;
	uint64_t repeat;
};

/* record.c: one record line, built field by field. */
struct record {
	char line[1536];
	size_t n;
};
void record_begin(struct record *r, const char *kind);
extern const char record_unset[]; /* a string field not measured: not sent */
void record_str(struct record *r, const char *key, const char *value);
void record_u64(struct record *r, const char *key, uint64_t value);
void record_end(struct record *r); /* print it */

/*
 * A record's struct and its printing, both from its abi.h field list:
 * RECORD_STRUCT(result, FPULAB_RESULT_FIELDS) declares struct result;
 * RECORD_PRINT(FPULAB_REC_RESULT, FPULAB_RESULT_FIELDS, &res) prints it.
 */
#define RECORD_FIELD_S(f) const char *f;
#define RECORD_FIELD_U(f) uint64_t f;
#define RECORD_STRUCT(name, FIELDS)                    \
	struct name {                                  \
		FIELDS(RECORD_FIELD_S, RECORD_FIELD_U) \
	}
#define RECORD_PUT_S(f) record_str(&rec_, #f, rec_src_->f);
#define RECORD_PUT_U(f) record_u64(&rec_, #f, rec_src_->f);
#define RECORD_PRINT(kind, FIELDS, src)                     \
	do {                                                \
		const __typeof__(*(src)) *rec_src_ = (src); \
		struct record rec_;                         \
		record_begin(&rec_, kind);                  \
		FIELDS(RECORD_PUT_S, RECORD_PUT_U)          \
		record_end(&rec_);                          \
	} while (0)

RECORD_STRUCT(result, FPULAB_RESULT_FIELDS);       /* one run */
RECORD_STRUCT(hello, FPULAB_HELLO_FIELDS);         /* boot facts */
RECORD_STRUCT(skip, FPULAB_SKIP_FIELDS);           /* a configuration skipped */
RECORD_STRUCT(done, FPULAB_DONE_FIELDS);           /* the end */
RECORD_STRUCT(progress, FPULAB_PROGRESS_FIELDS);   /* a run going on */
RECORD_STRUCT(integrity, FPULAB_INTEGRITY_FIELDS); /* state lost or leaked */
RECORD_STRUCT(trace_rec, FPULAB_TRACE_FIELDS);     /* a run's trace buffers (fputrace.c) */

/* The optional fields of @r: not measured (not sent) until an experiment sets them. */
static inline void result_not_measured(struct result *r)
{
#define S(f) r->f = record_unset;
#define U(f) r->f = FPULAB_NOT_MEASURED;
	FPULAB_RESULT_OPTIONAL_FIELDS(S, U)
#undef S
#undef U
}

extern struct config cfg;
extern struct semaphore user_sems[MAX_USER_SEMS];
extern const char *const regset_names[REGSET_NR];
extern const char *const placement_names[PLACE_NR];
extern const char *const fp_names[FP_NR];

void experiment_main(void *unused);
void exp_mark(unsigned int which); /* SYS_MARK: open/close the measured window */
void exp_integrity_error(const void *report);
/*
 * exp_progress - the run going on has done @done of @target (in @unit, e.g.
 * "switches"): a progress record (abi.h), unless one was sent less than
 * FPULAB_PROGRESS_INTERVAL_S seconds of TSC time ago. Any CPU, any time
 * inside the window; cheap when it sends nothing (an RDTSC and a compare).
 */
void exp_progress(uint64_t done, uint64_t target, const char *unit);
void fill_counts(struct result *res); /* counters of the window just closed */
uint64_t exp_window_switches(void);   /* switches since MARK_START, summed over CPUs */

/* experiment.h: struct experiment, the table, option helpers. */
#include "experiment.h"

#endif
