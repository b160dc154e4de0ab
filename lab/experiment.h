/* SPDX-License-Identifier: MIT */
/*
 * One experiment of the lab: what the shared loop in exp.c needs to run it.
 * The loop runs, for every configuration the experiment chose, repeat x
 * policies runs interleaved A B A B (each run between two quiescent points),
 * and prints one result record per run. Its name, summary, options and main
 * figure are its FPULAB_EXPERIMENTS entry in abi.h (experiment_abi()).
 * How to add one: docs/lab.md.
 */
#ifndef LAB_EXPERIMENT_H
#define LAB_EXPERIMENT_H

#include "lab.h"

struct experiment {
	enum fpulab_experiment_id id; /* abi.h: name, summary, repeat, figure */
	bool one_policy;              /* measures nothing of libfpu: only the first policy runs */
	/* Read its own options (exp_num(), exp_set()); called once, before any run. */
	void (*parse)(void);
	/* How many configurations parse() chose. */
	unsigned int (*configs)(void);
	/*
	 * Label configuration @config in @res (placement, fp_users, regset).
	 * Returns NULL, or why this machine cannot run it, one word of abi.h's
	 * skip record ("needs-2-cpus"): the loop then sends a skip record.
	 */
	const char *(*label)(unsigned int config, struct result *res);
	/* One run of @config under the current policy: fill @res's counts. */
	void (*run)(unsigned int config, struct result *res);
};

static inline const struct fpulab_experiment *experiment_abi(const struct experiment *e)
{
	return &fpulab_experiments[e->id];
}

/* The table (exp.c), one line per experiment. */
extern const struct experiment context_switch_experiment;  /* exp_context_switch.c */
extern const struct experiment stress_experiment;          /* exp_stress.c */
extern const struct experiment fp_vs_spinner_experiment;   /* exp_fp_vs_spinner.c */
extern const struct experiment short_tasks_experiment;     /* exp_short_tasks.c */
extern const struct experiment kernel_checksum_experiment; /* exp_kernel_checksum.c */
extern const struct experiment sleeping_lock_experiment;   /* exp_sleeping_lock.c */
extern const struct experiment costs_experiment;           /* exp_costs.c */
/* exp_costs.c: SYS_COSTS_TS, and the #NM handler's probe (true: it was the probe's). */
long costs_set_ts(uint64_t trap);
bool costs_nm_probe(void);

/*
 * Options, checked against their abi.h entry (FPULAB_OPTIONS): a bad value
 * ends the kernel with an error line. exp_num: the value, or @dflt when the
 * key is absent. exp_set: the names of a LIST into @set (absent: all).
 */
uint64_t exp_num(enum fpulab_option_id id, uint64_t dflt);
void exp_set(enum fpulab_option_id id, bool *set, unsigned int n);
/* A WORD option: its index in the option's choices, or @dflt when absent. */
unsigned int exp_word(enum fpulab_option_id id, unsigned int dflt);

#endif
