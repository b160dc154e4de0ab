/* SPDX-License-Identifier: MIT */
/* The lab: glue to libfpu, the timer, and the experiments. */
#ifndef LAB_LAB_H
#define LAB_LAB_H

#include "kernel.h"
#include "sched.h"
#include <fpu/fpu.h>

/* fpu_glue.c */
void lab_fpu_init(void);

/* main.c */
void timer_tick(void);
void timer_jitter(uint64_t seed);   /* non-zero: each tick 0.3..1.7 x tick_ns, seeded; 0: off */
uint64_t timer_user_preempts(void); /* ticks that preempted a ring-3 task, all CPUs */
extern uint32_t tick_ns;
extern bool timer_preempt;      /* false: the timer never preempts (slices end by yield or block) */
extern bool timer_whole_slices; /* true: each switch re-arms the timer for a full slice */

/* exp.c: the experiment controller and the measured window. */
#include "exp.h"
#include <fpulab/abi.h>

#define MAX_USER_SEMS 64
#define MAX_POLICIES 8

/* What every experiment shares from the command line; the rest is each
 * experiment's own (exp_NAME.c). */
struct config {
	const struct experiment *experiment;
	char policy_buf[128];
	const char *policies[MAX_POLICIES];
	unsigned int npolicies;
	uint64_t repeat;
};

/* One result record: the fields of FPULAB_RESULT_FIELDS. */
struct result {
#define S(n) const char *n;
#define U(n) uint64_t n;
	FPULAB_RESULT_FIELDS(S, U)
#undef S
#undef U
};

extern struct config cfg;
extern struct semaphore user_sems[MAX_USER_SEMS];
extern const char *const regset_names[REGSET_NR];
extern const char *const placement_names[PLACE_NR];
extern const char *const fp_names[FP_NR];

void experiment_main(void *unused);
void exp_mark(unsigned int which); /* SYS_MARK: open/close the measured window */
void exp_integrity_error(const void *report);
void fill_counts(struct result *res); /* counters of the window just closed */
uint64_t exp_window_switches(void);   /* switches since MARK_START, summed over CPUs */

/* experiment.h: struct experiment, the table, option helpers. */
#include "experiment.h"

#endif
