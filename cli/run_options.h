/* SPDX-License-Identifier: MIT */
/* `fpulab run` options: parsing, validation, and the kernel command line they
 * become. Guest options map 1:1 to abi.h's FPULAB_KEY_* words. */
#ifndef FPULAB_CLI_RUN_OPTIONS_H
#define FPULAB_CLI_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "output.h"

enum accel_choice { ACCEL_AUTO, ACCEL_TCG, ACCEL_KVM };

/* Guest options, in the order their keys go on the kernel command line. */
enum guest_option_id {
	GOPT_EXPERIMENT,
	GOPT_POLICY,
	GOPT_PLACEMENT,
	GOPT_FP_USERS,
	GOPT_REGSET,
	GOPT_ROUND_TRIPS,
	GOPT_REPEAT,
	GOPT_SEED,
	GOPT_TASKS,
	GOPT_SWITCHES,
	GOPT_FPU_COUNTER,
	GOPT_PREFETCH,
	GOPT_INJECT,
	GOPT_INSN,
	GOPT_SCRUB,
	GOPT_COUNT
};

#define RUN_DEFAULT_EXPERIMENT "context-switch"
#define RUN_DEFAULT_CPUS 2
#define RUN_DEFAULT_TIMEOUT_S 60
#define RUN_MAX_TASKS 62 /* the kernel's STRESS_MAX_TASKS (lab/exp.h) */

struct run_options {
	/* The value each guest key gets, as sent; NULL: not sent (guest default). */
	char *guest_value[GOPT_COUNT];
	bool list_all[GOPT_COUNT]; /* the list was given as 'all' */
	unsigned cpus;
	enum accel_choice accel;
	const char *qemu_cpu; /* NULL: max under TCG, host under KVM */
	unsigned timeout_s;   /* watchdog: seconds without a record */
	enum output_format format;
	const char *output_path; /* NULL: stdout */
	const char *kernel_path; /* NULL: lab.elf next to the fpulab binary */
	bool icount;
	const char *tcg_threads; /* "single" | "multi" */
	const char *machine;     /* "microvm" | "q35" | "pc" */
	bool pin;                /* pin vCPU threads to host CPUs (KVM, multi-threaded TCG) */
	bool verbose;
};

/* Parse argv (argv[0] is "run"). Returns 0, 2 after printing a usage error,
 * or -1 when --help was asked for (usage printed to stdout). */
int run_options_parse(int argc, char **argv, struct run_options *o);
void run_options_free(struct run_options *o);
void run_usage(FILE *f);

/* "exp=context-switch placement=same-cpu,cross-cpu ..." into buf. */
int run_options_cmdline(const struct run_options *o, char *buf, size_t len);

/* Number of configurations the guest will run, when the host knows every list
 * (context-switch with placement, fp users and regset all sent); else 0. */
unsigned run_options_config_count(const struct run_options *o);

#endif
