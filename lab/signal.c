/* SPDX-License-Identifier: MIT */
/*
 * Signals, sigreturn and ptrace-like access, through libfpu's export and
 * import (lab/signal.h; the frame layout in syscall.h and <fpu/signal.h>).
 *
 * Delivery, on the way back to ring 3: fpu_sigframe_save() into the task's
 * kernel buffer, then (now and then) a preemption or migration, then the
 * copy onto the user stack, then fpu_task_reset(): the handler starts in
 * the init state. Sigreturn: the frame is copied off the user stack, then
 * (now and then) a preemption or migration, then fpu_sigframe_restore().
 * Those two windows are where Linux 5.2 lost YMM state (Go issue 35326,
 * kernel bugzilla 205663): the task's registers and its save area may be
 * anywhere, on any CPU, when the state is taken or given back.
 *
 * ptrace: the tracer asks a task to stop; the task stops on its way back to
 * ring 3 and is switched out; the tracer exports its state, later imports
 * one (or none) and resumes it. A task that does not stop within
 * STOP_WAIT_US (blocked, or itself waiting for a tracee) is not waited for.
 */
#include "signal.h"
#include "apic.h"
#include "cpu.h"
#include "fputrace.h"
#include "io.h"
#include "lab.h"
#include "syscall.h"
#include <fpu/signal.h>

#define RED_ZONE 128        /* skipped below the interrupted RSP, as on Linux x86-64 */
#define STOP_WAIT_US 200    /* how long a tracer waits for a task to stop */
#define ASYNC_CHANCE 8      /* one timer tick in this many that interrupts ring 3 signals */
#define WINDOW_CHANCE 2     /* one delivery or sigreturn in this many moves the task */
#define SAFE_RFLAGS 0xcd5ul /* CF PF AF ZF SF TF DF OF: what sigreturn takes from the frame */

extern char sigreturn_trampoline[]; /* user/ulib.c */

static struct spinlock slot_lock;
static struct task *slot_task[SIG_MAX_SLOTS];
static struct sig_counts counts;
static uint64_t rng_state[FPULAB_MAX_CPUS];

#define COUNT(f) __atomic_add_fetch(&counts.f, 1, __ATOMIC_RELAXED)

static uint64_t rng(void)
{
	uint64_t *s = &rng_state[this_cpu()->id];
	if (!*s)
		*s = rdtsc() | 1;
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

void signal_counts(struct sig_counts *out)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*out = counts;
}

static struct trap_frame *user_frame(struct task *t)
{
	return (struct trap_frame *)(t->kstack_top - sizeof(struct trap_frame));
}

static uint64_t ustack_base(const struct task *t)
{
	return t->ustack_top - USTACK_SIZE;
}

/* [p, p + len) lies within @t's user stack. */
static bool on_ustack(const struct task *t, uint64_t p, uint64_t len)
{
	return p >= ustack_base(t) && p <= t->ustack_top && len <= t->ustack_top - p;
}

static noreturn __attribute__((format(printf, 2, 3))) void kill_task(struct task *t,
								     const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vksnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("signal: task %u (%s, slot %d) killed: %s\n", t->id, t->name, t->sig_slot, msg);
	COUNT(kills);
	task_exit();
}

/* The window: a preemption or a migration between taking the state and using it. */
static void window(void)
{
	uint64_t r = rng();

	if (r % WINDOW_CHANCE)
		return;
	COUNT(window_moves);
	if (ncpus > 1 && (r >> 8) % 2)
		migrate_to((unsigned int)((r >> 16) % ncpus));
	else
		yield();
}

void signal_task_init(struct task *t)
{
	if (!t->sigbuf)
		t->sigbuf = kalloc(fpu_sigframe_size(), XSTATE_ALIGN);
	t->sig_handler = 0;
	t->sig_arg = 0;
	t->sig_pending = 0;
	t->in_handler = false;
	t->sig_slot = -1;
	t->trace = TRACE_NONE;
	t->tracer = NULL;
	t->tracee = NULL;
}

/* Resume a stopped task (the tracer's side). */
static void resume(struct task *tracer, struct task *t)
{
	tracer->tracee = NULL;
	t->tracer = NULL;
	WRITE_ONCE(t->trace, TRACE_NONE);
	task_resume(t);
}

void signal_task_exit(struct task *t)
{
	spin_lock(&slot_lock);
	if (t->sig_slot >= 0 && slot_task[t->sig_slot] == t)
		slot_task[t->sig_slot] = NULL;
	if (t->trace == TRACE_REQ)
		WRITE_ONCE(t->trace, TRACE_NONE);
	spin_unlock(&slot_lock);
	if (t->tracee)
		resume(t, t->tracee);
	t->sig_handler = 0;
}

long sys_sigaction(uint64_t handler, uint64_t arg, uint64_t slot)
{
	struct task *t = current_task();

	if (!handler) { /* unregister: no more signals, and tracers learn nothing of it */
		spin_lock(&slot_lock);
		if (t->sig_slot >= 0 && slot_task[t->sig_slot] == t)
			slot_task[t->sig_slot] = NULL;
		t->sig_handler = 0;
		t->sig_arg = 0;
		spin_unlock(&slot_lock);
		return 0;
	}
	if (slot >= SIG_MAX_SLOTS || t->sig_slot >= 0)
		return -1;
	t->sig_handler = handler;
	t->sig_arg = arg;
	spin_lock(&slot_lock);
	t->sig_slot = (int)slot;
	slot_task[slot] = t;
	spin_unlock(&slot_lock);
	return (long)ustack_base(t);
}

static void sig_raise(struct task *t, unsigned int why)
{
	__atomic_or_fetch(&t->sig_pending, why, __ATOMIC_SEQ_CST);
	COUNT(sent);
}

long sys_kill(uint64_t slot)
{
	struct task *t = current_task();
	long ret = 0;

	if (slot == (uint64_t)-1) {
		sig_raise(t, SIG_SENT);
		return 0;
	}
	if (slot >= SIG_MAX_SLOTS)
		return -1;
	spin_lock(&slot_lock);
	if (slot_task[slot])
		sig_raise(slot_task[slot], SIG_SENT);
	else
		ret = -1;
	spin_unlock(&slot_lock);
	return ret;
}

void signal_timer(struct task *t)
{
	if (t->user && t->sig_handler && rng() % ASYNC_CHANCE == 0)
		sig_raise(t, SIG_ASYNC);
}

/* Write the frame on the user stack and enter the handler (Linux's setup_rt_frame). */
static void deliver(struct task *t)
{
	struct trap_frame *f = user_frame(t);
	uint64_t fsz = fpu_sigframe_size();
	uint64_t fp, sf, ret;
	struct sigframe *s;
	int n;

	if (!on_ustack(t, f->rsp, 0))
		kill_task(t, "signal: RSP 0x%lx is outside its user stack 0x%lx..0x%lx", f->rsp,
			  ustack_base(t), t->ustack_top);
	fp = (f->rsp - RED_ZONE - fsz) & ~(uint64_t)(XSTATE_ALIGN - 1);
	sf = (fp - sizeof(*s)) & ~15ull;
	ret = sf - 8; /* the handler starts as after a call: RSP + 8 is 16-byte aligned */
	if (f->rsp < RED_ZONE + fsz + sizeof(*s) + 64 || !on_ustack(t, ret, f->rsp - ret))
		kill_task(
			t,
			"signal frame of %lu bytes does not fit on the user stack (RSP 0x%lx, stack 0x%lx..0x%lx)",
			f->rsp - ret, f->rsp, ustack_base(t), t->ustack_top);

	bool step = fputrace_step_begin();
	fputrace_export(t);
	n = fpu_sigframe_save(&t->fpu, t->sigbuf, fsz);
	fputrace_step_end(step);
	if (n != (int)fsz)
		panic("fpu_sigframe_save: %s", xstate_strerror(n));
	window();
	memcpy((void *)fp, t->sigbuf, fsz);

	s = (struct sigframe *)sf;
	s->magic = SIGFRAME_MAGIC;
	_Static_assert(sizeof(s->gregs) == sizeof(*f), "SIGFRAME_GREGS");
	memcpy(s->gregs, f, sizeof(*f));
	s->fpstate = (void *)fp;
	s->fpsize = fsz;
	s->why = __atomic_exchange_n(&t->sig_pending, 0, __ATOMIC_SEQ_CST);
	s->pad = 0;
	*(uint64_t *)ret = (uint64_t)sigreturn_trampoline;

	step = fputrace_step_begin();
	fputrace_reset(t);
	fpu_task_reset(&t->fpu);
	fputrace_step_end(step);
	t->in_handler = true;
	f->rip = t->sig_handler;
	f->rdi = t->sig_arg;
	f->rsi = sf;
	f->rdx = fp;
	f->rsp = ret;
	COUNT(delivered);
}

/* Linux's restore_sigcontext + fpu__restore_sig. Called with RSP at the struct sigframe. */
void sys_sigreturn(struct trap_frame *f)
{
	struct task *t = current_task();
	uint64_t fsz = fpu_sigframe_size(), fp, len;
	struct sigframe s;
	const struct trap_frame *g;
	int err;

	if (!t->in_handler)
		kill_task(t, "sigreturn outside a signal handler");
	if (!on_ustack(t, f->rsp, sizeof(s)))
		kill_task(t, "sigreturn: frame at 0x%lx is outside its user stack", f->rsp);
	memcpy(&s, (const void *)f->rsp, sizeof(s));
	if (s.magic != SIGFRAME_MAGIC)
		kill_task(t, "sigreturn: no signal frame at 0x%lx", f->rsp);
	fp = (uint64_t)s.fpstate;
	if ((fp & (XSTATE_ALIGN - 1)) || !on_ustack(t, fp, XSTATE_LEGACY_SIZE))
		kill_task(t,
			  "sigreturn: FPU frame at 0x%lx is not 64-byte aligned on its user stack",
			  fp);
	len = t->ustack_top - fp < fsz ? t->ustack_top - fp : fsz;
	memcpy(t->sigbuf, (const void *)fp, len);
	window();
	bool step = fputrace_step_begin();
	int64_t at = fputrace_import_begin(t);
	err = fpu_sigframe_restore(&t->fpu, t->sigbuf, len);
	fputrace_import_end(at, t, FPULAB_EVF_SIGFRAME, err);
	fputrace_step_end(step);
	if (err)
		kill_task(t, "sigreturn: FPU frame refused: %s", xstate_strerror(err));

	g = (const struct trap_frame *)s.gregs;
	f->r15 = g->r15, f->r14 = g->r14, f->r13 = g->r13, f->r12 = g->r12;
	f->r11 = g->r11, f->r10 = g->r10, f->r9 = g->r9, f->r8 = g->r8;
	f->rbp = g->rbp, f->rdi = g->rdi, f->rsi = g->rsi, f->rdx = g->rdx;
	f->rcx = g->rcx, f->rbx = g->rbx, f->rax = g->rax;
	f->rip = g->rip;
	f->rsp = g->rsp;
	f->rflags = (f->rflags & ~SAFE_RFLAGS) | (g->rflags & SAFE_RFLAGS);
	t->in_handler = false;
	COUNT(sigreturns);
}

/* The task's side of a stop: taken on its way back to ring 3. */
static bool stop_if_asked(struct task *t)
{
	bool stop = false;

	if (READ_ONCE(t->trace) != TRACE_REQ)
		return false;
	spin_lock(&slot_lock);
	if (t->trace == TRACE_REQ) {
		t->trace = TRACE_STOPPING;
		stop = true;
	}
	spin_unlock(&slot_lock);
	if (stop) {
		t->state = TASK_STOPPED; /* finish_switch() makes it TRACE_STOPPED */
		schedule();
	}
	return stop;
}

bool signal_work(struct task *t)
{
	if (stop_if_asked(t))
		return true;
	if (READ_ONCE(t->sig_pending) && t->sig_handler && !t->in_handler) {
		deliver(t);
		return true;
	}
	return false;
}

static bool user_buf_ok(const struct task *t, uint64_t buf, uint64_t len)
{
	return on_ustack(t, buf, len);
}

long sys_ptrace_get(uint64_t slot, uint64_t buf, uint64_t len, uint64_t info)
{
	struct ptrace_info pi;
	struct task *me = current_task(), *t;
	uint64_t deadline = rdtsc() + STOP_WAIT_US * tsc_khz / 1000;
	unsigned int id;
	int n;

	if (slot >= SIG_MAX_SLOTS || me->tracee || !user_buf_ok(me, buf, len) ||
	    len < xstate_cfg.user_size || !user_buf_ok(me, info, sizeof(pi)))
		return -1;
	spin_lock(&slot_lock);
	t = slot_task[slot];
	if (!t || t == me || t->trace != TRACE_NONE) {
		spin_unlock(&slot_lock);
		return -1;
	}
	t->trace = TRACE_REQ;
	t->tracer = me;
	id = t->id;
	spin_unlock(&slot_lock);

	for (;;) {
		int st = __atomic_load_n(&t->trace, __ATOMIC_ACQUIRE);
		if (t->id != id || st == TRACE_NONE)
			return -1; /* it exited */
		if (st == TRACE_STOPPED)
			break;
		if (st == TRACE_REQ && rdtsc() > deadline) {
			bool gave_up = false;
			spin_lock(&slot_lock);
			if (t->trace == TRACE_REQ) {
				t->trace = TRACE_NONE;
				t->tracer = NULL;
				gave_up = true;
			}
			spin_unlock(&slot_lock);
			if (gave_up) {
				COUNT(ptrace_busy);
				return -1;
			}
		}
		yield();
		irq_window();
		cpu_relax();
	}
	me->tracee = t;
	bool step = fputrace_step_begin();
	fputrace_export(t);
	n = fpu_export_std(&t->fpu, (void *)buf, len);
	fputrace_step_end(step);
	if (n < 0)
		panic("fpu_export_std: %s", xstate_strerror(n));
	COUNT(ptrace_reads);
	pi = (struct ptrace_info){ .arg = t->sig_arg, .in_handler = t->in_handler };
	memcpy((void *)info, &pi, sizeof(pi));
	return 0;
}

long sys_ptrace_set(uint64_t slot, uint64_t buf, uint64_t len)
{
	struct task *me = current_task(), *t = me->tracee;
	long err = 0;

	if (!t || t->sig_slot != (int)slot)
		return -1;
	if (buf) {
		if (len > xstate_cfg.user_size)
			len = xstate_cfg.user_size; /* the rest is not ours to read */
		if (!user_buf_ok(me, buf, len)) {
			err = XSTATE_E_INVAL;
		} else {
			memcpy(me->sigbuf, (const void *)buf, len); /* then validate our copy */
			bool step = fputrace_step_begin();
			int64_t at = fputrace_import_begin(t);
			err = fpu_import_std(&t->fpu, me->sigbuf, len);
			fputrace_import_end(at, t, 0, (int)err);
			fputrace_step_end(step);
			if (!err)
				COUNT(ptrace_writes);
		}
	}
	resume(me, t);
	return err;
}
