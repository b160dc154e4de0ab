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

/* summary_linux_evidence_only - @row's trace was imported with --fp-use evidence: its plain
 * keys are the lower bound, and it has no upper one. */
bool summary_linux_evidence_only(const json_t *row);

/*
 * summary_linux_other_loads - of deferred's @deferred_restores loads against Linux's
 * (@lr, the "linux (recorded)" row: its restores), what the known causes leave
 * unexplained: the difference less the window start, plus the signal frames and the
 * recording's end (0 in files from before it was counted); in loads, NAN where @lr lacks
 * the causes (docs/linux-traces.md). summary and report judge it within 3%.
 */
double summary_linux_other_loads(const json_t *lr, double deferred_restores);

/*
 * summarise_linux - per trace imported from Linux in @rows (replay rows with
 * a "linux (recorded)" row): the recording, Linux's own saves and restores
 * beside deferred's and the oracle's, each policy's #NM (also per 1000
 * forks: processes and threads) and share of the CPU time at both --fp-use
 * bounds, to @out.
 */
void summarise_linux(FILE *out, json_t *rows);

#endif
