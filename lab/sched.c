/* SPDX-License-Identifier: MIT */
/*
 * The scheduler: per-CPU FIFO run queues, round-robin time slices, wait
 * queues, counting semaphores, migration on request.
 *
 * Invariants:
 * - Kernel code runs with interrupts off; only the idle loop (sti; hlt),
 *   explicit wait loops and kfpu.c's worker waits enable them, and an
 *   interrupt taken there only sets need_resched. A task is preempted only on
 *   its way back to ring 3 (exit_to_user): the kernel is not preemptible.
 * - A task is on at most one run queue, that of t->cpu, and only while
 *   TASK_RUNNABLE. Only the task itself changes t->cpu (migrate_to).
 * - A CPU never switches to a task whose on_cpu is still set: its kernel
 *   stack is in use until the CPU that ran it finishes switching away.
 *   So a task is never put on another CPU's run queue while it still runs:
 *   a migrating task is handed over in finish_switch(), after on_cpu is
 *   clear (two tasks swapping CPUs would otherwise wait for each other).
 * - A waker enqueues, then checks whether the target idles; the idle loop
 *   says it idles, then checks its queue. A full fence sits between the
 *   store and the load on both sides, or each could miss the other.
 * - libfpu is called at four points only: context_switch() (fpu_switch),
 *   exit_to_user() (fpu_return_to_user), task creation and exit, and
 *   migration (fpu_task_migrated).
 */
#include "sched.h"
#include "apic.h"
#include "cpu.h"
#include "io.h"
#include "lab.h"
#include "fputrace.h"
#include "signal.h"
#include "trap.h"

#define SCHED_MAX_TASKS 256 /* tasks that exist at once (a dead task's slot is reused) */

extern struct task *switch_stacks(struct task *prev, struct task *next);
extern char user_task_start[], kthread_start[];
void task_first_run(struct task *prev);
noreturn void kthread_body(void);
void user_task_entry(void (*entry)(void *), void *arg); /* user/ulib.c, ring 3 */

static struct task *slots[SCHED_MAX_TASKS];
static struct task *free_list;
static unsigned int slots_used, live;
static struct spinlock slot_lock;
static unsigned int next_task_id = 1;

static struct task *slot_alloc(void)
{
	spin_lock(&slot_lock);
	struct task *t = free_list;
	if (t) {
		free_list = t->next;
	} else {
		if (slots_used == SCHED_MAX_TASKS)
			panic("out of task slots (%d)", SCHED_MAX_TASKS);
		t = kalloc(sizeof(*t), 64);
		t->slot = slots_used;
		void *kstack = kalloc(KSTACK_SIZE, KSTACK_SIZE);
		*(struct task **)kstack = t; /* current.h: current from RSP */
		t->kstack_top = (uint64_t)kstack + KSTACK_SIZE;
		t->ustack_top = (uint64_t)kalloc(USTACK_SIZE, 4096) + USTACK_SIZE;
		t->fpu.state = kalloc(xstate_cfg.kernel_size, XSTATE_ALIGN);
		slots[slots_used++] = t;
	}
	live++;
	t->id = next_task_id++;
	spin_unlock(&slot_lock);

	t->next = NULL;
	t->on_cpu = 0;
	t->exit_sem = NULL;
	t->user = false;
	t->fp_slices = FP_SLICES_UNKNOWN;
	t->switch_ins = 0;
	t->prefetches = 0;
	signal_task_init(t);
	return t;
}

static void slot_free(struct task *t)
{
	spin_lock(&slot_lock);
	t->next = free_list;
	free_list = t;
	live--;
	spin_unlock(&slot_lock);
}

unsigned int tasks_live(void)
{
	return READ_ONCE(live);
}

/* ---- run queues ---- */

static void rq_append_locked(struct runqueue *rq, struct task *t)
{
	t->next = NULL;
	if (rq->tail)
		rq->tail->next = t;
	else
		rq->head = t;
	rq->tail = t;
	rq->nr++;
}

static struct task *rq_pop(struct runqueue *rq)
{
	spin_lock(&rq->lock);
	struct task *t = rq->head;
	if (t) {
		rq->head = t->next;
		if (!rq->head)
			rq->tail = NULL;
		rq->nr--;
	}
	spin_unlock(&rq->lock);
	return t;
}

/* After putting a task on @tc's queue: wake @tc if it idles. */
static void kick_if_idle(struct cpu *tc)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the enqueue before the idle check */
	if (tc != this_cpu() && READ_ONCE(tc->current) == tc->idle)
		apic_send_ipi(tc->apic_id, VEC_RESCHED);
}

static void enqueue(struct task *t)
{
	struct cpu *tc = cpus[t->cpu];
	spin_lock(&tc->rq.lock);
	t->state = TASK_RUNNABLE;
	rq_append_locked(&tc->rq, t);
	spin_unlock(&tc->rq.lock);
	kick_if_idle(tc);
}

/*
 * A TASK_UNINTERRUPTIBLE task is still on its CPU, t->cpu (only the task
 * itself migrates), and its schedule() turns it TASK_BLOCKED under that
 * CPU's queue lock: so under the lock it is one or the other.
 */
bool wake_up(struct task *t)
{
	struct cpu *tc = cpus[t->cpu];
	spin_lock(&tc->rq.lock);
	int state = t->state;
	if (state == TASK_UNINTERRUPTIBLE) {
		t->state = TASK_RUNNING;
	} else if (state == TASK_BLOCKED) {
		t->state = TASK_RUNNABLE;
		rq_append_locked(&tc->rq, t);
	}
	spin_unlock(&tc->rq.lock);
	if (state == TASK_BLOCKED)
		kick_if_idle(tc);
	return state == TASK_UNINTERRUPTIBLE || state == TASK_BLOCKED;
}

/* ---- switching ---- */

static struct fpu *user_fpu(struct task *t)
{
	return t->user && t->state != TASK_DEAD ? &t->fpu : NULL;
}

static void finish_switch(struct task *prev)
{
	int state = prev->state;
	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
	if (state == TASK_STOPPED)
		__atomic_store_n(&prev->trace, TRACE_STOPPED, __ATOMIC_RELEASE);
	else if (state == TASK_DEAD)
		slot_free(prev);
	else if (state == TASK_MIGRATING)
		enqueue(prev);
}

/* A switch-in of @t, which the policy may have prefetched (@prefetched). */
static void count_switch_in(struct cpu *c, struct task *t, bool prefetched)
{
	bool known = t->fp_slices != FP_SLICES_UNKNOWN, fp = ++t->switch_ins <= t->fp_slices;

	c->slices++;
	c->fp_slices += known && fp;
	if (!prefetched)
		return;
	t->prefetches++;
	if (known && fp)
		c->prefetches_useful++;
	else if (known)
		c->prefetches_wasted++;
}

static void context_switch(struct cpu *c, struct task *prev, struct task *next)
{
	const struct fpu_stats *fs = fpu_stats_cpu(c->id);
	uint64_t prefetches = fs->prefetches;

	while (__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE))
		cpu_relax();
	next->on_cpu = 1;
	next->state = TASK_RUNNING;

	bool step = fputrace_step_begin();
	fputrace_switch(prev, next);
	fpu_switch(user_fpu(prev), user_fpu(next));
	fputrace_step_end(step);
	if (next->user)
		count_switch_in(c, next, fs->prefetches != prefetches);
	if (READ_ONCE(timer_whole_slices))
		apic_timer_arm(tick_ns); /* every slice a full tick (Linux's hrtick) */

	c->current = next;
	c->kstack_top = next->kstack_top;
	c->tss.rsp0 = next->kstack_top;
	prev = switch_stacks(prev, next);
	finish_switch(prev);
}

void schedule(void)
{
	struct cpu *c = this_cpu();
	struct task *prev = c->current;

	c->need_resched = false;
	if (prev->state == TASK_UNINTERRUPTIBLE) { /* no wake-up came: block (see wake_up) */
		spin_lock(&c->rq.lock);
		if (prev->state == TASK_UNINTERRUPTIBLE)
			prev->state = TASK_BLOCKED;
		spin_unlock(&c->rq.lock);
	}
	if (prev->state == TASK_RUNNING && prev != c->idle) {
		if (prev->cpu == (int)c->id)
			enqueue(prev); /* yield or preemption */
		else
			prev->state = TASK_MIGRATING; /* enqueued by finish_switch() */
	}
	struct task *next = rq_pop(&c->rq);
	if (!next)
		next = c->idle;
	if (next == prev) {
		prev->state = TASK_RUNNING;
		return;
	}
	context_switch(c, prev, next);
}

void yield(void)
{
	schedule();
}

void migrate_to(unsigned int cpu)
{
	struct task *t = current_task();
	if (cpu >= ncpus || (unsigned int)t->cpu == cpu)
		return;
	t->cpu = (int)cpu;
	this_cpu()->migrations++;
	if (t->user) {
		bool step = fputrace_step_begin();
		fputrace_migrate(t, cpu);
		fpu_task_migrated(&t->fpu);
		fputrace_step_end(step);
	}
	schedule();
}

void task_resume(struct task *t)
{
	enqueue(t);
}

/* The way back to ring 3: reschedule if asked, stop for a tracer, deliver a
 * signal, then let the FPU policy act. */
void exit_to_user(void)
{
	struct task *t = current_task();

	do {
		while (this_cpu()->need_resched)
			schedule();
	} while (signal_work(t));
	bool step = fputrace_step_begin();
	fputrace_return_to_user();
	fpu_return_to_user(&t->fpu);
	fputrace_step_end(step);
}

void task_first_run(struct task *prev)
{
	finish_switch(prev);
	if (current_task()->user)
		exit_to_user();
}

noreturn void kthread_body(void)
{
	struct task *t = current_task();
	t->kfn(t->arg);
	task_exit();
}

noreturn void task_exit(void)
{
	struct task *t = current_task();
	if (t->user) {
		signal_task_exit(t);
		bool step = fputrace_step_begin();
		fputrace_exit(t);
		fpu_task_exit(&t->fpu);
		fputrace_step_end(step);
	}
	if (t->exit_sem)
		sem_up(t->exit_sem);
	t->state = TASK_DEAD;
	schedule();
	panic("dead task %s scheduled", t->name);
}

/* ---- creation ---- */

static void task_name(struct task *t, const char *name)
{
	size_t n = strlen(name);
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, name, n);
	t->name[n] = 0;
}

/* Lay out a switch_stacks() frame that "returns" to @ret. */
static void push_switch_frame(struct task *t, uint64_t top, void *ret)
{
	uint64_t *sp = (uint64_t *)top;
	*--sp = (uint64_t)ret;
	for (int i = 0; i < 6; i++) /* rbp rbx r12 r13 r14 r15 */
		*--sp = 0;
	t->ksp = (uint64_t)sp;
}

struct task *task_create_user(const char *name, void (*entry)(void *), void *arg, unsigned int cpu,
			      struct semaphore *exit_sem)
{
	return task_create_user_fp(name, entry, arg, cpu, exit_sem, FP_SLICES_UNKNOWN);
}

struct task *task_create_user_fp(const char *name, void (*entry)(void *), void *arg,
				 unsigned int cpu, struct semaphore *exit_sem, uint64_t fp_slices)
{
	struct task *t = slot_alloc();
	t->exit_sem = exit_sem;
	t->fp_slices = fp_slices;
	task_name(t, name);
	t->user = true;
	t->cpu = (int)cpu;
	fpu_task_init(&t->fpu, t->fpu.state, t->id);

	struct trap_frame *f = (struct trap_frame *)(t->kstack_top - sizeof(*f));
	memset(f, 0, sizeof(*f));
	f->rip = (uint64_t)user_task_entry;
	f->rdi = (uint64_t)entry;
	f->rsi = (uint64_t)arg;
	f->cs = USER_CS;
	f->ss = USER_DS;
	f->rflags = 0x202;
	f->rsp = t->ustack_top - 8; /* as after a call: RSP+8 is 16-byte aligned */
	push_switch_frame(t, (uint64_t)f, user_task_start);
	enqueue(t);
	return t;
}

struct task *task_create_kthread(const char *name, void (*fn)(void *), void *arg, unsigned int cpu)
{
	struct task *t = slot_alloc();
	task_name(t, name);
	t->cpu = (int)cpu;
	t->kfn = fn;
	t->arg = arg;
	push_switch_frame(t, t->kstack_top, kthread_start);
	enqueue(t);
	return t;
}

/* ---- idle ---- */

void sched_init_cpu(void)
{
	struct cpu *c = this_cpu();
	struct task *idle = kalloc(sizeof(*idle), 64);
	ksnprintf(idle->name, sizeof(idle->name), "idle%u", c->id);
	idle->state = TASK_RUNNING;
	idle->on_cpu = 1;
	idle->cpu = (int)c->id;
	c->idle = idle;
	c->current = idle;
}

noreturn void idle_loop(void)
{
	for (;;) {
		cli();
		__atomic_thread_fence(
			__ATOMIC_SEQ_CST); /* current == idle before the queue check */
		if (READ_ONCE(this_cpu()->rq.nr)) {
			schedule();
			continue;
		}
		__asm__ volatile("sti; hlt" ::: "memory");
	}
}

/* ---- wait queues and semaphores ---- */

void sem_init(struct semaphore *s, long count)
{
	memset(s, 0, sizeof(*s));
	s->count = count;
}

void sem_down(struct semaphore *s)
{
	struct task *t = current_task();
	spin_lock(&s->wq.lock);
	if (s->count > 0) {
		s->count--;
		spin_unlock(&s->wq.lock);
		return;
	}
	t->state = TASK_BLOCKED;
	t->next = NULL;
	if (s->wq.tail)
		s->wq.tail->next = t;
	else
		s->wq.head = t;
	s->wq.tail = t;
	spin_unlock(&s->wq.lock);
	schedule(); /* sem_up hands the count straight to us */
}

void sem_up(struct semaphore *s)
{
	spin_lock(&s->wq.lock);
	struct task *t = s->wq.head;
	if (t) {
		s->wq.head = t->next;
		if (!s->wq.head)
			s->wq.tail = NULL;
	} else {
		s->count++;
	}
	spin_unlock(&s->wq.lock);
	if (t)
		wake_up(t);
}
