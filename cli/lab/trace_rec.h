/* SPDX-License-Identifier: MIT */
/*
 * fpulab run --trace: where the traces go, and reading one run's trace out
 * of the paused guest (QMP pmemsave) into a checked trace file
 * (docs/trace.md, "Recording from the lab").
 */
#ifndef FPULAB_CLI_LAB_TRACE_REC_H
#define FPULAB_CLI_LAB_TRACE_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "guest_records.h"

struct trace_dest {
	const char *path; /* --trace PATH */
	bool dir;         /* one file per run in PATH; false: PATH is the one run's file */
	unsigned written; /* traces written so far */
};

/*
 * trace_dest_open - check --trace @path before QEMU starts: an existing
 * directory, or a path ending in '/' (created), takes one trace per run;
 * any other path is one file, for a run of exactly @runs == 1 runs (0:
 * unknown, refused), whose directory must be writable. Nothing is created
 * but that directory. Return: 0, or 2 after a message on stderr.
 */
int trace_dest_open(struct trace_dest *d, const char *path, unsigned runs, const char *why_runs);

/*
 * trace_dest_file - the file for the run @r: the path itself, or
 * DIR/EXPERIMENT-PLACEMENT-FP-REGSET[-tTASKS-VARIANT]-POLICY-rREPEAT.trace.
 */
void trace_dest_file(const struct trace_dest *d, const struct guest_result *r, char *buf,
		     size_t len);

/* The guest's trace record, parsed. */
struct trace_record {
	unsigned cpus;
	uint64_t used[64];
	uint64_t base, stride, events, seq, lost, ntasks, xcr0;
};

/* parse_trace_record - one "@fpulab trace ..." line. Return: 0, or -1 with why in @err. */
int parse_trace_record(const char *line, struct trace_record *t, char *err, size_t len);

/*
 * trace_collect - read the buffers @t describes from the guest through the
 * QMP socket @qmp_path (temporary files in @tmpdir, removed), merge them by
 * seq, check the result with trace_check() and write it to @out, named
 * @workload in its header. *@truncated: a buffer was full, the trace stops
 * early. Return: the number of events written, or -1 with a message in @err
 * (nothing written).
 */
long long trace_collect(const struct trace_record *t, const char *qmp_path, pid_t qemu,
			const char *tmpdir, const char *workload, const char *out, bool *truncated,
			char *err, size_t len);

/* trace_resume - connect to the QMP socket of a QEMU started paused and let it run. */
int trace_resume(const char *qmp_path, pid_t qemu, char *err, size_t len);

#endif
