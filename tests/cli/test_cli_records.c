/* SPDX-License-Identifier: MIT */
/* Unit tests of fpulab run's record parsing and run summaries (cli/lab/guest_records.c,
 * cli/lab/run_stats.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "lab/guest_records.h"
#include "lab/run_stats.h"

static void test_record_kinds(void **state)
{
	assert_int_equal(record_kind_of("@fpulab hello version=1"), RECORD_HELLO);
	assert_int_equal(record_kind_of("@fpulab result experiment=x policy=y"), RECORD_RESULT);
	assert_int_equal(record_kind_of("@fpulab done runs=3"), RECORD_DONE);
	assert_int_equal(record_kind_of("@fpulab done"), RECORD_DONE);
	assert_int_equal(record_kind_of("@fpulab results x=1"), RECORD_UNKNOWN);
	assert_int_equal(record_kind_of("@fpulabresult"), RECORD_NONE);
	assert_int_equal(record_kind_of(" @fpulab result"), RECORD_NONE);
	assert_int_equal(record_kind_of("lab: cpu1 up"), RECORD_NONE);
}

static void test_parse_result(void **state)
{
	struct guest_result r;
	char err[160];
	int unknown = 0;

	assert_int_equal(
		parse_result_record("@fpulab result experiment=context-switch policy=lazy "
				    "placement=same-cpu fp_users=one regset=avx repeat=2 "
				    "round_trips=1000 nm_traps=0x3e8 ticks=18446744073709551615 "
				    "brand_new_counter=5",
				    &r, &unknown, err, sizeof(err)),
		0);
	assert_string_equal(r.experiment, "context-switch");
	assert_string_equal(r.policy, "lazy");
	assert_string_equal(r.regset, "avx");
	assert_int_equal(r.repeat, 2);
	assert_int_equal(r.round_trips, 1000);
	assert_int_equal(r.nm_traps, 1000); /* 0x prefix: hex */
	assert_true(r.ticks == UINT64_MAX);
	assert_int_equal(unknown, 1);
	assert_true(result_has(&r, RESULT_nm_traps));
	assert_false(result_has(&r, RESULT_saves));
	assert_int_equal(result_count(&r, RESULT_round_trips), 1000);
	assert_string_equal(result_string(&r, RESULT_placement), "same-cpu");
}

static void test_parse_result_rejects(void **state)
{
	struct guest_result r;
	char err[160];

	assert_int_equal(parse_result_record("@fpulab result experiment=e policy=p saves=-1", &r,
					     NULL, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "saves"));
	assert_int_equal(parse_result_record("@fpulab result experiment=e policy=p saves=12k", &r,
					     NULL, err, sizeof(err)),
			 -1);
	assert_int_equal(parse_result_record("@fpulab result experiment=e policy=p saves=", &r,
					     NULL, err, sizeof(err)),
			 -1);
	assert_int_equal(parse_result_record("@fpulab result experiment=e policy=p "
					     "ticks=99999999999999999999",
					     &r, NULL, err, sizeof(err)),
			 -1);
	assert_int_equal(parse_result_record("@fpulab result experiment=e policy=p junk", &r, NULL,
					     err, sizeof(err)),
			 -1);
	assert_int_equal(parse_result_record("@fpulab result experiment=e saves=1", &r, NULL, err,
					     sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "policy"));
	char longword[RECORD_WORD_MAX + 40];
	snprintf(longword, sizeof(longword), "@fpulab result experiment=e policy=%0*d",
		 RECORD_WORD_MAX, 7);
	assert_int_equal(parse_result_record(longword, &r, NULL, err, sizeof(err)), -1);
}

static void test_parse_hello_and_done(void **state)
{
	struct guest_hello h;
	struct guest_done d;
	char err[160];

	assert_int_equal(parse_hello_record("@fpulab hello version=1 cpus=4 apic=x2apic xcr0=0x207 "
					    "insn=xsaveopt policies=eager,lazy",
					    &h, NULL, err, sizeof(err)),
			 0);
	assert_int_equal(h.cpus, 4);
	assert_int_equal(h.xcr0, 0x207);
	assert_string_equal(h.policies, "eager,lazy");
	assert_int_equal(parse_done_record("@fpulab done runs=36", &d, err, sizeof(err)), 0);
	assert_true(d.has_runs);
	assert_int_equal(d.runs, 36);
	assert_int_equal(parse_done_record("@fpulab done", &d, err, sizeof(err)), 0);
	assert_false(d.has_runs);
}

static struct guest_result run(const char *policy, const char *placement, uint64_t rt, uint64_t nm,
			       uint64_t ticks, uint64_t integrity)
{
	struct guest_result r;
	char line[512], err[160];

	snprintf(line, sizeof(line),
		 "@fpulab result experiment=context-switch policy=%s placement=%s fp_users=one "
		 "regset=sse cpus=2 round_trips=%llu switches=%llu nm_traps=%llu "
		 "integrity_errors=%llu ticks=%llu",
		 policy, placement, (unsigned long long)rt, (unsigned long long)(2 * rt + 6),
		 (unsigned long long)nm, (unsigned long long)integrity, (unsigned long long)ticks);
	assert_int_equal(parse_result_record(line, &r, NULL, err, sizeof(err)), 0);
	return r;
}

static void test_parse_progress(void **state)
{
	struct guest_progress p;
	char err[128];

	assert_int_equal(parse_progress_record("@fpulab progress experiment=stress policy=lazy "
					       "repeat=2 done=76139 target=200000 unit=switches "
					       "later=1",
					       &p, err, sizeof(err)),
			 0);
	assert_string_equal(p.experiment, "stress");
	assert_string_equal(p.policy, "lazy");
	assert_int_equal(p.repeat, 2);
	assert_int_equal(p.done, 76139);
	assert_int_equal(p.target, 200000);
	assert_string_equal(p.unit, "switches");
	assert_int_equal(parse_progress_record("@fpulab progress experiment=stress policy=lazy "
					       "repeat=0 done=5 unit=switches",
					       &p, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "missing target=");
	assert_int_equal(record_kind_of("@fpulab progress done=1"), RECORD_PROGRESS);
}

static void test_summary_odd_repeats(void **state)
{
	struct guest_result runs[3] = {
		run("lazy", "same-cpu", 1000, 1001, 7000, 0),
		run("lazy", "same-cpu", 1000, 1000, 3000, 0),
		run("lazy", "same-cpu", 1000, 1000, 5000, 2),
	};
	struct result_row row;

	summarise_runs(runs, 3, &row);
	assert_int_equal(row.repeats, 3);
	assert_int_equal(row.median.nm_traps, 1000);
	assert_int_equal(row.median.integrity_errors, 2);   /* the median run's own... */
	assert_int_equal(row.integrity_errors_all_runs, 2); /* ...and the sum over all runs */
	assert_false(row.counts_identical);
	assert_string_equal(row.ticks_per, "round_trip");
	assert_true(row.ticks_median == 5.0);
	assert_true(row.ticks_min == 3.0);
	assert_true(row.ticks_max == 7.0);
	assert_int_equal(row.median.ticks, 5000);
	assert_false(row.present & (UINT64_C(1) << RESULT_saves));
}

/* Every count of a row is the median run's: never switches from one run and
 * nm_traps from another. */
static void test_summary_counts_come_from_one_run(void **state)
{
	struct guest_result runs[3] = {
		run("lazy", "same-cpu", 1000, 1004, 3000, 1), /* ticks/rt 3 */
		run("lazy", "same-cpu", 1002, 1000, 4008, 0), /* ticks/rt 4: the median run */
		run("lazy", "same-cpu", 1001, 1002, 5005, 0), /* ticks/rt 5 */
	};
	struct result_row row;

	summarise_runs(runs, 3, &row);
	assert_int_equal(row.median.round_trips, 1002);
	assert_int_equal(row.median.switches, 2 * 1002 + 6);
	assert_int_equal(row.median.nm_traps, 1000); /* field by field it would be 1002 */
	assert_int_equal(row.median.ticks, 4008);
	assert_int_equal(row.median.integrity_errors, 0);
	assert_int_equal(row.integrity_errors_all_runs, 1);
	assert_false(row.counts_identical);
	assert_true(row.ticks_median == 4.0);
	assert_true(row.ticks_min == 3.0);
	assert_true(row.ticks_max == 5.0);
}

static void test_summary_even_repeats_take_lower_middle(void **state)
{
	struct guest_result runs[4] = {
		run("eager", "same-cpu", 100, 0, 900, 0),
		run("eager", "same-cpu", 100, 0, 300, 0),
		run("eager", "same-cpu", 100, 0, 500, 0),
		run("eager", "same-cpu", 100, 0, 700, 0),
	};
	struct result_row row;

	summarise_runs(runs, 4, &row);
	assert_true(row.ticks_median == 5.0);    /* measured, not the mean of 5 and 7 */
	assert_int_equal(row.median.ticks, 500); /* the lower middle run */
	assert_true(row.ticks_min == 3.0);
	assert_true(row.ticks_max == 9.0);
	assert_true(row.counts_identical);
}

static void test_summary_per_switch_without_round_trips(void **state)
{
	struct guest_result r = run("eager", "same-cpu", 0, 0, 6000, 0);
	struct result_row row;

	summarise_runs(&r, 1, &row);
	assert_string_equal(row.ticks_per, "switch");
	assert_true(row.ticks_median == 1000.0); /* 6 switches */
}

struct emitted {
	int calls;
	size_t rows[4];
	char first_placement[4][RECORD_WORD_MAX];
	double vs_eager[4][2];
	bool has_vs_eager[4][2];
};

static int record_rows(void *ctx, const struct result_row *rows, size_t n)
{
	struct emitted *e = ctx;

	assert_true(e->calls < 4);
	e->rows[e->calls] = n;
	strcpy(e->first_placement[e->calls], rows[0].median.placement);
	for (size_t i = 0; i < n && i < 2; i++) {
		e->vs_eager[e->calls][i] = rows[i].vs_eager;
		e->has_vs_eager[e->calls][i] = rows[i].has_vs_eager;
	}
	e->calls++;
	return 0;
}

static void test_collector_groups_interleaved_policies(void **state)
{
	struct emitted e = { 0 };
	struct result_collector c;
	struct guest_result runs[] = {
		run("eager", "same-cpu", 10, 0, 100, 0),  run("lazy", "same-cpu", 10, 10, 50, 0),
		run("eager", "same-cpu", 10, 0, 100, 0),  run("lazy", "same-cpu", 10, 10, 50, 0),
		run("lazy", "cross-cpu", 10, 10, 300, 0), run("eager", "cross-cpu", 10, 0, 200, 0),
	};

	collector_init(&c, record_rows, &e);
	for (size_t i = 0; i < 4; i++)
		collector_add(&c, &runs[i]);
	assert_int_equal(e.calls, 0); /* same-cpu may still get runs */
	collector_add(&c, &runs[4]);  /* a new configuration completes the first */
	assert_int_equal(e.calls, 1);
	assert_int_equal(e.rows[0], 2);
	assert_string_equal(e.first_placement[0], "same-cpu");
	assert_true(e.has_vs_eager[0][1]);
	assert_true(e.vs_eager[0][1] == 0.5);
	collector_add(&c, &runs[5]);
	assert_int_equal(collector_pending_runs(&c), 2);
	collector_complete(&c);
	assert_int_equal(e.calls, 2);
	assert_string_equal(e.first_placement[1], "cross-cpu");
	assert_true(e.vs_eager[1][0] == 1.5); /* lazy came first here */
	assert_int_equal(c.runs_total, 6);
	assert_int_equal(collector_pending_runs(&c), 0);
	collector_free(&c);
}

static void test_collector_flags_a_configuration_that_comes_back(void **state)
{
	struct emitted e = { 0 };
	struct result_collector c;
	struct guest_result a = run("eager", "same-cpu", 10, 0, 100, 0);
	struct guest_result b = run("eager", "cross-cpu", 10, 0, 100, 0);

	collector_init(&c, record_rows, &e);
	collector_add(&c, &a);
	collector_add(&c, &b);
	assert_false(c.out_of_order);
	collector_add(&c, &a); /* repeats as the outer loop: not what fpulab expects */
	assert_true(c.out_of_order);
	assert_string_equal(c.late_run.placement, "same-cpu");
	collector_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_kinds),
		cmocka_unit_test(test_parse_result),
		cmocka_unit_test(test_parse_result_rejects),
		cmocka_unit_test(test_parse_hello_and_done),
		cmocka_unit_test(test_parse_progress),
		cmocka_unit_test(test_summary_odd_repeats),
		cmocka_unit_test(test_summary_counts_come_from_one_run),
		cmocka_unit_test(test_summary_even_repeats_take_lower_middle),
		cmocka_unit_test(test_summary_per_switch_without_round_trips),
		cmocka_unit_test(test_collector_groups_interleaved_policies),
		cmocka_unit_test(test_collector_flags_a_configuration_that_comes_back),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
