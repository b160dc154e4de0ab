/* SPDX-License-Identifier: MIT */
/*
 * Experiment short-tasks (seed 002: "with certain workloads (like boot,
 * kernel-compilation etc), application completes its work with in the
 * first 5 task switches, thus taking upto 5 #DNA traps with the kernel not
 * getting a chance to apply the above mentioned pre-load heuristic").
 *
 * tasks_total short-lived ring-3 tasks (user/short_tasks.c), at most
 * concurrency per CPU at a time, spread over every CPU. Each runs its slices
 * and uses SSE in the first fp_slices of them; with mix=boot|build each
 * task draws its own from a fixed distribution (docs/counts.md), seeded.
 * Each CPU also runs a companion that never uses the FPU, so that every
 * slice ends in a switch. The timer does not preempt during the run: a slice
 * ends where the task yields, so the task knows its slice number and the
 * counts are exact. When a task exits, the controller starts the next one on
 * the same CPU. One configuration; the record's placement column names the
 * mix (fixed, boot or build).
 */
#include "cpu.h"
#include "experiment.h"
#include "syscall.h"

#define SHORT_MAX_LIVE 64 /* tasks alive at once, all CPUs */

enum mix {
#define MIX_ID(id, name) MIX_##id,
	FPULAB_MIXES(MIX_ID)
#undef MIX_ID
		MIX_NR
};

static struct {
	uint64_t total, concurrency, slices, fp_slices, seed;
	enum mix mix;
} opt;

static struct short_args args[SHORT_MAX_LIVE], companion_args[FPULAB_MAX_CPUS];
static int slot_cpu[SHORT_MAX_LIVE], slot_busy[SHORT_MAX_LIVE];
static int companion_stop;
static uint64_t rng;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* A task's slices and FP slices: the options, or a draw from the mix. */
static void draw(uint64_t *slices, uint64_t *fp)
{
	uint64_t r = next_rand();

	switch (opt.mix) {
	case MIX_boot: /* tiny: 1..4 slices, SSE in 0..all of them */
		*slices = 1 + r % 4;
		*fp = (r >> 8) % (*slices + 1);
		break;
	case MIX_build: /* 7 in 8: 2..8 slices, SSE in 1..all; 1 in 8: 32..64, all SSE */
		if ((r >> 16) % 8) {
			*slices = 2 + r % 7;
			*fp = 1 + (r >> 8) % *slices;
		} else {
			*slices = 32 + r % 33;
			*fp = *slices;
		}
		break;
	default:
		*slices = opt.slices;
		*fp = opt.fp_slices;
		break;
	}
}

/* Start task number @n in the free slot @slot on @cpu. */
static void spawn(unsigned int slot, unsigned int cpu, uint64_t n, struct semaphore *exited)
{
	uint64_t slices, fp;

	draw(&slices, &fp);
	args[slot] = (struct short_args){ .task = (unsigned int)(n + 1) & 0xfff,
					  .slices = slices,
					  .fp_slices = fp };
	slot_cpu[slot] = (int)cpu;
	slot_busy[slot] = 1;
	task_create_user_fp("short", short_main, &args[slot], cpu, exited, fp);
}

static unsigned int free_slot(void)
{
	for (unsigned int i = 0; i < SHORT_MAX_LIVE; i++)
		if (!slot_busy[i])
			return i;
	panic("short-tasks: no free slot");
}

static void short_run(struct result *res)
{
	struct semaphore exited, companions_done;
	uint64_t started = 0, done = 0;
	unsigned int per_cpu[FPULAB_MAX_CPUS] = { 0 };

	sem_init(&exited, 0);
	sem_init(&companions_done, 0);
	companion_stop = 0;
	rng = opt.seed * 0x9e3779b97f4a7c15ull | 1;
	memset(slot_busy, 0, sizeof(slot_busy));
	WRITE_ONCE(timer_preempt, false);
	for (unsigned int c = 0; c < ncpus; c++) {
		companion_args[c] = (struct short_args){ .stop = &companion_stop };
		task_create_user_fp("companion", companion_main, &companion_args[c], c,
				    &companions_done, 0);
	}
	exp_mark(MARK_START);
	for (unsigned int k = 0; k < opt.concurrency; k++)
		for (unsigned int c = 0; c < ncpus && started < opt.total; c++, started++) {
			spawn((unsigned int)started, c, started, &exited);
			per_cpu[c]++;
		}
	/* Each exit frees a place on the exited task's CPU: start the next there.
	 * A task sets its done flag just before it exits, then ups @exited. */
	while (done < opt.total) {
		sem_down(&exited);
		done++;
		for (unsigned int i = 0; i < SHORT_MAX_LIVE; i++)
			if (slot_busy[i] && READ_ONCE(args[i].done)) {
				slot_busy[i] = 0;
				per_cpu[slot_cpu[i]]--;
			}
		for (unsigned int c = 0; c < ncpus; c++)
			while (per_cpu[c] < opt.concurrency && started < opt.total) {
				spawn(free_slot(), c, started++, &exited);
				per_cpu[c]++;
			}
	}
	exp_mark(MARK_END);
	WRITE_ONCE(companion_stop, 1);
	for (unsigned int c = 0; c < ncpus; c++)
		sem_down(&companions_done);
	WRITE_ONCE(timer_preempt, true);
	fill_counts(res);
	res->tasks = opt.total;
	res->round_trips = opt.total; /* ticks per task */
}

static void short_parse(void)
{
	opt.total = exp_num(FPULAB_OPT_tasks_total, fpulab_options[FPULAB_OPT_tasks_total].dflt);
	opt.concurrency = exp_num(FPULAB_OPT_concurrency,
				  fpulab_options[FPULAB_OPT_concurrency].dflt);
	opt.slices = exp_num(FPULAB_OPT_slices, fpulab_options[FPULAB_OPT_slices].dflt);
	opt.fp_slices = exp_num(FPULAB_OPT_fp_slices, fpulab_options[FPULAB_OPT_fp_slices].dflt);
	opt.seed = exp_num(FPULAB_OPT_seed, fpulab_options[FPULAB_OPT_seed].dflt);
	opt.mix = (enum mix)exp_word(FPULAB_OPT_mix, MIX_fixed);
	if (opt.fp_slices > opt.slices) {
		kprintf("error: short-tasks: fp_slices %lu > slices %lu\n", opt.fp_slices,
			opt.slices);
		qemu_exit(FPULAB_EXIT_PANIC);
	}
}

static unsigned int short_configs(void)
{
	return 1;
}

static const char *short_label(unsigned int config, struct result *res)
{
	res->placement = fpulab_names_mixes[opt.mix];
	res->fp_users = "all";
	res->regset = "sse";
	return NULL;
}

static void short_run_config(unsigned int config, struct result *res)
{
	short_run(res);
}

const struct experiment short_tasks_experiment = {
	.id = FPULAB_EXP_short_tasks,
	.parse = short_parse,
	.configs = short_configs,
	.label = short_label,
	.run = short_run_config,
};
