/* SPDX-License-Identifier: MIT */
/* The oracle on tiny traces whose least work is checked by hand (docs/model.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "replay/oracle.h"
#include "trace/trace_io.h"

#define SW(c, p, n)                                \
	{                                          \
		0, FPULAB_EV_SWITCH, c, p, n, 0, 0 \
	}
#define USE(c, t)                               \
	{                                       \
		0, FPULAB_EV_USE, c, t, 0, 0, 3 \
	}
#define KB(c, t)                                       \
	{                                              \
		0, FPULAB_EV_KFPU_BEGIN, c, t, 0, 0, 0 \
	}
#define KE(c, t)                                     \
	{                                            \
		0, FPULAB_EV_KFPU_END, c, t, 0, 0, 0 \
	}
#define EXIT(c, t)                               \
	{                                        \
		0, FPULAB_EV_EXIT, c, t, 0, 0, 0 \
	}
#define EXPORT(c, t)                               \
	{                                          \
		0, FPULAB_EV_EXPORT, c, t, 0, 0, 0 \
	}

#define IMPORT(c, t)                               \
	{                                          \
		0, FPULAB_EV_IMPORT, c, t, 0, 0, 3 \
	}
#define RESET(c, t)                               \
	{                                         \
		0, FPULAB_EV_RESET, c, t, 0, 0, 0 \
	}

static void run(struct fpulab_trace_event *ev, unsigned int n, unsigned int ncpus,
		uint64_t restores, uint64_t saves)
{
	struct trace t = { .ev = ev };
	struct oracle_counts oc;
	char err[256];

	memcpy(t.hdr.magic, FPULAB_TRACE_MAGIC, 8);
	t.hdr.version = FPULAB_TRACE_VERSION;
	t.hdr.header_size = 64;
	t.hdr.event_size = 16;
	t.hdr.ncpus = (uint16_t)ncpus;
	t.hdr.ntasks = 3;
	t.hdr.nevents = n;
	t.hdr.xcr0 = 7;
	for (unsigned int i = 0; i < n; i++)
		ev[i].seq = i + 1;
	if (trace_check(&t, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(oracle_run(&t, &oc), 0);
	assert_int_equal(oc.restores, restores);
	assert_int_equal(oc.saves, saves);
}

/* Two FP tasks alternate on one CPU: a restore at each use; a save at each
 * eviction except of task 2, which is not used again. */
static void test_alternate(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),   SW(0, 1, 2),
					  USE(0, 2),   SW(0, 2, 1), USE(0, 1) };
	run(e, 6, 1, 3, 1);
}

/* One FP user and a non-FP task: its state never leaves the registers. */
static void test_one_user(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),   SW(0, 1, 2), SW(0, 2, 1),
					  USE(0, 1),   SW(0, 1, 2), SW(0, 2, 1), USE(0, 1) };
	run(e, 8, 1, 1, 0);
}

/* A move to another CPU costs a save and a restore; an export saves the
 * dirty copy once, and the slot stays valid: the next use there is free. */
static void test_migrate_export(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),    SW(0, 1, 0),  SW(1, 0, 1),
					  USE(1, 1),   EXPORT(1, 1), EXPORT(1, 1), USE(1, 1) };
	run(e, 8, 2, 2, 2);
}

/* Kernel-mode FPU clobbers the slot: a save (used again) and a restore;
 * the second section evicts state nobody needs any more: no save. */
static void test_kernel_fpu(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1), KB(0, 1), KE(0, 1),
					  USE(0, 1),   KB(0, 1),  KE(0, 1) };
	run(e, 7, 1, 2, 1);
}

/* An exiting task's state is never saved; its reused id starts anew. */
static void test_exit_reuse(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),  SW(0, 1, 2), USE(0, 2),
					  SW(0, 2, 1), EXIT(0, 1), SW(0, 0, 1), USE(0, 1) };
	run(e, 8, 1, 3, 0);
}

/* Two CPUs, each with its own FP task, never meeting: one restore each, nothing else. */
static void test_two_cpus(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), SW(1, 0, 2), USE(0, 1),   USE(1, 2),
					  SW(0, 1, 0), SW(1, 2, 0), SW(0, 0, 1), SW(1, 0, 2),
					  USE(1, 2),   USE(0, 1) };
	run(e, 10, 2, 2, 0);
}

/* An import makes memory hold the latest state: the copy in the slot is
 * dropped unsaved, and the next use restores. Without the import, task 1's
 * dirty state would be saved when task 2 takes the slot (restores 3, saves 1). */
static void test_import(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),   IMPORT(0, 1), SW(0, 1, 2),
					  USE(0, 2),   SW(0, 2, 1), USE(0, 1) };
	run(e, 7, 1, 3, 0);
}

/* A dirty state whose next event replaces it (a ptrace write while it is
 * switched out, a reset) is not needed: evicting it saves nothing. */
static void test_evict_before_replace(void **state)
{
	struct fpulab_trace_event e[] = { SW(0, 0, 1), USE(0, 1),    SW(0, 1, 2),
					  USE(0, 2),   IMPORT(0, 1), SW(0, 2, 1),
					  USE(0, 1),   RESET(0, 1),  USE(0, 1) };
	run(e, 9, 1, 4, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alternate),      cmocka_unit_test(test_one_user),
		cmocka_unit_test(test_migrate_export), cmocka_unit_test(test_kernel_fpu),
		cmocka_unit_test(test_exit_reuse),     cmocka_unit_test(test_two_cpus),
		cmocka_unit_test(test_import),         cmocka_unit_test(test_evict_before_replace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
