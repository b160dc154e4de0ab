/* SPDX-License-Identifier: MIT */
/* Per-CPU data, reached through the GS base. */
#ifndef LAB_CPU_H
#define LAB_CPU_H

#include "kernel.h"
#include "layout.h"
#include "sched.h"
#include <fpulab/abi.h>

/* The lab's CPUs: FPULAB_MAX_CPUS (abi.h), within libfpu's per-CPU table. */
_Static_assert(FPULAB_MAX_CPUS <= FPU_MAX_CPUS, "fpu.h's FPU_MAX_CPUS");

struct tss {
	uint32_t reserved0;
	uint64_t rsp0, rsp1, rsp2;
	uint64_t reserved1;
	uint64_t ist[7];
	uint64_t reserved2;
	uint16_t reserved3;
	uint16_t iopb;
} __attribute__((packed));

struct cpu {
	struct cpu *self;    /* CPU_OFF_SELF */
	uint64_t kstack_top; /* CPU_OFF_KSTACK: the running task's kernel stack, for SYSCALL */
	uint64_t user_rsp;   /* CPU_OFF_USER_RSP: scratch for SYSCALL */
	struct task *current;
	unsigned int id;
	unsigned int apic_id;
	int preempt_count;
	bool need_resched;
	bool in_irq;
	struct runqueue rq;
	struct task *idle;
	/* smp_call_all(): a function to run from the VEC_CALL IPI. */
	void (*volatile call_fn)(void);
	/* counters */
	uint64_t ipis_sent;
	uint64_t timer_ticks;
	uint64_t migrations;
	uint64_t slices, fp_slices; /* switch-ins of user tasks; of those, into FP slices */
	uint64_t prefetches_useful, prefetches_wasted; /* by the incoming task's fp_slices */
	uint64_t gdt[GDT_ENTRIES] __attribute__((aligned(16)));
	struct tss tss __attribute__((aligned(16)));
};

_Static_assert(__builtin_offsetof(struct cpu, self) == CPU_OFF_SELF, "entry.S");
_Static_assert(__builtin_offsetof(struct cpu, kstack_top) == CPU_OFF_KSTACK, "entry.S");
_Static_assert(__builtin_offsetof(struct cpu, user_rsp) == CPU_OFF_USER_RSP, "entry.S");

extern struct cpu *cpus[FPULAB_MAX_CPUS];
extern unsigned int ncpus;

static inline struct cpu *this_cpu(void)
{
	struct cpu *c;
	__asm__ volatile("movq %%gs:0, %0" : "=r"(c));
	return c;
}

static inline struct task *current_task(void)
{
	return this_cpu()->current;
}

/* NULL before this CPU's GS base is set (panic uses it). */
struct cpu *cpu_maybe(void);

/* Set up GDT, TSS, IDT, GS base and SYSCALL MSRs of the calling CPU. */
void cpu_setup(struct cpu *c);
struct cpu *cpu_alloc(unsigned int id, unsigned int apic_id);

#endif
