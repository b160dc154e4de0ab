/* SPDX-License-Identifier: MIT */
/* Tasks, per-CPU run queues, wait queues and counting semaphores. */
#ifndef LAB_SCHED_H
#define LAB_SCHED_H

#include "kernel.h"
#include <fpu/fpu.h>

enum task_state {
	TASK_RUNNING,   /* on a CPU */
	TASK_RUNNABLE,  /* on a run queue */
	TASK_BLOCKED,   /* on a wait queue */
	TASK_MIGRATING, /* switched out for another CPU's queue, joins it in finish_switch() */
	TASK_DEAD,      /* exited; its slot is freed once it is switched out */
	TASK_STOPPED,   /* stopped for a tracer (signal.c); only task_resume() runs it again */
	/*
	 * Set by the task itself (set_current_state) before it tests a wait
	 * condition, as Linux's TASK_UNINTERRUPTIBLE: schedule() then blocks it
	 * (TASK_BLOCKED) unless a wake_up() came first and set it running again.
	 */
	TASK_UNINTERRUPTIBLE,
};

/* Kernel stacks are aligned to their size; the lowest word holds the task
 * (old Linux's thread_info), so masking RSP finds it (current.h). */
#define KSTACK_SIZE 16384
#define USTACK_SIZE 16384

struct task {
	uint64_t ksp; /* saved kernel RSP: switch_stacks() expects it first */
	struct fpu fpu;
	bool user;           /* runs in ring 3 and has FPU state */
	volatile int state;  /* enum task_state */
	volatile int on_cpu; /* its kernel stack is still in use by a CPU */
	volatile int cpu;    /* CPU whose run queue it belongs to */
	struct task *next;   /* run queue or wait queue link */
	unsigned int id;
	char name[16];
	uint64_t kstack_top;
	uint64_t ustack_top;
	void (*kfn)(void *); /* kernel threads */
	void *arg;
	struct semaphore *exit_sem; /* upped when the task exits */
	/* The workload's own knowledge: its first fp_slices slices (switch-ins)
	 * use the FPU, the others do not; FP_SLICES_UNKNOWN: not said. */
	uint64_t fp_slices;
	uint64_t switch_ins; /* times switched in */
	uint64_t prefetches; /* switch-ins at which its save area was prefetched */
	unsigned int slot;
	/* signal.c */
	uint64_t sig_handler, sig_arg;     /* ring-3 handler and its first argument; 0: none */
	volatile unsigned int sig_pending; /* SIG_* bits raised and not yet delivered */
	bool in_handler;    /* between delivery and sigreturn: one signal at a time */
	int sig_slot;       /* its slot for SYS_KILL and ptrace; -1: none */
	volatile int trace; /* enum trace_state */
	struct task *tracer, *tracee;
	uint8_t *sigbuf; /* fpu_sigframe_size() bytes, 64-aligned: the frame in kernel memory */
};

struct runqueue {
	struct spinlock lock;
	struct task *head, *tail;
	unsigned int nr;
};

struct waitqueue {
	struct spinlock lock;
	struct task *head, *tail;
};

struct semaphore {
	struct waitqueue wq; /* wq.lock also protects count */
	long count;
};

void sched_init_cpu(void);
noreturn void idle_loop(void);

/*
 * Create a task, runnable on @cpu. A user task starts at @entry(@arg) in
 * ring 3. @exit_sem (may be NULL) is upped when the task exits.
 */
struct task *task_create_user(const char *name, void (*entry)(void *), void *arg, unsigned int cpu,
			      struct semaphore *exit_sem);
/* The same, for a task whose first @fp_slices slices use the FPU and no others
 * (FP_SLICES_ALL: every slice): the lab then sorts its prefetches into useful
 * and wasted. */
#define FP_SLICES_UNKNOWN (~0ull)
#define FP_SLICES_ALL (~0ull - 1)
struct task *task_create_user_fp(const char *name, void (*entry)(void *), void *arg,
				 unsigned int cpu, struct semaphore *exit_sem, uint64_t fp_slices);
struct task *task_create_kthread(const char *name, void (*fn)(void *), void *arg, unsigned int cpu);
noreturn void task_exit(void);

void schedule(void);
void yield(void);
/*
 * Make @t runnable: a TASK_BLOCKED task is queued on its CPU; a
 * TASK_UNINTERRUPTIBLE one (still on its CPU, before or inside schedule())
 * is set TASK_RUNNING, so its schedule() does not block it. Returns true if
 * it did either (a wake-up), false if @t was already running or runnable.
 */
bool wake_up(struct task *t);
void migrate_to(unsigned int cpu);
void exit_to_user(void);
void task_resume(struct task *t); /* a TASK_STOPPED task becomes runnable on its CPU */
unsigned int tasks_live(void);

void sem_init(struct semaphore *s, long count);
void sem_down(struct semaphore *s);
void sem_up(struct semaphore *s);

#endif
