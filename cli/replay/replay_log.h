/* SPDX-License-Identifier: MIT */
/*
 * A policy's floor log (docs/model.md, "Floor"), as the replay engine
 * writes and reads it: per libfpu call of a recording run, the saves and
 * restores it executed (instruction, area, mask) and what the harness saw
 * of it (TS mirror writes, IPI deliveries), in order; a bare run plays the
 * calls back one by one. Kept as a byte stream (replay_log.c): 2.7 to 4.5
 * bytes per trace event on the synthetic workloads, where structs of 8
 * bytes per call and 24 per effect took about 30, so that every policy's
 * log of a 10^7-switch trace fits in memory at once.
 *
 * Built with -mgeneral-regs-only, like the engine: it is written inside
 * libfpu's calls and read between the simulated tasks' uses of the vector
 * registers, so it calls nothing that may touch them (no libc but malloc
 * and free, called only outside a run).
 */
#ifndef FPULAB_CLI_REPLAY_REPLAY_LOG_H
#define FPULAB_CLI_REPLAY_REPLAY_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <fpu/xstate.h>

/* One logged effect of a libfpu call. */
enum log_kind {
	OP_XSAVE,
	OP_XSAVEOPT,
	OP_XSAVEC,
	OP_FXSAVE,
	OP_XRSTOR,
	OP_FXRSTOR,
	OP_GOTO_CPU, /* IPI delivery: the engine moves to @cpu (untimed, as host_send_flush_ipi) */
	OP_TS_SET,
	OP_TS_CLEAR,
	OP_END, /* in the stream only: the end of a call */
};

/* A save or restore: the kinds up to OP_FXRSTOR. */
static inline bool log_op_saves(uint32_t kind)
{
	return kind <= OP_FXSAVE;
}

static inline bool log_op_restores(uint32_t kind)
{
	return kind == OP_XRSTOR || kind == OP_FXRSTOR;
}

/* One effect as a bare run plays it. */
struct log_op {
	const struct xregs_state *area;
	uint64_t mask; /* as the instruction gets it */
	uint32_t kind; /* enum log_kind */
	uint32_t cpu;  /* OP_GOTO_CPU */
};

/* The most effects one libfpu call may log (a switch saves, restores, writes TS: a few). */
#define LOG_CALL_MAX_OPS 64

/*
 * The save areas a log names by index (the replay's, one per task), with a
 * hash from address to index for the recording run. An area outside them
 * is logged by its address.
 */
struct log_areas {
	struct xregs_state *const *area;
	uint32_t n;
	uint32_t *slot; /* index + 1, 0: empty; hmask + 1 slots */
	uint32_t hmask;
};

/* log_areas_init - @a for @n areas at @area (kept, not copied). Return: 0, or -1 out of memory. */
int log_areas_init(struct log_areas *a, struct xregs_state *const *area, uint32_t n);
void log_areas_free(struct log_areas *a);

#define LOG_NMASKS 15 /* masks a log names by index; others are logged whole */

struct replay_log {
	uint8_t *buf;
	size_t len, cap;
	size_t last_end;   /* offset of the last call's END byte; SIZE_MAX: none */
	unsigned call_ops; /* effects of the call being logged so far */
	bool overflow;     /* out of room: the run is recorded again in a larger log */
	bool too_long;     /* a call logged more than LOG_CALL_MAX_OPS effects */
	uint64_t saves, restores, ncall;
	uint64_t mask[LOG_NMASKS];
	unsigned nmask;
};

/* log_reset - empty @l for a new recording run. */
void log_reset(struct replay_log *l);

/* log_op - append one effect; @area (names by @a's index where it can), @mask, @cpu as its kind needs. */
void log_op(struct replay_log *l, const struct log_areas *a, uint32_t kind,
	    const struct xregs_state *area, uint64_t mask, uint32_t cpu);

/* log_end - end the current call: @timed, a TIMED() call (else a LIB() one). */
void log_end(struct replay_log *l, bool timed);

/* log_mark_skip - the call just ended was an fpu_switch() that only skipped a restore. */
void log_mark_skip(struct replay_log *l);

/* What a bare run reads of one call. */
struct log_call {
	unsigned nops;
	bool timed, skip;
	size_t next; /* offset of the call after it */
};

/*
 * log_next - the call at offset @pos of @l: its effects into @ops (room for
 * LOG_CALL_MAX_OPS), decoded with @a, and where the next call starts.
 * Return: false at the end of the log or where it cannot be read.
 */
bool log_next(const struct replay_log *l, size_t pos, const struct log_areas *a, struct log_op *ops,
	      struct log_call *c);

#endif
