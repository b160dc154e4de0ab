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

/* tool_start's @flags */
#define TOOL_PIPE_OUT 1u /* its standard output on a pipe (@t->out), else on its error file */
/* Ours on its descriptors TOOL_STDOUT_FD and TOOL_STDERR_FD, for a program it runs in turn
 * to take back (trace record's CMD, under perf record); not with TOOL_PIPE_OUT. */
#define TOOL_KEEP_STDIO 2u
#define TOOL_STDOUT_FD 8 /* 8 and 9: the highest a POSIX shell's redirections must reach */
#define TOOL_STDERR_FD 9

/*
 * tool_start - run @argv (argv[0] looked up in PATH), its standard error into a temporary
 * file, as @flags say. Return: 0, or -1 with a message in @err (the program missing is said
 * so).
 */
int tool_start(struct tool *t, char *const argv[], unsigned int flags, char *err, size_t errlen);

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
