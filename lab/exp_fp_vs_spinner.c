/* SPDX-License-Identifier: MIT */
/*
 * Experiment fp-vs-spinner (seed 000): an FP task doing a fixed amount of
 * work (user/fp_vs_spinner.c) and a spinner that never touches the FPU share
 * CPU 0; the timer switches between them every slice. The FP task uses the
 * FPU in every slice it runs, the spinner in none: the lab sorts prefetches
 * into useful and wasted by that.
 *
 * The window opens before either task exists and closes after both exited,
 * so it holds every slice of both. How many slices that is depends on the
 * host's speed (the APIC timer runs on host time under TCG): the record
 * gives them (fp_slices, slices) and docs/counts.md the counts in terms of
 * them.
 */
#include "cpu.h"
#include "lab.h"
#include "syscall.h"

#define SPINNER_DEFAULT_UNITS 4000
#define SPINNER_DEFAULT_SLICE_US 500

static struct spinner_shared shared;
static struct spinner_args args[2];

static void spinner_run(struct result *res, uint64_t units, uint32_t slice_ns)
{
	struct semaphore exited;
	uint32_t base_tick = tick_ns;

	sem_init(&exited, 0);
	shared.stop = 0;
	args[0] = (struct spinner_args){ .fp = true, .task = 1, .units = units, .shared = &shared };
	args[1] = (struct spinner_args){ .fp = false, .task = 2, .shared = &shared };
	tick_ns = slice_ns;
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
	res->round_trips = units; /* ticks per unit of FP work */
}

unsigned int fp_vs_spinner_experiment(void)
{
	unsigned int runs = 0;
	uint64_t units = parse_num(FPULAB_KEY_UNITS, SPINNER_DEFAULT_UNITS, 1000000000);
	uint64_t slice_us = parse_num(FPULAB_KEY_SLICE_US, SPINNER_DEFAULT_SLICE_US, 1000000);

	if (!units || slice_us < 10) {
		kprintf("error: fp-vs-spinner: units must be >= 1 and slice_us >= 10\n");
		qemu_exit(FPULAB_EXIT_PANIC);
	}
	for (uint64_t rep = 0; rep < cfg.repeat; rep++) {
		for (unsigned int p = 0; p < cfg.npolicies; p++) {
			struct result res = {
				.experiment = cfg.experiment,
				.policy = cfg.policies[p],
				.placement = "same-cpu",
				.fp_users = "one",
				.regset = "sse",
				.repeat = rep,
				.cpus = ncpus,
			};
			begin_run(cfg.policies[p]);
			spinner_run(&res, units, (uint32_t)(slice_us * 1000));
			print_result(&res);
			runs++;
		}
	}
	return runs;
}
