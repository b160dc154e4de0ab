/* SPDX-License-Identifier: MIT */
/* The trace subcommands beyond synth, dump and info (trace.c dispatches). */
#ifndef FPULAB_CLI_TRACE_TRACE_CMD_H
#define FPULAB_CLI_TRACE_TRACE_CMD_H

#include "perf_import.h"

/* fpulab trace import INPUT [-o FILE] [--fp-use M] [--strict] [--name NAME] */
int cmd_trace_import(int argc, char **argv);
/* fpulab trace record -o FILE [--seconds N] [-- CMD ARGS...] (trace_record.c) */
int cmd_trace_record(int argc, char **argv);

/* --fp-use every-return|evidence into *@fp_use; a usage error (2) otherwise. */
int trace_parse_fp_use(const char *cmd, const char *v, unsigned int *fp_use);
/* import's and record's shared options at argv[@i]: arguments taken, 0, or -1 (usage). */
int trace_import_option(const char *cmd, int argc, char **argv, int i, struct perf_import_opts *o);
/* What an import wrote to @path, on standard output. */
void trace_print_import(const char *path, const struct perf_import_result *r);

#endif
