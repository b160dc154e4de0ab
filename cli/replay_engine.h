/* SPDX-License-Identifier: MIT */
/*
 * Native replay of a trace through libfpu (docs/model.md): one host thread,
 * the traced CPUs' registers simulated by swapping per-CPU register images
 * in and out of the real registers (untimed), every libfpu hook timed with
 * the TSC, real XSAVE-family saves and XRSTOR on real register contents.
 */
#ifndef FPULAB_CLI_REPLAY_ENGINE_H
#define FPULAB_CLI_REPLAY_ENGINE_H

#include <stdint.h>

#include "trace_io.h"

struct replay_counts {
	uint64_t switches, nm_traps, saves, restores, restores_skipped, flush_ipis, ts_writes,
		kernel_fpu_sections, prefetches;
	uint64_t integrity_errors; /* a use found registers that were not the task's own */
};

struct replay_result {
	struct replay_counts n;
	int64_t ticks;        /* TSC ticks inside libfpu's hooks, timer overhead subtracted */
	uint64_t *skip_ticks; /* ticks of each switch that only skipped a restore */
	uint64_t nskip;
	uint64_t clipped; /* hook calls over 20000 ticks (interrupted), left out of ticks */
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
 * (every task in the init state, no owner, TS clear). @r->skip_ticks must
 * have room for one entry per switch. Return: 0, or -1 if the policy is
 * unknown.
 */
int replay_run(struct replay *rp, const char *policy, struct replay_result *r);

/* TSC ticks of one empty timed region (median), subtracted from each hook's figure. */
uint64_t replay_timer_overhead(const struct replay *rp);

/*
 * replay_floor - the native cost of one save (libfpu's instruction) and one
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
