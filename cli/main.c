/* SPDX-License-Identifier: MIT */
/* fpulab: run the lab, inspect xstate images, calibrate the host. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: fpulab <command> [options]\n"
		   "  run        boot the lab kernel under QEMU and measure FPU context switching\n"
		   "  xstate     check or dump an xstate image (xstate check|dump FILE)\n"
		   "  calibrate  measure the native XSAVE*/XRSTOR cost on this host\n"
		   "  help       this text; 'fpulab run --help' for run's options\n");
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;
	int (*fn)(int, char **) = NULL;

	if (!cmd) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(cmd, "run"))
		fn = cmd_run;
	else if (!strcmp(cmd, "xstate"))
		fn = cmd_xstate;
	else if (!strcmp(cmd, "calibrate"))
		fn = cmd_calibrate;
	else {
		fprintf(stderr, "fpulab: unknown command '%s'\n\n", cmd);
		usage(stderr);
		return 2;
	}
	return fn(argc - 1, argv + 1);
}
