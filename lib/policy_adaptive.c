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
 *   it costs no restore, only clearing TS, and is done at once.
 * - Saves as in smp-lazy (the fpu_held_* mechanism): the outgoing task's
 *   live registers stay in this CPU, unsaved, until another task needs them
 *   (a load saves them first) or the task runs on another CPU (a flush IPI
 *   from there). A task that moved between CPUs lately is saved at
 *   switch-out instead, as owner does, until it has stayed on one CPU for
 *   ipi_ns / save_ns switch-ins (at most 255): holding it would risk an IPI
 *   to save a save.
 * - A slice is observed when the task ran with TS set: its #NM says it used
 *   the FPU, no #NM that it did not. The last 8 observations (bit 0 the
 *   latest) and how many there are (up to 8) are kept; an #NM is counted as
 *   a use even in a slice not meant as an observation.
 * - A task given its registers at switch-in is not observed; so that its
 *   prediction can change, now and then such a decision leaves TS set
 *   instead (sampling: every 8th "now" with no observation, 16th with one,
 *   32nd with two, every 64th from three on).
 * - A task with no observation yet is taken to use the FPU (the prior:
 *   glibc's SSE makes most tasks FPU users, seed 002); sampling corrects it.
 *
 * The decision, with p = uses/observations and ts whether TS is set now:
 *   now  = (holds ? 0 : restore) + (ts ? cr0 : 0) + (1 - p) * save
 *   trap = (ts ? 0 : cr0) + p * (trap + cr0 + (holds ? 0 : restore))
 * (a task given its registers is live, so it is saved later even when it
 * does not use them: the (1 - p) * save). Integer arithmetic, in ns
 * multiplied by the number of observations.
 *
 * Invariants: those of smp-lazy for f->holder (policy_smp_lazy.c); a task
 * whose state another CPU holds is never given its registers at switch-in:
 * it runs with TS set and its #NM waits for the flush.
 */
#include "internal.h"

#define ADAPT_HIST 0xffull           /* bits 0-7: the last 8 observations, 1 = used */
#define ADAPT_NOBS_SHIFT 8           /* bits 8-11: observations, 0..8 */
#define ADAPT_OBSERVING (1ull << 12) /* this slice runs with TS set to observe */
#define ADAPT_USED (1ull << 13)      /* it took an #NM in this slice */
#define ADAPT_SAMPLE_SHIFT 16        /* bits 16-22: "now" decisions since the last sample */
#define ADAPT_SAMPLE_MAX 64u
#define ADAPT_CPU_SHIFT 24  /* bits 24-31: the CPU of its last switch-in, plus 1 */
#define ADAPT_STAY_SHIFT 32 /* bits 32-39: switch-ins to wait, after a move, before holding */

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

static unsigned int field(const struct fpu *f, unsigned int shift, unsigned int mask)
{
	return (unsigned int)(f->adaptive >> shift) & mask;
}

static void set_field(struct fpu *f, unsigned int shift, unsigned int mask, unsigned int v)
{
	f->adaptive = (f->adaptive & ~((uint64_t)mask << shift)) | (uint64_t)(v & mask) << shift;
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
	if (f->adaptive & (ADAPT_OBSERVING | ADAPT_USED)) {
		unsigned int used = (f->adaptive & ADAPT_USED) ? 1u : 0u;
		unsigned int n = field(f, ADAPT_NOBS_SHIFT, 0xf);
		set_field(f, 0, 0xff, (field(f, 0, 0xff) << 1) | used);
		set_field(f, ADAPT_NOBS_SHIFT, 0xf, n < 8 ? n + 1 : 8);
	}
	f->adaptive &= ~(ADAPT_OBSERVING | ADAPT_USED);
}

/* Whether giving @f its registers now is expected to cost less than a trap. */
static bool now_is_cheaper(const struct fpu_cpu *c, const struct fpu *f, bool holds)
{
	unsigned int n = field(f, ADAPT_NOBS_SHIFT, 0xf);
	uint64_t used = popcount8(field(f, 0, 0xff) & ((1u << n) - 1));
	if (!n)
		n = used = 1; /* the prior: most tasks use the FPU (glibc's SSE; seed 002) */
	uint64_t restore = holds ? 0 : costs.restore_ns;
	uint64_t now = n * (restore + (c->ts ? costs.cr0_ns : 0)) + (n - used) * costs.save_ns;
	uint64_t trap = n * (c->ts ? 0 : costs.cr0_ns) +
			used * (costs.trap_ns + costs.cr0_ns + restore);
	return now < trap;
}

/* Every 8th "now" for @f with no observation, 16th with one, ..., 64th from three on. */
static bool sample_now(struct fpu *f)
{
	unsigned int k = field(f, ADAPT_SAMPLE_SHIFT, 0x7f) + 1,
		     n = field(f, ADAPT_NOBS_SHIFT, 0xf);
	unsigned int every = 8u << (n < 3 ? n : 3);

	set_field(f, ADAPT_SAMPLE_SHIFT, 0x7f, k >= every ? 0 : k);
	return k >= every;
}

/* Note where @f runs now; after a move, it waits ipi/save switch-ins before being held. */
static void note_cpu(struct fpu *f, unsigned int cpu)
{
	unsigned int last = field(f, ADAPT_CPU_SHIFT, 0xff),
		     stay = field(f, ADAPT_STAY_SHIFT, 0xff);

	if (last && last != cpu + 1) {
		uint32_t wait = costs.save_ns ? costs.ipi_ns / costs.save_ns : 255;
		stay = wait < 255 ? wait : 255;
	} else if (stay) {
		stay--;
	}
	set_field(f, ADAPT_CPU_SHIFT, 0xff, cpu + 1);
	set_field(f, ADAPT_STAY_SHIFT, 0xff, stay);
}

static void observe(struct fpu_cpu *c, struct fpu *f)
{
	f->flags &= ~FPU_F_NEED_LOAD;
	f->adaptive |= ADAPT_OBSERVING;
	fpu_ts_set(c);
}

static void adaptive_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev) {
		end_slice(prev);
		if (c->live && c->owner == prev) {
			if (field(prev, ADAPT_STAY_SHIFT, 0xff))
				fpu_save_regs(c, cpu,
					      prev); /* it moves: do not make its next CPU wait */
			else                         /* held here, unsaved */
				__atomic_store_n(&prev->holder, (int)cpu, __ATOMIC_RELEASE);
		}
	}
	if (!next)
		return;
	note_cpu(next, cpu);
	int holder = __atomic_load_n(&next->holder, __ATOMIC_ACQUIRE);
	if (holder == (int)cpu) {
		next->holder = -1; /* still live here: its own again */
	} else if (holder >= 0) {
		c->stats.flush_ipis++; /* load at its first use, after the flush */
		fpu_ops->send_flush_ipi((unsigned int)holder);
		observe(c, next);
		return;
	}
	bool holds = fpregs_hold(c, cpu, next);
	if (!now_is_cheaper(c, next, holds) || sample_now(next))
		observe(c, next);
	else if (holds)
		fpu_activate(c, cpu, next); /* no restore: clear TS now */
	else
		next->flags |= FPU_F_NEED_LOAD; /* on the way to ring 3, as deferred */
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
	if (__atomic_load_n(&cur->holder, __ATOMIC_ACQUIRE) >= 0)
		fpu_held_wait(cur); /* the flush asked for at switch-in */
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
	.flush_ipi = fpu_held_flush_ipi,
	.fetch = fpu_held_fetch,
	.saved = fpu_held_saved,
	.reload = adaptive_reload,
};
