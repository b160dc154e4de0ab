/* SPDX-License-Identifier: MIT */
/*
 * smp-lazy: lazy save and lazy restore on SMP (seed 003; NetBSD's and
 * Zephyr arm64's flush IPI).
 *
 * At switch-out a task's live state stays in the CPU's registers, unsaved;
 * the CPU stays its owner and the task records it as its holder. At
 * switch-in:
 * - holder == this CPU: the registers are still the task's: TS off, done;
 * - holder == another CPU: send that CPU a flush IPI, set TS, run anyway;
 * - no holder: the state is in memory; set TS.
 * The task's first FPU use (#NM) waits for the flush, interrupts enabled,
 * then loads. A CPU that loads another task saves its live owner first.
 *
 * Invariant: f->holder == cpu (>= 0) only while f is switched out, its state
 * is live in that CPU's registers, and that CPU's owner is f. The holder
 * clears it (release) right after saving (fpu_held_saved); others read it
 * with acquire. Export, import, reset and exit first get a held state
 * flushed (fpu_held_fetch), so nothing written into the area afterwards can
 * be overwritten by a late flush.
 *
 * The fpu_held_* functions are this mechanism; adaptive uses them too.
 */
#include "internal.h"

static void smp_lazy_switch(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next)
{
	if (prev && c->live && c->owner == prev)
		__atomic_store_n(&prev->holder, (int)cpu, __ATOMIC_RELEASE);
	if (!next)
		return;

	int holder = __atomic_load_n(&next->holder, __ATOMIC_ACQUIRE);
	if (holder == (int)cpu) {
		if (c->owner != next || !c->live)
			fpu_bug("smp-lazy: holder without live ownership");
		next->holder = -1;
		fpu_ts_clear(c);
		c->stats.restores_skipped++;
		return;
	}
	if (holder >= 0) {
		c->stats.flush_ipis++;
		fpu_ops->send_flush_ipi((unsigned int)holder);
	}
	fpu_ts_set(c);
}

void fpu_held_wait(struct fpu *f)
{
	while (__atomic_load_n(&f->holder, __ATOMIC_ACQUIRE) >= 0)
		if (fpu_ops->wait_relax)
			fpu_ops->wait_relax();
}

static void smp_lazy_handle_nm(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	if (__atomic_load_n(&cur->holder, __ATOMIC_ACQUIRE) >= 0) {
		fpu_held_wait(cur);
#ifdef FPU_TESTING
		if (FPU_FAULT(FPU_FAULT_SKIP_RESTORE_AFTER_FLUSH)) {
			fpu_trust_regs(c, cpu, cur);
			return;
		}
#endif
	}
	fpu_activate(c, cpu, cur);
}

/* Another CPU wants the state we hold for a switched-out task. */
void fpu_held_flush_ipi(struct fpu_cpu *c, unsigned int cpu)
{
	struct fpu *f = c->owner;

	if (!f || !c->live || __atomic_load_n(&f->holder, __ATOMIC_ACQUIRE) != (int)cpu)
		return;  /* already given up, or the task came back here */
	bool ts = c->ts; /* the interrupted task may be running with TS set */
	if (FPU_FAULT(FPU_FAULT_SKIP_SAVE_ON_MIGRATE)) {
		c->live = false;
		__atomic_store_n(&f->holder, -1, __ATOMIC_RELEASE);
	} else {
		fpu_save_regs(c, cpu, f);
	}
	if (ts)
		fpu_ts_set(c);
}

/* The state may be held by another CPU: get it flushed into the area, and wait. */
void fpu_held_fetch(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	int holder = __atomic_load_n(&f->holder, __ATOMIC_ACQUIRE);
	if (holder < 0 || holder == (int)cpu)
		return; /* in memory, or in our registers (the core saves those) */
	c->stats.flush_ipis++;
	fpu_ops->send_flush_ipi((unsigned int)holder);
	fpu_held_wait(f);
}

/* The state is in memory now: a CPU waiting for it may go on. */
void fpu_held_saved(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (f->holder == (int)cpu)
		__atomic_store_n(&f->holder, -1, __ATOMIC_RELEASE);
}

const struct fpu_policy fpu_policy_smp_lazy = {
	.name = "smp-lazy",
	.flags = FPU_POLICY_STATIC,
	.switch_to = smp_lazy_switch,
	.handle_nm = smp_lazy_handle_nm,
	.flush_ipi = fpu_held_flush_ipi,
	.fetch = fpu_held_fetch,
	.saved = fpu_held_saved,
	.reload = fpu_reload_trap,
};
