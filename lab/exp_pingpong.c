/* SPDX-License-Identifier: MIT */
/*
 * Experiment context-switch: two ring-3 tasks ping-pong through semaphores,
 * on one CPU or two, with FP in none, one or both, for each register set.
 */
#include "exp.h"
#include "cpu.h"
#include "lab.h"

static struct pingpong_args pp_args[2];

static void context_switch_run(struct result *res, enum placement pl, enum fp_users fp,
			       enum regset rs)
{
	struct semaphore exited;
	unsigned int cpu_b = pl == PLACE_SAME_CPU ? 0 : 1;

	sem_init(&exited, 0);
	sem_init(&user_sems[0], 0);
	sem_init(&user_sems[1], 0);
	for (unsigned int r = 0; r < 2; r++)
		pp_args[r] = (struct pingpong_args){
			.role = r,
			.task = r + 1,
			.fp = fp == FP_BOTH || (fp == FP_ONE && r == 0),
			.regset = rs,
			.sem_mine = r,
			.sem_other = 1 - r,
			.warmup = cfg.warmup,
			.round_trips = cfg.round_trips,
			.migrate = pl == PLACE_MIGRATING,
		};
	/* An FP user touches the FPU in every slice, except those that begin
	 * with a migration: there, prefetches are not sorted. */
	for (unsigned int r = 0; r < 2; r++)
		task_create_user_fp(r ? "pong" : "ping", pingpong_main, &pp_args[r], r ? cpu_b : 0,
				    &exited,
				    pl == PLACE_MIGRATING ? FP_SLICES_UNKNOWN
				    : pp_args[r].fp       ? FP_SLICES_ALL
							  : 0);
	sem_down(&exited);
	sem_down(&exited);
	fill_counts(res);
	res->round_trips = cfg.round_trips;
	res->tasks = 2;
}

unsigned int context_switch_experiment(void)
{
	unsigned int runs = 0;
	for (int pl = 0; pl < PLACE_NR; pl++) {
		if (!cfg.placement[pl])
			continue;
		if (pl != PLACE_SAME_CPU && ncpus < 2) {
			kprintf("warning: context-switch: %s needs 2 CPUs, skipped\n",
				placement_names[pl]);
			continue;
		}
		for (int fp = 0; fp < FP_NR; fp++) {
			if (!cfg.fp[fp])
				continue;
			for (int rs = 0; rs < REGSET_NR; rs++) {
				if (!cfg.regset[rs])
					continue;
				if (rs == REGSET_AVX &&
				    !(xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM))) {
					kprintf("warning: context-switch: this CPU has no AVX state, avx skipped\n");
					continue;
				}
				for (uint64_t rep = 0; rep < cfg.repeat; rep++) {
					for (unsigned int p = 0; p < cfg.npolicies; p++) {
						struct result res = {
							.experiment = cfg.experiment,
							.policy = cfg.policies[p],
							.placement = placement_names[pl],
							.fp_users = fp_names[fp],
							.regset = regset_names[rs],
							.repeat = rep,
							.cpus = ncpus,
						};
						begin_run(cfg.policies[p]);
						context_switch_run(&res, pl, fp, rs);
						print_result(&res);
						runs++;
					}
				}
			}
		}
	}
	return runs;
}
