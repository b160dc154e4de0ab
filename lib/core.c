/* SPDX-License-Identifier: MIT */
/*
 * libfpu core: the hooks a kernel calls, dispatched to the active policy,
 * and what every policy shares (CR0.TS, save, load, ownership, counters,
 * kernel-mode FPU sections).
 *
 * Invariants kept here:
 * - fpu_cpus[cpu].ts mirrors CR0.TS of that CPU; only fpu_ts_set/clear change it.
 * - TS is clear before libfpu executes any save or restore instruction (hardware raises #NM
 *   there when it is set; QEMU TCG does not, so TCG cannot catch this).
 * - The registers of a CPU hold task f's state iff owner == f && f->last_cpu
 *   == cpu. Anything that writes f's area or clobbers the registers breaks
 *   one side of that test (fpu_invalidate, or owner = NULL on that CPU).
 */
#include "internal.h"

const struct fpu_arch_ops *fpu_ops;
struct fpu_cpu fpu_cpus[FPU_MAX_CPUS];

/* The policies, then (test builds) deliberately broken ones, never in "all". */
static const struct fpu_policy *const policies[] = {
	&fpu_policy_eager,
	&fpu_policy_lazy,
#ifdef FPU_TESTING
	&fpu_policy_broken_lazy,
#endif
};
#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))
#ifdef FPU_TESTING
#define NR_REAL_POLICIES (NR_POLICIES - 1)
#else
#define NR_REAL_POLICIES NR_POLICIES
#endif

static const char *policy_names[NR_POLICIES + 1];

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}
static const struct fpu_policy *policy = &fpu_policy_eager;

void fpu_bug(const char *msg)
{
	fpu_ops->panic(msg);
	for (;;)
		;
}

static inline struct fpu_cpu *this_fpu_cpu(unsigned int *cpu)
{
	*cpu = fpu_ops->cpu_id();
	return &fpu_cpus[*cpu];
}

int fpu_init(const struct fpu_arch_ops *ops)
{
	if (!ops || !ops->cpu_id || !ops->panic)
		return XSTATE_E_INVAL;
	fpu_ops = ops;
	for (unsigned int i = 0; i < NR_REAL_POLICIES; i++)
		policy_names[i] = policies[i]->name;
	policy = &fpu_policy_eager;
	return 0;
}

void fpu_cpu_init(void)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	xstate_cpu_enable();
	c->owner = NULL;
	c->ts = true; /* force the write: CR0.TS is unknown here */
	fpu_ts_clear(c);
	xstate_load_init();
}

int fpu_set_policy(const char *name)
{
	for (unsigned int i = 0; i < NR_POLICIES; i++) {
		if (streq(policies[i]->name, name)) {
			policy = policies[i];
			return 0;
		}
	}
	return XSTATE_E_INVAL;
}

const char *fpu_policy_name(void)
{
	return policy->name;
}

const char *const *fpu_policy_names(void)
{
	return policy_names;
}

/* ---- shared mechanisms ---- */

void fpu_ts_set(struct fpu_cpu *c)
{
	if (c->ts)
		return;
	if (fpu_ops->set_ts) {
		fpu_ops->set_ts();
	} else {
		unsigned long cr0;
		__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
		__asm__ volatile("mov %0, %%cr0" : : "r"(cr0 | 8ul) : "memory");
	}
	c->ts = true;
}

void fpu_ts_clear(struct fpu_cpu *c)
{
	if (!c->ts)
		return;
	if (fpu_ops->clear_ts)
		fpu_ops->clear_ts();
	else
		__asm__ volatile("clts" ::: "memory");
	c->ts = false;
}

void fpu_save_regs(struct fpu_cpu *c, struct fpu *f)
{
	fpu_ts_clear(c);
	xstate_save(f->state, xstate_cfg.kernel_mask);
	c->stats.saves[xstate_cfg.save_insn]++;
}

void fpu_load_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	fpu_ts_clear(c);
	if (c->owner != f)
		xstate_scrub_fxsave_leak();
	xstate_restore(f->state, xstate_cfg.kernel_mask);
	c->stats.restores++;
	c->owner = f;
	f->last_cpu = (int)cpu;
	f->flags |= FPU_F_USED;
}

void fpu_activate(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (fpregs_hold(c, cpu, f)) {
		fpu_ts_clear(c);
		c->stats.restores_skipped++;
	} else {
		fpu_load_regs(c, cpu, f);
	}
}

/* ---- hooks ---- */

void fpu_switch(struct fpu *prev, struct fpu *next)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	c->stats.switches++;
	policy->switch_to(c, cpu, prev, next);
}

void fpu_handle_nm(struct fpu *cur)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (!policy->handle_nm || !c->ts)
		fpu_bug("#NM that the FPU policy did not cause");
	c->stats.nm_traps++;
	policy->handle_nm(c, cpu, cur);
}

void fpu_return_to_user(struct fpu *cur)
{
	if (policy->return_to_user) {
		unsigned int cpu;
		struct fpu_cpu *c = this_fpu_cpu(&cpu);
		policy->return_to_user(c, cpu, cur);
	}
}

void fpu_flush_ipi(void)
{
}

void fpu_invalidate(struct fpu *fpu)
{
	fpu->last_cpu = -1;
}

void fpu_task_init(struct fpu *fpu, struct xregs_state *buf, unsigned int id)
{
	fpu->state = buf;
	fpu->last_cpu = -1;
	fpu->flags = 0;
	fpu->fpu_counter = 0;
	fpu->holder = -1;
	fpu->id = id;
	xstate_init_buffer(buf);
}

void fpu_task_exit(struct fpu *fpu)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (c->owner == fpu)
		c->owner = NULL;
	fpu_invalidate(fpu);
}

void fpu_cpu_quiesce(void)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	c->owner = NULL;
	fpu_ts_clear(c);
}

/* ---- kernel-mode FPU ---- */

void kernel_fpu_begin(void)
{
	unsigned int cpu;
	struct fpu_cpu *c;

	if (fpu_ops->in_interrupt && fpu_ops->in_interrupt())
		fpu_bug("kernel_fpu_begin() in interrupt context");
	if (fpu_ops->preempt_disable)
		fpu_ops->preempt_disable();
	c = this_fpu_cpu(&cpu);
	if (c->in_kernel_fpu)
		fpu_bug("nested kernel_fpu_begin()");
	c->in_kernel_fpu = true;
	c->stats.kernel_fpu_sections++;

	/* Live state (TS clear) of the owner is saved before we clobber it. */
	if (c->owner && !c->ts && fpregs_hold(c, cpu, c->owner))
		fpu_save_regs(c, c->owner);
	c->owner = NULL;
	fpu_ts_clear(c);
	xstate_load_init();
}

void kernel_fpu_end(void)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (!c->in_kernel_fpu)
		fpu_bug("kernel_fpu_end() without kernel_fpu_begin()");
	c->in_kernel_fpu = false;
	if (policy->kernel_fpu_end)
		policy->kernel_fpu_end(c, cpu, fpu_ops->current_fpu ? fpu_ops->current_fpu() : NULL);
	if (fpu_ops->preempt_enable)
		fpu_ops->preempt_enable();
}

/* ---- counters ---- */

struct fpu_stats *fpu_stats_cpu(unsigned int cpu)
{
	return &fpu_cpus[cpu].stats;
}

void fpu_stats_reset(void)
{
	for (unsigned int i = 0; i < FPU_MAX_CPUS; i++)
		fpu_cpus[i].stats = (struct fpu_stats){ 0 };
}

/* ---- fault injection ---- */

static const char *const fault_names[FPU_FAULT_NR] = {
	[FPU_FAULT_NONE] = "none",
	[FPU_FAULT_SKIP_SAVE_ON_MIGRATE] = "skip-save-on-migrate",
	[FPU_FAULT_SKIP_RESTORE_AFTER_FLUSH] = "skip-restore-after-flush",
	[FPU_FAULT_NO_INVALIDATE_ON_KERNEL_FPU] = "no-invalidate-on-kernel-fpu",
	[FPU_FAULT_SKIP_CLTS_BEFORE_RESTORE] = "skip-clts-before-restore",
	[FPU_FAULT_STALE_OWNER_AFTER_EXIT] = "stale-owner-after-exit",
};

enum fpu_fault fpu_fault_armed;

void fpu_set_fault(enum fpu_fault fault)
{
	fpu_fault_armed = fault;
}

const char *fpu_fault_name(enum fpu_fault fault)
{
	return (unsigned int)fault < FPU_FAULT_NR ? fault_names[fault] : "?";
}

int fpu_fault_by_name(const char *name)
{
	for (int i = 0; i < FPU_FAULT_NR; i++)
		if (streq(fault_names[i], name))
			return i;
	return -1;
}
