/* SPDX-License-Identifier: MIT */
/* Traces in memory: read, check, write, synthesise (include/fpulab/trace.h). */
#ifndef FPULAB_CLI_TRACE_TRACE_IO_H
#define FPULAB_CLI_TRACE_TRACE_IO_H

#include <stddef.h>
#include <stdint.h>

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
	struct fpulab_trace_event *ev; /* hdr.nevents of them, malloc'ed */
};

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
