/* SPDX-License-Identifier: MIT */
/*
 * fpulab replay against libfpu with a fault injected (libfpu-test.a,
 * FPU_TESTING): the engine catches the lost state, and says where it first
 * saw it (event, task, CPU, component, the values) exactly: the same trace
 * cut just before that event replays clean, cut just after it has one error.
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

#include "replay/replay.h"
#include "replay/replay_engine.h"
#include "trace/trace_io.h"

#define SSE 0x2u /* XFEATURE_SSE's bit: the check reads XMM0's low 64 bits */

/* @t's first @n events under @policy with @fault armed. */
static struct replay_result run_cut(const struct trace *t, uint64_t n, const char *policy,
				    enum fpu_fault fault)
{
	struct trace cut = *t;
	struct replay_result r = { 0 };

	cut.hdr.nevents = n;
	struct replay *rp = replay_new(&cut, FPU_INSN_AUTO);
	assert_non_null(rp);
	assert_int_equal(fpu_set_fault(fault), 0);
	assert_int_equal(replay_run(rp, policy, &r), 0);
	assert_int_equal(fpu_set_fault(FPU_FAULT_NONE), 0);
	replay_free(rp);
	return r;
}

/*
 * smp-lazy's flush IPI that does not save (skip-save-on-migrate): the task
 * that moved loads a stale area on the other CPU, and its next use finds an
 * older value in XMM0. The first error is that use, and it is the first.
 */
static void test_first_error(void **state)
{
	struct trace t;
	char err[256];

	assert_int_equal(trace_synth("migrating", 200, 3, 0x7, &t, err, sizeof(err)), 0);
	struct replay_result r = run_cut(&t, t.hdr.nevents, "smp-lazy", FPU_FAULT_NONE);
	assert_int_equal(r.n.integrity_errors, 0);
	r = run_cut(&t, t.hdr.nevents, "smp-lazy", FPU_FAULT_SKIP_SAVE_ON_MIGRATE);
	assert_true(r.n.integrity_errors > 0);
	assert_true(r.n.flush_ipis > 0);

	const struct replay_integrity *f = &r.first;
	assert_true(f->event < t.hdr.nevents);
	const struct fpulab_trace_event *e = &t.ev[f->event];
	assert_int_equal(e->type, FPULAB_EV_USE);
	assert_int_equal(f->seq, e->seq);
	assert_int_equal(f->task, e->task);
	assert_int_equal(f->cpu, e->cpu);
	assert_true(f->components & SSE); /* every use writes a new XMM0 value */
	assert_true(f->components & f->component);
	assert_true(f->got != f->want);
	if (f->component == SSE) /* the value a task writes: its id at bit 40, a count below */
		assert_int_equal(f->want >> 40, f->task);

	/* where it says: the trace cut before that event is clean, with it one error */
	assert_int_equal(
		run_cut(&t, f->event, "smp-lazy", FPU_FAULT_SKIP_SAVE_ON_MIGRATE).n.integrity_errors,
		0);
	struct replay_result one = run_cut(&t, f->event + 1, "smp-lazy",
					   FPU_FAULT_SKIP_SAVE_ON_MIGRATE);
	assert_int_equal(one.n.integrity_errors, 1);
	assert_memory_equal(&one.first, f, sizeof(*f));
	trace_free(&t);
}

/* The message replay prints: the run, the count, the event, task, CPU and component. */
static void test_message(void **state)
{
	struct trace t;
	char err[256], want[256], buf[1024] = "";

	assert_int_equal(trace_synth("migrating", 200, 3, 0x7, &t, err, sizeof(err)), 0);
	struct replay_result r = run_cut(&t, t.hdr.nevents, "smp-lazy",
					 FPU_FAULT_SKIP_SAVE_ON_MIGRATE);
	struct replay_result clean = { 0 };
	struct trace_replay tr = { .path = "m.trace", .t = t };
	FILE *tmp = tmpfile(), *saved = stderr;

	assert_non_null(tmp);
	stderr = tmp;
	int said_clean = replay_say_integrity(&tr, "smp-lazy", "run", 0, &clean);
	int said = replay_say_integrity(&tr, "smp-lazy", "run", 1, &r);
	stderr = saved;
	rewind(tmp);
	size_t n = fread(buf, 1, sizeof(buf) - 1, tmp);
	buf[n] = 0;
	fclose(tmp);
	assert_int_equal(said_clean, 0);
	assert_int_equal(said, 1);
	snprintf(want, sizeof(want),
		 "fpulab replay: m.trace: smp-lazy, run 2: %llu integrity errors; the first at "
		 "event %llu (seq %u), a use by task %u on cpu %u: %s holds 0x%016llx, the task "
		 "wrote 0x%016llx",
		 (unsigned long long)r.n.integrity_errors, (unsigned long long)r.first.event,
		 r.first.seq, r.first.task, r.first.cpu, replay_component_name(r.first.component),
		 (unsigned long long)r.first.got, (unsigned long long)r.first.want);
	if (strncmp(buf, want, strlen(want)))
		fail_msg("stderr:\n%s\nexpected it to start:\n%s", buf, want);
	trace_free(&t);
}

int main(void)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_error),
		cmocka_unit_test(test_message),
	};
	if (xstate_init(&o) || !xstate_cfg.caps.xsave) {
		printf("1..0 # SKIP no XSAVE on this CPU\n");
		return 0;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
