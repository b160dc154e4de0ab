/* SPDX-License-Identifier: MIT */
/*
 * Native replay of a trace through libfpu (docs/model.md): one host thread,
 * the traced CPUs' registers simulated by swapping per-CPU register images
 * in and out of the real registers (untimed), every libfpu hook timed with
 * the TSC, real XSAVE-family saves and XRSTOR on real register contents.
 */
#ifndef FPULAB_CLI_REPLAY_REPLAY_ENGINE_H
#define FPULAB_CLI_REPLAY_REPLAY_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace/trace_io.h"

struct replay_counts {
	uint64_t switches, nm_traps, saves, restores, restores_skipped, flush_ipis, ts_writes,
		kernel_fpu_sections, prefetches;
	uint64_t integrity_errors; /* a use found registers that were not the task's own */
};

struct replay_log;

/*
 * A run's first integrity error: where (event index from 0, its seq, the
 * task and traced CPU of the use) and what: @components the XCR0 bits of
 * the components the registers had wrong (0: CR0.TS was still set after
 * the #NM handler), @component the first of them with the 64 bits the
 * check reads from it (@got, from the registers) and those the task last
 * wrote there (@want).
 */
struct replay_integrity {
	uint64_t event;
	uint32_t seq;
	uint32_t task, cpu;
	uint32_t components, component;
	uint64_t got, want;
};

/* The register a component's check reads, for messages: "SSE (XMM0 low)". */
const char *replay_component_name(uint32_t bit);

/* The libfpu calls the engine times, by entry point (replay_hook_names). */
enum replay_hook {
	REPLAY_HOOK_SWITCH,
	REPLAY_HOOK_RETURN,
	REPLAY_HOOK_NM,
	REPLAY_HOOK_KFPU_BEGIN,
	REPLAY_HOOK_KFPU_END,
	REPLAY_HOOK_EXIT,
	REPLAY_HOOK_IMPORT, /* fpu_import_std, fpu_sigframe_restore, fpu_task_reset */
	REPLAY_HOOK_MIGRATE,
	REPLAY_HOOK_OTHER,
	REPLAY_HOOK_NR,
};
extern const char *const replay_hook_names[REPLAY_HOOK_NR];

/*
 * A hook call longer than this many TSC ticks was interrupted or preempted
 * (the host is shared): it is left out and counted (replay_result.clipped).
 */
#define REPLAY_CLIP_TICKS 20000
/* Counters of replay_result.skip_hist: a switch's ticks, 0 to REPLAY_CLIP_TICKS. */
#define REPLAY_SKIP_HIST (REPLAY_CLIP_TICKS + 1)

struct replay_result {
	struct replay_counts n;
	struct replay_integrity first; /* valid when n.integrity_errors > 0 */
	int64_t ticks;          /* TSC ticks inside libfpu's hooks, timer overhead subtracted */
	uint32_t *skip_hist;    /* NULL, or REPLAY_SKIP_HIST counters: such switches by ticks */
	uint64_t nskip;         /* switches that only skipped a restore */
	int64_t skip_sum;       /* their ticks, summed (timer overhead subtracted) */
	uint64_t clipped;       /* hook calls over 20000 ticks (interrupted), left out of ticks */
	uint64_t desync;        /* replay_bare: libfpu calls the log did not match (0 when sound) */
	struct replay_log *log; /* replay_record's; NULL otherwise */
	int64_t hook_ticks[REPLAY_HOOK_NR]; /* ticks, as @ticks, by the entry point timed */
	uint64_t hook_calls[REPLAY_HOOK_NR];
	uint64_t regions[REPLAY_HOOK_NR]; /* timed regions, clipped ones too: the same every run */
};

struct replay;

/*
 * replay_new - set up a replay of @t (checked) on this host: xstate_init()
 * (user mode, save instruction @insn), libfpu with host callbacks, one save
 * area per task, one register image per traced CPU. Use masks are cut to
 * this host's XCR0. Return: NULL after a message on stderr.
 */
struct replay *replay_new(const struct trace *t, int insn);

/*
 * replay_run - replay the whole trace under @policy from a fresh start
 * (every task in the init state, no owner, TS clear). @r->skip_hist is
 * NULL or REPLAY_SKIP_HIST counters, zeroed first, that count the switches
 * that only skipped a restore by their ticks (a clipped or negative one at
 * 0); @r->log is NULL. Return: 0, -1 if the policy is unknown, -3 if the
 * trace's file could not be read again (said on stderr: it changed since it
 * was checked).
 */
int replay_run(struct replay *rp, const char *policy, struct replay_result *r);

/*
 * The floor of a policy's native figure (docs/model.md): replay_record()
 * runs the policy as replay_run() does and logs, per libfpu call, the saves
 * and restores it executed (area, mask, instruction, in order) and the TS
 * writes and IPI deliveries the harness saw. replay_bare() then replays the
 * same events with, in place of each libfpu call, only its logged
 * instructions, inside the same timed region: its ticks are what the
 * policy's saves and restores cost without libfpu around them. With
 * @empty, the same timed regions with nothing in them: the timing's own
 * residue (what fencing and reading the TSC add to a region in this
 * context, beyond the subtracted overhead). Its counts:
 * the switches, the saves and restores executed, and the integrity errors
 * (0 when the log is faithful); r->desync counts calls it could not match.
 * Return: 0; replay_record -1 for an unknown policy, -2 out of memory or a
 * libfpu call with more effects than a log call holds (said on stderr);
 * replay_bare -1 for a log that is not complete; either -3 as replay_run.
 */
struct replay_log *replay_log_new(const struct trace *t);
void replay_log_free(struct replay_log *log);
int replay_record(struct replay *rp, const char *policy, struct replay_log *log,
		  struct replay_result *r);
int replay_bare(struct replay *rp, const struct replay_log *log, bool empty,
		struct replay_result *r);
/*
 * replay_empty_calls - replay_bare(@empty) with, in each region, a call of
 * an empty out-of-line function: against the empty run, the least a libfpu
 * entry point that is a call can add to a policy's overhead. Return: as
 * replay_bare.
 */
int replay_empty_calls(struct replay *rp, const struct replay_log *log, struct replay_result *r);
/* The saves and restores a log holds. */
uint64_t replay_log_saves(const struct replay_log *log);
uint64_t replay_log_restores(const struct replay_log *log);
/* The bytes a log holds (replay_log.h's encoding). */
size_t replay_log_bytes(const struct replay_log *log);

/* TSC ticks of one empty timed region (the least of 501), subtracted from each hook's figure. */
uint64_t replay_timer_overhead(const struct replay *rp);

/*
 * replay_floor - the batch figure: the native cost of one save (libfpu's instruction) and one
 * XRSTOR of every component in @mask, registers dirty, through libfpu's
 * xstate_save/xstate_restore: median over @samples batches of 16, in TSC
 * ticks per operation. Leaves the registers in init state.
 */
void replay_floor(struct replay *rp, uint32_t mask, unsigned int samples, uint64_t *save_ticks,
		  uint64_t *restore_ticks);

/* replay_policy_names - the policies libfpu offers (fpu_policy_names()), NULL-terminated. */
const char *const *replay_policy_names(void);

void replay_free(struct replay *rp);

#endif
