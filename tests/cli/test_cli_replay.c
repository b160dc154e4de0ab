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

#include <cmocka.h>

#include <fpu/fpu.h>
#include <fpu/xstate.h>

#include "oracle.h"
#include "replay_engine.h"
#include "trace_io.h"

static struct replay_result run(struct replay *rp, const char *policy, uint64_t switches)
{
	struct replay_result r = { 0 };
	r.skip_ticks = calloc(switches + 1, sizeof(*r.skip_ticks));
	assert_non_null(r.skip_ticks);
	assert_int_equal(replay_run(rp, policy, &r), 0);
	free(r.skip_ticks);
	r.skip_ticks = NULL;
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
	/* the prior and the samples only: 4th, 8th, ..., then every 64th switch-in of each task */
	assert_true(r.n.nm_traps > 0 && r.n.nm_traps <= 16);
	assert_int_equal(r.n.restores, 200);
	assert_int_equal(r.n.integrity_errors, 0);
	fpu_set_costs(&saved);
	replay_free(rp);
	trace_free(&t);
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
 * empty timed regions), match its counts exactly and leave every task's
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
			struct replay_result a = { 0 }, b = { 0 }, e = { 0 };
			assert_int_equal(replay_record(rp, pols[p], log, &a), 0);
			assert_int_equal(replay_bare(rp, log, false, &b), 0);
			assert_int_equal(replay_bare(rp, log, true, &e), 0);
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

int main(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_pingpong_both),
		cmocka_unit_test(test_exact_pingpong_one),
		cmocka_unit_test(test_adaptive_costs),
		cmocka_unit_test(test_oracle_bound),
		cmocka_unit_test(test_floor_log),
		cmocka_unit_test(test_floor_log_grows),
	};
	if (xstate_init(&o) || !xstate_cfg.caps.xsave) {
		printf("1..0 # SKIP no XSAVE on this CPU\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
