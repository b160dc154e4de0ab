/* SPDX-License-Identifier: MIT */
/*
 * The fpulab command: one entry point per subcommand, each an entry of the
 * table in main.c (its name, this function, a line of usage). Each returns
 * the process exit status: 0 success, 1 failure, 2 usage error.
 */
#ifndef FPULAB_CLI_H
#define FPULAB_CLI_H

int cmd_run(int argc, char **argv);           /* lab/run.c: boot the lab, report results */
int cmd_trace(int argc, char **argv);         /* trace/trace.c: trace synth|dump|info */
int cmd_replay(int argc, char **argv);        /* replay/replay.c: replay traces natively */
int cmd_calibrate(int argc, char **argv);     /* host/calibrate.c: native host baseline */
int cmd_host(int argc, char **argv);          /* host/host.c: benchmarks of the host Linux */
int cmd_xstate(int argc, char **argv);        /* host/xstate_cmd.c: xstate check|dump FILE */
int cmd_compare(int argc, char **argv);       /* results/compare.c: two result files, A vs B */
int cmd_summary(int argc, char **argv);       /* results/summary.c: who wins, by how much */
int cmd_report(int argc, char **argv);        /* results/report.c: the seed reproduction table */
int cmd_plot(int argc, char **argv);          /* results/plot_cmd.c: SVG plots of result files */
int cmd_import_serial(int argc, char **argv); /* lab/import_serial.c: a PC's serial log */

#endif
