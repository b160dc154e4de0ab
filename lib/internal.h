/* SPDX-License-Identifier: MIT */
/* libfpu internals shared by core.c and the policies. Not for embedders. */
#ifndef LIBFPU_INTERNAL_H
#define LIBFPU_INTERNAL_H

#include <fpu/fpu.h>

/* Per-CPU state, owned by libfpu. */
struct fpu_cpu {
	struct fpu *owner;  /* fpregs owner: whose state the registers hold, or NULL */
	bool ts;            /* CR0.TS as libfpu last set it */
	bool in_kernel_fpu; /* inside kernel_fpu_begin/end */
	struct fpu_stats stats;
} __attribute__((aligned(64)));

/*
 * A policy is a table of operations; core.c calls them with the calling
 * CPU's fpu_cpu and number. NULL members do nothing, except handle_nm
 * (NULL: an #NM is a bug).
 */
struct fpu_policy {
	const char *name;
	void (*switch_to)(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next);
	void (*handle_nm)(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);
	void (*return_to_user)(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);
	void (*kernel_fpu_end)(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);
};

extern const struct fpu_arch_ops *fpu_ops;
extern struct fpu_cpu fpu_cpus[FPU_MAX_CPUS];
extern const struct fpu_policy fpu_policy_eager, fpu_policy_lazy;
#ifdef FPU_TESTING
extern const struct fpu_policy fpu_policy_broken_lazy;
#endif

/* The registers of @cpu hold @f's state. */
static inline bool fpregs_hold(const struct fpu_cpu *c, unsigned int cpu, const struct fpu *f)
{
	return c->owner == f && f->last_cpu == (int)cpu;
}

void fpu_ts_set(struct fpu_cpu *c);
void fpu_ts_clear(struct fpu_cpu *c);

/* Save the registers into @f's area (TS cleared first). */
void fpu_save_regs(struct fpu_cpu *c, struct fpu *f);

/* Load @f's area into the registers (TS cleared first); @f becomes the owner. */
void fpu_load_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

/* Make the registers hold @f: load them unless they already do. */
void fpu_activate(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

__attribute__((noreturn)) void fpu_bug(const char *msg);

#endif
