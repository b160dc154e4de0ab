/* SPDX-License-Identifier: MIT */
/*
 * The one definition of what the lab kernel (guest) and the fpulab command
 * (host) say to each other. Included by lab/ and cli/; nothing else is shared.
 *
 * Host -> guest: the kernel command line, "key=value" words (FPULAB_OPTIONS).
 * Guest -> host: text lines on COM1. A line starting with FPULAB_RECORD_PREFIX
 * is a record; any other line is console output. Records are
 *     "@fpulab <kind> key=value key=value ...\n"
 * with the keys below; values contain no spaces. Numbers are decimal unless
 * prefixed 0x.
 * The guest ends with a "done" record and exits through isa-debug-exit with
 * FPULAB_EXIT_OK; a panic exits with FPULAB_EXIT_PANIC.
 */
#ifndef FPULAB_ABI_H
#define FPULAB_ABI_H

#include <stdint.h>

#define FPULAB_ABI_VERSION 1

#define FPULAB_RECORD_PREFIX "@fpulab "

/* Record kinds. */
#define FPULAB_REC_HELLO "hello"   /* boot facts: FPULAB_HELLO_FIELDS */
#define FPULAB_REC_RESULT "result" /* one run of one configuration under one policy */
#define FPULAB_REC_SKIP "skip"     /* a configuration this machine cannot run: FPULAB_SKIP_FIELDS */
#define FPULAB_REC_DONE "done"     /* all runs finished: FPULAB_DONE_FIELDS */
#define FPULAB_REC_PROGRESS "progress"   /* a run going on: FPULAB_PROGRESS_FIELDS */
#define FPULAB_REC_INTEGRITY "integrity" /* FPU state lost or leaked: FPULAB_INTEGRITY_FIELDS */
#define FPULAB_REC_TRACE "trace" /* trace=1: a run's trace buffers are ready: FPULAB_TRACE_FIELDS */

/* isa-debug-exit: QEMU exits with (value << 1) | 1. */
#define FPULAB_DEBUG_EXIT_PORT 0xf4
#define FPULAB_EXIT_OK 0x10    /* QEMU status 33 */
#define FPULAB_EXIT_PANIC 0x11 /* QEMU status 35 */
#define FPULAB_QEMU_STATUS(v) (((v) << 1) | 1)

/* clang-format off */
/*
 * The experiments: X(id, name, repeat, figure, unit, better, summary).
 *   id      C identifier (FPULAB_EXP_<id>, lab/exp_<id>.c, lab/user/<id>.c)
 *   name    the value of --experiment and of exp=
 *   repeat  default runs per configuration and policy
 *   figure  the result field the host's report leads with, in unit; better
 *           says which way is better (lower | higher). A figure other than
 *           ticks is a correctness count: no policy-vs-eager ratio is shown.
 *           A ticks figure's unit starts with "TSC ticks": the host writes
 *           it in the run's clock (cli/common/clock.h: "instructions per
 *           operation" under -icount).
 * Adding one: docs/lab.md, "How to add an experiment".
 */
#define FPULAB_EXPERIMENTS(X)                                                 \
	X(context_switch, "context-switch", 5, ticks, "TSC ticks per round trip", lower, \
	  "two ring-3 tasks ping-pong through semaphores (same CPU, cross-CPU or migrating), FP in none, one or both, x87, SSE or AVX") \
	X(stress, "stress", 1, integrity_errors, "integrity errors", lower,   \
	  "correctness: tasks on every CPU keep patterns in every FPU component while they block, wake, migrate, are preempted and exit") \
	X(fp_vs_spinner, "fp-vs-spinner", 3, ticks, "TSC ticks per unit of FP work (1000 ADDPDs)", lower, \
	  "seed 000: an FP task with a fixed amount of work and a task spinning without the FPU share CPU 0, switched by the timer; traps, TS writes, useful and wasted prefetches") \
	X(short_tasks, "short-tasks", 1, nm_traps, "#NM traps", lower,        \
	  "seed 002: short-lived tasks use SSE in their first slices, a companion never does, every slice ends in a switch; exact #NM traps per policy") \
	X(kernel_checksum, "kernel-checksum", 5, ticks, "TSC ticks per call", lower, \
	  "seed 002: a syscall checksums a buffer with AVX2 or SSE2 inside kernel_fpu_begin/end, or scalar; saves, restores, CR0.TS writes and #NM per call") \
	X(sleeping_lock, "sleeping-lock", 3, ticks, "TSC ticks per operation", lower, \
	  "seed 001: tasks create, close and unlink names in one directory under a sleeping lock; its wait loop writes the task state as set_task_state, set_current_state, with a volatile current or current from the stack") \
	X(costs, "costs", 5, ticks, "TSC ticks per operation", lower,          \
	  "what replay cannot run in user mode: an #NM trap round trip from ring 3, a CR0.TS write, an IPI round trip to another CPU (replay --costs FILE); under one policy, the first")

/*
 * Numeric limits, one place for both sides: X(id, value, what).
 * FPULAB_MAX_<id>. Every default fits at every CPU count: stress's default
 * of 4 tasks per CPU is at most 4 x FPULAB_MAX_CPUS = FPULAB_MAX_TASKS.
 */
#define FPULAB_LIMITS(X)                                                      \
	X(CPUS, 16, "CPUs the lab kernel starts (--cpus)")                       \
	X(TASKS, 64, "stress tasks (--tasks)")                                   \
	X(ROUND_TRIPS, 1000000000, "context-switch round trips per run (--round-trips)") \
	X(SWITCHES, 1000000000, "stress switches per run (--switches)")          \
	X(REPEAT, 1000, "runs per configuration and policy (--repeat)")          \
	X(FPU_COUNTER, 255, "fpu_counter threshold (--fpu-counter)")             \
	X(TIMEOUT_S, 86400, "host watchdog, seconds without a record (--timeout)")

/* Named values: X(id, name). */
#define FPULAB_PLACEMENTS(X)                                                  \
	X(same_cpu, "same-cpu") X(cross_cpu, "cross-cpu")                        \
	X(migrating, "migrating") /* cross-cpu; both tasks change CPU every round trip */
#define FPULAB_FP_USERS(X) X(none, "none") X(one, "one") X(both, "both")
#define FPULAB_REGSETS(X) X(x87, "x87") X(sse, "sse") X(avx, "avx")
#define FPULAB_PREFETCH_MODES(X)                                              \
	X(conditional, "conditional") X(always, "always") X(off, "off")
#define FPULAB_COUNTER_RULES(X) X(ge, "ge") X(gt, "gt") /* count >= N | > N (Linux 2.6) */
/* short-tasks: each task's slices and FP slices: the options, or drawn (docs/counts.md). */
#define FPULAB_MIXES(X) X(fixed, "fixed") X(boot, "boot") X(build, "build")
/* libfpu's injectable faults (enum fpu_fault, test kernels only); test_abi checks the match. */
#define FPULAB_FAULTS(X)                                                      \
	X(none, "none") X(skip_save_on_migrate, "skip-save-on-migrate")          \
	X(skip_restore_after_flush, "skip-restore-after-flush")                  \
	X(no_invalidate_on_kernel_fpu, "no-invalidate-on-kernel-fpu")            \
	X(skip_clts_before_restore, "skip-clts-before-restore")                  \
	X(stale_owner_after_exit, "stale-owner-after-exit")                      \
	X(import_stale_regs, "import-stale-regs")                                \
	X(lazy_pkru, "lazy-pkru")
/* Policies only the test kernel (lab-test.elf) has: deliberately broken. */
#define FPULAB_TEST_POLICIES(X) X(broken_lazy, "broken-lazy")
/* sleeping-lock: how the wait loop writes the task state (lab/current.h). */
#define FPULAB_STATE_APIS(X)                                                  \
	X(task, "task") X(current, "current")                                    \
	X(current_volatile, "current-volatile") X(current_stack, "current-stack")
/*
 * Options whose absence makes an experiment run several values of them, a
 * configuration each: X(experiment id, option id, how many). The host counts
 * configurations with it. sleeping-lock: 1, 2 and 4 tasks per CPU.
 */
#define FPULAB_DEFAULT_SWEEPS(X) X(sleeping_lock, tasks, 3)
/*
 * Configurations an experiment runs for each combination of its lists, no
 * option choosing them: X(experiment id, how many). The host counts
 * configurations with it. kernel-checksum: the SIMD and the scalar checksum.
 */
#define FPULAB_FIXED_CONFIGS(X) X(kernel_checksum, 2)
/* costs: what each configuration measures (lab/exp_costs.c). */
#define FPULAB_COSTS(X) X(nm_trap, "nm-trap") X(cr0_write, "cr0-write") X(ipi, "ipi")
#define FPULAB_SAVE_INSNS(X)                                                  \
	X(auto, "auto") X(fxsave, "fxsave") X(xsave, "xsave")                     \
	X(xsaveopt, "xsaveopt") X(xsavec, "xsavec") X(xsaves, "xsaves")

/*
 * Options (host -> guest), in the order their keys go on the kernel command
 * line: X(id, key, option, type, min, max, dflt, experiments, choices,
 * metavar, help).
 *   key          the kernel command-line word (key=value)
 *   option       fpulab run --option
 *   type         LIST (comma-separated; 'all' on the host), WORD, NUMBER, FLAG
 *   min..max     NUMBER: the range both sides accept; dflt its default
 *                (0 where help says the default is computed)
 *   experiments  FPULAB_EXP_ALL or FPULAB_EXP_BIT(id) | ...: who reads it
 *   choices      the names a LIST or WORD takes (fpulab_names_<choices>);
 *                any: [a-z0-9_-] names only the guest can check
 */
#define FPULAB_OPTIONS(X)                                                     \
	X(experiment, "exp", "experiment", WORD, 0, 0, 0, FPULAB_EXP_ALL, experiments, \
	  "NAME", "experiment to run (default context-switch)")                  \
	X(policies, "policies", "policy", LIST, 0, 0, 0, FPULAB_EXP_ALL, any,   \
	  "LIST|all", "FPU policies, e.g. eager,lazy (default and 'all': every policy the kernel has)") \
	X(placement, "placement", "placement", LIST, 0, 0, 0,                    \
	  FPULAB_EXP_BIT(context_switch), placements, "LIST|all",                \
	  "same-cpu,cross-cpu,migrating (default all; same-cpu with --cpus 1)")  \
	X(fp_users, "fp", "fp-users", LIST, 0, 0, 0,                             \
	  FPULAB_EXP_BIT(context_switch) | FPULAB_EXP_BIT(kernel_checksum) |    \
	  FPULAB_EXP_BIT(sleeping_lock),                                         \
	  fp_users, "LIST|all",                                                  \
	  "none,one,both (default all; kernel-checksum: none,one)")              \
	X(regset, "regset", "regset", LIST, 0, 0, 0, FPULAB_EXP_BIT(context_switch), \
	  regsets, "LIST|all", "x87,sse,avx (default all)")                      \
	X(round_trips, "rt", "round-trips", NUMBER, 1, FPULAB_MAX_ROUND_TRIPS, 1000,          \
	  FPULAB_EXP_BIT(context_switch) | FPULAB_EXP_BIT(costs), any, "R",       \
	  "round trips per run (costs: operations of each cost per run)")       \
	X(repeat, "repeat", "repeat", NUMBER, 1, FPULAB_MAX_REPEAT, 0, FPULAB_EXP_ALL, any, "K", \
	  "runs per configuration and policy (default: the experiment's)")       \
	X(seed, "seed", "seed", NUMBER, 0, UINT64_MAX, 1,                        \
	  FPULAB_EXP_BIT(stress) | FPULAB_EXP_BIT(short_tasks), any,             \
	  "N", "random seed")                                                    \
	X(tasks, "tasks", "tasks", NUMBER, 1, FPULAB_MAX_TASKS, 0,               \
	  FPULAB_EXP_BIT(stress) | FPULAB_EXP_BIT(sleeping_lock), any, "N",     \
	  "tasks (stress: default 4 per CPU; sleeping-lock: default a row each for 1, 2 and 4 per CPU)") \
	X(state_api, "state_api", "state-api", LIST, 0, 0, 0,                    \
	  FPULAB_EXP_BIT(sleeping_lock), state_apis, "LIST|all",                 \
	  "how the sleeping lock's wait loop writes the task state: task,current,current-volatile,current-stack (default all)") \
	X(ops, "ops", "ops", NUMBER, 1, 100000000, 240,                          \
	  FPULAB_EXP_BIT(sleeping_lock), any, "N",                               \
	  "operations per run (open, close and unlink of a name), split over the tasks") \
	X(drop_wakeup, "drop_wakeup", "drop-wakeup", NUMBER, 0, 100000000, 0,     \
	  FPULAB_EXP_BIT(sleeping_lock), any, "N",                               \
	  "test kernel only: the lock drops every wake-up from its Nth on, which the lost wake-up check must catch") \
	X(switches, "switches", "switches", NUMBER, 1, FPULAB_MAX_SWITCHES, 200000,       \
	  FPULAB_EXP_BIT(stress), any, "N", "switches per run (approximate target)") \
	X(fpu_counter, "fpu_counter", "fpu-counter", NUMBER, 0, FPULAB_MAX_FPU_COUNTER, 5, FPULAB_EXP_ALL, \
	  any, "N", "fpu_counter threshold of the heuristic policies")          \
	X(fpu_counter_rule, "fpu_counter_rule", "fpu-counter-rule", WORD, 0, 0, 0, \
	  FPULAB_EXP_ALL, counter_rules, "ge|gt",                                \
	  "lazy-counter loads at count >= N (ge, default) or > N (gt: Linux 2.6's fpu_counter > 5)") \
	X(prefetch, "prefetch", "prefetch", WORD, 0, 0, 0, FPULAB_EXP_ALL,       \
	  prefetch_modes, "MODE", "conditional|always|off (default conditional)") \
	X(units, "units", "units", NUMBER, 1, 1000000000, 2000,                  \
	  FPULAB_EXP_BIT(fp_vs_spinner), any, "N", "units of FP work, 1000 ADDPDs each (default 2000)") \
	X(slice_us, "slice_us", "slice-us", NUMBER, 10, 1000000, 500,            \
	  FPULAB_EXP_BIT(fp_vs_spinner), any, "US", "timer slice, microseconds (default 500)") \
	X(tasks_total, "tasks_total", "tasks-total", NUMBER, 1, 1000000, 50,     \
	  FPULAB_EXP_BIT(short_tasks), any, "N", "short-lived tasks per run (default 50)")    \
	X(concurrency, "concurrency", "concurrency", NUMBER, 1, 4, 1,            \
	  FPULAB_EXP_BIT(short_tasks), any, "C", "tasks at a time per CPU (default 1)")      \
	X(slices, "slices", "slices", NUMBER, 1, 1000, 8,                        \
	  FPULAB_EXP_BIT(short_tasks), any, "S", "slices per task (--mix fixed; default 8)") \
	X(fp_slices, "fp_slices", "fp-slices", NUMBER, 0, 1000, 6,               \
	  FPULAB_EXP_BIT(short_tasks), any, "K", "of those, the first K use SSE, K <= S (--mix fixed; default 6)") \
	X(mix, "mix", "mix", WORD, 0, 0, 0, FPULAB_EXP_BIT(short_tasks), mixes,  \
	  "fixed|boot|build", "S and K per task: the options (fixed, default) or drawn with --seed") \
	X(calls, "calls", "calls", NUMBER, 1, 100000000, 200,                    \
	  FPULAB_EXP_BIT(kernel_checksum), any, "N", "checksum calls per run (default 200)")   \
	X(buffer_bytes, "buffer_bytes", "buffer-bytes", NUMBER, 1, 1048576, 4096, \
	  FPULAB_EXP_BIT(kernel_checksum), any, "B", "bytes per call, at most 1 MiB (default 4096)") \
	X(cost, "cost", "cost", LIST, 0, 0, 0, FPULAB_EXP_BIT(costs), costs,    \
	  "LIST|all", "nm-trap,cr0-write,ipi (default all; ipi needs --cpus 2)") \
	X(inject, "inject", "inject", WORD, 0, 0, 0, FPULAB_EXP_ALL, faults, "NAME", \
	  "fault to inject (boots lab-test.elf unless --kernel)")                \
	X(insn, "insn", "insn", WORD, 0, 0, 0, FPULAB_EXP_ALL, save_insns, "NAME", \
	  "save instruction: auto|fxsave|xsave|xsaveopt|xsavec|xsaves")          \
	X(scrub, "scrub", "scrub", FLAG, 0, 1, 0, FPULAB_EXP_ALL, any, 0,      \
	  "force the AMD FIP/FDP/FOP scrub")                                     \
	X(check, "check", "check-options", FLAG, 0, 1, 0, FPULAB_EXP_ALL, any, 0, \
	  "boot, check every option against the kernel, run nothing")
/* clang-format on */

enum fpulab_limit {
#define FPULAB_X_LIMIT(id, value, what) FPULAB_MAX_##id = value,
	FPULAB_LIMITS(FPULAB_X_LIMIT)
#undef FPULAB_X_LIMIT
};

enum fpulab_experiment_id {
#define FPULAB_X_ID(id, ...) FPULAB_EXP_##id,
	FPULAB_EXPERIMENTS(FPULAB_X_ID)
#undef FPULAB_X_ID
		FPULAB_EXP_NR
};
#define FPULAB_EXP_BIT(id) (1u << FPULAB_EXP_##id)
#define FPULAB_EXP_ALL ((1u << FPULAB_EXP_NR) - 1)

enum fpulab_option_id {
#define FPULAB_X_ID(id, ...) FPULAB_OPT_##id,
	FPULAB_OPTIONS(FPULAB_X_ID)
#undef FPULAB_X_ID
		FPULAB_OPT_NR
};

enum fpulab_option_type { FPULAB_LIST, FPULAB_WORD, FPULAB_NUMBER, FPULAB_FLAG };

struct fpulab_experiment {
	const char *name, *summary;
	unsigned int repeat;
	const char *figure, *unit, *better;
};

struct fpulab_option {
	const char *key, *option;
	enum fpulab_option_type type;
	unsigned long long min, max, dflt;
	unsigned int experiments;   /* FPULAB_EXP_BIT mask */
	const char *const *choices; /* NULL-terminated; NULL: any name */
	const char *metavar, *help;
};

/* The tables, in the order of the lists (static: each includer uses its own). */
#define FPULAB_X_NAME(id, name, ...) name,
static const char *const fpulab_names_experiments[] = { FPULAB_EXPERIMENTS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_placements[] = { FPULAB_PLACEMENTS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_fp_users[] = { FPULAB_FP_USERS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_regsets[] = { FPULAB_REGSETS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_prefetch_modes[] = { FPULAB_PREFETCH_MODES(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_state_apis[] = { FPULAB_STATE_APIS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_costs[] = { FPULAB_COSTS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_save_insns[] = { FPULAB_SAVE_INSNS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_counter_rules[] = { FPULAB_COUNTER_RULES(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_mixes[] = { FPULAB_MIXES(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_faults[] = { FPULAB_FAULTS(FPULAB_X_NAME) 0 };
static const char *const fpulab_names_test_policies[] = { FPULAB_TEST_POLICIES(FPULAB_X_NAME) 0 };
#define fpulab_names_any 0
#undef FPULAB_X_NAME

/* clang-format off */
#define FPULAB_X_EXP(id, name, repeat, figure, unit, better, summary) \
	{ name, summary, repeat, #figure, unit, #better },
static const struct fpulab_experiment fpulab_experiments[FPULAB_EXP_NR] = {
	FPULAB_EXPERIMENTS(FPULAB_X_EXP)
};
#undef FPULAB_X_EXP

#define FPULAB_X_OPT(id, key, option, type, min, max, dflt, exps, choices, metavar, help) \
	{ key, option, FPULAB_##type, min, max, dflt, exps, fpulab_names_##choices, metavar, help },
static const struct fpulab_option fpulab_options[FPULAB_OPT_NR] = {
	FPULAB_OPTIONS(FPULAB_X_OPT)
};
#undef FPULAB_X_OPT
/* clang-format on */

/* clang-format off */
/* hello record. */
#define FPULAB_HELLO_FIELDS(S, U)                                             \
	S(apic)        /* xapic | x2apic */                                      \
	S(insn)        /* save instruction libfpu chose */                       \
	S(policies)    /* policies built in, comma-separated: what "all" means */ \
	S(test_policies) /* test kernels: deliberately broken ones, by name only */ \
	U(version) U(cpus) U(xcr0) U(kernel_size) U(user_size)                   \
	U(tsc_khz)     /* guest TSC frequency, measured against the APIC timer */

/*
 * result record. S(name) is a string field, U(name) an unsigned 64-bit count.
 * Counts cover the measured window only (after warm-up), summed over CPUs.
 */
#define FPULAB_RESULT_FIELDS(S, U)                                            \
	S(experiment) S(policy) S(placement) S(fp_users) S(regset)               \
	U(repeat)            /* 0-based index of this run */                     \
	U(cpus)                                                                   \
	U(tasks)                                                                  \
	U(round_trips)                                                            \
	U(switches)                                                               \
	U(slices)            /* switch-ins of ring-3 tasks */                    \
	U(fp_slices)         /* those into a slice the task uses the FPU in */   \
	U(nm_traps)                                                               \
	U(saves)             /* all instructions */                              \
	U(saves_fxsave) U(saves_xsave) U(saves_xsaveopt) U(saves_xsavec)         \
	U(saves_xsaves)                                                           \
	U(restores)                                                               \
	U(restores_skipped)                                                       \
	U(ipis)              /* every IPI sent: reschedule and flush */          \
	U(flush_ipis)                                                             \
	U(prefetches)                                                             \
	U(prefetches_useful) /* the task then used the FPU in that slice */      \
	U(prefetches_wasted) /* it did not (tasks whose FP slices are known) */  \
	U(ts_writes)         /* CR0 writes that set or clear TS */               \
	U(kernel_fpu_sections)                                                    \
	U(scrubs)            /* AMD FIP/FDP/FOP scrubs (forced with scrub=1) */  \
	U(migrations)                                                             \
	U(integrity_errors)                                                       \
	U(signals)           /* stress: signal frames delivered */               \
	U(sigreturns)        /* stress: signal frames imported */                \
	U(ptrace_reads)      /* stress: exports of a stopped task */             \
	U(ptrace_writes)     /* stress: imports into a stopped task */           \
	U(kills)             /* stress: tasks killed for a bad or unplaceable frame */ \
	U(ticks)             /* TSC ticks of the measured window */            \
	FPULAB_RESULT_OPTIONAL_FIELDS(S, U)

/*
 * Fields only some experiments measure. The others leave them NULL or
 * FPULAB_NOT_MEASURED and they are not sent: absent, never a made-up 0.
 * sleeping-lock (docs/sleeping-lock.md): its lock's counts over the window;
 * cal_*: the calibration of the wait loop, once per boot and variant.
 */
#define FPULAB_NOT_MEASURED UINT64_MAX
#define FPULAB_RESULT_OPTIONAL_FIELDS(S, U)                                   \
	S(variant)           /* sleeping-lock: the state write (FPULAB_STATE_APIS) */ \
	U(acquisitions)      /* lock acquisitions */                             \
	U(contended)         /* ... that found it taken and waited */            \
	U(passes)            /* wait-loop passes: state written, lock tested */  \
	U(sleeps)            /* passes that found it taken: schedule() calls */  \
	U(wakeups)           /* unlocks that woke a waiter */                    \
	U(wake_retaken)      /* passes after a wake-up that found it taken again */ \
	U(wait_bytes)        /* size of the wait function, bytes (kernel symbols) */ \
	U(cal_passes)        /* calibration: wait-loop passes measured */        \
	U(cal_ticks)         /* ... their TSC ticks, each with a schedule() round trip */ \
	S(cost)              /* costs: what was measured (FPULAB_COSTS) */       \
	U(base_ticks)        /* costs: ticks of the same loop without it, subtracted from ticks */

/*
 * skip record: the configuration (as its result records would name it) and
 * why, one word: needs-2-cpus | no-avx-state | needs-2-tasks (kernel-checksum, fp users both).
 */
#define FPULAB_SKIP_FIELDS(S, U)                                              \
	S(experiment) S(placement) S(fp_users) S(regset) S(reason)

/*
 * progress record: a long run says how far it got, at most once per
 * FPULAB_PROGRESS_INTERVAL_S seconds of guest TSC time (stress: from its
 * kernel threads, between their sections). The host shows it and its
 * watchdog counts it as a sign of life. done of target, in unit: stress's
 * switches of the window so far and its --switches.
 */
#define FPULAB_PROGRESS_INTERVAL_S 1
#define FPULAB_PROGRESS_FIELDS(S, U)                                          \
	S(experiment) S(policy) U(repeat) U(done) U(target) S(unit)

/*
 * integrity record: one of the first FPULAB_INTEGRITY_RECORDS checks of a
 * run that found FPU state lost or leaked, sent when found, before the
 * run's result (docs/stress.md, "A failure, and how to replay it").
 *   cpu, task        where the check ran (checksum: task 0, a kernel thread)
 *   regset           x87 | sse | avx | all | checksum | signal | pkru | ?
 *   reg              the register, or a special check (97, 98, 99, ...)
 *   expected, found  the values, 0x-hex strings
 *   wrong            registers wrong in this check
 */
#define FPULAB_INTEGRITY_RECORDS 5
#define FPULAB_INTEGRITY_FIELDS(S, U)                                         \
	S(experiment) S(policy) U(repeat) U(cpu) U(task) S(regset) U(reg)        \
	S(expected) S(found) U(wrong)

/*
 * trace record (trace=1 on the command line, fpulab run --trace): after each
 * run's result record, the run's trace is in guest memory and the guest
 * waits until the host writes a line to its console input (docs/trace.md).
 * CPU c's events (struct fpulab_trace_event, 16 bytes each) are the first
 * used[c] at physical address base + c * stride; seq events were numbered;
 * those numbered lost and above are not all there (a buffer was full;
 * 4294967295: none lost); ntasks: the highest task id; xcr0: the guest's.
 */
#define FPULAB_TRACE_FIELDS(S, U)                                             \
	S(used) U(cpus) U(base) U(stride) U(events) U(seq) U(lost) U(ntasks) U(xcr0)

/* done record. checked=1: check=1 was given; the options were read, nothing ran. */
#define FPULAB_DONE_FIELDS(S, U) U(runs) U(skipped) U(checked)

/* clang-format on */

#endif
