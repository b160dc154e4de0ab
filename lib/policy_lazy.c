/* SPDX-License-Identifier: MIT */
/*
 * lazy: the switch sets CR0.TS; the incoming task's first FPU instruction
 * raises #NM, whose handler clears TS and loads the task's state unless this
 * CPU's registers still hold it (owner and last_cpu match).
 *
 * A task "used the FPU this slice" iff it owns the registers with TS clear:
 * only then are the registers newer than its save area, and only then is it
 * saved at switch-out.
 */
#include "internal.h"

static void lazy_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev && !c->ts && c->owner == prev)
		fpu_save_regs(c, prev);
	if (next)
		fpu_ts_set(c);
}

static void lazy_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_activate(c, cpu, cur);
}

/* Let the task trap again: the kernel section left no owner. */
static void lazy_kernel_fpu_end(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (cur)
		fpu_ts_set(c);
}

const struct fpu_policy fpu_policy_lazy = {
	.name = "lazy",
	.switch_to = lazy_switch,
	.handle_nm = lazy_handle_nm,
	.kernel_fpu_end = lazy_kernel_fpu_end,
};

#ifdef FPU_TESTING
/* Deliberately wrong, for tests only: trusts the registers without checking the owner. */
static void broken_lazy_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_ts_clear(c);
	if (cur->flags & FPU_F_USED) {
		c->owner = cur;
		cur->last_cpu = (int)cpu;
		c->stats.restores_skipped++;
	} else {
		fpu_load_regs(c, cpu, cur);
	}
}

const struct fpu_policy fpu_policy_broken_lazy = {
	.name = "broken-lazy",
	.switch_to = lazy_switch,
	.handle_nm = broken_lazy_handle_nm,
	.kernel_fpu_end = lazy_kernel_fpu_end,
};
#endif
