/* SPDX-License-Identifier: MIT */
/*
 * libfpu core: the hooks a kernel calls, dispatched to the active policy,
 * and what every policy shares (CR0.TS, save, load, ownership, counters,
 * kernel-mode FPU sections, export and import).
 *
 * Invariants kept here:
 * - fpu_cpus[cpu].ts mirrors CR0.TS of that CPU.
 * - TS is clear before libfpu executes any save or restore instruction
 *   (hardware raises #NM there when it is set; QEMU TCG does not).
 * - Ownership: see fpregs_hold() in internal.h, the one statement of it.
 */
#include "internal.h"
#include "xsave_insn.h"

const struct fpu_arch_ops *fpu_ops;
struct fpu_cpu fpu_cpus[FPU_MAX_CPUS];
struct fpu_adaptive fpu_newcomers;
struct fpu_tunables fpu_tunables = { 5, FPU_PREFETCH_CONDITIONAL };

/* Every policy; "all" means these. Test builds add broken ones by name only. */
static const struct fpu_policy *const policies[] = {
	&fpu_policy_eager,    &fpu_policy_lazy,     &fpu_policy_lazy_counter, &fpu_policy_owner,
	&fpu_policy_deferred, &fpu_policy_smp_lazy, &fpu_policy_adaptive,
};
#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))

static const char *policy_names[NR_POLICIES + 1];
static const struct fpu_policy *policy = &fpu_policy_eager;
static bool tracing;                 /* fpu_set_tracing() */
static fpu_insn_trace_fn insn_trace; /* fpu_set_insn_trace() */

static bool streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

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
	for (unsigned int i = 0; i < NR_POLICIES; i++)
		policy_names[i] = policies[i]->name;
	policy = &fpu_policy_eager;
	return 0;
}

void fpu_cpu_init(void)
{
	unsigned int cpu = fpu_ops->cpu_id();

	if (cpu >= FPU_MAX_CPUS) /* checked once here, not in every hook */
		fpu_bug("fpu_cpu_init: cpu_id() is FPU_MAX_CPUS or more");
	struct fpu_cpu *c = &fpu_cpus[cpu];

	xstate_cpu_enable(); /* also clears CR0.TS and loads the init state */
	c->owner = NULL;
	c->cur = NULL;
	if (xstate_cfg.pkru)
		fpu_pkru_read(c);
	c->live = false;
	c->ts = false;
	c->trace_ts = false;
	c->trace_armed = false;
	c->calm = 255;
	c->watch_s = 0;
	c->hold_gain = 0;
}

static const struct fpu_policy *policy_by_name(const char *name)
{
	if (!name)
		return NULL;
	for (unsigned int i = 0; i < NR_POLICIES; i++)
		if (streq(policies[i]->name, name))
			return policies[i];
#ifdef FPU_TESTING
	if (streq(fpu_policy_broken_lazy.name, name))
		return &fpu_policy_broken_lazy;
#endif
	return NULL;
}

int fpu_set_policy(const char *name)
{
	const struct fpu_policy *p = policy_by_name(name);
	if (!p)
		return XSTATE_E_INVAL;
	policy = p;
	return 0;
}

int fpu_policy_flags(const char *name)
{
	const struct fpu_policy *p = policy_by_name(name);
	if (!p)
		return XSTATE_E_INVAL;
	return (int)(p->flags | (p->handle_nm ? FPU_POLICY_TRAPS : 0));
}

const char *fpu_policy_name(void)
{
	return policy->name;
}

const char *const *fpu_policy_names(void)
{
	/* Valid before fpu_init() too: the host lists the policies without one. */
	for (unsigned int i = 0; i < NR_POLICIES; i++)
		policy_names[i] = policies[i]->name;
	return policy_names;
}

const char *const *fpu_test_policy_names(void)
{
	static const char *const names[] = {
#ifdef FPU_TESTING
		"broken-lazy",
#endif
		NULL,
	};
	return names;
}

void fpu_set_tracing(bool on)
{
	tracing = on;
}

void fpu_set_tunables(const struct fpu_tunables *t)
{
	fpu_tunables = *t;
}

/* ---- shared mechanisms ---- */

/* CR0.TS itself, uncounted: the counted writes are fpu_ts_set/clear's. */
static void cr0_ts_set(void)
{
	if (fpu_ops->set_ts) {
		fpu_ops->set_ts();
	} else {
		unsigned long cr0;
		__asm__ volatile("mov %%cr0, %0" : "=r"(cr0));
		__asm__ volatile("mov %0, %%cr0" : : "r"(cr0 | 8ul) : "memory");
	}
}

static void cr0_ts_clear(void)
{
	if (fpu_ops->clear_ts)
		fpu_ops->clear_ts();
	else
		__asm__ volatile("clts" ::: "memory");
}

/* Tracing's TS off again (an #NM it caused, or before the policy needs TS clear). */
static void trace_ts_drop(struct fpu_cpu *c)
{
	if (c->trace_ts) {
		cr0_ts_clear();
		c->trace_ts = false;
	}
}

/*
 * Tracing: while the running task has not used the FPU yet in this slice
 * and the policy leaves TS clear, set TS so that its first use still traps.
 * At the end of every hook that may have cleared TS; without tracing, one
 * predicted test.
 */
static void trace_rearm_slow(struct fpu_cpu *c)
{
	if (!c->trace_armed || c->ts || c->trace_ts || c->in_kernel_fpu || !c->cur)
		return;
	cr0_ts_set();
	c->trace_ts = true;
}

static inline void trace_rearm(struct fpu_cpu *c)
{
	if (unlikely(tracing))
		trace_rearm_slow(c);
}

void fpu_ts_set(struct fpu_cpu *c)
{
	if (c->ts)
		return;
	if (c->trace_ts)
		c->trace_ts = false; /* CR0.TS is set already: now it is the policy's */
	else
		cr0_ts_set();
	c->ts = true;
	c->stats.ts_writes++;
}

void fpu_ts_clear_slow(struct fpu_cpu *c)
{
	if (!c->ts) {
		trace_ts_drop(c); /* the policy believes TS clear: make it so */
		return;
	}
	cr0_ts_clear();
	c->ts = false;
	c->stats.ts_writes++;
}

void fpu_set_insn_trace(fpu_insn_trace_fn fn)
{
	insn_trace = fn;
}

/* The one save and the one restore of a task's area, inline (xsave_insn.h). */
static inline void save_area(struct xregs_state *area, uint64_t mask)
{
	enum fpu_save_insn insn = xstate_cfg.save_insn;

	if (unlikely(insn_trace != NULL))
		insn_trace(false, insn, area, xsave_mask(insn, mask));
	xsave_insn(insn, area, mask);
}

static inline void restore_area(const struct xregs_state *area, uint64_t mask)
{
	enum fpu_save_insn insn = xstate_cfg.save_insn;

	if (unlikely(insn_trace != NULL))
		insn_trace(true, insn, area, mask);
	xrstor_insn(insn, area, mask);
}

void fpu_save_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	/* State on a task's behalf lands only in its own area: @f must own the registers. */
	if (c->owner != f && !FPU_ANY_FAULT())
		fpu_bug("saving registers into the area of a task that does not own them");
	fpu_ts_clear(c);
	if (FPU_FAULT(FPU_FAULT_SKIP_SAVE_ON_MIGRATE) && (f->flags & FPU_F_MIGRATING))
		; /* injected: the registers never reach the save area */
	else
		save_area(f->state, xstate_cfg.kernel_mask);
	if (xstate_cfg.pkru_offset) {
		/* The register is @f's PKRU only while @f runs here (pkru.c). */
		if (xstate_cfg.pkru && f == c->cur)
			f->pkru = fpu_pkru_read(c);
		fpu_pkru_stamp(f->state, f->pkru);
	}
	c->stats.saves[xstate_cfg.save_insn]++;
	if (c->owner == f)
		c->live = false;
	if (policy->saved)
		policy->saved(c, cpu, f);
}

/* xstate_scrub_fxsave_leak()'s condition, without the call where it is false. */
static inline bool scrub_needed(void)
{
	return xstate_cfg.force_fxsave_scrub ||
	       (xstate_cfg.caps.amd && !xstate_cfg.caps.xsaveerptr);
}

void fpu_load_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (!FPU_FAULT(FPU_FAULT_SKIP_CLTS_BEFORE_RESTORE))
		fpu_ts_clear(c);
	if (unlikely(scrub_needed()) && !fpregs_hold(c, cpu, f) && xstate_scrub_fxsave_leak())
		c->stats.scrubs++;
	restore_area(f->state, xstate_cfg.kernel_mask & ~XFEATURE_MASK_PKRU); /* pkru.c */
	/* lazy-pkru: as if XRSTOR had loaded PKRU, only with the registers */
	if (FPU_FAULT(FPU_FAULT_LAZY_PKRU) && xstate_cfg.pkru)
		fpu_pkru_write(c, f->pkru);
	c->stats.restores++;
	c->owner = f;
	c->live = true;
	f->last_cpu = (int)cpu;
	f->flags |= FPU_F_USED;
}

void fpu_save_load(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	fpu_save_live(c, cpu);
	fpu_load_regs(c, cpu, f);
}

void fpu_reload_trap(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur)
{
	fpu_ts_set(c);
}

/*
 * One line, the area's first (the legacy region XRSTOR reads first), as
 * seed 000's prefetch(&next->i387.fxsave) did: the rest of a 2-3 KB area
 * would be 30-40 more instructions on every prefetched switch-in, most of
 * them useless when the registers still hold the state.
 */
void fpu_prefetch(struct fpu_cpu *c, const struct fpu *f)
{
	__builtin_prefetch(f->state);
	c->stats.prefetches++;
}

/* ---- hooks ---- */

void fpu_switch(struct fpu *prev, struct fpu *next)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	c->stats.switches++;
	trace_ts_drop(c); /* the policy sees CR0.TS as its mirror says */
	c->trace_armed = false;
	if (xstate_cfg.pkru) {
		/* prev may have run WRPKRU; so may a task that exited (prev NULL then) */
		uint32_t pkru = fpu_pkru_read(c);
		if (prev)
			prev->pkru = pkru;
	}
	c->cur = NULL;
	policy->switch_to(c, cpu, prev, next);
	if (xstate_cfg.pkru && next && next->pkru != c->pkru && !FPU_FAULT(FPU_FAULT_LAZY_PKRU)) {
		fpu_pkru_write(c,
			       next->pkru); /* TS or not: PKRU is enforced in ring 3 regardless */
		c->stats.pkru_writes++;
	}
	c->cur = next;
	if (prev && unlikely(prev->flags & FPU_F_MIGRATING))
		prev->flags &= ~FPU_F_MIGRATING; /* the policy has seen the move */
	if (unlikely(tracing)) {
		c->trace_armed = next != NULL; /* cleared above otherwise */
		trace_rearm_slow(c);
	}
}

void fpu_handle_nm(struct fpu *cur)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (c->trace_armed) {
		c->trace_armed = false;
		if (fpu_ops->trace_use)
			fpu_ops->trace_use(cur);
	}
	if (c->trace_ts) { /* tracing's #NM, not the policy's: not counted */
		trace_ts_drop(c);
		return;
	}
	if (!policy->handle_nm || !c->ts)
		fpu_bug("#NM that the FPU policy did not cause");
	c->stats.nm_traps++;
	policy->handle_nm(c, cpu, cur);
}

/*
 * Loads and TS writes a policy deferred to here are skipped for a task that
 * blocks again in the kernel. Until then the registers may belong to
 * another task with TS clear: harmless, as nothing in the kernel touches
 * them but libfpu, which goes by ownership, not by TS. The flag test is
 * fpu_return_to_user()'s, inline (fpu.h).
 */
void fpu_return_to_user_load(struct fpu *cur)
{
	unsigned int flags = cur->flags;
	cur->flags = flags &
		     ~(FPU_F_NEED_LOAD | FPU_F_NEED_TS | FPU_F_NOT_IN_USER | FPU_F_EXPORTED);
	if (!(flags & (FPU_F_NEED_LOAD | FPU_F_NEED_TS | FPU_F_EXPORTED)))
		return;
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);
	if (flags & FPU_F_NEED_LOAD)
		fpu_activate(c, cpu, cur);
	else if (flags & FPU_F_NEED_TS)
		fpu_ts_set(c);
	else if (fpregs_hold(c, cpu, cur) && !c->ts)
		c->live = true; /* saved by an export; ring 3 may change them now */
	trace_rearm(c);
}

void fpu_flush_ipi(void)
{
	if (policy->flush_ipi) {
		unsigned int cpu;
		struct fpu_cpu *c = this_fpu_cpu(&cpu);
		policy->flush_ipi(c, cpu);
		trace_rearm(c);
	}
}

void fpu_invalidate(struct fpu *fpu)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (!fpu || c->owner == fpu) {
		c->owner = NULL;
		c->live = false;
	}
	if (fpu)
		fpu->last_cpu = -1;
}

void fpu_task_init(struct fpu *fpu, struct xregs_state *buf, unsigned int id)
{
	if (!buf || ((uintptr_t)buf & (XSTATE_ALIGN - 1)))
		fpu_bug("fpu_task_init: the save area is NULL or not 64-byte aligned"); /* XSAVE* would #GP */
	fpu->state = buf;
	fpu->last_cpu = -1;
	fpu->flags = 0;
	fpu->fpu_counter = 0;
	fpu->holder = -1;
	fpu->pkru = 0; /* architectural init; fpu_set_pkru() gives another */
	fpu->id = id;
	fpu->adaptive = (struct fpu_adaptive){ 0 };
	xstate_init_buffer(buf);
}

void fpu_task_exit(struct fpu *fpu)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	if (FPU_FAULT(FPU_FAULT_STALE_OWNER_AFTER_EXIT))
		return;
	if (policy->fetch)
		policy->fetch(c, cpu, fpu); /* no CPU may save into the area once it is freed */
	fpu_invalidate(fpu);
	if (c->cur == fpu) {
		c->cur = NULL;
		c->trace_armed = false;
		trace_ts_drop(c);
	}
	trace_rearm(c);
}

/*
 * The running task: until its switch-out (adaptive saves its state then
 * rather than hold it). One switched out: the policy's migrated, if it has
 * one; else the flag, cleared at its next switch-out, which only the
 * injected skip-save-on-migrate reads.
 */
void fpu_task_migrated(struct fpu *fpu)
{
	unsigned int cpu;
	struct fpu_cpu *c;

	if (!policy->migrated) {
		fpu->flags |= FPU_F_MIGRATING; /* one flag: no CPU number to read */
		return;
	}
	c = this_fpu_cpu(&cpu);
	if (fpu == c->cur) {
		fpu->flags |= FPU_F_MIGRATING;
	} else {
		policy->migrated(c, cpu, fpu);
		trace_rearm(c);
	}
}

void fpu_cpu_quiesce(void)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	fpu_save_live(c, cpu);
	c->owner = NULL;
	c->cur = NULL; /* whatever ran here stopped: an import of it must not reload it here */
	fpu_ts_clear(c);
	trace_ts_drop(c);
	c->trace_armed = false;
	fpu_newcomers = (struct fpu_adaptive){ 0 };
	c->calm = 255;
	c->watch_s = 0;
	c->hold_gain = 0;
}

/* ---- user-visible state ---- */

/*
 * Bring @f's save area up to date wherever its latest state is: this CPU's
 * registers (saved here, TS kept as it was: under smp-lazy @f may be a
 * switched-out task while the running one has TS set), or another CPU's
 * (the policy's fetch: smp-lazy sends the flush IPI and waits). After it no
 * CPU holds @f's state live, so no later save or flush can overwrite what
 * the caller then writes into the area.
 */
static void fetch_state(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	bool ts = c->ts;

	if (c->live && c->owner == f)
		fpu_save_regs(c, cpu, f);
	else if (policy->fetch)
		policy->fetch(c, cpu, f);
	if (ts)
		fpu_ts_set(c);
}

/*
 * After fetch_state() of the task running here, its area is up to date and
 * its registers, still its own, are no longer live: they become live again
 * when it is back in ring 3 (fpu_return_to_user), where it may change them,
 * unless an import or reset replaces them before that.
 */
static void regs_live_in_user(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (f == c->cur && fpregs_hold(c, cpu, f))
		f->flags |= FPU_F_EXPORTED;
}

int fpu_export_std(struct fpu *fpu, void *dst, size_t dst_len)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);

	fetch_state(c, cpu, fpu);
	regs_live_in_user(c, cpu, fpu);
	int n = xstate_export_std(dst, dst_len, fpu->state);
	if (n > 0)
		fpu_pkru_export(dst,
				xstate_cfg.pkru && fpu == c->cur ? fpu_pkru_read(c) : fpu->pkru);
	trace_rearm(c);
	return n;
}

/*
 * @f's area was rewritten: no CPU's registers may be trusted for it any more
 * (fpu_invalidate), and if @f is the task running here, its policy gives it
 * the new state before ring 3 uses the FPU (reload).
 */
static void state_replaced(struct fpu_cpu *c, unsigned int cpu, struct fpu *f, bool was_live)
{
	if (FPU_FAULT(FPU_FAULT_IMPORT_STALE_REGS)) {
		c->live = c->live || (was_live && c->owner == f); /* injected: stale and trusted */
		return;
	}
	fpu_invalidate(f);
	if (f == c->cur && policy->reload)
		policy->reload(c, cpu, f);
}

int fpu_import(struct fpu *fpu, const void *src, size_t src_len, uint64_t rfbm)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);
	bool was_live = c->live && c->owner == fpu;

	if (c->in_kernel_fpu)
		fpu_bug("import inside a kernel-mode FPU section");
	fetch_state(c, cpu, fpu); /* supervisor state is kept from the area */
	int err = xstate_import_std_masked(fpu->state, src, src_len, rfbm);
	if (err != XSTATE_OK) {
		regs_live_in_user(c, cpu, fpu); /* refused: it runs on with its own state */
		trace_rearm(c);
		return err;
	}
	fpu->pkru = fpu_pkru_import(src, rfbm, fpu->pkru);
	fpu_pkru_stamp(fpu->state, fpu->pkru);
	if (xstate_cfg.pkru && fpu == c->cur)
		fpu_pkru_write(c, fpu->pkru);
	state_replaced(c, cpu, fpu, was_live);
	if (tracing && fpu == c->cur)
		c->trace_armed = true; /* its next use is a first use again, as after kernel FPU */
	trace_rearm(c);
	return XSTATE_OK;
}

int fpu_import_std(struct fpu *fpu, const void *src, size_t src_len)
{
	return fpu_import(fpu, src, src_len, ~0ULL);
}

void fpu_task_reset(struct fpu *fpu)
{
	/* The init state in the standard format: FCW 0x037F (at 0), MXCSR 0x1F80 (at 24), XSTATE_BV 0. */
	static const uint8_t init[XSTATE_EXT_OFFSET]
		__attribute__((aligned(64))) = { [0] = 0x7f, [1] = 0x03, [24] = 0x80, [25] = 0x1f };

	if (fpu_import(fpu, init, sizeof(init), ~0ULL) != XSTATE_OK)
		fpu_bug("fpu_task_reset: the init image was refused");
}

/* ---- kernel-mode FPU ---- */

void kernel_fpu_begin(void)
{
	unsigned int cpu;
	struct fpu_cpu *c;
	uint32_t mxcsr = MXCSR_DEFAULT;

	if (fpu_ops->in_interrupt && fpu_ops->in_interrupt())
		fpu_bug("kernel_fpu_begin() in interrupt context");
	if (fpu_ops->preempt_disable)
		fpu_ops->preempt_disable();
	c = this_fpu_cpu(&cpu);
	if (c->in_kernel_fpu)
		fpu_bug("nested kernel_fpu_begin()");
	c->in_kernel_fpu = true;
	c->stats.kernel_fpu_sections++;

	fpu_save_live(c, cpu);
	if (!FPU_FAULT(FPU_FAULT_NO_INVALIDATE_ON_KERNEL_FPU))
		fpu_invalidate(NULL);
	fpu_ts_clear(c);
	__asm__ volatile("fninit");
	if (xstate_cfg.kernel_mask & XFEATURE_MASK(XFEATURE_SSE))
		__asm__ volatile("ldmxcsr %0" : : "m"(mxcsr));
}

void kernel_fpu_end(void)
{
	unsigned int cpu;
	struct fpu_cpu *c = this_fpu_cpu(&cpu);
	struct fpu *cur = c->cur; /* the task fpu_switch() switched in here; NULL: none */

	if (!c->in_kernel_fpu)
		fpu_bug("kernel_fpu_end() without kernel_fpu_begin()");
	c->in_kernel_fpu = false;
	if (cur && policy->reload)
		policy->reload(c, cpu, cur);
	c->trace_armed = tracing && c->cur; /* a use after the section is a first use */
	trace_rearm(c);
	if (fpu_ops->preempt_enable)
		fpu_ops->preempt_enable();
}

/* ---- counters ---- */

struct fpu_stats *fpu_stats_cpu(unsigned int cpu)
{
	return cpu < FPU_MAX_CPUS ? &fpu_cpus[cpu].stats : NULL;
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
	[FPU_FAULT_IMPORT_STALE_REGS] = "import-stale-regs",
	[FPU_FAULT_LAZY_PKRU] = "lazy-pkru",
};

#ifdef FPU_TESTING
enum fpu_fault fpu_fault_armed;

void fpu_trust_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	fpu_save_live(c, cpu);
	fpu_ts_clear(c);
	c->owner = f;
	c->live = true;
	f->last_cpu = (int)cpu;
	c->stats.restores_skipped++;
}
#endif

int fpu_set_fault(enum fpu_fault fault)
{
#ifdef FPU_TESTING
	fpu_fault_armed = fault;
	return 0;
#else
	return fault == FPU_FAULT_NONE ? 0 : XSTATE_E_INVAL;
#endif
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
