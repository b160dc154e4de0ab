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

/*
 * A trace whose events stay in its file (trace_open()): read again, chunk
 * by chunk, on every pass (trace_iter), so that a replay of 10^7 switches
 * (310 MB of events) holds TRACE_CHUNK of them at a time. The file as it
 * was checked: a pass refuses it once it has changed.
 */
struct trace_file {
	int fd;
	char *path;
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
	int checked; /* trace_check() passed: a pass range-checks each chunk */
};

struct trace {
	struct fpulab_trace_header hdr;
	struct fpulab_trace_linux *lx; /* version 3's Linux block, malloc'ed; NULL before */
	struct fpulab_trace_event *ev; /* hdr.nevents of them, malloc'ed; NULL for a file's */
	struct trace_file *file;       /* trace_open()'s; NULL when @ev holds the events */
};

/* Events a file trace's pass reads at once: 64 KiB. */
#define TRACE_CHUNK 4096

/*
 * One pass over a trace's events in order, a chunk at a time (the whole
 * array at once for a trace in memory). For a file, each chunk is read with
 * pread() into the caller's buffer and, once trace_open() has checked the
 * file, its CPUs, tasks and types are range-checked, so that a file changed
 * in place during a pass cannot send the replay out of its arrays. cli/trace/trace_iter.c, built with
 * -mgeneral-regs-only: the replay engine reads its events between the
 * simulated tasks' uses of the vector registers.
 */
struct trace_iter {
	const struct trace *t;
	uint64_t pos;                   /* events delivered so far */
	struct fpulab_trace_event *buf; /* TRACE_CHUNK events (a file trace's) */
	int err;                        /* 0, an errno, or TRACE_ITER_CHANGED */
	uint64_t first;                 /* a file's: the first event's offset */
};
#define TRACE_ITER_CHANGED (-1) /* the file is not what was checked */

/*
 * trace_iter_begin - start a pass over @t into @it; @buf: room for
 * TRACE_CHUNK events, needed only when @t->file. Return: 0, or -1 (@it->err)
 * when the file changed (size, times) since it was checked.
 */
int trace_iter_begin(struct trace_iter *it, const struct trace *t, struct fpulab_trace_event *buf);

/*
 * trace_iter_next - the next events of the pass: *@ev, and how many. Return
 * 0 at the end, or when they cannot be read (@it->err set: a read error, a
 * file cut short, or an event out of range).
 */
size_t trace_iter_next(struct trace_iter *it, const struct fpulab_trace_event **ev);

/* trace_iter_strerror - what went wrong with @it's pass (not naming the file), into @err. */
void trace_iter_strerror(const struct trace_iter *it, char *err, size_t errlen);

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
 * trace_open - check the trace in @path as trace_read() does, but leave its
 * events in the file (@t->file; read them with trace_iter): what replay
 * uses, so that its memory does not grow with the trace. Return: 0, or -1
 * with a message naming the file in @err. On error *@t is empty.
 */
int trace_open(const char *path, struct trace *t, char *err, size_t errlen);

/*
 * trace_write - write @t to @path through a temporary file renamed at the
 * end (nothing half-written is left). Return: 0, or -1 with a message.
 */
int trace_write(const char *path, const struct trace *t, char *err, size_t errlen);

/**
 * trace_out_check - whether a trace can be written at @path, said before
 * work that would be lost: output_path_check(), and an existing @path must
 * be a regular file (or a symlink to one): the temporary file renamed over
 * a device or FIFO would replace it. Return: 0, or -1 with the reason in
 * @err (@errlen bytes).
 */
int trace_out_check(const char *path, char *err, size_t errlen);

/* A trace being written: its temporary file, renamed over target at the end. */
struct trace_out {
	char *target; /* @path, or the file its symlink names (output_target) */
	char *tmp;
};

/**
 * trace_out_create - check @path (trace_out_check) and open its temporary
 * file for reading and writing, with the replaced file's permissions.
 * Return: the stream, or NULL with the reason in @err.
 */
FILE *trace_out_create(const char *path, struct trace_out *out, char *err, size_t errlen);

/**
 * trace_out_commit - rename the temporary file (closed by the caller) over
 * the target. Return: 0, or -1 with the reason in @err, naming @path; the
 * temporary file is removed either way.
 */
int trace_out_commit(struct trace_out *out, const char *path, char *err, size_t errlen);

/* trace_out_discard - remove the temporary file, if any, and forget @out. */
void trace_out_discard(struct trace_out *out);

/* trace_free - free @t's events and Linux block, or close its file. */
void trace_free(struct trace *t);

/* "every-return", "evidence" (FPULAB_FP_USE_*), or "?". */
const char *trace_fp_use_name(unsigned int fp_use);

/* "@h->ntasks tasks"; for a trace imported from Linux (@x) whose ids were reused after
 * exits, "N task ids (reused: M user tasks over the recording)" (imported before those
 * were counted: "N task ids (reused after exits)"). Returns @buf. */
const char *trace_tasks_text(char *buf, size_t len, const struct fpulab_trace_header *h,
			     const struct fpulab_trace_linux *x);

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
