/* SPDX-License-Identifier: MIT */
/* The fpulab command: one entry point per subcommand. Each returns the process
 * exit status: 0 success, 1 failure, 2 usage error. */
#ifndef FPULAB_CLI_H
#define FPULAB_CLI_H

int cmd_run(int argc, char **argv);       /* cli/run.c: boot the lab, report results */
int cmd_xstate(int argc, char **argv);    /* cli/xstate_cmd.c: xstate check|dump FILE */
int cmd_calibrate(int argc, char **argv); /* cli/calibrate.c: native host baseline */
int cmd_report(int argc, char **argv);    /* cli/seed_report.c: the seed reproduction table */
int cmd_summary(int argc, char **argv);   /* cli/summary.c: who wins, by how much */
int cmd_compare(int argc, char **argv);   /* cli/compare.c: two result files, A vs B */
int cmd_host(int argc, char **argv);      /* cli/host.c: benchmarks of the host Linux */
int cmd_trace(int argc, char **argv);     /* cli/trace.c: trace synth|dump|info */
int cmd_replay(int argc, char **argv);    /* cli/replay.c: replay traces natively */

#endif
