/* SPDX-License-Identifier: MIT */
/* libfpu enumeration and layouts, checked against CPUID and against what the
 * CPU's own XSAVE/XSAVEC write (host user mode). */
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

static uint64_t xgetbv0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return ((uint64_t)hi << 32) | lo;
}

static int user_init(enum fpu_save_insn insn, uint64_t max_xcr0)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER,
				      .insn = insn,
				      .max_xcr0 = max_xcr0 };
	return xstate_init(&o);
}

static void test_caps_match_cpuid(void **state)
{
	unsigned a, b, c, d, c1, d1;
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	const struct xstate_cpu_caps *k = &xstate_cfg.caps;

	__cpuid(1, a, b, c1, d1);
	assert_int_equal(k->fxsr, !!(d1 & (1u << 24)));
	assert_int_equal(k->xsave, !!(c1 & (1u << 26)));
	assert_int_equal(k->avx, !!(c1 & (1u << 28)));
	__cpuid_count(7, 0, a, b, c, d);
	assert_int_equal(k->avx512f, !!(b & (1u << 16)));
	__cpuid_count(0xd, 0, a, b, c, d);
	assert_int_equal(k->xcr0_supported, ((uint64_t)d << 32) | a);
	__cpuid_count(0xd, 1, a, b, c, d);
	assert_int_equal(k->xsaveopt, !!(a & 1));
	assert_int_equal(k->xsavec, !!(a & 2));
	assert_int_equal(k->xgetbv1, !!(a & 4));
	assert_int_equal(k->xsaves, !!(a & 8));
	assert_int_equal(k->xss_supported, ((uint64_t)d << 32) | c);
	__cpuid(0x80000008, a, b, c, d);
	assert_int_equal(k->xsaveerptr, !!(b & 4));
	__cpuid(0, a, b, c, d);
	assert_int_equal(k->amd, b == 0x68747541);

	struct fxregs_state fx __attribute__((aligned(64)));
	memset(&fx, 0, sizeof(fx));
	__asm__ volatile("fxsave64 %0" : "=m"(fx));
	assert_int_equal(k->mxcsr_mask, fx.mxcsr_mask ? fx.mxcsr_mask : MXCSR_MASK_DEFAULT);
}

static void test_components_match_cpuid(void **state)
{
	unsigned a, b, c, d;
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	uint64_t all = xstate_cfg.caps.xcr0_supported | xstate_cfg.caps.xss_supported;
	int seen = 0;

	for (unsigned i = 2; i < 63; i++) {
		const struct xstate_component *k = &xstate_cfg.comp[i];
		if (!(all & XFEATURE_MASK(i))) {
			assert_int_equal(k->size, 0);
			continue;
		}
		__cpuid_count(0xd, i, a, b, c, d);
		assert_int_equal(k->size, a);
		assert_int_equal(k->supervisor, c & 1);
		assert_int_equal(k->align64, !!(c & 2));
		assert_int_equal(k->std_offset, (c & 1) ? 0 : b);
		assert_int_equal(k->supervisor,
				 !!(xstate_cfg.caps.xss_supported & XFEATURE_MASK(i)));
		seen++;
	}
	assert_true(seen >= 1); /* every XSAVE CPU with AVX lists YMM */
	assert_int_equal(xstate_cfg.comp[XFEATURE_YMM].std_offset, 576);
	assert_int_equal(xstate_cfg.comp[XFEATURE_YMM].size, 256);
}

static void test_user_masks(void **state)
{
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	uint64_t want = xgetbv0() &
			(XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_YMM) | XFEATURE_MASK_AVX512);
	if (!xstate_cfg.caps.avx512f)
		want &= ~XFEATURE_MASK_AVX512;
	if (!xstate_cfg.caps.avx)
		want &= ~(XFEATURE_MASK(XFEATURE_YMM) | XFEATURE_MASK_AVX512);
	assert_int_equal(xstate_cfg.xcr0, want);
	assert_int_equal(xstate_cfg.xss, 0);
	assert_int_equal(xstate_cfg.kernel_mask, want);
	assert_int_equal(xstate_cfg.xcr0 & ~xstate_cfg.caps.xcr0_supported, 0);
	assert_int_equal(xstate_cfg.mode, XSTATE_MODE_USER);

	/* An upper bound is honoured. */
	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK_FPSSE), XSTATE_OK);
	assert_int_equal(xstate_cfg.xcr0, XFEATURE_MASK_FPSSE);
	assert_int_equal(xstate_cfg.user_size, 576);
	/* AVX-512 without YMM is not a valid XCR0: dropped. */
	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK_FPSSE | XFEATURE_MASK_AVX512),
			 XSTATE_OK);
	assert_int_equal(xstate_cfg.xcr0, XFEATURE_MASK_FPSSE);
	/* Part of AVX-512 only: dropped. */
	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK_FPSSE |
							  XFEATURE_MASK(XFEATURE_YMM) |
							  XFEATURE_MASK(XFEATURE_OPMASK)),
			 XSTATE_OK);
	assert_int_equal(xstate_cfg.xcr0 & XFEATURE_MASK_AVX512, 0);
}

static void test_bad_options(void **state)
{
	struct xstate_init_opts o = { .mode = XSTATE_MODE_USER, .insn = FPU_INSN_AUTO };

	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK(XFEATURE_SSE)), XSTATE_E_MASK);
	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK_FPSSE | XCOMP_BV_COMPACTED),
			 XSTATE_E_MASK);
	o.max_xss = XFEATURE_MASK(XFEATURE_CET_U);
	assert_int_equal(xstate_init(&o), XSTATE_E_MASK); /* no supervisor state in user mode */
	assert_int_equal(user_init(FPU_INSN_XSAVES, 0), XSTATE_E_NOXSAVE); /* ring 0 only */
	assert_int_equal(user_init((enum fpu_save_insn)17, 0), XSTATE_E_NOXSAVE);
	if (xstate_cfg.caps.xss_supported & XFEATURE_MASK(XFEATURE_CET_U))
		assert_int_equal(user_init(FPU_INSN_AUTO,
					   XFEATURE_MASK_FPSSE | XFEATURE_MASK(XFEATURE_CET_U)),
				 XSTATE_E_MASK);
	/* A failed init leaves the next good one working. */
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	/* ... and the configuration before it as it was, sizes and instruction too. */
	struct xstate_config good = xstate_cfg;
	assert_int_equal(user_init(FPU_INSN_XSAVES, 0), XSTATE_E_NOXSAVE);
	assert_memory_equal(&xstate_cfg, &good, sizeof(good));
	assert_int_equal(user_init(FPU_INSN_AUTO, XFEATURE_MASK(XFEATURE_SSE)), XSTATE_E_MASK);
	assert_memory_equal(&xstate_cfg, &good, sizeof(good));
	assert_true(xstate_cfg.kernel_size >= 512);
}

static void test_insn_choice(void **state)
{
	unsigned a, b, c, d;
	__cpuid_count(0xd, 1, a, b, c, d);
	enum fpu_save_insn best = (a & 2)   ? FPU_INSN_XSAVEC
				  : (a & 1) ? FPU_INSN_XSAVEOPT
					    : FPU_INSN_XSAVE;

	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	assert_int_equal(xstate_cfg.save_insn, best);
	for (int i = FPU_INSN_FXSAVE; i <= FPU_INSN_XSAVEC; i++) {
		bool have = i == FPU_INSN_FXSAVE || i == FPU_INSN_XSAVE ||
			    (i == FPU_INSN_XSAVEOPT && (a & 1)) ||
			    (i == FPU_INSN_XSAVEC && (a & 2));
		int r = user_init(i, 0);
		if (!have) {
			assert_int_equal(r, XSTATE_E_NOXSAVE);
			continue;
		}
		assert_int_equal(r, XSTATE_OK);
		assert_int_equal(xstate_cfg.save_insn, i);
		assert_int_equal(xstate_cfg.compacted, i == FPU_INSN_XSAVEC);
		if (i == FPU_INSN_FXSAVE) {
			assert_int_equal(xstate_cfg.xcr0, XFEATURE_MASK_FPSSE);
			assert_int_equal(xstate_cfg.kernel_size, 512);
		} else if (i == FPU_INSN_XSAVEC) {
			assert_int_equal(xstate_cfg.kernel_size,
					 xstate_size_compacted(xstate_cfg.kernel_mask));
		} else {
			assert_int_equal(xstate_cfg.kernel_size,
					 xstate_size_standard(xstate_cfg.kernel_mask));
		}
	}
}

static void test_standard_size_vs_cpuid(void **state)
{
	unsigned a, b, c, d;
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	__cpuid_count(0xd, 0, a, b, c, d);
	/* EBX: size for the XCR0 the OS enabled; ECX: for every supported user bit. */
	assert_int_equal(xstate_size_standard(xgetbv0()), b);
	assert_int_equal(xstate_size_standard(xstate_cfg.caps.xcr0_supported), c);
	assert_int_equal(xstate_size_standard(XFEATURE_MASK_FPSSE), 576);
	assert_int_equal(xstate_size_compacted(XFEATURE_MASK_FPSSE), 576);
	assert_int_equal(xstate_cfg.user_size, xstate_size_standard(xstate_cfg.xcr0));
}

/* SDM §13.4.2/§13.4.3 rules, for every subset of the enabled extended components. */
static void test_layout_rules(void **state)
{
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	uint64_t ext = xstate_cfg.xcr0 & ~XFEATURE_MASK_FPSSE;
	unsigned bits[64], n = 0;
	for (unsigned i = 2; i < 63; i++)
		if (ext & XFEATURE_MASK(i))
			bits[n++] = i;

	/* Standard: components in the extended region, not overlapping. */
	for (unsigned x = 0; x < n; x++) {
		const struct xstate_component *cx = &xstate_cfg.comp[bits[x]];
		assert_true(cx->std_offset >= 576);
		assert_int_equal(xstate_offset(bits[x], false, 0), cx->std_offset);
		for (unsigned y = x + 1; y < n; y++) {
			const struct xstate_component *cy = &xstate_cfg.comp[bits[y]];
			assert_true(cx->std_offset + cx->size <= cy->std_offset ||
				    cy->std_offset + cy->size <= cx->std_offset);
		}
	}
	/* Compacted: packed in bit order from 576, aligned where the flag says. */
	for (uint64_t sub = 0; sub < (1ull << n); sub++) {
		uint64_t m = XFEATURE_MASK_FPSSE;
		for (unsigned x = 0; x < n; x++)
			if (sub & (1ull << x))
				m |= XFEATURE_MASK(bits[x]);
		uint32_t expect = 576;
		for (unsigned x = 0; x < n; x++) {
			unsigned i = bits[x];
			if (!(m & XFEATURE_MASK(i))) {
				assert_int_equal(xstate_offset(i, true, m | XCOMP_BV_COMPACTED), 0);
				continue;
			}
			if (xstate_cfg.comp[i].align64)
				expect = (expect + 63) & ~63u;
			assert_int_equal(xstate_offset(i, true, m | XCOMP_BV_COMPACTED), expect);
			expect += xstate_cfg.comp[i].size;
		}
		assert_int_equal(xstate_size_compacted(m), expect);
	}
	assert_int_equal(xstate_offset(XFEATURE_X87, true, 0), 0);
	assert_int_equal(xstate_offset(XFEATURE_SSE, false, 0), 160);
}

/* The CPU's own XSAVE/XSAVEC place each register where libfpu says, for every subset. */
static void test_layout_vs_hardware(void **state)
{
	assert_int_equal(user_init(FPU_INSN_AUTO, 0), XSTATE_OK);
	if (!xstate_cfg.caps.xsavec || !(xstate_cfg.xcr0 & XFEATURE_MASK(XFEATURE_YMM)))
		skip();
	static struct xregs r;
	uint8_t *buf = aligned_alloc(64, XSTATE_MAX_SIZE + 256);
	uint64_t ext = xstate_cfg.xcr0 & ~XFEATURE_MASK_FPSSE;

	xregs_fill(&r, 5);
	for (uint64_t m = ext;; m = (m - 1) & ext) {
		uint64_t rfbm = m | XFEATURE_MASK_FPSSE;
		for (int compact = 0; compact < 2; compact++) {
			memset(buf, 0xa5, XSTATE_MAX_SIZE + 256);
			memset(buf + 512, 0, 64);
			xregs_load(&r, xstate_cfg.xcr0);
			if (compact)
				__asm__ volatile("xsavec64 %0"
						 : "+m"(*buf)
						 : "a"((uint32_t)rfbm), "d"(0)
						 : "memory");
			else
				__asm__ volatile("xsave64 %0"
						 : "+m"(*buf)
						 : "a"((uint32_t)rfbm), "d"(0)
						 : "memory");
			uint64_t xcomp;
			memcpy(&xcomp, buf + 520, 8);
			assert_int_equal(xcomp, compact ? (rfbm | XCOMP_BV_COMPACTED) : 0);
			uint32_t size = compact ? xstate_size_compacted(rfbm)
						: xstate_size_standard(rfbm);
			/* Nothing written past the computed size. */
			for (uint32_t i = size; i < size + 256; i++)
				assert_int_equal(buf[i], 0xa5);
			/* XMM0 at 160; YMM0 high half at the YMM offset; ZMM0 bits 511:256 at ZMM_Hi256. */
			assert_memory_equal(buf + 160, r.zmm[0], 16);
			if (rfbm & XFEATURE_MASK(XFEATURE_YMM))
				assert_memory_equal(
					buf + xstate_offset(XFEATURE_YMM, compact, rfbm),
					r.zmm[0] + 16, 16);
			if (rfbm & XFEATURE_MASK(XFEATURE_OPMASK))
				assert_memory_equal(
					buf + xstate_offset(XFEATURE_OPMASK, compact, rfbm), r.k,
					64);
			if (rfbm & XFEATURE_MASK(XFEATURE_ZMM_HI256))
				assert_memory_equal(
					buf + xstate_offset(XFEATURE_ZMM_HI256, compact, rfbm),
					r.zmm[0] + 32, 32);
			if (rfbm & XFEATURE_MASK(XFEATURE_HI16_ZMM))
				assert_memory_equal(
					buf + xstate_offset(XFEATURE_HI16_ZMM, compact, rfbm),
					r.zmm[16], 64);
		}
		if (!m)
			break;
	}
	free(buf);
}

static void test_names(void **state)
{
	assert_string_equal(fpu_insn_name(FPU_INSN_FXSAVE), "fxsave");
	assert_string_equal(fpu_insn_name(FPU_INSN_XSAVE), "xsave");
	assert_string_equal(fpu_insn_name(FPU_INSN_XSAVEOPT), "xsaveopt");
	assert_string_equal(fpu_insn_name(FPU_INSN_XSAVEC), "xsavec");
	assert_string_equal(fpu_insn_name(FPU_INSN_XSAVES), "xsaves");
	assert_string_equal(fpu_insn_name(FPU_INSN_AUTO), "auto");
	assert_string_equal(fpu_insn_name(FPU_INSN_NR), "?");
	assert_string_equal(xstate_name(XFEATURE_X87), "x87");
	assert_string_equal(xstate_name(XFEATURE_YMM), "ymm");
	assert_string_equal(xstate_name(XFEATURE_HI16_ZMM), "hi16_zmm");
	assert_string_equal(xstate_name(XFEATURE_XTILE_DATA), "xtile_data");
	assert_string_equal(xstate_name(40), "unknown");
	assert_string_equal(xstate_name(1000), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_caps_match_cpuid),
		cmocka_unit_test(test_components_match_cpuid),
		cmocka_unit_test(test_user_masks),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_insn_choice),
		cmocka_unit_test(test_standard_size_vs_cpuid),
		cmocka_unit_test(test_layout_rules),
		cmocka_unit_test(test_layout_vs_hardware),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
