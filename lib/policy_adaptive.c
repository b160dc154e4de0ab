/* SPDX-License-Identifier: MIT */
/*
 * adaptive: per task, predict from the slices observed so far whether it
 * will use the FPU in the next one, and at each switch-in choose the
 * cheaper of giving it its registers now and leaving CR0.TS set (a trap if
 * it does use them), from the costs in struct fpu_costs (fpu_set_costs()).
 *
 * - Both choices take effect on the task's way back to ring 3
 *   (FPU_F_NEED_LOAD, FPU_F_NEED_TS: a task that blocks again in the
 *   kernel loads nothing and writes no CR0), with owner tracking: when
 *   this CPU's registers still hold the task's state (fpregs_hold), "now"
 *   costs no restore, only clearing TS if it is set. A slice that never
 *   reached ring 3 is no observation.
 * - Saves as in smp-lazy (the fpu_held_* mechanism): the outgoing task's
 *   live registers stay in this CPU, unsaved, until another task needs them
 *   (a load saves them first) or the task runs on another CPU (a flush IPI
 *   from there). A task that is moving (fpu_task_migrated() before its
 *   switch-out) is saved at switch-out instead; so is one that moved
 *   unannounced lately, until it has stayed on one CPU for ipi_ns / save_ns
 *   switch-ins (at most 255): holding it would risk an IPI to save a save.
 * - A slice is observed when the task ran with TS set: its #NM says it used
 *   the FPU, no #NM that it did not. The last 8 observations and how many
 *   there are are kept (struct fpu_adaptive); an #NM is counted as a use
 *   even in a slice not meant as an observation.
 * - A task with no observation yet is judged by the first watched slices
 *   of the tasks new on its CPU before it (struct fpu_cpu.newcomers; seed
 *   002: at boot most new tasks use the FPU at once), once there are 4 of
 *   them; one in 8 such decisions watches it anyway, so that this prior
 *   follows the population.
 * - A task whose unsaved state this CPU still holds (f->holder == cpu) gets
 *   it back at once, as under smp-lazy, when TS is clear; when TS is set,
 *   clearing it (a CR0 write) is weighed against a trap like any "now".
 * - A task given its registers is not observed; so that its prediction can
 *   change, now and then a "now" that costs something (a restore, or
 *   clearing TS for held registers) leaves TS set instead: a sample, one
 *   such decision in 8 << level, at most one in 1024. A sample that
 *   confirms the prediction (an #NM) raises the level, one that refutes it
 *   starts again at 0 (exponential backoff). Giving back registers that
 *   cost nothing to give back is never sampled.
 * The decision, with p = uses/observations and ts whether TS is set now:
 *   now  = (holds ? 0 : restore) + (ts ? cr0 : 0) + (1 - p) * (live ? 0 : save)
 *   trap = (ts ? 0 : cr0) + p * (trap + cr0 + (holds ? 0 : restore))
 * (a task given registers that were not live makes them live, so they are
 * saved later even when it does not use them: the (1 - p) * save; held
 * registers are live already). Integer arithmetic, in ns multiplied by the
 * number of observations.
 *
 * Invariants: those of smp-lazy for f->holder (policy_smp_lazy.c); a task
 * whose state another CPU holds is never given its registers at switch-in:
 * it runs with TS set and its #NM waits for the flush.
 */
#include "internal.h"

#define ADAPT_OBSERVING 1u     /* this slice runs with TS set to observe */
#define ADAPT_USED 2u          /* it took an #NM in this slice */
#define ADAPT_SAMPLED 4u       /* the observation is a sample of a "now" prediction */
#define ADAPT_MAX_LEVEL 7u     /* 8 << 7: a sample every 1024 decisions at most */
#define ADAPT_MIN_NEWCOMERS 4u /* newcomers a CPU has watched before they judge the next */

static struct fpu_costs costs = {
	.trap_ns = FPU_DEFAULT_TRAP_NS,
	.cr0_ns = FPU_DEFAULT_CR0_NS,
	.ipi_ns = FPU_DEFAULT_IPI_NS,
	.save_ns = FPU_DEFAULT_SAVE_NS,
	.restore_ns = FPU_DEFAULT_RESTORE_NS,
};

/*
 * Switch-ins to wait after an unannounced move before a task's state is held:
 * ipi_ns / save_ns (1000 / 50 by default), at most 255. Set with the costs,
 * not divided at every move.
 */
static uint8_t stay_after_move = 20;

void fpu_set_costs(const struct fpu_costs *c)
{
	uint32_t wait = c->save_ns ? c->ipi_ns / c->save_ns : 255;
	costs = *c;
	stay_after_move = (uint8_t)(wait < 255 ? wait : 255);
}

void fpu_get_costs(struct fpu_costs *c)
{
	*c = costs;
}

static unsigned int popcount8(unsigned int x)
{
	x = (x & 0x55) + ((x >> 1) & 0x55);
	x = (x & 0x33) + ((x >> 2) & 0x33);
	return (x & 0x0f) + (x >> 4);
}

/* An observation into a history: bit 0 the latest, up to 8. */
static void record(struct fpu_adaptive *a, unsigned int used)
{
	a->hist = (uint8_t)(a->hist << 1 | used);
	if (a->nobs < 8)
		a->nobs++;
}

/* The slice of @a's task that just ended on @c: record what it showed. */
static void end_slice(struct fpu_cpu *c, struct fpu_adaptive *a)
{
	if (!a->slice)
		return;
	if (a->slice & (ADAPT_OBSERVING | ADAPT_USED)) {
		unsigned int used = (a->slice & ADAPT_USED) ? 1u : 0u;
		if (!a->nobs)
			record(&c->newcomers, used); /* its first: for the next newcomers' prior */
		record(a, used);
		if (a->slice & ADAPT_SAMPLED)
			a->level = used ? (a->level < ADAPT_MAX_LEVEL ? a->level + 1 : a->level)
					: 0;
	}
	a->slice = 0;
}

/* now_is_cheaper() for a history with uses in some slices and not in others. */
static bool now_is_cheaper_mixed(const struct fpu_cpu *c, const struct fpu_adaptive *a, bool holds,
				 bool live)
{
	uint64_t n = a->nobs, used = popcount8(a->hist); /* bits above nobs are still 0 */
	uint64_t restore = holds ? 0 : costs.restore_ns, save = live ? 0 : costs.save_ns;
	uint64_t now = n * (restore + (c->ts ? costs.cr0_ns : 0)) + (n - used) * save;
	uint64_t trap = n * (c->ts ? 0 : costs.cr0_ns) +
			used * (costs.trap_ns + costs.cr0_ns + restore);
	return now < trap;
}

/*
 * Whether giving @f its registers now is expected to cost less than a trap.
 * @holds: this CPU's registers hold @f's state (no restore); @live: they are
 * live already (held unsaved: giving them back adds no save). Inline: the
 * common answers (nothing known, never a use, a use every time) need no
 * arithmetic.
 */
static inline bool now_is_cheaper(const struct fpu_cpu *c, const struct fpu_adaptive *a, bool holds,
				  bool live)
{
	unsigned int n = a->nobs;
	if (!n)
		return false; /* nothing known yet: watch it */
	if (!a->hist)         /* no use seen: only registers held live with TS clear are worth it */
		return holds && live && !c->ts;
	if (a->hist == 0xffu >> (8 - n)) /* a use in every watched slice: the formula's answer */
		return costs.trap_ns + (c->ts ? 0 : costs.cr0_ns) > 0;
	return now_is_cheaper_mixed(c, a, holds, live);
}

/* Count a "now" decision that costs something; whether it is to be a sample (one in 8 << level). */
static bool sample_now(struct fpu_adaptive *a)
{
	if (++a->since < 8u << a->level)
		return false;
	a->since = 0;
	return true;
}

/*
 * A task with no watched slice yet is judged by the first watched slices of
 * the tasks new on this CPU before it (seed 002: at boot most new tasks use
 * the FPU at once), and one in 8 such decisions watches it anyway, so that
 * this prior follows the population. With fewer than ADAPT_MIN_NEWCOMERS
 * seen yet: watch (one FP task's first slice says nothing of the next task).
 */
static bool newcomer_now(struct fpu_cpu *c, bool holds)
{
	struct fpu_adaptive *nc = &c->newcomers;
	if (nc->nobs < ADAPT_MIN_NEWCOMERS)
		return false; /* too few to go by: watch it */
	if (++nc->since >= 8) {
		nc->since = 0;
		return false;
	}
	return now_is_cheaper(c, nc, holds, false);
}

/* Note where @a's task runs now; after a move, it waits ipi/save switch-ins before being held. */
static void note_cpu(struct fpu_adaptive *a, unsigned int cpu)
{
	if (a->cpu == cpu + 1) {
		if (a->stay)
			a->stay--;
		return;
	}
	if (a->cpu)
		a->stay = stay_after_move;
	a->cpu = (uint8_t)(cpu + 1);
}

#define ADAPT_NEED (FPU_F_NEED_LOAD | FPU_F_NEED_TS | FPU_F_NOT_IN_USER)

/* Leave the task a trap: TS set on its way to ring 3 (none if it blocks first). */
static void observe(const struct fpu_cpu *c, struct fpu *f, unsigned int how)
{
	f->flags = (f->flags & ~ADAPT_NEED) | (c->ts ? FPU_F_NOT_IN_USER : FPU_F_NEED_TS);
	f->adaptive.slice |= how;
}

/* Give the task its registers on its way to ring 3 (nothing if it blocks first). */
static void give(struct fpu *f)
{
	f->flags = (f->flags & ~ADAPT_NEED) | FPU_F_NEED_LOAD;
	f->adaptive.slice &= ~(ADAPT_OBSERVING | ADAPT_SAMPLED); /* it runs with its registers */
}

static void adaptive_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev) {
		unsigned int flags = prev->flags;
		if (flags & ADAPT_NEED) {
			/* A slice that never reached ring 3 observed nothing. */
			if (flags & (FPU_F_NEED_TS | FPU_F_NOT_IN_USER))
				prev->adaptive.slice = 0;
			prev->flags = flags & ~ADAPT_NEED;
		}
		end_slice(c, &prev->adaptive);
		bool moving = flags & FPU_F_MIGRATING; /* fpu_task_migrated(): it moves now */
		if (c->live && c->owner == prev) {
			if (moving || prev->adaptive.stay) /* do not make its next CPU wait */
				fpu_save_regs(c, cpu, prev);
			else /* held here, unsaved */
				__atomic_store_n(&prev->holder, (int)cpu, __ATOMIC_RELEASE);
		}
		if (moving)
			prev->adaptive.cpu = 0; /* an announced move: no need to wait after it */
	}
	if (!next)
		return;
	struct fpu_adaptive *a = &next->adaptive;
	note_cpu(a, cpu);
	int holder = __atomic_load_n(&next->holder, __ATOMIC_ACQUIRE);
	if (holder == (int)cpu) {
		/* Still live here, unsaved: its own again, as under smp-lazy. */
		next->holder = -1;
		if (!c->ts)
			fpu_activate(c, cpu, next); /* nothing to do: a skipped restore */
		/* With TS set, a trap may be the cheaper: TS stays, an #NM gives them back. */
		else if (!now_is_cheaper(c, a, true, true))
			observe(c, next, ADAPT_OBSERVING);
		else if (sample_now(a))
			observe(c, next, ADAPT_OBSERVING | ADAPT_SAMPLED);
		else
			give(next); /* TS cleared on the way to ring 3, a skipped restore */
		return;
	}
	/*
	 * Watched, never seen to use the FPU: TS set on its way to ring 3, as
	 * under lazy (nothing to do if it is set already). Another slice
	 * without a use would teach nothing (p stays 0, so no "now" is ever
	 * chosen), so the slice is no observation; an #NM is still recorded
	 * (handle_nm marks the slice).
	 */
	if (holder < 0 && !a->hist && a->nobs) {
		if (!c->ts)
			next->flags = (next->flags & ~ADAPT_NEED) | FPU_F_NEED_TS;
		return;
	}
	if (holder >= 0) {
		c->stats.flush_ipis++; /* load at its first use, after the flush */
		fpu_ops->send_flush_ipi((unsigned int)holder);
		observe(c, next, ADAPT_OBSERVING);
		return;
	}
	bool holds = fpregs_hold(c, cpu, next);
	if (!(a->nobs ? now_is_cheaper(c, a, holds, false) : newcomer_now(c, holds)))
		observe(c, next, ADAPT_OBSERVING);
	else if (!holds && sample_now(a))
		observe(c, next, ADAPT_OBSERVING | ADAPT_SAMPLED);
	else
		give(next);
}

static void adaptive_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	cur->adaptive.slice |= ADAPT_USED;
	if (__atomic_load_n(&cur->holder, __ATOMIC_ACQUIRE) >= 0)
		fpu_held_wait(cur); /* the flush asked for at switch-in */
	fpu_activate(c, cpu, cur);
}

/* After a kernel-FPU section, an import or a reset: the same choice, registers not held. */
static void adaptive_reload(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (now_is_cheaper(c, &cur->adaptive, false, false)) {
		give(cur);
	} else {
		/* TS now, not on the way to ring 3; the task is still not there */
		unsigned int flags = cur->flags;
		cur->flags = (flags & ~(FPU_F_NEED_LOAD | FPU_F_NEED_TS)) |
			     ((flags & FPU_F_NEED_TS) ? FPU_F_NOT_IN_USER : 0);
		fpu_ts_set(c);
	}
}

const struct fpu_policy fpu_policy_adaptive = {
	.name = "adaptive",
	.flags = 0, /* it decides by the costs it is given: not static */
	.switch_to = adaptive_switch,
	.handle_nm = adaptive_handle_nm,
	.flush_ipi = fpu_held_flush_ipi,
	.fetch = fpu_held_fetch,
	.saved = fpu_held_saved,
	.reload = adaptive_reload,
};
