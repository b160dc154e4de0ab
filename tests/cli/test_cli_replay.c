/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay's engine: exact counts on small traces, the same counts on
 * a second replay, no integrity errors, and no policy below the oracle on
 * any workload (docs/model.md). Counts only: timings are not asserted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

#include "replay/oracle.h"
#include "replay/replay_engine.h"
#include "trace/trace_io.h"

static struct replay_result run(struct replay *rp, const char *policy, uint64_t switches)
{
	struct replay_result r = { 0 };
	r.skip_hist = calloc(REPLAY_SKIP_HIST, sizeof(*r.skip_hist));
	assert_non_null(r.skip_hist);
	assert_int_equal(replay_run(rp, policy, &r), 0);
	uint64_t counted = 0;
	for (size_t t = 0; t < REPLAY_SKIP_HIST; t++)
		counted += r.skip_hist[t];
	assert_int_equal(counted, r.nskip); /* every skipped-restore switch, by its ticks */
	free(r.skip_hist);
	r.skip_hist = NULL;
	return r;
}

static struct replay *setup(const char *workload, uint64_t switches, struct trace *t)
{
	char err[256];
	assert_int_equal(trace_synth(workload, switches, 5, 0x7, t, err, sizeof(err)), 0);
	struct replay *rp = replay_new(t, FPU_INSN_AUTO);
	assert_non_null(rp);
	return rp;
}

/* pingpong-both: every policy saves and restores at every switch; lazy traps at each. */
static void test_exact_pingpong_both(void **state)
{
	struct trace t;
	struct replay *rp = setup("pingpong-both", 100, &t);
	struct replay_result r;

	r = run(rp, "eager", 100);
	assert_int_equal(r.n.switches, 100);
	assert_int_equal(r.n.nm_traps, 0);
	assert_int_equal(r.n.saves, 99); /* every switch but the first saves the live task */
	assert_int_equal(r.n.restores, 100);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "lazy", 100);
	assert_int_equal(r.n.nm_traps, 100);
	assert_int_equal(r.n.ts_writes, 200); /* set at switch, cleared at the trap */
	assert_int_equal(r.n.saves, 99);
	assert_int_equal(r.n.restores, 100);
	assert_int_equal(r.n.integrity_errors, 0);
	replay_free(rp);
	trace_free(&t);
}

/* pingpong-one: owner and smp-lazy restore once and skip the other 49 loads. */
static void test_exact_pingpong_one(void **state)
{
	struct trace t;
	struct replay *rp = setup("pingpong-one", 100, &t);
	struct replay_result r;

	r = run(rp, "owner", 100);
	assert_int_equal(r.n.restores, 1);
	assert_int_equal(r.n.restores_skipped, 49);
	assert_int_equal(r.n.nm_traps, 1);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "smp-lazy", 100);
	assert_int_equal(r.n.restores, 1);
	assert_int_equal(r.n.saves, 0);
	assert_int_equal(r.n.restores_skipped, 49);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "lazy", 100);
	assert_int_equal(r.n.nm_traps, 50);
	assert_int_equal(r.n.restores, 1);
	replay_free(rp);
	trace_free(&t);
}

/* adaptive decides by the costs it is given: free traps make it lazy, dear ones eager. */
static void test_adaptive_costs(void **state)
{
	struct trace t;
	struct replay *rp = setup("pingpong-both", 200, &t);
	struct fpu_costs saved, c;
	struct replay_result r;

	fpu_get_costs(&saved);
	c = saved;
	c.trap_ns = 0;
	c.cr0_ns = 0;
	fpu_set_costs(&c);
	fpu_get_costs(&c);
	assert_int_equal(c.trap_ns, 0);
	r = run(rp, "adaptive", 200);
	assert_int_equal(r.n.nm_traps, 200); /* never cheaper to load early */
	assert_int_equal(r.n.integrity_errors, 0);
	c.trap_ns = 100000;
	c.cr0_ns = 30;
	fpu_set_costs(&c);
	r = run(rp, "adaptive", 200);
	/*
	 * Each task's first slice only (watched: the CPU had watched fewer
	 * than 2 newcomers before it); a sample would cost a trap of 100 us to spare a restore and a
	 * save, so none falls in 200 switches
	 */
	assert_int_equal(r.n.nm_traps, 2);
	assert_int_equal(r.n.restores, 200);
	assert_int_equal(r.n.integrity_errors, 0);
	fpu_set_costs(&saved);
	replay_free(rp);
	trace_free(&t);
}

static struct fpulab_trace_event tev(unsigned int type, unsigned int task, unsigned int arg,
				     unsigned int flags, uint32_t mask)
{
	return (struct fpulab_trace_event){ .type = (uint8_t)type,
					    .task = (uint16_t)task,
					    .arg = (uint16_t)arg,
					    .flags = (uint16_t)flags,
					    .mask = mask };
}

/* @t over the @n hand-made events @e: a valid header, sequence numbers, checked. */
static void hand_trace(struct trace *t, struct fpulab_trace_event *e, unsigned int n,
		       unsigned int ncpus, unsigned int ntasks, uint32_t flags)
{
	char err[256];

	*t = (struct trace){ .ev = e };
	memcpy(t->hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t->hdr.version = FPULAB_TRACE_VERSION;
	t->hdr.header_size = 64;
	t->hdr.event_size = 16;
	t->hdr.ncpus = ncpus;
	t->hdr.ntasks = ntasks;
	t->hdr.nevents = n;
	t->hdr.xcr0 = 7;
	t->hdr.flags = flags;
	for (unsigned int i = 0; i < n; i++)
		e[i].seq = i + 1;
	if (trace_check(t, err, sizeof(err)))
		fail_msg("%s", err);
}

/*
 * Every run starts with no task running on any CPU, for libfpu too: this
 * trace imports task 1's state on CPU 0 before anything runs there, and
 * ends with task 1 running on CPU 0. A run that started with libfpu still
 * taking the last run's task for CPU 0's (eager reloads a running task at
 * an import) left CPU 0 holding task 1's imported state live, saved it over
 * task 1's later work at CPU 0's next switch, and task 1 then found its
 * old registers: an integrity error in every run but the first.
 */
static void test_runs_start_clean(void **state)
{
	struct fpulab_trace_event e[] = {
		tev(FPULAB_EV_IMPORT, 1, 0, 0, 0x3), tev(FPULAB_EV_SWITCH, 0, 1, 0, 0),
		tev(FPULAB_EV_USE, 1, 0, 0, 0x3),    tev(FPULAB_EV_SWITCH, 1, 0, 0, 0),
		tev(FPULAB_EV_SWITCH, 0, 2, 0, 0),   tev(FPULAB_EV_USE, 2, 0, 0, 0x3),
		tev(FPULAB_EV_SWITCH, 2, 1, 0, 0),   tev(FPULAB_EV_USE, 1, 0, 0, 0x3),
	};
	struct trace t;
	const char *const *pols = fpu_policy_names();

	for (unsigned int i = 1; i <= 3; i++)
		e[i].cpu = 1; /* task 1 runs on CPU 1 first */
	hand_trace(&t, e, sizeof(e) / sizeof(e[0]), 2, 2, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	for (int p = 0; pols[p]; p++) {
		struct replay_result first = run(rp, pols[p], 4);
		for (int k = 0; k < 3; k++) {
			struct replay_result r = run(rp, pols[p], 4);
			if (r.n.integrity_errors || memcmp(&r.n, &first.n, sizeof(r.n)))
				fail_msg("%s, run %d: %lu integrity errors, counts %s run 1's",
					 pols[p], k + 2, (unsigned long)r.n.integrity_errors,
					 memcmp(&r.n, &first.n, sizeof(r.n)) ? "unlike" : "as");
		}
		assert_int_equal(first.n.integrity_errors, 0);
	}
	replay_free(rp);
}

/*
 * An export of the running task with no reset after it (its own state
 * read from a syscall), then more FPU work in the same slice: its
 * switch-out saves that work, under every policy, on one CPU (another task
 * loads in between) and across two (a move); eager's counts by hand.
 */
static void test_export_then_use(void **state)
{
	struct fpulab_trace_event e[] = {
		tev(FPULAB_EV_SWITCH, 0, 1, 0, 0),  tev(FPULAB_EV_USE, 1, 0, 0, 0x3),
		tev(FPULAB_EV_EXPORT, 1, 0, 0, 0),  tev(FPULAB_EV_USE, 1, 0, 0, 0x3),
		tev(FPULAB_EV_SWITCH, 1, 2, 0, 0),  tev(FPULAB_EV_USE, 2, 0, 0, 0x7),
		tev(FPULAB_EV_SWITCH, 2, 1, 0, 0),  tev(FPULAB_EV_USE, 1, 0, 0, 0x2),
		tev(FPULAB_EV_EXPORT, 1, 0, 0, 0),  tev(FPULAB_EV_USE, 1, 0, 0, 0x3),
		tev(FPULAB_EV_MIGRATE, 1, 1, 0, 0), tev(FPULAB_EV_SWITCH, 1, 0, 0, 0),
		tev(FPULAB_EV_SWITCH, 0, 1, 0, 0),  tev(FPULAB_EV_USE, 1, 0, 0, 0x1),
	};
	struct trace t;
	const char *const *pols = fpu_policy_names();
	struct replay_result r;

	e[12].cpu = 1; /* the move: switched in on CPU 1 */
	e[13].cpu = 1;
	hand_trace(&t, e, sizeof(e) / sizeof(e[0]), 2, 2, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "eager", 5);
	assert_int_equal(r.n.switches, 5);
	assert_int_equal(r.n.restores, 4);
	/* two exports, and the three switches away from a task with live registers */
	assert_int_equal(r.n.saves, 5);
	assert_int_equal(r.n.integrity_errors, 0);
	for (int p = 0; pols[p]; p++) {
		r = run(rp, pols[p], 5);
		if (r.n.integrity_errors)
			fail_msg("%s: %lu integrity errors after an export of the running task",
				 pols[p], (unsigned long)r.n.integrity_errors);
	}
	replay_free(rp);
}

/*
 * Imports and resets (trace version 2): a sigreturn into the running task,
 * a ptrace write into a switched-out one, a reset. Every use after them
 * finds exactly what was installed, under every policy; lazy's counts by
 * hand: each replaces the registers' claim, so the next use traps and
 * restores, and a live state is saved first.
 */
static void test_import_reset(void **state)
{
	struct fpulab_trace_event e[] = {
		tev(FPULAB_EV_SWITCH, 0, 1, 0, 0),
		tev(FPULAB_EV_USE, 1, 0, 0, 0x3),
		tev(FPULAB_EV_IMPORT, 1, 0, FPULAB_EVF_SIGFRAME, 0x7),
		tev(FPULAB_EV_USE, 1, 0, 0, 0x1),
		tev(FPULAB_EV_SWITCH, 1, 2, 0, 0),
		tev(FPULAB_EV_USE, 2, 0, 0, 0x7),
		tev(FPULAB_EV_IMPORT, 1, 0, 0, 0x3),
		tev(FPULAB_EV_SWITCH, 2, 1, 0, 0),
		tev(FPULAB_EV_USE, 1, 0, 0, 0x1),
		tev(FPULAB_EV_RESET, 1, 0, 0, 0),
		tev(FPULAB_EV_USE, 1, 0, 0, 0x2),
	};
	struct trace t;
	const char *const *pols;
	struct replay_result r;
	char err[256];

	hand_trace(&t, e, sizeof(e) / sizeof(e[0]), 1, 2, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "lazy", 3);
	assert_int_equal(r.n.switches, 3);
	assert_int_equal(r.n.nm_traps, 5);
	assert_int_equal(r.n.restores, 5);
	assert_int_equal(r.n.saves, 4);
	assert_int_equal(r.n.ts_writes, 10);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "eager", 3);
	assert_int_equal(r.n.nm_traps, 0);
	assert_int_equal(r.n.integrity_errors, 0);
	pols = fpu_policy_names();
	for (int p = 0; pols[p]; p++) {
		r = run(rp, pols[p], 3);
		if (r.n.integrity_errors)
			fail_msg("%s: %lu integrity errors after an import or reset", pols[p],
				 (unsigned long)r.n.integrity_errors);
	}
	replay_free(rp);

	/* build's signals (export, reset, sigframe import): correct and above the oracle */
	struct trace b;
	struct oracle_counts oc;
	uint64_t imports = 0;
	assert_int_equal(trace_synth("build", 3000, 1, 0x7, &b, err, sizeof(err)), 0);
	for (uint64_t i = 0; i < b.hdr.nevents; i++)
		imports += b.ev[i].type == FPULAB_EV_IMPORT;
	assert_true(imports >= 3);
	assert_int_equal(oracle_run(&b, &oc), 0);
	rp = replay_new(&b, FPU_INSN_AUTO);
	assert_non_null(rp);
	for (int p = 0; pols[p]; p++) {
		r = run(rp, pols[p], oc.switches);
		if (r.n.integrity_errors || r.n.saves < oc.saves || r.n.restores < oc.restores)
			fail_msg(
				"build under %s: integrity %lu, saves %lu (oracle %lu), restores %lu "
				"(oracle %lu)",
				pols[p], (unsigned long)r.n.integrity_errors,
				(unsigned long)r.n.saves, (unsigned long)oc.saves,
				(unsigned long)r.n.restores, (unsigned long)oc.restores);
	}
	replay_free(rp);
	trace_free(&b);
}

/*
 * A trace that places the returns to ring 3 (FPULAB_TRACE_F_RETURNS, as
 * the lab records): deferred loads where the task really returns. Here it
 * is switched in, reset before it returns (a signal delivered after a
 * preemption), and returns at its use: one load, no save. Without the
 * returns, replay assumes a return right after the switch and after the
 * reset: a load, the reset's save of it, a second load.
 */
/* tev() on CPU @cpu. */
static struct fpulab_trace_event tev_on(unsigned int cpu, unsigned int type, unsigned int task,
					unsigned int arg, uint32_t mask)
{
	struct fpulab_trace_event e = tev(type, task, arg, 0, mask);
	e.cpu = (uint8_t)cpu;
	return e;
}

/*
 * adaptive holds a task's live registers at switch-out; the task runs on
 * CPU 1 next (unannounced) without using the FPU, and back on CPU 0 finds
 * them still there: no flush IPI, a skipped restore (smp-lazy sends the IPI
 * at the switch-in on CPU 1). If it does use the FPU on CPU 1, its #NM has
 * the state flushed: one IPI, and the registers are right.
 */
static void test_adaptive_flush_at_use(void **state)
{
	struct fpulab_trace_event e[] = {
		tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0), tev_on(0, FPULAB_EV_USE, 1, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 1, 0, 0), tev_on(1, FPULAB_EV_SWITCH, 0, 1, 0),
		tev_on(1, FPULAB_EV_SWITCH, 1, 0, 0), tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0),
		tev_on(0, FPULAB_EV_USE, 1, 0, 0x3),
	};
	struct trace t;
	struct replay_result r;

	hand_trace(&t, e, 7, 2, 1, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "adaptive", 5);
	assert_int_equal(r.n.flush_ipis, 0);
	assert_int_equal(r.n.nm_traps, 1); /* its first use: a newcomer is watched */
	assert_int_equal(r.n.restores, 1);
	assert_int_equal(r.n.restores_skipped, 1);
	assert_int_equal(r.n.saves, 0);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "smp-lazy", 5);
	assert_int_equal(r.n.flush_ipis, 1);
	replay_free(rp);

	e[4] = tev_on(1, FPULAB_EV_USE, 1, 0, 0x3); /* it uses the FPU on CPU 1 */
	e[5] = tev_on(1, FPULAB_EV_SWITCH, 1, 0, 0);
	e[6] = tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0);
	hand_trace(&t, e, 7, 2, 1, 0);
	rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "adaptive", 4);
	assert_int_equal(r.n.flush_ipis, 1);
	assert_int_equal(r.n.nm_traps, 2);
	assert_int_equal(r.n.saves, 2);    /* the flush; then, moved lately, saved at switch-out */
	assert_int_equal(r.n.restores, 3); /* back on CPU 0, a use in every slice: given */
	assert_int_equal(r.n.integrity_errors, 0);
	replay_free(rp);
}

/*
 * A flush IPI costs the CPU that held the state: on CPU 0 task 1 is held
 * unsaved after its slice, and an export of it from CPU 1 sends the IPI.
 * CPU 0's holding is then an IPI behind (struct fpu_cpu.hold_gain), so task
 * 3 is saved at its switch-out there, and its export from CPU 1 needs no
 * IPI (two before).
 */
static void test_adaptive_holding_pays(void **state)
{
	struct fpulab_trace_event e[] = {
		tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0), tev_on(0, FPULAB_EV_USE, 1, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 1, 0, 0), tev_on(1, FPULAB_EV_SWITCH, 0, 2, 0),
		tev_on(1, FPULAB_EV_EXPORT, 1, 0, 0), tev_on(0, FPULAB_EV_SWITCH, 0, 3, 0),
		tev_on(0, FPULAB_EV_USE, 3, 0, 0x3),  tev_on(0, FPULAB_EV_SWITCH, 3, 0, 0),
		tev_on(1, FPULAB_EV_EXPORT, 3, 0, 0), tev_on(1, FPULAB_EV_SWITCH, 2, 0, 0),
	};
	struct trace t;
	struct replay_result r;

	hand_trace(&t, e, 10, 2, 3, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "adaptive", 6);
	assert_int_equal(r.n.flush_ipis, 1);
	assert_int_equal(r.n.saves, 2); /* task 1's flush, task 3's switch-out */
	assert_int_equal(r.n.integrity_errors, 0);
	r = run(rp, "smp-lazy", 6);
	assert_int_equal(r.n.flush_ipis, 2);
	replay_free(rp);
}

/*
 * A newcomer is watched until 2 were watched (ADAPT_MIN_NEWCOMERS), on any
 * CPU (one prior for all): three new tasks, each using the FPU at once;
 * the first two trap, the third is judged by their prior (both used it)
 * and given its registers at the default costs (a 100 ns restore against a
 * 150 ns trap). The same with the second task on another CPU.
 */
static void test_adaptive_newcomers(void **state)
{
	struct fpulab_trace_event e[] = {
		tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0), tev_on(0, FPULAB_EV_USE, 1, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 1, 2, 0), tev_on(0, FPULAB_EV_USE, 2, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 2, 3, 0), tev_on(0, FPULAB_EV_USE, 3, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 3, 0, 0),
	};
	struct fpu_costs saved, c = { FPU_DEFAULT_TRAP_NS, FPU_DEFAULT_CR0_NS, FPU_DEFAULT_IPI_NS,
				      FPU_DEFAULT_SAVE_NS, FPU_DEFAULT_RESTORE_NS };
	struct trace t;
	struct replay_result r;

	hand_trace(&t, e, 7, 1, 3, 0);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	fpu_get_costs(&saved);
	fpu_set_costs(&c);
	r = run(rp, "adaptive", 4);
	assert_int_equal(r.n.nm_traps, 2);
	assert_int_equal(r.n.restores, 3);
	assert_int_equal(r.n.integrity_errors, 0);
	replay_free(rp);

	struct fpulab_trace_event e2[] = {
		tev_on(0, FPULAB_EV_SWITCH, 0, 1, 0), tev_on(0, FPULAB_EV_USE, 1, 0, 0x3),
		tev_on(1, FPULAB_EV_SWITCH, 0, 2, 0), tev_on(1, FPULAB_EV_USE, 2, 0, 0x3),
		tev_on(1, FPULAB_EV_SWITCH, 2, 0, 0), /* its slice is recorded at its switch-out */
		tev_on(0, FPULAB_EV_SWITCH, 1, 3, 0), tev_on(0, FPULAB_EV_USE, 3, 0, 0x3),
		tev_on(0, FPULAB_EV_SWITCH, 3, 0, 0),
	};
	hand_trace(&t, e2, 8, 2, 3, 0);
	rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "adaptive", 5);
	assert_int_equal(r.n.nm_traps, 2); /* task 3, new on CPU 0, judged by tasks 1 and 2 */
	assert_int_equal(r.n.restores, 3);
	assert_int_equal(r.n.integrity_errors, 0);
	fpu_set_costs(&saved);
	replay_free(rp);
}

static void test_returns(void **state)
{
	struct fpulab_trace_event e[] = {
		tev(FPULAB_EV_SWITCH, 0, 1, 0, 0),
		tev(FPULAB_EV_RESET, 1, 0, 0, 0),
		tev(FPULAB_EV_USE, 1, 0, FPULAB_EVF_RETURNED, 0x3),
	};
	struct trace t;
	struct replay_result r;

	hand_trace(&t, e, 3, 1, 1, FPULAB_TRACE_F_RETURNS);
	struct replay *rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "deferred", 1);
	assert_int_equal(r.n.restores, 1);
	assert_int_equal(r.n.saves, 0);
	assert_int_equal(r.n.integrity_errors, 0);
	replay_free(rp);

	t.hdr.flags = 0;
	e[2].flags = 0;
	rp = replay_new(&t, FPU_INSN_AUTO);
	assert_non_null(rp);
	r = run(rp, "deferred", 1);
	assert_int_equal(r.n.restores, 2);
	assert_int_equal(r.n.saves, 1);
	assert_int_equal(r.n.integrity_errors, 0);
	replay_free(rp);
}

/* Every workload, every policy: no integrity error, the same counts twice,
 * never less work than the oracle. */
static void test_oracle_bound(void **state)
{
	for (int w = 0; trace_workloads()[w]; w++) {
		struct trace t;
		struct oracle_counts oc;
		struct replay *rp = setup(trace_workloads()[w], 400, &t);
		const char *const *pols = fpu_policy_names();

		assert_int_equal(oracle_run(&t, &oc), 0);
		for (int p = 0; pols[p]; p++) {
			struct replay_result a = run(rp, pols[p], oc.switches);
			struct replay_result b = run(rp, pols[p], oc.switches);
			if (a.n.integrity_errors || memcmp(&a.n, &b.n, sizeof(a.n)) ||
			    a.n.saves < oc.saves || a.n.restores < oc.restores)
				fail_msg(
					"%s under %s: integrity %lu, saves %lu (oracle %lu), restores "
					"%lu (oracle %lu), counts %s",
					trace_workloads()[w], pols[p],
					(unsigned long)a.n.integrity_errors,
					(unsigned long)a.n.saves, (unsigned long)oc.saves,
					(unsigned long)a.n.restores, (unsigned long)oc.restores,
					memcmp(&a.n, &b.n, sizeof(a.n)) ? "differ" : "equal");
			assert_int_equal(a.n.switches, oc.switches);
		}
		replay_free(rp);
		trace_free(&t);
	}
}

/*
 * The floor: a policy's logged saves and restores, replayed bare (and with
 * empty timed regions, and with an empty call in each), match its counts exactly and leave every task's
 * registers right at each use, on every workload under every policy.
 */
static void test_floor_log(void **state)
{
	for (int w = 0; trace_workloads()[w]; w++) {
		struct trace t;
		struct replay *rp = setup(trace_workloads()[w], 400, &t);
		const char *const *pols = fpu_policy_names();
		struct replay_log *log = replay_log_new(&t);

		assert_non_null(log);
		for (int p = 0; pols[p]; p++) {
			struct replay_result a = { 0 }, b = { 0 }, e = { 0 }, c = { 0 };
			assert_int_equal(replay_record(rp, pols[p], log, &a), 0);
			assert_int_equal(replay_bare(rp, log, false, &b), 0);
			assert_int_equal(replay_bare(rp, log, true, &e), 0);
			/* the empty calls: the same regions as the empty run, and as sound */
			assert_int_equal(replay_empty_calls(rp, log, &c), 0);
			assert_memory_equal(c.regions, e.regions, sizeof(c.regions));
			assert_int_equal(c.desync, 0);
			assert_int_equal(c.n.integrity_errors, 0);
			if (replay_log_saves(log) != a.n.saves ||
			    replay_log_restores(log) != a.n.restores || b.desync || e.desync ||
			    b.n.saves != a.n.saves || b.n.restores != a.n.restores ||
			    b.n.integrity_errors || e.n.integrity_errors ||
			    b.n.switches != a.n.switches)
				fail_msg("%s under %s: policy %lu saves %lu restores; log %lu %lu; "
					 "bare %lu %lu, %lu unmatched, integrity %lu (empty %lu)",
					 trace_workloads()[w], pols[p], (unsigned long)a.n.saves,
					 (unsigned long)a.n.restores,
					 (unsigned long)replay_log_saves(log),
					 (unsigned long)replay_log_restores(log),
					 (unsigned long)b.n.saves, (unsigned long)b.n.restores,
					 (unsigned long)b.desync,
					 (unsigned long)b.n.integrity_errors,
					 (unsigned long)e.n.integrity_errors);
		}
		replay_log_free(log);
		replay_free(rp);
		trace_free(&t);
	}
}

/* A log too small for the run is grown and the run recorded again. */
static void test_floor_log_grows(void **state)
{
	struct trace t;
	struct replay *rp = setup("pingpong-both", 100, &t);
	struct trace tiny = t;
	struct replay_result a = { 0 }, b = { 0 };

	tiny.hdr.nevents = 1; /* sizes the log for one event */
	struct replay_log *log = replay_log_new(&tiny);
	assert_non_null(log);
	assert_int_equal(replay_record(rp, "eager", log, &a), 0);
	assert_int_equal(replay_log_saves(log), 99);
	assert_int_equal(replay_log_restores(log), 100);
	assert_int_equal(replay_bare(rp, log, false, &b), 0);
	assert_int_equal(b.desync, 0);
	assert_int_equal(b.n.restores, 100);
	assert_int_equal(b.n.integrity_errors, 0);
	replay_log_free(log);
	replay_free(rp);
	trace_free(&t);
}

/*
 * A trace read from its file (trace_open: chunks of TRACE_CHUNK events)
 * replays to the same counts as the same trace in memory, under every
 * policy, floor logs and oracle included; a file changed since it was
 * checked is refused (-3), not replayed.
 */
static void test_file_trace(void **state)
{
	char path[64], err[256];
	struct trace m, f;
	struct oracle_counts om, of;
	const char *const *pols = fpu_policy_names();

	snprintf(path, sizeof(path), "/tmp/fpulab-test-replay-%d", (int)getpid());
	assert_int_equal(trace_synth("build", 3000, 5, 0x7, &m, err, sizeof(err)), 0);
	assert_true(m.hdr.nevents > TRACE_CHUNK);
	assert_int_equal(trace_write(path, &m, err, sizeof(err)), 0);
	assert_int_equal(trace_open(path, &f, err, sizeof(err)), 0);
	assert_int_equal(oracle_run(&m, &om), 0);
	assert_int_equal(oracle_run(&f, &of), 0);
	assert_memory_equal(&om, &of, sizeof(om));
	struct replay *rm = replay_new(&m, FPU_INSN_AUTO), *rf = replay_new(&f, FPU_INSN_AUTO);
	assert_non_null(rm);
	assert_non_null(rf);
	struct replay_log *log = replay_log_new(&f);
	assert_non_null(log);
	for (int p = 0; pols[p]; p++) {
		if (!strcmp(pols[p], "adaptive"))
			continue; /* decides by measured costs: see test_adaptive_costs */
		struct replay_result a = run(rm, pols[p], om.switches);
		struct replay_result b = run(rf, pols[p], om.switches), c = { 0 }, d = { 0 };
		assert_memory_equal(&a.n, &b.n, sizeof(a.n));
		assert_int_equal(replay_record(rf, pols[p], log, &c), 0);
		assert_int_equal(replay_bare(rf, log, false, &d), 0);
		assert_int_equal(d.desync, 0);
		assert_int_equal(d.n.switches, a.n.switches);
		assert_int_equal(d.n.saves, a.n.saves);
		assert_int_equal(d.n.integrity_errors, 0);
	}
	/* the file grows by a byte: the next pass refuses it */
	FILE *fp = fopen(path, "ab");
	assert_non_null(fp);
	assert_int_equal(fputc(0, fp), 0);
	assert_int_equal(fclose(fp), 0);
	struct replay_result r = { 0 };
	assert_int_equal(replay_run(rf, "eager", &r), -3);
	assert_int_equal(oracle_run(&f, &of), -2);
	replay_log_free(log);
	replay_free(rm);
	replay_free(rf);
	trace_free(&m);
	trace_free(&f);
	unlink(path);
}

int main(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_pingpong_both),
		cmocka_unit_test(test_exact_pingpong_one),
		cmocka_unit_test(test_adaptive_costs),
		cmocka_unit_test(test_export_then_use),
		cmocka_unit_test(test_runs_start_clean),
		cmocka_unit_test(test_adaptive_flush_at_use),
		cmocka_unit_test(test_adaptive_holding_pays),
		cmocka_unit_test(test_adaptive_newcomers),
		cmocka_unit_test(test_import_reset),
		cmocka_unit_test(test_returns),
		cmocka_unit_test(test_oracle_bound),
		cmocka_unit_test(test_floor_log),
		cmocka_unit_test(test_floor_log_grows),
		cmocka_unit_test(test_file_trace),
	};
	if (xstate_init(&o) || !xstate_cfg.caps.xsave) {
		printf("1..0 # SKIP no XSAVE on this CPU\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
