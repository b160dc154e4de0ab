/* SPDX-License-Identifier: MIT */
/* `fpulab run` options: parsing, validation, and the kernel command line they
 * become. Guest options are abi.h's FPULAB_OPTIONS. */
#ifndef FPULAB_CLI_LAB_RUN_OPTIONS_H
#define FPULAB_CLI_LAB_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/output.h"

enum accel_choice { ACCEL_AUTO, ACCEL_TCG, ACCEL_KVM };

/* Guest options: abi.h's FPULAB_OPTIONS, indexed by FPULAB_OPT_<id>. */
#include "fpulab/abi.h"

/* The default experiment: abi.h's first (FPULAB_EXP_context_switch). */
#define RUN_DEFAULT_EXPERIMENT FPULAB_EXP_context_switch
#define RUN_DEFAULT_CPUS 2
#define RUN_DEFAULT_TIMEOUT_S 60

struct run_options {
	/* The value each guest key gets, as sent; NULL: not sent (guest default). */
	char *guest_value[FPULAB_OPT_NR];
	bool list_all[FPULAB_OPT_NR]; /* the list was given as 'all' */
	unsigned cpus;
	enum accel_choice accel;
	const char *qemu_cpu;      /* NULL: max under TCG, host under KVM */
	unsigned timeout_s;        /* watchdog: seconds without a record */
	struct output_opts output; /* --format, --output (NULL: stdout) */
	const char *kernel_path;   /* NULL: lab.elf next to the fpulab binary */
	const char *plot_dir;      /* --plot DIR: SVG plots; NULL: none */
	bool icount;
	const char *tcg_threads; /* "single" | "multi" */
	const char *machine;     /* "microvm" | "q35" | "pc" */
	bool pin;                /* pin vCPU threads to host CPUs (KVM, multi-threaded TCG) */
	bool verbose;
	const char *trace_path; /* --trace FILE|DIR; NULL: no tracing */
	unsigned trace_runs;    /* runs the options ask for (0: not known); why_runs says how */
	char why_runs[160];
};

/* Parse argv (argv[0] is "run"). Returns 0, 2 after printing a usage error,
 * or -1 when --help or --list was asked for (printed to stdout). */
int run_options_parse(int argc, char **argv, struct run_options *o);
void run_options_free(struct run_options *o);
void run_usage(FILE *f);
/* `fpulab run --list`: every experiment (summary, options), policy, fault and value. */
void run_list(FILE *f);

/* "exp=context-switch placement=same-cpu,cross-cpu ..." into buf. */
int run_options_cmdline(const struct run_options *o, char *buf, size_t len);

/* Number of configurations the guest will run: the product of the lengths of
 * the lists the experiment reads (finish_options sends every one); 0 if one is
 * not known. */
unsigned run_options_config_count(const struct run_options *o);

/* run_needs_test_kernel - the options only lab-test.elf (FPU_TESTING) reads are given:
 * --inject or --drop-wakeup; without --kernel, fpulab boots it instead of lab.elf. */
bool run_needs_test_kernel(const struct run_options *o);

#endif
