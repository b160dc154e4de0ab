/* SPDX-License-Identifier: MIT */
/*
 * A sleeping lock: a mutex with a FIFO wait queue, the lab's stand-in for the
 * directory inode's lock that seed 001's unlink benchmark contends on. Its
 * slow path is Linux's classic wait loop (the 4.10 rwsem's down_write):
 *
 *     for (;;) {
 *             set_current_state(TASK_UNINTERRUPTIBLE);   (XCHG: full barrier)
 *             if (trylock) break;
 *             schedule();
 *     }
 *     __set_current_state(TASK_RUNNING);
 *
 * compiled four times, once per way of writing the state (enum state_api,
 * current.h). Unlock wakes the first waiter; a task that is running may take
 * the lock before the woken one gets there (no hand-off), so a woken waiter
 * can find it taken again and go back to sleep.
 *
 * Kernel context only (interrupts off, not preemptible).
 */
#ifndef LAB_SLEEPLOCK_H
#define LAB_SLEEPLOCK_H

#include "kernel.h"
#include "sched.h"
#include <fpulab/abi.h>

/* How the wait loop writes the task state: abi.h's FPULAB_STATE_APIS, in order. */
enum state_api {
	STATE_API_TASK,             /* set_task_state(tsk): the pointer read once */
	STATE_API_CURRENT,          /* set_current_state(): a GS read the compiler may reuse */
	STATE_API_CURRENT_VOLATILE, /* a GS read the compiler must repeat */
	STATE_API_CURRENT_STACK,    /* RSP masked, the task loaded from the stack */
	STATE_API_NR
};

extern const char *const state_api_names[STATE_API_NR];

/* Counts since sleeplock_init(); exact. */
struct sleeplock_stats {
	uint64_t acquisitions;     /* sleeplock_lock() calls */
	uint64_t contended;        /* ... that found the lock taken and entered the wait loop */
	uint64_t passes;           /* wait-loop passes: state written, lock tested */
	uint64_t sleeps;           /* passes that found the lock taken and called schedule() */
	uint64_t wakeups;          /* unlocks that woke a waiter (blocked or about to block) */
	uint64_t wake_retaken;     /* passes after a return from schedule() that found it taken */
	uint64_t exclusion_errors; /* a second task inside: must stay 0 */
};

struct sl_waiter {
	struct task *task;
	struct sl_waiter *next;
	uint64_t sleeps; /* schedule() calls in this wait */
};

struct sleeplock {
	volatile int locked;       /* 0 free, 1 taken */
	volatile int holders;      /* tasks between lock and unlock: at most 1 */
	struct spinlock wait_lock; /* the wait queue */
	struct sl_waiter *volatile head;
	struct sl_waiter *tail;
	volatile unsigned int nr_waiters;
	enum state_api api; /* the wait loop sleeplock_lock() runs */
	struct sleeplock_stats stats;
};

void sleeplock_init(struct sleeplock *l, enum state_api api);

/* Take @l, sleeping in @l->api's wait loop while it is taken. */
void sleeplock_lock(struct sleeplock *l);
/* Release @l and wake its first waiter, if any. */
void sleeplock_unlock(struct sleeplock *l);

/* Print the waiters of @l (id, name, state, CPU): a lost wake-up report. */
void sleeplock_print_waiters(struct sleeplock *l);

/*
 * Size in bytes of each variant's wait function (queueing, the loop, leaving
 * the queue), from symbols the linker resolves: the function and an end
 * label placed right after it (tests compare with `nm -S`).
 */
uint64_t sleeplock_wait_bytes(enum state_api api);

/* The slow path of each variant, for sleeplock_lock() and the calibration. */
void sl_wait_task(struct sleeplock *l);
void sl_wait_current(struct sleeplock *l);
void sl_wait_current_volatile(struct sleeplock *l);
void sl_wait_current_stack(struct sleeplock *l);

#ifdef FPU_TESTING
/* Test kernels: from the Nth (1-based) wake-up of a waiter on, every one is dropped; 0 never. */
extern uint64_t sleeplock_drop_wakeup;
#endif

#endif
