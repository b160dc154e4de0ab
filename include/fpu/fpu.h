/* SPDX-License-Identifier: MIT */
/*
 * libfpu: per-task FPU state, the context-switch hooks a kernel calls, the
 * policies behind them, and kernel-mode FPU sections.
 *
 * The kernel embeds a struct fpu in each task that may run in ring 3 and calls
 * libfpu at fixed hooks (fpu_switch, fpu_handle_nm, fpu_return_to_user,
 * fpu_flush_ipi, kernel_fpu_begin/end, fpu_task_*). libfpu calls back only
 * through struct fpu_arch_ops. It knows nothing of the kernel's scheduler.
 *
 * Terms: the "fpregs owner" of a CPU is the task whose state its registers
 * hold; a task's "last_cpu" is the CPU whose registers last held its state
 * (when the registers may be trusted: lib/internal.h, fpregs_hold()).
 *
 * Manual sections: CR0.TS, Intel SDM Vol. 3A §2.5; #NM, SDM Vol. 3A §6.15
 * ("Interrupt 7") and AMD APM Vol. 2 §8.2 (vector 7); saving state for a
 * context switch, SDM Vol. 1 ch. 13 (init and modified optimizations §13.6,
 * XSAVES §13.11) and APM Vol. 2 §11.5; the FXSAVE pointer leak on AMD, the
 * APM's FXSAVE description (FIP/FDP/FOP saved only with an x87 exception
 * pending, unless CPUID 0x80000008 EBX[2] XSaveErPtr) and CVE-2006-1056.
 *
 * Concurrency: every hook runs on the calling CPU with interrupts off, except
 * where a comment says it may wait (and then only through ops->wait_relax).
 * Counters (struct fpu_stats) are per CPU, written only by that CPU.
 *
 * Export, import and ownership: the guarantees, under every policy.
 * - Who calls fpu_export_std, fpu_import_std, fpu_task_reset,
 *   fpu_sigframe_save/restore, fpu_set_pkru and fpu_get_pkru for task T:
 *   T itself, from a syscall or on its way back to ring 3 (signal
 *   delivery, sigreturn), on the CPU it runs on; or another task while T
 *   is stopped: switched out (fpu_switch() away from
 *   it has returned) and not switched in again until the call returns
 *   (ptrace, core dumps). Task context, preemption off (or a kernel that
 *   does not preempt in kernel mode), not in interrupt context, not inside
 *   a kernel-mode FPU section. Interrupts may be off; under smp-lazy the
 *   call may wait with them on, through ops->wait_relax.
 * - Export returns T's latest state wherever it is: this CPU's registers
 *   (saved first), another CPU's registers not yet flushed (smp-lazy: the
 *   flush IPI is sent and the call waits for it), or memory.
 * - Import (and reset) replace T's state. Before writing T's area, the state
 *   another CPU may hold live is flushed, so no later flush or save can
 *   overwrite the imported state. After it, no CPU's registers are trusted
 *   for T: T owns no registers (its last_cpu is forgotten; a CPU whose owner
 *   it was drops it). If T is the task running here, the next return to ring
 *   3 runs with the imported state: eager loads it now, deferred on the way
 *   out, the TS-based policies (lazy, lazy-counter, owner, smp-lazy) set TS
 *   and load it at T's next FPU instruction.
 * - State on T's behalf only ever lands in T's area: registers are saved
 *   only into the area of their owner (libfpu panics rather than do
 *   otherwise).
 * - PKRU (xstate_cfg.pkru): switched at every fpu_switch() under every
 *   policy, TS or not; while T runs the register is T's PKRU, otherwise
 *   fpu->pkru. Export writes it into the image with XSTATE_BV[9] set; an
 *   import takes it from the image (init, 0, when XSTATE_BV[9] is clear, as
 *   XRSTOR would) and, for the running task, writes the register at once.
 */
#ifndef FPU_FPU_H
#define FPU_FPU_H

#include <fpu/xstate.h>

#define FPU_MAX_CPUS 64

/* struct fpu.flags */
#define FPU_F_USED (1u << 0)        /* task has used the FPU (Linux's used_math) */
#define FPU_F_NEED_LOAD (1u << 1)   /* load registers on the way to ring 3 (fpu_return_to_user) */
#define FPU_F_NEED_TS (1u << 3)     /* set CR0.TS on the way to ring 3 (fpu_return_to_user) */
#define FPU_F_NOT_IN_USER (1u << 4) /* switched in, not back in ring 3 yet (cleared there) */
#define FPU_F_EXPORTED (1u << 5)    /* an export saved it running: live again back in ring 3 */

/* What the adaptive policy knows of a task (lib/policy_adaptive.c). */
struct fpu_adaptive {
	uint8_t uses;   /* observed slices that used the FPU (halved with nobs) */
	uint8_t nobs;   /* observed slices, halved when they reach 250 */
	uint8_t slice;  /* this slice: observed, used, sampled (ADAPT_* in the policy) */
	uint8_t level;  /* sampling backoff, 0..10 */
	uint16_t since; /* "now" decisions since the last sample */
	uint8_t cpu;    /* its last switch-in's CPU + 1; 0: none; 0xff: announced move */
	uint8_t stay;   /* switch-ins to wait after a move before its state is held */
	uint8_t kept;   /* its last switch-ins: 1 = its registers (had it had them) still its own */
	uint8_t nkept;  /* how many bits of kept are such switch-ins, 0..8 */
	uint32_t out_loads; /* its CPU's restores when it left without registers */
};

/* Per-task FPU context. Embedded in the kernel's task; initialise with fpu_task_init(). */
struct fpu {
	struct xregs_state *state; /* xstate_cfg.kernel_size bytes, 64-byte aligned */
	int last_cpu;              /* CPU whose registers last held this state; -1: none */
	unsigned int flags;        /* FPU_F_* */
	unsigned int fpu_counter;  /* lazy-counter: consecutive FPU-using slices, wraps at 256 */
	int holder;      /* smp-lazy: CPU holding its unsaved state while it is switched out; -1 */
	uint32_t pkru;   /* its PKRU while it does not run (Linux's thread.pkru); fpu_set_pkru() */
	unsigned int id; /* for messages only */
	struct fpu_adaptive adaptive; /* adaptive's view of the task */
};

/* Event counters, per CPU. Exact: tests assert them. */
struct fpu_stats {
	uint64_t switches;            /* fpu_switch() calls */
	uint64_t nm_traps;            /* #NM handled */
	uint64_t saves[FPU_INSN_NR];  /* state saves, by instruction */
	uint64_t restores;            /* state loads from memory (incl. init state) */
	uint64_t restores_skipped;    /* registers already held the state */
	uint64_t flush_ipis;          /* flush IPIs sent */
	uint64_t prefetches;          /* save areas prefetched at switch */
	uint64_t kernel_fpu_sections; /* kernel_fpu_begin() calls */
	uint64_t scrubs;              /* AMD FIP/FDP/FOP scrubs before a load */
	uint64_t pkru_writes;         /* WRPKRU at fpu_switch (the incoming task's PKRU differed) */
	uint64_t ts_writes;           /* CR0 writes that set or clear TS (set_ts/clear_ts calls) */
};

/* Services the embedding kernel provides. Only cpu_id and panic are mandatory. */
struct fpu_arch_ops {
	unsigned int (*cpu_id)(void);             /* 0..FPU_MAX_CPUS-1 */
	void (*panic)(const char *msg);           /* must not return */
	void (*set_ts)(void);                     /* NULL: native CR0.TS = 1 */
	void (*clear_ts)(void);                   /* NULL: native CLTS */
	void (*send_flush_ipi)(unsigned int cpu); /* deliver an IPI that calls fpu_flush_ipi() */
	void (*preempt_disable)(void);
	void (*preempt_enable)(void);
	bool (*in_interrupt)(void);     /* true in hard/soft interrupt context */
	void (*wait_relax)(void);       /* one spin of a wait loop, interrupts enabled */
	uint32_t (*read_pkru)(void);    /* NULL: native RDPKRU (only with xstate_cfg.pkru) */
	void (*write_pkru)(uint32_t v); /* NULL: native WRPKRU */
	/*
	 * Tracing only (fpu_set_tracing): the running task @cur uses the FPU
	 * for the first time in this slice, or since a kernel-mode FPU section.
	 * Called from fpu_handle_nm(), before the policy acts. NULL: nothing.
	 */
	void (*trace_use)(struct fpu *cur);
};

/* Prefetch of the save area at switch (lazy-counter; seed 000). */
enum fpu_prefetch {
	FPU_PREFETCH_CONDITIONAL, /* only tasks at or over the fpu_counter threshold */
	FPU_PREFETCH_ALWAYS,      /* every task switched in */
	FPU_PREFETCH_OFF,
};

struct fpu_tunables {
	unsigned int
		fpu_counter_threshold; /* lazy-counter: slices before eager restore (default 5) */
	enum fpu_prefetch prefetch;    /* default FPU_PREFETCH_CONDITIONAL */
};

/* Fault injection for test builds (FPU_TESTING): each breaks one invariant. */
enum fpu_fault {
	FPU_FAULT_NONE = 0,
	FPU_FAULT_SKIP_SAVE_ON_MIGRATE,
	FPU_FAULT_SKIP_RESTORE_AFTER_FLUSH,
	FPU_FAULT_NO_INVALIDATE_ON_KERNEL_FPU,
	FPU_FAULT_SKIP_CLTS_BEFORE_RESTORE,
	FPU_FAULT_STALE_OWNER_AFTER_EXIT,
	FPU_FAULT_IMPORT_STALE_REGS, /* import leaves the task's old registers live and trusted */
	FPU_FAULT_LAZY_PKRU, /* PKRU loaded with the rest of the xstate, not at every switch */
	FPU_FAULT_NR,
};

/**
 * fpu_init - set up libfpu after xstate_init(). @ops must outlive libfpu.
 * Selects the "eager" policy. Return: 0, or XSTATE_E_INVAL if @ops lacks a
 * mandatory member.
 */
int fpu_init(const struct fpu_arch_ops *ops);

/**
 * fpu_cpu_init - ring 0, on each CPU once: xstate_cpu_enable(), no owner, TS
 * clear. Panics (ops->panic) if cpu_id() is FPU_MAX_CPUS or more: the hooks
 * after it index the per-CPU state by cpu_id() unchecked.
 */
void fpu_cpu_init(void);

/**
 * fpu_set_policy - make @name the active policy. Only at a quiescent point:
 * no task holds state in any CPU's registers (fpu_cpu_quiesce() has run on
 * every CPU since the last user task ran). Return: 0, or XSTATE_E_INVAL for
 * an unknown name or NULL.
 */
int fpu_set_policy(const char *name);

/** fpu_policy_name - the active policy's name. */
const char *fpu_policy_name(void);

/** fpu_policy_names - NULL-terminated list of the policies built in (not test-only ones). */
const char *const *fpu_policy_names(void);

/** fpu_test_policy_names - NULL-terminated list of deliberately broken policies (FPU_TESTING). */
const char *const *fpu_test_policy_names(void);

/*
 * What a policy is, for the tools that compare policies (fpu_policy_flags):
 * FPU_POLICY_STATIC: it decides by fixed rules, not by the costs it is given
 *   (fpu_set_costs); every policy but adaptive.
 * FPU_POLICY_BASELINE: the one the others are measured against (eager: it
 *   never traps and never leaves state behind; "vs eager" in the tables).
 * FPU_POLICY_BREAK_EVEN: it takes #NM traps to save and restore less than
 *   the baseline, so a trap cost exists above which the baseline wins (its
 *   break-even, docs/model.md): lazy and lazy-counter.
 * FPU_POLICY_LINUX: what Linux does since 5.2 (deferred: eager save,
 *   restore on the way to ring 3 unless the registers hold the state), so
 *   the policy a recording's own counts are checked against
 *   (docs/linux-traces.md).
 * FPU_POLICY_TRAPS: it may set CR0.TS, so a task's FPU use may trap and its
 *   counts depend on where tasks use the FPU (fpu_policy_flags() derives it:
 *   the policy handles #NM).
 */
#define FPU_POLICY_STATIC (1u << 0)
#define FPU_POLICY_BASELINE (1u << 1)
#define FPU_POLICY_BREAK_EVEN (1u << 2)
#define FPU_POLICY_LINUX (1u << 3)
#define FPU_POLICY_TRAPS (1u << 4)

/**
 * fpu_policy_flags - the FPU_POLICY_* flags of the policy @name (the test
 * build's broken ones too). Valid before fpu_init(). Return: the flags (0
 * or more), or XSTATE_E_INVAL for an unknown name.
 */
int fpu_policy_flags(const char *name);

/** fpu_set_tunables - change the heuristics' knobs; at a quiescent point. */
void fpu_set_tunables(const struct fpu_tunables *t);

/**
 * fpu_set_fault - arm one injected fault (FPU_FAULT_NONE disarms).
 * Return: 0, or XSTATE_E_INVAL in a build without FPU_TESTING.
 */
int fpu_set_fault(enum fpu_fault fault);

/** fpu_fault_name / fpu_fault_by_name - "skip-save-on-migrate", ...; -1 if unknown. */
const char *fpu_fault_name(enum fpu_fault fault);
int fpu_fault_by_name(const char *name);

/**
 * fpu_cpu_quiesce - on the calling CPU: save the owner's live state (if any),
 * drop ownership and clear CR0.TS. Interrupts off. After it no task runs on
 * this CPU for libfpu: the one last switched in is taken as stopped (its
 * state is in its save area) until an fpu_switch() switches a task in, so it
 * must not use the FPU before then. A quiescent point is between runs (a
 * policy change, a measurement's start), not in the middle of a task's slice.
 */
void fpu_cpu_quiesce(void);

/**
 * fpu_task_init - give a new task the architectural init state.
 * @buf: xstate_cfg.kernel_size bytes, 64-byte aligned, owned by the task;
 * NULL or misaligned panics (ops->panic): XSAVE* would #GP on it.
 */
void fpu_task_init(struct fpu *fpu, struct xregs_state *buf, unsigned int id);

/**
 * fpu_task_exit - the task is gone: no CPU may keep or later save its state.
 * May wait (interrupts enabled, through ops->wait_relax) for another CPU to
 * give the state up.
 */
void fpu_task_exit(struct fpu *fpu);

/**
 * fpu_task_migrated - the task will next run on another CPU: the running
 * task, before its switch-out (it asked to move), or one switched out (a
 * load balancer moved it; called on any CPU, before its switch-in there).
 * Under adaptive the first is saved at its switch-out rather than held;
 * the second, if this CPU holds its state unsaved, is saved now (no flush
 * IPI later). Other policies only note it.
 */
void fpu_task_migrated(struct fpu *fpu);

/**
 * fpu_switch - the only FPU call in the context-switch path, interrupts off,
 * on the CPU that switches. @prev/@next: NULL for kernel threads and idle.
 */
void fpu_switch(struct fpu *prev, struct fpu *next);

/**
 * fpu_handle_nm - body of the #NM (vector 7) handler for a trap from ring 3
 * (SDM Vol. 3A §6.15: CR0.TS set and an x87/MMX/SSE/AVX instruction).
 * Under smp-lazy it may wait, interrupts enabled through ops->wait_relax,
 * for another CPU to flush the task's state. Panics (through ops->panic) on
 * an #NM the policy did not cause (TS not set by libfpu).
 */
void fpu_handle_nm(struct fpu *cur);

/* fpu_return_to_user()'s work when a flag is set, out of line. */
void fpu_return_to_user_load(struct fpu *cur);

/**
 * fpu_return_to_user - on every return to ring 3: what a policy deferred
 * to this point, because only ring 3 needs it: load the registers
 * (FPU_F_NEED_LOAD, Linux's TIF_NEED_FPU_LOAD; unless this CPU still holds
 * them), or set CR0.TS (FPU_F_NEED_TS); FPU_F_NOT_IN_USER is cleared here.
 * Registers an export saved while the task ran (FPU_F_EXPORTED) are live
 * again from here: ring 3 may change them, so its switch-out saves them.
 * Inline: otherwise one flag test of @cur, as Linux's exit to user mode
 * tests the TIF flag.
 */
static inline void fpu_return_to_user(struct fpu *cur)
{
	if (__builtin_expect(cur->flags & (FPU_F_NEED_LOAD | FPU_F_NEED_TS | FPU_F_NOT_IN_USER |
					   FPU_F_EXPORTED),
			     0))
		fpu_return_to_user_load(cur);
}

/** fpu_flush_ipi - body of the flush IPI handler: give up state held for another CPU. */
void fpu_flush_ipi(void);

/**
 * fpu_invalidate - the one invalidation, for every path that writes a save
 * area or clobbers registers (import, kernel-mode FPU, migration, idle).
 * @fpu != NULL: its save area was written; no CPU's registers may be trusted
 * to hold it any more (its last_cpu is forgotten; if this CPU held it live,
 * that copy is dropped). @fpu == NULL: this CPU's registers were clobbered;
 * they hold nobody's state. The caller saves live state first if it needs it.
 */
void fpu_invalidate(struct fpu *fpu);

/**
 * fpu_export_std - a task's latest state in the standard XSAVE format (signal
 * frame, ptrace, core dump), wherever it is: this CPU's registers are saved
 * first; under smp-lazy another CPU holding it is sent the flush IPI and
 * waited for (ops->wait_relax). Callers and context: "Export, import and
 * ownership" above. Ownership does not change; TS is kept as it was; the
 * running task's registers, saved here, are live again once it is back in
 * ring 3 (fpu_return_to_user), so what it writes then is saved in turn.
 * With PKRU enabled and in xcr0, the image carries the task's PKRU with
 * XSTATE_BV[9] set.
 * @dst: xstate_cfg.user_size bytes at least. Return: bytes written, or a
 * negative enum xstate_err (see xstate_export_std()).
 */
int fpu_export_std(struct fpu *fpu, void *dst, size_t dst_len);

/**
 * fpu_import_std - replace a task's state with an untrusted standard-format
 * image (sigreturn, ptrace), validated by xstate_import_std(). The state
 * another CPU holds is flushed first (smp-lazy; may wait), then the image
 * written, then fpu_invalidate(@fpu): no CPU trusts stale registers for it.
 * For the running task, the next return to ring 3 runs with the imported
 * state, whatever the policy. PKRU is taken from the image (0 if XSTATE_BV[9]
 * is clear) and written at once for the running task. Callers and context:
 * "Export, import and ownership" above. Nothing changes on error.
 * Return: XSTATE_OK or a negative enum xstate_err.
 */
int fpu_import_std(struct fpu *fpu, const void *src, size_t src_len);

/**
 * fpu_task_reset - the task's state becomes the architectural init state
 * (FCW 0x37F, MXCSR 0x1F80, every register zero, PKRU 0; a signal handler
 * starts with it), supervisor state kept. Same callers and the same guarantees as
 * fpu_import_std(): for the running task, the next return to ring 3 runs
 * with the init state.
 */
void fpu_task_reset(struct fpu *fpu);

/**
 * kernel_fpu_begin / kernel_fpu_end - a kernel-mode FPU section, from a
 * syscall or a kernel thread. Begin disables preemption, saves live task
 * state, invalidates this CPU's registers, clears CR0.TS and sets FCW and
 * MXCSR to their defaults. End lets the policy give the task its state back
 * (eager: now; deferred: on return to ring 3; TS-based: at the next #NM).
 * Nesting and interrupt context panic.
 */
void kernel_fpu_begin(void);
void kernel_fpu_end(void);

/**
 * fpu_set_pkru / fpu_get_pkru - a task's PKRU (SDM Vol. 3A §4.6.2): for the
 * task running here the register itself (WRPKRU/RDPKRU at once), otherwise
 * fpu->pkru, which fpu_switch() writes when the task next runs. Same callers
 * as fpu_import_std(). A new task and fpu_task_reset() give 0 (the
 * architectural init value; Linux gives its init_pkru_value, so a kernel
 * that wants "deny all keys but 0", 0x55555554, sets it after them).
 * Without xstate_cfg.pkru the value is only stored.
 */
void fpu_set_pkru(struct fpu *fpu, uint32_t pkru);
uint32_t fpu_get_pkru(struct fpu *fpu);

/**
 * fpu_set_tracing - tracing mode on or off (fpulab run --trace), at a
 * quiescent point. While it is on, every first FPU use of a task in a slice
 * (and after a kernel-mode FPU section, or an import or reset of the running
 * task's state) raises #NM whatever the policy:
 * when the policy leaves CR0.TS clear, libfpu sets it itself at switch-in,
 * after kernel_fpu_end() and after any hook that cleared it, and clears it
 * again at that #NM; ops->trace_use hears of every such first use. Those
 * CR0 writes and traps are libfpu's tracing, not the policy's: they are not
 * counted in nm_traps or ts_writes, so the counters stay the policy's own.
 * The policy's own decisions do not change. Off (the default): no effect.
 */
void fpu_set_tracing(bool on);

/**
 * fpu_set_insn_trace - call @fn before each save or restore instruction
 * that libfpu's hooks execute on a task's area (not the entry points of
 * xstate.h, which a caller times or logs itself), with the instruction
 * (xstate_cfg.save_insn; a restore is the XRSTOR* that reads its format),
 * the area and the requested-feature bitmap it runs under (for a compacted
 * save, the full kernel mask: SDM Vol. 1 §13.10). NULL (the default) stops
 * it. For a tool that logs the instructions to replay them bare (fpulab
 * replay's floor); the hook runs with the task's registers live, so it must
 * not touch the vector registers. At a quiescent point.
 */
typedef void (*fpu_insn_trace_fn)(bool restore, enum fpu_save_insn insn,
				  const struct xregs_state *area, uint64_t mask);
void fpu_set_insn_trace(fpu_insn_trace_fn fn);

/*
 * Costs the adaptive policy weighs, in ns per event: an #NM round trip, one
 * CR0 write (set or clear TS), an IPI round trip, one save and one restore
 * of a task's state. Defaults: FPU_DEFAULT_*_NS below (docs/model.md says
 * where they come from); a kernel measures its own and sets them.
 */
#define FPU_DEFAULT_TRAP_NS 150    /* #NM: exception entry, handler dispatch, IRET */
#define FPU_DEFAULT_CR0_NS 30      /* CLTS or MOV to CR0 (serializing) */
#define FPU_DEFAULT_IPI_NS 1000    /* an IPI's round trip to another CPU */
#define FPU_DEFAULT_SAVE_NS 50     /* one XSAVE* of a task's state */
#define FPU_DEFAULT_RESTORE_NS 100 /* one XRSTOR* of it */
struct fpu_costs {
	uint32_t trap_ns, cr0_ns, ipi_ns, save_ns, restore_ns;
};

/**
 * fpu_set_costs / fpu_get_costs - the costs the adaptive policy decides by
 * (ns, struct fpu_costs). Set at a quiescent point or any time: a decision
 * reads them once. Other policies ignore them.
 */
void fpu_set_costs(const struct fpu_costs *c);
void fpu_get_costs(struct fpu_costs *c);

/**
 * fpu_stats_cpu - the counters of @cpu (live; read them at a quiescent point);
 * NULL if @cpu is FPU_MAX_CPUS or more.
 */
struct fpu_stats *fpu_stats_cpu(unsigned int cpu);

/** fpu_stats_reset - zero the counters of every CPU. */
void fpu_stats_reset(void);

#endif
