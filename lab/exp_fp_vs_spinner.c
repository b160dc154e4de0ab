/* SPDX-License-Identifier: MIT */
/*
 * Experiment fp-vs-spinner (seed 000): an FP task doing a fixed amount of
 * work (user/fp_vs_spinner.c) and a spinner that never touches the FPU share
 * CPU 0; the timer switches between them every slice. The FP task uses the
 * FPU in every slice it runs, the spinner in none: the lab sorts prefetches
 * into useful and wasted by that. One configuration.
 *
 * The window opens before either task exists and closes after both exited,
 * so it holds every slice of both. How many slices that is depends on the
 * clock (the APIC timer runs on host time under TCG, on instructions under
 * --icount): the record gives them (fp_slices, slices) and docs/counts.md
 * the counts in terms of them.
 */
#include "cpu.h"
#include "experiment.h"
#include "syscall.h"

static struct {
	uint64_t units, slice_us;
} opt;

static struct spinner_shared shared;
static struct spinner_args args[2];

static void spinner_parse(void)
{
	opt.units = exp_num(FPULAB_OPT_units, fpulab_options[FPULAB_OPT_units].dflt);
	opt.slice_us = exp_num(FPULAB_OPT_slice_us, fpulab_options[FPULAB_OPT_slice_us].dflt);
}

static unsigned int spinner_configs(void)
{
	return 1;
}

static const char *spinner_label(unsigned int config, struct result *res)
{
	res->placement = "same-cpu";
	res->fp_users = "one";
	res->regset = "sse";
	return NULL;
}

static void spinner_run(unsigned int config, struct result *res)
{
	struct semaphore exited;
	uint32_t base_tick = tick_ns;

	sem_init(&exited, 0);
	shared.stop = 0;
	args[0] = (struct spinner_args){
		.fp = true, .task = 1, .units = opt.units, .shared = &shared
	};
	args[1] = (struct spinner_args){ .fp = false, .task = 2, .shared = &shared };
	tick_ns = (uint32_t)(opt.slice_us * 1000);
	WRITE_ONCE(timer_whole_slices, true);
	exp_mark(MARK_START);
	task_create_user_fp("fp", spinner_main, &args[0], 0, &exited, FP_SLICES_ALL);
	task_create_user_fp("spinner", spinner_main, &args[1], 0, &exited, 0);
	sem_down(&exited);
	sem_down(&exited);
	exp_mark(MARK_END);
	WRITE_ONCE(timer_whole_slices, false);
	tick_ns = base_tick;
	fill_counts(res);
	res->tasks = 2;
	res->round_trips = opt.units; /* ticks per unit of FP work */
}

const struct experiment fp_vs_spinner_experiment = {
	.id = FPULAB_EXP_fp_vs_spinner,
	.parse = spinner_parse,
	.configs = spinner_configs,
	.label = spinner_label,
	.run = spinner_run,
};
