/* SPDX-License-Identifier: MIT */
/*
 * owner: save eagerly at switch-out; at switch-in load the task's state
 * unless this CPU's registers still hold it (fpregs owner == task and the
 * task's last_cpu == this CPU), as Linux's fpregs_state_valid() and arm64's
 * fpsimd_last_state do.
 *
 * A task that has never used the FPU has no state to load (Linux's
 * used_math): it runs with CR0.TS set until its first FPU instruction.
 */
#include "internal.h"

static void owner_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	fpu_save_live(c, cpu);
	if (!next)
		return;
	if (next->flags & FPU_F_USED)
		fpu_activate(c, cpu, next);
	else
		fpu_ts_set(c);
}

/* First use, or first use after a kernel-mode FPU section. */
static void owner_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_activate(c, cpu, cur);
}

const struct fpu_policy fpu_policy_owner = {
	.name = "owner",
	.flags = FPU_POLICY_STATIC,
	.switch_to = owner_switch,
	.handle_nm = owner_handle_nm,
	.reload = fpu_reload_trap,
};
