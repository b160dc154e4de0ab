/* SPDX-License-Identifier: MIT */
/* Running perf (and xz) for the Linux importer and `trace record`. */
#ifndef FPULAB_CLI_TRACE_PERF_TOOL_H
#define FPULAB_CLI_TRACE_PERF_TOOL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* The perf to run: $FPULAB_PERF, or "perf" from PATH. */
const char *perf_binary(void);

/* A child whose standard output is read through a pipe; its standard error goes to a
 * temporary file, read when it ends. */
struct tool {
	pid_t pid;
	FILE *out;        /* the child's standard output */
	FILE *errf;       /* its standard error, kept */
	const char *name; /* for messages */
};

/*
 * tool_start - run @argv (argv[0] looked up in PATH) with its standard output on a pipe
 * (@t->out) when @pipe_out, else on its standard error file too. Return: 0, or -1 with a
 * message in @err (the program missing is said so).
 */
int tool_start(struct tool *t, char *const argv[], int pipe_out, char *err, size_t errlen);

/*
 * tool_wait - close the pipe, wait for the child (killed first if @kill_it), and give its
 * exit status (-1: killed by a signal; 127: it could not be run). Its standard error stays
 * in @t->errf for tool_stderr(); tool_free() releases it.
 */
int tool_wait(struct tool *t, int kill_it);

/* The child's standard error (its last @max bytes), NUL-terminated, in @buf. */
void tool_stderr(struct tool *t, char *buf, size_t max);
void tool_free(struct tool *t);

#endif
