/* SPDX-License-Identifier: MIT */
/* `fpulab host`: benchmarks and checks of the Linux that fpulab runs on. */
#ifndef FPULAB_CLI_HOST_HOST_H
#define FPULAB_CLI_HOST_HOST_H

#include <getopt.h>
#include <stdbool.h>

#include "fpulab/abi.h"
#include "common/output.h"

/* Options every host subcommand takes. */
struct host_common {
	const char *sub;        /* the subcommand's name, from host.c's table */
	struct output_opts out; /* --format, --output */
	unsigned int repeat;
	double seconds;
	const char *plot;       /* --plot DIR; NULL: none */
	const char *no_seconds; /* why --seconds is refused, or NULL: it is taken */
	const char *no_plot;    /* why --plot is refused, or NULL: it is taken */
};

/* The getopt_long values of the common options. */
enum { HOST_OPT_FORMAT = 1000, HOST_OPT_OUTPUT, HOST_OPT_REPEAT, HOST_OPT_SECONDS, HOST_OPT_PLOT };
#define HOST_COMMON_LONGOPTS                                              \
	{ "format", required_argument, NULL, HOST_OPT_FORMAT },           \
		{ "output", required_argument, NULL, HOST_OPT_OUTPUT },   \
		{ "repeat", required_argument, NULL, HOST_OPT_REPEAT },   \
		{ "seconds", required_argument, NULL, HOST_OPT_SECONDS }, \
		{ "plot", required_argument, NULL, HOST_OPT_PLOT },       \
	{                                                                 \
		"help", no_argument, NULL, 'h'                            \
	}

/*
 * A subcommand's own option @c (a getopt_long value) with argument @arg,
 * into @ctx. Returns 0, or the exit status (2 after a usage error).
 */
typedef int host_opt_fn(void *ctx, int c, const char *arg);

/*
 * host_parse - the option loop of every host subcommand: getopt_long over
 * @argv with @longopts (the subcommand's, then HOST_COMMON_LONGOPTS); the
 * common options into @h, --help prints @usage on stdout, the others go to
 * @own with @ctx (NULL: the subcommand has none). No operand is taken. Returns -1 to go on, or the exit
 * status: 0 after --help, 2 after a usage error.
 */
int host_parse(struct host_common *h, int argc, char **argv, const struct option *longopts,
	       host_opt_fn *own, void *ctx, void (*usage)(FILE *f));

/* host_output_open - open @o as @h asks, with the host's provenance. 0, or 2 (a usage error) after a message. */
int host_output_open(struct output *o, const struct host_common *h, const char *cmd, int argc,
		     char **argv);

/* host_comment_machine - "# CPU ..., kernel ..., clock ..." lines of a table. */
void host_comment_machine(struct output *o);

int host_context_switch(int argc, char **argv);
int host_unlink(int argc, char **argv);
int host_check(int argc, char **argv);
int host_costs(int argc, char **argv);

#endif
