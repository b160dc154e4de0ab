/* SPDX-License-Identifier: MIT */
/* abi.h's lists, which host and guest both build their checks from. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fpulab/abi.h"
#include <fpu/fpu.h>

static size_t count(const char *const *names)
{
	size_t n = 0;
	while (names[n])
		n++;
	return n;
}

static void test_experiments_are_named_once_with_a_figure(void **state)
{
	assert_int_equal(count(fpulab_names_experiments), FPULAB_EXP_NR);
	for (int e = 0; e < FPULAB_EXP_NR; e++) {
		const struct fpulab_experiment *x = &fpulab_experiments[e];
		assert_string_equal(x->name, fpulab_names_experiments[e]);
		assert_true(strlen(x->summary) > 10);
		assert_in_range(x->repeat, 1, fpulab_options[FPULAB_OPT_repeat].max);
		assert_true(!strcmp(x->better, "lower") || !strcmp(x->better, "higher"));
		assert_true(x->unit[0] != '\0');
		for (int f = e + 1; f < FPULAB_EXP_NR; f++)
			assert_string_not_equal(x->name, fpulab_experiments[f].name);
	}
	assert_string_equal(fpulab_experiments[FPULAB_EXP_context_switch].name, "context-switch");
	assert_string_equal(fpulab_experiments[FPULAB_EXP_context_switch].figure, "ticks");
	assert_string_equal(fpulab_experiments[FPULAB_EXP_stress].figure, "integrity_errors");
}

static void test_options_have_unique_keys_and_sane_ranges(void **state)
{
	for (int i = 0; i < FPULAB_OPT_NR; i++) {
		const struct fpulab_option *o = &fpulab_options[i];
		assert_non_null(o->key);
		assert_non_null(o->option);
		/* 0: the bootable image's kernel only (exps, watchdog, hang) */
		assert_true(o->experiments != 0 || i == FPULAB_OPT_experiments ||
			    i == FPULAB_OPT_watchdog || i == FPULAB_OPT_hang);
		assert_true((o->experiments & ~FPULAB_EXP_ALL) == 0);
		for (int j = i + 1; j < FPULAB_OPT_NR; j++) {
			assert_string_not_equal(o->key, fpulab_options[j].key);
			assert_string_not_equal(o->option, fpulab_options[j].option);
		}
		if (o->type == FPULAB_NUMBER) {
			assert_true(o->min <= o->max);
			/* 0: computed (the help says how) */
			assert_true(o->dflt == 0 || (o->dflt >= o->min && o->dflt <= o->max));
		}
		if (o->choices)
			assert_true(count(o->choices) > 0);
	}
	assert_int_equal(fpulab_options[FPULAB_OPT_round_trips].max, 1000000000);
	assert_string_equal(fpulab_options[FPULAB_OPT_fp_users].key, "fp");
	assert_int_equal(count(fpulab_options[FPULAB_OPT_placement].choices), 3);
	assert_int_equal(fpulab_options[FPULAB_OPT_tasks].experiments,
			 FPULAB_EXP_BIT(stress) | FPULAB_EXP_BIT(sleeping_lock));
	assert_string_equal(fpulab_experiments[FPULAB_EXP_sleeping_lock].figure, "ticks");
}

/* abi.h's copies of libfpu's names, which the host checks before boot. */
static void test_faults_match_libfpu(void **state)
{
	assert_int_equal(count(fpulab_names_faults), FPU_FAULT_NR);
	for (int i = 0; i < FPU_FAULT_NR; i++) {
		assert_string_equal(fpulab_names_faults[i], fpu_fault_name((enum fpu_fault)i));
		assert_int_equal(fpu_fault_by_name(fpulab_names_faults[i]), i);
	}
	assert_true(count(fpu_policy_names()) >= 2);
	for (const char *const *p = fpulab_names_test_policies; *p; p++)
		for (const char *const *q = fpu_policy_names(); *q; q++)
			assert_string_not_equal(*p, *q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_experiments_are_named_once_with_a_figure),
		cmocka_unit_test(test_options_have_unique_keys_and_sane_ranges),
		cmocka_unit_test(test_faults_match_libfpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
