/* SPDX-License-Identifier: MIT */
/*
 * deferred: save eagerly at switch-out, but load the incoming task's state
 * only on its way back to ring 3 (FPU_F_NEED_LOAD, Linux's
 * TIF_NEED_FPU_LOAD: fpu_return_to_user() loads it), and only if this CPU's
 * registers do not hold it already. A task that blocks again in
 * the kernel, or a switch to a kernel thread, never loads user state.
 * CR0.TS is never set.
 */
#include "internal.h"

static void deferred_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	fpu_save_live(c, cpu);
	if (next)
		next->flags |= FPU_F_NEED_LOAD;
}

static void deferred_reload(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	cur->flags |= FPU_F_NEED_LOAD;
}

const struct fpu_policy fpu_policy_deferred = {
	.name = "deferred",
	.flags = FPU_POLICY_STATIC | FPU_POLICY_LINUX,
	.switch_to = deferred_switch,
	.reload = deferred_reload,
};
