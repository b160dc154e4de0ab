/* SPDX-License-Identifier: MIT */
/*
 * eager: every switch saves the outgoing task's registers and loads the
 * incoming task's (XSAVEOPT's modified optimization applies: the area saved
 * into is the one last restored from). CR0.TS is never set: no #NM traps.
 */
#include "internal.h"

static void eager_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (next)
		fpu_save_load(c, cpu, next);
	else
		fpu_save_live(c, cpu);
}

/* The registers must hold the task's state whenever it runs in ring 3: load it now. */
static void eager_reload(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_load_regs(c, cpu, cur);
}

const struct fpu_policy fpu_policy_eager = {
	.name = "eager",
	.flags = FPU_POLICY_STATIC | FPU_POLICY_BASELINE,
	.switch_to = eager_switch,
	.reload = eager_reload,
};
