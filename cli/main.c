/* SPDX-License-Identifier: MIT */
/* fpulab: the subcommand table, the usage it prints, and dispatch. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct command commands[] = {
	{ "run", cmd_run, "boot the lab kernel under QEMU and measure FPU context switching" },
	{ "trace", cmd_trace, "make and read FPU traces (trace synth|dump|info|import|record)" },
	{ "replay", cmd_replay, "replay traces natively under every policy, against the oracle" },
	{ "calibrate", cmd_calibrate, "measure the native XSAVE*/XRSTOR cost on this host" },
	{ "host", cmd_host, "benchmarks and an xstate check of the host Linux" },
	{ "xstate", cmd_xstate, "check or dump an xstate image (xstate check|dump FILE)" },
	{ "compare", cmd_compare,
	  "compare two result files (A B), configuration by configuration" },
	{ "summary", cmd_summary,
	  "which policy wins each class of configuration (summary FILE...)" },
	{ "report", cmd_report, "the seed reproduction table: each claim beside fpulab's figure" },
	{ "plot", cmd_plot, "SVG plots of result files (plot DIR FILE...), with gnuplot" },
	{ "import-serial", cmd_import_serial,
	  "a real PC's serial log of the bootable image to a result file" },
};
#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

/* The usage's lines, each summary in the column after the longest name. */
static void usage(FILE *f)
{
	int w = (int)strlen("--version");

	for (size_t i = 0; i < NR_COMMANDS; i++)
		if ((int)strlen(commands[i].name) > w)
			w = (int)strlen(commands[i].name);
	fprintf(f, "usage: fpulab <command> [options]\n");
	for (size_t i = 0; i < NR_COMMANDS; i++)
		fprintf(f, "  %-*s %s\n", w, commands[i].name, commands[i].summary);
	fprintf(f, "  %-*s %s\n", w, "help",
		"this text; 'fpulab help COMMAND' for a command's options");
	fprintf(f, "  %-*s %s\n", w, "--version",
		"fpulab's version and the git description it was built from");
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/*
 * A command that succeeded but whose standard output could not all be
 * written (a full disk, /dev/full) fails: exit 1, said once. A command that
 * failed has said why already.
 */
static int stdout_written(int rc)
{
	if (fflush(stdout) == 0 && !ferror(stdout))
		return rc;
	if (rc == 0)
		fprintf(stderr, "fpulab: cannot write standard output: %s\n",
			errno ? strerror(errno) : "write error");
	return rc ? rc : 1;
}

static int run_command(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;
	/* fpulab help host check = fpulab host check --help */
	char *help_argv[] = { argv[0], argc > 2 ? argv[2] : NULL, argc > 3 ? argv[3] : "--help",
			      argc > 3 ? "--help" : NULL, NULL };
	const struct command *c;

	if (!name) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(name, "--version") || !strcmp(name, "version")) {
		printf("fpulab %s (git %s)\n", fpulab_version(), fpulab_git_describe());
		return 0;
	}
	if (!strcmp(name, "help") || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		if (argc <= 2 || strcmp(name, "help") || !strcmp(argv[2], "-h") ||
		    !strcmp(argv[2], "--help")) { /* fpulab help -h: this text too */
			usage(stdout);
			return 0;
		}
		name = argv[2]; /* fpulab help run = fpulab run --help */
		argc = argc > 3 ? 4 : 3;
		argv = help_argv;
	}
	c = find_command(name);
	if (!c) {
		fprintf(stderr, "fpulab: unknown command '%s'\ntry 'fpulab help'\n", name);
		return 2;
	}
	return c->fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	return stdout_written(run_command(argc, argv));
}
