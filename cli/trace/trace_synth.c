/* SPDX-License-Identifier: MIT */
/*
 * Synthetic traces for the seeds' workloads (docs/trace.md): a small random
 * scheduler over task kinds that say how often a task uses the FPU in a
 * slice, what it dirties, how long it lives and what kernel-mode FPU it does.
 * Deterministic for a given seed.
 */
#include "fpulab/abi.h"
#include "trace_io.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mask_sel { M_NONE, M_SSE, M_AVX, M_FULL };

/* Probabilities in per mille. */
struct kind {
	uint16_t p_use;              /* uses the FPU in a slice */
	enum mask_sel mask;          /* what a use dirties */
	uint16_t p_kfpu;             /* a kernel-FPU section in the slice (a syscall's) */
	uint16_t p_use_after_kfpu;   /* uses the FPU again after it */
	uint16_t p_nouser;           /* blocks again before returning to ring 3 */
	uint16_t p_export;           /* a signal: export, reset for the handler, sigreturn import */
	uint16_t life_min, life_max; /* slices before it exits; 0: never */
	int8_t pin;                  /* the only CPU it runs on; -1: any */
};

enum pick { PICK_RANDOM, PICK_ALT_IDLE, PICK_MIGRATING };

#define MAX_KINDS 4
struct workload {
	const char *name; /* NULL: the name of the lab experiment it models (abi.h) */
	int experiment;   /* FPULAB_EXP_<id> when name is NULL */
	const char *about;
	uint16_t ncpus;
	enum pick pick;
	uint16_t p_idle;          /* a CPU switches to idle or a kernel thread */
	uint16_t p_idle_kfpu;     /* kernel-FPU section in such a slice */
	uint8_t count[MAX_KINDS]; /* live tasks of each kind; exits are replaced */
	struct kind kinds[MAX_KINDS];
};

static const struct workload workloads[] = {
	{ "boot",
	  -1,
	  "boot-like: short-lived tasks, SSE in most of their first slices (seed 002)",
	  2,
	  PICK_RANDOM,
	  200,
	  0,
	  { 6 },
	  { { .p_use = 900, .mask = M_SSE, .life_min = 1, .life_max = 6, .pin = -1 } } },
	{ "build",
	  -1,
	  "build mix: long compilers (AVX), short shell tasks (SSE), migrations",
	  2,
	  PICK_RANDOM,
	  100,
	  0,
	  { 4, 3 },
	  { { .p_use = 700, .mask = M_AVX, .p_export = 5, .life_min = 20, .life_max = 200, .pin = -1 },
	    { .p_use = 300,
	      .mask = M_SSE,
	      .p_nouser = 200,
	      .life_min = 2,
	      .life_max = 12,
	      .pin = -1 } } },
	{ "pingpong-one",
	  -1,
	  "two tasks on one CPU, one uses the FPU (every register) each slice",
	  1,
	  PICK_RANDOM,
	  0,
	  0,
	  { 1, 1 },
	  { { .p_use = 1000, .mask = M_FULL, .pin = -1 }, { .p_use = 0, .pin = -1 } } },
	{ "pingpong-both",
	  -1,
	  "two tasks on one CPU, both use the FPU (every register) each slice",
	  1,
	  PICK_RANDOM,
	  0,
	  0,
	  { 2 },
	  { { .p_use = 1000, .mask = M_FULL, .pin = -1 } } },
	{ "fp-spinner",
	  -1,
	  "an FP program and a non-FP spinner on one CPU, kernel threads between (seed 000)",
	  1,
	  PICK_RANDOM,
	  200,
	  0,
	  { 1, 1 },
	  { { .p_use = 1000, .mask = M_FULL, .pin = -1 }, { .p_use = 0, .pin = -1 } } },
	{ "kernel-csum",
	  -1,
	  "kernel AVX checksumming in syscalls and kernel threads (seed 002)",
	  1,
	  PICK_RANDOM,
	  200,
	  300,
	  { 1, 1 },
	  { { .p_use = 600, .mask = M_AVX, .p_kfpu = 800, .p_use_after_kfpu = 500, .pin = -1 },
	    { .p_use = 0, .p_kfpu = 500, .pin = -1 } } },
	{ NULL,
	  FPULAB_EXP_sleeping_lock,
	  "8 threads on 2 CPUs contending a sleeping lock, little FPU (seed 001)",
	  2,
	  PICK_RANDOM,
	  300,
	  0,
	  { 8 },
	  { { .p_use = 250, .mask = M_SSE, .p_nouser = 300, .pin = -1 } } },
	{ "migrating",
	  -1,
	  "two tasks swapping CPUs every round trip, one FP user (seed 003)",
	  2,
	  PICK_MIGRATING,
	  0,
	  0,
	  { 1, 1 },
	  { { .p_use = 1000, .mask = M_FULL, .pin = -1 }, { .p_use = 0, .pin = -1 } } },
	{ "cross-cpu",
	  -1,
	  "one FP task per CPU, each CPU alternating it with a kernel thread",
	  2,
	  PICK_ALT_IDLE,
	  0,
	  0,
	  { 1, 1 },
	  { { .p_use = 1000, .mask = M_FULL, .pin = 0 },
	    { .p_use = 1000, .mask = M_FULL, .pin = 1 } } },
};
#define NR_WORKLOADS (sizeof(workloads) / sizeof(workloads[0]))

static const char *workload_name(const struct workload *w)
{
	return w->name ? w->name : fpulab_experiments[w->experiment].name;
}

const char *const *trace_workloads(void)
{
	static const char *names[NR_WORKLOADS + 1];
	for (unsigned int i = 0; i < NR_WORKLOADS; i++)
		names[i] = workload_name(&workloads[i]);
	return names;
}

static const struct workload *workload_by_name(const char *name)
{
	for (unsigned int i = 0; i < NR_WORKLOADS; i++)
		if (!strcmp(workload_name(&workloads[i]), name))
			return &workloads[i];
	return NULL;
}

const char *trace_workload_about(const char *name)
{
	const struct workload *w = workload_by_name(name);
	return w ? w->about : NULL;
}

struct task {
	uint8_t kind;
	bool alive;
	int running_on;  /* -1: not running */
	int last_cpu;    /* -1: never ran */
	uint32_t slices; /* slices run */
	uint32_t life;   /* slices before exit; 0: never */
};

struct gen {
	const struct workload *w;
	struct trace *t;
	uint64_t cap, rng, xcr0;
	struct task *tasks;
	uint32_t ntasks, cap_tasks; /* a workload has at most 64 live tasks */
	uint16_t cur[FPULAB_TRACE_MAX_CPUS];
	bool oom;
};

static uint64_t rnd(struct gen *g)
{
	/* xorshift64* */
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return g->rng * 0x2545F4914F6CDD1Dull;
}

static bool chance(struct gen *g, unsigned int per_mille)
{
	return per_mille && rnd(g) % 1000 < per_mille;
}

static void emit(struct gen *g, unsigned int type, unsigned int cpu, unsigned int task,
		 unsigned int arg, unsigned int flags, uint32_t mask)
{
	struct trace *t = g->t;

	if (g->oom)
		return;
	if (t->hdr.nevents == g->cap) {
		uint64_t cap = g->cap ? g->cap * 2 : 4096;
		void *p = realloc(t->ev, cap * sizeof(*t->ev));
		if (!p) {
			g->oom = true;
			return;
		}
		t->ev = p;
		g->cap = cap;
	}
	t->ev[t->hdr.nevents] = (struct fpulab_trace_event){
		.seq = (uint32_t)t->hdr.nevents + 1,
		.type = (uint8_t)type,
		.cpu = (uint8_t)cpu,
		.task = (uint16_t)task,
		.arg = (uint16_t)arg,
		.flags = (uint16_t)flags,
		.mask = mask,
	};
	t->hdr.nevents++;
}

static uint32_t mask_of(const struct gen *g, enum mask_sel m)
{
	switch (m) {
	case M_SSE:
		return (uint32_t)(g->xcr0 & 0x3);
	case M_AVX:
		return (uint32_t)(g->xcr0 & 0x7);
	case M_FULL:
		return (uint32_t)(g->xcr0 & 0xe7); /* x87, SSE, AVX, opmask, ZMM_Hi256, Hi16_ZMM */
	default:
		return 0;
	}
}

/*
 * A new task of kind @k in slot @id (0: the next new id; an exited task's id
 * is reused by the task that replaces it, as the trace format allows).
 */
static unsigned int spawn(struct gen *g, uint8_t k, unsigned int id)
{
	const struct kind *kd = &g->w->kinds[k];

	if (!id && g->ntasks + 1 >= g->cap_tasks) {
		uint32_t cap = g->cap_tasks * 2 + 16;
		struct task *p = realloc(g->tasks, cap * sizeof(*p));
		if (!p) {
			g->oom = true;
			return 0;
		}
		g->tasks = p;
		g->cap_tasks = cap;
	}
	if (!id)
		id = ++g->ntasks;
	uint32_t life = 0;
	if (kd->life_max)
		life = kd->life_min + (uint32_t)(rnd(g) % (kd->life_max - kd->life_min + 1u));
	g->tasks[id] = (struct task){
		.kind = k, .alive = true, .running_on = -1, .last_cpu = -1, .life = life
	};
	return id;
}

static bool can_run(const struct gen *g, unsigned int id, unsigned int cpu)
{
	const struct task *tk = &g->tasks[id];
	int pin = g->w->kinds[tk->kind].pin;
	return tk->alive && tk->running_on < 0 && (pin < 0 || pin == (int)cpu);
}

/* The next task for @cpu after @prev (0: idle or a kernel thread). */
static unsigned int pick_next(struct gen *g, unsigned int cpu, unsigned int prev)
{
	unsigned int cand[64], n = 0;

	if (g->w->pick == PICK_ALT_IDLE && prev)
		return 0;
	if (g->w->pick == PICK_RANDOM && chance(g, g->w->p_idle))
		return 0;
	for (unsigned int id = 1; id <= g->ntasks && n < 64; id++)
		if (id != prev && can_run(g, id, cpu))
			cand[n++] = id;
	if (!n)
		return 0;
	return cand[rnd(g) % n];
}

/* What the task (or kernel thread, @next 0) does in the slice just switched in. */
static void slice(struct gen *g, unsigned int cpu, unsigned int next, bool *nouser)
{
	if (!next) {
		if (chance(g, g->w->p_idle_kfpu)) {
			emit(g, FPULAB_EV_KFPU_BEGIN, cpu, 0, 0, 0, 0);
			emit(g, FPULAB_EV_KFPU_END, cpu, 0, 0, 0, 0);
		}
		return;
	}
	const struct kind *kd = &g->w->kinds[g->tasks[next].kind];
	uint32_t mask = mask_of(g, kd->mask);
	if (*nouser)
		return;
	if (chance(g, kd->p_use))
		emit(g, FPULAB_EV_USE, cpu, next, 0, 0, mask);
	if (chance(g, kd->p_kfpu)) {
		emit(g, FPULAB_EV_KFPU_BEGIN, cpu, next, 0, 0, 0);
		emit(g, FPULAB_EV_KFPU_END, cpu, next, 0, 0, 0);
		if (chance(g, kd->p_use_after_kfpu))
			emit(g, FPULAB_EV_USE, cpu, next, 0, 0, mask);
	}
	if (chance(g, kd->p_export)) { /* a signal: delivery, the handler, sigreturn */
		emit(g, FPULAB_EV_EXPORT, cpu, next, 0, 0, 0);
		emit(g, FPULAB_EV_RESET, cpu, next, 0, 0, 0);
		emit(g, FPULAB_EV_IMPORT, cpu, next, 0, FPULAB_EVF_SIGFRAME, mask);
	}
}

static void do_switch(struct gen *g, unsigned int cpu, unsigned int next)
{
	unsigned int prev = g->cur[cpu];
	bool nouser = false;

	if (prev) {
		struct task *p = &g->tasks[prev];
		p->running_on = -1;
		p->slices++;
		if (p->life && p->slices >= p->life) {
			emit(g, FPULAB_EV_EXIT, cpu, prev, 0, 0, 0);
			p->alive = false;
			spawn(g, p->kind, prev);
			prev = 0;
			if (next == g->cur[cpu])
				next = 0;
		}
	}
	if (next) {
		struct task *n = &g->tasks[next];
		if (n->last_cpu >= 0 && n->last_cpu != (int)cpu)
			emit(g, FPULAB_EV_MIGRATE, (unsigned int)n->last_cpu, next, cpu, 0, 0);
		n->running_on = (int)cpu;
		n->last_cpu = (int)cpu;
		nouser = chance(g, g->w->kinds[n->kind].p_nouser);
	}
	emit(g, FPULAB_EV_SWITCH, cpu, prev, next, nouser ? FPULAB_EVF_NO_USER : 0, 0);
	g->cur[cpu] = (uint16_t)next;
	slice(g, cpu, next, &nouser);
}

/* Round trip r: task 1 on CPU r%2, task 2 on the other; both go through idle to swap. */
static void migrating_round(struct gen *g, uint64_t r)
{
	do_switch(g, 0, 0);
	do_switch(g, 1, 0);
	do_switch(g, 0, r % 2 ? 1 : 2);
	do_switch(g, 1, r % 2 ? 2 : 1);
}

int trace_synth(const char *name, uint64_t switches, uint64_t seed, uint64_t xcr0, struct trace *t,
		char *err, size_t errlen)
{
	const struct workload *w = workload_by_name(name);
	struct gen g = { .w = w, .t = t, .rng = seed * 0x9E3779B97F4A7C15ull + 1, .xcr0 = xcr0 };
	uint64_t nsw = 0;

	memset(t, 0, sizeof(*t));
	if (!w) {
		snprintf(err, errlen, "no workload '%s'", name);
		return -1;
	}
	for (uint8_t k = 0; k < MAX_KINDS; k++)
		for (unsigned int i = 0; i < w->count[k]; i++)
			spawn(&g, k, 0);
	while (nsw < switches && !g.oom) {
		if (w->pick == PICK_MIGRATING) {
			migrating_round(&g, nsw / 4);
			nsw += 4;
			continue;
		}
		unsigned int cpu = w->ncpus > 1 ? (unsigned int)(rnd(&g) % w->ncpus) : 0;
		do_switch(&g, cpu, pick_next(&g, cpu, g.cur[cpu]));
		nsw++;
	}
	free(g.tasks);
	if (g.oom) {
		trace_free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memcpy(t->hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t->hdr.version = FPULAB_TRACE_VERSION;
	t->hdr.header_size = sizeof(t->hdr);
	t->hdr.event_size = sizeof(struct fpulab_trace_event);
	t->hdr.ncpus = w->ncpus;
	t->hdr.ntasks = g.ntasks;
	t->hdr.flags = FPULAB_TRACE_F_SYNTHETIC | FPULAB_TRACE_F_ALL_USES;
	t->hdr.xcr0 = xcr0;
	snprintf(t->hdr.workload, sizeof(t->hdr.workload), "%s", workload_name(w));
	return 0;
}
