/* SPDX-License-Identifier: MIT */
/*
 * The one definition of what the lab kernel (guest) and the fpulab command
 * (host) say to each other. Included by lab/ and cli/; nothing else is shared.
 *
 * Host -> guest: the kernel command line, "key=value" words (FPULAB_KEY_*).
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

#define FPULAB_ABI_VERSION 1

#define FPULAB_RECORD_PREFIX "@fpulab "

/* Record kinds. */
#define FPULAB_REC_HELLO "hello"   /* boot facts: FPULAB_HELLO_FIELDS */
#define FPULAB_REC_RESULT "result" /* one run of one configuration under one policy */
#define FPULAB_REC_DONE "done"     /* all runs finished; "runs=N" */

/* isa-debug-exit: QEMU exits with (value << 1) | 1. */
#define FPULAB_DEBUG_EXIT_PORT 0xf4
#define FPULAB_EXIT_OK 0x10    /* QEMU status 33 */
#define FPULAB_EXIT_PANIC 0x11 /* QEMU status 35 */
#define FPULAB_QEMU_STATUS(v) (((v) << 1) | 1)

/* Command-line keys (host -> guest). Lists are comma-separated. */
#define FPULAB_KEY_EXPERIMENT "exp"      /* context-switch | stress | selftest */
#define FPULAB_KEY_POLICIES "policies"   /* eager,lazy,... */
#define FPULAB_KEY_PLACEMENT "placement" /* same-cpu,cross-cpu */
#define FPULAB_KEY_FP_USERS "fp"         /* none,one,both */
#define FPULAB_KEY_REGSET "regset"       /* x87,sse,avx */
#define FPULAB_KEY_ROUND_TRIPS "rt"      /* round trips per run */
#define FPULAB_KEY_REPEAT "repeat"       /* runs per configuration and policy */
#define FPULAB_KEY_SEED "seed"
#define FPULAB_KEY_TASKS "tasks"
#define FPULAB_KEY_SWITCHES "switches" /* stress: switches per run (approximate target) */
#define FPULAB_KEY_FPU_COUNTER "fpu_counter"
#define FPULAB_KEY_PREFETCH "prefetch" /* conditional | always | off */
#define FPULAB_KEY_FPU_COUNTER_RULE "fpu_counter_rule" /* ge (count >= N) | gt (> N, Linux 2.6) */
#define FPULAB_KEY_INJECT "inject"     /* fault name */
#define FPULAB_KEY_INSN "insn"         /* auto | fxsave | xsave | xsaveopt | xsavec | xsaves */
#define FPULAB_KEY_SCRUB "scrub"       /* 1: force the AMD FIP/FDP/FOP scrub */
#define FPULAB_KEY_UNITS "units"       /* fp-vs-spinner: units of FP work */
#define FPULAB_KEY_SLICE_US "slice_us" /* fp-vs-spinner: timer slice, microseconds */
#define FPULAB_KEY_TASKS_TOTAL "tasks_total" /* short-tasks: tasks in the run */
#define FPULAB_KEY_CONCURRENCY "concurrency" /* short-tasks: tasks at a time per CPU */
#define FPULAB_KEY_SLICES "slices"           /* short-tasks: slices per task */
#define FPULAB_KEY_FP_SLICES "fp_slices"     /* short-tasks: of those, first ones using SSE */
#define FPULAB_KEY_MIX "mix"                 /* short-tasks: none | boot | build */
#define FPULAB_KEY_BUFFER_BYTES "buffer_bytes" /* kernel-checksum: bytes per call */
#define FPULAB_KEY_CALLS "calls"               /* kernel-checksum: calls per run */

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
	U(ticks)             /* TSC ticks of the measured window */

/* clang-format on */

#endif
