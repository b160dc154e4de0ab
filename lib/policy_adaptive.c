/* SPDX-License-Identifier: MIT */
/*
 * adaptive: per task, estimate from the slices observed so far how likely
 * it is to use the FPU in the next one, and at each switch-in choose the
 * cheaper of giving it its registers now and leaving CR0.TS set (a trap if
 * it does use them), from the costs in struct fpu_costs (fpu_set_costs()).
 *
 * - Both choices take effect on the task's way back to ring 3
 *   (FPU_F_NEED_LOAD, FPU_F_NEED_TS: a task that blocks again in the
 *   kernel loads nothing and writes no CR0), with owner tracking: when
 *   this CPU's registers still hold the task's state (fpregs_hold), "now"
 *   costs no restore. A slice that never reached ring 3 is no observation.
 * - A slice is observed when the task ran with TS set: its #NM says it used
 *   the FPU, no #NM that it did not. struct fpu_adaptive keeps the uses and
 *   observations, both halved when the count reaches ADAPT_WINDOW (a long
 *   memory: with 8 slices, a task that uses the FPU in a quarter of them
 *   showed 4 or more in 11% of its histories and was given registers it
 *   did not use). It also keeps, for its last 8 switch-ins, whether the
 *   registers it left with were still its own, or, if it left without,
 *   whether they would have been: same CPU, nothing loaded there since
 *   (regs_taken). Measured only after slices that had registers, a task
 *   trapped at every switch-in had them only after its uses: one that moves
 *   after each use, but not after a slice without one, measured none kept
 *   and was trapped at every use where owner beat it by 1.13x (the lab's
 *   context-switch, migrating, FP in one task; docs/model.md).
 * - A task with no observation yet is judged by the first watched slices
 *   of the tasks new before it, on any CPU (fpu_newcomers, one prior for
 *   all CPUs: seed 002: at boot most new tasks use the FPU at once), once
 *   there are ADAPT_MIN_NEWCOMERS of them; before that it is watched. The
 *   prior is sampled like a task's own estimate, and each task it judges
 *   on its own count too (prior_outlived): the prior's interval is shared by
 *   every task it judges, and one that outlives its first slices without a
 *   use would otherwise wait for it (a shell in a pipeline: 2,994 switch-ins
 *   given, docs/model.md).
 * - Saves as in smp-lazy (the fpu_held_* mechanism): the outgoing task's
 *   live registers stay in this CPU, unsaved, until another task needs them
 *   (a load saves them first) or the task uses the FPU on another CPU,
 *   whose #NM then has them flushed (an IPI, and wait). A task that is
 *   moving (fpu_task_migrated() before its switch-out) is saved at
 *   switch-out instead, and so is every task on a CPU where holding has
 *   cost more than it spared (struct fpu_cpu.hold_gain: a save for each
 *   switch-in that finds its task's registers still its own, held or not,
 *   less an IPI for each flush of state held there, capped at one IPI ahead:
 *   an IPI stops holding until the saves it would spare make up for it; in
 *   the lab's stress trace each of three IPIs fetched a different task,
 *   thousands of switches apart). One moved while switched out is saved at
 *   once by the CPU holding it (no IPI later; adaptive_migrated), and so is one
 *   that moved that way or unannounced lately at its switch-outs, until it
 *   has stayed on one CPU for ipi_ns / save_ns switch-ins (at most 255):
 *   holding it would risk an IPI to spare a save. A task new to a CPU waits
 *   as long unless no task came to that CPU, or left it, unannounced in the
 *   last ipi_ns / save_ns switch-ins there (struct fpu_cpu.calm).
 * - A task whose unsaved state this CPU still holds (f->holder == cpu) gets
 *   it back at once, as under smp-lazy, when TS is clear; when TS is set,
 *   clearing it (a CR0 write) is weighed against a trap like any "now", by
 *   the task's estimate or, if it has none (given since it came), the prior.
 * - A task given its registers is not observed; so that its estimate can
 *   change, some costly "now" decisions (a restore, a CR0 write or a later
 *   save) leave TS set instead: a sample. One is taken once the decisions
 *   since the last, each wasting what "now" wastes in a slice without a use
 *   (waste), number at least ADAPT_K (margin / waste)^2 << level and at
 *   least 1 << level, where margin is what "now" was expected to save: a
 *   close call is sampled at once, a sure one seldom. At reload (after a
 *   reset, an import or a kernel-FPU section) one is also taken once they
 *   number ADAPT_RELOAD_K (observations + 1) << level: the margin rests on
 *   the switch-in slices observed, which say little about the slice after a
 *   reset (in a shell's pipeline most uses follow one). A sample after which
 *   the estimate still chooses "now" (not held, TS clear) raises the level
 *   (at most ADAPT_MAX_LEVEL); one that turns it to a trap starts at 0.
 *   Giving back registers that cost nothing to give back is never sampled.
 * The decision, with p = uses / observations (a task's own estimate counts
 * the prior as one observation more: count_the_prior), s the share of
 * switch-ins that found its registers still its own (half of it: q below
 * takes slices as independent, which they are not; taken whole, it had
 * the pipeline recording at 6.6x of lazy-counter at trap 150 ns),
 * q = (1 - p)(1 - s) / (1 - s(1 - p)) the chance that registers given now
 * are lost before a use (for held registers, q = 1 - p: this slice only),
 * and ts whether TS is set now:
 *   now  = (holds ? 0 : restore) + (ts ? (1 + f) cr0 : 0)
 *          + q * (live ? 0 : save)
 *   trap = (ts ? 0 : (1 - f) cr0)
 *          + (1 - q) * (trap + (1 + f) cr0 + (holds ? 0 : restore))
 * (registers given that were not live become live, so they are saved later
 * even when they go unused; held registers are live already). f is the
 * share of this CPU's recent switch-ins that would have left TS set had
 * they found it set (struct fpu_cpu.watch_s, a moving average): that share
 * of the CR0 write setting TS again is charged to the clear that makes it
 * needed, the rest to the set itself. Where every task keeps TS set (f = 1)
 * a slice without a use writes no CR0, as under lazy, and a use pays both
 * writes; where none does (f = 0), each write is charged where it happens.
 * Charged only where it happens, a CPU whose tasks use the FPU in a sixth
 * of their slices gave every one its registers at a 63-ns trap, the TS
 * clear each left making the next give too (docs/model.md). Integer
 * arithmetic, in ns times the denominator of q times ADAPT_WATCH_ONE.
 *
 * Invariants: those of smp-lazy for f->holder (policy_smp_lazy.c); a task
 * whose state another CPU holds is never given its registers, neither at
 * switch-in nor at reload: it runs with TS set and its #NM fetches the
 * state (fpu_held_fetch: the flush IPI, and wait) before loading it.
 */
#include "internal.h"

#define ADAPT_OBSERVING 1u /* this slice runs with TS set to observe */
#define ADAPT_USED 2u      /* it took an #NM in this slice */
#define ADAPT_SAMPLED 4u   /* the observation is a sample of a "now" prediction */
#define ADAPT_HAD_REGS 8u  /* switched out with registers valid for it (until its switch-in) */
#define ADAPT_NO_REGS 16u  /* switched out without: had it had them, would they be kept? */

#define ADAPT_WINDOW 250u      /* observations and uses are halved at this count */
#define ADAPT_K 16u            /* sample interval: ADAPT_K (margin / waste)^2 << level */
#define ADAPT_RELOAD_K 32u     /* ... at reload, at most ADAPT_RELOAD_K (nobs + 1) << level */
#define ADAPT_MAX_LEVEL 10u    /* the interval doubles at most 10 times */
#define ADAPT_KEPT_SHARE 2u    /* s is taken as half the share measured */
#define ADAPT_MIN_NEWCOMERS 2u /* newcomers watched (on any CPU) before they judge the next */
#define ADAPT_PRIOR_K 16u      /* a task judged by the prior: sampled at K (margin / waste) */
#define ADAPT_PRIOR_MIN 32u    /* ... x (p / (1 - p)) of its own decisions, at least 32 */
#define ADAPT_WATCH_ONE 65536u /* fpu_cpu.watch_s's unit: a CPU whose every task keeps TS set */
#define ADAPT_WATCH_DECAY 16   /* ... moved a sixteenth of the way at each switch-in */
#define ADAPT_MOVED 0xffu      /* fpu_adaptive.cpu after an announced move */
#define ADAPT_MOVED_OUT 0xfeu  /* ... after a move while switched out (fpu_task_migrated) */

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

/* @a x @b, or UINT64_MAX where it does not fit: the sampling tests compare products of costs. */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* @a << @n (n < 64), or UINT64_MAX where it does not fit. */
static uint64_t shl_sat(uint64_t a, unsigned int n)
{
	return a > UINT64_MAX >> n ? UINT64_MAX : a << n;
}

static unsigned int popcount8(unsigned int x)
{
	x = (x & 0x55) + ((x >> 1) & 0x55);
	x = (x & 0x33) + ((x >> 2) & 0x33);
	return (x & 0x0f) + (x >> 4);
}

/* An observation: one more slice, a use or not; both counts halved at the window. */
static void record(struct fpu_adaptive *a, unsigned int used)
{
	a->uses += used;
	if (++a->nobs >= ADAPT_WINDOW) {
		a->nobs -= a->nobs >> 1;
		a->uses -= a->uses >> 1;
	}
}

/*
 * Loads and kernel-FPU sections on @c so far (mod 2^32): a task that left
 * @c without registers would have kept them, had it had them, if this has
 * not moved by its next switch-in there.
 */
static uint32_t regs_taken(const struct fpu_cpu *c)
{
	return (uint32_t)(c->stats.restores + c->stats.kernel_fpu_sections);
}

/* Whether its registers were (or would have been) still its own at a switch-in. */
static void record_kept(struct fpu_adaptive *a, unsigned int kept)
{
	a->kept = (uint8_t)(a->kept << 1 | kept);
	if (a->nkept < 8)
		a->nkept++;
}

/*
 * A task's own estimate counts the newcomers' prior as one observation
 * more: p = (uses + p0) / (observations + 1), p0 the prior's uses over its
 * observations, both counts times the prior's observations to stay in
 * integers. One slice with a use is then no certainty: a pipeline's shell,
 * watched once as it used the FPU, was given its registers at every
 * switch-in and reload after until a sample, dozens of them later
 * (docs/model.md). Nothing is counted before the prior has observations,
 * nor for a task never seen to use the FPU: it is watched as under lazy.
 */
static void count_the_prior(uint64_t *n, uint64_t *used)
{
	uint64_t n0 = fpu_newcomers.nobs, u0 = fpu_newcomers.uses < n0 ? fpu_newcomers.uses : n0;
	if (!n0)
		return;
	*used = *used * n0 + u0;
	*n = (*n + 1) * n0;
}

/* What a task's next slice is expected to cost either way, in ns times @scale. */
struct weights {
	uint64_t now, trap, scale;
	uint64_t lost; /* q = lost / (scale / ADAPT_WATCH_ONE) */
	bool keeps_ts; /* with TS set and none of the next set charged, a trap wins */
};

/*
 * The formula above for the task known by @a, with TS as @ts says; @holds:
 * this CPU's registers hold its state (no restore); @live: they are live
 * already (held unsaved: giving them back adds no save).
 */
static inline struct weights weigh(bool ts, const struct fpu_adaptive *a, bool holds, bool live,
				   unsigned int k)
{
	uint64_t n = a->nobs, used = a->uses < a->nobs ? a->uses : a->nobs;
	/* (clipped: the newcomers' prior is shared by all CPUs, unlocked, so
	 * two updates at once may leave uses above nobs) */
	if (used && a != &fpu_newcomers)
		count_the_prior(&n, &used); /* (never seen to use it: p = 0, as under lazy) */
	uint64_t restore = holds ? 0 : costs.restore_ns, save = live ? 0 : costs.save_ns;
	uint64_t scale = n, lost = n - used; /* q = lost / scale */
	if (!holds && used && a->nkept) {
		uint64_t m = a->nkept * ADAPT_KEPT_SHARE, kept = popcount8(a->kept);
		scale = n * m - kept * (n - used);
		lost = (n - used) * (m - kept);
	}
	/* k / D of the next CR0 set is charged to the clear, (D - k) / D to the set */
	uint64_t cr0 = costs.cr0_ns, D = ADAPT_WATCH_ONE;
	uint64_t use = costs.trap_ns + cr0 + restore;
	return (struct weights){
		.keeps_ts = scale * (restore + cr0) + lost * save >= (scale - lost) * use,
		.now = D * scale * (restore + (ts ? cr0 : 0)) + scale * (ts ? k * cr0 : 0) +
		       D * lost * save,
		.trap = scale * (ts ? 0 : (D - k) * cr0) + (scale - lost) * (D * use + k * cr0),
		.scale = D * scale,
		.lost = lost,
	};
}

/* Whether @a's estimate chooses "now" for registers not held, with TS clear. */
static bool now_wins(const struct fpu_cpu *c, const struct fpu_adaptive *a)
{
	struct weights w = weigh(false, a, false, false, c->watch_s);
	return w.now < w.trap;
}

static void note_watch(struct fpu_cpu *c, bool watch)
{
	int f = c->watch_s;
	f += ((watch ? (int)ADAPT_WATCH_ONE - 1 : 0) - f) / ADAPT_WATCH_DECAY;
	c->watch_s = (uint16_t)f;
}

/*
 * The slice of @a's task that just ended on @c: record what it showed, in
 * its own estimate and, if it was its first, in the newcomers' prior.
 * A sample moves the level of the estimate it was judged by.
 */
static void end_slice(struct fpu_cpu *c, struct fpu_adaptive *a)
{
	if (!(a->slice & (ADAPT_OBSERVING | ADAPT_USED))) {
		a->slice = 0;
		return;
	}
	unsigned int used = (a->slice & ADAPT_USED) ? 1u : 0u;
	struct fpu_adaptive *judged = a->nobs ? a : &fpu_newcomers;
	if (!a->nobs) {
		record(&fpu_newcomers, used);
		a->since = 0; /* from now on, its own decisions since its own samples */
	}
	record(a, used);
	if (a->slice & ADAPT_SAMPLED) {
		if (!now_wins(c, judged))
			judged->level = 0; /* it turned the decision */
		else if (judged->level < ADAPT_MAX_LEVEL)
			judged->level++;
	}
	a->slice = 0;
}

enum choice { WATCH, GIVE, SAMPLE };

/*
 * Whether to sample @own, a task the prior has given its registers in
 * own->since decisions: the prior says what tasks do in their first slices,
 * and a task that outlives them may never use the FPU (a shell waiting on
 * its pipeline). Sampled once the waste of those decisions, were its slices
 * all without a use, reaches ADAPT_PRIOR_K times what a sample costs if it
 * uses the FPU, each weighed by how likely the prior finds it (lost of
 * scale slices without a use, one more of each: a prior of uses alone still
 * samples).
 */
static bool prior_outlived(struct fpu_adaptive *own, const struct weights *w, uint64_t margin,
			   uint64_t ws)
{
	uint64_t scale = w->scale / ADAPT_WATCH_ONE;
	if (own->since < 0xffff)
		own->since++;
	if (own->since < ADAPT_PRIOR_MIN ||
	    mul_sat(own->since, mul_sat(ws, w->lost + 1)) <
		    mul_sat(ADAPT_PRIOR_K, mul_sat(margin, scale - w->lost + 1)))
		return false;
	own->since = 0;
	return true;
}

/*
 * Whether @a's margin (ns times its scale) is still sure after a->since
 * decisions, each wasting @ws if the slice has no use; asked only once
 * the level's interval is over, since it needs four saturating products.
 */
static bool sure_enough(const struct fpu_adaptive *a, uint64_t margin, uint64_t ws, bool reload)
{
	if (reload && a->since >= (ADAPT_RELOAD_K * (a->nobs + 1u)) << a->level)
		return false; /* a margin made from few slices, none of them like this one */
	return mul_sat(a->since, mul_sat(ws, ws)) <
	       shl_sat(mul_sat(ADAPT_K, mul_sat(margin, margin)), a->level);
}

/*
 * "now" or a trap for the task known by @own, judged by @a (its own estimate
 * or the prior), and whether to sample; @reload: after a reset, an import or
 * a kernel-FPU section (adaptive_reload).
 */
static enum choice choose(struct fpu_cpu *c, struct fpu_adaptive *a, struct fpu_adaptive *own,
			  bool holds, bool live, bool reload)
{
	unsigned int k = c->watch_s;
	struct weights w = weigh(c->ts, a, holds, live, k);
	if (!reload)
		note_watch(c, w.keeps_ts);
	if (w.now >= w.trap)
		return WATCH;
	if (holds && live && !c->ts)
		return GIVE; /* costs nothing: never sampled */
	if (a->since < 0xffff)
		a->since++;
	if (a == own && a->since < 1u << a->level)
		return GIVE; /* within the level's interval: no margin needed */
	/* what "now" wastes in a slice without a use, at least 1 ns */
	uint64_t cr0 = costs.cr0_ns, D = ADAPT_WATCH_ONE;
	uint64_t waste = D * ((holds ? 0 : costs.restore_ns) + (live ? 0 : costs.save_ns)) +
			 (c->ts ? (D + k) * cr0 : 0);
	waste = waste > (c->ts ? 0 : (D - k) * cr0) ? waste - (c->ts ? 0 : (D - k) * cr0) : D;
	/* in ns times the estimate's own scale, as without D */
	uint64_t margin = (w.trap - w.now) / D, ws = waste / D * (w.scale / D);
	if (a != own && prior_outlived(own, &w, margin, ws))
		return SAMPLE;
	if (a->since < 1u << a->level || sure_enough(a, margin, ws, reload))
		return GIVE;
	a->since = 0;
	return SAMPLE;
}

/* The estimate a task is judged by: its own, the newcomers' prior, or none yet (watch it). */
static struct fpu_adaptive *judge_by(struct fpu_cpu *c, struct fpu_adaptive *a)
{
	if (a->nobs)
		return a;
	return fpu_newcomers.nobs >= ADAPT_MIN_NEWCOMERS ? &fpu_newcomers : NULL;
}

/*
 * Note where @a's task runs now. After an unannounced move it waits
 * stay_after_move switch-ins before its state is held, and both CPUs' calm
 * starts again (the source CPU's is written from here: a lost update of a
 * heuristic counter is harmless); a task new here waits too unless this CPU
 * is calm.
 */
static void note_cpu(struct fpu_cpu *c, struct fpu_adaptive *a, unsigned int cpu)
{
	if (a->cpu == cpu + 1) {
		if (a->stay)
			a->stay--;
		if (c->calm < 255)
			c->calm++;
		return;
	}
	if (a->cpu == ADAPT_MOVED_OUT) {
		a->stay = stay_after_move; /* moved off while held once: it may again */
	} else if (a->cpu && a->cpu != ADAPT_MOVED) {
		a->stay = stay_after_move;
		c->calm = 0;
		fpu_cpus[a->cpu - 1].calm = 0;
	} else {
		a->stay = c->calm >= stay_after_move ? 0 : stay_after_move;
	}
	a->cpu = (uint8_t)(cpu + 1);
}

#define ADAPT_NEED (FPU_F_NEED_LOAD | FPU_F_NEED_TS | FPU_F_NOT_IN_USER)

/* A save that holding spared (or would have) on @c: hold_gain, at most one IPI ahead. */
static void hold_spared(struct fpu_cpu *c)
{
	int64_t g = (int64_t)c->hold_gain + costs.save_ns;
	int64_t cap = costs.ipi_ns < INT32_MAX ? costs.ipi_ns : INT32_MAX;
	c->hold_gain = (int32_t)(g < cap ? g : cap);
}

/*
 * @f's state fetched by @cpu (its #NM, or an export): if another CPU holds
 * it, that CPU's holding costs its flush IPI (written from here: a lost
 * update of a heuristic counter is harmless, as for calm).
 */
static void adaptive_fetch(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	int holder = __atomic_load_n(&f->holder, __ATOMIC_ACQUIRE);
	if (holder >= 0 && holder != (int)cpu) {
		int64_t g = (int64_t)fpu_cpus[holder].hold_gain - costs.ipi_ns;
		fpu_cpus[holder].hold_gain = (int32_t)(g > INT32_MIN ? g : INT32_MIN);
	}
	fpu_held_fetch(c, cpu, f);
}

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

static void act(const struct fpu_cpu *c, struct fpu *f, enum choice ch)
{
	if (ch == GIVE)
		give(f);
	else
		observe(c, f, ch == SAMPLE ? ADAPT_OBSERVING | ADAPT_SAMPLED : ADAPT_OBSERVING);
}

/* The end of @prev's slice: record it, then hold or save its live registers. */
static void switch_out(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev)
{
	unsigned int flags = prev->flags;
	if (flags & ADAPT_NEED) {
		/* A slice that never reached ring 3 observed nothing. */
		if (flags & (FPU_F_NEED_TS | FPU_F_NOT_IN_USER))
			prev->adaptive.slice = 0;
		prev->flags = flags & ~ADAPT_NEED;
	}
	end_slice(c, &prev->adaptive);
	if (fpregs_hold(c, cpu, prev)) {
		prev->adaptive.slice = ADAPT_HAD_REGS; /* the next switch-in records s */
	} else if (!(flags & FPU_F_MIGRATING)) {
		prev->adaptive.slice = ADAPT_NO_REGS; /* ... and so does a slice without them */
		prev->adaptive.out_loads = regs_taken(c);
	}
	bool moving = flags & FPU_F_MIGRATING; /* fpu_task_migrated(): it moves now */
	if (c->live && c->owner == prev) {
		if (moving || prev->adaptive.stay || c->hold_gain < 0) /* not held: saved now */
			fpu_save_regs(c, cpu, prev);
		else /* held here, unsaved */
			__atomic_store_n(&prev->holder, (int)cpu, __ATOMIC_RELEASE);
	}
	if (moving)
		prev->adaptive.cpu = ADAPT_MOVED; /* an announced move: no need to wait after it */
}

static void adaptive_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev)
		switch_out(c, cpu, prev);
	if (!next)
		return;
	struct fpu_adaptive *a = &next->adaptive;
	bool here = a->cpu == cpu + 1;
	note_cpu(c, a, cpu);
	int holder = __atomic_load_n(&next->holder, __ATOMIC_ACQUIRE);
	/* its registers still its own here: held unsaved, or saved and not reloaded since */
	bool own = holder == (int)cpu || (holder < 0 && fpregs_hold(c, cpu, next));
	if (own)
		hold_spared(c); /* held, it was not saved; saved, holding would have spared it */
	if (a->slice & ADAPT_HAD_REGS) {
		record_kept(a, own);
		a->slice = 0;
	} else if (a->slice & ADAPT_NO_REGS) {
		record_kept(a, here && regs_taken(c) == a->out_loads);
		a->slice = 0;
	}
	if (holder == (int)cpu) {
		/* Still live here, unsaved: its own again, as under smp-lazy. */
		next->holder = -1;
		if (!c->ts) {
			note_watch(c, false); /* not weighed here: counted as keeping TS clear */
			fpu_activate(c, cpu, next); /* nothing to do: a skipped restore */
		} else { /* TS set: clearing it is weighed against a trap */
			struct fpu_adaptive *by = judge_by(c, a); /* the prior, if no estimate */
			if (!by)
				note_watch(c, true);
			act(c, next, by ? choose(c, by, a, true, true, false) : WATCH);
		}
		return;
	}
	if (holder >= 0) { /* held elsewhere: watched, its #NM fetches the state */
		note_watch(c, true);
		observe(c, next, ADAPT_OBSERVING);
		return;
	}
	if (a->nobs && !a->uses) {
		/*
		 * Watched, never seen to use the FPU: TS set on its way to ring
		 * 3, as under lazy (nothing to do if it is set already). Another
		 * slice without a use would teach nothing, so the slice is no
		 * observation; an #NM is still recorded (handle_nm marks it).
		 */
		note_watch(c, true);
		if (!c->ts)
			next->flags = (next->flags & ~ADAPT_NEED) | FPU_F_NEED_TS;
		return;
	}
	struct fpu_adaptive *by = judge_by(c, a);
	if (!by)
		note_watch(c, true);
	act(c, next, by ? choose(c, by, a, own, false, false) : WATCH); /* holder < 0 here */
}

/*
 * A switched-out task moves (a load balancer's migration): if this CPU
 * holds its state unsaved, save it now, here, rather than be sent a flush
 * IPI when it runs there (TS kept as the running task has it: two CR0
 * writes if it is set). Announced, so no CPU's calm is lost, but the task
 * then waits stay_after_move switch-ins before it is held again (saved at
 * switch-out, with TS clear): a task moved once while switched out may be
 * moved again (note_cpu).
 */
static void adaptive_migrated(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (__atomic_load_n(&f->holder, __ATOMIC_ACQUIRE) == (int)cpu && c->live && c->owner == f) {
		bool ts = c->ts;
		fpu_save_regs(c, cpu, f); /* fpu_held_saved() clears the holder */
		if (ts)
			fpu_ts_set(c);
	}
	f->adaptive.cpu = ADAPT_MOVED_OUT;
}

static void adaptive_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	cur->adaptive.slice |= ADAPT_USED;
	adaptive_fetch(c, cpu, cur); /* held by another CPU: its flush IPI, and wait */
	fpu_activate(c, cpu, cur);
}

/*
 * After a kernel-FPU section, an import or a reset, registers not held: a
 * slice being watched with no use yet stays watched; otherwise the same
 * choice as at switch-in (samples included). TS is set at once.
 */
static void adaptive_reload(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	struct fpu_adaptive *a = &cur->adaptive, *by = judge_by(c, a);
	enum choice ch = WATCH;
	if ((a->slice & (ADAPT_OBSERVING | ADAPT_USED)) != ADAPT_OBSERVING && by &&
	    __atomic_load_n(&cur->holder, __ATOMIC_ACQUIRE) < 0)
		ch = choose(c, by, a, false, false, true);
	if (ch == GIVE) {
		give(cur);
		return;
	}
	/* TS now, not on the way to ring 3; the task is still not there */
	unsigned int flags = cur->flags;
	cur->flags = (flags & ~(FPU_F_NEED_LOAD | FPU_F_NEED_TS)) |
		     ((flags & FPU_F_NEED_TS) ? FPU_F_NOT_IN_USER : 0);
	if (!(a->slice & ADAPT_USED))
		a->slice |= ch == SAMPLE ? ADAPT_OBSERVING | ADAPT_SAMPLED : ADAPT_OBSERVING;
	fpu_ts_set(c);
}

const struct fpu_policy fpu_policy_adaptive = {
	.name = "adaptive",
	.flags = 0, /* it decides by the costs it is given: not static */
	.switch_to = adaptive_switch,
	.handle_nm = adaptive_handle_nm,
	.flush_ipi = fpu_held_flush_ipi,
	.fetch = adaptive_fetch,
	.saved = fpu_held_saved,
	.migrated = adaptive_migrated,
	.reload = adaptive_reload,
};
