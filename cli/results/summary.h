/* SPDX-License-Identifier: MIT */
/*
 * fpulab summary's parts (cli/results/):
 *   summary.c        the command: each experiment's lines, replay's per workload
 *   summary_linux.c  a recorded Linux workload's section
 */
#ifndef FPULAB_CLI_RESULTS_SUMMARY_H
#define FPULAB_CLI_RESULTS_SUMMARY_H

#include <stdbool.h>
#include <stdio.h>

#include <jansson.h>

/* summary_linux_row - @row is one of a replay of a trace imported from Linux. */
bool summary_linux_row(const json_t *row);

/*
 * summarise_linux - per trace imported from Linux in @rows (replay rows with
 * a "linux (recorded)" row): the recording, Linux's own saves and restores
 * beside deferred's and the oracle's, each policy's #NM (also per 1000
 * processes) and share of the CPU time at both --fp-use bounds, to @out.
 */
void summarise_linux(FILE *out, json_t *rows);

#endif
