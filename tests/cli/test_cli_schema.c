/* SPDX-License-Identifier: MIT */
/* cli/common/result_file.c: the one schema of a result row's figures (FIGURE_median, _min,
 * _max, repeats), written by result_put_stats, read by result_stat and result_figure, which
 * also read the keys rows had before it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/result_file.h"

static json_t *row_of(const char *text)
{
	json_error_t e;
	json_t *row = json_loads(text, 0, &e);

	assert_non_null(row);
	return row;
}

/* What a writer puts, a reader gets back; a null median is no figure. */
static void test_put_then_read(void **state)
{
	json_t *row = json_pack("{s:s, s:I}", "experiment", "stress", RESULT_RUNS, (json_int_t)3);
	struct result_figure f;
	double v;

	result_put_stats(row, "ticks_per_round_trip", NULL, NULL, NULL);
	result_put_stats(row, "ticks_per_switch", json_real(900), json_real(850), json_real(990));
	assert_true(json_is_null(json_object_get(row, "ticks_per_round_trip_median")));
	assert_true(result_stat(row, "ticks_per_switch", RESULT_MAX, &v));
	assert_true(v == 990);
	assert_false(result_stat(row, "ticks_per_round_trip", RESULT_MEDIAN, &v));
	assert_true(result_figure(row, &f));
	assert_string_equal(f.key, "ticks_per_switch");
	assert_true(f.has_range && f.median == 900 && f.min == 850 && f.max == 990);
	assert_int_equal(result_runs(row), 3);
	json_decref(row);
}

/* fpulab run before the schema: the median under the bare name, one ticks range. */
static void test_old_run_row(void **state)
{
	json_t *row = row_of("{\"experiment\": \"context-switch\", \"repeats\": 5,"
			     " \"ticks_per_round_trip\": 4000.0, \"ticks_per_switch\": null,"
			     " \"ticks_min\": 3000.0, \"ticks_max\": 5000.0}");
	struct result_figure f;

	assert_true(result_figure(row, &f));
	assert_string_equal(f.key, "ticks_per_round_trip");
	assert_string_equal(f.unit, "TSC ticks per round trip");
	assert_true(f.has_range && f.median == 4000 && f.min == 3000 && f.max == 5000);
	assert_int_equal(result_runs(row), 5);
	json_decref(row);
}

/* calibrate and host before the schema: their own names, their own run counts. */
static void test_old_calibrate_and_host_rows(void **state)
{
	json_t *cal = row_of("{\"name\": \"xsave\", \"median_ticks\": 105.6, \"min_ticks\": 100.0,"
			     " \"max_ticks\": 130.0, \"median_ns\": 43.0, \"repeat\": 20}");
	json_t *hc = row_of("{\"figure\": \"syscall\", \"runs\": 3, \"ns_median\": 133.5,"
			    " \"ns_min\": 133.0, \"ns_max\": 137.0}");
	struct result_figure f;
	double v;

	assert_true(result_figure(cal, &f));
	assert_string_equal(f.key, "ticks_per_op");
	assert_true(f.has_range && f.median == 105.6 && f.min == 100 && f.max == 130);
	assert_int_equal(result_runs(cal), 20);
	assert_true(result_stat(cal, "ns_per_op", RESULT_MEDIAN, &v) && v == 43);
	assert_false(result_stat(cal, "ns_per_op", RESULT_MIN, &v)); /* no min_ns: no range */
	assert_true(result_figure(hc, &f));
	assert_string_equal(f.key, "ns_per_op");
	assert_true(f.median == 133.5 && f.max == 137);
	assert_int_equal(result_runs(hc), 3);
	json_decref(cal);
	json_decref(hc);
}

/* A row with both: the schema's keys win over the old ones. */
static void test_new_keys_first(void **state)
{
	json_t *row = row_of("{\"ns_per_switch\": 20.0, \"ns_per_switch_median\": 10.0,"
			     " \"ns_per_switch_min\": 9.0, \"ns_per_switch_max\": 11.0}");
	double v;

	assert_true(result_stat(row, "ns_per_switch", RESULT_MEDIAN, &v) && v == 10);
	assert_true(result_stat(row, "ns_per_switch", RESULT_MIN, &v) && v == 9);
	json_decref(row);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_then_read),
		cmocka_unit_test(test_old_run_row),
		cmocka_unit_test(test_old_calibrate_and_host_rows),
		cmocka_unit_test(test_new_keys_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
