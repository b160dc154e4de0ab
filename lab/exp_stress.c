/* SPDX-License-Identifier: MIT */
/*
 * Experiment stress: T ring-3 tasks (user/stress.c) spread over every CPU
 * keep patterns in every FPU component and check them while they block,
 * wake, yield, migrate, spin under a jittered timer, make kernel-mode FPU
 * syscalls and now and then exit, to be replaced by a new task that checks
 * it starts clean. One kernel thread per CPU runs kernel-mode FPU sections
 * between them. Any pattern or checksum that comes back wrong is an
 * integrity error.
 *
 * A run: the tasks start and wait at a barrier; the window opens; the
 * controller sleeps on @events, upped by every task exit (it starts the
 * successor) and once by the kernel thread that sees the window reach the
 * target switches (it sets stop). Then the controller wakes every task once
 * (see user/stress.c for why that suffices) and the window closes when every
 * task has exited: @events is upped once per task created, plus the stop.
 */
#include "apic.h"
#include "cpu.h"
#include "experiment.h"
#include "kfpu.h"
#include "signal.h"
#include "syscall.h"

#define STRESS_TICK_NS 20000 /* base time slice; each tick is 0.3..1.7 x this */
#define SEM_READY STRESS_MAX_TASKS
#define SEM_GO (STRESS_MAX_TASKS + 1)
_Static_assert(SEM_GO < MAX_USER_SEMS, "user_sems");

static struct stress_shared shared;
static struct stress_args args[STRESS_MAX_TASKS];
static struct kfpu_worker workers[FPULAB_MAX_CPUS];
static struct semaphore events, workers_done;
static volatile int window_open, workers_stop;
static uint64_t seed, target; /* its settings: seed, switches, tasks */
static struct x87_ptrs scrub;
static unsigned int ntasks;
static uint64_t replaced;     /* tasks replaced in the last run */
static struct sig_counts sig; /* signal counts of the last run */

/* Kernel threads call this between sections: say how far the run got; end it at the target. */
static void stress_poll(void)
{
	uint64_t done;

	if (!READ_ONCE(window_open) || READ_ONCE(shared.stop))
		return;
	done = exp_window_switches();
	exp_progress(done, target, "switches");
	if (done < target)
		return;
	if (!__atomic_exchange_n(&shared.stop, 1, __ATOMIC_SEQ_CST))
		sem_up(&events);
}

static void spawn(unsigned int task, unsigned int gen, bool ymm)
{
	args[task] = (struct stress_args){
		.task = task,
		.gen = gen,
		.ntasks = ntasks,
		.ncpus = ncpus,
		.ymm = ymm,
		.seed = seed,
		.sem_ready = SEM_READY,
		.sem_go = SEM_GO,
		.shared = &shared,
		.spin_short = STRESS_TICK_NS / 4 * tsc_khz / 1000000 + 1,
		.spin_long = 3 * STRESS_TICK_NS * tsc_khz / 1000000 + 1,
		.spin_check = STRESS_TICK_NS / 2 * tsc_khz / 1000000 + 1,
		.scrub = scrub,
		.pkru = xstate_cfg.pkru,
		.pkru_offset = xstate_cfg.pkru ? xstate_cfg.comp[XFEATURE_PKRU].std_offset : 0,
	};
	/* A successor starts where task % ncpus did, so it may meet its predecessor's registers. */
	task_create_user("stress", stress_main, &args[task], task % ncpus, &events);
}

/* Every task that left with a spoiled frame or no room for one was killed, and no other. */
static void check_kills(const struct sig_counts *a, const struct sig_counts *b)
{
	uint64_t kills = b->kills - a->kills;
	if (kills != shared.bad_frames) {
		struct integrity_report r = {
			.count = 1,
			.regset = REPORT_SIGNAL,
			.reg = 5,
			.expected = shared.bad_frames,
			.got = kills,
		};
		exp_integrity_error(&r);
	}
}

static void stress_window(struct result *res, struct sig_counts *sig)
{
	bool ymm = xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM);
	uint64_t created = ntasks, ups = 0;
	struct sig_counts before;

	sem_init(&events, 0);
	sem_init(&workers_done, 0);
	for (unsigned int i = 0; i < MAX_USER_SEMS; i++)
		sem_init(&user_sems[i], 0);
	memset(&shared, 0, sizeof(shared));
	window_open = 0;
	workers_stop = 0;

	uint32_t base_tick = tick_ns;
	tick_ns = STRESS_TICK_NS;
	timer_jitter(seed);
	for (unsigned int c = 0; c < ncpus; c++) {
		workers[c] = (struct kfpu_worker){
			.stop = &workers_stop,
			.poll = stress_poll,
			.done = &workers_done,
			.seed = seed * 31 + c + 1,
			.id = c,
		};
		task_create_kthread("kfpu", kfpu_worker_main, &workers[c], c);
	}
	for (unsigned int i = 0; i < ntasks; i++)
		spawn(i, 0, ymm);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_down(&user_sems[SEM_READY]);
	signal_counts(&before);
	exp_mark(MARK_START);
	WRITE_ONCE(window_open, 1);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_up(&user_sems[SEM_GO]);

	/* A task sets exiting[] before it exits, so a scan may find it before
	 * its up arrives; the successor then starts early, which is harmless. */
	for (;;) {
		sem_down(&events);
		ups++;
		if (READ_ONCE(shared.stop))
			break;
		for (unsigned int i = 0; i < ntasks; i++) {
			if (READ_ONCE(shared.exiting[i])) {
				shared.exiting[i] = 0;
				spawn(i, args[i].gen + 1, ymm);
				created++;
			}
		}
	}
	for (unsigned int i = 0; i < ntasks; i++)
		sem_up(&user_sems[i]);
	for (; ups < created + 1; ups++)
		sem_down(&events);
	exp_mark(MARK_END);
	signal_counts(sig);
	check_kills(&before, sig);
	sig->sent -= before.sent;
	sig->delivered -= before.delivered;
	sig->sigreturns -= before.sigreturns;
	sig->ptrace_reads -= before.ptrace_reads;
	sig->ptrace_writes -= before.ptrace_writes;
	sig->ptrace_busy -= before.ptrace_busy;
	sig->kills -= before.kills;
	sig->window_moves -= before.window_moves;

	WRITE_ONCE(workers_stop, 1);
	for (unsigned int c = 0; c < ncpus; c++)
		sem_down(&workers_done);
	timer_jitter(0);
	tick_ns = base_tick;
	fill_counts(res);
	res->tasks = ntasks;
	res->signals = sig->delivered;
	res->sigreturns = sig->sigreturns;
	res->ptrace_reads = sig->ptrace_reads;
	res->ptrace_writes = sig->ptrace_writes;
	res->kills = sig->kills;
	replaced = created - ntasks;
}

_Static_assert(4 * FPULAB_MAX_CPUS <= STRESS_MAX_TASKS, "the default of 4 tasks per CPU fits");

static void stress_parse(void)
{
	seed = exp_num(FPULAB_OPT_seed, fpulab_options[FPULAB_OPT_seed].dflt);
	ntasks = (unsigned int)exp_num(FPULAB_OPT_tasks, 4 * (uint64_t)ncpus);
	target = exp_num(FPULAB_OPT_switches, fpulab_options[FPULAB_OPT_switches].dflt);
	kfpu_probe_scrub(&scrub);
	kprintf("stress: seed=%lu tasks=%u switches=%lu kernel checksum with %s\n", seed, ntasks,
		target, kfpu_uses_avx2() ? "avx2" : "sse2");
}

/* One configuration: every task in every register set, on every CPU. */
static unsigned int stress_configs(void)
{
	return 1;
}

static const char *stress_label(unsigned int config, struct result *res)
{
	res->placement = "-";
	res->fp_users = "all";
	res->regset = "all";
	return NULL;
}

static void stress_run(unsigned int config, struct result *res)
{
	uint64_t preempts = timer_user_preempts();

	stress_window(res, &sig);
	kprintf("stress: %s: %lu switches, %lu timer preemptions of ring-3 tasks, %lu tasks replaced\n",
		res->policy, res->switches, timer_user_preempts() - preempts, replaced);
	kprintf("stress: %s: signals %lu sent, %lu delivered, %lu sigreturns, %lu tasks killed (as planned: %lu), ptrace %lu reads, %lu writes, %lu given up, %lu moves inside the windows\n",
		res->policy, sig.sent, sig.delivered, sig.sigreturns, sig.kills,
		(uint64_t)shared.bad_frames, sig.ptrace_reads, sig.ptrace_writes, sig.ptrace_busy,
		sig.window_moves);
}

const struct experiment stress_experiment = {
	.id = FPULAB_EXP_stress,
	.parse = stress_parse,
	.configs = stress_configs,
	.label = stress_label,
	.run = stress_run,
};
