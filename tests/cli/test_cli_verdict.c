/* SPDX-License-Identifier: MIT */
/*
 * cli/replay/replay_rank.c and replay_verdict.c: the break-even trap cost of
 * eager against lazy, its spread over the runs' min-max ranges, and the
 * verdict against this host's trap range: decided only where the whole
 * spread lies on one side of the range's own spread over its runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "replay/replay.h"

/* eager: no traps; lazy: one trap per switch; natives in ns per switch */
static void two_rows(struct prow r[2], double e_med, double e_spread, double l_med, double l_spread)
{
	memset(r, 0, 2 * sizeof(*r));
	r[0] = (struct prow){ .policy = "eager",
			      .native_med = e_med,
			      .native_min = e_med - e_spread,
			      .native_max = e_med + e_spread };
	r[1] = (struct prow){ .policy = "lazy",
			      .native_med = l_med,
			      .native_min = l_med - l_spread,
			      .native_max = l_med + l_spread };
	r[0].n.switches = r[1].n.switches = 1000;
	r[1].n.nm_traps = 1000;
}

/* The trap range 100-300 ns at its medians, its lower bound @lo_min at its fastest run. */
static enum verdict judge_in(double lo_min, double e_med, double e_spread, double l_med,
			     double l_spread, struct break_even *b, char *text, size_t len)
{
	struct prow r[2];
	struct opts o;

	memset(&o, 0, sizeof(o));
	o.have_range = true;
	o.trap_lo = 100;
	o.trap_hi = 300;
	o.trap_lo_min = lo_min;
	two_rows(r, e_med, e_spread, l_med, l_spread);
	*b = break_even(r, 2, 1, 0, 0);
	return verdict_of(&o, b, text, len);
}

static enum verdict judge(double e_med, double e_spread, double l_med, double l_spread,
			  struct break_even *b, char *text, size_t len)
{
	return judge_in(100, e_med, e_spread, l_med, l_spread, b, text, len);
}

static void test_spread(void **state)
{
	struct break_even b;
	char text[256];

	/* eager 150 +- 5, lazy 60 +- 3: break-even 90, from 82 to 98 */
	judge(150, 5, 60, 3, &b, text, sizeof(text));
	assert_true(b.have && !b.none);
	assert_true(b.ns == 90 && b.ns_min == 82 && b.ns_max == 98);
}

static void test_decided_below(void **state)
{
	struct break_even b;
	char text[256];

	assert_int_equal(judge(150, 5, 60, 3, &b, text, sizeof(text)), VERDICT_BASELINE);
	assert_non_null(strstr(text, "decided: eager beats lazy here (break-even 90.0 ns, "
				     "82.0 to 98.0 over the runs' ranges, below"));
}

/* A trace of fewer than 200 switches decides nothing, however far apart its natives are. */
static void test_short_trace_not_decided(void **state)
{
	struct prow r[2];
	struct opts o;
	char text[256];

	memset(&o, 0, sizeof(o));
	o.have_range = true;
	o.trap_lo = o.trap_lo_min = 100;
	o.trap_hi = 300;
	two_rows(r, 150, 5, 60, 3); /* decided below at 1000 switches (test_decided_below) */
	r[0].n.switches = r[1].n.switches = 199;
	r[1].n.nm_traps = 199;
	struct break_even b = break_even(r, 2, 1, 0, 0);
	assert_int_equal(verdict_of(&o, &b, text, sizeof(text)), VERDICT_NONE);
	assert_string_equal(text, "not decided: 199 switches, fewer than 200 (timings of a "
				  "handful of switches say nothing)");
	r[0].n.switches = r[1].n.switches = r[1].n.nm_traps = 200;
	b = break_even(r, 2, 1, 0, 0);
	assert_int_equal(verdict_of(&o, &b, text, sizeof(text)), VERDICT_BASELINE);
}

static void test_across_the_edge(void **state)
{
	struct break_even b;
	char text[256];

	/* break-even 90, but 75..105 over the ranges: the range starts at 100 */
	assert_int_equal(judge(150, 10, 60, 5, &b, text, sizeof(text)), VERDICT_UNDECIDED);
	assert_non_null(strstr(text,
			       "undecided between 100.0 and 300.0 ns: the break-even 90.0 ns "
			       "lies below this host's trap range, but over the runs (the "
			       "break-even 75.0 to 105.0 ns, the range from 100.0) they meet"));
}

/* The range's own spread: a syscall of 100 ns at its median, 95 at its fastest run. */
static void test_range_spread(void **state)
{
	struct break_even b;
	char text[320];

	/* break-even 90, 82..98: below the median 100, not below the fastest 95 */
	assert_int_equal(judge_in(95, 150, 5, 60, 3, &b, text, sizeof(text)), VERDICT_UNDECIDED);
	assert_non_null(strstr(text, "the range from 95.0) they meet"));
	/* ... and decided where the fastest run is above 98 */
	assert_int_equal(judge_in(99, 150, 5, 60, 3, &b, text, sizeof(text)), VERDICT_BASELINE);
	assert_non_null(strstr(text, "below this host's trap range 100.0-300.0 ns, its lower bound "
				     "99.0 at its fastest run"));
}

static void test_decided_above_and_inside(void **state)
{
	struct break_even b;
	char text[256];

	assert_int_equal(judge(460, 10, 60, 10, &b, text, sizeof(text)), VERDICT_OTHER);
	assert_int_equal(judge(260, 10, 60, 10, &b, text, sizeof(text)), VERDICT_UNDECIDED);
	assert_non_null(strstr(text, "lies inside this host's trap range"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spread),
		cmocka_unit_test(test_decided_below),
		cmocka_unit_test(test_short_trace_not_decided),
		cmocka_unit_test(test_across_the_edge),
		cmocka_unit_test(test_range_spread),
		cmocka_unit_test(test_decided_above_and_inside),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
