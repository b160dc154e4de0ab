/* SPDX-License-Identifier: MIT */
/* Traces in memory: read, check, write, synthesise (include/fpulab/trace.h). */
#ifndef FPULAB_CLI_TRACE_TRACE_IO_H
#define FPULAB_CLI_TRACE_TRACE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <fpu/xstate.h>
#include <fpulab/trace.h>

/*
 * The XCR0 bits an x86 CPU defines for user state and libfpu knows (SDM Vol. 1
 * §13.1): x87, SSE, AVX, MPX (BNDREGS, BNDCSR), AVX-512 (opmask, ZMM_Hi256,
 * Hi16_ZMM), PKRU, AMX (XTILECFG, XTILEDATA). The others are reserved, or
 * supervisor components that live in IA32_XSS, never in XCR0.
 */
#define TRACE_XCR0_KNOWN                                                                       \
	(XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_YMM) | XFEATURE_MASK(XFEATURE_BNDREGS) | \
	 XFEATURE_MASK(XFEATURE_BNDCSR) | XFEATURE_MASK_AVX512 | XFEATURE_MASK_PKRU |          \
	 XFEATURE_MASK(XFEATURE_XTILE_CFG) | XFEATURE_MASK(XFEATURE_XTILE_DATA))

struct trace {
	struct fpulab_trace_header hdr;
	struct fpulab_trace_linux *lx; /* version 3's Linux block, malloc'ed; NULL before */
	struct fpulab_trace_event *ev; /* hdr.nevents of them, malloc'ed */
};

/* The header's bytes on disk for @version: 64, or 64 + the Linux block from version 3. */
size_t trace_header_size(unsigned int version);

/* trace_type_name - "switch", "use", ...; "?" for an unknown type. */
const char *trace_type_name(unsigned int type);

/*
 * trace_check - whether @t is a well-formed trace: header fields, and every
 * event in order (seq increasing, known type, cpu < ncpus, task <= ntasks,
 * a USE/EXIT/KFPU by the task running on that CPU, no task running on two
 * CPUs, no switch away from a task that is not running there, no event for
 * a task after its EXIT). Return: 0, or -1 with a message ("event N: ...")
 * in @err (@errlen bytes).
 */
int trace_check(const struct trace *t, char *err, size_t errlen);

/* The header alone, and version 3's Linux block (NULL before), as trace_check() checks them. */
int trace_check_header(const struct fpulab_trace_header *h, char *err, size_t errlen);
int trace_check_linux(const struct fpulab_trace_header *h, const struct fpulab_trace_linux *lx,
		      char *err, size_t errlen);

/*
 * The same checks one event at a time, for a writer that streams (the
 * Linux importer): trace_checker_new() checks @h and @lx (as trace_check()
 * does; @lx NULL before version 3) and keeps @h, which must outlive the
 * checker; trace_checker_event() checks event @index in order. Both return
 * NULL or -1 with a message in @err; the checker is freed either way by
 * trace_checker_free() (NULL is fine).
 */
struct trace_checker;
struct trace_checker *trace_checker_new(const struct fpulab_trace_header *h,
					const struct fpulab_trace_linux *lx, char *err,
					size_t errlen);
int trace_checker_event(struct trace_checker *k, const struct fpulab_trace_event *e, uint64_t index,
			char *err, size_t errlen);
void trace_checker_free(struct trace_checker *k);

/*
 * trace_write_header - write @h (with magic, version, sizes set as the
 * writer sets them: version 3 iff @lx) and @lx at @f's current position.
 * Return: 0, or -1 (errno set).
 */
int trace_write_header(FILE *f, const struct fpulab_trace_header *h,
		       const struct fpulab_trace_linux *lx);

/*
 * trace_read - load and check the trace in @path. Return: 0, or -1 with a
 * message naming the file in @err. On error *@t is empty.
 */
int trace_read(const char *path, struct trace *t, char *err, size_t errlen);

/*
 * trace_write - write @t to @path through a temporary file renamed at the
 * end (nothing half-written is left). Return: 0, or -1 with a message.
 */
int trace_write(const char *path, const struct trace *t, char *err, size_t errlen);

void trace_free(struct trace *t);

/* "every-return", "evidence" (FPULAB_FP_USE_*), or "?". */
const char *trace_fp_use_name(unsigned int fp_use);

/* A few lines on @f saying what the Linux block @x of a trace with header @h records. */
void trace_linux_summary(FILE *f, const struct fpulab_trace_header *h,
			 const struct fpulab_trace_linux *x);

/* ---- synthetic workloads (cli/trace/trace_synth.c) ---- */

/* NULL-terminated names of the workloads `trace synth` makes; a workload
 * that models a lab experiment has the experiment's name (abi.h). */
const char *const *trace_workloads(void);

/* One line describing workload @name, or NULL if there is none. */
const char *trace_workload_about(const char *name);

/*
 * trace_synth - make workload @name with about @switches context switches
 * (at least that many; each slice's events follow its switch), from the
 * PRNG @seed; use masks are drawn from @xcr0 (x87|SSE|AVX|AVX-512 bits as
 * present). Deterministic: the same arguments give the same trace.
 * Return: 0, or -1 if @name is unknown or memory ran out (message in @err).
 */
int trace_synth(const char *name, uint64_t switches, uint64_t seed, uint64_t xcr0, struct trace *t,
		char *err, size_t errlen);

#endif
