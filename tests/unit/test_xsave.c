/* SPDX-License-Identifier: MIT */
/* Save/restore round trips through every user-legal instruction, init state,
 * XINUSE and the FXSAVE pointer scrub, with real registers (host user mode). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpuid.h>
#include <cmocka.h>
#include <fpu/xstate.h>
#include "xregs.h"

static struct xregs A, B, refA, refB, got;
static struct xregs_state *buf, *buf2;

static int setup(void **state)
{
	buf = aligned_alloc(64, XSTATE_MAX_SIZE);
	buf2 = aligned_alloc(64, XSTATE_MAX_SIZE);
	xregs_fill(&A, 1);
	xregs_fill(&B, 2);
	return 0;
}

static int teardown(void **state)
{
	free(buf);
	free(buf2);
	return 0;
}

static bool user_init(enum fpu_save_insn insn)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = insn };
	return xstate_init(&o) == XSTATE_OK;
}

/* Compare what the mask covers: x87, MXCSR, and the vector registers. */
static void assert_regs_equal(const struct xregs *x, const struct xregs *y, uint64_t mask)
{
	int n, w;
	xregs_shape(mask, &n, &w);
	assert_int_equal(xregs_x87_cmp(x, y), 0);
	assert_int_equal(x->mxcsr, y->mxcsr);
	for (int i = 0; i < n; i++)
		assert_memory_equal(x->zmm[i], y->zmm[i], w);
	if (w == 64)
		assert_memory_equal(x->k, y->k, sizeof(x->k));
}

static void round_trip(enum fpu_save_insn insn)
{
	if (!user_init(insn))
		skip();
	uint64_t mask = xstate_cfg.kernel_mask;

	/* Reference values, read back directly. */
	xregs_load(&A, mask);
	xregs_read(&refA, mask);
	xregs_load(&B, mask);
	xregs_read(&refB, mask);
	assert_int_not_equal(refA.mxcsr, refB.mxcsr);
	assert_int_not_equal(xregs_x87_cmp(&refA, &refB), 0);
	assert_int_equal(refA.mxcsr, A.mxcsr);
	assert_memory_equal(refA.zmm[15], A.zmm[15], 16);

	memset(buf, 0xee, XSTATE_MAX_SIZE);
	xstate_init_buffer(buf);
	xregs_load(&A, mask);
	xstate_save(buf, mask);
	xregs_load(&B, mask); /* clobber */
	xstate_restore(buf, mask);
	xregs_read(&got, mask);
	assert_regs_equal(&got, &refA, mask);

	/* And the buffer holds A where the format says. */
	assert_int_equal(buf->legacy.mxcsr, A.mxcsr);
	assert_memory_equal(buf->legacy.xmm_space + 16 * 7, A.zmm[7], 16);
	if (insn != FPU_INSN_FXSAVE) {
		assert_int_equal(buf->header.xcomp_bv,
				 xstate_cfg.compacted ? (mask | XCOMP_BV_COMPACTED) : 0);
		assert_int_equal(buf->header.xstate_bv & XFEATURE_MASK_FPSSE, XFEATURE_MASK_FPSSE);
		if (mask & XFEATURE_MASK(XFEATURE_YMM)) {
			uint32_t off = xstate_offset(XFEATURE_YMM, xstate_cfg.compacted,
						     buf->header.xcomp_bv);
			assert_memory_equal((uint8_t *)buf + off + 16 * 3, A.zmm[3] + 16, 16);
		}
	}
	/* Restoring B's state from a second buffer gives B back: nothing of A sticks. */
	xstate_init_buffer(buf2);
	xregs_load(&B, mask);
	xstate_save(buf2, mask);
	xregs_load(&A, mask);
	xstate_restore(buf2, mask);
	xregs_read(&got, mask);
	assert_regs_equal(&got, &refB, mask);
}

static void test_round_trip_fxsave(void **state)
{
	round_trip(FPU_INSN_FXSAVE);
}
static void test_round_trip_xsave(void **state)
{
	round_trip(FPU_INSN_XSAVE);
}
static void test_round_trip_xsaveopt(void **state)
{
	round_trip(FPU_INSN_XSAVEOPT);
}
static void test_round_trip_xsavec(void **state)
{
	round_trip(FPU_INSN_XSAVEC);
}

/* XSAVEOPT right after XRSTOR from the same buffer, with registers modified in
 * between: the modified optimization must still store the new values. */
static void test_xsaveopt_after_modify(void **state)
{
	if (!user_init(FPU_INSN_XSAVEOPT))
		skip();
	uint64_t mask = xstate_cfg.kernel_mask;

	xstate_init_buffer(buf);
	xregs_load(&A, mask);
	xstate_save(buf, mask);
	xstate_restore(buf, mask);
	xregs_load(&B, mask);
	xstate_save(buf, mask);
	xstate_load_init();
	xstate_restore(buf, mask);
	xregs_read(&got, mask);
	xregs_load(&B, mask);
	xregs_read(&refB, mask);
	assert_regs_equal(&got, &refB, mask);
}

/* A compacted buffer is always written with the full mask (XCOMP_BV fixed). */
static void test_compacted_never_partial(void **state)
{
	if (!user_init(FPU_INSN_XSAVEC))
		skip();
	xregs_load(&A, xstate_cfg.kernel_mask);
	xstate_save(buf, XFEATURE_MASK_FPSSE);
	assert_int_equal(buf->header.xcomp_bv, xstate_cfg.kernel_mask | XCOMP_BV_COMPACTED);
	xstate_save_insn(FPU_INSN_XSAVEC, buf, XFEATURE_MASK(XFEATURE_X87));
	assert_int_equal(buf->header.xcomp_bv, xstate_cfg.kernel_mask | XCOMP_BV_COMPACTED);
}

/* A standard-format partial save leaves the other components of the buffer alone. */
static void test_standard_partial_save(void **state)
{
	if (!user_init(FPU_INSN_XSAVE) || !(xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM)))
		skip();
	uint64_t mask = xstate_cfg.kernel_mask;
	uint32_t off = xstate_cfg.comp[XFEATURE_YMM].std_offset;

	xstate_init_buffer(buf);
	xregs_load(&A, mask);
	xstate_save(buf, mask);
	xregs_load(&B, mask);
	xstate_save(buf, XFEATURE_MASK_FPSSE);
	assert_memory_equal(buf->legacy.xmm_space, B.zmm[0], 16);
	assert_memory_equal((uint8_t *)buf + off, A.zmm[0] + 16, 16);
}

static void check_init_regs(uint64_t mask)
{
	int n, w;
	static const uint8_t zero[64];

	xregs_read(&got, mask);
	xregs_shape(mask, &n, &w);
	assert_int_equal(got.fsave[0] | got.fsave[1] << 8, FCW_DEFAULT);
	assert_int_equal(got.fsave[4] | got.fsave[5] << 8, 0);      /* FSW */
	assert_int_equal(got.fsave[8] | got.fsave[9] << 8, 0xffff); /* FTW: all empty */
	for (int i = 0; i < 80; i++)
		assert_int_equal(got.fsave[28 + i], 0);
	assert_int_equal(got.mxcsr, MXCSR_DEFAULT);
	for (int i = 0; i < n; i++)
		assert_memory_equal(got.zmm[i], zero, w);
	if (w == 64)
		for (int i = 0; i < 8; i++)
			assert_int_equal(got.k[i], 0);
}

static void init_state(enum fpu_save_insn insn)
{
	if (!user_init(insn))
		skip();
	uint64_t mask = xstate_cfg.kernel_mask;

	xregs_load(&A, mask);
	xstate_load_init();
	check_init_regs(mask);

	/* A new task's buffer, restored after another task ran: nothing of A visible. */
	memset(buf, 0x5a, XSTATE_MAX_SIZE);
	xstate_init_buffer(buf);
	assert_int_equal(buf->legacy.fcw, FCW_DEFAULT);
	assert_int_equal(buf->legacy.mxcsr, MXCSR_DEFAULT);
	if (insn != FPU_INSN_FXSAVE) {
		assert_int_equal(buf->header.xstate_bv, 0);
		assert_int_equal(buf->header.xcomp_bv,
				 xstate_cfg.compacted ? (mask | XCOMP_BV_COMPACTED) : 0);
	}
	for (uint32_t i = 576; i < xstate_cfg.kernel_size; i++)
		assert_int_equal(((uint8_t *)buf)[i], 0);
	assert_int_equal(((uint8_t *)buf)[xstate_cfg.kernel_size], 0x5a);
	xregs_load(&A, mask);
	xstate_restore(buf, mask);
	check_init_regs(mask);
	/* FNINIT alone is not enough: XMM and MXCSR survive it. */
	xregs_load(&A, mask);
	__asm__ volatile("fninit");
	xregs_read(&got, mask);
	assert_int_equal(got.mxcsr, A.mxcsr);
	assert_memory_equal(got.zmm[1], A.zmm[1], 16);
}

static void test_init_fxsave(void **state)
{
	init_state(FPU_INSN_FXSAVE);
}
static void test_init_xsave(void **state)
{
	init_state(FPU_INSN_XSAVE);
}
static void test_init_xsaveopt(void **state)
{
	init_state(FPU_INSN_XSAVEOPT);
}
static void test_init_xsavec(void **state)
{
	init_state(FPU_INSN_XSAVEC);
}

static void test_xinuse(void **state)
{
	assert_true(user_init(FPU_INSN_AUTO));
	uint64_t mask = xstate_cfg.kernel_mask;
	if (!xstate_cfg.caps.xgetbv1) {
		assert_int_equal(xstate_xinuse(), ~0ull);
		return;
	}
	/* Dirty registers must read as in use (clean ones may read either way). */
	xregs_load(&A, mask);
	uint64_t in = xstate_xinuse();
	assert_int_equal(in & mask, mask);
	/* And XSAVE records exactly that in XSTATE_BV. */
	xstate_init_buffer(buf);
	xregs_load(&A, mask);
	xstate_save(buf, mask);
	assert_int_equal(buf->header.xstate_bv & mask, mask);
}

/*
 * FIP/FDP as FNSTENV stores them (offsets, low 32 bits). On the AMD EPYC we
 * develop on, FXSAVE64 stores 0 for FIP/FDP/FOP unless an x87 exception is
 * pending, even with XSaveErPtr set; FNSTENV always stores them.
 */
static void x87_pointers(uint32_t *fip, uint32_t *fdp)
{
	uint32_t env[7];
	__asm__ volatile("fnstenv %0\n\tfldenv %0" : "=m"(env));
	*fip = env[3];
	*fdp = env[5];
}

static void test_scrub(void **state)
{
	static const double x = 1.0, y = 2.0;
	unsigned a, b, c, d;

	assert_true(user_init(FPU_INSN_AUTO));
	/* This CPU's own answer: AMD without XSaveErPtr leaks. */
	assert_int_equal(xstate_scrub_fxsave_leak(),
			 xstate_cfg.caps.amd && !xstate_cfg.caps.xsaveerptr);

	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER,
				      .insn = FPU_INSN_AUTO,
				      .force_fxsave_scrub = true };
	assert_int_equal(xstate_init(&o), XSTATE_OK);
	uint32_t fip_x, fdp_x, fip1, fdp1, fip2, fdp2;
	__asm__ volatile("fninit\n\tfldl %0" : : "m"(x));
	x87_pointers(&fip_x, &fdp_x);
	assert_true(xstate_scrub_fxsave_leak());
	x87_pointers(&fip1, &fdp1);
	__asm__ volatile("fninit\n\tnop\n\tfldl %0" : : "m"(y));
	assert_true(xstate_scrub_fxsave_leak());
	x87_pointers(&fip2, &fdp2);
	__asm__ volatile("fninit");

	/* Pointers now name libfpu's scrub, whatever ran before. */
	assert_int_not_equal(fip1, fip_x);
	assert_int_equal(fip1, fip2);
	__cpuid_count(7, 0, a, b, c, d);
	if (!(b & (1u << 6))) { /* FDP_EXCPTN_ONLY: FDP kept only on exceptions */
		assert_int_equal(fdp_x, (uint32_t)(uintptr_t)&x);
		assert_int_not_equal(fdp1, fdp_x);
		assert_int_equal(fdp1, fdp2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_fxsave),
		cmocka_unit_test(test_round_trip_xsave),
		cmocka_unit_test(test_round_trip_xsaveopt),
		cmocka_unit_test(test_round_trip_xsavec),
		cmocka_unit_test(test_xsaveopt_after_modify),
		cmocka_unit_test(test_compacted_never_partial),
		cmocka_unit_test(test_standard_partial_save),
		cmocka_unit_test(test_init_fxsave),
		cmocka_unit_test(test_init_xsave),
		cmocka_unit_test(test_init_xsaveopt),
		cmocka_unit_test(test_init_xsavec),
		cmocka_unit_test(test_xinuse),
		cmocka_unit_test(test_scrub),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
