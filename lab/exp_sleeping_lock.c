/* SPDX-License-Identifier: MIT */
/*
 * Experiment sleeping-lock (seed 001): N ring-3 tasks (user/sleeping_lock.c)
 * each create, close and unlink their own name in one tiny directory
 * (tinydir.c) whose lock is a sleeping lock (sleeplock.c). A run does a
 * fixed total of operations (one operation: open(O_CREAT|O_EXCL), close,
 * unlink) split over the tasks, so each row measures the same work, as the
 * seed's "average runtime" does. Rows: every task count, every variant of
 * the wait loop's state write (--state-api), every fp-users setting.
 *
 * Correctness, checked after every run (a failure fails the boot):
 * - the directory is empty and no file is open; it saw exactly ops creates,
 *   opens, closes and unlinks, no failed call, 2 x ops lock acquisitions and
 *   never two tasks inside the lock;
 * - no lost wake-up: CPU 0's timer watches the directory during the window,
 *   and SL_STALL_TICKS ticks without a finished call while tasks wait on
 *   the lock is reported with the waiting tasks, and ends the boot.
 *
 * Before its first run, each variant's wait loop is calibrated: one kernel
 * thread waits while the controller, holding the lock, wakes it K times
 * (each wake-up finds the lock taken: one pass and one schedule() round
 * trip), timers stopped on every CPU. The TSC difference between K2 and K1
 * wake-ups, divided by K2 - K1, is the cost of one pass plus the round
 * trip, which is the same code in every variant. Under --icount a TSC tick
 * is one instruction, so variants differ by exactly their instructions per
 * pass (docs/counts.md has the disassembly).
 */
#include "apic.h"
#include "cpu.h"
#include "experiment.h"
#include "io.h"
#include "sleeplock.h"
#include "smp.h"
#include "syscall.h"
#include "tinydir.h"

#define SL_MAX_TASKS FPULAB_MAX_TASKS
_Static_assert(FPULAB_MAX_TASKS <= TINYDIR_MAX, "a name per task");
#define SL_STALL_TICKS 2000 /* 2 s of guest time */
#define SL_CAL_K1 16
#define SL_CAL_K2 (SL_CAL_K1 + 256)
#define SEM_READY 0
#define SEM_GO 1

static struct sleeping_lock_args args[SL_MAX_TASKS];

/* ---- lost wake-up watchdog, on CPU 0's timer ---- */

static volatile int wd_armed;
static uint64_t wd_last, wd_stalled;

static uint64_t dir_progress(void)
{
	const struct tinydir_stats *s = tinydir_stats();
	return READ_ONCE(s->opens) + READ_ONCE(s->closes) + READ_ONCE(s->unlinks) +
	       READ_ONCE(s->failures);
}

static void sl_watchdog_tick(void)
{
	if (!READ_ONCE(wd_armed))
		return;
	uint64_t p = dir_progress();
	if (p != wd_last || !READ_ONCE(tinydir_lock()->nr_waiters)) {
		wd_last = p;
		wd_stalled = 0;
		return;
	}
	if (++wd_stalled < SL_STALL_TICKS)
		return;
	kprintf("sleeping-lock: lost wake-up: no system call finished in %u timer ticks while tasks wait on the lock\n",
		SL_STALL_TICKS);
	sleeplock_print_waiters(tinydir_lock());
	panic("sleeping-lock: lost wake-up");
}

/* ---- calibration of the wait loops ---- */

static struct sleeplock cal_lock;
static struct semaphore cal_done;
static volatile uint64_t cal_t0, cal_t1;

static void cal_waiter(void *unused)
{
	cal_t0 = rdtsc();
	sleeplock_lock(&cal_lock);
	cal_t1 = rdtsc();
	sleeplock_unlock(&cal_lock);
	sem_up(&cal_done);
}

/* TSC ticks of one wait in @api's loop that is woken @k times in vain. */
static uint64_t cal_wait(enum state_api api, unsigned int k)
{
	sleeplock_init(&cal_lock, api);
	sem_init(&cal_done, 0);
	sleeplock_lock(&cal_lock);
	struct task *w = task_create_kthread("sl-cal", cal_waiter, NULL, 0);
	yield(); /* the waiter runs its first pass and blocks */
	for (unsigned int i = 0; i < k; i++) {
		wake_up(w);
		yield();
	}
	sleeplock_unlock(&cal_lock);
	sem_down(&cal_done);
	if (cal_lock.stats.passes != k + 2 || cal_lock.stats.wake_retaken != k)
		panic("sleeping-lock: calibration of %s: %lu passes, %lu wake-ups found it taken, expected %u and %u",
		      state_api_names[api], cal_lock.stats.passes, cal_lock.stats.wake_retaken,
		      k + 2, k);
	return cal_t1 - cal_t0;
}

/* TSC ticks of SL_CAL_K2 - SL_CAL_K1 passes, with their schedule() round trips. */
static uint64_t calibrate(enum state_api api)
{
	timers_pause();
	cal_wait(api, SL_CAL_K1); /* warm-up: TCG translates the code on first use */
	uint64_t a = cal_wait(api, SL_CAL_K1);
	uint64_t b = cal_wait(api, SL_CAL_K2);
	timers_resume();
	return b > a ? b - a : 0;
}

/* ---- one run ---- */

static void check(bool ok, const char *what, uint64_t got, uint64_t want)
{
	if (!ok)
		panic("sleeping-lock: %s: %lu, expected %lu", what, got, want);
}

/* The directory and its lock after a run: exactly what @ops operations imply. */
static void check_run(uint64_t ops, unsigned int ntasks)
{
	const struct tinydir_stats *d = tinydir_stats();
	const struct sleeplock_stats *s = &tinydir_lock()->stats;
	uint64_t user_errors = 0;

	for (unsigned int i = 0; i < ntasks; i++)
		user_errors += args[i].errors;
	check(tinydir_names() == 0, "names left in the directory", tinydir_names(), 0);
	check(tinydir_open_files() == 0, "files left open", tinydir_open_files(), 0);
	check(d->creates == ops, "creates", d->creates, ops);
	check(d->opens == ops, "opens", d->opens, ops);
	check(d->closes == ops, "closes", d->closes, ops);
	check(d->unlinks == ops, "unlinks", d->unlinks, ops);
	check(d->failures == 0, "failed system calls (kernel)", d->failures, 0);
	check(user_errors == 0, "failed system calls (tasks)", user_errors, 0);
	check(s->acquisitions == 2 * ops, "lock acquisitions", s->acquisitions, 2 * ops);
	check(s->exclusion_errors == 0, "two tasks inside the lock", s->exclusion_errors, 0);
	check(s->passes == s->contended + s->sleeps, "wait-loop passes", s->passes,
	      s->contended + s->sleeps);
	check(READ_ONCE(tinydir_lock()->nr_waiters) == 0, "waiters left",
	      tinydir_lock()->nr_waiters, 0);
}

static void sl_run_tasks(unsigned int ntasks, enum state_api api, enum fp_users fp, uint64_t ops)
{
	struct semaphore exited;

	tinydir_reset(api);
	sem_init(&exited, 0);
	sem_init(&user_sems[SEM_READY], 0);
	sem_init(&user_sems[SEM_GO], 0);
	for (unsigned int i = 0; i < ntasks; i++) {
		args[i] = (struct sleeping_lock_args){
			.task = i + 1,
			.fp = fp == FP_BOTH || (fp == FP_ONE && i == 0),
			.regset = REGSET_SSE,
			.ops = ops / ntasks + (i < ops % ntasks),
			.sem_ready = SEM_READY,
			.sem_go = SEM_GO,
		};
		ksnprintf(args[i].name, sizeof(args[i].name), "f%u", i);
		task_create_user("slock", sleeping_lock_main, &args[i], i % ncpus, &exited);
	}
	for (unsigned int i = 0; i < ntasks; i++)
		sem_down(&user_sems[SEM_READY]);
	exp_mark(MARK_START);
	wd_last = dir_progress();
	wd_stalled = 0;
	WRITE_ONCE(wd_armed, 1);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_up(&user_sems[SEM_GO]);
	for (unsigned int i = 0; i < ntasks; i++)
		sem_down(&exited);
	exp_mark(MARK_END);
	WRITE_ONCE(wd_armed, 0);
	check_run(ops, ntasks);
}

/* ---- the experiment table's interface ---- */

#define SL_MAX_COUNTS 3 /* task counts: 1, 2 and 4 x CPUs, or --tasks */

static struct {
	unsigned int counts[SL_MAX_COUNTS], ncounts;
	bool api[STATE_API_NR], fp[FP_NR];
	uint64_t ops;
	uint64_t drop_wakeup;
	bool calibrated[STATE_API_NR];
	uint64_t cal_ticks[STATE_API_NR];
	unsigned int nconfigs;
	struct sl_config {
		unsigned char count, api, fp;
	} configs[SL_MAX_COUNTS * STATE_API_NR * FP_NR];
} sl;

static void sl_parse(void)
{
	uint64_t n = exp_num(FPULAB_OPT_tasks, 0);
	if (n) {
		sl.counts[0] = (unsigned int)n;
		sl.ncounts = 1;
	} else {
		sl.ncounts = 0;
		for (unsigned int m = 1; m <= 4; m *= 2)
			sl.counts[sl.ncounts++] = m * ncpus;
	}
	exp_set(FPULAB_OPT_state_api, sl.api, STATE_API_NR);
	exp_set(FPULAB_OPT_fp_users, sl.fp, FP_NR);
	sl.ops = exp_num(FPULAB_OPT_ops, fpulab_options[FPULAB_OPT_ops].dflt);
	sl.drop_wakeup = exp_num(FPULAB_OPT_drop_wakeup, 0);
	sl.nconfigs = 0;
	for (unsigned char c = 0; c < sl.ncounts; c++)
		for (unsigned char a = 0; a < STATE_API_NR; a++)
			for (unsigned char f = 0; f < FP_NR; f++)
				if (sl.api[a] && sl.fp[f])
					sl.configs[sl.nconfigs++] = (struct sl_config){ c, a, f };
	timer_hook = sl_watchdog_tick;
}

static unsigned int sl_configs(void)
{
	return sl.nconfigs;
}

static const char *sl_label(unsigned int config, struct result *res)
{
	const struct sl_config *c = &sl.configs[config];
	unsigned int ntasks = sl.counts[c->count];

	res->placement = "-";
	res->fp_users = fp_names[c->fp];
	res->regset = c->fp == FP_NONE ? "-" : regset_names[REGSET_SSE];
	res->variant = state_api_names[c->api];
	res->tasks = ntasks;
	return NULL;
}

static void sl_run(unsigned int config, struct result *res)
{
	const struct sl_config *c = &sl.configs[config];
	unsigned int ntasks = sl.counts[c->count];
	const struct sleeplock_stats *s = &tinydir_lock()->stats;

	if (sl.drop_wakeup) {
#ifdef FPU_TESTING
		sleeplock_drop_wakeup = sl.drop_wakeup;
#else
		panic("sleeping-lock: drop-wakeup needs the test kernel (lab-test.elf)");
#endif
	}
	if (!sl.calibrated[c->api]) { /* once per boot, before its first run */
		sl.calibrated[c->api] = true;
		sl.cal_ticks[c->api] = calibrate((enum state_api)c->api);
		kprintf("sleeping-lock: %s: wait function %lu bytes; %u passes, each with a schedule() round trip: %lu TSC ticks\n",
			state_api_names[c->api], sleeplock_wait_bytes((enum state_api)c->api),
			SL_CAL_K2 - SL_CAL_K1, sl.cal_ticks[c->api]);
	}
	sl_run_tasks(ntasks, (enum state_api)c->api, (enum fp_users)c->fp, sl.ops);
	fill_counts(res);
	res->tasks = ntasks;
	res->round_trips = sl.ops; /* ticks per round trip: per operation */
	res->acquisitions = s->acquisitions;
	res->contended = s->contended;
	res->passes = s->passes;
	res->sleeps = s->sleeps;
	res->wakeups = s->wakeups;
	res->wake_retaken = s->wake_retaken;
	res->wait_bytes = sleeplock_wait_bytes((enum state_api)c->api);
	res->cal_passes = SL_CAL_K2 - SL_CAL_K1;
	res->cal_ticks = sl.cal_ticks[c->api];
}

const struct experiment sleeping_lock_experiment = {
	.id = FPULAB_EXP_sleeping_lock,
	.parse = sl_parse,
	.configs = sl_configs,
	.label = sl_label,
	.run = sl_run,
};
