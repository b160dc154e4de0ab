/* SPDX-License-Identifier: MIT */
/*
 * fpulab host check: a stress test of the running kernel's xstate handling.
 *
 * N worker threads each hold unique values in every register of the set
 * (host_regs_run: loaded, a spin, sched_yield(), a spin, stored) and check
 * them after every pass. Meanwhile spinner threads preempt them, a driver
 * thread migrates them with sched_setaffinity() and interrupts them with
 * signals whose handlers:
 *   - use the FPU themselves, with other values, and check those;
 *   - run on the thread's stack or on an alternate stack sized from
 *     AT_MINSIGSTKSZ, which is often freshly mapped and never touched, so
 *     that the kernel faults while it writes the frame (Go issue 35326);
 *   - edit a register in the signal frame's xstate and the expected values
 *     alike: after sigreturn the task must hold exactly the edited value;
 *   - as a positive control, edit the frame but not the expected values:
 *     the check must catch exactly that register, or the run fails.
 * Frames are edited only when the signal interrupted the window where every
 * register of the set is loaded (host_regs_window_start..end).
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <ucontext.h>
#include <unistd.h>
#include <cpuid.h>

#include "host.h"
#include "host_cpu.h"
#include "common/result_file.h"
#include "common/util.h"

#define CMD "host check"
#define MAX_THREADS 256
#define SPIN 500           /* PAUSEs on each side of the sched_yield() in a pass */
#define ALTSTACK_RENEW 16  /* passes between fresh alternate stacks */
#define HANDLER_STACK 8192 /* bytes the handler itself needs beyond the frame */
#define CONTROL_EVERY 32   /* every 32nd signal to a thread is a control */

/* The signals and what their handlers do. */
#define SIG_PLAIN SIGUSR1           /* FPU use in the handler, thread stack */
#define SIG_PLAIN_ALT SIGUSR2       /* FPU use, alternate stack */
#define SIG_EDIT (SIGRTMIN)         /* + edit the frame and the expected values */
#define SIG_EDIT_ALT (SIGRTMIN + 1) /* the same on the alternate stack */
#define SIG_CONTROL (SIGRTMIN + 2)  /* edit the frame only: must be caught */

struct chk_error {
	int thread;
	char where[24]; /* "pass", "handler", "control missed" */
	struct host_mismatch m;
};

struct chk_thread {
	int idx;
	pid_t tid;
	pthread_t pt;
	struct host_regs expect, dump, hexpect, hdump;
	uint64_t seed, hseed;
	/* counters, written by the thread and its handler only */
	uint64_t checks, handler_checks, signals, on_altstack, fresh_frames;
	uint64_t edits, controls_run, controls_caught, migrations, altstacks;
	uint64_t errors, xinuse_missing, xinuse;
	/* a planted control: the byte of struct host_regs and its XOR */
	volatile int control_pending;
	size_t control_off;
	uint8_t control_xor;
	unsigned int edit_seq;
	uint8_t *alt;
	size_t alt_size;
	bool alt_touched;
	int last_cpu;
	struct chk_error first[2];
	unsigned int nfirst;
};

static struct {
	enum host_regset set;
	bool xgetbv1;
	uint32_t off[8], size[8]; /* standard-format offset and size of components 2..7 */
	volatile int stop_workers, stop_driver;
	size_t alt_size;
	unsigned long minsig;
} g;

static __thread struct chk_thread *self;
static const struct host_step no_steps[] = { { .kind = HOST_STEP_END } };

static void record(struct chk_thread *t, const char *where, const struct host_mismatch *m)
{
	t->errors++;
	if (t->nfirst < 2) {
		struct chk_error *e = &t->first[t->nfirst++];
		e->thread = t->idx;
		snprintf(e->where, sizeof(e->where), "%s", where);
		e->m = *m;
	}
}

/*
 * Where register byte @b of the chosen register lives in the signal frame
 * (@fp: the FXSAVE area, then the XSAVE header and components in the
 * standard format) and in struct host_regs. Returns false when the frame
 * does not carry the component (no xstate magic, XSTATE_BV bit clear).
 */
static bool frame_byte(struct chk_thread *t, uint8_t *fp, uint8_t **frame, size_t *img)
{
	unsigned int seq = t->edit_seq++, kinds, kind, reg = (seq / 5) % 32, b = seq % 8;
	uint32_t magic, xsize;
	uint64_t xbv;
	int comp = -1;
	size_t off;

	/* The kinds of register this set has: st, xmm, ymm-high, zmm-high, zmm16-31, k. */
	kinds = g.set == HOST_REGSET_X87   ? 1
		: g.set == HOST_REGSET_SSE ? 2
		: g.set == HOST_REGSET_AVX ? 3
					   : 6;
	kind = seq % kinds;
	switch (kind) {
	case 0: /* ST(i): the low mantissa byte; the value stays a normal number */
		reg %= 8;
		*frame = fp + 32 + 16 * reg;
		*img = offsetof(struct host_regs, st) + 16 * reg;
		return true;
	case 1: /* XMMi */
		reg %= 16;
		*frame = fp + 160 + 16 * reg + b;
		*img = offsetof(struct host_regs, zmm) + 64 * reg + b;
		return true;
	case 2: /* YMMi bits 255:128, component 2 */
		reg %= 16, comp = 2, off = 16 * reg + b;
		*img = offsetof(struct host_regs, zmm) + 64 * reg + 16 + b;
		break;
	case 3: /* ZMMi bits 511:256, component 6 */
		reg %= 16, comp = 6, off = 32 * reg + b;
		*img = offsetof(struct host_regs, zmm) + 64 * reg + 32 + b;
		break;
	case 4: /* ZMM16-31, component 7 */
		reg = 16 + reg % 16, comp = 7, off = 64 * (reg - 16) + b;
		*img = offsetof(struct host_regs, zmm) + 64 * reg + b;
		break;
	default: /* k0-k7, component 5 */
		reg %= 8, comp = 5, off = 8 * reg + b;
		*img = offsetof(struct host_regs, k) + 8 * reg + b;
		break;
	}
	memcpy(&magic, fp + 464, 4); /* struct _fpx_sw_bytes in the FXSAVE area's software bytes */
	memcpy(&xsize, fp + 464 + 16, 4);
	memcpy(&xbv, fp + 512, 8);
	if (magic != FP_XSTATE_MAGIC1 || !(xbv >> comp & 1) || g.off[comp] + off >= xsize)
		return false;
	*frame = fp + g.off[comp] + off;
	return true;
}

/* Edit one register byte in the frame; unless @control, in the expected values too. */
static bool frame_edit(struct chk_thread *t, ucontext_t *uc, bool control)
{
	uint8_t *frame, x = (uint8_t)(0x5a ^ (t->edit_seq & 0x20));
	size_t img;

	if (!uc->uc_mcontext.fpregs ||
	    !frame_byte(t, (uint8_t *)uc->uc_mcontext.fpregs, &frame, &img))
		return false;
	*frame ^= x;
	if (control) {
		t->control_off = img;
		t->control_xor = x;
		t->control_pending = 1;
	} else {
		((uint8_t *)&t->expect)[img] ^= x;
	}
	return true;
}

static void handler(int sig, siginfo_t *si, void *ucv)
{
	struct chk_thread *t = self;
	ucontext_t *uc = ucv;
	uintptr_t rip = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
	bool window = rip >= (uintptr_t)host_regs_window_start &&
		      rip < (uintptr_t)host_regs_window_end;
	int saved = errno;
	char here;
	struct host_run r;
	struct host_mismatch m;

	if (!t)
		return;
	t->signals++;
	if (t->alt && &here >= (char *)t->alt && &here < (char *)t->alt + t->alt_size) {
		t->on_altstack++;
		if (!t->alt_touched)
			t->fresh_frames++; /* the kernel wrote this frame onto untouched pages */
		t->alt_touched = true;
	}
	/* The handler's own FPU use, with other values. */
	host_regs_fill(&t->hexpect, ++t->hseed);
	r = (struct host_run){ .regset = g.set,
			       .fill = &t->hexpect,
			       .dump = &t->hdump,
			       .steps = no_steps,
			       .xgetbv1 = g.xgetbv1 };
	host_regs_run(&r);
	if (host_regs_diff(g.set, &t->hexpect, &t->hdump, &m))
		record(t, "handler", &m);
	t->handler_checks++;
	if (window && (sig == SIG_EDIT || sig == SIG_EDIT_ALT) && frame_edit(t, uc, false))
		t->edits++;
	if (window && sig == SIG_CONTROL && !t->control_pending && frame_edit(t, uc, true))
		t->controls_run++;
	errno = saved;
}

/* A fresh alternate stack: mapped now, never touched; the old one unmapped. */
static void renew_altstack(struct chk_thread *t)
{
	stack_t ss = { .ss_size = g.alt_size };
	void *old = t->alt;

	ss.ss_sp = mmap(NULL, g.alt_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			0);
	if (ss.ss_sp == MAP_FAILED)
		return;
	if (sigaltstack(&ss, NULL)) {
		munmap(ss.ss_sp, g.alt_size);
		return;
	}
	t->alt = ss.ss_sp;
	t->alt_size = g.alt_size;
	t->alt_touched = false;
	t->altstacks++;
	if (old)
		munmap(old, g.alt_size);
}

/* The pass just stored: compare, settling a planted control. */
static void check_pass(struct chk_thread *t)
{
	struct host_mismatch m;
	unsigned int n = host_regs_diff(g.set, &t->expect, &t->dump, &m);

	if (t->control_pending) {
		uint8_t *e = (uint8_t *)&t->expect + t->control_off;
		unsigned int with;
		*e ^= t->control_xor;
		with = host_regs_diff(g.set, &t->expect, &t->dump, NULL);
		*e ^= t->control_xor;
		if (n == 1 && with == 0)
			t->controls_caught++;
		else if (n == 0)
			record(t, "control missed", &(struct host_mismatch){ .nregs = 0 });
		else
			record(t, "pass (control)", &m);
		t->control_pending = 0;
	} else if (n) {
		record(t, "pass", &m);
	}
	if (g.xgetbv1) {
		uint64_t mask = host_regset_mask(g.set);
		t->xinuse = t->dump.xinuse;
		if ((t->dump.xinuse & mask) != mask)
			t->xinuse_missing++;
	}
	t->checks++;
}

static void *worker(void *arg)
{
	struct chk_thread *t = arg;
	struct host_step steps[] = {
		{ .kind = HOST_STEP_SPIN, .arg = { SPIN } },
		{ .kind = HOST_STEP_SYSCALL, .nr = SYS_sched_yield, .expect = 0 },
		{ .kind = HOST_STEP_SPIN, .arg = { SPIN } },
		{ .kind = HOST_STEP_END },
	};
	struct host_run r = { .regset = g.set,
			      .fill = &t->expect,
			      .dump = &t->dump,
			      .steps = steps,
			      .xgetbv1 = g.xgetbv1 };
	stack_t off = { .ss_flags = SS_DISABLE };

	t->tid = (pid_t)syscall(SYS_gettid);
	self = t;
	t->last_cpu = sched_getcpu();
	t->seed = 0x10000ull * (uint64_t)(t->idx + 1);
	host_regs_fill(&t->expect, t->seed);
	while (!g.stop_workers) {
		if (t->checks % ALTSTACK_RENEW == 0) {
			renew_altstack(t);
			host_regs_fill(&t->expect, ++t->seed);
		}
		if (host_regs_run(&r)) {
			struct host_mismatch m = { .found = (uint64_t)r.sys_ret };
			snprintf(m.reg, sizeof(m.reg), "syscall");
			record(t, "sched_yield failed", &m);
			continue;
		}
		check_pass(t);
		int cpu = sched_getcpu();
		if (cpu != t->last_cpu)
			t->migrations++;
		t->last_cpu = cpu;
	}
	sigaltstack(&off, NULL);
	self = NULL;
	return NULL;
}

static void *spinner(void *arg)
{
	volatile uint64_t n = 0;
	while (!g.stop_workers)
		n++;
	return NULL;
}

struct driver {
	struct chk_thread *t;
	unsigned int nthreads;
	int cpus[HOST_MAX_CPUS], ncpus;
	uint64_t sent, affinity_changes;
};

/* Signals in turn to every worker; every 16th round, one worker moves. */
static void *driver(void *arg)
{
	static const int plain[4] = { 0, 1, 2, 3 };
	struct driver *d = arg;
	pid_t pid = getpid();
	uint64_t round = 0;
	unsigned int *count = calloc(d->nthreads, sizeof(*count));

	while (!g.stop_driver && count) {
		struct timespec ts = { 0, 100 * 1000 };
		for (unsigned int i = 0; i < d->nthreads; i++) {
			int sig, k = (int)(count[i]++ % CONTROL_EVERY);
			if (k == CONTROL_EVERY - 1)
				sig = SIG_CONTROL;
			else
				switch (plain[k % 4]) {
				case 0:
					sig = SIG_PLAIN;
					break;
				case 1:
					sig = SIG_PLAIN_ALT;
					break;
				case 2:
					sig = SIG_EDIT;
					break;
				default:
					sig = SIG_EDIT_ALT;
					break;
				}
			if (d->t[i].tid && !syscall(SYS_tgkill, pid, d->t[i].tid, sig))
				d->sent++;
		}
		if (++round % 16 == 0 && d->ncpus > 1) {
			struct chk_thread *t = &d->t[(round / 16) % d->nthreads];
			int cpu = d->cpus[(round / 16 / d->nthreads + (uint64_t)t->idx) %
					  (uint64_t)d->ncpus];
			if (t->tid && !host_pin(t->tid, cpu))
				d->affinity_changes++;
		}
		nanosleep(&ts, NULL);
	}
	free(count);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: fpulab host check [--seconds S] [--threads N] [--spinners N]\n"
		"         [--regset SET] [--format table|json|csv] [--output FILE]\n"
		"A stress test of this kernel's FPU/xstate handling. N threads hold unique\n"
		"values in every register of SET and check them after every pass, while they\n"
		"are preempted (by each other and by spinners), migrated (sched_setaffinity) and\n"
		"interrupted by signals whose handlers use the FPU, run on alternate stacks\n"
		"sized from AT_MINSIGSTKSZ (often freshly mapped: the kernel faults writing the\n"
		"frame, the Go 35326 pattern), and edit registers in the signal frame. A\n"
		"positive control edits the frame without telling the check: every one must be\n"
		"caught.\n"
		"  --seconds S    default 60 (0.01..86400)\n"
		"  --threads N    default 2 x CPUs (1..%d)\n"
		"  --spinners N   integer-only threads that preempt, default CPUs (0..%d)\n"
		"  --regset SET   x87|sse|avx|avx512, default the widest offered\n"
		"Exit 1 on any error (a register not as expected, a control not caught, a\n"
		"component not in use), 2 on bad usage.\n",
		MAX_THREADS, MAX_THREADS);
}

static const struct output_column check_columns[] = {
	{ "seconds", NULL, 7, 2 },
	{ "regset", NULL, -6, 0 },
	{ "threads", NULL, 7, 0 },
	{ "checks", NULL, 10, 0 },
	{ "signals_handled", "signals", 8, 0 },
	{ "fresh_altstack_frames", "fresh alt", 9, 0 },
	{ "frames_edited", "edited", 7, 0 },
	{ "controls_run", "controls", 8, 0 },
	{ "controls_caught", "caught", 7, 0 },
	{ "migrations", NULL, 10, 0 },
	{ "xinuse", NULL, 6, 0 },
	{ "errors", NULL, 6, 0 },
};

static void component_offsets(void)
{
	for (unsigned int i = 2; i < 8; i++) {
		uint32_t a, b, c, d;
		__cpuid_count(0xd, i, a, b, c, d);
		g.size[i] = a;
		g.off[i] = b;
	}
}

/* What check's own options chose; the common ones are in @h. */
struct check_opts {
	struct host_common h;
	uint64_t nthreads, nspin;
	const char *regset; /* NULL: the widest offered */
};

/* One of check's own options (host_opt_fn). */
static int check_opt(void *ctx, int c, const char *arg)
{
	struct check_opts *o = ctx;

	switch (c) {
	case 't':
		return parse_u64_arg(CMD, "threads", arg, 1, MAX_THREADS, &o->nthreads);
	case 's':
		return parse_u64_arg(CMD, "spinners", arg, 0, MAX_THREADS, &o->nspin);
	case 'r':
		o->regset = arg;
		return 0;
	default:
		return usage_error(CMD, "unknown option");
	}
}

/* Parse @argv into @o. Returns -1 to go on, or the exit status (0 after --help). */
static int check_parse(int argc, char **argv, struct check_opts *o)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "spinners", required_argument, NULL, 's' },
		{ "regset", required_argument, NULL, 'r' },
		HOST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	int rc = host_parse(&o->h, argc, argv, longopts, check_opt, o, usage);

	if (rc < 0 && o->h.repeat != 1)
		return usage_error(CMD, "--repeat: check is one run; use --seconds");
	return rc;
}

/* g.set: @name, or the widest set @cpu offers. Returns -1 to go on, else the exit status. */
static int choose_regset(const struct host_cpu *cpu, const char *name)
{
	g.set = HOST_REGSET_NONE;
	if (!name) {
		for (int s = HOST_REGSET_AVX512; s > HOST_REGSET_NONE && !g.set; s--)
			if (cpu->regset_ok[s])
				g.set = (enum host_regset)s;
		return -1;
	}
	/* "none" (host_regset_names[0]) checks nothing: not offered */
	int s = parse_choice(CMD, "regset", name, host_regset_names + HOST_REGSET_NONE + 1);
	if (s < 0)
		return 2;
	s += HOST_REGSET_NONE + 1;
	if (!cpu->regset_ok[s]) {
		fprintf(stderr, "fpulab " CMD ": --regset %s: %s\n", name, cpu->why_not[s]);
		return 1;
	}
	g.set = (enum host_regset)s;
	return -1;
}

/* The frame layout and the alternate stacks' size, from CPUID and AT_MINSIGSTKSZ. */
static void frame_geometry(const struct host_cpu *cpu)
{
	g.xgetbv1 = cpu->xgetbv1;
	component_offsets();
	g.minsig = getauxval(AT_MINSIGSTKSZ);
	if (!g.minsig)
		g.minsig = MINSIGSTKSZ;
	g.alt_size = (g.minsig + HANDLER_STACK + 4095) & ~(size_t)4095;
}

/* The handler for every signal the driver sends; the alternate-stack ones with SA_ONSTACK. */
static void install_handlers(void)
{
	struct sigaction sa = { .sa_sigaction = handler, .sa_flags = SA_SIGINFO | SA_RESTART };

	sigfillset(&sa.sa_mask); /* no handler interrupts another: each edits its own frame */
	sigaction(SIG_PLAIN, &sa, NULL);
	sigaction(SIG_EDIT, &sa, NULL);
	sa.sa_flags |= SA_ONSTACK;
	sigaction(SIG_PLAIN_ALT, &sa, NULL);
	sigaction(SIG_EDIT_ALT, &sa, NULL);
	sigaction(SIG_CONTROL, &sa, NULL);
}

/* Workers, spinners and the signal driver, all of them or exit(1). */
static void start_threads(struct driver *d, pthread_t *sp, unsigned int nspin, pthread_t *dr)
{
	for (unsigned int i = 0; i < d->nthreads; i++) {
		d->t[i].idx = (int)i;
		if (pthread_create(&d->t[i].pt, NULL, worker, &d->t[i])) {
			fprintf(stderr, "fpulab " CMD ": cannot create thread %u\n", i);
			exit(1);
		}
	}
	for (unsigned int i = 0; i < nspin; i++)
		if (pthread_create(&sp[i], NULL, spinner, NULL)) {
			fprintf(stderr, "fpulab " CMD ": cannot create spinner %u\n", i);
			exit(1);
		}
	if (pthread_create(dr, NULL, driver, d)) {
		fprintf(stderr, "fpulab " CMD ": cannot create the signal thread\n");
		exit(1);
	}
}

/* Sleep until CLOCK_MONOTONIC reaches @end (ns), whatever interrupts the sleep. */
static void sleep_until(uint64_t end)
{
	for (uint64_t now; (now = host_now_ns()) < end;) {
		uint64_t left = end - now;
		struct timespec ts = { (time_t)(left / 1000000000u), (long)(left % 1000000000u) };
		nanosleep(&ts, NULL);
	}
}

/* The driver first (no signal after), then the workers and spinners. */
static void stop_threads(struct driver *d, pthread_t *sp, unsigned int nspin, pthread_t dr)
{
	g.stop_driver = 1;
	pthread_join(dr, NULL);
	g.stop_workers = 1;
	for (unsigned int i = 0; i < d->nthreads; i++)
		pthread_join(d->t[i].pt, NULL);
	for (unsigned int i = 0; i < nspin; i++)
		pthread_join(sp[i], NULL);
}

/* The workers' counters, summed over the threads. */
struct check_totals {
	uint64_t checks, handler_checks, signals, on_altstack, fresh_frames, edits;
	uint64_t controls_run, controls_caught, migrations, altstacks, errors, xinuse_missing;
};

static struct check_totals check_sum(const struct chk_thread *t, unsigned int n)
{
	struct check_totals s = { 0 };

	for (unsigned int i = 0; i < n; i++) {
		s.checks += t[i].checks;
		s.handler_checks += t[i].handler_checks;
		s.signals += t[i].signals;
		s.on_altstack += t[i].on_altstack;
		s.fresh_frames += t[i].fresh_frames;
		s.edits += t[i].edits;
		s.controls_run += t[i].controls_run;
		s.controls_caught += t[i].controls_caught;
		s.migrations += t[i].migrations;
		s.altstacks += t[i].altstacks;
		s.errors += t[i].errors;
		s.xinuse_missing += t[i].xinuse_missing;
	}
	return s;
}

static void set_count(json_t *row, const char *key, uint64_t v)
{
	json_object_set_new(row, key, json_integer((json_int_t)v));
}

/* The run's one row: its settings, the totals @s, the driver's counts; @ns of run time. */
static json_t *check_row(const struct check_opts *o, const struct check_totals *s,
			 const struct driver *d, uint64_t ns)
{
	json_t *row = json_object();
	char buf[32];

	json_object_set_new(row, "seconds", json_real(ns / 1e9));
	json_object_set_new(row, "regset", json_string(host_regset_names[g.set]));
	set_count(row, "threads", o->nthreads);
	set_count(row, "spinners", o->nspin);
	json_object_set_new(row, RESULT_RUNS, json_integer(1));
	set_count(row, "checks", s->checks);
	json_object_set_new(row, "checks_per_s", json_real(s->checks / (ns / 1e9)));
	set_count(row, "handler_checks", s->handler_checks);
	set_count(row, "signals_sent", d->sent);
	set_count(row, "signals_handled", s->signals);
	set_count(row, "signals_on_altstack", s->on_altstack);
	set_count(row, "fresh_altstack_frames", s->fresh_frames);
	set_count(row, "altstacks_mapped", s->altstacks);
	set_count(row, "frames_edited", s->edits);
	set_count(row, "controls_run", s->controls_run);
	set_count(row, "controls_caught", s->controls_caught);
	set_count(row, "migrations", s->migrations);
	set_count(row, "affinity_changes", d->affinity_changes);
	snprintf(buf, sizeof(buf), "0x%" PRIx64, d->t[0].xinuse);
	json_object_set_new(row, "xinuse", g.xgetbv1 ? json_string(buf) : json_null());
	set_count(row, "xinuse_missing", s->xinuse_missing);
	set_count(row, "errors", s->errors);
	set_count(row, "at_minsigstksz_bytes", g.minsig);
	set_count(row, "altstack_bytes", g.alt_size);
	return row;
}

/* Each thread's first errors on stderr, then the verdict: 0, or 1 when anything failed. */
static int check_verdict(const struct chk_thread *t, unsigned int n, const struct check_totals *s)
{
	int rc = 0;

	for (unsigned int i = 0; i < n; i++)
		for (unsigned int k = 0; k < t[i].nfirst; k++) {
			const struct chk_error *e = &t[i].first[k];
			fprintf(stderr,
				"fpulab " CMD
				": error: thread %d, %s: %s lane %u expected 0x%016" PRIx64
				" found 0x%016" PRIx64 " (%u registers differ)\n",
				e->thread, e->where, e->m.reg[0] ? e->m.reg : "-", e->m.lane,
				e->m.expected, e->m.found, e->m.nregs);
		}
	if (s->errors || s->xinuse_missing) {
		fprintf(stderr,
			"fpulab " CMD ": %" PRIu64 " errors, %" PRIu64
			" passes with a component not in use\n",
			s->errors, s->xinuse_missing);
		rc = 1;
	}
	if (s->controls_run == 0 || s->controls_caught != s->controls_run) {
		fprintf(stderr,
			"fpulab " CMD ": positive control: %" PRIu64 " run, %" PRIu64
			" caught; the check is not shown to work\n",
			s->controls_run, s->controls_caught);
		rc = 1;
	}
	return rc;
}

/* Run the threads for --seconds; returns the ns they ran. */
static uint64_t check_run(const struct check_opts *o, struct driver *d, pthread_t *sp)
{
	uint64_t start = host_now_ns();
	pthread_t dr;

	start_threads(d, sp, (unsigned int)o->nspin, &dr);
	sleep_until(start + (uint64_t)(o->h.seconds * 1e9));
	stop_threads(d, sp, (unsigned int)o->nspin, dr);
	return host_now_ns() - start;
}

int host_check(int argc, char **argv)
{
	struct check_opts o = { .h = { .sub = "check",
				       .repeat = 1,
				       .seconds = 60,
				       .no_plot = "check has no figure to plot (a correctness "
						  "check: its row holds counts)" } };
	struct host_cpu cpu;
	struct output out;
	struct driver d = { 0 };
	struct check_totals sum;
	pthread_t *sp;
	uint64_t ns;
	int rc;

	d.ncpus = host_allowed_cpus(d.cpus, HOST_MAX_CPUS);
	o.nthreads = 2 * (uint64_t)(d.ncpus > 0 ? d.ncpus : 1);
	o.nspin = (uint64_t)(d.ncpus > 0 ? d.ncpus : 1);
	if ((rc = check_parse(argc, argv, &o)) >= 0)
		return rc;
	host_cpu_probe(&cpu);
	if ((rc = choose_regset(&cpu, o.regset)) >= 0)
		return rc;
	frame_geometry(&cpu);
	if (host_output_open(&out, &o.h, CMD, argc + 2, argv - 2))
		return 2; /* an --output or --plot that cannot be made */
	output_columns(&out, check_columns, sizeof(check_columns) / sizeof(check_columns[0]));
	install_handlers();
	d.t = calloc(o.nthreads, sizeof(*d.t));
	sp = calloc(o.nspin + 1, sizeof(*sp));
	if (!d.t || !sp) {
		fprintf(stderr, "fpulab " CMD ": out of memory\n");
		free(d.t);
		free(sp);
		output_close(&out);
		return 1;
	}
	d.nthreads = (unsigned int)o.nthreads;
	ns = check_run(&o, &d, sp);
	sum = check_sum(d.t, d.nthreads);
	host_comment_machine(&out);
	output_comment(&out,
		       "one run of %.3g s; counts are totals of that run; %u worker threads, "
		       "%u spinners, alternate stacks of %zu bytes (AT_MINSIGSTKSZ %lu + %d)",
		       ns / 1e9, (unsigned int)o.nthreads, (unsigned int)o.nspin, g.alt_size,
		       g.minsig, HANDLER_STACK);
	output_row(&out, check_row(&o, &sum, &d, ns));
	rc = check_verdict(d.t, d.nthreads, &sum);
	if (output_close(&out))
		rc = 1;
	for (unsigned int i = 0; i < d.nthreads; i++)
		if (d.t[i].alt)
			munmap(d.t[i].alt, d.t[i].alt_size);
	free(d.t);
	free(sp);
	return rc;
}
