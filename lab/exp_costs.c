/* SPDX-License-Identifier: MIT */
/*
 * Experiment costs: the three costs `fpulab replay` cannot run in user mode
 * (docs/model.md), measured here in TSC ticks per operation. One
 * configuration per cost:
 *
 *   nm-trap    ring 3 (user/costs.c): a system call sets CR0.TS, then an SSE
 *              instruction takes #NM; the handler only clears TS (CLTS) and
 *              returns, and the instruction runs again. Minus the same loop
 *              whose system call writes CR0 with TS clear (no trap).
 *   cr0-write  in the kernel, interrupts off: MOV to CR0 setting TS, then
 *              clearing it, N times (2N writes), minus N pairs of CR0 reads.
 *   ipi        CPU 0 sends a call IPI to CPU 1 (idle, halted), whose handler
 *              acknowledges; CPU 0 waits for the acknowledgement. N round
 *              trips, nothing subtracted. Needs 2 CPUs.
 *
 * None of them goes through libfpu, so only the first policy runs. The
 * timers are paused for the whole run: nothing else runs on any CPU.
 * The host converts ticks to ns with the guest's TSC rate (hello record).
 */
#include "apic.h"
#include "cpu.h"
#include "experiment.h"
#include "io.h"
#include "syscall.h"

#define COSTS_WARMUP 32 /* operations before each measured loop */

enum cost { COST_NM_TRAP, COST_CR0_WRITE, COST_IPI, COST_NR }; /* FPULAB_COSTS' order */

static struct {
	uint64_t ops;
	bool cost[COST_NR];
	unsigned int nconfigs;
	enum cost configs[COST_NR];
} opt;

static struct costs_args args;
static bool nm_armed[FPULAB_MAX_CPUS];      /* the next #NM from ring 3 is the probe's */
static uint64_t nm_probes[FPULAB_MAX_CPUS]; /* probe traps taken */

static void costs_parse(void)
{
	opt.ops = exp_num(FPULAB_OPT_round_trips, fpulab_options[FPULAB_OPT_round_trips].dflt);
	exp_set(FPULAB_OPT_cost, opt.cost, COST_NR);
	opt.nconfigs = 0;
	for (unsigned int c = 0; c < COST_NR; c++)
		if (opt.cost[c])
			opt.configs[opt.nconfigs++] = (enum cost)c;
}

static unsigned int costs_configs(void)
{
	return opt.nconfigs;
}

static const char *costs_label(unsigned int config, struct result *res)
{
	enum cost c = opt.configs[config];

	res->cost = fpulab_names_costs[c];
	res->placement = c == COST_IPI ? "cross-cpu" : "same-cpu";
	res->fp_users = c == COST_NM_TRAP ? "one" : "none";
	res->regset = c == COST_NM_TRAP ? "sse" : "none";
	return c == COST_IPI && ncpus < 2 ? "needs-2-cpus" : NULL;
}

long costs_set_ts(uint64_t trap)
{
	uint64_t cr0 = read_cr0();

	if (!trap) { /* the baseline: a CR0 write all the same */
		write_cr0(cr0 & ~CR0_TS);
		return 0;
	}
	nm_armed[this_cpu()->id] = true;
	write_cr0(cr0 | CR0_TS);
	return 0;
}

bool costs_nm_probe(void)
{
	unsigned int cpu = this_cpu()->id;

	if (!nm_armed[cpu])
		return false;
	nm_armed[cpu] = false;
	nm_probes[cpu]++;
	__asm__ volatile("clts" ::: "memory");
	return true;
}

static void run_nm_trap(struct result *res)
{
	struct semaphore exited;
	uint64_t probes = nm_probes[0];

	sem_init(&exited, 0);
	args = (struct costs_args){ .ops = opt.ops, .warmup = COSTS_WARMUP };
	task_create_user_fp("costs", costs_main, &args, 0, &exited, FP_SLICES_ALL);
	sem_down(&exited);
	fill_counts(res);
	res->nm_traps += nm_probes[0] - probes - COSTS_WARMUP;
	res->ticks = args.ticks > args.base_ticks ? args.ticks - args.base_ticks : 0;
	res->base_ticks = args.base_ticks;
	res->tasks = 1;
	res->round_trips = opt.ops;
}

static void run_cr0_write(struct result *res)
{
	uint64_t cr0 = read_cr0(), t0, t1, t2;

	for (unsigned int i = 0; i < COSTS_WARMUP; i++) {
		write_cr0(cr0 | CR0_TS);
		write_cr0(cr0 & ~CR0_TS);
	}
	exp_mark(MARK_START);
	t0 = rdtsc();
	for (uint64_t i = 0; i < opt.ops; i++) {
		write_cr0(cr0 | CR0_TS);
		write_cr0(cr0 & ~CR0_TS);
	}
	t1 = rdtsc();
	for (uint64_t i = 0; i < opt.ops; i++) {
		(void)read_cr0();
		(void)read_cr0();
	}
	t2 = rdtsc();
	exp_mark(MARK_END);
	write_cr0(cr0);
	fill_counts(res);
	res->ticks = t1 - t0 > t2 - t1 ? (t1 - t0) - (t2 - t1) : 0;
	res->base_ticks = t2 - t1;
	res->tasks = 0;
	res->round_trips = 2 * opt.ops; /* writes */
}

static void ipi_ack(void)
{
}

/* One call IPI to @c and the wait for its acknowledgement (smp_call_all's, for one CPU). */
static void ipi_round_trip(struct cpu *c)
{
	c->call_fn = ipi_ack;
	apic_send_ipi(c->apic_id, VEC_CALL);
	while (__atomic_load_n(&c->call_fn, __ATOMIC_ACQUIRE))
		cpu_relax();
}

static void run_ipi(struct result *res)
{
	uint64_t t0, t1;

	for (unsigned int i = 0; i < COSTS_WARMUP; i++)
		ipi_round_trip(cpus[1]);
	exp_mark(MARK_START);
	t0 = rdtsc();
	for (uint64_t i = 0; i < opt.ops; i++)
		ipi_round_trip(cpus[1]);
	t1 = rdtsc();
	exp_mark(MARK_END);
	fill_counts(res);
	res->ticks = t1 - t0;
	res->tasks = 0;
	res->round_trips = opt.ops;
}

static void costs_run(unsigned int config, struct result *res)
{
	timers_pause();
	switch (opt.configs[config]) {
	case COST_NM_TRAP:
		run_nm_trap(res);
		break;
	case COST_CR0_WRITE:
		run_cr0_write(res);
		break;
	default:
		run_ipi(res);
		break;
	}
	timers_resume();
}

const struct experiment costs_experiment = {
	.id = FPULAB_EXP_costs,
	.one_policy = true,
	.parse = costs_parse,
	.configs = costs_configs,
	.label = costs_label,
	.run = costs_run,
};
