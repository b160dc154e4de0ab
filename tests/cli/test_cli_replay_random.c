/* SPDX-License-Identifier: MIT */
/*
 * Random valid traces replayed under every policy: no integrity error, the
 * same counts run after run, and a floor (bare) run that matches its log.
 * Each trace mixes every event kind a trace may hold (switches with and
 * without a return to ring 3, uses, kernel-FPU sections, announced moves,
 * exits and new tasks in exited ones' ids, exports, imports and resets of
 * running and stopped tasks), on 1 to 4 CPUs, with and without placed
 * returns; trace_check() accepts each. A fixed list of seeds (150, 1000
 * events each: about 2 s): the same traces every time. Both bugs it was written after failed it: an export of
 * the running task losing what the task wrote after it (lib/core.c), and a
 * run starting with libfpu taking the last run's task for running.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

#include "replay/replay_engine.h"
#include "trace/trace_io.h"

#define MAX_TASKS 12
#define MAX_CPUS 4
#define SEEDS 150
#define EVENTS 1000

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)((rng >> 16) % n);
}

/* What the generator knows of the trace so far, beyond what the checker checks. */
struct gen {
	struct trace *t;
	struct trace_checker *k;
	bool returns;
	int cur[MAX_CPUS], running_on[MAX_TASKS + 1];
	bool in_kfpu[MAX_CPUS], in_user[MAX_CPUS], no_user[MAX_CPUS];
	uint32_t seq;
};

/* Append @e if the checker takes it; then what it changes. */
static bool emit(struct gen *g, struct fpulab_trace_event e)
{
	char err[256];
	unsigned int c = e.cpu;

	e.seq = ++g->seq;
	if (trace_checker_event(g->k, &e, g->t->hdr.nevents, err, sizeof(err)))
		return false;
	g->t->ev[g->t->hdr.nevents++] = e;
	if (e.flags & FPULAB_EVF_RETURNED)
		g->in_user[c] = true;
	if (e.type == FPULAB_EV_SWITCH) {
		if (e.task)
			g->running_on[e.task] = -1;
		g->cur[c] = e.arg;
		if (e.arg)
			g->running_on[e.arg] = (int)c;
		g->in_user[c] = false;
		g->no_user[c] = e.flags & FPULAB_EVF_NO_USER;
	} else if (e.type == FPULAB_EV_KFPU_BEGIN || e.type == FPULAB_EV_KFPU_END) {
		g->in_kfpu[c] = e.type == FPULAB_EV_KFPU_BEGIN;
		g->in_user[c] = false;
	} else if (e.type == FPULAB_EV_EXIT) {
		g->running_on[e.task] = -1;
		g->cur[c] = 0;
	} else if (e.type == FPULAB_EV_EXPORT || e.type == FPULAB_EV_IMPORT ||
		   e.type == FPULAB_EV_RESET) {
		if (e.task == g->cur[c])
			g->in_user[c] = false; /* a syscall of its own */
	}
	return true;
}

/* One random event on CPU @c (its type and task only; emit() may refuse it). */
static struct fpulab_trace_event propose(struct gen *g, unsigned int c)
{
	struct fpulab_trace_event e = { .cpu = (uint8_t)c, .task = (uint16_t)g->cur[c] };
	unsigned int r = rnd(100), ntasks = g->t->hdr.ntasks;

	if (r < 30) {
		e.type = FPULAB_EV_SWITCH;
		e.arg = rnd(10) ? (uint16_t)(1 + rnd(ntasks)) : 0;
		e.flags = rnd(10) ? 0 : FPULAB_EVF_NO_USER;
	} else if (r < 60) {
		e.type = FPULAB_EV_USE;
		e.mask = 1 + rnd(7);
		if (g->returns && !g->in_user[c])
			e.flags = FPULAB_EVF_RETURNED; /* ring 3 first */
	} else if (r < 70) {
		e.type = g->in_kfpu[c] ? FPULAB_EV_KFPU_END : FPULAB_EV_KFPU_BEGIN;
	} else if (r < 73) {
		e.type = FPULAB_EV_EXIT;
	} else if (r < 78) {
		e.type = FPULAB_EV_MIGRATE;
		e.arg = (uint16_t)rnd(g->t->hdr.ncpus);
	} else if (r < 95) {
		static const uint8_t io[] = { FPULAB_EV_EXPORT, FPULAB_EV_IMPORT, FPULAB_EV_RESET };
		e.type = io[rnd(3)];
		e.task = (uint16_t)(1 + rnd(ntasks));
		if (e.type == FPULAB_EV_IMPORT) {
			e.mask = rnd(8);
			e.flags = rnd(2) ? FPULAB_EVF_SIGFRAME : 0;
		}
	} else {
		e.type = FPULAB_EV_FLUSH_IPI;
		e.task = 0;
	}
	if (g->returns && e.type != FPULAB_EV_FLUSH_IPI && rnd(3) == 0)
		e.flags |= FPULAB_EVF_RETURNED; /* the task was back in ring 3 since */
	return e;
}

/* Whether @e keeps to what replay assumes beyond the checker's rules. */
static bool plausible(const struct gen *g, const struct fpulab_trace_event *e)
{
	unsigned int c = e->cpu;

	if ((e->flags & FPULAB_EVF_RETURNED) && (!g->cur[c] || g->no_user[c] || g->in_kfpu[c]))
		return false; /* only a task that goes to ring 3 returns there */
	if (e->type == FPULAB_EV_USE)
		return !g->no_user[c] &&
		       (!g->returns || g->in_user[c] || (e->flags & FPULAB_EVF_RETURNED));
	if (e->type == FPULAB_EV_SWITCH || e->type == FPULAB_EV_EXIT)
		return !g->in_kfpu[c];
	return true;
}

static void random_trace(uint64_t seed, struct trace *t)
{
	char err[256];
	struct gen g = { .t = t };

	rng = seed * 0x9e3779b97f4a7c15ull + 1;
	*t = (struct trace){ 0 };
	memcpy(t->hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t->hdr.version = FPULAB_TRACE_VERSION;
	t->hdr.header_size = (uint16_t)trace_header_size(FPULAB_TRACE_VERSION);
	t->hdr.event_size = sizeof(struct fpulab_trace_event);
	t->hdr.ncpus = (uint16_t)(1 + rnd(MAX_CPUS));
	t->hdr.ntasks = 2 + rnd(MAX_TASKS - 1);
	g.returns = rnd(2);
	t->hdr.flags = FPULAB_TRACE_F_SYNTHETIC | (g.returns ? FPULAB_TRACE_F_RETURNS : 0);
	t->hdr.xcr0 = 0x7;
	strcpy(t->hdr.workload, "random");
	t->ev = calloc(EVENTS + MAX_CPUS, sizeof(*t->ev));
	assert_non_null(t->ev);
	g.k = trace_checker_new(&t->hdr, NULL, err, sizeof(err));
	assert_non_null(g.k);
	for (unsigned int i = 0; i <= MAX_TASKS; i++)
		g.running_on[i] = -1;
	while (t->hdr.nevents < EVENTS) {
		struct fpulab_trace_event e = propose(&g, rnd(t->hdr.ncpus));
		if (plausible(&g, &e))
			emit(&g, e);
	}
	for (unsigned int c = 0; c < t->hdr.ncpus; c++) /* no section left open */
		if (g.in_kfpu[c])
			assert_true(emit(
				&g, (struct fpulab_trace_event){ .type = FPULAB_EV_KFPU_END,
								 .cpu = (uint8_t)c,
								 .task = (uint16_t)g.cur[c] }));
	trace_checker_free(g.k);
	if (trace_check(t, err, sizeof(err)))
		fail_msg("seed %llu: %s", (unsigned long long)seed, err);
}

/* @seed's trace under every policy with save instruction @insn. */
static void replay_all(uint64_t seed, int insn)
{
	struct trace t;
	const char *const *pols = fpu_policy_names();

	random_trace(seed, &t);
	struct replay *rp = replay_new(&t, insn);
	assert_non_null(rp);
	for (int p = 0; pols[p]; p++) {
		struct replay_result a = { 0 }, b = { 0 }, bare = { 0 };
		struct replay_log *log = replay_log_new(&t);
		assert_non_null(log);
		assert_int_equal(replay_run(rp, pols[p], &a), 0);
		assert_int_equal(replay_record(rp, pols[p], log, &b), 0);
		assert_int_equal(replay_bare(rp, log, false, &bare), 0);
		bool differ = memcmp(&a.n, &b.n, sizeof(a.n));
		if (a.n.integrity_errors || differ || bare.n.integrity_errors || bare.desync)
			fail_msg(
				"seed %llu, %s, %s: %llu integrity errors (the first at event %llu: "
				"task %u, cpu %u, %s), counts %s from run to run, floor run %llu "
				"integrity errors and %llu calls unmatched",
				(unsigned long long)seed, fpu_insn_name(xstate_cfg.save_insn),
				pols[p], (unsigned long long)a.n.integrity_errors,
				(unsigned long long)a.first.event, a.first.task, a.first.cpu,
				a.n.integrity_errors ? replay_component_name(a.first.component)
						     : "-",
				differ ? "differ" : "the same",
				(unsigned long long)bare.n.integrity_errors,
				(unsigned long long)bare.desync);
		replay_log_free(log);
	}
	replay_free(rp);
	trace_free(&t);
}

static void test_random_traces(void **state)
{
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		replay_all(seed, FPU_INSN_AUTO);
}

/* XSAVEOPT's modified optimization, where the CPU has it. */
static void test_random_traces_xsaveopt(void **state)
{
	if (!xstate_cfg.caps.xsaveopt)
		skip();
	for (uint64_t seed = 1; seed <= SEEDS; seed++)
		replay_all(seed, FPU_INSN_XSAVEOPT);
}

int main(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_traces),
		cmocka_unit_test(test_random_traces_xsaveopt),
	};
	if (xstate_init(&o) || !xstate_cfg.caps.xsave) {
		printf("1..0 # SKIP no XSAVE on this CPU\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
