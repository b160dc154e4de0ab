/* SPDX-License-Identifier: MIT */
/* cli/common/util.c: the printed figures' helpers (no "-0.0", no share of a zero floor). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "common/util.h"

static void unsigned_zero_never_prints_minus_zero(void **state)
{
	char buf[32];

	(void)state;
	snprintf(buf, sizeof(buf), "%.1f", unsigned_zero(-0.04, 0.05));
	assert_string_equal(buf, "0.0");
	snprintf(buf, sizeof(buf), "%.1f", unsigned_zero(-0.0, 0.05));
	assert_string_equal(buf, "0.0");
	snprintf(buf, sizeof(buf), "%.1f", unsigned_zero(-0.06, 0.05));
	assert_string_equal(buf, "-0.1");
	snprintf(buf, sizeof(buf), "%.0f", unsigned_zero(-0.4, 0.5));
	assert_string_equal(buf, "0");
	snprintf(buf, sizeof(buf), "%.1f", unsigned_zero(3.25, 0.05));
	assert_string_equal(buf, "3.2");
}

static void share_of_a_floor_of_1_ns_or_more(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(share_of(buf, sizeof(buf), 17.7, 174.3, 1.0, "floor"),
			    "10% of the floor");
	assert_string_equal(share_of(buf, sizeof(buf), 9.8, 1.0, 1.0, "floor"),
			    "980% of the floor");
	assert_string_equal(share_of(buf, sizeof(buf), -0.2, 100.0, 1.0, "floor"),
			    "0% of the floor");
}

static void no_share_of_a_floor_under_1_ns(void **state)
{
	char buf[64];

	(void)state;
	/* 38 ns over a 0.07 ns floor read "54286% of the floor" */
	assert_string_equal(share_of(buf, sizeof(buf), 38.0, 0.07, 1.0, "floor"),
			    "floor under 1 ns: no ratio");
	assert_string_equal(share_of(buf, sizeof(buf), 10.1, 0.0, 1.0, "floor"),
			    "floor under 1 ns: no ratio");
	assert_string_equal(share_of(buf, sizeof(buf), 10.1, -0.2, 1.0, "floor"),
			    "floor under 1 ns: no ratio");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unsigned_zero_never_prints_minus_zero),
		cmocka_unit_test(share_of_a_floor_of_1_ns_or_more),
		cmocka_unit_test(no_share_of_a_floor_under_1_ns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
