/* SPDX-License-Identifier: MIT */
/* cli/common/clock.c: one table of clock kinds; what result_file.c reads from it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/clock.h"
#include "common/result_file.h"

/* Every kind is found by its key and by its source, and no two share either. */
static void test_keys_and_sources(void **state)
{
	for (int i = 0; i < CLOCK_NR; i++) {
		assert_ptr_equal(clock_by_key(clock_kinds[i].key), &clock_kinds[i]);
		assert_ptr_equal(clock_by_source(clock_kinds[i].source), &clock_kinds[i]);
	}
	assert_null(clock_by_key("tsc"));
	assert_null(clock_by_key(NULL));
	assert_string_equal(clock_kinds[CLOCK_ICOUNT].key, "icount");
	assert_false(clock_kinds[CLOCK_ICOUNT].timed);
	assert_true(clock_kinds[CLOCK_EMULATED_TSC].timed);
	assert_false(clock_kinds[CLOCK_EMULATED_TSC].hardware);
}

/* abi.h's "TSC ticks per X" in instructions under -icount, unchanged in any TSC. */
static void test_unit(void **state)
{
	char buf[64];

	assert_string_equal(
		clock_unit(&clock_kinds[CLOCK_ICOUNT], "TSC ticks per operation", buf, sizeof(buf)),
		"instructions per operation");
	assert_string_equal(clock_unit(&clock_kinds[CLOCK_EMULATED_TSC], "TSC ticks per operation",
				       buf, sizeof(buf)),
			    "TSC ticks per operation");
	assert_string_equal(clock_unit(&clock_kinds[CLOCK_ICOUNT], "#NM traps", buf, sizeof(buf)),
			    "#NM traps");
	assert_string_equal(clock_unit(NULL, "TSC ticks per call", buf, sizeof(buf)),
			    "TSC ticks per call");
}

/* An emulated cost makes a replay's projection emulated, whatever the others are. */
static void test_projection_source(void **state)
{
	const struct clock_kind *hw = &clock_kinds[CLOCK_HARDWARE_TSC],
				*em = &clock_kinds[CLOCK_EMULATED_TSC];
	const struct clock_kind *none[] = { NULL, NULL, NULL }, *h[] = { NULL, hw, NULL },
				*both[] = { hw, em, hw };

	assert_string_equal(clock_projection_source(none, 3), "native");
	assert_string_equal(clock_projection_source(h, 3), "native-hardware-costs");
	assert_string_equal(clock_projection_source(both, 3), "native-emulated-costs");
	assert_string_equal(clock_source_description("native-emulated-costs"),
			    clock_kinds[CLOCK_EMULATED_TSC].with_lab_costs_text);
	assert_string_equal(clock_source_description("nonsense"), "figures of unknown source");
}

/* A row's source: its own, or its clock's; calibrate's old source text is native. */
static void test_row_source(void **state)
{
	json_t *a = json_pack("{s:s}", "clock", "icount");
	json_t *b = json_pack("{s:s}", "source", "native user-mode TSC");
	json_t *c = json_pack("{s:s, s:s}", "clock", "emulated-tsc", "source", "native");
	json_t *d = json_object();

	assert_string_equal(result_source(a), "icount");
	assert_string_equal(result_source(b), "native");
	assert_string_equal(result_source(c), "native");
	assert_string_equal(result_source(d), "unknown");
	json_decref(a);
	json_decref(b);
	json_decref(c);
	json_decref(d);
}

/* A row without a "unit" (an older costs row) gets its figure's unit in its own clock. */
static void test_figure_unit_in_clock(void **state)
{
	json_t *ic = json_pack("{s:s, s:s, s:f}", "experiment", "costs", "clock", "icount",
			       "ticks_per_op", 141.0);
	json_t *em = json_pack("{s:s, s:s, s:f}", "experiment", "costs", "clock", "emulated-tsc",
			       "ticks_per_op", 3851.9);
	struct result_figure f, g;

	assert_true(result_figure(ic, &f));
	assert_string_equal(f.unit, "instructions per operation");
	assert_true(result_figure(em, &g));
	assert_string_equal(g.unit, "TSC ticks per operation");
	assert_true(result_figure(ic, &g));
	assert_ptr_equal(g.unit, f.unit); /* each text made once */
	json_decref(ic);
	json_decref(em);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys_and_sources),     cmocka_unit_test(test_unit),
		cmocka_unit_test(test_projection_source),    cmocka_unit_test(test_row_source),
		cmocka_unit_test(test_figure_unit_in_clock),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
