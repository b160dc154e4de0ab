/* SPDX-License-Identifier: MIT */
/*
 * Experiment context-switch: two ring-3 tasks ping-pong through semaphores,
 * on one CPU or two, with FP in none, one or both, for each register set.
 * Configurations: placement x fp users x register set, in that order.
 */
#include "cpu.h"
#include "experiment.h"

#define WARMUP 16 /* round trips before the window opens */

/* Its settings (FPULAB_OPTIONS: placement, fp, regset, rt). */
static struct {
	bool placement[PLACE_NR], fp[FP_NR], regset[REGSET_NR];
	uint64_t round_trips;
	unsigned int nconfigs;
	struct config_id {
		unsigned char pl, fp, rs;
	} configs[PLACE_NR * FP_NR * REGSET_NR];
} cs;

static struct context_switch_args args[2];

static void cs_parse(void)
{
	exp_set(FPULAB_OPT_placement, cs.placement, PLACE_NR);
	exp_set(FPULAB_OPT_fp_users, cs.fp, FP_NR);
	exp_set(FPULAB_OPT_regset, cs.regset, REGSET_NR);
	cs.round_trips = exp_num(FPULAB_OPT_round_trips,
				 fpulab_options[FPULAB_OPT_round_trips].dflt);
	cs.nconfigs = 0;
	for (unsigned char pl = 0; pl < PLACE_NR; pl++)
		for (unsigned char fp = 0; fp < FP_NR; fp++)
			for (unsigned char rs = 0; rs < REGSET_NR; rs++)
				if (cs.placement[pl] && cs.fp[fp] && cs.regset[rs])
					cs.configs[cs.nconfigs++] = (struct config_id){ pl, fp,
											rs };
}

static unsigned int cs_configs(void)
{
	return cs.nconfigs;
}

static const char *cs_label(unsigned int config, struct result *res)
{
	const struct config_id *c = &cs.configs[config];

	res->placement = placement_names[c->pl];
	res->fp_users = fp_names[c->fp];
	res->regset = regset_names[c->rs];
	if (c->pl != PLACE_SAME_CPU && ncpus < 2)
		return "needs-2-cpus";
	if (c->rs == REGSET_AVX && !(xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM)))
		return "no-avx-state";
	return NULL;
}

static void cs_run(unsigned int config, struct result *res)
{
	const struct config_id *c = &cs.configs[config];
	struct semaphore exited;
	unsigned int cpu_b = c->pl == PLACE_SAME_CPU ? 0 : 1;

	sem_init(&exited, 0);
	sem_init(&user_sems[0], 0);
	sem_init(&user_sems[1], 0);
	for (unsigned int r = 0; r < 2; r++)
		args[r] = (struct context_switch_args){
			.role = r,
			.task = r + 1,
			.fp = c->fp == FP_BOTH || (c->fp == FP_ONE && r == 0),
			.regset = c->rs,
			.sem_mine = r,
			.sem_other = 1 - r,
			.warmup = WARMUP,
			.round_trips = cs.round_trips,
			.migrate = c->pl == PLACE_MIGRATING,
		};
	/* Every switch is a block or a wake, as the exact counts assume: a tick
	 * may not preempt a task while the other is runnable. */
	WRITE_ONCE(timer_preempt, false);
	/* An FP user touches the FPU in every slice, except those that begin
	 * with a migration: there, prefetches are not sorted. */
	for (unsigned int r = 0; r < 2; r++)
		task_create_user_fp(r ? "pong" : "ping", context_switch_main, &args[r],
				    r ? cpu_b : 0, &exited,
				    c->pl == PLACE_MIGRATING ? FP_SLICES_UNKNOWN
				    : args[r].fp             ? FP_SLICES_ALL
							     : 0);
	sem_down(&exited);
	sem_down(&exited);
	WRITE_ONCE(timer_preempt, true);
	fill_counts(res);
	res->round_trips = cs.round_trips;
	res->tasks = 2;
}

const struct experiment context_switch_experiment = {
	.id = FPULAB_EXP_context_switch,
	.parse = cs_parse,
	.configs = cs_configs,
	.label = cs_label,
	.run = cs_run,
};
