/* SPDX-License-Identifier: MIT */
/*
 * adaptive: per task, predict from the slices observed so far whether it
 * will use the FPU in the next one, and at each switch-in choose the
 * cheaper of giving it its registers now and leaving CR0.TS set (a trap if
 * it does use them), from the costs in struct fpu_costs (fpu_set_costs()).
 *
 * - "Now" means on the task's way back to ring 3, as deferred does (a task
 *   that blocks again in the kernel loads nothing), with owner tracking:
 *   when this CPU's registers still hold the task's state (fpregs_hold),
 *   it costs no restore, only clearing TS.
 * - Saves as in lazy and owner: the outgoing task's live registers are
 *   saved at switch-out; they stay valid for it.
 * - A slice is observed when the task ran with TS set: its #NM says it used
 *   the FPU, no #NM that it did not. fpu->adaptive keeps the last 8
 *   observations (bit 0 the latest) and how many there are (up to 8); an
 *   #NM is counted as a use even in a slice not meant as an observation.
 * - A task given its registers at switch-in is not observed; so that its
 *   prediction can change, now and then such a decision leaves TS set
 *   instead (sampling: every 4th with one observation, 8th with two, ...,
 *   every ADAPT_SAMPLE-th from five observations on).
 * - A task with no observation yet is taken to use the FPU (the prior:
 *   glibc's SSE makes most tasks FPU users, seed 002); sampling corrects it.
 *
 * The decision, with p = uses/observations and ts whether TS is set now:
 *   now  = (holds ? 0 : restore) + (ts ? cr0 : 0) + (1 - p) * save
 *   trap = (ts ? 0 : cr0) + p * (trap + cr0 + (holds ? 0 : restore))
 * (a task given its registers is live, so it is saved at switch-out even
 * when it does not use them: the (1 - p) * save). Integer arithmetic, in
 * ns multiplied by the number of observations.
 */
#include "internal.h"

#define ADAPT_HIST 0xffu           /* bits 0-7: the last 8 observations, 1 = used */
#define ADAPT_NOBS_SHIFT 8         /* bits 8-11: observations, 0..8 */
#define ADAPT_OBSERVING (1u << 12) /* this slice runs with TS set to observe */
#define ADAPT_USED (1u << 13)      /* it took an #NM in this slice */
#define ADAPT_SAMPLE_SHIFT 16      /* bits 16-21: "now" decisions since the last sample */
#define ADAPT_SAMPLE 64u

static struct fpu_costs costs = {
	.trap_ns = 150,
	.cr0_ns = 30,
	.ipi_ns = 1000,
	.save_ns = 50,
	.restore_ns = 100,
};

void fpu_set_costs(const struct fpu_costs *c)
{
	costs = *c;
}

void fpu_get_costs(struct fpu_costs *c)
{
	*c = costs;
}

static unsigned int nobs(const struct fpu *f)
{
	return (f->adaptive >> ADAPT_NOBS_SHIFT) & 0xf;
}

static unsigned int popcount8(unsigned int x)
{
	unsigned int n = 0;
	for (x &= 0xff; x; x &= x - 1)
		n++;
	return n;
}

/* The slice of @f that just ended: record what it showed. */
static void end_slice(struct fpu *f)
{
	unsigned int a = f->adaptive, n = nobs(f);

	if (a & (ADAPT_OBSERVING | ADAPT_USED)) {
		unsigned int used = (a & ADAPT_USED) ? 1u : 0u;
		unsigned int hist = (((a & ADAPT_HIST) << 1) | used) & ADAPT_HIST;
		if (n < 8)
			n++;
		a = (a & ~(ADAPT_HIST | (0xfu << ADAPT_NOBS_SHIFT))) | hist | n << ADAPT_NOBS_SHIFT;
	}
	f->adaptive = a & ~(ADAPT_OBSERVING | ADAPT_USED);
}

/* Whether giving @f its registers now is expected to cost less than a trap. */
static bool now_is_cheaper(const struct fpu_cpu *c, const struct fpu *f, bool holds)
{
	unsigned int n = nobs(f);
	uint64_t used = popcount8(f->adaptive & ((1u << n) - 1));
	if (!n)
		n = used = 1; /* the prior: most tasks use the FPU (glibc's SSE; seed 002) */
	uint64_t restore = holds ? 0 : costs.restore_ns;
	uint64_t now = n * (restore + (c->ts ? costs.cr0_ns : 0)) + (n - used) * costs.save_ns;
	uint64_t trap = n * (c->ts ? 0 : costs.cr0_ns) +
			used * (costs.trap_ns + costs.cr0_ns + restore);
	return now < trap;
}

/*
 * A "now" for @f is turned into an observation every 4th time while it has
 * one observation, every 8th with two, ..., every ADAPT_SAMPLE-th from five
 * on: a prediction made from few slices is checked soon.
 */
static bool sample_now(struct fpu *f)
{
	unsigned int k = ((f->adaptive >> ADAPT_SAMPLE_SHIFT) & 0x3f) + 1, n = nobs(f);
	unsigned int every = n >= 5 ? ADAPT_SAMPLE : 4u << (n ? n - 1 : 0);

	f->adaptive &= ~(0x3fu << ADAPT_SAMPLE_SHIFT);
	if (k >= every)
		return true;
	f->adaptive |= k << ADAPT_SAMPLE_SHIFT;
	return false;
}

static void adaptive_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev)
		end_slice(prev);
	fpu_save_live(c, cpu);
	if (!next)
		return;
	bool holds = fpregs_hold(c, cpu, next);
	if (now_is_cheaper(c, next, holds) && !sample_now(next)) {
		next->flags |= FPU_F_NEED_LOAD; /* on the way to ring 3, as deferred */
		return;
	}
	next->flags &= ~FPU_F_NEED_LOAD;
	next->adaptive |= ADAPT_OBSERVING;
	fpu_ts_set(c);
}

/* A task that blocks again in the kernel never loads what it was given. */
static void adaptive_return_to_user(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (!(cur->flags & FPU_F_NEED_LOAD))
		return;
	cur->flags &= ~FPU_F_NEED_LOAD;
	fpu_activate(c, cpu, cur);
}

static void adaptive_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	cur->adaptive |= ADAPT_USED;
	fpu_activate(c, cpu, cur);
}

/* After a kernel-FPU section, an import or a reset: the same choice, registers not held. */
static void adaptive_reload(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (now_is_cheaper(c, cur, false)) {
		cur->flags |= FPU_F_NEED_LOAD;
	} else {
		cur->flags &= ~FPU_F_NEED_LOAD;
		fpu_ts_set(c);
	}
}

const struct fpu_policy fpu_policy_adaptive = {
	.name = "adaptive",
	.switch_to = adaptive_switch,
	.handle_nm = adaptive_handle_nm,
	.return_to_user = adaptive_return_to_user,
	.reload = adaptive_reload,
};
