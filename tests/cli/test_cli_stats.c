/* SPDX-License-Identifier: MIT */
/* cli/common/stats.c: the one median (the lower middle of an even count), min, max. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/stats.h"

static void test_median_odd(void **state)
{
	double v[] = { 5, 1, 9 };

	assert_true(median(v, 3) == 5);
	assert_true(v[0] == 1 && v[2] == 9); /* sorted in place */
}

static void test_median_even_is_lower_middle(void **state)
{
	double v[] = { 5, 1, 9, 3 };

	assert_true(median(v, 4) == 3); /* a measured value: not 4 (the mean), not 5 (upper) */
	double two[] = { 20, 10 };
	assert_true(median(two, 2) == 10);
	assert_int_equal(median_index(4), 1);
	assert_int_equal(median_index(5), 2);
	assert_int_equal(median_index(1), 0);
	assert_int_equal(median_index(0), 0);
}

static void test_median_none(void **state)
{
	double v[1] = { 7 };

	assert_true(isnan(median(v, 0)));
	assert_true(median(v, 1) == 7);
	uint64_t u[1] = { 7 };
	assert_int_equal(median_u64(u, 0), 0);
}

static void test_median_u64(void **state)
{
	uint64_t u[] = { 42, UINT64_MAX, 63, 21 };

	assert_int_equal(median_u64(u, 4), 42);
	assert_true(u[3] == UINT64_MAX); /* ordered without overflowing a subtraction */
	assert_int_equal(median_u64(u, 3), 42);
}

/* Counted by value, the same median as the values sorted: 21 42 42 63 and 21 42 42 63 63. */
static void test_median_hist(void **state)
{
	uint32_t h[64] = { 0 };
	uint64_t u[] = { 42, 63, 21, 42, 63 };

	h[21] = 1, h[42] = 2, h[63] = 1;
	assert_int_equal(median_hist(h, 64, 4), 42);
	assert_int_equal(median_u64(u, 4), 42);
	h[63] = 2;
	assert_int_equal(median_hist(h, 64, 5), 42);
	h[42] = 0, h[21] = 0; /* 63 63 */
	assert_int_equal(median_hist(h, 64, 2), 63);
	assert_int_equal(median_hist(h, 64, 0), 0);
	uint32_t one[1] = { 3 };
	assert_int_equal(median_hist(one, 1, 3), 0);
}

static void test_summarise(void **state)
{
	double v[] = { 5, 1, 9, 3 };
	struct stats_summary s = stats_summarise(v, 4);

	assert_true(s.median == 3 && s.min == 1 && s.max == 9 && s.n == 4);
	s = stats_summarise(v, 3); /* sorted now: 1 3 5 */
	assert_true(s.median == 3 && s.min == 1 && s.max == 5 && s.n == 3);
	s = stats_summarise(v, 0);
	assert_true(s.median == 0 && s.min == 0 && s.max == 0 && s.n == 0);
}

static void test_cmp_double(void **state)
{
	double a = 1, b = 2;

	assert_true(cmp_double(&a, &b) < 0);
	assert_true(cmp_double(&b, &a) > 0);
	assert_true(cmp_double(&a, &a) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_odd),
		cmocka_unit_test(test_median_even_is_lower_middle),
		cmocka_unit_test(test_median_none),
		cmocka_unit_test(test_median_u64),
		cmocka_unit_test(test_median_hist),
		cmocka_unit_test(test_summarise),
		cmocka_unit_test(test_cmp_double),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
