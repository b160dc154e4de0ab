/* SPDX-License-Identifier: MIT */
/*
 * Recording traces (fputrace.h, docs/trace.md "Recording from the lab").
 *
 * One buffer per CPU, written only by its CPU with interrupts off (kernel
 * code runs so), no lock. Every event takes the next value of one global
 * counter: an event that causes another on a different CPU (a switch away
 * before the task is switched in elsewhere) takes its number first, so
 * sorting by number gives an order trace_check() accepts.
 *
 * Two facts are known only later, and the record is completed then, while
 * it is still in this CPU's buffer: a use's mask (XINUSE when the slice
 * ends, or its kernel-FPU section starts) and a switch's no-user flag (the
 * task blocked again before fpu_return_to_user()). A return to ring 3 is
 * no event: the next event on the CPU carries the returned flag.
 *
 * While recording, each libfpu hook runs with its events as one step, one
 * CPU at a time (fputrace_step_begin/end around them at each call site):
 * replay runs the hooks in the order of their events, and the hooks share
 * state between CPUs (adaptive's newcomers' prior, each CPU's calm and
 * hold_gain; the holders of state left unsaved). Without the steps, QEMU
 * TCG switching vCPUs in the middle of a hook let a hook read what one
 * stamped before it had not yet written: replayed, adaptive once made 11
 * saves and 31 restores where the lab had made 90 and 111 (docs/trace.md).
 * A CPU waiting for the step serves interrupts: the step's owner may be
 * waiting for a flush IPI it sent to that CPU, which belongs to its step.
 *
 * A full buffer stops all recording: the first number that found no room
 * is kept (lost), and the host keeps only the events below it, an unbroken
 * prefix of the run.
 */
#include "fputrace.h"
#include "boot_info.h"
#include "cpu.h"
#include "io.h"
#include "lab.h"
#include <fpulab/abi.h>

/* XINUSE bits a user task's use can dirty: x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM. */
#define USE_MASK 0xe7u
#define RESERVE_BYTES (64ul << 20) /* left to kalloc() for the runs' tasks */
#define MAX_TRACE_BYTES (1ul << 30)

struct trace_cpu {
	struct fpulab_trace_event *buf;
	uint32_t n;
	int64_t use_at;    /* a USE waiting for its mask; -1 */
	int64_t switch_at; /* the SWITCH that brought in the running user task; -1 */
	bool returned;     /* that task has returned to ring 3 since */
	bool ret_pending;  /* ... since this CPU's last event: the next one says so */
} __attribute__((aligned(64)));

static struct trace_cpu tcpu[FPULAB_MAX_CPUS];
static struct fpulab_trace_event *region;
static uint64_t region_bytes;
static uint32_t cap; /* events per CPU */
static uint32_t seq, lost, max_task;
volatile bool fputrace_recording; /* fputrace.h: the steps test it inline */
static int step_owner;            /* the CPU in a step, + 1; 0: none */
static unsigned int step_depth;   /* its nesting (only the owner writes it) */

bool fputrace_enabled(void)
{
	return region != NULL;
}

void fputrace_init(void)
{
	char buf[24];
	const char *end;

	if (!cmdline_get("trace", buf, sizeof(buf)))
		return;
	/* trace=1: buffers as large as RAM allows; trace=N > 1: N events per CPU (tests) */
	uint64_t want = parse_u64(buf, &end);
	if (*end || !want)
		panic("trace=%s: not 1 or a number of events per CPU", buf);
	uint64_t avail = kalloc_avail(4096);
	if (avail < RESERVE_BYTES + (1ul << 20) * ncpus)
		panic("trace=1: %lu bytes of RAM left, too few for trace buffers", avail);
	region_bytes = avail - RESERVE_BYTES;
	if (region_bytes > MAX_TRACE_BYTES)
		region_bytes = MAX_TRACE_BYTES;
	if (want > 1 && want * sizeof(struct fpulab_trace_event) * ncpus < region_bytes)
		region_bytes = want * sizeof(struct fpulab_trace_event) * ncpus;
	cap = (uint32_t)(region_bytes / ncpus / sizeof(struct fpulab_trace_event));
	region = kalloc_raw(region_bytes, 4096);
	for (unsigned int c = 0; c < ncpus; c++)
		tcpu[c].buf = region + (uint64_t)c * cap;
	kprintf("trace: %u events per CPU (%lu bytes at 0x%lx)\n", cap, region_bytes,
		(uint64_t)region);
}

static uint16_t task_id(const struct task *t)
{
	return t && t->user && t->state != TASK_DEAD ? (uint16_t)(t->slot + 1) : 0;
}

static void note_lost(uint32_t s)
{
	uint32_t old = __atomic_load_n(&lost, __ATOMIC_RELAXED);
	while (s < old && !__atomic_compare_exchange_n(&lost, &old, s, false, __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
	WRITE_ONCE(fputrace_recording, false);
}

static void note_task(uint32_t id)
{
	uint32_t old = __atomic_load_n(&max_task, __ATOMIC_RELAXED);
	while (id > old && !__atomic_compare_exchange_n(&max_task, &old, id, false,
							__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		;
}

/* Append an event on this CPU; its index, or -1 (not recording, or full). */
static int64_t emit(struct trace_cpu *t, unsigned int type, uint16_t task, uint16_t arg)
{
	if (!READ_ONCE(fputrace_recording))
		return -1;
	uint32_t s = __atomic_fetch_add(&seq, 1, __ATOMIC_SEQ_CST);
	if (t->n >= cap) {
		note_lost(s);
		return -1;
	}
	note_task(task);
	if (type == FPULAB_EV_SWITCH)
		note_task(arg);
	t->buf[t->n] = (struct fpulab_trace_event){
		.seq = s,
		.type = (uint8_t)type,
		.cpu = (uint8_t)this_cpu()->id,
		.task = task,
		.arg = arg,
	};
	if (t->ret_pending && type != FPULAB_EV_FLUSH_IPI) { /* a flush IPI is the policy's */
		t->buf[t->n].flags = FPULAB_EVF_RETURNED;
		t->ret_pending = false;
	}
	return t->n++;
}

bool fputrace_step_take(void)
{
	struct cpu *c = this_cpu();
	int me = (int)c->id + 1, none = 0;
	if (__atomic_load_n(&step_owner, __ATOMIC_RELAXED) == me) {
		step_depth++;
		return true;
	}
	bool window = !irqs_enabled() && !c->in_irq;
	while (!__atomic_compare_exchange_n(&step_owner, &none, me, false, __ATOMIC_ACQUIRE,
					    __ATOMIC_RELAXED)) {
		none = 0;
		if (window)
			irq_window(); /* a flush IPI the owner waits for */
		cpu_relax();
	}
	step_depth = 1;
	return true;
}

void fputrace_step_give(void)
{
	if (--step_depth == 0)
		__atomic_store_n(&step_owner, 0, __ATOMIC_RELEASE);
}

static struct trace_cpu *here(void)
{
	return &tcpu[this_cpu()->id];
}

/* The slice's use (if any) ends here: what it dirtied is what XINUSE shows now. */
static void close_use(struct trace_cpu *t)
{
	if (t->use_at < 0)
		return;
	t->buf[t->use_at].mask = (uint32_t)(xstate_xinuse() & xstate_cfg.xcr0 & USE_MASK);
	t->use_at = -1;
}

void fputrace_start(void)
{
	for (unsigned int c = 0; c < ncpus; c++)
		tcpu[c] = (struct trace_cpu){ .buf = tcpu[c].buf, .use_at = -1, .switch_at = -1 };
	seq = 0;
	max_task = 0;
	lost = UINT32_MAX;
	fpu_set_tracing(true);
	__atomic_store_n(&fputrace_recording, true, __ATOMIC_SEQ_CST);
}

void fputrace_stop(void)
{
	__atomic_store_n(&fputrace_recording, false, __ATOMIC_SEQ_CST);
	fpu_set_tracing(false);
}

void fputrace_switch(struct task *prev, struct task *next)
{
	struct trace_cpu *t = here();

	if (!READ_ONCE(fputrace_recording))
		return;
	close_use(t);
	if (t->switch_at >= 0 && !t->returned)
		t->buf[t->switch_at].flags |= FPULAB_EVF_NO_USER;
	uint16_t n = task_id(next);
	int64_t at = emit(t, FPULAB_EV_SWITCH, task_id(prev), n);
	t->switch_at = n ? at : -1;
	t->returned = false;
}

void fputrace_use(void)
{
	struct trace_cpu *t = here();
	int64_t at = emit(t, FPULAB_EV_USE, task_id(current_task()), 0);
	if (at >= 0)
		t->use_at = at;
}

void fputrace_return_to_user(void)
{
	here()->returned = true;
	here()->ret_pending = true;
}

void fputrace_kfpu(bool begin)
{
	struct trace_cpu *t = here();

	if (!READ_ONCE(fputrace_recording))
		return;
	if (begin)
		close_use(t);
	emit(t, begin ? FPULAB_EV_KFPU_BEGIN : FPULAB_EV_KFPU_END, task_id(current_task()), 0);
}

void fputrace_migrate(struct task *t, unsigned int cpu)
{
	if (task_id(t))
		emit(here(), FPULAB_EV_MIGRATE, task_id(t), (uint16_t)cpu);
}

void fputrace_exit(struct task *t)
{
	struct trace_cpu *c = here();

	if (!READ_ONCE(fputrace_recording) || !task_id(t))
		return;
	close_use(c);
	emit(c, FPULAB_EV_EXIT, task_id(t), 0);
	c->switch_at = -1;
}

void fputrace_export(struct task *t)
{
	if (task_id(t))
		emit(here(), FPULAB_EV_EXPORT, task_id(t), 0);
}

void fputrace_flush_ipi(void)
{
	emit(here(), FPULAB_EV_FLUSH_IPI, 0, 0);
}

/* The state of @t is replaced: if it runs here, its slice's use so far ends now. */
static int64_t replace(unsigned int type, struct task *t)
{
	struct trace_cpu *c = here();

	if (!READ_ONCE(fputrace_recording) || !task_id(t))
		return -1;
	if (t == current_task())
		close_use(c);
	return emit(c, type, task_id(t), 0);
}

int64_t fputrace_import_begin(struct task *t)
{
	return replace(FPULAB_EV_IMPORT, t);
}

/* What an import installed: XSTATE_BV of the task's area, cut as a use's mask. */
static uint32_t import_mask(const struct task *t)
{
	if (xstate_cfg.save_insn == FPU_INSN_FXSAVE)
		return (uint32_t)(XFEATURE_MASK_FPSSE & xstate_cfg.xcr0);
	return (uint32_t)(t->fpu.state->header.xstate_bv & xstate_cfg.xcr0 & USE_MASK);
}

void fputrace_import_end(int64_t at, struct task *t, unsigned int flags, int err)
{
	struct fpulab_trace_event *e;

	if (at < 0)
		return;
	e = &here()->buf[at];
	if (err) {
		e->type = FPULAB_EV_EXPORT; /* nothing replaced; the state was fetched */
		return;
	}
	e->mask = import_mask(t);
	e->flags |= (uint16_t)flags;
}

void fputrace_reset(struct task *t)
{
	replace(FPULAB_EV_RESET, t);
}

/* The host writes one line to the console's input once it has read the buffers. */
static void wait_for_host(void)
{
	for (;;) {
		if (!(inb(COM1 + 5) & 1)) {
			cpu_relax();
			continue;
		}
		if (inb(COM1) == '\n')
			return;
	}
}

void fputrace_handoff(void)
{
	char used[FPULAB_MAX_CPUS * 11 + 1];
	size_t n = 0;
	uint64_t events = 0;

	used[0] = 0;
	for (unsigned int c = 0; c < ncpus; c++) {
		n += (size_t)ksnprintf(used + n, sizeof(used) - n, "%s%u", c ? "," : "", tcpu[c].n);
		events += tcpu[c].n;
	}
	struct trace_rec r = {
		.used = used,
		.cpus = ncpus,
		.base = (uint64_t)region,
		.stride = (uint64_t)cap * sizeof(struct fpulab_trace_event),
		.events = events,
		.seq = seq,
		.lost = lost,
		.ntasks = max_task,
		.xcr0 = xstate_cfg.xcr0,
	};
	RECORD_PRINT(FPULAB_REC_TRACE, FPULAB_TRACE_FIELDS, &r);
	wait_for_host();
}
