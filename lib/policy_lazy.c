/* SPDX-License-Identifier: MIT */
/*
 * lazy: the switch saves the outgoing task if it used the FPU (its
 * registers are live) and sets CR0.TS; the incoming task's first FPU
 * instruction raises #NM, whose handler clears TS and loads the task's
 * state unless this CPU's registers still hold it (owner and last_cpu).
 */
#include "internal.h"

/* The signature is the policy table's. */
// cppcheck-suppress constParameter
static void lazy_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	fpu_save_live(c, cpu);
	if (next)
		fpu_ts_set(c);
}

static void lazy_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_activate(c, cpu, cur);
}

const struct fpu_policy fpu_policy_lazy = {
	.name = "lazy",
	.flags = FPU_POLICY_STATIC | FPU_POLICY_BREAK_EVEN,
	.switch_to = lazy_switch,
	.handle_nm = lazy_handle_nm,
	.reload = fpu_reload_trap,
};

#ifdef FPU_TESTING
/* Deliberately wrong, for tests only: trusts the registers without checking the owner. */
static void broken_lazy_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (cur->flags & FPU_F_USED)
		fpu_trust_regs(c, cpu, cur);
	else
		fpu_activate(c, cpu, cur);
}

const struct fpu_policy fpu_policy_broken_lazy = {
	.name = "broken-lazy",
	.flags = FPU_POLICY_STATIC,
	.switch_to = lazy_switch,
	.handle_nm = broken_lazy_handle_nm,
	.reload = fpu_reload_trap,
};
#endif
