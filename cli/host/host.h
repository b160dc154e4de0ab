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
	const char *sub; /* the subcommand's name, from host.c's table */
	enum output_format format;
	const char *output; /* NULL: stdout */
	unsigned int repeat;
	double seconds;
	const char *plot; /* --plot DIR; NULL: none */
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
 * host_common_opt - take common option @c (a getopt_long value) with
 * argument @arg into @h. Returns 0, 2 after a usage error, or -1 when @c is
 * not a common option.
 */
int host_common_opt(struct host_common *h, int c, const char *arg);

/* host_bad_opt - the usage error for getopt_long's '?' at argv[optind - 1]. */
int host_bad_opt(const struct host_common *h, char **argv);

/* host_output_open - open @o as @h asks, with the host's provenance. 0, or 1 after a message. */
int host_output_open(struct output *o, const struct host_common *h, const char *cmd, int argc,
		     char **argv);

/* host_comment_machine - "# CPU ..., kernel ..., clock ..." lines of a table. */
void host_comment_machine(struct output *o);

int host_context_switch(int argc, char **argv);
int host_unlink(int argc, char **argv);
int host_check(int argc, char **argv);
int host_costs(int argc, char **argv);

#endif
