/* SPDX-License-Identifier: MIT */
/*
 * Import a Linux recording (perf script text of the tracepoints in
 * docs/linux-traces.md) as an fpulab trace, version 3.
 */
#ifndef FPULAB_CLI_TRACE_PERF_IMPORT_H
#define FPULAB_CLI_TRACE_PERF_IMPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <fpulab/trace.h>

struct perf_import_opts {
	unsigned int fp_use;  /* FPULAB_FP_USE_*; 0: every-return */
	bool strict;          /* refuse an impossible sequence instead of resynchronising it */
	const char *workload; /* the trace's name; NULL: "linux" */
};

/* What an import made, for the command's summary. */
struct perf_import_result {
	struct fpulab_trace_header hdr;
	struct fpulab_trace_linux lx;
	char skipped_names[160];
};

/*
 * perf_import_stream - read perf script text from @in (streamed, read
 * once) and write the trace to @out_path through a temporary file renamed
 * at the end: on any error nothing is left at @out_path. Return: 0, or -1
 * with a message in @err ("line N: ..." for bad input).
 */
int perf_import_stream(FILE *in, const char *out_path, const struct perf_import_opts *o,
		       struct perf_import_result *r, char *err, size_t errlen);

/*
 * perf_import_file - the same from @path: "-" standard input, a perf.data
 * (read by running `perf script --ns --show-lost-events`; $FPULAB_PERF
 * names perf), an .xz file (through xz -dc), or text. Its messages do not name
 * @path: the caller does. Return: 0, -1, or PERF_IMPORT_FPULAB_TRACE where
 * @path is an fpulab trace already (@err set too).
 */
#define PERF_IMPORT_FPULAB_TRACE (-2)
int perf_import_file(const char *path, const char *out_path, const struct perf_import_opts *o,
		     struct perf_import_result *r, char *err, size_t errlen);

#endif
