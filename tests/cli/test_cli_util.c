/* SPDX-License-Identifier: MIT */
/* cli/common/util.c: the printed figures' helpers (no "-0.0", no share of a zero floor);
 * cli/common/cpu_model.c's XCR0 text; program_runnable's PATH search. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cpuid.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmocka.h>

#include <fpu/xstate.h>

#include "common/cpu_model.h"
#include "common/stop_signals.h"
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

/* The OS's XCR0, and libfpu's narrower mask beside it when they differ. */
static void xcr0_text_names_the_os_mask_and_libfpus(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };
	uint32_t a, b, c, d;
	uint64_t os = 0x3;
	char buf[64], want[64];

	(void)state;
	__cpuid(1, a, b, c, d);
	if (c & bit_OSXSAVE)
		os = xstate_xgetbv(0);
	o.max_xcr0 = 0x3; /* x87 and SSE only: narrower than any OS with AVX */
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	if (os == 0x3)
		snprintf(want, sizeof(want), "XCR0 0x3");
	else
		snprintf(want, sizeof(want), "XCR0 0x%" PRIx64 ", libfpu's 0x3", os);
	assert_string_equal(xcr0_text(buf, sizeof(buf)), want);
	o.max_xcr0 = 0; /* libfpu's default: within x87|SSE|AVX|AVX-512, AMX left out */
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	if (xstate_cfg.xcr0 == os)
		snprintf(want, sizeof(want), "XCR0 0x%" PRIx64, os);
	else
		snprintf(want, sizeof(want), "XCR0 0x%" PRIx64 ", libfpu's 0x%" PRIx64, os,
			 xstate_cfg.xcr0);
	assert_string_equal(xcr0_text(buf, sizeof(buf)), want);
}

static void on_stop(int sig)
{
	(void)sig;
}

static void (*disposition(int sig))(int)
{
	struct sigaction sa;
	assert_int_equal(sigaction(sig, NULL, &sa), 0);
	return sa.sa_handler;
}

/* A stop signal ignored at start stays ignored (nohup, a background job); the others are
 * caught, and restored after. */
static void stop_signals_ignored_at_start_stay_ignored(void **state)
{
	struct sigaction old[STOP_SIGNALS_N];

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	catch_stop_signals(on_stop, old);
	assert_ptr_equal(disposition(SIGINT), SIG_IGN);
	assert_ptr_equal(disposition(SIGTERM), on_stop);
	assert_ptr_equal(disposition(SIGHUP), on_stop);
	restore_stop_signals(old);
	assert_ptr_equal(disposition(SIGINT), SIG_IGN);
	assert_ptr_equal(disposition(SIGTERM), SIG_DFL);
	assert_ptr_equal(disposition(SIGHUP), SIG_DFL);
	signal(SIGINT, SIG_DFL);
	catch_stop_signals(on_stop, NULL);
	assert_ptr_equal(disposition(SIGINT), on_stop);
	for (int i = 0; i < STOP_SIGNALS_N; i++)
		signal(stop_signals[i], SIG_DFL);
}

/* As exec searches: each PATH entry in turn, an empty one the current directory. */
static void program_runnable_searches_path_as_exec_does(void **state)
{
	char cwd[4096];
	const char *old = getenv("PATH");
	char *saved = old ? xstrdup(old) : NULL;

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	setenv("PATH", "/nonexistent:/bin", 1);
	assert_true(program_runnable("sh"));
	assert_false(program_runnable("no-such-program-fpulab"));
	setenv("PATH", "/nonexistent", 1);
	assert_false(program_runnable("sh"));
	assert_true(program_runnable("/bin/sh")); /* a path: PATH is not searched */
	assert_false(program_runnable("/nonexistent/sh"));
	assert_int_equal(chdir("/bin"), 0);
	setenv("PATH", "/nonexistent:", 1);
	assert_true(program_runnable("sh"));
	assert_int_equal(chdir(cwd), 0);
	if (saved)
		setenv("PATH", saved, 1);
	else
		unsetenv("PATH");
	free(saved);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unsigned_zero_never_prints_minus_zero),
		cmocka_unit_test(share_of_a_floor_of_1_ns_or_more),
		cmocka_unit_test(no_share_of_a_floor_under_1_ns),
		cmocka_unit_test(xcr0_text_names_the_os_mask_and_libfpus),
		cmocka_unit_test(stop_signals_ignored_at_start_stay_ignored),
		cmocka_unit_test(program_runnable_searches_path_as_exec_does),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
