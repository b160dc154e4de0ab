/* SPDX-License-Identifier: MIT */
/*
 * Four ways to find the running task, and the task-state writes of a wait
 * loop, as seed 001 compares them (Linux's set_task_state() against
 * set_current_state(), 2016). cpu.h's current_task() is what the rest of the
 * lab uses; these are the experiment's (sleeplock.c).
 *
 * - get_current(): x86's this_cpu_read_stable(). One MOV from the per-CPU
 *   area through GS, in an asm that is not volatile and reads no memory
 *   operand, so the compiler may reuse one read for the whole function, even
 *   across schedule(): a task's `current` never changes under it.
 * - get_current_volatile(): the same MOV as a volatile asm, which the
 *   compiler must repeat at every use: the over-pessimistic constraint of
 *   arm64's read_sysreg() in v4.10-rc1 (an `mrs x0, sp_el0` per use).
 * - get_current_stack(): old Linux's current_thread_info(): mask RSP with
 *   the kernel stack size and load the task from the stack's lowest word.
 *   The load reads memory, so it is repeated after every call.
 * - a task pointer kept in a local (set_task_state(tsk, ...)).
 *
 * Every state write is Linux's smp_store_mb(): a full barrier (XCHG), so the
 * wait condition is read after the state is visible to a waker.
 */
#ifndef LAB_CURRENT_H
#define LAB_CURRENT_H

#include "cpu.h"
#include "sched.h"

static inline struct task *get_current(void)
{
	struct task *t;
	__asm__("movq %%gs:%c1, %0" : "=r"(t) : "i"(__builtin_offsetof(struct cpu, current)));
	return t;
}

static inline struct task *get_current_volatile(void)
{
	struct task *t;
	__asm__ volatile("movq %%gs:%c1, %0"
			 : "=r"(t)
			 : "i"(__builtin_offsetof(struct cpu, current)));
	return t;
}

static inline struct task *get_current_stack(void)
{
	uint64_t sp;
	__asm__("movq %%rsp, %0" : "=r"(sp));
	return *(struct task *const *)(sp & ~(uint64_t)(KSTACK_SIZE - 1));
}

/* smp_store_mb(t->state, state): XCHG, a full barrier on x86. */
static inline void set_task_state(struct task *t, int state)
{
	__atomic_exchange_n(&t->state, state, __ATOMIC_SEQ_CST);
}

/* __set_task_state(): a plain store, no barrier (leaving a wait loop). */
static inline void __set_task_state(struct task *t, int state)
{
	WRITE_ONCE(t->state, state);
}

#define set_current_state(s) set_task_state(get_current(), (s))
#define set_current_state_volatile(s) set_task_state(get_current_volatile(), (s))
#define set_current_state_stack(s) set_task_state(get_current_stack(), (s))

#endif
