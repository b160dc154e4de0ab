/* SPDX-License-Identifier: MIT */
/* fpulab: run the lab, inspect xstate images, calibrate the host. */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "plot.h"
#include "version.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: fpulab <command> [options]\n"
		   "  run        boot the lab kernel under QEMU and measure FPU context switching\n"
		   "  xstate     check or dump an xstate image (xstate check|dump FILE)\n"
		   "  calibrate  measure the native XSAVE*/XRSTOR cost on this host\n"
		   "  trace      make and read FPU traces (trace synth|dump|info)\n"
		   "  host       benchmarks and an xstate check of the host Linux\n"
		   "  replay     replay traces natively under every policy, against the oracle\n"
		   "  compare    compare two result files (A B), configuration by configuration\n"
		   "  report     the seed reproduction table: each claim beside fpulab's figure\n"
		   "  plot       SVG plots of result files (plot DIR FILE...), with gnuplot\n"
		   "  summary    which policy wins each class of configuration (summary FILE...)\n"
		   "  help       this text; 'fpulab help COMMAND' for a command's options\n"
		   "  --version  fpulab's version and the git description it was built from\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	/* fpulab help host check = fpulab host check --help */
	char *help_argv[] = { argv[0], argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : "--help",
			      argc > 3 ? "--help" : NULL, NULL };
	int (*fn)(int, char **) = NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("fpulab %s (git %s)\n", fpulab_version(), fpulab_git_describe());
		return 0;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		if (argc > 2 && !strcmp(cmd, "help")) { /* fpulab help run = fpulab run --help */
			cmd = argv[2];
			argc = argc > 3 ? 4 : 3;
			argv = help_argv;
		} else {
			usage(stdout);
			return 0;
		}
	}
	if (!strcmp(cmd, "run"))
		fn = cmd_run;
	else if (!strcmp(cmd, "xstate"))
		fn = cmd_xstate;
	else if (!strcmp(cmd, "calibrate"))
		fn = cmd_calibrate;
	else if (!strcmp(cmd, "host"))
		fn = cmd_host;
	else if (!strcmp(cmd, "trace"))
		fn = cmd_trace;
	else if (!strcmp(cmd, "replay"))
		fn = cmd_replay;
	else if (!strcmp(cmd, "compare"))
		fn = cmd_compare;
	else if (!strcmp(cmd, "report"))
		fn = cmd_report;
	else if (!strcmp(cmd, "plot"))
		fn = cmd_plot;
	else if (!strcmp(cmd, "summary"))
		fn = cmd_summary;
	else {
		fprintf(stderr, "fpulab: unknown command '%s'\ntry 'fpulab help'\n", cmd);
		return 2;
	}
	return fn(argc - 1, argv + 1);
}
