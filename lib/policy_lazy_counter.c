/* SPDX-License-Identifier: MIT */
/*
 * lazy-counter: lazy, until a task has used the FPU in fpu_counter_threshold
 * consecutive slices; from then on its state is loaded at switch, saving the
 * trap (Linux 2.6's fpu_counter; seed 000).
 *
 * As in Linux 2.6 the count goes up each time the state is loaded (by #NM
 * or at switch), is reset by a slice that ends without the state loaded,
 * and wraps at 256, so a task that stopped using the FPU is lazy again
 * after at most 256 preloaded slices.
 *
 * The save area of the incoming task is prefetched per fpu_tunables.prefetch.
 */
#include "internal.h"

static bool over_threshold(const struct fpu *f)
{
	return f->fpu_counter >= fpu_tunables.fpu_counter_threshold;
}

static void count_use(struct fpu *f)
{
	f->fpu_counter = (f->fpu_counter + 1) & 0xff;
}

static void counter_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (next && (fpu_tunables.prefetch == FPU_PREFETCH_ALWAYS ||
		     (fpu_tunables.prefetch == FPU_PREFETCH_CONDITIONAL && over_threshold(next))))
		fpu_prefetch(c, next);

	if (prev && !(c->live && c->owner == prev))
		prev->fpu_counter = 0;
	fpu_save_live(c, cpu);

	if (!next)
		return;
	if (over_threshold(next)) {
		fpu_activate(c, cpu, next);
		count_use(next);
	} else {
		fpu_ts_set(c);
	}
}

static void counter_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_activate(c, cpu, cur);
	count_use(cur);
}

const struct fpu_policy fpu_policy_lazy_counter = {
	.name = "lazy-counter",
	.flags = FPU_POLICY_STATIC | FPU_POLICY_BREAK_EVEN,
	.switch_to = counter_switch,
	.handle_nm = counter_handle_nm,
	.reload = fpu_reload_trap,
};
