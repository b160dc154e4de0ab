/* SPDX-License-Identifier: MIT */
/*
 * The sleeping lock (sleeplock.h). Each wait function is followed directly
 * by its end label (SL_WAIT_FN, sleeplock_wait_bytes()).
 *
 * No lost wake-up: a waiter queues itself before its first test, and writes
 * its state with a full barrier before every test; unlock clears the lock,
 * then (full barrier) looks at the queue. So either the waiter sees the lock
 * free, or unlock sees the waiter and wakes it (wake_up() of a task that is
 * TASK_UNINTERRUPTIBLE but not yet switched out makes its schedule() return).
 * Unlock wakes only the first waiter: it is awake until it either takes the
 * lock (and its unlock wakes the next) or sees it taken (and that holder's
 * unlock wakes it).
 */
#include "sleeplock.h"
#include "cpu.h"
#include "current.h"

#define X(id, name) +1
_Static_assert(STATE_API_NR == 0 FPULAB_STATE_APIS(X), "abi.h's FPULAB_STATE_APIS");
#undef X
const char *const state_api_names[STATE_API_NR] = {
#define X(id, name) name,
	FPULAB_STATE_APIS(X)
#undef X
};

#ifdef FPU_TESTING
uint64_t sleeplock_drop_wakeup;
static uint64_t wakeups_seen;
#endif

void sleeplock_init(struct sleeplock *l, enum state_api api)
{
	memset(l, 0, sizeof(*l));
	l->api = api;
}

static inline bool sl_trylock(struct sleeplock *l)
{
	return !READ_ONCE(l->locked) && !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

static void sl_enqueue(struct sleeplock *l, struct sl_waiter *w)
{
	w->next = NULL;
	w->sleeps = 0;
	spin_lock(&l->wait_lock);
	if (l->tail)
		l->tail->next = w;
	else
		l->head = w;
	l->tail = w;
	l->nr_waiters++;
	spin_unlock(&l->wait_lock);
}

static void sl_dequeue(struct sleeplock *l, struct sl_waiter *w)
{
	spin_lock(&l->wait_lock);
	struct sl_waiter **pp = (struct sl_waiter **)&l->head, *prev = NULL;
	while (*pp != w) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	*pp = w->next;
	if (l->tail == w)
		l->tail = prev;
	l->nr_waiters--;
	spin_unlock(&l->wait_lock);

	/* n calls of schedule() in the loop: n + 1 passes, n sleeps, and every
	 * return from schedule() but the last found the lock taken again. */
	uint64_t n = w->sleeps;
	__atomic_add_fetch(&l->stats.contended, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->stats.passes, n + 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->stats.sleeps, n, __ATOMIC_RELAXED);
	if (n > 1)
		__atomic_add_fetch(&l->stats.wake_retaken, n - 1, __ATOMIC_RELAXED);
}

/*
 * The wait loop, one copy per variant: @api is a constant in each caller
 * below, so only that variant's state writes are left.
 */
static __attribute__((always_inline)) inline void sl_wait(struct sleeplock *l, enum state_api api)
{
	struct sl_waiter w;
	struct task *tsk = NULL;

	switch (api) {
	case STATE_API_TASK:
		tsk = get_current();
		w.task = tsk;
		break;
	case STATE_API_CURRENT:
		w.task = get_current();
		break;
	case STATE_API_CURRENT_VOLATILE:
		w.task = get_current_volatile();
		break;
	default:
		w.task = get_current_stack();
		break;
	}
	sl_enqueue(l, &w);
	for (;;) {
		switch (api) {
		case STATE_API_TASK:
			set_task_state(tsk, TASK_UNINTERRUPTIBLE);
			break;
		case STATE_API_CURRENT:
			set_current_state(TASK_UNINTERRUPTIBLE);
			break;
		case STATE_API_CURRENT_VOLATILE:
			set_current_state_volatile(TASK_UNINTERRUPTIBLE);
			break;
		default:
			set_current_state_stack(TASK_UNINTERRUPTIBLE);
			break;
		}
		if (__builtin_expect(sl_trylock(l), 0))
			break;
		w.sleeps++; /* the waiter is in memory (queued): one ADD, in every variant */
		schedule();
	}
	switch (api) {
	case STATE_API_TASK:
		__set_task_state(tsk, TASK_RUNNING);
		break;
	case STATE_API_CURRENT:
		__set_task_state(get_current(), TASK_RUNNING);
		break;
	case STATE_API_CURRENT_VOLATILE:
		__set_task_state(get_current_volatile(), TASK_RUNNING);
		break;
	default:
		__set_task_state(get_current_stack(), TASK_RUNNING);
		break;
	}
	sl_dequeue(l, &w);
}

/*
 * Each wait function has a text section of its own, and its end label is in
 * that section's subsection 1, which the assembler places after the whole of
 * subsection 0, where the compiler puts the function. So the label follows
 * the function's last byte whatever order the compiler emits top-level asm
 * and functions in (gcc keeps source order only with -fno-toplevel-reorder;
 * clang emits top-level asm first), and whatever order the linker gives the
 * sections.
 */
#define SL_WAIT_FN(fn) __attribute__((noinline, section(".text." #fn)))
#define SL_END_LABEL(fn)                                                                      \
	__asm__(".pushsection .text." #fn ",\"ax\",@progbits\n\t.subsection 1\n\t.globl " #fn \
		"_end\n" #fn "_end:\n\t.popsection")

SL_WAIT_FN(sl_wait_task) void sl_wait_task(struct sleeplock *l)
{
	sl_wait(l, STATE_API_TASK);
}
SL_END_LABEL(sl_wait_task);

SL_WAIT_FN(sl_wait_current) void sl_wait_current(struct sleeplock *l)
{
	sl_wait(l, STATE_API_CURRENT);
}
SL_END_LABEL(sl_wait_current);

SL_WAIT_FN(sl_wait_current_volatile) void sl_wait_current_volatile(struct sleeplock *l)
{
	sl_wait(l, STATE_API_CURRENT_VOLATILE);
}
SL_END_LABEL(sl_wait_current_volatile);

SL_WAIT_FN(sl_wait_current_stack) void sl_wait_current_stack(struct sleeplock *l)
{
	sl_wait(l, STATE_API_CURRENT_STACK);
}
SL_END_LABEL(sl_wait_current_stack);

extern const char sl_wait_task_end[], sl_wait_current_end[], sl_wait_current_volatile_end[],
	sl_wait_current_stack_end[];

static void (*const sl_wait_fns[STATE_API_NR])(struct sleeplock *) = {
	sl_wait_task,
	sl_wait_current,
	sl_wait_current_volatile,
	sl_wait_current_stack,
};

uint64_t sleeplock_wait_bytes(enum state_api api)
{
	static const char *const ends[STATE_API_NR] = {
		sl_wait_task_end,
		sl_wait_current_end,
		sl_wait_current_volatile_end,
		sl_wait_current_stack_end,
	};
	return (uint64_t)(uintptr_t)ends[api] - (uint64_t)(uintptr_t)sl_wait_fns[api];
}

void sleeplock_lock(struct sleeplock *l)
{
	if (!__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE))
		goto taken;
	switch (l->api) {
	case STATE_API_TASK:
		sl_wait_task(l);
		break;
	case STATE_API_CURRENT:
		sl_wait_current(l);
		break;
	case STATE_API_CURRENT_VOLATILE:
		sl_wait_current_volatile(l);
		break;
	default:
		sl_wait_current_stack(l);
		break;
	}
taken:
	if (__atomic_fetch_add(&l->holders, 1, __ATOMIC_RELAXED))
		__atomic_add_fetch(&l->stats.exclusion_errors, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&l->stats.acquisitions, 1, __ATOMIC_RELAXED);
}

void sleeplock_unlock(struct sleeplock *l)
{
	__atomic_sub_fetch(&l->holders, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* the release before the queue check */
	if (!READ_ONCE(l->head))
		return;
	spin_lock(&l->wait_lock);
	struct task *t = l->head ? l->head->task : NULL;
	spin_unlock(&l->wait_lock);
	if (!t)
		return;
#ifdef FPU_TESTING
	if (sleeplock_drop_wakeup &&
	    __atomic_add_fetch(&wakeups_seen, 1, __ATOMIC_RELAXED) >= sleeplock_drop_wakeup) {
		if (wakeups_seen == sleeplock_drop_wakeup)
			kprintf("sleeping-lock: wake-ups dropped from now on (injected), first: task %u\n",
				t->id);
		return;
	}
#endif
	if (wake_up(t))
		__atomic_add_fetch(&l->stats.wakeups, 1, __ATOMIC_RELAXED);
}

static const char *const task_state_names[] = {
	[TASK_RUNNING] = "running",
	[TASK_RUNNABLE] = "runnable",
	[TASK_BLOCKED] = "blocked",
	[TASK_MIGRATING] = "migrating",
	[TASK_DEAD] = "dead",
	[TASK_STOPPED] = "stopped",
	[TASK_UNINTERRUPTIBLE] = "uninterruptible",
};

void sleeplock_print_waiters(struct sleeplock *l)
{
	spin_lock(&l->wait_lock);
	kprintf("sleeping-lock: lock %s, %u waiters:\n", READ_ONCE(l->locked) ? "taken" : "free",
		l->nr_waiters);
	for (struct sl_waiter *w = l->head; w; w = w->next) {
		int st = w->task->state;
		kprintf("  task %u (%s) state %s cpu %d\n", w->task->id, w->task->name,
			st >= 0 && st < (int)ARRAY_SIZE(task_state_names) ? task_state_names[st]
									  : "?",
			w->task->cpu);
	}
	spin_unlock(&l->wait_lock);
}
