/* SPDX-License-Identifier: MIT */
/* libfpu internals shared by its files (core.c, the policies, the xstate layer). Not for embedders. */
#ifndef LIBFPU_INTERNAL_H
#define LIBFPU_INTERNAL_H

#include <fpu/fpu.h>

/* struct fpu.flags private to libfpu (public ones in fpu.h). */
#define FPU_F_MIGRATING (1u << 2) /* fpu_task_migrated() was called; cleared when switched out */

/*
 * Per-CPU state, owned by libfpu.
 *
 * owner: whose state the registers hold (fpregs owner), or NULL; trusted
 *        only as fpregs_hold() says.
 * live:  the registers may be newer than owner's save area: the owner ran
 *        with FPU access since its state was loaded or last saved. Whoever
 *        clobbers the registers must save them first (fpu_save_live()).
 *        An export saves the running task's registers and leaves it its FPU
 *        access: FPU_F_EXPORTED makes them live again when it is back in
 *        ring 3 (fpu_return_to_user_load), not before (an import or reset
 *        right after the export, as at signal delivery, saves nothing more).
 * ts:    mirrors CR0.TS; only fpu_ts_set/clear change either.
 * cur:   the task fpu_switch() last switched in here (NULL: a kernel thread
 *        or idle): the one whose registers a return to ring 3 uses, and
 *        whose PKRU the register holds.
 */
struct fpu_cpu {
	struct fpu *owner;
	struct fpu *cur;
	bool live;
	bool ts;
	bool in_kernel_fpu;
	/*
	 * Tracing (fpu_set_tracing): trace_armed: the running task has not used
	 * the FPU yet in this slice (or since a kernel-FPU section); trace_ts:
	 * CR0.TS is set for tracing only, not by the policy (ts stays false,
	 * nothing is counted). Never both ts and trace_ts.
	 */
	bool trace_armed;
	bool trace_ts;
	uint32_t pkru; /* the PKRU register, as libfpu last read or wrote it */
	/* adaptive: switch-ins here since a task came here or left unannounced, up to 255 */
	uint8_t calm;
	/* adaptive: of the recent switch-ins here, the share that would have left TS set
	 * had they found it set, in 65536ths (a moving average) */
	uint16_t watch_s;
	/*
	 * adaptive: ns that holding state here has spared (a save for each
	 * switch-in finding its registers its own) less what it has cost (a flush
	 * IPI for each fetch of state held here), at most one IPI ahead
	 */
	int32_t hold_gain;
	struct fpu_stats stats;
} __attribute__((aligned(64)));

/*
 * A policy is a table of operations; core.c calls them with the calling
 * CPU's fpu_cpu and number, interrupts off. NULL members do nothing, except
 * handle_nm (NULL: the policy never sets TS, an #NM is a bug). State a
 * policy needs beyond struct fpu_cpu (smp-lazy's holder) is its own. A
 * policy that defers a load to the return to ring 3 sets FPU_F_NEED_LOAD,
 * one that defers setting TS sets FPU_F_NEED_TS; fpu_return_to_user() does
 * it.
 */
struct fpu_policy {
	const char *name;
	unsigned int flags; /* FPU_POLICY_* (include/fpu/fpu.h): what tools rank it as */
	void (*switch_to)(struct fpu_cpu *c, unsigned int cpu, struct fpu *prev, struct fpu *next);
	void (*handle_nm)(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);
	void (*flush_ipi)(struct fpu_cpu *c, unsigned int cpu);
	/*
	 * @f's latest state may be live in another CPU's registers: have that
	 * CPU give it up into @f's area (may wait, through ops->wait_relax).
	 * Before an export, an import, a reset and an exit.
	 */
	void (*fetch)(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);
	/* @f's registers were just saved into its area. */
	void (*saved)(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);
	/*
	 * @f, not running here, will next run on another CPU
	 * (fpu_task_migrated() of a switched-out task). TS as the running
	 * task had it.
	 */
	void (*migrated)(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);
	/*
	 * The running task @cur's registers no longer hold its state (after a
	 * kernel-mode FPU section, an import or a reset): how it gets the state
	 * of its area back before ring 3 next uses the FPU.
	 */
	void (*reload)(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);
};

extern const struct fpu_arch_ops *fpu_ops;
extern struct fpu_cpu fpu_cpus[FPU_MAX_CPUS];
/*
 * adaptive: the first watched slices of the tasks new to libfpu, on any CPU
 * (its newcomers' prior, like a task's fpu_adaptive; reset by
 * fpu_cpu_quiesce). Shared by the CPUs: a lost update of these heuristic
 * counts is harmless, and they are written only at a new task's decisions.
 */
extern struct fpu_adaptive fpu_newcomers;
extern struct fpu_tunables fpu_tunables;
extern const struct fpu_policy fpu_policy_eager, fpu_policy_lazy, fpu_policy_lazy_counter,
	fpu_policy_owner, fpu_policy_deferred, fpu_policy_smp_lazy, fpu_policy_adaptive;

#ifdef FPU_TESTING
extern const struct fpu_policy fpu_policy_broken_lazy;
extern enum fpu_fault fpu_fault_armed;
#define FPU_FAULT(f) (fpu_fault_armed == (f))
#define FPU_ANY_FAULT() (fpu_fault_armed != FPU_FAULT_NONE)
/* Deliberately wrong, for broken policies and faults: give @f the registers as they are. */
void fpu_trust_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);
#else
#define FPU_FAULT(f) false
#define FPU_ANY_FAULT() false
#endif

/*
 * The ownership invariant: the registers of @cpu hold task @f's state iff
 * @cpu's owner is @f and @f's last_cpu is @cpu. Every decision to trust the
 * registers goes through here; fpu_invalidate() is the one way to break it
 * (writing @f's area forgets its last_cpu; clobbering the registers drops
 * the owner), and fpu_save_regs() refuses to save the registers into the
 * area of a task that is not their owner.
 */
static inline bool fpregs_hold(const struct fpu_cpu *c, unsigned int cpu, const struct fpu *f)
{
	return c->owner == f && f->last_cpu == (int)cpu;
}

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

void fpu_ts_set(struct fpu_cpu *c);
void fpu_ts_clear_slow(struct fpu_cpu *c);

/*
 * CR0.TS clear, as the policy needs it before a save or restore. Inline:
 * on the common path TS is clear already, for the policy and for tracing
 * (never both set, struct fpu_cpu).
 */
static inline void fpu_ts_clear(struct fpu_cpu *c)
{
	if (unlikely(c->ts | c->trace_ts))
		fpu_ts_clear_slow(c);
}

/* Save the registers into @f's area; they stay valid for @f, no longer live. */
void fpu_save_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

/* Save the owner's state if the registers are live. */
static inline void fpu_save_live(struct fpu_cpu *c, unsigned int cpu)
{
	if (c->live)
		fpu_save_regs(c, cpu, c->owner);
}

/* Load @f's area into the registers; @f becomes the owner, live, TS clear. */
void fpu_load_regs(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

/* Save the live owner's state, then load @f's area (eager's switch: no ownership test). */
void fpu_save_load(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

/*
 * Give the running task @f its registers: load them unless they already
 * hold it. Inline: the skipped restore makes no call.
 */
static inline void fpu_activate(struct fpu_cpu *c, unsigned int cpu, struct fpu *f)
{
	if (fpregs_hold(c, cpu, f)) {
		fpu_ts_clear(c);
		c->live = true;
		c->stats.restores_skipped++;
	} else {
		fpu_save_load(c, cpu, f);
	}
}

/*
 * Lazy save across CPUs (policy_smp_lazy.c, also used by adaptive): a task
 * switched out with live registers may stay their owner, unsaved, with
 * f->holder the CPU. Another CPU that needs the state sends that CPU a flush
 * IPI (fpu_held_flush_ipi serves it) and waits (fpu_held_wait);
 * fpu_held_fetch does both before an export, import, reset or exit;
 * fpu_held_saved clears the holder once the state is in memory.
 */
void fpu_held_wait(struct fpu *f);
void fpu_held_flush_ipi(struct fpu_cpu *c, unsigned int cpu);
void fpu_held_fetch(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);
void fpu_held_saved(struct fpu_cpu *c, unsigned int cpu, struct fpu *f);

/* reload for the TS-based policies: set TS, so that the task's next FPU
 * instruction traps and its state is loaded then. */
void fpu_reload_trap(struct fpu_cpu *c, unsigned int cpu, struct fpu *cur);

/* Prefetch the first line of @f's save area (counted). */
void fpu_prefetch(struct fpu_cpu *c, const struct fpu *f);

/* fpu_import_std() with components outside @rfbm taken as init (sigreturn). */
int fpu_import(struct fpu *fpu, const void *src, size_t src_len, uint64_t rfbm);

/* PKRU (pkru.c): read/write the register (c->pkru caches it), switch it, and
 * keep a buffer's or an image's copy right. */
uint32_t fpu_pkru_read(struct fpu_cpu *c);
void fpu_pkru_write(struct fpu_cpu *c, uint32_t v);
void fpu_pkru_stamp(struct xregs_state *buf, uint32_t pkru);
void fpu_pkru_export(void *img, uint32_t pkru);
uint32_t fpu_pkru_import(const void *img, uint64_t rfbm, uint32_t old);

__attribute__((noreturn)) void fpu_bug(const char *msg);

/* MXCSR_MASK as FXSAVE stores it (MXCSR_MASK_DEFAULT when 0); CR0.EM/TS clear (xstate.c). */
uint32_t xstate_read_mxcsr_mask(void);

#endif
