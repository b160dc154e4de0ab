/* SPDX-License-Identifier: MIT */
/*
 * Experiment stress: T ring-3 tasks (user/stress.c) spread over every CPU
 * keep patterns in every FPU component and check them while they block,
 * wake, yield, migrate, spin under a jittered timer, and make kernel-mode
 * FPU syscalls; one kernel thread per CPU runs kernel-mode FPU sections
 * between them. Any pattern or checksum that comes back wrong is an
 * integrity error.
 *
 * A run: tasks start and wait at a barrier; the window opens; the kernel
 * threads watch the window's switch count and, at the target, set stop and
 * wake the controller, which wakes every task once (see user/stress.c for
 * why that suffices); the window closes when every task has exited.
 */
#include "apic.h"
#include "cpu.h"
#include "kfpu.h"
#include "lab.h"
#include "syscall.h"

#define STRESS_TICK_NS 20000 /* base time slice; each tick is 0.3..1.7 x this */
#define SEM_READY (MAX_USER_SEMS - 2)
#define SEM_GO (MAX_USER_SEMS - 1)
#define MAX_STRESS_TASKS SEM_READY /* user_sems[task] is the task's own */

static struct stress_shared shared;
static struct stress_args args[MAX_STRESS_TASKS];
static struct kfpu_worker workers[MAX_CPUS];
static struct semaphore stop_sem, exited, workers_done;
static volatile int window_open, workers_stop;
static uint64_t seed, target;
static unsigned int ntasks;

/* Kernel threads call this between sections: end the run at the target. */
static void stress_poll(void)
{
	if (!READ_ONCE(window_open) || READ_ONCE(shared.stop) || exp_window_switches() < target)
		return;
	if (!__atomic_exchange_n(&shared.stop, 1, __ATOMIC_SEQ_CST))
		sem_up(&stop_sem);
}

static void stress_run(struct result *res)
{
	bool ymm = xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM);

	sem_init(&stop_sem, 0);
	sem_init(&exited, 0);
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
			.stop = &workers_stop, .poll = stress_poll, .done = &workers_done,
			.seed = seed * 31 + c + 1, .id = c,
		};
		task_create_kthread("kfpu", kfpu_worker_main, &workers[c], c);
	}
	for (unsigned int i = 0; i < ntasks; i++) {
		args[i] = (struct stress_args){
			.task = i, .ntasks = ntasks, .ncpus = ncpus, .ymm = ymm, .seed = seed,
			.sem_ready = SEM_READY, .sem_go = SEM_GO, .shared = &shared,
			.spin_short = STRESS_TICK_NS / 4 * tsc_khz / 1000000 + 1,
			.spin_long = 3 * STRESS_TICK_NS * tsc_khz / 1000000 + 1,
			.spin_check = STRESS_TICK_NS / 2 * tsc_khz / 1000000 + 1,
		};
		task_create_user("stress", stress_main, &args[i], i % ncpus, &exited);
	}
	for (unsigned int i = 0; i < ntasks; i++)
		sem_down(&user_sems[SEM_READY]);
	uint64_t preempts = timer_user_preempts();
	exp_mark(MARK_START);
	WRITE_ONCE(window_open, 1);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_up(&user_sems[SEM_GO]);

	sem_down(&stop_sem);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_up(&user_sems[i]);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_down(&exited);
	exp_mark(MARK_END);
	preempts = timer_user_preempts() - preempts;

	WRITE_ONCE(workers_stop, 1);
	for (unsigned int c = 0; c < ncpus; c++)
		sem_down(&workers_done);
	timer_jitter(0);
	tick_ns = base_tick;
	fill_counts(res);
	res->tasks = ntasks;
	kprintf("stress: %s: %lu switches, %lu of them timer preemptions of ring-3 tasks\n",
		res->policy, res->switches, preempts);
}

unsigned int stress_experiment(void)
{
	unsigned int runs = 0;
	/* A correctness test, not a measurement: one run per policy unless asked. */
	uint64_t repeat = parse_num(FPULAB_KEY_REPEAT, 1, 1000);

	seed = parse_num(FPULAB_KEY_SEED, 1, UINT64_MAX);
	ntasks = (unsigned int)parse_num(FPULAB_KEY_TASKS, 4 * ncpus, MAX_STRESS_TASKS);
	target = parse_num(FPULAB_KEY_SWITCHES, 200000, UINT64_MAX / 2);
	if (!ntasks)
		ntasks = 1;
	kprintf("stress: seed=%lu tasks=%u switches=%lu kernel checksum with %s\n", seed, ntasks,
		target, kfpu_uses_avx2() ? "avx2" : "sse2");
	for (uint64_t rep = 0; rep < repeat; rep++) {
		for (unsigned int p = 0; p < cfg.npolicies; p++) {
			struct result res = {
				.experiment = cfg.experiment,
				.policy = cfg.policies[p],
				.placement = "-",
				.fp_users = "all",
				.regset = "all",
				.repeat = rep,
				.cpus = ncpus,
			};
			begin_run(cfg.policies[p]);
			stress_run(&res);
			print_result(&res);
			runs++;
		}
	}
	return runs;
}
